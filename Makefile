# The two commands of the README:
#   make book   installs everything into .venv and builds the book into _build/html
#   make test   installs, builds the book with warnings as errors, and runs every test
# Both go through constraints.txt, which pins torch to the CPU build.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install book system-deps test clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

# -W turns every Sphinx warning into an error; --keep-going reports all of them
# before failing, and the reports stay in _build/html/reports when a notebook fails.
book: install
	$(BIN)/jupyter-book build . --warningiserror --keep-going

# tests/test_spreadsheet.py recalculates chapter 7's workbook in LibreOffice Calc (headless).
# On a fresh Debian/Ubuntu machine (CI) it is installed here without the recommended extras
# (about 60 packages, 300 MB, half a minute); elsewhere install LibreOffice yourself.
# `make book` does not need it.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

system-deps:
	@command -v soffice >/dev/null 2>&1 || command -v libreoffice >/dev/null 2>&1 || { \
	  command -v apt-get >/dev/null 2>&1 || { \
	    echo "make test needs LibreOffice Calc (soffice on PATH): install it with your package manager" >&2; exit 1; }; \
	  echo "installing libreoffice-calc (headless spreadsheet recalculation for tests/test_spreadsheet.py)"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libreoffice-calc; }

test: book system-deps
	$(BIN)/python -m pytest

clean:
	rm -rf _build $(VENV)

# The two commands of the README:
#   make book   installs everything into .venv and builds the book into _build/html
#   make test   installs, builds the book with warnings as errors, and runs every test
# Both go through constraints.txt, which pins torch to the CPU build.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install book test clean

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

test: book
	$(BIN)/python -m pytest

clean:
	rm -rf _build $(VENV)

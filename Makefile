# The two commands of the README:
#   make book   installs everything into .venv and builds the book into _build/html
#   make test   installs, builds the book with warnings as errors, and runs every test
# Both go through constraints.txt, which pins torch to the CPU build. The contributor's fast loop
# (CONTRIBUTING.md):
#   make check  ruff's lint and format check, then the tests not marked slow (no book, no nbval)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: install vendor book pdf epub system-deps test check test-kernels test-torch clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

# $(call apt_install,PACKAGES,WHAT NEEDS THEM): install Debian packages with apt-get (as root, or
# through sudo), or, where there is no apt-get, say what is missing and stop. No commas in the text.
apt_install = { command -v apt-get >/dev/null 2>&1 || { \
	  echo "$(2): install $(1) with your package manager" >&2; exit 1; }; \
	  echo "installing $(1) ($(2))"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(1); }

# The book serves MathJax itself (no CDN when it is read, offline too), and the browser tests
# check every page with axe-core (vendor/tests, not part of the book). tools/vendor_assets.py
# fetches each once with `npm pack` (a pinned version, checked against the registry's sha512
# integrity) into vendor/ (gitignored), which the build copies into _build/html. npm comes with
# Node.js; on a fresh Debian/Ubuntu machine (CI) it is installed here with apt-get.
vendor: install
	@command -v npm >/dev/null 2>&1 || $(call apt_install,npm,make book needs npm to fetch MathJax from the npm registry)
	$(BIN)/python tools/vendor_assets.py

# -W turns every Sphinx warning into an error; --keep-going reports all of them
# before failing, and the reports stay in _build/html/reports when a notebook fails.
book: install vendor
	$(BIN)/jupyter-book build . --warningiserror --keep-going

# tests/test_spreadsheet.py recalculates chapter 7's workbook in LibreOffice Calc (headless).
# On a fresh Debian/Ubuntu machine (CI) it is installed here without the recommended extras
# (about 60 packages, 300 MB, half a minute); elsewhere install LibreOffice yourself.
# tests/test_browser.py opens every page of the built book in Debian's Chromium (headless, driven by
# the playwright package; never `playwright install`, which downloads a browser of its own).
# `make book` needs neither.
# tools/grade.py (tests/test_grading*.py, tests/test_exercises.py) runs each submission in Debian's
# bubblewrap sandbox (bwrap: a few hundred KB, no daemon); elsewhere install bubblewrap yourself.
CHROMIUM ?= /usr/bin/chromium

system-deps:
	@command -v bwrap >/dev/null 2>&1 || $(call apt_install,bubblewrap,make test needs bwrap for the sandbox tools/grade.py runs each submission in)
	@bwrap --ro-bind / / --unshare-net --unshare-pid true >/dev/null 2>&1 || { \
	  if [ -n "$$CI" ] && [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then \
	    echo "letting bwrap create user namespaces (Ubuntu 24.04 forbids it to non-root users by default; in CI only)"; \
	    $(SUDO) sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0; \
	  else \
	    echo "bwrap is installed but cannot start a sandbox here (user namespaces disabled?): tools/grade.py needs it, see exercises/README.md" >&2; exit 1; \
	  fi; }
	@command -v soffice >/dev/null 2>&1 || command -v libreoffice >/dev/null 2>&1 || \
	  $(call apt_install,libreoffice-calc,make test needs LibreOffice Calc (soffice) to recalculate tests/test_spreadsheet.py's workbooks)
	@[ -x "$(CHROMIUM)" ] || \
	  $(call apt_install,chromium fonts-liberation,make test needs Chromium at $(CHROMIUM) for tests/test_browser.py (or run make test CHROMIUM=/path/to/chromium))
	@command -v pdftotext >/dev/null 2>&1 || $(call apt_install,poppler-utils,make test checks a printed chapter with pdftotext)

# The whole book for reading offline (tools/book_formats.py): `make pdf` prints the one-page build
# in Chromium (no TeX) to _build/pdf/attention-step-by-step.pdf, numbering its contents with
# pdftotext (poppler-utils); `make epub` runs Sphinx's epub builder and turns the maths into
# MathML with the vendored MathJax, into _build/epub/attention-step-by-step.epub. Where the
# HTML book is built, both are copied next to it, so the site serves them (index.md links them).
pdf: install vendor
	@[ -x "$(CHROMIUM)" ] || \
	  $(call apt_install,chromium fonts-liberation,make pdf prints the book with Chromium at $(CHROMIUM))
	@command -v pdftotext >/dev/null 2>&1 || $(call apt_install,poppler-utils,make pdf numbers the contents with pdftotext)
	CHROMIUM=$(CHROMIUM) $(BIN)/python tools/book_formats.py pdf

epub: install vendor
	@[ -x "$(CHROMIUM)" ] || \
	  $(call apt_install,chromium fonts-liberation,make epub converts the maths with MathJax in Chromium at $(CHROMIUM))
	CHROMIUM=$(CHROMIUM) $(BIN)/python tools/book_formats.py epub

test: book system-deps
	CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest

# The fast loop, for every change (under two minutes of CPU, user + sys, on 2 cores): no book
# build, no browser, no sandbox, no LibreOffice, no fresh virtualenvs, no nbval, nothing over about
# 10 s (the tests marked `slow`; pyproject.toml registers the marker).
# addopts is replaced so that nbval is not loaded at all.
check: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -m "not slow" -p no:nbval -o addopts="-ra -p pytester --ignore=tests/submissions" tests

# The chapters' nbval once under each PyTorch CPU kernel set this CPU has (default, avx2, avx512):
# the committed outputs must hold on a learner's laptop and in Colab alike (CONTRIBUTING.md).
test-kernels: install
	$(BIN)/python tools/kernels.py $(ARGS)

# Other PyTorch releases than constraints.txt's (tools/torch_versions.py): the lowest that
# pyproject.toml accepts and the newest that PyPI serves, each in a fresh virtualenv under
# .venv-torch/ (a few GB each: PyPI's Linux wheels bring CUDA, which runs on a CPU alone too);
# the fast tests and the chapters' nbval in each. Not part of make test; the README says what ran.
TORCH_VERSIONS ?= 2.4.1 2.15.0
test-torch: install
	$(BIN)/python tools/torch_versions.py $(TORCH_VERSIONS)

clean:
	rm -rf _build $(VENV) vendor test-artifacts .venv-torch

# Two commands do all the set-up on a fresh machine with python3 and make:
#   make run    install into .venv, build the sample store (data/store), run every report
#   make test   install into .venv (and Chromium, for the rendering test), run the test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
STORE ?= data/store
AS_OF ?= $(shell date -u +%F)

.PHONY: install browser run test clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# CPU build of torch from this machine's disk, before sentence-transformers asks for one.
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

run: install
	@if [ -d "$(STORE)/memories.lance" ]; then \
		echo "using the existing store $(STORE) (delete it to rebuild the sample)"; \
	else \
		$(BIN)/memlib --store $(STORE) sample; \
	fi
	$(BIN)/memlib --store $(STORE) stats
	$(BIN)/memlib --store $(STORE) report run --all --as-of $(AS_OF)

# Headless Chromium proves in a test that the reports render offline (Debian's package).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing chromium (Debian package) for the report rendering test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

test: install browser
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) data/store reports/2* reports/.runs

# Two commands do all the set-up on a fresh machine with python3 and make:
#   make run    install into .venv, build the sample store (data/store), print its summary
#   make test   install into .venv and run the whole test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
STORE ?= data/store

.PHONY: install run test bench clean

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

test: install
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) data/store reports/*/

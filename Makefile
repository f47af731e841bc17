# Two commands do all the set-up on a fresh machine with python3 and make:
#   make run    install into .venv, build the sample store (data/store), run every report
#   make test   install into .venv (and Chromium, for the rendering test), run the test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
STORE ?= data/store
AS_OF ?= $(shell date -u +%F)
# torch from PyPI is a multi-GB CUDA build on Linux; its CPU build comes from PyTorch's CPU
# index (pip picks 2.13.0+cpu over 2.13.0), when that answers: else from the configured indexes.
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: install browser run test model clean

install: $(STAMP)

# The editable install maps sql/ and notebooks/ into the package (memlib.sql, memlib.notebooks)
# through setuptools' import finder, which then prints a box of advice on folders named like
# the package in the working directory (there are none): that one message is filtered out.
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	@if $(BIN)/python -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + '/torch/', timeout=10)" \
			$(TORCH_CPU_INDEX) 2>/dev/null; then cpu="--extra-index-url $(TORCH_CPU_INDEX)"; \
	else echo "$(TORCH_CPU_INDEX) does not answer: torch comes from the configured indexes"; fi; \
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install -q $$cpu -e '.[all,dev]'
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

# One worker per core (pytest-xdist); a test module stays on one worker, with its fixtures.
test: install browser
	$(BIN)/python -m pytest -n auto --dist loadfile

# The default model as memlib ships it (memlib/data/minilm), written again from the float
# model through PyTorch: the same bytes for the same torch, transformers and ONNX Runtime.
model: install
	$(BIN)/python -c 'from pathlib import Path; from memlib.embeddings import write_packaged; write_packaged(Path("memlib/data/minilm"))'

clean:
	rm -rf $(VENV) data/store reports/2* reports/.runs

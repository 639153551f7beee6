# The course's two commands: `make book` and `make test`.
# Both install what they need into .venv unless a virtual environment is already active.
SHELL := /bin/bash
PYTHON ?= python3.11
export LAMALIB_PROFILE ?= quick
export LAMALIB_PROGRESS ?= 0
export PYDEVD_DISABLE_FILE_VALIDATION = 1
# One CPU kernel set on every x86 machine: PyTorch picks AVX-512 kernels where the CPU has
# them, and their float sums differ from AVX2's in the last bits, which is enough to move
# a chapter's small training runs across the thresholds its asserts pin (chapters 5 and
# 7 did on an AVX-512 machine). AVX2 is on every x86-64 CPU of the last ten years.
export ATEN_CPU_CAPABILITY ?= avx2

ifdef VIRTUAL_ENV
  BIN := $(VIRTUAL_ENV)/bin
  STAMP := $(VIRTUAL_ENV)/.lamalib-installed
else
  BIN := $(CURDIR)/.venv/bin
  STAMP := .venv/.lamalib-installed
endif

.PHONY: book test install strip sync clean

book: $(STAMP)
	$(BIN)/jupyter-book build . --builder html -W --keep-going
	@echo "Open _build/html/index.html"

test: $(STAMP)
	$(BIN)/python -m pytest tests
	$(BIN)/python -m pytest --nbval-lax -p no:cacheprovider book/

install: $(STAMP)

# torch first, pinned to the CPU wheel: a plain `torch` would pull GBs of CUDA packages.
$(STAMP): requirements.txt pyproject.toml
	@if [ -z "$$VIRTUAL_ENV" ] && [ ! -x .venv/bin/python ]; then \
	  (command -v $(PYTHON) >/dev/null && $(PYTHON) -m venv .venv) || python3 -m venv .venv; fi
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "torch==2.13.0"
	$(BIN)/python -m pip install -q -r requirements.txt
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $(STAMP)

# Clear outputs of every notebook (they are committed without outputs).
strip: $(STAMP)
	$(BIN)/jupyter nbconvert --clear-output --inplace book/*.ipynb

# Rewrite each notebook's Colab install cell from the URL in _config.yml.
sync: $(STAMP)
	$(BIN)/python tools/sync_colab_cell.py

clean:
	rm -rf _build

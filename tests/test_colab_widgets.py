"""Widgets in a real Jupyter kernel, with whichever ipywidgets this environment has
(8 here and in the book build; 7.7.1, Colab's, in tools/ipywidgets7_tests.sh).

A browser is not part of the test: what is checked is what the kernel sends to one,
the widget views (``application/vnd.jupyter.widget-view+json``) that Colab and
Jupyter draw, and the widget models with the ipywidgets version they belong to.
"""

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
ipywidgets = pytest.importorskip("ipywidgets")

ROOT = Path(__file__).resolve().parents[1]
VIEW = "application/vnd.jupyter.widget-view+json"
# @jupyter-widgets/controls model version per ipywidgets major
CONTROLS = {7: "1.5.0", 8: "2.0.0"}

CELLS = [
    # tqdm.auto, as lamalib's training loop uses it
    "import ipywidgets, tqdm.auto, tqdm.notebook\n"
    "bar = tqdm.auto.tqdm(range(3), desc='check', leave=False)\n"
    "for _ in bar:\n"
    "    pass\n"
    "print(isinstance(bar, tqdm.notebook.tqdm), ipywidgets.__version__)",
    # the attention explorer: static view first, then its controls
    "import numpy as np\n"
    "from lamalib.viz.explorer import explore\n"
    "weights = np.full((2, 2, 3, 3), 1 / 3)  # (L, H, T, T)\n"
    "explorer = explore([('s', ['a', 'b', 'c'], weights)])",
    # lamalib.train.fit with its progress bar on
    "from lamalib.data import Vocab, load_dataset, make_loader\n"
    "from lamalib.models import build_model\n"
    "from lamalib.train import TrainConfig, fit\n"
    "ds = load_dataset('synthetic_sentiment', split='train', n=64)\n"
    "vocab = Vocab.build(ds.texts)\n"
    "model = build_model('avg', vocab_size=len(vocab), num_classes=2, embed_dim=4)\n"
    "history = fit(model, make_loader(ds, vocab, 16), None,\n"
    "              TrainConfig(epochs=1, progress=True, device='cpu'))\n"
    "print(len(history.records))",
]


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CELLS]
    env = {"PYTHONPATH": os.pathsep.join(
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        + [str(ROOT)]), "LAMALIB_PROFILE": "quick", "LAMALIB_PROGRESS": "1"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel inherits this process's environment
    try:
        client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                         resources={"metadata": {"path": str(ROOT)}})
        client.execute()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return nb


def _views(cell):
    return [o for o in cell.outputs if o.output_type == "display_data"
            and VIEW in o.data]


def _stdout(cell):
    return "".join(o.text for o in cell.outputs if o.output_type == "stream"
                   and o.name == "stdout")


def test_kernel_uses_this_environments_ipywidgets(executed):
    _, version = _stdout(executed.cells[0]).split()
    assert version == ipywidgets.__version__
    expected = os.environ.get("LAMALIB_EXPECT_IPYWIDGETS")
    if expected:
        assert version == expected


def test_tqdm_auto_draws_a_widget_bar(executed):
    is_widget_bar, _ = _stdout(executed.cells[0]).split()
    assert is_widget_bar == "True"  # tqdm.notebook's bar, not the text fallback
    assert len(_views(executed.cells[0])) == 1


def test_widget_models_belong_to_the_installed_major(executed):
    state = executed.metadata["widgets"][
        "application/vnd.jupyter.widget-state+json"]["state"]
    models = {m["model_name"]: m for m in state.values()}
    major = int(ipywidgets.__version__.split(".")[0])
    for name in ("FloatProgressModel", "HBoxModel", "DropdownModel",
                 "IntSliderModel"):
        assert models[name]["model_module_version"] == CONTROLS[major], name
    progress = [m for m in state.values() if m["model_name"] == "FloatProgressModel"]
    assert {m["state"]["max"] for m in progress} >= {3}  # the 3-step bar of cell 1


def test_explorer_shows_a_static_view_then_controls(executed):
    outs = [o for o in executed.cells[1].outputs if o.output_type == "display_data"]
    kinds = [next(k for k in ("image/png", "text/html", VIEW) if k in o.data)
             for o in outs]
    assert kinds == ["image/png", "text/html", VIEW]


def test_training_loop_progress_bar_is_a_widget(executed):
    cell = executed.cells[2]
    assert _stdout(cell).strip() == "1"
    assert len(_views(cell)) >= 1

"""Helpers of the tests that read constructed results files (the claims rows): write
runs where the runner would, one file per run, and make one run per seed."""

import json


def write_runs(folder, runs):
    """Each run as ``<experiment>__<model>__<dataset>__s<seed>.json`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for r in runs:
        name = (f"{r['experiment']}__{r['model']}__{r['dataset']}"
                f"__s{r['config']['seed']}.json")
        (folder / name).write_text(json.dumps(r))


def over_seeds(make, model, dataset, accs, **kw):
    """``make(model, dataset, seed, acc, **kw)`` for seeds 0, 1, ... of ``accs``."""
    return [make(model, dataset, s, a, **kw) for s, a in enumerate(accs)]

"""One module per corpus or synthetic task; ``lamalib.data.load_dataset`` finds the
labelled ones by name, and a reader imports the module of the one she wants.

Real corpora: ``embedded`` (what installed packages ship: movie-review sentences,
newsgroups, the Lee corpus), ``remote`` (Kim's sentence sets, IMDB), ``tab_corpora``
(Reuters R8, MTL-16), ``snli``, ``wiki727k``, ``wikisection``, ``cnn_dailymail``.
Tasks built from them: ``segmentation`` (topic segmentation by concatenation),
``extractive`` (summarisation as sentence labelling), ``mlm`` (BERT's masked tokens
and sentence pairs). Synthetic tasks with known ground truth: ``synthetic``,
``synthetic_nli``, ``translation``, ``mirror_sum``.
"""

# The modules, not their loaders: several loaders share their module's name (``snli``,
# ``wikisection``, ...), and importing them here would hide the module.
__all__ = ["cnn_dailymail", "embedded", "extractive", "mirror_sum", "mlm", "remote",
           "segmentation", "snli", "synthetic", "synthetic_nli", "tab_corpora",
           "translation", "wiki727k", "wikisection"]

"""The LAMA paper's BERT by name and recipe, and the error of pretrained weights that
cannot be had, without torch (``lamalib.models.bert`` builds the model and re-exports
these): the command line's help and its error handling read them before any model is
built."""

from __future__ import annotations

DEFAULT_NAME = "bert-base-uncased"  # the LAMA paper's BERT (section 4.2)

# The LAMA paper, section 4.2: bert-base-uncased fine-tuned for 2 epochs with Adam at
# lr 5e-6. Weight decay is not mentioned: none. RunSpec fields, for the paper's grid
# (lamalib.experiments.papers.BASELINES["bert"]); "random" means no word2vec start.
BERT_RECIPE = {"embeddings": "random",
               "model_options": {"pretrained_name": DEFAULT_NAME},
               "train": {"optimizer": "adam", "lr": 5e-6, "weight_decay": 0.0,
                         "epochs": 2}}


class PretrainedUnavailable(OSError):
    """A pretrained model or tokenizer is neither cached nor downloadable."""


__all__ = ["BERT_RECIPE", "DEFAULT_NAME", "PretrainedUnavailable"]

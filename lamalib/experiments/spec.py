"""What one experiment run is: a model, a dataset, their options, the training recipe
and a seed (chapter "Reproductions"; ``python -m lamalib.experiments``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from lamalib.train import TrainConfig


@dataclass
class RunSpec:
    experiment: str = "run"  # "run", or a paper's grid ("lama")
    model: str = "avg"  # a name from lamalib.models.available_models("classifier")
    dataset: str = "movie_reviews"  # a registry name, or "file" with train/test paths
    seed: int = 0  # seeds the weights' initialisation, dropout and batch order
    model_options: dict = field(default_factory=dict)  # build_model(**options)
    train: dict = field(default_factory=dict)  # TrainConfig fields
    batch_size: int = 32  # training batch size (the LAMA paper: 32)
    eval_batch_size: int = 128  # validation / test batches
    max_len: int | None = None  # truncate texts to this many tokens (None: keep all)
    min_freq: int = 1  # vocabulary: rarer words map to <unk>
    # "random", "word2vec" (trained on the train split) or the path of a vectors file
    # in GloVe's or word2vec's text format (e.g. glove.840B.300d.txt)
    embeddings: str = "random"
    word2vec_min_count: int = 5  # the LAMA paper: words seen < 5 times are dropped
    word2vec_epochs: int = 5  # passes of gensim's word2vec over the training texts
    train_file: str | None = None  # dataset "file": the user's files (TSV/CSV, .gz/.xz)
    valid_file: str | None = None  # dataset "file": None splits 10% of train, stratified
    test_file: str | None = None
    file_options: dict = field(default_factory=dict)  # load_splits options (header, ...)

    def train_config(self, **overrides) -> TrainConfig:
        known = {f.name for f in dataclasses.fields(TrainConfig)}
        unknown = sorted(set(self.train) - known)
        if unknown:
            raise ValueError(f"unknown training option(s) {unknown}; TrainConfig has "
                             f"{sorted(known)}")
        values = {**self.train, **overrides}
        if "betas" in values:
            values["betas"] = tuple(values["betas"])
        return TrainConfig(seed=self.seed, **values)

    def dataset_label(self) -> str:
        if self.dataset != "file":
            return self.dataset
        from pathlib import Path

        return Path(self.train_file).name.split(".")[0]

    def result_name(self) -> str:
        """``<experiment>__<model>__<dataset>__s<seed>.json``."""
        return (f"{self.experiment}__{self.model}__{self.dataset_label()}"
                f"__s{self.seed}.json")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def fields(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

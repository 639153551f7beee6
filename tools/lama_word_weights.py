"""Train LAMA+ctx with the paper's recipe on a real data set and write the attention
its chosen words receive, by gold label, and the most attended words of each class
(chapter "LAMA": the paper's Figure 4 and Table 6). The model itself is not kept.

Full profile, real data (LAMALIB_DATA):

    LAMALIB_PROFILE=full OMP_NUM_THREADS=1 nice python tools/lama_word_weights.py \
        --dataset sst5 --epochs 4

writes ``results/sweeps/lama_word_weights/<dataset>.json`` with its provenance.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch

from lamalib.analysis.word_weights import (top_attended_words,
                                           top_relative_weight_words,
                                           word_occurrence_weights)
from lamalib.data.cache import cached_ids, cached_vocab
from lamalib.experiments.papers import PAPERS, paper_spec_fields
from lamalib.experiments.runner import (config_record, dataset_identity, load_data,
                                       split_loaders, word2vec_vectors)
from lamalib.experiments.spec import RunSpec
from lamalib.models import build_model
from lamalib.provenance import RunStamp
from lamalib.runtime import profile, seed_everything
from lamalib.train import evaluate, fit

# The paper's Figure 4 (section 5.4): three positive and three negative words.
FIGURE4_WORDS = ["amazing", "happy", "recommended", "poor", "terrible", "worst"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="sst5")
    parser.add_argument("--model", default="lama_ctx")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--words", nargs="+", default=FIGURE4_WORDS)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--per-document", type=int, default=3,
                        help="each test document votes for its N most attended words")
    parser.add_argument("--min-count", type=int, default=10,
                        help="relative-weight ranking: a word's occurrences per class")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    out = Path(args.out or f"results/sweeps/lama_word_weights/{args.dataset}.json")

    stamp = RunStamp()
    # The LAMA grid's cell for this model (batch 32, SGD 0.05, momentum 0.9, weight
    # decay 1e-4, word2vec 100-d min count 5, 10 heads); only the epochs are cut.
    fields = paper_spec_fields(PAPERS["lama"], args.model, args.dataset)
    fields["train"] = {**fields["train"], "epochs": args.epochs}
    spec = RunSpec(**{**fields, "experiment": "lama_word_weights", "seed": args.seed})
    train, valid, test = load_data(spec)
    vocab = cached_vocab(train, min_freq=spec.min_freq)
    dim = spec.model_options["embed_dim"]
    seed_everything(spec.seed)
    vectors = word2vec_vectors(spec, train, vocab, dim)  # (V, E), as the runner's
    seed_everything(spec.seed)
    model = build_model(spec.model, vocab_size=len(vocab),
                        num_classes=len(train.label_names), pretrained=vectors,
                        **spec.model_options)
    loaders = split_loaders(spec, vocab, train, valid, test)
    history = fit(model, loaders[0], loaders[1], spec.train_config(progress=False))
    scores = evaluate(model, loaders[2])
    print(f"test accuracy {scores['accuracy']:.4f}", flush=True)

    word_ids = {w: vocab.stoi[w] for w in args.words if w in vocab.stoi}
    rows = word_occurrence_weights(model, loaders[2], word_ids)
    skip = [vocab.pad_id, vocab.stoi.get("<unk>", -1)]
    top = top_attended_words(model, loaders[2], vocab.itos, k=args.top_k,
                             per_document=args.per_document, skip=skip)
    relative = top_relative_weight_words(model, loaders[2], vocab.itos, k=args.top_k,
                                         min_count=args.min_count, skip=skip)
    # The norm of the word vectors the model started from, over the training tokens
    # (chapter "LAMA" compares it with the sinusoids' sqrt(E / 2)).
    ids = torch.tensor([i for doc in cached_ids(train, vocab, spec.max_len)
                        for i in doc])
    norms = vectors.norm(dim=1)  # (V,)
    record = {
        "experiment": "lama_word_weights", "model": spec.model,
        "dataset": spec.dataset_label(), "profile": profile(),
        "what": "attention weight of each test occurrence of the chosen words, "
                "averaged over the m heads, with the document's gold label and length; "
                f"top_words: per gold class, the words most often among a test "
                f"document's {args.per_document} most attended tokens (heads "
                "averaged); "
                "top_relative_words: per gold class, the words with the largest mean "
                "weight * length (1 = uniform) among words seen at least "
                f"{args.min_count} times in the class's test documents",
        "config": config_record(spec, spec.train_config()),
        "dataset_identity": dataset_identity(spec, train, valid, test),
        "label_names": list(train.label_names),
        "vocab_size": len(vocab),
        "words": args.words,
        "words_missing": [w for w in args.words if w not in word_ids],
        "rows": rows,
        "top_words": {train.label_names[y]: pairs for y, pairs in top.items()},
        "top_relative_words": {train.label_names[y]: rows_
                               for y, rows_ in relative.items()},
        "word2vec_norm": {"mean_over_train_tokens": norms[ids].mean().item(),
                          "median_over_vocab": norms[1:].median().item(),
                          "dim": dim},
        "metrics": {"test_accuracy": scores["accuracy"], "test_loss": scores["loss"],
                    "best_valid_accuracy": history.best_score,
                    "best_epoch": history.best_epoch},
        "history": history.records,
        **stamp.fields(argv, "python tools/lama_word_weights.py"),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"{len(rows)} occurrences of {sorted(word_ids)} -> {out}")


if __name__ == "__main__":
    main()

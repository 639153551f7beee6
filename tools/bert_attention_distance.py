"""Attention distance per layer of a pretrained BERT, through Hugging Face
``transformers`` (chapter "Multi-scale self-attention"; Guo et al. 2020, Figure 3,
measured BERT's heads this way).

Loads ``--model`` (``bert-base-uncased`` by default: from the local Hugging Face cache,
a folder written by ``save_pretrained``, or the hub), reads the first
``--max-sentences`` texts of a dataset's split as ``[CLS] wordpieces [SEP]`` (at most
``--max-length`` ids), and measures every head's argmax and expected attention distance
and the chance reference (``lamalib.analysis.attention_distance``, with
:func:`~lamalib.analysis.attention_distance.hf_weights`), every real token a query
([CLS] and [SEP] included, as the model sees them); then, per layer, the share of
argmax edges on ``[CLS]`` and on ``[SEP]`` with their chance values, and the same
distances with the sink removed: on content keys only (special keys and queries
dropped, rows renormalised), norm-weighted (Kobayashi et al. 2020:
``alpha_ij ||f(x_j)||``), and both. Writes
``results/sweeps/bert_attention_distance/<model>__<dataset>.json`` with provenance, in
the format of ``results/sweeps/msa_attention_distance/`` (``distances.pretrained``).
Offline and without a local copy it stops within seconds with one line saying what
to pass instead (exit code 2).

    python tools/bert_attention_distance.py --dataset sst5
    python tools/bert_attention_distance.py --model all-MiniLM-L6-v2 --dataset sst5
    python tools/bert_attention_distance.py --model ~/models/bert-base-uncased
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from lamalib.analysis.attention_distance import (attention_distances, hf_reading,
                                                hf_weights, sink_shares)
from lamalib.data.batching import BucketBatches
from lamalib.data.registry import load_dataset
from lamalib.models.bert import DEFAULT_NAME, BertTokens, PretrainedUnavailable
from lamalib.models.hf_copies import EncoderFolderError
from lamalib.models.hf_encoder import load_encoder
from lamalib.models.pretrained import ChecksumMismatch
from lamalib.provenance import RunStamp, write_json_atomic

OUT = Path(__file__).resolve().parents[1] / "results" / "sweeps" / \
    "bert_attention_distance"


def load_bert(name: str, max_length: int, timeout: float = 5.0):
    """``(model, tokens)``: a pretrained encoder that returns its attention weights
    (eager attention, eval mode; :func:`~lamalib.models.hf_encoder.load_encoder`: a
    name the course knows, such as ``all-MiniLM-L6-v2``, from its pinned package copy
    offline, a ``save_pretrained`` folder, or the hub) and its :class:`BertTokens`.
    Raises :class:`PretrainedUnavailable` fast offline."""
    model, tokenizer = load_encoder(name, timeout)
    return model, BertTokens(tokenizer, max_length)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default=DEFAULT_NAME,
                   help="a Hugging Face model name or a folder written by "
                        "save_pretrained (default %(default)s)")
    p.add_argument("--dataset", default="sst5")
    p.add_argument("--split", default="test")
    p.add_argument("--max-sentences", type=int, default=2000)
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--max-distance", type=int, default=10)
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args(argv)
    stamp = RunStamp()
    try:
        model, tokens = load_bert(args.model, args.max_length)
    except (PretrainedUnavailable, EncoderFolderError, ChecksumMismatch) as err:
        reason = str(err).split(". Offline")[0]
        print(f"error: --model {args.model}: {reason}. Pass --model FOLDER, a copy "
              "saved with save_pretrained (model and tokenizer), or run where "
              "huggingface.co can be reached.", file=sys.stderr)
        raise SystemExit(2) from None
    texts = load_dataset(args.dataset, args.split).texts[:args.max_sentences]
    ids = [tokens.encode(t) for t in texts]
    batches = BucketBatches(ids, [0] * len(ids), args.batch_size, shuffle=False,
                            pad_id=tokens.pad_id)
    tokenizer = tokens.tokenizer
    sinks = {"[CLS]": tokenizer.cls_token_id, "[SEP]": tokenizer.sep_token_id}
    readings = {"content": hf_reading(sinks.values()),
                "norm_weighted": hf_reading(norm=True),
                "norm_weighted_content": hf_reading(sinks.values(), norm=True)}
    with torch.no_grad():
        found = attention_distances(model, batches, weights_of=hf_weights)
        others = {name: attention_distances(model, batches, weights_of=reading)
                  .record(args.max_distance) for name, reading in readings.items()}
        sink = sink_shares(model, batches, sinks)
    name = Path(args.model).name if Path(args.model).is_dir() else args.model
    record = {
        "experiment": "bert_attention_distance", "model": name,
        "dataset": args.dataset, "split": args.split, "sentences": len(texts),
        "config": {"max_length": args.max_length, "batch_size": args.batch_size,
                   "queries": "every real token, [CLS] and [SEP] included"},
        "model_config": {"layers": model.config.num_hidden_layers,
                         "heads": model.config.num_attention_heads,
                         "hidden": model.config.hidden_size},
        "distances": {"pretrained": found.record(args.max_distance), **others},
        "sinks": sink,
        "readings": {"pretrained": "the weights, every real token a query and a key",
                     "content": "[CLS] and [SEP] dropped as keys and queries, rows "
                                "renormalised over the words",
                     "norm_weighted": "alpha_ij ||f(x_j)|| (Kobayashi et al. 2020), "
                                      "rows renormalised",
                     "norm_weighted_content": "both"},
        "params": sum(p.numel() for p in model.parameters()),
        **stamp.fields(argv, "python tools/bert_attention_distance.py",
                       local=("--out",)),
    }
    out = Path(args.out) / f"{name.replace('/', '_')}__{args.dataset}.json"
    write_json_atomic(out, record)
    for row in found.summary():
        print(f"layer {row['layer']:2d}: mean argmax distance {row['mean_argmax']:.2f}, "
              f"local share {row['share_local']:.2f}, chance {row['chance']:.2f}; "
              f"on [CLS] {sink['[CLS]']['share'][row['layer'] - 1]:.2f}; content "
              f"keys {others['content']['summary'][row['layer'] - 1]['mean_argmax']:.2f}")
    print(f"-> {out}")
    return record


if __name__ == "__main__":
    main()

"""One seq2seq run on real sentence pairs: train to the stopping rule, score the
held-out test set with sacrebleu's BLEU and chrF (greedy and beam), BLEU by source
length, and write a results file (chapter "Attention mechanisms", section "Attention
on real sentences").

Two tasks read the same way: ``translate`` (a ``source<TAB>target`` pairs file, by
default the shipped Tatoeba English -> Vietnamese pairs) and ``diacritics`` (Vietnamese
sentences with their accents stripped -> the sentences: from a text file, one sentence
a line, or by default the Vietnamese side of the Tatoeba pairs). The split is seeded
(``split_seed``) and the same for every model and training seed: the arms of a
comparison see the same inputs. The stopping rule: at most ``epochs`` epochs, stop
after ``patience`` epochs without a better validation token accuracy (teacher forced;
ties go to the lower loss), keep the best epoch's weights.

BLEU and chrF are sacrebleu's (``corpus_bleu``, ``corpus_chrf``) on the course's
tokens (lowercased, punctuation apart: ``lamalib.data.tokenize``) joined by spaces,
with sacrebleu's ``tokenize="none"`` (the tokens as they are); an unknown word written as ``<unk>`` counts as
wrong, as the reference keeps its words.
"""

from __future__ import annotations

import dataclasses
import shutil
from dataclasses import dataclass
from pathlib import Path

import torch

from lamalib import runtime
from lamalib.data.diacritics import diacritic_pairs
from lamalib.data.fetch import sha256sum
from lamalib.data.parallel import (ParallelPairs, ParallelTask, build_vocabs,
                                   encode_pairs, read_pairs, split_pairs)
from lamalib.data.datasets.tatoeba import TATOEBA_EN_VI, tatoeba_en_vi
from lamalib.data.textio import decode as decode_text, read_bytes
from lamalib.models.beam import decode
from lamalib.models.registry import build_model
from lamalib.models.seq2seq import seq2seq_step
from lamalib.provenance import (RunStamp, portable_path, shown_path,
                                write_json_atomic)
from lamalib.train import TrainConfig, fit
from lamalib.experiments.results import run_lock
from lamalib.experiments.seq2seq_spec import (DECODERS, TASKS,  # noqa: F401
                                              Seq2SeqSpec)  # (re-exported)

LENGTH_BUCKETS = ((1, 5), (6, 7), (8, 9), (10, 12), (13, 99))  # source tokens
ALIGNMENT_EXAMPLES = 4  # test sentences whose attention a results file keeps


def load_pairs(spec: Seq2SeqSpec) -> ParallelPairs:
    """The spec's pairs (NFC), before the split."""
    if spec.task == "translate":
        pairs = read_pairs(spec.pairs, spec.encoding) if spec.pairs else tatoeba_en_vi()
    elif spec.text:
        path = Path(spec.text)
        if not path.is_file():
            raise ValueError(f"{spec.text}: no such file; give a text file, one "
                             "Vietnamese sentence a line")
        text = decode_text(read_bytes(path), spec.encoding, str(path))
        pairs = diacritic_pairs(text.split("\n"))
    else:
        pairs = diacritic_pairs(tatoeba_en_vi().target)
    return pairs.subset(range(min(len(pairs), spec.limit))) if spec.limit else pairs


@dataclass
class Seq2SeqData:
    """The split, its vocabularies (from the training pairs) and encoded sets."""

    pairs: tuple[ParallelPairs, ParallelPairs, ParallelPairs]
    src_vocab: object
    tgt_vocab: object
    train: ParallelTask
    valid: ParallelTask
    test: ParallelTask


def prepare(spec: Seq2SeqSpec, pairs: ParallelPairs | None = None) -> Seq2SeqData:
    """Split ``pairs`` (default: :func:`load_pairs`) with ``split_seed``, build the
    vocabularies on the training part and encode the three parts."""
    pairs = load_pairs(spec) if pairs is None else pairs
    train, valid, test = split_pairs(pairs, spec.valid_fraction, spec.test_fraction,
                                     spec.split_seed)
    src_vocab, tgt_vocab = build_vocabs(train, spec.min_freq)
    return Seq2SeqData((train, valid, test), src_vocab, tgt_vocab,
                       *(encode_pairs(p, src_vocab, tgt_vocab)
                         for p in (train, valid, test)))


def build_seq2seq(spec: Seq2SeqSpec, data: Seq2SeqData) -> torch.nn.Module:
    runtime.seed_everything(spec.seed)  # the initial weights
    return build_model("rnn_seq2seq", vocab_size=len(data.src_vocab),
                       tgt_vocab_size=len(data.tgt_vocab), **spec.model_options())


def train(spec: Seq2SeqSpec, data: Seq2SeqData, checkpoint_dir: Path | None = None,
          callbacks=()):
    """The model trained to the stopping rule (best epoch kept) and its history;
    ``callbacks(epoch, history, model)`` run after each epoch (``lamalib.train.fit``)."""
    model = build_seq2seq(spec, data)
    config = TrainConfig(epochs=spec.epochs, lr=spec.lr, patience=spec.patience,
                         seed=spec.seed, progress=False, checkpoint_dir=checkpoint_dir)
    history = fit(model, data.train.batches(spec.batch_size, seed=spec.seed),
                  data.valid.batches(256, shuffle=False), config, step=seq2seq_step,
                  callbacks=callbacks)
    return model, history


@torch.no_grad()
def outputs(model, task: ParallelTask, tgt_vocab, beam_width: int = 1,
            batch_size: int = 64) -> list[list[str]]:
    """The model's output tokens for every source of ``task`` (at most twice the
    source's length and 5 tokens), in order."""
    out = []
    for start in range(0, len(task), batch_size):
        rows = list(range(start, min(start + batch_size, len(task))))
        batch = task.collate(rows)
        limit = 2 * int(batch.src_mask.sum(1).max()) + 5
        tokens = decode(model, batch.src, batch.src_mask, beam_width, limit)
        out += [tgt_vocab.decode(row.tolist()) for row in tokens]
    return out


def bleu_chrf(hypotheses: list[list[str]], references: list[list[str]]) -> dict:
    """sacrebleu's corpus BLEU and chrF of token lists (joined by spaces)."""
    import sacrebleu

    hyp = [" ".join(h) for h in hypotheses]
    ref = [[" ".join(r) for r in references]]
    # the text is tokenized already: BLEU counts our tokens as they are
    bleu = sacrebleu.corpus_bleu(hyp, ref, tokenize="none", force=True)
    chrf = sacrebleu.corpus_chrf(hyp, ref)
    return {"bleu": bleu.score, "chrf": chrf.score}


def bleu_by_length(hypotheses, references, sources,
                   buckets=LENGTH_BUCKETS) -> list[dict]:
    """Corpus BLEU of the sentences in each source-length bucket (Bahdanau et al.'s
    Figure 2, by bucket): ``[{"low", "high", "n", "bleu", "chrf"}, ...]``."""
    rows = []
    for low, high in buckets:
        keep = [i for i, s in enumerate(sources) if low <= len(s) <= high]
        if keep:
            scores = bleu_chrf([hypotheses[i] for i in keep],
                               [references[i] for i in keep])
            rows.append({"low": low, "high": high, "n": len(keep), **scores})
    return rows


@torch.no_grad()
def alignment_examples(model, task: ParallelTask, tgt_vocab,
                       rows: list[int]) -> list[dict]:
    """For test sentences ``rows``: source tokens, the reference, and the attention
    of the reference's tokens (teacher forced) over the source, ``(T, S)`` as lists
    (None without attention)."""
    model.eval()
    found = []
    for i in rows:
        batch = task.collate([i])
        _, weights = model(batch.src, batch.src_mask, batch.tgt_in)
        found.append({"source": task.src_tokens[i],
                      "target": [tgt_vocab.itos[t] for t in task.tgt[i]] + ["<eos>"],
                      "weights": None if weights is None else
                      [[round(float(x), 4) for x in row] for row in weights[0]]})
    return found


def example_rows(task: ParallelTask, n: int = ALIGNMENT_EXAMPLES) -> list[int]:
    """``n`` test sentences of 5 to 9 source tokens without unknown words (the first
    in test order), to show alignments of: a fixed choice, the same for every run."""
    rows = [i for i, (s, t) in enumerate(zip(task.src, task.tgt))
            if 5 <= len(s) <= 9 and 3 not in s and 3 not in t]
    return rows[:n]


def evaluate_run(spec: Seq2SeqSpec, model, data: Seq2SeqData) -> dict:
    """Every test metric of a run: BLEU/chrF greedy and beam, by length (greedy)."""
    refs, sources = data.test.tgt_tokens, data.test.src_tokens
    greedy = outputs(model, data.test, data.tgt_vocab, 1)
    metrics = bleu_chrf(greedy, refs)
    by_length = bleu_by_length(greedy, refs, sources)
    if spec.beam_width > 1:
        beam = outputs(model, data.test, data.tgt_vocab, spec.beam_width)
        metrics.update({f"{k}_beam": v for k, v in bleu_chrf(beam, refs).items()})
    return {"metrics": metrics, "bleu_by_length": by_length,
            "examples": [{"source": " ".join(sources[i]), "reference": " ".join(refs[i]),
                          "greedy": " ".join(greedy[i])}
                         for i in range(min(5, len(refs)))]}


def is_complete_seq2seq(path: Path) -> bool:
    """A seq2seq results file that holds a finished run's test BLEU."""
    import json

    try:
        return "bleu" in json.loads(Path(path).read_text()).get("metrics", {})
    except (OSError, ValueError, AttributeError):
        return False


def _print_epoch(spec: Seq2SeqSpec):
    def show(epoch, history, model) -> None:
        r = history.records[-1]
        print(f"  {spec.model_name} s{spec.seed} epoch {epoch}: valid token accuracy "
              f"{r['valid_accuracy']:.4f} ({r['seconds']:.0f} s)", flush=True)
    return show


def run_seq2seq(spec: Seq2SeqSpec, results_dir: Path, argv: list[str] | None = None,
                save_to: Path | None = None, force: bool = False,
                checkpoints: Path | None = None) -> dict:
    """Train and score one run; write ``results_dir/<spec.result_name()>`` (skipped
    when a complete one exists, unless ``force``) and keep the model in ``save_to``."""
    import json

    out = Path(results_dir) / spec.result_name()
    if not force and save_to is None and is_complete_seq2seq(out):
        print(f"{out.name}: complete, skipped", flush=True)
        return json.loads(out.read_text(encoding="utf-8"))
    with run_lock(out):
        stamp = RunStamp()
        data = prepare(spec)
        ckpt = None if checkpoints is None else Path(checkpoints) / out.stem
        model, history = train(spec, data, ckpt, [_print_epoch(spec)])
        scored = evaluate_run(spec, model, data)
        source = (spec.pairs if spec.task == "translate" else spec.text) or TATOEBA_EN_VI
        result = {
            "experiment": "seq2seq", "model": spec.model_name, "dataset": spec.dataset,
            "task": spec.task, "profile": runtime.profile(),
            "config": {**dataclasses.asdict(spec),
                       "pairs": spec.pairs and portable_path(spec.pairs),
                       "text": spec.text and portable_path(spec.text)},
            "data": {"file": portable_path(source), "sha256": sha256sum(Path(source)),
                     "split": [len(p) for p in data.pairs],
                     "vocab": [len(data.src_vocab), len(data.tgt_vocab)]},
            **scored,
            "metrics": {**scored["metrics"],
                        "valid_token_accuracy": history.best_score},
            "history": history.records, "best_epoch": history.best_epoch,
            "stopped_early": history.stopped_early,
            "params": sum(p.numel() for p in model.parameters()),
            "alignments": alignment_examples(model, data.test, data.tgt_vocab,
                                             example_rows(data.test)),
            **stamp.fields(argv, "python -m lamalib.experiments"),
        }
        if save_to is not None:  # first: no results file for a model not kept
            _keep_model(spec, model, data, Path(save_to), force, ckpt)
        try:
            write_json_atomic(out, result)
        except OSError as error:
            if save_to is not None:  # the model goes with its results file
                shutil.rmtree(save_to, ignore_errors=True)
            raise ValueError(f"--results {shown_path(results_dir)}: cannot write "
                             f"{out.name} ({error.strerror}); nothing was written"
                             + (" (nor the model)" if save_to is not None else "")
                             + _resumes(ckpt, "file")) from None
        if ckpt is not None:
            shutil.rmtree(ckpt, ignore_errors=True)
    return result


def _resumes(ckpt: Path | None, what: str) -> str:
    """How the same command goes on after the run's ``what`` could not be written."""
    if ckpt is None:
        return ""
    return (f"; the run's checkpoint stays in {shown_path(ckpt)}: the same command "
            f"finishes it (without training again) once the {what} can be written")


def _keep_model(spec: Seq2SeqSpec, model, data: Seq2SeqData, save_to: Path,
                force: bool, ckpt: Path | None) -> None:
    """``--save-model``: the run's model (best epoch) in ``save_to``, written whole
    or not at all, replacing a saved model only with ``force``."""
    from lamalib.models.saved import SavedModelError
    from lamalib.models.saved_seq2seq import save_seq2seq

    longest = max(len(t) for t in data.train.tgt)
    try:
        save_seq2seq(model, data.src_vocab, data.tgt_vocab, save_to,
                     spec.model_options(), spec.task, max_len=longest + 5,
                     overwrite=force)
    except SavedModelError as error:
        raise SavedModelError(f"--save-model {error}; no results file was written"
                              + _resumes(ckpt, "model")) from None


__all__ = ["DECODERS", "LENGTH_BUCKETS", "Seq2SeqData", "Seq2SeqSpec", "TASKS",
           "bleu_by_length", "bleu_chrf", "evaluate_run", "load_pairs", "outputs",
           "prepare", "run_seq2seq", "train"]

"""The model card of a pretrained encoder (``MODEL_CARD.md``), written from the
pretraining run's results (chapter "Pretraining"): data, objective, tokenizer, sizes,
updates, tokens seen, losses, the loss curve, the command that reproduces it, limits.
"""

from __future__ import annotations

from pathlib import Path

MAX_ROWS = 20  # loss-curve rows in the card (evenly spaced, the last one always)


def duration(seconds: float) -> str:
    """``"2 h 05 min"``, ``"7 min"`` or ``"40 s"``."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def _curve_rows(history: list[dict]) -> list[dict]:
    if len(history) <= MAX_ROWS:
        return history
    picks = {round(i * (len(history) - 1) / (MAX_ROWS - 1)) for i in range(MAX_ROWS)}
    return [history[i] for i in sorted(picks)]


def model_card(result: dict) -> str:
    """The Markdown card of a ``pretrain`` results dict (with its ``weights``)."""
    c, m, ident = result["config"], result["metrics"], result["corpus_identity"]
    hw = result["hardware"]
    weights = result.get("weights", {})
    mb = weights.get("bytes", 0) / 1e6
    rows = "\n".join(
        f"| {r['step']} | {r['train_loss']:.3f} | {r['valid_loss']:.3f} | "
        f"{r['valid_accuracy']:.3f} |" for r in _curve_rows(result["history"]))
    tokenizer_note = (
        "The tokenizer was given with `--tokenizer`." if result["tokenizer"]["given"]
        else "The `tokenizers` trainer breaks ties between equally frequent merges in "
        "hash-map order, so a tokenizer learnt anew may differ in a few pieces; to "
        "repeat this run exactly, add `--tokenizer` with this folder's "
        "`tokenizer.json`.")
    checksums = "\n".join(f"- `{name}`: `{digest}`"
                          for name, digest in weights.get("files", {}).items())
    return f"""# The course's pretrained encoder

A small BERT-style encoder pretrained with the masked language model, made by
`lamalib.experiments pretrain` (chapter "Pretraining"). Chapters 9 and 10 study its
attention heads. Load it offline with
`lamalib.models.pretrained.load_course_encoder()`; read its attention over a text
with `lamalib.models.pretrained.encoder_attention(model, tokenizer, text)`.

## Data

`{result['dataset']}`: {ident['train_documents']:,} training documents packed into
{ident['train_segments']:,} segments of {c['max_len']} subword tokens
({ident['train_tokens']:,} tokens); {ident['valid_documents']:,} documents held out
(one in {c['valid_one_in']}, chosen by a hash of the text), of which
{ident['valid_segments']} segments are scored. Labels are not used. Corpus SHA-256
(training documents): `{ident['sha256'][:16]}...`.

## Objective

Masked LM (Devlin et al. 2019): {c['select_prob']:.0%} of the tokens are selected and
replaced by `[MASK]` (80%), a random token (10%) or kept (10%); masks are drawn afresh
at every update (dynamic masking, Liu et al. 2019). No next-sentence prediction.

## Tokenizer

WordPiece, lower-cased, accents stripped, {result['tokenizer']['vocab_size']:,} tokens
learnt on the training documents (`tokenizer.json`); special tokens `[PAD]` 0, `[UNK]`
1, `[CLS]` 2, `[SEP]` 3, `[MASK]` 4. Inputs are `[CLS] pieces [SEP]`.

## Model

{c['n_layers']} pre-LN Transformer layers, width {c['d_model']}, {c['n_heads']} heads,
feed-forward {c['d_ff']}, learned positions ({c['max_len']}), output layer tied to the
embedding: {result['params']:,} parameters, stored in {weights.get('dtype', '?')}
({mb:.1f} MB).

## Training

{result['steps']:,} AdamW updates of {c['batch_size']} segments (peak learning rate
{c['lr']:g}, {c['warmup']:.0%} warm-up, then `{c['schedule']}`, weight decay
{c['weight_decay']}), {result['tokens_seen']:,} tokens seen,
{duration(result['seconds'])} of training on {hw['device']} ({hw['name']},
{hw['threads']} thread(s)), torch {hw['torch']}, lamalib commit
`{result['git_commit']}`. The weights kept are those of update {m['kept_step']} (best
validation accuracy).

| update | train loss | valid loss | valid accuracy |
|---:|---:|---:|---:|
{rows}

Final: train loss {m['final_train_loss']:.3f}, validation MLM loss
{m['final_valid_loss']:.3f}, accuracy {m['final_valid_accuracy']:.3f} (on the masked
positions).

## Reproduce

```
{result['command']}
```

(`--checkpoints DIR` and `--results DIR`, local folders, are not recorded; the
course's results file is written with `--results results`.) {tokenizer_note}

## Checksums (SHA-256)

{checksums}

## Limits

A small model trained briefly on one corpus of one domain: it knows the words and
phrases of that corpus, not the world; it is far from BERT-base (110M parameters, 3.3B
words) and is meant for studying attention heads and fine-tuning in the course, not
for use elsewhere. Inputs longer than {c['max_len']} pieces are cut. It inherits the
biases of its corpus.
"""


def write_model_card(folder: Path, result: dict) -> Path:
    """Write ``MODEL_CARD.md`` into ``folder``."""
    path = Path(folder) / "MODEL_CARD.md"
    path.write_text(model_card(result), encoding="utf-8")
    return path

"""A small WordPiece tokenizer, trained on the pretraining corpus (chapter
"Pretraining").

BERT reads subwords, not words: a frequent word is one piece (``movie``), a rare one is
cut into pieces it shares with others (``un ##watch ##able``), so no word of the text
is lost to ``<unk>`` and the vocabulary stays small. :func:`train_subword_tokenizer`
learns one with the Hugging Face ``tokenizers`` package (Rust, seconds on 50k
reviews); :class:`SubwordTokenizer` wraps it with the interface of
:class:`~lamalib.data.Vocab` that the batching uses (``encode``, ``decode``,
``pad_id``, ``itos``, ``len``), so ``make_loader`` and ``BucketBatches`` take it.

The five special tokens have fixed ids: ``[PAD]`` 0 and ``[UNK]`` 1 (as in every
Vocab), ``[CLS]`` 2, ``[SEP]`` 3, ``[MASK]`` 4. Text is lower-cased and its accents
stripped, as in ``bert-base-uncased``; a character the training text never showed
makes its word ``[UNK]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from lamalib.data.vocab import TokenLookup

PAD, UNK, CLS, SEP, MASK = "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
SPECIALS = (PAD, UNK, CLS, SEP, MASK)  # their ids are their places: 0 .. 4
PREFIX = "##"  # marks a piece that continues a word (WordPiece's convention)


class SubwordTokenizer(TokenLookup):
    """WordPiece ids of a text, with the ``Vocab`` interface the batching uses.

    Args:
        tokenizer: a ``tokenizers.Tokenizer`` whose first five ids are
            :data:`SPECIALS` (what :func:`train_subword_tokenizer` makes).
    """

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer
        vocab = tokenizer.get_vocab()  # token -> id
        self.itos = [""] * len(vocab)
        for token, i in vocab.items():
            self.itos[i] = token
        self.stoi = dict(vocab)
        found = [self.stoi.get(s) for s in SPECIALS]
        if found != list(range(len(SPECIALS))):
            raise ValueError(f"a SubwordTokenizer needs the special tokens {SPECIALS} "
                             f"at ids 0..4; this tokenizer has them at {found}")

    # -- files ------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | Path) -> "SubwordTokenizer":
        """Read a ``tokenizer.json`` written by :meth:`save`."""
        from tokenizers import Tokenizer

        return cls(Tokenizer.from_file(str(path)))

    def save(self, path: str | Path) -> None:
        """Write ``tokenizer.json`` (the ``tokenizers`` format, readable by
        ``transformers``' ``PreTrainedTokenizerFast`` too)."""
        self.tokenizer.save(str(path))

    # -- the Vocab interface (lookups from TokenLookup) -----------------------------
    pad_id, unk_id, cls_id, sep_id, mask_id = range(5)

    @property
    def special_ids(self) -> tuple[int, ...]:
        """Ids never masked nor drawn as random replacements in MLM."""
        return tuple(range(len(SPECIALS)))

    def tokens(self, text: str) -> list[str]:
        """The WordPiece pieces of ``text``: ``"Unwatchable!"`` ->
        ``["un", "##watch", "##able", "!"]`` (depending on the vocabulary)."""
        return self.tokenizer.encode(text, add_special_tokens=False).tokens

    def encode(self, text: str, add_cls: bool = False) -> list[int]:
        """Ids of ``text``; ``add_cls`` gives BERT's input ``[CLS] ids [SEP]``, the
        form the course's encoder was pretrained on."""
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        if not ids:
            raise ValueError("Cannot encode an empty text: give at least one token.")
        return [self.cls_id, *ids, self.sep_id] if add_cls else ids

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """``encode`` of many texts at once (the Rust side batches them); an empty
        text gives an empty list here."""
        return [e.ids for e in self.tokenizer.encode_batch(
            list(texts), add_special_tokens=False)]

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Tokens of a list of ids (specials and padding included), as
        ``Vocab.decode``."""
        return [self.itos[int(i)] for i in ids]

    def to_text(self, ids: Iterable[int]) -> str:
        """The text of ``ids``: pieces joined into words, special tokens dropped
        (lower-cased, as the tokenizer normalised it)."""
        return self.tokenizer.decode([int(i) for i in ids], skip_special_tokens=True)


def train_subword_tokenizer(texts: Iterable[str], vocab_size: int = 8000,
                            min_frequency: int = 2, limit_alphabet: int = 300,
                            length: int | None = None) -> SubwordTokenizer:
    """Learn a lower-cased WordPiece vocabulary of ``vocab_size`` tokens from ``texts``.

    Args:
        texts: raw strings (an iterable is read once).
        vocab_size: V, specials and single characters included.
        min_frequency: a merge must be seen this often.
        limit_alphabet: keep the most frequent characters only; the rest become
            ``[UNK]`` (stray symbols of web text should not spend the vocabulary).
        length: the number of texts, for the trainer's bookkeeping (optional).
    """
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers
    from tokenizers.trainers import WordPieceTrainer

    tokenizer = Tokenizer(models.WordPiece(unk_token=UNK,
                                           continuing_subword_prefix=PREFIX))
    # BERT-uncased's normalisation: control characters removed, accents stripped,
    # lower case, each CJK character its own word; then split on spaces and
    # punctuation.
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=True, lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece(prefix=PREFIX, cleanup=True)
    trainer = WordPieceTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                               special_tokens=list(SPECIALS),
                               limit_alphabet=limit_alphabet,
                               continuing_subword_prefix=PREFIX, show_progress=False)
    tokenizer.train_from_iterator(texts, trainer, length=length)
    return SubwordTokenizer(tokenizer)

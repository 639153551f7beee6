"""The course's map (intro page): the ten chapters in reading order."""

from __future__ import annotations

from .style import SIZE, SMALL, KINDS, Svg


# --------------------------------------------------------------------- the roadmap
def roadmap() -> Svg:
    """The ten chapters of ``_toc.yml``, in reading order (intro page)."""
    chapters = [
        ("Foundations", [
            ("1", ["Setup and", "a first model"],
             ["text \u2192 ids \u2192 padded batches", "one training loop: fit",
              "the AVG baseline"]),
            ("2", ["Word vectors"],
             ["skip-gram and CBOW with", "negative sampling, vs. gensim",
              "similarity and analogies"]),
            ("3", ["Recurrent networks", "and the GRU"],
             ["RNN, LSTM and GRU cells", "gradients that vanish",
              "BiGRU classifier"]),
        ]),
        ("Attention", [
            ("4", ["Attention mechanisms"],
             ["score functions, masking", "soft/hard, global/local",
              "Bahdanau and Luong seq2seq"]),
            ("5", ["Self-attention and", "multi-head attention"],
             ["scaled dot-product, heads", "SAN's attention hops",
              "cost as sentences grow"]),
            ("6", ["The Transformer"],
             ["positions, LayerNorm", "encoder and decoder layers",
              "TE classifier, BERT's MLM"]),
            ("7", ["Pretraining"],
             ["causal and masked LMs", "XLNet's permutation LM",
              "the course's encoder"]),
        ]),
        ("Research models", [
            ("8", ["LAMA"],
             ["low-rank multi-head attention", "a global context vector",
              "parameters vs. heads"]),
            ("9", ["Attention patterns"],
             ["head importance", "global relevance of patterns",
              "injecting patterns"]),
            ("10", ["Multi-scale", "self-attention"],
             ["heads with window sizes", "the scale controller",
              "banded attention's cost"]),
        ]),
    ]
    s = Svg("roadmap", 780, 732, "Roadmap of the course",
            "Ten chapters in three parts, read in order, three to a row. Foundations: 1 Setup and a "
            "first model (text to ids to padded batches, one training loop, the AVG "
            "baseline); 2 Word vectors (skip-gram and CBOW with negative sampling, "
            "compared with gensim; similarity and analogies); 3 Recurrent networks and "
            "the GRU (RNN, LSTM and GRU cells, vanishing gradients, a BiGRU "
            "classifier). Attention: 4 Attention mechanisms (score functions, masking, "
            "soft and hard, global and local attention, Bahdanau and Luong "
            "sequence-to-sequence models); 5 Self-attention and multi-head attention "
            "(scaled dot-product and multi-head attention, SAN's attention hops, the "
            "cost as sentences grow); 6 The Transformer (positions, layer "
            "normalization, encoder and decoder layers, the TE classifier, BERT's "
            "masked language model); 7 Pretraining (causal, masked and permutation "
            "language models, XLNet's two-stream attention, the course's pretrained "
            "encoder). Research models: 8 LAMA (low-rank multi-head "
            "attention with a global context vector, parameters against heads); 9 "
            "Attention patterns (head importance, global relevance of patterns, "
            "injecting them); 10 Multi-scale self-attention (heads with windows of "
            "different sizes, the scale controller, the cost of banded attention).")
    w, h, gap = 232, 132, 28
    kinds = ["state", "attn", "op"]
    rows = []  # (part label or None for a part's second row, kind, up to 3 chapters)
    for part, kind, items in ((p, k, i) for (p, i), k in zip(chapters, kinds)):
        for start in range(0, len(items), 3):
            rows.append((part if start == 0 else None, kind, items[start:start + 3]))
    for row, (part, kind, items) in enumerate(rows):
        y = 40 + row * 180
        if part:  # right of the arrow that comes down into the row's first box
            s.text(14 if row == 0 else 14 + w / 2 + 12, y - 12, part, bold=True,
                   anchor="start", color=KINDS[kind][1])
        for col, (num, title, points) in enumerate(items):
            x = 14 + col * (w + gap)
            s.rect(x, y, w, h, kind, rx=10)
            s.node(x + 22, y + 22, num, kind, r=13)
            s.lines(x + 42, y + 27, title, size=SIZE, anchor="start", bold=True,
                    gap=18)
            s.lines(x + 14, y + 74 - (0 if len(title) > 1 else 18), points, size=SMALL,
                    anchor="start", gap=18)
            if col < len(items) - 1:
                s.arrow((x + w + 2, y + h / 2), (x + w + gap - 2, y + h / 2))
        if row < len(rows) - 1:  # from the row's last chapter to the next row
            last = len(items) - 1
            s.arrow((14 + last * (w + gap) + w / 2, y + h + 2),
                    (14 + last * (w + gap) + w / 2, y + 156), (14 + w / 2, y + 156),
                    (14 + w / 2, y + 178))
    return s

"""The Transformer encoder-decoder as a translation model (chapter "The Transformer").

It has the interface of the GRU model in ``lamalib.models.seq2seq``, so that
chapter's ``seq2seq_step`` trains it with ``lamalib.train.fit`` and its
``translation_metrics`` score it (token, sequence and alignment accuracy).
"""

from __future__ import annotations

import torch

from lamalib.data.datasets.translation import PAD_ID
from lamalib.nn.transformer.encoder_decoder import EncoderDecoder
from lamalib.models.registry import register_model
from lamalib.models.seq2seq import greedy_tokens


@register_model("transformer_seq2seq", kind="seq2seq")
class TransformerSeq2Seq(EncoderDecoder):
    """:class:`~lamalib.nn.transformer.encoder_decoder.EncoderDecoder` over one shared
    vocabulary.

    ``forward`` returns ``(logits (B, T, V), weights (B, T, S))`` where ``weights`` is
    the last decoder layer's encoder-decoder attention averaged over its heads: the
    Transformer's counterpart of an RNN decoder's alignment.

    Args:
        vocab_size: V of the source and the target.
        **kwargs: the remaining arguments of ``EncoderDecoder`` (d_model, n_heads, ...).
    """

    options_from = EncoderDecoder.__init__  # build_model lists and checks these
    options_fixed = ("src_vocab", "tgt_vocab", "pad_id")  # set here, not by users

    def __init__(self, vocab_size: int, **kwargs) -> None:
        super().__init__(vocab_size, vocab_size, pad_id=PAD_ID, **kwargs)
        self.decoder.layers[-1].keep_weights = True  # its cross weights are returned

    def _alignment(self) -> torch.Tensor:
        cross = self.decoder.layers[-1].last_cross_weights  # (B, H, T, S)
        return cross.mean(1)  # (B, T, S)

    def forward(self, src, src_mask, tgt_in, tgt_mask=None):
        logits = super().forward(src, src_mask, tgt_in, tgt_mask)  # (B, T, V)
        return logits, self._alignment()  # (B, T, V), (B, T, S)

    @torch.no_grad()
    def greedy_decode(self, src: torch.Tensor, src_mask: torch.Tensor, max_len: int
                      ) -> tuple[torch.Tensor, torch.Tensor]:
        """Append the most likely token until EOS or ``max_len`` tokens.

        The source is encoded once; the decoder reruns on the growing prefix (no
        key/value cache: outputs in this course are short). Returns ``tokens (B, T)``
        (EOS included, PAD after it) and the last step's ``weights (B, T, S)``.
        """
        memory = self.encode(src, src_mask)  # (B, S, D)
        tokens = greedy_tokens(lambda prefix: self.decode(prefix, memory, src_mask),
                               src.shape[0], src.device, max_len)
        return tokens, self._alignment()  # (B, T), (B, T, S)

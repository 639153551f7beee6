"""The Transformer's encoder and decoder (chapter "The Transformer"): where each
piece lives.

Vaswani et al. (2017): each layer is a few sublayers (self-attention, encoder-decoder
attention, a position-wise feed-forward net), each wrapped in a residual connection
with layer normalization. One concept per module:

==========================  =========================================================
``feedforward``             ``FeedForward``, eq. (6)
``residual``                ``PostNormResidual``, ``PreNormResidual``, ``RESIDUALS``
``encoder_layer``           ``EncoderLayer``, eq. (7)
``decoder_layer``           ``DecoderLayer``, eq. (8)
``stack``                   ``Encoder``, ``Decoder`` (and pre-LN's final norm)
``token_embedding``         ``Embeddings``: token vector times sqrt(D) + position
``token_encoder``           ``TokenEncoder``: ``Embeddings`` then ``Encoder``
``encoder_decoder``         ``EncoderDecoder``: the whole translation model
``from_torch``              copying ``torch.nn.Transformer*Layer`` weights
==========================  =========================================================

This module re-exports those names, so ``from lamalib.nn.transformer import ...``
keeps working.
"""

# Re-exports, so existing imports keep working.
from lamalib.nn.decoder_layer import DecoderLayer  # noqa: F401
from lamalib.nn.encoder_decoder import EncoderDecoder  # noqa: F401
from lamalib.nn.encoder_layer import EncoderLayer  # noqa: F401
from lamalib.nn.feedforward import FeedForward  # noqa: F401
from lamalib.nn.residual import RESIDUALS, residual_class  # noqa: F401
from lamalib.nn.residual import PostNormResidual, PreNormResidual  # noqa: F401
from lamalib.nn.stack import Decoder, Encoder  # noqa: F401
from lamalib.nn.token_embedding import Embeddings  # noqa: F401
from lamalib.nn.token_encoder import TokenEncoder  # noqa: F401

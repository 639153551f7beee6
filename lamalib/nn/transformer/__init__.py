"""The Transformer of Vaswani et al. (2017) (chapter "The Transformer"), one concept
per module:

==========================  =========================================================
``positional``              sinusoidal and learned positions, ``build_positional``
``norm``                    ``LayerNorm`` from scratch
``residual``                ``PostNormResidual``, ``PreNormResidual``, ``RESIDUALS``
``feedforward``             ``FeedForward``, eq. (6)
``encoder_layer``           ``EncoderLayer``, eq. (7)
``decoder_layer``           ``DecoderLayer``, eq. (8)
``stack``                   ``Encoder``, ``Decoder`` (and pre-LN's final norm)
``token_embedding``         ``Embeddings``: token vector times sqrt(D) + position
``token_encoder``           ``TokenEncoder``: ``Embeddings`` then ``Encoder``
``encoder_decoder``         ``EncoderDecoder``: the whole translation model
``from_torch``              copying ``torch.nn.Transformer*Layer`` weights
``lm_head``                 ``TiedLMHead``: output layer tied to the embedding
``two_stream``              XLNet's content / query masks and two-stream layers
``visibility``              the pretraining objectives' masks, for diagrams
==========================  =========================================================

The last three belong to chapter "Pretraining".
"""

from lamalib.nn.transformer.decoder_layer import DecoderLayer
from lamalib.nn.transformer.encoder_decoder import EncoderDecoder
from lamalib.nn.transformer.encoder_layer import EncoderLayer
from lamalib.nn.transformer.feedforward import FeedForward
from lamalib.nn.transformer.lm_head import TiedLMHead
from lamalib.nn.transformer.norm import LayerNorm
from lamalib.nn.transformer.positional import (POSITIONAL, LearnedPositionalEmbedding,
                                               SinusoidalPositionalEncoding,
                                               build_positional)
from lamalib.nn.transformer.residual import (RESIDUALS, PostNormResidual,
                                             PreNormResidual, residual_class)
from lamalib.nn.transformer.stack import Decoder, Encoder
from lamalib.nn.transformer.token_embedding import Embeddings
from lamalib.nn.transformer.token_encoder import TokenEncoder
from lamalib.nn.transformer.two_stream import (order_ranks, permutation_masks,
                                               two_stream_encode, two_stream_layer)
from lamalib.nn.transformer.visibility import visibility

__all__ = ["Decoder", "DecoderLayer", "Embeddings", "Encoder", "EncoderDecoder",
           "EncoderLayer", "FeedForward", "LayerNorm", "LearnedPositionalEmbedding",
           "POSITIONAL", "PostNormResidual", "PreNormResidual", "RESIDUALS",
           "SinusoidalPositionalEncoding", "TiedLMHead", "TokenEncoder",
           "build_positional", "order_ranks", "permutation_masks", "residual_class",
           "two_stream_encode", "two_stream_layer", "visibility"]

"""Building blocks, each a small ``nn.Module`` or function with shape-annotated code,
grouped by the chapter that teaches them:

* ``masking``, ``pooling``: pads and masks, the masked softmax, masked mean and max;
  the ground floor that every folder below uses (chapter "Setup and a first model").
* ``recurrent/``: RNN, LSTM and GRU cells, the BiGRU encoder, the word-embedding layer
  (chapter "Recurrent networks and the GRU").
* ``attention/``: score functions, the unified model, pooling with a query, hard,
  local, hierarchical, memory, multi-dimensional and co-attention (chapter "Attention
  mechanisms").
* ``self_attention/``: scaled dot-product and multi-head attention, SAN, the windowed
  kernel, reading the weights that layers keep (chapter "Self-attention and
  multi-head attention").
* ``transformer/``: positions, norms, residual wiring, feed-forward, layers, stacks,
  token embedding and encoder, the encoder-decoder (chapter "The Transformer").
* ``lama``: LAMA's low-rank multi-head attention (chapter "LAMA").
* ``patterns/``: pattern predicates, global relevance, injection, pattern kernels,
  PALs (chapter "Finding and injecting attention patterns").
* ``multiscale/``: multi-scale self-attention, the scale controller, the band kernels
  (chapter "Multi-scale self-attention").

Imports go downward only: nothing here imports ``lamalib.models``, ``lamalib.train``,
``lamalib.analysis`` or ``lamalib.viz``.
"""

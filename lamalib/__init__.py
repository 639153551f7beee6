"""lamalib: the library behind the course *Attention in NLP*.

Every chapter of the book imports from here; the book never redefines a class that
lives in this package. Modules state the shapes of their tensors in comments such as
``# (B, T, D)``. The letters mean, everywhere:

=====  ==============================================================
B      batch size
T      tokens in a (padded) sequence; Tq / Tk for queries / keys
D      model (hidden) width; E embedding width
H      number of attention heads; Dh = D // H the width of one head
V      vocabulary size
C      number of classes
K      number of negative samples (word2vec) or window size (CNN)
=====  ==============================================================

Conventions shared by every module:

* A ``mask`` is a bool tensor that is ``True`` where a position is a real token (or,
  for attention masks, where a query may look at a key), as in
  ``torch.nn.functional.scaled_dot_product_attention``. Padding is ``False``.
* A classifier's ``forward(tokens, mask)`` takes ``tokens (B, T)`` long and
  ``mask (B, T)`` bool and returns ``logits (B, C)``.
* Attention modules return ``(output, weights)``; modules that pool with attention keep
  the last weights in ``.last_weights`` so visualizations read the real weights.
* Variants are chosen by name from registries, configs are dataclasses.
"""

__version__ = "0.1.0"

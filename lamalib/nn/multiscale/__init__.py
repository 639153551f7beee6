"""The Multi-Scale Transformer of Guo et al. (2020) (chapter "Multi-scale
self-attention"): multi-scale multi-head self-attention and its layer (``msmsa``),
the scale controller that gives each layer its heads of each scale (``scales``), the
band kernels (``neighbour_band``, ``blocked_band``, ``flex_band``; the window kernel
is :mod:`lamalib.nn.self_attention.window`) and the measured choice among them
(``kernel_table``)."""

from lamalib.nn.multiscale.blocked_band import (blocked_band_attention,
                                                blocked_band_mask, default_block)
from lamalib.nn.multiscale.flex_band import flex_available, flex_band_attention
from lamalib.nn.multiscale.kernel_table import (AUTO_KERNELS, KernelChoice,
                                                load_table, parse_candidate,
                                                pick_kernel)
from lamalib.nn.multiscale.msmsa import (KERNELS, WINDOWS, MultiScaleLayer,
                                         MultiScaleSelfAttention, Scale, band_masks,
                                         check_scale, check_window, parse_scale,
                                         resolve_radius, scale_aware_attention)
from lamalib.nn.multiscale.neighbour_band import (band_block_mask,
                                                  compiled_neighbour_band_attention,
                                                  default_neighbour_block,
                                                  neighbour_band_attention)
from lamalib.nn.multiscale.scales import (READINGS, heads_for_layer, round_heads,
                                          scale_distribution)

__all__ = ["AUTO_KERNELS", "KERNELS", "KernelChoice", "MultiScaleLayer",
           "MultiScaleSelfAttention", "READINGS", "Scale", "WINDOWS", "band_block_mask",
           "band_masks", "blocked_band_attention", "blocked_band_mask", "check_scale",
           "check_window", "compiled_neighbour_band_attention", "default_block",
           "default_neighbour_block", "flex_available", "flex_band_attention",
           "heads_for_layer", "load_table", "neighbour_band_attention",
           "parse_candidate", "parse_scale", "pick_kernel", "resolve_radius",
           "round_heads", "scale_aware_attention", "scale_distribution"]

"""The Multi-Scale Transformer of Guo et al. (2020) (chapter "Multi-scale
self-attention"): multi-scale multi-head self-attention and its layer (``msmsa``),
the scale controller that gives each layer its heads of each scale (``scales``), and
the blocked band kernel (``blocked_band``; the window kernel is
:mod:`lamalib.nn.self_attention.window`)."""

from lamalib.nn.multiscale.blocked_band import (blocked_band_attention,
                                                blocked_band_mask, default_block)
from lamalib.nn.multiscale.msmsa import (KERNELS, WINDOWS, MultiScaleLayer,
                                         MultiScaleSelfAttention, Scale, band_masks,
                                         check_scale, check_window, parse_scale,
                                         pick_kernel, resolve_radius,
                                         scale_aware_attention)
from lamalib.nn.multiscale.scales import (READINGS, heads_for_layer, round_heads,
                                          scale_distribution)

__all__ = ["KERNELS", "MultiScaleLayer", "MultiScaleSelfAttention", "READINGS", "Scale",
           "WINDOWS", "band_masks", "blocked_band_attention", "blocked_band_mask",
           "check_scale", "check_window", "default_block", "heads_for_layer",
           "parse_scale", "pick_kernel", "resolve_radius", "round_heads",
           "scale_aware_attention", "scale_distribution"]

"""Interpretable attention patterns (chapter "Finding and injecting attention
patterns"; Li et al., 2022): predicates between token pairs (``predicates``), how much
each head follows them (``finding``, eq. (1)), putting them into heads
(``injection``, eqs. (2)-(3)), kernels that compute only the cells a pattern allows
(``kernels``) and Projected Attention Layers beside a BERT (``pal``)."""

from lamalib.nn.patterns.finding import (document_relevance, global_relevance,
                                         kept_patterns, named_patterns, ratio_interval,
                                         relevance, significant_heads,
                                         uniform_relevance, z_ceiling)
from lamalib.nn.patterns.injection import (INJECTIONS, Injection, every_layer,
                                           fix_heads, head_attention_mask, sparsity)
from lamalib.nn.patterns.kernels import (offset_attention, pattern_attention,
                                         register_kernel, span_attention)
from lamalib.nn.patterns.pal import PALs, ProjectedAttention, attach_pals
from lamalib.nn.patterns.predicates import (PATTERNS, BoundPattern, Predicate,
                                            bind_pattern, get_pattern, matching_token,
                                            next_token, pattern_cells, pattern_mask,
                                            previous_token, register_pattern, same_span,
                                            special_token, with_never)


__all__ = ["BoundPattern", "INJECTIONS", "Injection", "PALs", "PATTERNS", "Predicate",
           "ProjectedAttention", "attach_pals", "bind_pattern", "document_relevance",
           "every_layer",
           "fix_heads", "get_pattern", "global_relevance", "head_attention_mask",
           "kept_patterns", "matching_token", "named_patterns", "next_token",
           "offset_attention", "pattern_attention", "pattern_cells", "pattern_mask",
           "previous_token", "ratio_interval", "register_kernel", "register_pattern",
           "relevance",
           "same_span", "significant_heads", "span_attention", "sparsity", "with_never",
           "z_ceiling"]

"""Projected Attention Layers (PALs): a small multi-head attention run beside each layer
of a pretrained BERT, whose heads can carry attention patterns (chapter "Finding and
injecting attention patterns"; Stickland and Murray 2019; Li et al. 2022, section 4).

A PAL projects the layer's input down to a small width, attends there, and projects
back up (Stickland and Murray, "BERT and PALs"):

    PAL(h) = GELU(V^D MH(V^E h))    V^E: D -> Dp (down), V^D: Dp -> D (up)

where MH is multi-head attention *without* its output matrix (V^D follows, and two
linear maps in a row are one). As in Stickland and Murray's released code, the PAL's
output joins the layer's last residual sum, before its last LayerNorm:

    layer(h) = LN(a + FFN(a) + PAL(h)),    a = the layer's attention sublayer on h

and V^E, V^D are shared by all layers (``shared_projections=True``). Li et al. add a
PAL of width 256 with 4 heads to each of BERT's 12 layers and inject their patterns
into the PAL heads, fixed or masked (eqs. (2)-(6)), so the pretrained heads stay as
they are. :func:`attach_pals` does this to a ``transformers`` BERT with hooks: the
BERT's own modules and their state-dict keys are unchanged, the PALs become its
submodule ``pals``, and the pattern masks are computed from each call's
``input_ids``. The patterns, masks and fixed heads are those of
:mod:`lamalib.nn.patterns`.
"""

from __future__ import annotations

from typing import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.nn.self_attention.multihead import MultiHeadAttention
from lamalib.nn.patterns.injection import (Injection, every_layer, fix_heads,
                                           head_attention_mask)

PAL_INITS = ("bert", "zero_up")  # see ProjectedAttention.reset_parameters


class ProjectedAttention(nn.Module):
    """One PAL: ``GELU(up(MH(down(h))))``, shapes ``(B, T, D) -> (B, T, D)``.

    Args:
        d_model: D, the BERT's width. d_pal: Dp, the PAL's width.
        n_heads: H, the PAL's heads (Dp divisible by H). dropout: on its weights.
        down, up: ``nn.Linear`` (D -> Dp) and (Dp -> D) to use, e.g. shared by
            every layer's PAL; None makes new ones.

    ``forward(h (B, T, D), mask)`` with ``mask`` bool ``(B, H, T, T)`` (per head, from
    :func:`~lamalib.nn.patterns.head_attention_mask`) or ``(B, 1, 1, T)`` (keys).
    With ``keep_weights`` True the weights ``(B, H, T, T)`` are kept in
    ``attn.last_weights`` (what ``lamalib.viz.explorer.collect_attention`` reads).
    """

    def __init__(self, d_model: int, d_pal: int = 256, n_heads: int = 4,
                 dropout: float = 0.1, down: nn.Linear | None = None,
                 up: nn.Linear | None = None) -> None:
        super().__init__()
        self.down = down if down is not None else nn.Linear(d_model, d_pal)  # V^E
        self.attn = MultiHeadAttention(d_pal, n_heads, dropout)
        self.attn.out_proj = nn.Identity()  # no output matrix: V^D follows
        self.up = up if up is not None else nn.Linear(d_pal, d_model)  # V^D
        self.keep_weights = False

    def forward(self, h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        z = self.down(h)  # (B, T, Dp)
        heads, _ = self.attn(z, z, z, mask=mask,
                             need_weights=self.keep_weights)  # (B, T, Dp)
        return F.gelu(self.up(heads))  # (B, T, D)

    @torch.no_grad()
    def reset_parameters(self, init: str = "bert", std: float = 0.02) -> None:
        """``"bert"``: every weight from N(0, std), biases 0, as BERT initialises its
        own layers (and Stickland and Murray their PALs); ``"zero_up"``: the same,
        then V^D = 0 and its bias 0, so PAL(h) = GELU(0) = 0 and the model starts as
        the pretrained BERT exactly (only V^D gets a gradient at the first step)."""
        if init not in PAL_INITS:
            raise ValueError(f"init must be one of {PAL_INITS}, got {init!r}")
        for m in self.modules():
            if isinstance(m, nn.Linear):
                m.weight.normal_(0.0, std)
                if m.bias is not None:
                    m.bias.zero_()
        if init == "zero_up":
            self.up.weight.zero_()
            self.up.bias.zero_()


def find_bert(model: nn.Module) -> nn.Module:
    """The ``BertModel`` in ``model`` (itself, or the first submodule that has
    ``embeddings`` and ``encoder.layer``, e.g. inside a ``bert`` classifier)."""
    for m in model.modules():
        if hasattr(m, "embeddings") and hasattr(getattr(m, "encoder", None), "layer"):
            return m
    raise TypeError(f"{type(model).__name__} holds no BERT model (a module with "
                    "`embeddings` and `encoder.layer`, as transformers' BertModel)")


def _argument(args: tuple, kwargs: dict, index: int, name: str):
    return kwargs[name] if name in kwargs else (args[index] if len(args) > index
                                                else None)


class PALs(nn.Module):
    """The PALs attached to one BERT by :func:`attach_pals` (its submodule ``pals``).

    ``layers[i]`` is the PAL of encoder layer i; ``injections[i]`` its heads'
    patterns. Set ``spans`` (``(B, T)`` span ids) before a call whose patterns need
    them (``same_span``). ``remove()`` detaches the PALs and gives back the BERT as
    it was. ``keep_weights(True)`` keeps each PAL's weights for
    :meth:`attention_weights`.
    """

    def __init__(self, pals: Sequence[ProjectedAttention],
                 injections: Sequence[Sequence[Injection]],
                 shared: nn.ModuleDict | None) -> None:
        super().__init__()
        self.layers = nn.ModuleList(pals)
        self.shared = shared  # the down / up projections of every layer, if shared
        self.injections = [tuple(i) for i in injections]
        self.spans: torch.Tensor | None = None
        self._masks: dict[tuple, torch.Tensor] = {}
        self._inputs: dict[int, torch.Tensor] = {}
        self._handles: list = []
        self._owner: list[nn.Module] = []  # a list: not a submodule (no cycle)

    def set_inputs(self, tokens: torch.Tensor | None, mask: torch.Tensor | None,
                   shape: tuple[int, int], device: torch.device) -> None:
        """Compute each layer's PAL attention mask for one call of the BERT."""
        B, T = shape
        real = (torch.ones(B, T, dtype=torch.bool, device=device) if mask is None
                else mask.to(torch.bool))  # (B, T)
        self._masks = {}
        for inj in set(self.injections):
            if not inj:  # free heads: only the pads are hidden
                self._masks[inj] = real[:, None, None, :]  # (B, 1, 1, T)
                continue
            if tokens is None:
                raise ValueError("PAL patterns are computed from the tokens: call the "
                                 "BERT with input_ids, not inputs_embeds")
            n_heads = self.layers[0].attn.n_heads
            self._masks[inj] = head_attention_mask(inj, n_heads, tokens, real,
                                                   self.spans)  # (B, H, T, T)

    def extra(self, i: int, hidden: torch.Tensor) -> torch.Tensor:
        """PAL(h) of layer ``i`` -> ``(B, T, D)``."""
        return self.layers[i](hidden, self._masks[self.injections[i]])

    def keep_weights(self, flag: bool = True) -> None:
        for pal in self.layers:
            pal.keep_weights = flag

    def attention_weights(self) -> torch.Tensor:
        """The PALs' weights of the last call, ``(L, B, H, T, T)``."""
        weights = [pal.attn.last_weights for pal in self.layers]
        if any(w is None for w in weights):
            raise RuntimeError("no PAL weights kept: call keep_weights(True) first")
        return torch.stack(weights)

    def remove(self) -> None:
        """Take the hooks off and the PALs out of the BERT."""
        for handle in self._handles:
            handle.remove()
        self._handles = []
        if self._owner and getattr(self._owner[0], "pals", None) is self:
            del self._owner[0].pals
        self._owner = []


def pal_parameter_count(d_model: int, n_layers: int, d_pal: int = 256,
                        n_heads: int = 4, shared_projections: bool = True) -> int:
    """Parameters :func:`attach_pals` adds, in closed form.

    Per layer, the PAL's Q, K, V: ``3 (Dp^2 + Dp)`` (``n_heads`` only splits them);
    down and up: ``D Dp + Dp + Dp D + D``, once when shared, else per layer.
    """
    attention = 3 * (d_pal * d_pal + d_pal)
    projections = 2 * d_model * d_pal + d_pal + d_model
    if shared_projections:
        return n_layers * attention + projections
    return n_layers * (attention + projections)


def attach_pals(model: nn.Module, d_pal: int = 256, n_heads: int = 4,
                injections: Sequence[Injection] | Sequence[Sequence[Injection]] = (),
                shared_projections: bool = True, init: str = "bert",
                dropout: float | None = None) -> PALs:
    """Add a PAL to every layer of the ``transformers`` BERT in ``model``.

    Args:
        model: a ``BertModel``, or a module holding one (``find_bert``), e.g.
            ``BertForSequenceClassification`` or our ``bert`` classifier.
        d_pal: Dp (Li et al.: 256). n_heads: the PAL's heads (Li et al.: 4).
        injections: :class:`~lamalib.nn.patterns.Injection` s of the PAL heads, the
            same in every layer (a flat list), or one list per layer; heads without
            one stay free. "fixed" heads get zero queries
            (:func:`~lamalib.nn.patterns.fix_heads`), "masked" ones the pattern's
            mask (:func:`~lamalib.nn.patterns.head_attention_mask`).
        shared_projections: one V^E, V^D for all layers (Stickland and Murray).
        init: ``"bert"`` or ``"zero_up"`` (:meth:`ProjectedAttention.reset_parameters`).
        dropout: on the PAL weights; None takes the BERT's attention dropout.

    Returns the :class:`PALs`, also registered as ``bert.pals`` so that the PAL
    parameters train, save and move with the model.
    """
    bert = find_bert(model)
    config, layers = bert.config, bert.encoder.layer
    if getattr(bert, "pals", None) is not None:
        raise ValueError("this BERT already has PALs: call .pals.remove() first")
    if getattr(config, "chunk_size_feed_forward", 0):
        raise ValueError("PALs need chunk_size_feed_forward = 0 (the feed-forward "
                         "output is hooked whole)")
    per_layer = (every_layer(len(layers), injections)
                 if all(isinstance(i, Injection) for i in injections)
                 else [list(i) for i in injections])
    if len(per_layer) != len(layers):
        raise ValueError(f"{len(per_layer)} injection lists for {len(layers)} layers")
    for inj in (inj for layer in per_layer for inj in layer):
        if not 0 <= inj.head < n_heads:
            raise ValueError(f"head {inj.head} outside the PAL's heads "
                             f"0..{n_heads - 1}")
    D = config.hidden_size
    p = config.attention_probs_dropout_prob if dropout is None else dropout
    shared = None
    if shared_projections:
        shared = nn.ModuleDict({"down": nn.Linear(D, d_pal), "up": nn.Linear(d_pal, D)})
    pals = [ProjectedAttention(D, d_pal, n_heads, p,
                               shared["down"] if shared is not None else None,
                               shared["up"] if shared is not None else None)
            for _ in layers]
    for pal in pals:
        pal.reset_parameters(init, getattr(config, "initializer_range", 0.02))
    weight = next(bert.parameters())
    container = PALs(pals, per_layer, shared).to(weight.device, weight.dtype)

    def before_bert(_module, args, kwargs):
        tokens = _argument(args, kwargs, 0, "input_ids")  # (B, T) or None
        mask = _argument(args, kwargs, 1, "attention_mask")  # (B, T) or None
        embeds = kwargs.get("inputs_embeds")
        shape = tuple(tokens.shape if tokens is not None else embeds.shape[:2])
        device = (tokens if tokens is not None else embeds).device
        container.set_inputs(tokens, mask, shape, device)

    def after_bert(_module, _args, _output):
        container._masks, container._inputs = {}, {}

    handles = [bert.register_forward_pre_hook(before_bert, with_kwargs=True),
               bert.register_forward_hook(after_bert)]
    for i, layer in enumerate(layers):
        def keep_input(_module, args, kwargs, i=i):
            container._inputs[i] = _argument(args, kwargs, 0, "hidden_states")

        def add_pal(_module, args, kwargs, i=i):
            # BertOutput(intermediate, input_tensor) = LN(dense(intermediate) + input):
            # the PAL joins the residual input, before the LayerNorm.
            hidden = container._inputs.pop(i)  # (B, T, D): the layer's input h
            if "input_tensor" in kwargs:
                kwargs = {**kwargs, "input_tensor": kwargs["input_tensor"]
                          + container.extra(i, hidden)}
            else:
                args = (args[0], args[1] + container.extra(i, hidden), *args[2:])
            return args, kwargs

        handles.append(layer.register_forward_pre_hook(keep_input, with_kwargs=True))
        handles.append(layer.output.register_forward_pre_hook(add_pal,
                                                               with_kwargs=True))
        fixed = [inj.head for inj in per_layer[i] if inj.how == "fixed"]
        if fixed:
            handles.append(fix_heads(pals[i].attn, fixed))
    container._handles, container._owner = handles, [bert]
    bert.pals = container  # a submodule: its parameters train and save with the BERT
    return container

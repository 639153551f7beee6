"""Head importance: which attention heads a trained model relies on (chapter
"Finding and injecting attention patterns", step 1 of Li et al., 2022).

Two gradient estimates, both computed on validation batches in evaluation mode:

* ``"taylor"``: the first-order Taylor estimate of Molchanov et al. (2019) that Li et
  al. use. Removing head h (setting its parameters theta_h to 0) changes the loss by
  about ``-g . theta_h`` (g the gradient of the loss), summed over the head's slices
  of the Q, K, V and output projections, eq. (7) of the chapter.
* ``"mask"``: the head-mask gradient of Michel et al. (2019): multiply head h's output
  by a gate xi_h = 1 and take ``dL / d xi_h``, eq. (8).

Both take the absolute value of each batch's estimate and average it over batches:
a head whose removal raises the loss on some batches and lowers it on others still
matters, and signed sums would cancel. Squares (Molchanov's choice) give the same
ranking for one batch but let a few batches dominate the mean; absolute values keep
the scale of a loss change. Scores are normalised per layer by their L2 norm, as
Michel et al. do, so layers are comparable.

The output-projection part of the Taylor sum equals the mask gradient exactly (the
head's output is linear in its gate), and so does the V part (the output is linear in
the value projection); :func:`taylor_terms` returns the parts so a test can check it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import torch
from torch import nn

from lamalib.nn.self_attention.multihead import MultiHeadAttention

LossFn = Callable[[nn.Module, object], torch.Tensor]
PARTS = ("q", "k", "v", "out")  # the four projections a head owns a slice of


@dataclass(frozen=True)
class HFHeads:
    """One Hugging Face BERT attention layer (``BertAttention``: ``.self.query``,
    ``.key``, ``.value`` and ``.output.dense``) under the names of
    :class:`MultiHeadAttention`, so the functions below score a ``transformers``
    BERT's heads (a fine-tuned MiniLM, chapter 9) as they score lamalib's."""

    q_proj: nn.Linear
    k_proj: nn.Linear
    v_proj: nn.Linear
    out_proj: nn.Linear  # its input is the concatenated heads (B, T, D)
    n_heads: int
    d_head: int


def _hf_layer(m: nn.Module) -> HFHeads | None:
    self_attn, output = getattr(m, "self", None), getattr(m, "output", None)
    if not all(hasattr(self_attn, a) for a in ("query", "key", "value",
                                               "num_attention_heads")) or \
            not isinstance(getattr(output, "dense", None), nn.Linear):
        return None
    return HFHeads(self_attn.query, self_attn.key, self_attn.value, output.dense,
                   self_attn.num_attention_heads, self_attn.attention_head_size)


def attention_modules(model: nn.Module) -> list[MultiHeadAttention | HFHeads]:
    """Every :class:`MultiHeadAttention` of ``model`` in module order (the "layers");
    for a Hugging Face BERT (no lamalib attention), its layers as :class:`HFHeads`."""
    found = [m for m in model.modules() if isinstance(m, MultiHeadAttention)]
    if not found:
        found = [h for h in map(_hf_layer, model.modules()) if h is not None]
    if not found:
        raise ValueError("the model has no lamalib MultiHeadAttention module nor a "
                         "Hugging Face BERT attention layer")
    return found


def _loss(loss_fn: LossFn, model: nn.Module, batch) -> torch.Tensor:
    out = loss_fn(model, batch)
    return out.loss if hasattr(out, "loss") else out  # a step's StepOutput, or a loss


def _head_params(attn: MultiHeadAttention, part: str) -> list[tuple[torch.Tensor, str]]:
    """The tensors of one projection and the axis along which heads are sliced."""
    lin = getattr(attn, f"{part}_proj")
    if part == "out":  # heads are the input columns; the shared bias is no head's
        return [(lin.weight, "cols")]
    params = [(lin.weight, "rows")]
    if lin.bias is not None:
        params.append((lin.bias, "rows"))
    return params


def _per_head(t: torch.Tensor, axis: str, H: int) -> torch.Tensor:
    """Sum a (D_out, D_in) or (D,) tensor into its H head slices -> (H,)."""
    if axis == "cols":
        return t.view(t.shape[0], H, -1).sum(dim=(0, 2))  # (H,)
    return t.reshape(H, -1).sum(dim=1)  # (H,): rows h*Dh .. (h+1)*Dh - 1


def taylor_terms(model: nn.Module, batch, loss_fn: LossFn) -> dict[str, torch.Tensor]:
    """Signed ``g . theta`` of one batch per head and part, eq. (7).

    Returns ``{"q", "k", "v", "out"} -> (L, H)``; their sum is the Taylor estimate.
    """
    attns = attention_modules(model)
    plan = [(l, part, p, axis) for l, a in enumerate(attns) for part in PARTS
            for p, axis in _head_params(a, part)]
    grads = torch.autograd.grad(_loss(loss_fn, model, batch), [p for *_, p, _ in
                                                               plan], allow_unused=True)
    L, H = len(attns), attns[0].n_heads
    terms = {part: torch.zeros(L, H) for part in PARTS}
    for (l, part, p, axis), g in zip(plan, grads):
        if g is not None:
            terms[part][l] += _per_head((g * p).detach().cpu(), axis, H)
    return terms


def mask_gradient(model: nn.Module, batch, loss_fn: LossFn) -> torch.Tensor:
    """Signed ``dL / d xi_h`` at xi = 1 for one batch, eq. (8) -> ``(L, H)``.

    The gate multiplies each head's slice of the input to the output projection (the
    concatenated heads), through a forward pre-hook, so the model is not edited.
    """
    attns = attention_modules(model)
    gates = torch.ones(len(attns), attns[0].n_heads, requires_grad=True)  # (L, H)

    def gate(l: int, a: MultiHeadAttention):
        def hook(_module, inputs):
            (x,) = inputs  # (B, T, D): the concatenated heads
            B, T, _ = x.shape
            g = gates[l].to(x.dtype).to(x.device)[:, None]  # (H, 1)
            return (x.view(B, T, a.n_heads, a.d_head) * g).view(B, T, -1),
        return hook

    handles = [a.out_proj.register_forward_pre_hook(gate(l, a))
               for l, a in enumerate(attns)]
    try:
        (grad,) = torch.autograd.grad(_loss(loss_fn, model, batch), [gates])
    finally:
        for h in handles:
            h.remove()
    return grad.detach()  # (L, H)


def normalize_per_layer(scores: torch.Tensor) -> torch.Tensor:
    """Divide each layer's row ``(H,)`` by its L2 norm (Michel et al., 2019)."""
    norm = scores.norm(dim=-1, keepdim=True)  # (L, 1)
    return scores / norm.clamp_min(torch.finfo(scores.dtype).tiny)


METHODS = ("taylor", "mask")


def head_importance(model: nn.Module, batches: Iterable, loss_fn: LossFn,
                    method: str = "taylor", normalize: bool = True) -> torch.Tensor:
    """Importance of every head, averaged over ``batches`` -> ``(L, H)``, eqs. (7)-(8).

    Args:
        model: any model built from :class:`MultiHeadAttention` (layers in module
            order).
        batches: validation batches, each passed to ``loss_fn`` as it is.
        loss_fn: ``loss_fn(model, batch)`` -> scalar loss, or a training step
            (``lamalib.train`` steps return ``StepOutput``; its ``.loss`` is used).
        method: ``"taylor"`` (sum over the Q, K, V and output slices) or ``"mask"``.
        normalize: divide each layer by its L2 norm.

    The model is run in evaluation mode (no dropout) and left as it was.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    was_training = model.training
    model.eval()
    total, n = None, 0
    try:
        for batch in batches:
            if method == "taylor":
                signed = sum(taylor_terms(model, batch, loss_fn).values())
            else:
                signed = mask_gradient(model, batch, loss_fn)
            total = signed.abs() if total is None else total + signed.abs()  # (L, H)
            n += 1
    finally:
        model.train(was_training)
    if n == 0:
        raise ValueError("head_importance needs at least one batch")
    scores = total / n
    return normalize_per_layer(scores) if normalize else scores


@torch.no_grad()
def disable_head(attn: MultiHeadAttention, head: int) -> None:
    """Zero head ``head``'s columns of the output projection: it contributes nothing."""
    cols = slice(head * attn.d_head, (head + 1) * attn.d_head)
    attn.out_proj.weight[:, cols] = 0.0


def rank_heads(scores: torch.Tensor) -> list[tuple[int, int]]:
    """``(layer, head)`` pairs from the most to the least important."""
    H = scores.shape[-1]
    order = torch.argsort(scores.flatten(), descending=True, stable=True)
    return [(int(i) // H, int(i) % H) for i in order]


def top_heads(scores: torch.Tensor, k: int) -> list[tuple[int, int]]:
    """The ``k`` most important heads of every layer (Li et al. look at k = 3)."""
    k = min(k, scores.shape[-1])
    idx = torch.topk(scores, k, dim=-1).indices  # (L, k)
    return [(layer, int(h)) for layer in range(scores.shape[0]) for h in idx[layer]]

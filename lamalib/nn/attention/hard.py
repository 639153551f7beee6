"""Hard attention: pick one key instead of averaging (chapter "Attention mechanisms").

Soft attention returns the expectation ``sum_i a_i v_i``; hard attention samples one
position ``i ~ a`` and returns ``v_i`` (eq. (12)). Sampling has no gradient, so the
score function must learn another way:

* ``"reinforce"``: the score-function (REINFORCE) estimator, eq. (13): push up
  ``log a_i`` in proportion to the reward of the sample (see :func:`reinforce_loss`);
* ``"straight_through"``: use the one-hot sample forward, but backpropagate as if the
  soft weights had been used (eq. (14)).

In eval mode the most likely key is taken (argmax), so predictions are deterministic.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.nn.masking import expand_key_mask, masked_softmax
from lamalib.nn.attention.scores import Score, build_score

ESTIMATORS = ("reinforce", "straight_through")


class HardAttention(nn.Module):
    """Sample (training) or pick (eval) one key per query.

    Args:
        score: a registered score name or a :class:`Score` module.
        d_q, d_k: widths for a score given by name.
        estimator: ``"reinforce"`` or ``"straight_through"``.

    Shapes: ``forward(query (B, Tq, Dq), keys (B, Tk, Dk), values (B, Tk, Dv),
    mask (B, Tk) or (B, Tq, Tk)) -> context (B, Tq, Dv), weights (B, Tq, Tk)`` one-hot.
    Keeps ``last_log_prob (B, Tq)`` (log-probability of each pick, for REINFORCE) and
    ``last_soft (B, Tq, Tk)`` (the distribution it sampled from).
    """

    def __init__(self, score: str | Score = "general", d_q: int | None = None,
                 d_k: int | None = None, estimator: str = "reinforce",
                 **score_kwargs) -> None:
        super().__init__()
        if estimator not in ESTIMATORS:
            raise ValueError(f"estimator must be in {ESTIMATORS}, got {estimator!r}")
        if isinstance(score, str):
            score = build_score(score, d_q, d_k or d_q, **score_kwargs)
        self.score, self.estimator = score, estimator
        self.last_log_prob: torch.Tensor | None = None
        self.last_soft: torch.Tensor | None = None

    def forward(self, query, keys, values, mask=None):
        scores = self.score(query, keys)  # (B, Tq, Tk)
        soft = masked_softmax(scores, expand_key_mask(mask))  # (B, Tq, Tk)
        # A row with no valid key has all-zero weights; sample from uniform there and
        # zero its pick below, so Categorical never sees an all-zero row.
        empty = soft.sum(-1, keepdim=True) == 0  # (B, Tq, 1)
        probs = torch.where(empty, torch.ones_like(soft), soft)
        if self.training:
            picks = torch.distributions.Categorical(probs=probs).sample()  # (B, Tq)
        else:
            picks = probs.argmax(-1)  # (B, Tq)
        one_hot = F.one_hot(picks, soft.shape[-1]).to(soft.dtype)  # (B, Tq, Tk)
        one_hot = one_hot.masked_fill(empty, 0.0)
        picked = soft.gather(-1, picks[..., None])[..., 0]  # (B, Tq)
        self.last_log_prob = torch.log(picked + 1e-12)
        self.last_soft = soft
        if self.estimator == "straight_through":
            # Value of one_hot, gradient of soft: eq. (14).
            weights = one_hot + soft - soft.detach()
        else:
            weights = one_hot  # no gradient: REINFORCE reaches the score via log-probs
        return weights @ values, weights  # (B, Tq, Dv), (B, Tq, Tk)


def reinforce_loss(log_prob: torch.Tensor, reward: torch.Tensor,
                   baseline: torch.Tensor | float | None = None) -> torch.Tensor:
    """Surrogate loss whose gradient is the REINFORCE estimate (eq. (13)).

    Args:
        log_prob: ``(B, Tq)`` log-probabilities of the sampled positions.
        reward: ``(B, Tq)`` or ``(B, 1)``, higher is better; not differentiated.
        baseline: subtracted from the reward to lower the variance without bias;
            None uses the batch mean reward.
    """
    reward = reward.detach()
    baseline = reward.mean() if baseline is None else baseline
    return -((reward - baseline) * log_prob).mean()

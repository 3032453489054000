"""AdamW over stacked weights: torch's fused kernel, one update for every
model of a batch, with torch.optim.AdamW's defaults.
"""

import inspect

import torch

#: AdamW's defaults, read from ``torch.optim.AdamW`` (which the estimators use).
_ADAMW = inspect.signature(torch.optim.AdamW).parameters


BETAS, EPS = _ADAMW["betas"].default, _ADAMW["eps"].default


def fused_adamw(entries, *, lr, weight_decay, betas=BETAS, eps=EPS):
    """One AdamW update, in place, of each weight of ``entries``: tuples
    (weight, gradient, exp_avg, exp_avg_sq, step), the step already counting
    this one. torch's fused kernel with the arguments
    ``torch.optim.AdamW(fused=True)`` gives it; elementwise, and each tensor
    treated by its own length."""
    weights, gradients, exp_avg, exp_avg_sq, steps = (
        list(t) for t in zip(*entries, strict=True)
    )
    torch._fused_adamw_(
        weights,
        gradients,
        exp_avg,
        exp_avg_sq,
        [],
        steps,
        amsgrad=False,
        lr=lr,
        beta1=betas[0],
        beta2=betas[1],
        weight_decay=weight_decay,
        eps=eps,
        maximize=False,
        grad_scale=None,
        found_inf=None,
    )

"""Training steps through ``torch.func`` on the network itself, for the
layers the hand-written backward of :mod:`skgate.nn._stacked` does not cover
(the strong design's convolutional encoding, feed-forward sublayers,
relative position and dropout) and for label smoothing.

The network is defined once: ``functional_call`` runs
:class:`~skgate.nn.GatedAttentionNet`'s own ``forward`` with each model's
weights, ``vmap`` runs it over the leading model axis of the stacked
weights, and ``grad`` differentiates it. SPEED.md measures what this costs
against the written-out backward.
"""

import contextlib

import torch
from torch.func import functional_call, grad_and_value, vmap

from ._layers import dropout_noise


@contextlib.contextmanager
def _strength(net, alpha):
    """Every block's gate strength set to ``alpha`` (a model's, inside
    ``vmap``) for the duration, then restored."""
    saved = [block.alpha for block in net.blocks]
    for block in net.blocks:
        block.alpha = alpha
    try:
        yield
    finally:
        for block, value in zip(net.blocks, saved, strict=True):
            block.alpha = value


@contextlib.contextmanager
def _mode(net, training):
    """``net`` in training (dropout on) or evaluation mode, then as it was."""
    before = net.training
    net.train(training)
    try:
        yield
    finally:
        net.train(before)


def row_losses(outputs, y, *, regression, label_smoothing=0.0):
    """Each row's loss: the squared error averaged over the outputs, or the
    cross-entropy against integer targets ``y``, with ``label_smoothing``
    the target mixed with the uniform distribution (torch's
    ``CrossEntropyLoss(label_smoothing=...)``: ``(1 - e) (-log p_y) + e
    mean_k(-log p_k)``)."""
    if regression:
        error = outputs - y
        return (error * error).mean(dim=-1)
    log_p = torch.log_softmax(outputs, dim=-1)
    picked = -log_p.gather(-1, y.unsqueeze(-1)).squeeze(-1)
    if not label_smoothing:
        return picked
    return (1 - label_smoothing) * picked - label_smoothing * log_p.mean(dim=-1)


def functional_losses_and_gradients(
    net, names, params, alphas, xb, yb, wb, *, regression, label_smoothing, noise=None
):
    """The training step's computation for M models shaped like ``net``,
    through ``torch.func``: each model's weighted mean loss (M,), the
    gradients of its weights ``names`` (stacked ``params``) and its logits.

    ``noise``: None for a network without dropout (the models run as one
    ``vmap``), else one ``torch.Generator`` per model, from which its
    dropout masks are drawn (:func:`~skgate.nn._layers.dropout_noise`; the
    models then run one after another): a model draws the same masks alone
    as beside others, and torch's process-wide generator is never used.
    """
    from ._stacked import weighted_mean

    def loss(weights, alpha, x, y, w):
        with _strength(net, alpha):
            outputs = functional_call(
                net, weights, (x,), {"padded": True, "row_weights": w}
            )
        losses = row_losses(
            outputs, y, regression=regression, label_smoothing=label_smoothing
        )
        return weighted_mean(losses, w), outputs

    if noise is None and net.stochastic:
        raise ValueError(
            "net has dropout: pass noise, one torch.Generator per model (its "
            "dropout masks); the models of a vmap would otherwise draw from "
            "torch's process-wide generator."
        )
    step = grad_and_value(loss, has_aux=True)
    weights = dict(zip(names, params, strict=True))
    with _mode(net, True):
        if noise is None:
            grads, (per_model, logits) = vmap(step)(weights, alphas, xb, yb, wb)
        else:
            grads, (per_model, logits) = _one_by_one(
                step, noise, weights, alphas, xb, yb, wb
            )
    return (
        per_model.detach(),
        [grads[name].contiguous() for name in names],
        logits.detach(),
    )


def _one_by_one(step, noise, weights, alphas, xb, yb, wb):
    """``vmap(step)``'s result, each model's ``step`` run alone with its
    own dropout generator."""
    parts = []
    for m, generator in enumerate(noise):
        with dropout_noise(generator):
            mine = {name: value[m] for name, value in weights.items()}
            parts.append(step(mine, alphas[m], xb[m], yb[m], wb[m]))
    grads = {name: torch.stack([g[name] for g, _ in parts]) for name in weights}
    per_model = torch.stack([value for _, (value, _) in parts])
    logits = torch.stack([out for _, (_, out) in parts])
    return grads, (per_model, logits)


def functional_logits(net, params, alpha, X):
    """One model's logits on rows ``X`` from its weights ``params`` ((1,
    *shape) each) and gate strength, in evaluation mode."""
    weights = {name: value[0] for name, value in params.items()}
    with torch.no_grad(), _mode(net, False), _strength(net, alpha):
        return functional_call(net, weights, (X,), {"padded": True})

"""Many gated attention networks trained as one: a leading model axis on every weight.

Private to the estimators. ``M`` networks of one architecture, which may differ
in gate strength ``alpha``, in the rows they train on and in their shuffling,
take their optimisation steps together: one ``torch.func.vmap`` of the
gradient over the stacked weights, one AdamW update for all. Each model sees
exactly the batches it would see alone (its own rows, its own generator's
permutation each epoch, the same batch boundaries); models whose epoch has
fewer steps sit out the remaining steps unchanged (masked, not approximated),
so a model trained here is the model trained alone up to float32 rounding.
"""

import copy
import math

import torch
from torch.func import functional_call, grad, stack_module_state, vmap

#: AdamW's defaults, as ``torch.optim.AdamW`` uses them.
BETAS, EPS = (0.9, 0.999), 1e-8


def _padded(datasets):
    """Rows of every model in one tensor (M, n_max, ...), zero-padded."""
    n_max = max(len(X) for X, _, _ in datasets)

    def pad(tensor):
        out = tensor.new_zeros((n_max, *tensor.shape[1:]))
        out[: len(tensor)] = tensor
        return out

    X = torch.stack([pad(X) for X, _, _ in datasets])
    y = torch.stack([pad(y) for _, y, _ in datasets])
    w = torch.stack(
        [pad(torch.ones(len(X_)) if w is None else w) for X_, _, w in datasets]
    )
    return X, y, w


def _epoch_orders(sizes, generators, batch_size):
    """Per model, its permutation of its rows for this epoch, as (M, steps * B)
    indices into its padded rows, and the matching mask of real rows."""
    steps = max(math.ceil(n / batch_size) for n in sizes)
    width = steps * batch_size
    index = torch.zeros(len(sizes), width, dtype=torch.long)
    mask = torch.zeros(len(sizes), width)
    for m, (n, generator) in enumerate(zip(sizes, generators, strict=True)):
        index[m, :n] = torch.randperm(n, generator=generator)
        mask[m, :n] = 1.0
    return index, mask, steps


class BatchedTrainer:
    """Train ``modules`` (initialised, float32, one architecture) together.

    ``criterion``: a torch loss class (per-row losses with ``reduction="none"``).
    """

    def __init__(self, modules, alphas, criterion, *, lr, weight_decay, batch_size):
        self.base = copy.deepcopy(modules[0]).to("meta")
        self.params, self.buffers = stack_module_state(modules)
        self.params = {k: v.detach().clone() for k, v in self.params.items()}
        self.alphas = torch.tensor(alphas, dtype=torch.float32)
        self.criterion = criterion(reduction="none")
        self.lr, self.weight_decay, self.batch_size = lr, weight_decay, batch_size
        self.exp_avg = {k: torch.zeros_like(v) for k, v in self.params.items()}
        self.exp_avg_sq = {k: torch.zeros_like(v) for k, v in self.params.items()}
        self.steps = torch.zeros(len(modules))
        self.gradients = vmap(grad(self._loss, has_aux=True))

    def _loss(self, params, buffers, alpha, x, y, w):
        for block in self.base.blocks:
            block.alpha = alpha  # this model's gate strength, under vmap
        out = functional_call(self.base, (params, buffers), (x,))
        losses = self.criterion(out, y)
        losses = losses.reshape(len(losses), -1).mean(dim=1)
        loss = (losses * w).sum() / w.sum().clamp(min=1e-30)
        return loss, loss.detach()

    def _update(self, gradients, active):
        """One AdamW step (torch's formula) for the active models only."""
        beta1, beta2 = BETAS
        steps = self.steps + active
        for name, param in self.params.items():
            g = gradients[name]
            shape = (-1,) + (1,) * (param.ndim - 1)
            keep = active.view(shape) > 0
            exp_avg = self.exp_avg[name].lerp(g, 1 - beta1)
            exp_avg_sq = self.exp_avg_sq[name] * beta2 + (1 - beta2) * g * g
            correction1 = (1 - beta1 ** steps.clamp(min=1)).view(shape)
            correction2 = (1 - beta2 ** steps.clamp(min=1)).view(shape)
            denom = exp_avg_sq.sqrt() / correction2.sqrt() + EPS
            new = param * (1 - self.lr * self.weight_decay)
            new = new - (self.lr / correction1) * exp_avg / denom
            self.params[name] = torch.where(keep, new, param)
            self.exp_avg[name] = torch.where(keep, exp_avg, self.exp_avg[name])
            self.exp_avg_sq[name] = torch.where(keep, exp_avg_sq, self.exp_avg_sq[name])
        self.steps = steps

    def fit(self, datasets, generators, epochs):
        """Train for ``epochs``; ``datasets``: per model ``(X, y, w or None)``.

        Returns the per-model training loss of each epoch (M lists), the mean
        of its batches' losses weighted by their rows, as skorch reports it.
        """
        X, y, w = _padded(datasets)
        sizes = [len(d[0]) for d in datasets]
        curves = [[] for _ in datasets]
        B = self.batch_size
        for _ in range(epochs):
            index, mask, n_steps = _epoch_orders(sizes, generators, B)
            totals = torch.zeros(len(sizes))
            models = torch.arange(len(sizes))[:, None]
            for step in range(n_steps):
                rows = index[:, step * B : (step + 1) * B]
                real = mask[:, step * B : (step + 1) * B]
                xb, yb = X[models, rows], y[models, rows]
                wb = w[models, rows] * real
                active = (real.sum(dim=1) > 0).float()
                gradients, losses = self.gradients(
                    self.params, self.buffers, self.alphas, xb, yb, wb
                )
                self._update(gradients, active)
                # skorch's train_loss: batch losses weighted by their rows.
                totals += losses * real.sum(dim=1)
            for m, n in enumerate(sizes):
                curves[m].append(float(totals[m] / n))
        return curves

    def modules(self, templates):
        """The trained networks: ``templates`` (one per model, e.g. the modules
        passed in) given the trained weights."""
        trained = []
        for m, template in enumerate(templates):
            module = copy.deepcopy(template)
            state = {k: v[m] for k, v in self.params.items()}
            state.update({k: v[m] for k, v in self.buffers.items()})
            module.load_state_dict(state)
            trained.append(module)
        return trained

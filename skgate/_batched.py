"""Many gated attention networks trained as one: a leading model axis on every weight.

Private to the estimators. ``M`` networks of one architecture, which may differ
in gate strength ``alpha``, in the rows they train on and in their shuffling,
take their optimisation steps together: one forward pass of batched matrix
products over the stacked weights (:func:`batched_logits`, the equations of
:class:`~skgate.nn.GatedAttentionNet` with a model axis), one backward pass,
one AdamW update for all. Each model sees
exactly the batches it would see alone (its own rows, its own generator's
permutation each epoch, the same batch boundaries); models whose epoch has
fewer steps sit out the remaining steps unchanged (masked, not approximated),
so a model trained here is the model trained alone up to float32 rounding.
"""

import copy
import inspect
import math

import torch
import torch.nn.functional as F

#: AdamW's defaults, read from ``torch.optim.AdamW`` (which the estimators use).
_ADAMW = inspect.signature(torch.optim.AdamW).parameters
BETAS, EPS = _ADAMW["betas"].default, _ADAMW["eps"].default


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


def _unused_weights(net):
    """Names of the weights ``net``'s output does not depend on: query and key
    over copied tokens (one token attends to itself with weight 1)."""
    if net.token_dim is not None:
        return set()
    return {
        f"blocks.{i}.{projection}.weight"
        for i in range(len(net.blocks))
        for projection in ("query", "key")
    }


def _linear(x, params, name):
    """``x @ W^T + b`` per model: x (M, ..., in), W (M, out, in), b (M, out)."""
    weight, bias = params[f"{name}.weight"], params.get(f"{name}.bias")
    flat = x.reshape(x.shape[0], -1, x.shape[-1])
    if bias is None:
        out = torch.bmm(flat, weight.transpose(1, 2))
    else:
        out = torch.baddbmm(bias[:, None, :], flat, weight.transpose(1, 2))
    return out.reshape(*x.shape[:-1], weight.shape[1])


def batched_logits(net, params, alphas, x):
    """The logits of M networks shaped like ``net`` (a GatedAttentionNet) with
    stacked weights ``params`` and gate strengths ``alphas`` (M,), on rows
    ``x`` (M, batch, n_features): ``net.forward`` with a model axis."""
    M = x.shape[0]
    if net.token_dim is None:
        tokens = x.unsqueeze(-2)  # copied tokens: one computed (see the net)
    else:
        tokens = x.reshape(M, x.shape[1], net.n_tokens, net.token_dim)
    h = _linear(tokens, params, "embed")
    if net.position is not None:
        h = h + params["position"][:, None]
    gate_strength = alphas.view(M, 1, 1, 1)
    for index, block in enumerate(net.blocks):
        name = f"blocks.{index}"
        if h.shape[-2] == 1:
            a = _linear(h, params, f"{name}.value")
        else:
            q, k, v = (
                _linear(h, params, f"{name}.{p}") for p in ("query", "key", "value")
            )
            scores = q @ k.transpose(-2, -1) / math.sqrt(block.d_model)
            a = torch.softmax(scores, dim=-1) @ v
        if block.gate == "silu":
            a = F.silu(a)
        elif block.gate == "multiplicative":
            gate = torch.tanh(_linear(h, params, f"{name}.gate_proj"))
            a = a * (1 + gate_strength * gate)
        h = a
    pooled = h.mean(dim=-2)
    if isinstance(net.head, torch.nn.Linear):
        return _linear(pooled, params, "head")
    return _linear(F.gelu(_linear(pooled, params, "head.0")), params, "head.2")


class BatchedTrainer:
    """Train ``modules`` (initialised, float32, one architecture) together.

    ``criterion``: a torch loss class (per-row losses with ``reduction="none"``).
    All weights of a model live in one row of an (M, P) tensor, the weights
    its output uses first; an AdamW step is torch's own fused kernel over the
    used part of each active model's row, as ``AdamW(fused=True)`` steps a
    single model (weights without a gradient are not touched, as there).
    """

    def __init__(self, modules, alphas, criterion, *, lr, weight_decay, batch_size):
        self.net = modules[0]
        unused = _unused_weights(self.net)
        names = [name for name, _ in self.net.named_parameters()]
        order = [n for n in names if n not in unused] + [
            n for n in names if n in unused
        ]
        shapes = dict(self.net.named_parameters())
        self.shapes = {name: shapes[name].shape for name in order}
        self.n_used = sum(math.prod(self.shapes[n]) for n in order if n not in unused)
        rows = []
        for module in modules:
            weights = dict(module.named_parameters())
            rows.append(torch.cat([weights[n].detach().reshape(-1) for n in order]))
        self.flat = torch.stack(rows)
        self.alphas = torch.tensor(alphas, dtype=torch.float32)
        self.criterion = criterion(reduction="none")
        self.lr, self.weight_decay, self.batch_size = lr, weight_decay, batch_size
        self.exp_avg = torch.zeros_like(self.flat)
        self.exp_avg_sq = torch.zeros_like(self.flat)
        self.steps = [torch.zeros((), dtype=torch.float32) for _ in modules]

    def _views(self, flat):
        """Per-name views (M, *shape) into the flat weights."""
        sizes = [math.prod(shape) for shape in self.shapes.values()]
        parts = torch.split(flat, sizes, dim=1)
        return {
            name: part.view(len(flat), *shape)
            for (name, shape), part in zip(self.shapes.items(), parts, strict=True)
        }

    def _gradients(self, xb, yb, wb):
        """Per-model gradients of each model's weighted mean loss, and the losses."""
        flat = self.flat.detach().requires_grad_()
        out = batched_logits(self.net, self._views(flat), self.alphas, xb)
        M, B = out.shape[:2]
        losses = self.criterion(
            out.reshape(M * B, *out.shape[2:]), yb.reshape(M * B, *yb.shape[2:])
        )
        losses = losses.reshape(M, B, -1).mean(dim=2)
        per_model = (losses * wb).sum(dim=1) / wb.sum(dim=1).clamp(min=1e-30)
        # Models are independent: the gradient of the sum is each one's own.
        (gradient,) = torch.autograd.grad(per_model.sum(), flat)
        return gradient, per_model.detach()

    def _update(self, gradient, active):
        """One AdamW step of the active models (torch's fused kernel)."""
        rows = [m for m in range(len(self.steps)) if active[m] > 0]
        used = slice(0, self.n_used)
        steps = [self.steps[m] for m in rows]
        torch._foreach_add_(steps, 1)
        torch._fused_adamw_(
            [self.flat[m, used] for m in rows],
            [gradient[m, used] for m in rows],
            [self.exp_avg[m, used] for m in rows],
            [self.exp_avg_sq[m, used] for m in rows],
            [],
            steps,
            amsgrad=False,
            lr=self.lr,
            beta1=BETAS[0],
            beta2=BETAS[1],
            weight_decay=self.weight_decay,
            eps=EPS,
            maximize=False,
            grad_scale=None,
            found_inf=None,
        )

    def fit(self, datasets, generators, epochs):
        """Train for ``epochs``; ``datasets``: per model ``(X, y, w or None)``.

        Returns the per-model training loss of each epoch (M lists), the mean
        of its batches' losses weighted by their rows, as skorch reports it.
        """
        X, y, w = _padded(datasets)
        sizes = [len(d[0]) for d in datasets]
        curves = [[] for _ in datasets]
        B = self.batch_size
        models = torch.arange(len(sizes))[:, None]
        for _ in range(epochs):
            index, mask, n_steps = _epoch_orders(sizes, generators, B)
            totals = torch.zeros(len(sizes))
            for step in range(n_steps):
                rows = index[:, step * B : (step + 1) * B]
                real = mask[:, step * B : (step + 1) * B]
                wb = w[models, rows] * real
                active = real.sum(dim=1) > 0
                gradient, losses = self._gradients(X[models, rows], y[models, rows], wb)
                with torch.no_grad():
                    self._update(gradient, active)
                # skorch's train_loss: batch losses weighted by their rows.
                totals += losses * real.sum(dim=1)
            for m, n in enumerate(sizes):
                curves[m].append(float(totals[m] / n))
        return curves

    def modules(self, templates):
        """The trained networks: ``templates`` (one per model, e.g. the modules
        passed in) given the trained weights."""
        trained = []
        views = self._views(self.flat)
        for m, template in enumerate(templates):
            module = copy.deepcopy(template)
            state = module.state_dict()
            state.update({k: v[m] for k, v in views.items()})
            module.load_state_dict(state)
            trained.append(module)
        return trained

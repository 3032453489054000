"""skgate's one training engine: the steps every fit computes, for one or many models.

Private to the estimators. ``M`` networks of one architecture, which may differ
in gate strength ``alpha``, learning rate, the rows they train on and their
shuffling, take their optimisation steps together: one forward pass of
batched matrix products over the stacked weights (:func:`written_forward`,
the equations of :class:`~skgate.nn.GatedAttentionNet` with a model axis),
one backward pass written out by hand (:func:`losses_and_gradients`; no
autograd), one AdamW update (:func:`fused_adamw`). Each model sees exactly
the batches it would see alone (its own rows, its own generator's
permutation each epoch, the same batch boundaries); models whose epoch has
fewer steps sit out the remaining steps unchanged. A single fit is a batch
of one of the same loop, its callbacks called from it
(:class:`skgate._skorch.NetHooks`), so a model trains to the same bits
alone, with callbacks, or in any batch.
"""

import contextlib
import inspect
import math
import threading
import time
from typing import NamedTuple

import torch
import torch.nn.functional as F

from .nn import HEAD_ACTIVATIONS
from .nn._jets import _merge_heads, _scores_divisor, _split_heads

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


def weighted_mean(losses, w):
    """Each model's loss on its batch: the mean of its rows' ``losses``
    (..., B) weighted by ``w`` (..., B). The rule of every fit: rows of
    weight 0 (padding, left-out rows) count for nothing, equal weights give
    the plain mean."""
    return (losses * w).sum(dim=-1) / w.sum(dim=-1).clamp(min=1e-30)


#: torch's elementwise kernels run a tensor through vector code in blocks of
#: 32 floats and a short remainder through scalar code, whose exp, tanh and
#: erf round differently; with two threads the tensor is cut in halves. A
#: function that rounds so (a gate's activation, the head's, the loss's exp)
#: is therefore computed on each model's share padded to a multiple of this
#: many floats (:func:`by_blocks`): every value of a model then goes through
#: vector code, alone or beside any other models. (Exact operations, sums
#: and products, need no padding; nor do matrix products, see _matrices.)
VECTOR_BLOCK = 64


def by_blocks(function, *tensors):
    """``function(*tensors)`` for an elementwise ``function`` of tensors of
    one shape (M, ...): each model's share padded with zeros to whole
    :data:`VECTOR_BLOCK` s, so that its values do not depend on the models
    beside it. Without padding when the shares are whole blocks already."""
    first = tensors[0]
    share = first[0].numel()
    missing = -share % VECTOR_BLOCK
    if missing == 0:
        return function(*tensors)
    flat = (F.pad(t.reshape(len(t), share), (0, missing)) for t in tensors)
    return function(*flat)[:, :share].reshape(first.shape)


def padded_rows(batch_size):
    """The rows a training batch of ``batch_size`` is computed on: at least
    two, so that no matrix product has a side of 1 (see :func:`_matrices`)."""
    return max(batch_size, 2)


def pad_rows(t, rows, dim=0):
    """``t`` with rows of zeros appended along ``dim`` up to ``rows``."""
    missing = rows - t.shape[dim]
    if missing <= 0:
        return t
    shape = list(t.shape)
    shape[dim] = missing
    return torch.cat([t, t.new_zeros(shape)], dim=dim)


#: A training step of fewer activations than this (models x rows x tokens x
#: d_model) runs on one torch thread. torch's elementwise kernels split no
#: work below 32768 elements (its grain size), and a small step gains
#: little or nothing from a second thread (benchmarks/results/SPEED.md,
#: "The engine's constants": a single fit on one thread and on two), which
#: is then free for another fit. A model's bits do not depend on the number
#: of threads (tested).
ONE_THREAD_WORK = 32768

_threads_lock = threading.Lock()
_threads_state = {"fits": 0, "before": None}


def step_work(n_models, batch_size, tokens, d_model):
    """Activations of one training step of ``n_models`` networks computing
    ``tokens`` tokens of width ``d_model`` for each of ``batch_size`` rows."""
    return n_models * padded_rows(batch_size) * tokens * d_model


def computed_tokens(token_dim, n_features):
    """The tokens a network computes for a row of ``n_features``: runs of
    ``token_dim`` features, or one for copied tokens (``token_dim`` None)."""
    return 1 if token_dim is None else n_features // token_dim


@contextlib.contextmanager
def step_threads(work):
    """Train on one torch thread while ``work`` (:func:`step_work`) is
    below :data:`ONE_THREAD_WORK`, then give the caller its number back.
    Fits running at once in threads of one process share the setting: the
    first to start saves the caller's number, the last to end restores it."""
    if work >= ONE_THREAD_WORK:
        yield
        return
    with _threads_lock:
        if _threads_state["fits"] == 0:
            _threads_state["before"] = torch.get_num_threads()
            torch.set_num_threads(1)
        _threads_state["fits"] += 1
    try:
        yield
    finally:
        with _threads_lock:
            _threads_state["fits"] -= 1
            if _threads_state["fits"] == 0:
                torch.set_num_threads(_threads_state["before"])


def epoch_order(n, generator):
    """The order of ``n`` rows in an epoch of shuffled mini-batches: a fresh
    permutation from the fit's own ``generator``."""
    return torch.randperm(n, generator=generator)


def add_batch_loss(total, losses, rows):
    """The running sum of an epoch's training loss: each batch's loss times
    its number of real rows (skorch's train_loss is that sum over the
    epoch's rows; see :func:`epoch_loss`), in float64 as skorch sums it, so
    that finite float32 batch losses never sum to inf."""
    return total + losses.double() * rows


def epoch_loss(total, n):
    """An epoch's training loss from :func:`add_batch_loss`'s sum, n rows."""
    return float(total / n)


def trained_weights(net):
    """Names of ``net``'s weights that training updates, in its order (those
    its output depends on)."""
    unused = net.unused_weights()
    return [n for n, _ in net.named_parameters() if n not in unused]


class Rows(NamedTuple):
    """A model's rows ``X``, targets ``y`` and weights ``w`` (None:
    unweighted), as tensors."""

    X: torch.Tensor
    y: torch.Tensor
    w: torch.Tensor = None


class EpochRecord(NamedTuple):
    """A model's epoch as skorch's history keeps it: its batches' losses and
    real rows, and its share of the epoch's seconds (the batch's, divided
    evenly between the models that trained)."""

    losses: list
    sizes: list
    seconds: float


class _Pool:
    """The rows of every model in one table, each distinct tensor once.

    Models that train on the same rows (the folds of a search share one
    tensor across alphas) share them here: model ``m``'s row ``i`` is pool
    row ``offsets[m] + i``, and a batch is one gather of pool rows, so memory
    holds the distinct data once, not once per model.
    """

    def __init__(self, datasets, device):
        columns, first, self.offsets, self.sizes = [], {}, [], []
        total = 0
        for X, y, w in datasets:
            if id(X) not in first:
                first[id(X)] = (total, y, w)
                ones = torch.ones(len(X), dtype=X.dtype)
                columns.append(Rows(X, y, ones if w is None else w))
                total += len(X)
            offset, y0, w0 = first[id(X)]
            if y is not y0 or w is not w0:
                raise ValueError("models sharing rows X must share y and w too")
            self.offsets.append(offset)
            self.sizes.append(len(X))
        self.X = torch.cat([c.X for c in columns]).to(device)
        self.y = torch.cat([c.y for c in columns]).to(device)
        # Weights in the rows' precision (the loss is computed in it).
        self.w = torch.cat([c.w for c in columns]).to(device, self.X.dtype)

    def epoch(self, generators, batch_size):
        """This epoch's pool rows per model, (M, steps * batch_size): each
        model's own permutation of its rows, padded; the mask of real rows."""
        steps = max(math.ceil(n / batch_size) for n in self.sizes)
        index = torch.zeros(len(self.sizes), steps * batch_size, dtype=torch.long)
        mask = torch.zeros(len(self.sizes), steps * batch_size, dtype=self.X.dtype)
        for m, (n, generator) in enumerate(zip(self.sizes, generators, strict=True)):
            index[m, :n] = epoch_order(n, generator) + self.offsets[m]
            mask[m, :n] = 1.0
        return index.to(self.X.device), mask.to(self.X.device), steps

    def batch(self, index):
        """Rows, targets and weights of pool rows ``index`` (M, B)."""
        flat = index.reshape(-1)
        X, y = self.X.index_select(0, flat), self.y.index_select(0, flat)
        w = self.w.index_select(0, flat)
        return (
            X.view(*index.shape, *X.shape[1:]),
            y.view(*index.shape, *y.shape[1:]),
            w.view(index.shape),
        )


def _take(tensors, index):
    """The rows ``index`` (a LongTensor, or None: all) of each tensor: views
    when they are one run of consecutive rows, else copies."""
    if index is None:
        return tensors
    first = int(index[0])
    if int(index[-1]) - first == len(index) - 1:  # sorted and unique: a run
        return [t[first : first + len(index)] for t in tensors]
    return [t.index_select(0, index) for t in tensors]


def _matrices(x, weight):
    """``x`` (..., in) and ``weight`` (M, out, in) widened with zeros to at
    least 2 inputs and 2 outputs. torch's batched matrix product takes
    another kernel for a batch of one matrix when a side of the product is 1
    (a matrix-vector product), whose sums round differently; no product of
    a linear layer, forward or backward, has a side of 1 once its weight is
    at least 2 x 2 (a batch has at least 2 rows, see :func:`padded_rows`), so
    a model computes alike alone and in any batch. The zeros add exact
    zeros to the sums."""
    out_features, in_features = weight.shape[1:]
    wide_in, wide_out = max(in_features, 2) - in_features, max(out_features, 2)
    if (wide_in, wide_out) == (0, out_features):
        return x, weight
    weight = F.pad(weight, (0, wide_in, 0, wide_out - out_features))
    return F.pad(x, (0, wide_in)), weight


def _widened(t, width):
    """``t`` with zeros appended to its last axis up to ``width`` (itself,
    not a copy, when it is that wide)."""
    missing = width - t.shape[-1]
    return t if missing == 0 else F.pad(t, (0, missing))


def _linear(x, params, name):
    """``x @ W^T + b`` per model: x (M, ..., in), W (M, out, in), b (M, out)."""
    weight, bias = params[f"{name}.weight"], params.get(f"{name}.bias")
    out_features = weight.shape[1]
    x, weight = _matrices(x, weight)
    flat = x.reshape(x.shape[0], -1, x.shape[-1])
    if bias is None:
        out = torch.bmm(flat, weight.transpose(1, 2))
    else:
        bias = _widened(bias, weight.shape[1])
        out = torch.baddbmm(bias[:, None, :], flat, weight.transpose(1, 2))
    return out[..., :out_features].reshape(*x.shape[:-1], out_features)


def validation_logits(net, params, alpha, X):
    """One model's float32 logits on its held-out rows ``X`` (n, n_features),
    from its weights ``params`` ((1, *shape) each) and gate strength: the
    forward pass of training, so that a model scores alike in any batch."""
    with torch.no_grad():
        alphas = torch.as_tensor(alpha, dtype=torch.float32, device=X.device)
        alphas = alphas.reshape(1)
        return written_forward(net, params, alphas, X.unsqueeze(0))[0][0]


def validation_loss(outputs, y, w, *, regression):
    """The weighted mean loss of one model's ``outputs`` on its held-out rows
    (targets ``y``, weights ``w`` or None): the training loss's rule."""
    return float(mean_loss(outputs, y, w, regression=regression))


def _linear_backward(grads, params, name, x, d_out, *, need_input=True, into=None):
    """Gradients of ``_linear(x, params, name)``, x of shape (M, B, in), given
    ``d_out``: the weight's (d_out^T x, laid out like the weight) and the
    bias's into ``grads``; returns the input's (added to ``into`` in place,
    when given). Computed on the widened matrices of the forward pass
    (:func:`_matrices`)."""
    weight = params[f"{name}.weight"]
    out_features, in_features = weight.shape[1:]
    if f"{name}.bias" in params:
        grads[f"{name}.bias"] = d_out.sum(dim=1)
    x, weight = _matrices(x, weight)
    d_out = _widened(d_out, weight.shape[1])
    d_weight = torch.bmm(d_out.transpose(1, 2), x)
    grads[f"{name}.weight"] = d_weight[:, :out_features, :in_features]
    if not need_input:
        return None
    d_in = torch.bmm(d_out, weight)[..., :in_features]
    # ``into`` is an intermediate of the backward pass, its own memory.
    return d_in if into is None else into.add_(d_in)


def _layer_norm_backward(grads, params, name, saved, d_y):
    """Gradients of a block's pre-LayerNorm in :func:`written_forward` (its
    weights' into ``grads``) given ``d_y``, from the normalised rows ``u``
    and ``1 / sigma`` saved forward; returns the input's."""
    u, rstd = saved
    grads[f"{name}.weight"] = (d_y * u).sum(dim=1)
    grads[f"{name}.bias"] = d_y.sum(dim=1)
    d_u = d_y * params[f"{name}.weight"][:, None]
    mean_d_u = d_u.mean(dim=-1, keepdim=True)
    mean_d_u_u = (d_u * u).mean(dim=-1, keepdim=True)
    return rstd * (d_u - mean_d_u - u * mean_d_u_u)


def _attention(x, params, name, n_heads, tokens, padding=None):
    """Softmax attention of rows ``x`` (M, B * tokens, d_model), each row a
    token of its sequence: the attention output (laid out like ``x``) and
    what its backward needs (q, k, v and the weights, heads split).
    ``padding`` (M, B, tokens), True at a sequence's padding tokens: no token
    attends to them (their weights are exactly 0, and so are the gradients
    through them)."""
    M, rows, d_model = x.shape
    shape = (M, rows // tokens, tokens, d_model)
    q, k, v = (
        _split_heads(_linear(x, params, f"{name}.{p}").view(shape), n_heads)
        for p in ("query", "key", "value")
    )
    divisor = _scores_divisor(d_model, n_heads)
    scores = q @ k.transpose(-2, -1) / divisor
    if padding is not None:
        scores = scores.masked_fill(padding[:, :, None, None, :], float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    a = _merge_heads(weights @ v).reshape(M, rows, d_model)
    return a, (q, k, v, weights, divisor)


def _fixed_attention(x, params, name, block, tokens):
    """Fixed attention of rows ``x`` (M, B * tokens, d_model): every model's
    learned mixing weights (M, heads, tokens, tokens) applied to its values;
    the output and what its backward needs."""
    M, rows, d_model = x.shape
    shape = (M, rows // tokens, tokens, d_model)
    v = _split_heads(_linear(x, params, f"{name}.value").view(shape), block.n_heads)
    logits = params[f"{name}.mixing"]
    if block.attention == "fixed-causal":
        above = torch.ones_like(logits, dtype=torch.bool).triu(1)
        logits = logits.masked_fill(above, float("-inf"))
    weights = torch.softmax(logits, dim=-1)[:, None]  # shared by a model's rows
    a = _merge_heads(weights @ v).reshape(M, rows, d_model)
    return a, (v, weights)


def _fixed_attention_backward(grads, params, name, x, saved, d_a):
    """Gradients of :func:`_fixed_attention`: the value projection's and the
    mixing logits' (summed over a model's rows) into ``grads``; returns the
    input's."""
    v, weights = saved
    M, rows, d_model = x.shape
    d_heads = _split_heads(d_a.view(*v.shape[:2], v.shape[-2], d_model), v.shape[2])
    d_weights = (d_heads @ v.transpose(-2, -1)).sum(dim=1)
    weights = weights[:, 0]
    grads[f"{name}.mixing"] = torch._softmax_backward_data(
        d_weights, weights, -1, weights.dtype
    )
    d_v = weights[:, None].transpose(-2, -1) @ d_heads
    d_out = _merge_heads(d_v).reshape(M, rows, d_model)
    return _linear_backward(grads, params, f"{name}.value", x, d_out)


def _attention_backward(grads, params, name, x, saved, d_a):
    """Gradients of :func:`_attention` given its output's ``d_a``: the
    projections' weights into ``grads``; returns the input's."""
    q, k, v, weights, divisor = saved
    M, rows, d_model = x.shape
    d_heads = _split_heads(d_a.view(*q.shape[:2], q.shape[-2], d_model), q.shape[2])
    d_weights = d_heads @ v.transpose(-2, -1)
    d_v = weights.transpose(-2, -1) @ d_heads
    d_scores = torch._softmax_backward_data(d_weights, weights, -1, weights.dtype)
    d_scores = d_scores / divisor
    d_q = d_scores @ k
    d_k = d_scores.transpose(-2, -1) @ q
    d_x = None
    for projection, d in (("query", d_q), ("key", d_k), ("value", d_v)):
        d_out = _merge_heads(d).reshape(M, rows, d_model)
        d_x = _linear_backward(
            grads, params, f"{name}.{projection}", x, d_out, into=d_x
        )
    return d_x


def _written_block(block, params, name, h, strength, tokens, padding=None):
    """One block on rows ``h`` (M, B * tokens, d_model): its output and what
    its backward needs. One token (copied tokens, or a sequence of one)
    attends to itself with weight 1, so attention is its value. ``padding``:
    as :func:`_attention` takes it."""
    saved = {}
    x = h
    if block.norm is not None:
        mean = h.mean(dim=-1, keepdim=True)
        centred = h - mean
        rstd = torch.rsqrt(centred.pow(2).mean(dim=-1, keepdim=True) + block.norm.eps)
        u = centred * rstd
        saved["norm"] = (u, rstd)
        x = (
            u * params[f"{name}.norm.weight"][:, None]
            + params[f"{name}.norm.bias"][:, None]
        )
    saved["x"] = x
    if tokens == 1:
        a = _linear(x, params, f"{name}.value")
    elif block.mixing is not None:
        a, saved["fixed"] = _fixed_attention(x, params, name, block, tokens)
    else:
        a, saved["attention"] = _attention(
            x, params, name, block.n_heads, tokens, padding
        )
    saved["a"] = a
    gate = block.gate_kind
    if gate.projected:
        z = saved["z"] = _linear(x, params, f"{name}.gate_proj")
        g = saved["g"] = by_blocks(gate.activation, z)
        out = gate.multiply(a, g, strength, block.n_heads)
    else:
        out = saved["g"] = by_blocks(gate.activation, a)
    return (h + out if block.residual else out), saved


def _written_block_backward(block, grads, params, name, saved, d_h, strength):
    """Gradients of :func:`_written_block` given its output's ``d_h``;
    returns its input's."""
    a, x = saved["a"], saved["x"]
    d_a, d_z = block.gate_kind.backward(
        d_h, a, saved.get("z"), saved["g"], strength, block.n_heads, by_blocks
    )
    if "attention" in saved:
        d_x = _attention_backward(grads, params, name, x, saved["attention"], d_a)
    elif "fixed" in saved:
        d_x = _fixed_attention_backward(grads, params, name, x, saved["fixed"], d_a)
    else:
        d_x = _linear_backward(grads, params, f"{name}.value", x, d_a)
    if d_z is not None:
        d_x = _linear_backward(grads, params, f"{name}.gate_proj", x, d_z, into=d_x)
    if block.norm is not None:
        d_x = _layer_norm_backward(grads, params, f"{name}.norm", saved["norm"], d_x)
    return d_h + d_x if block.residual else d_x


def _padding(x, M, B, tokens):
    """Token rows ``x`` (M, B * tokens, width) with NaN at series' missing
    time points (see :mod:`skgate._series`) as numbers, zeros there, and
    the padding tokens (M, B, tokens): those whose first value is NaN. For
    rows without NaN (every table, series of one length): ``x`` and None,
    the computation of before."""
    missing = torch.isnan(x)
    if not missing.any():
        return x, None
    # A series ending inside its only (or last) patch has NaN there too.
    padding = missing[..., 0].view(M, B, tokens)
    return x.masked_fill(missing, 0.0), (padding if padding.any() else None)


def written_forward(net, params, alphas, x):
    """The logits of M networks shaped like ``net`` (a GatedAttentionNet)
    with stacked weights ``params`` and gate strengths ``alphas`` (M,), on
    rows ``x`` (M, B, n_features): ``net.forward`` with a model axis, and
    what :func:`written_losses_and_gradients` needs for the backward pass.

    Every layer but attention acts on each token alone, so tokens are rows:
    (M, B * tokens, d_model); copied tokens are one token (see the net).
    """
    M, B = x.shape[:2]
    tokens = computed_tokens(net.token_dim, net.n_features)
    strength = alphas.view(M, 1, 1)
    x = x.reshape(M, B * tokens, -1)  # a sequence's tokens: runs of its features
    x, padding = _padding(x, M, B, tokens)
    h = _linear(x, params, "embed")
    if net.position is not None:
        h = h.view(M, B, tokens, -1) + params["position"][:, None]
        h = h.view(M, B * tokens, -1)
    blocks = []
    for index, block in enumerate(net.blocks):
        h, state = _written_block(
            block, params, f"blocks.{index}", h, strength, tokens, padding
        )
        blocks.append(state)
    even = None
    if tokens == 1:
        pooled, pool_weights = h, None
    elif padding is None:
        pooled, pool_weights = h.view(M, B, tokens, -1).mean(dim=2), None
    else:
        # The mean over each sequence's own tokens; a model without padding
        # (batched beside one with) pools as it does alone, to the bit.
        pool_weights = (~padding).to(h.dtype)
        pool_weights = pool_weights / pool_weights.sum(dim=2, keepdim=True)
        grid = h.view(M, B, tokens, -1)
        pooled = (grid * pool_weights[..., None]).sum(dim=2)
        even = ~padding.flatten(1).any(dim=1)
        if even.any():
            pooled[even] = grid[even].mean(dim=2)
    saved = {
        "x": x,
        "blocks": blocks,
        "pooled": pooled,
        "tokens": tokens,
        "pool weights": pool_weights,
        "even": even,
    }
    if isinstance(net.head, torch.nn.Linear):
        return _linear(pooled, params, "head"), saved
    z = saved["head z"] = _linear(pooled, params, "head.0")
    u = saved["head u"] = by_blocks(HEAD_ACTIVATIONS[net.head_name].forward, z)
    return _linear(u, params, "head.2"), saved


def written_losses_and_gradients(net, params, alphas, x, y, w, *, regression):
    """Each model's weighted mean loss and its gradients, by hand.

    The network is a stack of affine maps, attention, gates, LayerNorms and
    residual sums, mean pooling and a head (:func:`written_forward`): its
    backward pass is written out here, a few batched products and pointwise
    operations per layer, instead of autograd's graph of several times as
    many small operations (the cost of a step of small models is their
    number). ``regression``: the loss is the mean squared error over the
    outputs, else cross-entropy with integer targets ``y``.
    Returns ``(losses (M,), {name: gradient}, logits (M, B, outputs))``.
    """
    M, B = x.shape[:2]
    out, saved = written_forward(net, params, alphas, x)
    tokens, pooled = saved["tokens"], saved["pooled"]
    if regression:
        error = out - y
        losses = (error * error).mean(dim=2)
        d_out = error * (2 / out.shape[2])
    else:
        log_p = torch.log_softmax(out, dim=2)
        picked = y.unsqueeze(2)
        losses = -log_p.gather(2, picked).squeeze(2)
        d_out = by_blocks(torch.exp, log_p)
        d_out.scatter_add_(2, picked, torch.full_like(log_p[..., :1], -1.0))
    per_model = weighted_mean(losses, w)
    share = w / w.sum(dim=1, keepdim=True).clamp(min=1e-30)  # (M, B)
    d_out = d_out * share.unsqueeze(2)
    grads = {}
    if "head z" not in saved:
        d_pooled = _linear_backward(grads, params, "head", pooled, d_out)
    else:
        d_u = _linear_backward(grads, params, "head.2", saved["head u"], d_out)
        backward = HEAD_ACTIVATIONS[net.head_name].backward
        d_z = by_blocks(backward, d_u, saved["head z"])
        d_pooled = _linear_backward(grads, params, "head.0", pooled, d_z)
    if tokens == 1:
        d_h = d_pooled
    elif saved["pool weights"] is None:
        d_h = (d_pooled / tokens).unsqueeze(2).expand(M, B, tokens, -1)
        d_h = d_h.reshape(M, B * tokens, -1)
    else:
        d_h = d_pooled.unsqueeze(2) * saved["pool weights"][..., None]
        even = saved["even"]  # the models without padding: as alone
        if even.any():
            d_h[even] = (d_pooled[even] / tokens).unsqueeze(2).expand_as(d_h[even])
        d_h = d_h.reshape(M, B * tokens, -1)
    strength = alphas.view(M, 1, 1)
    for index in reversed(range(len(net.blocks))):
        d_h = _written_block_backward(
            net.blocks[index],
            grads,
            params,
            f"blocks.{index}",
            saved["blocks"][index],
            d_h,
            strength,
        )
    if net.position is not None:
        grads["position"] = d_h.view(M, B, tokens, -1).sum(dim=1)
    _linear_backward(grads, params, "embed", saved["x"], d_h, need_input=False)
    return per_model, grads, out


def mean_loss(outputs, y, w, *, regression):
    """The loss of outputs (..., rows, width) against targets ``y``: each
    row's cross-entropy (integer targets) or squared error (mean over the
    outputs), then :func:`weighted_mean` over the rows with weights ``w``
    (None: equal). The loss of every batch, validation split and model."""
    criterion = torch.nn.MSELoss if regression else torch.nn.CrossEntropyLoss
    flat = outputs.reshape(-1, outputs.shape[-1])
    targets = y.reshape(len(flat), -1) if regression else y.reshape(-1)
    losses = criterion(reduction="none")(flat, targets.to(outputs.device))
    losses = losses.reshape(*outputs.shape[:-1], -1).mean(dim=-1)
    if w is None:
        w = torch.ones_like(losses)
    return weighted_mean(losses, w.to(losses))


def losses_and_gradients(net, names, params, alphas, xb, yb, wb, *, regression):
    """The training step's computation for M models shaped like ``net``:
    each model's weighted mean loss on its batch, (M,), the gradients of its
    weights ``names`` (stacked ``params``, (M, *shape) each; laid out in
    memory, which the fused AdamW kernel needs) and its logits. The
    backward pass is written out (:func:`written_losses_and_gradients`)."""
    with torch.no_grad():
        per_model, grads, out = written_losses_and_gradients(
            net,
            dict(zip(names, params, strict=True)),
            alphas,
            xb,
            yb,
            wb,
            regression=regression,
        )
    return per_model, [grads[name].contiguous() for name in names], out


class BatchedTrainer:
    """Train ``modules`` (initialised, float32, one architecture) together:
    skgate's one training loop, for one model as for a batch.

    ``regression``: the loss is the squared error (else cross-entropy).
    ``lr``: one learning rate, or one per model. ``states``: per model, the
    AdamW state to continue from, ``{weight name: {"step", "exp_avg",
    "exp_avg_sq"}}`` (None, or missing entries: a fresh optimiser).

    Each weight is stacked over the models, (M, *shape); the weights a
    model's output does not use (query and key over copied tokens), and
    those that do not require a gradient, are left out, as a single model's
    optimiser leaves weights without a gradient untouched. A single model's
    stacks are views of its own weights and of its ``states`` (entries made
    where missing), so it trains in place and anything reading its module
    or optimiser state during training (a callback) reads them as they are.

    An AdamW step is torch's own fused kernel, the one
    ``AdamW(fused=True)`` runs for a single model (:func:`fused_adamw`),
    called once per learning rate on every stepping model's weights. The
    kernel treats a tensor's elements by its length (vector body, scalar
    tail), so a weight steps as one stacked tensor only where each model's
    share is whole vector blocks (see :meth:`_update`), else as each
    model's own tensor (a view of the stack): either way a model's update is
    bit for bit the one it would get alone.
    """

    def __init__(
        self, modules, alphas, *, regression, lr, weight_decay, batch_size, states=None
    ):
        self.net = modules[0]
        self.device = next(self.net.parameters()).device
        weights = [dict(module.named_parameters()) for module in modules]
        self.names = [
            n for n in trained_weights(self.net) if weights[0][n].requires_grad
        ]
        states = states or [None] * len(modules)
        if len(modules) == 1:
            self._live(weights[0], states[0])
        else:
            self._stacked(weights, states)
        # Each model's weights and moments: views of the stacks (in place).
        self.views = [
            [
                [state[name][m] for name in self.names]
                for state in (self.params, self.exp_avg, self.exp_avg_sq)
            ]
            for m in range(len(modules))
        ]
        self.alphas = torch.tensor(alphas, dtype=torch.float32, device=self.device)
        #: Whether a weight's per-model share is whole vector blocks (see
        #: _update).
        self.whole_blocks = {
            name: self.params[name][0].numel() % VECTOR_BLOCK == 0
            for name in self.names
        }
        self.regression = regression
        self.lrs = [lr] * len(modules) if isinstance(lr, int | float) else list(lr)
        self.batch_size = batch_size
        #: AdamW's settings but the learning rate (a callback may set them).
        self.adamw = {"weight_decay": weight_decay, "betas": BETAS, "eps": EPS}

    def _live(self, weights, state):
        """One model: the stacks are views of its weights and of ``state``."""
        state = {} if state is None else state
        step = None
        for name in self.names:
            entry = state.setdefault(name, {})
            if not entry:
                entry["step"] = torch.zeros((), dtype=torch.float32, device=self.device)
                entry["exp_avg"] = torch.zeros_like(weights[name])
                entry["exp_avg_sq"] = torch.zeros_like(weights[name])
            # AdamW counts steps per weight; here they count together.
            step = entry["step"] = entry["step"] if step is None else step
        self.states = [state]
        self.params = {n: weights[n].detach().unsqueeze(0) for n in self.names}
        self.exp_avg, self.exp_avg_sq = (
            {n: state[n][key].unsqueeze(0) for n in self.names}
            for key in ("exp_avg", "exp_avg_sq")
        )
        self.steps = [step]
        self.counts = [int(step)]

    def _stacked(self, weights, states):
        """Several models: their weights and AdamW states copied into stacks."""

        def stack(read):
            return {
                name: torch.stack([read(m, name) for m in range(len(weights))])
                for name in self.names
            }

        def moment(key):
            def read(m, name):
                entry = (states[m] or {}).get(name)
                return torch.zeros_like(weights[m][name]) if not entry else entry[key]

            return stack(read)

        self.params = stack(lambda m, name: weights[m][name].detach())
        self.exp_avg, self.exp_avg_sq = moment("exp_avg"), moment("exp_avg_sq")
        self.steps = [
            torch.zeros((), dtype=torch.float32, device=self.device)
            if not (states[m] or {}).get(self.names[0])
            else states[m][self.names[0]]["step"].clone()
            for m in range(len(weights))
        ]
        self.counts = [int(step) for step in self.steps]
        self.states = None

    def _step(self, rows, xb, yb, wb, hooks=None):
        """One AdamW step of the models ``rows`` (a LongTensor; None: every
        model) on their batches; returns their losses and logits."""
        params = _take([self.params[n] for n in self.names], rows)
        (alphas,) = _take([self.alphas], rows)
        per_model, gradients, logits = losses_and_gradients(
            self.net,
            self.names,
            params,
            alphas,
            xb,
            yb,
            wb,
            regression=self.regression,
        )
        lrs, adamw, frozen = self.lrs, self.adamw, ()
        if hooks is not None:
            # A callback may read or change the gradients and the rates, or
            # freeze weights (as skorch's Freezer: they are not updated).
            hooks.gradients(
                dict(zip(self.names, (g[0] for g in gradients), strict=True))
            )
            adamw, frozen = hooks.rates(), hooks.frozen()
            lrs = [adamw.pop("lr")]
        with torch.no_grad():
            self._update(rows, gradients, lrs, adamw, frozen)
        return per_model, logits

    def _update(self, rows, gradients, lrs, adamw, frozen):
        """The AdamW step of the models ``rows`` (None: every model) given
        their gradients (stacked, one per weight name), in place. When every
        model steps, at one learning rate and step count, a weight whose
        per-model share is whole :data:`VECTOR_BLOCK` s steps as one tensor
        (the kernel then treats each model's elements as it would alone);
        the rest step as each model's own tensors."""
        models = range(len(self.views)) if rows is None else rows.tolist()
        torch._foreach_add_([self.steps[m] for m in models], 1)
        for m in models:
            self.counts[m] += 1
        together = (
            rows is None
            and len(models) > 1
            and len({lrs[m] for m in models}) == 1
            and len({self.counts[m] for m in models}) == 1
        )
        by_rate = {}
        for index, name in enumerate(self.names):
            if name in frozen:
                continue
            if together and self.whole_blocks[name]:
                by_rate.setdefault(lrs[0], []).append(
                    (
                        self.params[name],
                        gradients[index],
                        self.exp_avg[name],
                        self.exp_avg_sq[name],
                        self.steps[0],
                    )
                )
                continue
            for m, gradient in zip(models, gradients[index].unbind(0), strict=True):
                weights, exp_avg, exp_avg_sq = self.views[m]
                by_rate.setdefault(lrs[m], []).append(
                    (
                        weights[index],
                        gradient,
                        exp_avg[index],
                        exp_avg_sq[index],
                        self.steps[m],
                    )
                )
        for lr, entries in by_rate.items():
            fused_adamw(entries, lr=lr, **adamw)

    def fit(self, datasets, generators, epochs, validation=None, hooks=None):
        """Train for ``epochs``; ``datasets``: per model ``(X, y, w or None)``.

        ``validation``: per model None or a
        :class:`~skgate._skorch.ValidationScore` (initialised): after each
        epoch the model's float32 outputs on its held-out rows are scored;
        it stops when the score stops improving and ends with the weights of
        its best epoch, as its fit alone would.

        ``hooks`` (one model only): a :class:`~skgate._training.NetHooks`,
        told of every epoch, batch, gradient and validation, asked for the
        learning rate of every step; a KeyboardInterrupt (a callback's way to
        stop, or the user's) ends training as if the model had stopped.

        Returns the per-model training loss of each epoch it trained (M lists),
        the mean of its batches' losses weighted by their rows, as skorch
        reports it.
        """
        if hooks is not None and len(datasets) != 1:
            raise ValueError("hooks observe the training of one model")
        work = (
            step_work(
                len(datasets),
                self.batch_size,
                computed_tokens(self.net.token_dim, self.net.n_features),
                self.net.blocks[0].d_model,
            )
            if self.device.type == "cpu"
            else ONE_THREAD_WORK  # not the CPU: its threads are not ours
        )
        with step_threads(work):
            return self._fit(datasets, generators, epochs, validation, hooks)

    def _fit(self, datasets, generators, epochs, validation, hooks):
        M = len(datasets)
        validation = validation or [None] * M
        pool = _Pool(datasets, self.device)
        weighted = [w is not None for _, _, w in datasets]
        curves = [[] for _ in datasets]
        #: Each model's epochs, as :class:`EpochRecord` s.
        self.epochs_ = [[] for _ in datasets]
        stopped = [False] * M
        best = {}
        for _ in range(epochs):
            if all(stopped):
                break
            try:
                if hooks is not None:
                    hooks.epoch_begin()
                start, training = time.perf_counter(), stopped.count(False)
                totals, losses, counts = self._epoch(
                    pool, generators, stopped, hooks, weighted
                )
                seconds = (time.perf_counter() - start) / training
                for m, n in enumerate(pool.sizes):
                    if not stopped[m]:
                        curves[m].append(epoch_loss(totals[m], n))
                        taken = counts[m] > 0
                        self.epochs_[m].append(
                            EpochRecord(
                                losses[m][taken].tolist(),
                                [int(c) for c in counts[m][taken].tolist()],
                                seconds,
                            )
                        )
                rows = self._validate(validation, stopped, best, hooks)
                if hooks is not None:
                    hooks.epoch_end(curves[0][-1], rows[0])
            except KeyboardInterrupt:
                if hooks is None:
                    raise
                stopped[0] = True
        for m, state in best.items():
            for name in self.names:
                self.params[name][m] = state[name]
        return curves

    def _epoch(self, pool, generators, stopped, hooks, weighted):
        """One epoch of every model still training; returns each one's sum of
        batch losses (:func:`add_batch_loss`), and per model and step its
        loss and its real rows (0: no step)."""
        M, B = len(pool.sizes), self.batch_size
        index, mask, n_steps = pool.epoch(generators, B)
        # Real rows per model and step, counted once an epoch.
        counts = mask.view(M, n_steps, B).sum(dim=2)
        reals = counts.tolist()
        totals = torch.zeros(M, dtype=torch.float64, device=self.device)
        losses_by_step = torch.zeros(M, n_steps, dtype=torch.float32)
        for step in range(n_steps):
            active = [m for m in range(M) if reals[m][step] and not stopped[m]]
            if not active:  # the models with more steps have stopped
                break
            width = self.computed_rows([reals[m][step] for m in active])
            part = slice(step * B, step * B + width)
            rows = (
                None if len(active) == M else torch.tensor(active, device=self.device)
            )
            picked = index[:, part] if rows is None else index[rows, part]
            xb, yb, wb = pool.batch(picked)
            if any(reals[m][step] < width for m in active):  # padding: weight 0
                real = mask[:, part] if rows is None else mask[rows, part]
                wb = wb * real
            n = int(reals[0][step])
            if hooks is not None:
                batch = _real_rows(xb, yb, wb, n, weighted[0])
                hooks.batch_begin(batch)
            xb, yb, wb = (pad_rows(t, padded_rows(width), dim=1) for t in (xb, yb, wb))
            losses, logits = self._step(rows, xb, yb, wb, hooks)
            if rows is None:
                totals = add_batch_loss(totals, losses, counts[:, step])
                losses_by_step[:, step] = losses.cpu()
            else:
                totals[rows] = add_batch_loss(totals[rows], losses, counts[rows, step])
                losses_by_step[rows.cpu(), step] = losses.cpu()
            if hooks is not None:
                hooks.batch_end(batch, losses[0], logits[0, :n].detach())
        if hooks is not None:
            hooks.trained(n_steps)
        # A model trains every step it has rows for until it stops, which
        # happens between epochs: its real rows per step are the steps it took.
        return totals, losses_by_step, counts.cpu()

    def computed_rows(self, reals):
        """The rows a step computes for models with ``reals`` real rows: the
        batch size, an epoch's last (shorter) batch filled with rows of
        weight 0, so that a model computes alike alone and beside models
        with more rows. (The speed benchmark measures what this costs.)"""
        return self.batch_size

    def _validate(self, validation, stopped, best, hooks):
        """Score the held-out rows of every model still training; mark those
        that stop, keep the weights of each one's best epoch. Each model's
        rows pass alone (:func:`validation_logits`), as in its fit alone.
        Returns each model's history row of the epoch (None: not scored)."""
        rows = [None] * len(validation)
        for m, score in enumerate(validation):
            if score is None or stopped[m]:
                continue
            outputs = self.held_out_outputs(m, score)
            is_best, stop = score.evaluate(outputs.cpu())
            rows[m] = score.rows_[-1]
            if hooks is not None:
                hooks.validated(score.data, outputs, rows[m])
            if is_best:
                best[m] = {n: self.params[n][m].clone() for n in self.names}
            if stop:
                stopped[m] = True
        return rows

    def held_out_outputs(self, m, score):
        """Model ``m``'s outputs on the held-out rows of ``score`` (a
        :class:`~skgate._skorch.ValidationScore`), from its current weights
        (:func:`validation_logits`)."""
        params = {n: self.params[n][m : m + 1] for n in self.names}
        X = score.data.X.to(self.device)
        return validation_logits(self.net, params, self.alphas[m], X)

    def modules(self, templates):
        """The trained networks: ``templates`` (one per model, e.g. the modules
        passed in, which are changed) given the trained weights, in place.
        (A single model trained in place already.)"""
        if self.states is not None:
            return list(templates)
        with torch.no_grad():
            for m, template in enumerate(templates):
                weights = dict(template.named_parameters())
                for name in self.names:
                    weights[name].copy_(self.params[name][m])
        return list(templates)

    def optimizer_state(self, m):
        """Model ``m``'s AdamW state by weight name, as ``torch.optim.AdamW``
        keeps it (weights it never stepped have none): for a single model
        the ``states`` it trained in, else copies."""
        if self.states is not None:
            return self.states[m]
        return {
            name: {
                "step": self.steps[m].clone(),
                "exp_avg": self.exp_avg[name][m].clone(),
                "exp_avg_sq": self.exp_avg_sq[name][m].clone(),
            }
            for name in self.names
        }


def _real_rows(xb, yb, wb, n, weighted):
    """One model's batch as skorch's callbacks read it: its ``n`` real rows,
    ``(X, y)``, or ``({"X": X, "sample_weight": w}, y)`` when weighted."""
    X, y = xb[0, :n], yb[0, :n]
    return ({"X": X, "sample_weight": wb[0, :n]}, y) if weighted else (X, y)

"""The network's equations over stacked weights (a leading model axis): the
forward pass in batched matrix products (:func:`written_forward`), its
backward written out by hand (:func:`losses_and_gradients`, no autograd),
the held-out rows' outputs and the weighted losses. The same equations as
:class:`skgate.nn.GatedAttentionNet`, which the tests hold them to.
"""

import torch
import torch.nn.functional as F

from ._functional import functional_logits, functional_losses_and_gradients
from ._heads import HEAD_ACTIVATIONS
from ._jets import merge_heads, scores_divisor, split_heads


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
    if not net.written_out:
        return functional_logits(net, params, alpha, X)
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
        split_heads(_linear(x, params, f"{name}.{p}").view(shape), n_heads)
        for p in ("query", "key", "value")
    )
    divisor = scores_divisor(d_model, n_heads)
    scores = q @ k.transpose(-2, -1) / divisor
    if padding is not None:
        scores = scores.masked_fill(padding[:, :, None, None, :], float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    a = merge_heads(weights @ v).reshape(M, rows, d_model)
    return a, (q, k, v, weights, divisor)


def _fixed_attention(x, params, name, block, tokens):
    """Fixed attention of rows ``x`` (M, B * tokens, d_model): every model's
    learned mixing weights (M, heads, tokens, tokens) applied to its values;
    the output and what its backward needs."""
    M, rows, d_model = x.shape
    shape = (M, rows // tokens, tokens, d_model)
    v = split_heads(_linear(x, params, f"{name}.value").view(shape), block.n_heads)
    logits = params[f"{name}.mixing"]
    if block.attention == "fixed-causal":
        above = torch.ones_like(logits, dtype=torch.bool).triu(1)
        logits = logits.masked_fill(above, float("-inf"))
    weights = torch.softmax(logits, dim=-1)[:, None]  # shared by a model's rows
    a = merge_heads(weights @ v).reshape(M, rows, d_model)
    return a, (v, weights)


def _fixed_attention_backward(grads, params, name, x, saved, d_a):
    """Gradients of :func:`_fixed_attention`: the value projection's and the
    mixing logits' (summed over a model's rows) into ``grads``; returns the
    input's."""
    v, weights = saved
    M, rows, d_model = x.shape
    d_heads = split_heads(d_a.view(*v.shape[:2], v.shape[-2], d_model), v.shape[2])
    d_weights = (d_heads @ v.transpose(-2, -1)).sum(dim=1)
    weights = weights[:, 0]
    grads[f"{name}.mixing"] = torch._softmax_backward_data(
        d_weights, weights, -1, weights.dtype
    )
    d_v = weights[:, None].transpose(-2, -1) @ d_heads
    d_out = merge_heads(d_v).reshape(M, rows, d_model)
    return _linear_backward(grads, params, f"{name}.value", x, d_out)


def _attention_backward(grads, params, name, x, saved, d_a):
    """Gradients of :func:`_attention` given its output's ``d_a``: the
    projections' weights into ``grads``; returns the input's."""
    q, k, v, weights, divisor = saved
    M, rows, d_model = x.shape
    d_heads = split_heads(d_a.view(*q.shape[:2], q.shape[-2], d_model), q.shape[2])
    d_weights = d_heads @ v.transpose(-2, -1)
    d_v = weights.transpose(-2, -1) @ d_heads
    d_scores = torch._softmax_backward_data(d_weights, weights, -1, weights.dtype)
    d_scores = d_scores / divisor
    d_q = d_scores @ k
    d_k = d_scores.transpose(-2, -1) @ q
    d_x = None
    for projection, d in (("query", d_q), ("key", d_k), ("value", d_v)):
        d_out = merge_heads(d).reshape(M, rows, d_model)
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


def losses_and_gradients(
    net,
    names,
    params,
    alphas,
    xb,
    yb,
    wb,
    *,
    regression,
    label_smoothing=0.0,
    noise=None,
):
    """The training step's computation for M models shaped like ``net``:
    each model's weighted mean loss on its batch, (M,), the gradients of its
    weights ``names`` (stacked ``params``, (M, *shape) each; laid out in
    memory, which the fused AdamW kernel needs) and its logits. The
    backward pass is written out (:func:`written_losses_and_gradients`) for
    today's layers; a network with others (``net.written_out`` False), or
    a loss with ``label_smoothing``, trains through ``torch.func`` on the
    module itself (:func:`~skgate.nn._functional.functional_losses_and_gradients`;
    ``noise``: each model's dropout generator, or None)."""
    if label_smoothing or not net.written_out:
        step = (net, names, params, alphas, xb, yb, wb)
        return functional_losses_and_gradients(
            *step, regression=regression, label_smoothing=label_smoothing, noise=noise
        )
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


def computed_tokens(token_dim, n_features):
    """The tokens a network computes for a row of ``n_features``: runs of
    ``token_dim`` features, or one for copied tokens (``token_dim`` None)."""
    return 1 if token_dim is None else n_features // token_dim

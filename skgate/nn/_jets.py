"""Second-order forward passes ("jets") of the network's layers, and the
arithmetic of attention heads they share with the modules and the engine."""

import math

import torch
import torch.nn.functional as F

# Second-order forward passes ("jets"). Along a line x + t v, every layer maps
# the triple (h, dh/dt, d^2h/dt^2) to the same triple of its output. It is the
# chain rule written out, exact like autodiff, and costs a few forward passes
# where nested forward-mode autodiff costs tens. The parts broadcast: the value
# h may have shape (n, 1, ...) while its derivatives along k directions have
# (n, k, ...), so everything that depends on the point alone is computed once
# per point, not once per direction; and a derivative that depends on the
# direction alone (the embedding's: the line's velocity through an affine
# map) keeps shape (1, k, ...) until a point-dependent factor meets it. A
# second derivative may be None: exactly zero (the line has no acceleration,
# nor has its image under an affine map), and the terms it would enter are
# skipped. Every product is ordered so that the small factors meet first.


def map_parts(function, jet):
    """``function`` applied to each part of a jet (None stays None)."""
    return tuple(None if part is None else function(part) for part in jet)


def linear_jet(layer, h, dh, d2h):
    weight = layer.weight
    return (
        layer(h),
        F.linear(dh, weight),
        None if d2h is None else F.linear(d2h, weight),
    )


def linear_jets(layers, factors, h, dh, d2h, derivative_scale=None):
    """The jets of ``factor * layer(h)`` for each layer (all reading ``h``),
    from one matrix product per part: the layers' weights stacked.
    ``derivative_scale``: a per-feature factor of ``dh`` and ``d2h`` not yet
    applied (a LayerNorm's weight), folded into the weights instead."""
    weight = torch.cat(
        [f * layer.weight for layer, f in zip(layers, factors, strict=True)]
    )
    scaled = weight if derivative_scale is None else weight * derivative_scale
    bias = None
    if any(layer.bias is not None for layer in layers):
        bias = torch.cat(
            [
                weight.new_zeros(layer.out_features)
                if layer.bias is None
                else f * layer.bias
                for layer, f in zip(layers, factors, strict=True)
            ]
        )
    parts = (
        F.linear(h, weight, bias),
        F.linear(dh, scaled),
        None if d2h is None else F.linear(d2h, scaled),
    )
    sizes = [layer.out_features for layer in layers]
    split = [None if p is None else p.split(sizes, dim=-1) for p in parts]
    return [
        tuple(None if p is None else p[i] for p in split) for i in range(len(layers))
    ]


def scores_divisor(d_model, n_heads):
    """sqrt(d_head): attention scores are q k^T divided by it."""
    return math.sqrt(d_model // n_heads)


def attention_heads(q, k, v, n_heads):
    """Softmax attention of projected tokens (..., tokens, d_model), one or
    several heads (each its slice of q, k, v), heads concatenated. Written
    out rather than F.scaled_dot_product_attention: its fused kernels lack
    forward-mode autodiff, which the geometry uses."""
    divisor = scores_divisor(q.shape[-1], n_heads)
    q, k, v = (split_heads(t, n_heads) for t in (q, k, v))
    scores = q @ k.transpose(-2, -1) / divisor
    return merge_heads(torch.softmax(scores, dim=-1) @ v)


def _writable(out, *shapes):
    """Whether a result may be summed into ``out`` in place: it has the
    sum's shape, and autograd is off (the geometry's case; in-place writes
    into the views of a split would break a recorded graph)."""
    return not torch.is_grad_enabled() and out.shape == torch.broadcast_shapes(
        out.shape, *shapes
    )


def _accumulate(out, a, b, value=1.0):
    """out + value * a * b, in place when ``out`` (a fresh tensor) has the
    sum's shape and no gradient is being recorded (no new memory: fewer
    passes and page faults)."""
    if _writable(out, a.shape, b.shape):
        return out.addcmul_(a, b, value=value)
    return torch.addcmul(out, a, b, value=value)


def pointwise_jet(y, d1, d2, dh, d2h):
    """Jet of y = phi(h), given phi'(h) = d1 and phi''(h) = d2 (point-shaped)."""
    bend = d2 * (dh * dh)
    return y, d1 * dh, bend if d2h is None else _accumulate(bend, d1, d2h)


def tanh_jet(h, dh, d2h, scale=1.0):
    """Jet of ``scale * tanh(h)`` (the scale applied once per point)."""
    t = torch.tanh(h)
    d1 = scale * (1 - t * t)
    return pointwise_jet(scale * t, d1, -2 * t * d1, dh, d2h)


def silu_jet(h, dh, d2h):
    s = torch.sigmoid(h)
    d1 = s * (1 + h * (1 - s))
    d2 = s * (1 - s) * (2 + h * (1 - 2 * s))
    return pointwise_jet(h * s, d1, d2, dh, d2h)


def relu_jet(h, dh, d2h):
    # Piecewise linear: y' = 1 where h > 0, y'' = 0 (at h = 0 exactly, 0 too).
    on = (h > 0).to(h.dtype)
    return pointwise_jet(h * on, on, torch.zeros_like(h), dh, d2h)


def gelu_jet(h, dh, d2h):
    # Exact (erf) GELU, y = h Phi(h): y' = Phi + h phi, y'' = phi (2 - h^2).
    h2 = h * h
    cdf = 0.5 + 0.5 * torch.erf(h * (1 / math.sqrt(2)))
    pdf = torch.exp(h2 * -0.5) * (1 / math.sqrt(2 * math.pi))
    return pointwise_jet(h * cdf, torch.addcmul(cdf, h, pdf), pdf * (2 - h2), dh, d2h)


def sigmoid_jet(h, dh, d2h):
    s = torch.sigmoid(h)
    d1 = s * (1 - s)
    return pointwise_jet(s, d1, d1 * (1 - 2 * s), dh, d2h)


def _masked_mean(t, mask, dims, count):
    """The mean of ``t`` over ``dims`` where ``mask`` (broadcasting) is 1;
    ``count`` the number of entries averaged (None: no mask)."""
    if mask is None:
        return t.mean(dim=dims, keepdim=True)
    return (t * mask).sum(dim=dims, keepdim=True) / count


def normalise_jet(h, dh, d2h, dims, eps, mask=None):
    """Jet of ``(h - mean(h)) / sqrt(var(h) + eps)``, the mean and biased
    variance over ``dims`` (of the entries where ``mask`` is 1): u = c r
    with c = h - mean(h), r = 1 / sqrt(mean(c^2) + eps); r' = -var'/2 r^3,
    r'' = 3/4 var'^2 r^5 - var''/2 r^3. ``dh`` / ``d2h`` None: the value
    alone (None for them)."""
    count = None
    if mask is not None:
        # At least a tiny count: a batch of rows all of weight 0 normalises
        # by finite numbers (and weighs nothing).
        count = mask.expand_as(h).sum(dim=dims, keepdim=True).clamp(min=1e-12)
    mean = lambda t: _masked_mean(t, mask, dims, count)  # noqa: E731
    c = h - mean(h)
    var = mean(c * c) + eps
    r = torch.rsqrt(var)
    if dh is None:
        return c * r, None, None
    dc = dh - mean(dh)
    d2c = None if d2h is None else d2h - mean(d2h)
    r3 = r * r * r
    half_dvar = mean(c * dc)  # var' / 2
    half_d2var = mean(dc * dc)  # var'' / 2
    if d2c is not None:
        half_d2var = half_d2var + mean(c * d2c)
    dr = -half_dvar * r3
    d2r = (3 * half_dvar * half_dvar * r * r - half_d2var) * r3
    return mul_jet(c, dc, d2c, r, dr, d2r)


def layer_norm_jet(layer, h, dh, d2h, *, scale_derivatives=True):
    """Jet of ``layer`` (an ``nn.LayerNorm`` over the last axis):
    u = c / sigma with c = h - mean(h), sigma = sqrt(mean(c^2) + eps).
    ``scale_derivatives=False``: the derivatives are left without the
    layer's weight (for a caller that folds it into the next linear map)."""
    u, du, d2u = normalise_jet(h, dh, d2h, (-1,), layer.eps)
    if layer.weight is None:
        return u, du, d2u
    y = u * layer.weight + (0 if layer.bias is None else layer.bias)
    if not scale_derivatives:
        return y, du, d2u
    return y, du * layer.weight, d2u * layer.weight


def zero_filled(jet):
    """A jet with a zero second derivative as a tensor (None inside)."""
    value, velocity, acceleration = jet
    if acceleration is None:
        acceleration = torch.zeros(
            torch.broadcast_shapes(value.shape, velocity.shape),
            dtype=value.dtype,
            device=value.device,
        )
    return value, velocity, acceleration


def split_heads(t, n_heads):
    """(..., tokens, d) -> (..., heads, tokens, d / heads)."""
    return t.unflatten(-1, (n_heads, -1)).transpose(-3, -2)


def merge_heads(t):
    """The inverse of :func:`split_heads`."""
    return t.transpose(-3, -2).flatten(-2)


def heads_first(t, n_heads):
    """(..., m, tokens, d) -> (..., heads, m, tokens, d / heads), laid out in
    memory: the axis ``m`` (a jet's directions, or 1 for its value) sits
    next to the tokens, so :func:`folded_matmul` can fold it into them."""
    return t.unflatten(-1, (n_heads, -1)).movedim(-2, -4).contiguous()


def heads_last(t):
    """The inverse of :func:`heads_first`."""
    return t.movedim(-4, -2).flatten(-2)


def folded_matmul(a, b):
    """``a @ b`` over (..., m, rows, columns) blocks. Where ``a`` has m
    directions and ``b`` one (a point's value), ``a``'s directions are
    folded into its rows: one product per point, and ``b`` is not copied
    once per direction, as broadcasting would."""
    if a.shape[-3] != 1 and b.shape[-3] == 1 and a.is_contiguous():
        out = a.flatten(-3, -2) @ b.squeeze(-3)
        return out.unflatten(-2, a.shape[-3:-1])
    return a @ b


def attention_scores(q, k):
    """q k^T over (..., m, tokens, d) blocks, folded as :func:`folded_matmul`
    whichever side has the directions."""
    if q.shape[-3] == 1 and k.shape[-3] != 1:
        return folded_matmul(k, q.transpose(-2, -1)).transpose(-2, -1)
    return folded_matmul(q, k.transpose(-2, -1))


def mul_jet(a, da, d2a, b, db, d2b):
    """Jet of the elementwise product a * b (fused multiply-adds)."""
    first = _accumulate(da * b, a, db)
    if d2a is not None:
        second = _accumulate(d2a * b, da, db, 2.0)
    else:
        second = torch.mul(da, db).mul_(2.0)
    if d2b is not None:
        second = _accumulate(second, a, d2b)
    return a * b, first, second


def product_jet(a, da, d2a, b, db, d2b, product):
    """Jet of product(a, b) for a bilinear ``product``."""
    second = product(da, db).mul_(2.0)
    if d2a is not None:
        second = sum_into(second, product(d2a, b))
    if d2b is not None:
        second = sum_into(second, product(a, d2b))
    return product(a, b), sum_into(product(da, b), product(a, db)), second


def sum_into(out, other):
    """out + other, in place as in :func:`_accumulate`."""
    if _writable(out, other.shape):
        return out.add_(other)
    return out + other


def softmax_jet(s, ds, d2s):
    p = torch.softmax(s, dim=-1)
    # (log p)' = s' - <p, s'>, so p' = p c and p'' = p' c + p c'.
    c = ds - (p * ds).sum(-1, keepdim=True)
    dp = p * c
    dc = (dp * ds).sum(-1, keepdim=True).neg_()
    if d2s is not None:
        dc = (d2s - (p * d2s).sum(-1, keepdim=True)).add_(dc)
    return p, dp, _accumulate(dp * c, p, dc)

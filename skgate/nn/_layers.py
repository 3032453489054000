"""The layers of the strong design for series, each with its exact jet: a
convolutional input encoding (:class:`ConvEmbedding`) and a transformer
block's feed-forward sublayer (:class:`FeedForward`). The relative position
bias of attention is part of :class:`~skgate.nn.GatedAttentionBlock`.

These layers are trained through ``torch.func`` on the module itself (see
:mod:`skgate.nn._functional`), never through a hand-written copy.
"""

import contextlib
import contextvars
import math

import torch
import torch.nn.functional as F
from torch import nn

from .._checks import check_count
from ._checks import check_dropout, check_option
from ._jets import gelu_jet, linear_jet, map_parts, normalise_jet

#: The generator dropout draws from in this thread's context (None: torch's
#: own ``F.dropout``, from the process-wide generator). Set by
#: :func:`dropout_noise` for one model's training step.
_NOISE = contextvars.ContextVar("skgate_dropout_noise", default=None)


@contextlib.contextmanager
def dropout_noise(generator):
    """Every :class:`Dropout` of this thread draws its masks from
    ``generator`` for the duration (a fit's own: torch's process-wide
    generator is neither read nor changed, and fits in other threads draw
    from theirs)."""
    token = _NOISE.set(generator)
    try:
        yield
    finally:
        _NOISE.reset(token)


class Dropout(nn.Dropout):
    """``nn.Dropout`` whose masks come from the generator
    :func:`dropout_noise` names, when one is named (else torch's own)."""

    def forward(self, x):
        generator = _NOISE.get()
        if not self.training or self.p == 0 or generator is None:
            return super().forward(x)
        keep = torch.rand(x.shape, generator=generator, dtype=x.dtype) >= self.p
        return x * keep.to(x.device) / (1 - self.p)


#: The original stem at full time resolution (``shape="full"``): (odd
#: kernel size, width as a share of d_model) per layer: FCN's three layers
#: (Wang et al. 2017) with shorter kernels and 16 channels at d_model=64.
STEM = ((7, 0.25), (5, 0.25), (3, 0.25))
#: The stem's fewest channels (a LayerNorm over 1 channel outputs its bias
#: whatever the input; over 2, nearly a sign).
STEM_WIDTH = 8
#: What the stem's normalisation can be: "batch", a mean and variance per
#: channel over the rows of a training batch and their valid time points
#: (BatchNorm that padding and rows of weight 0 never enter), and in
#: evaluation a fixed affine map by the training rows' statistics
#: (:meth:`ConvEmbedding.set_population_statistics`); "group", one mean and variance per
#: series over its channels and time points (GroupNorm with one group, over
#: the series' own time points only); "layer", a mean and variance per time
#: point over its channels (LayerNorm over channels, which divides out each
#: time point's amplitude).
STEM_NORMS = ("batch", "group", "layer")
#: How the stem reaches the token grid: "pooled", a convolution at full time
#: resolution, a max-pool, a strided convolution over overlapping patches
#: and a convolution at token resolution (each convolution followed by the
#: norm and GELU); "full", three convolutions at full resolution (``STEM``)
#: then one strided convolution over overlapping patches.
STEM_SHAPES = ("pooled", "full")


def stem_factors(patch_size):
    """``(pool, stride)`` of the pooled stem for ``patch_size`` time points
    per token: ``pool * stride == patch_size`` (so that pooling windows and
    tokens never straddle a series' end), the pool the smallest divisor of
    ``patch_size`` at least its square root (9 -> (3, 3), 49 -> (7, 7),
    8 -> (4, 2))."""
    pool = next(
        p
        for p in range(1, patch_size + 1)
        if patch_size % p == 0 and p * p >= patch_size
    )
    return pool, patch_size // pool


class StemNorm(nn.Module):
    """The stem's normalisation of (..., channels, time) with a learned scale
    and shift per channel (ones and zeros at first): over a training
    batch's rows and valid time points per channel ("batch"), over each
    series' channels and valid time points ("group"), or over the channels
    at each time point ("layer"); see :data:`STEM_NORMS`.

    "batch" normalises by the batch's statistics while training and by the
    fixed ``running_mean`` and ``running_var`` in evaluation (a per-channel
    affine map): the training rows' statistics, which
    :meth:`ConvEmbedding.set_population_statistics` sets after training
    (zeros and ones at first). ``running_count`` is the total weight of the
    time points they were read from, so that statistics set again with
    ``accumulate=True`` (after a ``partial_fit``) pool the new rows with
    those before.

    Examples
    --------
    >>> import torch
    >>> StemNorm(4, "group")(torch.randn(2, 4, 10)).shape
    torch.Size([2, 4, 10])
    """

    def __init__(self, channels, kind="group", eps=1e-5):
        super().__init__()
        check_option("norm", kind, STEM_NORMS)
        self.kind, self.eps = kind, eps
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        if kind == "batch":
            self.register_buffer("running_mean", torch.zeros(channels))
            self.register_buffer("running_var", torch.ones(channels))
            self.register_buffer("running_count", torch.zeros(channels))

    def reset_parameters(self):
        """The scale and shift as at construction (ones and zeros), and a
        batch norm's evaluation statistics (zeros and ones): no draws."""
        nn.init.ones_(self.weight)
        nn.init.zeros_(self.bias)
        if self.kind == "batch":
            nn.init.zeros_(self.running_mean)
            nn.init.ones_(self.running_var)
            nn.init.zeros_(self.running_count)

    def _dims(self, h):
        if self.kind == "batch":  # every axis but the channels'
            return tuple(i for i in range(h.ndim) if i != h.ndim - 2)
        return (-2, -1) if self.kind == "group" else (-2,)

    @property
    def fixed(self):
        """Whether the norm is a fixed affine map (batch statistics in
        evaluation)."""
        return self.kind == "batch" and not self.training

    def forward(self, h, mask=None):
        # h: (..., channels, time); mask: (..., 1, time) or None, the weight
        # of each time point in the statistics (0 at padding, and for
        # "batch" at rows of weight 0).
        if self.fixed:
            return self.jet(h, None, None)[0]
        if self.kind == "batch":
            return self._batch_normed(h, mask)
        mask = None if self.kind == "layer" else mask
        u = normalise_jet(h, None, None, self._dims(h), self.eps, mask)[0]
        return u * self.weight[:, None] + self.bias[:, None]

    def _batch_normed(self, h, mask):
        # The statistics of the batch (weighted by mask), then one affine map
        # per channel: fewer passes over the full-resolution activations.
        dims = self._dims(h)
        if mask is None:
            var, mean = torch.var_mean(h, dim=dims, correction=0, keepdim=True)
        else:
            count = mask.sum(dim=dims, keepdim=True).clamp(min=1e-12)
            mean = (h * mask).sum(dim=dims, keepdim=True) / count
            centred = h - mean
            var = (centred * centred * mask).sum(dim=dims, keepdim=True) / count
        scale = self.weight[:, None] * torch.rsqrt(var + self.eps)
        return torch.addcmul(self.bias[:, None] - mean * scale, h, scale)

    def statistics(self, h, mask=None):
        """Per channel, the weighted sums of ``h``, of its square and of the
        weights over every axis but the channels' (float64): what the
        population statistics add up."""
        dims = self._dims(h)
        h = h.double()
        m = torch.ones_like(h[..., :1, :]) if mask is None else mask.double()
        m = m.expand_as(h)
        return (h * m).sum(dims), (h * h * m).sum(dims), m.sum(dims)

    def jet(self, h, dh, d2h):
        """The normalised ``h`` and its first and second derivatives along a
        line (``dh``, ``d2h``; None: zero), in evaluation: a batch norm is
        then affine (its derivatives scaled per channel), a group or layer
        norm bends (:func:`normalise_jet`)."""
        if self.kind == "batch":
            # Evaluation: (h - mean) / sqrt(var + eps) * weight + bias, affine.
            scale = self.weight * torch.rsqrt(self.running_var + self.eps)
            shift = self.bias - self.running_mean * scale
            scale, shift = scale[:, None], shift[:, None]
            return (
                h * scale + shift,
                None if dh is None else dh * scale,
                None if d2h is None else d2h * scale,
            )
        u, du, d2u = normalise_jet(h, dh, d2h, self._dims(h), self.eps)
        scale = self.weight[:, None]
        return (
            u * scale + self.bias[:, None],
            du * scale,
            None if d2u is None else d2u * scale,
        )

    def extra_repr(self):
        return f"{self.weight.shape[0]}, kind={self.kind!r}"


def _conv_jet(layer, h, dh, d2h):
    """Jet of a ``Conv1d`` (a linear map in time) on channel-first parts
    (..., channels, time) with leading axes of any shape: the bias enters
    the value alone."""

    def apply(t, bias):
        lead = t.shape[:-2]
        out = F.conv1d(
            t.reshape(-1, *t.shape[-2:]),
            layer.weight,
            bias,
            stride=layer.stride,
            padding=layer.padding,
        )
        return out.reshape(*lead, *out.shape[-2:])

    return (
        apply(h, layer.bias),
        apply(dh, None),
        None if d2h is None else apply(d2h, None),
    )


def _channels_last(jet):
    return map_parts(lambda t: t.transpose(-1, -2), jet)


def _max_pool_jet(pool, h, dh, d2h):
    """Jet of a max-pool over windows of ``pool`` time points (piecewise the
    identity on each window's largest entry: its derivatives are that
    entry's), on (..., channels, time) with leading axes."""
    lead = h.shape[:-2]
    value, index = F.max_pool1d(
        h.reshape(-1, *h.shape[-2:]), pool, pool, return_indices=True
    )
    value, index = (
        value.reshape(*lead, *value.shape[-2:]),
        index.reshape(*lead, *value.shape[-2:]),
    )

    def take(t):
        shape = torch.broadcast_shapes(t.shape[:-1], index.shape[:-1])
        return t.expand(*shape, t.shape[-1]).gather(
            -1, index.expand(*shape, index.shape[-1])
        )

    return value, take(dh), None if d2h is None else take(d2h)


class ConvEmbedding(nn.Module):
    """Convolutional input encoding of series, down to one token per patch
    of ``patch_size`` time points.

    ``shape="pooled"`` (the default): a ``Conv1d`` of kernel 7 at full time
    resolution (``width`` channels), a max-pool over ``pool`` time points, a
    strided ``Conv1d`` over overlapping patches of the pooled series
    (``stride`` steps, kernel ``2 * stride + 1``; kernel 5 at stride 1) to
    ``d_model`` channels, and a ``Conv1d`` of kernel 3 at token resolution;
    each convolution followed by :class:`StemNorm` and GELU (``pool *
    stride == patch_size``, :func:`stem_factors`). ``shape="full"``: three
    ``Conv1d`` layers at full resolution (kernels 7, 5, 3; ``d_model / 4``
    channels, at least 8), each followed by the norm and GELU, then a
    strided convolution over overlapping patches (kernel ``patch_size + 2 *
    (patch_size // 2)``, stride ``patch_size``).

    Parameters
    ----------
    n_channels : int
        Channels of a series.
    patch_size : int
        Time points per token.
    d_model : int
        Width of the tokens.
    norm : {"batch", "group", "layer"}, default="batch"
        The normalisation after each convolution (:data:`STEM_NORMS`).
    shape : {"pooled", "full"}, default="pooled"
        The stem's layers (:data:`STEM_SHAPES`).
    width : int or None, default=None
        Channels at full resolution; None: ``d_model / 4``, at least 8.

    Notes
    -----
    A row of the network is a series' tokens laid out time-major
    (``token_dim = patch_size * n_channels``); this layer reads it as
    (time, channels). Time points of padding tokens (``valid`` False) are
    set to zero after every layer and left out of the norms' statistics,
    and pooling windows never straddle a token's end, so a series reads the
    same beside longer ones as alone, where convolution pads it with zeros.

    Examples
    --------
    >>> import torch
    >>> embedding = ConvEmbedding(2, 4, 16)
    >>> embedding(torch.zeros(3, 40)).shape      # 20 time points of 2 channels
    torch.Size([3, 5, 16])
    """

    def __init__(
        self,
        n_channels,
        patch_size,
        d_model,
        *,
        norm="batch",
        shape="pooled",
        width=None,
    ):
        super().__init__()
        for name, value in (
            ("n_channels", n_channels),
            ("patch_size", patch_size),
            ("d_model", d_model),
        ):
            check_count(name, value, 1)
        check_option("norm", norm, STEM_NORMS)
        check_option("shape", shape, STEM_SHAPES)
        if width is not None:
            check_count("width", width, 1)
        self.n_channels, self.patch_size = int(n_channels), int(patch_size)
        self.shape, self.norm_kind = shape, norm
        default_width = max(STEM_WIDTH, round(0.25 * d_model))
        width = default_width if width is None else int(width)
        if shape == "pooled":
            self.pool, stride = stem_factors(self.patch_size)
            wide = 2 * stride + 1 if stride > 1 else 5
            layers = [
                (n_channels, width, 7, 1),
                (width, d_model, wide, stride),
                (d_model, d_model, 3, 1),
            ]
            self.convs = nn.ModuleList(
                nn.Conv1d(i, o, k, stride=s, padding=k // 2, bias=False)
                for i, o, k, s in layers
            )
            self.norms = nn.ModuleList(StemNorm(o, norm) for _, o, _, _ in layers)
            self.patch = None
            return
        self.pool = 1
        widths = [max(STEM_WIDTH, round(share * d_model)) for _, share in STEM]
        if width is not None:
            widths = [width] * len(STEM)
        ins = [n_channels, *widths[:-1]]
        # Odd kernels with zero padding on both sides keep the length.
        self.convs = nn.ModuleList(
            nn.Conv1d(i, o, k, padding=k // 2)
            for (k, _), i, o in zip(STEM, ins, widths, strict=True)
        )
        self.norms = nn.ModuleList(StemNorm(o, norm) for o in widths)
        # A kernel of the patch and half a patch on either side (rounded
        # down), padded so that series of n patches make n tokens.
        half = patch_size // 2
        self.patch = nn.Conv1d(
            widths[-1], d_model, patch_size + 2 * half, stride=patch_size, padding=half
        )

    def reset_parameters(self, generator=None):
        """PyTorch's own ``Conv1d`` initialisation, drawn from ``generator``."""
        convs = [*self.convs] + ([] if self.patch is None else [self.patch])
        for conv in convs:
            nn.init.kaiming_uniform_(conv.weight, a=math.sqrt(5), generator=generator)
            if conv.bias is not None:
                fan_in = conv.weight.shape[1] * conv.weight.shape[2]
                bound = 1 / math.sqrt(fan_in)
                nn.init.uniform_(conv.bias, -bound, bound, generator=generator)
        for norm in self.norms:
            norm.reset_parameters()

    def _time(self, x):
        """Rows (..., tokens * patch_size * n_channels) as (..., n_channels, time)."""
        return x.unflatten(-1, (-1, self.n_channels)).transpose(-1, -2)

    def _masks(self, valid, dtype):
        """Per layer, the mask of a series' own time points at that layer's
        output resolution ((..., 1, time), 1 or 0), or None without padding."""
        if valid is None:
            return [None] * len(self.convs)
        if self.patch is not None:
            steps = [self.patch_size] * len(self.convs)
        else:
            steps = [self.patch_size, 1, 1]  # full resolution, then tokens
        return [
            valid.repeat_interleave(s, dim=-1)[..., None, :].to(dtype) for s in steps
        ]

    def _layers(self, x, valid, row_weights, last=None):
        """The stem on rows ``x``; with ``last``, stopped at layer ``last``'s
        convolution, whose output and norm weights it returns instead."""
        h = self._time(x)
        masks = self._masks(valid, h.dtype)
        layers = zip(self.convs, self.norms, masks, strict=True)
        for i, (conv, norm, mask) in enumerate(layers):
            weights = mask
            if row_weights is not None and norm.kind == "batch":
                # A row weighs in a batch's statistics as in the loss: rows
                # of weight 0 (an epoch's filler rows) not at all.
                rows = row_weights.to(h.dtype)[..., None, None]
                weights = rows if mask is None else mask * rows
            z = conv(h)
            if i == last:
                return z, weights
            h = F.gelu(norm(z, weights))
            if mask is not None:
                h = h * mask
            if i == 0 and self.pool > 1:
                # Windows inside one token: padding never meets a series' values.
                h = F.max_pool1d(h, self.pool, self.pool)
        if self.patch is not None:
            h = self.patch(h)
        return h.transpose(-1, -2)

    def forward(self, x, valid=None, row_weights=None):
        # x: (batch, time * n_channels), time-major -> (batch, tokens, d_model)
        # valid: (batch, tokens) or None, False at padding tokens.
        # row_weights: (batch,) or None, each row's weight in a "batch"
        # norm's training statistics (None: 1 each).
        return self._layers(x, valid, row_weights)

    @property
    def batch_normed(self):
        """Whether the stem's norms are "batch" norms."""
        return any(norm.kind == "batch" for norm in self.norms)

    def set_population_statistics(
        self, x, valid=None, row_weights=None, chunk=256, accumulate=False
    ):
        """Set each "batch" norm's ``running_mean`` and ``running_var`` to the
        statistics of rows ``x`` (their valid time points, weighted by
        ``row_weights``), layer after layer, each layer's input computed by
        the layers before it in evaluation (as a prediction computes it), in
        chunks of ``chunk`` rows. ``accumulate``: pool them with the
        statistics set before (of ``running_count``'s weight), as one
        population: the mean and variance of both sets of time points, each
        read through the network as it was when it was set."""
        before = self.training
        self.eval()
        try:
            with torch.no_grad():
                for i, norm in enumerate(self.norms):
                    if norm.kind == "batch":
                        self._set_statistics(
                            i, norm, x, valid, row_weights, chunk, accumulate
                        )
        finally:
            self.train(before)

    def _set_statistics(self, i, norm, x, valid, row_weights, chunk, accumulate):
        total = None
        for start in range(0, len(x), chunk):
            part = slice(start, start + chunk)
            z, weights = self._layers(
                x[part],
                None if valid is None else valid[part],
                None if row_weights is None else row_weights[part],
                last=i,
            )
            sums = norm.statistics(z, weights)
            total = (
                sums
                if total is None
                else [a + b for a, b in zip(total, sums, strict=True)]
            )
        first, second, count = total
        before = getattr(norm, "running_count", None)  # None: pickled before it
        if accumulate and before is not None and bool(before.gt(0).any()):
            # Pooled moments: the sums the earlier statistics stand for, added.
            n = before.double()
            old_mean, old_var = norm.running_mean.double(), norm.running_var.double()
            first = first + n * old_mean
            second = second + n * (old_var + old_mean * old_mean)
            count = count + n
        if before is not None:
            norm.running_count.copy_(count.to(before.dtype))
        count = count.clamp(min=1e-12)
        mean = first / count
        var = (second / count - mean * mean).clamp(min=0.0)
        norm.running_mean.copy_(mean.to(norm.running_mean.dtype))
        norm.running_var.copy_(var.to(norm.running_var.dtype))

    def jet(self, x, dx, d2x):
        """The tokens of ``x`` and their first and second derivatives along
        a line with velocity ``dx`` and acceleration ``d2x`` (None: zero);
        the parts broadcast as the network's jets do."""
        jet = map_parts(self._time, (x, dx, d2x))
        for i, (conv, norm) in enumerate(zip(self.convs, self.norms, strict=True)):
            jet = gelu_jet(*norm.jet(*_conv_jet(conv, *jet)))
            if i == 0 and self.pool > 1:
                jet = _max_pool_jet(self.pool, *jet)
        if self.patch is not None:
            jet = _conv_jet(self.patch, *jet)
        return _channels_last(jet)


class FeedForward(nn.Module):
    """A transformer block's feed-forward sublayer, ``W_2 GELU(W_1 x + b_1)
    + b_2`` on each token, with ``d_ff`` hidden units and dropout on its
    output.

    Examples
    --------
    >>> import torch
    >>> FeedForward(8, 32)(torch.zeros(2, 3, 8)).shape
    torch.Size([2, 3, 8])
    """

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        check_count("d_model", d_model, 1)
        check_count("d_ff", d_ff, 1)
        check_dropout(dropout)
        self.inner = nn.Linear(d_model, d_ff)
        self.outer = nn.Linear(d_ff, d_model)
        self.dropout = Dropout(dropout)

    def forward(self, x):
        # x: (..., tokens, d_model) -> (..., tokens, d_model)
        return self.dropout(self.outer(F.gelu(self.inner(x))))

    def jet(self, x, dx, d2x):
        """Jet of the sublayer in evaluation mode (dropout is the identity)."""
        return linear_jet(self.outer, *gelu_jet(*linear_jet(self.inner, x, dx, d2x)))

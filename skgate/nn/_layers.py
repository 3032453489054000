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
from ._checks import check_dropout
from ._jets import gelu_jet, layer_norm_jet, linear_jet, map_parts

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


#: The convolutional stem at full time resolution: (odd kernel size, width
#: as a share of d_model) per layer: FCN's three layers (Wang et al. 2017)
#: with shorter kernels and 16 channels at d_model=64, which one CPU core
#: steps in about 0.07 s on 64 series of 1,460 points (32 channels took
#: 0.16 s; benchmarks/results/SPEED.md measures the design).
STEM = ((7, 0.25), (5, 0.25), (3, 0.25))
#: The stem's fewest channels (a LayerNorm over 1 channel outputs its bias
#: whatever the input; over 2, nearly a sign).
STEM_WIDTH = 8


def _channel_norm(norm, h):
    """``norm`` (a LayerNorm over channels) at every time point of ``h``
    (..., channels, time), computed in that layout (no transposed copies):
    LayerNorm's own arithmetic, mean and biased variance over channels."""
    mean = h.mean(dim=-2, keepdim=True)
    centred = h - mean
    var = (centred * centred).mean(dim=-2, keepdim=True)
    u = centred * torch.rsqrt(var + norm.eps)
    return u * norm.weight[:, None] + norm.bias[:, None]


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


class ConvEmbedding(nn.Module):
    """Convolutional input encoding of series: a stack of ``Conv1d`` layers,
    each followed by LayerNorm over its channels and GELU, at full time
    resolution (zero padding keeps the length; ``d_model / 4`` channels, at
    least 8), then a strided convolution over overlapping patches down to
    the token grid.

    Token ``j`` reads time points ``j * patch_size - patch_size // 2`` to
    ``(j + 1) * patch_size + patch_size // 2`` (kernel ``patch_size + 2 *
    (patch_size // 2)``, stride ``patch_size``): its own patch and half of
    each neighbour.

    Parameters
    ----------
    n_channels : int
        Channels of a series.
    patch_size : int
        Time points per token.
    d_model : int
        Width of the tokens.

    Notes
    -----
    A row of the network is a series' tokens laid out time-major
    (``token_dim = patch_size * n_channels``); this layer reads it as
    (time, channels). Time points of padding tokens (``valid`` False) are
    set to zero after every layer, so a series reads the same beside longer
    ones as alone, where convolution pads it with zeros.

    Examples
    --------
    >>> import torch
    >>> embedding = ConvEmbedding(2, 4, 16)
    >>> embedding(torch.zeros(3, 40)).shape      # 20 time points of 2 channels
    torch.Size([3, 5, 16])
    """

    def __init__(self, n_channels, patch_size, d_model):
        super().__init__()
        for name, value in (
            ("n_channels", n_channels),
            ("patch_size", patch_size),
            ("d_model", d_model),
        ):
            check_count(name, value, 1)
        self.n_channels, self.patch_size = int(n_channels), int(patch_size)
        # LayerNorm over 1 channel is a constant and over 2 a sign: at least
        # STEM_WIDTH channels whatever d_model.
        widths = [max(STEM_WIDTH, round(share * d_model)) for _, share in STEM]
        ins = [n_channels, *widths[:-1]]
        # Odd kernels with zero padding on both sides keep the length.
        self.convs = nn.ModuleList(
            nn.Conv1d(i, o, k, padding=k // 2)
            for (k, _), i, o in zip(STEM, ins, widths, strict=True)
        )
        self.norms = nn.ModuleList(nn.LayerNorm(o) for o in widths)
        # A kernel of the patch and half a patch on either side (rounded
        # down), padded so that series of n patches make n tokens.
        half = patch_size // 2
        self.patch = nn.Conv1d(
            widths[-1], d_model, patch_size + 2 * half, stride=patch_size, padding=half
        )

    def reset_parameters(self, generator=None):
        """PyTorch's own ``Conv1d`` initialisation, drawn from ``generator``."""
        for conv in (*self.convs, self.patch):
            nn.init.kaiming_uniform_(conv.weight, a=math.sqrt(5), generator=generator)
            fan_in = conv.weight.shape[1] * conv.weight.shape[2]
            bound = 1 / math.sqrt(fan_in)
            nn.init.uniform_(conv.bias, -bound, bound, generator=generator)
        for norm in self.norms:
            norm.reset_parameters()

    def _time(self, x):
        """Rows (..., tokens * patch_size * n_channels) as (..., n_channels, time)."""
        return x.unflatten(-1, (-1, self.n_channels)).transpose(-1, -2)

    def forward(self, x, valid=None):
        # x: (batch, time * n_channels), time-major -> (batch, tokens, d_model)
        # valid: (batch, tokens) or None, False at padding tokens.
        h = self._time(x)
        mask = None
        if valid is not None:
            mask = valid.repeat_interleave(self.patch_size, dim=-1)[..., None, :]
            mask = mask.to(h.dtype)
        for conv, norm in zip(self.convs, self.norms, strict=True):
            h = F.gelu(_channel_norm(norm, conv(h)))
            if mask is not None:
                h = h * mask
        return self.patch(h).transpose(-1, -2)

    def jet(self, x, dx, d2x):
        """The tokens of ``x`` and their first and second derivatives along
        a line with velocity ``dx`` and acceleration ``d2x`` (None: zero);
        the parts broadcast as the network's jets do."""
        jet = map_parts(self._time, (x, dx, d2x))
        for conv, norm in zip(self.convs, self.norms, strict=True):
            jet = _channels_last(_conv_jet(conv, *jet))
            jet = _channels_last(gelu_jet(*layer_norm_jet(norm, *jet)))
        return _channels_last(_conv_jet(self.patch, *jet))


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

"""The torch modules: a gated attention block and the network around it
(the map whose curvature the geometry measures is :mod:`skgate.nn._maps`)."""

import math
from numbers import Integral

import torch
import torch.nn.functional as F
from torch import nn

from .._checks import check_count
from .._options import (
    ATTENTIONS,
    EMBEDDINGS,
    GATE_GAIN,
    HEADS,
    LAYERS,
    POSITIONS,
)
from ._checks import (
    check_architecture,
    check_option,
    check_real,
    check_sublayers,
    check_tokens,
)
from ._gates import check_gate
from ._heads import build_head, head_jet
from ._jets import (
    attention_heads,
    attention_scores,
    folded_matmul,
    heads_first,
    heads_last,
    layer_norm_jet,
    linear_jet,
    linear_jets,
    map_parts,
    merge_heads,
    product_jet,
    scores_divisor,
    softmax_jet,
    split_heads,
    sum_into,
    zero_filled,
)
from ._layers import STEM_WIDTH, ConvEmbedding, Dropout, FeedForward

#: Series longer than this many time points get a narrower stem by default.
LONG_SERIES = 512


def _reset_linear(layer, generator):
    """PyTorch's own ``nn.Linear`` initialisation, drawn from ``generator``."""
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
    if layer.bias is not None:
        bound = 1 / math.sqrt(layer.in_features) if layer.in_features > 0 else 0
        nn.init.uniform_(layer.bias, -bound, bound, generator=generator)


#: The Tensor (and Module) method that converts to a dtype, for advice.
_DTYPE_METHODS = {
    torch.float16: "half",
    torch.bfloat16: "bfloat16",
    torch.float32: "float",
    torch.float64: "double",
}


def _conversion(dtype):
    """The call that converts a tensor or a module to ``dtype``: ".float()"."""
    method = _DTYPE_METHODS.get(dtype)
    return f".{method}()" if method else f".to({dtype})"


class GatedAttentionBlock(nn.Module):
    """Scaled dot-product attention (one or several heads) with an output gate.

    Parameters
    ----------
    d_model : int
        Width of the tokens.
    gate : str, default="multiplicative"
        A registered gate (:data:`GATES`; add one with :func:`register_gate`).
        Built in: "multiplicative", ``a * (1 + alpha * tanh(x W_g + b_g))``;
        "silu", ``silu(a)``; "none", ``a``; "sigmoid", ``a * sigmoid(x W_g +
        b_g)`` elementwise (Qiu et al. 2025, position G1); "sigmoid_head",
        one sigmoid gate per head (``W_g`` of shape (d_model, n_heads)).
        ``x`` is the block's input at the same token (after the LayerNorm
        with ``norm="layer"``).
    alpha : float, default=1.0
        Gate strength of a gate registered with ``strength=True`` (the
        multiplicative gate: its range is ``(1 - alpha, 1 + alpha)``;
        ``alpha=0`` is exactly ungated attention); the other gates ignore it.
    gate_gain : float, default=2.0 (:data:`GATE_GAIN`)
        Gain of the gate projection's Xavier-uniform initialisation (weights
        uniform in ``+-gate_gain * sqrt(6 / (fan_in + fan_out))``). ``1 /
        sqrt(3)`` gives PyTorch's default ``nn.Linear`` distribution for a
        square projection, from the same random numbers: the study's
        sensitivity check of the initialisation.
    n_heads : int, default=1
        Attention heads; ``d_model`` must be divisible by it. Each head
        attends with its own slice of the query, key and value projections
        (scale ``1 / sqrt(d_model / n_heads)``); the heads' outputs are
        concatenated (no output projection, as with one head).
    residual : bool, default=False
        Return ``h + block(h)`` instead of ``block(h)``.
    norm : {None, "layer"}, default=None
        "layer": pre-LayerNorm, ``h + block(LayerNorm(h))`` (needs
        ``residual=True``). LayerNorm is a nonlinearity: with it even ungated
        attention is curved.
    attention : {"softmax", "fixed", "fixed-causal"}, default="softmax"
        "softmax": the weights ``softmax(q k^T / sqrt(d))`` move with the
        input. "fixed": ``softmax(M)`` of a learned token-mixing matrix ``M``
        per head (``mixing``, shape (n_heads, n_tokens, n_tokens), zeros at
        first: uniform weights), the same for every input, so ungated
        attention is affine in its values (the theorem's premise);
        "fixed-causal": token i mixes tokens 0..i only. Query and key are
        then unused.
    n_tokens : int, optional
        Tokens per sequence: needed by fixed attention (the mixing matrix's
        size) and by relative position (its distances).
    d_ff : int or None, default=None
        A feed-forward sublayer after attention, ``h + FF(h)`` (with
        ``norm="layer"``, ``h + FF(LayerNorm(h))``), of ``d_ff`` hidden
        units (:class:`FeedForward`); needs ``residual=True``.
    dropout : float in [0, 1), default=0.0
        Dropout on the gated attention output and the feed-forward output
        while training.
    relative_position : bool, default=False
        A learned bias per head and per distance ``i - j`` added to the
        attention logits (``relative_bias``, zeros at first; softmax
        attention only).
    projection : bool, default=False
        An output projection ``W_o out + b_o`` (``out_proj``) after the gate,
        mixing the heads (a transformer's attention output projection).

    Examples
    --------
    >>> import torch
    >>> block = GatedAttentionBlock(4, gate="multiplicative", alpha=0.5)
    >>> block(torch.zeros(2, 3, 4)).shape
    torch.Size([2, 3, 4])
    >>> block = GatedAttentionBlock(8, "sigmoid_head", n_heads=2, residual=True,
    ...                             norm="layer")
    >>> block(torch.zeros(2, 3, 8)).shape
    torch.Size([2, 3, 8])
    """

    def __init__(
        self,
        d_model,
        gate="multiplicative",
        alpha=1.0,
        gate_gain=GATE_GAIN,
        *,
        n_heads=1,
        residual=False,
        norm=None,
        attention="softmax",
        n_tokens=None,
        d_ff=None,
        dropout=0.0,
        relative_position=False,
        projection=False,
    ):
        super().__init__()
        check_count("d_model", d_model, 1)
        kind = check_gate(gate)
        check_sublayers(d_ff, dropout, relative_position, residual, attention, n_tokens)
        check_option("attention", attention, ATTENTIONS)
        if attention != "softmax":
            check_count("n_tokens", n_tokens, 1)
        check_real("alpha", alpha, minimum=0.0, strict=False)
        check_real("gate_gain", gate_gain, minimum=0.0, strict=True)
        check_architecture(d_model, n_heads, residual, norm)
        self.d_model = d_model
        self.gate = gate
        # The block keeps the gate itself, not only its name: registering
        # the name anew later does not change a block already built.
        self._gate_kind = kind
        self.alpha = float(alpha)
        self.gate_gain = float(gate_gain)
        self.n_heads = int(n_heads)
        self.residual = bool(residual)
        self.query = nn.Linear(d_model, d_model, bias=False)
        self.key = nn.Linear(d_model, d_model, bias=False)
        self.value = nn.Linear(d_model, d_model, bias=False)
        # The gate's weights exist for every alpha, so that alpha=0 and alpha>0
        # can share one set of weights.
        self.gate_proj = None
        if kind.projected:
            self.gate_proj = nn.Linear(d_model, kind.projection_width(d_model, n_heads))
            self._init_gate(generator=None)
        # LayerNorm's initial weights are fixed (ones and zeros): no draws.
        self.norm = nn.LayerNorm(d_model) if norm == "layer" else None
        self.attention = attention
        # Fixed attention's logits start at 0 (uniform weights): no draws.
        self.mixing = (
            None
            if attention == "softmax"
            else nn.Parameter(torch.zeros(n_heads, n_tokens, n_tokens))
        )
        # The strong design's parts, after today's (which keep their draws).
        # A learned bias per head and per distance i - j, added to the
        # attention logits (zeros at first: no preference).
        self.relative_bias = (
            nn.Parameter(torch.zeros(n_heads, 2 * n_tokens - 1))
            if relative_position
            else None
        )
        self.dropout = Dropout(float(dropout)) if dropout else None
        self.ff_norm = nn.LayerNorm(d_model) if d_ff is not None and norm else None
        self.feed_forward = (
            None if d_ff is None else FeedForward(d_model, d_ff, dropout)
        )
        self.out_proj = nn.Linear(d_model, d_model) if projection else None

    def _init_gate(self, generator):
        # Xavier-uniform with gain 2 (std 2 / sqrt(d_model)) puts the gate's
        # pre-activation at unit scale, in tanh's bend. PyTorch's default
        # (std 1 / sqrt(3 d_model)) leaves it near tanh's linear part, where
        # the gate starts almost affine and learns curvature slowly: on the
        # checkerboard with a linear head, 5-fold accuracy 0.64 -> 0.73
        # (alpha 1.5, defaults, 3 seeds); the linear task is unchanged. The
        # study measures this choice against PyTorch's default (gate_gain
        # 1 / sqrt(3)) on every task. The sigmoid gates share it: 1 +
        # tanh(z) = 2 sigmoid(2 z).
        nn.init.xavier_uniform_(
            self.gate_proj.weight, gain=self.gate_gain, generator=generator
        )

    def reset_parameters(self, generator=None):
        """Draw every weight afresh, as the constructor does, from ``generator``.

        The same draws in the same order as construction: a block built under
        ``torch.manual_seed(s)`` equals one reset from ``Generator().manual_seed(s)``.
        """
        for layer in self.projections:
            _reset_linear(layer, generator)
        if self.gate_proj is not None:
            _reset_linear(self.gate_proj, generator)
            self._init_gate(generator)
        if self.norm is not None:
            self.norm.reset_parameters()
        if self.mixing is not None:
            nn.init.zeros_(self.mixing)
        if self.relative_bias is not None:
            nn.init.zeros_(self.relative_bias)
        if self.ff_norm is not None:
            self.ff_norm.reset_parameters()
        if self.feed_forward is not None:
            _reset_linear(self.feed_forward.inner, generator)
            _reset_linear(self.feed_forward.outer, generator)
        if self.out_proj is not None:
            _reset_linear(self.out_proj, generator)

    @property
    def written_out(self):
        """Whether the training engine's hand-written backward covers this
        block (today's layers); else it trains through ``torch.func``."""
        return (
            self.relative_bias is None
            and self.dropout is None
            and self.feed_forward is None
            and self.out_proj is None
        )

    def position_bias(self, tokens):
        """The relative position bias (n_heads, tokens, tokens): entry (i, j)
        is the bias of distance i - j; a shorter sequence reads the central
        distances."""
        n = (self.relative_bias.shape[-1] + 1) // 2
        index = torch.arange(tokens, device=self.relative_bias.device)
        distance = index[:, None] - index[None, :] + n - 1
        return self.relative_bias[:, distance]

    def mixing_weights(self, tokens=None):
        """Fixed attention's weights (n_heads, n_tokens, n_tokens): the
        softmax over keys of ``mixing`` (causal: of its lower triangle); of
        its first ``tokens`` rows and columns for a shorter sequence."""
        logits = self.mixing if tokens is None else self.mixing[:, :tokens, :tokens]
        if self.attention == "fixed-causal":
            above = torch.ones_like(logits, dtype=torch.bool).triu(1)
            logits = logits.masked_fill(above, float("-inf"))
        return torch.softmax(logits, dim=-1)

    def _mix(self, v):
        """Fixed attention of values ``v`` (..., tokens, d_model)."""
        weights = self.mixing_weights(v.shape[-2])
        return merge_heads(weights @ split_heads(v, self.n_heads))

    def _attention(self, x, padding=None):
        """Attention of the tokens ``x`` (..., tokens, d_model) to each other;
        ``padding`` (..., tokens), True at tokens no token attends to."""
        if self.mixing is None and (
            padding is not None or self.relative_bias is not None
        ):
            return self._biased_attention(x, padding)
        if x.shape[-2] == 1:
            # One token attends to itself with weight softmax([s]) = 1 exactly,
            # in every head: a = v, whatever q and k are (copied tokens).
            return self.value(x)
        if self.mixing is not None:
            return self._mix(self.value(x))
        return attention_heads(*(p(x) for p in self.projections), self.n_heads)

    def _biased_attention(self, x, padding):
        # Softmax attention with the relative position bias in its logits and
        # padding keys masked out (the strong design's; vmap-safe: no branch
        # on values).
        q, k, v = (split_heads(p(x), self.n_heads) for p in self.projections)
        scores = q @ k.transpose(-2, -1) / scores_divisor(self.d_model, self.n_heads)
        if self.relative_bias is not None:
            scores = scores + self.position_bias(x.shape[-2])
        if padding is not None:
            scores = scores.masked_fill(padding[..., None, None, :], float("-inf"))
        return merge_heads(torch.softmax(scores, dim=-1) @ v)

    @property
    def gate_kind(self):
        """The :class:`Gate` this block was built with (the registry's entry
        for ``gate`` at the time)."""
        return self._gate_kind

    def _gated(self, a, x):
        """The attention output ``a`` through the gate (computed from ``x``)."""
        z = None if self.gate_proj is None else self.gate_proj(x)
        return self.gate_kind.forward(a, z, self.alpha, self.n_heads)

    def _check_input(self, h, *, leading_axes=False):
        """The tokens a block takes: (batch, tokens, d_model) (with
        ``leading_axes``, more axes before them, as the net's jet broadcasts
        points against directions), in the dtype of the block's weights, and
        no more tokens than fixed attention's mixing matrix has (fewer are a
        shorter sequence, mixed by its first rows and columns). Shape and
        dtype comparisons only: forward runs it every call."""
        rank_ok = h.ndim >= 3 if leading_axes else h.ndim == 3
        if not rank_ok or h.shape[-1] != self.d_model:
            raise ValueError(
                f"h must have shape (batch, tokens, {self.d_model}) (d_model="
                f"{self.d_model}); got {tuple(h.shape)}."
            )
        self._check_dtype("h", h)
        if self.mixing is not None and h.shape[-2] > self.mixing.shape[-1]:
            raise ValueError(
                f"h has {h.shape[-2]} tokens; attention={self.attention!r} mixes "
                f"at most n_tokens={self.mixing.shape[-1]} (allowed: 1 to "
                f"{self.mixing.shape[-1]} tokens)."
            )

    def _check_dtype(self, name, tensor):
        """A TypeError naming ``name`` unless ``tensor`` has the dtype of the
        block's weights (torch would say only "expected m1 and m2 to have
        the same dtype")."""
        dtype = self.value.weight.dtype
        if tensor.dtype == dtype:
            return
        advice = f"pass {name}{_conversion(dtype)}"
        if tensor.dtype.is_floating_point:
            advice += f", or convert the block with {_conversion(tensor.dtype)}"
        raise TypeError(
            f"{name} has dtype {tensor.dtype}; the block computes in {dtype}: {advice}."
        )

    def forward(self, h, padding=None):
        # h: (batch, tokens, d_model) -> (batch, tokens, d_model)
        # padding: (batch, tokens) or None, True at a sequence's padding tokens
        self._check_input(h)
        x = h if self.norm is None else self.norm(h)
        out = self._gated(self._attention(x, padding), x)
        if self.out_proj is not None:
            out = self.out_proj(out)
        if self.dropout is not None:
            out = self.dropout(out)
        h = h + out if self.residual else out
        if self.feed_forward is None:
            return h
        return h + self.feed_forward(h if self.ff_norm is None else self.ff_norm(h))

    def jet(self, h, dh, d2h):
        """The block's output and its first and second derivatives along a line.

        ``dh`` and ``d2h`` are the first and second derivatives of the input
        ``h`` (all of shape (batch, tokens, d_model), or broadcasting against
        it; ``d2h`` None: zero); returns the same triple for the output,
        computed by the chain rule through each operation.
        """
        self._check_input(h, leading_axes=True)
        self._check_dtype("dh", dh)
        if d2h is not None:
            self._check_dtype("d2h", d2h)
        x, norm_weight = (h, dh, d2h), None
        if self.norm is not None:
            # The LayerNorm's weight is folded into the projections (it only
            # feeds them): two passes over the derivatives fewer.
            x = layer_norm_jet(self.norm, h, dh, d2h, scale_derivatives=False)
            norm_weight = self.norm.weight
        # One token (attention weight 1) or fixed weights: a is linear in v.
        copied = x[0].shape[-2] == 1 or self.mixing is not None
        # Every projection of x in one matrix product per part of the jet
        # (the query scaled through its weights).
        layers = [self.value] if copied else list(self.projections)
        query_factor = 1 / scores_divisor(self.d_model, self.n_heads)
        factors = [1.0] if copied else [query_factor, 1.0, 1.0]
        if self.gate_proj is not None:
            layers.append(self.gate_proj)
            factors.append(1.0)
        projected = linear_jets(layers, factors, *x, derivative_scale=norm_weight)
        if not copied:
            a = self._attention_jet(*projected[:3])
        elif self.mixing is not None and x[0].shape[-2] > 1:
            a = map_parts(self._mix, projected[0])  # constant weights: P v, P v', P v''
        else:
            a = projected[0]
        z = projected[-1] if self.gate_proj is not None else None
        out = self.gate_kind.jet(a, z, self.alpha, self.n_heads)
        if self.out_proj is not None:
            out = linear_jet(self.out_proj, *out)
        if self.residual:
            second = out[2] if d2h is None else sum_into(out[2], d2h)
            out = h + out[0], sum_into(out[1], dh), second
        if self.feed_forward is None:
            return out
        # Evaluation mode: dropout is the identity.
        x = out if self.ff_norm is None else layer_norm_jet(self.ff_norm, *out)
        ff = self.feed_forward.jet(*x)
        second = ff[2] if out[2] is None else sum_into(ff[2], out[2])
        return out[0] + ff[0], sum_into(ff[1], out[1]), second

    def _attention_jet(self, q, k, v):
        # Heads split once, laid out for the products (each part enters several).
        q, k, v = (
            map_parts(lambda t: heads_first(t, self.n_heads), p) for p in (q, k, v)
        )
        scores = product_jet(*q, *k, attention_scores)
        if self.relative_bias is not None:
            # A constant of the input: it shifts the value alone. (heads, 1,
            # tokens, tokens) against the heads-first layout's (..., heads, m,
            # tokens, tokens).
            bias = self.position_bias(scores[0].shape[-1])[:, None]
            scores = (scores[0] + bias, *scores[1:])
        a = product_jet(*softmax_jet(*scores), *v, folded_matmul)
        return map_parts(heads_last, a)

    @property
    def projections(self):
        return self.query, self.key, self.value

    def extra_repr(self):
        alpha = f", alpha={self.alpha}" if self.gate_kind.strength else ""
        extra = f", n_heads={self.n_heads}" if self.n_heads != 1 else ""
        if self.attention != "softmax":
            extra += f", attention={self.attention!r}"
        if self.residual:
            extra += ", residual=True"
        if self.norm is not None:
            extra += ", norm='layer'"
        if self.feed_forward is not None:
            extra += f", d_ff={self.feed_forward.inner.out_features}"
        if self.dropout is not None:
            extra += f", dropout={self.dropout.p}"
        if self.relative_bias is not None:
            extra += ", relative_position=True"
        if self.out_proj is not None:
            extra += ", projection=True"
        return f"d_model={self.d_model}, gate={self.gate!r}{alpha}{extra}"


class GatedAttentionNet(nn.Module):
    """Token embedding, ``depth`` gated attention blocks, mean pooling and a head.

    Parameters
    ----------
    n_features : int
        Width of an input row.
    n_outputs : int
        Width of the head's output (number of classes, or of regression targets).
    gate : str, default="multiplicative"
        Gate of every block, a registered gate (see :class:`GatedAttentionBlock`
        and :func:`register_gate`).
    alpha : float, default=1.0
        Gate strength, used by gates with ``strength`` (the multiplicative gate).
    gate_gain : float, default=2.0 (:data:`GATE_GAIN`)
        The gate projection's initialisation gain (see :class:`GatedAttentionBlock`).
    depth : int, default=1
        Number of stacked blocks.
    d_model : int, default=64
        Token width inside the blocks.
    n_tokens : int, default=8
        Number of copies of the embedded row when ``token_dim`` is None.
    token_dim : int or None, default=None
        None: each row is one token, copied ``n_tokens`` times. An int: each row
        is a sequence of ``n_features // token_dim`` tokens of that width, read
        in order (feature ``j`` belongs to token ``j // token_dim``); the
        embedding's bias is then learned per position (``position``, a
        positional embedding), so that tokens are told apart by place.
    head : {"mlp", "mlp-relu", "linear", "norm-linear"}, default="mlp"
        "mlp": Linear(d_model, d_model), GELU, Linear(d_model, n_outputs) (a smooth
        activation, so that curvature at the logits is defined everywhere);
        "mlp-relu": the same with a ReLU (piecewise linear: the logits' curvature
        is the representation's, bent only at the kinks);
        "linear": one Linear(d_model, n_outputs).
    n_heads : int, default=1
        Attention heads of every block (``d_model`` divisible by it).
    residual : bool, default=False
        Blocks compose as ``h + block(h)`` instead of ``block(h)``.
    norm : {None, "layer"}, default=None
        "layer": pre-LayerNorm residual blocks, ``h + block(LayerNorm(h))``
        (needs ``residual=True``).
    attention : {"softmax", "fixed", "fixed-causal"}, default="softmax"
        How tokens attend in every block (see :class:`GatedAttentionBlock`):
        with "fixed" ungated attention over sequences is affine in x.
    embedding : {"linear", "conv"}, default="linear"
        How rows become tokens: "linear", one linear map per token;
        "conv", :class:`ConvEmbedding` over a sequence's time points (needs
        ``token_dim`` and ``n_channels``; a token is ``token_dim //
        n_channels`` time points).
    n_channels : int or None, default=None
        Channels of a series, for ``embedding="conv"`` only.
    d_ff : int or None, default=None
        Hidden units of a :class:`FeedForward` sublayer after attention in
        every block (needs ``residual=True``; pre-LayerNorm with
        ``norm="layer"``); None: none.
    dropout : float in [0, 1), default=0.0
        Dropout on every block's gated attention output and feed-forward
        output, while training.
    position : {"absolute", "relative", "both"}, default="absolute"
        "absolute": a learned bias per token position (sequences);
        "relative": a learned bias per head and distance in the attention
        logits (softmax attention over sequences); "both".
    projection : bool, default=False
        An output projection after every block's gate (see
        :class:`GatedAttentionBlock`).
    stem_norm, stem_shape, stem_width :
        The convolutional encoding's normalisation, layers and width at full
        resolution (``norm``, ``shape`` and ``width`` of
        :class:`ConvEmbedding`); ``embedding="conv"`` only. ``stem_width``
        None with the pooled stem: ``d_model / 2`` channels for series of
        up to 512 time points, ``d_model / 4`` for longer ones (at least 8).

    Examples
    --------
    >>> import torch
    >>> net = GatedAttentionNet(2, 3, depth=2, d_model=16)
    >>> x = torch.randn(5, 2)
    >>> net(x).shape
    torch.Size([5, 3])
    >>> net.representation(x).shape          # last block, before pooling
    torch.Size([5, 8, 16])
    >>> net.representation(x, layer=0).shape  # first block's output
    torch.Size([5, 8, 16])
    >>> net.representation(x, layer="pooled").shape
    torch.Size([5, 16])
    """

    def __init__(
        self,
        n_features,
        n_outputs,
        *,
        gate="multiplicative",
        alpha=1.0,
        gate_gain=GATE_GAIN,
        depth=1,
        d_model=64,
        n_tokens=8,
        token_dim=None,
        head="mlp",
        n_heads=1,
        residual=False,
        norm=None,
        attention="softmax",
        embedding="linear",
        n_channels=None,
        d_ff=None,
        dropout=0.0,
        position="absolute",
        stem_norm="batch",
        stem_shape="pooled",
        stem_width=None,
        projection=False,
    ):
        super().__init__()
        check_count("n_features", n_features, 1)
        check_option("embedding", embedding, EMBEDDINGS)
        check_option("position", position, POSITIONS)
        check_count("n_outputs", n_outputs, 1)
        check_count("depth", depth, 1)
        check_count("d_model", d_model, 1)
        check_count("n_tokens", n_tokens, 1)
        check_option("head", head, HEADS)
        check_tokens(n_features, token_dim, embedding, n_channels, position)
        self.n_features = n_features
        self.n_outputs = n_outputs
        self.token_dim = token_dim
        self.n_tokens = n_tokens if token_dim is None else n_features // token_dim
        self.embedding = embedding
        self.position_kind = position
        self.embed = self._embedding(
            embedding, n_channels, d_model, stem_norm, stem_shape, stem_width
        )
        # Sequences get a learned bias per position (a positional embedding), so
        # the model can tell tokens apart by place; copied tokens share one bias,
        # which keeps them equal and ungated attention affine.
        self.position = (
            None
            if token_dim is None or position == "relative"
            else nn.Parameter(0.02 * torch.randn(self.n_tokens, d_model))
        )
        self.blocks = nn.ModuleList(
            GatedAttentionBlock(
                d_model,
                gate=gate,
                alpha=alpha,
                gate_gain=gate_gain,
                n_heads=n_heads,
                residual=residual,
                norm=norm,
                attention=attention,
                n_tokens=self.n_tokens,
                d_ff=d_ff,
                dropout=dropout,
                relative_position=token_dim is not None and position != "absolute",
                projection=projection,
            )
            for _ in range(depth)
        )
        #: The head's name (HEADS), which the jets and the engine read.
        self.head_name = head
        self.head = build_head(head, d_model, n_outputs)

    def _embedding(self, kind, n_channels, d_model, norm, shape, width):
        """The layer that makes the first tokens (see ``embedding``)."""
        if kind == "linear":
            width = self.n_features if self.token_dim is None else self.token_dim
            return nn.Linear(width, d_model)
        if width is None and shape == "pooled":
            # The full-resolution layer costs the most on long series.
            share = 2 if self.n_features // n_channels <= LONG_SERIES else 4
            width = max(STEM_WIDTH, d_model // share)
        patch_size = self.token_dim // n_channels
        return ConvEmbedding(
            n_channels, patch_size, d_model, norm=norm, shape=shape, width=width
        )

    def reset_parameters(self, generator=None):
        """Draw every weight afresh, as the constructor does, from ``generator``.

        The draws follow construction order (embedding, positions, blocks,
        head), so a network built under ``torch.manual_seed(s)`` equals one
        reset from ``torch.Generator().manual_seed(s)``; with a generator of
        its own a fit never touches torch's process-wide random state, and
        fits in parallel threads do not interleave their draws.

        Examples
        --------
        >>> import torch
        >>> torch.manual_seed(0)  # doctest: +ELLIPSIS
        <torch._C.Generator object at ...>
        >>> built = GatedAttentionNet(2, 2, d_model=4)
        >>> reset = GatedAttentionNet(2, 2, d_model=4)
        >>> reset.reset_parameters(torch.Generator().manual_seed(0))
        >>> all(torch.equal(a, b) for a, b in zip(built.parameters(),
        ...                                       reset.parameters()))
        True
        """
        if isinstance(self.embed, nn.Linear):
            _reset_linear(self.embed, generator)
        else:
            self.embed.reset_parameters(generator)
        if self.position is not None:
            with torch.no_grad():
                draw = torch.randn(
                    self.position.shape,
                    generator=generator,
                    dtype=self.position.dtype,
                    device=self.position.device,
                )
                self.position.copy_(0.02 * draw)
        for block in self.blocks:
            block.reset_parameters(generator)
        for layer in self.head.modules():
            if isinstance(layer, nn.Linear):
                _reset_linear(layer, generator)
            elif isinstance(layer, nn.LayerNorm):
                layer.reset_parameters()

    @property
    def depth(self):
        return len(self.blocks)

    @property
    def stochastic(self):
        """Whether training draws random numbers in the forward pass
        (dropout above 0)."""
        return any(isinstance(m, Dropout) and m.p > 0 for m in self.modules())

    @property
    def written_out(self):
        """Whether every layer is one the training engine's hand-written
        backward covers (today's minimal design); else the network trains
        through ``torch.func`` on this module (:mod:`skgate.nn._functional`)."""
        return (
            self.embedding == "linear"
            and self.head_name != "norm-linear"
            and all(b.written_out for b in self.blocks)
        )

    def _check_input(self, x):
        if x.ndim == 2 and (x.shape[1] == self.n_features or self._shorter(x.shape[1])):
            return
        shorter = (
            ""
            if self.token_dim is None
            else f" or, a shorter sequence, (batch, t * {self.token_dim}) with "
            f"1 <= t < {self.n_tokens}"
        )
        raise ValueError(
            f"x must have shape (batch, {self.n_features}){shorter}; got "
            f"{tuple(x.shape)}."
        )

    def _shorter(self, width):
        """Whether rows of ``width`` are a sequence of fewer tokens than the
        network's positions (its first positions read them)."""
        return (
            self.token_dim is not None
            and 0 < width < self.n_features
            and width % self.token_dim == 0
        )

    def embed_tokens(self, x):
        """The tokens the first block reads, ``h0``: (batch, n_tokens,
        d_model) from ``x`` of shape (batch, n_features) (copied tokens, or
        ``token_dim``-wide slices with their positional bias)."""
        self._check_input(x)
        return self._copies(self._first_tokens(x))

    def _embedded_jet(self, x, v):
        """The first tokens of ``x`` and their derivatives along ``v`` (the
        line x + t v; its acceleration is zero)."""
        if self.embedding == "conv":
            h, dh, d2h = self.embed.jet(x, v, None)
            if self.position is not None:
                h = h + self.position[: h.shape[-2]]
            return h, dh, d2h
        return self._first_tokens(x), self._first_tokens(v, bias=False), None

    def _first_tokens(self, x, *, bias=True, valid=None, row_weights=None):
        # (..., n_features) -> (..., tokens computed, d_model). Copied tokens
        # are equal, so every key is equal, attention is uniform and each
        # block's output is the same at every token: one token is computed and
        # the copies are restored by _copies (the same numbers up to rounding,
        # 1/n_tokens of the work). bias=False embeds a direction (no bias and
        # no position: both are constant along a line).
        if self.embedding == "conv":
            h = self.embed(x, valid, row_weights)
            if self.position is None:
                return h
            return h + self.position[: h.shape[-2]]
        if self.token_dim is None:
            tokens = x.unsqueeze(-2)
        else:
            # A shorter sequence (fewer tokens) takes the first positions.
            tokens = x.reshape(*x.shape[:-1], -1, self.token_dim)
        if not bias:
            return F.linear(tokens, self.embed.weight)
        h = self.embed(tokens)
        if self.position is None:
            return h
        return h + self.position[: tokens.shape[-2]]

    def _copies(self, h):
        if self.token_dim is None:
            return h.expand(*h.shape[:-2], self.n_tokens, h.shape[-1])
        return h

    def _check_layer(self, layer):
        if isinstance(layer, str):
            check_option("layer", layer, LAYERS)
            return layer
        if isinstance(layer, bool) or not isinstance(layer, Integral):
            raise TypeError(
                f"layer must be one of {list(LAYERS)} or an int block index; "
                f"got {layer!r}."
            )
        if not -self.depth <= layer < self.depth:
            raise ValueError(
                f"layer={layer} is out of range for depth={self.depth}; allowed "
                f"block indices are {-self.depth}..{self.depth - 1}."
            )
        return int(layer) % self.depth

    def unused_weights(self):
        """The names of the weights the network's output does not depend on.

        Query and key over copied tokens or a sequence of one token (one
        token attends to itself with weight 1) and with fixed attention;
        fixed attention's mixing matrix over one token. Training leaves them
        as initialised (their gradient is zero), and a count of the weights
        that shape the output leaves them out.

        Returns
        -------
        set of str
            Names as :meth:`named_parameters` gives them.

        Examples
        --------
        >>> from skgate.nn import GatedAttentionNet
        >>> sorted(GatedAttentionNet(2, 2).unused_weights())
        ['blocks.0.key.weight', 'blocks.0.query.weight']
        """
        one_token = self.token_dim is None or self.n_tokens == 1
        unused = set()
        for i, block in enumerate(self.blocks):
            if one_token or block.mixing is not None:
                unused |= {f"blocks.{i}.query.weight", f"blocks.{i}.key.weight"}
            if one_token and block.mixing is not None:
                unused.add(f"blocks.{i}.mixing")
        return unused

    def representation(
        self, x, layer="attention", *, token_scale=1.0, padded=False, row_weights=None
    ):
        """The representation of ``x`` at ``layer``.

        Parameters
        ----------
        x : Tensor of shape (batch, n_features)
        layer : "attention", int, "pooled" or "logits", default="attention"
            "attention": the last block's output before pooling,
            (batch, n_tokens, d_model); an int: that block's output (0-based,
            negative counts from the end); "pooled": the mean over tokens,
            (batch, d_model); "logits": the head's output, (batch, n_outputs).
        token_scale : float, default=1.0
            Multiplies layers with a token axis ("attention", an int); the
            geometry's root-mean-square over tokens is ``1 / sqrt(n_tokens)``.
            Applied before copied tokens are expanded, so they stay views.
        padded : bool, default=False
            ``x`` may hold NaN where a series has no value (rows as the
            training engine pads them): padding tokens are masked out of
            attention and pooling. A network with layers beyond the
            written-out ones always reads rows so.
        """
        layer = self._check_layer(layer)
        last = self.depth - 1 if not isinstance(layer, int) else layer
        self._check_input(x)
        if padded or not self.written_out:
            return self._strong_representation(x, layer, last, token_scale, row_weights)
        h = self._first_tokens(x)
        for block in self.blocks[: last + 1]:
            h = block(h)
        if isinstance(layer, int) or layer == "attention":
            # Scaled before the copies are restored: they stay views.
            return self._copies(h if token_scale == 1.0 else token_scale * h)
        pooled = h.mean(dim=-2)
        if layer == "pooled":
            return pooled
        return self.head(pooled)

    def _padding_masks(self, x):
        """Rows ``x`` with NaN (padding) read as zeros, and the masks of
        valid and padding tokens (None, None for copied tokens)."""
        missing = torch.isnan(x)
        x = x.masked_fill(missing, 0.0)
        if self.token_dim is None:
            return x, None, None
        first = missing[..., :: self.token_dim]  # a token's first value
        return x, ~first, first

    def set_population_statistics(self, x, row_weights=None, accumulate=False):
        """Fix the evaluation statistics of the stem's "batch" norms to those
        of the training rows ``x`` (rows as the training engine holds them:
        NaN where a series has no value), weighted by ``row_weights``;
        nothing for a network without them. The training engine calls it at
        the end of every fit, and before it scores held-out rows; after a
        ``partial_fit`` with ``accumulate=True``: the rows pooled with those
        of the calls before (see :class:`~skgate.nn.StemNorm`).

        Examples
        --------
        >>> import torch
        >>> net = GatedAttentionNet(40, 2, token_dim=8, embedding="conv",
        ...                         n_channels=2, stem_norm="batch")
        >>> net.set_population_statistics(torch.randn(6, 40))
        >>> bool(net.embed.norms[0].running_var.gt(0).all())
        True
        """
        if self.embedding != "conv" or not self.embed.batch_normed:
            return
        x, valid, _ = self._padding_masks(x)
        self.embed.set_population_statistics(
            x, valid, row_weights, accumulate=accumulate
        )

    def _strong_representation(self, x, layer, last, token_scale, row_weights=None):
        """:meth:`representation` of a network with layers beyond the
        written-out ones. Rows may hold NaN where a series has no value (the
        engine's padded rows, :mod:`skgate._series`): padding tokens are
        masked out of attention and pooling, the rest of a last patch reads
        as zeros. No branch depends on values, so ``torch.func.vmap`` runs it."""
        x, valid, padding = self._padding_masks(x)
        h = self._copies(self._first_tokens(x, valid=valid, row_weights=row_weights))
        for block in self.blocks[: last + 1]:
            h = block(h, padding)
        if isinstance(layer, int) or layer == "attention":
            return h if token_scale == 1.0 else token_scale * h
        if padding is None:
            pooled = h.mean(dim=-2)
        else:
            weights = valid.to(h.dtype)
            weights = weights / weights.sum(dim=-1, keepdim=True)
            pooled = (h * weights[..., None]).sum(dim=-2)
        if layer == "pooled":
            return pooled
        return self.head(pooled)

    def representation_jet(self, x, v, layer="attention", *, token_scale=1.0):
        """``representation(x + t v, layer)`` and its first two t-derivatives at 0.

        Exact (the chain rule through every layer, see ``GatedAttentionBlock.jet``)
        and vectorised over rows: row ``i`` moves along ``v[i]``. ``x`` and ``v``
        broadcast against each other: with ``x`` of shape (n, 1, n_features) and
        ``v`` of shape (1, k, n_features), every point moves along every
        direction, and the value is computed once per point.

        Parameters
        ----------
        x, v : Tensors of shape (..., n_features), broadcastable
        layer, token_scale : as in :meth:`representation`

        Returns
        -------
        value, velocity, acceleration : Tensors shaped like ``representation(x)``

        Examples
        --------
        >>> import torch
        >>> net = GatedAttentionNet(2, 2, d_model=4).double()
        >>> x, v = torch.randn(3, 2).double(), torch.randn(3, 2).double()
        >>> value, velocity, acceleration = net.representation_jet(x, v)
        >>> torch.allclose(value, net.representation(x))
        True
        """
        layer = self._check_layer(layer)
        last = self.depth - 1 if not isinstance(layer, int) else layer
        jet = self._embedded_jet(x, v)  # the line x + t v has no acceleration
        for block in self.blocks[: last + 1]:
            jet = block.jet(*jet)
        if isinstance(layer, int) or layer == "attention":
            if token_scale != 1.0:
                jet = map_parts(lambda part: token_scale * part, jet)
            return tuple(self._copies(part) for part in zero_filled(jet))
        jet = map_parts(lambda part: part.mean(dim=-2), jet)
        if layer == "pooled":
            return zero_filled(jet)
        return zero_filled(head_jet(self.head, self.head_name, jet))

    def forward(self, x, *, padded=False, row_weights=None):
        # x: (batch, n_features) -> logits: (batch, n_outputs)
        # padded: x may hold NaN where a series has no value (the engine's
        # rows); the network's own path for them (see representation).
        # row_weights: (batch,) or None, the rows' weights in training
        # statistics (see representation).
        return self.representation(
            x, layer="logits", padded=padded, row_weights=row_weights
        )

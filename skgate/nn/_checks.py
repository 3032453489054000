"""Argument checks shared by the modules and the gate registry: each refuses a
bad value with a message naming the argument and what is allowed."""

import math
from numbers import Real

from numpy import bool_ as np_bool

from .._checks import check_count
from .._options import NORMS


def check_option(name, value, options):
    if value not in options:
        raise ValueError(f"{name} must be one of {list(options)}; got {value!r}.")


def check_real(name, value, *, minimum, strict):
    bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number {bound}; got {value!r}.")
    inside = value > minimum if strict else value >= minimum
    if not inside or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite real number {bound}; got {value!r}.")


def check_architecture(d_model, n_heads, residual, norm):
    """The block options' own constraints and how they combine."""
    check_count("n_heads", n_heads, 1)
    if d_model % n_heads:
        raise ValueError(
            f"d_model must be divisible by n_heads; got d_model={d_model}, "
            f"n_heads={n_heads}. Allowed n_heads: the divisors of {d_model}."
        )
    if not isinstance(residual, bool | np_bool):
        raise TypeError(f"residual must be a bool; got {residual!r}.")
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {list(NORMS)}; got {norm!r}.")
    if norm is not None and not residual:
        raise ValueError(
            f"norm={norm!r} is pre-LayerNorm inside a residual block, h + "
            "block(LayerNorm(h)): it needs residual=True; got residual=False."
        )


def check_sublayers(d_ff, dropout, relative_position, residual, attention, n_tokens):
    """The strong design's options and what they need of the block."""
    if d_ff is not None:
        check_count("d_ff", d_ff, 1)
        if not residual:
            raise ValueError(
                f"d_ff={d_ff} adds a feed-forward sublayer to a residual block, "
                f"h + FF(h): it needs residual=True; got residual=False."
            )
    check_dropout(dropout)
    if not isinstance(relative_position, bool | np_bool):
        raise TypeError(f"relative_position must be a bool; got {relative_position!r}.")
    if relative_position:
        if attention != "softmax":
            raise ValueError(
                f"relative_position=True biases softmax attention's logits; got "
                f"attention={attention!r}. Allowed: attention='softmax'."
            )
        check_count("n_tokens", n_tokens, 1)


def check_tokens(n_features, token_dim, embedding, n_channels, position):
    """How rows become tokens: ``token_dim`` divides a row, and what the
    convolutional encoding and relative position need."""
    if token_dim is not None:
        check_count("token_dim", token_dim, 1)
        if n_features % token_dim:
            raise ValueError(
                f"token_dim must divide the number of features; got "
                f"token_dim={token_dim} for {n_features} features. Allowed: "
                f"None or a divisor of {n_features}."
            )
    if embedding == "conv":
        if token_dim is None:
            raise ValueError(
                "embedding='conv' convolves over the time points of a sequence: "
                "it needs token_dim (the tokens' width); got token_dim=None. "
                "Allowed with token_dim=None: embedding='linear'."
            )
        check_count("n_channels", n_channels, 1)
        if token_dim % n_channels:
            raise ValueError(
                f"n_channels must divide token_dim (a token is patch_size time "
                f"points of every channel); got n_channels={n_channels}, "
                f"token_dim={token_dim}."
            )
    elif n_channels is not None:
        raise ValueError(
            f"n_channels is read by embedding='conv' only; got "
            f"n_channels={n_channels!r} with embedding={embedding!r}."
        )
    if position != "absolute" and token_dim is None:
        raise ValueError(
            f"position={position!r} places the tokens of a sequence; copied "
            f"tokens (token_dim=None) have no places. Allowed with "
            f"token_dim=None: position='absolute'."
        )


def check_dropout(dropout):
    check_real("dropout", dropout, minimum=0.0, strict=False)
    if not dropout < 1:
        raise ValueError(f"dropout must be in [0, 1); got {dropout!r}.")

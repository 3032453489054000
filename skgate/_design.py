"""What the estimators' "auto" design parameters become for the form of
``X`` (:data:`~skgate._options.DESIGNS`), checked as a whole, and the
network an estimator's resolved design builds."""

import inspect
from functools import cache

import torch

from ._options import DESIGN_NET_PARAMETERS, DESIGNS, SERIES_BLOCK, SERIES_STEM
from .nn import GatedAttentionNet


@cache
def net_parameters(estimator_class):
    """The parameters of ``estimator_class`` that shape its network: those
    its ``__init__`` shares with :class:`~skgate.nn.GatedAttentionNet`'s,
    in the estimator's order (read from the two signatures, not restated)."""
    net = inspect.signature(GatedAttentionNet).parameters
    return tuple(
        name for name in inspect.signature(estimator_class).parameters if name in net
    )


def resolve_design(estimator):
    """The design's parameters as this fit resolves them: each "auto"
    takes its value for the input's form, series (the strong design) or
    a table (the minimal design: today's network, bit for bit), from
    :data:`~skgate._options.DESIGNS`, and agrees with what is given: a
    block without ``residual`` gets no feed-forward sublayer and no
    pre-LayerNorm from "auto", fixed attention no relative position.
    Given values stay as given; combinations that cannot work are
    refused by :func:`_check_design`, naming the parameters."""
    series = getattr(estimator, "series_layout_", None) is not None
    table = DESIGNS["series" if series else "table"]
    # A regressor has no label smoothing.
    given = {
        name: getattr(estimator, name) for name in table if hasattr(estimator, name)
    }
    design = {
        name: table[name] if _is_auto(value) else value for name, value in given.items()
    }
    if design["d_ff"] == "2 * d_model":
        design["d_ff"] = 2 * estimator.d_model
    if not design["residual"]:  # "auto" follows a plain block
        for name in ("d_ff", "norm"):
            if _is_auto(given[name]):
                design[name] = None
    if estimator.attention != "softmax" and _is_auto(given["position"]):
        # Fixed weights take no logits to bias: their place is learned.
        design["position"] = "absolute"
    _check_design(design, given, series=series, token_dim=estimator.token_dim,
                  attention=estimator.attention, d_model=estimator.d_model)  # fmt: skip
    return design


def _is_auto(value):
    return isinstance(value, str) and value == "auto"


def _named(name, design, given):
    """``name=value`` as the user gave it, with what "auto" became."""
    if _is_auto(given[name]):
        return f"{name}='auto' (here {design[name]!r})"
    return f"{name}={given[name]!r}"


def _check_design(design, given, *, series, token_dim, attention, d_model):
    """Refuse a resolved design that cannot work, naming each parameter as
    given (and what "auto" made of it)."""
    heads = design["n_heads"]
    if isinstance(heads, int) and heads >= 1 and d_model % heads:
        raise ValueError(
            f"d_model must be divisible by n_heads; got d_model={d_model}, "
            f"{_named('n_heads', design, given)}. Allowed n_heads: the divisors "
            f"of {d_model}."
        )
    if design["embedding"] == "conv" and not series:
        raise ValueError(
            "embedding='conv' convolves over the time points of series (a "
            "3-D array or a list of 2-D arrays); X is a 2-D table. Allowed "
            "for a table: embedding='auto' or 'linear'."
        )
    position = design["position"]
    if position != "absolute" and not series and token_dim is None:
        raise ValueError(
            f"position={position!r} places the tokens of a sequence; rows of "
            f"copied tokens (token_dim=None) have no places. Allowed: "
            f"position='auto' or 'absolute', or a token_dim."
        )
    if position != "absolute" and attention != "softmax":
        raise ValueError(
            f"position={position!r} adds a relative bias to softmax "
            f"attention's logits; attention={attention!r} has none. Allowed "
            f"with it: position='auto' or 'absolute'."
        )
    for name in ("d_ff", "norm"):
        if design[name] is not None and not design["residual"]:
            raise ValueError(
                f"{_named(name, design, given)} needs residual blocks (h + "
                f"block(h)); got {_named('residual', design, given)}. Set "
                f"residual=True, or {name}=None."
            )


def build_network(estimator, n_features, n_outputs, generator):
    """``estimator``'s network in float32, its weights drawn from
    ``generator`` alone.

    Built on the meta device (no numbers, no random draws), then given
    storage and initialised by ``reset_parameters(generator)``: the same
    weights as a construction under ``torch.manual_seed``, without touching
    torch's process-wide generator or its default dtype. A network too
    large for memory is a MemoryError naming its size and ``d_model``.
    """
    layout = getattr(estimator, "series_layout_", None)
    design = estimator._design()
    # Each network parameter as the estimator holds it, or as its design
    # resolves it ("auto" by the input's form); a series' tokens are its
    # layout's.
    given = {
        name: design[name]
        if name in DESIGN_NET_PARAMETERS
        else getattr(estimator, name)
        for name in net_parameters(type(estimator))
    }
    if layout is not None:
        given["token_dim"] = layout.token_dim
    if design["embedding"] == "conv":
        given.update(SERIES_STEM)
    if layout is not None and design["residual"]:
        given.update(SERIES_BLOCK)
    with torch.device("meta"):
        module = GatedAttentionNet(
            n_features,
            n_outputs,
            **given,
            gate_gain=estimator.gate_gain,
            n_channels=layout.n_channels if design["embedding"] == "conv" else None,
        )
    try:
        module = module.to_empty(device=estimator.device).to(torch.float32)
    except (RuntimeError, MemoryError) as exc:  # torch's words name no size
        if not isinstance(exc, MemoryError) and "alloc" not in str(exc):
            raise
        size = sum(p.numel() for p in module.parameters())
        raise MemoryError(
            f"the network of d_model={estimator.d_model}, depth={estimator.depth} "
            f"and {n_features} features has {size:,} weights, more than this "
            f"machine's memory holds ({str(exc).splitlines()[0]}); use a "
            f"smaller d_model."
        ) from exc
    module.reset_parameters(generator)
    return module

"""The registry of gates: each gate's forward pass, jet and backward, written once."""

import pickle
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import cloudpickle
import torch
import torch.nn.functional as F
from numpy import bool_ as np_bool

from ._checks import check_option
from ._jets import map_parts, mul_jet, pointwise_jet, sigmoid_jet, silu_jet, tanh_jet

#: What a gate's ``form`` may be.
GATE_FORMS = ("projected", "pointwise")


@dataclass(frozen=True)
class Gate:
    """A gate of the registry (see :func:`register_gate`): the one place where
    a gate's forward pass, its jet and its backward are written.

    ``fused_jet`` and ``fused_backward`` are optional faster forms of the
    same derivatives, which the built-in gates supply (torch's own backward
    kernels, one tanh where the derivatives would each compute it again):
    ``fused_jet(x, dx, d2x[, scale])`` is the jet of ``scale * activation``
    (``scale`` only for a gate with ``strength``), and ``fused_backward(grad,
    x, y)`` is ``grad * activation'(x)`` given ``y = activation(x)``.
    """

    name: str
    form: str
    activation: Callable
    derivative: Callable
    second_derivative: Callable
    per_head: bool = False
    strength: bool = False
    fused_jet: Callable = None
    fused_backward: Callable = None

    def __reduce__(self):
        # A built-in gate pickles as its name. A user gate pickles with its
        # functions (by value where they cannot be imported by name: lambdas,
        # functions of __main__), so that a model using it loads in a process
        # that never registered it; loading makes it the registered gate there
        # (see restore_gate).
        if _GATES.get(self.name) is self and self.name in BUILT_IN_GATES:
            return (built_in_gate, (self.name,))
        functions = (self.activation, self.derivative, self.second_derivative)
        flags = (self.per_head, self.strength)
        return (
            restore_gate,
            (self.name, self.form, cloudpickle.dumps(functions), *flags),
        )

    def __copy__(self):
        return self  # immutable: a copied model shares its gate

    def __deepcopy__(self, memo):
        return self

    @property
    def projected(self):
        """Whether the gate owns a projection ``h W_g + b_g``."""
        return self.form == "projected"

    def projection_width(self, d_model, n_heads):
        """Output width of the gate's projection: one per head or per feature."""
        return n_heads if self.per_head else d_model

    def forward(self, a, z, alpha, n_heads):
        """The gated attention output, from ``a`` and the projection's ``z``
        (None for a pointwise gate)."""
        if not self.projected:
            return self.activation(a)
        return self.multiply(a, self.activation(z), alpha, n_heads)

    def multiply(self, a, g, alpha, n_heads):
        """``a * psi`` with psi = g, or 1 + alpha g with ``strength``; one psi
        per head spread over the head's slice of ``a`` when ``per_head``."""
        psi = 1 + alpha * g if self.strength else g
        if self.per_head:
            heads = a.unflatten(-1, (n_heads, -1))
            return (heads * psi.unsqueeze(-1)).flatten(-2)
        return a * psi

    def activation_jet(self, x, dx, d2x, scale=None):
        """Jet of ``scale * activation`` (scale None: 1) along a line."""
        if self.fused_jet is not None:
            return self.fused_jet(x, dx, d2x, *(() if scale is None else (scale,)))
        parts = (self.activation(x), self.derivative(x), self.second_derivative(x))
        if scale is not None:
            parts = tuple(scale * part for part in parts)
        return pointwise_jet(*parts, dx, d2x)

    def jet(self, a, z, alpha, n_heads):
        """The gate's jet on the attention output's jet ``a``, from the
        projection's jet ``z`` (None for a pointwise gate)."""
        if not self.projected:
            return self.activation_jet(*a)
        if self.strength:
            t, dt, d2t = self.activation_jet(*z, scale=alpha)
            psi = (1 + t, dt, d2t)
        else:
            psi = self.activation_jet(*z)
        if not self.per_head:
            return mul_jet(*a, *psi)
        heads = map_parts(lambda part: part.unflatten(-1, (n_heads, -1)), a)
        psi = map_parts(lambda part: part.unsqueeze(-1), psi)
        return map_parts(lambda part: part.flatten(-2), mul_jet(*heads, *psi))

    def activation_backward(self, grad, x, y):
        """``grad * activation'(x)``, given ``y = activation(x)``."""
        if self.fused_backward is not None:
            return self.fused_backward(grad, x, y)
        return grad * self.derivative(x)

    def backward(self, d_out, a, z, g, alpha, n_heads, elementwise=None):
        """Gradients of :meth:`forward`'s inputs given its output's ``d_out``:
        ``(d_a, d_z)``; ``g`` is the activation of ``z`` (or the output, for
        a pointwise gate; ``z`` is then None and so is ``d_z``).
        ``elementwise(function, *tensors)`` computes the activation's
        backward (None: ``function(*tensors)``)."""
        elementwise = elementwise or _call
        if not self.projected:
            return elementwise(self.activation_backward, d_out, a, g), None
        psi = 1 + alpha * g if self.strength else g
        if self.per_head:
            heads = (n_heads, -1)
            d_a = (d_out.unflatten(-1, heads) * psi.unsqueeze(-1)).flatten(-2)
            d_psi = (d_out * a).unflatten(-1, heads).sum(dim=-1)
        else:
            d_a = d_out * psi
            d_psi = d_out * a
        d_g = d_psi * alpha if self.strength else d_psi
        return d_a, elementwise(self.activation_backward, d_g, z, g)


def _call(function, *args):
    return function(*args)


_GATES = {}
_REGISTERING = threading.Lock()
#: The registered gates by name (a read-only view of the registry, which
#: :func:`register_gate` extends): the five built-in gates first.
GATES = MappingProxyType(_GATES)
#: The built-in gates' names, which :func:`register_gate` will not replace.
BUILT_IN_GATES = ("multiplicative", "silu", "none", "sigmoid", "sigmoid_head")


def built_in_gate(name):
    """A built-in gate, by name (how one unpickles)."""
    return _GATES[name]


def _same_gate(a, b):
    """Whether two gates are the same: form and flags, and their three
    functions equal to the bit on [-GATE_CHECK_RANGE, GATE_CHECK_RANGE]
    (pickled bytes are no test: a function unpickled in another process
    pickles differently)."""
    if (a.form, a.per_head, a.strength) != (b.form, b.per_head, b.strength):
        return False
    z = torch.linspace(-GATE_CHECK_RANGE, GATE_CHECK_RANGE, 601, dtype=torch.float64)
    functions = zip(
        (a.activation, a.derivative, a.second_derivative),
        (b.activation, b.derivative, b.second_derivative),
        strict=True,
    )
    try:
        return all(torch.equal(f(z), g(z)) for f, g in functions)
    except Exception:  # a function that fails where the other does not
        return False


def restore_gate(name, form, functions, per_head, strength):
    """An unpickled user gate, which becomes the registered one under its name.

    The pickle's gate is the one its model or estimator was made with, so a
    worker process (whose registry may hold an earlier definition from an
    earlier task) and a later session fit with it. Where the name held
    another definition, it is replaced, with a warning; the same definition
    leaves the registry as it is.
    """
    gate = Gate(name, form, *pickle.loads(functions), per_head, strength)
    with _REGISTERING:
        current = _GATES.get(name)
        if current is not None and _same_gate(current, gate):
            return current
        if current is not None:
            warnings.warn(
                f"Unpickling a model made with the user gate {name!r} replaced "
                f"the different gate registered under that name here (models "
                f"already built keep theirs).",
                UserWarning,
                stacklevel=2,
            )
        _GATES[name] = gate
    return gate


def register_gate(
    name,
    *,
    form,
    activation,
    derivative,
    second_derivative,
    per_head=False,
    strength=False,
    overwrite=False,
):
    """Add a gate to the registry: every estimator, network, CV batch and
    curvature measurement can then use ``gate=name``.

    A model holds the gate it was built with: a later registration under the
    same name (or :func:`unregister_gate`) changes new models, never one
    already built or fitted. Pickling a model (or an estimator, as joblib
    does to send it to worker processes) takes a user gate's functions along;
    unpickling it makes that gate the registered one there (a different one
    under the name is replaced, with a warning).

    Parameters
    ----------
    name : str
        The gate's name, the value of ``gate=``. A built-in name cannot be
        replaced; a name of your own already registered is replaced only with
        ``overwrite=True``.
    form : {"projected", "pointwise"}
        "projected": ``out = a * psi(h W_g + b_g)``, the gate computed from
        the block's input ``h`` at the same token through a learned
        projection (one psi per feature, or per head with ``per_head``);
        "pointwise": ``out = phi(a)``.
    activation : callable
        psi (or phi): a torch function applied elementwise to a tensor.
    derivative, second_derivative : callable
        Its first and second derivatives, elementwise torch functions too.
        They give the exact curvature (the jets) and the batched training's
        backward pass; checked against central differences of
        ``activation`` at 13 points in [-3, 3] when registered.
    per_head : bool, default=False
        "projected" only: one gate value per attention head.
    strength : bool, default=False
        "projected" only: psi = 1 + alpha * activation, as the multiplicative
        gate (``alpha`` is then the estimators' gate strength, searched by
        the CV estimators; ``alpha=0`` is ungated attention).
    overwrite : bool, default=False
        Replace the user gate registered as ``name``. Without it, registering
        a taken name raises a ValueError.

    Returns
    -------
    Gate
        The registered entry.

    Examples
    --------
    >>> import torch
    >>> from skgate.nn import GatedAttentionBlock, register_gate
    >>> gate = register_gate(
    ...     "softplus_doc",
    ...     form="projected",
    ...     activation=torch.nn.functional.softplus,
    ...     derivative=torch.sigmoid,
    ...     second_derivative=lambda z: torch.sigmoid(z) * (1 - torch.sigmoid(z)),
    ... )
    >>> GatedAttentionBlock(4, gate="softplus_doc")(torch.zeros(2, 3, 4)).shape
    torch.Size([2, 3, 4])
    """
    functions = (activation, derivative, second_derivative)
    _check_registration(name, form, functions, per_head, strength, overwrite)
    _check_training_range(name, functions)
    _check_derivatives(name, *functions)
    gate = Gate(name, form, *functions, bool(per_head), bool(strength))
    with _REGISTERING:  # two threads registering one name: one wins, one is told
        _check_name_free(name, overwrite)
        _GATES[name] = gate
    return gate


def unregister_gate(name):
    """Remove a gate added with :func:`register_gate`.

    Models built with it keep computing with it; new ones can no longer use
    ``gate=name``. Built-in gates cannot be removed.

    Parameters
    ----------
    name : str
        A gate registered with :func:`register_gate`.

    Returns
    -------
    Gate
        The removed entry.

    Examples
    --------
    >>> import torch
    >>> from skgate.nn import GATES, register_gate, unregister_gate
    >>> _ = register_gate(
    ...     "cube_doc",
    ...     form="pointwise",
    ...     activation=lambda x: x**3,
    ...     derivative=lambda x: 3 * x**2,
    ...     second_derivative=lambda x: 6 * x,
    ... )
    >>> "cube_doc" in GATES
    True
    >>> unregister_gate("cube_doc").form
    'pointwise'
    >>> "cube_doc" in GATES
    False
    """
    if name in BUILT_IN_GATES:
        raise ValueError(
            f"name={name!r} is a built-in gate, which cannot be removed "
            f"(built-in: {list(BUILT_IN_GATES)})."
        )
    with _REGISTERING:
        if not isinstance(name, str) or name not in _GATES:
            users = [g for g in _GATES if g not in BUILT_IN_GATES]
            raise ValueError(
                f"name must be a gate added with register_gate (registered now: "
                f"{users}); got {name!r}."
            )
        return _GATES.pop(name)


def _check_registration(name, form, functions, per_head, strength, overwrite):
    """:func:`register_gate`'s arguments, each against what it allows."""
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"name must be a str with a letter or digit; got {name!r}.")
    if name in BUILT_IN_GATES:
        raise ValueError(
            f"name={name!r} is a built-in gate, which cannot be replaced; "
            f"choose another name (built-in: {list(BUILT_IN_GATES)})."
        )
    check_option("form", form, GATE_FORMS)
    keys = ("activation", "derivative", "second_derivative")
    for key, function in zip(keys, functions, strict=True):
        if not callable(function):
            raise TypeError(f"{key} must be a callable; got {function!r}.")
    flags = (("per_head", per_head), ("strength", strength), ("overwrite", overwrite))
    for key, flag in flags:
        if not isinstance(flag, bool | np_bool):
            raise TypeError(f"{key} must be a bool; got {flag!r}.")
        if flag and key != "overwrite" and form != "projected":
            raise ValueError(
                f"{key}=True needs form='projected' (a gate computed through "
                f"a projection); got form={form!r}."
            )
    _check_name_free(name, overwrite)


def _check_name_free(name, overwrite):
    if name in _GATES and not overwrite:
        raise ValueError(
            f"register_gate: a gate named {name!r} is already registered; pass "
            f"overwrite=True to replace it (models already built keep theirs), "
            f"or choose another name."
        )


def _check_derivatives(name, activation, derivative, second_derivative):
    """Refuse derivatives that central differences of ``activation`` deny."""
    z = torch.linspace(-3, 3, 13, dtype=torch.float64)
    step = 1e-4
    pairs = (
        ("derivative", "activation", activation, derivative),
        ("second_derivative", "derivative", derivative, second_derivative),
    )

    def call(key, function, x):
        try:
            return function(x)
        except Exception as exc:
            raise TypeError(
                f"register_gate({name!r}): {key} must map a float64 tensor to "
                f"one of its shape elementwise; calling it failed: {exc}"
            ) from exc

    for key, of, function, claimed in pairs:
        given = call(key, claimed, z)
        differences = (call(of, function, z + step) - call(of, function, z - step)) / (
            2 * step
        )
        _check_is_tensor(name, key, given, z.shape)
        if given.shape != z.shape:
            raise TypeError(
                f"register_gate({name!r}): {key} must return a tensor of its "
                f"input's shape {tuple(z.shape)}; got {tuple(given.shape)}."
            )
        error = (given - differences).abs() / (1 + differences.abs())
        if not torch.isfinite(given).all() or error.max() > 1e-5:
            worst = int(error.nan_to_num(float("inf")).argmax())
            raise ValueError(
                f"register_gate({name!r}): {key} disagrees with central "
                f"differences of the function it differentiates: at z="
                f"{float(z[worst]):g} it gives {float(given[worst]):.6g}, the "
                f"differences {float(differences[worst]):.6g}."
            )


def _check_is_tensor(name, key, given, shape):
    """A gate's function must return a torch tensor (a numpy array, which
    autograd and the jets cannot follow, is refused by its type)."""
    if not torch.is_tensor(given):
        kind = type(given)
        kind = (
            kind.__qualname__
            if kind.__module__ == "builtins"
            else (f"{kind.__module__.split('.')[0]}.{kind.__qualname__}")
        )
        raise TypeError(
            f"register_gate({name!r}): {key} returned a {kind}; it must return a "
            f"torch.Tensor of its input's shape {tuple(shape)} (torch functions, "
            f"e.g. torch.tanh(z), not numpy.tanh(z.numpy()))."
        )


#: Where a user gate must be finite and keep float32: well beyond the
#: pre-activations training meets (a projection of standardised rows).
GATE_CHECK_RANGE = 30.0


def _check_training_range(name, functions):
    """Refuse a gate (or a derivative) that the engine cannot train with:
    one that changes float32 to another dtype or the input's shape, or is
    not finite somewhere in [-GATE_CHECK_RANGE, GATE_CHECK_RANGE]."""
    keys = ("activation", "derivative", "second_derivative")
    z = torch.linspace(-GATE_CHECK_RANGE, GATE_CHECK_RANGE, 630, dtype=torch.float32)
    grid = z.reshape(3, 7, -1)  # a (batch, tokens, features) block, as in training
    for key, function in zip(keys, functions, strict=True):
        before = grid.clone()
        try:
            given = function(grid)
        except Exception as exc:
            raise TypeError(
                f"register_gate({name!r}): {key} must map a float32 tensor of any "
                f"shape to one of its shape and dtype; calling it failed: {exc}"
            ) from exc
        _check_is_tensor(name, key, given, grid.shape)
        if given.shape != grid.shape:
            raise TypeError(
                f"register_gate({name!r}): {key} must return a tensor of its "
                f"input's shape {tuple(grid.shape)}; got {tuple(given.shape)}."
            )
        if not torch.equal(grid, before):
            raise TypeError(
                f"register_gate({name!r}): {key} changed its input in place (as "
                f"z.tanh_() does); it must return a new tensor (torch.tanh(z))."
            )
        if given.dtype != grid.dtype:
            raise TypeError(
                f"register_gate({name!r}): {key} must keep its input's dtype "
                f"(float32 in training); got {given.dtype} for float32 input."
            )
        bad = ~torch.isfinite(given.reshape(-1))
        if bad.any():
            where = float(z[int(bad.nonzero()[0])])
            raise ValueError(
                f"register_gate({name!r}): {key} is not finite at z={where:g}; a "
                f"gate must be finite on [-{GATE_CHECK_RANGE:g}, "
                f"{GATE_CHECK_RANGE:g}], where training can take it."
            )


def _register_built_in(
    name,
    form,
    activation,
    derivative,
    second_derivative,
    *,
    fused_jet,
    fused_backward,
    per_head=False,
    strength=False,
):
    _GATES[name] = Gate(
        name,
        form,
        activation,
        derivative,
        second_derivative,
        per_head,
        strength,
        fused_jet,
        fused_backward,
    )


def _tanh_derivative(z):
    t = torch.tanh(z)
    return 1 - t * t


def _sigmoid_derivative(z):
    s = torch.sigmoid(z)
    return s * (1 - s)


def _identity(x):
    return x


_register_built_in(
    "multiplicative",
    "projected",
    torch.tanh,
    _tanh_derivative,
    lambda z: -2 * torch.tanh(z) * _tanh_derivative(z),
    fused_jet=lambda z, dz, d2z, scale=1.0: tanh_jet(z, dz, d2z, scale=scale),
    fused_backward=lambda grad, z, g: torch.ops.aten.tanh_backward(grad, g),
    strength=True,
)
_register_built_in(
    "silu",
    "pointwise",
    F.silu,
    lambda x: torch.sigmoid(x) * (1 + x * (1 - torch.sigmoid(x))),
    lambda x: _sigmoid_derivative(x) * (2 + x * (1 - 2 * torch.sigmoid(x))),
    fused_jet=lambda x, dx, d2x: silu_jet(x, dx, d2x),
    fused_backward=lambda grad, x, y: torch.ops.aten.silu_backward(grad, x),
)
_register_built_in(
    "none",
    "pointwise",
    _identity,
    torch.ones_like,
    torch.zeros_like,
    fused_jet=lambda x, dx, d2x: (x, dx, d2x),
    fused_backward=lambda grad, x, y: grad,
)
for _name, _per_head in (("sigmoid", False), ("sigmoid_head", True)):
    _register_built_in(
        _name,
        "projected",
        torch.sigmoid,
        _sigmoid_derivative,
        lambda z: _sigmoid_derivative(z) * (1 - 2 * torch.sigmoid(z)),
        fused_jet=lambda z, dz, d2z: sigmoid_jet(z, dz, d2z),
        fused_backward=lambda grad, z, g: torch.ops.aten.sigmoid_backward(grad, g),
        per_head=_per_head,
    )


def check_gate(gate):
    """The registered gate named ``gate``, or a ValueError listing them."""
    if not isinstance(gate, str) or gate not in _GATES:
        raise ValueError(
            f"gate must be one of the registered gates {list(_GATES)} (add one "
            f"with skgate.nn.register_gate); got {gate!r}."
        )
    return _GATES[gate]

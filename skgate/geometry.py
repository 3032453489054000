"""Curvature of a representation map, from its first and second directional derivatives.

This module knows calculus and nothing about estimators. For a row-wise map
``f: R^p -> R^m`` (outputs flattened) at ``x`` and a direction ``v``:

- velocity ``u = Df(x)[v]`` and acceleration ``a = D^2 f(x)[v, v]`` are the two
  primitives (:func:`directional_derivatives`), computed exactly (autodiff, or
  the map's own second-order forward pass) or by central finite differences;
- ``kind="acceleration"``, the paper's estimator: ``||a||_M``;
- ``kind="extrinsic"``: curvature of the image curve ``t -> f(x + t v)``,
  ``||P_perp(u) a||_M / ||u||_M^2``, independent of how the line is parametrised;
- ``kind="turning"``: how fast the image curve's direction turns per unit
  step in the input, ``||P_perp(u) a||_M / ||u||_M`` (radians per unit of
  ``t``; the extrinsic curvature times the speed): unchanged when ``f`` or
  ``M`` is multiplied by a constant or ``f`` is shifted, so it compares
  representations of different sizes;
- ``kind="gaussian"`` / ``"scalar"``: intrinsic curvature of the image manifold
  under the pulled-back metric ``g = J^T M J``, by the Gauss equation
  ``S = |tr_g II|^2 - |II|_g^2`` with ``II_ij`` the normal part of
  ``d^2 f / dx_i dx_j``; "gaussian" is the mean sectional curvature
  ``S / (k (k - 1))``, the Gaussian curvature ``K = S / 2`` of a surface.

The output metric ``M`` (Euclidean, diagonal, SPD, or the Fisher-Rao metric
``Sigma^-1`` of ``N(f(x), Sigma)``) enters once: derivatives are mapped by a
whitening ``W`` with ``<a, b>_M = (a W) . (b W)``, after which all formulas are
Euclidean.
"""

import inspect
import warnings
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
)

from ._docstrings import fill_docstring
from ._params import refuse_bool_arguments, validate_args
from .nn._jets import softmax_jet

__all__ = [
    "CURVATURE_KEYWORDS",
    "DegenerateMetricWarning",
    "METRIC_RTOL",
    "FisherRaoMap",
    "KINDS",
    "INTRINSIC_KINDS",
    "METHODS",
    "check_curvature_keywords",
    "curvature",
    "curvature_by_metric",
    "directional_derivatives",
    "documents_curvature_keywords",
    "metric_name",
]

#: The kinds of curvature :func:`curvature` measures ("gaussian" and "scalar"
#: take either sign, the others are >= 0).
KINDS = ("acceleration", "extrinsic", "turning", "gaussian", "scalar")
#: How derivatives are taken: "exact" (jets or autodiff) or
#: "finite_difference" (the paper's central differences).
METHODS = ("exact", "finite_difference")
#: The intrinsic kinds of :data:`KINDS`, of a surface's own geometry: they
#: take either sign (a comparison of curvatures compares their magnitudes).
INTRINSIC_KINDS = ("gaussian", "scalar")

# Rows are processed in chunks, so memory stays bounded whatever len(X) is: at
# most this many float64 output elements per evaluated batch, and at most
# _CHUNK_EVALUATIONS points (rows x directions) per call of f, whose internal
# activations may be much wider than its output (measured: larger batches of
# the attention model run slower per point, as they fall out of cache).
_CHUNK_ELEMENTS = 2**21
_CHUNK_EVALUATIONS = 4096


def directional_derivatives(f, X, directions, *, method="exact", eps=1e-2):
    """First and second directional derivatives of a row-wise map.

    Parameters
    ----------
    f : callable
        Maps a float64 tensor (n, p) to a tensor (n, ...), row by row. If it
        has a method ``jet(x, v)`` returning ``(f(x), Df(x)[v], D^2 f(x)[v, v])``
        and broadcasting ``x`` of shape (n, 1, p) against ``v`` of shape
        (1, k, p) (results (n, 1, ...) and (n or 1, k, ...)), ``method="exact"``
        uses it; otherwise nested forward-mode autodiff (``torch.func.jvp``).
    X : Tensor of shape (n, p), float64
    directions : Tensor of shape (k, p), float64
        Used as given (not normalised).
    method : {"exact", "finite_difference"}, default="exact"
        "finite_difference": ``(f(x + eps v) - f(x - eps v)) / (2 eps)`` and
        ``(f(x + eps v) - 2 f(x) + f(x - eps v)) / eps^2``, errors O(eps^2).
    eps : float, default=1e-2

    Returns
    -------
    velocity, acceleration : Tensors of shape (n, k, m), m = prod of f's output
        shape after the row axis.

    Examples
    --------
    >>> import torch
    >>> circle = lambda t: torch.cat([torch.cos(t), torch.sin(t)], dim=1)
    >>> t = torch.zeros(1, 1, dtype=torch.float64)
    >>> u, a = directional_derivatives(circle, t, torch.ones(1, 1).double())
    >>> # (-sin 0, cos 0) and (-cos 0, -sin 0), to rounding (+ 0.0 drops the sign of 0)
    >>> (u.flatten().round(decimals=12) + 0.0).tolist()
    [0.0, 1.0]
    >>> (a.flatten().round(decimals=12) + 0.0).tolist()
    [-1.0, 0.0]
    """
    n, p = X.shape
    k = directions.shape[0]
    jet = getattr(f, "jet", None)
    if method == "exact" and jet is not None:
        # Broadcast: the point's value once, its derivatives per direction.
        _, velocity, acceleration = jet(X.unsqueeze(1), directions.unsqueeze(0))
        shape = (n, k, *velocity.shape[2:])
        return (
            velocity.expand(shape).reshape(n, k, -1),
            acceleration.expand(shape).reshape(n, k, -1),
        )
    # Row i * k + d is row i moved along direction d; real copies, since
    # forward-mode autodiff cannot write tangents into broadcast views.
    x = X.repeat_interleave(k, dim=0)
    v = directions.repeat(n, 1)
    if method == "exact":

        def first_derivative(x_):
            return torch.func.jvp(f, (x_,), (v,))[1]

        velocity, acceleration = torch.func.jvp(first_derivative, (x,), (v,))
    else:
        values = f(torch.cat([X, x + eps * v, x - eps * v]))
        centre = values[:n].reshape(n, 1, -1)
        plus = values[n : n + n * k].reshape(n, k, -1)
        minus = values[n + n * k :].reshape(n, k, -1)
        return (plus - minus) / (2 * eps), (plus - 2 * centre + minus) / eps**2
    return velocity.reshape(n, k, -1), acceleration.reshape(n, k, -1)


class FisherRaoMap:
    """``x -> 2 sqrt(softmax(f(x)))``: logits ``f(x)`` of shape (n, C) read as
    a categorical distribution, mapped isometrically (Fisher-Rao metric to
    Euclidean) onto the sphere of radius 2 in R^C.

    What ``metric="fisher"`` measures. Has a ``jet`` (exact derivatives in one
    pass) when ``f`` has one.

    Examples
    --------
    >>> import torch
    >>> g = FisherRaoMap(lambda x: torch.cat([x, -x], dim=1))
    >>> round(float(g(torch.zeros(1, 1, dtype=torch.float64)).norm()), 12)  # radius 2
    2.0
    """

    def __init__(self, f):
        self.f = f
        if hasattr(f, "jet"):
            self.jet = self._jet

    @staticmethod
    def _check(logits, ndim):
        if logits.ndim != ndim or logits.shape[-1] < 2:
            raise ValueError(
                "metric='fisher' reads f's outputs as the logits of a categorical "
                "distribution: f must map rows to C >= 2 logits (shape (n, C)); "
                f"got outputs of shape {tuple(logits.shape)}."
            )

    def __call__(self, x):
        logits = self.f(x)
        self._check(logits, 2)
        return 2 * torch.softmax(logits, dim=-1).sqrt()

    def _jet(self, x, v):
        z, dz, d2z = self.f.jet(x, v)
        self._check(z, 3)  # (n, 1, C): the jet's broadcast layout
        p, dp, d2p = softmax_jet(z, dz, d2z)
        # s = 2 sqrt(p): s' = p' / sqrt(p), s'' = p'' / sqrt(p) - p'^2 / (2 p^1.5).
        r = p.sqrt()
        return 2 * r, dp / r, d2p / r - dp**2 / (2 * p * r)


# -- the output metric --------------------------------------------------------


def _as_float64(name, value):
    try:
        return torch.as_tensor(np.asarray(value, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be an array of real numbers; got {value!r}."
        ) from exc


def metric_name(metric):
    """The name of a named ``metric`` ("fisher", "anisotropic"), or None for
    the Euclidean default (None) and for weights (a number or an array).

    Examples
    --------
    >>> metric_name("fisher"), metric_name([1.0, 2.0]), metric_name(None)
    ('fisher', None, None)
    """
    return metric if isinstance(metric, str) else None


def _check_metric_options(metric, condition_number, covariance):
    """The checks on the metric that do not need the output size."""
    if covariance is not None and metric is not None:
        raise ValueError(
            "Pass either metric or covariance (the Fisher-Rao metric is "
            "covariance^-1), not both."
        )
    if condition_number is not None and metric_name(metric) != "anisotropic":
        raise ValueError(
            f"condition_number is used only with metric='anisotropic'; got "
            f"condition_number={condition_number!r} with metric={metric!r}."
        )
    if metric_name(metric) == "anisotropic" and condition_number is None:
        raise ValueError(
            "metric='anisotropic' needs condition_number, a real number >= 1."
        )


def _whitening(metric, condition_number, covariance, m):
    """A function mapping derivatives (..., m) to coordinates where M is Euclidean."""
    if (metric is None or metric_name(metric) == "fisher") and covariance is None:
        # "fisher": the map was made 2 sqrt(softmax(f)) (see FisherRaoMap),
        # on which the Fisher-Rao metric is the Euclidean one.
        return lambda d: d
    if isinstance(metric, str):  # "anisotropic", checked by check_curvature_keywords
        # Eigenvalues log-spaced from 1 down to 1 / condition_number.
        diagonal = torch.logspace(
            0, -np.log10(condition_number), m, dtype=torch.float64
        )
        return lambda d: d * diagonal.sqrt()
    name = "metric" if metric is not None else "covariance"
    matrix = _as_float64(name, metric if metric is not None else covariance)
    if matrix.ndim == 0:  # a number: the same weight (or variance) everywhere
        matrix = matrix.expand(m)
    allowed = (
        f"a positive number, a vector of {m} positive finite weights or a "
        f"symmetric positive "
        f"definite matrix of shape ({m}, {m}), {m} being the representation's "
        f"flattened size"
    )
    if matrix.shape not in ((m,), (m, m)):
        raise ValueError(f"{name} must be {allowed}; got shape {tuple(matrix.shape)}.")
    if not torch.isfinite(matrix).all():
        raise ValueError(f"{name} must be {allowed}; it has non-finite entries.")
    if matrix.ndim == 1:
        if not (matrix > 0).all():
            raise ValueError(f"{name} must be {allowed}; it has entries <= 0.")
        scale = matrix.sqrt() if name == "metric" else matrix.rsqrt()
        return lambda d: d * scale
    if not torch.allclose(matrix, matrix.T, rtol=1e-10, atol=1e-12):
        raise ValueError(f"{name} must be {allowed}; it is not symmetric.")
    factor, info = torch.linalg.cholesky_ex(matrix)
    if info != 0:
        raise ValueError(f"{name} must be {allowed}; it is not positive definite.")
    # metric M = L L^T: <a, b>_M = (a L) . (b L). covariance S = C C^T:
    # <a, b>_{S^-1} = (C^-1 a) . (C^-1 b) = (a C^-T) . (b C^-T).
    if name == "metric":
        whitener = factor
    else:
        eye = torch.eye(m, dtype=torch.float64)
        whitener = torch.linalg.solve_triangular(factor, eye, upper=False).T
    return lambda d: d @ whitener


# -- curvature kinds from the two derivatives --------------------------------


def _curve_curvature(velocity, acceleration, kind):
    """Acceleration, extrinsic curvature or turning rate, (n, k), from
    whitened (n, k, m)."""
    if kind == "acceleration":
        return acceleration.norm(dim=-1)
    speed2 = (velocity * velocity).sum(-1)
    safe = torch.where(speed2 > 0, speed2, torch.ones_like(speed2))
    along = (acceleration * velocity).sum(-1) / safe
    normal = (acceleration - along.unsqueeze(-1) * velocity).norm(dim=-1)
    # Where the curve stops (u = 0) its curvature is infinite unless a = 0 too.
    stopped = torch.where(normal > 0, torch.inf, 0.0)
    # kappa = |a_perp| / |u|^2; the turning rate d(theta)/dt = kappa |u|.
    per_speed = safe if kind == "extrinsic" else safe.sqrt()
    return torch.where(speed2 > 0, normal / per_speed, stopped)


def _pair_directions(frame):
    """The frame's vectors, then the sums e_i + e_j (i < j) for polarisation."""
    i, j = torch.triu_indices(len(frame), len(frame), offset=1)
    return torch.cat([frame, frame[i] + frame[j]]), i, j


class DegenerateMetricWarning(UserWarning):
    """The pulled-back metric is (numerically) singular at some rows: NaN there.

    Where ``J`` (the derivatives along the frame) loses rank, the image is not
    a ``k``-dimensional surface at that point and its intrinsic curvature is
    undefined; see :data:`METRIC_RTOL`.
    """


#: A row's pulled-back metric ``g = J J^T`` counts as singular when its
#: smallest eigenvalue is below this fraction of its largest (the frame's
#: image is then flat to within float64 rounding in some direction, and a
#: curvature computed through ``g^-1`` would be rounding noise times 1e10+).
METRIC_RTOL = 1e-10
#: Frames whose smallest singular value is below this fraction of the largest
#: are refused as linearly dependent (they span fewer dimensions than given).
FRAME_RTOL = 1e-8


def _hessians(acceleration, k, i, j):
    """Second derivatives (n, k, k, m) along a frame from e_i and e_i + e_j."""
    diag = acceleration[:, :k]
    mixed = (acceleration[:, k:] - diag[:, i] - diag[:, j]) / 2
    H = acceleration.new_zeros(acceleration.shape[0], k, k, acceleration.shape[-1])
    H[:, torch.arange(k), torch.arange(k)] = diag
    H[:, i, j] = mixed
    H[:, j, i] = mixed
    return H


def _normal_part(H, E):
    """The part of every H[a, b] (in R^m) normal to the rows of E (orthonormal).

    Two contractions of equal result; the one with the smaller intermediate is
    used, so memory per row stays within max(k^2 m, m^2) whatever k is.
    """
    k, m = E.shape[1], E.shape[2]
    if k**3 <= m * m:  # tangent coordinates (k, k, k) per row
        return H - torch.einsum(
            "nabc,ncm->nabm", torch.einsum("nabm,ncm->nabc", H, E), E
        )
    projector = E.transpose(1, 2) @ E  # (n, m, m)
    return H - H @ projector.unsqueeze(1)


def _intrinsic_curvature(velocity, acceleration, k, i, j, kind):
    """Scalar or mean sectional curvature (n,) from derivatives along a frame.

    ``velocity[:, :k]`` are the Jacobian's rows along the frame; the second
    derivatives along e_i and e_i + e_j give the Hessian by polarisation. The
    frame is made orthonormal for the pulled-back metric ``g = L L^T``
    (tangent vectors ``E = L^-1 J``, Hessian ``L^-1 H L^-T``), where the Gauss
    equation reads ``S = |sum_a II_aa|^2 - sum_ab |II_ab|^2``.
    """
    J = velocity[:, :k]  # (n, k, m)
    g = J @ J.transpose(1, 2)  # pulled-back metric (n, k, k)
    eigenvalues = torch.linalg.eigvalsh(g)
    singular = eigenvalues[:, 0] <= METRIC_RTOL * eigenvalues[:, -1]
    eye = torch.eye(k, dtype=g.dtype).expand_as(g)
    if singular.all():  # nothing to compute: skip the (k, k, m) Hessians
        return _undefined(singular, k)
    L = torch.linalg.cholesky(torch.where(singular[:, None, None], eye, g))
    L_inv = torch.linalg.solve_triangular(L, eye, upper=False)
    H = _hessians(acceleration, k, i, j)
    H = torch.einsum("nbj,najm->nabm", L_inv, torch.einsum("nai,nijm->najm", L_inv, H))
    II = _normal_part(H, L_inv @ J)
    trace = II.diagonal(dim1=1, dim2=2).sum(-1)  # (n, m)
    scalar = (trace * trace).sum(-1) - torch.einsum("nabm,nabm->n", II, II)
    if singular.any():
        scalar = torch.where(singular, _undefined(singular, k), scalar)
    return scalar if kind == "scalar" else scalar / (k * (k - 1))


def _undefined(singular, k):
    """NaN where the metric is singular (0 elsewhere), with one warning."""
    warnings.warn(
        f"{int(singular.sum())} of {len(singular)} rows have a singular "
        f"pulled-back metric (smallest/largest eigenvalue <= {METRIC_RTOL:g}): "
        f"the image of the frame is not {k}-dimensional there, so its "
        f"intrinsic curvature is undefined; they are NaN.",
        DegenerateMetricWarning,
        stacklevel=4,
    )
    return torch.where(singular, torch.nan, 0.0).to(torch.float64)


def _checked_points(X):
    if isinstance(X, torch.Tensor):
        X = X.detach().cpu().numpy()
    X = np.asarray(X)
    if X.dtype.kind not in "biuf":
        raise TypeError(f"X must hold real numbers; got dtype {X.dtype}.")
    X = torch.as_tensor(X.astype(np.float64))
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"X must be a non-empty 2-D array (n_samples, n_features); got shape "
            f"{tuple(X.shape)}."
        )
    X = X.to(torch.float64)
    if not torch.isfinite(X).all():
        raise ValueError("X must be finite; it contains NaN or infinity.")
    return X


def _derivatives_by_chunks(f, X, V, method, eps, points):
    """:func:`directional_derivatives` with at most ``points`` (rows x
    directions) per call of ``f``: an intrinsic curvature in p inputs needs
    p (p + 1) / 2 directions, too many for one pass of a wide map."""
    budget = max(1, points // len(X))
    parts = []
    with torch.no_grad():
        for start in range(0, len(V), budget):
            parts.append(
                directional_derivatives(
                    f, X, V[start : start + budget], method=method, eps=eps
                )
            )
    if len(parts) == 1:
        return parts[0]
    return tuple(torch.cat(part, dim=1) for part in zip(*parts, strict=True))


def _check_eps(eps):
    """eps**2 divides the second difference: it must be a finite, non-zero float."""
    try:
        square = float(eps) ** 2
    except OverflowError:
        square = np.inf
    if not 0 < square < np.inf:
        raise ValueError(
            f"eps={eps!r} is out of float64's range for finite differences "
            f"(eps**2 = {square:g}); allowed: eps whose square is a finite, "
            f"non-zero float64 (about 1e-160 to 1e154), in practice 1e-4 to 1e-1 "
            f"times the scale of X."
        )


def _output_size(f, X):
    """The flattened size of ``f``'s output for one row, checking what f returns."""
    with torch.no_grad():
        probe = f(X[:1])
    if not isinstance(probe, torch.Tensor) or probe.ndim == 0 or len(probe) != 1:
        raise ValueError(
            "f must map a tensor of shape (n, p) to a tensor of shape (n, ...), "
            f"row by row; for 1 row it returned {type(probe).__name__} "
            f"{tuple(getattr(probe, 'shape', ()))}."
        )
    if probe.dtype != torch.float64:
        raise TypeError(
            f"f must compute in float64 (e.g. module.double()); it returned "
            f"{probe.dtype}, too coarse for second derivatives."
        )
    return probe[0].numel()


def _directions(directions, n_directions, random_state, p, kind):
    """Unit directions (k, p): explicit, the standard basis, or random."""
    if directions is None and kind in INTRINSIC_KINDS:
        directions = np.eye(p)
    elif directions is None:
        directions = check_random_state(random_state).standard_normal((n_directions, p))
    V = _as_float64("directions", directions)
    if V.ndim != 2 or V.shape[1] != p or V.shape[0] == 0:
        raise ValueError(
            f"directions must have shape (k, {p}) with k >= 1, one row per input "
            f"direction; got shape {tuple(V.shape)}."
        )
    norms = V.norm(dim=1, keepdim=True)
    if not torch.isfinite(V).all() or not (norms > 0).all():
        raise ValueError("directions must be finite and non-zero.")
    if kind == "gaussian" and len(V) < 2:
        raise ValueError(
            f"kind='gaussian' needs a frame of at least 2 directions (an input "
            f"of at least 2 features); got {len(V)}. kind='scalar' is 0 on curves."
        )
    if kind in INTRINSIC_KINDS:
        return _orthonormal_frame(V)
    return V / norms


def _orthonormal_frame(V):
    """An orthonormal basis (k, p) of the span of the frame V, which must be
    independent: intrinsic curvature depends on the span only, and a nearly
    dependent frame would turn rounding into curvature."""
    singular_values = torch.linalg.svdvals(V)
    ratio = float(singular_values[-1] / singular_values[0])
    if len(V) > V.shape[1] or ratio < FRAME_RTOL:
        raise ValueError(
            f"directions must be linearly independent for kind='gaussian' or "
            f"'scalar' (they span the surface that is measured); got {len(V)} "
            f"directions in {V.shape[1]} dimensions whose smallest/largest "
            f"singular value is {ratio:.3g} (allowed: >= {FRAME_RTOL:g})."
        )
    Q, _ = torch.linalg.qr(V.T)
    return Q.T.contiguous()


_OPTION_CONSTRAINTS = {
    "kind": [StrOptions(set(KINDS))],
    "method": [StrOptions(set(METHODS))],
    "metric": [
        None,
        StrOptions({"anisotropic", "fisher"}),
        Real,
        "array-like",
        torch.Tensor,
    ],
    "condition_number": [None, Interval(Real, 1, None, closed="left")],
    "covariance": [None, Real, "array-like", torch.Tensor],
    "n_directions": [Interval(Integral, 1, None, closed="left")],
    "eps": [Interval(Real, 0, None, closed="neither")],
    "random_state": ["random_state"],
    "directions": [None, "array-like", torch.Tensor],
}


#: The curvature keywords' documentation, shared by every function that takes
#: them (see :func:`documents_curvature_keywords`).
CURVATURE_KEYWORDS_DOC = """\
kind : {"acceleration", "extrinsic", "turning", "gaussian", "scalar"}, \
default="acceleration"
    "acceleration": ``||D^2 f(x)[v, v]||_M`` (the paper's kappa);
    "extrinsic": curvature of the image curve ``t -> f(x + t v)``;
    "turning": that curve's turning rate, extrinsic curvature times speed
    (radians per unit step in the input; unchanged by rescaling ``f`` or ``M``);
    "gaussian": mean sectional curvature of the image manifold (its Gaussian
    curvature for 2 inputs); "scalar": its scalar curvature.
method : {"exact", "finite_difference"}, default="exact"
    Exact derivatives, or the paper's central differences with step ``eps``;
    both in float64.
metric : None, "anisotropic", "fisher", float, array of shape (m,) or (m, m), \
default=None
    Output metric: Euclidean; diagonal with eigenvalues log-spaced from 1 to
    ``1 / condition_number``; "fisher": the outputs are logits of a
    categorical distribution ``p = softmax(f(x))`` under the Fisher-Rao
    metric, measured as the Euclidean curvature of ``2 sqrt(p)`` on the
    sphere of radius 2 (classifiers at ``layer="logits"``); one positive
    weight for every coordinate; positive weights; or an SPD matrix. ``m``
    is the flattened output size of ``f``.
condition_number : float >= 1, optional
    Only with ``metric="anisotropic"``.
covariance : float, array of shape (m,) or (m, m), optional
    Reading ``f(x)`` as the mean of ``N(f(x), covariance)``: the Fisher-Rao
    metric ``covariance^-1``. Exclusive with ``metric``.
n_directions : int >= 1, default=8
    Random unit directions drawn from ``random_state`` (the same for every
    row); the result averages over them. Not used by "gaussian"/"scalar".
eps : float > 0, default=1e-2
    Finite-difference step.
random_state : int, RandomState instance or None, default=0
    Seed of the random directions.
directions : array of shape (k, p), optional
    Explicit directions instead of random ones (normalised to unit length).
    For "gaussian"/"scalar" they are the frame whose affine span through
    ``x`` is mapped (default: the standard basis, i.e. the whole input space).
"""


def check_curvature_keywords(caller_name, **options):
    """Validate curvature keywords (:data:`CURVATURE_KEYWORDS`) before any
    data is seen, e.g. when a scorer is made, naming ``caller_name`` in the
    error.

    Checks every constraint that does not depend on ``f`` or ``X``; sizes of
    metrics and directions are checked when the curvature is computed.

    Examples
    --------
    >>> check_curvature_keywords("my_scorer", kind="turning", metric="fisher")
    >>> try:
    ...     check_curvature_keywords("my_scorer", kind="bent")
    ... except ValueError as error:
    ...     print(str(error).split(" must")[0])
    The 'kind' parameter of my_scorer
    """
    unknown = sorted(set(options) - set(_OPTION_CONSTRAINTS))
    if unknown:
        raise TypeError(
            f"{caller_name} got unknown curvature keywords {unknown}; allowed: "
            f"{sorted(_OPTION_CONSTRAINTS)}."
        )
    refuse_bool_arguments(_OPTION_CONSTRAINTS, options, caller_name)
    validate_parameter_constraints(_OPTION_CONSTRAINTS, options, caller_name)
    _check_metric_options(
        options.get("metric"),
        options.get("condition_number"),
        options.get("covariance"),
    )
    _check_values_now(options.get("metric"), options.get("covariance"),
                      options.get("directions"))  # fmt: skip


def _check_values_now(metric, covariance, directions):
    """What can be checked of a metric, a covariance and directions before
    the representation's size is known: entries, symmetry, definiteness,
    finite non-zero directions (a scorer made with a negative metric once
    failed only at its first fold, after the models had trained). Their
    sizes are checked against the representation when it is measured."""
    for name, value in (("metric", metric), ("covariance", covariance)):
        if value is None or isinstance(value, str):
            continue
        array = _as_float64(name, value)
        if array.ndim > 2:
            raise ValueError(
                f"{name} must be a number, a vector or a square matrix; got "
                f"{array.ndim} dimensions."
            )
        size = array.shape[0] if array.ndim else 1  # as if the output's
        metric_, covariance_ = (array, None) if name == "metric" else (None, array)
        _whitening(metric_, None, covariance_, size)
    if directions is not None:
        V = _as_float64("directions", directions)
        if V.ndim != 2 or V.shape[0] == 0:
            raise ValueError(
                f"directions must have shape (k, n_features) with k >= 1, one "
                f"row per input direction; got shape {tuple(V.shape)}."
            )
        if not torch.isfinite(V).all() or not (V.norm(dim=1) > 0).all():
            raise ValueError("directions must be finite and non-zero.")


@validate_args(
    {"f": [callable], "X": ["array-like", torch.Tensor], **_OPTION_CONSTRAINTS},
    prefer_skip_nested_validation=True,
)
def curvature(
    f,
    X,
    *,
    kind="acceleration",
    method="exact",
    metric=None,
    condition_number=None,
    covariance=None,
    n_directions=8,
    eps=1e-2,
    random_state=0,
    directions=None,
):
    """Curvature of the map ``f`` at each row of ``X``.

    Parameters
    ----------
    f : callable
        Maps a float64 tensor (n, p) to a float64 tensor (n, ...), row by row
        (e.g. a ``.double()`` torch module). A ``jet(x, v)`` method, if present,
        gives exact derivatives in one pass (see :func:`directional_derivatives`);
        under the Euclidean metric, a ``euclidean_equivalent()`` method, if
        present, gives a map with the same geometry on fewer outputs (see
        :meth:`skgate.nn.RepresentationMap.euclidean_equivalent`), measured
        instead.
    X : array-like of shape (n, p)
        Points at which to measure, finite.
    {curvature_keywords}

    Returns
    -------
    ndarray of shape (n,), float64

    Examples
    --------
    >>> import torch
    >>> r = 2.0
    >>> circle = lambda t: r * torch.cat([torch.cos(t), torch.sin(t)], dim=1)
    >>> t = [[0.0], [1.0]]
    >>> curvature(circle, t, kind="acceleration").round(12).tolist()
    [2.0, 2.0]
    >>> curvature(circle, t, kind="extrinsic").round(12).tolist()
    [0.5, 0.5]
    >>> flat = curvature(lambda x: 3 * x + 1, [[0.0, 1.0]], kind="scalar")
    >>> bool(abs(flat).max() < 1e-12)
    True
    """
    if metric_name(metric) == "fisher":
        f = FisherRaoMap(f)
    options = {"metric": metric, "condition_number": condition_number}
    return _curvatures(
        f,
        X,
        [{**options, "covariance": covariance}],
        kind=kind,
        method=method,
        n_directions=n_directions,
        eps=eps,
        random_state=random_state,
        directions=directions,
    )[0]


def curvature_by_metric(f, X, metrics, **kwargs):
    """:func:`curvature` under each of several output metrics, from one
    evaluation of the derivatives (which the metrics share).

    Parameters
    ----------
    f, X
        As for :func:`curvature`.
    metrics : list of dict
        Each a set of metric options of :func:`curvature` (``metric``,
        ``condition_number``, ``covariance``; missing ones are None).
    **kwargs
        The other keywords of :func:`curvature` (kind, method, directions...).

    Returns
    -------
    ndarray of shape (len(metrics), n), float64
        Row ``i`` is ``curvature(f, X, **metrics[i], **kwargs)``.

    Examples
    --------
    >>> import torch
    >>> circle = lambda t: torch.cat([torch.cos(t), torch.sin(t)], dim=1)
    >>> curvature_by_metric(circle, [[0.0]], [{}, {"metric": 4.0}]).round(12).tolist()
    [[1.0], [2.0]]
    """
    names = ("metric", "condition_number", "covariance")
    if (
        not isinstance(metrics, (list, tuple))
        or not metrics
        or not all(isinstance(options, dict) for options in metrics)
    ):
        raise TypeError(
            f"metrics must be a non-empty list of dicts of metric options "
            f"({list(names)}); got {metrics!r}."
        )
    unknown = sorted({key for options in metrics for key in options} - set(names))
    if unknown:
        raise TypeError(f"metrics may hold only the keys {list(names)}; got {unknown}.")
    shared = sorted(set(kwargs) & set(names))
    if shared:
        raise TypeError(
            f"curvature_by_metric takes the metric options in metrics, not as "
            f"keywords; got {shared}."
        )
    for options in metrics:
        check_curvature_keywords("curvature_by_metric", **options)
        if metric_name(options.get("metric")) == "fisher":
            raise ValueError(
                "metric='fisher' measures another map (2 sqrt(softmax(f))), not "
                "f under another metric; use curvature(f, X, metric='fisher')."
            )
    check_curvature_keywords("curvature_by_metric", **kwargs)
    return _curvatures(
        f,
        X,
        [{name: options.get(name) for name in names} for options in metrics],
        **{
            name: kwargs.get(name, CURVATURE_KEYWORDS[name].default)
            for name in (
                "kind",
                "method",
                "n_directions",
                "eps",
                "random_state",
                "directions",
            )
        },
    )


def _curvatures(
    f, X, metrics, *, kind, method, n_directions, eps, random_state, directions
):
    """(len(metrics), n): the curvature under each metric's options."""
    for options in metrics:
        _check_metric_options(**options)
    if method == "finite_difference":
        _check_eps(eps)
    X = _checked_points(X)
    n, p = X.shape
    V = _directions(directions, n_directions, random_state, p, kind)
    intrinsic = kind in INTRINSIC_KINDS
    if intrinsic:
        V, i, j = _pair_directions(V)
    euclidean = all(
        options["metric"] is None and options["covariance"] is None
        for options in metrics
    )
    if euclidean and hasattr(f, "euclidean_equivalent"):
        # The same Euclidean geometry on fewer numbers (e.g. one of several
        # copied tokens, see RepresentationMap.euclidean_equivalent).
        f = f.euclidean_equivalent()
    m = _output_size(f, X)
    whitenings = [_whitening(**options, m=m) for options in metrics]
    # Rows f computes per point: x +- eps v and x, or a jet's value and its
    # two derivatives along each v (as many; so both methods' chunks hold as
    # much and stay in cache alike).
    evaluations = 2 * len(V) + 1
    points = min(_CHUNK_ELEMENTS // m, _CHUNK_EVALUATIONS)
    chunk = max(1, points // evaluations)
    values = [[] for _ in metrics]
    for start in range(0, n, chunk):
        derivatives = _derivatives_by_chunks(
            f, X[start : start + chunk], V, method, eps, points
        )
        for whiten, out in zip(whitenings, values, strict=True):
            velocity, acceleration = (whiten(d) for d in derivatives)
            if intrinsic:
                k = len(V) - len(i)
                out.append(_intrinsic_curvature(velocity, acceleration, k, i, j, kind))
            else:
                out.append(_curve_curvature(velocity, acceleration, kind).mean(dim=1))
    return np.stack([torch.cat(out).numpy() for out in values])


#: The keyword-only parameters of :func:`curvature`, in order, with their defaults.
CURVATURE_KEYWORDS = {
    name: parameter
    for name, parameter in inspect.signature(curvature).parameters.items()
    if parameter.kind is inspect.Parameter.KEYWORD_ONLY
}


def documents_curvature_keywords(function):
    """Give a function that takes the curvature keywords their shared docs.

    The line ``{curvature_keywords}`` of its docstring becomes the keywords'
    documentation. The function states the keywords in its own signature,
    with :func:`curvature`'s defaults (a test holds every such signature to
    :data:`CURVATURE_KEYWORDS`).
    """
    return fill_docstring(function, curvature_keywords=CURVATURE_KEYWORDS_DOC)


fill_docstring(curvature, curvature_keywords=CURVATURE_KEYWORDS_DOC)

"""The paper's two kinds of task: labels that need a curved boundary, and linear ones.

Both makers draw a latent centre ``c`` uniform in ``[-bound, bound]^2`` and return
``n_observations`` noisy observations ``c + N(0, noise^2 I)`` of it, flattened
observation-major: columns ``(x_1, y_1, x_2, y_2, ...)``. The label depends on
``c`` only, so the noise makes the task harder without changing its boundary.
With ``n_observations > 1`` a row is a sequence of 2-D tokens: fit it with
``GatedAttentionClassifier(token_dim=2)``.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ._docstrings import fill_docstring
from ._params import validate_args

__all__ = [
    "bayes_accuracy",
    "class_capacity",
    "make_curved_task",
    "make_linear_task",
    "CURVED_SHAPES",
]

#: The decision boundaries :func:`make_curved_task` draws.
CURVED_SHAPES = ("circle", "cross", "checkerboard", "rings")

_COMMON_CONSTRAINTS = {
    "n_samples": [Interval(Integral, 1, None, closed="left")],
    "n_observations": [Interval(Integral, 1, None, closed="left")],
    "noise": [Interval(Real, 0, None, closed="left")],
    "bound": [Interval(Real, 0, None, closed="neither")],
    "return_latent": ["boolean"],
    "random_state": ["random_state"],
}


def _curved_labels(c, shape, bound, n_classes=2):
    """Labels of latent centres ``c`` (n, 2) for a curved ``shape``: booleans
    (class 1) for two classes, else ints in 0..n_classes - 1."""
    if n_classes != 2:
        return _multiclass_labels(c, shape, bound, n_classes)
    radius = np.hypot(c[:, 0], c[:, 1])
    if shape == "circle":
        # Area of the circle = half the area of the square (2 bound)^2.
        return radius < bound * np.sqrt(2 / np.pi)
    if shape == "cross":
        return c[:, 0] * c[:, 1] > 0
    if shape == "checkerboard":
        return np.sin(np.pi * c[:, 0]) * np.sin(np.pi * c[:, 1]) > 0
    # "rings": annuli of width bound / 4 alternate classes; about 52 % are 1.
    return np.floor(radius / (bound / 4)) % 2 == 1


def _multiclass_labels(c, shape, bound, n_classes):
    """``n_classes`` labels of latent centres ``c`` (n, 2), each shape's
    boundaries generalised: "circle", discs of equal area (the last class
    also takes the square's corners); "cross", alternating angular sectors
    of pi / n_classes; "checkerboard", unit cells labelled (i + j) mod n;
    "rings", annuli of width bound / 4 labelled in turn."""
    radius = np.hypot(c[:, 0], c[:, 1])
    if shape == "circle":
        share = np.pi * radius**2 / (2 * bound) ** 2
        return np.minimum(np.floor(share * n_classes), n_classes - 1).astype(np.int64)
    if shape == "cross":
        angle = np.mod(np.arctan2(c[:, 1], c[:, 0]), 2 * np.pi)
        return (np.floor(angle / (np.pi / n_classes)) % n_classes).astype(np.int64)
    if shape == "checkerboard":
        cells = np.floor(c[:, 0]) + np.floor(c[:, 1])
        return (cells % n_classes).astype(np.int64)
    return (np.floor(radius / (bound / 4)) % n_classes).astype(np.int64)


@validate_args(
    {
        "shape": [StrOptions(set(CURVED_SHAPES))],
        "bound": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def class_capacity(shape, bound=2.0):
    """The most classes ``shape`` can label in ``[-bound, bound]^2``.

    "checkerboard" labels (i + j) mod n over the cells' index sums (from
    2 floor(-bound) to 2 (ceil(bound) - 1)); "rings" its annuli of width
    bound / 4 out to the corner (floor(4 sqrt 2) + 1 = 6); "circle" and
    "cross" any number (equal areas, equal sectors).

    Parameters
    ----------
    shape : {"circle", "cross", "checkerboard", "rings"}
        A shape of :func:`make_curved_task` (the linear task has 2 classes).
    bound : float > 0, default=2.0
        The half-width of the square the centres are drawn in (finite).

    Returns
    -------
    int or None
        The largest ``n_classes`` the shape takes; None: any number.

    Examples
    --------
    >>> class_capacity("rings"), class_capacity("checkerboard")
    (6, 7)
    """
    if shape == "checkerboard":
        return int(2 * (np.ceil(bound) - 1 - np.floor(-bound)) + 1)
    if shape == "rings":
        return int(np.floor(4 * np.sqrt(2))) + 1
    return None  # no limit


def _check_capacity(shape, bound, n_classes):
    capacity = class_capacity(shape, bound)
    if capacity is not None and n_classes > capacity:
        parts = "cells" if shape == "checkerboard" else "annuli"
        raise ValueError(
            f"n_classes={n_classes}: shape={shape!r} with bound={bound:g} labels at "
            f"most {capacity} classes (by its {parts}); ask for at most "
            f"{capacity}, or use shape='circle' or 'cross', which take any number."
        )


def _observe(n_samples, n_observations, noise, bound, rng):
    """Latent centres (n, 2) and their noisy observations (n, 2 n_observations)."""
    c = rng.uniform(-bound, bound, size=(n_samples, 2))
    eps = rng.normal(scale=noise, size=(n_samples, n_observations, 2))
    X = (c[:, None, :] + eps).reshape(n_samples, 2 * n_observations)
    return c, X


#: The Returns section both makers share.
_RETURNS_DOC = """\
Returns
-------
X : ndarray of shape (n_samples, 2 * n_observations), float64
y : ndarray of shape (n_samples,), int64 in {0, 1} (make_curved_task: in
    0..n_classes - 1)
C : ndarray of shape (n_samples, 2), float64
    The latent centres; only with ``return_latent=True``.
"""


def _returned(X, labels, c, return_latent):
    y = labels.astype(np.int64)
    return (X, y, c) if return_latent else (X, y)


@validate_args(
    {
        **_COMMON_CONSTRAINTS,
        "shape": [StrOptions(set(CURVED_SHAPES))],
        "n_classes": [Interval(Integral, 2, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def make_curved_task(
    n_samples=1000,
    *,
    shape="circle",
    n_observations=1,
    noise=0.2,
    bound=2.0,
    n_classes=2,
    return_latent=False,
    random_state=None,
):
    """A task whose decision boundaries are curved (two classes or more).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows.
    shape : {"circle", "cross", "checkerboard", "rings"}, default="circle"
        The boundary, in the latent centre ``c``: "circle", inside the circle
        of area half the square; "cross", ``c1 c2 > 0``; "checkerboard",
        ``sin(pi c1) sin(pi c2) > 0`` (unit cells); "rings", alternating
        concentric annuli of width ``bound / 4``. Each is roughly balanced
        (rings: about 52 % ones).
    n_observations : int, default=1
        Noisy observations of ``c`` per row; ``X`` has ``2 * n_observations``
        columns, observation-major.
    noise : float, default=0.2
        Standard deviation of the Gaussian observation noise.
    bound : float, default=2.0
        ``c`` is uniform in ``[-bound, bound]^2``.
    n_classes : int >= 2, default=2
        With more than 2, each shape's boundaries generalised: "circle",
        discs of equal area (the last class also takes the square's
        corners); "cross", alternating angular sectors of ``pi / n_classes``;
        "checkerboard", unit cells labelled ``(i + j) mod n_classes``;
        "rings", the annuli labelled in turn. The draws are the same for
        every ``n_classes`` (only the labels differ). "checkerboard" and
        "rings" have room for so many classes (:func:`class_capacity`: 7
        and 6 at the default bound); more is refused.
    return_latent : bool, default=False
        Also return the latent centres.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    {returns}

    Examples
    --------
    >>> from skgate import make_curved_task
    >>> X, y = make_curved_task(500, shape="checkerboard", random_state=0)
    >>> X.shape, y.shape, int(y.sum())  # 236 of the 500 in class 1
    ((500, 2), (500,), 236)
    >>> X, y, C = make_curved_task(10, n_observations=4, return_latent=True,
    ...                            random_state=0)
    >>> X.shape, C.shape
    ((10, 8), (10, 2))
    """
    _check_capacity(shape, bound, n_classes)
    rng = check_random_state(random_state)
    c, X = _observe(n_samples, n_observations, noise, bound, rng)
    return _returned(X, _curved_labels(c, shape, bound, n_classes), c, return_latent)


@validate_args(
    {**_COMMON_CONSTRAINTS, "weights": ["array-like"]},
    prefer_skip_nested_validation=True,
)
def make_linear_task(
    n_samples=1000,
    *,
    weights=(1.0, -0.5),
    n_observations=1,
    noise=0.2,
    bound=2.0,
    return_latent=False,
    random_state=None,
):
    """A binary task whose decision boundary is a line: ``weights @ c == 0``.

    The control task of the paper: a flat representation suffices, so gating
    should not help. Parameters, returns and layout are those of
    :func:`make_curved_task`, with ``weights`` in place of ``shape``.

    Parameters
    ----------
    n_samples : int, default=1000
    weights : array-like of 2 finite floats, not both 0, default=(1.0, -0.5)
        Normal of the boundary through the origin; the label is ``weights . c > 0``.
    n_observations : int, default=1
    noise : float, default=0.2
    bound : float, default=2.0
    return_latent : bool, default=False
    random_state : int, RandomState instance or None, default=None

    {returns}

    Examples
    --------
    >>> from skgate import make_linear_task
    >>> X, y, C = make_linear_task(5, return_latent=True, random_state=0)
    >>> bool(((C @ [1.0, -0.5] > 0) == y).all())
    True
    """
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"weights must be 2 finite real numbers, not both 0; got {weights!r}."
        ) from exc
    if w.shape != (2,) or not np.all(np.isfinite(w)) or not np.any(w):
        raise ValueError(
            f"weights must be 2 finite real numbers, not both 0; got {weights!r}."
        )
    rng = check_random_state(random_state)
    c, X = _observe(n_samples, n_observations, noise, bound, rng)
    return _returned(X, c @ w > 0, c, return_latent)


fill_docstring(make_curved_task, returns=_RETURNS_DOC)
fill_docstring(make_linear_task, returns=_RETURNS_DOC)


def _task_labels(shape, bound, weights, n_classes):
    """The labelling of latent centres of a task of these makers."""
    if shape == "linear":
        return lambda c: c @ weights > 0
    return lambda c: _curved_labels(c, shape, bound, n_classes)


def _bayes_hits(drawn, inside, truth, n_classes):
    """How many rows the plug-in Bayes decision labels right: the most
    probable label among each row's posterior draws (``drawn``, kept where
    ``inside`` the square), scored on the rows' true labels: an unbiased
    estimate of its accuracy (max(p, 1 - p) would be biased up by the Monte
    Carlo noise in p)."""
    if n_classes == 2:
        p = (drawn & inside).sum(axis=1) / np.maximum(inside.sum(axis=1), 1)
        return ((p > 0.5) == truth).sum()
    counts = np.stack(
        [((drawn == k) & inside).sum(axis=1) for k in range(n_classes)], 1
    )
    return (counts.argmax(axis=1) == truth).sum()


@validate_args(
    {
        "shape": [StrOptions({*CURVED_SHAPES, "linear"})],
        "n_observations": [Interval(Integral, 1, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "bound": [Interval(Real, 0, None, closed="neither")],
        "weights": ["array-like"],
        "n_points": [Interval(Integral, 1, None, closed="left")],
        "n_draws": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_classes": [Interval(Integral, 2, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def bayes_accuracy(
    shape,
    *,
    n_observations=1,
    noise=0.2,
    bound=2.0,
    weights=(1.0, -0.5),
    n_points=20_000,
    n_draws=2_000,
    random_state=0,
    n_classes=2,
):
    """The best accuracy any classifier can reach on a task of these makers.

    The label depends on the latent centre ``c`` only and a row holds
    ``n_observations`` observations ``c + N(0, noise^2 I)``, whose mean
    ``m ~ N(c, noise^2 / n_observations I)`` carries everything they say
    about ``c``. The Bayes classifier predicts the more probable label given
    ``m``: label 1 when ``p(m) = P(label(c) = 1 | m) > 1/2``. Monte Carlo,
    both levels: ``n_points`` rows drawn from the generator, for each
    ``n_draws`` centres from the posterior (``m`` plus Gaussian noise, kept
    when inside the square, the uniform prior) estimate ``p(m)``, and the
    decision is scored against the rows' true labels. The standard error is
    ``sqrt(a (1 - a) / n_points)``, about 0.002 at the defaults; the
    estimate of ``p`` errs only near ``p = 1/2``, where either label is
    nearly as good, so the result is within a standard error or two of the
    exact Bayes accuracy (on either side: a Monte Carlo estimate, not a
    bound).

    Parameters
    ----------
    shape : {"circle", "cross", "checkerboard", "rings", "linear"}
        The task: a shape of :func:`make_curved_task`, or "linear" for
        :func:`make_linear_task` (with ``weights``).
    n_observations, noise, bound : as in the makers
    weights : array-like of 2 floats, default=(1.0, -0.5)
        The linear task's normal (used with ``shape="linear"``).
    n_points, n_draws : int, default=20_000, 2_000
    random_state : int, RandomState instance or None, default=0
    n_classes : int >= 2, default=2
        Classes of a curved shape (:func:`make_curved_task`'s); with more
        than 2 the Bayes rule predicts the most probable class given ``m``.

    Returns
    -------
    accuracy : float
        The share of the ``n_points`` rows the Bayes rule labels right.

    Examples
    --------
    >>> from skgate.datasets import bayes_accuracy
    >>> round(bayes_accuracy("circle", noise=0.0, n_points=200, n_draws=10), 3)
    1.0
    """
    rng = check_random_state(random_state)
    w = np.asarray(weights, dtype=np.float64)

    if shape == "linear" and n_classes != 2:
        raise ValueError(f"the linear task has 2 classes; got n_classes={n_classes}.")
    _check_capacity(shape, bound, n_classes)
    labels = _task_labels(shape, bound, w, n_classes)

    c, X = _observe(n_points, n_observations, noise, bound, rng)
    if noise == 0:
        return 1.0
    m = X.reshape(n_points, n_observations, 2).mean(axis=1)
    scale = noise / np.sqrt(n_observations)
    correct = 0.0
    for start in range(0, n_points, 500):
        centre = m[start : start + 500]
        draws = centre[:, None, :] + scale * rng.standard_normal(
            (len(centre), n_draws, 2)
        )
        inside = (np.abs(draws) <= bound).all(axis=2)
        drawn = labels(draws.reshape(-1, 2)).reshape(inside.shape)
        truth = labels(c[start : start + 500])
        correct += _bayes_hits(drawn, inside, truth, n_classes)
    return float(correct / n_points)

"""C6's constructive test: fit the input square onto a cap of a sphere.

Targets lie on the sphere of radius :data:`RADIUS` over the square
[-1, 1]^2: y = (x1, x2, sqrt(R^2 - x1^2 - x2^2)), a surface of Gaussian
curvature 1 / R^2 everywhere. A :class:`~skgate.GatedAttentionRegressor`
(linear head, so the fitted surface is the representation's image under one
linear map) is fitted to it; the fitted map's Gaussian curvature is measured
where the targets live, in the targets' units (the regressor standardises
targets inside; the metric ``y_scale_**2`` undoes that, because Gaussian
curvature is not invariant under anisotropic scaling of the ambient space).
Ungated attention over copied tokens is affine in its input whatever it is
trained on: its fitted surface is a plane, K = 0 exactly.
"""

import time
from numbers import Integral

import numpy as np

from skgate.estimators import GatedAttentionRegressor
from skgate.parallel import MODELS_PER_JOB, equal_parts, fit_together

from .design import RADIUS, SPHERE_GATES, sphere_settings
from .sweeps import run_groups, torch_threads

__all__ = [
    "RADIUS",
    "SPHERE_GATES",
    "fit_sphere_examples",
    "make_sphere_cap",
    "run_sphere",
    "sphere_settings",
]

#: Held-out points per fit (R^2), of which the first N_CURVATURE are measured.
N_TEST, N_CURVATURE = 500, 200


def make_sphere_cap(n_samples, *, radius=RADIUS, random_state=None):
    """``n_samples`` points uniform in [-1, 1]^2 and their images on the
    sphere of ``radius`` (the cap above the square; needs radius > sqrt(2)).

    Examples
    --------
    >>> X, Y = make_sphere_cap(3, random_state=0)
    >>> X.shape, Y.shape, bool(np.allclose((Y**2).sum(axis=1), RADIUS**2))
    ((3, 2), (3, 3), True)
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, Integral):
        raise TypeError(f"n_samples must be an int; got {n_samples!r}.")
    if n_samples < 0:
        raise ValueError(f"n_samples must be >= 0; got {n_samples}.")
    if not (np.isfinite(radius) and radius > np.sqrt(2)):
        raise ValueError(
            f"radius must be finite and exceed sqrt(2) (the square's corners); "
            f"got {radius!r}."
        )
    rng = np.random.default_rng(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, 2))
    height = np.sqrt(radius**2 - (X**2).sum(axis=1))
    return X, np.column_stack([X, height])


def fit_sphere_examples(n_samples=300, max_epochs=200):
    """(title, fitted regressor) for each of :data:`SPHERE_GATES`, seed 0:
    the surfaces the sphere-cap figure draws."""
    X, Y = make_sphere_cap(n_samples, random_state=0)
    return [
        (
            f"{gate}, {n_samples} rows, {max_epochs} epochs",
            GatedAttentionRegressor(
                gate=gate, head="linear", max_epochs=max_epochs, random_state=0
            ).fit(X, Y),
        )
        for gate in SPHERE_GATES
    ]


def _gaussian_beyond_floor(regressor, X, **where):
    """Exact Gaussian curvature at ``X`` and whether each point's is above
    its noise floor ``|K_exact - K_fd|`` (the disagreement with float64
    central differences, step 0.01): a sign smaller than that is not
    counted."""
    K = {
        method: regressor.curvature(X, kind="gaussian", method=method, **where)
        for method in ("exact", "finite_difference")
    }
    return K["exact"], K["exact"] > np.abs(K["exact"] - K["finite_difference"])


def _measure(regressor, X_test, Y_test):
    """R^2 and the fitted map's Gaussian curvature (target units) on the
    first :data:`N_CURVATURE` held-out points, and the representation's
    (the layer the claim is about): medians, and the shares of points whose
    K is positive beyond its noise floor."""
    X_curv = X_test[:N_CURVATURE]
    target = 1 / RADIUS**2
    K, positive = _gaussian_beyond_floor(
        regressor, X_curv, layer="logits", metric=regressor.y_scale_**2
    )
    K_representation, positive_representation = _gaussian_beyond_floor(
        regressor, X_curv
    )
    return {
        "r2": regressor.score(X_test, Y_test),
        "median_K": np.median(K),
        "mean_K": np.mean(K),
        "positive_share": np.mean(positive),
        # How far the fitted surface's curvature is from the sphere's, the
        # median over points of |K - 1/R^2| relative to 1/R^2.
        "relative_error": np.median(np.abs(K - target)) / target,
        "representation_median_K": np.median(K_representation),
        "representation_positive_share": np.mean(positive_representation),
    }


def _run_batch(settings):
    """Fit a batch of settings (same gate, rows and epochs) as one network."""
    regressors, data, tests = [], [], []
    for s in settings:
        X, Y = make_sphere_cap(s["n_samples"] + N_TEST, random_state=s["seed"])
        regressors.append(
            GatedAttentionRegressor(
                gate=s["gate"],
                head="linear",
                max_epochs=s["max_epochs"],
                random_state=s["seed"],
            )
        )
        data.append((X[: s["n_samples"]], Y[: s["n_samples"]], None))
        tests.append((X[s["n_samples"] :], Y[s["n_samples"] :]))
    with torch_threads(1):
        start = time.perf_counter()
        fit_together(regressors, data)
        seconds = (time.perf_counter() - start) / len(settings)
        return [
            {**s, **_measure(regressor, *test), "fit_seconds": seconds}
            for s, regressor, test in zip(settings, regressors, tests, strict=True)
        ]


def run_sphere(settings, *, n_jobs=1, progress=True):
    """Fit and measure every setting, one row each (in the order given);
    settings differing only in the seed train as one batched network."""
    groups = {}
    for i, s in enumerate(settings):
        groups.setdefault((s["gate"], s["n_samples"], s["max_epochs"]), []).append(i)
    parts = [p for group in groups.values() for p in equal_parts(group, MODELS_PER_JOB)]
    return run_groups(
        settings,
        parts,
        _run_batch,
        n_jobs=n_jobs,
        progress=progress,
        description="sphere",
    )

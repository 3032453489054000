"""Property-based tests (hypothesis): invariances of the geometry, laws of the data."""

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skgate import make_curved_task, make_linear_task
from skgate.datasets import CURVED_SHAPES
from skgate.geometry import DegenerateMetricWarning, curvature

SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
KINDS = ["acceleration", "extrinsic", "gaussian", "scalar"]
seeds = st.integers(0, 2**31 - 1)


def smooth_map(seed, p=2, hidden=6, m=4):
    """A random smooth map R^p -> R^m: tanh(x A + b) B."""
    gen = torch.Generator().manual_seed(seed)
    A = torch.randn(p, hidden, dtype=torch.float64, generator=gen)
    b = torch.randn(hidden, dtype=torch.float64, generator=gen)
    B = torch.randn(hidden, m, dtype=torch.float64, generator=gen)
    return lambda x: torch.tanh(x @ A + b) @ B


def points(seed, n=5, p=2):
    return np.random.default_rng(seed).normal(size=(n, p))


def rotation(seed, m=4):
    q, r = np.linalg.qr(np.random.default_rng(seed).normal(size=(m, m)))
    return torch.tensor(q * np.sign(np.diag(r)))


@SETTINGS
@given(seed=seeds, shift=st.floats(-100, 100))
def test_isometries_of_the_output_change_no_kind(seed, shift):
    f, Q = smooth_map(seed), rotation(seed + 1)
    moved = lambda x: f(x) @ Q + shift  # noqa: E731
    X = points(seed)
    for kind in KINDS:
        np.testing.assert_allclose(
            curvature(moved, X, kind=kind),
            curvature(f, X, kind=kind),
            rtol=1e-8,
            atol=1e-10,
        )


@SETTINGS
@given(seed=seeds, c=st.floats(0.1, 10))
def test_scaling_the_output(seed, c):
    f, X = smooth_map(seed), points(seed)
    scaled = lambda x: c * f(x)  # noqa: E731
    for kind, power in [
        ("acceleration", 1),
        ("extrinsic", -1),
        ("gaussian", -2),
        ("scalar", -2),
    ]:
        np.testing.assert_allclose(
            curvature(scaled, X, kind=kind),
            c**power * curvature(f, X, kind=kind),
            rtol=1e-8,
            atol=1e-10,
        )


@SETTINGS
@given(seed=seeds, c=st.floats(0.2, 5))
def test_extrinsic_curvature_ignores_the_speed_of_the_line(seed, c):
    # g(x) = f(c x) traces the same curves c times faster: at x / c, the
    # extrinsic curvature is f's, the acceleration c^2 times f's.
    f, X = smooth_map(seed), points(seed)
    g = lambda x: f(c * x)  # noqa: E731
    np.testing.assert_allclose(
        curvature(g, X / c, kind="extrinsic"),
        curvature(f, X, kind="extrinsic"),
        rtol=1e-8,
        atol=1e-10,
    )
    np.testing.assert_allclose(
        curvature(g, X / c, kind="acceleration"),
        c**2 * curvature(f, X, kind="acceleration"),
        rtol=1e-8,
        atol=1e-10,
    )


@SETTINGS
@given(seed=seeds, p=st.integers(1, 4), m=st.integers(1, 6))
def test_affine_maps_are_flat_for_every_kind(seed, p, m):
    gen = torch.Generator().manual_seed(seed)
    A = torch.randn(p, m, dtype=torch.float64, generator=gen)
    b = torch.randn(m, dtype=torch.float64, generator=gen)
    X = points(seed, p=p)
    for kind in KINDS:
        if kind == "gaussian" and p < 2:
            continue
        for method in ("exact", "finite_difference"):
            if kind in ("gaussian", "scalar") and m < p:
                # The image has fewer dimensions than the frame: no surface,
                # so no intrinsic curvature (NaN with a warning, not 0).
                with pytest.warns(DegenerateMetricWarning):
                    kappa = curvature(lambda x: x @ A + b, X, kind=kind, method=method)
                assert np.isnan(kappa).all()
                continue
            kappa = curvature(lambda x: x @ A + b, X, kind=kind, method=method)
            assert np.abs(kappa).max() < 1e-8


@SETTINGS
@given(
    n=st.integers(1, 300),
    n_observations=st.integers(1, 5),
    noise=st.floats(0, 3),
    bound=st.floats(0.1, 10),
    shape=st.sampled_from(CURVED_SHAPES),
    seed=seeds,
)
def test_curved_task_shapes_dtypes_bounds(n, n_observations, noise, bound, shape, seed):
    X, y, C = make_curved_task(
        n,
        shape=shape,
        n_observations=n_observations,
        noise=noise,
        bound=bound,
        return_latent=True,
        random_state=seed,
    )
    assert X.shape == (n, 2 * n_observations) and X.dtype == np.float64
    assert y.shape == (n,) and y.dtype == np.int64 and set(y) <= {0, 1}
    assert C.shape == (n, 2) and np.abs(C).max() <= bound
    assert np.isfinite(X).all()


@SETTINGS
@given(
    shape=st.sampled_from(CURVED_SHAPES),
    bound=st.floats(0.5, 10),
    seed=seeds,
)
def test_curved_tasks_are_roughly_balanced_at_any_scale(shape, bound, seed):
    _, y = make_curved_task(4000, shape=shape, bound=bound, random_state=seed)
    assert 0.44 < y.mean() < 0.56


@SETTINGS
@given(
    w=st.tuples(st.floats(-5, 5), st.floats(-5, 5)).filter(
        lambda w: abs(w[0]) + abs(w[1]) > 1e-3
    ),
    seed=seeds,
)
def test_linear_task_follows_its_weights(w, seed):
    _, y, C = make_linear_task(500, weights=w, return_latent=True, random_state=seed)
    np.testing.assert_array_equal(y, (C @ np.asarray(w) > 0).astype(np.int64))
    _, y = make_linear_task(4000, weights=w, random_state=seed)
    assert 0.4 < y.mean() < 0.6  # the boundary passes through the centre

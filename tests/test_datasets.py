"""make_curved_task and make_linear_task: shapes, labels, determinism, errors."""

import numpy as np
import pytest

from skgate import make_curved_task, make_linear_task
from skgate.datasets import CURVED_SHAPES, bayes_accuracy

MAKERS = [make_curved_task, make_linear_task]


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("n_observations", [1, 4])
def test_shapes_and_dtypes(maker, n_observations):
    X, y, C = maker(
        37, n_observations=n_observations, return_latent=True, random_state=0
    )
    assert X.shape == (37, 2 * n_observations) and X.dtype == np.float64
    assert y.shape == (37,) and y.dtype == np.int64
    assert C.shape == (37, 2) and C.dtype == np.float64
    assert set(np.unique(y)) <= {0, 1}
    assert len(maker(37, random_state=0)) == 2


@pytest.mark.parametrize("maker", MAKERS)
def test_deterministic_under_random_state(maker):
    first = maker(50, random_state=3, return_latent=True)
    second = maker(50, random_state=3, return_latent=True)
    other = maker(50, random_state=4, return_latent=True)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])


@pytest.mark.parametrize("maker", MAKERS)
def test_observations_are_noisy_copies_of_the_latent_centre(maker):
    X, _, C = maker(
        20000,
        n_observations=3,
        noise=0.5,
        bound=3.0,
        return_latent=True,
        random_state=0,
    )
    assert np.abs(C).max() <= 3.0
    assert C.min(axis=0) == pytest.approx([-3, -3], abs=0.01)
    # Observation-major: columns (x1, y1, x2, y2, x3, y3).
    noise = X.reshape(-1, 3, 2) - C[:, None, :]
    assert noise.mean() == pytest.approx(0, abs=0.01)
    assert noise.std(axis=0) == pytest.approx(np.full((3, 2), 0.5), rel=0.03)
    exact, _, C0 = maker(
        10, noise=0.0, n_observations=2, return_latent=True, random_state=0
    )
    np.testing.assert_array_equal(exact, np.tile(C0, 2))


@pytest.mark.parametrize("shape", CURVED_SHAPES)
def test_curved_shapes_are_roughly_balanced(shape):
    _, y = make_curved_task(20000, shape=shape, random_state=0)
    assert 0.45 < y.mean() < 0.55


def test_curved_labels_follow_the_latent_centre():
    bound = 2.0
    C_kw = {"n_samples": 2000, "return_latent": True, "random_state": 1}
    _, y, C = make_curved_task(shape="circle", **C_kw)
    radius = np.hypot(*C.T)
    np.testing.assert_array_equal(y, radius < bound * np.sqrt(2 / np.pi))
    _, y, C = make_curved_task(shape="cross", **C_kw)
    np.testing.assert_array_equal(y, np.sign(C[:, 0]) == np.sign(C[:, 1]))
    _, y, C = make_curved_task(shape="checkerboard", **C_kw)
    cell = np.floor(C).astype(int)  # unit cells of sin(pi c1) sin(pi c2)
    np.testing.assert_array_equal(y, (cell.sum(axis=1) % 2 == 0))
    _, y, C = make_curved_task(shape="rings", **C_kw)
    ring = np.floor(np.hypot(*C.T) / 0.5).astype(int)
    np.testing.assert_array_equal(y, ring % 2)


def test_labels_ignore_the_noise():
    _, y_clean = make_curved_task(500, noise=0.0, random_state=0)
    _, y_noisy = make_curved_task(500, noise=1.0, random_state=0)
    np.testing.assert_array_equal(y_clean, y_noisy)


def test_linear_labels_follow_weights():
    _, y, C = make_linear_task(
        1000, weights=[0.0, 2.0], return_latent=True, random_state=0
    )
    np.testing.assert_array_equal(y, C[:, 1] > 0)
    _, y, C = make_linear_task(1000, return_latent=True, random_state=0)
    np.testing.assert_array_equal(y, C @ [1.0, -0.5] > 0)
    assert 0.45 < y.mean() < 0.55


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_samples": 0}, "'n_samples' parameter of .* must be an int in the range"),
        ({"n_samples": 2.5}, "'n_samples' parameter"),
        ({"n_samples": "10"}, "'n_samples' parameter"),
        ({"n_observations": 0}, "'n_observations' parameter"),
        ({"noise": -0.1}, "'noise' parameter .* range \\[0.0, inf\\)\\. Got -0.1"),
        ({"noise": float("nan")}, "'noise' parameter"),
        ({"bound": 0.0}, "'bound' parameter .* range \\(0.0, inf\\)"),
        ({"return_latent": "yes"}, "'return_latent' parameter"),
        ({"random_state": "seed"}, "'random_state' parameter"),
    ],
)
def test_bad_common_arguments(maker, kwargs, match):
    with pytest.raises(ValueError, match=match):
        maker(**kwargs)


def test_bad_shape():
    with pytest.raises(
        ValueError, match="'shape' parameter .*'checkerboard'.*Got 'square'"
    ):
        make_curved_task(shape="square")


@pytest.mark.parametrize(
    "weights, error",
    [
        ((0.0, 0.0), ValueError),
        ((1.0, 2.0, 3.0), ValueError),
        ((1.0, float("nan")), ValueError),
        ([[1.0, 2.0]], ValueError),
        (("a", "b"), TypeError),
    ],
)
def test_bad_weights(weights, error):
    with pytest.raises(error, match="weights must be 2 finite real numbers"):
        make_linear_task(weights=weights)


# -- bayes_accuracy -------------------------------------------------------------


def _cross_bayes_by_quadrature(noise, n_observations, bound=2.0, grid=801):
    """The cross task's Bayes accuracy by quadrature, independent of the
    Monte Carlo: its label c1 c2 > 0 factorises, so P(c_i > 0 | m_i) is a
    truncated normal's mass, and the mean m has density (1 / 2b) (Phi((b - m)
    / s) - Phi((-b - m) / s)) per coordinate."""
    from scipy.stats import norm

    s = noise / np.sqrt(n_observations)
    m = np.linspace(-bound - 6 * s, bound + 6 * s, grid)
    upper, lower = norm.cdf((bound - m) / s), norm.cdf((-bound - m) / s)
    density = (upper - lower) / (2 * bound)
    positive = (upper - norm.cdf(-m / s)) / (upper - lower)
    q1, q2 = np.meshgrid(positive, positive, indexing="ij")
    p = q1 * q2 + (1 - q1) * (1 - q2)
    weight = np.outer(density, density) * (m[1] - m[0]) ** 2
    return float((weight * np.maximum(p, 1 - p)).sum() / weight.sum())


@pytest.mark.parametrize("noise, n_observations", [(0.2, 1), (0.5, 1), (0.5, 4)])
def test_bayes_accuracy_matches_quadrature_on_the_cross(noise, n_observations):
    exact = _cross_bayes_by_quadrature(noise, n_observations)
    estimate = bayes_accuracy(
        "cross",
        noise=noise,
        n_observations=n_observations,
        n_points=20_000,
        n_draws=1_000,
        random_state=0,
    )
    se = np.sqrt(exact * (1 - exact) / 20_000)
    assert abs(estimate - exact) < 4 * se  # measured: within 2 standard errors


def test_bayes_accuracy_limits():
    assert bayes_accuracy("rings", noise=0.0, n_points=100) == 1.0
    many = bayes_accuracy(
        "checkerboard", noise=0.2, n_observations=8, n_points=4000, n_draws=500
    )
    few = bayes_accuracy("checkerboard", noise=0.2, n_points=4000, n_draws=500)
    assert 0.5 < few < many < 1.0  # more observations, a sharper posterior
    assert bayes_accuracy("linear", noise=50.0, n_points=4000, n_draws=200) < 0.6


def test_bayes_accuracy_bad_input():
    with pytest.raises(ValueError, match="shape"):
        bayes_accuracy("spiral")
    with pytest.raises(ValueError, match="noise"):
        bayes_accuracy("circle", noise=-1.0)


class TestMulticlassTasks:
    @pytest.mark.parametrize("shape", ["circle", "cross", "checkerboard", "rings"])
    @pytest.mark.parametrize("n_classes", [3, 5])
    def test_labels_follow_the_latent_centre(self, shape, n_classes):
        X, y, C = make_curved_task(
            3000, shape=shape, n_classes=n_classes, return_latent=True, random_state=0
        )
        assert set(np.unique(y)) == set(range(n_classes))
        binary_X, _ = make_curved_task(3000, shape=shape, random_state=0)
        np.testing.assert_array_equal(X, binary_X)  # the same draws, other labels
        radius = np.hypot(C[:, 0], C[:, 1])
        expected = {
            "checkerboard": (np.floor(C[:, 0]) + np.floor(C[:, 1])) % n_classes,
            "rings": np.floor(radius / 0.5) % n_classes,
            "circle": np.minimum(
                np.floor(np.pi * radius**2 / 16 * n_classes), n_classes - 1
            ),
            "cross": np.floor(
                np.mod(np.arctan2(C[:, 1], C[:, 0]), 2 * np.pi) / (np.pi / n_classes)
            )
            % n_classes,
        }[shape]
        np.testing.assert_array_equal(y, expected.astype(np.int64))

    def test_two_classes_are_the_binary_task(self):
        for shape in ("circle", "rings"):
            a = make_curved_task(200, shape=shape, random_state=1)
            b = make_curved_task(200, shape=shape, n_classes=2, random_state=1)
            np.testing.assert_array_equal(a[1], b[1])
            assert bayes_accuracy(shape, n_points=300, n_draws=50) == bayes_accuracy(
                shape, n_points=300, n_draws=50, n_classes=2
            )

    def test_bayes_accuracy_of_several_classes(self):
        assert bayes_accuracy("rings", noise=0.0, n_classes=3, n_points=100) == 1.0
        few = bayes_accuracy("checkerboard", n_classes=3, n_points=2000, n_draws=300)
        more = bayes_accuracy(
            "checkerboard", noise=0.4, n_classes=3, n_points=2000, n_draws=300
        )
        assert 1 / 3 < more < few < 1.0
        with pytest.raises(ValueError, match="the linear task has 2 classes"):
            bayes_accuracy("linear", n_classes=3)
        with pytest.raises(ValueError, match="n_classes"):
            make_curved_task(10, n_classes=1)


@pytest.mark.parametrize("bound", [0.5, 1.0, 2.0, 2.5, 3.0])
@pytest.mark.parametrize("shape", ["checkerboard", "rings"])
def test_every_class_asked_for_up_to_the_capacity(shape, bound):
    """Up to a shape's capacity every class is delivered; beyond, refused
    naming the capacity (make_curved_task and bayes_accuracy alike)."""
    from skgate.datasets import bayes_accuracy, class_capacity

    capacity = class_capacity(shape, bound)
    for n_classes in range(2, capacity + 1):
        _, y = make_curved_task(20_000, shape=shape, bound=bound, noise=0.0,
                                n_classes=n_classes, random_state=0)  # fmt: skip
        assert np.unique(y).tolist() == list(range(n_classes))
    with pytest.raises(ValueError, match=f"at most {capacity} classes"):
        make_curved_task(10, shape=shape, bound=bound, n_classes=capacity + 1)
    with pytest.raises(ValueError, match=f"at most {capacity} classes"):
        bayes_accuracy(shape, bound=bound, n_classes=capacity + 1, n_points=10)


def test_circle_and_cross_take_any_number_of_classes():
    for shape in ("circle", "cross"):
        _, y = make_curved_task(20_000, shape=shape, n_classes=12, random_state=0)
        assert np.unique(y).tolist() == list(range(12))


@pytest.mark.parametrize(
    "shape, bound, error, match",
    [
        ("ringz", 2.0, ValueError, "'shape' parameter of class_capacity"),
        ("linear", 2.0, ValueError, "'shape' parameter of class_capacity"),
        ("rings", 0.0, ValueError, "'bound' parameter of class_capacity"),
        ("checkerboard", -1.0, ValueError, "'bound' parameter of class_capacity"),
        ("rings", float("nan"), ValueError, "'bound' parameter of class_capacity"),
        ("rings", float("inf"), ValueError, "'bound' parameter of class_capacity"),
    ],
)
def test_class_capacity_refuses_what_it_cannot_answer(shape, bound, error, match):
    from skgate.datasets import class_capacity

    with pytest.raises(error, match=match):
        class_capacity(shape, bound)


def test_class_capacity_refuses_a_bool_bound():
    from skgate.datasets import class_capacity

    with pytest.raises(TypeError, match=r"'bound' parameter of class_capacity .*bool"):
        class_capacity("rings", True)

"""GatedAttentionRegressor: the classifier's machinery with a regression head."""

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, make_friedman1
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skgate import (
    GatedAttentionClassifier,
    GatedAttentionRegressor,
    curvature_score,
    least_curvature_refit,
    representation_curvature,
)
from skgate.estimators import _GatedAttentionBase


@pytest.fixture(scope="module")
def fast(fast):
    # 10 epochs: regression on friedman1 needs more steps than two moons.
    return {**fast, "max_epochs": 10}


@pytest.fixture(scope="module")
def friedman():
    return make_friedman1(300, random_state=0)


@pytest.fixture(scope="module")
def fitted(friedman):
    return GatedAttentionRegressor(max_epochs=30, random_state=0).fit(*friedman)


def test_shares_the_classifiers_base_and_parameters():
    assert issubclass(GatedAttentionRegressor, _GatedAttentionBase)
    assert issubclass(GatedAttentionClassifier, _GatedAttentionBase)
    shared = GatedAttentionRegressor().get_params()
    classifier = GatedAttentionClassifier().get_params()
    assert {k: classifier[k] for k in shared} == shared
    assert set(classifier) - set(shared) == {"class_weight", "label_smoothing"}
    for method in ("fit", "representation", "curvature", "_validate_X", "_forward"):
        assert getattr(GatedAttentionRegressor, method) is getattr(
            _GatedAttentionBase, method
        )


def test_learns_friedman1(fitted, friedman):
    X, y = friedman
    assert fitted.score(X, y) > 0.6
    assert fitted.predict(X).shape == (300,)
    assert fitted.n_outputs_ == 1
    assert fitted.y_mean_ == pytest.approx([y.mean()])
    assert fitted.net_.criterion_.__class__.__name__ == "MSELoss"


def test_targets_are_standardised_inside(friedman, fast):
    X, y = friedman
    small = GatedAttentionRegressor(**fast).fit(X, y).predict(X)
    large = GatedAttentionRegressor(**fast).fit(X, 1000 * y + 5).predict(X)
    np.testing.assert_allclose(large, 1000 * small + 5, rtol=1e-5)


@pytest.mark.parametrize("scale", [1e154, 1e300])
def test_targets_whose_square_overflows(friedman, fast, scale):
    """y.std() overflows float64 from |y| ~ 1e154: the scale stays finite and
    the model is the one fitted to y itself, scaled."""
    X, y = friedman
    small = GatedAttentionRegressor(**fast).fit(X, y).predict(X)
    huge = GatedAttentionRegressor(**fast).fit(X, scale * y)
    assert np.isfinite(huge.y_scale_).all() and np.isfinite(huge.y_mean_).all()
    np.testing.assert_allclose(huge.predict(X) / scale, small, rtol=1e-5)


def test_multi_output(friedman, fast):
    X, y = friedman
    Y = np.c_[y, -2 * y]
    reg = GatedAttentionRegressor(**fast).fit(X, Y)
    assert reg.n_outputs_ == 2 and reg.predict(X).shape == (300, 2)
    assert reg.representation(X[:3], layer="logits").shape == (3, 2)


def test_constant_target_is_predicted(friedman, fast):
    X, _ = friedman
    reg = GatedAttentionRegressor(**fast).fit(X, np.full(300, 3.5))
    # Standardised, the target is 0 everywhere; the net predicts near 0.
    np.testing.assert_allclose(reg.predict(X), 3.5, atol=0.1)
    assert reg.y_scale_ == pytest.approx([1.0])


def test_same_seed_bit_identical(friedman, fast):
    X, y = friedman
    a = GatedAttentionRegressor(**fast).fit(X, y).predict(X)
    b = GatedAttentionRegressor(**fast).fit(X, y).predict(X)
    np.testing.assert_array_equal(a, b)


def test_geometry_and_scorers(fitted, friedman):
    X = friedman[0][:40]
    assert fitted.representation(X).shape == (40, 8, 64)
    kappa = representation_curvature(fitted, X, layer="logits", kind="extrinsic")
    assert kappa.shape == (40,) and np.isfinite(kappa).all()
    assert curvature_score(fitted, X) == pytest.approx(fitted.curvature(X).mean())


@pytest.mark.parametrize("score", ["r2", "neg_mean_squared_error"])
def test_refit_rule_with_regression_scores(score, fast):
    X, y = load_diabetes(return_X_y=True)
    search = GridSearchCV(
        make_pipeline(StandardScaler(), GatedAttentionRegressor(**fast)),
        {"gatedattentionregressor__alpha": [0.0, 1.0]},
        cv=3,
        scoring={score: score, "curvature": curvature_score},
        refit=least_curvature_refit(score=score),
    ).fit(X, y)
    assert search.best_params_["gatedattentionregressor__alpha"] in (0.0, 1.0)
    assert f"mean_test_{score}" in search.cv_results_


@pytest.mark.parametrize(
    "y, error, match",
    [
        (np.array(["a"] * 300), ValueError, "y must hold numbers .*could not convert"),
        (np.full(300, np.nan), ValueError, "Input y contains NaN"),
        (np.arange(299.0), ValueError, "inconsistent numbers of samples"),
    ],
)
def test_bad_targets(friedman, y, error, match):
    with pytest.raises(error, match=match):
        GatedAttentionRegressor().fit(friedman[0], y)


def test_digits_as_row_tokens():
    """load_digits read as 8 row-tokens of 8 pixels: the natural attention form."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    clf = make_pipeline(
        StandardScaler(), GatedAttentionClassifier(token_dim=8, random_state=0)
    ).fit(X_train, y_train)
    assert clf[-1].net_.module_.n_tokens == 8
    assert clf.score(X_test, y_test) > 0.9


def test_sample_weight(friedman, fast):
    X, y = friedman
    plain = GatedAttentionRegressor(**fast).fit(X, y).predict(X)
    equal = GatedAttentionRegressor(**fast).fit(
        X, y, sample_weight=np.full(len(y), 2.0)
    )
    np.testing.assert_array_equal(equal.predict(X), plain)
    # All the weight on the rows with large targets: their fit improves.
    heavy = np.where(y > np.median(y), 10.0, 0.1)
    weighted = GatedAttentionRegressor(**fast).fit(X, y, sample_weight=heavy)
    top = y > np.median(y)
    assert (
        np.abs(weighted.predict(X)[top] - y[top]).mean()
        < np.abs(plain[top] - y[top]).mean()
    )


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e150, 1e300])
def test_tiny_and_huge_targets_train_as_unit_scale(friedman, fast, scale):
    """y * 1e-300 squares to 0 in float64: its variance underflowed and the
    model fitted noise (R^2 0.0). Scaled by a power of two near max|y| first,
    it trains as y does, and predicts in the user's units."""
    X, y = friedman
    unit = GatedAttentionRegressor(**fast).fit(X, y)
    scaled = GatedAttentionRegressor(**fast).fit(X, scale * y)
    assert scaled.score(X, scale * y) == pytest.approx(unit.score(X, y), abs=1e-6)
    np.testing.assert_allclose(
        scaled.predict(X[:5]) / scale, unit.predict(X[:5]), rtol=1e-6
    )
    np.testing.assert_allclose(scaled.y_scale_ / scale, unit.y_scale_, rtol=1e-12)


def test_partial_fit_refuses_targets_beyond_the_fitted_scaling(friedman, fast):
    """Targets 1e100 y_scale_ from the first call's y_mean_ became inf in
    float32: training diverged and the error blamed X. Refused, naming y."""
    X, y = friedman
    reg = GatedAttentionRegressor(**fast).partial_fit(X, y)
    with pytest.raises(ValueError, match=r"y has a value .* y_scale_ from y_mean_"):
        reg.partial_fit(X, 1e100 * y)
    assert reg.n_iter_ == 1

"""skgate.parallel.fit_together: alike estimators trained as one network,
each to the bits of its own fit; its arguments checked before any training.

Each test also counts the batched networks (a spy on skgate._engine.fitting's
fit_batch), so that a fit_together which fitted each estimator alone would
fail it rather than pass it trivially.
"""

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

import skgate._engine.fitting
from skgate import (
    GatedAttentionClassifier,
    GatedAttentionClassifierCV,
    GatedAttentionRegressor,
)
from skgate.parallel import fit_together


@pytest.fixture
def batches(monkeypatch):
    """The number of models of each batched network fit_together trains."""
    sizes = []
    fit_batch = skgate._engine.fitting.fit_batch

    def counting(members, **kwargs):
        sizes.append(len(members))
        return fit_batch(members, **kwargs)

    monkeypatch.setattr(skgate._engine.fitting, "fit_batch", counting)
    return sizes


def _assert_same_fit(got, want, X):
    """The same model bit for bit: loss curve, epochs, weights, predictions."""
    assert got.loss_curve_ == want.loss_curve_
    assert got.n_iter_ == want.n_iter_
    got_weights = got.net_.module_.state_dict()
    want_weights = want.net_.module_.state_dict()
    assert list(got_weights) == list(want_weights)
    for name, weight in got_weights.items():
        assert torch.equal(weight, want_weights[name]), name
    np.testing.assert_array_equal(got.predict(X), want.predict(X))


def test_classifiers_with_other_alphas_and_seeds_are_their_own_fits(
    moons, fast, batches
):
    """Three classifiers (alphas 0, 0.5 and 2; seeds 0, 1 and 2) on data of
    unequal length: one network of three, each model its separate fit."""
    X, y = moons
    models = [
        GatedAttentionClassifier(**{**fast, "alpha": alpha, "random_state": seed})
        for alpha, seed in ((0.0, 0), (0.5, 1), (2.0, 2))
    ]
    data = [(X, y), (X[:200], y[:200]), (X[50:], y[50:])]
    fitted = fit_together([clone(m) for m in models], data)
    assert batches == [3]
    for got, model, (X_fit, y_fit) in zip(fitted, models, data, strict=True):
        want = clone(model).fit(X_fit, y_fit)
        _assert_same_fit(got, want, X)
        np.testing.assert_array_equal(got.predict_proba(X), want.predict_proba(X))


def test_regressors_with_weights_are_their_own_fits(fast, batches):
    """Three regressors (other seeds and learning rates) in one network: two
    on one weighted item given twice (its tensors shared), one on an
    unweighted pair."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2
    weight = rng.integers(1, 4, len(y)).astype(float)
    models = [
        GatedAttentionRegressor(**{**fast, "random_state": seed, "lr": lr})
        for seed, lr in ((0, 1e-3), (1, 3e-3), (2, 2e-3))
    ]
    weighted = (X, y, weight)
    fitted = fit_together(
        [clone(m) for m in models], [weighted, weighted, (X[:90], y[:90])]
    )
    assert batches == [3]
    wants = [
        clone(models[0]).fit(X, y, sample_weight=weight),
        clone(models[1]).fit(X, y, sample_weight=weight),
        clone(models[2]).fit(X[:90], y[:90]),
    ]
    for got, want in zip(fitted, wants, strict=True):
        _assert_same_fit(got, want, X)


def test_it_returns_the_estimators_fitted_in_order(moons, fast):
    """A list of the very objects given (a tuple too), a subclass accepted;
    an empty list is fitted to an empty list."""

    class Mine(GatedAttentionClassifier):
        pass

    X, y = moons
    first = GatedAttentionClassifier(**fast)
    second = Mine(**{**fast, "random_state": 1})
    fitted = fit_together((first, second), ((X, y), (X, y, None)))
    assert isinstance(fitted, list)
    assert fitted[0] is first and fitted[1] is second
    assert first.n_iter_ > 0 and second.n_iter_ > 0
    assert fit_together([], []) == []


@pytest.mark.parametrize(
    "estimators, data, error, message",
    [
        ("model", [], TypeError, "estimators must be a list or tuple of .*; got str"),
        ([LogisticRegression()], [()], TypeError, r"estimators\[0\] is Logistic"),
        (
            [GatedAttentionClassifierCV()],
            [()],
            TypeError,
            r"estimators\[0\] is GatedAttentionClassifierCV\. A Gated"
            r"AttentionClassifierCV trains its fold models together in its own "
            "fit: call its fit",
        ),
        ([GatedAttentionClassifier()], {}, TypeError, "data must be a list or tuple"),
        ([GatedAttentionClassifier()], [], ValueError, "got 0 items for 1 estimators"),
        ([GatedAttentionClassifier()], [[1, 2]], ValueError, r"data\[0\] .*; got list"),
        (
            [GatedAttentionClassifier()],
            [(1, 2, 3, 4)],
            ValueError,
            r"data\[0\] must be a tuple \(X, y\) or \(X, y, sample_weight\); got a "
            "tuple of 4",
        ),
        ([GatedAttentionClassifier()], [(1,)], ValueError, "got a tuple of 1"),
    ],
)
def test_bad_arguments_are_named(estimators, data, error, message, batches):
    with pytest.raises(error, match=message):
        fit_together(estimators, data)
    assert batches == []


def test_an_estimator_listed_twice_is_refused(moons, batches):
    X, y = moons
    model = GatedAttentionClassifier()
    with pytest.raises(ValueError, match=r"estimators\[1\] is estimators\[0\]"):
        fit_together([model, model], [(X, y), (X, y)])
    assert batches == [] and not hasattr(model, "net_")


@pytest.mark.parametrize(
    "second, item, error, message",
    [
        (
            {},
            lambda X, y: (X, y, np.ones(5)),
            ValueError,
            r"^estimators\[1\] / data\[1\]: sample_weight\.shape == \(5,\)",
        ),
        (
            {},
            lambda X, y: (X, y[:10]),
            ValueError,
            r"^estimators\[1\] / data\[1\]: Found input variables with "
            r"inconsistent numbers of samples: \[300, 10\]",
        ),
        (
            {"alpha": -1},
            lambda X, y: (X, y),
            ValueError,
            r"^estimators\[1\]: The 'alpha' parameter of GatedAttentionClassifier "
            r"must be a float in the range \[0\.0, inf\)\. Got -1",
        ),
        (
            # fitted alone (callbacks): its fit's errors are named too
            {"verbose": 1},
            lambda X, y: (X, y[:10]),
            ValueError,
            r"^estimators\[1\] / data\[1\]: Found input variables",
        ),
    ],
)
def test_an_estimators_own_errors_name_its_index(
    moons, fast, batches, second, item, error, message
):
    """What an estimator's fit would raise, of the same type, prefixed with
    the index at fault; the estimator's message is the cause."""
    X, y = moons
    models = [GatedAttentionClassifier(**fast), GatedAttentionClassifier(**fast)]
    models[1].set_params(**second)
    with pytest.raises(error, match=message) as info:
        fit_together(models, [(X, y), item(X, y)])
    assert type(info.value.__cause__) is type(info.value)
    assert str(info.value).endswith(str(info.value.__cause__))
    assert batches == [] and not hasattr(models[0], "net_")
    # A plain fit keeps its own message (the CV estimators' path too).
    with pytest.raises(error) as plain:
        clone(models[1]).fit(*item(X, y))
    assert str(plain.value) == str(info.value.__cause__)

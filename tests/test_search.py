"""The batched CV estimators against GridSearchCV on the same splits."""

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold

from skgate import (
    GatedAttentionClassifier,
    GatedAttentionClassifierCV,
    GatedAttentionRegressor,
    GatedAttentionRegressorCV,
    curvature_score,
    least_curvature_refit,
    make_curved_task,
    make_linear_task,
    representation_curvature,
)

ALPHAS = (0.0, 0.5, 1.0, 1.5)


def _grid_search(estimator, X, y, cv, score="accuracy"):
    return GridSearchCV(
        estimator,
        {"alpha": list(ALPHAS)},
        cv=cv,
        scoring={score: score, "curvature": curvature_score},
        refit=least_curvature_refit(score=score),
    ).fit(X, y)


@pytest.mark.parametrize(
    "task, params, opens",
    [
        ("linear", {}, False),
        ("checkerboard", {"head": "linear"}, True),
    ],
)
def test_selects_what_grid_search_selects(task, params, opens):
    if task == "linear":
        X, y = make_linear_task(600, random_state=0)
    else:
        X, y = make_curved_task(600, shape="checkerboard", random_state=0)
    params = {**params, "max_epochs": 10, "random_state": 0}
    cv = StratifiedKFold(3)
    batched = GatedAttentionClassifierCV(ALPHAS, cv=cv, **params).fit(X, y)
    grid = _grid_search(GatedAttentionClassifier(**params), X, y, cv)
    assert batched.alpha_ == grid.best_params_["alpha"]
    assert (batched.alpha_ > 0) == opens
    # One engine: every fold model is the fit alone, bit for bit, and so is
    # the refit.
    for key in grid.cv_results_:
        if key.startswith(("split", "mean_test", "std_test", "rank_test")):
            np.testing.assert_array_equal(
                batched.cv_results_[key], grid.cv_results_[key]
            )
    np.testing.assert_array_equal(
        batched.predict_proba(X), grid.best_estimator_.predict_proba(X)
    )


def test_cv_results_look_like_grid_searchs():
    X, y = make_linear_task(200, random_state=0)
    params = {"max_epochs": 2, "d_model": 16, "random_state": 0}
    batched = GatedAttentionClassifierCV(ALPHAS, cv=3, **params).fit(X, y)
    grid = _grid_search(GatedAttentionClassifier(**params), X, y, 3)
    assert set(batched.cv_results_) == set(grid.cv_results_)
    frame = pd.DataFrame(batched.cv_results_)
    assert list(frame["param_alpha"]) == list(ALPHAS)
    assert frame["rank_test_accuracy"].min() == 1
    assert batched.best_index_ == ALPHAS.index(batched.alpha_)
    assert batched.best_params_ == {"alpha": batched.alpha_}
    assert batched.n_splits_ == 3


def test_the_refit_model_speaks_for_the_search():
    X, y = make_linear_task(200, random_state=0)
    search = GatedAttentionClassifierCV(
        (0.0, 1.0), cv=2, max_epochs=2, d_model=16, random_state=0
    ).fit(X, y)
    best = search.best_estimator_
    assert best.alpha == search.alpha_
    np.testing.assert_array_equal(search.classes_, best.classes_)
    assert search.net_ is best.net_ and search.loss_curve_ == best.loss_curve_
    np.testing.assert_array_equal(search.predict(X), best.predict(X))
    np.testing.assert_array_equal(search.representation(X), best.representation(X))
    np.testing.assert_array_equal(
        representation_curvature(search, X[:5]), best.curvature(X[:5])
    )
    assert curvature_score(search, X) == curvature_score(best, X)
    assert search.score(X, y) == best.score(X, y)
    with pytest.raises(AttributeError, match="no attribute 'nothing_'"):
        search.nothing_  # noqa: B018


def test_best_selection_and_curvature_settings():
    X, y = make_curved_task(300, shape="checkerboard", random_state=0)
    params = {"max_epochs": 3, "d_model": 16, "random_state": 0}
    best = GatedAttentionClassifierCV(ALPHAS, cv=2, selection="best", **params)
    best.fit(X, y)
    assert best.best_index_ == int(np.argmax(best.cv_results_["mean_test_accuracy"]))
    pooled = GatedAttentionClassifierCV(
        ALPHAS,
        cv=2,
        curvature_params={"layer": "pooled", "kind": "extrinsic"},
        **params,
    ).fit(X, y)
    assert not np.allclose(
        pooled.cv_results_["mean_test_curvature"],
        best.cv_results_["mean_test_curvature"],
    )


def test_regressor_cv_matches_grid_search():
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(300, random_state=0)
    params = {"max_epochs": 5, "d_model": 16, "random_state": 0}
    cv = KFold(3)
    batched = GatedAttentionRegressorCV(ALPHAS, cv=cv, **params).fit(X, y)
    grid = _grid_search(GatedAttentionRegressor(**params), X, y, cv, score="r2")
    for key in ("split0_test_r2", "mean_test_r2", "split2_test_curvature"):
        np.testing.assert_array_equal(batched.cv_results_[key], grid.cv_results_[key])
    assert batched.alpha_ == grid.best_params_["alpha"]
    assert set(batched.cv_results_) == set(grid.cv_results_)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"alphas": []}, ValueError, "alphas must be a non-empty sequence"),
        ({"alphas": [0.0, -1.0]}, ValueError, "alphas must be a non-empty"),
        ({"alphas": [0.0, np.nan]}, ValueError, "alphas must be a non-empty"),
        ({"alphas": ["a"]}, TypeError, "alphas must be a sequence of numbers"),
        ({"gate": "silu"}, ValueError, "searched only with a gate that has a strength"),
        ({"cv": 40}, ValueError, "n_splits=40 cannot be greater than"),
        ({"selection": "worst"}, ValueError, "'selection' parameter"),
        ({"curvature_params": {"kind": "ricci"}}, ValueError, "'kind' parameter"),
        ({"device": "meta"}, ValueError, "device='meta' holds shapes but no"),
    ],
)
def test_bad_input(kwargs, error, match):
    X, y = make_linear_task(60, random_state=0)
    search = GatedAttentionClassifierCV(**{"max_epochs": 1, **kwargs})
    with pytest.raises(error, match=match):
        search.fit(X, y)


def test_a_class_missing_from_a_training_fold_is_named():
    X, y = make_linear_task(60, random_state=0)
    y = y.copy()
    y[:2] = 2  # a class of 2 rows
    folds = [(np.arange(2, 60), np.arange(2)), (np.arange(60), np.arange(0))]
    search = GatedAttentionClassifierCV((0.0,), cv=folds[:1], max_epochs=1)
    with pytest.raises(
        ValueError, match="leaves the classes \\[2\\] out of training fold 0"
    ):
        search.fit(X, y)


def test_dataframes_string_labels_and_weights():
    X, y = make_curved_task(120, random_state=0)
    frame = pd.DataFrame(X, columns=["a", "b"])
    labels = np.where(y == 1, "yes", "no")
    search = GatedAttentionClassifierCV(
        (0.0, 1.0), cv=2, max_epochs=2, d_model=16, random_state=0
    ).fit(frame, labels, sample_weight=np.linspace(0.5, 2.0, 120))
    assert list(search.feature_names_in_) == ["a", "b"]
    assert list(search.classes_) == ["no", "yes"]
    assert set(search.predict(frame)) <= {"no", "yes"}


@pytest.mark.parametrize(
    "weight, match",
    [
        (np.ones(5), "sample_weight.shape == \\(5,\\)"),
        (-np.ones(60), "Negative values"),
    ],
)
def test_bad_sample_weight(weight, match):
    X, y = make_linear_task(60, random_state=0)
    with pytest.raises(ValueError, match=match):
        GatedAttentionClassifierCV(cv=2, max_epochs=1).fit(X, y, sample_weight=weight)


@pytest.mark.parametrize(
    "extra",
    [
        {"early_stopping": True, "n_iter_no_change": 2, "max_epochs": 30},
        {"callbacks": "timer"},  # fold models then fit one by one
    ],
    ids=["early_stopping", "callbacks"],
)
def test_fold_models_are_fitted_as_grid_search_fits_them(extra):
    """Every option of the estimator reaches the fold models: early stopping
    runs inside the batch, callbacks make the models fit one by one."""
    from skorch.callbacks import EpochTimer

    if extra.get("callbacks") == "timer":
        extra = {"callbacks": [("timer", EpochTimer())]}
    X, y = make_curved_task(300, shape="checkerboard", random_state=0)
    params = {"max_epochs": 4, "d_model": 16, "random_state": 0, **extra}
    cv = StratifiedKFold(3)
    batched = GatedAttentionClassifierCV(ALPHAS, cv=cv, **params).fit(X, y)
    grid = _grid_search(GatedAttentionClassifier(**params), X, y, cv)
    for k in range(3):
        key = f"split{k}_test_accuracy"
        np.testing.assert_array_equal(batched.cv_results_[key], grid.cv_results_[key])
    assert batched.alpha_ == grid.best_params_["alpha"]
    assert batched.n_iter_ == grid.best_estimator_.n_iter_
    if "early_stopping" in extra:
        assert batched.n_iter_ < 30


# -- hostile use (issue 25) ----------------------------------------------------

SMALL = {"max_epochs": 2, "d_model": 16, "random_state": 0}


def test_tied_means_share_grid_search_ranks():
    X, y = make_curved_task(120, random_state=0)
    search = GatedAttentionClassifierCV((0.0, 1.0, 1.0), cv=3, **SMALL).fit(X, y)
    means = search.cv_results_["mean_test_accuracy"]
    assert means[1] == means[2] != means[0]  # the same alpha twice: a tie
    expected = [3, 1, 1] if means[0] < means[1] else [1, 2, 2]
    assert search.cv_results_["rank_test_accuracy"].tolist() == expected
    grid = GridSearchCV(
        GatedAttentionClassifier(**SMALL),
        {"alpha": [0.0, 1.0, 1.0]},
        cv=3,
        scoring={"accuracy": "accuracy", "curvature": curvature_score},
        refit="accuracy",
    ).fit(X, y)
    for name in ("accuracy", "curvature"):
        np.testing.assert_array_equal(
            search.cv_results_[f"rank_test_{name}"],
            grid.cv_results_[f"rank_test_{name}"],
        )


def test_ranks_put_nan_last_as_grid_search_does():
    from skgate.search import _rank

    assert _rank(np.array([0.5, np.nan, 0.7, 0.7])).tolist() == [3, 4, 1, 1]
    assert _rank(np.array([np.nan, np.nan])).tolist() == [1, 1]


def test_groups_reach_a_group_splitter():
    from sklearn.model_selection import GroupKFold

    X, y = make_curved_task(120, random_state=0)
    groups = np.arange(len(y)) % 6
    search = GatedAttentionClassifierCV((0.0, 1.0), cv=GroupKFold(3), **SMALL).fit(
        X, y, groups=groups
    )
    grid = _small_grid(GroupKFold(3)).fit(X, y, groups=groups)
    for k in range(3):
        key = f"split{k}_test_accuracy"
        np.testing.assert_allclose(search.cv_results_[key], grid.cv_results_[key])
    with pytest.raises(ValueError, match="'groups' parameter should not be None"):
        GatedAttentionClassifierCV(cv=GroupKFold(3), **SMALL).fit(X, y)


def _small_grid(cv, **scoring_extra):
    return GridSearchCV(
        GatedAttentionClassifier(**SMALL),
        {"alpha": [0.0, 1.0]},
        cv=cv,
        scoring={"accuracy": "accuracy", "curvature": curvature_score},
        refit=least_curvature_refit(),
    )


def test_split_metadata_is_routed_as_grid_search_routes_it():
    import sklearn
    from sklearn.model_selection import GroupKFold

    X, y = make_curved_task(120, random_state=0)
    groups = np.arange(len(y)) % 6
    w = np.linspace(0.5, 1.5, len(y))
    with sklearn.config_context(enable_metadata_routing=True):
        routed = GatedAttentionClassifierCV((0.0, 1.0), cv=GroupKFold(3), **SMALL).fit(
            X, y, groups=groups, sample_weight=w
        )
    plain = GatedAttentionClassifierCV((0.0, 1.0), cv=GroupKFold(3), **SMALL).fit(
        X, y, groups=groups, sample_weight=w
    )
    np.testing.assert_array_equal(
        routed.cv_results_["split0_test_accuracy"],
        plain.cv_results_["split0_test_accuracy"],
    )
    with pytest.raises(TypeError, match="takes sample_weight and groups only"):
        GatedAttentionClassifierCV(cv=3, **SMALL).fit(X, y, fold_labels=groups)


def test_folds_are_scored_with_the_weights_as_grid_search_scores_them():
    X, y = make_curved_task(120, random_state=0)
    w = np.random.RandomState(0).uniform(0.1, 2.0, len(y))
    cv = StratifiedKFold(2)
    search = GatedAttentionClassifierCV((0.0, 1.0), cv=cv, **SMALL).fit(
        X, y, sample_weight=w
    )
    grid = _small_grid(cv).fit(X, y, sample_weight=w)
    for key in ("split0_test_accuracy", "split1_test_curvature"):
        np.testing.assert_array_equal(search.cv_results_[key], grid.cv_results_[key])
    # Each fold score is its model's weighted score, which is not the unweighted.
    train, test = next(iter(cv.split(X, y)))
    model = GatedAttentionClassifier(alpha=1.0, **SMALL).fit(
        X[train], y[train], sample_weight=w[train]
    )
    weighted = model.score(X[test], y[test], sample_weight=w[test])
    assert search.cv_results_["split0_test_accuracy"][1] == pytest.approx(weighted)
    assert model.score(X[test], y[test]) != weighted


def test_a_fold_without_weight_is_named_before_training(monkeypatch):
    import skgate.search

    X, y = make_curved_task(120, random_state=0)
    folds = list(KFold(3).split(X))
    w = np.zeros(len(y))
    w[folds[0][1]] = 1.0  # fold 0 trains on rows of weight 0 only
    monkeypatch.setattr(skgate.search, "fit_together", _no_training)
    with pytest.raises(
        ValueError, match="sample_weight is 0 for every training row of fold 0 .*40 "
    ):
        GatedAttentionClassifierCV(cv=KFold(3), **SMALL).fit(X, y, sample_weight=w)
    w = np.ones(len(y))
    w[folds[2][1]] = 0.0
    with pytest.raises(ValueError, match="0 for every test row of fold 2"):
        GatedAttentionClassifierCV(cv=KFold(3), **SMALL).fit(X, y, sample_weight=w)


def _no_training(*args, **kwargs):
    raise AssertionError("training started")


def test_the_search_has_the_curvature_method_and_curvature_params():
    X, y = make_curved_task(90, random_state=0)
    search = GatedAttentionClassifierCV(
        (1.0,), cv=3, curvature_params={"kind": "extrinsic"}, **SMALL
    ).fit(X, y)
    np.testing.assert_array_equal(
        search.curvature(X[:5], kind="extrinsic"),
        search.best_estimator_.curvature(X[:5], kind="extrinsic"),
    )
    np.testing.assert_array_equal(
        search.curvature(X[:5]), representation_curvature(search, X[:5])
    )
    assert "curvature_params" in search.get_params()
    assert "curvature" not in search.get_params()


@pytest.mark.parametrize("selection", ["least_curvature", "best"])
def test_regressor_test_folds_of_one_row_are_refused_before_training(
    selection, monkeypatch
):
    import skgate.search

    monkeypatch.setattr(skgate.search, "fit_together", _no_training)
    X = np.random.RandomState(0).normal(size=(10, 2))
    search = GatedAttentionRegressorCV(cv=10, selection=selection, **SMALL)
    with pytest.raises(ValueError, match="fold 0 a test set of 1 row\\(s\\), but r2"):
        search.fit(X, X[:, 0])


def test_selecting_the_best_skips_nan_and_refuses_all_nan():
    search = GatedAttentionRegressorCV(selection="best")
    results = {"mean_test_r2": np.array([np.nan, 0.2, 0.5, np.nan])}
    assert search._select(results) == 2
    with pytest.raises(ValueError, match="no alpha has a finite mean_test_r2"):
        search._select({"mean_test_r2": np.array([np.nan, np.nan])})


def test_fisher_curvature_is_checked_before_training(monkeypatch):
    import skgate.search

    monkeypatch.setattr(skgate.search, "fit_together", _no_training)
    X, y = make_curved_task(60, random_state=0)
    with pytest.raises(ValueError, match="it needs layer='logits'"):
        GatedAttentionClassifierCV(
            cv=3, curvature_params={"metric": "fisher"}, **SMALL
        ).fit(X, y)
    with pytest.raises(ValueError, match="GatedAttentionRegressor predicts none"):
        GatedAttentionRegressorCV(
            cv=3, curvature_params={"metric": "fisher", "layer": "logits"}, **SMALL
        ).fit(X, y.astype(float))


def test_a_fold_model_is_the_fit_on_its_rows_bit_for_bit():
    """One engine: cv_results_ holds exactly (==) the accuracy and the
    curvature_score of the estimator fit alone on each fold's rows, and the
    refit is exactly a fit on all rows."""
    X, y = make_curved_task(240, shape="checkerboard", random_state=0)
    params = {"max_epochs": 4, "d_model": 16, "random_state": 3}
    cv = StratifiedKFold(3)
    search = GatedAttentionClassifierCV((0.0, 1.0), cv=cv, **params).fit(X, y)
    for k, (train, test) in enumerate(cv.split(X, y)):
        for i, alpha in enumerate((0.0, 1.0)):
            alone = GatedAttentionClassifier(alpha=alpha, **params).fit(
                X[train], y[train]
            )
            results = search.cv_results_
            assert results[f"split{k}_test_accuracy"][i] == alone.score(
                X[test], y[test]
            )
            assert results[f"split{k}_test_curvature"][i] == curvature_score(
                alone, X[test]
            )
    refit = GatedAttentionClassifier(alpha=search.alpha_, **params).fit(X, y)
    np.testing.assert_array_equal(search.predict_proba(X), refit.predict_proba(X))

"""compare_gates' baselines: the models a user would pick instead, on the
gates' splits, tested with the same statistics (issue 74, item 10)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression

from skgate import GatedAttentionClassifier, compare_gates, make_linear_task
from skgate._evaluation import check_baselines
from skgate._evaluation.baselines import default_baselines
from skgate.compare.result import Recommendation

FAST = {"max_epochs": 2, "d_model": 8, "random_state": 0}


@pytest.fixture(scope="module")
def with_baselines():
    X, y = make_linear_task(80, random_state=0)
    return compare_gates(X, y, gates=("multiplicative", "none"), cv=2,
                         n_repeats=2, **FAST)  # fmt: skip


def test_a_table_gets_a_linear_model_and_gradient_boosting(with_baselines):
    scores, tests = with_baselines.scores_, with_baselines.tests_
    baselines = scores[scores["baseline"]]
    assert sorted(baselines["arm"].unique()) == ["HGB", "LogReg"]
    assert baselines["curvature"].isna().all() and baselines["gate"].isna().all()
    # the same splits, from the same seeds, as the gates
    gates = scores[~scores["baseline"]]
    for column in ("repeat", "fold", "n_train", "n_test", "model_seed"):
        assert set(baselines[column]) == set(gates[column])
    # a baseline is tested in score only; the gates in both
    measures = tests.groupby("comparison")["measure"].apply(set)
    assert measures["multiplicative > none"] == {"score", "curvature"}
    assert measures["multiplicative > LogReg"] == {"score"}
    assert measures["LogReg > HGB"] == {"score"}
    assert set(with_baselines.settings_["baselines"]) == {"LogReg", "HGB"}


def test_the_verdict_says_first_whether_a_gate_beats_the_best_baseline(
    with_baselines,
):
    means = with_baselines.scores_.groupby("arm")["score"].mean()
    best = means[["LogReg", "HGB"]].idxmax()
    first = with_baselines.against_baselines_
    assert with_baselines.verdict_.startswith(first)
    assert f"the best baseline, {best} (mean accuracy {means[best]:.3g})" in first
    for gate in ("multiplicative", "none"):
        assert (
            f"{gate} vs {best}" in first
            or f"{gate} beats {best}" in first
            or (f"{best} beats {gate}" in first)
        )


def _rigged(estimator, X, y):
    """0.9 (+ a little spread by seed) for a gate, 0.6 for a baseline."""
    seed = getattr(estimator, "random_state", None) or 0
    jitter = 0.01 * (seed % 3)
    if isinstance(estimator, GatedAttentionClassifier):
        return 0.9 + jitter
    return 0.6 + jitter / 2


def test_a_gate_that_beats_every_baseline_is_said_to():
    X, y = make_linear_task(100, random_state=0)
    result = compare_gates(
        X, y, gates=("multiplicative", "none"), scoring=_rigged, cv=5, n_repeats=4,
        baselines={"dummy": DummyClassifier(), "logistic": LogisticRegression()},
        **FAST,
    )  # fmt: skip
    assert result.against_baselines_.startswith(  # the two rigged alike: tied
        "multiplicative and none beat the best baselines, dummy and logistic (tied"
    )
    assert result.recommendation_.arms[0] in ("multiplicative", "none")


def test_a_baseline_that_beats_every_gate_is_recommended():
    X, y = make_linear_task(100, random_state=0)

    def reversed_rig(estimator, X, y):
        return 1.5 - _rigged(estimator, X, y)

    result = compare_gates(
        X, y, gates=("multiplicative", "none"), scoring=reversed_rig, cv=5,
        n_repeats=4, baselines=[LogisticRegression()], **FAST,
    )  # fmt: skip
    assert result.against_baselines_.startswith(
        "No gate beats the best baseline, LogisticRegression"
    )
    assert "LogisticRegression beats multiplicative by" in result.against_baselines_
    assert result.recommendation_.arms == ("LogisticRegression",)
    assert result.recommendation_.decided


def test_no_baselines_leaves_the_gates_alone():
    X, y = make_linear_task(60, random_state=0)
    result = compare_gates(X, y, gates=("multiplicative", "none"), cv=2,
                           n_repeats=1, baselines=None, **FAST)  # fmt: skip
    assert not result.scores_["baseline"].any()
    assert result.against_baselines_ == ""
    assert result.verdict_.startswith("Held-out accuracy:")


def test_regression_gets_ridge_and_gradient_boosting():
    baselines, note = default_baselines(np.zeros((10, 3)), "regression")
    assert sorted(baselines) == ["HGB", "Ridge"] and note == ""


def test_series_get_minirocket_where_aeon_is_installed(monkeypatch):
    pytest.importorskip("aeon")
    series = np.zeros((6, 1, 20))
    baselines, note = default_baselines(series, "classification")
    assert type(baselines["MiniRocket"]).__name__ == "MiniRocketClassifier"
    ragged = [np.zeros((1, 20)), np.zeros((1, 30))]
    baselines, note = default_baselines(ragged, "classification")
    assert baselines == {} and "from 20 to 30 points" in note
    baselines, note = default_baselines(np.zeros((6, 1, 5)), "classification")
    assert baselines == {} and "at least 9 points" in note
    import skgate._evaluation.baselines as module

    monkeypatch.setattr(module, "find_spec", lambda name: None)
    baselines, note = default_baselines(series, "classification")
    assert baselines == {} and "aeon is not installed" in note


@pytest.mark.parametrize(
    "baselines, error, match",
    [
        ("all", ValueError, "baselines must be 'auto', None"),
        (3, TypeError, "got int"),
        ([LogisticRegression], TypeError, "not a name or a class"),
        ({"lin": LinearRegression()}, TypeError, "scikit-learn classifier"),
        ({"none": LogisticRegression()}, ValueError, "also a gate's name or arm"),
        ({"a > b": LogisticRegression()}, ValueError, "without ' > '"),
        ({"": LogisticRegression()}, ValueError, "non-empty"),
    ],
)
def test_bad_baselines_are_refused_by_name(baselines, error, match):
    with pytest.raises(error, match=match):
        check_baselines(baselines, np.zeros((4, 2)), "classification", {"none"})
    X, y = make_linear_task(40, random_state=0)
    with pytest.raises(error, match=match):
        compare_gates(X, y, gates=("multiplicative", "none"), baselines=baselines,
                      cv=2, n_repeats=1, **FAST)  # fmt: skip


def test_a_tie_with_a_baseline_names_the_baseline_first():
    tied = Recommendation(("LogReg", "none"), 0.97, True, 0.02, {},
                          baselines=("LogReg",))  # fmt: skip
    assert str(tied).endswith("LogReg is a baseline, the simpler model")
    open_ = Recommendation(("LogReg", "none"), 0.6, False, 0.02, {},
                           baselines=("LogReg",))  # fmt: skip
    assert "and a baseline, the simpler model (probability 0.60" in str(open_)


def test_gate_tests_take_an_arm_without_curvature_only_whole():
    from skgate.compare import gate_tests

    rows = pd.DataFrame(
        {"arm": arm, "repeat": 0, "fold": f, "n_train": 40, "n_test": 10,
         "score": 0.5 + 0.01 * f * (1 + (arm == "a")),
         "curvature": np.nan if arm == "base" else 1.0 + f}
        for arm in ("a", "b", "base") for f in range(5)
    )  # fmt: skip
    tests = gate_tests(rows)
    assert set(tests.loc[tests["measure"] == "curvature", "comparison"]) == {"a > b"}
    rows.loc[(rows["arm"] == "a") & (rows["fold"] == 2), "curvature"] = np.nan
    with pytest.raises(ValueError, match="'curvature' column holds"):
        gate_tests(rows)


@pytest.mark.slow  # MiniRocket's first fit compiles numba code (about 30 s)
def test_series_are_compared_with_minirocket_beside_the_gates():
    pytest.importorskip("aeon")
    rng = np.random.default_rng(0)
    y = np.arange(40) % 2
    t = np.linspace(0, 6, 30)
    X = np.sin(t + y[:, None, None] * 1.5) + 0.3 * rng.normal(size=(40, 1, 30))
    result = compare_gates(X, y, gates=("multiplicative", "none"), cv=2,
                           n_repeats=1, **FAST)  # fmt: skip
    assert "MiniRocket" in set(result.scores_["arm"])
    assert "the best baseline, MiniRocket (mean accuracy " in result.verdict_


def test_a_baseline_that_cannot_take_the_data_fails_before_the_gates_train(
    monkeypatch,
):
    """Hostile pass: a table baseline given ragged series failed only after
    every gate had trained."""
    from skgate._evaluation import fits

    trained = []
    monkeypatch.setattr(fits, "_fit_arm", lambda *a, **k: trained.append(1))
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(1, n)) for n in rng.integers(15, 31, size=24)]
    y = np.arange(24) % 2
    with pytest.raises(ValueError, match=r"baselines\['lr'\].*differ in length"):
        compare_gates(X, y, gates=("multiplicative", "none"), cv=2, n_repeats=1,
                      baselines={"lr": LogisticRegression()}, **FAST)  # fmt: skip
    assert trained == []


def test_a_baseline_that_fails_to_predict_is_named():
    class Broken(LogisticRegression):
        def predict(self, X):
            raise ValueError("no predictions today")

    X, y = make_linear_task(40, random_state=0)
    with pytest.raises(ValueError, match=r"baselines\['broken'\].*could not be scored"
                       r".*no predictions today"):  # fmt: skip
        compare_gates(X, y, gates=("multiplicative", "none"), cv=2, n_repeats=1,
                      baselines={"broken": Broken()}, **FAST)  # fmt: skip


@pytest.mark.parametrize("name", ["silu", "multiplicative (alpha=0.5)", "sigmoid"])
def test_a_baseline_named_as_a_gate_is_refused(name):
    with pytest.raises(ValueError, match="also a gate's name or arm"):
        check_baselines({name: LogisticRegression()}, np.zeros((4, 2)),
                        "classification", {"none"})  # fmt: skip


def test_complex_scores_are_refused_not_cast():
    from skgate import paired

    with pytest.raises(ValueError, match="complex numbers"):
        paired.friedman_test([[1 + 1j, 2], [3, 4]])

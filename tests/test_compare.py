"""compare_gates and its display: a user's data, statistics right for CV."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.metrics import make_scorer, r2_score
from sklearn.model_selection import GroupKFold, KFold
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from skgate import compare_gates, make_curved_task, make_linear_task
from skgate.compare import DEFAULT_CV, DEFAULT_REPEATS, gate_tests, infer_task

from study import confirmatory, primary

# Baselines are tested on their own (TestBaselines); elsewhere the gates alone.
FAST = {"max_epochs": 2, "d_model": 8, "baselines": None}


def _as_text(X):
    """A preprocessor's output of numbers as text (once silently converted)."""
    return np.asarray(X).astype(str)


def _with_nan(X):
    """A preprocessor's output with a missing value."""
    X = np.array(X, dtype=float)
    X[0, 0] = np.nan
    return X


@pytest.fixture(scope="module")
def curved_result():
    X, y = make_curved_task(150, random_state=0)
    return compare_gates(X, y, cv=5, n_repeats=2, random_state=0, **FAST)


@pytest.fixture(scope="module")
def clear_gain():
    """A circle seen through a linear head: ungated attention is then a
    linear model, gated attention is not. The defaults (10 x 10)."""
    X, y = make_curved_task(300, shape="circle", random_state=0)
    return compare_gates(
        X, y, gates=("multiplicative", "none"), head="linear", max_epochs=20,
        d_model=16, random_state=0, baselines=None,
    )  # fmt: skip


class TestCompareGates:
    def test_scores_and_tests(self, curved_result):
        scores, tests = curved_result.scores_, curved_result.tests_
        assert curved_result.task_ == "classification"
        assert list(scores.columns) == [
            "arm", "gate", "alpha", "repeat", "fold", "n_train", "n_test",
            "model_seed", "score", "curvature", "fit_time", "predictions",
            "curvature measure", "baseline",
        ]  # fmt: skip
        assert scores["predictions"].str.fullmatch("[0-9a-f]{16}").all()
        assert (scores["curvature measure"] == "turning rate").all()
        assert len(scores) == 3 * 5 * 2
        assert (scores["n_train"] + scores["n_test"] == 150).all()
        assert scores["score"].between(0, 1).all()
        # Ungated attention over copied tokens is affine: flat on every split.
        assert (scores.loc[scores["gate"] == "none", "curvature"] == 0).all()
        assert list(tests["comparison"].unique()) == [
            "multiplicative > silu", "multiplicative > none", "silu > none"
        ]  # fmt: skip
        assert len(tests) == 6 and (tests["p holm"] >= tests["p"]).all()
        assert set(tests["measured as"]) == {"accuracy", "turning rate"}
        probabilities = tests[
            ["probability better", "probability equivalent", "probability worse"]
        ]
        np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
        # Bounds at Holm's step levels: between 1 - 0.05/6 and 0.95.
        for column in ("ci low level", "ci high level"):
            assert tests[column].between(0.95 - 1e-12, 1 - 0.05 / 6 + 1e-12).all()
        assert curved_result.verdict_.startswith("Held-out accuracy: ")
        assert "Curvature (turning rate): " in curved_result.verdict_
        assert "Recommendation: " in curved_result.verdict_

    @pytest.mark.slow  # 10 x 10 or worker processes: make test-slow
    def test_every_interval_agrees_with_its_outcome(self, curved_result, clear_gain):
        """An interval excludes 0 exactly where Holm shows a difference,
        however the differences fall (hypothesis-free: many random tables)."""
        rng = np.random.default_rng(0)
        tables = [curved_result.tests_, clear_gain.tests_]
        for _ in range(40):
            rows = [
                {"arm": arm, "repeat": r, "fold": f, "n_train": 90, "n_test": 10,
                 "score": shift + rng.normal(0, 0.05), "curvature": rng.normal(1, 0.3)}
                for arm, shift in zip("abcd", rng.normal(0, 0.02, size=4),
                                      strict=True)
                for r in range(3) for f in range(10)
            ]  # fmt: skip
            tables.append(gate_tests(pd.DataFrame(rows)))
            if len(tables) < 8:  # the sign-flip test's bounds invert it too
                small = pd.DataFrame(rows).query("repeat == 0")
                tables.append(gate_tests(small, test="sign-flip"))
        for tests in tables:
            holds, reversed_ = (
                tests["outcome"] == "holds",
                tests["outcome"] == "reversed",
            )
            assert ((tests["ci low"] > 0) == holds).all()
            assert ((tests["ci high"] < 0) == reversed_).all()

    @pytest.mark.slow  # 10 x 10 or worker processes: make test-slow
    def test_a_clear_gain_is_a_gain_on_the_defaults(self, clear_gain):
        assert clear_gain.settings_["splits"] == DEFAULT_CV * DEFAULT_REPEATS == 100
        score = clear_gain.tests_.set_index("measure").loc["score"]
        assert score["outcome"] == "holds" and score["ci low"] > 0.2
        assert "multiplicative beats none by +0.4" in clear_gain.verdict_
        assert clear_gain.recommendation_.arms == ("multiplicative",)
        assert clear_gain.recommendation_.decided
        assert clear_gain.verdict_.endswith(
            "Recommendation: use multiplicative (probability > 0.99 that it is "
            "the best or within 0.02 of it)."
        )

    @pytest.mark.slow  # 10 x 10 or worker processes: make test-slow
    def test_a_rigged_always_right_arm_holds(self):
        X, y = make_linear_task(100, random_state=0)

        def rigged(estimator, X, y):
            # A little spread between splits (by the split's seed), so that
            # the splits can show sampling error.
            jitter = 0.01 * (estimator.random_state % 3)
            return 0.9 + jitter if estimator.gate == "multiplicative" else 0.0

        result = compare_gates(
            X, y, gates=("multiplicative", "none"), scoring=rigged, max_epochs=1,
            d_model=8, random_state=0, baselines=None,
        )  # fmt: skip
        score = result.tests_.set_index("measure").loc["score"]
        assert score["outcome"] == "holds" and score["p holm"] < 1e-6
        assert "multiplicative beats none by +0.9" in result.verdict_
        assert "Held-out rigged: " in result.verdict_
        assert result.recommendation_.arms == ("multiplicative",)
        assert result.recommendation_.probability > 0.99

    def test_the_recommendation_names_ungated_attention_in_words(self):
        """ "Recommendation: use none" read as "use nothing"; and the verdict
        says "inconclusive", the table's word, not "undecided"."""
        from skgate.compare.pairs import Recommendation

        said = str(Recommendation(("none",), 0.97, True, 0.02, {"none": 0.97}))
        assert said.startswith("use ungated attention (gate='none') (probability")
        both = str(Recommendation(("silu", "none"), 0.97, True, 0.02, {}))
        assert "any of silu, ungated attention (gate='none'): equivalent" in both

    @pytest.mark.parametrize("n_repeats, holds", [(2, False), (6, True)])
    def test_a_difference_without_spread_is_decided_by_the_repeats(
        self, n_repeats, holds
    ):
        """Rigged to differ by exactly 1 on every split, the splits show no
        sampling error; the zero-spread rule decides by a sign test over the
        repeats: 2 repeats (p 1/4) decide nothing, 6 (p 1/64, 1/32 after
        Holm over 2 tests) hold. Once both said "no sampling error to decide
        on", the 10 x 10 default included (issue 74, item 2)."""
        X, y = make_linear_task(100, random_state=0)

        def rigged(estimator, X, y):
            return 1.0 if estimator.gate == "multiplicative" else 0.0

        result = compare_gates(
            X, y, gates=("multiplicative", "none"), scoring=rigged, max_epochs=1,
            d_model=8, cv=2, n_repeats=n_repeats, random_state=0, baselines=None,
        )  # fmt: skip
        score = result.tests_.set_index("measure").loc["score"]
        assert score["note"] == "no spread"
        assert score["p"] == pytest.approx(0.5**n_repeats)
        if holds:
            assert score["outcome"] == "holds"
            assert (score["ci low"], score["ci high"]) == (1.0, 1.0)
            assert score["probability better"] == pytest.approx(1 - 0.5**6)
            assert "multiplicative beats none by +1 on every split (a sign test" in (
                result.verdict_
            )
            assert result.recommendation_.arms == ("multiplicative",)
            assert result.recommendation_.decided
            assert result.recommendation_.why_undecided == ""
        else:
            assert score["outcome"] == "inconclusive"
            assert (score["ci low"], score["ci high"]) == (-np.inf, np.inf)
            assert "multiplicative vs none inconclusive (+1 on every split: too " in (
                result.verdict_
            )
            assert not result.recommendation_.decided
            assert result.recommendation_.probability == pytest.approx(0.75)
            assert result.verdict_.endswith(
                "multiplicative minus none is +1 on every split (100 test rows a "
                "repeat): over 2 repeats that is p = 0.25 at best (the zero-spread "
                "rule)."
            )

    def test_identical_arms_are_equivalent(self):
        """A user's pointwise identity gate is ungated attention under
        another name: the same weights, so the same scores on every split."""
        import torch

        from skgate.nn import register_gate

        register_gate(
            "identity", form="pointwise", activation=lambda z: z,
            derivative=torch.ones_like, second_derivative=torch.zeros_like,
        )  # fmt: skip
        # 6 repeats of 200 rows: enough for the zero-spread rule to call the
        # tie equivalence (2^-6 and 0.98^200, each below 0.05 / 2).
        X, y = make_linear_task(200, random_state=0)
        result = compare_gates(
            X, y, gates=("identity", "none"), cv=2, n_repeats=6, random_state=0,
            **FAST,
        )  # fmt: skip
        score = result.tests_.set_index("measure").loc["score"]
        assert score["mean difference"] == 0 and score["outcome"] == "no effect"
        assert score["note"] == "alike"
        assert (
            "identity and none are equivalent within +-0.02 (the same predictions on "
            "every test row, over enough repeats and test rows)"
        ) in result.verdict_
        assert result.recommendation_.arms == ("identity", "none")
        assert (
            "Recommendation: any of identity, ungated attention (gate='none'): "
            "equivalent"
        ) in result.verdict_

    @pytest.mark.slow  # end to end: make test-slow
    def test_random_labels_never_hold_in_score_however_many_repeats(self):
        rng = np.random.default_rng(0)
        X, y = rng.normal(size=(150, 3)), rng.integers(0, 2, size=150)
        result = compare_gates(X, y, cv=5, n_repeats=20, random_state=0, **FAST)
        score = result.tests_[result.tests_["measure"] == "score"]
        assert set(score["outcome"]) <= {"no effect", "inconclusive"}

    @pytest.mark.slow  # 10 x 10 or worker processes: make test-slow
    def test_same_seed_same_result_and_n_jobs_does_not_matter(self, curved_result):
        X, y = make_curved_task(150, random_state=0)
        again = compare_gates(X, y, cv=5, n_repeats=2, random_state=0, n_jobs=2, **FAST)
        columns = ["arm", "repeat", "fold", "score", "curvature"]
        pd.testing.assert_frame_equal(
            again.scores_[columns], curved_result.scores_[columns]
        )
        assert again.verdict_ == curved_result.verdict_

    def test_the_study_tests_the_same_rows_the_same_way(self, curved_result):
        """With test="sign-flip", the study's primary family, given
        compare_gates' rows as fits (splits as seeds), gives the same
        estimates, p-values, Holm adjustments and outcomes."""
        scores = curved_result.scores_
        ours = gate_tests(scores, test="sign-flip")
        fits = (
            scores.assign(
                seed=scores["repeat"] * 5 + scores["fold"],
                task="curved",
                shape="circle",
                noise=0.2,
                accuracy=scores["score"],
                turning=scores["curvature"],
            )
            .drop(columns=["gate"])
            .rename(columns={"arm": "gate"})
        )
        study_tests = [
            {
                **confirmatory.comparison(
                    "C1", measure, column, "arms", "curved", a, b
                ),
                "comparison": f"{a} > {b}",
            }
            for a, b in [
                ("multiplicative", "silu"),
                ("multiplicative", "none"),
                ("silu", "none"),
            ]
            for measure, column in (("score", "accuracy"), ("curvature", "turning"))
        ]
        study = primary._family(
            study_tests, {"arms": fits}, {"shape": "circle", "noise": 0.2}
        )
        for column in ("p", "p holm", "p equivalence holm"):
            np.testing.assert_allclose(ours[column], study[column], rtol=1e-12)
        np.testing.assert_allclose(ours["mean difference"], study["estimate"])
        assert list(ours["outcome"]) == list(study["outcome"])

    def test_an_undecidable_design_warns_once(self):
        X, y = make_linear_task(60, random_state=0)
        with pytest.warns(UserWarning) as caught:
            compare_gates(
                X, y, cv=5, n_repeats=1, test="sign-flip", random_state=0, **FAST
            )
        messages = [str(w.message) for w in caught if "Holm level" in str(w.message)]
        assert len(messages) == 1
        assert "cv=5 x n_repeats=1 (5 splits)" in messages[0]
        assert "smallest p is 0.0312, 0.188 after Holm over 6 tests" in messages[0]

    def test_the_defaults_do_not_warn(self, clear_gain):
        X, y = make_linear_task(60, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            # 10 splits: 2^-10 times 13 tests (3 gates, 2 baselines) < 0.05
            compare_gates(X, y, cv=5, n_repeats=2, random_state=0, max_epochs=1)

    def test_regression_from_continuous_targets(self):
        rng = np.random.default_rng(0)
        X = rng.normal(size=(80, 3))
        y = X[:, 0] + 0.1 * rng.normal(size=80)
        result = compare_gates(
            X, y, gates=("silu", "none"), cv=4, n_repeats=2, random_state=0, **FAST
        )
        assert result.task_ == "regression"
        assert result.scores_["score"].max() <= 1.0  # R^2
        assert result.verdict_.startswith("Held-out R^2: ")

    def test_alphas_are_arms_of_the_gates_that_have_a_strength(self):
        X, y = make_linear_task(90, random_state=0)
        result = compare_gates(
            X, y, gates=("multiplicative", "none"), alphas=(0.5, 1.5), cv=3,
            n_repeats=1, random_state=0, **FAST,
        )  # fmt: skip
        arms = list(dict.fromkeys(result.scores_["arm"]))
        assert arms == [
            "multiplicative (alpha=0.5)",
            "multiplicative (alpha=1.5)",
            "none",
        ]
        assert (
            result.scores_.loc[result.scores_["gate"] == "none", "alpha"].isna().all()
        )
        assert len(result.tests_) == 3 * 2

    def test_close_alphas_keep_unique_labels(self):
        X, y = make_linear_task(60, random_state=0)
        result = compare_gates(
            X, y, gates=("multiplicative", "none"), alphas=(0.1234567, 0.1234568),
            cv=3, n_repeats=1, random_state=0, max_epochs=1, baselines=None,
        )  # fmt: skip
        assert result.scores_["arm"].nunique() == 3

    def test_a_splitter_and_groups(self):
        X, y = make_linear_task(60, random_state=0)
        result = compare_gates(
            X, y, gates=("silu", "none"), cv=KFold(3), n_repeats=1, random_state=0,
            **FAST,
        )  # fmt: skip
        assert sorted(result.scores_["fold"].unique()) == [0, 1, 2]
        groups = np.repeat(np.arange(12), 5)
        for cv in (GroupKFold(3), 3):
            grouped = compare_gates(
                X, y, gates=("silu", "none"), cv=cv, n_repeats=1, groups=groups,
                random_state=0, max_epochs=1,
            )  # fmt: skip
            assert (grouped.scores_["n_test"] % 5 == 0).all()  # whole groups

    @pytest.mark.parametrize(
        "kwargs, error, message",
        [
            ({"gates": ("none",)}, ValueError, "at least 2 of the registered gates"),
            ({"gates": ("none", "bogus")}, ValueError, "got \\['none', 'bogus'\\]"),
            ({"gates": "silu"}, TypeError, "not one string"),
            ({"gates": ("silu", "silu")}, ValueError, "names 'silu' twice"),
            ({"alphas": (-1.0,)}, ValueError, "alphas must be finite numbers >= 0"),
            ({"alphas": ("a",)}, TypeError, "alphas must be numbers"),
            ({"alphas": (0.5, 0.5)}, ValueError, "alphas holds a value twice"),
            (
                {"gates": ("silu", "none"), "alphas": (0.5,)},
                ValueError,
                "alphas apply only to a gate that has a strength",
            ),
            ({"n_repeats": 0}, ValueError, "n_repeats must be an int from 1 to 1000"),
            # 10**9 repeats hung building their splits
            (
                {"n_repeats": 1001},
                ValueError,
                "n_repeats must be an int from 1 to 1000; got 1001",
            ),
            ({"n_repeats": 10**9}, ValueError, "n_repeats must be .*; got 1000000000"),
            # 10**20 workers was an OverflowError inside joblib
            (
                {"n_jobs": 10**20},
                ValueError,
                "n_jobs must be None or a nonzero int "
                "from -1024 to 1024 .*; got 100000000000000000000",
            ),
            ({"n_jobs": 1025}, ValueError, "n_jobs must be None .*; got 1025"),
            ({"n_jobs": -1025}, ValueError, "n_jobs must be None .*; got -1025"),
            (
                {"max_epochs": 0},
                ValueError,
                "max_epochs must be >= 1 in compare_gates.*; got 0",
            ),
            (
                {"cv": [(np.arange(10, 30), np.arange(10)), (np.arange(20), [-1])]},
                ValueError,
                "cv=<list of 2 splits>: split indices must lie in \\[0, 30\\); got "
                "-1 to -1",
            ),
            (
                {
                    "cv": [
                        (np.arange(10, 30), np.arange(10)),
                        (np.arange(25), np.arange(20, 30)),
                    ]
                },
                ValueError,
                "cv=<list of 2 splits>: split \\(repeat 0, fold 1\\) has 5 rows in "
                "both its training and its test rows",
            ),
            (
                {"scoring": "r2"},
                ValueError,
                "scoring='r2' is a regression metric; the task is 'classification'",
            ),
            (
                {"scoring": "neg_mean_squared_error"},
                ValueError,
                "scoring='neg_mean_squared_error' is a regression metric",
            ),
            (
                {"scoring": make_scorer(r2_score)},
                ValueError,
                "scoring=make_scorer\\(r2_score\\) is a regression metric",
            ),
            (
                {"task": "regression", "scoring": "roc_auc"},
                ValueError,
                "scoring='roc_auc' is a classification metric; the task is "
                "'regression'",
            ),
            (
                {"groups": np.arange(29)},
                ValueError,
                "groups has 29 labels; X has 30 rows: give one group label per row",
            ),
            (
                {"preprocessor": FunctionTransformer(_as_text)},
                TypeError,
                "preprocessor=FunctionTransformer\\(.*\\) outputs dtype <U.*; it must "
                "output numbers",
            ),
            (
                {"preprocessor": FunctionTransformer(_with_nan)},
                ValueError,
                "preprocessor=FunctionTransformer\\(.*\\) outputs NaN or infinity",
            ),
            ({"n_repeats": 1.5}, TypeError, "n_repeats must be an int"),
            ({"cv": 1}, ValueError, "cv must be >= 2 folds; got 1"),
            ({"cv": KFold(3), "n_repeats": 2}, ValueError, "needs an int cv"),
            ({"cv": 20}, ValueError, "cv=20 stratified folds need at least 20 rows"),
            ({"cv": GroupKFold(3), "n_repeats": 1}, ValueError, "cv=GroupKFold"),
            ({"task": "ranking"}, ValueError, "task must be one of"),
            ({"test": "wilcoxon"}, ValueError, "test must be one of"),
            ({"margin": 0}, ValueError, "margin must be a finite number > 0"),
            ({"margin": "big"}, TypeError, "margin must be a number"),
            ({"scoring": ["accuracy", "f1"]}, ValueError, "scoring must be one metric"),
            ({"scoring": {"a": "accuracy"}}, ValueError, "scoring must be one metric"),
            ({"scoring": "bogus"}, ValueError, "scoring='bogus'"),
            ({"curvature_params": {"kind": "bogus"}}, ValueError, "curvature_params="),
            ({"random_state": -1}, ValueError, "random_state must be None or an int"),
            ({"random_state": 2**32}, ValueError, "random_state must be None or an"),
            ({"random_state": "0"}, TypeError, "random_state must be None or an int"),
            ({"max_epochs": -1}, ValueError, "estimator_params: .*max_epochs"),
            ({"gate": "silu"}, TypeError, "'gate' is not an estimator parameter"),
            ({"gates": {"silu", "none"}}, TypeError, "an ordered sequence"),
            ({"cv": True}, TypeError, "cv must be an int >= 2, a splitter"),
            ({"cv": "3"}, TypeError, "cv must be an int >= 2, a splitter"),
            (
                {"cv": [(np.arange(10, 30), np.arange(10)), (np.arange(20), [40])]},
                ValueError,
                "split indices must lie in \\[0, 30\\)",
            ),
            (
                {"cv": [(np.arange(10, 30), np.arange(10.0)), (np.arange(20), [25])]},
                ValueError,
                "split indices must be integers",
            ),
            (
                {"cv": [(np.arange(10, 30), np.arange(10)), (np.arange(30), [])]},
                ValueError,
                "has 30 training and 0 test rows",
            ),
            ({"verbose": -1}, ValueError, "verbose must be an int >= 0"),
            ({"n_jobs": 0}, ValueError, "n_jobs must be None or a nonzero int"),
            ({"n_jobs": 1.5}, ValueError, "n_jobs must be None or a nonzero int"),
            ({"curvature_params": "turning"}, TypeError, "curvature_params must be a"),
            (
                {"curvature_params": {"layer": 5}},
                ValueError,
                "curvature_params=.*layer",
            ),
            (
                {"curvature_params": {"metric": np.ones(3)}},
                ValueError,
                "curvature_params=",
            ),
            ({"preprocessor": "scale"}, TypeError, "preprocessor must be a scikit"),
            (
                {"preprocessor": StandardScaler},
                TypeError,
                "preprocessor must be a transformer instance.*StandardScaler\\(\\)",
            ),
            ({"gates": None}, TypeError, "gates must be a sequence of gate names"),
            (
                {"groups": np.array([None, *range(29)], dtype=object)},
                ValueError,
                "groups contains None \\(row 0\\)",
            ),
            (
                {
                    "task": "regression",
                    "cv": [(np.arange(1, 30), [0]), (np.arange(15), np.arange(15, 30))],
                },
                ValueError,
                "cv=<list of 2 splits>: split \\(repeat 0, fold 0\\) has 1 test "
                "row; R\\^2 needs at least 2",
            ),
            ({"groups": np.zeros((30, 1))}, ValueError, "groups must be 1-D"),
            (
                {"groups": np.r_[np.nan, np.arange(29.0)]},
                ValueError,
                "groups contains NaN",
            ),
            (
                {"task": "regression", "scoring": "accuracy"},
                ValueError,
                "scoring='accuracy' is a classification metric; the task is "
                "'regression'",
            ),
            (
                {"scoring": lambda est, X, y: "0.5"},
                TypeError,
                "scoring returned '0.5', not a number",
            ),
        ],
    )
    def test_bad_input_before_any_training(self, kwargs, error, message, monkeypatch):
        from skgate._evaluation import fits as module

        def no_training(*args, **kwargs):
            raise AssertionError("trained before checking its input")

        monkeypatch.setattr(module, "fit_together", no_training)
        X, y = make_linear_task(30, random_state=0)
        with pytest.raises(error, match=message) as info:
            compare_gates(X, y, **{"max_epochs": 1, **kwargs})
        assert "\n" not in str(info.value)

    @pytest.mark.parametrize(
        "y, task, message",
        [
            (np.array([1, "a"] * 15, dtype=object), None, "y mixes label types"),
            (np.full(30, 3.0), "regression", "y is constant \\(3.0\\)"),
            (np.arange(30) * 1e300, "regression", "beyond float32's range"),
        ],
    )
    def test_bad_targets(self, y, task, message):
        X, _ = make_linear_task(30, random_state=0)
        with pytest.raises((TypeError, ValueError), match=message):
            compare_gates(X, y, task=task, max_epochs=1)

    def test_odd_but_valid_designs(self):
        """Boolean masks as splits count their rows; cv=None is the default
        number of folds; a tiny margin is kept as given; the strength given
        as an estimator keyword is recorded; make_scorer's scorers are
        named; results compare by identity."""
        from sklearn.metrics import f1_score, make_scorer

        X, y = make_linear_task(60, random_state=0)
        masks = [(np.arange(60) >= 20, np.arange(60) < 20),
                 (np.arange(60) < 40, np.arange(60) >= 40)]  # fmt: skip
        result = compare_gates(
            X, y, gates=("multiplicative", "none"), cv=masks, n_repeats=1,
            margin=1e-300, alpha=0.7, scoring=make_scorer(f1_score),
            random_state=0, max_epochs=1, baselines=None,
        )  # fmt: skip
        assert set(result.scores_["n_test"]) == {20}
        assert set(result.scores_["n_train"]) == {40}
        assert result.settings_["margin"] == 1e-300
        gated = result.scores_[result.scores_["gate"] == "multiplicative"]
        assert (gated["alpha"] == 0.7).all()
        assert result.verdict_.startswith("Held-out f1_score: ")
        assert result == result and result != compare_gates(
            X, y, gates=("multiplicative", "none"), cv=masks, n_repeats=1,
            random_state=0, max_epochs=1,
        )  # fmt: skip
        assert compare_gates(
            X, y, gates=("silu", "none"), cv=None, n_repeats=1, random_state=0,
            max_epochs=1,
        ).settings_["splits"] == 10  # fmt: skip

    def test_a_score_that_is_not_one_finite_number(self):
        X, y = make_linear_task(30, random_state=0)
        with pytest.raises(ValueError, match="arm 'multiplicative' on split \\(repeat"):
            compare_gates(
                X, y, gates=("multiplicative", "none"), cv=3, n_repeats=1,
                scoring=lambda est, X, y: float("nan"), max_epochs=1, baselines=None,
            )  # fmt: skip
        # With the baselines, the first one scored says so, before any training.
        with pytest.raises(ValueError, match="^the score of arm 'LogReg' on split"):
            compare_gates(
                X, y, gates=("multiplicative", "none"), cv=3, n_repeats=1,
                scoring=lambda est, X, y: float("nan"), max_epochs=1,
            )  # fmt: skip

    def test_text_features_need_a_preprocessor(self):
        X = pd.DataFrame({"a": ["x", "y"] * 15, "b": np.arange(30.0)})
        with pytest.raises(ValueError, match="preprocessor="):
            compare_gates(X, np.arange(30) % 2, max_epochs=1)

    def test_one_class_is_refused(self):
        with pytest.raises(ValueError, match="y has one class \\(1\\.0\\)"):
            compare_gates(np.zeros((10, 2)), np.ones(10), max_epochs=1)

    def test_a_numeric_target_with_many_values_must_be_named(self):
        y = np.arange(100) % 50
        with pytest.raises(ValueError, match="pass task='regression'"):
            compare_gates(np.zeros((100, 2)), y, max_epochs=1)
        assert infer_task(y, "regression") == "regression"
        assert infer_task(np.arange(100) % 5) == "classification"

    def test_gate_tests_on_any_table(self):
        """Known differences: a is better than b by 0.1 in every split; the
        curvature is equal; small noise around equal scores is equivalent."""
        rng = np.random.default_rng(0)
        rows = [
            {"arm": arm, "repeat": r, "fold": f, "n_train": 90, "n_test": 10,
             "score": 0.5 + 0.1 * (arm == "a") + 0.001 * rng.normal(),
             "curvature": 1.0 + 0.001 * rng.normal()}
            for arm in ("a", "b") for r in range(10) for f in range(10)
        ]  # fmt: skip
        tests = gate_tests(pd.DataFrame(rows)).set_index("measure")
        assert tests.loc["score", "outcome"] == "holds"
        assert tests.loc["curvature", "outcome"] == "no effect"
        table = pd.DataFrame(rows)
        table.loc[table["arm"] == "a", "score"] -= 0.1
        tests = gate_tests(table).set_index("measure")
        assert tests.loc["score", "outcome"] == "no effect"

    @pytest.mark.parametrize("alike", [False, True])
    def test_gate_tests_tied_scores_of_one_repeat_decide_nothing(self, alike):
        """Two splits of tied accuracies (the mirror case: "equivalent
        within 0.02, +0 [0, 0]" from 2 splits of 10 rows) decide nothing,
        whether or not the two arms predicted every test row alike: one
        repeat is p 1/2 at best, and 10 test rows are 0.98^10 = 0.82."""
        rows = [
            {"arm": arm, "repeat": 0, "fold": f, "n_train": 5, "n_test": 5,
             "score": 0.6, "curvature": 1.0 + f + (arm == "a"),
             "predictions": f"{f}" if alike else f"{f}{arm}"}
            for arm in ("a", "b") for f in range(2)
        ]  # fmt: skip
        score = gate_tests(pd.DataFrame(rows)).set_index("measure").loc["score"]
        assert score["outcome"] == "inconclusive"
        assert score["note"] == ("alike" if alike else "no spread")
        assert score["p equivalence"] == pytest.approx(0.98**10)
        assert score["probability equivalent"] == pytest.approx(1 - 0.98**10)

    def test_many_repeats_of_few_tied_rows_are_not_equivalence(self):
        """Every arm 0.0 on both 2-row folds of 4 rows, 10 repeats, the same
        predictions: once "equivalent within 0.02 (probability > 0.99)",
        interval [0, 0] (issue 74, item 3). Arms that disagreed on 2 % of
        rows would leave all 4 in agreement with probability 0.98^4."""
        from skgate.compare.pairs import recommend

        rows = [
            {"arm": arm, "repeat": r, "fold": f, "n_train": 2, "n_test": 2,
             "score": 0.0, "curvature": 1.0 + f + r + (arm == "a"),
             "predictions": f"{r}{f}"}
            for arm in ("a", "b", "c") for r in range(10) for f in range(2)
        ]  # fmt: skip
        tests = gate_tests(pd.DataFrame(rows))
        score = tests[tests["measure"] == "score"]
        assert (score["outcome"] == "inconclusive").all()
        assert np.allclose(score["p equivalence"], 0.98**4)
        advice = recommend(pd.DataFrame(rows), 0.02, 0.5, 0)
        assert not advice.decided and set(advice.arms) == {"a", "b", "c"}
        assert advice.probability == pytest.approx(1 - 0.98**4)
        assert "over 10 repeats that is p = 0.92 at best" in str(advice)

    def test_many_repeats_of_many_tied_rows_are_equivalence(self):
        """The same tie on 210 test rows a repeat over 10 repeats: 0.98^210
        = 0.014 and 2^-10, each below 0.05 after Holm over 2 tests, so the
        arms are equivalent."""
        from skgate.compare.pairs import recommend

        rows = [
            {"arm": arm, "repeat": r, "fold": f, "n_train": 140, "n_test": 70,
             "score": 0.7, "curvature": 1.0 + f + r, "predictions": f"{r}{f}"}
            for arm in ("a", "b") for r in range(10) for f in range(3)
        ]  # fmt: skip
        score = gate_tests(pd.DataFrame(rows)).set_index("measure").loc["score"]
        assert (score["outcome"], score["note"]) == ("no effect", "alike")
        assert score["p equivalence"] == pytest.approx(0.98**210)
        assert (score["ci low"], score["ci high"]) == (0.0, 0.0)
        advice = recommend(pd.DataFrame(rows), 0.02, 1 / 3, 0)
        assert advice.decided and set(advice.arms) == {"a", "b"}

    def test_a_hundred_splits_of_plus_one_hold(self):
        """A scorer that gives one arm +1 on each of 10 x 10 splits: the sign
        test over 10 repeats gives 2^-10 (issue 74, item 2)."""
        from skgate.compare.pairs import recommend

        rows = [
            {"arm": arm, "repeat": r, "fold": f, "n_train": 90, "n_test": 10,
             "score": float(arm == "a"), "curvature": 1.0 + f + r}
            for arm in ("a", "b") for r in range(10) for f in range(10)
        ]  # fmt: skip
        score = gate_tests(pd.DataFrame(rows)).set_index("measure").loc["score"]
        assert (score["outcome"], score["note"]) == ("holds", "no spread")
        assert score["p"] == pytest.approx(2.0**-10)
        advice = recommend(pd.DataFrame(rows), 0.02, 0.1, 0)
        assert advice.arms == ("a",) and advice.decided

    def test_intervals_of_accuracy_are_cut_to_its_range(self):
        """On 4 rows and 2 folds an accuracy difference's interval was
        [-11.3, 16.3]: it is cut to [-1, 1] and called uninformative."""
        X = np.random.default_rng(0).normal(size=(4, 3))
        y = np.array([0, 1, 0, 1])
        result = compare_gates(X, y, gates=("multiplicative", "none"), cv=2,
                               n_repeats=1, random_state=0, **FAST)  # fmt: skip
        score = result.tests_.set_index("measure").loc["score"]
        assert -1 <= score["ci low"] <= score["ci high"] <= 1
        if score["note"] == "uninformative":
            assert "uninformative, the interval reached past the score's range" in (
                result.verdict_
            )
        from skgate.compare.pairs import clip_score_intervals

        wide = pd.DataFrame([{"measure": "score", "ci low": -11.3, "ci high": 16.3,
                              "note": ""},
                             {"measure": "curvature", "ci low": -11.3,
                              "ci high": 16.3, "note": ""}])  # fmt: skip
        cut = clip_score_intervals(wide, -1.0, 1.0)
        assert list(cut["ci low"]) == [-1.0, -11.3]
        assert list(cut["ci high"]) == [1.0, 16.3]
        assert list(cut["note"]) == ["uninformative", ""]

    @pytest.mark.parametrize(
        "change, message",
        [
            ("one arm", "holds 1 arm"),
            ("unpaired", "arm 'b' has no row for split \\(repeat 0, fold 2\\)"),
            ("duplicate", "scores has 2 rows for arm 'a' on split"),
            ("no columns", "scores lacks the columns \\['curvature'\\]"),
            ("no sizes", "test_fraction="),
            ("nan", "'score' column holds nan for arm 'a' on split \\(repeat 0"),
            ("text", "'score' column has dtype (object|str); it must hold numbers"),
            # accepted: test_fraction 0, the uncorrected test
            (
                "no test rows",
                "scores' 'n_test' column holds 0 for arm 'a' on split "
                "\\(repeat 0, fold 0\\); every split needs at least 1",
            ),
            ("no training rows", "scores' 'n_train' column holds 0 for arm 'a'"),
            # was "test_fraction ... got 1.33"
            ("negative", "scores' 'n_train' column holds -8 for arm 'a'"),
            ("fractional", "scores' 'n_test' column holds 2.5 for arm 'a'.*whole"),
            (
                "text sizes",
                "scores' 'n_train' column has dtype (object|str); it must hold numbers",
            ),
            # named "differences", which the table does not have
            ("one split", "scores has 1 split per arm; paired tests need at least 2"),
        ],
    )
    def test_gate_tests_refuses_tables_it_cannot_pair(self, change, message):
        table = pd.DataFrame(
            [
                {
                    "arm": arm,
                    "repeat": 0,
                    "fold": f,
                    "n_train": 8,
                    "n_test": 2,
                    "score": 0.5,
                    "curvature": 1.0,
                }
                for arm in ("a", "b")
                for f in range(4)
            ]  # fmt: skip
        )
        table = {
            "one arm": table[table["arm"] == "a"],
            "unpaired": table.drop(index=6),
            "duplicate": pd.concat([table, table.iloc[:1]]),
            "no columns": table.drop(columns="curvature"),
            "no sizes": table.drop(columns=["n_train", "n_test"]),
            "nan": table.assign(score=np.where(table.index == 0, np.nan, 0.5)),
            "text": table.assign(score=table["score"].astype(str)),
            "no test rows": table.assign(n_test=0),
            "no training rows": table.assign(n_train=0),
            "negative": table.assign(n_train=-8),
            "fractional": table.assign(n_test=2.5),
            "text sizes": table.assign(n_train=table["n_train"].astype(str)),
            "one split": table[table["fold"] == 0],
        }[change]
        with pytest.raises((TypeError, ValueError), match=message) as info:
            gate_tests(table)
        assert "\n" not in str(info.value)

    def test_gate_tests_refuses_an_uncorrected_test_fraction(self):
        """test_fraction=0 turned the corrected t-test into the uncorrected,
        over-confident one; the sign-flip test does not use it."""
        rows = [
            {"arm": arm, "repeat": 0, "fold": f, "score": 0.5 + 0.01 * f * (arm == "a"),
             "curvature": 1.0}
            for arm in ("a", "b") for f in range(4)
        ]  # fmt: skip
        table = pd.DataFrame(rows)
        for fraction in (0, 0.0, 1.0):
            with pytest.raises(ValueError, match="test_fraction must be a number in "
                               "\\(0, 1\\) for test='corrected-t'"):  # fmt: skip
                gate_tests(table, test_fraction=fraction)
        with pytest.raises(TypeError, match="test_fraction must be a number"):
            gate_tests(table, test_fraction="0.2")
        assert len(gate_tests(table, test="sign-flip", test_fraction=0)) == 2
        assert len(gate_tests(table, test_fraction=0.2)) == 2

    def test_gate_tests_needs_a_table(self):
        with pytest.raises(TypeError, match="scores must be a pandas DataFrame"):
            gate_tests([{"arm": "a"}])

    def test_gate_tests_pairs_the_splits_that_exist(self):
        """Repeats with different folds (repeat 0: folds 0-2, repeat 1:
        folds 0-1) are 5 paired splits, not a 2 x 3 grid with a gap: a is
        better by 0.1 + 0.01 (repeat + fold), 0.112 on average."""
        rows = [
            {"arm": arm, "repeat": r, "fold": f, "n_train": 8, "n_test": 2,
             "score": 0.5 + (0.1 + 0.01 * (r + f)) * (arm == "a"),
             "curvature": 1.0}
            for arm in ("a", "b") for r, folds in ((0, 3), (1, 2))
            for f in range(folds)
        ]  # fmt: skip
        tests = gate_tests(pd.DataFrame(rows)).set_index("measure")
        assert tests.loc["score", "mean difference"] == pytest.approx(0.112)
        # 5 splits: the t-test's p is read no lower than 2^-5 (sign_floor)
        assert tests.loc["score", "p"] == pytest.approx(2.0**-5)

    def test_signed_curvature_is_compared_in_magnitude(self):
        """Gaussian and scalar curvature take either sign: a flat arm (0) is
        less curved than one at K near -2 (on every split), and
        comes first among arms equivalent in score."""
        from skgate.compare.pairs import recommend

        rows = [  # 10 repeats of 2 folds of 100 rows: enough for a tie
            {"arm": arm, "repeat": f // 2, "fold": f % 2, "n_train": 100,
             "n_test": 100, "score": 0.5 + 0.01 * f,
             "curvature": curvature + 0.01 * f * slope,
             "predictions": f"{f}"}  # the same predictions: tied scores
            for arm, curvature, slope in (("flat", 0.0, 0), ("K<0", -2.0, 1))
            for f in range(20)
        ]  # fmt: skip
        scores = pd.DataFrame(rows)
        tests = gate_tests(scores).set_index("measure")
        curvature = tests.loc["curvature"]
        assert curvature["mean difference"] == pytest.approx(-(2 - 0.095))
        assert curvature["outcome"] == "reversed"
        assert (curvature["better"], curvature["worse"]) == ("flat", "K<0")
        recommendation = recommend(scores, 0.02, 0.1, 0)
        assert recommendation.arms == ("flat", "K<0")
        assert "the least curved is flat" in str(recommendation)

    def test_a_signed_kind_is_tested_and_named_in_magnitude(self):
        X, y = make_linear_task(40, random_state=0)
        result = compare_gates(
            X, y, gates=("silu", "none"), cv=2, n_repeats=2,
            curvature_params={"kind": "gaussian"}, random_state=0, **FAST,
        )  # fmt: skip
        scores, tests = result.scores_, result.tests_.set_index("measure")
        assert (scores["curvature measure"] == "Gaussian curvature").all()
        assert tests.loc["curvature", "measured as"] == "|Gaussian curvature|"
        assert "Curvature (|Gaussian curvature|): " in result.verdict_
        magnitude = scores["curvature"].abs().groupby(scores["arm"]).mean()
        assert tests.loc["curvature", "mean difference"] == pytest.approx(
            magnitude["silu"] - magnitude["none"]
        )

    def test_a_gate_named_with_a_comparison_sign(self):
        """A registered gate may be called "a > b": the tests carry each
        pair's arms in columns of their own, never parsed from the label."""
        import torch

        from skgate.nn import register_gate, unregister_gate

        register_gate(
            "id > x", form="pointwise", activation=lambda z: z,
            derivative=torch.ones_like, second_derivative=torch.zeros_like,
        )  # fmt: skip
        try:
            X, y = make_linear_task(40, random_state=0)
            result = compare_gates(
                X, y, gates=("id > x", "none"), cv=2, n_repeats=2, random_state=0,
                **FAST,
            )  # fmt: skip
        finally:
            unregister_gate("id > x")
        score = result.tests_.set_index("measure").loc["score"]
        assert (score["comparison"], score["better"], score["worse"]) == (
            "id > x > none", "id > x", "none"
        )  # fmt: skip
        assert (  # 2 repeats of 40 rows: too few to call a tie equivalence
            "id > x vs none inconclusive (the same predictions on every test row: "
            "too few repeats" in result.verdict_
        )

    def test_messages_describe_a_list_of_splits_not_its_arrays(self):
        X, y = make_linear_task(30, random_state=0)
        splits = [(np.arange(10, 30), np.arange(10)), (np.arange(20), [40])]
        with pytest.raises(ValueError) as info:
            compare_gates(X, y, cv=splits, max_epochs=1)
        message = str(info.value)
        assert message.startswith("cv=<list of 2 splits>: split indices must lie")
        assert "array" not in message and "\n" not in message

    def test_cv_as_text_is_named(self):
        X, y = make_linear_task(30, random_state=0)
        with pytest.raises(TypeError, match="cv must be an int >= 2.*got '5'"):
            compare_gates(X, y, cv="5", max_epochs=1)

    def test_compare_csv_names_a_cv_given_as_text(self, tmp_path):
        from skgate.compare import compare_csv

        X, y = make_curved_task(30, random_state=0)
        frame = pd.DataFrame(X, columns=["x0", "x1"]).assign(label=y)
        frame.to_csv(tmp_path / "data.csv", index=False)
        with pytest.raises(TypeError, match="cv must be an int >= 2.*got '5'"):
            compare_csv(tmp_path / "data.csv", "label", out=tmp_path / "o", cv="5")
        assert not (tmp_path / "o").exists()


class TestNotebook:
    def test_summary_str_and_html(self, curved_result):
        summary = curved_result.summary()
        assert isinstance(summary, pd.DataFrame) and len(summary) == 6
        assert "probability equivalent" in summary.columns
        assert str(curved_result).startswith(curved_result.verdict_)
        html = curved_result._repr_html_()
        assert html.count("<tr") == 7 and "Recommendation" in html
        assert "GateComparison(task_='classification'" in repr(curved_result)

    def test_display_draws_intervals(self, curved_result):
        import matplotlib

        matplotlib.use("Agg")
        display = curved_result.plot()
        assert display.ax_.shape == (2, 2)
        assert display.figure_ is display.ax_[0, 0].figure
        assert display.ax_[0, 0].get_ylabel() == "held-out accuracy"
        assert display.ax_[0, 1].get_ylabel() == "turning rate"
        tests = curved_result.tests_
        for column, measure in enumerate(("score", "curvature")):
            panel = display.ax_[1, column]
            segments = panel.collections[-1].get_segments()
            rows = tests[tests["measure"] == measure]
            assert segments[0][:, 0] == pytest.approx(
                rows[["ci low", "ci high"]].iloc[-1].to_numpy()
            )
            assert "turning rate" in display.ax_[1, 1].get_xlabel()
        assert display.figure_._suptitle.get_text().startswith("Recommendation: ")
        # Every x-axis label lies inside the figure (one was cut off: "...where
        # none is finit").
        display.figure_.canvas.draw()
        figure = display.figure_.bbox
        for panel in display.ax_.flat:
            box = panel.xaxis.label.get_window_extent()
            assert figure.x0 <= box.x0 and box.x1 <= figure.x1, panel.get_xlabel()
        from skgate.inspection import GateComparisonDisplay

        with pytest.raises(TypeError, match="result must be what compare_gates"):
            GateComparisonDisplay.from_result(None)


class TestCompareCommand:
    @pytest.fixture
    def table(self, tmp_path):
        X, y = make_curved_task(60, random_state=0)
        frame = pd.DataFrame(X, columns=["x0", "x1"])
        frame["colour"] = np.where(X[:, 0] > 0, "red", "blue")
        frame["label"] = y
        path = tmp_path / "data.csv"
        frame.to_csv(path, index=False)
        return path, frame

    def test_from_a_csv_to_a_verdict(self, table, tmp_path, capsys):
        import matplotlib

        matplotlib.use("Agg")
        path, _ = table
        out = tmp_path / "out"
        argv = ["compare", str(path), "--target", "label", "--cv", "2"]
        argv += ["--repeats", "2", "--max-epochs", "1", "--out", str(out)]
        argv += ["--margin", "0.05", "--test", "sign-flip"]
        assert _skgate_main(argv) == 0
        captured = capsys.readouterr()
        first, second = captured.out.splitlines()[:2]
        assert first.startswith("No gate beats the best baseline, ") or (
            "beat" in first and "the best baseline, " in first
        )
        assert second.startswith("Held-out accuracy: ")
        assert "arms x splits" in captured.err  # the progress bar
        names = {p.name for p in out.iterdir()}
        assert {"COMPARE.md", "compare_scores.csv", "compare_tests.csv"} <= names
        assert "fig_compare.png" in names
        scores = pd.read_csv(out / "compare_scores.csv")
        assert len(scores) == (3 + 2) * 2 * 2  # 3 gates and 2 baselines
        text = (out / "COMPARE.md").read_text()
        assert "Target `label` (classification)" in text
        for setting in (
            "| design         | 2-fold x 2 repeats (4 splits)",
            "| score margin   | 0.05",
            "| test           | sign-flip",
            "| epochs         | 1 ",
            "| seed           | 0 ",
            "| rows x columns | 60 x 3",
            "torch 2.",
        ):
            assert setting in text
        tests = pd.read_csv(out / "compare_tests.csv")
        assert (tests["margin"][tests["measure"] == "score"] == 0.05).all()

    def test_compare_csv_refuses_what_the_command_refuses(self, table, tmp_path):
        """From Python, a file the comparison cannot use is a CsvProblem (a
        ValueError) with the command's message, and nothing is written."""
        from skgate.compare import CsvProblem, compare_csv

        path, _ = table
        out = tmp_path / "out"
        with pytest.raises(CsvProblem, match="no column 'nope' in .*'x0', 'x1'"):
            compare_csv(path, "nope", out=out)
        assert not out.exists()

    def test_compare_csv_names_its_arguments_not_the_commands_options(
        self, table, tmp_path, capsys
    ):
        """From Python the messages name compare_csv's keywords (cv=,
        task=, repeats=); from the command line, its options (--cv, --task,
        --repeats). compare_csv said --cv and --task, and n_repeats (its
        argument is repeats)."""
        from skgate.compare import compare_csv

        path, frame = table
        out = tmp_path / "out"
        regress = tmp_path / "regress.csv"
        frame.assign(label=np.arange(len(frame))).to_csv(regress, index=False)
        words = [  # (arguments, Python's words, the command line's words)
            (
                (path, {"cv": 40}),
                ["cv=40 stratified folds need at least 40 rows", ": lower cv, or"],
                ["--cv 40 stratified folds need at least 40 rows", ": lower --cv, or"],
            ),
            (
                (regress, {}),
                ["pass task='regression' to predict it as a number, or "
                 "task='classification' to treat"],
                ["pass --task regression to predict it as a number, or --task "
                 "classification to treat"],
            ),
            (
                (path, {"task": "regression", "target": "colour"}),
                ["task='regression' needs a numeric target; 'colour' holds text"],
                ["--task regression needs a numeric target; 'colour' holds text"],
            ),
            (
                (path, {"repeats": 0}),
                ["repeats must be an int from 1 to 1000; got 0."],
                ["--repeats must be >= 1; got 0."],
            ),
        ]  # fmt: skip
        for (csv, given), python, command in words:
            given = {"target": "label", **given}
            with pytest.raises(ValueError) as info:
                compare_csv(csv, out=out, **given)
            message = str(info.value)
            assert all(w in message for w in python) and "--" not in message
            argv = ["compare", str(csv), "--out", str(out)]
            for name, value in given.items():
                argv += [f"--{name}", str(value)]
            with pytest.raises(SystemExit):
                _skgate_main(argv)
            error = capsys.readouterr().err
            assert all(w in error for w in command), error
        assert not out.exists()

    def test_a_csv_not_in_utf8_says_so(self, table, tmp_path):
        """A spreadsheet's Latin-1 CSV: the file, its first byte that is not
        UTF-8 (pandas' position is within a block) and what to do, in one
        line; it was "cannot read ... as CSV: 'utf-8' codec can't decode"."""
        from skgate.compare import CsvProblem, compare_csv

        _, frame = table
        path = tmp_path / "latin.csv"
        frame.assign(label=frame["label"].map({0: "café", 1: "thé"})).to_csv(
            path, index=False, encoding="latin-1"
        )
        first = path.read_bytes().index(b"\xe9")
        line = path.read_bytes()[:first].count(b"\n") + 1
        message = (
            f"'{path}' is not UTF-8 text (byte 0xe9 on line {line}, byte {first} "
            "of the file); save it as UTF-8 (a spreadsheet's 'CSV UTF-8')."
        )
        with pytest.raises(CsvProblem) as info:
            compare_csv(path, "label", out=tmp_path / "out")
        assert str(info.value) == message
        assert not (tmp_path / "out").exists()

    def test_an_interrupted_run_leaves_nothing(self, table, tmp_path, monkeypatch):
        from skgate.compare import csvfile as compare

        def interrupted(*args, **kwargs):
            raise KeyboardInterrupt

        monkeypatch.setattr(compare, "compare_csv", interrupted)
        path, _ = table
        out = tmp_path / "new"
        assert _skgate_main(["compare", str(path), "--target", "label", "--out",
                         str(out)]) == 130  # fmt: skip
        assert not out.exists()

    def test_a_regression_target(self, tmp_path, capsys):

        rng = np.random.default_rng(0)
        frame = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
        frame["y"] = (frame["a"] * 10).round()  # whole numbers, many of them
        path = tmp_path / "r.csv"
        frame.to_csv(path, index=False)
        argv = ["compare", str(path), "--target", "y", "--cv", "2", "--repeats", "1"]
        argv += ["--max-epochs", "1", "--out", str(tmp_path / "o")]
        with pytest.raises(SystemExit) as info:
            _skgate_main(argv)
        assert info.value.code == 2
        assert "--task regression" in capsys.readouterr().err
        import matplotlib

        matplotlib.use("Agg")
        assert _skgate_main([*argv, "--task", "regression"]) == 0
        first, second = capsys.readouterr().out.splitlines()[:2]
        assert "the best baseline, Ridge (mean R^2 " in first
        assert second.startswith("Held-out R^2: ")

    @pytest.mark.parametrize(
        "change, argv, message",
        [
            (None, ["--target", "nope"], "no column 'nope'"),
            ("missing", [], "missing values in: x0 (2)"),
            ("infinite", [], "infinite values in: x1 (1)"),
            ("one class", [], "the target 'label' has one value"),
            (
                "unreadable",
                [],
                "is not UTF-8 text (byte 0xff on line 1, byte 0 of the file); "
                "save it as UTF-8",
            ),
            ("empty", [], "is empty"),
            ("header only", [], "has a header but no rows"),
            ("one minority row", ["--cv", "2"], "class 'rare' has 1"),
            (None, ["--cv", "40"], "--cv 40 stratified folds need at least 40 rows"),
            (
                None,
                ["--n-jobs", "0"],
                "--n-jobs must be a nonzero int from -1024 to 1024",
            ),
            (None, ["--random-state", "-3"], "--random-state must be an int in"),
            (None, ["--scheduler", "not an address"], "--scheduler must be an address"),
            (None, ["--scheduler", "tcp://127.0.0.1:1x"], "--scheduler must be"),
            (None, ["--out", " "], "--out must name a folder"),
            (None, ["--margin", "-1"], "--margin must be in (0, 1]"),
            (None, ["--cv", "1"], "--cv must be >= 2"),
            (None, ["--cv", "two"], "argument --cv: invalid int value: 'two'"),
            (None, ["--task", "ranking"], "argument --task: invalid choice"),
            ("semicolons", [], "compare needs commas between values"),
        ],
    )
    def test_bad_input_is_one_line(
        self, table, tmp_path, capsys, change, argv, message
    ):

        path, frame = table
        frame = frame.astype({"label": object})
        if change == "missing":
            frame.loc[[3, 7], "x0"] = np.nan
        elif change == "infinite":
            frame.loc[5, "x1"] = np.inf
        elif change == "one class":
            frame = frame.assign(label=1)
        elif change == "one minority row":
            frame.loc[0, "label"] = "rare"
        frame.to_csv(path, index=False, sep=";" if change == "semicolons" else ",")
        if change == "unreadable":
            path.write_bytes(b"\xff\xfe\x00bad\x00")
        elif change == "empty":
            path.write_text("")
        elif change == "header only":
            path.write_text("x0,x1,label\n")
        base = ["compare", str(path), "--target", "label", "--out", str(tmp_path / "o")]
        with pytest.raises(SystemExit) as info:
            _skgate_main(base + argv)
        assert info.value.code == 2
        error = capsys.readouterr().err
        assert message in error and "Traceback" not in error
        assert error.count("\n") == 1 and error.startswith("python -m skgate compare")


@pytest.mark.slow
def test_iris_verdict_does_not_depend_on_how_often_its_rows_are_reused():
    """The same 150 rows at the default epochs (a difference below 0.01 in
    accuracy): 2 or 6 repeats of the same rows decide no difference."""
    X, y = load_iris(return_X_y=True)
    results = {
        repeats: compare_gates(
            X,
            y,
            gates=("multiplicative", "none"),
            cv=5,
            n_repeats=repeats,
            random_state=0,
            baselines=None,  # the gates' verdict; baselines: tests/test_baselines.py
        )  # fmt: skip
        for repeats in (2, 6)
    }
    for result in results.values():
        score = result.tests_.set_index("measure").loc["score"]
        assert abs(score["mean difference"]) < 0.03
        assert score["outcome"] in {"inconclusive", "no effect"}


def test_the_committed_comparison_is_its_runs_output():
    """benchmarks/results/COMPARE.md (bench_compare.py's output) quotes each
    dataset's own COMPARE.md verdict, and its outcomes are those of that
    run's compare_tests.csv; every interval there agrees with its outcome."""
    from pathlib import Path

    results = Path(__file__).resolve().parents[1] / "benchmarks/results"
    table = pd.read_csv(results / "compare.csv")
    assert len(table) >= 3 and "regression" in set(table["task"])
    summary = (results / "COMPARE.md").read_text()
    assert "Run at commit " in summary and "CPU capability" in summary
    for _, row in table.iterrows():
        folder = results / f"compare_{row['dataset']}"
        own = (folder / "COMPARE.md").read_text().split("**")[1]
        assert own == row["verdict"] and f"**{row['dataset']}**: {own}" in summary
        tests = pd.read_csv(folder / "compare_tests.csv")
        score = tests[tests["measure"] == "score"]
        outcomes = "; ".join(
            f"{c}: {o}" for c, o in zip(score["comparison"], score["outcome"],
                                        strict=True)
        )  # fmt: skip
        assert outcomes == row["score outcomes, new defaults (10 x 10, corrected t)"]
        # The first sentence: whether any gate beats the best baseline.
        assert own.startswith(row["against the best baseline"] + ": ")
        assert "the best baseline, " in row["against the best baseline"]
        assert ((tests["ci low"] > 0) == (tests["outcome"] == "holds")).all()
        assert ((tests["ci high"] < 0) == (tests["outcome"] == "reversed")).all()


def test_progress_advances_as_jobs_end_not_in_their_order(monkeypatch):
    """The bar moves when any job ends: with the first job held back, the
    others' fits are counted before it ends (an ordered generator showed
    nothing until the first job ended)."""
    import threading
    import time

    from joblib import parallel_config

    from skgate._evaluation import fits

    first_done = threading.Event()
    real_fit_arm = fits._fit_arm

    def fit_arm(estimator, label, data, splits, *args):
        rows = real_fit_arm(estimator, label, data, splits, *args)
        if splits[0].repeat == 0 and label == "multiplicative":
            time.sleep(1.0)  # the first job ends last
            first_done.set()
        return rows

    seen = []

    class Bar:
        def update(self, n):
            seen.append((n, first_done.is_set()))

        def close(self):
            pass

    monkeypatch.setattr(fits, "_fit_arm", fit_arm)
    monkeypatch.setattr(fits, "_progress_bar", lambda total, verbose: Bar())
    X, y = make_linear_task(60, random_state=0)
    with parallel_config(backend="threading"):
        result = compare_gates(X, y, gates=("multiplicative", "none"), cv=2,
                               n_repeats=3, max_epochs=1, random_state=0,
                               n_jobs=2, baselines=None)  # fmt: skip
    assert sum(n for n, _ in seen) == 12
    assert not seen[0][1]  # a later job was counted before the first ended
    # The rows are still in the order of the arms, then of the splits.
    scores = result.scores_
    assert list(scores["arm"]) == ["multiplicative"] * 6 + ["none"] * 6
    assert list(scores["repeat"]) == [0, 0, 1, 1, 2, 2] * 2


def test_each_job_trains_on_one_torch_thread_and_gives_the_number_back(monkeypatch):
    """A job trains on one torch thread (a second one waits for a core
    another process holds: SPEED.md measures it); the caller's number comes
    back afterwards."""
    import torch

    from skgate._evaluation import fits

    seen = []
    real = fits.fit_together

    def recording(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(fits, "fit_together", recording)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        X, y = make_linear_task(60, random_state=0)
        compare_gates(X, y, gates=("multiplicative", "none"), cv=2, n_repeats=2,
                      max_epochs=1, random_state=0, baselines=None)  # fmt: skip
        assert seen and set(seen) == {1}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_split_chunks_packs_whole_repeats_into_networks():
    """compare trains up to MAX_MODELS_PER_NETWORK splits as one network:
    whole repeats packed together, a repeat larger than that cut evenly;
    every split exactly once, in order."""
    from skgate._evaluation import split_chunks
    from skgate.parallel import MAX_MODELS_PER_NETWORK

    class Split:
        def __init__(self, repeat):
            self.repeat = repeat

    def sizes(n_repeats, n_folds):
        splits = [Split(r) for r in range(n_repeats) for _ in range(n_folds)]
        groups = split_chunks(splits, MAX_MODELS_PER_NETWORK)
        assert [i for g in groups for i in g] == list(range(len(splits)))
        for group in groups:  # a repeat is cut only when larger than a network
            repeats = {splits[i].repeat for i in group}
            assert len(repeats) == 1 or all(
                sum(s.repeat == r for s in splits) <= MAX_MODELS_PER_NETWORK
                for r in repeats
            )
        return [len(g) for g in groups]

    assert sizes(10, 10) == [20] * 5
    assert sizes(10, 3) == [18, 12]
    assert sizes(1, 25) == [13, 12]
    assert sizes(2, 25) == [13, 12, 13, 12]


@pytest.mark.parametrize(
    "y",
    [
        [0.5, 1.0, 2.0],
        [0.0, 1.0, 2.0],
        [1, 2, 3, 1],
        [True, False, True],
        ["a", "b", "a"],
        np.linspace(0, 1, 50),
        np.arange(10) * 1e300,
        np.array([1e20, 2e20]),
    ],
    ids=lambda y: repr(y)[:20],
)
def test_infer_task_reads_continuous_targets_as_type_of_target_does(y):
    """One rule (skgate._options.read_task, numpy alone, also the command
    line's) agrees with scikit-learn's type_of_target on what is continuous."""
    from sklearn.utils.multiclass import type_of_target

    continuous = type_of_target(np.asarray(y)).startswith("continuous")
    assert (infer_task(y) == "regression") == continuous


def test_infer_task_names_a_target_that_is_not_finite():
    with pytest.raises(ValueError, match="y contains NaN or infinity"):
        infer_task([1.0, np.nan, 2.0])


def test_no_more_workers_than_jobs(monkeypatch):
    """n_jobs above the number of jobs starts no idle workers (1024 started
    1024 processes for 4 jobs)."""
    from skgate._evaluation import fits

    asked = []

    class Recording(fits.Parallel):
        def __init__(self, n_jobs=None, **kwargs):
            asked.append(n_jobs)
            super().__init__(n_jobs=1, **kwargs)

    monkeypatch.setattr(fits, "Parallel", Recording)
    X, y = make_linear_task(60, random_state=0)
    compare_gates(X, y, gates=("multiplicative", "none"), cv=2, n_repeats=2,
                  max_epochs=1, random_state=0, n_jobs=1024,
                  baselines=None)  # fmt: skip
    assert asked == [2]  # 2 arms x 1 network of 4 splits each


def test_the_scores_do_not_depend_on_how_splits_share_networks(monkeypatch):
    """Which splits train as one network (and on how many threads) changes
    no score or curvature: one split per network gives the same bits as the
    default packing."""
    from skgate._evaluation import fits

    X, y = make_curved_task(80, random_state=0)
    kwargs = dict(gates=("multiplicative", "none"), cv=2, n_repeats=3,
                  max_epochs=2, random_state=0, baselines=None)  # fmt: skip
    packed = compare_gates(X, y, **kwargs).scores_

    def one_per_network(splits, size=None):
        return [[i] for i in range(len(splits))]

    monkeypatch.setattr(fits, "split_chunks", one_per_network)
    alone = compare_gates(X, y, **kwargs).scores_
    for column in ("score", "curvature"):
        assert packed[column].tolist() == alone[column].tolist()


def test_one_more_right_row_on_every_split_decides_nothing():
    """Arm a is right on one more of 13 test rows on every split: its
    differences are 1/13 up to rounding, no sampling error shows, and the
    row once said "holds" at Holm p 6e-136 (hostile pass, round seven)."""
    from skgate.compare import gate_tests

    rows = [
        {"arm": arm, "repeat": i // 5, "fold": i % 5, "n_train": 52, "n_test": 13,
         "score": (k + (arm == "a")) / 13, "curvature": 1.0 + 0.1 * i}
        for i, k in enumerate([3, 5, 7, 8, 9, 10, 4, 6, 11, 2])
        for arm in "ab"
    ]  # fmt: skip
    score = gate_tests(pd.DataFrame(rows)).set_index("measure").loc["score"]
    assert (score["outcome"], score["note"]) == ("inconclusive", "no spread")
    assert score["p"] == 0.25  # 2 repeats: 2^-2 at best
    assert score["probability better"] == pytest.approx(0.75)


@pytest.mark.parametrize("scoring", [None, "accuracy", "balanced_accuracy"])
def test_a_margin_wider_than_the_score_is_refused_before_training(scoring):
    # Once: "equivalent within +-1.5" on a score in [0, 1]; the command line
    # refused --margin 1.5 already.
    X, y = make_linear_task(40, random_state=0)
    with pytest.raises(ValueError, match=r"margin must be in \(0, 1\] for "):
        compare_gates(X, y, margin=1.5, scoring=scoring, max_epochs=1, cv=2)


def test_a_callables_margin_may_be_wide():
    X, y = make_linear_task(40, random_state=0)
    result = compare_gates(
        X, y, gates=("multiplicative", "none"), margin=5.0, max_epochs=1, d_model=8,
        cv=2, n_repeats=1, random_state=0,
        scoring=lambda est, X, y: 10 * est.score(X, y),
    )  # fmt: skip
    assert result.settings_["margin"] == 5.0


def test_the_recommendation_does_not_depend_on_the_gates_order():
    """Constant X: SiLU and ungated attention predict alike on every test
    row, so their probabilities tie; the recommendation once named whichever
    came first in gates= (SiLU, the more curved, in one order)."""
    _, y = make_curved_task(40, random_state=0)
    X = np.ones((40, 2))
    kw = dict(cv=3, n_repeats=2, d_model=8, max_epochs=2, random_state=0,
              baselines=None)  # fmt: skip
    one = compare_gates(X, y, gates=("multiplicative", "silu", "none"), **kw)
    two = compare_gates(X, y, gates=("multiplicative", "none", "silu"), **kw)
    assert one.recommendation_.arms == two.recommendation_.arms == ("none", "silu")
    assert not one.recommendation_.decided
    assert str(one.recommendation_) == str(two.recommendation_)
    assert str(one.recommendation_).startswith(
        "use ungated attention (gate='none'), tied with silu as the likeliest"
    )


def test_the_recommendations_probabilities_do_not_depend_on_the_gates_order():
    """The joint posterior's draws once took the arms in the order of gates=,
    so the Monte Carlo probabilities moved with it (0.715 against 0.720)."""
    X, y = make_curved_task(60, random_state=0)
    kw = dict(cv=3, n_repeats=2, d_model=8, max_epochs=2, random_state=0,
              baselines=None)  # fmt: skip
    one = compare_gates(X, y, gates=("multiplicative", "none"), **kw)
    two = compare_gates(X, y, gates=("none", "multiplicative"), **kw)
    assert one.recommendation_.probabilities == two.recommendation_.probabilities


def _skgate_main(argv):
    """``python -m skgate *argv`` in this process: the exit code."""
    from skgate.command import parse
    from skgate.compare import run_command

    args, parser = parse(argv)
    return run_command(args, parser)


@pytest.mark.parametrize("order", ["ab", "ba"])
def test_exactly_tied_arms_are_named_together_whatever_the_draws(order):
    """Arm b's scores are arm a's in another order: equal means, whose
    difference summed to 1.7e-17, and the recommendation once named one
    arm "the likeliest" from Monte Carlo shares 0.592 against 0.596 (issue
    74, item 6). The mean difference is 0, printed "+0", and the two are
    tied on every seed and in either order."""
    from skgate.compare.pairs import recommend
    from skgate.compare.result import comparison_verdict

    a = np.array([0.1, 0.2, 0.7, 0.3, 0.6, 0.35, 0.15, 0.9, 0.45, 0.55])
    assert np.mean(a - np.roll(a, 2)) != 0  # the rounding this is about
    scores = {"a": a, "b": np.roll(a, 2)}
    rows = pd.DataFrame(
        {"arm": arm, "repeat": i // 5, "fold": i % 5, "n_train": 80, "n_test": 20,
         "score": scores[arm][i], "curvature": 1.0 + 0.1 * i + 0.01 * (arm == "a")}
        for arm in order for i in range(10)
    )  # fmt: skip
    tests = gate_tests(rows)
    score = tests[tests["measure"] == "score"].iloc[0]
    assert score["mean difference"] == 0.0
    assert score["probability better"] == score["probability worse"]
    for seed in range(8):
        advice = recommend(rows, 0.02, 0.2, seed)
        assert set(advice.arms) == {"a", "b"} and not advice.decided
        assert advice.arms[0] == "b"  # the less curved first, by name never
    verdict = comparison_verdict(tests, advice, "accuracy", "mean curvature")
    assert "inconclusive (+0 [" in verdict


def test_two_splits_never_decide_however_small_their_spread():
    """Hostile pass: differences of 0.1 and 0.1 + 1e-6 on 2 splits once
    held at p 3e-6 while exactly equal ones decided nothing: no p is below
    2^-J for J splits (paired.sign_floor), and no interval bound either."""
    from skgate import paired
    from skgate.compare import gate_tests

    for spread in (0.0, 1e-6, 1e-3, 0.009):
        rows = [
            {"arm": arm, "repeat": 0, "fold": f, "n_train": 10, "n_test": 10,
             "curvature": 1.0 + f, "score": 0.6 + spread * f if arm == "a" else 0.5}
            for arm in "ab" for f in range(2)
        ]  # fmt: skip
        score = gate_tests(pd.DataFrame(rows)).set_index("measure").loc["score"]
        assert score["outcome"] == "inconclusive" and score["p"] >= 0.25
        assert score["ci low"] == -np.inf
    assert paired.sign_floor(3) == 0.125


def test_identical_baselines_that_beat_every_gate_are_named_not_the_gates():
    """Hostile pass: two identical baselines (a tie on few rows) once had
    their own probabilities capped, and the recommendation named the gates,
    whose mean was lower; the tie caps only the pair named together."""
    from skgate.compare.pairs import recommend

    rng = np.random.default_rng(0)
    rows = []
    for r in range(10):
        for f in range(2):
            noise = rng.normal(0, 0.02, size=2)
            means = {"A": 0.9, "B": 0.9, "multiplicative": 0.6 + noise[0],
                     "none": 0.5 + noise[1]}  # fmt: skip
            for arm, score in means.items():
                rows.append(
                    {
                        "arm": arm,
                        "repeat": r,
                        "fold": f,
                        "n_train": 20,
                        "n_test": 20,
                        "score": score,
                        "curvature": np.nan if arm in "AB" else 1.0 + f,
                        "predictions": f"{r}{f}" if arm in "AB" else f"{r}{f}{arm}",
                    }
                )
    advice = recommend(pd.DataFrame(rows), 0.02, 0.5, 0)
    assert set(advice.arms) == {"A", "B"} and not advice.decided
    assert "A minus B is +0 on every split" in advice.why_undecided


def test_tied_best_baselines_are_named_together():
    from skgate.compare.result import baselines_verdict

    rows = pd.DataFrame(
        {"arm": arm, "repeat": r, "fold": 0, "n_train": 10, "n_test": 10,
         "score": {"g": 0.3 + 0.01 * r, "L": 0.5 + 0.001 * r,
                   "H": 0.5 + 0.001 * (9 - r)}[arm],
         "curvature": 1.0 + r if arm == "g" else np.nan, "baseline": arm != "g"}
        for arm in ("g", "L", "H") for r in range(10)
    )  # fmt: skip
    from skgate.compare import gate_tests

    first = baselines_verdict(gate_tests(rows), rows, "accuracy")
    assert first.startswith("No gate beats the best baselines, L and H (tied at mean")
    assert "H beats g" in first and "L beats g" in first

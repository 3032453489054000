"""benchmark_gates: the gates and the baselines on the same splits of many
datasets, and the cross-dataset tests."""

import json
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from skgate import benchmark_gates, make_curved_task, make_linear_task
from skgate.benchmark import GateBenchmark, default_baselines, default_preprocessor
from skgate.inspection import CriticalDifferenceDisplay

matplotlib.use("Agg")

#: Tiny models: the tests check the design and the bookkeeping, not accuracy.
TINY = {"max_epochs": 2, "d_model": 8, "n_tokens": 2}


def _datasets():
    return {
        "curved": make_curved_task(60, random_state=0),
        "linear": make_linear_task(60, random_state=0),
        "other": make_curved_task(60, shape="checkerboard", random_state=1),
    }


def _run(datasets=None, **params):
    design = {
        "gates": ("multiplicative", "none"),
        "baselines": {"LogReg": LogisticRegression(), "tree": DecisionTreeClassifier()},
        "cv": 3,
        "random_state": 0,
    }
    return benchmark_gates(
        _datasets() if datasets is None else datasets, **{**design, **TINY, **params}
    )


@pytest.fixture(autouse=True)
def _close_figures():
    """Each figure a test draws is closed after it (pyplot keeps them)."""
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


@pytest.fixture(scope="module")
def result():
    return _run()


class TestResult:
    def test_every_model_on_every_split_of_every_dataset(self, result):
        scores = result.scores_
        assert len(scores) == 3 * 4 * 3  # datasets x models x folds
        counts = scores.groupby(["dataset", "repeat", "fold"])["model"].nunique()
        assert (counts == 4).all()
        assert set(scores["kind"]) == {"gate", "baseline"}

    def test_each_split_has_one_seed_for_every_model(self, result):
        seeds = result.scores_.groupby(["dataset", "repeat", "fold"])["model_seed"]
        assert (seeds.nunique() == 1).all()
        assert result.scores_.groupby("dataset")["model_seed"].nunique().min() == 3

    def test_curvature_for_gates_only(self, result):
        scores = result.scores_
        gates = scores[scores["kind"] == "gate"]
        assert np.isfinite(gates["curvature"]).all()
        assert scores.loc[scores["kind"] == "baseline", "curvature"].isna().all()
        # Ungated attention is affine in its values: flat.
        assert gates.loc[gates["model"] == "none", "curvature"].abs().max() < 1e-6

    def test_ranks_follow_the_mean_scores(self, result):
        means = result.scores_.pivot_table(
            index="dataset", columns="model", values="score"
        )
        for dataset, row in result.ranks_.iterrows():
            best = row.idxmin()
            assert means.loc[dataset, best] == means.loc[dataset].max()
        assert result.average_ranks_.is_monotonic_increasing
        assert result.average_ranks_.sum() == pytest.approx(4 * 5 / 2)

    def test_winner_is_the_highest_mean(self, result):
        table = result.datasets_
        for _, group in table.groupby("dataset"):
            assert set(group.loc[group["winner"], "model"]) == set(
                group.loc[group["score"] == group["score"].max(), "model"]
            )
        assert (table["ci low"] <= table["score"]).all()
        assert (table["score"] <= table["ci high"]).all()

    def test_pairs_of_interest(self, result):
        comparisons = list(result.tests_["comparison"])
        best = min(("multiplicative", "none"), key=result.average_ranks_.get)
        assert comparisons == [
            "multiplicative > none",
            f"{best} > LogReg",
            f"{best} > tree",
        ]
        probabilities = result.tests_[
            ["probability better", "probability equivalent", "probability worse"]
        ].sum(axis=1)
        assert probabilities.to_numpy() == pytest.approx(1.0)
        counts = result.tests_[
            ["datasets better", "datasets equivalent", "datasets worse"]
        ].sum(axis=1)
        assert (counts == 3).all()

    def test_words_and_views(self, result):
        assert result.verdict_.startswith("Across 3 datasets, Friedman's test")
        # Few datasets: the verdict says its statements rest on few.
        assert result.verdict_.endswith(
            "Only 3 datasets: every statement here rests on few (Demšar 2006 asks "
            "for about 10 or more for tests across datasets; the Bayesian "
            "signed-rank test can call a pair better from 2 datasets that "
            "agree): read them as a pilot's."
        )
        assert "GateBenchmark(datasets=3" in repr(result)
        assert "Average ranks" in result._repr_html_()
        assert list(result.summary().columns)[0] == "comparison"
        assert str(result).startswith(result.verdict_)

    def test_each_verdict_phrase_names_the_two_models(self, result):
        """A pair's phrase names its models, never its probabilities (the
        probability texts once overwrote the models' names)."""
        phrases = {
            "holds": "{0} is better than {1}",
            "reversed": "{1} is better than {0}",
            "no effect": "{0} and {1} are equivalent within",
            "inconclusive": "{0} against {1} is undecided",
        }
        for _, row in result.tests_.iterrows():
            first, second = row["comparison"].split(" > ")
            said = phrases[row["outcome"]].format(first, second)
            assert said in result.verdict_, said

    def test_plot_is_the_critical_difference_diagram(self, result):
        display = result.plot()
        assert isinstance(display, CriticalDifferenceDisplay)
        assert display.critical_difference == result.friedman_["critical difference"]
        with pytest.raises(TypeError, match="one matplotlib Axes"):
            CriticalDifferenceDisplay(result.average_ranks_, 1.0).plot(ax=[1, 2])
        with pytest.raises(TypeError, match="GateBenchmark"):
            CriticalDifferenceDisplay.from_result(result.scores_)

    def test_tests_are_recomputed_from_the_scores_alone(self, result, tmp_path):
        path = tmp_path / "scores.csv"
        result.scores_.to_csv(path, index=False)
        again = GateBenchmark.from_scores(pd.read_csv(path))
        pd.testing.assert_frame_equal(again.tests_, result.tests_)
        assert again.verdict_ == result.verdict_


def _rows(scores):
    return scores.drop(columns=["fit_time", "seconds"]).reset_index(drop=True)


def test_same_random_state_same_rows(result):
    pd.testing.assert_frame_equal(_rows(_run().scores_), _rows(result.scores_))


def test_a_datasets_rows_do_not_depend_on_the_others(result):
    datasets = _datasets()
    alone = _run({"other": datasets["other"], "linear": datasets["linear"]})
    for name in ("other", "linear"):
        pd.testing.assert_frame_equal(
            _rows(alone.scores_[alone.scores_["dataset"] == name]),
            _rows(result.scores_[result.scores_["dataset"] == name]),
        )


def test_memory_resumes_where_a_run_stopped(tmp_path):
    """A run interrupted at its third dataset kept the first two: called
    again, it reads them back (their recorded seconds, not new ones) and
    computes only the rest."""
    datasets = _datasets()
    calls = []

    def failing():
        calls.append("other")
        raise KeyboardInterrupt

    interrupted = {"curved": datasets["curved"], "linear": datasets["linear"],
                   "other": failing}  # fmt: skip
    with pytest.raises(KeyboardInterrupt):
        _run(interrupted, memory=tmp_path)
    first = _run({"curved": datasets["curved"], "linear": datasets["linear"]},
                 memory=tmp_path)  # fmt: skip
    resumed = _run(datasets, memory=str(tmp_path))
    kept = resumed.scores_[resumed.scores_["dataset"] != "other"]
    pd.testing.assert_frame_equal(kept.reset_index(drop=True), first.scores_)
    assert calls == ["other"]


def test_default_baselines_and_preprocessing_of_a_table():
    """A DataFrame with a text column: one-hot encoded inside the folds;
    the three default baselines run on the same splits."""
    X, y = make_classification(90, n_features=4, random_state=0)
    frame = pd.DataFrame(X, columns=list("abcd"))
    frame["colour"] = np.where(X[:, 0] > 0, "red", "blue")
    loaders = {"table": lambda: (frame, y), "array": (X[:, ::-1], y)}
    result = benchmark_gates(loaders, gates=("multiplicative", "none"), cv=3,
                             random_state=0, **TINY)  # fmt: skip
    assert list(result.ranks_.columns) == [
        "multiplicative",
        "none",
        *default_baselines(),
    ]
    transformed = default_preprocessor(frame).fit_transform(frame)
    assert transformed.shape == (90, 6)


@pytest.mark.parametrize(
    "datasets, params, error, match",
    [
        ([("a", (1, 2))], {}, TypeError, "datasets must be a mapping"),
        ({"a": make_linear_task(30, random_state=0)}, {}, ValueError, "at least 2"),
        ({"a": (1, 2, 3), "b": (1, 2, 3)}, {}, TypeError, r"datasets\['a'\] must be"),
        ({"a": make_linear_task(30, random_state=0),
          "b": (np.ones((30, 2)), np.linspace(0, 1, 30))}, {}, ValueError,
         "dataset 'b'.*compares classifiers"),
        (None, {"baselines": {"ols": LinearRegression()}}, TypeError, "classifier"),
        (None, {"baselines": {"none": LogisticRegression()}}, ValueError,
         "also a gate's name"),
        (None, {"baselines": "LogReg"}, TypeError, "baselines must be"),
        (None, {"preprocessor": "scale"}, ValueError, "'passthrough'"),
        (None, {"memory": 3}, TypeError, "memory must be"),
        (None, {"margin": -1}, ValueError, "margin"),
        (None, {"baselines": {"": LogisticRegression()}}, ValueError, "non-empty"),
        (None, {"baselines": {"a > b": LogisticRegression()}}, ValueError, "' > '"),
        (None, {"baselines": {1: LogisticRegression()}}, ValueError, "non-empty"),
        (None, {"baselines": ["LogReg"]}, TypeError, "estimator instances"),
        (None, {"alpha": 0.5}, TypeError, "alphas="),
        ({"a": (np.ones((9, 2)), [0, 1] * 4 + [0], None), "b": (1, 2)}, {},
         TypeError, "tuple of length 3"),
        (None, {"gates": ("multiplicative",)}, ValueError, "at least 2"),
    ],
)  # fmt: skip
def test_bad_input_is_named(datasets, params, error, match):
    params = {"baselines": {"LogReg": LogisticRegression()}, **params}
    with pytest.raises(error, match=match):
        benchmark_gates(_datasets() if datasets is None else datasets,
                        gates=params.pop("gates", ("multiplicative", "none")),
                        cv=3, **params, **TINY)  # fmt: skip


def test_from_scores_refuses_unpaired_rows(result):
    scores = result.scores_
    with pytest.raises(ValueError, match="one row per split"):
        GateBenchmark.from_scores(scores.drop(index=scores.index[5]))
    with pytest.raises(ValueError, match="lacks the columns"):
        GateBenchmark.from_scores(scores.drop(columns="kind"))
    with pytest.raises(ValueError, match="at least 2"):
        GateBenchmark.from_scores(scores[scores["dataset"] == "curved"])
    with pytest.raises(TypeError, match="DataFrame"):
        GateBenchmark.from_scores(scores.to_numpy())


def test_one_model_best_on_every_dataset_is_decided():
    """A synthetic scores table with a known answer: model a beats b by
    0.1 on each of 12 datasets; a holds on every dataset and across them."""
    rows = [
        {"dataset": f"d{d}", "model": m, "kind": "gate", "repeat": 0, "fold": f,
         "n_train": 90, "n_test": 10, "curvature": 0.0,
         "score": 0.6 + (0.1 + 0.003 * ((7 * f + d) % 3)) * (m == "a")
                  + 0.01 * f + 0.02 * d}
        for d in range(12) for m in ("a", "b") for f in range(5)
    ]  # fmt: skip
    result = GateBenchmark.from_scores(pd.DataFrame(rows))
    row = result.tests_.iloc[0]
    assert row["outcome"] == "holds" and row["datasets holds"] == 12
    assert row["probability better"] > 0.99
    assert result.average_ranks_.to_dict() == {"a": 1.0, "b": 2.0}


def _keel_report():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "keel_report.py"
    spec = importlib.util.spec_from_file_location("keel_report", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"


def _committed_keel(stem):
    """One committed part of the KEEL run (``keel``, ``keel_tuned``,
    ``keel_epochs20``): its result, read back from its CSVs, and its record."""
    info = json.loads((RESULTS / f"{stem}_run.json").read_text())
    settings = info["settings"]
    chosen = None
    if settings.get("tuning") is not None:
        chosen = pd.read_csv(RESULTS / f"{stem}_params.csv")
        chosen["params"] = chosen["params"].map(json.loads)
    result = GateBenchmark.from_scores(
        pd.read_csv(RESULTS / f"{stem}_scores.csv"),
        models=settings["models"],
        margin=settings["margin"],
        settings=settings,
        best_params=chosen,
    )
    return result, info


def _words(path):
    """A page's text with its line breaks and runs of spaces as one space."""
    return " ".join((RESULTS.parents[1] / path).read_text().split())


def test_findings_and_guide_quote_the_committed_keel_run():
    """The sentence the findings page and the user guide quote is the one
    built from benchmarks/results' keel_scores.csv, with the run's own
    minutes on the findings page, and KEEL.md's bottom line is built from
    the same numbers."""
    result, info = _committed_keel("keel")
    report = _keel_report()
    sentence = " ".join(report.headline(result).split())
    for page in ("docs/user_guide/findings.md", "docs/user_guide/your_data.md"):
        assert sentence in _words(page), page
    minutes = f"It took {info['datasets seconds'] / 60:.1f} min on 2 cores"
    assert f"{sentence} {minutes}" in _words("docs/user_guide/findings.md")
    assert info["cores"] == 2
    keel = _words("benchmarks/results/KEEL.md")
    for line in report.bottom_line(result):
        assert " ".join(line.split()) in keel
    assert result.friedman_["n datasets"] == 43


def test_the_claim_does_not_depend_on_the_rows_order(result):
    """Shuffled rows give the same pairs when the models' order is given
    (benchmark_gates records it in settings_['models'])."""
    shuffled = result.scores_.sample(frac=1, random_state=0)
    again = GateBenchmark.from_scores(shuffled, models=result.settings_["models"])
    assert list(again.tests_["comparison"]) == list(result.tests_["comparison"])
    pd.testing.assert_series_equal(again.average_ranks_, result.average_ranks_)
    with pytest.raises(ValueError, match="every model of scores once"):
        GateBenchmark.from_scores(shuffled, models=["multiplicative", "none"])


def test_from_scores_checks_kinds_settings_and_numbers(result):
    scores = result.scores_
    with pytest.raises(ValueError, match="'kind' column"):
        GateBenchmark.from_scores(scores.assign(kind="baseline"))
    with pytest.raises(TypeError, match="settings must be a dict"):
        GateBenchmark.from_scores(scores, settings=3)
    with pytest.raises(ValueError, match=r"settings\['tuning'\] must be one of"):
        GateBenchmark.from_scores(scores, settings={"tuning": "random"})
    with pytest.raises(ValueError, match="needs settings\\['n_configurations'\\]"):
        GateBenchmark.from_scores(scores, settings={"tuning": "grid"})
    with pytest.raises(ValueError, match="best_params and settings\\['tuning'\\]"):
        GateBenchmark.from_scores(scores, best_params=pd.DataFrame({"model": []}))
    as_text = GateBenchmark.from_scores(
        scores.assign(score=scores["score"].astype(str))
    )
    pd.testing.assert_frame_equal(
        as_text.tests_, GateBenchmark.from_scores(scores).tests_
    )
    assert GateBenchmark.from_scores(scores, settings={"margin": 0.3}).settings_[
        "margin"
    ] == pytest.approx(0.02)


def test_odd_inputs_that_work():
    """One-shot split iterables serve every dataset; a scalar alphas; sparse X
    is scaled, not centred; a loader's own error keeps its type."""
    import scipy.sparse as sp

    X, y = make_classification(60, n_features=4, random_state=0)
    splits = ((np.arange(40), np.arange(40, 60)) for _ in range(2))
    datasets = {"a": (X, y), "b": (sp.csr_matrix(X[:, ::-1]), y)}
    result = _run(datasets, cv=splits, alphas=0.5)
    assert len(result.scores_) == 2 * 4 * 2
    assert result.settings_["alphas"]["multiplicative (alpha=0.5)"] == 0.5

    def failing():
        raise OSError("no such file")

    with pytest.raises(OSError, match="no such file"):
        _run({"a": (X, y), "b": failing})


def test_display_refuses_what_it_cannot_draw():
    ranks = pd.Series({"a": 1.5, "b": 1.5})
    for bad, match in (
        (pd.Series({"a": np.nan, "b": 2.0}), "finite ranks"),
        (pd.Series(dtype=float), "at least 2"),
        ([1.0, 2.0], "pandas Series"),
    ):
        with pytest.raises((TypeError, ValueError), match=match):
            CriticalDifferenceDisplay(bad, 1.0).plot()
    for cd in (-1, np.nan, np.inf, "1"):
        with pytest.raises(ValueError, match="critical_difference"):
            CriticalDifferenceDisplay(ranks, cd).plot()


def test_demsars_diagram_groups():
    """Demsar's (2006) example at 0.10 (CD 1.12): C4.5 is apart from
    C4.5+m+cf and C4.5+m; at 0.05 (CD 1.25) all four form one group."""
    ranks = pd.Series({"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893,
                       "C4.5+m+cf": 1.964})  # fmt: skip
    assert CriticalDifferenceDisplay(ranks, 1.25).plot().cliques_ == [
        ("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5")
    ]
    assert CriticalDifferenceDisplay(ranks, 1.12).plot().cliques_ == [
        ("C4.5+m+cf", "C4.5+m", "C4.5+cf"),
        ("C4.5+cf", "C4.5"),
    ]


# -- the tuned mode: every model at the best of an equal grid search ---------

#: Weights that make logistic regression predict class 1 (nearly) always.
ONE_CLASS = {0: 1e-9, 1: 1.0}

#: Two configurations per model, searched on 2 inner folds.
GRIDS = {
    "multiplicative": {"lr": [1e-3, 1e-2]},
    "none": {"lr": [1e-3, 1e-2]},
    "LogReg": {"class_weight": [ONE_CLASS, None]},
}


class _Recording(LogisticRegression):
    """LogisticRegression that records each fit's configuration (whether it
    predicts one class) and the rows it saw (their ids, from the first
    column)."""

    fits = []

    def fit(self, X, y, sample_weight=None):
        ids = frozenset(np.rint(X[:, 0] * 100).astype(int))
        _Recording.fits.append((self.class_weight == ONE_CLASS, ids))
        return super().fit(X, y, sample_weight)


def _with_ids(X, y):
    """The first column: each row's id / 100 (the row found again in a fit)."""
    return np.column_stack([np.arange(len(y)) / 100, X]), y


#: Three outer folds of 48 rows, given as index arrays: the test rows known.
FOLDS = [(np.setdiff1d(np.arange(48), test), test)
         for test in np.array_split(np.arange(48), 3)]  # fmt: skip


def _tuned(**params):
    datasets = {
        "curved": _with_ids(*make_curved_task(48, random_state=0)),
        "linear": _with_ids(*make_linear_task(48, random_state=0)),
    }
    design = {
        "gates": ("multiplicative", "none"),
        "baselines": {"LogReg": _Recording()},
        "tuning": "grid",
        "param_grids": GRIDS,
        "inner_cv": 2,
        "cv": FOLDS,
        "preprocessor": "passthrough",
        "random_state": 0,
    }
    return benchmark_gates(datasets, **{**design, **TINY, **params})


@pytest.fixture(scope="module")
def tuned():
    """The tuned run, with every batch of gates fit_together trained and
    every baseline fit recorded."""
    import skgate.benchmark.runs

    batches = []

    def spy(models, items):
        batches.append(([m.lr for m in models], [len(y) for _, y in items]))
        return fit_together(models, items)

    fit_together = skgate.benchmark.runs.fit_together
    _Recording.fits = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(skgate.benchmark.runs, "fit_together", spy)
        result = _tuned()
    return result, batches, list(_Recording.fits)


class TestTuned:
    def test_every_model_searches_n_configurations(self, tuned):
        """2 datasets x 3 splits: each gate's inner fits of the 3 splits
        train together (2 configurations x 2 inner folds each), then its 3
        chosen ones; the baseline fits each of its 2 configurations on the 2
        inner folds, then the chosen one again."""
        result, batches, fits = tuned
        assert len(batches) == 2 * 2 * 2  # datasets x gates x (search, refit)
        for rates, rows in batches[::2]:
            assert sorted(rates) == [1e-3] * 6 + [1e-2] * 6
            assert rows == [16] * 12  # half of a split's 32 training rows
        for rates, rows in batches[1::2]:
            assert set(rates) <= {1e-3, 1e-2} and rows == [32] * 3
        assert len(fits) == 2 * 3 * (2 * 2 + 1)
        inner = [one_class for one_class, ids in fits if len(ids) == 16]
        assert sum(inner) == 2 * 3 * 2 and len(inner) == 2 * 3 * 4
        chosen = result.best_params_
        assert len(chosen) == 2 * 3 * 3  # datasets x models x splits
        assert (chosen["n_configurations"] == 2).all()
        assert (chosen["failed fits"] == 0).all()
        assert result.settings_["n_configurations"] == 2

    def test_the_search_sees_only_the_training_rows(self, tuned):
        """Every baseline fit, inner or final, holds no row of its split's
        test fold: rows of every other fold, never all."""
        _, _, fits = tuned
        tests = [set(test) for _, test in FOLDS]
        for _, ids in fits:
            outside = [i for i, test in enumerate(tests) if not ids & test]
            assert len(outside) == 1, sorted(ids)
        assert {len(ids) for _, ids in fits} == {16, 32}

    def test_the_chosen_configuration_is_recorded(self, tuned):
        """Logistic regression that predicts one class is never chosen on
        the linear task (listed first, it would win a tie); each gate's
        chosen rate is a row of best_params_, and a strength gate's scores_
        row carries its alpha."""
        result, _, fits = tuned
        chosen = result.best_params_
        logreg = chosen[(chosen["model"] == "LogReg") & (chosen["dataset"] == "linear")]
        assert [p["class_weight"] for p in logreg["params"]] == [None] * 3
        assert (logreg["inner score"] > 0.8).all()
        refits = [one_class for one_class, ids in fits if len(ids) == 32]
        assert len(refits) == 2 * 3 and sum(refits) == (
            chosen.loc[chosen["model"] == "LogReg", "params"]
            .map(lambda p: p["class_weight"] == ONE_CLASS)
            .sum()
        )
        gates = chosen[chosen["model"] != "LogReg"]
        assert {p["lr"] for p in gates["params"]} <= {1e-3, 1e-2}
        assert (chosen["inner score"].between(0, 1)).all()
        assert (chosen["search_time"] > 0).all()
        scores = result.scores_
        assert (scores.loc[scores["model"] == "multiplicative", "alpha"] == 1.0).all()
        assert list(result.ranks_.columns) == ["multiplicative", "none", "LogReg"]

    def test_the_mode_is_marked(self, tuned, result):
        tuned_result = tuned[0]
        assert tuned_result.tuning_ == "grid" and result.tuning_ is None
        assert result.best_params_ is None
        assert "tuning='grid'" in repr(tuned_result)
        words = "grid search over 2 configurations"
        assert words in tuned_result.verdict_ and words not in result.verdict_
        assert words in tuned_result._repr_html_()
        assert "at its defaults" in result._repr_html_()
        assert tuned_result.settings_["param_grids"] == GRIDS
        assert tuned_result.settings_["estimator_params"]["max_epochs"] == 2
        assert list(tuned_result.tests_["comparison"])[0] == "multiplicative > none"

    def test_same_random_state_same_rows(self, tuned):
        again = _tuned()
        pd.testing.assert_frame_equal(_rows(again.scores_), _rows(tuned[0].scores_))
        pd.testing.assert_frame_equal(
            again.best_params_.drop(columns="search_time"),
            tuned[0].best_params_.drop(columns="search_time"),
        )


def test_tuned_gates_train_the_pinned_epochs():
    """Without max_epochs the tuned gates train TUNED_MAX_EPOCHS, whatever
    the estimator's default; a grid may not set them."""
    from skgate.benchmark import TUNED_MAX_EPOCHS
    from skgate.benchmark.design import make_design

    design = make_design(("multiplicative", "none"), None, [], 3, None, None, None,
                     None, 0, {}, "grid", {"multiplicative": {"lr": [1e-3]},
                     "none": {"lr": [1e-3]}})  # fmt: skip
    assert {e.max_epochs for _, e in design.estimators} == {TUNED_MAX_EPOCHS}


def test_default_grids_are_equal_budgets_holding_the_defaults():
    from sklearn.base import clone
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import ParameterGrid
    from sklearn.neural_network import MLPClassifier

    from skgate import GatedAttentionClassifier
    from skgate.benchmark import default_param_grid

    models = [GatedAttentionClassifier(gate=g) for g in ("multiplicative", "silu")]
    models += [MLPClassifier(), LogisticRegression(), HistGradientBoostingClassifier()]
    for model in models:
        configurations = list(ParameterGrid(default_param_grid(model)))
        assert len(configurations) == 8, type(model).__name__
        defaults = clone(model).get_params()
        kept = [
            c for c in configurations if all(defaults[k] == v for k, v in c.items())
        ]
        assert len(kept) == 1, type(model).__name__  # the defaults, once
    rates = default_param_grid(models[0])[0]["lr"]
    assert max(rates) / min(rates) >= 16
    gate = list(ParameterGrid(default_param_grid(models[0])))
    assert {p["depth"] for p in gate} == {1, 2}
    assert {p.get("alpha") for p in gate} == {None, 0.5}
    with pytest.raises(TypeError, match="no default grid for DecisionTreeClassifier"):
        default_param_grid(DecisionTreeClassifier())


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"param_grids": {**GRIDS, "LogReg": {"C": [0.1, 1.0, 10.0]}}}, ValueError,
         r"param_grids must give every model as many configurations.*'LogReg': 3"),
        ({"param_grids": {**GRIDS, "forest": {"C": [1.0]}}}, ValueError,
         "param_grids names 'forest'"),
        ({"param_grids": {**GRIDS, "LogReg": {"depth": [1, 2]}}}, ValueError,
         r"param_grids\['LogReg'\] sets 'depth', which is not a parameter"),
        ({"param_grids": {**GRIDS, "none": {"max_epochs": [1, 2]}}}, ValueError,
         r"param_grids\['none'\] sets 'max_epochs', which the design fixes"),
        ({"param_grids": {**GRIDS, "LogReg": {"random_state": [1, 2]}}}, ValueError,
         "which the design fixes"),
        ({"param_grids": {**GRIDS, "none": {"alpha": [0.5, 1.0]}}}, ValueError,
         "gate 'none' ignores"),
        ({"param_grids": {**GRIDS, "LogReg": {"C": [-1.0, 1.0]}}}, ValueError,
         r"param_grids\['LogReg'\]"),
        ({"param_grids": {**GRIDS, "LogReg": {"C": []}}}, ValueError,
         r"param_grids\['LogReg'\]"),
        ({"param_grids": [GRIDS]}, TypeError, "param_grids must be a dict"),
        ({"param_grids": {"LogReg": {"C": [1.0]}},
          "baselines": {"LogReg": LogisticRegression(),
                        "tree": DecisionTreeClassifier()}}, ValueError,
         "param_grids has no grid for 'tree'"),
        ({"tuning": None}, ValueError, "param_grids is given but tuning=None"),
        ({"tuning": "random"}, ValueError, "tuning must be None"),
        ({"tuning": ["grid"]}, ValueError, "tuning must be None"),
        ({"alphas": 0.5}, ValueError, "leave alphas=None"),
        ({"inner_cv": 1}, ValueError, "inner_cv must be an int >= 2"),
        ({"inner_cv": "3"}, TypeError, "inner_cv must be"),
        ({"inner_cv": FOLDS}, TypeError, "a list of splits cannot serve"),
        ({"inner_cv": 30}, ValueError, r"inner_cv=30 on the training rows of split"),
    ],
)  # fmt: skip
def test_bad_tuning_is_named(params, error, match):
    with pytest.raises(error, match=match):
        _tuned(**{"baselines": {"LogReg": LogisticRegression()}, **params})


def test_keel_report_renders_a_tuned_section(tuned):
    """KEEL.md's tuned section from a tuned result: its bottom line (at most
    three sentences, the last what tuning changed against the defaults)
    under its own heading, the grids and the choices."""
    report = _keel_report()
    result = tuned[0]
    lines = report.tuned_bottom_line(result, result)  # tuned against itself
    assert len(lines) == 3
    assert lines[0].startswith("Each model tuned, multiplicative attention was")
    assert "multiplicative +0.000 (0/2/0)" in lines[2]
    assert len(report.tuned_bottom_line(result)) == 2
    data = pd.DataFrame({"dataset": ["curved", "linear"], "rows used": 48,
                         "classes": 2})  # fmt: skip
    info = {"n_repeats": 1, "datasets seconds": 1.0, "cores": 2, "n_jobs": 1,
            "slowest dataset": ["curved", 1.0]}  # fmt: skip
    text = report.tuned_section(result, info, data, result, info)
    assert text.count("## Bottom line") == 1
    assert all(" ".join(line.split()) in " ".join(text.split()) for line in lines)
    assert "| LogReg         | class_weight {0: 1e-09, 1: 1.0}, None |" in text
    assert "| none           | lr" in text


def test_findings_and_guide_quote_the_committed_tuned_keel_run():
    """The findings page's and the guide's sentences on the tuned run are the ones
    built from keel_tuned_scores.csv against the defaults at as many epochs
    (keel_epochs20_scores.csv), with the run's own minutes."""
    (tuned, info), (earlier, _) = map(_committed_keel, ("keel_tuned", "keel_epochs20"))
    assert tuned.settings_["tuning"] == "grid"
    assert tuned.settings_["estimator_params"]["max_epochs"] == 20
    sentence = " ".join(_keel_report().tuned_headline(tuned, earlier).split())
    minutes = f"It took {info['datasets seconds'] / 60:.1f} min on 2 cores"
    assert f"{sentence} {minutes}" in _words("docs/user_guide/findings.md")
    assert sentence in _words("docs/user_guide/your_data.md")


def test_findings_quote_what_the_new_default_changed_on_keel():
    """The findings page's sentence on max_epochs='auto' is the one built
    from the committed defaults and the earlier 20-epoch run on the same
    splits."""
    runs = [_committed_keel(stem)[0] for stem in ("keel", "keel_epochs20")]
    assert runs[0].settings_["estimator_params"]["max_epochs"] == "auto"
    assert runs[1].settings_["estimator_params"]["max_epochs"] == 20
    sentence = " ".join(_keel_report().budget_sentence(*runs).split())
    for page in ("docs/user_guide/findings.md", "benchmarks/results/KEEL.md"):
        assert sentence in _words(page), page


def _synthetic_scores():
    """Two models on 3 datasets, 3 splits each: no fitting."""
    rows = [
        {"dataset": f"d{d}", "model": m, "kind": "gate", "repeat": 0, "fold": f,
         "n_train": 80, "n_test": 20, "curvature": 1.0,
         "score": 0.6 + 0.1 * (m == "a") + 0.01 * (f + d)}
        for d in range(3) for m in ("a", "b") for f in range(3)
    ]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize("column", ["dataset", "repeat", "fold"])
@pytest.mark.parametrize("missing", [np.nan, None])
def test_from_scores_names_a_row_without_its_dataset_or_split(column, missing):
    """A missing dataset name (or repeat, fold) is named with its row, not
    pandas' KeyError from the rows groupby left out."""
    scores = _synthetic_scores().astype({column: object})
    scores.loc[4, column] = missing
    with pytest.raises(ValueError, match=f"scores' '{column}' column .* row 4"):
        GateBenchmark.from_scores(scores)
    scores.loc[:, column] = missing  # every row
    with pytest.raises(ValueError, match=f"scores' '{column}' column .* row 0"):
        GateBenchmark.from_scores(scores)


def test_a_loaders_error_names_its_dataset():
    X, y = make_classification(40, n_features=4, random_state=0)
    with pytest.raises(ZeroDivisionError, match=r"datasets\['bad'\]: its loader"):
        _run({"a": (X, y), "bad": lambda: 1 / 0})


def test_a_reversed_pair_is_told_from_the_winners_side():
    """ "LR is better than none: better on 0 ... worse on 2 ... probability
    better < 0.01" once read against itself: the counts were none's."""
    from skgate.benchmark.result import _pair_phrase

    row = {
        "comparison": "none > LR", "outcome": "reversed", "n datasets": 2,
        "datasets better": 0, "datasets equivalent": 0, "datasets worse": 2,
        "mean difference": -0.3, "probability better": 0.001,
        "probability equivalent": 0.039, "probability worse": 0.96,
    }  # fmt: skip
    assert _pair_phrase(row, 0.02) == (
        "LR is better than none: better on 2, within 0.02 on 0, worse on 0 of 2 "
        "datasets (mean difference +0.3); probability better 0.96, equivalent "
        "0.04, worse < 0.01."
    )

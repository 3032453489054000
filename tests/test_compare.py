"""compare_gates and its display: a user's data through the study's statistics."""

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold

from skgate import compare_gates, make_curved_task, make_linear_task
from skgate.compare import gate_tests
from skgate.study import primary

FAST = {"max_epochs": 2, "d_model": 8}


@pytest.fixture(scope="module")
def curved_result():
    X, y = make_curved_task(150, random_state=0)
    return compare_gates(X, y, cv=5, n_repeats=2, random_state=0, **FAST)


class TestCompareGates:
    def test_scores_and_tests(self, curved_result):
        scores, tests = curved_result.scores_, curved_result.tests_
        assert curved_result.task_ == "classification"
        assert list(scores.columns) == [
            "arm", "gate", "alpha", "repeat", "fold", "score", "curvature", "fit_time"
        ]  # fmt: skip
        assert len(scores) == 3 * 5 * 2
        assert scores["score"].between(0, 1).all()
        # Ungated attention over copied tokens is affine: flat on every split.
        assert (scores.loc[scores["gate"] == "none", "curvature"] == 0).all()
        assert list(tests["comparison"].unique()) == [
            "multiplicative > silu", "multiplicative > none", "silu > none"
        ]  # fmt: skip
        assert len(tests) == 6 and (tests["p holm"] >= tests["p"]).all()
        # Curved in all 10 splits against flat: 1/1024 before Holm, holds.
        flat = tests.set_index(["comparison", "measure"]).loc[
            ("multiplicative > none", "curvature")
        ]
        assert flat["p"] == pytest.approx(1 / 1024) and flat["outcome"] == "holds"
        assert curved_result.verdict_.startswith("On these data multiplicative")
        assert "bends the representation more" in curved_result.verdict_
        assert "multiplicative > none" in curved_result.summary()

    def test_same_seed_same_result(self, curved_result):
        X, y = make_curved_task(150, random_state=0)
        again = compare_gates(X, y, cv=5, n_repeats=2, random_state=0, **FAST)
        columns = ["arm", "repeat", "fold", "score", "curvature"]
        pd.testing.assert_frame_equal(
            again.scores_[columns], curved_result.scores_[columns]
        )

    def test_the_study_tests_the_same_rows_the_same_way(self, curved_result):
        """The study's primary family, given compare_gates' rows as fits
        (splits as seeds), gives the same estimates, intervals, p-values,
        Holm adjustments and outcomes."""
        scores = curved_result.scores_
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
                **primary._comparison("C1", measure, column, "arms", "curved", a, b),
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
        ours = curved_result.tests_
        for column in ("ci low", "ci high", "p", "p holm", "p equivalence holm"):
            np.testing.assert_allclose(ours[column], study[column], rtol=1e-12)
        np.testing.assert_allclose(ours["mean difference"], study["estimate"])
        assert list(ours["outcome"]) == list(study["outcome"])

    def test_regression_from_continuous_targets(self):
        rng = np.random.default_rng(0)
        X = rng.normal(size=(80, 3))
        y = X[:, 0] + 0.1 * rng.normal(size=80)
        result = compare_gates(
            X, y, gates=("silu", "none"), cv=4, random_state=0, **FAST
        )
        assert result.task_ == "regression"
        assert result.scores_["score"].max() <= 1.0  # R^2
        assert "held-out score" in result.verdict_

    def test_alphas_are_arms_of_the_gates_that_have_a_strength(self):
        X, y = make_linear_task(90, random_state=0)
        result = compare_gates(
            X, y, gates=("multiplicative", "none"), alphas=(0.5, 1.5), cv=3,
            random_state=0, **FAST,
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

    def test_a_splitter(self):
        X, y = make_linear_task(60, random_state=0)
        result = compare_gates(
            X, y, gates=("silu", "none"), cv=KFold(3), random_state=0, **FAST
        )
        assert sorted(result.scores_["fold"].unique()) == [0, 1, 2]

    @pytest.mark.parametrize(
        "kwargs, error, message",
        [
            ({"gates": ("none",)}, ValueError, "at least 2 of the registered gates"),
            ({"gates": ("none", "bogus")}, ValueError, "got \\['none', 'bogus'\\]"),
            ({"alphas": (-1.0,)}, ValueError, "alphas must be finite numbers >= 0"),
            ({"n_repeats": 0}, ValueError, "n_repeats must be an int >= 1; got 0"),
            ({"n_repeats": 1.5}, TypeError, "n_repeats must be an int"),
            ({"cv": 1}, ValueError, "cv must be >= 2 folds; got 1"),
            ({"cv": KFold(3), "n_repeats": 2}, ValueError, "needs an int cv"),
            ({"task": "ranking"}, ValueError, "task must be one of"),
        ],
    )
    def test_bad_input(self, kwargs, error, message):
        X, y = make_linear_task(30, random_state=0)
        with pytest.raises(error, match=message):
            compare_gates(X, y, **{"max_epochs": 1, **kwargs})

    def test_one_class_is_refused(self):
        with pytest.raises(ValueError, match="y has one class"):
            compare_gates(np.zeros((10, 2)), np.ones(10), max_epochs=1)

    def test_gate_tests_on_any_table(self):
        """Known differences: a is better than b by 0.1 in every split."""
        rows = [
            {"arm": arm, "repeat": 0, "fold": f, "score": 0.5 + 0.1 * (arm == "a"),
             "curvature": 1.0}
            for arm in ("a", "b")
            for f in range(10)
        ]  # fmt: skip
        tests = gate_tests(pd.DataFrame(rows)).set_index("measure")
        assert tests.loc["score", "outcome"] == "holds"
        assert tests.loc["curvature", "outcome"] == "no effect"


def test_display_draws_the_comparison(curved_result):
    import matplotlib

    matplotlib.use("Agg")
    display = curved_result.plot()
    assert len(display.ax_) == 2 and display.figure_ is display.ax_[0].figure
    assert display.ax_[0].get_ylabel() == "held-out score"
    assert len(display.ax_[1].get_xticklabels()) == 3


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

        from skgate.study import cli

        matplotlib.use("Agg")
        path, _ = table
        out = tmp_path / "out"
        argv = ["compare", str(path), "--target", "label", "--cv", "2"]
        argv += ["--max-epochs", "1", "--out", str(out)]
        assert cli.main(argv) == 0
        printed = capsys.readouterr().out
        assert printed.startswith("On these data multiplicative against none")
        names = {p.name for p in out.iterdir()}
        assert {"COMPARE.md", "compare_scores.csv", "compare_tests.csv"} <= names
        assert "fig_compare.png" in names
        scores = pd.read_csv(out / "compare_scores.csv")
        assert len(scores) == 3 * 2
        text = (out / "COMPARE.md").read_text()
        assert "Target `label` (classification); 60 rows, 3 columns" in text

    @pytest.mark.parametrize(
        "change, target, message",
        [
            (None, "nope", "no column 'nope'"),
            ("missing", "label", "missing values in: x0 (2)"),
            ("one class", "label", "the target 'label' has one value"),
            ("unreadable", "label", "cannot read"),
        ],
    )
    def test_bad_input_is_one_line(
        self, table, tmp_path, capsys, change, target, message
    ):
        from skgate.study import cli

        path, frame = table
        if change == "missing":
            frame.loc[[3, 7], "x0"] = np.nan
            frame.to_csv(path, index=False)
        elif change == "one class":
            frame.assign(label=1).to_csv(path, index=False)
        elif change == "unreadable":
            path.write_bytes(b"\xff\xfe\x00bad\x00")
        with pytest.raises(SystemExit) as info:
            cli.main(
                ["compare", str(path), "--target", target, "--out", str(tmp_path / "o")]
            )
        assert info.value.code == 2
        error = capsys.readouterr().err
        assert message in error and "Traceback" not in error
        assert error.count("\n") == 1


def test_the_user_guide_quotes_the_committed_comparison():
    """docs/user_guide/your_data.md's sentence on twonorm and ringnorm is
    what benchmarks/results/COMPARE.md (bench_compare.py's output) says."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    rows = {
        line.split(" | ")[0].strip("| "): line
        for line in (root / "benchmarks/results/COMPARE.md").read_text().splitlines()
        if line.startswith("| twonorm") or line.startswith("| ringnorm")
    }
    assert "makes no difference (within +-0.02) in held-out accuracy" in rows["twonorm"]
    assert all("bends the representation more" in row for row in rows.values())
    guide = (root / "docs/user_guide/your_data.md").read_text()
    assert "gating bends the representation on both" in guide
    assert "no accuracy difference within 0.02 on twonorm" in " ".join(guide.split())

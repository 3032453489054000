"""benchmarks/bench_sequences.py's page: the sentences follow the numbers.

The report is rendered from small made-up score tables whose answer is
known (gating loses, wins, or is undecided against the other gates; the
best gate below MiniRocket), and the bottom line is held to it.
"""

import importlib.util
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


def _module(name):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def report():
    return _module("sequences_report")


def _scores(report, gating, n_datasets=8, n_splits=3, minirocket=0.1):
    """Made-up scores: every model on every split of ``n_datasets`` datasets
    (HGB on all but the last two, as on the two unequal-length sets);
    ``gating(d)`` is tuned multiplicative gating's accuracy difference against
    both other tuned gates on dataset ``d``; MiniRocket is ``minirocket``
    above the tuned SiLU gate everywhere."""
    rng = np.random.default_rng(0)
    rows = []
    for d in range(n_datasets):
        base = 0.6 + 0.03 * d
        effect = {m: 0.0 for m in report.MODELS}
        effect.update(
            {
                "multiplicative tuned": gating(d),
                "multiplicative": -0.02,
                "silu": -0.03,
                "none": -0.04,
                "MiniRocket": minirocket,
                "1-NN DTW": -0.05,
                "HGB": -0.1,
            }
        )
        for split in range(n_splits):
            noise = 0.002 * rng.standard_normal()  # shared: the models are paired
            for model in report.MODELS:
                if model == "HGB" and d >= n_datasets - 2:
                    continue
                gate = model.removesuffix(" tuned")
                is_gate = gate in report.GATES
                rows.append(
                    {
                        "dataset": f"set{d}",
                        "split": split,
                        "model": model,
                        "kind": "gate" if is_gate else "baseline",
                        "gate": gate if is_gate else "",
                        "tuned": model.endswith(" tuned"),
                        "n_train": 60,
                        "n_test": 40,
                        "accuracy": base + effect[model] + noise,
                        "curvature": (0.5 if gate == "multiplicative" else 0.2)
                        if is_gate
                        else np.nan,
                        "fit_seconds": 1.0 + split,
                        "seconds": 2.0,
                        "lr": 2e-3,
                        "alpha": 1.0 if gate == "multiplicative" else np.nan,
                        "depth": 1 + split % 2,
                    }
                )
    return pd.DataFrame(rows)


def _analyse(report, gating, **kwargs):
    return report.analyse(_scores(report, gating, **kwargs), {"datasets": []})


def _sentences(lines):
    return [s for line in lines for s in re.split(r"(?<=\.)\s+(?=[A-Z])", line)]


def test_gating_that_loses_is_said_to_lose(report):
    analysis = _analyse(report, lambda d: -0.05)
    lines = analysis["bottom line"]
    assert len(_sentences(lines)) <= 3
    for line, other in zip(
        lines[:2], ("tuned SiLU", "tuned ungated attention"), strict=True
    ):
        assert line.startswith(f"Against {other}, tuned multiplicative gating loses")
        assert "worse on 8 of 8 datasets" in line
        assert "mean accuracy difference -0.050" in line
        assert "wins" not in line and "undecided" not in line
    assert list(analysis["tests"]["outcome"]) == ["reversed"] * 3


def test_gating_that_wins_is_said_to_win(report):
    analysis = _analyse(report, lambda d: 0.05, minirocket=0.0)
    lines = analysis["bottom line"]
    assert len(_sentences(lines)) <= 3
    for line in lines[:2]:
        assert "tuned multiplicative gating wins" in line
        assert "better on 8, within 0.01 on 0 and worse on 0 of 8" in line
        assert "loses" not in line
    # the best tuned gate is now multiplicative gating, 0.05 above MiniRocket
    assert analysis["best gate"] == "multiplicative tuned"
    assert "0.050 above MiniRocket's" in lines[2]
    assert "the gate is better than MiniRocket" in lines[2]


def test_an_even_split_is_said_to_be_undecided(report):
    analysis = _analyse(report, lambda d: 0.05 if d % 2 else -0.05)
    lines = analysis["bottom line"]
    for line in lines[:2]:
        assert "whether tuned multiplicative gating helps is undecided" in line
        assert "better on 4, within 0.01 on 0 and worse on 4 of 8" in line
        assert "wins" not in line and "loses" not in line
    assert set(analysis["tests"]["outcome"][:2]) == {"inconclusive"}


def test_no_difference_is_said_to_be_equivalent(report):
    analysis = _analyse(report, lambda d: 0.0, n_datasets=12)
    for line in analysis["bottom line"][:2]:
        assert "makes no difference beyond 0.01 accuracy (equivalent)" in line


def test_the_minirocket_sentence_says_how_far_below(report):
    analysis = _analyse(report, lambda d: -0.05)
    line = analysis["bottom line"][2]
    best = analysis["best gate"]
    assert best == "silu tuned"  # multiplicative loses, none ties silu: silu first
    row = analysis["tests"].iloc[2]
    assert row["comparison"] == "silu tuned > MiniRocket"
    assert f"averaged {row['mean first']:.3f} accuracy" in line
    assert f"0.100 below MiniRocket's {row['mean second']:.3f}" in line
    assert "MiniRocket is better than the gate" in line
    assert "worse on 8 of 8 datasets" in line


@pytest.mark.parametrize(
    "gating, verb",
    [(-0.05, "lost to"), (0.05, "beat"), (0.0, "was equivalent to")],
)
def test_the_headline_says_what_the_tests_decided(report, gating, verb):
    analysis = _analyse(report, lambda d: gating, n_datasets=12)
    line = analysis["headline"]
    start = "On the 12 classification sets aeon ships, tuned multiplicative gating"
    assert line.startswith(start)
    for other in ("tuned SiLU", "tuned ungated attention"):
        assert f"{verb} {other} ({gating:+.3f} accuracy)" in line
    row = analysis["tests"].iloc[2]
    gap = row["mean second"] - row["mean first"]
    assert f"{abs(gap):.3f} {'below' if gap > 0 else 'above'} MiniRocket's" in line


def test_the_page_renders_and_leaves_hgb_out_of_friedman(report):
    analysis = _analyse(report, lambda d: -0.05)
    assert analysis["left out"] == {"HGB": ["set6", "set7"]}
    assert "HGB" not in analysis["ranks"].index
    assert analysis["secondary"]["datasets"] == [f"set{d}" for d in range(6)]
    settings = {**_module("bench_sequences").QUICK, "datasets": []}
    info = {
        "settings": settings,
        "units seconds": 120.0,
        "this call's seconds": 60,
        "cores": 2,
        "n_jobs": 2,
        "command": "python benchmarks/bench_sequences.py",
    }
    page = report.render(analysis, info, pd.DataFrame({"dataset": ["set0"]}))
    bottom = page.split("## Bottom line")[1].split("## Cost")[0]
    assert [s.strip() for s in bottom.split("\n") if s.strip()] == analysis[
        "bottom line"
    ]
    assert "HGB has no score on set6, set7" in page
    # tuned - default: multiplicative -0.05 - (-0.02), silu 0 - (-0.03)
    assert (
        "Tuned against default, per gate, over 8 datasets: multiplicative better "
        "on 0, within 0.01 on 0 and worse on 8 (mean -0.030); silu better on 8"
    ) in page
    assert "Tuned ungated attention turned (rate above 1e-9) on 8 of 8" in page


@pytest.mark.slow
def test_quick_run_writes_the_page_and_resumes(tmp_path):
    """``--quick`` end to end (2 datasets, 2 splits, tiny budgets; about a
    minute on 2 cores): every file is written, the page's bottom line is the
    one the scores give, and a second call runs only the units missing from
    the cache."""
    pytest.importorskip("aeon")
    import json
    import os
    import subprocess
    import sys

    root = BENCHMARKS.parent
    env = {**os.environ, "PYTHONPATH": str(root), "MPLBACKEND": "Agg"}
    command = [
        sys.executable,
        str(BENCHMARKS / "bench_sequences.py"),
        "--quick",
        "--cache",
        str(tmp_path / "cache"),
        "--out",
        str(tmp_path / "out"),
    ]

    def run():
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    first = run()
    assert "0 of 34 units cached" in first
    assert "[34/34]" in first
    out = tmp_path / "out"
    for name in (
        "SEQUENCES.md",
        "sequences_scores.csv",
        "sequences_run.json",
        "fig_sequences_cd.png",
    ):
        assert (out / name).is_file(), name
    scores = pd.read_csv(out / "sequences_scores.csv")
    assert len(scores) == 34  # 2 x 2 x 9, less HGB on the unequal-length set
    assert set(scores.loc[scores["model"] == "HGB", "dataset"]) == {"ItalyPowerDemand"}
    report = _module("sequences_report")
    info = json.loads((out / "sequences_run.json").read_text())
    analysis = report.analyse(scores, info["settings"])
    page = (out / "SEQUENCES.md").read_text()
    bottom = page.split("## Bottom line")[1].split("## Cost")[0]
    assert [s.strip() for s in bottom.split("\n") if s.strip()] == analysis[
        "bottom line"
    ]
    assert len(analysis["bottom line"]) == 3

    # Two units lost (as if interrupted): the second call runs those alone.
    cache = tmp_path / "cache" / "quick.csv"
    rows = pd.read_csv(cache)
    rows[rows["model"] != "HGB"].to_csv(cache, index=False)
    second = run()
    assert "32 of 34 units cached" in second and "2 to run" in second
    again = pd.read_csv(out / "sequences_scores.csv")
    key = ["dataset", "split", "model"]
    pd.testing.assert_frame_equal(
        again.sort_values(key).reset_index(drop=True)[key + ["accuracy"]],
        scores.sort_values(key).reset_index(drop=True)[key + ["accuracy"]],
    )


def test_readme_and_guide_quote_the_committed_run(report):
    """The sentence the README and the user guide quote is the headline
    built from benchmarks/results' sequences_scores.csv."""
    import json

    results = ROOT / "benchmarks" / "results"
    info = json.loads((results / "sequences_run.json").read_text())
    scores = pd.read_csv(results / "sequences_scores.csv")
    analysis = report.analyse(scores, info["settings"])

    def words(text):
        return " ".join(text.split())

    for page in ("README.md", "docs/user_guide/sequences.md"):
        assert words(analysis["headline"]) in words((ROOT / page).read_text()), page
    guide = words((ROOT / "docs/user_guide/sequences.md").read_text())
    assert words(report.tuning_sentence(analysis)) in guide
    # "Tuning did not help": no gate gained beyond the ROPE on average.
    gains = scores.pivot_table(index="dataset", columns="model", values="accuracy")
    for gate in ("multiplicative", "silu", "none"):
        assert (gains[f"{gate} tuned"] - gains[gate]).mean() < analysis["margin"]
    turned = analysis["per dataset"]
    assert (
        turned.loc[turned["model"].isin(report.GATES + report.TUNED), "curvature"]
        > 1e-9
    ).all()
    page = words((results / "SEQUENCES.md").read_text())
    for line in analysis["bottom line"]:
        assert words(line) in page
    assert len(analysis["datasets"]) == 8

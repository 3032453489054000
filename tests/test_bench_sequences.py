"""benchmarks/bench_sequences.py's page: the sentences follow the numbers.

The report is rendered from small made-up score tables whose answer is
known (gating loses, wins, or is undecided against the other gates; the
best gate below MiniRocket), and the bottom line is held to it.
"""

import importlib.util
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


def words(text):
    """``text`` with every run of whitespace one space (a page wraps lines)."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def report():
    return _module("sequences_report")


def _scores(
    report,
    gating,
    n_datasets=8,
    n_splits=4,
    subset_splits=2,
    minirocket=0.1,
    removed=None,
    tuned=0.0,
):
    """Made-up scores: every model of every split on ``n_splits`` splits of
    ``n_datasets`` datasets (HGB on all but the last two, as on the two
    unequal-length sets), the ablations and the tuned gate on the first
    ``subset_splits``. ``gating(d)`` is multiplicative gating's accuracy
    difference against ungated attention and SiLU in the strong design on
    dataset ``d`` (the minimal design: +0.05 everywhere); MiniRocket is
    ``minirocket`` above the strong ungated gate; ``removed`` maps an
    ablation to what removing that part costs (default: the convolutional
    encoding 0.1, the rest 0); the tuned gate is ``tuned`` above its
    default."""
    removed = {"no conv": 0.1, "no ff": 0.0, "no relative": 0.0, "no recipe": 0.0,
               **(removed or {})}  # fmt: skip
    rng = np.random.default_rng(0)
    rows = []
    for d in range(n_datasets):
        base = 0.6 + 0.03 * d
        effect = {
            "multiplicative (strong)": gating(d),
            "sigmoid (strong)": -0.01,
            "multiplicative (minimal)": -0.1,
            "silu (minimal)": -0.15,
            "none (minimal)": -0.15,
            "sigmoid (minimal)": -0.15,
            "MiniRocket": minirocket,
            "MultiRocket": minirocket,
            "Hydra": minirocket - 0.01,
            "1-NN DTW": -0.05,
            "HGB": -0.1,
            "multiplicative (tuned)": gating(d) + tuned,
        }
        for gate in report.ABLATED_GATES:
            for name, cost in removed.items():
                own = effect.get(f"{gate} (strong)", 0.0)
                effect[f"{gate} ({name})"] = own - cost
        for split in range(n_splits):
            noise = 0.002 * rng.standard_normal()  # shared: the models are paired
            models = report.MODELS + (
                report.SUBSET_MODELS if split < subset_splits else ()
            )
            for model in models:
                if model == "HGB" and d >= n_datasets - 2:
                    continue
                gate, name = report.variant(model)
                rows.append(
                    {
                        "dataset": f"set{d}",
                        "split": split,
                        "model": model,
                        "kind": "baseline" if gate is None else "gate",
                        "gate": gate or "",
                        "variant": name or "",
                        "n_train": 60,
                        "n_test": 40,
                        "accuracy": base + effect.get(model, 0.0) + noise,
                        "curvature": np.nan
                        if gate is None
                        else (0.5 if gate == "multiplicative" else 0.2),
                        "fit_seconds": 1.0 + split,
                        "seconds": 2.0,
                        "lr": 2e-3,
                    }
                )
    return pd.DataFrame(rows)


def _analyse(report, gating, **kwargs):
    return report.analyse(_scores(report, gating, **kwargs), {"datasets": []})


def _b(analysis):
    return analysis["bottom line"][1]


def test_gating_that_loses_is_said_to_lose(report):
    analysis = _analyse(report, lambda d: -0.05)
    line = _b(analysis)
    assert line.startswith("(b) Multiplicative gating in the strong design loses")
    for other in ("ungated attention", "SiLU gating"):
        assert f"loses to {other} in the strong design: better on 0" in line
    assert "worse on 8 of 8 datasets (mean accuracy difference -0.050)" in line
    tests = analysis["tests"].set_index("comparison")
    assert tests.loc["multiplicative (strong) > none (strong)", "outcome"] == (
        "reversed"
    )
    # the minimal design's gating is +0.05 either way
    assert tests.loc["multiplicative (minimal) > none (minimal)", "outcome"] == (
        "holds"
    )
    assert (
        "(b) Multiplicative gating against ungated attention -0.050 (worse)"
        in (analysis["summary"][1])
    )


def test_gating_that_wins_is_said_to_win(report):
    analysis = _analyse(report, lambda d: 0.05)
    line = _b(analysis)
    for other in ("ungated attention", "SiLU gating"):
        assert f"in the strong design beats {other} in the strong design" in line
    assert "better on 8, within 0.01 on 0 and worse on 0 of 8" in line
    assert "loses" not in line and "undecided" not in line


def test_an_even_split_is_said_to_be_undecided(report):
    analysis = _analyse(report, lambda d: 0.05 if d % 2 else -0.05)
    line = _b(analysis)
    assert (
        "Whether multiplicative gating in the strong design beats ungated "
        "attention in the strong design is undecided"
    ) in line
    assert "better on 4, within 0.01 on 0 and worse on 4 of 8" in line
    # an undecided answer says which way its posterior leans, with the chance
    row = (
        analysis["tests"]
        .set_index("comparison")
        .loc["multiplicative (strong) > none (strong)"]
    )
    side, chance = report.lean(row)
    assert chance == max(
        row[f"probability {s}"] for s in ("better", "equivalent", "worse")
    )
    assert f"is undecided; the posterior leans {side} ({report._p(chance)})" in line
    assert (
        f"against ungated attention +0.000 (undecided, leaning {side}, probability "
        f"{report._p(chance)})"
    ) in analysis["summary"][1]
    tests = analysis["tests"]
    strong = tests[tests["first"] == "multiplicative (strong)"]
    assert set(strong.loc[strong["question"] == "b", "outcome"]) == {"inconclusive"}


def test_no_difference_is_said_to_be_equivalent(report):
    analysis = _analyse(report, lambda d: 0.0, n_datasets=12)
    assert (
        "Multiplicative gating in the strong design and ungated attention in the "
        "strong design are equivalent within 0.01 accuracy"
    ) in _b(analysis)
    assert "against ungated attention +0.000 (equivalent)" in analysis["summary"][1]


def test_question_a_says_how_far_below_and_which_targets_fail(report):
    analysis = _analyse(report, lambda d: -0.05)
    best = analysis["best gate"]
    # multiplicative loses 0.05; none and silu tie at 0: none comes first
    assert best == "silu (strong)"
    row = analysis["tests"].iloc[0]
    assert row["comparison"] == "silu (strong) > MiniRocket"
    line = analysis["bottom line"][0]
    assert line.startswith("(a) The best gated model at its defaults, SiLU gating")
    assert f"averaged {row['mean first']:.3f} accuracy over 8 datasets x 4" in line
    assert f"0.100 below MiniRocket's {row['mean second']:.3f}" in line
    assert "calls it worse" in line
    assert "set0 -0.100" in line
    assert "The target (within 0.02 of MiniRocket) is not met" in line
    assert "it beats 1-NN DTW on 8 of 8 datasets (met" in line
    assert "on 0 (not met: 2 is the target)" in line
    assert analysis["targets"]["gap to MiniRocket"][1] is False


def test_question_a_when_the_gate_reaches_minirocket(report):
    analysis = _analyse(report, lambda d: 0.0, minirocket=0.005)
    line = analysis["bottom line"][0]
    assert "The target (within 0.02 of MiniRocket) is met" in line
    assert "on 8 (met: 2 is the target)" in line


@pytest.mark.parametrize("part", ["no conv", "no ff", "no relative", "no recipe"])
def test_question_c_names_the_part_worth_most(report, part):
    costs = dict.fromkeys(report.ABLATIONS, 0.0) | {part: 0.08}
    analysis = _analyse(report, lambda d: 0.0, removed=costs)
    words = report.PART_WORDS[part]
    line = analysis["bottom line"][2]
    assert line.count(f"The part worth most: {words} (+0.080)") == 2
    assert analysis["summary"][2].startswith(
        f"(c) Of the strong design's parts, {words} is worth most: removing it "
        "costs 0.080 accuracy"
    )
    assert analysis["summary"][2].endswith(
        "splits: better for multiplicative gating; better for ungated attention)."
    )
    tests = analysis["tests"]
    ablation = tests[tests["question"] == "c"]
    assert len(ablation) == 8
    assert (ablation["n datasets"] == 8).all()


def test_question_c_does_not_call_an_undecided_part_worth_most(report):
    """A part whose removal costs most on the mean, but on half the
    datasets only, is not called worth most: the tests decide nothing."""
    scores = _scores(report, lambda d: 0.0, removed=dict.fromkeys(report.ABLATIONS, 0))
    conv = scores["model"].str.endswith("(no conv)")
    odd = scores["dataset"].str[-1].astype(int) % 2 == 1
    scores.loc[conv & odd, "accuracy"] -= 0.15
    scores.loc[conv & ~odd, "accuracy"] += 0.07
    analysis = report.analyse(scores, {"datasets": []})
    line = analysis["summary"][2]
    part = report.PART_WORDS["no conv"]
    assert line.startswith(f"(c) Removing {part} costs most, 0.040 accuracy")
    assert "decides it for neither (undecided, leaning" in line
    assert "worth most" not in line


def test_question_c_when_no_part_matters(report):
    costs = dict.fromkeys(report.ABLATIONS, 0.0)
    analysis = _analyse(report, lambda d: 0.0, removed=costs)
    assert analysis["summary"][2].startswith(
        "(c) No part of the strong design is worth more than 0.01 accuracy alone"
    )


@pytest.mark.parametrize("gain, said", [(0.0, "did not beat"), (0.05, "beat")])
def test_tuning_is_said_to_beat_the_defaults_only_when_it_does(
    report, gain, said, monkeypatch
):
    # The committed run has no tuned gate; a run with one is judged so.
    tuned = ("multiplicative (tuned)",)
    monkeypatch.setattr(report, "TUNED", tuned)
    monkeypatch.setattr(report, "SUBSET_MODELS", (*report.ABLATED, *tuned))
    analysis = _analyse(report, lambda d: 0.0, tuned=gain)
    assert report.tuning_sentence(analysis).endswith(f"Tuning {said} the defaults.")


def test_the_page_renders_and_leaves_hgb_out_of_friedman(report):
    analysis = _analyse(report, lambda d: -0.05)
    assert analysis["left out"] == {"HGB": ["set6", "set7"]}
    assert "HGB" not in analysis["ranks"].index
    assert analysis["secondary"]["datasets"] == [f"set{d}" for d in range(6)]
    assert analysis["subset splits"] == [0, 1]
    settings = {**_module("bench_sequences").QUICK, "datasets": []}
    info = {
        "settings": settings,
        "units seconds": 120.0,
        "this call's seconds": 60,
        "cores": 2,
        "n_jobs": 2,
        "command": "python benchmarks/bench_sequences.py",
        "code": {
            "at start": {"commit": "abc", "clean": True},
            "at end": {"commit": "abc", "clean": True},
        },
    }
    page = report.render(analysis, info, pd.DataFrame({"dataset": ["set0"]}))
    bottom = page.split("## Bottom line")[1].split("## Cost")[0]
    assert [s.strip() for s in bottom.split("\n") if s.strip()] == analysis[
        "bottom line"
    ]
    assert "at commit abc, the tree clean" in page
    assert "HGB has no score on set6, set7" in page
    # multiplicative turns 0.5, none 0.2: more on every dataset, in every design
    assert "strong: multiplicative 0.5 against none 0.2, more on 8 of 8" in page
    assert "no ff: multiplicative 0.5 against none 0.2, more on 8 of 8" in page


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
    assert "0 of 66 units cached" in first
    assert "[66/66]" in first
    out = tmp_path / "out"
    for name in (
        "SEQUENCES.md",
        "sequences_scores.csv",
        "sequences_run.json",
        "fig_sequences_cd.png",
    ):
        assert (out / name).is_file(), name
    scores = pd.read_csv(out / "sequences_scores.csv")
    # 2 datasets x 2 splits x 13 models, less HGB on the unequal-length set,
    # and 2 x 1 split x 8 ablated models (no tuned gate)
    assert len(scores) == 66
    assert set(scores.loc[scores["model"] == "HGB", "dataset"]) == {"ItalyPowerDemand"}
    report = _module("sequences_report")
    info = json.loads((out / "sequences_run.json").read_text())
    analysis = report.analyse(scores, info["settings"])
    page = (out / "SEQUENCES.md").read_text()
    bottom = page.split("## Bottom line")[1].split("## Cost")[0]
    assert [s.strip() for s in bottom.split("\n") if s.strip()] == analysis[
        "bottom line"
    ]
    # (a), (b), (c) and the answer in plain words
    assert len(analysis["bottom line"]) == 4
    assert analysis["bottom line"][3] == report.plain_answer(analysis)
    assert analysis["bottom line"][3].startswith("The gating answer, plainly:")
    info_code = info["code"]["at start"]
    assert len(info_code["commit"]) == 40

    # Two units lost (as if interrupted): the second call runs those alone.
    cache = tmp_path / "cache" / "quick.csv"
    rows = pd.read_csv(cache)
    rows[rows["model"] != "HGB"].to_csv(cache, index=False)
    second = run()
    assert "64 of 66 units cached" in second and "2 to run" in second
    again = pd.read_csv(out / "sequences_scores.csv")
    key = ["dataset", "split", "model"]
    pd.testing.assert_frame_equal(
        again.sort_values(key).reset_index(drop=True)[key + ["accuracy"]],
        scores.sort_values(key).reset_index(drop=True)[key + ["accuracy"]],
    )


def test_findings_and_guide_quote_the_committed_run(report):
    """The answers (a) to (c) the findings page and the user guide quote
    are the summary built from benchmarks/results' sequences_scores.csv,
    with the run's own wall clock, and the run is the one the issue asks
    for, at a recorded, clean commit."""
    import json

    results = ROOT / "benchmarks" / "results"
    info = json.loads((results / "sequences_run.json").read_text())
    scores = pd.read_csv(results / "sequences_scores.csv")
    analysis = report.analyse(scores, info["settings"])

    assert len(analysis["summary"]) == 3
    for page in ("docs/user_guide/findings.md", "docs/user_guide/sequences.md"):
        text = words((ROOT / page).read_text())
        for line in analysis["summary"]:
            assert words(line) in text, page
    findings = words((ROOT / "docs/user_guide/findings.md").read_text())
    # A resumed run has no one wall clock: the units' seconds, summed.
    minutes = info["units seconds"] / 60
    assert (
        f"{minutes:.0f} min of one-thread units, summed, on {info['cores']} cores"
        in (findings)
    )
    assert f"aeon's {len(analysis['datasets'])} bundled classification sets" in (
        findings
    )
    guide = words((ROOT / "docs/user_guide/sequences.md").read_text())
    assert words(report.tuning_sentence(analysis)) in guide
    # the gating answer in plain words, and the curvature, as the run has them
    for text in (guide, findings):
        assert words(report.plain_answer(analysis)) in text
    assert words(" ".join(report.curvature_sentences(analysis))) in guide
    page = words((results / "SEQUENCES.md").read_text())
    for line in analysis["bottom line"]:
        assert words(line) in page
    assert len(analysis["datasets"]) == 8
    splits = analysis["per dataset"].groupby("model")["splits"].max()
    assert (splits[list(report.MODELS)] == 10).all()
    assert (splits[list(report.SUBSET_MODELS)] == 3).all()
    for moment in ("at start", "at end"):
        assert info["code"][moment]["clean"] is True
        assert len(info["code"][moment]["commit"]) == 40


def test_carried_rows_are_counted_from_their_notes_and_said(report):
    """The rows a run took from the one before are counted from the note
    that marks them, whichever call carried them; the page says how many,
    of which models, and what the check of one unit of each gave."""
    bench = _module("bench_sequences")
    scores = pd.DataFrame(
        {
            "model": ["MiniRocket", "MiniRocket", "1-NN DTW", "multiplicative"],
            "note": ["carried", "carried", "slow carried", np.nan],
        }
    )
    assert bench.carried_rows(scores, {}) == {
        "MiniRocket": {"rows": 2},
        "1-NN DTW": {"rows": 1},
    }
    assert bench.carried_rows(scores.drop(columns="note"), {}) == {}
    checks = {
        "MiniRocket": {"check": "BasicMotions split 0", "same": True, "rows": 0},
        "1-NN DTW": {"check": "BasicMotions split 0", "same": False, "rows": 0},
    }
    carried = bench.carried_rows(scores, checks)
    assert carried["MiniRocket"] == {**checks["MiniRocket"], "rows": 2}
    text = words(report._carried({"carried": carried}))
    assert "3 rows of 2 models (MiniRocket, 1-NN DTW) were carried" in text
    assert "(BasicMotions split 0)" in text and "again for 1 of 2." in text
    unchecked = words(report._carried({"carried": bench.carried_rows(scores, {})}))
    assert "was not recorded by this call" in unchecked
    assert report._carried({}) == ""

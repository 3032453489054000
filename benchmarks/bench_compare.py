"""compare_gates on real datasets, as a user runs it, against its old defaults.

Each dataset is written to CSV and run through ``python -m skgate compare``
on its defaults (10 x 10 cross-validation, the corrected resampled t-test,
the turning rate), exactly as a user would; each run's COMPARE.md, CSVs and
figure land in benchmarks/results/compare_<name>/. The same rows then go
through compare_gates on the defaults it had before (5 x 1 folds, the
sign-flip test, the acceleration), so the table shows what changed. Each
run has the command's default baselines beside the gates (logistic or ridge
regression and gradient boosting), so the table says first whether any gate
beats the best of them. A last row times the default design on 1000 rows x
20 features (the docstring's budget: 60 s on 2 cores). The page records the
commit and the machine (CPU model and torch's CPU capability).

Datasets: Breiman's twonorm (Bayes boundary linear) and ringnorm (a quadric),
1000 rows each from KEEL's files; scikit-learn's breast cancer, wine and iris
(classification) and diabetes (regression, whole-number targets: the command
needs --task regression).

Run: python benchmarks/bench_compare.py (about 5 minutes on 2 cores, from the
repository's root or anywhere: it writes into benchmarks/results/).
"""

import os
import subprocess
import time
from pathlib import Path

import pandas as pd
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_iris,
    load_wine,
    make_classification,
)

from skgate import compare_gates
from skgate.command import parse
from skgate.compare import run_command

from study.machine import machine_record
from study.realdata import sample_real

OUT = Path(__file__).parent / "results"
#: The defaults compare_gates had before the corrected test.
OLD = {"cv": 5, "n_repeats": 1, "test": "sign-flip", "baselines": None,
       "curvature_params": {"kind": "acceleration"}}  # fmt: skip


def _datasets():
    """name -> (X, y, task, what is known of it)."""
    sets = {}
    for name, boundary in (("twonorm", "linear"), ("ringnorm", "quadric")):
        X, y = sample_real(name, 1000, 0)
        sets[name] = (X, y, "classification", f"Bayes boundary {boundary}")
    for name, loader in (
        ("breast_cancer", load_breast_cancer),
        ("wine", load_wine),
        ("iris", load_iris),
    ):
        X, y = loader(return_X_y=True)
        sets[name] = (X, y, "classification", "scikit-learn's copy")
    X, y = load_diabetes(return_X_y=True, scaled=False)
    sets["diabetes"] = (X, y, "regression", "214 whole-number targets")
    return sets


def _outcomes(tests):
    score = tests[tests["measure"] == "score"]
    return "; ".join(f"{c}: {o}" for c, o in zip(score["comparison"], score["outcome"],
                                                  strict=True))  # fmt: skip


def _run(name, X, y, task):
    """The command on the defaults; returns (result's files' folder, seconds)."""
    folder = OUT / f"compare_{name}"
    folder.mkdir(parents=True, exist_ok=True)
    table = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    table["y"] = y
    path = folder / f"{name}.csv"
    table.to_csv(path, index=False)
    start = time.perf_counter()
    argv = ["compare", str(path), "--target", "y", "--task", task]
    args, parser = parse([*argv, "--n-jobs", "2", "--out", str(folder)])
    assert run_command(args, parser) == 0
    seconds = time.perf_counter() - start
    path.unlink()  # the data are the packages'; the CSV was the input
    return folder, seconds


def _against_baselines(verdict):
    """The verdict's first sentence, up to its tests: whether any gate beats
    the best baseline, and which baseline that is."""
    return verdict.split(": ")[0]


def _commit():
    here = Path(__file__).parent
    run = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                         text=True, check=True)  # fmt: skip
    dirty = subprocess.run(["git", "status", "--porcelain", "skgate"],
                           cwd=here.parent, capture_output=True, text=True)  # fmt: skip
    return run.stdout.strip()[:12] + (" (skgate/ changed)" if dirty.stdout else "")


def main():
    rows = []
    for name, (X, y, task, known) in _datasets().items():
        folder, seconds = _run(name, X, y, task)
        tests = pd.read_csv(folder / "compare_tests.csv")
        verdict = (folder / "COMPARE.md").read_text().split("**")[1]
        start = time.perf_counter()
        old = compare_gates(X, y, task=task, random_state=0, n_jobs=2, **OLD)
        old_seconds = time.perf_counter() - start
        rows.append(
            {
                "dataset": name,
                "rows x columns": f"{X.shape[0]} x {X.shape[1]}",
                "task": task,
                "known": known,
                "score outcomes, old defaults (5 x 1, sign-flip)": _outcomes(
                    old.tests_
                ),
                "against the best baseline": _against_baselines(verdict),
                "score outcomes, new defaults (10 x 10, corrected t)": _outcomes(tests),
                "recommendation": verdict.split("Recommendation: ")[1].rstrip("."),
                "seconds old": round(old_seconds, 1),
                "seconds new": round(seconds, 1),
                "verdict": verdict,
            }
        )
        print(f"{name}: {seconds:.0f} s", flush=True)
    X, y = make_classification(1000, 20, n_informative=5, random_state=0)
    start = time.perf_counter()
    timed = compare_gates(X, y, random_state=0, n_jobs=2)
    budget = time.perf_counter() - start
    table = pd.DataFrame(rows)
    table.to_csv(OUT / "compare.csv", index=False)
    machine = machine_record()
    where = (
        f"Run at commit {_commit()} on {machine['cpu']} (torch's CPU capability "
        f"{machine['cpu capability']}), {os.cpu_count()} cores."
    )
    verdicts = [f"- **{r['dataset']}**: {r['verdict']}" for r in rows]
    text = [
        "# compare_gates on real datasets: new defaults against the old",
        "",
        "Generated by `python benchmarks/bench_compare.py` (data: "
        "`compare.csv`). Each dataset written to CSV and compared with "
        "`python -m skgate compare data.csv --target y --task TASK --n-jobs 2` "
        "on its defaults (10-fold x 10 repeats, corrected resampled t-test, "
        "Holm over the table, the Bayesian correlated t-test beside it, "
        "turning rate); the old defaults (5 folds x 1, sign-flip, "
        "acceleration) on the same rows for comparison. Outcomes are of "
        "held-out score (accuracy; R^2 for diabetes). The new defaults' runs "
        "set the baselines beside the gates (LogReg or Ridge, and HGB); the old "
        "defaults' compared the gates alone.",
        "",
        where,
        "",
        table.drop(columns="verdict").to_markdown(index=False),
        "",
        f"The default design on 1000 rows x 20 features "
        f"(`make_classification`, 3 gates and 2 baselines, 500 fits, 2 jobs): "
        f"**{budget:.1f} s**; recommendation: {timed.recommendation_}.",
        "",
        "## Verdicts (new defaults)",
        "",
        *verdicts,
        "",
    ]
    (OUT / "COMPARE.md").write_text("\n".join(text))


if __name__ == "__main__":
    main()

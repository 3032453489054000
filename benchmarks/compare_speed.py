"""compare_gates at its defaults: where its time goes, how long it takes on the
tables a user brings, and what a busy machine does to it.

``bench_speed.py`` runs :func:`measure` and writes :func:`section` into
SPEED.md; ``python benchmarks/compare_speed.py`` prints the section alone
(about 6 minutes on 2 cores).

- **Tables**: 1000 rows x 20 features (``make_classification``), iris, wine
  and diabetes (regression), each at compare_gates' defaults (3 gates, 10 x
  10 folds, 300 fits) with ``n_jobs=1`` and ``n_jobs=2``, against one
  default fit of the classifier (or regressor) on the same rows, timed in
  the same run. The command line on the 1000-row table adds its start-up.
- **Where the time goes**: training, curvature on the held-out rows, scoring
  and the rest (splits, tests, verdict), timed inside one run; and the
  same run with 10 and with 20 splits trained as one network.
- **A busy machine**: iris on 10 x 2 folds, quiet and beside another process
  stepping torch on two threads, with each job on one torch thread (as
  compare trains) and on two (as it trained before).
- **An effect it must still decide**: the checkerboard with a linear head
  (ungated attention over copied tokens is then a linear model), at the
  defaults.
"""

import contextlib
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import pandas as pd
from sklearn.datasets import load_diabetes, load_iris, load_wine, make_classification

from skgate import (
    GatedAttentionClassifier,
    GatedAttentionRegressor,
    compare_gates,
    make_curved_task,
)
from skgate._evaluation import fits


def _log(message):
    print(f"[compare speed] {message}", file=sys.stderr, flush=True)


def _tables():
    """name -> (X, y, task)."""
    X, y = make_classification(1000, 20, n_informative=5, random_state=0)
    tables = {"1000 x 20 (make_classification)": (X, y, "classification")}
    for name, loader in (("iris", load_iris), ("wine", load_wine)):
        tables[name] = (*loader(return_X_y=True), "classification")
    X, y = load_diabetes(return_X_y=True, scaled=False)
    tables["diabetes"] = (X, y, "regression")
    return tables


def _seconds(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def _one_fit(X, y, task):
    kind = (
        GatedAttentionClassifier
        if task == "classification"
        else GatedAttentionRegressor
    )
    return _seconds(lambda: kind(random_state=0).fit(X, y))[0]


def _tables_rows():
    rows = []
    for name, (X, y, task) in _tables().items():
        row = {"table": name, "rows x columns": f"{X.shape[0]} x {X.shape[1]}",
               "one fit (s)": _one_fit(X, y, task)}  # fmt: skip
        for n_jobs in (1, 2):
            seconds, result = _seconds(
                partial(compare_gates, X, y, task=task, random_state=0, n_jobs=n_jobs)
            )
            row[f"n_jobs={n_jobs} (s)"] = seconds
            _log(f"{name}, n_jobs={n_jobs}: {seconds:.1f} s")
        row["n_jobs=1 / one fit"] = row["n_jobs=1 (s)"] / row["one fit (s)"]
        row["recommendation"] = str(result.recommendation_)
        rows.append(row)
    return pd.DataFrame(rows)


def _command_seconds():
    """``python -m skgate compare data.csv --target label`` on the 1000-row
    table, as a new user runs it (its defaults, --n-jobs 1), start-up included."""
    X, y, _ = _tables()["1000 x 20 (make_classification)"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.csv"
        table = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
        table.assign(label=y).to_csv(path, index=False)
        argv = [sys.executable, "-m", "skgate", "compare", str(path), "--target",
                "label", "--out", str(Path(folder) / "out")]  # fmt: skip
        seconds, _ = _seconds(lambda: subprocess.run(argv, check=True,
                                                     capture_output=True))  # fmt: skip
    _log(f"the command on 1000 x 20: {seconds:.1f} s")
    return seconds


def _where_time_goes():
    """Seconds in training, curvature and scoring within one default run on
    the 1000-row table (n_jobs=1), and the run's total."""
    X, y, _ = _tables()["1000 x 20 (make_classification)"]
    spent = {"training": 0.0, "curvature on held-out rows": 0.0, "scoring": 0.0}
    patched = {"fit_together": "training",
               "representation_curvature": "curvature on held-out rows",
               "score_model": "scoring"}  # fmt: skip
    originals = {name: getattr(fits, name) for name in patched}

    def timed(name):
        def run(*args, **kwargs):
            start = time.perf_counter()
            try:
                return originals[name](*args, **kwargs)
            finally:
                spent[patched[name]] += time.perf_counter() - start

        return run

    for name in patched:
        setattr(fits, name, timed(name))
    try:
        total, _ = _seconds(lambda: compare_gates(X, y, random_state=0))
    finally:
        for name, original in originals.items():
            setattr(fits, name, original)
    spent["the rest (splits, tests, verdict)"] = total - sum(spent.values())
    spent["total"] = total
    return spent


#: A neighbour: another process computing small torch steps on two threads
#: (as another training job would).
_NEIGHBOUR = """
import torch
torch.set_num_threads(2)
a, w = torch.randn(10, 64, 256), torch.randn(10, 256, 256)
while True:
    (a @ w).relu_().sum()
"""


def _network_sizes():
    """The 1000-row table's default run with jobs of one repeat (10 splits,
    as compare trained before) and of up to 20 splits (as it trains now)."""
    X, y, _ = _tables()["1000 x 20 (make_classification)"]
    chunks = fits.split_chunks
    times = {}
    for size in (10, 20):
        fits.split_chunks = lambda splits, _=None, n=size: chunks(splits, n)
        try:
            times[size] = _seconds(lambda: compare_gates(X, y, random_state=0))[0]
        finally:
            fits.split_chunks = chunks
        _log(f"jobs of up to {size} splits: {times[size]:.1f} s")
    return times


@contextlib.contextmanager
def _neighbour():
    """Another process training small torch steps on two threads, for the
    block."""
    process = subprocess.Popen([sys.executable, "-c", _NEIGHBOUR])
    try:
        time.sleep(2)  # its torch is imported and stepping
        yield
    finally:
        process.kill()
        process.wait()


def _busy_machine():
    """Iris on 10 x 2 folds (60 fits): quiet and beside a neighbour (another
    process stepping torch on two threads), each job on one torch thread and
    on two."""
    X, y = load_iris(return_X_y=True)

    def run():
        return _seconds(lambda: compare_gates(X, y, n_repeats=2, random_state=0))[0]

    one_thread = fits._one_thread
    times = {}
    for threads in (1, 2):
        fits._one_thread = one_thread if threads == 1 else contextlib.nullcontext
        try:
            run()  # warm up
            times[threads, "quiet"] = run()
            with _neighbour():
                times[threads, "busy"] = run()
        finally:
            fits._one_thread = one_thread
        quiet, loaded = times[threads, "quiet"], times[threads, "busy"]
        _log(f"{threads} thread(s): quiet {quiet:.1f} s, busy {loaded:.1f} s")
    return times


def _an_effect():
    """The checkerboard with a linear head at compare's defaults: the score
    tests' differences and outcomes, and the seconds."""
    X, y = make_curved_task(1000, shape="checkerboard", random_state=0)
    seconds, result = _seconds(lambda: compare_gates(X, y, head="linear",
                                                     random_state=0))  # fmt: skip
    tests = result.tests_[result.tests_["measure"] == "score"]
    _log(f"checkerboard, linear head: {seconds:.1f} s")
    return seconds, tests[["comparison", "mean difference", "ci low", "outcome"]]


def measure():
    """Every measurement of :func:`section`."""
    return {
        "tables": _tables_rows(),
        "command": _command_seconds(),
        "where": _where_time_goes(),
        "networks": _network_sizes(),
        "busy": _busy_machine(),
        "effect": _an_effect(),
    }


def _busy_sentence(one, two):
    """What the busy machine's two slowdowns say, from their ratio."""
    if two > 2 * one:
        return (
            f"Two threads slowed {two / one:.1f} times as much: a thread waits at "
            "every step for a core the other process holds."
        )
    return "Here the two slowed alike (within a factor of 2)."


def section(m):
    """SPEED.md's section on compare_gates at its defaults (Markdown lines)."""
    tables = m["tables"]
    where, busy = m["where"], m["busy"]
    slowest = tables[["n_jobs=1 (s)", "n_jobs=2 (s)"]].max()
    effect_seconds, effect = m["effect"]
    one, two = (busy[n, "busy"] / busy[n, "quiet"] for n in (1, 2))
    return [
        "## compare_gates at its defaults",
        "",
        "Three gates on 10 x 10 folds (300 fits), each table's own default "
        "epochs (500 optimizer steps and at least 20 epochs, so small tables "
        "train as long as large ones), against one default fit on the same "
        "rows in the same run:",
        "",
        tables.drop(columns="recommendation").to_markdown(index=False, floatfmt=".1f"),
        "",
        f"The slowest table took {slowest['n_jobs=1 (s)']:.0f} s with n_jobs=1 and "
        f"{slowest['n_jobs=2 (s)']:.0f} s with n_jobs=2. The command as a new user "
        f"runs it (`python -m skgate compare data.csv --target label`, its "
        f"defaults, --n-jobs 1) took {m['command']:.0f} s on the 1000 x 20 table, "
        "start-up included.",
        "",
        "Where one default run's time goes (1000 x 20, n_jobs=1):",
        "",
        "| part | seconds | share |",
        "|---|---|---|",
        *[
            f"| {part} | {s:.1f} | {s / where['total']:.0%} |"
            for part, s in where.items()
            if part != "total"
        ],  # fmt: skip
        "",
        "Each job trains up to 20 splits of an arm as one network (two repeats "
        f"of 10 folds): {m['networks'][20]:.1f} s on the 1000 x 20 table, against "
        f"{m['networks'][10]:.1f} s with one repeat per network, as before. Each "
        "job trains on one torch thread. On a busy machine (iris, 10 x 2 "
        "folds, beside another process stepping torch on two threads), one "
        "thread per job took "
        f"{busy[1, 'busy']:.1f} s against {busy[1, 'quiet']:.1f} s quiet "
        f"({one:.1f} x); two threads per job, as before, took "
        f"{busy[2, 'busy']:.1f} s against {busy[2, 'quiet']:.1f} s quiet "
        f"({two:.1f} x). {_busy_sentence(one, two)}",
        "",
        "An effect the defaults must still decide: the checkerboard (1000 rows) "
        "with a linear head, where ungated attention over copied tokens is a "
        f"linear model ({effect_seconds:.0f} s):",
        "",
        effect.to_markdown(index=False, floatfmt=".3f"),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(section(measure())))

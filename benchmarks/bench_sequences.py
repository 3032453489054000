"""Does gated attention help attention on real sequences? The three gates,
at their defaults and tuned, against MiniRocket, 1-NN DTW and gradient
boosting on every classification set aeon ships in its wheel.

Data: ArrowHead, GunPoint, ItalyPowerDemand, BasicMotions, JapaneseVowels,
OSULeaf, ACSF1 and PickupGestureWiimoteZ from
``aeon.datasets.load_classification`` (nothing downloads; JapaneseVowels and
PickupGestureWiimoteZ are lists of series of unequal length). Splits: the
archive's own train/test split and 9 stratified resamples of the pooled data
with the archive's class counts in the training part (aeon's
``stratified_resample_data_indices``, seeds 1 to 9: the UCR convention), the
same splits for every model. The gates read each series z-normalised per
channel with the training part's statistics; the baselines read the raw
series, as aeon's expect them.

Each (dataset, split, model) is one unit of work, run on ``--n-jobs``
processes (one torch and numba thread each); a finished unit's row goes
into the cache at once (``--cache``), so an interrupted run, started again,
loses at most the units in progress. Writes benchmarks/results/SEQUENCES.md,
sequences_scores.csv, sequences_run.json and fig_sequences_cd.png.

Run: python benchmarks/bench_sequences.py  (about 106 min of CPU time in
one-thread units, so about 55 min on 2 free cores; --quick: 2 datasets, 2
splits, tiny budgets, for a test; --render: the page again from the CSV).
With fewer than 2 datasets (--datasets) only the cache is written.
"""

import os

# One thread per worker: the units run side by side, not each across cores
# (read by numba and the BLAS libraries when they load, so before any import).
for _name in (
    "NUMBA_NUM_THREADS",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import functools  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "results"
CACHE = HERE / ".sequences-cache"

#: Every classification set aeon 1.6.0 ships in its wheel.
DATASETS = (
    "ArrowHead",
    "GunPoint",
    "ItalyPowerDemand",
    "BasicMotions",
    "JapaneseVowels",
    "OSULeaf",
    "ACSF1",
    "PickupGestureWiimoteZ",
)
#: --quick: one equal-length and one unequal-length set, both small.
QUICK_DATASETS = ("ItalyPowerDemand", "PickupGestureWiimoteZ")

sys.path.insert(0, str(HERE))
from sequences_report import BASELINES, MODELS  # noqa: E402

#: The learning rates of the multiplicative gate's grid (spanning 16x), and
#: the 6 of the other gates' (the same span, denser: their grids match its
#: 2 alphas by learning rates, so that every gate has 12 configurations).
#: From 1e-3 to 1.6e-2: in a calibration over 5e-4 to 8e-3 (20 epochs; 12
#: searches per gate on the 8 datasets), the inner folds chose the largest
#: rate in 17 of 36 searches and the smallest in none.
LR_GATED = [1e-3, 4e-3, 1.6e-2]
LR_OTHERS = [1e-3, 1.7e-3, 3e-3, 5.3e-3, 9.2e-3, 1.6e-2]

#: The full run's settings. The default gates are GatedAttentionClassifier at
#: its defaults (``default_params`` empty). The tuned gates search ``grid``
#: (the same number of configurations per gate) by ``inner_folds``-fold
#: cross-validation, every configuration trained with ``tuned_params`` (the
#: same epochs and batch size for every gate: batches of 16 take more steps
#: per epoch than the default 64 on these small training parts, at less
#: cost; benchmarks/results/SEQUENCES.md records the settings).
FULL = {
    "datasets": DATASETS,
    "n_splits": 10,
    "default_params": {},
    "tuned_params": {"max_epochs": 14, "batch_size": 16},
    #: What the refit of the best configuration changes of tuned_params: the
    #: default gates' budget (500 steps of 64 rows at least), so that a tuned
    #: gate differs from its default by the configuration the search chose,
    #: not by a smaller budget (the search itself affords 14 epochs of 16).
    "refit_params": {"max_epochs": "auto", "batch_size": 64},
    "grid": {
        "multiplicative": {"lr": LR_GATED, "alpha": [0.5, 1.0], "depth": [1, 2]},
        "silu": {"lr": LR_OTHERS, "depth": [1, 2]},
        "none": {"lr": LR_OTHERS, "depth": [1, 2]},
    },
    "inner_folds": 3,
    "curvature_rows": 32,
    "minirocket_kernels": 10_000,
}
QUICK = {
    **FULL,
    "datasets": QUICK_DATASETS,
    "n_splits": 2,
    "default_params": {"max_epochs": 3, "d_model": 16},
    "tuned_params": {"max_epochs": 3, "d_model": 16, "batch_size": 16},
    "grid": {
        "multiplicative": {"lr": [2e-3], "alpha": [0.5, 1.0], "depth": [1]},
        "silu": {"lr": [1e-3, 4e-3], "depth": [1]},
        "none": {"lr": [1e-3, 4e-3], "depth": [1]},
    },
    "curvature_rows": 8,
    "minirocket_kernels": 1_000,
}

#: What a row of the cache holds.
COLUMNS = [
    "dataset",
    "split",
    "model",
    "kind",
    "gate",
    "tuned",
    "n_train",
    "n_test",
    "accuracy",
    "curvature",
    "fit_seconds",
    "search_seconds",
    "seconds",
    "cpu_seconds",
    "inner_accuracy",
    "lr",
    "alpha",
    "depth",
    "patch_size",
    "note",
]


# ---------------------------------------------------------------- the data


@functools.cache
def pooled(name):
    """``(X, y, n_train, equal)`` of dataset ``name``: the archive's training
    cases then its test cases (X a 3-D array, or a list of 2-D arrays when the
    series differ in length), and how many cases the archive trains on."""
    from aeon.datasets import load_classification

    X_train, y_train = load_classification(name, split="train")
    X_test, y_test = load_classification(name, split="test")
    equal = not isinstance(X_train, list)
    if equal:
        X = np.concatenate([X_train, X_test]).astype(float)
    else:
        X = [np.asarray(x, dtype=float) for x in [*X_train, *X_test]]
    return X, np.concatenate([y_train, y_test]), len(y_train), equal


def split_indices(name, split):
    """Training and test indices into :func:`pooled` of split ``split``:
    0 the archive's own, 1 to 9 aeon's stratified resamples (seeded by the
    split, the training part with the archive's class counts)."""
    from aeon.benchmarking.resampling import stratified_resample_data_indices

    _, y, n_train, _ = pooled(name)
    if split == 0:
        return np.arange(n_train), np.arange(n_train, len(y))
    train, test = stratified_resample_data_indices(
        y[:n_train], y[n_train:], random_state=split
    )
    return np.asarray(train), np.asarray(test)


def take(X, indices):
    """Rows ``indices`` of a 3-D array or of a list of series."""
    if isinstance(X, list):
        return [X[i] for i in indices]
    return X[indices]


def channel_statistics(X):
    """Each channel's mean and standard deviation over every case and time
    point of ``X`` (a constant channel gets 1)."""
    flat = (
        np.concatenate(X, axis=1)
        if isinstance(X, list)
        else X.transpose(1, 0, 2).reshape(X.shape[1], -1)
    )
    mean, std = flat.mean(axis=1), flat.std(axis=1)
    return mean, np.where(std > 1e-12, std, 1.0)


def z_normalise(X, mean, std):
    if isinstance(X, list):
        return [(x - mean[:, None]) / std[:, None] for x in X]
    return (X - mean[None, :, None]) / std[None, :, None]


def split_data(name, split):
    """``(X_train, y_train, X_test, y_test)`` of one split, raw."""
    X, y, _, _ = pooled(name)
    train, test = split_indices(name, split)
    return take(X, train), y[train], take(X, test), y[test]


# ---------------------------------------------------------------- the models


def configurations(grid):
    """The configurations of one gate's grid, in a fixed order."""
    import itertools

    keys = sorted(grid)
    return [
        dict(zip(keys, values, strict=True))
        for values in itertools.product(*(grid[k] for k in keys))
    ]


def _gate(gate, seed, **params):
    from skgate import GatedAttentionClassifier

    return GatedAttentionClassifier(gate=gate, random_state=seed, **params)


def _accuracy(model, X, y):
    return float(np.mean(model.predict(fitting(model, X)[0]) == y))


def fitting(model, X):
    """``X`` with every series cut to the longest a fitted gate takes (the
    longest series of its fit, in whole patches), and how many were cut: a
    gate cannot read a series longer than any it was fitted on, which an
    unequal-length set's test part may hold."""
    layout = getattr(model, "series_layout_", None)
    if layout is None or not isinstance(X, list):
        return X, 0
    capacity = layout.n_tokens * layout.patch_size
    cut = sum(x.shape[1] > capacity for x in X)
    return [x[:, :capacity] for x in X], cut


def _curvature(model, X, rows):
    X = fitting(model, X[:rows])[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(np.mean(model.curvature(X, kind="turning")))


def _test_note(model, X_test):
    cut = fitting(model, X_test)[1]
    layout = model.series_layout_
    capacity = layout.n_tokens * layout.patch_size
    return f"{cut} test series cut to {capacity} time points" if cut else ""


def fit_default_gate(gate, data, seed, settings):
    X_train, y_train, X_test, y_test = data
    model = _gate(gate, seed, **settings["default_params"])
    start = time.perf_counter()
    model.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    return {
        "accuracy": _accuracy(model, X_test, y_test),
        "curvature": _curvature(model, X_test, settings["curvature_rows"]),
        "fit_seconds": seconds,
        "lr": model.lr,
        "alpha": model.alpha if gate == "multiplicative" else np.nan,
        "depth": model.depth,
        "patch_size": model.series_layout_.patch_size,
        "note": _test_note(model, X_test),
    }


def fit_tuned_gate(gate, data, seed, settings):
    """The gate's grid searched by stratified ``inner_folds``-fold
    cross-validation on the training part (every fold model of the search
    trained by fit_together), the best configuration (the first of the
    grid's order among ties) refitted on the whole training part."""
    from sklearn.model_selection import StratifiedKFold

    from skgate.parallel import fit_together

    X_train, y_train, X_test, y_test = data
    configs = configurations(settings["grid"][gate])
    params = settings["tuned_params"]
    folds = StratifiedKFold(settings["inner_folds"], shuffle=True, random_state=seed)
    start = time.perf_counter()
    models, items, held_out = [], [], []
    for train, test in folds.split(np.zeros(len(y_train)), y_train):
        item = (take(X_train, train), y_train[train])
        held_out.append((take(X_train, test), y_train[test]))
        for config in configs:
            models.append(_gate(gate, seed, **params, **config))
            items.append(item)
    fit_together(models, items)
    scores = np.zeros(len(configs))
    for i, model in enumerate(models):
        X_val, y_val = held_out[i // len(configs)]
        scores[i % len(configs)] += _accuracy(model, X_val, y_val) / len(held_out)
    search = time.perf_counter() - start
    best = configs[int(np.argmax(scores))]
    refit = {**params, **settings.get("refit_params", {})}
    model = _gate(gate, seed, **refit, **best).fit(X_train, y_train)
    seconds = time.perf_counter() - start
    return {
        "accuracy": _accuracy(model, X_test, y_test),
        "curvature": _curvature(model, X_test, settings["curvature_rows"]),
        "fit_seconds": seconds,
        "search_seconds": search,
        "inner_accuracy": float(scores.max()),
        "lr": best["lr"],
        "alpha": best.get("alpha", np.nan),
        "depth": best["depth"],
        "patch_size": model.series_layout_.patch_size,
        "note": _test_note(model, X_test),
    }


def fit_baseline(name, data, seed, settings):
    """A baseline on the raw series. MiniRocket takes equal lengths only:
    unequal series are resized to the training part's longest by linear
    interpolation (aeon's Resizer), for it alone. HGB reads the flattened
    series: equal lengths only (None otherwise)."""
    X_train, y_train, X_test, y_test = data
    unequal = isinstance(X_train, list)
    note = ""
    if name == "MiniRocket":
        from aeon.classification.convolution_based import MiniRocketClassifier
        from aeon.transformations.collection.unequal_length import Resizer

        if unequal:
            resizer = Resizer(resized_length="max").fit(X_train)
            X_train, X_test = resizer.transform(X_train), resizer.transform(X_test)
            note = f"resized to {X_train.shape[-1]} time points"
        model = MiniRocketClassifier(
            n_kernels=settings["minirocket_kernels"], n_jobs=1, random_state=seed
        )
    elif name == "1-NN DTW":
        from aeon.classification.distance_based import KNeighborsTimeSeriesClassifier

        model = KNeighborsTimeSeriesClassifier(distance="dtw", n_neighbors=1, n_jobs=1)
    elif name == "HGB":
        from sklearn.ensemble import HistGradientBoostingClassifier

        if unequal:
            return None
        X_train = X_train.reshape(len(X_train), -1)
        X_test = X_test.reshape(len(X_test), -1)
        model = HistGradientBoostingClassifier(random_state=seed)
    else:
        raise ValueError(f"unknown baseline {name!r}")
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X_train, y_train)
        seconds = time.perf_counter() - start
        accuracy = _accuracy(model, X_test, y_test)
    return {"accuracy": accuracy, "fit_seconds": seconds, "note": note}


def run_unit(dataset, split, model, settings):
    """One (dataset, split, model): its cache row (None: the model does not
    apply to the dataset)."""
    import torch

    torch.set_num_threads(1)
    start, cpu = time.perf_counter(), time.process_time()
    X_train, y_train, X_test, y_test = split_data(dataset, split)
    seed = split
    row = {
        "dataset": dataset,
        "split": split,
        "model": model,
        "n_train": len(y_train),
        "n_test": len(y_test),
    }
    if model in BASELINES:
        result = fit_baseline(model, (X_train, y_train, X_test, y_test), seed, settings)
        if result is None:
            return None
        return {
            **row,
            "kind": "baseline",
            "gate": "",
            "tuned": False,
            **result,
            "seconds": time.perf_counter() - start,
            "cpu_seconds": time.process_time() - cpu,
        }
    gate, tuned = model.split(" ")[0], model.endswith(" tuned")
    mean, std = channel_statistics(X_train)
    data = (
        z_normalise(X_train, mean, std),
        y_train,
        z_normalise(X_test, mean, std),
        y_test,
    )
    fit = fit_tuned_gate if tuned else fit_default_gate
    result = fit(gate, data, seed, settings)
    return {
        **row,
        "kind": "gate",
        "gate": gate,
        "tuned": tuned,
        **result,
        "seconds": time.perf_counter() - start,
        "cpu_seconds": time.process_time() - cpu,
    }


def applies(dataset, model):
    """HGB reads flattened series: equal-length sets only."""
    return not (model == "HGB" and not pooled(dataset)[3])


# ---------------------------------------------------------------- the cache


def fingerprint(settings):
    """What a cached row was computed under (the cache is refused when the
    settings differ)."""
    text = json.dumps(settings, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def open_cache(directory, settings, mode):
    """The cache file of ``mode`` under ``directory`` and its finished rows;
    a cache made under other settings is refused (start with --fresh)."""
    directory.mkdir(parents=True, exist_ok=True)
    path, meta = directory / f"{mode}.csv", directory / f"{mode}.json"
    key = fingerprint(settings)
    if meta.exists() and json.loads(meta.read_text())["fingerprint"] != key:
        sys.exit(
            f"{path} holds rows of other settings; rerun with --fresh to start over."
        )
    meta.write_text(
        json.dumps({"fingerprint": key, "settings": settings}, indent=2, default=str)
        + "\n"
    )
    rows = pd.read_csv(path) if path.exists() and path.stat().st_size else None
    return path, rows


def append_row(path, row):
    """Write one finished unit's row (the header first, into a new file)."""
    frame = pd.DataFrame([{c: row.get(c, np.nan) for c in COLUMNS}])
    new = not path.exists() or path.stat().st_size == 0
    with open(path, "a") as handle:
        frame.to_csv(handle, header=new, index=False)
        handle.flush()
        os.fsync(handle.fileno())


def units(settings):
    """Every (dataset, split, model) of the design, dearest datasets first
    (long series, then many cases), so that the last units are short."""

    def cost(name):
        X, y, n_train, _ = pooled(name)
        length = max(x.shape[-1] for x in X) if isinstance(X, list) else X.shape[-1]
        return length * len(y)

    datasets = sorted(settings["datasets"], key=cost, reverse=True)
    return [
        (d, s, m)
        for d in datasets
        for s in range(settings["n_splits"])
        for m in MODELS
        if applies(d, m)
    ]


def run(settings, mode, cache, n_jobs, fresh=False):
    """Every unit not in the cache, ``n_jobs`` at a time; returns the
    cache's rows (every finished unit) and this call's seconds."""
    from joblib import Parallel, delayed

    if fresh:
        for suffix in ("csv", "json"):
            (cache / f"{mode}.{suffix}").unlink(missing_ok=True)
    path, done = open_cache(cache, settings, mode)
    finished = set()
    if done is not None:
        finished = set(zip(done["dataset"], done["split"], done["model"], strict=True))
    todo = [u for u in units(settings) if u not in finished]
    total = len(todo) + len(finished)
    print(
        f"{len(finished)} of {total} units cached in {path}; {len(todo)} to run "
        f"on {n_jobs} processes",
        flush=True,
    )
    start = time.perf_counter()
    jobs = (delayed(_unit_or_skip)(d, s, m, settings) for d, s, m in todo)
    results = Parallel(n_jobs=n_jobs, return_as="generator_unordered", batch_size=1)(
        jobs
    )
    count = len(finished)
    for unit, row in results:
        count += 1
        if row is not None:
            append_row(path, row)
        print(
            _progress(count, total, unit, row, time.perf_counter() - start), flush=True
        )
    return pd.read_csv(path), time.perf_counter() - start


def _unit_or_skip(dataset, split, model, settings):
    return (dataset, split, model), run_unit(dataset, split, model, settings)


def _progress(count, total, unit, row, elapsed):
    dataset, split, model = unit
    what = (
        "not applicable"
        if row is None
        else f"accuracy {row['accuracy']:.3f}, {row['seconds']:.1f} s"
    )
    return (
        f"[{count}/{total}] {dataset} split {split} {model}: {what} "
        f"({elapsed / 60:.1f} min)"
    )


# ---------------------------------------------------------------- the report


def describe(settings):
    """Cases, channels, lengths and classes of every dataset."""
    rows = []
    for name in settings["datasets"]:
        X, y, n_train, equal = pooled(name)
        lengths = [x.shape[-1] for x in X] if isinstance(X, list) else [X.shape[-1]]
        channels = X[0].shape[0]
        rows.append(
            {
                "dataset": name,
                "train cases": n_train,
                "test cases": len(y) - n_train,
                "channels": channels,
                "length": (
                    str(lengths[0]) if equal else f"{min(lengths)}-{max(lengths)}"
                ),
                "classes": len(np.unique(y)),
            }
        )
    return pd.DataFrame(rows)


def record(settings, mode, n_jobs, scores, wall, argv):
    """The run's settings and cost: the units' own seconds, summed from the
    cached rows (so a resumed run counts each unit once), and this call's."""
    import aeon
    import sklearn
    import torch

    import skgate

    return {
        "command": "python benchmarks/bench_sequences.py " + " ".join(argv),
        "mode": mode,
        "n_jobs": n_jobs,
        "cores": os.cpu_count(),
        "machine": platform.platform(),
        "versions": {
            "skgate": skgate.__version__,
            "aeon": aeon.__version__,
            "torch": torch.__version__,
            "scikit-learn": sklearn.__version__,
        },
        "units seconds": float(scores["seconds"].sum()),
        "units cpu seconds": float(scores["cpu_seconds"].sum()),
        "this call's seconds": wall,
        "settings": settings,
    }


def write(scores, info, data, out):
    """Every file of the run: the scores, the record, the figure, the page."""
    import sequences_report as report

    out.mkdir(parents=True, exist_ok=True)
    scores = scores.sort_values(["dataset", "split", "model"], kind="stable")
    scores.to_csv(out / "sequences_scores.csv", index=False)
    (out / "sequences_run.json").write_text(
        json.dumps(info, indent=2, default=str) + "\n"
    )
    analysis = report.analyse(scores, info["settings"])
    import matplotlib

    matplotlib.use("Agg")
    display = report.cd_diagram(analysis)
    display.figure_.savefig(out / "fig_sequences_cd.png", dpi=120, bbox_inches="tight")
    (out / "SEQUENCES.md").write_text(report.render(analysis, info, data))
    return analysis


def settings_of(args):
    settings = json.loads(json.dumps(QUICK if args.quick else FULL))
    if args.datasets:
        unknown = sorted(set(args.datasets) - set(DATASETS))
        if unknown:
            sys.exit(f"--datasets: {unknown} are not among {list(DATASETS)}")
        settings["datasets"] = list(args.datasets)
    if args.splits is not None:
        settings["n_splits"] = args.splits
    return settings


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="2 datasets, 2 splits, tiny budgets (for a test)",
    )
    parser.add_argument("--datasets", nargs="+", help="a subset, by name")
    parser.add_argument("--splits", type=int, help="the first N splits only")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--fresh", action="store_true", help="empty the cache first")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--render",
        action="store_true",
        help="only render SEQUENCES.md and the figure again from --out's "
        "sequences_scores.csv and sequences_run.json (nothing trains)",
    )
    return parser.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse(argv)
    if args.render:
        info = json.loads((args.out / "sequences_run.json").read_text())
        scores = pd.read_csv(args.out / "sequences_scores.csv")
        write(scores, info, describe(info["settings"]), args.out)
        return
    settings = settings_of(args)
    mode = "quick" if args.quick else "full"
    if args.datasets or args.splits is not None:
        mode += "-" + fingerprint(settings)
    scores, wall = run(settings, mode, args.cache, args.n_jobs, fresh=args.fresh)
    wanted = set(units(settings))
    keys = zip(scores["dataset"], scores["split"], scores["model"], strict=True)
    scores = scores[[k in wanted for k in keys]]
    info = record(settings, mode, args.n_jobs, scores, wall, argv)
    if scores["dataset"].nunique() < 2:
        print(
            f"{len(scores)} rows in {args.cache}; the tests across datasets need "
            "2 datasets or more, so nothing is written to --out."
        )
        return
    analysis = write(scores, info, describe(settings), args.out)
    print("\n".join(analysis["bottom line"]))


if __name__ == "__main__":
    # The workers import the units from the module by name (not from
    # __main__, whose functions they cannot rebuild).
    import bench_sequences

    bench_sequences.main()

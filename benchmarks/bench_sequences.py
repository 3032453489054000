"""Does gated attention help attention on real sequences? The three gates
at the series defaults (and the minimal design, and ablations of the
defaults' parts), against MiniRocket, MultiRocket, Hydra, 1-NN DTW and
gradient boosting on every classification set aeon ships in its wheel.

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
from sequences_report import (  # noqa: E402
    ABLATIONS,
    BASELINES,
    MINIMAL,
    MODELS,
    SUBSET_MODELS,
    variant,
)

#: The full run's settings. Every gate model is GatedAttentionClassifier at
#: the estimator's defaults for series (the strong design; ``default_params``
#: empty) with the changes of its variant: "minimal" the design series had
#: before (skgate._options.DESIGNS["table"], what tables still get), an
#: ablation one part of the strong design removed (sequences_report.ABLATIONS).
#: The ablations and the tuned gates run on the first ``subset_splits``
#: splits. A tuned gate searches ``grid`` by successive halving on a
#: stratified hold-out of ``holdout`` of the training part: every
#: configuration at 1/``halving`` of the refit's epochs, the best
#: ``survivors`` at the refit's epochs (the refit's budget), the best of those
#: refitted on the whole training part at the defaults' budget.
FULL = {
    "datasets": DATASETS,
    "n_splits": 10,
    "subset_splits": 3,
    "default_params": {},
    "grid": {"lr": [1e-3, 2e-3, 4e-3]},
    "holdout": 1 / 3,
    "halving": 3,
    "survivors": 2,
    "curvature_rows": 32,
    "minirocket_kernels": 10_000,
}
QUICK = {
    **FULL,
    "datasets": QUICK_DATASETS,
    "n_splits": 2,
    "subset_splits": 1,
    "default_params": {"max_epochs": 3, "d_model": 16},
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
    "variant",
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


def normalised(data):
    """``(X_train, y_train, X_test, y_test)`` with both parts' series
    z-normalised per channel by the training part's statistics (what the
    gates read)."""
    X_train, y_train, X_test, y_test = data
    mean, std = channel_statistics(X_train)
    return (
        z_normalise(X_train, mean, std),
        y_train,
        z_normalise(X_test, mean, std),
        y_test,
    )


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


def variant_params(name):
    """What variant ``name`` changes of the estimator's defaults."""
    if name in ("strong", "tuned"):
        return {}
    if name == "minimal":
        from skgate._options import DESIGNS

        return dict(DESIGNS["table"])
    return dict(ABLATIONS[name])


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


def _gate_result(model, data, settings, seconds):
    X_test, y_test = data[2], data[3]
    return {
        "accuracy": _accuracy(model, X_test, y_test),
        "curvature": _curvature(model, X_test, settings["curvature_rows"]),
        "fit_seconds": seconds,
        "lr": model.lr,
        "alpha": model.alpha if model.gate == "multiplicative" else np.nan,
        "depth": model.depth,
        "patch_size": model.series_layout_.patch_size,
        "note": _test_note(model, X_test),
    }


def fit_gate(gate, name, data, seed, settings):
    """One gate at the defaults with variant ``name``'s changes."""
    params = {**settings["default_params"], **variant_params(name)}
    model = _gate(gate, seed, **params)
    start = time.perf_counter()
    model.fit(data[0], data[1])
    return _gate_result(model, data, settings, time.perf_counter() - start)


def refit_epochs(settings, n_rows):
    """The epochs the defaults train ``n_rows`` rows for (what "auto"
    resolves to)."""
    from skgate import GatedAttentionClassifier
    from skgate._engine.plan import planned_epochs

    params = GatedAttentionClassifier().set_params(**settings["default_params"])
    return planned_epochs(params.max_epochs, n_rows, params.batch_size)


def fit_tuned_gate(gate, data, seed, settings):
    """The grid searched by successive halving over epochs on a stratified
    hold-out of the training part (every rung's models trained together by
    fit_together), so that the configurations that survive are compared at
    the refit's budget: rung 0 trains every configuration for 1/``halving``
    of the refit's epochs, rung 1 the best ``survivors`` for all of them.
    The best of rung 1 (the first of the grid's order among ties) is
    refitted on the whole training part at the defaults."""
    from sklearn.model_selection import StratifiedShuffleSplit

    from skgate.parallel import fit_together

    X_train, y_train = data[0], data[1]
    configs = configurations(settings["grid"])
    split = StratifiedShuffleSplit(1, test_size=settings["holdout"], random_state=seed)
    inner, held = next(split.split(np.zeros(len(y_train)), y_train))
    item = (take(X_train, inner), y_train[inner])
    X_val, y_val = take(X_train, held), y_train[held]
    epochs = refit_epochs(settings, len(y_train))
    rungs = (max(1, round(epochs / settings["halving"])), epochs)
    start = time.perf_counter()
    alive = list(range(len(configs)))
    for rung, budget in enumerate(rungs):
        params = {**settings["default_params"], "max_epochs": budget}
        models = [_gate(gate, seed, **params, **configs[i]) for i in alive]
        fit_together(models, [item] * len(models))
        scores = [_accuracy(m, X_val, y_val) for m in models]
        order = sorted(range(len(alive)), key=lambda k: -scores[k])  # stable
        if rung == 0:
            alive = sorted(alive[k] for k in order[: settings["survivors"]])
    best = alive[order[0]]
    search = time.perf_counter() - start
    model = _gate(gate, seed, **settings["default_params"], **configs[best])
    model.fit(X_train, y_train)
    result = _gate_result(model, data, settings, time.perf_counter() - start)
    return {
        **result,
        "search_seconds": search,
        "inner_accuracy": float(scores[order[0]]),
    }


def fit_baseline(name, data, seed, settings):
    """A baseline on the raw series. MiniRocket, MultiRocket and Hydra take
    equal lengths only: unequal series are resized to the training part's
    longest by linear interpolation (aeon's Resizer), for them alone. HGB
    reads the flattened series: equal lengths only (None otherwise)."""
    X_train, y_train, X_test, y_test = data
    unequal = isinstance(X_train, list)
    note = ""
    if name in ("MiniRocket", "MultiRocket", "Hydra"):
        from aeon.classification import convolution_based
        from aeon.transformations.collection.unequal_length import Resizer

        if unequal:
            resizer = Resizer(resized_length="max").fit(X_train)
            X_train, X_test = resizer.transform(X_train), resizer.transform(X_test)
            note = f"resized to {X_train.shape[-1]} time points"
        if name == "Hydra":
            model = convolution_based.HydraClassifier(n_jobs=1, random_state=seed)
        else:
            model = getattr(convolution_based, f"{name}Classifier")(
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
    gate, name = variant(model)
    data = normalised((X_train, y_train, X_test, y_test))
    if name == "tuned":
        result = fit_tuned_gate(gate, data, seed, settings)
    else:
        result = fit_gate(gate, name, data, seed, settings)
    return {
        **row,
        "kind": "gate",
        "gate": gate,
        "variant": name,
        "tuned": name == "tuned",
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
    """Every (dataset, split, model) of the design, in the order they run:
    the first ``subset_splits`` splits of every model (dearest datasets
    first: long series, then many cases), then the ablations on those
    splits, then the other splits, so that an interrupted run has whole
    splits of every dataset."""
    datasets = sorted(settings["datasets"], key=_cost, reverse=True)
    first = range(settings["subset_splits"])
    rest = range(settings["subset_splits"], settings["n_splits"])

    def every(splits):
        return [
            (d, s, m) for s in splits for d in datasets for m in MODELS if applies(d, m)
        ]

    subset = [(d, s, m) for m in SUBSET_MODELS for d in datasets for s in first]
    return every(first) + subset + every(rest)


#: Models whose rows the committed run's CSV holds as this code would make
#: them again: the baselines (their code and seeds did not change) and the
#: minimal design (a table's network and training, with the patches it had).
CARRIED = (*BASELINES, *MINIMAL)


def carry(settings, path):
    """The committed run's rows of :data:`CARRIED` put into the cache as
    finished units, after checking that this code makes them again: one
    unit of each model (its cheapest dataset's split 0) is run anew and must
    give the committed accuracy (and curvature). Returns, per model, the rows
    carried and the check."""
    wanted = set(units(settings))
    cached = set()
    if path.exists() and path.stat().st_size:
        done = pd.read_csv(path)
        cached = set(zip(done["dataset"], done["split"], done["model"], strict=True))
    frame = pd.read_csv(OUT / "sequences_scores.csv")
    frame = frame[frame["model"].isin(CARRIED)]
    cheapest = min(settings["datasets"], key=_cost)
    carried = {}
    for model, rows in frame.groupby("model", sort=False):
        committed = rows[(rows["dataset"] == cheapest) & (rows["split"] == 0)]
        check = run_unit(cheapest, 0, model, settings)
        same = bool(
            len(committed)
            and np.isclose(check["accuracy"], committed["accuracy"].iloc[0])
            and (
                np.isnan(committed["curvature"].iloc[0])
                or np.isclose(check["curvature"], committed["curvature"].iloc[0])
            )
        )
        carried[model] = {"check": f"{cheapest} split 0", "same": same, "rows": 0}
        if not same:
            print(f"not carried: {model} gives {check['accuracy']} on {cheapest}")
            continue
        for row in rows.to_dict("records"):
            key = (row["dataset"], row["split"], row["model"])
            if key not in wanted or key in cached:
                continue
            row["note"] = (str(row.get("note") or "") + " carried").strip()
            append_row(path, row)
            cached.add(key)
            carried[model]["rows"] += 1
    return carried


def carried_rows(scores, checks):
    """What the run took from an earlier one: per model, the rows whose note
    says "carried" (they stay marked in the cache whichever call carried
    them) and, where this call carried or checked them (``checks``, from
    :func:`carry`), the unit run anew and whether it gave the committed
    numbers again."""
    notes = scores["note"].fillna("").astype(str) if "note" in scores else None
    found = {}
    if notes is None:
        return found
    marked = scores[notes.str.contains("carried")]
    for model, rows in marked.groupby("model", sort=False):
        found[model] = {**checks.get(model, {}), "rows": len(rows)}
    return found


def _cost(name):
    X, y, _, _ = pooled(name)
    length = max(x.shape[-1] for x in X) if isinstance(X, list) else X.shape[-1]
    return length * len(y)


def run(settings, mode, cache, n_jobs, fresh=False, carry_rows=False):
    """Every unit not in the cache, ``n_jobs`` at a time (first, with
    ``carry_rows``, the rows :func:`carry` takes from earlier runs); returns
    the cache's rows (every finished unit), this call's seconds and what was
    carried."""
    from joblib import Parallel, delayed

    if fresh:
        for suffix in ("csv", "json"):
            (cache / f"{mode}.{suffix}").unlink(missing_ok=True)
    path, done = open_cache(cache, settings, mode)
    carried = carry(settings, path) if carry_rows else {}
    if carried:
        print(f"carried into {path}: {carried}", flush=True)
        done = pd.read_csv(path)
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
    return pd.read_csv(path), time.perf_counter() - start, carried


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


def commit():
    """The repository's commit and whether its tree is clean (None where
    git cannot tell)."""
    import subprocess

    def git(*args):
        done = subprocess.run(
            ["git", *args], cwd=HERE, capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else None

    status = git("status", "--porcelain", "--untracked-files=no")
    return {
        "commit": git("rev-parse", "HEAD"),
        "clean": None if status is None else status == "",
    }


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
        "--carry",
        action="store_true",
        help="put the baselines' and the minimal design's rows of the "
        "committed sequences_scores.csv into the cache as finished units, "
        "after one unit of each gives the committed numbers again",
    )
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
    at_start = commit()
    scores, wall, carried = run(
        settings,
        mode,
        args.cache,
        args.n_jobs,
        fresh=args.fresh,
        carry_rows=args.carry,
    )
    wanted = set(units(settings))
    keys = zip(scores["dataset"], scores["split"], scores["model"], strict=True)
    scores = scores[[k in wanted for k in keys]]
    info = record(settings, mode, args.n_jobs, scores, wall, argv)
    info["code"] = {"at start": at_start, "at end": commit()}
    info["carried"] = carried_rows(scores, carried)
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

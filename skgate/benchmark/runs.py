"""Every model's rows on each dataset: the splits, the baselines' fits,
the gates batched with :func:`skgate.parallel.fit_together`, and the tuned
mode's inner search."""

import time
import warnings
import zlib
from collections.abc import Callable
from numbers import Integral

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import _safe_indexing
from sklearn.utils.multiclass import type_of_target

from .._evaluation import (
    arm_scores,
    baseline_input,
    baseline_rows,
    check_data,
    cv_splits,
    dry_run,
    laid_out,
    score_model,
    split_chunks,
    split_data,
    split_row,
)
from ..estimators import GatedAttentionClassifier
from ..model_selection import representation_curvature
from ..nn import GATES
from ..parallel import fit_together
from .defaults import default_preprocessor


def _dataset_seed(random_state, name):
    """A dataset's own seed from ``random_state`` and its name: the same
    whichever other datasets run with it, and in whatever order."""
    if random_state is None:
        return None
    entropy = [int(random_state), zlib.crc32(str(name).encode())]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


def _loaded(name, loader):
    """What ``loader`` returns; its error keeps its type and names the
    dataset (where the type takes one message; else it gets a note)."""
    try:
        return loader()
    except Exception as exc:
        try:
            named = type(exc)(f"datasets[{name!r}]: its loader raised: {exc}")
        except Exception:
            raise exc from None
        raise named from exc


def _load(name, entry):
    """A dataset's (X, y): the pair itself, or what its loader returns."""
    if isinstance(entry, Callable):
        entry = _loaded(name, entry)
    if not (isinstance(entry, tuple | list) and len(entry) == 2):
        what = (
            f"a {type(entry).__name__} of length {len(entry)}"
            if isinstance(entry, tuple | list)
            else type(entry).__name__
        )
        raise TypeError(
            f"datasets[{name!r}] must be (X, y) or a callable returning (X, y); "
            f"got {what}."
        )
    X, y = entry
    kind = type_of_target(np.asarray(y))
    if kind not in ("binary", "multiclass"):
        raise ValueError(
            f"datasets[{name!r}]: y is {kind!r}; benchmark_gates compares "
            "classifiers (compare_gates also takes regression, one dataset at a "
            "time)."
        )
    return X, y


def _baseline_scores(baselines, data, splits, scorer, n_jobs):
    rows = baseline_rows(baselines, data, splits, scorer, n_jobs)
    frame = pd.DataFrame([row for _, row in rows])
    frame.insert(0, "model", [name for name, _ in rows])
    frame.insert(1, "kind", "baseline")
    return frame


def _dataset_scores(name, X, y, design, n_jobs):
    """Every model's rows on one dataset (the rows of
    :attr:`GateBenchmark.scores_`), its splits seeded by its name, and
    when tuned the configurations chosen (else None)."""
    seed = _dataset_seed(design.random_state, name)
    splits = cv_splits(X, y, "classification", design.cv, design.n_repeats, seed,
                       None)  # fmt: skip
    start = time.perf_counter()
    data = split_data(X, y, splits, design.preprocessor)
    chosen = None
    if design.tuning is None:
        gates = arm_scores(data, design.estimators, splits, design.scorer,
                           design.curvature_params, n_jobs, 0)  # fmt: skip
        gates = gates.drop(columns="curvature measure")
        gates = gates.rename(columns={"arm": "model"})
        gates.insert(1, "kind", "gate")
        baselines = _baseline_scores(design.baselines, data, splits, design.scorer,
                                     n_jobs)  # fmt: skip
        scores = pd.concat([gates, baselines], ignore_index=True)
    else:
        scores, chosen = _tuned_scores(X, y, splits, data, design, n_jobs)
        chosen.insert(0, "dataset", name)
    scores.insert(0, "dataset", name)
    scores["n_rows"], scores["n_classes"] = len(y), len(np.unique(y))
    scores["seconds"] = time.perf_counter() - start
    return scores, chosen


def _inner_splits(X, y, split, inner_cv):
    """The inner folds of a split's training rows (indices into them),
    shuffled from the split's seed: the same for every model."""
    rows = split.train
    repeats = 1 if isinstance(inner_cv, Integral) else None
    try:
        return cv_splits(_safe_indexing(X, rows), y[rows], "classification",
                         inner_cv, repeats, split.seed, None)  # fmt: skip
    except ValueError as exc:
        raise ValueError(
            f"inner_cv={inner_cv!r} on the training rows of split (repeat "
            f"{split.repeat}, fold {split.fold}): {exc}"
        ) from exc


def _configured(estimator, params, seed):
    """A clone of ``estimator`` with ``params``, from ``seed`` when it takes
    a ``random_state``."""
    model = clone(estimator).set_params(**params)
    if "random_state" in model.get_params():
        model.set_params(random_state=seed)
    return model


def _fit_each(models, items, together):
    """Fit each model on its ``(X, y)``, gates ``together`` as batched
    networks; a fit that fails with a ValueError (a gate whose training
    diverged, a configuration these rows do not suit) leaves None in its
    place, and the last such error."""
    if together:
        try:
            return fit_together(models, items), None
        except ValueError:
            pass  # one failed: fit each alone (to the same bits), to tell which
    fitted, error = [], None
    for model, (X, y) in zip(models, items, strict=True):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                fitted.append(model.fit(X, y))
        except ValueError as exc:
            fitted.append(None)
            error = exc
    return fitted, error


def _warn_of_failures(name, failed, fits, error):
    """A search that lost some of its inner fits says so."""
    if failed:
        warnings.warn(
            f"model {name!r}: {failed} of {fits} inner fits failed and were "
            f"left out of the search (the last failure: {error}); their "
            "configurations competed on fewer folds, or not at all.",
            UserWarning,
            stacklevel=3,
        )


def _tuned_fit(name, estimator, candidates, splits, trains, inners, data,
               preprocessor, scorer, curvature_params):  # fmt: skip
    """One model on some splits at its best: on each split, every
    configuration fitted on the inner folds of the split's training rows
    (the same folds for every model, each preprocessed from its own
    training rows), and the best mean inner score (the first of equals)
    fitted on all the training rows and scored on the split's test rows.
    A gate's fits of every split train together (batched networks), and
    its times are its share of them."""
    gate = isinstance(estimator, GatedAttentionClassifier)

    def feed(X):  # what the model reads: a baseline may take series flattened
        return X if gate else baseline_input(name, estimator, X)

    start = time.perf_counter()
    folds = [split_data(*train, inner, preprocessor)
             for train, inner in zip(trains, inners, strict=True)]  # fmt: skip
    plan = [(s, params, fold) for s, split_folds in enumerate(folds)
            for params in candidates for fold in split_folds]  # fmt: skip
    models = [_configured(estimator, params, splits[s].seed) for s, params, _ in plan]
    items = [(feed(X), y) for _, _, (X, y, _, _) in plan]
    fitted, error = _fit_each(models, items, gate)
    inner_scores, failed = [[] for _ in splits], [0 for _ in splits]
    for model, (s, _, (_, _, X, y)) in zip(fitted, plan, strict=True):
        failed[s] += model is None
        inner_scores[s].append(
            np.nan if model is None
            else score_model(scorer, model, feed(X), y, name, splits[s].repeat,
                             splits[s].fold)
        )  # fmt: skip
    means = [np.reshape(v, (len(candidates), -1)).mean(axis=1) for v in inner_scores]
    for split, m in zip(splits, means, strict=True):
        if np.isnan(m).all():  # a failed fold's fit leaves its mean NaN
            raise ValueError(
                f"model {name!r}: no configuration of param_grids fitted on every "
                f"inner fold of split (repeat {split.repeat}, fold {split.fold}); "
                f"the last failure: {error}"
            )
    _warn_of_failures(name, sum(failed), len(plan), error)
    best = [int(np.nanargmax(m)) for m in means]
    search_time = (time.perf_counter() - start) / len(splits)
    models = [_configured(estimator, candidates[b], split.seed)
              for b, split in zip(best, splits, strict=True)]  # fmt: skip
    start = time.perf_counter()
    if gate:
        fit_together(models, [(X, y) for X, y, _, _ in data])
    else:
        for model, (X, y, _, _) in zip(models, data, strict=True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(feed(X), y)
    seconds = (time.perf_counter() - start) / len(splits)
    rows = []
    for s, (model, split, (_, _, X_test, y_test)) in enumerate(
        zip(models, splits, data, strict=True)
    ):
        score = score_model(
            scorer, model, feed(X_test), y_test, name, split.repeat, split.fold
        )
        row = split_row(split, score, seconds)
        if gate:
            strength = GATES[model.gate].strength
            row = {"gate": model.gate, "alpha": model.alpha if strength else np.nan,
                   **row}  # fmt: skip
            row["curvature"] = float(
                representation_curvature(model, X_test, **curvature_params).mean()
            )
        chosen = {
            "repeat": split.repeat,
            "fold": split.fold,
            "params": dict(candidates[best[s]]),
            "inner score": float(means[s][best[s]]),
            "n_configurations": len(candidates),
            "failed fits": failed[s],
            "search_time": search_time,
        }
        rows.append((row, chosen))
    return rows


def _tuned_scores(X, y, splits, data, design, n_jobs):
    """Every model's rows at its best on one dataset, and the configurations
    chosen: a job per baseline and split, and per gate and group of splits
    (trained together)."""
    tuning = design.tuning
    dry_run(design.estimators[0][1], data[0], design.scorer,
            design.curvature_params)  # fmt: skip
    inner = [_inner_splits(X, y, split, tuning.inner_cv) for split in splits]
    groups = split_chunks(splits)
    models = [(label, estimator, groups) for (_, _, label), estimator
              in design.estimators]  # fmt: skip
    models += [(name, b, [[i] for i in range(len(splits))])
               for name, b in design.baselines.items()]  # fmt: skip
    jobs = (
        delayed(_tuned_fit)(
            name,
            estimator,
            tuning.candidates[name],
            [splits[i] for i in chunk],
            [(_safe_indexing(X, splits[i].train), y[splits[i].train]) for i in chunk],
            [inner[i] for i in chunk],
            [data[i] for i in chunk],
            design.preprocessor,
            design.scorer,
            design.curvature_params,
        )  # fmt: skip
        for name, estimator, chunks in models
        for chunk in chunks
    )
    results = [row for rows in Parallel(n_jobs=n_jobs)(jobs) for row in rows]
    names = [name for name, _, chunks in models for chunk in chunks for _ in chunk]
    kinds = ["gate" if isinstance(estimator, GatedAttentionClassifier) else "baseline"
             for _, estimator, chunks in models for chunk in chunks
             for _ in chunk]  # fmt: skip
    scores = pd.DataFrame([row for row, _ in results])
    scores.insert(0, "model", names)
    scores.insert(1, "kind", kinds)
    chosen = pd.DataFrame([row for _, row in results])
    chosen.insert(0, "model", names)
    return scores, chosen


def run_datasets(datasets, design, n_jobs, memory, verbose):
    """Every dataset's rows, one dataset at a time (cached in ``memory``),
    with a progress bar over the datasets and, at verbose > 1, a line each;
    and when tuned, the configurations chosen (else None)."""
    from tqdm.auto import tqdm

    compute = _dataset_scores
    if memory is not None:
        compute = memory.cache(_dataset_scores, ignore=["n_jobs"])
    frames, chosen = [], []
    bar = tqdm(datasets.items(), desc="datasets", unit="dataset",
               disable=not verbose, leave=False)  # fmt: skip
    for name, entry in bar:
        bar.set_postfix_str(name)
        try:
            X, y = _load(name, entry)
            preprocessor = design.preprocessor
            if isinstance(preprocessor, str):  # the default, for this X
                preprocessor = default_preprocessor(X)
            X, y, _, _ = check_data(X, y, "classification", None, preprocessor)
            # Series laid out once, for the longest of the dataset.
            X = laid_out(X, design.estimators[0][1], preprocessor)
            frame, params = compute(
                name, X, y, design._replace(preprocessor=preprocessor), n_jobs
            )
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"dataset {name!r}: {exc}") from exc
        except Exception as exc:  # the user's loader or baseline: keep its type
            if hasattr(exc, "add_note"):  # Python 3.11+
                exc.add_note(f"(benchmark_gates, on dataset {name!r})")
            raise
        if verbose > 1:
            bar.write(
                f"{name}: {frame['n_rows'].iloc[0]} rows, "
                f"{frame['seconds'].iloc[0]:.1f} s"
            )
        frames.append(frame)
        chosen.append(params)
    best_params = None
    if design.tuning is not None:
        best_params = pd.concat(chosen, ignore_index=True)
    return pd.concat(frames, ignore_index=True), best_params

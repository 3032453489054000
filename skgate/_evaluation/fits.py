"""An evaluation's fits: every arm on every split's training rows (the arms of a
split trained together), scored on its test rows with their curvature.
"""

import hashlib
import time
import warnings
from numbers import Real

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs
from scipy.sparse import issparse
from sklearn.base import clone
from sklearn.utils import _safe_indexing

from .. import _series
from .._batching import MAX_MODELS_PER_NETWORK, MODELS_PER_JOB, equal_parts
from .._engine import step_threads
from .._training import fit_together
from ..model_selection import representation_curvature
from .record import curvature_label


def _dense(X, preprocessor=None):
    """A float array of ``X`` (a one-hot encoder's output may be sparse);
    series as they are. ``X`` from ``preprocessor`` must hold finite
    numbers: text is refused, not read as numbers, and so is NaN (named
    here, not by the estimator)."""
    if _series.is_series(X):
        return X
    X = np.asarray(X.toarray() if issparse(X) else X)
    if preprocessor is None:
        return X.astype(np.float64)
    name = " ".join(repr(preprocessor).split())  # one line, however long
    numbers = X.dtype.kind in "biuf" or (
        X.dtype.kind == "O"
        and all(isinstance(v, Real | np.integer | np.floating) for v in X.ravel())
    )
    if not numbers:
        raise TypeError(
            f"preprocessor={name} outputs dtype {X.dtype}; it must output numbers "
            "(e.g. encode text columns with a OneHotEncoder)."
        )
    X = X.astype(np.float64)
    if not np.isfinite(X).all():
        raise ValueError(
            f"preprocessor={name} outputs NaN or infinity; it must output finite "
            "numbers (e.g. impute missing values with a SimpleImputer)."
        )
    return X


def split_data(X, y, splits, preprocessor):
    """Each split's (X_train, y_train, X_test, y_test), X transformed by a
    clone of ``preprocessor`` fitted on that split's training rows alone."""
    data = []
    for split in splits:
        train, test = split.train, split.test
        X_train, X_test = _safe_indexing(X, train), _safe_indexing(X, test)
        if preprocessor is not None:
            try:
                fitted = clone(preprocessor).fit(X_train, y[train])
                X_train, X_test = fitted.transform(X_train), fitted.transform(X_test)
            except (TypeError, ValueError) as exc:
                if not _series.is_series(X):
                    raise
                raise ValueError(
                    f"preprocessor={preprocessor!r} does not take series ({exc}); "
                    f"allowed with series: preprocessor=None (the estimators "
                    f"read them as given) or a transformer of series, e.g. "
                    f"aeon's Normalizer."
                ) from exc
        X_train, X_test = _dense(X_train, preprocessor), _dense(X_test, preprocessor)
        data.append((X_train, y[train], X_test, y[test]))
    return data


def _is_number(value):
    """One real number (a numpy scalar too), not a bool."""
    return isinstance(value, Real | np.number) and not isinstance(value, bool)


def score_model(scorer, model, X_test, y_test, label, repeat, fold):
    value = scorer(model, X_test, y_test)
    if not (_is_number(value) and np.isfinite(value)):
        raise ValueError(
            f"the score of arm {label!r} on split (repeat {repeat}, fold {fold}) "
            f"is {value!r}; scoring must return one finite number."
        )
    return float(value)


def _fit_arm(estimator, label, data, splits, scorer, curvature_params):
    """Fit one arm on some splits (as one batched network), each model from
    its split's seed, and score it; on one torch thread (see
    :func:`_one_thread`)."""
    with _one_thread():
        return _fit_arm_here(estimator, label, data, splits, scorer, curvature_params)


def _one_thread():
    """A job's torch work on one thread. A job's steps are small (tens of
    models' tokens of one batch), so a second thread gains little when the
    cores are free, and costs far more when they are not: beside another
    process training with torch, a second thread waits at every step for a
    core that process holds (``benchmarks/results/SPEED.md``, "compare_gates
    at its defaults", measures both). ``n_jobs`` spreads the jobs over the
    cores instead. A model's bits do not depend on its threads."""
    return step_threads(0)


def _fit_arm_here(estimator, label, data, splits, scorer, curvature_params):
    models = [clone(estimator).set_params(random_state=s.seed) for s in splits]
    start = time.perf_counter()
    fit_together(models, [(X_train, y_train, None) for X_train, y_train, _, _ in data])
    seconds = (time.perf_counter() - start) / len(splits)
    return [
        {
            "repeat": split.repeat,
            "fold": split.fold,
            "n_train": len(split.train),
            "n_test": len(split.test),
            "model_seed": split.seed,
            "score": score_model(
                scorer, model, X_test, y_test, label, split.repeat, split.fold
            ),
            "curvature": float(
                representation_curvature(model, X_test, **curvature_params).mean()
            ),
            "fit_time": seconds,
            "predictions": predictions_digest(model, X_test),
        }
        for model, split, (_, _, X_test, y_test) in zip(
            models, splits, data, strict=True
        )
    ]


def predictions_digest(model, X_test):
    """A digest of ``model``'s predictions on ``X_test``: two arms with the
    same digest on every split predicted every test row alike, which is
    why their scores tie (the one case in which tied scores show
    equivalence rather than too few test rows)."""
    predictions = np.ascontiguousarray(np.asarray(model.predict(X_test)))
    text = predictions.dtype.str + str(predictions.shape)
    if predictions.dtype == object:
        data = "\x1f".join(map(str, predictions.ravel())).encode()
    else:
        data = predictions.tobytes()
    return hashlib.sha256(text.encode() + data).hexdigest()[:16]


def split_chunks(splits, size=MODELS_PER_JOB):
    """The splits in groups of at most ``size``, each trained as one network
    (so that progress is reported per group and the groups spread over
    workers): whole repeats of k-fold, as many as fit in a group, and a
    repeat (or a splitter's splits) of more than ``size`` cut into equal
    parts. Which splits train together changes no model's bits."""
    by_repeat = {}
    for i, split in enumerate(splits):
        by_repeat.setdefault(split.repeat, []).append(i)
    groups = []
    for indices in by_repeat.values():
        for part in equal_parts(indices, size):
            if groups and len(groups[-1]) + len(part) <= size:
                groups[-1] = groups[-1] + part
            else:
                groups.append(part)
    return groups


def dry_run(estimator, data, scorer, curvature_params):
    """Build (not train: no epoch) the first arm's model on the first split
    and measure and score it once, so that settings that depend on the
    data (a curvature layer beyond the depth, a metric of the wrong length,
    a scorer for another task) fail before any training, named."""
    X_train, y_train, X_test, y_test = data
    model = clone(estimator).set_params(max_epochs=0).fit(X_train, y_train)
    try:
        representation_curvature(model, X_test[:2], **curvature_params)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"curvature_params={curvature_params!r}: {exc}") from exc
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an untrained model's score may warn
            value = scorer(model, X_test, y_test)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"scoring cannot score this task: {exc}") from exc
    if not _is_number(value):
        raise TypeError(
            f"scoring returned {value!r}, not a number; it must return one "
            "finite number."
        )


def arm_scores(data, estimators, splits, scorer, curvature_params, n_jobs, verbose):
    """Every arm on every split: one row per (arm, split), in the order of
    the arms and then of the splits, whatever order the jobs end in. The
    progress bar (``verbose``) advances as each job ends, by its fits."""
    dry_run(estimators[0][1], data[0], scorer, curvature_params)
    jobs, owners = [], []
    for (gate, alpha, label), estimator in estimators:
        for chunk in split_chunks(splits, MAX_MODELS_PER_NETWORK):
            jobs.append(
                delayed(_numbered)(
                    len(jobs),
                    _fit_arm,
                    estimator,
                    label,
                    [data[i] for i in chunk],
                    [splits[i] for i in chunk],
                    scorer,
                    curvature_params,
                )
            )
            owners.append((gate, alpha, label, len(chunk)))
    bar = _progress_bar(len(estimators) * len(splits), verbose)
    done = [None] * len(jobs)
    # Unordered: the bar moves when any job ends, not when the first job
    # still running ends (an ordered generator holds back the jobs that end
    # behind it).
    # No more workers than jobs: n_jobs=1024 started 1024 processes for 15 jobs.
    workers = min(effective_n_jobs(n_jobs), len(jobs))
    results = Parallel(n_jobs=workers, return_as="generator_unordered")(jobs)
    for number, chunk_rows in results:
        done[number] = chunk_rows
        bar.update(owners[number][-1])
    bar.close()
    rows = [
        {"arm": label, "gate": gate, "alpha": np.nan if alpha is None else alpha, **r}
        for (gate, alpha, label, _), chunk_rows in zip(owners, done, strict=True)
        for r in chunk_rows
    ]
    scores = pd.DataFrame(rows)
    scores["curvature measure"] = curvature_label(curvature_params)
    return scores


def _numbered(number, function, *args):
    """``(number, function(*args))``: a job's result with its place."""
    return number, function(*args)


def _progress_bar(total, verbose):
    from tqdm.auto import tqdm

    return tqdm(
        total=total, desc="arms x splits", unit="fit", disable=not verbose, leave=False
    )

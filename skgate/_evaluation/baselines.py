"""The models a user would pick instead of gated attention, fitted on the
gates' splits: the baselines of :func:`skgate.compare_gates` (chosen by the
data's form) and the fits :func:`skgate.benchmark_gates` runs of its own.
"""

import time
import warnings
from collections.abc import Mapping
from contextlib import nullcontext
from importlib.util import find_spec

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.ensemble import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, RidgeCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from .. import _series
from ..nn import GATES
from .fits import predictions_digest, score_model, split_chunks

#: MiniRocket's shortest series: its kernels span 9 time points.
MINIROCKET_SHORTEST = 9


def default_baselines(X, task):
    """The baselines :func:`skgate.compare_gates` sets beside the gates
    unless told otherwise, by the data's form, and a note of any it left
    out and why ("" when none was).

    Tables: a linear model on standardised columns (logistic regression,
    or ridge regression with its penalty chosen by leave-one-out) and
    histogram gradient boosting, both at scikit-learn's defaults. Series of
    one length (at least 9 points): aeon's MiniRocket, where aeon is
    installed (``skgate[sequences]``); unequal series, or no aeon: none,
    and the note says so.
    """
    classification = task == "classification"
    if not _series.is_series(X):
        linear = (
            ("LogReg", LogisticRegression(max_iter=1000))
            if classification
            else ("Ridge", RidgeCV())
        )
        boosting = (
            HistGradientBoostingClassifier()
            if classification
            else HistGradientBoostingRegressor()
        )
        return {linear[0]: make_pipeline(StandardScaler(), linear[1]),
                "HGB": boosting}, ""  # fmt: skip
    if find_spec("aeon") is None:
        return {}, (
            "no series baseline: aeon is not installed "
            "(pip install 'skgate[sequences]')"
        )
    if isinstance(X, _series.SeriesRows):
        X = _series.series_of(X)
    lengths = {np.shape(x)[-1] for x in X}
    if len(lengths) > 1:
        return {}, (
            "no series baseline: MiniRocket takes series of one length, and these "
            f"run from {min(lengths)} to {max(lengths)} points"
        )
    if min(lengths) < MINIROCKET_SHORTEST:
        return {}, (
            f"no series baseline: MiniRocket needs at least {MINIROCKET_SHORTEST} "
            f"points a series; these have {min(lengths)}"
        )
    if classification:
        from aeon.classification.convolution_based import MiniRocketClassifier as mr
    else:
        from aeon.regression.convolution_based import MiniRocketRegressor as mr
    return {"MiniRocket": mr(n_jobs=1)}, ""


def check_baselines(baselines, X, task, labels):
    """``baselines`` as a dict of name to estimator, and a note of what the
    default left out: "auto" (:func:`default_baselines`), None or an empty
    mapping (none), a mapping of names to estimators, or a sequence of
    estimators (named by their class). Each must be a scikit-learn
    estimator of ``task``; a name must be a non-empty string without
    " > ", and not one of the gates' arm ``labels``."""
    if isinstance(baselines, str):
        if baselines != "auto":
            raise ValueError(
                f"baselines must be 'auto', None, a mapping of names to "
                f"estimators or a sequence of estimators; got {baselines!r}."
            )
        return default_baselines(X, task)
    if baselines is None:
        return {}, ""
    if not isinstance(baselines, Mapping):
        if not hasattr(baselines, "__iter__"):
            raise TypeError(
                f"baselines must be 'auto', None, a mapping of names to estimators "
                f"or a sequence of estimators; got {type(baselines).__name__}."
            )
        baselines = named_by_class(baselines)
    kind = "classifier" if task == "classification" else "regressor"
    fits_task = is_classifier if task == "classification" else is_regressor
    for name, estimator in baselines.items():
        if not isinstance(name, str) or not name.strip() or " > " in name:
            raise ValueError(
                f"baselines' names must be non-empty strings without ' > '; got "
                f"{name!r}."
            )
        if isinstance(estimator, type) or not (
            hasattr(estimator, "fit") and hasattr(estimator, "predict")
        ):
            raise TypeError(
                f"baselines[{name!r}] must be an estimator instance (with fit and "
                f"predict); got {estimator!r}."
            )
        if not fits_task(estimator):
            raise TypeError(
                f"baselines[{name!r}] must be a scikit-learn {kind} for this "
                f"{task}; got {estimator!r}."
            )
        gate = name.split(" (alpha=")[0]
        if name in labels or gate in GATES:
            raise ValueError(
                f"baselines names {name!r}, which is also a gate's name or arm "
                "(compared or registered); give the baseline another name."
            )
    return dict(baselines), ""


def named_by_class(estimators):
    """A sequence of estimators named by their class (a second of a class
    numbered)."""
    named = {}
    for estimator in estimators:
        if isinstance(estimator, str | type):
            raise TypeError(
                f"baselines must hold estimator instances; got {estimator!r} (e.g. "
                "LogisticRegression(), not a name or a class)."
            )
        name = type(estimator).__name__
        named[name if name not in named else f"{name} {len(named) + 1}"] = estimator
    return named


def takes_series(estimator):
    """Whether ``estimator`` reads series itself: aeon's estimators (their
    tags say what series they take)."""
    get_tags = getattr(estimator, "get_tags", None)
    return callable(get_tags) and "capability:multivariate" in get_tags()


def baseline_input(name, estimator, X):
    """What baseline ``name`` fits on: ``X``; series as given to a
    time-series model, else each series flattened channel-major (as
    ``X.reshape(n, -1)`` flattens a 3-D array), if they have one length."""
    if isinstance(X, _series.SeriesRows):  # laid out for the gates
        X = _series.series_of(X)
    if not _series.is_series(X):
        return X
    lengths = {np.shape(x)[-1] for x in X}
    if takes_series(estimator):
        return np.stack([np.asarray(x) for x in X]) if len(lengths) == 1 else X
    if len(lengths) > 1:
        raise ValueError(
            f"baselines[{name!r}] ({estimator!r}) takes a table, and this "
            f"dataset's series differ in length ({min(lengths)} to "
            f"{max(lengths)} time points); pass baselines that read series of "
            f"unequal length (e.g. aeon's classifiers), or baselines=()."
        )
    return np.stack([np.asarray(x) for x in X]).reshape(len(X), -1)


def fit_baseline(name, estimator, data, split, scorer, digest=False):
    """Fit one baseline on one split (from the split's seed when it takes
    one) and score it: its row (:func:`split_row`), with a digest of its
    test predictions when ``digest``."""
    X_train, y_train, X_test, y_test = data
    X_train, X_test = (baseline_input(name, estimator, X) for X in (X_train, X_test))
    model = clone(estimator)
    if "random_state" in model.get_params():
        model.set_params(random_state=split.seed)
    start = time.perf_counter()
    # One thread, as the gates' fits: gradient boosting's OpenMP threads
    # spin for a core beside any other busy process (6 s a fit on 455 rows
    # beside one, against 0.2 s on one thread); n_jobs spreads the fits.
    # aeon's estimators set their own threads (their n_jobs, numba's).
    threads = nullcontext() if takes_series(estimator) else threadpool_limits(1)
    with warnings.catch_warnings(), threads:
        # At scikit-learn's defaults some baselines stop before converging;
        # that is the model a user gets, and one warning per split is noise.
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            model.fit(X_train, y_train)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"baselines[{name!r}] ({estimator!r}): {exc}") from exc
    seconds = time.perf_counter() - start
    try:
        score = score_model(scorer, model, X_test, y_test, name, split.repeat,
                            split.fold)  # fmt: skip
        row = split_row(split, score, seconds)
        if digest:
            row["predictions"] = predictions_digest(model, X_test)
    except (TypeError, ValueError, AttributeError) as exc:
        if str(exc).startswith(f"baselines[{name!r}]") or f"arm {name!r}" in str(exc):
            raise  # named already
        raise type(exc)(
            f"baselines[{name!r}] ({estimator!r}) could not be scored on split "
            f"(repeat {split.repeat}, fold {split.fold}): {exc}"
        ) from exc
    return row


def dry_run_baselines(baselines, data, split, scorer):
    """Fit and score each baseline once on the first split, before any gate
    trains, so that a baseline that cannot take this data (a table model
    given series of unequal length, a scorer it cannot answer) fails named
    at once, not after the gates' fits."""
    for name, estimator in baselines.items():
        fit_baseline(name, estimator, data, split, scorer, digest=True)


def split_row(split, score, seconds):
    """A baseline's row on one split: no curvature (it has no attention)."""
    return {
        "repeat": split.repeat,
        "fold": split.fold,
        "n_train": len(split.train),
        "n_test": len(split.test),
        "model_seed": split.seed,
        "score": score,
        "curvature": np.nan,
        "fit_time": seconds,
    }


def baseline_rows(baselines, data, splits, scorer, n_jobs, digest=False):
    """Every baseline on every split: its name and row, in the order of the
    baselines and then of the splits. A job fits one baseline on a group of
    splits (as the gates' jobs group them, :func:`split_chunks`), so that
    no more workers start than the gates' fits use."""
    jobs, names = [], []
    for name, estimator in baselines.items():
        for chunk in split_chunks(splits):
            jobs.append(delayed(_fit_baseline_on)(
                name, estimator, [data[i] for i in chunk],
                [splits[i] for i in chunk], scorer, digest,
            ))  # fmt: skip
            names.extend([name] * len(chunk))
    # No more workers than jobs (n_jobs=1024 would start 1024 processes).
    workers = min(effective_n_jobs(n_jobs), len(jobs)) if jobs else 1
    rows = [row for part in Parallel(n_jobs=workers)(jobs) for row in part]
    return list(zip(names, rows, strict=True))


def _fit_baseline_on(name, estimator, data, splits, scorer, digest):
    """:func:`fit_baseline` on each of ``splits`` in turn (one job)."""
    return [
        fit_baseline(name, estimator, part, split, scorer, digest)
        for part, split in zip(data, splits, strict=True)
    ]

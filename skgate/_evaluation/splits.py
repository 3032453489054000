"""The cross-validation splits of an evaluation, each with its models' seed,
and a scores table's share of test rows per split."""

import warnings
from collections.abc import Sized
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.model_selection import (
    GroupKFold,
    KFold,
    StratifiedGroupKFold,
    StratifiedKFold,
    check_cv,
)

from .. import _options
from .data import as_written


class _Split(NamedTuple):
    """One cross-validation split: its repeat and fold, its rows, and the
    seed its models start from (the same for every arm)."""

    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray
    seed: int


def describe_cv(cv):
    """``cv`` as a message shows it: an int or a splitter as written, an
    iterable of splits by its type and length (not every index array)."""
    if isinstance(cv, Integral) and not isinstance(cv, bool):
        return str(int(cv))
    if cv is None or hasattr(cv, "split") or isinstance(cv, str | Real):
        return repr(cv)
    if isinstance(cv, Sized):
        return f"<{type(cv).__name__} of {len(cv)} splits>"
    return f"<{type(cv).__name__}>"


def checked_cv(cv):
    """``cv`` (None: :data:`skgate.compare.DEFAULT_CV`) if it is an int >= 2, a splitter
    or an iterable of splits; a text, a bool or a float is refused."""
    if cv is None:
        return _options.COMPARE_CV
    fractional = isinstance(cv, Real) and not isinstance(cv, Integral)
    if isinstance(cv, bool | str | bytes) or fractional:
        raise TypeError(
            f"cv must be an int >= 2, a splitter or an iterable of (train, test) "
            f"index arrays; got {cv!r}."
        )
    if isinstance(cv, Integral) and cv < 2:
        raise ValueError(f"cv must be >= 2 folds; got {cv}.")
    return cv


def cv_splits(X, y, task, cv, n_repeats, random_state, groups):
    """Every split (:class:`_Split`): repeated (stratified, grouped when
    ``groups`` are given) k-fold for an int ``cv``, else the splitter's own
    splits (one repeat); each with its models' seed from ``random_state``."""
    cv = checked_cv(cv)
    name = describe_cv(cv)
    if isinstance(cv, Integral):
        _check_int_cv(cv, y, task, groups)
        repeats = _options.COMPARE_REPEATS if n_repeats is None else n_repeats
        splitters = list(_repeated_splits(task, cv, repeats, random_state, groups))
    else:
        if n_repeats not in (None, 1):
            raise ValueError(
                f"n_repeats={n_repeats} needs an int cv (repeated k-fold); a "
                "splitter gives its own splits: set n_repeats=1."
            )
        splitters = [(check_cv(cv, y, classifier=task == "classification"), groups)]
    rows = []
    for repeat, (splitter, grouping) in enumerate(splitters):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # e.g. a class smaller than the folds
                folds = list(splitter.split(X, y, grouping))
        except (ValueError, UserWarning) as exc:
            raise ValueError(f"cv={name} cannot split these rows: {exc}") from exc
        except TypeError as exc:  # e.g. an iterable of numbers, not of splits
            raise TypeError(
                f"cv must be an int >= 2, a splitter or an iterable of (train, "
                f"test) index arrays; got cv={name} ({exc})."
            ) from exc
        rows += [
            (repeat, fold, _indices(train, len(y), name), _indices(test, len(y), name))
            for fold, (train, test) in enumerate(folds)
        ]
    seeds = _model_seeds(random_state, len(rows))
    splits = [_Split(*row, int(seed)) for row, seed in zip(rows, seeds, strict=True)]
    if len(splits) < 2:
        raise ValueError(
            f"cv={name} gives {len(splits)} split; paired tests need at least 2."
        )
    for repeat, fold, train, test, _ in splits:
        if len(train) == 0 or len(test) == 0:
            raise ValueError(
                f"cv={name}: split (repeat {repeat}, fold {fold}) has "
                f"{len(train)} training and {len(test)} test rows; each needs "
                "at least 1."
            )
        shared = len(np.intersect1d(train, test))
        if shared:
            raise ValueError(
                f"cv={name}: split (repeat {repeat}, fold {fold}) has {shared} "
                "rows in both its training and its test rows; a row must be in "
                "one or the other (a tested row that was trained on leaks)."
            )
        if task == "classification" and len(np.unique(y[train])) < 2:
            raise ValueError(
                f"cv={name}: the training rows of split (repeat {repeat}, fold "
                f"{fold}) hold one class; a classifier needs at least 2."
            )
    return splits


def _check_int_cv(cv, y, task, groups):
    """Refuse an int ``cv`` these rows cannot fill: more folds than rows,
    groups, or (stratified) rows of the smallest class."""
    n_groups = None if groups is None else len(np.unique(groups))
    if n_groups is not None and n_groups < cv:
        raise ValueError(
            f"cv={cv} folds need at least {cv} groups; groups has {n_groups}."
        )
    if task == "classification":
        labels, counts = np.unique(y, return_counts=True)
        if counts.min() < cv:
            raise ValueError(
                f"cv={cv} stratified folds need at least {cv} rows of every "
                f"class; class {as_written(labels[counts.argmin()])!r} has "
                f"{counts.min()}: lower cv, or drop or merge that class."
            )
    elif len(y) < cv:
        raise ValueError(f"cv={cv} folds need at least {cv} rows; y has {len(y)}.")


def _repeated_splits(task, cv, n_repeats, random_state, groups):
    """Repeated (stratified, or group) k-fold: each repeat shuffled anew."""
    if groups is not None:
        kind = StratifiedGroupKFold if task == "classification" else GroupKFold
    else:
        kind = StratifiedKFold if task == "classification" else KFold
    seeds = np.random.RandomState(random_state).randint(2**31 - 1, size=n_repeats)
    for seed in seeds:
        yield kind(n_splits=cv, shuffle=True, random_state=seed), groups


def _indices(rows, n_rows, cv_name):
    """A split's rows as integer indices (a boolean mask is converted),
    checked against the number of rows; ``cv_name`` names the splits
    (:func:`describe_cv`)."""
    rows = np.asarray(rows)
    if rows.dtype == bool:
        if len(rows) != n_rows:
            raise ValueError(
                f"cv={cv_name}: a boolean mask of {len(rows)} rows for {n_rows} rows."
            )
        return np.flatnonzero(rows)
    if rows.size and rows.dtype.kind not in "iu":
        raise ValueError(
            f"cv={cv_name}: split indices must be integers or boolean masks; got "
            f"dtype {rows.dtype}."
        )
    rows = rows.astype(np.intp).ravel()
    if rows.size and (rows.min() < 0 or rows.max() >= n_rows):
        raise ValueError(
            f"cv={cv_name}: split indices must lie in [0, {n_rows}); got "
            f"{rows.min()} to {rows.max()}."
        )
    return rows


def _model_seeds(random_state, n_splits):
    """One seed per split, the same for every arm: each split's models start
    from their own initialisation (so that the split-to-split spread holds
    the initialisation's variance, and a verdict is about the gates, not
    about one draw of weights per arm), paired across arms. Drawn from
    ``random_state`` apart from the splits' shuffles."""
    entropy = None if random_state is None else [int(random_state), 35]
    return np.random.default_rng(entropy).integers(0, 2**31 - 1, size=n_splits)


def split_test_fraction(scores):
    """A split's share of test rows (the correlation between splits the
    corrected tests assume), from the table's n_train and n_test: each a
    whole number >= 1 on every row."""
    n_test, n_train = _sizes(scores, "n_test"), _sizes(scores, "n_train")
    return float(n_test.mean() / (n_test.mean() + n_train.mean()))


def _sizes(scores, column):
    """``scores[column]`` (n_train or n_test) as floats, after checking
    that it holds whole numbers >= 1: a split without test rows would make
    the corrected test the uncorrected one."""
    values = numeric_column(scores, column)
    bad = (values < 1) | (values != np.round(values))
    if bad.any():
        row = scores[bad.to_numpy()].iloc[0]
        raise ValueError(
            f"scores' {column!r} column holds {as_written(row[column])!r} for arm "
            f"{row['arm']!r} on split (repeat {row['repeat']}, fold "
            f"{row['fold']}); every split needs at least 1 row of each kind "
            "(n_train and n_test are whole numbers >= 1)."
        )
    return values


def numeric_column(scores, column):
    """``scores[column]`` as floats, after checking that it holds finite
    numbers (not text, not bools)."""
    values = scores[column].infer_objects()
    if values.dtype.kind not in "iuf":
        raise TypeError(
            f"scores' {column!r} column has dtype {scores[column].dtype}; it must "
            f"hold numbers (an int or float dtype): convert it first, e.g. "
            f"scores.astype({{{column!r}: float}})."
        )
    values = values.astype(np.float64)
    if not np.isfinite(values).all():
        row = scores[~np.isfinite(values)].iloc[0]
        raise ValueError(
            f"scores' {column!r} column holds {as_written(row[column])!r} for arm "
            f"{row['arm']!r} on split (repeat {row['repeat']}, fold "
            f"{row['fold']}); every value must be a finite number."
        )
    return values

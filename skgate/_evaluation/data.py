"""The data of an evaluation, checked: X (a table, or series), y and its
task, the groups; and series laid out once for every split's model."""

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.validation import check_array, check_consistent_length

from .. import _options, _series


def infer_task(y, task=None):
    """The task compare_gates runs on ``y``: ``task`` if given, else read
    from ``y`` as scikit-learn's ``type_of_target`` reads it (fractional
    numbers: regression; text, bools and whole numbers: classes; the rule
    the command line reads a CSV's target by), except that whole
    numbers with more than :data:`skgate.compare.MAX_INFERRED_CLASSES`
    distinct values are refused (is 214 the number of classes, or a
    measurement?).

    Examples
    --------
    >>> infer_task([0.5, 1.25, 2.0]), infer_task(["a", "b", "a"])
    ('regression', 'classification')
    """
    if task is not None:
        if task not in _options.TASKS:
            raise ValueError(
                f"task must be one of {list(_options.TASKS)} or None; got {task!r}."
            )
        return task
    y = np.asarray(y)
    if y.size == 0:
        raise ValueError(
            f"y is empty (shape {y.shape}): no target to read a task from; "
            f"allowed: at least one value (or task='classification' or "
            f"'regression')."
        )
    _check_finite(y)
    task = _options.read_task(y)
    if task is None:
        raise ValueError(
            f"y is numeric with {len(np.unique(y))} distinct values: pass "
            "task='regression' to predict it as a number, or "
            "task='classification' to treat each value as a class."
        )
    return task


def check_X(X, preprocessor):
    X = _series.as_collection(X)
    if _series.is_series(X):
        # Series (a 3-D array, or a list of unequal ones): the estimators
        # read them; a preprocessor sees each split's series as given.
        if preprocessor is None:
            series = _series.check_series(X)
            return np.stack(series) if getattr(X, "ndim", 0) == 3 else series
        check_X(None, preprocessor)
        return X
    if preprocessor is not None:  # it makes the numbers, fold by fold
        if isinstance(preprocessor, type):
            raise TypeError(
                f"preprocessor must be a transformer instance; got the class "
                f"{preprocessor.__name__}: pass an instance, e.g. "
                f"{preprocessor.__name__}()."
            )
        if not (hasattr(preprocessor, "fit") and hasattr(preprocessor, "transform")):
            raise TypeError(
                f"preprocessor must be a scikit-learn transformer (with fit and "
                f"transform); got {preprocessor!r}."
            )
        return X
    try:
        return check_array(X, dtype=np.float64, input_name="X")
    except ValueError as exc:
        if "convert" not in str(exc):
            raise
        raise ValueError(
            f"X holds values that are not numbers ({exc}); compare_gates needs "
            "numbers, or preprocessor= (e.g. a ColumnTransformer with a "
            "OneHotEncoder), fitted on each split's training rows."
        ) from exc


def laid_out(X, estimator, preprocessor):
    """Series laid out once, as ``estimator`` lays them out for the longest
    of them all (:class:`skgate._series.SeriesRows`), so that every split's
    model takes every series of its test part; anything else as given (a
    preprocessor makes each split's input itself)."""
    if preprocessor is not None or not _series.is_series(X):
        return X
    return clone(estimator)._validate_X(X, reset=True)


def check_data(X, y, task, groups, preprocessor):
    if _series.is_multiindex(X) and len(X) != len(np.asarray(y).reshape(-1)):
        # aeon's (case, time point) rows: named, as the estimators name it.
        raise _series.multiindex_error(X, f"and y has {len(y)} labels")
    X = check_X(X, preprocessor)
    y, task = _check_y(y, task)
    check_consistent_length(X, y)
    if groups is not None:
        groups = np.asarray(groups)
        if groups.ndim != 1:
            raise ValueError(
                f"groups must be 1-D (one label per row); got shape {groups.shape}."
            )
        if groups.dtype.kind in "fc" and not np.isfinite(groups).all():
            raise ValueError("groups contains NaN or infinity; give every row a group.")
        if groups.dtype.kind == "O":
            _check_group_labels(groups)
        if len(groups) != len(y):
            raise ValueError(
                f"groups has {len(groups)} labels; X has {len(y)} rows: give one "
                "group label per row."
            )
    return X, y, task, groups


def _check_group_labels(groups):
    """Refuse labels of an object array that are missing (None, NaN) or
    cannot be ordered (the group splitters sort them)."""
    missing = np.flatnonzero(pd.isna(groups))
    if missing.size:
        raise ValueError(
            f"groups contains {groups[missing[0]]!r} (row {missing[0]}); give every "
            "row a group label (numbers or strings, not a missing value)."
        )
    try:
        np.unique(groups)
    except TypeError as exc:
        raise TypeError(
            f"groups mixes label types that cannot be ordered ({exc}); give every "
            "group label one type."
        ) from exc


def _check_finite(y):
    """Refuse a numeric ``y`` holding NaN or infinity."""
    if y.dtype.kind in "fc" and not np.isfinite(y).all():
        raise ValueError("y contains NaN or infinity; every target must be finite.")


def _check_y(y, task):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D (one target per row); got shape {y.shape}.")
    _check_finite(y)
    try:
        classes = np.unique(y)
    except TypeError as exc:
        raise TypeError(
            f"y mixes label types that cannot be ordered ({exc}); give every label "
            "one type."
        ) from exc
    task = infer_task(y, task)
    if task == "classification" and len(classes) < 2:
        raise ValueError(
            f"y has one class ({as_written(classes[0])!r}); a classifier needs at "
            "least 2."
        )
    if task == "regression":
        if y.dtype.kind not in "iuf":
            raise ValueError(f"task='regression' needs numeric y; got dtype {y.dtype}.")
        if np.ptp(y) == 0:
            raise ValueError(
                f"y is constant ({as_written(y[0])!r}); R^2 is undefined and there is "
                "nothing to predict."
            )
        with np.errstate(over="ignore"):
            beyond = not np.isfinite(y.astype(np.float32)).all()
        if beyond:
            raise ValueError(
                "y has values beyond float32's range (about 3.4e38), in which the "
                "regressor trains; rescale y."
            )
    return y, task


def as_written(value):
    """A class label as the user wrote it (not numpy's repr)."""
    return value.item() if isinstance(value, np.generic) else value

"""compare_gates' design and its checks: the task, the data, the gates and
alphas, the scoring, the cross-validation splits, the estimators of the arms.
"""

import warnings
from collections.abc import Iterable, Sized
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone, is_classifier
from sklearn.metrics import check_scoring, get_scorer, r2_score
from sklearn.model_selection import (
    GroupKFold,
    KFold,
    StratifiedGroupKFold,
    StratifiedKFold,
    check_cv,
)
from sklearn.utils.validation import check_array, check_consistent_length

from .. import _options, _series, paired
from .._checks import check_count, check_random_state
from ..command import n_jobs_problem
from ..estimators import GatedAttentionClassifier, GatedAttentionRegressor
from ..geometry import _INTRINSIC_KINDS
from ..model_selection import make_curvature_scorer
from ..nn import GATES

#: Equivalence margins ("no effect" within them), the reproduction study's
#: smallest differences of interest: a score difference of 0.02, a curvature
#: difference of this share of the two arms' mean.
SCORE_MARGIN = paired.SCORE_MARGIN


#: The curvature margin as a share of the two arms' mean curvature.
CURVATURE_MARGIN_SHARE = paired.CURVATURE_MARGIN_SHARE


#: The tests of a paired difference: for cross-validation splits (the
#: default) and for independent replicates.
TESTS = _options.TESTS


#: The default design: 10 x 10 cross-validation, the design for which
#: Bouckaert & Frank (2004) found the corrected resampled t-test most
#: replicable. Under the corrected test the variance of a mean difference is
#: about tau^2 (1 + (k - 1) / (k r)) for k folds and r repeats (tau^2 the
#: variance with every row tested once): 1.09 tau^2 at 10 x 10, against 1.8
#: at 5 x 1 and 1.4 at 5 x 2, on 99 degrees of freedom instead of 4 or 9.
#: More repeats cannot manufacture significance: the variance never falls
#: below tau^2 (benchmarks/bench_compare.py measures the time).
DEFAULT_CV, DEFAULT_REPEATS = _options.COMPARE_CV, _options.COMPARE_REPEATS


#: The most repeats of the k-fold (1000, the ``compare`` command's cap, one
#: fact): far beyond what the corrected test can use (its variance never
#: falls below tau^2), so that a typo (10**9) is refused at once instead of
#: hanging while the splits are drawn.
MAX_REPEATS = _options.MAX_REPEATS


#: The posterior probability at which the recommendation names a gate (or a
#: set of equivalent gates) as the best.
DECISION_PROBABILITY = 0.95


#: A numeric target with integer values is read as classes only up to this
#: many distinct values; beyond, ``task`` must say what it is.
MAX_INFERRED_CLASSES = _options.MAX_INFERRED_CLASSES


_CURVATURE_NAMES = {
    "acceleration": "acceleration",
    "extrinsic": "extrinsic curvature",
    "turning": "turning rate",
    "gaussian": "Gaussian curvature",
    "scalar": "scalar curvature",
}


#: compare_gates' own keywords: never estimator parameters.
_OWN = ("gate", "verbose")


def infer_task(y, task=None):
    """The task compare_gates runs on ``y``: ``task`` if given, else read
    from ``y`` as scikit-learn's ``type_of_target`` reads it (fractional
    numbers: regression; text, bools and whole numbers: classes; the rule
    the command line reads a CSV's target by), except that whole
    numbers with more than :data:`MAX_INFERRED_CLASSES` distinct values are
    refused (is 214 the number of classes, or a measurement?).

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
            f"y has one class ({_label(classes[0])!r}); a classifier needs at least 2."
        )
    if task == "regression":
        if y.dtype.kind not in "iuf":
            raise ValueError(f"task='regression' needs numeric y; got dtype {y.dtype}.")
        if np.ptp(y) == 0:
            raise ValueError(
                f"y is constant ({_label(y[0])!r}); R^2 is undefined and there is "
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


def check_gates(gates):
    if gates is None or not isinstance(gates, Iterable):
        raise TypeError(
            f"gates must be a sequence of gate names, at least 2 of the registered "
            f"gates {sorted(GATES)}; got {gates!r}."
        )
    if isinstance(gates, str):
        other = "multiplicative" if gates == "none" else "none"
        raise TypeError(
            f"gates must be a sequence of gate names, not one string; got {gates!r} "
            f"(did you mean ({gates!r}, {other!r})?)."
        )
    if isinstance(gates, set | frozenset | dict):
        raise TypeError(
            f"gates must be an ordered sequence (tuple or list): each gate is "
            f"tested against every later one; got a {type(gates).__name__}."
        )
    gates = tuple(str(g) if isinstance(g, np.str_) else g for g in gates)
    unknown = [g for g in gates if not isinstance(g, str) or g not in GATES]
    if len(gates) < 2 or unknown:
        raise ValueError(
            f"gates must name at least 2 of the registered gates {sorted(GATES)}; "
            f"got {list(gates)!r}."
        )
    twice = sorted({g for g in gates if gates.count(g) > 1})
    if twice:
        raise ValueError(
            f"gates names {twice[0]!r} twice; each gate is one arm (give several "
            "strengths with alphas=)."
        )
    return gates


def check_alphas(alphas, gates):
    if alphas is None:
        return None
    values = list(np.atleast_1d(np.asarray(alphas, dtype=object)))
    if not all(isinstance(a, Real) and not isinstance(a, bool) for a in values):
        raise TypeError(f"alphas must be numbers; got {alphas!r}.")
    values = [float(a) for a in values]
    if not values or not all(np.isfinite(a) and a >= 0 for a in values):
        raise ValueError(f"alphas must be finite numbers >= 0; got {alphas!r}.")
    if len(set(values)) < len(values):
        raise ValueError(f"alphas holds a value twice; got {alphas!r}.")
    if not any(GATES[g].strength for g in gates):
        raise ValueError(
            f"alphas apply only to a gate that has a strength (gate "
            f"'multiplicative', or one registered with strength=True); none of "
            f"{list(gates)} has one, so alphas={alphas!r} would change nothing."
        )
    return tuple(values)


def checked_scorer(scoring, estimator):
    if isinstance(scoring, list | tuple | set | dict):
        raise ValueError(
            f"scoring must be one metric (a string or a callable); got "
            f"{type(scoring).__name__} {scoring!r}: the tests compare one "
            "score (run once per metric)."
        )
    try:
        scorer = check_scoring(estimator, scoring=scoring)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"scoring={scoring!r}: {exc}") from exc
    _check_scoring_task(
        scoring, "classification" if is_classifier(estimator) else "regression"
    )
    return scorer


#: The task of each module of scikit-learn's metrics a scorer's function
#: lives in (clustering and unknown functions are not checked).
_METRIC_TASKS = {
    "sklearn.metrics._regression": "regression",
    "sklearn.metrics._classification": "classification",
    "sklearn.metrics._ranking": "classification",
}


def _check_scoring_task(scoring, task):
    """Refuse a scikit-learn metric of the other task (R^2 of class labels,
    accuracy of a regression), by its scorer's function; a callable that is
    not make_scorer's is left alone."""
    scorer = get_scorer(scoring) if isinstance(scoring, str) else scoring
    function = getattr(scorer, "_score_func", None)
    kind = _METRIC_TASKS.get(getattr(function, "__module__", None))
    if kind is None or kind == task:
        return
    given = (
        repr(scoring)
        if isinstance(scoring, str)
        else f"make_scorer({getattr(function, '__name__', function)})"
    )
    example = "'accuracy'" if task == "classification" else "'r2'"
    raise ValueError(
        f"scoring={given} is a {kind} metric; the task is {task!r}: use a "
        f"{task} metric (e.g. {example})."
    )


#: Scorers whose values lie in [0, 1], so that a difference of two lies in
#: [-1, 1] (by name, or by a name's start).
_UNIT_SCORES = ("accuracy", "balanced_accuracy", "average_precision",
                "top_k_accuracy")  # fmt: skip
_UNIT_PREFIXES = ("roc_auc", "f1", "precision", "recall", "jaccard")


def score_difference_range(scoring, task):
    """``(-1, 1)`` when ``scoring`` lies in [0, 1] (the default accuracy, or
    a scikit-learn scorer of such a metric, by name), else None (R^2 and
    the errors are unbounded below; a callable's range is unknown)."""
    if scoring is None:
        return (-1.0, 1.0) if task == "classification" else None
    if isinstance(scoring, str) and (
        scoring in _UNIT_SCORES or scoring.startswith(_UNIT_PREFIXES)
    ):
        return (-1.0, 1.0)
    return None


def check_margin_for(margin, scoring, task):
    """Refuse a ``margin`` above 1 for a score of at most 1 (the default
    accuracy or R^2, or a scorer of a metric in [0, 1]): within it every two
    arms would be called equivalent. The command line's ``--margin`` has the
    same bound; a callable's scale is unknown, so it takes any margin."""
    if margin > 1 and (scoring is None or score_difference_range(scoring, task)):
        name = scoring_name(scoring, task)
        raise ValueError(
            f"margin must be in (0, 1] for {name} (a score of at most 1: a "
            f"margin above 1 calls every two arms equivalent); got {margin:g}."
        )
    return margin


def scoring_name(scoring, task):
    if scoring is None:
        return "accuracy" if task == "classification" else "R^2"
    if isinstance(scoring, str):
        return scoring
    function = getattr(scoring, "_score_func", scoring)  # make_scorer's scorers
    return getattr(function, "__name__", "score")


def curvature_label(params, *, magnitude=False):
    """The curvature ``params`` measure, by name; with ``magnitude``, what
    the tests compare: |name| for the kinds that take either sign (a flat
    arm is less curved than a negatively curved one)."""
    name = _CURVATURE_NAMES.get(params.get("kind"), str(params.get("kind")))
    if magnitude and params.get("kind") in _INTRINSIC_KINDS:
        name = f"|{name}|"
    extra = {k: v for k, v in params.items() if k != "kind"}
    if not extra:
        return name
    return f"{name} ({', '.join(f'{k}={v!r}' for k, v in sorted(extra.items()))})"


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
                f"class; class {_label(labels[counts.argmin()])!r} has "
                f"{counts.min()}: lower cv, or drop or merge that class."
            )
    elif len(y) < cv:
        raise ValueError(f"cv={cv} folds need at least {cv} rows; y has {len(y)}.")


class _Split(NamedTuple):
    """One cross-validation split: its repeat and fold, its rows, and the
    seed its models start from (the same for every arm)."""

    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray
    seed: int


def _label(value):
    """A class label as the user wrote it (not numpy's repr)."""
    return value.item() if isinstance(value, np.generic) else value


def _repeated_splits(task, cv, n_repeats, random_state, groups):
    """Repeated (stratified, or group) k-fold: each repeat shuffled anew."""
    if groups is not None:
        kind = StratifiedGroupKFold if task == "classification" else GroupKFold
    else:
        kind = StratifiedKFold if task == "classification" else KFold
    seeds = np.random.RandomState(random_state).randint(2**31 - 1, size=n_repeats)
    for seed in seeds:
        yield kind(n_splits=cv, shuffle=True, random_state=seed), groups


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
    """``cv`` (None: :data:`DEFAULT_CV`) if it is an int >= 2, a splitter
    or an iterable of splits; a text, a bool or a float is refused."""
    if cv is None:
        return DEFAULT_CV
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
        repeats = DEFAULT_REPEATS if n_repeats is None else n_repeats
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


def _scores_r2(scoring, task):
    """Whether ``scoring`` is R^2 (by name, by make_scorer, or as the
    default of a regression)."""
    if scoring is None:
        return task == "regression"
    if isinstance(scoring, str):
        return scoring == "r2"
    return getattr(scoring, "_score_func", None) is r2_score


def check_test_rows(splits, scoring, task, cv):
    """Refuse, before any training, a split whose test rows cannot be
    scored: R^2 is undefined on a single test row."""
    if not _scores_r2(scoring, task):
        return
    sizes = np.array([len(split.test) for split in splits])
    if (sizes < 2).any():
        repeat, fold = splits[int(np.argmin(sizes))][:2]
        raise ValueError(
            f"cv={describe_cv(cv)}: split (repeat {repeat}, fold {fold}) has "
            f"{sizes.min()} test row; R^2 needs at least 2 on every split (it is "
            "undefined on one): use fewer folds, or splits of 2 or more test rows."
        )


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


def make_arms(gates, alphas):
    """(gate, alpha or None, label) per arm: alphas apply to gates with a
    strength, and label them (one alpha too: "multiplicative (alpha=0)" is
    ungated, which the gate's name alone would hide); labels stay unique
    however close two alphas are."""
    texts = None
    if alphas is not None:
        texts = [f"{a:g}" for a in alphas]
        if len(set(texts)) < len(texts):
            texts = [repr(a) for a in alphas]
    arms = []
    for gate in gates:
        if texts is not None and GATES[gate].strength:
            for alpha, text in zip(alphas, texts, strict=True):
                arms.append((gate, alpha, f"{gate} (alpha={text})"))
        else:
            arms.append((gate, None, gate))
    return arms


def check_margin(margin):
    if margin is None:
        return SCORE_MARGIN
    if isinstance(margin, bool) or not isinstance(margin, Real):
        raise TypeError(f"margin must be a number > 0; got {margin!r}.")
    if not (np.isfinite(margin) and margin > 0):
        raise ValueError(f"margin must be a finite number > 0; got {margin!r}.")
    return float(margin)


def make_estimators(task, arms, params):
    kind = (
        GatedAttentionClassifier
        if task == "classification"
        else GatedAttentionRegressor
    )
    unknown = sorted(set(params) - set(kind._get_param_names()))
    if unknown:  # the constructor's own error names neither caller nor choices
        raise TypeError(
            f"unexpected keyword argument(s) {unknown}: besides its own, the "
            f"comparison takes {kind.__name__}'s parameters "
            f"{sorted(set(kind._get_param_names()) - {'gate', 'alpha'})}."
        )
    estimators = []
    for gate, alpha, label in arms:
        estimator = kind(gate, **({} if alpha is None else {"alpha": alpha}), **params)
        try:
            estimator._validate_params()  # a bad estimator parameter fails here
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"estimator_params: {exc}") from exc
        if alpha is None and GATES[gate].strength:
            alpha = float(estimator.alpha)  # the strength it trains with
        estimators.append(((gate, alpha, label), estimator))
    return estimators


def _warn_if_undecidable(test, splits, n_tests, cv):
    n_splits, n_repeats = len(splits), splits[-1].repeat + 1
    floor = paired.smallest_p(test, n_splits)
    if n_tests * floor >= paired.ALPHA_LEVEL:
        warnings.warn(
            f"test={test!r} on cv={describe_cv(cv)} x n_repeats={n_repeats} "
            f"({n_splits} splits) cannot reach the Holm level: its smallest p is "
            f"{floor:.3g}, {min(1.0, n_tests * floor):.3g} after Holm over "
            f"{n_tests} tests (level {paired.ALPHA_LEVEL:g}). Use more splits "
            "(cv, n_repeats) or test='corrected-t'.",
            UserWarning,
            stacklevel=3,
        )


def check_options(
    random_state, n_repeats, test, margin, alphas, verbose, n_jobs, estimator_params
):
    """The scalar options, checked; returns the score margin."""
    check_random_state(random_state)
    check_count("verbose", verbose, 0)
    problem = None if n_jobs is None else n_jobs_problem(n_jobs, "n_jobs")
    if problem is not None:
        raise ValueError(problem.replace("must be a", "must be None or a", 1))
    if n_repeats is not None:
        check_count("n_repeats", n_repeats, 1, MAX_REPEATS)
    epochs = estimator_params.get("max_epochs")
    if isinstance(epochs, Integral) and not isinstance(epochs, bool) and epochs == 0:
        raise ValueError(
            "max_epochs must be >= 1 in compare_gates (0 trains nothing, and the "
            "verdict would be about untrained models); got 0."
        )
    if test not in TESTS:
        raise ValueError(f"test must be one of {list(TESTS)}; got {test!r}.")
    own = sorted(k for k in _OWN if k in estimator_params)
    if own or ("alpha" in estimator_params and alphas is not None):
        name = own[0] if own else "alpha"
        raise TypeError(
            f"{name!r} is not an estimator parameter here: the gates are "
            "gates=, their strengths alphas=."
        )
    return check_margin(margin)


def check_curvature_params(curvature_params):
    """The curvature keywords with the turning rate by default, checked
    before anything trains."""
    if curvature_params is not None and not isinstance(curvature_params, dict):
        raise TypeError(
            f"curvature_params must be a dict of representation_curvature "
            f"keywords; got {curvature_params!r}."
        )
    params = {"kind": "turning", **(curvature_params or {})}
    try:
        make_curvature_scorer(**params)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"curvature_params={params!r}: {exc}") from exc
    return params


def shared_params(estimator):
    """Every arm's estimator parameters but its gate and strength."""
    params = estimator.get_params()
    return {k: v for k, v in params.items() if k not in ("gate", "alpha")}


def _model_seeds(random_state, n_splits):
    """One seed per split, the same for every arm: each split's models start
    from their own initialisation (so that the split-to-split spread holds
    the initialisation's variance, and a verdict is about the gates, not
    about one draw of weights per arm), paired across arms. Drawn from
    ``random_state`` apart from the splits' shuffles."""
    entropy = None if random_state is None else [int(random_state), 35]
    return np.random.default_rng(entropy).integers(0, 2**31 - 1, size=n_splits)

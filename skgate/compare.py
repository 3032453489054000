"""compare_gates: does gating help on *your* data, and which gate should you use?

Every gate (and alpha) is trained on the same cross-validation splits, scored
on held-out accuracy or R^2 (or ``scoring``) and on the curvature of its
representation (the scale-free turning rate by default), and every pair of
arms is tested with statistics right for splits that share training rows
(:mod:`skgate.paired`, shared with the reproduction study): the corrected
resampled t-test with Holm over the table, and beside it the Bayesian
correlated t-test, whose joint posterior also picks the gate to use.
"""

import html
import time
import warnings
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from itertools import combinations
from numbers import Integral, Real
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy.sparse import issparse
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.metrics import check_scoring
from sklearn.model_selection import (
    GroupKFold,
    KFold,
    StratifiedGroupKFold,
    StratifiedKFold,
    check_cv,
)
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.utils import _safe_indexing
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_array, check_consistent_length

from . import _options, _series, paired
from ._docstrings import fill_docstring
from ._training import fit_together
from .command import CsvProblem, header_problem
from .estimators import GatedAttentionClassifier, GatedAttentionRegressor
from .model_selection import make_curvature_scorer, representation_curvature
from .nn import GATES

__all__ = [
    "CURVATURE_MARGIN_SHARE",
    "DECISION_PROBABILITY",
    "DEFAULT_CV",
    "DEFAULT_REPEATS",
    "MAX_INFERRED_CLASSES",
    "SCORE_MARGIN",
    "TESTS",
    "GateComparison",
    "Recommendation",
    "compare_gates",
    "gate_tests",
    "infer_task",
    "compare_csv",
    "CsvProblem",
]

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

#: The posterior probability at which the recommendation names a gate (or a
#: set of equivalent gates) as the best.
DECISION_PROBABILITY = 0.95

#: A numeric target with integer values is read as classes only up to this
#: many distinct values; beyond, ``task`` must say what it is.
MAX_INFERRED_CLASSES = _options.MAX_INFERRED_CLASSES

_TASKS = ("classification", "regression")
_CURVATURE_NAMES = {
    "acceleration": "acceleration",
    "extrinsic": "extrinsic curvature",
    "turning": "turning rate",
    "gaussian": "Gaussian curvature",
    "scalar": "scalar curvature",
}
#: compare_gates' own keywords: never estimator parameters.
_OWN = ("gate", "verbose")


@dataclass(frozen=True)
class Recommendation:
    """Which arm to use, from the joint posterior of the arms' mean scores.

    Attributes
    ----------
    arms : tuple of str
        The recommended arm, or the arms equivalent within the margin (the
        least curved first).
    probability : float
        The posterior probability that each of ``arms`` is the best or
        within the margin of the best.
    decided : bool
        Whether ``probability`` reaches :data:`DECISION_PROBABILITY`.
    margin : float
        The score margin.
    probabilities : dict
        Every arm's probability of being the best or within the margin of it.
    """

    arms: tuple
    probability: float
    decided: bool
    margin: float
    probabilities: dict = field(repr=False)

    def __str__(self):
        p, m = _probability(self.probability), f"{self.margin:g}"
        if len(self.arms) > 1:
            return (
                f"any of {', '.join(self.arms)}: equivalent within {m} "
                f"(probability {p} that each is the best or within {m} of it); "
                f"the least curved is {self.arms[0]}"
            )
        if self.decided:
            return (
                f"use {self.arms[0]} (probability {p} that it is the best or "
                f"within {m} of it)"
            )
        return (
            f"use {self.arms[0]}, the likeliest to be the best or within {m} of it "
            f"(probability {p}, below {DECISION_PROBABILITY:g}: the data do not "
            "settle it)"
        )


class _Verdict:
    """What a result with ``verdict_`` and ``tests_`` shows: the tests'
    columns ``_SHOWN`` as a DataFrame, as text under the verdict, and as
    HTML (``_html_extra`` adds to it)."""

    _SHOWN = ()

    def summary(self):
        """The tests as a DataFrame: the columns a reader needs, from the
        comparison to the outcome."""
        return self.tests_[list(self._SHOWN)].copy()

    def __str__(self):
        return f"{self.verdict_}\n\n{self.summary().to_string(index=False)}"

    def _html_extra(self):
        return ""

    def _repr_html_(self):
        table = self.summary().to_html(
            index=False, float_format=lambda v: f"{v:.4g}", border=0
        )
        return (
            f"<div><p><b>{html.escape(self.verdict_)}</b></p>{table}"
            f"{self._html_extra()}</div>"
        )


@dataclass(eq=False)
class GateComparison(_Verdict):
    """What :func:`compare_gates` found.

    ``str(result)`` is the verdict and the tests as text; in a notebook the
    result shows the verdict and the tests table; :meth:`summary` gives the
    table as a DataFrame and :meth:`plot` draws it.

    Attributes
    ----------
    scores_ : pandas.DataFrame
        One row per arm (gate, alpha) x repeat x fold: "n_train", "n_test"
        (the split's rows), "model_seed" (the split's models' seed, the same
        for every arm; drawn from ``random_state``), "score" (held-out),
        "curvature" (the mean
        curvature of the representation on the held-out rows, measured as
        ``settings_["curvature"]`` names), "fit_time" (seconds; the arm's
        share of its batch), "curvature measure" (what "curvature" is).
    tests_ : pandas.DataFrame
        One row per comparison ("multiplicative > none") and measure
        ("score", "curvature"; "measured as" names them): the paired (by
        split) mean difference, its interval (the lower bound at the one-sided
        level "ci low level", the upper at "ci high level": Holm's step
        levels, so that the interval excludes 0 exactly where a difference
        holds or is reversed), one-sided p-values both ways
        and an equivalence p-value within the margin, each Holm-adjusted
        over the whole table, the Bayesian correlated t-test's probabilities
        (better, equivalent within the margin, worse), and the outcome
        (holds, reversed, no effect, inconclusive).
    verdict_ : str
        Every pair of arms in score and in curvature, then the
        recommendation.
    recommendation_ : Recommendation
        The arm (or arms) to use, with its probability.
    task_ : str
        "classification" or "regression".
    settings_ : dict
        The design, the test, the margins, the measures and the package
        versions, as a report should record them.
    """

    scores_: pd.DataFrame
    tests_: pd.DataFrame
    verdict_: str
    recommendation_: Recommendation
    task_: str
    settings_: dict = field(default_factory=dict)

    _SHOWN = (
        "comparison",
        "measured as",
        "mean difference",
        "ci low",
        "ci high",
        "p holm",
        "probability better",
        "probability equivalent",
        "probability worse",
        "outcome",
    )

    def __repr__(self):
        arms = list(dict.fromkeys(self.scores_["arm"]))
        return (
            f"GateComparison(task_={self.task_!r}, arms={arms}, "
            f"splits={self.settings_.get('splits')}, "
            f"recommendation_={str(self.recommendation_)!r})"
        )

    def plot(self, ax=None):
        """Draw the scores, curvatures and differences with their intervals
        (:class:`skgate.inspection.GateComparisonDisplay`)."""
        from .inspection import GateComparisonDisplay

        return GateComparisonDisplay.from_result(self, ax=ax)


def _probability(p):
    if p > 0.99:
        return "> 0.99"
    return "< 0.01" if p < 0.01 else f"{p:.2f}"


def infer_task(y, task=None):
    """The task compare_gates runs on ``y``: ``task`` if given, else read
    from ``y`` as scikit-learn's ``type_of_target`` reads it (fractional
    numbers: regression; text and whole numbers: classes), except that whole
    numbers with more than :data:`MAX_INFERRED_CLASSES` distinct values are
    refused (is 214 the number of classes, or a measurement?).

    Examples
    --------
    >>> infer_task([0.5, 1.25, 2.0]), infer_task(["a", "b", "a"])
    ('regression', 'classification')
    """
    if task is not None:
        if task not in _TASKS:
            raise ValueError(
                f"task must be one of {list(_TASKS)} or None; got {task!r}."
            )
        return task
    y = np.asarray(y)
    kind = type_of_target(y)
    if kind.startswith("continuous"):
        return "regression"
    distinct = len(np.unique(y))
    if y.dtype.kind in "iuf" and distinct > MAX_INFERRED_CLASSES:
        raise ValueError(
            f"y is numeric with {distinct} distinct values: pass "
            "task='regression' to predict it as a number, or "
            "task='classification' to treat each value as a class."
        )
    return "classification"


def _check_X(X, preprocessor):
    X = _series.as_collection(X)
    if _series.is_series(X):
        # Series (a 3-D array, or a list of unequal ones): the estimators
        # read them; a preprocessor sees each split's series as given.
        if preprocessor is None:
            series = _series.check_series(X)
            return np.stack(series) if getattr(X, "ndim", 0) == 3 else series
        _check_X(None, preprocessor)
        return X
    if preprocessor is not None:  # it makes the numbers, fold by fold
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


def _laid_out(X, estimator, preprocessor):
    """Series laid out once, as ``estimator`` lays them out for the longest
    of them all (:class:`skgate._series.SeriesRows`), so that every split's
    model takes every series of its test part; anything else as given (a
    preprocessor makes each split's input itself)."""
    if preprocessor is not None or not _series.is_series(X):
        return X
    return clone(estimator)._validate_X(X, reset=True)


def _check_data(X, y, task, groups, preprocessor):
    X = _check_X(X, preprocessor)
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
        check_consistent_length(X, groups)
    return X, y, task, groups


def _check_y(y, task):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D (one target per row); got shape {y.shape}.")
    if y.dtype.kind in "fc" and not np.isfinite(y).all():
        raise ValueError("y contains NaN or infinity; every target must be finite.")
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


def _check_gates(gates):
    if isinstance(gates, str):
        raise TypeError(
            f"gates must be a sequence of gate names, not one string; got {gates!r} "
            f"(did you mean ({gates!r}, 'none')?)."
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


def _check_alphas(alphas, gates):
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


def _check_scoring(scoring, estimator):
    if isinstance(scoring, list | tuple | set | dict):
        raise ValueError(
            f"scoring must be one metric (a string or a callable); got "
            f"{type(scoring).__name__} {scoring!r}: the tests compare one "
            "score (run once per metric)."
        )
    try:
        return check_scoring(estimator, scoring=scoring)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"scoring={scoring!r}: {exc}") from exc


def _scoring_name(scoring, task):
    if scoring is None:
        return "accuracy" if task == "classification" else "R^2"
    if isinstance(scoring, str):
        return scoring
    function = getattr(scoring, "_score_func", scoring)  # make_scorer's scorers
    return getattr(function, "__name__", "score")


def _curvature_name(params):
    name = _CURVATURE_NAMES.get(params.get("kind"), str(params.get("kind")))
    extra = {k: v for k, v in params.items() if k != "kind"}
    if not extra:
        return name
    return f"{name} ({', '.join(f'{k}={v!r}' for k, v in sorted(extra.items()))})"


def _check_random_state(random_state):
    if random_state is None:
        return
    if isinstance(random_state, bool) or not isinstance(random_state, Integral):
        raise TypeError(
            f"random_state must be None or an int in [0, 2**32 - 1]; got "
            f"{random_state!r}."
        )
    if not 0 <= random_state < 2**32:
        raise ValueError(
            f"random_state must be None or an int in [0, 2**32 - 1]; got "
            f"{random_state}."
        )


def _check_count(name, value, least):
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an int >= {least}; got {value!r}.")
    if value < least:
        raise ValueError(f"{name} must be an int >= {least}; got {value}.")


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


def _splits(X, y, task, cv, n_repeats, random_state, groups):
    """Every split (:class:`_Split`): repeated (stratified, grouped when
    ``groups`` are given) k-fold for an int ``cv``, else the splitter's own
    splits (one repeat); each with its models' seed from ``random_state``."""
    if cv is None:
        cv = DEFAULT_CV
    if isinstance(cv, bool | str | float):
        raise TypeError(
            f"cv must be an int >= 2, a splitter or an iterable of (train, test) "
            f"index arrays; got {cv!r}."
        )
    if isinstance(cv, Integral):
        if cv < 2:
            raise ValueError(f"cv must be >= 2 folds; got {cv}.")
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
            raise ValueError(f"cv={cv!r} cannot split these rows: {exc}") from exc
        rows += [
            (repeat, fold, _indices(train, len(y), cv), _indices(test, len(y), cv))
            for fold, (train, test) in enumerate(folds)
        ]
    seeds = _model_seeds(random_state, len(rows))
    splits = [_Split(*row, int(seed)) for row, seed in zip(rows, seeds, strict=True)]
    if len(splits) < 2:
        raise ValueError(
            f"cv={cv!r} gives {len(splits)} split; paired tests need at least 2."
        )
    for repeat, fold, train, test, _ in splits:
        if len(train) == 0 or len(test) == 0:
            raise ValueError(
                f"cv={cv!r}: split (repeat {repeat}, fold {fold}) has "
                f"{len(train)} training and {len(test)} test rows; each needs "
                "at least 1."
            )
        if task == "classification" and len(np.unique(y[train])) < 2:
            raise ValueError(
                f"cv={cv!r}: the training rows of split (repeat {repeat}, fold "
                f"{fold}) hold one class; a classifier needs at least 2."
            )
    return splits


def _indices(rows, n_rows, cv):
    """A split's rows as integer indices (a boolean mask is converted),
    checked against the number of rows."""
    rows = np.asarray(rows)
    if rows.dtype == bool:
        if len(rows) != n_rows:
            raise ValueError(
                f"cv={cv!r}: a boolean mask of {len(rows)} rows for {n_rows} rows."
            )
        return np.flatnonzero(rows)
    if rows.size and rows.dtype.kind not in "iu":
        raise ValueError(
            f"cv={cv!r}: split indices must be integers or boolean masks; got "
            f"dtype {rows.dtype}."
        )
    rows = rows.astype(np.intp).ravel()
    if rows.size and (rows.min() < -n_rows or rows.max() >= n_rows):
        raise ValueError(
            f"cv={cv!r}: split indices must lie in [0, {n_rows}); got "
            f"{rows.min()} to {rows.max()}."
        )
    return rows % n_rows


def _arms(gates, alphas):
    """(gate, alpha or None, label) per arm: alphas apply to gates with a
    strength; labels stay unique however close two alphas are."""
    texts = None
    if alphas is not None:
        texts = [f"{a:g}" for a in alphas]
        if len(set(texts)) < len(texts):
            texts = [repr(a) for a in alphas]
    arms = []
    for gate in gates:
        if texts is not None and GATES[gate].strength:
            several = len(alphas) > 1
            for alpha, text in zip(alphas, texts, strict=True):
                label = f"{gate} (alpha={text})" if several else gate
                arms.append((gate, alpha, label))
        else:
            arms.append((gate, None, gate))
    return arms


def _dense(X):
    """A float array of ``X`` (a one-hot encoder's output may be sparse);
    series as they are."""
    if _series.is_series(X):
        return X
    return np.asarray(X.toarray() if issparse(X) else X, dtype=np.float64)


def _split_data(X, y, splits, preprocessor):
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
        data.append((_dense(X_train), y[train], _dense(X_test), y[test]))
    return data


def _is_number(value):
    """One real number (a numpy scalar too), not a bool."""
    return isinstance(value, Real | np.number) and not isinstance(value, bool)


def _score(scorer, model, X_test, y_test, label, repeat, fold):
    value = scorer(model, X_test, y_test)
    if not (_is_number(value) and np.isfinite(value)):
        raise ValueError(
            f"the score of arm {label!r} on split (repeat {repeat}, fold {fold}) "
            f"is {value!r}; scoring must return one finite number."
        )
    return float(value)


def _fit_arm(estimator, label, data, splits, scorer, curvature_params):
    """Fit one arm on some splits (as one batched network), each model from
    its split's seed, and score it."""
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
            "score": _score(
                scorer, model, X_test, y_test, label, split.repeat, split.fold
            ),
            "curvature": float(
                representation_curvature(model, X_test, **curvature_params).mean()
            ),
            "fit_time": seconds,
        }
        for model, split, (_, _, X_test, y_test) in zip(
            models, splits, data, strict=True
        )
    ]


def _model_seeds(random_state, n_splits):
    """One seed per split, the same for every arm: each split's models start
    from their own initialisation (so that the split-to-split spread holds
    the initialisation's variance, and a verdict is about the gates, not
    about one draw of weights per arm), paired across arms. Drawn from
    ``random_state`` apart from the splits' shuffles."""
    entropy = None if random_state is None else [int(random_state), 35]
    return np.random.default_rng(entropy).integers(0, 2**31 - 1, size=n_splits)


def _chunks(splits):
    """The splits in groups trained as one network each: a repeat of k-fold
    (or ten of a splitter's splits), so that progress is reported per group
    and the groups spread over workers."""
    by_repeat = {}
    for i, split in enumerate(splits):
        by_repeat.setdefault(split.repeat, []).append(i)
    groups = list(by_repeat.values())
    if len(groups) == 1:
        indices = groups[0]
        groups = [indices[i : i + 10] for i in range(0, len(indices), 10)]
    return groups


def _dry_run(estimator, data, scorer, curvature_params):
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


def _scores(data, estimators, splits, scorer, curvature_params, n_jobs, verbose):
    _dry_run(estimators[0][1], data[0], scorer, curvature_params)
    jobs, owners = [], []
    for (gate, alpha, label), estimator in estimators:
        for chunk in _chunks(splits):
            jobs.append(
                delayed(_fit_arm)(
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
    rows = []
    results = Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
    for (gate, alpha, label, size), chunk_rows in zip(owners, results, strict=True):
        rows += [
            {
                "arm": label,
                "gate": gate,
                "alpha": np.nan if alpha is None else alpha,
                **r,
            }
            for r in chunk_rows
        ]
        bar.update(size)
    bar.close()
    scores = pd.DataFrame(rows)
    scores["curvature measure"] = _curvature_name(curvature_params)
    return scores


def _progress_bar(total, verbose):
    from tqdm.auto import tqdm

    return tqdm(
        total=total, desc="arms x splits", unit="fit", disable=not verbose, leave=False
    )


def _test_fraction(scores):
    """A split's share of test rows (the correlation between splits the
    corrected tests assume), from the table's n_train and n_test."""
    n_test, n_train = scores["n_test"].mean(), scores["n_train"].mean()
    return float(n_test / (n_test + n_train))


def _paired_table(scores):
    """The scores and curvatures as (split x arm) tables, after checking
    that every arm has exactly one row for every split."""
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(
            f"scores must be a pandas DataFrame (GateComparison.scores_); got "
            f"{type(scores).__name__}."
        )
    needed = {"arm", "repeat", "fold", "score", "curvature"}
    missing = sorted(needed - set(scores.columns))
    if missing:
        raise ValueError(
            f"scores lacks the columns {missing}; it needs {sorted(needed)}."
        )
    for column in ("score", "curvature"):
        values = pd.to_numeric(scores[column], errors="coerce")
        if not np.isfinite(values).all():
            row = scores[~np.isfinite(values)].iloc[0]
            raise ValueError(
                f"scores' {column!r} column holds {_label(row[column])!r} for arm "
                f"{row['arm']!r} on split (repeat {row['repeat']}, fold "
                f"{row['fold']}); every value must be a finite number."
            )
    arms = list(dict.fromkeys(scores["arm"]))
    if len(arms) < 2:
        raise ValueError(
            f"scores' 'arm' column holds {len(arms)} arm ({arms}); tests pair at "
            "least 2 arms."
        )
    counts = scores.groupby(["arm", "repeat", "fold"], sort=False).size()
    if (counts > 1).any():
        arm, repeat, fold = counts[counts > 1].index[0]
        raise ValueError(
            f"scores has {counts.max()} rows for arm {arm!r} on split (repeat "
            f"{repeat}, fold {fold}) in its 'arm', 'repeat' and 'fold' columns; "
            "each arm needs one row per split."
        )
    table = scores.pivot_table(
        index=["repeat", "fold"], columns="arm", values=["score", "curvature"],
        dropna=False, aggfunc="first",
    )  # fmt: skip
    gaps = table["score"][arms].isna()
    if gaps.to_numpy().any():
        where = gaps.stack()
        (repeat, fold, arm) = where[where].index[0]
        raise ValueError(
            f"arm {arm!r} has no row for split (repeat {repeat}, fold {fold}) in "
            "scores' 'repeat' and 'fold' columns; every arm needs a row for "
            "every split, so that the differences are paired."
        )
    return arms, table


def _pair_test(d, values, better, worse, measure, margin, test, test_fraction):
    """One row of the tests table: ``d``, ``better`` minus ``worse`` over
    the splits, in ``measure`` (its margin: ``margin`` for the score, a
    share of the two arms' mean for curvature)."""
    if measure == "curvature":
        pair = values[[better, worse]].to_numpy()
        # Two exactly flat arms have margin 0: their equal zeros are equivalent.
        margin = max(CURVATURE_MARGIN_SHARE * abs(float(np.mean(pair))), 1e-12)
    if test == "corrected-t":
        result = paired.corrected_t_comparison(d, margin, test_fraction=test_fraction)
    else:
        result = paired.permutation_comparison(d, margin)
    return {
        "comparison": f"{better} > {worse}",
        "measure": measure,
        "mean difference": result.pop("estimate"),
        **result,
        **paired.correlated_bayes(d, margin, test_fraction=test_fraction),
        "margin": margin,
        "kind": "superiority",
    }


def gate_tests(scores, *, test="corrected-t", margin=None, test_fraction=None):
    """The tests of a :func:`compare_gates` scores table: every pair of arms
    (in order: "first > second"), in score and in curvature, paired by split,
    one Holm family, each beside the Bayesian correlated t-test.

    Public so that any table with the columns arm, repeat, fold, score and
    curvature (and n_train, n_test, or ``test_fraction``) can be tested the
    same way.

    Parameters
    ----------
    scores : pandas.DataFrame
        One row per arm and split.
    test : {"corrected-t", "sign-flip"}, default="corrected-t"
        The corrected resampled t-test (splits that share training rows) or
        the sign-flip permutation test (independent replicates).
    margin : float, optional
        The score margin (default :data:`SCORE_MARGIN`); the curvature
        margin is :data:`CURVATURE_MARGIN_SHARE` of the two arms' mean.
    test_fraction : float, optional
        A split's share of test rows (default: from n_train and n_test).

    Returns
    -------
    pandas.DataFrame
        The columns of :attr:`GateComparison.tests_`.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [{"arm": arm, "repeat": 0, "fold": f, "n_train": 80, "n_test": 20,
    ...          "score": 0.5 + 0.1 * (arm == "a") + 0.01 * f, "curvature": 1.0}
    ...         for arm in ("a", "b") for f in range(5)]
    >>> tests = gate_tests(pd.DataFrame(rows))
    >>> list(tests["outcome"])
    ['holds', 'no effect']
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {list(TESTS)}; got {test!r}.")
    margin = _check_margin(margin)
    arms, table = _paired_table(scores)
    if test_fraction is None:
        if not {"n_train", "n_test"} <= set(scores.columns):
            raise ValueError(
                "scores needs the columns 'n_train' and 'n_test', or pass "
                "test_fraction= (a split's share of test rows)."
            )
        test_fraction = _test_fraction(scores)
    pairs = [
        (better, worse, measure)
        for better, worse in combinations(arms, 2)
        for measure in ("score", "curvature")
    ]
    differences = [
        (table[measure][better] - table[measure][worse]).to_numpy()
        for better, worse, measure in pairs
    ]
    rows = [
        _pair_test(d, table[measure], better, worse, measure, margin, test,
                   test_fraction)
        for d, (better, worse, measure) in zip(differences, pairs, strict=True)
    ]  # fmt: skip
    tests = paired.family_outcomes(pd.DataFrame(rows))
    return _holm_bounds(tests, differences, test, test_fraction)


def _holm_bounds(tests, differences, test, test_fraction):
    """Each difference's interval with its bounds at Holm's step levels
    (:func:`skgate.paired.holm_levels`): the lower bound from the family
    of "p", the upper from that of "p reverse". A bound excludes 0 exactly
    when its test holds (is reversed) after Holm, so the verdict's words
    cannot contradict its intervals (both tests' bounds invert the test)."""
    tests["ci low level"] = 1 - paired.holm_levels(tests["p"])
    tests["ci high level"] = 1 - paired.holm_levels(tests["p reverse"])
    for i, d in enumerate(differences):
        levels = {
            "alpha_low": 1 - tests.at[i, "ci low level"],
            "alpha_high": 1 - tests.at[i, "ci high level"],
        }
        if test == "corrected-t":
            bounds = paired.corrected_t_bounds(d, test_fraction=test_fraction, **levels)
        else:
            bounds = paired.sign_flip_bounds(d, **levels)
        tests.loc[i, ["ci low", "ci high"]] = bounds
    tests["test"] = test
    return tests


def _check_margin(margin):
    if margin is None:
        return SCORE_MARGIN
    if isinstance(margin, bool) or not isinstance(margin, Real):
        raise TypeError(f"margin must be a number > 0; got {margin!r}.")
    if not (np.isfinite(margin) and margin > 0):
        raise ValueError(f"margin must be a finite number > 0; got {margin!r}.")
    return float(margin)


def _named_tests(scores, test, margin, names):
    """:func:`gate_tests` with a column naming each measure."""
    tests = gate_tests(scores, test=test, margin=margin)
    named = dict(zip(("score", "curvature"), names, strict=True))
    tests.insert(2, "measured as", tests["measure"].map(named))
    return tests


def _recommendation(scores, margin, test_fraction, random_state):
    """The arm(s) to use: each arm's posterior probability of being the
    best or within ``margin`` of it (joint correlated posterior); one arm
    when it alone reaches DECISION_PROBABILITY, the set when several do and
    jointly reach it (least curved first), else the likeliest arm."""
    arms, table = _paired_table(scores)
    draws = paired.posterior_means(
        table["score"][arms].to_numpy(),
        test_fraction=test_fraction,
        random_state=0 if random_state is None else random_state,
    )
    close = draws >= draws.max(axis=1, keepdims=True) - margin
    probabilities = dict(zip(arms, close.mean(axis=0).tolist(), strict=True))
    likely = [a for a in arms if probabilities[a] >= DECISION_PROBABILITY]
    if len(likely) > 1:
        members = [arms.index(a) for a in likely]
        together = float(close[:, members].all(axis=1).mean())
        if together >= DECISION_PROBABILITY:
            curvature = table["curvature"][likely].mean()
            order = tuple(sorted(likely, key=lambda a: (curvature[a], arms.index(a))))
            return Recommendation(order, together, True, margin, probabilities)
    best = max(arms, key=lambda a: (probabilities[a], -arms.index(a)))
    decided = probabilities[best] >= DECISION_PROBABILITY
    return Recommendation((best,), probabilities[best], decided, margin, probabilities)


def _interval(row, sign=1):
    low, high = sorted((sign * row["ci low"], sign * row["ci high"]))
    return f"{sign * row['mean difference']:+.3g} [{low:.3g}, {high:.3g}]"


def _phrase(row, words):
    """One comparison in words: ``words`` = (beats, equivalent) verbs."""
    better, worse = row["comparison"].split(" > ")
    beats, alike = words
    outcome = row["outcome"]
    if outcome == paired.HOLDS:
        small = row["ci high"] < row["margin"]
        return f"{better} {beats} {worse} by {_interval(row)}" + (
            ", less than the margin" if small else ""
        )
    if outcome == paired.REVERSED:
        small = -row["ci low"] < row["margin"]
        return f"{worse} {beats} {better} by {_interval(row, -1)}" + (
            ", less than the margin" if small else ""
        )
    if outcome == paired.NO_EFFECT:
        return (
            f"{better} and {worse} {alike} within +-{row['margin']:.3g} "
            f"({_interval(row)})"
        )
    return f"{better} vs {worse} undecided ({_interval(row)})"


def _verdict(tests, recommendation, score_name, curvature_name):
    """Every pair of arms in score, then in curvature, then what to use."""
    by_measure = {m: tests[tests["measure"] == m] for m in ("score", "curvature")}
    score = "; ".join(
        _phrase(r, ("beats", "are equivalent"))
        for _, r in by_measure["score"].iterrows()
    )
    curvature = "; ".join(
        _phrase(r, ("is more curved than", "are as curved"))
        for _, r in by_measure["curvature"].iterrows()
    )
    return (
        f"Held-out {score_name}: {score}. Curvature ({curvature_name}): "
        f"{curvature}. ({tests['test'].iloc[0]} tests, Holm over {len(tests)}; "
        "each interval's bounds at Holm's step levels, so an interval excludes "
        "0 where a difference is shown.) "
        f"Recommendation: {recommendation}."
    )


def _versions():
    names = ("skgate", "torch", "scikit-learn", "skorch", "numpy", "scipy")
    found = {}
    for name in names:
        try:
            found[name] = version(name)
        except PackageNotFoundError:  # e.g. skgate run from a source tree
            found[name] = "not installed"
    return found


def _estimators(task, arms, params):
    kind = (
        GatedAttentionClassifier
        if task == "classification"
        else GatedAttentionRegressor
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
            f"test={test!r} on cv={cv!r} x n_repeats={n_repeats} ({n_splits} "
            f"splits) cannot reach the Holm level: its smallest p is {floor:.3g}, "
            f"{min(1.0, n_tests * floor):.3g} after Holm over {n_tests} tests "
            f"(level {paired.ALPHA_LEVEL:g}). Use more splits (cv, n_repeats) or "
            "test='corrected-t'.",
            UserWarning,
            stacklevel=3,
        )


def _check_options(
    random_state, n_repeats, test, margin, alphas, verbose, n_jobs, estimator_params
):
    """The scalar options, checked; returns the score margin."""
    _check_random_state(random_state)
    _check_count("verbose", verbose, 0)
    if n_jobs is not None and (
        isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral) or n_jobs == 0
    ):
        raise ValueError(
            f"n_jobs must be None or a nonzero int (-1: every core); got {n_jobs!r}."
        )
    if n_repeats is not None:
        _check_count("n_repeats", n_repeats, 1)
    if test not in TESTS:
        raise ValueError(f"test must be one of {list(TESTS)}; got {test!r}.")
    own = sorted(k for k in _OWN if k in estimator_params)
    if own or ("alpha" in estimator_params and alphas is not None):
        name = own[0] if own else "alpha"
        raise TypeError(
            f"{name!r} is not an estimator parameter here: the gates are "
            "gates=, their strengths alphas=."
        )
    return _check_margin(margin)


def _check_curvature_params(curvature_params):
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


def _settings(test, margin, fraction, score_name, curvature_name, curvature_params):
    return {
        "test": test,
        "margin": margin,
        "test fraction": fraction,
        "score": score_name,
        "curvature": curvature_name,
        "curvature_params": curvature_params,
        "versions": _versions(),
    }


def _shared_params(estimator):
    """Every arm's estimator parameters but its gate and strength."""
    params = estimator.get_params()
    return {k: v for k, v in params.items() if k not in ("gate", "alpha")}


#: compare_gates' parameters, filled into its docstring (a screen of code
#: stays a screen).
_PARAMETERS_DOC = """\
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Numbers, or any table the ``preprocessor`` turns into numbers.
y : array-like of shape (n_samples,)
    Class labels, or continuous targets (regression).
gates : sequence of str, default=("multiplicative", "silu", "none")
    At least 2 distinct registered gates (:data:`skgate.nn.GATES`), in
    the order of the claim: each is tested against every later one.
alphas : sequence of float, optional
    Strengths of the gates that have one, each an arm of its own
    (default: the estimator's alpha). Refused when no gate has one.
cv : int or cross-validation splitter, default=10
    Folds of repeated (stratified; grouped with ``groups``) k-fold, or a
    splitter or an iterable of (train, test) index arrays (its own
    splits). The default 10 x 10
    design can reach the Holm level for the three default gates and is
    the one Bouckaert & Frank (2004) recommend for the corrected test:
    the variance of a mean difference is about 1 + (k - 1) / (k r)
    times its floor (1.09 at 10 x 10; 1.8 at 5 x 1), on 99 degrees of
    freedom. Its time for 1000 rows x 20 features on 2 cores is measured
    by ``benchmarks/bench_compare.py`` (benchmarks/results/COMPARE.md).
n_repeats : int, optional
    Repeats of the k-fold, each shuffled anew: 10 by default for an int
    ``cv``; a splitter gives its own splits (1, or None).
test : {"corrected-t", "sign-flip"}, default="corrected-t"
    The corrected resampled t-test (Nadeau & Bengio, 2003), right for
    cross-validation splits, which share training rows: its variance is
    inflated by n_test / n_train, so more repeats of the same rows
    cannot manufacture significance. "sign-flip" is the permutation test
    for independent replicates (the reproduction study's seeds); on CV
    splits its p-values are optimistic. A design whose smallest p cannot
    pass Holm's level for its number of tests warns once.
margin : float, optional
    The smallest score difference of interest: equivalence within it is
    "no effect", and it is the Bayesian test's region of practical
    equivalence (default 0.02). The curvature margin is a quarter of the
    two arms' mean curvature.
scoring : str or callable, optional
    One scikit-learn scorer (default: accuracy, or R^2).
curvature_params : dict, optional
    Keywords of :func:`skgate.representation_curvature`; ``kind``
    defaults to "turning" (the scale-free turning rate). Validated
    before any training.
groups : array-like of shape (n_samples,), optional
    Group labels: no group is split between training and test rows
    (stratified group k-fold for an int ``cv``, or a group splitter's
    own splits), as ``cross_validate`` takes them.
random_state : int, optional
    Seeds the splits and the models (an int in [0, 2**32 - 1]): each
    split's models start from a seed of their own, the same for every arm,
    so that the tests weigh the initialisation's variance too and a verdict
    is about the gates, not about one draw of weights per arm.
n_jobs : int, optional
    Groups of splits fitted in parallel (joblib); the results do not
    depend on it.
task : {"classification", "regression"}, optional
    Default: read from ``y`` (:func:`infer_task`): fractional numbers are a
    regression, text and few whole numbers classes; whole numbers with more
    than 20 distinct values must be named.
preprocessor : transformer, optional
    Fitted on each split's training rows (e.g. a ColumnTransformer);
    curvature is then measured in the transformed space.
verbose : int, default=0
    > 0: a progress bar over arms x splits (on stderr).
**estimator_params
    Passed to every estimator (e.g. ``max_epochs``), validated before
    any training.
"""


def compare_gates(
    X,
    y,
    *,
    gates=("multiplicative", "silu", "none"),
    alphas=None,
    cv=DEFAULT_CV,
    n_repeats=None,
    test="corrected-t",
    margin=None,
    scoring=None,
    curvature_params=None,
    groups=None,
    random_state=None,
    n_jobs=None,
    task=None,
    preprocessor=None,
    verbose=0,
    **estimator_params,
):
    """Train every gate on the same splits, test them against each other,
    and say which to use.

    {parameters}

    Returns
    -------
    GateComparison

    Notes
    -----
    {notes}

    Examples
    --------
    >>> from skgate import compare_gates, make_linear_task
    >>> X, y = make_linear_task(120, random_state=0)
    >>> result = compare_gates(X, y, gates=("multiplicative", "none"), cv=3,
    ...                        n_repeats=2, max_epochs=2, random_state=0)
    >>> result.scores_.shape, list(result.tests_["measured as"])
    ((12, 12), ['accuracy', 'turning rate'])
    >>> result.verdict_.startswith("Held-out accuracy:")
    True
    """
    margin = _check_options(random_state, n_repeats, test, margin, alphas,
                            verbose, n_jobs, estimator_params)  # fmt: skip
    gates = _check_gates(gates)
    alphas = _check_alphas(alphas, gates)
    X, y, task, groups = _check_data(X, y, task, groups, preprocessor)
    curvature_params = _check_curvature_params(curvature_params)
    arms = _arms(gates, alphas)
    estimators = _estimators(
        task, arms, {"random_state": random_state, **estimator_params}
    )
    scorer = _check_scoring(scoring, estimators[0][1])
    X = _laid_out(X, estimators[0][1], preprocessor)
    splits = _splits(X, y, task, cv, n_repeats, random_state, groups)
    _warn_if_undecidable(test, splits, len(arms) * (len(arms) - 1), cv)
    data = _split_data(X, y, splits, preprocessor)
    start = time.perf_counter()
    scores = _scores(data, estimators, splits, scorer, curvature_params, n_jobs,
                     verbose)  # fmt: skip
    seconds = time.perf_counter() - start
    names = _scoring_name(scoring, task), _curvature_name(curvature_params)
    tests = _named_tests(scores, test, margin, names)
    fraction = _test_fraction(scores)
    recommendation = _recommendation(scores, margin, fraction, random_state)
    settings = {
        "gates": list(gates),
        "alphas": None if alphas is None else list(alphas),
        "cv": cv if isinstance(cv, Integral) else repr(cv),
        "n_repeats": splits[-1].repeat + 1,
        "splits": len(splits),
        **_settings(test, margin, fraction, *names, curvature_params),
        "random_state": random_state,
        "estimator_params": _shared_params(estimators[0][1]),
        "seconds": seconds,
    }
    verdict = _verdict(tests, recommendation, *names)
    return GateComparison(scores, tests, verdict, recommendation, task, settings)


_NOTES_DOC = """\
Intervals are corrected t intervals (for "sign-flip", bounds that invert
the sign-flip test) whose bounds are drawn at Holm's step levels (between
1 - 0.05 / m and 0.95, one-sided, for the table's m tests), so that an
interval excludes 0 exactly where Holm's procedure shows a difference. The
recommendation reads the Bayesian correlated t-test's joint posterior
(Corani & Benavoli, 2015) of the arms' mean scores, and never the
curvature: among arms equivalent within the margin it names the least
curved first.
"""

fill_docstring(compare_gates, parameters=_PARAMETERS_DOC, notes=_NOTES_DOC)

# -- the CSV command: python -m skgate compare data.csv --target COLUMN -----
#
# Reads the file with pandas, checks it (one line per problem, naming it; a
# numeric target with many values needs ``--task``), standardises numeric
# columns and one-hot encodes the others inside each fold (a
# ColumnTransformer fitted on the fold's training rows), runs compare_gates
# and writes COMPARE.md (the verdict, the tests, the scores),
# compare_scores.csv, compare_tests.csv and fig_compare.png. The command
# line checks the file's header before torch is imported
# (skgate.command.check_csv_header); the rest is checked here.


def _read_table(path, target, task=None):
    """(X, y, task) from the CSV at ``path`` with ``target`` as y; a
    :class:`CsvProblem` for an unreadable or empty file, a header without
    rows, an unknown target column, missing or infinite values, a target
    with one value, or a numeric target with many values and no ``task``."""
    try:
        table = pd.read_csv(path)
    except pd.errors.EmptyDataError as exc:
        raise CsvProblem(header_problem(path, target, None, False)) from exc
    except (OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise CsvProblem(f"cannot read {str(path)!r} as CSV: {exc}") from exc
    problem = header_problem(path, target, table.columns, len(table) > 0)
    if problem is not None:
        raise CsvProblem(problem)
    _check_values(table, path)
    y = table.pop(target)
    if y.nunique() < 2:
        raise CsvProblem(
            f"the target {target!r} has one value ({_label(y.iloc[0])!r}); nothing "
            "to predict."
        )
    if table.shape[1] == 0:
        raise CsvProblem(f"{str(path)!r} has no column besides the target {target!r}.")
    try:
        task = infer_task(y, task)
    except ValueError as exc:
        raise CsvProblem(
            f"the target {target!r} is numeric with {y.nunique()} distinct values: "
            "pass --task regression to predict it as a number, or --task "
            "classification to treat each value as a class."
        ) from exc
    if task == "regression" and not pd.api.types.is_numeric_dtype(y):
        raise CsvProblem(
            f"--task regression needs a numeric target; {target!r} holds text."
        )
    return table, y, task


def _check_values(table, path):
    missing = table.isna().sum()
    missing = missing[missing > 0]
    if len(missing):
        counts = ", ".join(f"{name} ({n})" for name, n in missing.items())
        raise CsvProblem(
            f"{str(path)!r} has missing values in: {counts}; fill or drop them first."
        )
    numbers = table.select_dtypes("number")
    infinite = np.isinf(numbers.to_numpy(dtype=float)).sum(axis=0)
    if infinite.any():
        counts = ", ".join(
            f"{name} ({n})"
            for name, n in zip(numbers.columns, infinite, strict=True)
            if n
        )
        raise CsvProblem(
            f"{str(path)!r} has infinite values in: {counts}; replace or drop "
            "them first."
        )


def _check_design(y, task, cv):
    """A :class:`CsvProblem` when ``--cv`` folds cannot be filled: more
    folds than rows, or (classification) than rows of the smallest class."""
    if task == "classification":
        counts = y.value_counts()
        if counts.min() < cv:
            raise CsvProblem(
                f"--cv {cv} stratified folds need at least {cv} rows of every "
                f"class; class {_label(counts.idxmin())!r} has {counts.min()}: lower "
                "--cv, or drop or merge that class."
            )
    elif len(y) < cv:
        raise CsvProblem(
            f"--cv {cv} folds need at least {cv} rows; the file has {len(y)}."
        )


def _preprocessor_for(X):
    """Numeric columns standardised, the others one-hot encoded."""
    numeric = list(X.select_dtypes("number").columns)
    other = [c for c in X.columns if c not in numeric]
    return ColumnTransformer(
        [
            ("numbers", StandardScaler(), numeric),
            ("categories", OneHotEncoder(handle_unknown="ignore"), other),
        ]
    )


def compare_csv(
    path, target, *, out, task=None, cv=DEFAULT_CV, repeats=DEFAULT_REPEATS,
    head="mlp", **params,
):  # fmt: skip
    """:func:`~skgate.compare_gates` on a CSV file, its report written into
    ``out``: what ``python -m skgate compare`` runs.

    Numeric columns are standardised and the others one-hot encoded inside
    each fold (fitted on the fold's training rows).

    Parameters
    ----------
    path : str or path-like
        A CSV file with a header row.
    target : str
        The column to predict; every other column is a feature.
    out : str or path-like
        The folder to write COMPARE.md (settings, verdict, tests, scores),
        compare_scores.csv, compare_tests.csv and fig_compare.png into.
    task : {"classification", "regression"} or None, default=None
        None: read from the target (:func:`infer_task`).
    cv, repeats : int
        The design: ``cv``-fold cross-validation repeated ``repeats`` times.
    head : str, default="mlp"
        The estimators' head.
    **params
        Further keywords of :func:`~skgate.compare_gates`.

    Returns
    -------
    GateComparison

    Raises
    ------
    CsvProblem
        A file that cannot be compared as asked (unreadable, empty, no such
        column, missing or infinite values, a target of one value, too few
        rows for ``cv``), in one line naming the problem.
    """
    X, y, task = _read_table(path, target, task)
    _check_design(y, task, cv)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    result = compare_gates(
        X, y, task=task, cv=cv, n_repeats=repeats, head=head,
        preprocessor=_preprocessor_for(X), **params,
    )  # fmt: skip
    result.scores_.to_csv(out / "compare_scores.csv", index=False)
    result.tests_.to_csv(out / "compare_tests.csv", index=False, float_format="%.10g")
    display = result.plot()
    display.figure_.savefig(out / "fig_compare.png", dpi=110)
    (out / "COMPARE.md").write_text(_markdown(result, path, target, X))
    return result


def _settings_table(result, X):
    s = result.settings_
    params = s["estimator_params"]
    rows = [
        ("gates", ", ".join(s["gates"])),
        (
            "alphas",
            "the estimator's"
            if s["alphas"] is None
            else ", ".join(map(str, s["alphas"])),
        ),
        ("design", f"{s['cv']}-fold x {s['n_repeats']} repeats ({s['splits']} splits)"),
        (
            "test",
            f"{s['test']}, Holm over the table; Bayesian correlated t-test beside it",
        ),
        ("score margin", f"{s['margin']:g} (the region of practical equivalence)"),
        ("score", s["score"]),
        ("curvature", s["curvature"]),
        ("epochs", str(params.get("max_epochs"))),
        ("head", str(params.get("head"))),
        ("seed", str(s["random_state"])),
        ("rows x columns", f"{len(X)} x {X.shape[1]}"),
        ("seconds", f"{s['seconds']:.0f}"),
        ("versions", ", ".join(f"{k} {v}" for k, v in s["versions"].items())),
    ]
    return pd.DataFrame(rows, columns=["setting", "value"])


def _markdown(result, path, target, X):
    """COMPARE.md: the settings, the verdict, the tests, the scores per arm."""
    means = result.scores_.groupby("arm", sort=False)[
        ["score", "curvature", "fit_time"]
    ].agg(["mean", "std"])
    means.columns = [f"{a} {b}" for a, b in means.columns]
    return "\n".join(
        [
            f"# Gates compared on {Path(path).name}",
            "",
            f"Target `{target}` ({result.task_}). Generated by `python -m skgate "
            "compare`.",
            "",
            f"**{result.verdict_}**",
            "",
            "## Settings",
            "",
            _settings_table(result, X).to_markdown(index=False),
            "",
            f"## Tests ({result.settings_['test']}, paired by split, Holm over the "
            "table; interval bounds at Holm's step levels)",
            "",
            result.summary().to_markdown(index=False, floatfmt=".4g"),
            "",
            "## Scores per arm (mean and std over splits)",
            "",
            f"score: {result.settings_['score']}; curvature: "
            f"{result.settings_['curvature']}.",
            "",
            means.reset_index().to_markdown(index=False, floatfmt=".4g"),
            "",
            "![scores, curvature and their differences with intervals]"
            "(fig_compare.png)",
            "",
        ]
    )

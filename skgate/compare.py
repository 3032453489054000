"""compare_gates: does gating help on *your* data, and does it bend the representation?

Every gate (and alpha) is trained on the same cross-validation splits, scored
on held-out accuracy or R^2 (or ``scoring``) and on the curvature of its
representation, and the gates are tested against each other with the
statistics of skgate's reproduction study (:mod:`skgate._paired`: paired by
split, sign-flip permutation p-values, bootstrap intervals, Holm over the
family, an equivalence test within a margin, the same outcome words).
"""

import time
from dataclasses import dataclass
from itertools import combinations
from numbers import Integral

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy.sparse import issparse
from sklearn.base import clone
from sklearn.metrics import check_scoring
from sklearn.model_selection import (
    RepeatedKFold,
    RepeatedStratifiedKFold,
    check_cv,
)
from sklearn.utils import _safe_indexing
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_array, check_consistent_length

from . import _paired
from ._docstrings import fill_docstring
from ._together import fit_together
from .estimators import GatedAttentionClassifier, GatedAttentionRegressor
from .model_selection import representation_curvature
from .nn import GATES

__all__ = [
    "CURVATURE_MARGIN_SHARE",
    "SCORE_MARGIN",
    "GateComparison",
    "compare_gates",
    "gate_tests",
]

#: Equivalence margins ("no effect" within them), the reproduction study's
#: smallest differences of interest: a score difference of 0.02, a curvature
#: difference of this share of the two arms' mean.
SCORE_MARGIN = _paired.SCORE_MARGIN
CURVATURE_MARGIN_SHARE = _paired.CURVATURE_MARGIN_SHARE
_TASKS = ("classification", "regression")


@dataclass
class GateComparison:
    """What :func:`compare_gates` found.

    Attributes
    ----------
    scores_ : pandas.DataFrame
        One row per arm (gate, alpha) x repeat x fold: "score" (held-out),
        "curvature" (mean representation curvature on the held-out rows),
        "fit_time" (seconds; the arm's share of its batch).
    tests_ : pandas.DataFrame
        One row per comparison ("multiplicative > none") and measure
        ("score", "curvature"): the paired (by split) mean difference, its 95 %
        bootstrap interval, one-sided sign-flip p-values both ways and an
        equivalence p-value within the margin, each Holm-adjusted over the
        whole table, and the outcome (holds, reversed, no effect,
        inconclusive).
    verdict_ : str
        One plain sentence: does the first gate help over the last, and does
        it bend the representation.
    task_ : str
        "classification" or "regression".
    """

    scores_: pd.DataFrame
    tests_: pd.DataFrame
    verdict_: str
    task_: str

    def summary(self):
        """The verdict, then the tests, as text."""
        shown = ["comparison", "measure", "mean difference", "ci low", "ci high"]
        table = self.tests_[[*shown, "p holm", "outcome"]]
        return f"{self.verdict_}\n\n{table.to_string(index=False)}"

    def plot(self, ax=None):
        """Draw the scores and curvatures per arm
        (:class:`skgate.inspection.GateComparisonDisplay`)."""
        from .inspection import GateComparisonDisplay

        return GateComparisonDisplay.from_result(self, ax=ax)


def _check_inputs(X, y, task, gates, alphas, n_repeats, preprocessor):
    # With a preprocessor X may be a table of mixed columns (it makes them
    # numbers, fold by fold); without one it must be numbers already.
    X = check_array(X, dtype=np.float64) if preprocessor is None else X
    y = np.asarray(y)
    check_consistent_length(X, y)
    if task is None:
        kind = type_of_target(y)
        task = "regression" if kind.startswith("continuous") else "classification"
    if task not in _TASKS:
        raise ValueError(f"task must be one of {list(_TASKS)} or None; got {task!r}.")
    if task == "classification" and len(np.unique(y)) < 2:
        raise ValueError(
            f"y has one class ({np.unique(y)[0]!r}); a classifier needs at least 2."
        )
    gates = tuple(gates)
    unknown = [g for g in gates if g not in GATES]
    if len(gates) < 2 or unknown:
        raise ValueError(
            f"gates must name at least 2 of the registered gates {sorted(GATES)}; "
            f"got {list(gates)!r}."
        )
    if alphas is not None:
        alphas = tuple(float(a) for a in np.atleast_1d(alphas))
        if not alphas or not all(np.isfinite(a) and a >= 0 for a in alphas):
            raise ValueError(f"alphas must be finite numbers >= 0; got {alphas!r}.")
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, Integral):
        raise TypeError(f"n_repeats must be an int >= 1; got {n_repeats!r}.")
    if n_repeats < 1:
        raise ValueError(f"n_repeats must be an int >= 1; got {n_repeats}.")
    return X, y, task, gates, alphas


def _splits(X, y, task, cv, n_repeats, random_state):
    """(repeat, fold, train, test) for every split: repeated (stratified)
    k-fold for an int ``cv``, else the splitter's own splits (one repeat)."""
    if isinstance(cv, Integral) and not isinstance(cv, bool):
        if cv < 2:
            raise ValueError(f"cv must be >= 2 folds; got {cv}.")
        kind = RepeatedStratifiedKFold if task == "classification" else RepeatedKFold
        splitter = kind(n_splits=cv, n_repeats=n_repeats, random_state=random_state)
        folds = cv
    else:
        if n_repeats != 1:
            raise ValueError(
                f"n_repeats={n_repeats} needs an int cv (repeated k-fold); a "
                "splitter gives its own splits: set n_repeats=1."
            )
        splitter = check_cv(cv, y, classifier=task == "classification")
        folds = splitter.get_n_splits(X, y)
    return [
        (i // folds, i % folds, train, test)
        for i, (train, test) in enumerate(splitter.split(X, y))
    ]


def _arms(gates, alphas):
    """(gate, alpha or None) per arm: alphas apply to gates with a strength."""
    return [
        (gate, alpha)
        for gate in gates
        for alpha in (
            alphas if alphas is not None and GATES[gate].strength else (None,)
        )
    ]


def _arm_label(gate, alpha, several):
    return f"{gate} (alpha={alpha:g})" if several and alpha is not None else gate


def _dense(X):
    """A float array of ``X`` (a one-hot encoder's output may be sparse)."""
    return np.asarray(X.toarray() if issparse(X) else X, dtype=np.float64)


def _split_data(X, y, splits, preprocessor):
    """Each split's (X_train, y_train, X_test, y_test), X transformed by a
    clone of ``preprocessor`` fitted on that split's training rows alone."""
    data = []
    for _, _, train, test in splits:
        X_train, X_test = _safe_indexing(X, train), _safe_indexing(X, test)
        if preprocessor is not None:
            fitted = clone(preprocessor).fit(X_train, y[train])
            X_train, X_test = fitted.transform(X_train), fitted.transform(X_test)
        data.append((_dense(X_train), y[train], _dense(X_test), y[test]))
    return data


def _fit_arm(estimator, data, splits, scorer, curvature_params):
    """Fit one arm on every split (as one batched network) and score it."""
    models = [clone(estimator) for _ in splits]
    start = time.perf_counter()
    fit_together(models, [(X_train, y_train, None) for X_train, y_train, _, _ in data])
    seconds = (time.perf_counter() - start) / len(splits)
    return [
        {
            "repeat": repeat,
            "fold": fold,
            "score": scorer(model, X_test, y_test),
            "curvature": float(
                representation_curvature(model, X_test, **curvature_params).mean()
            ),
            "fit_time": seconds,
        }
        for model, (repeat, fold, _, _), (_, _, X_test, y_test) in zip(
            models, splits, data, strict=True
        )
    ]


def _scores(data, task, arms, splits, scoring, curvature_params, params, n_jobs):
    kind = (
        GatedAttentionClassifier
        if task == "classification"
        else GatedAttentionRegressor
    )
    several = len({alpha for _, alpha in arms}) > 1
    jobs, labels = [], []
    for gate, alpha in arms:
        estimator = kind(gate, **({} if alpha is None else {"alpha": alpha}), **params)
        scorer = check_scoring(estimator, scoring=scoring)
        jobs.append(
            delayed(_fit_arm)(estimator, data, splits, scorer, curvature_params)
        )
        labels.append((gate, alpha, _arm_label(gate, alpha, several)))
    results = Parallel(n_jobs=n_jobs)(jobs)
    rows = [
        {"arm": label, "gate": gate, "alpha": np.nan if alpha is None else alpha, **row}
        for (gate, alpha, label), arm_rows in zip(labels, results, strict=True)
        for row in arm_rows
    ]
    return pd.DataFrame(rows)


def gate_tests(scores):
    """The tests of a :func:`compare_gates` scores table: every pair of arms
    (in order: "first > second"), in score and in curvature, paired by split,
    one Holm family. Public so that any table with the columns arm, repeat,
    fold, score and curvature can be tested the same way."""
    arms = list(dict.fromkeys(scores["arm"]))
    table = scores.pivot_table(
        index=["repeat", "fold"], columns="arm", values=["score", "curvature"]
    )
    rows = []
    for better, worse in combinations(arms, 2):
        for measure in ("score", "curvature"):
            d = (table[measure][better] - table[measure][worse]).to_numpy()
            margin = SCORE_MARGIN
            if measure == "curvature":
                pair = table[measure][[better, worse]].to_numpy()
                margin = CURVATURE_MARGIN_SHARE * float(np.mean(pair))
            result = _paired.permutation_comparison(d, max(margin, 1e-12))
            rows.append(
                {
                    "comparison": f"{better} > {worse}",
                    "measure": measure,
                    "mean difference": result.pop("estimate"),
                    **result,
                    "margin": margin,
                    "kind": "superiority",
                }
            )
    return _paired.family_outcomes(pd.DataFrame(rows))


def _verdict(tests, task):
    """One sentence on the first comparison that pits the first arm against
    the last: does it score better, and is it more curved."""
    first = tests["comparison"].iloc[0].split(" > ")[0]
    last = tests["comparison"].str.split(" > ").str[1].iloc[-1]
    pair = tests[tests["comparison"] == f"{first} > {last}"].set_index("measure")
    score, curve = pair.loc["score"], pair.loc["curvature"]
    what = "accuracy" if task == "classification" else "score"
    helps = {
        _paired.HOLDS: "helps",
        _paired.REVERSED: "hurts",
        _paired.NO_EFFECT: f"makes no difference (within +-{SCORE_MARGIN:g})",
        _paired.INCONCLUSIVE: "neither helps nor hurts detectably",
    }[score["outcome"]]
    bends = {
        _paired.HOLDS: "bends the representation more",
        _paired.REVERSED: "bends it less",
        _paired.NO_EFFECT: "bends it about as much",
        _paired.INCONCLUSIVE: "bends it by an amount the data do not pin down",
    }[curve["outcome"]]
    return (
        f"On these data {first} against {last} {helps} in held-out {what} "
        f"({score['mean difference']:+.3g} [{score['ci low']:.3g}, "
        f"{score['ci high']:.3g}]) and {bends} (curvature "
        f"{curve['mean difference']:+.3g} [{curve['ci low']:.3g}, "
        f"{curve['ci high']:.3g}])."
    )


#: compare_gates' parameters, documented here once (filled into its docstring).
_PARAMETERS_DOC = """\
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Numbers, or any table the ``preprocessor`` turns into numbers.
y : array-like of shape (n_samples,)
    Class labels, or continuous targets (regression).
gates : sequence of str, default=("multiplicative", "silu", "none")
    At least 2 registered gates (:data:`skgate.nn.GATES`), in the order of
    the claim: each is tested against every later one.
alphas : sequence of float, optional
    Strengths of the gates that have one, each an arm of its own
    (default: the estimator's alpha).
cv : int or cross-validation splitter, default=5
    Folds of repeated (stratified) k-fold, or a splitter.
n_repeats : int, default=1
    Repeats of the k-fold (an int ``cv`` only).
scoring : str or callable, optional
    A scikit-learn scorer (default: accuracy or R^2).
curvature_params : dict, optional
    Keywords of :func:`skgate.representation_curvature`.
random_state : int, optional
    Seeds the splits and every model.
n_jobs : int, optional
    Arms fitted in parallel (joblib); the results do not depend on it.
task : {"classification", "regression"}, optional
    Default: read from ``y`` as scikit-learn's ``type_of_target`` does.
preprocessor : transformer, optional
    Fitted on each split's training rows (e.g. a ColumnTransformer);
    curvature is then measured in the transformed space.
**estimator_params
    Passed to every estimator (e.g. ``max_epochs``).
"""


def compare_gates(
    X,
    y,
    *,
    gates=("multiplicative", "silu", "none"),
    alphas=None,
    cv=5,
    n_repeats=1,
    scoring=None,
    curvature_params=None,
    random_state=None,
    n_jobs=None,
    task=None,
    preprocessor=None,
    **estimator_params,
):
    """Train every gate on the same splits and test them against each other.

    {parameters}

    Returns
    -------
    GateComparison

    Notes
    -----
    Folds share training rows, so their differences are not independent and
    the p-values are optimistic (Nadeau & Bengio, 2003).

    Examples
    --------
    >>> from skgate import compare_gates, make_linear_task
    >>> X, y = make_linear_task(120, random_state=0)
    >>> result = compare_gates(X, y, gates=("multiplicative", "none"), cv=3,
    ...                        max_epochs=2, random_state=0)
    >>> result.scores_.shape, list(result.tests_["measure"])
    ((6, 8), ['score', 'curvature'])
    """
    X, y, task, gates, alphas = _check_inputs(
        X, y, task, gates, alphas, n_repeats, preprocessor
    )
    splits = _splits(X, y, task, cv, n_repeats, random_state)
    data = _split_data(X, y, splits, preprocessor)
    params = {"random_state": random_state, **estimator_params}
    curvature_params = dict(curvature_params or {})
    scores = _scores(
        data,
        task,
        _arms(gates, alphas),
        splits,
        scoring,
        curvature_params,
        params,
        n_jobs,
    )
    tests = gate_tests(scores)
    return GateComparison(scores, tests, _verdict(tests, task), task)


fill_docstring(compare_gates, parameters=_PARAMETERS_DOC)

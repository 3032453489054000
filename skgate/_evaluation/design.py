"""The design of an evaluation, checked: the gates and their strengths, the
arms and their estimators, the scorer, the margin, the curvature measured,
and the scalar options."""

from collections.abc import Iterable
from numbers import Integral, Real

import numpy as np
from sklearn.base import is_classifier
from sklearn.metrics import check_scoring, get_scorer

from .. import _options, paired
from .._checks import check_count, check_random_state
from ..command import n_jobs_problem
from ..estimators import GatedAttentionClassifier, GatedAttentionRegressor
from ..model_selection import make_curvature_scorer
from ..nn import GATES
from .record import scoring_name

#: The posterior probability at which a Bayesian test decides: compare_gates'
#: recommendation names a gate (or a set of equivalent gates) as the best,
#: benchmark_gates' signed-rank test a pair's outcome.
DECISION_PROBABILITY = 0.95

#: compare_gates' own keywords: never estimator parameters.
_OWN = ("gate", "verbose")


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


def check_margin(margin):
    if margin is None:
        return paired.SCORE_MARGIN
    if isinstance(margin, bool) or not isinstance(margin, Real):
        raise TypeError(f"margin must be a number > 0; got {margin!r}.")
    if not (np.isfinite(margin) and margin > 0):
        raise ValueError(f"margin must be a finite number > 0; got {margin!r}.")
    return float(margin)


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
        check_count("n_repeats", n_repeats, 1, _options.MAX_REPEATS)
    epochs = estimator_params.get("max_epochs")
    if isinstance(epochs, Integral) and not isinstance(epochs, bool) and epochs == 0:
        raise ValueError(
            "max_epochs must be >= 1 in compare_gates (0 trains nothing, and the "
            "verdict would be about untrained models); got 0."
        )
    if test not in _options.TESTS:
        raise ValueError(f"test must be one of {list(_options.TESTS)}; got {test!r}.")
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

""":func:`compare_gates`: the design, the fits, the tests and the result in one call."""

import time
from numbers import Integral

import numpy as np
import pandas as pd

from .._docstrings import fill_docstring
from .._evaluation import (
    arm_scores,
    baseline_rows,
    check_alphas,
    check_baselines,
    check_curvature_params,
    check_data,
    check_gates,
    check_margin_for,
    check_options,
    checked_scorer,
    curvature_label,
    cv_splits,
    describe_cv,
    dry_run,
    dry_run_baselines,
    laid_out,
    make_arms,
    make_estimators,
    score_difference_range,
    scoring_name,
    shared_params,
    split_data,
    split_test_fraction,
)
from .design import DEFAULT_CV, check_test_rows, warn_if_undecidable
from .pairs import named_tests, recommend
from .result import (
    GateComparison,
    baselines_verdict,
    comparison_verdict,
    tests_settings,
)

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
    ``cv``, at most 1000 (:data:`~skgate.compare.design.MAX_REPEATS`); a
    splitter gives its own splits (1, or None).
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
    equivalence (default 0.02); at most 1 for a score of at most 1 (the
    default accuracy or R^2, or a scorer of a metric in [0, 1]), any
    positive number for a callable's. The curvature margin is a quarter of
    the two arms' mean curvature.
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
    Groups of splits fitted in parallel (joblib): 1 to 1024, or -1 to
    -1024 (-1: every core, -2: all but one; at most
    :data:`skgate.command.MAX_JOBS`); the results do not depend on it.
task : {"classification", "regression"}, optional
    Default: read from ``y`` (:func:`infer_task`): fractional numbers are a
    regression, text and few whole numbers classes; whole numbers with more
    than 20 distinct values must be named.
preprocessor : transformer, optional
    Fitted on each split's training rows (e.g. a ColumnTransformer);
    curvature is then measured in the transformed space.
baselines : "auto", None, mapping or sequence of estimators, default="auto"
    The models a user would pick instead, fitted on the same splits (from
    each split's seed where they take one) and tested against the gates
    with the same statistics, in score only (they have no attention to
    bend). "auto" chooses by the data's form: for a table, a linear model
    on standardised columns (logistic regression with ``max_iter=1000``,
    or ridge regression with leave-one-out penalty) and histogram
    gradient boosting, at scikit-learn's defaults; for series of one
    length, aeon's MiniRocket where aeon is installed (none otherwise, nor
    for series of unequal length: ``settings_["baselines note"]`` says
    why). None: the gates alone. A mapping names its estimators; a
    sequence is named by class. The verdict's first sentence says whether
    any gate beats the best baseline (the one of the highest mean score),
    and the recommendation weighs the baselines with the gates.
verbose : int, default=0
    > 0: a progress bar over arms x splits (on stderr).
**estimator_params
    Passed to every estimator (e.g. ``max_epochs``, here at least 1),
    validated before any training.
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
    baselines="auto",
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
    >>> result.scores_.shape, list(result.tests_["measured as"])[:2]
    ((24, 14), ['accuracy', 'turning rate'])
    >>> sorted(result.scores_.loc[result.scores_["baseline"], "arm"].unique())
    ['HGB', 'LogReg']
    >>> "the best baseline, " in result.verdict_.split(": ")[0]  # said first
    True
    """
    margin = check_options(random_state, n_repeats, test, margin, alphas,
                            verbose, n_jobs, estimator_params)  # fmt: skip
    gates = check_gates(gates)
    alphas = check_alphas(alphas, gates)
    X, y, task, groups = check_data(X, y, task, groups, preprocessor)
    curvature_params = check_curvature_params(curvature_params)
    arms = make_arms(gates, alphas)
    baselines, left_out = check_baselines(
        baselines, X, task, {label for _, _, label in arms}
    )
    estimators = make_estimators(
        task, arms, {"random_state": random_state, **estimator_params}
    )
    scorer = checked_scorer(scoring, estimators[0][1])
    check_margin_for(margin, scoring, task)
    X = laid_out(X, estimators[0][1], preprocessor)
    splits = cv_splits(X, y, task, cv, n_repeats, random_state, groups)
    check_test_rows(splits, scoring, task, cv)
    warn_if_undecidable(test, splits, _n_tests(len(arms), len(baselines)), cv)
    data = split_data(X, y, splits, preprocessor)
    _dry_runs(estimators[0][1], baselines, data[0], splits[0], scorer,
              curvature_params)  # fmt: skip
    start = time.perf_counter()
    scores = arm_scores(data, estimators, splits, scorer, curvature_params, n_jobs,
                     verbose)  # fmt: skip
    scores = _with_baselines(scores, baselines, data, splits, scorer, n_jobs)
    seconds = time.perf_counter() - start
    design = {
        "gates": gates, "alphas": alphas, "cv": cv, "splits": splits,
        "estimator": estimators[0][1], "seconds": seconds,
        "random_state": random_state, "baselines": baselines, "left_out": left_out,
    }  # fmt: skip
    return _comparison(scores, task, scoring, curvature_params, test, margin, design)


def _comparison(scores, task, scoring, curvature_params, test, margin, design):
    """The tests, the recommendation, the settings and the verdict of the
    fitted ``scores``: the :class:`GateComparison`."""
    score_name = scoring_name(scoring, task)
    measured = curvature_label(curvature_params)  # the scores' curvature
    # The tests compare magnitudes: "|Gaussian curvature|" for a signed kind.
    names = score_name, curvature_label(curvature_params, magnitude=True)
    bounds = score_difference_range(scoring, task)  # a difference's range
    tests = named_tests(scores, test, margin, names, bounds)
    fraction = split_test_fraction(scores)
    recommendation = recommend(scores, margin, fraction, design["random_state"])
    tests_part = tests_settings(test, margin, fraction, score_name, measured,
                                curvature_params)  # fmt: skip
    baselines, left_out = design["baselines"], design["left_out"]
    settings = _design_settings(
        design["gates"], design["alphas"], design["cv"], design["splits"],
        design["estimator"], {
            **tests_part, "random_state": design["random_state"],
            "baselines": {name: repr(model) for name, model in baselines.items()},
            "baselines note": left_out,
        }, design["seconds"],
    )  # fmt: skip
    against = baselines_verdict(tests, scores, score_name, left_out)
    verdict = comparison_verdict(tests, recommendation, *names, against=against)
    return GateComparison(scores, tests, verdict, recommendation, task, settings,
                          against)  # fmt: skip


def _dry_runs(estimator, baselines, data, split, scorer, curvature_params):
    """Before any training: the first gate built and measured (not trained)
    and each baseline fitted and scored once, on the first split, so that
    what cannot work here fails named at once (the gates' own checks
    first)."""
    dry_run(estimator, data, scorer, curvature_params)
    dry_run_baselines(baselines, data, split, scorer)


def _n_tests(gates, baselines):
    """The tests of a comparison: every pair in score, the gates' pairs in
    curvature too."""
    models = gates + baselines
    return models * (models - 1) // 2 + gates * (gates - 1) // 2


def _with_baselines(scores, baselines, data, splits, scorer, n_jobs):
    """The gates' rows and, after them, every baseline's on every split
    ("baseline" True, no curvature), with a digest of its predictions."""
    scores = scores.assign(baseline=False)
    rows = baseline_rows(baselines, data, splits, scorer, n_jobs, digest=True)
    if not rows:
        return scores
    frame = pd.DataFrame([row for _, row in rows])
    frame.insert(0, "arm", [name for name, _ in rows])
    frame.insert(1, "gate", None)
    frame.insert(2, "alpha", np.nan)
    frame["curvature measure"] = "none (a baseline)"
    frame["baseline"] = True
    return pd.concat([scores, frame[scores.columns]], ignore_index=True)


def _design_settings(gates, alphas, cv, splits, estimator, tests, seconds):
    """A comparison's ``settings_``: its design, ``tests`` (the tests'
    settings), the arms' shared estimator parameters and the fits' time."""
    return {
        "gates": list(gates),
        "alphas": None if alphas is None else list(alphas),
        "cv": cv if isinstance(cv, Integral) else describe_cv(cv),
        "n_repeats": splits[-1].repeat + 1,
        "splits": len(splits),
        **tests,
        "estimator_params": shared_params(estimator),
        "seconds": seconds,
    }


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

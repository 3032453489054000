"""benchmark_gates, all of it in one call: check, run every dataset,
summarise."""

import time
from numbers import Integral

from .._docstrings import fill_docstring
from .._evaluation import (
    check_gates,
    check_margin_for,
    check_options,
    curvature_label,
    library_versions,
    scoring_name,
    shared_params,
)
from .defaults import DEFAULT_CV, DEFAULT_INNER_CV
from .design import alphas_of, check_datasets, check_memory, make_design
from .result import GateBenchmark
from .runs import run_datasets

_PARAMETERS_DOC = """\
Parameters
----------
datasets : mapping of str to (X, y) or to a callable returning (X, y)
    At least 2 classification datasets by name; a loader is called when
    its dataset's turn comes, so that only one is in memory at a time. X
    is a table, or series: a 3-D array (n_cases, n_channels,
    n_timepoints) or a list of 2-D arrays (n_channels, n_timepoints_i).
gates : sequence of str, default=("multiplicative", "silu", "none")
    At least 2 registered gates, in the order of the claim: the first is
    compared with every other.
alphas : sequence of float, optional
    Strengths of the gates that have one, each a model of its own.
baselines : mapping of str to classifier, or sequence of classifiers, optional
    The models a user would pick instead (default
    :func:`default_baselines`: MLP, logistic regression and histogram
    gradient boosting at scikit-learn's defaults). Each is fitted on the
    same preprocessed splits, from the split's seed when it takes a
    ``random_state``. An empty sequence compares the gates alone. On a
    dataset of series, a time-series model (aeon's, e.g.
    ``MiniRocketClassifier``) reads them as given, any other each series
    flattened (series of one length only).
tuning : {None, "grid"}, default=None
    None: every model at its defaults, the comparison a user gets out of
    the box. "grid": each model at its best: on each split's training rows
    alone, every configuration of its grid is fitted on the same inner
    folds (``inner_cv``) as every other model's, and the one with the best
    mean inner score (the first of equals) is fitted on all the training
    rows and scored on the split's test rows. Every model searches as many
    configurations, and every gate trains as many epochs (``max_epochs``,
    default :data:`TUNED_MAX_EPOCHS`); the gates' fits are batched
    (:func:`skgate.parallel.fit_together`). Costs about
    ``n_configurations x (inner_cv - 1) + 1`` times the defaults' fits.
param_grids : dict of str to parameter grid, optional
    With ``tuning="grid"``: a model's name (a gate, a baseline) to its
    grid, as ``sklearn.model_selection.ParameterGrid`` takes it (a dict of
    each parameter's values, or a list of such dicts). A model it does not
    name searches :func:`default_param_grid` (8 configurations). Every
    model must have as many configurations; no grid may set
    ``random_state`` (each split's seed), nor a gate's ``gate`` or
    ``max_epochs``.
inner_cv : int or cross-validation splitter, default=3
    With ``tuning="grid"``: folds of stratified k-fold on each split's
    training rows (shuffled from the split's seed), or a splitter; each
    inner fold is preprocessed from its own training rows.
cv : int or cross-validation splitter, default=10
    Folds of stratified k-fold on each dataset (or a splitter).
n_repeats : int, optional
    Repeats of the k-fold (default 1 for an int ``cv``).
margin : float, optional
    The smallest score difference of interest (default 0.02): the
    Bayesian signed-rank test's region of practical equivalence, and the
    per-dataset tests' equivalence margin; at most 1 for a score of at
    most 1 (the default accuracy, or a scorer of a metric in [0, 1]).
scoring : str or callable, optional
    One scikit-learn scorer (default: accuracy).
curvature_params : dict, optional
    Keywords of :func:`skgate.representation_curvature` for the gates'
    curvature (``kind`` defaults to "turning").
preprocessor : transformer, "passthrough" or None, default=None
    Fitted on each split's training rows. None: numeric columns
    standardised and every other column one-hot encoded
    (:func:`default_preprocessor`); "passthrough": X used as given.
random_state : int, optional
    Seeds each dataset's splits and models from the dataset's name and
    this number, so a dataset's rows do not depend on the others.
n_jobs : int, optional
    Fits in parallel within a dataset (joblib; a Dask cluster through
    :func:`skgate.parallel.on_cluster`); the results do not depend on it.
memory : str, path or joblib.Memory, optional
    Caches each dataset's rows as soon as they are done, so an
    interrupted run, called again, resumes from the dataset in progress.
    The cache is keyed on the data and the design, not on skgate's code:
    clear it when skgate changes.
verbose : int, default=0
    1: a progress bar over the datasets; 2: also a line per dataset.
**estimator_params
    Passed to every gate's estimator (e.g. ``max_epochs``); tuned, the
    values a configuration does not set.
"""


def benchmark_gates(
    datasets,
    *,
    gates=("multiplicative", "silu", "none"),
    alphas=None,
    baselines=None,
    tuning=None,
    param_grids=None,
    inner_cv=DEFAULT_INNER_CV,
    cv=DEFAULT_CV,
    n_repeats=None,
    margin=None,
    scoring=None,
    curvature_params=None,
    preprocessor=None,
    random_state=None,
    n_jobs=None,
    memory=None,
    verbose=0,
    **estimator_params,
):
    """Train the gates and the baselines on the same splits of every
    dataset, and compare them across datasets.

    {parameters}

    Returns
    -------
    GateBenchmark

    Notes
    -----
    Friedman's test and Nemenyi's critical difference read average ranks,
    so a pair's Nemenyi p depends on which other models are in the
    benchmark (Benavoli, Corani & Mangili, 2016); the Bayesian signed-rank
    test of a pair reads only that pair's differences. "Best gate" is the
    gate with the best average rank here, chosen after seeing the data.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skgate import benchmark_gates, make_curved_task, make_linear_task
    >>> datasets = {"curved": make_curved_task(90, random_state=0),
    ...             "linear": make_linear_task(90, random_state=0)}
    >>> result = benchmark_gates(datasets, gates=("multiplicative", "none"),
    ...                          baselines={"LogReg": LogisticRegression()},
    ...                          cv=3, max_epochs=2, random_state=0)
    >>> result.ranks_.shape, list(result.tests_["comparison"])
    ((2, 3), ['multiplicative > none', 'multiplicative > LogReg'])

    Each model at its best: two configurations each, compared on 2 inner
    folds of every training part.

    >>> grids = {"multiplicative": {"lr": [1e-3, 1e-2]},
    ...          "none": {"lr": [1e-3, 1e-2]}, "LogReg": {"C": [0.1, 1.0]}}
    >>> tuned = benchmark_gates(datasets, gates=("multiplicative", "none"),
    ...                         baselines={"LogReg": LogisticRegression()},
    ...                         tuning="grid", param_grids=grids, inner_cv=2,
    ...                         cv=3, max_epochs=2, random_state=0)
    >>> tuned.tuning_, tuned.best_params_.shape
    ('grid', (18, 9))
    >>> tuned.best_params_.loc[0, ["model", "n_configurations"]].to_dict()
    {'model': 'multiplicative', 'n_configurations': 2}
    """
    margin = check_options(
        random_state, n_repeats, "corrected-t", margin, alphas, verbose, n_jobs,
        estimator_params,
    )  # fmt: skip
    check_margin_for(margin, scoring, "classification")
    datasets = check_datasets(datasets)
    design = make_design(gates, alphas, baselines, cv, n_repeats, scoring,
                     curvature_params, preprocessor, random_state,
                     estimator_params, tuning, param_grids, inner_cv)  # fmt: skip
    memory = check_memory(memory)
    start = time.perf_counter()
    scores, best_params = run_datasets(datasets, design, n_jobs, memory, verbose)
    given = dict(gates=gates, cv=cv, scoring=scoring, random_state=random_state,
                 tuning=tuning, seconds=time.perf_counter() - start)  # fmt: skip
    return _benchmark_result(scores, best_params, design, margin, given)


def _benchmark_result(scores, best_params, design, margin, given):
    """The :class:`GateBenchmark` of a run's rows, with its settings: what
    was ``given`` and what the design holds."""
    cv = given["cv"]
    settings = {
        "gates": list(check_gates(given["gates"])),
        "alphas": alphas_of(design),
        "baselines": {name: repr(b) for name, b in design.baselines.items()},
        "cv": cv if isinstance(cv, Integral) else repr(cv),
        "n_repeats": design.n_repeats,
        "score": scoring_name(given["scoring"], "classification"),
        "curvature": curvature_label(design.curvature_params),
        "random_state": given["random_state"],
        "estimator_params": shared_params(design.estimators[0][1]),
        "tuning": given["tuning"],
        **_tuning_settings(design.tuning),
        "seconds": given["seconds"],
        "versions": library_versions(),
    }
    models = [label for (_, _, label), _ in design.estimators] + list(design.baselines)
    return GateBenchmark.from_scores(
        scores, models=models, margin=margin, settings=settings,
        best_params=best_params,
    )  # fmt: skip


def _tuning_settings(tuning):
    """What a tuned run searched, for :attr:`GateBenchmark.settings_`."""
    if tuning is None:
        return {}
    inner_cv = tuning.inner_cv
    return {
        "inner_cv": inner_cv if isinstance(inner_cv, Integral) else repr(inner_cv),
        "n_configurations": len(next(iter(tuning.candidates.values()))),
        "param_grids": tuning.grids,
    }


fill_docstring(benchmark_gates, parameters=_PARAMETERS_DOC)

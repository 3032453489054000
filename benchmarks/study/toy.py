"""The toy-dataset benchmark: gated attention against the usual scikit-learn models.

Every bundled and generated toy dataset of scikit-learn, cross-validated
(:data:`TOY_OUTER_FOLDS` folds), with the gated model's alpha tuned by an inner
search (:data:`TOY_INNER_FOLDS` folds) selecting like
:func:`~skgate.least_curvature_refit`: :class:`~skgate.GatedAttentionClassifierCV`
(or the regressor's), which trains the search's models as one batch.
Nothing is downloaded: the data ship with scikit-learn or are generated.
Across datasets, gated against ungated by a Wilcoxon signed-rank test
(:func:`toy_gated_vs_ungated`), and the alphas the search chose
(:func:`toy_alphas`).
"""

import time
import warnings

import numpy as np
import pandas as pd
from joblib import delayed
from scipy import stats as distributions
from sklearn import datasets as sk
from sklearn.base import clone
from sklearn.ensemble import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import get_scorer
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR

from skgate.estimators import GatedAttentionClassifier, GatedAttentionRegressor
from skgate.model_selection import representation_curvature
from skgate.search import GatedAttentionClassifierCV, GatedAttentionRegressorCV

from . import words
from .design import (
    BASELINE_MAX_ITER,
    QUICK_TOY,
    TOY_INNER_FOLDS,
    TOY_OUTER_FOLDS,
    TOY_ROWS,
)
from .facts import GRIDS
from .sweeps import parallel_rows, torch_threads

__all__ = [
    "GATED",
    "QUICK_TOY",
    "TOY_SPECS",
    "UNGATED",
    "run_toy_benchmark",
    "toy_alphas",
    "toy_call",
    "toy_datasets",
    "toy_gated_vs_ungated",
    "toy_jobs",
]

#: The models TOY.md's test compares: the gated model (alpha tuned) and ungated.
GATED, UNGATED = "gated (alpha tuned)", "ungated"

#: Every toy dataset: name -> (scikit-learn function, keyword arguments, task,
#: token_dim). TOY.md prints each as the exact call.
TOY_SPECS = {
    "iris": (sk.load_iris, {"return_X_y": True}, "classification", None),
    "wine": (sk.load_wine, {"return_X_y": True}, "classification", None),
    "breast_cancer": (
        sk.load_breast_cancer,
        {"return_X_y": True},
        "classification",
        None,
    ),
    "digits": (sk.load_digits, {"return_X_y": True}, "classification", None),
    # The digits again, as a sequence of 8 rows of 8 pixels.
    "digits (8 row tokens)": (
        sk.load_digits,
        {"return_X_y": True},
        "classification",
        8,
    ),
    "moons": (
        sk.make_moons,
        {"n_samples": TOY_ROWS, "noise": 0.2, "random_state": 0},
        "classification",
        None,
    ),
    "circles": (
        sk.make_circles,
        {"n_samples": TOY_ROWS, "noise": 0.1, "factor": 0.5, "random_state": 0},
        "classification",
        None,
    ),
    "classification": (
        sk.make_classification,
        {
            "n_samples": TOY_ROWS,
            "n_features": 10,
            "n_informative": 5,
            "random_state": 0,
        },
        "classification",
        None,
    ),
    "gaussian_quantiles": (
        sk.make_gaussian_quantiles,
        {"n_samples": TOY_ROWS, "n_features": 2, "random_state": 0},
        "classification",
        None,
    ),
    "blobs": (
        sk.make_blobs,
        {"n_samples": TOY_ROWS, "centers": 3, "random_state": 0},
        "classification",
        None,
    ),
    "diabetes": (sk.load_diabetes, {"return_X_y": True}, "regression", None),
    "friedman1": (
        sk.make_friedman1,
        {"n_samples": TOY_ROWS, "random_state": 0},
        "regression",
        None,
    ),
}


def toy_call(name):
    """The exact scikit-learn call that makes toy dataset ``name``, as text."""
    function, kwargs, _, _ = TOY_SPECS[name]
    arguments = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    return f"sklearn.datasets.{function.__name__}({arguments})"


def toy_datasets():
    """name -> (X, y, task, token_dim): every bundled and generated toy dataset.

    ``task`` is "classification" or "regression"; ``token_dim`` is the sequence
    form used by the gated attention models (None: copied tokens). The
    digits appear twice: copied tokens, and 8 row-tokens of 8 pixels each.
    Nothing is downloaded: the data ship with scikit-learn or are generated
    (:data:`TOY_SPECS`, printed by :func:`toy_call`).
    """
    return {
        name: (*function(**kwargs), task, token_dim)
        for name, (function, kwargs, task, token_dim) in TOY_SPECS.items()
    }


def _toy_models(task, token_dim, max_epochs):
    """The models compared on one toy dataset, by name (as in TOY.md's columns)."""
    common = {"token_dim": token_dim, "random_state": 0}
    if max_epochs is not None:
        common["max_epochs"] = max_epochs
    if task == "classification":
        gated, gated_cv = GatedAttentionClassifier, GatedAttentionClassifierCV
        others = {
            "LogisticRegression": LogisticRegression(max_iter=BASELINE_MAX_ITER),
            "SVC (RBF)": SVC(),
            "MLPClassifier": MLPClassifier(max_iter=BASELINE_MAX_ITER, random_state=0),
            "RandomForest": RandomForestClassifier(random_state=0),
            "HistGradientBoosting": HistGradientBoostingClassifier(random_state=0),
        }
    else:
        gated, gated_cv = GatedAttentionRegressor, GatedAttentionRegressorCV
        others = {
            "Ridge": Ridge(),
            "SVR (RBF)": SVR(),
            "MLPRegressor": MLPRegressor(max_iter=BASELINE_MAX_ITER, random_state=0),
            "RandomForest": RandomForestRegressor(random_state=0),
            "HistGradientBoosting": HistGradientBoostingRegressor(random_state=0),
        }
    # The alpha search is the batched CV estimator: the candidates
    # GridSearchCV(gated(**common), alphas, refit=least_curvature_refit)
    # would fit, on the same splits, trained as one network.
    tuned = gated_cv(GRIDS.coarse_alphas, cv=TOY_INNER_FOLDS, **common)
    return {
        GATED: tuned,
        "SiLU": gated(gate="silu", **common),
        UNGATED: gated(gate="none", **common),
        **others,
    }


def _toy_fold(name, model_name, model, X, y, fold, train, test, task):
    """Fit one (scaled) model on one fold; score it, and for the tuned gate,
    the chosen alpha and the curvature of the chosen model on the test fold."""
    score = "accuracy" if task == "classification" else "r2"
    pipe = make_pipeline(StandardScaler(), clone(model))
    with torch_threads(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        pipe.fit(X[train], y[train])
        seconds = time.perf_counter() - start
        row = {
            "dataset": name,
            "model": model_name,
            "fold": fold,
            "score": get_scorer(score)(pipe, X[test], y[test]),
            "alpha": np.nan,
            "curvature": np.nan,
        }
        final = pipe[-1]
        if hasattr(final, "best_estimator_"):
            row["alpha"] = final.best_params_["alpha"]
            X_test = pipe[0].transform(X[test])
            row["curvature"] = representation_curvature(
                final.best_estimator_, X_test
            ).mean()
    row["fit_seconds"] = seconds
    row["task"] = task
    return row


def run_toy_benchmark(*, names=None, max_epochs=None, n_jobs=1, progress=True):
    """Every toy dataset x model, cross-validated (stratified for classification).

    One row per dataset, model and fold (:data:`TOY_OUTER_FOLDS` folds): the
    test score (accuracy or R²), and for the gated model, tuned over alpha by
    an inner :data:`TOY_INNER_FOLDS`-fold GridSearchCV with
    :func:`~skgate.least_curvature_refit`, the alpha it chose and that model's
    curvature on the test fold. Models see StandardScaler-ed data.
    ``max_epochs=None`` trains the gated models for their default epochs.
    """
    jobs = toy_jobs(names=names, max_epochs=max_epochs)
    rows = parallel_rows(jobs, n_jobs=n_jobs, progress=progress, description="toy")
    return pd.DataFrame(rows)


def toy_jobs(*, names=None, max_epochs=None):
    """The benchmark's fits as joblib jobs, one per row of its table in
    the table's order (dataset, fold, model): each gives its row."""
    datasets = toy_datasets()
    names = list(datasets) if names is None else list(names)
    jobs = []
    for name in names:
        X, y, task, token_dim = datasets[name]
        splitter = StratifiedKFold if task == "classification" else KFold
        cv = splitter(TOY_OUTER_FOLDS, shuffle=True, random_state=0)
        models = _toy_models(task, token_dim, max_epochs)
        for fold, (train, test) in enumerate(cv.split(X, y)):
            jobs += [
                delayed(_toy_fold)(name, label, model, X, y, fold, train, test, task)
                for label, model in models.items()
            ]
    return jobs


# -- gated against ungated, across datasets -------------------------------------


def toy_gated_vs_ungated(toy):
    """Wilcoxon signed-rank test of gated vs ungated over datasets (mean scores)."""
    means = toy.groupby(["dataset", "model"], sort=False)["score"].mean().unstack()
    diff = means[GATED] - means[UNGATED]
    if len(diff) > 1 and (diff != 0).any():
        p = distributions.wilcoxon(means[GATED], means[UNGATED]).pvalue
    else:
        p = 1.0
    return {
        "datasets": int(len(diff)),
        "gated better": int((diff > 0).sum()),
        "ungated better": int((diff < 0).sum()),
        "median difference": float(diff.median()),
        "p": float(p),
        "differences": diff,
    }


def toy_alphas(toy):
    """Per dataset: the alphas the refit rule chose over folds, and their curvature."""
    gated = toy[toy["model"] == GATED]
    return (
        gated.groupby("dataset", sort=False)
        .agg(
            alphas=("alpha", words.values),
            alpha_zero=("alpha", lambda a: int((a == 0).sum())),
            folds=("alpha", "size"),
            curvature=("curvature", "mean"),
        )
        .reset_index()
    )

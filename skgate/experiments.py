"""Sweeps over tasks x model settings x seeds, one row per fit, as a pandas DataFrame.

A *setting* is a flat dict: the task (``task``, ``shape``, ``n_samples``,
``noise``, ``n_observations``), the model (``gate``, ``alpha``, ``depth``,
``head``, ``d_model``, ``max_epochs``) and the ``seed``. :func:`run_setting`
makes the data, splits it (70/30, stratified), fits a
:class:`~skgate.GatedAttentionClassifier` and measures it; :func:`run_sweep`
runs many settings in parallel with joblib. Every number is determined by the
setting alone (torch runs single-threaded inside a setting), so a sweep gives
the same rows whatever ``n_jobs`` is; only the timings vary.

Examples
--------
>>> from skgate.experiments import grid, run_sweep
>>> settings = grid(task=["curved"], shape=["circle"], gate=["none", "silu"],
...                 n_samples=[120], max_epochs=[1], seed=[0])
>>> frame = run_sweep(settings, progress=False)
>>> frame[["gate", "accuracy", "curvature_exact"]].shape
(2, 3)
"""

import time
from contextlib import contextmanager

import numpy as np
import pandas as pd
import torch
from joblib import Parallel, delayed
from sklearn.datasets import make_circles, make_moons
from sklearn.model_selection import ParameterGrid, train_test_split
from tqdm.auto import tqdm

from .datasets import make_curved_task, make_linear_task
from .estimators import GatedAttentionClassifier
from .model_selection import representation_curvature

__all__ = [
    "DEFAULTS",
    "MEASUREMENTS",
    "TIMINGS",
    "grid",
    "make_task",
    "run_setting",
    "run_sweep",
]

#: Values a setting takes unless it says otherwise.
DEFAULTS = {
    "task": "curved",
    "shape": "checkerboard",
    "n_samples": 1000,
    "noise": 0.2,
    "n_observations": 1,
    "gate": "multiplicative",
    "alpha": 1.0,
    "depth": 1,
    "head": "mlp",
    "d_model": 64,
    "max_epochs": 20,
    "seed": 0,
    "condition_numbers": (),
    "n_curvature": 200,
}

#: Columns of a sweep that are measurements (deterministic) ...
MEASUREMENTS = [
    "accuracy",
    "curvature_fd",
    "curvature_exact",
    "curvature_extrinsic",
]
#: ... and those that are timings (vary from run to run).
TIMINGS = ["fit_seconds"]

TASKS = ("curved", "linear", "moons", "circles")


def make_task(task, *, shape, n_samples, noise, n_observations, seed):
    """X, y of a named task: "curved" (with ``shape``), "linear", "moons", "circles"."""
    if task == "curved":
        return make_curved_task(
            n_samples,
            shape=shape,
            noise=noise,
            n_observations=n_observations,
            random_state=seed,
        )
    if task == "linear":
        return make_linear_task(
            n_samples, noise=noise, n_observations=n_observations, random_state=seed
        )
    if n_observations != 1:
        raise ValueError(f"task={task!r} has no sequence form; use n_observations=1.")
    if task == "moons":
        return make_moons(n_samples, noise=noise, random_state=seed)
    if task == "circles":
        return make_circles(n_samples, noise=noise, factor=0.5, random_state=seed)
    raise ValueError(f"task must be one of {list(TASKS)}; got {task!r}.")


def grid(**axes):
    """All combinations of the given values, as a list of settings.

    Each keyword is a list of values for that setting key (as in
    :class:`sklearn.model_selection.ParameterGrid`); keys not given keep
    :data:`DEFAULTS`. Concatenate grids with ``+``.
    """
    unknown = sorted(set(axes) - set(DEFAULTS))
    if unknown:
        raise ValueError(
            f"unknown setting keys {unknown}; allowed: {sorted(DEFAULTS)}."
        )
    return [{**DEFAULTS, **point} for point in ParameterGrid(axes)]


@contextmanager
def _torch_threads(n):
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def run_setting(setting):
    """Fit and measure one setting; returns one row (a dict).

    The row holds the setting (``alpha`` is NaN for gates other than
    "multiplicative", where it has no effect; ``shape`` is None for tasks other
    than "curved"), ``token_dim`` (2 for sequences),
    and the measurements on up to ``n_curvature`` test rows: ``accuracy`` (on
    the whole test split), ``curvature_fd`` (the paper's acceleration by float64
    central differences), ``curvature_exact`` (the same, exact),
    ``curvature_extrinsic``, ``curvature_cond_<c>`` (exact acceleration under the
    anisotropic metric of condition number ``c``, for each of
    ``condition_numbers``), and ``fit_seconds``.
    """
    s = {**DEFAULTS, **setting}
    X, y = make_task(
        s["task"],
        shape=s["shape"],
        n_samples=s["n_samples"],
        noise=s["noise"],
        n_observations=s["n_observations"],
        seed=s["seed"],
    )
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=s["seed"]
    )
    token_dim = 2 if s["n_observations"] > 1 else None
    clf = GatedAttentionClassifier(
        gate=s["gate"],
        alpha=s["alpha"],
        depth=s["depth"],
        head=s["head"],
        d_model=s["d_model"],
        token_dim=token_dim,
        max_epochs=s["max_epochs"],
        random_state=s["seed"],
    )
    # One thread per setting: the same bits whatever n_jobs is, and no
    # oversubscription when joblib runs settings side by side.
    with _torch_threads(1):
        start = time.perf_counter()
        clf.fit(X_train, y_train)
        fit_seconds = time.perf_counter() - start
        X_curv = X_test[: s["n_curvature"]]
        row = {
            **{k: v for k, v in s.items() if k != "condition_numbers"},
            "alpha": s["alpha"] if s["gate"] == "multiplicative" else np.nan,
            "shape": s["shape"] if s["task"] == "curved" else None,
            "token_dim": token_dim,
            "accuracy": clf.score(X_test, y_test),
            "curvature_fd": representation_curvature(
                clf, X_curv, method="finite_difference"
            ).mean(),
            "curvature_exact": representation_curvature(clf, X_curv).mean(),
            "curvature_extrinsic": representation_curvature(
                clf, X_curv, kind="extrinsic"
            ).mean(),
        }
        for c in s["condition_numbers"]:
            row[f"curvature_cond_{c:g}"] = representation_curvature(
                clf, X_curv, metric="anisotropic", condition_number=c
            ).mean()
    row["fit_seconds"] = fit_seconds
    return row


def run_sweep(settings, *, n_jobs=1, progress=True, description="sweep"):
    """Run every setting (in parallel with ``n_jobs``); one row per fit.

    Parameters
    ----------
    settings : list of dict
        E.g. from :func:`grid`.
    n_jobs : int, default=1
        joblib workers; the rows do not depend on it.
    progress : bool, default=True
        Show a progress bar (tqdm) on stderr.
    description : str, default="sweep"
        The progress bar's label.

    Returns
    -------
    pandas.DataFrame
        In the order of ``settings``.
    """
    jobs = (delayed(run_setting)(setting) for setting in settings)
    rows = Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
    rows = tqdm(rows, total=len(settings), desc=description, disable=not progress)
    return pd.DataFrame(list(rows))


# -- the study of the paper's claims ------------------------------------------

SHAPES = ("circle", "cross", "checkerboard", "rings")
GATE_ORDER = ("multiplicative", "silu", "none")
ALPHAS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5)
CONDITION_NUMBERS = (1, 10, 100, 1000, 10000)


def study_settings(*, quick=False, seeds=None):
    """The settings of every sweep of the reproduction study, by name.

    - "gates" (C1, C4): curved tasks x gates x head {mlp, linear} x tokens
      {copied, 8 noisy observations as a sequence}, with curvature under the
      anisotropic metrics of :data:`CONDITION_NUMBERS`.
    - "alpha" (C2, C3): alpha in :data:`ALPHAS` on curved tasks and the linear task.
    - "depth_init", "depth_trained" (C5): depth 1..6 at initialisation (max_epochs=0,
      four times the seeds) and after training.

    ``quick`` keeps one shape (checkerboard), fewer alphas and depths, 600
    samples and 2 seeds by default; the full study uses 5 seeds by default.
    """
    seeds = list(range(seeds if seeds is not None else (2 if quick else 5)))
    shapes = ["checkerboard"] if quick else list(SHAPES)
    alphas = [0.0, 0.5, 1.0, 1.5] if quick else list(ALPHAS)
    depths = [1, 2, 3, 4] if quick else [1, 2, 3, 4, 5, 6]
    n_samples = [600 if quick else 1000]
    gates = list(GATE_ORDER)
    init_seeds = list(range(4 * len(seeds)))
    return {
        "gates": grid(
            task=["curved"],
            shape=shapes,
            gate=gates,
            head=["mlp", "linear"],
            n_observations=[1, 8],
            n_samples=n_samples,
            condition_numbers=[CONDITION_NUMBERS],
            seed=seeds,
        ),
        "alpha": grid(
            task=["curved"], shape=shapes, alpha=alphas, n_samples=n_samples, seed=seeds
        )
        + grid(task=["linear"], alpha=alphas, n_samples=n_samples, seed=seeds),
        "depth_init": grid(
            shape=["checkerboard"],
            gate=gates,
            depth=depths,
            max_epochs=[0],
            n_samples=n_samples,
            seed=init_seeds,
        ),
        "depth_trained": grid(
            shape=["checkerboard"],
            gate=gates,
            depth=depths,
            n_samples=n_samples,
            seed=seeds,
        ),
    }


BASELINE_TASKS = {
    "moons": {"task": "moons", "noise": 0.2},
    "circles": {"task": "circles", "noise": 0.1},
    **{shape: {"task": "curved", "shape": shape} for shape in SHAPES},
}


def _baseline_models(seed):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    return {
        "LogisticRegression": make_pipeline(StandardScaler(), LogisticRegression()),
        "SVC (RBF)": make_pipeline(StandardScaler(), SVC()),
        "MLPClassifier": make_pipeline(
            StandardScaler(), MLPClassifier(max_iter=2000, random_state=seed)
        ),
        "RandomForest": RandomForestClassifier(random_state=seed),
    }


def run_baseline(task_name, seed, n_samples):
    """scikit-learn models on one task and seed, on the split run_setting uses."""
    s = {**DEFAULTS, **BASELINE_TASKS[task_name], "n_samples": n_samples}
    X, y = make_task(
        s["task"],
        shape=s["shape"],
        n_samples=n_samples,
        noise=s["noise"],
        n_observations=1,
        seed=seed,
    )
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=seed
    )
    rows = []
    with _torch_threads(1):
        for name, model in _baseline_models(seed).items():
            start = time.perf_counter()
            model.fit(X_train, y_train)
            seconds = time.perf_counter() - start
            rows.append(
                {
                    "dataset": task_name,
                    "model": name,
                    "seed": seed,
                    "accuracy": model.score(X_test, y_test),
                    "fit_seconds": seconds,
                }
            )
    return rows


def baseline_settings(*, quick=False, seeds=None):
    """Settings of the gated attention models on the baseline tasks."""
    seeds = list(range(seeds if seeds is not None else (2 if quick else 5)))
    n_samples = 600 if quick else 1000
    names = ["moons", "circles", "checkerboard"] if quick else list(BASELINE_TASKS)
    settings = []
    for name in names:
        settings += grid(
            **{key: [value] for key, value in BASELINE_TASKS[name].items()},
            gate=list(GATE_ORDER),
            n_samples=[n_samples],
            seed=seeds,
        )
    return names, seeds, n_samples, settings


def run_baselines(names, seeds, n_samples, *, n_jobs=1, progress=True):
    """scikit-learn baselines on every named task and seed, one row per fit."""
    jobs = [
        delayed(run_baseline)(name, seed, n_samples) for name in names for seed in seeds
    ]
    rows = Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
    rows = tqdm(rows, total=len(jobs), desc="baselines", disable=not progress)
    return pd.DataFrame([row for group in rows for row in group])


# -- scale-out -------------------------------------------------------------------


def _register_resilient_dask_backend():
    """joblib backend "dask-resilient": Dask, surviving the loss of a worker.

    joblib's own "dask" backend scatters every argument over 1 kB (the data,
    the fold indices) to one worker; when that worker dies the data is gone
    and every task that needs it is cancelled, so the search fails. This
    backend ships the arguments inside each task instead (more transfer, fine
    for data of this size), so the scheduler can rerun a dead worker's tasks
    on another. Registered when dask.distributed is installed.
    """
    try:
        from joblib import register_parallel_backend
        from joblib._dask import Batch, DaskDistributedBackend
    except ImportError:  # dask.distributed is an optional extra
        return

    class ResilientDaskBackend(DaskDistributedBackend):
        async def _to_func_args(self, func):
            tasks = [(f, list(args), dict(kwargs)) for f, args, kwargs in func.items]
            return Batch(tasks), tasks

    register_parallel_backend("dask-resilient", ResilientDaskBackend)


_register_resilient_dask_backend()


# -- scikit-learn's toy datasets ---------------------------------------------------


def toy_datasets():
    """name -> (X, y, task, token_dim): every bundled and generated toy dataset.

    ``task`` is "classification" or "regression"; ``token_dim`` is the sequence
    form used by the gated attention models (None: copied tokens). The
    digits appear twice: copied tokens, and 8 row-tokens of 8 pixels each.
    Nothing is downloaded: the data ship with scikit-learn or are generated.
    """
    from sklearn import datasets as sk

    def loaded(loader):
        return loader(return_X_y=True)

    digits = loaded(sk.load_digits)
    return {
        "iris": (*loaded(sk.load_iris), "classification", None),
        "wine": (*loaded(sk.load_wine), "classification", None),
        "breast_cancer": (*loaded(sk.load_breast_cancer), "classification", None),
        "digits": (*digits, "classification", None),
        "digits (8 row tokens)": (*digits, "classification", 8),
        "moons": (*make_moons(500, noise=0.2, random_state=0), "classification", None),
        "circles": (
            *make_circles(500, noise=0.1, factor=0.5, random_state=0),
            "classification",
            None,
        ),
        "classification": (
            *sk.make_classification(
                500, n_features=10, n_informative=5, random_state=0
            ),
            "classification",
            None,
        ),
        "gaussian_quantiles": (
            *sk.make_gaussian_quantiles(n_samples=500, n_features=2, random_state=0),
            "classification",
            None,
        ),
        "blobs": (
            *sk.make_blobs(500, centers=3, random_state=0),
            "classification",
            None,
        ),
        "diabetes": (*loaded(sk.load_diabetes), "regression", None),
        "friedman1": (*sk.make_friedman1(500, random_state=0), "regression", None),
    }


TOY_ALPHAS = (0.0, 0.5, 1.0, 1.5)


def _toy_models(task, token_dim, max_epochs):
    from sklearn.ensemble import (
        HistGradientBoostingClassifier,
        HistGradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.model_selection import GridSearchCV
    from sklearn.neural_network import MLPClassifier, MLPRegressor
    from sklearn.svm import SVC, SVR

    from .estimators import GatedAttentionRegressor
    from .model_selection import curvature_score, least_curvature_refit

    classify = task == "classification"
    score = "accuracy" if classify else "r2"
    gated_class = GatedAttentionClassifier if classify else GatedAttentionRegressor
    common = {"token_dim": token_dim, "max_epochs": max_epochs, "random_state": 0}
    return {
        "gated (alpha tuned)": GridSearchCV(
            gated_class(**common),
            {"alpha": list(TOY_ALPHAS)},
            cv=3,
            scoring={score: score, "curvature": curvature_score},
            refit=least_curvature_refit(score=score),
        ),
        "SiLU": gated_class(gate="silu", **common),
        "ungated": gated_class(gate="none", **common),
        "LogisticRegression" if classify else "Ridge": (
            LogisticRegression(max_iter=2000) if classify else Ridge()
        ),
        "SVC (RBF)" if classify else "SVR (RBF)": SVC() if classify else SVR(),
        "MLPClassifier" if classify else "MLPRegressor": (
            MLPClassifier(max_iter=2000, random_state=0)
            if classify
            else MLPRegressor(max_iter=2000, random_state=0)
        ),
        "RandomForest": (
            RandomForestClassifier(random_state=0)
            if classify
            else RandomForestRegressor(random_state=0)
        ),
        "HistGradientBoosting": (
            HistGradientBoostingClassifier(random_state=0)
            if classify
            else HistGradientBoostingRegressor(random_state=0)
        ),
    }


def _toy_fold(name, model_name, model, X, y, fold, train, test, score):
    """Fit one (scaled) model on one fold; score it, and for the tuned gate,
    the chosen alpha and the curvature of the chosen model on the test fold."""
    import warnings

    from sklearn.base import clone
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics import get_scorer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from .model_selection import representation_curvature

    pipe = make_pipeline(StandardScaler(), clone(model))
    with _torch_threads(1), warnings.catch_warnings():
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
    return row


def run_toy_benchmark(*, names=None, max_epochs=20, n_jobs=1, progress=True):
    """Every toy dataset x model, 5-fold CV (stratified for classification).

    One row per dataset, model and fold: the test score (accuracy or R²), and
    for the gated model, tuned over alpha by an inner 3-fold GridSearchCV with
    :func:`~skgate.least_curvature_refit`, the alpha it chose and that model's
    curvature on the test fold. Models see StandardScaler-ed data.
    """
    from sklearn.model_selection import KFold, StratifiedKFold

    datasets = toy_datasets()
    names = list(datasets) if names is None else list(names)
    jobs = []
    for name in names:
        X, y, task, token_dim = datasets[name]
        cv = (
            StratifiedKFold(5, shuffle=True, random_state=0)
            if task == "classification"
            else KFold(5, shuffle=True, random_state=0)
        )
        score = "accuracy" if task == "classification" else "r2"
        models = _toy_models(task, token_dim, max_epochs)
        for fold, (train, test) in enumerate(cv.split(X, y)):
            for model_name, model in models.items():
                jobs.append(
                    delayed(_toy_fold)(
                        name, model_name, model, X, y, fold, train, test, score
                    )
                )
    rows = Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
    rows = tqdm(rows, total=len(jobs), desc="toy", disable=not progress)
    frame = pd.DataFrame(list(rows))
    frame["task"] = [datasets[name][2] for name in frame["dataset"]]
    return frame

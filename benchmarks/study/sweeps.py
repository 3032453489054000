"""Sweeps over tasks x model settings x seeds, one row per fit, as a pandas DataFrame.

A *setting* is a flat dict: the task (``task``, ``shape``, ``n_samples``,
``noise``, ``n_observations``), the model (``gate``, ``alpha``, ``depth``,
``head``, ``d_model``, ``max_epochs``, ``lr``, ``early_stopping``,
``n_iter_no_change``, ``n_heads``, ``gate_init``, ``architecture``: a key of
:data:`ARCHITECTURES`) and the ``seed``. :func:`run_setting`
makes the data, splits it (stratified, :data:`TEST_SIZE` held out), fits a
:class:`~skgate.GatedAttentionClassifier` and measures it; :func:`run_sweep`
runs many settings in parallel with joblib. Every number is determined by the
setting alone (torch runs single-threaded inside a setting), so a sweep gives
the same rows whatever ``n_jobs`` is; only the timings vary.

Examples
--------
>>> from study import grid, run_sweep
>>> settings = grid(task=["curved"], shape=["circle"], gate=["none", "silu"],
...                 n_samples=[120], max_epochs=[1], seed=[0])
>>> frame = run_sweep(settings, progress=False)
>>> frame[["gate", "accuracy", "curvature_exact"]].shape
(2, 3)
"""

import functools
import math
import time
from contextlib import contextmanager

import numpy as np
import pandas as pd
import torch
from joblib import Parallel, delayed
from sklearn.datasets import make_circles, make_moons
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from tqdm.auto import tqdm

from skgate.datasets import make_curved_task, make_linear_task
from skgate.estimators import GatedAttentionClassifier
from skgate.geometry import curvature_by_metric
from skgate.model_selection import representation_curvature
from skgate.parallel import MODELS_PER_JOB, equal_parts, fit_together

from . import realdata
from .design import (
    ARCHITECTURES,
    BASELINE_MAX_ITER,
    BATCH_FREE_KEYS,
    DEFAULTS,
    MODEL_KEYS,
    TEST_SIZE,
    grid,
)
from .facts import MAKER_TASKS, SEQUENCE
from .realdata import LOADED
from .runfiles import TIMINGS

__all__ = [
    "attainable_models",
    "run_attainable",
    "ARCHITECTURES",
    "DEFAULTS",
    "GATE_INITS",
    "MEASUREMENTS",
    "MODEL_KEYS",
    "PyTorchGateInitClassifier",
    "TIMINGS",
    "batches",
    "gaussian_plane",
    "grid",
    "make_task",
    "parallel_rows",
    "run_baselines",
    "refit_setting",
    "run_batch",
    "run_groups",
    "run_setting",
    "run_sweep",
]

#: Columns of a sweep that are measurements (deterministic) ...
MEASUREMENTS = [
    "accuracy",
    "validation_score",
    "best_epoch",
    "curvature_fd",
    "curvature_exact",
    "curvature_extrinsic",
    "curvature_gaussian",
    "positive_share",
]
#: ... and those that are timings (vary from run to run):
#: :data:`study.runfiles.TIMINGS`.

TASKS = (*MAKER_TASKS, "moons", "circles", *LOADED)


class PyTorchGateInitClassifier(GatedAttentionClassifier):
    """:class:`~skgate.GatedAttentionClassifier` with the gate projection
    initialised as PyTorch's ``nn.Linear`` default (Xavier gain ``1 / sqrt(3)``
    instead of skgate's 2: weights uniform in ``+-1 / sqrt(d_model)``), from
    the same random numbers, so it differs from the default classifier in
    that scale alone. The study's sensitivity check of the initialisation."""

    gate_gain = 1 / math.sqrt(3)


#: The gate initialisations a setting may ask for (``gate_init``), by name.
GATE_INITS = {"gain 2": GatedAttentionClassifier, "pytorch": PyTorchGateInitClassifier}


def make_task(task, *, shape, n_samples, noise, n_observations, seed, n_classes=2):
    """X, y of a named task: "curved" (with ``shape`` and ``n_classes``),
    "linear", "moons", "circles", or a dataset of :mod:`study.realdata`
    (a sample of ``n_samples`` rows drawn by ``seed``; ``noise`` plays no
    part; digits: its first ``n_classes`` digits). ``n_classes`` must be the
    task's number of classes: a setting saying otherwise is refused."""
    if task == "curved":
        return make_curved_task(
            n_samples,
            shape=shape,
            noise=noise,
            n_observations=n_observations,
            n_classes=n_classes,
            random_state=seed,
        )
    if task == "linear":
        X, y = make_linear_task(
            n_samples, noise=noise, n_observations=n_observations, random_state=seed
        )
    elif n_observations != 1:
        raise ValueError(f"task={task!r} has no sequence form; use n_observations=1.")
    elif task == "moons":
        X, y = make_moons(n_samples, noise=noise, random_state=seed)
    elif task == "circles":
        X, y = make_circles(n_samples, noise=noise, factor=0.5, random_state=seed)
    elif task in LOADED:
        subset = n_classes if task in realdata.SLICES else None
        X, y = realdata.sample_real(task, n_samples, seed, n_classes=subset)
    else:
        raise ValueError(f"task must be one of {list(TASKS)}; got {task!r}.")
    if len(np.unique(y)) != n_classes:
        raise ValueError(
            f"n_classes={n_classes!r} but task={task!r} has "
            f"{len(np.unique(y))} classes."
        )
    return X, y


def _split(setting):
    """The setting's data, split into train and test by its seed; loaded
    datasets prepared by :func:`study.realdata.preprocessor` fitted on
    the training rows (standardised, or a principal-direction slice; the
    makers' features are already unit-sized)."""
    X, y = make_task(
        setting["task"],
        shape=setting["shape"],
        n_samples=setting["n_samples"],
        noise=setting["noise"],
        n_observations=setting["n_observations"],
        n_classes=setting["n_classes"],
        seed=setting["seed"],
    )
    split = train_test_split(
        X, y, test_size=TEST_SIZE, stratify=y, random_state=setting["seed"]
    )
    if setting["task"] in LOADED:
        X_train, X_test, y_train, y_test = split
        prepare = realdata.preprocessor(setting["task"]).fit(X_train)
        split = [prepare.transform(X_train), prepare.transform(X_test), y_train, y_test]
    return split


@contextmanager
def torch_threads(n):
    """Run the block with ``n`` torch threads, then restore the caller's number."""
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _centre_plane(X):
    """Orthonormal directions (2, p) moving every 2-D observation of a row
    alike: the plane of the latent centre."""
    n_observations = X.shape[1] // 2
    return np.kron(np.ones(n_observations), np.eye(2)) / np.sqrt(n_observations)


def gaussian_plane(X, task):
    """The input plane whose image's Gaussian curvature a row reports: the
    latent centre's plane for skgate's and scikit-learn's 2-D tasks; for a
    loaded dataset (no latent plane), one random plane drawn from seed 0.

    Examples
    --------
    >>> import numpy as np
    >>> gaussian_plane(np.zeros((5, 4)), "curved").shape  # two 2-D observations
    (2, 4)
    """
    if task not in LOADED:
        return _centre_plane(X)
    rng = np.random.default_rng(0)
    basis, _ = np.linalg.qr(rng.standard_normal((X.shape[1], 2)))
    return basis.T


def _measure(clf, X_test, y_test, setting):
    """Accuracy on the test split and curvatures on its first rows."""
    X_curv = X_test[: setting["n_curvature"]]
    stopped = setting["early_stopping"]
    # Intrinsic: the Gaussian curvature of the image of the plane that moves
    # the latent centre (every observation together): the plane the label
    # lives on, the whole input for copied tokens.
    plane = gaussian_plane(X_curv, setting["task"])
    gaussian = representation_curvature(clf, X_curv, kind="gaussian", directions=plane)
    # K's noise floor at each point: its disagreement with float64 central
    # differences; a sign smaller than that is not counted (C6).
    floor = np.abs(
        gaussian
        - representation_curvature(
            clf, X_curv, kind="gaussian", directions=plane, method="finite_difference"
        )
    )
    row = {
        "accuracy": clf.score(X_test, y_test),
        # With early stopping: the best held-out score of training (what the
        # study's learning-rate search selects on) and its epoch, whose
        # weights the classifier keeps.
        "validation_score": clf.best_validation_score_ if stopped else np.nan,
        "best_epoch": (
            int(np.argmax(clf.validation_scores_)) + 1 if stopped else clf.n_iter_
        ),
        "curvature_fd": representation_curvature(
            clf, X_curv, method="finite_difference"
        ).mean(),
        "curvature_exact": representation_curvature(clf, X_curv).mean(),
        "curvature_extrinsic": representation_curvature(
            clf, X_curv, kind="extrinsic"
        ).mean(),
        # Its size, and (C6) the share of rows where it is positive beyond
        # its noise floor.
        "curvature_gaussian": np.abs(gaussian).mean(),
        "positive_share": np.mean(gaussian > floor),
    }
    # C4's metrics: each condition number, diagonal and rotated, from one
    # evaluation of the derivatives (c = 1 is the Euclidean metric itself).
    size = clf.net_.module_.n_tokens * clf.d_model  # the layer's flattened size
    names, metrics = [], []
    for c in setting["condition_numbers"]:
        names += [f"curvature_cond_{c:g}", f"curvature_rot_{c:g}"]
        metrics += [
            {"metric": "anisotropic", "condition_number": c},
            {"metric": rotated_metric(size, c)},
        ]
    if metrics:
        values = curvature_by_metric(
            clf.representation_map("attention"), X_curv, metrics
        )
        row.update(zip(names, values.mean(axis=1), strict=True))
    return row


@functools.lru_cache(maxsize=32)
def rotated_metric(size, condition_number):
    """A random rotated SPD metric ``Q diag(l) Q^T`` of the given size and
    condition number: eigenvalues log-spaced from 1 to 1 / condition_number
    (the diagonal metric's), eigenvectors a rotation drawn from seed 0 (QR of
    a Gaussian matrix), so it mixes every coordinate with every other."""
    rng = np.random.default_rng(0)
    Q, R = np.linalg.qr(rng.standard_normal((size, size)))
    Q = Q * np.sign(np.diag(R))  # the Haar-distributed rotation
    eigenvalues = np.logspace(0, -np.log10(condition_number), size)
    metric = (Q * eigenvalues) @ Q.T
    return (metric + metric.T) / 2


def _prepared(setting):
    """The setting completed with the defaults, its classifier (unfitted) and
    its split (X_train, X_test, y_train, y_test)."""
    s = {**DEFAULTS, **setting}
    token_dim = SEQUENCE.token_dim if s["n_observations"] > 1 else None
    if s["gate_init"] not in GATE_INITS:
        raise ValueError(
            f"gate_init must be one of {list(GATE_INITS)}; got {s['gate_init']!r}."
        )
    if s["architecture"] not in ARCHITECTURES:
        raise ValueError(
            f"architecture must be one of {list(ARCHITECTURES)}; got "
            f"{s['architecture']!r}."
        )
    clf = GATE_INITS[s["gate_init"]](
        **{key: s[key] for key in MODEL_KEYS},
        **ARCHITECTURES[s["architecture"]],
        token_dim=token_dim,
        random_state=s["seed"],
    )
    return s, clf, _split(s)


def _row(s, clf, split, fit_seconds, measure=None):
    """The setting's row: what it is and what its fitted classifier measures
    (``measure(clf, X_test, y_test, setting)``, default :func:`_measure`)."""
    _, X_test, _, y_test = split
    measure = _measure if measure is None else measure
    return {
        **{k: v for k, v in s.items() if k != "condition_numbers"},
        "alpha": s["alpha"] if s["gate"] == "multiplicative" else np.nan,
        "shape": s["shape"] if s["task"] == "curved" else None,
        "token_dim": clf.token_dim,
        **measure(clf, X_test, y_test, s),
        "fit_seconds": fit_seconds,
    }


def run_setting(setting):
    """Fit and measure one setting; returns one row (a dict).

    The row holds the setting (``alpha`` is NaN for gates other than
    "multiplicative", where it has no effect; ``shape`` is None for tasks other
    than "curved"), ``token_dim`` (``SEQUENCE.token_dim`` for sequences),
    and the measurements on up to ``n_curvature`` test rows: ``accuracy`` (on
    the whole test split), ``curvature_fd`` (the paper's acceleration by float64
    central differences), ``curvature_exact`` (the same, exact),
    ``curvature_extrinsic``, ``curvature_gaussian`` (mean absolute Gaussian
    curvature), ``curvature_rot_<c>`` (under :func:`rotated_metric`),
    ``curvature_cond_<c>`` (exact acceleration under the
    anisotropic metric of condition number ``c``, for each of
    ``condition_numbers``), and ``fit_seconds``.
    """
    s, clf, split = _prepared(setting)
    X_train, _, y_train, _ = split
    # One thread per setting: the same bits whatever n_jobs is, and no
    # oversubscription when joblib runs settings side by side.
    with torch_threads(1):
        start = time.perf_counter()
        clf.fit(X_train, y_train)
        fit_seconds = time.perf_counter() - start
        return _row(s, clf, split, fit_seconds)


def run_batch(settings, measure=None):
    """Fit the settings' classifiers as one batched network and measure each.

    Rows as :func:`run_setting` gives them, each the fit alone up to float32
    rounding (:func:`skgate.parallel.fit_together`); ``fit_seconds`` is the
    batch's time shared evenly. Settings that cannot share a network (other
    architectures) train in batches of their own. ``measure``: what a row
    measures (``measure(clf, X_test, y_test, setting)`` -> dict; default: the
    exploratory sweeps' measurements).
    """
    prepared = [_prepared(setting) for setting in settings]
    with torch_threads(1):
        start = time.perf_counter()
        fit_together(
            [clf for _, clf, _ in prepared],
            [(split[0], split[2], None) for _, _, split in prepared],
        )
        fit_seconds = (time.perf_counter() - start) / len(prepared)
        return [_row(s, clf, split, fit_seconds, measure) for s, clf, split in prepared]


def refit_setting(setting, measure=None, sweep=None):
    """``setting``'s row again, as its sweep wrote it: fitted alone (a batch
    of one, the same bits as in its batch) and measured by ``measure``
    (as :func:`run_batch`); ``sweep``: the sweep's name, for a table that
    labels its rows by sweep."""
    (row,) = run_batch([setting], measure)
    return row if sweep is None else {**row, "sweep": sweep}


def batches(settings):
    """Indices of ``settings`` grouped into batches: settings that differ only
    in :data:`BATCH_FREE_KEYS`, in order of first appearance, in consecutive
    parts of at most :data:`skgate.parallel.MODELS_PER_JOB` (so that two
    workers share a sweep's few large groups evenly: the long-budget C2 sweep
    has 5 groups of 120 fits). The grouping depends on the settings
    alone, never on ``n_jobs``, so the rows do not either."""
    groups = {}
    for i, setting in enumerate(settings):
        s = {**DEFAULTS, **setting}
        key = repr(sorted((k, v) for k, v in s.items() if k not in BATCH_FREE_KEYS))
        groups.setdefault(key, []).append(i)
    return [
        part for group in groups.values() for part in equal_parts(group, MODELS_PER_JOB)
    ]


def parallel_rows(jobs, *, n_jobs, progress, description, sizes=None, leave=True):
    """Run joblib ``jobs`` with a progress bar counting ``sizes`` (the fits
    of each job; default 1 each; ``leave=False``: erased at the end);
    results in the order of ``jobs``.

    Examples
    --------
    >>> from joblib import delayed
    >>> jobs = [delayed(pow)(2, k) for k in range(4)]
    >>> parallel_rows(jobs, n_jobs=1, progress=False, description="powers")
    [1, 2, 4, 8]
    """
    jobs = list(jobs)
    sizes = [1] * len(jobs) if sizes is None else sizes
    rows = []
    with tqdm(
        total=sum(sizes), desc=description, disable=not progress, leave=leave
    ) as bar:
        results = Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
        for result, size in zip(results, sizes, strict=True):
            rows.append(result)
            bar.update(size)
    return rows


def run_sweep(
    settings,
    *,
    n_jobs=1,
    progress=True,
    description="sweep",
    batched=True,
    measure=None,
    leave=True,
):
    """Run every setting (in parallel with ``n_jobs``); one row per fit.

    Parameters
    ----------
    settings : list of dict
        E.g. from :func:`grid`.
    n_jobs : int, default=1
        joblib workers; the rows do not depend on it.
    progress : bool, default=True
        Show a progress bar (tqdm) on stderr, counting fits.
    description : str, default="sweep"
        The progress bar's label.
    batched : bool, default=True
        Train the settings of each of :func:`batches` as one batched network
        (:func:`run_batch`); False fits each alone (:func:`run_setting`).
        The rows are the same, bit for bit (one training loop; see
        docs/design.md, "One training loop").
    measure : callable, default=None
        What each row measures, ``measure(clf, X_test, y_test, setting)`` ->
        dict (batched sweeps only); None: the exploratory measurements.
    leave : bool, default=True
        Keep the progress bar when the sweep ends (False: erase it).

    Returns
    -------
    pandas.DataFrame
        In the order of ``settings``.
    """
    if not batched:
        if measure is not None:
            raise ValueError("measure applies to batched sweeps; pass batched=True.")
        jobs = (delayed(run_setting)(setting) for setting in settings)
        rows = parallel_rows(
            jobs,
            n_jobs=n_jobs,
            progress=progress,
            description=description,
            leave=leave,
        )
        return pd.DataFrame(rows)
    return run_groups(
        settings,
        batches(settings),
        functools.partial(run_batch, measure=measure),
        n_jobs=n_jobs,
        progress=progress,
        description=description,
        leave=leave,
    )


def run_groups(
    settings,
    groups,
    run,
    *,
    n_jobs=1,
    progress=True,
    description="sweep",
    leave=True,
):
    """``run`` (settings -> rows) on each group of indices into ``settings``,
    in parallel; a DataFrame with one row per setting, in their order
    (``leave=False``: the progress bar is erased at the end)."""
    jobs = (delayed(run)([settings[i] for i in group]) for group in groups)
    results = parallel_rows(
        jobs,
        n_jobs=n_jobs,
        progress=progress,
        description=description,
        sizes=[len(group) for group in groups],
        leave=leave,
    )
    rows = [None] * len(settings)
    for group, group_rows in zip(groups, results, strict=True):
        for i, row in zip(group, group_rows, strict=True):
            rows[i] = row
    return pd.DataFrame(rows)


# -- what a scikit-learn user would pick instead -------------------------------


def baseline_models(seed, max_iter=BASELINE_MAX_ITER):
    """The scikit-learn models the study compares with, by name (the MLP
    stops at ``max_iter`` iterations)."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import SVC

    return {
        "LogisticRegression": make_pipeline(StandardScaler(), LogisticRegression()),
        "SVC (RBF)": make_pipeline(StandardScaler(), SVC()),
        "MLPClassifier": make_pipeline(
            StandardScaler(),
            MLPClassifier(max_iter=max_iter, random_state=seed),
        ),
        "RandomForest": RandomForestClassifier(random_state=seed),
    }


def run_baseline(setting, max_iter=BASELINE_MAX_ITER):
    """scikit-learn models on one setting's task and seed, on run_setting's split."""
    s = {**DEFAULTS, **setting}
    X_train, X_test, y_train, y_test = _split(s)
    rows = []
    with torch_threads(1):
        for name, model in baseline_models(s["seed"], max_iter).items():
            start = time.perf_counter()
            model.fit(X_train, y_train)
            seconds = time.perf_counter() - start
            rows.append(
                {
                    "model": name,
                    "seed": s["seed"],
                    "accuracy": model.score(X_test, y_test),
                    "fit_seconds": seconds,
                }
            )
    return rows


def attainable_models(seed, max_iter=BASELINE_MAX_ITER):
    """The scikit-learn models that say what a sequence task's accuracy can
    be, by name: an MLP of two hidden layers of 64, histogram gradient
    boosting and k nearest neighbours (the MLP stops at ``max_iter``)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline

    return {
        "MLP (64, 64)": make_pipeline(
            StandardScaler(),
            MLPClassifier((64, 64), max_iter=max_iter, random_state=seed),
        ),
        "HistGradientBoosting": HistGradientBoostingClassifier(random_state=seed),
        "k-NN": make_pipeline(StandardScaler(), KNeighborsClassifier()),
    }


def run_attainable(setting, max_iter=BASELINE_MAX_ITER):
    """What the models of :func:`attainable_models` reach on one setting's
    split (the rows its arms trained and were tested on), each reading a row
    as it is ("flat sequence") and, for a sequence of several observations,
    as their mean ("mean of observations"), and the rate of the training
    rows' majority class on the test rows: rows of model, input, seed and
    accuracy."""
    s = {**DEFAULTS, **setting}
    X_train, X_test, y_train, y_test = _split(s)
    majority = pd.Series(y_train).mode()[0]
    rows = [
        {
            "model": "majority class",
            "input": "none",
            "accuracy": np.mean(y_test == majority),
        }
    ]

    def mean(X):
        return X.reshape(len(X), -1, SEQUENCE.token_dim).mean(axis=1)

    inputs = {"flat sequence": (X_train, X_test)}
    if s["n_observations"] > 1:
        inputs["mean of observations"] = (mean(X_train), mean(X_test))
    with torch_threads(1):
        for reading, (train, test) in inputs.items():
            for name, model in attainable_models(s["seed"], max_iter).items():
                model.fit(train, y_train)
                rows.append(
                    {
                        "model": name,
                        "input": reading,
                        "accuracy": model.score(test, y_test),
                    }
                )
    return [{"seed": s["seed"], **row} for row in rows]


def run_baselines(settings, *, max_iter=BASELINE_MAX_ITER, n_jobs=1, progress=True):
    """scikit-learn baselines on each (task, seed) of ``settings``, one row per fit.

    ``settings`` are dicts of setting keys plus ``dataset`` (the task's name in
    the tables); models are fitted on the split :func:`run_setting` uses, the
    MLP for at most ``max_iter`` iterations.
    """
    jobs = (delayed(run_baseline)(setting, max_iter) for setting in settings)
    groups = parallel_rows(
        jobs, n_jobs=n_jobs, progress=progress, description="baselines"
    )
    return pd.DataFrame(
        [
            {"dataset": setting["dataset"], **row}
            for setting, group in zip(settings, groups, strict=True)
            for row in group
        ]
    )


def fit_boundary_models(n_samples):
    """(title, fitted gated classifier, X, y) on make_moons and the checkerboard."""
    tasks = {
        "make_moons": make_moons(n_samples, noise=0.2, random_state=0),
        "checkerboard": make_curved_task(
            n_samples, shape="checkerboard", random_state=0
        ),
    }
    panels = []
    for title, (X, y) in tasks.items():
        clf = GatedAttentionClassifier(random_state=0).fit(X, y)
        panels.append((f"{title}, gated (alpha={clf.alpha:g})", clf, X, y))
    return panels


def fit_curvature_map_models(n_samples, shape="checkerboard"):
    """(title, fitted classifier, X, y) for each gate on a curved task,
    copied tokens, MLP head, seed 0: the panels of the curvature map."""
    X, y = make_curved_task(n_samples, shape=shape, random_state=0)
    panels = []
    for gate in ("multiplicative", "silu", "none"):
        clf = GatedAttentionClassifier(gate, random_state=0).fit(X, y)
        label = f"gated (alpha={clf.alpha:g})" if gate == "multiplicative" else gate
        panels.append((f"{shape}, {label}", clf, X, y))
    return panels

"""Scale-out: many models as one network, and a joblib backend on Dask.

On one machine, :func:`fit_together` trains estimators that differ only in
``alpha``, ``random_state`` and ``lr`` as one batched network, each to the
bits of its own fit. Across machines, grid searches and sweeps parallelise
with joblib, so they run on a Dask cluster through joblib's Dask backend.
Nothing here runs on import (and importing this module imports neither
torch nor Dask): call :func:`register_dask_resilient_backend` once, then use
``parallel_config(backend="dask-resilient")``.
"""

from contextlib import contextmanager

from . import _batching
from ._batching import equal_parts

__all__ = [
    "BACKEND_NAME",
    "MAX_MODELS_PER_NETWORK",
    "MODELS_PER_JOB",
    "equal_parts",
    "fit_together",
    "on_cluster",
    "register_dask_resilient_backend",
]

#: The name the backend is registered under.
BACKEND_NAME = "dask-resilient"

# The batching constants, documented here (their values are _batching's).
#: Models per batched network at most: :func:`fit_together` trains a larger
#: group as consecutive parts of about equal size (benchmarks/results/SPEED.md,
#: "The engine's constants": 20 and 40 fold models as one network and as
#: two). Models of copied tokens would gain from larger networks, sequence
#: models lose: 40 sequence models train faster as two networks of 20 than
#: as one.
MAX_MODELS_PER_NETWORK = _batching.MAX_MODELS_PER_NETWORK

#: Models per parallel job, where many fits are spread over workers (a
#: batch of the study's sweeps, a group of a comparison's splits): small
#: enough that two workers share a few large groups evenly, large enough
#: that a model's training is near its cheapest (measured: 53 ms per model
#: at 10 models, 58 at 20, 71 at 40).
MODELS_PER_JOB = _batching.MODELS_PER_JOB


def _resilient_backend_class():
    """A subclass of joblib's Dask backend that ships arguments inside each task.

    joblib has no public hook for how its Dask backend packs a task, so this
    overrides the private ``DaskDistributedBackend._to_func_args`` and builds
    a private ``joblib._dask.Batch``; ``tests/test_parallel.py`` fails (it does
    not skip) when joblib renames or reshapes either.
    """
    try:
        from joblib._dask import Batch, DaskDistributedBackend
    except ImportError as exc:
        raise ImportError(
            "register_dask_resilient_backend needs dask.distributed: "
            "pip install 'skgate[dask]'."
        ) from exc

    class ResilientDaskBackend(DaskDistributedBackend):
        async def _to_func_args(self, func):
            tasks = [(f, list(args), dict(kwargs)) for f, args, kwargs in func.items]
            return Batch(tasks), tasks

    return ResilientDaskBackend


def register_dask_resilient_backend():
    """Register the joblib backend ``"dask-resilient"``: Dask, surviving a lost worker.

    joblib's own ``"dask"`` backend scatters every argument over 1 kB (the
    data, the fold indices) to one worker; when that worker dies the data is
    gone and every task that needs it is cancelled, so a search fails with
    ``FutureCancelledError``. This backend ships the arguments inside each
    task instead (more transfer, fine for data of this size), so the
    scheduler reruns a dead worker's tasks on another and the search
    completes with the same results. Calling it again is harmless.

    Returns
    -------
    str
        The backend's name, for ``joblib.parallel_config(backend=...)``.

    Raises
    ------
    ImportError
        When dask.distributed (the ``dask`` extra) is not installed.

    Examples
    --------
    >>> from joblib import parallel_config
    >>> from skgate.parallel import register_dask_resilient_backend
    >>> name = register_dask_resilient_backend()
    >>> name
    'dask-resilient'
    >>> # with a dask.distributed Client connected:
    >>> # with parallel_config(backend=name):
    >>> #     search.fit(X, y)
    """
    from joblib import register_parallel_backend

    register_parallel_backend(BACKEND_NAME, _resilient_backend_class())
    return BACKEND_NAME


@contextmanager
def on_cluster(address):
    """Run the block's joblib work on the Dask scheduler at ``address``
    through the resilient backend (None: locally, as without it).

    Connects a ``dask.distributed.Client`` for the block and closes it after.

    Examples
    --------
    >>> from skgate.parallel import on_cluster
    >>> with on_cluster(None):  # no scheduler: joblib's own backend
    ...     pass
    """
    if address is None:
        yield None
        return
    try:
        from distributed import Client
    except ImportError as exc:
        raise ImportError(
            "a scheduler address needs dask.distributed: pip install 'skgate[dask]'."
        ) from exc
    from joblib import parallel_config

    name = register_dask_resilient_backend()
    try:
        client = Client(address)
    except OSError as exc:  # Dask's words name neither the option nor a fix
        raise OSError(
            f"scheduler {address!r}: cannot connect ({exc}); allowed: the "
            f"address of a running Dask scheduler, e.g. tcp://host:8786."
        ) from exc
    with client, parallel_config(backend=name):
        yield client


def fit_together(estimators, data):
    """Fit ``estimators[i]`` on ``data[i]``, alike estimators as one network.

    Estimators of one class whose parameters differ only in ``alpha``,
    ``random_state`` and ``lr``, and whose data has as many columns and
    classes (or targets), train side by side as one batched network (a large
    group as a few networks of about equal size), each to the same bits as
    its own ``fit``: the same loss curve, epochs, weights and predictions,
    only sooner than one fit after another (benchmarks/results/SPEED.md:
    "10 models in one batch / one by one").
    An estimator with callbacks, verbose output or a warm start to continue
    is fitted alone by its own ``fit``.

    Parameters
    ----------
    estimators : list or tuple of GatedAttentionClassifier or GatedAttentionRegressor
        The estimators to fit (in place), each a distinct object; subclasses
        are accepted. Not the CV estimators: their own ``fit`` trains their
        fold models this way.
    data : list or tuple of tuples
        One item per estimator: ``(X, y)`` or ``(X, y, sample_weight)``, as
        its ``fit`` takes them. Estimators given the same item share its
        tensors in the network.

    Returns
    -------
    list
        The estimators, fitted, in the order given.

    Raises
    ------
    TypeError
        When ``estimators`` (or ``data``) is not a list or tuple, or an
        estimator is not a skgate estimator.
    ValueError
        When ``data`` is not as long as ``estimators``, an item of ``data``
        is not a tuple of 2 or 3, or an estimator is listed twice.

    An estimator's own checks raise as its ``fit`` would, prefixed with
    ``estimators[i]`` (its parameters) or ``estimators[i] / data[i]`` (its
    fit on its item); no network is trained then (an estimator before it
    that is fitted alone, with callbacks, verbose output or a warm start,
    already is).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import clone
    >>> from skgate import GatedAttentionClassifier, make_curved_task
    >>> from skgate.parallel import fit_together
    >>> X, y = make_curved_task(100, random_state=0)
    >>> models = [GatedAttentionClassifier(max_epochs=3, random_state=seed)
    ...           for seed in (0, 1)]
    >>> fitted = fit_together([clone(m) for m in models], [(X, y), (X, y)])
    >>> [np.array_equal(f.predict_proba(X), m.fit(X, y).predict_proba(X))
    ...  for f, m in zip(fitted, models)]
    [True, True]
    """
    from . import _training  # here, so that importing this module stays light

    estimators, data = _checked_fit_data(estimators, data)
    return list(_training.fit_together(estimators, data, name_items=True))


def _checked_fit_data(estimators, data):
    """:func:`fit_together`'s arguments checked; ``data``'s items as
    ``(X, y, sample_weight or None)``, one tuple for items given as one."""
    from .estimators import GatedAttentionClassifier, GatedAttentionRegressor

    allowed = "a list or tuple of GatedAttentionClassifier or GatedAttentionRegressor"
    if not isinstance(estimators, list | tuple):
        raise TypeError(
            f"estimators must be {allowed} (or subclasses); got "
            f"{type(estimators).__name__}."
        )
    seen = {}
    for i, estimator in enumerate(estimators):
        if not isinstance(
            estimator, GatedAttentionClassifier | GatedAttentionRegressor
        ):
            raise TypeError(
                f"estimators must be {allowed} (or subclasses); estimators[{i}] "
                f"is {type(estimator).__name__}.{_instead(estimator)}"
            )
        first = seen.setdefault(id(estimator), i)
        if first != i:
            raise ValueError(
                f"estimators[{i}] is estimators[{first}]: each estimator can be "
                "fitted once; pass a clone (sklearn.base.clone)."
            )
    if not isinstance(data, list | tuple):
        raise TypeError(
            f"data must be a list or tuple of (X, y) or (X, y, sample_weight) "
            f"tuples, one per estimator; got {type(data).__name__}."
        )
    if len(data) != len(estimators):
        raise ValueError(
            f"data must hold one item per estimator: got {len(data)} items for "
            f"{len(estimators)} estimators."
        )
    return list(estimators), _full_items(data)


def _instead(estimator):
    """What to do with a CV estimator instead of passing it (else "")."""
    from .search import GatedAttentionClassifierCV, GatedAttentionRegressorCV

    if not isinstance(
        estimator, GatedAttentionClassifierCV | GatedAttentionRegressorCV
    ):
        return ""
    return (
        f" A {type(estimator).__name__} trains its fold models together in "
        f"its own fit: call its fit, or pass the plain estimators (one per "
        f"alpha and fold) here."
    )


def _full_items(data):
    """Each item of ``data`` as ``(X, y, sample_weight)``; an item given
    twice stays one object (fit_together shares its tensors by identity)."""
    full = {}
    for i, item in enumerate(data):
        if not isinstance(item, tuple) or len(item) not in (2, 3):
            given = (
                f"a tuple of {len(item)}"
                if isinstance(item, tuple)
                else type(item).__name__
            )
            raise ValueError(
                f"data[{i}] must be a tuple (X, y) or (X, y, sample_weight); got "
                f"{given}."
            )
        full.setdefault(id(item), item if len(item) == 3 else (*item, None))
    return [full[id(item)] for item in data]

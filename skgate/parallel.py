"""Scale-out: a joblib backend on Dask that survives the loss of a worker.

Grid searches and sweeps parallelise with joblib, so they run on a Dask
cluster through joblib's Dask backend. Nothing here runs on import: call
:func:`register_dask_resilient_backend` once, then use
``parallel_config(backend="dask-resilient")``.
"""

from contextlib import contextmanager

__all__ = ["BACKEND_NAME", "on_cluster", "register_dask_resilient_backend"]

#: The name the backend is registered under.
BACKEND_NAME = "dask-resilient"


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
    with Client(address) as client, parallel_config(backend=name):
        yield client

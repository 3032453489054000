"""skgate.parallel: an explicit Dask backend, and nothing registered on import.

The backend relies on two private names of joblib (``joblib._dask.Batch`` and
``DaskDistributedBackend._to_func_args``); the tests here pin what it needs
of them and fail, never skip, when joblib changes them. The backend at work
on a cluster, a worker killed mid-search: tests/test_scale_out.py.
"""

import asyncio
import inspect
import os
import subprocess
import sys
from pathlib import Path

import joblib
import joblib.parallel
import pytest

from skgate.parallel import BACKEND_NAME, equal_parts, register_dask_resilient_backend


def _modules_after(code):
    """The top-level modules a fresh interpreter has loaded after ``code``."""
    script = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return set(result.stdout.split())


@pytest.mark.slow
def test_import_skgate_loads_neither_the_study_matplotlib_nor_dask():
    # A public name imports its module on first use (the probe sees it).
    loaded = _modules_after("import skgate; skgate.GatedAttentionClassifier")
    assert "skgate.estimators" in loaded
    heavy = {
        name
        for name in loaded
        if name.split(".")[0] in {"matplotlib", "dask", "distributed"}
        or name.startswith("study")
    }
    assert heavy == set()


@pytest.mark.slow
def test_import_skgate_parallel_loads_neither_torch_nor_dask():
    """fit_together imports the training engine when called, not before."""
    loaded = _modules_after("import skgate.parallel")
    heavy = {"torch", "sklearn", "skorch", "dask", "distributed"}
    assert {name.split(".")[0] for name in loaded} & heavy == set()
    assert "skgate._engine" not in loaded


@pytest.mark.slow
def test_no_backend_is_registered_on_import():
    code = (
        "import skgate, skgate.parallel, study, joblib.parallel\n"
        "assert 'dask-resilient' not in joblib.parallel.BACKENDS, 'registered'"
    )
    # The study (benchmarks/study) is imported from the repository.
    benchmarks = Path(__file__).resolve().parents[1] / "benchmarks"
    env = {**os.environ, "PYTHONPATH": str(benchmarks)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_registering_names_the_backend_and_is_idempotent():
    assert register_dask_resilient_backend() == BACKEND_NAME == "dask-resilient"
    assert register_dask_resilient_backend() == BACKEND_NAME
    backend = joblib.parallel.BACKENDS[BACKEND_NAME]
    from joblib._dask import DaskDistributedBackend

    assert issubclass(backend, DaskDistributedBackend)


class TestJoblibPrivateNames:
    """What the backend needs of joblib's private Dask module (fails loudly)."""

    def test_the_private_names_exist(self):
        from joblib._dask import Batch, DaskDistributedBackend

        method = DaskDistributedBackend._to_func_args
        assert inspect.iscoroutinefunction(method)
        assert list(inspect.signature(method).parameters) == ["self", "func"]
        assert callable(Batch)

    def test_submit_unpacks_a_batch_and_its_tasks(self):
        from joblib._dask import DaskDistributedBackend

        source = inspect.getsource(DaskDistributedBackend.submit)
        assert "batch, tasks = await self._to_func_args(func)" in source

    def test_a_batch_is_built_from_tasks_and_called_with_them(self):
        from joblib._dask import Batch

        tasks = [(pow, [2, 5], {}), (max, [3, 9], {})]
        assert repr(Batch(tasks)) == "mixed_batch_of_pow_2_calls"
        assert list(inspect.signature(Batch.__call__).parameters) == ["self", "tasks"]

    def test_the_override_ships_arguments_inside_each_task(self):
        backend = joblib.parallel.BACKENDS[register_dask_resilient_backend()]

        class Items:  # joblib's BatchedCalls, as the backend reads it
            items = [(pow, (2, 10), {"mod": 1000})]

        big = list(range(10_000))  # above the 1 kB joblib would scatter
        Items.items.append((len, (big,), {}))
        unconnected = backend.__new__(backend)  # the override needs no client
        batch, tasks = asyncio.run(unconnected._to_func_args(Items))
        assert tasks == [(pow, [2, 10], {"mod": 1000}), (len, [big], {})]
        assert tasks[1][1][0] is big  # the object itself, not a future
        assert repr(batch) == "mixed_batch_of_pow_2_calls"


@pytest.mark.parametrize("missing", ["joblib._dask"])
def test_a_missing_dask_gives_a_clear_error(monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(ImportError, match=r"pip install 'skgate\[dask\]'"):
        register_dask_resilient_backend()


def test_equal_parts_are_numpys_array_split_as_slices():
    """equal_parts(items, k) is numpy.array_split into ceil(n / k) sections,
    as slices of ``items`` (lists stay lists): every length 0..100 by every
    size 1..30; each part at most k, the larger first, nothing lost."""
    import numpy as np

    for n in range(0, 101):
        items = [f"setting {i}" for i in range(n)]
        for size in range(1, 31):
            parts = equal_parts(items, size)
            expected = (
                [list(s) for s in np.array_split(np.array(items), -(-n // size))]
                if n
                else []
            )
            assert parts == expected, (n, size)
            assert all(type(part) is list and 1 <= len(part) <= size for part in parts)
            assert [x for part in parts for x in part] == items
    assert equal_parts((1, 2, 3), 2) == [(1, 2), (3,)]


@pytest.mark.parametrize("bad", [0, -1, 2.0, True, "3", None])
def test_equal_parts_refuses_a_size_that_is_not_a_positive_int(bad):
    with pytest.raises(ValueError, match=r"max_size must be an int >= 1; got"):
        equal_parts([1, 2], bad)

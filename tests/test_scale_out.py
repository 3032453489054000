"""The same searches and sweeps on a Dask cluster, through joblib's backend."""

import os
import signal
import threading
import time

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.base import clone
from sklearn.datasets import make_moons
from sklearn.model_selection import GridSearchCV

from skgate import GatedAttentionClassifier, curvature_score, least_curvature_refit
from skgate.parallel import register_dask_resilient_backend

from study.sweeps import TIMINGS, grid, run_sweep

distributed = pytest.importorskip("distributed")

#: A local cluster of worker processes for every test here.
pytestmark = pytest.mark.slow
RESILIENT = register_dask_resilient_backend()

SCORING = {"accuracy": "accuracy", "curvature": curvature_score}


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=50,
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def data():
    return make_moons(150, noise=0.15, random_state=0)


def _search(fast, **kwargs):
    return GridSearchCV(
        GatedAttentionClassifier(**fast),
        {"alpha": [0.0, 1.0], "depth": [1, 2]},
        cv=3,
        scoring=SCORING,
        refit=least_curvature_refit(),
        **kwargs,
    )


def _same_results(a, b):
    for key in ("mean_test_accuracy", "mean_test_curvature", "std_test_accuracy"):
        np.testing.assert_allclose(a.cv_results_[key], b.cv_results_[key], rtol=1e-12)
    assert a.best_index_ == b.best_index_


def test_grid_search_on_dask_equals_local(client, data, fast):
    local = _search(fast).fit(*data)
    with parallel_config(backend="dask"):
        remote = _search(fast, n_jobs=-1).fit(*data)
    _same_results(local, remote)
    np.testing.assert_array_equal(local.predict(data[0]), remote.predict(data[0]))
    assert len(client.scheduler_info()["workers"]) == 2


def test_resilient_backend_equals_local(client, data, fast):
    local = _search(fast).fit(*data)
    with parallel_config(backend=RESILIENT):
        remote = _search(fast, n_jobs=-1).fit(*data)
    _same_results(local, remote)


def test_sweep_on_dask_equals_local(client):
    settings = grid(
        gate=["none", "multiplicative"],
        n_samples=[90],
        max_epochs=[2],
        d_model=[8],
        n_curvature=[20],
        seed=[0, 1],
    )
    local = run_sweep(settings, progress=False)
    with parallel_config(backend="dask"):
        remote = run_sweep(settings, n_jobs=-1, progress=False)
    columns = [c for c in local.columns if c not in TIMINGS]
    assert local[columns].equals(remote[columns])


def test_a_killed_worker_does_not_lose_the_search(client, data, fast):
    """Kill a worker mid-search: the scheduler reruns its tasks elsewhere.

    With joblib's plain "dask" backend this search fails (FutureCancelledError:
    the data scattered to the dead worker is lost); "dask-resilient" ships the
    data inside each task, so nothing is lost with a worker.
    """
    X, y = make_moons(600, noise=0.15, random_state=0)
    grid_ = {"alpha": [0.0, 0.5, 1.0, 1.5], "depth": [1, 2]}
    slow = {"estimator__max_epochs": 20, "param_grid": grid_}
    local = clone(_search(fast)).set_params(**slow).fit(X, y)
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    killed = threading.Event()

    def kill_soon():
        time.sleep(0.7)
        os.kill(victim, signal.SIGKILL)
        killed.set()

    killer = threading.Thread(target=kill_soon)
    killer.start()
    with parallel_config(backend=RESILIENT):
        remote = clone(_search(fast, n_jobs=-1)).set_params(**slow)
        remote.fit(X, y)
    assert killed.is_set(), "the search ended before the worker was killed"
    killer.join()
    _same_results(local, remote)
    client.wait_for_workers(2, timeout=60)  # the nanny restarted it


def test_a_multithreaded_worker_gives_the_same_search(data, fast):
    """Fits running side by side in one worker's threads draw from their own
    generators, so the search is the one run sequentially."""
    local = _search(fast).fit(*data)
    cluster = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        dashboard_address=":0",
        silence_logs=50,
    )
    with cluster, distributed.Client(cluster):
        with parallel_config(backend="dask"):
            remote = _search(fast, n_jobs=-1).fit(*data)
    _same_results(local, remote)


def test_primary_sweep_and_compare_on_a_scheduler_equal_local(client, tmp_path):
    """--scheduler ADDRESS: the study's primary fits and ``compare`` run on
    the cluster (skgate.parallel.on_cluster) and give the local rows."""
    import pandas as pd

    from skgate import make_curved_task
    from skgate.command import parse
    from skgate.compare import run_command
    from skgate.parallel import on_cluster

    from study import primary

    settings = primary.primary_settings(
        {name: (0, 1) for name in primary.SEEDS},
        fixed={"max_epochs": 2, "n_samples": 90, "n_curvature": 10, "d_model": 8},
    )
    arms = {"arms": settings["arms"]}
    local = primary.run_primary(arms, n_jobs=2, progress=False)["arms"]
    with on_cluster(client.scheduler.address):
        remote = primary.run_primary(arms, n_jobs=2, progress=False)["arms"]
    columns = [c for c in local.columns if c not in TIMINGS]
    pd.testing.assert_frame_equal(local[columns], remote[columns])

    X, y = make_curved_task(60, random_state=0)
    path = tmp_path / "data.csv"
    pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": y}).to_csv(path, index=False)
    outputs = []
    for scheduler in ([], ["--scheduler", client.scheduler.address]):
        out = tmp_path / f"out{len(outputs)}"
        argv = ["compare", str(path), "--target", "y", "--cv", "2", "--max-epochs", "1"]
        args, parser = parse([*argv, "--n-jobs", "2", "--out", str(out), *scheduler])
        assert run_command(args, parser) == 0
        outputs.append(pd.read_csv(out / "compare_scores.csv").drop(columns="fit_time"))
    pd.testing.assert_frame_equal(*outputs)

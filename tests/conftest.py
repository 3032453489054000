"""Shared fixtures and fast settings of the test suite.

Every test that trains a network uses the ``fast`` settings (or a module's
override of them, which says why), so the suite's cost is set in one place.
Data sets used by several modules are built once per session.
"""

import os

# scikit-learn's check_array_api_input is skipped unless SciPy's array API
# support is on, and SciPy reads this once, when it is first imported: so
# before anything below imports it.
os.environ.setdefault("SCIPY_ARRAY_API", "1")
# numba (under aeon) sizes its thread pool once, from this variable or the
# cores it sees, and refuses a later reading that differs ("Cannot set
# NUMBA_NUM_THREADS to a different value once the threads have been
# launched"), which one test met only after others in the same worker had
# run: one reading for the whole session.
os.environ.setdefault("NUMBA_NUM_THREADS", str(len(os.sched_getaffinity(0))))

import math  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path  # noqa: E402
from types import SimpleNamespace  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
from sklearn.datasets import make_moons  # noqa: E402

from skgate.nn import register_gate  # noqa: E402

# make test runs two pytest-xdist workers on the machine's 2 cores: one torch
# thread each, so that they do not take each other's core.
if os.environ.get("PYTEST_XDIST_WORKER"):
    torch.set_num_threads(1)

#: Small networks and few epochs: enough to learn two moons, fast to train.
FAST_PARAMS = {"max_epochs": 5, "d_model": 16, "random_state": 0}
#: What scikit-learn's common checks get (tests/test_common.py): a small network
#: trained briefly. The checks that test learning itself (training accuracy
#: above 0.83, R^2 above 0.5 on sklearn's toy data) get the defaults instead.
CHECK_PARAMS = {"max_epochs": 5, "d_model": 16}


@pytest.fixture(scope="session")
def fast():
    """Estimator keywords for a fast, seeded fit (a fresh dict each test may edit)."""
    return dict(FAST_PARAMS)


ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def committed_render(tmp_path_factory):
    """The committed run (benchmarks/results) rendered again from its files
    alone, once per session: ``out`` holds what ``python -m study report
    --from`` writes, ``guide`` the user guide's page with its block written
    again, ``parts`` what each part rendered. Its tests are slow and share
    one xdist worker (``xdist_group("committed_render")``)."""
    from study import report

    out = tmp_path_factory.mktemp("committed_render")
    guide = out / "reproducing.md"
    shutil.copy(ROOT / "docs" / "user_guide" / "reproducing.md", guide)
    results = ROOT / "benchmarks" / "results"
    parts = report.render_run(results, out, user_guide=guide)
    return SimpleNamespace(out=out, guide=guide, parts=parts)


@pytest.fixture(scope="session")
def moons():
    """300 rows of make_moons, the suite's default 2-D task."""
    return make_moons(300, noise=0.15, random_state=0)


def _softplus_second(z):
    s = torch.sigmoid(z)
    return s * (1 - s)


def _erf_derivative(z):
    return (2 / math.sqrt(math.pi)) * torch.exp(-z * z)


def _tanh_derivative(z):
    return 1 - torch.tanh(z) ** 2


#: Gates registered as a user registers them (no fused fast paths), before
#: any test module is collected: every test parametrized over
#: ``skgate.nn.GATES`` runs them beside the built-in gates.
USER_GATES = {
    # projected, with a strength: 1 + alpha * softplus(h W_g + b_g)
    "softplus_user": register_gate(
        "softplus_user",
        form="projected",
        activation=torch.nn.functional.softplus,
        derivative=torch.sigmoid,
        second_derivative=_softplus_second,
        strength=True,
    ),
    # projected, one gate per head
    "erf_head_user": register_gate(
        "erf_head_user",
        form="projected",
        activation=torch.erf,
        derivative=_erf_derivative,
        second_derivative=lambda z: -2 * z * _erf_derivative(z),
        per_head=True,
    ),
    # pointwise
    "tanh_user": register_gate(
        "tanh_user",
        form="pointwise",
        activation=torch.tanh,
        derivative=_tanh_derivative,
        second_derivative=lambda z: -2 * torch.tanh(z) * _tanh_derivative(z),
    ),
}

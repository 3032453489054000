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

import pytest  # noqa: E402
from sklearn.datasets import make_moons  # noqa: E402

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


@pytest.fixture(scope="session")
def moons():
    """300 rows of make_moons, the suite's default 2-D task."""
    return make_moons(300, noise=0.15, random_state=0)

"""The paired statistics shared by compare_gates and the study: the corrected
resampled t-test, the Bayesian correlated t-test and its joint posterior."""

import baycomp
import numpy as np
import pytest
from scipy import stats

from skgate import _paired


def _equicorrelated(rng, n_sim, n_splits, rho):
    """Null split differences whose every pair of splits correlates by rho."""
    shared = rng.normal(size=(n_sim, 1))
    return np.sqrt(rho) * shared + np.sqrt(1 - rho) * rng.normal(size=(n_sim, n_splits))


@pytest.mark.parametrize("folds, repeats", [(10, 1), (10, 10), (5, 4)])
def test_corrected_test_keeps_its_level_where_the_naive_one_does_not(folds, repeats):
    """2000 nulls whose splits correlate by n_test / n_rows = 1 / folds (the
    correlation of k-fold splits the correction assumes): the corrected
    test rejects at most 7 % at 0.05, the uncorrected one visibly more."""
    rng = np.random.default_rng(0)
    d = _equicorrelated(rng, 2000, folds * repeats, 1 / folds)
    corrected = [
        _paired.corrected_t_comparison(row, 0.1, test_fraction=1 / folds)["p"]
        for row in d
    ]
    naive = [
        _paired.corrected_t_comparison(row, 0.1, test_fraction=0)["p"] for row in d
    ]
    assert np.mean(np.array(corrected) < 0.05) <= 0.07
    assert np.mean(np.array(naive) < 0.05) >= 0.12


def test_repeats_cannot_manufacture_significance():
    """The same small effect on the same rows: 100 splits give the corrected
    test hardly more than 10 do, while the naive p falls by orders."""
    rng = np.random.default_rng(1)
    p = {}
    for repeats in (1, 10):
        d = 0.3 + _equicorrelated(rng, 400, 10 * repeats, 0.1)
        p[repeats] = np.median(
            [_paired.corrected_t_comparison(r, 0.1, test_fraction=0.1)["p"] for r in d]
        )
    assert p[10] > p[1] / 10


def test_uncorrected_is_the_one_sample_t_test():
    d = np.random.default_rng(2).normal(0.1, 1, size=12)
    ours = _paired.corrected_t_comparison(d, 0.05, test_fraction=0, level=0.9)
    reference = stats.ttest_1samp(d, 0, alternative="greater")
    assert ours["p"] == pytest.approx(reference.pvalue, rel=1e-10)
    interval = stats.ttest_1samp(d, 0).confidence_interval(0.9)
    assert ours["ci low"] == pytest.approx(interval.low, rel=1e-10)
    assert ours["ci high"] == pytest.approx(interval.high, rel=1e-10)


@pytest.mark.parametrize(
    "seed, runs, folds, rope", [(0, 1, 10, 0.02), (1, 10, 10, 0.01), (2, 3, 5, 0.05)]
)
def test_posterior_is_baycomps(seed, runs, folds, rope):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.8, 0.03, size=runs * folds)
    y = x + rng.normal(0.01, 0.02, size=runs * folds)
    # baycomp's probabilities are of y - x: (x better, rope, y better).
    left, middle, right = baycomp.CorrelatedTTest.probs(x, y, rope=rope, runs=runs)
    ours = _paired.correlated_bayes(y - x, rope, test_fraction=1 / folds)
    assert ours["probability better"] == pytest.approx(right, abs=1e-6)
    assert ours["probability equivalent"] == pytest.approx(middle, abs=1e-6)
    assert ours["probability worse"] == pytest.approx(left, abs=1e-6)


def test_no_spread_decides_without_error():
    ours = _paired.corrected_t_comparison([1.0] * 10, 0.02, test_fraction=0.1)
    assert (ours["p"], ours["p reverse"], ours["ci low"]) == (0.0, 1.0, 1.0)
    bayes = _paired.correlated_bayes([0.0] * 10, 0.02, test_fraction=0.1)
    assert bayes["probability equivalent"] == 1.0


def test_joint_posterior_agrees_with_each_pair():
    """A contrast of the joint draws has the pairwise posterior."""
    rng = np.random.default_rng(3)
    scores = 0.8 + rng.normal(0, 0.02, size=(30, 3)) + [0.0, 0.01, -0.02]
    draws = _paired.posterior_means(scores, test_fraction=0.1, n_samples=200_000)
    for a, b in [(1, 0), (2, 0), (1, 2)]:
        pair = _paired.correlated_bayes(
            scores[:, a] - scores[:, b], 0.01, test_fraction=0.1
        )
        assert np.mean(draws[:, a] - draws[:, b] > 0.01) == pytest.approx(
            pair["probability better"], abs=0.005
        )


@pytest.mark.parametrize("bad", [[1.0], [1.0, np.nan], np.ones((2, 2))])
def test_bad_differences(bad):
    with pytest.raises(ValueError, match="differences must be a 1-D sequence"):
        _paired.corrected_t_comparison(bad, 0.1, test_fraction=0.1)


def test_bad_test_fraction():
    with pytest.raises(ValueError, match="test_fraction must be in"):
        _paired.correlated_bayes([1.0, 2.0], 0.1, test_fraction=1.0)


def test_smallest_p():
    assert _paired.smallest_p("sign-flip", 5) == pytest.approx(1 / 32)
    assert _paired.smallest_p("sign-flip", 100) == pytest.approx(1e-4)
    assert _paired.smallest_p("corrected-t", 5) == 0.0


def test_holm_levels_reject_exactly_where_holm_does():
    rng = np.random.default_rng(4)
    for _ in range(500):
        p = rng.uniform(0, 0.1, size=rng.integers(1, 9)) ** rng.uniform(0.5, 3)
        rejected = _paired.holm(p) < 0.05
        assert ((p < _paired.holm_levels(p)) == rejected).all()


def test_corrected_bounds_exclude_zero_exactly_below_their_level():
    rng = np.random.default_rng(5)
    for _ in range(200):
        d = rng.normal(rng.normal(0, 0.5), 1, size=20)
        alpha = rng.uniform(0.001, 0.05)
        p = _paired.corrected_t_comparison(d, 0.1, test_fraction=0.1)["p"]
        low, _ = _paired.corrected_t_bounds(
            d, test_fraction=0.1, alpha_low=alpha, alpha_high=alpha
        )
        assert (low > 0) == (p < alpha)

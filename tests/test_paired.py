"""The paired statistics shared by compare_gates and the study: the corrected
resampled t-test, the Bayesian correlated t-test and its joint posterior."""

import baycomp
import hypothesis
import numpy as np
import pandas as pd
import pytest
from hypothesis import strategies as st
from scipy import stats

from skgate import paired


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
        paired.corrected_t_comparison(row, 0.1, test_fraction=1 / folds)["p"]
        for row in d
    ]
    naive = [paired.corrected_t_comparison(row, 0.1, test_fraction=0)["p"] for row in d]
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
            [paired.corrected_t_comparison(r, 0.1, test_fraction=0.1)["p"] for r in d]
        )
    assert p[10] > p[1] / 10


def test_uncorrected_is_the_one_sample_t_test():
    d = np.random.default_rng(2).normal(0.1, 1, size=12)
    ours = paired.corrected_t_comparison(d, 0.05, test_fraction=0, level=0.9)
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
    ours = paired.correlated_bayes(y - x, rope, test_fraction=1 / folds)
    assert ours["probability better"] == pytest.approx(right, abs=1e-6)
    assert ours["probability equivalent"] == pytest.approx(middle, abs=1e-6)
    assert ours["probability worse"] == pytest.approx(left, abs=1e-6)


@pytest.mark.parametrize("value", [0.1, 0.0, -0.3])
def test_no_spread_decides_nothing(value):
    """Equal differences (2 splits tied at +0.1, or at 0) once gave p = 0 and
    the interval [0.1, 0.1], or certain equivalence: ties on small test
    folds are no evidence of zero sampling error, so nothing is decided."""
    d = [value, value]
    assert paired.no_spread(d) and not paired.no_spread([value, value + 1e-9])
    ours = paired.corrected_t_comparison(d, 0.02, test_fraction=0.5)
    assert (ours["p"], ours["p reverse"], ours["p equivalence"]) == (1.0, 1.0, 1.0)
    assert (ours["ci low"], ours["ci high"]) == (-np.inf, np.inf)
    low, high = paired.corrected_t_bounds(
        d, test_fraction=0.5, alpha_low=0.01, alpha_high=0.01
    )
    assert (low, high) == (-np.inf, np.inf)
    bayes = paired.correlated_bayes(d, 0.02, test_fraction=0.5)
    assert all(np.isnan(v) for v in bayes.values())
    tests = pd.DataFrame([{**ours, "kind": "superiority"}])
    assert list(paired.family_outcomes(tests)["outcome"]) == [paired.INCONCLUSIVE]


def test_differences_equal_up_to_rounding_have_no_spread_either():
    """One more right row in every split of 13: the differences are 1/13,
    apart in their last bits only. They once gave p 6e-136 and a point
    interval; they are equal, so nothing is decided."""
    k = np.array([3, 5, 7, 8, 9, 10, 4, 6, 11, 2])
    d = (k + 1) / 13 - k / 13
    assert np.ptp(d) > 0  # the rounding this is about
    assert paired.no_spread(d)
    ours = paired.corrected_t_comparison(d, 0.02, test_fraction=0.2)
    assert (ours["p"], ours["ci low"]) == (1.0, -np.inf)
    assert np.isnan(
        paired.correlated_bayes(d, 0.02, test_fraction=0.2)["probability better"]
    )
    assert not paired.no_spread(d + np.arange(10) * 1e-6)


@pytest.mark.parametrize("repeats", [1, 2, 5, 10])
@pytest.mark.parametrize("value", [1.0, -0.25, 0.3])
def test_the_zero_spread_rule_is_a_sign_test_over_the_repeats(repeats, value):
    """r repeats that all favour one arm: exactly 2^-r one way, 1 the other;
    the Bayesian sign test's probability of the direction is 1 - 2^-r."""
    result = paired.no_spread_comparison([value] * (3 * repeats), 0.02,
                                         n_repeats=repeats)  # fmt: skip
    toward, away = ("p", "p reverse") if value > 0 else ("p reverse", "p")
    assert (result[toward], result[away]) == (0.5**repeats, 1.0)
    side = "probability better" if value > 0 else "probability worse"
    assert result[side] == pytest.approx(1 - 0.5**repeats)
    assert result["p equivalence"] == 1.0  # beyond the margin
    total = sum(result[f"probability {k}"] for k in ("better", "equivalent", "worse"))
    assert total == pytest.approx(1.0)


@pytest.mark.parametrize("rows", [4, 10, 148, 149, 1000])
def test_a_tie_is_equivalence_only_over_enough_rows_and_repeats(rows):
    """(1 - margin)^rows: the chance that arms disagreeing on a share
    margin of rows agree on all of them; below 0.05 from 149 rows at 0.02."""
    for repeats in (1, 10):
        result = paired.no_spread_comparison([0.0] * 20, 0.02, n_repeats=repeats,
                                             n_rows=rows)  # fmt: skip
        expected = max(0.5**repeats, 0.98**rows)
        assert result["p equivalence"] == pytest.approx(expected)
        assert (result["p"], result["p reverse"]) == (1.0, 1.0)
        decided = repeats == 10 and rows >= 149
        assert (result["p equivalence"] < 0.05) == decided
    unknown = paired.no_spread_comparison([0.0] * 20, 0.02, n_repeats=10)
    assert unknown["p equivalence"] == 1.0  # rows unknown: never equivalence


def test_the_zero_spread_rule_refuses_spread_and_bad_counts():
    with pytest.raises(ValueError, match="must all be the same"):
        paired.no_spread_comparison([0.1, 0.2], 0.02, n_repeats=2)
    with pytest.raises(ValueError, match="n_repeats"):
        paired.no_spread_comparison([0.1, 0.1], 0.02, n_repeats=0)
    with pytest.raises((TypeError, ValueError), match="n_rows"):
        paired.no_spread_comparison([0.1, 0.1], 0.02, n_repeats=1, n_rows=2.5)


def test_joint_posterior_agrees_with_each_pair():
    """A contrast of the joint draws has the pairwise posterior."""
    rng = np.random.default_rng(3)
    scores = 0.8 + rng.normal(0, 0.02, size=(30, 3)) + [0.0, 0.01, -0.02]
    draws = paired.posterior_means(scores, test_fraction=0.1, n_samples=200_000)
    for a, b in [(1, 0), (2, 0), (1, 2)]:
        pair = paired.correlated_bayes(
            scores[:, a] - scores[:, b], 0.01, test_fraction=0.1
        )
        assert np.mean(draws[:, a] - draws[:, b] > 0.01) == pytest.approx(
            pair["probability better"], abs=0.005
        )


@pytest.mark.parametrize("bad", [[1.0], [1.0, np.nan], np.ones((2, 2))])
def test_bad_differences(bad):
    with pytest.raises(ValueError, match="differences must be a 1-D sequence"):
        paired.corrected_t_comparison(bad, 0.1, test_fraction=0.1)


def test_bad_test_fraction():
    with pytest.raises(ValueError, match="test_fraction must be in"):
        paired.correlated_bayes([1.0, 2.0], 0.1, test_fraction=1.0)


def test_smallest_p():
    assert paired.smallest_p("sign-flip", 5) == pytest.approx(1 / 32)
    assert paired.smallest_p("sign-flip", 100) == pytest.approx(1e-4)
    assert paired.smallest_p("corrected-t", 5) == 0.0


def test_holm_levels_reject_exactly_where_holm_does():
    rng = np.random.default_rng(4)
    for _ in range(500):
        p = rng.uniform(0, 0.1, size=rng.integers(1, 9)) ** rng.uniform(0.5, 3)
        rejected = paired.holm(p) < 0.05
        assert ((p < paired.holm_levels(p)) == rejected).all()


def test_corrected_bounds_exclude_zero_exactly_below_their_level():
    rng = np.random.default_rng(5)
    for _ in range(200):
        d = rng.normal(rng.normal(0, 0.5), 1, size=20)
        alpha = rng.uniform(0.001, 0.05)
        p = paired.corrected_t_comparison(d, 0.1, test_fraction=0.1)["p"]
        low, _ = paired.corrected_t_bounds(
            d, test_fraction=0.1, alpha_low=alpha, alpha_high=alpha
        )
        assert (low > 0) == (p < alpha)


# Across datasets: Friedman, Nemenyi and the Bayesian signed-rank test.

#: Demsar (2006), Table 6: AUC of C4.5, C4.5+m, C4.5+cf and C4.5+m+cf on 14
#: UCI datasets, as printed (three decimals). The paper ranks voting's two
#: printed ties 0.975 by their unrounded values (C4.5+cf ahead); 0.97501
#: restores that order, and with it the paper's average ranks.
DEMSAR = np.array([
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569],
    [0.954, 0.971, 0.968, 0.967], [0.628, 0.661, 0.654, 0.657],
    [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625],
    [0.775, 0.838, 0.866, 0.875], [1.000, 1.000, 1.000, 1.000],
    [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.97501, 0.975], [0.957, 0.978, 0.946, 0.970],
])  # fmt: skip


def test_friedman_reproduces_demsars_worked_example():
    """Section 3.2.4 of Demsar (2006): average ranks 3.143, 2.000, 2.893,
    1.964; chi2_F = 9.28; F_F = 3.69 on 3 and 39 degrees of freedom, above
    the critical 2.85, so the null is rejected."""
    result = paired.friedman_test(DEMSAR)
    assert result["average ranks"] == pytest.approx([3.143, 2.000, 2.893, 1.964],
                                                    abs=5e-4)  # fmt: skip
    assert result["chi2"] == pytest.approx(9.28, abs=5e-3)
    assert result["F"] == pytest.approx(3.69, abs=5e-3)
    assert (result["df1"], result["df2"]) == (3, 39)
    assert stats.f.isf(0.05, 3, 39) == pytest.approx(2.85, abs=5e-3)
    assert result["p"] < 0.05


def test_nemenyi_reproduces_demsars_critical_differences():
    """Demsar (2006): q_0.05 = 2.569 and CD = 1.25 for 4 classifiers on 14
    datasets, q_0.10 = 2.291 and CD = 1.12; C4.5 (3.143) and C4.5+m+cf
    (1.964) differ by 1.179: not significant at 0.05, significant at 0.10."""
    scale = np.sqrt(4 * 5 / (6 * 14))
    assert paired.nemenyi_critical_difference(4, 14) / scale == pytest.approx(
        2.569, abs=5e-4
    )
    assert paired.nemenyi_critical_difference(4, 14, 0.10) / scale == pytest.approx(
        2.291, abs=5e-4
    )
    assert paired.nemenyi_critical_difference(4, 14) == pytest.approx(1.25, abs=5e-3)
    assert paired.nemenyi_critical_difference(4, 14, 0.10) == pytest.approx(
        1.12, abs=5e-3
    )
    difference = 3.143 - 1.964
    assert 0.05 < paired.nemenyi_p(difference, 4, 14) < 0.10


@pytest.mark.parametrize("k, n", [(3, 10), (6, 43), (10, 20)])
def test_nemenyi_p_is_the_level_at_the_critical_difference(k, n):
    cd = paired.nemenyi_critical_difference(k, n)
    assert paired.nemenyi_p(cd, k, n) == pytest.approx(0.05, abs=1e-6)
    assert paired.nemenyi_p(1.01 * cd, k, n) < 0.05 < paired.nemenyi_p(0.99 * cd, k, n)


def test_one_model_best_everywhere():
    """Every dataset ranks the models alike: average ranks 1..k, chi2 at its
    maximum N (k - 1), F infinite, p the exact (k!)^(1 - N), 120^-19; the
    first and last differ by k - 1 ranks, far beyond the critical
    difference."""
    rng = np.random.default_rng(0)
    table = np.sort(rng.uniform(size=(20, 5)), axis=1)[:, ::-1]
    result = paired.friedman_test(table)
    assert result["average ranks"].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert result["chi2"] == pytest.approx(20 * 4)
    assert result["F"] == np.inf
    assert result["p"] == pytest.approx(120.0**-19, rel=1e-9)
    assert paired.nemenyi_p(4.0, 5, 20) < 1e-6


def test_all_models_equal():
    """Equal scores everywhere: every rank (k + 1) / 2, chi2 and F 0, p 1."""
    result = paired.friedman_test(np.full((12, 4), 0.8))
    assert result["average ranks"].tolist() == [2.5] * 4
    assert (result["chi2"], result["F"], result["p"]) == (0.0, 0.0, 1.0)
    assert result["p chi2"] == 1.0


def test_friedman_refuses_what_it_cannot_rank():
    with pytest.raises(ValueError, match=r"\(datasets, models\)"):
        paired.friedman_test([[0.1, 0.2]])
    with pytest.raises(ValueError, match="NaN"):
        paired.friedman_test([[0.1, np.nan], [0.2, 0.3]])


@pytest.mark.parametrize("seed, n, rope", [(0, 10, 0.01), (1, 43, 0.02), (2, 25, 0.05)])
def test_signed_rank_is_baycomps(seed, n, rope):
    """The same Dirichlet draws as baycomp's SignedRankTest (an independent
    implementation, looping where ours is vectorised): the same shares."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0.8, 0.05, size=n)
    y = x + rng.normal(0.01, 0.03, size=n)
    left, middle, right = baycomp.SignedRankTest.probs(
        x, y, rope=rope, nsamples=20_000, random_state=seed
    )
    ours = paired.signed_rank_bayes(y - x, rope, n_samples=20_000, random_state=seed)
    assert ours["probability better"] == pytest.approx(right, abs=1e-3)
    assert ours["probability equivalent"] == pytest.approx(middle, abs=1e-3)
    assert ours["probability worse"] == pytest.approx(left, abs=1e-3)


def test_signed_rank_known_answers():
    """Far beyond the margin on every dataset: better (or worse) with
    probability above 0.99; no difference at all: equivalent."""
    far = np.linspace(0.05, 0.15, 30)
    assert paired.signed_rank_bayes(far, 0.02)["probability better"] > 0.99
    assert paired.signed_rank_bayes(-far, 0.02)["probability worse"] > 0.99
    assert paired.signed_rank_bayes(np.zeros(30), 0.02)["probability equivalent"] == 1
    with pytest.raises(ValueError, match="margin must be > 0"):
        paired.signed_rank_bayes(far, 0.0)
    with pytest.raises(ValueError, match="at least 2 finite"):
        paired.signed_rank_bayes([0.1], 0.02)


def test_sign_flip_summary_is_exact_for_few_replicates():
    """Three replicates: all 8 sign patterns are enumerated, so the p-value
    of a positive mean is 1/8 (only the observed pattern reaches it) and of
    a negative mean 1 (every pattern does); it is permutation_comparison
    without the equivalence test, and alike values give a point interval."""
    summary = paired.sign_flip_summary(np.array([1.0, 2.0, 3.0]))
    assert summary["estimate"] == 2.0 and summary["n"] == 3
    assert summary["p"] == pytest.approx(1 / 8)
    assert summary["p reverse"] == pytest.approx(1.0)
    assert summary["ci low"] <= 2.0 <= summary["ci high"]
    full = paired.permutation_comparison([1.0, 2.0, 3.0], 0.5)
    assert {k: v for k, v in full.items() if k != "p equivalence"} == summary
    alike = paired.sign_flip_summary([0.3, 0.3, 0.3], n_resamples=99)
    assert alike["ci low"] == alike["ci high"] == 0.3


@pytest.mark.parametrize("bad", [[0.1], [[0.1, 0.2]], [0.1, np.nan]])
def test_sign_flip_summary_names_bad_values(bad):
    with pytest.raises(ValueError, match="values must be a 1-D sequence of at least"):
        paired.sign_flip_summary(bad)


# Bad input: each argument is checked, and the message names it, what was
# given and what is allowed (the hostile review's P04-P13, P18).


@pytest.mark.parametrize(
    "bad, given",
    [
        ([0.1, np.nan, 0.2], "got nan at index 1"),
        ([0.1, np.inf], "got inf at index 1"),
        ("abc", "got 'abc'"),
        (["a", "b"], "got \\['a', 'b'\\]"),
        (None, "got None"),
    ],
)
def test_bad_differences_name_what_was_given(bad, given):
    with pytest.raises(
        ValueError, match=f"differences must be .* finite numbers; {given}"
    ):
        paired.sign_flip_test(bad)


@pytest.mark.parametrize(
    "bad",
    [[], [0.1], [0.1, np.nan, 0.2], [0.1, -np.inf], [[0.1, 0.2], [0.3, 0.4]], None],
)
def test_sign_flip_bounds_checks_differences_as_its_siblings(bad):
    with pytest.raises(ValueError, match="differences must be a 1-D sequence"):
        paired.sign_flip_bounds(bad, alpha_low=0.05, alpha_high=0.05)


def test_sign_flip_bounds_are_the_same_at_every_scale():
    """Three differences cannot reach level 0.05 (smallest p 1/8) at any
    scale; six can, and their bounds scale with them."""
    for scale in (1.0, 1e-300, 1e300, 1.7e308 / 3):
        three = paired.sign_flip_bounds(
            np.array([1.0, 2.0, 3.0]) * scale, alpha_low=0.05, alpha_high=0.05
        )
        assert three == (-np.inf, np.inf)
    d = np.array([0.4, 1.1, 0.7, 1.6, 0.9, 1.3])
    low, high = paired.sign_flip_bounds(d, alpha_low=0.05, alpha_high=0.05)
    assert 0 < low < d.mean() < high
    for scale in (1e-300, 1e-100, 1e20, 1e100, 1e300):
        scaled = paired.sign_flip_bounds(d * scale, alpha_low=0.05, alpha_high=0.05)
        assert scaled == pytest.approx((low * scale, high * scale), rel=1e-9)


@pytest.mark.parametrize("scale", [1e-300, 1e-160, 1e160, 1e200, 1e300])
def test_corrected_t_is_the_same_at_every_scale(scale):
    """[1, 2, 3] at any scale: p = 0.06, the interval scales with it, and no
    RuntimeWarning (squares neither underflow nor overflow)."""
    d = np.array([1.0, 2.0, 3.0])
    with np.errstate(all="raise"):
        one = paired.corrected_t_comparison(d, 0.5, test_fraction=0.2)
        scaled = paired.corrected_t_comparison(
            d * scale, 0.5 * scale, test_fraction=0.2
        )
        bounds = paired.corrected_t_bounds(
            d * scale, test_fraction=0.2, alpha_low=0.05, alpha_high=0.01
        )
        bayes = paired.correlated_bayes(d * scale, 0.5 * scale, test_fraction=0.2)
    assert one["p"] == pytest.approx(0.0600587, abs=1e-6)
    for key in ("p", "p reverse", "p equivalence"):
        assert scaled[key] == pytest.approx(one[key], rel=1e-12)
    for key in ("estimate", "ci low", "ci high"):
        assert scaled[key] == pytest.approx(one[key] * scale, rel=1e-12)
    expected = paired.corrected_t_bounds(
        d, test_fraction=0.2, alpha_low=0.05, alpha_high=0.01
    )
    assert bounds == pytest.approx(
        (expected[0] * scale, expected[1] * scale), rel=1e-12
    )
    expected = paired.correlated_bayes(d, 0.5, test_fraction=0.2)
    assert bayes == pytest.approx(expected, rel=1e-9)


def test_ordinary_differences_are_used_as_given():
    """Differences of ordinary size take the unscaled path: the statistics
    are bit for bit those of the plain formulas."""
    d = np.array([0.013, -0.002, 0.021, 0.008, 0.0, 0.017])
    result = paired.corrected_t_comparison(d, 0.02, test_fraction=0.1)
    scale = np.sqrt((1 / 6 + 0.1 / 0.9) * d.var(ddof=1))
    assert result["estimate"] == float(d.mean())
    assert result["p"] == float(stats.t.sf(d.mean() / scale, 5))


@pytest.mark.parametrize(
    "bad, error, message",
    [
        ([-0.5, 0.2, 0.01], ValueError, "got -0.5 at index 0"),
        ([0.5, 2.0], ValueError, "got 2.0 at index 1"),
        ([0.02, np.inf, 0.024], ValueError, "got inf at index 1"),
        ([[0.1, 0.2], [0.3, 0.4]], ValueError, "got shape \\(2, 2\\)"),
        (0.03, ValueError, "got shape \\(\\)"),
        (None, ValueError, "got None"),
        (["x"], ValueError, "got \\['x'\\]"),
    ],
)
@pytest.mark.parametrize("function", [paired.holm, paired.holm_levels])
def test_holm_refuses_what_is_not_p_values(function, bad, error, message):
    with pytest.raises(
        error,
        match=f"p_values must be a 1-D sequence of numbers in \\[0, 1\\] \\(or NaN\\); "
        f"{message}",
    ):
        function(bad)


def test_holm_and_holm_levels_agree_on_every_accepted_input():
    """The two count the same m: both leave a NaN out of it (and keep it
    NaN), both take the empty family and p-values of exactly 0 and 1."""
    for p in (
        [],
        [0.0, 1.0, 0.02],
        [0.02, 0.024],
        [0.01, 0.01, 0.5],
        [0.02, np.nan, 0.024],
    ):
        rejected = paired.holm(p) < 0.05
        assert ((np.asarray(p) < paired.holm_levels(p)) == rejected).all()
    levels = paired.holm_levels([0.02, np.nan, 0.024])
    assert np.isnan(levels[1])  # m = 2: the levels 0.05 / 2 and 0.05
    assert levels[[0, 2]].tolist() == pytest.approx([0.025, 0.05])
    assert np.isnan(paired.holm([0.02, np.nan, 0.024])[1])
    with pytest.raises(
        ValueError, match="alpha must be a number in \\(0, 1\\); got 1.5"
    ):
        paired.holm_levels([0.1], alpha=1.5)


@pytest.mark.parametrize(
    "args, error, message",
    [
        (
            ("t-test", 5),
            ValueError,
            "test must be 'sign-flip' or 'corrected-t'; got 't-test'",
        ),
        (("sign-flip", -1), ValueError, "n_splits must be an int >= 2; got -1"),
        (("sign-flip", 2.5), TypeError, "n_splits must be an int >= 2; got 2.5"),
        (("sign-flip", True), TypeError, "n_splits must be an int >= 2; got True"),
    ],
)
def test_smallest_p_refuses_unknown_tests_and_bad_counts(args, error, message):
    with pytest.raises(error, match=message):
        paired.smallest_p(*args)
    assert paired.smallest_p("sign-flip", np.int64(3)) == 0.125


D = [0.1, 0.2, 0.15, 0.12, 0.3]


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: paired.permutation_comparison(D, np.nan),
            ValueError,
            "margin must be a finite number >= 0 .*; got nan",
        ),
        (
            lambda: paired.permutation_comparison(D, -0.02),
            ValueError,
            "margin must .*; got -0.02",
        ),
        (
            lambda: paired.permutation_comparison(D, "0.02"),
            TypeError,
            "margin must .*; got '0.02'",
        ),
        (
            lambda: paired.corrected_t_comparison(D, np.inf, test_fraction=0.2),
            ValueError,
            "margin must .*; got inf",
        ),
        (
            lambda: paired.correlated_bayes(D, -1.0, test_fraction=0.2),
            ValueError,
            "margin must .*; got -1.0",
        ),
        (
            lambda: paired.corrected_t_comparison(
                D, 0.02, test_fraction=0.2, level=1.5
            ),
            ValueError,
            "level must be a number in \\(0, 1\\); got 1.5",
        ),
        (
            lambda: paired.corrected_t_bounds(
                D, test_fraction=0.2, alpha_low=-1, alpha_high=0.05
            ),
            ValueError,
            "alpha_low must be a number in \\(0, 1\\); got -1",
        ),
        (
            lambda: paired.sign_flip_bounds(D, alpha_low=0.05, alpha_high=1.5),
            ValueError,
            "alpha_high must be a number in \\(0, 1\\); got 1.5",
        ),
        (
            lambda: paired.corrected_t_comparison(D, 0.02, test_fraction="0.2"),
            TypeError,
            "test_fraction must be in \\[0, 1\\) .*; got '0.2'",
        ),
        (
            lambda: paired.signed_rank_bayes(D, 0.01, prior=-1),
            ValueError,
            "prior must be > 0 and finite .*; got -1",
        ),
        (
            lambda: paired.signed_rank_bayes(D, 0.01, n_samples=0),
            ValueError,
            "n_samples must be an int >= 1; got 0",
        ),
        (
            lambda: paired.signed_rank_bayes(D, np.nan),
            ValueError,
            "margin must be > 0 and finite .*; got nan",
        ),
    ],
)
def test_parameters_are_checked_and_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize(
    "args, error, message",
    [
        ((1, 10), ValueError, "n_models must be an int >= 2; got 1"),
        ((0, 10), ValueError, "n_models must be an int >= 2; got 0"),
        ((3, 0), ValueError, "n_datasets must be an int >= 2; got 0"),
        ((True, 14), TypeError, "n_models must be an int >= 2; got True"),
        ((4, 14.0), TypeError, "n_datasets must be an int >= 2; got 14.0"),
    ],
)
def test_nemenyi_refuses_bad_counts(args, error, message):
    with pytest.raises(error, match=message):
        paired.nemenyi_critical_difference(*args)
    with pytest.raises(error, match=message):
        paired.nemenyi_p(1.0, *args)


@pytest.mark.parametrize(
    "scores, message",
    [
        ([0.8, 0.9], "got shape \\(2,\\)"),
        ([[0.8, 0.9]], "got shape \\(1, 2\\)"),
        ([[0.8, np.nan], [0.9, 0.8]], "got NaN or infinity"),
    ],
)
def test_posterior_means_refuses_bad_scores(scores, message):
    with pytest.raises(
        ValueError, match=f"scores must be a 2-D \\(splits, arms\\) .*{message}"
    ):
        paired.posterior_means(scores, test_fraction=0.25)


def test_family_outcomes_names_missing_columns_and_unknown_kinds():
    import pandas as pd

    tests = pd.DataFrame({"p": [0.001], "p reverse": [0.99], "p equivalence": [0.9]})
    with pytest.raises(ValueError, match="missing 'kind'"):
        paired.family_outcomes(tests)
    with pytest.raises(
        ValueError, match="tests\\['kind'\\] must be one of .*; got 'Equivalence'"
    ):
        paired.family_outcomes(tests.assign(kind="Equivalence"))
    with pytest.raises(
        TypeError, match="tests must be a pandas DataFrame .*; got dict"
    ):
        paired.adjust(tests.to_dict("list"))
    with pytest.raises(ValueError, match="missing 'p equivalence'"):
        paired.adjust(tests.drop(columns="p equivalence"))
    outcomes = paired.family_outcomes(tests.assign(kind="trend"))["outcome"]
    assert outcomes.tolist() == [paired.HOLDS]


@pytest.mark.parametrize(
    ("better", "equivalent", "worse", "outcome"),
    [
        (0.96, 0.04, 0.0, paired.HOLDS),
        (0.95, 0.05, 0.0, paired.HOLDS),  # reaching the level decides
        (0.0, 0.03, 0.97, paired.REVERSED),
        (0.01, 0.98, 0.01, paired.NO_EFFECT),
        (0.94, 0.06, 0.0, paired.INCONCLUSIVE),
        (0.5, 0.0, 0.5, paired.INCONCLUSIVE),
    ],
)
def test_signed_rank_outcome_reads_the_three_probabilities(
    better, equivalent, worse, outcome
):
    result = {
        "probability better": better,
        "probability equivalent": equivalent,
        "probability worse": worse,
    }
    assert paired.signed_rank_outcome(result, probability=0.95) == outcome


@pytest.mark.parametrize("bad", [0.5, 0.0, 1.5, float("nan"), "0.95"])
def test_signed_rank_outcome_refuses_a_level_outside_half_to_one(bad):
    result = {"probability better": 1.0, "probability equivalent": 0.0,
              "probability worse": 0.0}  # fmt: skip
    with pytest.raises((ValueError, TypeError), match="probability"):
        paired.signed_rank_outcome(result, probability=bad)


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        (np.nan, ValueError, "rank_difference must be a finite number .*; got nan"),
        (np.inf, ValueError, "rank_difference must be a finite number .*; got inf"),
        (4.0, ValueError, r"rank_difference .* within \+-3 .*; got 4.0"),
        ("1", TypeError, "rank_difference must be a finite number .*; got '1'"),
        (None, TypeError, "rank_difference must be a finite number .*; got None"),
        (True, TypeError, "rank_difference must be a finite number .*; got True"),
        ([1.0, 2.0], TypeError, r"rank_difference must .*; got \[1.0, 2.0\]"),
    ],
)
def test_nemenyi_p_refuses_a_rank_difference_that_is_not_one(bad, error, match):
    """One pair's difference of average ranks of 4 models: a finite number
    within +-(4 - 1); NaN returned NaN and a string numpy's ufunc error."""
    with pytest.raises(error, match=match):
        paired.nemenyi_p(bad, 4, 14)
    assert paired.nemenyi_p(-3.0, 4, 14) == pytest.approx(paired.nemenyi_p(3, 4, 14))
    with pytest.raises(TypeError, match="n_models must be an int >= 2"):
        paired.nemenyi_p(1.0, 4.0, 14)
    with pytest.raises(ValueError, match="n_datasets must be an int >= 2"):
        paired.nemenyi_p(1.0, 4, 0)


@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        (np.nan, "nan"),
        (None, "None"),
        ("x", "'x'"),
        ("0.5", "'0.5'"),  # a number's text is not a number
        (1.5, "1.5"),
        (-0.1, "-0.1"),
        (True, "True"),
    ],
)
def test_adjust_names_the_column_and_row_of_a_bad_p_value(bad, shown):
    """One line naming tests['p reverse'], the value, its row and what is
    allowed; it named holm's p_values and printed the whole column (or let
    NaN through as an inconclusive test, leaving it out of the family)."""
    import pandas as pd

    tests = pd.DataFrame(
        {"p": [0.001, 0.5], "p reverse": [0.99, 0.5], "p equivalence": [0.9, 0.01]},
        index=[7, 8],
    ).astype({"p reverse": object})
    tests.loc[8, "p reverse"] = bad
    with pytest.raises(ValueError) as error:
        paired.adjust(tests)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("tests['p reverse'] must hold p-values")
    assert "numbers in [0, 1]" in message
    assert f"got {shown} in row 8" in message
    with pytest.raises(ValueError, match=r"tests\['p'\] must hold p-values"):
        paired.family_outcomes(tests.assign(kind="trend", p=[0.1, "x"]))


@pytest.mark.parametrize(
    "table",
    [
        [["a", "b"], ["c", "d"]],
        [["0.9", "0.8"], ["0.7", "0.6"]],  # numbers' text
        np.array([[0.9, 0.8], [0.7, "0.6"]], dtype=object),
    ],
)
def test_average_ranks_refuses_a_table_of_strings_naming_it(table):
    import pandas as pd

    for given in (table, pd.DataFrame(table)):
        with pytest.raises(
            ValueError, match=r"table must be a 2-D \(datasets, models\) table"
        ) as error:
            paired.average_ranks(given)
        assert "\n" not in str(error.value) and "is text" in str(error.value)
    with pytest.raises(ValueError, match="table must be"):
        paired.friedman_test(table)


BOOLS = ([True, False], [0.5, True], np.array([True, False]), [np.True_, 0.01])


@pytest.mark.parametrize("bad", BOOLS)
@pytest.mark.parametrize(
    "call, name",
    [
        (paired.holm, "p_values"),
        (paired.holm_levels, "p_values"),
        (paired.sign_flip_test, "differences"),
        (lambda d: paired.permutation_comparison(d, 0.02), "differences"),
        (paired.sign_flip_summary, "values"),
        (lambda d: paired.corrected_t_comparison(d, 0.02, test_fraction=0.2),
         "differences"),
        (lambda d: paired.correlated_bayes(d, 0.02, test_fraction=0.2),
         "differences"),
        (lambda d: paired.corrected_t_bounds(
            d, test_fraction=0.2, alpha_low=0.05, alpha_high=0.05), "differences"),
        (lambda d: paired.sign_flip_bounds(d, alpha_low=0.05, alpha_high=0.05),
         "differences"),
        (lambda d: paired.signed_rank_bayes(d, 0.01), "differences"),
        (lambda d: paired.average_ranks([d, d]), "table"),
        (lambda d: paired.friedman_test([d, d]), "table"),
        (lambda d: paired.posterior_means([d, d], test_fraction=0.25), "scores"),
    ],
)  # fmt: skip
def test_bools_are_refused_where_numbers_are_taken(call, name, bad):
    """A bool is not a p-value or a score (True would be read as 1.0), even
    among numbers (numpy would make [0.5, True] floats)."""
    with pytest.raises(ValueError, match=f"^{name} must be .*is a bool, not a number"):
        call(bad)


def test_holm_keeps_nan_out_of_the_family_as_documented():
    """holm and holm_levels both leave a NaN out of m and give it NaN."""
    assert np.isnan(paired.holm([0.01, np.nan])[1])
    assert paired.holm([0.01, np.nan])[0] == 0.01  # m = 1
    levels = paired.holm_levels([np.nan, 0.02])
    assert np.isnan(levels[0]) and levels[1] == 0.05  # m = 1: alpha / 1


@pytest.mark.parametrize("test", ["sign-flip", "corrected-t"])
@pytest.mark.parametrize("n", [0, 1])
def test_smallest_p_refuses_fewer_than_two_splits(test, n):
    with pytest.raises(ValueError, match=f"^n_splits must be an int >= 2; got {n}"):
        paired.smallest_p(test, n)


@pytest.mark.parametrize(
    "call",
    [paired.nemenyi_critical_difference, lambda k, n: paired.nemenyi_p(1.0, k, n)],
)
def test_nemenyi_refuses_a_single_dataset(call):
    with pytest.raises(ValueError, match="^n_datasets must be an int >= 2; got 1"):
        call(3, 1)
    with pytest.raises(ValueError, match="^n_models must be an int >= 2; got 1"):
        call(1, 5)


@pytest.mark.parametrize(
    "bad, error",
    [("x", TypeError), (1.5, TypeError), (True, TypeError), (-1, ValueError),
     (2**32, ValueError)],
)  # fmt: skip
def test_sign_flip_test_names_a_bad_random_state(bad, error):
    message = f"^random_state must be None, an int in .*; got {bad!r}"
    with pytest.raises(error, match=message):
        paired.sign_flip_test([1.0, 2.0, 3.0], random_state=bad)


@pytest.mark.parametrize(
    "seed",
    [None, 0, np.int64(7), np.random.default_rng(0), np.random.RandomState(0)],
)
def test_sign_flip_test_takes_the_random_states_scipy_takes(seed):
    assert paired.sign_flip_test([1.0, 2.0, 3.0], random_state=seed) == 0.125


@pytest.mark.parametrize("n, k", [(2, 3), (3, 3), (2, 2), (3, 4)])
def test_friedman_on_datasets_that_rank_alike_gives_the_exact_p(n, k):
    """Every dataset ranks the models alike: F_F is infinite, and its p was
    0 from 2 datasets ("the ranks differ"). The exact p is (k!)^(1 - N),
    here checked by enumerating every ranking of every dataset."""
    import itertools
    import math

    result = paired.friedman_test([list(range(k, 0, -1))] * n)
    assert result["F"] == np.inf and result["method"] == "exact"
    rankings = list(itertools.permutations(range(k)))
    top = 0
    for chosen in itertools.product(rankings, repeat=n):
        if len(set(chosen)) == 1:
            top += 1
    assert result["p"] == pytest.approx(top / len(rankings) ** n, rel=1e-12)
    assert result["p"] == pytest.approx(math.factorial(k) ** (1 - n), rel=1e-12)


def _enumerated_friedman_p(table):
    """Friedman's p by brute force: every one of the (k!)^N orders of the
    table's ranks (midranks for ties), the share whose sum of squared rank
    sums reaches the observed one (within 1e-9: the sums are floats)."""
    import itertools

    ranks = stats.rankdata(-np.asarray(table, dtype=float), axis=1)
    k = ranks.shape[1]
    orders = np.array(list(itertools.permutations(range(k))))
    sums = np.zeros((1, k))
    for row in ranks:
        sums = (sums[:, None, :] + row[orders][None, :, :]).reshape(-1, k)
    observed = np.sum(ranks.sum(axis=0) ** 2)
    return float(np.mean(np.sum(sums**2, axis=1) >= observed - 1e-9))


def test_friedman_p_of_two_datasets_is_the_exact_one():
    """Issue 74, item 5: F_F's p was 0.034, below even the unanimous table's
    1/24; of the 24^2 orders of the two datasets' ranks, 48 reach the
    observed statistic."""
    result = paired.friedman_test([[4, 3, 2, 1], [4, 3, 2, 2]])
    assert result["method"] == "exact"
    assert result["p"] == pytest.approx(1 / 12, rel=1e-12)
    assert result["p F"] == pytest.approx(0.0341, abs=5e-5)
    enumerated = _enumerated_friedman_p([[4, 3, 2, 1], [4, 3, 2, 2]])
    assert enumerated == pytest.approx(result["p"], rel=1e-12)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("k, n", [(3, 2), (3, 3), (4, 2), (4, 3), (3, 4)])
@pytest.mark.parametrize("seed", range(3))
def test_friedman_p_is_the_enumerated_one(k, n, ties, seed):
    """Random tables, with scores from {0, 1, 2} (ties) or without ties,
    against every order of their ranks."""
    rng = np.random.default_rng(seed)
    if ties:
        table = rng.integers(0, 3, size=(n, k))
    else:
        table = rng.normal(size=(n, k)) + np.linspace(0, 1, k)
    result = paired.friedman_test(table)
    assert result["method"] == "exact"
    assert result["p"] == pytest.approx(_enumerated_friedman_p(table), rel=1e-9)


@st.composite
def score_tables(draw):
    """(datasets, models) tables of scores 0 to 3, so that models often tie:
    up to 7 models and 5 datasets, exact or F approximation."""
    k, n = draw(st.integers(2, 7)), draw(st.integers(2, 5))
    scores = draw(st.lists(st.integers(0, 3), min_size=n * k, max_size=n * k))
    return np.array(scores, dtype=float).reshape(n, k)


@hypothesis.settings(max_examples=30, deadline=None)
@hypothesis.given(score_tables())
def test_friedman_p_is_never_below_the_unanimous_chance(table):
    """No table, tied or not, exact or approximated, is more surprising
    than N datasets that rank k models alike: p >= (k!)^(1 - N)."""
    import math

    n, k = table.shape
    p = paired.friedman_test(table)["p"]
    assert math.factorial(k) ** (1 - n) * (1 - 1e-12) <= p <= 1


@hypothesis.settings(max_examples=30, deadline=None)
@hypothesis.given(score_tables(), st.data())
def test_friedman_p_does_not_fall_as_the_ranks_agree_less(table, data):
    """Two scores of one dataset swapped (the same ties, so the same
    method): the table with the smaller chi2_F has the larger p."""
    n, k = table.shape
    row = data.draw(st.integers(0, n - 1))
    a, b = data.draw(st.integers(0, k - 1)), data.draw(st.integers(0, k - 1))
    swapped = table.copy()
    swapped[row, [a, b]] = table[row, [b, a]]
    less, more = sorted(map(paired.friedman_test, (table, swapped)),
                        key=lambda r: r["chi2"])  # fmt: skip
    assert less["method"] == more["method"]
    assert less["p"] >= more["p"] * (1 - 1e-9)


@pytest.mark.parametrize(
    "k, n, method, top",
    [(4, 10, "exact", 24 * 24.0**-5 * 12.0**-5),
     (7, 43, "F approximation", 5040.0**-42)],
)  # fmt: skip
def test_friedman_p_orders_tables_of_one_tie_pattern_by_their_chi2(k, n, method, top):
    """Every other dataset ties the last two models; in 20 tables each
    dataset's scores are shuffled with a chance from 0 to 1, from every
    dataset ranking the models alike to none. Sorted by chi2_F, p never
    falls. Where they rank alike p is the exact chance of that (k! orders of
    the models, each dataset then in 1 of its k! or k! / 2 orders), or,
    approximated, (k!)^(1 - N), where F_F's p is far below."""
    rng = np.random.default_rng(0)
    base = np.tile(np.arange(k, 0, -1.0), (n, 1))
    base[::2, -2] = base[::2, -1]
    tables = [
        np.where(rng.uniform(size=(n, 1)) < share, rng.permuted(base, axis=1), base)
        for share in np.linspace(0, 1, 20)
    ]
    results = sorted(map(paired.friedman_test, tables), key=lambda r: r["chi2"])
    assert {r["method"] for r in results} == {method}
    p = np.array([r["p"] for r in results])
    assert np.all(p[:-1] >= p[1:] * (1 - 1e-9))
    assert p[-1] == pytest.approx(top, rel=1e-9)
    assert results[-1]["p F"] < p[-1]


@pytest.mark.parametrize("k, n", [(3, 125), (4, 26), (5, 9), (6, 4), (7, 2), (8, 2)])
def test_friedman_is_exact_as_far_as_its_docstring_says(k, n):
    """Without ties the exact distribution fits the budget up to these N
    (friedman_test's docstring lists them), and the next N is approximated:
    the budget depends on N, k and the ties, never on the ranking."""
    rng = np.random.default_rng(0)
    assert paired.friedman_test(rng.normal(size=(n, k)))["method"] == "exact"
    assert paired.friedman_test(rng.normal(size=(n + 1, k)))["method"] == (
        "F approximation"
    )


@pytest.mark.parametrize("k, n", [(4, 26), (5, 9)])
def test_friedman_exact_p_nears_f_s_with_many_datasets(k, n):
    """Where the exact distribution ends the F approximation that takes
    over is close to it: within 0.02 on three tables with a small effect."""
    rng = np.random.default_rng(0)
    for _ in range(3):
        result = paired.friedman_test(rng.normal(size=(n, k)) + np.linspace(0, 0.3, k))
        assert result["method"] == "exact"
        assert result["p"] == pytest.approx(result["p F"], abs=0.02)


def test_friedman_with_many_datasets_is_f_s_p():
    """7 models on 43 datasets (about the KEEL benchmark's size): F_F's p.
    The exact distribution is given up at the third dataset (the 1105 sorted
    rank sums of two datasets times 5040 orders are past the budget), so
    this costs little."""
    rng = np.random.default_rng(0)
    result = paired.friedman_test(rng.normal(size=(43, 7)) + np.linspace(0, 0.3, 7))
    assert result["method"] == "F approximation"
    assert (
        result["p"]
        == result["p F"]
        == pytest.approx(stats.f.sf(result["F"], 6, 6 * 42), rel=1e-12)
    )


def test_the_zero_spread_rule_on_the_margin_and_its_repeats():
    """A constant difference exactly at the margin is a direction (its p
    2^-r once said "holds" beside probabilities 0.5 / 0.5); more repeats
    than differences are refused."""
    on = paired.no_spread_comparison([0.02] * 20, 0.02, n_repeats=10, n_rows=1000)
    assert on["p"] == 0.5**10 and on["probability better"] == 1 - 0.5**10
    below = paired.no_spread_comparison([-0.02] * 20, 0.02, n_repeats=10)
    assert below["probability worse"] == 1 - 0.5**10
    with pytest.raises(ValueError, match="n_repeats must be an int from 1 to 7"):
        paired.no_spread_comparison([1.0] * 7, 0.02, n_repeats=10)

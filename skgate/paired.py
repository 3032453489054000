"""Paired comparisons, and the words of their outcomes.

The statistics of :func:`skgate.compare.compare_gates`,
:func:`skgate.benchmark.benchmark_gates` and the repository's reproduction
study, public so that a user's comparison and the study's tests are one
implementation:

- for independent replicates (the study's seeds): sign-flip permutation
  tests of paired differences (exact where 2^n is small) with bootstrap
  intervals;
- for cross-validation splits, which share training rows: the corrected
  resampled t-test (Nadeau & Bengio, 2003) and the Bayesian correlated
  t-test (Corani & Benavoli, 2015; Benavoli et al., 2017), whose posterior
  has the corrected test's scale;
- an equivalence test within a margin, Holm's correction over a family, and
  the outcome of each test (holds, reversed, no effect, inconclusive);
- across datasets (each one independent replicate): average ranks,
  Friedman's test (exact where the datasets are few) and Nemenyi's
  (Demsar, 2006), and the Bayesian signed-rank test (Benavoli et al., 2017).
"""

from numbers import Real

import numpy as np
from scipy import stats

from . import _options
from ._checks import (
    as_floats,
    check_count,
    check_level,
    check_number,
    check_random_state,
    finite_table,
    finite_values,
    short_repr,
)

__all__ = [
    "ALPHA_LEVEL",
    "CURVATURE_MARGIN_SHARE",
    "SCORE_MARGIN",
    "HOLDS",
    "INCONCLUSIVE",
    "NO_EFFECT",
    "REVERSED",
    "adjust",
    "average_ranks",
    "corrected_t_bounds",
    "corrected_t_comparison",
    "correlated_bayes",
    "family_outcomes",
    "friedman_test",
    "holm",
    "holm_levels",
    "nemenyi_critical_difference",
    "nemenyi_p",
    "no_spread",
    "no_spread_comparison",
    "permutation_comparison",
    "posterior_means",
    "sign_flip_bounds",
    "sign_flip_summary",
    "sign_flip_test",
    "signed_rank_bayes",
    "signed_rank_outcome",
    "sign_floor",
    "smallest_p",
]

# Smallest differences of interest (equivalence margins), shared by the
# study's protocol and compare_gates.
#: The score margin: 0.02 in accuracy (or score).
SCORE_MARGIN = _options.SCORE_MARGIN
#: The curvature margin, as a share of the two arms' mean curvature.
CURVATURE_MARGIN_SHARE = 0.25

#: Significance level of every test (after Holm's correction within a family).
ALPHA_LEVEL = 0.05

# The outcome of one test, after Holm's correction within its family.
#: The claim is shown (of an equivalence test: equivalence within the margin).
HOLDS = "holds"
#: The opposite is shown (of an equivalence test: a difference either way).
REVERSED = "reversed"
#: A claimed difference is shown to be within the margin.
NO_EFFECT = "no effect"
#: Nothing is shown at the family's level.
INCONCLUSIVE = "inconclusive"


def holm(p_values):
    """Holm's step-down adjustment of ``p_values`` (family-wise error control).

    The i-th smallest of m p-values is multiplied by m - i + 1, the products
    made non-decreasing in that order and capped at 1. ``p_values`` is a 1-D
    sequence of numbers in [0, 1] or NaN: a NaN (a test that could not be
    computed) is left out of m and stays NaN, as in :func:`holm_levels`, so
    that the two always count the same m.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.005]).round(12).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p = _check_p_values(p_values)
    adjusted = np.full_like(p, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = len(order)
    scaled = p[order] * (m - np.arange(m))
    adjusted[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return adjusted


def _check_p_values(p_values):
    """``p_values`` as a 1-D float array of numbers in [0, 1] or NaN (for
    :func:`holm` and :func:`holm_levels`)."""
    allowed = "p_values must be a 1-D sequence of numbers in [0, 1] (or NaN)"
    p = as_floats(p_values, "p_values", allowed)
    if p.ndim != 1:
        raise ValueError(f"{allowed}; got shape {p.shape}.")
    outside = np.flatnonzero(~(((p >= 0) & (p <= 1)) | np.isnan(p)))
    if len(outside):
        first = outside[0]
        raise ValueError(f"{allowed}; got {float(p[first])!r} at index {first}.")
    return p


def _check_margin(margin):
    """The equivalence margin: a finite number >= 0."""
    return check_number(
        margin, "margin", "a finite number >= 0 (the equivalence margin)",
        lambda m: np.isfinite(m) and m >= 0,
    )  # fmt: skip


def sign_flip_test(differences, *, n_resamples=9_999, random_state=0):
    """One-sided sign-flip permutation test of paired ``differences``
    (better minus worse): the p-value of their mean being as large as
    observed if each difference were as likely negative. Exact (all 2^n
    sign patterns) when 2^n <= ``n_resamples``, else Monte Carlo
    (scipy.stats.permutation_test) drawn from ``random_state``: None, an
    int in [0, 2^32 - 1] (a seed) or a numpy Generator or RandomState, as
    scipy takes it. No normal tails: with n pairs the exact p-value is at
    least 1 / 2^n.

    Examples
    --------
    >>> round(sign_flip_test([1.0, 2.0, 3.0]), 4)  # 1 of the 8 patterns
    0.125
    """
    d = finite_values(differences, "differences")
    check_random_state(random_state, generators=True)
    result = stats.permutation_test(
        (d,),
        np.mean,
        permutation_type="samples",
        alternative="greater",
        n_resamples=n_resamples,
        random_state=random_state,
    )
    return float(result.pvalue)


def _bootstrap_interval(values, n_resamples):
    """95 % percentile interval of the mean of ``values`` over bootstrap
    resamples (a point when every value is alike)."""
    values = np.asarray(values, dtype=float)
    if np.ptp(values) == 0:
        return float(values[0]), float(values[0])
    interval = stats.bootstrap(
        (values,),
        np.mean,
        n_resamples=n_resamples,
        method="percentile",
        random_state=0,
    ).confidence_interval
    return float(interval.low), float(interval.high)


def permutation_comparison(differences, margin, *, n_resamples=9_999):
    """Paired differences (better minus worse) tested without normal tails.

    Returns a dict: the mean ("estimate"), its 95 % bootstrap percentile
    interval ("ci low", "ci high"), the one-sided sign-flip p-values of a
    positive ("p") and a negative ("p reverse") mean
    (:func:`sign_flip_test`), the equivalence p-value within ``+-margin``
    ("p equivalence": both one-sided sign-flip tests of ``d + margin > 0``
    and ``margin - d > 0``, the larger), and "n".

    Examples
    --------
    >>> result = permutation_comparison([0.1, 0.2, 0.15, 0.12, 0.3], 0.02)
    >>> result["n"], round(result["p"], 4), round(result["p equivalence"], 4)
    (5, 0.0312, 1.0)
    """
    d = finite_values(differences, "differences")
    margin = _check_margin(margin)
    p_equivalence = max(
        sign_flip_test(d + margin, n_resamples=n_resamples),
        sign_flip_test(margin - d, n_resamples=n_resamples),
    )
    summary = sign_flip_summary(d, n_resamples=n_resamples)
    return {**summary, "p equivalence": p_equivalence}


def sign_flip_summary(values, *, n_resamples=9_999):
    """The mean of independent replicates ``values`` and its tests against 0,
    without normal tails.

    Returns a dict: the mean ("estimate"), its 95 % bootstrap percentile
    interval ("ci low", "ci high"; a point when every value is alike), the
    one-sided sign-flip p-values of a positive ("p") and a negative ("p
    reverse") mean (:func:`sign_flip_test`), and their number ("n"). What
    :func:`permutation_comparison` reports but the equivalence test; the
    study summarises the seeds' trend correlations with it.

    Examples
    --------
    >>> summary = sign_flip_summary([0.1, 0.2, 0.15, 0.12, 0.3])
    >>> sorted(summary)
    ['ci high', 'ci low', 'estimate', 'n', 'p', 'p reverse']
    >>> summary["n"], round(summary["p"], 4), round(summary["p reverse"], 4)
    (5, 0.0312, 1.0)
    """
    values = finite_values(values, "values")
    low, high = _bootstrap_interval(values, n_resamples)
    return {
        "estimate": float(values.mean()),
        "ci low": low,
        "ci high": high,
        "p": sign_flip_test(values, n_resamples=n_resamples),
        "p reverse": sign_flip_test(-values, n_resamples=n_resamples),
        "n": len(values),
    }


def _corrected_t(differences, test_fraction):
    """The checked differences, their mean, its corrected standard error
    (:func:`_corrected_scale`) and the degrees of freedom: what the
    corrected t-test, its bounds and the correlated Bayesian posterior are
    all made of.

    Differences whose size is far from 1 (beyond 2^+-200) are computed in
    units of a power of two (:func:`_binary_exponent`; exact), so that
    their squares neither underflow nor overflow: the test is the same at
    every scale, and ordinary differences are used exactly as given. A mean
    within 1e-12 of the largest difference is rounding of 0 (two arms with
    equal means, their scores summed in another order), and is 0."""
    d = _check_split_differences(differences, test_fraction)
    e = _binary_exponent(d, 2.0**200)
    unit = np.ldexp(d, -e)
    mean = float(np.ldexp(unit.mean(), e))
    if abs(mean) <= 1e-12 * float(np.abs(d).max(initial=0.0)):
        mean = 0.0  # differences that cancel up to rounding: equal means
    scale = float(np.ldexp(_corrected_scale(unit, test_fraction), e))
    return d, mean, scale, len(d) - 1


def _binary_exponent(values, largest_safe):
    """0 when the largest absolute value of ``values`` is 0 or within
    [2^-200, ``largest_safe``] (used as they are), else the power of two e
    that brings it into [0.5, 1): ``np.ldexp(values, -e)`` is then exact
    (a power-of-two scaling changes no digit)."""
    largest = float(np.max(np.abs(values)))
    if largest == 0 or 2.0**-200 <= largest <= largest_safe:
        return 0
    return int(np.frexp(largest)[1])


def _correction(test_fraction, n_splits):
    """1/J + n_test/n_train: the variance of a mean over J splits that share
    training rows, per unit of the splits' variance (Nadeau & Bengio, 2003)."""
    return 1 / n_splits + test_fraction / (1 - test_fraction)


def _check_split_differences(differences, test_fraction):
    """The checked ``differences`` (:func:`finite_values`), after checking
    ``test_fraction``."""
    d = finite_values(differences, "differences")
    _check_test_fraction(test_fraction)
    return d


def _check_test_fraction(test_fraction):
    """A split's share of test rows: a number in [0, 1)."""
    return check_number(
        test_fraction, "test_fraction",
        "in [0, 1) (test rows / all rows of a split)", lambda f: 0 <= f < 1,
    )  # fmt: skip


def _corrected_scale(d, test_fraction):
    """The corrected standard error of the mean of split differences ``d``:
    sqrt((1/J + n_test/n_train) s^2) (Nadeau & Bengio, 2003). The naive
    1/J alone assumes independent splits; splits that share training rows
    are correlated by about n_test / n_rows, which the second term restores."""
    return float(np.sqrt(_correction(test_fraction, len(d)) * d.var(ddof=1)))


def no_spread(differences):
    """Whether split ``differences`` are all the same, so that they show no
    sampling error to test against. Equal differences over a few splits are
    no evidence of zero error (accuracies tie on small test folds, in
    either arm), so the t-tests decide nothing from them: the corrected
    t-test's p-values are 1, its interval unbounded, the correlated
    Bayesian posterior undefined. (baycomp's CorrelatedTTest returns
    certainty there, the flaw this avoids.) :func:`no_spread_comparison`
    decides them by a rule that can hold: a sign test over the repeats,
    and for equivalence enough test rows too (identical predictions on a
    handful of rows are no evidence of equivalence either).

    Equal means equal up to float rounding: a spread within 1e-9 of the
    largest difference, at any scale (one more right row in every split of
    13 gives differences of 1/13 that differ in their last bits).

    Examples
    --------
    >>> no_spread([0.1, 0.1]), no_spread([0.1, 0.2])
    (True, False)
    >>> no_spread([4 / 13 - 3 / 13, 6 / 13 - 5 / 13])  # the same, rounded
    True
    """
    d = np.asarray(differences, dtype=float)
    if not d.size or not np.isfinite(d).all():
        return False
    spread = np.ptp(d)  # > 0 only where the largest |difference| is
    return bool(spread == 0 or spread / np.abs(d).max() <= 1e-9)


def no_spread_comparison(differences, margin, *, n_repeats, n_rows=None):
    """Split differences that are all the same (:func:`no_spread`), decided
    by a rule that can hold: an exact sign test over the ``n_repeats``
    repeats of the cross-validation, each repeat one replicate.

    The t-tests have nothing to work with (their standard error is 0), yet
    a difference d that is the same on every split of many repeats is
    evidence, and the same d on the 2 splits of one repeat is none. Each
    repeat's mean difference is d; under the null a repeat is as likely to
    favour either arm, so r repeats that all favour one have the exact
    one-sided p 2^-r ("p" when d > 0, "p reverse" when d < 0; the other
    is 1). Ten repeats give 2^-10, about 0.001; one repeat gives 0.5, which
    decides nothing at any level.

    Equivalence within ``+-margin`` (``abs(d) < margin``) needs more: the same
    score on every split of a handful of test rows (both arms wrong on
    both rows of 2-row folds) is no evidence that the arms agree on new
    rows. Two arms that disagree on a share ``margin`` of rows (the most
    by which two accuracies then differ) leave all ``n_rows`` test rows of
    a repeat in agreement with probability (1 - margin)^n_rows, so "p
    equivalence" is the larger of that and 2^-r: 0.98^4 = 0.92 on 4 rows;
    below 0.05 from 149 rows at margin 0.02. Without ``n_rows`` (unknown)
    equivalence is not decided (p 1).

    Returns the keys of :func:`corrected_t_comparison` (the interval
    [d, d], which callers widen where the level needs more than 2^-r) and
    the Bayesian sign test's probabilities over the repeats (Benavoli et
    al., 2014; its prior pseudo-observation at 0, as baycomp's
    ``SignTest``): beyond the margin, "probability better" (or "worse") is
    1 - 2^-r and "probability equivalent" 2^-r; within it, "probability
    equivalent" is 1 - "p equivalence", the rest shared evenly.

    ``differences`` are finite and all the same up to rounding;
    ``n_repeats`` is an int >= 1, ``n_rows`` an int >= 1 or None.

    Examples
    --------
    >>> plus_one = no_spread_comparison([1.0] * 100, 0.02, n_repeats=10)
    >>> bool(plus_one["p"] < 0.001), plus_one["p reverse"]
    (True, 1.0)
    >>> no_spread_comparison([0.1, 0.1], 0.02, n_repeats=1)["p"]
    0.5
    >>> tied = no_spread_comparison([0.0] * 20, 0.02, n_repeats=10, n_rows=4)
    >>> bool(tied["p equivalence"] > 0.9)
    True
    """
    d = finite_values(differences, "differences")
    if not no_spread(d):
        raise ValueError(
            "differences must all be the same (no_spread); they range over "
            f"[{d.min():.6g}, {d.max():.6g}]: test them with corrected_t_comparison."
        )
    margin = _check_margin(margin)
    n_repeats = check_count("n_repeats", n_repeats, 1, len(d))
    if n_rows is not None:
        n_rows = check_count("n_rows", n_rows, 1)
    value = float(np.median(d))
    value = 0.0 if abs(value) <= 1e-12 * float(np.abs(d).max()) else value
    floor = 0.5**n_repeats
    agreement = 1.0 if n_rows is None else float(max(0.0, 1 - margin) ** n_rows)
    p_equivalence = max(floor, agreement) if abs(value) < margin else 1.0
    if value >= margin and value > 0:  # on or beyond the margin: a direction
        better, equivalent, worse = 1 - floor, floor, 0.0
    elif value <= -margin and value < 0:
        better, equivalent, worse = 0.0, floor, 1 - floor
    else:
        better = worse = p_equivalence / 2
        equivalent = 1 - p_equivalence
    return {
        "estimate": value,
        "ci low": value,
        "ci high": value,
        "p": floor if value > 0 else 1.0,
        "p reverse": floor if value < 0 else 1.0,
        "p equivalence": p_equivalence,
        "n": len(d),
        "probability better": better,
        "probability equivalent": equivalent,
        "probability worse": worse,
    }


def corrected_t_comparison(differences, margin, *, test_fraction, level=0.95):
    """Split differences (better minus worse) tested with the corrected
    resampled t-test of Nadeau & Bengio (2003).

    ``differences`` are paired differences over J cross-validation splits
    (k folds x r repeats); ``test_fraction`` is a split's share of test rows
    (1/k for k-fold; 0 gives the uncorrected t-test, right only for
    independent replicates). The statistic ``mean / scale`` with
    :func:`_corrected_scale` is referred to Student's t with J - 1 degrees
    of freedom, as in Bouckaert & Frank (2004).

    Returns a dict like :func:`permutation_comparison`'s: "estimate", the
    corrected t interval at ``level`` ("ci low", "ci high"), one-sided
    p-values both ways ("p", "p reverse"), the equivalence p-value within
    ``+-margin`` (TOST: the larger of the two one-sided tests), and "n".
    (:func:`skgate.compare.gate_tests` reads it no lower than
    :func:`sign_floor`.)
    When every difference is the same the splits show no sampling error to
    test against, which is no evidence that there is none (accuracies tie
    on small test folds): nothing is decided, every p-value is 1 and the
    interval is unbounded (:func:`no_spread`); :func:`no_spread_comparison`
    decides such differences by a sign test over the repeats.

    Examples
    --------
    >>> result = corrected_t_comparison([0.1, 0.2, 0.15, 0.12, 0.3], 0.02,
    ...                                 test_fraction=0.2)
    >>> result["n"], result["p"] < 0.05, result["p equivalence"] > 0.5
    (5, True, True)
    """
    d, mean, scale, df = _corrected_t(differences, test_fraction)
    margin = _check_margin(margin)
    tail = (1 - check_level(level, "level")) / 2
    low, high = corrected_t_bounds(
        d, test_fraction=test_fraction, alpha_low=tail, alpha_high=tail
    )
    if no_spread(d):  # every difference equal: the splits show no error at all
        p = p_reverse = p_equivalence = 1.0
    else:
        p, p_reverse = stats.t.sf(mean / scale, df), stats.t.cdf(mean / scale, df)
        p_equivalence = max(
            stats.t.sf((mean + margin) / scale, df),
            stats.t.sf((margin - mean) / scale, df),
        )
    return {
        "estimate": mean,
        "ci low": low,
        "ci high": high,
        "p": float(p),
        "p reverse": float(p_reverse),
        "p equivalence": float(p_equivalence),
        "n": len(d),
    }


def correlated_bayes(differences, margin, *, test_fraction):
    """The Bayesian correlated t-test (Corani & Benavoli, 2015) of split
    differences (better minus worse), with ``+-margin`` as the region of
    practical equivalence.

    The posterior of the mean difference is Student's t with J - 1 degrees
    of freedom, centred on the mean, scaled by the corrected standard error
    (:func:`_corrected_scale`: the correlation between splits taken as
    ``test_fraction``, as baycomp's ``CorrelatedTTest`` takes 1/k). Returns
    the posterior probabilities "probability better" (mean > margin),
    "probability equivalent" (within it) and "probability worse"
    (< -margin), which sum to 1. When every difference is the same the
    posterior is undefined (:func:`no_spread`): the three are NaN.

    Examples
    --------
    >>> result = correlated_bayes([0.1, 0.2, 0.15, 0.12, 0.3], 0.02,
    ...                           test_fraction=0.2)
    >>> result["probability better"] > 0.9, round(sum(result.values()), 9)
    (True, 1.0)
    """
    d, mean, scale, df = _corrected_t(differences, test_fraction)
    margin = _check_margin(margin)
    if no_spread(d):  # a posterior of zero width would be certainty from ties
        nan = float("nan")
        return {
            "probability better": nan,
            "probability equivalent": nan,
            "probability worse": nan,
        }
    posterior = stats.t(df, loc=mean, scale=scale)
    worse, better = float(posterior.cdf(-margin)), float(posterior.sf(margin))
    return {
        "probability better": better,
        "probability equivalent": max(0.0, 1.0 - better - worse),
        "probability worse": worse,
    }


def posterior_means(scores, *, test_fraction, n_samples=20_000, random_state=0):
    """Draws of the arms' mean scores from the correlated Bayesian
    posterior, jointly.

    ``scores`` is (J splits, A arms). The contrasts of every arm with the
    first follow a multivariate Student t with J - 1 degrees of freedom,
    centred on the mean contrasts, with the splits' covariance of the
    contrasts scaled as in :func:`correlated_bayes`; the draws add the
    first arm's mean back. Any one contrast of the draws has exactly
    :func:`correlated_bayes`'s posterior, so "arm a is within a margin of
    the best" is a probability over the same model. Returns (n_samples, A).
    ``scores`` must be finite, with at least 2 splits and 1 arm.

    Examples
    --------
    >>> scores = [[0.80, 0.85], [0.78, 0.86], [0.82, 0.84], [0.79, 0.88]]
    >>> draws = posterior_means(scores, test_fraction=0.25, n_samples=1_000)
    >>> draws.shape, bool((draws[:, 1] > draws[:, 0]).mean() > 0.9)
    ((1000, 2), True)
    """
    scores = finite_table(scores, "scores", ("splits", "arms"), (2, 1))
    _check_test_fraction(test_fraction)
    n_samples = check_count("n_samples", n_samples, 1)
    n, arms = scores.shape
    contrasts = scores[:, 1:] - scores[:, :1]
    rng = np.random.default_rng(random_state)
    location = contrasts.mean(axis=0)
    draws = np.zeros((n_samples, arms))
    if arms > 1:
        spread = np.atleast_2d(np.cov(contrasts, rowvar=False))
        covariance = _correction(test_fraction, n) * spread
        normal = rng.multivariate_normal(
            np.zeros(arms - 1), covariance, size=n_samples, method="eigh"
        )
        shrink = np.sqrt((n - 1) / rng.chisquare(n - 1, size=(n_samples, 1)))
        draws[:, 1:] = location + normal * shrink
    return draws + scores[:, 0].mean()


def holm_levels(p_values, alpha=ALPHA_LEVEL):
    """The one-sided level at which each test's confidence bound must be
    drawn to agree with Holm's step-down procedure on ``p_values``.

    Holm rejects the i-th smallest of m p-values while every p up to it is
    below alpha / (m - j + 1). A rejected test gets its own step's level
    (its bound then excludes 0, as its p is below it); every test from the
    first one not rejected gets that first step's level (their p-values are
    at least that large, so their bounds include 0). Bounds drawn at these
    levels exclude 0 exactly when Holm rejects. ``p_values`` are checked as
    by :func:`holm`: a NaN is left out of m and gets a NaN level; ``alpha``
    is in (0, 1).

    Examples
    --------
    >>> holm_levels([0.001, 0.03, 0.02, 0.04]).round(5).tolist()
    [0.0125, 0.01667, 0.01667, 0.01667]
    """
    p = _check_p_values(p_values)
    alpha = check_level(alpha, "alpha")
    valid = np.flatnonzero(~np.isnan(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = len(order)
    steps = alpha / (m - np.arange(m))
    rejected = np.minimum.accumulate(p[order] < steps)
    first_kept = np.flatnonzero(~rejected)
    levels = steps.copy()
    if len(first_kept):
        levels[first_kept[0] :] = steps[first_kept[0]]
    out = np.full(len(p), np.nan)
    out[order] = levels
    return out


def corrected_t_bounds(differences, *, test_fraction, alpha_low, alpha_high):
    """The lower confidence bound of the mean of split ``differences`` at
    one-sided level 1 - ``alpha_low`` and the upper at 1 - ``alpha_high``,
    from the corrected resampled t statistic (:func:`corrected_t_comparison`):
    the lower bound exceeds 0 exactly when the one-sided p is below
    ``alpha_low``.

    Examples
    --------
    >>> low, high = corrected_t_bounds([0.1, 0.2, 0.15, 0.12, 0.3],
    ...                                test_fraction=0.2, alpha_low=0.05,
    ...                                alpha_high=0.05)
    >>> bool(0 < low < 0.174 < high)  # around the mean, 0.174
    True
    """
    d, mean, scale, df = _corrected_t(differences, test_fraction)
    alpha_low = check_level(alpha_low, "alpha_low")
    alpha_high = check_level(alpha_high, "alpha_high")
    if no_spread(d):  # no spread (:func:`no_spread`): nothing bounds the mean
        return -np.inf, np.inf
    return (
        mean - stats.t.isf(alpha_low, df) * scale,
        mean + stats.t.isf(alpha_high, df) * scale,
    )


def sign_floor(n_differences):
    """2^-n: the chance that all of ``n_differences`` paired differences
    fall on one side by a fair coin each, the most n signs can show.
    :func:`skgate.compare.gate_tests` reports no p below it: the corrected
    t-test's normal tails alone gave 2 splits of one repeat p = 0.005 from
    two differences of -0.529 and -0.520 (one degree of freedom, a spread
    of 0.009), where 2^-2 = 0.25 says what two splits can tell.

    Examples
    --------
    >>> sign_floor(2), sign_floor(10) < 0.001
    (0.25, True)
    """
    return 0.5 ** check_count("n_differences", n_differences, 1)


def _shifted_sign_flip(d, n_resamples):
    """The sign-flip test of ``d - delta`` for any delta, from one draw of
    sign patterns: scipy's null statistics of ``d`` (A) and of ``d - 1``
    (A - B) give each pattern's mean of s * d (A) and of s (B), so that the
    pattern's statistic at delta is A - delta B. Returns p(delta), computed
    as :func:`sign_flip_test` computes it (the same patterns, tolerance and
    Monte Carlo adjustment)."""

    def null(values):
        return stats.permutation_test(
            (values,), np.mean, permutation_type="samples", alternative="greater",
            n_resamples=n_resamples, random_state=0,
        ).null_distribution  # fmt: skip

    a = null(d)
    b = a - null(d - 1.0)
    adjustment = 0 if len(a) == 2 ** len(d) and len(a) <= n_resamples else 1
    tolerance = np.finfo(np.float64).eps * 100

    def p_value(delta):
        observed = d.mean() - delta
        hits = (a - delta * b >= observed - abs(tolerance * observed)).sum()
        return (hits + adjustment) / (len(a) + adjustment)

    return p_value


def sign_flip_bounds(differences, *, alpha_low, alpha_high, n_resamples=9_999):
    """Confidence bounds of the mean of ``differences`` that invert the
    sign-flip test: the lower bound is where the one-sided p-value of
    ``differences - delta`` reaches ``alpha_low`` (the upper, of
    ``delta - differences``, ``alpha_high``), found by bisection. The same
    sign patterns serve every delta, so the p-value is monotone in it and
    the lower bound exceeds 0 exactly when :func:`sign_flip_test` is below
    ``alpha_low``. A bound the design cannot reach (its smallest p is not
    below the level) is infinite. Differences larger than 2^32 (or smaller
    than 2^-200) are bounded in units of a power of two (exact), so that
    the bounds are the same at every scale.

    Examples
    --------
    >>> low, high = sign_flip_bounds([0.1, 0.2, 0.15, 0.12, 0.3, 0.25],
    ...                              alpha_low=0.05, alpha_high=0.05)
    >>> bool(0 < low < 0.19 < high)
    True
    """
    d = finite_values(differences, "differences")
    alpha_low = check_level(alpha_low, "alpha_low")
    alpha_high = check_level(alpha_high, "alpha_high")
    n_resamples = check_count("n_resamples", n_resamples, 1)
    # The shift by 1 in _shifted_sign_flip needs differences near 1 in size.
    e = _binary_exponent(d, 2.0**32)
    low, high = _sign_flip_crossings(
        np.ldexp(d, -e), alpha_low, alpha_high, n_resamples
    )
    return float(np.ldexp(low, e)), float(np.ldexp(high, e))


def _sign_flip_crossings(d, alpha_low, alpha_high, n_resamples):
    """:func:`sign_flip_bounds` of checked differences ``d``."""
    span = float(np.ptp(d)) or 1.0

    def crossing(values, alpha):
        # The largest shift delta with p(values - delta) below alpha.
        p_value = _shifted_sign_flip(values, n_resamples)
        below, above = float(values.min()) - span, float(values.max()) + span
        if p_value(below) >= alpha:
            return -np.inf
        for _ in range(60):
            middle = (below + above) / 2
            below, above = (
                (middle, above) if p_value(middle) < alpha else (below, middle)
            )
        return below

    return crossing(d, alpha_low), -crossing(-d, alpha_high)


def smallest_p(test, n_splits, *, n_resamples=9_999):
    """The smallest one-sided p-value ``test`` can give on ``n_splits``
    differences: 1 / 2^n for the exact sign-flip test (1 / (n_resamples + 1)
    once Monte Carlo), 0 for the corrected t-test (all differences equal
    and positive give p = 0; :func:`skgate.compare.gate_tests` reads it no
    lower than :func:`sign_floor`). ``test`` is "sign-flip" or "corrected-t";
    ``n_splits`` is an int >= 2 (fewer differences are tested by neither:
    :func:`sign_flip_test` and :func:`corrected_t_comparison` refuse one),
    ``n_resamples`` an int >= 1.

    Examples
    --------
    >>> smallest_p("sign-flip", 5)
    0.03125
    """
    if test not in ("sign-flip", "corrected-t"):
        raise ValueError(
            f"test must be 'sign-flip' or 'corrected-t'; got {short_repr(test)}."
        )
    n_splits = check_count("n_splits", n_splits, 2)
    n_resamples = check_count("n_resamples", n_resamples, 1)
    if test == "corrected-t":
        return 0.0
    return max(1 / 2**n_splits, 1 / (n_resamples + 1))


def adjust(tests):
    """A claim's family of tests with Holm-adjusted p-values and outcomes.

    Adds "p holm", "p reverse holm", "p equivalence holm" (each adjusted
    over the whole family) and "outcome" (:data:`HOLDS`, :data:`REVERSED`,
    :data:`NO_EFFECT` or :data:`INCONCLUSIVE`: the claimed direction's
    adjusted p below :data:`ALPHA_LEVEL`, else the reverse's, else the
    equivalence's), and "holds" (outcome is :data:`HOLDS`). ``tests`` is a
    pandas DataFrame with the columns "p", "p reverse" and "p equivalence",
    one row per test, each a p-value: a number in [0, 1]. NaN is refused
    (unlike :func:`holm`, which leaves it out of the family): a test that
    could not be computed has no outcome, and leaving it out would shrink
    one column's family and not the others'.

    Examples
    --------
    >>> import pandas as pd
    >>> tests = pd.DataFrame({"p": [0.001, 0.5], "p reverse": [0.99, 0.5],
    ...                       "p equivalence": [0.9, 0.01]})
    >>> adjust(tests)["outcome"].tolist()
    ['holds', 'no effect']
    """
    columns = ("p", "p reverse", "p equivalence")
    _check_test_table(tests, columns)
    p_values = {column: _p_column(tests, column) for column in columns}
    tests = tests.reset_index(drop=True).copy()
    for column in columns:
        tests[column] = p_values[column]
        tests[f"{column} holm"] = holm(p_values[column])
    outcome = np.full(len(tests), INCONCLUSIVE, dtype=object)
    outcome[tests["p equivalence holm"] < ALPHA_LEVEL] = NO_EFFECT
    outcome[tests["p reverse holm"] < ALPHA_LEVEL] = REVERSED
    outcome[tests["p holm"] < ALPHA_LEVEL] = HOLDS
    tests["outcome"] = outcome
    tests["holds"] = outcome == HOLDS
    return tests


def _check_test_table(tests, columns):
    """A TypeError unless ``tests`` is a DataFrame, a ValueError naming the
    missing ones of ``columns``."""
    if not hasattr(tests, "columns") or not hasattr(tests, "reset_index"):
        raise TypeError(
            f"tests must be a pandas DataFrame with the columns "
            f"{', '.join(map(repr, columns))}; got {type(tests).__name__}."
        )
    missing = [column for column in columns if column not in tests.columns]
    if missing:
        raise ValueError(
            f"tests must have the columns {', '.join(map(repr, columns))}; "
            f"missing {', '.join(map(repr, missing))}."
        )


def _p_column(tests, column):
    """``tests[column]`` as floats, each a real number (not a bool, not
    text) in [0, 1]; else a ValueError naming the column, the first bad
    value and its row."""
    values = tests[column].to_numpy()
    if values.dtype.kind in "iuf":
        p = values.astype(float)
    else:  # object (or bool): only real numbers count
        real = np.fromiter(
            (isinstance(v, Real) and not isinstance(v, bool | np.bool_)
             for v in values), dtype=bool, count=len(values),
        )  # fmt: skip
        p = np.where(real, values, np.nan).astype(float)
    bad = np.flatnonzero(~((p >= 0) & (p <= 1)))
    if len(bad):
        value, row = (
            v.item() if isinstance(v, np.generic) else v
            for v in (values[bad[0]], tests.index[bad[0]])
        )
        raise ValueError(
            f"tests[{column!r}] must hold p-values, numbers in [0, 1] (not NaN); "
            f"got {short_repr(value)} in row {row!r}."
        )
    return p


#: The kinds of test :func:`family_outcomes` knows ("kind" column).
_KINDS = ("superiority", "trend", "equivalence")


def family_outcomes(tests):
    """:func:`adjust`, then the outcome of equivalence tests (rows whose
    "kind" is "equivalence"): holds when equivalent within the margin,
    reversed when a difference either way is shown, else inconclusive.
    Superiority and trend tests keep :func:`adjust`'s outcome. ``tests`` is
    a DataFrame as :func:`adjust` takes it, with a "kind" column besides:
    "superiority", "trend" or "equivalence" (lower case; any other value is
    refused).

    Examples
    --------
    >>> import pandas as pd
    >>> tests = pd.DataFrame({"kind": ["superiority", "equivalence"],
    ...                       "p": [0.001, 0.5], "p reverse": [0.99, 0.5],
    ...                       "p equivalence": [0.9, 0.01]})
    >>> family_outcomes(tests)["outcome"].tolist()
    ['holds', 'holds']
    """
    _check_test_table(tests, ("kind", "p", "p reverse", "p equivalence"))
    unknown = sorted({str(kind) for kind in tests["kind"]} - set(_KINDS))
    if unknown:
        raise ValueError(
            f"tests['kind'] must be one of {', '.join(map(repr, _KINDS))}; "
            f"got {', '.join(map(repr, unknown))}."
        )
    tests = adjust(tests)
    equivalence = (tests["kind"] == "equivalence").to_numpy()
    shown = (tests["p holm"] < ALPHA_LEVEL) | (tests["p reverse holm"] < ALPHA_LEVEL)
    outcome = np.where(
        tests["p equivalence holm"] < ALPHA_LEVEL,
        HOLDS,
        np.where(shown, REVERSED, INCONCLUSIVE),
    )
    tests["outcome"] = np.where(equivalence, outcome, tests["outcome"])
    tests["holds"] = tests["outcome"] == HOLDS
    return tests


# Across datasets: each dataset is one independent replicate, summarised by
# each model's mean score on it (Demsar, 2006; Benavoli et al., 2017).


# The tests across datasets live in their own module; imported last, since
# it uses this module's checks.
from ._across import (  # noqa: E402
    average_ranks,
    friedman_test,
    nemenyi_critical_difference,
    nemenyi_p,
    signed_rank_bayes,
    signed_rank_outcome,
)

"""Tests across datasets (Demšar, 2006; Benavoli et al., 2017): average
ranks, Friedman's test with Nemenyi's critical difference, and the
Bayesian signed-rank test. Public through :mod:`skgate.paired`, which
holds the tests within one dataset (the argument checks both use are
:mod:`skgate._checks`')."""

import math

import numpy as np
from scipy import stats

from ._checks import check_count, check_level, check_number, finite_table, finite_values
from .paired import ALPHA_LEVEL, HOLDS, INCONCLUSIVE, NO_EFFECT, REVERSED


def average_ranks(table):
    """Each model's rank on each dataset, 1 the highest score (ties share
    the mean of their ranks), for a (datasets, models) ``table`` of scores.

    Examples
    --------
    >>> average_ranks([[0.9, 0.8, 0.8], [0.7, 0.9, 0.6]]).tolist()
    [[1.0, 2.5, 2.5], [2.0, 1.0, 3.0]]
    """
    return stats.rankdata(
        -finite_table(table, "table", ("datasets", "models"), (2, 2)), axis=1
    )


def friedman_test(table):
    """Friedman's test that k models rank alike over N datasets, read from
    their average ranks R_j (Demsar, 2006, section 3.2.2):
    chi2_F = 12 N / (k (k + 1)) [sum_j R_j^2 - k (k + 1)^2 / 4], and Iman &
    Davenport's F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F) on k - 1 and
    (k - 1)(N - 1) degrees of freedom, the statistic Demsar recommends ("p"
    is F_F's; "p chi2" is chi2_F's on k - 1 degrees of freedom). Where every
    dataset ranks the models alike F_F is infinite, and "p" is the exact
    chance of that, (k!)^(1 - N): 1/6 for 3 models on 2 datasets.

    Examples
    --------
    >>> result = friedman_test([[3, 2, 1], [3, 1, 2], [3, 2, 1], [3, 2, 1]])
    >>> result["average ranks"].tolist(), bool(result["p"] < 0.05)
    ([1.0, 2.25, 2.75], True)
    """
    ranks = average_ranks(table)
    n, k = ranks.shape
    mean = ranks.mean(axis=0)
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(mean**2) - k * (k + 1) ** 2 / 4)
    chi2 = max(float(chi2), 0.0)  # 0 up to rounding when every rank is equal
    df1, df2 = k - 1, (k - 1) * (n - 1)
    if chi2 >= n * (k - 1):
        # Every dataset ranks the models alike (and without ties): F_F is
        # infinite and its p 0, which would call 2 datasets decisive. The
        # exact p is the chance of that under the null, (k!)^(1 - N): the
        # largest chi2_F there is, reached by k! of the (k!)^N rankings.
        f, p = np.inf, float(np.exp((1 - n) * math.lgamma(k + 1)))
    else:
        f = (n - 1) * chi2 / (n * (k - 1) - chi2)
        p = float(stats.f.sf(f, df1, df2))
    return {
        "average ranks": mean,
        "chi2": chi2,
        "p chi2": float(stats.chi2.sf(chi2, df1)),
        "F": float(f),
        "df1": df1,
        "df2": df2,
        "p": p,
        "n datasets": n,
        "n models": k,
    }


def _rank_scale(n_models, n_datasets):
    """The standard error of a difference of two average ranks under the
    null: sqrt(k (k + 1) / (6 N)), after checking k >= 2 and N >= 2 (one
    dataset ranks each model once: nothing to compare across datasets, as
    :func:`friedman_test` refuses it)."""
    n_models = check_count("n_models", n_models, 2)
    n_datasets = check_count("n_datasets", n_datasets, 2)
    return np.sqrt(n_models * (n_models + 1) / (6 * n_datasets))


def nemenyi_critical_difference(n_models, n_datasets, alpha=ALPHA_LEVEL):
    """The smallest difference of average ranks Nemenyi's test calls
    significant when every pair of k models is compared over N datasets:
    CD = q_alpha sqrt(k (k + 1) / (6 N)), q_alpha the studentized range's
    upper alpha point for k groups (infinite degrees of freedom) over
    sqrt(2) (Demsar, 2006, section 3.2.2). ``n_models`` (k) and
    ``n_datasets`` (N) are ints >= 2; ``alpha`` is in (0, 1).

    Examples
    --------
    >>> round(float(nemenyi_critical_difference(4, 14)), 2)  # Demsar's example
    1.25
    """
    scale = _rank_scale(n_models, n_datasets)
    q = stats.studentized_range.isf(check_level(alpha, "alpha"), n_models, np.inf)
    return float(q / np.sqrt(2) * scale)


def nemenyi_p(rank_difference, n_models, n_datasets):
    """The p-value of Nemenyi's test for one pair whose average ranks differ
    by ``rank_difference``, adjusted for all k (k - 1) / 2 pairs (the
    studentized range's tail at sqrt(2) abs(difference) / scale): below alpha
    exactly when the difference exceeds :func:`nemenyi_critical_difference`.

    ``rank_difference`` is one number, of either sign, at most k - 1 in
    size (two average ranks of k models lie in [1, k]); ``n_models`` (k) is
    an int >= 2, ``n_datasets`` an int >= 2.

    Examples
    --------
    >>> bool(nemenyi_p(1.5, 4, 14) < 0.05 < nemenyi_p(1.0, 4, 14))  # CD 1.25
    True
    """
    scale = _rank_scale(n_models, n_datasets)
    largest = n_models - 1
    rank_difference = check_number(
        rank_difference, "rank_difference",
        f"a finite number within +-{largest} (two average ranks of "
        f"{n_models} models)", lambda d: np.isfinite(d) and abs(d) <= largest,
    )  # fmt: skip
    z = abs(rank_difference) / scale
    return float(stats.studentized_range.sf(np.sqrt(2) * z, n_models, np.inf))


def _heaviside(values, threshold):
    return (values > threshold) + 0.5 * (values == threshold)


def signed_rank_bayes(
    differences, margin, *, prior=0.5, n_samples=50_000, random_state=0
):
    """The Bayesian signed-rank test (Benavoli et al., 2014; 2017) of one
    model against another over datasets: ``differences`` are the per-dataset
    differences of their mean scores (better minus worse), ``+-margin`` the
    region of practical equivalence.

    A Dirichlet process with a pseudo-observation at 0 of weight ``prior``
    gives each posterior draw the probability that the mean of two
    differences lies above the margin, within it, or below; a region's
    probability is the share of draws in which it is the likeliest, as
    baycomp's ``SignedRankTest`` reports it (the same draws for the same
    ``random_state``). Returns "probability better", "probability
    equivalent" and "probability worse" (summing to 1).

    Examples
    --------
    >>> result = signed_rank_bayes([0.05, 0.08, 0.04, 0.1, 0.06, 0.07], 0.01)
    >>> result["probability better"] > 0.9
    True
    """
    d = finite_values(differences, "differences")
    margin = check_number(
        margin, "margin", "> 0 and finite (the equivalence margin)",
        lambda m: np.isfinite(m) and m > 0,
    )  # fmt: skip
    prior = check_number(
        prior, "prior", "> 0 and finite (the weight of the pseudo-observation)",
        lambda w: np.isfinite(w) and w > 0,
    )  # fmt: skip
    n_samples = check_count("n_samples", n_samples, 1)
    d = np.concatenate(([0.0], d))  # the prior's pseudo-observation
    weights = np.ones(len(d))
    weights[0] = prior
    sums = d[:, None] + d[None, :]  # Walsh averages, doubled
    above, below = _heaviside(sums, 2 * margin), _heaviside(-sums, 2 * margin)
    draws = np.random.RandomState(random_state).dirichlet(weights, n_samples)
    better = np.sum((draws @ above) * draws, axis=1)
    worse = np.sum((draws @ below) * draws, axis=1)
    regions = np.column_stack([worse, 1 - better - worse, better])
    shares = np.bincount(regions.argmax(axis=1), minlength=3) / n_samples
    return {
        "probability better": float(shares[2]),
        "probability equivalent": float(shares[1]),
        "probability worse": float(shares[0]),
    }


def signed_rank_outcome(result, *, probability):
    """The outcome of :func:`signed_rank_bayes`'s ``result`` in the words of
    every other test: :data:`HOLDS` when "probability better" reaches
    ``probability``, :data:`REVERSED` when "probability worse" does,
    :data:`NO_EFFECT` when "probability equivalent" does, else
    :data:`INCONCLUSIVE`.

    Examples
    --------
    >>> signed_rank_outcome(
    ...     {"probability better": 0.97, "probability equivalent": 0.03,
    ...      "probability worse": 0.0}, probability=0.95)
    'holds'
    """
    probability = check_number(
        probability, "probability", "in (0.5, 1] (a decision's posterior probability)",
        lambda p: 0.5 < p <= 1,
    )  # fmt: skip
    if result["probability better"] >= probability:
        return HOLDS
    if result["probability worse"] >= probability:
        return REVERSED
    if result["probability equivalent"] >= probability:
        return NO_EFFECT
    return INCONCLUSIVE

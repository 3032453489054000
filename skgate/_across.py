"""Tests across datasets (Demšar, 2006; Benavoli et al., 2017): average
ranks, Friedman's test with Nemenyi's critical difference, and the
Bayesian signed-rank test. Public through :mod:`skgate.paired`, which
holds the tests within one dataset (the argument checks both use are
:mod:`skgate._checks`')."""

import itertools
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


#: Past this many models the k! orders of one dataset's ranks are too many
#: to enumerate (8! = 40320), and Friedman's p is F_F's.
_EXACT_MOST_MODELS = 8

#: The most vectors of rank sums the exact Friedman distribution may build,
#: summed over the datasets (each adds its states times its distinct
#: orders); past it the F approximation is used.
_EXACT_BUDGET = 2_000_000


def friedman_test(table):
    """Friedman's test that k models rank alike over N datasets, read from
    their average ranks R_j (Demsar, 2006, section 3.2.2):
    chi2_F = 12 N / (k (k + 1)) [sum_j R_j^2 - k (k + 1)^2 / 4], and Iman &
    Davenport's F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F) on k - 1 and
    (k - 1)(N - 1) degrees of freedom.

    "p" is the chance of a chi2_F at least the one observed when each
    dataset's ranks (midranks where models tie, kept as they are) fall in
    any of their k! orders with equal chance, independently of the other
    datasets (the null hypothesis that the models are alike). It
    is exact ("method" is "exact") where that distribution can be built
    within a budget, dataset by dataset over the sorted vectors of rank sums
    (in integers, twice the ranks, so equal statistics compare equal).
    Without ties that is up to 125 datasets of 3 models, 26 of 4, 9 of 5,
    4 of 6, and 2 of 7 or 8. Elsewhere ("method" is "F approximation") it is
    F_F's p from the F distribution, as Demsar recommends with enough
    datasets, raised to (k!)^(1 - N) where it is below. So "p" is in
    (0, 1], never below (k!)^(1 - N), the exact chance that every dataset
    ranks the models alike (1/6 for 3 models on 2 datasets), and never falls
    as chi2_F falls for the same N, k and ties (which decide the method).

    Also returned: "method", "average ranks" (the R_j), "chi2", "F"
    (infinite where every dataset ranks the models alike, without ties),
    "df1", "df2", "p F" (F_F's p, 0 where F_F is infinite), "p chi2"
    (chi2_F's on k - 1 degrees of freedom), "n datasets" and "n models".

    Examples
    --------
    >>> result = friedman_test([[3, 2, 1], [3, 1, 2], [3, 2, 1], [3, 2, 1]])
    >>> result["average ranks"].tolist(), bool(result["p"] < 0.05)
    ([1.0, 2.25, 2.75], True)
    >>> result["method"], round(result["p"], 4), bool(result["p F"] < result["p"])
    ('exact', 0.0417, True)
    """
    ranks = average_ranks(table)
    n, k = ranks.shape
    mean = ranks.mean(axis=0)
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(mean**2) - k * (k + 1) ** 2 / 4)
    chi2 = max(float(chi2), 0.0)  # 0 up to rounding when every rank is equal
    df1, df2 = k - 1, (k - 1) * (n - 1)
    if chi2 >= n * (k - 1):
        f, p_f = np.inf, 0.0  # every dataset ranks the models alike
    else:
        f = (n - 1) * chi2 / (n * (k - 1) - chi2)
        p_f = float(stats.f.sf(f, df1, df2))
    p, method = _exact_friedman_p(ranks), "exact"
    if p is None:
        p, method = p_f, "F approximation"
    return {
        "average ranks": mean,
        "chi2": chi2,
        "p chi2": float(stats.chi2.sf(chi2, df1)),
        "F": float(f),
        "df1": df1,
        "df2": df2,
        "p F": p_f,
        "p": min(max(p, _unanimous_chance(n, k)), 1.0),
        "method": method,
        "n datasets": n,
        "n models": k,
    }


def _unanimous_chance(n_datasets, n_models):
    """(k!)^(1 - N), the chance under Friedman's null that N datasets rank
    k models alike, and Friedman's smallest p: the observed ranking, with
    the models relabelled in any of k! ways, gives the same chi2_F. The
    smallest positive float where that underflows."""
    chance = math.exp((1 - n_datasets) * math.lgamma(n_models + 1))
    return max(chance, np.finfo(float).smallest_subnormal)


def _exact_friedman_p(ranks):
    """The exact p of Friedman's test for a (datasets, models) table of
    ``ranks``: the chance, each dataset's ranks put in any of their k!
    orders, of a sum of squared rank sums at least the observed one; None
    past :data:`_EXACT_MOST_MODELS` or :data:`_EXACT_BUDGET`.

    The sums are kept sorted: the null treats the models alike, so the
    chance of the next sorted vector depends only on the sorted one before.
    The datasets are added in the order of their sorted ranks, so that
    whether the budget suffices depends on the ties, not on the ranking."""
    doubled = np.rint(2 * ranks).astype(np.int32)  # midranks are halves
    n, k = doubled.shape
    base = 2 * n * k + 1  # every doubled rank sum is below it
    if k > _EXACT_MOST_MODELS or base ** (k - 1) > np.iinfo(np.int64).max:
        return None
    orders = np.array(list(itertools.permutations(range(k))))
    first, *rest = sorted(doubled, key=lambda r: sorted(r))
    sums, chances, work = np.sort(first)[None, :], np.ones(1), 0
    for row in rest:
        arranged, weights = _distinct_orders(row, orders)
        work += len(sums) * len(arranged)
        if work > _EXACT_BUDGET:
            return None
        sums, chances = _add_dataset(sums, chances, arranged, weights, base)
    observed = _sum_of_squares(doubled.sum(axis=0))
    return float(np.sum(chances[_sum_of_squares(sums) >= observed]))


def _sum_of_squares(sums):
    """Friedman's statistic up to an affine map, in integers: the sum of
    squared (doubled) rank sums, over the last axis."""
    return np.sum(np.asarray(sums, dtype=np.int64) ** 2, axis=-1)


def _distinct_orders(row, orders):
    """The distinct orders of ``row``'s values, (orders, models), and the
    chance of each, for ``orders`` every order of its k positions."""
    arranged = row[orders]
    if len(np.unique(row)) == len(row):
        return arranged, np.full(len(orders), 1 / len(orders))
    arranged, counts = np.unique(arranged, axis=0, return_counts=True)
    return arranged, counts / len(orders)


def _add_dataset(sums, chances, arranged, weights, base):
    """The sorted vectors of rank sums after one more dataset, and their
    chances: ``sums`` (states, models) sorted with their ``chances``, plus
    each of the dataset's distinct orders ``arranged`` (orders, models)
    with its chance in ``weights``. A vector is keyed by its first k - 1
    entries in base ``base`` (the last is the total's rest)."""
    k = sums.shape[1]
    grown = np.sort(sums[:, None, :] + arranged[None, :, :], axis=2).reshape(-1, k)
    keys = grown[:, :-1] @ base ** np.arange(k - 1, dtype=np.int64)
    order = np.argsort(keys)
    keys = keys[order]
    first = np.flatnonzero(np.diff(keys, prepend=-1))  # where a new vector starts
    grown_chances = np.outer(chances, weights).ravel()[order]
    return grown[order[first]], np.add.reduceat(grown_chances, first)


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

"""The general statistics of the study: paired comparisons, trends, Holm's
correction, equivalence, and the words of their outcomes (the sign-flip
tests, the corrected resampled t-test and the Bayesian correlated t-test for
cross-validation splits, Holm and the outcome words are the library's
:mod:`skgate.paired`, which compare_gates shares).

Data in, data out; nothing here knows the paper's claims. Their rules (which
comparisons, which margins, which families) are :mod:`study.claims`'s.
"""

import numpy as np
import pandas as pd
from scipy import stats

from skgate.paired import (
    ALPHA_LEVEL,
    HOLDS,
    INCONCLUSIVE,
    NO_EFFECT,
    REVERSED,
    adjust,
    corrected_t_comparison,
    correlated_bayes,
    family_outcomes,
    holm,
    holm_levels,
    permutation_comparison,
    sign_flip_summary,
    sign_flip_test,
)

__all__ = [
    "ALPHA_LEVEL",
    "HOLDS",
    "INCONCLUSIVE",
    "NO_EFFECT",
    "REVERSED",
    "adjust",
    "corrected_t_comparison",
    "correlated_bayes",
    "family_outcomes",
    "condition_status",
    "holm",
    "holm_levels",
    "mean_std",
    "paired_comparison",
    "paired_power",
    "paired_statistics",
    "permutation_comparison",
    "tost_power",
    "seed_rhos",
    "seeds_for_power",
    "sign_flip_test",
    "within_seed_trend",
    "spearman_trend",
    "statuses",
    "t_half_width",
    "verdict",
]


def paired_statistics(a, b, margin):
    """Mean difference, 95 % CI, d_z, one-sided p both ways, TOST p."""
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    n = len(diff)
    mean = diff.mean() if n else np.nan
    if n < 2:
        return {
            "mean difference": mean,
            "ci low": np.nan,
            "ci high": np.nan,
            "d_z": np.nan,
            "p": 1.0,
            "p reverse": 1.0,
            "p equivalence": 1.0,
        }
    sd = diff.std(ddof=1)
    if sd == 0:  # every difference equal: no sampling error to test against
        inside = abs(mean) < margin
        return {
            "mean difference": mean,
            "ci low": mean,
            "ci high": mean,
            "d_z": np.sign(mean) * np.inf if mean else 0.0,
            "p": 0.0 if mean > 0 else 1.0,
            "p reverse": 0.0 if mean < 0 else 1.0,
            "p equivalence": 0.0 if inside else 1.0,
        }
    se = sd / np.sqrt(n)
    df = n - 1
    t = mean / se
    half = stats.t.ppf(0.975, df) * se
    # TOST: both one-sided nulls |difference| >= margin rejected.
    p_low = stats.t.sf((mean + margin) / se, df)
    p_high = stats.t.cdf((mean - margin) / se, df)
    return {
        "mean difference": mean,
        "ci low": mean - half,
        "ci high": mean + half,
        "d_z": mean / sd,
        "p": stats.t.sf(t, df),
        "p reverse": stats.t.cdf(t, df),
        "p equivalence": max(p_low, p_high),
    }


def mean_std(frame, by, value):
    """Mean +- std over seeds of ``value`` per group, with the count."""
    grouped = frame.groupby(by, dropna=False, sort=False)[value]
    return grouped.agg(["mean", "std", "count"]).reset_index()


def paired_comparison(frame, condition, column, better, worse, value, *, margin):
    """Paired (by seed) comparison of ``better`` against ``worse`` in ``column``.

    One row per condition: both means, the mean difference with its 95 %
    confidence interval, Cohen's d_z, the one-sided paired t-tests' p-values
    for ``better`` > ``worse`` ("p") and the reverse ("p reverse"), and the
    TOST p-value of equivalence within ``margin(value, mean of worse)``
    ("p equivalence"). Unadjusted: :func:`adjust` corrects a family and
    decides each outcome.
    """
    rows = []
    for key, group in frame.groupby(condition, dropna=False, sort=False):
        a = group[group[column] == better].set_index("seed")[value]
        b = group[group[column] == worse].set_index("seed")[value]
        a, b = a.align(b, join="inner")
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(condition, key, strict=True)),
                "comparison": f"{better} > {worse}",
                "measure": value,
                f"mean {better}": a.mean(),
                f"mean {worse}": b.mean(),
                **paired_statistics(a, b, margin(value, b.mean())),
                "n": len(a),
            }
        )
    return pd.DataFrame(rows)


def spearman_trend(frame, condition, x, y, *, margin):
    """Spearman correlation of ``y`` with ``x`` per condition.

    One row per condition: rho with its 95 % confidence interval (Fisher z,
    standard error sqrt(1.06 / (n - 3))), the one-sided p-values for a rising
    ("p") and a falling ("p reverse") trend, and "p equivalence" 0 or 1: 0
    when the interval lies within +-``margin``. Unadjusted, as
    :func:`paired_comparison`.
    """
    rows = []
    for key, group in frame.groupby(condition, dropna=False, sort=False):
        n = len(group)
        if group[y].nunique() > 1 and group[x].nunique() > 1 and n > 3:
            rho = stats.spearmanr(group[x], group[y]).statistic
            p = stats.spearmanr(group[x], group[y], alternative="greater").pvalue
            p_reverse = stats.spearmanr(group[x], group[y], alternative="less").pvalue
            half = stats.norm.ppf(0.975) * np.sqrt(1.06 / (n - 3))
            z = np.arctanh(np.clip(rho, -0.999999, 0.999999))
            low, high = np.tanh(z - half), np.tanh(z + half)
        else:  # a constant: no trend at all
            rho, p, p_reverse = 0.0, 1.0, 1.0
            low = high = 0.0 if n > 3 else np.nan
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(condition, key, strict=True)),
                "x": x,
                "y": y,
                "rho": rho,
                "ci low": low,
                "ci high": high,
                "p": p,
                "p reverse": p_reverse,
                "p equivalence": 0.0 if -margin < low and high < margin else 1.0,
                "n": n,
            }
        )
    return pd.DataFrame(rows)


def condition_status(outcomes):
    """A condition's status from its tests' outcomes: holds when all hold,
    reversed when any is reversed, no effect when the rest show none."""
    outcomes = list(outcomes)
    if outcomes and all(o == HOLDS for o in outcomes):
        return HOLDS
    if any(o == REVERSED for o in outcomes):
        return REVERSED
    if outcomes and all(o in (HOLDS, NO_EFFECT) for o in outcomes):
        return NO_EFFECT
    return INCONCLUSIVE


def verdict(statuses, conditions):
    """A claim's verdict from its conditions' statuses (the rule is printed
    in the report: :data:`study.claims.RULES`). Some conditions holding and
    none reversed is "partly reproduced"; some holding and some reversed is
    "mixed", never a reproduction.

    >>> verdict(["holds", "inconclusive"], ["a", "b"])
    'partly reproduced (1 of 2: holds in a)'
    >>> verdict(["holds", "reversed"], ["a", "b"])
    'mixed (holds in 1 of 2: a; reversed in 1: b)'
    """
    statuses = list(statuses)
    n = len(statuses)
    held = [c for c, s in zip(conditions, statuses, strict=True) if s == HOLDS]
    reversed_ = [c for c, s in zip(conditions, statuses, strict=True) if s == REVERSED]
    if n and len(held) == n:
        return "reproduced"
    if held and reversed_:  # a mixed result is no reproduction, not even a part
        return (
            f"mixed (holds in {len(held)} of {n}: {'; '.join(held)}; "
            f"reversed in {len(reversed_)}: {'; '.join(reversed_)})"
        )
    if held:
        return f"partly reproduced ({len(held)} of {n}: holds in {'; '.join(held)})"
    if reversed_:
        where = "; ".join(reversed_)
        return f"contradicted (reversed in {len(reversed_)} of {n}: {where})"
    if n and all(s == NO_EFFECT for s in statuses):
        return "not reproduced"
    undecided = sum(s == INCONCLUSIVE for s in statuses)
    return (
        f"inconclusive (low power: {undecided} of {n} conditions neither "
        f"shown nor ruled out)"
    )


def statuses(tests, condition):
    """Each condition's status, in order of first appearance."""
    grouped = tests.groupby(condition, sort=False, dropna=False)["outcome"]
    table = grouped.agg(condition_status).reset_index()
    return table.rename(columns={"outcome": "status"})


def t_half_width(sd, n):
    """Half the width of the 95 % t interval of a mean of ``n`` values with
    standard deviation ``sd`` (one degree of freedom at the least)."""
    return stats.t.ppf(0.975, np.maximum(n - 1, 1)) * sd / np.sqrt(n)


# -- power and sign-flip tests: the decisive study's tools ---------------------


def paired_power(effect, sd, n, alpha):
    """Power of the one-sided paired t-test at level ``alpha`` with ``n``
    pairs whose differences have mean ``effect`` (> 0) and standard
    deviation ``sd``: the noncentral t's tail beyond the critical value.

    Examples
    --------
    >>> round(paired_power(1.0, 1.0, 10, 0.05), 2)
    0.9
    """
    if n < 2:
        return 0.0
    df = n - 1
    critical = stats.t.isf(alpha, df)
    return float(stats.nct.sf(critical, df, effect / sd * np.sqrt(n)))


def seeds_for_power(effect, sd, alpha, power=0.8, max_seeds=10_000):
    """The fewest seeds (pairs) whose one-sided paired t-test at level
    ``alpha`` has at least ``power`` at a true difference ``effect`` with
    standard deviation ``sd``; None when even ``max_seeds`` fall short.

    Examples
    --------
    >>> seeds_for_power(1.0, 1.0, 0.05)
    8
    """
    if paired_power(effect, sd, max_seeds, alpha) < power:
        return None
    low, high = 2, max_seeds  # power rises with n: bisect for the first n
    while low < high:
        middle = (low + high) // 2
        if paired_power(effect, sd, middle, alpha) >= power:
            high = middle
        else:
            low = middle + 1
    return low


def tost_power(margin, sd, n, alpha):
    """Power of the paired equivalence test (TOST, each one-sided test at
    level ``alpha``) with ``n`` pairs at a true difference of 0 and standard
    deviation ``sd``: both noncentral t statistics beyond the critical value,
    ``1 - 2 P(T < t_crit)`` with noncentrality ``margin sqrt(n) / sd`` (0 when
    that is negative: the margin is out of reach).

    Examples
    --------
    >>> round(tost_power(0.02, 0.02, 10, 0.05), 1)
    0.8
    >>> tost_power(0.02, 0.1, 3, 0.05)
    0.0
    """
    if n < 2:
        return 0.0
    df = n - 1
    critical = stats.t.isf(alpha, df)
    miss = stats.nct.cdf(critical, df, margin / sd * np.sqrt(n))
    return float(max(0.0, 1.0 - 2.0 * miss))


def seed_rhos(frame, x, y, *, seed="seed"):
    """Each seed's Spearman correlation of ``y`` with ``x`` over its fits
    (0 where either is constant), in order of the seeds."""
    rhos = []
    for _, group in frame.groupby(seed, sort=True):
        constant = group[x].nunique() < 2 or group[y].nunique() < 2
        rhos.append(0.0 if constant else stats.spearmanr(group[x], group[y]).statistic)
    return np.asarray(rhos, dtype=float)


def within_seed_trend(frame, x, y, *, seed="seed", n_resamples=9_999):
    """A trend of ``y`` with ``x`` that respects the pairing by seed: each
    seed's own Spearman correlation over its fits, then a sign-flip test
    (:func:`sign_flip_test`) of the seeds' correlations against 0.

    Returns a dict: the mean of the seeds' rho ("rho"), its percentile
    interval over 9 999 bootstrap resamples of the seeds ("ci low", "ci
    high"; scipy.stats.bootstrap), the one-sided p-values of a rise ("p")
    and a fall ("p reverse"), and the number of seeds ("n"). A seed whose
    ``x`` or ``y`` is constant counts as rho 0 (no trend).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"seed": [0, 0, 0, 1, 1, 1, 2, 2, 2],
    ...                       "alpha": [0, 1, 2] * 3,
    ...                       "accuracy": [1, 2, 3, 1, 3, 2, 2, 3, 4]})
    >>> result = within_seed_trend(frame, "alpha", "accuracy")
    >>> result["n"], round(result["rho"], 3), round(result["p"], 3)
    (3, 0.833, 0.125)
    """
    rhos = seed_rhos(frame, x, y, seed=seed)
    if len(rhos) < 2:
        raise ValueError(
            f"within_seed_trend needs at least 2 seeds in column {seed!r}; got "
            f"{len(rhos)}."
        )
    summary = sign_flip_summary(rhos, n_resamples=n_resamples)
    return {"rho": summary.pop("estimate"), **summary}

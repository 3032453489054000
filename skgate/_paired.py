"""Paired comparisons without normal tails, and the words of their outcomes.

Private; shared by :func:`skgate.compare.compare_gates` and the reproduction
study (:mod:`skgate.study`), so that a user's comparison and the study's
tests are one implementation: sign-flip permutation tests of paired
differences (exact where 2^n is small), bootstrap intervals, an equivalence
test within a margin, Holm's correction over a family, and the outcome of
each test (holds, reversed, no effect, inconclusive).
"""

import numpy as np
from scipy import stats

__all__ = [
    "ALPHA_LEVEL",
    "CURVATURE_MARGIN_SHARE",
    "SCORE_MARGIN",
    "HOLDS",
    "INCONCLUSIVE",
    "NO_EFFECT",
    "REVERSED",
    "adjust",
    "family_outcomes",
    "holm",
    "permutation_comparison",
    "sign_flip_test",
]

#: Smallest differences of interest (equivalence margins), shared by the
#: study's protocol and compare_gates: 0.02 in accuracy (or score), a
#: quarter of the two arms' mean in curvature.
SCORE_MARGIN = 0.02
CURVATURE_MARGIN_SHARE = 0.25

#: Significance level of every test (after Holm's correction within a family).
ALPHA_LEVEL = 0.05

#: The outcome of one test, after Holm's correction within its claim.
HOLDS, REVERSED, NO_EFFECT, INCONCLUSIVE = (
    "holds",
    "reversed",
    "no effect",
    "inconclusive",
)


def holm(p_values):
    """Holm's step-down adjustment of ``p_values`` (family-wise error control).

    The i-th smallest of m p-values is multiplied by m - i + 1, the products
    made non-decreasing in that order and capped at 1 (NaN stays NaN and does
    not count towards m).

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.005]).round(12).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full_like(p, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = len(order)
    scaled = p[order] * (m - np.arange(m))
    adjusted[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return adjusted


def sign_flip_test(differences, *, n_resamples=9_999, random_state=0):
    """One-sided sign-flip permutation test of paired ``differences``
    (better minus worse): the p-value of their mean being as large as
    observed if each difference were as likely negative. Exact (all 2^n
    sign patterns) when 2^n <= ``n_resamples``, else Monte Carlo
    (scipy.stats.permutation_test). No normal tails: with n pairs the
    exact p-value is at least 1 / 2^n.

    Examples
    --------
    >>> round(sign_flip_test([1.0, 2.0, 3.0]), 4)  # 1 of the 8 patterns
    0.125
    """
    d = np.asarray(differences, dtype=float)
    if d.ndim != 1 or len(d) < 2 or not np.isfinite(d).all():
        raise ValueError(
            f"differences must be a 1-D sequence of at least 2 finite numbers; "
            f"got shape {d.shape}."
        )
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
    d = np.asarray(differences, dtype=float)
    p_equivalence = max(
        sign_flip_test(d + margin, n_resamples=n_resamples),
        sign_flip_test(margin - d, n_resamples=n_resamples),
    )
    return {**_sign_flip_summary(d, n_resamples), "p equivalence": p_equivalence}


def _sign_flip_summary(values, n_resamples):
    """The mean of ``values``, its bootstrap interval, its one-sided sign-flip
    p-values both ways, and their number."""
    low, high = _bootstrap_interval(values, n_resamples)
    return {
        "estimate": float(values.mean()),
        "ci low": low,
        "ci high": high,
        "p": sign_flip_test(values, n_resamples=n_resamples),
        "p reverse": sign_flip_test(-values, n_resamples=n_resamples),
        "n": len(values),
    }


def adjust(tests):
    """A claim's family of tests with Holm-adjusted p-values and outcomes.

    Adds "p holm", "p reverse holm", "p equivalence holm" (each adjusted
    over the whole family) and "outcome" (:data:`HOLDS`, :data:`REVERSED`,
    :data:`NO_EFFECT` or :data:`INCONCLUSIVE`: the claimed direction's
    adjusted p below :data:`ALPHA_LEVEL`, else the reverse's, else the
    equivalence's), and "holds" (outcome is :data:`HOLDS`).
    """
    tests = tests.reset_index(drop=True).copy()
    for column in ("p", "p reverse", "p equivalence"):
        tests[f"{column} holm"] = holm(tests[column])
    outcome = np.full(len(tests), INCONCLUSIVE, dtype=object)
    outcome[tests["p equivalence holm"] < ALPHA_LEVEL] = NO_EFFECT
    outcome[tests["p reverse holm"] < ALPHA_LEVEL] = REVERSED
    outcome[tests["p holm"] < ALPHA_LEVEL] = HOLDS
    tests["outcome"] = outcome
    tests["holds"] = outcome == HOLDS
    return tests


def family_outcomes(tests):
    """:func:`adjust`, then the outcome of equivalence tests (rows whose
    "kind" is "equivalence"): holds when equivalent within the margin,
    reversed when a difference either way is shown, else inconclusive.
    Superiority and trend tests keep :func:`adjust`'s outcome."""
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

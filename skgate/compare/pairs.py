"""compare_gates' tests: every pair of arms on the splits' paired scores
(:mod:`skgate.paired`), Holm over the table, and the recommendation.
"""

from itertools import combinations
from numbers import Real

import numpy as np
import pandas as pd

from .. import paired
from .._evaluation import (
    DECISION_PROBABILITY,
    check_margin,
    numeric_column,
    split_test_fraction,
)
from .design import CURVATURE_MARGIN_SHARE, TESTS
from .result import Recommendation


def _check_fraction(test_fraction, test):
    """An explicit ``test_fraction``: a number in (0, 1) for the corrected
    t-test (0 would make it the uncorrected one); the sign-flip test does
    not use it (the Bayesian test beside it takes [0, 1))."""
    if isinstance(test_fraction, bool) or not isinstance(test_fraction, Real):
        raise TypeError(
            f"test_fraction must be a number in (0, 1) (a split's share of test "
            f"rows); got {test_fraction!r}."
        )
    if test == "corrected-t" and not 0 < test_fraction < 1:
        raise ValueError(
            f"test_fraction must be a number in (0, 1) for test='corrected-t' (a "
            f"split's share of test rows; 0 would leave the test uncorrected); "
            f"got {test_fraction!r}."
        )


def _paired_table(scores):
    """The scores and curvature magnitudes as (split x arm) tables, after
    checking that every arm has exactly one row for every split that any
    arm has. The magnitude, so that the kinds that take either sign
    ("gaussian", "scalar") rank a flat arm (0) less curved than a
    negatively curved one, as :func:`skgate.least_curvature_refit` does."""
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(
            f"scores must be a pandas DataFrame (GateComparison.scores_); got "
            f"{type(scores).__name__}."
        )
    needed = {"arm", "repeat", "fold", "score", "curvature"}
    missing = sorted(needed - set(scores.columns))
    if missing:
        raise ValueError(
            f"scores lacks the columns {missing}; it needs {sorted(needed)}."
        )
    values = scores[["arm", "repeat", "fold"]].assign(
        score=numeric_column(scores, "score"),
        curvature=numeric_column(scores, "curvature").abs(),
    )
    arms = list(dict.fromkeys(scores["arm"]))
    if len(arms) < 2:
        raise ValueError(
            f"scores' 'arm' column holds {len(arms)} arm ({arms}); tests pair at "
            "least 2 arms."
        )
    counts = scores.groupby(["arm", "repeat", "fold"], sort=False).size()
    if (counts > 1).any():
        arm, repeat, fold = counts[counts > 1].index[0]
        raise ValueError(
            f"scores has {counts.max()} rows for arm {arm!r} on split (repeat "
            f"{repeat}, fold {fold}) in its 'arm', 'repeat' and 'fold' columns; "
            "each arm needs one row per split."
        )
    # The splits that exist (repeats may differ in their folds), not every
    # (repeat, fold) combination.
    table = values.pivot(
        index=["repeat", "fold"], columns="arm", values=["score", "curvature"]
    )
    if len(table) < 2:
        raise ValueError(
            f"scores has {len(table)} split per arm; paired tests need at least 2."
        )
    gaps = table["score"][arms].isna()
    if gaps.to_numpy().any():
        where = gaps.stack()
        (repeat, fold, arm) = where[where].index[0]
        raise ValueError(
            f"arm {arm!r} has no row for split (repeat {repeat}, fold {fold}) in "
            "scores' 'repeat' and 'fold' columns; every arm needs a row for "
            "every split, so that the differences are paired."
        )
    return arms, table


#: Why a pair's splits decide nothing, or decide by identity ("note").
NO_SPREAD = "no spread"
ALIKE = "alike"
UNINFORMATIVE = "uninformative"


def _pair_test(d, values, better, worse, measure, margin, test, test_fraction,
               alike=False):  # fmt: skip
    """One row of the tests table: ``d``, ``better`` minus ``worse`` over
    the splits, in ``measure`` (its margin: ``margin`` for the score, a
    share of the two arms' mean for curvature). Equal differences on every
    split (:func:`skgate.paired.no_spread`) decide nothing ("note": "no
    spread"), unless the two arms are ``alike``: the same predictions on
    every test row (for the score) or both exactly flat (for curvature),
    which makes them equivalent for that reason ("note": "alike")."""
    if measure == "curvature":
        pair = values[[better, worse]].to_numpy()
        alike = bool(np.all(pair == 0))  # both flat on every split
        margin = max(CURVATURE_MARGIN_SHARE * abs(float(np.mean(pair))), 1e-12)
    note = ""
    if paired.no_spread(d) and alike:
        note = ALIKE
        mean = float(np.mean(d))
        result = {"estimate": mean, "ci low": mean, "ci high": mean, "p": 1.0,
                  "p reverse": 1.0, "p equivalence": 0.0, "n": len(d)}  # fmt: skip
        bayes = {"probability better": 0.0, "probability equivalent": 1.0,
                 "probability worse": 0.0}  # fmt: skip
    else:
        if paired.no_spread(d):
            note = NO_SPREAD
        if test == "corrected-t" or note:
            result = paired.corrected_t_comparison(
                d, margin, test_fraction=test_fraction
            )
        else:
            result = paired.permutation_comparison(d, margin)
        bayes = paired.correlated_bayes(d, margin, test_fraction=test_fraction)
    return {
        "comparison": f"{better} > {worse}",
        # The arms by name: a gate's own name may hold " > ".
        "better": better,
        "worse": worse,
        "measure": measure,
        "mean difference": result.pop("estimate"),
        **result,
        **bayes,
        "margin": margin,
        "kind": "superiority",
        "note": note,
    }


def clip_score_intervals(tests, low, high):
    """The score rows' intervals cut to [``low``, ``high``], the range a
    difference of two such scores can take (accuracy: [-1, 1]); a row whose
    interval reached past it says so ("note": "uninformative"). Whether an
    interval holds 0 does not change."""
    tests = tests.copy()
    score = tests["measure"] == "score"
    wide = score & ((tests["ci low"] < low) | (tests["ci high"] > high))
    tests.loc[wide & (tests["note"] == ""), "note"] = UNINFORMATIVE
    tests.loc[score, "ci low"] = tests.loc[score, "ci low"].clip(lower=low)
    tests.loc[score, "ci high"] = tests.loc[score, "ci high"].clip(upper=high)
    return tests


def _alike(scores, arms):
    """``{(a, b): True}`` for the pairs of arms whose test predictions were
    the same on every split (scores' "predictions" digests; without that
    column, none is known to be)."""
    if "predictions" not in scores.columns:
        return {}
    digests = scores.pivot_table(
        index=["repeat", "fold"], columns="arm", values="predictions",
        aggfunc="first",
    )  # fmt: skip
    return {
        (a, b): bool((digests[a] == digests[b]).all())
        for a, b in combinations(arms, 2)
        if a in digests and b in digests
    }


def gate_tests(scores, *, test="corrected-t", margin=None, test_fraction=None):
    """The tests of a :func:`compare_gates` scores table: every pair of arms
    (in order: "first > second"), in score and in curvature (its magnitude,
    so that a flat arm is less curved than a negatively curved one), paired
    by split, one Holm family, each beside the Bayesian correlated t-test.

    Public so that any table with the columns arm, repeat, fold, score and
    curvature (and n_train, n_test, or ``test_fraction``) can be tested the
    same way.

    Parameters
    ----------
    scores : pandas.DataFrame
        One row per arm and split (a repeat and a fold); "score" and
        "curvature" hold numbers. Repeats may have different folds; every
        arm needs a row for every split that any arm has.
    test : {"corrected-t", "sign-flip"}, default="corrected-t"
        The corrected resampled t-test (splits that share training rows) or
        the sign-flip permutation test (independent replicates).
    margin : float, optional
        The score margin (default :data:`SCORE_MARGIN`); the curvature
        margin is :data:`CURVATURE_MARGIN_SHARE` of the two arms' mean.
    test_fraction : float, optional
        A split's share of test rows, in (0, 1) for "corrected-t" (0 would
        leave it uncorrected); default: from n_train and n_test, whole
        numbers >= 1 on every row.

    Returns
    -------
    pandas.DataFrame
        The columns of :attr:`GateComparison.tests_`: "comparison" names
        the pair, "better" and "worse" its arms.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [{"arm": arm, "repeat": 0, "fold": f, "n_train": 80, "n_test": 20,
    ...          "score": 0.5 + (0.1 + 0.01 * f) * (arm == "a"),
    ...          "curvature": 1.0 + 0.01 * f * (arm == "a")}
    ...         for arm in ("a", "b") for f in range(5)]
    >>> tests = gate_tests(pd.DataFrame(rows))
    >>> list(tests["outcome"])
    ['holds', 'no effect']
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {list(TESTS)}; got {test!r}.")
    margin = check_margin(margin)
    arms, table = _paired_table(scores)
    if test_fraction is None:
        if not {"n_train", "n_test"} <= set(scores.columns):
            raise ValueError(
                "scores needs the columns 'n_train' and 'n_test', or pass "
                "test_fraction= (a split's share of test rows)."
            )
        test_fraction = split_test_fraction(scores)
    else:
        _check_fraction(test_fraction, test)
    pairs = [
        (better, worse, measure)
        for better, worse in combinations(arms, 2)
        for measure in ("score", "curvature")
    ]
    differences = [
        (table[measure][better] - table[measure][worse]).to_numpy()
        for better, worse, measure in pairs
    ]
    alike = _alike(scores, arms)
    rows = [
        _pair_test(d, table[measure], better, worse, measure, margin, test,
                   test_fraction, alike.get((better, worse), False))
        for d, (better, worse, measure) in zip(differences, pairs, strict=True)
    ]  # fmt: skip
    tests = paired.family_outcomes(pd.DataFrame(rows))
    return _holm_bounds(tests, differences, test, test_fraction)


def _holm_bounds(tests, differences, test, test_fraction):
    """Each difference's interval with its bounds at Holm's step levels
    (:func:`skgate.paired.holm_levels`): the lower bound from the family
    of "p", the upper from that of "p reverse". A bound excludes 0 exactly
    when its test holds (is reversed) after Holm, so the verdict's words
    cannot contradict its intervals (both tests' bounds invert the test)."""
    tests["ci low level"] = 1 - paired.holm_levels(tests["p"])
    tests["ci high level"] = 1 - paired.holm_levels(tests["p reverse"])
    for i, d in enumerate(differences):
        if tests.at[i, "note"] == ALIKE:  # the same predictions: that point
            continue
        if tests.at[i, "note"] == NO_SPREAD:  # nothing bounds the mean
            tests.loc[i, ["ci low", "ci high"]] = (-np.inf, np.inf)
            continue
        levels = {
            "alpha_low": 1 - tests.at[i, "ci low level"],
            "alpha_high": 1 - tests.at[i, "ci high level"],
        }
        if test == "corrected-t":
            bounds = paired.corrected_t_bounds(d, test_fraction=test_fraction, **levels)
        else:
            bounds = paired.sign_flip_bounds(d, **levels)
        tests.loc[i, ["ci low", "ci high"]] = bounds
    tests["test"] = test
    return tests


def named_tests(scores, test, margin, names, bounds=None):
    """:func:`gate_tests` with a column naming each measure, the score
    intervals cut to ``bounds`` (:func:`clip_score_intervals`) if given."""
    tests = gate_tests(scores, test=test, margin=margin)
    named = dict(zip(("score", "curvature"), names, strict=True))
    at = tests.columns.get_loc("measure") + 1
    tests.insert(at, "measured as", tests["measure"].map(named))
    return tests if bounds is None else clip_score_intervals(tests, *bounds)


def recommend(scores, margin, test_fraction, random_state):
    """The arm(s) to use: each arm's posterior probability of being the
    best or within ``margin`` of it (joint correlated posterior); one arm
    when it alone reaches DECISION_PROBABILITY, the set when several do and
    jointly reach it (least curved first), else the likeliest arm, with the
    arms tied with it (least curved first; undecided)."""
    arms, table = _paired_table(scores)
    alike = _alike(scores, arms)
    unspread = [
        (a, b)
        for a, b in combinations(arms, 2)
        if paired.no_spread(table["score"][a] - table["score"][b])
        and not alike.get((a, b), False)
    ]
    if unspread:
        a, b = unspread[0]
        d = float((table["score"][a] - table["score"][b]).iloc[0])
        probabilities = dict.fromkeys(arms, float("nan"))
        why = (
            f"{a} minus {b} is {d:+.3g} on every split, which shows no sampling "
            "error to decide on (ties on small test folds)"
        )
        return Recommendation(tuple(arms), float("nan"), False, margin,
                              probabilities, why)  # fmt: skip
    # Drawn with the arms in one order (by name), so that the Monte Carlo
    # probabilities do not depend on the order gates= gave them in.
    named = sorted(arms)
    draws = paired.posterior_means(
        table["score"][named].to_numpy(),
        test_fraction=test_fraction,
        random_state=0 if random_state is None else random_state,
    )[:, [named.index(a) for a in arms]]
    close = draws >= draws.max(axis=1, keepdims=True) - margin
    probabilities = dict(zip(arms, close.mean(axis=0).tolist(), strict=True))
    likely = [a for a in arms if probabilities[a] >= DECISION_PROBABILITY]
    if len(likely) > 1:
        members = [arms.index(a) for a in likely]
        together = float(close[:, members].all(axis=1).mean())
        if together >= DECISION_PROBABILITY:
            curvature = table["curvature"][likely].mean()
            order = tuple(sorted(likely, key=lambda a: (curvature[a], arms.index(a))))
            return Recommendation(order, together, True, margin, probabilities)
    # The likeliest arm; arms tied with it (the same predictions give the
    # same draws) are named with it, the least curved first, never picked
    # by the order the gates were given in.
    top = max(probabilities.values())
    tied = [a for a in arms if probabilities[a] >= top - 1e-12]
    curvature = table["curvature"][tied].mean()
    order = tuple(sorted(tied, key=lambda a: (curvature[a], arms.index(a))))
    decided = len(order) == 1 and top >= DECISION_PROBABILITY
    return Recommendation(order, top, decided, margin, probabilities)

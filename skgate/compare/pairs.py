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
    # An arm with no curvature on any split (a baseline: no attention to
    # bend) is compared in score only; any other arm needs it everywhere.
    flat_free = scores["curvature"].isna().groupby(scores["arm"]).transform("all")
    curvature = numeric_column(scores[~flat_free.to_numpy()], "curvature").abs()
    values = scores[["arm", "repeat", "fold"]].assign(
        score=numeric_column(scores, "score"),
        curvature=curvature.reindex(scores.index),
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
               alike=False, n_repeats=1, n_rows=None):  # fmt: skip
    """One row of the tests table: ``d``, ``better`` minus ``worse`` over
    the splits, in ``measure`` (its margin: ``margin`` for the score, a
    share of the two arms' mean for curvature). Equal differences on every
    split (:func:`skgate.paired.no_spread`) are decided by a sign test over
    the ``n_repeats`` repeats, equivalence besides by the ``n_rows`` test
    rows of a repeat (:func:`skgate.paired.no_spread_comparison`; "note":
    "no spread", or "alike" where the two arms made the same predictions
    on every test row). Two arms both exactly flat on every split are
    equivalent in curvature by construction ("note": "alike")."""
    if measure == "curvature":
        pair = values[[better, worse]].to_numpy()
        flat = bool(np.all(pair == 0))  # both flat on every split
        margin = max(CURVATURE_MARGIN_SHARE * abs(float(np.mean(pair))), 1e-12)
    note = ""
    if measure == "curvature" and flat:
        note = ALIKE
        result = {"estimate": 0.0, "ci low": 0.0, "ci high": 0.0, "p": 1.0,
                  "p reverse": 1.0, "p equivalence": 0.0, "n": len(d),
                  "probability better": 0.0, "probability equivalent": 1.0,
                  "probability worse": 0.0}  # fmt: skip
    elif paired.no_spread(d):
        note = ALIKE if alike and measure == "score" else NO_SPREAD
        result = paired.no_spread_comparison(
            d, margin, n_repeats=n_repeats,
            n_rows=n_rows if measure == "score" else None,
        )  # fmt: skip
    else:
        if test == "corrected-t":
            result = paired.corrected_t_comparison(
                d, margin, test_fraction=test_fraction
            )
            # No p below what the signs of J differences can show: two
            # splits' normal tails once held at p 0.005 (paired.sign_floor).
            floor = paired.sign_floor(len(d))
            for key in ("p", "p reverse", "p equivalence"):
                result[key] = max(floor, result[key])
        else:
            result = paired.permutation_comparison(d, margin)
        result.update(paired.correlated_bayes(d, margin, test_fraction=test_fraction))
    return {
        "comparison": f"{better} > {worse}",
        # The arms by name: a gate's own name may hold " > ".
        "better": better,
        "worse": worse,
        "measure": measure,
        "mean difference": result.pop("estimate"),
        **result,
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
        "curvature" hold numbers, but an arm whose curvature is NaN on every
        split (a baseline, with no attention) is compared in score only.
        Repeats may have different folds; every arm needs a row for every
        split that any arm has.
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
    >>> rows = [{"arm": arm, "repeat": f // 5, "fold": f % 5, "n_train": 80,
    ...          "n_test": 20, "score": 0.5 + (0.1 + 0.01 * f) * (arm == "a"),
    ...          "curvature": 1.0 + 0.01 * (-1) ** f * (arm == "a")}
    ...         for arm in ("a", "b") for f in range(10)]
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
    curved = set(table["curvature"].columns[table["curvature"].notna().all()])
    pairs = [
        (better, worse, measure)
        for better, worse in combinations(arms, 2)
        for measure in ("score", "curvature")
        if measure == "score" or {better, worse} <= curved
    ]
    differences = [
        (table[measure][better] - table[measure][worse]).to_numpy()
        for better, worse, measure in pairs
    ]
    alike = _alike(scores, arms)
    repeats, n_rows = _repeats_and_rows(scores, table)
    rows = [
        _pair_test(d, table[measure], better, worse, measure, margin, test,
                   test_fraction, alike.get((better, worse), False), repeats, n_rows)
        for d, (better, worse, measure) in zip(differences, pairs, strict=True)
    ]  # fmt: skip
    tests = paired.family_outcomes(pd.DataFrame(rows))
    return _holm_bounds(tests, differences, test, test_fraction, repeats)


def _repeats_and_rows(scores, table):
    """The number of repeats among the splits, and the test rows of the
    smallest repeat (its folds' "n_test" summed, one arm's; None without
    that column or where it is not whole numbers): what the zero-spread
    rule (:func:`skgate.paired.no_spread_comparison`) counts."""
    repeats = table.index.get_level_values("repeat").nunique()
    if "n_test" not in scores.columns:
        return repeats, None
    n_test = pd.to_numeric(scores["n_test"], errors="coerce")
    first = scores["arm"] == scores["arm"].iloc[0]
    whole = n_test[first]
    if whole.isna().any() or (whole < 1).any() or (whole % 1 != 0).any():
        return repeats, None
    per_repeat = whole.groupby(scores.loc[first, "repeat"]).sum()
    return repeats, int(per_repeat.min())


def _holm_bounds(tests, differences, test, test_fraction, n_repeats):
    """Each difference's interval with its bounds at Holm's step levels
    (:func:`skgate.paired.holm_levels`): the lower bound from the family
    of "p", the upper from that of "p reverse". A bound excludes 0 exactly
    when its test holds (is reversed) after Holm, so the verdict's words
    cannot contradict its intervals (both tests' bounds invert the test).
    A difference without spread is bounded by its sign test: d itself
    where the level is at least 2^-repeats, else nothing bounds it."""
    tests["ci low level"] = 1 - paired.holm_levels(tests["p"])
    tests["ci high level"] = 1 - paired.holm_levels(tests["p reverse"])
    floor = 0.5**n_repeats
    for i, d in enumerate(differences):
        levels = {
            "alpha_low": 1 - tests.at[i, "ci low level"],
            "alpha_high": 1 - tests.at[i, "ci high level"],
        }
        if tests.at[i, "note"] in (ALIKE, NO_SPREAD):
            value = tests.at[i, "mean difference"]
            if tests.at[i, "measure"] == "curvature" and tests.at[i, "note"] == ALIKE:
                continue  # both flat on every split: exactly that point
            low = value if floor <= levels["alpha_low"] else -np.inf
            high = value if floor <= levels["alpha_high"] else np.inf
            if tests.at[i, "outcome"] == paired.NO_EFFECT:
                low = high = value  # the equivalence holds at the point d
            tests.loc[i, ["ci low", "ci high"]] = (low, high)
            continue
        if test == "corrected-t":
            bounds = paired.corrected_t_bounds(d, test_fraction=test_fraction, **levels)
            floor = paired.sign_floor(len(d))  # no bound the test cannot reach
            bounds = (
                bounds[0] if levels["alpha_low"] >= floor else -np.inf,
                bounds[1] if levels["alpha_high"] >= floor else np.inf,
            )
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


#: The posterior draws behind the recommendation's probabilities.
N_DRAWS = 20_000


def recommend(scores, margin, test_fraction, random_state):
    """The arm(s) to use: each arm's posterior probability of being the
    best or within ``margin`` of it (joint correlated posterior); one arm
    when it alone reaches DECISION_PROBABILITY, the set when several do and
    jointly reach it (least curved first), else the likeliest arm, with the
    arms tied with it (least curved first; undecided).

    Two arms whose score difference is the same on every split have a
    posterior of zero width, which would be certainty from ties
    (:func:`skgate.paired.no_spread_comparison` decides them): a difference
    on or beyond the margin caps the better arm's probability at 1 - 2^-r
    (r repeats); a tie within the margin caps the probability of any set
    of arms named together that holds both at 1 minus the equivalence p.
    The recommendation says why when a cap leaves it undecided. Arms whose
    probabilities differ by less than the draws' Monte Carlo error, or
    whose mean scores are equal, are tied: named together, never one
    picked by a draw's noise or by the order the gates were given in."""
    arms, table = _paired_table(scores)
    repeats, rows = _repeats_and_rows(scores, table)
    caps, ties = _zero_spread_caps(table["score"], arms, margin, repeats, rows)
    # Drawn with the arms in one order (by name), so that the Monte Carlo
    # probabilities do not depend on the order gates= gave them in.
    named = sorted(arms)
    draws = paired.posterior_means(
        table["score"][named].to_numpy(),
        test_fraction=test_fraction,
        n_samples=N_DRAWS,
        random_state=0 if random_state is None else random_state,
    )[:, [named.index(a) for a in arms]]
    close = draws >= draws.max(axis=1, keepdims=True) - margin
    shares = dict(zip(arms, close.mean(axis=0).tolist(), strict=True))
    probabilities = {a: min(caps[a][0], shares[a]) for a in arms}
    # Among arms named together, a baseline (no attention, NaN curvature)
    # first, then the least curved gate.
    curvature = table["curvature"].mean().fillna(-np.inf)
    baselines = tuple(a for a in arms if curvature[a] == -np.inf)
    likely = [a for a in arms if probabilities[a] >= DECISION_PROBABILITY]
    if len(likely) > 1:
        members = [arms.index(a) for a in likely]
        cap, _ = _set_cap(likely, ties)
        together = min(cap, float(close[:, members].all(axis=1).mean()))
        if together >= DECISION_PROBABILITY:
            order = tuple(sorted(likely, key=lambda a: (curvature[a], arms.index(a))))
            return Recommendation(order, together, True, margin, probabilities,
                                  baselines=baselines)  # fmt: skip
    tied = _tied_with_top(table["score"], arms, probabilities)
    order = tuple(sorted(tied, key=lambda a: (curvature[a], arms.index(a))))
    top = max(probabilities[a] for a in tied)
    cap, why = min([caps[a] for a in order] + [_set_cap(order, ties)])
    top = min(top, cap)
    decided = len(order) == 1 and top >= DECISION_PROBABILITY
    binds = not decided and cap < DECISION_PROBABILITY
    return Recommendation(order, top, decided, margin, probabilities, why * binds,
                          baselines)  # fmt: skip


def _set_cap(arms, ties):
    """The cap of a set of arms named together: 1 minus the largest
    equivalence p of the ties among them, and why; (1, "") without one."""
    inside = [(cap, why) for a, b, cap, why in ties if a in arms and b in arms]
    return min(inside, default=(1.0, ""))


def _tied_with_top(scores, arms, probabilities):
    """The likeliest arm and the arms tied with it: their probabilities
    within three Monte Carlo standard errors of a difference of two shares
    of N_DRAWS draws, or their mean scores equal up to rounding."""
    top_arm = max(arms, key=lambda a: (probabilities[a], -arms.index(a)))
    top = probabilities[top_arm]
    error = 3 * np.sqrt(2 * max(top * (1 - top), 0.25 / N_DRAWS) / N_DRAWS)
    means = scores[arms].mean()
    same_mean = np.isclose(means, means[top_arm], rtol=1e-12, atol=1e-15)
    return [
        a for i, a in enumerate(arms)
        if probabilities[a] >= top - error - 1e-12 or same_mean[i]
    ]  # fmt: skip


def _zero_spread_caps(scores, arms, margin, repeats, rows):
    """The zero-spread rule's caps: for each arm, 1 minus the p of the
    largest no-spread difference it wins on or beyond the margin, and why
    ((1, "") for an arm that wins none); and the ties (a, b, 1 minus the
    equivalence p, why) of pairs whose difference is the same within it."""
    caps, ties = dict.fromkeys(arms, (1.0, "")), []
    for a, b in combinations(sorted(arms), 2):  # not in the order gates= gave
        d = (scores[a] - scores[b]).to_numpy()
        if not paired.no_spread(d):
            continue
        test = paired.no_spread_comparison(d, margin, n_repeats=repeats, n_rows=rows)
        value = test["estimate"]
        tie = abs(value) < margin
        p = test["p equivalence"] if tie else min(test["p"], test["p reverse"])
        where = f" ({rows} test rows a repeat)" if rows else ""
        why = (
            f"{a} minus {b} is {value:+.3g} on every split{where}: over "
            f"{repeats} repeat{'s' if repeats > 1 else ''} that is p = {p:.2g} "
            "at best (the zero-spread rule)"
        )
        if tie:
            ties.append((a, b, 1.0 - p, why))
        else:
            winner = a if value > 0 else b
            caps[winner] = min(caps[winner], (1.0 - p, why))
    return caps, ties

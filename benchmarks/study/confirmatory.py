"""The tests of the confirmatory parts, written once for both.

A test is a dict (:func:`make_test`, :func:`comparison`, :func:`trend`):
what it measures, on which sweep and task, and how it compares. Both
confirmatory parts (:mod:`study.primary`, copied tokens, and
:mod:`study.sequences`, softmax attention over sequences) write their
families so; here is what they share: the fits a test reads
(:func:`fits_of`), its statistics (:func:`statistics`: sign-flip p-values,
bootstrap intervals, the smallest effect of interest), the columns of a
family's table (:data:`TEST_COLUMNS`), a claim's verdict from its tests
(:func:`claim_verdict`) and the power of a test and the seeds it needs
(:func:`power`, :func:`seeds_needed`). The theorem's own setting
(:mod:`study.theorem`) tests its conditions with :func:`statistics` too.
"""

import numpy as np
import pandas as pd

from . import stats
from .facts import CEILING_MARGIN, POWER, STALL_SHARE, STUDY_GATES
from .facts import COPIED_MAX_SEEDS as MAX_SEEDS
from .facts import COPIED_MIN_SEEDS as MIN_SEEDS
from .facts import COPIED_SESOI as SESOI
from .facts import CURVATURE_MARGIN_SHARE as CURVATURE_SESOI_SHARE
from .stats import HOLDS, NO_EFFECT, REVERSED

__all__ = [
    "AT_BUDGET",
    "AT_CEILING",
    "budget_words",
    "ceiling_note",
    "claim_verdicts",
    "equivalence_ceiling",
    "TEST_COLUMNS",
    "claim_verdict",
    "comparison",
    "fits_of",
    "make_test",
    "paired_differences",
    "power",
    "seeds_needed",
    "statistics",
    "trend",
]


def make_test(claim, quantity, measure, sweep, task, **how):
    """One test: what it measures, on which fits, and ``how`` it compares
    (its kind, comparison and their keys)."""
    where = {"measure": measure, "sweep": sweep, "task": task}
    return {"claim": claim, "quantity": quantity, **where, **how}


def comparison(claim, quantity, measure, sweep, task, better, worse):
    """A paired test: ``better`` > ``worse`` (gates), paired by seed.

    Examples
    --------
    >>> test = comparison("C1", "accuracy", "accuracy", "arms", "curved",
    ...                   "multiplicative", "silu")
    >>> test["kind"], test["comparison"]
    ('superiority', 'gated > SiLU')
    """
    labels = STUDY_GATES.arm_labels
    return make_test(
        claim, quantity, measure, sweep, task,
        kind="superiority",
        better=better,
        worse=worse,
        comparison=f"{labels[better]} > {labels[worse]}",
    )  # fmt: skip


def trend(claim, quantity, measure, sweep, task, axis):
    """A trend test: the measure rises with ``axis``, seed by seed.

    Examples
    --------
    >>> trend("C5", "curvature", "turning", "depth", "curved", "depth")["comparison"]
    'rises with depth'
    """
    return make_test(
        claim, quantity, measure, sweep, task,
        kind="trend",
        axis=axis,
        comparison=f"rises with {axis}",
    )  # fmt: skip


def fits_of(frame, test, condition):
    """The fits a test reads: the linear task's, or the curved condition's."""
    if test["task"] == "linear":
        return frame[frame["task"] == "linear"]
    return frame[
        (frame["task"] == "curved")
        & (frame["shape"] == condition["shape"])
        & np.isclose(frame["noise"], condition["noise"])
    ]


def paired_differences(rows, test):
    """Differences better - worse of the test's measure, paired by seed:
    ``better`` and ``worse`` are values of the test's "column" (default: the
    gate; the second confirmatory part also compares two alphas)."""
    column = test.get("column", "gate")
    table = rows.pivot_table(index="seed", columns=column, values=test["measure"])
    return (table[test["better"]] - table[test["worse"]]).dropna().to_numpy()


def _margin(test, rows):
    """The smallest effect of interest of ``test`` on ``rows``: fixed for
    accuracy, shares and trends; :data:`CURVATURE_SESOI_SHARE` (a quarter)
    of the two arms' mean for curvature."""
    if test["kind"] == "trend":
        return SESOI["rho"]
    if test["measure"] in SESOI:
        return SESOI[test["measure"]]
    column = test.get("column", "gate")
    arms = rows[rows[column].isin([test["better"], test["worse"]])]
    return CURVATURE_SESOI_SHARE * float(arms[test["measure"]].mean())


def statistics(test, rows):
    """One test's estimate, interval, one-sided and equivalence p-values,
    the standard deviation of what it averages, and its margin."""
    margin = _margin(test, rows)
    if test["kind"] == "trend":
        values = stats.seed_rhos(rows, test["axis"], test["measure"])
        method = "within-seed Spearman rho; sign-flip over seeds; bootstrap CI"
    else:
        values = paired_differences(rows, test)
        method = "paired by seed; sign-flip; bootstrap CI"
    result = stats.permutation_comparison(values, margin)
    result["p equivalence"] = (
        result["p equivalence"] if np.isfinite(margin) and margin > 0 else 1.0
    )
    return {
        **result,
        "sd": float(np.std(values, ddof=1)),
        "margin": margin,
        "method": method,
    }


TEST_COLUMNS = [
    "claim",
    "quantity",
    "measure",
    "condition",
    "comparison",
    "estimate",
    "ci low",
    "ci high",
    "p",
    "p holm",
    "p reverse",
    "p reverse holm",
    "p equivalence",
    "p equivalence holm",
    "margin",
    "sd",
    "n",
    "method",
    "kind",
    "outcome",
]


def ceiling_note(arms, task, worse):
    """Where every arm's mean accuracy on ``task`` is within
    :data:`~study.facts.CEILING_MARGIN` of its Bayes accuracy (the
    study's ceiling rule), the words an equivalence test there needs: the
    ceiling, and how small a gain over the ``worse`` arm could have been; ""
    elsewhere. ``arms``: a part's arms table (task, arm, accuracy, Bayes
    accuracy); ``worse``: the arm's label (as the table names it). No
    classifier's expected accuracy exceeds the Bayes accuracy (a test set's
    can, by sampling noise), so the gain is bounded in expectation."""
    rows = arms[arms["task"] == task]
    bayes = rows["Bayes accuracy"].iloc[0] if len(rows) else np.nan
    if not np.isfinite(bayes) or rows["accuracy"].min() < bayes - CEILING_MARGIN:
        return ""
    below = rows.set_index("arm").loc[worse, "accuracy"]
    if below >= bayes:  # test rows can put an arm above it by sampling noise
        return (
            f" At the ceiling (Bayes {bayes:.3f}, {worse} {below:.3f}): no "
            "expected gain was possible; only a loss could fail it."
        )
    return (
        f" At the ceiling (Bayes {bayes:.3f}, {worse} {below:.3f}): an expected "
        f"gain above {bayes - below:.3f} was impossible; only a loss could fail it."
    )


#: Under this share of an arm's fits peak late: each protocol's own rule.
LATE_LIMIT = 0.05
#: How accuracies are named where the stall rule does not pass.
AT_BUDGET = "at the protocol's budget"


def budget_words(convergence):
    """How a part's accuracies on its curved tasks may be named: "at
    convergence" where every arm of ``convergence`` (a part's convergence
    table, its curved tasks' rows) had under :data:`LATE_LIMIT` of its fits
    peak late and under :data:`~study.facts.STALL_SHARE` stall (the
    replication plan's rule), else :data:`AT_BUDGET`.

    >>> import pandas as pd
    >>> table = pd.DataFrame({"task": ["rings"], "share after epoch 250": [0.0],
    ...                       "share by epoch 15": [0.43]})
    >>> budget_words(table).split(" (")[0]
    "at the protocol's budget"
    >>> budget_words(table).endswith("up to 43% stalled)")
    True
    """
    late = [c for c in convergence.columns if c.startswith("share") and "after" in c]
    early = [c for c in convergence.columns if c.startswith("share") and " by " in c]
    curved = convergence[convergence["task"] != "linear task"]
    if (
        len(late) == 1
        and len(early) == 1
        and len(curved)
        and (curved[late[0]] < LATE_LIMIT).all()
        and (curved[early[0]] < STALL_SHARE).all()
    ):
        return "at convergence"
    if len(late) != 1 or len(early) != 1 or not len(curved):
        return AT_BUDGET
    return (
        f"{AT_BUDGET} (up to {curved[late[0]].max():.0%} of an arm's fits "
        f"peaked late, up to {curved[early[0]].max():.0%} stalled)"
    )


#: Why an equivalence test at its task's ceiling holds by construction.
AT_CEILING = "at the ceiling only a loss could fail it"


def equivalence_ceiling(row, arms):
    """:func:`ceiling_note` of an equivalence test's row (``a = b``: its
    condition and its second arm): "" where the task is not at its ceiling
    or ``arms`` is None."""
    if arms is None or row["kind"] != "equivalence":
        return ""
    return ceiling_note(arms, row["condition"], row["comparison"].split(" = ")[1])


def trend_peak(test, rows):
    """Where a trend test's mean measure (over the seeds, at each value of
    its axis) peaks, when that is inside its grid rather than at the grid's
    largest value: a mean that peaks and falls does not "rise", whatever the
    rank test says. None for a mean that peaks at the end, or a test of
    another kind."""
    if test["kind"] != "trend":
        return None
    means = rows.groupby(test["axis"])[test["measure"]].mean()
    peak = means.idxmax()
    return None if peak == means.index.max() else float(peak)


def claim_verdict(results, comparisons, fixed=None, peaks=None, untested=None):
    """A claim's verdict from its tests' results (outcomes) and their names
    (``comparisons``); reversals are named first. ``fixed``: for each test,
    whether no data could fail it (it holds by construction; a str says
    why, e.g. a ceiling that leaves only a loss to fail it); ``untested``:
    for each test, None, or why it decides nothing though data could have
    failed it (it rests on an arm that did not learn; it repeats another
    test); ``peaks``: for each trend test whose mean peaks inside its grid,
    "peaks at alpha 0.5" (else None).

    Only the tests that count decide: those that could fail and are not
    ``untested``. Without one, a claim is **not tested** (a test is
    untested, or a fixed test did not even hold) or **consistent by
    construction** (every test fixed and holding). With them, it is
    **contradicted** when one is reversed; **reproduced** when each holds
    and rises where it says "rises", **partly reproduced** when such a
    trend peaks inside the grid; **not reproduced** when one shows no
    effect, else **inconclusive**. The tally counts every test.

    Examples
    --------
    >>> claim_verdict(["holds", "reversed"], ["accuracy", "curvature"])
    'contradicted (reversed: curvature; 1 of 2 hold)'
    >>> claim_verdict(["holds"], ["positive curvature"], fixed=[True])
    'consistent by construction (its 1 test could not fail)'
    >>> claim_verdict(["holds"], ["accuracy"], untested=["gated did not learn"])
    'not tested (gated did not learn; 1 of 1 tests hold)'
    >>> claim_verdict(["reversed"], ["accuracy"], untested=["gated did not learn"])
    'not tested (gated did not learn; 0 of 1 tests hold)'
    """
    n = len(results)
    fixed = [False] * n if fixed is None else list(fixed)
    peaks = [None] * n if peaks is None else list(peaks)
    untested = [None] * n if untested is None else list(untested)
    held = sum(r == HOLDS for r in results)
    counting = [i for i in range(n) if not fixed[i] and untested[i] is None]
    # A test that could not fail and is reversed contradicts the claim (its
    # construction failed); one that read arms that did not learn does not.
    reversed_ = [
        comparisons[i]
        for i in range(n)
        if results[i] == REVERSED and untested[i] is None
    ]
    aside = _untested_aside(untested)
    if not counting and not reversed_:
        return _none_counts(n, held, fixed, untested)
    named = [(comparisons[i], results[i]) for i in counting]
    absent = [c for c, r in named if r == NO_EFFECT]
    if reversed_:
        return (
            f"contradicted (reversed: {'; '.join(reversed_)}; {held} of {n} hold"
            f"{aside})"
        )
    if all(r == HOLDS for _, r in named):
        return _all_hold(n, held, fixed, [peaks[i] for i in counting], untested)
    if absent:
        return (
            f"not reproduced (no effect: {'; '.join(absent)}; {held} of {n} hold"
            f"{aside})"
        )
    return (
        f"inconclusive ({held} of {n} hold, the rest neither shown nor ruled out"
        f"{aside})"
    )


def _none_counts(n, held, fixed, untested):
    """The verdict of a claim none of whose tests decides: "not tested"
    where one is untested (or a fixed one did not hold), else "consistent
    by construction"."""
    n_fixed = sum(bool(f) for f in fixed)
    by_construction = f"; {n_fixed} by construction" if n_fixed else ""
    reasons = list(dict.fromkeys(u for u in untested if u is not None))
    if reasons:
        return (
            f"not tested ({'; '.join(reasons)}; {held} of {n} tests hold"
            f"{by_construction})"
        )
    why = list(dict.fromkeys(f for f in fixed if isinstance(f, str)))
    said = f": {'; '.join(why)}" if why else ""
    if held < n:
        return f"not tested (its tests could not fail{said}; yet {held} of {n} hold)"
    could_not = "its 1 test" if n == 1 else f"none of its {n} tests"
    return (
        f"consistent by construction ({could_not} could {'not ' * (n == 1)}fail{said})"
    )


def _untested_aside(untested):
    """The words for tests that decide nothing: "; 2 rest on ..." or ""."""
    reasons = [u for u in untested if u is not None]
    if not reasons:
        return ""
    verb = "decides" if len(reasons) == 1 else "decide"
    return f"; {len(reasons)} {verb} nothing ({'; '.join(dict.fromkeys(reasons))})"


def claim_verdicts(
    results, statements, axes, peaks, fixed=None, condition=False, untested=None
):
    """One verdict per claim of a primary family's ``results`` (claim,
    statement, verdict) by :func:`claim_verdict`'s rule. Per row of
    ``results``: ``axes`` (a trend's axis, else ""), ``peaks`` (where its mean
    peaks inside its grid, else None: :func:`trend_peak`), ``fixed``
    (whether no data could fail it, or why; default none) and ``untested``
    (None, or why it decides nothing; default none). ``statements``: each
    claim's words; ``condition``: name each test with its condition."""
    results = results.reset_index(drop=True)
    fixed = [False] * len(results) if fixed is None else list(fixed)
    untested = [None] * len(results) if untested is None else list(untested)
    rows = []
    for claim, group in results.groupby("claim", sort=True):
        labels, peaked = [], []
        for i, row in group.iterrows():
            what = (
                f"{row['quantity']} {row['comparison']}"
                if peaks[i] is None
                else f"{row['quantity']} peaks at {axes[i]} {peaks[i]:g}"
            )
            label = what + (f" ({row['condition']})" if condition else "")
            labels.append(label)
            peaked.append(None if peaks[i] is None else label)
        verdict = claim_verdict(
            list(group["outcome"]),
            labels,
            fixed=[fixed[i] for i in group.index],
            peaks=peaked,
            untested=[untested[i] for i in group.index],
        )
        rows.append(
            {"claim": claim, "statement": statements[claim], "verdict": verdict}
        )
    return pd.DataFrame(rows)


def _all_hold(n, held, fixed, peaks, untested):
    """The verdict of a claim whose tests that count all hold (``peaks``:
    theirs, where a trend's mean peaks inside the grid)."""
    n_fixed = sum(bool(f) for f in fixed)
    aside = f"; {n_fixed} by construction" if n_fixed else ""
    aside += _untested_aside(untested)
    peaked = [p for p in peaks if p is not None]
    if peaked:
        return (
            f"partly reproduced ({'; '.join(peaked)}; {held} of {n} tests hold{aside})"
        )
    if len(peaks) < n:
        k = len(peaks)
        return f"reproduced ({k} of {k} tests that could fail hold{aside})"
    return f"reproduced ({n} of {n} tests hold)"


def power(kind, effect, sd, n, alpha):
    """The power of a test of ``kind`` ("equivalence", or one-sided) to see
    ``effect`` with ``n`` seeds whose values spread by ``sd``, at level
    ``alpha`` (1 when they do not spread).

    Examples
    --------
    >>> power("superiority", 0.02, 0.0, 10, 0.05)
    1.0
    """
    if not (np.isfinite(sd) and sd > 0):
        return 1.0  # no spread between seeds: any true effect is seen
    if kind == "equivalence":
        return stats.tost_power(effect, sd, n, alpha)
    return stats.paired_power(effect, sd, n, alpha)


def seeds_needed(kind, effect, sd, alpha, limit=10 * MAX_SEEDS):
    """Fewest seeds for :data:`POWER` to see ``effect`` (None beyond
    ``limit``; :data:`MIN_SEEDS` when the values do not spread).

    Examples
    --------
    >>> seeds_needed("superiority", 0.02, 0.0, 0.05)
    10
    """
    if not (np.isfinite(sd) and sd > 0):
        return MIN_SEEDS
    if kind != "equivalence":
        return stats.seeds_for_power(effect, sd, alpha, POWER, max_seeds=limit)
    for n in range(2, limit + 1):
        if stats.tost_power(effect, sd, n, alpha) >= POWER:
            return n
    return None

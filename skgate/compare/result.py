"""compare_gates' result: the recommendation, the verdict's sentences, and
:class:`GateComparison` with its table, HTML and plot.
"""

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import paired
from .._evaluation import (
    DECISION_PROBABILITY,
    Verdict,
    library_versions,
    probability_text,
)


@dataclass(frozen=True)
class Recommendation:
    """Which arm to use, from the joint posterior of the arms' mean scores.

    Attributes
    ----------
    arms : tuple of str
        The recommended arm, or the arms equivalent within the margin, or
        (undecided) the likeliest arms, tied: the least curved first.
    probability : float
        The posterior probability that each of ``arms`` is the best or
        within the margin of the best.
    decided : bool
        Whether ``probability`` reaches :data:`DECISION_PROBABILITY`.
    margin : float
        The score margin.
    probabilities : dict
        Every arm's probability of being the best or within the margin of it.
    baselines : tuple of str
        The arms that are baselines (no attention, so no curvature): named
        first among arms named together, as the simpler model.
    why_undecided : str
        Why the zero-spread rule keeps the recommendation undecided, or "":
        two arms' score difference is the same on every split, and too few
        repeats (or test rows, for a tie) stand behind it
        (:func:`skgate.paired.no_spread_comparison`); every probability is
        capped at 1 minus that rule's p.
    """

    arms: tuple
    probability: float
    decided: bool
    margin: float
    probabilities: dict = field(repr=False)
    why_undecided: str = ""
    baselines: tuple = ()

    def __str__(self):
        text = self._words()
        return f"{text}; {self.why_undecided}" if self.why_undecided else text

    def _words(self):
        p, m = probability_text(self.probability), f"{self.margin:g}"
        first = arm_words(self.arms[0])
        baseline = self.arms[0] in self.baselines
        if len(self.arms) > 1 and not self.decided:
            others = " and ".join(map(arm_words, self.arms[1:]))
            jointly = self.probability >= DECISION_PROBABILITY
            below = "jointly below" if jointly else "below"
            least = "less" if len(self.arms) == 2 else "least"
            why = "a baseline, the simpler model" if baseline else f"the {least} curved"
            return (
                f"use {first}, tied with {others} as the likeliest to be the "
                f"best or within {m} of it, and {why} (probability "
                f"{p} each, {below} {DECISION_PROBABILITY:g}: the data do not "
                f"settle it)"
            )
        if len(self.arms) > 1:
            why = (
                f"{first} is a baseline, the simpler model"
                if baseline
                else f"the least curved is {first}"
            )
            return (
                f"any of {', '.join(map(arm_words, self.arms))}: equivalent within "
                f"{m} (probability {p} that each is the best or within {m} of it); "
                f"{why}"
            )
        if self.decided:
            return (
                f"use {first} (probability {p} that it is the best or within {m} of it)"
            )
        return (
            f"use {first}, the likeliest to be the best or within {m} of it "
            f"(probability {p}, below {DECISION_PROBABILITY:g}: the data do not "
            "settle it)"
        )


@dataclass(eq=False)
class GateComparison(Verdict):
    """What :func:`compare_gates` found.

    ``str(result)`` is the verdict and the tests as text; in a notebook the
    result shows the verdict and the tests table; :meth:`summary` gives the
    table as a DataFrame and :meth:`plot` draws it.

    Attributes
    ----------
    scores_ : pandas.DataFrame
        One row per arm (gate, alpha, or baseline: "baseline" says which,
        and a baseline's "gate", "alpha" and "curvature" are empty) x repeat
        x fold: "n_train", "n_test"
        (the split's rows), "model_seed" (the split's models' seed, the same
        for every arm; drawn from ``random_state``), "score" (held-out),
        "curvature" (the mean
        curvature of the representation on the held-out rows, measured as
        ``settings_["curvature"]`` names), "fit_time" (seconds; the arm's
        share of its batch), "curvature measure" (what "curvature" is).
    tests_ : pandas.DataFrame
        One row per comparison ("multiplicative > none"; its arms in
        "better" and "worse") and measure ("score", "curvature": its
        magnitude, ``|curvature|``; "measured as" names them): the paired (by
        split) mean difference, its interval (the lower bound at the one-sided
        level "ci low level", the upper at "ci high level": Holm's step
        levels, so that the interval excludes 0 exactly where a difference
        holds or is reversed), one-sided p-values both ways
        and an equivalence p-value within the margin, each Holm-adjusted
        over the whole table, the Bayesian correlated t-test's probabilities
        (better, equivalent within the margin, worse), and the outcome
        (holds, reversed, no effect, inconclusive).
    verdict_ : str
        Every pair of arms in score and in curvature, then the
        recommendation.
    recommendation_ : Recommendation
        The arm (or arms) to use, with its probability.
    task_ : str
        "classification" or "regression".
    settings_ : dict
        The design, the test, the margins, the measures, the baselines
        ("baselines", and "baselines note": why the default left one out)
        and the package versions, as a report should record them.
    against_baselines_ : str
        The verdict's first sentence: whether any gate beats the best
        baseline (the baseline of the highest mean score), with each gate's
        test against it; or why no baseline was compared.
    """

    scores_: pd.DataFrame
    tests_: pd.DataFrame
    verdict_: str
    recommendation_: Recommendation
    task_: str
    settings_: dict = field(default_factory=dict)
    against_baselines_: str = ""

    _SHOWN = (
        "comparison",
        "measured as",
        "mean difference",
        "ci low",
        "ci high",
        "p holm",
        "probability better",
        "probability equivalent",
        "probability worse",
        "outcome",
    )

    def __repr__(self):
        arms = list(dict.fromkeys(self.scores_["arm"]))
        return (
            f"GateComparison(task_={self.task_!r}, arms={arms}, "
            f"splits={self.settings_.get('splits')}, "
            f"recommendation_={str(self.recommendation_)!r})"
        )

    def plot(self, ax=None):
        """Draw the scores, curvatures and differences with their intervals
        (:class:`skgate.inspection.GateComparisonDisplay`)."""
        from ..inspection import GateComparisonDisplay

        return GateComparisonDisplay.from_result(self, ax=ax)


def arm_words(arm):
    """An arm's name in a recommendation: the gate "none" as ungated
    attention ("use none" reads as "use nothing")."""
    return "ungated attention (gate='none')" if arm == "none" else arm


def _shown_difference(mean, low, high):
    """``mean``, or 0 where it is float rounding of 0: within 1e-9 of the
    interval's larger finite bound (a mean of exactly cancelling split
    differences once read "+9.25e-18")."""
    bounds = [abs(b) for b in (low, high) if np.isfinite(b)]
    return 0.0 if bounds and abs(mean) <= 1e-9 * max(bounds) else mean


def _interval(row, sign=1):
    low, high = sorted((sign * row["ci low"], sign * row["ci high"]))
    mean = _shown_difference(sign * row["mean difference"], low, high)
    text = f"{mean:+.3g} [{low:.3g}, {high:.3g}]"
    if row.get("note", "") == "uninformative":
        text += ": uninformative, the interval reached past the score's range"
    return text


def _phrase(row, words):
    """One comparison in words: ``words`` = (beats, equivalent) verbs."""
    better, worse = row["better"], row["worse"]
    beats, alike = words
    outcome = row["outcome"]
    note = row.get("note", "")
    if note == "alike" and row["measure"] == "curvature":
        return f"{better} and {worse} {alike} (both flat on every split)"
    if note in ("alike", "no spread"):
        return _zero_spread_phrase(row, words)
    if outcome == paired.HOLDS:
        small = row["ci high"] < row["margin"]
        return f"{better} {beats} {worse} by {_interval(row)}" + (
            ", less than the margin" if small else ""
        )
    if outcome == paired.REVERSED:
        small = -row["ci low"] < row["margin"]
        return f"{worse} {beats} {better} by {_interval(row, -1)}" + (
            ", less than the margin" if small else ""
        )
    if outcome == paired.NO_EFFECT:
        return (
            f"{better} and {worse} {alike} within +-{row['margin']:.3g} "
            f"({_interval(row)})"
        )
    return f"{better} vs {worse} inconclusive ({_interval(row)})"


def _zero_spread_phrase(row, words):
    """A pair whose difference is the same on every split, in words: what
    the zero-spread rule (a sign test over the repeats; equivalence also
    needs enough test rows) made of it."""
    better, worse = row["better"], row["worse"]
    beats, alike = words
    d = _shown_difference(row["mean difference"], 1.0, 1.0)
    same = (
        "the same predictions on every test row"
        if row["note"] == "alike"
        else f"{d:+.3g} on every split"
    )
    rule = "a sign test over the repeats"
    if row["outcome"] == paired.HOLDS:
        return f"{better} {beats} {worse} by {d:+.3g} on every split ({rule})"
    if row["outcome"] == paired.REVERSED:
        return f"{worse} {beats} {better} by {-d:+.3g} on every split ({rule})"
    if row["outcome"] == paired.NO_EFFECT:
        return (
            f"{better} and {worse} {alike} within +-{row['margin']:.3g} ({same}, "
            "over enough repeats and test rows)"
        )
    if row["measure"] == "curvature":
        why = "too few repeats to decide on" if d else "a tie is no equivalence"
    else:
        why = "too few repeats, or test rows for a tie, to decide on"
    return f"{better} vs {worse} inconclusive ({same}: {why}; see the zero-spread rule)"


def baselines_verdict(tests, scores, score_name, note=""):
    """Whether any gate beats the best baseline (the highest mean score;
    the first given of equals), with each gate's test against it; or why no
    baseline was compared (``note``), or "" when none was asked for."""
    kinds = scores.groupby("arm", sort=False)["baseline"].first()
    bases = [arm for arm, baseline in kinds.items() if baseline]
    if not bases:
        return f"No baseline was compared: {note[len('no series baseline: '):]}." if (
            note
        ) else ""  # fmt: skip
    means = scores.groupby("arm", sort=False)["score"].mean()
    top = max(means[arm] for arm in bases)
    # Baselines of equal means (up to rounding) are named together.
    best = [arm for arm in bases if np.isclose(means[arm], top, rtol=1e-12, atol=0)]
    gates = [arm for arm, baseline in kinds.items() if not baseline]
    rows = tests[(tests["measure"] == "score") & tests["worse"].isin(best)
                 & tests["better"].isin(gates)]  # fmt: skip
    held = rows[rows["outcome"] == paired.HOLDS].groupby("better").size()
    winners = [gate for gate in gates if held.get(gate, 0) == len(best)]
    names = " and ".join(best)
    mean = f"{'tied at ' if len(best) > 1 else ''}mean {score_name} {top:.3g}"
    what = "the best baselines" if len(best) > 1 else "the best baseline"
    if winners:
        verb = "beats" if len(winners) == 1 else "beat"
        head = f"{' and '.join(winners)} {verb} {what}, {names} ({mean})"
    else:
        head = f"No gate beats {what}, {names} ({mean})"
    details = "; ".join(
        _phrase(row, ("beats", "are equivalent")) for _, row in rows.iterrows()
    )
    return f"{head}: {details}."


def comparison_verdict(tests, recommendation, score_name, curvature_name,
                       against=""):  # fmt: skip
    """``against`` (whether a gate beats the best baseline), every pair of
    arms in score, then in curvature, then what to use."""
    by_measure = {m: tests[tests["measure"] == m] for m in ("score", "curvature")}
    score = "; ".join(
        _phrase(r, ("beats", "are equivalent"))
        for _, r in by_measure["score"].iterrows()
    )
    curvature = "; ".join(
        _phrase(r, ("is more curved than", "are as curved"))
        for _, r in by_measure["curvature"].iterrows()
    )
    test = tests["test"].iloc[0]
    caveat = ""
    if test == "sign-flip":
        caveat = (
            " The sign-flip test treats the splits as independent replicates; "
            "cross-validation splits share training rows, so its p-values are "
            "optimistic here: where the Bayesian correlated t-test's "
            "probabilities beside it disagree, trust them."
        )
    first = f"{against} " if against else ""
    return (
        f"{first}Held-out {score_name}: {score}. Curvature ({curvature_name}): "
        f"{curvature}. ({test} tests, Holm over {len(tests)}; "
        "each interval's bounds at Holm's step levels, so an interval excludes "
        f"0 where a difference is shown.){caveat} "
        f"Recommendation: {recommendation}."
    )


def tests_settings(test, margin, fraction, score_name, curvature_name,
                   curvature_params):  # fmt: skip
    """The tests' part of a comparison's ``settings_``."""
    return {
        "test": test,
        "margin": margin,
        "test fraction": fraction,
        "score": score_name,
        "curvature": curvature_name,
        "curvature_params": curvature_params,
        "versions": library_versions(),
    }

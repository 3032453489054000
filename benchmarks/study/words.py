"""Numbers and test outcomes in the words every report uses.

Every sentence of the reports that summarises numbers builds its pieces
here, so that an outcome, an interval, a count of conditions or a verdict
reads the same in every section: :func:`number`, :func:`interval`,
:func:`result` (a test's estimate, interval and outcome), :func:`tally`
("k of N" with the other outcomes), :func:`mean_sd`, :func:`values`,
:func:`labelled`, :func:`arm_values`, :func:`verdict_word`; and the
Markdown tables: :func:`table` (a frame), :func:`pipe_table` (rows),
:func:`verdict_table`, :func:`power_wide`.
"""

import numpy as np

from .facts import STUDY_GATES
from .stats import HOLDS, INCONCLUSIVE, NO_EFFECT, REVERSED

__all__ = [
    "POST_HOC",
    "RESULT_WORDS",
    "against_claims",
    "arm_values",
    "interval",
    "labelled",
    "mean_sd",
    "number",
    "pipe_table",
    "power_wide",
    "result",
    "table",
    "tally",
    "values",
    "verdict_table",
    "verdict_word",
]

#: A test's outcome as the reports write it.
RESULT_WORDS = {
    HOLDS: "holds",
    REVERSED: "reversed",
    NO_EFFECT: "no effect",
    INCONCLUSIVE: "inconclusive",
}


def number(value):
    """Three significant digits; rounding noise of a difference of equal
    means prints as 0.

    >>> number(0.012345), number(-3e-15)
    ('0.0123', '0')
    """
    return "0" if abs(value) < 1e-10 else f"{value:.3g}"


#: How an analysis that the run's protocol did not state is labelled,
#: wherever it is shown (docs/replication.md).
POST_HOC = "added after the run"


def interval(row, estimate="estimate"):
    """An estimate (``row[estimate]``) and its interval (``row["ci low"]``,
    ``row["ci high"]``): "0.1 [0.05, 0.15]".

    >>> interval({"estimate": 0.1, "ci low": 0.05, "ci high": 0.15})
    '0.1 [0.05, 0.15]'
    >>> interval({"slope": 2.0, "ci low": 1.0, "ci high": 3.0}, "slope")
    '2 [1, 3]'
    """
    return (
        f"{number(row[estimate])} [{number(row['ci low'])}, {number(row['ci high'])}]"
    )


def result(row):
    """A test's estimate, interval and outcome: "0.1 [0.05, 0.15] (holds)".

    >>> result({"estimate": 0.1, "ci low": 0.05, "ci high": 0.15, "outcome": HOLDS})
    '0.1 [0.05, 0.15] (holds)'
    """
    return f"{interval(row)} ({RESULT_WORDS[row['outcome']]})"


def against_claims(secondary):
    """The secondary results that run against their claim, in words by
    claim: a test reversed, or one that says "better" or "rises" whose
    interval lies wholly below 0 (whatever Holm's level made of it).

    >>> import pandas as pd
    >>> rows = pd.DataFrame([{"analysis": "depth", "claim": "C5",
    ...     "quantity": "curvature", "condition": "rings",
    ...     "comparison": "rises with depth", "kind": "trend", "estimate": -0.5,
    ...     "ci low": -0.7, "ci high": -0.3, "outcome": INCONCLUSIVE}])
    >>> for part in against_claims(rows)["C5"][0].split(" (rings) "):
    ...     print(part)
    depth: curvature rises with depth
    -0.5 [-0.7, -0.3] (inconclusive after Holm; its interval lies below 0)
    """
    found = {}
    if secondary is None:
        return found
    for _, row in secondary.iterrows():
        below = row["kind"] != "equivalence" and row["ci high"] < 0
        if not (row["outcome"] == REVERSED or below):
            continue
        said = RESULT_WORDS[row["outcome"]]
        if row["outcome"] != REVERSED:
            said += " after Holm; its interval lies below 0"
        found.setdefault(row["claim"], []).append(
            f"{row['analysis']}: {row['quantity']} {row['comparison']} "
            f"({row['condition']}) {interval(row)} ({said})"
        )
    return found


def tally(held, total, others=()):
    """ "k of N": how many of ``total`` hold, with the count of every other
    outcome present (``others``: ``[(word, count), ...]``) in parentheses.

    >>> tally(5, 8, [("reversed", 1), ("no effect", 2)])
    '5 of 8 (reversed in 1, no effect in 2)'
    >>> tally(3, 3)
    '3 of 3'
    """
    rest = [f"{name} in {k}" for name, k in others]
    return f"{held} of {total}" + (f" ({', '.join(rest)})" if rest else "")


def mean_sd(mean, std):
    """A mean and its standard deviation, "mean ± sd" (the mean alone where
    the sd is not finite: one seed).

    >>> mean_sd(0.8123, 0.0456), mean_sd(0.8123, float("nan"))
    ('0.812 ± 0.046', '0.812')
    """
    return f"{mean:.3g} ± {std:.2g}" if np.isfinite(std) else f"{mean:.3g}"


def values(numbers):
    """Numbers in a list, shortest form: "0, 0.25, 1".

    >>> values([0.0, 0.25, 1.0])
    '0, 0.25, 1'
    """
    return ", ".join(f"{v:g}" for v in numbers)


def labelled(mapping):
    """Labels and what they say, one after another: "a: x; b: y".

    >>> labelled({"curvature": "reproduced", "accuracy": "inconclusive"})
    'curvature: reproduced; accuracy: inconclusive'
    """
    return "; ".join(f"{label}: {said}" for label, said in mapping.items())


def arm_values(pairs):
    """A value per arm, three decimals: "gated 0.812, SiLU 0.790"
    (``pairs``: ``(gate, value)``, in the order to print).

    >>> arm_values([("multiplicative", 0.8123), ("silu", 0.79)])
    'gated 0.812, SiLU 0.790'
    """
    return ", ".join(
        f"{STUDY_GATES.arm_labels[gate]} {value:.3f}" for gate, value in pairs
    )


def verdict_word(verdict):
    """A verdict without its parenthesis: "partly reproduced (2 of 3: ...)"
    -> "partly reproduced".

    >>> verdict_word("reproduced (4 of 4 tests hold)")
    'reproduced'
    """
    return verdict.split(" (")[0]


def table(frame, digits=4):
    """``frame`` as a Markdown table, numbers to ``digits`` significant digits."""
    return frame.to_markdown(index=False, floatfmt=f".{digits}g")


def pipe_table(header, rows):
    """A Markdown table (lines) of ``rows``, each a sequence of cells under
    ``header``.

    >>> pipe_table(["claim", "verdict"], [("C1", "reproduced")])
    ['| claim | verdict |', '|---|---|', '| C1 | reproduced |']
    """
    return [
        f"| {' | '.join(header)} |",
        "|" + "---|" * len(header),
        *(f"| {' | '.join(str(cell) for cell in row)} |" for row in rows),
    ]


def verdict_table(verdicts):
    """A Markdown table of claim verdicts (claim, statement, verdict)."""
    return pipe_table(
        ["claim", "says", "verdict (primary tests)"],
        verdicts[["claim", "statement", "verdict"]].itertuples(index=False),
    )


def power_wide(power, index):
    """A power table (one row per test and stage) as one row per test of
    ``index`` columns, with seeds, sd and power planned and achieved."""
    table = power.pivot_table(
        index=index,
        columns="stage",
        values=["n_seeds", "sd", "power"],
        sort=False,
    )
    table.columns = [f"{stat} ({stage})" for stat, stage in table.columns]
    return table.reset_index()

"""Numbers and test outcomes in the words every report uses."""

from .stats import HOLDS, INCONCLUSIVE, NO_EFFECT, REVERSED

__all__ = [
    "RESULT_WORDS",
    "interval",
    "number",
    "power_wide",
    "table",
    "verdict_table",
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
    means prints as 0."""
    return "0" if abs(value) < 1e-12 else f"{value:.3g}"


def interval(row):
    """A test's estimate and its interval: "0.1 [0.05, 0.15]"."""
    return (
        f"{number(row['estimate'])} [{number(row['ci low'])}, {number(row['ci high'])}]"
    )


def table(frame, digits=4):
    """``frame`` as a Markdown table, numbers to ``digits`` significant digits."""
    return frame.to_markdown(index=False, floatfmt=f".{digits}g")


def verdict_table(verdicts):
    """A Markdown table of claim verdicts (claim, statement, verdict)."""
    return [
        "| claim | says | verdict (primary tests) |",
        "|---|---|---|",
        *(
            f"| {row.claim} | {row.statement} | {row.verdict} |"
            for row in verdicts.itertuples(index=False)
        ),
    ]


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

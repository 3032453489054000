"""The replication beside the first run, in words: the Findings' line,
the report's section and a replication's own header
(:mod:`study.replication` computes what they say)."""

from . import words
from .replication import (
    REPLICATION,
    agreement,
    comparison,
    differing_verdicts,
    run_commit,
    run_commits,
)

__all__ = ["duration", "findings_line", "replication_note", "section"]


def duration(seconds):
    """A wall time in words: "5,400 s (1.5 h)".

    >>> duration(5400.4)
    '5,400 s (1.5 h)'
    """
    return f"{seconds:,.0f} s ({seconds / 3600:.1f} h)"


def _differences(table):
    """The tests whose outcome differs, in words."""
    return [
        f"{row['claim']} {row['quantity']} {row['comparison']} "
        f"({row['condition']}, {row['part']}): {row['first run']} -> "
        f"{row['replication']}"
        for _, row in table[~table["same outcome"]].iterrows()
    ]


def findings_line(first, again, info):
    """The Findings' line: how many primary outcomes the replication gave
    again, which differ, and which claims' verdicts differ."""
    table = comparison(first, again)
    commit, clean = run_commit(info)
    at = f"at `{commit[:7]}`" if commit else "at no single recorded commit"
    at += "" if clean or not commit else ", its files changed"
    seconds = info.get("total seconds")
    took = f", {duration(seconds)} to its record" if seconds is not None else ""
    same, total = agreement(table)
    line = (
        f"- **Replication** (the whole study again {at}{took}; the first "
        f"run's outcomes stay the confirmatory ones): the same primary outcome "
        f"in {same} of {total} tests"
    )
    differ = _differences(table)
    line += f"; differs in {'; '.join(differ)}" if differ else ""
    verdicts = differing_verdicts(first, again)
    if verdicts:
        line += "; verdicts that differ: " + "; ".join(
            f"{claim} ({label}) {a} -> {b}" for label, claim, a, b in verdicts
        )
    return line + "."


def _first_code(first_info, fits=None):
    """What the first run's run.json says of its code, and (``fits``:
    :func:`study.replication.same_fits`) how many of its fits the
    replication gave again, in words."""
    commit, clean = run_commit(first_info)
    again = ""
    if fits is not None and fits["all"][1]:
        (same, rows), (same_2, rows_2) = fits["all"], fits["part 2"]
        again = (
            f" Fit for fit, the replication's rows hold the first run's accuracy "
            f"in {same:,} of {rows:,} rows of the tables of fits both folders "
            f"hold (part 2's `seq_` tables: {same_2:,} of {rows_2:,})."
        )
    if not first_info.get("code"):
        return "The first run's run.json records no commit." + again
    if commit is None:
        return "The first run's parts ran at more than one commit." + again
    return (
        f"The first run ran at `{commit[:12]}`"
        + ("." if clean else ", though its files differed from it.")
        + again
    )


def section(first, again, info, first_info, fits=None):
    """The report's section on the replication: where it ran, how long it
    took, and the primary tests of both runs side by side (``info``: the
    replication's run.json, ``first_info``: the first run's)."""
    table = comparison(first, again)
    commit, clean = run_commit(info)
    if commit:
        code = f"at one commit, `{commit[:12]}`" + (
            ", its files clean at the start and end of every part"
            if clean
            else ", though its files differed from it (run.json's 'code')"
        )
    else:
        commits = ", ".join(c[:12] for c in run_commits(info))
        code = f"at no single recorded commit (run.json's 'code': {commits})"
    seconds = info.get("total seconds")
    took = (
        f" in {duration(seconds)} from its start to its record (run.json's "
        "'total seconds')"
        if seconds is not None
        else ""
    )
    same, total = agreement(table)
    differ = _differences(table)
    verdicts = differing_verdicts(first, again)
    lines = [
        "",
        "## Replication",
        "",
        f"The whole study ran again {code}, as `{info['command']}`{took} "
        f"(`{REPLICATION}/REPORT.md`, `{REPLICATION}/run.json`), following "
        "the replication plan (`docs/replication.md`), committed before it "
        "ran. It replicates the pre-registered protocols; the study's "
        "confirmatory outcomes stay the first run's above, which were "
        "pre-registered and audited. `PYTHONPATH=benchmarks python -m study "
        f"replay --from DIR/{REPLICATION}` (DIR: this report's folder) fits any "
        "of the replication's rows again and compares it cell by cell. "
        + _first_code(first_info, fits),
        "",
        "Each primary test in both runs (estimate [95 % interval] (outcome)):",
        "",
        words.table(table, 4),
        "",
        (
            f"The same outcome in all {total} primary tests."
            if not differ
            else f"The same outcome in {same} of {total} primary tests; "
            f"they differ in {len(differ)}: " + "; ".join(differ) + "."
        ),
    ]
    if verdicts:
        lines += [
            "",
            "Claims whose verdict differs (first run -> replication): "
            + "; ".join(
                f"{claim} ({label}) {a} -> {b}" for label, claim, a, b in verdicts
            )
            + ".",
        ]
    return lines


def replication_note(info):
    """The header line of a replication's own report (none for a first run)."""
    if not info.get("replication"):
        return []
    return [
        "",
        "**This run is a replication** of the pre-registered protocols "
        "(docs/replication.md), made at one recorded commit after the first "
        "run. The study's confirmatory outcomes are the first run's "
        "(`../REPORT.md`, where this run's primary tests stand beside them). "
        f"What is labelled '{words.POST_HOC}' was added after the first run; "
        "the protocols do not state it.",
    ]

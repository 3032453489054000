"""The replication beside the first run (docs/replication.md): each
primary test's estimate and outcome in both runs, side by side, and the
words that say where they differ.

A replication is a whole run of the pre-registered protocols made again
(``reproduce --replication``) into the first run's folder's
:data:`REPLICATION` subfolder. The first run's outcomes stay the study's
confirmatory ones; the replication's stand beside them.
"""

import pandas as pd

from . import runfiles, words

__all__ = [
    "REPLICATION",
    "comparison",
    "duration",
    "findings_line",
    "replication_note",
    "section",
]

#: The subfolder of a run's folder that holds its replication.
REPLICATION = "replication"
#: The confirmatory parts, by name, and how the report names them.
_PARTS = {"sequences": "part 2", "copied": "part 1"}
_KEYS = ["claim", "quantity", "condition", "comparison"]


def duration(seconds):
    """A wall time in words: "5,400 s (1.5 h)".

    >>> duration(5400.4)
    '5,400 s (1.5 h)'
    """
    return f"{seconds:,.0f} s ({seconds / 3600:.1f} h)"


def comparison(first, again):
    """Each primary test of both confirmatory parts in both runs (``first``
    and ``again``: the reports' results by part): part, the test, both
    estimates with their intervals and outcomes, and whether the outcomes
    are the same."""
    rows = []
    for name, label in _PARTS.items():
        if name not in first or name not in again:
            continue
        both = first[name]["tests"].merge(
            again[name]["tests"], on=_KEYS, suffixes=(" first", " again")
        )
        for _, row in both.iterrows():
            rows.append(
                {
                    "part": label,
                    **{key: row[key] for key in _KEYS},
                    "first run": _result(row, " first"),
                    "replication": _result(row, " again"),
                    "same outcome": row["outcome first"] == row["outcome again"],
                }
            )
    return pd.DataFrame(
        rows, columns=["part", *_KEYS, "first run", "replication", "same outcome"]
    )


def _result(row, suffix):
    return words.result(
        {
            "estimate": row[f"estimate{suffix}"],
            "ci low": row[f"ci low{suffix}"],
            "ci high": row[f"ci high{suffix}"],
            "outcome": row[f"outcome{suffix}"],
        }
    )


def _verdicts(first, again):
    """The claims whose verdict (its word) differs between the runs:
    (part, claim, first, replication)."""
    found = []
    for name, label in _PARTS.items():
        if name not in first or name not in again:
            continue
        one = first[name]["verdicts"].set_index("claim")["verdict"]
        two = again[name]["verdicts"].set_index("claim")["verdict"]
        for claim in one.index.intersection(two.index):
            a, b = words.verdict_word(one[claim]), words.verdict_word(two[claim])
            if a != b:
                found.append((label, claim, a, b))
    return found


def _differences(table):
    """The tests whose outcome differs, in words."""
    return [
        f"{row['claim']} {row['quantity']} {row['comparison']} "
        f"({row['condition']}, {row['part']}): {row['first run']} -> "
        f"{row['replication']}"
        for _, row in table[~table["same outcome"]].iterrows()
    ]


def _commit(info):
    """The one commit a run's parts ran at, and whether every part's files
    were clean at its start and end; (None, False) where they differ."""
    states = [s for part in info.get("code", {}).values() for s in part.values()]
    commits = {s.get("commit") for s in states}
    clean = bool(states) and all(s.get("dirty") is False for s in states)
    return (commits.pop() if len(commits) == 1 else None), clean


def findings_line(first, again, info):
    """The Findings' line: how many primary outcomes the replication gave
    again, which differ, and which claims' verdicts differ."""
    table = comparison(first, again)
    commit, _ = _commit(info)
    at = f"at `{commit[:7]}`" if commit else "at no single recorded commit"
    seconds = info.get("total seconds")
    took = f", {duration(seconds)}" if seconds is not None else ""
    same = int(table["same outcome"].sum())
    line = (
        f"- **Replication** (the whole study again {at}{took}; the first "
        f"run's outcomes stay the confirmatory ones): the same primary outcome "
        f"in {same} of {len(table)} tests"
    )
    differ = _differences(table)
    line += f"; differs in {'; '.join(differ)}" if differ else ""
    verdicts = _verdicts(first, again)
    if verdicts:
        line += "; verdicts that differ: " + "; ".join(
            f"{claim} ({label}) {a} -> {b}" for label, claim, a, b in verdicts
        )
    return line + "."


def section(first, again, info):
    """The report's section on the replication: where it ran, how long it
    took, and the primary tests of both runs side by side."""
    table = comparison(first, again)
    commit, clean = _commit(info)
    if commit:
        code = f"at one commit, `{commit[:12]}`" + (
            ", its files clean at the start and end of every part"
            if clean
            else ", though its files differed from it (run.json's 'code')"
        )
    else:
        code = "at no single recorded commit (run.json's 'code')"
    seconds = info.get("total seconds")
    took = f" in {duration(seconds)}" if seconds is not None else ""
    same = int(table["same outcome"].sum())
    differ = _differences(table)
    verdicts = _verdicts(first, again)
    lines = [
        "",
        "## Replication",
        "",
        f"The whole study ran again {code}, as `{info['command']}`{took} "
        f"(`{REPLICATION}/REPORT.md`, `{REPLICATION}/run.json`), following "
        "the replication plan (`docs/replication.md`), committed before it "
        "ran. It replicates the pre-registered protocols; the study's "
        "confirmatory outcomes stay the first run's above, which were "
        "pre-registered and audited. The replication's rows are this code's: "
        f"`PYTHONPATH=benchmarks python -m study replay --from "
        f"benchmarks/results/{REPLICATION}` fits any of them again and compares "
        "it cell by cell. The first run's rows came from earlier code (its "
        "run.json records no commit), which this code does not give again "
        "fit for fit.",
        "",
        "Each primary test in both runs (estimate [95 % interval] (outcome)):",
        "",
        words.table(table, 4),
        "",
        (
            f"The same outcome in all {len(table)} primary tests."
            if not differ
            else f"The same outcome in {same} of {len(table)} primary tests; "
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


def load_info(folder):
    """The replication's run.json beside a first run in ``folder``, or None."""
    path = folder / REPLICATION
    return runfiles.load_info(path) if (path / "run.json").is_file() else None

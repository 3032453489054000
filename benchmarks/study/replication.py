"""The replication beside the first run (docs/replication.md), computed:
each primary test of both confirmatory parts in both runs, which outcomes
and verdicts differ, and the commit the replication ran at.
:mod:`study.render_replication` puts it into words.

A replication is a whole run of the pre-registered protocols made again
(``reproduce --replication``) into the first run's folder's
:data:`REPLICATION` subfolder. The first run's outcomes stay the study's
confirmatory ones; the replication's stand beside them.
"""

from pathlib import Path

import pandas as pd

from . import runfiles, words

__all__ = [
    "REPLICATION",
    "agreement",
    "comparison",
    "differing_verdicts",
    "run_commit",
    "run_commits",
    "same_fits",
]

#: The subfolder of a run's folder that holds its replication.
REPLICATION = "replication"
#: The confirmatory parts, by name, and how the report names them.
_PARTS = {"sequences": "part 2", "copied": "part 1"}
_KEYS = ["claim", "quantity", "condition", "comparison"]


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


def differing_verdicts(first, again):
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


def run_commits(info):
    """Every commit a run's parts recorded, sorted."""
    return sorted({str(state.get("commit")) for state in runfiles.code_states(info)})


def run_commit(info):
    """The one commit a run's parts ran at, and whether every part's files
    were clean at its start and end; (None, False) where they differ."""
    states = runfiles.code_states(info)
    commits = {s.get("commit") for s in states}
    clean = bool(states) and all(s.get("dirty") is False for s in states)
    return (commits.pop() if len(commits) == 1 else None), clean


def same_fits(first, again):
    """Fit for fit, how many rows of the replication's tables of fits hold
    the first run's accuracy (as the CSVs write it): ``{"all": (same,
    rows), "part 2": (same, rows)}`` over every CSV in both folders with a
    seed and an accuracy per row and as many rows in each (part 2's: its
    ``seq_`` tables)."""
    counts = {"all": [0, 0], "part 2": [0, 0]}
    for path in sorted(Path(again).glob("*.csv")):
        other = Path(first) / path.name
        if not other.is_file():
            continue
        one, two = pd.read_csv(other), pd.read_csv(path)
        if not {"seed", "accuracy"} <= set(one) & set(two) or len(one) != len(two):
            continue
        same = int((one["accuracy"].to_numpy() == two["accuracy"].to_numpy()).sum())
        for key in ["all"] + (["part 2"] if path.name.startswith("seq_") else []):
            counts[key][0] += same
            counts[key][1] += len(one)
    return {key: tuple(value) for key, value in counts.items()}


def agreement(table):
    """(tests with the same outcome in both runs, tests) of a
    :func:`comparison` table."""
    return int(table["same outcome"].sum()), len(table)

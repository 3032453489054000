"""A run's files: run.json written part by part, CSVs written without their
timings, and reading them back, where a damaged file is a ValueError naming
it and what is wrong, before any number is computed from it.

What "damaged" means here: run.json that is not a JSON object, or whose
known entries have another type than a run writes; a CSV that does not
parse, has no rows, holds a cell that is not a number in a column of
numbers, an infinite number, an empty seed or accuracy, or whose seeds are
not all there equally often (every sweep of the study is paired by seed, so
a deleted or duplicated row shows as a seed with fewer or more rows than
the others).
"""

import hashlib
import json
import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from .paths import REPOSITORY

__all__ = [
    "add_seconds",
    "as_written",
    "code_changes",
    "code_state",
    "code_states",
    "code_text",
    "load_info",
    "plain",
    "protocol_sha256",
    "read_csv",
    "read_json",
    "read_record",
    "remove_part",
    "save_run_info",
    "tuples",
    "write_csv",
]

#: The types of a run record's entries (run.json), where present.
RECORD_TYPES = {
    "command": str,
    "machine": str,
    "cpu": str,
    "cpu capability": str,
    "protocol_sha256": str,
    "first_seed": int,
    "quick": bool,
    "condition": dict,
    "design": dict,
    "plan": dict,
    "seconds": dict,
    "code": dict,
    "seeds": dict,
    "sequences": dict,
    "parts": list,
    "replication": bool,
}
#: Columns of wall time, which a run's CSVs leave out (they differ from run
#: to run; timings.csv holds them).
TIMINGS = ["fit_seconds"]
#: Columns the study fills in every row.
COMPLETE_COLUMNS = ("seed", "accuracy")


def read_json(path):
    """The JSON object in ``path`` (a dict), or a ValueError naming the file."""
    path = Path(path)
    try:
        record = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not valid JSON ({exc}).") from None
    if not isinstance(record, dict):
        raise ValueError(
            f"{path} holds a JSON {type(record).__name__}, not the object "
            "(name: value) of a run's record."
        )
    return record


def read_record(path):
    """A run's record (run.json), its known entries of the types a run
    writes, or a ValueError naming the file and the entry."""
    record = read_json(path)
    for key, kind in RECORD_TYPES.items():
        value = record.get(key)
        if value is not None and not _of_type(value, kind):
            raise ValueError(
                f"{path}: {key!r} must be a JSON {_JSON_NAMES[kind]}; got "
                f"{json.dumps(value)[:60]}."
            )
    times = {}  # each wall time the record holds, by its name in a message
    if record.get("total seconds") is not None:
        times["'total seconds'"] = record["total seconds"]
    for name, seconds in record.get("seconds", {}).items():
        times[f"'seconds' of {name!r}"] = seconds
    for what, seconds in times.items():
        if not _of_type(seconds, int | float) or not (0 <= seconds < float("inf")):
            raise ValueError(
                f"{path}: {what} must be a finite number >= 0; got "
                f"{json.dumps(seconds)}."
            )
    for name, seeds in record.get("seeds", {}).items():
        if not _of_type(seeds, int) or seeds < 1:
            raise ValueError(
                f"{path}: 'seeds' of {name!r} must be a whole number >= 1; got "
                f"{json.dumps(seeds)}."
            )
    for label, states in record.get("code", {}).items():
        _check_code(states, f"{path}: 'code' of {label!r}")
    return record


#: A commit as run.json records it: git's hexadecimal name, 7 to 40 digits.
_COMMIT = re.compile(r"[0-9a-f]{7,40}")


def _check_code(states, where):
    """A part's code record: ``{"start": state, "end": state}``, each state
    ``{"commit": hex or null, "dirty": bool or null}``; else a ValueError
    saying ``where``."""
    if not isinstance(states, dict) or set(states) != {"start", "end"}:
        raise ValueError(
            f"{where} must be a JSON object with 'start' and 'end'; got "
            f"{json.dumps(states)[:80]}."
        )
    for moment, state in states.items():
        commit = state.get("commit") if isinstance(state, dict) else "?"
        dirty = state.get("dirty") if isinstance(state, dict) else "?"
        fine = (
            commit is None or (isinstance(commit, str) and _COMMIT.fullmatch(commit))
        ) and (dirty is None or isinstance(dirty, bool))
        if not fine:
            raise ValueError(
                f'{where}, {moment!r} must be {{"commit": a hexadecimal git '
                f'commit or null, "dirty": true, false or null}}; got '
                f"{json.dumps(state)[:80]}."
            )


def _of_type(value, kind):
    """isinstance, but JSON's true and false are no numbers (Python's are)."""
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


_JSON_NAMES = {
    str: "string",
    int: "integer",
    bool: "true or false",
    dict: "object",
    list: "array",
}


def read_csv(path, *, count_seeds=True):
    """The table in ``path``, checked as described in the module
    (``count_seeds=False``: the caller checks the seeds cell by cell)."""
    path = Path(path)
    try:
        # Only an empty cell is missing (as the study writes NaN): "n/a",
        # "null" and the like are text, and refused in a column of numbers.
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not a readable CSV table ({exc}).") from None
    if frame.empty:
        raise ValueError(f"{path} has a header but no rows.")
    for column in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            _check_numbers(frame[column], path)
            continue
        infinite = np.isinf(frame[column].to_numpy(dtype=float))
        if infinite.any():
            raise ValueError(
                f"{path}: column {column!r} holds an infinite number at line "
                f"{_line(infinite)}."
            )
    for column in COMPLETE_COLUMNS:
        empty = frame[column].isna().to_numpy() if column in frame else None
        if empty is not None and empty.any():
            raise ValueError(
                f"{path}: column {column!r} is empty at line {_line(empty)}."
            )
    if count_seeds and "seed" in frame:
        _check_seeds(frame["seed"], path)
    return frame


def _check_numbers(column, path):
    """A column of numbers holds only numbers (or empty cells)."""
    numbers = pd.to_numeric(column, errors="coerce")
    written = column.notna()
    bad = written & numbers.isna()
    if numbers.notna().sum() > bad.sum() and bad.any():
        line = _line(bad.to_numpy())
        raise ValueError(
            f"{path}: column {column.name!r} holds numbers, but line {line} "
            f"holds {column.iloc[line - 2]!r}."
        )


def _check_seeds(seeds, path):
    counts = seeds.value_counts()
    if counts.nunique() > 1:
        usual = int(counts.mode().iloc[0])
        odd = counts[counts != usual]
        differ = "1 seed differs" if len(odd) == 1 else f"{len(odd)} seeds differ"
        raise ValueError(
            f"{path}: every seed has {usual} rows but seed {odd.index[0]} has "
            f"{int(odd.iloc[0])} ({differ}): rows were deleted or repeated; the "
            "run is damaged or incomplete."
        )


def _line(rows):
    """The file's line of the first True of ``rows`` (line 1 is the header)."""
    return int(rows.nonzero()[0][0]) + 2


def protocol_sha256(path):
    """SHA-256 of the protocol file (hex), or None where it is not found."""
    path = Path(path)
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def plain(value):
    """``value`` with its tuples as lists, as JSON holds them."""
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def tuples(value):
    """``value`` read from JSON, its lists as tuples again."""
    if isinstance(value, list):
        return tuple(tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: tuples(v) for k, v in value.items()}
    return value


def save_run_info(folder, info):
    """Write run.json: ``info``, a dict of plain values."""
    text = json.dumps(info, indent=1, sort_keys=True)
    (Path(folder) / "run.json").write_text(text + "\n")


def load_info(folder):
    """A run's run.json as a dict."""
    return read_record(Path(folder) / "run.json")


def remove_part(folder, name):
    """Remove a part's record from the run's run.json, before the part runs
    again; whether there was one."""
    path = Path(folder) / "run.json"
    if not path.is_file():
        return False
    info = read_json(path)
    if name not in info:
        return False
    del info[name]
    save_run_info(folder, info)
    return True


def add_seconds(folder, part, seconds):
    """Add a part's wall time to a run's run.json."""
    path = Path(folder) / "run.json"
    record = read_json(path)
    record["seconds"][part] = seconds
    save_run_info(folder, record)


def write_csv(frame, path):
    """The deterministic columns of ``frame`` to ``path`` (timings stay out)."""
    frame.drop(columns=TIMINGS, errors="ignore").to_csv(
        path, index=False, float_format="%.10g"
    )


def as_written(frame):
    """``frame`` as a run's CSV holds it: written by :func:`write_csv` and
    read back by :func:`read_csv` (numbers to 10 significant digits,
    timings left out), so that it compares cell for cell with a committed
    table."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rows.csv"
        write_csv(frame, path)
        return read_csv(path, count_seeds=False)


# -- the code a run ran ---------------------------------------------------------------

#: The checkout whose code runs: the folder above the package, when it is a
#: git work tree holding it (not a wheel's site-packages).
_CHECKOUT = REPOSITORY
#: What "dirty" looks at: the code and what installs it, not the run's outputs
#: (a run may write its CSVs into the checkout).
_CODE_PATHS = (
    "skgate",
    "benchmarks/study",
    "docs/protocol.md",
    "docs/protocol-2.md",
    "pyproject.toml",
    "constraints.txt",
)


def _git(*args, checkout):
    """The output of ``git args`` in ``checkout``, or None where git or the
    checkout is missing."""
    try:
        done = subprocess.run(
            ["git", "-C", str(checkout), *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def code_state(checkout=None):
    """The commit of the code running now and whether its files differ from
    it: ``{"commit": sha, "dirty": bool}``, or ``{"commit": None, "dirty":
    None}`` where the package is not in a git checkout (an installed wheel).

    Examples
    --------
    >>> from study import runfiles
    >>> sorted(runfiles.code_state())
    ['commit', 'dirty']
    """
    checkout = _CHECKOUT if checkout is None else Path(checkout)
    top = _git("rev-parse", "--show-toplevel", checkout=checkout)
    commit = _git("rev-parse", "HEAD", checkout=checkout)
    if top is None or commit is None or Path(top).resolve() != checkout.resolve():
        return {"commit": None, "dirty": None}
    changed = _git(
        "status", "--porcelain", "--untracked-files=no", "--", *_CODE_PATHS,
        checkout=checkout,
    )  # fmt: skip
    return {"commit": commit, "dirty": None if changed is None else changed != ""}


def _state_text(state):
    if state.get("commit") is None:
        return "no git checkout"
    dirty = {True: ", files changed", False: "", None: ", state unknown"}
    return f"`{state['commit'][:12]}`{dirty[state.get('dirty')]}"


def _state(state):
    return state.get("commit"), state.get("dirty")


def code_states(info):
    """Every code state the run in ``info`` (run.json) recorded: each
    part's at its start and at its end."""
    return [
        state for states in info.get("code", {}).values() for state in states.values()
    ]


def code_changes(info):
    """The parts of the run in ``info`` (run.json) whose code differs
    between their start and end, or ran from changed files, or whose commit
    differs from another part's: their labels."""
    code = info.get("code", {})
    commits = {_state(s)[0] for s in code_states(info)}
    return [
        label
        for label, states in code.items()
        if _state(states["start"]) != _state(states["end"])
        or True in (states["start"].get("dirty"), states["end"].get("dirty"))
        or len(commits) > 1
    ]


def code_text(info):
    """The report's line on the code the run in ``info`` ran: the commit at
    the start and at the end of each part, and a warning where they differ
    or the files had changed."""
    code = info.get("code")
    if not code:
        return "Code: run.json records no commit (the run predates that record)."
    pairs = {
        label: (_state_text(states["start"]), _state_text(states["end"]))
        for label, states in code.items()
    }
    if len(set(pairs.values())) == 1:
        start, end = next(iter(pairs.values()))
        text = f"Code: {start} at the start of every part and {end} at its end"
    else:
        text = "Code: " + "; ".join(
            f"{label} {start} at its start and {end} at its end"
            for label, (start, end) in pairs.items()
        )
    changed = code_changes(info)
    if changed:
        text += (
            f". **Warning**: the code of {', '.join(changed)} changed during the "
            "run, differed from its commit, or differed from another part's; "
            "the numbers are that code's"
        )
    return text + "."

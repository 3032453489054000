"""Reading a run's files: a damaged file is a ValueError naming it and what is
wrong, before any number is computed from it.

What "damaged" means here: run.json that is not a JSON object; a CSV that
does not parse, has no rows, holds a cell that is not a number in a column
of numbers, or whose seeds are not all there equally often (every sweep of
the study is paired by seed, so a deleted or duplicated row shows as a seed
with fewer or more rows than the others).
"""

import json
from pathlib import Path

import pandas as pd

__all__ = ["read_csv", "read_json"]


def read_json(path):
    """The JSON object in ``path`` (a dict), or a ValueError naming the file."""
    path = Path(path)
    try:
        record = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc}).") from None
    if not isinstance(record, dict):
        raise ValueError(
            f"{path} holds a JSON {type(record).__name__}, not the object "
            "(name: value) of a run's record."
        )
    return record


def read_csv(path):
    """The table in ``path``, checked as described in the module."""
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
    if "seed" in frame:
        _check_seeds(frame["seed"], path)
    return frame


def _check_numbers(column, path):
    """A column of numbers holds only numbers (or empty cells)."""
    numbers = pd.to_numeric(column, errors="coerce")
    written = column.notna()
    bad = written & numbers.isna()
    if numbers.notna().sum() > bad.sum() and bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise ValueError(
            f"{path}: column {column.name!r} holds numbers, but line {row + 2} "
            f"holds {column.iloc[row]!r}."
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

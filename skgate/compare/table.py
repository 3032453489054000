"""A CSV read for ``compare``: its header checked with Python's csv module,
its values with pandas, its target's task and its folds, so that the command
line refuses a file it cannot compare before torch is imported
(:func:`check_csv_header`, :func:`read_table`, :func:`check_folds`).
"""

import csv
import warnings
from numbers import Integral

from .. import _options
from .._options import TASKS

__all__ = [
    "CsvProblem",
    "check_csv_header",
    "check_folds",
    "header_problem",
    "read_table",
    "repeated_names",
    "text_columns",
]

#: At most this many cells (or this share of a column, if more) that are
#: not numbers, in a column whose other cells are: a typo to fix, not text.
_FEW_CELLS, _FEW_SHARE = 3, 0.05


class CsvProblem(ValueError):
    """The CSV cannot be compared as asked; the message says why, in one line."""


def check_csv_header(path, target):
    r"""Raise a :class:`CsvProblem` for a CSV file that cannot be opened (missing,
    a folder), is empty, has a header without rows, or has no column
    ``target``, read with Python's csv module as pandas reads it (UTF-8, a
    leading byte-order mark dropped, as Excel writes it; the command line
    checks it before importing torch), or names a column twice (pandas would
    rename the second). A file this reader cannot judge as pandas would
    (undecodable, empty names) is left to pandas.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "data.csv"
    ...     _ = path.write_text("a,b\n1,2\n")
    ...     check_csv_header(path, "b")  # comparable: nothing raised
    ...     try:
    ...         check_csv_header(path, "y")
    ...     except CsvProblem as problem:
    ...         print(problem)
    no column 'y' in '.../data.csv'; its columns: 'a', 'b'.
    """
    try:
        # utf-8-sig: pandas drops a byte-order mark, so the first name has none.
        with open(path, newline="", encoding="utf-8-sig") as file:
            lines = (row for row in csv.reader(file) if row)  # pandas skips blanks
            header = next(lines, None)
            has_rows = next(lines, None) is not None
    except OSError as exc:
        raise CsvProblem(f"cannot read {str(path)!r} as CSV: {exc}") from exc
    except (UnicodeDecodeError, csv.Error):
        return
    if header is not None:
        problem = repeated_names(path, header)
        if problem is not None:
            raise CsvProblem(problem)
    if header is not None and "" in header:
        return  # pandas names an empty name after its place
    problem = header_problem(path, target, header, has_rows)
    if problem is not None:
        raise CsvProblem(problem)


def repeated_names(path, header):
    """The message for a ``header`` that names a column twice or more, or
    None. pandas would read the second ``y`` as ``y.1``: a repeated target
    would go in as a feature, and a repeated feature silently twice.

    Examples
    --------
    >>> print(repeated_names("data.csv", ["y", "a", "y"]))
    'data.csv' names a column twice or more: 'y' (columns 1 and 3); give every
    column its own name.
    >>> repeated_names("data.csv", ["a", "b"]) is None
    True
    """
    places = {}
    for place, name in enumerate(header, start=1):
        if name != "":
            places.setdefault(name, []).append(place)
    repeated = {name: where for name, where in places.items() if len(where) > 1}
    if not repeated:
        return None
    listed = "; ".join(
        f"{name!r} (columns {', '.join(map(str, where[:-1]))} and {where[-1]})"
        for name, where in repeated.items()
    )
    return (
        f"{str(path)!r} names a column twice or more: {listed}; give every column "
        "its own name."
    )


def _header(path):
    """The CSV's first non-blank row as Python's csv module reads it (None:
    empty or unreadable here, which pandas then judges)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as file:
            return next((row for row in csv.reader(file) if row), None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None


def header_problem(path, target, columns, has_rows):
    """Why a CSV file with the header ``columns`` (None: an empty file) and
    rows or none cannot be compared on ``target``, or None: the messages of
    the command line's check and of :func:`skgate.compare.compare_csv`.

    Examples
    --------
    >>> header_problem("data.csv", "y", ["a", "b"], True)
    "no column 'y' in 'data.csv'; its columns: 'a', 'b'."
    >>> header_problem("data.csv", "b", ["a", "b"], False)
    "'data.csv' has a header but no rows."
    >>> header_problem("data.csv", "b", ["a", "b"], True) is None
    True
    """
    if isinstance(columns, str | bytes):
        raise TypeError(f"columns must be a list of names; got {columns!r}.")
    if not isinstance(has_rows, bool):
        raise TypeError(f"has_rows must be a bool; got {has_rows!r}.")
    if columns is None:
        return f"{str(path)!r} is empty."
    if target not in columns:
        return _no_column(path, target, columns)
    if not has_rows:
        return f"{str(path)!r} has a header but no rows."
    return None


def _no_column(path, target, columns):
    """The message for a ``target`` that is not one of ``columns``."""
    columns = [str(c) for c in columns]
    # Quoted, so that a name's spaces show (" y" is not "y").
    names = ", ".join(repr(c) for c in columns[:20])
    names = names if len(names) <= 200 else names[:200] + "..."
    more = f" (and {len(columns) - 20} more)" if len(columns) > 20 else ""
    hint = ""
    if len(columns) == 1 and any(c in columns[0] for c in ";\t|"):
        hint = " The file reads as one column: compare needs commas between values."
    if not columns:
        return f"no column {target!r} in {str(path)!r}: its header names none."
    return f"no column {target!r} in {str(path)!r}; its columns: {names}{more}.{hint}"


def read_table(path, target, task=None, *, options=None):
    r"""``(X, y, task)``: the CSV at ``path`` read with pandas (as
    :func:`skgate.compare.compare_csv` reads it, and the command line before
    importing torch), ``target`` its y and every other column a feature,
    and the task to compare on: ``task``, or read from the target as
    :func:`skgate.compare.infer_task` reads it.

    Rows ending in commas (a spreadsheet's empty last fields) are read by
    the header's columns. Raises a :class:`CsvProblem` naming the file, its
    line or column: a file that cannot be read, is not UTF-8 (its first
    byte that is not) or is empty, a header without rows, no column
    ``target``, a row with more values than the header, missing or infinite
    values, features beyond float32's range, a target of one value, text
    for ``task="regression"`` or numbers beyond float32's range (in which
    the regressor trains), a numeric target of whole numbers with more than
    :data:`skgate.compare.MAX_INFERRED_CLASSES` values and no ``task``, or
    no feature. ``options``: the command line's options by keyword
    (``{"task": "--task"}``), for messages that name its options (``--task
    regression``); None: they name the keywords (``task='regression'``).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = Path(folder.name) / "data.csv"
    >>> _ = path.write_text("a,b,label\n1,2,x,\n3,4,y,\n")
    >>> X, y, task = read_table(path, "label")
    >>> list(X.columns), list(y), task
    (['a', 'b'], ['x', 'y'], 'classification')
    >>> _ = path.write_text("a,b,label\n1,2,x\n3,,y\n")
    >>> try:
    ...     read_table(path, "label")
    ... except CsvProblem as problem:
    ...     print(problem)
    '.../data.csv' has missing values in: b (1); fill or drop them first.
    >>> folder.cleanup()
    """
    if task is not None and task not in TASKS:
        raise ValueError(f"task must be one of {list(TASKS)} or None; got {task!r}.")
    table = _read_csv(path, target)
    problem = header_problem(path, target, table.columns, len(table) > 0)
    if problem is not None:
        raise CsvProblem(problem)
    _check_values(table, path)
    y = table.pop(target)
    _check_text_columns(table, path)  # the features: labels may be any text
    _check_float32(table.select_dtypes("number"), path)
    if y.nunique() < 2:
        raise CsvProblem(
            f"the target {target!r} has one value ({_as_written(y.iloc[0])!r}); "
            "nothing to predict."
        )
    if table.shape[1] == 0:
        raise CsvProblem(f"{str(path)!r} has no column besides the target {target!r}.")
    task = _target_task(y, target, task, options)
    if task == "regression":
        _check_regression_target(y, target, options)
    return table, y, task


def _read_csv(path, target):
    """The CSV as pandas reads it, every row by the header's columns: a
    spreadsheet's trailing commas (empty fields beyond the header's, or
    beyond the last named column) add no column, and pandas takes no first
    column as row names; a row with more values than the header is a
    :class:`CsvProblem` naming its line."""
    header = _header(path)
    problem = None if header is None else repeated_names(path, header)
    if problem is not None:
        raise CsvProblem(problem)
    table = _parse_csv(path, target)
    names = list(table.columns)
    while names and names[-1] == f"Unnamed: {len(names) - 1}":  # pandas' name
        if not table[names[-1]].isna().all():
            break
        names.pop()
    return table[names]


def _parse_csv(path, target):
    import pandas as pd

    try:
        with warnings.catch_warnings():
            # index_col=False: a field beyond the header's is dropped, with
            # this warning (or, past the first row, this error); empty ones
            # are a spreadsheet's trailing commas, any other is refused.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(path, index_col=False)
    except pd.errors.EmptyDataError as exc:
        raise CsvProblem(header_problem(path, target, None, False)) from exc
    except UnicodeDecodeError as exc:
        raise CsvProblem(_not_utf8(path)) from exc
    except OSError as exc:
        raise CsvProblem(f"cannot read {str(path)!r} as CSV: {exc}") from exc
    except (pd.errors.ParserError, pd.errors.ParserWarning):
        problem = _longer_row(path)
        if problem is not None:
            raise CsvProblem(problem) from None
    try:  # only empty fields beyond the header's: read its columns
        columns = pd.read_csv(path, nrows=0, index_col=False).columns
        return pd.read_csv(path, index_col=False, usecols=range(len(columns)))
    except UnicodeDecodeError as exc:
        raise CsvProblem(_not_utf8(path)) from exc
    except (pd.errors.ParserError, ValueError) as exc:
        raise CsvProblem(f"cannot read {str(path)!r} as CSV: {exc}") from exc


def _not_utf8(path):
    """The message for a CSV that is not UTF-8 text, with its first byte
    that is not (pandas' error gives a position within the block it was
    decoding): the file decoded once more, on this failure only."""
    where = ""
    try:
        with open(path, "rb") as file:
            data = file.read()
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        where = (
            f" (byte 0x{data[exc.start]:02x} on line {line}, byte {exc.start} "
            "of the file)"
        )
    except OSError:  # gone since pandas read it: the file alone is named
        pass
    return (
        f"{str(path)!r} is not UTF-8 text{where}; save it as UTF-8 (a "
        "spreadsheet's 'CSV UTF-8')."
    )


def _csv_rows(path):
    """(line number, fields) of each row of the CSV at ``path`` that pandas
    reads (blank lines skipped), read with Python's csv module."""
    with open(path, newline="", encoding="utf-8-sig") as file:
        reader = csv.reader(file)
        for row in reader:
            if row:
                yield reader.line_num, row


def _longer_row(path):
    """The message for the first row of ``path`` with a value beyond its
    header's fields (empty fields beyond them are a spreadsheet's trailing
    commas), or None."""
    try:
        rows = _csv_rows(path)
        _, header = next(rows)
        for line, row in rows:
            if any(field.strip() for field in row[len(header) :]):
                return (
                    f"{str(path)!r} line {line} has {len(row)} fields, its header "
                    f"{len(header)}: remove the extra values or name their "
                    "columns in the header."
                )
    except (OSError, UnicodeDecodeError, csv.Error, StopIteration):
        return None
    return None


def _check_values(table, path):
    """Missing or infinite values: a :class:`CsvProblem` naming the columns."""
    import numpy as np

    missing = table.isna().sum()
    missing = missing[missing > 0]
    if len(missing):
        counts = ", ".join(f"{name} ({n})" for name, n in missing.items())
        raise CsvProblem(
            f"{str(path)!r} has missing values in: {counts}; fill or drop them first."
        )
    numbers = table.select_dtypes("number")
    counts = _counts(numbers, np.isinf(numbers.to_numpy(dtype=float)))
    if counts:
        raise CsvProblem(
            f"{str(path)!r} has infinite values in: {counts}; replace or drop "
            "them first."
        )


def _check_text_columns(table, path):
    """A :class:`CsvProblem` for a column pandas read as text that is not:
    numbers written with thousands separators ("1,260"), a column of
    numbers but for a few cells (named with their lines), or a first
    column without a name holding 0, 1, 2, ... (a DataFrame's index that
    ``to_csv`` wrote), or any column the header leaves without a name. Other
    text columns are categories (one-hot encoded: :func:`text_columns`
    names them)."""
    import pandas as pd

    for position, name in enumerate(table.columns):
        column = table[name]
        if name == "Unnamed: 0" and table.columns[0] == name:
            values = pd.to_numeric(column, errors="coerce")
            if values.notna().all() and (values.diff().iloc[1:] == 1).all():
                raise CsvProblem(
                    f"the first column of {str(path)!r} has no name and holds "
                    f"{_as_written(column.iloc[0])}, {_as_written(column.iloc[1])}, "
                    "... in steps of 1: a row index (pandas' to_csv writes one). "
                    "Drop it, or write the file with index=False."
                )
        if name == f"Unnamed: {position}":  # pandas' name for a blank one
            raise CsvProblem(
                f"the header of {str(path)!r} gives column {position + 1} no name "
                f"(pandas would call it {name!r} and train on it): name it in "
                "the header, or remove the column."
            )
        if not _is_text(column):
            continue
        text = column.astype(str).str.strip()
        numbers = pd.to_numeric(text, errors="coerce")
        if numbers.notna().all():
            continue  # pandas would have read it as numbers: left as it is
        separated = pd.to_numeric(text.str.replace(",", ""), errors="coerce")
        if text.str.contains(",").any() and separated.notna().all():
            example = text[text.str.contains(",")].iloc[0]
            raise CsvProblem(
                f"column {name!r} of {str(path)!r} holds numbers written with "
                f"thousands separators ({example!r}), which would be read as "
                "categories; write them without separators."
            )
        bad = numbers.isna()
        if numbers.notna().any() and bad.sum() <= max(
            _FEW_CELLS, _FEW_SHARE * len(text)
        ):
            cells = ", ".join(
                f"data row {i + 1} {v!r}" for i, v in text[bad].head(5).items()
            )
            more = f" and {int(bad.sum()) - 5} more" if bad.sum() > 5 else ""
            raise CsvProblem(
                f"column {name!r} of {str(path)!r} holds numbers but for "
                f"{int(bad.sum())} cell(s) ({cells}{more}), which would make it "
                "a column of categories; fix or drop those cells."
            )


def text_columns(table):
    """The columns of ``table`` read as text: categories, one-hot encoded
    inside each fold."""
    if not hasattr(table, "columns"):
        raise TypeError(
            f"table must be a DataFrame (read_table's X); got {type(table).__name__}."
        )
    return [name for name in table.columns if _is_text(table[name])]


def _is_text(column):
    """Whether pandas read ``column`` as text (object or string dtype)."""
    import pandas as pd

    return pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)


def _counts(numbers, flagged):
    """ "column (count)" of each column of ``numbers`` with a value
    ``flagged`` (a boolean array of its shape), or "" for none."""
    per_column = zip(numbers.columns, flagged.sum(axis=0), strict=True)
    return ", ".join(f"{name} ({n})" for name, n in per_column if n)


def _check_float32(numbers, path):
    """Feature values beyond float32's range: a :class:`CsvProblem` naming
    the columns. Standardised within a fold, such a value is that many of
    the fold's standard deviations away wherever the fold's training rows
    hold none of them (beyond the range in which the networks train)."""
    import numpy as np

    largest = float(np.finfo(np.float32).max)
    counts = _counts(numbers, np.abs(numbers.to_numpy(dtype=float)) > largest)
    if counts:
        raise CsvProblem(
            f"{str(path)!r} has values beyond float32's range (|x| <= "
            f"{largest:.3g}), in which the networks train, in: {counts}; "
            "rescale those columns first."
        )


def _target_task(y, target, task, options=None):
    """The task for the target column ``y``: ``task``, else as
    :func:`skgate.compare.infer_task` reads it from the values (fractional
    numbers: regression; text and whole numbers: classes, up to
    MAX_INFERRED_CLASSES numbers), by the same rule
    (:func:`skgate._options.read_task`), which needs numpy alone."""
    if task is not None:
        return task
    task = _options.read_task(y.to_numpy())
    if task is None:
        raise CsvProblem(
            f"the target {target!r} is numeric with {y.nunique()} distinct values: "
            f"pass {_arg('task', 'regression', options)} to predict it as a "
            f"number, or {_arg('task', 'classification', options)} to treat "
            "each value as a class."
        )
    return task


def _check_regression_target(y, target, options=None):
    import numpy as np

    if y.dtype.kind not in "iuf":
        raise CsvProblem(
            f"{_arg('task', 'regression', options)} needs a numeric target; "
            f"{target!r} holds text."
        )
    largest = float(np.abs(y.to_numpy(dtype=float)).max())
    if largest > float(np.finfo(np.float32).max):
        raise CsvProblem(
            f"the target {target!r} holds {largest:.3g}, beyond float32's range "
            f"(|y| <= {np.finfo(np.float32).max:.3g}) in which the regressor "
            "trains; rescale it."
        )


def check_folds(y, task, cv, *, options=None):
    """A :class:`CsvProblem` when ``cv`` folds cannot be filled with the
    target ``y``'s rows: (classification) more folds than rows of the
    smallest class, or (regression) fewer than 2 test rows in a fold, on
    which R^2 is undefined. ``options``: the command line's options by
    keyword (``{"cv": "--cv"}``), for a message naming ``--cv 5``; None:
    naming ``cv=5``.

    Examples
    --------
    >>> import pandas as pd
    >>> check_folds(pd.Series(["a", "a", "b", "b"]), "classification", 2)
    >>> try:
    ...     check_folds(pd.Series(["a", "a", "b"]), "classification", 2)
    ... except CsvProblem as problem:
    ...     print(problem)
    cv=2 stratified folds need at least 2 rows of every class; class 'b' has 1: ...
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {list(TASKS)}; got {task!r}.")
    if isinstance(cv, bool) or not isinstance(cv, Integral) or cv < 2:
        raise ValueError(f"cv must be an int >= 2 (folds); got {cv!r}.")
    import numpy as np
    import pandas as pd

    values = np.asarray(y) if not isinstance(y, pd.Series) else y.to_numpy()
    if isinstance(y, str | bytes) or values.ndim != 1 or len(values) == 0:
        shape = f" of shape {values.shape}" if values.ndim else ""
        raise ValueError(
            f"y must be the target's column, 1-D with at least one row; got "
            f"{type(y).__name__}{shape}."
        )
    y = pd.Series(values)
    if task == "classification":
        counts = y.value_counts()
        if counts.min() < cv:
            raise CsvProblem(
                f"{_arg('cv', cv, options)} stratified folds need at least {cv} "
                f"rows of every class; class {_as_written(counts.idxmin())!r} has "
                f"{counts.min()}: lower {_arg('cv', options=options)}, or drop or "
                "merge that class."
            )
    elif len(y) < 2 * cv:
        # compare scores a regression by R^2, undefined on one test row.
        raise CsvProblem(
            f"{_arg('cv', cv, options)} folds of {len(y)} rows leave fewer than "
            f"2 test rows in some fold, and R^2 needs at least 2 on every fold; "
            f"lower {_arg('cv', options=options)} (at most {len(y) // 2}) or "
            "add rows."
        )


def _arg(name, value=None, options=None):
    """Argument ``name`` (set to ``value``, unless None) as a message names
    it: :func:`skgate.compare.compare_csv`'s keyword (``cv=5``), or, with
    ``options`` (the command line's options by keyword, as the command
    passes them), its option (``--cv 5``).

    Examples
    --------
    >>> _arg("cv", 5), _arg("task", "regression"), _arg("cv")
    ('cv=5', "task='regression'", 'cv')
    >>> _arg("cv", 5, {"cv": "--cv"}), _arg("cv", options={"cv": "--cv"})
    ('--cv 5', '--cv')
    """
    if options is None:
        return name if value is None else f"{name}={value!r}"
    return options[name] if value is None else f"{options[name]} {value}"


def _as_written(value):
    """A value as the CSV wrote it (not numpy's repr)."""
    return value.item() if hasattr(value, "item") else value

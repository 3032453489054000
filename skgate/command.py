"""``python -m skgate``'s command line, read without importing torch.

The library's command (``compare``) and its arguments are read and checked
here, and the study's (``reproduce``, ``pilot``, ``report``, ``demo``:
:mod:`skgate.study.commands`) beside it, without importing torch,
scikit-learn or skorch: ``--help`` and usage errors (bad values, a missing
CSV file or column, a run folder without ``run.json``) answer at once, and
``compare``'s CSV values and ``--out`` folder are checked with pandas alone
(:func:`read_table`, :func:`check_folds`, :func:`writable_problem`); a
valid command then runs in the library (:func:`skgate.compare.run_command`)
or in :mod:`skgate.study.cli`.
"""

import argparse
import contextlib
import csv
import os
import re
import shutil
import sys
import tempfile
import warnings
from numbers import Integral
from pathlib import Path

from . import _options

__all__ = [
    "MAX_JOBS",
    "MAX_REPEATS",
    "CsvProblem",
    "check_csv_header",
    "check_jobs",
    "check_writable",
    "header_problem",
    "interrupted_line",
    "is_interruption",
    "parse",
    "parser",
]

#: The command line's description (``--help``), in plain text: argparse
#: prints it as it is, so no reStructuredText markup.
_DESCRIPTION = """\
  compare CSV --target COLUMN  train the multiplicative, SiLU and ungated
                               models on the same cross-validation splits
                               of your CSV, test every pair and say which
                               gate to use (COMPARE.md in --out)
  reproduce [--quick]          the study of the paper's six claims (and
                               C1-C3 on real data): CSVs, figures and
                               REPORT.md in --out (--quick: pilot-sized)
  report --from DIR            REPORT.md again from a run's CSVs
  pilot                        the pilot the protocol's seeds came from
  demo                         what make demo runs: one pre-registered test
                               decided in about a minute, beside the
                               committed verdict
"""


def parse(argv=None, *, extra=()):
    """The command line ``argv`` (default: ``sys.argv[1:]``) read and checked.

    Returns ``(args, parser)``: the parsed arguments and :func:`parser`'s
    parser. ``--help`` and usage errors exit here (code 0 and 2), the error
    one line naming the command. ``extra``: modules of more
    commands, as :func:`parser` takes them, each with ``CHECKS`` (a check
    of each of its commands' values, by name).

    Examples
    --------
    >>> from skgate.study import commands as study_commands
    >>> args, _ = parse(["demo", "--seeds", "12"], extra=[study_commands])
    >>> args.command, args.seeds
    ('demo', 12)
    """
    commands = parser(extra=extra)
    for command in commands.commands.choices.values():
        command.error = _one_line_error(command)
    args, unknown = commands.parse_known_args(argv)
    # Errors name the command and show its usage, not the program's.
    command = commands.commands.choices[args.command]
    if unknown:
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    checks = {**_CHECKS}
    for more in extra:
        checks.update(more.CHECKS)
    checks[args.command](args, command)
    return args, commands


def _one_line_error(command):
    """A command parser's ``error``: one line naming the command, exit code 2
    (argparse's own prints the usage block first)."""

    def error(message):
        command.exit(2, f"{command.prog}: error: {message}\n")

    return error


def interrupted_line(args=None):
    """The line a command interrupted by Ctrl-C prints, ``args`` its parsed
    arguments (None: interrupted before they were read).

    Examples
    --------
    >>> import argparse
    >>> interrupted_line(argparse.Namespace(out="compare"))
    'interrupted; nothing was written to compare'
    >>> interrupted_line()
    'interrupted; nothing was written'
    """
    out = getattr(args, "out", None)
    return (
        f"interrupted; nothing was written to {out}"
        if out
        else ("interrupted; nothing was written")
    )


def is_interruption(exc):
    """Whether the exception ``exc`` was caused by a KeyboardInterrupt (an
    interrupted import surfaces as an ImportError raised from it).

    Examples
    --------
    >>> try:
    ...     try:
    ...         raise KeyboardInterrupt
    ...     except KeyboardInterrupt as interrupt:
    ...         raise ImportError("initialization failed") from interrupt
    ... except ImportError as exc:
    ...     is_interruption(exc), is_interruption(ImportError("no module"))
    (True, False)
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


#: The most workers a command (and ``skgate.study.reproduce``) takes:
#: joblib's counts are C ints, and more workers than this on one machine is
#: a typo.
MAX_JOBS = 1024


def n_jobs_problem(n_jobs, name="n_jobs"):
    """Why ``n_jobs`` is refused, or None: the one rule of every command's
    ``--n-jobs`` and every function's ``n_jobs``, joblib's (a nonzero int
    from -1024 to 1024; -1 every core, -2 all but one).

    Examples
    --------
    >>> n_jobs_problem(-2) is None, n_jobs_problem(0)[:34]
    (True, 'n_jobs must be a nonzero int from ')
    """
    allowed = (
        f"{name} must be a nonzero int from -{MAX_JOBS} to {MAX_JOBS} "
        f"(-1: every core, -2: all but one)"
    )
    if (
        isinstance(n_jobs, bool)
        or not isinstance(n_jobs, Integral)
        or n_jobs == 0
        or not -MAX_JOBS <= n_jobs <= MAX_JOBS
    ):
        return f"{allowed}; got {n_jobs!r}."
    return None


def check_jobs(args, fail):
    """``--n-jobs`` (:func:`n_jobs_problem`); else ``fail(message)``."""
    problem = n_jobs_problem(args.n_jobs, "--n-jobs")
    if problem is not None:
        fail(problem)


#: The most ``compare --repeats`` takes: more is a typo, and would run for
#: days (a test holds it to skgate.compare.design's cap on n_repeats).
MAX_REPEATS = 1000


def _epochs(text):
    """``--max-epochs``: "auto" or an int."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be an int or 'auto'; got {text!r}"
        ) from None


def _check_compare(args, commands):
    def fail(message):  # every bad input: one line, exit code 2
        commands.exit(2, f"{commands.prog}: error: {message}\n")

    _check_compare_args(args, fail)
    if not Path(args.csv).is_file():
        fail(f"{args.csv!r} is not a file (the CSV to compare on).")
    problem = writable_problem(args.out) or outputs_problem(args.out)
    if problem is not None:  # as every command checks --out first
        fail(problem)
    try:
        check_csv_header(args.csv, args.target)  # no pandas for these
        X, y, task = read_table(args.csv, args.target, args.task)
        check_folds(y, task, args.cv)
    except CsvProblem as exc:
        fail(" ".join(str(exc).split()))
    categories = [f"{name!r} ({X[name].nunique()} values)" for name in text_columns(X)]
    if categories:  # said before training, from the table read here
        print(
            f"{commands.prog}: read as categories (one-hot encoded in each fold): "
            f"{', '.join(categories)}",
            file=sys.stderr,
        )


class CsvProblem(ValueError):
    """The CSV cannot be compared as asked; the message says why, in one line."""


def check_writable(parser, out, command):
    """Fail before any work when ``out`` cannot hold a command's results:
    one line naming ``command``, exit code 2 (``parser.exit``); else make
    the folder.

    Examples
    --------
    >>> import tempfile
    >>> from skgate.command import check_writable, parser
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     check_writable(parser(), folder, "compare")  # a writable folder: None
    """
    problem = writable_problem(out)
    if problem is not None:
        parser.exit(2, f"{parser.prog} {command}: error: {problem}\n")
    Path(out).mkdir(parents=True, exist_ok=True)


def writable_problem(out):
    """Why the folder ``out`` cannot hold a command's results, or None:
    found by making it (and its missing parents) and a file in it, then
    removing what was made.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     print(writable_problem(Path(folder) / "new" / "out"))
    ...     print(sorted(Path(folder).iterdir()))  # nothing left behind
    None
    []
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        return f"--out must be a folder; {str(out)!r} is a file."
    missing = missing_folders(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        return (
            f"--out {str(out)!r} is not a writable folder ({exc.strerror}); "
            f"choose another with --out DIR."
        )
    finally:
        remove_made(missing)
    return None


#: The files ``compare`` writes into ``--out``.
COMPARE_OUTPUTS = (
    "COMPARE.md",
    "compare_scores.csv",
    "compare_tests.csv",
    "fig_compare.png",
)


def outputs_problem(out, names=COMPARE_OUTPUTS, option="--out"):
    """Why the files ``names`` cannot be written into the folder ``out``, or
    None: ``out`` (or a folder above it) is a file, or something other than
    a file (a folder) or a file that cannot be replaced is where one of them
    goes. Checked before any training, so that a run does not fail after
    it. ``option``: how the message names ``out`` (``out=`` from Python).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     (Path(folder) / "fig_compare.png").mkdir()
    ...     print(outputs_problem(folder))
    --out '...' holds a folder named 'fig_compare.png' where compare writes
    that file; move it or choose another --out.
    """
    out = Path(out)
    for folder in (out, *out.parents):
        if folder.exists() and not folder.is_dir():
            where = "" if folder == out else f" ({str(folder)!r} is a file)"
            return (
                f"{option} must be a folder; {str(out)!r} cannot be one{where}."
                if where
                else f"{option} must be a folder; {str(out)!r} is a file."
            )
        if folder.exists():
            break
    for name in names:
        path = out / name
        if path.is_dir() or (path.exists() and not path.is_file()):
            kind = "a folder" if path.is_dir() else "something other than a file"
            return (
                f"{option} {str(out)!r} holds {kind} named {name!r} where compare "
                f"writes that file; move it or choose another {option}."
            )
        if path.exists() and not os.access(out, os.W_OK):
            return (
                f"{option} {str(out)!r} holds {name!r}, which compare would "
                f"replace, and the folder is not writable; choose another {option}."
            )
    return None


@contextlib.contextmanager
def undone_on_failure(out):
    """Within the block, the folders of the path ``out`` that do not exist
    yet are the block's to make; if it raises (or is interrupted), they are
    removed with what the block wrote into them, and nothing of a folder
    that existed before is touched.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = Path(folder) / "new" / "out"
    ...     try:
    ...         with undone_on_failure(out):
    ...             out.mkdir(parents=True)
    ...             _ = (out / "half.csv").write_text("a,b")
    ...             raise ValueError("failed")
    ...     except ValueError:
    ...         print(sorted(Path(folder).iterdir()))
    []
    """
    missing = missing_folders(Path(out))
    try:
        yield
    except BaseException:
        remove_made(missing)
        raise


def files_in(out):
    """The files directly in the folder ``out``, by name, with the time each
    was last written (ns); empty where ``out`` is not a folder."""
    out = Path(out)
    if not out.is_dir():
        return {}
    return {p.name: p.stat().st_mtime_ns for p in out.iterdir() if p.is_file()}


def written_since(out, before):
    """The names of the files in ``out`` written since :func:`files_in`
    gave ``before``, sorted."""
    return sorted(k for k, v in files_in(out).items() if before.get(k) != v)


def missing_folders(out):
    """The folders of the path ``out`` that do not exist, deepest first."""
    missing = []
    for folder in (out, *out.parents):
        if folder.exists() or folder.is_symlink():
            break
        missing.append(folder)
    return missing


def remove_made(missing):
    """Remove the folders :func:`missing_folders` listed, now made: the
    deepest with what is in it (all of it made since), the others if empty."""
    if missing:
        shutil.rmtree(missing[0], ignore_errors=True)
    for folder in missing[1:]:
        with contextlib.suppress(OSError):
            folder.rmdir()


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
    return f"no column {target!r} in {str(path)!r}; its columns: {names}{more}.{hint}"


#: The tasks a CSV's target can be compared as.
_TASKS = ("classification", "regression")


def read_table(path, target, task=None):
    r"""``(X, y, task)``: the CSV at ``path`` read with pandas (as
    :func:`skgate.compare.compare_csv` reads it, and the command line before
    importing torch), ``target`` its y and every other column a feature,
    and the task to compare on: ``task``, or read from the target as
    :func:`skgate.compare.infer_task` reads it.

    Rows ending in commas (a spreadsheet's empty last fields) are read by
    the header's columns. Raises a :class:`CsvProblem` naming the file, its
    line or column: a file that cannot be read or is empty, a header without
    rows, no column ``target``, a row with more values than the header,
    missing or infinite values, features beyond float32's range, a target
    of one value, text for
    ``task="regression"`` or numbers beyond float32's range (in which the
    regressor trains), a numeric target of whole numbers with more than
    :data:`skgate.compare.MAX_INFERRED_CLASSES` values and no ``task``, or
    no feature.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "data.csv"
    ...     _ = path.write_text("a,b,label\n1,2,x,\n3,4,y,\n")
    ...     X, y, task = read_table(path, "label")
    ...     _ = path.write_text("a,b,label\n1,2,x\n3,,y\n")
    ...     try:
    ...         read_table(path, "label")
    ...     except CsvProblem as problem:
    ...         print(problem)
    '.../data.csv' has missing values in: b (1); fill or drop them first.
    >>> list(X.columns), list(y), task
    (['a', 'b'], ['x', 'y'], 'classification')
    """
    if task is not None and task not in _TASKS:
        raise ValueError(f"task must be one of {list(_TASKS)} or None; got {task!r}.")
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
    task = _target_task(y, target, task)
    if task == "regression":
        _check_regression_target(y, target)
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
    except (OSError, UnicodeDecodeError) as exc:
        raise CsvProblem(f"cannot read {str(path)!r} as CSV: {exc}") from exc
    except (pd.errors.ParserError, pd.errors.ParserWarning):
        problem = _longer_row(path)
        if problem is not None:
            raise CsvProblem(problem) from None
    try:  # only empty fields beyond the header's: read its columns
        columns = pd.read_csv(path, nrows=0, index_col=False).columns
        return pd.read_csv(path, index_col=False, usecols=range(len(columns)))
    except (pd.errors.ParserError, ValueError) as exc:
        raise CsvProblem(f"cannot read {str(path)!r} as CSV: {exc}") from exc


def _rows(path):
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
        rows = _rows(path)
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


#: At most this many cells (or this share of a column, if more) that are
#: not numbers, in a column whose other cells are: a typo to fix, not text.
_FEW_CELLS, _FEW_SHARE = 3, 0.05


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
                    f"{str(path)!r}'s first column has no name and holds "
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


def _target_task(y, target, task):
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
            "pass --task regression to predict it as a number, or --task "
            "classification to treat each value as a class."
        )
    return task


def _check_regression_target(y, target):
    import numpy as np

    if y.dtype.kind not in "iuf":
        raise CsvProblem(
            f"--task regression needs a numeric target; {target!r} holds text."
        )
    largest = float(np.abs(y.to_numpy(dtype=float)).max())
    if largest > float(np.finfo(np.float32).max):
        raise CsvProblem(
            f"the target {target!r} holds {largest:.3g}, beyond float32's range "
            f"(|y| <= {np.finfo(np.float32).max:.3g}) in which the regressor "
            "trains; rescale it."
        )


def check_folds(y, task, cv):
    """A :class:`CsvProblem` when ``--cv`` folds cannot be filled with the
    target ``y``'s rows: (classification) more folds than rows of the
    smallest class, or (regression) fewer than 2 test rows in a fold, on
    which R^2 is undefined.

    Examples
    --------
    >>> import pandas as pd
    >>> check_folds(pd.Series(["a", "a", "b", "b"]), "classification", 2)
    >>> try:
    ...     check_folds(pd.Series(["a", "a", "b"]), "classification", 2)
    ... except CsvProblem as problem:
    ...     print(problem)
    --cv 2 stratified folds need at least 2 rows of every class; class 'b' has 1: ...
    """
    if task == "classification":
        counts = y.value_counts()
        if counts.min() < cv:
            raise CsvProblem(
                f"--cv {cv} stratified folds need at least {cv} rows of every "
                f"class; class {_as_written(counts.idxmin())!r} has {counts.min()}: "
                "lower --cv, or drop or merge that class."
            )
    elif len(y) < 2 * cv:
        # compare scores a regression by R^2, undefined on one test row.
        raise CsvProblem(
            f"--cv {cv} folds of {len(y)} rows leave fewer than 2 test rows in "
            f"some fold, and R^2 needs at least 2 on every fold; lower --cv "
            f"(at most {len(y) // 2}) or add rows."
        )


def _as_written(value):
    """A value as the CSV wrote it (not numpy's repr)."""
    return value.item() if hasattr(value, "item") else value


#: A scheduler address: [protocol://]host:port.
_ADDRESS = re.compile(r"^([a-z]+://)?[^\s:/]+:\d{1,5}$")


def check_scheduler(args, fail):
    """``--scheduler``: None or an address ``[protocol://]host:port``, else
    ``fail`` with one line (before anything is made or connected)."""
    if args.scheduler is not None and not _ADDRESS.match(args.scheduler):
        fail(
            f"--scheduler must be an address like tcp://host:8786; got "
            f"{args.scheduler!r}."
        )


def _check_compare_args(args, fail):
    """Every argument checked before anything is read or written."""
    for name, value, least in (
        ("--cv", args.cv, 2),
        ("--repeats", args.repeats, 1),
        ("--max-epochs", args.max_epochs, 1),
    ):
        if value != "auto" and value < least:
            fail(f"{name} must be >= {least}; got {value}.")
    if args.repeats > MAX_REPEATS:
        fail(f"--repeats must be at most {MAX_REPEATS}; got {args.repeats}.")
    if not 0 < args.margin <= 1:  # NaN fails too
        fail(
            f"--margin must be in (0, 1] (a difference of accuracy or R^2, "
            f"both at most 1); got {args.margin}."
        )
    check_jobs(args, fail)
    if not 0 <= args.random_state < 2**32:
        fail(
            f"--random-state must be an int in [0, 2**32 - 1]; got {args.random_state}."
        )
    check_scheduler(args, fail)
    if not args.out.strip():
        fail("--out must name a folder; got an empty string.")


#: The library's commands' checks of their arguments' values.
_CHECKS = {"compare": _check_compare}


def parser(*, extra=()):
    """The argument parser of ``python -m skgate`` (its values unchecked:
    :func:`parse` checks them): the library's command, ``compare``, and the
    commands of each module in ``extra`` (its ``add_commands(commands)``
    adds them; ``python -m skgate`` passes :mod:`skgate.study.commands`,
    the study's). Each command's parser is in ``parser().commands.choices``,
    by name.

    Examples
    --------
    >>> sorted(parser().commands.choices)
    ['compare']
    >>> from skgate.study import commands as study_commands
    >>> commands = parser(extra=[study_commands])
    >>> sorted(commands.commands.choices)
    ['compare', 'demo', 'pilot', 'report', 'reproduce']
    >>> commands.parse_args(["compare", "data.csv", "--target", "y"]).target
    'y'
    """
    parser = argparse.ArgumentParser(
        prog="python -m skgate",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True)
    parser.commands = commands  # each command's parser, by name: .choices
    for more in extra:
        more.add_commands(commands)
    _add_compare(commands)
    return parser


def _version():
    """``python -m skgate --version``: skgate's installed version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"skgate {version('skgate')}"
    except PackageNotFoundError:
        return "skgate (not installed: no version recorded)"


def _add_compare(commands):
    compare = commands.add_parser(
        "compare",
        help="compare the gates on your CSV: tests, a verdict, a recommendation",
    )
    compare.add_argument("csv", help="a CSV file with a header row")
    compare.add_argument("--target", required=True, help="the column to predict")
    compare.add_argument(
        "--task",
        choices=["classification", "regression"],
        default=None,
        help=f"default: read from the target (whole numbers with more than "
        f"{_options.MAX_INFERRED_CLASSES} distinct values must be named)",
    )
    compare.add_argument(
        "--cv",
        type=int,
        default=_options.COMPARE_CV,
        help=f"folds (default {_options.COMPARE_CV})",
    )
    compare.add_argument(
        "--repeats",
        type=int,
        default=_options.COMPARE_REPEATS,
        help=f"k-fold repeats (default {_options.COMPARE_REPEATS}, at most "
        f"{MAX_REPEATS})",
    )
    compare.add_argument(
        "--test",
        choices=list(_options.TESTS),
        default=_options.TESTS[0],
        help="corrected-t (CV splits, default) or sign-flip (independent replicates)",
    )
    compare.add_argument(
        "--margin",
        type=float,
        default=_options.SCORE_MARGIN,
        help=f"smallest score difference of interest, in (0, 1] (default "
        f"{_options.SCORE_MARGIN:g})",
    )
    compare.add_argument("--head", choices=list(_options.HEADS), default="mlp")
    compare.add_argument(
        "--max-epochs",
        type=_epochs,
        default=_options.MAX_EPOCHS,
        help=f"epochs per fit: an int >= 1 (0 would compare untrained "
        f"models), or 'auto' (default {_options.MAX_EPOCHS!r}: enough for a "
        f"budget of optimizer steps)",
    )
    compare.add_argument("--random-state", type=int, default=0)
    compare.add_argument("--n-jobs", type=int, default=1, help="fits in parallel")
    compare.add_argument(
        "--out", default="compare", help="output folder (default: compare)"
    )
    compare.add_argument(
        "--scheduler", default=None, help="a Dask scheduler's address: arms run there"
    )

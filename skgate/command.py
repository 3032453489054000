"""``python -m skgate``'s command line, read without importing torch.

The library's command (``compare``) and its arguments are read and checked
here (and, through ``extra``, the commands of a program built on this one,
as the repository's reproduction study is), without importing torch,
scikit-learn or skorch: ``--help`` and usage errors (bad values, a missing
CSV file or column; for the study's commands, a run folder without
``run.json``) answer at once, and
``compare``'s CSV values and ``--out`` folder are checked with pandas alone
(:mod:`skgate.compare.table`, :func:`skgate.outputs.writable_problem`); a
valid command then runs in the library (:func:`skgate.compare.run_command`).
"""

import argparse
import re
import sys
from importlib.util import find_spec
from numbers import Integral
from pathlib import Path

from . import _options
from ._options import MAX_REPEATS
from .compare.table import (
    CsvProblem,
    check_csv_header,
    check_folds,
    read_table,
    text_columns,
)
from .outputs import outputs_problem, writable_problem

__all__ = [
    "MAX_JOBS",
    "check_jobs",
    "check_scheduler",
    "n_jobs_problem",
    "parse",
    "parser",
]

#: The command line's description (``--help``), in plain text: argparse
#: prints it as it is, so no reStructuredText markup.
_DESCRIPTION = """\
  compare CSV --target COLUMN  train the multiplicative, SiLU and ungated
                               models and the baselines a user would pick
                               instead (a linear model and gradient
                               boosting) on the same cross-validation
                               splits of your CSV, say first whether any
                               gate beats the best baseline, test every
                               pair and say which to use (COMPARE.md in
                               --out)
"""


def parse(
    argv=None, *, extra=(), prog="python -m skgate", description=None, library=True
):
    """The command line ``argv`` (default: ``sys.argv[1:]``) read and checked.

    Returns ``(args, parser)``: the parsed arguments and :func:`parser`'s
    parser. ``--help`` and usage errors exit here (code 0 and 2), the error
    one line naming the command. ``extra``: modules (or any objects) of
    more commands, as :func:`parser` takes them, each with ``CHECKS`` (a
    check of each of its commands' values, by name); ``prog``,
    ``description`` and ``library``: as :func:`parser` takes them.

    Examples
    --------
    >>> import types
    >>> def add_commands(commands):
    ...     commands.add_parser("hello").add_argument("--times", type=int)
    >>> hello = types.SimpleNamespace(
    ...     add_commands=add_commands, CHECKS={"hello": lambda args, command: None}
    ... )
    >>> args, _ = parse(["hello", "--times", "3"], extra=[hello])
    >>> args.command, args.times
    ('hello', 3)
    """
    if argv is not None and (
        isinstance(argv, str) or not all(isinstance(a, str) for a in argv)
    ):
        raise TypeError(f"argv must be a list of strs (as sys.argv[1:]); got {argv!r}.")
    commands = parser(extra=extra, prog=prog, description=description, library=library)
    for command in commands.commands.choices.values():
        command.error = _one_line_error(command)
    args, unknown = commands.parse_known_args(argv)
    # Errors name the command and show its usage, not the program's.
    command = commands.commands.choices[args.command]
    if unknown:
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    checks = {**_CHECKS} if library else {}
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


#: The most workers a command takes:
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
    problem = writable_problem(args.out) or outputs_problem(
        args.out, inputs=(args.csv,)
    )
    if problem is not None:  # as every command checks --out first
        fail(problem)
    # The messages name compare_csv's arguments as this command's options.
    options = {
        action.dest: action.option_strings[0]
        for action in commands._actions
        if action.option_strings
    }
    try:
        check_csv_header(args.csv, args.target)  # no pandas for these
        X, y, task = read_table(args.csv, args.target, args.task, options=options)
        check_folds(y, task, args.cv, options=options)
    except CsvProblem as exc:
        fail(" ".join(str(exc).split()))
    categories = [f"{name!r} ({X[name].nunique()} values)" for name in text_columns(X)]
    if categories:  # said before training, from the table read here
        print(
            f"{commands.prog}: read as categories (one-hot encoded in each fold): "
            f"{', '.join(categories)}",
            file=sys.stderr,
        )


#: A scheduler address: [protocol://]host:port.
_ADDRESS = re.compile(
    r"^(?:([a-z]+)://)?(?:\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):([0-9]{1,5})$"
)
#: The protocols a Dask scheduler listens on across processes.
_SCHEDULER_PROTOCOLS = ("tcp", "tls", "ucx", "ws", "wss")


def check_scheduler(args, fail):
    """``--scheduler``: None or an address ``[protocol://]host:port`` (an
    IPv6 host in brackets, ``[::1]``), else ``fail`` with one line (before
    anything is made or connected)."""
    if args.scheduler is None:
        return
    match = _ADDRESS.match(args.scheduler) if isinstance(args.scheduler, str) else None
    if (
        match is None
        or not 1 <= int(match.group(2)) <= 65535
        or match.group(1) not in (None, *_SCHEDULER_PROTOCOLS)
    ):
        fail(
            f"--scheduler must be an address like tcp://host:8786 (a protocol "
            f"among {', '.join(_SCHEDULER_PROTOCOLS)}, a port from 1 to 65535); "
            f"got {args.scheduler!r}."
        )
    if find_spec("distributed") is None:  # found now, not after torch loads
        fail(
            f"--scheduler {args.scheduler} needs dask.distributed, which is not "
            "installed: pip install 'skgate[dask]'."
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


def parser(*, extra=(), prog="python -m skgate", description=None, library=True):
    """The argument parser of ``python -m skgate`` (its values unchecked:
    :func:`parse` checks them): the library's command, ``compare``, and the
    commands of each module in ``extra`` (its ``add_commands(commands)``
    adds them; the repository's reproduction study passes its own, with
    ``library=False``, ``prog`` and ``description`` for a command line of
    its own). Each command's parser is in ``parser().commands.choices``,
    by name.

    Examples
    --------
    >>> sorted(parser().commands.choices)
    ['compare']
    >>> parser().parse_args(["compare", "data.csv", "--target", "y"]).target
    'y'
    >>> import types
    >>> hello = types.SimpleNamespace(
    ...     add_commands=lambda commands: commands.add_parser("hello")
    ... )
    >>> sorted(parser(extra=[hello], prog="hello", library=False).commands.choices)
    ['hello']
    """
    parser = argparse.ArgumentParser(
        prog=prog,
        description=_DESCRIPTION if description is None else description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True)
    parser.commands = commands  # each command's parser, by name: .choices
    for more in extra:
        more.add_commands(commands)
    if library:
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
        choices=list(_options.TASKS),
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
    compare.add_argument(
        "--baselines",
        choices=("auto", "none"),
        default="auto",
        help="auto (default): a linear model and gradient boosting beside the "
        "gates, tested against them; none: the gates alone",
    )
    compare.add_argument("--random-state", type=int, default=0)
    compare.add_argument("--n-jobs", type=int, default=1, help="fits in parallel")
    compare.add_argument(
        "--out", default="compare", help="output folder (default: compare)"
    )
    compare.add_argument(
        "--scheduler", default=None, help="a Dask scheduler's address: arms run there"
    )

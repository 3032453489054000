"""The study's command line, ``python -m study`` (``reproduce``, ``pilot``,
``report``, ``demo``): its arguments, defaults and checks, read without
importing torch, scikit-learn or skorch, so that ``--help`` and usage errors
answer at once.

:func:`read` reads them with the library's reader
(:func:`skgate.command.parse`, given this module's :func:`add_commands`
and :data:`CHECKS`); the commands then run in :mod:`study.cli`.
"""

import sys
from numbers import Integral
from pathlib import Path

from skgate.command import check_jobs, check_scheduler, n_jobs_problem, parse

from .paths import PROTOCOLS, RESULTS

__all__ = [
    "CHECKS",
    "DEMO_MAX_SEEDS",
    "REPRODUCE_MAX_SEEDS",
    "DEMO_SEEDS",
    "FULL_SEEDS",
    "PART_CHOICES",
    "QUICK_SEEDS",
    "DESCRIPTION",
    "PROTOCOL_FILES",
    "add_commands",
    "protocols_problem",
    "read",
]

#: The command line's description (``--help``), in plain text.
DESCRIPTION = """\
  reproduce [--quick]          the study of the paper's six claims (and
                               C1-C3 on real data): CSVs, figures and
                               REPORT.md in --out (--quick: pilot-sized)
  report --from DIR            REPORT.md again from a run's CSVs
  pilot                        the pilot the protocol's seeds came from
  replay                       committed rows fitted again, compared with
                               their CSVs
  demo                         what make demo runs: one pre-registered test
                               decided in about a minute, beside the
                               committed verdict
"""

#: Seeds per sweep of the quick run (``make demo``): a pilot-sized run, the
#: fewest with which a test can pass the primary family's Holm level (the
#: smallest sign-flip p, 1 / 2^8 = 0.0039, is below 0.05 / 12).
QUICK_SEEDS = 8
#: Seeds of the full run's exploratory study, by default
#: (:meth:`study.StudyDesign.full`).
FULL_SEEDS = 10
#: Seeds per arm and condition of ``python -m study demo`` (``make demo``):
#: the confirmatory run's first ten (the smallest sign-flip p-value, 1 / 2^10,
#: is below the primary family's strictest Holm level, 0.05 / 10).
DEMO_SEEDS = 10
#: The most it takes: the confirmatory run's seeds per arm (protocol 2's
#: arms sweep; a test holds it to study.facts.SEQUENCE_SEEDS).
DEMO_MAX_SEEDS = 99
#: The most ``reproduce --seeds`` takes: the most any confirmatory sweep of
#: either protocol takes (a test holds it to study.pipeline.MAX_SEEDS).
REPRODUCE_MAX_SEEDS = 129
#: What ``reproduce`` runs: every part, or the second confirmatory part alone.
PART_CHOICES = ("all", "sequences")


def add_commands(commands):
    """Add the study's commands to ``commands`` (an argparse subparsers
    object): ``reproduce``, ``pilot``, ``report`` and ``demo``.

    Examples
    --------
    >>> import argparse
    >>> from study import commands
    >>> parser = argparse.ArgumentParser()
    >>> commands.add_commands(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["reproduce", "--quick"]).seeds is None
    True
    """
    _add_reproduce(commands)
    pilot = commands.add_parser(
        "pilot", help="the pilot the protocol's seeds were planned from"
    )
    pilot.add_argument(
        "--protocol",
        type=int,
        choices=[1, 2],
        default=1,
        help="1: copied tokens (docs/protocol.md); 2: softmax attention over "
        "sequences (docs/protocol-2.md)",
    )
    pilot.add_argument(
        "--out",
        default=None,
        help="output folder (default: the repository's benchmarks/pilot, or "
        "benchmarks/pilot-2 "
        "for --protocol 2); a second pilot run into the same folder resumes "
        "at the sweep the first one was in",
    )
    pilot.add_argument("--n-jobs", type=int, default=1, help="parallel fits")
    again = commands.add_parser(
        "report", help="render REPORT.md again from a run's CSVs (no training)"
    )
    again.add_argument("--from", dest="source", required=True, help="the run's folder")
    again.add_argument("--out", default=None, help="output folder (default: --from)")
    again.add_argument(
        "--user-guide",
        default=None,
        help="a Markdown file whose findings block is rewritten",
    )
    replay = commands.add_parser(
        "replay",
        help="fit committed rows again from their recorded settings and compare "
        "them with the CSVs",
    )
    replay.add_argument(
        "--from",
        dest="source",
        default=str(RESULTS / "replication"),
        help="the run's folder (default: the repository's "
        "benchmarks/results/replication, whose rows this code fitted; the first "
        "run's, benchmarks/results, came from earlier code)",
    )
    replay.add_argument(
        "--file",
        dest="files",
        action="append",
        default=None,
        help="a fitted table of the run to replay (repeatable; default: all)",
    )
    rows = replay.add_mutually_exclusive_group()
    rows.add_argument(
        "--rows",
        default=None,
        help="comma-separated row numbers (from 0) to replay in each file",
    )
    rows.add_argument(
        "--sample",
        type=int,
        default=None,
        help="this many rows of each file, drawn with --seed (default: 1; "
        "--sample 0: every row, hours for a whole run)",
    )
    replay.add_argument("--seed", type=int, default=0, help="the draw of --sample")
    replay.add_argument("--n-jobs", type=int, default=1, help="parallel fits")
    replay.add_argument(
        "--rtol",
        type=float,
        default=None,
        help="relative tolerance (default: by the machine, 0 (the same number "
        "as the CSV writes it) on a CPU of the record's capability, 1e-4 "
        "elsewhere)",
    )
    demo_parser = commands.add_parser(
        "demo",
        help="protocol 2's first primary test (gated vs SiLU accuracy over "
        "softmax attention on sequences), decided in about a minute",
    )
    demo_parser.add_argument(
        "--seeds",
        type=int,
        default=DEMO_SEEDS,
        help="seeds per arm and condition, the confirmatory run's first: 2 to "
        "the run's count (below 8 no test can reach the level)",
    )
    demo_parser.add_argument("--n-jobs", type=int, default=1, help="parallel fits")
    demo_parser.add_argument(
        "--results",
        default=str(RESULTS),
        help="the committed run the demo's verdict is set beside (default: the "
        "repository's benchmarks/results)",
    )


def _add_reproduce(commands):
    """The ``reproduce`` command and its arguments."""
    study = commands.add_parser("reproduce", help="the study of the paper's claims")
    study.add_argument(
        "--quick",
        action="store_true",
        help="both parts' primary tests on pilot-sized seeds and shortened "
        "budgets (about 70 s on 2 cores)",
    )
    study.add_argument(
        "--out",
        default=str(RESULTS),
        help="output folder (default: the repository's benchmarks/results)",
    )
    study.add_argument("--n-jobs", type=int, default=1, help="parallel fits")
    study.add_argument(
        "--seeds",
        type=int,
        default=None,
        help=f"seeds: of the quick run's primary sweeps (default {QUICK_SEEDS}), or "
        f"of the full run's exploratory study (default "
        f"{FULL_SEEDS}; its primary sweeps take the protocol's)",
    )
    study.add_argument(
        "--scheduler",
        default=None,
        help="a Dask scheduler's address (e.g. tcp://host:8786): the fits run there",
    )
    study.add_argument(
        "--part",
        choices=PART_CHOICES,
        default="all",
        help="all: every part; sequences: the second confirmatory part alone "
        "(docs/protocol-2.md), into --out beside any run already there",
    )
    study.add_argument(
        "--protocols",
        default=str(PROTOCOLS),
        help="the folder of protocol.md and protocol-2.md, whose SHA-256 the "
        "run records (default: the repository's docs)",
    )
    study.add_argument(
        "--toy",
        action="store_true",
        help="also benchmark on scikit-learn's toy datasets (TOY.md)",
    )
    study.add_argument(
        "--replication",
        action="store_true",
        help="label the run a replication of the pre-registered protocols "
        "(docs/replication.md): its report keeps the first run's outcomes "
        "as the confirmatory ones",
    )


def check_reproduce(args, commands):
    fail = commands.error
    if not args.out.strip():
        fail("--out must name a folder; got an empty string.")
    check_jobs(args, fail)
    check_scheduler(args, fail)
    if args.seeds is not None and not 2 <= args.seeds <= REPRODUCE_MAX_SEEDS:
        fail(
            f"--seeds must be between 2 (for paired statistics) and "
            f"{REPRODUCE_MAX_SEEDS} (the most a confirmatory sweep takes); got "
            f"{args.seeds}."
        )
    if args.seeds is not None and args.part == "sequences" and not args.quick:
        fail(
            "--seeds with --part sequences needs --quick: the confirmatory run "
            "takes the seeds docs/protocol-2.md fixed."
        )
    if args.replication and (
        args.quick or args.part != "all" or args.seeds is not None or not args.toy
    ):
        fail(
            "--replication runs the whole study as the first run ran it (--part "
            "all and --toy, without --quick or --seeds); a replication of a part, "
            "of other seeds or of a pilot-sized run is none."
        )
    if args.toy and args.part != "all":
        fail(
            f"--toy runs with --part all only (the toy datasets join a whole "
            f"run); got --part {args.part}."
        )

    problem = protocols_problem(args.protocols, "--protocols")
    if problem is not None:
        fail(problem)


def check_pilot(args, commands):
    check_jobs(args, commands.error)


def check_demo(args, commands):
    if not 2 <= args.seeds <= DEMO_MAX_SEEDS:
        commands.error(
            f"--seeds must be between 2 and {DEMO_MAX_SEEDS} (the confirmatory "
            f"run's seeds per arm); got {args.seeds}."
        )
    check_jobs(args, commands.error)


def check_report(args, commands):
    source = Path(args.source)
    if not (source / "run.json").is_file():
        what = "holds no run.json" if source.is_dir() else "is not a folder"
        if not source.exists():
            what = "does not exist"
        commands.exit(
            2,
            f"{commands.prog}: error: --from {str(source)!r} {what}; allowed: "
            "the folder of a run of python -m study reproduce (with its "
            "run.json).\n",
        )


def check_replay(args, commands):
    check_jobs(args, commands.error)
    if args.rows is not None:
        try:
            args.rows = [int(row) for row in args.rows.split(",")]
        except ValueError:
            commands.error(
                f"--rows must be row numbers separated by commas (e.g. 0,5,17); "
                f"got {args.rows!r}."
            )
        if min(args.rows) < 0:
            commands.error(f"--rows must be row numbers >= 0; got {args.rows}.")
    if args.sample is not None and args.sample < 0:
        commands.error(f"--sample must be >= 0 (0: every row); got {args.sample}.")
    if args.rtol is not None and (not args.rtol >= 0 or args.rtol == float("inf")):
        commands.error(f"--rtol must be a finite number >= 0; got {args.rtol}.")
    check_report(args, commands)  # the folder last: the values are the user's


#: Each of the study's commands' checks of its arguments' values.
CHECKS = {
    "replay": check_replay,
    "reproduce": check_reproduce,
    "pilot": check_pilot,
    "demo": check_demo,
    "report": check_report,
}


#: The pre-registered protocols a run records the SHA-256 of.
PROTOCOL_FILES = ("protocol.md", "protocol-2.md")


def protocols_problem(folder, name="protocols"):
    """Why ``folder`` cannot be the study's protocols folder (it is not a
    folder, or lacks one of :data:`PROTOCOL_FILES`), or None."""
    folder = Path(folder)
    if not folder.is_dir():
        return (
            f"{name} must be the folder of {' and '.join(PROTOCOL_FILES)}; got "
            f"{str(folder)!r}, which is not a folder."
        )
    missing = [f for f in PROTOCOL_FILES if not (folder / f).is_file()]
    if missing:
        return (
            f"{name} {str(folder)!r} holds no {' and no '.join(missing)}; allowed: "
            f"the folder of the study's pre-registered {' and '.join(PROTOCOL_FILES)} "
            f"(the repository's docs, by default)."
        )
    return None


def read(argv=None):
    """The study's command line ``argv`` (default: ``sys.argv[1:]``) read and
    checked: ``(args, parser)``, as :func:`skgate.command.parse` answers.

    Examples
    --------
    >>> args, _ = read(["demo", "--seeds", "12"])
    >>> args.command, args.seeds
    ('demo', 12)
    """
    return parse(
        argv,
        extra=[sys.modules[__name__]],
        prog="python -m study",
        description=DESCRIPTION,
        library=False,
    )


def check_n_jobs(n_jobs):
    """``n_jobs`` of the study's Python API (``reproduce``, ``demo``), as
    ``--n-jobs`` is checked on the command line
    (:func:`skgate.command.n_jobs_problem`); refused by name."""
    problem = n_jobs_problem(n_jobs)
    if problem is None:
        return
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral):
        raise TypeError(problem)
    raise ValueError(problem)

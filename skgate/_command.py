"""``python -m skgate``: the study's and compare's command line.

The arguments are read here, without importing torch, scikit-learn or
skorch: ``--help`` and usage errors answer at once; a valid command then
runs in :mod:`skgate.study.cli`.
"""

import argparse

from . import _options

#: The command line's description (``--help``).
_DESCRIPTION = """``python -m skgate``: reproduce, compare, report, pilot, demo.

``reproduce [--quick] [--out DIR] [--n-jobs N] [--seeds K] [--toy]`` runs the
study of the paper's six claims (and C1-C3 on real data) and writes CSVs, PNG
figures and REPORT.md into DIR (``make demo`` runs its quick form). ``demo``
fits ungated, SiLU and gated classifiers on three tasks and prints their
held-out accuracy.
"""

#: Seeds per sweep of the quick run (``make demo``): a pilot-sized run, the
#: fewest with which a test can pass the primary family's Holm level (the
#: smallest sign-flip p, 1 / 2^8 = 0.0039, is below 0.05 / 12).
QUICK_SEEDS = 8
#: Seeds of the full run's exploratory study, by default
#: (:meth:`skgate.study.StudyDesign.full`).
FULL_SEEDS = 10
#: What ``reproduce`` runs: every part, or the second confirmatory part alone.
PARTS = ("all", "sequences")


def parse(argv=None):
    """The command line ``argv`` (default: ``sys.argv[1:]``) read: ``(args,
    parser)``. ``--help`` and usage errors exit here (code 0 and 2)."""
    commands = parser()
    return commands.parse_args(argv), commands


def parser():
    parser = argparse.ArgumentParser(prog="python -m skgate", description=_DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True)
    study = commands.add_parser("reproduce", help="the study of the paper's claims")
    study.add_argument(
        "--quick",
        action="store_true",
        help="both parts' primary tests on pilot-sized seeds and shortened "
        "budgets (about 70 s on 2 cores)",
    )
    study.add_argument(
        "--out",
        default="benchmarks/results",
        help="output folder (default: benchmarks/results)",
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
        choices=PARTS,
        default="all",
        help="all: every part; sequences: the second confirmatory part alone "
        "(docs/protocol-2.md), into --out beside any run already there",
    )
    study.add_argument(
        "--toy",
        action="store_true",
        help="also benchmark on scikit-learn's toy datasets (TOY.md)",
    )
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
        help="output folder (default: benchmarks/pilot, or benchmarks/pilot-2 "
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
    _add_compare(commands)
    demo_parser = commands.add_parser(
        "demo", help="accuracy of ungated, SiLU and gated attention on three tasks"
    )
    demo_parser.add_argument("--n-samples", type=int, default=1000)
    demo_parser.add_argument("--max-epochs", type=int, default=_options.MAX_EPOCHS)
    demo_parser.add_argument("--random-state", type=int, default=0)
    return parser


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
        help=f"k-fold repeats (default {_options.COMPARE_REPEATS})",
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
        help=f"smallest score difference of interest (default "
        f"{_options.SCORE_MARGIN:g})",
    )
    compare.add_argument("--head", choices=list(_options.HEADS), default="mlp")
    compare.add_argument("--max-epochs", type=int, default=_options.MAX_EPOCHS)
    compare.add_argument("--random-state", type=int, default=0)
    compare.add_argument("--n-jobs", type=int, default=1, help="fits in parallel")
    compare.add_argument("--out", default="compare", help="output folder")
    compare.add_argument(
        "--scheduler", default=None, help="a Dask scheduler's address: arms run there"
    )

    def one_line(message):  # argparse's own errors too: one line, exit code 2
        compare.exit(2, f"{compare.prog}: error: {message}\n")

    compare.error = one_line

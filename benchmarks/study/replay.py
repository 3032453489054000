"""Replay (``python -m study replay``): committed rows fitted again from
their recorded settings and compared with the CSV, number by number.

A run's folder holds each sweep's rows in the order of its settings, and
run.json says what was run (its command, or the design a shrunken run was
given, and which parts ran), so the settings come again from the record
(:func:`recorded_job`) and each part gives its rows' fits
(:meth:`study.part.Part.refits`). A row is refitted alone (a batch of one:
the same bits as in its batch, :func:`skgate.parallel.fit_together`),
measured as its part measures it, written as the run writes its CSVs (10
significant digits, timings left out) and read back, so that "identical"
means the same text in every cell. Those bits are expected only on a CPU
of the record's capability (:func:`study.machine.platform_case`); on
another, or where the record does not name its CPU, a row "agrees" when
every number is within :data:`study.machine.CROSS_CPU_RTOL` of the CSV's
and every other cell is the same, and the report says which case it is in.
"""

import argparse
import contextlib
import io
from numbers import Integral, Real
from pathlib import Path

import numpy as np
import pandas as pd

from . import machine, pipeline, runfiles, sweeps
from . import parts as registry
from .commands import add_commands, check_n_jobs
from .part import Job
from .parts.exploratory import load_design
from .parts.toy_datasets import PART as TOY_PART
from .paths import RESULTS
from .replication import REPLICATION

__all__ = ["REPLAYED", "RTOL", "recorded_job", "replay", "replay_lines", "replayable"]

#: Relative tolerance by default: chosen by the machine (None): 0 (the same
#: number as the CSV writes it) on a CPU of the record's capability,
#: :data:`study.machine.CROSS_CPU_RTOL` elsewhere.
RTOL = None
#: The run replayed by default: the replication, whose rows this code fitted.
REPLAYED = RESULTS / REPLICATION
#: The command lines a run records, by the name it had then.
_COMMANDS = ("python -m study reproduce", "python -m skgate reproduce")


def recorded_job(folder, info):
    """The :class:`~study.part.Job` the run in ``folder`` ran, from its
    run.json ``info``: its command's options, or (a shrunken run) the
    design it recorded; the exploratory design the run recorded wherever it
    recorded one. A command it cannot read is a ValueError."""
    folder = Path(folder)
    command = str(info.get("command", ""))
    toy = TOY_PART.label in info.get("seconds", {})
    design = load_design(info) if "design" in info else None
    if command.startswith("study.reproduce(design="):
        return Job(folder, design=design, shrunk=True, toy=toy, command=command)
    head = next((c for c in _COMMANDS if command.startswith(c)), None)
    if head is None:
        raise ValueError(
            f"{folder / 'run.json'}: its command {command!r} is not a run of "
            f"{_COMMANDS[0]!r}; replay reads the settings from that command."
        )
    args = _read_command(command, head, folder)
    job = pipeline.make_job(
        folder,
        quick=args.quick,
        seeds=args.seeds,
        n_jobs=1,
        design=None,
        part=args.part,
        toy=toy,
        replication=args.replication,
    )
    if design is not None and job.design is not None:
        job.design = design  # the design as the run recorded it
    return job


def _read_command(command, head, folder):
    """The options of a recorded ``reproduce`` command, read by the study's
    own parser; a command it would refuse is a ValueError naming run.json."""
    parser = argparse.ArgumentParser(prog="study", exit_on_error=False, add_help=False)
    add_commands(parser.add_subparsers(dest="command"))
    rest = command[len(head) :]
    problem = None
    if rest and not rest.startswith(" "):
        problem = "it names another command"
    else:
        said = io.StringIO()
        try:
            with contextlib.redirect_stderr(said):  # argparse's own words
                args, extra = parser.parse_known_args(["reproduce", *rest.split()])
        except (argparse.ArgumentError, SystemExit) as exc:
            lines = said.getvalue().strip().splitlines()
            problem = (lines[-1] if lines else str(exc)).split("error: ")[-1]
        else:
            if extra:
                problem = f"it has options reproduce does not take: {extra}"
            elif args.seeds is not None and not 2 <= args.seeds <= pipeline.MAX_SEEDS:
                problem = f"--seeds {args.seeds} is not from 2 to {pipeline.MAX_SEEDS}"
    if problem is not None:
        raise ValueError(
            f"{folder / 'run.json'}: its command {command!r} is not one reproduce "
            f"runs ({problem}); replay reads the settings from that command."
        )
    return args


def replayable(folder):
    """The fitted tables of the run in ``folder`` that replay can refit, by
    part: part name -> {file name -> the joblib jobs of its rows, in row
    order}, for each part the run ran."""
    folder = Path(folder)
    if not (folder / "run.json").is_file():
        raise ValueError(
            f"{folder} holds no run.json: replay needs the folder of a run of "
            "python -m study reproduce."
        )
    info = runfiles.load_info(folder)
    job = recorded_job(folder, info)
    ran = info.get("parts")  # which parts ran, where run.json says
    tables = {}
    for part in registry.PARTS:
        if not part.runs(job) or job.part not in ("all", part.name):
            continue
        refits = part.refits(job)
        present = {f: jobs for f, jobs in refits.items() if (folder / f).is_file()}
        missing = [f for f in refits if f not in present]
        if missing and (present or (ran is not None and part.name in ran)):
            raise ValueError(
                f"{', '.join(missing)} missing in {folder}: the {part.name} part "
                "ran there, so its tables are incomplete; nothing to compare."
            )
        if present:
            tables[part.name] = present
    if not tables:
        raise ValueError(f"the run in {folder} holds no fitted table to replay.")
    return tables


def _check(files, rows, sample, seed, rtol, progress):
    """replay's arguments, each refused by name with what it allows."""
    if files is not None and (
        not isinstance(files, list | tuple)
        or not all(isinstance(f, str) for f in files)
        or not files
    ):
        raise TypeError(f"files must be a non-empty list of file names; got {files!r}.")
    if rows is not None and (
        not isinstance(rows, list | tuple)
        or not all(isinstance(r, Integral) and not isinstance(r, bool) for r in rows)
        or not rows
    ):
        raise TypeError(f"rows must be a non-empty list of row numbers; got {rows!r}.")
    if sample is not None and (
        isinstance(sample, bool) or not isinstance(sample, Integral) or sample < 1
    ):
        raise ValueError(
            f"sample must be an int >= 1 (or None: every row); got {sample!r}."
        )
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise ValueError(f"seed must be an int >= 0; got {seed!r}.")
    if rtol is not None and (
        isinstance(rtol, bool)
        or not isinstance(rtol, Real)
        or not 0 <= rtol < float("inf")
    ):
        raise ValueError(f"rtol must be a finite number >= 0; got {rtol!r}.")
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False; got {progress!r}.")


def _chosen(tables, folder, files, rows, sample, seed):
    """(file, row, job) for each row asked for (each row once), and the
    committed tables read, by file."""
    files = list(tables) if files is None else list(dict.fromkeys(files))
    rows = None if rows is None else [int(r) for r in dict.fromkeys(rows)]
    unknown = [f for f in files if f not in tables]
    if unknown:
        raise ValueError(
            f"files {unknown} are not fitted tables of the run in {folder}; "
            f"allowed: {sorted(tables)}."
        )
    if rows is not None and sample is not None:
        raise ValueError("give rows or sample, not both.")
    rng = np.random.default_rng(seed)
    chosen = []
    committed = {}
    for file in files:
        jobs = tables[file]
        committed[file] = runfiles.read_csv(folder / file, count_seeds=False)
        count = len(committed[file])
        if count != len(jobs):
            raise ValueError(
                f"{folder / file} holds {count} rows, but the run's record "
                f"gives {len(jobs)} fits for it; the file is not that run's."
            )
        if rows is not None:
            bad = [r for r in rows if not 0 <= r < count]
            if bad:
                raise ValueError(
                    f"rows {bad} are not rows of {file}: it has rows 0 to {count - 1}."
                )
            picked = list(rows)
        elif sample is not None:
            picked = sorted(rng.choice(count, size=min(sample, count), replace=False))
        else:
            picked = range(count)
        chosen += [(file, int(r), jobs[r]) for r in picked]
    return chosen, committed


def _differences(committed, refit):
    """The columns where ``refit`` (a row) is not ``committed`` (a row):
    (column, committed value, refit value, relative difference; inf where
    a value is not a number)."""
    found = []
    for column in committed.index.union(refit.index, sort=False):
        a, b = committed.get(column, "(no column)"), refit.get(column, "(no column)")
        if pd.isna(a) and pd.isna(b):
            continue
        numbers = all(
            isinstance(v, int | float | np.number) and not isinstance(v, bool)
            for v in (a, b)
        )
        if numbers and not (pd.isna(a) or pd.isna(b)):
            gap = abs(float(a) - float(b))
            if gap:
                found.append((column, a, b, gap / max(abs(float(a)), abs(float(b)))))
        elif a != b:
            found.append((column, a, b, np.inf))
    return found


def replay(
    folder=None,
    *,
    files=None,
    rows=None,
    sample=None,
    seed=0,
    n_jobs=1,
    rtol=RTOL,
    progress=True,
):
    """Fit committed rows again and compare each with the CSV.

    Parameters
    ----------
    folder : path, default: the repository's benchmarks/results/replication
        A run's folder (its run.json and CSVs). The default is the
        replication, whose rows this code fitted; the first run's
        (benchmarks/results) came from earlier code and differ.
    files : list of str, optional
        Its fitted tables to replay (default: all, :func:`replayable`).
    rows : list of int, optional
        Row numbers (from 0, as pandas counts them) to replay in each file.
    sample : int, optional
        Instead, this many rows of each file, drawn with ``seed``.
        Neither: every row (hours for a whole run).
    seed : int, default=0
        The draw of ``sample``.
    n_jobs : int, default=1
        joblib's workers; the rows do not depend on it.
    rtol : float or None, default=None
        Relative tolerance, finite and >= 0; 0: the same number as the CSV
        writes it. None: by the machine, 0 on a CPU of the record's
        capability and :data:`study.machine.CROSS_CPU_RTOL` elsewhere.
    progress : bool, default=True
        A progress bar on stderr, counting fits.

    Returns
    -------
    pandas.DataFrame
        One row per refitted row: ``file``, ``row``, ``identical`` (every
        cell the same as the CSV writes it), ``agrees`` (every number within
        ``rtol``), ``columns`` (those that differ),
        ``largest`` (the largest difference: column, committed and refit
        values). Its ``attrs`` hold the machine's ``case`` (same, other or
        unknown: :func:`study.machine.platform_case`), the sentence that
        says it (``platform``) and the ``rtol`` used.
    """
    folder = Path(REPLAYED if folder is None else folder)
    _check(files, rows, sample, seed, rtol, progress)
    check_n_jobs(n_jobs)
    tables = {
        file: jobs
        for by_part in replayable(folder).values()
        for file, jobs in by_part.items()
    }
    chosen, committed = _chosen(tables, folder, files, rows, sample, seed)
    case, sentence = machine.platform_case(runfiles.load_info(folder))
    if rtol is None:
        rtol = 0.0 if case == machine.SAME else machine.CROSS_CPU_RTOL
    refits = sweeps.parallel_rows(
        [job for _, _, job in chosen],
        n_jobs=n_jobs,
        progress=progress,
        description="replay",
    )
    by_file = {}
    for (file, row, _), refit in zip(chosen, refits, strict=True):
        by_file.setdefault(file, []).append((row, refit))
    results = []
    for file, pairs in by_file.items():
        written = runfiles.as_written(pd.DataFrame([refit for _, refit in pairs]))
        for position, (row, _) in enumerate(pairs):
            found = _differences(committed[file].iloc[row], written.iloc[position])
            largest = max(found, key=lambda d: d[3]) if found else None
            results.append(
                {
                    "file": file,
                    "row": row,
                    "identical": not found,
                    "agrees": all(d[3] <= rtol for d in found),
                    "columns": ", ".join(str(d[0]) for d in found),
                    "largest": ""
                    if largest is None
                    else f"{largest[0]}: {largest[1]} committed, {largest[2]} refit",
                }
            )
    frame = pd.DataFrame(
        results, columns=["file", "row", "identical", "agrees", "columns", "largest"]
    )
    frame.attrs.update(case=case, platform=sentence, rtol=rtol)
    return frame


def replay_lines(frame, folder):
    """The replay's report: the machine's case, a line per row, then the
    counts."""
    rtol = frame.attrs.get("rtol", 0.0)
    what = "the same number in every cell, as the CSV writes it (10 significant digits)"
    if rtol:
        what += f"; within a relative {rtol:g} it agrees"
    lines = [f"Replay of {len(frame)} row(s) of {folder} ({what}):"]
    if frame.attrs.get("platform"):
        lines.insert(0, frame.attrs["platform"])
    for row in frame.itertuples(index=False):
        verdict = "identical"
        if not row.identical:
            verdict = f"differs in {row.columns} ({row.largest})"
            verdict = f"agrees within {rtol:g}; {verdict}" if row.agrees else verdict
        lines.append(f"  {row.file} row {row.row}: {verdict}")
    same, agree = int(frame["identical"].sum()), int(frame["agrees"].sum())
    counts = f"{same} of {len(frame)} identical"
    if rtol:
        counts += f", {agree - same} more within {rtol:g}"
    lines.append(f"{counts}; {len(frame) - agree} differ.")
    return lines

"""The study as one pipeline: ``reproduce`` runs the parts, each the same way.

For each registered part (:data:`study.parts.PARTS`) the job runs:
the part's sweeps (settings x seeds) are fitted by the one runner
(:func:`study.sweeps.run_sweep`), each written to its CSV as soon as
it ends (an interrupted run keeps the sweeps it finished); the part then
finishes (its other tables) and gives its record. run.json holds the
records, the machine and each part's wall time; REPORT.md is rendered from
the files alone (:func:`study.report.render_run`), so ``python -m
study report --from DIR`` reproduces it byte for byte.
"""

import contextlib
import os
import shutil
import tempfile
import time
from numbers import Integral
from pathlib import Path

from numpy import bool_ as np_bool

from . import machine, plots, render, report, runfiles, sweeps
from . import parts as registry
from .commands import check_n_jobs, protocols_problem
from .design import StudyDesign
from .facts import COPIED_FIRST_SEED, COPIED_SEEDS, SEQUENCE_SEEDS
from .part import Job, log
from .paths import PROTOCOLS

__all__ = ["MAX_SEEDS", "make_job", "reproduce", "run_part", "run_sweeps"]


def run_sweeps(part, job):
    """``part``'s sweeps fitted (each fit measured by ``part.measure``), each
    to its CSV in ``job.out`` as soon as it ends; the frames by sweep. The
    quick run logs no line per sweep and erases its progress bars."""
    settings_by_sweep = part.settings(job)
    empty = [name for name, settings in settings_by_sweep.items() if not settings]
    if empty:
        raise ValueError(
            f"the {part.name} part's sweeps {empty} hold no settings; a sweep "
            "fits at least one."
        )
    frames = {}
    for name, settings in settings_by_sweep.items():
        if not job.quick:
            log(f"{part.name} {name}: {len(settings)} fits")
        frame = sweeps.run_sweep(
            settings,
            n_jobs=job.n_jobs,
            description=name,
            measure=part.measure(name),
            leave=not job.quick,
        )
        if part.label_sweeps:
            frame = frame.assign(sweep=name)
        runfiles.write_csv(frame, job.out / part.file(name))
        frames[name] = frame
    return frames


def run_part(part, job):
    """Run ``part`` for ``job``: its sweeps, then the rest; its record and
    wall time into the job."""
    start, code = time.perf_counter(), runfiles.code_state()
    frames = run_sweeps(part, job)
    job.records[part.name] = part.finish(job, frames)
    job.seconds[part.label] = time.perf_counter() - start
    job.code[part.label] = {"start": code, "end": runfiles.code_state()}


def _command(quick, seeds, design, part, toy=False, replication=False):
    if design is not None:
        return f"study.reproduce(design=...) ({len(design.seeds)} seeds)"
    words = ["python -m study reproduce"]
    words += [] if part == "all" else [f"--part {part}"]
    words += ["--toy"] if toy else []
    words += ["--replication"] if replication else []
    words += ["--quick"] if quick else []
    words += [f"--seeds {seeds}"] if seeds is not None else []
    return " ".join(words)


def make_job(out, *, quick, seeds, n_jobs, design, part, toy, replication=False):
    """The job ``reproduce`` is asked for (and :mod:`study.replay` reads
    back from a run's record). The confirmatory run's
    exploratory study runs on its own design (``seeds`` from the first
    confirmatory seed); a given design shrinks every part."""
    job = Job(
        Path(out),
        quick=quick,
        seeds=seeds,
        n_jobs=n_jobs,
        design=design,
        shrunk=design is not None,
        toy=toy,
        part=part,
        replication=replication,
        command=_command(quick, seeds, design, part, toy, replication),
    )
    if design is None and not quick:
        job.design = StudyDesign.full(
            **({} if seeds is None else {"n_seeds": seeds}),
            first_seed=COPIED_FIRST_SEED,
        )
    return job


#: The most seeds ``reproduce`` takes: the most any confirmatory sweep of
#: either protocol takes (more is a typo, and 10^11 ran out of memory).
MAX_SEEDS = max(*COPIED_SEEDS.values(), *SEQUENCE_SEEDS.values())


def _check_arguments(out, quick, seeds, n_jobs, design, user_guide, part, toy):
    """``reproduce``'s arguments, each refused by name before anything is
    fitted or written."""
    if not isinstance(out, str | os.PathLike):
        raise TypeError(f"out must be a folder's path (a str or a Path); got {out!r}.")
    if not str(out).strip():
        raise ValueError(f"out must name a folder; got {out!r}.")
    for name, flag in (("quick", quick), ("toy", toy)):
        if not isinstance(flag, bool | np_bool):
            raise TypeError(f"{name} must be a bool; got {flag!r}.")
    choices = ["all", *(p.name for p in registry.PARTS)]
    if part not in choices:
        raise ValueError(f"part must be one of {choices}; got {part!r}.")
    if toy and part != "all":
        raise ValueError(
            f"toy=True runs with part='all' only (the toy datasets join a whole "
            f"run); got part={part!r}."
        )
    allowed = (
        f"None or an int from 2 to {MAX_SEEDS} (at least 2 for the paired "
        f"statistics; at most the most seeds a confirmatory sweep takes)"
    )
    if seeds is not None:
        if isinstance(seeds, bool) or not isinstance(seeds, Integral):
            raise TypeError(f"seeds must be {allowed}; got {seeds!r}.")
        if not 2 <= seeds <= MAX_SEEDS:
            raise ValueError(f"seeds must be {allowed}; got {seeds!r}.")
    if design is not None and not isinstance(design, StudyDesign):
        raise TypeError(
            f"design must be None or a StudyDesign (e.g. StudyDesign.quick()); "
            f"got {design!r}."
        )
    if seeds is not None and design is not None:
        raise ValueError(
            f"seeds={seeds!r} and design cannot both be given: a design runs "
            f"every part on its own seeds ({len(design.seeds)}); allowed: one of "
            f"them."
        )
    if seeds is not None and part == "sequences" and not quick:
        raise ValueError(
            f"seeds={seeds!r} with part='sequences' needs quick=True: the "
            f"confirmatory run takes the seeds docs/protocol-2.md fixed."
        )
    check_n_jobs(n_jobs)
    if user_guide is not None:
        _check_user_guide(user_guide)


def _check_user_guide(user_guide):
    """A Markdown page with the findings block the run rewrites."""
    if not isinstance(user_guide, str | os.PathLike):
        raise TypeError(
            f"user_guide must be None or a Markdown file's path; got {user_guide!r}."
        )
    page = Path(user_guide)
    if not page.is_file():
        raise ValueError(
            f"user_guide={str(user_guide)!r} is not a file; allowed: None or a "
            f"Markdown page holding the findings block to rewrite."
        )
    start, end = report.USER_GUIDE_MARKERS
    if start not in page.read_text(errors="replace"):
        raise ValueError(
            f"user_guide={str(user_guide)!r} has no {start} ... {end} block to "
            f"rewrite; allowed: None or a Markdown page holding it."
        )


def reproduce(
    out,
    *,
    quick=False,
    seeds=None,
    n_jobs=1,
    design=None,
    user_guide=None,
    part="all",
    toy=False,
    protocols=PROTOCOLS,
    replication=False,
):
    """Run the study and write CSVs, figures, REPORT.md (and EXPLORATORY.md)
    into ``out``; the primary verdicts by claim.

    The confirmatory run (default) runs every registered part
    (:data:`study.parts.PARTS`): the second confirmatory part
    (softmax attention over sequences, docs/protocol-2.md) and the first
    (copied tokens, docs/protocol.md) on their protocols' seeds, then the
    exploratory study and the theorem's setting (10 seeds from the first
    confirmatory seed; ``seeds`` sets how many). ``part`` (a registered
    part's name, e.g. "sequences": the second part) runs that part alone
    into ``out``, beside a run already there.
    ``quick``: the confirmatory parts only, on
    :data:`~study.facts.QUICK_SEEDS` seeds (the second part on
    :data:`~study.facts.QUICK_SEQUENCE_SEEDS`, at most 30 epochs;
    ``seeds`` overrides both counts), for ``make demo``. ``seeds``: None or
    2 to :data:`MAX_SEEDS`; not with ``design``, nor with
    ``part="sequences"`` outside the quick run. ``design`` (a
    :class:`~study.StudyDesign`) runs every part on its seeds and
    fixed keys, and the exploratory study as it says (the tests' shrunken
    study). ``toy``: the toy datasets too. ``user_guide``: a Markdown file
    whose findings block is rewritten. ``protocols``: the folder holding
    ``protocol.md`` and ``protocol-2.md``, whose SHA-256 the run records
    (default: the repository's ``docs``). ``n_jobs``: joblib's workers,
    a nonzero int from -1024 to 1024 (-1: every core, -2: all but one).
    Every argument is checked before anything
    is fitted or written.
    """
    _check_arguments(out, quick, seeds, n_jobs, design, user_guide, part, toy)
    if replication is not True and replication is not False:
        raise TypeError(f"replication must be True or False; got {replication!r}.")
    if replication and (quick or part != "all" or seeds is not None or not toy):
        raise ValueError(
            "replication runs the whole study as the first run ran it "
            "(part='all' and toy=True, without quick or seeds); a replication "
            "of a part, of other seeds or of a pilot-sized run is none."
        )
    start = time.perf_counter()
    problem = protocols_problem(protocols)
    if problem is not None:
        raise ValueError(problem)
    registry.check()
    job = make_job(
        out,
        quick=quick,
        seeds=seeds,
        n_jobs=n_jobs,
        design=design,
        part=part,
        toy=toy,
        replication=replication,
    )
    job.protocols = Path(protocols)
    chosen = [
        p for p in registry.PARTS if (part == "all" or p.name == part) and p.runs(job)
    ]
    plots.pyplot()  # fail now, not after the sweeps, if matplotlib is missing
    for p in chosen:
        p.check(job)
    job.out.mkdir(parents=True, exist_ok=True)
    if part != "all":
        return _reproduce_alone(registry.by_name(part), job, user_guide)
    for p in chosen:
        _clear(p, job.out)
        run_part(p, job)
    info = {
        "command": job.command,
        "machine": render.machine_text(),
        **machine.machine_record(),
    }
    info["seconds"] = dict(job.seconds)
    info["code"] = dict(job.code)
    info["parts"] = [p.name for p in chosen]
    info["total seconds"] = time.perf_counter() - start
    if replication:
        info["replication"] = True
    for p in chosen:
        p.store(info, job.records[p.name])
    runfiles.save_run_info(job.out, info)
    for p in chosen:
        p.after_saved(job)
    results = report.render_run(job.out, user_guide=user_guide)
    if not quick:  # the quick run's console summary names its report
        log(f"wrote {job.out / 'REPORT.md'}")
    return report.primary_verdicts(results)


def _clear(part, out):
    """Remove what an earlier run of ``part`` left in ``out``."""
    for file in part.outputs():
        (out / file).unlink(missing_ok=True)


@contextlib.contextmanager
def _restored_unless_done(part, out):
    """While ``part`` runs again in ``out``: a copy of its earlier files,
    run.json and REPORT.md, put back if the run does not finish (Ctrl-C, an
    error), so that an interrupted run leaves the folder as it was."""
    files = [*part.outputs(), "run.json", "REPORT.md"]
    kept = [file for file in files if (out / file).is_file()]
    aside = Path(tempfile.mkdtemp(dir=out, prefix=f".previous-{part.name}-"))
    try:
        for file in kept:
            shutil.copy2(out / file, aside / file)
        try:
            yield
        except BaseException:
            _clear(part, out)
            for file in kept:
                os.replace(aside / file, out / file)
            log(f"the {part.name} part did not finish; the folder is as it was")
            raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def _reproduce_alone(part, job, user_guide):
    """``part`` alone, into a folder beside whatever run is there: an earlier
    run of it is removed first (its files and record, and the folder's
    REPORT.md rendered again without it, so that the folder never mixes two
    runs of it), and put back if this run does not finish."""
    out = job.out
    if not part.runs(job):
        raise ValueError(f"the {part.name} part does not run in this job.")
    with _restored_unless_done(part, out):
        _clear(part, out)
        if runfiles.remove_part(out, part.name) and (out / "REPORT.md").is_file():
            log(f"the folder's earlier run of {part.name} removed; the report again")
            report.render_run(out)
        run_part(part, job)
        _store(part, job)
        part.after_saved(job)
        results = report.render_run(out, user_guide=user_guide)
    log(f"wrote {out / 'REPORT.md'}")
    return report.primary_verdicts(results)


def _store(part, job):
    """``part``'s record and wall time into the run.json in ``job.out`` (a
    new one where there is none)."""
    if (job.out / "run.json").is_file():
        info = runfiles.load_info(job.out)
    else:
        info = {
            "command": job.command,
            "machine": render.machine_text(),
            **machine.machine_record(),
            "seconds": {},
        }
    part.store(info, job.records[part.name])
    info["seconds"][part.label] = job.seconds[part.label]
    info.setdefault("code", {})[part.label] = job.code[part.label]
    if part.name not in info.setdefault("parts", []):
        info["parts"].append(part.name)
    runfiles.save_run_info(job.out, info)

"""The toy datasets: gated attention beside scikit-learn's models on the
small datasets a user would try first (:mod:`study.toy`).

It runs with ``reproduce --toy`` and writes toy.csv, toy_timings.csv and
TOY.md; EXPLORATORY.md ends with TOY.md's summary.
"""

import time
from pathlib import Path

from .. import render_toy, runfiles, toy
from ..part import Part, log

__all__ = ["PART", "ToyDatasets", "run_toy"]


def run_toy(out, *, quick=False, n_jobs=1):
    """The toy-dataset benchmark: toy.csv, toy_timings.csv and TOY.md in ``out``.

    ``quick`` runs :data:`~study.toy.QUICK_TOY` only. Returns the rows.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = list(toy.QUICK_TOY) if quick else None
    log(f"toy datasets: {', '.join(names or toy.toy_datasets())}")
    start = time.perf_counter()
    frame = toy.run_toy_benchmark(names=names, n_jobs=n_jobs)
    seconds = time.perf_counter() - start
    runfiles.write_csv(frame, out / "toy.csv")
    frame[["dataset", "model", "fold", "fit_seconds"]].to_csv(
        out / "toy_timings.csv", index=False
    )
    (out / "TOY.md").write_text(render_toy.render_toy_report(frame, seconds))
    log(f"wrote {out / 'TOY.md'} ({seconds:.0f} s)")
    return frame


class ToyDatasets(Part):
    """Runs when the job asks for it (``--toy``); REPORT.md has no section
    of it (EXPLORATORY.md has TOY.md's summary)."""

    name = "toy"
    label = "toy datasets"

    def runs(self, job):
        return job.toy

    def finish(self, job, frames):
        run_toy(job.out, quick=job.quick, n_jobs=job.n_jobs)

    def refits(self, job):
        names = list(toy.QUICK_TOY) if job.quick else None
        return {"toy.csv": toy.toy_jobs(names=names)}

    def store(self, info, record):
        """Nothing: TOY.md and its wall time are its record."""


PART = ToyDatasets()

"""The theorem's own setting: fixed attention over sequences, and the
Fisher-Rao curvature of multi-class outputs (:mod:`study.theorem`,
which holds its settings, measurements, tests and words).

It runs beside the exploratory study (in the confirmatory run and a
shrunken study's) and renders after it in REPORT.md; the first part's
results in words end with its answer.
"""

from pathlib import Path

from .. import plots, primary, runfiles, theorem
from ..part import Part

__all__ = ["PART", "TheoremSetting", "draw_figure"]

#: The figure of its Fisher-Rao measurements.
FIGURE = "fig_fisher.png"


def draw_figure(out, design):
    """fig_fisher.png of the run in ``out`` (when it has the theorem's files):
    its Fisher-Rao measurements and three classifiers fitted to draw."""
    frames = theorem.load(out)
    if frames is None:
        return
    figure = plots.plot_fisher(
        theorem.with_task_names(frames["fisher"]),
        theorem.fit_fisher_examples(n_samples=design.n_samples),
        theorem.FISHER_RADIUS,
    )
    figure.savefig(Path(out) / FIGURE, dpi=110)
    plots.pyplot().close(figure)


class TheoremSetting(Part):
    """Runs where the exploratory study does; no record of its own."""

    name = "theorem"
    label = "theorem's setting"
    files = theorem.THEOREM_FILES

    def runs(self, job):
        return job.design is not None and not job.quick

    def settings(self, job):
        design = job.design
        fixed = {"n_samples": design.n_samples, **design.fixed}
        seeds = design.theorem_seed_list
        return {
            "sequences": theorem.sequence_settings(seeds, design.theorem_shapes, fixed),
            "fisher": theorem.fisher_settings(seeds, design.fisher_tasks, fixed),
        }

    def measure(self, sweep):
        return {"sequences": primary.measure_primary, "fisher": theorem.measure_fisher}[
            sweep
        ]

    def finish(self, job, frames):
        bayes = theorem.fisher_bayes(job.design.fisher_tasks, job.design.bayes_sizes)
        runfiles.write_csv(bayes, job.out / self.files["bayes"])

    def store(self, info, record):
        """Nothing: the exploratory study's design is its record."""

    def after_saved(self, job):
        draw_figure(job.out, job.design)

    def load(self, folder, info):
        return theorem.load(folder) if "design" in info else None

    def evaluate(self, frames, info):
        return theorem.evaluate(frames)

    def write(self, results, folder, out, info):
        theorem.write_tables(results, out)

    def section(self, results, report, folder, info):
        figure = FIGURE if (folder / FIGURE).exists() else None
        return theorem.section(results, figure)


PART = TheoremSetting()

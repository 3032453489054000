"""What a part of the study is: the contract every part keeps.

A part (a confirmatory part, the exploratory study, the theorem's setting,
the toy datasets) declares its settings, its measurements, its tests and its
section; the pipeline runs every part the same way
(:func:`study.pipeline.reproduce`: settings x seeds into rows, one CSV
per sweep) and renders every part the same way, from the files alone
(:func:`study.report.render_run`). A new part is one module with a
:class:`Part` subclass and one line in :data:`study.parts.PARTS`.
"""

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .facts import QUICK_CURVATURE_POINTS
from .paths import PROTOCOLS

__all__ = ["Job", "Part", "log"]


def log(message):
    """One line of progress on stderr, with the time."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@dataclass
class Job:
    """One ``reproduce``: where it writes and what it was asked.

    ``design``: the exploratory study's design (None: the quick run, or a
    part run alone); ``shrunk``: the caller gave it (a shrunken study in the
    tests), and the confirmatory parts run on its seeds and fixed keys
    rather than their protocols'; ``seeds``: seeds per sweep asked for
    (None: each part's own); ``toy``: run the toy datasets too; ``part``:
    the part asked for ("all": every part that runs);
    ``replication``: the run replicates the protocols' first run
    (docs/replication.md).
    ``command`` is the command line written into run.json; ``seconds``,
    ``code`` and ``records`` collect each part's wall time, the commit of the
    code at its start and end (:func:`~study.runfiles.code_state`)
    and its run.json record as the parts run.
    """

    out: Path
    quick: bool = False
    seeds: int | None = None
    n_jobs: int = 1
    design: object = None
    shrunk: bool = False
    toy: bool = False
    part: str = "all"
    replication: bool = False
    protocols: Path = PROTOCOLS
    command: str = ""
    seconds: dict = field(default_factory=dict)
    code: dict = field(default_factory=dict)
    records: dict = field(default_factory=dict)

    @property
    def fixed(self):
        """The setting keys a given design fixes for every fit (none without)."""
        return {} if self.design is None else dict(self.design.fixed)

    def confirmatory_fixed(self, epochs, patience):
        """The setting keys every fit of a confirmatory part takes: the
        design's, and in the quick run (where the design does not set them)
        :data:`~study.facts.QUICK_CURVATURE_POINTS`, at most
        ``epochs`` epochs and ``patience``."""
        fixed = self.fixed
        if self.quick:
            fixed.setdefault("n_curvature", QUICK_CURVATURE_POINTS)
            fixed.setdefault("max_epochs", epochs)
            fixed.setdefault("n_iter_no_change", patience)
        return fixed


class Part:
    """A part of the study. Subclasses set :attr:`name` and :attr:`files`
    and override what they do; the defaults do nothing, so a part states
    only what it has.

    Running (:func:`study.pipeline.reproduce`): :meth:`runs` says
    whether a job runs it; :meth:`check` fails before any work;
    :meth:`settings` gives the sweeps, which the pipeline fits (each fit
    measured by :meth:`measure`) and writes to :attr:`files`;
    :meth:`outputs` names every file it writes; :meth:`finish` does what
    follows the sweeps and returns the part's record for run.json
    (:meth:`store` puts it there); :meth:`after_saved` draws what reads the
    saved run back.

    Rendering (:func:`study.report.render_run`): :meth:`load` reads
    the frames (where run.json says the part ran), :meth:`evaluate` gives
    the results; :meth:`write` writes derived tables and figures; the report
    takes :meth:`protocol`, :meth:`bottom_line`, :meth:`findings`,
    :meth:`notes` and :meth:`section` of each part, in the registry's order.
    ``report`` is every rendered part's results, by name.
    """

    #: The part's key in the registry and in run.json.
    name = "part"
    #: Its sweeps' CSVs, by sweep name.
    files = {}
    #: Whether its CSVs have a "sweep" column naming the sweep.
    label_sweeps = False
    #: Its wall time's label in run.json.
    label = "part"
    #: Where its protocol stands in the report's header (0: it has none).
    protocol_number = 0

    def runs(self, job):
        """Whether ``job`` runs this part."""
        return True

    def check(self, job):
        """Fail (ValueError, ImportError) before any part runs."""

    def settings(self, job):
        """The sweeps the pipeline fits: settings by sweep name."""
        return {}

    def file(self, sweep):
        """The CSV that ``sweep``'s rows go to."""
        return self.files[sweep]

    def measure(self, sweep):
        """What a fit of ``sweep`` measures (``measure(clf, X_test, y_test,
        setting)`` -> dict), or None: :func:`study.sweeps.run_batch`'s
        default measurements."""
        return None

    def refits(self, job):
        """Each fitted row of the part's tables as a joblib job that fits it
        again and gives the row (``study replay``): by file, in the file's
        row order. By default its sweeps' rows, each a batch of one
        (:func:`study.sweeps.refit_setting`)."""
        from joblib import delayed

        from .sweeps import refit_setting  # here: a part's contract is light

        jobs = {}
        for sweep, settings in self.settings(job).items():
            label = sweep if self.label_sweeps else None
            measure = self.measure(sweep)
            file = self.file(sweep)
            if file in jobs:
                raise ValueError(f"the {self.name} part writes two sweeps to {file}.")
            jobs[file] = [
                delayed(refit_setting)(setting, measure, label) for setting in settings
            ]
        return jobs

    def outputs(self):
        """The files the part writes into a run's folder (its sweeps', and
        any derived tables and figures of its own), which an earlier run of
        it left and a new one replaces."""
        return list(self.files.values())

    def finish(self, job, frames):
        """After the sweeps (their frames by name): the rest of the run;
        the part's record for run.json (None: it has none)."""
        return None

    def store(self, info, record):
        """Put ``record`` into run.json's ``info``."""
        info[self.name] = record

    def after_saved(self, job):
        """Once run.json is saved: what reads the whole run back."""

    def load(self, folder, info):
        """The part's frames from ``folder`` (run.json's ``info`` says
        whether it ran); None: the run has none of it. A damaged file is a
        ValueError naming it."""
        return None

    def evaluate(self, frames, info):
        """The part's results from its frames."""
        return frames

    def write(self, results, folder, out, info):
        """The part's derived tables, figures and pages, into ``out``."""

    def protocol(self, results, info):
        """The protocol the part followed, for the report's header; None."""
        return None

    def bottom_line(self, results, report):
        """The report's bottom line (sentences) when this part gives it."""
        return None

    def findings(self, results, report, info):
        """The part's lines of the report's Findings."""
        return []

    def notes(self, folder, info, results):
        """Lines under the report's header about this part's files
        (``results``: None where the part was not rendered)."""
        return []

    def section(self, results, report, folder, info):
        """The part's section of REPORT.md (lines)."""
        return []

"""The reproduction study of "Gating Enables Curvature": one pipeline of parts.

Everything here exists to rerun the paper's claims and report which hold; it
uses the library's public API alone (its batched training too:
:func:`skgate.parallel.fit_together`); nothing in the library imports it.

- :mod:`~study.part`: what a part is (:class:`~study.part.Part`:
  its settings, measurements, tests and section) and what a run asks of it
  (:class:`~study.part.Job`);
- :mod:`~study.parts`: the registered parts, in order: the second
  confirmatory part (softmax attention over sequences), the first (copied
  tokens), the exploratory study, the theorem's setting, the toy datasets;
- :mod:`~study.pipeline`: :func:`reproduce`, which runs every part the
  same way (settings x seeds -> one CSV per sweep, then the part's record);
- :mod:`~study.report`: REPORT.md rendered from a run's files, every
  part the same way (``python -m study report --from``);
- :mod:`~study.facts`: every fact the parts share, once;
- the parts' machinery: :mod:`~study.design` (the exploratory
  design), :mod:`~study.sweeps` (the one runner),
  :mod:`~study.stats` (the one statistics module),
  :mod:`~study.primary` and :mod:`~study.sequences` (the
  protocols' settings, measurements and tests; the second's pilot and
  secondary analyses: :mod:`~study.sequences_pilot`,
  :mod:`~study.sequences_secondary`), :mod:`~study.confirmatory`
  (the tests both confirmatory parts share), :mod:`~study.claims`
  (the exploratory rules and verdicts; :mod:`~study.controls`,
  :mod:`~study.beyond`, :mod:`~study.evaluation`),
  :mod:`~study.theorem`, :mod:`~study.words` (the phrases
  every part's sentences are built from), :mod:`~study.render` (the
  exploratory page; its sections ``render_claims``, ``render_controls``,
  ``render_beyond``, ``render_summary``; TOY.md: ``render_toy``),
  :mod:`~study.plots` and :mod:`~study.plots_confirmatory`,
  :mod:`~study.runfiles`;
- :mod:`~study.commands` and :mod:`~study.cli`:
  ``python -m study``: the study's commands, their arguments (read
  without torch) and their work.
"""

import importlib
from typing import TYPE_CHECKING

#: Where each public name lives: imported on first use, so that the
#: command line can read the study's commands (:mod:`.commands`) without
#: importing torch.
_HOMES = {
    "StudyDesign": "design",
    "demo": "demo",
    "evaluate_claims": "evaluation",
    "grid": "sweeps",
    "main": "cli",
    "make_task": "sweeps",
    "reproduce": "pipeline",
    "run_setting": "sweeps",
    "run_sweep": "sweeps",
    "run_toy": "parts.toy_datasets",
    "run_toy_benchmark": "toy",
    "toy_datasets": "toy",
    "verdicts": "evaluation",
}

if TYPE_CHECKING:  # what editors and static analysis read
    from .cli import main
    from .demo import demo
    from .design import StudyDesign
    from .evaluation import evaluate_claims, verdicts
    from .parts.toy_datasets import run_toy
    from .pipeline import reproduce
    from .sweeps import grid, make_task, run_setting, run_sweep
    from .toy import run_toy_benchmark, toy_datasets


def __getattr__(name):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'study' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__():
    return sorted(__all__)


__all__ = [
    "StudyDesign",
    "demo",
    "evaluate_claims",
    "grid",
    "main",
    "make_task",
    "reproduce",
    "run_setting",
    "run_sweep",
    "run_toy",
    "run_toy_benchmark",
    "toy_datasets",
    "verdicts",
]

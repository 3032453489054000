"""The reproduction study of "Gating Enables Curvature": sweeps, claims, report, plots.

Everything here exists to rerun the paper's claims and report which hold; it
uses the library's public API and its batched training
(``skgate._training``); nothing in the library imports it.

- :mod:`~skgate.study.design`: which settings run (:class:`StudyDesign`) and
  the study's constants;
- :mod:`~skgate.study.sweeps`: settings x seeds -> one row per fit
  (:func:`grid`, :func:`run_setting`, :func:`run_sweep`), joblib-parallel,
  settings that differ in seed, alpha and learning rate trained as one batch;
- :mod:`~skgate.study.stats`: the general statistics (paired comparisons,
  trends, Holm, equivalence, outcome words);
- :mod:`~skgate.study.claims`: the exploratory claims' rules and verdicts, as
  data (:mod:`~skgate.study.controls`: C1 under controls;
  :mod:`~skgate.study.beyond`: production, real data, the depth regime;
  :mod:`~skgate.study.evaluation`: all of them evaluated);
- :mod:`~skgate.study.primary`: the confirmatory study, the executable form
  of docs/protocol.md (its design, measurements, primary and secondary
  tests, power, verdicts);
- :mod:`~skgate.study.sequences`: its second part, docs/protocol-2.md
  (:mod:`~skgate.study.sequences_pilot`: the pilot;
  :mod:`~skgate.study.sequences_secondary`: the secondary analyses);
- :mod:`~skgate.study.confirmatory`: the tests both confirmatory parts
  share (a test's spec, its statistics, a claim's verdict, power);
- :mod:`~skgate.study.theorem`: the theorem's own setting (fixed attention
  over sequences, Fisher-Rao curvature of multi-class outputs);
- :mod:`~skgate.study.report`: REPORT.md of a run, rendered from the files
  the run wrote (``python -m skgate report --from``);
- :mod:`~skgate.study.render`: the exploratory report as a string (its
  sections: ``render_claims``, ``render_controls``, ``render_beyond``,
  ``render_summary``; TOY.md: ``render_toy``);
- :mod:`~skgate.study.words`: the phrases every report's sentences use;
- :mod:`~skgate.study.plots`: the figures (matplotlib; the confirmatory
  parts': :mod:`~skgate.study.plots_confirmatory`);
- :mod:`~skgate.study.toy`: the toy-dataset benchmark;
- :mod:`~skgate.study.cli`: ``python -m skgate``, which writes the files.
"""

from .cli import main
from .demo import demo
from .design import StudyDesign
from .evaluation import evaluate_claims, verdicts
from .parts.toy_datasets import run_toy
from .pipeline import reproduce
from .sweeps import grid, make_task, run_setting, run_sweep
from .toy import run_toy_benchmark, toy_datasets

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

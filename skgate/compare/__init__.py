"""compare_gates: does gating help on *your* data, and which gate should you use?

Every gate (and alpha) is trained on the same cross-validation splits, scored
on held-out accuracy or R^2 (or ``scoring``) and on the curvature of its
representation (the scale-free turning rate by default), and every pair of
arms is tested with statistics right for splits that share training rows
(:mod:`skgate.paired`, shared with the reproduction study): the corrected
resampled t-test with Holm over the table, and beside it the Bayesian
correlated t-test, whose joint posterior also picks the gate to use.

The package, in the order a comparison runs: :mod:`~skgate.compare.design`
(the checks and the splits), :mod:`~skgate.compare.fits` (every arm on every
split), :mod:`~skgate.compare.pairs` (the tests and the recommendation),
:mod:`~skgate.compare.result` (:class:`GateComparison` and its sentences),
:mod:`~skgate.compare.gates` (:func:`compare_gates`, all of it in one call)
and :mod:`~skgate.compare.csvfile` (:func:`compare_csv`, the ``compare``
command's work). :func:`skgate.benchmark_gates` builds on the public names
of the first four.
"""

from ..command import CsvProblem
from .csvfile import compare_csv, run_command
from .design import (
    CURVATURE_MARGIN_SHARE,
    DECISION_PROBABILITY,
    DEFAULT_CV,
    DEFAULT_REPEATS,
    MAX_INFERRED_CLASSES,
    SCORE_MARGIN,
    TESTS,
    infer_task,
)
from .gates import compare_gates
from .pairs import gate_tests
from .result import GateComparison, Recommendation

__all__ = [
    "CURVATURE_MARGIN_SHARE",
    "DECISION_PROBABILITY",
    "DEFAULT_CV",
    "DEFAULT_REPEATS",
    "MAX_INFERRED_CLASSES",
    "SCORE_MARGIN",
    "TESTS",
    "GateComparison",
    "Recommendation",
    "compare_gates",
    "gate_tests",
    "infer_task",
    "compare_csv",
    "run_command",
    "CsvProblem",
]

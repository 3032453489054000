"""compare_gates: does gating help on *your* data, and which gate should you use?

Every gate (and alpha) is trained on the same cross-validation splits, scored
on held-out accuracy or R^2 (or ``scoring``) and on the curvature of its
representation (the scale-free turning rate by default), and every pair of
arms is tested with statistics right for splits that share training rows
(:mod:`skgate.paired`, shared with the reproduction study): the corrected
resampled t-test with Holm over the table, and beside it the Bayesian
correlated t-test, whose joint posterior also picks the gate to use.

The package, in the order a comparison runs: :mod:`~skgate.compare.design`
(its defaults, margins and tests, and the checks of its splits),
:mod:`~skgate.compare.pairs` (the tests and the recommendation),
:mod:`~skgate.compare.result` (:class:`GateComparison` and its sentences),
:mod:`~skgate.compare.gates` (:func:`compare_gates`, all of it in one call)
and :mod:`~skgate.compare.csvfile` (:func:`compare_csv`, the ``compare``
command's work; the CSV it reads: :mod:`~skgate.compare.table`). The
evaluation it shares with :func:`skgate.benchmark_gates` (the data, the
design, the splits, every arm on every split) is the library's private
``skgate._evaluation``, whose public names both use.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

#: Where each public name lives: imported on first use, so that the command
#: line reads a CSV (:mod:`~skgate.compare.table`) without importing torch.
_HOMES = {
    "CURVATURE_MARGIN_SHARE": "design",
    "DECISION_PROBABILITY": "design",
    "DEFAULT_CV": "design",
    "DEFAULT_REPEATS": "design",
    "MAX_INFERRED_CLASSES": "design",
    "MAX_REPEATS": "design",
    "SCORE_MARGIN": "design",
    "TESTS": "design",
    "infer_task": "design",
    "compare_gates": "gates",
    "gate_tests": "pairs",
    "GateComparison": "result",
    "Recommendation": "result",
    "compare_csv": "csvfile",
    "run_command": "csvfile",
    "CsvProblem": "table",
}

if TYPE_CHECKING:  # what editors and static analysis read
    from .csvfile import compare_csv, run_command
    from .design import (
        CURVATURE_MARGIN_SHARE,
        DECISION_PROBABILITY,
        DEFAULT_CV,
        DEFAULT_REPEATS,
        MAX_INFERRED_CLASSES,
        MAX_REPEATS,
        SCORE_MARGIN,
        TESTS,
        infer_task,
    )
    from .gates import compare_gates
    from .pairs import gate_tests
    from .result import GateComparison, Recommendation
    from .table import CsvProblem


#: The package's modules, found as attributes too (``compare.design``).
_MODULES = ("csvfile", "design", "gates", "pairs", "result", "table")


__all__ = [
    "compare_gates",
    "compare_csv",
    "gate_tests",
    "infer_task",
    "run_command",
    "GateComparison",
    "Recommendation",
    "CsvProblem",
    # the constants, in the order a comparison reads them: its splits, its
    # test, its margins, its decision, the task read from a target
    "DEFAULT_CV",
    "DEFAULT_REPEATS",
    "MAX_REPEATS",
    "TESTS",
    "SCORE_MARGIN",
    "CURVATURE_MARGIN_SHARE",
    "DECISION_PROBABILITY",
    "MAX_INFERRED_CLASSES",
]
__getattr__, __dir__ = lazy_names(__name__, _HOMES, __all__, _MODULES)

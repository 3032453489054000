"""skgate: gated attention as scikit-learn estimators, and the geometry to measure it.

Multiplicative gating lets attention bend its representation space; ungated
attention is affine in its values and therefore flat (Bathula & Joshi, 2026,
"Gating Enables Curvature"). skgate gives the model, the tasks that tell the
two apart, the curvature measurements (``skgate.geometry``,
``representation_curvature``) and the model selection that uses them
(``curvature_score``, ``least_curvature_refit``).
"""

from typing import TYPE_CHECKING

from ._lazy import lazy_names

#: Where each public name lives: imported on first use, so that ``import
#: skgate`` (and ``python -m skgate --help``) does not import torch,
#: scikit-learn and skorch until a name needs them.
_HOMES = {
    "GatedAttentionClassifier": "estimators",
    "GatedAttentionClassifierCV": "search",
    "GatedAttentionRegressor": "estimators",
    "GatedAttentionRegressorCV": "search",
    "benchmark_gates": "benchmark",
    "compare_gates": "compare",
    "curvature_score": "model_selection",
    "least_curvature_refit": "model_selection",
    "make_curvature_scorer": "model_selection",
    "make_curved_task": "datasets",
    "make_joint_scorer": "model_selection",
    "make_linear_task": "datasets",
    "representation_curvature": "model_selection",
}

if TYPE_CHECKING:  # what editors and static analysis read
    from .benchmark import benchmark_gates
    from .compare import compare_gates
    from .datasets import make_curved_task, make_linear_task
    from .estimators import GatedAttentionClassifier, GatedAttentionRegressor
    from .model_selection import (
        curvature_score,
        least_curvature_refit,
        make_curvature_scorer,
        make_joint_scorer,
        representation_curvature,
    )
    from .search import GatedAttentionClassifierCV, GatedAttentionRegressorCV


__all__ = [
    "GatedAttentionClassifier",
    "GatedAttentionClassifierCV",
    "GatedAttentionRegressor",
    "GatedAttentionRegressorCV",
    "benchmark_gates",
    "compare_gates",
    "curvature_score",
    "least_curvature_refit",
    "make_curvature_scorer",
    "make_curved_task",
    "make_joint_scorer",
    "make_linear_task",
    "representation_curvature",
]
#: The one place the version is written: pyproject.toml reads it (setuptools'
#: ``attr``), so the package's metadata carries it. A ``.devN`` version is
#: unreleased work, CHANGELOG.md's "Unreleased" section; a release moves that
#: section under its own heading.
__version__ = "0.2.0.dev0"
__getattr__, __dir__ = lazy_names(__name__, _HOMES, {*__all__, "__version__"})

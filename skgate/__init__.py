"""skgate: gated attention as scikit-learn estimators, and the geometry to measure it.

Multiplicative gating lets attention bend its representation space; ungated
attention is affine in its values and therefore flat (Bathula & Joshi, 2026,
"Gating Enables Curvature"). skgate gives the model, the tasks that tell the
two apart, the curvature measurements (``skgate.geometry``,
``representation_curvature``) and the model selection that uses them
(``curvature_score``, ``least_curvature_refit``).
"""

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
__version__ = "0.1.0"

"""skgate: gated attention as scikit-learn estimators, and the geometry to measure it.

Multiplicative gating lets attention bend its representation space; ungated
attention is affine in its values and therefore flat (Bathula & Joshi, 2026,
"Gating Enables Curvature"). skgate gives the model, the tasks that tell the
two apart, the curvature measurements (``skgate.geometry``,
``representation_curvature``) and, in later releases, the model selection rule
that uses them.
"""

from .datasets import make_curved_task, make_linear_task
from .estimators import GatedAttentionClassifier
from .model_selection import representation_curvature

__all__ = [
    "GatedAttentionClassifier",
    "make_curved_task",
    "make_linear_task",
    "representation_curvature",
]
__version__ = "0.1.0"

"""
Curvature over the input plane: gated against ungated
=====================================================

Over copied tokens ungated attention is affine in its input, so its
representation is flat: Gaussian curvature 0 everywhere. The gated block
bends the plane, negatively in most places, positively in some. The sign is
shown in colour (red K > 0, blue K < 0), on a symmetric logarithmic scale;
:class:`~skgate.inspection.CurvatureDisplay` draws the map as scikit-learn's
``DecisionBoundaryDisplay`` draws a decision boundary.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import SymLogNorm

from skgate import GatedAttentionClassifier, make_curved_task
from skgate.inspection import CurvatureDisplay

X, y = make_curved_task(600, shape="checkerboard", random_state=0)

fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
for ax, gate in zip(axes, ["multiplicative", "none"], strict=True):
    clf = GatedAttentionClassifier(gate, random_state=0).fit(X, y)
    display = CurvatureDisplay.from_estimator(
        clf,
        X,
        kind="gaussian",
        grid_resolution=60,
        eps=0.2,
        plot_method="pcolormesh",
        ax=ax,
        cmap="RdBu_r",
        norm=SymLogNorm(1e-4, vmin=-1, vmax=1),
    )
    K = display.surface_
    print(f"{gate}: accuracy {clf.score(X, y):.3f}, max |K| {np.abs(K).max():.3g}")
    ax.set_title(f"gate={gate!r}: Gaussian curvature K")
fig.tight_layout()
plt.show()

"""
Curvature over the input plane: gated against ungated
=====================================================

Over copied tokens ungated attention is affine in its input, so its
representation is flat: Gaussian curvature 0 everywhere. The gated block
bends the plane, negatively in most places, positively in some. The sign is
shown in colour (red K > 0, blue K < 0), on a symmetric logarithmic scale.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import SymLogNorm

from skgate import GatedAttentionClassifier, make_curved_task, representation_curvature

X, y = make_curved_task(600, shape="checkerboard", random_state=0)
g0, g1 = np.meshgrid(np.linspace(-2, 2, 60), np.linspace(-2, 2, 60))
grid = np.column_stack([g0.ravel(), g1.ravel()])

fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
for ax, gate in zip(axes, ["multiplicative", "none"], strict=True):
    clf = GatedAttentionClassifier(gate, random_state=0).fit(X, y)
    K = representation_curvature(clf, grid, kind="gaussian").reshape(g0.shape)
    print(f"{gate}: accuracy {clf.score(X, y):.3f}, max |K| {np.abs(K).max():.3g}")
    image = ax.pcolormesh(
        g0, g1, K, cmap="RdBu_r", norm=SymLogNorm(1e-4, vmin=-1, vmax=1)
    )
    ax.set_title(f"gate={gate!r}: Gaussian curvature K")
    fig.colorbar(image, ax=ax)
fig.tight_layout()
plt.show()

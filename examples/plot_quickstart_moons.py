"""
Quickstart: gated attention on make_moons
=========================================

Fit a :class:`~skgate.GatedAttentionClassifier` in a scikit-learn pipeline,
score it on held-out rows, and look at its decision boundary beside the
curvature of its representation over the input plane
(:func:`~skgate.representation_curvature`: the paper's acceleration, one
number per point).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skgate import GatedAttentionClassifier, representation_curvature

X, y = make_moons(n_samples=500, noise=0.2, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
pipe = make_pipeline(StandardScaler(), GatedAttentionClassifier(random_state=0))
pipe.fit(X_train, y_train)
print(f"held-out accuracy: {pipe.score(X_test, y_test):.3f}")

# %%
# The boundary and the curvature over a grid of the input plane.
g0, g1 = np.meshgrid(np.linspace(-1.5, 2.5, 80), np.linspace(-1.0, 1.5, 80))
grid = np.column_stack([g0.ravel(), g1.ravel()])
proba = pipe.predict_proba(grid)[:, 1].reshape(g0.shape)
kappa = representation_curvature(pipe, grid).reshape(g0.shape)

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.contourf(g0, g1, proba, levels=20, cmap="RdBu_r", alpha=0.8)
left.contour(g0, g1, proba, levels=[0.5], colors="black")
left.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu_r", s=8, edgecolors="none")
left.set_title("P(class 1) and the decision boundary")
image = right.contourf(g0, g1, kappa, levels=20, cmap="viridis")
fig.colorbar(image, ax=right, label="curvature (acceleration)")
right.set_title("representation curvature")
fig.tight_layout()
plt.show()

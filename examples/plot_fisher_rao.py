"""
Fisher-Rao curvature of a classifier's output
=============================================

The Fisher-Rao metric reads a classifier's logits as a categorical
distribution; ``metric="fisher"`` measures the curvature of the map from
inputs to that distribution (``x -> 2 sqrt(softmax(logits))``, the sphere of
radius 2). With two classes every line bends by exactly 1/2; with four
classes the image of the input plane is a surface in a 3-sphere, and its
curvature varies: it is largest where the predicted class changes.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs

from skgate import GatedAttentionClassifier, representation_curvature

X, y = make_blobs(600, centers=4, cluster_std=1.5, random_state=0)
clf = GatedAttentionClassifier(random_state=0).fit(X, y)
print(f"training accuracy: {clf.score(X, y):.3f}")

lo, hi = X.min(axis=0) - 1, X.max(axis=0) + 1
g0, g1 = np.meshgrid(np.linspace(lo[0], hi[0], 70), np.linspace(lo[1], hi[1], 70))
grid = np.column_stack([g0.ravel(), g1.ravel()])
kappa = representation_curvature(
    clf, grid, layer="logits", metric="fisher", kind="extrinsic"
).reshape(g0.shape)

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.contourf(g0, g1, clf.predict(grid).reshape(g0.shape), cmap="tab10", alpha=0.4)
left.scatter(X[:, 0], X[:, 1], c=y, cmap="tab10", s=6)
left.set_title("predicted class")
image = right.contourf(g0, g1, kappa, levels=20, cmap="magma")
fig.colorbar(image, ax=right, label="extrinsic curvature (Fisher-Rao)")
right.set_title("Fisher-Rao curvature of the output")
fig.tight_layout()
plt.show()

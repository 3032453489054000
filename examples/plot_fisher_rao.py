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
from sklearn.datasets import make_blobs
from sklearn.inspection import DecisionBoundaryDisplay

from skgate import GatedAttentionClassifier
from skgate.inspection import CurvatureDisplay

X, y = make_blobs(600, centers=4, cluster_std=1.5, random_state=0)
clf = GatedAttentionClassifier(random_state=0).fit(X, y)
print(f"training accuracy: {clf.score(X, y):.3f}")

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
DecisionBoundaryDisplay.from_estimator(
    clf, X, multiclass_colors="tab10", alpha=0.4, ax=left
)
left.scatter(X[:, 0], X[:, 1], c=y, cmap="tab10", s=6)
left.set_title("predicted class")
CurvatureDisplay.from_estimator(
    clf,
    X,
    kind="extrinsic",
    layer="logits",
    metric="fisher",
    grid_resolution=70,
    ax=right,
    levels=20,
    cmap="magma",
)
right.set_title("Fisher-Rao curvature of the output (extrinsic)")
fig.tight_layout()
plt.show()

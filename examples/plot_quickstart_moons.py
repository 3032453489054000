"""
Quickstart: gated attention on make_moons
=========================================

Fit a :class:`~skgate.GatedAttentionClassifier` in a scikit-learn pipeline,
score it on held-out rows, and look at its decision boundary
(scikit-learn's ``DecisionBoundaryDisplay``) beside the curvature of its
representation over the input plane
(:class:`~skgate.inspection.CurvatureDisplay`: the paper's acceleration, one
number per point).
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_moons
from sklearn.inspection import DecisionBoundaryDisplay
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skgate import GatedAttentionClassifier
from skgate.inspection import CurvatureDisplay

X, y = make_moons(n_samples=500, noise=0.2, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
pipe = make_pipeline(StandardScaler(), GatedAttentionClassifier(random_state=0))
pipe.fit(X_train, y_train)
print(f"held-out accuracy: {pipe.score(X_test, y_test):.3f}")

# %%
# The boundary and the curvature over the input plane.
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
DecisionBoundaryDisplay.from_estimator(
    pipe, X, response_method="predict_proba", cmap="RdBu_r", alpha=0.8, ax=left
)
left.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu_r", s=8, edgecolors="none")
left.set_title("P(class 1)")
CurvatureDisplay.from_estimator(
    pipe, X, grid_resolution=80, eps=0.5, ax=right, levels=20, cmap="viridis"
)
right.set_title("representation curvature (acceleration)")
fig.tight_layout()
plt.show()

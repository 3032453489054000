"""
A scaled gated attention classifier on make_moons, and its curvature
====================================================================

Run: python examples/pipeline_moons.py
"""

from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skgate import GatedAttentionClassifier, representation_curvature

X, y = make_moons(n_samples=800, noise=0.2, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)

for alpha in (0.0, 1.0):
    pipe = make_pipeline(
        StandardScaler(), GatedAttentionClassifier(alpha=alpha, random_state=0)
    )
    pipe.fit(X_train, y_train)
    kappa = representation_curvature(pipe, X_test)  # the paper's acceleration
    extrinsic = representation_curvature(pipe, X_test, kind="extrinsic")
    print(
        f"alpha={alpha}: accuracy {pipe.score(X_test, y_test):.3f}, "
        f"mean curvature {kappa.mean():.3g} (extrinsic {extrinsic.mean():.3g})"
    )

"""
Grid-search the gate strength alpha of a scaled gated attention classifier
==========================================================================

Run: python examples/quickstart.py
"""

from sklearn.datasets import make_moons
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skgate import GatedAttentionClassifier

X, y = make_moons(n_samples=600, noise=0.25, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)

pipe = make_pipeline(StandardScaler(), GatedAttentionClassifier(random_state=0))
search = GridSearchCV(
    pipe,
    {"gatedattentionclassifier__alpha": [0.0, 0.5, 1.0, 1.5]},
    cv=3,
    n_jobs=2,
)
search.fit(X_train, y_train)

print("best alpha:", search.best_params_["gatedattentionclassifier__alpha"])
print(f"cross-validated accuracy: {search.best_score_:.3f}")
print(f"held-out accuracy: {search.score(X_test, y_test):.3f}")
best = search.best_estimator_
print(
    "attention representation of 5 rows:",
    best[-1].representation(best[:-1].transform(X_test[:5])).shape,
)

"""
Gating pays where the boundary is curved, not where it is linear
================================================================

Fits ungated (gate="none") and gated (alpha=1.5) classifiers on a checkerboard
and on a linear task, and prints held-out accuracy.

Run: python examples/curved_vs_linear.py
"""

from sklearn.model_selection import train_test_split

from skgate import GatedAttentionClassifier, make_curved_task, make_linear_task

tasks = {
    "checkerboard": make_curved_task(1500, shape="checkerboard", random_state=0),
    "linear": make_linear_task(1500, random_state=0),
}
models = {
    "ungated": GatedAttentionClassifier(gate="none", max_epochs=30, random_state=0),
    "gated": GatedAttentionClassifier(alpha=1.5, max_epochs=30, random_state=0),
}
for task, (X, y) in tasks.items():
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    for name, model in models.items():
        accuracy = model.fit(X_train, y_train).score(X_test, y_test)
        print(f"{task:<13} {name:<8} accuracy {accuracy:.3f}")

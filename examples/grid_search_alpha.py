"""
Grid-search the gate strength alpha and keep curvature only where it pays
=========================================================================

On a linear task every alpha reaches the same accuracy, so the least-curvature
rule keeps alpha = 0 (a flat representation). On a checkerboard with a linear
head, accuracy needs the gate, so the rule keeps alpha > 0.

Run: python examples/grid_search_alpha.py
"""

import pandas as pd
from sklearn.model_selection import GridSearchCV

from skgate import (
    GatedAttentionClassifier,
    curvature_score,
    least_curvature_refit,
    make_curved_task,
    make_linear_task,
)

tasks = {
    "linear": (make_linear_task(1000, random_state=0), "mlp"),
    "checkerboard": (
        make_curved_task(1000, shape="checkerboard", random_state=0),
        "linear",
    ),
}
for name, ((X, y), head) in tasks.items():
    search = GridSearchCV(
        GatedAttentionClassifier(head=head, random_state=0),
        {"alpha": [0.0, 0.5, 1.0, 1.5]},
        cv=3,
        scoring={"accuracy": "accuracy", "curvature": curvature_score},
        refit=least_curvature_refit(),
        n_jobs=2,
    )
    search.fit(X, y)
    table = pd.DataFrame(search.cv_results_)[
        [
            "param_alpha",
            "mean_test_accuracy",
            "std_test_accuracy",
            "mean_test_curvature",
        ]
    ]
    print(f"\n{name} (head={head!r}): chosen alpha = {search.best_params_['alpha']}")
    print(table.to_string(index=False, float_format="{:.4f}".format))

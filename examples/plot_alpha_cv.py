"""
Choosing the gate strength alpha with the CV estimator
======================================================

:class:`~skgate.GatedAttentionClassifierCV` trains every alpha x fold model
as one batched network and scores each on its held-out fold in accuracy and
curvature. With ``selection="least_curvature"`` it keeps the least curved
alpha among those within one standard deviation of the best score: on a
linear task that is alpha = 0 (flat), on the checkerboard it is not.
"""

import matplotlib.pyplot as plt

from skgate import GatedAttentionClassifierCV, make_curved_task, make_linear_task

alphas = [0.0, 0.5, 1.0, 1.5, 2.0]
tasks = {
    "checkerboard": make_curved_task(600, shape="checkerboard", random_state=0),
    "linear": make_linear_task(600, random_state=0),
}
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
for ax, (name, (X, y)) in zip(axes, tasks.items(), strict=True):
    search = GatedAttentionClassifierCV(
        alphas=alphas, cv=3, head="linear", random_state=0
    ).fit(X, y)
    results = search.cv_results_
    print(f"{name}: alpha_ = {search.alpha_:g}, accuracy {search.best_score_:.3f}")
    ax.errorbar(
        alphas,
        results["mean_test_accuracy"],
        yerr=results["std_test_accuracy"],
        marker="o",
        label="accuracy",
    )
    ax.axvline(search.alpha_, color="grey", linestyle="--", label="chosen alpha")
    twin = ax.twinx()
    twin.plot(alphas, results["mean_test_curvature"], "s-", color="tab:red")
    twin.set_ylabel("mean fold curvature", color="tab:red")
    ax.set_xlabel("gate strength alpha")
    ax.set_ylabel("3-fold accuracy")
    ax.set_title(name)
    ax.legend(loc="lower right", fontsize=8)
fig.tight_layout()
plt.show()

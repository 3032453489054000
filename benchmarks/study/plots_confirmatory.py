"""The confirmatory parts' figures (matplotlib, the ``plot`` extra).

The primary tests as a forest plot in units of each test's smallest effect
of interest (:func:`plot_primary`, both parts), and the second part's arms
(:func:`plot_sequence_arms`) and learning rates
(:func:`plot_learning_rates`). As :mod:`study.plots`: matplotlib is
imported when a figure is drawn, each function returns its figure.
"""

import numpy as np

from .facts import STUDY_GATES
from .plots import pyplot

__all__ = ["plot_learning_rates", "plot_primary", "plot_sequence_arms"]


#: Marker colours of a test's result in the primary figure.
_RESULT_COLOURS = {
    "holds": "tab:green",
    "reversed": "tab:red",
    "no effect": "tab:blue",
    "inconclusive": "tab:gray",
}


def plot_primary(tests, with_condition=False, title="Primary tests"):
    """The primary tests as a forest plot: each estimate and its 95 %
    interval in units of the test's smallest effect of interest (its margin),
    so that every test reads on one axis: beyond +1 a worthwhile effect,
    within +-1 none worth having; coloured by the test's result
    (``with_condition``: each label names the test's condition)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(tests) + 1.2))
    y = range(len(tests))[::-1]
    scale = tests["margin"].to_numpy()
    for row, (_, test) in zip(y, tests.iterrows(), strict=True):
        m = test["margin"]
        ax.errorbar(
            test["estimate"] / m,
            row,
            xerr=[
                [(test["estimate"] - test["ci low"]) / m],
                [(test["ci high"] - test["estimate"]) / m],
            ],
            fmt="o",
            color=_RESULT_COLOURS[test["outcome"]],
            capsize=3,
        )
    for x, style in ((0, "-"), (-1, ":"), (1, ":")):
        ax.axvline(x, color="black", linestyle=style, linewidth=0.8)
    ax.set_yticks(list(y))
    ax.set_yticklabels(
        [
            f"{t.claim} {t.quantity}: {t.comparison}"
            + (f" ({t.condition})" if with_condition else "")
            for t in tests.itertuples(index=False)
        ],
        fontsize=8,
    )
    ax.set_xscale("symlog", linthresh=2)
    ticks = [-2, -1, 0, 1, 2, 5, 10, 20, 50]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.set_xlabel("estimate / smallest effect of interest (95 % bootstrap CI)")
    handles = [
        plt.Line2D([], [], marker="o", linestyle="", color=c, label=r)
        for r, c in _RESULT_COLOURS.items()
    ]
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title(f"{title} ({len(scale)}, one Holm family)")
    fig.tight_layout()
    return fig


def plot_learning_rates(table):
    """Each arm's mean test accuracy (+- one sd over seeds) against the
    learning rate, one panel per task; the arm's own rate circled."""
    plt = pyplot()
    tasks = list(dict.fromkeys(table["task"]))
    fig, axes = plt.subplots(
        1, len(tasks), figsize=(5 * len(tasks), 3.6), squeeze=False
    )
    for ax, task in zip(axes[0], tasks, strict=True):
        for arm, rows in table[table["task"] == task].groupby("arm", sort=False):
            rows = rows.sort_values("lr")
            line = ax.errorbar(
                rows["lr"],
                rows["accuracy"],
                yerr=rows["accuracy sd"],
                marker="o",
                capsize=3,
                label=arm,
            )
            own = rows[rows["own rate"]]
            ax.scatter(
                own["lr"],
                own["accuracy"],
                s=160,
                facecolors="none",
                edgecolors=line[0].get_color(),
            )
        ax.set_xscale("log", base=2)
        ax.set_xlabel("learning rate (AdamW)")
        ax.set_title(task)
    axes[0][0].set_ylabel("test accuracy")
    axes[0][-1].legend(title="arm (circled: its own rate)", fontsize=8)
    fig.tight_layout()
    return fig


def plot_sequence_arms(fits, arms):
    """Test accuracy of every fit by arm, one panel per task: each seed a
    dot, the arm's mean a bar, the task's Bayes accuracy (where ``arms``
    has it) a dashed line and chance a dotted one."""
    plt = pyplot()
    fits = fits.assign(
        task_label=[
            "linear task" if t == "linear" else f"{s}, noise {n:g}"
            for t, s, n in zip(fits["task"], fits["shape"], fits["noise"], strict=True)
        ]
    )
    tasks = list(dict.fromkeys(fits["task_label"]))
    labels = STUDY_GATES.arm_labels
    fig, axes = plt.subplots(
        1, len(tasks), figsize=(4.2 * len(tasks), 3.6), squeeze=False
    )
    rng = np.random.default_rng(0)
    for ax, task in zip(axes[0], tasks, strict=True):
        rows = fits[fits["task_label"] == task]
        gates = list(dict.fromkeys(rows["gate"]))
        for x, gate in enumerate(gates):
            values = rows.loc[rows["gate"] == gate, "accuracy"].to_numpy()
            ax.scatter(
                x + rng.uniform(-0.18, 0.18, len(values)), values, s=8, alpha=0.5
            )
            ax.hlines(values.mean(), x - 0.3, x + 0.3, color="black", linewidth=2)
        ceiling = arms.loc[arms["task"] == task, "Bayes accuracy"]
        if len(ceiling) and np.isfinite(ceiling.iloc[0]):
            ax.axhline(ceiling.iloc[0], color="grey", linestyle="--", label="Bayes")
            ax.legend(fontsize=8, loc="lower right")
        ax.axhline(0.5, color="grey", linestyle=":")
        ax.set_xticks(range(len(gates)), [labels.get(g, g) for g in gates])
        ax.set_title(task)
    axes[0][0].set_ylabel("test accuracy (each seed; bar: mean)")
    fig.tight_layout()
    return fig

"""The second confirmatory part's secondary analyses (protocol 2).

Beside the secondary family of tests (:func:`secondary_tests`, Holm over
its own tests; which tests: :func:`study.sequences.secondary_family`),
the tables that describe the fits: convergence within the cap
(:func:`convergence`), each arm's accuracy across the learning-rate grid
(:func:`lr_table`), C4's metric against the Euclidean one
(:func:`metric_agreement`), the arms at a glance (:func:`arm_summary`) and
C2's curve over alpha (:func:`alpha_curve`).
"""

import numpy as np
import pandas as pd

from . import stats
from .facts import SEQUENCE, STALL_FRACTION, STUDY_GATES
from .sequences import (
    C2_CURVATURE,
    CAP,
    CONDITIONS,
    LARGEST_RATE,
    LATE_FRACTION,
    LATE_SHARE,
    LEFT_FAMILY,
    LR_GRID,
    family_results,
    secondary_family,
    task_label,
)

__all__ = [
    "alpha_curve",
    "alpha_steps",
    "arm_summary",
    "convergence",
    "lr_table",
    "metric_agreement",
    "secondary_tests",
]


def secondary_tests(frames, conditions=None, c2_curvature=None, left=None):
    """The secondary family (tests_2_secondary.csv), Holm over its own tests:
    C1 on each condition alone, C1's accuracy at 20 epochs and at the grid's
    largest learning rate (every arm at that rate, the grid's seeds), SiLU
    against ungated, C1's curvature in the paper's acceleration, and the
    candidates that left the primary family; the primary tests' columns and
    "analysis"."""
    conditions = CONDITIONS if conditions is None else conditions
    c2_curvature = C2_CURVATURE if c2_curvature is None else c2_curvature
    left = LEFT_FAMILY if left is None else left
    frames = dict(frames)
    if "lr_grid" in frames:
        frames[LARGEST_RATE] = _at_rate(frames, max(LR_GRID))
    family = [
        (analysis, sweep, test)
        for analysis, sweep, test in secondary_family(conditions, c2_curvature, left)
        if sweep in frames
    ]
    table = family_results(
        [{**test, "sweep": sweep} for _, sweep, test in family], frames
    )
    table.insert(0, "analysis", [analysis for analysis, _, _ in family])
    return table


def _at_rate(frames, lr):
    """Every arm's fits at learning rate ``lr``: the grid sweep's, and the
    arms sweep's where ``lr`` is the arm's own rate (the grid's seeds only)."""
    grid = frames["lr_grid"]
    arms = frames["arms"][frames["arms"]["seed"].isin(set(grid["seed"]))]
    both = pd.concat([grid, arms], ignore_index=True)
    return both[np.isclose(both["lr"], lr)]


def lr_table(frames):
    """Each arm's test accuracy across the learning-rate grid (secondary:
    does gating tolerate larger rates?): per curved condition, arm and
    rate, the mean and sd over the grid's seeds, and whether it is the
    arm's own rate."""
    grid = frames["lr_grid"]
    arms = frames["arms"][frames["arms"]["seed"].isin(set(grid["seed"]))]
    both = pd.concat(
        [grid.assign(own=False), arms[arms["task"] == "curved"].assign(own=True)],
        ignore_index=True,
    )
    both = both.assign(task_label=both.apply(task_label, axis=1))
    rows = []
    keys = ["task_label", "gate", "lr"]
    for (task, gate, lr), fits in both.groupby(keys, sort=False):
        rows.append(
            {
                "task": task,
                "arm": STUDY_GATES.arm_labels[gate],
                "lr": lr,
                "own rate": bool(fits["own"].any()),
                "accuracy": fits["accuracy"].mean(),
                "accuracy sd": fits["accuracy"].std(),
                "seeds": fits["seed"].nunique(),
            }
        )
    table = pd.DataFrame(rows)
    return table.sort_values(["task", "arm", "lr"], kind="stable").reset_index(
        drop=True
    )


def metric_agreement(arms):
    """C4's metric against the Euclidean one, per task and arm: the mean
    turning rate under each, their ratio, and the per-fit Pearson
    correlation across the arm's fits (a correlation near 1 and a ratio near
    a constant would mean the metric tests nothing the Euclidean one does
    not)."""
    curved = arms[arms["task"] == "curved"]
    curved = curved.assign(task_label=curved.apply(task_label, axis=1))
    rows = []
    for (task, gate), fits in curved.groupby(["task_label", "gate"], sort=False):
        rows.append(
            {
                "task": task,
                "arm": STUDY_GATES.arm_labels[gate],
                "turning": fits["turning"].mean(),
                "turning, own metric": fits["turning_mahalanobis"].mean(),
                "ratio": fits["turning_mahalanobis"].mean() / fits["turning"].mean(),
                "per-fit correlation": fits["turning"].corr(
                    fits["turning_mahalanobis"]
                ),
            }
        )
    everything = {
        "task": "every curved fit",
        "arm": "all",
        "turning": curved["turning"].mean(),
        "turning, own metric": curved["turning_mahalanobis"].mean(),
        "ratio": curved["turning_mahalanobis"].mean() / curved["turning"].mean(),
        "per-fit correlation": curved["turning"].corr(curved["turning_mahalanobis"]),
    }
    return pd.DataFrame([*rows, everything])


def arm_summary(arms, bayes=None):
    """Per task and arm: learning rate, mean and sd of test accuracy, the
    task's Bayes accuracy (where ``bayes`` has it), mean turning rate,
    acceleration and positive share."""
    arms = arms.assign(task_label=arms.apply(task_label, axis=1))
    rows = []
    for (task, gate), fits in arms.groupby(["task_label", "gate"], sort=False):
        ceiling = np.nan
        if bayes is not None:
            first = fits.iloc[0]
            known = bayes[
                (bayes["task"] == first["task"])
                & (bayes["n_observations"] == SEQUENCE.n_observations)
                & np.isclose(bayes["noise"], first["noise"])
            ]
            if first["task"] == "curved":
                known = known[known["shape"] == first["shape"]]
            ceiling = known["bayes accuracy"].iloc[0] if len(known) else np.nan
        rows.append(
            {
                "task": task,
                "arm": STUDY_GATES.arm_labels[gate],
                "lr": fits["lr"].iloc[0],
                "accuracy": fits["accuracy"].mean(),
                "accuracy sd": fits["accuracy"].std(),
                "Bayes accuracy": ceiling,
                "turning": fits["turning"].mean(),
                "acceleration": fits["acceleration"].mean(),
                "positive share": fits["positive_share"].mean(),
            }
        )
    return pd.DataFrame(rows)


def alpha_curve(alpha, task="curved"):
    """C2's shape on ``task``'s fits of the alpha sweep: per alpha, the mean
    turning rate and accuracy over seeds, and how many seeds' turning rate
    peaks there (the protocol tests a monotone trend; this says whether the
    curve is one)."""
    fits = alpha[alpha["task"] == task]
    table = fits.pivot_table(index="seed", columns="alpha", values="turning")
    peaks = table.idxmax(axis=1).value_counts()
    means = fits.groupby("alpha")[["turning", "accuracy"]].mean()
    return pd.DataFrame(
        {
            "alpha": means.index,
            "turning": means["turning"].to_numpy(),
            "accuracy": means["accuracy"].to_numpy(),
            "seeds peaking here": [int(peaks.get(a, 0)) for a in means.index],
        }
    )


def convergence(frame, cap=CAP):
    """Per task, arm and alpha of an early-stopped sweep: fits, median best
    epoch, median epochs run, the share whose best validation epoch lies in
    the last :data:`LATE_FRACTION` of ``cap`` (the protocol's rule: below
    :data:`LATE_SHARE`), and the share whose best epoch lies in the first
    :data:`~study.facts.STALL_FRACTION` of it: fits that stalled,
    which the protocol's rule cannot see (added after the run;
    descriptive)."""
    late, early = cap * (1 - LATE_FRACTION), max(1, int(cap * STALL_FRACTION))
    frame = frame.assign(task_label=frame.apply(task_label, axis=1))
    if "alpha" not in frame:
        frame = frame.assign(alpha=np.nan)
    rows = []
    keys = ["task_label", "gate", "lr", "alpha"]
    for (task, gate, lr, alpha), fits in frame.groupby(keys, sort=False, dropna=False):
        share = float((fits["best_epoch"] > late).mean())
        rows.append(
            {
                "task": task,
                "arm": STUDY_GATES.arm_labels[gate],
                "lr": lr,
                "alpha": alpha,
                "fits": len(fits),
                "median best epoch": float(fits["best_epoch"].median()),
                "median epochs run": float(fits["epochs_run"].median()),
                f"share best after epoch {late:g}": share,
                "converged": share < LATE_SHARE,
                f"share best by epoch {early:g}": float(
                    (fits["best_epoch"] <= early).mean()
                ),
            }
        )
    return pd.DataFrame(rows)


def alpha_steps(alpha, task="curved"):
    """C2 step by step on ``task``'s fits of the alpha sweep (secondary,
    descriptive): for each quantity (the turning rate, accuracy) and each
    step between neighbouring alphas, the mean paired difference over seeds
    with its 95 % bootstrap interval, one-sided sign-flip p-values of a rise
    and of a fall, Holm over every step of both quantities, the outcome, how
    many seeds rise at the step and how many rise at every step. The
    protocol's trend test says whether the curve rises overall; this says
    where."""
    fits = alpha[alpha["task"] == task]
    rows = []
    for quantity, measure in (("curvature", "turning"), ("accuracy", "accuracy")):
        table = fits.pivot_table(index="seed", columns="alpha", values=measure)
        grid = list(table.columns)
        every = int((table.diff(axis=1).iloc[:, 1:] > 0).all(axis=1).sum())
        for low, high in zip(grid[:-1], grid[1:], strict=True):
            d = (table[high] - table[low]).dropna().to_numpy()
            result = stats.permutation_comparison(d, 0.0)
            rows.append(
                {
                    "quantity": quantity,
                    "step": f"{low:g} -> {high:g}",
                    "estimate": result["estimate"],
                    "ci low": result["ci low"],
                    "ci high": result["ci high"],
                    "p": result["p"],
                    "p reverse": result["p reverse"],
                    "p equivalence": 1.0,
                    "kind": "superiority",
                    "n": result["n"],
                    "seeds rising": int((d > 0).sum()),
                    "seeds rising at every step": every,
                }
            )
    table = stats.family_outcomes(pd.DataFrame(rows))
    for bound in ("ci low", "ci high"):  # rounding noise of equal means is 0
        table[bound] = table[bound].where(table[bound].abs() >= 1e-10, 0.0)
    columns = ["quantity", "step", "estimate", "ci low", "ci high", "p holm"]
    columns += ["outcome", "n", "seeds rising", "seeds rising at every step"]
    return table[columns]

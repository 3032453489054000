"""Statistics and verdicts of the reproduction study: data in, data out.

Every verdict comes from a rule stated in :data:`RULES` and applied to the
sweep tables by the functions here; they return tables and verdict strings,
and :mod:`skgate.study.render` prints them beside their rules, so nothing in
the report is judged by eye.
"""

import numpy as np
import pandas as pd
from scipy import stats

from .design import CONDITION_NUMBERS, GATE_ORDER

__all__ = [
    "ALPHA_LEVEL",
    "CLAIMS",
    "FLAT_ACCURACY",
    "RULES",
    "claim_alpha",
    "claim_anisotropy",
    "claim_depth",
    "claim_gates",
    "claim_linear",
    "curvature_agreement",
    "evaluate_claims",
    "mean_std",
    "paired_comparison",
    "spearman_trend",
    "toy_alphas",
    "toy_gated_vs_ungated",
    "verdict",
    "verdicts",
]

#: Significance level of every test.
ALPHA_LEVEL = 0.05
FLAT_ACCURACY = 0.02  # C3: "accuracy does not change" = spread of means below this

RULES = {
    "ordering": (
        "An ordering A > B *holds* in a condition when the mean over seeds of "
        "A - B (paired by seed) is > 0 and a one-sided paired t-test gives "
        f"p < {ALPHA_LEVEL}."
    ),
    "trend": (
        "A trend *holds* when the Spearman correlation over all fits of the "
        f"condition is > 0 with p < {ALPHA_LEVEL}."
    ),
    "verdict": (
        "A claim is **reproduced** when its statements hold in every condition "
        "tested, **partly reproduced** when they hold in some (the conditions "
        "are listed), and **not reproduced** when they hold in none."
    ),
}


def mean_std(frame, by, value):
    """Mean +- std over seeds of ``value`` per group, with the count."""
    grouped = frame.groupby(by, dropna=False, sort=False)[value]
    return grouped.agg(["mean", "std", "count"]).reset_index()


def paired_comparison(frame, condition, column, better, worse, value):
    """Paired (by seed) test that ``better`` > ``worse`` in ``column``, per condition.

    Returns one row per condition: both means, the mean difference, Cohen's
    d_z (mean difference / std of differences), the one-sided paired t-test's
    p-value, and whether the ordering holds by :data:`RULES` ["ordering"].
    """
    rows = []
    for key, group in frame.groupby(condition, dropna=False, sort=False):
        a = group[group[column] == better].set_index("seed")[value]
        b = group[group[column] == worse].set_index("seed")[value]
        a, b = a.align(b, join="inner")
        diff = a - b
        sd = diff.std(ddof=1)
        if len(diff) > 1 and sd > 0:
            p = stats.ttest_rel(a, b, alternative="greater").pvalue
            d_z = diff.mean() / sd
        else:  # all differences equal: significant iff positive
            p = 0.0 if len(diff) > 1 and diff.mean() > 0 else 1.0
            d_z = np.inf if diff.mean() > 0 else 0.0
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(condition, key, strict=True)),
                "comparison": f"{better} > {worse}",
                "measure": value,
                f"mean {better}": a.mean(),
                f"mean {worse}": b.mean(),
                "mean difference": diff.mean(),
                "d_z": d_z,
                "p": p,
                "n": len(diff),
                "holds": bool(diff.mean() > 0 and p < ALPHA_LEVEL),
            }
        )
    return pd.DataFrame(rows)


def spearman_trend(frame, condition, x, y):
    """Spearman correlation of ``y`` with ``x`` per condition, and whether it holds."""
    rows = []
    for key, group in frame.groupby(condition, dropna=False, sort=False):
        if group[y].nunique() > 1 and group[x].nunique() > 1:
            rho, p = stats.spearmanr(group[x], group[y])
        else:
            rho, p = 0.0, 1.0
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(condition, key, strict=True)),
                "x": x,
                "y": y,
                "rho": rho,
                "p": p,
                "n": len(group),
                "holds": bool(rho > 0 and p < ALPHA_LEVEL),
            }
        )
    return pd.DataFrame(rows)


def verdict(holds, conditions):
    """Reproduced / partly reproduced (conditions) / not reproduced."""
    holds = list(holds)
    if holds and all(holds):
        return "reproduced"
    if any(holds):
        where = "; ".join(c for c, h in zip(conditions, holds, strict=True) if h)
        return f"partly reproduced (holds in: {where})"
    return "not reproduced"


def _condition_names(frame, columns):
    return [
        ", ".join(f"{c}={v}" for c, v in zip(columns, row, strict=True))
        for row in frame[columns].itertuples(index=False)
    ]


def with_tokens(frame):
    """``frame`` with a ``tokens`` column: "sequence" or "copied"."""
    frame = frame.copy()
    frame["tokens"] = np.where(frame["n_observations"] > 1, "sequence", "copied")
    return frame


GATE_CONDITION = ["shape", "head", "tokens"]


def claim_gates(gates):
    """C1: multiplicative > silu > none in curvature and accuracy, per condition."""
    frame = with_tokens(gates)
    tests = []
    for measure in ("curvature_exact", "accuracy"):
        for better, worse in zip(GATE_ORDER[:-1], GATE_ORDER[1:], strict=True):
            tests.append(
                paired_comparison(frame, GATE_CONDITION, "gate", better, worse, measure)
            )
    tests = pd.concat(tests, ignore_index=True)
    per_condition = (
        tests.groupby(GATE_CONDITION, sort=False)["holds"].all().reset_index()
    )
    per_measure = {
        measure: tests[tests["measure"] == measure]
        .groupby(GATE_CONDITION, sort=False)["holds"]
        .all()
        .reset_index()
        for measure in ("curvature_exact", "accuracy")
    }
    result = {
        "tests": tests,
        "verdict": verdict(
            per_condition["holds"], _condition_names(per_condition, GATE_CONDITION)
        ),
        "verdict by measure": {
            measure: verdict(table["holds"], _condition_names(table, GATE_CONDITION))
            for measure, table in per_measure.items()
        },
    }
    return result


def claim_alpha(alpha):
    """C2: curvature and accuracy rise with alpha on curved tasks."""
    curved = alpha[alpha["task"] == "curved"]
    tests = pd.concat(
        [
            spearman_trend(curved, ["shape"], "alpha", "curvature_exact"),
            spearman_trend(curved, ["shape"], "alpha", "accuracy"),
        ],
        ignore_index=True,
    )
    holds = tests.groupby("shape", sort=False)["holds"].all().reset_index()
    # Not a statement of the claim, but what it implies: across fits, more
    # curvature goes with more accuracy on curved tasks (not on the linear one).
    coupling = spearman_trend(alpha, ["task", "shape"], "curvature_exact", "accuracy")
    coupling.loc[coupling["task"] == "linear", "shape"] = "-"
    return {
        "tests": tests,
        "coupling": coupling,
        "verdict": verdict(holds["holds"], _condition_names(holds, ["shape"])),
        "verdict by measure": {
            y: verdict(t["holds"], [f"shape={s}" for s in t["shape"]])
            for y, t in tests.groupby("y", sort=False)
        },
    }


def claim_linear(alpha):
    """C3: on the linear task accuracy stays, curvature rises with alpha."""
    linear = alpha[alpha["task"] == "linear"]
    curvature = spearman_trend(linear, ["task"], "alpha", "curvature_exact")
    accuracy = spearman_trend(linear, ["task"], "alpha", "accuracy")
    means = mean_std(linear, ["alpha"], "accuracy")
    spread = means["mean"].max() - means["mean"].min()
    accuracy_flat = bool(
        spread < FLAT_ACCURACY and accuracy["p"].iloc[0] >= ALPHA_LEVEL
    )
    curvature_rises = bool(curvature["holds"].iloc[0])
    statements = [accuracy_flat, curvature_rises]
    names = [
        f"accuracy flat (spread of means {spread:.4f} < {FLAT_ACCURACY}, "
        f"Spearman p = {accuracy['p'].iloc[0]:.3g} >= {ALPHA_LEVEL})",
        f"curvature rises (Spearman rho = {curvature['rho'].iloc[0]:.3f}, "
        f"p = {curvature['p'].iloc[0]:.3g})",
    ]
    return {
        "tests": pd.concat([curvature, accuracy], ignore_index=True),
        "accuracy spread": spread,
        "statements": dict(zip(names, statements, strict=True)),
        "verdict": verdict(statements, names),
    }


def claim_anisotropy(gates):
    """C4: the curvature ordering of C1 under anisotropic metrics."""
    frame = with_tokens(gates)
    tables, holds, names = [], [], []
    euclidean = None
    for c in CONDITION_NUMBERS:
        column = f"curvature_cond_{c:g}"
        tests = pd.concat(
            [
                paired_comparison(frame, GATE_CONDITION, "gate", b, w, column)
                for b, w in zip(GATE_ORDER[:-1], GATE_ORDER[1:], strict=True)
            ],
            ignore_index=True,
        )
        tests.insert(0, "condition_number", c)
        ordered = tests.groupby(GATE_CONDITION, sort=False)["holds"].all()
        if euclidean is None:
            euclidean = ordered
        tables.append(tests)
        # The ordering is unchanged when it holds wherever it held at c = 1.
        holds.append(bool((ordered | ~euclidean).all() and euclidean.any()))
        names.append(f"condition number {c:g}")
    ratios = (
        frame.groupby("gate", sort=False)[
            [f"curvature_cond_{c:g}" for c in CONDITION_NUMBERS]
        ]
        .mean()
        .div(frame.groupby("gate", sort=False)["curvature_cond_1"].mean(), axis=0)
    )
    return {
        "tests": pd.concat(tables, ignore_index=True),
        "euclidean ordering holds in": int(euclidean.sum()),
        "conditions": int(len(euclidean)),
        "ratios": ratios,
        "verdict": verdict(holds, names),
    }


def claim_depth(depth_init, depth_trained):
    """C5: curvature rises with depth, at initialisation and after training."""
    tests = []
    for stage, frame in (("initialisation", depth_init), ("trained", depth_trained)):
        table = spearman_trend(frame, ["gate"], "depth", "curvature_exact")
        table.insert(0, "stage", stage)
        tests.append(table)
    tests = pd.concat(tests, ignore_index=True)
    gated = tests[tests["gate"] == "multiplicative"]
    return {
        "tests": tests,
        "verdict": verdict(gated["holds"], [f"{s}" for s in gated["stage"]]),
    }


#: Each claim's one-line statement, as the verdict table names it.
CLAIMS = {
    "C1": "C1 gate ordering (curvature and accuracy)",
    "C2": "C2 alpha raises curvature and accuracy on curved tasks",
    "C3": "C3 linear control: accuracy flat, curvature rises",
    "C4": "C4 ordering survives anisotropic metrics",
    "C5": "C5 curvature accumulates with depth",
}


def evaluate_claims(results):
    """Every claim's statistics from the sweep tables, by claim id (C1..C5)."""
    return {
        "C1": claim_gates(results["gates"]),
        "C2": claim_alpha(results["alpha"]),
        "C3": claim_linear(results["alpha"]),
        "C4": claim_anisotropy(results["gates"]),
        "C5": claim_depth(results["depth_init"], results["depth_trained"]),
    }


def verdicts(claims):
    """Claim statement -> verdict, in the order of :data:`CLAIMS`."""
    return {title: claims[key]["verdict"] for key, title in CLAIMS.items()}


#: Below this exact curvature a model counts as flat when comparing methods.
FLAT_CURVATURE = 1e-6


def curvature_agreement(results):
    """How far the finite-difference curvature is from the exact one, over all fits.

    Returns the largest relative difference on curved models and the largest
    finite-difference reading on flat ones (exact curvature below
    :data:`FLAT_CURVATURE`).
    """
    measured = pd.concat(
        [results[name] for name in ("gates", "alpha", "depth_init", "depth_trained")]
    )
    curved = measured["curvature_exact"] > FLAT_CURVATURE
    relative = (
        measured["curvature_fd"] - measured["curvature_exact"]
    ).abs() / measured["curvature_exact"]
    return {
        "max relative difference": relative[curved].max(),
        "max on flat models": measured.loc[~curved, "curvature_fd"].max(),
    }


# -- the toy-dataset benchmark ---------------------------------------------------

GATED, UNGATED = "gated (alpha tuned)", "ungated"


def toy_gated_vs_ungated(toy):
    """Wilcoxon signed-rank test of gated vs ungated over datasets (mean scores)."""
    means = toy.groupby(["dataset", "model"], sort=False)["score"].mean().unstack()
    diff = means[GATED] - means[UNGATED]
    if len(diff) > 1 and (diff != 0).any():
        p = stats.wilcoxon(means[GATED], means[UNGATED]).pvalue
    else:
        p = 1.0
    return {
        "datasets": int(len(diff)),
        "gated better": int((diff > 0).sum()),
        "ungated better": int((diff < 0).sum()),
        "median difference": float(diff.median()),
        "p": float(p),
        "differences": diff,
    }


def toy_alphas(toy):
    """Per dataset: the alphas the refit rule chose over folds, and their curvature."""
    gated = toy[toy["model"] == GATED]
    return (
        gated.groupby("dataset", sort=False)
        .agg(
            alphas=("alpha", lambda a: ", ".join(f"{v:g}" for v in a)),
            alpha_zero=("alpha", lambda a: int((a == 0).sum())),
            folds=("alpha", "size"),
            curvature=("curvature", "mean"),
        )
        .reset_index()
    )

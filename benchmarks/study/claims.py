"""The exploratory study's claims C1-C6: their rules, tests and verdicts, as data.

Every verdict comes from a rule stated in :data:`RULES` and applied to the
sweep tables by the functions here (an ordering of the gates per condition,
:func:`ordering_claim`; trends with alpha, :func:`alpha_trends`; the
verdict over conditions, :func:`verdict_of`); they return tables and
verdict strings, and the report prints them beside their rules
(:mod:`study.render`), so nothing in the report is judged by eye.
The same rules test C1 under controls (:mod:`study.controls`) and
C1-C5 beyond the paper's setting (:mod:`study.beyond`);
:mod:`study.evaluation` evaluates them all.
"""

import functools

import numpy as np
import pandas as pd

from skgate.datasets import bayes_accuracy

from . import stats
from .design import RADIUS
from .facts import (
    ACCURACY_MARGIN,
    CEILING_MARGIN,
    CURVATURE_MARGIN,
    GRIDS,
    MAKER_TASKS,
    STUDY_GATES,
    TREND_MARGIN,
)
from .realdata import KNOWN_BAYES, bayes_accuracy_estimate
from .stats import (
    ALPHA_LEVEL,
    HOLDS,
    INCONCLUSIVE,
    REVERSED,
    adjust,
    condition_status,
    mean_std,
    statuses,
    t_half_width,
    verdict,
)

__all__ = [
    "C1_MEASURES",
    "CURVATURE_MEASURES",
    "DEPTH_CONDITION",
    "FLAT_CURVATURE",
    "GATE_CONDITION",
    "METRIC_FAMILIES",
    "RULES",
    "accuracy_headroom",
    "alpha_trends",
    "bayes_ceilings",
    "claim_alpha",
    "claim_anisotropy",
    "claim_depth",
    "claim_gates",
    "claim_linear",
    "claim_measures",
    "claim_positive",
    "curvature_agreement",
    "equivalence_margin",
    "gate_ordering",
    "ordering_claim",
    "paired_comparison",
    "spearman_trend",
    "verdict_of",
    "with_architecture",
    "with_tokens",
]

RULES = {
    "ordering": (
        "An ordering A > B is tested per condition on the differences A - B "
        "paired by seed: mean difference, its 95 % t confidence interval, "
        "Cohen's d_z, one-sided paired t-tests in both directions, and an "
        "equivalence test (TOST) with a margin set after a 5-seed exploratory "
        f"run had been seen ({ACCURACY_MARGIN} for accuracy, "
        f"{CURVATURE_MARGIN:.0%} of the lower arm's mean for curvature; not "
        "pre-registered)."
    ),
    "trend": (
        "A trend is tested per condition by the Spearman correlation over all "
        "fits of the condition: one-sided tests in both directions, a 95 % "
        "confidence interval (Fisher z), and equivalence to no trend when the "
        f"interval lies within +-{TREND_MARGIN}."
    ),
    "multiplicity": (
        "Every p-value is Holm-adjusted within its claim's family of tests "
        f"(each direction and the equivalence tests separately); a test "
        f"**holds** when its adjusted p < {ALPHA_LEVEL} in the claimed "
        "direction, is **reversed** when the adjusted p < "
        f"{ALPHA_LEVEL} in the opposite direction, shows **no effect** when "
        "the adjusted equivalence p (or the interval) says so, and is "
        "**inconclusive** otherwise."
    ),
    "verdict": (
        "A condition holds when all its tests hold, is reversed when any is "
        "reversed, shows no effect when every test that does not hold shows "
        "no effect, and is inconclusive otherwise. A claim is **reproduced** "
        "when it holds in every condition; **partly reproduced (k of N)** when "
        "it holds in k and is reversed in none; **mixed** (never a "
        "reproduction) when it holds in some and is reversed in others; "
        "**contradicted** when it holds in none and is reversed "
        "in some; **not reproduced** when it holds in none and every "
        "condition shows no effect; **inconclusive (low power)** when it "
        "holds in none, is reversed in none, and some condition is neither "
        "shown nor ruled out."
    ),
}


def equivalence_margin(value, worse_mean):
    """The equivalence margin of a measure (see :data:`RULES`)."""
    if value == "accuracy":
        return ACCURACY_MARGIN
    return CURVATURE_MARGIN * abs(worse_mean)


#: The study's paired comparison and trend test: the general ones with the
#: study's equivalence margins.
paired_comparison = functools.partial(
    stats.paired_comparison, margin=equivalence_margin
)
spearman_trend = functools.partial(stats.spearman_trend, margin=TREND_MARGIN)


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


def verdict_of(tests, condition):
    table = statuses(tests, condition)
    return verdict(table["status"], _condition_names(table, condition))


def gate_ordering(frame, value, condition=GATE_CONDITION, order=STUDY_GATES.order):
    """C1's ordering in ``value``: each gate against the next of ``order``
    (default ``STUDY_GATES.order``), per ``condition``
    (default: shape, head, tokens), paired by seed (unadjusted; ``frame``
    with a tokens column when the condition names it)."""
    return pd.concat(
        [
            paired_comparison(frame, condition, "gate", better, worse, value)
            for better, worse in zip(order[:-1], order[1:], strict=True)
        ],
        ignore_index=True,
    )


#: C1's two measures: the paper's curvature and accuracy.
C1_MEASURES = ("curvature_exact", "accuracy")


def ordering_claim(frame, measures=C1_MEASURES, condition=GATE_CONDITION):
    """C1's ordering in each of ``measures``, Holm-corrected as one family:
    the tests, the verdict over ``condition`` and the verdict per measure."""
    tests = adjust(
        pd.concat(
            [gate_ordering(frame, m, condition) for m in measures], ignore_index=True
        )
    )
    return {
        "frame": frame,
        "tests": tests,
        "statuses": statuses(tests, condition),
        "verdict": verdict_of(tests, condition),
        "verdict by measure": {
            measure: verdict_of(tests[tests["measure"] == measure], condition)
            for measure in measures
        },
    }


def claim_gates(gates):
    """C1: multiplicative > silu > none in curvature and accuracy, per condition."""
    return ordering_claim(with_tokens(gates))


def alpha_trends(frame, condition):
    """Curvature and accuracy against alpha per ``condition`` (one Holm
    family): the tests, the verdict and the verdict per measure."""
    tests = adjust(
        pd.concat(
            [
                spearman_trend(frame, condition, "alpha", "curvature_exact"),
                spearman_trend(frame, condition, "alpha", "accuracy"),
            ],
            ignore_index=True,
        )
    )
    return {
        "tests": tests,
        "verdict": verdict_of(tests, condition),
        "verdict by measure": {
            y: verdict_of(t, condition) for y, t in tests.groupby("y", sort=False)
        },
    }


def claim_alpha(alpha):
    """C2: curvature and accuracy rise with alpha on curved tasks."""
    claim = alpha_trends(alpha[alpha["task"] == "curved"], ["shape"])
    # Not a statement of the claim, but what it implies: across fits, more
    # curvature goes with more accuracy on curved tasks (not on the linear one).
    coupling = adjust(
        spearman_trend(alpha, ["task", "shape"], "curvature_exact", "accuracy")
    )
    coupling.loc[coupling["task"] == "linear", "shape"] = "-"
    return {**claim, "coupling": coupling}


def claim_linear(alpha, task="linear"):
    """C3: on the linear task (``task``) accuracy stays, curvature rises with alpha.

    "Accuracy stays" is an equivalence: each alpha > 0 against alpha = 0,
    paired by seed, within :data:`ACCURACY_MARGIN` (TOST); it holds when
    every one is equivalent, and is reversed when any differs significantly
    (either way).
    """
    linear = alpha[alpha["task"] == task].copy()
    curvature = spearman_trend(linear, ["task"], "alpha", "curvature_exact")
    linear["arm"] = linear["alpha"].map(lambda a: f"alpha={a:g}")
    baseline = f"alpha={linear['alpha'].min():g}"
    accuracy = pd.concat(
        [
            paired_comparison(linear, ["task"], "arm", arm, baseline, "accuracy")
            for arm in linear["arm"].unique()
            if arm != baseline
        ],
        ignore_index=True,
    )
    tests = adjust(pd.concat([curvature, accuracy], ignore_index=True))
    trend, equivalences = tests.iloc[:1], tests.iloc[1:]
    # "Flat" is the equivalence, so its outcome is read the other way round:
    # equivalent everywhere holds; a significant difference either way reverses.
    moved = (equivalences["p holm"] < ALPHA_LEVEL) | (
        equivalences["p reverse holm"] < ALPHA_LEVEL
    )
    if len(equivalences) and (equivalences["p equivalence holm"] < ALPHA_LEVEL).all():
        flat = HOLDS
    elif moved.any():
        flat = REVERSED
    else:
        flat = INCONCLUSIVE
    means = mean_std(linear, ["alpha"], "accuracy")
    spread = means["mean"].max() - means["mean"].min()
    widest = equivalences[["ci low", "ci high"]].abs().to_numpy().max(initial=0)
    names = [
        f"accuracy flat (every alpha within {ACCURACY_MARGIN} of alpha = 0 by "
        f"TOST; the differences' 95 % intervals reach {widest:.4f})",
        f"curvature rises (Spearman rho = {trend['rho'].iloc[0]:.3f}, "
        f"Holm p = {trend['p holm'].iloc[0]:.3g})",
    ]
    statuses = [flat, condition_status(trend["outcome"])]
    return {
        "tests": tests,
        "accuracy spread": spread,
        "statements": dict(zip(names, statuses, strict=True)),
        "verdict": verdict(statuses, names),
    }


#: C4's metric families: the column prefix of each in the sweep tables.
METRIC_FAMILIES = {"diagonal": "curvature_cond", "rotated": "curvature_rot"}


def claim_anisotropy(gates):
    """C4: the curvature ordering of C1 under anisotropic metrics.

    Two families of metrics per condition number: axis-aligned diagonal ones
    and randomly rotated SPD ones (the same eigenvalues; see
    :func:`study.sweeps.rotated_metric`). At each (family, condition
    number) the C1 curvature ordering is tested per condition (one Holm
    family for all of C4); it holds there when the ordering holds in every
    condition where it holds under the Euclidean metric (and in at least
    one), and is reversed when it is reversed in any of those.
    """
    frame = with_tokens(gates)
    families = {
        name: prefix
        for name, prefix in METRIC_FAMILIES.items()
        if f"{prefix}_{GRIDS.condition_numbers[0]:g}" in frame
    }
    tables = []
    for family, prefix in families.items():
        for c in GRIDS.condition_numbers:
            tests = gate_ordering(frame, f"{prefix}_{c:g}")
            tests.insert(0, "condition_number", c)
            tests.insert(0, "metric", family)
            tables.append(tests)
    tests = adjust(pd.concat(tables, ignore_index=True))
    by = ["metric", "condition_number"] + GATE_CONDITION
    table = statuses(tests, by)
    euclidean = table[
        (table["metric"] == "diagonal")
        & (table["condition_number"] == GRIDS.condition_numbers[0])
    ]
    held = euclidean.set_index(GATE_CONDITION)["status"] == HOLDS
    per_metric, names = [], []
    for family in families:
        for c in GRIDS.condition_numbers:
            here = table[(table["metric"] == family) & (table["condition_number"] == c)]
            here = here.set_index(GATE_CONDITION)["status"]
            kept = here.loc[held[held].index] if held.any() else here
            per_metric.append(
                REVERSED
                if (kept == REVERSED).any()
                else HOLDS
                if held.any() and (kept == HOLDS).all()
                else INCONCLUSIVE
            )
            names.append(f"{family} metric, condition number {c:g}")
    euclidean_mean = frame.groupby("gate", sort=False)["curvature_cond_1"].mean()
    ratios = pd.concat(
        [
            frame.groupby("gate", sort=False)[
                [f"{prefix}_{c:g}" for c in GRIDS.condition_numbers]
            ]
            .mean()
            .div(euclidean_mean, axis=0)
            .set_axis([f"{c:g}" for c in GRIDS.condition_numbers], axis=1)
            .assign(metric=family)
            .reset_index()
            for family, prefix in families.items()
        ],
        ignore_index=True,
    )
    return {
        "tests": tests,
        "euclidean ordering holds in": int(held.sum()),
        "conditions": int(len(held)),
        "ratios": ratios,
        "verdict": verdict(per_metric, names),
    }


#: C5's conditions: the block architecture and the gate.
DEPTH_CONDITION = ["architecture", "gate"]


def with_architecture(frame):
    """``frame`` with an ``architecture`` column (sweeps from before it
    existed ran the paper's plain stack)."""
    return frame if "architecture" in frame else frame.assign(architecture="plain")


def claim_depth(depth_init, depth_trained):
    """C5: curvature rises with depth, at initialisation and after training,
    per architecture (plain, residual, pre-LN residual) and gate; the verdict
    is the multiplicative gate's, over (stage, architecture), one Holm family."""
    tests = []
    for stage, frame in (("initialisation", depth_init), ("trained", depth_trained)):
        table = spearman_trend(
            with_architecture(frame), DEPTH_CONDITION, "depth", "curvature_exact"
        )
        table.insert(0, "stage", stage)
        tests.append(table)
    tests = adjust(pd.concat(tests, ignore_index=True))
    gated = tests[tests["gate"] == "multiplicative"]
    return {
        "tests": tests,
        "verdict": verdict(
            [condition_status([o]) for o in gated["outcome"]],
            [f"{row.stage}, {row.architecture}" for row in gated.itertuples()],
        ),
    }


def _named_conditions(tests, condition, prefix=""):
    """``tests`` with a "condition" column naming each row's condition."""
    tests = tests.copy()
    tests["condition"] = [prefix + name for name in _condition_names(tests, condition)]
    return tests


def _gated_share(frame):
    """The gated arm's share of points with K > 0 per C1 condition, with its
    95 % t interval cut to [0, 1] (a share lies there; none with one seed)."""
    gated = frame[frame["gate"] == "multiplicative"]
    rows = []
    for key, shares in gated.groupby(GATE_CONDITION, sort=False)["positive_share"]:
        n, mean = len(shares), shares.mean()
        half = t_half_width(shares.std(), n) if n > 1 else np.nan
        rows.append(
            {
                **dict(zip(GATE_CONDITION, key, strict=True)),
                "mean": mean,
                "ci_low": max(mean - half, 0.0),
                "ci_high": min(mean + half, 1.0),
                "n": n,
            }
        )
    return pd.DataFrame(rows)


def claim_positive(gates, sphere):
    """C6: gating reaches positive Gaussian curvature, ungated attention cannot.

    One Holm family of paired (by seed) tests, gated > ungated: (a) in the
    share of the representation's points whose Gaussian curvature K is
    positive beyond its noise floor, per C1 condition (shape, head, tokens);
    (b) the same share in the representation of the sphere-cap regression
    (:mod:`study.sphere`), per (training rows, epochs) (the fitted
    output surface's K is reported beside, not tested: the claim is about
    the representation). Beside the verdict: the gated sphere fits'
    relative error in K against 1 / R^2, its fall with training rows (per
    budget) and with epochs (per size), a family of its own ("holds" there
    means the error falls); and the largest |K| ungated attention shows.
    """
    frame = with_tokens(gates)
    share = paired_comparison(
        frame, GATE_CONDITION, "gate", "multiplicative", "none", "positive_share"
    )
    share = _named_conditions(share, GATE_CONDITION)
    cap = paired_comparison(
        sphere,
        ["n_samples", "max_epochs"],
        "gate",
        "multiplicative",
        "none",
        "representation_positive_share",
    )
    cap = _named_conditions(cap, ["n_samples", "max_epochs"], "sphere cap, ")
    tests = adjust(pd.concat([share, cap], ignore_index=True))
    gated = sphere[sphere["gate"] == "multiplicative"].copy()
    # The error falls: the trend test's reverse direction is the claim here.
    gated["minus_relative_error"] = -gated["relative_error"]
    shrinks = adjust(
        pd.concat(
            [
                spearman_trend(
                    gated, ["max_epochs"], "n_samples", "minus_relative_error"
                ),
                spearman_trend(
                    gated, ["n_samples"], "max_epochs", "minus_relative_error"
                ),
            ],
            ignore_index=True,
        )
    )
    ungated = frame[frame["gate"] == "none"]
    shares = (
        frame.groupby(["tokens", "gate"], sort=False)["positive_share"]
        .agg(["mean", "min", "max"])
        .reset_index()
    )

    def named_verdict(part):
        table = statuses(part, ["condition"])
        return verdict(table["status"], list(table["condition"]))

    return {
        "tests": tests,
        "statuses": statuses(tests, ["condition"]),
        "verdict": named_verdict(tests),
        "verdict by part": {
            "representation": named_verdict(tests.iloc[: len(share)]),
            "sphere cap": named_verdict(tests.iloc[len(share) :]),
        },
        "shrinks": shrinks,
        "shares": shares,
        "gated share": _gated_share(frame),
        "target": 1 / RADIUS**2,
        "ungated max |K|": {
            tokens: float(part["curvature_gaussian"].max())
            for tokens, part in ungated.groupby("tokens", sort=False)
        },
        "sphere ungated max |K|": float(
            sphere.loc[sphere["gate"] == "none", "median_K"].abs().max()
        ),
        "sphere": sphere,
    }


def bayes_ceilings(frames, sizes=(20_000, 1_000)):
    """The Bayes accuracy of every task in ``frames``, from its generator.

    One row per (task, shape, noise, n_observations) found in the tables
    ``frames`` (sweeps, or settings) whose Bayes accuracy is known: skgate's
    makers' tasks, from :func:`skgate.datasets.bayes_accuracy` with
    ``sizes`` = (rows, posterior draws per row), and twonorm and ringnorm
    (:func:`~study.realdata.bayes_accuracy_estimate`). make_moons and
    make_circles have no latent label to integrate, the real measurements no
    generator.
    """
    keys = ["task", "shape", "noise", "n_observations"]
    tasks = pd.concat([frame[keys] for frame in frames]).drop_duplicates()
    tasks = tasks.reset_index(drop=True)
    tasks = tasks[tasks["task"].isin([*MAKER_TASKS, *KNOWN_BAYES])]
    tasks = tasks.reset_index(drop=True)
    tasks["bayes accuracy"] = [
        bayes_accuracy(
            row.shape if row.task == "curved" else "linear",
            noise=row.noise,
            n_observations=int(row.n_observations),
            n_points=sizes[0],
            n_draws=sizes[1],
            random_state=0,
        )
        if row.task in MAKER_TASKS
        else bayes_accuracy_estimate(row.task)
        for row in tasks.itertuples(index=False)
    ]
    return tasks


#: The three curvature measures, each with verdicts of its own.
CURVATURE_MEASURES = {
    "curvature_exact": "acceleration (the paper's)",
    "curvature_extrinsic": "extrinsic",
    "curvature_gaussian": "intrinsic (Gaussian)",
}


def claim_measures(gates, alpha, c1_family=None, c2_family=None):
    """C1's curvature ordering and C2's rise with alpha under each of the
    three curvature measures, each measure its own Holm family, except the
    paper's acceleration: its tests are C1's and C2's own (``c1_family``,
    ``c2_family``, :func:`claim_gates` and :func:`claim_alpha` tables), so
    that a test has one outcome wherever it is quoted.

    Returns, per measure label: "C1" and "C2" (the tests with outcomes, the
    per-condition statuses and the verdict); and "disagreements": the C1
    conditions and C2 shapes where one measure holds and another does not.
    """
    frame = with_tokens(gates)
    curved = alpha[alpha["task"] == "curved"]
    result = {}
    for column, label in CURVATURE_MEASURES.items():
        if column == "curvature_exact" and c1_family is not None:
            c1 = c1_family[c1_family["measure"] == column].reset_index(drop=True)
            c2 = c2_family[c2_family["y"] == column].reset_index(drop=True)
        else:
            c1 = adjust(gate_ordering(frame, column))
            c2 = adjust(spearman_trend(curved, ["shape"], "alpha", column))
        result[label] = {
            "C1": {
                "tests": c1,
                "statuses": statuses(c1, GATE_CONDITION),
                "verdict": verdict_of(c1, GATE_CONDITION),
            },
            "C2": {
                "tests": c2,
                "statuses": statuses(c2, ["shape"]),
                "verdict": verdict_of(c2, ["shape"]),
            },
        }
    disagreements = {}
    for claim, by in (("C1", GATE_CONDITION), ("C2", ["shape"])):
        table = None
        for label, parts in result.items():
            part = parts[claim]["statuses"].rename(columns={"status": label})
            table = part if table is None else table.merge(part, on=by)
        labels = list(result)
        held = table[labels] == HOLDS
        table["disagree"] = held.any(axis=1) & ~held.all(axis=1)
        disagreements[claim] = table
    return {"measures": result, "disagreements": disagreements}


def accuracy_headroom(frame, bayes, condition=GATE_CONDITION):
    """Per condition: the worst and best arms' mean accuracies, the task's
    Bayes accuracy, and whether the condition is at the ceiling (every arm
    near Bayes) or near chance (every arm near 1/2; see
    :data:`CEILING_MARGIN`): conditions where accuracy cannot tell the gates
    apart. ``frame``: a sweep with a row per gate and seed (C1's by default)."""
    frame = with_tokens(frame)
    by = condition + [k for k in ("noise", "tokens") if k not in condition]
    means = frame.groupby(by + ["gate"], sort=False)["accuracy"].mean()
    by_condition = means.groupby(by, sort=False)
    table = pd.concat(
        [by_condition.min().rename("worst arm"), by_condition.max().rename("best arm")],
        axis=1,
    ).reset_index()
    keys = ["shape", "noise", "tokens"]
    ceilings = with_tokens(bayes[bayes["task"] == "curved"])
    table = table.merge(
        ceilings[keys + ["bayes accuracy"]].drop_duplicates(keys), on=keys, how="left"
    )
    table["at ceiling"] = table["worst arm"] >= table["bayes accuracy"] - CEILING_MARGIN
    table["near chance"] = table["best arm"] < 0.5 + CEILING_MARGIN
    return table[
        condition
        + ["worst arm", "best arm", "bayes accuracy", "at ceiling", "near chance"]
    ]


#: Below this exact curvature a model counts as flat when comparing methods.
FLAT_CURVATURE = 1e-6


def curvature_agreement(results):
    """How far the finite-difference curvature is from the exact one, over all fits.

    Returns the median and largest relative difference on curved models,
    the setting of the largest ("worst": sweep, architecture, depth, gate),
    and the largest finite-difference reading on flat ones (exact curvature
    below :data:`FLAT_CURVATURE`).
    """
    names = ("gates", "alpha", "depth_init", "depth_trained")
    measured = pd.concat(
        [results[name].assign(sweep=name) for name in names], ignore_index=True
    )
    curved = measured["curvature_exact"] > FLAT_CURVATURE
    relative = (
        measured["curvature_fd"] - measured["curvature_exact"]
    ).abs() / measured["curvature_exact"]
    worst = measured.loc[relative[curved].idxmax()]
    return {
        "median relative difference": relative[curved].median(),
        "max relative difference": relative[curved].max(),
        "worst": {
            key: worst[key] for key in ("sweep", "architecture", "depth", "gate")
        },
        "max on flat models": measured.loc[~curved, "curvature_fd"].max(),
    }

"""EXPLORATORY.md's sections on the claims C1-C6 and the three curvature measures.

One function per section (:func:`gates_section` for C1 to
:func:`positive_section` for C6, :func:`measures_section`), each from the
claim's tests and verdicts (:mod:`study.claims`) and the sweep
tables, with its figure. Rendering only: every number is computed elsewhere.
"""

import math

import pandas as pd

from . import claims as claim_rules
from . import describe, stats, words
from .facts import ACCURACY_MARGIN, STUDY_GATES
from .render_blocks import (
    PAIRED_COLUMNS,
    TREND_COLUMNS,
    at_default_noise,
    by_measure,
    captioned,
    layer_norm_sentence,
    mean_sd_table,
    paired_table,
)

__all__ = [
    "alpha_section",
    "anisotropy_section",
    "depth_section",
    "gates_section",
    "linear_section",
    "measures_section",
    "positive_section",
]


def _with_bayes(table, bayes, on):
    """``table`` with the tasks' Bayes accuracy (at the default noise) as its
    last column, by ``on``."""
    bayes = at_default_noise(claim_rules.with_tokens(bayes))
    bayes = bayes.rename(columns={"bayes accuracy": "Bayes"})
    bayes["Bayes"] = bayes["Bayes"].map(lambda a: f"{a:.3f}")
    bayes = bayes.drop_duplicates(on)[on + ["Bayes"]]
    return table.merge(bayes, on=on, how="left")


def gates_section(gates, c1, figure, bayes):
    """C1's section: the gate ordering per condition, mean ± sd beside the
    task's Bayes accuracy, and the paired tests."""
    gates = claim_rules.with_tokens(gates)
    by = claim_rules.GATE_CONDITION + ["gate"]
    return [
        "",
        "## C1: multiplicative > SiLU > ungated, in curvature and accuracy",
        "",
        f"Verdict: **{c1['verdict']}**. By measure: {by_measure(c1)}.",
        "",
        f"![gates]({figure})",
        "",
        "Mean ± std over seeds (accuracy), beside the task's Bayes accuracy "
        "(the best any classifier can do, Monte Carlo from the generator):",
        "",
        words.table(
            _with_bayes(
                mean_sd_table(gates, by, "accuracy", "gate"),
                bayes[bayes["task"] == "curved"],
                ["shape", "tokens"],
            )
        ),
        *captioned(
            (
                "Mean ± std over seeds (curvature, exact):",
                words.table(mean_sd_table(gates, by, "curvature_exact", "gate")),
            ),
            ("Paired tests per condition:", paired_table(c1["tests"])),
        ),
    ]


def alpha_section(alpha, c2, figure, bayes):
    """C2's section: accuracy and curvature by alpha on the curved tasks, the
    trends, and curvature against accuracy."""
    curved = alpha[alpha["task"] == "curved"]
    return [
        "",
        "## C2: curvature and accuracy rise with alpha on curved tasks",
        "",
        f"Verdict: **{c2['verdict']}**. By measure: {by_measure(c2)}.",
        "",
        f"![alpha]({figure})",
        "",
        "Test accuracy by alpha (mean ± std over seeds) and the Bayes accuracy:",
        "",
        words.table(
            _with_bayes(
                mean_sd_table(curved, ["shape", "alpha"], "accuracy", "alpha"),
                bayes[(bayes["task"] == "curved") & (bayes["n_observations"] == 1)],
                ["shape"],
            )
        ),
        *captioned(
            (
                "Curvature by alpha (mean ± std over seeds):",
                words.table(
                    mean_sd_table(
                        curved, ["shape", "alpha"], "curvature_exact", "alpha"
                    )
                ),
            ),
            (
                "Spearman correlations over all fits:",
                words.table(c2["tests"][["shape", "x", "y", *TREND_COLUMNS]]),
            ),
        ),
        "",
        "Curvature against accuracy, Spearman over all fits of the alpha sweep "
        "(the linear task is C3's control):",
        "",
        words.table(c2["coupling"][["task", "shape", "x", "y", *TREND_COLUMNS]]),
    ]


def linear_section(alpha, c3, bayes):
    """C3's section: the linear task's accuracy (flat?) and curvature by alpha."""
    linear = alpha[alpha["task"] == "linear"]
    accuracy = stats.mean_std(linear, ["alpha"], "accuracy")
    curvature = stats.mean_std(linear, ["alpha"], "curvature_exact")[["mean", "std"]]
    table = pd.concat(
        [
            accuracy.rename(columns={"mean": "accuracy", "std": "accuracy std"}),
            curvature.rename(columns={"mean": "curvature", "std": "curvature std"}),
        ],
        axis=1,
    )
    return [
        "",
        "## C3: on a linear task accuracy does not move with alpha, curvature does",
        "",
        f"Verdict: **{c3['verdict']}**. Rule: accuracy is flat when every alpha's "
        f"accuracy is equivalent to alpha = 0's within {ACCURACY_MARGIN} "
        "(paired TOST, Holm-adjusted), and moved when any differs "
        "significantly; curvature rises by the trend rule.",
        "",
        *[f"- {name}: {status}" for name, status in c3["statements"].items()],
        "",
        "Bayes accuracy of the linear task: "
        + ", ".join(
            f"{a:.3f}" for a in bayes.loc[bayes["task"] == "linear", "bayes accuracy"]
        )
        + ".",
        "",
        words.table(table),
        "",
        words.table(
            c3["tests"].iloc[1:].reset_index(drop=True)[["comparison", *PAIRED_COLUMNS]]
        ),
    ]


def anisotropy_section(c4, figure):
    """C4's section: the curvature ordering under anisotropic metrics."""
    by = ["metric", "condition_number"]
    table = stats.statuses(c4["tests"], by + claim_rules.GATE_CONDITION)
    ordering = describe.ordering_counts(table, by)
    order = " > ".join(STUDY_GATES.labels[gate] for gate in STUDY_GATES.order)
    return [
        "",
        "## C4: the curvature ordering under anisotropic metrics",
        "",
        f"Verdict: **{c4['verdict']}**. Rule: at each metric (axis-aligned "
        "diagonal, or rotated: the same eigenvalues in a random orthonormal "
        "basis, which mixes every coordinate) and condition number the "
        f"ordering {order} (curvature) must hold in every "
        "condition where it holds under the Euclidean metric "
        f"({c4['euclidean ordering holds in']} of {c4['conditions']} conditions).",
        "",
        f"![anisotropy]({figure})",
        "",
        "Mean curvature relative to the Euclidean value, per gate and metric, by "
        "condition number (curvature scales, the ordering is what must survive):",
        "",
        words.table(c4["ratios"]),
        "",
        "Conditions where the full ordering holds (and where it is reversed), "
        "per metric and condition number:",
        "",
        words.table(ordering),
    ]


def depth_section(results, c5, figure):
    """C5's section: curvature against depth at initialisation and trained,
    per block architecture."""
    depth = pd.concat(
        [
            claim_rules.with_architecture(results["depth_init"]).assign(
                stage="initialisation"
            ),
            claim_rules.with_architecture(results["depth_trained"]).assign(
                stage="trained"
            ),
        ]
    )
    by = ["stage", "architecture", "gate", "depth"]
    return [
        "",
        "## C5: curvature accumulates with depth",
        "",
        f"Verdict (multiplicative gate, by the trend rule at initialisation and "
        f"after training, per block architecture): **{c5['verdict']}**.",
        "",
        "Three stacks of the same blocks: the paper's plain stack (block after "
        "block), residual blocks (h + block(h)) and pre-LN residual blocks "
        "(h + block(LayerNorm(h))), as production transformers are built.",
        *layer_norm_sentence(depth),
        "",
        f"![depth]({figure})",
        "",
        words.table(mean_sd_table(depth, by, "curvature_exact", "depth")),
        "",
        words.table(c5["tests"][["stage", "architecture", "gate", *TREND_COLUMNS]]),
    ]


def positive_section(gates, c6, figures):
    """C6's section: the share of positive Gaussian curvature and the
    sphere-cap regression."""
    gates = claim_rules.with_tokens(gates)
    by = claim_rules.GATE_CONDITION + ["gate"]
    ungated = ", ".join(
        f"{tokens} tokens {value:.3g}"
        for tokens, value in c6["ungated max |K|"].items()
    )
    return [
        "",
        "## C6: gating reaches positive curvature, ungated attention cannot",
        "",
        f"Verdict: **{c6['verdict']}**. By part: "
        f"{words.labelled(c6['verdict by part'])}.",
        "",
        "The theorem's second half, tested two ways in one Holm family. (a) The "
        "sign of the Gaussian curvature K of the representation (the image of "
        "the latent centre's plane, as `curvature_gaussian`) at each measured "
        "test point of C1's fits: the share of points with K > 0, gated against "
        "ungated, paired by seed. (b) A constructive test: regress the input "
        "square onto the cap of a sphere of radius "
        f"{1 / math.sqrt(c6['target']):g} (targets on the sphere, Gaussian "
        f"curvature {c6['target']:g}) with `GatedAttentionRegressor` (linear "
        "head), and measure the fitted map's K in the targets' units (the "
        "regressor standardises targets inside; `metric=y_scale_**2` undoes "
        "it: K is not invariant under anisotropic scaling), gated against "
        "ungated, paired by seed.",
        "",
        f"Largest |K| of ungated attention over all C1 fits (mean over points): "
        f"{ungated}; over the sphere fits' medians: "
        f"{c6['sphere ungated max |K|']:.3g}.",
        "",
        f"![curvature map]({figures['curvature_map']})",
        *captioned(
            (
                "Share of measured points with K > 0 (mean ± std over seeds):",
                words.table(mean_sd_table(gates, by, "positive_share", "gate")),
            ),
            (
                "The gated arm's share with its 95 % t interval over seeds:",
                words.table(c6["gated share"]),
            ),
        ),
        "",
        *_sphere_part(c6, figures["sphere"]),
        "Paired tests (gated > ungated):",
        "",
        words.table(c6["tests"][["condition", "measure", *PAIRED_COLUMNS]]),
    ]


def _sphere_part(c6, figure):
    """C6's sphere-cap fits: the figure, their table and the error's trends."""
    table = describe.sphere_table(c6["sphere"])
    shrinks = c6["shrinks"].assign(
        trend=[f"error against {x}" for x in c6["shrinks"]["x"]]
    )
    return [
        f"![sphere cap]({figure})",
        "",
        "The sphere-cap fits, means over seeds (`median_K`: the fitted map's "
        "median over 200 held-out points; `relative_error`: median |K - 1/R^2| "
        "over 1/R^2; `representation_median_K`: the same map's representation "
        "before the linear head; the `positive_share` columns: points whose K "
        "is positive beyond its noise floor, the output's and the "
        "representation's, the latter tested):",
        "",
        words.table(table),
        "",
        "A fit's second derivatives are determined far more loosely than its "
        "values (a value error e over a spacing h moves a second derivative by "
        "about e / h^2), so the fitted K can miss 1/R^2 while R^2 is near 1: "
        "compare the two columns above. Does the error fall with training rows "
        "(per budget) and with epochs (per size)? "
        "Spearman of minus the error, its own Holm family (holds: the error "
        "falls):",
        "",
        words.table(shrinks[["trend", "max_epochs", "n_samples", *TREND_COLUMNS]]),
        "",
    ]


def measures_section(measures):
    """The three curvature measures' verdicts on C1 and C2, and where they
    disagree."""
    tables = []
    for claim, title in (
        ("C1", "C1's curvature ordering per condition"),
        ("C2", "C2's rise of curvature with alpha per shape"),
    ):
        tables += ["", f"{title}, status under each measure:", ""]
        tables.append(words.table(measures["disagreements"][claim]))
    verdicts = [
        f"- {label}: C1 {parts['C1']['verdict']}; C2 {parts['C2']['verdict']}."
        for label, parts in measures["measures"].items()
    ]
    return [
        "",
        "## Three curvature measures",
        "",
        "The paper's acceleration grows with the scale of the map; the "
        "extrinsic curvature (the normal part of the acceleration over squared "
        "speed) and the intrinsic Gaussian curvature of the image measure bending "
        "differently. The acceleration's tests are C1's and C2's own (same "
        "family, same outcomes as above); the extrinsic and Gaussian measures' "
        "tests are each their own Holm family (`tests_measures.csv`).",
        "",
        *verdicts,
        *tables,
    ]

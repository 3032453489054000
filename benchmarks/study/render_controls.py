"""EXPLORATORY.md's section on the controls of C1 (:mod:`study.controls`).

The training budget with the learning rate searched, C2 and C3 at the
longest budget, arms of the same size, the gate's initialisation and the
tasks' noise, each a part of :func:`controls_section`. Rendering only:
every number is computed elsewhere.
"""

import pandas as pd

from skgate.datasets import CURVED_SHAPES

from . import claims as claim_rules
from . import controls, describe, words
from .design import (
    DEFAULTS,
    effective_weights,
)
from .facts import CEILING_MARGIN, GRIDS, STUDY_GATES
from .render_blocks import (
    TREND_COLUMNS,
    by_measure,
    mean_sd_table,
    paired_table,
)

__all__ = [
    "controls_section",
]


def controls_section(results, controls, design, figures):
    """The controls' section, a part per control the run has (none: no
    section)."""
    if not controls:
        return []
    lines = [
        "",
        "## Controls: budget, learning rate, size, initialisation, noise",
        "",
        "Could C1 come from the training budget, a learning rate that suits "
        "one arm, the gate's extra weights, the gate's initialisation, or tasks "
        "at their ceiling? Each control reruns C1 with one of these changed and "
        "the same statistics (each control its own Holm family).",
    ]
    if "budget" in controls:
        lines += _budget_part(controls["budget"], design, figures["budget"])
    if "alpha_budget" in controls:
        lines += _alpha_budget_part(controls["alpha_budget"], figures["alpha_budget"])
    if "matched" in controls:
        lines += _matched_part(controls["matched"], results["matched"])
    if "gate_init" in controls:
        lines += _gate_init_part(controls["gate_init"])
    if "noise" in controls:
        lines += _noise_part(controls["noise"], figures["noise"])
    return lines


def _arm_table(frame, by, value):
    """Mean ± std of ``value`` per ``by`` x arm (``gate``): shapes in the
    makers' order, arms in C1's."""
    order = {shape: i for i, shape in enumerate(CURVED_SHAPES)}
    frame = frame.sort_values("shape", key=lambda s: s.map(order), kind="stable")
    table = mean_sd_table(frame, by + ["gate"], value, "gate")
    return table[by + [g for g in STUDY_GATES.order if g in table.columns]]


def _budget_part(budget, design, figure):
    frame = budget["frame"]
    by = claim_rules.GATE_CONDITION[:2]
    rates = words.values(design.learning_rates)
    lines = [
        "",
        "### Training budget and learning rate",
        "",
        f"Each arm is trained at each budget ({', '.join(map(str, design.budgets))} "
        f"epochs) with each learning rate ({rates}) on 90 % of its training rows, "
        "keeps the weights of its best epoch on the other 10 % (early stopping "
        "that never stops before the budget), and takes the learning rate "
        "whose best validation accuracy is highest: the same inner search for "
        "every arm. Test accuracy of the chosen model; copied tokens.",
        "",
        f"![budget]({figure})",
    ]
    for epochs, claim in budget["by budget"].items():
        part = frame[frame["max_epochs"] == epochs]
        lines += [
            "",
            f"**{epochs} epochs.** Verdict: **{claim['verdict']}**. By measure: "
            f"{by_measure(claim)}.",
            "",
            words.table(_arm_table(part, by, "accuracy")),
            "",
            "Paired tests per condition:",
            "",
            paired_table(claim["tests"]),
        ]
    chosen = budget["chosen"].merge(budget["best epoch"], on=["max_epochs", "gate"])
    lines += [
        "",
        "Learning rates chosen (fits per rate, over shapes, heads and seeds) and "
        "the median epoch whose weights were kept:",
        "",
        words.table(
            chosen.rename(columns=lambda c: f"lr {c:g}" if isinstance(c, float) else c)
        ),
    ]
    return lines


def _alpha_budget_part(control, figure):
    frame = control["frame"]
    curved = frame[frame["task"] == "curved"]
    linear = frame[frame["task"] == "linear"]
    epochs = control["epochs"]
    return [
        "",
        f"### C2 and C3 at {epochs} epochs",
        "",
        f"The alpha sweep at {epochs} epochs (alphas "
        f"{words.values(GRIDS.coarse_alphas)}), each alpha with its "
        "learning rate chosen by the same search, the same protocol as above.",
        "",
        f"C2: **{control['C2']['verdict']}**. By measure: {by_measure(control['C2'])}.",
        "",
        f"C3: **{control['C3']['verdict']}**.",
        "",
        f"![alpha at {epochs} epochs]({figure})",
        "",
        words.table(
            pd.concat(
                [
                    mean_sd_table(curved, ["shape", "alpha"], "accuracy", "alpha"),
                    mean_sd_table(
                        linear.assign(shape="linear task"),
                        ["shape", "alpha"],
                        "accuracy",
                        "alpha",
                    ),
                ],
                ignore_index=True,
            )
        ),
        "",
        words.table(control["C2"]["tests"][["shape", "x", "y", *TREND_COLUMNS]]),
    ]


def _matched_part(matched_claim, matched):
    widths = matched.drop_duplicates(["gate", "head"])[["gate", "head", "d_model"]]
    widths = widths.assign(
        **{
            "effective weights": [
                effective_weights(g, h, d) for g, h, d in widths.itertuples(index=False)
            ]
        }
    )
    gated = {
        head: effective_weights("multiplicative", head, DEFAULTS["d_model"])
        for head in describe.distinct(widths, "head")
    }
    frame = matched_claim["frame"]
    return [
        "",
        "### Arms of the same size",
        "",
        "SiLU and ungated attention have no gate projection, so at equal width "
        "they have fewer weights. Here they are widened until the weights their "
        "output depends on (query and key do not count over copied tokens) match "
        "the gated arm's at d_model "
        f"{DEFAULTS['d_model']} ("
        + ", ".join(f"{h} head: {n}" for h, n in gated.items())
        + "), then compared with it as in C1 (copied tokens, the paper's budget).",
        "",
        words.table(widths),
        "",
        f"Verdict: **{matched_claim['verdict']}**. By measure: "
        f"{by_measure(matched_claim)}.",
        "",
        words.table(_arm_table(frame, claim_rules.GATE_CONDITION[:2], "accuracy")),
        "",
        paired_table(matched_claim["tests"]),
    ]


def _gate_init_part(claim):
    frame = claim["frame"]
    return [
        "",
        "### The gate's initialisation",
        "",
        "skgate starts the gate projection Xavier-uniform with gain 2; the "
        "gated arm here starts from PyTorch's `nn.Linear` default (the same "
        "random numbers scaled by 1 / (2 sqrt 3)), everything else as in C1 "
        "(copied tokens).",
        "",
        f"Verdict of C1 with it: **{claim['verdict']}**. By measure: "
        f"{by_measure(claim)}.",
        "",
        words.table(_arm_table(frame, claim_rules.GATE_CONDITION[:2], "accuracy")),
        "",
        "Gain 2 against PyTorch's default, gated arm, paired by seed (its own "
        "Holm family; 'holds' means gain 2 is higher):",
        "",
        paired_table(claim["sensitivity"]),
    ]


def _noise_part(noise, figure):
    lines = [
        "",
        "### Noise",
        "",
        "The tasks at noise levels below and above the makers' default "
        f"{DEFAULTS['noise']:g}, MLP head, copied tokens, the default learning "
        "rate, at each budget (the protocol above). Conditions are shape x "
        "noise; the headroom columns say where every arm is at the task's "
        "Bayes accuracy or near chance "
        f"(margin {CEILING_MARGIN}).",
        "",
        f"![noise]({figure})",
    ]
    for epochs, claim in noise["by budget"].items():
        lines += [
            "",
            f"**{epochs} epochs.** Verdict: **{claim['verdict']}**.",
            "",
            words.table(claim["headroom"], 3),
            "",
            paired_table(claim["tests"], controls.NOISE_CONDITION, measure=False),
        ]
    return lines

"""The exploratory page's building blocks, shared by its sections.

Tables of results (mean ± sd per condition and arm, :func:`mean_sd_table`;
a family of paired tests, :func:`paired_table`, with the columns
:data:`PAIRED_COLUMNS` and a trend's :data:`TREND_COLUMNS`; datasets x
models, :func:`dataset_table`), captions above tables (:func:`captioned`)
and the few phrases several sections say alike (a claim's verdict by
measure, :func:`by_measure`; conditions held, :func:`status_tally`; C3's
statements, :func:`c3_statements`; what LayerNorm does to ungated
attention, :func:`layer_norm_sentence`). Rendering only, as everywhere in
``render*``: every number is computed elsewhere.
"""

from . import claims as claim_rules
from . import describe, stats, words
from .design import DEFAULTS

__all__ = [
    "PAIRED_COLUMNS",
    "TREND_COLUMNS",
    "at_default_noise",
    "by_measure",
    "c3_statements",
    "captioned",
    "dataset_table",
    "layer_norm_sentence",
    "mean_sd_table",
    "paired_table",
    "status_tally",
]


def mean_sd_table(frame, by, value, columns):
    """``value``'s mean ± sd over seeds per ``by``, one column per value of
    ``columns`` (one of ``by``), the rest of ``by`` as rows."""
    summary = stats.mean_std(frame, by, value)
    summary["value"] = [
        words.mean_sd(m, s)
        for m, s in zip(summary["mean"], summary["std"], strict=True)
    ]
    return summary.pivot_table(
        index=[b for b in by if b != columns],
        columns=columns,
        values="value",
        aggfunc="first",
        sort=False,
    ).reset_index()


def at_default_noise(bayes):
    """The Bayes accuracies of the tasks as the sweeps other than the noise
    control make them (the makers' default noise)."""
    return bayes[bayes["noise"] == DEFAULTS["noise"]]


def dataset_table(frame, value, cell):
    """Datasets x models: ``cell(mean, std)`` of ``value``, best mean in bold."""
    summary = stats.mean_std(frame, ["dataset", "model"], value)
    summary["cell"] = [
        cell(m, s) for m, s in zip(summary["mean"], summary["std"], strict=True)
    ]
    best = describe.best_rows(summary, "dataset")
    summary.loc[best, "cell"] = "**" + summary.loc[best, "cell"] + "**"
    return summary.pivot_table(
        index="dataset", columns="model", values="cell", aggfunc="first", sort=False
    ).reset_index()


def by_measure(claim):
    """A claim's verdict by measure: "curvature_exact: ...; accuracy: ..."."""
    return words.labelled(claim["verdict by measure"])


#: Columns of a paired test in the report's tables ...
PAIRED_COLUMNS = [
    "mean difference",
    "ci low",
    "ci high",
    "d_z",
    "p",
    "p holm",
    "p reverse holm",
    "p equivalence holm",
    "n",
    "outcome",
]
#: ... and of a trend test.
TREND_COLUMNS = [
    "rho",
    "ci low",
    "ci high",
    "p",
    "p holm",
    "p reverse holm",
    "n",
    "outcome",
]


def paired_table(tests, condition=claim_rules.GATE_CONDITION, measure=True):
    """A family of paired tests as the report prints them: the condition,
    the measure (unless the family has one), the comparison and its numbers."""
    return words.table(
        tests[
            condition
            + (["measure"] if measure else [])
            + ["comparison", *PAIRED_COLUMNS]
        ]
    )


def captioned(*captioned):
    """Lines of ``(caption, table)`` pairs: each caption above its table."""
    return [line for caption, table in captioned for line in ("", caption, "", table)]


def status_tally(statuses):
    """'k of N' conditions whose ``statuses`` hold, with the rest by status."""
    return words.tally(*describe.outcome_counts(statuses))


def c3_statements(c3):
    """C3's statements, each with its status."""
    return [
        f"{name.split(' (')[0]}: {status}" for name, status in c3["statements"].items()
    ]


def layer_norm_sentence(frame):
    """What LayerNorm does to ungated attention, from ``frame``'s ungated
    copied-token fits: flat without it, curved with it."""
    effect = describe.layer_norm_effect(frame)
    if effect is None:
        return []
    return [
        "",
        "LayerNorm is a nonlinearity, so wherever gates are compared under it, "
        "the ungated arm is not flat: over copied tokens ungated attention "
        f"measures at most {effect['flat max']:.2g} without LayerNorm (exactly "
        f"affine) and {effect['curved mean']:.3g} on average with it (range "
        f"{effect['curved min']:.3g}-{effect['curved max']:.3g}). There, the gate "
        "adds curvature "
        "to a curved map rather than creating it.",
    ]

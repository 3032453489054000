"""The second confirmatory part in REPORT.md: its tables, figures and words.

Everything here is computed from the run's files (seq_<sweep>.csv and the
"sequences" record of run.json), so ``python -m skgate report --from DIR``
renders it again without training.
"""

from pathlib import Path

import pandas as pd

from . import plots, primary, render, sequences, words
from .stats import ALPHA_LEVEL, HOLDS, NO_EFFECT, REVERSED

__all__ = [
    "FILES",
    "bottom_line",
    "evaluate",
    "findings",
    "load",
    "section",
    "write_tables",
]

#: The part's sweeps' CSVs, by sweep name.
FILES = {
    name: f"seq_{name}.csv"
    for name in ("arms", "alpha", "depth", "lr_grid", "epochs20")
}
#: Its derived tables, by part name.
TABLES = {
    "tests": "tests_2_primary.csv",
    "secondary": "tests_2_secondary.csv",
    "power": "power_2.csv",
    "convergence": "convergence_2.csv",
    "arms": "arms_2.csv",
    "lr": "lr_2.csv",
    "metric": "metric_2.csv",
    "association": "association_2.csv",
    "alpha curve": "alpha_curve_2.csv",
}
FIGURES = {
    "tests": "fig_primary_2.png",
    "arms": "fig_sequence_arms.png",
    "lr": "fig_lr.png",
}


#: The tasks' Bayes accuracies (written by the run, from the generator).
BAYES = "seq_bayes.csv"


def write_bayes(folder, sizes=(20_000, 1_000)):
    """seq_bayes.csv: the Bayes accuracy of every task the part's arms ran
    on, from the generator (:func:`skgate.study.claims.bayes_ceilings`;
    ``sizes``: rows and posterior draws per row)."""
    from .claims import bayes_ceilings

    folder = Path(folder)
    arms = pd.read_csv(folder / FILES["arms"])
    bayes_ceilings([arms], sizes).to_csv(
        folder / BAYES, index=False, float_format="%.6g"
    )


def load(folder):
    """The part's frames by sweep, or None where the run has none."""
    folder = Path(folder)
    if not (folder / FILES["arms"]).is_file():
        return None
    files = {**FILES, "bayes": BAYES}
    return {
        name: pd.read_csv(folder / file)
        for name, file in files.items()
        if (folder / file).is_file()
    }


def _conditions(record):
    return tuple(
        {"shape": c["shape"], "noise": float(c["noise"])} for c in record["conditions"]
    )


def evaluate(frames, record):
    """Every table of the part from its frames (with "bayes", where the run
    wrote it) and run record."""
    conditions = _conditions(record)
    left = tuple(tuple(pair) for pair in record.get("left_family", ()))
    family = sequences.tests(conditions, record["c2_curvature"], left)
    tests = sequences.primary_tests(frames, family)
    plan = pd.DataFrame(record["plan"])
    if "affordable" in plan:  # the candidates the budget kept, in order
        plan = plan[plan["affordable"].astype(bool)].reset_index(drop=True)
    parts = {
        "fits": frames["arms"],
        "conditions": conditions,
        "tests": tests,
        "verdicts": sequences.claim_verdicts(tests),
        "secondary": sequences.secondary_tests(
            frames, conditions, record["c2_curvature"], left
        ),
        "arms": sequences.arm_summary(frames["arms"], frames.get("bayes")),
        "metric": sequences.metric_agreement(frames["arms"]),
        "convergence": pd.concat(
            [
                sequences.convergence(frames[name], cap=_cap(record)).assign(sweep=name)
                for name in ("arms", "alpha", "depth")
            ],
            ignore_index=True,
        ),
        "power": primary.power_table(plan, tests, family)
        if len(plan) == len(family)
        else None,
        "lr": sequences.lr_table(frames) if "lr_grid" in frames else None,
        "alpha curve": sequences.alpha_curve(frames["alpha"]),
        "association": primary.mediation(
            {"arms": frames["arms"], "alpha": frames["alpha"]}, conditions[0]
        ),
    }
    return parts


def _cap(record):
    return record.get("fixed", {}).get("max_epochs", sequences.CAP)


def write_tables(parts, out):
    """The derived tables and the figures into ``out``."""
    out = Path(out)
    for name, file in TABLES.items():
        if parts.get(name) is not None:
            parts[name].to_csv(out / file, index=False, float_format="%.10g")
    figure = plots.plot_primary(parts["tests"], with_condition=True)
    figure.savefig(out / FIGURES["tests"], dpi=110)
    plots.pyplot().close(figure)
    figure = plots.plot_sequence_arms(parts["fits"], parts["arms"])
    figure.savefig(out / FIGURES["arms"], dpi=110)
    plots.pyplot().close(figure)
    if parts.get("lr") is not None:
        figure = plots.plot_learning_rates(parts["lr"])
        figure.savefig(out / FIGURES["lr"], dpi=110)
        plots.pyplot().close(figure)


# -- words -------------------------------------------------------------------------


_num, _interval, _WORDS = words.number, words.interval, words.RESULT_WORDS


def _outcome(row):
    words = _WORDS[row["outcome"]]
    if row["outcome"] == NO_EFFECT or (
        row["kind"] == "equivalence" and row["outcome"] == HOLDS
    ):
        words += f", equivalent within {_num(row['margin'])}"
    return words


def _accuracy_phrases(tests, worse, secondary=None):
    """Gated minus ``worse`` accuracy on the primary test's tasks, with each
    condition's own estimate (the secondary "each condition alone") beside."""
    rows = tests[
        (tests["claim"] == "C1")
        & (tests["quantity"] == "accuracy")
        & (tests["comparison"] == f"gated > {worse}")
    ]
    each = ""
    if secondary is not None:
        alone = secondary[
            (secondary["analysis"] == "each condition alone")
            & (secondary["quantity"] == "accuracy")
            & (secondary["comparison"] == f"gated > {worse}")
        ]
        each = "; " + ", ".join(
            f"{_short(row['condition'])} {_num(row['estimate'])}"
            for _, row in alone.iterrows()
        )
    return [
        f"{_short(row['condition'])}: {_interval(row)}, {_outcome(row)}{each}"
        for _, row in rows.iterrows()
    ]


def _answer(tests, worse):
    """Does gated beat ``worse`` in accuracy: "yes", "no" or "undecided"?"""
    rows = tests[
        (tests["claim"] == "C1")
        & (tests["quantity"] == "accuracy")
        & (tests["comparison"] == f"gated > {worse}")
    ]
    outcomes = set(rows["outcome"])
    if outcomes == {HOLDS}:
        return "is more accurate than"
    if outcomes <= {NO_EFFECT, REVERSED}:
        return "is not more accurate than"
    if HOLDS in outcomes:
        return "is more accurate, in some conditions only, than"
    return "is not shown more accurate than"


def bottom_line(parts, first=None):
    """At most three sentences: does gating help, where, and by how much
    (``first``: the first part's tests, for the copied-token answer)."""
    tests = parts["tests"]
    sentences = [
        "Over softmax attention on sequences of 8 noisy observations, at "
        "convergence with each arm's own learning rate, gated attention "
        f"{_answer(tests, 'SiLU')} SiLU (accuracy difference "
        + "; ".join(_accuracy_phrases(tests, "SiLU", parts["secondary"]))
        + f") and {_answer(tests, 'ungated')} ungated attention ("
        + "; ".join(_accuracy_phrases(tests, "ungated", parts["secondary"]))
        + ")."
    ]
    linear = tests[(tests["claim"] == "C3") & (tests["quantity"] == "accuracy")]
    clause = ""
    if first is not None:
        copied = first[
            (first["claim"] == "C1")
            & (first["quantity"] == "accuracy")
            & (first["comparison"] == "gated > SiLU")
        ].iloc[0]
        clause = (
            "; with copied tokens (uniform attention, protocol 1) gated minus "
            f"SiLU accuracy was {_interval(copied)} ({_outcome(copied)})"
        )
    if len(linear):
        row = linear.iloc[0]
        sentences.append(
            "On the linear control gated minus ungated accuracy is "
            f"{_interval(row)} ({_outcome(row)}){clause}."
        )
    sentences.append(_curvature_sentence(tests))
    return sentences[:3]


def _curvature_sentence(tests):
    """Whether gating brings curvature: C1's turning rate against SiLU and
    ungated, C4's own-metric turning rate and C6's positive share against
    SiLU."""

    def phrase(claim, comparison):
        rows = tests[(tests["claim"] == claim) & (tests["comparison"] == comparison)]
        rows = rows[rows["quantity"] != "accuracy"]
        if rows.empty:
            return None
        row = rows.iloc[0]
        return f"{_interval(row)} ({_WORDS[row['outcome']]})"

    parts = [
        ("turning rate", phrase("C1", "gated > SiLU"), phrase("C1", "gated > ungated")),
        ("under each model's own metric", phrase("C4", "gated > SiLU"), None),
        ("share of positive curvature", phrase("C6", "gated > SiLU"), None),
    ]
    said = [
        f"{what} {silu} against SiLU"
        + (f" and {ungated} against ungated" if ungated else "")
        for what, silu, ungated in parts
        if silu is not None
    ]
    return "In curvature, gated minus the others: " + "; ".join(said) + "."


def early_line(parts):
    """The 20-epoch comparison beside the one at convergence (secondary)."""
    secondary = parts["secondary"]
    early = secondary[secondary["analysis"].str.startswith("20 epochs")]
    alone = secondary[
        (secondary["analysis"] == "each condition alone")
        & (secondary["quantity"] == "accuracy")
    ]
    if early.empty:
        return None
    phrases = []
    for _, row in early.iterrows():
        late = alone[
            (alone["condition"] == row["condition"])
            & (alone["comparison"] == row["comparison"])
        ]
        phrases.append(
            f"{row['comparison']} ({_short(row['condition'])}) {_interval(row)}"
            + (
                f" against {_num(late['estimate'].iloc[0])} at convergence"
                if len(late)
                else ""
            )
        )
    return (
        "**After 20 epochs at lr 0.002** (the exploratory setting, secondary), "
        "accuracy: " + "; ".join(phrases) + "."
    )


def _short(condition):
    """A condition's name in the Findings: its shape ("linear" for the task;
    "mean of rings and checkerboard" for a test on their mean)."""
    return condition.split(",")[0].removesuffix(" task")


def findings(parts):
    """The part's findings, one short line per claim: its verdict and each
    test's estimate, interval and outcome, grouped by comparison."""
    lines = []
    verdicts = parts["verdicts"].set_index("claim")["verdict"]
    for claim, group in parts["tests"].groupby("claim", sort=True):
        held = (group["outcome"] == HOLDS).sum()
        comparisons = []
        keys = ["quantity", "comparison"]
        for (quantity, comparison), rows in group.groupby(keys, sort=False):
            each = ", ".join(
                f"{_short(row['condition'])} {_interval(row)} {_WORDS[row['outcome']]}"
                for _, row in rows.iterrows()
            )
            comparisons.append(f"{quantity} {comparison}: {each}")
        verdict = verdicts[claim].split(" (")[0]
        note = _shape_note(parts["alpha curve"]) if claim == "C2" else ""
        lines.append(
            f"{claim} {verdict} ({held} of {len(group)} hold): "
            + "; ".join(comparisons)
            + f".{note}"
        )
    return lines


def _shape_note(curve):
    """The mean turning rate by alpha and where the seeds' curves peak."""
    means = ", ".join(f"{r.alpha:g}: {r.turning:.3g}" for r in curve.itertuples())
    peaks = ", ".join(f"{r._4} at {r.alpha:g}" for r in curve.itertuples() if r._4)
    return f" Mean turning rate by alpha {means}; seeds' peaks: {peaks}."


def secondary_lines(parts, record):
    """The part's secondary answers in a line each: convergence, learning
    rates, the grid's largest rate, and curvature against accuracy."""
    convergence = parts["convergence"]
    arms = convergence[convergence["sweep"] == "arms"]
    late = [c for c in arms.columns if c.startswith("share best after")][0]
    failed = arms[~arms["converged"]]
    worst = arms.loc[arms[late].idxmax()]
    lines = [
        f"**Convergence** (rule: under {sequences.LATE_SHARE:.0%} of an arm's "
        f"fits with their best epoch in the last {sequences.LATE_FRACTION:.0%} "
        f"of {_cap(record)} epochs): "
        + (
            "met by every arm on every task"
            if failed.empty
            else f"not met by {len(failed)} of {len(arms)} arms and tasks"
        )
        + f" (largest share {worst[late]:.0%}, {worst['arm']} on {worst['task']})."
    ]
    rates = pd.DataFrame(record["learning_rates"])
    rates = rates.assign(arm=rates["gate"].map(primary.ARM_LABELS))
    chosen = "; ".join(
        f"{_short(task)}: " + ", ".join(f"{r.arm} {r.lr:g}" for r in group.itertuples())
        for task, group in rates.groupby("task", sort=False)
    )
    lines.append(f"**Learning rates** chosen on the pilot: {chosen}.")
    early = early_line(parts)
    if early is not None:
        lines.append(early)
    secondary = parts["secondary"]
    largest = secondary[secondary["analysis"].str.startswith("every arm at lr")]
    if len(largest):
        phrases = "; ".join(
            f"{row['comparison']} ({_short(row['condition'])}) {_interval(row)}"
            for _, row in largest.iterrows()
        )
        n = int(largest["n"].min())
        level = ALPHA_LEVEL / len(secondary)
        powerless = (
            f" ({n} seeds: the smallest sign-flip p, 1/{2**n}, cannot pass the "
            f"level {level:.2g}; descriptive only)"
            if 0.5**n >= level
            else ""
        )
        lines.append(
            f"**At the grid's largest rate** ({largest['analysis'].iloc[0]}, "
            f"secondary), accuracy: {phrases}{powerless}."
        )
    association = parts["association"]
    short = {
        "within the gated arm, across alpha and seeds": "across alpha",
        "across arms, beyond the gate": "across arms",
    }
    phrases = "; ".join(
        f"{_short(row['task'])} {short.get(row['analysis'], row['analysis'])} "
        f"{_num(row['accuracy per sd of turning'])} "
        f"[{_num(row['ci low'])}, {_num(row['ci high'])}]"
        for _, row in association.iterrows()
    )
    lines.append(
        "**Curvature and accuracy across fits** (an association, not an effect "
        f"of curvature), accuracy per sd of the turning rate: {phrases}."
    )
    return lines


def _table(frame, digits=3):
    return render._fmt(frame, digits)


#: The columns every table of tests shows.
_SHOWN = [
    "condition",
    "quantity",
    "comparison",
    "estimate",
    "ci low",
    "ci high",
    "p holm",
]


def section(parts, record):
    """The part's section of REPORT.md (lines)."""
    sha = record.get("protocol_sha256") or "unknown"
    seeds = ", ".join(f"{name} {n}" for name, n in record["seeds"].items())
    secondary = record.get(
        "secondary_seeds",
        {"lr_grid": sequences.LR_GRID_SEEDS, "epochs20": sequences.EPOCHS20_SEEDS},
    )
    tests = parts["tests"]
    shown = tests[
        [
            "claim",
            *_SHOWN,
            "p equivalence holm",
            "margin",
            "n",
            "outcome",
        ]
    ]
    rates = pd.DataFrame(record["learning_rates"])
    lines = [
        "",
        "## Part 2: softmax attention over sequences (protocol 2)",
        "",
        f"Protocol `docs/protocol-2.md`, SHA-256 `{sha}`; "
        f"`{record['command']}`. Seeds from {record['first_seed']} ({seeds} "
        f"per sweep; of the arms' seeds, the learning-rate grid takes the first "
        f"{secondary['lr_grid']} and the 20-epoch arms the first "
        f"{secondary['epochs20']}), disjoint from the pilot's and every earlier "
        "run's.",
    ]
    if record.get("quick"):
        lines += [
            "",
            "**A quick run**: pilot-sized seeds and a shortened budget; its "
            "verdicts are not the study's evidence.",
        ]
    lines += [
        "",
        "Each row is a sequence of 8 noisy observations of a latent point, "
        "one token of width 2 each, so softmax attention weighs tokens by "
        "content; every arm trains at its own learning rate (chosen on the "
        "pilot's validation rows), at most "
        f"{_cap(record)} epochs, stopping {sequences.PATIENCE} epochs after "
        "its best validation accuracy and keeping that epoch's weights. "
        f"One Holm family of {len(tests)} tests, none fixed by construction.",
        "",
        "### Verdicts",
        "",
        *words.verdict_table(parts["verdicts"]),
        "",
        "### Primary tests",
        "",
        f"![primary tests, part 2]({FIGURES['tests']})",
        "",
        _table(shown, 4),
        "",
        "### The arms",
        "",
        "Means over seeds at each arm's learning rate (Bayes accuracy from "
        "the generator where the run has it):",
        "",
        f"![accuracy of each arm, every seed]({FIGURES['arms']})",
        "",
        _table(parts["arms"]),
        "",
        "Learning rates fixed by the protocol from the pilot:",
        "",
        _table(rates),
        "",
        "### Convergence",
        "",
        f"Rule: fewer than {sequences.LATE_SHARE:.0%} of an arm's fits have "
        f"their best validation epoch in the last "
        f"{sequences.LATE_FRACTION:.0%} of the cap.",
        "",
        _table(parts["convergence"]),
    ]
    if parts["power"] is not None:
        power = parts["power"].pivot_table(
            index=["claim", "condition", "outcome", "comparison"],
            columns="stage",
            values=["n_seeds", "sd", "power"],
            sort=False,
        )
        power.columns = [f"{stat} ({stage})" for stat, stage in power.columns]
        lines += [
            "",
            "### Power",
            "",
            "Planned from the pilot's standard deviations; achieved at this "
            "run's (`power_2.csv`).",
            "",
            _table(power.reset_index()),
        ]
    secondary = parts["secondary"][
        [
            "analysis",
            *_SHOWN,
            "n",
            "outcome",
        ]
    ]
    lines += [
        "",
        "### Secondary analyses",
        "",
        "One Holm family of its own (`tests_2_secondary.csv`).",
        "",
        _table(secondary, 4),
        "",
        "C4's metric against the Euclidean one (the per-fit correlation says "
        "how much the metric can reorder):",
        "",
        _table(parts["metric"]),
    ]
    if parts["lr"] is not None:
        lines += [
            "",
            "Each arm's test accuracy across the learning-rate grid (does "
            "gating tolerate larger rates?):",
            "",
            f"![accuracy against learning rate]({FIGURES['lr']})",
            "",
            _table(parts["lr"]),
        ]
    lines += [
        "",
        "C2's curve on rings (the gated arm by alpha; the seeds whose "
        "turning rate peaks at each alpha):",
        "",
        _table(parts["alpha curve"]),
        "",
        "Association of curvature with accuracy across fits (not a causal "
        "effect): OLS of test accuracy on the standardised turning rate with "
        "fixed effects for alpha (or the gate) and the seed, 95 % interval "
        "from 2000 bootstrap resamples of seeds:",
        "",
        _table(parts["association"], 4),
    ]
    return lines

"""The second confirmatory part in REPORT.md: its tables, figures and words.

Everything here is computed from the run's files (seq_<sweep>.csv and the
"sequences" record of run.json), so ``python -m study report --from DIR``
renders it again without training.
"""

from pathlib import Path

import pandas as pd

from .. import (
    attainable,
    confirmatory,
    plots,
    plots_confirmatory,
    primary,
    runfiles,
    sequences,
    words,
)
from .. import sequences_secondary as secondary
from ..facts import (
    ATTAINABLE_SEEDS,
    EPOCHS,
    QUICK_SEQUENCE_SEEDS,
    SCORE_MARGIN,
    SEQUENCE,
    STALL_FRACTION,
    STUDY_GATES,
)
from ..part import Part
from ..paths import BENCHMARKS
from ..sequences import short_label
from ..sequences_files import BAYES, FIGURES, FILES, TABLES, load, write_bayes
from ..stats import ALPHA_LEVEL, HOLDS, INCONCLUSIVE, NO_EFFECT, REVERSED

__all__ = [
    "FILES",
    "PART",
    "PLAN",
    "PROTOCOL",
    "SoftmaxSequences",
    "bottom_line",
    "evaluate",
    "findings",
    "load",
    "section",
    "write_tables",
]

#: The part's protocol and seed plan (``python -m study pilot --protocol 2``),
#: beside the package in a checkout.
PROTOCOL = "protocol-2.md"
PLAN = BENCHMARKS / "pilot-2" / "plan.csv"


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
    arms = secondary.arm_summary(frames["arms"], frames.get("bayes"))
    attained = (
        attainable.table(frames["attainable"], frames["arms"])
        if "attainable" in frames
        else None
    )
    parts = {
        "fits": frames["arms"],
        "conditions": conditions,
        "tests": tests,
        "verdicts": sequences.claim_verdicts(tests, frames, family, arms, attained),
        "secondary": secondary.secondary_tests(
            frames, conditions, record["c2_curvature"], left
        ),
        "arms": arms,
        "metric": secondary.metric_agreement(frames["arms"]),
        "convergence": pd.concat(
            [
                secondary.convergence(frames[name], cap=_cap(record)).assign(sweep=name)
                for name in ("arms", "alpha", "depth")
            ],
            ignore_index=True,
        ),
        "power": primary.power_table(plan, tests, family)
        if len(plan) == len(family)
        else None,
        "lr": secondary.lr_table(frames) if "lr_grid" in frames else None,
        "alpha curve": secondary.alpha_curve(frames["alpha"]),
        "alpha steps": secondary.alpha_steps(frames["alpha"]),
        "epochs20": frames.get("epochs20"),
        "attainable": attained,
        "idle": {
            sweep: sequences.idle_fits(frames[sweep], attained, short_label)
            for sweep in ("alpha", "depth")
            if sweep in frames
        }
        | ({"lr_grid": _idle_rates(frames, attained)} if "lr_grid" in frames else {}),
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
    figure = plots_confirmatory.plot_primary(parts["tests"], with_condition=True)
    figure.savefig(out / FIGURES["tests"], dpi=110)
    plots.pyplot().close(figure)
    figure = plots_confirmatory.plot_sequence_arms(parts["fits"], parts["arms"])
    figure.savefig(out / FIGURES["arms"], dpi=110)
    plots.pyplot().close(figure)
    if parts.get("lr") is not None:
        figure = plots_confirmatory.plot_learning_rates(parts["lr"])
        figure.savefig(out / FIGURES["lr"], dpi=110)
        plots.pyplot().close(figure)


# -- words -------------------------------------------------------------------------


_num, _interval, _WORDS = words.number, words.interval, words.RESULT_WORDS


def _outcome(row):
    said = _WORDS[row["outcome"]]
    if row["outcome"] == NO_EFFECT or (
        row["kind"] == "equivalence" and row["outcome"] == HOLDS
    ):
        said += f", equivalent within {_num(row['margin'])}"
        shown = row["p holm"] < ALPHA_LEVEL or row["p reverse holm"] < ALPHA_LEVEL
        if shown:  # a difference smaller than the margin, yet not 0
            said += "; yet not 0"
    return said


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
            f"{short_label(row['condition'])} {_num(row['estimate'])}"
            for _, row in alone.iterrows()
        )
    return [
        f"{short_label(row['condition'])}: {_interval(row)}, {_outcome(row)}{each}"
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


def bottom_line(parts, first=None, first_convergence=None):
    """At most three sentences: does gating help, where, and by how much
    (``first``: the first part's tests, for the copied-token answer, with
    its convergence table ``first_convergence``)."""
    tests = parts["tests"]
    sentences = [
        f"Over softmax attention on sequences of {SEQUENCE.n_observations} noisy "
        f"observations, {_budget(parts)} with each arm's own learning rate, gated "
        f"attention {_answer(tests, 'SiLU')} SiLU (accuracy difference "
        + "; ".join(_accuracy_phrases(tests, "SiLU", parts["secondary"]))
        + attainable.idle_clause(
            parts.get("attainable"), parts["arms"], "SiLU", short_label
        )
        + f") and {_answer(tests, 'ungated')} ungated attention ("
        + "; ".join(_accuracy_phrases(tests, "ungated", parts["secondary"]))
        + attainable.idle_clause(
            parts.get("attainable"), parts["arms"], "ungated", short_label
        )
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
            "; with copied tokens (uniform attention, protocol 1, "
            f"{confirmatory.budget_words(first_convergence)}) gated minus "
            f"SiLU accuracy was {_interval(copied)} ({_outcome(copied)})"
        )
    if len(linear):
        row = linear.iloc[0]
        arms = parts["arms"]
        bayes = arms.loc[arms["task"] == row["condition"], "Bayes accuracy"]
        ceiling = confirmatory.equivalence_ceiling(row, arms)
        at = f", at its ceiling (Bayes {bayes.iloc[0]:.3f})," if ceiling else ""
        sentences.append(
            f"On the linear control{at} gated minus ungated accuracy is "
            f"{_interval(row)} ({_outcome(row)}){clause}."
        )
    idle = attainable.idle_clause(
        parts.get("attainable"), parts["arms"], "ungated", short_label
    )
    sentences.append(
        _curvature_sentence(
            tests, idle.replace("; on", " (on", 1) + ")" if idle else ""
        )
    )
    return sentences[:3]


def _budget(parts):
    """How the arms' accuracies may be named: "at convergence" only where
    the arms sweep passes the stall rule stated before the replication
    (:func:`~study.confirmatory.budget_words`)."""
    convergence = parts["convergence"]
    return confirmatory.budget_words(convergence[convergence["sweep"] == "arms"])


def _curvature_sentence(tests, idle=""):
    """Whether gating brings curvature: C1's turning rate against SiLU and
    ungated (``idle``: where ungated did not learn), C4's own-metric turning
    rate and C6's positive share against SiLU."""

    def phrase(claim, comparison):
        rows = tests[(tests["claim"] == claim) & (tests["comparison"] == comparison)]
        rows = rows[rows["quantity"] != "accuracy"]
        if rows.empty:
            return None
        row = rows.iloc[0]
        return words.result(row)

    parts = [
        ("turning rate", phrase("C1", "gated > SiLU"), phrase("C1", "gated > ungated")),
        ("under each model's own metric", phrase("C4", "gated > SiLU"), None),
        ("share of positive curvature", phrase("C6", "gated > SiLU"), None),
    ]
    said = [
        f"{what} {silu} against SiLU"
        + (f" and {ungated} against ungated{idle}" if ungated else "")
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
            f"{row['comparison']} ({short_label(row['condition'])}) {_interval(row)}"
            + (f" ({_num(late['estimate'].iloc[0])})" if len(late) else "")
        )
    return (
        f"**After {EPOCHS.paper} epochs at lr {sequences.DEFAULT_LR:g}** (secondary; "
        f"{_budget(parts)} in parentheses), accuracy: "
        + "; ".join(phrases)
        + attainable.idle_then(
            parts.get("epochs20"), parts.get("attainable"), short_label
        )
        + "."
    )


def findings(parts):
    """The part's findings, one short line per claim: its verdict and each
    test's estimate, interval and outcome, grouped by comparison."""
    lines = []
    verdicts = parts["verdicts"].set_index("claim")["verdict"]
    against = words.against_claims(parts["secondary"])
    for claim, group in parts["tests"].groupby("claim", sort=True):
        held = (group["outcome"] == HOLDS).sum()
        comparisons = []
        keys = ["quantity", "comparison"]
        for (quantity, comparison), rows in group.groupby(keys, sort=False):
            each = ", ".join(
                f"{short_label(row['condition'])} {_interval(row)} "
                + (
                    _outcome(row)
                    if row["kind"] == "equivalence"
                    else _WORDS[row["outcome"]]
                )
                for _, row in rows.iterrows()
            )
            comparisons.append(f"{quantity} {comparison}: {each}")
        verdict = words.verdict_word(verdicts[claim])
        note = _steps_note(parts["alpha steps"]) if claim == "C2" else ""
        for _, row in group.iterrows():
            note += confirmatory.equivalence_ceiling(row, parts["arms"])
        if verdict == "not tested":
            verdict = verdicts[claim]  # with why, as the rule asks
        else:
            verdict += f" ({words.tally(held, len(group))} hold)"
        lines.append(
            f"{claim} {verdict}: "
            + "; ".join(comparisons)
            + f".{note}"
            + _against(against.pop(claim, []))
        )
    for claim, said in sorted(against.items()):  # claims outside the family
        sweep = _SWEEP_OF.get(claim)
        idle = parts.get("idle", {}).get(sweep)
        did_not = (
            f" In {_SWEEP_NAMES[sweep]}, did not learn: {', '.join(idle)}."
            if idle
            else ""
        )
        lines.append(f"{claim} (no primary test):{_against(said)}{did_not}")
    return lines


#: The sweeps whose arms may not have learned, in words.
_SWEEP_NAMES = {
    "alpha": "the alpha sweep",
    "depth": "the depth sweep",
    "lr_grid": "the learning-rate grid",
}
#: The sweep a claim outside the primary family reads.
_SWEEP_OF = {"C5": "depth"}


def _idle_rates(frames, attained):
    """The arms of the learning-rate grid that did not learn, each arm's own
    rate included (its fits in the arms sweep on the grid's seeds, as the
    grid's table shows them)."""
    grid = frames["lr_grid"]
    own = frames["arms"][frames["arms"]["seed"].isin(set(grid["seed"]))]
    return sequences.idle_fits(
        pd.concat([grid, own], ignore_index=True), attained, short_label
    )


def _idle_lines(parts, sweep):
    """The arms of ``sweep`` that did not learn, in a line below its table."""
    idle = parts.get("idle", {}).get(sweep)
    if not idle:
        return []
    return [
        "",
        f"Did not learn (mean accuracy within {SCORE_MARGIN:g} of the majority "
        f"class), in {_SWEEP_NAMES[sweep]}: {', '.join(idle)}.",
    ]


def _against(said):
    """The secondary results against a claim, beside it in the Findings."""
    return f" Against it (secondary): {'; '.join(said)}." if said else ""


def _steps_note(steps):
    """C2 step by step: the steps that hold or are reversed, each with its
    mean change and interval (the rest are inconclusive), and how many
    seeds rise at every step."""
    decided, every = [], []
    for quantity, rows in steps.groupby("quantity", sort=False):
        decided += [
            f"{quantity} {r['step'].replace(' ', '')} "
            f"{_num(r['estimate'])} [{_num(r['ci low'])}, {_num(r['ci high'])}] "
            f"{_WORDS[r['outcome']]}"
            for _, r in rows.iterrows()
            if r["outcome"] != INCONCLUSIVE
        ]
        every.append(str(rows["seeds rising at every step"].iloc[0]))
    named = ", ".join(step.replace(" ", "") for step in dict.fromkeys(steps["step"]))
    return (
        f" By step (secondary, {words.POST_HOC}, Holm; {named}): "
        + ("; ".join(decided) if decided else "none decided")
        + f", the rest inconclusive; seeds rising at every step: "
        f"{' and '.join(every)} of {steps['n'].iloc[0]}."
    )


def _blank_alpha(table):
    """``table`` with an empty alpha where the arm has none (SiLU, ungated)."""
    alpha = table["alpha"].map(lambda a: "" if pd.isna(a) else f"{a:g}")
    return table.assign(alpha=alpha)


def _at_alpha(row):
    return "" if pd.isna(row["alpha"]) else f" at alpha {row['alpha']:g}"


def _stalled_clause(convergence):
    """The stalled fits beside the rule: the largest share of an arm's fits
    whose best epoch is in the first part of the cap, on the curved tasks
    (on the linear task, near its ceiling, an early best epoch is a fit
    done, not stalled)."""
    early = [c for c in convergence.columns if c.startswith("share best by epoch")][0]
    linear = convergence["task"] == "linear task"
    worst = convergence[~linear].loc[lambda t: t[early].idxmax()]
    return (
        f"stalled (best epoch by {early.removeprefix('share best by ')}; added "
        f"after the run): up to {worst[early]:.0%} on the curved tasks "
        f"({worst['arm']}, {short_label(worst['task'])}{_at_alpha(worst)}), "
        f"{convergence[linear][early].min():.0%}-"
        f"{convergence[linear][early].max():.0%} on the linear task, near its "
        "ceiling"
    )


def _largest_rate_note(secondary, idle_rates=()):
    """The grid's largest rate in words (every arm at it, secondary), and
    whether its few seeds can decide anything: for the section."""
    largest = secondary[secondary["analysis"].str.startswith("every arm at lr")]
    if not len(largest):
        return []
    phrases = "; ".join(
        f"{row['comparison']} ({short_label(row['condition'])}) {_interval(row)}"
        for _, row in largest.iterrows()
    )
    n = int(largest["n"].min())
    level = ALPHA_LEVEL / len(secondary)
    powerless = (
        f" ({n} seeds: no p below 1/{2**n}, above the level {level:.2g}; "
        "descriptive only)"
        if 0.5**n >= level
        else ""
    )
    rate = largest["analysis"].iloc[0]
    idle = [
        arm
        for arm in idle_rates
        if f" at lr {rate.removeprefix('every arm at lr ').split()[0]} " in arm
    ]
    said = f"; did not learn at that rate: {', '.join(idle)}" if idle else ""
    return [
        "",
        f"At the grid's largest rate ({rate}), accuracy: {phrases}{powerless}{said}.",
    ]


def secondary_lines(parts, record):
    """The part's secondary answers in a line each: convergence, learning
    rates, the grid's largest rate, and curvature against accuracy."""
    convergence = parts["convergence"]
    late = [c for c in convergence.columns if c.startswith("share best after")][0]
    failed = convergence[~convergence["converged"]]
    worst = convergence.loc[convergence[late].idxmax()]
    lines = [
        f"**Convergence** (under {sequences.LATE_SHARE:.0%} of "
        f"fits peaking in the last {sequences.LATE_FRACTION:.0%} of "
        f"{_cap(record)} epochs): "
        + (
            "met in every sweep"
            if failed.empty
            else f"not met in {len(failed)} of {len(convergence)} arm-task-sweeps"
        )
        + f" (largest share {worst[late]:.1%}: {worst['arm']}, "
        f"{short_label(worst['task'])}{_at_alpha(worst)}, {worst['sweep']} sweep); "
        + _stalled_clause(convergence)
        + "."
    ]
    if parts.get("attainable") is not None:
        lines.append(
            attainable.findings_line(
                parts["attainable"],
                parts["arms"],
                parts["tests"],
                short_label,
            )
        )
    early = early_line(parts)
    if early is not None:
        lines.append(early)
    return lines


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


def _lr_grid_table(table):
    """lr_2.csv as one row per task and arm, one column per rate: the mean
    accuracy, starred at the arm's own rate."""
    cells = table.assign(
        cell=[
            f"{a:.3f}" + ("*" if own else "")
            for a, own in zip(table["accuracy"], table["own rate"], strict=True)
        ]
    )
    wide = cells.pivot_table(
        index=["task", "arm"], columns="lr", values="cell", aggfunc="first", sort=False
    ).fillna("")
    wide.columns = [f"lr {lr:g}" for lr in wide.columns]
    return wide.reset_index()


def _intro(parts, record):
    """What ran: protocol, command, seeds, the setting and the family."""
    sha = record.get("protocol_sha256") or "unknown"
    seeds = ", ".join(f"{name} {n}" for name, n in record["seeds"].items())
    secondary = record.get("secondary_seeds", {})
    taken = {"lr_grid": "the learning-rate grid", "epochs20": "the 20-epoch arms"}
    said = [f"{taken[k]} the first {n}" for k, n in secondary.items() if k in taken]
    lines = [
        "",
        "## Part 2: softmax attention over sequences (protocol 2)",
        "",
        f"Protocol `docs/protocol-2.md`, SHA-256 `{sha}`; "
        f"`{record['command']}`. Seeds from {record['first_seed']} ({seeds} "
        "per sweep"
        + (f"; of the arms' seeds, {' and '.join(said)}" if said else "")
        + "), disjoint from the pilot's and every earlier run's.",
    ]
    if record.get("quick"):
        lines += [
            "",
            "**A quick run**: pilot-sized seeds and a shortened budget, without "
            "the learning-rate grid and the 20-epoch arms; its verdicts are not "
            "the study's evidence.",
        ]
    return lines + [
        "",
        "Each row is a sequence of 8 noisy observations of a latent point, "
        "one token of width 2 each, so softmax attention weighs tokens by "
        "content; every arm trains at its own learning rate (chosen on the "
        "pilot's validation rows), at most "
        f"{_cap(record)} epochs, stopping {_patience(record)} epochs after "
        "its best validation accuracy and keeping that epoch's weights. "
        f"One Holm family of {len(parts['tests'])} tests, none fixed by "
        "construction. A curvature test's smallest effect of interest is a "
        "quarter of this run's mean of its two arms (the seeds were planned "
        "at the pilot's).",
    ]


def _patience(record):
    return record.get("fixed", {}).get("n_iter_no_change", sequences.PATIENCE)


def _primary_part(parts, record):
    shown = parts["tests"][
        ["claim", *_SHOWN, "p equivalence holm", "margin", "n", "outcome"]
    ]
    rates = pd.DataFrame(record["learning_rates"])
    rates = rates.assign(arm=rates["gate"].map(STUDY_GATES.arm_labels))
    return [
        "",
        "### Verdicts",
        "",
        *words.verdict_table(parts["verdicts"]),
        "",
        "### Primary tests",
        "",
        f"![primary tests, part 2]({FIGURES['tests']})",
        "",
        words.table(shown, 4),
        "",
        "### The arms",
        "",
        "Means over seeds at each arm's learning rate (Bayes accuracy from "
        "the generator where the run has it):",
        "",
        f"![accuracy of each arm, every seed]({FIGURES['arms']})",
        "",
        words.table(parts["arms"], 3),
        "",
        *attainable.section_lines(parts.get("attainable"), TABLES["attainable"]),
        "Learning rates fixed by the protocol from the pilot:",
        "",
        words.table(rates[["task", "arm", "lr"]], 3),
        "",
        "### Convergence",
        "",
        f"Rule: fewer than {sequences.LATE_SHARE:.0%} of an arm's fits have "
        f"their best validation epoch in the last "
        f"{sequences.LATE_FRACTION:.0%} of the cap, per task, arm and alpha. "
        "Beside it (added after the run, descriptive; the rule cannot see "
        "it): the share of fits that stalled, their best epoch in the first "
        f"{STALL_FRACTION:.0%} of the cap.",
        "",
        words.table(_blank_alpha(parts["convergence"]), 3),
    ]


def _power_part(power):
    if power is None:
        return []
    table = words.power_wide(power, ["claim", "condition", "outcome", "comparison"])
    return [
        "",
        "### Power",
        "",
        "Planned from the pilot's standard deviations; achieved at this "
        "run's (`power_2.csv`).",
        "",
        words.table(table, 3),
    ]


def _extra_rates(table):
    """The rates an arm ran on the grid's tasks beyond the protocol's grid."""
    beyond = table[
        ~table["lr"].round(12).isin([round(r, 12) for r in sequences.LR_GRID])
    ]
    beyond = beyond[~beyond["own rate"]]
    return sorted({(r.arm, r.lr) for r in beyond.itertuples(index=False)})


def _secondary_part(parts):
    shown = parts["secondary"][["analysis", *_SHOWN, "n", "outcome"]]
    lines = [
        "",
        "### Secondary analyses",
        "",
        "One Holm family of its own (`tests_2_secondary.csv`).",
        "",
        words.table(shown, 4),
        *_idle_lines(parts, "depth"),
        *_largest_rate_note(
            parts["secondary"], parts.get("idle", {}).get("lr_grid", [])
        ),
        "",
        "C4's metric against the Euclidean one (the per-fit correlation says "
        "how much the metric can reorder):",
        "",
        words.table(parts["metric"], 3),
    ]
    if parts["lr"] is not None:
        extra = _extra_rates(parts["lr"])
        note = (
            " Beyond the protocol's grid the code also ran "
            + ", ".join(f"{arm} at {lr:g}" for arm, lr in extra)
            + " (the arm's rate on another task)."
            if extra
            else ""
        )
        lines += [
            "",
            "Each arm's mean test accuracy across the learning-rate grid (does "
            "gating tolerate larger rates?), on the grid's seeds; * marks the "
            f"arm's own rate (all columns: `lr_2.csv`).{note}",
            "",
            f"![accuracy against learning rate]({FIGURES['lr']})",
            "",
            words.table(_lr_grid_table(parts["lr"]), 3),
            *_idle_lines(parts, "lr_grid"),
        ]
    return lines + [
        "",
        "C2's curve on rings (the gated arm by alpha; the seeds whose "
        "turning rate peaks at each alpha):",
        "",
        words.table(parts["alpha curve"], 3),
        *_idle_lines(parts, "alpha"),
        "",
        f"C2 step by step (secondary, descriptive, {words.POST_HOC}): the mean "
        "paired change "
        "between neighbouring alphas, its 95 % bootstrap interval and "
        "one-sided sign-flip tests of a rise or a fall, Holm over every step "
        "of both quantities (`alpha_steps_2.csv`):",
        "",
        words.table(parts["alpha steps"], 3),
        "",
        "Association of curvature with accuracy across fits (not a causal "
        "effect): OLS of test accuracy on the standardised turning rate with "
        "fixed effects for alpha (or the gate) and the seed, 95 % interval "
        "from 2000 bootstrap resamples of seeds:",
        "",
        words.table(parts["association"], 4),
    ]


def section(parts, record):
    """The part's section of REPORT.md (lines)."""
    return [
        *_intro(parts, record),
        *_primary_part(parts, record),
        *_power_part(parts["power"]),
        *_secondary_part(parts),
    ]


# -- the part -----------------------------------------------------------------------

#: The quick run's second part (``make demo``): epochs at most (patience a
#: third of them); the arms, alpha and depth sweeps only.
QUICK_SEQUENCE_EPOCHS = 30


def seeds_by_sweep(job):
    """Seeds per sweep: a given design's (the secondary sweeps on two of
    them; a shrunken study in the tests), the quick run's
    (:data:`~study.facts.QUICK_SEQUENCE_SEEDS`, or ``--seeds``), or
    the protocol's."""
    if job.shrunk:
        seeds = tuple(job.design.seeds)
        return dict.fromkeys(sequences.SEEDS, seeds) | dict.fromkeys(
            ("lr_grid", "epochs20"), seeds[:2]
        )
    if job.quick:
        n = QUICK_SEQUENCE_SEEDS if job.seeds is None else job.seeds
        return dict.fromkeys(sequences.SEEDS, sequences.confirmatory_seeds(n))
    return {
        name: sequences.confirmatory_seeds(n) for name, n in sequences.SEEDS.items()
    }


def _plan():
    return pd.read_csv(PLAN) if PLAN.is_file() else pd.DataFrame()


class SoftmaxSequences(Part):
    """Part 2 (docs/protocol-2.md): softmax attention over sequences; its
    sweeps are seq_<sweep>.csv, its record run.json's "sequences"."""

    name = "sequences"
    label = "second confirmatory part (sequences)"
    files = FILES
    label_sweeps = True
    protocol_number = 2

    def _fixed(self, job):
        return job.confirmatory_fixed(QUICK_SEQUENCE_EPOCHS, QUICK_SEQUENCE_EPOCHS // 3)

    def settings(self, job):
        return sequences.confirmatory_settings(
            seeds_by_sweep(job), fixed=self._fixed(job), secondary=not job.quick
        )

    def measure(self, sweep):
        return sequences.measure_sequence

    def outputs(self):
        files = [*FILES.values(), BAYES, attainable.FILE]
        return [*files, *TABLES.values(), *FIGURES.values()]

    def finish(self, job, frames):
        write_bayes(job.out, (2_000, 200) if job.quick else (20_000, 1_000))
        seeds = seeds_by_sweep(job)
        attainable.write(
            job.out,
            frames["arms"],
            seeds["arms"][:ATTAINABLE_SEEDS],
            max_iter=getattr(job.design, "baseline_max_iter", None),
            n_jobs=job.n_jobs,
        )
        secondary = {
            name: int(frames[name]["seed"].nunique())
            for name in ("lr_grid", "epochs20")
            if name in frames
        }
        return {
            "quick": bool(job.quick),
            "seeds": {name: len(seeds[name]) for name in sequences.SEEDS},
            "secondary_seeds": secondary,
            "first_seed": min(min(s) for s in seeds.values()),
            "fixed": self._fixed(job),
            "conditions": list(sequences.CONDITIONS),
            "learning_rates": [
                {"task": task, "gate": gate, "lr": lr}
                for (task, gate), lr in sequences.LEARNING_RATES.items()
            ],
            "c2_curvature": sequences.C2_CURVATURE,
            "left_family": [list(pair) for pair in sequences.LEFT_FAMILY],
            "plan": _plan().to_dict(orient="list"),
            "protocol_sha256": runfiles.protocol_sha256(job.protocols / PROTOCOL),
            "command": job.command,
        }

    def load(self, folder, info):
        if "sequences" not in info:
            return None
        if not (folder / FILES["arms"]).is_file():
            raise ValueError(
                f"{folder / FILES['arms']} is missing, but run.json records the "
                "second part: the run is damaged."
            )
        return load(folder)

    def evaluate(self, frames, info):
        return evaluate(frames, info["sequences"])

    def write(self, results, folder, out, info):
        write_tables(results, out)

    def protocol(self, results, info):
        sha = info["sequences"].get("protocol_sha256") or "unknown"
        return f"`docs/protocol-2.md` (part 2), SHA-256 `{sha}`"

    def bottom_line(self, results, report):
        first = report.get("copied")
        if first is None:
            return bottom_line(results)
        return bottom_line(results, first["tests"], first["convergence"])

    def findings(self, results, report, info):
        conditions = " and ".join(
            f"{c['shape']} (noise {c['noise']:g})" for c in results["conditions"]
        )
        return [
            f"- **Softmax attention over sequences (part 2)**, {conditions}, "
            "linear control:",
            *(f"  - {line}" for line in findings(results)),
            *(f"- {line}" for line in secondary_lines(results, info["sequences"])),
        ]

    def notes(self, folder, info, results):
        orphans = sorted(file for file in FILES.values() if (folder / file).is_file())
        if "sequences" in info or not orphans:
            return []
        return [
            "",
            f"**Not rendered**: the second part's sweeps ({', '.join(orphans)}) "
            "are here without its record in run.json: a run of it that "
            "did not finish.",
        ]

    def section(self, results, report, folder, info):
        return section(results, info["sequences"])


PART = SoftmaxSequences()

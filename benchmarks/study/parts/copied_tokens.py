"""Part 1: copied tokens, uniform attention (docs/protocol.md).

Every token holds the same observation, so attention is uniform and the
block is, in effect, a gated MLP. The settings, measurements and tests are
:mod:`study.primary`'s, the executable form of the protocol; this
module runs them through the pipeline and writes the part's section of
REPORT.md, its tables and its figure, from the files alone.
"""

from pathlib import Path

import pandas as pd

from .. import (
    attainable,
    claims,
    confirmatory,
    plots,
    plots_confirmatory,
    primary,
    runfiles,
    theorem,
    words,
)
from ..facts import (
    ATTAINABLE_SEEDS,
    QUICK_SEEDS,
    SCORE_MARGIN,
    STUDY_GATES,
    statements,
)
from ..part import Part, log
from ..paths import BENCHMARKS
from ..stats import HOLDS, NO_EFFECT

__all__ = ["PART", "PLAN", "PROTOCOL", "CopiedTokens", "findings", "load_plan"]


#: The protocol the confirmatory run follows, beside the package in a checkout.
PROTOCOL = "protocol.md"


#: The seed plan the protocol fixed from the pilot (``python -m study pilot``).
PLAN = BENCHMARKS / "pilot" / "plan.csv"


#: What scikit-learn models reach on the arms' own rows (written by the run).
ATTAINABLE = "primary_attainable.csv"
#: Primary sweeps' CSVs, by sweep name.
PRIMARY_FILES = {
    name: f"primary_{name}.csv"
    for name in ("arms", "alpha", "depth", "relu", "epochs20")
}


def load_plan(path=PLAN):
    """The protocol's seed plan (one row per primary test), or a plan of
    unknowns where the file is not found (an installed package; the second
    part's: an empty plan)."""
    path = Path(path)
    if path.is_file():
        return pd.read_csv(path)
    if path != PLAN:
        return pd.DataFrame()
    columns = ["sd", "effect", "alpha", "seeds needed", "n_seeds", "affordable"]
    unknown = pd.DataFrame(
        float("nan"), index=range(len(primary.TESTS)), columns=columns
    )
    unknown["alpha"] = primary.family_level()
    return unknown


_num, _interval, _RESULT_WORDS = words.number, words.interval, words.RESULT_WORDS


def _test_phrase(row, peaks=None):
    """One test in words: what, its estimate and interval, its outcome,
    whether the estimate reaches the smallest effect of interest, and for a
    trend whose mean peaks inside its grid, where (it does not rise)."""
    what = "mean within-seed rho" if row["kind"] == "trend" else "difference"
    outcome = _RESULT_WORDS[row["outcome"]]
    margin = _num(row["margin"])
    if row["outcome"] == NO_EFFECT or (
        row["kind"] == "equivalence" and row["outcome"] == HOLDS
    ):
        outcome += f" (equivalent within +-{margin})"
    elif row["outcome"] == HOLDS and row["estimate"] < row["margin"]:
        outcome += f" (but below the smallest effect of interest, {margin})"
    peak = (peaks or {}).get(primary.id_of(row))
    if peak is not None:
        axis = primary.TESTS_BY_ID[primary.id_of(row)]["axis"]
        outcome += f"; its mean peaks at {axis} {peak:g}, so it does not rise"
    return f"{row['quantity']} {row['comparison']}: {what} {_interval(row)}, {outcome}"


def _claim_sentence(claim, group, verdict, notes=None, peaks=None):
    tests = "; ".join(_test_phrase(row, peaks) for _, row in group.iterrows())
    note = (notes or {}).get(claim, "")
    return (
        f"**{claim}** ({statements('copied')[claim]}): {words.verdict_word(verdict)}. "
        f"{tests}.{note}"
    )


def _shape(task):
    """A task's name in a sentence: its shape, or "linear task"."""
    return task.split(",")[0]


def _alpha_peak(frames):
    """C2's mean turning rate by alpha on the curved task, the alpha where
    it peaks and how many seeds peak there, and the seeds; None where it
    peaks at the grid's end."""
    fits = frames["alpha"][frames["alpha"]["task"] == "curved"]
    table = fits.pivot_table(index="seed", columns="alpha", values="turning")
    means = table.mean()
    peak = means.idxmax()
    if peak == means.index.max():
        return None
    return means, peak, int((table.idxmax(axis=1) == peak).sum()), len(table)


def _alpha_note(frames):
    """Where C2's mean turning rate peaks over the alpha grid, when it does
    not peak at the grid's end: the trend test's "rises" is then the rise
    from alpha 0 only."""
    found = _alpha_peak(frames)
    if found is None:
        return ""
    means, peak, at_peak, seeds = found
    curve = ", ".join(f"{a:g}: {v:.3g}" for a, v in means.items())
    return (
        f" The mean turning rate by alpha ({curve}) peaks at alpha {peak:g} "
        f"(the peak of {at_peak} of {seeds} seeds) and falls after: the "
        "trend test's rise is the rise from alpha 0, where the gate is off."
    )


def _alpha_fall(frames):
    """C2's mean turning rate where it falls after a peak inside the alpha
    grid, in a few words for the Findings ("" where it does not)."""
    found = _alpha_peak(frames)
    if found is None:
        return ""
    means, peak, at_peak, seeds = found
    after = ", ".join(f"{a:g}: {v:.3g}" for a, v in means.items() if a >= peak)
    return (
        f"the mean turning rate peaks at alpha {peak:g} ({at_peak} of "
        f"{seeds} seeds) and falls after ({after}); its trend test could "
        "not fail (its rise is the rise from alpha 0, where the gate is off)"
    )


def _positive_note(arms):
    """C6 beside SiLU's share of positive curvature."""
    curved = arms[arms["task"] != "linear task"].set_index("arm")["positive share"]
    if curved["SiLU"] <= curved["gated"]:
        return ""
    return (
        f" But SiLU reaches positive curvature more often than the gated arm "
        f"(mean share {curved['SiLU']:.2f} against {curved['gated']:.2f}): "
        "positive curvature here is not specific to gating."
    )


def _mediation_sentence(mediation):
    parts = []
    for _, row in mediation.iterrows():
        excludes = row["ci low"] > 0 or row["ci high"] < 0
        parts.append(
            f"{row['task']}, {row['analysis']}: "
            f"{_interval(row, 'accuracy per sd of turning')}"
            + ("" if excludes else " (interval includes 0)")
        )
    return (
        "**Curvature and accuracy across fits** (an association, not an effect "
        "of curvature): change in accuracy per standard deviation of the "
        "turning rate, beyond the gate or alpha: " + "; ".join(parts) + "."
    )


def _silu_sentence(secondary):
    """C6's SiLU arm: is positive curvature specific to the gate?"""
    rows = secondary[secondary["analysis"] == "SiLU arm of C6"]
    return (
        "**C6's SiLU arm** (secondary), share of points with K positive beyond "
        "its floor: " + "; ".join(_test_phrase(row) for _, row in rows.iterrows()) + "."
    )


def _head_sentence(head):
    parts = [
        f"{row['comparison']} {_num(row['GELU head'])} with GELU, "
        f"{_num(row['ReLU head'])} with ReLU (GELU minus ReLU "
        f"{_interval(row, 'GELU minus ReLU')})"
        for _, row in head.iterrows()
    ]
    return "**The head's activation** (accuracy, secondary): " + "; ".join(parts) + "."


def _early_accuracies(frames):
    """The arms' mean accuracy on the curved task after 20 epochs."""
    early = frames["epochs20"]
    means = early[early["task"] == "curved"].groupby("gate", sort=False)["accuracy"]
    return words.arm_values(means.mean().items())


def _budget_sentence(tests, secondary, frames=None, attained=None):
    """The paper's 20-epoch accuracy beside the primary one at convergence,
    and beside the majority class's rate (``attained``: the attainable
    table), naming the arms that had not learned then."""
    early = secondary[secondary["analysis"] == "20 epochs (the paper's budget)"]
    late = tests[(tests["quantity"] == "accuracy") & (tests["claim"] == "C1")]
    parts = [
        f"{a['comparison']}: {words.result(a)} "
        f"against {_interval(b)} at {primary.BUDGET} epochs"
        for (_, a), (_, b) in zip(early.iterrows(), late.iterrows(), strict=True)
    ]
    chance = ""
    if frames is not None and "epochs20" in frames:
        chance = f"; mean accuracies after 20 epochs: {_early_accuracies(frames)}, "
        chance += _majority_clause(frames, attained)
    return (
        f"**At the paper's 20 epochs** (secondary{chance}), accuracy "
        "differences: " + "; ".join(parts)
    )


def _majority_clause(frames, attained):
    """Where the curved task's majority class lies, and which arms sat
    within the margin of it after 20 epochs (without ``attained``: chance)."""
    if attained is None:
        return "where chance is 0.5"
    curved = attained[attained["task"] != "linear task"].iloc[0]
    majority = curved["majority class"]
    early = frames["epochs20"]
    means = early[early["task"] == "curved"].groupby("gate", sort=False)["accuracy"]
    arms = pd.DataFrame(
        {
            "task": curved["task"],
            "arm": [STUDY_GATES.arm_labels[gate] for gate in means.mean().index],
            "accuracy": means.mean().to_numpy(),
        }
    )
    idle = list(attainable.not_learning(arms, attained)["arm"])
    said = f"where the majority class is {majority:.3f}"
    if idle:
        said += (
            f" ({' and '.join(idle)} within {SCORE_MARGIN:g} of it: not yet "
            "learning, and the comparisons with them rest on that)"
        )
    return said


def _convergence_clause(convergence):
    curved = convergence[convergence["task"] != "linear task"]
    late = f"share after epoch {primary.LATE_EPOCH}"
    shares = ", ".join(f"{row['arm']} {row[late]:.0%}" for _, row in curved.iterrows())
    stall = [c for c in curved.columns if c.startswith("share by epoch")]
    stalled = (
        ", ".join(f"{row['arm']} {row[stall[0]]:.0%}" for _, row in curved.iterrows())
        if stall
        else ""
    )
    return (
        f"share of fits on the curved task whose best validation epoch came "
        f"after epoch {primary.LATE_EPOCH} of {primary.BUDGET}: {shares} (an "
        "arm with a larger share may still have been improving)"
        + (
            f"; whose best epoch came by {stall[0].removeprefix('share by ')} "
            f"(stalled; a rule added after the run): {stalled}"
            if stall
            else ""
        )
    )


def _power_sentence(power):
    achieved = power[power["stage"] == "achieved"]
    low, high = achieved["power"].min(), achieved["power"].max()
    seeds = sorted(set(achieved["n_seeds"].astype(int)))
    return (
        f"**Power**: {len(seeds) and ', '.join(map(str, seeds))} seeds per test; "
        f"achieved power at the smallest effects of interest {low:.2f} to "
        f"{high:.2f} (level {achieved['alpha'].iloc[0]:.2g})."
    )


def findings(
    tests,
    verdicts,
    secondary,
    head,
    mediation,
    power,
    convergence,
    theorem_parts=None,
    frames=None,
    arms=None,
    condition=None,
    attained=None,
):
    """The first part's results in plain sentences, each from the numbers
    (with the theorem's own setting's answer when ``theorem_parts`` is
    given; with the fits ``frames`` of ``condition`` and the ``arms``
    table, where each trend's mean peaks, C6 beside SiLU's share and the
    20-epoch accuracies)."""
    peaks = primary.trend_peaks(tests, frames, condition)
    notes = {}
    if frames is not None and "alpha" in frames:
        notes["C2"] = _alpha_note(frames)
    if arms is not None:
        notes["C6"] = _positive_note(arms)
    if attained is not None and arms is not None:  # C1's accuracy beside it
        line = attainable.findings_line(attained, arms, tests, _shape)
        notes["C1"] = " " + line.replace(
            "**Attainable accuracy**", "Attainable accuracy"
        )
        for _, row in tests[tests["kind"] == "equivalence"].iterrows():
            note = confirmatory.equivalence_ceiling(row, arms)
            notes[row["claim"]] = notes.get(row["claim"], "") + note
    sentences = [
        _claim_sentence(
            claim,
            group,
            verdicts.set_index("claim").loc[claim, "verdict"],
            notes,
            peaks,
        )
        for claim, group in tests.groupby("claim", sort=True)
    ]
    if (secondary["analysis"] == "20 epochs (the paper's budget)").any():
        # The budget and convergence in one sentence: both say what the
        # training budget does.
        sentences.append(
            f"{_budget_sentence(tests, secondary, frames, attained)}; at "
            f"{primary.BUDGET} "
            "epochs, "
            f"{_convergence_clause(convergence)}."
        )
    else:
        sentences.append(f"**Convergence**: {_convergence_clause(convergence)}.")
    sentences.append(_silu_sentence(secondary))
    if head is not None:
        sentences.append(_head_sentence(head))
    sentences += [_mediation_sentence(mediation), _power_sentence(power)]
    if theorem_parts is not None:
        sentences.append(theorem.headline(theorem_parts))
    return sentences


def _first_header(info):
    seeds = info["seeds"]
    if info["quick"]:
        n = min(seeds.values())
        decides = (
            "it can decide only large effects (a test holds only if nearly "
            "every seed agrees)"
            if primary.can_decide(n)
            else f"with {n} seeds no test can pass the family's level (the "
            f"smallest sign-flip p is 1/{2**n})"
        )
        return [
            f"**A quick run, pilot-sized ({n} seeds per sweep, at most "
            f"{info.get('quick_epochs', primary.BUDGET)} epochs, no secondary "
            f"sweeps)**: {decides}, and its verdicts are not the study's "
            "evidence. "
            "The confirmatory results are the committed "
            "`benchmarks/results/REPORT.md`."
        ]
    first = info.get("first_seed", primary.FIRST_CONFIRMATORY_SEED)
    counts = ", ".join(f"{sweep} {n}" for sweep, n in seeds.items())
    return [
        f"Confirmatory seeds {first} onwards ({counts} per sweep), disjoint "
        "from every seed of the pilot and of earlier runs."
    ]


def _by_construction_sentence(tests):
    """Which of the first part's primary tests no data could have failed."""
    names = [primary.id_of(row) for row in tests.to_dict("records")]
    fixed = tests[[name in primary.BY_CONSTRUCTION for name in names]]
    named = "; ".join(
        f"{row.claim} {row.quantity} {row.comparison}"
        for row in fixed.itertuples(index=False)
    )
    held = (fixed["outcome"] == HOLDS).sum()
    return (
        f"So {len(fixed)} of its {len(tests)} primary tests ({named}) were "
        f"decided before any data (ungated curvature is 0; the alpha grid "
        f"starts at 0, where the gate is off): they hold "
        f"({words.tally(held, len(fixed))}) as checks of the implementation and "
        "are no evidence for their claims."
    )


def _verdicts_section(verdicts):
    return [
        "",
        "### Verdicts",
        "",
        *words.verdict_table(verdicts),
    ]


_SHOWN = ["claim", "quantity", "comparison", "estimate", "ci low", "ci high"]


def _primary_section(tests, figure):
    table = tests[
        [*_SHOWN, "p", "p holm", "p equivalence holm", "margin", "n", "outcome"]
    ]
    return [
        "",
        "### Primary tests",
        "",
        f"Condition: {tests['condition'].iloc[0]} (curved) and the linear task; "
        f"model: {primary.BUDGET} epochs keeping the best validation epoch, GELU "
        "head, copied tokens, PyTorch's gate initialisation. Curvature is the "
        "turning rate of the attention output (radians per unit input step), "
        "C6 the share of points whose Gaussian curvature is positive beyond "
        "its exact-vs-finite-difference floor. One Holm family of "
        f"{len(tests)} tests; sign-flip p-values (exact up to 13 seeds, else "
        "9 999 random sign patterns: p at least 0.0001), 95 % bootstrap "
        "intervals over seeds, trends within seed. Rule: a claim is "
        "contradicted when any of its tests is reversed, reproduced when all "
        "hold, not reproduced when one shows no effect (within its margin), "
        "else inconclusive. "
        "All columns: `tests_primary.csv`.",
        "",
        *([f"![primary tests]({figure})", ""] if figure else []),
        words.table(table, 4),
    ]


def _arms_section(arms):
    return [
        "",
        "The arms, means over seeds (turning rate and acceleration of the "
        "attention output; positive share: points whose K is positive beyond "
        "its floor; Bayes accuracy from the generator, where the run has it):",
        "",
        words.table(arms, 3),
    ]


def _attainable_section(table):
    if table is None:
        return []
    return ["", *attainable.section_lines(table, "attainable.csv", ATTAINABLE)[:-1]]


def _convergence_section(convergence):
    return [
        "",
        f"Convergence within the {primary.BUDGET}-epoch budget (the epoch whose "
        "weights each fit keeps, chosen on its validation rows; the share of "
        f"stalled fits, best by an early epoch, was {words.POST_HOC}):",
        "",
        words.table(convergence, 3),
    ]


def _power_section(power):
    table = words.power_wide(power, ["claim", "outcome", "comparison"])
    return [
        "",
        "### Power",
        "",
        "Seeds were planned from the pilot's standard deviations for 80 % power "
        "at each test's smallest effect of interest (the margin above) at the "
        f"family's strictest Holm level {power['alpha'].iloc[0]:.2g}; achieved "
        "power uses this run's standard deviations (`power.csv`).",
        "",
        words.table(table, 3),
    ]


def _secondary_section(secondary, head, mediation):
    table = secondary[["analysis", *_SHOWN[1:], "p holm", "outcome"]]
    heads = (
        ["The head's activation (C1's accuracy differences, paired by seed):"]
        + ["", words.table(head, 4), ""]
        if head is not None
        else ["(The quick run fits no ReLU head and no 20-epoch arms.)", ""]
    )
    return [
        "",
        "### Secondary analyses",
        "",
        "One Holm family of its own (`tests_secondary.csv`): C1's accuracy at "
        "the paper's 20 epochs and with a ReLU head, C1's curvature in the "
        "paper's acceleration (it grows with the representation's size), C6's "
        "SiLU arm.",
        "",
        words.table(table, 4),
        "",
        *heads,
        "Curvature and accuracy across fits (an association, not an effect of "
        "curvature): OLS of test accuracy on the standardised turning rate "
        "with fixed effects for alpha (or the gate) and the seed; 95 % "
        "interval from 2000 bootstrap resamples of seeds:",
        "",
        words.table(mediation, 4),
    ]


def _primary_parts(frames, info, bayes=None, attained=None):
    condition = info["condition"]
    tests = primary.primary_tests(frames, condition)
    plan = pd.DataFrame(info["plan"])
    arms = primary.arm_summary(frames, condition, bayes)
    return {
        "condition": condition,
        "tests": tests,
        "verdicts": primary.claim_verdicts(tests, frames, condition, arms),
        "secondary": primary.secondary_tests(frames, condition),
        "head": primary.head_sensitivity(frames, condition)
        if "relu" in frames
        else None,
        "mediation": primary.mediation(frames, condition),
        "convergence": primary.convergence(frames, condition),
        "arms": arms,
        "attainable": None
        if attained is None
        else attainable.table(attained, frames["arms"]),
        "power": primary.power_table(plan, tests),
    }


def _write_tables(folder, parts):
    names = ("tests", "secondary", "power", "mediation", "head", "convergence", "arms")
    names += ("attainable",)
    for name in names:
        if parts[name] is None:
            continue
        file = {"tests": "tests_primary", "secondary": "tests_secondary"}.get(
            name, name
        )
        parts[name].to_csv(folder / f"{file}.csv", index=False, float_format="%.10g")


def _first_lines(parts):
    """The first part in the Findings: each claim's verdict in a few words,
    with what its numbers need said beside it."""
    tests = parts["tests"]
    verdicts = parts["verdicts"].set_index("claim")["verdict"]
    said = ", ".join(
        f"{claim} {words.verdict_word(verdicts[claim])}" for claim in verdicts.index
    )
    fixed = len(primary.BY_CONSTRUCTION)
    against = words.against_claims(parts["secondary"])
    falls = _alpha_fall(parts["frames"]) if parts.get("frames") else ""
    if falls:
        against.setdefault("C2", []).insert(0, falls)
    beside = "; ".join(
        f"{claim}: {'; '.join(said)}" for claim, said in sorted(against.items())
    )
    lines = [
        f"**Copied tokens, uniform attention (part 1)**: {said}; {fixed} of "
        f"its {len(tests)} tests could not fail (ungated curvature is exactly "
        "0 there) and are checks, not evidence."
        + (f" Against its claims (secondary): {beside}." if beside else "")
    ]
    return lines


def _findings(parts, frames=None, theorem_parts=None):
    return findings(
        parts["tests"],
        parts["verdicts"],
        parts["secondary"],
        parts["head"],
        parts["mediation"],
        parts["power"],
        parts["convergence"],
        theorem_parts,
        frames,
        parts["arms"],
        parts.get("condition"),
        parts.get("attainable"),
    )


def _first_part(parts, info, frames, theorem_parts=None):
    """The first confirmatory part's section (copied tokens), its numbers as
    the first protocol fixed them."""
    return [
        "",
        "## Part 1: copied tokens, uniform attention (protocol 1)",
        "",
        *_first_header(info),
        "",
        "Every token holds the same observation, so attention weights are "
        "uniform and the block is, in effect, a gated MLP: ungated "
        "attention is affine in the input and its curvature is exactly 0. "
        + _by_construction_sentence(parts["tests"]),
        "",
        "### Results in words",
        "",
        *(
            f"{i}. {s}"
            for i, s in enumerate(_findings(parts, frames, theorem_parts), 1)
        ),
        *_verdicts_section(parts["verdicts"]),
        *_primary_section(parts["tests"], "fig_primary.png"),
        *_arms_section(parts["arms"]),
        *_attainable_section(parts.get("attainable")),
        *_convergence_section(parts["convergence"]),
        *_power_section(parts["power"]),
        *_secondary_section(parts["secondary"], parts["head"], parts["mediation"]),
    ]


#: Epochs of the quick run's first part (the protocol's budget: 300), so
#: that ``make demo`` stays within 90 s on 2 cores.
QUICK_EPOCHS = 100


def seeds_by_sweep(job):
    """Seeds per sweep: a given design's (a shrunken study in the tests),
    the quick run's (:data:`~study.facts.QUICK_SEEDS`, or ``--seeds``),
    or the protocol's."""
    if job.shrunk:
        return dict.fromkeys(primary.SEEDS, tuple(job.design.seeds))
    if job.quick:
        n = QUICK_SEEDS if job.seeds is None else job.seeds
        return dict.fromkeys(primary.SEEDS, primary.confirmatory_seeds(n))
    return {name: primary.confirmatory_seeds(n) for name, n in primary.SEEDS.items()}


class CopiedTokens(Part):
    """Part 1 (docs/protocol.md): its sweeps are primary_<sweep>.csv, its
    record the top level of run.json (the first part's, from before the
    study had parts)."""

    name = "copied"
    label = "primary and secondary fits"
    files = PRIMARY_FILES
    label_sweeps = True

    def outputs(self):
        return [*PRIMARY_FILES.values(), ATTAINABLE]

    protocol_number = 1

    def _fixed(self, job):
        return job.confirmatory_fixed(QUICK_EPOCHS, QUICK_EPOCHS)

    def settings(self, job):
        # The quick run leaves out the secondary sweeps (ReLU head, 20 epochs).
        return primary.primary_settings(
            seeds_by_sweep(job), fixed=self._fixed(job), secondary=not job.quick
        )

    def measure(self, sweep):
        return primary.measure_primary

    def finish(self, job, frames):
        seeds = seeds_by_sweep(job)
        attainable.write(
            job.out,
            frames["arms"],
            seeds["arms"][:ATTAINABLE_SEEDS],
            file=ATTAINABLE,
            max_iter=getattr(job.design, "baseline_max_iter", None),
            n_jobs=job.n_jobs,
        )
        return {
            "quick": bool(job.quick),
            "seeds": {name: len(s) for name, s in seeds.items()},
            "first_seed": min(min(s) for s in seeds.values()),
            "condition": primary.CONDITION,
            "plan": load_plan().to_dict(orient="list"),
            "protocol_sha256": runfiles.protocol_sha256(job.protocols / PROTOCOL),
            **({"quick_epochs": QUICK_EPOCHS} if job.quick else {}),
        }

    def store(self, info, record):
        info.update(record)

    def load(self, folder, info):
        if "seeds" not in info:
            return None
        frames = {
            name: runfiles.read_csv(folder / file)
            for name, file in PRIMARY_FILES.items()
            if (folder / file).exists()
        }
        # What run.json records must be there.
        for name in info["seeds"]:
            if name in PRIMARY_FILES and name not in frames:
                raise ValueError(
                    f"{folder / PRIMARY_FILES[name]} is missing, but run.json "
                    f"records the first part's {name!r} sweep: the run is damaged."
                )
        if "arms" not in frames:
            return None
        # The tasks' Bayes accuracies, where the exploratory study wrote them.
        bayes = folder / "bayes.csv"
        bayes = runfiles.read_csv(bayes) if "design" in info else None
        attained = folder / ATTAINABLE
        attained = runfiles.read_csv(attained) if attained.is_file() else None
        if attained is not None:
            attained["shape"] = attained["shape"].fillna("")
        return {"frames": frames, "bayes": bayes, "attainable": attained}

    def evaluate(self, frames, info):
        return {
            **_primary_parts(
                frames["frames"], info, frames["bayes"], frames.get("attainable")
            ),
            "frames": frames["frames"],
        }

    def write(self, results, folder, out, info):
        _write_tables(out, results)
        drawn = plots_confirmatory.plot_primary(results["tests"])
        drawn.savefig(out / "fig_primary.png", dpi=110)
        plots.pyplot().close(drawn)

    def protocol(self, results, info):
        sha = info.get("protocol_sha256") or "unknown"
        return f"`docs/protocol.md` (part 1), SHA-256 `{sha}`"

    def bottom_line(self, results, report):
        tests = results["tests"]
        copied = tests[(tests["claim"] == "C1") & (tests["quantity"] == "accuracy")]
        phrases = [
            f"{row['comparison']} {words.result(row)}" for _, row in copied.iterrows()
        ]
        return [
            "With copied tokens (uniform attention) "
            f"{confirmatory.budget_words(results['convergence'])}, accuracy "
            "differences: " + "; ".join(phrases) + "."
        ]

    def findings(self, results, report, info):
        return [f"- {line}" for line in _first_lines(results)]

    def section(self, results, report, folder, info):
        return _first_part(results, info, results["frames"], report.get("theorem"))


PART = CopiedTokens()


def run_pilot(out, *, n_jobs=1, seeds=None):
    """The pilot the protocol was planned from: the primary sweeps on every
    candidate condition (:data:`~study.primary.PILOT_SEEDS`). Writes
    the fits (pilot_arms.csv, pilot_alpha.csv, pilot_depth.csv), the
    candidates' Bayes accuracies and headroom (pilot_conditions.csv) and the
    seed plan (plan.csv); returns (condition, plan)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    settings = primary.pilot_settings(
        primary.PILOT_SEEDS if seeds is None else tuple(seeds)
    )
    frames = primary.run_primary(settings, n_jobs=n_jobs, log=log)
    for name, frame in frames.items():
        runfiles.write_csv(frame, out / f"pilot_{name}.csv")
    return plan_from_pilot(out)


def plan_from_pilot(folder):
    """The condition and seed plan from a pilot's CSVs in ``folder`` (writes
    pilot_conditions.csv and plan.csv there); (condition, plan)."""
    folder = Path(folder)
    frames = {
        name: pd.read_csv(folder / f"pilot_{name}.csv")
        for name in ("arms", "alpha", "depth")
    }
    bayes = claims.bayes_ceilings([frames["arms"]])
    condition, candidates = primary.choose_condition(frames["arms"], bayes)
    candidates.to_csv(folder / "pilot_conditions.csv", index=False, float_format="%.6g")
    if condition is None:
        raise RuntimeError(
            "no candidate condition has accuracy headroom in the pilot; see "
            f"{folder / 'pilot_conditions.csv'}."
        )
    plan = primary.plan_seeds(primary.primary_tests(frames, condition))
    plan.to_csv(folder / "plan.csv", index=False, float_format="%.6g")
    return condition, plan

"""REPORT.md of a confirmatory run, rendered from the files the run wrote.

A run writes its CSVs and ``run.json`` (what ran, on what machine, under which
protocol, how long each part took); :func:`render_run` reads them back and
writes REPORT.md (and EXPLORATORY.md when the exploratory study ran). The
run itself renders through :func:`render_run`, so ``python -m skgate report
--from DIR`` gives its REPORT.md byte for byte.
"""

import dataclasses
import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from . import (
    claims,
    plots,
    primary,
    render,
    runfiles,
    sequences_report,
    theorem,
    words,
)
from .design import StudyDesign
from .facts import ARM_LABELS, CLAIMS, statements
from .stats import HOLDS, NO_EFFECT

__all__ = [
    "PLAN",
    "PROTOCOL",
    "USER_GUIDE_MARKERS",
    "add_seconds",
    "findings",
    "findings_text",
    "load_plan",
    "load_run",
    "protocol_sha256",
    "render_run",
    "save_run_info",
    "user_guide_block",
]

#: The protocol the confirmatory run follows, beside the package in a checkout.
PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
#: The seed plan the protocol fixed from the pilot (``python -m skgate pilot``).
PLAN = Path(__file__).resolve().parents[2] / "benchmarks" / "pilot" / "plan.csv"
#: The second confirmatory part's protocol and seed plan (softmax attention
#: over sequences; ``python -m skgate pilot --protocol 2``).
PROTOCOL_2 = PROTOCOL.with_name("protocol-2.md")
PLAN_2 = PLAN.parents[1] / "pilot-2" / "plan.csv"
#: The second part's sweeps' CSVs, by sweep name.
SEQUENCE_FILES = sequences_report.FILES
#: The longest Findings section (characters) and Bottom line (sentences).
MAX_FINDINGS, MAX_BOTTOM_LINE = 3000, 3
#: The user guide's generated block lies between these two lines.
USER_GUIDE_MARKERS = ("<!-- findings:start -->", "<!-- findings:end -->")
#: Primary sweeps' CSVs, by sweep name.
PRIMARY_FILES = {
    name: f"primary_{name}.csv"
    for name in ("arms", "alpha", "depth", "relu", "epochs20")
}


def protocol_sha256(path=PROTOCOL):
    """SHA-256 of the protocol file (hex), or None where it is not found."""
    path = Path(path)
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


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


def _plain(value):
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _tuples(value):
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


def save_run_info(folder, info, design=None):
    """Write run.json: ``info`` (a dict of plain values) and ``design``."""
    record = dict(info)
    if design is not None:
        record["design"] = _plain(dataclasses.asdict(design))
    text = json.dumps(record, indent=1, sort_keys=True)
    (Path(folder) / "run.json").write_text(text + "\n")


def add_part(folder, name, record, machine):
    """Add (or replace) a part's record in the run's run.json, keeping the
    other parts'; a folder without run.json gets one holding this part."""
    path = Path(folder) / "run.json"
    if path.is_file():
        info = runfiles.read_json(path)
    else:
        info = {"command": record["command"], "machine": machine, "seconds": {}}
    info[name] = record
    path.write_text(json.dumps(info, indent=1, sort_keys=True) + "\n")


def load_info(folder):
    """A run's run.json as a dict."""
    return runfiles.read_record(Path(folder) / "run.json")


def remove_part(folder, name, files):
    """Remove a part's ``files`` and its record in run.json (if any), before
    the part runs again."""
    folder = Path(folder)
    for file in files:
        (folder / file).unlink(missing_ok=True)
    path = folder / "run.json"
    if path.is_file():
        info = runfiles.read_json(path)
        if name in info:
            del info[name]
            path.write_text(json.dumps(info, indent=1, sort_keys=True) + "\n")


def add_seconds(folder, part, seconds):
    """Add a part's wall time to a run's run.json."""
    path = Path(folder) / "run.json"
    record = runfiles.read_json(path)
    record["seconds"][part] = seconds
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def load_run(folder):
    """(run info, primary frames by sweep, exploratory design or None,
    exploratory results or None) from a run's folder."""
    folder = Path(folder)
    info = runfiles.read_record(folder / "run.json")
    frames = {
        name: runfiles.read_csv(folder / file)
        for name, file in PRIMARY_FILES.items()
        if (folder / file).exists()
    }
    # What run.json records must be there, and what is there must be recorded.
    for name in info.get("seeds", {}):
        if name in PRIMARY_FILES and name not in frames:
            raise ValueError(
                f"{folder / PRIMARY_FILES[name]} is missing, but run.json records "
                f"the first part's {name!r} sweep: the run is damaged."
            )
    exploratory = [f"{name}.csv" for name in ("sphere", "regime", "baselines")]
    if "design" not in info and any((folder / f).exists() for f in exploratory):
        raise ValueError(
            f"{folder / 'run.json'} has no 'design', but the exploratory study's "
            f"tables ({', '.join(exploratory)}) are here: run.json is damaged."
        )
    if "design" not in info:
        return info, frames, None, None
    fields = {k: _tuples(v) for k, v in info["design"].items()}
    fields["fixed"] = dict(fields["fixed"])
    design = StudyDesign(**fields)
    names = [*design.sweeps(), "sphere", "regime", "baselines", "bayes"]
    results = {name: runfiles.read_csv(folder / f"{name}.csv") for name in names}
    timings = runfiles.read_csv(folder / "timings.csv")
    results["baselines"]["fit_seconds"] = timings.loc[
        timings["sweep"] == "baselines", "fit_seconds"
    ].to_numpy()
    return info, frames, design, results


# -- numbers in words ---------------------------------------------------------------


_num, _interval, _RESULT_WORDS = words.number, words.interval, words.RESULT_WORDS


def _test_phrase(row):
    """One test in words: what, its estimate and interval, its outcome, and
    whether the estimate reaches the smallest effect of interest."""
    what = "mean within-seed rho" if row["kind"] == "trend" else "difference"
    outcome = _RESULT_WORDS[row["outcome"]]
    margin = _num(row["margin"])
    if row["outcome"] == NO_EFFECT or (
        row["kind"] == "equivalence" and row["outcome"] == HOLDS
    ):
        outcome += f" (equivalent within +-{margin})"
    elif row["outcome"] == HOLDS and row["estimate"] < row["margin"]:
        outcome += f" (but below the smallest effect of interest, {margin})"
    return f"{row['quantity']} {row['comparison']}: {what} {_interval(row)}, {outcome}"


def _claim_sentence(claim, group, verdict, notes=None):
    tests = "; ".join(_test_phrase(row) for _, row in group.iterrows())
    note = (notes or {}).get(claim, "")
    return (
        f"**{claim}** ({statements('copied')[claim]}): {verdict.split(' (')[0]}. "
        f"{tests}.{note}"
    )


def _alpha_note(frames):
    """Where C2's mean turning rate peaks over the alpha grid, when it does
    not peak at the grid's end: the trend test's "rises" is then the rise
    from alpha 0 only."""
    fits = frames["alpha"][frames["alpha"]["task"] == "curved"]
    table = fits.pivot_table(index="seed", columns="alpha", values="turning")
    means = table.mean()
    peak = means.idxmax()
    if peak == means.index.max():
        return ""
    at_peak = int((table.idxmax(axis=1) == peak).sum())
    curve = ", ".join(f"{a:g}: {v:.3g}" for a, v in means.items())
    return (
        f" The mean turning rate by alpha ({curve}) peaks at alpha {peak:g} "
        f"(the peak of {at_peak} of {len(table)} seeds) and falls after: the "
        "trend test's rise is the rise from alpha 0, where the gate is off."
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
        slope = row["accuracy per sd of turning"]
        parts.append(
            f"{row['task']}, {row['analysis']}: {_num(slope)} "
            f"[{_num(row['ci low'])}, {_num(row['ci high'])}]"
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
        f"{_num(row['GELU minus ReLU'])} "
        f"[{_num(row['ci low'])}, {_num(row['ci high'])}])"
        for _, row in head.iterrows()
    ]
    return "**The head's activation** (accuracy, secondary): " + "; ".join(parts) + "."


def _early_accuracies(frames):
    """The arms' mean accuracy on the curved task after 20 epochs."""
    early = frames["epochs20"]
    means = early[early["task"] == "curved"].groupby("gate", sort=False)["accuracy"]
    return ", ".join(
        f"{ARM_LABELS[gate]} {value:.3f}" for gate, value in means.mean().items()
    )


def _budget_sentence(tests, secondary, frames=None):
    """The paper's 20-epoch accuracy beside the primary one at convergence."""
    early = secondary[secondary["analysis"] == "20 epochs (the paper's budget)"]
    late = tests[(tests["quantity"] == "accuracy") & (tests["claim"] == "C1")]
    parts = [
        f"{a['comparison']}: {_interval(a)} ({_RESULT_WORDS[a['outcome']]}) "
        f"against {_interval(b)} at {primary.BUDGET} epochs"
        for (_, a), (_, b) in zip(early.iterrows(), late.iterrows(), strict=True)
    ]
    chance = ""
    if frames is not None and "epochs20" in frames:
        chance = (
            f"; mean accuracies after 20 epochs: {_early_accuracies(frames)}, "
            "where chance is 0.5"
        )
    return (
        f"**At the paper's 20 epochs** (secondary{chance}), accuracy "
        "differences: " + "; ".join(parts)
    )


def _convergence_clause(convergence):
    curved = convergence[convergence["task"] != "linear task"]
    late = curved.columns[3]
    shares = ", ".join(f"{row['arm']} {row[late]:.0%}" for _, row in curved.iterrows())
    return (
        f"share of fits on the curved task whose best validation epoch came "
        f"after epoch {primary.LATE_EPOCH} of {primary.BUDGET}: {shares} (an "
        "arm with a larger share may still have been improving)"
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
):
    """The first part's results in plain sentences, each from the numbers
    (with the theorem's own setting's answer when ``theorem_parts`` is
    given; with the fits ``frames`` and the ``arms`` table, where C2's curve
    peaks, C6 beside SiLU's share and the 20-epoch accuracies)."""
    notes = {}
    if frames is not None and "alpha" in frames:
        notes["C2"] = _alpha_note(frames)
    if arms is not None:
        notes["C6"] = _positive_note(arms)
    sentences = [
        _claim_sentence(
            claim, group, verdicts.set_index("claim").loc[claim, "verdict"], notes
        )
        for claim, group in tests.groupby("claim", sort=True)
    ]
    if (secondary["analysis"] == "20 epochs (the paper's budget)").any():
        # The budget and convergence in one sentence: both say what the
        # training budget does.
        sentences.append(
            f"{_budget_sentence(tests, secondary, frames)}; at {primary.BUDGET} "
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


# -- the report -----------------------------------------------------------------------


def _compact(verdict):
    """An exploratory verdict with counts instead of lists of conditions,
    reversals first."""
    match = re.match(r"partly reproduced \((\d+) of (\d+): (.*)\)$", verdict)
    if match:
        held, n, rest = match.groups()
        reversed_ = rest.split("; reversed in ", 1)
        count = reversed_[1].count("; ") + 1 if len(reversed_) == 2 else 0
        lead = f"reversed in {count} of {n}, " if count else ""
        return f"{lead}holds in {held} of {n} (partly reproduced)"
    match = re.match(r"contradicted \(reversed in (\d+) of (\d+): .*\)$", verdict)
    if match:
        return f"reversed in {match.group(1)} of {match.group(2)} (contradicted)"
    return verdict


def _header(info, parts):
    """The title and what ran under which protocol."""
    shas = []
    if "tests" in parts:
        sha = info.get("protocol_sha256") or "unknown"
        shas.append(f"`docs/protocol.md` (part 1), SHA-256 `{sha}`")
    if "second" in parts:
        sha = info["sequences"].get("protocol_sha256") or "unknown"
        shas.append(f"`docs/protocol-2.md` (part 2), SHA-256 `{sha}`")
    return [
        "# Does gating enable curvature? "
        "Two pre-registered tests of Bathula & Joshi (2026)",
        "",
        f"Protocols: {'; '.join(shas)}. Generated by `{info['command']}`; "
        "`python -m skgate report --from DIR --out DIR` re-renders this file "
        "from the CSVs and run.json beside it.",
    ]


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
    fixed = tests.iloc[list(primary.BY_CONSTRUCTION)]
    named = "; ".join(
        f"{row.claim} {row.quantity} {row.comparison}"
        for row in fixed.itertuples(index=False)
    )
    held = (fixed["outcome"] == HOLDS).sum()
    return (
        f"So {len(fixed)} of its {len(tests)} primary tests ({named}) were "
        f"decided before any data (ungated curvature is 0; the alpha grid "
        f"starts at 0, where the gate is off): they hold ({held} of "
        f"{len(fixed)}) as checks of the implementation and are no evidence "
        "for their claims."
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
        render._fmt(table, 4),
    ]


def _arms_section(arms):
    return [
        "",
        "The arms, means over seeds (turning rate and acceleration of the "
        "attention output; positive share: points whose K is positive beyond "
        "its floor; Bayes accuracy from the generator, where the run has it):",
        "",
        render._fmt(arms, 3),
    ]


def _convergence_section(convergence):
    return [
        "",
        f"Convergence within the {primary.BUDGET}-epoch budget (the epoch whose "
        "weights each fit keeps, chosen on its validation rows):",
        "",
        render._fmt(convergence, 3),
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
        render._fmt(table, 3),
    ]


def _secondary_section(secondary, head, mediation):
    table = secondary[["analysis", *_SHOWN[1:], "p holm", "outcome"]]
    heads = (
        ["The head's activation (C1's accuracy differences, paired by seed):"]
        + ["", render._fmt(head, 4), ""]
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
        render._fmt(table, 4),
        "",
        *heads,
        "Curvature and accuracy across fits (an association, not an effect of "
        "curvature): OLS of test accuracy on the standardised turning rate "
        "with fixed effects for alpha (or the gate) and the seed; 95 % "
        "interval from 2000 bootstrap resamples of seeds:",
        "",
        render._fmt(mediation, 4),
    ]


def _exploratory_section(verdicts):
    rows = [f"| {claim} | {_compact(v)} |" for claim, v in verdicts.items()]
    return [
        "",
        "## Exploratory: the earlier study, rerun on these seeds",
        "",
        "Not pre-registered: its conditions, margins (set after a 5-seed run "
        "had been seen), 20-epoch budget and gain-2 gate initialisation were "
        "chosen while looking at results. Each family has its own Holm "
        "correction. Per-condition tables, figures and rules: `EXPLORATORY.md` "
        "beside this file; toy datasets: `TOY.md`.",
        "",
        "| family | verdict (exploratory rule) |",
        "|---|---|",
        *rows,
    ]


def _cost_section(info):
    seconds = info["seconds"]
    return [
        "",
        "## Setup and cost",
        "",
        f"- Machine: {info['machine']}.",
        "- Wall time per part (s): "
        + ", ".join(f"{part} {value:.0f}" for part, value in seconds.items())
        + f"; total {sum(seconds.values()):.0f}.",
    ]


def _primary_parts(frames, info, bayes=None):
    condition = info["condition"]
    tests = primary.primary_tests(frames, condition)
    plan = pd.DataFrame(info["plan"])
    return {
        "tests": tests,
        "verdicts": primary.claim_verdicts(tests),
        "secondary": primary.secondary_tests(frames, condition),
        "head": primary.head_sensitivity(frames, condition)
        if "relu" in frames
        else None,
        "mediation": primary.mediation(frames, condition),
        "convergence": primary.convergence(frames, condition),
        "arms": primary.arm_summary(frames, condition, bayes),
        "power": primary.power_table(plan, tests),
    }


def _write_tables(folder, parts):
    names = ("tests", "secondary", "power", "mediation", "head", "convergence", "arms")
    for name in names:
        if parts[name] is None:
            continue
        file = {"tests": "tests_primary", "secondary": "tests_secondary"}.get(
            name, name
        )
        parts[name].to_csv(folder / f"{file}.csv", index=False, float_format="%.10g")


def user_guide_block(parts, info):
    """The user guide's generated block: the bottom line and the findings."""
    lines = [
        USER_GUIDE_MARKERS[0],
        " ".join(bottom_line(parts)),
        "",
        *short_findings(parts, info),
        USER_GUIDE_MARKERS[1],
    ]
    return "\n".join(lines) + "\n"


def bottom_line(parts):
    """At most :data:`MAX_BOTTOM_LINE` sentences: does gating help, where,
    and by how much (the second part's answer, with the first part's beside
    it; the first part's alone where the run has no second part)."""
    first = parts.get("tests")
    if "second" in parts:
        return sequences_report.bottom_line(parts["second"], first)
    if first is None:
        return ["This folder holds no finished part of the study."]
    copied = first[(first["claim"] == "C1") & (first["quantity"] == "accuracy")]
    phrases = [
        f"{row['comparison']} {_interval(row)} ({_RESULT_WORDS[row['outcome']]})"
        for _, row in copied.iterrows()
    ]
    return [
        "With copied tokens (uniform attention) at convergence, accuracy "
        "differences: " + "; ".join(phrases) + "."
    ]


def _first_lines(parts):
    """The first part in the Findings: each claim's verdict in a few words,
    with what its numbers need said beside it."""
    tests = parts["tests"]
    verdicts = parts["verdicts"].set_index("claim")["verdict"]
    words = ", ".join(
        f"{claim} {verdicts[claim].split(' (')[0]}" for claim in verdicts.index
    )
    fixed = len(primary.BY_CONSTRUCTION)
    lines = [
        f"**Copied tokens, uniform attention (part 1)**: {words}; {fixed} of "
        f"its {len(tests)} tests could not fail (ungated curvature is exactly "
        "0 there) and are checks, not evidence."
    ]
    return lines


def short_findings(parts, info):
    """The Findings as Markdown list lines: one short line per claim of the
    second part, its secondary answers, the first part's verdicts; at most
    :data:`MAX_FINDINGS` characters in all."""
    lines = []
    if "second" in parts:
        conditions = " and ".join(
            f"{c['shape']} (noise {c['noise']:g})"
            for c in parts["second"]["conditions"]
        )
        lines += [
            f"- **Softmax attention over sequences (part 2)**, {conditions}, "
            "linear control:",
            *(f"  - {line}" for line in sequences_report.findings(parts["second"])),
        ]
        lines += [
            f"- {line}"
            for line in sequences_report.secondary_lines(
                parts["second"], info["sequences"]
            )
        ]
    if "tests" in parts:
        lines += [f"- {line}" for line in _first_lines(parts)]
    return lines


def _findings(parts, frames=None):
    return findings(
        parts["tests"],
        parts["verdicts"],
        parts["secondary"],
        parts["head"],
        parts["mediation"],
        parts["power"],
        parts["convergence"],
        parts.get("theorem"),
        frames,
        parts["arms"],
    )


def render_run(folder, out=None, user_guide=None):
    """Render REPORT.md (and EXPLORATORY.md) of the run in ``folder`` into
    ``out`` (default: the same folder), with the tables it derives (the
    first part's tests_primary.csv, tests_secondary.csv, power.csv,
    mediation.csv, head.csv, convergence.csv, arms.csv; the second part's
    tests_2_primary.csv and the rest of
    :data:`~skgate.study.sequences_report.TABLES`; the exploratory study's
    tests_*.csv) and the primary tests' figures; ``user_guide``: a Markdown
    file whose block between :data:`USER_GUIDE_MARKERS` is replaced.
    Returns the parts (tests, verdicts..., and "second": the second part's,
    where the run has it).

    Nothing is written unless everything renders: the files are made in a
    staging folder inside ``out`` and moved into ``out`` at the end, so a
    damaged run (a ValueError naming its file, see
    :mod:`~skgate.study.runfiles`) leaves ``out`` as it was. The figures the
    reports link that rendering does not draw (those ``reproduce`` drew) are
    copied from ``folder``."""
    folder = Path(folder)
    out = folder if out is None else Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out, prefix=".rendering-") as staging:
        staging = Path(staging)
        parts, info = _render(folder, staging)
        block = None if user_guide is None else user_guide_block(parts, info)
        _copy_linked_figures(folder, staging)
        for path in sorted(staging.iterdir()):
            os.replace(path, out / path.name)
    if user_guide is not None:
        _replace_block(Path(user_guide), block)
    return parts


_FIGURE_LINK = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def _copy_linked_figures(folder, staging):
    """Copy into ``staging`` each figure its Markdown links that is not there."""
    for page in sorted(staging.glob("*.md")):
        for link in _FIGURE_LINK.findall(page.read_text()):
            target = staging / link
            if not target.exists() and (folder / link).is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(folder / link, target)


def _render(folder, out):
    """render_run's work: every file into ``out``; (parts, run info)."""
    info, frames, design, results = load_run(folder)
    # The second part is read and checked before anything is written.
    second = None
    if "sequences" in info:
        second_frames = sequences_report.load(folder)
        if second_frames is not None:
            second = sequences_report.evaluate(second_frames, info["sequences"])
    orphans = sorted(
        file for file in SEQUENCE_FILES.values() if (folder / file).is_file()
    )
    orphans = orphans if second is None else []
    parts = {}
    if "arms" in frames:
        parts = _primary_parts(
            frames, info, None if results is None else results["bayes"]
        )
        _write_tables(out, parts)
        drawn = plots.plot_primary(parts["tests"])
        drawn.savefig(out / "fig_primary.png", dpi=110)
        plots.pyplot().close(drawn)
    if second is not None:
        parts["second"] = second
        sequences_report.write_tables(second, out)
    theorem_frames = None if design is None else theorem.load(folder)
    if theorem_frames is not None:
        parts["theorem"] = theorem.evaluate(theorem_frames)
        theorem.write_tables(parts["theorem"], out)
    lines = [
        *_header(info, parts),
        *(
            [
                "",
                f"**Not rendered**: the second part's sweeps ({', '.join(orphans)}) "
                "are here without its record in run.json: a run of it that "
                "did not finish.",
            ]
            if orphans
            else []
        ),
        "",
        "## Bottom line",
        "",
        " ".join(bottom_line(parts)),
        "",
        "## Findings",
        "",
        *short_findings(parts, info),
    ]
    if "second" in parts:
        lines += sequences_report.section(parts["second"], info["sequences"])
    if "tests" in parts:
        lines += _first_part(parts, info, frames)
    if design is not None:
        evaluated = claims.evaluate_claims(results)
        lines += _exploratory_section(claims.verdicts(evaluated))
        _write_exploratory(folder, out, results, evaluated, design, info)
        if "theorem" in parts:
            figure = "fig_fisher.png" if (folder / "fig_fisher.png").exists() else None
            lines += theorem.section(parts["theorem"], figure)
    lines += _cost_section(info)
    (out / "REPORT.md").write_text("\n".join(lines) + "\n")
    return parts, info


def _first_part(parts, info, frames):
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
        *(f"{i}. {s}" for i, s in enumerate(_findings(parts, frames), 1)),
        *_verdicts_section(parts["verdicts"]),
        *_primary_section(parts["tests"], "fig_primary.png"),
        *_arms_section(parts["arms"]),
        *_convergence_section(parts["convergence"]),
        *_power_section(parts["power"]),
        *_secondary_section(parts["secondary"], parts["head"], parts["mediation"]),
    ]


def _write_exploratory(folder, out, results, evaluated, design, info):
    figures = {p.stem[len("fig_") :]: p.name for p in sorted(folder.glob("fig_*.png"))}
    _write_exploratory_tests(evaluated, out)
    text = render.render_report(results, evaluated, design, figures, info["machine"])
    text = text.replace(
        render.TITLE,
        "# Exploratory: the earlier study of every claim, rerun on the "
        "confirmatory seeds\n\nNot pre-registered (see REPORT.md and "
        "docs/protocol.md for the confirmatory tests).",
        1,
    )
    if (folder / "TOY.md").exists():
        text += render.toy_section((folder / "TOY.md").read_text())
    (out / "EXPLORATORY.md").write_text(text)


def findings_text(path):
    """The Findings of a REPORT.md as plain numbered lines (no Markdown)."""
    text = Path(path).read_text()
    block = text.split("## Findings\n", 1)[1].split("\n## ", 1)[0]
    return [line.replace("**", "") for line in block.strip().splitlines() if line]


def _control_tests(controls):
    """Every control's tests in one table, named by control (and budget)."""
    parts = []
    for name, control in controls.items():
        if name == "alpha_budget":
            parts += [
                control[claim]["tests"].assign(control=f"{name} {claim}")
                for claim in ("C2", "C3")
            ]
        elif "by budget" in control:
            parts += [
                claim["tests"].assign(control=name, max_epochs=epochs)
                for epochs, claim in control["by budget"].items()
            ]
        else:
            parts.append(control["tests"].assign(control=name))
        if "sensitivity" in control:
            parts.append(control["sensitivity"].assign(control=f"{name} sensitivity"))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _write_exploratory_tests(evaluated, out):
    """Every family of tests of ``evaluated`` claims to its tests_*.csv."""
    for name in CLAIMS:
        evaluated[name]["tests"].to_csv(
            out / f"tests_{name}.csv", index=False, float_format="%.10g"
        )
    if "production" in evaluated:
        pd.concat(
            [
                evaluated["production"][claim]["tests"].assign(claim=claim)
                for claim in ("C1", "C2")
            ],
            ignore_index=True,
        ).to_csv(out / "tests_production.csv", index=False, float_format="%.10g")
    pd.concat(
        [
            parts[claim]["tests"].assign(claim=claim, curvature_measure=label)
            for label, parts in evaluated["measures"]["measures"].items()
            for claim in ("C1", "C2")
        ],
        ignore_index=True,
    ).to_csv(out / "tests_measures.csv", index=False, float_format="%.10g")
    if "regime" in evaluated:
        evaluated["regime"].to_csv(
            out / "tests_regime.csv", index=False, float_format="%.10g"
        )
    _control_tests(evaluated.get("controls", {})).to_csv(
        out / "tests_controls.csv", index=False, float_format="%.10g"
    )


def _replace_block(path, block):
    text = path.read_text()
    start, end = USER_GUIDE_MARKERS
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    path.write_text(head + block.rstrip("\n") + tail)


def primary_verdicts(parts):
    """Claim -> verdict of the first part's primary family (of the second
    part's, in a run of the second part alone)."""
    verdicts = parts["verdicts"] if "verdicts" in parts else parts["second"]["verdicts"]
    return dict(zip(verdicts["claim"], verdicts["verdict"], strict=True))

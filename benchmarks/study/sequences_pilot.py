"""The pilot protocol 2 was planned from (the second confirmatory part).

Three stages (:func:`run_pilot`), each a rule that a table of the pilot's
fits decides: the noise per shape with accuracy headroom
(:func:`headroom_settings`, :func:`choose_noises`), each arm's learning rate
on its validation rows (:func:`lr_settings`, :func:`choose_learning_rates`,
extended past an edge by :func:`extension`), and the seeds per sweep from
the pilot's spread within the run's budget (:func:`sweep_costs`,
:func:`plan_seeds`). The protocol copies the outcomes into
:mod:`study.facts`; :mod:`study.sequences` holds the design
they fix.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from . import confirmatory, primary
from .facts import EPOCHS20_SEEDS, HEADROOM, LR_GRID_SEEDS, SEQUENCE, STUDY_GATES
from .facts import SEQUENCE_MIN_SEEDS as MIN_SEEDS
from .facts import SEQUENCE_NOISES as NOISES
from .facts import SEQUENCE_PILOT_SEEDS as PILOT_SEEDS
from .facts import SEQUENCE_SHAPES as SHAPES
from .sequences import (
    CAP,
    DEFAULT_LR,
    LR_GRID,
    candidates,
    curved,
    every_task,
    fit_settings,
    label,
    measure_sequence,
    primary_tests,
    sweep_settings,
    task_label,
)
from .sequences_secondary import convergence
from .stats import ALPHA_LEVEL

__all__ = [
    "BUDGET_CORE_SECONDS",
    "MEASURE_SECONDS",
    "PRIORITY",
    "choose_learning_rates",
    "choose_noises",
    "extension",
    "extension_settings",
    "headroom_settings",
    "lr_settings",
    "plan_seeds",
    "run_pilot",
    "sweep_costs",
]

#: Power planning (:data:`~study.facts.POWER` at the smallest effect
#: of interest at the family's strictest Holm level; seeds per sweep at least
#: :data:`~study.facts.SEQUENCE_MIN_SEEDS`): tests leave the
#: primary family (reported as secondary) while the planned run would take
#: more than BUDGET_CORE_SECONDS: 55 minutes of 2 cores, the issue's 60 less
#: a margin for the planning's error (:func:`plan_seeds`).
BUDGET_CORE_SECONDS = 55 * 60 * 2

#: Core-seconds a fit's measurements take (measured on the pilot's machine:
#: 0.31 s for 200 points, and the own-metric turning rate).
MEASURE_SECONDS = 0.4


def headroom_settings(seeds=PILOT_SEEDS[:6], shapes=SHAPES, noises=NOISES):
    """The pilot's first stage: every arm at :data:`DEFAULT_LR` on every
    candidate condition."""
    return [
        s
        for shape in shapes
        for noise in noises
        for gate in STUDY_GATES.order
        for s in fit_settings(
            curved({"shape": shape, "noise": noise}), seeds, gate=gate, lr=DEFAULT_LR
        )
    ]


def choose_noises(frame, bayes):
    """Per shape, the first of :data:`NOISES` where the task's Bayes accuracy
    minus the best arm's mean accuracy, and that mean minus chance (0.5),
    are both at least :data:`HEADROOM`; where none is, the candidate whose
    smaller margin is largest. Returns (conditions, a table of every
    candidate's numbers)."""
    rows = []
    for (shape, noise), fits in frame.groupby(["shape", "noise"], sort=False):
        best = fits.groupby("gate")["accuracy"].mean().max()
        ceiling = bayes[
            (bayes["shape"] == shape)
            & np.isclose(bayes["noise"], noise)
            & (bayes["n_observations"] == SEQUENCE.n_observations)
        ]["bayes accuracy"].iloc[0]
        rows.append(({"shape": shape, "noise": noise}, best, ceiling))
    table = primary.headroom_table(rows, HEADROOM)
    conditions = []
    for shape, group in table.groupby("shape", sort=False):
        eligible = group[group["eligible"]]
        if eligible.empty:
            margins = group[["headroom", "above chance"]].min(axis=1)
            chosen = group.loc[margins.idxmax()]
        else:
            chosen = eligible.iloc[0]
        conditions.append({"shape": shape, "noise": float(chosen["noise"])})
    table["chosen"] = [
        {"shape": r.shape, "noise": float(r.noise)} in conditions
        for r in table.itertuples()
    ]
    return tuple(conditions), table


def lr_settings(conditions, learning_rates=LR_GRID, seeds=PILOT_SEEDS, gates=None):
    """Every arm (or ``gates``) at every learning rate on the curved
    ``conditions`` and the linear task."""
    return [
        s
        for task in every_task(conditions)
        for gate in gates or STUDY_GATES.order
        for lr in learning_rates
        for s in fit_settings(task, seeds, gate=gate, lr=lr)
    ]


def choose_learning_rates(frame):
    """Per task and arm, the learning rate with the highest mean best
    validation accuracy over the pilot's seeds (ties: the smaller rate).
    Returns a table: task, arm, gate, learning rate, its mean validation and
    test accuracy, and "edge" ("low"/"high" where the best rate is the
    grid's smallest/largest tried, else "")."""
    frame = frame.assign(task_label=frame.apply(task_label, axis=1))
    rows = []
    for (task, gate), fits in frame.groupby(["task_label", "gate"], sort=False):
        means = fits.groupby("lr")[["validation_score", "accuracy"]].mean()
        best = means["validation_score"].idxmax()  # the first (smallest) of ties
        edge = (
            "low"
            if best == means.index.min()
            else "high"
            if best == means.index.max()
            else ""
        )
        rows.append(
            {
                "task": task,
                "arm": STUDY_GATES.arm_labels[gate],
                "gate": gate,
                "lr": float(best),
                "validation accuracy": float(means.loc[best, "validation_score"]),
                "test accuracy": float(means.loc[best, "accuracy"]),
                "rates tried": len(means),
                "edge": edge,
            }
        )
    return pd.DataFrame(rows)


def extension(choice):
    """The learning rates to add past each edge choice: (task, gate, lr)."""
    out = []
    for row in choice.itertuples(index=False):
        if row.edge == "low":
            out.append((row.task, row.gate, row.lr / 2))
        elif row.edge == "high":
            out.append((row.task, row.gate, row.lr * 2))
    return out


def _task_of(task_label, conditions):
    for task in every_task(conditions):
        if label(task) == task_label:
            return task
    raise ValueError(f"no task labelled {task_label!r}")


def extension_settings(extra, conditions, seeds=PILOT_SEEDS):
    """The fits of :func:`extension`'s (task, gate, lr) triples."""
    return [
        s
        for task_label, gate, lr in extra
        for s in fit_settings(_task_of(task_label, conditions), seeds, gate=gate, lr=lr)
    ]


def sweep_costs(frames, n_conditions):
    """What the confirmatory run costs, from the pilot's fits: core-seconds
    per seed of each primary sweep ("arms", "alpha", "depth": each fit's
    share of its batch's training time plus :data:`MEASURE_SECONDS`), and
    of the secondary sweeps in all ("secondary": the grid's
    :data:`LR_GRID_SEEDS` seeds, the 20-epoch arms' :data:`EPOCHS20_SEEDS`,
    scaled from the pilot's epochs run to 20)."""

    def per_fit(frame):
        return frame["fit_seconds"] + MEASURE_SECONDS

    costs = {
        name: float(per_fit(frames[name]).sum() / frames[name]["seed"].nunique())
        for name in ("arms", "alpha", "depth")
    }
    curved = frames["arms"][frames["arms"]["task"] == "curved"]
    grid = frames["lr"][frames["lr"]["task"] == "curved"]
    grid_fits = (
        len(STUDY_GATES.order) * (len(LR_GRID) - 1) * n_conditions * LR_GRID_SEEDS
    )
    early = curved["fit_seconds"] * 20 / curved["epochs_run"] + MEASURE_SECONDS
    early_per_seed = float(early.sum() / curved["seed"].nunique())
    costs["secondary"] = (
        float(per_fit(grid).mean()) * grid_fits + early_per_seed * EPOCHS20_SEEDS
    )
    return costs


#: Which primary tests stay when the budget cannot power them all: by claim
#: in this order (the paper's central claim first), accuracy before
#: curvature within a claim.
PRIORITY = ("C1", "C6", "C4", "C2", "C3", "C5")


def _next_to_leave(family, kept, needed, seeds):
    """The kept test of lowest :data:`PRIORITY` whose leaving lowers its
    sweep's seeds (a test below its sweep's largest need saves nothing)."""

    def rank(i):
        test = family[i]
        return (PRIORITY.index(test["claim"]), test["quantity"] != "accuracy")

    for i in sorted(kept, key=rank, reverse=True):
        if needed[i] >= seeds[family[i]["sweep"]] > MIN_SEEDS:
            return i
    raise RuntimeError("no test's leaving lowers the planned cost")


def plan_seeds(pilot_tests, family, costs=None):
    """Seeds per primary test from the pilot's tests: the fewest with
    :data:`~study.facts.POWER` at the test's smallest effect of
    interest at the family's strictest Holm level (0.05 / the tests kept),
    at least :data:`MIN_SEEDS`. With ``costs`` (:func:`sweep_costs`), tests
    leave the family while the planned run exceeds :data:`BUDGET_CORE_SECONDS`: each
    time the test of lowest :data:`PRIORITY` that sets its sweep's seeds,
    the level and the seeds needed recomputed for the tests left;
    every sweep runs at least :data:`MIN_SEEDS` seeds. A test no number of
    seeds can power leaves first. Columns: the test, its pilot sd and
    effect, the level, "seeds needed", "n_seeds" (its sweep's seeds),
    "affordable" (kept in the primary family) and "planned core-seconds"
    (the whole run's, the same on every row)."""
    kinds = [test["kind"] for test in family]
    pilot = list(pilot_tests.itertuples(index=False))
    dropped = set()
    while True:
        kept = [i for i in range(len(family)) if i not in dropped]
        alpha = ALPHA_LEVEL / max(len(kept), 1)
        needed = {
            i: confirmatory.seeds_needed(kinds[i], pilot[i].margin, pilot[i].sd, alpha)
            for i in range(len(family))
        }
        hopeless = [i for i in kept if needed[i] is None]
        if hopeless:
            dropped.update(hopeless)
            continue
        seeds = dict.fromkeys(("arms", "alpha", "depth"), MIN_SEEDS)
        for i in kept:
            sweep = family[i]["sweep"]
            seeds[sweep] = max(seeds[sweep], needed[i])
        total = (
            sum(costs[sweep] * n for sweep, n in seeds.items()) + costs["secondary"]
            if costs is not None
            else 0.0
        )
        if costs is None or total <= BUDGET_CORE_SECONDS or not kept:
            break
        dropped.add(_next_to_leave(family, kept, needed, seeds))
    rows = []
    for i, test in enumerate(family):
        rows.append(
            {
                "claim": test["claim"],
                "condition": pilot[i].condition,
                "outcome": test["quantity"],
                "comparison": test["comparison"],
                "sweep": test["sweep"],
                "sd": pilot[i].sd,
                "effect": pilot[i].margin,
                "alpha": alpha,
                "seeds needed": needed[i],
                "n_seeds": seeds[test["sweep"]],
                "affordable": i not in dropped,
                "planned core-seconds": total,
            }
        )
    return pd.DataFrame(rows)


def _run(name, settings, out, n_jobs, log):
    """One sweep of the pilot, read back from ``out`` when an earlier run
    finished it (an interrupted pilot resumes at the sweep it was in)."""
    path = out / f"pilot_{name}.csv"
    if path.is_file():
        return pd.read_csv(path)
    frame = primary.run_primary(
        {name: settings}, n_jobs=n_jobs, log=log, measure=measure_sequence
    )[name]
    frame.to_csv(path, index=False, float_format="%.6g")
    return frame


def run_pilot(out, *, n_jobs=1, log=None, seeds=PILOT_SEEDS, fixed=None):
    """The pilot protocol 2 was planned from, in three stages, each sweep's
    fits to ``out``/pilot_<sweep>.csv:

    1. "headroom": every arm at :data:`DEFAULT_LR` on every candidate
       condition (the first six seeds); :func:`choose_noises` fixes the
       noise per shape (conditions.csv);
    2. "lr": every arm at every rate of :data:`LR_GRID` on the chosen
       conditions and the linear task, extended past an edge choice until
       none is ("lr_extension_<k>"); :func:`choose_learning_rates`
       (learning_rates.csv);
    3. "alpha", "depth": the sweeps at the gated arm's rate.

    Then the primary family on the pilot's fits (the arms at their chosen
    rates), the seed plan (plan.csv) and the convergence table
    (convergence.csv). Returns (conditions, rates, plan).
    """
    from .claims import bayes_ceilings

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    fixed = fixed or {}

    def fix(settings):
        return [{**s, **fixed} for s in settings]

    headroom = _run("headroom", fix(headroom_settings(seeds[:6])), out, n_jobs, log)
    bayes = bayes_ceilings([headroom])
    conditions, table = choose_noises(headroom, bayes)
    table.to_csv(out / "conditions.csv", index=False, float_format="%.6g")
    lr = _run("lr", fix(lr_settings(conditions, seeds=seeds)), out, n_jobs, log)
    choice = choose_learning_rates(lr)
    for k in range(1, 6):
        extra = extension(choice)
        if not extra:
            break
        more = _run(
            f"lr_extension_{k}",
            fix(extension_settings(extra, conditions, seeds)),
            out,
            n_jobs,
            log,
        )
        lr = pd.concat([lr, more], ignore_index=True)
        choice = choose_learning_rates(lr)
    choice.to_csv(out / "learning_rates.csv", index=False, float_format="%.6g")
    rates = {(r.task, r.gate): r.lr for r in choice.itertuples(index=False)}
    by_seed = dict.fromkeys(("alpha", "depth"), seeds)
    frames = {
        name: _run(name, fix(settings), out, n_jobs, log)
        for name, settings in sweep_settings(conditions, rates, by_seed).items()
    }
    chosen = [
        (label(task), gate)
        for task in every_task(conditions)
        for gate in STUDY_GATES.order
    ]
    lr = lr.assign(task_label=lr.apply(task_label, axis=1))
    keep = [
        (t, g) in chosen and np.isclose(r, rates[(t, g)])
        for t, g, r in zip(lr["task_label"], lr["gate"], lr["lr"], strict=True)
    ]
    frames["arms"] = lr[keep].drop(columns="task_label")
    convergence(frames["arms"], cap=fixed.get("max_epochs", CAP)).to_csv(
        out / "convergence.csv", index=False, float_format="%.6g"
    )
    family = candidates(conditions, "trend")
    pilot_results = primary_tests(frames, family)
    pilot_results.to_csv(out / "tests.csv", index=False, float_format="%.6g")
    frames["lr"] = lr.drop(columns="task_label")
    costs = sweep_costs(frames, len(conditions))
    pd.DataFrame([costs]).to_csv(out / "costs.csv", index=False, float_format="%.6g")
    plan = plan_seeds(pilot_results, family, costs)
    plan.to_csv(out / "plan.csv", index=False, float_format="%.6g")
    return conditions, rates, plan

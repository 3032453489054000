"""The second confirmatory part: softmax attention over sequences (protocol 2).

The first confirmatory part (:mod:`skgate.study.primary`) copies one 2-D
observation into every token, so attention weights are uniform and the
block is, in effect, a gated MLP. Here each row is a sequence of
:data:`N_OBSERVATIONS` noisy observations of a latent point, one per token
(``token_dim=2``), so softmax attention weighs tokens by their content and
ungated attention is already curved. Every arm trains at its own learning
rate, chosen on the pilot's validation rows, with early stopping that lets
it converge.

This module is the protocol's executable form; each fact it fixes is
written here once:

- the pilot (:func:`headroom_settings`, :func:`choose_noises`,
  :func:`lr_settings`, :func:`choose_learning_rates`,
  :func:`sweep_settings`, :func:`plan_seeds`), whose outputs the protocol
  copies into :data:`CONDITIONS`, :data:`LEARNING_RATES` and :data:`SEEDS`;
- the confirmatory fits (:func:`confirmatory_settings`), what each measures
  (:func:`measure_sequence`) and the primary family (:func:`tests`,
  :func:`primary_tests`), computed as the first part's are
  (:mod:`skgate.study.confirmatory`'s paired and trend statistics, Holm
  over the family);
- the secondary analyses (:func:`secondary_tests`, :func:`lr_table`,
  :func:`convergence`, :func:`metric_agreement`).
"""

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.covariance import LedoitWolf

from ..model_selection import representation_curvature
from . import confirmatory, primary, stats
from .design import DEFAULTS
from .facts import (
    ARM_LABELS,
    EPOCHS20_SEEDS,
    GATE_ORDER,
    HEADROOM,
    LINEAR,
    LR_GRID_SEEDS,
    POWER,
    statements,
)
from .facts import SEQUENCE_ALPHAS as ALPHAS
from .facts import SEQUENCE_CONDITIONS as CONDITIONS
from .facts import SEQUENCE_DEPTHS as DEPTHS
from .facts import SEQUENCE_FIRST_SEED as FIRST_CONFIRMATORY_SEED
from .facts import SEQUENCE_LEARNING_RATES as LEARNING_RATES
from .facts import SEQUENCE_MIN_SEEDS as MIN_SEEDS
from .facts import SEQUENCE_NOISES as NOISES
from .facts import SEQUENCE_PILOT_SEEDS as PILOT_SEEDS
from .facts import SEQUENCE_SEEDS as SEEDS
from .facts import SEQUENCE_SHAPES as SHAPES
from .stats import ALPHA_LEVEL

__all__ = [
    "ALPHAS",
    "BUDGET_CORE_SECONDS",
    "C2_CURVATURE",
    "CAP",
    "CONDITIONS",
    "DEFAULT_LR",
    "DEPTHS",
    "EPOCHS20_SEEDS",
    "FIRST_CONFIRMATORY_SEED",
    "HEADROOM",
    "LARGEST_RATE",
    "LATE_FRACTION",
    "LATE_SHARE",
    "LEARNING_RATES",
    "LEFT_FAMILY",
    "LINEAR",
    "LR_GRID",
    "LR_GRID_SEEDS",
    "MEASURE_SECONDS",
    "MIN_SEEDS",
    "MODEL",
    "NOISES",
    "N_OBSERVATIONS",
    "PATIENCE",
    "PILOT_SEEDS",
    "POWER",
    "PRIORITY",
    "SEEDS",
    "SHAPES",
    "alpha_curve",
    "arm_summary",
    "arms_settings",
    "can_decide",
    "candidates",
    "choose_learning_rates",
    "choose_noises",
    "claim_verdicts",
    "confirmatory_seeds",
    "confirmatory_settings",
    "convergence",
    "extension",
    "extension_settings",
    "family_level",
    "headroom_settings",
    "label",
    "lr_settings",
    "lr_table",
    "measure_sequence",
    "metric_agreement",
    "per_condition",
    "plan_seeds",
    "primary_tests",
    "run_pilot",
    "secondary_tests",
    "sweep_costs",
    "sweep_settings",
    "tests",
]

_GATED, _SILU, _NONE = GATE_ORDER

# -- the design fixed before the pilot ------------------------------------------

#: Noisy observations per row, one per token of width 2.
N_OBSERVATIONS = 8
#: Training: at most :data:`CAP` epochs; early stopping on a held-out tenth
#: of the training rows stops a fit :data:`PATIENCE` epochs after its best
#: validation accuracy and keeps that epoch's weights.
CAP = 300
PATIENCE = 50
#: Convergence rule: fewer than LATE_SHARE of an arm's fits may have their
#: best validation epoch in the last LATE_FRACTION of the cap.
LATE_SHARE, LATE_FRACTION = 0.05, 0.2
#: The model of every fit: the first part's (GELU MLP head, the gate
#: projection initialised as PyTorch's nn.Linear) over sequences.
MODEL = {
    "head": "mlp",
    "gate_init": "pytorch",
    "n_observations": N_OBSERVATIONS,
    "max_epochs": CAP,
    "early_stopping": True,
    "n_iter_no_change": PATIENCE,
}
#: The pilot's first stage trains every arm at DEFAULT_LR (the shapes, noise
#: levels, seeds, grids and margins: :mod:`skgate.study.facts`).
DEFAULT_LR = DEFAULTS["lr"]
#: The learning-rate grid (16x); an arm whose best value is at an edge gets
#: the grid extended past it by factors of 2 until it is not.
LR_GRID = (5e-4, 1e-3, 2e-3, 4e-3, 8e-3)
#: Power planning (:data:`~skgate.study.facts.POWER` at the smallest effect
#: of interest at the family's strictest Holm level; seeds per sweep at least
#: :data:`~skgate.study.facts.SEQUENCE_MIN_SEEDS`): tests leave the
#: primary family (reported as secondary) while the planned run would take
#: more than BUDGET_CORE_SECONDS: 55 minutes of 2 cores, the issue's 60 less
#: a margin for the planning's error (:func:`plan_seeds`).
BUDGET_CORE_SECONDS = 55 * 60 * 2
#: Core-seconds a fit's measurements take (measured on the pilot's machine:
#: 0.31 s for 200 points, and the own-metric turning rate).
MEASURE_SECONDS = 0.4

# -- fixed by the protocol from the pilot ------------------------------------------

#: The conditions, learning rates and seeds: :mod:`skgate.study.facts`.
#: C2's curvature test: "trend" (rises over alpha > 0) or the alpha of the
#: pilot's interior peak (the turning rate at the peak above alpha 0.25).
C2_CURVATURE = "trend"
#: Candidate tests (claim, quantity) the budget could not power: they leave
#: the primary family and are reported in the secondary one.
LEFT_FAMILY = (("C3", "curvature"), ("C5", "curvature"))


def confirmatory_seeds(n, first=FIRST_CONFIRMATORY_SEED):
    """The first ``n`` confirmatory seeds."""
    return tuple(range(first, first + n))


def _curved(condition):
    return {"task": "curved", **condition}


def label(task):
    """A task's name in tables: "rings, noise 0.3", "linear task", or for
    several curved tasks (a test on their mean) "mean of rings and
    checkerboard"."""
    if isinstance(task, tuple | list):
        return "mean of " + " and ".join(t["shape"] for t in task)
    if task.get("task") == "linear":
        return "linear task"
    return f"{task['shape']}, noise {task['noise']:g}"


def _test_rows(frame, test):
    """The fits a test reads: its task's, or every curved condition's for a
    test on their mean (the paired differences then average, seed by seed,
    over the conditions)."""
    where = test["condition"]
    if isinstance(where, tuple | list):
        return pd.concat(
            [confirmatory.fits_of(frame, test, condition) for condition in where],
            ignore_index=True,
        )
    return confirmatory.fits_of(frame, test, where)


def _settings(task, seeds, **keys):
    return [{**DEFAULTS, **MODEL, **task, **keys, "seed": seed} for seed in seeds]


# -- the pilot ------------------------------------------------------------------


def headroom_settings(seeds=PILOT_SEEDS[:6], shapes=SHAPES, noises=NOISES):
    """The pilot's first stage: every arm at :data:`DEFAULT_LR` on every
    candidate condition."""
    return [
        s
        for shape in shapes
        for noise in noises
        for gate in GATE_ORDER
        for s in _settings(
            _curved({"shape": shape, "noise": noise}), seeds, gate=gate, lr=DEFAULT_LR
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
            & (bayes["n_observations"] == N_OBSERVATIONS)
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


def _tasks(conditions):
    return [_curved(c) for c in conditions] + [LINEAR]


def lr_settings(conditions, learning_rates=LR_GRID, seeds=PILOT_SEEDS, gates=None):
    """Every arm (or ``gates``) at every learning rate on the curved
    ``conditions`` and the linear task."""
    return [
        s
        for task in _tasks(conditions)
        for gate in gates or GATE_ORDER
        for lr in learning_rates
        for s in _settings(task, seeds, gate=gate, lr=lr)
    ]


def _task_label(row):
    return "linear task" if row["task"] == "linear" else label(row)


def choose_learning_rates(frame):
    """Per task and arm, the learning rate with the highest mean best
    validation accuracy over the pilot's seeds (ties: the smaller rate).
    Returns a table: task, arm, gate, learning rate, its mean validation and
    test accuracy, and "edge" ("low"/"high" where the best rate is the
    grid's smallest/largest tried, else "")."""
    frame = frame.assign(task_label=frame.apply(_task_label, axis=1))
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
                "arm": ARM_LABELS[gate],
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
    for task in _tasks(conditions):
        if label(task) == task_label:
            return task
    raise ValueError(f"no task labelled {task_label!r}")


def extension_settings(extra, conditions, seeds=PILOT_SEEDS):
    """The fits of :func:`extension`'s (task, gate, lr) triples."""
    return [
        s
        for task_label, gate, lr in extra
        for s in _settings(_task_of(task_label, conditions), seeds, gate=gate, lr=lr)
    ]


def _lr(rates, task, gate):
    return rates[(label(task), gate)]


def sweep_settings(conditions, rates, seeds, sweeps=("alpha", "depth")):
    """The alpha sweep (gated, :data:`ALPHAS`, on the first curved condition
    and the linear task) and the depth sweep (gated, :data:`DEPTHS`, on the
    first curved condition), each at the gated arm's learning rate of its
    task; by sweep name."""
    first = _curved(conditions[0])
    out = {}
    if "alpha" in sweeps:
        out["alpha"] = [
            s
            for task in (first, LINEAR)
            for alpha in ALPHAS
            for s in _settings(
                task,
                seeds["alpha"],
                gate=_GATED,
                alpha=alpha,
                lr=_lr(rates, task, _GATED),
            )
        ]
    if "depth" in sweeps:
        out["depth"] = [
            s
            for depth in DEPTHS
            for s in _settings(
                first,
                seeds["depth"],
                gate=_GATED,
                depth=depth,
                lr=_lr(rates, first, _GATED),
            )
        ]
    return out


def arms_settings(conditions, rates, seeds):
    """Every arm at its own learning rate on every task."""
    return [
        s
        for task in _tasks(conditions)
        for gate in GATE_ORDER
        for s in _settings(task, seeds, gate=gate, lr=_lr(rates, task, gate))
    ]


# -- the confirmatory run ------------------------------------------------------------


def confirmatory_settings(
    seeds=None, conditions=None, rates=None, fixed=None, secondary=True
):
    """The confirmatory fits by sweep: "arms", "alpha", "depth" (primary)
    and, with ``secondary``, "lr_grid" (every arm at every other rate of
    the grid, on the curved conditions, the first :data:`LR_GRID_SEEDS`
    seeds) and "epochs20" (every arm at :data:`DEFAULT_LR` for 20 epochs
    without early stopping, the exploratory study's setting, on the curved
    conditions and the first :data:`EPOCHS20_SEEDS` of the arms' seeds).
    ``seeds``: a tuple of seeds per sweep name (default: :data:`SEEDS`
    confirmatory seeds); ``fixed``: keys set in every fit (a shrunken study
    in the tests)."""
    conditions = CONDITIONS if conditions is None else conditions
    rates = LEARNING_RATES if rates is None else rates
    if seeds is None:
        seeds = {name: confirmatory_seeds(n) for name, n in SEEDS.items()}
    out = {"arms": arms_settings(conditions, rates, seeds["arms"])}
    out.update(sweep_settings(conditions, rates, seeds))
    if secondary:
        grid_seeds = seeds.get("lr_grid", seeds["arms"][:LR_GRID_SEEDS])
        out["lr_grid"] = [
            s
            for condition in conditions
            for gate in GATE_ORDER
            for lr in sorted(
                set(LR_GRID) | {r for (t, g), r in rates.items() if g == gate}
            )
            if lr != _lr(rates, _curved(condition), gate)
            for s in _settings(_curved(condition), grid_seeds, gate=gate, lr=lr)
        ]
        out["epochs20"] = [
            s
            for condition in conditions
            for gate in GATE_ORDER
            for s in _settings(
                _curved(condition),
                seeds.get("epochs20", seeds["arms"][:EPOCHS20_SEEDS]),
                gate=gate,
                lr=DEFAULT_LR,
                max_epochs=20,
                early_stopping=False,
                n_iter_no_change=DEFAULTS["n_iter_no_change"],
            )
        ]
    fixed = fixed or {}
    return {name: [{**s, **fixed} for s in group] for name, group in out.items()}


def measure_sequence(clf, X_test, y_test, setting):
    """:func:`~skgate.study.primary.measure_primary`'s measurements, and:

    - "turning_mahalanobis": the turning rate under the representation's own
      metric, the inverse of the attention outputs' covariance over the
      measured rows (Ledoit-Wolf shrinkage: 512 coordinates, 200 rows),
      so that every direction the representation spreads in counts alike
      (C4: a metric fitted to each model, under which the arms' ordering
      can change);
    - "validation_score": the best held-out accuracy of training (what the
      learning rate is chosen on); "epochs_run": epochs trained.
    """
    row = primary.measure_primary(clf, X_test, y_test, setting)
    X_curv = X_test[: setting["n_curvature"]]
    outputs = clf.representation(X_curv).reshape(len(X_curv), -1)
    covariance = LedoitWolf().fit(outputs).covariance_
    row["turning_mahalanobis"] = representation_curvature(
        clf, X_curv, kind="turning", covariance=covariance
    ).mean()
    stopped = setting["early_stopping"]
    row["validation_score"] = clf.best_validation_score_ if stopped else np.nan
    row["epochs_run"] = clf.n_iter_
    return row


# -- the tests -----------------------------------------------------------------------


def _where(task):
    """A test's task and condition: one task, or a tuple of curved
    conditions (a test on their mean)."""
    if isinstance(task, tuple | list):
        return {"task": "curved", "condition": tuple(task)}
    return {"task": task["task"], "condition": task}


def _comparison(claim, quantity, measure, sweep, task, better, worse):
    test = confirmatory.comparison(
        claim, quantity, measure, sweep, "curved", better, worse
    )
    return {**test, **_where(task)}


def candidates(conditions, c2_curvature="trend"):
    """Every test the pilot considered for the primary family, in order:
    C1 and C4 (gated against SiLU and against ungated) and C6 (gated against
    SiLU) on the mean over the curved ``conditions`` (each seed's difference
    averaged over them); C2's curvature (a trend over alpha > 0, or with
    ``c2_curvature`` an alpha, the rise from the smallest alpha to that
    peak) and accuracy trends, and C5's depth trend, on the first
    condition; C3 on the linear task. One dict per test (claim, quantity,
    measure, sweep, task, condition, kind, comparison and its keys)."""
    conditions = tuple(conditions)
    first = _curved(conditions[0])
    family = [
        _comparison("C1", quantity, measure, "arms", conditions, _GATED, worse)
        for quantity, measure in (("accuracy", "accuracy"), ("curvature", "turning"))
        for worse in (_SILU, _NONE)
    ]
    if c2_curvature == "trend":
        c2 = confirmatory.trend(
            "C2", "curvature", "turning", "alpha", "curved", "alpha"
        )
    else:
        peak = float(c2_curvature)
        c2 = {
            **confirmatory.make_test(
                "C2",
                "curvature",
                "turning",
                "alpha",
                "curved",
                kind="superiority",
                column="alpha",
                better=peak,
                worse=ALPHAS[0],
            ),
            "comparison": f"alpha {peak:g} > alpha {ALPHAS[0]:g}",
        }
    family += [
        {**c2, **_where(first)},
        {
            **confirmatory.trend(
                "C2", "accuracy", "accuracy", "alpha", "curved", "alpha"
            ),
            **_where(first),
        },
        {
            **_comparison("C3", "accuracy", "accuracy", "arms", LINEAR, _GATED, _NONE),
            "kind": "equivalence",
            "comparison": "gated = ungated",
        },
        {
            **confirmatory.trend(
                "C3", "curvature", "turning", "alpha", "linear", "alpha"
            ),
            **_where(LINEAR),
        },
    ]
    family += [
        _comparison(
            "C4", "curvature", "turning_mahalanobis", "arms", conditions, _GATED, worse
        )
        for worse in (_SILU, _NONE)
    ]
    family += [
        {
            **confirmatory.trend(
                "C5", "curvature", "turning", "depth", "curved", "depth"
            ),
            **_where(first),
        },
        _comparison(
            "C6",
            "positive curvature",
            "positive_share",
            "arms",
            conditions,
            _GATED,
            _SILU,
        ),
    ]
    return family


def _left(test, left):
    return (test["claim"], test["quantity"]) in left


def tests(conditions=None, c2_curvature=None, left=None):
    """The primary family: :func:`candidates` on ``conditions`` (default
    :data:`CONDITIONS`) without those whose (claim, quantity) is in ``left``
    (default :data:`LEFT_FAMILY`: the tests the budget could not power)."""
    conditions = CONDITIONS if conditions is None else conditions
    c2_curvature = C2_CURVATURE if c2_curvature is None else c2_curvature
    left = LEFT_FAMILY if left is None else left
    return [t for t in candidates(conditions, c2_curvature) if not _left(t, left)]


def per_condition(conditions):
    """C1's comparisons on each curved condition alone (secondary)."""
    return [
        _comparison("C1", quantity, measure, "arms", _curved(c), _GATED, worse)
        for c in conditions
        for quantity, measure in (("accuracy", "accuracy"), ("curvature", "turning"))
        for worse in (_SILU, _NONE)
    ]


def _family(family, frames):
    rows = []
    for test in family:
        data = _test_rows(frames[test["sweep"]], test)
        rows.append(
            {
                **test,
                "condition": label(test["condition"]),
                **confirmatory.statistics(test, data),
            }
        )
    table = stats.family_outcomes(pd.DataFrame(rows))
    return table[confirmatory.TEST_COLUMNS]


def primary_tests(frames, family=None):
    """The primary family's results (tests_2_primary.csv), with the first
    part's columns; Holm over the whole family."""
    return _family(tests() if family is None else family, frames)


def family_level(family=None):
    """The strictest Holm level of the primary family."""
    return ALPHA_LEVEL / len(tests() if family is None else family)


def can_decide(n_seeds):
    """Whether any test on ``n_seeds`` seeds can pass the family's strictest
    Holm level: the smallest exact sign-flip p-value, 1 / 2^n, below it."""
    return 0.5**n_seeds < family_level()


# -- power ----------------------------------------------------------------------------


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
    grid_fits = len(GATE_ORDER) * (len(LR_GRID) - 1) * n_conditions * LR_GRID_SEEDS
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
    :data:`POWER` at the test's smallest effect of interest at the family's
    strictest Holm level (0.05 / the tests kept), at least
    :data:`MIN_SEEDS`. With ``costs`` (:func:`sweep_costs`), tests leave the
    family while the planned run exceeds :data:`BUDGET_CORE_SECONDS`: each
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


# -- convergence, learning rates, metrics ------------------------------------------


def convergence(frame, cap=CAP):
    """Per task and arm of an early-stopped sweep: fits, median best epoch,
    median epochs run, and the share whose best validation epoch lies in the
    last :data:`LATE_FRACTION` of ``cap`` (the rule: below :data:`LATE_SHARE`)."""
    late = cap * (1 - LATE_FRACTION)
    frame = frame.assign(task_label=frame.apply(_task_label, axis=1))
    rows = []
    for (task, gate, lr), fits in frame.groupby(
        ["task_label", "gate", "lr"], sort=False
    ):
        share = float((fits["best_epoch"] > late).mean())
        rows.append(
            {
                "task": task,
                "arm": ARM_LABELS[gate],
                "lr": lr,
                "fits": len(fits),
                "median best epoch": float(fits["best_epoch"].median()),
                "median epochs run": float(fits["epochs_run"].median()),
                f"share best after epoch {late:g}": share,
                "converged": share < LATE_SHARE,
            }
        )
    return pd.DataFrame(rows)


# -- the pilot, run -------------------------------------------------------------------


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
    chosen = [(label(task), gate) for task in _tasks(conditions) for gate in GATE_ORDER]
    lr = lr.assign(task_label=lr.apply(_task_label, axis=1))
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


# -- secondary analyses ----------------------------------------------------------------


#: The secondary tests' name for every arm's fits at the grid's largest rate.
LARGEST_RATE = "largest rate"


def _secondary_family(conditions, c2_curvature, left):
    """The secondary tests: (analysis, sweep, test)."""
    family = [
        ("each condition alone", "arms", test) for test in per_condition(conditions)
    ]
    for condition in conditions:
        task = _curved(condition)
        for worse in (_SILU, _NONE):
            test = _comparison(
                "C1", "accuracy", "accuracy", "arms", task, _GATED, worse
            )
            family.append(
                ("20 epochs at lr 0.002 (the exploratory setting)", "epochs20", test)
            )
            family.append((f"every arm at lr {max(LR_GRID):g}", LARGEST_RATE, test))
    for quantity, measure in (("accuracy", "accuracy"), ("curvature", "turning")):
        family.append(
            (
                "SiLU against ungated",
                "arms",
                _comparison(
                    "C1", quantity, measure, "arms", tuple(conditions), _SILU, _NONE
                ),
            )
        )
    for worse in (_SILU, _NONE):
        family.append(
            (
                "the paper's acceleration",
                "arms",
                _comparison(
                    "C1",
                    "curvature",
                    "acceleration",
                    "arms",
                    tuple(conditions),
                    _GATED,
                    worse,
                ),
            )
        )
    family += [
        ("left the primary family (budget)", test["sweep"], test)
        for test in candidates(conditions, c2_curvature)
        if _left(test, left)
    ]
    return family


def secondary_tests(frames, conditions=None, c2_curvature=None, left=None):
    """The secondary family (tests_2_secondary.csv), Holm over its own tests:
    C1 on each condition alone, C1's accuracy at 20 epochs and at the grid's
    largest learning rate (every arm at that rate, the grid's seeds), SiLU
    against ungated, C1's curvature in the paper's acceleration, and the
    candidates that left the primary family; the primary tests' columns and
    "analysis"."""
    conditions = CONDITIONS if conditions is None else conditions
    c2_curvature = C2_CURVATURE if c2_curvature is None else c2_curvature
    left = LEFT_FAMILY if left is None else left
    frames = dict(frames)
    if "lr_grid" in frames:
        frames[LARGEST_RATE] = _at_rate(frames, max(LR_GRID))
    family = [
        (analysis, sweep, test)
        for analysis, sweep, test in _secondary_family(conditions, c2_curvature, left)
        if sweep in frames
    ]
    table = _family([{**test, "sweep": sweep} for _, sweep, test in family], frames)
    table.insert(0, "analysis", [analysis for analysis, _, _ in family])
    return table


def _at_rate(frames, lr):
    """Every arm's fits at learning rate ``lr``: the grid sweep's, and the
    arms sweep's where ``lr`` is the arm's own rate (the grid's seeds only)."""
    grid = frames["lr_grid"]
    arms = frames["arms"][frames["arms"]["seed"].isin(set(grid["seed"]))]
    both = pd.concat([grid, arms], ignore_index=True)
    return both[np.isclose(both["lr"], lr)]


def lr_table(frames):
    """Each arm's test accuracy across the learning-rate grid (secondary:
    does gating tolerate larger rates?): per curved condition, arm and
    rate, the mean and sd over the grid's seeds, and whether it is the
    arm's own rate."""
    grid = frames["lr_grid"]
    arms = frames["arms"][frames["arms"]["seed"].isin(set(grid["seed"]))]
    both = pd.concat(
        [grid.assign(own=False), arms[arms["task"] == "curved"].assign(own=True)],
        ignore_index=True,
    )
    both = both.assign(task_label=both.apply(_task_label, axis=1))
    rows = []
    keys = ["task_label", "gate", "lr"]
    for (task, gate, lr), fits in both.groupby(keys, sort=False):
        rows.append(
            {
                "task": task,
                "arm": ARM_LABELS[gate],
                "lr": lr,
                "own rate": bool(fits["own"].any()),
                "accuracy": fits["accuracy"].mean(),
                "accuracy sd": fits["accuracy"].std(),
                "seeds": fits["seed"].nunique(),
            }
        )
    table = pd.DataFrame(rows)
    return table.sort_values(["task", "arm", "lr"], kind="stable").reset_index(
        drop=True
    )


def metric_agreement(arms):
    """C4's metric against the Euclidean one, per task and arm: the mean
    turning rate under each, their ratio, and the per-fit Pearson
    correlation across the arm's fits (a correlation near 1 and a ratio near
    a constant would mean the metric tests nothing the Euclidean one does
    not)."""
    curved = arms[arms["task"] == "curved"]
    curved = curved.assign(task_label=curved.apply(_task_label, axis=1))
    rows = []
    for (task, gate), fits in curved.groupby(["task_label", "gate"], sort=False):
        rows.append(
            {
                "task": task,
                "arm": ARM_LABELS[gate],
                "turning": fits["turning"].mean(),
                "turning, own metric": fits["turning_mahalanobis"].mean(),
                "ratio": fits["turning_mahalanobis"].mean() / fits["turning"].mean(),
                "per-fit correlation": fits["turning"].corr(
                    fits["turning_mahalanobis"]
                ),
            }
        )
    everything = {
        "task": "every curved fit",
        "arm": "all",
        "turning": curved["turning"].mean(),
        "turning, own metric": curved["turning_mahalanobis"].mean(),
        "ratio": curved["turning_mahalanobis"].mean() / curved["turning"].mean(),
        "per-fit correlation": curved["turning"].corr(curved["turning_mahalanobis"]),
    }
    return pd.DataFrame([*rows, everything])


def arm_summary(arms, bayes=None):
    """Per task and arm: learning rate, mean and sd of test accuracy, the
    task's Bayes accuracy (where ``bayes`` has it), mean turning rate,
    acceleration and positive share."""
    arms = arms.assign(task_label=arms.apply(_task_label, axis=1))
    rows = []
    for (task, gate), fits in arms.groupby(["task_label", "gate"], sort=False):
        ceiling = np.nan
        if bayes is not None:
            first = fits.iloc[0]
            known = bayes[
                (bayes["task"] == first["task"])
                & (bayes["n_observations"] == N_OBSERVATIONS)
                & np.isclose(bayes["noise"], first["noise"])
            ]
            if first["task"] == "curved":
                known = known[known["shape"] == first["shape"]]
            ceiling = known["bayes accuracy"].iloc[0] if len(known) else np.nan
        rows.append(
            {
                "task": task,
                "arm": ARM_LABELS[gate],
                "lr": fits["lr"].iloc[0],
                "accuracy": fits["accuracy"].mean(),
                "accuracy sd": fits["accuracy"].std(),
                "Bayes accuracy": ceiling,
                "turning": fits["turning"].mean(),
                "acceleration": fits["acceleration"].mean(),
                "positive share": fits["positive_share"].mean(),
            }
        )
    return pd.DataFrame(rows)


def claim_verdicts(results):
    """One verdict per claim of the primary family, by the first part's rule
    (contradicted, reproduced, not reproduced, inconclusive), each test
    named with its condition."""
    rows = []
    for claim, group in results.groupby("claim", sort=True):
        labels = [
            f"{row.quantity} {row.comparison} ({row.condition})"
            for row in group.itertuples(index=False)
        ]
        rows.append(
            {
                "claim": claim,
                "statement": statements("sequences")[claim],
                "verdict": confirmatory.claim_verdict(list(group["outcome"]), labels),
            }
        )
    return pd.DataFrame(rows)


def alpha_curve(alpha, task="curved"):
    """C2's shape on ``task``'s fits of the alpha sweep: per alpha, the mean
    turning rate and accuracy over seeds, and how many seeds' turning rate
    peaks there (the protocol tests a monotone trend; this says whether the
    curve is one)."""
    fits = alpha[alpha["task"] == task]
    table = fits.pivot_table(index="seed", columns="alpha", values="turning")
    peaks = table.idxmax(axis=1).value_counts()
    means = fits.groupby("alpha")[["turning", "accuracy"]].mean()
    return pd.DataFrame(
        {
            "alpha": means.index,
            "turning": means["turning"].to_numpy(),
            "accuracy": means["accuracy"].to_numpy(),
            "seeds peaking here": [int(peaks.get(a, 0)) for a in means.index],
        }
    )

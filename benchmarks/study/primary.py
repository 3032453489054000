"""The confirmatory study: the primary tests ``docs/protocol.md`` fixes, on fresh seeds.

The protocol was written from the exploratory study and a pilot
(:data:`PILOT_SEEDS`) before the confirmatory run; this module is its
executable form. Each fact the protocol states (the condition, the budget,
the measures, the comparisons, the smallest effects of interest, the seeds)
is written here once, and a test checks the protocol's tables against it.

- :func:`primary_settings` / :func:`pilot_settings`: which fits run;
- :func:`measure_primary`: what each fit measures (accuracy, the turning
  rate, the paper's acceleration, the turning rate under an anisotropic
  metric, the share of points whose Gaussian curvature is positive beyond
  its noise floor);
- :func:`primary_tests`: the primary family (one Holm family; sign-flip
  tests, bootstrap intervals, trends within seed);
- :func:`plan_seeds` and :func:`power_table`: seeds from the pilot's
  standard deviations, planned and achieved power;
- :func:`secondary_tests`, :func:`mediation`: the secondary analyses.
"""

import numpy as np
import pandas as pd

from skgate.model_selection import representation_curvature

from . import confirmatory, stats, words
from .confirmatory import comparison, trend
from .design import DEFAULTS
from .facts import COPIED_CANDIDATES as CANDIDATES
from .facts import COPIED_CONDITION as CONDITION
from .facts import COPIED_CONDITION_NUMBER as CONDITION_NUMBER
from .facts import COPIED_FIRST_SEED as FIRST_CONFIRMATORY_SEED
from .facts import COPIED_MAX_SEEDS as MAX_SEEDS
from .facts import COPIED_MIN_SEEDS as MIN_SEEDS
from .facts import COPIED_PILOT_SEEDS as PILOT_SEEDS
from .facts import COPIED_SEEDS as SEEDS
from .facts import COPIED_SESOI as SESOI
from .facts import (
    EPOCHS,
    GRIDS,
    HEADROOM,
    LINEAR,
    MAKER_TASKS,
    POWER,
    STALL_FRACTION,
    STUDY_GATES,
    statements,
)
from .stats import ALPHA_LEVEL
from .sweeps import gaussian_plane, run_sweep

__all__ = [
    "BY_CONSTRUCTION",
    "C1_ACCURACY",
    "TESTS_BY_ID",
    "BUDGET",
    "CANDIDATES",
    "CONDITION",
    "CONDITION_NUMBER",
    "CONFIRMATORY_SEEDS",
    "HEADROOM",
    "MAX_SEEDS",
    "MIN_SEEDS",
    "PILOT_SEEDS",
    "POWER",
    "PRIMARY_MODEL",
    "SEEDS",
    "TESTS",
    "choose_condition",
    "claim_verdicts",
    "trend_peaks",
    "measure_primary",
    "mediation",
    "pilot_settings",
    "plan_seeds",
    "power_table",
    "primary_settings",
    "primary_tests",
    "run_primary",
    "secondary_tests",
    "id_of",
]

# -- the design the protocol fixes ---------------------------------------------

#: Training budget (epochs) of every primary fit: early stopping on a held-out
#: tenth of the training rows that never stops before the budget, keeping the
#: weights of the epoch with the best validation accuracy.
BUDGET = EPOCHS.long
#: The primary model: the design's GELU MLP head, copied tokens, the gate
#: projection initialised as PyTorch's nn.Linear (not the gain 2 an earlier
#: session tuned on the checkerboard for the gated arm).
PRIMARY_MODEL = {
    "head": "mlp",
    "gate_init": "pytorch",
    "n_observations": 1,
    "max_epochs": BUDGET,
    "early_stopping": True,
    "n_iter_no_change": BUDGET,
}
#: The seeds, the conditions, the grids and the margins are the study's
#: facts (:mod:`study.facts`), imported above under the protocol's names.


def confirmatory_seeds(n):
    """The first ``n`` confirmatory seeds."""
    return tuple(range(FIRST_CONFIRMATORY_SEED, FIRST_CONFIRMATORY_SEED + n))


CONFIRMATORY_SEEDS = confirmatory_seeds(max(SEEDS.values()))


_GATED, _SILU, _NONE = STUDY_GATES.order
#: The primary family: one entry per test; a claim holds when all its tests do.
TESTS = (
    comparison("C1", "curvature", "turning", "arms", "curved", _GATED, _SILU),
    comparison("C1", "curvature", "turning", "arms", "curved", _SILU, _NONE),
    comparison("C1", "accuracy", "accuracy", "arms", "curved", _GATED, _SILU),
    comparison("C1", "accuracy", "accuracy", "arms", "curved", _SILU, _NONE),
    trend("C2", "curvature", "turning", "alpha", "curved", "alpha"),
    trend("C2", "accuracy", "accuracy", "alpha", "curved", "alpha"),
    {
        **comparison("C3", "accuracy", "accuracy", "arms", "linear", _GATED, _NONE),
        "kind": "equivalence",
        "comparison": "gated = ungated",
    },
    trend("C3", "curvature", "turning", "alpha", "linear", "alpha"),
    comparison(
        "C4", "curvature", "turning_anisotropic", "arms", "curved", _GATED, _SILU
    ),
    comparison(
        "C4", "curvature", "turning_anisotropic", "arms", "curved", _SILU, _NONE
    ),
    trend("C5", "curvature", "turning", "depth", "curved", "depth"),
    comparison(
        "C6", "positive curvature", "positive_share", "arms", "curved", _GATED, _NONE
    ),
)


def id_of(test):
    """A test's name in its family: its claim, quantity and comparison
    (``"C1 curvature gated > SiLU"``); tests are named, never numbered."""
    return f"{test['claim']} {test['quantity']} {test['comparison']}"


#: The primary tests by name (:func:`id_of`), in the family's order.
TESTS_BY_ID = {id_of(test): test for test in TESTS}
assert len(TESTS_BY_ID) == len(TESTS), "every primary test has its own name"
#: C1's accuracy tests (the secondary analyses rerun them).
C1_ACCURACY = ("C1 accuracy gated > SiLU", "C1 accuracy SiLU > ungated")
#: Tests of :data:`TESTS` that no data could fail: ungated attention over
#: copied tokens is affine (curvature exactly 0; C1's and C4's SiLU >
#: ungated, C6), and a trend over an alpha grid starting at 0, where the
#: gate is off, starts from that 0 (C2's and C3's curvature). Checks of the
#: implementation, not evidence (protocol 2 has none).
BY_CONSTRUCTION = (
    "C1 curvature SiLU > ungated",
    "C2 curvature rises with alpha",
    "C3 curvature rises with alpha",
    "C4 curvature SiLU > ungated",
    "C6 positive curvature gated > ungated",
)
# -- the fits ---------------------------------------------------------------------


def measure_primary(clf, X_test, y_test, setting):
    """A primary fit's measurements on its test split (curvature on its first
    ``n_curvature`` rows).

    - "accuracy", "best_epoch";
    - "turning": the primary curvature, the mean turning rate of the
      attention output along random unit input directions (radians per unit
      step; unchanged when the representation is rescaled);
    - "acceleration": the paper's ``||D^2 f [v, v]||`` (secondary: it grows
      with the representation's size);
    - "turning_anisotropic": the turning rate under the metric of condition
      number :data:`CONDITION_NUMBER` (C4);
    - "positive_share" / "negative_share": the share of points whose Gaussian
      curvature K (of the image of the latent plane) is above its noise floor
      / below minus it. The floor at a point is ``|K_exact - K_fd|``, the
      disagreement of the exact value with float64 central differences
      (step 1e-2): a sign smaller than the two methods' disagreement is not
      counted either way. "gaussian_mean": the mean exact K.
    """
    X_curv = X_test[: setting["n_curvature"]]
    plane = gaussian_plane(X_curv, setting["task"])
    K = {
        method: representation_curvature(
            clf, X_curv, kind="gaussian", directions=plane, method=method
        )
        for method in ("exact", "finite_difference")
    }
    floor = np.abs(K["exact"] - K["finite_difference"])
    return {
        "accuracy": clf.score(X_test, y_test),
        "best_epoch": int(np.argmax(clf.validation_scores_)) + 1
        if setting["early_stopping"]
        else clf.n_iter_,
        "turning": representation_curvature(clf, X_curv, kind="turning").mean(),
        "acceleration": representation_curvature(clf, X_curv).mean(),
        "turning_anisotropic": representation_curvature(
            clf,
            X_curv,
            kind="turning",
            metric="anisotropic",
            condition_number=CONDITION_NUMBER,
        ).mean(),
        "positive_share": np.mean(K["exact"] > floor),
        "negative_share": np.mean(K["exact"] < -floor),
        "gaussian_mean": np.nanmean(K["exact"]),
    }


def _settings(condition, seeds, **keys):
    return [
        {**DEFAULTS, **PRIMARY_MODEL, **condition, **keys, "seed": seed}
        for seed in seeds
    ]


def _sweep_settings(condition, seeds, sweeps=("arms", "alpha", "depth")):
    """The settings of ``sweeps`` on one curved ``condition`` (and the linear
    task where a claim needs it), by sweep name."""
    curved = {"task": "curved", **condition}
    out = {}
    if "arms" in sweeps:
        out["arms"] = [
            s
            for task in (curved, LINEAR)
            for gate in STUDY_GATES.order
            for s in _settings(task, seeds["arms"], gate=gate)
        ]
    if "alpha" in sweeps:
        out["alpha"] = [
            s
            for task in (curved, LINEAR)
            for alpha in GRIDS.copied_alphas
            for s in _settings(task, seeds["alpha"], gate=_GATED, alpha=alpha)
        ]
    if "depth" in sweeps:
        out["depth"] = [
            s
            for depth in GRIDS.copied_depths
            for s in _settings(curved, seeds["depth"], gate=_GATED, depth=depth)
        ]
    # Secondary: the ReLU head and the paper's 20-epoch budget, C1's arms.
    if "relu" in sweeps:
        out["relu"] = [
            s
            for gate in STUDY_GATES.order
            for s in _settings(curved, seeds["arms"], gate=gate, head="mlp-relu")
        ]
    if "epochs20" in sweeps:
        out["epochs20"] = [
            s
            for gate in STUDY_GATES.order
            for s in _settings(
                curved,
                seeds["arms"],
                gate=gate,
                max_epochs=EPOCHS.paper,
                early_stopping=False,
                n_iter_no_change=DEFAULTS["n_iter_no_change"],
            )
        ]
    return out


def primary_settings(seeds=None, condition=None, fixed=None, secondary=True):
    """The confirmatory run's settings by sweep: "arms", "alpha", "depth"
    (the primary tests) and, with ``secondary``, "relu", "epochs20".
    ``seeds``: a tuple of seeds per sweep name (default: :data:`SEEDS`
    confirmatory seeds each); ``fixed``: setting keys applied to every fit
    (fewer curvature points in the quick run; a shrunken study in the
    tests)."""
    if seeds is None:
        seeds = {name: confirmatory_seeds(n) for name, n in SEEDS.items()}
    sweeps = ("arms", "alpha", "depth") + (("relu", "epochs20") if secondary else ())
    out = _sweep_settings(CONDITION if condition is None else condition, seeds, sweeps)
    fixed = fixed or {}
    return {name: [{**s, **fixed} for s in group] for name, group in out.items()}


def pilot_settings(seeds=PILOT_SEEDS):
    """The pilot's settings: the primary sweeps on every candidate condition
    (the linear task's fits once), by sweep name."""
    seeds_by_sweep = dict.fromkeys(("arms", "alpha", "depth"), seeds)
    out = {}
    for i, condition in enumerate(CANDIDATES):
        for name, settings in _sweep_settings(condition, seeds_by_sweep).items():
            if i:  # the linear task is the same for every candidate
                settings = [s for s in settings if s["task"] != "linear"]
            out.setdefault(name, []).extend(settings)
    return out


def run_primary(
    settings_by_sweep,
    *,
    n_jobs=1,
    progress=True,
    leave=True,
    log=None,
    measure=measure_primary,
):
    """Run each sweep (batched; each fit measured by ``measure``, default
    :func:`measure_primary`); frames by sweep, each with a "sweep" column.
    ``progress``: a progress bar per sweep (``leave=False``: erased when the
    sweep ends); ``log``: a callable taking one line per sweep."""
    frames = {}
    for name, settings in settings_by_sweep.items():
        if log is not None:
            log(f"primary {name}: {len(settings)} fits")
        frame = run_sweep(
            settings,
            n_jobs=n_jobs,
            progress=progress,
            leave=leave,
            description=name,
            measure=measure,
        )
        frames[name] = frame.assign(sweep=name)
    return frames


# -- the tests ----------------------------------------------------------------------


def _condition_label(test, condition):
    if test["task"] == "linear":
        return "linear task"
    return f"{condition['shape']}, noise {condition['noise']:g}"


def _family(tests, frames, condition):
    """The tests of one family on ``frames``, with Holm and outcomes."""
    rows = []
    for test in tests:
        data = confirmatory.fits_of(frames[test["sweep"]], test, condition)
        rows.append(
            {
                **test,
                "condition": _condition_label(test, condition),
                **confirmatory.statistics(test, data),
            }
        )
    return stats.family_outcomes(pd.DataFrame(rows))[confirmatory.TEST_COLUMNS]


def primary_tests(frames, condition=None):
    """The primary family, one row per test of :data:`TESTS` (tests_primary.csv).

    Columns: claim, outcome (what is compared: curvature, accuracy...),
    measure, condition, comparison, estimate (mean paired difference, or the
    mean of the seeds' Spearman rho), ci low / ci high (95 % bootstrap over
    seeds), p / p reverse (one-sided sign-flip, exact up to 2^13 patterns),
    p equivalence (sign-flip TOST within ``margin``), each Holm-adjusted over
    the whole family, margin (the smallest effect of interest), sd, n
    (seeds), method, kind and result (holds, reversed, no effect,
    inconclusive).
    """
    condition = CONDITION if condition is None else condition
    return _family(TESTS, frames, condition)


#: Secondary analyses: each a test like the primary ones, in a family of
#: its own (Holm over the secondary tests), labelled by ``analysis``.
SECONDARY = (
    *(
        (label, sweep, TESTS_BY_ID[name])
        for label, sweep in (
            ("20 epochs (the paper's budget)", "epochs20"),
            ("ReLU head", "relu"),
        )
        for name in C1_ACCURACY
    ),
    *(
        (
            "the paper's acceleration",
            "arms",
            {**TESTS_BY_ID[name], "measure": "acceleration"},
        )
        for name in ("C1 curvature gated > SiLU", "C1 curvature SiLU > ungated")
    ),
    (
        "SiLU arm of C6",
        "arms",
        comparison(
            "C6", "positive curvature", "positive_share", "arms", "curved", _SILU, _NONE
        ),
    ),
    (
        "SiLU arm of C6",
        "arms",
        comparison(
            "C6",
            "positive curvature",
            "positive_share",
            "arms",
            "curved",
            _GATED,
            _SILU,
        ),
    ),
)


def secondary_tests(frames, condition=None):
    """The secondary family (tests_secondary.csv): C1's accuracy at 20 epochs
    and with a ReLU head, C1's curvature in the paper's acceleration, and
    C6's SiLU arm; the primary tests' columns and "analysis"."""
    condition = CONDITION if condition is None else condition
    run = [entry for entry in SECONDARY if entry[1] in frames]  # a quick run: fewer
    tests = [{**test, "sweep": sweep} for _, sweep, test in run]
    table = _family(tests, frames, condition)
    table.insert(0, "analysis", [label for label, _, _ in run])
    return table


def head_sensitivity(frames, condition=None):
    """How much C1's accuracy differences depend on the head's activation:
    per comparison, the paired (by seed) difference GELU minus ReLU of the
    gated-minus-SiLU and SiLU-minus-ungated accuracy differences, with its
    bootstrap interval and two-sided sign-flip p-value."""
    condition = CONDITION if condition is None else condition
    rows = []
    for test in (TESTS_BY_ID[name] for name in C1_ACCURACY):
        gelu = confirmatory.paired_differences(
            confirmatory.fits_of(frames["arms"], test, condition), test
        )
        relu = confirmatory.paired_differences(
            confirmatory.fits_of(frames["relu"], test, condition), test
        )
        result = stats.permutation_comparison(gelu - relu, SESOI["accuracy"])
        rows.append(
            {
                "comparison": test["comparison"],
                "GELU head": gelu.mean(),
                "ReLU head": relu.mean(),
                "GELU minus ReLU": result["estimate"],
                "ci low": result["ci low"],
                "ci high": result["ci high"],
                "p (two-sided)": min(1.0, 2 * min(result["p"], result["p reverse"])),
                "n": result["n"],
            }
        )
    return pd.DataFrame(rows)


def arm_summary(frames, condition=None, bayes=None):
    """The primary arms at a glance: per task and arm of the "arms" sweep,
    the mean and standard deviation over seeds of test accuracy, the mean
    turning rate, the paper's acceleration and the positive share; beside
    the task's Bayes accuracy where ``bayes`` (the study's bayes.csv table)
    has it."""
    condition = CONDITION if condition is None else condition
    rows = []
    for task in MAKER_TASKS:
        fits = confirmatory.fits_of(frames["arms"], {"task": task}, condition)
        ceiling = np.nan
        if bayes is not None:
            known = bayes[(bayes["task"] == task) & (bayes["n_observations"] == 1)]
            if task == "curved":
                known = known[
                    (known["shape"] == condition["shape"])
                    & np.isclose(known["noise"], condition["noise"])
                ]
            ceiling = known["bayes accuracy"].iloc[0] if len(known) else np.nan
        for gate, group in fits.groupby("gate", sort=False):
            rows.append(
                {
                    "task": _condition_label({"task": task}, condition),
                    "arm": STUDY_GATES.arm_labels[gate],
                    "accuracy": group["accuracy"].mean(),
                    "accuracy sd": group["accuracy"].std(),
                    "Bayes accuracy": ceiling,
                    "turning": group["turning"].mean(),
                    "acceleration": group["acceleration"].mean(),
                    "positive share": group["positive_share"].mean(),
                }
            )
    return pd.DataFrame(rows)


#: A fit whose best validation epoch is after this one may not have converged
#: within :data:`BUDGET` (the protocol's learning-curve check).
LATE_EPOCH = 250


def convergence(frames, condition=None):
    """Did the primary arms converge within the budget? Per task and gate of
    the "arms" sweep: the median best validation epoch, the share of fits
    whose best epoch is after :data:`LATE_EPOCH`, and beside it the share
    that stalled, their best epoch in the first
    :data:`~study.facts.STALL_FRACTION` of the budget."""
    early = max(1, int(BUDGET * STALL_FRACTION))
    condition = CONDITION if condition is None else condition
    rows = []
    for task in MAKER_TASKS:
        fits = confirmatory.fits_of(frames["arms"], {"task": task}, condition)
        for gate, group in fits.groupby("gate", sort=False):
            rows.append(
                {
                    "task": _condition_label({"task": task}, condition),
                    "arm": STUDY_GATES.arm_labels[gate],
                    "median best epoch": float(group["best_epoch"].median()),
                    f"share after epoch {LATE_EPOCH}": float(
                        (group["best_epoch"] > LATE_EPOCH).mean()
                    ),
                    f"share by epoch {early:g}": float(
                        (group["best_epoch"] <= early).mean()
                    ),
                    "fits": len(group),
                }
            )
    return pd.DataFrame(rows)


# -- verdicts -------------------------------------------------------------------------


def claim_verdicts(tests, frames=None, condition=None, arms=None):
    """One verdict per claim from the primary family: claim, statement,
    verdict, by :func:`~study.confirmatory.claim_verdict`'s rule: a
    test of :data:`BY_CONSTRUCTION` supports nothing (a claim resting on
    such tests alone is "consistent by construction"), nor does an
    equivalence test at the task's ceiling (``arms``: the arms table, with
    Bayes accuracies), where only a loss could fail it, nor C4's test
    where the metric repeats the Euclidean turning rate
    (:func:`metric_repeats`); a trend whose mean peaks inside its grid on
    ``frames`` (the fits by sweep, of ``condition``) is named by its peak,
    not as a rise."""
    found = trend_peaks(tests, frames, condition)
    rows = tests.to_dict("records")
    names = [id_of(row) for row in rows]
    fixed = [name in BY_CONSTRUCTION for name in names]
    untested = [None] * len(rows)
    for i, row in enumerate(rows):
        if confirmatory.equivalence_ceiling(row, arms):
            fixed[i] = confirmatory.AT_CEILING
        if row["claim"] == "C4" and not fixed[i] and frames is not None:
            untested[i] = metric_repeats(frames, condition)
    return confirmatory.claim_verdicts(
        tests,
        statements("copied"),
        axes=[TESTS_BY_ID[name].get("axis", "") for name in names],
        peaks=[found.get(name) for name in names],
        fixed=fixed,
        untested=untested,
    )


#: C4's anisotropic turning rate repeats the Euclidean one where, over the
#: curved task's gated and SiLU fits, the two correlate above this.
REPEAT_CORRELATION = 0.99


def metric_repeats(frames, condition=None):
    """Whether C4's metric tests nothing C1 does not: over the curved
    task's fits of the arms whose curvature is not 0 by construction, the
    per-fit correlation of the anisotropic and the Euclidean turning rates
    above :data:`REPEAT_CORRELATION`; the words then (their ratio and
    correlation), else None."""
    condition = CONDITION if condition is None else condition
    fits = confirmatory.fits_of(frames["arms"], {"task": "curved"}, condition)
    fits = fits[fits["gate"] != _NONE]
    r = fits["turning"].corr(fits["turning_anisotropic"])
    if not r > REPEAT_CORRELATION:
        return None
    ratio = fits["turning_anisotropic"].mean() / fits["turning"].mean()
    return (
        f"a repeat of C1 ({words.POST_HOC}): the metric's turning rate is "
        f"{ratio:.3g} x the "
        f"Euclidean one, per-fit r = {r:.4f}"
    )


def trend_peaks(tests, frames=None, condition=None):
    """Where each trend test of ``tests`` (the primary family's table) has
    its mean peak inside its grid on ``frames`` (the fits by sweep, of
    ``condition``), by test name (:func:`id_of`); tests whose mean peaks at
    the grid's end are left out (all without ``frames``)."""
    if frames is None:
        return {}
    condition = CONDITION if condition is None else condition
    peaks = {}
    for name in map(id_of, tests.to_dict("records")):
        test = TESTS_BY_ID[name]
        rows = confirmatory.fits_of(frames[test["sweep"]], test, condition)
        peak = confirmatory.trend_peak(test, rows)
        if peak is not None:
            peaks[name] = peak
    return peaks


# -- power -------------------------------------------------------------------------


def family_level():
    """The strictest Holm level of the primary family: 0.05 / its size."""
    return ALPHA_LEVEL / len(TESTS)


def can_decide(n_seeds):
    """Whether any test on ``n_seeds`` seeds can pass the primary family's
    Holm level: the smallest exact sign-flip p-value, 1 / 2^n, below it."""
    return 0.5**n_seeds < family_level()


def plan_seeds(pilot_tests):
    """Seeds per primary test from the pilot's tests (:func:`primary_tests`
    on the pilot's fits): the fewest with :data:`POWER` at the test's
    smallest effect of interest at :func:`family_level`, at least
    :data:`MIN_SEEDS`; a test needing more than :data:`MAX_SEEDS` is
    unaffordable (the protocol then drops it from the primary family)."""
    alpha = family_level()
    rows = []
    for test, pilot in zip(TESTS, pilot_tests.itertuples(index=False), strict=True):
        needed = confirmatory.seeds_needed(test["kind"], pilot.margin, pilot.sd, alpha)
        affordable = needed is not None and needed <= MAX_SEEDS
        rows.append(
            {
                "claim": test["claim"],
                "outcome": test["quantity"],
                "comparison": test["comparison"],
                "sweep": test["sweep"],
                "sd": pilot.sd,
                "effect": pilot.margin,
                "alpha": alpha,
                "seeds needed": needed,
                "n_seeds": max(MIN_SEEDS, needed) if affordable else None,
                "affordable": affordable,
            }
        )
    return pd.DataFrame(rows)


def seeds_by_sweep(plan):
    """Seeds of each primary sweep: the most any of its affordable tests needs."""
    affordable = plan[plan["affordable"]]
    return {
        sweep: int(group["n_seeds"].max())
        for sweep, group in affordable.groupby("sweep", sort=False)
    }


def power_table(plan, tests, family=TESTS):
    """power.csv: per primary test of ``family`` (default :data:`TESTS`), the
    planned power (the pilot's sd at the planned seeds) and the achieved
    power (this run's sd at its seeds), at the smallest effect of interest
    and the family's strictest Holm level."""
    rows = []
    for test, planned, got in zip(
        family, plan.itertuples(index=False), tests.itertuples(index=False), strict=True
    ):
        common = {
            "claim": test["claim"],
            "condition": got.condition,
            "comparison": test["comparison"],
            "outcome": test["quantity"],
        }
        for stage, n, sd, effect in (
            ("planned", planned.n_seeds, planned.sd, planned.effect),
            ("achieved", got.n, got.sd, got.margin),
        ):
            rows.append(
                {
                    **common,
                    "stage": stage,
                    "n_seeds": n,
                    "sd": sd,
                    "effect": effect,
                    "alpha": planned.alpha,
                    "power": confirmatory.power(
                        test["kind"], effect, sd, n, planned.alpha
                    ),
                }
            )
    return pd.DataFrame(rows)


def headroom_table(entries, headroom):
    """Each candidate condition's headroom: one row per ``(condition, best
    arm's mean accuracy, Bayes accuracy)`` of ``entries``, with "headroom"
    (Bayes minus best), "above chance" (best minus 0.5) and "eligible"
    (both at least ``headroom``)."""
    table = pd.DataFrame(
        [
            {
                **condition,
                "best arm": best,
                "Bayes": ceiling,
                "headroom": ceiling - best,
                "above chance": best - 0.5,
            }
            for condition, best, ceiling in entries
        ]
    )
    table["eligible"] = (table["headroom"] >= headroom) & (
        table["above chance"] >= headroom
    )
    return table


def choose_condition(pilot_arms, bayes):
    """The first of :data:`CANDIDATES` with accuracy headroom in the pilot:
    the task's Bayes accuracy minus the best arm's mean accuracy, and the
    best arm's mean minus chance (0.5), both at least :data:`HEADROOM`.
    Returns (condition or None, a table of every candidate's numbers)."""
    rows = []
    for condition in CANDIDATES:
        test = {"task": "curved"}
        fits = confirmatory.fits_of(pilot_arms, test, condition)
        best = fits.groupby("gate")["accuracy"].mean().max()
        ceiling = bayes[
            (bayes["shape"] == condition["shape"])
            & np.isclose(bayes["noise"], condition["noise"])
        ]["bayes accuracy"].iloc[0]
        rows.append((condition, best, ceiling))
    table = headroom_table(rows, HEADROOM)
    eligible = table[table["eligible"]]
    if eligible.empty:
        return None, table
    first = eligible.iloc[0]
    return {"shape": first["shape"], "noise": float(first["noise"])}, table


# -- curvature and accuracy across fits (an association) ---------------------------


def _two_way_slope(accuracy, turning):
    """OLS slope of accuracy on turning with fixed effects for the seed (rows)
    and the control (columns) of a balanced seeds x levels table: by
    Frisch-Waugh, the slope of the two-way demeaned values. Several tables
    at once along a leading axis."""

    def demeaned(values):
        return (
            values
            - values.mean(axis=-1, keepdims=True)
            - values.mean(axis=-2, keepdims=True)
            + values.mean(axis=(-2, -1), keepdims=True)
        )

    x, y = demeaned(turning), demeaned(accuracy)
    spread = (x * x).sum(axis=(-2, -1))
    covariance = (x * y).sum(axis=(-2, -1))
    # No turning left beyond seed and control: no slope (NaN).
    safe = np.where(spread > 0, spread, 1.0)
    return np.where(spread > 0, covariance / safe, np.nan)


def _curvature_slope(fits, control, n_resamples, random_state=0):
    """Accuracy per standard deviation of the turning rate at fixed
    ``control`` and seed, and its 95 % interval over bootstrap resamples of
    seeds (seeds missing a level of ``control`` are left out: the design is
    balanced)."""
    scale = fits["turning"].std(ddof=1)
    tables = [
        fits.pivot_table(index="seed", columns=control, values=value).dropna()
        for value in ("accuracy", "turning")
    ]
    accuracy, turning = (table.to_numpy(float) for table in tables)
    turning = turning / scale
    estimate = float(_two_way_slope(accuracy, turning))
    rng = np.random.default_rng(random_state)
    drawn = rng.integers(len(accuracy), size=(n_resamples, len(accuracy)))
    slopes = _two_way_slope(accuracy[drawn], turning[drawn])
    slopes = slopes[np.isfinite(slopes)]
    if len(slopes) == 0:
        return estimate, np.nan, np.nan
    low, high = np.percentile(slopes, [2.5, 97.5])
    return estimate, float(low), float(high)


def mediation(frames, condition=None, n_resamples=2000):
    """Does curvature predict accuracy beyond the gate and alpha?

    Per task (the curved condition and the linear task) and analysis: the
    change in test accuracy per standard deviation of the turning rate, at
    fixed alpha (within the gated arm, the alpha sweep) or at a fixed gate
    (across the three arms), with seed fixed effects; 95 % interval from a
    bootstrap over seeds (clusters).
    """
    condition = CONDITION if condition is None else condition
    rows = []
    for task in MAKER_TASKS:
        for analysis, sweep, control in (
            ("within the gated arm, across alpha and seeds", "alpha", "alpha"),
            ("across arms, beyond the gate", "arms", "gate"),
        ):
            fits = confirmatory.fits_of(frames[sweep], {"task": task}, condition)
            slope, low, high = _curvature_slope(fits, control, n_resamples)
            rows.append(
                {
                    "task": _condition_label({"task": task}, condition),
                    "analysis": analysis,
                    "accuracy per sd of turning": slope,
                    "ci low": low,
                    "ci high": high,
                    "fits": len(fits),
                    "seeds": fits["seed"].nunique(),
                }
            )
    return pd.DataFrame(rows)

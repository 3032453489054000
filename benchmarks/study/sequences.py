"""The second confirmatory part: softmax attention over sequences (protocol 2).

The first confirmatory part (:mod:`study.primary`) copies one 2-D
observation into every token, so attention weights are uniform and the
block is, in effect, a gated MLP. Here each row is a sequence of
``SEQUENCE.n_observations`` (:mod:`study.facts`) noisy observations of
a latent point, one per token (``SEQUENCE.token_dim``, 2), so softmax
attention weighs tokens by their content and ungated attention is already
curved. Every arm trains at its own learning
rate, chosen on the pilot's validation rows, with early stopping that lets
it converge.

This module is the protocol's executable form; each fact it fixes is
written here once:

- the design fixed before the pilot (:data:`MODEL`, :data:`LR_GRID`) and
  what the pilot fixed (:data:`CONDITIONS`, :data:`LEARNING_RATES`,
  :data:`SEEDS`, :data:`LEFT_FAMILY`; the pilot itself is
  :mod:`study.sequences_pilot`);
- the confirmatory fits (:func:`confirmatory_settings`) and what each
  measures (:func:`measure_sequence`);
- the primary family (:func:`tests`, :func:`primary_tests`,
  :func:`claim_verdicts`), computed as the first part's is
  (:mod:`study.confirmatory`'s paired and trend statistics, Holm
  over the family), and the secondary family's tests
  (:func:`secondary_family`; the secondary analyses are
  :mod:`study.sequences_secondary`).
"""

import numpy as np
import pandas as pd
from sklearn.covariance import LedoitWolf

from skgate.model_selection import representation_curvature

from . import confirmatory, primary, stats
from .design import DEFAULTS
from .facts import (
    EPOCHS,
    EPOCHS20_SEEDS,
    GRIDS,
    HEADROOM,
    LINEAR,
    LR_GRID_SEEDS,
    POWER,
    SCORE_MARGIN,
    SEQUENCE,
    STUDY_GATES,
    statements,
)
from .facts import SEQUENCE_CONDITIONS as CONDITIONS
from .facts import SEQUENCE_FIRST_SEED as FIRST_CONFIRMATORY_SEED
from .facts import SEQUENCE_LEARNING_RATES as LEARNING_RATES
from .facts import SEQUENCE_MIN_SEEDS as MIN_SEEDS
from .facts import SEQUENCE_NOISES as NOISES
from .facts import SEQUENCE_PILOT_SEEDS as PILOT_SEEDS
from .facts import SEQUENCE_SEEDS as SEEDS
from .facts import SEQUENCE_SHAPES as SHAPES
from .stats import ALPHA_LEVEL

__all__ = [
    "idle_fits",
    "learned_nothing",
    "short_label",
    "C2_CURVATURE",
    "CAP",
    "CONDITIONS",
    "DEFAULT_LR",
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
    "MIN_SEEDS",
    "MODEL",
    "NOISES",
    "PATIENCE",
    "PILOT_SEEDS",
    "POWER",
    "SEEDS",
    "SHAPES",
    "arms_settings",
    "can_decide",
    "candidates",
    "claim_verdicts",
    "confirmatory_seeds",
    "confirmatory_settings",
    "curved",
    "every_task",
    "family_level",
    "family_results",
    "fit_settings",
    "label",
    "measure_sequence",
    "per_condition",
    "primary_tests",
    "secondary_family",
    "sweep_settings",
    "task_label",
    "test_rows",
    "tests",
]

_GATED, _SILU, _NONE = STUDY_GATES.order

# -- the design fixed before the pilot ------------------------------------------

#: Training: at most :data:`CAP` epochs; early stopping on a held-out tenth
#: of the training rows stops a fit :data:`PATIENCE` epochs after its best
#: validation accuracy and keeps that epoch's weights.
CAP = EPOCHS.long
PATIENCE = 50
#: Convergence rule: fewer than LATE_SHARE of an arm's fits may have their
#: best validation epoch in the last LATE_FRACTION of the cap.
LATE_SHARE, LATE_FRACTION = 0.05, 0.2
#: The model of every fit: the first part's (GELU MLP head, the gate
#: projection initialised as PyTorch's nn.Linear) over sequences.
MODEL = {
    "head": "mlp",
    "gate_init": "pytorch",
    "n_observations": SEQUENCE.n_observations,
    "max_epochs": CAP,
    "early_stopping": True,
    "n_iter_no_change": PATIENCE,
}
#: The pilot's first stage trains every arm at DEFAULT_LR (the shapes, noise
#: levels, seeds, grids and margins: :mod:`study.facts`).
DEFAULT_LR = DEFAULTS["lr"]
#: The learning-rate grid (16x); an arm whose best value is at an edge gets
#: the grid extended past it by factors of 2 until it is not.
LR_GRID = (5e-4, 1e-3, 2e-3, 4e-3, 8e-3)

# -- fixed by the protocol from the pilot ------------------------------------------

#: The conditions, learning rates and seeds: :mod:`study.facts`.
#: C2's curvature test: "trend" (rises over alpha > 0) or the alpha of the
#: pilot's interior peak (the turning rate at the peak above alpha 0.25).
C2_CURVATURE = "trend"
#: Candidate tests (claim, quantity) the budget could not power: they leave
#: the primary family and are reported in the secondary one.
LEFT_FAMILY = (("C3", "curvature"), ("C5", "curvature"))


def confirmatory_seeds(n, first=FIRST_CONFIRMATORY_SEED):
    """The first ``n`` confirmatory seeds."""
    return tuple(range(first, first + n))


def curved(condition):
    """A curved ``condition`` (shape, noise) as a task."""
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


def test_rows(frame, test):
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


def fit_settings(task, seeds, **keys):
    """The fits of ``task`` on ``seeds``: the part's :data:`MODEL` over the
    design's defaults, with ``keys``."""
    return [{**DEFAULTS, **MODEL, **task, **keys, "seed": seed} for seed in seeds]


# -- the sweeps -----------------------------------------------------------------


def every_task(conditions):
    """The curved ``conditions`` as tasks, then the linear task."""
    return [curved(c) for c in conditions] + [LINEAR]


def task_label(row):
    """The :func:`label` of a fit's (``row``'s) task."""
    return "linear task" if row["task"] == "linear" else label(row)


def _lr(rates, task, gate):
    return rates[(label(task), gate)]


def sweep_settings(conditions, rates, seeds, sweeps=("alpha", "depth")):
    """The alpha sweep (gated, ``GRIDS.sequence_alphas``, on the first curved
    condition and the linear task) and the depth sweep (gated,
    ``GRIDS.sequence_depths``, on the first curved condition), each at the
    gated arm's learning rate of its task; by sweep name."""
    first = curved(conditions[0])
    out = {}
    if "alpha" in sweeps:
        out["alpha"] = [
            s
            for task in (first, LINEAR)
            for alpha in GRIDS.sequence_alphas
            for s in fit_settings(
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
            for depth in GRIDS.sequence_depths
            for s in fit_settings(
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
        for task in every_task(conditions)
        for gate in STUDY_GATES.order
        for s in fit_settings(task, seeds, gate=gate, lr=_lr(rates, task, gate))
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
            for gate in STUDY_GATES.order
            for lr in sorted(
                set(LR_GRID) | {r for (t, g), r in rates.items() if g == gate}
            )
            if lr != _lr(rates, curved(condition), gate)
            for s in fit_settings(curved(condition), grid_seeds, gate=gate, lr=lr)
        ]
        out["epochs20"] = [
            s
            for condition in conditions
            for gate in STUDY_GATES.order
            for s in fit_settings(
                curved(condition),
                seeds.get("epochs20", seeds["arms"][:EPOCHS20_SEEDS]),
                gate=gate,
                lr=DEFAULT_LR,
                max_epochs=EPOCHS.paper,
                early_stopping=False,
                n_iter_no_change=DEFAULTS["n_iter_no_change"],
            )
        ]
    fixed = fixed or {}
    return {name: [{**s, **fixed} for s in group] for name, group in out.items()}


def measure_sequence(clf, X_test, y_test, setting):
    """:func:`~study.primary.measure_primary`'s measurements, and:

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
    first = curved(conditions[0])
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
                worse=GRIDS.sequence_alphas[0],
            ),
            "comparison": f"alpha {peak:g} > alpha {GRIDS.sequence_alphas[0]:g}",
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
        _comparison("C1", quantity, measure, "arms", curved(c), _GATED, worse)
        for c in conditions
        for quantity, measure in (("accuracy", "accuracy"), ("curvature", "turning"))
        for worse in (_SILU, _NONE)
    ]


def family_results(family, frames):
    """The tests of ``family`` on ``frames`` (by sweep), Holm over the
    family, with outcomes; the first part's columns."""
    rows = []
    for test in family:
        data = test_rows(frames[test["sweep"]], test)
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
    return family_results(tests() if family is None else family, frames)


def family_level(family=None):
    """The strictest Holm level of the primary family."""
    return ALPHA_LEVEL / len(tests() if family is None else family)


def can_decide(n_seeds):
    """Whether any test on ``n_seeds`` seeds can pass the family's strictest
    Holm level: the smallest exact sign-flip p-value, 1 / 2^n, below it."""
    return 0.5**n_seeds < family_level()


def claim_verdicts(results, frames=None, family=None, arms=None, attained=None):
    """One verdict per claim of the primary family, by the first part's rule
    (:func:`~study.confirmatory.claim_verdict`), each test named with its
    condition; a trend whose mean peaks inside its grid on ``frames`` (the
    fits by sweep; ``family``: the tests ``results`` holds, in order) is
    named by its peak. A test that reads an arm that did not learn (mean
    accuracy within the margin of the majority rate, ``attained``: the
    attainable table) decides nothing; an equivalence test at the task's
    ceiling (``arms``: the arms table, with Bayes accuracies) holds by
    construction, as only a loss could fail it."""
    family = tests() if family is None else family
    peaks = [
        None if frames is None else confirmatory.trend_peak(
            test, test_rows(frames[test["sweep"]], test)
        )
        for test in family
    ]  # fmt: skip
    fixed, untested = [False] * len(family), [None] * len(family)
    rows = results.to_dict("records")
    for i, (test, row) in enumerate(zip(family, rows, strict=True)):
        if frames is not None:
            read = test_rows(frames[test["sweep"]], test)
            if "better" in test and test.get("column", "gate") == "gate":
                read = read[read["gate"].isin([test["better"], test["worse"]])]
            idle = idle_fits(read, attained, short_label)
            if idle:
                untested[i] = f"arms that did not learn: {', '.join(idle)}"
        if confirmatory.equivalence_ceiling(row, arms):
            fixed[i] = confirmatory.AT_CEILING
    return confirmatory.claim_verdicts(
        results,
        statements("sequences"),
        axes=[test.get("axis", "") for test in family],
        peaks=peaks,
        condition=True,
        fixed=fixed,
        untested=untested,
    )


def idle_fits(fits, attainable, short, margin=SCORE_MARGIN):
    """The arms among ``fits`` (a test's or a sweep's rows) whose mean
    accuracy on a task is within ``margin`` of that task's majority rate
    (``attainable``: :func:`study.attainable.table`), in words: "gated at alpha 0.25 on
    rings (0.526)"; the alpha is named where the gate's fits have several,
    the depth where they have several (``short``: a task's name)."""
    if attainable is None or fits is None or fits.empty:
        return []
    majority = attainable.set_index("task")["majority class"]
    fits = fits.assign(task_label=fits.apply(task_label, axis=1))
    keys = ["task_label", "gate"]
    keys += [k for k in ("alpha", "depth", "lr") if k in fits and _varies(fits, k)]
    found = []
    means = fits.groupby(keys, sort=False, dropna=False)["accuracy"].mean()
    for key, accuracy in means.items():
        where = dict(zip(keys, key, strict=True))
        task = where["task_label"]
        if task not in majority or not learned_nothing(
            accuracy, majority[task], margin
        ):
            continue
        extra = "".join(
            f" at {k} {where[k]:g}" for k in keys[2:] if not pd.isna(where[k])
        )
        arm = STUDY_GATES.arm_labels[where["gate"]]
        found.append(f"{arm}{extra} on {short(task)} ({accuracy:.3f})")
    return found


def learned_nothing(accuracy, majority, margin=SCORE_MARGIN):
    """Whether a mean ``accuracy`` is within ``margin`` of the ``majority``
    class's rate, the margin included (0.5467 against 0.5267 is within
    0.02, whatever the last bit of the float difference says).

    >>> learned_nothing(164 / 300, 158 / 300), learned_nothing(0.55, 0.5267)
    (True, False)
    """
    gap = accuracy - majority
    return bool(gap < margin or np.isclose(gap, margin, rtol=0, atol=1e-12))


def _varies(fits, key):
    """Whether some gate's fits on one task take several values of ``key``."""
    counts = fits.groupby(["task_label", "gate"])[key].nunique(dropna=True)
    return bool((counts > 1).any())


def short_label(condition):
    """A condition's short name (its :func:`label` in the Findings): its
    shape ("linear" for the task; "mean of both" for a test on the mean of
    the curved conditions, which the Findings name first).

    >>> short_label("rings, noise 0.3"), short_label("linear task")
    ('rings', 'linear')
    """
    if condition.startswith("mean of "):
        return "mean of both"
    return condition.split(",")[0].removesuffix(" task")


# -- the secondary family -------------------------------------------------------------


#: The secondary tests' name for every arm's fits at the grid's largest rate.
LARGEST_RATE = "largest rate"


def secondary_family(conditions, c2_curvature, left):
    """The secondary tests, (analysis, sweep, test) each: C1 on each
    condition alone, C1's accuracy at 20 epochs and at the grid's largest
    learning rate (sweep :data:`LARGEST_RATE`), SiLU against ungated, C1's
    curvature in the paper's acceleration, and the candidates ``left`` out
    of the primary family."""
    family = [
        ("each condition alone", "arms", test) for test in per_condition(conditions)
    ]
    for condition in conditions:
        task = curved(condition)
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

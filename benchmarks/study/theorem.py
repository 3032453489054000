"""The theorem's own setting: input-independent attention, and Fisher-Rao
curvature with three or more classes.

The paper's theorem says ungated attention is affine *in its values*. Over
copied tokens that makes the representation affine in the input; over a
sequence with softmax attention it does not (the weights move with the
input), so the study's sequence results tested another model. Two parts
test the claims where the premise holds; neither is pre-registered.

- **Sequences** (:func:`sequence_settings`): the curved shapes as sequences
  of :attr:`~study.facts.SequenceForm.n_observations` 2-D tokens, every gate,
  both heads, under softmax attention and under ``attention="fixed"`` (a
  learned token mixing, the same for every input: ungated attention is then
  exactly affine in ``x``). C1 (the curvature and accuracy ordering) and C6
  (the share of points whose Gaussian curvature is positive beyond its noise
  floor), measured as the primary study measures
  (:func:`~study.primary.measure_primary`).
- **Fisher-Rao** (:func:`fisher_settings`): tasks with 3, 5 and 10 classes
  (:data:`FISHER_TASKS`), copied tokens, both heads, SiLU, ungated and the
  multiplicative gate at :attr:`~study.facts.Grids.copied_alphas`. The output
  ``p = softmax(logits)`` read as a point ``2 sqrt(p)`` of the sphere of
  radius :data:`FISHER_RADIUS`; the image of the input plane is a surface
  on it. C1 and C2 on its Gaussian curvature and on the extrinsic curvature
  of the images of lines (:func:`measure_fisher`), beside the
  representation's turning rate. With two classes every image curve lies
  on a circle (extrinsic curvature 1/2); with three the image of a plane is
  an open piece of the 2-sphere itself, so its Gaussian curvature is the
  sphere's, 1/4, whatever the model: only from four classes on can it vary.

Each (part, claim, head or attention) is a family of its own with Holm's
correction, the primary study's sign-flip tests, bootstrap intervals and
smallest effects of interest (:func:`theorem_tests`).
"""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from skgate.datasets import CURVED_SHAPES, bayes_accuracy
from skgate.estimators import GatedAttentionClassifier
from skgate.geometry import DegenerateMetricWarning
from skgate.model_selection import representation_curvature

from . import confirmatory, runfiles, stats, words
from .design import (
    DEFAULTS,
    FISHER_TASKS,
    THEOREM_ATTENTIONS,
    THEOREM_GATES,
    THEOREM_HEADS,
    grid,
)
from .facts import GRIDS, SEQUENCE, STUDY_GATES
from .sweeps import gaussian_plane, make_task

__all__ = [
    "THEOREM_FILES",
    "FISHER_RADIUS",
    "FISHER_TASKS",
    "claim_statuses",
    "evaluate",
    "findings",
    "fisher_bayes",
    "fisher_settings",
    "fit_fisher_examples",
    "headline",
    "load",
    "measure_fisher",
    "premise_check",
    "section",
    "sequence_settings",
    "summary",
    "theorem_tests",
    "with_task_names",
    "write_tables",
]

#: 2 sqrt(p) lies on the sphere of this radius (Fisher-Rao is its metric).
FISHER_RADIUS = 2.0
#: make_task's keys a task of FISHER_TASKS does not set (copied tokens, the
#: makers' noise; seed 0 for the figure's examples).
_TASK_KEYS = {"shape": None, "noise": DEFAULTS["noise"], "n_observations": 1, "seed": 0}


def _check_tasks(tasks):
    unknown = [name for name in tasks if name not in FISHER_TASKS]
    if unknown:
        raise ValueError(
            f"tasks must be names of FISHER_TASKS {list(FISHER_TASKS)}; got "
            f"unknown {unknown!r}."
        )


def _task_name(row):
    """A fit's task by its name in :data:`FISHER_TASKS`."""
    for name, keys in FISHER_TASKS.items():
        if all(row[key] == value for key, value in keys.items()):
            return name
    raise ValueError(f"no task of FISHER_TASKS has the keys of {row!r}.")


# -- the settings -----------------------------------------------------------------


def sequence_settings(seeds, shapes=CURVED_SHAPES, fixed=None):
    """Curved shapes as sequences: gate (:data:`THEOREM_GATES`) x head x
    attention x seed; ``fixed``: setting keys applied to every fit (e.g.
    ``n_samples``).

    Examples
    --------
    >>> settings = sequence_settings([0, 1], shapes=("rings",))
    >>> len(settings), sorted({s["attention"] for s in settings})
    (32, ['fixed', 'softmax'])
    >>> {s["n_observations"] for s in settings}
    {8}
    """
    fixed = {} if fixed is None else fixed
    return grid(
        task=["curved"],
        shape=list(shapes),
        gate=list(THEOREM_GATES),
        head=list(THEOREM_HEADS),
        n_observations=[SEQUENCE.n_observations],
        attention=list(THEOREM_ATTENTIONS),
        seed=list(seeds),
        **{key: [value] for key, value in fixed.items()},
    )


def fisher_settings(seeds, tasks=None, fixed=None):
    """Each task of ``tasks`` (default all of :data:`FISHER_TASKS`) x head:
    SiLU, ungated, and the multiplicative gate at each of the primary
    study's alphas (its gated arm is the classifier's default alpha).

    Examples
    --------
    >>> settings = fisher_settings([0], tasks=["wine"])
    >>> len(settings), {s["n_classes"] for s in settings}
    (12, {3})
    """
    fixed = {} if fixed is None else fixed
    tasks = list(FISHER_TASKS) if tasks is None else list(tasks)
    _check_tasks(tasks)
    settings = []
    for name in tasks:
        keys = {key: [value] for key, value in FISHER_TASKS[name].items()}
        axes = {
            **keys,
            "head": list(THEOREM_HEADS),
            "seed": list(seeds),
            **{key: [value] for key, value in fixed.items()},
        }
        settings += grid(gate=["silu", "none"], **axes)
        settings += grid(
            gate=["multiplicative"], alpha=list(GRIDS.copied_alphas), **axes
        )
    return settings


# -- the measurements ---------------------------------------------------------------


def measure_fisher(clf, X_test, y_test, setting):
    """A multi-class fit's measurements (curvature on the first
    ``n_curvature`` test rows).

    - "accuracy"; "turning": the representation's mean turning rate;
    - "fisher_gaussian": the median over points of ``|K|``, the Gaussian
      curvature of the image of the input plane (the task's latent plane; a
      random plane of wine's 13 features) on the Fisher-Rao sphere;
      "fisher_gaussian_excess": the median of ``|K - 1 / FISHER_RADIUS**2|``,
      how far it is from the sphere's own;
    - "fisher_extrinsic": the median extrinsic curvature of the images of
      lines in random directions within the same plane (at least
      ``1 / FISHER_RADIUS`` on the sphere; equal for a great circle).

    Medians, not means: where the classifier is sure, ``p`` hardly moves,
    the image's speed tends to 0 and its curvature (per unit length) grows
    without bound; a few such points would decide a mean. Points where the
    image of the plane is not 2-dimensional have no K and are left out.
    """
    X_curv = X_test[: setting["n_curvature"]]
    plane = gaussian_plane(X_curv, setting["task"])
    output = {"layer": "logits", "metric": "fisher"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateMetricWarning)
        K = representation_curvature(
            clf, X_curv, kind="gaussian", directions=plane, **output
        )
    return {
        "accuracy": clf.score(X_test, y_test),
        "turning": representation_curvature(clf, X_curv, kind="turning").mean(),
        "fisher_gaussian": float(np.nanmedian(np.abs(K))),
        "fisher_gaussian_excess": float(np.nanmedian(np.abs(K - 1 / FISHER_RADIUS**2))),
        "fisher_extrinsic": float(
            np.median(
                representation_curvature(
                    clf, X_curv, kind="extrinsic", directions=_in_plane(plane), **output
                )
            )
        ),
    }


def _in_plane(plane, n_directions=8):
    """``n_directions`` random directions within ``plane`` (its rows an
    orthonormal basis): the curvature keywords' default draws (seed 0)
    taken as coordinates in the plane, so that on a 2-D input (the plane
    the identity) they are the default directions themselves."""
    coordinates = np.random.RandomState(0).standard_normal((n_directions, 2))
    return coordinates @ plane


#: Epochs of the classifiers the Fisher-Rao figure draws.
FISHER_EXAMPLE_EPOCHS = 200


def fit_fisher_examples(
    task="circle, 3 classes",
    n_samples=1000,
    max_epochs=FISHER_EXAMPLE_EPOCHS,
    gates=STUDY_GATES.order,
):
    """(title, fitted classifier, X, y) per gate on a three-class task of
    :data:`FISHER_TASKS`, linear head, copied tokens, seed 0, ``max_epochs``
    (longer than the study's 20, so that every arm has left the sphere's
    centre): the surfaces the Fisher-Rao figure draws, each titled with its
    median extrinsic curvature on the sphere."""
    X, y = make_task(**{**_TASK_KEYS, **FISHER_TASKS[task]}, n_samples=n_samples)
    fitted = []
    for gate in gates:
        clf = GatedAttentionClassifier(
            gate, head="linear", max_epochs=max_epochs, random_state=0
        ).fit(X, y)
        extrinsic = np.median(
            representation_curvature(
                clf, X[:200], kind="extrinsic", layer="logits", metric="fisher"
            )
        )
        label = f"gated (alpha={clf.alpha:g})" if gate == "multiplicative" else gate
        fitted.append(
            (
                f"{task}, {label}, {max_epochs} epochs\nmedian extrinsic "
                f"curvature {extrinsic:.3g}; accuracy {clf.score(X, y):.2f}",
                clf,
                X,
                y,
            )
        )
    return fitted


#: The part's files in a run's folder, by part.
THEOREM_FILES = {
    "sequences": "theorem_sequences.csv",
    "fisher": "fisher.csv",
    "bayes": "fisher_bayes.csv",
}


def fisher_bayes(tasks=None, sizes=(20_000, 1_000)):
    """The Bayes accuracy of each of ``tasks`` (names of
    :data:`FISHER_TASKS`, default all; ``sizes``: rows and posterior draws
    of the Monte Carlo estimate), one row each with its number of classes;
    digits and wine have no generator (NaN)."""
    tasks = list(FISHER_TASKS) if tasks is None else list(tasks)
    _check_tasks(tasks)
    rows = []
    for name in tasks:
        keys = FISHER_TASKS[name]
        curved = keys["task"] == "curved"
        rows.append(
            {
                "task": name,
                "n_classes": keys["n_classes"],
                "bayes accuracy": bayes_accuracy(
                    keys["shape"],
                    noise=DEFAULTS["noise"],
                    n_classes=keys["n_classes"],
                    n_points=sizes[0],
                    n_draws=sizes[1],
                    random_state=0,
                )
                if curved
                else np.nan,
            }
        )
    return pd.DataFrame(rows)


# -- the tests ----------------------------------------------------------------------

#: C1's comparisons (better, worse) and C6's, as the primary study makes them.
_ORDER = (("multiplicative", "silu"), ("silu", "none"))


def _comparisons(claim, measure, quantity):
    labels = STUDY_GATES.theorem_arm_labels
    return [
        {
            "claim": claim,
            "measure": measure,
            "quantity": quantity,
            "kind": "superiority",
            "better": better,
            "worse": worse,
            "comparison": f"{labels[better]} > {labels[worse]}",
        }
        for better, worse in _ORDER
    ]


def _against_ungated(claim, measure, quantity, gate):
    return {
        "claim": claim,
        "measure": measure,
        "quantity": quantity,
        "kind": "superiority",
        "better": gate,
        "worse": "none",
        "comparison": f"{STUDY_GATES.theorem_arm_labels[gate]} > ungated",
    }


#: The sequence part's tests per condition: C1 as the primary family
#: tests it (turning rate, accuracy), C6 gated > ungated; and both with the
#: per-head gate against ungated (claims "C1 per-head", "C6 per-head").
SEQUENCE_TESTS = [
    *_comparisons("C1", "turning", "curvature"),
    *_comparisons("C1", "accuracy", "accuracy"),
    _against_ungated("C6", "positive_share", "positive curvature", "multiplicative"),
    _against_ungated("C1 per-head", "turning", "curvature", "sigmoid_head"),
    _against_ungated("C1 per-head", "accuracy", "accuracy", "sigmoid_head"),
    _against_ungated(
        "C6 per-head", "positive_share", "positive curvature", "sigmoid_head"
    ),
]
#: The Fisher-Rao part's tests per condition: C1's ordering and C2's rise
#: with alpha, of both output curvatures, beside the representation's
#: turning rate and accuracy.
_FISHER_MEASURES = {
    "fisher_gaussian": "Fisher-Rao Gaussian curvature",
    "fisher_extrinsic": "Fisher-Rao extrinsic curvature",
    "turning": "representation curvature",
    "accuracy": "accuracy",
}
FISHER_TESTS = [
    *(
        test
        for measure, quantity in _FISHER_MEASURES.items()
        for test in _comparisons("C1", measure, quantity)
    ),
    *(
        {
            "claim": "C2",
            "measure": measure,
            "quantity": quantity,
            "kind": "trend",
            "axis": "alpha",
            "comparison": "rises with alpha",
        }
        for measure, quantity in _FISHER_MEASURES.items()
    ),
]


def _tests(fits, tests, family, by):
    """Each test of ``tests`` on each condition of ``fits`` (grouped by
    ``by``); one Holm family per claim and value of ``family`` (columns)."""
    families = []
    for key, part in fits.groupby(family, sort=False):
        for claim in dict.fromkeys(test["claim"] for test in tests):
            rows = [
                {
                    "family": f"{key[-1]} {family[-1]}",
                    **dict(zip(family, key, strict=True)),
                    **dict(zip(by, condition, strict=True)),
                    **test,
                    **confirmatory.statistics(test, _arms(test, group)),
                }
                for condition, group in part.groupby(by, sort=False)
                for test in tests
                if test["claim"] == claim and _testable(test, group)
            ]
            if rows:  # a claim whose arms did not run has no family
                families.append(stats.family_outcomes(pd.DataFrame(rows)))
    return pd.concat(families, ignore_index=True)


def _arms(test, fits):
    """The fits a test reads: the multiplicative gate's (every alpha) for a
    trend; else the gated arm at the default alpha, SiLU and ungated."""
    gated = fits["gate"] == "multiplicative"
    if test["kind"] == "trend":
        return fits[gated]
    return fits[~gated | np.isclose(fits["alpha"], DEFAULTS["alpha"])]


def _testable(test, group):
    """False for a comparison whose arms did not run, and for the Gaussian
    curvature of a three-class output: the image of a plane is then a piece
    of the sphere, K = 1/4 whatever the model."""
    if test["kind"] != "trend" and not {test["better"], test["worse"]} <= set(
        group["gate"]
    ):
        return False
    return not (test["measure"] == "fisher_gaussian" and group["n_classes"].iloc[0] < 4)


def theorem_tests(sequences, fisher):
    """Every test of both parts, with Holm per family and outcomes.

    Families: the sequence part by (claim, attention), conditions shape x
    head; the Fisher-Rao part by (claim, head), conditions the tasks."""
    sequence = _tests(
        sequences.assign(part="sequences"),
        SEQUENCE_TESTS,
        ["part", "attention"],
        ["shape", "head"],
    )
    fisher = with_task_names(fisher).assign(part="Fisher-Rao")
    output = _tests(fisher, FISHER_TESTS, ["part", "head"], ["task_name", "n_classes"])
    return pd.concat([sequence, output], ignore_index=True)


def premise_check(sequences, fisher):
    """The premise measured: per kind of ungated fit (sequences under each
    attention form; copied tokens of the multi-class tasks), the fits and
    the largest of their mean turning rate, acceleration and ``|K|`` (0 up
    to rounding where ungated attention is affine in ``x``); and the largest
    mean ``|K - 1/4|`` of three-class outputs on the Fisher-Rao sphere."""
    groups = {
        f"sequences, {attention} attention": group
        for attention, group in sequences[sequences["gate"] == "none"].groupby(
            "attention", sort=False
        )
    }
    groups["copied tokens (multi-class tasks)"] = fisher[fisher["gate"] == "none"]
    rows = [
        {
            "ungated fits": label,
            "fits": len(group),
            "largest turning": group["turning"].abs().max(),
            "largest acceleration": group.get("acceleration", pd.Series([np.nan]))
            .abs()
            .max(),
            "largest |K|": group.get("gaussian_mean", pd.Series([np.nan])).abs().max(),
        }
        for label, group in groups.items()
    ]
    three = fisher[fisher["n_classes"] == 3]
    table = pd.DataFrame(rows).astype({"fits": int})
    return table, float(three["fisher_gaussian_excess"].max())


# -- the report's section -------------------------------------------------------------

#: The outcome counts a summary row carries, in the order they are named.
_OUTCOMES = (stats.HOLDS, stats.REVERSED, stats.NO_EFFECT, stats.INCONCLUSIVE)


def summary(tests):
    """One row per test kind of each family (part, attention form or head,
    claim, quantity, comparison): the conditions tested, how many hold, are
    reversed, show no effect or are inconclusive, and the mean and range of
    the estimates over conditions."""
    keys = ["part", "family", "claim", "quantity", "comparison"]
    rows = []
    for key, group in tests.groupby(keys, sort=False):
        counts = group["outcome"].value_counts()
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "conditions": len(group),
                **{outcome: int(counts.get(outcome, 0)) for outcome in _OUTCOMES},
                "mean estimate": group["estimate"].mean(),
                "lowest": group["estimate"].min(),
                "highest": group["estimate"].max(),
            }
        )
    return pd.DataFrame(rows)


def claim_statuses(tests):
    """Each condition's status per family and claim (all its tests hold:
    holds; any reversed: reversed; :func:`study.stats.condition_status`)
    and their counts: one row per (part, family, claim)."""
    rows = []
    for (part, family, claim), group in tests.groupby(
        ["part", "family", "claim"], sort=False
    ):
        by = ["shape", "head"] if part == "sequences" else ["task_name"]
        statuses = stats.statuses(group, by)["status"].value_counts()
        rows.append(
            {
                "part": part,
                "family": family,
                "claim": claim,
                "conditions": int(statuses.sum()),
                **{outcome: int(statuses.get(outcome, 0)) for outcome in _OUTCOMES},
            }
        )
    return pd.DataFrame(rows)


def _counted(row):
    """'holds in 7 of 8 (reversed in 1)': a summary row's outcomes in words."""
    others = [
        (words.RESULT_WORDS[outcome], row[outcome])
        for outcome in _OUTCOMES[1:]
        if row[outcome]
    ]
    return f"holds in {words.tally(row[stats.HOLDS], row['conditions'], others)}"


def _family_sentence(rows, lead):
    """A family's tests in one sentence: each test's counts and mean estimate."""
    parts = [
        f"{row['quantity']} {row['comparison']} {_counted(row)}, mean difference "
        f"{row['mean estimate']:.3g}"
        if row["comparison"] != "rises with alpha"
        else f"{row['quantity']} {row['comparison']} {_counted(row)}, mean rho "
        f"{row['mean estimate']:.2f}"
        for _, row in rows.iterrows()
    ]
    return f"{lead}: " + "; ".join(parts) + "."


def _premise_sentence(premise, three_class_excess):
    by = premise.set_index("ungated fits")
    fixed = by.loc["sequences, fixed attention"]
    softmax = by.loc["sequences, softmax attention"]
    return (
        f"**The premise, measured.** Ungated attention over sequences is flat "
        f"under fixed attention: the largest mean turning rate over its "
        f"{fixed['fits']:.0f} fits is {fixed['largest turning']:.2g} (acceleration "
        f"{fixed['largest acceleration']:.2g}, |K| {fixed['largest |K|']:.2g}); "
        f"under softmax attention it is curved (largest turning rate "
        f"{softmax['largest turning']:.3g} over {softmax['fits']:.0f} fits). With "
        f"three classes the image of the input plane on the Fisher-Rao sphere "
        f"is a piece of the sphere itself: K = 1/4 on every fit (largest "
        f"median |K - 1/4| {three_class_excess:.2g}), so only tasks of four "
        f"or more classes test its Gaussian curvature."
    )


def _answer_sentence(statuses):
    """Where the premise holds against where it does not, claim by claim:
    conditions in which every test of the claim holds (:func:`claim_statuses`)."""
    table = statuses[statuses["part"] == "sequences"].set_index(["family", "claim"])
    phrases = []
    for claim, what in (
        ("C1", "C1 (curvature and accuracy ordering)"),
        ("C6", "C6"),
        ("C1 per-head", "the per-head gate above ungated in curvature and accuracy"),
        ("C6 per-head", "its positive curvature"),
    ):
        if ("fixed attention", claim) not in table.index:
            continue
        fixed = table.loc[("fixed attention", claim)]
        softmax = table.loc[("softmax attention", claim)]
        phrases.append(
            f"{what} {_counted(fixed)} shape x head conditions under fixed "
            f"attention, against {_counted(softmax)} under softmax"
        )
    return "**Where the premise holds.** " + "; ".join(phrases) + "."


def headline(parts):
    """One sentence for REPORT.md's Findings: the premise measured, and C1's
    tests and C6 under fixed attention against softmax (conditions where
    each holds, of the shape x head conditions)."""
    table = parts["summary"].set_index(["family", "claim", "quantity", "comparison"])
    statuses = parts["statuses"].set_index(["family", "claim"])
    fixed = parts["premise"].set_index("ungated fits").loc["sequences, fixed attention"]

    def held(family):
        rows = [
            table.loc[(family, "C1", quantity, comparison)]
            for quantity, comparison in (
                ("curvature", "gated > SiLU"),
                ("curvature", "SiLU > ungated"),
                ("accuracy", "gated > SiLU"),
            )
        ]
        c6 = statuses.loc[(family, "C6")]
        return (
            f"curvature gated > SiLU holds in {rows[0][stats.HOLDS]} (mean "
            f"difference {rows[0]['mean estimate']:.3g}), SiLU > ungated in "
            f"{rows[1][stats.HOLDS]}, accuracy gated > SiLU in "
            f"{rows[2][stats.HOLDS]}, C6 in "
            f"{_counted(c6).removeprefix('holds in ')}"
        )

    return (
        "**The theorem's own setting** (exploratory, 20 epochs, gain-2 gate "
        "initialisation): where its "
        "premise holds (fixed attention over sequences; ungated largest "
        f"turning rate {fixed['largest turning']:.2g} over {fixed['fits']:.0f} "
        f"fits), {held('fixed attention')} shape x head conditions; under "
        f"softmax attention {held('softmax attention')}."
    )


def findings(parts):
    """The section's plain sentences, each from :func:`evaluate`'s numbers."""
    sentences = [
        _premise_sentence(parts["premise"], parts["three_class_excess"]),
        _answer_sentence(parts["statuses"]),
    ]
    for (part, family, claim), rows in parts["summary"].groupby(
        ["part", "family", "claim"], sort=False
    ):
        kind = "Sequences" if part == "sequences" else "Fisher-Rao outputs"
        sentences.append(_family_sentence(rows, f"**{kind}, {family}, {claim}**"))
    return sentences


#: Columns each part's file must have for the report.
_REQUIRED = {
    "sequences": ["attention", "shape", "head", "gate", "alpha", "seed", "turning"]
    + ["accuracy", "acceleration", "positive_share", "gaussian_mean"],
    "fisher": ["task", "shape", "n_classes", "head", "gate", "alpha", "seed"]
    + ["accuracy", "turning", "fisher_gaussian", "fisher_gaussian_excess"]
    + ["fisher_extrinsic"],
    "bayes": ["task", "n_classes", "bayes accuracy"],
}


def load(folder):
    """The part's frames from a run's folder (by :data:`THEOREM_FILES` key), or None
    where the run has none; a ValueError naming the file when one has no
    rows or lacks a column the report reads."""
    paths = {name: Path(folder) / file for name, file in THEOREM_FILES.items()}
    if not all(path.exists() for path in paths.values()):
        return None
    frames = {name: runfiles.read_csv(path) for name, path in paths.items()}
    for name, frame in frames.items():
        missing = [c for c in _REQUIRED[name] if c not in frame.columns]
        if frame.empty or missing:
            raise ValueError(
                f"{THEOREM_FILES[name]} in {folder} has {len(frame)} rows and "
                f"lacks the columns {missing}: not a complete theorem part."
            )
    return frames


def _words(frame):
    """``frame`` with its float columns as 3 significant digits and NaN as
    "not measured"."""
    frame = frame.copy()
    for column in frame.select_dtypes("float").columns:
        frame[column] = [
            "not measured" if np.isnan(v) else f"{v:.3g}" for v in frame[column]
        ]
    return frame


def with_task_names(fisher):
    """The Fisher-Rao fits with their task's name (column "task_name")."""
    return fisher.assign(task_name=[_task_name(row) for _, row in fisher.iterrows()])


def _arm_table(fisher, bayes):
    """Mean accuracy per task and arm (linear and MLP heads), beside its
    Bayes accuracy and number of classes."""
    arms = fisher[
        (fisher["gate"] != "multiplicative")
        | np.isclose(fisher["alpha"], DEFAULTS["alpha"])
    ]
    table = arms.pivot_table(
        index=["task_name", "head"], columns="gate", values="accuracy", sort=False
    )
    table = (
        table[list(STUDY_GATES.order)]
        .rename(columns=STUDY_GATES.theorem_arm_labels)
        .reset_index()
    )
    ceilings = bayes.set_index("task")
    table.insert(1, "classes", ceilings.loc[table["task_name"], "n_classes"].to_numpy())
    table["Bayes"] = ceilings.loc[table["task_name"], "bayes accuracy"].to_numpy()
    return table.rename(columns={"task_name": "task"})


def evaluate(frames):
    """Everything the report's section says, computed from the part's frames
    (:func:`load`): "tests" (:func:`theorem_tests`), "premise" and
    "three_class_excess" (:func:`premise_check`), "statuses"
    (:func:`claim_statuses`), "summary" (:func:`summary`), "arms" (mean
    accuracy per task and arm beside its Bayes accuracy) and "seeds"."""
    tests = theorem_tests(frames["sequences"], frames["fisher"])
    premise, excess = premise_check(frames["sequences"], frames["fisher"])
    return {
        "tests": tests,
        "premise": premise,
        "three_class_excess": excess,
        "statuses": claim_statuses(tests),
        "summary": summary(tests),
        "arms": _arm_table(with_task_names(frames["fisher"]), frames["bayes"]),
        "seeds": frames["sequences"]["seed"].nunique(),
    }


def write_tables(parts, out):
    """The computed tables to ``out``: tests_theorem.csv (every test),
    theorem_summary.csv (counts per test kind), premise.csv,
    theorem_arms.csv."""
    for name, file in (
        ("tests", "tests_theorem.csv"),
        ("summary", "theorem_summary.csv"),
        ("premise", "premise.csv"),
        ("arms", "theorem_arms.csv"),
    ):
        parts[name].to_csv(Path(out) / file, index=False, float_format="%.10g")


def section(parts, figure=None):
    """REPORT.md's lines on the theorem's own setting, from :func:`evaluate`'s
    parts (and the figure's file name)."""

    lines = [
        "",
        "## The theorem's own setting (exploratory)",
        "",
        "Not pre-registered (filed after the confirmatory run's protocol). The "
        "theorem's premise is that ungated attention is affine in its values; "
        'over copied tokens and under `attention="fixed"` (a learned token '
        "mixing, the same for every input) that makes it affine in the input. "
        "Sequences of 8 tokens, every curved shape, both heads, "
        f"{parts['seeds']} seeds, the paper's 20 epochs and the gate "
        "projection initialised with gain 2 (the exploratory study's model, "
        "not the confirmatory parts' PyTorch initialisation and 300-epoch "
        "budget, where accuracy differences can differ from those at 20 "
        "epochs); multi-class tasks on copied tokens, the "
        "output's Fisher-Rao curvature medians over points. One Holm family "
        "per part, claim and attention form or head; every test kind's counts "
        "(the sentences below) in `theorem_summary.csv`, every test in "
        "`tests_theorem.csv`.",
        "",
        *(f"- {s}" for s in findings(parts)),
        "",
        "Ungated fits (the premise):",
        "",
        words.table(_words(parts["premise"]), 3),
        "",
        "Conditions in which every test of a claim holds, by family:",
        "",
        words.table(parts["statuses"], 3),
        "",
        "Multi-class tasks: mean held-out accuracy per arm (gated at alpha "
        f"{DEFAULTS['alpha']:g}) beside the Bayes accuracy:",
        "",
        words.table(parts["arms"], 3),
    ]
    if figure is not None:
        lines += [
            "",
            "The figure draws three classifiers trained for "
            f"{FISHER_EXAMPLE_EPOCHS} epochs (seed 0), longer than the 20 of "
            "the tables' fits, so that every arm has left the sphere's centre; "
            "its curvatures and accuracies are its own, not the tables'.",
            "",
            f"![Fisher-Rao output curvature]({figure})",
        ]
    return lines

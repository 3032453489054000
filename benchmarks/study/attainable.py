"""What the second confirmatory part's arms could reach: scikit-learn models
on the arms' own rows and splits, beside the majority class's rate and the
Bayes accuracy, and the arms that learned nothing a constant could not.

The run writes ``seq_attainable.csv`` (:func:`write`); the report reads it
back into a table (:func:`table`), names the arms that did not learn
(:func:`not_learning`) and says so wherever a test rests on one
(:func:`findings_line`, :func:`idle_clause`).
"""

from pathlib import Path

import pandas as pd
from joblib import delayed

from . import words
from .facts import SCORE_MARGIN, STUDY_GATES
from .sequences import learned_nothing, task_label
from .sweeps import BASELINE_MAX_ITER, parallel_rows, run_attainable

__all__ = [
    "FILE",
    "findings_line",
    "idle_clause",
    "idle_then",
    "not_learning",
    "section_lines",
    "table",
    "write",
]

#: The run's file of the models' accuracies, one row per (task, seed, model,
#: reading of the rows).
FILE = "seq_attainable.csv"
#: How the table names a reading of the rows.
_READINGS = {"flat sequence": "flat", "mean of observations": "mean"}


def write(folder, arms, seeds, *, file=FILE, max_iter=None, n_jobs=1, progress=True):
    """``file`` into ``folder``: :func:`study.sweeps.run_attainable`
    on every task of ``arms`` (an arms sweep's fits: the curved conditions
    and the linear task) and each of ``seeds``, on the split the arms used
    (``max_iter``: the MLP's iterations, default the study's)."""
    tasks = arms.drop_duplicates(["task", "shape", "noise"])
    settings = [
        {**row, "seed": seed}
        for row in tasks.drop(columns=["seed"]).to_dict("records")
        for seed in seeds
    ]
    jobs = (delayed(run_attainable)(s, max_iter or BASELINE_MAX_ITER) for s in settings)
    groups = parallel_rows(
        jobs, n_jobs=n_jobs, progress=progress, description="attainable accuracy"
    )
    frame = pd.DataFrame(
        [
            {"task": s["task"], "shape": s["shape"], "noise": s["noise"], **row}
            for s, group in zip(settings, groups, strict=True)
            for row in group
        ]
    )
    frame.to_csv(Path(folder) / file, index=False, float_format="%.10g")


def table(attainable, arms):
    """The arms against attainable accuracy, per task: the training
    majority class's rate on the test rows, each scikit-learn model on each
    reading of the rows (flat, or the mean of the observations), and each
    arm, as means over the seeds the models ran on (the arms' own rows and
    splits; ``attainable``: :data:`FILE`, ``arms``: the arms sweep)."""
    attainable = attainable.assign(task_label=attainable.apply(task_label, axis=1))
    arms = arms[arms["seed"].isin(set(attainable["seed"]))]
    arms = arms.assign(task_label=arms.apply(task_label, axis=1))
    rows = []
    for task, fits in attainable.groupby("task_label", sort=False):
        row = {"task": task, "seeds": fits["seed"].nunique()}
        majority = fits["model"] == "majority class"
        row["majority class"] = fits.loc[majority, "accuracy"].mean()
        for (model, reading), group in fits[~majority].groupby(
            ["model", "input"], sort=False
        ):
            row[f"{model}, {_READINGS[reading]}"] = group["accuracy"].mean()
        for gate, group in arms[arms["task_label"] == task].groupby("gate", sort=False):
            row[STUDY_GATES.arm_labels[gate]] = group["accuracy"].mean()
        rows.append(row)
    return pd.DataFrame(rows)


def not_learning(arm_table, attainable, margin=SCORE_MARGIN):
    """The arms (task, arm, their mean accuracy over every seed, the majority
    class's rate) whose accuracy is within ``margin`` (the smallest accuracy
    effect of interest) of the majority class's rate: arms that learned
    nothing a constant could not (``arm_table``: the part's arms table;
    ``attainable``: :func:`table`)."""
    majority = attainable.set_index("task")["majority class"]
    rows = [
        {
            "task": row["task"],
            "arm": row["arm"],
            "accuracy": row["accuracy"],
            "majority class": majority[row["task"]],
        }
        for _, row in arm_table.iterrows()
        if row["task"] in majority
        and learned_nothing(row["accuracy"], majority[row["task"]], margin)
    ]
    return pd.DataFrame(rows, columns=["task", "arm", "accuracy", "majority class"])


def _models(attainable):
    return [c for c in attainable.columns if c.endswith((", flat", ", mean"))]


def findings_line(attainable, arms, tests, short):
    """The Findings' line: per task, the Bayes accuracy, the best model and
    the majority class's rate, then each arm that did not learn and the
    tests that rest on it (``short``: a task's name in the Findings)."""
    bayes = arms.drop_duplicates("task").set_index("task")["Bayes accuracy"]
    each = []
    for _, row in attainable.iterrows():
        best = max(_models(attainable), key=lambda c: row[c])
        each.append(
            f"{short(row['task'])} Bayes {bayes[row['task']]:.3f}, best "
            f"{row[best]:.3f} ({best.replace(' (64, 64)', '')}), majority "
            f"{row['majority class']:.3f}"
        )
    said = ""
    for _, row in not_learning(arms, attainable).iterrows():
        rests = tests[
            tests["comparison"].str.endswith(f"> {row['arm']}")
            & tests["condition"].str.contains(short(row["task"]))
        ]
        names = "; ".join(
            f"{', '.join(dict.fromkeys(group['claim']))} {comparison}"
            for comparison, group in rests.groupby("comparison", sort=False)
        )
        said += (
            f" {row['arm'].capitalize()} on {short(row['task'])} "
            f"({row['accuracy']:.3f}) is within {SCORE_MARGIN:g} of the majority "
            "class: it did not learn"
            + (f", and {names} rest on it there." if names else ".")
        )
    return (
        f"**Attainable accuracy** ({words.POST_HOC}; scikit-learn on the arms' "
        f"rows and splits, {attainable['seeds'].iloc[0]} seeds): "
        + "; ".join(each)
        + "."
        + said
    )


def idle_clause(attainable, arms, arm, short):
    """Where ``arm`` learned nothing, the words a comparison with it needs
    ("" where it learned, or without ``attainable``)."""
    if attainable is None:
        return ""
    idle = not_learning(arms, attainable)
    tasks = [short(task) for task in idle.loc[idle["arm"] == arm, "task"]]
    if not tasks:
        return ""
    return f"; on {' and '.join(tasks)} the {arm} arm did not learn"


def section_lines(attainable, csv_name, source=FILE):
    """The section's paragraph and table (none without ``attainable``)."""
    if attainable is None:
        return []
    return [
        f"What the arms' own rows allow ({words.POST_HOC}): scikit-learn models "
        "fitted on the same "
        "training rows and tested on the same test rows as the arms, each "
        "reading a row as it is (flat) or, for sequences, as the mean of its "
        "observations, beside the training majority class's rate on the test "
        "rows and each arm, means over the first seeds of the arms "
        f"(`{csv_name}`, from `{source}`):",
        "",
        words.table(attainable, 3),
        "",
    ]


def idle_then(fits, attainable, short):
    """The arms of ``fits`` (a sweep's rows, e.g. after the paper's epochs)
    whose mean accuracy per task sits within the margin of the majority
    class, in words ("" where none does, or without ``attainable``)."""
    if fits is None or attainable is None:
        return ""
    fits = fits.assign(task=fits.apply(task_label, axis=1))
    means = fits.groupby(["task", "gate"], sort=False)["accuracy"].mean().reset_index()
    means["arm"] = means["gate"].map(STUDY_GATES.arm_labels)
    idle = not_learning(means, attainable)
    if idle.empty:
        return ""
    named = ", ".join(
        f"{arm} on {' and '.join(short(t) for t in group['task'])}"
        for arm, group in idle.groupby("arm", sort=False)
    )
    return (
        f"; not yet learning then (within {SCORE_MARGIN:g} of the majority "
        f"class): {named}"
    )

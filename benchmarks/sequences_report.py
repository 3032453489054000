"""SEQUENCES.md from bench_sequences.py's scores: the statistics
(:func:`analyse`, skgate.paired's tests) apart from the words (:func:`render`,
:func:`bottom_line`, :func:`summary`), every sentence built from the
numbers, so that a test can render a small made-up table and hold the
sentences to it."""

import numpy as np
import pandas as pd

from skgate import paired
from skgate.compare import DECISION_PROBABILITY

GATES = ("multiplicative", "silu", "none", "sigmoid")
BASELINES = ("MiniRocket", "MultiRocket", "Hydra", "1-NN DTW", "HGB")
#: What each ablation of the strong design changes of the estimator's
#: defaults for series: one part removed, the rest kept.
ABLATIONS = {
    "no conv": {"embedding": "linear"},
    "no ff": {"d_ff": None},
    "no relative": {"position": "absolute"},
    "no recipe": {"lr_schedule": "constant", "label_smoothing": 0.0},
}
#: The gates ablated and tuned (on the first ``subset_splits`` splits).
ABLATED_GATES = ("multiplicative", "none")
TUNED_GATES = ()
STRONG = tuple(f"{g} (strong)" for g in GATES)
MINIMAL = tuple(f"{g} (minimal)" for g in GATES)
ABLATED = tuple(f"{g} ({a})" for g in ABLATED_GATES for a in ABLATIONS)
TUNED = tuple(f"{g} (tuned)" for g in TUNED_GATES)
#: The models run on every split, in the order of the claim.
MODELS = (*STRONG, *MINIMAL, *BASELINES)
#: The models run on the first ``subset_splits`` splits only.
SUBSET_MODELS = (*ABLATED, *TUNED)


def variant(model):
    """``(gate, variant)`` of a gate model's name ("none (no ff)" ->
    ("none", "no ff")); ``(None, None)`` for a baseline."""
    if model in BASELINES:
        return None, None
    gate, rest = model.split(" (", 1)
    return gate, rest.removesuffix(")")


#: The region of practical equivalence of the Bayesian signed-rank tests.
ROPE = 0.01

#: The margin the issue's accuracy target allows against MiniRocket.
TARGET_GAP = 0.02

_GATE_WORDS = {
    "multiplicative": "multiplicative gating",
    "silu": "SiLU gating",
    "none": "ungated attention",
    "sigmoid": "sigmoid gating",
}
_VARIANT_WORDS = {
    "strong": "in the strong design",
    "minimal": "in the minimal design",
    "tuned": "tuned in the strong design",
    "no conv": "without the convolutional encoding",
    "no ff": "without the feed-forward sublayer",
    "no relative": "without relative position",
    "no recipe": "without the training recipe",
}
#: The parts the ablations remove, in words.
PART_WORDS = {
    "no conv": "the convolutional encoding",
    "no ff": "the feed-forward sublayer",
    "no relative": "relative position",
    "no recipe": "the training recipe (cosine schedule and label smoothing)",
}


def words(model):
    """A model's name in a sentence."""
    gate, name = variant(model)
    if gate is None:
        return model
    return f"{_GATE_WORDS.get(gate, gate)} {_VARIANT_WORDS.get(name, name)}"


def _signed(value):
    """``value`` with its sign to 3 decimals (a rounded -0 as +0.000)."""
    return f"{round(float(value), 3) + 0.0:+.3f}"


def _p(value):
    if value > 0.99:
        return "> 0.99"
    return "< 0.01" if value < 0.01 else f"{value:.2f}"


# ---------------------------------------------------------------- statistics


def analyse(scores, settings=None, *, margin=ROPE, random_state=0):
    """The numbers SEQUENCES.md reports, from a scores table (one row per
    dataset, split and model: "dataset", "split", "model", "n_train",
    "n_test", "accuracy", "curvature", "fit_seconds"; the tuned gate's rows
    also "lr").

    Returns a dict: "datasets" (the settings' order), "models" (those of
    every split, in the claim's order, then those of the subset), "per
    dataset" (dataset x model: mean accuracy with its 95 % corrected
    resampled t interval over the splits, mean curvature, mean fit
    seconds, splits), "accuracy" (dataset x model means over every split
    each model has), "subset accuracy" (the same over the subset's splits
    only), "left out", "ranks" and "friedman" (the models of every split
    scored on every dataset, with Nemenyi's critical difference),
    "secondary" (the same over the datasets every such model is scored on,
    when some is left out), "best gate" (the gate model at its defaults
    with the highest mean accuracy), "tests" (the Bayesian signed-rank tests
    of the pairs of interest, with a "question" column: "a", "b", "c" or
    "tuning"), "targets", "curvature", "seconds", "margin", "bottom line"
    (one paragraph per question) and "summary" (one sentence per question).
    """
    scores = scores.copy()
    present = list(dict.fromkeys(scores["model"]))
    every = [m for m in MODELS if m in present]
    subset = [m for m in SUBSET_MODELS if m in present]
    models = every + subset + [m for m in present if m not in MODELS + SUBSET_MODELS]
    order = list((settings or {}).get("datasets", []))
    seen = list(dict.fromkeys(scores["dataset"]))
    datasets = [d for d in order if d in seen] + [d for d in seen if d not in order]
    per_dataset = _per_dataset(scores, models, datasets)
    accuracy = per_dataset.pivot(index="dataset", columns="model", values="accuracy")
    accuracy = accuracy.reindex(index=datasets, columns=models)
    subset_splits = sorted(scores.loc[scores["model"].isin(subset), "split"].unique())
    on_subset = scores[scores["split"].isin(subset_splits)]
    subset_accuracy = on_subset.pivot_table(
        index="dataset", columns="model", values="accuracy", aggfunc="mean"
    ).reindex(index=datasets, columns=models)
    left_out = {
        m: list(accuracy.index[accuracy[m].isna()])
        for m in every
        if accuracy[m].isna().any()
    }
    complete = [m for m in every if m not in left_out]
    ranks, friedman = _friedman(accuracy[complete])
    secondary = None
    full = accuracy[every].dropna()
    if left_out and len(full) >= 2:
        ranks_all, friedman_all = _friedman(full)
        secondary = {
            "datasets": list(full.index),
            "ranks": ranks_all,
            "friedman": friedman_all,
        }
    defaults = [m for m in (*STRONG, *MINIMAL) if m in complete]
    best = max(defaults, key=lambda m: accuracy[m].mean()) if defaults else None
    table = accuracy[complete]
    pairs = [("b", g, o) for g, o in GATING_PAIRS if g in complete and o in complete]
    if best is not None:
        pairs.insert(0, ("a", best, "MiniRocket"))
    tests = [
        _pair_test(table, a, b, margin, random_state, ranks=ranks, question=q)
        for q, a, b in pairs
        if b in table
    ]
    # Over the subset's splits: each ablation against the strong design (c),
    # the tuned gate against its defaults (tuning).
    subset_pairs = [
        ("c", f"{gate} (strong)", f"{gate} ({name})")
        for gate in ABLATED_GATES
        for name in ABLATIONS
    ] + [
        # A tuned gate against its defaults, where the run has one.
        ("tuning", tuned, tuned.replace("(tuned)", "(strong)"))
        for tuned in subset_accuracy
        if tuned.endswith("(tuned)")
    ]
    tests += [
        _pair_test(subset_accuracy, a, b, margin, random_state, question=q)
        for q, a, b in subset_pairs
        if {a, b} & set(subset) and {a, b} <= set(subset_accuracy)
    ]
    analysis = {
        "datasets": datasets,
        "models": models,
        "per dataset": per_dataset,
        "accuracy": accuracy,
        "subset accuracy": subset_accuracy,
        "subset splits": [int(s) for s in subset_splits],
        "left out": left_out,
        "ranks": ranks,
        "friedman": friedman,
        "secondary": secondary,
        "best gate": best,
        "tests": pd.DataFrame(tests),
        "seconds": _seconds(scores, models),
        "lengths": length_sentences(scores, datasets),
        "margin": margin,
    }
    analysis["targets"] = targets(analysis)
    analysis["curvature"] = curvature_table(analysis)
    analysis["bottom line"] = bottom_line(analysis)
    analysis["summary"] = summary(analysis)
    return analysis


#: The gating question's pairs: the multiplicative gate against ungated
#: attention and against SiLU, in each design.
GATING_PAIRS = (
    ("multiplicative (strong)", "none (strong)"),
    ("multiplicative (strong)", "silu (strong)"),
    ("multiplicative (minimal)", "none (minimal)"),
    ("multiplicative (minimal)", "silu (minimal)"),
)


def _per_dataset(scores, models, datasets):
    rows = []
    for (dataset, model), group in scores.groupby(["dataset", "model"], sort=False):
        values = group["accuracy"].to_numpy(dtype=float)
        n_test, n_train = group["n_test"].mean(), group["n_train"].mean()
        if len(values) < 2 or np.ptp(values) == 0:
            low = high = float(values.mean())
        else:
            low, high = paired.corrected_t_bounds(
                values,
                test_fraction=float(n_test / (n_test + n_train)),
                alpha_low=0.025,
                alpha_high=0.025,
            )
        rows.append(
            {
                "dataset": dataset,
                "model": model,
                "accuracy": float(values.mean()),
                "ci low": float(low),
                "ci high": float(high),
                "curvature": float(pd.to_numeric(group["curvature"]).mean()),
                "fit seconds": float(group["fit_seconds"].mean()),
                "splits": len(values),
            }
        )
    frame = pd.DataFrame(rows)
    frame["model"] = pd.Categorical(frame["model"], models, ordered=True)
    frame["dataset"] = pd.Categorical(frame["dataset"], datasets, ordered=True)
    frame = frame.sort_values(["dataset", "model"]).reset_index(drop=True)
    frame[["dataset", "model"]] = frame[["dataset", "model"]].astype(str)
    return frame


def length_sentences(scores, datasets):
    """What the unequal lengths did, from the rows' notes: the test series
    each gate model could not read whole (cut), and the sets the
    convolution baselines read resized."""
    notes = scores.get("note", pd.Series("", index=scores.index)).fillna("")
    notes = notes.astype(str)
    lines = []
    for dataset in datasets:
        here = scores["dataset"] == dataset
        cut = notes[here & notes.str.contains(" cut to ")]
        if len(cut):
            counts = cut.str.extract(r"^(\d+) ")[0].astype(int)
            per_model = scores.loc[cut.index, "model"]
            splits = scores.loc[cut.index, "split"].nunique()
            lines.append(
                f"On {dataset}, test series longer than any a gate was fitted on "
                f"were cut to the longest it takes: {int(counts.sum())} series, "
                f"summed over {per_model.nunique()} gate models and {splits} "
                f"split{'s' if splits > 1 else ''}."
            )
        resized = notes[
            here & (scores["model"] == "MiniRocket") & notes.str.startswith("resized")
        ]
        if len(resized):
            lines.append(
                f"On {dataset}, MiniRocket, MultiRocket and Hydra read the series "
                f"resized to the training part's longest ({resized.iloc[0]} on the "
                "first split)."
            )
    return lines


def _seconds(scores, models):
    """Each model's units' seconds (fit, test predictions and curvature),
    summed over every dataset and split."""
    column = "seconds" if "seconds" in scores else "fit_seconds"
    return scores.groupby("model")[column].sum().reindex(models)


def _friedman(table):
    """Average ranks (best first) and Friedman's test with Nemenyi's
    critical difference, over a (datasets x models) table of mean scores."""
    friedman = paired.friedman_test(table.to_numpy())
    ranks = pd.Series(friedman.pop("average ranks"), index=list(table.columns))
    friedman["critical difference"] = paired.nemenyi_critical_difference(
        table.shape[1], table.shape[0]
    )
    return ranks.sort_values(kind="stable"), friedman


def _pair_test(table, better, worse, margin, random_state, *, ranks=None, question):
    """``better`` against ``worse`` over the datasets of ``table`` (their
    mean accuracies): counts, the mean difference and the Bayesian
    signed-rank test (with Nemenyi's p when ``ranks`` of the Friedman test
    are given)."""
    d = (table[better] - table[worse]).to_numpy(dtype=float)
    row = {
        "question": question,
        "comparison": f"{better} > {worse}",
        "first": better,
        "second": worse,
        "mean first": float(table[better].mean()),
        "mean second": float(table[worse].mean()),
        "mean difference": float(d.mean()),
        "datasets better": int((d > margin).sum()),
        "datasets equivalent": int((np.abs(d) <= margin).sum()),
        "datasets worse": int((d < -margin).sum()),
        "n datasets": len(d),
        "rank difference": np.nan,
        "p nemenyi": np.nan,
        **paired.signed_rank_bayes(d, margin, random_state=random_state),
        "margin": margin,
    }
    if ranks is not None:
        row["rank difference"] = float(ranks[worse] - ranks[better])
        row["p nemenyi"] = paired.nemenyi_p(
            row["rank difference"], len(ranks), len(table)
        )
    row["outcome"] = paired.signed_rank_outcome(row, probability=DECISION_PROBABILITY)
    return row


def targets(analysis):
    """The issue's accuracy targets for the best gate at its defaults: its
    mean within TARGET_GAP of MiniRocket's, above 1-NN DTW on every
    dataset, at or above MiniRocket (within the ROPE) on 2 datasets or
    more. Each: the measured value and whether it is met."""
    best, accuracy = analysis["best gate"], analysis["accuracy"]
    if best is None or "MiniRocket" not in accuracy:
        return {}
    gap = float(accuracy["MiniRocket"].mean() - accuracy[best].mean())
    result = {
        "gap to MiniRocket": (gap, gap <= TARGET_GAP),
    }
    if "1-NN DTW" in accuracy:
        beats = int((accuracy[best] > accuracy["1-NN DTW"]).sum())
        result["datasets above 1-NN DTW"] = (beats, beats == len(accuracy))
    level = int((accuracy[best] >= accuracy["MiniRocket"] - analysis["margin"]).sum())
    result["datasets at MiniRocket's level"] = (level, level >= 2)
    return result


def curvature_table(analysis):
    """Mean turning rate per gate model over the datasets, and on how many
    datasets the multiplicative gate turned more than ungated attention in
    the same design (the subset's variants over the subset's splits)."""
    frame = analysis["per dataset"]
    curvature = frame.pivot(index="dataset", columns="model", values="curvature")
    rows = []
    for name in ("strong", "minimal", *ABLATIONS, "tuned"):
        gated, plain = f"multiplicative ({name})", f"none ({name})"
        if gated not in curvature:
            continue
        row = {"design": name, "multiplicative": float(curvature[gated].mean())}
        for gate in GATES[1:]:
            model = f"{gate} ({name})"
            row[gate] = float(curvature[model].mean()) if model in curvature else np.nan
        if plain in curvature:
            both = curvature[[gated, plain]].dropna()
            row["multiplicative > none on"] = int((both[gated] > both[plain]).sum())
            row["datasets"] = len(both)
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- sentences

_VERDICT = {
    paired.HOLDS: "better",
    paired.REVERSED: "worse",
    paired.NO_EFFECT: "equivalent",
    paired.INCONCLUSIVE: "undecided",
}


def _counts(row):
    return (
        f"better on {row['datasets better']}, within {row['margin']:g} on "
        f"{row['datasets equivalent']} and worse on {row['datasets worse']} of "
        f"{row['n datasets']} datasets (mean accuracy difference "
        f"{_signed(row['mean difference'])})"
    )


def _probabilities(row):
    return (
        f"probability better {_p(row['probability better'])}, equivalent "
        f"{_p(row['probability equivalent'])}, worse {_p(row['probability worse'])}"
    )


def lean(row):
    """Where an undecided test's posterior leans: "better", "equivalent" or
    "worse" (its largest probability) and that probability."""
    chances = {
        side: float(row[f"probability {side}"])
        for side in ("better", "equivalent", "worse")
    }
    side = max(chances, key=chances.get)
    return side, chances[side]


def _verdict(row):
    """The test's verdict in a word, with the lean of an undecided one."""
    said = _VERDICT[row["outcome"]]
    if row["outcome"] != paired.INCONCLUSIVE:
        return said
    side, chance = lean(row)
    return f"{said}, leaning {side}, probability {_p(chance)}"


def _tests(analysis, question):
    tests = analysis["tests"]
    if tests.empty:
        return tests
    return tests[tests["question"] == question]


def pair_sentence(row):
    """One comparison: won, lost, equivalent or undecided, with the counts
    and the probabilities behind it."""
    first, second = words(row["first"]), words(row["second"])
    margin = row["margin"]
    lead = {
        paired.HOLDS: f"{first} beats {second}",
        paired.REVERSED: f"{first} loses to {second}",
        paired.NO_EFFECT: (
            f"{first} and {second} are equivalent within {margin:g} accuracy"
        ),
        paired.INCONCLUSIVE: (
            f"whether {first} beats {second} is undecided; the posterior leans "
            f"{lean(row)[0]} ({_p(lean(row)[1])})"
        ),
    }[row["outcome"]]
    return (
        f"{lead[0].upper() + lead[1:]}: {_counts(row)}; Bayesian signed-rank test, "
        f"ROPE {margin:g}: {_probabilities(row)}."
    )


def question_a(analysis):
    """(a) How far the best gate at its defaults is from MiniRocket, as a
    mean and per dataset, and the issue's targets."""
    rows = _tests(analysis, "a")
    if rows.empty:
        return ""
    row = rows.iloc[0]
    best = row["first"]
    accuracy = analysis["accuracy"]
    gaps = (accuracy[best] - accuracy["MiniRocket"]).round(3)
    per_set = ", ".join(f"{d} {_signed(v)}" for d, v in gaps.items())
    goal = analysis["targets"]
    gap, met = goal["gap to MiniRocket"]
    parts = [
        f"(a) The best gated model at its defaults, {words(best)}, averaged "
        f"{row['mean first']:.3f} accuracy over {row['n datasets']} datasets x "
        f"{_max_splits(analysis, best)} splits, {abs(gap):.3f} "
        f"{'below' if gap > 0 else 'above'} MiniRocket's {row['mean second']:.3f}; "
        f"the Bayesian signed-rank test calls it {_VERDICT[row['outcome']]} "
        f"({_probabilities(row)}). Per dataset, against MiniRocket: {per_set}.",
        f"The target (within {TARGET_GAP:g} of MiniRocket) is "
        f"{'met' if met else 'not met'}",
    ]
    if "datasets above 1-NN DTW" in goal:
        beats, ok = goal["datasets above 1-NN DTW"]
        parts[-1] += (
            f"; it beats 1-NN DTW on {beats} of {len(accuracy)} datasets "
            f"({'met' if ok else 'not met'}: every one is the target)"
        )
    level, ok = goal["datasets at MiniRocket's level"]
    parts[-1] += (
        f"; it is at or above MiniRocket (within {analysis['margin']:g}) on "
        f"{level} ({'met' if ok else 'not met'}: 2 is the target)."
    )
    return " ".join(parts)


def _max_splits(analysis, model):
    frame = analysis["per dataset"]
    return int(frame.loc[frame["model"] == model, "splits"].max())


def question_b(analysis):
    """(b) Does gating help inside the strong design, and inside the minimal
    design beside it."""
    rows = _tests(analysis, "b")
    if rows.empty:
        return ""
    lines = [pair_sentence(row) for _, row in rows.iterrows()]
    return "(b) " + " ".join(lines)


def question_c(analysis):
    """(c) Which part of the strong design buys the accuracy: each part
    removed alone, and the whole design against the minimal one."""
    rows = _tests(analysis, "c")
    if rows.empty:
        return ""
    splits = len(analysis["subset splits"])
    parts = []
    for gate in ABLATED_GATES:
        mine = rows[rows["first"] == f"{gate} (strong)"]
        if mine.empty:
            continue
        costs = ", ".join(
            f"{PART_WORDS[variant(r['second'])[1]]} {_signed(r['mean difference'])} "
            f"({_VERDICT[r['outcome']]})"
            for _, r in mine.iterrows()
        )
        top = mine.loc[mine["mean difference"].idxmax()]
        parts.append(
            f"For {_GATE_WORDS[gate]}, what each part adds (the strong design's "
            f"mean accuracy minus the design without it, over {splits} splits "
            f"of {top['n datasets']} datasets; the Bayesian signed-rank "
            f"verdict on the strong design in brackets): {costs}. The part worth "
            f"most: {PART_WORDS[variant(top['second'])[1]]} "
            f"({_signed(top['mean difference'])})."
        )
    accuracy = analysis["accuracy"]
    for gate in ABLATED_GATES:
        strong, minimal = f"{gate} (strong)", f"{gate} (minimal)"
        if strong in accuracy and minimal in accuracy:
            d = (accuracy[strong] - accuracy[minimal]).mean()
            parts.append(
                f"The whole strong design against the minimal one, "
                f"{_GATE_WORDS[gate]}: {_signed(d)} over every split."
            )
    return "(c) " + " ".join(parts)


def bottom_line(analysis):
    """Questions (a), (b) and (c), then the answer in plain words."""
    return [
        text
        for text in (
            question_a(analysis),
            question_b(analysis),
            question_c(analysis),
            plain_answer(analysis),
        )
        if text
    ]


def summary(analysis):
    """One short sentence per question, which the user guide quotes
    (findings.md and sequences.md)."""
    lines = []
    a = _tests(analysis, "a")
    if not a.empty:
        row = a.iloc[0]
        gap = row["mean second"] - row["mean first"]
        lines.append(
            f"(a) The best gated model at its defaults ({words(row['first'])}) "
            f"averaged {row['mean first']:.3f} accuracy on the "
            f"{row['n datasets']} sets, {abs(gap):.3f} "
            f"{'below' if gap > 0 else 'above'} MiniRocket's "
            f"{row['mean second']:.3f} ({_verdict(row)}, by the "
            "Bayesian signed-rank test)."
        )
    b = _tests(analysis, "b")
    if not b.empty:
        said = "; ".join(
            f"against {words(r['second']).split(' in the ')[0]} "
            f"{_signed(r['mean difference'])} ({_verdict(r)})"
            + (f" {words(r['first']).split(' ', 2)[-1]}" if i % 2 else "")
            for i, (_, r) in enumerate(b.iterrows())
        )
        lines.append(f"(b) Multiplicative gating {said}.")
    c = _tests(analysis, "c")
    if not c.empty:
        mean = c.groupby(c["second"].map(lambda m: variant(m)[1]))[
            "mean difference"
        ].mean()
        top = mean.idxmax()
        over = " and ".join(_GATE_WORDS[g] for g in ABLATED_GATES)
        top_rows = c[c["second"].map(lambda m: variant(m)[1]) == top]
        verdicts = "; ".join(
            f"{_verdict(r)} for {_GATE_WORDS[variant(r['first'])[0]]}"
            for _, r in top_rows.iterrows()
        )
        decided = (top_rows["outcome"] == paired.HOLDS).any()
        if mean[top] > analysis["margin"] and not decided:
            lines.append(
                f"(c) Removing {PART_WORDS[top]} costs most, {mean[top]:.3f} "
                f"accuracy (the mean over {over}), but the Bayesian signed-rank "
                f"test over {len(analysis['subset splits'])} splits decides it "
                f"for neither ({verdicts})."
            )
        elif mean[top] > analysis["margin"]:
            lines.append(
                f"(c) Of the strong design's parts, {PART_WORDS[top]} is worth "
                f"most: removing it costs {mean[top]:.3f} accuracy (the mean over "
                f"{over}; by the Bayesian signed-rank test over "
                f"{len(analysis['subset splits'])} splits: {verdicts})."
            )
        else:
            lines.append(
                f"(c) No part of the strong design is worth more than "
                f"{analysis['margin']:g} accuracy alone: removing any one changes "
                f"the mean over {over} by {_signed(mean.max())} at most."
            )
    return lines


def plain_answer(analysis):
    """The gating question and the accuracy target in plain words, from
    the numbers of (a) and (b): how far multiplicative gating is ahead or
    behind in the strong design, on how many datasets, where the test
    leans, and by how much the best gate misses or meets its target."""
    rows = _tests(analysis, "b")
    strong = rows[rows["first"] == "multiplicative (strong)"]
    if strong.empty:
        return ""
    said = []
    for _, r in strong.iterrows():
        other = words(r["second"]).split(" in the ")[0]
        d = r["mean difference"]
        said.append(
            f"{'ahead of' if d >= 0 else 'behind'} {other} by {abs(d):.3f} "
            f"(better by more than {r['margin']:g} on {r['datasets better']} "
            f"and worse by more than {r['margin']:g} on {r['datasets worse']} "
            f"of {r['n datasets']} sets; "
            + (
                f"{_VERDICT[r['outcome']]}"
                if r["outcome"] != paired.INCONCLUSIVE
                else f"the test leans {lean(r)[0]}, probability "
                f"{_p(lean(r)[1])}, without deciding"
            )
            + ")"
        )
    text = (
        "The gating answer, plainly: inside the series defaults multiplicative "
        f"gating is on average {' and '.join(said)}."
    )
    goal = analysis["targets"]
    if goal:
        gap, met = goal["gap to MiniRocket"]
        best = words(analysis["best gate"])
        miss = abs(gap - TARGET_GAP)
        text += (
            f" The best gate ({best}) is {gap:.3f} below MiniRocket's mean: "
            f"the target of {TARGET_GAP:g} is {'met' if met else 'missed'}"
            f"{'' if met else f' by {miss:.3f}'}"
        )
        if "datasets above 1-NN DTW" in goal:
            beats, _ = goal["datasets above 1-NN DTW"]
            text += f"; it beats 1-NN DTW on {beats} of {len(analysis['accuracy'])}"
        text += "."
    return text


def tuning_sentence(analysis):
    """The tuned gate against itself at its defaults on the subset's
    splits."""
    rows = _tests(analysis, "tuning")
    if rows.empty:
        return ""
    splits = len(analysis["subset splits"])
    text = " ".join(pair_sentence(r) for _, r in rows.iterrows())
    text = text[0].lower() + text[1:]
    no_gain = all(
        r["outcome"] != paired.HOLDS or r["mean difference"] <= r["margin"]
        for _, r in rows.iterrows()
    )
    plain = (
        " Tuning did not beat the defaults."
        if no_gain
        else " Tuning beat the defaults."
    )
    return f"On the first {splits} splits: {text}{plain}"


def curvature_sentences(analysis):
    """Whether gating turns more than ungated attention, design by design,
    the feed-forward sublayer's ablation among them."""
    table = analysis["curvature"]
    if table.empty or "multiplicative > none on" not in table:
        return []
    lines = []
    for _, row in table.dropna(subset=["multiplicative > none on"]).iterrows():
        lines.append(
            f"{row['design']}: multiplicative {row['multiplicative']:.3g} against "
            f"none {row['none']:.3g}, more on {int(row['multiplicative > none on'])} "
            f"of {int(row['datasets'])} datasets"
        )
    return [
        "Mean turning rate of the representation, multiplicative gating "
        "against ungated attention, design by design: " + "; ".join(lines) + "."
    ]


def fit_time_sentence(analysis):
    """The best gate's mean fit time against MiniRocket's, over the
    datasets and on the dearest one (one thread each)."""
    best = analysis["best gate"]
    frame = analysis["per dataset"]
    times = frame.pivot(index="dataset", columns="model", values="fit seconds")
    if best is None or "MiniRocket" not in times:
        return ""
    ratio = times[best] / times["MiniRocket"]
    dearest = times[best].idxmax()
    return (
        f"Fit time, one thread: {words(best)} took {times[best].mean():.1f} s per "
        f"fit on average over the datasets, against MiniRocket's "
        f"{times['MiniRocket'].mean():.2f} s ({ratio.min():.0f} to "
        f"{ratio.max():.0f} times as long, dataset by dataset); on {dearest}, "
        f"its dearest, {times.loc[dearest, best]:.1f} s against "
        f"{times.loc[dearest, 'MiniRocket']:.2f} s."
    )


def friedman_sentence(friedman, ranks):
    differ = friedman["p"] < paired.ALPHA_LEVEL
    order = ", ".join(f"{m} {r:.2f}" for m, r in ranks.items())
    return (
        f"Friedman's test over {friedman['n datasets']} datasets and "
        f"{friedman['n models']} models says the models' ranks "
        f"{'differ' if differ else 'do not differ detectably'} (chi2 = "
        f"{friedman['chi2']:.3g}, Iman-Davenport F = {friedman['F']:.3g} on "
        f"{friedman['df1']} and {friedman['df2']} degrees of freedom, p = "
        f"{friedman['p']:.3g}); average ranks (1 the best): {order}; Nemenyi's "
        f"critical difference at 0.05 is {friedman['critical difference']:.2f} ranks."
    )


def left_out_sentence(left_out):
    if not left_out:
        return ""
    parts = [f"{m} has no score on {', '.join(ds)}" for m, ds in left_out.items()]
    return (
        "; ".join(parts)
        + ", so Friedman's test over every dataset leaves it out (below: the "
        "same test over the datasets every model is scored on)."
    )


# ---------------------------------------------------------------- the page


def _accuracy_table(analysis, models):
    frame = analysis["per dataset"].set_index(["dataset", "model"])
    rows = []
    for dataset in analysis["datasets"]:
        row = {"dataset": dataset}
        for model in models:
            if (dataset, model) in frame.index:
                m = frame.loc[(dataset, model)]
                row[model] = (
                    f"{m['accuracy']:.3f} [{m['ci low']:.3f}, {m['ci high']:.3f}]"
                )
            else:
                row[model] = "-"
        rows.append(row)
    return pd.DataFrame(rows).to_markdown(index=False)


def _means_table(table, models):
    shown = table[[m for m in models if m in table]]
    out = shown.map(lambda v: "-" if pd.isna(v) else f"{v:.3f}")
    out.loc["mean"] = [f"{v:.3f}" for v in shown.mean()]
    return out.to_markdown(disable_numparse=True)


def _values_table(analysis, column, models, fmt):
    frame = analysis["per dataset"]
    table = frame.pivot(index="dataset", columns="model", values=column)
    table = table.reindex(
        index=analysis["datasets"], columns=[m for m in models if m in table.columns]
    )
    table = table.map(lambda v: "-" if pd.isna(v) else format(v, fmt))
    return table.to_markdown(disable_numparse=True)


def _tests_table(tests):
    shown = {
        "question": "question",
        "comparison": "comparison",
        "mean first": "mean accuracy, first",
        "mean second": "second",
        "mean difference": "mean difference",
        "datasets better": "better",
        "datasets equivalent": "within ROPE",
        "datasets worse": "worse",
        "p nemenyi": "Nemenyi p",
        "probability better": "P(better)",
        "probability equivalent": "P(equivalent)",
        "probability worse": "P(worse)",
        "outcome": "outcome",
    }
    return (
        tests[list(shown)]
        .rename(columns=shown)
        .to_markdown(index=False, floatfmt=".3g")
    )


def _ranks_table(ranks):
    return (
        ranks.to_frame("average rank")
        .reset_index(names="model")
        .to_markdown(index=False, floatfmt=".2f")
    )


def _splits(n):
    if n == 1:
        return "1 split per dataset: the archive's own train/test split"
    seeds = "seed 1" if n == 2 else f"seeds 1 to {n - 1}"
    return (
        f"{n} splits per dataset: the archive's own train/test split and "
        f"{n - 1} stratified resample{'s' if n > 2 else ''} of the pooled cases "
        "with the archive's class counts in the training part (aeon's "
        f"`stratified_resample_data_indices`, {seeds}: the UCR convention)"
    )


def design(settings):
    """The settings, in words."""
    from skgate._options import DESIGNS

    def listed(params):
        return ", ".join(f"{k}={v!r}" for k, v in params.items())

    changed = settings.get("default_params") or {}
    ablations = "; ".join(f"{k}: {listed(v)}" for k, v in ABLATIONS.items())
    grid = ", ".join(f"{k} {v}" for k, v in sorted(settings["grid"].items()))
    return (
        _splits(settings["n_splits"]) + ", "
        "the same splits for every model, each model seeded by the split. The "
        "gates (`GatedAttentionClassifier`) read each series z-normalised per "
        "channel with the training part's mean and standard deviation; the "
        "baselines read the raw series, as aeon's are run on the archive. "
        "Gates in the strong design: the estimator's defaults for series "
        f"({listed(DESIGNS['series'])}"
        + (f"; changed for this run: {listed(changed)}" if changed else "")
        + "). Gates in the minimal design: the design series had before and "
        f"tables still get ({listed(DESIGNS['table'])}). Ablations, each one "
        f"part of the strong design removed ({ablations}), for "
        f"{' and '.join(ABLATED_GATES)}, on the first "
        f"{settings['subset_splits']} splits. "
        + (
            f"Tuned {' and '.join(TUNED_GATES)} (the first "
            f"{settings['subset_splits']} splits): {grid} searched by successive "
            f"halving over epochs on a stratified hold-out of "
            f"{settings['holdout']:.2g} of the training part (every "
            f"configuration at 1/{settings['halving']} of the refit's epochs, "
            f"the best {settings['survivors']} at the refit's epochs, so the "
            "survivors are compared at the refit's budget), the best refitted "
            "on the whole training part at the defaults. "
            if TUNED_GATES
            else "No tuned gate in this run. "
        )
        + "Baselines (not tuned): aeon's "
        f"MiniRocketClassifier and MultiRocketClassifier "
        f"({settings['minirocket_kernels']} kernels), HydraClassifier (its "
        "defaults), 1-NN DTW (KNeighborsTimeSeriesClassifier, distance='dtw', "
        "full window), scikit-learn's HistGradientBoostingClassifier on the "
        "flattened series (equal-length sets only). The convolution baselines "
        "take equal lengths only: on an unequal-length set each series is "
        "resized to the training part's longest by linear interpolation (aeon's "
        "Resizer), for them alone; DTW and the gates read the series at their "
        "own lengths. Curvature: the turning rate of each gate's representation "
        f"(`clf.curvature(X_test[:{settings['curvature_rows']}], kind='turning')`, "
        "mean)."
    )


def _cpu(info):
    cpu = info.get("units cpu seconds")
    return "" if cpu is None else f" ({cpu / 60:.1f} min of CPU time)"


def _code(info):
    code = info.get("code")
    if not code:
        return ""
    start, end = code["at start"], code["at end"]
    clean = "clean" if start.get("clean") and end.get("clean") else "not clean"
    same = "" if start.get("commit") == end.get("commit") else " (changed during it)"
    return f" at commit {start.get('commit')}{same}, the tree {clean}"


def _carried(info):
    carried = {
        name: entry
        for name, entry in (info.get("carried") or {}).items()
        if isinstance(entry, dict) and entry.get("rows")
    }
    if not carried:
        return ""
    total = sum(entry["rows"] for entry in carried.values())
    checks = [entry for entry in carried.values() if "same" in entry]
    text = (
        f" {total} rows of {len(carried)} models ("
        + ", ".join(carried)
        + ") were carried from the run before as finished units (`--carry`; "
        'their note says "carried", their seconds are that run\'s).'
    )
    if len(checks) == len(carried):
        same = sum(bool(entry["same"]) for entry in checks)
        text += (
            f" One unit of each ({checks[0]['check']}) run anew by this code gave "
            f"the committed accuracy and curvature again for {same} of "
            f"{len(checks)}."
        )
    else:
        text += " The check of one unit of each was not recorded by this call."
    return text


def render(analysis, info, data):
    """The page: settings, bottom line, cost, tests across datasets,
    ablations, tuning, curvature, per-dataset tables."""
    settings = info["settings"]
    margin = analysis["margin"]
    minutes = info["units seconds"] / 60
    wall = info["this call's seconds"] / 60
    secondary = analysis["secondary"]
    every = [m for m in analysis["models"] if m not in SUBSET_MODELS]
    subset = [m for m in analysis["models"] if m in SUBSET_MODELS]
    lines = [
        f"# Gated attention on {len(analysis['datasets'])} real sequence datasets",
        "",
        "Generated by `" + info["command"].strip() + "`" + _code(info) + " (data: "
        "`sequences_scores.csv`, one row per dataset, split and model; the run's "
        "record: `sequences_run.json`). Accuracy on each split's test part. "
        + design(settings)
        + _carried(info),
        "",
        "## Bottom line",
        "",
        *[sentence + "\n" for sentence in analysis["bottom line"]],
        "## Cost",
        "",
        f"The units (one model on one split, one thread each) took "
        f"{info['units seconds']:.0f} s = {minutes:.1f} min of wall clock, "
        f"summed{_cpu(info)}, on {info['cores']} cores with "
        f"n_jobs={info['n_jobs']}; this call took {wall:.1f} min of wall clock "
        "(a resumed run's earlier units are in the sums, not in this call). By "
        "model, wall clock summed over the datasets and splits: "
        + ", ".join(f"{m} {v:.0f} s" for m, v in analysis["seconds"].items())
        + " (a unit's seconds include its test predictions, which are 1-NN DTW's "
        "cost, and the curvature). Mean fit time per model and dataset, one "
        "thread, is below. " + fit_time_sentence(analysis),
        "",
        "## Across datasets",
        "",
        friedman_sentence(analysis["friedman"], analysis["ranks"]),
        "",
        _ranks_table(analysis["ranks"]),
        "",
        "![Critical-difference diagram](fig_sequences_cd.png)",
        "",
    ]
    if analysis["left out"]:
        lines += [left_out_sentence(analysis["left out"]), ""]
    if secondary is not None:
        lines += [
            f"Over the {len(secondary['datasets'])} datasets every model is scored "
            f"on ({', '.join(secondary['datasets'])}): "
            + friedman_sentence(secondary["friedman"], secondary["ranks"]),
            "",
        ]
    lines += [
        "Pairs of interest: (a) the best gated model at its defaults against "
        "MiniRocket; (b) multiplicative gating against ungated attention and "
        "against SiLU, in each design; (c) the strong design against itself "
        "with one part removed, over the first "
        f"{len(analysis['subset splits'])} splits; tuning: the tuned gate "
        "against its defaults, over the same splits. Better / within ROPE / "
        f"worse count datasets by their mean difference against {margin:g}; "
        "the outcome is the Bayesian signed-rank test's (Benavoli et al., 2017; "
        f"ROPE {margin:g} accuracy) at probability {DECISION_PROBABILITY:g}. "
        "Nemenyi's p is given for the pairs of the Friedman test.",
        "",
        _tests_table(analysis["tests"]),
        "",
        "## Tuning",
        "",
        tuning_sentence(analysis),
        "",
        "## Ablations",
        "",
        f"Mean accuracy over the first {len(analysis['subset splits'])} splits:",
        "",
        _means_table(
            analysis["subset accuracy"],
            [f"{g} ({n})" for g in ABLATED_GATES for n in ("strong", *ABLATIONS)]
            + list(TUNED),
        ),
        "",
        "## Curvature",
        "",
        " ".join(curvature_sentences(analysis)),
        "",
        analysis["curvature"].to_markdown(index=False, floatfmt=".3g")
        if not analysis["curvature"].empty
        else "",
        "",
        "## What this does not say",
        "",
        f"- {len(analysis['datasets'])} datasets are few for tests across datasets: "
        "an undecided outcome is what such a small sample often gives.",
        "- The best gated model is chosen after seeing these means; its "
        "comparison with MiniRocket is conditional on that choice.",
        "- The baselines are not tuned (MiniRocket and 1-NN DTW with a full "
        "window are how the archive's results are usually reported).",
        f"- The ablations{' and the tuned gate' if TUNED_GATES else ''} ran on "
        f"{len(analysis['subset splits'])} "
        "of the splits (to keep the run within about 2 hours on 2 cores): their "
        "comparisons are noisier than those over every split.",
        "- The per-dataset interval is the corrected resampled t interval "
        "(Nadeau & Bengio), which widens with the test part's share: where the "
        "test part is many times the training part it is wide.",
        "",
        "## Per dataset",
        "",
        "Mean test accuracy over the splits [95 % corrected resampled t interval; "
        "a t interval, so it may pass 1]; '-' where the model does not apply.",
        "",
        _accuracy_table(analysis, every),
        "",
        " ".join(analysis["lengths"]),
        "",
        "Mean turning rate of the representation on the test rows:",
        "",
        _values_table(
            analysis,
            "curvature",
            [m for m in analysis["models"] if variant(m)[0]],
            ".3g",
        ),  # fmt: skip
        "",
        "Mean fit time in seconds (the tuned gate's includes its search; one thread):",
        "",
        _values_table(analysis, "fit seconds", every + subset, ".2f"),
        "",
        "## Datasets",
        "",
        data.to_markdown(index=False),
        "",
    ]
    return "\n".join(lines)


def cd_diagram(analysis):
    """The critical-difference diagram of the Friedman test over every
    dataset (skgate.inspection's)."""
    from skgate.inspection import CriticalDifferenceDisplay

    return CriticalDifferenceDisplay(
        analysis["ranks"],
        analysis["friedman"]["critical difference"],
        n_datasets=analysis["friedman"]["n datasets"],
    ).plot()

"""SEQUENCES.md from bench_sequences.py's scores: the statistics
(:func:`analyse`, skgate.paired's tests) apart from the words (:func:`render`,
:func:`bottom_line`), every sentence built from the numbers, so that a test
can render a small made-up table and hold the sentences to it."""

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
TUNED_GATES = ("multiplicative",)
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

_GATE_WORDS = {
    "multiplicative": "multiplicative gating",
    "silu": "SiLU",
    "none": "ungated attention",
}


def words(model):
    """A model's name in a sentence."""
    gate = model.removesuffix(" tuned")
    if gate in _GATE_WORDS:
        tuned = "tuned " if model.endswith(" tuned") else "default "
        return tuned + _GATE_WORDS[gate]
    return model


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
    dataset, split and model: "dataset", "split", "model", "kind",
    "n_train", "n_test", "accuracy", "curvature", "fit_seconds", and for the
    tuned gates "lr", "alpha", "depth").

    Returns a dict: "datasets" (in the settings' order), "models" (the claim's
    order), "per dataset" (dataset x model: mean accuracy with its 95 %
    corrected resampled t interval over the splits, mean curvature, mean fit
    seconds, splits), "accuracy" (dataset x model means), "left out" (model
    -> the datasets it has no score on), "ranks", "friedman" (over every
    dataset and the models scored on all of them, with Nemenyi's critical
    difference), "secondary" (the same over the datasets every model is
    scored on, when some model is left out and 2 or more remain, else
    None), "best gate" (the best-ranked tuned gate), "tests" (the Bayesian
    signed-rank tests of the pairs of interest), "configurations" (the
    tuned gates' chosen settings), "margin" and "bottom line" (sentences).
    """
    scores = scores.copy()
    present = list(dict.fromkeys(scores["model"]))
    models = [m for m in MODELS if m in present] + [
        m for m in present if m not in MODELS
    ]
    order = list((settings or {}).get("datasets", []))
    seen = list(dict.fromkeys(scores["dataset"]))
    datasets = [d for d in order if d in seen] + [d for d in seen if d not in order]
    per_dataset = _per_dataset(scores, models, datasets)
    accuracy = per_dataset.pivot(index="dataset", columns="model", values="accuracy")
    accuracy = accuracy.reindex(index=datasets, columns=models)
    left_out = {
        m: list(accuracy.index[accuracy[m].isna()])
        for m in models
        if accuracy[m].isna().any()
    }
    complete = [m for m in models if m not in left_out]
    ranks, friedman = _friedman(accuracy[complete])
    secondary = None
    full = accuracy.dropna()
    if left_out and len(full) >= 2:
        ranks_all, friedman_all = _friedman(full)
        secondary = {
            "datasets": list(full.index),
            "ranks": ranks_all,
            "friedman": friedman_all,
        }
    tuned = [m for m in TUNED if m in complete]
    best = min(tuned, key=lambda m: (ranks[m], tuned.index(m))) if tuned else None
    pairs = [(TUNED[0], TUNED[1]), (TUNED[0], TUNED[2])]
    if best is not None:
        pairs.append((best, "MiniRocket"))
    table = accuracy[complete]
    tests = pd.DataFrame(
        [
            _pair_test(table, ranks, a, b, margin, random_state)
            for a, b in pairs
            if a in complete and b in complete
        ]
    )
    analysis = {
        "datasets": datasets,
        "models": models,
        "per dataset": per_dataset,
        "accuracy": accuracy,
        "left out": left_out,
        "ranks": ranks,
        "friedman": friedman,
        "secondary": secondary,
        "best gate": best,
        "tests": tests,
        "configurations": _configurations(scores, (settings or {}).get("grid")),
        "seconds": _seconds(scores, models),
        "lengths": length_sentences(scores, datasets),
        "margin": margin,
    }
    analysis["bottom line"] = bottom_line(analysis)
    analysis["headline"] = headline(analysis)
    return analysis


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
    each gate model could not read whole (cut), and the sets MiniRocket read
    resized."""
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
                f"On {dataset}, MiniRocket read the series resized to the "
                f"training part's longest ({resized.iloc[0]} on the first split)."
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


def _pair_test(table, ranks, better, worse, margin, random_state):
    d = (table[better] - table[worse]).to_numpy(dtype=float)
    rank_difference = float(ranks[worse] - ranks[better])
    row = {
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
        "rank difference": rank_difference,
        "p nemenyi": paired.nemenyi_p(rank_difference, *table.shape[::-1]),
        **paired.signed_rank_bayes(d, margin, random_state=random_state),
        "margin": margin,
    }
    row["outcome"] = paired.signed_rank_outcome(row, probability=DECISION_PROBABILITY)
    return row


def _configurations(scores, grid=None):
    """Per tuned gate: how often each depth (and alpha) was chosen, the
    chosen learning rates' range, and how often the grid's largest or
    smallest learning rate was (an edge of the grid)."""
    rows = []
    tuned = scores[scores["model"].isin(TUNED)]
    for model in [m for m in TUNED if m in set(tuned["model"])]:
        group = tuned[tuned["model"] == model]
        row = {"model": model, "splits": len(group)}
        lr = pd.to_numeric(group["lr"])
        row["learning rate (median; range)"] = (
            f"{lr.median():.2g}; {lr.min():.2g} to {lr.max():.2g}"
        )
        depth = pd.to_numeric(group["depth"]).value_counts().sort_index()
        if grid and model.removesuffix(" tuned") in grid:
            rates = grid[model.removesuffix(" tuned")]["lr"]
            row["grid's smallest / largest lr chosen"] = (
                f"{int(np.isclose(lr, min(rates)).sum())} / "
                f"{int(np.isclose(lr, max(rates)).sum())} of {len(group)}"
            )
        row["depth chosen"] = ", ".join(f"{int(k)}: {v}" for k, v in depth.items())
        alpha = pd.to_numeric(group["alpha"]).dropna().value_counts().sort_index()
        row["alpha chosen"] = ", ".join(f"{k:g}: {v}" for k, v in alpha.items()) or "-"
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- sentences


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


def gate_sentence(row):
    """Tuned gating against another tuned gate: won, lost, equivalent or
    undecided, with the counts and the probabilities behind it."""
    first, second = words(row["first"]), words(row["second"])
    margin = row["margin"]
    lead = {
        paired.HOLDS: f"Against {second}, {first} wins",
        paired.REVERSED: f"Against {second}, {first} loses",
        paired.NO_EFFECT: (
            f"Against {second}, {first} makes no difference beyond {margin:g} "
            "accuracy (equivalent)"
        ),
        paired.INCONCLUSIVE: (f"Against {second}, whether {first} helps is undecided"),
    }[row["outcome"]]
    return (
        f"{lead}: it was {_counts(row)}; Bayesian "
        f"signed-rank test with a ROPE of {margin:g}: {_probabilities(row)}."
    )


def baseline_sentence(row, ranks):
    """The best tuned gate against MiniRocket: how far, and the verdict."""
    gate, baseline = row["first"], row["second"]
    difference = row["mean difference"]
    if difference < 0:
        gap = f"{-difference:.3f} below {baseline}'s {row['mean second']:.3f}"
    elif difference > 0:
        gap = f"{difference:.3f} above {baseline}'s {row['mean second']:.3f}"
    else:
        gap = f"level with {baseline}'s {row['mean second']:.3f}"
    verdict = {
        paired.HOLDS: f"the gate is better than {baseline}",
        paired.REVERSED: f"{baseline} is better than the gate",
        paired.NO_EFFECT: f"the two are equivalent within {row['margin']:g}",
        paired.INCONCLUSIVE: "it is undecided which is better",
    }[row["outcome"]]
    return (
        f"The best-ranked tuned gate, {words(gate)} (average rank "
        f"{ranks[gate]:.2f} of {len(ranks)}), averaged {row['mean first']:.3f} "
        f"accuracy, {gap} (better on {row['datasets better']}, within "
        f"{row['margin']:g} on {row['datasets equivalent']} and worse on "
        f"{row['datasets worse']} of {row['n datasets']} datasets); the Bayesian "
        f"signed-rank test says {verdict} ({_probabilities(row)})."
    )


def bottom_line(analysis):
    """At most three sentences: tuned gating against tuned SiLU, against
    tuned ungated attention, and the best tuned gate against MiniRocket."""
    lines = []
    for _, row in analysis["tests"].iterrows():
        if row["second"] in TUNED:
            lines.append(gate_sentence(row))
        else:
            lines.append(baseline_sentence(row, analysis["ranks"]))
    return lines[:3]


def headline(analysis):
    """The one sentence the README and the user guide quote: what tuned
    gating did against tuned SiLU and tuned ungated attention, and how far
    the best tuned gate was from MiniRocket, each as its test decided."""
    verbs = {
        paired.HOLDS: "beat",
        paired.REVERSED: "lost to",
        paired.NO_EFFECT: "was equivalent to",
        paired.INCONCLUSIVE: "was undecided against",
    }
    against = {
        paired.HOLDS: "better",
        paired.REVERSED: "worse",
        paired.NO_EFFECT: "equivalent",
        paired.INCONCLUSIVE: "undecided",
    }
    tests = analysis["tests"].set_index("second")
    parts = []
    for other in TUNED[1:]:
        if other in tests.index:
            row = tests.loc[other]
            parts.append(
                f"{verbs[row['outcome']]} {words(other)} "
                f"({_signed(row['mean difference'])} accuracy)"
            )
    n = len(analysis["datasets"])
    sentence = (
        f"On the {n} classification sets aeon ships, {words(TUNED[0])} "
        f"{' and '.join(parts)}"
    )
    if "MiniRocket" in tests.index:
        row = tests.loc["MiniRocket"]
        gap = row["mean second"] - row["mean first"]
        where = "below" if gap > 0 else "above"
        sentence += (
            f", and the best tuned gate ({words(row['first'])}) averaged "
            f"{row['mean first']:.3f} accuracy, {abs(gap):.3f} {where} "
            f"MiniRocket's {row['mean second']:.3f} "
            f"({against[row['outcome']]} by the Bayesian signed-rank test)"
        )
    return sentence + "."


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


def curvature_sentences(analysis):
    """The gates' turning rates over the datasets, the ungated arm's
    included, and whether gating turned more than the other gates."""
    frame = analysis["per dataset"]
    curvature = frame.pivot(index="dataset", columns="model", values="curvature")
    gates = [m for m in (*TUNED, *GATES) if m in curvature.columns]
    if not gates:
        return []
    n = len(curvature)
    means = ", ".join(f"{m} {curvature[m].mean():.3g}" for m in gates)
    lines = [f"Mean turning rate over the {n} datasets: {means}."]
    for model in ("none tuned", "none"):
        if model in curvature.columns:
            positive = int((curvature[model] > 1e-9).sum())
            why = (
                ": on series its softmax attention weighs different tokens, so "
                "it is not flat by construction"
                if positive
                else ""
            )
            lines.append(
                f"{words(model).capitalize()} turned (rate above 1e-9) on "
                f"{positive} of {n} datasets (lowest "
                f"{curvature[model].min():.3g}){why}."
            )
    first = TUNED[0]
    for other in TUNED[1:]:
        if first in curvature.columns and other in curvature.columns:
            more = int((curvature[first] > curvature[other]).sum())
            lines.append(
                f"{words(first).capitalize()} turned more than {words(other)} "
                f"on {more} of {n} datasets."
            )
    return lines


def tuning_sentence(analysis):
    """Each gate tuned against itself at its defaults, dataset by dataset
    (counts and the mean difference; no test: the two arms differ in budget
    as well as in their search)."""
    accuracy, margin = analysis["accuracy"], analysis["margin"]
    parts = []
    for gate in GATES:
        tuned = f"{gate} tuned"
        if gate in accuracy and tuned in accuracy:
            d = (accuracy[tuned] - accuracy[gate]).dropna()
            parts.append(
                f"{gate} better on {int((d > margin).sum())}, within {margin:g} on "
                f"{int((d.abs() <= margin).sum())} and worse on "
                f"{int((d < -margin).sum())} (mean {_signed(d.mean())})"
            )
    if not parts:
        return ""
    return (
        f"Tuned against default, per gate, over {len(accuracy)} datasets: "
        + "; ".join(parts)
        + "."
    )


def _refit(settings, tuned):
    refit = {**tuned, **(settings.get("refit_params") or {})}
    if refit == tuned:
        return "the same"
    return f"max_epochs={refit['max_epochs']!r} with batches of {refit['batch_size']}"


def budget_bullet(settings):
    """The training budgets of the two gate arms, from the settings."""
    from skgate import GatedAttentionClassifier

    own = GatedAttentionClassifier().get_params()
    default = {
        **{k: own[k] for k in ("max_epochs", "batch_size")},
        **(settings.get("default_params") or {}),
    }
    tuned = {
        **{k: own[k] for k in ("max_epochs", "batch_size")},
        **settings["tuned_params"],
    }
    n_configs = max(
        int(np.prod([len(v) for v in grid.values()]))
        for grid in settings["grid"].values()
    )
    refit = {**tuned, **(settings.get("refit_params") or {})}
    if all(refit[k] == default[k] for k in ("max_epochs", "batch_size")):
        return (
            f"- The tuned gates' search trains every configuration at "
            f"max_epochs={tuned['max_epochs']!r} with batches of "
            f"{tuned['batch_size']} (the search of {settings['inner_folds']} x "
            f"{n_configs} fold models per gate and split is what a 60-minute run "
            f"on 2 cores affords); the chosen configuration is refitted at the "
            f"default gates' budget (max_epochs={default['max_epochs']!r} with "
            f"batches of {default['batch_size']}). A tuned gate thus differs from "
            "its default by its configuration alone, chosen at a smaller budget "
            "than the one it is refitted at, which need not carry over."
        )
    return (
        f"- The two gate arms train on different budgets: the default gates "
        f"max_epochs={default['max_epochs']!r} with batches of "
        f"{default['batch_size']}, every configuration of the tuned gates' "
        f"search max_epochs={tuned['max_epochs']!r} with batches of "
        f"{tuned['batch_size']}, their refit {_refit(settings, tuned)} (the "
        f"search of {settings['inner_folds']} x "
        f"{n_configs} fold models per gate and split is what a 60-minute run on "
        "2 cores affords). Where the default "
        "budget is larger, a tuned gate may lose to its own default: tuned means "
        "searched, not better trained."
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


def _accuracy_table(analysis):
    frame = analysis["per dataset"].set_index(["dataset", "model"])
    rows = []
    for dataset in analysis["datasets"]:
        row = {"dataset": dataset}
        best = analysis["accuracy"].loc[dataset].max()
        for model in analysis["models"]:
            if (dataset, model) in frame.index:
                m = frame.loc[(dataset, model)]
                row[model] = (
                    f"{m['accuracy']:.3f} [{m['ci low']:.3f}, {m['ci high']:.3f}]"
                )
            else:
                row[model] = "-"
        winners = analysis["accuracy"].loc[dataset]
        row["winner"] = ", ".join(winners.index[winners == best])
        rows.append(row)
    return pd.DataFrame(rows).to_markdown(index=False)


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
        "comparison": "comparison",
        "mean first": "mean accuracy, first",
        "mean second": "second",
        "mean difference": "mean difference",
        "datasets better": "better",
        "datasets equivalent": "within ROPE",
        "datasets worse": "worse",
        "rank difference": "rank difference",
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


#: The estimator's parameters the page names.
_SHOWN_PARAMS = (
    "max_epochs",
    "lr",
    "batch_size",
    "d_model",
    "depth",
    "alpha",
    "patch_size",
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
    grid = settings["grid"]
    sizes = {g: int(np.prod([len(v) for v in grid[g].values()])) for g in grid}
    grids = "; ".join(
        f"{g}: "
        + ", ".join(f"{k} {v}" for k, v in sorted(grid[g].items()))
        + f" ({sizes[g]} configurations)"
        for g in grid
    )
    from skgate import GatedAttentionClassifier

    own = GatedAttentionClassifier().get_params()
    changed = settings.get("default_params") or {}
    shown = {k: own[k] for k in _SHOWN_PARAMS} | changed
    defaults = ", ".join(f"{k}={v}" for k, v in shown.items()) + (
        f"; changed from the estimator's: {', '.join(changed)}" if changed else ""
    )
    tuned = ", ".join(f"{k}={v}" for k, v in settings["tuned_params"].items())
    return (
        _splits(settings["n_splits"]) + ", "
        "the same splits for every model, each model seeded by the "
        "split. The gates (`GatedAttentionClassifier`, `patch_size='auto'`) read "
        "each series z-normalised per channel with the training part's mean and "
        "standard deviation (over its cases and time points); the baselines "
        "read the raw series, as aeon's are run on the archive. Default gates: "
        f"the estimator's defaults ({defaults}). Tuned gates: a grid searched by "
        f"stratified {settings['inner_folds']}-fold cross-validation on the "
        "training part (the fold models trained together by "
        "`skgate.parallel.fit_together`; the inner folds read the training "
        "part's normalisation), the best configuration (the first of the grid "
        "among ties) refitted on the whole training part; every configuration "
        f"with {tuned} (the rest at the defaults); grids: {grids}. Baselines: "
        "aeon's "
        f"MiniRocketClassifier ({settings['minirocket_kernels']} kernels), "
        "1-NN DTW (aeon's KNeighborsTimeSeriesClassifier, distance='dtw', full "
        "window), scikit-learn's HistGradientBoostingClassifier on the "
        "flattened series (equal-length sets only). MiniRocket takes equal "
        "lengths only: on an unequal-length set each series is resized to the "
        "training part's longest by linear interpolation (aeon's Resizer), for "
        "MiniRocket alone; DTW and the gates read the series at their own "
        "lengths. Curvature: the turning rate of each gate's representation "
        f"(`clf.curvature(X_test[:{settings['curvature_rows']}], kind='turning')`, "
        "mean)."
    )


def _cpu(info):
    cpu = info.get("units cpu seconds")
    return "" if cpu is None else f" ({cpu / 60:.1f} min of CPU time)"


def render(analysis, info, data):
    """The page: settings, bottom line, tests across datasets, curvature,
    per-dataset tables."""
    settings = info["settings"]
    margin = analysis["margin"]
    minutes = info["units seconds"] / 60
    wall = info["this call's seconds"] / 60
    secondary = analysis["secondary"]
    lines = [
        f"# Gated attention on {len(analysis['datasets'])} real sequence datasets",
        "",
        "Generated by `" + info["command"].strip() + "` (data: "
        "`sequences_scores.csv`, one row per dataset, split and model; the run's "
        "record: `sequences_run.json`). Accuracy on each split's test part. "
        + design(settings),
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
        "cost, and the curvature). Mean fit time per model and dataset is below.",
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
        "Pairs of interest: tuned multiplicative gating against tuned SiLU and "
        "against tuned ungated attention, and the best-ranked tuned gate against "
        "MiniRocket. Better / within ROPE / worse count datasets by their mean "
        f"difference against {margin:g}; the outcome is the Bayesian signed-rank "
        f"test's (Benavoli et al., 2017; ROPE {margin:g} accuracy) at probability "
        f"{DECISION_PROBABILITY:g}.",
        "",
        _tests_table(analysis["tests"]),
        "",
        tuning_sentence(analysis),
        "",
        "## Curvature",
        "",
        " ".join(curvature_sentences(analysis)),
        "",
        "## What this does not say",
        "",
        f"- {len(analysis['datasets'])} datasets are few for tests across datasets: "
        "an undecided outcome is what such a small sample often gives.",
        "- The best tuned gate is chosen after seeing these ranks; its comparison "
        "with MiniRocket is conditional on that choice.",
        "- The baselines are not tuned (MiniRocket and 1-NN DTW with a full "
        "window are how the archive's results are usually reported); the tuned "
        "gates are, on their training parts only.",
        budget_bullet(settings),
        "- The per-dataset interval is the corrected resampled t interval "
        "(Nadeau & Bengio), which widens with the test part's share: where the "
        "test part is many times the training part it is wide.",
        "",
        "## Per dataset",
        "",
        "Mean test accuracy over the splits [95 % corrected resampled t interval; "
        "a t interval, so it may pass 1]; '-' where the model does not apply; the "
        "winner has the highest mean.",
        "",
        _accuracy_table(analysis),
        "",
        " ".join(analysis["lengths"]),
        "",
        "Mean turning rate of the representation on the test rows:",
        "",
        _values_table(analysis, "curvature", (*TUNED, *GATES), ".3g"),
        "",
        "Mean fit time in seconds (a tuned gate's includes its search; one thread):",
        "",
        _values_table(analysis, "fit seconds", analysis["models"], ".2f"),
        "",
        "The tuned gates' chosen configurations (over every dataset and split):",
        "",
        analysis["configurations"].to_markdown(index=False),
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

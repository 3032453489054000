"""KEEL.md from a GateBenchmark (and the tuned run's, when it has run):
every sentence built from its numbers."""

import numpy as np
import pandas as pd

ARM_WORDS = {"silu": "SiLU", "none": "ungated attention", "multiplicative": "gating"}


def _p(value):
    if value > 0.99:
        return "> 0.99"
    return "< 0.01" if value < 0.01 else f"{value:.2f}"


def _name(model):
    return ARM_WORDS.get(model, model)


def _decision(row):
    """The Bayesian signed-rank test's outcome of one pair, in words."""
    better, worse = (_name(m) for m in row["comparison"].split(" > "))
    return {
        "holds": f"{better} is better",
        "reversed": f"{worse} is better",
        "no effect": f"the two are equivalent within {row['margin']:g}",
        "inconclusive": "it is undecided",
    }[row["outcome"]]


def _counts(row):
    return (
        f"better on {row['datasets better']}, within {row['margin']:g} on "
        f"{row['datasets equivalent']} and worse on {row['datasets worse']} of "
        f"{row['n datasets']} datasets (mean difference {row['mean difference']:+.3f})"
    )


def _probabilities(row):
    return (
        f"probability better {_p(row['probability better'])}, equivalent "
        f"{_p(row['probability equivalent'])}, worse {_p(row['probability worse'])}"
    )


def gate_sentence(row):
    """One gate pair: how often, by how much, and the Bayesian verdict."""
    better, worse = row["comparison"].split(" > ")
    return (
        f"Against {_name(worse)}, {better} attention was {_counts(row)}; the "
        f"Bayesian signed-rank test says {_decision(row)} ({_probabilities(row)})."
    )


def baseline_sentence(rows, average_ranks):
    """The best gate against every baseline."""
    best = rows.iloc[0]["comparison"].split(" > ")[0]
    parts = []
    for _, row in rows.iterrows():
        baseline = row["comparison"].split(" > ")[1]
        verdict = {
            "holds": f"better than {baseline}",
            "reversed": f"worse than {baseline}",
            "no effect": f"equivalent to {baseline} within {row['margin']:g}",
            "inconclusive": f"undecided against {baseline}",
        }[row["outcome"]]
        parts.append(
            f"{verdict} ({row['datasets better']}/{row['datasets equivalent']}/"
            f"{row['datasets worse']} datasets better/equivalent/worse, "
            f"{_probabilities(row)})"
        )
    k = len(average_ranks)
    return (
        f"The best-ranked gate, {best} (average rank "
        f"{average_ranks[best]:.2f} of {k}; {_ranking(average_ranks)}), is "
        + "; ".join(parts)
        + "."
    )


def _ranking(average_ranks):
    return "order " + ", ".join(f"{m} {r:.2f}" for m, r in average_ranks.items())


def bottom_line(result):
    """At most three sentences: gating against SiLU, against ungated
    attention, and the best gate against the baselines."""
    tests = result.tests_
    gates = tests[tests["comparison"].str.split(" > ").str[1].isin(
        result.scores_.loc[result.scores_["kind"] == "gate", "model"]
    )]  # fmt: skip
    baselines = tests.drop(gates.index)
    lines = [gate_sentence(row) for _, row in gates.iterrows()]
    if len(baselines):
        lines.append(baseline_sentence(baselines, result.average_ranks_))
    return lines


def _dataset_table(result, data):
    """A row per dataset: each model's mean score [95 % interval], each
    gate's curvature, and the winner."""
    frame = result.datasets_
    models = list(dict.fromkeys(result.scores_["model"]))
    gates = list(dict.fromkeys(frame.loc[frame["kind"] == "gate", "model"]))
    rows = []
    for dataset, group in frame.groupby("dataset", sort=False):
        by_model = group.set_index("model")
        info = data.set_index("dataset").loc[dataset]
        row = {
            "dataset": dataset,
            "rows used": int(info["rows used"]),
            "classes": int(info["classes"]),
        }
        for model in models:
            m = by_model.loc[model]
            row[model] = f"{m['score']:.3f} [{m['ci low']:.3f}, {m['ci high']:.3f}]"
        for gate in gates:
            row[f"turning, {gate}"] = f"{by_model.loc[gate, 'curvature']:.3f}"
        row["winner"] = ", ".join(group.loc[group["winner"], "model"])
        rows.append(row)
    return pd.DataFrame(rows)


def _tests_table(result):
    table = result.tests_.copy()
    shown = {
        "comparison": "comparison",
        "mean difference": "mean difference",
        "datasets better": "better",
        "datasets equivalent": "within margin",
        "datasets worse": "worse",
        "datasets holds": "per-dataset t: holds",
        "datasets reversed": "reversed",
        "datasets no effect": "no effect",
        "datasets inconclusive": "inconclusive",
        "rank difference": "rank difference",
        "p nemenyi": "Nemenyi p",
        "probability better": "P(better)",
        "probability equivalent": "P(equivalent)",
        "probability worse": "P(worse)",
        "outcome": "outcome",
    }
    table = table[list(shown)].rename(columns=shown)
    return table.to_markdown(index=False, floatfmt=".3g")


def curvature_sentence(result):
    """How the gates' turning rates compare, dataset by dataset, and whether
    accuracy followed them (Spearman's rho over the datasets of the first
    gate's curvature excess against its accuracy difference)."""
    from scipy import stats

    frame = result.datasets_[result.datasets_["kind"] == "gate"]
    curvature = frame.pivot(index="dataset", columns="model", values="curvature")
    score = frame.pivot(index="dataset", columns="model", values="score")
    models = [m for m in result.settings_.get("models", curvature.columns)
              if m in curvature.columns]  # fmt: skip
    first, n = models[0], len(curvature)
    parts = []
    for other in models[1:]:
        more = int((curvature[first] > curvature[other]).sum())
        rho = stats.spearmanr(
            curvature[first] - curvature[other], score[first] - score[other]
        ).statistic
        parts.append(
            f"more than {other}'s on {more} of {n} datasets (Spearman's rho of "
            f"the curvature excess against the accuracy difference over the "
            f"datasets: {rho:+.2f})"
        )
    flat = [m for m in models if np.allclose(curvature[m], 0, atol=1e-9)]
    note = f"; {', '.join(flat)} is exactly flat (0) everywhere" if flat else ""
    return f"{first}'s representation turned " + "; ".join(parts) + note + "."


def render(result, info, data, tuned=None, tuned_info=None, earlier=None,
           earlier_info=None):  # fmt: skip
    """KEEL.md: the models at their defaults (``result``), then tuned
    (``tuned``); either may be None when its part has not run. ``earlier``:
    the same defaults at the fixed budget of 20 epochs (the defaults before
    ``max_epochs="auto"``), for what the new default changed, and the
    reference of the tuned part when it trains as many epochs."""
    parts = []
    if result is not None:
        parts.append(_defaults_section(result, info, data, tuned is not None))
        if earlier is not None and earlier_info is not None:
            parts.append(budget_section(result, earlier))
    if tuned is not None:
        reference, reference_info = result, info
        if earlier is not None and _epochs(earlier) == _epochs(tuned):
            reference, reference_info = earlier, earlier_info
        parts.append(tuned_section(tuned, tuned_info, data, reference, reference_info))
    return "\n".join(parts)


def _epochs(result):
    return result.settings_.get("estimator_params", {}).get("max_epochs")


def budget_gains(result, earlier):
    """Per gate: mean accuracy at the defaults and at the earlier fixed
    budget on the same splits (all datasets, and the small ones: fewer than
    SMALL_TRAIN training rows per split, DEFAULTS.md's "small"), and the
    ratio of their summed fit times."""
    gates = result.settings_["gates"]
    keys = ["dataset", "model", "repeat", "fold"]
    both = result.scores_[keys + ["score", "fit_time", "n_train"]].merge(
        earlier.scores_[keys + ["score", "fit_time"]], on=keys, suffixes=("", " before")
    )
    both = both[both["model"].isin(gates)]
    per = both.groupby(["model", "dataset"], sort=False).mean(numeric_only=True)
    per["difference"] = per["score"] - per["score before"]
    margin = result.settings_["margin"]
    rows = []
    for model, group in per.groupby(level="model", sort=False):
        small = group[group["n_train"] < SMALL_TRAIN]
        d = group["difference"]
        rows.append({
            "gate": model,
            "20 epochs": group["score before"].mean(),
            "auto": group["score"].mean(),
            "difference": d.mean(),
            f"difference, n_train < {SMALL_TRAIN}": small["difference"].mean(),
            f"difference, n_train >= {SMALL_TRAIN}": d.drop(small.index).mean(),
            "better": int((d > margin).sum()),
            "within margin": int((d.abs() <= margin).sum()),
            "worse": int((d < -margin).sum()),
            "fit time ratio": group["fit_time"].sum() / group["fit_time before"].sum(),
            "datasets": len(d),
            "small datasets": len(small),
        })  # fmt: skip
    return pd.DataFrame(rows)


#: Datasets of fewer training rows per split are "small" in what the new
#: default changed (DEFAULTS.md's groups).
SMALL_TRAIN = 200


def budget_sentence(result, earlier):
    """The sentence the findings page (docs/user_guide/findings.md) and
    KEEL.md quote: what max_epochs='auto' changed."""
    gains = budget_gains(result, earlier)
    small = f"difference, n_train < {SMALL_TRAIN}"
    changes = "; ".join(
        f"{row['gate']} {row['20 epochs']:.3f} -> {row['auto']:.3f} "
        f"({_signed(row['difference'])}; {_signed(row[small])} on the "
        f"{row['small datasets']} sets of fewer than {SMALL_TRAIN} training rows)"
        for _, row in gains.iterrows()
    )
    rest = gains[f"difference, n_train >= {SMALL_TRAIN}"]
    others = int(gains["datasets"].max() - gains["small datasets"].max())
    ratio = gains["fit time ratio"]
    return (
        f"On the same splits of the {gains['datasets'].max()} KEEL datasets, "
        f"max_epochs='auto' against the earlier 20 epochs moved each gate's mean "
        f"accuracy: {changes}. On the other {others} sets the gates' mean moved "
        f"by {_signed(rest.min())} to {_signed(rest.max())}; their fit time was "
        f"{ratio.min():.2f} to {ratio.max():.2f} times the earlier."
    )


def _signed(value):
    return f"{round(float(value), 3) + 0.0:+.3f}"


def budget_section(result, earlier):
    """What max_epochs='auto' changed against the earlier fixed 20 epochs."""
    gains = budget_gains(result, earlier)
    margin = result.settings_["margin"]
    return "\n".join([
        "## What max_epochs='auto' changed",
        "",
        "The same datasets, splits and seeds at the earlier default of 20 epochs "
        "(`python benchmarks/bench_keel.py --only epochs20`: `keel_epochs20_*`) "
        "against the defaults above. " + budget_sentence(result, earlier)
        + f" Better / within margin / worse count the datasets by the difference "
        f"of their means against {margin:g}; the fit time ratio is auto's summed "
        "fit time over 20 epochs'.",
        "",
        gains.to_markdown(index=False, floatfmt=".3f"),
        "",
    ])  # fmt: skip


def _defaults_section(result, info, data, tuned):
    n = result.friedman_["n datasets"]
    design = (
        f"10-fold cross-validation x {info['n_repeats']} on each dataset (the same "
        f"splits for every model), datasets larger than {info['cap']} rows "
        f"sampled (stratified, seed 0) to {info['cap']}; numbers standardised and "
        "categories one-hot encoded inside the folds; the gates at "
        "GatedAttentionClassifier's defaults "
        f"({_params(result.settings_.get('estimator_params', {}))}), the "
        "baselines at scikit-learn's defaults; accuracy; curvature is the turning "
        "rate of each gate's representation on the held-out rows."
    )
    minutes = info["datasets seconds"] / 60
    lines = [
        f"# Gated attention against the usual models on {n} KEEL datasets",
        "",
        "Generated by `python benchmarks/bench_keel.py` (data: `keel_scores.csv`, "
        "`keel_datasets.csv`, `keel_tests.csv`, `keel_ranks.csv`, `keel_data.csv`; "
        "the run's record: `keel_run.json`). Design: " + design,
        "",
        "## Bottom line",
        "",
        *[f"{sentence}" + "\n" for sentence in bottom_line(result)],
        "## Cost",
        "",
        f"The datasets' fits took {info['datasets seconds']:.0f} s = "
        f"{minutes:.1f} min on {info['cores']} cores (n_jobs={info['n_jobs']}; "
        f"the slowest dataset, {info['slowest dataset'][0]}, "
        f"{info['slowest dataset'][1]:.0f} s), summed over the datasets as each "
        "was computed, so a resumed run counts each once.",
        "",
        "## Across datasets",
        "",
        *_across(result, "Critical-difference diagram", "fig_keel_cd.png"),
        "",
        "## Curvature",
        "",
        curvature_sentence(result),
        "",
        "## What this does not say",
        "",
        "- The models run at their defaults, untuned: this is the comparison a "
        "user gets out of the box, not each model at its best"
        + (" (the tuned section below is)." if tuned else "."),
        "- The best gate is chosen after seeing these ranks; its comparisons with "
        "the baselines are conditional on that choice.",
        "- Nemenyi's test reads mean ranks, so a pair's p depends on the other "
        "models in the benchmark; the Bayesian signed-rank test of a pair does not.",
        "- Curvature is measured for the gates only; a baseline has none here.",
        "- At scikit-learn's defaults the MLP and logistic regression may stop "
        "before converging; their ConvergenceWarnings are not shown (that is the "
        "model a user gets, and one warning per split is noise).",
        "",
        "## Per dataset",
        "",
        "Mean held-out accuracy [95 % corrected t interval over the splits; a t "
        "interval, so it may pass 1 where the splits' scores are near it] per "
        "model; the mean turning rate per gate; the winner is the highest mean.",
        "",
        _dataset_table(result, data).to_markdown(index=False),
        "",
        "## Datasets",
        "",
        data.to_markdown(index=False),
        "",
    ]
    return "\n".join(lines)


def _across(result, caption, figure):
    """Friedman's test, the average ranks, the diagram and the pairs' tests."""
    f = result.friedman_
    n, k = f["n datasets"], f["n models"]
    ranks = result.average_ranks_.to_frame("average rank").reset_index(names="model")
    return [
        f"Friedman's test over {n} datasets and {k} models: chi2 = {f['chi2']:.3g}, "
        f"Iman-Davenport F = {f['F']:.3g} on {f['df1']} and {f['df2']} degrees of "
        f"freedom, p = {f['p']:.3g}. Nemenyi's critical difference at 0.05: "
        f"{f['critical difference']:.2f} ranks.",
        "",
        ranks.to_markdown(index=False, floatfmt=".2f"),
        "",
        f"![{caption}]({figure})",
        "",
        "Pairs of interest: gating against each other gate, and the best-ranked "
        "gate against each baseline. Better / within margin / worse count "
        "datasets by their mean difference against the margin; the per-dataset "
        "corrected t-test (Holm over these pairs within each dataset) counts "
        "where a dataset alone decides; the outcome is the Bayesian signed-rank "
        "test's at probability 0.95 (Benavoli et al., 2017).",
        "",
        _tests_table(result),
    ]


def tuning_gains(tuned, defaults):
    """Per model over the datasets both runs hold: the mean accuracy tuned
    and at the defaults on the same splits, the mean difference, and on how
    many datasets tuning was better, within the margin, or worse."""
    keys = ["dataset", "model", "repeat", "fold"]
    both = tuned.scores_[keys + ["score"]].merge(
        defaults.scores_[keys + ["score"]], on=keys, suffixes=(" tuned", " defaults")
    )
    per_dataset = both.groupby(["model", "dataset"], sort=False)[
        ["score tuned", "score defaults"]
    ].mean()
    per_dataset["difference"] = (
        per_dataset["score tuned"] - per_dataset["score defaults"]
    )
    margin = tuned.settings_["margin"]
    rows = []
    for model, group in per_dataset.groupby(level="model", sort=False):
        d = group["difference"]
        rows.append({
            "model": model,
            "tuned": group["score tuned"].mean(),
            "defaults": group["score defaults"].mean(),
            "difference": d.mean(),
            "better": int((d > margin).sum()),
            "within margin": int((d.abs() <= margin).sum()),
            "worse": int((d < -margin).sum()),
            "datasets": len(d),
        })  # fmt: skip
    return pd.DataFrame(rows)


def tuned_bottom_line(tuned, defaults=None):
    """At most three sentences: the first gate against the other gates, the
    best gate against the baselines, and what tuning changed (when the
    defaults' run is there)."""
    tests = tuned.tests_
    gates = set(tuned.scores_.loc[tuned.scores_["kind"] == "gate", "model"])
    against_gates = tests[tests["comparison"].str.split(" > ").str[1].isin(gates)]
    lines = []
    if len(against_gates):
        first = against_gates.iloc[0]["comparison"].split(" > ")[0]
        parts = []
        for _, row in against_gates.iterrows():
            other = _name(row["comparison"].split(" > ")[1])
            parts.append(
                f"better than {other} on {row['datasets better']}, within "
                f"{row['margin']:g} on {row['datasets equivalent']} and worse on "
                f"{row['datasets worse']} of {row['n datasets']} datasets "
                f"(Bayesian signed-rank test: {_decision(row)}, "
                f"{_probabilities(row)})"
            )
        lines.append(
            f"Each model tuned, {first} attention was " + "; and ".join(parts) + "."
        )
    baselines = tests.drop(against_gates.index)
    if len(baselines):
        lines.append(baseline_sentence(baselines, tuned.average_ranks_))
    if defaults is not None:
        gains = tuning_gains(tuned, defaults)
        changes = ", ".join(
            f"{row['model']} {row['difference']:+.3f} ({row['better']}/"
            f"{row['within margin']}/{row['worse']})"
            for _, row in gains.iterrows()
        )
        lines.append(
            f"Against the defaults on the same splits of {gains['datasets'].max()} "
            f"datasets, tuning changed each model's mean accuracy by {changes} "
            f"(datasets better/within {tuned.settings_['margin']:g}/worse)."
        )
    return lines


def _grids(grid):
    """A parameter grid as a list of dicts (ParameterGrid takes either)."""
    return grid if isinstance(grid, list) else [grid]


def _grid_text(grid):
    """A parameter grid in a line: each parameter's values."""
    parts = [
        " x ".join(f"{k} {', '.join(map(_value, v))}" for k, v in g.items())
        for g in _grids(grid)
    ]
    return parts[0] if len(parts) == 1 else " + ".join(f"({p})" for p in parts)


def _value(value):
    if isinstance(value, list | tuple):
        return "(" + ", ".join(map(_value, value)) + ")"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _base_params(tuned):
    """Each model's parameters where its grid leaves them: the gates' from
    the run's settings, the baselines' (skgate's default baselines) their
    defaults."""
    from skgate.benchmark import default_baselines

    settings = tuned.settings_
    base = {name: b.get_params() for name, b in default_baselines().items()}
    for gate in settings["gates"]:
        alpha = settings["alphas"].get(gate)
        base[gate] = {**settings["estimator_params"],
                      **({} if alpha is None else {"alpha": alpha})}  # fmt: skip
    return base


def _chosen_table(tuned):
    """Per model and parameter: each value's share of the splits it was
    chosen on (where the chosen configuration left a parameter, its value
    outside the grid)."""
    chosen = tuned.best_params_
    base = _base_params(tuned)
    rows = []
    for model, group in chosen.groupby("model", sort=False):
        names = list(dict.fromkeys(k for p in group["params"] for k in p))
        params = pd.DataFrame([
            {k: _value(p[k] if k in p else base.get(model, {}).get(k, "default"))
             for k in names}
            for p in group["params"]
        ])  # fmt: skip
        for parameter in params.columns:
            shares = params[parameter].value_counts(normalize=True)
            rows.append({
                "model": model,
                "parameter": parameter,
                "chosen (share of the splits)": ", ".join(
                    f"{value} {share:.0%}" for value, share in shares.items()
                ),
            })  # fmt: skip
    return pd.DataFrame(rows)


def tuned_section(tuned, info, data, defaults=None, defaults_info=None):
    """KEEL.md's tuned section: each model at its best, on the same splits."""
    settings = tuned.settings_
    n = tuned.friedman_["n datasets"]
    grids = pd.DataFrame([
        {"model": model, "grid": _grid_text(grid)}
        for model, grid in settings["param_grids"].items()
    ])  # fmt: skip
    same = ""
    if defaults_info is not None:
        same = " (the defaults' splits and seeds)"
        if defaults_info["n_repeats"] != info["n_repeats"]:
            same = (
                f" (the first of the defaults' {defaults_info['n_repeats']} repeats: "
                "the same splits and seeds)"
            )
    fixed = {"max_epochs"} | {
        key
        for model in tuned.settings_["gates"]
        for grid in _grids(settings["param_grids"].get(model, []))
        for key in grid
    }
    shared = {k: v for k, v in settings["estimator_params"].items() if k not in fixed}
    design = (
        f"the datasets and rows of the defaults' run, 10-fold cross-validation x "
        f"{info['n_repeats']}{same}; on each split's training rows every model "
        f"compared its {settings['n_configurations']} configurations by inner "
        f"{settings['inner_cv']}-fold cross-validation (the same inner folds for "
        "every model, each preprocessed from its own training rows), and the one "
        "with the best mean inner accuracy was fitted on the split's training rows "
        "and scored on its test rows. The gates trained "
        f"{settings['estimator_params']['max_epochs']} epochs each (their "
        f"parameters outside the grids: {_params(shared)}); the baselines' "
        "parameters outside the grids are scikit-learn's defaults."
    )
    search = tuned.best_params_.groupby("model", sort=False)["search_time"].sum()
    cost = ", ".join(f"{m} {s / 60:.1f} min" for m, s in search.items())
    lines = [
        f"# Each model at its best: tuned, on {n} KEEL datasets",
        "",
        "Generated by `python benchmarks/bench_keel.py --only tuned` (data: "
        "`keel_tuned_scores.csv`, `keel_tuned_params.csv` (the configuration each "
        "model chose on each split), `keel_tuned_datasets.csv`, "
        "`keel_tuned_tests.csv`, `keel_tuned_ranks.csv`; the run's record: "
        "`keel_tuned_run.json`). Design: " + design,
        "",
        grids.to_markdown(index=False),
        "",
        "## Bottom line",
        "",
        *[f"{sentence}" + "\n" for sentence in tuned_bottom_line(tuned, defaults)],
        "## Cost",
        "",
        f"The datasets' searches and fits took {info['datasets seconds']:.0f} s = "
        f"{info['datasets seconds'] / 60:.1f} min on {info['cores']} cores "
        f"(n_jobs={info['n_jobs']}; the slowest dataset, "
        f"{info['slowest dataset'][0]}, {info['slowest dataset'][1]:.0f} s), "
        "summed over the datasets as each was computed. The inner searches' "
        f"own seconds, summed over the splits (worker time): {cost}.",
        "",
        "## Across datasets",
        "",
        *_across(tuned, "Critical-difference diagram, tuned", "fig_keel_tuned_cd.png"),
        "",
    ]
    if defaults is not None:
        gains = tuning_gains(tuned, defaults)
        budget = _epochs(defaults)
        lines += [
            "## Tuned against the defaults",
            "",
            "Mean accuracy over the datasets, tuned and at the defaults on the "
            f"same splits, the defaults' gates at max_epochs={budget!r}"
            + (
                " (as many epochs as the tuned gates: `keel_epochs20_*`)"
                if budget == _epochs(tuned)
                else ""
            )  # fmt: skip
            + "; better / within margin / worse count the datasets by "
            f"the tuned minus the defaults' mean, against {settings['margin']:g}.",
            "",
            gains.to_markdown(index=False, floatfmt=".3f"),
            "",
        ]
    lines += [
        "## What the searches chose",
        "",
        _chosen_table(tuned).to_markdown(index=False),
        "",
        "## What this does not say",
        "",
        "- Every model searched as many configurations, but a grid's reach is a "
        "choice: another grid could favour another model.",
        "- The inner folds hold fewer rows than the training part, so a "
        "configuration that needs the rows may be passed over on small datasets.",
        "- The best gate is chosen after seeing these ranks; its comparisons with "
        "the baselines are conditional on that choice.",
        "",
        "## Per dataset, tuned",
        "",
        "Mean held-out accuracy [95 % corrected t interval over the splits] per "
        "model, tuned; the mean turning rate per gate; the winner is the highest "
        "mean.",
        "",
        _dataset_table(tuned, data).to_markdown(index=False),
        "",
    ]
    return "\n".join(lines)


def _params(params):
    keys = ("max_epochs", "lr", "batch_size", "d_model", "n_tokens", "depth")
    return ", ".join(f"{k}={params[k]}" for k in keys if k in params)


def headline(result, setting="every model at its defaults"):
    """The sentences the user guide quotes (a test holds them
    to the committed run): how often gating helps against SiLU and against
    ungated attention, and where the best gate stands against the baselines;
    ``setting`` says how the models were run."""
    tests = result.tests_.set_index("comparison")
    n = result.friedman_["n datasets"]
    first = result.settings_.get("models", list(result.ranks_.columns))[0]
    parts = []
    for other, words in (("silu", "SiLU"), ("none", "ungated attention")):
        key = f"{first} > {other}"
        if key in tests.index:
            row = {**tests.loc[key].to_dict(), "comparison": key}
            parts.append(
                f"better than {words} on {row['datasets better']}, within "
                f"{row['margin']:g} on {row['datasets equivalent']} and worse on "
                f"{row['datasets worse']} (Bayesian signed-rank test: "
                f"{_decision(row)})"
            )
    ranks = result.average_ranks_
    gates = set(result.scores_.loc[result.scores_["kind"] == "gate", "model"])
    best = min((m for m in ranks.index if m in gates), key=ranks.get)
    against = [
        f"{_BASELINE_WORDS[row['outcome']]} {comparison.split(' > ')[1]}"
        for comparison, row in tests.iterrows()
        if comparison.split(" > ")[1] not in gates
    ]
    return (
        f"On {n} balanced KEEL datasets, {setting} "
        f"(`benchmarks/results/KEEL.md`), gated attention ({first}) was "
        + ", and ".join(parts)
        + f". The best gate, {best}, ranked {list(ranks.index).index(best) + 1} "
        f"of {len(ranks)} on average ({_ranking(ranks)}) and was "
        + "; ".join(against)
        + " (Bayesian signed-rank tests, margin "
        f"{tests['margin'].iloc[0]:g})."
    )


def tuned_headline(tuned, defaults):
    """The user guide's sentences on the tuned run: :func:`headline` for the
    tuned models, then the range of what tuning moved each model's mean
    accuracy against its defaults on the same splits."""
    settings = tuned.settings_
    setting = (
        f"each model tuned by an equal grid search of {settings['n_configurations']}"
        f" configurations on {settings['inner_cv']} inner folds"
    )
    gains = tuning_gains(tuned, defaults)
    low, high = gains["difference"].min(), gains["difference"].max()
    return (
        headline(tuned, setting)
        + f" Against its defaults on the same splits (the gates at "
        f"max_epochs={_epochs(defaults)}, as tuned), tuning moved each model's mean "
        f"accuracy by {_signed(low)} to {_signed(high)}."
    )


_BASELINE_WORDS = {
    "holds": "better than",
    "reversed": "worse than",
    "no effect": "equivalent to",
    "inconclusive": "undecided against",
}

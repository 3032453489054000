"""KEEL.md from a GateBenchmark: every sentence built from its numbers."""

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


def render(result, info, data):
    f = result.friedman_
    n, k = f["n datasets"], f["n models"]
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
    ranks = result.average_ranks_.to_frame("average rank").reset_index(names="model")
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
        f"Friedman's test over {n} datasets and {k} models: chi2 = {f['chi2']:.3g}, "
        f"Iman-Davenport F = {f['F']:.3g} on {f['df1']} and {f['df2']} degrees of "
        f"freedom, p = {f['p']:.3g}. Nemenyi's critical difference at 0.05: "
        f"{f['critical difference']:.2f} ranks.",
        "",
        ranks.to_markdown(index=False, floatfmt=".2f"),
        "",
        "![Critical-difference diagram](fig_keel_cd.png)",
        "",
        "Pairs of interest: gating against each other gate, and the best-ranked "
        "gate against each baseline. Better / within margin / worse count "
        "datasets by their mean difference against the margin; the per-dataset "
        "corrected t-test (Holm over these pairs within each dataset) counts "
        "where a dataset alone decides; the outcome is the Bayesian signed-rank "
        "test's at probability 0.95 (Benavoli et al., 2017).",
        "",
        _tests_table(result),
        "",
        "## Curvature",
        "",
        curvature_sentence(result),
        "",
        "## What this does not say",
        "",
        "- The models run at their defaults, untuned: this is the comparison a "
        "user gets out of the box, not each model at its best.",
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


def _params(params):
    keys = ("max_epochs", "lr", "batch_size", "d_model", "n_tokens", "depth")
    return ", ".join(f"{k}={params[k]}" for k in keys if k in params)


def headline(result):
    """The sentences the README and the user guide quote (a test holds them
    to the committed run): how often gating helps against SiLU and against
    ungated attention, and where the best gate stands against the baselines."""
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
        f"On {n} balanced KEEL datasets, every model at its defaults "
        f"(`benchmarks/results/KEEL.md`), gated attention ({first}) was "
        + ", and ".join(parts)
        + f". The best gate, {best}, ranked {list(ranks.index).index(best) + 1} "
        f"of {len(ranks)} on average ({_ranking(ranks)}) and was "
        + "; ".join(against)
        + " (Bayesian signed-rank tests, margin "
        f"{tests['margin'].iloc[0]:g})."
    )


_BASELINE_WORDS = {
    "holds": "better than",
    "reversed": "worse than",
    "no effect": "equivalent to",
    "inconclusive": "undecided against",
}

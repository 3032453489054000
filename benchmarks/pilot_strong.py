"""A pilot of the strong design on aeon's 8 bundled sets: each gate at the
estimator's defaults for series (the strong design) on the first
``--splits`` splits of bench_sequences.py (0: the archive's own split; 1, 2:
its first stratified resamples), beside the committed SEQUENCES.md run's
accuracy on the same splits of the minimal design (the series defaults
before) and of MiniRocket and 1-NN DTW.

Not the benchmark: a few splits, one seed per model, no ablations, no
tuning. It says where the strong design stands, and what gating does inside
it, before the full rerun of bench_sequences.py. The comparisons of two
models use the per-dataset mean accuracy over the splits: the mean
difference, how many sets each wins beyond 0.01, and the Bayesian
signed-rank test (skgate.paired.signed_rank_bayes, ROPE 0.01). Writes
benchmarks/results/PILOT_STRONG.md and pilot_strong.csv; a finished unit is
kept in pilot_strong.csv, so a run started again trains only what is missing.

    python benchmarks/pilot_strong.py [--splits 3] [--n-jobs 2]
"""

import os

for _name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import bench_sequences as bench  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "results"
CSV = OUT / "pilot_strong.csv"
GATES = ("multiplicative", "silu", "none", "sigmoid")
#: The pairs of interest: gating inside each design, and the best against
#: the baselines.
PAIRS = (
    ("multiplicative (strong)", "none (strong)"),
    ("multiplicative (strong)", "silu (strong)"),
    ("multiplicative (minimal)", "none (minimal)"),
    ("multiplicative (minimal)", "silu (minimal)"),
    ("multiplicative (strong)", "multiplicative (minimal)"),
    ("none (strong)", "none (minimal)"),
)
ROPE = 0.01


def unit(name, split, gate):
    """One default strong-design gate on split ``split`` of ``name``."""
    import torch

    from skgate import GatedAttentionClassifier

    torch.set_num_threads(1)
    X_train, y_train, X_test, y_test = bench.normalised(bench.split_data(name, split))
    start = time.perf_counter()
    model = GatedAttentionClassifier(gate=gate, random_state=split)
    model.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    X_fit = bench.fitting(model, X_test)[0]
    accuracy = float(np.mean(model.predict(X_fit) == y_test))
    curvature = float(np.mean(model.curvature(X_fit[:32], kind="turning")))
    return {
        "dataset": name,
        "split": split,
        "model": f"{gate} (strong)",
        "accuracy": accuracy,
        "fit_seconds": seconds,
        "curvature": curvature,
    }


def committed(splits):
    """The committed run's default gates (the minimal design) and baselines
    on the first ``splits`` splits."""
    scores = pd.read_csv(OUT / "sequences_scores.csv")
    scores = scores[(scores.split < splits) & ~scores.tuned.astype(bool)]
    model = np.where(scores.kind == "gate", scores.model + " (minimal)", scores.model)
    scores = scores.assign(model=model)
    return scores[["dataset", "split", "model", "accuracy", "fit_seconds", "curvature"]]


def compare(means, first, second):
    """One pair of models over the datasets both have."""
    from skgate.paired import signed_rank_bayes, signed_rank_outcome

    both = means[[first, second]].dropna()
    d = (both[first] - both[second]).to_numpy()
    result = signed_rank_bayes(d, ROPE)
    return {
        "comparison": f"{first} > {second}",
        "mean difference": d.mean(),
        "better": int((d > ROPE).sum()),
        "within ROPE": int((abs(d) <= ROPE).sum()),
        "worse": int((d < -ROPE).sum()),
        **result,
        "outcome": signed_rank_outcome(result, probability=0.95),
    }


def train(splits, gates, datasets, n_jobs):
    done = pd.read_csv(CSV) if CSV.exists() else pd.DataFrame()
    have = set()
    if len(done):
        have = set(zip(done.dataset, done.split, done.model, strict=True))
    jobs = [
        (name, split, gate)
        for name in datasets
        for split in range(splits)
        for gate in gates
        if (name, split, f"{gate} (strong)") not in have
    ]
    for rows in Parallel(n_jobs=n_jobs, verbose=10, return_as="generator")(
        delayed(unit)(*job) for job in jobs
    ):
        done = pd.concat([done, pd.DataFrame([rows])], ignore_index=True)
        done.to_csv(CSV, index=False)  # resumable: each unit as it ends
    return done


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--gates", nargs="+", default=list(GATES))
    parser.add_argument("--datasets", nargs="+", default=list(bench.DATASETS))
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    fresh = train(args.splits, args.gates, args.datasets, args.n_jobs)
    fresh = fresh[fresh.split < args.splits]
    table = pd.concat([fresh, committed(args.splits)])
    table = table[table.dataset.isin(args.datasets)]
    means = table.pivot_table(index="dataset", columns="model", values="accuracy")
    seconds = table.pivot_table(index="dataset", columns="model", values="fit_seconds")
    turning = table.pivot_table(index="dataset", columns="model", values="curvature")
    turning = turning[[c for c in turning if "(" in c]]
    pairs = [p for p in PAIRS if p[0] in means and p[1] in means]
    best = means[[c for c in means if "(strong)" in c]].mean().idxmax()
    pairs += [(best, "MiniRocket"), (best, "1-NN DTW")]
    tests = pd.DataFrame([compare(means, *pair) for pair in pairs])
    shown = means.copy()
    shown.loc["mean"] = means.mean()
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True, text=True
    ).stdout.strip()
    text = [
        "# Pilot: the strong design at its defaults",
        "",
        f"Generated by `python benchmarks/pilot_strong.py --splits "
        f"{args.splits}` at commit {commit} (n_jobs={args.n_jobs}, one thread "
        f"per fit). Splits 0 to {args.splits - 1} of bench_sequences.py (0: the "
        f"archive's own), each model seeded by the split: a pilot, not the "
        f"benchmark (no ablations, no tuning, few splits). '(strong)': "
        f"GatedAttentionClassifier at its defaults for series; '(minimal)' and "
        f"the baselines: the same splits of the committed SEQUENCES.md run (the "
        f"minimal design was the series default then). The strong design's "
        f"stem was chosen on these sets (LayerNorm against instance "
        f"normalisation, on the archive split), so its numbers are not "
        f"independent of them.",
        "",
        "## Mean test accuracy over the splits",
        "",
        shown.round(3).to_markdown(),
        "",
        f"## Pairs (per-dataset means; Bayesian signed-rank, ROPE {ROPE})",
        "",
        f"The best strong-design gate by mean accuracy is {best}.",
        "",
        tests.round(4).to_markdown(index=False),
        "",
        "## Mean fit seconds (one thread)",
        "",
        seconds.round(1).to_markdown(),
        "",
        "## Mean turning rate of the representation (32 test series)",
        "",
        turning.round(3).to_markdown(),
        "",
    ]
    (OUT / "PILOT_STRONG.md").write_text("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()

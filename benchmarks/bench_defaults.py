"""Which default budget makes a first fit learn: epochs from a budget of S
optimizer steps (issue 49, item 5).

Candidate defaults: ``max_epochs = max(20, ceil(S / ceil(n_train / batch_size)))``
(at least S optimizer steps and at least 20 epochs) for S in 0 (today's 20
epochs), 250, 500, 1000, 2000, everything else at the estimator's defaults
(``lr=2e-3``, ``batch_size=64``, AdamW). Data:

* every balanced KEEL dataset ``bench_keel.py`` uses, loaded by its own
  loader (capped at its 5000 rows, stratified, seed 0), numbers standardised
  and categories one-hot encoded on the training part (skgate's
  ``default_preprocessor``), copied tokens; one stratified 70/30 split per
  seed;
* six equal-length series sets of the UCR/UEA archive that aeon ships
  (ArrowHead, GunPoint, ItalyPowerDemand, BasicMotions, OSULeaf, ACSF1), the
  archive's train/test split, each channel standardised with the training
  series' mean and sd, fed as a sequence of tokens: ``p = ceil(T / 64)``
  consecutive time points (all channels) per token, T padded with zeros to a
  multiple of p, ``token_dim = C * p`` (at most 64 tokens).

Models: ``GatedAttentionClassifier(gate=g, max_epochs=E(S), random_state=seed)``
for the gates multiplicative, silu and none, seeds 0 and 1.

One fit per (dataset, gate, seed) trains to the largest E(S) and scores the
test part at the end of every epoch E(S) with a float64 copy of the weights,
as ``predict`` does: without a learning-rate schedule, the first E epochs of
a seeded fit are the whole of a fit of E epochs (the script checks this at
start against separate fits, and at the end of every fit against ``score``;
it stops if they differ). A candidate's fit seconds are the time to its
epoch (scoring left out) plus the fit's time outside the epochs.

Finished fits are appended to ``results/DEFAULTS.csv`` at once; a rerun skips
them (``--fresh`` starts over). ``results/DEFAULTS.md`` is rendered from the
CSV only (``--render`` renders it again without training).

``--keel subset`` (the default) takes bench_keel's sets of fewer than 2000
rows and its 3 largest (29 of 43), ``--keel all`` all 43 (about 5 minutes
more).

Run: python benchmarks/bench_defaults.py  (one process, one torch thread;
about 30 minutes on this project's shared 2-core machine, two thirds of it
the aeon sequences).
"""

import argparse
import copy
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from sklearn.model_selection import train_test_split
from skorch.callbacks import Callback

from skgate import GatedAttentionClassifier
from skgate._engine.loop import pad_rows
from skgate._represent import _LEAST_ROWS
from skgate.benchmark import default_preprocessor

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_keel  # noqa: E402  (the KEEL loader, not a package)

OUT = HERE / "results"
BUDGETS = (0, 250, 500, 1000, 2000)
GATES = ("multiplicative", "silu", "none")
SEEDS = 2
BATCH = 64  # the estimator's default batch_size
LEAST_EPOCHS = 20  # today's default max_epochs
AEON = ("ArrowHead", "GunPoint", "ItalyPowerDemand", "BasicMotions", "OSULeaf", "ACSF1")
MAX_TOKENS = 64
#: KEEL's "subset": the sets of fewer than this many rows, and the largest few.
SUBSET_ROWS, SUBSET_LARGEST = 2000, 3
#: n_train bounds of the groups: small < 200 <= medium <= 2000 < large.
SMALL, LARGE = 200, 2000
#: "Within" of the share table and of the choice.
SHARE_WITHIN, CHOICE_WITHIN = 0.01, 0.005
COLUMNS = [
    "source",
    "dataset",
    "n_train",
    "n_test",
    "tokens",
    "token_dim",
    "gate",
    "seed",
    "S",
    "epochs",
    "steps",
    "accuracy",
    "fit_seconds",
    "run_seconds",
]


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def epochs_for(S, n_train, batch_size=BATCH):
    """max(20, ceil(S / steps per epoch)); S=0 is today's 20 epochs."""
    return max(LEAST_EPOCHS, math.ceil(S / math.ceil(n_train / batch_size)))


def steps_for(epochs, n_train, batch_size=BATCH):
    return epochs * math.ceil(n_train / min(batch_size, n_train))


def group_of(n_train):
    if n_train < SMALL:
        return f"small (n_train < {SMALL})"
    if n_train <= LARGE:
        return f"medium ({SMALL} <= n_train <= {LARGE})"
    return f"large (n_train > {LARGE})"


GROUPS = [group_of(1), group_of(SMALL), group_of(LARGE + 1)]


# -- data ----------------------------------------------------------------------


def keel_names(which):
    """All of bench_keel's datasets, or those of < 2000 rows and the 3 largest."""
    rows = {p.stem: None for p in sorted(bench_keel.keel_directory().glob("*.dat"))}
    if which == "all":
        return list(rows)
    table = bench_keel.describe(bench_keel.CAP).set_index("dataset")["rows"]
    largest = set(table.sort_values(ascending=False).index[:SUBSET_LARGEST])
    return [n for n in rows if table[n] < SUBSET_ROWS or n in largest]


def keel_split(load, seed):
    """One stratified 70/30 split, preprocessed on its training part."""
    X, y = load()
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=seed
    )
    pre = default_preprocessor(X_train).fit(X_train)
    X_train, X_test = (
        np.asarray(pre.transform(Z), dtype=np.float64) for Z in (X_train, X_test)
    )
    return X_train, y_train, X_test, y_test, None


def aeon_split(name):
    """The archive's split as token sequences: (n, tokens * C * p), token_dim."""
    from aeon.datasets import load_classification

    X_train, y_train = load_classification(name, split="train")
    X_test, y_test = load_classification(name, split="test")
    mean = X_train.mean(axis=(0, 2), keepdims=True)
    sd = X_train.std(axis=(0, 2), keepdims=True)
    sd[sd == 0] = 1.0
    _, C, T = X_train.shape
    p = math.ceil(T / MAX_TOKENS)
    padded = math.ceil(T / p) * p

    def tokens(X3):
        X3 = np.pad((X3 - mean) / sd, ((0, 0), (0, 0), (0, padded - T)))
        return X3.transpose(0, 2, 1).reshape(len(X3), padded * C).astype(np.float64)

    return tokens(X_train), y_train, tokens(X_test), y_test, C * p


def tasks(keel, names=None):
    """(source, dataset, make(seed)) in the run's order."""
    loaders = bench_keel.datasets(bench_keel.CAP)
    chosen = [
        ("keel", n, lambda seed, n=n: keel_split(loaders[n], seed))
        for n in keel_names(keel)
    ]
    chosen += [("aeon", n, lambda seed, n=n: aeon_split(n)) for n in AEON]
    if names:
        unknown = set(names) - {name for _, name, _ in chosen}
        if unknown:
            sys.exit(f"--datasets: unknown {sorted(unknown)}")
        chosen = [t for t in chosen if t[1] in names]
    return chosen


# -- one fit, scored at every candidate's epoch ----------------------------------


class Checkpoints(Callback):
    """Test predictions and training seconds at the end of chosen epochs.

    Predictions as ``predict`` computes them: a float64 copy of the weights,
    at least ``_LEAST_ROWS`` rows per forward pass. Scoring time is left out
    of the seconds.
    """

    def __init__(self, X, classes, epochs):
        self.X, self.classes, self.epochs = X, classes, set(epochs)

    def on_train_begin(self, net, **kwargs):
        self.begin, self.scoring, self.epoch = time.perf_counter(), 0.0, 0
        self.seconds, self.predictions = {}, {}

    def on_epoch_end(self, net, **kwargs):
        now = time.perf_counter()
        self.epoch += 1
        if self.epoch not in self.epochs:
            return
        self.seconds[self.epoch] = now - self.begin - self.scoring
        module = copy.deepcopy(net.module_).double().eval()
        with torch.inference_mode():
            x = pad_rows(torch.tensor(self.X), _LEAST_ROWS)
            logits = module.representation(x.to(net.device), "logits")
        codes = logits[: len(self.X)].argmax(1).cpu().numpy()
        self.predictions[self.epoch] = self.classes[codes]
        self.scoring += time.perf_counter() - now

    def on_train_end(self, net, **kwargs):
        self.training = time.perf_counter() - self.begin - self.scoring


def fit_checkpoints(data, gate, seed, epochs):
    """Train once to max(epochs); predictions and fit seconds at each."""
    X_train, y_train, X_test, y_test, token_dim = data
    clf = GatedAttentionClassifier(
        gate=gate,
        max_epochs=max(epochs),
        token_dim=token_dim,
        random_state=seed,
        callbacks=[("checkpoints", Checkpoints(X_test, np.unique(y_train), epochs))],
    )
    start = time.perf_counter()
    clf.fit(X_train, y_train)
    wall = time.perf_counter() - start
    # The estimator trains a copy of its callbacks: read the one it used.
    used = dict(clf.net_.callbacks_)["checkpoints"]
    outside = wall - used.training - used.scoring  # validation, set-up, wrap-up
    last = used.predictions[max(epochs)]
    if not np.array_equal(last, clf.predict(X_test)):
        sys.exit(f"{gate} seed {seed}: the last checkpoint does not predict as predict")
    return {
        e: (used.predictions[e], outside + used.seconds[e]) for e in set(epochs)
    }, wall


def check_equivalence(task, gate="multiplicative", seed=0, budgets=(250, 500)):
    """A seeded fit's first E epochs are a fit of E epochs: the snapshot at
    E(budgets[0]) of a fit to E(budgets[1]) predicts as a separate fit."""
    source, name, make = task
    data = make(seed)
    n_train = len(data[1])
    epochs = [epochs_for(S, n_train) for S in budgets]
    snapshots, _ = fit_checkpoints(data, gate, seed, epochs)
    alone = GatedAttentionClassifier(
        gate=gate, max_epochs=epochs[0], token_dim=data[4], random_state=seed
    ).fit(data[0], data[1])
    if not np.array_equal(snapshots[epochs[0]][0], alone.predict(data[2])):
        sys.exit(
            f"{name}: epoch {epochs[0]} of a longer fit is not a fit of "
            f"{epochs[0]} epochs; this script's shortcut does not hold"
        )
    log(
        f"check: {name} ({source}), {gate}, seed {seed}: epoch {epochs[0]} of a "
        f"{epochs[1]}-epoch fit predicts as a {epochs[0]}-epoch fit"
    )


# -- the run -------------------------------------------------------------------


def read_rows(path):
    if path.exists():
        return pd.read_csv(path)
    return pd.DataFrame(columns=COLUMNS)


def run(args):
    torch.set_num_threads(1)
    path = args.out / "DEFAULTS.csv"
    if args.fresh and path.exists():
        path.unlink()
    done = read_rows(path)
    finished = set(zip(done["dataset"], done["gate"], done["seed"], strict=True))
    chosen = tasks(args.keel, args.datasets)
    if not args.no_check:  # also warms torch up before the first timed fit
        check_equivalence(tasks(args.keel)[0])  # copied tokens
        check_equivalence(tasks(args.keel, ["ItalyPowerDemand"])[0])  # a sequence
    units = [(t, g, s) for t in chosen for s in range(args.seeds) for g in GATES]
    todo = [u for u in units if (u[0][1], u[1], u[2]) not in finished]
    log(f"{len(units)} fits, {len(units) - len(todo)} already in {path}")
    start, data_key, data = time.perf_counter(), None, None
    for k, ((source, name, make), gate, seed) in enumerate(todo, 1):
        if data_key != (name, seed):
            data_key, data = (name, seed), make(seed)
        n_train, n_test = len(data[1]), len(data[3])
        epochs = {S: epochs_for(S, n_train) for S in args.budgets}
        snapshots, wall = fit_checkpoints(data, gate, seed, list(epochs.values()))
        rows = []
        for S, e in epochs.items():
            predictions, seconds = snapshots[e]
            rows.append(
                {
                    "source": source,
                    "dataset": name,
                    "n_train": n_train,
                    "n_test": n_test,
                    "tokens": "copied" if data[4] is None else "sequence",
                    "token_dim": data[4] or "",
                    "gate": gate,
                    "seed": seed,
                    "S": S,
                    "epochs": e,
                    "steps": steps_for(e, n_train),
                    "accuracy": float(np.mean(predictions == data[3])),
                    "fit_seconds": round(seconds, 4),
                    "run_seconds": round(wall, 4),
                }
            )
        frame = pd.DataFrame(rows, columns=COLUMNS)
        frame.to_csv(path, mode="a", header=not path.exists(), index=False)
        elapsed = time.perf_counter() - start
        accuracies = " ".join(f"{r['S']}:{r['accuracy']:.3f}" for r in rows)
        log(
            f"{k}/{len(todo)} {name} n_train={n_train} {gate} seed {seed}: "
            f"accuracy by S {accuracies}; {wall:.1f} s, {elapsed / 60:.1f} min "
            f"so far, about {elapsed / k * (len(todo) - k) / 60:.1f} min to go"
        )


# -- DEFAULTS.md -----------------------------------------------------------------


def _table(frame, fmt="{:.3f}"):
    """A DataFrame as a Markdown table (index as the first column)."""
    head = [frame.index.name or ""] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for index, row in frame.iterrows():
        cells = [fmt.format(v) if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join([str(index), *cells]) + " |")
    return "\n".join(lines)


def summarise(rows):
    """Per dataset and S: mean accuracy over gates and seeds, summed seconds."""
    rows = rows.assign(group=rows["n_train"].map(group_of))
    per_dataset = (
        rows.groupby(["group", "dataset", "S"])
        .agg(
            accuracy=("accuracy", "mean"),
            seconds=("fit_seconds", "sum"),
            n_train=("n_train", "first"),
            epochs=("epochs", "first"),
        )
        .reset_index()
    )
    best = per_dataset.groupby("dataset")["accuracy"].transform("max")
    per_dataset["near_best"] = per_dataset["accuracy"] >= best - SHARE_WITHIN - 1e-12
    return rows, per_dataset


def by_group(per_dataset, budgets):
    accuracy = per_dataset.pivot_table("accuracy", "group", "S", aggfunc="mean")
    seconds = per_dataset.pivot_table("seconds", "group", "S", aggfunc="sum")
    ratio = seconds.div(seconds[0], axis=0)
    share = per_dataset.pivot_table("near_best", "group", "S", aggfunc="mean")
    count = per_dataset.groupby("group")["dataset"].nunique()
    order = [g for g in GROUPS if g in accuracy.index]
    return (
        accuracy.loc[order, list(budgets)],
        ratio.loc[order, list(budgets)],
        share.loc[order, list(budgets)],
        count.loc[order],
    )


def choice(accuracy, ratio, share, rows, budgets):
    """The smallest S within CHOICE_WITHIN of the best candidate on small sets."""
    small = GROUPS[0]
    if small not in accuracy.index:
        return "No data set has fewer than 200 training rows: no choice is made."
    acc = accuracy.loc[small]
    best = acc.idxmax()
    chosen = min(S for S in budgets if acc[S] >= acc[best] - CHOICE_WITHIN - 1e-12)
    seeds = rows[rows["n_train"].map(group_of) == small]
    spread = seeds.pivot_table("accuracy", "S", "seed", aggfunc="mean")
    spread = float((spread.max(axis=1) - spread.min(axis=1)).max())
    if seeds["seed"].nunique() < 2:
        noise = "One seed: this run does not measure seed-to-seed variation."
    else:
        noise = (
            f"The seeds' mean accuracies on the small sets differ by up to "
            f"{spread:.3f} at one S, so differences between candidates smaller "
            f"than that are not resolved by this run."
        )
    text = [
        f"On the small sets, mean accuracy (over datasets, gates and seeds) was "
        f"{acc[0]:.3f} at S=0 (today's 20 epochs) and highest at S={best} "
        f"({acc[best]:.3f}). The smallest candidate within {CHOICE_WITHIN} of "
        f"it is **S={chosen}** ({acc[chosen]:.3f}, {acc[chosen] - acc[0]:+.3f} "
        f"against S=0)."
    ]
    parts = []
    for group in accuracy.index:
        parts.append(
            f"{group.split(' ')[0]} sets {ratio.loc[group, chosen]:.2f} times "
            f"(accuracy {accuracy.loc[group, chosen]:.3f} against "
            f"{accuracy.loc[group, 0]:.3f} at S=0)"
        )
    text.append(
        "Its fits took, in total seconds against S=0 in the same run: "
        + "; ".join(parts)
        + "."
    )
    for group in accuracy.index[1:]:
        if share.loc[group, chosen] < share.loc[group, 0]:
            text.append(
                f"On the {group.split(' ')[0]} sets it was within {SHARE_WITHIN} "
                f"of the dataset's best candidate on fewer datasets than S=0 "
                f"({share.loc[group, chosen]:.2f} of them against "
                f"{share.loc[group, 0]:.2f}): there, the longer training helps "
                f"some datasets and hurts others (the last table)."
            )
    text.append(noise)
    return " ".join(text)


def unchanged_sentence(budgets):
    """From the formula alone: from which n_train on each S gives 20 epochs."""
    parts = []
    for S in budgets:
        if S == 0:
            continue
        n = BATCH * (math.ceil(S / LEAST_EPOCHS) - 1) + 1
        parts.append(f"S={S} from n_train = {n}")
    fifty = ", ".join(str(epochs_for(S, 50_000)) for S in budgets)
    return (
        f"By the formula (batch {BATCH}), a candidate gives today's "
        f"{LEAST_EPOCHS} epochs, and so the same fit as today, once "
        f"ceil(n_train / {BATCH}) * {LEAST_EPOCHS} >= S: "
        + ", ".join(parts)
        + f". At n_train = 50,000 the candidates give {fifty} epochs."
    )


def keel_selection(present):
    """Which of bench_keel's sets the run has, in words."""
    everything, subset = keel_names("all"), keel_names("subset")
    if set(present) == set(everything):
        return f"all {len(everything)} of bench_keel.py's"
    left_out = sorted(set(everything) - set(present))
    what = (
        f"bench_keel.py's sets of fewer than {SUBSET_ROWS} rows and its "
        f"{SUBSET_LARGEST} largest"
        if set(present) == set(subset)
        else f"{len(present)} of bench_keel.py's {len(everything)}"
    )
    why = " to keep the run short" if set(present) == set(subset) else ""
    return f"{what}; left out{why}: {', '.join(left_out)}"


def render(out, budgets):
    rows = read_rows(out / "DEFAULTS.csv")
    if rows.empty:
        sys.exit(f"{out / 'DEFAULTS.csv'} has no rows: run the benchmark first")
    budgets = [S for S in budgets if S in set(rows["S"])]
    rows, per_dataset = summarise(rows)
    accuracy, ratio, share, count = by_group(per_dataset, budgets)
    accuracy.index = pd.Index(
        [f"{g} ({count[g]} sets)" for g in accuracy.index], name="group"
    )
    n_fits = rows.groupby(["dataset", "gate", "seed"]).ngroups
    run_seconds = rows.groupby(["dataset", "gate", "seed"])["run_seconds"].first()
    keel = sorted(set(rows.loc[rows["source"] == "keel", "dataset"]))
    aeon = sorted(set(rows.loc[rows["source"] == "aeon", "dataset"]))
    small = rows[rows["n_train"].map(group_of) == GROUPS[0]]
    by_gate = small.pivot_table("accuracy", "gate", "S", aggfunc="mean")
    datasets = per_dataset.pivot_table("accuracy", ["dataset"], "S")
    datasets.insert(0, "n_train", per_dataset.groupby("dataset")["n_train"].first())
    datasets = datasets.sort_values("n_train")
    datasets["n_train"] = datasets["n_train"].astype(int)
    epochs = per_dataset.pivot_table("epochs", "dataset", "S").loc[datasets.index]
    datasets.insert(
        1,
        "epochs by S",
        ["/".join(str(int(e)) for e in row) for _, row in epochs.iterrows()],
    )
    lines = [
        "# Defaults that learn: a budget of optimizer steps",
        "",
        "Written by `python benchmarks/bench_defaults.py` from "
        "`results/DEFAULTS.csv` (issue 49, item 5). A candidate S sets "
        f"`max_epochs = max({LEAST_EPOCHS}, ceil(S / ceil(n_train / {BATCH})))`; "
        f"S=0 is today's {LEAST_EPOCHS} epochs. Everything else is the "
        "estimator's default (lr 2e-3, batch 64, AdamW). Accuracy is on the "
        "held-out part: KEEL, one stratified 70/30 split per seed, copied "
        "tokens; aeon, the archive's test split, series as sequences of at "
        f"most {MAX_TOKENS} tokens. Gates {', '.join(GATES)}; seeds "
        f"{', '.join(str(s) for s in sorted(set(rows['seed'])))}.",
        "",
        f"Datasets: {len(keel)} KEEL ({', '.join(keel)}; {keel_selection(keel)}) "
        f"and {len(aeon)} aeon ({', '.join(aeon)}). {n_fits} fits, each "
        "trained once to its largest "
        "E(S) and scored at every E(S) (see the script's docstring); "
        f"{run_seconds.sum() / 60:.1f} min of fitting and scoring in all, one "
        "process, one torch thread (the machine was shared with other work, "
        "so seconds are noisy).",
        "",
        "## Accuracy by S",
        "",
        "Mean over datasets, gates and seeds.",
        "",
        _table(accuracy),
        "",
        "## Fit time against S=0",
        "",
        "Total fit seconds of the group at S over its total at S=0, same run.",
        "",
        _table(ratio, "{:.2f}"),
        "",
        unchanged_sentence(budgets),
        "",
        f"## Share of datasets within {SHARE_WITHIN} of their best S",
        "",
        "Per dataset, accuracy averaged over gates and seeds; the share of the "
        f"group's datasets whose accuracy at S is within {SHARE_WITHIN} of the "
        "best candidate's.",
        "",
        _table(share, "{:.2f}"),
        "",
        "## Small sets by gate",
        "",
        f"Mean accuracy over the {count.get(GROUPS[0], 0)} small sets and seeds.",
        "",
        _table(by_gate),
        "",
        "## Choice",
        "",
        choice(accuracy.set_axis(list(count.index)), ratio, share, rows, budgets),
        "",
        "## Every dataset",
        "",
        "Mean accuracy over gates and seeds; epochs at each S, in order "
        f"{'/'.join(str(S) for S in budgets)}.",
        "",
        _table(datasets),
        "",
    ]
    (out / "DEFAULTS.md").write_text("\n".join(lines))
    log(f"wrote {out / 'DEFAULTS.md'}")


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    parser.add_argument("--seeds", type=int, default=SEEDS)
    parser.add_argument(
        "--keel",
        choices=["all", "subset"],
        default="subset",
        help="all 43 sets, or those of < 2000 rows and the 3 largest",
    )
    parser.add_argument("--datasets", nargs="+", help="only these, by name")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--fresh", action="store_true", help="drop the CSV's rows")
    parser.add_argument(
        "--no-check",
        action="store_true",
        help="skip the start-up check of the one-fit shortcut",
    )
    parser.add_argument(
        "--render", action="store_true", help="only write DEFAULTS.md from DEFAULTS.csv"
    )
    args = parser.parse_args(argv)
    if 0 not in args.budgets:
        parser.error("--budgets needs 0 (today's default), the time ratios' base")
    return args


def main(argv=None):
    args = parse(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.render:
        run(args)
    render(args.out, args.budgets)


if __name__ == "__main__":
    main()

"""What closing the gap to MiniRocket would cost: the strong design made
wider, deeper and trained longer, on the three sets where it trails
MiniRocket most; and what the narrower network that meets the issue's speed
goal (one fit of ACSF1 on two cores in 30 s) does to accuracy.

SEQUENCES.md measured the best gate at its defaults (SiLU) 0.113 below
MiniRocket in mean accuracy, the multiplicative gate 0.119, and OSULeaf,
ArrowHead and PickupGestureWiimoteZ make up most of that gap. This probe
asks whether the strong design reaches MiniRocket there when it is given
more capacity (``d_model``: the convolutional stem is ``d_model / 4``
channels wide, at least 8, the tokens ``d_model``), more blocks
(``depth``) or more optimizer steps (``max_epochs`` a multiple of what
"auto" gives), and what each costs in fit time; and, the other way, what a
narrower network (``d_model`` 32: an 8-channel stem, about half the
defaults' cost on long series) does to accuracy, beside one fit of each on
ACSF1's training part on two threads. The multiplicative gate only; each
fit seeded by its split; one thread per fit. MiniRocket's accuracy and fit
time on the same splits come from the committed SEQUENCES.md run
(``sequences_scores.csv``).

Writes benchmarks/results/FRONTIER.md, frontier.csv, frontier_run.json
(the commit, a second fit of each configuration: the same accuracy?, and
the timed fits)
and fig_frontier.png;
a finished fit is kept in frontier.csv as it ends, so a run started again
trains only what is missing.

    python benchmarks/frontier_sequences.py [--splits 3] [--n-jobs 2] [--render]
"""

import os

for _name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import collections  # noqa: E402
import functools  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import bench_sequences as bench  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "results"
CSV = OUT / "frontier.csv"
RECORD = OUT / "frontier_run.json"
#: The splits bench_sequences.py runs (the archive's and 9 resamples).
SPLITS = bench.FULL["n_splits"]
DATASETS = ("ArrowHead", "OSULeaf", "PickupGestureWiimoteZ")
#: (label, d_model, multiple of the default steps, depth), the defaults
#: first.
CONFIGS = (
    ("defaults", 64, 1, 1),
    ("d_model 32", 32, 1, 1),
    ("4x steps", 64, 4, 1),
    ("d_model 128", 128, 1, 1),
    ("d_model 128, 4x steps", 128, 4, 1),
    ("d_model 256", 256, 1, 1),
    ("depth 2", 64, 1, 2),
    ("depth 3", 64, 1, 3),
)
#: The configurations' labels, in order.
LABELS = tuple(label for label, *_ in CONFIGS)
GATE = "multiplicative"


def unit(name, split, label, d_model, steps, depth):
    """One fit of the multiplicative gate in the strong design."""
    import torch

    from skgate import GatedAttentionClassifier
    from skgate._engine.plan import planned_epochs

    torch.set_num_threads(1)
    X_train, y_train, X_test, y_test = bench.normalised(bench.split_data(name, split))
    model = GatedAttentionClassifier(
        gate=GATE, d_model=d_model, depth=depth, random_state=split
    )
    epochs = steps * planned_epochs("auto", len(y_train), model.batch_size)
    model.set_params(max_epochs=epochs)
    start = time.perf_counter()
    model.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    X_fit = bench.fitting(model, X_test)[0]
    row = {
        "dataset": name,
        "split": split,
        "model": label,
        "d_model": d_model,
        "steps multiple": steps,
        "epochs": model.n_iter_,
        "accuracy": float(np.mean(model.predict(X_fit) == y_test)),
        "fit_seconds": seconds,
    }
    print(
        f"{name} split {split} {label}: accuracy {row['accuracy']:.3f}, "
        f"{seconds:.1f} s",
        flush=True,
    )
    return row


def train(splits, n_jobs):
    done = pd.read_csv(CSV) if CSV.exists() else pd.DataFrame()
    have = set()
    if len(done):
        have = set(zip(done.dataset, done.split, done.model, strict=True))
    jobs = [
        (name, split, *config)
        for config in CONFIGS
        for split in range(splits)
        for name in DATASETS
        if (name, split, config[0]) not in have
    ]
    print(f"{len(have)} fits done, {len(jobs)} to run on {n_jobs} processes")
    # Unordered: each fit is written when it ends, not behind a longer one
    # submitted earlier.
    fits = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
        delayed(unit)(*job) for job in jobs
    )
    for row in fits:
        done = pd.concat([done, pd.DataFrame([row])], ignore_index=True)
        # Resumable: each fit as it ends, the file replaced whole (an
        # interruption leaves the previous one).
        partial = CSV.with_suffix(".csv.partial")
        done.to_csv(partial, index=False)
        os.replace(partial, CSV)
    return done


@functools.cache
def _committed_scores():
    """The committed SEQUENCES.md run's scores, read once (MiniRocket's rows
    and the defaults' twins come from them)."""
    return pd.read_csv(OUT / "sequences_scores.csv")


def minirocket(splits):
    """The committed run's MiniRocket on the same splits of the same sets."""
    scores = _committed_scores()
    keep = (
        (scores.model == "MiniRocket")
        & (scores.split < splits)
        & scores.dataset.isin(DATASETS)
    )
    return scores[keep][["dataset", "split", "model", "accuracy", "fit_seconds"]]


def _standard_error(fits, label):
    """The standard error of ``label``'s change against the defaults over
    the paired fits (dataset and split)."""
    change = fits[label] - fits["defaults"]
    return change.std(ddof=1) / np.sqrt(len(change))


def bottom_line(means, seconds, fits=None):
    """The page's summary, every number read from the tables: each
    configuration's mean accuracy change and fit-time multiple against the
    defaults (with ``fits``, the accuracy per dataset and split, the change's
    standard error over those paired fits), and how far the best one by mean
    accuracy stays from MiniRocket."""
    configs = list(LABELS)
    accuracy, cost = means[configs].mean(), seconds[configs].mean()
    reference = means["MiniRocket"].mean()

    def change(label):
        text = f"{accuracy[label] - accuracy['defaults']:+.3f}"
        if fits is None:
            return text
        return f"{text} ± {_standard_error(fits, label):.3f}"

    changes = "; ".join(
        f"{label} {change(label)} at "
        f"{cost[label] / cost['defaults']:.1f} times the fit time"
        for label in configs[1:]
    )
    best = accuracy.idxmax()
    distance = round(reference - accuracy[best], 3)
    where = (
        f"stays {distance:.3f} below it"
        if distance > 0
        else f"reaches it (+{abs(distance):.3f})"
    )
    paired = (
        ""
        if fits is None
        else f" (± the standard error over the {len(fits)} paired fits, "
        f"dataset and split)"
    )
    return (
        f"On {', '.join(DATASETS)}, the multiplicative gate at the defaults "
        f"averages {accuracy['defaults']:.3f} accuracy against MiniRocket's "
        f"{reference:.3f} ({accuracy['defaults'] - reference:+.3f}). Against "
        f"the defaults' accuracy{paired}: {changes}. The best by mean "
        f"accuracy, {best}, {where} at "
        f"{cost[best] / cost['defaults']:.1f} times the defaults' fit time "
        f"({cost[best]:.0f} s per fit on one thread, against MiniRocket's "
        f"{seconds['MiniRocket'].mean():.1f} s)."
    )


def figure(means, seconds, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(DATASETS), figsize=(4 * len(DATASETS), 3.6))
    for ax, name in zip(axes, DATASETS, strict=True):
        for label in LABELS:
            ax.scatter(seconds.loc[name, label], means.loc[name, label], label=label)
        ax.axhline(
            means.loc[name, "MiniRocket"], color="k", ls="--", label="MiniRocket"
        )
        ax.set_xscale("log")
        ax.set_xticks([10, 20, 50, 100, 200, 500])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_title(name)
        ax.set_xlabel("fit seconds (one thread)")
    axes[0].set_ylabel("test accuracy (mean over splits)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)


#: The issue's largest set and its target for one fit on two cores.
TIMED, TARGET_SECONDS = "ACSF1", 30.0
#: The configurations timed on it (one fit each, two threads).
TIMED_CONFIGS = ("defaults", "d_model 32")


def timed_fits(threads=2):
    """Seconds of one fit of each of :data:`TIMED_CONFIGS` on ``TIMED``'s
    training part (the archive's split), on ``threads`` torch threads, one
    after another in this process."""
    import torch

    from skgate import GatedAttentionClassifier

    X, y, _, _ = bench.normalised(bench.split_data(TIMED, 0))
    d_models = {label: d_model for label, d_model, *_ in CONFIGS}
    torch.set_num_threads(threads)
    seconds = {}
    for label in TIMED_CONFIGS:
        model = GatedAttentionClassifier(
            gate=GATE, d_model=d_models[label], random_state=0
        )
        start = time.perf_counter()
        model.fit(X, y)
        seconds[label] = time.perf_counter() - start
    torch.set_num_threads(1)
    return {"threads": threads, "n_train": len(y), "seconds": seconds}


def speed_line(means, record, fits=None):
    """The issue's speed target beside what the cheaper configuration does
    to accuracy: the timed fits' seconds, and that configuration's mean
    accuracy change on the three sets (with ``fits``, its standard error
    over the paired fits)."""
    timing = record["timed"]
    cheap = TIMED_CONFIGS[1]
    seconds = {label: round(value, 1) for label, value in timing["seconds"].items()}
    change = f"{means[cheap].mean() - means['defaults'].mean():+.3f}"
    if fits is not None:
        error = _standard_error(fits, cheap)
        change += f" ± {error:.3f} (the standard error over the paired fits)"
    met = [label for label in TIMED_CONFIGS if seconds[label] <= TARGET_SECONDS]
    goal = (
        f"the goal of {TARGET_SECONDS:.0f} s for one fit of the largest set "
        f"on two cores"
    )
    verdict = (
        f"{goal} is met by {met[0]} alone"
        if len(met) == 1
        else f"{goal} is met by {'both' if met else 'neither'}"
    )
    return (
        f"One fit of {TIMED}'s training part ({timing['n_train']} series) on "
        f"{timing['threads']} threads took {seconds['defaults']:.1f} s at the "
        f"defaults and {seconds[cheap]:.1f} s with {cheap}: {verdict}. On the "
        f"three sets above, {cheap} changes the mean accuracy by {change} "
        f"against the defaults; its accuracy on {TIMED} was not measured."
    )


def _complete(frame, models, splits, what):
    """Refuse ``frame`` unless it holds each of ``models`` on every dataset
    and split below ``splits`` exactly once, with a finite accuracy and fit
    time: a page drawn from part of a run would compare means over
    different fits."""
    want = {
        (name, split, model)
        for model in models
        for name in DATASETS
        for split in range(splits)
    }
    keys = list(zip(frame.dataset, frame.split, frame.model, strict=True))
    missing = sorted(want - set(keys))
    repeated = sorted(key for key, n in collections.Counter(keys).items() if n > 1)
    values = frame[["accuracy", "fit_seconds"]].to_numpy(dtype=float)
    broken = [
        key for key, row in zip(keys, values, strict=True) if not np.isfinite(row).all()
    ]
    for problem, found in (
        ("lacks", missing),
        ("repeats", repeated),
        ("has no finite accuracy or fit time for", broken),
    ):
        if found:
            shown = ", ".join(str(key) for key in found[:4])
            more = f" and {len(found) - 4} more" if len(found) > 4 else ""
            raise ValueError(
                f"{what} {problem} {len(found)} of the (dataset, split, model) "
                f"fits splits 0 to {splits - 1} need: {shown}{more}"
            )


def tables(frame, splits):
    """Mean accuracy and fit seconds per dataset (rows) and model (columns:
    the configurations in order, then MiniRocket) over splits 0 to
    ``splits - 1``, and each configuration's accuracy per dataset and split
    (rows), for paired comparisons. ValueError unless every fit is there
    once."""
    configs = list(LABELS)
    frame = frame[frame.split < splits]
    _complete(frame, configs, splits, CSV.name)
    rocket = minirocket(splits)
    _complete(rocket, ["MiniRocket"], splits, "sequences_scores.csv's MiniRocket")
    table = pd.concat([frame, rocket])
    order = [*configs, "MiniRocket"]
    means = table.pivot_table(index="dataset", columns="model", values="accuracy")
    seconds = table.pivot_table(index="dataset", columns="model", values="fit_seconds")
    fits = frame.pivot(index=["dataset", "split"], columns="model", values="accuracy")
    return means[order], seconds[order], fits[configs]


def timing_note(frame, splits):
    """How far the defaults' fit times here are from the same fits' in the
    committed SEQUENCES.md run (the same accuracy, fit for fit): the spread
    that fit times on a shared machine have."""
    scores = _committed_scores()
    theirs = scores[scores.model == "multiplicative (strong)"]
    ours = frame[(frame.model == "defaults") & (frame.split < splits)]
    both = ours.merge(theirs, on=["dataset", "split"], suffixes=("", " committed"))
    same = int((both["accuracy"] == both["accuracy committed"]).sum())
    spread = (both["fit_seconds"] / both["fit_seconds committed"] - 1).abs().max()
    return (
        f"The defaults' {len(both)} fits give the committed SEQUENCES.md run's "
        f"accuracy on the same splits in {same} of {len(both)}, and their fit "
        f"times differ from its by up to {100 * spread:.0f} %: the fits here "
        f"were trained by several calls of this script on a machine shared "
        f"with other work, so the fit-time multiples are rough."
    )


def check(frame, n_jobs):
    """Each configuration's fit on the cheapest set's split 0 trained again
    by this code: whether it gives the stored accuracy (fits of a resumed
    run may come from earlier calls, at other commits)."""
    name = DATASETS[0]
    again = Parallel(n_jobs=n_jobs)(
        delayed(unit)(name, 0, *config) for config in CONFIGS
    )
    stored = frame[(frame.dataset == name) & (frame.split == 0)]
    stored = stored.set_index("model").accuracy
    return {
        row["model"]: bool(row["accuracy"] == stored[row["model"]]) for row in again
    }


def render(frame, splits, n_jobs, record, out=OUT):
    """FRONTIER.md and its figure, written into ``out``, from the fits
    ``frame`` and the run's ``record``; returns the page."""
    means, seconds, fits = tables(frame, splits)
    gap = means.iloc[:, :-1].sub(means["MiniRocket"], axis=0)
    shown, shown_seconds = means.copy(), seconds.copy()
    shown.loc["mean"] = means.mean()
    shown_seconds.loc["mean"] = seconds.mean()
    gap.loc["mean"] = gap.mean()
    figure(means, seconds, out / "fig_frontier.png")
    differ = [label for label, ok in record["check"].items() if not ok]
    checked = (
        f"a second fit of each configuration on {DATASETS[0]}'s split 0 by "
        f"this commit gave the stored accuracy in "
        f"{len(record['check']) - len(differ)} of {len(record['check'])}"
        + (f" (not: {', '.join(differ)})" if differ else "")
    )
    which = "split 0" if splits == 1 else f"splits 0 to {splits - 1}"
    text = [
        "# What closing the gap to MiniRocket would cost",
        "",
        f"Generated by `python benchmarks/frontier_sequences.py --splits "
        f"{splits} --n-jobs {n_jobs}` at commit {record['commit']} (tree "
        f"clean: {record['clean']}; the run is resumable, and {checked}); "
        f"data: `frontier.csv`. The multiplicative gate in the strong design "
        f"(the series defaults), on {which} of "
        f"bench_sequences.py, each fit seeded by its split, one thread per "
        f"fit, {n_jobs} fits at a time. 'd_model 32', 'd_model 128' and "
        f"'d_model 256' halve, double and quadruple the token width and the "
        f"convolutional stem's channels (d_model / 4, at least 8: 16 at the "
        f"defaults, 8, 32 and 64 there); 'Nx "
        f"steps' trains N times the epochs 'auto' gives (500 optimizer steps, "
        f"at least 20 epochs); 'depth N' stacks N blocks (the defaults: 1). "
        f"MiniRocket: the committed SEQUENCES.md run on "
        f"the same splits (aeon's MiniRocketClassifier, one thread).",
        "",
        "## Bottom line",
        "",
        bottom_line(means, seconds, fits),
        "",
        "## The speed target",
        "",
        speed_line(means, record, fits),
        "",
        "## Mean test accuracy over the splits",
        "",
        shown.round(3).to_markdown(),
        "",
        "## Accuracy minus MiniRocket's",
        "",
        gap.round(3).to_markdown(),
        "",
        "## Mean fit seconds (one thread)",
        "",
        timing_note(frame, splits),
        "",
        shown_seconds.round(1).to_markdown(),
        "",
        "![accuracy against fit time](fig_frontier.png)",
        "",
    ]
    (out / "FRONTIER.md").write_text("\n".join(text))
    return "\n".join(text)


def parse(argv=None):
    """The command's arguments, checked: splits 1 to the benchmark's 10,
    at least one process; ``--render`` redraws the recorded run, so it
    takes neither (they come from frontier_run.json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=None, help="default 3")
    parser.add_argument("--n-jobs", type=int, default=None, help="default 2")
    parser.add_argument(
        "--render",
        action="store_true",
        help="rewrite the page and figure from frontier.csv and "
        "frontier_run.json (no fits)",
    )
    args = parser.parse_args(argv)
    if args.render:
        if args.splits is not None or args.n_jobs is not None:
            parser.error(
                "--render redraws the recorded run: its splits and n_jobs come "
                "from frontier_run.json, so it takes no --splits or --n-jobs"
            )
        for path in (CSV, RECORD):
            if not path.exists():
                parser.error(f"--render needs {path}, which does not exist")
        return args
    args.splits = 3 if args.splits is None else args.splits
    args.n_jobs = 2 if args.n_jobs is None else args.n_jobs
    if not 1 <= args.splits <= SPLITS:
        parser.error(f"--splits must be 1 to {SPLITS}, got {args.splits}")
    if args.n_jobs < 1:
        parser.error(f"--n-jobs must be at least 1, got {args.n_jobs}")
    return args


#: What a run's record holds (``--render`` refuses a record without them).
RECORD_KEYS = ("commit", "clean", "splits", "n_jobs", "check", "timed")


def _recorded():
    """The committed run: its fits and its record, or the reason they cannot
    be drawn."""
    try:
        record = json.loads(RECORD.read_text())
        frame = pd.read_csv(CSV)
    except (json.JSONDecodeError, pd.errors.EmptyDataError) as error:
        raise ValueError(
            f"{RECORD.name} or {CSV.name} is unreadable: {error}"
        ) from None
    missing = [key for key in RECORD_KEYS if key not in record]
    if missing:
        raise ValueError(
            f"{RECORD.name} lacks {', '.join(missing)}: it is not a record this "
            f"script writes; rerun it to make one"
        )
    return frame, record


def _write_record(record):
    """frontier_run.json replaced whole (an interruption leaves the old one)."""
    partial = RECORD.with_suffix(".json.partial")
    partial.write_text(json.dumps(record, indent=2) + "\n")
    os.replace(partial, RECORD)


def main(argv=None):
    args = parse(argv)
    try:
        if args.render:
            frame, record = _recorded()
            print(render(frame, record["splits"], record["n_jobs"], record))
            return
        # What the page needs besides the fits, checked before an hour of them.
        _complete(minirocket(args.splits), ["MiniRocket"], args.splits, "MiniRocket")
        bench.pooled(TIMED)
    except ValueError as error:
        sys.exit(f"frontier_sequences.py: {error}")
    record = {**bench.commit(), "splits": args.splits, "n_jobs": args.n_jobs}
    frame = train(args.splits, args.n_jobs)
    record["check"] = check(frame, args.n_jobs)
    record["timed"] = timed_fits()
    _write_record(record)
    print(render(frame, args.splits, args.n_jobs, record))


if __name__ == "__main__":
    main()

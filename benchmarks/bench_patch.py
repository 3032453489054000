"""Tokens per series: accuracy, time and memory of the patch size, measured.

Run: ``python benchmarks/bench_patch.py [--skip ACSF1:256] [--report-only]``

Issue 49: ``patch_size="auto"`` keeps the longest series within
``skgate._series.MAX_TOKENS`` tokens. This script measures what that cap
buys and costs. On four long univariate UCR sets shipped in aeon's wheel
(ACSF1, OSULeaf, ArrowHead, GunPoint; the archive's train/test split), each
series z-normalised on its own (per channel, population standard deviation,
as the UCR archive does: no statistics cross from the training part to the
test part), ``GatedAttentionClassifier(patch_size=ceil(T / cap),
max_epochs=100, gate=..., random_state=seed)`` is fitted with every other
parameter at its default, for caps of 16, 32, 64, 128 and 256 tokens, gates
"multiplicative" and "none", seeds 0 and 1.

Every fit runs in a fresh child process (this script with ``--child``), one
torch thread, so that its peak resident memory is its own: the child reads
``ru_maxrss`` after its imports (and a fit of 4 tiny series, which does
skgate's lazy imports and torch's first-use set-up) and data loading, and
again right after the fit; the difference is the fit's peak extra memory. Beside
it, attention's own memory is extrapolated (three float32 tensors of batch x
heads x tokens^2: the softmax weights kept for the backward pass, their
gradient and the scores' gradient), at the batch the fit used and at 64.

Resumable: finished fits are rows of ``results/PATCH.csv`` and are skipped
on a rerun; ``PATCH.md`` is generated from that CSV. Time and memory are
reported as ratios against the cap-64 fit of the same set, gate and seed in
the same run, so machine speed largely cancels.
"""

import argparse
import csv
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
SETS = ("ACSF1", "OSULeaf", "ArrowHead", "GunPoint")
CAPS = (16, 32, 64, 128, 256)
GATES = ("multiplicative", "none")
SEEDS = (0, 1)
MAX_EPOCHS = 100
REFERENCE = 64  # the library's MAX_TOKENS when this was written
WITHIN = 0.01  # "as accurate": mean accuracy within this of the best cap's


def _library_cap():
    """The cap ``patch_size='auto'`` uses now (skgate._series.MAX_TOKENS)."""
    from skgate._series import MAX_TOKENS

    return MAX_TOKENS


FIELDS = (
    "dataset",
    "n_train",
    "n_test",
    "n_timepoints",
    "cap",
    "patch_size",
    "n_tokens",
    "gate",
    "seed",
    "max_epochs",
    "batch_rows",
    "accuracy",
    "fit_seconds",
    "epoch_seconds",
    "epochs",
    "baseline_mb",
    "peak_mb",
    "fit_extra_mb",
    "attention_mb",
    "attention_mb_b64",
    "child_seconds",
)


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def attention_mb(batch, n_heads, n_tokens, depth=1):
    """Three float32 tensors of (batch, heads, tokens, tokens) per block."""
    return 3 * 4 * batch * n_heads * n_tokens**2 * depth / 2**20


# -- the child: one fit in a fresh process -------------------------------------


def child(spec):
    """Fit one model as ``spec`` says; print one JSON line of measurements."""
    start = time.perf_counter()
    import resource

    import numpy as np
    import torch

    from skgate import GatedAttentionClassifier

    torch.set_num_threads(1)
    # skgate imports torch's and skorch's machinery at the first fit: a fit
    # of 4 tiny series does it here, so that neither time nor memory of the
    # measured fit holds it (its own memory is a few MB, below the baseline).
    tiny = np.arange(24.0).reshape(4, 1, 6)
    GatedAttentionClassifier(patch_size=2, max_epochs=1).fit(tiny, [0, 1, 0, 1])
    data = np.load(spec["data"], allow_pickle=False)
    X_train, y_train = data["X_train"], data["y_train"]
    X_test, y_test = data["X_test"], data["y_test"]
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    clf = GatedAttentionClassifier(
        gate=spec["gate"],
        patch_size=spec["patch_size"],
        max_epochs=spec["max_epochs"],
        random_state=spec["seed"],
    )
    fit_start = time.perf_counter()
    clf.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - fit_start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # the fit's peak
    accuracy = float(clf.score(X_test, y_test))
    durations = [epoch["dur"] for epoch in clf.history_]
    layout = clf.series_layout_
    batch = min(clf.batch_size, len(X_train))
    print(
        json.dumps(
            {
                "patch_size": layout.patch_size,
                "n_tokens": layout.n_tokens,
                "batch_rows": batch,
                "accuracy": accuracy,
                "fit_seconds": fit_seconds,
                "epoch_seconds": sum(durations) / len(durations),
                "epochs": len(durations),
                "baseline_mb": baseline / 1024,
                "peak_mb": peak / 1024,
                "fit_extra_mb": (peak - baseline) / 1024,
                "attention_mb": attention_mb(
                    batch, clf.n_heads, layout.n_tokens, clf.depth
                ),
                "attention_mb_b64": attention_mb(
                    64, clf.n_heads, layout.n_tokens, clf.depth
                ),
                "child_seconds": time.perf_counter() - start,
            }
        )
    )


def run_child(spec):
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), env.get("PYTHONPATH")) if p
    )
    result = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(spec)],
        capture_output=True,
        text=True,
        env=env,
    )
    if result.returncode != 0:
        raise RuntimeError(f"child failed for {spec}:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


# -- the parent: data, the sweep, the cache ------------------------------------


def znormalise(X):
    """Each series and channel to mean 0 and (population) deviation 1."""
    mean = X.mean(axis=2, keepdims=True)
    std = X.std(axis=2, keepdims=True)
    return (X - mean) / (std + 1e-8 * (std == 0))


def prepare(name, directory):
    """The set's arrays in an .npz the children load (aeon loads once)."""
    import numpy as np
    from aeon.datasets import load_classification

    X_train, y_train = load_classification(name, split="train")
    X_test, y_test = load_classification(name, split="test")
    path = Path(directory) / f"{name}.npz"
    np.savez(
        path,
        X_train=znormalise(np.asarray(X_train, dtype=np.float64)),
        y_train=np.asarray(y_train).astype(str),
        X_test=znormalise(np.asarray(X_test, dtype=np.float64)),
        y_test=np.asarray(y_test).astype(str),
    )
    return path, len(X_train), len(X_test), X_train.shape[2]


def key(row):
    return (
        row["dataset"],
        int(row["cap"]),
        row["gate"],
        int(row["seed"]),
        int(row["max_epochs"]),
    )


def read_rows(path):
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def append_row(path, row):
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)


def sweep(args, csv_path):
    done = {key(r) for r in read_rows(csv_path)}
    skip = {(s.split(":")[0], int(s.split(":")[1])) for s in args.skip}
    plan = [
        (name, seed, gate, cap)
        for name in args.sets
        for seed in args.seeds
        for gate in GATES
        for cap in args.caps  # caps innermost: load drift hits them alike
        if (name, cap) not in skip
    ]
    todo = [p for p in plan if (p[0], p[3], p[2], p[1], args.max_epochs) not in done]
    log(f"{len(plan)} fits planned, {len(plan) - len(todo)} cached, {len(todo)} to run")
    started, elapsed = time.perf_counter(), 0.0
    with tempfile.TemporaryDirectory() as tmp:
        prepared = {}
        for i, (name, seed, gate, cap) in enumerate(todo, 1):
            if name not in prepared:
                prepared[name] = prepare(name, tmp)
            path, n_train, n_test, length = prepared[name]
            patch_size = math.ceil(length / cap)
            spec = {
                "data": str(path),
                "gate": gate,
                "patch_size": patch_size,
                "max_epochs": args.max_epochs,
                "seed": seed,
            }
            result = run_child(spec)
            row = {
                "dataset": name,
                "n_train": n_train,
                "n_test": n_test,
                "n_timepoints": length,
                "cap": cap,
                "gate": gate,
                "seed": seed,
                "max_epochs": args.max_epochs,
                **result,
            }
            append_row(csv_path, {k: row[k] for k in FIELDS})
            elapsed = time.perf_counter() - started
            log(
                f"{i}/{len(todo)} {name} cap {cap} (patch {patch_size}, "
                f"{result['n_tokens']} tokens) {gate} seed {seed}: accuracy "
                f"{result['accuracy']:.3f}, fit {result['fit_seconds']:.1f} s, "
                f"+{result['fit_extra_mb']:.0f} MB; {elapsed:.0f} s so far"
            )
    return elapsed


# -- the report ------------------------------------------------------------------


def geomean(values):
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def summarise(rows, caps, sets):
    """Per cap, over ``sets``: mean accuracy, geometric-mean time and memory
    ratios against the cap-64 fit of the same set, gate and seed."""
    by_key = {(r["dataset"], int(r["cap"]), r["gate"], int(r["seed"])): r for r in rows}
    triples = sorted({(r["dataset"], r["gate"], int(r["seed"])) for r in rows})
    triples = [t for t in triples if t[0] in sets]
    out = {}
    for cap in caps:
        runs = [
            (by_key[(s, cap, g, sd)], by_key[(s, REFERENCE, g, sd)])
            for s, g, sd in triples
        ]
        acc = [float(r["accuracy"]) for r, _ in runs]
        out[cap] = {
            "n": len(runs),
            "accuracy": sum(acc) / len(acc),
            "accuracies": acc,
            "time_ratio": geomean(
                float(r["fit_seconds"]) / float(ref["fit_seconds"]) for r, ref in runs
            ),
            "memory_ratio": geomean(
                float(r["fit_extra_mb"]) / float(ref["fit_extra_mb"]) for r, ref in runs
            ),
            "fit_seconds": sum(float(r["fit_seconds"]) for r, _ in runs) / len(runs),
            "epoch_seconds": sum(float(r["epoch_seconds"]) for r, _ in runs)
            / len(runs),
            "extra_mb": sum(float(r["fit_extra_mb"]) for r, _ in runs) / len(runs),
            "attention_mb_b64": sum(float(r["attention_mb_b64"]) for r, _ in runs)
            / len(runs),
        }
    return out


def choose(summary):
    """The cap within WITHIN of the best mean accuracy whose time is lowest,
    and the paired standard error of each cap's accuracy against the best."""
    best = max(summary, key=lambda c: summary[c]["accuracy"])
    eligible = [
        c
        for c in summary
        if summary[c]["accuracy"] >= summary[best]["accuracy"] - WITHIN - 1e-12
    ]
    chosen = min(eligible, key=lambda c: summary[c]["time_ratio"])
    return best, eligible, chosen


def paired_se(a, b):
    d = [x - y for x, y in zip(a, b, strict=True)]
    if len(d) < 2:
        return math.nan
    mean = sum(d) / len(d)
    return math.sqrt(sum((x - mean) ** 2 for x in d) / (len(d) - 1) / len(d))


def choice_paragraph(summary, sets):
    best, eligible, chosen = choose(summary)
    s, ref = summary, summary.get(REFERENCE)
    caps_text = ", ".join(str(c) for c in sorted(eligible))
    text = [
        f"Over {', '.join(sets)} ({s[best]['n']} fits per cap): the most "
        f"accurate cap is {best} tokens (mean accuracy {s[best]['accuracy']:.3f}). "
        f"Within {WITHIN} of it: {caps_text}. Of those, cap {chosen} has the "
        f"lowest fit time (time ratio {s[chosen]['time_ratio']:.2f} against cap "
        f"{REFERENCE}, memory ratio {s[chosen]['memory_ratio']:.2f}), so the "
        f"measurement chooses **{chosen} tokens**."
    ]
    if ref is not None and chosen != REFERENCE:
        d_acc = ref["accuracy"] - s[chosen]["accuracy"]
        se = paired_se(ref["accuracies"], s[chosen]["accuracies"])
        text.append(
            f"The current constant, {REFERENCE}, costs "
            f"{1 / s[chosen]['time_ratio']:.2f}x the fit time and "
            f"{1 / s[chosen]['memory_ratio']:.2f}x the peak extra memory of cap "
            f"{chosen}, for an accuracy difference of {d_acc:+.3f} (paired "
            f"standard error {se:.3f} over {len(ref['accuracies'])} fits)."
        )
        if REFERENCE in eligible:
            text.append(
                f"Cap {REFERENCE} is also within {WITHIN} of the best, but "
                f"slower: by this rule MAX_TOKENS would change from {REFERENCE} to "
                f"{chosen}."
            )
        else:
            text.append(
                f"Cap {REFERENCE} is not within {WITHIN} of the best: by this "
                f"rule MAX_TOKENS would change from {REFERENCE} to {chosen}."
            )
        text.append(
            "(skgate/ is not changed by this script; the constant is the "
            f"maintainers' call: skgate now has MAX_TOKENS = {_library_cap()}.)"
        )
    elif ref is not None:
        text.append(
            f"That is the library's current constant (MAX_TOKENS = {REFERENCE}): "
            "the measurement confirms it."
        )
    # The 0.01 window against the noise of the accuracy differences.
    others = [c for c in s if c != best]
    ses = {c: paired_se(s[c]["accuracies"], s[best]["accuracies"]) for c in others}
    gaps = {c: s[best]["accuracy"] - s[c]["accuracy"] for c in others}
    text.append(
        f"Noise: the paired standard error of a cap's accuracy difference from "
        f"cap {best} is {min(ses.values()):.3f} to {max(ses.values()):.3f} "
        f"({s[best]['n']} paired fits), larger than the {WITHIN} window; "
        "differences from the best: "
        + ", ".join(
            f"cap {c} {gaps[c]:.3f} ({gaps[c] / ses[c]:.1f} SE)" for c in others
        )
        + "."
    )
    close = [best] + [c for c in others if gaps[c] <= 2 * ses[c]]
    fastest = min(close, key=lambda c: s[c]["time_ratio"])
    if fastest != chosen:
        text.append(
            f"Within two standard errors of the best are caps "
            f"{', '.join(str(c) for c in sorted(close))}; a rule that "
            f"tolerated that much would take the fastest of them, cap "
            f"{fastest} (time ratio {s[fastest]['time_ratio']:.2f} against "
            f"{REFERENCE}). Two seeds on four sets do not separate these caps' "
            "accuracy; what they do separate is time and memory."
        )
    return " ".join(text)


def cap_table(summary):
    lines = [
        f"| cap | fits | accuracy | fit s | s / epoch | time ratio to {REFERENCE} | "
        f"peak extra MB | memory ratio to {REFERENCE} | attention MB, batch 64 "
        "(extrapolated) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for cap, v in summary.items():
        lines.append(
            f"| {cap} | {v['n']} | {v['accuracy']:.3f} | {v['fit_seconds']:.1f} | "
            f"{v['epoch_seconds']:.3f} | {v['time_ratio']:.2f} | "
            f"{v['extra_mb']:.0f} | {v['memory_ratio']:.2f} | "
            f"{v['attention_mb_b64']:.1f} |"
        )
    return lines


def set_table(rows, name, caps):
    sub = [r for r in rows if r["dataset"] == name]
    first = sub[0]
    summary = summarise(
        sub, [c for c in caps if any(int(r["cap"]) == c for r in sub)], {name}
    )
    lines = [
        f"### {name} (T = {first['n_timepoints']}, {first['n_train']} train / "
        f"{first['n_test']} test rows, batch {first['batch_rows']})",
        "",
        f"| cap | patch | tokens | fits | accuracy | fit s | s / epoch | time "
        f"ratio to {REFERENCE} | peak extra MB | memory ratio to {REFERENCE} | "
        "attention MB at this batch / at 64 (extrapolated) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for cap, v in summary.items():
        r = next(r for r in sub if int(r["cap"]) == cap)
        lines.append(
            f"| {cap} | {r['patch_size']} | {r['n_tokens']} | {v['n']} | "
            f"{v['accuracy']:.3f} | {v['fit_seconds']:.1f} | "
            f"{v['epoch_seconds']:.3f} | {v['time_ratio']:.2f} | "
            f"{v['extra_mb']:.0f} | {v['memory_ratio']:.2f} | "
            f"{float(r['attention_mb']):.1f} / {float(r['attention_mb_b64']):.1f} |"
        )
    by_gate = {g: [float(r["accuracy"]) for r in sub if r["gate"] == g] for g in GATES}
    lines += [
        "",
        "Accuracy by gate (mean over caps and seeds): "
        + ", ".join(f"{g} {sum(a) / len(a):.3f}" for g, a in by_gate.items() if a)
        + ".",
        "",
    ]
    return lines


def memory_check(rows):
    """Measured extra memory growth against the extrapolated attention
    memory, from each set's smallest to its largest cap."""
    lines = []
    for name in SETS:
        sub = [r for r in rows if r["dataset"] == name]
        if not sub:
            continue
        caps = sorted({int(r["cap"]) for r in sub})
        lo, hi = caps[0], caps[-1]

        def mean(field, cap, sub=sub):
            vals = [float(r[field]) for r in sub if int(r["cap"]) == cap]
            return sum(vals) / len(vals)

        measured = mean("fit_extra_mb", hi) - mean("fit_extra_mb", lo)
        predicted = mean("attention_mb", hi) - mean("attention_mb", lo)
        below = caps[-2]
        exponent = math.log(
            mean("fit_extra_mb", hi) / mean("fit_extra_mb", below)
        ) / math.log(mean("n_tokens", hi) / mean("n_tokens", below))
        lines.append(
            f"| {name} | {lo} -> {hi} | {measured:.0f} | {predicted:.1f} | "
            f"{measured / predicted:.1f} | {exponent:.2f} | "
            f"{mean('attention_mb_b64', hi):.1f} |"
        )
    return [
        "| set | caps | measured growth of peak extra MB | attention's "
        "extrapolated growth, MB (this batch) | measured / extrapolated | "
        "exponent of peak extra MB in tokens, two largest caps | attention MB "
        "at the largest cap, batch 64 |",
        "|---|---|---|---|---|---|---|",
        *lines,
    ]


def report(rows, args, skipped):
    import numpy as np
    import torch

    caps = sorted({int(r["cap"]) for r in rows})
    sets = [s for s in SETS if any(r["dataset"] == s for r in rows)]
    complete = [
        s
        for s in sets
        if {int(r["cap"]) for r in rows if r["dataset"] == s} == set(caps)
    ]
    all_sets_caps = [
        c
        for c in caps
        if all(
            any(int(r["cap"]) == c and r["dataset"] == s for r in rows) for s in sets
        )
    ]
    total_fit = sum(float(r["fit_seconds"]) for r in rows)
    total_child = sum(float(r["child_seconds"]) for r in rows)
    lines = [
        "# Tokens per series: the patch size's accuracy, time and memory",
        "",
        "Generated by `python benchmarks/bench_patch.py` (issue 49) from "
        "`results/PATCH.csv`; "
        f"{platform.machine()}, Python {platform.python_version()}, torch "
        f"{torch.__version__}, numpy {np.__version__}, one torch thread per "
        "fit, one fit at a time, each in a fresh child process. The machine "
        "was shared with other work, so absolute seconds are noisy; ratios "
        "compare fits of the same set, gate and seed made minutes apart.",
        "",
        "Data: the UCR sets ACSF1, OSULeaf, ArrowHead and GunPoint as aeon "
        "ships them (`aeon.datasets.load_classification`, the archive's "
        "train/test split, nothing downloaded), each series z-normalised on "
        "its own (mean 0, population standard deviation 1, as the UCR archive "
        "does; no statistics shared between the training and the test part). "
        "Model: `GatedAttentionClassifier(patch_size=ceil(T / cap), "
        f"max_epochs={args.max_epochs}, gate=g, random_state=seed)`, every "
        f"other parameter at its default (batch 64, clipped to the training "
        f"rows); gates {', '.join(GATES)}; seeds "
        f"{', '.join(str(s) for s in args.seeds)}. The cap is the most tokens "
        "a series becomes (`patch_size='auto'` used MAX_TOKENS = "
        f"{REFERENCE} when this was measured; it now uses "
        f"{_library_cap()}).",
        "",
        "Measures: test accuracy; fit seconds (wall clock of `fit`); seconds "
        "per epoch (mean of the history's `dur`); peak extra memory: the "
        "child's `ru_maxrss` right after the fit minus the same reading after "
        "its imports, a warm-up fit of 4 tiny series (skgate's lazy imports, "
        "torch's first-use set-up) and data loading; what every fit needs "
        "whatever the cap (optimizer state, autograd's buffers, the "
        "allocator's arenas) is part of it, so memory ratios understate "
        "attention's own growth. Ratios "
        f"are against the cap-{REFERENCE} fit of the same set, gate and seed, "
        "geometric means over those pairs; accuracies are plain means. "
        "Attention MB is extrapolated, not measured: three float32 tensors of "
        "batch x heads x tokens^2 (softmax weights kept for backward, their "
        "gradient, the scores' gradient).",
        "",
        f"Run: {len(rows)} fits, {total_fit / 60:.1f} min in `fit`, "
        f"{total_child / 60:.1f} min in the child processes, measured inside "
        "them (one at a time; their imports and warm-up are most of the time "
        "outside `fit`; each interpreter's start-up comes on top of it).",
        "",
    ]
    largest = max(caps)
    per_set = {
        s: sum(
            float(r["child_seconds"])
            for r in rows
            if r["dataset"] == s and int(r["cap"]) == largest
        )
        / 60
        for s in sets
    }
    if not skipped:
        lines += [
            f"No cap was left out: the cap-{largest} fits of a set took "
            + ", ".join(f"{s} {m:.1f} min" for s, m in per_set.items())
            + " in all (a cap would be left out of a set if its fits alone "
            "were extrapolated to take more than 5 minutes).",
            "",
        ]
    for name, reason in skipped:
        lines += [f"Not run: {name} at cap {reason}", ""]
    if complete:
        summary = summarise(rows, caps, set(complete))
        lines += [
            f"## By cap: mean over {', '.join(complete)}, gates and seeds",
            "",
            *cap_table(summary),
            "",
        ]
    if set(complete) != set(sets) and all_sets_caps:
        summary_all = summarise(rows, all_sets_caps, set(sets))
        lines += [
            f"## By cap: mean over all four sets (caps "
            f"{', '.join(str(c) for c in all_sets_caps)}, run on every set)",
            "",
            *cap_table(summary_all),
            "",
        ]
    lines += ["## By set", ""]
    for name in sets:
        lines += set_table(rows, name, caps)
    lines += [
        "## Memory check",
        "",
        "Measured growth of the peak extra memory from a set's smallest to its "
        "largest cap, against attention's extrapolated growth at the batch the "
        "fit used. The extrapolation counts attention's tokens-squared "
        "tensors only, so it is a floor: the rest of the growth is every "
        "other tensor that grows with "
        "the tokens (projections, values, gate, the hand-written backward's "
        "intermediates) and the allocator. The exponent (log of the memory "
        "ratio over log of the token ratio) says how it grows at these sizes: "
        "1 is linear in the tokens, 2 their square.",
        "",
        *memory_check(rows),
        "",
        "## Choice",
        "",
    ]
    if complete:
        lines.append(choice_paragraph(summary, complete))
    if set(complete) != set(sets) and all_sets_caps:
        lines += ["", "On all four sets, among the caps run on every set: "]
        lines[-1] += choice_paragraph(summary_all, sets)
    lines.append("")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--sets", nargs="+", default=list(SETS))
    parser.add_argument("--caps", nargs="+", type=int, default=list(CAPS))
    parser.add_argument("--seeds", nargs="+", type=int, default=list(SEEDS))
    parser.add_argument("--max-epochs", type=int, default=MAX_EPOCHS)
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        metavar="SET:CAP",
        help="leave out a set's cap (named in PATCH.md)",
    )
    parser.add_argument(
        "--skip-reason",
        default="its fits alone were extrapolated to take more than 5 minutes",
    )
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--out-dir", default=str(RESULTS))
    args = parser.parse_args(argv)
    if args.child:
        child(json.loads(args.child))
        return 0
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / "PATCH.csv"
    if not args.report_only:
        sweep(args, csv_path)
    rows = [r for r in read_rows(csv_path) if int(r["max_epochs"]) == args.max_epochs]
    skipped = [
        (s.split(":")[0], f"{s.split(':')[1]}: {args.skip_reason}.") for s in args.skip
    ]
    text = report(rows, args, skipped)
    (out / "PATCH.md").write_text(text)
    log(f"wrote {out / 'PATCH.md'} and {csv_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

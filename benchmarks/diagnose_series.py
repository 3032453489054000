"""Why skgate's series defaults trailed a reference attention model of the
same kind and size, one difference at a time in both directions.

The reference is an external attention classifier for time series (a
convolutional stem with BatchNorm, pre-LN blocks with a feed-forward
sublayer, relative and absolute position, a final LayerNorm and a linear
head, warm-up + cosine, label smoothing, gradient clipping, augmentation;
d_model 64, about 1,000 steps). It is not part of skgate and skgate never
imports it: this script loads it from the folder given as ``--reference``
(its ``strong_reference.py``), in a fresh worker process per fit, and
changes one of its parts to skgate's at a time. The other direction
changes one part of skgate's series network to the reference's.

Data: ArrowHead, OSULeaf and PickupGestureWiimoteZ (the three sets where
the gap was widest), splits 0 to 2 as ``bench_sequences.py`` makes them
(the archive's split, aeon's stratified resamples 1 and 2), each series
z-normalised per channel by the training part. The reference resizes
PickupGestureWiimoteZ's unequal-length series to the longest by linear
interpolation (it needs equal lengths); skgate reads them as they are. The
multiplicative gate; each fit seeded by its split; one thread per fit.

Writes benchmarks/results/DIAGNOSIS.md, diagnosis.csv and diagnosis_run.json;
a finished fit goes into diagnosis.csv as it ends, so a run started again
trains only what is missing.

    python benchmarks/diagnose_series.py --reference DIR [--arms ...] [--n-jobs 2]
    python benchmarks/diagnose_series.py --render
"""

import os

for _name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import as_completed  # noqa: E402
from pathlib import Path  # noqa: E402

import bench_sequences as bench  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "results"
CSV = OUT / "diagnosis.csv"
RECORD = OUT / "diagnosis_run.json"
DATASETS = ("ArrowHead", "OSULeaf", "PickupGestureWiimoteZ")
SPLITS = (0, 1, 2)
COLUMNS = ["arm", "dataset", "split", "accuracy", "seconds"]


# ------------------------------------------------- the reference's side


def _load_reference(folder):
    path = Path(folder) / "strong_reference.py"
    spec = importlib.util.spec_from_file_location("strong_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _channel_layer_norm(ref):
    """skgate's stem normalisation: LayerNorm over channels at each time point."""
    nn = ref.nn

    class ChannelNorm(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.norm = nn.LayerNorm(channels)

        def forward(self, x):  # (batch, channels, time)
            return self.norm(x.transpose(1, 2)).transpose(1, 2)

    def conv_ln(c_in, c_out, k, stride=1):
        return nn.Sequential(
            nn.Conv1d(c_in, c_out, k, stride=stride, padding=k // 2, bias=False),
            ChannelNorm(c_out),
            nn.GELU(),
        )

    ref.conv_bn = conv_ln


def _group_norm(ref):
    """A batch-free candidate: one mean and variance per series over every
    channel and time point (GroupNorm with one group)."""
    nn = ref.nn

    def conv_gn(c_in, c_out, k, stride=1):
        return nn.Sequential(
            nn.Conv1d(c_in, c_out, k, stride=stride, padding=k // 2, bias=False),
            nn.GroupNorm(1, c_out),
            nn.GELU(),
        )

    ref.conv_bn = conv_gn


def _rebuilt_for_tokens(net, n_channels, length):
    """After a stem change: positions and blocks rebuilt if the stem makes
    another number of tokens."""
    ref = sys.modules["strong_reference"]
    with ref.torch.no_grad():
        n_tokens = net.stem(ref.torch.zeros(2, n_channels, length)).shape[-1]
    if n_tokens != net.n_tokens:
        d = net.pos.shape[-1]
        block = net.blocks[0]
        net.n_tokens = n_tokens
        net.pos = ref.nn.Parameter(0.02 * ref.torch.randn(1, n_tokens, d))
        net.blocks = ref.nn.ModuleList(
            ref.Block(d, block.attn.h, n_tokens, block.attn.gate) for _ in net.blocks
        )


def _patch_net(ref, change):
    """StrongNet with ``change(net, n_channels, length)`` applied after its
    construction."""
    base = ref.StrongNet

    class Changed(base):
        def __init__(self, n_channels, length, n_classes, **kwargs):
            super().__init__(n_channels, length, n_classes, **kwargs)
            change(self, n_channels, length, n_classes)

    ref.StrongNet = Changed


def _skgate_stem(net, n_channels, length, n_classes):
    # skgate's stem shape: three full-resolution convolutions (kernels 7, 5,
    # 3; 16 channels), then one strided convolution over overlapping patches.
    ref = sys.modules["strong_reference"]
    nn = ref.nn
    patch = max(1, math.ceil(length / 32))
    half = patch // 2
    d = net.pos.shape[-1]
    net.stem = nn.Sequential(
        ref.conv_bn(n_channels, 16, 7),
        ref.conv_bn(16, 16, 5),
        ref.conv_bn(16, 16, 3),
        nn.Conv1d(16, d, patch + 2 * half, stride=patch, padding=half),
    )
    _rebuilt_for_tokens(net, n_channels, length)


def _stem_16(net, n_channels, length, n_classes):
    # skgate's stem width (16 channels at full resolution).
    ref = sys.modules["strong_reference"]
    first, pool, patches, tokens = net.stem
    conv = patches[0]
    if first[0].out_channels == 16:
        return
    net.stem = ref.nn.Sequential(
        ref.conv_bn(n_channels, 16, 7),
        pool,
        ref.nn.Sequential(
            ref.nn.Conv1d(
                16,
                conv.out_channels,
                conv.kernel_size[0],
                stride=conv.stride[0],
                padding=conv.padding[0],
                bias=False,
            ),
            *list(patches)[1:],
        ),
        tokens,
    )


def _mlp_head(net, n_channels, length, n_classes):
    # skgate's head: Linear, GELU, Linear, without a final LayerNorm.
    nn = sys.modules["strong_reference"].nn
    d = net.pos.shape[-1]
    net.norm = nn.Identity()
    net.head = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, n_classes))


def _no_position(net, n_channels, length, n_classes):
    torch = sys.modules["strong_reference"].torch
    net.pos = torch.nn.Parameter(torch.zeros_like(net.pos), requires_grad=False)


def _no_projection(net, n_channels, length, n_classes):
    # skgate's block: the heads' gated outputs concatenated, no output projection.
    for block in net.blocks:
        block.attn.out = sys.modules["strong_reference"].nn.Identity()


def _no_clipping(ref):
    ref.nn.utils.clip_grad_norm_ = lambda *args, **kwargs: None


def _decay_everything(ref):
    torch = ref.torch
    adamw = torch.optim.AdamW

    def every_weight(groups, **kwargs):
        decay = groups[0]["weight_decay"]
        return adamw([{**g, "weight_decay": decay} for g in groups], **kwargs)

    torch.optim.AdamW = every_weight


def _skgate_optimiser(ref):
    # skgate's batches of 64 (clipped to the rows), lr 2e-3, weight decay 0.01,
    # warm-up over 10 % of the steps.
    ref.StrongClassifier._batch_size = lambda self, n: 64


def _skgate_budget_epochs(n):
    # skgate's budget: max(20, ceil(500 / steps per epoch)) at the reference's
    # batch size.
    batch = 16 if n < 100 else 32
    return max(20, math.ceil(500 / math.ceil(n / min(batch, n))))


#: The reference's arms: (label, patches of the module, constructor changes,
#: epochs rule or None).
REFERENCE_ARMS = {
    "reference": ((), {}, None),
    "reference, stem normalised per time point (LayerNorm over channels)": (
        (_channel_layer_norm,), {}, None),
    "reference, stem normalised per series (GroupNorm, one group)": (
        (_group_norm,), {}, None),
    "reference, skgate's stem shape (3 full-resolution convolutions, then patches)": (
        (lambda ref: _patch_net(ref, _skgate_stem),), {}, None),
    "reference, stem of 16 channels": ((lambda ref: _patch_net(ref, _stem_16),), {}, None),  # noqa: E501
    "reference, MLP head without final LayerNorm": (
        (lambda ref: _patch_net(ref, _mlp_head),), {}, None),
    "reference, no output projection in attention": (
        (lambda ref: _patch_net(ref, _no_projection),), {}, None),
    "reference, no absolute position": ((lambda ref: _patch_net(ref, _no_position),), {}, None),  # noqa: E501
    "reference, no gradient clipping": ((_no_clipping,), {}, None),
    "reference, weight decay on every weight": ((_decay_everything,), {}, None),
    "reference, no augmentation": ((), {"aug": False}, None),
    "reference, depth 1": ((), {"depth": 1}, None),
    "reference, skgate's optimiser (batch 64, lr 2e-3, decay 0.01, warm-up 0.1)": (
        (_skgate_optimiser,), {"lr": 2e-3, "weight_decay": 0.01, "warmup_frac": 0.1}, None),  # noqa: E501
    "reference, skgate's budget (about 500 steps)": ((), {}, _skgate_budget_epochs),
}  # fmt: skip


def _resized(X, length):
    """Series (a 3-D array or a list) linearly interpolated to ``length``."""
    out = np.empty((len(X), X[0].shape[0], length))
    grid = np.linspace(0, 1, length)
    for i, x in enumerate(X):
        source = np.linspace(0, 1, x.shape[1])
        for c in range(x.shape[0]):
            out[i, c] = np.interp(grid, source, x[c])
    return out


def reference_fit(folder, arm, dataset, split):
    import torch

    torch.set_num_threads(1)
    ref = _load_reference(folder)
    sys.modules["strong_reference"] = ref
    patches, params, epochs_rule = REFERENCE_ARMS[arm]
    for patch in patches:
        patch(ref)
    X_train, y_train, X_test, y_test = bench.normalised(
        bench.split_data(dataset, split)
    )
    length = max(x.shape[-1] for x in X_train)
    A, B = _resized(X_train, length), _resized(X_test, length)
    if epochs_rule is not None:
        params = {**params, "epochs": epochs_rule(len(A))}
    model = ref.StrongClassifier(gate="multiplicative", random_state=split, **params)
    start = time.perf_counter()
    model.fit(A, y_train)
    seconds = time.perf_counter() - start
    accuracy = float(np.mean(model.predict(B) == y_test))
    return dict(
        arm=arm, dataset=dataset, split=split, accuracy=accuracy, seconds=seconds
    )


# ------------------------------------------------------------ skgate's side

#: skgate's series defaults before this diagnosis: the stem's shape,
#: normalisation and width, the transformer recipe's extras, the head.
SKGATE_BEFORE = {
    "stem": {"stem_norm": "layer", "stem_shape": "full", "stem_width": None},
    "block": {"projection": False},
    "recipe": {
        "clip_norm": None,
        "decay_exempt": False,
        "auto_steps": 500,
        "time_points": None,
    },
    "params": {"head": "mlp", "batch_size": 64},
}
_POOLED = {"stem": {"stem_shape": "pooled"}}


#: skgate's arms: what each changes of SKGATE_BEFORE (stem, block, recipe,
#: estimator params).
SKGATE_ARMS = {
    "skgate": {},
    "skgate, stem BatchNorm (over a batch's valid time points)": {
        "stem": {"stem_norm": "batch"}},
    "skgate, the reference's stem shape (convolution, max-pool, patches, "
    "token convolution)": {"stem": {"stem_shape": "pooled"}},
    "skgate, output projection in attention": {"block": {"projection": True}},
    "skgate, final LayerNorm and linear head": {"params": {"head": "norm-linear"}},
    "skgate, gradient clipping at norm 1": {"recipe": {"clip_norm": 1.0}},
    "skgate, no weight decay on norms, biases and positions": {
        "recipe": {"decay_exempt": True}},
    "skgate, batches of 16": {"params": {"batch_size": 16}},
    "skgate, 1,000 steps": {"recipe": {"auto_steps": 1000}},
    "skgate, the reference's learning rate, decay and warm-up (1e-3, 0.05, 0.05)": {
        "params": {"lr": 1e-3, "weight_decay": 0.05, "warmup_fraction": 0.05}},
}  # fmt: skip
#: skgate's series defaults after this diagnosis (the library's own).
SKGATE_AFTER = {
    "stem": {"stem_norm": "batch", "stem_shape": "pooled"},
    "block": {"projection": True},
    "recipe": {
        "clip_norm": 1.0,
        "decay_exempt": True,
        "auto_steps": 1000,
        "time_points": 10_000_000,
    },
    "params": {"head": "norm-linear", "batch_size": 16},
}
#: The new defaults with one part at a time as it was before.
NEW_ARMS = {
    "new defaults": {},
    "new defaults, stem normalised per time point (LayerNorm over channels)": {
        "stem": {"stem_norm": "layer"}},
    "new defaults, skgate's former stem shape (3 full-resolution convolutions)": {
        "stem": {"stem_shape": "full"}},
    "new defaults, no output projection": {"block": {"projection": False}},
    "new defaults, MLP head without final LayerNorm": {"params": {"head": "mlp"}},
    "new defaults, no gradient clipping": {"recipe": {"clip_norm": None}},
    "new defaults, weight decay on every weight": {"recipe": {"decay_exempt": False}},
    "new defaults, batches of 64": {"params": {"batch_size": 64}},
    "new defaults, 500 steps": {"recipe": {"auto_steps": 500, "time_points": None}},
}  # fmt: skip


def _merged(*changes):
    """SKGATE_BEFORE with ``changes`` applied in order."""
    out = {key: dict(value) if isinstance(value, dict) else value
           for key, value in SKGATE_BEFORE.items()}  # fmt: skip
    rules = []
    for change in changes:
        for key, value in change.items():
            if key == "rule":
                rules.append(value)
            elif isinstance(value, dict):
                out[key].update(value)
            else:
                out[key] = value
    out["rules"] = rules
    return out


def skgate_fit(arm, dataset, split, settings=None):
    import torch

    torch.set_num_threads(1)
    from skgate import GatedAttentionClassifier, _options, _series

    if settings is None:
        settings = (
            _merged(SKGATE_ARMS[arm])
            if arm in SKGATE_ARMS
            else _merged(SKGATE_AFTER, NEW_ARMS[arm])
        )
    _options.SERIES_STEM.update(settings["stem"])
    _options.SERIES_BLOCK.update(settings["block"])
    _options.TRANSFORMER_RECIPE.update(settings["recipe"])
    X_train, y_train, X_test, y_test = bench.normalised(
        bench.split_data(dataset, split)
    )
    params = dict(settings["params"])
    if settings["stem"]["stem_shape"] == "full":
        # The patches before the pooled stem: ceil(longest / 32) time points.
        longest = max(x.shape[-1] for x in X_train)
        params["patch_size"] = _series.auto_patch(longest, pooled=False)
    for rule in settings["rules"]:
        params.update(rule(len(y_train)))
    model = GatedAttentionClassifier(random_state=split, **params)
    start = time.perf_counter()
    model.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    accuracy = float(np.mean(model.predict(bench.fitting(model, X_test)[0]) == y_test))
    return dict(
        arm=arm, dataset=dataset, split=split, accuracy=accuracy, seconds=seconds
    )


# ------------------------------------------------------------ the run


def _done():
    if not CSV.exists():
        return set()
    rows = pd.read_csv(CSV)
    return set(zip(rows.arm, rows.dataset, rows.split, strict=True))


def _append(row):
    new = not CSV.exists()
    pd.DataFrame([row], columns=COLUMNS).to_csv(CSV, mode="a", header=new, index=False)


def one_fit(arm, dataset, split, folder=None):
    """One fit in this process (a fresh one per fit: the arms change
    modules' state)."""
    if arm in REFERENCE_ARMS:
        return reference_fit(folder, arm, dataset, split)
    return skgate_fit(arm, dataset, split)


def _in_a_process(arm, dataset, split, folder):
    """:func:`one_fit` in a fresh Python process; its row."""
    import subprocess

    command = [sys.executable, __file__, "--one", arm, dataset, str(split)]
    if folder is not None:
        command += ["--reference", str(folder)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{arm} {dataset} {split} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(arms, folder, n_jobs):
    """Every fit of ``arms`` not yet in diagnosis.csv, ``n_jobs`` at a time,
    each in a fresh process, written as it ends."""
    from concurrent.futures import ThreadPoolExecutor

    unknown = [
        a for a in arms if a not in {**REFERENCE_ARMS, **SKGATE_ARMS, **NEW_ARMS}
    ]
    if unknown:
        raise SystemExit(f"no arm {unknown[0]!r}")
    done = _done()
    units = [
        (arm, d, s)
        for arm in arms
        for d in DATASETS
        for s in SPLITS
        if (arm, d, s) not in done
    ]
    print(f"{len(units)} fits to train", flush=True)
    start = time.perf_counter()
    with ThreadPoolExecutor(n_jobs) as pool:
        futures = [pool.submit(_in_a_process, *unit, folder) for unit in units]
        for i, future in enumerate(as_completed(futures), 1):
            row = future.result()
            _append(row)
            print(
                f"[{i}/{len(units)}] {time.perf_counter() - start:7.0f} s  "
                f"{row['arm']} {row['dataset']} {row['split']}: "
                f"{row['accuracy']:.3f} in {row['seconds']:.1f} s",
                flush=True,
            )


# ------------------------------------------------------------ the page

#: The page's three families: (title, the arm every change is measured
#: against, the arms).
FAMILIES = (
    ("The reference with one part of skgate's former series design", "reference",
     REFERENCE_ARMS),
    ("skgate's former series defaults with one part of the reference's design",
     "skgate", SKGATE_ARMS),
    ("skgate's new series defaults with one part as it was before",
     "new defaults", NEW_ARMS),
)  # fmt: skip


def changes(rows, base, arms):
    """Per arm: mean accuracy per dataset and overall, the change against
    ``base`` with the standard error of its paired (dataset, split)
    differences, the number of pairs, and the mean fit seconds."""
    wide = rows.pivot_table(
        index=["dataset", "split"], columns="arm", values="accuracy"
    )
    seconds = rows.groupby("arm")["seconds"].mean()
    out = []
    for arm in arms:
        if arm not in wide:
            continue
        pairs = (wide[arm] - wide[base]).dropna() if arm != base else None
        entry = {
            "arm": arm,
            **{
                d: float(wide[arm].xs(d, level="dataset").mean())
                for d in DATASETS
                if d in wide.index.get_level_values("dataset")
            },  # fmt: skip
            "mean": float(wide[arm].mean()),
            "n": int(wide[arm].notna().sum()),
            "seconds": float(seconds[arm]),
        }
        if pairs is not None and len(pairs) > 1:
            entry["change"] = float(pairs.mean())
            entry["se"] = float(pairs.std(ddof=1) / np.sqrt(len(pairs)))
        out.append(entry)
    return pd.DataFrame(out)


def _row(entry):
    cells = [f"{entry[d]:.3f}" if d in entry and pd.notna(entry[d]) else "–"
             for d in DATASETS]  # fmt: skip
    change = (
        "—"
        if pd.isna(entry.get("change", np.nan))
        else f"{entry['change']:+.3f} ± {entry['se']:.3f}"
    )
    return (
        f"| {entry['arm']} | "
        + " | ".join(cells)
        + f" | {entry['mean']:.3f} | {change} | {entry['n']} | {entry['seconds']:.1f} |"
    )


def bottom_line(tables):
    """Sentences drawn from the tables: the new defaults against the
    reference per dataset, and the largest changes of each family."""
    lines = []
    if all(len(tables[k]) for k in ("reference", "new defaults")):
        ref = tables["reference"].set_index("arm")
        new = tables["new defaults"].set_index("arm")
        gaps = {
            d: new.loc["new defaults", d] - ref.loc["reference", d] for d in DATASETS
        }
        within = [d for d, g in gaps.items() if g >= -0.02]
        lines.append(
            "skgate's new series defaults average "
            f"{new.loc['new defaults', 'mean']:.3f} "
            f"on the three sets (splits 0-2), the reference "
            f"{ref.loc['reference', 'mean']:.3f} in the same sitting; per set "
            + ", ".join(f"{d} {g:+.3f}" for d, g in gaps.items())
            + f": within 0.02 of the reference (or above) on {len(within)} of 3."
        )
        if len(tables["skgate"]):
            before = tables["skgate"].set_index("arm").loc["skgate", "mean"]
            after = new.loc["new defaults", "mean"]
            lines[-1] += (
                f" skgate's former defaults averaged {before:.3f} on the same "
                f"splits ({after - before:+.3f})."
            )
    for key, what in (
        ("reference", "Of skgate's former parts in the reference"),
        ("skgate", "Of the reference's parts alone in skgate's former defaults"),
        ("new defaults", "Of the new defaults' parts, taken out one at a time"),
    ):
        table = tables[key]
        if table.empty or "change" not in table:
            continue
        table = table.dropna(subset=["change"])
        worst = table.loc[table["change"].idxmin()]
        best = table.loc[table["change"].idxmax()]
        sure = table[(table["change"].abs() > 2 * table["se"])]
        low = "largest loss" if worst["change"] < 0 else "smallest gain"
        high = "largest gain" if best["change"] > 0 else "smallest loss"
        lines.append(
            f'{what}, the {low} is "{worst["arm"]}" '
            f"({worst['change']:+.3f} ± {worst['se']:.3f}) and the {high} "
            f'"{best["arm"]}" ({best["change"]:+.3f} ± {best["se"]:.3f}); '
            f"{len(sure)} of {len(table)} changes lie more than two standard "
            f"errors from 0."
        )
    return lines


def render(out=OUT):
    """DIAGNOSIS.md and fig_diagnosis.png from diagnosis.csv and the record."""
    rows = pd.read_csv(out / "diagnosis.csv")
    counts = rows.groupby(["arm", "dataset", "split"]).size()
    if (counts > 1).any():
        raise SystemExit(
            f"diagnosis.csv repeats fits: {list(counts[counts > 1].index)[:3]}"
        )
    record = (
        json.loads((out / "diagnosis_run.json").read_text())
        if (out / "diagnosis_run.json").exists()
        else {}
    )
    tables = {base: changes(rows, base, arms) for _, base, arms in FAMILIES}
    head = (
        "| arm | "
        + " | ".join(DATASETS)
        + " | mean | change ± s.e. (paired) | fits | fit seconds |\n|"
        + "---|" * (len(DATASETS) + 5)
    )
    parts = [
        "# Why skgate's series defaults trailed a reference attention model",
        "",
        "Made by `benchmarks/diagnose_series.py` from `diagnosis.csv` "
        "(rerun it: `python benchmarks/diagnose_series.py --reference DIR`, "
        "`--render` redraws this page). " + record.get("note", ""),
        "",
        "## Bottom line",
        "",
        *[f"- {line}" for line in bottom_line(tables)],
        "",
        "![changes](fig_diagnosis.png)",
        "",
        "Accuracy on the test part of ArrowHead, OSULeaf and "
        "PickupGestureWiimoteZ, splits 0-2 (the archive's split and aeon's "
        "stratified resamples 1 and 2), the multiplicative gate, each fit "
        "seeded by its split, one thread per fit. A change is the arm's "
        "accuracy minus its family's first arm's on the same (set, split), "
        "averaged over the 9 pairs, with the standard error of those 9 "
        "differences. The reference is an external attention classifier "
        "(not part of skgate, loaded from the folder given); it resizes "
        "PickupGestureWiimoteZ's unequal-length series to the longest, "
        "where skgate reads them as they are. Fit seconds ran beside other "
        "jobs on 2 cores: read them as rough.",
        "",
    ]
    for title, base, _ in FAMILIES:
        parts += [f"## {title}", "", head]
        parts += [_row(e) for e in tables[base].to_dict("records")]
        parts.append("")
    (out / "DIAGNOSIS.md").write_text("\n".join(parts))
    _figure(tables, out / "fig_diagnosis.png")


def _figure(tables, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    heights = [max(2, len(tables[base])) for _, base, _ in FAMILIES]
    fig, axes = plt.subplots(
        3,
        1,
        figsize=(9, 1.5 + 0.32 * sum(heights)),
        sharex=True,
        gridspec_kw={"height_ratios": heights},
    )
    for ax, (title, base, _) in zip(axes, FAMILIES, strict=True):
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_title(title, fontsize=9)
        table = tables[base]
        if table.empty or "change" not in table:
            continue
        table = table.dropna(subset=["change"])
        labels = [a.split(", ", 1)[-1] for a in table["arm"]]
        y = np.arange(len(table))
        ax.errorbar(table["change"], y, xerr=2 * table["se"], fmt="o", capsize=3)
        ax.set_yticks(y, labels, fontsize=8)
        ax.set_ylim(len(table) - 0.5, -0.5)
    axes[-1].set_xlabel(
        "accuracy change against each panel's first arm (9 paired fits, ± 2 s.e.)",
        fontsize=8,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_record(folder, skgate_commit, note=""):
    """diagnosis_run.json: the commit skgate's arms ran at, the reference
    file's SHA-256 (its numbers are an external baseline: the file is not
    part of this repository), the machine, the fits, and a note the page
    prints."""
    import hashlib
    import platform

    reference = Path(folder) / "strong_reference.py"
    rows = pd.read_csv(CSV)
    record = {
        "skgate commit": skgate_commit,
        "reference": {
            "file": reference.name,
            "sha256": hashlib.sha256(reference.read_bytes()).hexdigest(),
        },
        "machine": platform.platform(),
        "fits": len(rows),
        "note": note,
    }
    RECORD.write_text(json.dumps(record, indent=2) + "\n")


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", type=Path, help="the reference's folder")
    parser.add_argument("--arms", nargs="+", help="a subset of the arms, by label")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--render", action="store_true")
    parser.add_argument(
        "--record",
        metavar="COMMIT",
        help="write diagnosis_run.json: skgate's arms ran at COMMIT (needs "
        "--reference; --note adds a sentence to the page)",
    )
    parser.add_argument("--note", default="")
    parser.add_argument(
        "--one",
        nargs=3,
        metavar=("ARM", "DATASET", "SPLIT"),
        help="one fit in this process; its row as JSON",
    )
    return parser.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    if args.one:
        arm, dataset, split = args.one
        print(json.dumps(one_fit(arm, dataset, int(split), args.reference)))
        return
    if args.record:
        write_record(args.reference, args.record, args.note)
        return
    if args.render:
        render()
        return
    arms = args.arms or [*REFERENCE_ARMS, *SKGATE_ARMS, *NEW_ARMS]
    run(arms, args.reference, args.n_jobs)


if __name__ == "__main__":
    main()

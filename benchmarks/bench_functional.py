"""What training through torch.func costs beside the hand-written backward.

The minimal design's layers train through the engine's written-out backward
(skgate.nn._stacked); a network with any layer of the strong design trains
through torch.func (functional_call + vmap + grad) on the module itself
(skgate.nn._functional). This script times one training step both ways on
the same module, weights and rows (the minimal design, where both apply),
for one model and for a batch of models, and the strong design's step
beside the minimal design's on series of the bundled sets' shapes. Ratios
are of medians in one run; the results go to
benchmarks/results/FUNCTIONAL.md with the commit and the load average.

    python benchmarks/bench_functional.py [--repeats 7]
"""

import argparse
import os
import subprocess
import time
from pathlib import Path

import torch
from bench_speed import median_seconds  # beside this script

from skgate._engine.loop import trained_weights
from skgate._options import DESIGNS
from skgate._series import MAX_TOKENS
from skgate.nn import GatedAttentionNet
from skgate.nn._functional import functional_losses_and_gradients
from skgate.nn._stacked import losses_and_gradients

OUT = Path(__file__).parent / "results" / "FUNCTIONAL.md"

#: (name, channels, longest series, classes): shapes of aeon's bundled sets.
SHAPES = (
    ("GunPoint", 1, 150, 2),
    ("OSULeaf", 1, 427, 6),
    ("ACSF1", 1, 1460, 10),
    ("BasicMotions", 6, 100, 4),
)


def _timed(step, repeats):
    """bench_speed's median of ``repeats`` runs, after one warm-up run."""
    step()
    return median_seconds(step, repeats)


def _stacked(net, models):
    """The weights training updates (as the engine picks them), stacked
    over ``models`` copies."""
    names = trained_weights(net)
    weights = dict(net.named_parameters())
    params = [
        weights[n].detach()[None].repeat(models, *[1] * weights[n].ndim).contiguous()
        for n in names
    ]
    return names, params


def _rows(models, batch, width, classes):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(models, batch, width, generator=gen)
    y = torch.randint(0, classes, (models, batch), generator=gen)
    return x, y, torch.ones(models, batch)


def engines(repeats):
    """The minimal design's step, written-out backward against torch.func."""
    rows = []
    for what, kwargs, width in (
        ("table, 20 features, copied tokens", {}, 20),
        ("GunPoint's series, minimal design", {"token_dim": 5}, 150),
    ):
        for models in (1, 10):
            net = GatedAttentionNet(width, 2, **kwargs)
            names, params = _stacked(net, models)
            x, y, w = _rows(models, 64, width, 2)
            alphas = torch.ones(models)

            step = (net, names, params, alphas, x, y, w)

            def written(step=step):
                losses_and_gradients(*step, regression=False)

            def functional(step=step):
                functional_losses_and_gradients(
                    *step, regression=False, label_smoothing=0.0
                )

            a, b = _timed(written, repeats), _timed(functional, repeats)
            rows.append((what, models, a, b, b / a))
    return rows


def designs(repeats):
    """One step of 64 series: the strong design against the minimal one."""
    rows = []
    for name, channels, length, classes in SHAPES:
        patch = -(-length // MAX_TOKENS)
        tokens = -(-length // patch)
        width = tokens * patch * channels
        times = []
        for design in ("table", "series"):
            settings = dict(DESIGNS[design])
            settings.pop("lr_schedule")
            settings.pop("label_smoothing")
            if settings["d_ff"] == "2 * d_model":
                settings["d_ff"] = 128
            if settings["embedding"] == "conv":
                settings["n_channels"] = channels
            net = GatedAttentionNet(
                width, classes, token_dim=patch * channels, **settings
            )
            names, params = _stacked(net, 1)
            x, y, w = _rows(1, 64, width, classes)
            alphas = torch.ones(1)

            # A network with dropout draws its masks from its own generator,
            # as the engine trains it (one model: the same work as vmap's).
            noise = [torch.Generator().manual_seed(0)] if net.stochastic else None

            def step(step=(net, names, params, alphas, x, y, w), noise=noise):
                losses_and_gradients(*step, regression=False, noise=noise)

            times.append(_timed(step, repeats))
        rows.append((name, length, patch, *times, times[1] / times[0]))
    return rows


def fits(threads):
    """Whole fits at the estimator's defaults on ``threads`` torch threads:
    ACSF1's training part (100 series of 1,460 points) and 300 series of 130
    to 1,344 points in 11 classes."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    import bench_sequences as bench
    from bench_ragged import ragged

    from skgate import GatedAttentionClassifier

    torch.set_num_threads(threads)
    X, y, _, _ = bench.split_data("ACSF1", 0)
    X_ragged, y_ragged = ragged(300, longest=1344)
    rows = []
    for what, data in (
        ("ACSF1, training part (100 x 1,460)", (X, y)),
        ("300 series of 130 to 1,344 points, 11 classes", (X_ragged, y_ragged)),
    ):
        start = time.perf_counter()
        model = GatedAttentionClassifier(random_state=0).fit(*data)
        rows.append((what, time.perf_counter() - start, model.n_iter_))
    torch.set_num_threads(1)
    return rows


def _commit():
    root = Path(__file__).parent.parent
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    torch.set_num_threads(1)
    load = os.getloadavg()[0]
    first = engines(args.repeats)
    second = designs(args.repeats)
    third = fits(2)
    lines = [
        "# Training through torch.func beside the written-out backward",
        "",
        f"Generated by `python benchmarks/bench_functional.py --repeats "
        f"{args.repeats}` at commit {_commit()}, one torch thread, load average "
        f"{load:.2f} at the start and {os.getloadavg()[0]:.2f} at the end. "
        f"Medians of {args.repeats} steps of 64 rows (a step: the loss, its "
        f"gradients and the logits; no optimizer update).",
        "",
        "## One definition, two engines: the minimal design's step",
        "",
        "| rows | models | written-out (s) | torch.func (s) | torch.func / written |",
        "|:--|--:|--:|--:|--:|",
    ]
    lines += [f"| {w} | {m} | {a:.4f} | {b:.4f} | {r:.2f} |" for w, m, a, b, r in first]
    lines += [
        "",
        "## The strong design's step beside the minimal design's (64 series)",
        "",
        "| shape of | time points | patch | minimal (s) | strong (s) | strong / "
        "minimal |",
        "|:--|--:|--:|--:|--:|--:|",
    ]
    lines += [
        f"| {n} | {t} | {p} | {a:.4f} | {b:.4f} | {r:.1f} |"
        for n, t, p, a, b, r in second
    ]
    lines += [
        "",
        "## Whole fits at the defaults (the strong design), two torch threads",
        "",
        "| data | seconds | epochs |",
        "|:--|--:|--:|",
    ]
    lines += [f"| {w} | {t:.1f} | {e} |" for w, t, e in third]
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

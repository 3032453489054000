"""Series of very unequal length at skgate's series defaults beside
MiniRocket: 300 training series of 130 to 1,500 points in 11 classes, 300
fresh test series of the same kind, one fit on 2 torch threads.

The data are made here (nothing downloads): class k is a sine of k + 1
cycles per 100 points at a random phase, in Gaussian noise (sd 0.5), each
series of a length drawn uniformly from 130 to 1,500 points
(``bench_functional._ragged``'s kind, longer). skgate reads each series at
its own length; MiniRocket, which takes equal lengths, reads them resized
to the training part's longest by linear interpolation (aeon's Resizer, as
bench_sequences.py runs it on unequal-length sets).

Writes benchmarks/results/RAGGED.md and ragged.json.

    python benchmarks/bench_ragged.py
"""

import json
import os
import platform
import subprocess
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "results"


def ragged(n, classes=11, shortest=130, longest=1500, seed=0):
    """``n`` series (a list of (1, length) arrays) and their classes."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    X = []
    for label in y:
        t = np.arange(rng.integers(shortest, longest + 1))
        wave = np.sin(2 * np.pi * (label + 1) * t / 100 + rng.uniform(0, 6.3))
        X.append((wave + rng.normal(scale=0.5, size=len(t)))[None, :])
    return X, y


def skgate_fit(X, y, X_test, y_test):
    import torch

    from skgate import GatedAttentionClassifier

    torch.set_num_threads(2)
    start = time.perf_counter()
    model = GatedAttentionClassifier(random_state=0).fit(X, y)
    seconds = time.perf_counter() - start
    capacity = model.series_layout_.n_tokens * model.series_layout_.patch_size
    accuracy = float(
        np.mean(model.predict([x[:, :capacity] for x in X_test]) == y_test)
    )
    return {
        "accuracy": accuracy,
        "fit seconds": seconds,
        "epochs": int(model.n_iter_),
        "patch_size": int(model.series_layout_.patch_size),
    }


def minirocket_fit(X, y, X_test, y_test):
    from aeon.classification.convolution_based import MiniRocketClassifier
    from aeon.transformations.collection.unequal_length import Resizer

    resize = Resizer(resized_length="max").fit(X)
    A, B = resize.transform(X), resize.transform(X_test)
    start = time.perf_counter()
    model = MiniRocketClassifier(random_state=0, n_jobs=2).fit(A, y)
    seconds = time.perf_counter() - start
    return {
        "accuracy": float(np.mean(model.predict(B) == y_test)),
        "fit seconds": seconds,
    }


def main():
    X, y = ragged(300, seed=0)
    X_test, y_test = ragged(300, seed=1)
    lengths = [x.shape[-1] for x in X]
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True, text=True
    ).stdout.strip()
    dirty = bool(
        subprocess.run(
            ["git", "status", "--porcelain", "--", "skgate"],
            cwd=HERE.parent,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    record = {
        "commit": commit,
        "skgate changed since": dirty,
        "machine": platform.platform(),
        "cores": os.cpu_count(),
        "load before": os.getloadavg()[0],
        "lengths": [min(lengths), max(lengths)],
        "MiniRocket": minirocket_fit(X, y, X_test, y_test),
        "skgate": skgate_fit(X, y, X_test, y_test),
        "load after": os.getloadavg()[0],
    }
    (OUT / "ragged.json").write_text(json.dumps(record, indent=2) + "\n")
    (OUT / "RAGGED.md").write_text(render(record))
    print(render(record))


def render(record):
    sk, mr = record["skgate"], record["MiniRocket"]
    minutes = sk["fit seconds"] / 60
    return "\n".join(
        [
            "# Series of very unequal length",
            "",
            f"Made by `python benchmarks/bench_ragged.py` at commit {record['commit']}"
            + (" (skgate/ changed since)" if record["skgate changed since"] else "")
            + f", on {record['cores']} cores (load average {record['load before']:.2f} "
            f"before, {record['load after']:.2f} after).",
            "",
            "300 training series of "
            f"{record['lengths'][0]} to {record['lengths'][1]} points in 11 "
            "classes (a sine of k + 1 cycles per 100 points at a random phase, "
            "in noise of sd 0.5), 300 fresh test series of the same kind.",
            "",
            "| model | test accuracy | fit seconds (2 threads) |",
            "|---|---|---|",
            f"| skgate, series defaults (multiplicative gate; {sk['epochs']} epochs, "
            f"patches of {sk['patch_size']}) | {sk['accuracy']:.3f} | "
            f"{sk['fit seconds']:.1f} |",
            f"| MiniRocket (series resized to the longest) | {mr['accuracy']:.3f} | "
            f"{mr['fit seconds']:.1f} |",
            "",
            f"skgate's fit took {minutes:.1f} min on 2 threads, "
            + ("within" if minutes < 5 else "over")
            + f" the 5 min goal, at {sk['accuracy']:.3f} accuracy against "
            f"MiniRocket's {mr['accuracy']:.3f} "
            f"({sk['accuracy'] - mr['accuracy']:+.3f}).",
            "",
            "What this does not say: the task is made up so that the class is a "
            "frequency in time points, which resizing every series to one "
            "length scrambles (a short series is stretched, its frequency "
            "lowered). It shows that unequal lengths are read as they are and "
            "that a fit of this size stays within the time goal; it is no "
            "evidence about real sets of unequal length, where MiniRocket on "
            "resized series may do well (PickupGestureWiimoteZ and "
            "JapaneseVowels in SEQUENCES.md).",
            "",
        ]
    )


if __name__ == "__main__":
    main()

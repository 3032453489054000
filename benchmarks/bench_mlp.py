"""Time to accuracy: skgate against MLPClassifier and HistGradientBoosting.

Run: ``python benchmarks/bench_mlp.py [--sizes 2000 10000 50000]
[--out benchmarks/results/MLP.md]``

On the checkerboard task (70 % train, 30 % held out, seed 0), side by side in
one run: skgate's GatedAttentionClassifier with early stopping,
MLPClassifier with its defaults and with early stopping, and
HistGradientBoostingClassifier. For each model the held-out accuracy is
recorded after every epoch (every boosting iteration), and the result is the
training time until it first comes within 0.01 of that model's own best
held-out accuracy. Scoring the held-out rows is not counted as training time.
MLPClassifier's defaults are run epoch by epoch with ``partial_fit`` (the same
updates as ``fit``) and stopped by its own rule (training loss not better by
``tol`` for ``n_iter_no_change`` epochs); with early stopping it is fitted
once and its epochs share the fit time evenly; HistGradientBoosting's
iterations share its fit time evenly (``staged_predict`` gives the curve).
"""

import argparse
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn
import torch
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from skorch.callbacks import Callback

from skgate import GatedAttentionClassifier, make_curved_task

ROOT = Path(__file__).resolve().parents[1]
WITHIN = 0.01  # "reached": held-out accuracy within this of the model's best


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class _HeldOutCurve(Callback):
    """Held-out accuracy and training time after every epoch of a skorch net."""

    def __init__(self, X, y):
        self.X, self.y = torch.as_tensor(X, dtype=torch.float32), y

    def on_train_begin(self, net, **kwargs):
        self.start, self.scoring, self.points = time.perf_counter(), 0.0, []

    def on_epoch_end(self, net, **kwargs):
        begin = time.perf_counter()
        module = net.module_
        module.eval()
        with torch.no_grad():
            accuracy = float((module(self.X).argmax(1).numpy() == self.y).mean())
        module.train()
        self.points.append((begin - self.start - self.scoring, accuracy))
        self.scoring += time.perf_counter() - begin


def skgate_curve(X, y, X_test, y_test):
    clf = GatedAttentionClassifier(
        max_epochs=200,
        early_stopping=True,
        random_state=0,
        callbacks=[("held_out", _HeldOutCurve(X_test, y_test))],
    ).fit(X, y)
    # The estimator trains a copy of its callbacks: read the one it used.
    return dict(clf.net_.callbacks_)["held_out"].points


def mlp_default_curve(X, y, X_test, y_test):
    mlp, points, seconds = MLPClassifier(random_state=0), [], 0.0
    best_loss, stale = np.inf, 0
    for _ in range(mlp.max_iter):
        start = time.perf_counter()
        mlp.partial_fit(X, y, classes=[0, 1])
        seconds += time.perf_counter() - start
        points.append((seconds, mlp.score(X_test, y_test)))
        # MLPClassifier.fit's own stopping rule on the training loss.
        stale = stale + 1 if mlp.loss_ > best_loss - mlp.tol else 0
        best_loss = min(best_loss, mlp.loss_)
        if stale > mlp.n_iter_no_change:
            break
    return points


def mlp_early_curve(X, y, X_test, y_test):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        mlp = MLPClassifier(early_stopping=True, random_state=0).fit(X, y)
    seconds = time.perf_counter() - start
    # Only the restored (best) model can be scored: credit it at the epoch
    # whose validation score it is, the epochs sharing the fit time evenly.
    best = int(np.argmax(mlp.validation_scores_)) + 1
    return [(seconds * best / mlp.n_iter_, mlp.score(X_test, y_test))]


def hgb_curve(X, y, X_test, y_test):
    start = time.perf_counter()
    hgb = HistGradientBoostingClassifier(random_state=0).fit(X, y)
    seconds = time.perf_counter() - start
    stages = list(hgb.staged_predict(X_test))
    return [
        (seconds * (i + 1) / len(stages), float((pred == y_test).mean()))
        for i, pred in enumerate(stages)
    ]


MODELS = {
    "skgate (early_stopping=True)": skgate_curve,
    "MLPClassifier (defaults)": mlp_default_curve,
    "MLPClassifier (early_stopping=True)": mlp_early_curve,
    "HistGradientBoosting (defaults)": hgb_curve,
}


def time_to_best(points):
    best = max(accuracy for _, accuracy in points)
    reached = next(t for t, accuracy in points if accuracy >= best - WITHIN)
    return best, reached, points[-1][0]


def run(sizes):
    rows = []
    for n in sizes:
        X, y = make_curved_task(n, shape="checkerboard", random_state=0)
        split = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
        X_train, X_test, y_train, y_test = split
        for name, curve in MODELS.items():
            log(f"{n} rows: {name}")
            best, reached, total = time_to_best(curve(X_train, y_train, X_test, y_test))
            rows.append(
                {
                    "rows": n,
                    "model": name,
                    "best held-out accuracy": best,
                    "seconds to within 0.01 of it": reached,
                    "seconds in all": total,
                }
            )
    return pd.DataFrame(rows)


def render(frame):
    skgate = frame[frame["model"].str.startswith("skgate")].set_index("rows")
    mlp = frame[frame["model"] == "MLPClassifier (defaults)"].set_index("rows")
    ratio = skgate["seconds to within 0.01 of it"] / mlp["seconds to within 0.01 of it"]
    goal = "met" if (ratio <= 1).all() else "not met"
    lines = [
        "# Time to accuracy: skgate, MLPClassifier, HistGradientBoosting",
        "",
        f"Generated by `python benchmarks/bench_mlp.py`; {platform.machine()}, "
        f"torch {torch.__version__}, scikit-learn {sklearn.__version__}, "
        f"{torch.get_num_threads()} torch threads. Checkerboard task, 30 % held "
        "out; see the script's docstring for how each curve is measured.",
        "",
        frame.to_markdown(index=False, floatfmt=".3f"),
        "",
        "skgate's time to within 0.01 of its best, over MLPClassifier's (defaults): "
        + ", ".join(f"{n} rows {r:.2f}" for n, r in ratio.items())
        + f". Goal (no worse than MLPClassifier at every size): {goal}.",
        "",
    ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000, 50000])
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/MLP.md"))
    args = parser.parse_args(argv)
    frame = run(args.sizes)
    out = Path(args.out)
    frame.to_csv(out.with_suffix(".csv"), index=False, float_format="%.6g")
    text = render(frame)
    out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

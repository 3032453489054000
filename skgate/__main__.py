"""Command line: ``python -m skgate demo``.

``demo`` fits ungated, SiLU and multiplicatively gated classifiers on a curved
task (checkerboard), a linear task and scikit-learn's ``make_moons``, and prints
their held-out accuracy. It is the quick look at the paper's claim that ``make
demo`` runs.
"""

import argparse
import sys
import time

import pandas as pd
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split

from .datasets import make_curved_task, make_linear_task
from .estimators import GatedAttentionClassifier

GATES = {
    "ungated": {"gate": "none"},
    "silu": {"gate": "silu"},
    "gated (alpha=1)": {"gate": "multiplicative", "alpha": 1.0},
}


def _tasks(n_samples, random_state):
    return {
        "checkerboard": make_curved_task(
            n_samples, shape="checkerboard", random_state=random_state
        ),
        "linear": make_linear_task(n_samples, random_state=random_state),
        "moons": make_moons(n_samples, noise=0.2, random_state=random_state),
    }


def demo(n_samples=1000, max_epochs=20, random_state=0, log=sys.stderr):
    """Held-out accuracy of each gate on each task, as a DataFrame (tasks x gates).

    Examples
    --------
    >>> table = demo(n_samples=100, max_epochs=1, log=None)
    >>> table.shape
    (3, 3)
    """
    rows = {}
    tasks = _tasks(n_samples, random_state)
    n_fits, done = len(tasks) * len(GATES), 0
    for task, (X, y) in tasks.items():
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.3, stratify=y, random_state=random_state
        )
        for name, params in GATES.items():
            start = time.perf_counter()
            clf = GatedAttentionClassifier(
                **params, max_epochs=max_epochs, random_state=random_state
            )
            accuracy = clf.fit(X_train, y_train).score(X_test, y_test)
            rows.setdefault(task, {})[name] = accuracy
            done += 1
            if log is not None:
                print(
                    f"[{done}/{n_fits}] {task:<12} {name:<16} accuracy "
                    f"{accuracy:.3f} ({time.perf_counter() - start:.1f} s)",
                    file=log,
                    flush=True,
                )
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "task"
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m skgate", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo_parser = commands.add_parser(
        "demo", help="accuracy of ungated, SiLU and gated attention on three tasks"
    )
    demo_parser.add_argument("--n-samples", type=int, default=1000)
    demo_parser.add_argument("--max-epochs", type=int, default=20)
    demo_parser.add_argument("--random-state", type=int, default=0)
    args = parser.parse_args(argv)
    if args.n_samples < 10:
        parser.error(f"--n-samples must be >= 10; got {args.n_samples}.")
    if args.max_epochs < 0:
        parser.error(f"--max-epochs must be >= 0; got {args.max_epochs}.")

    table = demo(args.n_samples, args.max_epochs, args.random_state)
    print(
        f"\nHeld-out accuracy (30 % test split, n_samples={args.n_samples}, "
        f"max_epochs={args.max_epochs}, random_state={args.random_state}):\n"
    )
    print(table.to_string(float_format="{:.3f}".format))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``python -m skgate demo``: held-out accuracy of each gate on three tasks."""

import sys
import time

import pandas as pd
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split

from ..datasets import make_curved_task, make_linear_task
from ..estimators import GatedAttentionClassifier
from .design import TEST_SIZE
from .facts import EPOCHS, STUDY_GATES

__all__ = ["demo"]


def _demo_tasks(n_samples, random_state):
    return {
        "checkerboard": make_curved_task(
            n_samples, shape="checkerboard", random_state=random_state
        ),
        "linear": make_linear_task(n_samples, random_state=random_state),
        "moons": make_moons(n_samples, noise=0.2, random_state=random_state),
    }


def demo(n_samples=1000, max_epochs=None, random_state=0, log=sys.stderr):
    """Held-out accuracy of each gate on each task, as a DataFrame (tasks x gates).

    ``max_epochs=None`` trains for the study's budget (``EPOCHS.study``);
    each fit prints a progress line to ``log`` (None: silent).

    Examples
    --------
    >>> table = demo(n_samples=100, max_epochs=1, log=None)
    >>> table.shape
    (3, 3)
    """
    epochs = {"max_epochs": EPOCHS.study if max_epochs is None else max_epochs}
    tasks = _demo_tasks(n_samples, random_state)
    gates = list(reversed(STUDY_GATES.order))  # weakest first
    rows, n_fits = {}, len(tasks) * len(gates)
    for task, (X, y) in tasks.items():
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=TEST_SIZE, stratify=y, random_state=random_state
        )
        for gate in gates:
            start = time.perf_counter()
            clf = GatedAttentionClassifier(gate, **epochs, random_state=random_state)
            accuracy = clf.fit(X_train, y_train).score(X_test, y_test)
            rows.setdefault(task, {})[STUDY_GATES.labels[gate]] = accuracy
            if log is not None:
                print(
                    f"[{sum(map(len, rows.values()))}/{n_fits}] {task:<12} "
                    f"{STUDY_GATES.labels[gate]:<16} accuracy {accuracy:.3f} "
                    f"({time.perf_counter() - start:.1f} s)",
                    file=log,
                    flush=True,
                )
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "task"
    return table

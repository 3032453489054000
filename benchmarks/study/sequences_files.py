"""The second confirmatory part's files (softmax attention over
sequences): its sweeps' CSVs, the tables and figures it derives, the
tasks' Bayes accuracies, and reading a run of it back, checked."""

from pathlib import Path

import pandas as pd

from . import attainable, runfiles

__all__ = ["BAYES", "FIGURES", "FILES", "REQUIRED", "TABLES", "load", "write_bayes"]

#: The part's sweeps' CSVs, by sweep name.
FILES = {
    name: f"seq_{name}.csv"
    for name in ("arms", "alpha", "depth", "lr_grid", "epochs20")
}
#: Its derived tables, by part name.
TABLES = {
    "tests": "tests_2_primary.csv",
    "secondary": "tests_2_secondary.csv",
    "power": "power_2.csv",
    "convergence": "convergence_2.csv",
    "arms": "arms_2.csv",
    "lr": "lr_2.csv",
    "metric": "metric_2.csv",
    "association": "association_2.csv",
    "alpha curve": "alpha_curve_2.csv",
    "alpha steps": "alpha_steps_2.csv",
    "attainable": "attainable_2.csv",
}
FIGURES = {
    "tests": "fig_primary_2.png",
    "arms": "fig_sequence_arms.png",
    "lr": "fig_lr.png",
}


#: The tasks' Bayes accuracies (written by the run, from the generator).
BAYES = "seq_bayes.csv"


def write_bayes(folder, sizes=(20_000, 1_000)):
    """seq_bayes.csv: the Bayes accuracy of every task the part's arms ran
    on, from the generator (:func:`study.claims.bayes_ceilings`;
    ``sizes``: rows and posterior draws per row)."""
    from .claims import bayes_ceilings

    folder = Path(folder)
    arms = pd.read_csv(folder / FILES["arms"])
    bayes_ceilings([arms], sizes).to_csv(
        folder / BAYES, index=False, float_format="%.6g"
    )


#: Sweeps every run of the part has (the quick run has no others).
REQUIRED = ("arms", "alpha", "depth")


def load(folder):
    """The part's frames by sweep (and "bayes"), or None where the run has
    none. A sweep the run must have that is missing, or a sweep whose cells
    (task, gate, learning rate, alpha, depth) do not all hold the same seeds,
    is a ValueError naming its file: a damaged run is never rendered."""
    folder = Path(folder)
    if not (folder / FILES["arms"]).is_file():
        return None
    missing = [FILES[name] for name in REQUIRED if not (folder / FILES[name]).is_file()]
    if missing:
        raise ValueError(
            f"{', '.join(missing)} missing beside {FILES['arms']} in {str(folder)!r}: "
            "the second part's run is incomplete."
        )
    files = {**FILES, "bayes": BAYES, "attainable": attainable.FILE}
    frames = {
        # Seeds are checked cell by cell below (naming the short cell).
        name: runfiles.read_csv(folder / file, count_seeds=False)
        for name, file in files.items()
        if (folder / file).is_file()
    }
    for name in REQUIRED:
        _check_balanced(frames[name], FILES[name])
    if "attainable" in frames:
        frames["attainable"]["shape"] = frames["attainable"]["shape"].fillna("")
    return frames


_CELL = ["task", "shape", "noise", "gate", "lr", "alpha", "depth"]


def _check_balanced(frame, file):
    """Every cell of a sweep holds the same seeds (the design is paired by
    seed); otherwise a ValueError naming the file and the first short cell."""
    keys = [key for key in _CELL if key in frame]
    cells = frame.fillna({"shape": "", "alpha": -1.0}).groupby(keys, dropna=False)
    seeds = cells["seed"].apply(frozenset)
    every = frozenset(frame["seed"])
    short = seeds[seeds != every]
    if len(short):
        cell = {
            key: value.item() if hasattr(value, "item") else value
            for key, value in zip(keys, short.index[0], strict=True)
        }
        lacking = sorted(every - short.iloc[0])
        raise ValueError(
            f"{file} lacks seeds {lacking[:5]} in the cell {cell} ({len(short)} "
            "cells short): the run is damaged or incomplete."
        )

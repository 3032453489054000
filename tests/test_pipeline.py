"""The study as one pipeline of parts: a new part is one module and one line,
and the pipeline runs and renders it as it does every other part."""

import importlib
import json
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from skgate.study import parts, pipeline, report
from skgate.study.design import StudyDesign
from skgate.study.facts import (
    COPIED_FIRST_SEED,
    COPIED_SEEDS,
    SEQUENCE_FIRST_SEED,
    SEQUENCE_SEEDS,
)
from skgate.study.part import Job
from skgate.study.parts import copied_tokens, softmax_sequences

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

#: A whole part: its settings (two fits of one epoch), its record, its
#: tests (a mean over the fits), its findings and its section.
COIN_PART = '''
    """A toy part: two tiny fits, their mean accuracy."""

    import pandas as pd

    from skgate.study.part import Part


    class Coin(Part):
        name = "coin"
        label = "coin fits"
        files = {"fits": "coin_fits.csv"}

        def settings(self, job):
            tiny = {"n_samples": 90, "max_epochs": 1, "d_model": 8, "n_curvature": 20}
            return {"fits": [{**tiny, "seed": seed} for seed in (0, 1)]}

        def finish(self, job, frames):
            return {"fits": len(frames["fits"])}

        def load(self, folder, info):
            if self.name not in info:
                return None
            return {"fits": pd.read_csv(folder / self.files["fits"])}

        def evaluate(self, frames, info):
            return {"accuracy": float(frames["fits"]["accuracy"].mean())}

        def bottom_line(self, results, report):
            return [f"The coin part's mean accuracy is {results['accuracy']:.3f}."]

        def findings(self, results, report, info):
            return [f"- **Coin**: {info[self.name]['fits']} fits."]

        def section(self, results, report, folder, info):
            return ["", "## The coin part", "", f"{results['accuracy']:.3f}"]


    PART = Coin()
'''


@pytest.fixture
def coin(tmp_path, monkeypatch):
    """The toy part's module, importable as ``coin_part``."""
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "coin_part.py").write_text(textwrap.dedent(COIN_PART))
    monkeypatch.syspath_prepend(str(modules))
    yield importlib.import_module("coin_part")
    sys.modules.pop("coin_part", None)


def test_a_new_part_is_one_module_and_one_line(coin, tmp_path, monkeypatch):
    """Registered beside the study's parts, the toy part runs (its sweep to
    its CSV, its record into run.json), renders (its bottom line, findings
    and section in REPORT.md) and renders again from its files alone, byte
    for byte; the study's own parts did not run and are not rendered."""
    registered = (*parts.PARTS, coin.PART)  # the one line
    monkeypatch.setattr(parts, "PARTS", registered)
    out = tmp_path / "run"
    verdicts = pipeline.reproduce(out, design=StudyDesign.quick(), part="coin")
    assert verdicts == {}
    fits = pd.read_csv(out / "coin_fits.csv")
    assert list(fits["seed"]) == [0, 1] and fits["accuracy"].between(0, 1).all()
    info = json.loads((out / "run.json").read_text())
    assert info["coin"] == {"fits": 2} and "coin fits" in info["seconds"]
    text = (out / "REPORT.md").read_text()
    mean = f"{fits['accuracy'].mean():.3f}"
    assert f"The coin part's mean accuracy is {mean}." in text
    assert "- **Coin**: 2 fits." in text and "## The coin part" in text
    assert "Protocols:" not in text and "## Part 1" not in text
    again = tmp_path / "again"
    report.render_run(out, again)
    assert (again / "REPORT.md").read_text() == text


def test_a_registered_part_that_did_not_run_changes_no_report(coin, tmp_path):
    """The committed run renders the same with the toy part registered."""
    original = parts.PARTS
    try:
        parts.PARTS = (*original, coin.PART)
        report.render_run(RESULTS, tmp_path)
    finally:
        parts.PARTS = original
    assert (tmp_path / "REPORT.md").read_bytes() == (RESULTS / "REPORT.md").read_bytes()


def test_the_full_run_fits_each_protocols_own_seeds(tmp_path):
    """The exploratory study's design (10 seeds) does not shrink the
    confirmatory parts of a full run; a design the caller gives does."""
    full = Job(tmp_path, design=StudyDesign.full(first_seed=COPIED_FIRST_SEED))
    second = softmax_sequences.seeds_by_sweep(full)
    assert {name: len(second[name]) for name in SEQUENCE_SEEDS} == SEQUENCE_SEEDS
    assert min(second["arms"]) == SEQUENCE_FIRST_SEED
    first = copied_tokens.seeds_by_sweep(full)
    assert {name: len(seeds) for name, seeds in first.items()} == COPIED_SEEDS
    shrunk = Job(tmp_path, design=StudyDesign.quick(n_seeds=3), shrunk=True)
    assert softmax_sequences.seeds_by_sweep(shrunk)["arms"] == (0, 1, 2)
    assert copied_tokens.seeds_by_sweep(shrunk)["alpha"] == (0, 1, 2)


def test_the_parts_run_and_render_in_the_registrys_order():
    names = [part.name for part in parts.PARTS]
    assert names == ["sequences", "copied", "exploratory", "theorem", "toy"]
    assert parts.by_name("copied") is copied_tokens.PART
    with pytest.raises(ValueError, match="no part is called 'coin'"):
        parts.by_name("coin")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"part": "tokens"}, "part must be one of"),
        ({"part": "sequences", "toy": True}, "toy=True runs with part='all' only"),
    ],
)
def test_reproduce_refuses_what_it_cannot_run(kwargs, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        pipeline.reproduce(tmp_path / "out", **kwargs)
    assert not (tmp_path / "out").exists()

"""benchmarks/diagnose_series.py's page (DIAGNOSIS.md): each change is the
mean of its paired fits with their standard error, the bottom line reads
the tables, the committed page is what the committed fits render, and the
user guide and findings quote its bottom line."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"


@pytest.fixture(scope="module")
def diagnosis():
    sys.path.insert(0, str(BENCHMARKS))  # it reads bench_sequences' splits
    try:
        spec = importlib.util.spec_from_file_location(
            "diagnose_series", BENCHMARKS / "diagnose_series.py"
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


def words(text):
    return " ".join(text.split())


def _rows(diagnosis, arms, shift):
    """Made-up fits: every arm on every (dataset, split), the arm ``a``'s
    accuracy ``0.7 + shift[a](dataset, split)``."""
    rows = [
        {
            "arm": arm,
            "dataset": d,
            "split": s,
            "accuracy": 0.7 + shift[arm](i, s),
            "seconds": 10.0,
        }  # fmt: skip
        for arm in arms
        for i, d in enumerate(diagnosis.DATASETS)
        for s in diagnosis.SPLITS
    ]
    return pd.DataFrame(rows)


def test_a_change_is_the_mean_of_its_paired_differences(diagnosis):
    arms = ["reference", "worse"]
    shift = {
        "reference": lambda i, s: 0.01 * s,
        "worse": lambda i, s: 0.01 * s - 0.02 * i,
    }
    table = diagnosis.changes(_rows(diagnosis, arms, shift), "reference", arms)
    worse = table.set_index("arm").loc["worse"]
    differences = np.repeat([0.0, -0.02, -0.04], 3)
    assert worse["change"] == pytest.approx(differences.mean())
    assert worse["se"] == pytest.approx(differences.std(ddof=1) / 3)
    assert worse["n"] == 9
    # The same shift on every pair: no spread, a standard error of 0.
    flat = {"reference": lambda i, s: 0.0, "worse": lambda i, s: -0.05}
    table = diagnosis.changes(_rows(diagnosis, arms, flat), "reference", arms)
    assert table.set_index("arm").loc["worse", "se"] == pytest.approx(0.0)


@pytest.mark.parametrize("gap, within", [(0.0, 3), (-0.03, 0), (-0.01, 3)])
def test_the_bottom_line_reads_the_gap_to_the_reference(diagnosis, gap, within):
    arms = ["reference", "new defaults"]
    shift = {"reference": lambda i, s: 0.0, "new defaults": lambda i, s: gap}
    rows = _rows(diagnosis, arms, shift)
    tables = {
        "reference": diagnosis.changes(rows, "reference", ["reference"]),
        "skgate": pd.DataFrame(),
        "new defaults": diagnosis.changes(rows, "new defaults", ["new defaults"]),
    }
    line = diagnosis.bottom_line(tables)[0]
    assert f"within 0.02 of the reference (or above) on {within} of 3" in line
    assert f"ArrowHead {gap:+.3f}" in line


def test_the_committed_page_is_what_its_fits_render(diagnosis, tmp_path):
    (tmp_path / "diagnosis.csv").write_text((RESULTS / "diagnosis.csv").read_text())
    (tmp_path / "diagnosis_run.json").write_text(
        (RESULTS / "diagnosis_run.json").read_text()
    )
    diagnosis.render(tmp_path)
    assert (tmp_path / "DIAGNOSIS.md").read_text() == (
        RESULTS / "DIAGNOSIS.md"
    ).read_text()
    assert (tmp_path / "fig_diagnosis.png").stat().st_size > 0


def test_the_guide_and_findings_quote_its_bottom_line(diagnosis):
    rows = pd.read_csv(RESULTS / "diagnosis.csv")
    tables = {base: diagnosis.changes(rows, base, arms)
              for _, base, arms in diagnosis.FAMILIES}  # fmt: skip
    lines = diagnosis.bottom_line(tables)
    assert lines
    for page in ("docs/user_guide/findings.md", "docs/user_guide/sequences.md"):
        text = words((ROOT / page).read_text())
        for line in lines:
            assert words(line) in text, page


def test_a_repeated_fit_is_refused(diagnosis, tmp_path):
    rows = pd.read_csv(RESULTS / "diagnosis.csv")
    pd.concat([rows, rows.iloc[:1]]).to_csv(tmp_path / "diagnosis.csv", index=False)
    with pytest.raises(SystemExit, match="repeats fits"):
        diagnosis.render(tmp_path)

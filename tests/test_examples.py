"""The examples, and the code of the README and the user guide, run as written."""

import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
#: The README, then the user guide's pages in the order a reader meets them
#: (docs/user_guide/index.rst): their code blocks run as one session.
GUIDE = [
    ROOT / "README.md",
    *(
        ROOT / "docs/user_guide" / f"{page}.md"
        for page in ("estimators", "curvature", "selection", "reproducing", "scaling")
    ),
]


def test_there_are_examples():
    assert len(EXAMPLES) >= 2


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    assert "accuracy" in capsys.readouterr().out


@pytest.mark.slow
def test_the_readme_and_guide_examples_run_as_one_session():
    namespace = {}
    for path in GUIDE:
        blocks = re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.DOTALL)
        for block in blocks:  # (not __main__: the Dask block's cluster waits)
            exec(compile(block, path.name, "exec"), namespace)
    assert namespace["kappa"].shape == (300,) and (namespace["kappa"] >= 0).all()
    assert namespace["kappa_logits"].shape == (50,)
    assert namespace["selection"].best_params_ == {"alpha": 0.0}
    assert namespace["cv"]["test_curvature"].shape == (3,)
    assert len(namespace["rows"]) == 8
    assert namespace["alpha_search"].alpha_ == 0.0
    assert namespace["refit_kappa"].max() < 1e-9  # alpha 0: flat


def test_the_guide_quotes_the_committed_benchmarks():
    """The benchmark numbers the user guide quotes (estimators.md,
    curvature.md) are those of benchmarks/results."""
    import pandas as pd

    readme = " ".join(" ".join(path.read_text() for path in GUIDE).split())
    frame = pd.read_csv(ROOT / "benchmarks/results/MLP.csv")
    reached = frame.pivot(index="rows", columns="model", values=frame.columns[3])
    ratios = (
        reached["skgate (early_stopping=True)"] / reached["MLPClassifier (defaults)"]
    )
    assert (
        "in "
        + ", ".join(f"{r:.2f}" for r in ratios[:-1])
        + f" and {ratios.iloc[-1]:.2f}"
        " times MLPClassifier's time"
    ) in readme
    hgb = reached["HistGradientBoosting (defaults)"]
    assert "HistGradientBoosting was faster than both" in readme
    assert (hgb < reached["skgate (early_stopping=True)"]).all()
    assert (hgb < reached["MLPClassifier (defaults)"]).all()
    total = frame.set_index(["rows", "model"])["seconds in all"]
    largest = frame["rows"].max()
    assert (
        f"({total[largest, 'skgate (early_stopping=True)']:.0f} s against "
        f"{total[largest, 'MLPClassifier (defaults)']:.0f} s)"
    ) in readme
    intrinsic = (ROOT / "benchmarks/results/INTRINSIC.md").read_text()
    row = next(line for line in intrinsic.splitlines() if line.startswith("| 500 |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    seconds, gigabytes = float(cells[2]), float(cells[3])
    assert f"{gigabytes:.1f} GB and {seconds:.0f} s" in readme

"""The examples and the README's code run as written."""

import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    assert "accuracy" in capsys.readouterr().out


def test_readme_example_runs():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    assert blocks, "README.md has no python example"
    namespace = {}
    for block in blocks:
        if block.startswith("# needs a Dask cluster"):
            continue
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["H"].shape == (150, 8, 64)
    assert namespace["kappa"].shape == (150,) and (namespace["kappa"] >= 0).all()
    assert namespace["kappa_logits"].shape == (50,)
    assert namespace["selection"].best_params_ == {"alpha": 0.0}
    assert namespace["cv"]["test_curvature"].shape == (3,)
    assert len(namespace["rows"]) == 8
    assert namespace["search"].best_score_ > 0.85

"""Every Python snippet of the documentation runs as written.

The snippets of one page run in order in one namespace, as a reader would
run them in one session, every one of them (the Dask snippet on the local
cluster it starts; your_data.md's benchmarks in about 3 minutes). Slow: some
snippets train at the estimators' defaults.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PAGES = [p for p in PAGES if "_build" not in p.parts]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def snippets(page):
    """The page's Python snippets."""
    return _BLOCK.findall(page.read_text())


@pytest.mark.slow
@pytest.mark.parametrize(
    "page",
    [p for p in PAGES if snippets(p)],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_snippet_runs_as_written(page, tmp_path):
    code = "\n\n".join(snippets(page))
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}
    # The study's pages run with benchmarks/ on the path, as they say.
    env["PYTHONPATH"] = str(ROOT / "benchmarks")
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=2700,
    )
    assert done.returncode == 0, done.stderr[-3000:]

"""Every Python snippet of the documentation runs as written.

The snippets of one page run in order in one namespace, as a reader would
run them in one session; a snippet whose first line says it needs
something this machine lacks (``# needs a Dask cluster``) or trains for
minutes (``# trains for minutes``) is left out, and a test names those.
Slow: some snippets train at the estimators' defaults.
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
#: The first line of a snippet the test leaves out: one that needs a
#: cluster, or trains for minutes (too long for the suite).
NEEDS = ("# needs a Dask cluster", "# trains for minutes")


def snippets(page):
    """The page's Python snippets, those it can run here."""
    return [
        code for code in _BLOCK.findall(page.read_text())
        if not code.startswith(NEEDS)
    ]  # fmt: skip


def test_few_snippets_are_left_out():
    left_out = [
        page.name
        for page in PAGES
        for code in _BLOCK.findall(page.read_text())
        if code.startswith(NEEDS)
    ]
    assert left_out == ["scaling.md"] + ["your_data.md"] * 3


@pytest.mark.slow
@pytest.mark.parametrize(
    "page",
    [p for p in PAGES if snippets(p)],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_snippet_runs_as_written(page, tmp_path):
    code = "\n\n".join(snippets(page))
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=2700,
    )
    assert done.returncode == 0, done.stderr[-3000:]

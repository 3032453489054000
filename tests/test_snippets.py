"""Every Python block of the documentation runs on its own, as written.

A reader copies one block, not a page's blocks in order: each ```python
block of README.md and of the Markdown pages under docs/, and each
``.. code-block:: python`` of its reStructuredText pages, runs alone in a
fresh namespace, from an empty folder (a block that needs a name defines or
imports it). A block that is not meant to run (a shell command, a file's
contents) takes another language tag.

Most blocks run in seconds and are in the fast suite; those in ``SLOW``
train for longer, start worker processes or a Dask cluster, and run in
``make test-slow``.
"""

import re
import sys
import textwrap
from pathlib import Path

import matplotlib
import pytest

# The blocks that draw, draw without a screen.
matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
PAGES = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts),
    *sorted(p for p in (ROOT / "docs").rglob("*.rst") if "_build" not in p.parts),
]
_MARKDOWN = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
# The directive, a blank line, then the block's indented lines (blank lines
# inside it included).
_RST = re.compile(
    r"^\.\. code-block:: python\n(?:[ \t]+:.*\n)*\n((?:(?:[ \t]+.*)?\n)+)",
    re.MULTILINE,
)

#: The blocks that take more than a few seconds, by page and number (from 1),
#: and why.
SLOW = {
    "docs/user_guide/estimators.md#2": "early stopping over up to 200 epochs",
    "docs/user_guide/reproducing.md#1": "run_sweep starts two worker processes",
    "docs/user_guide/scaling.md#2": "a Dask cluster and a grid search",
    "docs/user_guide/selection.md#2": "cross_validate and a grid search: 16 fits",
    "docs/user_guide/sequences.md#1": "100 epochs on JapaneseVowels",
    "docs/user_guide/your_data.md#1": "compare_gates: 60 fits",
    "docs/user_guide/your_data.md#2": "benchmark_gates on three datasets",
    "docs/user_guide/your_data.md#3": "benchmark_gates with a grid search per model",
}


def blocks(page):
    """The page's Python blocks, each as its own source text."""
    text = page.read_text()
    if page.suffix == ".md":
        return _MARKDOWN.findall(text)
    return [textwrap.dedent(block) for block in _RST.findall(text)]


def _snippets():
    for page in PAGES:
        name = page.relative_to(ROOT).as_posix()
        for number, code in enumerate(blocks(page), start=1):
            key = f"{name}#{number}"
            marks = [pytest.mark.slow] if key in SLOW else []
            yield pytest.param(key, code, id=key, marks=marks)


SNIPPETS = list(_snippets())


def test_every_slow_block_is_there():
    """SLOW names blocks that exist: a block moved or removed updates it."""
    keys = {param.values[0] for param in SNIPPETS}
    assert set(SLOW) <= keys, set(SLOW) - keys


def test_the_blocks_are_found_in_every_kind_of_page():
    """The extraction finds the README's block, the Markdown pages' and the
    index's code-block (a pattern that misses a kind finds nothing to run)."""
    keys = {param.values[0] for param in SNIPPETS}
    assert {"README.md#1", "docs/index.rst#1", "docs/user_guide/scaling.md#2"} <= keys
    index = dict(param.values for param in SNIPPETS)["docs/index.rst#1"]
    assert index.startswith("from sklearn.datasets import make_moons\n")
    assert "kappa = representation_curvature(clf, X)" in index


@pytest.mark.parametrize(("key", "code"), SNIPPETS)
def test_every_block_runs_on_its_own(key, code, tmp_path, monkeypatch):
    """The block in a namespace of its own, as a script (``__name__`` is
    ``"__main__"``) run in an empty folder; a gate it registers and the
    figures it draws are removed after it."""
    from skgate.nn import GATES, unregister_gate

    monkeypatch.chdir(tmp_path)
    gates = set(GATES)
    try:
        exec(compile(code, key, "exec"), {"__name__": "__main__"})
    finally:
        for name in set(GATES) - gates:
            unregister_gate(name)
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")

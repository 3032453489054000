"""The README: short, opening with a user's quickstart whose example runs
as written and says what it prints; the results it used to quote live in
docs/user_guide/findings.md (held to their runs by test_docs.py,
test_benchmark.py and test_bench_sequences.py)."""

import re
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()

#: GitHub shows the README; the rest is the documentation's.
MAX_CHARACTERS = 8000


def _words(text):
    return " ".join(text.split())


def _sections(text, level="## "):
    """The text's sections of one heading level, as {heading: body}."""
    parts = re.split(rf"^{level}(.+)$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_the_readme_is_short_and_opens_with_the_user_quickstart():
    assert len(README) <= MAX_CHARACTERS, len(README)
    sections = _sections(README)
    headings = list(sections)
    assert headings[0] == "Quickstart"
    assert headings.index("Working on skgate") > 0
    quickstart = _sections(sections["Quickstart"], "### ")
    assert list(quickstart) == ["Install", "A first model", "Where to go next"]
    assert "pip install ." in quickstart["Install"]
    assert "download.pytorch.org/whl/cpu" in quickstart["Install"]
    assert "```python\n" in quickstart["A first model"]
    # The first Python block of the README is the quickstart's.
    assert README.index("```python\n") > README.index("## Quickstart")
    assert README.index("```python\n") < README.index("## Working on skgate")
    # make demo and make test stay the contributor's, after the user's part.
    assert README.index("make demo") > README.index("## Working on skgate")


def test_the_readmes_links_lead_somewhere():
    links = re.findall(r"\]\(([^)]+)\)", README)
    assert any(link.startswith("docs/user_guide/") for link in links)
    assert "docs/user_guide/findings.md" in links
    for link in links:
        assert (ROOT / link).exists(), link
    # The findings page is in the site's table of contents.
    toc = (ROOT / "docs/user_guide/index.rst").read_text()
    assert re.search(r"^   findings$", toc, flags=re.MULTILINE)


def test_the_readme_example_runs_and_prints_what_it_says(capsys):
    """The quickstart's example, as written: it trains in seconds, both
    models score about 0.9, the ungated model is flat and the gated one is
    not (the sentence after it says so)."""
    block = re.search(r"^```python\n(.*?)^```", README, re.MULTILINE | re.DOTALL)
    namespace = {}
    start = time.perf_counter()
    exec(compile(block.group(1), "README.md", "exec"), namespace)
    assert time.perf_counter() - start < 30
    printed = dict(
        (gate, (float(accuracy), float(curvature)))
        for gate, accuracy, curvature in re.findall(
            r"^(\w+): accuracy ([\d.]+), curvature ([\d.]+)$",
            capsys.readouterr().out,
            flags=re.MULTILINE,
        )
    )
    assert set(printed) == {"multiplicative", "none"}
    for accuracy, _ in printed.values():
        assert abs(accuracy - 0.9) <= 0.05
    assert printed["multiplicative"][1] > 0.5
    # The loop's last model is the ungated one: exactly flat.
    assert namespace["clf"].gate == "none"
    assert namespace["kappa"].max() < 1e-9
    said = _words(README)
    assert "Both models score about 0.9;" in said
    assert "the ungated one's curvature is 0" in said

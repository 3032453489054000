"""benchmarks/bench_build.py: the quickstart's times, measured once from a
fresh clone; the README states them in one sentence generated from that
run's record, and nowhere else."""

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def _load():
    path = ROOT / "benchmarks" / "bench_build.py"
    spec = importlib.util.spec_from_file_location("bench_build", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench_build = _load()


def _words(text):
    return " ".join(text.split())


def _record(**changes):
    steps = [
        {
            "step": name,
            "command": f"make {target}",
            "seconds": 10.0 * (i + 1),
            "exit_code": 0,
            "load_before": 0.5 + i,
            "load_after": 0.25,
        }
        for i, (name, target, _) in enumerate(bench_build.STEPS)
    ]
    steps[2]["pytest"] = "4000 passed, 8 xfailed in 190.00s (0:03:10)"
    steps[3]["pytest"] = "120 passed in 400.00s"
    record = {
        "commit": "0123456789abcdef",
        "clean_at_start": True,
        "clean_at_end": True,
        "started": "2026-12-06 14:00 UTC",
        "cpus": 2,
        "python": "3.11.7",
        "pip_cache": False,
        "steps": steps,
    }
    return {**record, **changes}


def test_the_sentence_states_each_time_once_with_the_load():
    sentence = bench_build.quickstart_sentence(_record())
    assert "commit 0123456" in sentence
    assert "torch's CPU build from the machine's disk) took 10 s" in sentence
    assert "`make demo` took 20 s, `make test` 30 s (4000 passed, 8 xfailed)" in (
        sentence
    )
    assert "`make test-slow` 40 s (120 passed)" in sentence
    assert "`make docs` 60 s, after 50 s of installing its extra" in sentence
    assert "between 0.2 and 5.5" in sentence
    for seconds in (10, 20, 30, 40, 50, 60):
        assert len(re.findall(rf"\b{seconds} s\b", sentence)) == 1


def test_a_run_that_failed_or_stopped_gives_no_sentence():
    failed = _record()
    failed["steps"][3]["exit_code"] = 2
    with pytest.raises(ValueError, match="test-slow"):
        bench_build.quickstart_sentence(failed)
    short = _record()
    del short["steps"][4:]
    with pytest.raises(ValueError, match="cut short"):
        bench_build.quickstart_sentence(short)


def test_the_page_is_the_records_table():
    page = bench_build.render(_record())
    assert "commit 0123456" in page
    assert "| test | `make test` | 30 | 0 | 2.50 | 0.25 | 4000 passed" in page


@pytest.mark.skipif(
    not (RESULTS / "build_times.json").is_file(), reason="no recorded run yet"
)
def test_readme_states_the_committed_run_once():
    record = json.loads((RESULTS / "build_times.json").read_text())
    assert record["clean_at_start"] and record["clean_at_end"]
    assert (RESULTS / "BUILD_TIMES.md").read_text() == bench_build.render(record)
    readme = _words((ROOT / "README.md").read_text())
    sentence = _words(bench_build.quickstart_sentence(record))
    assert readme.count(sentence) == 1
    # No other time of the quickstart's commands anywhere in the README.
    rest = readme.replace(sentence, "")
    for command in ("make demo", "make test", "make test-slow", "make docs"):
        for match in re.finditer(re.escape(command), rest):
            near = rest[match.start() : match.start() + 160]
            assert not re.search(r"\b\d+ s\b|minute", near), near

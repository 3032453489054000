"""How long the quickstart's commands take from a fresh clone: the times the
README states, each measured once, here.

Clones the repository's HEAD into a temporary folder (nothing of this
checkout's ``.venv`` or build is reused), then runs, one after another and
timed by wall clock:

1. ``make .venv/.installed``: what a first ``make demo`` or ``make test``
   adds (a new virtual environment and every package; pip's cache is off
   unless ``--pip-cache``, so the packages come from the registry as on a
   fresh machine; torch 2.13.0's CPU build comes from this machine's disk,
   as the README says);
2. ``make demo``, 3. ``make test``, 4. ``make test-slow``;
5. ``make .venv/.installed-docs`` (what a first ``make docs`` adds);
6. ``make docs``.

For each: the seconds, the exit code, and the machine's load (the 1-minute
load average before and after, and the 2-core machine's CPU count), since
another job on the cores can double a time. Writes
``benchmarks/results/build_times.json`` and ``BUILD_TIMES.md``, with the
commit measured and whether its tree was clean. A step that fails stops the
run and is recorded as failed.

    python benchmarks/bench_build.py [--out benchmarks/results]
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (name, make target, what it is): the steps, in the order they run.
STEPS = (
    ("install", ".venv/.installed", "first use: .venv and every package"),
    ("demo", "demo", "make demo, .venv set up"),
    ("test", "test", "make test, .venv set up"),
    ("test-slow", "test-slow", "make test-slow, .venv set up"),
    ("docs install", ".venv/.installed-docs", "first make docs: the docs extra"),
    ("docs", "docs", "make docs, its extra installed"),
)


def _git(*args, cwd=ROOT):
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def _clean():
    return _git("status", "--porcelain", "--untracked-files=no") == ""


def _step(name, target, clone, env):
    """Run ``make target`` in ``clone``; its record (the output's tail kept
    only on failure)."""
    print(f"[{time.strftime('%H:%M:%S')}] {name}: make {target}", flush=True)
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    done = subprocess.run(
        ["make", target], cwd=clone, env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    record = {
        "step": name,
        "command": f"make {target}",
        "seconds": round(seconds, 1),
        "exit_code": done.returncode,
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }
    summary = [line for line in done.stdout.splitlines() if " passed" in line]
    if summary:
        record["pytest"] = summary[-1].strip("= ")
    if done.returncode:
        record["output_tail"] = (done.stdout + done.stderr)[-2000:]
    print(f"    {seconds:.0f} s, exit {done.returncode}", flush=True)
    return record


def run(pip_cache=False):
    """Every step in a fresh clone of HEAD; the run's record."""
    commit, clean = _git("rev-parse", "HEAD"), _clean()
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    if not pip_cache:
        env["PIP_NO_CACHE_DIR"] = "1"
    started = time.time()
    records = []
    with tempfile.TemporaryDirectory(prefix="skgate-build-") as tmp:
        clone = Path(tmp) / "skgate"
        subprocess.run(
            ["git", "clone", "--quiet", "--no-local", str(ROOT), str(clone)],
            check=True,
        )
        subprocess.run(["git", "checkout", "--quiet", commit], cwd=clone, check=True)
        for name, target, _ in STEPS:
            records.append(_step(name, target, clone, env))
            if records[-1]["exit_code"]:
                break
        shutil.rmtree(clone / ".venv", ignore_errors=True)
    return {
        "commit": commit,
        "clean_at_start": clean,
        "clean_at_end": _clean(),
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "pip_cache": pip_cache,
        "steps": records,
    }


def quickstart_sentence(record):
    """The README's one statement of the quickstart's times, from a run's
    record: each time once, with the machine's load and what a first run
    adds (the install)."""
    steps = {step["step"]: step for step in record["steps"]}
    failed = [s["step"] for s in record["steps"] if s["exit_code"]]
    if failed or len(steps) < len(STEPS):
        raise ValueError(f"the run did not finish: {failed or 'cut short'}")
    loads = [v for s in record["steps"] for v in (s["load_before"], s["load_after"])]

    def took(name):
        return f"{steps[name]['seconds']:.0f} s"

    def tests(name):
        return steps[name]["pytest"].split(" in ")[0]

    return (
        f"Measured once from a fresh clone of commit {record['commit'][:7]} "
        f"on this project's {record['cpus']}-core machine "
        "(`benchmarks/bench_build.py`, `benchmarks/results/BUILD_TIMES.md`): "
        f"the first use's install (a new `.venv`, pip's cache off: the "
        f"packages from the registry, torch's CPU build from the machine's "
        f"disk) took {took('install')}; then `make demo` took "
        f"{took('demo')}, `make test` {took('test')} ({tests('test')}), "
        f"`make test-slow` {took('test-slow')} ({tests('test-slow')}) and "
        f"`make docs` {took('docs')}, after {took('docs install')} of "
        f"installing its extra. The 1-minute load average stayed between "
        f"{min(loads):.1f} and {max(loads):.1f} (above {record['cpus']}, "
        "another job shared the cores)."
    )


def render(record):
    """BUILD_TIMES.md: the run's table and what it measured."""
    rows = [
        "| step | command | seconds | exit | load before | load after | tests |",
        "|---|---|---|---|---|---|---|",
    ]
    for step in record["steps"]:
        rows.append(
            f"| {step['step']} | `{step['command']}` | {step['seconds']:.0f} | "
            f"{step['exit_code']} | {step['load_before']:.2f} | "
            f"{step['load_after']:.2f} | {step.get('pytest', '')} |"
        )
    cache = "on" if record["pip_cache"] else "off (packages from the registry)"
    return "\n".join(
        [
            "# The quickstart's times, from a fresh clone",
            "",
            "Generated by `python benchmarks/bench_build.py`: a fresh clone of "
            f"commit {record['commit'][:7]} (its tree clean: "
            f"{record['clean_at_start']} at the start, {record['clean_at_end']} "
            f"at the end), started {record['started']}, on {record['cpus']} "
            f"CPUs with Python {record['python']}; pip's cache {cache}.",
            "",
            "Load is the 1-minute load average before and after the step: "
            f"above {record['cpus']} another job shared the cores.",
            "",
            *rows,
            "",
        ]
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument(
        "--pip-cache", action="store_true", help="let pip use its cache"
    )
    args = parser.parse_args(argv)
    record = run(args.pip_cache)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "build_times.json").write_text(json.dumps(record, indent=2) + "\n")
    (args.out / "BUILD_TIMES.md").write_text(render(record))
    failed = [s["step"] for s in record["steps"] if s["exit_code"]]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

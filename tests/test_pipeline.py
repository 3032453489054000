"""The study as one pipeline of parts: a new part is one module and one line,
and the pipeline runs and renders it as it does every other part."""

import importlib
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from study import parts, pipeline, report, runfiles
from study.design import StudyDesign
from study.facts import (
    COPIED_FIRST_SEED,
    COPIED_SEEDS,
    SEQUENCE_FIRST_SEED,
    SEQUENCE_SEEDS,
)
from study.part import Job
from study.parts import copied_tokens, softmax_sequences

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

#: A whole part: its settings (two fits of one epoch), its record, its
#: tests (a mean over the fits), its findings and its section.
COIN_PART = '''
    """A toy part: two tiny fits, their mean accuracy."""

    import pandas as pd

    from study.part import Part


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


    class Quiet(Coin):
        """The same fits, under another name and file, with no bottom line."""

        name = "quiet"
        files = {"fits": "quiet_fits.csv"}

        def bottom_line(self, results, report):
            return None


    QUIET = Quiet()
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
    # The run knows its code: the commit at the part's start and end.
    here = runfiles.code_state()
    assert info["code"] == {"coin fits": {"start": here, "end": here}}
    assert re.fullmatch(r"[0-9a-f]{40}", here["commit"])
    assert f"Code: `{here['commit'][:12]}`" in text


def test_a_replication_says_so_and_how_long_it_took(coin, tmp_path, monkeypatch):
    """A whole run with replication=True records it in run.json and in its
    command, with the whole run's wall time (at least its parts')."""
    monkeypatch.setattr(parts, "PARTS", (coin.PART,))
    out = tmp_path / "run"
    pipeline.reproduce(out, design=StudyDesign.quick(), replication=True, toy=True)
    info = json.loads((out / "run.json").read_text())
    assert info["replication"] is True
    assert info["total seconds"] >= sum(info["seconds"].values()) > 0
    again = tmp_path / "again"
    pipeline.reproduce(again, design=StudyDesign.quick())
    assert "replication" not in json.loads((again / "run.json").read_text())


def _commit(checkout, message):
    git = ["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", message], check=True, capture_output=True)


def test_a_run_records_the_commit_and_whether_its_code_changed(tmp_path):
    """code_state reads the checkout's commit, and calls it dirty when the
    code (not the run's own outputs) differs from it; outside a checkout,
    no commit."""
    checkout = tmp_path / "checkout"
    (checkout / "skgate").mkdir(parents=True)
    (checkout / "skgate" / "a.py").write_text("x = 1\n")
    (checkout / "results.csv").write_text("a\n1\n")
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    _commit(checkout, "one")
    clean = runfiles.code_state(checkout)
    assert re.fullmatch(r"[0-9a-f]{40}", clean["commit"]) and clean["dirty"] is False
    (checkout / "results.csv").write_text("a\n2\n")  # an output: still clean
    (checkout / "new.csv").write_text("b\n")
    assert runfiles.code_state(checkout) == clean
    (checkout / "skgate" / "a.py").write_text("x = 2\n")
    assert runfiles.code_state(checkout) == {**clean, "dirty": True}
    _commit(checkout, "two")
    later = runfiles.code_state(checkout)
    assert later["commit"] != clean["commit"] and later["dirty"] is False
    assert runfiles.code_state(tmp_path) == {"commit": None, "dirty": None}
    assert runfiles.code_state(checkout / "skgate") == {"commit": None, "dirty": None}


@pytest.mark.parametrize(
    "code",
    [
        {"arms": []},
        {"arms": {"start": {"commit": "a" * 40, "dirty": False}}},
        {"arms": {"start": None, "end": None}},
        {"arms": {"start": {"commit": ["a" * 40], "dirty": False}, "end": {}}},
        {"arms": {"start": {"commit": "", "dirty": False}, "end": {}}},
        {"arms": {"start": {"commit": "abc\n## Injected", "dirty": False}, "end": {}}},
        {"arms": {"start": {"commit": "a" * 40, "dirty": "yes"}, "end": {}}},
    ],
)
def test_a_damaged_code_record_is_named(tmp_path, code):
    (tmp_path / "run.json").write_text(json.dumps({"command": "x", "code": code}))
    with pytest.raises(ValueError, match=r"run.json: 'code' of 'arms'"):
        runfiles.load_info(tmp_path)


def test_the_report_names_both_commits_and_warns_when_they_differ(tmp_path, capsys):
    one, two = (
        {"commit": "a" * 40, "dirty": False},
        {"commit": "b" * 40, "dirty": False},
    )
    same = {"code": {"arms": {"start": one, "end": one}}}
    assert runfiles.code_text(same) == (
        "Code: `aaaaaaaaaaaa` at the start of every part and `aaaaaaaaaaaa` at its end."
    )
    assert runfiles.code_changes(same) == []
    moved = {
        "code": {
            "arms": {"start": one, "end": two},
            "alpha": {"start": two, "end": two},
        }
    }
    text = runfiles.code_text(moved)
    assert "arms `aaaaaaaaaaaa` at its start and `bbbbbbbbbbbb` at its end" in text
    assert "**Warning**: the code of arms, alpha changed" in text  # b differs too
    assert runfiles.code_changes(moved) == ["arms", "alpha"]
    dirty = {"code": {"arms": {"start": one, "end": {**one, "dirty": True}}}}
    assert runfiles.code_changes(dirty) == ["arms"]
    assert "files changed" in runfiles.code_text(dirty)
    assert "records no commit" in runfiles.code_text({})
    extra = {"start": {**one, "branch": "main"}, "end": one}
    assert runfiles.code_changes({"code": {"arms": extra}}) == []
    apart = {
        "code": {
            "arms": {"start": one, "end": one},
            "alpha": {"start": two, "end": two},
        }
    }
    assert runfiles.code_changes(apart) == ["arms", "alpha"]
    assert "differed from another part's" in runfiles.code_text(apart)
    # The committed run predates the record: its report says so, no warning.
    info = runfiles.load_info(RESULTS)
    assert "code" not in info and runfiles.code_changes(info) == []
    assert "- Code: run.json records no commit" in (RESULTS / "REPORT.md").read_text()


@pytest.mark.slow
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
        ({"part": "sequences", "replication": True}, "replication runs the whole"),
        ({"quick": True, "replication": True}, "replication runs the whole"),
        ({"replication": True}, "replication runs the whole"),  # without toy
        ({"replication": True, "toy": True, "seeds": 5}, "replication runs the whole"),
    ],
)
def test_reproduce_refuses_what_it_cannot_run(kwargs, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        pipeline.reproduce(tmp_path / "out", **kwargs)
    assert not (tmp_path / "out").exists()


def test_replication_is_true_or_false(tmp_path):
    with pytest.raises(TypeError, match="replication must be True or False; got 'yes'"):
        pipeline.reproduce(tmp_path / "out", replication="yes")
    assert not (tmp_path / "out").exists()


def test_the_registry_refuses_a_name_or_a_file_twice(coin, tmp_path, monkeypatch):
    twice = (*parts.PARTS, coin.PART, coin.PART)
    with pytest.raises(ValueError, match=r"distinct names; \['coin'\] more than once"):
        parts.check(twice)
    clash = type(coin.PART)()
    clash.name, clash.files = "clash", {"arms": "seq_arms.csv"}
    with pytest.raises(ValueError, match="'sequences' and 'clash' both write seq_arms"):
        parts.check((*parts.PARTS, clash))
    monkeypatch.setattr(parts, "PARTS", twice)
    with pytest.raises(ValueError, match="distinct names"):
        pipeline.reproduce(tmp_path / "out", part="coin")
    assert not (tmp_path / "out").exists()


def test_a_sweep_without_settings_is_refused_before_it_runs(
    coin, tmp_path, monkeypatch
):
    empty = type(coin.PART)()
    empty.settings = lambda job: {"fits": []}
    monkeypatch.setattr(parts, "PARTS", (*parts.PARTS, empty))
    with pytest.raises(ValueError, match=r"sweeps \['fits'\] hold no settings"):
        pipeline.reproduce(tmp_path, design=StudyDesign.quick(), part="coin")
    assert not (tmp_path / "coin_fits.csv").exists()


def test_a_run_of_an_unregistered_part_is_not_rendered_without_it(
    coin, tmp_path, monkeypatch
):
    """run.json names the parts that ran; a process that does not know one
    refuses the render (in one line, on the command line) rather than
    dropping its section; a part without a bottom line leaves it to the
    others."""
    from study import cli

    monkeypatch.setattr(parts, "PARTS", (*parts.PARTS, coin.QUIET))
    pipeline.reproduce(tmp_path, design=StudyDesign.quick(), part="quiet")
    text = (tmp_path / "REPORT.md").read_text()
    assert "No part rendered here gives a bottom line." in text
    assert json.loads((tmp_path / "run.json").read_text())["parts"] == ["quiet"]
    monkeypatch.setattr(parts, "PARTS", parts.PARTS[:-1])
    with pytest.raises(
        ValueError, match=r"records the parts \['quiet'\], which are not"
    ):
        report.render_run(tmp_path, tmp_path / "again")
    with pytest.raises(SystemExit) as stop:
        cli.main(["report", "--from", str(tmp_path), "--out", str(tmp_path / "cli")])
    assert stop.value.code == 2
    assert not (tmp_path / "again").exists() and not (tmp_path / "cli").exists()


def test_a_recorded_part_without_its_sweeps_is_named(tmp_path):
    info = json.loads((RESULTS / "run.json").read_text())
    small = {k: info[k] for k in ("command", "machine", "seconds", "sequences")}
    (tmp_path / "run.json").write_text(json.dumps(small))
    with pytest.raises(ValueError, match="seq_arms.csv is missing, but run.json"):
        report.render_run(tmp_path)
    assert not (tmp_path / "REPORT.md").exists()
    # The first part's record without its sweeps: named the same way.
    first = {k: v for k, v in info.items() if k not in ("sequences", "design")}
    (tmp_path / "run.json").write_text(json.dumps(first))
    with pytest.raises(ValueError, match="primary_alpha.csv is missing, but run.json"):
        report.render_run(tmp_path)
    assert not (tmp_path / "REPORT.md").exists()


@pytest.mark.parametrize("command", ["reproduce", "report", "pilot", "compare"])
def test_an_out_that_is_a_file_is_named_with_its_command(command, tmp_path, capsys):
    from study import cli

    out = tmp_path / "README.md"
    out.write_text("a file\n")
    argv = {
        "reproduce": ["reproduce"],
        "report": ["report", "--from", str(RESULTS)],
        "pilot": ["pilot"],
        "compare": ["compare", str(tmp_path / "d.csv"), "--target", "y"],
    }[command]
    (tmp_path / "d.csv").write_text("x,y\n1,0\n2,1\n")
    with pytest.raises(SystemExit) as stop:
        if command == "compare":  # the library's command (python -m skgate)
            from skgate.command import parse
            from skgate.compare import run_command

            run_command(*parse([*argv, "--out", str(out)]))
        else:
            cli.main([*argv, "--out", str(out)])
    assert stop.value.code == 2
    error = capsys.readouterr().err
    program = "skgate" if command == "compare" else "study"
    assert f"python -m {program} {command}: error: --out must be a folder" in error
    assert error.count("\n") == 1


def test_an_interrupted_part_leaves_the_folder_as_it_was(coin, tmp_path, monkeypatch):
    """A part run again into a folder that holds its earlier run: Ctrl-C in
    the new run puts back the earlier files, run.json and REPORT.md, byte
    for byte, and leaves nothing of its own behind."""
    from study import sweeps

    monkeypatch.setattr(parts, "PARTS", (*parts.PARTS, coin.PART))
    out = tmp_path / "run"
    pipeline.reproduce(out, design=StudyDesign.quick(), part="coin")
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweeps, "run_sweep", interrupted)
    with pytest.raises(KeyboardInterrupt):
        pipeline.reproduce(out, design=StudyDesign.quick(n_seeds=3), part="coin")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_replay_refits_a_runs_rows_to_the_same_numbers(coin, tmp_path, monkeypatch):
    """Every row of a run fitted again from run.json's record is the same
    number in every cell; a cell changed in the CSV is found and named, and
    the command says so in its exit code."""
    from study import cli, replay

    monkeypatch.setattr(parts, "PARTS", (coin.PART,))
    out = tmp_path / "run"
    pipeline.reproduce(out, design=StudyDesign.quick())
    assert runfiles.load_info(out)["cpu capability"]  # its machine, for a replay
    assert list(replay.replayable(out)) == ["coin"]
    assert list(replay.replayable(out)["coin"]) == ["coin_fits.csv"]
    found = replay.replay(out, progress=False)
    assert list(found["row"]) == [0, 1] and found["identical"].all()
    assert found.attrs["case"] == "same" and found.attrs["rtol"] == 0
    fits = pd.read_csv(out / "coin_fits.csv")
    fits.loc[1, "accuracy"] += 0.125
    fits.to_csv(out / "coin_fits.csv", index=False)
    found = replay.replay(out, rows=[1], progress=False)
    assert not found["identical"].any() and found["columns"].iloc[0] == "accuracy"
    assert cli.main(["replay", "--from", str(out), "--rows", "0"]) == 0
    assert cli.main(["replay", "--from", str(out), "--sample", "0"]) == 1
    # A tolerance as wide as the change lets it pass, a narrower one does not.
    wide = replay.replay(out, rows=[1], rtol=0.5, progress=False)
    assert wide["agrees"].all() and not wide["identical"].any()
    assert "agrees within 0.5; differs in accuracy" in "\n".join(
        replay.replay_lines(wide, out)
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"files": ["nothing.csv"]}, r"files \['nothing.csv'\] are not fitted tables"),
        (
            {"rows": [2]},
            r"rows \[2\] are not rows of coin_fits.csv: it has rows 0 to 1",
        ),
        ({"rows": [0], "sample": 1}, "give rows or sample, not both"),
        ({"rtol": -1}, "rtol must be a finite number >= 0; got -1"),
        ({"rows": "0"}, "rows must be a non-empty list of row numbers"),
        ({"files": "coin_fits.csv"}, "files must be a non-empty list of file names"),
        ({"files": []}, "files must be a non-empty list of file names"),
        ({"sample": 0}, "sample must be an int >= 1"),
    ],
)
def test_replay_refuses_what_it_cannot_replay(
    coin, tmp_path, monkeypatch, kwargs, message
):
    from study import replay

    monkeypatch.setattr(parts, "PARTS", (coin.PART,))
    out = tmp_path / "run"
    pipeline.reproduce(out, design=StudyDesign.quick())
    with pytest.raises((ValueError, TypeError), match=message):
        replay.replay(out, progress=False, **kwargs)


def test_replay_refuses_a_run_with_nothing_to_compare(coin, tmp_path, monkeypatch):
    """A folder without run.json, and a run whose recorded part's table is
    gone, are refused by name: nothing is called identical."""
    from study import replay

    monkeypatch.setattr(parts, "PARTS", (coin.PART,))
    with pytest.raises(ValueError, match="holds no run.json"):
        replay.replay(tmp_path, progress=False)
    out = tmp_path / "run"
    pipeline.reproduce(out, design=StudyDesign.quick())
    (out / "coin_fits.csv").unlink()
    with pytest.raises(
        ValueError, match="coin_fits.csv missing in .*the coin part ran"
    ):
        replay.replay(out, progress=False)


@pytest.mark.parametrize(
    "command, problem",
    [
        ("python -m study reproducefoo", "it names another command"),
        ("python -m study reproduce --part bogus", "invalid choice"),
        ("python -m study reproduce --seeds 99999999999999999999", "is not from 2"),
        ("python -m study reproduce --colour red", "options reproduce does not take"),
    ],
)
def test_replay_refuses_a_command_reproduce_would_refuse(command, problem, tmp_path):
    from study import replay

    with pytest.raises(ValueError, match="is not one reproduce runs") as found:
        replay.recorded_job(tmp_path, {"command": command})
    assert problem in str(found.value)


def test_replay_reads_the_job_from_the_recorded_command(tmp_path):
    """The replication's command gives the whole run's job (protocol seeds,
    the toy datasets); a command it cannot read is refused by name."""
    from study import replay

    info = {
        "command": "python -m study reproduce --toy --replication",
        "seconds": {"toy datasets": 1.0},
    }
    job = replay.recorded_job(tmp_path, info)
    assert job.toy and job.replication and not job.quick and not job.shrunk
    assert job.design == StudyDesign.full(first_seed=COPIED_FIRST_SEED)
    quick = replay.recorded_job(
        tmp_path, {"command": "python -m study reproduce --quick --seeds 3"}
    )
    assert quick.quick and quick.seeds == 3 and quick.design is None
    with pytest.raises(ValueError, match="its command 'make something' is not a run"):
        replay.recorded_job(tmp_path, {"command": "make something"})

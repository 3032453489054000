"""The command lines: the library's (python -m skgate: compare) and the
study's (python -m study, benchmarks/study: reproduce, report, pilot, demo)."""

import dataclasses
import importlib
import os
import re
import subprocess
import sys

import pandas as pd
import pytest

import skgate
from skgate.command import parse

from study import cli as study_cli
from study import facts, sequences
from study.cli import demo
from study.paths import BENCHMARKS

#: The study's commands (python -m study); the others are the library's.
STUDY_COMMANDS = {"reproduce", "report", "pilot", "demo"}


def _program(argv):
    """The module whose command line ``argv`` is: "study" or "skgate"."""
    return "study" if argv[:1] and argv[0] in STUDY_COMMANDS else "skgate"


def main(argv):
    """The command line ``argv`` run in this process: the study's commands
    through python -m study's, the others through python -m skgate's."""
    if _program(argv) == "study":
        return study_cli.main(argv)
    from skgate.compare import run_command

    args, parser = parse(argv)
    return run_command(args, parser)


def _module_command(argv):
    """``python -m skgate|study *argv`` as a subprocess's argument list,
    with the environment it needs (the study's folder on the path)."""
    env = {**os.environ, "PYTHONPATH": str(BENCHMARKS)}
    return [sys.executable, "-m", _program(argv), *argv], env


#: The module (study.demo is also the function's name in study).
demo_module = importlib.import_module("study.demo")
#: A shrunken demo: few epochs on few rows (the protocol's fits need a minute).
TINY = {"max_epochs": 2, "n_samples": 120, "n_iter_no_change": 2}


@pytest.fixture(scope="module")
def tiny_demo():
    return demo(n_seeds=3, progress=False, committed=None, fixed=TINY)


def test_the_demo_decides_protocol_2s_first_test(tiny_demo):
    """The demo fits gated and SiLU on both curved conditions, on the
    confirmatory run's first seeds at each arm's protocol rate, and tests C1's
    accuracy at the family's strictest Holm level: 3 seeds cannot reach it
    (the smallest sign-flip p is 1/8), so the verdict is inconclusive."""
    fits = tiny_demo.fits
    assert len(fits) == 2 * 2 * 3
    assert set(fits["gate"]) == {"multiplicative", "silu"}
    assert sorted(fits["seed"].unique()) == [3000, 3001, 3002]
    rates = {(row.condition, row.gate): row.lr for row in fits.itertuples(index=False)}
    assert rates == {
        key: rate
        for key, rate in facts.SEQUENCE_LEARNING_RATES.items()
        if key[0] != "linear task" and key[1] != "none"
    }
    assert tiny_demo.test["comparison"] == "gated > SiLU"
    assert tiny_demo.level == pytest.approx(0.05 / len(sequences.tests()))
    assert tiny_demo.result["p"] >= 1 / 8 and tiny_demo.outcome == "inconclusive"
    gated = fits[fits["gate"] == "multiplicative"].sort_values(["condition", "seed"])
    silu = fits[fits["gate"] == "silu"].sort_values(["condition", "seed"])
    differences = gated["accuracy"].to_numpy() - silu["accuracy"].to_numpy()
    mean_by_seed = differences.reshape(2, 3).mean(axis=0)  # the test's unit
    assert tiny_demo.result["estimate"] == pytest.approx(mean_by_seed.mean())


def test_the_demo_is_at_most_30_lines_and_names_what_it_changed(tiny_demo):
    lines = tiny_demo.lines()
    assert len(lines) <= 30
    text = "\n".join(lines)
    assert "Verdict of this demo: inconclusive" in text
    assert "Not the protocol's fits" in text and "'max_epochs': 2" in text
    assert "REPORT.md" in text  # where the full results are


def test_the_demo_sets_its_verdict_beside_the_committed_one(tiny_demo, tmp_path):
    """Beside a committed run holding the demo's own fits, the rows match
    exactly; where the committed verdict differs, the demo says the
    confirmatory run's is the study's."""
    from study import runfiles

    fits = tiny_demo.fits
    runfiles.write_csv(fits.assign(sweep="arms"), tmp_path / "seq_arms.csv")
    test = tiny_demo.test
    row = {"claim": test["claim"], "quantity": test["quantity"]}
    row |= {"comparison": test["comparison"], "estimate": 0.08, "ci low": 0.07}
    row |= {"ci high": 0.09, "outcome": "holds", "n": 99}
    pd.DataFrame([row]).to_csv(tmp_path / "tests_2_primary.csv", index=False)
    committed = demo_module._committed(fits, test, tmp_path)
    assert committed["matched"] == len(fits) and committed["largest difference"] == 0
    text = "\n".join(dataclasses.replace(tiny_demo, committed=committed).lines())
    assert "The confirmatory run (99 seeds): +0.080 [+0.070, +0.090], holds" in text
    assert "the confirmatory run's 'holds' on 99 is the study's verdict" in text
    agreeing = {**committed, "outcome": "inconclusive"}
    text = "\n".join(dataclasses.replace(tiny_demo, committed=agreeing).lines())
    assert "This demo agrees with it." in text


def test_the_demo_says_whether_its_fits_are_the_replications(tiny_demo, tmp_path):
    """Beside a replication holding the demo's fits, the demo says its fits
    are the committed ones; a changed best epoch is a difference; a demo on
    other settings compares nothing with it."""
    from study import machine, runfiles

    fits = tiny_demo.fits.assign(sweep="arms")
    (tmp_path / "replication").mkdir()
    runfiles.write_csv(fits, tmp_path / "seq_arms.csv")  # as a run writes them
    runfiles.write_csv(fits, tmp_path / "replication" / "seq_arms.csv")
    test = tiny_demo.test
    row = {"claim": test["claim"], "quantity": test["quantity"]}
    row |= {"comparison": test["comparison"], "estimate": 0.08, "ci low": 0.07}
    row |= {"ci high": 0.09, "outcome": "holds", "n": 99}
    pd.DataFrame([row]).to_csv(tmp_path / "tests_2_primary.csv", index=False)
    found = demo_module._committed(tiny_demo.fits, test, tmp_path)
    assert found["replication"]["identical"]
    protocol = dataclasses.replace(tiny_demo, committed=found, fixed={})
    assert "the demo's fits are the committed ones" in "\n".join(protocol.lines())
    shrunk = dataclasses.replace(tiny_demo, committed=found)
    assert "they are not compared with them" in "\n".join(shrunk.lines())
    fits.loc[0, "best_epoch"] += 1
    runfiles.write_csv(fits, tmp_path / "replication" / "seq_arms.csv")
    record = tmp_path / "replication" / "run.json"
    for capability, says in [
        (machine.cpu_capability(), "the code changed since the replication."),
        ("ANOTHER", "within the 0.1 that rounding on another CPU"),
    ]:
        runfiles.save_run_info(record.parent, {"cpu capability": capability})
        found = demo_module._committed(tiny_demo.fits, test, tmp_path)
        assert not found["replication"]["identical"]
        changed = dataclasses.replace(tiny_demo, committed=found, fixed={})
        assert "differ from the demo's" in "\n".join(changed.lines())
        assert says in "\n".join(changed.lines())
    # Beyond the tolerance measured across CPUs: a change of code, said so.
    fits.loc[0, "accuracy"] += 0.25
    runfiles.write_csv(fits, tmp_path / "replication" / "seq_arms.csv")
    found = demo_module._committed(tiny_demo.fits, test, tmp_path)
    assert not found["replication"]["agrees"]
    changed = dataclasses.replace(tiny_demo, committed=found, fixed={})
    assert "beyond the 0.1" in "\n".join(changed.lines())


@pytest.mark.parametrize(
    "result, outcome",
    [
        ({"p": 0.001, "p reverse": 0.999, "p equivalence": 0.9}, "holds"),
        ({"p": 0.006, "p reverse": 0.99, "p equivalence": 0.9}, "inconclusive"),
        ({"p": 0.999, "p reverse": 0.001, "p equivalence": 0.9}, "reversed"),
        ({"p": 0.5, "p reverse": 0.5, "p equivalence": 0.004}, "no effect"),
    ],
)
def test_the_demos_level_is_the_familys_strictest(result, outcome):
    assert demo_module._outcome(result, 10) == outcome


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"n_seeds": 0}, ValueError, "n_seeds must be between 2 and 99 .*; got 0"),
        ({"n_seeds": 1}, ValueError, "n_seeds must be between 2 and 99"),
        ({"n_seeds": 100}, ValueError, "n_seeds must be between 2 and 99"),
        ({"n_seeds": 1.5}, TypeError, "n_seeds must be an int; got 1.5"),
        ({"n_seeds": True}, TypeError, "n_seeds must be an int; got True"),
        ({"n_jobs": 0}, ValueError, "n_jobs must be a nonzero int from -1024 to 1024"),
        ({"n_jobs": "2"}, TypeError, "n_jobs must be a nonzero int"),
        ({"fixed": "x"}, TypeError, "fixed must be a dict"),
        (
            {"fixed": {"seed": 5}},
            ValueError,
            r"never what the test compares; got \['seed'\]",
        ),
        ({"fixed": {"bogus": 1}}, ValueError, r"got \['bogus'\]"),
        ({"committed": 42}, TypeError, "committed must be a folder's path or None"),
    ],
)
def test_the_demo_refuses_bad_arguments_by_name(kwargs, error, match):
    with pytest.raises(error, match=match):
        demo(**{"n_seeds": 2, "progress": False, **kwargs})


def test_the_demo_says_why_few_seeds_cannot_decide(tiny_demo):
    text = "\n".join(tiny_demo.lines())
    assert (
        "with 3 seeds it could not be otherwise: the smallest sign-flip p is 1/8"
        in text
    )


def test_a_damaged_committed_run_is_named_not_a_crash(tiny_demo, tmp_path):
    tiny_demo.fits.assign(sweep="arms").to_csv(tmp_path / "seq_arms.csv", index=False)
    (tmp_path / "tests_2_primary.csv").write_text("claim,quantity\nC1,accuracy\n")
    found = demo_module._committed(tiny_demo.fits, tiny_demo.test, tmp_path)
    assert found["error"].startswith("KeyError")
    text = "\n".join(dataclasses.replace(tiny_demo, committed=found).lines())
    assert f"The committed results in {tmp_path} could not be read" in text
    (tmp_path / "tests_2_primary.csv").write_bytes(b"\xff\xfe\x00garbage")
    found = demo_module._committed(tiny_demo.fits, tiny_demo.test, tmp_path)
    assert "error" in found


def test_the_demos_seed_limit_is_the_runs():
    from study import commands

    assert commands.DEMO_MAX_SEEDS == facts.SEQUENCE_SEEDS["arms"]


def test_reproduces_seed_limit_on_the_command_line_is_reproduces(capsys):
    """--seeds above what reproduce takes is one line and exit code 2 (it
    passed the command line and stopped with a traceback from reproduce)."""
    from study import cli, commands
    from study.pipeline import MAX_SEEDS

    assert commands.REPRODUCE_MAX_SEEDS == MAX_SEEDS
    with pytest.raises(SystemExit) as stop:
        cli.main(["reproduce", "--seeds", str(MAX_SEEDS + 1), "--out", "unused"])
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert f"--seeds must be between 2 (for paired statistics) and {MAX_SEEDS}" in error


@pytest.mark.slow
def test_make_demo_decides_in_the_protocols_own_fits():
    """python -m study demo, as make demo runs it: the protocol's fits on 10
    seeds decide at the level, beside the committed run's verdict and its
    rows for the same fits, in at most 30 lines."""
    command, env = _module_command(["demo", "--n-jobs", "2"])
    result = subprocess.run(
        command,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.strip().splitlines()
    assert len(lines) <= 30
    assert "40 fits in" in result.stdout and "(3000-3009" in result.stdout
    assert re.search(r"Its 40 rows for these fits (hold|differ)", result.stdout)
    assert re.search(r"Verdict of this demo: (holds|reversed|no effect)", result.stdout)
    assert "This demo agrees with it." in result.stdout


@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "--seeds", "0"], "--seeds must be between 2 and 99"),
        (
            ["demo", "--n-jobs", "0"],
            "--n-jobs must be a nonzero int from -1024 to 1024",
        ),
        (["demo", "--seeds", "many"], "invalid int value"),
        (["demo", "--seeds", "1"], "--seeds must be between 2 and 99"),
        (["demo", "--seeds", "100"], "--seeds must be between 2 and 99"),
        (["demo", "--seeds", "99999999999"], "--seeds must be between 2 and 99"),
        (
            ["demo", "--n-jobs", "99999999999999999999"],
            "--n-jobs must be a nonzero int",
        ),
        (["fly"], "invalid choice"),
        ([], "required"),
    ],
)
def test_cli_rejects_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "--seeds", "0"], "--seeds must be between 2 and 99"),
        (["reproduce", "--seeds", "0"], "--seeds must be between 2"),
        (["reproduce", "--bogus"], "unrecognized arguments: --bogus"),
        (["compare", "x.csv", "--target", "y", "--bogus"], "unrecognized arguments"),
        (["reproduce", "--seeds", "200"], "--seeds must be between 2"),
        (["demo", "--seeds", "1"], "--seeds must be between 2 and 99"),
        (["demo", "--seeds", "many"], "argument --seeds: invalid int value"),
        (["pilot", "--protocol", "3"], "argument --protocol: invalid choice"),
        (
            ["report", "--from", "no-such-folder"],
            "--from 'no-such-folder' does not exist",
        ),
    ],
)
def test_a_commands_error_names_the_command(argv, message, capsys):
    """A value error or an unknown option is the command's: one line with
    its name, as compare's (no usage block, which buried the error)."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert (
        error
        == f"python -m {_program(argv)} {argv[0]}: error: {message}"
        + error.split(message, 1)[1]
    )
    assert error.count("\n") == 1 and "usage:" not in error


def test_help_is_plain_text_and_names_defaults(capsys):
    """--help printed raw reStructuredText (double backticks), and compare's
    --help did not say where --out writes by default."""
    for argv in (["--help"], ["compare", "--help"], ["reproduce", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        text = capsys.readouterr().out
        assert "``" not in text, argv
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert "output folder (default: compare)" in capsys.readouterr().out


def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"skgate {version('skgate')}"


#: A fresh interpreter running the command line with the given arguments,
#: then printing which heavy libraries it imported.
_IMPORTED = """
import runpy, sys
sys.path.insert(0, sys.argv[1])  # benchmarks/, where the study is
study = {'demo', 'pilot', 'report', 'reproduce'}
program = "study" if sys.argv[2:3] and sys.argv[2] in study else "skgate"
sys.argv = [program, *sys.argv[2:]]
try:
    runpy.run_module(program, run_name="__main__")
except SystemExit as exit:
    code = exit.code
heavy = ("torch", "sklearn", "skorch", "scipy", "pandas", "matplotlib")
print(code, sorted(name for name in heavy if name in sys.modules))
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["reproduce", "--help"],
        ["compare", "--help"],
        ["fly"],
        [],
        ["compare", "data.csv", "--target", "y", "--cv", "1"],
        ["compare", "no-such.csv", "--target", "y"],
        ["reproduce", "--seeds", "1"],
        ["report", "--from", "no-such-folder"],
        ["demo", "--seeds", "0"],
        ["pilot", "--n-jobs", "0"],
    ],
)
def test_help_and_usage_errors_import_no_heavy_library(argv):
    """--help and usage errors (bad values and missing files too) answer
    from the arguments alone: no torch, scikit-learn, skorch, SciPy or pandas
    is imported (SPEED.md measures the time)."""
    code, imported, _ = _run_command_line(argv)
    assert code == ("0" if "--help" in argv else "2")
    assert imported == "[]"


def _run_command_line(argv):
    """``python -m skgate *argv`` in a fresh interpreter: its exit code, the
    heavy libraries it imported (as printed) and its standard error."""
    result = subprocess.run(
        [sys.executable, "-c", _IMPORTED, str(BENCHMARKS), *argv],
        capture_output=True,
        text=True,
        check=True,
    )
    code, imported = result.stdout.strip().splitlines()[-1].split(" ", 1)
    return code, imported, result.stderr


@pytest.mark.parametrize(
    "content, target, message",
    [
        ("", "y", "is empty"),
        ("a,y\n", "y", "has a header but no rows"),
        ("a,b\n1,2\n", "y", "no column 'y'"),
        ("a;b\n1;2\n", "y", "compare needs commas between values"),
        # a name's leading space shows in the listing
        ("a,b, y\n0,1,0\n1,2,1\n", "y", "its columns: 'a', 'b', ' y'."),
        # pandas would read the second y as the feature y.1: the target leaks
        ("y,a,y\n0,1,0\n1,2,1\n", "y", "'y' (columns 1 and 3)"),
        ("a,a,y\n0,1,0\n1,2,1\n", "y", "'a' (columns 1 and 2)"),
    ],
)
def test_a_csv_that_cannot_be_compared_is_refused_without_heavy_libraries(
    tmp_path, content, target, message
):
    """An empty file, a header without rows or an unknown target column is
    a usage error found from the file's header, before torch is imported."""
    path = tmp_path / "data.csv"
    path.write_text(content)
    code, imported, error = _run_command_line(
        ["compare", str(path), "--target", target]
    )
    assert (code, imported) == ("2", "[]")
    assert message in error and error.count("\n") == 1


def test_regression_folds_too_small_for_r2_are_refused_before_torch(tmp_path):
    """A regression whose folds would hold 1 test row (R^2 is undefined
    there) was refused after torch had loaded (6.5 s), as "cv=3: ...":
    now from the file's values, in the command line's words."""
    path = tmp_path / "data.csv"
    path.write_text("a,y\n1,0.5\n2,0.7\n3,0.1\n4,0.9\n5,0.3\n")
    code, imported, error = _run_command_line(
        ["compare", str(path), "--target", "y", "--cv", "3"]
    )
    assert code == "2" and "torch" not in imported
    assert "--cv 3 folds of 5 rows leave fewer than 2 test rows" in error
    assert "(at most 2)" in error and error.count("\n") == 1


def _with_column(tmp_path, values, header="a,b,label"):
    """A CSV of _ROWS with column b replaced by ``values`` (as written)."""
    lines = [header, *(f"{a},{v},{y}" for (a, _, y), v in zip(_ROWS, values,
                                                             strict=True))]  # fmt: skip
    path = tmp_path / "data.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    "values, message",
    [
        # quoted numbers with thousands separators were one-hot categories
        ([f'"{1000 + 37 * i:,}"' for i in range(40)], "thousands separators"),
        # a numeric column with one stray cell was a column of 40 categories
        ([str(i) if i != 6 else "x" for i in range(40)],
         "holds numbers but for 1 cell(s) (data row 7 'x')"),
    ],
)  # fmt: skip
def test_a_column_of_numbers_read_as_text_is_refused_by_name(tmp_path, values,
                                                             message):  # fmt: skip
    from skgate.compare.table import CsvProblem, read_table

    path = _with_column(tmp_path, values)
    with pytest.raises(CsvProblem, match=re.escape(message)):
        read_table(path, "label")


def test_a_written_row_index_is_refused(tmp_path):
    """pandas' to_csv writes the index as a first column without a name:
    it was read as a feature."""
    from skgate.compare.table import CsvProblem, read_table

    frame = pd.DataFrame(_ROWS, columns=["a", "b", "label"])
    path = tmp_path / "data.csv"
    frame.to_csv(path)  # index=True: ",a,b,label" then "0,...", "1,..."
    with pytest.raises(
        CsvProblem, match="the first column of '.*' has no name and holds 0, 1"
    ):
        read_table(path, "label")


@pytest.mark.parametrize("header", ["a,,label", ",b,label"])
def test_a_column_without_a_name_is_refused(tmp_path, header):
    """A blank name in the header was read silently as the feature
    'Unnamed: 1' (a blank first column holding no row index too)."""
    from skgate.compare.table import CsvProblem, read_table

    path = _with_column(tmp_path, [str(7 * i % 5) for i in range(40)], header)
    with pytest.raises(CsvProblem, match=r"the header of .* gives column \d no name"):
        read_table(path, "label")


def test_compare_names_the_columns_read_as_categories(tmp_path, capsys):
    from skgate.compare.table import read_table, text_columns

    colours = ["red", "green", "blue"]
    path = _with_column(tmp_path, [colours[i % 3] for i in range(40)])
    X, _, _ = read_table(path, "label")
    assert text_columns(X) == ["b"]
    argv = ["compare", str(path), "--target", "label", "--cv", "2", "--repeats",
            "1", "--max-epochs", "1", "--out", str(tmp_path / "out")]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "read as categories (one-hot encoded in each fold): 'b' (3 values)" in err
    assert "| categories     | b " in (tmp_path / "out" / "COMPARE.md").read_text()


@pytest.mark.parametrize("baselines", ["auto", "none"])
def test_compare_says_first_whether_a_gate_beats_the_best_baseline(
    tmp_path, capsys, baselines
):
    """Its first line (issue 74, item 10): a linear model and gradient
    boosting beside the gates, unless --baselines none."""
    path = _write_rows(tmp_path / "data.csv", _ROWS)
    argv = ["compare", str(path), "--target", "label", "--cv", "2", "--repeats",
            "1", "--max-epochs", "1", "--out", str(tmp_path / "out"),
            "--baselines", baselines]  # fmt: skip
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    report = (tmp_path / "out" / "COMPARE.md").read_text()
    if baselines == "auto":
        assert lines[0].startswith(("No gate beats the best baseline, ", "multipl",
                                    "silu", "none"))  # fmt: skip
        assert "the best baseline, " in lines[0]
        assert lines[1].startswith("Held-out accuracy:")
        assert "| baselines      | LogReg, HGB" in report
    else:
        assert lines[0].startswith("Held-out accuracy:")
        assert "| baselines      | none " in report


@pytest.mark.parametrize("header", ["y,a,y", "a,a,y", "a,b,a,y,b"])
def test_read_table_refuses_a_repeated_column_name(tmp_path, header):
    """compare_csv's reader refuses what the command line refuses: pandas
    renames a repeated name (y -> y.1), which would put a copy of the target
    among the features."""
    from skgate.compare.table import CsvProblem, read_table

    path = tmp_path / "data.csv"
    n = len(header.split(","))
    path.write_text(header + "\n" + "\n".join(",".join([str(i % 2)] * n)
                                              for i in range(6)) + "\n")  # fmt: skip
    with pytest.raises(CsvProblem, match="names a column twice or more"):
        read_table(path, "y")


def test_the_command_lines_defaults_are_the_librarys():
    from skgate import GatedAttentionClassifier, _options, command
    from skgate.compare import DEFAULT_CV, DEFAULT_REPEATS, SCORE_MARGIN, TESTS

    from study import commands
    from study.design import StudyDesign

    assert _options.MAX_EPOCHS == GatedAttentionClassifier().max_epochs
    assert len(StudyDesign.full().seeds) == commands.FULL_SEEDS
    compare = command.parser().parse_args(["compare", "data.csv", "--target", "y"])
    assert (compare.cv, compare.repeats) == (DEFAULT_CV, DEFAULT_REPEATS)
    assert (compare.margin, compare.test) == (SCORE_MARGIN, TESTS[0])
    assert compare.max_epochs == GatedAttentionClassifier().max_epochs


def test_import_skgate_imports_its_names_on_first_use():
    import skgate

    assert set(skgate.__all__) <= set(dir(skgate))
    for name in skgate.__all__:
        assert getattr(skgate, name).__name__ == name
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        skgate.nope  # noqa: B018


@pytest.mark.parametrize(
    "content, target, message",
    [
        (b"\xef\xbb\xbfa,y\n", "a", "has a header but no rows"),  # no "no column"
        (b"\xef\xbb\xbfa,y\n1,2\n", "b", "its columns: 'a', 'y'."),
    ],
)
def test_a_byte_order_mark_is_read_as_pandas_reads_it(
    tmp_path, content, target, message
):
    """Excel's UTF-8 CSV starts with a byte-order mark, which pandas drops:
    the command line's header check reads the first column's name as
    pandas does, and its message is the one compare_csv gives."""
    import pandas as pd

    from skgate.compare.table import check_csv_header, read_table

    path = tmp_path / "excel.csv"
    path.write_bytes(content)
    assert list(pd.read_csv(path).columns) == ["a", "y"]
    code, imported, error = _run_command_line(
        ["compare", str(path), "--target", target]
    )
    assert (code, imported) == ("2", "[]")
    assert message in error and error.count("\n") == 1
    with pytest.raises(ValueError, match=message) as raised:
        read_table(path, target)
    assert str(raised.value) in error
    path.write_bytes(b"\xef\xbb\xbfa,y\n1,2\n")
    assert check_csv_header(path, "a") is None  # comparable: nothing raised


def test_a_missing_file_or_a_folder_is_refused(tmp_path):
    """check_csv_header refuses a path it cannot open, naming it; the
    command line says so in one line before reading it."""
    from skgate.compare.table import CsvProblem, check_csv_header

    missing = tmp_path / "missing.csv"
    for path in (missing, tmp_path):
        with pytest.raises(CsvProblem, match=f"cannot read '{path}' as CSV"):
            check_csv_header(path, "y")
    code, imported, error = _run_command_line(
        ["compare", str(missing), "--target", "y"]
    )
    assert (code, imported) == ("2", "[]")
    assert f"'{missing}' is not a file" in error and error.count("\n") == 1


@pytest.mark.slow
def test_the_compare_command_runs_in_the_library(tmp_path):
    """``python -m skgate compare`` is the library's command: a whole run,
    its report written, imports nothing of the study."""
    import numpy as np

    rng = np.random.default_rng(0)
    rows = ["a,b,label"] + [
        f"{x:.3f},{z:.3f},{int(x * z > 0)}" for x, z in rng.normal(size=(60, 2))
    ]
    path = tmp_path / "data.csv"
    path.write_text("\n".join(rows) + "\n")
    script = _IMPORTED.replace(
        "print(code, sorted(name for name in heavy if name in sys.modules))",
        "print(code, sorted(name for name in sys.modules if 'study' in name))",
    )
    out = tmp_path / "out"
    argv = ["compare", str(path), "--target", "label", "--cv", "2", "--repeats",
            "1", "--max-epochs", "1", "--out", str(out)]  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-c", script, str(BENCHMARKS), *argv],
        capture_output=True,
        text=True,
    )
    code, study = result.stdout.strip().splitlines()[-1].split(" ", 1)
    assert (code, study) == ("0", "[]"), result.stderr
    assert (out / "COMPARE.md").is_file()


def _write_rows(path, rows, header="a,b,label"):
    """A CSV at ``path``: ``header``, then each row's values joined by commas."""
    lines = [header, *(",".join(str(value) for value in row) for row in rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


#: 40 rows of two features and a balanced 0/1 label.
_ROWS = [(round((i * 37 % 11) / 7 - 0.8, 3), round(i / 13 - 1.5, 3), i % 2)
         for i in range(40)]  # fmt: skip


def _bad_csv(tmp_path, kind):
    """A CSV the compare command refuses for its values (not its header),
    the arguments that give it, and the message's words."""
    rows = [list(row) for row in _ROWS]
    argv = []
    if kind == "missing":
        rows[3][0] = ""
        message = "missing values in: a (1)"
    elif kind == "infinite":
        rows[5][1] = "inf"
        message = "infinite values in: b (1)"
    elif kind == "one value":
        rows = [[a, b, 1] for a, b, _ in rows]
        message = "the target 'label' has one value"
    elif kind == "rare class":
        rows[0][2] = "rare"
        message = "class 'rare' has 1"
    elif kind == "many numbers":
        rows = [[a, b, i] for i, (a, b, _) in enumerate(rows)]
        message = "pass --task regression"
    elif kind == "text to regress":
        rows = [[a, b, "xy"[i % 2]] for i, (a, b, _) in enumerate(rows)]
        argv = ["--task", "regression"]
        message = "--task regression needs a numeric target; 'label' holds text"
    elif kind == "huge target":
        rows = [[a, b, f"{i + 0.5}e200"] for i, (a, b, _) in enumerate(rows)]
        argv = ["--task", "regression"]
        message = "the target 'label' holds 3.95e+201, beyond float32's range"
    elif kind == "huge feature":
        rows[1][0], rows[2][0] = "1e308", "-1e308"
        message = "values beyond float32's range (|x| <= 3.4e+38), in which the "
        message += "networks train, in: a (2)"
    elif kind == "extra field":
        rows[6].append(9)
        message = "line 8 has 4 fields, its header 3"
    else:  # an unwritable --out: below a file
        argv = ["--out", str(tmp_path / "data.csv" / "sub")]
        message = "is not a writable folder"
    return _write_rows(tmp_path / "data.csv", rows), argv, message


#: Each kind of value problem; a few run in make test, all in make test-slow.
_VALUE_PROBLEMS = [
    "missing",
    "rare class",
    "unwritable out",
    "huge feature",
    *(
        pytest.param(kind, marks=pytest.mark.slow)
        for kind in ("infinite", "one value", "many numbers", "text to regress",
                     "huge target", "extra field")
    ),
]  # fmt: skip


@pytest.mark.parametrize("kind", _VALUE_PROBLEMS)
def test_a_csvs_values_are_refused_before_torch_is_imported(tmp_path, kind):
    """A CSV's values (missing, infinite, one target value, a class smaller
    than the folds, a target the task cannot take, a row with more fields
    than its header) and an unwritable --out are refused in one line, exit
    code 2, read with pandas alone: torch is not imported (it takes seconds),
    and no --out folder is left behind."""
    path, argv, message = _bad_csv(tmp_path, kind)
    out = tmp_path / "new" / "out"
    argv = ["compare", str(path), "--target", "label", "--out", str(out), *argv]
    code, imported, error = _run_command_line(argv)
    assert code == "2"
    assert "torch" not in imported and "sklearn" not in imported
    assert message in error and error.count("\n") == 1
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("kind", ["missing", "rare class", "extra field"])
def test_a_refused_csv_leaves_no_out_folder(tmp_path, kind, capsys):
    """The same refusals in-process (skgate.compare imported): the folders
    --out would have made are not left behind, and a user's own folder and
    files are kept."""
    path, argv, message = _bad_csv(tmp_path, kind)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    for out in (tmp_path / "new" / "out", mine, tmp_path / "empty"):
        if out.name == "empty":
            out.mkdir()
        with pytest.raises(SystemExit) as exit_info:
            main(["compare", str(path), "--target", "label", "--out", str(out)])
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
    assert (mine / "notes.txt").read_text() == "mine"
    assert (tmp_path / "empty").is_dir()


@pytest.mark.parametrize("failure", [ValueError("no scheduler there"),
                                     KeyboardInterrupt()])  # fmt: skip
def test_a_failed_run_removes_only_what_it_made(tmp_path, monkeypatch, failure, capsys):
    """A run that fails or is interrupted after --out was made removes the
    folders it made, and nothing of a folder that was there before (not
    even an empty one)."""
    from skgate.compare import csvfile

    def fails(*args, **kwargs):
        raise failure

    monkeypatch.setattr(csvfile, "compare_gates", fails)
    path = _write_rows(tmp_path / "data.csv", _ROWS)
    mine, empty = tmp_path / "mine", tmp_path / "empty"
    mine.mkdir()
    empty.mkdir()
    (mine / "notes.txt").write_text("mine")
    code = 130 if isinstance(failure, KeyboardInterrupt) else 2
    for out in (tmp_path / "new" / "out", mine, empty):
        argv = ["compare", str(path), "--target", "label", "--out", str(out)]
        if code == 2:
            with pytest.raises(SystemExit) as exit_info:
                main(argv)
            assert exit_info.value.code == 2
        else:
            assert main(argv) == 130
        assert capsys.readouterr().err.count("\n") == 1
    assert not (tmp_path / "new").exists()
    assert (mine / "notes.txt").read_text() == "mine" and empty.is_dir()


def test_an_output_name_taken_by_a_folder_is_refused_before_training(tmp_path):
    """A folder where compare writes one of its files was found after the
    300 fits ([Errno 21] Is a directory), with two CSVs left behind: now
    refused in one line from the arguments, before torch, nothing written."""
    path = _write_rows(tmp_path / "data.csv", _ROWS)
    out = tmp_path / "out"
    (out / "fig_compare.png").mkdir(parents=True)
    code, imported, error = _run_command_line(
        ["compare", str(path), "--target", "label", "--out", str(out)]
    )
    assert (code, imported) == ("2", "[]")
    assert "holds a folder named 'fig_compare.png'" in error
    assert error.count("\n") == 1
    assert sorted(p.name for p in out.iterdir()) == ["fig_compare.png"]


def test_reproduce_refuses_a_malformed_scheduler_before_anything(tmp_path):
    """``--scheduler nonsense`` was a traceback (ValueError: missing port
    number) that left an empty --out: now one line from the arguments."""
    out = tmp_path / "r"
    code, imported, error = _run_command_line(
        ["reproduce", "--quick", "--scheduler", "nonsense", "--out", str(out)]
    )
    assert (code, imported) == ("2", "[]")
    assert "--scheduler must be an address like tcp://host:8786" in error
    assert error.count("\n") == 1 and not out.exists()


def test_a_scheduler_without_dask_distributed_is_one_line_before_work(
    tmp_path, monkeypatch, capsys
):
    """``--scheduler ADDR`` without dask.distributed was a 20-line traceback
    and exit 1 after torch loaded: now one line naming the extra, exit 2,
    from the arguments, nothing trained or written."""
    from skgate import command
    from skgate.compare import csvfile

    real = command.find_spec
    monkeypatch.setattr(
        command, "find_spec", lambda name: None if name == "distributed" else real(name)
    )

    def trains(*args, **kwargs):
        raise AssertionError("trained")

    monkeypatch.setattr(csvfile, "compare_gates", trains)
    path = _write_rows(tmp_path / "data.csv", _ROWS)
    out = tmp_path / "out"
    argv = ["compare", str(path), "--target", "label", "--out", str(out),
            "--scheduler", "tcp://127.0.0.1:8786"]  # fmt: skip
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "--scheduler tcp://127.0.0.1:8786 needs dask.distributed" in error
    assert "pip install 'skgate[dask]'" in error and not out.exists()


@pytest.mark.slow
def test_reproduce_with_an_unreachable_scheduler_leaves_no_folder(tmp_path):
    """An address nobody listens on: one line, exit code 2, and --out is not
    made (the cluster is connected before it)."""
    pytest.importorskip("distributed")
    out = tmp_path / "r"
    command, env = _module_command(
        ["reproduce", "--quick", "--scheduler", "tcp://127.0.0.1:1", "--out", str(out)]
    )
    env["DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT"] = "2s"
    result = subprocess.run(
        command,
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert "reproduce: error: scheduler 'tcp://127.0.0.1:1': cannot connect" in (
        result.stderr
    )
    assert "allowed: the address of a running Dask scheduler" in result.stderr
    assert not out.exists()


_TINY = {"cv": 2, "repeats": 1, "max_epochs": 1, "random_state": 0}


def test_a_failure_while_writing_leaves_out_as_it_was(tmp_path, monkeypatch):
    """The files are written into a staging folder and moved into place
    last: a failure while writing leaves the folder's earlier files, and
    only them."""
    from skgate.compare import csvfile

    path = _write_rows(tmp_path / "data.csv", _ROWS)
    out = tmp_path / "out"
    out.mkdir()
    earlier = "# An earlier run\n\nGenerated by `python -m skgate compare`.\n"
    (out / "COMPARE.md").write_text(earlier)

    def fails(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(csvfile, "_markdown", fails)
    with pytest.raises(OSError, match="disk full"):
        csvfile.compare_csv(path, "label", out=out, **_TINY)
    assert sorted(p.name for p in out.iterdir()) == ["COMPARE.md"]
    assert (out / "COMPARE.md").read_text() == earlier


def test_compare_warns_in_one_line_of_its_own_words(tmp_path, capsys):
    """--test sign-flip's warning printed as a raw UserWarning with a source
    path and the library's parameter names; the verdict stated differences
    flatly beside a Bayesian column that disagreed."""
    path = _write_rows(tmp_path / "data.csv", _ROWS)
    argv = ["compare", str(path), "--target", "label", "--test", "sign-flip",
            "--cv", "3", "--repeats", "2", "--max-epochs", "1",
            "--out", str(tmp_path / "out")]  # fmt: skip
    assert main(argv) == 0
    captured = capsys.readouterr()
    warning = [line for line in captured.err.splitlines() if "warning" in line]
    assert warning == [
        line for line in warning if line.startswith("python -m skgate compare: ")
    ]
    assert (
        len(warning) == 1 and "--test sign-flip on --cv 3 x --repeats 2" in (warning[0])
    )
    assert "UserWarning" not in captured.err and ".py:" not in captured.err
    assert "its p-values are optimistic here" in captured.out


def test_compare_without_matplotlib_writes_all_but_the_figure(
    tmp_path, monkeypatch, capsys
):
    """Without matplotlib the command says so in one line before training,
    writes every other file (COMPARE.md saying why there is no figure),
    removes an earlier run's figure and says it replaced COMPARE.md."""
    from skgate.compare import csvfile

    monkeypatch.setattr(csvfile, "has_matplotlib", lambda: False)
    path = _write_rows(tmp_path / "data.csv", _ROWS)
    out = tmp_path / "out"
    out.mkdir()
    (out / "fig_compare.png").write_bytes(b"an earlier figure")
    (out / "COMPARE.md").write_text(
        "# An earlier run\n\nGenerated by `python -m skgate compare`.\n"
    )
    argv = ["compare", str(path), "--target", "label", "--cv", "2", "--repeats",
            "1", "--max-epochs", "1", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "matplotlib is not installed: every file but fig_compare.png" in (
        captured.err
    )
    assert "(it replaced the earlier run's COMPARE.md, fig_compare.png)" in (
        captured.out
    )
    names = sorted(p.name for p in out.iterdir())
    assert names == ["COMPARE.md", "compare_scores.csv", "compare_tests.csv"]
    assert "No figure: matplotlib is not installed" in (out / "COMPARE.md").read_text()


def test_compare_never_replaces_its_input_or_a_file_it_did_not_write(tmp_path, capsys):
    """The CSV compare reads, named as one of its outputs, or a user's own
    file of an output's name in --out without a compare run's COMPARE.md:
    refused in one line, exit 2, before any work, the file untouched. From
    Python the same, named out=."""
    from skgate.compare import compare_csv

    out = tmp_path / "dl"
    out.mkdir()
    for name in ("compare_scores.csv", "compare_tests.csv"):
        path = _write_rows(out / name, _ROWS)
        before = path.read_bytes()
        argv = ["compare", str(path), "--target", "label", "--out", str(out)]
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert f"is where compare writes '{name}', which is the file it reads" in err
        assert path.read_bytes() == before
        with pytest.raises(ValueError, match="out '.*' is where compare writes"):
            compare_csv(path, "label", out=out)
        assert path.read_bytes() == before
        path.unlink()
    data = _write_rows(tmp_path / "data.csv", _ROWS)
    mine = out / "compare_tests.csv"
    mine.write_text("my own tests\n")
    argv = ["compare", str(data), "--target", "label", "--out", str(out)]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert "holds 'compare_tests.csv', which compare would replace, and no " in (
        capsys.readouterr().err
    )
    assert mine.read_text() == "my own tests\n"


@pytest.mark.parametrize("header, ending", [("", ","), ("", ",,"), (",", ",")])
def test_rows_ending_in_a_comma_are_read_as_their_header_says(tmp_path, header, ending):
    """A spreadsheet's trailing commas (rows with empty fields beyond the
    header's, the header too perhaps) are not read as an index column that
    shifts every value, nor as an empty column."""
    from skgate.compare.table import read_table

    path = tmp_path / "data.csv"
    lines = [f"a,b,label{header}", *(f"{a},{b},{y}{ending}" for a, b, y in _ROWS)]
    path.write_text("\n".join(lines) + "\n")
    X, y, task = read_table(path, "label")
    assert list(X.columns) == ["a", "b"] and task == "classification"
    assert list(y) == [row[2] for row in _ROWS]
    assert X["a"].to_numpy() == pytest.approx([row[0] for row in _ROWS])


def test_a_row_with_more_values_than_its_header_is_refused_by_line(tmp_path):
    from skgate.compare.table import CsvProblem, read_table

    rows = [list(row) for row in _ROWS]
    rows[2] += ["", 5]  # line 4: an empty field, then a value
    path = _write_rows(tmp_path / "data.csv", rows)
    with pytest.raises(CsvProblem, match=r"data.csv' line 4 has 5 fields, its head"):
        read_table(path, "label")


def test_a_column_of_huge_numbers_is_standardised_without_overflow():
    """A column of 1e200s (whose squares overflow float64) is standardised
    fold by fold as the same column in units of 1e200 would be."""
    import numpy as np

    from skgate.compare.csvfile import _preprocessor_for

    values = np.random.default_rng(0).normal(size=(50, 2))
    X = pd.DataFrame(values * [1e200, 1.0], columns=["huge", "b"])
    X["colour"] = np.where(values[:, 0] > 0, "red", "blue")
    scaled = _preprocessor_for(X).fit_transform(X)
    standardised = (values - values.mean(axis=0)) / values.std(axis=0)
    assert np.isfinite(scaled).all()
    assert scaled[:, :2] == pytest.approx(standardised)


@pytest.mark.parametrize(
    "target",
    [[0, 1, 1], [0.0, 1.0, 2.0], [0.5, 1.0, 1.0], ["a", "b", "a"], [True, False],
     list(range(30)), [float(i) for i in range(30)], [1e200, 2e200, 1e200],
     [i / 2 for i in range(30)]],
)  # fmt: skip
@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
def test_a_csvs_task_is_read_as_compare_gates_reads_it(target):
    """The command line reads a CSV target's task without torch; it must be
    the task compare_gates reads from the same values (skgate.compare's
    infer_task is in a module that imports torch)."""
    from skgate.compare import infer_task
    from skgate.compare.table import _target_task

    y = pd.Series(target)
    try:
        expected = infer_task(y.to_numpy())
    except ValueError:
        with pytest.raises(ValueError, match="pass task='regression'"):
            _target_task(y, "label", None)
    else:
        assert _target_task(y, "label", None) == expected


@pytest.mark.parametrize(
    "option, message",
    [
        (["--margin", "1e308"], "--margin must be in (0, 1]"),
        (["--margin", "1.5"], "--margin must be in (0, 1]"),
        (["--margin", "0"], "--margin must be in (0, 1]"),
        (["--margin", "nan"], "--margin must be in (0, 1]"),
        (["--repeats", "100000000"], "--repeats must be at most 1000; got 100000000"),
    ],
)
def test_compare_refuses_a_margin_or_repeats_out_of_range(tmp_path, option, message):
    """A margin beyond the scores' range (accuracy and R^2 are at most 1)
    trained, then overflowed scipy and the figure's axes; 10^8 repeats hung.
    Both are refused in one line, before torch."""
    path = _write_rows(tmp_path / "data.csv", _ROWS)
    argv = ["compare", str(path), "--target", "label", "--cv", "2", *option]
    code, imported, error = _run_command_line([*argv, "--out", str(tmp_path / "out")])
    assert code == "2" and "torch" not in imported
    assert message in error and error.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_the_commands_cap_on_repeats_is_compare_gates():
    """The command states its cap (it answers without torch); it is
    compare_gates' cap on n_repeats, and --help says it."""
    from skgate.command import parser
    from skgate.compare import MAX_REPEATS

    compare = parser().commands.choices["compare"]
    assert f"at most {MAX_REPEATS}" in compare.format_help()
    with pytest.raises(ValueError, match=f"n_repeats.*{MAX_REPEATS}"):
        skgate.compare_gates(
            [[0.0], [1.0]] * 4, [0, 1] * 4, n_repeats=MAX_REPEATS + 1, max_epochs=1
        )


#: ``python -m skgate`` in a fresh interpreter, stalled at one phase until
#: interrupted: "startup" (the import of torch), "plot" (the import of
#: matplotlib.pyplot as the figure is drawn: interrupted, it fails as a
#: pybind11 module's initialisation does, with an ImportError raised from
#: the KeyboardInterrupt) or "fits" (the first fit, the progress bar drawn).
#: It prints READY when it stalls.
_STALLED = """
import importlib.abc, importlib.machinery, runpy, signal, sys, time
# Ctrl-C raises KeyboardInterrupt even when pytest runs as a background job
# (whose children start with SIGINT ignored).
signal.signal(signal.SIGINT, signal.default_int_handler)
phase = sys.argv[1]

def stall():
    print("READY", flush=True)
    time.sleep(60)

class Stall(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, name, wrapped):
        self.name, self.wrapped = name, wrapped
    def find_spec(self, name, path=None, target=None):
        if name == self.name:
            return importlib.machinery.ModuleSpec(name, self)
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        try:
            stall()
        except KeyboardInterrupt as exc:
            if self.wrapped:
                raise ImportError("initialization failed") from exc
            raise

if phase == "done":  # after the command ended, as the interpreter shuts down
    import threading
    def at_shutdown():  # holds the shutdown, as a worker thread ending does
        threading.main_thread().join()
        print("READY", flush=True)
        time.sleep(3)
    threading.Thread(target=at_shutdown).start()
elif phase == "startup":
    sys.meta_path.insert(0, Stall("torch", False))
elif phase == "plot":
    import skgate.inspection as inspection
    draw = inspection._pyplot
    def stalled():
        sys.modules.pop("matplotlib.pyplot", None)
        sys.meta_path.insert(0, Stall("matplotlib.pyplot", True))
        return draw()
    inspection._pyplot = stalled
else:
    from skgate._evaluation import fits
    fit = fits._fit_arm
    def stalled(*args):
        stall()
        return fit(*args)
    fits._fit_arm = stalled
sys.argv = ["skgate", *sys.argv[2:]]
runpy.run_module("skgate", run_name="__main__", alter_sys=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["startup", "fits", "plot"])
def test_ctrl_c_anywhere_in_compare_is_one_line_and_code_130(tmp_path, phase):
    """Ctrl-C while the imports run (was an 18-line traceback), during the
    fits (the line was written onto the progress bar, which then wrote over
    it) or as the figure is drawn (an interrupted import of matplotlib was
    reported as a missing package, then the interpreter aborted): one line,
    the last on stderr, exit code 130, and no --out folder left."""
    import signal

    code, error, out = _stalled_compare(tmp_path, phase, signal.SIGINT)
    lines = [line.strip() for line in re.split(r"[\r\n]", error) if line.strip()]
    assert code == 130, error
    assert "skgate[plot]" not in error and "Traceback" not in error
    assert lines[-1] == f"interrupted; nothing was written to {out}"
    assert error.endswith(f"\n{lines[-1]}\n") or error == f"{lines[-1]}\n"
    assert not (tmp_path / "new").exists()


def _stalled_compare(tmp_path, phase, signal_number):
    """Run compare stalled at ``phase``, send ``signal_number`` once it
    stalls; its exit code, stderr and --out."""
    path = _write_rows(tmp_path / "data.csv", _ROWS)
    out = tmp_path / "new" / "out"
    argv = ["compare", str(path), "--target", "label", "--cv", "2", "--repeats",
            "1", "--max-epochs", "2", "--out", str(out)]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-c", _STALLED, phase, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while (line := process.stdout.readline()) and line != "READY\n":
            pass
        assert line == "READY\n"
        process.send_signal(signal_number)
        _, error = process.communicate(timeout=60)
    finally:
        process.kill()
    return process.returncode, error, out


@pytest.mark.slow
def test_sigterm_in_compare_removes_what_it_made_and_exits_143(tmp_path):
    """``kill`` or ``timeout`` during the fits: as Ctrl-C (one line, nothing
    left), once a bare termination that left the folder it made."""
    import signal

    code, error, out = _stalled_compare(tmp_path, "fits", signal.SIGTERM)
    assert code == 143, error
    assert (
        error.strip().splitlines()[-1] == f"interrupted; nothing was written to {out}"
    )
    assert "Traceback" not in error
    assert not (tmp_path / "new").exists()


@pytest.mark.slow
def test_sighup_in_compare_removes_what_it_made_and_exits_129(tmp_path):
    """A closed terminal (SIGHUP) once ended compare at once, leaving the
    folders it made."""
    import signal

    code, error, out = _stalled_compare(tmp_path, "fits", signal.SIGHUP)
    assert code == 129, error
    assert (
        error.strip().splitlines()[-1] == f"interrupted; nothing was written to {out}"
    )
    assert not (tmp_path / "new").exists()


@pytest.mark.slow
def test_ctrl_c_after_compare_finished_keeps_its_exit_code(tmp_path):
    """Ctrl-C as the interpreter shuts down after a complete run once gave
    exit code 130 (Python's finalisation restores the default handler, so
    the signal then kills it) or a KeyboardInterrupt traceback, every file
    written. A finished command ignores it."""
    import signal

    code, error, out = _stalled_compare(tmp_path, "done", signal.SIGINT)
    assert code == 0, error
    assert "Traceback" not in error  # was: KeyboardInterrupt in _shutdown
    assert (out / "COMPARE.md").is_file()


@pytest.mark.parametrize("holds", [(), ("protocol.md",), ("protocol-2.md",)])
def test_reproduce_refuses_a_protocols_folder_without_both_protocols(
    tmp_path, capsys, holds
):
    """--protocols names the folder whose protocol.md and protocol-2.md the
    run records the SHA-256 of: a folder without them (the run recorded
    null and still named the repository's) is refused before anything runs,
    from the command line and from Python."""
    from study import reproduce

    for name in holds:
        (tmp_path / name).write_text("a protocol\n")
    missing = [n for n in ("protocol.md", "protocol-2.md") if n not in holds]
    with pytest.raises(SystemExit) as stop:
        main(["reproduce", "--quick", "--protocols", str(tmp_path), "--out", "x"])
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert f"holds no {' and no '.join(missing)}" in error
    with pytest.raises(ValueError, match=f"holds no {missing[0]}"):
        reproduce(tmp_path / "out", quick=True, protocols=tmp_path)
    assert not (tmp_path / "out").exists()


def test_the_csv_and_argument_helpers_refuse_what_they_cannot_judge():
    """The public helpers of the command line answer bad arguments by name:
    check_folds took any task and a fold count of 0 or 2.5 and answered
    nothing or nonsense, and needed a pandas Series; text_columns took an
    array; a scheduler's port or protocol was not checked; parse read a
    string letter by letter."""
    import argparse

    import numpy as np

    from skgate.command import check_scheduler
    from skgate.compare.table import CsvProblem, check_folds, text_columns

    for task, cv in (("bogus", 2), ("classification", 0), ("regression", 2.5)):
        with pytest.raises(ValueError, match="task must be one of|cv must be an int"):
            check_folds(pd.Series([0, 1, 0, 1]), task, cv)
    with pytest.raises(CsvProblem, match="class 1 has 1"):
        check_folds(np.array([0, 0, 1]), "classification", 2)  # an array too
    check_folds([0, 1, 0, 1], "classification", 2)
    for y in (None, "a", pd.Series([], dtype=float), pd.DataFrame({"a": [0, 1]})):
        with pytest.raises(ValueError, match="y must be the target's column"):
            check_folds(y, "classification", 2)
    with pytest.raises(TypeError, match="table must be a DataFrame"):
        text_columns(np.zeros((2, 2)))
    for address in ("tcp://host:99999", "http://host:1", "host:0", "h:１２", 8786):
        failed = []
        check_scheduler(argparse.Namespace(scheduler=address), failed.append)
        assert failed and "a port from 1 to 65535" in failed[0], address
    for address in ("tcp://127.0.0.1:8786", "host:8786", "tcp://[::1]:8786"):
        failed = []
        check_scheduler(argparse.Namespace(scheduler=address), failed.append)
        assert failed == [], address
    with pytest.raises(TypeError, match="argv must be a list of strs"):
        parse("compare x.csv --target y")


def test_the_csv_messages_read_well():
    from skgate.compare.table import header_problem

    assert header_problem("f.csv", "y", [], True) == (
        "no column 'y' in 'f.csv': its header names none."
    )
    with pytest.raises(TypeError, match="columns must be a list of names"):
        header_problem("f.csv", "y", "ay", True)
    with pytest.raises(TypeError, match="has_rows must be a bool"):
        header_problem("f.csv", "y", ["y"], "no")


def test_an_interrupted_pilot_removes_the_folder_it_made(tmp_path, monkeypatch, capsys):
    """Ctrl-C before any sweep of a pilot finished: the folder the pilot
    made is removed and the line says so (it said "the sweeps finished so
    far are in" an empty folder, and left it)."""
    from study import cli

    def interrupted(out, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_pilot", interrupted)
    out = tmp_path / "new" / "pilot"
    assert study_cli.main(["pilot", "--out", str(out)]) == 130
    assert not (tmp_path / "new").exists()
    assert "interrupted before any sweep finished; removed" in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra",
    [["--quick", "--toy"], ["--part", "sequences"], [], ["--toy", "--seeds", "5"]],
    ids=["quick", "part", "no toy", "seeds"],
)
def test_a_replication_is_of_the_whole_run(extra, tmp_path, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        main(["reproduce", "--replication", *extra, "--out", str(out)])
    assert stop.value.code == 2
    assert "--replication runs the whole study" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--rows", "a,b"], "--rows must be row numbers separated by commas"),
        (["--rows", "-1"], "--rows must be row numbers >= 0"),
        (["--sample", "-2"], "--sample must be >= 0"),
        (["--rtol", "nan"], "--rtol must be a finite number >= 0"),
        (["--rtol", "-0.1"], "--rtol must be a finite number >= 0"),
        (["--n-jobs", "0"], "--n-jobs"),
        (["--rows", "0", "--sample", "1"], "not allowed with argument"),
    ],
)
def test_replay_refuses_bad_arguments_by_name(extra, message, capsys):
    from study.cli import main as study_main

    with pytest.raises(SystemExit) as stop:
        study_main(["replay", *extra])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_replay_names_a_folder_without_a_run(tmp_path, capsys):
    from study.cli import main as study_main

    with pytest.raises(SystemExit) as stop:
        study_main(["replay", "--from", str(tmp_path)])
    assert stop.value.code == 2
    assert "holds no run.json" in capsys.readouterr().err

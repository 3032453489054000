"""The command line: python -m skgate demo (skgate.study.cli)."""

import subprocess
import sys

import pytest

from skgate.study.cli import demo, main
from skgate.study.facts import STUDY_GATES


def test_demo_table_has_every_task_and_gate():
    table = demo(n_samples=120, max_epochs=2, log=None)
    assert list(table.index) == ["checkerboard", "linear", "moons"]
    assert list(table.columns) == ["ungated", "SiLU", "gated (alpha=1)"]
    assert list(table.columns) == [
        STUDY_GATES.labels[g] for g in ("none", "silu", "multiplicative")
    ]
    assert ((table >= 0) & (table <= 1)).all().all()


def test_demo_is_deterministic():
    first = demo(n_samples=120, max_epochs=2, log=None)
    second = demo(n_samples=120, max_epochs=2, log=None)
    assert first.equals(second)


@pytest.mark.slow
def test_cli_prints_progress_and_table():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "skgate",
            "demo",
            "--n-samples",
            "100",
            "--max-epochs",
            "1",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "[9/9] moons" in result.stderr
    assert "Held-out accuracy" in result.stdout
    assert "checkerboard" in result.stdout and "gated (alpha=1)" in result.stdout


@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "--n-samples", "3"], "--n-samples must be >= 10"),
        (["demo", "--max-epochs", "-1"], "--max-epochs must be >= 0"),
        (["demo", "--n-samples", "many"], "invalid int value"),
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
        (["demo", "--n-samples", "3"], "--n-samples must be >= 10"),
        (["reproduce", "--seeds", "0"], "--seeds must be >= 2"),
        (["reproduce", "--bogus"], "unrecognized arguments: --bogus"),
        (["compare", "x.csv", "--target", "y", "--bogus"], "unrecognized arguments"),
        (["report", "--from", "no-such-folder"], "--from 'no-such-folder' holds no"),
    ],
)
def test_a_commands_error_names_the_command(argv, message, capsys):
    """A value error or an unknown option is the command's: its name, and
    its usage where argparse shows one, not the program's."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert f"python -m skgate {argv[0]}: error: {message}" in error
    assert "usage: python -m skgate [-h]" not in error


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
sys.argv = ["skgate", *sys.argv[1:]]
try:
    runpy.run_module("skgate", run_name="__main__")
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
        ["demo", "--n-samples", "3"],
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
        [sys.executable, "-c", _IMPORTED, *argv],
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


def test_the_command_lines_defaults_are_the_librarys():
    from skgate import GatedAttentionClassifier, _options, command
    from skgate.compare import DEFAULT_CV, DEFAULT_REPEATS, SCORE_MARGIN, TESTS
    from skgate.study import commands
    from skgate.study.design import StudyDesign

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
        (b"\xef\xbb\xbfa,y\n1,2\n", "b", "its columns: a, y."),
    ],
)
def test_a_byte_order_mark_is_read_as_pandas_reads_it(
    tmp_path, content, target, message
):
    """Excel's UTF-8 CSV starts with a byte-order mark, which pandas drops:
    the command line's header check reads the first column's name as
    pandas does, and its message is the one compare_csv gives."""
    import pandas as pd

    from skgate.command import check_csv_header
    from skgate.compare.csvfile import _read_table

    path = tmp_path / "excel.csv"
    path.write_bytes(content)
    assert list(pd.read_csv(path).columns) == ["a", "y"]
    code, imported, error = _run_command_line(
        ["compare", str(path), "--target", target]
    )
    assert (code, imported) == ("2", "[]")
    assert message in error and error.count("\n") == 1
    with pytest.raises(ValueError, match=message) as raised:
        _read_table(path, target)
    assert str(raised.value) in error
    path.write_bytes(b"\xef\xbb\xbfa,y\n1,2\n")
    assert check_csv_header(path, "a") is None  # comparable: nothing raised


def test_a_missing_file_or_a_folder_is_refused(tmp_path):
    """check_csv_header refuses a path it cannot open, naming it; the
    command line says so in one line before reading it."""
    from skgate.command import CsvProblem, check_csv_header

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
        "print(code, sorted(name for name in sys.modules if 'skgate.study' in name))",
    )
    out = tmp_path / "out"
    argv = ["compare", str(path), "--target", "label", "--cv", "2", "--repeats",
            "1", "--max-epochs", "1", "--out", str(out)]  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True
    )
    code, study = result.stdout.strip().splitlines()[-1].split(" ", 1)
    assert (code, study) == ("0", "[]"), result.stderr
    assert (out / "COMPARE.md").is_file()

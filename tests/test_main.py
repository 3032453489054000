"""The command line: python -m skgate demo (skgate.study.cli)."""

import subprocess
import sys

import pytest

from skgate.study.cli import demo, main
from skgate.study.design import GATE_LABELS


def test_demo_table_has_every_task_and_gate():
    table = demo(n_samples=120, max_epochs=2, log=None)
    assert list(table.index) == ["checkerboard", "linear", "moons"]
    assert list(table.columns) == ["ungated", "SiLU", "gated (alpha=1)"]
    assert list(table.columns) == [
        GATE_LABELS[g] for g in ("none", "silu", "multiplicative")
    ]
    assert ((table >= 0) & (table <= 1)).all().all()


def test_demo_is_deterministic():
    first = demo(n_samples=120, max_epochs=2, log=None)
    second = demo(n_samples=120, max_epochs=2, log=None)
    assert first.equals(second)


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

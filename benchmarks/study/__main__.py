"""``python -m study`` (with ``benchmarks/`` on the path): the study's command
line, read by :func:`study.commands.read` (without torch) and run by
:func:`study.cli.run`, under :func:`skgate.outputs.run_main` (Ctrl-C,
SIGTERM and SIGHUP)."""

from importlib import import_module

from skgate.outputs import run_main

from study.commands import read

if __name__ == "__main__":
    run_main(read, lambda args: import_module("study.cli").run)

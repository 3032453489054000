"""``python -m skgate``: the library's command line (``compare``), read by
:func:`skgate.command.parse` and run by :func:`skgate.compare.run_command`
under :func:`skgate.outputs.run_main` (Ctrl-C, SIGTERM and SIGHUP)."""

from importlib import import_module

from skgate.command import parse
from skgate.outputs import run_main

if __name__ == "__main__":
    run_main(parse, lambda args: import_module("skgate.compare").run_command)

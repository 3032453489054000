"""``python -m skgate``: the command line. Its arguments are read first
(:mod:`skgate.command`, which imports neither torch nor scikit-learn), so
that ``--help`` and usage errors answer at once; the command then runs in
:mod:`skgate.study.cli`."""

import sys

from skgate.command import parse

if __name__ == "__main__":
    args, parser = parse()
    from skgate.study.cli import run

    sys.exit(run(args, parser))

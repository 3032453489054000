"""``python -m skgate``: the study's command line (see :mod:`skgate.study.cli`)."""

import sys

from skgate.study.cli import main

if __name__ == "__main__":
    sys.exit(main())

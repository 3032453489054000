"""``python -m skgate``: the command line (see :mod:`skgate._command`)."""

import sys

from skgate._command import main

if __name__ == "__main__":
    sys.exit(main())

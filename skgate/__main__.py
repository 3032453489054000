"""``python -m skgate``: the command line. Its arguments are read first
(:mod:`skgate.command`, which imports neither torch nor scikit-learn), so
that ``--help`` and usage errors answer at once (``compare``'s CSV values and
``--out`` too, with pandas), the study's commands' beside
(:mod:`skgate.study.commands`); ``compare`` then runs in the library
(:func:`skgate.compare.run_command`), the study's commands in
:mod:`skgate.study.cli`."""

import sys

from skgate.command import parse

if __name__ == "__main__":
    if sys.argv[1:2] == ["compare"]:  # the library's own command: no study
        args, parser = parse()
        from skgate.compare import run_command as run
    else:
        from skgate.study import commands as study_commands

        args, parser = parse(extra=[study_commands])
        from skgate.study.cli import run
    sys.exit(run(args, parser))

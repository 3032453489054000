"""``python -m skgate``: the command line. Its arguments are read first
(:mod:`skgate.command`, which imports neither torch nor scikit-learn), so
that ``--help`` and usage errors answer at once (``compare``'s CSV values and
``--out`` too, with pandas), the study's commands' beside
(:mod:`skgate.study.commands`); ``compare`` then runs in the library
(:func:`skgate.compare.run_command`), the study's commands in
:mod:`skgate.study.cli`.

Ctrl-C anywhere (while the imports run too) ends the command with one line
on stderr and exit code 130; the commands remove what they made first.
SIGTERM (``kill``, ``timeout``) and SIGHUP (a closed terminal) are handled
as Ctrl-C is, with exit codes 143 and 129.
Once a command has finished and written its results, Ctrl-C no longer
changes its exit code while the interpreter shuts down (about a second
after a compare).
"""

import os
import signal
import sys

from skgate.command import interrupted_line, is_interruption, parse


def _main():
    """The command's exit code; ``args`` are kept for the interruption's line."""
    args = None
    try:
        if sys.argv[1:2] == ["compare"]:  # the library's own command: no study
            args, parser = parse()
            from skgate.compare import run_command as run
        else:
            from skgate.study import commands as study_commands

            args, parser = parse(extra=[study_commands])
            from skgate.study.cli import run
        return run(args, parser)
    except (KeyboardInterrupt, ImportError) as exc:
        # An interrupted import may surface as an ImportError (a pybind11
        # module's initialisation wraps the KeyboardInterrupt in one).
        if isinstance(exc, ImportError) and not is_interruption(exc):
            raise
        print(interrupted_line(args), file=sys.stderr)
        return 130


#: The signal (SIGTERM, SIGHUP) that ended the command, or 0 (Ctrl-C's,
#: or none): the exit code is then 128 + it.
_terminated = 0


def _terminate(signum, frame):
    """SIGTERM or SIGHUP (``kill``, a closed terminal): stop as Ctrl-C
    stops, so that what was made is removed."""
    global _terminated
    _terminated = signum
    raise KeyboardInterrupt


if __name__ == "__main__":
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _terminate)
    code = _main()
    if code == 130:
        # Interrupted: what the command made is removed and its line printed;
        # leave now, as worker threads (torch's, a progress bar's) interrupted
        # mid-call can crash the interpreter's shutdown.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(128 + _terminated if _terminated else 130)
    # Done: a signal now would only interrupt the shutdown, not the command.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    sys.exit(code)

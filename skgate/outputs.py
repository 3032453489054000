"""What a command does with its output folder and when it is stopped.

The folder is checked before any work (:func:`check_writable`,
:func:`writable_problem`, :func:`outputs_problem`), what a command made is
removed when it fails or is interrupted (:func:`undone_on_failure`,
:func:`missing_folders`, :func:`remove_made`, :func:`files_in`,
:func:`written_since`), and :func:`run_main` runs a command line to its
exit: Ctrl-C, SIGTERM and SIGHUP end it with one line
(:func:`interrupted_line`) and exit codes 130, 143 and 129. Used by
``python -m skgate compare`` and by the repository's reproduction study;
torch is not imported.
"""

import contextlib
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from ._options import COMPARE_OUTPUTS

__all__ = [
    "COMPARE_MARK",
    "Interrupted",
    "check_writable",
    "files_in",
    "interrupted_line",
    "is_interruption",
    "missing_folders",
    "outputs_problem",
    "remove_made",
    "replaced_outputs",
    "run_main",
    "undone_on_failure",
    "writable_problem",
    "written_since",
]


def interrupted_line(args=None):
    """The line a command interrupted by Ctrl-C prints, ``args`` its parsed
    arguments (None: interrupted before they were read).

    Examples
    --------
    >>> import argparse
    >>> interrupted_line(argparse.Namespace(out="compare"))
    'interrupted; nothing was written to compare'
    >>> interrupted_line()
    'interrupted; nothing was written'
    """
    out = getattr(args, "out", None)
    return (
        f"interrupted; nothing was written to {out}"
        if out
        else ("interrupted; nothing was written")
    )


def is_interruption(exc):
    """Whether the exception ``exc`` was caused by a KeyboardInterrupt (an
    interrupted import surfaces as an ImportError raised from it).

    Examples
    --------
    >>> try:
    ...     try:
    ...         raise KeyboardInterrupt
    ...     except KeyboardInterrupt as interrupt:
    ...         raise ImportError("initialization failed") from interrupt
    ... except ImportError as exc:
    ...     is_interruption(exc), is_interruption(ImportError("no module"))
    (True, False)
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, SIGTERM or SIGHUP in a command run by :func:`run_main`: a
    KeyboardInterrupt that ends the command. An estimator's own ``fit``
    keeps what trained on Ctrl-C (a plain KeyboardInterrupt, as skorch
    does) and returns; this one it raises, so that a command that fits
    estimators one after another stops at once."""


def run_main(read, runner):
    """Run a command line to its exit: the process ends here.

    ``read()`` returns ``(args, parser)`` (:func:`parse`'s answer);
    ``runner(args)`` returns the function that runs them,
    ``run(args, parser) -> exit code``, imported late so that ``--help``
    answers before torch is imported.

    Ctrl-C anywhere (while the imports run too) ends the command with one
    line on stderr (:func:`interrupted_line`) and exit code 130; the
    commands remove what they made first. SIGTERM (``kill``, ``timeout``)
    and SIGHUP (a closed terminal) are handled as Ctrl-C is, with exit
    codes 143 and 129. The signals raise :class:`Interrupted`, which no
    estimator's fit keeps. Once a command has finished and written its results,
    Ctrl-C no longer changes its exit code while the interpreter shuts down.
    """
    terminated = []  # the signal (SIGTERM, SIGHUP) that ended the command

    def interrupt(signum, frame):
        if signum != signal.SIGINT:
            terminated.append(signum)
        raise Interrupted

    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, interrupt)
    args = None
    try:
        args, parser = read()
        code = runner(args)(args, parser)
    except (KeyboardInterrupt, ImportError) as exc:
        # An interrupted import may surface as an ImportError (a pybind11
        # module's initialisation wraps the KeyboardInterrupt in one).
        if isinstance(exc, ImportError) and not is_interruption(exc):
            raise
        print(interrupted_line(args), file=sys.stderr)
        code = 130
    if code == 130:
        # Interrupted: what the command made is removed and its line printed;
        # leave now, as worker threads (torch's, a progress bar's) interrupted
        # mid-call can crash the interpreter's shutdown.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(128 + terminated[0] if terminated else 130)
    # Done: a signal now would only interrupt the shutdown, not the command.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    sys.exit(code)


def check_writable(parser, out, command):
    """Fail before any work when ``out`` cannot hold a command's results:
    one line naming ``command``, exit code 2 (``parser.exit``); else make
    the folder.

    Examples
    --------
    >>> import tempfile
    >>> from skgate.command import parser
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     check_writable(parser(), folder, "compare")  # a writable folder: None
    """
    problem = writable_problem(out)
    if problem is not None:
        parser.exit(2, f"{parser.prog} {command}: error: {problem}\n")
    Path(out).mkdir(parents=True, exist_ok=True)


def writable_problem(out):
    """Why the folder ``out`` cannot hold a command's results, or None:
    found by making it (and its missing parents) and a file in it, then
    removing what was made.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     print(writable_problem(Path(folder) / "new" / "out"))
    ...     print(sorted(Path(folder).iterdir()))  # nothing left behind
    None
    []
    """
    out = _path(out, "out")
    if out.exists() and not out.is_dir():
        return f"--out must be a folder; {str(out)!r} is a file."
    missing = missing_folders(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        return (
            f"--out {str(out)!r} is not a writable folder ({exc.strerror}); "
            f"choose another with --out DIR."
        )
    finally:
        remove_made(missing)
    return None


#: The line by which a COMPARE.md is known as a compare run's report.
COMPARE_MARK = "Generated by `python -m skgate compare`"


def replaced_outputs(out, names=COMPARE_OUTPUTS):
    """The files ``names`` that exist in ``out`` and a run would replace, in
    their order (decided before any work, so that the run can say which)."""
    out = _path(out, "out")
    return [name for name in names if (out / name).is_file()]


def _written_by_compare(out):
    """Whether ``out`` holds a compare run's COMPARE.md (its mark inside)."""
    report = out / "COMPARE.md"
    try:
        return report.is_file() and COMPARE_MARK in report.read_text(errors="replace")
    except OSError:
        return False


def outputs_problem(out, names=COMPARE_OUTPUTS, option="--out", inputs=()):
    """Why the files ``names`` cannot be written into the folder ``out``, or
    None: ``out`` (or a folder above it) is a file, or something other than
    a file (a folder) or a file that cannot be replaced is where one of them
    goes, or one of them would replace a file of ``inputs`` (the files the
    command reads), or a file compare did not write (there is no compare
    run's COMPARE.md beside it). Checked before any training, so that a run
    does not fail after it, and never loses a file it was not asked to
    write. ``option``: how the message names ``out`` (``out=`` from Python).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     (Path(folder) / "fig_compare.png").mkdir()
    ...     print(outputs_problem(folder))
    --out '...' holds a folder named 'fig_compare.png' where compare writes
    that file; move it or choose another --out.
    """
    out = _path(out, "out")
    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise TypeError(f"names must be a list of file names; got {names!r}.")
    for folder in (out, *out.parents):
        if folder.exists() and not folder.is_dir():
            where = "" if folder == out else f" ({str(folder)!r} is a file)"
            return (
                f"{option} must be a folder; {str(out)!r} cannot be one{where}."
                if where
                else f"{option} must be a folder; {str(out)!r} is a file."
            )
        if folder.exists():
            break
    for name in names:
        path = out / name
        if path.is_dir() or (path.exists() and not path.is_file()):
            kind = "a folder" if path.is_dir() else "something other than a file"
            return (
                f"{option} {str(out)!r} holds {kind} named {name!r} where compare "
                f"writes that file; move it or choose another {option}."
            )
        if path.exists() and not os.access(out, os.W_OK):
            return (
                f"{option} {str(out)!r} holds {name!r}, which compare would "
                f"replace, and the folder is not writable; choose another {option}."
            )
    for given in inputs:
        given = Path(given)
        for name in names:
            if given.exists() and (out / name).exists():
                same = os.path.samefile(given, out / name)
            else:
                same = given.resolve() == (out / name).resolve()
            if same:
                return (
                    f"{option} {str(out)!r} is where compare writes {name!r}, "
                    f"which is the file it reads ({str(given)!r}): it would be "
                    f"replaced; choose another {option} or rename the file."
                )
    found = replaced_outputs(out, names)
    if found and not _written_by_compare(out):
        listed = ", ".join(repr(name) for name in found)
        return (
            f"{option} {str(out)!r} holds {listed}, which compare would replace, "
            "and no COMPARE.md of a compare run is beside it, so compare did not "
            f"write it; move it or choose another {option}."
        )
    return None


@contextlib.contextmanager
def undone_on_failure(out):
    """Within the block, the folders of the path ``out`` that do not exist
    yet are the block's to make; if it raises (or is interrupted), they are
    removed with what the block wrote into them, and nothing of a folder
    that existed before is touched.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = Path(folder) / "new" / "out"
    ...     try:
    ...         with undone_on_failure(out):
    ...             out.mkdir(parents=True)
    ...             _ = (out / "half.csv").write_text("a,b")
    ...             raise ValueError("failed")
    ...     except ValueError:
    ...         print(sorted(Path(folder).iterdir()))
    []
    """
    missing = missing_folders(out)
    try:
        yield
    except BaseException:
        remove_made(missing)
        raise


def _path(out, name):
    """``out`` as a Path, or a TypeError naming ``name``."""
    if not isinstance(out, str | os.PathLike):
        raise TypeError(
            f"{name} must be a folder's path (a str or a Path); got "
            f"{type(out).__name__}."
        )
    return Path(out)


def files_in(out):
    """The files directly in the folder ``out``, by name, with the time each
    was last written (ns); empty where ``out`` is not a folder."""
    out = _path(out, "out")
    if not out.is_dir():
        return {}
    return {p.name: p.stat().st_mtime_ns for p in out.iterdir() if p.is_file()}


def written_since(out, before):
    """The names of the files in ``out`` written since :func:`files_in`
    gave ``before`` (a dict), sorted."""
    if not isinstance(before, dict):
        raise TypeError(
            f"before must be what files_in(out) gave (a dict of names and "
            f"times); got {type(before).__name__}."
        )
    return sorted(k for k, v in files_in(out).items() if before.get(k) != v)


class MissingFolders(tuple):
    """The folders of a path that did not exist when
    :func:`missing_folders` looked, deepest first: what :func:`remove_made`
    may remove."""


def missing_folders(out):
    """The folders of the path ``out`` (a str or a Path) that do not exist,
    deepest first, as :class:`MissingFolders`.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     missing = missing_folders(Path(folder) / "a" / "b")
    ...     [p.name for p in missing]
    ['b', 'a']
    """
    out = _path(out, "out")
    missing = []
    for folder in (out, *out.parents):
        if folder.exists() or folder.is_symlink():
            break
        missing.append(folder)
    return MissingFolders(missing)


def remove_made(missing):
    """Remove the folders :func:`missing_folders` listed, now made: the
    deepest with what is in it (all of it made since), the others if empty.
    Only :func:`missing_folders`' answer is taken: a folder that existed
    before is never removed."""
    if not isinstance(missing, MissingFolders):
        raise TypeError(
            f"remove_made takes what missing_folders(out) gave, the folders "
            f"that did not exist before (so that nothing that existed is "
            f"removed); got {type(missing).__name__}."
        )
    if missing:
        shutil.rmtree(missing[0], ignore_errors=True)
    for folder in missing[1:]:
        with contextlib.suppress(OSError):
            folder.rmdir()

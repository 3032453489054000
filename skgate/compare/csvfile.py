""":func:`compare_csv`: compare_gates on a CSV file, its report written into a
folder (the ``compare`` command's work).
"""

import os
import re
import shutil
import sys
import tempfile
import warnings
from importlib.util import find_spec
from numbers import Integral
from pathlib import Path

import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, OneHotEncoder, StandardScaler

from .._checks import check_count
from .._evaluation import checked_cv
from ..outputs import (
    COMPARE_MARK,
    interrupted_line,
    is_interruption,
    outputs_problem,
    replaced_outputs,
    undone_on_failure,
)
from ..parallel import on_cluster
from .design import DEFAULT_CV, DEFAULT_REPEATS, MAX_REPEATS
from .gates import compare_gates
from .table import CsvProblem, check_folds, read_table, text_columns


def _preprocessor_for(X):
    """Numeric columns standardised, the others one-hot encoded. Each number
    is first divided by its column's largest magnitude: a column of 1e200s
    would overflow the standard deviation's squares."""
    numeric = list(X.select_dtypes("number").columns)
    other = [c for c in X.columns if c not in numeric]
    return ColumnTransformer(
        [
            ("numbers", make_pipeline(MaxAbsScaler(), StandardScaler()), numeric),
            ("categories", OneHotEncoder(handle_unknown="ignore"), other),
        ]
    )


def compare_csv(
    path, target, *, out, task=None, cv=DEFAULT_CV, repeats=DEFAULT_REPEATS,
    head="mlp", **params,
):  # fmt: skip
    """:func:`~skgate.compare_gates` on a CSV file, its report written into
    ``out``: what ``python -m skgate compare`` runs.

    The file is read and checked by :func:`skgate.compare.table.read_table` (as
    the command line checks it before importing torch). Numeric columns are
    standardised and the others one-hot encoded inside each fold (fitted on
    the fold's training rows). A run that fails or is interrupted removes
    the folders it made for ``out``, with what it wrote there.

    Parameters
    ----------
    path : str or path-like
        A CSV file with a header row.
    target : str
        The column to predict; every other column is a feature.
    out : str or path-like
        The folder to write COMPARE.md (settings, verdict, tests, scores),
        compare_scores.csv, compare_tests.csv and fig_compare.png into.
    task : {"classification", "regression"} or None, default=None
        None: read from the target (:func:`infer_task`).
    cv, repeats : int
        The design: ``cv``-fold cross-validation repeated ``repeats`` times.
    head : str, default="mlp"
        The estimators' head.
    **params
        Further keywords of :func:`~skgate.compare_gates`.

    Returns
    -------
    GateComparison

    Raises
    ------
    CsvProblem
        A file that cannot be compared as asked (unreadable, empty, no such
        column, a row with more values than the header, missing or infinite
        values, a target of one value, too few rows for ``cv``), in one line
        naming the problem.
    """
    fixed = sorted({"X", "y", "task", "n_repeats", "preprocessor"} & set(params))
    if fixed:  # set here from the file and the command line's names
        raise TypeError(
            f"compare_csv sets {fixed} itself (the file gives X, y and the "
            f"columns' preprocessing; the repeats are repeats=); got them in "
            f"**params."
        )
    # Named as given here: compare_gates would call it n_repeats.
    repeats = check_count("repeats", repeats, 1, MAX_REPEATS)
    X, y, task = read_table(path, target, task)  # as the command line did
    cv = checked_cv(cv)  # a text or a float, named
    if isinstance(cv, Integral):  # a splitter's own splits are checked later
        check_folds(y, task, cv)
    out = Path(out)
    # before training, not after
    problem = outputs_problem(out, option="out", inputs=(path,))
    if problem is not None:
        raise ValueError(problem)
    with undone_on_failure(out):  # a failed run leaves no folder behind
        out.mkdir(parents=True, exist_ok=True)
        result = compare_gates(
            X, y, task=task, cv=cv, n_repeats=repeats, head=head,
            preprocessor=_preprocessor_for(X), **params,
        )  # fmt: skip
        _write(result, out, path, target, X)
    return result


def has_matplotlib():
    """Whether matplotlib can be imported (for fig_compare.png)."""
    return find_spec("matplotlib") is not None


def _write(result, out, path, target, X):
    """Every file into a staging folder inside ``out`` first, then each
    moved into place: a run that fails while writing leaves ``out`` as it
    was. Without matplotlib the figure is skipped (and an older
    fig_compare.png removed, so that it does not pass for this run's)."""
    staging = Path(tempfile.mkdtemp(dir=out, prefix=".compare-"))
    try:
        result.scores_.to_csv(staging / "compare_scores.csv", index=False)
        result.tests_.to_csv(
            staging / "compare_tests.csv", index=False, float_format="%.10g"
        )
        figure = has_matplotlib()
        if figure:
            display = result.plot()
            display.figure_.savefig(
                staging / "fig_compare.png", dpi=110, bbox_inches="tight"
            )
        (staging / "COMPARE.md").write_text(
            _markdown(result, path, target, X, figure=figure)
        )
        for written in staging.iterdir():
            os.replace(written, out / written.name)
        if not figure:
            (out / "fig_compare.png").unlink(missing_ok=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _settings_table(result, X):
    s = result.settings_
    params = s["estimator_params"]
    rows = [
        ("gates", ", ".join(s["gates"])),
        (
            "baselines",
            ", ".join(s["baselines"])
            or "none" + (f" ({s['baselines note']})" if s["baselines note"] else ""),
        ),
        (
            "alphas",
            "the estimator's"
            if s["alphas"] is None
            else ", ".join(map(str, s["alphas"])),
        ),
        ("design", f"{s['cv']}-fold x {s['n_repeats']} repeats ({s['splits']} splits)"),
        (
            "test",
            f"{s['test']}, Holm over the table; Bayesian correlated t-test beside it",
        ),
        ("score margin", f"{s['margin']:g} (the region of practical equivalence)"),
        ("score", s["score"]),
        ("curvature", s["curvature"]),
        ("epochs", str(params.get("max_epochs"))),
        ("head", str(params.get("head"))),
        ("seed", str(s["random_state"])),
        ("rows x columns", f"{len(X)} x {X.shape[1]}"),
        ("categories", ", ".join(map(str, text_columns(X))) or "none"),
        ("seconds", f"{s['seconds']:.0f}"),
        ("versions", ", ".join(f"{k} {v}" for k, v in s["versions"].items())),
    ]
    return pd.DataFrame(rows, columns=["setting", "value"])


def _markdown(result, path, target, X, *, figure=True):
    """COMPARE.md: the settings, the verdict, the tests, the scores per arm
    (and the figure, when it was drawn)."""
    means = result.scores_.groupby("arm", sort=False)[
        ["score", "curvature", "fit_time"]
    ].agg(["mean", "std"])
    means.columns = [f"{a} {b}" for a, b in means.columns]
    return "\n".join(
        [
            f"# Gates compared on {Path(path).name}",
            "",
            f"Target `{target}` ({result.task_}). {COMPARE_MARK}.",
            "",
            f"**{result.verdict_}**",
            "",
            "## Settings",
            "",
            _settings_table(result, X).to_markdown(index=False),
            "",
            f"## Tests ({result.settings_['test']}, paired by split, Holm over the "
            "table; interval bounds at Holm's step levels)",
            "",
            result.summary().to_markdown(index=False, floatfmt=".4g"),
            "",
            "## Scores per arm (mean and std over splits)",
            "",
            f"score: {result.settings_['score']}; curvature: "
            f"{result.settings_['curvature']}.",
            "",
            means.reset_index().to_markdown(index=False, floatfmt=".4g"),
            "",
            "![scores, curvature and their differences with intervals](fig_compare.png)"
            if figure
            else "(No figure: matplotlib is not installed; "
            "pip install 'skgate[plot]'.)",
            "",
        ]
    )


def run_command(args, parser):
    """``python -m skgate compare``: :func:`compare_csv` on the arguments
    ``args`` that ``parser`` (:func:`skgate.command.parser`) read and
    checked; prints the verdict and the report's path, and returns the exit
    code (0; 130 when interrupted). A file the comparison cannot use, an
    unwritable ``--out`` or an unreachable ``--scheduler`` exit 2 with one
    line (``parser.exit``); :func:`compare_csv` leaves no folder of a
    failed or interrupted run behind."""
    if not has_matplotlib():
        print(
            "matplotlib is not installed: every file but fig_compare.png will be "
            "written (pip install 'skgate[plot]' for the figure).",
            file=sys.stderr,
        )
    replaced = replaced_outputs(args.out)  # decided before any work
    try:
        with warnings.catch_warnings(), on_cluster(args.scheduler):
            # A warning is one line of the command's, not Python's (a source
            # path and the line that raised it).
            warnings.showwarning = _one_line_warning(parser.prog)
            result = compare_csv(
                args.csv,
                args.target,
                out=args.out,
                task=args.task,
                cv=args.cv,
                repeats=args.repeats,
                test=args.test,
                margin=args.margin,
                head=args.head,
                max_epochs=args.max_epochs,
                random_state=args.random_state,
                n_jobs=args.n_jobs,
                baselines=None if args.baselines == "none" else args.baselines,
                verbose=1,
            )
    except (CsvProblem, ValueError, OSError) as exc:
        # A file the comparison cannot use, or an unreachable scheduler.
        message = " ".join(str(exc).split())
        parser.exit(2, f"{parser.prog} compare: error: {message}\n")
    except (KeyboardInterrupt, ImportError) as exc:
        # An import interrupted (matplotlib's, as the figure is drawn) may
        # surface as an ImportError: an interruption, not a missing package.
        if isinstance(exc, ImportError) and not is_interruption(exc):
            raise
        # compare_csv removed what it made for --out.
        _clear_progress_bars()
        print(interrupted_line(args), file=sys.stderr)
        return 130
    # The first line: whether any gate beats the best baseline.
    first = result.against_baselines_
    if first:
        print(first)
    print(result.verdict_[len(first) :].lstrip())
    again = (
        f" (it replaced the earlier run's {', '.join(replaced)})" if replaced else ""
    )
    print(f"Report: {Path(args.out) / 'COMPARE.md'}{again}")
    return 0


#: The library's parameter names in a warning, as the command line's options.
_OPTIONS = (
    (r"test='([\w-]+)'", r"--test \1"),
    (r"\bcv=(\d+)", r"--cv \1"),
    (r"\bn_repeats=(\d+)", r"--repeats \1"),
    (r"\(cv, n_repeats\)", "(--cv, --repeats)"),
)


def _one_line_warning(prog):
    """A ``warnings.showwarning`` that prints one line in the command's
    words: its name, then the message with the library's parameter names
    as the command line's options."""

    def show(message, category, filename, lineno, file=None, line=None):
        text = " ".join(str(message).split())
        for pattern, option in _OPTIONS:
            text = re.sub(pattern, option, text)
        print(f"{prog} compare: warning: {text}", file=sys.stderr)

    return show


def _clear_progress_bars():
    """Close the progress bars an interruption left open, so that the line
    that follows starts a line of its own (and their closing at exit does
    not write over it)."""
    if "tqdm" not in sys.modules:
        return
    from tqdm import tqdm

    for bar in list(getattr(tqdm, "_instances", ())):
        bar.close()

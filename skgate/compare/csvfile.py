""":func:`compare_csv`: compare_gates on a CSV file, its report written into a
folder (the ``compare`` command's work).
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from ..command import CsvProblem, check_writable, header_problem
from ..parallel import on_cluster
from .design import DEFAULT_CV, DEFAULT_REPEATS, _label, infer_task
from .gates import compare_gates


def _read_table(path, target, task=None):
    """(X, y, task) from the CSV at ``path`` with ``target`` as y; a
    :class:`CsvProblem` for an unreadable or empty file, a header without
    rows, an unknown target column, missing or infinite values, a target
    with one value, or a numeric target with many values and no ``task``."""
    try:
        table = pd.read_csv(path)
    except pd.errors.EmptyDataError as exc:
        raise CsvProblem(header_problem(path, target, None, False)) from exc
    except (OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise CsvProblem(f"cannot read {str(path)!r} as CSV: {exc}") from exc
    problem = header_problem(path, target, table.columns, len(table) > 0)
    if problem is not None:
        raise CsvProblem(problem)
    _check_values(table, path)
    y = table.pop(target)
    if y.nunique() < 2:
        raise CsvProblem(
            f"the target {target!r} has one value ({_label(y.iloc[0])!r}); nothing "
            "to predict."
        )
    if table.shape[1] == 0:
        raise CsvProblem(f"{str(path)!r} has no column besides the target {target!r}.")
    try:
        task = infer_task(y, task)
    except ValueError as exc:
        raise CsvProblem(
            f"the target {target!r} is numeric with {y.nunique()} distinct values: "
            "pass --task regression to predict it as a number, or --task "
            "classification to treat each value as a class."
        ) from exc
    if task == "regression" and not pd.api.types.is_numeric_dtype(y):
        raise CsvProblem(
            f"--task regression needs a numeric target; {target!r} holds text."
        )
    return table, y, task


def _check_values(table, path):
    missing = table.isna().sum()
    missing = missing[missing > 0]
    if len(missing):
        counts = ", ".join(f"{name} ({n})" for name, n in missing.items())
        raise CsvProblem(
            f"{str(path)!r} has missing values in: {counts}; fill or drop them first."
        )
    numbers = table.select_dtypes("number")
    infinite = np.isinf(numbers.to_numpy(dtype=float)).sum(axis=0)
    if infinite.any():
        counts = ", ".join(
            f"{name} ({n})"
            for name, n in zip(numbers.columns, infinite, strict=True)
            if n
        )
        raise CsvProblem(
            f"{str(path)!r} has infinite values in: {counts}; replace or drop "
            "them first."
        )


def _check_design(y, task, cv):
    """A :class:`CsvProblem` when ``--cv`` folds cannot be filled: more
    folds than rows, or (classification) than rows of the smallest class."""
    if task == "classification":
        counts = y.value_counts()
        if counts.min() < cv:
            raise CsvProblem(
                f"--cv {cv} stratified folds need at least {cv} rows of every "
                f"class; class {_label(counts.idxmin())!r} has {counts.min()}: lower "
                "--cv, or drop or merge that class."
            )
    elif len(y) < cv:
        raise CsvProblem(
            f"--cv {cv} folds need at least {cv} rows; the file has {len(y)}."
        )


def _preprocessor_for(X):
    """Numeric columns standardised, the others one-hot encoded."""
    numeric = list(X.select_dtypes("number").columns)
    other = [c for c in X.columns if c not in numeric]
    return ColumnTransformer(
        [
            ("numbers", StandardScaler(), numeric),
            ("categories", OneHotEncoder(handle_unknown="ignore"), other),
        ]
    )


def compare_csv(
    path, target, *, out, task=None, cv=DEFAULT_CV, repeats=DEFAULT_REPEATS,
    head="mlp", **params,
):  # fmt: skip
    """:func:`~skgate.compare_gates` on a CSV file, its report written into
    ``out``: what ``python -m skgate compare`` runs.

    Numeric columns are standardised and the others one-hot encoded inside
    each fold (fitted on the fold's training rows).

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
        column, missing or infinite values, a target of one value, too few
        rows for ``cv``), in one line naming the problem.
    """
    X, y, task = _read_table(path, target, task)
    _check_design(y, task, cv)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    result = compare_gates(
        X, y, task=task, cv=cv, n_repeats=repeats, head=head,
        preprocessor=_preprocessor_for(X), **params,
    )  # fmt: skip
    result.scores_.to_csv(out / "compare_scores.csv", index=False)
    result.tests_.to_csv(out / "compare_tests.csv", index=False, float_format="%.10g")
    display = result.plot()
    display.figure_.savefig(out / "fig_compare.png", dpi=110)
    (out / "COMPARE.md").write_text(_markdown(result, path, target, X))
    return result


def _settings_table(result, X):
    s = result.settings_
    params = s["estimator_params"]
    rows = [
        ("gates", ", ".join(s["gates"])),
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
        ("seconds", f"{s['seconds']:.0f}"),
        ("versions", ", ".join(f"{k} {v}" for k, v in s["versions"].items())),
    ]
    return pd.DataFrame(rows, columns=["setting", "value"])


def _markdown(result, path, target, X):
    """COMPARE.md: the settings, the verdict, the tests, the scores per arm."""
    means = result.scores_.groupby("arm", sort=False)[
        ["score", "curvature", "fit_time"]
    ].agg(["mean", "std"])
    means.columns = [f"{a} {b}" for a, b in means.columns]
    return "\n".join(
        [
            f"# Gates compared on {Path(path).name}",
            "",
            f"Target `{target}` ({result.task_}). Generated by `python -m skgate "
            "compare`.",
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
            "![scores, curvature and their differences with intervals]"
            "(fig_compare.png)",
            "",
        ]
    )


def run_command(args, parser):
    """``python -m skgate compare``: :func:`compare_csv` on the arguments
    ``args`` that ``parser`` (:func:`skgate.command.parser`) read and
    checked; prints the verdict and the report's path, and returns the exit
    code (0; 130 when interrupted). A file the comparison cannot use, an
    unwritable ``--out`` or an unreachable ``--scheduler`` exit 2 with one
    line (``parser.exit``)."""
    check_writable(parser, args.out, "compare")
    try:
        with on_cluster(args.scheduler):
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
                verbose=1,
            )
    except (CsvProblem, ValueError, OSError) as exc:
        # A file the comparison cannot use, or an unreachable scheduler.
        message = " ".join(str(exc).split())
        parser.exit(2, f"{parser.prog} compare: error: {message}\n")
    except KeyboardInterrupt:
        # Files are written only once every fit is done: nothing half-written,
        # and a folder made for this run is not left behind empty.
        out = Path(args.out)
        if out.is_dir() and not any(out.iterdir()):
            out.rmdir()
        print(f"interrupted; nothing was written to {args.out}", file=sys.stderr)
        return 130
    print(result.verdict_)
    print(f"Report: {Path(args.out) / 'COMPARE.md'}")
    return 0

"""The evaluation :func:`skgate.compare_gates` and :func:`skgate.benchmark_gates`
share: every gate trained on the same cross-validation splits of one dataset,
from the same seeds, and scored on the held-out rows with its curvature.

Private to the library; its face is ``__all__``, what the two packages use of
it (``tests/test_layout.py`` holds that neither reaches past it, nor into the
other). In the order an evaluation runs: :mod:`~skgate._evaluation.data` (X,
y and its task, the groups), :mod:`~skgate._evaluation.design` (the gates,
their arms and estimators, the scorer, the margin, the options),
:mod:`~skgate._evaluation.splits` (the splits and their seeds),
:mod:`~skgate._evaluation.fits` (every arm on every split),
:mod:`~skgate._evaluation.baselines` (the models a user would pick
instead, on the same splits) and
:mod:`~skgate._evaluation.record` (what a result records and says).
"""

from .baselines import (
    baseline_input,
    baseline_rows,
    check_baselines,
    dry_run_baselines,
    named_by_class,
    split_row,
)
from .data import check_data, check_X, infer_task, laid_out
from .design import (
    DECISION_PROBABILITY,
    check_alphas,
    check_curvature_params,
    check_gates,
    check_margin,
    check_margin_for,
    check_options,
    checked_scorer,
    make_arms,
    make_estimators,
    score_difference_range,
)
from .fits import arm_scores, dry_run, score_model, split_chunks, split_data
from .record import (
    Verdict,
    curvature_label,
    library_versions,
    probability_text,
    scoring_name,
    shared_params,
)
from .splits import (
    checked_cv,
    cv_splits,
    describe_cv,
    numeric_column,
    split_test_fraction,
)

__all__ = [
    "DECISION_PROBABILITY",
    "Verdict",
    "arm_scores",
    "baseline_input",
    "baseline_rows",
    "check_baselines",
    "split_row",
    "check_X",
    "check_alphas",
    "check_curvature_params",
    "check_data",
    "check_gates",
    "check_margin",
    "check_margin_for",
    "check_options",
    "checked_cv",
    "checked_scorer",
    "curvature_label",
    "cv_splits",
    "describe_cv",
    "dry_run",
    "dry_run_baselines",
    "infer_task",
    "laid_out",
    "library_versions",
    "make_arms",
    "make_estimators",
    "named_by_class",
    "numeric_column",
    "probability_text",
    "score_difference_range",
    "score_model",
    "scoring_name",
    "shared_params",
    "split_chunks",
    "split_data",
    "split_test_fraction",
]

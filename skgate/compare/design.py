"""compare_gates' design: its defaults, margins and tests, and the checks of
its splits that a comparison within one dataset makes. The rest of the
design (the data, the gates and arms, the splits, the options), shared with
:func:`skgate.benchmark_gates`, is the library's evaluation
(:mod:`skgate._evaluation`).
"""

import warnings

import numpy as np
from sklearn.metrics import r2_score

from .. import _evaluation, _options, paired
from .._evaluation import describe_cv, infer_task

__all__ = [
    "CURVATURE_MARGIN_SHARE",
    "DECISION_PROBABILITY",
    "DEFAULT_CV",
    "DEFAULT_REPEATS",
    "MAX_INFERRED_CLASSES",
    "MAX_REPEATS",
    "SCORE_MARGIN",
    "TESTS",
    "check_test_rows",
    "infer_task",
    "warn_if_undecidable",
]

#: Equivalence margins ("no effect" within them), the reproduction study's
#: smallest differences of interest: a score difference of 0.02, a curvature
#: difference of this share of the two arms' mean.
SCORE_MARGIN = paired.SCORE_MARGIN

#: The curvature margin as a share of the two arms' mean curvature.
CURVATURE_MARGIN_SHARE = paired.CURVATURE_MARGIN_SHARE

#: The tests of a paired difference: for cross-validation splits (the
#: default) and for independent replicates.
TESTS = _options.TESTS

#: The default design: 10 x 10 cross-validation, the design for which
#: Bouckaert & Frank (2004) found the corrected resampled t-test most
#: replicable. Under the corrected test the variance of a mean difference is
#: about tau^2 (1 + (k - 1) / (k r)) for k folds and r repeats (tau^2 the
#: variance with every row tested once): 1.09 tau^2 at 10 x 10, against 1.8
#: at 5 x 1 and 1.4 at 5 x 2, on 99 degrees of freedom instead of 4 or 9.
#: More repeats cannot manufacture significance: the variance never falls
#: below tau^2 (benchmarks/bench_compare.py measures the time).
DEFAULT_CV, DEFAULT_REPEATS = _options.COMPARE_CV, _options.COMPARE_REPEATS

#: The most repeats of the k-fold (1000, the ``compare`` command's cap, one
#: fact): far beyond what the corrected test can use (its variance never
#: falls below tau^2), so that a typo (10**9) is refused at once instead of
#: hanging while the splits are drawn.
MAX_REPEATS = _options.MAX_REPEATS

#: The posterior probability at which the recommendation names a gate (or a
#: set of equivalent gates) as the best.
DECISION_PROBABILITY = _evaluation.DECISION_PROBABILITY

#: A numeric target with integer values is read as classes only up to this
#: many distinct values; beyond, ``task`` must say what it is.
MAX_INFERRED_CLASSES = _options.MAX_INFERRED_CLASSES


def _scores_r2(scoring, task):
    """Whether ``scoring`` is R^2 (by name, by make_scorer, or as the
    default of a regression)."""
    if scoring is None:
        return task == "regression"
    if isinstance(scoring, str):
        return scoring == "r2"
    return getattr(scoring, "_score_func", None) is r2_score


def check_test_rows(splits, scoring, task, cv):
    """Refuse, before any training, a split whose test rows cannot be
    scored: R^2 is undefined on a single test row."""
    if not _scores_r2(scoring, task):
        return
    sizes = np.array([len(split.test) for split in splits])
    if (sizes < 2).any():
        repeat, fold = splits[int(np.argmin(sizes))][:2]
        raise ValueError(
            f"cv={describe_cv(cv)}: split (repeat {repeat}, fold {fold}) has "
            f"{sizes.min()} test row; R^2 needs at least 2 on every split (it is "
            "undefined on one): use fewer folds, or splits of 2 or more test rows."
        )


def warn_if_undecidable(test, splits, n_tests, cv):
    """Warn once where no test of the table can pass Holm's level: its
    smallest p (for either test no lower than 2^-splits,
    :func:`skgate.paired.sign_floor`) times the number of tests."""
    n_splits, n_repeats = len(splits), splits[-1].repeat + 1
    floor = max(paired.smallest_p(test, n_splits), paired.sign_floor(n_splits))
    if n_tests * floor >= paired.ALPHA_LEVEL:
        warnings.warn(
            f"test={test!r} on cv={describe_cv(cv)} x n_repeats={n_repeats} "
            f"({n_splits} splits) cannot reach the Holm level: its smallest p is "
            f"{floor:.3g}, {min(1.0, n_tests * floor):.3g} after Holm over "
            f"{n_tests} tests (level {paired.ALPHA_LEVEL:g}). Use more splits "
            "(cv, n_repeats).",
            UserWarning,
            stacklevel=3,
        )

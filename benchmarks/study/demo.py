"""``make demo`` (``python -m study demo``): one pre-registered question,
decided in about a minute.

The question is protocol 2's first primary test (``docs/protocol-2.md``):
over softmax attention on sequences of noisy observations, is gated
attention more accurate than SiLU, on the mean of the protocol's two curved
conditions? The demo fits the two arms on the confirmatory run's first
seeds with that run's settings (the protocol's model and cap, each arm's
learning rate, early stopping, batched as the run batched them),
measures accuracy alone, and tests the paired difference as the protocol
does (sign-flip p-value over seeds, bootstrap interval) at the primary
family's strictest Holm level, where a test passes whatever the family's
other tests do. Its verdict is set beside the committed confirmatory one,
and where they differ the demo says which is the study's.
"""

import math
import os
import time
from dataclasses import dataclass
from numbers import Integral
from pathlib import Path

import numpy as np
import pandas as pd

from skgate import GatedAttentionClassifier
from skgate.paired import ALPHA_LEVEL, HOLDS, INCONCLUSIVE, NO_EFFECT, REVERSED, adjust

from . import confirmatory, machine, runfiles, sequences, sweeps
from .commands import DEMO_SEEDS, check_n_jobs
from .design import TEST_SIZE
from .facts import SEQUENCE, SEQUENCE_FIRST_SEED, SEQUENCE_SEEDS, STUDY_GATES
from .paths import RESULTS
from .replication import REPLICATION

__all__ = ["DemoResult", "demo", "measure_accuracy"]

#: Where the committed confirmatory run lies, in a checkout.
COMMITTED = RESULTS
_GATED, _SILU, _ = STUDY_GATES.order


def _question():
    """The protocol's test the demo decides: C1, accuracy, gated > SiLU, on
    the mean of the curved conditions."""
    (test,) = [
        t
        for t in sequences.tests()
        if t["claim"] == "C1"
        and t["quantity"] == "accuracy"
        and (t["better"], t["worse"]) == (_GATED, _SILU)
    ]
    return test


def _settings(seeds, fixed):
    """The arms sweep's fits of the two arms on the curved conditions, with
    the confirmatory run's settings and the keys ``fixed``."""
    arms = sequences.arms_settings(
        sequences.CONDITIONS, sequences.LEARNING_RATES, seeds
    )
    return [
        {**s, **fixed}
        for s in arms
        if s["task"] == "curved" and s["gate"] in (_GATED, _SILU)
    ]


def measure_accuracy(clf, X_test, y_test, setting):
    """What a demo fit measures: held-out accuracy, the epoch whose weights
    it keeps, and how many it ran."""
    return {
        "accuracy": clf.score(X_test, y_test),
        "best_epoch": int(np.argmax(clf.validation_scores_)) + 1,
        "epochs_run": clf.n_iter_,
    }


def _outcome(result, n_tests):
    """The outcome at the family's strictest Holm level (the level alone
    over the number of tests): where a test passes whatever the rest do.
    Its p-values times ``n_tests`` (Holm's first step) against the level,
    by the family's own rule (:func:`skgate.paired.adjust`)."""
    keys = ("p", "p reverse", "p equivalence")
    scaled = pd.DataFrame([{key: min(1.0, result[key] * n_tests) for key in keys}])
    return adjust(scaled)["outcome"].iloc[0]


def _committed(frame, test, folder):
    """The committed run's outcome of ``test`` and its rows for the demo's
    fits, and its replication's rows (``folder``/replication, where there
    is one: this code's fits); None where the folder has no such run (an
    installed wheel), and ``{"error": why}`` where its files cannot be read
    as a run's."""
    folder = Path(folder)
    tests, arms = folder / "tests_2_primary.csv", folder / "seq_arms.csv"
    if not (tests.is_file() and arms.is_file()):
        return None
    again = folder / REPLICATION / "seq_arms.csv"
    try:
        found = _read_committed(frame, test, tests, arms)
        if again.is_file():
            found["replication"] = _same_rows(frame, again)
            record = again.parent / "run.json"
            record = runfiles.read_record(record) if record.is_file() else {}
            case, sentence = machine.platform_case(record)
            found["replication"].update(
                case=case, platform=sentence, outcome=_rows_outcome(frame, test, again)
            )
        return found
    except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError) as exc:
        why = " ".join(str(exc).split())[:200]
        return {"error": f"{type(exc).__name__}: {why}", "folder": str(folder)}


#: What the demo measures of a fit, which the run's rows hold too.
_MEASURED = ("accuracy", "best_epoch", "epochs_run")


def _same_rows(frame, arms):
    """How the demo's fits compare with a run's rows of the same settings
    (``arms``: its seq_arms.csv): rows matched, whether every measured
    number is the same, and the largest accuracy difference."""
    keys = ["shape", "gate", "seed"]
    written = runfiles.as_written(frame[[*keys, *_MEASURED]])  # as the CSV has it
    same = written.merge(
        runfiles.read_csv(arms)[[*keys, *_MEASURED]],
        on=keys,
        suffixes=("", " committed"),
    )
    equal = all(
        (
            same[m].to_numpy(dtype=float)
            == same[f"{m} committed"].to_numpy(dtype=float)
        ).all()
        for m in _MEASURED
    )
    largest = float(
        (same["accuracy"] - same["accuracy committed"]).abs().max()
        if len(same)
        else np.nan
    )
    return {
        "matched": len(same),
        "identical": bool(len(same)) and equal,
        "largest difference": largest,
        "agrees": bool(len(same)) and largest <= machine.CROSS_CPU_ACCURACY,
    }


def _rows_outcome(frame, test, arms):
    """The demo's test on a run's rows (``arms``: its seq_arms.csv) of the
    demo's fits (the same conditions, arms and seeds): its outcome at the
    family's strictest level, as :func:`demo` decides its own."""
    keys = ["task", "shape", "gate", "seed"]
    rows = runfiles.read_csv(arms).merge(frame[keys].drop_duplicates(), on=keys)
    rows["condition"] = [sequences.task_label(row) for _, row in rows.iterrows()]
    result = confirmatory.statistics(test, sequences.test_rows(rows, test))
    return _outcome(result, len(sequences.tests()))


def _read_committed(frame, test, tests, arms):
    table = runfiles.read_csv(tests, count_seeds=False)
    row = table[
        (table["claim"] == test["claim"])
        & (table["quantity"] == test["quantity"])
        & (table["comparison"] == test["comparison"])
    ].iloc[0]
    numbers = [float(row[key]) for key in ("estimate", "ci low", "ci high", "n")]
    if not np.isfinite(numbers).all() or row["outcome"] not in _OUTCOMES:
        raise ValueError(f"{tests.name}'s row of the test is not a test's result")
    return {
        "estimate": numbers[0],
        "ci": (numbers[1], numbers[2]),
        "outcome": row["outcome"],
        "n": int(numbers[3]),
        **_same_rows(frame, arms),
    }


@dataclass(frozen=True)
class DemoResult:
    """What the demo found: its fits, the test and its outcome at the
    level, the convergence of the fits, and the committed run's answer."""

    #: One row per fit (condition, arm, seed, accuracy, best epoch, epochs run).
    fits: pd.DataFrame
    #: The protocol's test (its claim, comparison and conditions).
    test: dict
    #: estimate, "ci low", "ci high", p, "p reverse", "p equivalence", n.
    result: dict
    #: The outcome at :attr:`level`: "holds", "reversed", "no effect" or
    #: "inconclusive".
    outcome: str
    #: The family's strictest Holm level.
    level: float
    #: Share of fits whose best epoch is in the last part of the cap the
    #: protocol's convergence rule names.
    late_share: float
    #: The committed confirmatory run's outcome and its rows for these fits
    #: (None where there is none beside the package).
    committed: dict | None
    #: Wall time of the fits (s).
    seconds: float
    #: Setting keys that replaced the protocol's (none in ``make demo``).
    fixed: dict

    def lines(self):
        """The demo's report, at most 30 lines of plain text."""
        t, r = self.test, self.result
        seeds = sorted(self.fits["seed"].unique())
        means = self.fits.pivot_table(
            index="condition", columns="gate", values="accuracy", sort=False
        )
        label = STUDY_GATES.arm_labels
        lines = [
            "Does gated attention beat SiLU over softmax attention on sequences?",
            f"Protocol 2's first primary test (docs/protocol-2.md): {t['claim']}, "
            f"accuracy, {t['comparison']}, on the {sequences.label(t['condition'])}.",
            f"{len(self.fits)} fits in {self.seconds:.0f} s: 2 arms x "
            f"{len(means)} conditions x {len(seeds)} seeds ({seeds[0]}-{seeds[-1]}, "
            f"the confirmatory run's first), sequences of {SEQUENCE.n_observations} "
            f"observations, each arm at its protocol learning rate, early "
            f"stopping within {self.fits['max_epochs'].iloc[0]} epochs.",
            *(
                [f"Not the protocol's fits: {self.fixed} replace its settings."]
                if self.fixed
                else []
            ),
            "",
            f"  {'condition':<26}{label[_GATED]:>8}{label[_SILU]:>8}   difference",
            *(
                f"  {condition:<26}{row[_GATED]:>8.3f}{row[_SILU]:>8.3f}   "
                f"{row[_GATED] - row[_SILU]:+.3f}"
                for condition, row in means.iterrows()
            ),
            "",
            f"Test: {t['comparison']}, mean of both conditions, paired by seed: "
            f"{r['estimate']:+.3f} [{r['ci low']:+.3f}, {r['ci high']:+.3f}] "
            f"(95 % bootstrap), sign-flip p = {r['p']:.4f} over {r['n']} seeds.",
            f"Verdict of this demo: {self.outcome}, at level {self.level:.3g} "
            f"(the protocol's {ALPHA_LEVEL:g} over its "
            f"{round(ALPHA_LEVEL / self.level)} primary tests)" + self._reach() + ".",
            f"Convergence: {self.late_share:.0%} of the fits kept an epoch in the "
            f"last {sequences.LATE_FRACTION:.0%} of the cap (the protocol's rule: "
            f"under {sequences.LATE_SHARE:.0%}"
            + (
                "; not met: the fits may still have been improving)."
                if self.late_share >= sequences.LATE_SHARE
                else ")."
            ),
            *self._committed_lines(),
        ]
        return lines

    def _reach(self):
        """Why a verdict is inconclusive by construction: too few seeds for
        the smallest sign-flip p-value to reach the level."""
        n = self.result["n"]
        if sequences.can_decide(n):
            return ""
        return (
            f"; with {n} seeds it could not be otherwise: the smallest sign-flip "
            f"p is 1/{2**n}, above the level (8 seeds are the fewest that can decide)"
        )

    def _replication_lines(self):
        """How the demo's fits compare with the replication's rows."""
        r = (self.committed or {}).get("replication")
        if r is None:
            return []
        if self.fixed:
            return [
                "The replication's rows are the protocol's fits; these take other "
                "settings, so they are not compared with them."
            ]
        if r["matched"] == 0:
            return ["The replication has no rows for these fits."]
        if r["identical"]:
            return [
                f"The replication's {r['matched']} rows for these fits (this "
                "code's) hold the same accuracies, best epochs and epochs run: "
                "the demo's fits are the committed ones."
            ]
        differ = (
            f"The replication's {r['matched']} rows for these fits differ from "
            f"the demo's (accuracy by up to {r['largest difference']:.3g})"
        )
        if r.get("case", machine.SAME) == machine.SAME:
            return [f"{differ}: the code changed since the replication."]
        bound = f"{machine.CROSS_CPU_ACCURACY:g}"
        if r["agrees"] and r["outcome"] == self.outcome:
            return [
                r["platform"],
                f"{differ}, within the {bound} that rounding on another CPU "
                f"was measured to reach over these fits, and their test's "
                f"outcome is the demo's ({self.outcome}).",
            ]
        if r["agrees"]:
            return [
                r["platform"],
                f"{differ}, within {bound}, but their test's outcome is "
                f"{r['outcome']}, the demo's {self.outcome}.",
            ]
        return [
            r["platform"],
            f"{differ}, beyond the {bound} that rounding on another CPU was "
            "measured to reach over these fits: the code changed since the "
            "replication.",
        ]

    def _committed_lines(self):
        c = self.committed
        if c is None:
            return [
                "The committed confirmatory results are benchmarks/results/"
                "REPORT.md in skgate's repository."
            ]
        if "error" in c:
            return [
                f"The committed results in {c['folder']} could not be read "
                f"({c['error']}); this demo's verdict stands alone."
            ]
        if c["matched"] == 0:
            same = "It has no rows for these fits."
        elif c["largest difference"] == 0:
            same = f"Its {c['matched']} rows for these fits hold the same accuracies."
        else:
            same = (
                f"Its {c['matched']} rows for these fits differ from the demo's "
                f"by up to {c['largest difference']:.3g} in accuracy"
                + (
                    " (they came from earlier code; the replication's are this code's)."
                    if "replication" in c
                    else "."
                )
            )
        answer = (
            f"The confirmatory run ({c['n']} seeds): {c['estimate']:+.3f} "
            f"[{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}], {c['outcome']}."
        )
        if c["outcome"] == self.outcome:
            agree = "This demo agrees with it."
        else:
            agree = (
                f"This demo says {self.outcome!r} on {self.result['n']} seeds; the "
                f"confirmatory run's {c['outcome']!r} on {c['n']} is the study's "
                "verdict (the demo is a pilot of its first seeds)."
            )
        return [
            f"{answer} {agree}",
            same,
            *self._replication_lines(),
            f"Full results: {COMMITTED / 'REPORT.md'}; all of them again: "
            "PYTHONPATH=benchmarks python -m study reproduce --toy --n-jobs 2 "
            "(hours).",
        ]


#: Setting keys a shrunken demo may change: how much each fit trains and on
#: how many rows, never what the test compares (task, arms, seeds, rates).
_FIXABLE = ("max_epochs", "n_samples", "n_iter_no_change", "d_model", "n_curvature")
_OUTCOMES = (HOLDS, REVERSED, NO_EFFECT, INCONCLUSIVE)


def _check(n_seeds, n_jobs, progress, fixed):
    """The arguments' values, each refused by name."""
    most = SEQUENCE_SEEDS["arms"]
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, Integral):
        raise TypeError(f"n_seeds must be an int; got {n_seeds!r}.")
    if not 2 <= n_seeds <= most:
        raise ValueError(
            f"n_seeds must be between 2 and {most} (the confirmatory run's seeds "
            f"per arm); got {n_seeds}."
        )
    check_n_jobs(n_jobs)
    if not isinstance(progress, bool | np.bool_):
        raise TypeError(f"progress must be a bool; got {progress!r}.")
    if fixed is not None and not isinstance(fixed, dict):
        raise TypeError(f"fixed must be a dict of setting keys; got {fixed!r}.")
    unknown = sorted(set(fixed or {}) - set(_FIXABLE))
    if unknown:
        raise ValueError(
            f"fixed may set {list(_FIXABLE)} (how much each fit trains), never "
            f"what the test compares; got {unknown}."
        )


def _fewest_samples(n_classes):
    """The fewest rows a demo fit can take: its stratified split holds out
    :data:`~study.design.TEST_SIZE` of them (rounded up, as
    ``train_test_split`` does) and early stopping a ``validation_fraction``
    of the rest (rounded up, as the classifier does); each part needs a row
    of every class. (A sample with a class of one row still fails; this is
    the least any sample needs.)"""
    validation = GatedAttentionClassifier().validation_fraction
    n = n_classes
    while True:
        n_test = math.ceil(TEST_SIZE * n)
        n_held = math.ceil(validation * (n - n_test))
        if min(n_test, n - n_test - n_held, n_held) >= n_classes:
            return n
        n += 1


def _check_fixed_values(fixed, settings):
    """Each of ``fixed``'s values against what a demo fit can take, before
    any fit."""
    n_classes = max(s["n_classes"] for s in settings)
    least = {
        "max_epochs": (1, "early stopping keeps the best scored epoch"),
        "n_samples": (
            _fewest_samples(n_classes),
            f"a stratified {TEST_SIZE:.0%} test split and early stopping's "
            f"held-out share of the rest each need a row of each of the "
            f"{n_classes} classes",
        ),
        "n_iter_no_change": (1, "epochs of patience"),
        "d_model": (1, "the token width"),
        "n_curvature": (1, "test rows measured"),
    }
    for key, value in fixed.items():
        minimum, why = least[key]
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise TypeError(
                f"fixed[{key!r}] must be an int >= {minimum} ({why}); got "
                f"{value!r} of type {type(value).__name__}."
            )
        if value < minimum:
            raise ValueError(
                f"fixed[{key!r}] must be an int >= {minimum} ({why}); got {value!r}."
            )


def demo(n_seeds=DEMO_SEEDS, n_jobs=1, progress=True, committed=COMMITTED, fixed=None):
    """Decide protocol 2's first primary test (C1, accuracy, gated > SiLU,
    softmax attention over sequences) on ``n_seeds`` of the confirmatory
    run's seeds: a :class:`DemoResult` (``.lines()`` is its report).

    Parameters
    ----------
    n_seeds : int, default=DEMO_SEEDS
        Seeds per arm and condition, from the confirmatory run's first: 2 to
        the run's 99; below 8 no sign-flip p-value can reach the level (the
        verdict says so).
    n_jobs : nonzero int from -1024 to 1024, default=1
        joblib workers; the fits do not depend on it.
    progress : bool, default=True
        A progress bar on stderr, counting fits.
    committed : path or None, default=COMMITTED
        The folder of the committed confirmatory run (its
        ``tests_2_primary.csv`` and ``seq_arms.csv``); a folder without them
        (or None) sets nothing beside the verdict, one whose files cannot be
        read says so.
    fixed : dict, optional
        Setting keys every fit takes instead of the protocol's, among
        ``max_epochs``, ``n_samples``, ``n_iter_no_change``, ``d_model`` and
        ``n_curvature`` (a shrunken demo in the tests: ``{"max_epochs": 2}``),
        each an int >= 1 (``n_samples``: enough rows for the test split and
        early stopping's held-out share to take a row of each class); the
        report then no longer is the protocol's, and says which keys differ.

    Examples
    --------
    >>> from study.demo import demo
    >>> result = demo(n_seeds=2, progress=False)  # doctest: +SKIP
    >>> result.outcome  # doctest: +SKIP
    'inconclusive'
    """
    _check(n_seeds, n_jobs, progress, fixed)
    if committed is not None and not isinstance(committed, str | os.PathLike):
        raise TypeError(
            f"committed must be a folder's path or None; got {committed!r}."
        )
    test = _question()
    seeds = sequences.confirmatory_seeds(n_seeds, SEQUENCE_FIRST_SEED)
    _check_fixed_values(fixed or {}, _settings(seeds, {}))
    start = time.perf_counter()
    fits = sweeps.run_sweep(
        _settings(seeds, fixed or {}),
        n_jobs=n_jobs,
        progress=progress,
        description="demo fits",
        measure=measure_accuracy,
        leave=False,
    )
    seconds = time.perf_counter() - start
    fits["condition"] = [sequences.task_label(row) for _, row in fits.iterrows()]
    result = confirmatory.statistics(test, sequences.test_rows(fits, test))
    n_tests = len(sequences.tests())
    cap = fits["max_epochs"].iloc[0]
    late = fits["best_epoch"] > (1 - sequences.LATE_FRACTION) * cap
    return DemoResult(
        fits=fits,
        test=test,
        result={**result, "n": n_seeds},
        outcome=_outcome(result, n_tests),
        level=ALPHA_LEVEL / n_tests,
        late_share=float(late.mean()),
        committed=None
        if committed is None
        else _committed(fits, test, Path(committed)),
        seconds=seconds,
        fixed=dict(fixed or {}),
    )

"""What :func:`skgate.benchmark_gates` found: :class:`GateBenchmark`, built
from its rows of scores, the tests across datasets and the verdict."""

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
import pandas as pd

from .. import paired
from .._evaluation import (
    Verdict,
    check_margin,
    probability_text,
    split_test_fraction,
)
from .defaults import DECISION_PROBABILITY, TUNINGS
from .design import good_name


@dataclass(eq=False)
class GateBenchmark(Verdict):
    """What :func:`benchmark_gates` found.

    ``str(result)`` is the verdict and the tests as text; in a notebook the
    result shows both; :meth:`summary` gives the tests as a DataFrame and
    :meth:`plot` draws the critical-difference diagram.

    Attributes
    ----------
    scores_ : pandas.DataFrame
        One row per dataset x model x split: "dataset", "model", "kind"
        ("gate" or "baseline"), "gate", "alpha", "repeat", "fold",
        "n_train", "n_test", "model_seed" (the split's seed, the same for
        every model), "score" (held-out), "curvature" (a gate's mean
        curvature on the held-out rows; NaN for a baseline), "fit_time"
        (seconds), "n_rows" and "n_classes" (the dataset's), "seconds" (the
        dataset's fits in all, wall clock: the cost a resumed run keeps).
        Tuned (``tuning="grid"``): "fit_time" is the chosen configuration's
        fit on the split's training rows (the search's seconds are in
        :attr:`best_params_`; a gate's, its share of its batch), and a
        gate's "alpha" the strength it chose.
    datasets_ : pandas.DataFrame
        One row per dataset x model: its mean score with a 95 % corrected
        t interval over the splits ("ci low", "ci high"), its mean
        curvature, its rank on the dataset, and "winner" (the highest
        mean score).
    ranks_ : pandas.DataFrame
        Each model's rank (1 the best; ties share their mean rank) on each
        dataset (rows), from its mean score.
    average_ranks_ : pandas.Series
        Each model's rank averaged over the datasets, best first.
    friedman_ : dict
        Friedman's test (:func:`skgate.paired.friedman_test`): "chi2", "F"
        (Iman & Davenport's), "df1", "df2", "p" (exact with few datasets,
        else F's), "method" ("exact" or "F approximation"), "p F", "p chi2",
        "critical difference" (Nemenyi's, at 0.05).
    tests_ : pandas.DataFrame
        One row per pair of interest (the first gate against every other
        gate; the best-ranked gate against every baseline): the mean over
        datasets of the difference of mean scores, how many datasets the
        first is better / within the margin / worse on, the per-dataset
        corrected t-test's outcomes (Holm within each dataset), the
        difference of average ranks with Nemenyi's p, the Bayesian
        signed-rank probabilities (better, equivalent within the margin,
        worse) and the outcome they decide at 0.95.
    verdict_ : str
        Friedman's test and every pair of interest, in words.
    settings_ : dict
        The design, margins, measures and package versions; "tuning" (None
        or "grid"), and when tuned "inner_cv", "n_configurations" and
        "param_grids".
    best_params_ : pandas.DataFrame or None
        Tuned only (else None): one row per dataset x model x split, the
        configuration the inner search chose ("params", a dict), its mean
        inner score ("inner score"), the configurations searched
        ("n_configurations"), the inner fits that failed and were not
        chosen ("failed fits", e.g. a diverged gate) and the search's
        seconds ("search_time").
    """

    scores_: pd.DataFrame
    datasets_: pd.DataFrame
    ranks_: pd.DataFrame
    average_ranks_: pd.Series
    friedman_: dict
    tests_: pd.DataFrame
    verdict_: str
    settings_: dict = field(default_factory=dict)
    best_params_: pd.DataFrame = None

    _SHOWN = (
        "comparison",
        "mean difference",
        "datasets better",
        "datasets equivalent",
        "datasets worse",
        "rank difference",
        "p nemenyi",
        "probability better",
        "probability equivalent",
        "probability worse",
        "outcome",
    )

    @property
    def tuning_(self):
        """How the models were set: None, every model at its defaults (out
        of the box); "grid", each at the best of an equal grid search on
        every training part (at its best)."""
        return self.settings_.get("tuning")

    @classmethod
    def from_scores(
        cls,
        scores,
        *,
        models=None,
        margin=None,
        settings=None,
        random_state=0,
        best_params=None,
    ):
        """The cross-dataset tests of a :attr:`scores_` table (e.g. one read
        back from CSV, or gathered one dataset at a time).

        Parameters
        ----------
        scores : pandas.DataFrame
            The columns of :attr:`scores_` ("dataset", "model", "kind",
            "repeat", "fold", "n_train", "n_test", "score", "curvature"),
            one row per model and split of every dataset.
        models : sequence of str, optional
            Every model of ``scores``, in the order of the claim: the first
            gate is compared with every other gate (default: the order in
            which the models first appear in ``scores``; benchmark_gates
            passes its gates, then its baselines).
        margin : float, optional
            The smallest score difference of interest (default 0.02).
        settings : dict, optional
            Recorded in :attr:`settings_` (its "margin" is the one used;
            its "tuning", "inner_cv" and "n_configurations" describe a tuned
            run in the verdict).
        random_state : int, default=0
            Seeds the Bayesian signed-rank test's posterior draws.
        best_params : pandas.DataFrame, optional
            A tuned run's :attr:`best_params_`, kept as given.

        Returns
        -------
        GateBenchmark

        Examples
        --------
        >>> import pandas as pd
        >>> rows = [{"dataset": d, "model": m, "kind": "gate", "repeat": 0,
        ...          "fold": f, "n_train": 80, "n_test": 20, "curvature": 1.0,
        ...          "score": 0.6 + 0.1 * (m == "a") + 0.01 * (f + d)}
        ...         for d in range(8) for m in ("a", "b") for f in range(3)]
        >>> result = GateBenchmark.from_scores(pd.DataFrame(rows))
        >>> result.average_ranks_.to_dict(), list(result.tests_["outcome"])
        ({'a': 1.0, 'b': 2.0}, ['holds'])
        """
        margin = check_margin(margin)
        _check_record(settings, best_params)
        scores = _check_scores(scores)
        models = _check_models(models, scores)
        datasets = _dataset_table(scores)
        table = datasets.pivot(index="dataset", columns="model", values="score")
        table = table.loc[list(dict.fromkeys(scores["dataset"])), models]
        ranks = pd.DataFrame(
            paired.average_ranks(table), index=table.index, columns=models
        )
        datasets.insert(
            datasets.columns.get_loc("winner"),
            "rank",
            [ranks.at[row.dataset, row.model] for row in datasets.itertuples()],
        )
        friedman = paired.friedman_test(table)
        average = pd.Series(friedman.pop("average ranks"), index=models)
        average = average.sort_values(kind="stable")
        friedman["critical difference"] = paired.nemenyi_critical_difference(
            len(models), len(table)
        )
        tests = _pair_tests(scores, table, average, margin, random_state)
        settings = {**(settings or {}), "models": models, "margin": margin}
        verdict = _verdict(tests, friedman, average, table, margin, settings)
        return cls(scores, datasets, ranks, average, friedman, tests, verdict,
                   settings, best_params)  # fmt: skip

    def __repr__(self):
        return (
            f"GateBenchmark(datasets={self.ranks_.shape[0]}, "
            f"models={list(self.ranks_.columns)}, tuning={self.tuning_!r}, "
            f"friedman_p={self.friedman_['p']:.3g})"
        )

    def _html_extra(self):
        ranks = self.average_ranks_.to_frame("average rank").to_html(
            float_format=lambda v: f"{v:.2f}", border=0
        )
        mode = _mode_words(self.settings_)
        return (
            f"<p>Every model {html.escape(mode)}.</p>"
            f"<p>Average ranks (1 is the best):</p>{ranks}"
        )

    def plot(self, ax=None):
        """Draw the critical-difference diagram
        (:class:`skgate.inspection.CriticalDifferenceDisplay`)."""
        from ..inspection import CriticalDifferenceDisplay

        return CriticalDifferenceDisplay.from_result(self, ax=ax)


_NEEDED = {"dataset", "model", "kind", "repeat", "fold", "score", "curvature",
           "n_train", "n_test"}  # fmt: skip


#: The columns that say which dataset and split a row is of, and what each holds.
_KEYS = {
    "dataset": "its dataset's name",
    "repeat": "its split's repeat (a number)",
    "fold": "its split's fold (a number)",
}


def _check_record(settings, best_params):
    """What :meth:`GateBenchmark.from_scores` keeps as given."""
    if settings is not None and not isinstance(settings, Mapping):
        raise TypeError(f"settings must be a dict or None; got {settings!r}.")
    if best_params is not None and not isinstance(best_params, pd.DataFrame):
        raise TypeError(
            f"best_params must be a pandas DataFrame (GateBenchmark."
            f"best_params_) or None; got {type(best_params).__name__}."
        )
    tuning = (settings or {}).get("tuning")
    if tuning not in TUNINGS:
        raise ValueError(
            f"settings['tuning'] must be one of {list(TUNINGS)}; got {tuning!r}."
        )
    if tuning is not None and not isinstance(
        settings.get("n_configurations"), Integral
    ):
        raise ValueError(
            f"settings['tuning']={tuning!r} needs settings['n_configurations'] "
            f"(an int: the configurations each model searched); got "
            f"{settings.get('n_configurations')!r}."
        )
    if (best_params is None) != (tuning is None):
        raise ValueError(
            "best_params and settings['tuning'] go together (a tuned run's "
            f"choices and its mode); got best_params "
            f"{'None' if best_params is None else 'given'} with tuning={tuning!r}."
        )


def _check_scores(scores):
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(
            f"scores must be a pandas DataFrame (GateBenchmark.scores_); got "
            f"{type(scores).__name__}."
        )
    missing = sorted(_NEEDED - set(scores.columns))
    if missing:
        raise ValueError(
            f"scores lacks the columns {missing}; it needs {sorted(_NEEDED)}."
        )
    for column, what in _KEYS.items():
        missing = scores[column].isna().to_numpy()
        if missing.any():
            first = int(np.flatnonzero(missing)[0])
            value, row = (
                v.item() if isinstance(v, np.generic) else v
                for v in (scores[column].iloc[first], scores.index[first])
            )
            raise ValueError(
                f"scores' {column!r} column has no value ({value!r}) in row "
                f"{row!r}; every row needs {what}."
            )
    odd = [m for m in dict.fromkeys(scores["model"]) if not good_name(m)]
    if odd:
        raise ValueError(
            f"scores' 'model' column holds {odd[0]!r}; a model's name must be a "
            "non-empty string without ' > ' (which joins a comparison's names)."
        )
    kinds = set(scores["kind"])
    if not kinds <= {"gate", "baseline"} or "gate" not in kinds:
        raise ValueError(
            f"scores' 'kind' column must hold 'gate' (at least one model) or "
            f"'baseline'; got {sorted(map(str, kinds))}."
        )
    score = pd.to_numeric(scores["score"], errors="coerce")
    if not np.isfinite(score).all():
        row = scores[~np.isfinite(score)].iloc[0]
        raise ValueError(
            f"scores' 'score' column holds {row['score']!r} for model "
            f"{row['model']!r} on dataset {row['dataset']!r}; every score must be "
            "a finite number."
        )
    counts = scores.groupby(["dataset", "repeat", "fold"], sort=False)["model"]
    models = list(dict.fromkeys(scores["model"]))
    if len(models) < 2:
        raise ValueError(f"scores holds {len(models)} model; a benchmark needs 2.")
    complete = counts.nunique() == len(models)
    if not complete.all() or counts.size().max() > len(models):
        dataset, repeat, fold = (
            complete.index[~complete.to_numpy()][0]
            if (not complete.all())
            else counts.size().idxmax()
        )
        raise ValueError(
            f"scores has no single row of every model {models} on dataset "
            f"{dataset!r}, split (repeat {repeat}, fold {fold}); every model needs "
            "one row per split of every dataset, so that the models are paired."
        )
    if scores["dataset"].nunique() < 2:
        raise ValueError(
            "scores holds one dataset; comparing across datasets needs at least 2 "
            "(compare_gates compares on one)."
        )
    return scores.assign(score=score.astype(float))


def _check_models(models, scores):
    present = list(dict.fromkeys(scores["model"]))
    if models is None:
        return present
    if isinstance(models, str) or not hasattr(models, "__iter__"):
        raise TypeError(f"models must be a sequence of model names; got {models!r}.")
    models = list(models)
    if len(set(models)) < len(models) or set(models) != set(present):
        raise ValueError(
            f"models must name every model of scores once, in the claim's order; "
            f"got {models}, scores holds {present}."
        )
    return models


def _dataset_table(scores):
    """Per dataset and model: the mean score with its corrected t interval
    over the splits, the mean curvature and the winner (the rank is
    added from the ranks table)."""
    rows = []
    for (dataset, model), group in scores.groupby(["dataset", "model"], sort=False):
        values = group["score"].to_numpy(dtype=float)
        fraction = split_test_fraction(group)
        if paired.no_spread(values):  # equal up to rounding: a point
            low = high = float(values[0])
        else:
            low, high = paired.corrected_t_bounds(
                values, test_fraction=fraction, alpha_low=0.025, alpha_high=0.025
            )
        rows.append({
            "dataset": dataset,
            "model": model,
            "kind": group["kind"].iloc[0],
            "score": float(values.mean()),
            "ci low": low,
            "ci high": high,
            "curvature": float(group["curvature"].mean()),
            "splits": len(values),
        })  # fmt: skip
    table = pd.DataFrame(rows)
    best = table.groupby("dataset")["score"].transform("max")
    table["winner"] = table["score"] == best
    return table


def _pairs(models, kinds, average):
    """The pairs of interest: the first gate against every other gate, then
    the best-ranked gate against every baseline."""
    gates = [m for m in models if kinds[m] == "gate"]
    baselines = [m for m in models if kinds[m] == "baseline"]
    pairs = [(gates[0], other) for other in gates[1:]]
    if baselines:
        best = min(gates, key=lambda m: (average[m], gates.index(m)))
        pairs += [(best, baseline) for baseline in baselines]
    return pairs


def _per_dataset_outcomes(scores, pairs, margin):
    """Each pair's outcome on each dataset: the corrected resampled t-test
    of its split differences, Holm over the pairs within the dataset."""
    outcomes = {pair: [] for pair in pairs}
    for _, group in scores.groupby("dataset", sort=False):
        table = group.pivot_table(index=["repeat", "fold"], columns="model",
                                  values="score", aggfunc="first")  # fmt: skip
        fraction = split_test_fraction(group)
        rows = []
        for better, worse in pairs:
            d = (table[better] - table[worse]).to_numpy()
            result = paired.corrected_t_comparison(d, margin, test_fraction=fraction)
            rows.append({**result, "kind": "superiority"})
        family = paired.family_outcomes(pd.DataFrame(rows))
        for pair, outcome in zip(pairs, family["outcome"], strict=True):
            outcomes[pair].append(outcome)
    return outcomes


def _pair_tests(scores, table, average, margin, random_state):
    # The datasets in one order (by name): the signed-rank test's Monte
    # Carlo draws then do not depend on the order datasets= gave them in.
    table = table.sort_index()
    kinds = scores.groupby("model", sort=False)["kind"].first()
    pairs = _pairs(list(table.columns), kinds, average)
    per_dataset = _per_dataset_outcomes(scores, pairs, margin)
    n_models, n_datasets = table.shape[1], table.shape[0]
    rows = []
    for better, worse in pairs:
        d = (table[better] - table[worse]).to_numpy()
        rank_difference = float(average[worse] - average[better])
        outcomes = pd.Series(per_dataset[(better, worse)])
        rows.append({
            "comparison": f"{better} > {worse}",
            "mean difference": float(d.mean()),
            "median difference": float(np.median(d)),
            "datasets better": int((d > margin).sum()),
            "datasets equivalent": int((np.abs(d) <= margin).sum()),
            "datasets worse": int((d < -margin).sum()),
            **{f"datasets {o}": int((outcomes == o).sum()) for o in _OUTCOMES},
            "rank difference": rank_difference,
            "p nemenyi": paired.nemenyi_p(rank_difference, n_models, n_datasets),
            **paired.signed_rank_bayes(d, margin, random_state=random_state),
            "margin": margin,
            "n datasets": n_datasets,
        })  # fmt: skip
    tests = pd.DataFrame(rows)
    tests["outcome"] = tests.apply(
        paired.signed_rank_outcome, axis=1, probability=DECISION_PROBABILITY
    )
    return tests


_OUTCOMES = (paired.HOLDS, paired.REVERSED, paired.NO_EFFECT, paired.INCONCLUSIVE)


def _mode_words(settings):
    """How the models were set, in words, from the settings."""
    if settings.get("tuning") != "grid":
        return "at its defaults (out of the box)"
    inner = settings.get("inner_cv")
    folds = f"{inner}-fold" if isinstance(inner, Integral) else "cross-validated"
    return (
        f"tuned on every training part by an inner {folds} grid search over "
        f"{settings.get('n_configurations')} configurations (at its best)"
    )


def _verdict(tests, friedman, average, table, margin, settings):
    n = table.shape[0]
    ranks = ", ".join(f"{m} {r:.2f}" for m, r in average.items())
    differ = friedman["p"] < paired.ALPHA_LEVEL
    tuned = f", every model {_mode_words(settings)}," if settings.get("tuning") else ","
    opening = (
        f"Across {n} datasets{tuned} Friedman's test says the models' ranks "
        f"{'differ' if differ else 'do not differ detectably'} (F = "
        f"{friedman['F']:.3g}, p = {friedman['p']:.3g}, {friedman['method']}); "
        f"average ranks (1 the best): {ranks}; Nemenyi's critical difference "
        f"{friedman['critical difference']:.2f}."
    )
    lines = [_pair_phrase(row, margin) for _, row in tests.iterrows()]
    if n < FEW_DATASETS:
        lines.append(
            f"Only {n} datasets: every statement here rests on few (Demšar 2006 "
            f"asks for about {FEW_DATASETS} or more for tests across datasets; "
            f"the Bayesian signed-rank test can call a pair better from 2 "
            f"datasets that agree): read them as a pilot's."
        )
    return " ".join([opening, *lines])


#: Fewer datasets than this and the verdict says its statements rest on few
#: (Demšar 2006: the tests across datasets want about 10 or more).
FEW_DATASETS = 10


def _pair_phrase(row, margin):
    better, worse = row["comparison"].split(" > ")
    sides = ("better", "worse")
    sign = 1
    if row["outcome"] == paired.REVERSED:  # told from the winner's side
        sides, sign = ("worse", "better"), -1
    counts = (
        f"better on {row[f'datasets {sides[0]}']}, within {margin:g} on "
        f"{row['datasets equivalent']}, worse on {row[f'datasets {sides[1]}']} "
        f"of {row['n datasets']} datasets (mean difference "
        f"{sign * row['mean difference']:+.3g})"
    )
    p_better, p_equivalent, p_worse = (
        probability_text(row[f"probability {which}"])
        for which in (sides[0], "equivalent", sides[1])
    )
    probabilities = (
        f"probability better {p_better}, equivalent {p_equivalent}, worse {p_worse}"
    )
    outcome = {
        paired.HOLDS: f"{better} is better than {worse}",
        paired.REVERSED: f"{worse} is better than {better}",
        paired.NO_EFFECT: f"{better} and {worse} are equivalent within {margin:g}",
        paired.INCONCLUSIVE: f"{better} against {worse} is undecided",
    }[row["outcome"]]
    return f"{outcome}: {counts}; {probabilities}."

"""benchmark_gates: the gates against the models a user would pick instead,
across many datasets.

On each dataset every model (each gate, each baseline) is trained on the same
cross-validation splits, with the preprocessing fitted on each split's
training rows (:func:`skgate.compare_gates`' design). Across datasets each
dataset is one replicate, summarised by each model's mean held-out score:
Friedman's test on the average ranks with Nemenyi's post-hoc test and its
critical-difference diagram (Demsar, 2006), and for each pair of interest the
Bayesian signed-rank test with the margin as region of practical equivalence
(Benavoli et al., 2017). The statistics are :mod:`skgate.paired`'s, shared
with compare_gates and the reproduction study.
"""

import os
import time
import warnings
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Integral
from typing import NamedTuple

import numpy as np
import pandas as pd
from joblib import Memory, Parallel, delayed
from scipy.sparse import issparse
from sklearn.base import clone, is_classifier
from sklearn.compose import make_column_selector, make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.utils.multiclass import type_of_target

from . import _series, compare, paired
from ._docstrings import fill_docstring

__all__ = [
    "DEFAULT_CV",
    "DEFAULT_REPEATS",
    "GateBenchmark",
    "benchmark_gates",
    "default_baselines",
    "default_preprocessor",
]

#: The default design on each dataset: one 10-fold cross-validation, as
#: Demsar (2006) and Benavoli et al. (2017) summarise a dataset. Across
#: datasets the replicates are the datasets, so a dataset's mean score needs
#: to be good, not its own test decisive; more repeats sharpen each dataset's
#: intervals (``n_repeats``) at their cost.
DEFAULT_CV, DEFAULT_REPEATS = 10, 1

#: The Bayesian probability at which a cross-dataset comparison is decided.
DECISION_PROBABILITY = compare.DECISION_PROBABILITY


def default_baselines():
    """The models a user would pick instead of gated attention, at
    scikit-learn's defaults: a multi-layer perceptron, logistic regression
    and histogram gradient boosting, by their short names.

    Examples
    --------
    >>> list(default_baselines())
    ['MLP', 'LogReg', 'HGB']
    """
    return {
        "MLP": MLPClassifier(),
        "LogReg": LogisticRegression(),
        "HGB": HistGradientBoostingClassifier(),
    }


def default_preprocessor(X=None):
    """What every model sees of a dataset ``X`` unless told otherwise:
    numeric columns standardised, every other column of a DataFrame one-hot
    encoded (a category unseen in a split's training rows encodes as
    zeros); fitted on each split's training rows alone. An array (or None)
    is all numbers: standardised; a sparse matrix is scaled, not centred.
    Series (a 3-D array, or a list of 2-D arrays): None, used as given
    (normalise them first, e.g. each series z-normalised as the UCR archive
    does).

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"size": [1.0, 2.0, 3.0], "colour": ["red", "blue", "red"]})
    >>> default_preprocessor(X).fit_transform(X).shape
    (3, 3)
    """
    if _series.is_series(X):
        return None  # series as given: the gates and time-series models read them
    if issparse(X):  # centring would densify it
        return StandardScaler(with_mean=False)
    if not isinstance(X, pd.DataFrame):
        return StandardScaler()
    return make_column_transformer(
        (StandardScaler(), make_column_selector(dtype_include=np.number)),
        (
            OneHotEncoder(handle_unknown="ignore", sparse_output=False),
            make_column_selector(dtype_exclude=np.number),
        ),
    )


@dataclass(eq=False)
class GateBenchmark(compare._Verdict):
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
        Friedman's test: "chi2", "F" (Iman & Davenport's), "df1", "df2",
        "p" (of F), "p chi2", "critical difference" (Nemenyi's, at 0.05).
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
        The design, margins, measures and package versions.
    """

    scores_: pd.DataFrame
    datasets_: pd.DataFrame
    ranks_: pd.DataFrame
    average_ranks_: pd.Series
    friedman_: dict
    tests_: pd.DataFrame
    verdict_: str
    settings_: dict = field(default_factory=dict)

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

    @classmethod
    def from_scores(
        cls, scores, *, models=None, margin=None, settings=None, random_state=0
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
            Recorded in :attr:`settings_` (its "margin" is the one used).
        random_state : int, default=0
            Seeds the Bayesian signed-rank test's posterior draws.

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
        margin = compare._check_margin(margin)
        if settings is not None and not isinstance(settings, Mapping):
            raise TypeError(f"settings must be a dict or None; got {settings!r}.")
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
        verdict = _verdict(tests, friedman, average, table, margin)
        settings = {**(settings or {}), "models": models, "margin": margin}
        return cls(scores, datasets, ranks, average, friedman, tests, verdict,
                   settings)  # fmt: skip

    def __repr__(self):
        return (
            f"GateBenchmark(datasets={self.ranks_.shape[0]}, "
            f"models={list(self.ranks_.columns)}, "
            f"friedman_p={self.friedman_['p']:.3g})"
        )

    def _html_extra(self):
        ranks = self.average_ranks_.to_frame("average rank").to_html(
            float_format=lambda v: f"{v:.2f}", border=0
        )
        return f"<p>Average ranks (1 is the best):</p>{ranks}"

    def plot(self, ax=None):
        """Draw the critical-difference diagram
        (:class:`skgate.inspection.CriticalDifferenceDisplay`)."""
        from .inspection import CriticalDifferenceDisplay

        return CriticalDifferenceDisplay.from_result(self, ax=ax)


_NEEDED = {"dataset", "model", "kind", "repeat", "fold", "score", "curvature",
           "n_train", "n_test"}  # fmt: skip


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
    odd = [m for m in dict.fromkeys(scores["model"]) if not _good_name(m)]
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


def _good_name(name):
    return isinstance(name, str) and name.strip() != "" and " > " not in name


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
        fraction = compare._test_fraction(group)
        if np.ptp(values) == 0:
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
        fraction = compare._test_fraction(group)
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
    tests["outcome"] = tests.apply(_decision, axis=1)
    return tests


_OUTCOMES = (paired.HOLDS, paired.REVERSED, paired.NO_EFFECT, paired.INCONCLUSIVE)


def _decision(row):
    """The Bayesian signed-rank test's verdict at DECISION_PROBABILITY, in
    the words of every other test (holds, reversed, no effect,
    inconclusive)."""
    if row["probability better"] >= DECISION_PROBABILITY:
        return paired.HOLDS
    if row["probability worse"] >= DECISION_PROBABILITY:
        return paired.REVERSED
    if row["probability equivalent"] >= DECISION_PROBABILITY:
        return paired.NO_EFFECT
    return paired.INCONCLUSIVE


def _verdict(tests, friedman, average, table, margin):
    n = table.shape[0]
    ranks = ", ".join(f"{m} {r:.2f}" for m, r in average.items())
    differ = friedman["p"] < paired.ALPHA_LEVEL
    opening = (
        f"Across {n} datasets, Friedman's test says the models' ranks "
        f"{'differ' if differ else 'do not differ detectably'} (F = "
        f"{friedman['F']:.3g}, p = {friedman['p']:.3g}); average ranks (1 the "
        f"best): {ranks}; Nemenyi's critical difference "
        f"{friedman['critical difference']:.2f}."
    )
    lines = [_pair_phrase(row, margin) for _, row in tests.iterrows()]
    return " ".join([opening, *lines])


def _pair_phrase(row, margin):
    better, worse = row["comparison"].split(" > ")
    counts = (
        f"better on {row['datasets better']}, within {margin:g} on "
        f"{row['datasets equivalent']}, worse on {row['datasets worse']} of "
        f"{row['n datasets']} datasets (mean difference "
        f"{row['mean difference']:+.3g})"
    )
    probabilities = (
        f"probability better {compare._probability(row['probability better'])}, "
        f"equivalent {compare._probability(row['probability equivalent'])}, worse "
        f"{compare._probability(row['probability worse'])}"
    )
    outcome = {
        paired.HOLDS: f"{better} is better than {worse}",
        paired.REVERSED: f"{worse} is better than {better}",
        paired.NO_EFFECT: f"{better} and {worse} are equivalent within {margin:g}",
        paired.INCONCLUSIVE: f"{better} against {worse} is undecided",
    }[row["outcome"]]
    return f"{outcome}: {counts}; {probabilities}."


def _dataset_seed(random_state, name):
    """A dataset's own seed from ``random_state`` and its name: the same
    whichever other datasets run with it, and in whatever order."""
    if random_state is None:
        return None
    entropy = [int(random_state), zlib.crc32(str(name).encode())]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


def _load(name, entry):
    """A dataset's (X, y): the pair itself, or what its loader returns."""
    if isinstance(entry, Callable):
        entry = entry()
    if not (isinstance(entry, tuple | list) and len(entry) == 2):
        what = (
            f"a {type(entry).__name__} of length {len(entry)}"
            if isinstance(entry, tuple | list)
            else type(entry).__name__
        )
        raise TypeError(
            f"datasets[{name!r}] must be (X, y) or a callable returning (X, y); "
            f"got {what}."
        )
    X, y = entry
    kind = type_of_target(np.asarray(y))
    if kind not in ("binary", "multiclass"):
        raise ValueError(
            f"datasets[{name!r}]: y is {kind!r}; benchmark_gates compares "
            "classifiers (compare_gates also takes regression, one dataset at a "
            "time)."
        )
    return X, y


def _fit_baseline(name, estimator, data, split, scorer):
    """Fit one baseline on one split (from the split's seed when it takes
    one) and score it."""
    X_train, y_train, X_test, y_test = data
    X_train, X_test = (_baseline_input(name, estimator, X) for X in (X_train, X_test))
    model = clone(estimator)
    if "random_state" in model.get_params():
        model.set_params(random_state=split.seed)
    start = time.perf_counter()
    with warnings.catch_warnings():
        # At scikit-learn's defaults some baselines stop before converging;
        # that is the model a user gets, and one warning per split is noise.
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    return {
        "repeat": split.repeat,
        "fold": split.fold,
        "n_train": len(split.train),
        "n_test": len(split.test),
        "model_seed": split.seed,
        "score": compare._score(
            scorer, model, X_test, y_test, name, split.repeat, split.fold
        ),
        "curvature": np.nan,
        "fit_time": seconds,
    }


def _takes_series(estimator):
    """Whether ``estimator`` reads series itself: aeon's estimators (their
    tags say what series they take)."""
    get_tags = getattr(estimator, "get_tags", None)
    return callable(get_tags) and "capability:multivariate" in get_tags()


def _baseline_input(name, estimator, X):
    """What baseline ``name`` fits on: ``X``; series as given to a
    time-series model, else each series flattened channel-major (as
    ``X.reshape(n, -1)`` flattens a 3-D array), if they have one length."""
    if not _series.is_series(X) or _takes_series(estimator):
        return X
    lengths = {np.shape(x)[-1] for x in X}
    if len(lengths) > 1:
        raise ValueError(
            f"baselines[{name!r}] ({estimator!r}) takes a table, and this "
            f"dataset's series differ in length ({min(lengths)} to "
            f"{max(lengths)} time points); pass baselines that read series of "
            f"unequal length (e.g. aeon's classifiers), or baselines=()."
        )
    return np.stack([np.asarray(x) for x in X]).reshape(len(X), -1)


def _baseline_scores(baselines, data, splits, scorer, n_jobs):
    jobs = [
        delayed(_fit_baseline)(name, estimator, data[i], split, scorer)
        for name, estimator in baselines.items()
        for i, split in enumerate(splits)
    ]
    rows = Parallel(n_jobs=n_jobs)(jobs)
    names = [name for name in baselines for _ in splits]
    frame = pd.DataFrame(rows)
    frame.insert(0, "model", names)
    frame.insert(1, "kind", "baseline")
    return frame


class _Design(NamedTuple):
    """Everything a dataset's rows depend on (its cache key with the data)."""

    estimators: list
    baselines: dict
    scorer: object
    curvature_params: dict
    cv: object
    n_repeats: int
    random_state: object
    preprocessor: object


def _dataset_scores(name, X, y, design, n_jobs):
    """Every model's rows on one dataset (the rows of
    :attr:`GateBenchmark.scores_`), its splits seeded by its name."""
    seed = _dataset_seed(design.random_state, name)
    splits = compare._splits(X, y, "classification", design.cv, design.n_repeats,
                             seed, None)  # fmt: skip
    start = time.perf_counter()
    data = compare._split_data(X, y, splits, design.preprocessor)
    gates = compare._scores(data, design.estimators, splits, design.scorer,
                            design.curvature_params, n_jobs, 0)  # fmt: skip
    gates = gates.drop(columns="curvature measure").rename(columns={"arm": "model"})
    gates.insert(1, "kind", "gate")
    baselines = _baseline_scores(design.baselines, data, splits, design.scorer,
                                 n_jobs)  # fmt: skip
    scores = pd.concat([gates, baselines], ignore_index=True)
    scores.insert(0, "dataset", name)
    scores["n_rows"], scores["n_classes"] = len(y), len(np.unique(y))
    scores["seconds"] = time.perf_counter() - start
    return scores


def _check_datasets(datasets):
    if not isinstance(datasets, Mapping):
        raise TypeError(
            f"datasets must be a mapping of a name to (X, y) or to a loader "
            f"returning (X, y); got {type(datasets).__name__}."
        )
    if len(datasets) < 2:
        raise ValueError(
            f"datasets must hold at least 2 datasets to compare across; got "
            f"{len(datasets)} (compare_gates compares on one)."
        )
    odd = [n for n in datasets if not isinstance(n, str) or not n]
    if odd:
        raise TypeError(f"datasets' names must be non-empty strings; got {odd[0]!r}.")
    return dict(datasets)


def _check_baselines(baselines, arms):
    if baselines is None:
        baselines = default_baselines()
    elif not isinstance(baselines, Mapping):
        if isinstance(baselines, str) or not hasattr(baselines, "__iter__"):
            raise TypeError(
                f"baselines must be a mapping of a name to an estimator, or a "
                f"sequence of estimators; got {baselines!r}."
            )
        named = {}
        for estimator in baselines:
            if isinstance(estimator, str | type):
                raise TypeError(
                    f"baselines must hold estimator instances; got {estimator!r} "
                    "(e.g. LogisticRegression(), not a name or a class)."
                )
            name = type(estimator).__name__
            named[name if name not in named else f"{name} {len(named) + 1}"] = estimator
        baselines = named
    labels = {label for _, _, label in arms}
    for name, estimator in baselines.items():
        if not _good_name(name):
            raise ValueError(
                f"baselines' names must be non-empty strings without ' > '; got "
                f"{name!r}."
            )
        if not (hasattr(estimator, "fit") and is_classifier(estimator)):
            raise TypeError(
                f"baselines[{name!r}] must be a scikit-learn classifier; got "
                f"{estimator!r}."
            )
        if name in labels:
            raise ValueError(
                f"baselines names {name!r}, which is also a gate's name; give the "
                "baseline another name."
            )
    return dict(baselines)


#: The design's preprocessor when none is given: resolved per dataset.
_DEFAULT = "default"


def _check_preprocessor(preprocessor):
    if preprocessor is None:
        return _DEFAULT
    if isinstance(preprocessor, str):
        if preprocessor != "passthrough":
            raise ValueError(
                f"preprocessor must be a transformer, None (standardise numbers, "
                f"one-hot the rest) or 'passthrough'; got {preprocessor!r}."
            )
        return None
    compare._check_X(None, preprocessor)
    return preprocessor


def _check_memory(memory):
    if memory is None or isinstance(memory, Memory):
        return memory
    if isinstance(memory, str | bytes) or hasattr(memory, "__fspath__"):
        return Memory(os.fsdecode(memory), verbose=0)
    raise TypeError(
        f"memory must be None, a directory path or a joblib.Memory; got {memory!r}."
    )


def _design(gates, alphas, baselines, cv, n_repeats, scoring, curvature_params,
            preprocessor, random_state, estimator_params):  # fmt: skip
    gates = compare._check_gates(gates)
    alphas = compare._check_alphas(alphas, gates)
    arms = compare._arms(gates, alphas)
    estimators = compare._estimators(
        "classification", arms, {"random_state": random_state, **estimator_params}
    )
    if isinstance(cv, Integral) and not isinstance(cv, bool) and n_repeats is None:
        n_repeats = DEFAULT_REPEATS
    if not isinstance(cv, Integral | str | float) and not hasattr(cv, "split"):
        cv = list(cv)  # an iterable of splits serves every dataset, once read
    if "alpha" in estimator_params:
        raise TypeError(
            "'alpha' is not an estimator parameter here: give the gates' "
            "strengths with alphas= (one value or several)."
        )
    return _Design(
        estimators=estimators,
        baselines=_check_baselines(baselines, arms),
        scorer=compare._check_scoring(scoring, estimators[0][1]),
        curvature_params=compare._check_curvature_params(curvature_params),
        cv=cv,
        n_repeats=n_repeats,
        random_state=random_state,
        preprocessor=_check_preprocessor(preprocessor),
    )


def _alphas_of(design):
    """The strengths the gates trained with (NaN for a gate without one)."""
    return {label: alpha for (_, alpha, label), _ in design.estimators}


def _run(datasets, design, n_jobs, memory, verbose):
    """Every dataset's rows, one dataset at a time (cached in ``memory``),
    with a progress bar over the datasets and, at verbose > 1, a line each."""
    from tqdm.auto import tqdm

    compute = _dataset_scores
    if memory is not None:
        compute = memory.cache(_dataset_scores, ignore=["n_jobs"])
    frames = []
    bar = tqdm(datasets.items(), desc="datasets", unit="dataset",
               disable=not verbose, leave=False)  # fmt: skip
    for name, entry in bar:
        bar.set_postfix_str(name)
        try:
            X, y = _load(name, entry)
            preprocessor = design.preprocessor
            if isinstance(preprocessor, str):  # the default, for this X
                preprocessor = default_preprocessor(X)
            X, y, _, _ = compare._check_data(X, y, "classification", None, preprocessor)
            frame = compute(name, X, y, design._replace(preprocessor=preprocessor),
                            n_jobs)  # fmt: skip
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"dataset {name!r}: {exc}") from exc
        except Exception as exc:  # the user's loader or baseline: keep its type
            if hasattr(exc, "add_note"):  # Python 3.11+
                exc.add_note(f"(benchmark_gates, on dataset {name!r})")
            raise
        if verbose > 1:
            bar.write(
                f"{name}: {frame['n_rows'].iloc[0]} rows, "
                f"{frame['seconds'].iloc[0]:.1f} s"
            )
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


#: benchmark_gates' parameters, filled into its docstring.
_PARAMETERS_DOC = """\
Parameters
----------
datasets : mapping of str to (X, y) or to a callable returning (X, y)
    At least 2 classification datasets by name; a loader is called when
    its dataset's turn comes, so that only one is in memory at a time. X
    is a table, or series: a 3-D array (n_cases, n_channels,
    n_timepoints) or a list of 2-D arrays (n_channels, n_timepoints_i).
gates : sequence of str, default=("multiplicative", "silu", "none")
    At least 2 registered gates, in the order of the claim: the first is
    compared with every other.
alphas : sequence of float, optional
    Strengths of the gates that have one, each a model of its own.
baselines : mapping of str to classifier, or sequence of classifiers, optional
    The models a user would pick instead (default
    :func:`default_baselines`: MLP, logistic regression and histogram
    gradient boosting at scikit-learn's defaults). Each is fitted on the
    same preprocessed splits, from the split's seed when it takes a
    ``random_state``. An empty sequence compares the gates alone. On a
    dataset of series, a time-series model (aeon's, e.g.
    ``MiniRocketClassifier``) reads them as given, any other each series
    flattened (series of one length only).
cv : int or cross-validation splitter, default=10
    Folds of stratified k-fold on each dataset (or a splitter).
n_repeats : int, optional
    Repeats of the k-fold (default 1 for an int ``cv``).
margin : float, optional
    The smallest score difference of interest (default 0.02): the
    Bayesian signed-rank test's region of practical equivalence, and the
    per-dataset tests' equivalence margin.
scoring : str or callable, optional
    One scikit-learn scorer (default: accuracy).
curvature_params : dict, optional
    Keywords of :func:`skgate.representation_curvature` for the gates'
    curvature (``kind`` defaults to "turning").
preprocessor : transformer, "passthrough" or None, default=None
    Fitted on each split's training rows. None: numeric columns
    standardised and every other column one-hot encoded
    (:func:`default_preprocessor`); "passthrough": X used as given.
random_state : int, optional
    Seeds each dataset's splits and models from the dataset's name and
    this number, so a dataset's rows do not depend on the others.
n_jobs : int, optional
    Fits in parallel within a dataset (joblib; a Dask cluster through
    :func:`skgate.parallel.on_cluster`); the results do not depend on it.
memory : str, path or joblib.Memory, optional
    Caches each dataset's rows as soon as they are done, so an
    interrupted run, called again, resumes from the dataset in progress.
    The cache is keyed on the data and the design, not on skgate's code:
    clear it when skgate changes.
verbose : int, default=0
    1: a progress bar over the datasets; 2: also a line per dataset.
**estimator_params
    Passed to every gate's estimator (e.g. ``max_epochs``).
"""


def benchmark_gates(
    datasets,
    *,
    gates=("multiplicative", "silu", "none"),
    alphas=None,
    baselines=None,
    cv=DEFAULT_CV,
    n_repeats=None,
    margin=None,
    scoring=None,
    curvature_params=None,
    preprocessor=None,
    random_state=None,
    n_jobs=None,
    memory=None,
    verbose=0,
    **estimator_params,
):
    """Train the gates and the baselines on the same splits of every
    dataset, and compare them across datasets.

    {parameters}

    Returns
    -------
    GateBenchmark

    Notes
    -----
    Friedman's test and Nemenyi's critical difference read average ranks,
    so a pair's Nemenyi p depends on which other models are in the
    benchmark (Benavoli, Corani & Mangili, 2016); the Bayesian signed-rank
    test of a pair reads only that pair's differences. "Best gate" is the
    gate with the best average rank here, chosen after seeing the data.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skgate import benchmark_gates, make_curved_task, make_linear_task
    >>> datasets = {"curved": make_curved_task(90, random_state=0),
    ...             "linear": make_linear_task(90, random_state=0)}
    >>> result = benchmark_gates(datasets, gates=("multiplicative", "none"),
    ...                          baselines={"LogReg": LogisticRegression()},
    ...                          cv=3, max_epochs=2, random_state=0)
    >>> result.ranks_.shape, list(result.tests_["comparison"])
    ((2, 3), ['multiplicative > none', 'multiplicative > LogReg'])
    """
    margin = compare._check_options(
        random_state, n_repeats, "corrected-t", margin, alphas, verbose, n_jobs,
        estimator_params,
    )  # fmt: skip
    datasets = _check_datasets(datasets)
    design = _design(gates, alphas, baselines, cv, n_repeats, scoring,
                     curvature_params, preprocessor, random_state,
                     estimator_params)  # fmt: skip
    memory = _check_memory(memory)
    start = time.perf_counter()
    scores = _run(datasets, design, n_jobs, memory, verbose)
    settings = {
        "gates": list(compare._check_gates(gates)),
        "alphas": _alphas_of(design),
        "baselines": {name: repr(b) for name, b in design.baselines.items()},
        "cv": cv if isinstance(cv, Integral) else repr(cv),
        "n_repeats": design.n_repeats,
        "score": compare._scoring_name(scoring, "classification"),
        "curvature": compare._curvature_name(design.curvature_params),
        "random_state": random_state,
        "estimator_params": compare._shared_params(design.estimators[0][1]),
        "seconds": time.perf_counter() - start,
        "versions": compare._versions(),
    }
    models = [label for (_, _, label), _ in design.estimators] + list(design.baselines)
    return GateBenchmark.from_scores(
        scores, models=models, margin=margin, settings=settings
    )


fill_docstring(benchmark_gates, parameters=_PARAMETERS_DOC)

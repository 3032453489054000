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

import copy
import html
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
from sklearn.model_selection import ParameterGrid
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.utils import _safe_indexing
from sklearn.utils.multiclass import type_of_target

from . import _series, compare, paired
from ._docstrings import fill_docstring
from .estimators import GatedAttentionClassifier
from .model_selection import representation_curvature
from .nn import GATES
from .parallel import fit_together

__all__ = [
    "DEFAULT_CV",
    "DEFAULT_INNER_CV",
    "DEFAULT_REPEATS",
    "TUNED_MAX_EPOCHS",
    "TUNINGS",
    "GateBenchmark",
    "benchmark_gates",
    "default_baselines",
    "default_param_grid",
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

#: How benchmark_gates sets the models: None, every model at its defaults
#: (out of the box); "grid", each at the best of an equal grid search on
#: every training part (at its best).
TUNINGS = (None, "grid")

#: The tuned mode's inner folds: each model's configurations are compared by
#: stratified k-fold on each outer split's training rows.
DEFAULT_INNER_CV = 3

#: The gates' epochs in the tuned mode unless ``max_epochs`` is given: fixed
#: here, so that the budget does not move with the estimator's default.
TUNED_MAX_EPOCHS = 20

#: The learning rates the gates' default grids search: 16-fold from the
#: lowest to the highest, the estimator's default (2e-3) in the middle.
_GATE_LEARNING_RATES = [5e-4, 2e-3, 8e-3]


def _sweep_and_step(sweep, size, step):
    """A grid of two parts: ``sweep``'s values at each of ``size``'s, then
    the default changed to ``step``'s one value at each of ``size``'s: 8
    configurations from 3 x 2 + 1 x 2."""
    return [{**sweep, **size}, {**step, **size}]


#: The tuned mode's default grids, 8 configurations each, every one holding
#: its model's defaults (so that tuning can keep them): a sweep of the rate
#: at two sizes, and a regulariser (a gate's strength where it has one)
#: changed at both sizes.
_DEFAULT_GRIDS = {
    "gate with a strength": _sweep_and_step(
        {"lr": _GATE_LEARNING_RATES}, {"depth": [1, 2]}, {"alpha": [0.5]}
    ),
    "gate": _sweep_and_step(
        {"lr": _GATE_LEARNING_RATES}, {"depth": [1, 2]}, {"weight_decay": [0.1]}
    ),
    MLPClassifier: {
        "hidden_layer_sizes": [(100,), (100, 100)],
        "alpha": [1e-4, 1e-2],
        "learning_rate_init": [1e-3, 1e-2],
    },
    LogisticRegression: {"C": [1e-2, 3e-2, 0.1, 0.3, 1.0, 3.0, 10.0, 100.0]},
    HistGradientBoostingClassifier: _sweep_and_step(
        {"learning_rate": [0.03, 0.1, 0.3]},
        {"max_leaf_nodes": [15, 31]},
        {"l2_regularization": [1.0]},
    ),
}


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


def default_param_grid(estimator):
    """The configurations ``benchmark_gates(tuning="grid")`` searches for
    ``estimator`` unless ``param_grids`` names it: 8, one of them the
    model's defaults.

    A gate: the learning rate (5e-4, 2e-3, 8e-3) at depth 1 and 2, and at
    both depths the default rate with the strength ``alpha`` halved (0.5)
    for a gate that has one, the weight decay raised to 0.1 for a gate
    without. MLPClassifier: one or two hidden layers of 100 x ``alpha``
    (1e-4, 0.01) x ``learning_rate_init`` (1e-3, 0.01). LogisticRegression:
    ``C`` from 0.01 to 10 in steps of about 3, and 100 (almost no penalty).
    HistGradientBoostingClassifier:
    ``learning_rate`` (0.03, 0.1, 0.3) at 15 and 31 leaves
    (``max_leaf_nodes``), and at both the default rate with
    ``l2_regularization=1``.

    Parameters
    ----------
    estimator : GatedAttentionClassifier or scikit-learn classifier
        A gate's estimator, MLPClassifier, LogisticRegression or
        HistGradientBoostingClassifier (or a subclass).

    Returns
    -------
    dict or list of dict
        A parameter grid as ``sklearn.model_selection.ParameterGrid`` takes
        it; a new one at each call.

    Raises
    ------
    TypeError
        When there is no default for ``estimator``'s class (give its grid in
        ``param_grids``).

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import ParameterGrid
    >>> from skgate import GatedAttentionClassifier
    >>> for part in default_param_grid(GatedAttentionClassifier(gate="silu")):
    ...     print(part)
    {'lr': [0.0005, 0.002, 0.008], 'depth': [1, 2]}
    {'weight_decay': [0.1], 'depth': [1, 2]}
    >>> len(ParameterGrid(default_param_grid(LogisticRegression())))
    8
    """
    if isinstance(estimator, GatedAttentionClassifier):
        strength = GATES[estimator.gate].strength if estimator.gate in GATES else False
        key = "gate with a strength" if strength else "gate"
    else:
        key = next((k for k in _DEFAULT_GRIDS if isinstance(k, type)
                    and isinstance(estimator, k)), None)  # fmt: skip
    if key is None:
        raise TypeError(
            f"there is no default grid for {type(estimator).__name__}; the "
            f"defaults are for a gate, "
            f"{', '.join(k.__name__ for k in _DEFAULT_GRIDS if isinstance(k, type))}: "
            "give its grid in param_grids."
        )
    return copy.deepcopy(_DEFAULT_GRIDS[key])


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
class GateBenchmark(compare.result.Verdict):
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
        margin = compare.design.check_margin(margin)
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
        from .inspection import CriticalDifferenceDisplay

        return CriticalDifferenceDisplay.from_result(self, ax=ax)


_NEEDED = {"dataset", "model", "kind", "repeat", "fold", "score", "curvature",
           "n_train", "n_test"}  # fmt: skip


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
        fraction = compare.pairs.split_test_fraction(group)
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
        fraction = compare.pairs.split_test_fraction(group)
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
    better, equivalent, worse = (
        compare.result.probability_text(row[f"probability {which}"])
        for which in ("better", "equivalent", "worse")
    )
    probabilities = (
        f"probability better {better}, equivalent {equivalent}, worse {worse}"
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
        try:
            model.fit(X_train, y_train)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"baselines[{name!r}] ({estimator!r}): {exc}") from exc
    seconds = time.perf_counter() - start
    score = compare.fits.score_model(
        scorer, model, X_test, y_test, name, split.repeat, split.fold
    )
    return _split_row(split, score, seconds)


def _split_row(split, score, seconds):
    """A model's row of :attr:`GateBenchmark.scores_` on one split."""
    return {
        "repeat": split.repeat,
        "fold": split.fold,
        "n_train": len(split.train),
        "n_test": len(split.test),
        "model_seed": split.seed,
        "score": score,
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
    if isinstance(X, _series.SeriesRows):  # laid out for the gates
        X = _series.series_of(X)
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


class _Tuning(NamedTuple):
    """The tuned mode's search: each model's configurations (a tuple of
    dicts, every model as many), its grid as given, and the inner folds."""

    candidates: dict
    grids: dict
    inner_cv: object


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
    tuning: _Tuning = None


def _dataset_scores(name, X, y, design, n_jobs):
    """Every model's rows on one dataset (the rows of
    :attr:`GateBenchmark.scores_`), its splits seeded by its name, and
    when tuned the configurations chosen (else None)."""
    seed = _dataset_seed(design.random_state, name)
    splits = compare.design.cv_splits(X, y, "classification", design.cv,
                                      design.n_repeats, seed, None)  # fmt: skip
    start = time.perf_counter()
    data = compare.fits.split_data(X, y, splits, design.preprocessor)
    chosen = None
    if design.tuning is None:
        gates = compare.fits.arm_scores(data, design.estimators, splits, design.scorer,
                                design.curvature_params, n_jobs, 0)  # fmt: skip
        gates = gates.drop(columns="curvature measure")
        gates = gates.rename(columns={"arm": "model"})
        gates.insert(1, "kind", "gate")
        baselines = _baseline_scores(design.baselines, data, splits, design.scorer,
                                     n_jobs)  # fmt: skip
        scores = pd.concat([gates, baselines], ignore_index=True)
    else:
        scores, chosen = _tuned_scores(X, y, splits, data, design, n_jobs)
        chosen.insert(0, "dataset", name)
    scores.insert(0, "dataset", name)
    scores["n_rows"], scores["n_classes"] = len(y), len(np.unique(y))
    scores["seconds"] = time.perf_counter() - start
    return scores, chosen


def _inner_splits(X, y, split, inner_cv):
    """The inner folds of a split's training rows (indices into them),
    shuffled from the split's seed: the same for every model."""
    rows = split.train
    repeats = 1 if isinstance(inner_cv, Integral) else None
    try:
        return compare.design.cv_splits(_safe_indexing(X, rows), y[rows],
                                        "classification", inner_cv, repeats,
                                        split.seed, None)  # fmt: skip
    except ValueError as exc:
        raise ValueError(
            f"inner_cv={inner_cv!r} on the training rows of split (repeat "
            f"{split.repeat}, fold {split.fold}): {exc}"
        ) from exc


def _configured(estimator, params, seed):
    """A clone of ``estimator`` with ``params``, from ``seed`` when it takes
    a ``random_state``."""
    model = clone(estimator).set_params(**params)
    if "random_state" in model.get_params():
        model.set_params(random_state=seed)
    return model


def _fit_each(models, items, together):
    """Fit each model on its ``(X, y)``, gates ``together`` as batched
    networks; a fit that fails with a ValueError (a gate whose training
    diverged, a configuration these rows do not suit) leaves None in its
    place, and the last such error."""
    if together:
        try:
            return fit_together(models, items), None
        except ValueError:
            pass  # one failed: fit each alone (to the same bits), to tell which
    fitted, error = [], None
    for model, (X, y) in zip(models, items, strict=True):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                fitted.append(model.fit(X, y))
        except ValueError as exc:
            fitted.append(None)
            error = exc
    return fitted, error


def _warn_of_failures(name, failed, fits, error):
    """A search that lost some of its inner fits says so."""
    if failed:
        warnings.warn(
            f"model {name!r}: {failed} of {fits} inner fits failed and were "
            f"left out of the search (the last failure: {error}); their "
            "configurations competed on fewer folds, or not at all.",
            UserWarning,
            stacklevel=3,
        )


def _tuned_fit(name, estimator, candidates, splits, trains, inners, data,
               preprocessor, scorer, curvature_params):  # fmt: skip
    """One model on some splits at its best: on each split, every
    configuration fitted on the inner folds of the split's training rows
    (the same folds for every model, each preprocessed from its own
    training rows), and the best mean inner score (the first of equals)
    fitted on all the training rows and scored on the split's test rows.
    A gate's fits of every split train together (batched networks), and
    its times are its share of them."""
    gate = isinstance(estimator, GatedAttentionClassifier)

    def feed(X):  # what the model reads: a baseline may take series flattened
        return X if gate else _baseline_input(name, estimator, X)

    start = time.perf_counter()
    folds = [compare.fits.split_data(*train, inner, preprocessor)
             for train, inner in zip(trains, inners, strict=True)]  # fmt: skip
    plan = [(s, params, fold) for s, split_folds in enumerate(folds)
            for params in candidates for fold in split_folds]  # fmt: skip
    models = [_configured(estimator, params, splits[s].seed) for s, params, _ in plan]
    items = [(feed(X), y) for _, _, (X, y, _, _) in plan]
    fitted, error = _fit_each(models, items, gate)
    inner_scores, failed = [[] for _ in splits], [0 for _ in splits]
    for model, (s, _, (_, _, X, y)) in zip(fitted, plan, strict=True):
        failed[s] += model is None
        inner_scores[s].append(
            np.nan if model is None
            else compare.fits.score_model(scorer, model, feed(X), y, name,
                                          splits[s].repeat, splits[s].fold)
        )  # fmt: skip
    means = [np.reshape(v, (len(candidates), -1)).mean(axis=1) for v in inner_scores]
    for split, m in zip(splits, means, strict=True):
        if np.isnan(m).all():  # a failed fold's fit leaves its mean NaN
            raise ValueError(
                f"model {name!r}: no configuration of param_grids fitted on every "
                f"inner fold of split (repeat {split.repeat}, fold {split.fold}); "
                f"the last failure: {error}"
            )
    _warn_of_failures(name, sum(failed), len(plan), error)
    best = [int(np.nanargmax(m)) for m in means]
    search_time = (time.perf_counter() - start) / len(splits)
    models = [_configured(estimator, candidates[b], split.seed)
              for b, split in zip(best, splits, strict=True)]  # fmt: skip
    start = time.perf_counter()
    if gate:
        fit_together(models, [(X, y) for X, y, _, _ in data])
    else:
        for model, (X, y, _, _) in zip(models, data, strict=True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(feed(X), y)
    seconds = (time.perf_counter() - start) / len(splits)
    rows = []
    for s, (model, split, (_, _, X_test, y_test)) in enumerate(
        zip(models, splits, data, strict=True)
    ):
        score = compare.fits.score_model(
            scorer, model, feed(X_test), y_test, name, split.repeat, split.fold
        )
        row = _split_row(split, score, seconds)
        if gate:
            strength = GATES[model.gate].strength
            row = {"gate": model.gate, "alpha": model.alpha if strength else np.nan,
                   **row}  # fmt: skip
            row["curvature"] = float(
                representation_curvature(model, X_test, **curvature_params).mean()
            )
        chosen = {
            "repeat": split.repeat,
            "fold": split.fold,
            "params": dict(candidates[best[s]]),
            "inner score": float(means[s][best[s]]),
            "n_configurations": len(candidates),
            "failed fits": failed[s],
            "search_time": search_time,
        }
        rows.append((row, chosen))
    return rows


def _tuned_scores(X, y, splits, data, design, n_jobs):
    """Every model's rows at its best on one dataset, and the configurations
    chosen: a job per baseline and split, and per gate and group of splits
    (trained together)."""
    tuning = design.tuning
    compare.fits.dry_run(design.estimators[0][1], data[0], design.scorer,
                         design.curvature_params)  # fmt: skip
    inner = [_inner_splits(X, y, split, tuning.inner_cv) for split in splits]
    groups = compare.fits.split_chunks(splits)
    models = [(label, estimator, groups) for (_, _, label), estimator
              in design.estimators]  # fmt: skip
    models += [(name, b, [[i] for i in range(len(splits))])
               for name, b in design.baselines.items()]  # fmt: skip
    jobs = (
        delayed(_tuned_fit)(
            name,
            estimator,
            tuning.candidates[name],
            [splits[i] for i in chunk],
            [(_safe_indexing(X, splits[i].train), y[splits[i].train]) for i in chunk],
            [inner[i] for i in chunk],
            [data[i] for i in chunk],
            design.preprocessor,
            design.scorer,
            design.curvature_params,
        )  # fmt: skip
        for name, estimator, chunks in models
        for chunk in chunks
    )
    results = [row for rows in Parallel(n_jobs=n_jobs)(jobs) for row in rows]
    names = [name for name, _, chunks in models for chunk in chunks for _ in chunk]
    kinds = ["gate" if isinstance(estimator, GatedAttentionClassifier) else "baseline"
             for _, estimator, chunks in models for chunk in chunks
             for _ in chunk]  # fmt: skip
    scores = pd.DataFrame([row for row, _ in results])
    scores.insert(0, "model", names)
    scores.insert(1, "kind", kinds)
    chosen = pd.DataFrame([row for _, row in results])
    chosen.insert(0, "model", names)
    return scores, chosen


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
    compare.design.check_X(None, preprocessor)
    return preprocessor


def _check_memory(memory):
    if memory is None or isinstance(memory, Memory):
        return memory
    if isinstance(memory, str | bytes) or hasattr(memory, "__fspath__"):
        return Memory(os.fsdecode(memory), verbose=0)
    raise TypeError(
        f"memory must be None, a directory path or a joblib.Memory; got {memory!r}."
    )


def _check_inner_cv(inner_cv):
    if isinstance(inner_cv, bool | str | float):
        raise TypeError(
            f"inner_cv must be an int >= 2 (stratified folds) or a scikit-learn "
            f"splitter; got {inner_cv!r}."
        )
    if isinstance(inner_cv, Integral):
        if inner_cv < 2:
            raise ValueError(f"inner_cv must be an int >= 2; got {inner_cv}.")
        return int(inner_cv)
    if not (hasattr(inner_cv, "split") and hasattr(inner_cv, "get_n_splits")):
        raise TypeError(
            f"inner_cv must be an int >= 2 (stratified folds) or a scikit-learn "
            f"splitter (each training part has rows of its own, so a list of "
            f"splits cannot serve them); got {inner_cv!r}."
        )
    return inner_cv


def _candidates(name, model, grid):
    """``grid``'s configurations for the model ``name``, each checked: a
    parameter of the model, not one the design fixes, a valid value."""
    try:
        candidates = list(ParameterGrid(grid))
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"param_grids[{name!r}]: {exc}") from exc
    own = model.get_params()
    gate = isinstance(model, GatedAttentionClassifier)
    fixed = {
        "random_state": "each split's models start from its seed (random_state=)",
        **({
            "gate": "a gate's model is its gate (gates=)",
            "max_epochs": "every gate trains as many epochs (max_epochs=), an "
                          "equal budget",
        } if gate else {}),
    }  # fmt: skip
    for params in candidates:
        for key in params:
            if key not in own:
                raise ValueError(
                    f"param_grids[{name!r}] sets {key!r}, which is not a "
                    f"parameter of {type(model).__name__} (its parameters: "
                    f"{sorted(own)})."
                )
            if key in fixed:
                raise ValueError(
                    f"param_grids[{name!r}] sets {key!r}, which the design fixes: "
                    f"{fixed[key]}."
                )
        if gate and "alpha" in params and not GATES[model.gate].strength:
            raise ValueError(
                f"param_grids[{name!r}] sets 'alpha', which gate {model.gate!r} "
                "ignores (it has no strength): its configurations would repeat."
            )
        configured = clone(model).set_params(**params)
        if hasattr(configured, "_parameter_constraints"):  # a bad value fails here
            try:
                configured._validate_params()
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"param_grids[{name!r}]: {exc}") from exc
    return tuple(candidates)


def _check_tuning(tuning, param_grids, inner_cv, estimators, baselines, alphas):
    """None (every model at its defaults), or the search every model gets:
    its grid (param_grids', else :func:`default_param_grid`), checked, and
    every model with as many configurations."""
    if not (tuning is None or (isinstance(tuning, str) and tuning in TUNINGS)):
        raise ValueError(
            f"tuning must be None (every model at its defaults) or 'grid' (each "
            f"model at the best of a grid search on every training part); got "
            f"{tuning!r}."
        )
    if tuning is None:
        if param_grids is not None:
            raise ValueError(
                "param_grids is given but tuning=None (every model at its "
                "defaults): set tuning='grid' to search them."
            )
        return None
    if alphas is not None:
        raise ValueError(
            f"alphas={alphas!r} fixes the gates' strengths, and tuning='grid' "
            "searches them: leave alphas=None and give 'alpha' in param_grids."
        )
    inner_cv = _check_inner_cv(inner_cv)
    if param_grids is None:
        param_grids = {}
    if not isinstance(param_grids, Mapping):
        raise TypeError(
            f"param_grids must be a dict of a model's name to its parameter grid "
            f"(or None: default_param_grid's); got {type(param_grids).__name__}."
        )
    models = {label: estimator for (_, _, label), estimator in estimators}
    models.update(baselines)
    unknown = [name for name in param_grids if name not in models]
    if unknown:
        raise ValueError(
            f"param_grids names {unknown[0]!r}, which is not a model of this "
            f"benchmark; its models are {list(models)}."
        )
    candidates, grids = {}, {}
    for name, model in models.items():
        if name in param_grids:
            grids[name] = param_grids[name]
        else:
            try:
                grids[name] = default_param_grid(model)
            except TypeError as exc:
                raise ValueError(
                    f"param_grids has no grid for {name!r}, and {exc}"
                ) from exc
        candidates[name] = _candidates(name, model, grids[name])
    sizes = {name: len(c) for name, c in candidates.items()}
    if len(set(sizes.values())) > 1 or 0 in sizes.values():
        raise ValueError(
            f"param_grids must give every model as many configurations (an "
            f"equal budget), at least 1; got {sizes} (a model it does not name "
            f"searches default_param_grid's 8)."
        )
    return _Tuning(candidates=candidates, grids=grids, inner_cv=inner_cv)


def _design(gates, alphas, baselines, cv, n_repeats, scoring, curvature_params,
            preprocessor, random_state, estimator_params, tuning=None,
            param_grids=None, inner_cv=DEFAULT_INNER_CV):  # fmt: skip
    gates = compare.design.check_gates(gates)
    alphas = compare.design.check_alphas(alphas, gates)
    arms = compare.design.make_arms(gates, alphas)
    budget = {} if tuning is None else {"max_epochs": TUNED_MAX_EPOCHS}
    estimators = compare.design.make_estimators(
        "classification",
        arms,
        {"random_state": random_state, **budget, **estimator_params},
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
    baselines = _check_baselines(baselines, arms)
    return _Design(
        estimators=estimators,
        baselines=baselines,
        scorer=compare.design.checked_scorer(scoring, estimators[0][1]),
        curvature_params=compare.design.check_curvature_params(curvature_params),
        cv=cv,
        n_repeats=n_repeats,
        random_state=random_state,
        preprocessor=_check_preprocessor(preprocessor),
        tuning=_check_tuning(
            tuning, param_grids, inner_cv, estimators, baselines, alphas
        ),  # fmt: skip
    )


def _alphas_of(design):
    """The strengths the gates trained with (NaN for a gate without one)."""
    return {label: alpha for (_, alpha, label), _ in design.estimators}


def _run(datasets, design, n_jobs, memory, verbose):
    """Every dataset's rows, one dataset at a time (cached in ``memory``),
    with a progress bar over the datasets and, at verbose > 1, a line each;
    and when tuned, the configurations chosen (else None)."""
    from tqdm.auto import tqdm

    compute = _dataset_scores
    if memory is not None:
        compute = memory.cache(_dataset_scores, ignore=["n_jobs"])
    frames, chosen = [], []
    bar = tqdm(datasets.items(), desc="datasets", unit="dataset",
               disable=not verbose, leave=False)  # fmt: skip
    for name, entry in bar:
        bar.set_postfix_str(name)
        try:
            X, y = _load(name, entry)
            preprocessor = design.preprocessor
            if isinstance(preprocessor, str):  # the default, for this X
                preprocessor = default_preprocessor(X)
            X, y, _, _ = compare.design.check_data(
                X, y, "classification", None, preprocessor
            )
            # Series laid out once, for the longest of the dataset.
            X = compare.design.laid_out(X, design.estimators[0][1], preprocessor)
            frame, params = compute(
                name, X, y, design._replace(preprocessor=preprocessor), n_jobs
            )
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
        chosen.append(params)
    best_params = None
    if design.tuning is not None:
        best_params = pd.concat(chosen, ignore_index=True)
    return pd.concat(frames, ignore_index=True), best_params


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
tuning : {None, "grid"}, default=None
    None: every model at its defaults, the comparison a user gets out of
    the box. "grid": each model at its best: on each split's training rows
    alone, every configuration of its grid is fitted on the same inner
    folds (``inner_cv``) as every other model's, and the one with the best
    mean inner score (the first of equals) is fitted on all the training
    rows and scored on the split's test rows. Every model searches as many
    configurations, and every gate trains as many epochs (``max_epochs``,
    default :data:`TUNED_MAX_EPOCHS`); the gates' fits are batched
    (:func:`skgate.parallel.fit_together`). Costs about
    ``n_configurations x (inner_cv - 1) + 1`` times the defaults' fits.
param_grids : dict of str to parameter grid, optional
    With ``tuning="grid"``: a model's name (a gate, a baseline) to its
    grid, as ``sklearn.model_selection.ParameterGrid`` takes it (a dict of
    each parameter's values, or a list of such dicts). A model it does not
    name searches :func:`default_param_grid` (8 configurations). Every
    model must have as many configurations; no grid may set
    ``random_state`` (each split's seed), nor a gate's ``gate`` or
    ``max_epochs``.
inner_cv : int or cross-validation splitter, default=3
    With ``tuning="grid"``: folds of stratified k-fold on each split's
    training rows (shuffled from the split's seed), or a splitter; each
    inner fold is preprocessed from its own training rows.
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
    Passed to every gate's estimator (e.g. ``max_epochs``); tuned, the
    values a configuration does not set.
"""


def benchmark_gates(
    datasets,
    *,
    gates=("multiplicative", "silu", "none"),
    alphas=None,
    baselines=None,
    tuning=None,
    param_grids=None,
    inner_cv=DEFAULT_INNER_CV,
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

    Each model at its best: two configurations each, compared on 2 inner
    folds of every training part.

    >>> grids = {"multiplicative": {"lr": [1e-3, 1e-2]},
    ...          "none": {"lr": [1e-3, 1e-2]}, "LogReg": {"C": [0.1, 1.0]}}
    >>> tuned = benchmark_gates(datasets, gates=("multiplicative", "none"),
    ...                         baselines={"LogReg": LogisticRegression()},
    ...                         tuning="grid", param_grids=grids, inner_cv=2,
    ...                         cv=3, max_epochs=2, random_state=0)
    >>> tuned.tuning_, tuned.best_params_.shape
    ('grid', (18, 9))
    >>> tuned.best_params_.loc[0, ["model", "n_configurations"]].to_dict()
    {'model': 'multiplicative', 'n_configurations': 2}
    """
    margin = compare.design.check_options(
        random_state, n_repeats, "corrected-t", margin, alphas, verbose, n_jobs,
        estimator_params,
    )  # fmt: skip
    datasets = _check_datasets(datasets)
    design = _design(gates, alphas, baselines, cv, n_repeats, scoring,
                     curvature_params, preprocessor, random_state,
                     estimator_params, tuning, param_grids, inner_cv)  # fmt: skip
    memory = _check_memory(memory)
    start = time.perf_counter()
    scores, best_params = _run(datasets, design, n_jobs, memory, verbose)
    given = dict(gates=gates, cv=cv, scoring=scoring, random_state=random_state,
                 tuning=tuning, seconds=time.perf_counter() - start)  # fmt: skip
    return _result(scores, best_params, design, margin, given)


def _result(scores, best_params, design, margin, given):
    """The :class:`GateBenchmark` of a run's rows, with its settings: what
    was ``given`` and what the design holds."""
    cv = given["cv"]
    settings = {
        "gates": list(compare.design.check_gates(given["gates"])),
        "alphas": _alphas_of(design),
        "baselines": {name: repr(b) for name, b in design.baselines.items()},
        "cv": cv if isinstance(cv, Integral) else repr(cv),
        "n_repeats": design.n_repeats,
        "score": compare.design.scoring_name(given["scoring"], "classification"),
        "curvature": compare.design.curvature_label(design.curvature_params),
        "random_state": given["random_state"],
        "estimator_params": compare.design.shared_params(design.estimators[0][1]),
        "tuning": given["tuning"],
        **_tuning_settings(design.tuning),
        "seconds": given["seconds"],
        "versions": compare.result.library_versions(),
    }
    models = [label for (_, _, label), _ in design.estimators] + list(design.baselines)
    return GateBenchmark.from_scores(
        scores, models=models, margin=margin, settings=settings,
        best_params=best_params,
    )  # fmt: skip


def _tuning_settings(tuning):
    """What a tuned run searched, for :attr:`GateBenchmark.settings_`."""
    if tuning is None:
        return {}
    inner_cv = tuning.inner_cv
    return {
        "inner_cv": inner_cv if isinstance(inner_cv, Integral) else repr(inner_cv),
        "n_configurations": len(next(iter(tuning.candidates.values()))),
        "param_grids": tuning.grids,
    }


fill_docstring(benchmark_gates, parameters=_PARAMETERS_DOC)

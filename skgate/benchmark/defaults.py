"""The defaults of :func:`skgate.benchmark_gates`: its design, the baselines
a user would pick instead, their grids when tuned and the preprocessing."""

import copy

import numpy as np
import pandas as pd
from scipy.sparse import issparse
from sklearn.compose import make_column_selector, make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from .. import _evaluation, _series
from ..estimators import GatedAttentionClassifier
from ..nn import GATES

#: The default design on each dataset: one 10-fold cross-validation, as
#: Demsar (2006) and Benavoli et al. (2017) summarise a dataset. Across
#: datasets the replicates are the datasets, so a dataset's mean score needs
#: to be good, not its own test decisive; more repeats sharpen each dataset's
#: intervals (``n_repeats``) at their cost.
DEFAULT_CV, DEFAULT_REPEATS = 10, 1

#: The Bayesian probability at which a cross-dataset comparison is decided.
DECISION_PROBABILITY = _evaluation.DECISION_PROBABILITY

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

#: The learning rates the gates' default grids search (and the reproduction
#: study's learning-rate control): 16-fold from the lowest to the highest,
#: the estimator's default (2e-3) in the middle.
GATE_LEARNING_RATES = (5e-4, 2e-3, 8e-3)


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
        {"lr": list(GATE_LEARNING_RATES)}, {"depth": [1, 2]}, {"alpha": [0.5]}
    ),
    "gate": _sweep_and_step(
        {"lr": list(GATE_LEARNING_RATES)}, {"depth": [1, 2]}, {"weight_decay": [0.1]}
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

    A gate: the learning rate (:data:`GATE_LEARNING_RATES`: 5e-4, 2e-3,
    8e-3) at depth 1 and 2, and at both depths the default rate with the
    strength ``alpha`` halved (0.5) for a gate that has one, the weight
    decay raised to 0.1 for a gate
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

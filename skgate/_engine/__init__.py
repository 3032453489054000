"""Training, in one place: every fit of every estimator, CV search and study
batch goes through this package, and only through it.

The contract: an estimator hands the engine a frozen
:class:`~skgate._engine.spec.TrainingSpec` (its validated rows, encoded
targets and row weights, a module factory, the :class:`Loss`, the
validation score and the :class:`Recipe`); the engine imports nothing of
the estimators, calls no method of one, and hands back a
:class:`~skgate._engine.fitting.FitResult` that the estimator adopts.

In the order a fit runs: :mod:`~skgate._engine.plan` settles what a fit
trains on (:class:`~skgate._engine.plan.FitPlan`: its rows, weights,
validation split, epochs and random stream) and the skorch net that holds
it; :mod:`~skgate._engine.fitting` runs it (:func:`train`,
:func:`train_together`: fits batched by architecture);
:mod:`~skgate._engine.loop` is the one loop
(:class:`~skgate._engine.loop.BatchedTrainer`: many networks trained as one,
each as it would train alone, with the early-stopping rule);
:mod:`~skgate._engine.adamw` is the optimizer step; and
:mod:`~skgate._engine.hooks` is the skorch side (the fitted net, closed to
skorch's own training; the validation score; skorch's callbacks called from
the loop). The network's equations over stacked weights, forward and
backward, are :mod:`skgate.nn._stacked`, beside the network's others.

The names below are the package's face to the rest of the library; nothing
outside it imports its modules.
"""

from .fitting import FitResult, train, train_together
from .hooks import (
    WeightedNeuralNetClassifier,
    WeightedNeuralNetRegressor,
    given,
    same_items,
    same_tensors,
)
from .loop import pad_rows, step_threads
from .spec import LOSSES, Loss, Recipe, TrainingSpec

__all__ = [
    "LOSSES",
    "FitResult",
    "Loss",
    "Recipe",
    "TrainingSpec",
    "WeightedNeuralNetClassifier",
    "WeightedNeuralNetRegressor",
    "given",
    "pad_rows",
    "same_items",
    "same_tensors",
    "step_threads",
    "train",
    "train_together",
]

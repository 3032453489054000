"""The contract between an estimator and the engine: what a fit hands over
(:class:`TrainingSpec`, with its :class:`Loss` and :class:`Recipe`) before
anything trains.

The estimator checks its parameters and its data, encodes its targets and
weighs its rows; the engine trains from the spec alone. It imports nothing
of :mod:`skgate.estimators` and calls no method of an estimator: the module
it trains is made by the spec's factory, the skorch net that holds it by
the spec's net class, and the validation score is the spec's function.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

__all__ = ["LOSSES", "Loss", "Recipe", "TrainingSpec"]

#: The losses the engine's written-out backward implements
#: (:func:`skgate.nn._stacked.losses_and_gradients`), with the torch
#: criterion that computes the same number: the skorch net's ``criterion``,
#: so that ``net_.get_loss`` agrees with what training minimised.
LOSSES = {
    "cross_entropy": torch.nn.CrossEntropyLoss,
    "squared_error": torch.nn.MSELoss,
}


@dataclass(frozen=True)
class Loss:
    """The loss a fit minimises: the (row-weighted) mean cross-entropy of
    the logits, with ``label_smoothing``, or the mean squared error over
    every output."""

    #: A key of :data:`LOSSES`.
    kind: str
    #: The cross-entropy's label smoothing (0: none; squared error: 0).
    label_smoothing: float = 0.0

    def __post_init__(self):
        if self.kind not in LOSSES:
            raise ValueError(
                f"loss {self.kind!r} is not implemented by skgate's training "
                f"engine; implemented: {sorted(LOSSES)}."
            )
        if self.kind != "cross_entropy" and self.label_smoothing:
            raise ValueError("label smoothing applies to the cross-entropy only.")

    @property
    def regression(self):
        """Whether the targets are numbers (squared error), not classes."""
        return self.kind == "squared_error"

    def criterion(self):
        """The skorch net's criterion arguments for this loss."""
        if self.label_smoothing:
            return {
                "criterion": LOSSES[self.kind],
                "criterion__label_smoothing": self.label_smoothing,
            }
        return {"criterion": LOSSES[self.kind]}


@dataclass(frozen=True)
class Recipe:
    """How a fit trains: optimiser, schedule, budget, early stopping and
    the skorch side (callbacks, verbosity, device), as the estimator's
    parameters resolve them."""

    #: ``max_epochs``: an int, or "auto" (the engine plans the epochs).
    max_epochs: object
    #: AdamW's learning rate and weight decay.
    lr: float
    weight_decay: float
    #: Rows per step (clipped to the training rows).
    batch_size: int
    #: None: a constant rate; a share of the steps: a linear warm-up over
    #: that share, then cosine decay to 0.
    warmup: float | None
    #: MLPClassifier's early stopping rule and its held-out share.
    early_stopping: bool
    validation_fraction: float
    n_iter_no_change: int
    tol: float
    #: The seed of the fit's own random stream (weights, shuffles, split).
    random_state: object
    #: skorch callbacks (the parameter as given), verbosity and device.
    callbacks: object
    verbose: int
    device: object
    #: None: gradients as computed; a float: each model's gradients scaled
    #: down to that global norm where it is larger (torch's
    #: ``clip_grad_norm_``).
    clip_norm: float | None = None
    #: Whether norms' weights, biases and positions skip weight decay
    #: (the transformer recipe; tables decay every weight).
    decay_exempt: bool = False
    #: ``max_epochs="auto"``: the optimizer steps it plans for, and at most
    #: this many epochs (None: no cap; see ``plan.planned_epochs``).
    auto_steps: int = 500
    auto_epoch_cap: int | None = None


@dataclass(frozen=True)
class TrainingSpec:
    """Everything the engine needs to train one model.

    ``X``: the validated rows (float64; series in their layout);
    ``y``: the targets encoded for the network (class indices, or scaled
    numbers of shape (n, n_outputs)); ``sample_weight``: row weights (the
    estimator's sample and class weights, float64) or None; ``n_outputs``:
    the network's output width. ``make_module(generator)``: a new network
    (float32), its weights drawn from ``generator`` alone.
    ``validation_score(outputs, rows)``: the held-out score, higher is
    better. ``labels``: a classifier's class labels (named in messages about
    stratification), None for a regressor. ``net_class``: the skorch net
    that holds the fitted module, history and optimiser; ``unused_callbacks``:
    its default callbacks that the loop's own records replace. ``alpha``:
    the model's gate strength (may differ inside one batch);
    ``batch_key``: what every model trained in one batch must share (the
    estimator's parameters but alpha, random_state and lr). ``continues``:
    the fitted skorch net a warm start or partial_fit trains on (None: a new
    network); ``callbacks_changed``: partial_fit's callbacks parameter
    changed since the last fit. ``causes()``: why a fit that diverged
    likely did, in words.
    """

    X: np.ndarray
    y: np.ndarray
    sample_weight: np.ndarray | None
    n_outputs: int
    make_module: Callable
    loss: Loss
    validation_score: Callable
    recipe: Recipe
    labels: np.ndarray | None
    net_class: type
    unused_callbacks: tuple
    alpha: float
    batch_key: tuple
    causes: Callable
    continues: object = None
    callbacks_changed: bool = False

    @property
    def classification(self):
        return self.labels is not None

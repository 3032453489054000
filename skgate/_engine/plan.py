"""What a fit settles before it trains, from its
:class:`~skgate._engine.spec.TrainingSpec` alone: its rows, weights,
validation split, epochs and random stream (:class:`FitPlan`), and the
skorch net it fills.
"""

import math
from dataclasses import dataclass

import numpy as np
import torch
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state

from .hooks import ValidationScore, check_callbacks, monitors_validation
from .loop import Rows


def _check_device(device):
    """``device`` as given, or a ValueError: a torch device skgate can train
    on (the CPU, or an available CUDA device)."""
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(
            f"device must be a torch device string such as 'cpu' or 'cuda:0'; "
            f"got {device!r}."
        ) from exc
    if parsed.type == "meta":
        raise ValueError(
            "device='meta' holds shapes but no numbers, so nothing can be trained "
            "on it; use device='cpu' or a 'cuda' device."
        )
    if parsed.type not in ("cpu", "cuda"):
        raise ValueError(
            f"device={device!r}: skgate trains on 'cpu' or a 'cuda' device; "
            f"{parsed.type!r} is not supported (use device='cpu')."
        )
    if parsed.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} but torch.cuda.is_available() is False; "
            f"use device='cpu'."
        )
    return device


def _rows(X, y_net, weight, rows=None):
    """The rows (all, or the chosen ones) as float32 tensors for the net;
    weights None: unweighted."""
    if rows is None:  # no fancy-indexed copy of X when every row trains
        rows = slice(None)
    return Rows(
        torch.from_numpy(np.asarray(X[rows], dtype=np.float32)),
        torch.from_numpy(y_net[rows]),
        None if weight is None else torch.from_numpy(weight[rows].astype(np.float32)),
    )


@dataclass(frozen=True)
class FitPlan:
    """What a fit settles before training (:func:`prepare`)."""

    #: The validated rows (float64, C-contiguous), all of them.
    X: np.ndarray
    #: Width of the network's output: classes, or regression targets.
    n_outputs: int
    #: The fit's own random stream (weights, then shuffling).
    generator: torch.Generator
    #: The rows that train (weight > 0, less the held-out ones), as tensors.
    train: Rows
    #: With early stopping, the held-out rows' ValidationScore; else None.
    valid: ValidationScore
    #: Rows per step: batch_size, clipped to the training rows (as
    #: MLPClassifier clips it), so a large batch_size costs no padding.
    batch_size: int
    #: A new network; else the fitted one trains on.
    fresh: bool
    #: partial_fit: one epoch, from the fitted optimizer's state.
    incremental: bool
    #: The checked callbacks (copies of the parameter's).
    callbacks: list
    #: Epochs to train: ``max_epochs``, or what "auto" makes of it
    #: (:func:`planned_epochs`).
    epochs: int


def prepare(spec, *, fresh, incremental):
    """Everything a fit of ``spec`` (a
    :class:`~skgate._engine.spec.TrainingSpec`) settles before training, as
    a :class:`FitPlan`. ``fresh``: a new network; ``incremental``:
    partial_fit's one epoch."""
    recipe = spec.recipe
    _check_device(recipe.device)
    validating = recipe.early_stopping and not incremental
    callbacks = check_callbacks(
        recipe.callbacks, validation=validating, incremental=incremental
    )
    weight = _checked_weights(spec.sample_weight)
    seeds = check_random_state(recipe.random_state).randint(2**31 - 1, size=2)
    # The fit's own random stream: weights and shuffling depend on
    # random_state alone, whatever other threads draw, and torch's
    # process-wide generator is never used.
    generator = torch.Generator().manual_seed(int(seeds[0]))
    train, valid = _split(spec, weight, int(seeds[1]), validating=validating)
    batch_size = min(recipe.batch_size, len(train.X))
    return FitPlan(
        spec.X,
        spec.n_outputs,
        generator,
        train,
        valid,
        batch_size,
        fresh,
        incremental,
        callbacks,
        epochs=planned_epochs(
            recipe.max_epochs,
            len(train.X),
            batch_size,
            steps=recipe.auto_steps,
            cap=recipe.auto_epoch_cap,
        ),
    )


#: ``max_epochs="auto"`` trains for at least this many optimizer steps and
#: at least :data:`AUTO_MIN_EPOCHS` epochs: a small data set gets the steps
#: it needs to learn (20 epochs of 67 rows are 40 steps), a large one its
#: 20 epochs as before (from 1,537 rows at batch 64). Chosen by
#: measurement on the KEEL and aeon sets (benchmarks/results/DEFAULTS.md:
#: the smallest budget within 0.005 of the best on sets of fewer than 200
#: training rows).
AUTO_STEPS = 500


AUTO_MIN_EPOCHS = 20


def planned_epochs(max_epochs, n_rows, batch_size, *, steps=AUTO_STEPS, cap=None):
    """The epochs a fit trains: ``max_epochs``, or for "auto" the fewest
    that give ``steps`` steps of ``batch_size`` over ``n_rows`` rows, at
    most ``cap`` (None: no cap), and at least :data:`AUTO_MIN_EPOCHS`.

    >>> planned_epochs(7, 1000, 64), planned_epochs("auto", 50, 64)
    (7, 500)
    >>> planned_epochs("auto", 67, 64), planned_epochs("auto", 50_000, 64)
    (250, 20)
    """
    if max_epochs != "auto":
        return max_epochs
    steps_per_epoch = math.ceil(n_rows / batch_size)
    epochs = math.ceil(steps / steps_per_epoch)
    if cap is not None:
        epochs = min(epochs, cap)
    return max(AUTO_MIN_EPOCHS, epochs)


def _checked_weights(weight):
    """Row weights (float64) or None, refused when none is positive."""
    if weight is None:
        return None
    if not weight.sum() > 0:
        raise ValueError(
            "sample_weight (times class_weight) is 0 for every row: nothing "
            "to train on; allowed: non-negative weights, at least one > 0."
        )
    return weight


def _split(spec, weight, seed, *, validating):
    """Training data and, with early stopping, the held-out ValidationScore.

    Rows of weight 0 are dropped first: they take no part in anything.
    """
    X, y_net = spec.X, spec.y
    if weight is not None:
        keep = weight > 0
        X, y_net, weight = X[keep], y_net[keep], weight[keep]
        # Scaled to mean 1 (so that 3 w trains the model w does), and none
        # at all when equal: exactly the unweighted fit.
        same = np.all(weight == weight[0])
        weight = None if same else weight / weight.mean()
    if not validating:
        return _rows(X, y_net, weight), None
    train, held_out = validation_rows(
        y_net, spec.recipe.validation_fraction, seed, labels=spec.labels
    )
    data = _rows(X, y_net, weight, held_out)
    valid = ValidationScore(
        data,
        spec.validation_score,
        spec.recipe.n_iter_no_change,
        spec.recipe.tol,
        regression=spec.loss.regression,
    )
    return _rows(X, y_net, weight, train), valid


def validation_rows(y_net, fraction, seed, *, labels=None):
    """Indices (train, held out): a ``fraction`` of the rows, stratified by
    class for a classifier (``labels``: its class labels, by encoded
    target; None: a regressor), as MLPClassifier holds them out."""
    n = len(y_net)
    stratify = y_net if labels is not None else None
    n_held = int(np.ceil(fraction * n))
    if stratify is not None:
        counts = np.bincount(y_net)
        present = np.flatnonzero(counts)
        if counts[present].min() < 2:
            lonely = labels[present[counts[present] < 2]].tolist()
            raise ValueError(
                f"early_stopping=True holds out a stratified "
                f"validation_fraction={fraction} of the rows, "
                f"which needs at least 2 rows of every class (one held out, "
                f"one to train on); the classes {lonely!r} have 1 row (of "
                f"weight > 0). Set early_stopping=False, or give every class "
                f"at least 2 rows."
            )
        least, what = len(present), "one per class"
    else:
        # R^2 is undefined on one row: MLPRegressor refuses it too.
        least, what = 2, "R^2 needs 2"
    if n_held < least or n - n_held < least:
        raise ValueError(
            f"early_stopping=True with validation_fraction="
            f"{fraction} holds out {n_held} of the "
            f"n_samples={n} rows, but early stopping needs at least {least} "
            f"rows ({what}) both held out and left to train on (rows of "
            f"weight 0 are not counted); allowed: a validation_fraction in "
            f"(0, 1) that leaves both, more rows, or early_stopping=False."
        )
    return train_test_split(
        np.arange(n), test_size=n_held, stratify=stratify, random_state=seed
    )


def net_for(spec, plan):
    """The skorch net to train: new, the fitted one (partial_fit), or a new
    one around the fitted network (warm_start: a fresh optimizer)."""
    if plan.fresh:
        return _build_net(spec, spec.make_module(plan.generator), plan)
    _continue_with(spec, incremental=plan.incremental)
    if not plan.incremental:
        return _build_net(spec, spec.continues.module_, plan)
    net = spec.continues
    if spec.callbacks_changed:
        # The callbacks parameter changed since the last fit: the
        # epochs from now on run with the new ones.
        net.callbacks = plan.callbacks
        net.initialize_callbacks()
    # partial_fit scores no validation split (as MLPClassifier's): the
    # callbacks that read one sit out (put back by fitting.train's NetState
    # if it fails).
    net.callbacks_ = [
        (name, callback)
        for name, callback in net.callbacks_
        if not monitors_validation(callback)
    ]
    net.batch_size = plan.batch_size
    return net


def _continue_with(spec, *, incremental):
    """Before a warm start or partial_fit: the fitted network trains on with
    the spec's alpha, and partial_fit's optimizer with its learning rate and
    weight decay (changed by set_params since it was built; a rate a
    scheduler set stays unless the parameter changed; a warm start's new net
    takes them anyway)."""
    net = spec.continues
    for block in net.module_.blocks:
        block.alpha = float(spec.alpha)
    if not incremental:
        return
    smoothing = spec.loss.label_smoothing  # as the loop trains with it
    if float(getattr(net.criterion_, "label_smoothing", 0.0)) != smoothing:
        # The net's record of its criterion says what training minimises
        # (skorch's own re-initialisation is closed: the engine's loop).
        net.criterion_.label_smoothing = smoothing
        net.criterion__label_smoothing = smoothing
    recipe = spec.recipe
    for attribute, key, value in (
        ("lr", "lr", recipe.lr),
        ("optimizer__weight_decay", "weight_decay", recipe.weight_decay),
    ):
        if getattr(net, attribute) != value:
            setattr(net, attribute, value)
            for group in net.optimizer_.param_groups:
                group[key] = value


def _build_net(spec, module, plan):
    """A skorch net around ``module``, initialised: the fitted container
    (module, AdamW optimiser, history) and the callbacks' interface, its
    criterion the spec's loss; then closed to skorch's own training
    (:class:`~skgate._engine.hooks.ClosedNet`)."""
    recipe = spec.recipe
    # The engine writes train_loss, the validation rows and the epochs'
    # durations itself (hooks: the history's one writer).
    unused = spec.unused_callbacks + ("train_loss", "valid_loss", "epoch_timer")
    # A classifier's net predicts the encoded labels 0, 1, ...
    labels = {"classes": list(range(plan.n_outputs))} if spec.classification else {}
    net = spec.net_class(
        **labels,
        module=module,
        **spec.loss.criterion(),
        optimizer=torch.optim.AdamW,
        lr=recipe.lr,
        optimizer__weight_decay=recipe.weight_decay,
        max_epochs=plan.epochs,
        batch_size=plan.batch_size,
        # The shuffling: a fresh permutation each epoch, from the fit's
        # generator (partial_fit continues it).
        iterator_train__shuffle=True,
        iterator_train__generator=plan.generator,
        **{f"callbacks__{name}": None for name in unused},
        train_split=None,
        callbacks=plan.callbacks,
        device=recipe.device,
        verbose=recipe.verbose,
    )
    return net.initialize().close()

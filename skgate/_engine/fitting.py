"""How a fit runs: :func:`fit` (every estimator's ``fit`` and ``partial_fit``),
:func:`fit_together` (many estimators, batched by architecture) and
:func:`fit_batch` (prepared fits trained by the one loop), and what a
finished fit hands its estimator (:class:`FitResult`).
"""

import warnings
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np
import torch
from sklearn import get_config
from sklearn.base import is_regressor
from sklearn.exceptions import ConvergenceWarning

from .._batching import MAX_MODELS_PER_NETWORK, equal_parts
from ..nn import BUILT_IN_GATES as _BUILT_IN_GATES
from ..nn import GATES
from .hooks import (
    NetHooks,
    NetState,
    given,
    optimizer_entries,
    record_history,
    same_tensors,
)
from .loop import BatchedTrainer
from .plan import _LARGE_ALPHA, _net_for, prepare

#: A fit whose training loss ends above this many times a constant
#: prediction's (log of the number of classes; 1 for standardised
#: regression targets, per output) is warned about (:func:`_check_converged`).
_LARGE_LOSS_RATIO = 1000.0


def _check_converged(net, X, estimator, curve=(), n_outputs=2):
    """Raise if training diverged (non-finite weights or training loss),
    instead of leaving a model that predicts NaN. Warn (ConvergenceWarning)
    if the training loss ended over :data:`_LARGE_LOSS_RATIO` times a
    constant prediction's: unscaled inputs of 1e20 train to finite weights
    with a loss of 1e16 or more, while inputs of 1e6 train, overconfident,
    to a loss of hundreds. Both name the likely causes."""
    curve = [float(loss) for loss in curve]
    finite = all(torch.isfinite(p).all() for p in net.module_.parameters())
    if finite and np.isfinite(curve).all():
        constant = 1.0 if is_regressor(estimator) else float(np.log(max(n_outputs, 2)))
        if curve and curve[-1] > _LARGE_LOSS_RATIO * constant:
            warnings.warn(
                f"The training loss ended at {curve[-1]:.3g}, over "
                f"{_LARGE_LOSS_RATIO:g} times a constant prediction's "
                f"({constant:.3g}): the model may have learned nothing. Likely "
                f"causes: {_causes(X, estimator)}.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return
    losses = net.history[:, "train_loss"] if len(net.history) else []
    raise ValueError(
        f"Training diverged: the weights or the training loss became "
        f"non-finite (train_loss per epoch: {_losses_text(losses)}). Likely "
        f"causes: {_causes(X, estimator)}."
    )


def _causes(X, estimator):
    """Why a fit diverges, likeliest first: a large alpha, a user's gate,
    then unscaled X or a large learning rate."""
    causes = [
        f"X has values of magnitude up to {np.nanmax(np.abs(X)):.3g} (scale X first, "
        f"e.g. with StandardScaler)",
        f"lr={estimator.lr:g} (lower it)",
    ]
    if estimator.gate not in _BUILT_IN_GATES:
        causes.insert(
            0,
            f"the user gate {estimator.gate!r} (check that its activation and "
            f"derivatives stay finite and moderate where training takes them)",
        )
    if GATES[estimator.gate].strength and estimator.alpha > _LARGE_ALPHA:
        causes.insert(
            0,
            f"alpha={estimator.alpha:g} scales the gate's activation: the "
            f"attention output is multiplied by up to 1 + alpha times its "
            f"largest value (use alpha <= {_LARGE_ALPHA:g}; 0 to 2 is the "
            f"useful range)",
        )
    return "; ".join(causes)


def _losses_text(losses):
    """A fit's losses per epoch, the first and last 3 of a long fit."""
    shown = [f"{float(loss):.4g}" for loss in losses]
    if len(shown) > 6:
        shown = [*shown[:3], f"... {len(shown) - 6} more ...", *shown[-3:]]
    return "[" + ", ".join(shown) + "]"


def fit(estimator, X, y, sample_weight=None, *, incremental=False, classes=None):
    """Fit ``estimator`` on ``X, y``: afresh, on from its fitted network (a
    warm start), or one epoch more (``incremental``: partial_fit, whose
    first call names every class in ``classes``). If that fails, the
    estimator is restored as it was: fitted with its old network (its
    weights, optimizer state and history too), labels and scales, or
    unfitted."""
    before = dict(vars(estimator))
    net = before.get("net_")
    # Only a fit that continues the network (partial_fit, a warm start)
    # changes it in place; a fresh fit leaves the old one untouched.
    continues = incremental or estimator.warm_start
    saved = NetState(net) if net is not None and continues else None
    try:
        return _train(
            estimator, X, y, sample_weight, incremental=incremental, classes=classes
        )
    except BaseException:
        vars(estimator).clear()
        vars(estimator).update(before)
        if saved is not None:
            saved.restore(net)
        raise


def _train(estimator, X, y, sample_weight, *, incremental, classes):
    fresh = not hasattr(estimator, "net_") or not (incremental or estimator.warm_start)
    plan = prepare(
        estimator,
        X,
        y,
        sample_weight=sample_weight,
        fresh=fresh,
        incremental=incremental,
        classes=classes,
    )
    # The one loop, a batch of one; Ctrl-C in its epochs keeps what trained.
    (result,) = fit_batch([(estimator, plan)], keep_on_interrupt=True)
    estimator._adopt(result)
    if result.interrupted:
        warnings.warn(
            f"{type(estimator).__name__}.{'partial_fit' if incremental else 'fit'} "
            f"was interrupted (KeyboardInterrupt) after "
            f"{len(result.loss_curve)} finished epoch(s) of this call; the model "
            "trained so far is kept (its last epoch perhaps in part).",
            UserWarning,
            stacklevel=5,  # the caller of the estimator's fit
        )
    return estimator


@dataclass(frozen=True)
class FitResult:
    """What one finished fit hands its estimator, which sets its own fitted
    attributes from it (``_GatedAttentionBase._adopt``)."""

    #: The skorch net, its module trained and its history written.
    net: object
    #: Training loss per epoch of this fit.
    loss_curve: tuple
    #: A new network (else the fitted one trained on: a warm start or
    #: partial_fit, which extend the fitted attributes).
    fresh: bool
    #: partial_fit: one epoch, early stopping off.
    incremental: bool
    #: The callbacks the network trained with (as ``given`` reads them).
    callbacks: tuple
    #: With early stopping, the held-out score per epoch of this fit; else None.
    validation_scores: tuple | None
    #: With early stopping, the score of the weights kept (None when no
    #: epoch was scored, max_epochs=0); else None.
    best_validation_score: float | None
    #: Whether a KeyboardInterrupt ended the training (the model trained so
    #: far is kept; an estimator's own fit only).
    interrupted: bool = False


def _result(estimator, net, plan, curve, interrupted=False):
    """The finished fit's :class:`FitResult`; raises if training diverged."""
    _check_converged(net, plan.X, estimator, curve, plan.n_outputs)
    valid = plan.valid
    scores = best = None
    if valid is not None:
        scores = tuple(valid.scores_)
        best = valid.best_score_ if valid.scores_ else None
        # Done: the held-out rows need not ride along in every pickle.
        valid.data = None
    return FitResult(
        net=net,
        loss_curve=tuple(float(loss) for loss in curve),
        fresh=plan.fresh,
        incremental=plan.incremental,
        callbacks=given(estimator.callbacks),
        validation_scores=scores,
        best_validation_score=best,
        interrupted=interrupted,
    )


#: Parameters that may differ inside one batch.
_PER_MODEL = ("alpha", "random_state", "lr")


def batchable(estimator):
    """Whether ``estimator`` may share a batch: callbacks and verbose output
    observe one model's training, and a warm start continues one."""
    return (
        not estimator.callbacks
        and not estimator.verbose
        and not (estimator.warm_start and hasattr(estimator, "net_"))
    )


def _key(estimator, plan):
    """What every model of a batch must share: its parameters but
    :data:`_PER_MODEL`, its data's width and its rows per step."""
    params = estimator.get_params(deep=False)
    shared = tuple(
        sorted((k, repr(v)) for k, v in params.items() if k not in _PER_MODEL)
    )
    return (
        type(estimator),
        shared,
        plan.X.shape[1],
        getattr(plan.X, "layout", None),
        plan.n_outputs,
        plan.batch_size,
        plan.epochs,
    )


def fit_together(estimators, data, *, name_items=False):
    """Fit ``estimators[i]`` on ``data[i] = (X, y, sample_weight or None)``.

    ``name_items``: a ValueError or TypeError raised while checking or
    preparing item ``i`` is raised again, of the same type, prefixed with
    ``estimators[i]`` (its parameters) or ``estimators[i] / data[i]`` (its
    fit on its data), for callers whose user passed the lists; the others
    keep the estimator's own message.

    Returns the estimators, fitted (in place), in their order.
    """
    groups = {}
    shared = {}  # id of a data tuple -> the training data it was first made into
    for i, (estimator, item) in enumerate(zip(estimators, data, strict=True)):
        X, y, sample_weight = item
        with _naming(f"estimators[{i}] / data[{i}]", name_items):
            if not batchable(estimator):
                estimator.fit(X, y, sample_weight=sample_weight)
                continue
        # What fit checks first (its _fit_context): the parameters, unless
        # scikit-learn is told to skip that.
        if not get_config()["skip_parameter_validation"]:
            with _naming(f"estimators[{i}]", name_items):
                estimator._validate_params()
        with _naming(f"estimators[{i}] / data[{i}]", name_items):
            plan = prepare(
                estimator,
                X,
                y,
                sample_weight=sample_weight,
                fresh=True,
                incremental=False,
                classes=None,
            )
        # Estimators given the same data (the alphas of one fold) share its
        # tensors, so the batch holds them once (see _engine.loop._Pool).
        first = shared.setdefault(id(item), plan.train)
        if first is not plan.train and _same_data(first, plan.train):
            plan = replace(plan, train=first)
        key = _key(estimator, plan)
        groups.setdefault(key, []).append((estimator, plan))
    for members in groups.values():
        # Models with as many rows take as many steps: side by side, the
        # models still stepping are a run of the stacks, read as views rather
        # than copies. (The order changes no model's bits.)
        members = sorted(members, key=_training_rows)
        for part in equal_parts(members, MAX_MODELS_PER_NETWORK):
            results = fit_batch(part)
            for (estimator, _), result in zip(part, results, strict=True):
                estimator._adopt(result)
    return estimators


@contextmanager
def _naming(where, on):
    """Raise a ValueError or TypeError of the block again, of the same type,
    as ``"{where}: {message}"`` (when ``on``)."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        if not on:
            raise
        try:
            named = type(exc)(f"{where}: {exc}")
        except Exception:  # a type that takes other arguments
            named = None
        if named is None:
            raise
        raise named from exc


def _training_rows(member):
    _, plan = member
    return len(plan.train.X)


def _same_data(first, second):
    """Equal training data (rows, targets, weights or both unweighted)."""
    if (first.w is None) != (second.w is None):
        return False
    return same_tensors(
        [t for t in first if t is not None], [t for t in second if t is not None]
    )


def _recipe(estimator, *, incremental):
    """The training recipe of ``estimator``'s design: label smoothing and
    the warm-up share of a cosine schedule (None: a constant rate, and
    always for partial_fit's one epoch, which continues at ``lr``)."""
    design = estimator._design()
    cosine = design["lr_schedule"] == "cosine" and not incremental
    return {
        "label_smoothing": float(design.get("label_smoothing", 0.0)),
        "warmup": float(estimator.warmup_fraction) if cosine else None,
    }


def fit_batch(members, *, keep_on_interrupt=False):
    """Train prepared estimators, ``(estimator, FitPlan)`` pairs of one
    architecture and recipe, by the one loop; returns each one's
    :class:`FitResult`, in their order (the estimators are not changed: each
    adopts its result).

    Each gets its skorch net first (the loop trains its module and optimizer
    state); a batch of one with callbacks or verbose output trains with
    :class:`~skgate._engine.hooks.NetHooks`, which call them as it goes.
    """
    proto, plan = members[0]
    # The networks are ordinary tensors, trained in place, even when the
    # caller is in inference mode.
    with torch.inference_mode(False):
        nets = [_net_for(estimator, plan) for estimator, plan in members]
        hooks = None
        if len(members) == 1 and (plan.callbacks or proto.verbose):
            hooks = NetHooks(nets[0], plan.train, plan.valid and plan.valid.data)
            hooks.fit_begin()  # before the loop reads which weights train
        trainer = BatchedTrainer(
            [net.module_ for net in nets],
            [estimator.alpha for estimator, _ in members],
            regression=is_regressor(proto),
            # A single fit's net may carry a rate a scheduler set.
            lr=[net.optimizer_.param_groups[0]["lr"] for net in nets],
            weight_decay=nets[0].optimizer_.param_groups[0]["weight_decay"],
            batch_size=plan.batch_size,
            states=[optimizer_entries(net) for net in nets],
            **_recipe(proto, incremental=plan.incremental),
        )
        curves = trainer.fit(
            [plan.train for _, plan in members],
            [net.iterator_train__generator for net in nets],
            1 if plan.incremental else plan.epochs,
            [plan.valid and plan.valid.initialize() for _, plan in members],
            hooks,
            keep_on_interrupt,
        )
        trainer.modules([net.module_ for net in nets])
        if hooks is not None:
            _end_with_callbacks(hooks, trainer, plan.valid)
    results = []
    for m, ((estimator, plan), net) in enumerate(zip(members, nets, strict=True)):
        if hooks is None:
            valid = plan.valid
            record_history(
                net.history,
                curves[m],
                trainer.epochs_[m],
                valid and valid.rows_,
                0 if valid is None else len(valid.data.y),
            )
        _install_state(net, trainer.optimizer_state(m))
        results.append(_result(estimator, net, plan, curves[m], trainer.interrupted))
    return results


def _end_with_callbacks(hooks, trainer, valid):
    """The callbacks' end of training. One may load other weights than the
    loop's best (EarlyStopping(load_best=True), a Checkpoint's): the best
    validation score is then the score of the weights the model holds."""
    net = hooks.net
    # Without validation no score describes the weights: nothing to compare.
    before = None if valid is None else [w.clone() for w in _weights(net)]
    hooks.fit_end()
    if before is not None and not same_tensors(before, _weights(net)):
        outputs = trainer.held_out_outputs(0, valid)
        valid.best_score_ = float(valid.score(outputs.cpu(), valid.data))


def _weights(net):
    return [w.detach() for w in net.module_.parameters()]


def _install_state(net, state):
    """The AdamW state of each trained weight, by name, as the net's
    optimizer's (a single model's trained in it already)."""
    params = dict(net.module_.named_parameters())
    for name, entry in state.items():
        net.optimizer_.state[params[name]] = entry

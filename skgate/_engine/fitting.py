"""How a fit runs, from its :class:`~skgate._engine.spec.TrainingSpec`:
:func:`train` (one fit: an estimator's ``fit`` and ``partial_fit``),
:func:`train_together` (many, batched by architecture) and :func:`fit_batch`
(prepared fits trained by the one loop), and what a finished fit hands back
(:class:`FitResult`), which the estimator adopts as its fitted attributes.
"""

import warnings
from dataclasses import dataclass, replace

import numpy as np
import torch
from sklearn.exceptions import ConvergenceWarning

from .._batching import MAX_MODELS_PER_NETWORK, equal_parts
from .hooks import (
    NetHooks,
    NetState,
    given,
    optimizer_entries,
    record_history,
    same_tensors,
)
from .loop import BatchedTrainer
from .plan import net_for, prepare

#: A fit whose training loss ends above this many times a constant
#: prediction's (log of the number of classes; 1 for standardised
#: regression targets, per output) is warned about (:func:`_check_converged`).
_LARGE_LOSS_RATIO = 1000.0


def _check_converged(net, spec, curve=()):
    """Raise if training diverged (non-finite weights or training loss),
    instead of leaving a model that predicts NaN. Warn (ConvergenceWarning)
    if the training loss ended over :data:`_LARGE_LOSS_RATIO` times a
    constant prediction's: unscaled inputs of 1e20 train to finite weights
    with a loss of 1e16 or more, while inputs of 1e6 train, overconfident,
    to a loss of hundreds. Both name the likely causes."""
    curve = [float(loss) for loss in curve]
    finite = all(torch.isfinite(p).all() for p in net.module_.parameters())
    if finite and np.isfinite(curve).all():
        n_outputs = spec.n_outputs
        constant = 1.0 if spec.loss.regression else float(np.log(max(n_outputs, 2)))
        if curve and curve[-1] > _LARGE_LOSS_RATIO * constant:
            warnings.warn(
                f"The training loss ended at {curve[-1]:.3g}, over "
                f"{_LARGE_LOSS_RATIO:g} times a constant prediction's "
                f"({constant:.3g}): the model may have learned nothing. Likely "
                f"causes: {spec.causes()}.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return
    losses = net.history[:, "train_loss"] if len(net.history) else []
    raise ValueError(
        f"Training diverged: the weights or the training loss became "
        f"non-finite (train_loss per epoch: {_losses_text(losses)}). Likely "
        f"causes: {spec.causes()}."
    )


def _losses_text(losses):
    """A fit's losses per epoch, the first and last 3 of a long fit."""
    shown = [f"{float(loss):.4g}" for loss in losses]
    if len(shown) > 6:
        shown = [*shown[:3], f"... {len(shown) - 6} more ...", *shown[-3:]]
    return "[" + ", ".join(shown) + "]"


def train(spec, *, fresh, incremental=False, keep_on_interrupt=True):
    """Train one model from ``spec``: a new network (``fresh``), on from the
    fitted one it continues (a warm start), or one epoch more
    (``incremental``: partial_fit). Ctrl-C in its epochs keeps what trained
    (:attr:`FitResult.interrupted`) when ``keep_on_interrupt``, else it is
    raised. If training fails, a net it continued
    is put back as it was (weights, optimizer state, history, callbacks)."""
    saved = None if fresh else NetState(spec.continues)
    try:
        plan = prepare(spec, fresh=fresh, incremental=incremental)
        (result,) = fit_batch([(spec, plan)], keep_on_interrupt=keep_on_interrupt)
    except BaseException:
        if saved is not None:
            saved.restore(spec.continues)
        raise
    return result


@dataclass(frozen=True)
class FitResult:
    """What one finished fit hands back; the estimator sets its own fitted
    attributes from it."""

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


def _result(spec, net, plan, curve, interrupted=False):
    """The finished fit's :class:`FitResult`; raises if training diverged."""
    _check_converged(net, spec, curve)
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
        callbacks=given(spec.recipe.callbacks),
        validation_scores=scores,
        best_validation_score=best,
        interrupted=interrupted,
    )


def train_together(specs, *, data_keys=None):
    """Train a new model from each of ``specs``, batched: specs of one
    architecture, data width, recipe and budget (their ``batch_key`` and
    plan) train as one network, each as it would alone. Returns their
    :class:`FitResult` s, in their order. A ValueError or TypeError raised
    while preparing ``specs[i]`` is raised again, of the same type, with the
    item's index as ``error.spec_index``. ``data_keys``: per spec, what
    names its data (specs of one key whose rows are equal share one copy of
    them in the batch); default: each its own."""
    groups = {}
    shared = {}  # data key -> the training rows first made of it
    if data_keys is None:
        data_keys = range(len(specs))
    for i, (spec, data_key) in enumerate(zip(specs, data_keys, strict=True)):
        try:
            plan = prepare(spec, fresh=True, incremental=False)
        except (ValueError, TypeError) as exc:
            exc.spec_index = i
            raise
        # Specs of the same data (the alphas of one fold) share its
        # tensors, so the batch holds them once (see _engine.loop._Pool).
        first = shared.setdefault(data_key, plan.train)
        if first is not plan.train and _same_data(first, plan.train):
            plan = replace(plan, train=first)
        key = (
            spec.batch_key,
            plan.X.shape[1],
            getattr(plan.X, "layout", None),
            plan.n_outputs,
            plan.batch_size,
            plan.epochs,
        )
        groups.setdefault(key, []).append((i, spec, plan))
    results = [None] * len(specs)
    for members in groups.values():
        # Models with as many rows take as many steps: side by side, the
        # models still stepping are a run of the stacks, read as views rather
        # than copies. (The order changes no model's bits.)
        members = sorted(members, key=_training_rows)
        for part in equal_parts(members, MAX_MODELS_PER_NETWORK):
            trained = fit_batch([(spec, plan) for _, spec, plan in part])
            for (i, _, _), result in zip(part, trained, strict=True):
                results[i] = result
    return results


def _training_rows(member):
    return len(member[-1].train.X)


def _same_data(first, second):
    """Equal training data (rows, targets, weights or both unweighted)."""
    if (first.w is None) != (second.w is None):
        return False
    return same_tensors(
        [t for t in first if t is not None], [t for t in second if t is not None]
    )


def fit_batch(members, *, keep_on_interrupt=False):
    """Train prepared fits, ``(TrainingSpec, FitPlan)`` pairs of one
    architecture and recipe, by the one loop; returns each one's
    :class:`FitResult`, in their order.

    Each gets its skorch net first (the loop trains its module and optimizer
    state); a batch of one with callbacks or verbose output trains with
    :class:`~skgate._engine.hooks.NetHooks`, which call them as it goes.
    """
    proto, plan = members[0]
    recipe = proto.recipe
    # The networks are ordinary tensors, trained in place, even when the
    # caller is in inference mode.
    with torch.inference_mode(False):
        nets = [net_for(spec, plan) for spec, plan in members]
        hooks = None
        if len(members) == 1 and (plan.callbacks or recipe.verbose):
            hooks = NetHooks(nets[0], plan.train, plan.valid and plan.valid.data)
            hooks.fit_begin()  # before the loop reads which weights train
        trainer = BatchedTrainer(
            [net.module_ for net in nets],
            [spec.alpha for spec, _ in members],
            loss=proto.loss,
            # A single fit's net may carry a rate a scheduler set.
            lr=[net.optimizer_.param_groups[0]["lr"] for net in nets],
            weight_decay=nets[0].optimizer_.param_groups[0]["weight_decay"],
            batch_size=plan.batch_size,
            states=[optimizer_entries(net) for net in nets],
            # partial_fit's one epoch continues at lr: no schedule.
            warmup=None if plan.incremental else recipe.warmup,
            clip_norm=recipe.clip_norm,
            decay_exempt=recipe.decay_exempt,
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
        for (_, plan), net in zip(members, nets, strict=True):
            set_statistics(net.module_, plan.train, accumulate=plan.incremental)
        if hooks is not None:
            _end_with_callbacks(hooks, trainer, plan.valid)
    results = []
    for m, ((spec, plan), net) in enumerate(zip(members, nets, strict=True)):
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
        results.append(_result(spec, net, plan, curves[m], trainer.interrupted))
    return results


def set_statistics(module, rows, accumulate=False):
    """The evaluation statistics of ``module``'s batch norms (if any) set
    from its training ``rows`` (a :class:`~skgate._engine.loop.Rows`);
    ``accumulate`` (a partial_fit): pooled with the calls' before."""
    with torch.inference_mode(False):
        module.set_population_statistics(
            rows.X.to(_device(module)),
            _weights_of(rows, module),
            accumulate=accumulate,
        )


def _device(module):
    return next(module.parameters()).device


def _weights_of(rows, module):
    return None if rows.w is None else rows.w.to(_device(module))


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

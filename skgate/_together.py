"""Fit many gated attention estimators at once, each as its own ``fit`` would.

Private to :mod:`skgate.search` and :mod:`skgate.study`. Estimators whose
networks share an architecture and a training recipe (every parameter but
``alpha``, ``lr`` and ``random_state``, and the width of their data) train
as one batched network (:class:`skgate._batched.BatchedTrainer`); each keeps
its own rows, weights, random stream and early stopping, so it ends as
``fit`` alone would leave it, bit for bit. A fit with callbacks or verbose
output, or a warm start from a fitted model, is a batch of its own: the
same loop, one model.
"""

from dataclasses import replace

import torch
from sklearn import get_config
from sklearn.base import is_regressor

from ._batched import BatchedTrainer
from ._training import NetHooks, optimizer_entries, record_history, same_tensors

__all__ = ["fit_together"]

#: Models per batched network at most; a larger batch trains as consecutive
#: parts of about equal size. Measured on the CV estimator (2000 rows, 20
#: epochs): 20 fold models as one network 1.05 s, as two of 10 1.16 s; 160
#: fold models as one network 15.7 s, as 16 of 10 12.0 s.
MAX_MODELS = 20

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
    return type(estimator), shared, plan.X.shape[1], plan.n_outputs, plan.batch_size


def fit_together(estimators, data):
    """Fit ``estimators[i]`` on ``data[i] = (X, y, sample_weight or None)``.

    Returns the estimators, fitted (in place), in their order.
    """
    groups = {}
    shared = {}  # id of a data tuple -> the training data it was first made into
    for estimator, item in zip(estimators, data, strict=True):
        X, y, sample_weight = item
        if not batchable(estimator):
            estimator.fit(X, y, sample_weight=sample_weight)
            continue
        # What fit checks first (its _fit_context): the parameters, unless
        # scikit-learn is told to skip that.
        if not get_config()["skip_parameter_validation"]:
            estimator._validate_params()
        plan = estimator._prepare_fit(
            X,
            y,
            sample_weight=sample_weight,
            fresh=True,
            incremental=False,
            classes=None,
        )
        # Estimators given the same data (the alphas of one fold) share its
        # tensors, so the batch holds them once (see _batched._Pool).
        first = shared.setdefault(id(item), plan.train)
        if first is not plan.train and _same_data(first, plan.train):
            plan = replace(plan, train=first)
        key = _key(estimator, plan)
        groups.setdefault(key, []).append((estimator, plan))
    for members in groups.values():
        # Models with as many rows take as many steps: side by side, the
        # models still stepping are a run of the stacks, read as views rather
        # than copies. (The order changes no model's bits.)
        members = sorted(members, key=lambda m: len(m[1].train.X))
        for part in equal_parts(members, MAX_MODELS):
            fit_batch(part)
    return estimators


def equal_parts(items, max_size):
    """``items`` cut into the fewest consecutive parts of at most
    ``max_size``, as equal in size as can be (25 by 10: 9, 8, 8)."""
    n = -(-len(items) // max_size)
    size, extra = divmod(len(items), n)
    starts = [i * size + min(i, extra) for i in range(n + 1)]
    return [items[a:b] for a, b in zip(starts[:-1], starts[1:], strict=True)]


def _same_data(first, second):
    """Equal training data (rows, targets, weights or both unweighted)."""
    if (first.w is None) != (second.w is None):
        return False
    return same_tensors(
        [t for t in first if t is not None], [t for t in second if t is not None]
    )


def fit_batch(members):
    """Train prepared estimators, ``(estimator, FitPlan)`` pairs of one
    architecture and recipe, by the one loop, and make each fitted.

    Each gets its skorch net first (the loop trains its module and optimizer
    state); a batch of one with callbacks or verbose output trains with
    :class:`~skgate._training.NetHooks`, which call them as it goes.
    """
    proto, plan = members[0]
    # The networks are ordinary tensors, trained in place, even when the
    # caller is in inference mode.
    with torch.inference_mode(False):
        nets = [estimator._net_for(plan) for estimator, plan in members]
        hooks = None
        if len(members) == 1 and (plan.callbacks or proto.verbose):
            hooks = NetHooks(nets[0], plan.train, plan.valid and plan.valid.data)
            hooks.fit_begin()  # before the loop reads which weights train
        trainer = BatchedTrainer(
            [net.module_ for net in nets],
            [estimator.alpha for estimator, _ in members],
            regression=is_regressor(proto),
            lr=[estimator.lr for estimator, _ in members],
            weight_decay=proto.weight_decay,
            batch_size=plan.batch_size,
            states=[optimizer_entries(net) for net in nets],
        )
        curves = trainer.fit(
            [plan.train for _, plan in members],
            [net.iterator_train__generator for net in nets],
            1 if plan.incremental else proto.max_epochs,
            [plan.valid and plan.valid.initialize() for _, plan in members],
            hooks,
        )
        trainer.modules([net.module_ for net in nets])
        if hooks is not None:
            hooks.fit_end()
    for m, ((estimator, plan), net) in enumerate(zip(members, nets, strict=True)):
        if hooks is None:
            rows = plan.valid and plan.valid.rows_
            record_history(net.history, curves[m], rows)
        _install_state(net, trainer.optimizer_state(m))
        estimator._record(net, plan, curves[m])


def _install_state(net, state):
    """The AdamW state of each trained weight, by name, as the net's
    optimizer's (a single model's trained in it already)."""
    params = dict(net.module_.named_parameters())
    for name, entry in state.items():
        net.optimizer_.state[params[name]] = entry

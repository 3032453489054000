"""Fit many gated attention estimators at once, each as its own ``fit`` would.

Private to :mod:`skgate.search` and :mod:`skgate.study`. Estimators whose
networks share an architecture and a training recipe (every parameter but
``alpha`` and ``random_state``, and the width of their data) train as one
batched network (:class:`skgate._batched.BatchedTrainer`); each keeps its own
rows, weights, random stream and early stopping, so it ends as ``fit`` alone
would leave it, bit for bit. The rest (user callbacks, a device other than
the CPU, verbose output, a warm start from a fitted model) fit one by one:
skorch's loop drives the same steps, one net at a time.
"""

from dataclasses import replace

import torch
from sklearn import get_config

from ._batched import BatchedTrainer
from ._training import same_tensors

__all__ = ["fit_together"]

#: Models per batched network at most; a larger batch trains as consecutive
#: parts of about equal size. Measured on the CV estimator (2000 rows, 20
#: epochs): 20 fold models as one network 1.05 s, as two of 10 1.16 s; 160
#: fold models as one network 15.7 s, as 16 of 10 12.0 s.
MAX_MODELS = 20

#: Parameters that may differ inside one batch.
_PER_MODEL = ("alpha", "random_state", "lr")


def batchable(estimator):
    return (
        not estimator.callbacks
        and torch.device(estimator.device).type == "cpu"
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
        members = sorted(members, key=lambda m: len(m[1].train))
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
    tensors = [t for t in (first.X, first.y, first.w) if t is not None]
    others = [t for t in (second.X, second.y, second.w) if t is not None]
    return same_tensors(tensors, others)


def fit_batch(members):
    """Train one batch of prepared estimators and hand each its network."""
    proto = members[0][0]
    # The networks are ordinary tensors (trained in place, handed to skorch),
    # even when the caller is in inference mode.
    with torch.inference_mode(False):
        modules = [
            estimator._build_module(plan.X.shape[1], plan.n_outputs, plan.generator)
            for estimator, plan in members
        ]
        trainer = BatchedTrainer(
            modules,
            [estimator.alpha for estimator, _ in members],
            proto._criterion,
            lr=[estimator.lr for estimator, _ in members],
            weight_decay=proto.weight_decay,
            batch_size=members[0][1].batch_size,
        )
        curves = trainer.fit(
            [(plan.train.X, plan.train.y, plan.train.w) for _, plan in members],
            [plan.generator for _, plan in members],
            proto.max_epochs,
            [plan.valid and plan.valid.initialize() for _, plan in members],
        )
        trained = trainer.modules(modules)
    for m, ((estimator, plan), module) in enumerate(zip(members, trained, strict=True)):
        estimator._adopt(
            module,
            plan.generator,
            plan.X,
            curves[m],
            plan.valid,
            trainer.optimizer_state(m),
            plan.batch_size,
        )

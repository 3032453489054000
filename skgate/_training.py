"""How a fit runs: what it settles first, the one loop's batches, the fitted model.

Private to the estimators (:mod:`skgate.estimators`), the CV estimators and
the study. :func:`fit` is every estimator's ``fit`` and ``partial_fit``:
:func:`prepare` validates the parameters and the data and settles the fit
(its rows, weights, validation split and random stream) as a
:class:`FitPlan`; :func:`fit_batch` trains prepared fits by the one loop,
:class:`skgate._batched.BatchedTrainer`, and makes each estimator fitted.
:func:`fit_together` fits many estimators at once: those whose networks
share an architecture and a training recipe (every parameter but
``alpha``, ``lr`` and ``random_state``, and the width of their data) train
as one batch, each keeping its own rows, weights, random stream and early
stopping, so that it ends as ``fit`` alone would leave it, bit for bit. A
fit with callbacks or verbose output, or a warm start from a fitted model,
is a batch of its own: the same loop, one model.
"""

import math
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np
import torch
from sklearn import get_config
from sklearn.base import is_classifier, is_regressor
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.validation import _check_sample_weight

from ._batched import BatchedTrainer, Rows
from ._skorch import (
    NetHooks,
    NetState,
    ValidationScore,
    check_callbacks,
    given,
    monitors_validation,
    optimizer_entries,
    record_history,
    same_items,
    same_tensors,
)
from .nn import _BUILT_IN as _BUILT_IN_GATES
from .nn import GATES

#: The network's architecture parameters, which every estimator passes to
#: :class:`~skgate.nn.GatedAttentionNet` under the same names (a test holds
#: them to the network's keywords). The gate's initialisation gain is not a
#: hyper-parameter of the estimators: it is a class attribute
#: (``gate_gain``), which the study's sensitivity check overrides in a
#: subclass.
NET_PARAMETERS = (
    "gate",
    "alpha",
    "depth",
    "d_model",
    "n_tokens",
    "token_dim",
    "head",
    "n_heads",
    "residual",
    "norm",
    "attention",
)

#: Every parameter the training implements besides the architecture (each
#: read by prepare, the FitPlan, the net or the loop). A parameter outside
#: these and NET_PARAMETERS (a subclass's, or one added without teaching the
#: training) fails at fit.
TRAINING_PARAMETERS = (
    "patch_size",  # time points per token of series (the estimator's checks)
    "max_epochs",  # the loop's epochs
    "lr",  # the AdamW learning rate (per model in a batch)
    "batch_size",  # rows per step (computed on padded_rows of them)
    "weight_decay",  # AdamW's
    "class_weight",  # row weights in the FitPlan
    "early_stopping",  # the FitPlan's ValidationScore
    "validation_fraction",
    "n_iter_no_change",
    "tol",
    "warm_start",  # the loop from the fitted network
    "callbacks",  # the net's, called by the loop (NetHooks)
    "device",  # where the loop trains
    "random_state",  # the FitPlan's generator: weights, shuffles, split
    "verbose",  # the net's PrintLog, called by the loop
)


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


#: Above this gate strength the gate's range (1 - alpha, 1 + alpha) is wide
#: enough to blow up activations; a divergence then names alpha first.
_LARGE_ALPHA = 100.0


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


def _check_converged(net, X, estimator):
    """Raise if training left non-finite weights, instead of predicting NaN later."""
    if all(torch.isfinite(p).all() for p in net.module_.parameters()):
        return
    losses = net.history[:, "train_loss"] if len(net.history) else []
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
    raise ValueError(
        f"Training diverged: the weights became non-finite (train_loss per "
        f"epoch: {[float(loss) for loss in losses]}). Likely causes: "
        + "; ".join(causes)
        + "."
    )


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
    fit_batch([(estimator, plan)])  # the one loop, a batch of one
    return estimator


def prepare(estimator, X, y, *, sample_weight, fresh, incremental, classes):
    """Everything a fit settles before training, as a :class:`FitPlan`."""
    unknown = set(estimator.get_params(deep=False)).difference(
        NET_PARAMETERS, TRAINING_PARAMETERS
    )
    if unknown:
        raise NotImplementedError(
            f"{type(estimator).__name__} has the parameters {sorted(unknown)}, "
            f"which skgate's training engine does not implement (it would "
            f"ignore them); implemented: the network's "
            f"{list(NET_PARAMETERS)} and {list(TRAINING_PARAMETERS)}."
        )
    _check_device(estimator.device)
    validating = estimator.early_stopping and not incremental
    callbacks = check_callbacks(
        estimator.callbacks, validation=validating, incremental=incremental
    )
    X, y = estimator._validate_X(X, y, reset=fresh)
    if fresh:
        estimator._check_token_dim(X.shape[1])
    elif not incremental:
        estimator._check_same_targets(y)
    y_net, n_outputs = estimator._prepare_targets(y, reset=fresh, classes=classes)
    weight = _sample_weights(estimator, X, y_net, sample_weight)
    seeds = check_random_state(estimator.random_state).randint(2**31 - 1, size=2)
    # The fit's own random stream: weights and shuffling depend on
    # random_state alone, whatever other threads draw, and torch's
    # process-wide generator is never used.
    generator = torch.Generator().manual_seed(int(seeds[0]))
    train, valid = _split(
        estimator, X, y_net, weight, int(seeds[1]), validating=validating
    )
    batch_size = min(estimator.batch_size, len(train.X))
    return FitPlan(
        X,
        n_outputs,
        generator,
        train,
        valid,
        batch_size,
        fresh,
        incremental,
        callbacks,
        epochs=planned_epochs(estimator.max_epochs, len(train.X), batch_size),
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


def planned_epochs(max_epochs, n_rows, batch_size):
    """The epochs a fit trains: ``max_epochs``, or for "auto" the fewest
    that give :data:`AUTO_STEPS` steps of ``batch_size`` over ``n_rows``
    rows, and at least :data:`AUTO_MIN_EPOCHS`.

    >>> planned_epochs(7, 1000, 64), planned_epochs("auto", 50, 64)
    (7, 500)
    >>> planned_epochs("auto", 67, 64), planned_epochs("auto", 50_000, 64)
    (250, 20)
    """
    if max_epochs != "auto":
        return max_epochs
    steps_per_epoch = math.ceil(n_rows / batch_size)
    return max(AUTO_MIN_EPOCHS, math.ceil(AUTO_STEPS / steps_per_epoch))


def _sample_weights(estimator, X, y_net, sample_weight):
    """Row weights (float64), sample_weight times class_weight, or None."""
    if sample_weight is not None:
        sample_weight = _check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=True
        )
    classes = estimator._class_weights(y_net)
    if classes is not None:
        sample_weight = classes if sample_weight is None else sample_weight * classes
    if sample_weight is None:
        return None
    if not sample_weight.sum() > 0:
        raise ValueError(
            "sample_weight (times class_weight) is 0 for every row: nothing "
            "to train on; allowed: non-negative weights, at least one > 0."
        )
    return sample_weight


def _split(estimator, X, y_net, weight, seed, *, validating):
    """Training data and, with early stopping, the held-out ValidationScore.

    Rows of weight 0 are dropped first: they take no part in anything.
    """
    if weight is not None:
        keep = weight > 0
        X, y_net, weight = X[keep], y_net[keep], weight[keep]
        # Scaled to mean 1 (so that 3 w trains the model w does), and none
        # at all when equal: exactly the unweighted fit.
        same = np.all(weight == weight[0])
        weight = None if same else weight / weight.mean()
    if not validating:
        return _rows(X, y_net, weight), None
    train, held_out = validation_rows(estimator, y_net, seed)
    data = _rows(X, y_net, weight, held_out)
    valid = ValidationScore(
        data,
        estimator._validation_score,
        estimator.n_iter_no_change,
        estimator.tol,
        regression=not is_classifier(estimator),
    )
    return _rows(X, y_net, weight, train), valid


def validation_rows(estimator, y_net, seed):
    """Indices (train, held out): ``validation_fraction`` of the rows,
    stratified by class for a classifier, as MLPClassifier holds them out."""
    n = len(y_net)
    stratify = y_net if is_classifier(estimator) else None
    n_held = int(np.ceil(estimator.validation_fraction * n))
    if stratify is not None:
        counts = np.bincount(y_net)
        present = np.flatnonzero(counts)
        if counts[present].min() < 2:
            lonely = estimator.classes_[present[counts[present] < 2]].tolist()
            raise ValueError(
                f"early_stopping=True holds out a stratified "
                f"validation_fraction={estimator.validation_fraction} of the rows, "
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
            f"{estimator.validation_fraction} holds out {n_held} of the "
            f"n_samples={n} rows, but early stopping needs at least {least} "
            f"rows ({what}) both held out and left to train on (rows of "
            f"weight 0 are not counted); allowed: a validation_fraction in "
            f"(0, 1) that leaves both, more rows, or early_stopping=False."
        )
    return train_test_split(
        np.arange(n), test_size=n_held, stratify=stratify, random_state=seed
    )


def _net_for(estimator, plan):
    """The skorch net to train: new, the fitted one (partial_fit), or a new
    one around the fitted network (warm_start: a fresh optimizer)."""
    if plan.fresh:
        module = estimator._build_module(
            plan.X.shape[1], plan.n_outputs, plan.generator
        )
        return _build_net(estimator, module, plan)
    _continue_with_parameters(estimator, incremental=plan.incremental)
    if not plan.incremental:
        return _build_net(estimator, estimator.net_.module_, plan)
    net = estimator.net_
    trained = getattr(estimator, "_callbacks_trained_", given(estimator.callbacks))
    if not same_items(given(estimator.callbacks), trained):
        # The callbacks parameter changed since the last fit: the
        # epochs from now on run with the new ones.
        net.callbacks = plan.callbacks
        net.initialize_callbacks()
    # partial_fit scores no validation split (as MLPClassifier's): the
    # callbacks that read one sit out (restored by _atomic if it fails).
    net.callbacks_ = [
        (name, callback)
        for name, callback in net.callbacks_
        if not monitors_validation(callback)
    ]
    net.batch_size = plan.batch_size
    return net


def _continue_with_parameters(estimator, *, incremental):
    """Before a warm start or partial_fit: the fitted network trains on with
    the estimator's current alpha, and partial_fit's optimizer with its
    learning rate and weight decay (changed by set_params since it was
    built; a rate a scheduler set stays unless the parameter changed; a warm
    start's new net takes them anyway). A changed architecture, which the
    network cannot take, is refused."""
    net = estimator.net_
    built = dict(estimator._architecture_)
    changed = [
        f"{name}={getattr(estimator, name)!r} (built with {value!r})"
        for name, value in built.items()
        if getattr(estimator, name) != value
    ]
    if changed:
        raise ValueError(
            f"warm_start=True and partial_fit continue the fitted network, "
            f"whose architecture cannot change; got {', '.join(changed)}. Set "
            f"them back, or fit afresh (warm_start=False)."
        )
    for block in net.module_.blocks:
        block.alpha = float(estimator.alpha)
    if not incremental:
        return
    for attribute, key, value in (
        ("lr", "lr", estimator.lr),
        ("optimizer__weight_decay", "weight_decay", estimator.weight_decay),
    ):
        if getattr(net, attribute) != value:
            setattr(net, attribute, value)
            for group in net.optimizer_.param_groups:
                group[key] = value


def _build_net(estimator, module, plan):
    """A skorch net around ``module``, initialised: the fitted container
    (module, AdamW optimiser, history) and the callbacks' interface."""
    # The loop records train_loss and the validation rows itself.
    unused = estimator._unused_callbacks + ("train_loss", "valid_loss")
    # A classifier's net predicts the encoded labels 0, 1, ...
    labels = (
        {"classes": list(range(plan.n_outputs))} if is_classifier(estimator) else {}
    )
    net = estimator._net_class(
        **labels,
        module=module,
        criterion=estimator._criterion,
        optimizer=torch.optim.AdamW,
        lr=estimator.lr,
        optimizer__weight_decay=estimator.weight_decay,
        max_epochs=plan.epochs,
        batch_size=plan.batch_size,
        # The shuffling: a fresh permutation each epoch, from the fit's
        # generator (partial_fit continues it).
        iterator_train__shuffle=True,
        iterator_train__generator=plan.generator,
        **{f"callbacks__{name}": None for name in unused},
        train_split=None,
        callbacks=plan.callbacks,
        device=estimator.device,
        verbose=estimator.verbose,
    )
    return net.initialize()


def _record(estimator, net, plan, curve):
    """Fitted attributes from the trained net; a warm start or partial_fit
    extends ``loss_curve_`` and ``n_iter_`` as MLPClassifier does."""
    _check_converged(net, plan.X, estimator)
    before = [] if plan.fresh else list(estimator.loss_curve_)
    estimator.loss_curve_ = before + list(curve)
    estimator.n_iter_ = len(estimator.loss_curve_)
    estimator.net_ = net
    if plan.fresh:  # what a warm start or partial_fit cannot change
        # patch_size too: the tokens a series becomes are the network's input.
        estimator._architecture_ = tuple(
            (name, getattr(estimator, name))
            for name in (*NET_PARAMETERS, "patch_size")
            if name != "alpha"
        )
    estimator._callbacks_trained_ = given(estimator.callbacks)
    estimator.history_ = net.history
    valid = plan.valid
    if valid is not None:
        # A warm start extends the scores as loss_curve_, one per epoch
        # (NaN for the epochs of fits and partial fits without early
        # stopping, which left them as they were); the best is this fit's,
        # whose weights were restored.
        earlier = [] if plan.fresh else list(estimator.validation_scores_ or [])
        earlier += [float("nan")] * (len(before) - len(earlier))
        estimator.validation_scores_ = earlier + list(valid.scores_)
        # None when no epoch was scored (max_epochs=0).
        estimator.best_validation_score_ = valid.best_score_ if valid.scores_ else None
        # Done: the held-out rows need not ride along in every pickle.
        valid.data = None
    elif plan.fresh:
        estimator.validation_scores_ = estimator.best_validation_score_ = None
    elif not plan.incremental:
        # A warm start without early stopping: no score describes its
        # weights (the earlier scores stay, as partial_fit leaves them).
        estimator.best_validation_score_ = None


#: Models per batched network at most; a larger batch trains as consecutive
#: parts of about equal size (benchmarks/results/SPEED.md, "The engine's
#: constants": 20 and 40 fold models as one network and as two). Models of
#: copied tokens would gain from larger networks, sequence models lose: 40
#: sequence models train faster as two networks of 20 than as one.
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
        members = sorted(members, key=_training_rows)
        for part in equal_parts(members, MAX_MODELS):
            fit_batch(part)
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
        )
        curves = trainer.fit(
            [plan.train for _, plan in members],
            [net.iterator_train__generator for net in nets],
            1 if plan.incremental else plan.epochs,
            [plan.valid and plan.valid.initialize() for _, plan in members],
            hooks,
        )
        trainer.modules([net.module_ for net in nets])
        if hooks is not None:
            _end_with_callbacks(hooks, trainer, plan.valid)
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
        _record(estimator, net, plan, curves[m])


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

"""The skorch side of training: the fitted net, the validation rule, the callbacks.

Private to skgate: the engine uses it, the estimators take their net
classes from it and :mod:`skgate._represent` its ``same_tensors``; this
module knows skorch and torch.
Every fit is trained by one loop,
:class:`skgate._engine.loop.BatchedTrainer`; skorch's ``NeuralNet`` is the
fitted container (module, optimiser, history) and the callback interface:
:class:`NetHooks` makes the loop's epochs, batches, gradients and
validations the net's ``notify`` calls, so skorch's callbacks (EarlyStopping,
Checkpoint, LRScheduler, EpochScoring, PrintLog, ProgressBar, ...) run in
it. Rows travel with their sample weights as skorch recommends: a weighted
batch is ``({"X": X, "sample_weight": weight}, y)``, the module sees ``X``
alone.
"""

import copy

import numpy as np
import torch
from skorch import NeuralNetClassifier, NeuralNetRegressor
from skorch.callbacks import BatchScoring, Callback, EpochScoring
from skorch.dataset import Dataset
from skorch.history import History
from skorch.utils import TeeGenerator

from ..nn._stacked import validation_loss
from .loop import CallbackStop, trained_weights


def _dataset(rows):
    """:class:`~skgate._engine.loop.Rows` as a skorch ``Dataset``, as skorch's
    callbacks read them."""
    if rows.w is None:
        return Dataset(rows.X, rows.y)
    return Dataset({"X": rows.X, "sample_weight": rows.w}, rows.y)


def _batch(rows):
    """All of :class:`~skgate._engine.loop.Rows` as one skorch batch."""
    if rows.w is None:
        return rows.X, rows.y
    return {"X": rows.X, "sample_weight": rows.w}, rows.y


class _WeightedNet:
    """A skorch net whose inputs may carry their sample weights, and whose
    own training is closed: every fit goes through the estimator's (one
    loop for every fit, see :mod:`skgate._engine`), so a net that skorch
    trained or reset would hold weights and history that disagree with the
    estimator's ``n_iter_`` and ``loss_curve_``.

    ``fit``, ``partial_fit`` and ``fit_loop`` always refuse. Once the engine
    has built the net (:meth:`close`), so do ``initialize`` (which would
    empty the history), ``initialize_module``, ``initialize_optimizer``,
    ``initialize_criterion`` and ``initialize_history`` (which would reset
    a part, as ``set_params`` of a module or optimizer parameter does),
    ``train_step`` and ``run_single_epoch``, also when called through
    skorch's class (``NeuralNet.fit_loop(clf.net_, X, y)``):
    each of skorch's ways in checks :meth:`check_training_readiness`, or
    steps through :meth:`train_step_single`, first.
    """

    def close(self):
        """Close skorch's training and initialisation on this net (the
        engine calls it once the net is built); returns the net. Its
        history refuses to be cleared (skorch's initialize_history clears
        it, also when called through skorch's class)."""
        self._closed_by_skgate = True
        self.history_.__class__ = ClosedHistory
        return self

    def _refuse_when_closed(self, method):
        if self.__dict__.get("_closed_by_skgate", False):
            raise TypeError(_closed_loop(method))

    def check_training_readiness(self):
        # skorch's initialize, fit_loop (and so fit and partial_fit) ask first.
        self._refuse_when_closed("initialize and net_.fit_loop")
        super().check_training_readiness()

    def fit(self, X, y=None, **fit_params):
        raise TypeError(_closed_loop("fit"))

    def partial_fit(self, X, y=None, classes=None, **fit_params):
        raise TypeError(_closed_loop("partial_fit"))

    def fit_loop(self, X, y=None, epochs=None, **fit_params):
        raise TypeError(_closed_loop("fit_loop"))

    # Each would reset what the engine trained (the module's weights, the
    # optimizer's AdamW state, the loss, the history); skorch's set_params
    # calls them to rebuild a part (net_.set_params(module__alpha=0)).
    def initialize_module(self):
        self._refuse_when_closed("initialize_module")
        return super().initialize_module()

    def initialize_optimizer(self, *args, **kwargs):
        self._refuse_when_closed("initialize_optimizer")
        return super().initialize_optimizer(*args, **kwargs)

    def initialize_criterion(self):
        self._refuse_when_closed("initialize_criterion")
        return super().initialize_criterion()

    def initialize_history(self):
        self._refuse_when_closed("initialize_history")
        return super().initialize_history()

    # skorch's own initialize_* read these first, also when called through
    # skorch's class (NeuralNet.initialize_optimizer(clf.net_)).
    def get_params_for(self, prefix):
        if prefix in ("module", "criterion"):
            self._refuse_when_closed(f"initialize_{prefix}")
        return super().get_params_for(prefix)

    def get_params_for_optimizer(self, prefix, named_parameters):
        self._refuse_when_closed("initialize_optimizer")
        return super().get_params_for_optimizer(prefix, named_parameters)

    def trim_for_prediction(self):
        # It drops the optimizer and the history, which partial_fit and a
        # warm start continue.
        self._refuse_when_closed("trim_for_prediction")
        return super().trim_for_prediction()

    def train_step(self, batch, **fit_params):
        self._refuse_when_closed("train_step")
        return super().train_step(batch, **fit_params)

    def train_step_single(self, batch, **fit_params):
        # Every skorch training step computes its gradients here first.
        self._refuse_when_closed("train_step")
        return super().train_step_single(batch, **fit_params)

    def run_single_epoch(self, iterator, training, prefix, step_fn, **fit_params):
        self._refuse_when_closed("run_single_epoch")
        return super().run_single_epoch(
            iterator, training, prefix, step_fn, **fit_params
        )

    # The history has one writer (begin_epoch, ..., end_epoch, called by
    # NetHooks and record_history): skorch's own rows are not started here.
    def on_epoch_begin(self, net, dataset_train=None, dataset_valid=None, **kwargs):
        pass

    def on_batch_begin(self, net, batch=None, training=False, **kwargs):
        pass

    def infer(self, x, **fit_params):
        # A weighted batch's weights are for the loss, not the module.
        if isinstance(x, dict):
            x = x["X"]
        return super().infer(x, **fit_params)


class ClosedHistory(History):
    """A fitted net's history: rows are written by the engine's writer
    alone (and dropped by NetState when a fit fails); clearing it, as
    skorch's initialize_history does, is refused."""

    def clear(self):
        raise TypeError(_closed_loop("initialize_history"))


def _closed_loop(method):
    verb = "are" if " and " in method else "is"
    return (
        f"net_.{method} {verb} closed: skgate trains its networks with its own loop "
        f"(its fitted attributes, history and loss_curve_ kept together); call "
        f"the estimator's fit or partial_fit instead (e.g. clf.partial_fit(X, y))."
    )


class WeightedNeuralNetClassifier(_WeightedNet, NeuralNetClassifier):
    pass


class WeightedNeuralNetRegressor(_WeightedNet, NeuralNetRegressor):
    pass


class ValidationScore:
    """Score a held-out split after every epoch; stop when it stops improving.

    MLPClassifier's early stopping: an epoch improves when its score exceeds
    the best so far by more than ``tol``; after more than ``n_iter_no_change``
    epochs without improvement training stops, and the weights of the best
    epoch are restored (by the loop, which keeps them). ``data``: the
    held-out :class:`~skgate._engine.loop.Rows`; ``score(outputs, data)``
    maps the network's outputs on them to a number (higher is better),
    weighted by their
    sample weights; ``regression`` chooses the loss (see
    :func:`~skgate.nn._stacked.validation_loss`). Each epoch's history row
    ("valid_score", "valid_loss", "valid_loss_best") is kept in ``rows_``.
    """

    def __init__(self, data, score, n_iter_no_change, tol, *, regression=False):
        self.data = data
        self.score = score
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.regression = regression

    def initialize(self):
        self.scores_, self.best_score_ = [], -np.inf
        self.no_improvement_ = 0
        self.rows_, self.best_loss_ = [], np.inf
        return self

    def evaluate(self, outputs):
        """Score an epoch's outputs on the held-out rows: (is it the best
        epoch so far, stop now); its history row is kept in ``rows_``."""
        loss = validation_loss(
            outputs, self.data.y, self.data.w, regression=self.regression
        )
        score = float(self.score(outputs, self.data))
        self.rows_.append(
            {
                "valid_score": score,
                "valid_loss": loss,
                "valid_loss_best": bool(loss < self.best_loss_),
            }
        )
        self.best_loss_ = min(self.best_loss_, loss)
        return self.observe(score)

    def observe(self, score):
        """Record an epoch's score; returns (is it the best so far, stop now)."""
        score = float(score)
        self.scores_.append(score)
        if score < self.best_score_ + self.tol:
            self.no_improvement_ += 1
        else:
            self.no_improvement_ = 0
        is_best = score > self.best_score_
        if is_best:
            self.best_score_ = score
        return is_best, self.no_improvement_ > self.n_iter_no_change


# -- the history: one writer -------------------------------------------------
# Every row of every fit's history is written by these functions, in this
# order: live by NetHooks as the loop runs (a fit with callbacks or verbose
# output, whose callbacks read the history as it grows), or by
# record_history once the loop has run (every other fit). skorch's own
# writers are off: the net's on_epoch_begin and on_batch_begin
# (_WeightedNet) and its EpochTimer callback (the loop times the epochs).


def begin_epoch(history):
    """A new epoch's row, numbered."""
    history.new_epoch()
    history.record("epoch", len(history))


def begin_batch(history):
    history.new_batch()


def end_batch(history, prefix, loss, rows):
    """A batch's loss and rows (``prefix``: "train" or "valid")."""
    history.record_batch(f"{prefix}_loss", loss)
    history.record_batch(f"{prefix}_batch_size", rows)


def count_batches(history, prefix, n):
    history.record(f"{prefix}_batch_count", n)


def end_epoch(history, loss, row, seconds, best=None):
    """The epoch's training loss (``train_loss_best`` as skorch's own
    train_loss scoring marks it: below every earlier epoch's; ``best``:
    the least earlier loss, when the caller keeps it), its validation row
    (or None) and its duration."""
    if best is None:
        best = min(_train_losses(history[:-1]), default=np.inf)
    history.record("train_loss", loss)
    history.record("train_loss_best", bool(loss < best))
    for key, value in (row or {}).items():
        history.record(key, value)
    history.record("dur", seconds)


def _train_losses(epochs):
    """The training losses of ``epochs`` (rows of a history)."""
    return [e["train_loss"] for e in epochs if "train_loss" in e]


def record_history(history, curve, epochs, rows=None, n_valid=0):
    """The epochs of a fit without callbacks, written once the loop has run
    by the writer NetHooks writes with as it runs: epoch number, batches
    (loss and rows), the validation batch (``n_valid`` held-out rows),
    training loss, validation row and duration, in that order of keys.
    ``epochs``: the loop's :class:`~skgate._engine.loop.EpochRecord` s."""
    best = min(_train_losses(list.__iter__(history)), default=np.inf)
    for epoch, (loss, record) in enumerate(zip(curve, epochs, strict=True)):
        begin_epoch(history)
        for batch_loss, size in zip(record.losses, record.sizes, strict=True):
            begin_batch(history)
            end_batch(history, "train", batch_loss, size)
        count_batches(history, "train", len(record.losses))
        row = None if rows is None else rows[epoch]
        if row is not None:
            begin_batch(history)
            end_batch(history, "valid", row["valid_loss"], n_valid)
            count_batches(history, "valid", 1)
        end_epoch(history, loss, row, record.seconds, best)
        best = min(best, loss)


def optimizer_entries(net):
    """The AdamW state of each weight training updates, by weight name: the
    net's optimiser's own dicts (empty before its first step), which the
    loop fills and updates in place."""
    params = dict(net.module_.named_parameters())
    return {
        name: net.optimizer_.state[params[name]]
        for name in trained_weights(net.module_)
        if params[name].requires_grad
    }


#: AdamW options the loop does not implement (a callback setting one fails).
_UNIMPLEMENTED_ADAMW = ("amsgrad", "maximize")


class NetHooks:
    """skorch's callback interface on the one loop, for a fit with callbacks
    or verbose output: the loop's epochs, batches, gradients and validations
    become the net's ``notify`` calls and history rows, as skorch's own loop
    makes them, and each step's learning rate and weight decay are read
    from the net's optimiser (so LRScheduler sets them).

    ``train`` and ``valid``: the training rows and the held-out rows (or
    None), as :class:`~skgate._engine.loop.Rows`.
    """

    def __init__(self, net, train, valid=None):
        self.net = net
        #: The history's rows before this fit (a partial_fit's or a warm
        #: start's are earlier fits').
        self.start = len(net.history)
        self.epoch_kwargs = {
            "dataset_train": _dataset(train),
            "dataset_valid": None if valid is None else _dataset(valid),
        }
        self.batch = None

    def finished_epochs(self):
        """How many of this fit's history rows were written through to
        their duration (an interrupt may cut the last one short)."""
        finished = 0
        for row in list.__iter__(self.net.history[self.start :]):
            if "dur" not in row:
                break
            finished += 1
        return finished

    def keep_epochs(self, n):
        """Keep this fit's first ``n`` history rows (the finished epochs)."""
        del self.net.history[self.start + n :]

    def _notify(self, method, **kwargs):
        """The net's ``notify`` during the loop: a callback's
        KeyboardInterrupt (skorch's way for a callback to stop training) is
        raised again as :class:`~skgate._engine.loop.CallbackStop`, which the
        loop tells from Ctrl-C."""
        try:
            self.net.notify(method, **kwargs)
        except KeyboardInterrupt as interrupt:
            if type(interrupt) is not KeyboardInterrupt:
                raise  # a command line's interruption: never a callback's
            raise CallbackStop(f"a callback stopped training in {method}") from None

    def fit_begin(self):
        self.net.notify("on_train_begin", X=self.epoch_kwargs["dataset_train"], y=None)

    def fit_end(self):
        for p in self.net.module_.parameters():
            p.grad = None  # the last step's gradients, views of the loop's
        self.net.notify("on_train_end", X=self.epoch_kwargs["dataset_train"], y=None)

    def epoch_begin(self):
        begin_epoch(self.net.history)
        self._notify("on_epoch_begin", **self.epoch_kwargs)

    def batch_begin(self, batch):
        self.batch = batch
        begin_batch(self.net.history)
        self._notify("on_batch_begin", batch=batch, training=True)

    def gradients(self, gradients):
        """The step's gradients, by weight name, shown as the weights'
        ``grad`` (a callback such as GradientNormClipping may change them
        in place before the update); a weight the output does not depend on
        shows zeros, as autograd gives it."""
        for name, p in self.net.module_.named_parameters():
            if name in gradients:
                p.grad = gradients[name]
            elif p.requires_grad and p.grad is None:
                p.grad = torch.zeros_like(p)
        self._notify(
            "on_grad_computed",
            named_parameters=TeeGenerator(self.net.get_all_learnable_params()),
            batch=self.batch,
            training=True,
        )

    def rates(self):
        """This step's AdamW settings from the net's optimizer, as a
        callback may have set them: ``lr``, ``weight_decay``, ``betas`` and
        ``eps``. AMSGrad and maximisation, which the loop does not
        implement, are refused."""
        group = self.net.optimizer_.param_groups[0]
        for flag in _UNIMPLEMENTED_ADAMW:
            if group.get(flag):
                raise NotImplementedError(
                    f"The optimizer's {flag}=True (set by a callback) is not "
                    f"implemented by skgate's training loop, which runs "
                    f"AdamW with {flag}=False."
                )
        # The optimiser has stepped (torch's schedulers check it).
        self.net.optimizer_._opt_called = True
        return {key: group[key] for key in ("lr", "weight_decay", "betas", "eps")}

    def frozen(self):
        """Names of the weights a callback froze (``requires_grad`` False)."""
        return {
            name
            for name, p in self.net.module_.named_parameters()
            if not p.requires_grad
        }

    def batch_end(self, batch, loss, y_pred):
        end_batch(self.net.history, "train", loss.item(), len(batch[1]))
        self._notify(
            "on_batch_end", batch=batch, training=True, loss=loss, y_pred=y_pred
        )

    def trained(self, n_batches):
        count_batches(self.net.history, "train", n_batches)

    def validated(self, data, outputs, row):
        """The held-out rows scored as one validation batch."""
        batch, history = _batch(data), self.net.history
        begin_batch(history)
        self._notify("on_batch_begin", batch=batch, training=False)
        end_batch(history, "valid", row["valid_loss"], len(data.y))
        loss = torch.tensor(row["valid_loss"])
        self._notify(
            "on_batch_end", batch=batch, training=False, loss=loss, y_pred=outputs
        )
        count_batches(history, "valid", 1)

    def epoch_end(self, loss, row, seconds):
        end_epoch(self.net.history, loss, row, seconds)
        self._notify("on_epoch_end", **self.epoch_kwargs)


class NetState:
    """What training changes in place in a fitted skorch net: the module's
    weights and gate strengths, the optimizer's state and rates, the
    history, the callbacks and the shuffling generator. Saved before a warm
    start or a partial_fit and put back if it fails, so that a failed fit
    leaves the model as it was."""

    def __init__(self, net):
        self.alphas = [block.alpha for block in net.module_.blocks]
        self.rates = (net.lr, net.optimizer__weight_decay)
        self.module = _cloned(net.module_.state_dict())
        self.optimizer = _cloned(net.optimizer_.state_dict())
        self.n_epochs = len(net.history)
        self.callbacks = list(getattr(net, "callbacks_", []))
        self.given = net.callbacks
        self.generator = net.iterator_train__generator.get_state()

    def restore(self, net):
        for block, alpha in zip(net.module_.blocks, self.alphas, strict=True):
            block.alpha = alpha
        net.lr, net.optimizer__weight_decay = self.rates
        net.module_.load_state_dict(self.module)
        net.optimizer_.load_state_dict(self.optimizer)
        del net.history[self.n_epochs :]
        net.callbacks_ = self.callbacks
        net.callbacks = self.given
        net.iterator_train__generator.set_state(self.generator)


def _cloned(state):
    """A copy of a (module's or optimizer's) state dict: tensors cloned,
    dicts and lists rebuilt, the rest (numbers, strings) shared: cheaper
    than ``copy.deepcopy``, which every partial_fit would pay
    (benchmarks/results/SPEED.md, "The engine's constants")."""
    if torch.is_tensor(state):
        return state.clone()
    if isinstance(state, dict):
        return {key: _cloned(value) for key, value in state.items()}
    if isinstance(state, list | tuple):
        return type(state)(_cloned(value) for value in state)
    return state


def same_tensors(first, second):
    """Whether two sequences of tensors are equal, shape and value."""
    return len(first) == len(second) and all(
        a.shape == b.shape and torch.equal(a, b)
        for a, b in zip(first, second, strict=True)
    )


def _is_callback(obj):
    return isinstance(obj, Callback) or (
        isinstance(obj, type) and issubclass(obj, Callback)
    )


def _instance(item):
    """A callback given as a class, made with no arguments (as skorch would
    make it), or a TypeError naming it; anything else as given."""
    named = isinstance(item, tuple) and len(item) == 2
    callback = _callback_of(item) if named else item
    if not (isinstance(callback, type) and issubclass(callback, Callback)):
        return item
    try:
        made = callback()
    except TypeError as exc:
        raise TypeError(
            f"callbacks: {callback.__name__} is a class, and making it without "
            f"arguments failed ({exc}); pass an instance, e.g. "
            f"{callback.__name__}(...)."
        ) from None
    return (item[0], made) if named else made


def _callback_of(item):
    """The callback of an item of ``callbacks``: a callback, or a ``(name,
    callback)`` pair as skorch takes them."""
    if isinstance(item, tuple):
        _, callback = item
        return callback
    return item


def check_callbacks(callbacks, *, validation, incremental):
    """A private copy of the ``callbacks`` parameter (a list or tuple, or None).

    ``validation``: whether a validation split is scored (early stopping).
    Without one, a callback monitoring or computing a validation score is
    refused in ``fit``; ``partial_fit`` (``incremental``), which never scores
    one (as MLPClassifier's), leaves such callbacks out of its epoch. A
    callback class is made with no arguments, as skorch would make it.
    """
    if callbacks is None:
        return []
    if not isinstance(callbacks, list | tuple):
        raise TypeError(
            f"callbacks must be None or a list of skorch callbacks; got "
            f"{type(callbacks).__name__}."
        )
    callbacks = [_instance(item) for item in callbacks]
    for item in callbacks:
        if isinstance(item, tuple):
            valid = (
                len(item) == 2 and isinstance(item[0], str) and _is_callback(item[1])
            )
        else:
            valid = _is_callback(item)
        if not valid:
            raise TypeError(
                f"callbacks must be None or a list of skorch callbacks (Callback "
                f"instances or (name, Callback) pairs); got the item {item!r}."
            )
    for item in callbacks:
        callback = _callback_of(item)
        if monitors_validation(callback) and not validation and not incremental:
            if _scores_validation(callback):
                what = (
                    f"scores {callback.name or callback.scoring!r} on the "
                    f"validation split (on_train=False)"
                )
                remedy = "or score the training data with on_train=True"
            else:
                what = f"monitors {callback.monitor!r}, a validation score"
                remedy = "or use monitor='train_loss'"
            raise ValueError(
                f"callbacks: {type(callback).__name__} {what}, but without early "
                f"stopping skgate trains on all of X and holds out no validation "
                f"split. Set early_stopping=True (a validation_fraction of X is "
                f"held out and scored every epoch), {remedy}."
            )
    # skorch initialises callbacks in place; a deep copy keeps the parameter as given.
    return [
        item
        for item in copy.deepcopy(list(callbacks))
        if not (incremental and monitors_validation(item))
    ]


def _scores_validation(callback):
    """Whether a skorch callback computes a score on the validation split."""
    return isinstance(callback, EpochScoring | BatchScoring) and not callback.on_train


def monitors_validation(callback):
    """Whether a skorch callback reads (or computes) a validation score
    every epoch."""
    callback = _callback_of(callback)
    monitor = getattr(callback, "monitor", None)
    return _scores_validation(callback) or (
        isinstance(monitor, str) and monitor.startswith("valid")
    )


def given(callbacks):
    """The callbacks parameter's objects (names and callbacks, flat), to tell
    later whether it changed: by identity (set_params, or a list edited in
    place), since callbacks do not compare by value."""
    return tuple(
        x
        for item in callbacks or ()
        for x in (item if isinstance(item, tuple) else (item,))
    )


def same_items(a, b):
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))

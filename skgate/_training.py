"""The skorch side of training: weighted mini-batches, a validation score, nets.

Private to :mod:`skgate.estimators`, which knows scikit-learn; this module
knows skorch and torch. Rows travel with their sample weights as skorch
recommends: a weighted batch is ``({"X": X, "sample_weight": weight}, y)``,
the targets stay a plain tensor (so skorch's scoring callbacks read them), the
module sees ``X`` alone, and the loss of a batch is the weighted mean of its
rows' losses. Without weights (``w=None``, also what equal weights become) a
batch is ``(X, y)`` and the loss is the criterion's own mean, bit for bit.
"""

import copy

import numpy as np
import torch
from skorch import NeuralNetClassifier, NeuralNetRegressor
from skorch.callbacks import Callback, PassthroughScoring
from skorch.dataset import Dataset, unpack_data

from ._batched import (
    add_batch_loss,
    epoch_loss,
    epoch_order,
    losses_and_gradients,
    mean_loss,
    pad_rows,
    padded_rows,
    trained_weights,
    validation_logits,
    validation_loss,
)


class WeightedData(Dataset):
    """Rows ``X``, targets ``y`` and weights ``w`` (tensors), read by slicing.

    A skorch ``Dataset`` (its own storage and indexing), so that skorch's
    callbacks find ``X`` and ``y`` in it, as in any skorch dataset.
    """

    def __init__(self, X, y, w):  # no super().__init__: nothing of it is used
        self.X, self.y, self.w = X, y, w

    def __len__(self):
        return len(self.X)

    def __getitem__(self, index):
        if self.w is None:
            return self.X[index], self.y[index]
        return {"X": self.X[index], "sample_weight": self.w[index]}, self.y[index]


class BatchIterator:
    """Mini-batches of a :class:`WeightedData`, cut by slicing.

    skorch's default, a torch ``DataLoader``, fetches rows one by one and
    collates them; here a batch is one indexing operation. The same batches
    (a fresh permutation each epoch when ``shuffle``, drawn from ``generator``:
    the fit's own, never torch's process-wide one), at a fraction of the cost
    for a small model.
    """

    def __init__(self, dataset, batch_size, shuffle=False, generator=None):
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.generator = generator

    def __len__(self):
        return -(-len(self.dataset) // self.batch_size)

    def __iter__(self):
        data, n = self.dataset, len(self.dataset)
        if self.shuffle:
            order = epoch_order(n, self.generator)
        else:
            order = torch.arange(n)
        if not isinstance(data, WeightedData):
            # A skorch Dataset (skorch's predict on an array, as its scoring
            # callbacks call it) indexes with arrays, not tensors.
            order = order.numpy()
        for start in range(0, n, self.batch_size):
            yield data[order[start : start + self.batch_size]]


class _WeightedNet:
    """A skorch net whose training steps are the engine's (:mod:`skgate._batched`).

    skorch's loop (batches, callbacks, history, its ``optimizer_``:
    :class:`~skgate._batched.FusedAdamW`) drives the computation every fit
    shares: a step pads its batch with rows of weight 0, as the
    batched trainer's batches are (:func:`~skgate._batched.padded_rows`),
    and computes the
    weighted mean loss and its gradients with
    :func:`~skgate._batched.losses_and_gradients` for a batch of one model;
    the epoch's train_loss is summed as the trainer sums it. So a model
    trained here (with callbacks, by partial_fit, from a warm start) is bit
    for bit the model the batched trainer trains. Train/eval mode is switched
    only when it changes (skorch sets it before every batch; ``Module.train``
    walks every submodule, 8 % of a small fit).
    """

    #: Whether the loss is the squared error (else cross-entropy).
    regression = False

    def infer(self, x, **fit_params):
        # A weighted batch's weights are for the loss, not the module.
        if isinstance(x, dict):
            x = x["X"]
        return super().infer(x, **fit_params)

    def train_step_single(self, batch, **fit_params):
        self._set_training(True)
        X, y = unpack_data(batch)
        w = X["sample_weight"] if isinstance(X, dict) else None
        X = X["X"] if isinstance(X, dict) else X
        n = len(X)
        w = torch.ones(n, dtype=X.dtype) if w is None else w
        rows = padded_rows(self.batch_size)
        X, y, w = (pad_rows(t, rows).to(self.device) for t in (X, y, w))
        module = self.module_
        names = trained_weights(module)
        weights = dict(module.named_parameters())
        params = [weights[name].detach().unsqueeze(0) for name in names]
        alphas = torch.tensor([module.blocks[0].alpha], dtype=torch.float32)
        loss, gradients, logits = losses_and_gradients(
            module,
            names,
            params,
            alphas.to(self.device),
            X[None],
            y[None],
            w[None],
            self.regression,
        )
        for name, gradient in zip(names, gradients, strict=True):
            weights[name].grad = gradient[0]
        return {"loss": loss[0], "y_pred": logits[0, :n]}

    def get_loss(self, y_pred, y_true, X=None, training=False):
        # A validation batch's loss (skorch's loop scores the held-out rows
        # batch by batch): the same rule as every other loss.
        weight = X["sample_weight"] if isinstance(X, dict) else None
        return mean_loss(y_pred, y_true, weight, self.regression)

    @property
    def _default_callbacks(self):
        return [
            (name, EpochTrainLoss(name=name, on_train=True))
            if name == "train_loss"
            else (name, callback)
            for name, callback in super()._default_callbacks
        ]

    def _set_training(self, training=True):
        if getattr(self, "module_", None) is None or self.module_.training != training:
            super()._set_training(training)


class EpochTrainLoss(PassthroughScoring):
    """skorch's train_loss, summed as the batched trainer sums it
    (:func:`~skgate._batched.add_batch_loss`, in float32)."""

    def get_avg_score(self, history):
        sizes, losses = zip(
            *history[-1, "batches", :, ["train_batch_size", self.name]], strict=True
        )
        total = torch.zeros((), dtype=torch.float32)
        for size, loss in zip(sizes, losses, strict=True):
            total = add_batch_loss(
                total, torch.tensor(loss, dtype=torch.float32), float(size)
            )
        return epoch_loss(total, sum(sizes))


class WeightedNeuralNetClassifier(_WeightedNet, NeuralNetClassifier):
    pass


class WeightedNeuralNetRegressor(_WeightedNet, NeuralNetRegressor):
    regression = True


class ValidationScore(Callback):
    """Score a held-out split after every epoch; stop when it stops improving.

    MLPClassifier's early stopping: an epoch improves when its score exceeds
    the best so far by more than ``tol``; after more than ``n_iter_no_change``
    epochs without improvement training stops, and the weights of the best
    epoch are restored. ``score(outputs, data)`` maps the network's outputs on
    the held-out rows to a number (higher is better), weighted by their
    sample weights; ``regression`` chooses the loss (see
    :func:`~skgate._batched.validation_loss`). Each epoch's row of the
    history ("valid_score", "valid_loss", "valid_loss_best") is
    :meth:`evaluate`'s, whichever loop trained the model.
    """

    def __init__(self, data, score, n_iter_no_change, tol, regression=False):
        self.data = data
        self.score = score
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.regression = regression

    def initialize(self):
        self.scores_, self.best_score_ = [], -np.inf
        self.best_state_, self.no_improvement_ = None, 0
        self.rows_, self.best_loss_ = [], np.inf
        return self

    def evaluate(self, outputs):
        """Score an epoch's outputs on the held-out rows: (is it the best
        epoch so far, stop now); its history row is kept in ``rows_``."""
        loss = validation_loss(outputs, self.data.y, self.data.w, self.regression)
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

    def on_epoch_end(self, net, **kwargs):
        module = net.module_
        params = {
            name: p.detach().unsqueeze(0) for name, p in module.named_parameters()
        }
        outputs = validation_logits(
            module, params, module.blocks[0].alpha, self.data.X.to(net.device)
        ).cpu()
        is_best, stop = self.evaluate(outputs)
        for key, value in self.rows_[-1].items():
            net.history.record(key, value)
        if is_best:
            self.best_state_ = copy.deepcopy(module.state_dict())
        if stop:
            raise KeyboardInterrupt  # skorch's way to end training early

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

    def on_train_end(self, net, **kwargs):
        if self.best_state_ is not None:
            net.module_.load_state_dict(self.best_state_)
        # Done: the held-out rows and the best weights need not ride along
        # in every pickle of the fitted model.
        self.data = self.best_state_ = None


def same_tensors(first, second):
    """Whether two sequences of tensors are equal, shape and value."""
    return len(first) == len(second) and all(
        a.shape == b.shape and torch.equal(a, b)
        for a, b in zip(first, second, strict=True)
    )

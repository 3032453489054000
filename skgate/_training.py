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
from skorch.callbacks import Callback
from skorch.dataset import Dataset


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
            order = torch.randperm(n, generator=self.generator)
        else:
            order = torch.arange(n)
        if not isinstance(data, WeightedData):
            # A skorch Dataset (skorch's predict on an array, as its scoring
            # callbacks call it) indexes with arrays, not tensors.
            order = order.numpy()
        for start in range(0, n, self.batch_size):
            yield data[order[start : start + self.batch_size]]


class _WeightedNet:
    """A skorch net whose loss is the weighted mean of the rows' losses, and
    that switches train/eval mode only when it changes (skorch sets it before
    every batch; ``Module.train`` walks every submodule, 8 % of a small fit)."""

    def infer(self, x, **fit_params):
        # A weighted batch's weights are for the loss, not the module.
        if isinstance(x, dict):
            x = x["X"]
        return super().infer(x, **fit_params)

    def get_loss(self, y_pred, y_true, X=None, training=False):
        if not isinstance(X, dict):
            return super().get_loss(y_pred, y_true, X=X, training=training)
        weight = X["sample_weight"]
        per_row = type(self.criterion_)(reduction="none")
        losses = per_row(y_pred, y_true.to(y_pred.device))
        losses = losses.reshape(len(losses), -1).mean(dim=1)  # mean over outputs
        weight = weight.to(losses.device)
        total = weight.sum()
        if total == 0:  # a batch of rows that do not count
            return (losses * weight).sum()
        return (losses * weight).sum() / total

    def _set_training(self, training=True):
        if getattr(self, "module_", None) is None or self.module_.training != training:
            super()._set_training(training)


class WeightedNeuralNetClassifier(_WeightedNet, NeuralNetClassifier):
    pass


class WeightedNeuralNetRegressor(_WeightedNet, NeuralNetRegressor):
    pass


class ValidationScore(Callback):
    """Score a held-out split after every epoch; stop when it stops improving.

    MLPClassifier's early stopping: an epoch improves when its score exceeds
    the best so far by more than ``tol``; after more than ``n_iter_no_change``
    epochs without improvement training stops, and the weights of the best
    epoch are restored. ``score(outputs, data)`` maps the network's outputs on
    the held-out rows to a number (higher is better), weighted by their
    sample weights. The scores are recorded in the history as "valid_score".
    """

    def __init__(self, data, score, n_iter_no_change, tol):
        self.data = data
        self.score = score
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol

    def initialize(self):
        self.scores_, self.best_score_ = [], -np.inf
        self.best_state_, self.no_improvement_ = None, 0
        return self

    def on_epoch_end(self, net, **kwargs):
        module = net.module_
        training = module.training
        module.eval()
        with torch.no_grad():
            outputs = module(self.data.X.to(net.device)).cpu()
        module.train(training)
        score = float(self.score(outputs, self.data))
        net.history.record("valid_score", score)
        is_best, stop = self.observe(score)
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

"""scikit-learn estimators around :class:`skgate.nn.GatedAttentionNet`, via skorch.

This module knows scikit-learn and skorch. The estimators are plain
scikit-learn estimators: ``__init__`` stores the parameters, ``fit`` validates
them and the data, then builds and trains a skorch net kept as ``net_``. Every
hyper-parameter is top-level, so ``clone``, ``GridSearchCV`` and Pipelines work
without skorch's ``module__`` prefixes.
"""

import copy
import inspect
from abc import ABCMeta, abstractmethod
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from skorch import NeuralNetClassifier, NeuralNetRegressor
from skorch.callbacks import Callback

from . import geometry
from ._docstrings import fill_docstring
from .geometry import documents_curvature_keywords
from .nn import GATES, HEADS, LAYERS, GatedAttentionNet, RepresentationMap

__all__ = ["GatedAttentionClassifier", "GatedAttentionRegressor"]

_FLOAT32_MAX = float(np.finfo(np.float32).max)

# The network's architecture keywords; the estimator passes its parameters of
# the same names through, so each is declared once, in the estimator's signature.
_NET_PARAMETERS = tuple(
    name
    for name, parameter in inspect.signature(GatedAttentionNet).parameters.items()
    if parameter.kind is inspect.Parameter.KEYWORD_ONLY
)

# Rows per forward pass at prediction time: large enough to amortise the
# per-call overhead, small enough to keep memory bounded on huge inputs.
_PREDICT_CHUNK = 8192


class _BatchIterator:
    """Mini-batches of a skorch ``Dataset`` of tensors, cut by slicing.

    skorch's default, a torch ``DataLoader``, fetches rows one by one and
    collates them; here a batch is one indexing operation. The same batches
    (a fresh permutation each epoch when ``shuffle``, drawn from ``generator``:
    the fit's own, never torch's process-wide one), at a fraction of the cost
    for a small model.
    """

    def __init__(self, dataset, batch_size, shuffle=False, generator=None):
        self.X, self.y = dataset.X, dataset.y
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.generator = generator

    def __len__(self):
        return -(-len(self.X) // self.batch_size)

    def __iter__(self):
        n = len(self.X)
        if self.shuffle:
            order = torch.randperm(n, generator=self.generator)
        else:
            order = torch.arange(n)
        for start in range(0, n, self.batch_size):
            index = order[start : start + self.batch_size]
            yield self.X[index], self.y[index]


class _ModeOnce:
    """A skorch net that switches train/eval mode only when it changes.

    skorch sets the mode before every batch; ``Module.train`` walks every
    submodule each time, about 8 % of a fit of this small model.
    """

    def _set_training(self, training=True):
        if getattr(self, "module_", None) is None or self.module_.training != training:
            super()._set_training(training)


class _NeuralNetClassifier(_ModeOnce, NeuralNetClassifier):
    pass


class _NeuralNetRegressor(_ModeOnce, NeuralNetRegressor):
    pass


def _is_callback(obj):
    return isinstance(obj, Callback) or (
        isinstance(obj, type) and issubclass(obj, Callback)
    )


def _check_callbacks(callbacks):
    """A private copy of the ``callbacks`` parameter (a list or tuple, or None)."""
    if callbacks is None:
        return []
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
        callback = item[1] if isinstance(item, tuple) else item
        monitor = getattr(callback, "monitor", None)
        if isinstance(monitor, str) and monitor.startswith("valid"):
            raise ValueError(
                f"callbacks: {type(callback).__name__} monitors {monitor!r}, a "
                f"validation score, but skgate trains on all of X and scores no "
                f"validation split. Use monitor='train_loss' (or "
                f"'train_loss_best' for Checkpoint), or select epochs by "
                f"cross-validation (GridSearchCV over max_epochs)."
            )
    # skorch initialises callbacks in place; a deep copy keeps the parameter as given.
    return copy.deepcopy(list(callbacks))


def _check_device(device):
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
    if parsed.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} but torch.cuda.is_available() is False; "
            f"use device='cpu'."
        )
    return device


#: Targets beyond this magnitude are standardised through y / max|y|.
_HUGE_TARGET = 1e100

#: Above this gate strength the gate's range (1 - alpha, 1 + alpha) is wide
#: enough to blow up activations; a divergence then names alpha first.
_LARGE_ALPHA = 100.0


def _check_converged(net, X, estimator):
    """Raise if training left non-finite weights, instead of predicting NaN later."""
    if all(torch.isfinite(p).all() for p in net.module_.parameters()):
        return
    losses = net.history[:, "train_loss"] if len(net.history) else []
    causes = [
        f"X has values of magnitude up to {np.abs(X).max():.3g} (scale X first, "
        f"e.g. with StandardScaler)",
        f"lr={estimator.lr:g} (lower it)",
    ]
    if estimator.gate == "multiplicative" and estimator.alpha > _LARGE_ALPHA:
        causes.insert(
            0,
            f"alpha={estimator.alpha:g} multiplies the attention output by up to "
            f"1 + alpha (use alpha <= {_LARGE_ALPHA:g}; 0 to 2 is the useful range)",
        )
    raise ValueError(
        f"Training diverged: the weights became non-finite (train_loss per "
        f"epoch: {[float(loss) for loss in losses]}). Likely causes: "
        + "; ".join(causes)
        + "."
    )


class _GatedAttentionBase(BaseEstimator, metaclass=ABCMeta):
    """What the gated attention estimators share: parameters, training, forward passes.

    A subclass sets ``_net_class`` (a skorch net), ``_criterion``, the
    skorch default callbacks it does not need (``_unused_callbacks``) and how
    ``y`` is validated (``_y_checks``), and implements the abstract hook
    ``_prepare_targets(y) -> (y_for_net, n_outputs)``. The signature of
    ``__init__`` here declares every parameter of both estimators.
    """

    _unused_callbacks = ()
    _y_checks = {}

    _parameter_constraints = {
        "gate": [StrOptions(set(GATES))],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "depth": [Interval(Integral, 1, None, closed="left")],
        "d_model": [Interval(Integral, 1, None, closed="left")],
        "n_tokens": [Interval(Integral, 1, None, closed="left")],
        "token_dim": [None, Interval(Integral, 1, None, closed="left")],
        "head": [StrOptions(set(HEADS))],
        # 0 epochs is allowed: a fitted model at initialisation.
        "max_epochs": [Interval(Integral, 0, None, closed="left")],
        "lr": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "weight_decay": [Interval(Real, 0, None, closed="left")],
        "callbacks": [None, list, tuple],
        "device": [str, torch.device],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        gate="multiplicative",
        *,
        alpha=1.0,
        depth=1,
        d_model=64,
        n_tokens=8,
        token_dim=None,
        head="mlp",
        max_epochs=20,
        lr=2e-3,
        batch_size=64,
        weight_decay=1e-2,
        callbacks=None,
        device="cpu",
        random_state=None,
        verbose=0,
    ):
        # The signature is the one declaration of every hyper-parameter; the
        # body stores them (and only them) under the same names.
        for name in self._get_param_names():
            setattr(self, name, locals()[name])

    # -- validation ---------------------------------------------------------

    def _validate_X(self, X, y=None, *, reset):
        """Validate X (and y at fit) like scikit-learn; return float64 X."""
        if reset:
            X, y = validate_data(self, X, y, dtype=np.float64, **self._y_checks)
        else:
            X = validate_data(self, X, reset=False, dtype=np.float64)
        # Any layout (reversed, strided, Fortran): torch reads C-contiguous rows.
        X = np.ascontiguousarray(X)
        # Checked in float64, before the cast: a value beyond float32's range
        # would become inf in the model and its outputs NaN.
        if X.size and np.abs(X).max() > _FLOAT32_MAX:
            raise ValueError(
                f"X has a value of magnitude {np.abs(X).max():.3g}, beyond the "
                f"float32 range of the model (<= {_FLOAT32_MAX:.3g}); scale X "
                f"first, e.g. with sklearn.preprocessing.StandardScaler."
            )
        return (X, y) if reset else X

    def _check_token_dim(self, n_features):
        if self.token_dim is not None and n_features % self.token_dim:
            raise ValueError(
                f"token_dim={self.token_dim} does not divide the number of "
                f"features of X ({n_features}); allowed: None (copied tokens) or "
                f"a divisor of {n_features}."
            )

    @abstractmethod
    def _prepare_targets(self, y):
        """Validate ``y`` and encode it for the net: ``(y_for_net, n_outputs)``."""

    # -- training -----------------------------------------------------------

    def _build_module(self, n_features, n_outputs, generator):
        """The network in float32, its weights drawn from ``generator`` alone.

        Built on the meta device (no numbers, no random draws), then given
        storage and initialised by ``reset_parameters(generator)``: the same
        weights as a construction under ``torch.manual_seed``, without touching
        torch's process-wide generator or its default dtype.
        """
        architecture = {name: getattr(self, name) for name in _NET_PARAMETERS}
        with torch.device("meta"):
            module = GatedAttentionNet(n_features, n_outputs, **architecture)
        module = module.to_empty(device=self.device).to(torch.float32)
        module.reset_parameters(generator)
        return module

    def _build_net(self, module, callbacks, generator):
        return self._net_class(
            module=module,
            criterion=self._criterion,
            optimizer=torch.optim.AdamW,
            lr=self.lr,
            optimizer__weight_decay=self.weight_decay,
            # The fused kernel: the same update, a third less time on the CPU.
            optimizer__fused=torch.device(self.device).type in ("cpu", "cuda"),
            max_epochs=self.max_epochs,
            batch_size=self.batch_size,
            iterator_train=_BatchIterator,
            iterator_valid=_BatchIterator,
            iterator_train__shuffle=True,
            iterator_train__generator=generator,
            # Without a validation split these defaults score nothing.
            **{f"callbacks__{name}": None for name in self._unused_callbacks},
            # All of X trains, as in any scikit-learn estimator; validate with
            # cross-validation or pass a skorch train split through callbacks.
            train_split=None,
            callbacks=callbacks,
            device=self.device,
            verbose=self.verbose,
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Train a fresh network on ``X, y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite numbers; a DataFrame's column names are kept as
            ``feature_names_in_``.
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        # Atomic: a fit that fails leaves the estimator as it was (fitted with
        # its old network, labels and scales, or unfitted), never a mixture.
        before = dict(vars(self))
        try:
            return self._fit(X, y)
        except BaseException:
            vars(self).clear()
            vars(self).update(before)
            raise

    def _fit(self, X, y):
        callbacks = _check_callbacks(self.callbacks)
        _check_device(self.device)
        X, y = self._validate_X(X, y, reset=True)
        self._check_token_dim(X.shape[1])
        y_net, n_outputs = self._prepare_targets(y)
        seed = int(check_random_state(self.random_state).randint(2**31 - 1))
        # The fit's own random stream: weights and shuffling depend on
        # random_state alone, whatever other threads draw, and torch's
        # process-wide generator is never used.
        generator = torch.Generator().manual_seed(seed)
        # Training needs autograd, even when the caller is in inference mode.
        with torch.inference_mode(False), torch.enable_grad():
            module = self._build_module(X.shape[1], n_outputs, generator)
            net = self._build_net(module, callbacks, generator)
            net.fit(torch.from_numpy(X.astype(np.float32)), torch.from_numpy(y_net))
        _check_converged(net, X, self)
        self.net_ = net
        self.history_ = net.history
        return self

    # -- forward passes -----------------------------------------------------

    def _float64_module(self):
        """A float64 copy of the trained network, in evaluation mode."""
        return copy.deepcopy(self.net_.module_).double().eval()

    def _forward(self, X, layer):
        """The module's output at ``layer`` for validated ``X``, in float64 chunks.

        Training runs in float32; inference uses a float64 copy of the trained
        weights. In float32 a row's output changes in the last bits with the
        size of the batch it is computed in (BLAS picks kernels by shape); in
        float64 those differences are ~1e-16, so a prediction depends on its
        row alone, and the geometry can reuse the same forward pass.
        """
        module = self._float64_module()
        device = self.net_.device
        result = None
        with torch.inference_mode():
            for start in range(0, len(X), _PREDICT_CHUNK):
                # A copy: validated X may be a read-only view of the caller's data.
                chunk = torch.tensor(X[start : start + _PREDICT_CHUNK])
                out = module.representation(chunk.to(device), layer).cpu().numpy()
                if result is None:
                    # One array filled chunk by chunk: memory stays at the
                    # result plus one chunk's work, however many rows.
                    result = np.empty((len(X), *out.shape[1:]), dtype=out.dtype)
                result[start : start + len(out)] = out
        if not np.isfinite(result).all():
            raise ValueError(
                f"The network's output is not finite for X with values of "
                f"magnitude up to {np.abs(X).max():.3g}; scale X like the "
                f"training data."
            )
        return result

    def representation(self, X, layer="attention"):
        """The network's representation of ``X`` at ``layer``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        {layer}

        Returns
        -------
        ndarray of float64
            Computed with a float64 copy of the trained weights, so that a
            row's value does not depend on the rest of its batch.
        """
        check_is_fitted(self)
        _check_layer(layer, "representation")
        return self._forward(self._validate_X(X, reset=False), layer)

    def curvature(self, X, *, layer="attention", **kwargs):
        """Curvature of the representation at each row of ``X``.

        The same as :func:`skgate.representation_curvature` ``(self, X, ...)``:
        the curvature of ``x -> representation(x, layer)`` measured by
        :func:`skgate.geometry.curvature` in float64; with ``method="exact"``
        the derivatives come from the network's own second-order forward pass.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        {layer}
        {curvature_keywords}

        Returns
        -------
        kappa : ndarray of shape (n_samples,), float64
            One value per row of ``X``, averaged over the input directions.

        Examples
        --------
        >>> from sklearn.datasets import make_moons
        >>> from skgate import GatedAttentionClassifier
        >>> X, y = make_moons(100, random_state=0)
        >>> ungated = GatedAttentionClassifier(alpha=0.0, max_epochs=2,
        ...                                    random_state=0).fit(X, y)
        >>> bool(ungated.curvature(X).max() < 1e-9)  # copied tokens: flat
        True
        >>> gated = GatedAttentionClassifier(alpha=1.0, max_epochs=2,
        ...                                  random_state=0).fit(X, y)
        >>> bool(gated.curvature(X).min() > 0)
        True
        """
        check_is_fitted(self)
        _check_layer(layer, "curvature")
        X = self._validate_X(X, reset=False)
        module = self._float64_module().cpu()
        f = RepresentationMap(module, layer, token_rms=True)
        return geometry.curvature(f, X, **kwargs)


#: Where a representation is read: the constraint every ``layer`` argument shares.
LAYER_CONSTRAINTS = {
    "layer": [StrOptions(set(LAYERS)), Interval(Integral, None, None, closed="neither")]
}

#: The ``layer`` parameter's documentation, shared by every function that takes it.
LAYER_DOC = """\
layer : "attention", int, "pooled" or "logits", default="attention"
    "attention": the last block's output before pooling, shape
    (n_samples, n_tokens, d_model); an int: that block's output (0-based;
    negative counts from the end); "pooled": the mean over tokens,
    (n_samples, d_model); "logits": the head's output."""


def _check_layer(layer, caller_name):
    validate_parameter_constraints(LAYER_CONSTRAINTS, {"layer": layer}, caller_name)


fill_docstring(_GatedAttentionBase.representation, layer=LAYER_DOC)
fill_docstring(_GatedAttentionBase.curvature, layer=LAYER_DOC)
documents_curvature_keywords(_GatedAttentionBase.curvature)


class GatedAttentionClassifier(ClassifierMixin, _GatedAttentionBase):
    """Gated attention classifier: scikit-learn estimator, skorch and PyTorch inside.

    Each row of ``X`` is embedded as a token (copied ``n_tokens`` times) or read
    as a sequence of ``token_dim``-wide tokens, passed through ``depth`` single-head
    attention blocks whose output is gated, mean-pooled, and classified by a
    small head. Trained with AdamW on the cross-entropy loss.

    Parameters
    ----------
    gate : {"multiplicative", "silu", "none"}, default="multiplicative"
        "multiplicative": ``out = a * (1 + alpha * tanh(h W_g + b_g))`` with the
        gate computed from the block's input at the same token; "silu":
        ``out = silu(a)``; "none": ungated attention ``out = a``.
    alpha : float >= 0, default=1.0
        Gate strength for ``gate="multiplicative"`` (the gate ranges over
        ``(1 - alpha, 1 + alpha)``); ``alpha=0`` is exactly ungated attention.
        Ignored by the other gates.
    depth : int >= 1, default=1
        Number of stacked attention blocks.
    d_model : int >= 1, default=64
        Token width.
    n_tokens : int >= 1, default=8
        Copies of the embedded row when ``token_dim`` is None.
    token_dim : int >= 1 or None, default=None
        None: each row is one token. An int dividing ``n_features``: each row is
        a sequence of ``n_features // token_dim`` tokens, in column order, with
        a learned positional embedding.
    head : {"mlp", "linear"}, default="mlp"
        "mlp": two layers with a GELU between them; "linear": one layer.
    max_epochs : int >= 0, default=20
        Passes over the training data (0 leaves the network at initialisation).
    lr : float > 0, default=2e-3
        AdamW learning rate.
    batch_size : int >= 1, default=64
        Rows per optimisation step.
    weight_decay : float >= 0, default=1e-2
        AdamW weight decay.
    callbacks : list of skorch callbacks or None, default=None
        Extra skorch callbacks (instances or ``(name, callback)`` pairs), added
        to skorch's defaults; copied at ``fit``, so the parameter stays as given.
    device : str, default="cpu"
        Torch device to train and predict on.
    random_state : int, RandomState instance or None, default=None
        Seeds the weights and the shuffling. The same value and data give
        bit-identical predictions, fit after fit; the global torch RNG is left
        untouched.
    verbose : int, default=0
        1 prints skorch's per-epoch table (epoch, train loss, duration).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels seen in ``fit``, sorted; any type ``np.unique`` sorts.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when ``X`` was a DataFrame with string column names.
    net_ : skorch.NeuralNetClassifier
        The trained skorch net; ``net_.module_`` is the
        :class:`skgate.nn.GatedAttentionNet`.
    history_ : skorch.History
        Per-epoch training history (``history_[:, "train_loss"]``).

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from sklearn.model_selection import train_test_split
    >>> from skgate import GatedAttentionClassifier
    >>> X, y = make_moons(400, noise=0.1, random_state=0)
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    >>> clf = GatedAttentionClassifier(alpha=1.0, random_state=0)
    >>> clf.fit(X_train, y_train).score(X_test, y_test) > 0.8
    True
    >>> clf.predict_proba(X_test[:2]).shape
    (2, 2)
    >>> clf.representation(X_test[:2]).shape
    (2, 8, 64)
    """

    _net_class = _NeuralNetClassifier
    _criterion = torch.nn.CrossEntropyLoss
    _unused_callbacks = ("valid_loss", "valid_acc")

    def _prepare_targets(self, y):
        try:
            check_classification_targets(y)
            self.classes_, y_encoded = np.unique(y, return_inverse=True)
        except TypeError as exc:
            kinds = sorted({type(label).__name__ for label in y})
            raise TypeError(
                f"y mixes labels of types {kinds}, which cannot be sorted into "
                f"classes_; allowed: labels of one type (all numbers or all "
                f"strings)."
            ) from exc
        if len(self.classes_) < 2:
            raise ValueError(
                f"y has 1 class ({self.classes_[0]!r}); {type(self).__name__} "
                f"needs at least 2 classes."
            )
        return y_encoded.astype(np.int64), len(self.classes_)

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes), float64
            Each row sums to 1; computed from the float64 logits.
        """
        return torch.softmax(self._logits(X), dim=1).numpy()

    def predict_log_proba(self, X):
        """Log of :meth:`predict_proba`, computed stably from the logits.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Validated as in :meth:`predict_proba`.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes), float64
            ``log_softmax`` of the logits: finite where ``log(predict_proba)``
            would underflow to ``-inf``.
        """
        return torch.log_softmax(self._logits(X), dim=1).numpy()

    def _logits(self, X):
        return torch.from_numpy(self.representation(X, layer="logits"))

    def predict(self, X):
        """The most probable class of each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,), labels from ``classes_``
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class GatedAttentionRegressor(RegressorMixin, _GatedAttentionBase):
    """Gated attention regressor: the classifier's model with a regression head.

    The same network, parameters and training as
    :class:`GatedAttentionClassifier`, trained with skorch's
    ``NeuralNetRegressor`` on the mean squared error. ``head`` shapes the map
    from the pooled representation to the ``n_outputs_`` targets. Targets are
    standardised inside (``y_mean_``, ``y_scale_``) and predictions mapped
    back, so the learning rate suits targets of any scale; ``score`` is R².

    Parameters
    ----------
    gate, alpha, depth, d_model, n_tokens, token_dim, head, max_epochs, lr,
    batch_size, weight_decay, callbacks, device, random_state, verbose
        As for :class:`GatedAttentionClassifier`.

    Attributes
    ----------
    n_outputs_ : int
        Number of regression targets (columns of ``y``).
    y_mean_, y_scale_ : ndarray of shape (n_outputs_,)
        Mean and standard deviation (1 where it is 0) of the training targets.
    n_features_in_, feature_names_in_, net_, history_
        As for :class:`GatedAttentionClassifier`; ``net_`` is a
        ``skorch.NeuralNetRegressor``.

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from skgate import GatedAttentionRegressor
    >>> X, y = make_friedman1(400, random_state=0)
    >>> reg = GatedAttentionRegressor(max_epochs=30, random_state=0).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    >>> reg.score(X, y) > 0.5
    True
    """

    _net_class = _NeuralNetRegressor
    _criterion = torch.nn.MSELoss
    _unused_callbacks = ("valid_loss",)
    _y_checks = {"y_numeric": True, "multi_output": True}

    def _prepare_targets(self, y):
        try:
            y2d = np.asarray(y, dtype=np.float64).reshape(len(y), -1)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"y must hold numbers for {type(self).__name__}; got dtype "
                f"{np.asarray(y).dtype} ({exc}). For labels use "
                f"GatedAttentionClassifier."
            ) from exc
        self.n_outputs_ = y2d.shape[1]
        # y.std() squares y and overflows float64 from |y| ~ 1e154 on: huge
        # targets are standardised through y / peak, scaled back.
        peak = np.abs(y2d).max(axis=0, initial=0)
        unit = np.where(peak > _HUGE_TARGET, peak, 1.0)
        self.y_mean_ = (y2d / unit).mean(axis=0) * unit
        scale = (y2d / unit).std(axis=0) * unit
        self.y_scale_ = np.where(scale > 0, scale, 1.0)
        y_standard = (y2d / unit - self.y_mean_ / unit) / (self.y_scale_ / unit)
        if np.abs(y_standard).max(initial=0) > _FLOAT32_MAX:
            raise ValueError("y has values too far apart for float32 training.")
        return y_standard.astype(np.float32), self.n_outputs_

    def predict(self, X):
        """Predicted targets.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) with one target, else (n_samples, n_outputs_)
        """
        check_is_fitted(self)
        standard = self.representation(X, layer="logits")
        y = standard * self.y_scale_ + self.y_mean_
        return y.ravel() if self.n_outputs_ == 1 else y

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

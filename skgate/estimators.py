"""scikit-learn estimators around :class:`skgate.nn.GatedAttentionNet`.

This module knows scikit-learn and skorch. The estimators are plain
scikit-learn estimators: ``__init__`` stores the parameters, ``fit`` validates
them and the data, then trains the network with skgate's own engine
(:mod:`skgate._engine`, its one loop), whose fitted container, a skorch net
holding the module, its optimizer and history, is kept as ``net_``. Every
hyper-parameter is top-level, so ``clone``, ``GridSearchCV`` and Pipelines work
without skorch's ``module__`` prefixes.
"""

import inspect
import textwrap
from abc import ABCMeta, abstractmethod
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    _fit_context,
)
from sklearn.metrics import r2_score
from sklearn.utils._param_validation import (
    Interval,
    StrOptions,
)
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import (
    check_is_fitted,
)

from . import _training
from ._design import build_network, net_parameters, resolve_design
from ._docstrings import fill_docstring
from ._engine import WeightedNeuralNetClassifier, WeightedNeuralNetRegressor
from ._inputs import (
    FLOAT32_MAX,
    ChecksInputs,
    binade,
    check_class_weight_value,
    check_labels,
    standardise,
)
from ._options import LR_SCHEDULES
from ._params import refuse_bools
from ._pickling import CarriesGate
from ._represent import Represents
from .nn import (
    ATTENTIONS,
    EMBEDDINGS,
    GATE_GAIN,
    GATES,
    HEADS,
    NORMS,
    POSITIONS,
)

__all__ = ["GatedAttentionClassifier", "GatedAttentionRegressor"]


class _GatedAttentionBase(
    CarriesGate, ChecksInputs, Represents, BaseEstimator, metaclass=ABCMeta
):
    """What the gated attention estimators share: their parameters and training.

    What X and y may be is the mixin :class:`~skgate._inputs.ChecksInputs`;
    forward passes, representations and curvature are
    :class:`~skgate._represent.Represents`.

    A subclass sets ``_net_class`` (the skorch net that holds the fitted
    module, history and optimiser), the skorch default callbacks it does not
    need (``_unused_callbacks``) and how ``y`` is validated (``_y_checks``),
    and implements the abstract hooks ``_prepare_targets(y, reset=...,
    classes=...) -> (y_for_net, n_outputs)`` and ``_validation_score(outputs,
    data)``; a fit hands these to the engine as its
    :class:`~skgate._engine.spec.TrainingSpec` (:mod:`skgate._training`),
    whose loss is a classifier's cross-entropy or a regressor's squared
    error. The signature of ``__init__`` here declares every parameter both
    estimators share.
    """

    _unused_callbacks = ()
    _y_checks = {}
    #: The gate projection's initialisation gain (:data:`skgate.nn.GATE_GAIN`,
    #: :class:`~skgate.nn.GatedAttentionNet`'s ``gate_gain``): a class
    #: attribute, not a parameter; a subclass sets another to start the gate
    #: elsewhere (``1 / math.sqrt(3)`` is PyTorch's ``nn.Linear`` default).
    gate_gain = GATE_GAIN

    _parameter_constraints = {
        # The registry's live names: a gate registered later is valid too.
        "gate": [StrOptions(GATES.keys())],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "depth": [Interval(Integral, 1, None, closed="left")],
        "d_model": [Interval(Integral, 1, None, closed="left")],
        "n_tokens": [Interval(Integral, 1, None, closed="left")],
        "token_dim": [None, Interval(Integral, 1, None, closed="left")],
        "patch_size": [
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
        ],
        "head": [StrOptions({"auto", *HEADS})],
        "n_heads": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "residual": [StrOptions({"auto"}), "boolean"],
        "norm": [None, StrOptions({"auto"} | {n for n in NORMS if n is not None})],
        "attention": [StrOptions(set(ATTENTIONS))],
        "embedding": [StrOptions({"auto", *EMBEDDINGS})],
        "d_ff": [
            None,
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
        ],
        "dropout": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="left")],
        "position": [StrOptions({"auto", *POSITIONS})],
        "lr_schedule": [StrOptions({"auto", *LR_SCHEDULES})],
        "warmup_fraction": [Interval(Real, 0, 1, closed="both")],
        # 0 epochs is allowed: a fitted model at initialisation.
        "max_epochs": [
            StrOptions({"auto"}),
            Interval(Integral, 0, None, closed="left"),
        ],
        "lr": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
        ],
        "weight_decay": [Interval(Real, 0, None, closed="left")],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        "callbacks": [None, list, tuple],
        "device": [str, torch.device],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def _validate_params(self):
        refuse_bools(self)  # before scikit-learn's own checks, which take True
        super()._validate_params()

    @abstractmethod
    def _prepare_targets(self, y, *, reset, classes=None):
        """Validate ``y``, set or check the fitted target attributes (``classes_``
        or the target scales) and encode ``y`` for the net: ``(y_net, n_outputs)``.

        ``reset``: a fresh fit; otherwise ``y`` must fit the fitted model.
        """

    @abstractmethod
    def _validation_score(self, outputs, data):
        """Score (higher is better) of the net's ``outputs`` on held-out ``data``."""

    def _class_weights(self, y_net):
        """Per-row weights from ``class_weight`` (None: no class weighting)."""
        return None

    # -- training -----------------------------------------------------------

    def _architecture(self):
        """What shapes the network, as this fit resolves it: the network's
        parameters but alpha ("auto" as the design makes it), and
        patch_size (the tokens a series becomes are the network's input)."""
        design = self._design()
        return tuple(
            (name, design[name] if name in design else getattr(self, name))
            for name in (*net_parameters(type(self)), "patch_size")
            if name != "alpha"
        )

    def _design(self):
        """The design's parameters as this fit resolves them
        (:func:`skgate._design.resolve_design`)."""
        return resolve_design(self)

    def _build_module(self, n_features, n_outputs, generator):
        """The network in float32, its weights drawn from ``generator``
        alone (:func:`skgate._design.build_network`)."""
        return build_network(self, n_features, n_outputs, generator)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Train the network on ``X, y``: afresh, or on from the fitted one with
        ``warm_start=True``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or series
            Finite numbers; a DataFrame's column names are kept as
            ``feature_names_in_``. Series: a 3-D array (n_cases,
            n_channels, n_timepoints), or a list of 2-D arrays (n_channels,
            n_timepoints_i) of unequal length.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights: each mini-batch's loss is the weighted mean
            of its rows' losses (and the validation score, with early
            stopping, is weighted too). Rows of weight 0 are left out (a
            series of weight 0 still counts towards the layout,
            ``series_layout_``); equal weights are the same as none.
            Multiplied by ``class_weight``.

        Returns
        -------
        self
        """
        return _training.fit(self, X, y, sample_weight)

    def _adopt(self, result):
        """Set the fitted attributes from a finished fit's
        :class:`~skgate._engine.FitResult`. A warm start or
        partial_fit extends ``loss_curve_`` and ``n_iter_``, as
        MLPClassifier does, and ``validation_scores_`` with them."""
        before = [] if result.fresh else list(self.loss_curve_)
        self.loss_curve_ = before + list(result.loss_curve)
        self.n_iter_ = len(self.loss_curve_)
        self.net_ = result.net
        self.history_ = result.net.history
        if result.fresh:  # what a warm start or partial_fit cannot change
            self._architecture_ = self._architecture()
        # What this fit trained with: a warm start may change the training
        # settings (batch_size, epochs), never the architecture.
        self.design_ = self._design()
        self._callbacks_trained_ = result.callbacks
        if result.validation_scores is not None:
            # One score per epoch, as loss_curve_: NaN for the epochs of
            # earlier fits and partial fits without early stopping. The best
            # is this fit's, whose weights were restored.
            earlier = [] if result.fresh else list(self.validation_scores_ or [])
            earlier += [float("nan")] * (len(before) - len(earlier))
            self.validation_scores_ = earlier + list(result.validation_scores)
            self.best_validation_score_ = result.best_validation_score
        elif result.fresh:
            self.validation_scores_ = self.best_validation_score_ = None
        elif not result.incremental:
            # A warm start without early stopping: no score describes its
            # weights (the earlier scores stay, as partial_fit leaves them).
            self.best_validation_score_ = None


class GatedAttentionClassifier(ClassifierMixin, _GatedAttentionBase):
    """Gated attention classifier: scikit-learn estimator, skorch and PyTorch inside.

    Each row of ``X`` is embedded as a token (copied ``n_tokens`` times) or read
    as a sequence of ``token_dim``-wide tokens, passed through ``depth``
    attention blocks (``n_heads`` heads each) whose output is gated,
    mean-pooled, and classified by a small head. Trained with AdamW on the
    cross-entropy loss.

    ``X`` may also be a collection of time series, in aeon's and sktime's
    layouts: a 3-D array ``(n_cases, n_channels, n_timepoints)``, or a list
    of 2-D arrays ``(n_channels, n_timepoints_i)`` of unequal length. Each
    token is then a patch of ``patch_size`` consecutive time points of every
    channel; shorter series are padded inside, and the padding takes no part
    in attention, pooling or prediction (a series predicts the same, to the
    bit, alone or beside longer ones).

    Parameters
    ----------
    gate : str, default="multiplicative"
        A registered gate (:data:`skgate.nn.GATES`; add your own with
        :func:`skgate.nn.register_gate`). Built in: "multiplicative": ``out =
        a * (1 + alpha * tanh(h W_g + b_g))`` with the gate computed from the
        block's input at the same token; "silu": ``out = silu(a)``; "none":
        ungated attention ``out = a``; "sigmoid": ``out = a * sigmoid(h W_g +
        b_g)``, elementwise, the output gate of production models (Qiu et al.
        2025, position G1); "sigmoid_head": one such gate per attention head.
    alpha : float >= 0, default=1.0
        Gate strength of the multiplicative gate (it ranges over ``(1 - alpha,
        1 + alpha)``; ``alpha=0`` computes exactly ungated attention, flat,
        though not the weights of ``gate="none"`` with the same seed: its
        gate's weights are drawn too) and of gates registered with
        ``strength=True``. Ignored by the other gates.
    depth : int >= 1, default=1
        Number of stacked attention blocks.
    d_model : int >= 1, default=64
        Token width.
    n_tokens : int >= 1, default=8
        Copies of the embedded row when ``token_dim`` is None. With a
        ``token_dim``, and for series (3-D or a list), it is not read and
        must stay at its default (refused at fit otherwise): their tokens
        are the row's columns, or the series' patches.
    token_dim : int >= 1 or None, default=None
        For a 2-D ``X``. None: each row is one token. An int dividing
        ``n_features``: each row is a sequence of ``n_features // token_dim``
        tokens, in column order, with a learned positional embedding. Series
        (3-D or a list) need None: their tokens are ``patch_size`` time points
        of every channel.
    patch_size : int >= 1 or "auto", default="auto"
        For series: time points per token (tokens of ``patch_size *
        n_channels`` values, time-major; the last patch of a series is
        zero-filled). "auto": the smallest patch that keeps the longest
        series of the fit within 32 tokens (1 up to 32 time points, 47 for
        1,500), which bounds attention's memory and time on long series (see
        the user guide, "Sequences and time series"); with the convolutional
        encoding rounded up to a max-pool times a stride (``p * ceil(m /
        p)``, ``p = ceil(sqrt(m))``: 9 for 251 points, 49 for 1,460). A 2-D
        ``X`` takes "auto" or 1.
    head : {"auto", "mlp", "mlp-relu", "linear", "norm-linear"}, default="auto"
        "mlp": two layers with a GELU between them; "mlp-relu": with a ReLU
        between them; "linear": one layer; "norm-linear": a LayerNorm over
        the pooled representation, then one layer (a pre-LN transformer's
        final norm and classifier). "auto": "mlp" for a table,
        "norm-linear" for series.
    n_heads : int >= 1 or "auto", default="auto"
        Attention heads per block; ``d_model`` must be divisible by it.
        "auto": 1 for a table, 4 for series.
    residual : bool or "auto", default="auto"
        Blocks compose as ``h + block(h)`` (residual connections) instead of
        ``block(h)``. Ungated attention over copied tokens stays affine.
        "auto": False for a table, True for series.
    norm : None, "layer" or "auto", default="auto"
        "layer": pre-LayerNorm residual blocks, ``h + block(LayerNorm(h))``
        (needs ``residual=True``). LayerNorm is a nonlinearity: with it, even
        ungated attention is curved. "auto": None for a table, "layer" for
        series.
    attention : {"softmax", "fixed", "fixed-causal"}, default="softmax"
        "softmax": the weights ``softmax(q k^T / sqrt(d))`` move with the
        input. "fixed": each block learns a token-mixing matrix per head
        (softmax-normalised over keys), the same for every input, so ungated
        attention over sequences is affine in x, the paper's theorem's
        premise; "fixed-causal": each token mixes itself and earlier ones.
        Over copied tokens all three are the same model.
    embedding : {"auto", "linear", "conv"}, default="auto"
        How series become tokens. "linear": each patch of ``patch_size``
        time points through one linear map. "conv": a convolutional input
        encoding (:class:`skgate.nn.ConvEmbedding`): a Conv1d at full time
        resolution, a max-pool, a strided Conv1d over overlapping patches
        and a Conv1d at token resolution, each followed by BatchNorm and
        GELU. The BatchNorm's training statistics read a batch's valid time
        points only (padding and rows of weight 0 never enter them); in
        evaluation it is a fixed affine map, by the statistics of the fit's
        training rows, set at the end of every fit. With series, the
        residual blocks then get an output projection after the gate.
        "auto": "linear" for a table, "conv" for series; a table takes
        "auto" or "linear".
    d_ff : int >= 1, None or "auto", default="auto"
        Hidden units of a feed-forward sublayer after attention in every
        (residual) block, ``h + W_2 GELU(W_1 LayerNorm(h))`` (its own
        pre-LayerNorm with ``norm="layer"``); None: no sublayer. "auto":
        None for a table, ``2 * d_model`` for series.
    dropout : float in [0, 1) or "auto", default="auto"
        Dropout on the gated attention output and the feed-forward output
        while training. "auto": 0 for a table, 0.1 for series. A model's
        dropout masks come from its fit's own generator (seeded by
        ``random_state``; torch's process-wide generator is neither read
        nor changed): refits are identical, in any thread, and a model
        trained beside others (the CV estimators' batches) draws the masks
        it draws alone.
    position : {"auto", "absolute", "relative", "both"}, default="auto"
        How a sequence's tokens know their place. "absolute": a learned
        bias per position added to the tokens; "relative": a learned bias
        per head and per distance ``i - j`` added to the attention logits;
        "both". "auto": "absolute" for a table, "both" for series. Rows of
        copied tokens (``token_dim=None``) take "auto" or "absolute".
    max_epochs : int >= 0 or "auto", default="auto"
        Passes over the training data (0 leaves the network at
        initialisation). "auto": the fewest that give 500 optimizer steps,
        and at least 20 (``max(20, ceil(500 / ceil(n_train / batch_size)))``:
        500 epochs of up to 64 rows, 20 from 1,537 rows on), so that a first fit
        learns on a small data set as on a large one (measured on the KEEL
        and aeon sets: ``benchmarks/results/DEFAULTS.md``). Series with the
        cosine schedule (their defaults): 1,000 steps, but at most as many
        epochs as read 10 million time points (the series times their
        padded length, per epoch), and at least 20. ``n_iter_`` says how
        many ran.
    lr : float > 0, default=2e-3
        AdamW learning rate.
    batch_size : int >= 1 or "auto", default="auto"
        Rows per optimisation step, clipped to the training rows (as
        MLPClassifier clips it). "auto": 64 for a table, 16 for series. The
        last step of an epoch is computed at ``batch_size`` rows (rows of
        weight 0 fill it, so that a model trains to the same bits alone,
        with callbacks and in the CV estimators' batches).
    weight_decay : float >= 0, default=1e-2
        AdamW weight decay (decoupled; MLPClassifier's L2 penalty is called
        ``alpha``, a name this estimator uses for the gate).
    lr_schedule : {"auto", "constant", "cosine"}, default="auto"
        "constant": every step at ``lr``. "cosine": a linear warm-up over
        the first ``warmup_fraction`` of the fit's steps, then cosine decay
        to 0 at its last step (``partial_fit`` steps at ``lr``). Series
        trained with it also get the transformer recipe's gradient clipping
        (global norm 1) and no weight decay on vectors (norms' weights,
        biases) and positions. "auto": "constant" for a table, "cosine" for
        series.
    warmup_fraction : float in [0, 1], default=0.1
        Share of the steps the cosine schedule warms up over.
    label_smoothing : float in [0, 1) or "auto", default="auto"
        The cross-entropy's target mixed with the uniform distribution
        (torch's ``CrossEntropyLoss(label_smoothing=...)``). "auto": 0 for
        a table, 0.1 for series.
    class_weight : None, "balanced" or dict, default=None
        Weights per class, multiplied into ``sample_weight``: "balanced" is
        ``n_samples / (n_classes * count)`` (scikit-learn's
        ``compute_class_weight``), a dict maps labels of ``y`` to weights
        (missing labels weigh 1).
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the rows (stratified, seeded by
        ``random_state``), score them after every epoch (accuracy), stop after
        more than ``n_iter_no_change`` epochs without an improvement of more
        than ``tol``, and restore the best epoch's weights (MLPClassifier's
        rule). skorch's ``EarlyStopping`` and ``Checkpoint`` callbacks work
        too then (the history has ``valid_loss``).
    validation_fraction : float in (0, 1), default=0.1
        Share of the rows held out for early stopping.
    n_iter_no_change : int >= 1, default=10
        Epochs without improvement tolerated before early stopping stops.
    tol : float >= 0, default=1e-4
        The least gain in validation score that counts as an improvement.
    warm_start : bool, default=False
        ``fit`` continues from the fitted network (same features and classes)
        with a fresh optimizer, instead of starting afresh.
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
        Number of features seen in ``fit`` (of series: their channels).
    design_ : dict
        The design parameters as the latest fresh fit resolved them (what
        each "auto" became for the form of ``X``): ``batch_size``, ``head``,
        ``n_heads``, ``residual``, ``norm``, ``embedding``, ``d_ff``,
        ``dropout``, ``position``, ``lr_schedule`` and (classifiers)
        ``label_smoothing``.
    series_layout_ : SeriesLayout or None
        For series: ``n_channels``, ``n_timepoints`` (the longest series of
        the fit: no longer one can be predicted), ``patch_size``,
        ``n_tokens`` and ``token_dim``; None for a 2-D ``X``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names, when ``X`` was a DataFrame with string column names.
    net_ : skorch.NeuralNetClassifier
        The fitted skorch net (the trained module, its optimizer and
        history; skgate's engine trained it); ``net_.module_`` is the
        :class:`skgate.nn.GatedAttentionNet`.
    history_ : skorch.History
        Per-epoch training history (``history_[:, "train_loss"]``) of the
        latest ``fit`` and the ``partial_fit`` calls after it. A warm start
        begins a new one, as its new optimizer does: skorch's callbacks
        that read the epoch from the history (``LRScheduler``) then start
        their schedule again, as for the first fit; ``loss_curve_`` and
        ``n_iter_`` count every epoch.
    loss_curve_ : list of float
        The training loss of every epoch, across warm starts and partial fits.
    n_iter_ : int
        Epochs run (``len(loss_curve_)``).
    validation_scores_ : list of float or None
        With early stopping: the held-out score after each epoch. A warm
        start with early stopping extends it, one score per epoch of
        ``loss_curve_`` (NaN for the epochs of earlier fits and partial fits
        without early stopping); a fit without it and ``partial_fit`` score
        nothing and leave it as it is, as MLPClassifier's.
    best_validation_score_ : float or None
        With early stopping: the best score of the latest ``fit``, whose
        weights were restored (MLPClassifier keeps the best across warm
        starts and may restore an earlier fit's weights; skgate restores
        only weights the latest fit reached). A callback that loads other
        weights at the end (``EarlyStopping(load_best=True)``, a
        checkpoint's) makes it the score of the weights loaded. None after
        a fit without early stopping (a warm start too) or of no epoch.

    See Also
    --------
    GatedAttentionClassifierCV : alpha chosen by cross-validation, batched.
    sklearn.neural_network.MLPClassifier : the scikit-learn network it is
        compared with (parameter names mapped in the user guide).
    skorch.NeuralNetClassifier : the fitted container of the module (``net_``).
    torch.nn.Module : what ``net_.module_`` is (a
        :class:`skgate.nn.GatedAttentionNet`).

    Notes
    -----
    The gate projection starts Xavier-uniform with the gain of the class
    attribute ``gate_gain`` (:data:`skgate.nn.GATE_GAIN`; ``1 / math.sqrt(3)``
    is PyTorch's ``nn.Linear`` default). It is not a parameter: set it on a
    subclass, ``class Small(GatedAttentionClassifier): gate_gain = 0.5``.
    ``clone`` (and so ``GridSearchCV``, ``cross_validate``) keeps an
    estimator's class and parameters only, so a gain assigned to an instance
    (``clf.gate_gain = 0.5``) is dropped from its clones; a subclass keeps it.

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

    _net_class = WeightedNeuralNetClassifier
    _unused_callbacks = ("valid_acc",)

    def __init__(
        self,
        gate="multiplicative",
        *,
        alpha=1.0,
        depth=1,
        d_model=64,
        n_tokens=8,
        token_dim=None,
        patch_size="auto",
        head="auto",
        n_heads="auto",
        residual="auto",
        norm="auto",
        attention="softmax",
        embedding="auto",
        d_ff="auto",
        dropout="auto",
        position="auto",
        max_epochs="auto",
        lr=2e-3,
        batch_size="auto",
        weight_decay=1e-2,
        lr_schedule="auto",
        warmup_fraction=0.1,
        label_smoothing="auto",
        class_weight=None,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=10,
        tol=1e-4,
        warm_start=False,
        callbacks=None,
        device="cpu",
        random_state=None,
        verbose=0,
    ):
        self.gate = gate
        self.alpha = alpha
        self.depth = depth
        self.d_model = d_model
        self.n_tokens = n_tokens
        self.token_dim = token_dim
        self.patch_size = patch_size
        self.head = head
        self.n_heads = n_heads
        self.residual = residual
        self.norm = norm
        self.attention = attention
        self.embedding = embedding
        self.d_ff = d_ff
        self.dropout = dropout
        self.position = position
        self.max_epochs = max_epochs
        self.lr = lr
        self.batch_size = batch_size
        self.weight_decay = weight_decay
        self.lr_schedule = lr_schedule
        self.warmup_fraction = warmup_fraction
        self.label_smoothing = label_smoothing
        self.class_weight = class_weight
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.warm_start = warm_start
        self.callbacks = callbacks
        self.device = device
        self.random_state = random_state
        self.verbose = verbose

    _parameter_constraints = {
        **_GatedAttentionBase._parameter_constraints,
        "class_weight": [None, StrOptions({"balanced"}), dict],
        "label_smoothing": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="left")],
    }

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, sample_weight=None, classes=None):
        """One epoch over ``X, y``, continuing from the fitted network.

        As MLPClassifier's, parameters in its order: the first call builds the
        network and must name every class; later calls keep the network and
        the optimizer's state. Early stopping does not apply.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or series
            Series as :meth:`fit` takes them (a 3-D array or a list of 2-D
            arrays of the fitted channels).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
        classes : array-like of shape (n_classes,), default=None
            Every label ``y`` will ever hold; required on the first call.

        Returns
        -------
        self
        """
        if classes is None and not hasattr(self, "classes_"):
            raise ValueError(
                "classes must be passed on the first call to partial_fit: every "
                "label y will ever hold (as for MLPClassifier.partial_fit)."
            )
        return _training.fit(
            self, X, y, sample_weight, incremental=True, classes=classes
        )

    def _prepare_targets(self, y, *, reset, classes=None):
        labels = check_labels(y)
        if reset:
            self.classes_ = (
                labels if classes is None else check_labels(classes, "classes")
            )
            if len(self.classes_) < 2:
                given = "y" if classes is None else f"classes={list(classes)!r}"
                raise ValueError(
                    f"{given} has 1 class ({self.classes_.tolist()[0]!r}); "
                    f"{type(self).__name__} needs at least 2 classes."
                )
        elif classes is not None and not np.array_equal(
            check_labels(classes, "classes"), self.classes_
        ):
            raise ValueError(
                f"classes={np.asarray(classes).tolist()!r} differs from the classes "
                f"of the first call to partial_fit, {self.classes_.tolist()!r}; "
                f"they cannot change."
            )
        unknown = np.setdiff1d(labels, self.classes_)
        if len(unknown):
            raise ValueError(
                f"y has labels {unknown.tolist()!r} that are not in classes_ "
                f"{self.classes_.tolist()!r}; partial_fit and warm_start cannot add "
                f"classes (pass them all in classes= on the first call)."
            )
        y_encoded = np.searchsorted(self.classes_, y)
        return y_encoded.astype(np.int64), len(self.classes_)

    def _check_same_targets(self, y):
        labels = check_labels(y)
        if not np.array_equal(labels, self.classes_):
            raise ValueError(
                f"warm_start=True continues the fitted network, so y must hold "
                f"its classes {self.classes_.tolist()!r}; got {labels.tolist()!r}. Set "
                f"warm_start=False to fit afresh."
            )

    def _class_weights(self, y_net):
        if self.class_weight is None:
            return None
        if isinstance(self.class_weight, dict):
            unknown = [
                label for label in self.class_weight if label not in set(self.classes_)
            ]
            if unknown:
                raise ValueError(
                    f"class_weight names labels {unknown!r} that are not classes "
                    f"of y; allowed keys: {self.classes_.tolist()!r}."
                )
            for label, value in self.class_weight.items():
                check_class_weight_value(label, value)
        present = np.unique(y_net)
        weights = np.ones(len(self.classes_))
        weights[present] = (
            compute_class_weight(self.class_weight, classes=present, y=y_net)
            if self.class_weight == "balanced"
            else [self.class_weight.get(self.classes_[c], 1.0) for c in present]
        )
        return weights[y_net]

    def _validation_score(self, outputs, data):
        # accuracy_score's number (the share of rows, or of their weight,
        # predicted right, in float64), without its input checks, which cost
        # far more than the score every epoch of early stopping needs
        # (benchmarks/results/SPEED.md, "The engine's constants").
        correct = (outputs.argmax(dim=1) == data.y).to(torch.float64)
        if data.w is None:
            return float(correct.mean())
        weight = data.w.to(torch.float64)
        return float((correct * weight).sum() / weight.sum())

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``.

        {parameters}

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes), float64
            Each row sums to 1; computed from the float64 logits.
        """
        return torch.softmax(self._logits(X), dim=1).numpy()

    def predict_log_proba(self, X):
        """Log of :meth:`predict_proba`, computed stably from the logits.

        {parameters}

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

        {parameters}

        Returns
        -------
        ndarray of shape (n_samples,), labels from ``classes_``
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class GatedAttentionRegressor(RegressorMixin, _GatedAttentionBase):
    """Gated attention regressor: the classifier's model with a regression head.

    The same network, parameters and training as
    :class:`GatedAttentionClassifier`, trained by the same engine on the
    mean squared error (``net_`` is a skorch ``NeuralNetRegressor``).
    ``head`` shapes the map from the pooled representation to the
    ``n_outputs_`` targets. Targets are standardised inside (``y_mean_``,
    ``y_scale_``) and predictions mapped back, so the learning rate suits
    targets of any scale; ``score`` is R².

    Parameters
    ----------
    {parameters}
        As for :class:`GatedAttentionClassifier` (early stopping scores R² on
        the held-out rows, which are not stratified; ``class_weight`` is the
        classifier's alone).

    Attributes
    ----------
    n_outputs_ : int
        Number of regression targets (columns of ``y``).
    y_mean_, y_scale_ : ndarray of shape (``n_outputs_``,)
        Mean and standard deviation (1 where it is 0) of the training targets.
    n_features_in_, feature_names_in_, net_, history_, loss_curve_, n_iter_, \
validation_scores_, best_validation_score_
        As for :class:`GatedAttentionClassifier`; ``net_`` is a
        ``skorch.NeuralNetRegressor``.

    See Also
    --------
    GatedAttentionRegressorCV : alpha chosen by cross-validation, batched.
    sklearn.neural_network.MLPRegressor : the scikit-learn network it is
        compared with.
    skorch.NeuralNetRegressor : the fitted container of the module (``net_``).

    Notes
    -----
    The class attribute ``gate_gain`` sets the gate projection's initial
    gain, as for :class:`GatedAttentionClassifier`: set it on a subclass,
    not an instance (``clone`` keeps the class and the parameters only).

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

    _net_class = WeightedNeuralNetRegressor
    _y_checks = {"y_numeric": True, "multi_output": True}

    def __init__(
        self,
        gate="multiplicative",
        *,
        alpha=1.0,
        depth=1,
        d_model=64,
        n_tokens=8,
        token_dim=None,
        patch_size="auto",
        head="auto",
        n_heads="auto",
        residual="auto",
        norm="auto",
        attention="softmax",
        embedding="auto",
        d_ff="auto",
        dropout="auto",
        position="auto",
        max_epochs="auto",
        lr=2e-3,
        batch_size="auto",
        weight_decay=1e-2,
        lr_schedule="auto",
        warmup_fraction=0.1,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=10,
        tol=1e-4,
        warm_start=False,
        callbacks=None,
        device="cpu",
        random_state=None,
        verbose=0,
    ):
        self.gate = gate
        self.alpha = alpha
        self.depth = depth
        self.d_model = d_model
        self.n_tokens = n_tokens
        self.token_dim = token_dim
        self.patch_size = patch_size
        self.head = head
        self.n_heads = n_heads
        self.residual = residual
        self.norm = norm
        self.attention = attention
        self.embedding = embedding
        self.d_ff = d_ff
        self.dropout = dropout
        self.position = position
        self.max_epochs = max_epochs
        self.lr = lr
        self.batch_size = batch_size
        self.weight_decay = weight_decay
        self.lr_schedule = lr_schedule
        self.warmup_fraction = warmup_fraction
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.warm_start = warm_start
        self.callbacks = callbacks
        self.device = device
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, sample_weight=None):
        """One epoch over ``X, y``, continuing from the fitted network.

        The first call builds the network and fixes the target scaling
        (``y_mean_``, ``y_scale_``) from its ``y``; later calls keep both and
        the optimizer's state. Early stopping does not apply.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or series
            Series as :meth:`fit` takes them (a 3-D array or a list of 2-D
            arrays of the fitted channels).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return _training.fit(self, X, y, sample_weight, incremental=True)

    def _check_same_targets(self, y):
        n_outputs = np.asarray(y).reshape(len(y), -1).shape[1]
        if n_outputs != self.n_outputs_:
            raise ValueError(
                f"warm_start=True continues the fitted network, so y must have "
                f"its {self.n_outputs_} output(s); got {n_outputs}. Set "
                f"warm_start=False to fit afresh."
            )

    def _validation_score(self, outputs, data):
        weight = None if data.w is None else data.w.numpy()
        return r2_score(data.y.numpy(), outputs.numpy(), sample_weight=weight)

    def _prepare_targets(self, y, *, reset, classes=None):
        try:
            y2d = np.asarray(y, dtype=np.float64).reshape(len(y), -1)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"y must hold numbers for {type(self).__name__}; got dtype "
                f"{np.asarray(y).dtype} ({exc}). For labels use "
                f"GatedAttentionClassifier."
            ) from exc
        if not reset:
            if y2d.shape[1] != self.n_outputs_:
                raise ValueError(
                    f"y has {y2d.shape[1]} output(s) but the fitted model has "
                    f"{self.n_outputs_}; partial_fit cannot change them."
                )
        else:
            self.n_outputs_ = y2d.shape[1]
            # y.var() squares y: it overflows float64 from |y| ~ 1e154 on and
            # underflows to 0 below |y| ~ 1e-154, so y is first divided by a
            # power of two near max|y| (exact: ordinary targets keep their bits).
            unit = binade(np.abs(y2d).max(axis=0, initial=0))
            y_unit = y2d / unit
            self.y_mean_ = y_unit.mean(axis=0) * unit
            scale = y_unit.std(axis=0) * unit
            self.y_scale_ = np.where(scale > 0, scale, 1.0)
        y_standard = standardise(y2d, self.y_mean_, self.y_scale_)
        if np.abs(y_standard).max(initial=0) > FLOAT32_MAX:
            raise ValueError(
                f"y has a value {np.abs(y_standard).max():.3g} y_scale_ from "
                f"y_mean_ (the scaling fixed by the first fit), beyond the float32 "
                f"range of the model; allowed: |y - y_mean_| / y_scale_ <= "
                f"{FLOAT32_MAX:.3g} (fit afresh for targets of another range)."
            )
        return y_standard.astype(np.float32), self.n_outputs_

    def predict(self, X):
        """Predicted targets.

        {parameters}

        Returns
        -------
        ndarray of shape (n_samples,) with one target, else (n_samples, ``n_outputs_``)
        """
        check_is_fitted(self)
        standard = self.representation(X, layer="logits")
        y = standard * self.y_scale_ + self.y_mean_
        return y.ravel() if self.n_outputs_ == 1 else y

    def score(self, X, y, sample_weight=None):
        """R² of :meth:`predict` on ``X`` against ``y``, as ``r2_score``.

        Computed on ``y`` and the predictions divided by the power of two
        nearest below the predictions' largest magnitude: the same number
        for ordinary targets, and a right one for targets whose squares
        underflow or overflow float64 (``|y|`` below 1e-154 or above 1e154),
        where ``r2_score`` returns 1.0 or NaN.

        {parameters}
        y : array-like of shape (n_samples,) or (n_samples, ``n_outputs_``)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        float
        """
        y_pred = self.predict(X)
        unit = binade(np.abs(y_pred).max(axis=0, initial=0))
        try:
            y_true = np.asarray(y, dtype=np.float64) / unit
        except (TypeError, ValueError):
            y_true = y  # not numbers, or the wrong shape: r2_score says so
        return r2_score(y_true, y_pred / unit, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


#: The parameters of the prediction methods: the rows they take.
PREDICT_PARAMETERS_DOC = """Parameters
----------
X : array-like of shape (n_samples, n_features), or series
    The features ``fit`` saw (a DataFrame with the column names it saw, in
    its order), or series of its channels no longer than its longest (a 3-D
    array or a list of 2-D arrays); validated as in ``fit``."""

for _method in (
    GatedAttentionClassifier.predict_proba,
    GatedAttentionClassifier.predict_log_proba,
    GatedAttentionClassifier.predict,
    GatedAttentionRegressor.predict,
    GatedAttentionRegressor.score,
):
    fill_docstring(_method, parameters=PREDICT_PARAMETERS_DOC)
del _method

fill_docstring(
    GatedAttentionRegressor,
    parameters=textwrap.fill(
        ", ".join(inspect.signature(GatedAttentionRegressor).parameters), 76
    ),
)

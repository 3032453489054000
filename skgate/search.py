"""Cross-validated search over the gate strength: all (alpha, fold) models at once.

``GatedAttentionClassifierCV`` and ``GatedAttentionRegressorCV`` are to
``GridSearchCV(GatedAttentionClassifier(), {"alpha": alphas})`` what
``RidgeCV`` is to a grid search over Ridge's ``alpha``: one estimator, one
efficient search. All ``len(alphas) x n_splits`` models train together as one
batched network (:mod:`skgate._engine.loop`): each sees exactly its fold's rows in
its own seeded order, so it is the model ``GatedAttentionClassifier(alpha=a)``
would train alone on them, bit for bit (one training engine). Each is scored on its
held-out fold (accuracy or R², and :func:`~skgate.curvature_score`), the
alpha is selected like :func:`~skgate.least_curvature_refit` (or by the best
score), and the chosen alpha is refit on all the data.
"""

import re
import time
from numbers import Integral, Real

import numpy as np
from scipy.stats import rankdata
from sklearn import get_config
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    _fit_context,
    clone,
)
from sklearn.model_selection import check_cv
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from . import geometry
from ._params import refuse_bools
from ._pickling import CarriesGate
from ._training import fit_together
from .estimators import (
    GatedAttentionClassifier,
    GatedAttentionRegressor,
)
from .model_selection import least_curvature_refit, make_curvature_scorer
from .nn import GATES

__all__ = ["GatedAttentionClassifierCV", "GatedAttentionRegressorCV"]

_DEFAULT_ALPHAS = (0.0, 0.5, 1.0, 1.5)


class _GatedAttentionCV(CarriesGate, BaseEstimator):
    """The search shared by the classifier and the regressor."""

    _estimator_class = None
    _score_name = None

    def _validate_params(self):
        refuse_bools(self)  # before scikit-learn's own checks, which take True
        super()._validate_params()

    def _estimator(self, alpha):
        """The estimator every model of the search is (``_estimator_class``):
        this search's values of its parameters, with gate strength ``alpha``."""
        names = self._estimator_class._get_param_names()
        params = {name: getattr(self, name) for name in names if name != "alpha"}
        return self._estimator_class(**params, alpha=alpha)

    def _check_alphas(self):
        given = np.ravel(np.asarray(self.alphas, object))
        if any(isinstance(a, str | bytes) for a in given):
            raise TypeError(
                f"alphas must be a sequence of numbers >= 0, not text; got "
                f"{self.alphas!r}."
            )
        if any(isinstance(a, bool | np.bool_) for a in given) or (
            np.asarray(self.alphas).dtype == bool
        ):
            raise TypeError(
                f"alphas must be a sequence of numbers >= 0, not bools (as alpha "
                f"refuses them); got {self.alphas!r}."
            )
        try:
            alphas = np.asarray(self.alphas, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"alphas must be a sequence of numbers >= 0; got {self.alphas!r}."
            ) from exc
        if alphas.ndim > 1:
            raise ValueError(
                f"alphas must be a flat sequence of numbers (each one alpha to "
                f"search); got an array of shape {alphas.shape}: {self.alphas!r}."
            )
        alphas = alphas.ravel()  # one number: a search of one
        if len(alphas) == 0 or not np.isfinite(alphas).all() or (alphas < 0).any():
            raise ValueError(
                f"alphas must be a non-empty sequence of finite numbers >= 0; got "
                f"{self.alphas!r}."
            )
        gate = GATES.get(self.gate) if isinstance(self.gate, str) else None
        if gate is not None and not gate.strength and len(alphas) > 1:
            raise ValueError(
                f"alphas are searched only with a gate that has a strength "
                f"(gate='multiplicative', or one registered with strength=True); "
                f"with gate={self.gate!r} alpha has no effect."
            )
        return [float(a) for a in alphas]

    def _fold_models(self, base, alphas, folds, X, y, sample_weight):
        """Every (alpha, fold) model, alpha-major, fitted on its training fold.

        Each is ``clone(base)`` with its alpha, as ``GridSearchCV`` makes its
        candidates, fitted by :func:`~skgate.parallel.fit_together`: as its
        own ``fit`` would, those of one architecture trained as one batch. A
        fold's rows are one array shared by every alpha.
        """
        fold_data = []
        for train, _ in folds:
            w = None if sample_weight is None else sample_weight[train]
            fold_data.append((X[train], y[train], w))
        models = [clone(base).set_params(alpha=a) for a in alphas for _ in folds]
        return fit_together(models, fold_data * len(alphas))

    def _check_folds(self, folds, y, sample_weight):
        """Refuse, before any training, folds no model could be fitted or
        scored on, naming the fold."""
        for k, (train, test) in enumerate(folds):
            self._check_fold_targets(k, y[train], y)
            if len(test) < self._least_test_rows:
                raise ValueError(
                    f"{_describe_cv(self.cv)} gives fold {k} a test set of {len(test)} "
                    f"row(s), but {self._score_name} needs at least "
                    f"{self._least_test_rows}; allowed: fewer folds (a lower cv) "
                    f"or more rows."
                )
            if sample_weight is None:
                continue
            for part, rows in (("training", train), ("test", test)):
                if not sample_weight[rows].sum() > 0:
                    raise ValueError(
                        f"sample_weight is 0 for every {part} row of fold {k} "
                        f"({_describe_cv(self.cv)}; the whole vector has "
                        f"{np.count_nonzero(sample_weight)} non-zero weights of "
                        f"{len(sample_weight)}); allowed: weights with at least "
                        f"one > 0 in every fold's training and test rows."
                    )

    def _check_fold_targets(self, k, y_fold, y):
        """Hook: a classifier's folds must all hold every class of ``y``."""

    #: Test rows a fold needs for its score to be defined.
    _least_test_rows = 1

    def get_metadata_routing(self):
        """The metadata routing of this search: it takes ``sample_weight``
        itself (training and scoring every fold, and the refit) and routes
        split metadata (``groups``, ...) to ``cv``'s ``split``, as
        ``GridSearchCV`` and ``LogisticRegressionCV`` do.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRouter
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                splitter=check_cv(self.cv),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )

    def _split_params(self, sample_weight, groups, params):
        """The keywords of ``cv.split``: ``groups`` (and, with metadata
        routing enabled, whatever the splitter requests), as GridSearchCV
        routes them."""
        if get_config()["enable_metadata_routing"]:
            routed = process_routing(
                self, "fit", sample_weight=sample_weight, groups=groups, **params
            )
            return dict(routed.splitter.split)
        if params:
            raise TypeError(
                f"{type(self).__name__}.fit got {sorted(params)}; without "
                f"metadata routing it takes sample_weight and groups only. To "
                f"route other metadata to cv's split, enable routing: "
                f"sklearn.set_config(enable_metadata_routing=True)."
            )
        return {} if groups is None else {"groups": groups}

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, *, sample_weight=None, groups=None, **params):
        """Search ``alphas`` by cross-validation, then refit the chosen one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows: each fold model trains on its rows with
            theirs, its test fold is scored with theirs (accuracy or R², and
            the mean curvature), as ``GridSearchCV`` scores when fitted with
            ``sample_weight``, and the refit trains with all of them.
        groups : array-like of shape (n_samples,), default=None
            Group labels for a group splitter (``GroupKFold``, ...), passed
            to ``cv.split`` as ``GridSearchCV`` passes them.
        **params
            With metadata routing enabled
            (``sklearn.set_config(enable_metadata_routing=True)``): further
            metadata routed to ``cv.split``.

        Returns
        -------
        self
        """
        before = dict(vars(self))
        try:
            return self._search(X, y, sample_weight, groups, params)
        except BaseException:  # Ctrl-C too: left as it was, never half-fitted
            vars(self).clear()
            vars(self).update(before)
            raise

    def _search(self, X, y, sample_weight, groups, params):
        alphas = self._check_alphas()
        curvature_params = dict(self.curvature_params or {})
        try:
            scorer = make_curvature_scorer(**curvature_params)
        except (TypeError, ValueError) as exc:  # named after this parameter
            raise type(exc)(
                f"curvature_params={self.curvature_params!r}: {exc}"
            ) from exc
        base = self._estimator(alphas[0])
        if geometry.metric_name(curvature_params.get("metric")) == "fisher":
            base._check_fisher(curvature_params.get("layer"))
        given = X, y  # the refit sees them as given (DataFrame column names too)
        X, y = base._validate_X(X, y, reset=True)
        try:  # y checked as the models check it, the errors in this one's name
            base._prepare_targets(y, reset=True)
        except (TypeError, ValueError) as exc:
            # Every estimator's name as its CV estimator's ("For labels use
            # GatedAttentionClassifier" in a regressor's search: ...CV).
            mine = re.sub(r"\b(GatedAttention(?:Classifier|Regressor))\b", r"\1CV",
                          str(exc))  # fmt: skip
            raise type(exc)(mine) from exc
        if sample_weight is not None:
            sample_weight = _check_sample_weight(
                sample_weight, X, dtype=np.float64, ensure_non_negative=True
            )
        split_params = self._split_params(sample_weight, groups, params)
        cv = check_cv(self.cv, y, classifier=isinstance(self, ClassifierMixin))
        folds = list(cv.split(X, y, **split_params))
        self._check_folds(folds, y, sample_weight)
        start = time.perf_counter()
        models = self._fold_models(base, alphas, folds, X, y, sample_weight)
        # The batch's time, shared evenly between its models.
        fit_seconds = (time.perf_counter() - start) / len(models)
        self.cv_results_ = self._results(
            alphas, folds, models, X, y, sample_weight, scorer
        )
        self.cv_results_["mean_fit_time"] = np.full(len(alphas), fit_seconds)
        self.cv_results_["std_fit_time"] = np.zeros(len(alphas))
        self.best_index_ = self._select(self.cv_results_)
        self.alpha_ = alphas[self.best_index_]
        self.best_params_ = {"alpha": self.alpha_}
        self.best_score_ = self.cv_results_[f"mean_test_{self._score_name}"][
            self.best_index_
        ]
        self.n_splits_ = len(folds)
        # The chosen alpha alone, by the same engine: the model fit() trains.
        # (Refitting every alpha inside the fold batch instead is measured in
        # benchmarks/results/SPEED.md, "The engine's constants".)
        start = time.perf_counter()
        best = clone(base).set_params(alpha=self.alpha_)
        (self.best_estimator_,) = fit_together([best], [(*given, sample_weight)])
        self.refit_time_ = time.perf_counter() - start
        self.n_features_in_ = best.n_features_in_
        if hasattr(best, "feature_names_in_"):
            self.feature_names_in_ = best.feature_names_in_
        return self

    def _results(self, alphas, folds, models, X, y, sample_weight, scorer):
        """GridSearchCV's ``cv_results_`` keys, for the score and the curvature."""
        n_alphas, n_folds = len(alphas), len(folds)
        scores = np.empty((n_alphas, n_folds))
        curvatures = np.empty((n_alphas, n_folds))
        seconds = np.empty((n_alphas, n_folds))
        for i in range(n_alphas):
            for k, (_, test) in enumerate(folds):
                model = models[i * n_folds + k]
                weight = (
                    {}
                    if sample_weight is None
                    else {"sample_weight": sample_weight[test]}
                )
                start = time.perf_counter()
                scores[i, k] = model.score(X[test], y[test], **weight)
                curvatures[i, k] = scorer(model, X[test], **weight)
                seconds[i, k] = time.perf_counter() - start
        results = {
            "mean_score_time": seconds.mean(axis=1),
            "std_score_time": seconds.std(axis=1),
            "param_alpha": np.ma.MaskedArray(alphas, mask=False),
            "params": [{"alpha": a} for a in alphas],
        }
        for name, values in ((self._score_name, scores), ("curvature", curvatures)):
            for k in range(n_folds):
                results[f"split{k}_test_{name}"] = values[:, k]
            results[f"mean_test_{name}"] = values.mean(axis=1)
            results[f"std_test_{name}"] = values.std(axis=1)
            results[f"rank_test_{name}"] = _rank(values.mean(axis=1))
        return results

    def _select(self, results):
        if self.selection == "least_curvature":
            rule = least_curvature_refit(score=self._score_name, n_std=self.n_std)
            return rule(results)
        scores = results[f"mean_test_{self._score_name}"]
        finite = np.flatnonzero(np.isfinite(scores))
        if not len(finite):
            raise ValueError(
                f"selection='best': no alpha has a finite "
                f"mean_test_{self._score_name} ({scores.tolist()}); nothing to "
                f"choose from."
            )
        return int(finite[np.argmax(scores[finite])])

    # -- the refit model's methods ------------------------------------------

    def _refit_attribute(self, name):
        """A fitted attribute of the refit model, or the AttributeError of an
        unfitted search."""
        best = self.__dict__.get("best_estimator_")
        if best is None:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {name!r}: "
                f"it is the refit model's, and the search is not fitted yet."
            )
        return getattr(best, name)

    @property
    def net_(self):
        """The refit model's trained skorch net (``best_estimator_.net_``)."""
        return self._refit_attribute("net_")

    @property
    def series_layout_(self):
        """The refit model's layout of series (None for a 2-D ``X``)."""
        return self._refit_attribute("series_layout_")

    @property
    def history_(self):
        """The refit model's per-epoch training history."""
        return self._refit_attribute("history_")

    @property
    def loss_curve_(self):
        """The refit model's training loss of every epoch."""
        return self._refit_attribute("loss_curve_")

    @property
    def n_iter_(self):
        """Epochs the refit model ran."""
        return self._refit_attribute("n_iter_")

    @property
    def validation_scores_(self):
        """With early stopping: the refit model's held-out score after each
        epoch (else None)."""
        return self._refit_attribute("validation_scores_")

    @property
    def best_validation_score_(self):
        """With early stopping: the refit model's best held-out score (else
        None)."""
        return self._refit_attribute("best_validation_score_")

    def predict(self, X):
        """The refit model's predictions (see the base estimator's ``predict``)."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def representation(self, X, layer="attention"):
        """The refit model's representation of ``X`` at ``layer``."""
        check_is_fitted(self)
        return self.best_estimator_.representation(X, layer=layer)

    def curvature(self, X, **kwargs):
        """The refit model's curvature at each row of ``X`` (its
        ``curvature`` method; the search's own settings are
        ``curvature_params``)."""
        check_is_fitted(self)
        return self.best_estimator_.curvature(X, **kwargs)


def _describe_cv(cv):
    """``cv`` as an error message names it: an int or a splitter by its
    repr, an iterable of splits (arrays of indices) by what it is."""
    if isinstance(cv, Integral) or hasattr(cv, "split"):
        return f"cv={cv!r}"
    return "cv (the given splits)"


def _rank(means):
    """GridSearchCV's ranks: 1 for the highest mean, ties ranked equally (the
    lowest rank of the tie), NaN ranked last."""
    if np.isnan(means).all():
        return np.ones(len(means), dtype=np.int32)
    means = np.nan_to_num(means, nan=np.nanmin(means) - 1)
    return rankdata(-means, method="min").astype(np.int32)


def _constraints(estimator_class):
    constraints = dict(estimator_class._parameter_constraints)
    constraints.pop("alpha")
    return {
        "alphas": ["array-like"],
        "cv": ["cv_object"],
        "selection": [StrOptions({"least_curvature", "best"})],
        "n_std": [Interval(Real, 0, None, closed="left")],
        "curvature_params": [None, dict],
        **constraints,
    }


class GatedAttentionClassifierCV(ClassifierMixin, _GatedAttentionCV):
    """Gated attention classifier with its gate strength chosen by cross-validation.

    Parameters
    ----------
    alphas : array-like of floats >= 0, default=(0.0, 0.5, 1.0, 1.5)
        Gate strengths searched (``gate="multiplicative"``).
    cv : int, cross-validation generator or iterable, default=5
        As in ``GridSearchCV`` (an int is a ``StratifiedKFold``). Every
        training fold must hold every class.
    selection : {"least_curvature", "best"}, default="least_curvature"
        "least_curvature": among the alphas whose mean accuracy is within
        ``n_std`` fold standard deviations of the best, the least curved
        (:func:`~skgate.least_curvature_refit`); "best": the best accuracy.
    n_std : float >= 0, default=1.0
    curvature_params : dict or None, default=None
        Keywords of :func:`~skgate.representation_curvature` for the fold
        curvature scores (None: :func:`~skgate.curvature_score`'s defaults),
        validated before any training.
    gate, depth, d_model, ... : every parameter of
        :class:`~skgate.GatedAttentionClassifier` but ``alpha``. Every
        model, the fold models and the refit, is fitted as that estimator's
        ``fit`` fits it (early stopping included) on a fresh clone, as
        ``GridSearchCV`` does, so ``warm_start`` has no effect. The fold
        models train as one batched network on ``device``; with
        ``callbacks`` or ``verbose`` output they train one by one (the
        callbacks observe one model's training).

    Attributes
    ----------
    alpha_ : float
        The chosen gate strength.
    best_index_ : int
        Its index in ``alphas`` and ``cv_results_``.
    cv_results_ : dict of arrays
        GridSearchCV's keys: ``params``, ``param_alpha``,
        ``split{k}_test_accuracy``, ``mean_test_accuracy``,
        ``std_test_accuracy``, ``rank_test_accuracy``, the same for
        ``curvature``, and fit and score times (the batched fit's time is
        shared evenly between its models). As GridSearchCV's: ranks give
        tied means the same (lowest) rank, and with ``sample_weight`` the
        fold scores are weighted by the test rows' weights.
    best_estimator_ : GatedAttentionClassifier
        The chosen alpha refit on all the data; its fitted attributes
        (``classes_``, ``net_``, ``loss_curve_``, ...) and methods
        (``predict``, ``predict_proba``, ``representation``,
        ``curvature``) are this estimator's.

    See Also
    --------
    sklearn.model_selection.GridSearchCV : the same search, one fit at a time
        (its ``cv_results_`` keys are these).
    skgate.least_curvature_refit : the refit rule for GridSearchCV.

    Examples
    --------
    >>> from skgate import GatedAttentionClassifierCV, make_linear_task
    >>> X, y = make_linear_task(300, random_state=0)
    >>> search = GatedAttentionClassifierCV(cv=3, max_epochs=5, random_state=0)
    >>> search.fit(X, y).alpha_
    0.0
    >>> sorted(search.cv_results_)[:3]
    ['mean_fit_time', 'mean_score_time', 'mean_test_accuracy']
    """

    _estimator_class = GatedAttentionClassifier
    _score_name = "accuracy"
    _parameter_constraints = _constraints(GatedAttentionClassifier)

    def __init__(
        self,
        alphas=(0.0, 0.5, 1.0, 1.5),
        *,
        cv=5,
        selection="least_curvature",
        n_std=1.0,
        curvature_params=None,
        gate="multiplicative",
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
        self.alphas = alphas
        self.cv = cv
        self.selection = selection
        self.n_std = n_std
        self.curvature_params = curvature_params
        self.gate = gate
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

    def _check_fold_targets(self, k, y_fold, y):
        classes, present = np.unique(y), np.unique(y_fold)
        if not np.array_equal(present, classes):
            missing = np.setdiff1d(classes, present).tolist()
            raise ValueError(
                f"{_describe_cv(self.cv)} leaves the classes {missing!r} out of "
                f"training fold {k}; every fold must hold every class: lower cv "
                f"(at most the size of the smallest class)."
            )

    @property
    def classes_(self):
        """The class labels, sorted (the refit model's)."""
        return self._refit_attribute("classes_")

    def predict_proba(self, X):
        """The refit model's class probabilities."""
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)

    def predict_log_proba(self, X):
        """The refit model's log class probabilities."""
        check_is_fitted(self)
        return self.best_estimator_.predict_log_proba(X)


class GatedAttentionRegressorCV(RegressorMixin, _GatedAttentionCV):
    """Gated attention regressor with its gate strength chosen by cross-validation.

    As :class:`GatedAttentionClassifierCV`, scoring R² (``cv_results_`` keys
    ``*_test_r2``); an int ``cv`` is a ``KFold``. Each fold model standardises
    its own targets, as it would alone.

    Parameters
    ----------
    alphas, cv, selection, n_std, curvature_params
        As in :class:`GatedAttentionClassifierCV`.
    gate, depth, d_model, ... : every parameter of
        :class:`~skgate.GatedAttentionRegressor` but ``alpha``, each fit as
        that estimator's ``fit`` fits it.

    Attributes
    ----------
    alpha_, best_index_, cv_results_
        As in :class:`GatedAttentionClassifierCV`, with R² for accuracy.
    best_estimator_ : GatedAttentionRegressor
        The chosen alpha refit on all the data.

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from skgate import GatedAttentionRegressorCV
    >>> X, y = make_friedman1(300, random_state=0)
    >>> search = GatedAttentionRegressorCV(cv=3, max_epochs=5, random_state=0)
    >>> search.fit(X, y).alpha_ in search.alphas
    True
    """

    _estimator_class = GatedAttentionRegressor
    _score_name = "r2"
    _least_test_rows = 2  # R^2 is undefined on one row
    _parameter_constraints = _constraints(GatedAttentionRegressor)

    def __init__(
        self,
        alphas=(0.0, 0.5, 1.0, 1.5),
        *,
        cv=5,
        selection="least_curvature",
        n_std=1.0,
        curvature_params=None,
        gate="multiplicative",
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
        self.alphas = alphas
        self.cv = cv
        self.selection = selection
        self.n_std = n_std
        self.curvature_params = curvature_params
        self.gate = gate
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

    @property
    def n_outputs_(self):
        """Number of regression targets (the refit model's)."""
        return self._refit_attribute("n_outputs_")

    @property
    def y_mean_(self):
        """Mean of the training targets (the refit model's)."""
        return self._refit_attribute("y_mean_")

    @property
    def y_scale_(self):
        """Standard deviation of the training targets, 1 where 0 (the refit model's)."""
        return self._refit_attribute("y_scale_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

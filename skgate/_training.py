"""How an estimator trains: its parameters and data made into the engine's
:class:`~skgate._engine.spec.TrainingSpec` (:func:`training_spec`), the
engine's :class:`~skgate._engine.fitting.FitResult` adopted, and the
estimator put back as it was when a fit fails (:func:`fit`); many estimators
batched (:func:`fit_together`).

This is the estimators' side of the contract: it reads the estimators'
parameters and calls their small overridable methods (``_validate_X``,
``_prepare_targets``, ``_class_weights``, ``_validation_score``,
``_adopt``); the engine (:mod:`skgate._engine`) sees the spec alone.
"""

import warnings
from contextlib import contextmanager
from dataclasses import fields
from functools import partial

import numpy as np
from sklearn import get_config
from sklearn.base import is_classifier
from sklearn.utils.validation import _check_sample_weight

from . import _engine
from ._design import net_parameters
from ._options import TRANSFORMER_RECIPE
from .nn import BUILT_IN_GATES, GATES

__all__ = [
    "TRAINING_PARAMETERS",
    "batchable",
    "fit",
    "fit_together",
    "training_spec",
]


#: The parameters the training reads besides the network's: the
#: :class:`~skgate._engine.spec.Recipe`'s fields that are parameters, and
#: those :func:`training_spec` resolves itself (the series' patches, the
#: schedule and label smoothing of the design, class weights, warm starts).
TRAINING_PARAMETERS = (
    "patch_size",
    *(f.name for f in fields(_engine.Recipe) if f.name != "warmup"),
    "lr_schedule",
    "warmup_fraction",
    "label_smoothing",
    "class_weight",
    "warm_start",
)


def _check_implemented(estimator):
    """A parameter the training does not read (a subclass's, or one added
    without teaching the training) fails at fit rather than being ignored."""
    known = set(net_parameters(type(estimator))) | set(TRAINING_PARAMETERS)
    unknown = set(estimator.get_params(deep=False)).difference(known)
    if unknown:
        raise NotImplementedError(
            f"{type(estimator).__name__} has the parameters {sorted(unknown)}, "
            f"which skgate's training engine does not implement (it would "
            f"ignore them); implemented: the network's "
            f"{list(net_parameters(type(estimator)))} and {list(TRAINING_PARAMETERS)}."
        )


def _recipe(estimator, design, n_rows, *, incremental):
    """The estimator's :class:`~skgate._engine.spec.Recipe` for a fit on
    ``n_rows`` rows."""
    cosine = design["lr_schedule"] == "cosine" and not incremental
    layout = getattr(estimator, "series_layout_", None)
    recipe, budget = {}, {}
    if layout is not None and design["lr_schedule"] == "cosine":
        recipe = TRANSFORMER_RECIPE
        per_epoch = n_rows * layout.n_tokens * layout.patch_size
        cap = recipe["time_points"]
        budget = {
            "auto_steps": recipe["auto_steps"],
            "auto_epoch_cap": None if cap is None else max(1, cap // per_epoch),
        }
    return _engine.Recipe(
        max_epochs=estimator.max_epochs,
        lr=estimator.lr,
        weight_decay=estimator.weight_decay,
        batch_size=design["batch_size"],
        warmup=float(estimator.warmup_fraction) if cosine else None,
        early_stopping=estimator.early_stopping,
        validation_fraction=estimator.validation_fraction,
        n_iter_no_change=estimator.n_iter_no_change,
        tol=estimator.tol,
        random_state=estimator.random_state,
        callbacks=estimator.callbacks,
        verbose=estimator.verbose,
        device=estimator.device,
        clip_norm=recipe.get("clip_norm"),
        decay_exempt=recipe.get("decay_exempt", False),
        **budget,
    )


#: Parameters that may differ inside one batch.
_PER_MODEL = ("alpha", "random_state", "lr")


def _batch_key(estimator):
    """What every model of a batch must share: its class and parameters but
    :data:`_PER_MODEL`."""
    params = estimator.get_params(deep=False)
    shared = tuple(
        sorted((k, repr(v)) for k, v in params.items() if k not in _PER_MODEL)
    )
    return (type(estimator), shared)


#: Above this gate strength the gate's range (1 - alpha, 1 + alpha) is wide
#: enough to blow up activations; a divergence then names alpha first.
_LARGE_ALPHA = 100.0


def _causes(X, estimator):
    """Why a fit diverges, likeliest first: a large alpha, a user's gate,
    then unscaled X or a large learning rate."""
    causes = [
        f"X has values of magnitude up to {np.nanmax(np.abs(X)):.3g} (scale X first, "
        f"e.g. with StandardScaler)",
        f"lr={estimator.lr:g} (lower it)",
    ]
    if estimator.gate not in BUILT_IN_GATES:
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
    return "; ".join(causes)


def _check_architecture_kept(estimator):
    """A warm start or partial_fit continues the fitted network, whose
    architecture cannot change: a changed one is refused."""
    built = dict(estimator._architecture_)
    now = dict(estimator._architecture())
    changed = [
        f"{name}={getattr(estimator, name)!r} (built with {value!r})"
        for name, value in built.items()
        if now[name] != value
    ]
    if changed:
        raise ValueError(
            f"warm_start=True and partial_fit continue the fitted network, "
            f"whose architecture cannot change; got {', '.join(changed)}. Set "
            f"them back, or fit afresh (warm_start=False)."
        )


def _row_weights(estimator, X, y_net, sample_weight):
    """Row weights (float64), sample_weight times class_weight, or None."""
    if sample_weight is not None:
        sample_weight = _check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=True
        )
    classes = estimator._class_weights(y_net)
    if classes is not None:
        sample_weight = classes if sample_weight is None else sample_weight * classes
    return sample_weight


def training_spec(estimator, X, y, sample_weight, *, fresh, incremental, classes):
    """``estimator``'s fit on ``X, y`` as the engine's
    :class:`~skgate._engine.spec.TrainingSpec`: its parameters and data
    checked, its targets encoded (setting ``classes_`` or the target scales
    of a fresh fit), its rows weighed."""
    _check_implemented(estimator)
    X, y = estimator._validate_X(X, y, reset=fresh)
    if fresh:
        estimator._check_token_dim(X.shape[1])
    elif not incremental:
        estimator._check_same_targets(y)
    y_net, n_outputs = estimator._prepare_targets(y, reset=fresh, classes=classes)
    weight = _row_weights(estimator, X, y_net, sample_weight)
    continues = None if fresh else estimator.net_
    if continues is not None:
        _check_architecture_kept(estimator)
    design = estimator._design()
    classifier = is_classifier(estimator)
    trained = getattr(estimator, "_callbacks_trained_", None)
    return _engine.TrainingSpec(
        X=X,
        y=y_net,
        sample_weight=weight,
        n_outputs=n_outputs,
        make_module=partial(estimator._build_module, X.shape[1], n_outputs),
        loss=_engine.Loss(
            "cross_entropy" if classifier else "squared_error",
            float(design.get("label_smoothing", 0.0)) if classifier else 0.0,
        ),
        validation_score=estimator._validation_score,
        recipe=_recipe(estimator, design, len(X), incremental=incremental),
        labels=estimator.classes_ if classifier else None,
        net_class=estimator._net_class,
        unused_callbacks=estimator._unused_callbacks,
        alpha=estimator.alpha,
        batch_key=_batch_key(estimator),
        causes=partial(_causes, X, estimator),
        continues=continues,
        callbacks_changed=trained is not None
        and not _engine.same_items(_engine.given(estimator.callbacks), trained),
    )


def fit(
    estimator,
    X,
    y,
    sample_weight=None,
    *,
    incremental=False,
    classes=None,
    keep_on_interrupt=True,
):
    """Fit ``estimator`` on ``X, y``: afresh, on from its fitted network (a
    warm start), or one epoch more (``incremental``: partial_fit, whose
    first call names every class in ``classes``). If that fails, the
    estimator is restored as it was: fitted with its old network (its
    weights, optimizer state and history too: the engine puts a continued
    net back), labels and scales, or unfitted. Ctrl-C in the epochs keeps
    what trained, with a warning, when ``keep_on_interrupt`` (an estimator's
    own fit, as skorch's); otherwise it is raised and the estimator restored
    (a search, :func:`fit_together`)."""
    before = dict(vars(estimator))
    continues = incremental or estimator.warm_start
    fresh = not hasattr(estimator, "net_") or not continues
    try:
        spec = training_spec(
            estimator,
            X,
            y,
            sample_weight,
            fresh=fresh,
            incremental=incremental,
            classes=classes,
        )
        result = _engine.train(
            spec,
            fresh=fresh,
            incremental=incremental,
            keep_on_interrupt=keep_on_interrupt,
        )
        estimator._adopt(result)
    except BaseException:
        vars(estimator).clear()
        vars(estimator).update(before)
        raise
    if result.interrupted:
        warnings.warn(
            f"{type(estimator).__name__}.{'partial_fit' if incremental else 'fit'} "
            f"was interrupted (KeyboardInterrupt) after "
            f"{len(result.loss_curve)} finished epoch(s) of this call; the model "
            "trained so far is kept (its last epoch perhaps in part).",
            UserWarning,
            stacklevel=4,  # the caller of the estimator's fit
        )
    return estimator


def batchable(estimator):
    """Whether ``estimator`` may share a batch: callbacks and verbose output
    observe one model's training, and a warm start continues one."""
    return (
        not estimator.callbacks
        and not estimator.verbose
        and not (estimator.warm_start and hasattr(estimator, "net_"))
    )


def fit_together(estimators, data, *, name_items=False):
    """Fit ``estimators[i]`` on ``data[i] = (X, y, sample_weight or None)``,
    the batchable ones (:func:`batchable`) batched by the engine
    (:func:`skgate._engine.train_together`), each as it would train alone.

    ``name_items``: a ValueError or TypeError raised while checking or
    preparing item ``i`` is raised again, of the same type, prefixed with
    ``estimators[i]`` (its parameters) or ``estimators[i] / data[i]`` (its
    fit on its data), for callers whose user passed the lists; the others
    keep the estimator's own message.

    Returns the estimators, fitted (in place), in their order.
    """
    batched, specs, data_keys = [], [], []
    for i, (estimator, item) in enumerate(zip(estimators, data, strict=True)):
        X, y, sample_weight = item
        # What fit checks first (its _fit_context): the parameters, unless
        # scikit-learn is told to skip that.
        if not get_config()["skip_parameter_validation"]:
            with _naming(f"estimators[{i}]", name_items):
                estimator._validate_params()
        if not batchable(estimator):
            # A fit of its own (callbacks or verbose output watch it), which
            # Ctrl-C ends as it ends the batches: raised, not kept.
            with _naming(f"estimators[{i}] / data[{i}]", name_items):
                fit(estimator, X, y, sample_weight, keep_on_interrupt=False)
            continue
        with _naming(f"estimators[{i}] / data[{i}]", name_items):
            spec = training_spec(
                estimator,
                X,
                y,
                sample_weight,
                fresh=True,
                incremental=False,
                classes=None,
            )
        batched.append((i, estimator))
        specs.append(spec)
        data_keys.append(id(item))
    try:
        # Estimators given the same data tuple (the alphas of one fold)
        # share its tensors in the batch.
        results = _engine.train_together(specs, data_keys=data_keys)
    except (ValueError, TypeError) as exc:
        index = getattr(exc, "spec_index", None)
        if index is None:
            raise
        i = batched[index][0]
        with _naming(f"estimators[{i}] / data[{i}]", name_items):
            raise
    for (_, estimator), result in zip(batched, results, strict=True):
        estimator._adopt(result)
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

"""The checks of :func:`skgate.benchmark_gates`' arguments and the design
they make: every dataset's rows depend on it alone (with the data)."""

import os
from collections.abc import Mapping
from numbers import Integral
from pathlib import Path
from typing import NamedTuple

from joblib import Memory
from sklearn.base import clone, is_classifier
from sklearn.model_selection import ParameterGrid

from .._evaluation import (
    check_alphas,
    check_curvature_params,
    check_gates,
    check_X,
    checked_scorer,
    make_arms,
    make_estimators,
    named_by_class,
)
from ..estimators import GatedAttentionClassifier
from ..nn import GATES
from . import defaults


def good_name(name):
    """A model's name that reads in a comparison's label (``"a > b"``)."""
    return isinstance(name, str) and name.strip() != "" and " > " not in name


class Tuning(NamedTuple):
    """The tuned mode's search: each model's configurations (a tuple of
    dicts, every model as many), its grid as given, and the inner folds."""

    candidates: dict
    grids: dict
    inner_cv: object


class Design(NamedTuple):
    """Everything a dataset's rows depend on (its cache key with the data)."""

    estimators: list
    baselines: dict
    scorer: object
    curvature_params: dict
    cv: object
    n_repeats: int
    random_state: object
    preprocessor: object
    tuning: Tuning = None


def check_datasets(datasets):
    if not isinstance(datasets, Mapping):
        raise TypeError(
            f"datasets must be a mapping of a name to (X, y) or to a loader "
            f"returning (X, y); got {type(datasets).__name__}."
        )
    if len(datasets) < 2:
        raise ValueError(
            f"datasets must hold at least 2 datasets to compare across; got "
            f"{len(datasets)} (compare_gates compares on one)."
        )
    odd = [n for n in datasets if not isinstance(n, str) or not n]
    if odd:
        raise TypeError(f"datasets' names must be non-empty strings; got {odd[0]!r}.")
    return dict(datasets)


def _check_baselines(baselines, arms):
    if baselines is None:
        baselines = defaults.default_baselines()
    elif not isinstance(baselines, Mapping):
        if isinstance(baselines, str) or not hasattr(baselines, "__iter__"):
            raise TypeError(
                f"baselines must be a mapping of a name to an estimator, or a "
                f"sequence of estimators; got {baselines!r}."
            )
        baselines = named_by_class(baselines)
    labels = {label for _, _, label in arms}
    for name, estimator in baselines.items():
        if not good_name(name):
            raise ValueError(
                f"baselines' names must be non-empty strings without ' > '; got "
                f"{name!r}."
            )
        if not (hasattr(estimator, "fit") and is_classifier(estimator)):
            raise TypeError(
                f"baselines[{name!r}] must be a scikit-learn classifier; got "
                f"{estimator!r}."
            )
        if name in labels:
            raise ValueError(
                f"baselines names {name!r}, which is also a gate's name; give the "
                "baseline another name."
            )
    return dict(baselines)


#: The design's preprocessor when none is given: resolved per dataset.
_DEFAULT = "default"


def _check_preprocessor(preprocessor):
    if preprocessor is None:
        return _DEFAULT
    if isinstance(preprocessor, str):
        if preprocessor != "passthrough":
            raise ValueError(
                f"preprocessor must be a transformer, None (standardise numbers, "
                f"one-hot the rest) or 'passthrough'; got {preprocessor!r}."
            )
        return None
    check_X(None, preprocessor)
    return preprocessor


def check_memory(memory):
    if memory is None or isinstance(memory, Memory):
        return memory
    if isinstance(memory, str | bytes) or hasattr(memory, "__fspath__"):
        path = os.fsdecode(memory)
        # joblib writes under it; a file there (or above it) fails only then.
        for folder in (Path(path), *Path(path).parents):
            if folder.exists() and not folder.is_dir():
                raise ValueError(
                    f"memory must be None, a directory path or a joblib.Memory; "
                    f"{path!r} cannot be a directory ({str(folder)!r} is a file)."
                )
            if folder.exists():
                break
        return Memory(path, verbose=0)
    raise TypeError(
        f"memory must be None, a directory path or a joblib.Memory; got {memory!r}."
    )


def _check_inner_cv(inner_cv):
    if isinstance(inner_cv, bool | str | float):
        raise TypeError(
            f"inner_cv must be an int >= 2 (stratified folds) or a scikit-learn "
            f"splitter; got {inner_cv!r}."
        )
    if isinstance(inner_cv, Integral):
        if inner_cv < 2:
            raise ValueError(f"inner_cv must be an int >= 2; got {inner_cv}.")
        return int(inner_cv)
    if not (hasattr(inner_cv, "split") and hasattr(inner_cv, "get_n_splits")):
        raise TypeError(
            f"inner_cv must be an int >= 2 (stratified folds) or a scikit-learn "
            f"splitter (each training part has rows of its own, so a list of "
            f"splits cannot serve them); got {inner_cv!r}."
        )
    return inner_cv


def _candidates(name, model, grid):
    """``grid``'s configurations for the model ``name``, each checked: a
    parameter of the model, not one the design fixes, a valid value."""
    try:
        candidates = list(ParameterGrid(grid))
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"param_grids[{name!r}]: {exc}") from exc
    own = model.get_params()
    gate = isinstance(model, GatedAttentionClassifier)
    fixed = {
        "random_state": "each split's models start from its seed (random_state=)",
        **({
            "gate": "a gate's model is its gate (gates=)",
            "max_epochs": "every gate trains as many epochs (max_epochs=), an "
                          "equal budget",
        } if gate else {}),
    }  # fmt: skip
    for params in candidates:
        for key in params:
            if key not in own:
                raise ValueError(
                    f"param_grids[{name!r}] sets {key!r}, which is not a "
                    f"parameter of {type(model).__name__} (its parameters: "
                    f"{sorted(own)})."
                )
            if key in fixed:
                raise ValueError(
                    f"param_grids[{name!r}] sets {key!r}, which the design fixes: "
                    f"{fixed[key]}."
                )
        if gate and "alpha" in params and not GATES[model.gate].strength:
            raise ValueError(
                f"param_grids[{name!r}] sets 'alpha', which gate {model.gate!r} "
                "ignores (it has no strength): its configurations would repeat."
            )
        configured = clone(model).set_params(**params)
        if hasattr(configured, "_parameter_constraints"):  # a bad value fails here
            try:
                configured._validate_params()
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"param_grids[{name!r}]: {exc}") from exc
    return tuple(candidates)


def _check_tuning(tuning, param_grids, inner_cv, estimators, baselines, alphas):
    """None (every model at its defaults), or the search every model gets:
    its grid (param_grids', else :func:`default_param_grid`), checked, and
    every model with as many configurations."""
    if not (tuning is None or (isinstance(tuning, str) and tuning in defaults.TUNINGS)):
        raise ValueError(
            f"tuning must be None (every model at its defaults) or 'grid' (each "
            f"model at the best of a grid search on every training part); got "
            f"{tuning!r}."
        )
    if tuning is None:
        if param_grids is not None:
            raise ValueError(
                "param_grids is given but tuning=None (every model at its "
                "defaults): set tuning='grid' to search them."
            )
        return None
    if alphas is not None:
        raise ValueError(
            f"alphas={alphas!r} fixes the gates' strengths, and tuning='grid' "
            "searches them: leave alphas=None and give 'alpha' in param_grids."
        )
    inner_cv = _check_inner_cv(inner_cv)
    if param_grids is None:
        param_grids = {}
    if not isinstance(param_grids, Mapping):
        raise TypeError(
            f"param_grids must be a dict of a model's name to its parameter grid "
            f"(or None: default_param_grid's); got {type(param_grids).__name__}."
        )
    models = {label: estimator for (_, _, label), estimator in estimators}
    models.update(baselines)
    unknown = [name for name in param_grids if name not in models]
    if unknown:
        raise ValueError(
            f"param_grids names {unknown[0]!r}, which is not a model of this "
            f"benchmark; its models are {list(models)}."
        )
    candidates, grids = {}, {}
    for name, model in models.items():
        if name in param_grids:
            grids[name] = param_grids[name]
        else:
            try:
                grids[name] = defaults.default_param_grid(model)
            except TypeError as exc:
                raise ValueError(
                    f"param_grids has no grid for {name!r}, and {exc}"
                ) from exc
        candidates[name] = _candidates(name, model, grids[name])
    sizes = {name: len(c) for name, c in candidates.items()}
    if len(set(sizes.values())) > 1 or 0 in sizes.values():
        raise ValueError(
            f"param_grids must give every model as many configurations (an "
            f"equal budget), at least 1; got {sizes} (a model it does not name "
            f"searches default_param_grid's 8)."
        )
    return Tuning(candidates=candidates, grids=grids, inner_cv=inner_cv)


def make_design(gates, alphas, baselines, cv, n_repeats, scoring, curvature_params,
            preprocessor, random_state, estimator_params, tuning=None,
            param_grids=None, inner_cv=defaults.DEFAULT_INNER_CV):  # fmt: skip
    gates = check_gates(gates)
    alphas = check_alphas(alphas, gates)
    arms = make_arms(gates, alphas)
    budget = {} if tuning is None else {"max_epochs": defaults.TUNED_MAX_EPOCHS}
    estimators = make_estimators(
        "classification",
        arms,
        {"random_state": random_state, **budget, **estimator_params},
    )
    if isinstance(cv, Integral) and not isinstance(cv, bool) and n_repeats is None:
        n_repeats = defaults.DEFAULT_REPEATS
    if not isinstance(cv, Integral | str | float) and not hasattr(cv, "split"):
        cv = list(cv)  # an iterable of splits serves every dataset, once read
    if "alpha" in estimator_params:
        raise TypeError(
            "'alpha' is not an estimator parameter here: give the gates' "
            "strengths with alphas= (one value or several)."
        )
    baselines = _check_baselines(baselines, arms)
    return Design(
        estimators=estimators,
        baselines=baselines,
        scorer=checked_scorer(scoring, estimators[0][1]),
        curvature_params=check_curvature_params(curvature_params),
        cv=cv,
        n_repeats=n_repeats,
        random_state=random_state,
        preprocessor=_check_preprocessor(preprocessor),
        tuning=_check_tuning(
            tuning, param_grids, inner_cv, estimators, baselines, alphas
        ),  # fmt: skip
    )


def alphas_of(design):
    """The strengths the gates trained with (NaN for a gate without one)."""
    return {label: alpha for (_, alpha, label), _ in design.estimators}

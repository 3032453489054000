"""One rule for a bool given where a number is meant, shared by every
estimator's parameter validation and every public function's."""

import functools
import inspect

import numpy as np
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    validate_params,
)


def _bool_refused(name, value, constraints, owner):
    """The error for ``value`` given as ``name`` of ``owner``, if it is a
    bool where ``constraints`` allow numbers but no bool; else None."""
    if not isinstance(value, bool | np.bool_) or "boolean" in constraints:
        return None
    if "random_state" in constraints:  # scikit-learn takes True as seed 1
        allowed = "an int, a RandomState instance or None"
    elif any(isinstance(c, Interval) for c in constraints):
        allowed = " or ".join(str(c) for c in constraints if c is not None)
        if None in constraints:
            allowed += " or None"
    else:
        return None
    return InvalidParameterError(
        f"The {name!r} parameter of {owner} must be {allowed}; got {value!r} "
        f"(a bool) instead."
    )


def refuse_bools(estimator):
    """Refuse a bool for any parameter of ``estimator`` whose constraints
    allow numbers but no bool, as scikit-learn refuses other wrong types
    (:class:`~sklearn.utils._param_validation.InvalidParameterError`, a
    ValueError and a TypeError). Python counts True as the int 1, so
    ``batch_size=True`` would otherwise train in batches of one, and
    ``patch_size=True`` and ``patch_size=False`` would be refused by
    different rules."""
    params = estimator.get_params(deep=False)
    for name, constraints in estimator._parameter_constraints.items():
        error = _bool_refused(
            name, params.get(name), constraints, type(estimator).__name__
        )
        if error is not None:
            raise error


def refuse_bool_arguments(constraints, given, owner):
    """Refuse a bool among ``given`` arguments (a dict) of ``owner`` where
    its ``constraints`` allow numbers but no bool (:func:`refuse_bools`)."""
    for name, value in given.items():
        error = _bool_refused(name, value, constraints.get(name, ()), owner)
        if error is not None:
            raise error


def validate_args(constraints, **options):
    """scikit-learn's ``validate_params`` for a public function, with the
    estimators' rule for bools (:func:`refuse_bools`): ``n_samples=True``
    is refused by name, not taken as 1. Arguments that do not fit the
    signature raise Python's TypeError, naming the function (scikit-learn's
    wrapper leaves its name out)."""

    def decorate(function):
        checked = validate_params(constraints, **options)(function)
        signature = inspect.signature(function)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            try:
                given = signature.bind(*args, **kwargs).arguments
            except TypeError as error:  # as Python says it, with the name
                raise TypeError(f"{function.__qualname__}() {error}") from None
            refuse_bool_arguments(constraints, given, function.__qualname__)
            return checked(*args, **kwargs)

        return wrapper

    return decorate

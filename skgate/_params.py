"""One rule for a bool given where a number is meant, shared by every
estimator's parameter validation."""

import numpy as np
from sklearn.utils._param_validation import Interval, InvalidParameterError


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
        value = params.get(name)
        if not isinstance(value, bool | np.bool_) or "boolean" in constraints:
            continue
        if any(isinstance(c, Interval) for c in constraints):
            allowed = " or ".join(str(c) for c in constraints if c is not None)
            if None in constraints:
                allowed += " or None"
            raise InvalidParameterError(
                f"The {name!r} parameter of {type(estimator).__name__} must be "
                f"{allowed}; got {value!r} (a bool) instead."
            )

"""Argument checks the library's modules share: numbers, counts, levels and
seeds, each refused with a message naming the argument, what was given and
what is allowed.

Read by :mod:`skgate.paired` (and its tests across datasets), by the
evaluation that :func:`skgate.compare_gates` and :func:`skgate.benchmark_gates`
share, and by :mod:`skgate.nn`'s checks; numpy only, so that any of them may
import it.
"""

from numbers import Integral, Real

import numpy as np


def short_repr(value):
    """``repr(value)``, cut to 60 characters for a message; a value whose
    repr spans lines (a DataFrame) is named by its type and shape."""
    text = repr(value)
    if "\n" in text:
        shape = getattr(value, "shape", None)
        return f"a {type(value).__name__}" + (f" of shape {shape}" if shape else "")
    return text if len(text) <= 60 else text[:57] + "..."


def as_floats(values, name, allowed):
    """``values`` as a float array, or a ValueError saying ``allowed`` (a
    string, an array holding one, or an object that is not numbers): a
    number's text ("0.5") and a bool are refused (:data:`_NOT_NUMBERS`),
    not read as a number."""
    if values is None or isinstance(values, str | bytes):
        raise ValueError(f"{allowed}; got {values!r}.")
    try:
        raw = np.asarray(values)
        if raw.dtype.kind in "US":  # numpy made every item text: find the given text
            raw = np.asarray(values, dtype=object)
    except (TypeError, ValueError) as exc:  # e.g. rows of different lengths
        raise ValueError(f"{allowed}; got {short_repr(values)} ({exc}).") from exc
    items = _items(raw, values)
    for kind, is_kind in _NOT_NUMBERS.items():
        found = _first_of(items, is_kind)
        if found is not None:
            item, index = found
            at = f" at index {index}" if items.ndim else ""
            raise ValueError(
                f"{allowed}; got {short_repr(values)} ({short_repr(item)}{at} is "
                f"{kind}, not a number)."
            )
    if raw.dtype.kind == "c" or (
        raw.dtype == object and any(isinstance(v, complex) for v in raw.ravel())
    ):  # numpy would drop the imaginary part with a warning
        raise ValueError(f"{allowed}; got complex numbers ({short_repr(values)}).")
    try:
        return raw.astype(float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{allowed}; got {short_repr(values)} ({exc}).") from exc


#: What :func:`as_floats` refuses though numpy would make it a float: a
#: number's text ("0.5") and a bool (True would count as 1.0).
_NOT_NUMBERS = {
    "text": lambda v: isinstance(v, str | bytes),
    "a bool": lambda v: isinstance(v, bool | np.bool_),
}


def _items(raw, values):
    """The items of ``values`` to look at for what is not a number, or None
    when there can be none. ``raw`` is ``np.asarray(values)``: numpy makes
    [0.5, True] and [0.5, "1"] floats or text, so the items of a list or a
    tuple are looked at as given; an array or a table of numbers holds
    neither."""
    if raw.dtype.kind == "b" or raw.dtype == object:
        return raw
    if isinstance(values, list | tuple):
        return np.asarray(values, dtype=object)
    return None


def _first_of(items, is_kind):
    """The first of ``items`` (an array, or None) for which ``is_kind``
    holds and its index (an int, or a tuple past 1-D), or None."""
    if items is None or items.size == 0:
        return None
    where = np.argwhere(np.vectorize(is_kind, otypes=[bool])(items))
    if not len(where):
        return None
    index = tuple(int(i) for i in where[0])
    item = items[index]
    item = item.item() if isinstance(item, np.generic) else item  # True, not np.True_
    return item, index[0] if len(index) == 1 else index


def finite_values(values, name):
    """``values`` as a float array, checked: 1-D, at least 2, all finite
    (``name``: the argument, for the error)."""
    allowed = f"{name} must be a 1-D sequence of at least 2 finite numbers"
    d = as_floats(values, name, allowed)
    if d.ndim != 1 or len(d) < 2:
        raise ValueError(f"{allowed}; got shape {d.shape}.")
    bad = np.flatnonzero(~np.isfinite(d))
    if len(bad):
        raise ValueError(f"{allowed}; got {float(d[bad[0]])!r} at index {bad[0]}.")
    return d


def finite_table(values, name, axes, least):
    """``values`` as a 2-D float array of finite numbers with at least
    ``least`` (rows, columns); ``axes`` names the two (e.g. ("splits",
    "arms")) for the error."""
    allowed = f"{name} must be a 2-D ({axes[0]}, {axes[1]}) table of finite numbers"
    table = as_floats(values, name, allowed)
    if table.ndim != 2 or table.shape[0] < least[0] or table.shape[1] < least[1]:
        raise ValueError(
            f"{allowed} of shape at least {tuple(least)}; got shape {table.shape}."
        )
    if not np.isfinite(table).all():
        raise ValueError(f"{allowed}; got NaN or infinity.")
    return table


def check_number(value, name, allowed, ok):
    """``value`` as a float when it is a real number (not a bool) for which
    ``ok`` holds; else a TypeError or ValueError saying ``allowed``."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be {allowed}; got {short_repr(value)}.")
    if not ok(float(value)):
        raise ValueError(f"{name} must be {allowed}; got {value!r}.")
    return float(value)


def check_level(value, name):
    """A probability strictly between 0 and 1 (a level or a tail)."""
    return check_number(value, name, "a number in (0, 1)", lambda a: 0 < a < 1)


def check_count(name, value, least, most=None):
    """``value`` as an int (not a bool) >= ``least`` (and <= ``most``, a
    named constant, if given)."""
    allowed = f"an int >= {least}" if most is None else f"an int from {least} to {most}"
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be {allowed}; got {short_repr(value)}.")
    if value < least or (most is not None and value > most):
        raise ValueError(f"{name} must be {allowed}; got {value}.")
    return int(value)


def check_random_state(random_state, *, generators=False):
    """A TypeError or ValueError naming ``random_state`` unless it is None
    or a seed (an int, not a bool, in [0, 2^32 - 1]); with ``generators``,
    a numpy Generator or RandomState too (what scipy draws from)."""
    allowed = "random_state must be None or an int in [0, 2**32 - 1]"
    if generators:
        allowed = (
            "random_state must be None, an int in [0, 2**32 - 1] or a numpy "
            "Generator or RandomState"
        )
        if isinstance(random_state, np.random.Generator | np.random.RandomState):
            return
    if random_state is None:
        return
    if isinstance(random_state, bool | np.bool_) or not isinstance(
        random_state, Integral
    ):
        raise TypeError(f"{allowed}; got {short_repr(random_state)}.")
    if not 0 <= random_state < 2**32:
        raise ValueError(f"{allowed}; got {random_state!r}.")

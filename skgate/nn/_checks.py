"""Argument checks shared by the modules and the gate registry: each refuses a
bad value with a message naming the argument and what is allowed."""

import math
from numbers import Integral, Real


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an int >= {minimum}; got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}; got {value!r}.")


def _check_option(name, value, options):
    if value not in options:
        raise ValueError(f"{name} must be one of {list(options)}; got {value!r}.")


def _check_real(name, value, *, minimum, strict):
    bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number {bound}; got {value!r}.")
    inside = value > minimum if strict else value >= minimum
    if not inside or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite real number {bound}; got {value!r}.")

"""Time series as the network reads them: layouts, checks and token rows.

Private to skgate: the estimators (:mod:`skgate._inputs`,
:mod:`skgate._represent`), :mod:`skgate.nn`, :mod:`skgate.compare`,
:mod:`skgate.benchmark` and :mod:`skgate.inspection` read it. A collection
of series comes as a 3-D array
``(n_cases, n_channels, n_timepoints)`` (aeon's and sktime's "numpy3D") or as
a list of 2-D arrays ``(n_channels, n_timepoints_i)`` of unequal length
(aeon's unequal collection). The network reads a row of tokens: each token is
a patch of ``patch_size`` consecutive time points of every channel, laid out
time-major (``token_dim = patch_size * n_channels``); a series shorter than
the longest is followed by padding tokens. In a row, NaN marks where a
series has no value (user input with NaN is refused, so NaN means padding
and nothing else): its padding tokens, and the rest of its last patch when
``patch_size`` does not divide its length, which the network reads as zeros
(as the series would be alone). The engine masks padding tokens out of
attention and pooling, and prediction computes each row at its own length,
so padding changes nothing (:class:`SeriesRows`).
"""

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

#: Tokens a series becomes at most with ``patch_size="auto"``: the smallest
#: patch that keeps a series within this many tokens (attention's memory
#: and time grow with their square). Chosen by measurement:
#: benchmarks/results/PATCH.md.
MAX_TOKENS = 32

#: What a sequence input may be, for error messages.
ALLOWED = (
    "a 2-D array (n_samples, n_features), a 3-D array (n_cases, n_channels, "
    "n_timepoints), or a list of 2-D arrays (n_channels, n_timepoints_i)"
)


@dataclass(frozen=True)
class SeriesLayout:
    """How series become a network's rows: set at fit, fixed after."""

    #: Channels of every series.
    n_channels: int
    #: The longest series of the fit.
    n_timepoints: int
    #: Time points per token.
    patch_size: int

    @property
    def n_tokens(self):
        """Tokens of the longest series (the network's positions)."""
        return math.ceil(self.n_timepoints / self.patch_size)

    @property
    def token_dim(self):
        return self.patch_size * self.n_channels

    @property
    def n_features(self):
        """Width of a row."""
        return self.n_tokens * self.token_dim


class SeriesRows(np.ndarray):
    """Rows of tokens (float64, ``(n, layout.n_features)``) that remember
    their :class:`SeriesLayout`: what an estimator's checks return for
    series, and accept again as they are (the folds of a search, a fit of
    many models), so that every model of a search reads one layout."""

    def __array_finalize__(self, obj):
        self.layout = getattr(obj, "layout", None)

    def __reduce__(self):
        # Pickled as a plain array with its layout (joblib's workers).
        return _rebuild, (np.asarray(self), self.layout)


def _rebuild(array, layout):
    return as_series_rows(array, layout)


def as_series_rows(array, layout):
    rows = np.asarray(array).view(SeriesRows)
    rows.layout = layout
    return rows


def as_collection(X):
    """``X`` as the estimators read it, or a one-line error naming X for a
    container no layout allows: a pandas Series or 1-D object array of
    series becomes a list of them, and so does a sequence without ``ndim``
    (a custom class); a generator, an empty list, a list of 1-D arrays of
    unequal length or of arrays of more than 2 dimensions is refused."""
    if isinstance(X, Iterator):
        raise TypeError(
            f"X is a {type(X).__name__}, read once; allowed: {ALLOWED} (pass list(X))."
        )
    objects = (isinstance(X, np.ndarray) and X.dtype == object and X.ndim == 1) or (
        type(X).__name__ == "Series" and hasattr(X, "to_numpy")
    )
    if objects and len(X) and all(np.ndim(x) >= 1 for x in X):
        X = list(X)  # a column of arrays, as pandas and aeon's nested data hold them
    if _is_sequence(X):  # read as a tuple is (a 3-D one: series, as numpy reads it)
        X = [X[i] for i in range(len(X))]
    if type(X).__name__ == "DataFrame" and X.size and np.ndim(X.iat[0, 0]) >= 1:
        raise TypeError(
            f"X is a pandas DataFrame of series in its cells (sktime's nested "
            f"layout); allowed: {ALLOWED}. Convert it to a 3-D array or a list "
            f"of 2-D arrays first (e.g. aeon's or sktime's converters)."
        )
    if not isinstance(X, list | tuple):
        return X
    if not X:
        raise ValueError(f"X is an empty {type(X).__name__}; allowed: {ALLOWED}.")
    dims = []
    for i, x in enumerate(X):
        try:
            dims.append(np.ndim(x))
        except ValueError as exc:  # nested lists of unequal length
            raise ValueError(
                f"X[{i}] is ragged: its channels differ in length; allowed: "
                f"{ALLOWED} (every channel of a series of one length)."
            ) from exc
    if 2 in dims and min(dims) < 2:  # a series list with a stray item
        i = next(i for i, d in enumerate(dims) if d < 2)
        given = "None" if X[i] is None else f"of shape {np.shape(X[i])}"
        raise ValueError(
            f"X[{i}] is {given} and X[{dims.index(2)}] is a 2-D series; "
            f"allowed: {ALLOWED} (every series 2-D: (n_channels, n_timepoints); "
            f"a univariate series x is x[None, :])."
        )
    for i, d in enumerate(dims):
        if d > 2:
            raise ValueError(
                f"X[{i}] has shape {np.shape(X[i])}; allowed: {ALLOWED} "
                f"(every series 2-D: (n_channels, n_timepoints))."
            )
    if dims[0] == 1:
        lengths = {len(x) for x in X if np.ndim(x) == 1}
        if len(lengths) > 1:
            raise ValueError(
                f"X is a list of 1-D arrays of unequal length ({min(lengths)} to "
                f"{max(lengths)}); allowed: {ALLOWED}. A univariate series is "
                f"(1, n_timepoints): pass [x[None, :] for x in X]."
            )
    return X


def _is_sequence(X):
    """Whether ``X`` is a sequence of items that is not an array or a table
    (no ``ndim``, ``shape``, ``__array__`` or ``__dataframe__``: a custom
    class), nor a list, a tuple, a text or a mapping."""
    array_like = ("ndim", "shape", "__array__", "__dataframe__")
    return (
        hasattr(X, "__len__")
        and hasattr(X, "__getitem__")
        and not any(hasattr(X, name) for name in array_like)
        and not isinstance(X, list | tuple | str | bytes | Mapping)
    )


def is_multiindex(X):
    """Whether ``X`` is in aeon's "pd-multiindex" layout of series: a pandas
    DataFrame whose rows are indexed by (case, time point), a column per
    channel (or a table whose rows have a 2-level index)."""
    index = getattr(X, "index", None)
    return type(X).__name__ == "DataFrame" and getattr(index, "nlevels", 1) == 2


def multiindex_error(X, why):
    """The TypeError for ``X`` in aeon's "pd-multiindex" layout
    (:func:`is_multiindex`), said with ``why`` it cannot be the table it
    also is. Refused, as the nested layout is (:func:`as_collection`): aeon
    converts both."""
    cases = X.index.get_level_values(0).nunique()
    return TypeError(
        f"X is a pandas DataFrame of {len(X)} rows indexed by (case, time "
        f"point): {cases} series in aeon's 'pd-multiindex' layout, {why}; "
        f"allowed: {ALLOWED}. Convert it first: "
        f"aeon.utils.conversion.convert_collection(X, 'np-list') (or "
        f"'numpy3D' for series of one length)."
    )


def is_series(X):
    """Whether ``X`` is a collection of series (3-D, or a list of 2-D
    arrays) rather than a table."""
    if isinstance(X, SeriesRows):
        return True
    if isinstance(X, (list, tuple)):
        # A list whose first item is 2-D; check_series names any other item.
        try:
            return len(X) > 0 and np.ndim(X[0]) == 2
        except ValueError:  # a ragged nested list: not a series either
            return False
    return np.ndim(X) == 3 if hasattr(X, "ndim") else False


def check_series(X):
    """The series of ``X`` as float64 arrays (n_channels, n_timepoints_i),
    or a ValueError/TypeError naming X."""
    series = list(X)
    if not series:
        raise ValueError(f"X holds no series; allowed: {ALLOWED}, with >= 1 case.")
    checked = []
    for i, x in enumerate(series):
        if np.iscomplexobj(x):
            raise TypeError(
                f"X[{i}] holds complex numbers; allowed: real numbers (pass "
                f"the real and imaginary parts as channels)."
            )
        try:
            x = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            if _holds_missing(x):  # pd.NA or None: missing, as NaN is
                raise ValueError(
                    f"X[{i}] contains missing values (pd.NA or None); allowed: "
                    f"finite values (fill or drop missing values first; series "
                    f"of unequal length are passed as a list, without padding)."
                ) from exc
            raise TypeError(
                f"X[{i}] is not an array of numbers ({exc}); allowed: {ALLOWED}."
            ) from exc
        if x.ndim != 2:
            raise ValueError(
                f"X[{i}] has shape {x.shape}; allowed: {ALLOWED} "
                f"(every series 2-D: (n_channels, n_timepoints))."
            )
        if x.shape[1] == 0 or x.shape[0] == 0:
            raise ValueError(
                f"X[{i}] is empty (shape {x.shape}); every series needs >= 1 "
                f"channel and >= 1 time point."
            )
        if checked and x.shape[0] != checked[0].shape[0]:
            raise ValueError(
                f"X[{i}] has {x.shape[0]} channels and X[0] has "
                f"{checked[0].shape[0]}; allowed: the same channels in every "
                f"series (lengths may differ)."
            )
        if not np.isfinite(x).all():
            raise ValueError(
                f"X[{i}] contains NaN or infinity; allowed: finite values "
                f"(fill or drop missing values first; series of unequal "
                f"length are passed as a list, without padding)."
            )
        checked.append(x)
    return checked


def _holds_missing(x):
    """Whether ``x`` holds a missing value pandas knows (pd.NA, None, NaT)."""
    import pandas as pd

    try:
        return bool(pd.isna(np.asarray(x, dtype=object)).any())
    except (TypeError, ValueError):
        return False


def auto_patch(longest, *, pooled=True):
    """``patch_size="auto"`` for series of at most ``longest`` time points:
    the smallest patch ``m`` that keeps them within :data:`MAX_TOKENS`
    tokens; for the convolutional stem (``pooled``) rounded up to ``p *
    ceil(m / p)``, ``p = ceil(sqrt(m))``: a max-pool of ``p`` then a stride
    of ``ceil(m / p)`` (8 -> 9, 46 -> 49), its two steps of down-sampling.

    >>> auto_patch(251), auto_patch(251, pooled=False), auto_patch(1460)
    (9, 8, 49)
    """
    m = math.ceil(longest / MAX_TOKENS)
    if not pooled:
        return m
    p = math.isqrt(m - 1) + 1
    return p * math.ceil(m / p)


def layout_of(series, patch_size, *, pooled=True):
    """The :class:`SeriesLayout` a fit on ``series`` sets (``pooled``: for
    the convolutional stem, see :func:`auto_patch`)."""
    longest = max(x.shape[1] for x in series)
    if patch_size == "auto":
        patch_size = auto_patch(longest, pooled=pooled)
    elif patch_size > longest:  # one token of mostly zeros, or no memory at all
        raise ValueError(
            f"patch_size={patch_size} is longer than the longest series of X "
            f"({longest} time points); allowed: 'auto' or an int from 1 to "
            f"{longest} (patch_size={longest} makes each series one token)."
        )
    return SeriesLayout(series[0].shape[0], longest, int(patch_size))


def check_fits(series, layout, attention="softmax"):
    """A ValueError naming X if ``series`` do not fit a model of ``layout``
    and ``attention``: softmax attention takes series up to the fit's
    tokens, fixed attention (its weights mix every token) series of exactly
    the fit's tokens."""
    channels = series[0].shape[0]
    if channels != layout.n_channels:
        raise ValueError(
            f"X has series of {channels} channels, but the model was fitted on "
            f"{layout.n_channels}; allowed: {layout.n_channels} channels."
        )
    capacity = layout.n_tokens * layout.patch_size
    if attention != "softmax":  # its weights mix the fit's tokens, all full
        shortest = capacity - layout.patch_size + 1
        lengths = [x.shape[1] for x in series]
        wrong = [i for i, n in enumerate(lengths) if not shortest <= n <= capacity]
        if wrong:
            takes = f"{shortest} to {capacity}" if shortest < capacity else capacity
            raise ValueError(
                f"X[{wrong[0]}] has {lengths[wrong[0]]} time points, and this "
                f"model (attention={attention!r}, fitted on series of "
                f"{layout.n_timepoints} time points) takes series of {takes}: "
                f"its fixed weights mix {layout.n_tokens} tokens of patch_size "
                f"{layout.patch_size}. Allowed: series of {takes} time points "
                f"(a model fitted with attention='softmax' takes series of "
                f"varying length)."
            )
    longest = max(x.shape[1] for x in series)
    if longest > capacity:
        raise ValueError(
            f"X has a series of {longest} time points, longer than the model "
            f"takes ({capacity}: the longest series of the fit, "
            f"{layout.n_timepoints}, in patches of {layout.patch_size}); "
            f"allowed: series of at most {capacity} time points."
        )


def to_rows(series, layout):
    """``series`` as :class:`SeriesRows` of ``layout``: NaN wherever a
    series has no value (the rest of its last patch, and its padding
    tokens)."""
    rows = np.full((len(series), layout.n_features), np.nan)
    for i, x in enumerate(series):
        channels, length = x.shape
        rows[i, : length * channels] = x.T.reshape(-1)  # time-major
    return as_series_rows(rows, layout)


def series_of(rows):
    """The series of :class:`SeriesRows` ``rows`` as given: a 3-D array when
    they are of one length, else a list of 2-D arrays (n_channels, n_i)."""
    layout = rows.layout
    lengths = series_lengths(rows, layout)
    series = [
        series_values(rows[i : i + 1], layout, n).reshape(layout.n_channels, n)
        for i, n in enumerate(lengths)
    ]
    return np.stack(series) if len(set(lengths)) == 1 else series


def token_counts(rows, layout):
    """Each row's tokens before its padding (a token is padding when its
    first value is missing)."""
    first = np.asarray(rows)[:, :: layout.token_dim]
    return (~np.isnan(first)).sum(axis=1)


def series_lengths(rows, layout):
    """Each row's time points."""
    first_channel = np.asarray(rows)[:, :: layout.n_channels]
    return (~np.isnan(first_channel)).sum(axis=1)


def series_values(rows, layout, length):
    """The values of rows of series of ``length`` time points, channel-major
    (k, n_channels * length), as ``X.reshape(k, -1)`` flattens a 3-D array."""
    k = len(rows)
    values = np.asarray(rows)[:, : length * layout.n_channels]
    values = values.reshape(k, length, layout.n_channels).transpose(0, 2, 1)
    return np.ascontiguousarray(values.reshape(k, -1))


def series_tokens(x, layout, length):
    """A network's rows from series values ``x`` (..., n_channels *
    length), channel-major (:func:`series_values`): time-major tokens, the
    rest of the last patch zeros. A linear map, so that the geometry
    differentiates through it along directions in the series' own
    coordinates."""
    lead = x.shape[:-1]
    x = x.reshape(*lead, layout.n_channels, length)
    padded = math.ceil(length / layout.patch_size) * layout.patch_size
    x = F.pad(x, (0, padded - length))
    return x.transpose(-1, -2).reshape(*lead, -1)


class SeriesMap:
    """The representation map of a network reading series of ``length``
    time points, as a function of their values (:func:`series_tokens`,
    then :class:`skgate.nn.RepresentationMap` with the root-mean-square over
    the series' own tokens), with its exact jet."""

    def __init__(self, module, layer, layout, length):
        from .nn import RepresentationMap

        self.inner = RepresentationMap(module, layer, token_rms=True)
        if layer == "attention" or not isinstance(layer, str):
            self.inner.scale = 1 / math.sqrt(math.ceil(length / layout.patch_size))
        self.layout, self.length = layout, length

    def _tokens(self, x):
        width = self.layout.n_channels * self.length
        if not (
            isinstance(x, torch.Tensor)
            and x.dtype == torch.float64
            and x.shape[-1:] == (width,)
        ):
            given = (
                f"a tensor of dtype {x.dtype} and shape {tuple(x.shape)}"
                if isinstance(x, torch.Tensor)
                else type(x).__name__
            )
            raise TypeError(
                f"x must be a torch tensor of dtype torch.float64 of shape (n, "
                f"{width}): series of {self.length} time points, channel-major "
                f"(X.reshape(n, -1)); got {given}."
            )
        return series_tokens(x, self.layout, self.length)

    def __call__(self, x):
        return self.inner(self._tokens(x))

    def jet(self, x, v):
        return self.inner.jet(self._tokens(x), self._tokens(v))


def check_patch_size(patch_size, kind):
    """``patch_size`` must be "auto" or 1 for a table (it groups time
    points of series). Its type, a bool included, is checked with every
    parameter before (:func:`skgate._params.refuse_bools`)."""
    if kind == "table" and patch_size not in ("auto", 1):
        raise ValueError(
            f"patch_size={patch_size!r} groups the time points of series (a 3-D "
            f"array or a list of 2-D arrays); X is a 2-D table, whose tokens "
            f"token_dim sets. Allowed for a table: patch_size='auto' or 1."
        )

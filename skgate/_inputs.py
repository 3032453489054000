"""What an estimator accepts as rows and labels: X as a table or as series
(checked and laid out as tokens, before any training) and a classifier's
labels and class weights.

:class:`ChecksInputs` is a mixin of the estimators; ``_validate_X`` sets
``n_features_in_`` (and ``series_layout_``) on a fresh fit and checks them
afterwards, as scikit-learn's ``validate_data`` does.
"""

import inspect
from numbers import Real

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _num_samples, check_X_y, validate_data

from . import _series

#: The largest magnitude the model's float32 weights and activations hold.
FLOAT32_MAX = float(np.finfo(np.float32).max)


def _check_table_values(X):
    """Refuse complex numbers and a DataFrame's text columns by name, before
    scikit-learn's check (which prints a complex X whole, and names no
    column of text)."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "items"):  # a DataFrame
        complex_ = [str(c) for c, t in dtypes.items() if t.kind == "c"]
        if complex_:
            raise ValueError(
                f"X's columns {complex_} hold complex numbers; allowed: real numbers."
            )
        text = [
            str(c) for c, t in dtypes.items()
            if t.kind not in "biuf" and not _numeric(X[c])
        ]  # fmt: skip
        if text:
            raise ValueError(
                f"X's columns {text} hold text or categories, not numbers; "
                f"encode them first (e.g. OneHotEncoder in a ColumnTransformer)."
            )
        return
    if isinstance(X, np.ndarray) and np.iscomplexobj(X):
        raise ValueError(
            f"X holds complex numbers (dtype {X.dtype}): Complex data not "
            f"supported; allowed: real numbers."
        )


def _numeric(column):
    """Whether a DataFrame column of another dtype holds numbers only."""
    try:
        np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


def _n_labels(y):
    """The number of labels in ``y`` (None: it has no length, which
    scikit-learn's checks name)."""
    try:
        return _num_samples(y)
    except TypeError:
        return None


def check_labels(y, name="y"):
    """The sorted distinct labels of ``y`` (the argument ``name``), or a
    TypeError if they do not sort."""
    if isinstance(y, list | tuple):  # numpy would turn [0, "a"] into text
        _refuse_mixed(np.asarray(y, dtype=object).ravel(), name)
    try:
        if name != "y":
            _refuse_missing(np.asarray(y, dtype=object).ravel(), name, None)
        check_classification_targets(y)
        return np.unique(y)
    except (TypeError, ValueError) as exc:
        labels = np.asarray(y).ravel()
        _refuse_missing(labels, name, exc)
        _refuse_mixed(labels, name, exc)
        raise  # scikit-learn's own message (e.g. continuous targets)


def _refuse_missing(labels, name, exc):
    """None or NaN among ``labels``, refused by row (scikit-learn says
    "Unknown label type: unknown", or "Input y contains NaN" of classes)."""
    missing = [
        i for i, label in enumerate(labels)
        if label is None or (isinstance(label, float) and label != label)
    ]  # fmt: skip
    if missing:
        where = "row" if name == "y" else "position"
        raise ValueError(
            f"{name} holds None or NaN at {len(missing)} {where}(s) (first: "
            f"{where} {missing[0]}); allowed: a label at every {where}."
        ) from exc


def _refuse_mixed(labels, name, exc=None):
    """Labels of text and of numbers together, refused: they do not sort."""
    kinds = sorted({type(label).__name__ for label in labels})
    text = any(isinstance(label, str) for label in labels)
    if text and len(kinds) > 1:
        raise TypeError(
            f"{name} mixes labels of types {kinds}, which cannot be sorted into "
            f"classes_; allowed: labels of one type (all numbers or all strings)."
        ) from exc


def check_class_weight_value(label, value):
    """A class weight must be a finite number >= 0, as a sample weight."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(
            f"class_weight[{label!r}] is {value!r} of type {type(value).__name__}; "
            f"allowed: a finite number >= 0."
        )
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(
            f"class_weight[{label!r}] is {value!r}; allowed: a finite number "
            f">= 0 (a class of weight 0 takes no part in training, as a row of "
            f"sample_weight 0)."
        )


class ChecksInputs:
    """The checks of X (a table or series) that every estimator method runs."""

    def _check_y_dimensions(self, y):
        """``y`` of 3 dimensions or more, refused by name (scikit-learn's own
        message, "Found array with dim 3", names neither y nor what is
        allowed; a 2-D y is left to scikit-learn, whose messages name it)."""
        try:
            y = np.asarray(y)
        except (TypeError, ValueError):  # ragged nested lists: scikit-learn's
            return
        allowed = (
            "(n_samples,) or (n_samples, n_outputs)"
            if self._y_checks.get("multi_output")
            else "(n_samples,)"
        )
        if y.ndim > 2:
            raise ValueError(
                f"y has {y.ndim} dimensions (shape {y.shape}); "
                f"{type(self).__name__} takes y of shape {allowed}."
            )
        if y.ndim == 2 and y.shape[1] == 0:  # scikit-learn: "0 feature(s)"
            raise ValueError(
                f"y has no columns (shape {y.shape}): no target to learn; "
                f"{type(self).__name__} takes y of shape {allowed} with "
                f"n_outputs >= 1."
            )
        if np.iscomplexobj(y):
            raise ValueError(
                f"y holds complex numbers (dtype {y.dtype}): Complex data not "
                f"supported; allowed: real numbers or class labels."
            )

    def _validate_X(self, X, y="no_validation", *, reset):
        """Validate X (and y, when given) like scikit-learn: float64 X, or (X, y).

        ``reset``: a fresh fit sets ``n_features_in_``; otherwise X must match it.
        Series (a 3-D array, a list of 2-D arrays) become
        :class:`~skgate._series.SeriesRows` of the fit's layout.
        """
        predicting = isinstance(y, str) and y == "no_validation"
        if not predicting:
            self._check_y_dimensions(y)
            if _series.is_multiindex(X) and _n_labels(y) != len(X):
                raise _series.multiindex_error(X, f"and y has {_n_labels(y)} labels")
        X = _series.as_collection(X)
        if getattr(X, "ndim", 0) > 3:
            raise ValueError(
                f"X has {X.ndim} dimensions (shape {X.shape}); allowed: "
                f"{_series.ALLOWED}."
            )
        if _series.is_series(X):
            X = self._validate_series(X, reset=reset)
            if predicting:
                return X
            _, y = check_X_y(np.zeros((len(X), 1)), y, **self._y_checks)
            return X, y
        _series.check_patch_size(self.patch_size, "table")
        if not reset and getattr(self, "series_layout_", None) is not None:
            if _series.is_multiindex(X):
                raise _series.multiindex_error(
                    X, f"and this {type(self).__name__} was fitted on series"
                )
            raise ValueError(
                f"X is a table (shape {np.shape(X)}), but this "
                f"{type(self).__name__} was fitted on series; allowed: a 3-D "
                f"array (n_cases, n_channels, n_timepoints) or a list of 2-D "
                f"arrays (n_channels, n_timepoints_i) of "
                f"{self.series_layout_.n_channels} channels."
            )
        _check_table_values(X)
        try:
            if not predicting:
                X, y = validate_data(
                    self, X, y, reset=reset, dtype=np.float64, **self._y_checks
                )
            else:
                X = validate_data(self, X, reset=reset, dtype=np.float64)
        except ValueError as exc:  # numpy's message names no argument
            if not str(exc).startswith("could not convert"):
                raise
            raise ValueError(
                f"X holds values that are not numbers ({exc}); the estimators "
                f"take numbers: encode text first (e.g. OneHotEncoder in a "
                f"ColumnTransformer)."
            ) from exc
        # Any layout (reversed, strided, Fortran): torch reads C-contiguous rows.
        X = np.ascontiguousarray(X)
        # Checked in float64, before the cast: a value beyond float32's range
        # would become inf in the model and its outputs NaN.
        if X.size and np.abs(X).max() > FLOAT32_MAX:
            raise ValueError(
                f"X has a value of magnitude {np.abs(X).max():.3g}, beyond the "
                f"float32 range of the model (<= {FLOAT32_MAX:.3g}); scale X "
                f"first, e.g. with sklearn.preprocessing.StandardScaler."
            )
        if reset:
            self.series_layout_ = None
        return X if predicting else (X, y)

    def _validate_series(self, X, *, reset):
        """Series ``X`` as rows of tokens: a fresh fit sets the layout
        (``series_layout_``, ``n_features_in_`` = channels); later calls
        must fit it."""
        fitted = getattr(self, "series_layout_", None)
        if not reset and fitted is None:
            raise ValueError(
                f"X holds series (a 3-D array or a list of 2-D arrays), but this "
                f"{type(self).__name__} was fitted on a table; allowed: a 2-D "
                f"array of {self.n_features_in_} features."
            )
        _series.check_patch_size(self.patch_size, "series")
        if isinstance(X, _series.SeriesRows):
            # Rows this estimator's checks made (the folds of a search).
            if not reset and X.layout != fitted:
                raise ValueError(
                    f"X was laid out as {X.layout}, the model as {fitted}."
                )
            rows = X
        else:
            series = _series.check_series(X)
            if reset:
                # The convolutional stem (embedding "auto" for series) pools
                # and strides its way to the tokens.
                pooled = self.embedding in ("auto", "conv")
                layout = _series.layout_of(series, self.patch_size, pooled=pooled)
            else:
                layout = fitted
                _series.check_fits(series, layout, self.attention)
            rows = _series.to_rows(series, layout)
        if reset:
            if self.token_dim is not None:
                raise ValueError(
                    f"token_dim={self.token_dim!r} reads a 2-D table as a "
                    f"sequence; X holds series, whose tokens are patch_size "
                    f"time points of every channel. Allowed with series: "
                    f"token_dim=None."
                )
            # Not read with series, so a search over it would compare
            # identical models; only its default can be told apart from none.
            unread = inspect.signature(type(self)).parameters["n_tokens"].default
            if self.n_tokens != unread:
                raise ValueError(
                    f"n_tokens={self.n_tokens!r} copies a 2-D table's row into "
                    f"tokens; X holds series, whose tokens are their patches "
                    f"({rows.layout.n_tokens} tokens of patch_size "
                    f"{rows.layout.patch_size} here: patch_size sets them). "
                    f"Allowed with series: n_tokens={unread} (the default, "
                    f"unread)."
                )
        uneven = np.isnan(np.asarray(rows)[:, :: rows.layout.token_dim]).any()
        if uneven and self.attention != "softmax":
            raise ValueError(
                f"attention={self.attention!r} mixes a fixed number of tokens "
                f"({rows.layout.n_tokens}); X holds series shorter than that (in "
                f"tokens of patch_size {rows.layout.patch_size}). Allowed with "
                f"them: attention='softmax'."
            )
        if reset:
            self.series_layout_ = rows.layout
            self.n_features_in_ = rows.layout.n_channels
            self.__dict__.pop("feature_names_in_", None)
        largest = np.nanmax(np.abs(rows)) if rows.size else 0.0
        if largest > FLOAT32_MAX:
            raise ValueError(
                f"X has a value of magnitude {largest:.3g}, beyond the float32 "
                f"range of the model (<= {FLOAT32_MAX:.3g}); scale X first."
            )
        return rows

    def _check_token_dim(self, n_features):
        if getattr(self, "series_layout_", None) is not None:
            return  # series: the layout sets the tokens
        if self.token_dim is not None and n_features % self.token_dim:
            raise ValueError(
                f"token_dim={self.token_dim} does not divide the number of "
                f"features of X ({n_features}); allowed: None (copied tokens) or "
                f"a divisor of {n_features}."
            )
        unread = inspect.signature(type(self)).parameters["n_tokens"].default
        if self.token_dim is not None and self.n_tokens != unread:
            # Not read then, so a search over it would compare identical models.
            raise ValueError(
                f"n_tokens={self.n_tokens!r} copies a row into tokens when "
                f"token_dim is None; with token_dim={self.token_dim} the row is "
                f"{n_features // self.token_dim} tokens of its columns. Allowed "
                f"with token_dim: n_tokens={unread} (the default, unread)."
            )


def binade(peak):
    """The power of two at or below each ``peak`` (1 where it is 0).

    Dividing by a power of two is exact in floating point, and so are the
    sums, squares and square roots of standardisation after it: targets
    divided by their binade standardise to the same bits as without it
    (unless they would overflow or underflow), and targets of any magnitude
    (1e-300, 1e300) standardise as targets of magnitude 1 do.
    """
    _, exponent = np.frexp(peak)  # peak = mantissa * 2**exponent, mantissa in [0.5, 1)
    return np.where(peak > 0, np.ldexp(1.0, exponent - 1), 1.0)


def standardise(y2d, mean, scale):
    """``(y - mean) / scale`` computed in units of y's binade, so that it
    neither overflows (``y - mean`` for |y| near 1e308) nor loses digits."""
    unit = binade(np.maximum(np.abs(y2d).max(axis=0, initial=0), np.abs(mean)))
    return (y2d / unit - mean / unit) / (scale / unit)

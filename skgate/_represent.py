"""What a fitted estimator computes of rows without training: forward
passes in float64, the representation at a layer, its curvature and the
map whose curvature that is.

:class:`Represents` is a mixin of the estimators
(:class:`skgate.GatedAttentionClassifier`, :class:`skgate.GatedAttentionRegressor`):
it reads ``net_`` and ``series_layout_``, which ``fit`` sets, and validates
rows with the estimator's own ``_validate_X``. ``LAYER_CONSTRAINTS``,
``LAYER_DOC`` and the ``check_*`` functions are what every function taking
a ``layer`` shares (:mod:`skgate.model_selection` too).
"""

import copy
import weakref
from numbers import Integral

import numpy as np
import torch
from sklearn.base import ClassifierMixin
from sklearn.utils._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
from sklearn.utils.validation import check_is_fitted

from . import _series, geometry
from ._docstrings import fill_docstring
from ._engine import pad_rows, same_tensors
from .geometry import documents_curvature_keywords
from .nn import LAYERS, RepresentationMap

#: Float64 copies of trained networks, by network (see _float64_module); an
#: entry goes with its network.
_FLOAT64_COPIES = weakref.WeakKeyDictionary()

# Rows per forward pass at prediction time: large enough to amortise the
# per-call overhead, small enough to keep memory bounded on huge inputs.
_PREDICT_CHUNK = 8192

#: Rows a forward pass at prediction time computes at least: fewer take
#: other float64 matrix-product kernels, which round differently (one to
#: three rows did, found by testing: tests/test_estimators.py), so a few
#: rows are computed beside rows of zeros and keep the bits they have in a
#: larger batch.
_LEAST_ROWS = 8


class Represents:
    """Forward passes, representations and curvature of a fitted estimator."""

    def _float64_module(self):
        """A float64 copy of the trained network, in evaluation mode.

        Kept while the network's weights are equal to those it was copied
        from (compared exactly, which costs a fraction of the copy), so that
        predicting and measuring the same fitted model copy it once; any
        change to the weights (a partial_fit, weights set by hand) makes a
        new copy. (Version counters would be cheaper, but torch's fused
        AdamW kernel updates weights without bumping them.)
        """
        module = self.net_.module_
        weights = [p.detach() for p in module.parameters()]
        alphas = [block.alpha for block in module.blocks]
        cached = _FLOAT64_COPIES.get(module)
        if (
            cached is None
            or cached[2] != alphas
            or not same_tensors(cached[0], weights)
        ):
            snapshot = [w.clone() for w in weights]
            cached = snapshot, copy.deepcopy(module).double().eval(), alphas
            _FLOAT64_COPIES[module] = cached
        return cached[1]

    def _forward(self, X, layer):
        """The module's output at ``layer`` for validated ``X``: series are
        computed at their own lengths, each length as a batch (so padding
        changes nothing), NaN at the padding tokens of a layer with a token
        axis."""
        layout = getattr(self, "series_layout_", None)
        if layout is None:
            return self._forward_rows(X, layer)
        counts = _series.token_counts(X, layout)
        result = None
        for tokens in np.unique(counts):
            rows = np.flatnonzero(counts == tokens)
            width = tokens * layout.token_dim
            # NaN past a series' end in its last patch: zeros, as alone.
            part = np.nan_to_num(np.asarray(X)[rows, :width], nan=0.0)
            out = self._forward_rows(part, layer)
            if result is None:
                shape = (len(X), *out.shape[1:])
                if out.ndim == 3:  # a token axis: the fitted number of tokens
                    shape = (len(X), layout.n_tokens, out.shape[2])
                result = np.full(shape, np.nan)
            result[rows, : out.shape[1]] = out
        return result

    def _forward_rows(self, X, layer):
        """The module's output at ``layer`` for validated ``X``, in float64 chunks.

        Training runs in float32; inference uses a float64 copy of the trained
        weights. In float32 a row's output changes in the last bits with the
        size of the batch it is computed in (BLAS picks kernels by shape); in
        float64 those differences are ~1e-16, so a prediction depends on its
        row alone, and the geometry can reuse the same forward pass. A chunk
        of few rows is computed beside rows of zeros (:data:`_LEAST_ROWS` in
        all): a matrix product of fewer rows takes another kernel, which
        rounds differently, so a row's bits are those it has in any batch.
        """
        module = self._float64_module()
        device = self.net_.device
        result = None
        with torch.inference_mode():
            for start in range(0, len(X), _PREDICT_CHUNK):
                # A copy: validated X may be a read-only view of the caller's data.
                chunk = torch.tensor(X[start : start + _PREDICT_CHUNK])
                rows = len(chunk)
                chunk = pad_rows(chunk, _LEAST_ROWS)
                out = module.representation(chunk.to(device), layer)
                out = out[:rows].cpu().numpy()
                if result is None:
                    # One array filled chunk by chunk: memory stays at the
                    # result plus one chunk's work, however many rows.
                    result = np.empty((len(X), *out.shape[1:]), dtype=out.dtype)
                result[start : start + len(out)] = out
        if not np.isfinite(result).all():
            raise ValueError(
                f"The network's output is not finite for X with values of "
                f"magnitude up to {np.abs(X).max():.3g}; scale X like the "
                f"training data."
            )
        return result

    def representation(self, X, layer="attention"):
        """The network's representation of ``X`` at ``layer``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or series
            Series as the fit took them (a 3-D array or a list of 2-D
            arrays); each series' tokens, NaN past its own.
        {layer}

        Returns
        -------
        ndarray of float64
            Computed with a float64 copy of the trained weights, so that a
            row's value does not depend on the rest of its batch.
        """
        check_is_fitted(self)
        check_layer(layer, "representation")
        return self._forward(self._validate_X(X, reset=False), layer)

    def curvature(self, X, *, layer="attention", **kwargs):
        """Curvature of the representation at each row of ``X``.

        The same as :func:`skgate.representation_curvature` ``(self, X,
        **kwargs)``, which states the keywords in its signature: the
        curvature of ``x -> representation(x, layer)`` measured by
        :func:`skgate.geometry.curvature` in float64; with ``method="exact"``
        the derivatives come from the network's own second-order forward pass.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or series
            Series as the fit took them (a 3-D array or a list of 2-D
            arrays): curvature in their own values' coordinates.
        {layer}
        **kwargs
            The curvature keywords of :func:`skgate.representation_curvature`
            (its defaults where not given); any other keyword is refused:

            {curvature_keywords}

        Returns
        -------
        kappa : ndarray of shape (n_samples,), float64
            One value per row of ``X``, averaged over the input directions.

        Examples
        --------
        >>> from sklearn.datasets import make_moons
        >>> from skgate import GatedAttentionClassifier
        >>> X, y = make_moons(100, random_state=0)
        >>> ungated = GatedAttentionClassifier(alpha=0.0, max_epochs=2,
        ...                                    random_state=0).fit(X, y)
        >>> bool(ungated.curvature(X).max() < 1e-9)  # copied tokens: flat
        True
        >>> gated = GatedAttentionClassifier(alpha=1.0, max_epochs=2,
        ...                                  random_state=0).fit(X, y)
        >>> bool(gated.curvature(X).min() > 0)
        True
        """
        geometry.check_curvature_keywords("curvature", **kwargs)
        check_is_fitted(self)
        check_layer(layer, "curvature")
        if geometry.metric_name(kwargs.get("metric")) == "fisher":
            self._check_fisher(layer)
        X = self._validate_X(X, reset=False)
        if self.series_layout_ is None:
            return geometry.curvature(self._representation_map(layer), X, **kwargs)
        return self._series_curvature(X, layer, kwargs)

    def _series_curvature(self, rows, layer, kwargs):
        """Curvature at each series, in its own coordinates (its values,
        channel-major as ``X.reshape(n, -1)`` flattens a 3-D array): each
        length's series together, along directions of their dimension."""
        layout = self.series_layout_
        lengths = _series.series_lengths(rows, layout)
        found = np.unique(lengths)
        if kwargs.get("directions") is not None and len(found) > 1:
            widths = ", ".join(str(layout.n_channels * int(n)) for n in found)
            raise ValueError(
                f"directions are one input space's, but X holds series of "
                f"{len(found)} lengths ({', '.join(str(int(n)) for n in found)} "
                f"time points: spaces of {widths} values); allowed: directions "
                f"with series of one length, or directions=None (random ones "
                f"in each series' own space)."
            )
        kappa = np.empty(len(rows))
        module = self._float64_module().cpu()
        for length in found:
            which = np.flatnonzero(lengths == length)
            points = _series.series_values(rows[which], layout, length)
            f = _series.SeriesMap(module, layer, layout, int(length))
            kappa[which] = geometry.curvature(f, points, **kwargs)
        return kappa

    def representation_map(self, layer="attention"):
        """The map whose curvature :meth:`curvature` measures, as a float64
        torch function of a batch of rows: for :mod:`skgate.geometry`
        directly, e.g. :func:`~skgate.geometry.curvature_by_metric` (several
        output metrics from one evaluation of the derivatives).

        At a layer with a token axis ("attention" or a block index) the map
        is ``x -> representation(x, layer) / sqrt(n_tokens)``, so that the
        Euclidean norm of its flattened value is the root-mean-square over
        tokens and ``n_tokens`` copies of a token measure what one does
        (:class:`skgate.nn.RepresentationMap` with ``token_rms=True``; the
        paper's Frobenius norm is ``sqrt(n_tokens)`` times it). At "pooled"
        and "logits" it is ``x -> representation(x, layer)``.

        Parameters
        ----------
        {layer}

        Fitted on series, the map takes the series' own values as
        :meth:`curvature` does: series of the fit's longest length
        (``series_layout_.n_timepoints``), flattened channel-major as
        ``X.reshape(n, -1)`` flattens a 3-D array; the root-mean-square is
        over their tokens. (A shorter series is a point of another map:
        :meth:`curvature` measures each length with its own.)

        Returns
        -------
        skgate.nn.RepresentationMap
            Takes a float64 torch tensor of shape (n, n_features) (anything
            else is refused with a TypeError); a copy of the trained weights
            in float64, so later fits do not change it. For series, a map of
            the same interface taking (n, n_channels * n_timepoints).

        Examples
        --------
        >>> import numpy as np
        >>> import torch
        >>> from sklearn.datasets import make_moons
        >>> from skgate import GatedAttentionClassifier
        >>> from skgate.geometry import curvature
        >>> X, y = make_moons(60, random_state=0)
        >>> clf = GatedAttentionClassifier(max_epochs=2, random_state=0).fit(X, y)
        >>> f = clf.representation_map()
        >>> bool((curvature(f, X[:5]) == clf.curvature(X[:5])).all())
        True
        >>> x = torch.as_tensor(X[:5])  # float64
        >>> rms = clf.representation(X[:5]) / np.sqrt(clf.n_tokens)
        >>> bool(np.allclose(f(x).detach().numpy(), rms))
        True
        >>> pooled = clf.representation_map("pooled")
        >>> same = clf.representation(X[:5], "pooled")
        >>> bool(np.allclose(pooled(x).detach().numpy(), same))
        True
        """
        check_is_fitted(self)
        check_layer(layer, "representation_map")
        layout = getattr(self, "series_layout_", None)
        if layout is not None:
            module = self._float64_module().cpu()
            return _series.SeriesMap(module, layer, layout, layout.n_timepoints)
        return self._representation_map(layer)

    def _check_fisher(self, layer):
        """``metric="fisher"`` needs a predicted class distribution: a
        classifier's logits."""
        if not isinstance(self, ClassifierMixin):
            raise ValueError(
                f"metric='fisher' is the Fisher-Rao metric of a classifier's "
                f"predicted class distribution; {type(self).__name__} predicts "
                "none. To read its outputs as the means of N(f(x), Sigma), pass "
                "covariance=Sigma (Fisher-Rao metric Sigma^-1) at layer='logits'."
            )
        check_fisher_layer("fisher", layer)

    def _representation_map(self, layer):
        """The float64 map whose curvature :meth:`curvature` measures."""
        check_is_fitted(self)
        module = self._float64_module().cpu()
        return RepresentationMap(module, layer, token_rms=True)


#: Where a representation is read: the constraint every ``layer`` argument shares.
LAYER_CONSTRAINTS = {
    "layer": [StrOptions(set(LAYERS)), Interval(Integral, None, None, closed="neither")]
}

#: The ``layer`` parameter's documentation, shared by every function that takes it.
LAYER_DOC = """\
layer : "attention", int, "pooled" or "logits", default="attention"
    "attention": the last block's output before pooling, shape
    (n_samples, n_tokens, d_model); an int: that block's output (0-based;
    negative counts from the end); "pooled": the mean over tokens,
    (n_samples, d_model); "logits": the head's output."""


def check_layer(layer, caller_name):
    """Validate a ``layer`` argument of ``caller_name`` against LAYER_CONSTRAINTS."""
    validate_parameter_constraints(LAYER_CONSTRAINTS, {"layer": layer}, caller_name)


def check_fisher_layer(metric, layer):
    """``metric="fisher"`` reads the class distribution softmax(logits), so
    it needs ``layer="logits"``: checked before any data is seen."""
    if geometry.metric_name(metric) == "fisher" and layer != "logits":
        raise ValueError(
            f"metric='fisher' measures the class distribution softmax(logits): "
            f"it needs layer='logits'; got layer={layer!r}."
        )


fill_docstring(Represents.representation, layer=LAYER_DOC)
fill_docstring(Represents.curvature, layer=LAYER_DOC)
fill_docstring(Represents.representation_map, layer=LAYER_DOC)
documents_curvature_keywords(Represents.curvature)

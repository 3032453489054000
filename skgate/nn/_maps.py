"""The map whose curvature the geometry measures: a network's
representation at a layer, as a plain callable with its exact jet."""

import math

import torch


class RepresentationMap:
    """The map ``x -> net.representation(x, layer)``, with its exact jet.

    A plain callable for :func:`skgate.geometry.curvature`; its ``jet(x, v)``
    method gives the value, first and second directional derivatives in one
    pass, which the geometry uses for ``method="exact"`` instead of nested
    autodiff.

    With ``token_rms=True`` a layer with a token axis ("attention" or a block
    index) is divided by ``sqrt(n_tokens)``, so that Euclidean norms of its
    flattened values are root-mean-squares over tokens: ``n`` copies of a
    token then measure what one does. The paper's Frobenius norm of the same
    layer is ``sqrt(n_tokens)`` times the acceleration measured this way;
    extrinsic curvature is ``sqrt(n_tokens)`` times the Frobenius one, and
    Gaussian/scalar curvature ``n_tokens`` times. "pooled" and "logits" have no
    token axis and are never rescaled.

    Examples
    --------
    >>> import torch
    >>> from skgate.nn import GatedAttentionNet
    >>> f = RepresentationMap(GatedAttentionNet(2, 2, d_model=4).double(), "pooled")
    >>> f(torch.zeros(3, 2, dtype=torch.float64)).shape
    torch.Size([3, 4])
    """

    def __init__(self, net, layer="attention", *, token_rms=False):
        net._check_layer(layer)
        self.net = net
        self.layer = layer
        tokens = layer == "attention" or not isinstance(layer, str)
        self.scale = 1 / math.sqrt(net.n_tokens) if token_rms and tokens else 1.0

    def __call__(self, x):
        """The representation of ``x``, a tensor of shape (n, n_features) of
        the network's dtype (float64 for an estimator's map); anything else
        is refused with a TypeError naming what was given."""
        self._check_tensor("x", x)
        return self.net.representation(x, self.layer, token_scale=self.scale)

    def jet(self, x, v):
        """The representation at ``x`` and its first and second derivatives
        along ``v`` (the line ``x + t v`` at t = 0), as a tuple of three.
        ``x`` and ``v``: tensors of the network's dtype, shaped as
        :meth:`GatedAttentionNet.representation_jet` takes them."""
        self._check_tensor("x", x)
        self._check_tensor("v", v)
        return self.net.representation_jet(x, v, self.layer, token_scale=self.scale)

    def _check_tensor(self, name, value):
        # The network multiplies by its weights, so the input must be a tensor
        # of their dtype; torch's own errors ("mat1 and mat2 must have the
        # same dtype", "no attribute 'unsqueeze'") name neither.
        dtype = next(self.net.parameters()).dtype
        if isinstance(value, torch.Tensor) and value.dtype == dtype:
            return
        if isinstance(value, torch.Tensor):
            given = f"a tensor of dtype {value.dtype}"
        else:
            kind = type(value)
            given = (
                kind.__qualname__
                if kind.__module__ == "builtins"
                else f"{kind.__module__}.{kind.__qualname__}"
            )
        raise TypeError(
            f"{name} must be a torch tensor of dtype {dtype} (the network's) of "
            f"shape (n, {self.net.n_features}); got {given}. Convert it with "
            f"torch.as_tensor({name}, dtype={dtype})."
        )

    def euclidean_equivalent(self):
        """A map with this one's Euclidean geometry and fewer outputs, or self.

        Copied tokens at a layer with a token axis are ``n_tokens`` equal
        copies of one token ``t`` (scaled by ``token_scale``): the map
        ``t -> (s t, ..., s t)`` is ``sqrt(n_tokens) s`` times an isometry,
        so under the Euclidean metric every curvature of this map is that of
        ``x -> sqrt(n_tokens) s t(x)``, measured on 1/n_tokens of the numbers.
        (Other metrics weigh the copies differently: they use this map.)
        """
        tokens = self.layer == "attention" or not isinstance(self.layer, str)
        if self.net.token_dim is not None or not tokens:
            return self
        return _OneToken(self, math.sqrt(self.net.n_tokens))


class _OneToken:
    """The first token of a map of copied tokens, times ``factor``."""

    def __init__(self, copies, factor):
        self.copies, self.factor = copies, factor

    def __call__(self, x):
        return self.factor * self.copies(x)[..., :1, :]

    def jet(self, x, v):
        return tuple(self.factor * part[..., :1, :] for part in self.copies.jet(x, v))

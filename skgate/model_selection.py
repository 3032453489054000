"""Model selection on accuracy and curvature: where estimators and geometry meet."""

from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

__all__ = ["representation_curvature"]


def _split_pipeline(estimator):
    """(preprocessing steps or None, final skgate estimator), checked and fitted."""
    steps, final = None, estimator
    if isinstance(estimator, Pipeline):
        steps, final = estimator[:-1], estimator[-1]
    if not callable(getattr(final, "curvature", None)) or not callable(
        getattr(final, "representation", None)
    ):
        raise TypeError(
            f"representation_curvature needs a skgate estimator (e.g. "
            f"GatedAttentionClassifier) or a Pipeline ending in one; got "
            f"{type(final).__name__}, which has no representation to measure."
        )
    check_is_fitted(final)
    return steps, final


def representation_curvature(
    estimator,
    X,
    *,
    kind="acceleration",
    method="exact",
    metric=None,
    condition_number=None,
    covariance=None,
    layer="attention",
    n_directions=8,
    eps=1e-2,
    random_state=0,
    directions=None,
):
    """Per-sample curvature of a fitted estimator's representation.

    Parameters
    ----------
    estimator : fitted GatedAttentionClassifier, or a Pipeline ending in one
        In a Pipeline, the steps before the last transform ``X`` first; the
        curvature is that of the last step's representation as a function of
        its own input.
    X : array-like of shape (n_samples, n_features)
        Validated like ``predict`` validates it.
    kind : {"acceleration", "extrinsic", "gaussian", "scalar"}, default="acceleration"
        "acceleration" is the paper's kappa ``||D^2 f(x)[v, v]||_M``;
        "extrinsic" the curvature of the image of a line (independent of its
        speed); "gaussian"/"scalar" the intrinsic curvature of the image
        manifold. See the README's "Which curvature?".
    method : {"exact", "finite_difference"}, default="exact"
        Exact second-order forward pass, or the paper's central differences
        (step ``eps``); both in float64.
    metric, condition_number, covariance
        Output metric: None (Euclidean), "anisotropic" with condition_number,
        positive weights (m,), an SPD matrix (m, m), or ``covariance`` for the
        Fisher-Rao metric ``covariance^-1``; ``m`` is the layer's flattened size.
    layer : "attention", int, "pooled" or "logits", default="attention"
        Where to measure: the last block's output before pooling, a block's
        output, the pooled vector or the logits.
    n_directions : int >= 1, default=8
        Random unit input directions (the same for every row), averaged over.
    eps : float > 0, default=1e-2
        Finite-difference step.
    random_state : int, RandomState instance or None, default=0
        Seed of the directions.
    directions : array of shape (k, n_features), optional
        Explicit input directions instead of random ones.

    Returns
    -------
    ndarray of shape (n_samples,), float64

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skgate import GatedAttentionClassifier, representation_curvature
    >>> X, y = make_moons(200, noise=0.1, random_state=0)
    >>> pipe = make_pipeline(StandardScaler(),
    ...                      GatedAttentionClassifier(max_epochs=3, random_state=0))
    >>> kappa = representation_curvature(pipe.fit(X, y), X)
    >>> kappa.shape, bool((kappa > 0).all())
    ((200,), True)
    """
    steps, final = _split_pipeline(estimator)
    if steps is not None:
        X = steps.transform(X)
    return final.curvature(
        X,
        kind=kind,
        method=method,
        metric=metric,
        condition_number=condition_number,
        covariance=covariance,
        layer=layer,
        n_directions=n_directions,
        eps=eps,
        random_state=random_state,
        directions=directions,
    )

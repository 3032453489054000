"""Model selection on accuracy and curvature: where estimators and geometry meet.

A curved representation costs capacity and robustness; it is worth having only
where the task pays for it in accuracy. So skgate scores curvature next to
accuracy (:func:`curvature_score`), folds the two into one number
(:func:`make_joint_scorer`), and selects, among the models as accurate as the
best within noise, the least curved one (:func:`least_curvature_refit`).
"""

import inspect
import warnings
from numbers import Real

import numpy as np
from sklearn import get_config
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    MaxAbsScaler,
    MinMaxScaler,
    RobustScaler,
    StandardScaler,
)
from sklearn.utils._param_validation import (
    Interval,
)
from sklearn.utils.metadata_routing import UNCHANGED, MetadataRequest
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from . import geometry
from ._docstrings import fill_docstring
from ._params import validate_args
from ._represent import LAYER_DOC, check_fisher_layer, check_layer
from .geometry import check_curvature_keywords, documents_curvature_keywords

__all__ = [
    "AFFINE_STEPS",
    "NonAffinePipelineWarning",
    "curvature_score",
    "is_affine_step",
    "least_curvature_refit",
    "make_curvature_scorer",
    "make_joint_scorer",
    "representation_curvature",
]


class NonAffinePipelineWarning(UserWarning):
    """A Pipeline step before the skgate estimator bends the input space.

    :func:`representation_curvature` measures the final estimator's
    representation as a function of its own input; the bending of a
    non-affine earlier step (PolynomialFeatures, QuantileTransformer, ...) is
    not part of that number.
    """


#: Preprocessing steps that are affine in their input: they cannot bend, so
#: the curvature of the last step is the curvature of the whole pipeline up
#: to a linear change of coordinates.
AFFINE_STEPS = (
    StandardScaler,
    MinMaxScaler,
    MaxAbsScaler,
    RobustScaler,
    PCA,
    TruncatedSVD,
)


def is_affine_step(step):
    """Whether a Pipeline step is known to be affine in its input (one of
    :data:`AFFINE_STEPS`, "passthrough", None, an identity
    FunctionTransformer, or a Pipeline of such steps): the curvature of what
    follows it is then the curvature of the whole, up to a linear change of
    coordinates.

    Examples
    --------
    >>> from sklearn.preprocessing import PolynomialFeatures, StandardScaler
    >>> is_affine_step(StandardScaler()), is_affine_step(PolynomialFeatures())
    (True, False)
    """
    if step is None or isinstance(step, AFFINE_STEPS):
        return True
    if isinstance(step, Pipeline):  # affine steps compose to an affine map
        return all(is_affine_step(inner) for _, inner in step.steps)
    if isinstance(step, str):
        return step == "passthrough"
    return isinstance(step, FunctionTransformer) and step.func is None


def _warn_non_affine(steps, final):
    for name, step in steps.steps:
        if not is_affine_step(step):
            warnings.warn(
                f"representation_curvature measures {type(final).__name__}'s "
                f"representation as a function of its own input; the step "
                f"{name!r} ({type(step).__name__}) before it is not known to be "
                f"affine, so the bending it adds to the pipeline is not in this "
                f"number. For the whole pipeline, pass a float64 callable of it "
                f"to skgate.geometry.curvature with method='finite_difference'.",
                NonAffinePipelineWarning,
                stacklevel=3,
            )


def _split_pipeline(estimator):
    """(preprocessing steps or None, final skgate estimator), checked and fitted."""
    # A fitted search (GatedAttentionClassifierCV, GridSearchCV with refit)
    # is measured through its refit model, which may be a Pipeline.
    estimator = getattr(estimator, "best_estimator_", estimator)
    steps, final = None, estimator
    if isinstance(estimator, Pipeline):
        steps, final = estimator[:-1], estimator[-1]
        _warn_non_affine(steps, final)
    # A fitted search (GatedAttentionClassifierCV, GridSearchCV with refit)
    # is measured through its refit model.
    final = getattr(final, "best_estimator_", final)
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


@documents_curvature_keywords
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
        its own input (a non-affine earlier step warns: its bending is not
        measured).
    X : array-like of shape (n_samples, n_features), or series
        Validated like ``predict`` validates it.
    {layer}
    {curvature_keywords}

    Returns
    -------
    ndarray of shape (n_samples,), float64

    Notes
    -----
    At layers with a token axis ("attention", a block index) norms are
    root-mean-squares over tokens, so ``n_tokens`` copies of a token measure
    what one token does and a search over ``n_tokens`` compares models, not
    token counts. The paper's Frobenius norm is ``sqrt(n_tokens)`` times the
    acceleration measured here (extrinsic curvature: ``1 / sqrt(n_tokens)``
    times; Gaussian and scalar: ``1 / n_tokens`` times).

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
    given = locals()  # the curvature keywords, as stated above
    kwargs = {name: given[name] for name in geometry.CURVATURE_KEYWORDS}
    check_layer(layer, "representation_curvature")
    check_curvature_keywords("representation_curvature", **kwargs)
    check_fisher_layer(metric, layer)
    steps, final = _split_pipeline(estimator)
    if steps is not None:
        X = steps.transform(X)
    return final.curvature(X, layer=layer, **kwargs)


fill_docstring(representation_curvature, layer=LAYER_DOC)


# -- scorers ------------------------------------------------------------------


_DEFAULT_LAYER = inspect.signature(representation_curvature).parameters["layer"].default


def _kwargs_repr(kwargs):
    return ", ".join(f"{key}={value!r}" for key, value in kwargs.items())


def _mean_curvature(kappa, sample_weight):
    """The mean of per-row curvatures, weighted by ``sample_weight`` if given
    (as scikit-learn's metrics weight rows)."""
    if sample_weight is None:
        return float(np.mean(kappa))
    # Refuses negative weights and all zeros, naming sample_weight.
    weight = _check_sample_weight(sample_weight, kappa, ensure_non_negative=True)
    return float(np.average(kappa, weights=weight))


def _accepts_sample_weight():
    """scikit-learn's scorer hook: rows' weights are passed on when a search
    is fitted with them (every scorer of a scoring dict must answer it)."""
    return True


class _WeightedScorer:
    """What the curvature scorers share with scikit-learn's own: they weight
    rows by ``sample_weight``, which a search passes to them as to its other
    scorers. Without metadata routing every scorer taking ``sample_weight``
    gets it; with routing on, a scorer gets it once it asks with
    ``set_score_request(sample_weight=True)``, and a search fitted with
    weights that no one asked for or declined raises scikit-learn's own
    error naming ``set_score_request``."""

    #: The request for sample_weight: None (not set), True, False or an alias.
    _sample_weight_request = None

    def set_score_request(self, *, sample_weight=UNCHANGED):
        """Ask for ``sample_weight`` (True), decline it (False), unset it
        (None), or take it under another name (a str), when a search routes
        metadata (``sklearn.set_config(enable_metadata_routing=True)``).

        Returns
        -------
        self
        """
        if not get_config()["enable_metadata_routing"]:
            raise RuntimeError(
                "set_score_request is only available when metadata routing is "
                "enabled: sklearn.set_config(enable_metadata_routing=True). "
                "Without it a search passes sample_weight to this scorer anyway."
            )
        if sample_weight is not UNCHANGED:
            MetadataRequest(owner=self).score.add_request(  # checks the value
                param="sample_weight", alias=sample_weight
            )
            self._sample_weight_request = sample_weight
        return self

    def get_metadata_routing(self):
        """The metadata this scorer asks for (scikit-learn's routing protocol)."""
        request = MetadataRequest(owner=self)
        request.score.add_request(
            param="sample_weight", alias=self._sample_weight_request
        )
        return request

    _accept_sample_weight = staticmethod(_accepts_sample_weight)


class _CurvatureScorer(_WeightedScorer):
    """``scorer(estimator, X, y=None, sample_weight=None)``: mean
    representation curvature on X."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __call__(self, estimator, X, y=None, sample_weight=None):
        kappa = representation_curvature(estimator, X, **self.kwargs)
        return _mean_curvature(kappa, sample_weight)

    def __repr__(self):
        return f"make_curvature_scorer({_kwargs_repr(self.kwargs)})"


class _JointScorer(_WeightedScorer):
    """``scorer(estimator, X, y, sample_weight=None)``: score - tradeoff *
    mean |curvature|."""

    def __init__(self, tradeoff, **kwargs):
        self.tradeoff = tradeoff
        self.kwargs = kwargs

    def __call__(self, estimator, X, y=None, sample_weight=None):
        if y is None:  # else Python names this private class's __call__
            raise TypeError(
                "make_joint_scorer's scorer scores accuracy (or R^2) too, so it "
                "needs y: scorer(estimator, X, y); got no y."
            )
        score = (
            estimator.score(X, y)
            if sample_weight is None
            else estimator.score(X, y, sample_weight=sample_weight)
        )
        # By magnitude: a saddle (negative Gaussian curvature) bends as much as
        # a sphere, and must never score above a flat model.
        kappa = representation_curvature(estimator, X, **self.kwargs)
        return float(
            score - self.tradeoff * _mean_curvature(np.abs(kappa), sample_weight)
        )

    def __repr__(self):
        kwargs = _kwargs_repr({"tradeoff": self.tradeoff, **self.kwargs})
        return f"make_joint_scorer({kwargs})"


def make_curvature_scorer(**kwargs):
    """A scorer of mean representation curvature, with any geometry settings.

    Parameters
    ----------
    **kwargs
        Keywords of :func:`representation_curvature` (``layer`` and those of
        :func:`skgate.geometry.curvature`). They are validated here, when the
        scorer is made, so a typo fails before any fit; sizes that depend on
        the data (a metric's length, directions' width) are checked when it
        scores.

    Returns
    -------
    scorer : callable ``scorer(estimator, X, y=None, sample_weight=None) -> float``
        The mean curvature of the estimator's representation on ``X``
        (weighted by ``sample_weight`` if given); higher means more curved,
        not better. Picklable, so it runs with ``n_jobs``. With metadata
        routing on, ``scorer.set_score_request(sample_weight=True)`` asks a
        search for the rows' weights, as scikit-learn's scorers do.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from sklearn.model_selection import cross_validate
    >>> from skgate import GatedAttentionClassifier, make_curvature_scorer
    >>> X, y = make_moons(150, noise=0.1, random_state=0)
    >>> scoring = {"accuracy": "accuracy",
    ...            "pooled": make_curvature_scorer(layer="pooled", kind="extrinsic")}
    >>> result = cross_validate(GatedAttentionClassifier(max_epochs=3, random_state=0),
    ...                         X, y, cv=3, scoring=scoring)
    >>> result["test_pooled"].shape
    (3,)
    """
    layer = kwargs.pop("layer", _DEFAULT_LAYER)
    check_layer(layer, "make_curvature_scorer")
    check_curvature_keywords("make_curvature_scorer", **kwargs)
    check_fisher_layer(kwargs.get("metric"), layer)
    return _CurvatureScorer(layer=layer, **kwargs)


def curvature_score(estimator, X, y=None, sample_weight=None):
    """Mean representation curvature of a fitted estimator on ``X``: a scorer.

    The scorer protocol of scikit-learn (``scorer(estimator, X, y)``), so it
    goes wherever a scorer goes: ``cross_validate(..., scoring={"accuracy":
    "accuracy", "curvature": curvature_score})``, ``GridSearchCV(scoring=...)``.
    Uses the defaults of :func:`representation_curvature` (the paper's
    acceleration at the attention layer, exact, 8 directions, seed 0), so it is
    deterministic. Higher means more curved, not better; select with
    :func:`least_curvature_refit`. Other settings: :func:`make_curvature_scorer`.

    Parameters
    ----------
    estimator : fitted GatedAttentionClassifier or Pipeline ending in one
    X : array-like of shape (n_samples, n_features), or series
        Series too (a 3-D array or a list of 2-D arrays), as the model's
        fit took them.
    y : ignored
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the rows in the mean (non-negative, not all 0). A search
        fitted with ``sample_weight`` passes each fold's test weights here,
        as it does to its accuracy scorer. With metadata routing on
        (``sklearn.set_config(enable_metadata_routing=True)``), ask for them
        as for scikit-learn's scorers:
        ``curvature_score.set_score_request(sample_weight=True)`` returns a
        scorer that does (``curvature_score`` itself is left as it is).

    Returns
    -------
    score : float
        The mean curvature over the rows of ``X`` (weighted by
        ``sample_weight``): 0 for an exactly flat model.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from skgate import GatedAttentionClassifier, curvature_score
    >>> X, y = make_moons(100, random_state=0)
    >>> flat = GatedAttentionClassifier(alpha=0.0, max_epochs=2, random_state=0)
    >>> curvature_score(flat.fit(X, y), X) < 1e-9
    True
    """
    return _DEFAULT_CURVATURE_SCORER(estimator, X, y, sample_weight)


_DEFAULT_CURVATURE_SCORER = _CurvatureScorer(layer=_DEFAULT_LAYER)
# scikit-learn (1.7 to 1.9 at least) asks every scorer of a scoring dict
# whether it takes sample_weight, and fails on a plain function that cannot
# answer (scikit-learn issue #31599); this one answers.
curvature_score._accept_sample_weight = _accepts_sample_weight


def _curvature_score_with_request(*, sample_weight=UNCHANGED):
    """``curvature_score.set_score_request``: a new scorer that asks for
    ``sample_weight`` as told; ``curvature_score``, one function shared by
    every caller, is never changed."""
    scorer = _CurvatureScorer(layer=_DEFAULT_LAYER)
    return scorer.set_score_request(sample_weight=sample_weight)


# With metadata routing on, curvature_score answers what it asks for (nothing
# set: scikit-learn then refuses weights passed to it, naming set_score_request).
curvature_score.set_score_request = _curvature_score_with_request
curvature_score.get_metadata_routing = _DEFAULT_CURVATURE_SCORER.get_metadata_routing


@validate_args(
    {"tradeoff": [Interval(Real, 0, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def make_joint_scorer(tradeoff=0.01, **kwargs):
    """One number for accuracy and curvature: ``score - tradeoff * curvature``.

    For tools that accept a single metric. ``score`` is the estimator's own
    ``score(X, y)`` (accuracy for a classifier) and ``curvature`` the mean
    magnitude of the representation curvature on the same ``X`` (for the
    signed kinds, "gaussian" and "scalar", a negatively curved model is
    penalised like a positively curved one, never rewarded).

    Parameters
    ----------
    tradeoff : float >= 0, default=0.01
        Accuracy given up per unit of mean curvature.
    **kwargs
        Curvature settings, as for :func:`make_curvature_scorer`.

    Returns
    -------
    scorer : callable ``scorer(estimator, X, y, sample_weight=None) -> float``
        With ``sample_weight``, the score and the mean curvature are weighted
        by it (``set_score_request(sample_weight=True)`` asks for it when
        metadata routing is on).

    Examples
    --------
    A search over alpha on one number; an ungated model is flat, so its joint
    score is its accuracy:

    >>> from sklearn.model_selection import GridSearchCV
    >>> from skgate import GatedAttentionClassifier, make_curved_task
    >>> from skgate import make_joint_scorer
    >>> X, y = make_curved_task(120, random_state=0)
    >>> joint = make_joint_scorer(0.5)
    >>> search = GridSearchCV(
    ...     GatedAttentionClassifier(max_epochs=2, random_state=0),
    ...     {"alpha": [0.0, 1.0]}, scoring=joint, cv=2,
    ... ).fit(X, y)
    >>> search.best_params_["alpha"] in (0.0, 1.0)
    True
    >>> flat = search.best_estimator_.set_params(alpha=0.0).fit(X, y)
    >>> bool(abs(joint(flat, X, y) - flat.score(X, y)) < 1e-9)
    True
    """
    return _JointScorer(tradeoff, **make_curvature_scorer(**kwargs).kwargs)


# -- the refit rule -------------------------------------------------------------


class _LeastCurvatureRefit:
    """``refit(cv_results) -> index``; see :func:`least_curvature_refit`."""

    # Curvatures closer than this are a tie: a flat model measures ~1e-12
    # whatever its other settings, and such noise must not decide.
    atol = 1e-9
    rtol = 1e-6

    def __init__(self, score, curvature, n_std):
        self.score = score
        self.curvature = curvature
        self.n_std = n_std

    def __call__(self, cv_results):
        keys = [
            f"mean_test_{self.score}",
            f"std_test_{self.score}",
            f"mean_test_{self.curvature}",
        ]
        missing = [key for key in keys if key not in cv_results]
        if missing:
            raise ValueError(
                f"least_curvature_refit(score={self.score!r}, "
                f"curvature={self.curvature!r}) needs {missing} in cv_results_; "
                f"score the search with both, e.g. scoring={{{self.score!r}: "
                f"{_scorer_example(self.score)}, {self.curvature!r}: "
                f"curvature_score}}, and refit=least_curvature_refit()."
            )
        score, std, curvature = (np.asarray(cv_results[key], float) for key in keys)
        valid = np.isfinite(score) & np.isfinite(curvature)
        if not valid.any():
            raise ValueError(
                f"least_curvature_refit: no candidate has a finite "
                f"mean_test_{self.score} and mean_test_{self.curvature}; did "
                f"every fit fail?"
            )
        # Signed kinds (gaussian, scalar) are ranked by magnitude: flat (0)
        # must never lose to a negatively curved model.
        curvature = np.abs(curvature)
        best = np.flatnonzero(valid)[np.argmax(score[valid])]
        # An undefined spread (NaN: a failed fold) widens nothing: only the
        # candidates at the best score are near it.
        spread = std[best] if np.isfinite(std[best]) else 0.0
        threshold = score[best] - self.n_std * spread
        eligible = valid & (score >= threshold)
        least = curvature[eligible].min()
        tied = eligible & (curvature <= least + self.atol + self.rtol * abs(least))
        # Among the least curved, the highest score; then the first candidate.
        return int(np.flatnonzero(tied)[np.argmax(score[tied])])

    # scikit-learn's search looks its refit up among the scorers by name
    # (``search.score`` reads ``scorer_[refit]``), which raised KeyError for
    # any callable refit with several metrics. The rule stands for its score
    # metric there: equal to, and hashed as, that metric's name.
    def __eq__(self, other):
        if isinstance(other, str):
            return other == self.score
        if isinstance(other, _LeastCurvatureRefit):
            return (self.score, self.curvature, self.n_std) == (
                other.score, other.curvature, other.n_std
            )  # fmt: skip
        return NotImplemented

    def __hash__(self):
        return hash(self.score)

    def __repr__(self):
        return (
            f"least_curvature_refit(score={self.score!r}, "
            f"curvature={self.curvature!r}, n_std={self.n_std!r})"
        )


def _scorer_example(score):
    """``score`` as a scoring value, if scikit-learn has a scorer of that
    name; else an example of one (a key such as "acc" is no scorer)."""
    from sklearn.metrics import get_scorer_names

    return repr(score) if score in get_scorer_names() else "<a scorer, e.g. 'accuracy'>"


@validate_args(
    {
        "score": [str],
        "curvature": [str],
        "n_std": [Interval(Real, 0, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def least_curvature_refit(score="accuracy", curvature="curvature", n_std=1.0):
    """A ``refit=`` rule: the least curved model among the near-best.

    For ``GridSearchCV`` / ``RandomizedSearchCV`` with multi-metric scoring.
    Let ``best`` be the candidate with the highest ``mean_test_<score>`` and
    ``s`` its fold standard deviation ``std_test_<score>`` (0 where it is
    NaN, e.g. from a failed fold). Every candidate
    scoring at least ``best - n_std * s`` is as good as the best within the
    noise of cross-validation; among them the rule picks the least mean
    ``|mean_test_<curvature>|``, and among equally curved ones (within 1e-9,
    or 1e-6 relative) the higher score. The magnitude, so that signed kinds
    ("gaussian", "scalar") rank a flat model (0) before a negatively curved
    one. Candidates with a non-finite score or
    curvature (failed fits) are skipped.

    Why: a curved representation the task does not pay for is cost, not value
    (it bends the geometry, is harder to interpret and to trust off the data).
    On a linear task, where every gate strength reaches the same accuracy,
    this keeps ``alpha = 0``; where curvature pays in accuracy, it keeps the
    gate, but no more of it than the accuracy needs.

    Parameters
    ----------
    score : str, default="accuracy"
        The key of the score in ``scoring`` (higher is better).
    curvature : str, default="curvature"
        The key of the curvature scorer in ``scoring``.
    n_std : float >= 0, default=1.0
        How many standard deviations below the best still count as as good;
        0 keeps only the best score (and breaks its ties by curvature).

    Returns
    -------
    refit : callable ``refit(cv_results) -> int``
        Picklable, so a fitted search can be saved. Where scikit-learn looks
        the refit up among the scorers by name, it stands for ``score``:
        ``search.score(X, y)`` is the refitted model's ``score`` metric (a
        plain callable refit with several metrics raises KeyError there).
        scikit-learn sets ``best_score_`` only for a refit that names a
        metric; the chosen candidate's mean score is
        ``search.cv_results_[f"mean_test_{score}"][search.best_index_]``.

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV
    >>> from skgate import (GatedAttentionClassifier, curvature_score,
    ...                     least_curvature_refit, make_linear_task)
    >>> X, y = make_linear_task(300, random_state=0)
    >>> search = GridSearchCV(
    ...     GatedAttentionClassifier(max_epochs=5, random_state=0),
    ...     {"alpha": [0.0, 1.0]}, cv=3,
    ...     scoring={"accuracy": "accuracy", "curvature": curvature_score},
    ...     refit=least_curvature_refit())
    >>> search.fit(X, y).best_params_
    {'alpha': 0.0}
    >>> bool(search.score(X, y) > 0.8)  # the refitted model's accuracy
    True
    """
    return _LeastCurvatureRefit(score, curvature, n_std)

"""Display objects in scikit-learn's style: ``from_*`` computes, ``plot`` draws.

:class:`CurvatureDisplay` maps a fitted model's representation curvature
over the input plane (or a plane through the data), as
:class:`sklearn.inspection.DecisionBoundaryDisplay` maps its response;
:class:`GateComparisonDisplay` draws :func:`skgate.compare_gates`' scores and
curvatures per arm. matplotlib is imported when a display draws, never on
``import skgate``.
"""

import numpy as np
from sklearn.utils.validation import check_array

from .geometry import CURVATURE_KEYWORDS
from .model_selection import representation_curvature

__all__ = ["CurvatureDisplay", "GateComparisonDisplay"]

_PLOT_METHODS = ("contourf", "contour", "pcolormesh")
#: Keywords of from_estimator that go to the curvature, not to the plot (the
#: display's own ``eps`` is the grid's margin, as DecisionBoundaryDisplay's).
_CURVATURE_KEYS = set(CURVATURE_KEYWORDS) - {"kind", "eps", "directions"}


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "skgate's displays need matplotlib: pip install 'skgate[plot]'."
        ) from exc
    return plt


class GateComparisonDisplay:
    """Held-out score and representation curvature per arm of a gate comparison.

    Build it with :meth:`from_result`; ``plot`` draws two panels (score,
    curvature), each arm's splits as points over its mean.

    Parameters
    ----------
    scores : pandas.DataFrame
        :attr:`GateComparison.scores_ <skgate.compare.GateComparison>`.
    verdict : str
        The comparison's one-sentence verdict (the figure's title).

    Attributes
    ----------
    ax_ : array of matplotlib Axes
        The score and curvature panels.
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skgate import compare_gates, make_curved_task
    >>> from skgate.inspection import GateComparisonDisplay
    >>> X, y = make_curved_task(90, random_state=0)
    >>> result = compare_gates(X, y, gates=("multiplicative", "none"), cv=3,
    ...                        max_epochs=1, random_state=0)
    >>> display = GateComparisonDisplay.from_result(result)
    >>> len(display.ax_)
    2
    """

    def __init__(self, scores, verdict):
        self.scores = scores
        self.verdict = verdict

    @classmethod
    def from_result(cls, result, *, ax=None):
        """Draw ``result`` (a :class:`~skgate.compare.GateComparison`);
        ``ax``: two Axes to draw into (default: a new figure)."""
        return cls(result.scores_, result.verdict_).plot(ax=ax)

    def plot(self, *, ax=None):
        """Draw the panels (into ``ax``, two Axes, or a new figure)."""
        plt = _pyplot()
        if ax is None:
            _, ax = plt.subplots(1, 2, figsize=(10, 3.8))
        arms = list(dict.fromkeys(self.scores["arm"]))
        for panel, (measure, label) in zip(
            ax, [("score", "held-out score"), ("curvature", "curvature")], strict=True
        ):
            for i, arm in enumerate(arms):
                values = self.scores.loc[self.scores["arm"] == arm, measure]
                panel.scatter([i] * len(values), values, alpha=0.5, s=14)
                panel.hlines(values.mean(), i - 0.3, i + 0.3, color="black")
            panel.set_xticks(range(len(arms)), arms, rotation=20, fontsize=8)
            panel.set_ylabel(label)
        self.ax_ = ax
        self.figure_ = ax[0].figure
        self.figure_.suptitle(self.verdict, fontsize=8, wrap=True)
        self.figure_.tight_layout()
        return self


def _plane(X, plane):
    """(origin, u, v): the input plane itself for 2 features; else ``plane``
    or the first two principal directions through the mean of ``X``."""
    if plane is not None:
        origin, u, v = (np.asarray(p, dtype=np.float64) for p in plane)
        if not origin.shape == u.shape == v.shape == (X.shape[1],):
            raise ValueError(
                f"plane must be (origin, u, v), each of shape ({X.shape[1]},); "
                f"got shapes {origin.shape}, {u.shape}, {v.shape}."
            )
        if abs(np.linalg.det(np.array([[u @ u, u @ v], [u @ v, v @ v]]))) < 1e-12:
            raise ValueError("plane's u and v must be linearly independent.")
        return origin, u, v
    if X.shape[1] == 2:
        return np.zeros(2), np.array([1.0, 0.0]), np.array([0.0, 1.0])
    centred = X - X.mean(axis=0)
    _, _, Vt = np.linalg.svd(centred, full_matrices=False)
    return X.mean(axis=0), Vt[0], Vt[1]


class CurvatureDisplay:
    """A map of representation curvature over a plane of the input space.

    Build it with :meth:`from_estimator`; ``plot`` draws it again (other
    Axes, another plot method).

    Parameters
    ----------
    xx0, xx1 : ndarray of shape (grid_resolution, grid_resolution)
        The plane's coordinates (the two features, or the coordinates along
        the plane's two directions).
    surface : ndarray of shape (grid_resolution, grid_resolution)
        The curvature at each grid point.
    xlabel, ylabel : str
        The axes' names.

    Attributes
    ----------
    surface_ : ndarray
        ``surface``.
    plane_ : tuple of ndarray
        (origin, u, v): grid point (a, b) is ``origin + a u + b v``.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    surface_artist_ : the plotted artist

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skgate import GatedAttentionClassifier, make_curved_task
    >>> from skgate.inspection import CurvatureDisplay
    >>> X, y = make_curved_task(100, random_state=0)
    >>> clf = GatedAttentionClassifier(max_epochs=2, random_state=0).fit(X, y)
    >>> display = CurvatureDisplay.from_estimator(clf, X, grid_resolution=20)
    >>> display.surface_.shape
    (20, 20)
    """

    def __init__(self, xx0, xx1, surface, *, xlabel=None, ylabel=None):
        self.xx0, self.xx1 = xx0, xx1
        self.surface_ = surface
        self.xlabel, self.ylabel = xlabel, ylabel

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        *,
        kind="acceleration",
        layer="attention",
        grid_resolution=100,
        eps=1.0,
        plane=None,
        plot_method="contourf",
        ax=None,
        **kwargs,
    ):
        """Compute the map of a fitted estimator (or a Pipeline ending in
        one) and draw it.

        ``X`` (numbers) sets the extent: for 2 features the grid spans each
        feature's range widened by ``eps``; for more, the plane ``plane`` =
        (origin, u, v) or, by default, the first two principal directions
        through the mean of ``X``, spanning the data's coordinates on it
        widened by ``eps``. Curvature is measured along the plane's two
        directions (``kind``, ``layer`` and the keywords of
        :func:`~skgate.representation_curvature` among ``kwargs``: metric,
        method, covariance...); the other ``kwargs`` go to the plot method.
        """
        X = check_array(X, dtype=np.float64)
        if isinstance(grid_resolution, bool) or not isinstance(grid_resolution, int):
            raise TypeError(
                f"grid_resolution must be an int >= 2; got {grid_resolution!r}."
            )
        if grid_resolution < 2:
            raise ValueError(
                f"grid_resolution must be an int >= 2; got {grid_resolution}."
            )
        if not (np.isfinite(eps) and eps >= 0):
            raise ValueError(f"eps must be a finite number >= 0; got {eps!r}.")
        curvature_keys = {
            k: kwargs.pop(k) for k in list(kwargs) if k in _CURVATURE_KEYS
        }
        origin, u, v = _plane(X, plane)
        coords = (X - origin) @ np.linalg.pinv(np.stack([u, v]))
        axes = [
            np.linspace(c.min() - eps, c.max() + eps, grid_resolution) for c in coords.T
        ]
        xx0, xx1 = np.meshgrid(*axes)
        points = origin + xx0.reshape(-1, 1) * u + xx1.reshape(-1, 1) * v
        surface = representation_curvature(
            estimator, points, kind=kind, layer=layer, directions=np.stack([u, v]),
            **curvature_keys,
        ).reshape(xx0.shape)  # fmt: skip
        two = X.shape[1] == 2 and plane is None
        labels = ("feature 0", "feature 1") if two else ("direction u", "direction v")
        display = cls(xx0, xx1, surface, xlabel=labels[0], ylabel=labels[1])
        display.plane_ = (origin, u, v)
        return display.plot(ax=ax, plot_method=plot_method, **kwargs)

    def plot(self, ax=None, *, plot_method="contourf", **kwargs):
        """Draw the map into ``ax`` (default: a new figure) with
        ``plot_method`` ("contourf", "contour" or "pcolormesh"); ``kwargs``
        go to it. A colour bar names the curvature."""
        if plot_method not in _PLOT_METHODS:
            raise ValueError(
                f"plot_method must be one of {list(_PLOT_METHODS)}; "
                f"got {plot_method!r}."
            )
        plt = _pyplot()
        if ax is None:
            _, ax = plt.subplots()
        draw = getattr(ax, plot_method)
        self.surface_artist_ = draw(self.xx0, self.xx1, self.surface_, **kwargs)
        ax.figure.colorbar(self.surface_artist_, ax=ax, label="curvature")
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        self.ax_, self.figure_ = ax, ax.figure
        return self

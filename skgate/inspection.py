"""Display objects in scikit-learn's style: ``from_*`` computes, ``plot`` draws.

:class:`CurvatureDisplay` maps a fitted model's representation curvature
over the input plane (or a plane through the data), as
:class:`sklearn.inspection.DecisionBoundaryDisplay` maps its response;
:class:`GateComparisonDisplay` draws :func:`skgate.compare_gates`' scores and
curvatures per arm and every paired difference with its interval. matplotlib
is imported when a display draws, never on ``import skgate``.
"""

import weakref
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_array

from .geometry import CURVATURE_KEYWORDS, INTRINSIC_KINDS
from .model_selection import is_affine_step, representation_curvature
from .outputs import is_interruption

__all__ = [
    "CriticalDifferenceDisplay",
    "CurvatureDisplay",
    "GateComparisonDisplay",
    "MAX_GRID_BYTES",
]

_PLOT_METHODS = ("contourf", "contour", "pcolormesh")
#: Keywords of from_estimator that go to the curvature, not to the plot (the
#: display's own ``eps`` is the grid's margin, as DecisionBoundaryDisplay's).
_CURVATURE_KEYS = set(CURVATURE_KEYWORDS) - {"kind", "eps", "directions"}
#: The most memory a CurvatureDisplay's grid may take (its points, their
#: coordinates and curvatures, float64): 1 GiB. The curvature itself runs in
#: chunks of bounded size; the grid is held whole.
MAX_GRID_BYTES = 2**30
# The colour bar a CurvatureDisplay drew on an Axes, so that drawing on it
# again replaces the bar instead of stacking a second one beside it.
_COLORBARS = weakref.WeakKeyDictionary()


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        # Ctrl-C inside a compiled extension's import surfaces as an
        # ImportError raised from the KeyboardInterrupt: that is no missing
        # package, so the interruption goes on as itself.
        if is_interruption(exc):
            raise KeyboardInterrupt from exc
        raise ImportError(
            "skgate's displays need matplotlib: pip install 'skgate[plot]'."
        ) from exc
    return plt


class GateComparisonDisplay:
    """A gate comparison drawn: per arm its scores and curvatures, and every
    paired difference with its interval beside the margin.

    Build it with :meth:`from_result`; ``plot`` draws four panels: the
    held-out score and the curvature per arm (each split a point, the mean
    a bar), and below them each comparison's mean difference with its
    interval (the tests' ``ci low`` / ``ci high``, which exclude 0 exactly
    where a difference is shown), the margin shaded, coloured by outcome
    and with the outcome written right of the panel. An infinite bound (the
    sign-flip test on few splits cannot reach its level) runs to the
    panel's edge and ends in an arrow: that side is open, not known. The
    title is the recommendation.

    Parameters
    ----------
    scores : pandas.DataFrame
        :attr:`GateComparison.scores_ <skgate.compare.GateComparison>`.
    tests : pandas.DataFrame
        :attr:`GateComparison.tests_ <skgate.compare.GateComparison>`.
    title : str, optional
        The figure's title (from_result: the recommendation).

    Attributes
    ----------
    ax_ : array of matplotlib Axes, shape (2, 2)
        Score and curvature per arm (top), their differences (bottom).
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skgate import compare_gates, make_curved_task
    >>> from skgate.inspection import GateComparisonDisplay
    >>> X, y = make_curved_task(90, random_state=0)
    >>> result = compare_gates(X, y, gates=("multiplicative", "none"), cv=3,
    ...                        n_repeats=2, max_epochs=1, random_state=0)
    >>> display = GateComparisonDisplay.from_result(result)
    >>> display.ax_.shape
    (2, 2)
    """

    _COLOURS = {
        "holds": "tab:green",
        "reversed": "tab:red",
        "no effect": "tab:blue",
        "inconclusive": "tab:gray",
    }

    def __init__(self, scores, tests, *, title=None):
        self.scores = scores
        self.tests = tests
        self.title = title

    @classmethod
    def from_result(cls, result, *, ax=None):
        """Draw ``result`` (a :class:`~skgate.compare.GateComparison`);
        ``ax``: a (2, 2) array of Axes to draw into (default: a new figure)."""
        if not all(
            hasattr(result, a) for a in ("scores_", "tests_", "recommendation_")
        ):
            raise TypeError(
                f"result must be what compare_gates returns (a GateComparison); "
                f"got {type(result).__name__}."
            )
        title = f"Recommendation: {result.recommendation_}"
        return cls(result.scores_, result.tests_, title=title).plot(ax=ax)

    def _name(self, measure):
        if "measured as" not in self.tests:
            return measure
        named = self.tests.loc[self.tests["measure"] == measure, "measured as"]
        return str(named.iloc[0])

    def plot(self, *, ax=None):
        """Draw the panels (into ``ax``, a (2, 2) array of Axes, or a new figure)."""
        plt = _pyplot()
        if ax is None:
            _, ax = plt.subplots(2, 2, figsize=(11, 7))
        ax = np.asarray(ax, dtype=object)
        if ax.size == 4:  # e.g. a flattened grid: the panels in reading order
            ax = ax.reshape(2, 2)
        if ax.shape != (2, 2) or not all(hasattr(a, "scatter") for a in ax.flat):
            what = "one Axes" if ax.ndim == 0 else f"an array of shape {ax.shape}"
            if ax.shape == (2, 2):
                odd = next(a for a in ax.flat if not hasattr(a, "scatter"))
                what = f"a (2, 2) array holding a {type(odd).__name__}"
            raise ValueError(
                f"ax must be four Axes, a (2, 2) array (plt.subplots(2, 2)), or "
                f"None for a new figure; got {what}."
            )
        arms = list(dict.fromkeys(self.scores["arm"]))
        # A baseline has no curvature (no attention): its panel leaves it out.
        measured = self.scores.groupby("arm", sort=False)["curvature"].count()
        curved = [arm for arm in arms if measured[arm]]
        for column, measure in enumerate(("score", "curvature")):
            name = self._name(measure)
            self._draw_arms(ax[0, column], arms if measure == "score" else curved,
                            measure, f"held-out {name}"
                            if measure == "score" else name)  # fmt: skip
            self._draw_differences(ax[1, column], measure, name)
        self.ax_ = ax
        self.figure_ = ax[0, 0].figure
        if self.title:
            self.figure_.suptitle(self.title, fontsize=9, wrap=True)
        self.figure_.tight_layout()
        return self

    def _draw_arms(self, panel, arms, measure, label):
        for i, arm in enumerate(arms):
            values = self.scores.loc[self.scores["arm"] == arm, measure]
            if label.startswith("|"):  # a signed kind, tested in magnitude
                values = values.abs()
            panel.scatter([i] * len(values), values, alpha=0.4, s=12)
            panel.hlines(values.mean(), i - 0.3, i + 0.3, color="black")
        panel.set_xticks(range(len(arms)), arms, rotation=20, fontsize=8)
        panel.set_ylabel(label)

    def _draw_differences(self, panel, measure, name):
        rows = self.tests[self.tests["measure"] == measure].reset_index(drop=True)
        left, right = _finite_extent(rows)
        panel.set_xlim(left, right)

        def inside(x):  # what lies beyond the extent is drawn at its edge
            return float(np.clip(x, left, right))

        for i, row in rows.iterrows():
            colour = self._COLOURS.get(row["outcome"], "black")
            panel.fill_betweenx(
                [i - 0.35, i + 0.35], inside(-row["margin"]), inside(row["margin"]),
                color="tab:blue", alpha=0.12, linewidth=0,
            )  # fmt: skip
            # An infinite bound (the test cannot reach its level on so few
            # splits) runs to the axis edge and ends in an arrow there.
            low, high = inside(row["ci low"]), inside(row["ci high"])
            panel.hlines(i, low, high, color=colour, linewidth=2.5)
            for bound, edge, arrow in ((row["ci low"], left, "<"),
                                       (row["ci high"], right, ">")):  # fmt: skip
                if np.isinf(bound):
                    panel.plot(edge, i, arrow, color=colour, clip_on=False)
            panel.plot(inside(row["mean difference"]), i, "o", color=colour)
            # Each row's outcome, in a column just right of the panel.
            panel.annotate(
                row["outcome"], (1, i), xycoords=("axes fraction", "data"),
                xytext=(7, 0), textcoords="offset points", va="center",
                fontsize=7, color=colour,
            )  # fmt: skip
        panel.axvline(0, color="black", linewidth=0.8)
        panel.set_yticks(range(len(rows)), rows["comparison"], fontsize=8)
        panel.invert_yaxis()
        # Short lines: a long one was cut at the figure's edge.
        panel.set_xlabel(
            f"difference in {name}\nbounds at Holm's step levels\n"
            "arrow: no finite bound; shaded: margin",
            fontsize=8,
        )


#: The largest size of a value a differences panel spans: its extent
#: (this, padded) and matplotlib's transforms (which subtract the limits)
#: then stay finite. Values beyond it are drawn at the panel's edge.
_LARGEST_EXTENT = np.finfo(float).max / 8


def _finite_extent(rows):
    """The x-range of a differences panel: every finite bound, mean
    difference and margin, and 0 (each within +-:data:`_LARGEST_EXTENT`),
    with a margin of 8 % each side (so that an open-ended interval visibly
    runs to the edge)."""
    drawn = rows[["ci low", "ci high", "mean difference", "margin"]]
    values = np.concatenate(
        [drawn.to_numpy(float).ravel(), -rows["margin"].to_numpy(float), [0.0]]
    )
    values = values[np.isfinite(values)]
    values = np.clip(values, -_LARGEST_EXTENT, _LARGEST_EXTENT)
    low, high = values.min(), values.max()
    pad = 0.08 * (high - low) or 1.0
    return low - pad, high + pad


def _plane(X, plane):
    """(origin, u, v): the input plane itself for 2 features; else ``plane``
    or the first two principal directions through the mean of ``X``."""
    if plane is not None:
        try:
            origin, u, v = (np.asarray(p, dtype=np.float64) for p in plane)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"plane must be (origin, u, v), three vectors of numbers; got "
                f"{plane!r} ({exc})."
            ) from None
        if not origin.shape == u.shape == v.shape == (X.shape[1],):
            raise ValueError(
                f"plane must be (origin, u, v), each of shape ({X.shape[1]},); "
                f"got shapes {origin.shape}, {u.shape}, {v.shape}."
            )
        if not np.isfinite(origin).all():
            raise ValueError(f"plane's origin must be finite; got {origin}.")
        lengths = np.linalg.norm(u) * np.linalg.norm(v)
        # |sin| of the angle between u and v: independent of their lengths.
        if not (np.isfinite(lengths) and lengths > 0) or (
            1 - min(1.0, abs(u @ v) / lengths) ** 2 < 1e-12
        ):
            raise ValueError(
                "plane's u and v must be finite, nonzero and linearly "
                "independent (not parallel)."
            )
        return origin, u, v
    if X.shape[1] == 2:
        return np.zeros(2), np.array([1.0, 0.0]), np.array([0.0, 1.0])
    if len(X) < 2:
        raise ValueError(
            f"X has {len(X)} row and {X.shape[1]} features: the plane through "
            "the data needs at least 2 rows (or pass plane=(origin, u, v))."
        )
    centred = X - X.mean(axis=0)
    _, spread, Vt = np.linalg.svd(centred, full_matrices=False)
    if not spread[1] > 1e-12 * max(spread[0], np.finfo(float).tiny):
        raise ValueError(
            "X's rows lie on a line or a point: they span no plane of principal "
            "directions; pass plane=(origin, u, v)."
        )
    return X.mean(axis=0), Vt[0], Vt[1]


def _checked_table(estimator, X):
    """``X`` as float64, at least 2 features, finite (errors naming X), with
    the columns a DataFrame-fitted estimator was fitted with; and its names."""
    fitted_on_series = getattr(estimator, "series_layout_", None) is not None
    if fitted_on_series or isinstance(X, list) or np.ndim(X) == 3:
        raise ValueError(
            "CurvatureDisplay maps a plane of a table's feature space; "
            + (
                "the estimator was fitted on series"
                if fitted_on_series
                else f"X is series (shape {np.shape(X)})"
                if not isinstance(X, list)
                else "X is a list of series"
            )
            + ". Allowed: X a 2-D table (n_samples, n_features) of an estimator "
            "fitted on one; for series, measure curvature per series with "
            "clf.curvature(X) or skgate.representation_curvature."
        )
    names = getattr(estimator, "feature_names_in_", None)
    columns = getattr(X, "columns", None)
    if names is not None and columns is not None and list(columns) != list(names):
        raise ValueError(
            f"X's columns {list(columns)} are not the estimator's "
            f"{list(names)} (the names it was fitted with, in that order)."
        )
    X = check_array(X, dtype=np.float64, input_name="X")
    if X.shape[1] < 2:
        raise ValueError(
            f"X must have at least 2 features to span a plane; got "
            f"{X.shape[1]}. A one-feature model has no plane to map."
        )
    return X, names


def _as_input(points, names):
    """``points`` as the estimator takes them: a DataFrame with its names
    when it was fitted on one."""
    if names is not None and len(names) == points.shape[1]:
        return pd.DataFrame(points, columns=names)
    return points


def _model_directions(estimator, origin, u, v, names):
    """The plane's directions as the skgate model sees them: through the
    steps of a Pipeline before it, which must be affine (the image of the
    plane is then a plane, its directions ``T(origin + u) - T(origin)``)."""
    estimator = getattr(estimator, "best_estimator_", estimator)  # a fitted search
    if not isinstance(estimator, Pipeline):
        return np.stack([u, v])
    steps = estimator[:-1]
    for name, step in steps.steps:
        if not is_affine_step(step):
            raise ValueError(
                f"CurvatureDisplay maps a plane of the input through the "
                f"pipeline's steps, which must be affine; the step {name!r} "
                f"({type(step).__name__}) is not, so the image of the plane is "
                f"not a plane. Map the last step on the transformed data instead: "
                f"CurvatureDisplay.from_estimator(pipe[-1], pipe[:-1].transform(X))."
            )
    corners = np.stack([origin, origin + u, origin + v])
    moved = np.asarray(steps.transform(_as_input(corners, names)), dtype=np.float64)
    return moved[1:] - moved[0]


def _check_ax(ax, plot_method):
    if ax is not None and not callable(getattr(ax, plot_method, None)):
        raise TypeError(
            f"ax must be a matplotlib Axes (or None for a new figure); got "
            f"{type(ax).__name__}."
        )


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
    kind : str, optional
        The kind of curvature mapped; a signed one ("gaussian", "scalar")
        gets a diverging colour map centred at 0.

    Attributes
    ----------
    surface_ : ndarray
        ``surface``.
    colorbar_ : matplotlib Colorbar or None
        The colour bar drawn (None with ``colorbar=False``).
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

    def __init__(self, xx0, xx1, surface, *, xlabel=None, ylabel=None, kind=None):
        self.xx0, self.xx1 = xx0, xx1
        self.surface_ = surface
        self.xlabel, self.ylabel = xlabel, ylabel
        self.kind = kind

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
        xlabel=None,
        ylabel=None,
        colorbar=True,
        ax=None,
        **kwargs,
    ):
        """Compute the map of a fitted estimator (or a Pipeline ending in
        one) and draw it.

        ``X`` (numbers, at least 2 features) sets the extent: for 2 features
        the grid spans each feature's range widened by ``eps``; for more, the
        plane ``plane`` = (origin, u, v) or, by default, the first two
        principal directions through the mean of ``X`` (which then needs 2
        rows), spanning the data's coordinates on it widened by ``eps``.
        Curvature is measured along the plane's two directions (``kind``,
        ``layer`` and the keywords of :func:`~skgate.representation_curvature`
        among ``kwargs``: metric, method, covariance...); the other
        ``kwargs`` go to the plot method, and a keyword neither takes is
        refused before any curvature is computed. The grid's points reach
        the estimator as a DataFrame with its ``feature_names_in_`` when it
        was fitted on one. In a Pipeline the steps before the model must be
        affine (:data:`~skgate.model_selection.AFFINE_STEPS`): the plane's
        directions are carried through them exactly. A grid above
        :data:`MAX_GRID_BYTES` is refused.
        ``xlabel``, ``ylabel`` name the axes (default: "feature 0/1" or
        "direction u/v"); ``colorbar=False`` draws no colour bar.
        """
        X, names = _checked_table(estimator, X)
        grid_resolution = _check_grid(grid_resolution, X.shape[1])
        if not (isinstance(eps, Real) and np.isfinite(eps) and eps >= 0):
            raise ValueError(f"eps must be a finite number >= 0; got {eps!r}.")
        curvature_keys = {
            k: kwargs.pop(k) for k in list(kwargs) if k in _CURVATURE_KEYS
        }
        _check_plot_keywords(plot_method, kwargs)
        _check_ax(ax, plot_method)
        origin, u, v = _plane(X, plane)
        directions = _model_directions(estimator, origin, u, v, names)
        coords = (X - origin) @ np.linalg.pinv(np.stack([u, v]))
        low, high = coords.min(axis=0) - eps, coords.max(axis=0) + eps
        if not (high > low).all():
            raise ValueError(
                "the map has no extent: X spans a single point on the plane "
                "and eps=0; give eps > 0 or more varied X."
            )
        axes = [
            np.linspace(a, b, grid_resolution) for a, b in zip(low, high, strict=True)
        ]
        xx0, xx1 = np.meshgrid(*axes)
        points = origin + xx0.reshape(-1, 1) * u + xx1.reshape(-1, 1) * v
        surface = representation_curvature(
            estimator, _as_input(points, names), kind=kind, layer=layer,
            directions=directions, **curvature_keys,
        ).reshape(xx0.shape)  # fmt: skip
        two = X.shape[1] == 2 and plane is None
        labels = ("feature 0", "feature 1") if two else ("direction u", "direction v")
        display = cls(
            xx0,
            xx1,
            surface,
            xlabel=labels[0] if xlabel is None else xlabel,
            ylabel=labels[1] if ylabel is None else ylabel,
            kind=kind,
        )
        display.plane_ = (origin, u, v)
        return display.plot(ax=ax, plot_method=plot_method, colorbar=colorbar, **kwargs)

    def plot(self, ax=None, *, plot_method="contourf", colorbar=True, **kwargs):
        """Draw the map into ``ax`` (default: a new figure) with
        ``plot_method`` ("contourf", "contour" or "pcolormesh"); ``kwargs``
        go to it. A colour bar names the curvature (``colorbar=False``: none;
        drawing on an Axes again replaces the bar this class drew there).
        A signed kind ("gaussian", "scalar") is coloured with the diverging
        "RdBu_r" centred at 0 unless ``kwargs`` choose ``cmap``, ``norm``,
        ``vmin``, ``vmax``, ``colors`` or ``levels``."""
        _check_plot_keywords(plot_method, kwargs)
        _check_ax(ax, plot_method)
        if not isinstance(colorbar, bool | np.bool_):
            raise TypeError(f"colorbar must be a bool; got {colorbar!r}.")
        plt = _pyplot()
        if ax is None:
            _, ax = plt.subplots()
        chosen = {"cmap", "norm", "vmin", "vmax", "colors", "levels"} & set(kwargs)
        # The intrinsic kinds take either sign: a diverging map centred at 0.
        if self.kind in INTRINSIC_KINDS and not chosen:
            largest = float(np.nanmax(np.abs(self.surface_))) or 1.0
            kwargs = {**kwargs, "cmap": "RdBu_r", "vmin": -largest, "vmax": largest}
            if plot_method != "pcolormesh":
                kwargs["levels"] = np.linspace(-largest, largest, 11)
        draw = getattr(ax, plot_method)
        self.surface_artist_ = draw(self.xx0, self.xx1, self.surface_, **kwargs)
        previous = _COLORBARS.pop(ax, None)
        if previous is not None:
            previous.remove()
        self.colorbar_ = None
        if colorbar:
            self.colorbar_ = ax.figure.colorbar(
                self.surface_artist_, ax=ax, label="curvature"
            )
            _COLORBARS[ax] = self.colorbar_
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        self.ax_, self.figure_ = ax, ax.figure
        return self


def _check_grid(grid_resolution, n_features):
    """``grid_resolution`` as an int >= 2 (numpy integers too) whose grid
    fits in :data:`MAX_GRID_BYTES`."""
    if isinstance(grid_resolution, bool | np.bool_) or not isinstance(
        grid_resolution, Integral
    ):
        raise TypeError(
            f"grid_resolution must be an int >= 2; got {grid_resolution!r}."
        )
    grid_resolution = int(grid_resolution)
    if grid_resolution < 2:
        raise ValueError(f"grid_resolution must be an int >= 2; got {grid_resolution}.")
    # The points (n_features columns), the two coordinates, the curvature
    # and the surface, float64 each.
    needed = grid_resolution**2 * (n_features + 4) * 8
    if needed > MAX_GRID_BYTES:
        largest = int((MAX_GRID_BYTES / ((n_features + 4) * 8)) ** 0.5)
        raise ValueError(
            f"grid_resolution={grid_resolution} makes {grid_resolution**2:,} points "
            f"of {n_features} features, about {needed / 2**30:.1f} GiB, above "
            f"the {MAX_GRID_BYTES / 2**30:g} GiB limit "
            f"(skgate.inspection.MAX_GRID_BYTES); use at most {largest}."
        )
    return grid_resolution


def _check_plot_keywords(plot_method, kwargs):
    """Refuse a plot method or keyword matplotlib would refuse, on a
    throwaway figure, before anything is computed."""
    if plot_method not in _PLOT_METHODS:
        raise ValueError(
            f"plot_method must be one of {list(_PLOT_METHODS)}; got {plot_method!r}."
        )
    if not kwargs:
        return
    _pyplot()  # matplotlib installed, or the extra named
    from matplotlib.figure import Figure

    grid = np.meshgrid([0.0, 1.0], [0.0, 1.0])
    try:
        getattr(Figure().subplots(), plot_method)(
            *grid, grid[0] + 2 * grid[1], **kwargs
        )
    except (AttributeError, TypeError, ValueError) as exc:
        curvature = sorted({"kind", "layer", *_CURVATURE_KEYS})
        raise TypeError(
            f"{sorted(kwargs)}: Axes.{plot_method} refuses them, as keywords "
            f"or for their values ({exc}); the curvature's keywords are "
            f"{curvature}."
        ) from None


def _cliques(ranks, critical_difference):
    """The maximal groups (two or more models, as names in rank order)
    whose average ranks lie within ``critical_difference`` of each other:
    the models Nemenyi's test cannot tell apart, joined by a bar."""
    names, values = list(ranks.index), ranks.to_numpy(dtype=float)
    groups = []
    for i in range(len(values)):
        last = i
        while (
            last + 1 < len(values)
            and values[last + 1] - values[i] < critical_difference
        ):
            last += 1
        group = (i, last)
        if last > i and not any(a <= i and last <= b for a, b in groups):
            groups.append(group)
    return [tuple(names[a : b + 1]) for a, b in groups]


class CriticalDifferenceDisplay:
    """Demsar's (2006) critical-difference diagram: each model at its
    average rank over the datasets (1 the best, on the left), Nemenyi's
    critical difference as a bar above the axis, and a thick line joining
    each group of models whose average ranks differ by less than it (the
    test cannot tell them apart).

    Parameters
    ----------
    average_ranks : pandas.Series
        Each model's average rank (index: the models' names).
    critical_difference : float
        Nemenyi's critical difference at 0.05.
    n_datasets : int, optional
        Named in the title.

    Attributes
    ----------
    cliques_ : list of tuple of str
        The groups joined by a line (set by ``plot``).
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from skgate.inspection import CriticalDifferenceDisplay
    >>> ranks = pd.Series({"a": 1.2, "b": 2.0, "c": 2.8})
    >>> display = CriticalDifferenceDisplay(ranks, 1.0).plot()
    >>> display.cliques_
    [('a', 'b'), ('b', 'c')]
    >>> import matplotlib.pyplot as plt
    >>> plt.close(display.figure_)
    """

    def __init__(self, average_ranks, critical_difference, *, n_datasets=None):
        self.average_ranks = average_ranks
        self.critical_difference = critical_difference
        self.n_datasets = n_datasets

    @classmethod
    def from_result(cls, result, *, ax=None):
        """Draw ``result`` (a :class:`~skgate.benchmark.GateBenchmark`) into
        ``ax`` (one Axes; default: a new figure)."""
        if not all(hasattr(result, a) for a in ("average_ranks_", "friedman_")):
            raise TypeError(
                f"result must be what benchmark_gates returns (a GateBenchmark); "
                f"got {type(result).__name__}."
            )
        return cls(
            result.average_ranks_,
            result.friedman_["critical difference"],
            n_datasets=result.friedman_["n datasets"],
        ).plot(ax=ax)

    def _checked(self):
        """The average ranks, best first, and the critical difference, checked."""
        ranks = self.average_ranks
        if not isinstance(ranks, pd.Series):
            raise TypeError(
                f"average_ranks must be a pandas Series (model name -> average "
                f"rank); got {type(ranks).__name__}."
            )
        values = pd.to_numeric(ranks, errors="coerce").to_numpy(dtype=float)
        if len(ranks) < 2 or not np.isfinite(values).all() or (values < 1).any():
            raise ValueError(
                f"average_ranks must hold at least 2 finite ranks >= 1; got "
                f"{ranks.to_dict()}."
            )
        cd = self.critical_difference
        if not (isinstance(cd, Real) and np.isfinite(cd) and cd > 0):
            raise ValueError(
                f"critical_difference must be a finite number > 0; got {cd!r}."
            )
        return ranks.astype(float).sort_values(kind="stable"), float(cd)

    def plot(self, *, ax=None):
        """Draw the diagram (into ``ax``, one Axes, or a new figure)."""
        plt = _pyplot()
        ranks, cd = self._checked()
        k = len(ranks)
        if ax is None:
            longest = max(len(str(name)) for name in ranks.index) + 7  # "(2.10) "
            width = 6 + 0.14 * longest
            figure, ax = plt.subplots(figsize=(width, 1.2 + 0.35 * k))
            # Names run outwards from the axes: leave them room (~0.075 in a letter).
            margin = min(0.4, 0.075 * longest / width)
            figure.subplots_adjust(left=margin, right=1 - margin)
        if isinstance(ax, np.ndarray) or not hasattr(ax, "hlines"):
            raise TypeError(f"ax must be one matplotlib Axes; got {type(ax).__name__}.")
        self.cliques_ = _cliques(ranks, cd)
        self._draw_axis(ax, k, cd)
        top = -0.45 - 0.18 * len(self.cliques_)  # the first row of names
        self._draw_models(ax, ranks, top)
        for level, group in enumerate(self.cliques_):
            y = -0.25 - 0.18 * level
            ax.hlines(y, ranks[group[0]] - 0.03, ranks[group[-1]] + 0.03,
                      linewidth=4, color="black")  # fmt: skip
        ax.set_xlim(0.5 - 0.25 * k, k + 0.5 + 0.25 * k)
        ax.set_ylim(top - 0.45 * ((k + 1) // 2), 1.1)
        ax.axis("off")
        if self.n_datasets:
            ax.set_title(f"Average ranks over {self.n_datasets} datasets "
                         "(1 = best)", fontsize=9)  # fmt: skip
        self.ax_, self.figure_ = ax, ax.figure
        return self

    def _draw_axis(self, ax, k, cd):
        ax.hlines(0, 1, k, color="black", linewidth=1)
        for tick in range(1, k + 1):
            ax.vlines(tick, 0, 0.1, color="black", linewidth=1)
            ax.text(tick, 0.18, str(tick), ha="center", va="bottom", fontsize=8)
        ax.hlines(0.8, 1, 1 + cd, color="black", linewidth=1.5)
        ax.vlines([1, 1 + cd], 0.72, 0.88, color="black", linewidth=1.5)
        ax.text(1 + cd / 2, 0.92, f"CD = {cd:.2f}", ha="center", va="bottom",
                fontsize=8)  # fmt: skip

    def _draw_models(self, ax, ranks, top):
        k = len(ranks)
        half = (k + 1) // 2
        for i, (name, rank) in enumerate(ranks.items()):
            left = i < half
            row = i if left else k - 1 - i
            y = top - 0.45 * row
            end = 1 - 0.2 * k if left else k + 0.2 * k
            ax.vlines(rank, y, 0, color="tab:gray", linewidth=0.8)
            ax.hlines(
                y, min(rank, end), max(rank, end), color="tab:gray", linewidth=0.8
            )
            label = f"{name} ({rank:.2f})" if left else f"({rank:.2f}) {name}"
            ax.text(end, y, label, ha="right" if left else "left", va="center",
                    fontsize=8)  # fmt: skip

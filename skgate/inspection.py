"""Display objects in scikit-learn's style: ``from_*`` computes, ``plot`` draws.

:class:`GateComparisonDisplay` draws :func:`skgate.compare_gates`' scores and
curvatures per arm. matplotlib is imported when a display draws, never on
``import skgate``.
"""

__all__ = ["GateComparisonDisplay"]


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

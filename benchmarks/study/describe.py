"""The study's descriptive numbers: means, extremes and counts the report shows.

Every number of REPORT.md and TOY.md that is not a test's is computed here (or
by :mod:`study.stats` and :mod:`study.claims`) from the per-fit
results and the claims' tests; :mod:`study.render` only formats and lays
out what these functions return. Data in, data out.
"""

from . import stats

__all__ = [
    "best_rows",
    "count",
    "distinct",
    "layer_norm_effect",
    "levels",
    "mean_by",
    "mean_table",
    "ordering_counts",
    "outcome_counts",
    "pairwise_counts",
    "regime_cells",
    "rows_per_seed",
    "sphere_means",
    "sphere_table",
    "split_by",
]

#: The outcomes in the order the report lists them after "k of N".
_OTHER_OUTCOMES = (
    ("reversed", stats.REVERSED),
    ("no effect", stats.NO_EFFECT),
    ("inconclusive", stats.INCONCLUSIVE),
)


def count(mask):
    """How many entries of a boolean sequence are true."""
    return int(sum(bool(m) for m in mask))


def outcome_counts(statuses):
    """``(held, total, others)`` of a sequence of outcomes (the words of
    :mod:`study.stats`): how many hold, how many there are, and
    ``[(name, k), ...]`` for every other outcome present, in the report's
    order."""
    statuses = list(statuses)
    others = [
        (name, sum(s == status for s in statuses))
        for name, status in _OTHER_OUTCOMES
        if any(s == status for s in statuses)
    ]
    return sum(s == stats.HOLDS for s in statuses), len(statuses), others


def distinct(frame, column):
    """The distinct values of ``column`` in first-seen order."""
    return list(dict.fromkeys(frame[column]))


def levels(frame, column):
    """The distinct values of ``column``, sorted."""
    return sorted(frame[column].unique())


def mean_by(frame, by, value):
    """The mean of ``value`` per ``by`` (a Series in first-seen order)."""
    return frame.groupby(by, sort=False)[value].mean()


def best_rows(summary, group, value="mean"):
    """The index labels of the row with the largest ``value`` per ``group``."""
    return summary.groupby(group, sort=False)[value].idxmax()


def ordering_counts(statuses, by):
    """Per ``by``: in how many conditions the full ordering holds and in how
    many it is reversed (``statuses``: :func:`stats.statuses`' table)."""
    return (
        statuses.assign(holds=statuses["status"] == stats.HOLDS)
        .assign(reversed=statuses["status"] == stats.REVERSED)
        .groupby(by, sort=False)[["holds", "reversed"]]
        .sum()
        .reset_index()
        .rename(columns={"holds": "ordering holds"})
    )


def pairwise_counts(tests, measure="accuracy"):
    """``[(comparison, held, n), ...]``: how often each step of an ordering
    holds alone (after its family's Holm correction) for ``measure``."""
    tests = tests[tests["measure"] == measure]
    return [
        (comparison, int((rows["outcome"] == stats.HOLDS).sum()), len(rows))
        for comparison, rows in tests.groupby("comparison", sort=False)
    ]


def layer_norm_effect(frame):
    """Ungated attention over copied tokens with and without LayerNorm, from
    ``frame``'s fits (columns gate, n_observations, architecture,
    curvature_exact): None when there is no pre-LN fit, else the largest
    curvature without LayerNorm and the mean, least and largest with it."""
    ungated = frame[(frame["gate"] == "none") & (frame["n_observations"] == 1)]
    if ungated.empty or "pre-LN residual" not in set(ungated["architecture"]):
        return None
    normed = ungated["architecture"] == "pre-LN residual"
    flat = ungated.loc[~normed, "curvature_exact"]
    curved = ungated.loc[normed, "curvature_exact"]
    return {
        "flat max": flat.max(),
        "curved mean": curved.mean(),
        "curved min": curved.min(),
        "curved max": curved.max(),
    }


def rows_per_seed(frame):
    """The rows each seed of the real-data fits draws (``n_samples``'s
    largest value: a dataset with fewer rows takes them all)."""
    return int(frame["n_samples"].max())


def sphere_table(sphere):
    """C6's sphere-cap fits, means over seeds per gate, rows and epochs."""
    return (
        sphere.groupby(["gate", "n_samples", "max_epochs"], sort=False)
        .agg(
            r2=("r2", "mean"),
            median_K=("median_K", "mean"),
            median_K_std=("median_K", "std"),
            positive_share=("positive_share", "mean"),
            relative_error=("relative_error", "mean"),
            representation_median_K=("representation_median_K", "mean"),
            representation_positive_share=("representation_positive_share", "mean"),
        )
        .reset_index()
    )


def sphere_means(sphere, gate="multiplicative"):
    """``gate``'s sphere fits: the mean median K and relative error at the
    smallest and at the largest (rows, epochs), and those two settings."""
    part = sphere[sphere["gate"] == gate]
    means = part.groupby(["n_samples", "max_epochs"])[
        ["median_K", "relative_error"]
    ].mean()
    least, most = means.index.min(), means.index.max()
    return {
        "least": least,
        "most": most,
        "median_K": (means["median_K"][least], means["median_K"][most]),
        "relative_error": (
            means["relative_error"][least],
            means["relative_error"][most],
        ),
    }


def regime_cells(table):
    """Per measure and architecture of the regime map: its tested cells'
    outcomes, the least and largest growth per block among them, the weight
    scales where depth amplifies, and how many cells are flat."""
    rows = []
    for (measure, architecture), cells in table.groupby(
        ["measure", "architecture"], sort=False
    ):
        tested = cells[cells["outcome"] != "flat"]
        held = tested[tested["outcome"] == stats.HOLDS]
        growth = tested["growth per block"]
        rows.append(
            {
                "measure": measure,
                "architecture": architecture,
                "outcomes": list(tested["outcome"]),
                "growth min": growth.min() if len(tested) else float("nan"),
                "growth max": growth.max() if len(tested) else float("nan"),
                "amplifying scales": sorted(held["weight_scale"].unique()),
                "flat": int((cells["outcome"] == "flat").sum()),
            }
        )
    return rows


def mean_table(frame, index, columns, value):
    """The mean of ``value`` per ``index`` x ``columns``, ``columns`` wide."""
    return (
        frame.groupby([index, columns], sort=False)[value]
        .mean()
        .unstack()
        .reset_index()
    )


def split_by(frame, column):
    """``[(value, rows), ...]`` of ``frame`` per value of ``column``, in
    first-seen order (no aggregation: the parts, for tables per part)."""
    return [(key, part) for key, part in frame.groupby(column, sort=False)]

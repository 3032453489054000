"""Figures of the exploratory study and the theorem's setting (matplotlib,
the ``plot`` extra); the confirmatory parts' are
:mod:`study.plots_confirmatory`'s.

matplotlib is imported when a figure is drawn, not when this module is.

Each function takes the study's DataFrames, draws one figure and returns it;
error bars are 95 % confidence intervals of the mean, never outside the
quantity's range (curvature is not negative, accuracy not above 1).
"""

import numpy as np

from skgate.datasets import CURVED_SHAPES

from .beyond import production_arms
from .claims import with_tokens
from .design import DEFAULTS
from .facts import STUDY_GATES
from .stats import t_half_width

__all__ = [
    "plot_alpha",
    "plot_anisotropy",
    "plot_boundaries",
    "plot_budget",
    "plot_depth",
    "plot_gates",
    "plot_noise",
    "plot_production",
    "plot_real",
    "plot_regime",
    "plot_curvature_map",
    "plot_sphere",
]


def pyplot():
    """matplotlib.pyplot on the Agg backend, or an ImportError naming the extra."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "skgate's figures need matplotlib: pip install 'skgate[plot]'."
        ) from exc
    return plt


def _mean_ci(frame, by, value, low=0.0, high=None):
    """Mean of ``value`` per ``by`` and its 95 % t interval as error-bar
    lengths (below, above), the interval cut at ``low`` / ``high`` (the range
    of the quantity: curvature is not negative, accuracy not above 1)."""
    grouped = frame.groupby(by, sort=True)[value]
    mean = grouped.mean()
    half = t_half_width(grouped.std().fillna(0.0), grouped.count())
    below = np.minimum(half, mean - low) if low is not None else half
    above = half if high is None else np.minimum(half, high - mean)
    return mean, below, above


def _ci_line(ax, frame, x, value, *, low=0.0, high=None, **style):
    """The mean of ``value`` against ``x`` with its 95 % interval (cut at
    ``low`` / ``high``) as error bars, drawn on ``ax`` with ``style``."""
    mean, below, above = _mean_ci(frame, x, value, low=low, high=high)
    ax.errorbar(mean.index, mean, yerr=[below, above], marker="o", capsize=3, **style)


def plot_gates(gates):
    """C1: curvature and accuracy per gate, shape, head and token form."""
    plt = pyplot()
    frame = with_tokens(gates)
    panels = list(frame.groupby(["head", "tokens"], sort=True))
    fig, axes = plt.subplots(
        len(panels), 2, figsize=(11, 2.6 * len(panels)), squeeze=False
    )
    shapes = list(dict.fromkeys(frame["shape"]))
    for row, ((head, tokens), group) in enumerate(panels):
        for col, (value, label) in enumerate(
            [
                ("curvature_exact", "curvature (acceleration)"),
                ("accuracy", "test accuracy"),
            ]
        ):
            ax = axes[row, col]
            _gate_bars(ax, group, "shape", shapes, value)
            ax.set_ylabel(label)
            ax.set_title(f"head={head}, tokens={tokens}", fontsize=9)
    axes[0, 0].legend(fontsize=8)
    fig.suptitle("C1: gate kind vs curvature and accuracy (mean, 95 % CI over seeds)")
    fig.tight_layout()
    return fig


def _gate_bars(ax, frame, key, categories, value):
    """Bars of ``value`` per gate (mean, 95 % CI) at each of ``categories``
    of column ``key``; curvature on a symmetric log axis."""
    width = 0.8 / len(STUDY_GATES.order)
    for i, gate in enumerate(STUDY_GATES.order):
        mean, below, above = (
            part.reindex(categories)
            for part in _mean_ci(
                frame[frame["gate"] == gate],
                key,
                value,
                high=1.0 if value == "accuracy" else None,
            )
        )
        x = np.arange(len(categories)) + (i - 1) * width
        ax.bar(
            x,
            mean,
            width,
            yerr=[below, above],
            color=STUDY_GATES.colors[gate],
            label=STUDY_GATES.labels[gate],
            capsize=2,
        )
    ax.set_xticks(np.arange(len(categories)), categories)
    if value == "accuracy":
        ax.set_ylim(0.4, 1.0)
    else:
        ax.set_yscale("symlog", linthresh=1e-3)
        ax.set_ylim(0, 5 * max(frame[value].max(), 1e-3))


def plot_alpha(alpha, title=None):
    """C2/C3: accuracy and curvature against alpha, curved tasks and the linear
    one (``title``: the figure's, default C2/C3's)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    frame = alpha.assign(
        label=np.where(alpha["task"] == "linear", "linear", alpha["shape"])
    )
    for label, group in frame.groupby("label", sort=True):
        style = {"color": "black", "linestyle": "--"} if label == "linear" else {}
        for ax, value in zip(axes, ["accuracy", "curvature_exact"], strict=True):
            high = 1.0 if value == "accuracy" else None
            _ci_line(ax, group, "alpha", value, high=high, label=label, **style)
    axes[0].set_ylabel("test accuracy")
    axes[1].set_ylabel("curvature (acceleration)")
    for ax in axes:
        ax.set_xlabel("gate strength alpha")
    axes[0].legend(title="task", fontsize=8)
    fig.suptitle(
        title or "C2/C3: gate strength vs accuracy and curvature (mean, 95 % CI)"
    )
    fig.tight_layout()
    return fig


def _geometric_ci(values):
    """Geometric mean of positive ``values`` and its 95 % interval (a t
    interval on the logarithms): never below 0, as curvature is not."""
    logs = np.log(np.asarray(values, dtype=float))
    mean = logs.mean()
    spread = logs.std(ddof=1) if len(logs) > 1 else 0.0
    half = t_half_width(spread, len(logs))
    return np.exp(mean), np.exp(mean - half), np.exp(mean + half)


def plot_anisotropy(gates, condition_numbers):
    """C4: curvature per gate as the metric's condition number grows.

    One panel per token form (copied, sequence); solid lines the diagonal
    metrics, dashed the rotated ones; geometric means over fits with 95 %
    intervals. Ungated attention over copied tokens is exactly flat (0), off
    a log axis: it is left out there, and said so.
    """
    plt = pyplot()
    frame = with_tokens(gates)
    forms = list(frame["tokens"].unique())
    fig, axes = plt.subplots(1, len(forms), figsize=(5 * len(forms), 4), squeeze=False)
    families = {"diagonal": ("curvature_cond", "-"), "rotated": ("curvature_rot", "--")}
    for ax, form in zip(axes[0], forms, strict=True):
        part = frame[frame["tokens"] == form]
        left_out = []
        for gate in STUDY_GATES.order:
            rows = part[part["gate"] == gate]
            for family, (prefix, style) in families.items():
                columns = [f"{prefix}_{c:g}" for c in condition_numbers]
                if columns[0] not in rows or rows.empty:
                    continue
                if not (rows[columns] > 0).all().all():
                    left_out.append(STUDY_GATES.labels[gate])
                    continue
                means, lows, highs = zip(
                    *(_geometric_ci(rows[c]) for c in columns), strict=True
                )
                means, lows, highs = map(np.array, (means, lows, highs))
                ax.errorbar(
                    condition_numbers,
                    means,
                    yerr=[means - lows, highs - means],
                    marker="o",
                    capsize=3,
                    linestyle=style,
                    color=STUDY_GATES.colors[gate],
                    label=f"{STUDY_GATES.labels[gate]}, {family}",
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("condition number of the metric")
        ax.set_ylabel("curvature (acceleration, metric norm)")
        note = (
            f"; not drawn (0): {', '.join(sorted(set(left_out)))}" if left_out else ""
        )
        ax.set_title(f"{form} tokens{note}", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("C4: ordering under anisotropic metrics (geometric mean, 95 % CI)")
    fig.tight_layout()
    return fig


def plot_depth(depth_init, depth_trained):
    """C5: curvature against depth at initialisation and after training, one
    row per block architecture (plain, residual, pre-LN residual)."""
    plt = pyplot()
    stages = [("at initialisation", depth_init), ("after training", depth_trained)]
    architectures = list(
        dict.fromkeys(depth_init.get("architecture", ["plain"] * len(depth_init)))
    )
    fig, axes = plt.subplots(
        len(architectures), 2, figsize=(11, 3.6 * len(architectures)), squeeze=False
    )
    for row, architecture in enumerate(architectures):
        for ax, (title, frame) in zip(axes[row], stages, strict=True):
            if "architecture" in frame:
                frame = frame[frame["architecture"] == architecture]
            _gate_lines(ax, frame, "depth", "curvature_exact")
            ax.set_xlabel("depth (attention blocks)")
            ax.set_ylabel("curvature (acceleration)")
            ax.set_yscale("symlog", linthresh=1e-3)
            ax.set_title(f"C5, {architecture}: {title} (mean, 95 % CI)", fontsize=9)
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_production(frame):
    """The production rerun: accuracy and curvature against the token form
    (copied, then sequence lengths), per shape, for each model's gated arm,
    SiLU and ungated (mean, 95 % CI). ``frame``: the sweep with its
    ``model`` and ``tokens`` columns (:func:`study.beyond.production_frame`)."""
    plt = pyplot()
    shapes = _shapes(frame)
    forms = list(
        dict.fromkeys(frame.sort_values("n_observations")["tokens"])
    )  # copied first, then by length
    models = list(dict.fromkeys(frame["model"]))
    fig, axes = plt.subplots(
        2, len(shapes), figsize=(max(4.2 * len(shapes), 6.4), 6.4), squeeze=False
    )
    styles = {models[0]: "-", **{m: "--" for m in models[1:]}}
    for col, shape in enumerate(shapes):
        for model in models:
            arms = production_arms(frame, model)
            arms = arms[arms["shape"] == shape].assign(
                form=lambda f: f["tokens"].map(forms.index)
            )
            for gate in arms["gate"].unique():
                base = "multiplicative" if gate not in STUDY_GATES.colors else gate
                part = arms[arms["gate"] == gate]
                for row, value, high in (
                    (0, "accuracy", 1.0),
                    (1, "curvature_exact", None),
                ):
                    _ci_line(
                        axes[row, col],
                        part,
                        "form",
                        value,
                        high=high,
                        color=STUDY_GATES.colors[base],
                        linestyle=styles[model],
                        label=f"{model}: {gate}",
                    )
        for row, label in ((0, "test accuracy"), (1, "curvature (acceleration)")):
            ax = axes[row, col]
            ax.set_xticks(range(len(forms)), forms, fontsize=8)
            ax.set_ylabel(label)
            ax.set_title(f"{shape}", fontsize=9)
        axes[1, col].set_yscale("symlog", linthresh=1e-3)
        axes[1, col].set_ylim(bottom=0)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(
        "C1: toy block (solid), production block (dashed); mean, 95 % CI",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def plot_boundaries(panels, resolution=60):
    """Decision boundary beside a curvature heat map, one row per fitted model.

    ``panels``: list of ``(title, fitted classifier, X, y)`` with 2-D ``X``.
    """
    plt = pyplot()
    fig, axes = plt.subplots(
        len(panels), 2, figsize=(10, 4.2 * len(panels)), squeeze=False
    )
    for row, (title, clf, X, y) in enumerate(panels):
        lo, hi = X.min(axis=0) - 0.3, X.max(axis=0) + 0.3
        g0, g1 = np.meshgrid(
            np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution)
        )
        points = np.column_stack([g0.ravel(), g1.ravel()])
        proba = clf.predict_proba(points)[:, 1].reshape(g0.shape)
        kappa = clf.curvature(points).reshape(g0.shape)
        ax = axes[row, 0]
        filled = ax.contourf(g0, g1, proba, levels=20, cmap="RdBu_r", alpha=0.8)
        ax.contour(g0, g1, proba, levels=[0.5], colors="black")
        ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu_r", s=6, edgecolors="none")
        fig.colorbar(filled, ax=ax, label="P(class 1)")
        ax.set_title(f"{title}: decision boundary")
        ax = axes[row, 1]
        heat = ax.pcolormesh(g0, g1, kappa, cmap="viridis", shading="auto")
        ax.contour(g0, g1, proba, levels=[0.5], colors="white", linewidths=1)
        fig.colorbar(heat, ax=ax, label="curvature (acceleration)")
        ax.set_title(f"{title}: representation curvature")
        for ax in axes[row]:
            ax.set_xlabel("x1")
            ax.set_ylabel("x2")
    fig.tight_layout()
    return fig


def _gate_lines(ax, frame, x, value, high=None):
    """``value`` against ``x``, one line per gate (mean, 95 % CI cut at
    ``high``)."""
    for gate in STUDY_GATES.order:
        _ci_line(
            ax,
            frame[frame["gate"] == gate],
            x,
            value,
            high=high,
            color=STUDY_GATES.colors[gate],
            label=STUDY_GATES.labels[gate],
        )


def _shapes(frame):
    """The frame's curved shapes in the makers' order."""
    present = set(frame["shape"])
    return [shape for shape in CURVED_SHAPES if shape in present]


def _accuracy_panels(frame, row_key, rows, x, *, xlabel, title, suptitle, extra=None):
    """Test accuracy against ``x`` (log axis labelled by its values), one
    panel per value of ``row_key`` (``rows``, in order) and curved shape;
    ``title(shape, row)`` names a panel, ``extra(ax, part, shape)`` adds to it."""
    plt = pyplot()
    shapes = _shapes(frame)
    fig, axes = plt.subplots(
        len(rows),
        len(shapes),
        figsize=(2.8 * len(shapes), 2.6 * len(rows)),
        squeeze=False,
        sharey=True,
    )
    for (r, row), (c, shape) in (
        (r, c) for r in enumerate(rows) for c in enumerate(shapes)
    ):
        ax = axes[r, c]
        part = frame[(frame[row_key] == row) & (frame["shape"] == shape)]
        _gate_lines(ax, part, x, "accuracy", high=1.0)
        ax.set_xscale("log")
        ax.minorticks_off()  # the values themselves label the axis
        values = sorted(part[x].unique())
        ax.set_xticks(values, [f"{v:g}" for v in values])
        ax.set_ylim(0.4, 1.0)
        if extra is not None:
            extra(ax, part, shape)
        ax.set_title(title(shape, row), fontsize=9)
        ax.set_xlabel(xlabel)
    for r in range(len(rows)):
        axes[r, 0].set_ylabel("test accuracy")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(suptitle)
    fig.tight_layout()
    return fig


def plot_budget(selected):
    """Controls: accuracy against the training budget per gate, shape and
    head, each arm at its searched learning rate (``selected``: rows of
    :func:`~study.controls.select_learning_rate`)."""
    return _accuracy_panels(
        selected,
        "head",
        list(dict.fromkeys(selected["head"])),
        "max_epochs",
        xlabel="epochs",
        title=lambda shape, head: f"{shape}, head={head}",
        suptitle="Controls: accuracy at each budget, learning rate searched per "
        "arm (mean, 95 % CI)",
    )


def plot_noise(frame, bayes):
    """Controls: accuracy against the task's noise per gate and shape, one
    row per budget, with the task's Bayes accuracy (dashed)."""
    ceilings = bayes[(bayes["task"] == "curved") & (bayes["n_observations"] == 1)]

    def bayes_line(ax, part, shape):
        line = ceilings[ceilings["shape"] == shape].sort_values("noise")
        line = line[line["noise"].isin(part["noise"].unique())]
        ax.plot(line["noise"], line["bayes accuracy"], "k--", label="Bayes")

    return _accuracy_panels(
        frame,
        "max_epochs",
        sorted(frame["max_epochs"].unique()),
        "noise",
        xlabel="noise",
        title=lambda shape, epochs: f"{shape}, {epochs} epochs",
        suptitle="Controls: accuracy against noise, MLP head (mean, 95 % CI)",
        extra=bayes_line,
    )


def plot_real(real, real_alpha, boundaries):
    """C1-C3 on the real and benchmark datasets: accuracy and curvature per
    gate, and accuracy against alpha (``boundaries``: dataset -> what is
    known of its Bayes boundary, shown in the legend)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(16, 4))
    tasks = list(dict.fromkeys(real["task"]))
    for ax, (value, label) in zip(
        axes[:2],
        [
            ("accuracy", "test accuracy"),
            ("curvature_exact", "curvature (acceleration)"),
        ],
        strict=True,
    ):
        _gate_bars(ax, real, "task", tasks, value)
        ax.set_ylabel(label)
        ax.tick_params(axis="x", labelsize=8, labelrotation=20)
    axes[0].legend(fontsize=8)
    ax = axes[2]
    for task, group in real_alpha.groupby("task", sort=False):
        style = {"linestyle": "--"} if boundaries[task] == "linear" else {}
        label = f"{task} ({boundaries[task]})"
        _ci_line(ax, group, "alpha", "accuracy", high=1.0, label=label, **style)
    ax.set_xlabel("gate strength alpha")
    ax.set_ylabel("test accuracy")
    ax.legend(title="dataset (Bayes boundary)", fontsize=7)
    fig.suptitle(
        "Real and benchmark data: C1 per gate, C2/C3 per alpha (mean, 95 % CI)"
    )
    fig.tight_layout()
    return fig


def _symmetric_norm(values):
    """A colour scale centred at 0, symmetric, logarithmic beyond 1/1000 of
    the largest magnitude: the sign of curvature in colour, its size in shade."""
    from matplotlib.colors import SymLogNorm

    largest = float(np.abs(values).max()) or 1.0
    return SymLogNorm(linthresh=largest * 1e-3, vmin=-largest, vmax=largest)


def plot_curvature_map(panels, resolution=70):
    """C6: Gaussian curvature of the representation over the input plane,
    sign in colour (red positive, blue negative, white flat), one panel per
    fitted classifier, its decision boundary in black.

    ``panels``: list of ``(title, fitted classifier, X, y)`` with 2-D ``X``.
    """
    plt = pyplot()
    fig, axes = plt.subplots(
        1, len(panels), figsize=(4.6 * len(panels), 4.2), squeeze=False
    )
    for ax, (title, clf, X, _) in zip(axes[0], panels, strict=True):
        lo, hi = X.min(axis=0), X.max(axis=0)
        g0, g1 = np.meshgrid(
            np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution)
        )
        points = np.column_stack([g0.ravel(), g1.ravel()])
        K = clf.curvature(points, kind="gaussian").reshape(g0.shape)
        proba = clf.predict_proba(points)[:, 1].reshape(g0.shape)
        heat = ax.pcolormesh(
            g0, g1, K, cmap="RdBu_r", norm=_symmetric_norm(K), shading="auto"
        )
        ax.contour(g0, g1, proba, levels=[0.5], colors="black", linewidths=1)
        bar = fig.colorbar(heat, ax=ax, label="Gaussian curvature K")
        # Ticks at the ends and zero: the log decades crowd around zero.
        bar.set_ticks([heat.norm.vmin, 0.0, heat.norm.vmax])
        bar.set_ticklabels([f"{heat.norm.vmin:.2g}", "0", f"{heat.norm.vmax:.2g}"])
        ax.set_title(
            f"{title}\nK > 0 on {np.mean(K > 0):.0%}, K < 0 on {np.mean(K < 0):.0%}, "
            f"max |K| {np.abs(K).max():.2g}",
            fontsize=9,
        )
        ax.set_xlabel("x1")
        ax.set_ylabel("x2")
    fig.suptitle("C6: sign of the representation's Gaussian curvature over the input")
    fig.tight_layout()
    return fig


def plot_sphere(sphere, fitted, target):
    """C6's sphere cap: the fitted surfaces coloured by their Gaussian
    curvature over the true sphere's wireframe (``fitted``: list of
    ``(title, regressor)``; top row), and the gated fits' median K and
    relative error against training rows, one line per budget (mean, 95 %
    CI), the sphere's ``target`` = 1/R^2 dashed (bottom row)."""
    plt = pyplot()
    columns = max(len(fitted), 2)
    fig = plt.figure(figsize=(6 * columns, 9))
    _fitted_surfaces(fig, columns, fitted, target)
    _sphere_errors(fig, columns, sphere, target)
    fig.suptitle(
        f"C6: fitting a cap of the sphere of radius {1 / np.sqrt(target):g} "
        "(GatedAttentionRegressor, linear head)"
    )
    fig.tight_layout()
    return fig


def _fitted_surfaces(fig, columns, fitted, target):
    """The top row of :func:`plot_sphere`: each fitted surface over the sphere."""
    g0, g1 = np.meshgrid(np.linspace(-1, 1, 25), np.linspace(-1, 1, 25))
    points = np.column_stack([g0.ravel(), g1.ravel()])
    radius = 1 / np.sqrt(target)
    sphere_height = np.sqrt(radius**2 - g0**2 - g1**2)
    for i, (title, regressor) in enumerate(fitted):
        ax = fig.add_subplot(2, columns, i + 1, projection="3d")
        ax.plot_wireframe(g0, g1, sphere_height, color="0.75", linewidth=0.4)
        surface = regressor.predict(points)
        K = regressor.curvature(
            points, kind="gaussian", layer="logits", metric=regressor.y_scale_**2
        )
        # Dark edges: a flat surface (K = 0, the colour scale's white) stays visible.
        dots = ax.scatter(
            *surface.T,
            c=K,
            cmap="RdBu_r",
            norm=_symmetric_norm(np.r_[K, target]),
            s=9,
            edgecolors="0.2",
            linewidths=0.3,
            depthshade=False,
        )
        fig.colorbar(dots, ax=ax, shrink=0.6, label="Gaussian curvature K")
        ax.set_title(
            f"{title}\nmedian K {np.median(K):.3g}; wireframe: the sphere, "
            f"K = {target:g}",
            fontsize=9,
        )


def _sphere_errors(fig, columns, sphere, target):
    """The bottom row of :func:`plot_sphere`: median K and its error."""
    plt = pyplot()
    gated = sphere[sphere["gate"] == "multiplicative"]
    sizes = sorted(sphere["n_samples"].unique())
    budgets = sorted(gated["max_epochs"].unique())
    colors = plt.get_cmap("viridis")(np.linspace(0, 0.85, len(budgets)))
    for j, (value, label) in enumerate(
        [
            ("median_K", "median K of the fitted map"),
            ("relative_error", "median |K - 1/R^2| R^2"),
        ]
    ):
        ax = fig.add_subplot(2, columns, columns + j + 1)
        for color, epochs in zip(colors, budgets, strict=True):
            _ci_line(
                ax,
                gated[gated["max_epochs"] == epochs],
                "n_samples",
                value,
                low=None,
                color=color,
                label=f"gated, {epochs} epochs",
            )
        if value == "median_K":
            ax.axhline(target, color="black", linestyle="--", label="sphere, 1/R^2")
            ungated = sphere[sphere["gate"] == "none"]
            ax.plot(
                sizes,
                ungated.groupby("n_samples")["median_K"].mean().reindex(sizes),
                color=STUDY_GATES.colors["none"],
                marker="s",
                linestyle=":",
                label="ungated (every budget)",
            )
        else:
            ax.set_yscale("log")
        ax.set_xscale("log")
        ax.minorticks_off()
        ax.set_xticks(sizes, [str(n) for n in sizes])
        ax.set_xlabel("training rows")
        ax.set_ylabel(label)
        ax.legend(fontsize=8)


def plot_regime(table):
    """The depth regime map: growth per block at initialisation (colour:
    log2 of the growth, red amplifies, blue decays), one row per measure
    and one panel per architecture, alpha against weight scale; each cell's
    growth printed, in parentheses where the test decides neither way,
    "flat" where the network is flat (ungated without LayerNorm)."""
    plt = pyplot()
    from matplotlib.colors import TwoSlopeNorm

    measures = list(dict.fromkeys(table["measure"]))
    architectures = list(dict.fromkeys(table["architecture"]))
    fig, axes = plt.subplots(
        len(measures),
        len(architectures),
        figsize=(4.6 * len(architectures), 3.8 * len(measures)),
        squeeze=False,
        layout="constrained",
    )
    for r, measure in enumerate(measures):
        part = table[table["measure"] == measure]
        growth = np.log2(part["growth per block"].dropna())
        largest = float(np.abs(growth).max()) if len(growth) else 1.0
        norm = TwoSlopeNorm(vcenter=0.0, vmin=-largest, vmax=largest)
        for ax, architecture in zip(axes[r], architectures, strict=True):
            image = _regime_panel(ax, part[part["architecture"] == architecture], norm)
            ax.set_title(f"{architecture}: {measure}", fontsize=9)
        fig.colorbar(image, ax=axes[r].tolist(), label="log2 growth per block")
    fig.suptitle(
        "Depth regime at initialisation: growth per block over depths 1-8 "
        "(parentheses: not significant)"
    )
    return fig


def _regime_panel(ax, cells, norm):
    """One architecture's alpha x weight-scale grid of growths."""
    alphas = sorted(cells["alpha"].unique())
    scales = sorted(cells["weight_scale"].unique())
    grid = np.full((len(alphas), len(scales)), np.nan)
    for _, row in cells.iterrows():
        i, j = alphas.index(row["alpha"]), scales.index(row["weight_scale"])
        grid[i, j] = np.log2(row["growth per block"])
        if row["outcome"] == "flat":
            text = "flat"
        else:
            text = f"{row['growth per block']:.2g}"
            if row["outcome"] not in ("holds", "reversed"):
                text = f"({text})"
        ax.text(j, i, text, ha="center", va="center", fontsize=7)
    ax.set_facecolor("0.85")  # flat cells
    image = ax.imshow(grid, cmap="RdBu_r", norm=norm, origin="lower", aspect="auto")
    ax.set_xticks(range(len(scales)), [f"{s:.2g}" for s in scales])
    ax.set_yticks(range(len(alphas)), [f"{a:g}" for a in alphas])
    ax.set_xlabel("weight scale (x PyTorch's default)")
    ax.set_ylabel("gate strength alpha")
    return image


def plot_fisher(fisher, fitted, radius):
    """The theorem's multi-class outputs on the Fisher-Rao sphere.

    Top row: for each ``(title, classifier, X, y)`` of ``fitted`` (three
    classes, 2-D input), the image ``2 sqrt(p)`` of the input square's grid
    lines on the sphere of ``radius`` (its octant as a grey wireframe) and
    of the rows ``X`` (coloured by class ``y``): an ungated model's lines
    are those of softmax of an affine map, a gated model's bend further.
    Bottom row: per task (column "task_name"), the mean over seeds of each
    arm's median Fisher-Rao extrinsic curvature (the sphere's great
    circles: ``1 / radius``, dashed) and, from four classes on, of its
    median ``|K|`` (the sphere's own: ``1 / radius**2``), linear head."""
    plt = pyplot()
    columns = max(len(fitted), 2)
    fig = plt.figure(figsize=(5.5 * columns, 10))
    for i, (title, clf, X, y) in enumerate(fitted):
        ax = fig.add_subplot(2, columns, i + 1, projection="3d")
        _sphere_octant(ax, radius)
        _image_grid(ax, clf)
        image = 2 * np.sqrt(clf.predict_proba(X[:300]))
        ax.scatter(*image.T, c=y[:300], cmap="viridis", s=6, depthshade=False)
        ax.set_title(title, fontsize=9)
        ax.view_init(elev=35, azim=45)
    arms = fisher[(fisher["head"] == "linear")]
    arms = arms[
        (arms["gate"] != "multiplicative")
        | np.isclose(arms["alpha"], DEFAULTS["alpha"])
    ]
    panels = [
        ("fisher_extrinsic", "median extrinsic curvature", 1 / radius, arms),
        (
            "fisher_gaussian",
            "median |K| (tasks of 4+ classes)",
            1 / radius**2,
            arms[arms["n_classes"] >= 4],
        ),
    ]
    for j, (value, label, reference, frame) in enumerate(panels):
        ax = fig.add_subplot(2, 2, 3 + j)
        tasks = list(dict.fromkeys(frame["task_name"]))
        for k, gate in enumerate(STUDY_GATES.order):
            means = (
                frame[frame["gate"] == gate].groupby("task_name")[value].mean()
            ).reindex(tasks)
            ax.scatter(
                means,
                np.arange(len(tasks)) + (k - 1) * 0.2,
                label=STUDY_GATES.labels[gate],
                s=25,
            )
        ax.axvline(reference, color="0.4", linestyle="--", linewidth=1)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(_null_formatter())
        ax.set_yticks(np.arange(len(tasks)), tasks, fontsize=8)
        ax.set_xlabel(f"{label} on the Fisher-Rao sphere (mean over seeds)")
        ax.legend(fontsize=8)
    fig.suptitle(
        f"Fisher-Rao output curvature: p = softmax(logits) as 2 sqrt(p) on the "
        f"sphere of radius {radius:g} (linear head, copied tokens)"
    )
    fig.subplots_adjust(left=0.12, right=0.97, hspace=0.25, wspace=0.35)
    return fig


def _null_formatter():
    from matplotlib.ticker import NullFormatter

    return NullFormatter()


def _sphere_octant(ax, radius):
    """The positive octant of the sphere of ``radius`` as a grey wireframe."""
    u, v = np.meshgrid(np.linspace(0, np.pi / 2, 13), np.linspace(0, np.pi / 2, 13))
    ax.plot_wireframe(
        radius * np.cos(u) * np.sin(v),
        radius * np.sin(u) * np.sin(v),
        radius * np.cos(v),
        color="0.8",
        linewidth=0.4,
    )


def _image_grid(ax, clf, bound=2.0, lines=15, points=120):
    """The images ``2 sqrt(p)`` of the input square's grid lines, horizontal
    lines in one colour, vertical in another."""
    ticks, along = np.linspace(-bound, bound, lines), np.linspace(-bound, bound, points)
    for axis, color in ((0, "0.35"), (1, "tab:red")):
        for tick in ticks:
            line = np.empty((points, 2))
            line[:, axis], line[:, 1 - axis] = along, tick
            image = 2 * np.sqrt(clf.predict_proba(line))
            ax.plot(*image.T, color=color, linewidth=0.6, alpha=0.7)

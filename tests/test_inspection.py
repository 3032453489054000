"""The displays: CurvatureDisplay against known curvatures, GateComparisonDisplay."""

import matplotlib
import numpy as np
import pytest
from sklearn.decomposition import PCA
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skgate import GatedAttentionClassifier, make_curved_task, representation_curvature
from skgate.inspection import CurvatureDisplay

matplotlib.use("Agg")
FAST = {"max_epochs": 2, "d_model": 8, "random_state": 0}


@pytest.fixture(scope="module")
def task():
    return make_curved_task(120, random_state=0)


class TestCurvatureDisplay:
    def test_ungated_is_flat_gated_is_not(self, task):
        X, y = task
        flat = GatedAttentionClassifier("none", **FAST).fit(X, y)
        display = CurvatureDisplay.from_estimator(flat, X, grid_resolution=12)
        assert display.surface_.shape == (12, 12)
        assert np.abs(display.surface_).max() < 1e-9
        gated = GatedAttentionClassifier(**FAST).fit(X, y)
        curved = CurvatureDisplay.from_estimator(gated, X, grid_resolution=12)
        assert curved.surface_.min() > 0
        assert curved.ax_.get_xlabel() == "feature 0"
        assert curved.figure_ is curved.ax_.figure
        # The grid spans the data widened by eps.
        assert curved.xx0.min() == pytest.approx(X[:, 0].min() - 1.0)
        assert curved.xx1.max() == pytest.approx(X[:, 1].max() + 1.0)

    def test_fisher_rao_of_affine_logits_is_one_half(self, task):
        """Two classes, affine logits: every line of the input plane is an
        arc of the circle of radius 2, extrinsic curvature 1/2 (the curvature
        keywords in kwargs go to the measurement, the rest to the plot)."""
        X, y = task
        clf = GatedAttentionClassifier("none", head="linear", **FAST).fit(X, y)
        display = CurvatureDisplay.from_estimator(
            clf, X, kind="extrinsic", layer="logits", metric="fisher",
            grid_resolution=8, plot_method="pcolormesh", cmap="magma",
        )  # fmt: skip
        np.testing.assert_allclose(display.surface_, 0.5, rtol=1e-6)
        assert display.surface_artist_.get_cmap().name == "magma"

    def test_a_plane_through_data_with_more_features(self):
        X, y = make_curved_task(120, n_observations=3, random_state=0)  # 6 features
        pipe = make_pipeline(StandardScaler(), GatedAttentionClassifier(**FAST))
        pipe.fit(X, y)
        display = CurvatureDisplay.from_estimator(pipe, X, grid_resolution=6)
        origin, u, v = display.plane_
        np.testing.assert_allclose(origin, X.mean(axis=0))
        pca = PCA(2).fit(X)
        for mine, theirs in zip((u, v), pca.components_, strict=True):
            assert abs(mine @ theirs) == pytest.approx(1.0)
        # A grid point's value is the curvature at that point of the plane,
        # along the plane's directions as the scaler maps them.
        a, b = display.xx0[2, 3], display.xx1[2, 3]
        point = (origin + a * u + b * v)[None]
        scaled = np.stack([u, v]) / pipe[0].scale_
        expected = representation_curvature(pipe, point, directions=scaled)
        assert display.surface_[2, 3] == pytest.approx(expected[0], rel=1e-10)
        assert display.ax_.get_xlabel() == "direction u"

    @pytest.mark.parametrize(
        "kwargs, error, message",
        [
            ({"plot_method": "scatter"}, ValueError, "plot_method must be one of"),
            ({"grid_resolution": 1}, ValueError, "must be an int >= 2; got 1"),
            ({"grid_resolution": 2.5}, TypeError, "grid_resolution must be an int"),
            ({"eps": -1.0}, ValueError, "eps must be a finite number >= 0"),
            ({"plane": ([0.0], [1.0], [0.0])}, ValueError, "plane must be"),
            (
                {"plane": ([0.0, 0.0], [1.0, 0.0], [2.0, 0.0])},
                ValueError,
                "linearly independent",
            ),
        ],
    )
    def test_bad_input(self, task, kwargs, error, message):
        X, y = task
        clf = GatedAttentionClassifier(**FAST).fit(X, y)
        with pytest.raises(error, match=message):
            CurvatureDisplay.from_estimator(clf, X, **{"grid_resolution": 4, **kwargs})


@pytest.fixture(scope="module")
def fitted(task):
    X, y = task
    return GatedAttentionClassifier(**FAST).fit(X, y)


class TestCurvatureDisplayLikeScikitLearns:
    """What DecisionBoundaryDisplay users expect of a display."""

    @pytest.fixture(autouse=True)
    def _close(self):
        import matplotlib.pyplot as plt

        yield
        plt.close("all")

    def test_one_feature_is_refused_naming_x(self):
        X = np.linspace(-1, 1, 20)[:, None]
        y = (X[:, 0] > 0).astype(int)
        clf = GatedAttentionClassifier(**FAST).fit(X, y)
        with pytest.raises(ValueError, match="X must have at least 2 features.*got 1"):
            CurvatureDisplay.from_estimator(clf, X, grid_resolution=4)

    def test_one_row(self, fitted, task):
        X, _ = task
        one = CurvatureDisplay.from_estimator(fitted, X[:1], grid_resolution=4)
        assert one.xx0.min() == pytest.approx(X[0, 0] - 1.0)  # the row +- eps
        with pytest.raises(ValueError, match="no extent.*eps=0"):
            CurvatureDisplay.from_estimator(fitted, X[:1], grid_resolution=4, eps=0.0)
        X6, y6 = make_curved_task(60, n_observations=3, random_state=0)
        wide = GatedAttentionClassifier(**FAST).fit(X6, y6)
        with pytest.raises(ValueError, match="needs at least 2 rows.*plane="):
            CurvatureDisplay.from_estimator(wide, X6[:1], grid_resolution=4)
        plane = (X6[0], np.eye(6)[0], np.eye(6)[1])
        drawn = CurvatureDisplay.from_estimator(
            wide, X6[:1], grid_resolution=4, plane=plane
        )
        assert drawn.surface_.shape == (4, 4)

    def test_numpy_integers_and_their_refusals(self, fitted, task):
        X, _ = task
        display = CurvatureDisplay.from_estimator(
            fitted, X, grid_resolution=np.int64(5)
        )
        assert display.surface_.shape == (5, 5)
        with pytest.raises(TypeError, match="grid_resolution must be an int"):
            CurvatureDisplay.from_estimator(fitted, X, grid_resolution=True)

    def test_the_plane_check_is_scale_free(self, fitted, task):
        X, _ = task
        tiny = (X.mean(axis=0), np.array([1e-4, 0.0]), np.array([0.0, 1e-4]))
        display = CurvatureDisplay.from_estimator(
            fitted, X, plane=tiny, grid_resolution=4
        )
        assert display.surface_.shape == (4, 4)
        parallel = (X.mean(axis=0), np.array([1e4, 1e4]), np.array([2e4, 2e4]))
        with pytest.raises(ValueError, match="linearly independent"):
            CurvatureDisplay.from_estimator(
                fitted, X, plane=parallel, grid_resolution=4
            )

    def test_colour_bars_do_not_stack_and_can_be_skipped(self, fitted, task):
        import matplotlib.pyplot as plt

        X, _ = task
        figure, ax = plt.subplots()
        for _ in range(3):
            display = CurvatureDisplay.from_estimator(
                fitted, X, grid_resolution=4, ax=ax
            )
        assert len(figure.axes) == 2  # the map's and one colour bar's
        assert display.colorbar_ is not None
        display.plot(ax=ax, colorbar=False)
        assert len(figure.axes) == 1 and display.colorbar_ is None
        other, bare = plt.subplots()
        CurvatureDisplay.from_estimator(
            fitted, X, grid_resolution=4, ax=bare, colorbar=False
        )
        assert len(other.axes) == 1
        with pytest.raises(TypeError, match="colorbar must be a bool"):
            display.plot(colorbar="no")

    def test_a_dataframe_model_draws_without_warnings(self, task):
        import warnings

        pd = pytest.importorskip("pandas")
        X, y = task
        frame = pd.DataFrame(X, columns=["width", "height"])
        clf = GatedAttentionClassifier(**FAST).fit(frame, y)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            display = CurvatureDisplay.from_estimator(clf, frame, grid_resolution=4)
        plain = CurvatureDisplay.from_estimator(
            GatedAttentionClassifier(**FAST).fit(X, y), X, grid_resolution=4
        )
        np.testing.assert_array_equal(display.surface_, plain.surface_)

    def test_a_grid_beyond_memory_is_refused_before_computing(self, fitted, task):
        X, _ = task
        with pytest.raises(ValueError, match=r"20000.*GiB.*MAX_GRID_BYTES.*at most"):
            CurvatureDisplay.from_estimator(fitted, X, grid_resolution=20000)

    def test_signed_kinds_diverge_around_zero(self, fitted, task):
        X, _ = task
        display = CurvatureDisplay.from_estimator(
            fitted, X, kind="gaussian", grid_resolution=6
        )
        artist = display.surface_artist_
        assert artist.get_cmap().name == "RdBu_r"
        assert artist.norm.vmin == pytest.approx(-artist.norm.vmax)
        chosen = CurvatureDisplay.from_estimator(
            fitted, X, kind="gaussian", grid_resolution=6, cmap="viridis"
        )
        assert chosen.surface_artist_.get_cmap().name == "viridis"
        unsigned = CurvatureDisplay.from_estimator(fitted, X, grid_resolution=6)
        assert unsigned.surface_artist_.get_cmap().name != "RdBu_r"

    def test_axis_labels(self, fitted, task):
        X, _ = task
        display = CurvatureDisplay.from_estimator(
            fitted, X, grid_resolution=4, xlabel="width", ylabel="height"
        )
        assert (display.ax_.get_xlabel(), display.ax_.get_ylabel()) == (
            "width",
            "height",
        )

    def test_unknown_keywords_are_refused_before_computing(self, fitted, task):
        from unittest import mock

        X, _ = task
        with mock.patch(
            "skgate.inspection.representation_curvature",
            side_effect=AssertionError("computed"),
        ):
            with pytest.raises(TypeError, match=r"\['colour'\].*'colour'"):
                CurvatureDisplay.from_estimator(
                    fitted, X, grid_resolution=4, colour="red"
                )

    def test_the_plane_through_affine_steps_of_other_widths(self):
        """A PCA before the model maps the plane's directions exactly: the map
        equals the model's own map over the image plane; a non-affine step is
        refused naming it."""
        from sklearn.preprocessing import PolynomialFeatures

        X, y = make_curved_task(80, n_observations=3, random_state=0)  # 6 features
        pipe = make_pipeline(PCA(2), GatedAttentionClassifier(**FAST)).fit(X, y)
        display = CurvatureDisplay.from_estimator(pipe, X, grid_resolution=4)
        origin, u, v = display.plane_
        image = pipe[0].transform(np.stack([origin, origin + u, origin + v]))
        a, b = display.xx0[1, 2], display.xx1[1, 2]
        point = pipe[0].transform((origin + a * u + b * v)[None])
        expected = representation_curvature(
            pipe[-1], point, directions=image[1:] - image[0]
        )
        assert display.surface_[1, 2] == pytest.approx(expected[0], rel=1e-9)
        bent = make_pipeline(PolynomialFeatures(2), GatedAttentionClassifier(**FAST))
        with pytest.raises(ValueError, match="'polynomialfeatures'.*not.*pipe\\[-1\\]"):
            CurvatureDisplay.from_estimator(bent.fit(X, y), X, grid_resolution=4)

    def test_reordered_columns_and_bad_values_are_named(self, task):
        pd = pytest.importorskip("pandas")
        X, y = task
        frame = pd.DataFrame(X, columns=["a", "b"])
        clf = GatedAttentionClassifier(**FAST).fit(frame, y)
        with pytest.raises(ValueError, match=r"X's columns \['b', 'a'\] are not"):
            CurvatureDisplay.from_estimator(clf, frame[["b", "a"]], grid_resolution=4)
        bad = X.copy()
        bad[0, 0] = np.nan
        with pytest.raises(ValueError, match="Input X contains NaN"):
            CurvatureDisplay.from_estimator(clf, bad, grid_resolution=4)

    @pytest.mark.parametrize(
        "plane, match",
        [
            (([0.0, 0.0], [1.0, 0.0]), "plane must be \\(origin, u, v\\), three"),
            (("a", "b", "c"), "three vectors of numbers"),
            (([np.inf, 0.0], [1.0, 0.0], [0.0, 1.0]), "origin must be finite"),
        ],
    )
    def test_bad_planes_are_named(self, fitted, task, plane, match):
        X, _ = task
        with pytest.raises(ValueError, match=match):
            CurvatureDisplay.from_estimator(fitted, X, grid_resolution=4, plane=plane)

    def test_rows_on_a_line_span_no_plane(self):
        X, y = make_curved_task(60, n_observations=3, random_state=0)
        clf = GatedAttentionClassifier(**FAST).fit(X, y)
        line = X[:1] + np.outer(np.arange(5.0), X[1] - X[0])
        with pytest.raises(ValueError, match="lie on a line or a point.*plane="):
            CurvatureDisplay.from_estimator(clf, line, grid_resolution=4)

    def test_an_ax_that_is_not_axes_is_refused_first(self, fitted, task):
        from unittest import mock

        X, _ = task
        with mock.patch(
            "skgate.inspection.representation_curvature",
            side_effect=AssertionError("computed"),
        ):
            with pytest.raises(TypeError, match="ax must be a matplotlib Axes.*str"):
                CurvatureDisplay.from_estimator(fitted, X, grid_resolution=4, ax="ax")

    def test_a_search_over_a_pipeline_and_nested_affine_steps(self, task):
        """A fitted GridSearchCV whose refit model is a Pipeline is drawn
        through that model; a Pipeline of affine steps nested as one step is
        affine too."""
        from sklearn.model_selection import GridSearchCV
        from sklearn.pipeline import Pipeline
        from sklearn.preprocessing import MinMaxScaler

        X, y = task
        pipe = make_pipeline(StandardScaler(), GatedAttentionClassifier(**FAST))
        search = GridSearchCV(
            pipe, {"gatedattentionclassifier__alpha": [0.5, 1.0]}, cv=2
        ).fit(X, y)
        through = CurvatureDisplay.from_estimator(search, X, grid_resolution=4)
        direct = CurvatureDisplay.from_estimator(
            search.best_estimator_, X, grid_resolution=4
        )
        np.testing.assert_array_equal(through.surface_, direct.surface_)
        np.testing.assert_array_equal(
            representation_curvature(search, X[:3]),
            representation_curvature(search.best_estimator_, X[:3]),
        )
        nested = Pipeline([
            ("scale", make_pipeline(StandardScaler(), MinMaxScaler())),
            ("model", GatedAttentionClassifier(**FAST)),
        ]).fit(X, y)  # fmt: skip
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no NonAffinePipelineWarning
            drawn = CurvatureDisplay.from_estimator(nested, X, grid_resolution=4)
        assert np.isfinite(drawn.surface_).all()


def _comparison_tables():
    """A scores table of two arms and a tests table with an interval of each
    kind: both bounds infinite (the sign-flip test on 3 splits), one bound
    infinite, and finite ones, each row with its own outcome."""
    pd = pytest.importorskip("pandas")
    scores = pd.DataFrame({
        "arm": ["a", "b"] * 3,
        "score": [0.8, 0.7, 0.82, 0.71, 0.79, 0.72],
        "curvature": [1.0, 0.5, 1.1, 0.4, 0.9, 0.6],
    })  # fmt: skip
    inf = np.inf
    tests = pd.DataFrame(
        [
            ("a > b", "score", 0.09, -inf, inf, "inconclusive", 0.02),
            ("b > a", "score", -0.09, -0.15, -0.04, "reversed", 0.02),
            ("a > c", "score", 0.05, 0.01, inf, "holds", 0.02),
            ("c > b", "score", 0.001, -0.01, 0.012, "no effect", 0.02),
            ("a > b", "curvature", 0.5, -inf, 0.9, "inconclusive", 0.19),
        ],
        columns=["comparison", "measure", "mean difference", "ci low", "ci high",
                 "outcome", "margin"],
    )  # fmt: skip
    return scores, tests


def _drawn_points(panel):
    """Every vertex of the panel's lines (Line2D and line collections)."""
    points = [line.get_xydata() for line in panel.lines]
    for collection in panel.collections:
        if hasattr(collection, "get_segments"):
            points += [np.asarray(s) for s in collection.get_segments() if len(s)]
    return np.concatenate([np.reshape(p, (-1, 2)) for p in points])


def test_an_infinite_bound_is_drawn_open_ended_and_every_outcome_labelled():
    """An infinite bound was a bare dot (matplotlib drops an infinite
    segment) and its outcome was written at x = inf, out of sight: an
    undecided row looked precise. Now the interval runs to the axis edge
    with an arrow there, finite bounds stay where they are, and each row's
    outcome is written beside it, inside the figure."""
    import matplotlib.pyplot as plt

    from skgate.inspection import GateComparisonDisplay

    scores, tests = _comparison_tables()
    display = GateComparisonDisplay(scores, tests).plot()
    display.figure_.canvas.draw()
    renderer = display.figure_.canvas.get_renderer()
    figure_box = display.figure_.bbox
    for column, measure in enumerate(("score", "curvature")):
        panel = display.ax_[1, column]
        left, right = panel.get_xlim()
        assert np.isfinite([left, right]).all()
        points = _drawn_points(panel)
        rows = tests[tests["measure"] == measure].reset_index(drop=True)
        texts = [t for t in panel.texts if t.get_text() in set(rows["outcome"])]
        assert sorted(t.get_text() for t in texts) == sorted(rows["outcome"])
        for i, row in rows.iterrows():
            at_row = points[np.isclose(points[:, 1], i)]
            for bound, edge in ((row["ci low"], left), (row["ci high"], right)):
                reach = edge if np.isinf(bound) else bound
                assert np.isclose(at_row[:, 0], reach).any(), (measure, i, bound)
                arrows = [
                    line for line in panel.lines
                    if line.get_marker() in ("<", ">")
                    and np.allclose(line.get_xydata(), [[edge, i]])
                ]  # fmt: skip
                assert len(arrows) == int(np.isinf(bound)), (measure, i, bound)
            # The row's outcome, level with the row and inside the figure.
            row_y = panel.transData.transform((0, i))[1]
            (label,) = [
                t for t in texts
                if t.get_text() == row["outcome"]
                and np.isclose(t.get_window_extent(renderer).intervaly.mean(),
                               row_y, atol=2)
            ]  # fmt: skip
            box = label.get_window_extent(renderer)
            assert np.isfinite(box.extents).all()
            assert figure_box.x0 <= box.x0 and box.x1 <= figure_box.x1
    plt.close(display.figure_)


def test_a_signed_kind_is_drawn_in_magnitude_as_it_is_tested():
    """A signed curvature kind is tested in magnitude ('|Gaussian
    curvature|'), so the arms' panel shows |K| under that label, not K."""
    from skgate import compare_gates
    from skgate.inspection import GateComparisonDisplay

    X, y = make_curved_task(90, random_state=0)
    result = compare_gates(X, y, gates=("multiplicative", "none"), cv=3,
                           n_repeats=2, max_epochs=1, random_state=0,
                           curvature_params={"kind": "gaussian"},
                           baselines=None)  # fmt: skip
    display = GateComparisonDisplay.from_result(result)
    panel = display.ax_[0, 1]
    assert panel.get_ylabel().startswith("|")
    from matplotlib.collections import PathCollection

    drawn = np.concatenate([c.get_offsets()[:, 1] for c in panel.collections
                            if isinstance(c, PathCollection)])  # fmt: skip
    expected = result.scores_["curvature"].abs().to_numpy()
    np.testing.assert_allclose(np.sort(drawn), np.sort(expected))
    assert (result.scores_["curvature"] < 0).any()  # the test can fail


@pytest.mark.parametrize(
    "margin, low, mean, high",
    [
        (1e308, -0.1, 0.5, 0.9),  # a margin of 1e308: 1e308 - (-1e308) is inf
        (0.19, -1.7e308, 1e308, 1.7e308),  # bounds near the largest float
        (np.finfo(float).max, -np.inf, 0.5, np.finfo(float).max),
    ],
)
def test_a_huge_margin_or_bound_keeps_the_panel_finite(margin, low, mean, high):
    """The x-extent was computed as high - low, which overflowed to inf
    ("Axis limits cannot be NaN or Inf"). Now the extent is finite and the
    shaded margin and the interval are clipped to it; the other panel is
    drawn as before."""
    import warnings

    import matplotlib.pyplot as plt

    from skgate.inspection import GateComparisonDisplay

    scores, tests = _comparison_tables()
    row = tests.index[tests["measure"] == "curvature"][0]
    tests.loc[row, ["margin", "ci low", "mean difference", "ci high"]] = (
        margin, low, mean, high,
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warnings among them
        display = GateComparisonDisplay(scores, tests).plot()
        display.figure_.canvas.draw()
    panel = display.ax_[1, 1]
    left, right = panel.get_xlim()
    assert np.isfinite([left, right]).all() and np.isfinite(right - left)
    assert left < 0 < right
    shaded = np.concatenate(
        [p.vertices for c in panel.collections if hasattr(c, "get_paths")
         for p in c.get_paths() if not hasattr(c, "get_segments")]
    )  # fmt: skip
    assert shaded[:, 0].min() >= left and shaded[:, 0].max() <= right
    drawn = _drawn_points(panel)
    assert np.isfinite(drawn).all()
    assert drawn[:, 0].min() >= left and drawn[:, 0].max() <= right
    assert (
        display.ax_[1, 0].get_xlim()
        == GateComparisonDisplay(*_comparison_tables()).plot().ax_[1, 0].get_xlim()
    )
    plt.close("all")


def test_an_interrupted_matplotlib_import_is_an_interruption(monkeypatch):
    """Ctrl-C inside a compiled extension's import comes back as an
    ImportError raised from the KeyboardInterrupt; the displays raise it as
    the interruption, not as a missing package."""
    import builtins

    from skgate import inspection

    real_import = builtins.__import__

    def interrupted(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as interrupt:
                raise ImportError("initialization failed") from interrupt
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", interrupted)
    with pytest.raises(KeyboardInterrupt):
        inspection._pyplot()

    def missing(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", missing)
    with pytest.raises(ImportError, match=r"pip install 'skgate\[plot\]'"):
        inspection._pyplot()


@pytest.mark.parametrize("fit_on", ["series", "table"])
def test_curvature_display_refuses_series_by_name(fit_on):
    """A model fitted on series got scikit-learn's "Found array with dim
    3": the display maps a table's plane, and says so."""
    rng = np.random.default_rng(0)
    series = rng.normal(size=(20, 1, 8))
    table = series[:, 0, :]
    y = np.array([0, 1] * 10)
    X = series if fit_on == "series" else table
    clf = GatedAttentionClassifier(max_epochs=1, d_model=8, random_state=0)
    clf.fit(X, y)
    for given in (series, list(series)):
        with pytest.raises(ValueError, match="maps a plane of a table's feature"):
            CurvatureDisplay.from_estimator(clf, given)


def test_a_refused_plot_keyword_lists_every_curvature_keyword():
    """The list once left out kind and layer, and called a keyword with a
    bad value ("levels") one that neither takes."""
    from skgate.inspection import _check_plot_keywords

    with pytest.raises(TypeError, match=r"\['levels'\]: Axes.contourf refuses") as info:
        _check_plot_keywords("contourf", {"levels": "x"})
    assert "'kind'" in str(info.value) and "'layer'" in str(info.value)

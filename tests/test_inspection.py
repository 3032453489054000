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
        # A grid point's value is the curvature at that point of the plane.
        a, b = display.xx0[2, 3], display.xx1[2, 3]
        point = (origin + a * u + b * v)[None]
        expected = representation_curvature(pipe, point, directions=np.stack([u, v]))
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

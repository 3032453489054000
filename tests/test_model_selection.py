"""representation_curvature on fitted estimators and Pipelines."""

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skgate import GatedAttentionClassifier, make_curved_task, representation_curvature

FAST = {"max_epochs": 3, "d_model": 16, "random_state": 0}


@pytest.fixture(scope="module")
def data():
    return make_moons(120, noise=0.1, random_state=0)


@pytest.fixture(scope="module")
def gated(data):
    return GatedAttentionClassifier(alpha=1.5, depth=2, **FAST).fit(*data)


@pytest.fixture(scope="module")
def pipeline(data):
    clf = GatedAttentionClassifier(alpha=1.0, **FAST)
    return make_pipeline(StandardScaler(), clf).fit(*data)


class TestEstimatorLevel:
    def test_method_and_function_agree(self, gated, data):
        X = data[0]
        np.testing.assert_array_equal(
            representation_curvature(gated, X), gated.curvature(X)
        )
        kwargs = {"kind": "extrinsic", "layer": "pooled", "n_directions": 3}
        np.testing.assert_array_equal(
            representation_curvature(gated, X, **kwargs), gated.curvature(X, **kwargs)
        )

    def test_pipeline_transforms_first(self, pipeline, data):
        X = data[0]
        scaler, clf = pipeline
        np.testing.assert_array_equal(
            representation_curvature(pipeline, X),
            clf.curvature(scaler.transform(X)),
        )

    @pytest.mark.parametrize("layer", ["attention", 0, -1, 1, "pooled", "logits"])
    @pytest.mark.parametrize(
        "metric_kwargs",
        [
            {},
            {"metric": "anisotropic", "condition_number": 1e3},
            {"covariance": "diagonal"},
        ],
        ids=["euclidean", "anisotropic", "fisher-rao"],
    )
    def test_every_layer_and_metric(self, gated, data, layer, metric_kwargs):
        X = data[0][:30]
        if metric_kwargs.get("covariance") == "diagonal":
            m = gated.representation(X[:1], layer=layer)[0].size
            metric_kwargs = {"covariance": np.linspace(0.5, 2.0, m)}
        for kind in ("acceleration", "extrinsic", "gaussian", "scalar"):
            kappa = gated.curvature(X, layer=layer, kind=kind, **metric_kwargs)
            assert kappa.shape == (30,) and np.isfinite(kappa).all()
            if kind in ("acceleration", "extrinsic"):
                assert (kappa > 0).all()

    def test_exact_and_finite_differences_agree(self, gated, data):
        X = data[0][:40]
        for layer in ("attention", "logits"):
            exact = gated.curvature(X, layer=layer)
            approx = gated.curvature(X, layer=layer, method="finite_difference")
            np.testing.assert_allclose(approx, exact, rtol=1e-3)

    def test_deterministic(self, gated, data):
        X = data[0]
        np.testing.assert_array_equal(gated.curvature(X), gated.curvature(X))

    @pytest.mark.parametrize("depth", [1, 2, 3, 4])
    def test_flatness_of_trained_ungated_models(self, data, depth):
        ungated = GatedAttentionClassifier(gate="none", depth=depth, **FAST)
        zero = GatedAttentionClassifier(alpha=0.0, depth=depth, **FAST)
        gated = GatedAttentionClassifier(alpha=1.5, depth=depth, **FAST)
        X = data[0]
        for clf in (ungated, zero):
            assert clf.fit(*data).curvature(X).max() < 1e-9
        assert gated.fit(*data).curvature(X).min() > 0

    def test_sequence_models(self):
        X, y = make_curved_task(80, n_observations=4, random_state=0)
        clf = GatedAttentionClassifier(token_dim=2, **FAST).fit(X, y)
        kappa = representation_curvature(clf, X, kind="extrinsic")
        assert kappa.shape == (80,) and np.isfinite(kappa).all()


class TestBadUse:
    def test_unfitted(self, data):
        with pytest.raises(NotFittedError):
            representation_curvature(GatedAttentionClassifier(), data[0])
        pipe = make_pipeline(StandardScaler(), GatedAttentionClassifier())
        with pytest.raises(NotFittedError):
            representation_curvature(pipe, data[0])
        with pytest.raises(NotFittedError):
            GatedAttentionClassifier().curvature(data[0])

    def test_not_a_skgate_estimator(self, data):
        with pytest.raises(TypeError, match="got LogisticRegression"):
            representation_curvature(LogisticRegression().fit(*data), data[0])
        pipe = make_pipeline(StandardScaler(), LogisticRegression()).fit(*data)
        with pytest.raises(TypeError, match="needs a skgate estimator"):
            representation_curvature(pipe, data[0])

    def test_X_is_validated_like_predict(self, gated):
        with pytest.raises(ValueError, match="X has 3 features, but .* expecting 2"):
            representation_curvature(gated, np.zeros((4, 3)))
        with pytest.raises(ValueError, match="Input X contains NaN"):
            representation_curvature(gated, [[0.0, np.nan]])

    def test_bad_layer_and_keywords(self, gated, data):
        with pytest.raises(ValueError, match="layer=2 is out of range for depth=2"):
            representation_curvature(gated, data[0], layer=2)
        with pytest.raises(ValueError, match="'eps' parameter"):
            representation_curvature(gated, data[0], eps=0, method="finite_difference")
        with pytest.raises(ValueError, match="shape \\(k, 2\\)"):
            representation_curvature(gated, data[0], directions=[[1.0, 0.0, 0.0]])
        with pytest.raises(ValueError, match="shape \\(1024,\\)"):
            representation_curvature(gated, data[0], metric=np.ones(1024))

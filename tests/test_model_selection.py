"""representation_curvature, the curvature scorers and the refit rule, in use."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_moons
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skgate import (
    GatedAttentionClassifier,
    curvature_score,
    least_curvature_refit,
    make_curvature_scorer,
    make_curved_task,
    make_joint_scorer,
    make_linear_task,
    representation_curvature,
)
from skgate.geometry import DegenerateMetricWarning


@pytest.fixture(scope="module")
def fast(fast):
    # 3 epochs: the selection tests compare several searches, each many fits.
    return {**fast, "max_epochs": 3}


@pytest.fixture(scope="module")
def data():
    return make_moons(120, noise=0.1, random_state=0)


@pytest.fixture(scope="module")
def gated(data, fast):
    return GatedAttentionClassifier(alpha=1.5, depth=2, **fast).fit(*data)


@pytest.fixture(scope="module")
def pipeline(data, fast):
    clf = GatedAttentionClassifier(alpha=1.0, **fast)
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
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", DegenerateMetricWarning)
                kappa = gated.curvature(X, layer=layer, kind=kind, **metric_kwargs)
            assert kappa.shape == (30,)
            # Intrinsic kinds are NaN, with a warning, where the Jacobian of
            # the layer (near-)loses rank; never a large finite number.
            undefined = np.isnan(kappa)
            assert np.isfinite(kappa[~undefined]).all()
            assert not undefined.any() or kind in ("gaussian", "scalar")
            assert bool(undefined.any()) == bool(caught)
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
    def test_flatness_of_trained_ungated_models(self, data, depth, fast):
        ungated = GatedAttentionClassifier(gate="none", depth=depth, **fast)
        zero = GatedAttentionClassifier(alpha=0.0, depth=depth, **fast)
        gated = GatedAttentionClassifier(alpha=1.5, depth=depth, **fast)
        X = data[0]
        for clf in (ungated, zero):
            assert clf.fit(*data).curvature(X).max() < 1e-9
        assert gated.fit(*data).curvature(X).min() > 0

    def test_sequence_models(self, fast):
        X, y = make_curved_task(80, n_observations=4, random_state=0)
        clf = GatedAttentionClassifier(token_dim=2, **fast).fit(X, y)
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


# -- scorers and the refit rule ---------------------------------------------------

SCORING = {"accuracy": "accuracy", "curvature": curvature_score}


class TestScorers:
    def test_curvature_score_is_the_mean_curvature(self, gated, data):
        X, y = data
        value = curvature_score(gated, X, y)
        assert isinstance(value, float)
        assert value == pytest.approx(representation_curvature(gated, X).mean())
        assert curvature_score(gated, X) == value  # y is optional, deterministic

    def test_curvature_score_on_pipelines_and_bad_estimators(self, pipeline, data):
        X, y = data
        expected = representation_curvature(pipeline, X).mean()
        assert curvature_score(pipeline, X, y) == pytest.approx(expected)
        with pytest.raises(NotFittedError):
            curvature_score(GatedAttentionClassifier(), X, y)
        with pytest.raises(TypeError, match="has no representation"):
            curvature_score(LogisticRegression().fit(X, y), X, y)

    def test_configured_scorer_uses_its_settings(self, gated, data):
        X = data[0]
        kwargs = {"kind": "extrinsic", "layer": "logits", "n_directions": 3}
        scorer = make_curvature_scorer(**kwargs)
        expected = representation_curvature(gated, X, **kwargs).mean()
        assert scorer(gated, X) == pytest.approx(expected)
        assert "kind='extrinsic'" in repr(scorer)

    @pytest.mark.parametrize(
        "kwargs, error, match",
        [
            ({"kind": "bogus"}, ValueError, "'kind' parameter of make_curvature"),
            ({"eps": 0}, ValueError, "'eps' parameter"),
            ({"n_directions": 0}, ValueError, "'n_directions' parameter"),
            ({"metric": "anisotropic"}, ValueError, "needs condition_number"),
            ({"condition_number": 0.5}, ValueError, "'condition_number' parameter"),
            ({"layer": "hidden"}, ValueError, "'layer' parameter of make_curvature"),
            ({"layer": 1.5}, ValueError, "'layer' parameter of make_curvature"),
            ({"kindd": "extrinsic"}, TypeError, "unknown curvature keywords"),
            ({"metric": "fisher"}, ValueError, "it needs layer='logits'; got layer="),
            (
                {"metric": "fisher", "layer": "pooled"},
                ValueError,
                "it needs layer='logits'",
            ),
        ],
    )
    def test_scorer_settings_are_validated_when_made(self, kwargs, error, match):
        with pytest.raises(error, match=match):
            make_curvature_scorer(**kwargs)

    def test_the_method_is_the_function(self, gated, data):
        """clf.curvature(X, **kwargs) is representation_curvature(clf, X,
        **kwargs): the same values, its keywords validated the same way, an
        unknown keyword refused by name."""
        X, _ = data
        kwargs = {"kind": "extrinsic", "n_directions": 3, "random_state": 2}
        assert np.array_equal(
            gated.curvature(X[:20], layer="pooled", **kwargs),
            representation_curvature(gated, X[:20], layer="pooled", **kwargs),
        )
        assert np.array_equal(
            gated.curvature(X[:5]), representation_curvature(gated, X[:5])
        )
        with pytest.raises(TypeError, match=r"curvature got unknown .*\['kindd'\]"):
            gated.curvature(X, kindd="extrinsic")
        with pytest.raises(ValueError, match="'eps' parameter"):
            gated.curvature(X, eps=0)
        with pytest.raises(ValueError, match="it needs layer='logits'"):
            gated.curvature(X, metric="fisher")

    def test_joint_scorer(self, gated, data):
        X, y = data
        scorer = make_joint_scorer(tradeoff=0.05, layer="pooled")
        curvature = representation_curvature(gated, X, layer="pooled").mean()
        assert scorer(gated, X, y) == pytest.approx(
            gated.score(X, y) - 0.05 * curvature
        )
        assert make_joint_scorer(0.0)(gated, X, y) == pytest.approx(gated.score(X, y))
        with pytest.raises(ValueError, match="'tradeoff' parameter"):
            make_joint_scorer(tradeoff=-1.0)
        with pytest.raises(ValueError, match="'kind' parameter"):
            make_joint_scorer(kind="bogus")

    def test_scorers_weight_their_means(self, gated, data):
        X, y = data
        w = np.linspace(0.0, 2.0, len(y))
        kappa = representation_curvature(gated, X)
        assert curvature_score(gated, X, y, sample_weight=w) == pytest.approx(
            np.average(kappa, weights=w)
        )
        scorer = make_curvature_scorer(kind="extrinsic")
        extrinsic = representation_curvature(gated, X, kind="extrinsic")
        assert scorer(gated, X, sample_weight=w) == pytest.approx(
            np.average(extrinsic, weights=w)
        )
        joint = make_joint_scorer(tradeoff=0.05)
        assert joint(gated, X, y, sample_weight=w) == pytest.approx(
            gated.score(X, y, sample_weight=w) - 0.05 * np.average(kappa, weights=w)
        )
        assert curvature_score(gated, X, sample_weight=np.ones(len(y))) == (
            pytest.approx(kappa.mean())
        )
        with pytest.raises(ValueError, match="Sample weights must contain at least"):
            curvature_score(gated, X, sample_weight=np.zeros(len(y)))
        with pytest.raises(
            ValueError, match="Negative values in data passed to .sample_weight."
        ):
            curvature_score(gated, X, sample_weight=-np.ones(len(y)))

    @pytest.mark.parametrize(
        "curvature",
        [curvature_score, make_curvature_scorer(kind="extrinsic")],
        ids=["curvature_score", "make_curvature_scorer"],
    )
    def test_a_weighted_search_with_the_scorers(self, data, fast, curvature):
        """scikit-learn 1.7-1.9 ask every scorer of a scoring dict whether it
        takes sample_weight (scikit-learn issue #31599): skgate's answer."""
        X, y = data
        w = np.linspace(0.5, 1.5, len(y))
        search = GridSearchCV(
            GatedAttentionClassifier(**fast),
            {"alpha": [0.0, 1.0]},
            cv=2,
            scoring={"accuracy": "accuracy", "curvature": curvature},
            refit=least_curvature_refit(),
        ).fit(X, y, sample_weight=w)
        flat, gated = search.cv_results_["mean_test_curvature"]
        assert flat < 1e-9 < gated  # ungated copied tokens are flat
        joint = cross_validate(
            GatedAttentionClassifier(**fast),
            X,
            y,
            cv=2,
            scoring={"joint": make_joint_scorer(), "curvature": curvature},
            params={"sample_weight": w},
        )
        assert np.isfinite(joint["test_joint"]).all()

    @pytest.mark.parametrize(
        "make",
        [
            lambda: curvature_score,
            lambda: make_curvature_scorer(kind="extrinsic"),
            lambda: make_joint_scorer(0.05),
        ],
        ids=["curvature_score", "make_curvature_scorer", "make_joint_scorer"],
    )
    def test_metadata_routing_passes_the_weights(self, data, fast, make):
        """With routing on, a scorer that asks for sample_weight gets each test
        fold's weights (its number is the fold's weighted mean); one that
        asks for nothing makes scikit-learn refuse the weights."""
        import sklearn
        from sklearn.metrics import accuracy_score, make_scorer

        X, y = data
        w = np.linspace(0.1, 3.0, len(y))
        with sklearn.config_context(enable_metadata_routing=True):
            model = GatedAttentionClassifier(**fast).set_fit_request(sample_weight=True)
            scoring = {
                "accuracy": make_scorer(accuracy_score).set_score_request(
                    sample_weight=True
                ),
                "curvature": make().set_score_request(sample_weight=True),
            }
            result = cross_validate(model, X, y, cv=2, scoring=scoring,
                                    params={"sample_weight": w}, return_indices=True,
                                    return_estimator=True)  # fmt: skip
            unset = {"curvature": make()}
            with pytest.raises(Exception, match="set_score_request"):
                cross_validate(model, X, y, cv=2, scoring=unset,
                               params={"sample_weight": w})  # fmt: skip
        tests = result["indices"]["test"]
        for fold, (fitted, test) in enumerate(
            zip(result["estimator"], tests, strict=True)
        ):
            unweighted = make()(fitted, X[test], y[test])
            weighted = make()(fitted, X[test], y[test], sample_weight=w[test])
            assert abs(weighted - unweighted) > 1e-6  # the weights matter here
            assert result["test_curvature"][fold] == pytest.approx(weighted)

    def test_score_requests_are_checked(self):
        import sklearn

        with pytest.raises(RuntimeError, match="enable_metadata_routing=True"):
            make_curvature_scorer().set_score_request(sample_weight=True)
        with sklearn.config_context(enable_metadata_routing=True):
            with pytest.raises(ValueError, match="alias"):
                make_curvature_scorer().set_score_request(sample_weight=3)
            scorer = curvature_score.set_score_request(sample_weight=True)
            assert scorer is not curvature_score
            request = scorer.get_metadata_routing().score.requests
            assert request == {"sample_weight": True}
            assert curvature_score.get_metadata_routing().score.requests == {
                "sample_weight": None
            }
            with pytest.raises(TypeError, match="unexpected keyword"):
                make_joint_scorer().set_score_request(weights=True)

    def test_scorers_pickle(self, gated, data):
        X, y = data
        for scorer in (make_curvature_scorer(kind="extrinsic"), make_joint_scorer()):
            loaded = pickle.loads(pickle.dumps(scorer))
            assert loaded(gated, X, y) == scorer(gated, X, y)


def _results(score, std, curvature):
    return {
        "mean_test_accuracy": np.array(score, float),
        "std_test_accuracy": np.array(std, float),
        "mean_test_curvature": np.array(curvature, float),
    }


class TestRefitRule:
    def test_least_curved_within_one_std_of_the_best(self):
        refit = least_curvature_refit()
        # best 0.90 +- 0.05: candidates >= 0.85 are eligible.
        results = _results(
            [0.84, 0.86, 0.90, 0.88], [0.01, 0.02, 0.05, 0.01], [0.0, 2.0, 5.0, 1.0]
        )
        assert refit(results) == 3
        assert least_curvature_refit(n_std=0)(results) == 2
        assert least_curvature_refit(n_std=2)(results) == 0

    def test_ties_go_to_the_higher_score(self):
        refit = least_curvature_refit()
        results = _results([0.80, 0.83, 0.82], [0.05] * 3, [1.0, 1.0, 1.0])
        assert refit(results) == 1
        # Flat models measure ~1e-12 whatever else differs: a tie.
        results = _results([0.80, 0.83, 0.82], [0.05] * 3, [3e-12, 8e-12, 4.0])
        assert refit(results) == 1

    def test_signed_curvature_ranks_by_magnitude(self):
        """A flat model never loses to a negatively curved one (gaussian, scalar)."""
        refit = least_curvature_refit()
        assert refit(_results([0.9, 0.9], [0.01, 0.01], [0.0, -0.0007])) == 0
        assert refit(_results([0.9, 0.9, 0.9], [0.01] * 3, [-2.0, 1.0, -0.5])) == 2

    def test_failed_fits_are_skipped(self):
        results = _results([np.nan, 0.9, 0.89], [np.nan, 0.02, 0.02], [0.0, 3.0, 1.0])
        assert least_curvature_refit()(results) == 2
        with pytest.raises(ValueError, match="no candidate has a finite"):
            least_curvature_refit()(_results([np.nan], [np.nan], [np.nan]))

    def test_other_metric_names(self):
        results = {
            "mean_test_r2": np.array([0.5, 0.49]),
            "std_test_r2": np.array([0.02, 0.02]),
            "mean_test_kappa": np.array([3.0, 0.0]),
        }
        assert least_curvature_refit(score="r2", curvature="kappa")(results) == 1

    def test_missing_keys_are_named_with_a_fix(self):
        refit = least_curvature_refit()
        with pytest.raises(ValueError, match="mean_test_curvature") as info:
            refit({"mean_test_accuracy": [1.0], "std_test_accuracy": [0.0]})
        assert "scoring={'accuracy': 'accuracy', 'curvature': curvature_score}" in str(
            info.value
        )

    @pytest.mark.parametrize(
        "kwargs, match",
        [
            ({"n_std": -1}, "'n_std' parameter"),
            ({"score": 3}, "'score' parameter"),
            ({"curvature": None}, "'curvature' parameter"),
        ],
    )
    def test_arguments_are_validated(self, kwargs, match):
        with pytest.raises(ValueError, match=match):
            least_curvature_refit(**kwargs)


def _alpha_search(X, y, head, n_jobs=2):
    search = GridSearchCV(
        GatedAttentionClassifier(head=head, random_state=0),
        {"alpha": [0.0, 0.5, 1.0, 1.5]},
        cv=3,
        scoring=SCORING,
        refit=least_curvature_refit(),
        n_jobs=n_jobs,
    )
    return search.fit(X, y)


class TestWhereUsersPutThem:
    @pytest.mark.slow  # end to end: make test-slow
    def test_linear_task_keeps_alpha_zero(self):
        search = _alpha_search(*make_linear_task(random_state=0), head="mlp")
        assert search.best_params_ == {"alpha": 0.0}
        curvature = search.cv_results_["mean_test_curvature"]
        assert curvature[0] < 1e-9 and curvature[3] > 0
        accuracy = search.cv_results_["mean_test_accuracy"]
        assert accuracy.max() - accuracy[0] < 0.02  # alpha does not buy accuracy

    @pytest.mark.slow  # end to end: make test-slow
    def test_curved_task_keeps_the_gate(self):
        X, y = make_curved_task(shape="checkerboard", random_state=0)
        search = _alpha_search(X, y, head="linear")
        assert search.best_params_["alpha"] > 0
        results = pd.DataFrame(search.cv_results_)
        assert {"mean_test_accuracy", "mean_test_curvature", "param_alpha"} <= set(
            results.columns
        )
        by_alpha = results.set_index("param_alpha")
        assert by_alpha.loc[1.5, "mean_test_accuracy"] > (
            by_alpha.loc[0.0, "mean_test_accuracy"] + 0.1
        )
        assert by_alpha.loc[0.0, "mean_test_curvature"] < 1e-9
        assert by_alpha.loc[1.5, "mean_test_curvature"] > 0
        assert search.best_estimator_.alpha == search.best_params_["alpha"]

    def test_cross_validate_in_parallel(self, data, fast):
        X, y = data
        clf = GatedAttentionClassifier(**fast)
        serial = cross_validate(clf, X, y, cv=3, scoring=SCORING)
        parallel = cross_validate(clf, X, y, cv=3, scoring=SCORING, n_jobs=2)
        assert serial["test_curvature"].shape == (3,)
        assert (serial["test_curvature"] > 0).all()
        np.testing.assert_allclose(parallel["test_curvature"], serial["test_curvature"])
        np.testing.assert_allclose(parallel["test_accuracy"], serial["test_accuracy"])

    def test_pipeline_grid_search(self, data, fast):
        X, y = data
        pipe = make_pipeline(StandardScaler(), GatedAttentionClassifier(**fast))
        search = GridSearchCV(
            pipe,
            {"gatedattentionclassifier__alpha": [0.0, 1.0]},
            cv=3,
            scoring={**SCORING, "joint": make_joint_scorer(0.01)},
            refit=least_curvature_refit(),
            n_jobs=2,
        ).fit(X, y)
        assert isinstance(search.best_index_, int | np.integer)
        assert search.predict(X).shape == (120,)
        assert representation_curvature(search.best_estimator_, X).shape == (120,)
        assert "mean_test_joint" in search.cv_results_

    def test_randomized_search(self, data, fast):
        X, y = data
        search = RandomizedSearchCV(
            GatedAttentionClassifier(**fast),
            {"alpha": [0.0, 0.5, 1.0], "depth": [1, 2]},
            n_iter=3,
            cv=2,
            scoring=SCORING,
            refit=least_curvature_refit(),
            random_state=0,
        ).fit(X, y)
        assert 0 <= search.best_index_ < 3

    def test_fitted_search_with_the_rule_pickles(self, data, fast):
        X, y = data
        search = GridSearchCV(
            GatedAttentionClassifier(**fast),
            {"alpha": [0.0, 1.0]},
            cv=2,
            scoring=SCORING,
            refit=least_curvature_refit(),
        ).fit(X, y)
        loaded = pickle.loads(pickle.dumps(search))
        np.testing.assert_array_equal(loaded.predict_proba(X), search.predict_proba(X))
        assert loaded.best_index_ == search.best_index_


class TestSignedKindsAndTokens:
    def test_joint_score_never_rewards_negative_curvature(self, data, fast):
        X, y = data
        clf = GatedAttentionClassifier(**{**fast, "alpha": 1.5}).fit(X, y)
        gaussian = representation_curvature(clf, X, kind="gaussian")
        assert (gaussian < 0).any()  # the case that was rewarded
        joint = make_joint_scorer(1.0, kind="gaussian")(clf, X, y)
        assert joint == pytest.approx(clf.score(X, y) - np.abs(gaussian).mean())
        assert joint < clf.score(X, y)

    @pytest.mark.parametrize("kind", ["acceleration", "extrinsic", "gaussian"])
    def test_copies_of_a_token_do_not_change_the_measurement(self, data, fast, kind):
        X, y = data
        one, many = (
            GatedAttentionClassifier(**{**fast, "n_tokens": n}).fit(X, y)
            for n in (1, 16)
        )
        np.testing.assert_array_equal(one.predict_proba(X), many.predict_proba(X))
        np.testing.assert_allclose(
            representation_curvature(many, X[:30], kind=kind),
            representation_curvature(one, X[:30], kind=kind),
            rtol=1e-9,
            atol=1e-12,
        )

    def test_frobenius_norm_is_sqrt_tokens_times_the_rms(self, gated, data):
        """The paper's Frobenius acceleration, computed on the raw representation."""
        from skgate.geometry import curvature
        from skgate.nn import RepresentationMap

        X = data[0][:20]
        module = gated._float64_module()
        frobenius = curvature(RepresentationMap(module, "attention"), X)
        rms = representation_curvature(gated, X)
        np.testing.assert_allclose(frobenius, np.sqrt(gated.n_tokens) * rms, rtol=1e-12)


class TestNonAffinePipelines:
    def test_a_bending_step_before_the_estimator_warns(self, data, fast):
        from sklearn.preprocessing import PolynomialFeatures

        from skgate.model_selection import NonAffinePipelineWarning

        X, y = data
        pipe = make_pipeline(
            PolynomialFeatures(2), GatedAttentionClassifier("none", **fast)
        ).fit(X, y)
        with pytest.warns(NonAffinePipelineWarning, match="'polynomialfeatures'"):
            kappa = representation_curvature(pipe, X[:5])
        assert kappa.max() < 1e-9  # the final step alone is flat, as documented

    def test_affine_steps_do_not_warn(self, pipeline, data):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("error")
            representation_curvature(pipeline, data[0][:5])


def test_least_curvature_refit_takes_an_undefined_spread_as_none():
    # The best candidate's std NaN (a failed fold) once raised numpy's
    # "zero-size array to reduction operation minimum".
    from skgate import least_curvature_refit

    results = {
        "mean_test_accuracy": np.array([0.9, 0.8, 0.9]),
        "std_test_accuracy": np.array([np.nan, 0.0, 0.1]),
        "mean_test_curvature": np.array([5.0, 0.0, 3.0]),
    }
    # Only the candidates at the best score are near it: the less curved.
    assert least_curvature_refit()(results) == 2

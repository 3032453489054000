"""GatedAttentionClassifier in the ways users hold it."""

import pickle
import subprocess
import sys
import textwrap
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import torch
from sklearn.base import clone, is_classifier
from sklearn.datasets import make_blobs, make_moons
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from skorch.callbacks import Callback, EarlyStopping, LRScheduler

from skgate import GatedAttentionClassifier, GatedAttentionRegressor, make_curved_task
from skgate._engine.plan import AUTO_STEPS, planned_epochs
from skgate.nn import GatedAttentionNet


@pytest.fixture(scope="module")
def fitted(moons):
    X, y = moons
    return GatedAttentionClassifier(random_state=0).fit(X, y)


class TestFitted:
    def test_learns_moons(self, fitted, moons):
        assert fitted.score(*moons) > 0.9

    def test_attributes(self, fitted, moons):
        np.testing.assert_array_equal(fitted.classes_, [0, 1])
        assert fitted.n_features_in_ == 2
        assert not hasattr(fitted, "feature_names_in_")
        assert isinstance(fitted.net_.module_, GatedAttentionNet)
        assert isinstance(fitted.net_.optimizer_, torch.optim.AdamW)
        assert fitted.net_.optimizer_.defaults["weight_decay"] == 1e-2
        assert fitted.net_.optimizer_.defaults["lr"] == 2e-3
        # max_epochs="auto": the epochs of the step budget for these rows
        # (300 rows, 5 steps an epoch).
        assert len(fitted.history_) == planned_epochs("auto", len(moons[1]), 64)
        assert len(fitted.history_) == max(20, -(-AUTO_STEPS // 5))
        assert fitted.history_[-1, "train_loss"] < fitted.history_[0, "train_loss"]

    def test_default_parameters_are_the_design(self):
        assert GatedAttentionClassifier().get_params() == {
            "gate": "multiplicative",
            "alpha": 1.0,
            "depth": 1,
            "d_model": 64,
            "n_tokens": 8,
            "token_dim": None,
            "patch_size": "auto",
            "head": "auto",
            "n_heads": "auto",
            "residual": "auto",
            "norm": "auto",
            "attention": "softmax",
            "embedding": "auto",
            "d_ff": "auto",
            "dropout": "auto",
            "position": "auto",
            "max_epochs": "auto",
            "lr": 2e-3,
            "batch_size": "auto",
            "weight_decay": 1e-2,
            "lr_schedule": "auto",
            "warmup_fraction": 0.1,
            "label_smoothing": "auto",
            "class_weight": None,
            "early_stopping": False,
            "validation_fraction": 0.1,
            "n_iter_no_change": 10,
            "tol": 1e-4,
            "warm_start": False,
            "callbacks": None,
            "device": "cpu",
            "random_state": None,
            "verbose": 0,
        }
        assert list(GatedAttentionClassifier().get_params()) == sorted(
            GatedAttentionClassifier().get_params()
        )
        regressor = GatedAttentionRegressor().get_params()
        assert set(GatedAttentionClassifier().get_params()) - set(regressor) == {
            "class_weight",
            "label_smoothing",
        }

    def test_probabilities(self, fitted, moons):
        proba = fitted.predict_proba(moons[0])
        assert proba.shape == (300, 2) and proba.dtype == np.float64
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(fitted.predict(moons[0]), proba.argmax(axis=1))

    def test_log_probabilities(self, fitted, moons):
        log_proba = fitted.predict_log_proba(moons[0])
        np.testing.assert_allclose(
            np.exp(log_proba), fitted.predict_proba(moons[0]), rtol=1e-12
        )

    def test_non_finite_weights_are_an_error_not_nan(self, fitted, moons):
        broken = pickle.loads(pickle.dumps(fitted))
        with torch.no_grad():
            broken.net_.module_.head[0].weight[0, 0] = float("nan")
        with pytest.raises(ValueError, match="output is not finite"):
            broken.predict_proba(moons[0])

    def test_representation_layers(self, fitted, moons):
        X = moons[0][:7]
        attention = fitted.representation(X)
        assert attention.shape == (7, 8, 64)
        np.testing.assert_array_equal(attention, fitted.representation(X, layer=0))
        np.testing.assert_array_equal(attention, fitted.representation(X, layer=-1))
        pooled = fitted.representation(X, layer="pooled")
        np.testing.assert_allclose(pooled, attention.mean(axis=1), atol=1e-12)
        logits = fitted.representation(X, layer="logits")
        assert logits.shape == (7, 2)
        np.testing.assert_allclose(
            fitted.predict_proba(X),
            np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True),
        )

    def test_representation_rejects_bad_layer(self, fitted, moons):
        with pytest.raises(ValueError, match="layer=1 is out of range for depth=1"):
            fitted.representation(moons[0], layer=1)
        with pytest.raises(ValueError, match="'layer' parameter of representation"):
            fitted.representation(moons[0], layer="hidden")

    def test_prediction_does_not_depend_on_the_batch(self, fitted, moons):
        X = moons[0]
        full = fitted.predict_proba(X)
        one_by_one = np.vstack([fitted.predict_proba(X[i : i + 1]) for i in range(9)])
        np.testing.assert_allclose(full[:9], one_by_one, rtol=0, atol=1e-14)

    def test_estimator_untouched_by_prediction(self, fitted, moons):
        before = fitted.net_.module_.embed.weight.detach().clone()
        fitted.predict(moons[0])
        assert torch.equal(before, fitted.net_.module_.embed.weight)
        assert fitted.net_.module_.embed.weight.dtype == torch.float32


class TestParameters:
    def test_init_stores_exactly_the_signature(self):
        clf = GatedAttentionClassifier("silu", alpha=0.5, depth=3)
        params = clf.get_params()
        assert vars(clf) == params  # nothing else is set before fit
        assert (params["gate"], params["alpha"], params["depth"]) == ("silu", 0.5, 3)

    def test_net_receives_every_architecture_parameter(self, moons, fast):
        clf = GatedAttentionClassifier(
            "none", depth=2, n_tokens=3, head="linear", **fast
        ).fit(*moons)
        module = clf.net_.module_
        assert (module.depth, module.n_tokens) == (2, 3)
        assert module.blocks[0].gate == "none"
        assert isinstance(module.head, torch.nn.Linear)
        assert module.embed.out_features == fast["d_model"]

    def test_fit_validates_parameters_unless_told_not_to(self, moons, fast):
        from sklearn import config_context
        from sklearn.utils._param_validation import InvalidParameterError

        clf = GatedAttentionClassifier(**{**fast, "lr": 0.0, "max_epochs": 1})
        with pytest.raises(InvalidParameterError, match="'lr' parameter"):
            clf.fit(*moons)
        with config_context(skip_parameter_validation=True):
            clf.fit(*moons)  # lr=0 is legal for AdamW: the weights stay put
        initial = clone(clf).set_params(max_epochs=0)
        with config_context(skip_parameter_validation=True):
            initial.fit(*moons)
        np.testing.assert_array_equal(
            clf.predict_proba(moons[0]), initial.predict_proba(moons[0])
        )

    def test_the_shared_base_is_abstract(self):
        from skgate.estimators import _GatedAttentionBase

        with pytest.raises(TypeError, match="abstract methods _prepare_targets"):
            _GatedAttentionBase()


class TestLabelsAndInputs:
    def test_string_labels(self, moons, fast):
        X, y = moons
        labels = np.array(["left", "right"])[y]
        clf = GatedAttentionClassifier(**fast).fit(X, labels)
        np.testing.assert_array_equal(clf.classes_, ["left", "right"])
        assert set(clf.predict(X)) <= {"left", "right"}
        assert clf.score(X, labels) > 0.75

    def test_three_classes(self):
        X, y = make_blobs(300, centers=3, random_state=0)
        clf = GatedAttentionClassifier(random_state=0).fit(X, y + 10)
        np.testing.assert_array_equal(clf.classes_, [10, 11, 12])
        assert clf.predict_proba(X).shape == (300, 3)
        assert clf.score(X, y + 10) > 0.9

    def test_dataframe_keeps_feature_names(self, moons, fast):
        X, y = moons
        frame = pd.DataFrame(X, columns=["a", "b"])
        clf = GatedAttentionClassifier(**fast).fit(frame, pd.Series(y))
        np.testing.assert_array_equal(clf.feature_names_in_, ["a", "b"])
        with pytest.warns(UserWarning, match="does not have valid feature names"):
            from_array = clf.predict(X)
        np.testing.assert_array_equal(clf.predict(frame), from_array)
        with pytest.raises(ValueError, match="feature names"):
            clf.predict(frame.rename(columns={"a": "c"}))

    def test_sequence_input(self, fast):
        X, y = make_curved_task(400, n_observations=4, noise=0.3, random_state=0)
        clf = GatedAttentionClassifier(token_dim=2, **fast).fit(X, y)
        assert clf.net_.module_.n_tokens == 4
        assert clf.representation(X[:3]).shape == (3, 4, 16)

    def test_integer_and_float32_inputs(self, moons, fast):
        X, y = moons
        clf = GatedAttentionClassifier(**fast)
        proba = clf.fit(X.astype(np.float32), y).predict_proba(X.astype(np.float32))
        assert proba.dtype == np.float64
        clf.fit((10 * X).astype(np.int64), y)

    def test_zero_epochs_is_the_initialisation(self, moons, fast):
        X, y = moons
        init = GatedAttentionClassifier(**{**fast, "max_epochs": 0})
        trained = GatedAttentionClassifier(**fast)
        init.fit(X, y)
        trained.fit(X, y)
        assert len(init.history_) == 0
        assert not np.array_equal(init.predict_proba(X), trained.predict_proba(X))


class TestReproducibility:
    def test_same_seed_is_bit_identical(self, moons, fast):
        X, y = moons
        first = GatedAttentionClassifier(**fast).fit(X, y).predict_proba(X)
        second = GatedAttentionClassifier(**fast).fit(X, y).predict_proba(X)
        np.testing.assert_array_equal(first, second)

    def test_refit_and_clone_are_bit_identical(self, moons, fast):
        X, y = moons
        clf = GatedAttentionClassifier(**fast)
        first = clf.fit(X, y).predict_proba(X)
        np.testing.assert_array_equal(first, clf.fit(X, y).predict_proba(X))
        np.testing.assert_array_equal(first, clone(clf).fit(X, y).predict_proba(X))

    @pytest.mark.parametrize(
        "estimator, columns",
        [
            (GatedAttentionClassifier(max_epochs=1, random_state=0), 2),
            (GatedAttentionRegressor(max_epochs=1, random_state=0), 2),
            (
                GatedAttentionClassifier(
                    max_epochs=1, token_dim=2, n_heads=2, depth=2, random_state=0
                ),
                8,
            ),
        ],
    )
    def test_a_row_predicts_alike_alone_and_in_any_batch(self, estimator, columns):
        """A row's prediction and representation have the same bits alone,
        in a few rows and in a large batch (one to three rows took other
        float64 kernels, 2e-16 away)."""
        X, y = make_moons(60, noise=0.25, random_state=0)
        X = np.hstack([X] * (columns // 2))
        model = estimator.fit(X, y if is_classifier(estimator) else X[:, 0])
        predict = getattr(model, "predict_proba", model.predict)
        whole, representation = predict(X), model.representation(X)
        for k in (1, 2, 3, 7):
            parts = [slice(i, i + k) for i in range(0, len(X), k)]
            np.testing.assert_array_equal(
                np.concatenate([predict(X[part]) for part in parts]), whole
            )
            np.testing.assert_array_equal(
                np.concatenate([model.representation(X[part]) for part in parts]),
                representation,
            )

    def test_other_seed_differs(self, moons, fast):
        X, y = moons
        first = GatedAttentionClassifier(**fast).fit(X, y).predict_proba(X)
        other = GatedAttentionClassifier(**{**fast, "random_state": 1}).fit(X, y)
        assert not np.array_equal(first, other.predict_proba(X))

    def test_global_torch_rng_is_untouched(self, moons, fast):
        torch.manual_seed(123)
        state = torch.get_rng_state()
        GatedAttentionClassifier(**fast).fit(*moons)
        assert torch.equal(state, torch.get_rng_state())

    def test_no_seed_draws_a_fresh_one(self, moons, fast):
        X, y = moons
        params = {**fast, "random_state": None}
        first = GatedAttentionClassifier(**params).fit(X, y).predict_proba(X)
        second = GatedAttentionClassifier(**params).fit(X, y).predict_proba(X)
        assert not np.array_equal(first, second)

    def test_pickle_and_joblib_round_trips(self, fitted, moons, tmp_path):
        X = moons[0]
        expected = fitted.predict_proba(X)
        loaded = pickle.loads(pickle.dumps(fitted))
        np.testing.assert_array_equal(loaded.predict_proba(X), expected)
        joblib.dump(fitted, tmp_path / "clf.joblib")
        loaded = joblib.load(tmp_path / "clf.joblib")
        np.testing.assert_array_equal(loaded.predict_proba(X), expected)
        np.testing.assert_array_equal(loaded.predict(X), fitted.predict(X))

    @pytest.mark.slow
    def test_across_processes(self, fitted, moons, tmp_path):
        """A fit in another process is bit-identical; a saved model loads there."""
        X, y = moons
        joblib.dump(fitted, tmp_path / "clf.joblib")
        np.save(tmp_path / "X.npy", X)
        np.save(tmp_path / "y.npy", y)
        script = textwrap.dedent(
            """
            import sys, joblib, numpy as np
            from skgate import GatedAttentionClassifier
            folder = sys.argv[1]
            X, y = np.load(folder + "/X.npy"), np.load(folder + "/y.npy")
            refit = GatedAttentionClassifier(random_state=0).fit(X, y)
            np.save(folder + "/refit.npy", refit.predict_proba(X))
            loaded = joblib.load(folder + "/clf.joblib")
            np.save(folder + "/loaded.npy", loaded.predict_proba(X))
            """
        )
        subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True)
        expected = fitted.predict_proba(X)
        np.testing.assert_array_equal(np.load(tmp_path / "refit.npy"), expected)
        np.testing.assert_array_equal(np.load(tmp_path / "loaded.npy"), expected)


class TestInScikitLearn:
    def test_pipeline_with_scaler(self, moons, fast):
        X, y = moons
        pipe = make_pipeline(StandardScaler(), GatedAttentionClassifier(**fast))
        assert pipe.fit(X, y).score(X, y) > 0.8

    def test_grid_search_over_alpha_and_depth_in_parallel(self, moons, fast):
        X, y = moons
        grid = {"alpha": [0.0, 1.0], "depth": [1, 2]}
        serial = GridSearchCV(GatedAttentionClassifier(**fast), grid, cv=3)
        parallel = GridSearchCV(GatedAttentionClassifier(**fast), grid, cv=3, n_jobs=2)
        serial.fit(X, y)
        parallel.fit(X, y)
        assert set(serial.best_params_) == {"alpha", "depth"}
        np.testing.assert_allclose(
            parallel.cv_results_["mean_test_score"],
            serial.cv_results_["mean_test_score"],
        )
        assert serial.best_params_ == parallel.best_params_

    def test_pipeline_grid_search_by_step_name(self, moons, fast):
        X, y = moons
        pipe = make_pipeline(StandardScaler(), GatedAttentionClassifier(**fast))
        search = GridSearchCV(
            pipe, {"gatedattentionclassifier__gate": ["none", "silu"]}, cv=2
        )
        search.fit(X, y)
        assert len(search.cv_results_["params"]) == 2

    def test_cross_val_score(self, moons, fast):
        scores = cross_val_score(GatedAttentionClassifier(**fast), *moons, cv=3)
        assert scores.shape == (3,) and scores.min() > 0.6


class _CountEpochs(Callback):
    def initialize(self):
        self.epochs = 0
        return self

    def on_epoch_end(self, net, **kwargs):
        self.epochs += 1


class TestCallbacksAndProgress:
    def test_extra_callbacks_run_and_the_parameter_is_kept(self, moons, fast):
        counter = _CountEpochs()
        scheduler = ("lr", LRScheduler(policy="StepLR", step_size=1, gamma=0.5))
        clf = GatedAttentionClassifier(callbacks=[counter, scheduler], **fast)
        clf.fit(*moons)
        assert not hasattr(counter, "epochs")  # the parameter is not mutated
        trained = dict(clf.net_.callbacks_)
        assert trained["_CountEpochs"].epochs == 5
        assert clf.net_.optimizer_.param_groups[0]["lr"] == pytest.approx(2e-3 * 0.5**5)

    def test_verbose_prints_per_epoch_progress(self, moons, capsys, fast):
        GatedAttentionClassifier(**{**fast, "verbose": 1}).fit(*moons)
        out = capsys.readouterr().out
        assert "train_loss" in out
        first_words = [line.split()[0] for line in out.splitlines() if line.strip()]
        epochs = [word for word in first_words if word.isdigit()]
        assert epochs[-5:] == ["1", "2", "3", "4", "5"]

    def test_silent_by_default(self, moons, capsys, fast):
        GatedAttentionClassifier(**fast).fit(*moons)
        assert capsys.readouterr().out == ""


X_OK, Y_OK = make_moons(40, noise=0.1, random_state=0)


class TestBadInput:
    @pytest.mark.parametrize(
        "param, value, error",
        [
            ("gate", "relu", ValueError),
            ("gate", None, ValueError),
            ("alpha", -0.5, ValueError),
            ("alpha", float("nan"), ValueError),
            ("alpha", "1", TypeError),
            ("depth", 0, ValueError),
            ("depth", 2.5, TypeError),
            ("d_model", 0, ValueError),
            ("n_tokens", 0, ValueError),
            ("token_dim", 0, ValueError),
            ("head", "deep", ValueError),
            ("max_epochs", -1, ValueError),
            ("lr", 0.0, ValueError),
            ("lr", -1e-3, ValueError),
            ("batch_size", 0, ValueError),
            ("weight_decay", -0.1, ValueError),
            ("callbacks", "print", TypeError),
            ("random_state", "seed", ValueError),
            ("verbose", "loud", ValueError),
        ],
    )
    def test_invalid_hyperparameter(self, param, value, error):
        clf = GatedAttentionClassifier(**{param: value})  # accepted until fit
        with pytest.raises(
            error,
            match=f"'{param}' parameter of GatedAttentionClassifier must be .* Got",
        ):
            clf.fit(X_OK, Y_OK)

    @pytest.mark.parametrize(
        "callbacks", [[object()], [("name", 3)], [(1, LRScheduler())]]
    )
    def test_invalid_callback_items(self, callbacks):
        with pytest.raises(TypeError, match="callbacks must be None or a list of"):
            GatedAttentionClassifier(callbacks=callbacks).fit(X_OK, Y_OK)

    @pytest.mark.parametrize("device", ["gpu7", "cuda:x"])
    def test_invalid_device(self, device):
        with pytest.raises(ValueError, match="device must be a torch device"):
            GatedAttentionClassifier(device=device).fit(X_OK, Y_OK)

    @pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present")
    def test_unavailable_cuda(self):
        with pytest.raises(ValueError, match="torch.cuda.is_available"):
            GatedAttentionClassifier(device="cuda").fit(X_OK, Y_OK)

    def test_token_dim_must_divide_features(self):
        with pytest.raises(ValueError, match="token_dim=3 does not divide .* \\(2\\)"):
            GatedAttentionClassifier(token_dim=3).fit(X_OK, Y_OK)

    @pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
    def test_non_finite_X(self, bad):
        X = X_OK.copy()
        X[3, 1] = bad
        with pytest.raises(ValueError, match="Input X contains (NaN|infinity)"):
            GatedAttentionClassifier().fit(X, Y_OK)

    def test_huge_magnitudes_are_rejected_not_nan(self):
        with pytest.raises(ValueError, match="beyond the float32 range"):
            GatedAttentionClassifier().fit(X_OK * 1e300, Y_OK)

    def test_divergence_is_an_error_not_nan(self):
        # Sequences: q.k scores of 1e40 overflow float32 and the loss turns NaN.
        with pytest.raises(
            ValueError,
            match="Training diverged: the weights or the training loss",
        ):
            GatedAttentionClassifier(max_epochs=2, token_dim=1).fit(X_OK * 1e20, Y_OK)

    def test_a_non_finite_training_loss_is_divergence(self, moons):
        # lr=1e9: the weights stay finite, the loss reaches inf, then NaN.
        clf = GatedAttentionClassifier(max_epochs=3, lr=1e9, d_model=8)
        with pytest.raises(ValueError, match=r"Training diverged.*lr=1e\+09"):
            clf.fit(*moons)

    def test_a_loss_far_above_a_constant_predictions_is_warned_about(self, moons):
        # Inputs of 1e20 once trained silently to a loss of 2e18, predicting
        # one class everywhere; 1e3 trains (its loss stays below 693).
        X, y = moons[0][:40], moons[1][:40]
        model = GatedAttentionClassifier(d_model=8, max_epochs=2, random_state=0)
        with pytest.warns(
            ConvergenceWarning,
            match=r"over 1000 times a constant "
            r"prediction's \(0\.693\).*magnitude up to 2\.\d+e\+20",
        ):
            model.fit(X * 1e20, y)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            model.fit(X * 1e3, y)

    def test_large_but_trainable_magnitudes_give_finite_probabilities(self):
        clf = GatedAttentionClassifier(max_epochs=2).fit(X_OK * 1e6, Y_OK)
        assert np.isfinite(clf.predict_proba(X_OK * 1e30)).all()

    def test_single_class(self):
        with pytest.raises(ValueError, match="y has 1 class .* at least 2 classes"):
            GatedAttentionClassifier().fit(X_OK, np.zeros(40))

    def test_continuous_target(self):
        with pytest.raises(ValueError, match="Unknown label type: continuous"):
            GatedAttentionClassifier().fit(X_OK, np.linspace(0, 1, 40))

    def test_y_of_wrong_length(self):
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            GatedAttentionClassifier().fit(X_OK, Y_OK[:-1])

    def test_empty_X(self):
        with pytest.raises(ValueError, match="0 sample"):
            GatedAttentionClassifier().fit(X_OK[:0], Y_OK[:0])

    def test_four_dimensional_X(self):
        # 3-D X is a collection of series (tests/test_series.py).
        with pytest.raises(ValueError, match="X has 4 dimensions"):
            GatedAttentionClassifier().fit(X_OK.reshape(40, 2, 1, 1), Y_OK)

    def test_sparse_X(self):
        with pytest.raises(TypeError, match="Sparse data was passed"):
            GatedAttentionClassifier().fit(sp.csr_matrix(X_OK), Y_OK)

    def test_complex_X(self):
        with pytest.raises(ValueError, match="X holds complex numbers"):
            GatedAttentionClassifier().fit(X_OK + 1j, Y_OK)

    def test_strings_in_X(self):
        with pytest.raises(ValueError, match="could not convert"):
            GatedAttentionClassifier().fit(np.full((40, 2), "a"), Y_OK)

    def test_predict_before_fit(self):
        with pytest.raises(NotFittedError):
            GatedAttentionClassifier().predict(X_OK)
        with pytest.raises(NotFittedError):
            GatedAttentionClassifier().representation(X_OK)

    def test_wrong_number_of_features_at_predict(self, fitted):
        with pytest.raises(ValueError, match="X has 3 features, but .* expecting 2"):
            fitted.predict(np.zeros((4, 3)))

    def test_non_finite_at_predict(self, fitted):
        with pytest.raises(ValueError, match="Input X contains NaN"):
            fitted.predict_proba(np.array([[0.0, np.nan]]))


class _Batches(Callback):
    """Records the training batches callbacks are shown, by epoch."""

    def initialize(self):
        self.epochs_ = []
        return self

    def on_epoch_begin(self, net, **kwargs):
        self.epochs_.append([])

    def on_batch_end(self, net, batch=None, training=False, **kwargs):
        if training:
            self.epochs_[-1].append(batch)


class TestBatchesShownToCallbacks:
    """The loop's batches, as skorch's callbacks see them: every training
    row once an epoch in batch_size slices, a fresh order each epoch, and
    weighted rows as skorch's recipe, ({"X": rows, "sample_weight": w}, y),
    X, y and w paired."""

    def _batches(self, sample_weight):
        X = np.arange(10, dtype=float).reshape(10, 1)
        y = np.arange(10) % 2
        clf = GatedAttentionClassifier(
            batch_size=4, max_epochs=2, random_state=0, callbacks=[("b", _Batches())]
        ).fit(X, y, sample_weight=sample_weight)
        return dict(clf.net_.callbacks_)["b"].epochs_

    def test_unweighted(self):
        epochs = self._batches(None)
        orders = []
        for batches in epochs:
            assert [len(b[1]) for b in batches] == [4, 4, 2]
            assert all(isinstance(b[0], torch.Tensor) for b in batches)
            rows = torch.cat([b[0] for b in batches]).flatten()
            assert sorted(rows.tolist()) == list(range(10))
            assert torch.equal(torch.cat([b[1] for b in batches]), rows.long() % 2)
            orders.append(rows)
        assert not torch.equal(orders[0], orders[1])

    def test_weighted(self):
        w = np.arange(1, 11, dtype=float)
        for batches in self._batches(w):
            rows = torch.cat([b[0]["X"] for b in batches]).flatten()
            weights = torch.cat([b[0]["sample_weight"] for b in batches])
            # Weights scaled to mean 1, paired with their rows.
            expected = torch.tensor((rows.numpy() + 1) / w.mean(), dtype=torch.float32)
            torch.testing.assert_close(weights, expected)

    def test_the_loop_records_the_losses_skorch_would(self, fitted):
        callbacks = dict(fitted.net_.callbacks_)
        assert "valid_acc" not in callbacks and "train_loss" not in callbacks
        assert list(fitted.history_[:, "train_loss"]) == fitted.loss_curve_


class _StopAfter(Callback):
    """Raises KeyboardInterrupt (what Ctrl-C raises) at the end of an epoch."""

    def __init__(self, epochs=2):
        self.epochs = epochs

    def on_epoch_end(self, net, **kwargs):
        if len(net.history) == self.epochs:
            raise KeyboardInterrupt


class TestInterruptsAndPersistence:
    def test_ctrl_c_during_fit_leaves_a_usable_estimator(self, moons, fast):
        clf = GatedAttentionClassifier(callbacks=[_StopAfter(2)], **fast)
        clf.fit(*moons)  # the loop keeps what trained and warns
        assert len(clf.history_) == 2
        assert clf.predict_proba(moons[0]).shape == (300, 2)
        assert np.isfinite(clf.curvature(moons[0][:10])).all()

    def test_a_search_with_the_refit_rule_scores_in_the_rules_metric(self, moons, fast):
        """``search.score`` raised KeyError: least_curvature_refit(...) with
        several metrics (issue 74, item 9): it is the rule's score metric."""
        from sklearn.metrics import balanced_accuracy_score

        from skgate import curvature_score, least_curvature_refit

        X, y = moons[0][:120], moons[1][:120]
        search = GridSearchCV(
            GatedAttentionClassifier(**fast),
            {"alpha": [0.0, 1.0]},
            cv=2,
            scoring={"bal": "balanced_accuracy", "curv": curvature_score},
            refit=least_curvature_refit(score="bal", curvature="curv"),
        ).fit(X, y)
        expected = balanced_accuracy_score(y, search.predict(X))
        assert search.score(X, y) == pytest.approx(expected)
        rule = least_curvature_refit(score="bal", curvature="curv")
        assert rule == search.refit and rule != least_curvature_refit()
        assert {"bal": 1}[rule] == 1 and rule != "accuracy"

    @pytest.mark.slow
    def test_fitted_search_with_the_refit_rule_loads_in_another_process(
        self, moons, tmp_path, fast
    ):
        from skgate import curvature_score, least_curvature_refit

        X, y = moons
        search = GridSearchCV(
            GatedAttentionClassifier(**fast),
            {"alpha": [0.0, 1.0]},
            cv=2,
            scoring={"accuracy": "accuracy", "curvature": curvature_score},
            refit=least_curvature_refit(),
        ).fit(X, y)
        joblib.dump(search, tmp_path / "search.joblib")
        np.save(tmp_path / "X.npy", X)
        script = textwrap.dedent(
            """
            import sys, joblib, numpy as np
            folder = sys.argv[1]
            search = joblib.load(folder + "/search.joblib")
            X = np.load(folder + "/X.npy")
            np.save(folder + "/proba.npy", search.predict_proba(X))
            np.save(folder + "/index.npy", np.array([search.best_index_]))
            """
        )
        subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True)
        np.testing.assert_array_equal(
            np.load(tmp_path / "proba.npy"), search.predict_proba(X)
        )
        assert np.load(tmp_path / "index.npy")[0] == search.best_index_


class TestHardeningRoundTwo:
    """Wrong answers and crashes found by hostile use (issue 12), pinned."""

    def test_threaded_search_equals_sequential(self, moons, fast):
        from joblib import parallel_config

        def search():
            grid = {"alpha": [0.0, 0.5, 1.0, 1.5]}
            return GridSearchCV(GatedAttentionClassifier(**fast), grid, cv=3)

        sequential = search().fit(*moons)
        for _ in range(2):
            with parallel_config(backend="threading", n_jobs=2):
                threaded = search().set_params(n_jobs=2).fit(*moons)
            for key in ("mean_test_score", "split0_test_score", "split2_test_score"):
                np.testing.assert_array_equal(
                    threaded.cv_results_[key], sequential.cv_results_[key]
                )

    def test_two_fits_in_threads_are_bit_identical_to_one_alone(self, moons, fast):
        from concurrent.futures import ThreadPoolExecutor

        X, y = moons
        alone = GatedAttentionClassifier(**fast).fit(X, y).predict_proba(X)
        with ThreadPoolExecutor(4) as pool:
            fits = pool.map(
                lambda _: GatedAttentionClassifier(**fast).fit(X, y), range(4)
            )
            for clf in fits:
                np.testing.assert_array_equal(clf.predict_proba(X), alone)

    def test_weights_are_those_of_a_seeded_construction(self, fast):
        """The fit's generator gives the weights torch.manual_seed would."""
        X, y = make_curved_task(60, n_observations=3, random_state=0)
        clf = GatedAttentionClassifier(token_dim=2, **{**fast, "max_epochs": 0})
        clf.fit(X, y)
        seed = int(np.random.RandomState(fast["random_state"]).randint(2**31 - 1))
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            expected = GatedAttentionNet(6, 2, token_dim=2, d_model=fast["d_model"])
        for got, want in zip(
            clf.net_.module_.parameters(), expected.parameters(), strict=True
        ):
            assert torch.equal(got, want)

    def test_a_failed_refit_keeps_the_old_model_whole(self, moons):
        X, y = moons
        clf = GatedAttentionClassifier(max_epochs=2, token_dim=1, random_state=0)
        clf.fit(X, y)
        proba, net = clf.predict_proba(X), clf.net_
        with pytest.raises(ValueError, match="Training diverged"):
            clf.fit(X * 1e20, np.where(y == 1, "b", "a"))
        assert clf.net_ is net and list(clf.classes_) == [0, 1]
        np.testing.assert_array_equal(clf.predict_proba(X), proba)

    def test_a_failed_first_fit_leaves_it_unfitted(self, moons):
        clf = GatedAttentionClassifier(max_epochs=2, token_dim=1, random_state=0)
        with pytest.raises(ValueError, match="Training diverged"):
            clf.fit(moons[0] * 1e20, moons[1])
        assert vars(clf) == clf.get_params()
        with pytest.raises(NotFittedError):
            clf.predict(moons[0])

    @pytest.mark.parametrize(
        "layout",
        [
            np.flipud,
            lambda a: a[::-1],
            np.asfortranarray,
            lambda a: np.repeat(a, 2, axis=0)[::2],
            lambda a: pd.DataFrame(a).iloc[::-1],
        ],
        ids=["flipud", "reversed", "fortran", "strided", "dataframe-reversed"],
    )
    def test_every_entry_point_takes_every_layout(self, fitted, moons, layout):
        X, y = moons
        odd = layout(X)
        plain = np.array(odd, order="C")  # the same numbers, contiguous
        labels = layout(y[:, None]) if not isinstance(odd, pd.DataFrame) else None
        labels = y[::-1] if labels is None else np.asarray(labels).ravel()
        np.testing.assert_array_equal(
            fitted.predict_proba(odd), fitted.predict_proba(plain)
        )
        np.testing.assert_array_equal(fitted.predict(odd), fitted.predict(plain))
        assert fitted.score(odd, labels) == fitted.score(plain, labels)
        np.testing.assert_array_equal(
            fitted.representation(odd), fitted.representation(plain)
        )
        np.testing.assert_array_equal(
            fitted.curvature(odd[:5]), fitted.curvature(plain[:5])
        )
        refit = clone(fitted).set_params(max_epochs=1).fit(odd, labels)
        assert refit.predict(odd).shape == labels.shape

    def test_fit_with_float64_as_torchs_default_dtype(self, moons, fast):
        X, y = moons
        expected = GatedAttentionClassifier(**fast).fit(X, y).predict_proba(X)
        before = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        try:
            clf = GatedAttentionClassifier(**fast).fit(X, y)
        finally:
            torch.set_default_dtype(before)
        assert next(clf.net_.module_.parameters()).dtype == torch.float32
        np.testing.assert_array_equal(clf.predict_proba(X), expected)

    def test_fit_inside_inference_mode(self, moons, fast):
        X, y = moons
        expected = GatedAttentionClassifier(**fast).fit(X, y).predict_proba(X)
        with torch.inference_mode():
            clf = GatedAttentionClassifier(**fast).fit(X, y)
            np.testing.assert_array_equal(clf.predict_proba(X), expected)

    def test_huge_alpha_is_named_as_the_cause(self, moons, fast):
        clf = GatedAttentionClassifier(**{**fast, "alpha": 1e300, "token_dim": 1})
        with pytest.raises(ValueError, match=r"Likely causes: alpha=1e\+300"):
            clf.fit(*moons)

    def test_meta_device_is_refused(self, moons, fast):
        clf = GatedAttentionClassifier(**{**fast, "device": "meta"})
        with pytest.raises(ValueError, match="device='meta' holds shapes but no"):
            clf.fit(*moons)

    @pytest.mark.parametrize(
        "callback, monitor",
        [
            ("EarlyStopping", "'valid_loss'"),
            ("Checkpoint", "'valid_loss_best'"),
        ],
    )
    def test_callbacks_that_need_a_validation_split(
        self, moons, fast, callback, monitor, tmp_path
    ):
        import skorch.callbacks

        kwargs = {"dirname": str(tmp_path)} if callback == "Checkpoint" else {}
        instance = getattr(skorch.callbacks, callback)(**kwargs)
        clf = GatedAttentionClassifier(**{**fast, "callbacks": [instance]})
        with pytest.raises(ValueError, match=f"{callback} monitors {monitor}.*"):
            clf.fit(*moons)
        train = getattr(skorch.callbacks, callback)(
            monitor="train_loss" if callback == "EarlyStopping" else "train_loss_best",
            **kwargs,
        )
        GatedAttentionClassifier(**{**fast, "callbacks": [train]}).fit(*moons)

    def test_a_validation_score_without_a_validation_split(self, moons, fast):
        """EpochScoring scores the validation split by default; without
        early stopping there is none, and it would record nothing."""
        from skorch.callbacks import BatchScoring, EpochScoring

        for scoring in (EpochScoring("accuracy"), BatchScoring("accuracy")):
            clf = GatedAttentionClassifier(**{**fast, "callbacks": [scoring]})
            with pytest.raises(ValueError, match="scores 'accuracy' on the valid.*"
                               "early_stopping=True.*on_train=True"):  # fmt: skip
                clf.fit(*moons)
        on_train = EpochScoring("accuracy", on_train=True, name="train_acc")
        clf = GatedAttentionClassifier(**{**fast, "callbacks": [on_train]}).fit(*moons)
        assert len(clf.history_[:, "train_acc"]) == fast["max_epochs"]
        valid = GatedAttentionClassifier(
            **{**fast, "callbacks": [EpochScoring("accuracy", name="acc")]},
            early_stopping=True,
        ).fit(*moons)
        assert all(0 <= a <= 1 for a in valid.history_[:, "acc"])

    def test_a_callback_class_is_made_or_named(self, moons, fast):
        from skorch.callbacks import EpochScoring, EpochTimer

        clf = GatedAttentionClassifier(**{**fast, "callbacks": [EpochTimer]})
        clf.fit(*moons)
        assert clf.callbacks == [EpochTimer]  # the parameter as given
        clf = GatedAttentionClassifier(**{**fast, "callbacks": [("s", EpochScoring)]})
        with pytest.raises(
            TypeError, match=r"EpochScoring is a class.*EpochScoring\(\.\.\.\)"
        ):
            clf.fit(*moons)

    def test_callbacks_changed_between_partial_fits_take_effect(self, moons, fast):
        from skorch.callbacks import EpochScoring

        X, y = moons
        clf = GatedAttentionClassifier(**fast).partial_fit(X, y, classes=[0, 1])
        scoring = EpochScoring("accuracy", on_train=True, name="train_acc")
        clf.set_params(callbacks=[scoring]).partial_fit(X, y)
        assert "train_acc" in clf.history_[-1]
        clf.callbacks.clear()  # edited in place
        clf.partial_fit(X, y)
        assert "train_acc" not in clf.history_[-1]
        # Unchanged callbacks keep their state from one call to the next.
        clf.set_params(callbacks=[scoring]).partial_fit(X, y)
        kept = clf.net_.callbacks_
        clf.partial_fit(X, y)
        assert all(a[1] is b[1] for a, b in zip(kept, clf.net_.callbacks_, strict=True))


class TestSampleWeight:
    def test_equal_weights_are_no_weights(self, moons, fast):
        X, y = moons
        plain = GatedAttentionClassifier(**fast).fit(X, y).predict_proba(X)
        for weight in (np.ones(len(y)), np.full(len(y), 3.0)):
            clf = GatedAttentionClassifier(**fast).fit(X, y, sample_weight=weight)
            np.testing.assert_array_equal(clf.predict_proba(X), plain)

    def test_scaling_all_weights_changes_nothing(self, moons, fast):
        X, y = moons
        weight = np.random.default_rng(0).random(len(y))
        one = GatedAttentionClassifier(**fast).fit(X, y, sample_weight=weight)
        three = GatedAttentionClassifier(**fast).fit(X, y, sample_weight=3 * weight)
        np.testing.assert_array_equal(one.predict_proba(X), three.predict_proba(X))

    def test_zero_weight_rows_are_left_out(self, moons, fast):
        X, y = moons
        weight = np.random.default_rng(1).integers(0, 4, len(y)).astype(float)
        keep = weight > 0
        weighted = GatedAttentionClassifier(**fast).fit(X, y, sample_weight=weight)
        dropped = GatedAttentionClassifier(**fast).fit(
            X[keep], y[keep], sample_weight=weight[keep]
        )
        np.testing.assert_array_equal(
            weighted.predict_proba(X), dropped.predict_proba(X)
        )

    def test_integer_weights_act_like_repeated_rows(self):
        """The statistical form of scikit-learn's sample-weight equivalence.

        Weight 4 on class 1 moves the predicted share of class 1 from about 0.5
        to about 0.75; repeating those rows 4 times moves it as far. Over 3
        seeds, weighted and repeated agree to within a quarter of that move.
        """
        from sklearn.datasets import make_classification

        X, y = make_classification(
            400,
            n_features=4,
            n_informative=2,
            class_sep=0.3,
            flip_y=0.1,
            random_state=0,
        )
        weight = np.where(y == 1, 4, 1)
        repeated = np.repeat(X, weight, axis=0), np.repeat(y, weight)
        gaps, moves = [], []

        def share(seed, *data, **kwargs):
            params = {"max_epochs": 10, "d_model": 16, "random_state": seed}
            clf = GatedAttentionClassifier(**params).fit(*data, **kwargs)
            return clf.predict_proba(X)[:, 1].mean()

        for seed in range(3):
            weighted = share(seed, X, y, sample_weight=weight)
            gaps.append(abs(weighted - share(seed, *repeated)))
            moves.append(weighted - share(seed, X, y))
        assert np.mean(moves) > 0.15
        assert np.mean(gaps) < 0.25 * np.mean(moves)

    @pytest.mark.parametrize(
        "weight, error, match",
        [
            (np.ones(5), ValueError, "sample_weight.shape == \\(5,\\), expected"),
            (-np.ones(300), ValueError, "Negative values in data passed"),
            (np.full(300, np.nan), ValueError, "Input sample_weight contains NaN"),
            (np.zeros(300), ValueError, "Sample weights must contain at least one"),
            ("heavy", TypeError, ""),
        ],
        ids=["length", "negative", "nan", "all-zero", "string"],
    )
    def test_bad_weights(self, moons, fast, weight, error, match):
        with pytest.raises((error, ValueError), match=match or None):
            GatedAttentionClassifier(**fast).fit(*moons, sample_weight=weight)

    def test_metadata_routing(self, moons, fast):
        import sklearn
        from sklearn.metrics import accuracy_score, make_scorer
        from sklearn.model_selection import cross_validate

        X, y = moons
        weight = np.where(y == 1, 5.0, 1.0)
        with sklearn.config_context(enable_metadata_routing=True):
            clf = GatedAttentionClassifier(**fast)
            clf.set_fit_request(sample_weight=True).set_score_request(
                sample_weight=False
            )
            search = GridSearchCV(clf, {"alpha": [0.0, 1.0]}, cv=3)
            search.fit(X, y, sample_weight=weight)
            plain = GridSearchCV(clf, {"alpha": [0.0, 1.0]}, cv=3).fit(X, y)
            assert not np.array_equal(
                search.cv_results_["mean_test_score"],
                plain.cv_results_["mean_test_score"],
            )
            scaler = StandardScaler().set_fit_request(sample_weight=False)
            pipe = make_pipeline(scaler, clf)
            scorer = make_scorer(accuracy_score).set_score_request(sample_weight=True)
            routed = cross_validate(
                pipe, X, y, cv=3, scoring=scorer, params={"sample_weight": weight}
            )
            assert np.isfinite(routed["test_score"]).all()
            direct = clone(clf).fit(X, y, sample_weight=weight)
            np.testing.assert_array_equal(
                search.best_estimator_.predict_proba(X)
                if search.best_params_ == {"alpha": 1.0}
                else direct.predict_proba(X),
                direct.predict_proba(X),
            )


class TestClassWeight:
    def test_balanced_is_inverse_frequency_times_sample_weight(self, fast):
        X, y = make_blobs(300, centers=[[-1, 0], [1, 0]], random_state=0)
        keep = np.r_[np.flatnonzero(y == 0), np.flatnonzero(y == 1)[:50]]
        X, y = X[keep], y[keep]  # 150 of class 0, 50 of class 1
        weights = {0: 200 / (2 * 150), 1: 200 / (2 * 50)}
        balanced = GatedAttentionClassifier(class_weight="balanced", **fast)
        explicit = GatedAttentionClassifier(class_weight=weights, **fast)
        manual = GatedAttentionClassifier(**fast)
        sample = np.where(y == 1, weights[1], weights[0])
        np.testing.assert_allclose(
            balanced.fit(X, y).predict_proba(X),
            manual.fit(X, y, sample_weight=sample).predict_proba(X),
            rtol=0,
            atol=1e-6,
        )
        np.testing.assert_allclose(
            explicit.fit(X, y).predict_proba(X),
            balanced.predict_proba(X),
            atol=1e-6,
        )
        both = clone(explicit).fit(X, y, sample_weight=np.full(len(y), 2.0))
        np.testing.assert_allclose(
            both.predict_proba(X), explicit.predict_proba(X), atol=1e-6
        )

    def test_class_weight_moves_the_boundary(self, fast):
        X, y = make_blobs(400, centers=[[-0.5, 0], [0.5, 0]], random_state=0)
        params = {**fast, "max_epochs": 10}
        plain = GatedAttentionClassifier(**params).fit(X, y)
        heavy = GatedAttentionClassifier(class_weight={1: 10.0}, **params).fit(X, y)
        assert (heavy.predict(X) == 1).mean() > (plain.predict(X) == 1).mean() + 0.1

    def test_unknown_labels_are_named(self, moons, fast):
        clf = GatedAttentionClassifier(class_weight={0: 1.0, "z": 2.0}, **fast)
        with pytest.raises(ValueError, match="class_weight names labels \\['z'\\]"):
            clf.fit(*moons)


class TestEarlyStopping:
    def test_stops_restores_the_best_and_records(self, moons, fast):
        clf = GatedAttentionClassifier(
            **{**fast, "max_epochs": 200}, early_stopping=True, n_iter_no_change=3
        ).fit(*moons)
        scores = clf.validation_scores_
        assert clf.n_iter_ == len(scores) == len(clf.loss_curve_) < 200
        assert clf.best_validation_score_ == max(scores)
        # stopped after more than n_iter_no_change epochs without a gain > tol
        best = int(np.argmax(scores))
        assert len(scores) - 1 - best > 3
        # the restored weights are the best epoch's: rescore the held-out rows
        from skgate._engine.plan import validation_rows

        train, held = validation_rows(
            np.searchsorted(clf.classes_, moons[1]),
            clf.validation_fraction,
            int(np.random.RandomState(0).randint(2**31 - 1, size=2)[1]),
            labels=clf.classes_,
        )
        X, y = moons
        assert clf.score(X[held], y[held]) == pytest.approx(
            clf.best_validation_score_, abs=1e-9
        )

    def test_matches_a_manual_hold_out_when_it_never_stops(self, moons, fast):
        """With tol=0 and patience beyond max_epochs, early stopping trains on
        the other rows for max_epochs and keeps the best epoch."""
        clf = GatedAttentionClassifier(
            **fast, early_stopping=True, n_iter_no_change=100
        ).fit(*moons)
        assert clf.n_iter_ == fast["max_epochs"]
        assert len(clf.history_[:, "valid_loss"]) == fast["max_epochs"]

    def test_skorch_callbacks_that_need_valid_loss_work(self, moons, fast, tmp_path):
        from skorch.callbacks import Checkpoint, EarlyStopping

        clf = GatedAttentionClassifier(
            **{**fast, "max_epochs": 100},
            early_stopping=True,
            n_iter_no_change=1000,
            callbacks=[EarlyStopping(patience=2), Checkpoint(dirname=str(tmp_path))],
        ).fit(*moons)
        assert clf.n_iter_ < 100
        assert (tmp_path / "params.pt").exists()

    def test_validation_score_is_weighted(self, moons, fast):
        X, y = moons
        params = {**fast, "early_stopping": True, "validation_fraction": 0.3}
        weight = np.where(y == 1, 9.0, 1.0)
        plain = GatedAttentionClassifier(**params).fit(X, y)
        weighted = GatedAttentionClassifier(**params).fit(X, y, sample_weight=weight)
        assert plain.validation_scores_ != weighted.validation_scores_

    @pytest.mark.parametrize(
        "fraction, match",
        [
            (0.0, "'validation_fraction' parameter"),
            (1.0, "'validation_fraction' parameter"),
            (0.001, "holds out 1 of the n_samples=300 rows, but early stopping"),
            (0.999, "holds out 300 of the n_samples=300 rows"),
        ],
    )
    def test_bad_fractions(self, moons, fast, fraction, match):
        clf = GatedAttentionClassifier(
            **fast, early_stopping=True, validation_fraction=fraction
        )
        with pytest.raises(ValueError, match=match):
            clf.fit(*moons)

    def test_regressor_scores_r2(self, fast):
        from sklearn.datasets import make_friedman1

        from skgate import GatedAttentionRegressor

        X, y = make_friedman1(300, random_state=0)
        reg = GatedAttentionRegressor(
            **{**fast, "max_epochs": 60}, early_stopping=True, n_iter_no_change=5
        ).fit(X, y)
        assert 0 < reg.best_validation_score_ <= 1
        assert reg.n_iter_ == len(reg.validation_scores_)


class TestWarmStartAndPartialFit:
    def test_loss_curve_and_n_iter(self, moons, fast):
        clf = GatedAttentionClassifier(**fast).fit(*moons)
        assert clf.n_iter_ == fast["max_epochs"] == len(clf.loss_curve_)
        assert clf.loss_curve_ == [float(v) for v in clf.history_[:, "train_loss"]]
        assert clf.validation_scores_ is None and clf.best_validation_score_ is None

    def test_warm_start_continues(self, moons, fast):
        X, y = moons
        warm = GatedAttentionClassifier(**fast, warm_start=True).fit(X, y)
        first = warm.loss_curve_[:]
        weights = [p.detach().clone() for p in warm.net_.module_.parameters()]
        warm.fit(X, y)
        assert warm.n_iter_ == 2 * fast["max_epochs"]
        assert warm.loss_curve_[: len(first)] == first
        assert warm.loss_curve_[-1] < first[0]
        cold = GatedAttentionClassifier(**fast).fit(X, y)
        restarted = clone(cold).fit(X, y)
        np.testing.assert_array_equal(cold.predict_proba(X), restarted.predict_proba(X))
        assert not all(
            torch.equal(a, b)
            for a, b in zip(weights, warm.net_.module_.parameters(), strict=True)
        )

    def test_warm_start_needs_the_same_classes_and_features(self, moons, fast):
        X, y = moons
        warm = GatedAttentionClassifier(**fast, warm_start=True).fit(X, y)
        with pytest.raises(ValueError, match="must hold its classes \\[0, 1\\]"):
            warm.fit(X, np.where(y == 1, 2, 0))
        with pytest.raises(ValueError, match="X has 3 features"):
            warm.fit(np.c_[X, X[:, 0]], y)
        assert warm.n_iter_ == fast["max_epochs"]  # the failed fits left it whole

    def test_partial_fit_is_one_epoch_and_keeps_the_optimizer(self, moons, fast):
        X, y = moons
        clf = GatedAttentionClassifier(**fast)
        clf.partial_fit(X, y, classes=[0, 1])
        optimizer = clf.net_.optimizer_
        step = float(optimizer.state_dict()["state"][0]["step"])
        clf.partial_fit(X, y)
        assert clf.net_.optimizer_ is optimizer
        assert float(optimizer.state_dict()["state"][0]["step"]) == 2 * step
        assert clf.n_iter_ == 2 == len(clf.loss_curve_)
        # two partial fits are the first two epochs of one fit
        two = GatedAttentionClassifier(**{**fast, "max_epochs": 2}).fit(X, y)
        np.testing.assert_allclose(
            clf.loss_curve_[0], two.loss_curve_[0], rtol=0, atol=0
        )

    def test_partial_fit_takes_mlps_parameters_in_mlps_order(self, moons, fast):
        import inspect

        from sklearn.neural_network import MLPClassifier, MLPRegressor

        for ours, theirs in (
            (GatedAttentionClassifier, MLPClassifier),
            (GatedAttentionRegressor, MLPRegressor),
        ):
            names = list(inspect.signature(ours.partial_fit).parameters)
            assert names == list(inspect.signature(theirs.partial_fit).parameters)
        X, y = moons
        weight = np.where(y == 1, 3.0, 1.0)
        by_name = GatedAttentionClassifier(**fast).partial_fit(
            X, y, sample_weight=weight, classes=[0, 1]
        )
        in_order = GatedAttentionClassifier(**fast).partial_fit(X, y, weight, [0, 1])
        assert by_name.loss_curve_ == in_order.loss_curve_

    def test_partial_fit_classes(self, moons, fast):
        X, y = moons
        clf = GatedAttentionClassifier(**fast)
        with pytest.raises(ValueError, match="classes must be passed on the first"):
            clf.partial_fit(X, y)
        clf.partial_fit(X[y == 0], y[y == 0], classes=[0, 1, 2])
        assert list(clf.classes_) == [0, 1, 2]
        assert clf.predict_proba(X).shape == (len(X), 3)
        with pytest.raises(ValueError, match="differs from the classes of the first"):
            clf.partial_fit(X, y, classes=[0, 1])
        with pytest.raises(ValueError, match="labels \\[7\\] that are not in"):
            clf.partial_fit(X, np.full(len(y), 7))
        with pytest.raises(ValueError, match="X has 1 features"):
            clf.partial_fit(X[:, :1], y)
        assert clf.n_iter_ == 1

    def test_partial_fit_after_early_stopping_just_trains(self, moons, fast):
        clf = GatedAttentionClassifier(
            **{**fast, "max_epochs": 50}, early_stopping=True, n_iter_no_change=2
        ).fit(*moons)
        epochs, scores = clf.n_iter_, list(clf.validation_scores_)
        clf.partial_fit(*moons)
        clf.partial_fit(*moons)
        assert clf.n_iter_ == epochs + 2
        assert clf.validation_scores_ == scores  # no validation in partial_fit
        assert "validation_score" not in dict(clf.net_.callbacks_)

    def test_regressor_partial_fit(self, fast):
        from sklearn.datasets import make_friedman1

        from skgate import GatedAttentionRegressor

        X, y = make_friedman1(200, random_state=0)
        reg = GatedAttentionRegressor(**fast)
        for _ in range(3):
            reg.partial_fit(X, y)
        assert reg.n_iter_ == 3
        assert reg.loss_curve_[-1] < reg.loss_curve_[0]
        with pytest.raises(ValueError, match="y has 2 output\\(s\\) but the fitted"):
            reg.partial_fit(X, np.c_[y, y])


def test_float64_copy_follows_the_weights(moons):
    """Predictions reuse one float64 copy of the network until its weights
    change: a partial_fit, or weights written by hand, are seen at once."""
    X, y = moons
    clf = GatedAttentionClassifier(max_epochs=2, d_model=8, random_state=0).fit(X, y)
    first = clf.predict_proba(X)
    assert clf._float64_module() is clf._float64_module()
    clf.partial_fit(X, y)
    second = clf.predict_proba(X)
    assert not np.array_equal(first, second)
    with torch.no_grad():
        clf.net_.module_.head[2].bias[1] += 10.0  # class 1 everywhere
    assert (clf.predict(X) == clf.classes_[1]).all()


@pytest.mark.parametrize("weighted", [False, True])
def test_validation_score_is_accuracy_score(weighted):
    """Early stopping scores held-out rows without sklearn's input checks;
    the number must be accuracy_score's, to the bit."""
    from types import SimpleNamespace

    from sklearn.metrics import accuracy_score

    generator = torch.Generator().manual_seed(0)
    clf = GatedAttentionClassifier()
    for n in (1, 7, 63, 200):
        outputs = torch.randn(n, 3, generator=generator)
        y = torch.randint(0, 3, (n,), generator=generator)
        w = 3 * torch.rand(n, generator=generator) if weighted else None
        got = clf._validation_score(outputs, SimpleNamespace(y=y, w=w))
        want = accuracy_score(
            y.numpy(),
            outputs.argmax(dim=1).numpy(),
            sample_weight=None if w is None else w.numpy(),
        )
        assert got == want


class TestArchitectureOptions:
    """n_heads, residual, norm and the sigmoid gates through the estimators."""

    @pytest.mark.parametrize(
        "options",
        [
            {"gate": "sigmoid"},
            {"gate": "sigmoid_head", "n_heads": 4},
            {"residual": True, "depth": 3},
            {"gate": "sigmoid", "n_heads": 2, "residual": True, "norm": "layer"},
        ],
        ids=repr,
    )
    def test_fit_and_exact_curvature_agrees_with_differences(self, moons, options):
        clf = GatedAttentionClassifier(**options, max_epochs=5, random_state=0)
        clf.fit(*moons)
        assert clf.score(*moons) > 0.8
        module = clf.net_.module_
        assert module.blocks[0].n_heads == options.get("n_heads", 1)
        assert module.blocks[0].residual is options.get("residual", False)
        X = moons[0][:20]
        exact = clf.curvature(X)
        differences = clf.curvature(X, method="finite_difference", eps=1e-3)
        np.testing.assert_allclose(exact, differences, rtol=1e-3)
        assert (exact > 1e-3).all()

    @pytest.mark.parametrize("depth", [1, 4])
    def test_residual_ungated_attention_stays_flat(self, moons, depth):
        clf = GatedAttentionClassifier(
            "none", residual=True, depth=depth, n_heads=4, max_epochs=3, random_state=0
        ).fit(*moons)
        assert clf.curvature(moons[0][:50]).max() < 1e-9

    def test_layer_norm_curves_ungated_attention(self, moons):
        clf = GatedAttentionClassifier(
            "none", residual=True, norm="layer", max_epochs=3, random_state=0
        ).fit(*moons)
        assert clf.curvature(moons[0][:50]).mean() > 1e-3

    @pytest.mark.parametrize(
        "options, match",
        [
            ({"norm": "layer"}, "needs residual blocks"),
            ({"n_heads": 5}, "d_model must be divisible by n_heads; got d_model=64"),
        ],
    )
    def test_bad_combinations_fail_at_fit(self, moons, options, match):
        with pytest.raises(ValueError, match=match):
            GatedAttentionClassifier(**options, max_epochs=1).fit(*moons)

    def test_same_random_state_same_model(self, moons):
        options = {"gate": "sigmoid_head", "n_heads": 4, "residual": True}
        first = GatedAttentionClassifier(
            **options, norm="layer", max_epochs=2, random_state=3
        ).fit(*moons)
        second = GatedAttentionClassifier(
            **options, norm="layer", max_epochs=2, random_state=3
        ).fit(*moons)
        np.testing.assert_array_equal(
            first.predict_proba(moons[0]), second.predict_proba(moons[0])
        )

    def test_every_architecture_trains_batched(self):
        from skgate._training import batchable

        for options in (
            {},
            {"gate": "sigmoid"},
            {"n_heads": 2},
            {"residual": True},
            {"residual": True, "norm": "layer"},
        ):
            assert batchable(GatedAttentionClassifier(**options))


class _RaiseOnBatch(Callback):
    """Raises in the middle of an epoch once ``armed``: after some weights moved."""

    def __init__(self, armed=False):
        self.armed = armed

    def on_batch_end(self, net, batch=None, training=None, **kwargs):
        if self.armed and training and len(net.history[-1]["batches"]) == 2:
            raise RuntimeError("a callback failed mid-epoch")


def _weights(estimator):
    return [p.detach().clone() for p in estimator.net_.module_.parameters()]


def _same_weights(first, second):
    return all(torch.equal(a, b) for a, b in zip(first, second, strict=True))


class TestHardeningRoundThree:
    """Defects found by hostile use (issue 25), pinned."""

    @pytest.mark.parametrize(
        "estimator", [GatedAttentionClassifier, GatedAttentionRegressor]
    )
    def test_a_diverging_warm_start_leaves_the_model_as_it_was(
        self, estimator, moons, fast
    ):
        X, y = moons
        model = estimator(**fast).fit(X, y)
        before, predictions = _weights(model), model.predict(X)
        curve, history = list(model.loss_curve_), len(model.history_)
        with pytest.raises(ValueError, match="Training diverged"):
            model.set_params(warm_start=True, lr=1e6).fit(X, y)
        assert _same_weights(before, _weights(model))
        np.testing.assert_array_equal(model.predict(X), predictions)
        assert model.loss_curve_ == curve and model.n_iter_ == len(curve)
        assert len(model.history_) == history

    def test_a_callback_failing_mid_epoch_changes_nothing(self, moons, fast):
        X, y = moons
        model = GatedAttentionClassifier(**fast).fit(X, y)
        proba, n_iter = model.predict_proba(X), model.n_iter_
        model.set_params(warm_start=True, callbacks=[_RaiseOnBatch(armed=True)])
        with pytest.raises(RuntimeError, match="mid-epoch"):
            model.fit(X, y)
        np.testing.assert_array_equal(model.predict_proba(X), proba)
        assert model.n_iter_ == n_iter

    def test_a_failed_partial_fit_restores_weights_optimizer_and_history(
        self, moons, fast
    ):
        X, y = moons
        model = GatedAttentionClassifier(
            **fast, callbacks=[("boom", _RaiseOnBatch())]
        ).partial_fit(X, y, classes=[0, 1])
        before, proba = _weights(model), model.predict_proba(X)
        optimizer = {
            k: v.clone()
            for k, v in model.net_.optimizer_.state_dict()["state"][0].items()
        }
        dict(model.net_.callbacks_)["boom"].armed = True
        with pytest.raises(RuntimeError, match="mid-epoch"):
            model.partial_fit(X, y)
        assert _same_weights(before, _weights(model))
        np.testing.assert_array_equal(model.predict_proba(X), proba)
        state = model.net_.optimizer_.state_dict()["state"][0]
        assert all(torch.equal(state[k], v) for k, v in optimizer.items())
        assert len(model.history_) == model.n_iter_ == 1
        dict(model.net_.callbacks_)["boom"].armed = False
        model.partial_fit(X, y)  # and it goes on from where it was
        assert len(model.history_) == model.n_iter_ == 2

    def test_a_diverging_partial_fit_leaves_no_nan_weights(self, moons, fast):
        X, y = moons
        model = GatedAttentionRegressor(**fast).partial_fit(X, y)
        before = _weights(model)
        with pytest.raises(ValueError, match="Training diverged"):
            model.partial_fit(X * 1e30, y)
        assert _same_weights(before, _weights(model))
        assert np.isfinite(model.predict(X)).all()
        assert len(model.history_) == model.n_iter_ == 1

    def test_warm_start_extends_validation_scores_with_the_loss_curve(
        self, moons, fast
    ):
        X, y = moons
        model = GatedAttentionClassifier(
            **{**fast, "max_epochs": 4},
            early_stopping=True,
            n_iter_no_change=50,
            warm_start=True,
        )
        model.fit(X, y)
        first = list(model.validation_scores_)
        model.fit(X, y)
        assert model.n_iter_ == len(model.loss_curve_) == 8
        assert len(model.validation_scores_) == 8
        assert model.validation_scores_[:4] == first
        assert model.best_validation_score_ == max(model.validation_scores_[4:])
        # After fits without early stopping, their epochs hold NaN.
        plain = GatedAttentionClassifier(**{**fast, "max_epochs": 2}).fit(X, y)
        plain.set_params(warm_start=True, early_stopping=True, max_epochs=3).fit(X, y)
        assert len(plain.validation_scores_) == plain.n_iter_ == 5
        assert np.isnan(plain.validation_scores_[:2]).all()
        assert np.isfinite(plain.validation_scores_[2:]).all()
        # A fit without it and a partial fit leave the scores as they are;
        # the next fit with it fills their epochs with NaN, so the scores
        # stay one per epoch of loss_curve_.
        scores = list(plain.validation_scores_)
        plain.set_params(early_stopping=False, max_epochs=2).fit(X, y)
        assert plain.best_validation_score_ is None  # no score of these weights
        plain.partial_fit(X, y)
        assert plain.validation_scores_ == scores and plain.n_iter_ == 8
        plain.set_params(early_stopping=True).fit(X, y)
        assert len(plain.validation_scores_) == plain.n_iter_ == 10
        assert plain.validation_scores_[:5] == scores
        assert np.isnan(plain.validation_scores_[5:8]).all()
        assert np.isfinite(plain.validation_scores_[8:]).all()
        assert plain.best_validation_score_ == max(plain.validation_scores_[8:])
        # No epoch scored: no best score.
        none = GatedAttentionClassifier(**fast, early_stopping=True).set_params(
            max_epochs=0
        )
        assert none.fit(X, y).best_validation_score_ is None
        assert none.validation_scores_ == []

    @pytest.mark.parametrize(
        "weight, error, match",
        [
            ({0: -1.0, 1: 2.0}, ValueError, "class_weight\\[0\\] is -1.0; allowed: a"),
            ({0: -1, 1: 1}, ValueError, "class_weight\\[0\\] is -1; allowed"),
            ({0: np.nan, 1: 1}, ValueError, "class_weight\\[0\\] is nan; allowed"),
            ({0: np.inf, 1: 1}, ValueError, "class_weight\\[0\\] is inf; allowed"),
            ({0: "a", 1: 1}, TypeError, "class_weight\\[0\\] is 'a' of type str"),
            ({0: None, 1: 1}, TypeError, "class_weight\\[0\\] is None of type"),
            ({0: True, 1: 1}, TypeError, "class_weight\\[0\\] is True of type bool"),
        ],
    )
    def test_bad_class_weight_values_are_named(self, moons, fast, weight, error, match):
        with pytest.raises(error, match=match):
            GatedAttentionClassifier(class_weight=weight, **fast).fit(*moons)

    def test_a_zero_class_weight_leaves_its_class_out(self, moons, fast):
        X, y = moons
        zero = GatedAttentionClassifier(class_weight={0: 0.0}, **fast).fit(X, y)
        alone = GatedAttentionClassifier(**fast).fit(
            X, y, sample_weight=(y == 1).astype(float)
        )
        np.testing.assert_allclose(zero.predict_proba(X), alone.predict_proba(X))

    def test_regressor_early_stopping_needs_two_validation_rows(self, fast):
        X = np.random.RandomState(0).normal(size=(10, 2))
        with pytest.raises(ValueError, match="at least 2 rows \\(R\\^2 needs 2\\)"):
            GatedAttentionRegressor(**fast, early_stopping=True).fit(X, X[:, 0])

    def test_early_stopping_names_a_class_of_one_row(self, moons, fast):
        X, y = moons
        y = np.where(np.arange(len(y)) == 0, 2, y)
        with pytest.raises(ValueError, match="early_stopping=True holds out a strat"):
            GatedAttentionClassifier(**fast, early_stopping=True).fit(X, y)
        with pytest.raises(ValueError, match="the classes \\[2\\] have 1 row"):
            GatedAttentionClassifier(**fast, early_stopping=True).fit(X, y)

    def test_the_regressor_names_itself_for_an_unknown_parameter(self):
        with pytest.raises(
            TypeError,
            match="GatedAttentionRegressor.__init__\\(\\) got an unexpected .*'class_w",
        ):
            GatedAttentionRegressor(class_weight="balanced")


def _skorch_callbacks(directory, validation):
    from skorch.callbacks import (
        Checkpoint,
        EarlyStopping,
        EpochScoring,
        GradientNormClipping,
        ProgressBar,
    )

    callbacks = [
        EpochScoring("accuracy", on_train=True, name="train_acc"),
        EpochScoring("accuracy", on_train=True, use_caching=False, name="train_acc2"),
        LRScheduler(policy="StepLR", step_size=1, gamma=0.5),
        GradientNormClipping(gradient_clip_value=1.0),
        ProgressBar(),
    ]
    if validation:
        callbacks += [
            EpochScoring("accuracy", name="valid_acc2"),
            EarlyStopping(patience=50),
            Checkpoint(dirname=str(directory)),
        ]
    return callbacks


class TestSkorchCallbacks:
    """The callbacks a skorch user passes, in fit, warm start and partial_fit."""

    @pytest.mark.parametrize("validation", [False, True])
    @pytest.mark.parametrize("weighted", [False, True])
    def test_in_fit_warm_start_and_partial_fit(
        self, moons, fast, tmp_path, validation, weighted
    ):
        X, y = moons
        w = np.linspace(0.5, 1.5, len(y)) if weighted else None
        model = GatedAttentionClassifier(
            **{**fast, "max_epochs": 3},
            early_stopping=validation,
            callbacks=_skorch_callbacks(tmp_path, validation),
        ).fit(X, y, sample_weight=w)
        last = model.history_[-1]
        # EpochScoring on the training rows, cached or predicted anew, agree
        assert 0.5 <= last["train_acc"] <= 1
        assert last["train_acc"] == pytest.approx(last["train_acc2"], abs=0.05)
        rates = [group["lr"] for group in model.net_.optimizer_.param_groups]
        assert rates == [pytest.approx(fast.get("lr", 2e-3) * 0.5**3)]
        if validation:
            assert 0 <= last["valid_acc2"] <= 1
            assert (tmp_path / "params.pt").exists()  # Checkpoint wrote the best
        model.set_params(warm_start=True).fit(X, y, sample_weight=w)
        # A warm start's new optimizer and history: the schedule starts again.
        assert len(model.history_) == 3 and model.n_iter_ == 6
        rates = [group["lr"] for group in model.net_.optimizer_.param_groups]
        assert rates == [pytest.approx(fast.get("lr", 2e-3) * 0.5**3)]
        model.partial_fit(X, y, sample_weight=w)
        assert model.n_iter_ == 7 and len(model.history_) == 4
        assert "train_acc" in model.history_[-1]


class TestCallbacksInTheOneLoop:
    """skorch's callbacks run in skgate's one training loop: those that do
    not change training leave its bits alone, those that do change it as
    they say."""

    def _fit(self, X, y, callbacks=None, **params):
        params = {"max_epochs": 3, "d_model": 8, "random_state": 0, **params}
        return GatedAttentionClassifier(callbacks=callbacks, **params).fit(X, y)

    def _weights(self, model):
        return [p.detach().clone() for p in model.net_.module_.parameters()]

    def _same(self, a, b):
        return all(
            torch.equal(p, q)
            for p, q in zip(self._weights(a), self._weights(b), strict=True)
        )

    def test_observers_change_no_bit(self, moons, tmp_path):
        from skorch.callbacks import (
            Checkpoint,
            EpochScoring,
            GradientNormClipping,
            PrintLog,
            ProgressBar,
        )

        X, y = moons
        plain = self._fit(X, y, early_stopping=True)
        observed = self._fit(
            X,
            y,
            [
                EpochScoring("accuracy", on_train=True, name="train_acc"),
                EpochScoring("accuracy", name="held_out_acc"),
                GradientNormClipping(gradient_clip_value=1e30),
                ProgressBar(),
                Checkpoint(dirname=str(tmp_path)),
                ("log", PrintLog()),
            ],
            early_stopping=True,
        )
        assert self._same(plain, observed)
        assert plain.loss_curve_ == observed.loss_curve_
        assert plain.validation_scores_ == observed.validation_scores_
        assert len(observed.history_[:, "held_out_acc"]) == 3

    @pytest.mark.parametrize("early_stopping", [False, True])
    def test_the_history_is_skorchs_with_or_without_callbacks(
        self, moons, early_stopping
    ):
        """A fit without callbacks records the history a fit with callbacks
        does (skorch's keys, batches and counts); only durations differ."""
        X, y = moons
        plain = self._fit(X, y, early_stopping=early_stopping)
        observed = self._fit(X, y, [Callback()], early_stopping=early_stopping)
        assert len(plain.history_) == len(observed.history_) == 3
        for a, b in zip(plain.history_, observed.history_, strict=True):
            assert list(a) == list(b)
            assert {k: v for k, v in a.items() if k not in ("dur", "batches")} == {
                k: v for k, v in b.items() if k not in ("dur", "batches")
            }
            assert a["batches"] == b["batches"] and a["dur"] > 0
        keys = set(plain.history_[-1])
        assert {"epoch", "train_loss", "train_loss_best", "train_batch_count"} <= keys
        assert ("valid_loss_best" in keys) == early_stopping

    def test_the_epoch_loss_is_its_batches_mean_and_finite(self):
        """An epoch's train_loss is the row-weighted mean of its batches'
        losses, summed in float64 as skorch sums them: finite batch losses
        near float32's largest (inputs of 1e38) give a finite loss."""
        X, y = make_moons(200, noise=0.25, random_state=0)
        for scale in (1.0, 1e38):
            model = GatedAttentionClassifier(max_epochs=2, batch_size=32)
            model.set_params(random_state=0).fit(X * scale, y)
            for epoch, loss in zip(model.history_, model.loss_curve_, strict=True):
                losses = [b["train_loss"] for b in epoch["batches"]]
                rows = [b["train_batch_size"] for b in epoch["batches"]]
                assert np.isfinite(losses).all()
                if scale > 1:  # the case: their float32 sum overflows
                    products = np.float32(losses) * np.float32(rows)
                    with np.errstate(over="ignore"):
                        assert np.isinf(products.sum(dtype=np.float32))
                assert np.isfinite(loss) and loss == epoch["train_loss"]
                expected = np.average(losses, weights=rows)
                np.testing.assert_allclose(loss, expected, rtol=1e-12)

    def test_best_validation_score_is_the_held_weights_score(self):
        """A callback that loads other weights at the end (skorch's
        EarlyStopping(load_best=True): the least validation loss) leaves the
        score of the weights the model holds as best_validation_score_."""
        X, y = make_moons(200, noise=0.25, random_state=0)

        class Snapshots(Callback):
            def initialize(self):
                self.weights_ = []
                return self

            def on_epoch_end(self, net, **kwargs):
                self.weights_.append(
                    [w.detach().clone() for w in net.module_.parameters()]
                )

        model = GatedAttentionClassifier(
            early_stopping=True,
            n_iter_no_change=100,
            max_epochs=40,
            batch_size=32,
            random_state=0,
            callbacks=[Snapshots(), EarlyStopping(patience=3, load_best=True)],
        ).fit(X, y)
        snapshots = dict(model.net_.callbacks_)["Snapshots"]
        held = _weights(model)
        epochs = [
            e
            for e, weights in enumerate(snapshots.weights_)
            if _same_weights(weights, held)
        ]
        assert epochs, "the held weights are one epoch's"
        scores = model.validation_scores_
        assert model.best_validation_score_ == scores[epochs[0]]
        # The loop's own best (the highest score) is another epoch here, so
        # the test would fail if the attribute kept it.
        assert max(scores) != scores[epochs[0]]

    def test_adamw_settings_a_callback_sets_are_used_or_refused(self, moons):
        X, y = moons

        class SetAdamW(Callback):
            def __init__(self, **settings):
                self.settings = settings

            def on_train_begin(self, net, **kwargs):
                net.optimizer_.param_groups[0].update(self.settings)

        plain = self._fit(X, y)
        same = self._fit(X, y, [SetAdamW(betas=(0.9, 0.999), eps=1e-8)])
        changed = self._fit(X, y, [SetAdamW(betas=(0.5, 0.9), eps=1e-3)])
        assert self._same(plain, same)
        assert not self._same(plain, changed)
        for flag in ("amsgrad", "maximize"):
            with pytest.raises(NotImplementedError, match=f"{flag}=True"):
                self._fit(X, y, [SetAdamW(**{flag: True})])

    def test_every_learnable_weight_shows_a_gradient(self, moons):
        """Over copied tokens query and key do not shape the output: their
        gradient is zero, as autograd gives it, not missing."""

        class Norms(Callback):
            def on_grad_computed(self, net, named_parameters, **kwargs):
                self.norms_ = {n: float(p.grad.norm()) for n, p in named_parameters}

        X, y = moons
        model = self._fit(X, y, [("norms", Norms())])
        norms = dict(model.net_.callbacks_)["norms"].norms_
        assert norms["blocks.0.query.weight"] == norms["blocks.0.key.weight"] == 0
        assert norms["blocks.0.value.weight"] > 0
        assert all(p.grad is None for p in model.net_.module_.parameters())

    def test_a_zero_learning_rate_from_a_scheduler_stops_the_weights(self, moons):
        X, y = moons
        scheduler = LRScheduler(policy="StepLR", step_size=1, gamma=0.0)
        scheduled = self._fit(X, y, [scheduler])
        one_epoch = self._fit(X, y, max_epochs=1)
        assert self._same(scheduled, one_epoch)  # epochs 2 and 3 at lr 0
        assert scheduled.n_iter_ == 3

    def test_clipped_gradients_are_the_ones_applied(self, moons):
        from skorch.callbacks import GradientNormClipping

        X, y = moons
        start = self._fit(X, y, max_epochs=0)
        plain = self._fit(X, y)
        clipped = self._fit(X, y, [GradientNormClipping(gradient_clip_value=1e-12)])

        def moved(model):
            return sum(
                float((a - b).abs().sum())
                for a, b in zip(self._weights(model), self._weights(start), strict=True)
            )

        # AdamW's step is scale-free until the gradient nears eps (1e-8):
        # gradients clipped to a norm of 1e-12 barely move the weights.
        assert moved(clipped) < 0.01 * moved(plain)

    def test_a_frozen_weight_does_not_move(self, moons):
        from skorch.callbacks import Freezer

        X, y = moons
        start = self._fit(X, y, max_epochs=0)
        frozen = self._fit(X, y, [Freezer("embed.*")])
        before = dict(start.net_.module_.named_parameters())
        after = dict(frozen.net_.module_.named_parameters())
        assert torch.equal(after["embed.weight"], before["embed.weight"])
        assert not torch.equal(after["head.0.weight"], before["head.0.weight"])

    def test_early_stopping_on_the_training_loss_ends_the_fit(self, moons):
        from skorch.callbacks import EarlyStopping

        X, y = moons
        # A threshold no epoch can meet: stops after patience + 1 epochs.
        stop = EarlyStopping(monitor="train_loss", patience=2, threshold=10.0)
        model = self._fit(X, y, [stop], max_epochs=10)
        assert model.n_iter_ == 3
        assert model.loss_curve_ == self._fit(X, y, max_epochs=3).loss_curve_


class TestContinuingWithChangedParameters:
    """A warm start or partial_fit trains the fitted network on with the
    estimator's current alpha, learning rate and weight decay, with or
    without callbacks; an architecture it cannot take is refused."""

    def _model(self, X, y, **params):
        params = {"max_epochs": 2, "d_model": 8, "random_state": 0, **params}
        return GatedAttentionClassifier(**params).fit(X, y)

    def test_a_changed_learning_rate_is_used_with_and_without_callbacks(self, moons):
        X, y = moons
        plain = self._model(X, y)
        observed = self._model(X, y, callbacks=[("noop", Callback())])
        for model in (plain, observed):
            model.set_params(lr=0.05, weight_decay=0.5).partial_fit(X, y)
            group = model.net_.optimizer_.param_groups[0]
            assert (group["lr"], group["weight_decay"]) == (0.05, 0.5)
        for a, b in zip(
            plain.net_.module_.parameters(),
            observed.net_.module_.parameters(),
            strict=True,
        ):
            assert torch.equal(a, b)
        unchanged = self._model(X, y).partial_fit(X, y)
        assert plain.loss_curve_[:2] == unchanged.loss_curve_[:2]
        assert plain.loss_curve_[2] != unchanged.loss_curve_[2]

    def test_a_changed_alpha_is_the_networks(self, moons):
        X, y = moons
        model = self._model(X, y, alpha=1.0)
        assert model.curvature(X[:20]).min() > 1e-6
        model.set_params(alpha=0.0, warm_start=True, max_epochs=0).fit(X, y)
        assert {block.alpha for block in model.net_.module_.blocks} == {0.0}
        # Ungated attention over copied tokens is affine: flat.
        assert model.curvature(X[:20]).max() < 1e-9

    def test_a_failed_continuation_restores_alpha_and_rates(self, moons):
        class Fails(Callback):
            def on_train_begin(self, net, **kwargs):
                raise RuntimeError("callback failed")

        X, y = moons
        model = self._model(X, y, alpha=1.0)
        before = model.predict_proba(X)
        model.set_params(alpha=0.0, lr=0.5, weight_decay=0.5, callbacks=[Fails()])
        with pytest.raises(RuntimeError, match="callback failed"):
            model.partial_fit(X, y)
        assert {block.alpha for block in model.net_.module_.blocks} == {1.0}
        assert (model.net_.lr, model.net_.optimizer__weight_decay) == (2e-3, 1e-2)
        group = model.net_.optimizer_.param_groups[0]
        assert (group["lr"], group["weight_decay"]) == (2e-3, 1e-2)
        np.testing.assert_array_equal(model.predict_proba(X), before)

    def test_a_changed_architecture_is_refused_and_changes_nothing(self, moons):
        X, y = moons
        model = self._model(X, y)
        before = model.predict_proba(X)
        model.set_params(d_model=16, depth=2, warm_start=True)
        with pytest.raises(ValueError, match="depth=2 \\(built with 1\\), d_model=16"):
            model.fit(X, y)
        with pytest.raises(ValueError, match="architecture cannot change"):
            model.partial_fit(X, y)
        np.testing.assert_array_equal(model.predict_proba(X), before)


def test_partial_fit_names_classes_of_one_label(moons):
    X, y = moons
    with pytest.raises(ValueError, match=r"classes=\[0\] has 1 class \(0\)"):
        GatedAttentionClassifier().partial_fit(X, y, classes=[0])


class TestUserGates:
    """A gate registered with skgate.nn.register_gate (conftest.USER_GATES)
    works in fit, parameter validation, the CV batches and the curvature."""

    @pytest.mark.parametrize("gate", ["softplus_user", "erf_head_user", "tanh_user"])
    def test_fit_predict_and_exact_curvature(self, moons, fast, gate):
        X, y = moons
        clf = GatedAttentionClassifier(gate, n_heads=4, **fast).fit(X, y)
        assert clf.score(X, y) > 0.7
        exact = clf.curvature(X[:20])
        differences = clf.curvature(X[:20], method="finite_difference", eps=1e-3)
        np.testing.assert_allclose(exact, differences, rtol=1e-3, atol=1e-8)
        assert exact.min() > 0

    def test_an_unregistered_gate_is_refused_with_the_registered_ones(self, moons):
        with pytest.raises(ValueError, match="'gate' parameter .*'softplus_user'"):
            GatedAttentionClassifier("softplus_unknown").fit(*moons)

    def test_the_cv_batch_trains_a_user_gate_as_fit_does(self, fast):
        from sklearn.model_selection import StratifiedKFold

        from skgate import GatedAttentionClassifierCV, curvature_score

        X, y = make_curved_task(150, shape="checkerboard", random_state=0)
        cv = StratifiedKFold(3)
        alphas = (0.0, 1.0)
        search = GatedAttentionClassifierCV(
            alphas, cv=cv, gate="softplus_user", **fast
        ).fit(X, y)
        grid = GridSearchCV(
            GatedAttentionClassifier("softplus_user", **fast),
            {"alpha": list(alphas)},
            cv=cv,
            scoring={"accuracy": "accuracy", "curvature": curvature_score},
            refit="accuracy",
        ).fit(X, y)
        for key in ("split0_test_accuracy", "split2_test_curvature"):
            np.testing.assert_array_equal(
                search.cv_results_[key], grid.cv_results_[key]
            )
        assert search.cv_results_["split0_test_curvature"][0] < 1e-9  # alpha 0: flat

    def test_alpha_is_searched_only_for_a_gate_with_strength(self):
        from skgate import GatedAttentionClassifierCV

        X, y = make_curved_task(60, random_state=0)
        with pytest.raises(ValueError, match="with gate='tanh_user' alpha has no"):
            GatedAttentionClassifierCV((0.0, 1.0), gate="tanh_user").fit(X, y)


def test_a_parameter_the_engine_does_not_implement_fails_loudly(moons, fast):
    from skgate._design import net_parameters
    from skgate._training import TRAINING_PARAMETERS

    for estimator in (GatedAttentionClassifier, GatedAttentionRegressor):
        known = set(net_parameters(estimator)) | set(TRAINING_PARAMETERS)
        assert set(estimator().get_params()) <= known  # class_weight included

    class WithMomentum(GatedAttentionClassifier):
        def __init__(self, momentum=0.9, **kwargs):
            super().__init__(**kwargs)
            self.momentum = momentum

    with pytest.raises(NotImplementedError, match="\\['momentum'\\], which skgate"):
        WithMomentum(**fast).fit(*moons)


@pytest.mark.parametrize("attention", ["fixed", "fixed-causal"])
@pytest.mark.parametrize("residual", [False, True])
def test_fixed_attention_keeps_trained_ungated_sequences_flat(attention, residual):
    """The theorem's premise: with input-independent attention weights,
    trained ungated attention over sequences is affine in x (curvature below
    1e-9, acceleration and Gaussian), at depth 1 and 3; gated is curved, and
    its exact curvature agrees with finite differences."""
    from skgate import make_curved_task, representation_curvature

    X, y = make_curved_task(150, n_observations=3, random_state=0)
    # The plane of the latent centre (every observation moves alike).
    plane = np.kron(np.ones(3), np.eye(2)) / np.sqrt(3)
    for depth in (1, 3):
        params = {"token_dim": 2, "attention": attention, "residual": residual}
        params.update(depth=depth, max_epochs=3, d_model=16, random_state=0)
        flat = GatedAttentionClassifier("none", **params).fit(X, y)
        for kind in ("acceleration", "gaussian"):
            values = representation_curvature(flat, X[:20], kind=kind, directions=plane)
            assert np.abs(values).max() < 1e-9, (depth, kind)
        curved = GatedAttentionClassifier(**params).fit(X, y)
        exact = representation_curvature(curved, X[:20])
        assert exact.min() > 1e-4
        np.testing.assert_allclose(
            representation_curvature(curved, X[:20], method="finite_difference"),
            exact,
            rtol=1e-3,
        )
    # Softmax attention over the same sequences: curved even ungated.
    softmax = GatedAttentionClassifier(
        "none", token_dim=2, max_epochs=3, random_state=0
    )
    assert representation_curvature(softmax.fit(X, y), X[:20]).min() > 1e-6


@pytest.mark.parametrize(
    "Estimator", [GatedAttentionClassifier, GatedAttentionRegressor]
)
def test_representation_map_is_the_map_curvature_measures(Estimator):
    """geometry.curvature of the public map gives the estimator's curvature,
    bit for bit, at every layer; a bad layer is refused by name."""
    from skgate.geometry import curvature

    X, y = make_moons(40, noise=0.1, random_state=0)
    model = Estimator(max_epochs=2, d_model=8, random_state=0).fit(X, y)
    for layer in ("attention", 0):
        f = model.representation_map(layer)
        assert np.array_equal(curvature(f, X[:6]), model.curvature(X[:6], layer=layer))
    with pytest.raises(ValueError, match="layer"):
        model.representation_map("nowhere")


def test_a_subclass_sets_the_gate_gain():
    """The class attribute reaches the network (PyTorch's nn.Linear gain)."""

    class PyTorchGain(GatedAttentionClassifier):
        gate_gain = 1 / np.sqrt(3)

    X, y = make_moons(40, noise=0.1, random_state=0)
    model = PyTorchGain(max_epochs=1, d_model=8, random_state=0).fit(X, y)
    assert model.net_.module_.blocks[0].gate_gain == pytest.approx(1 / np.sqrt(3))
    assert "gate_gain" not in model.get_params()


@pytest.mark.parametrize(
    "Estimator", [GatedAttentionClassifier, GatedAttentionRegressor]
)
def test_representation_map_is_the_token_rms_of_the_representation(Estimator):
    """As its docstring says: representation / sqrt(n_tokens) at a layer with
    a token axis ("attention", a block index), the representation itself at
    "pooled" and "logits"."""
    X, y = make_moons(40, noise=0.1, random_state=0)
    model = Estimator(max_epochs=2, d_model=8, n_tokens=4, random_state=0).fit(X, y)
    x = torch.as_tensor(X[:6])
    for layer, scale in (("attention", 0.5), (0, 0.5), (-1, 0.5), ("pooled", 1.0)):
        got = model.representation_map(layer)(x).detach().numpy()
        want = model.representation(X[:6], layer) * scale
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    got = model.representation_map("logits")(x).detach().numpy()
    np.testing.assert_allclose(
        got.reshape(6, -1),
        model.representation(X[:6], "logits").reshape(6, -1),
        rtol=1e-12,
        atol=1e-14,
    )


@pytest.mark.parametrize(
    "Estimator", [GatedAttentionClassifier, GatedAttentionRegressor]
)
def test_representation_map_refuses_float32_and_arrays_by_name(Estimator):
    X, y = make_moons(40, noise=0.1, random_state=0)
    f = Estimator(max_epochs=1, d_model=8, random_state=0).fit(X, y)
    f = f.representation_map()
    allowed = r"^x must be a torch tensor of dtype torch.float64 .* shape \(n, 2\)"
    with pytest.raises(TypeError, match=allowed + "; got a tensor of dtype torch"):
        f(torch.as_tensor(X[:3], dtype=torch.float32))
    with pytest.raises(TypeError, match=allowed + "; got numpy.ndarray"):
        f(X[:3])


def test_no_docstring_keeps_an_unfilled_placeholder():
    """A line ``{name}`` is what fill_docstring replaces: none is left in the
    estimators' docstrings (classes and public methods)."""
    import inspect
    import re

    from skgate import GatedAttentionClassifierCV, GatedAttentionRegressorCV

    placeholder = re.compile(r"^\s*\{\w+\}\s*$", re.MULTILINE)
    estimators = (
        GatedAttentionClassifier,
        GatedAttentionRegressor,
        GatedAttentionClassifierCV,
        GatedAttentionRegressorCV,
    )
    checked = 0
    for estimator in estimators:
        members = [("class", estimator)] + [
            (name, member)
            for name, member in inspect.getmembers(estimator)
            if not name.startswith("_") and callable(member)
        ]
        for name, member in members:
            doc = inspect.getdoc(member) or ""
            assert not placeholder.search(doc), f"{estimator.__name__}.{name}"
            checked += 1
    assert checked > 40
    # The check finds one: the placeholder fill_docstring would fill.
    assert placeholder.search("Parameters\n----------\n    {layer}\n")


def test_a_subclass_gate_gain_survives_clone_and_grid_search():
    """The documented way (a subclass): clone and GridSearchCV keep the
    class, so its gain; an instance attribute is not a parameter and is
    dropped by clone, as the class docstring says."""
    from skgate.nn import GATE_GAIN

    class Small(GatedAttentionClassifier):
        gate_gain = 0.5

    X, y = make_moons(40, noise=0.1, random_state=0)
    model = Small(max_epochs=1, d_model=8, random_state=0)
    assert type(clone(model)) is Small and clone(model).gate_gain == 0.5
    search = GridSearchCV(model, {"alpha": [0.5, 1.0]}, cv=2).fit(X, y)
    best = search.best_estimator_
    assert type(best) is Small
    assert best.net_.module_.blocks[0].gate_gain == 0.5
    alone = clone(model).set_params(**search.best_params_).fit(X, y)
    np.testing.assert_array_equal(best.predict_proba(X), alone.predict_proba(X))

    instance = GatedAttentionClassifier()
    instance.gate_gain = 0.5
    assert clone(instance).gate_gain == GATE_GAIN != 0.5


def _skorch_entry_points(net, X, y):
    """Each of skorch's ways to train or reset a net, by name: called on the
    net, and through skorch's class (which bypasses a subclass's override of
    that method)."""
    from skorch import NeuralNet

    Xt, yt = torch.as_tensor(X, dtype=torch.float32), torch.as_tensor(y)
    batch = (Xt[:8], yt[:8])
    loader = net.get_iterator(net.get_dataset(Xt, yt), training=True)
    return {
        "fit": lambda: net.fit(Xt, yt),
        "partial_fit": lambda: net.partial_fit(Xt, yt),
        "fit_loop": lambda: net.fit_loop(Xt, yt),
        "initialize": lambda: net.initialize(),
        "initialize_module": lambda: net.initialize_module(),
        "initialize_optimizer": lambda: net.initialize_optimizer(),
        "initialize_criterion": lambda: net.initialize_criterion(),
        "initialize_history": lambda: net.initialize_history(),
        "set_params(module__alpha=0)": lambda: net.set_params(module__alpha=0.0),
        "train_step": lambda: net.train_step(batch),
        "run_single_epoch": lambda: net.run_single_epoch(
            loader, training=True, prefix="train", step_fn=net.train_step
        ),
        "NeuralNet.fit": lambda: NeuralNet.fit(net, Xt, yt),
        "NeuralNet.partial_fit": lambda: NeuralNet.partial_fit(net, Xt, yt),
        "NeuralNet.fit_loop": lambda: NeuralNet.fit_loop(net, Xt, yt),
        "NeuralNet.initialize": lambda: NeuralNet.initialize(net),
        "NeuralNet.initialize_module": lambda: NeuralNet.initialize_module(net),
        "NeuralNet.initialize_optimizer": lambda: NeuralNet.initialize_optimizer(net),
        "NeuralNet.initialize_criterion": lambda: NeuralNet.initialize_criterion(net),
        "NeuralNet.initialize_history": lambda: NeuralNet.initialize_history(net),
        "trim_for_prediction": lambda: net.trim_for_prediction(),
        "NeuralNet.train_step": lambda: NeuralNet.train_step(net, batch),
        "NeuralNet.run_single_epoch": lambda: NeuralNet.run_single_epoch(
            net,
            loader,
            training=True,
            prefix="train",
            step_fn=lambda b: NeuralNet.train_step(net, b),
        ),
    }


#: skorch's ways to train or reset a net (:func:`_skorch_entry_points`).
_ENTRY_POINTS = [
    "fit",
    "partial_fit",
    "fit_loop",
    "initialize",
    "initialize_module",
    "initialize_optimizer",
    "initialize_criterion",
    "initialize_history",
    "set_params(module__alpha=0)",
    "train_step",
    "run_single_epoch",
    "NeuralNet.fit",
    "NeuralNet.partial_fit",
    "NeuralNet.fit_loop",
    "NeuralNet.initialize",
    "NeuralNet.initialize_module",
    "NeuralNet.initialize_optimizer",
    "NeuralNet.initialize_criterion",
    "NeuralNet.initialize_history",
    "trim_for_prediction",
    "NeuralNet.train_step",
    "NeuralNet.run_single_epoch",
]


@pytest.mark.parametrize("entry", _ENTRY_POINTS)
@pytest.mark.parametrize(
    "Estimator", [GatedAttentionClassifier, GatedAttentionRegressor]
)
def test_skorchs_own_training_and_reset_are_closed(moons, fast, Estimator, entry):
    """net_ is the fitted container; skorch's loop, its steps and its
    initialize (which empties the history) would leave history_, loss_curve_
    and n_iter_ apart from the weights. Each refuses in one line, on the net
    and through skorch's class, and changes nothing: weights, predictions,
    history and counters."""
    X, y = moons
    model = Estimator(**fast).fit(X, y)
    net = model.net_
    before = model.predict(X)
    weights = [w.detach().clone() for w in net.module_.parameters()]
    target = y if Estimator is GatedAttentionClassifier else y.astype(np.float32)
    call = _skorch_entry_points(net, X, target)[entry]
    closed = r"^net_\.\S+ (is|and net_\.fit_loop are) closed: .* partial_fit"
    with pytest.raises(TypeError, match=closed):
        call()
    np.testing.assert_array_equal(model.predict(X), before)
    assert all(
        torch.equal(a, b)
        for a, b in zip(weights, net.module_.parameters(), strict=True)
    )
    n = fast["max_epochs"]
    assert len(model.history_) == len(model.loss_curve_) == model.n_iter_ == n
    assert model.history_ is net.history
    # The estimator still trains through its own loop, afterwards too.
    model.partial_fit(X, y)
    assert len(model.history_) == len(model.loss_curve_) == model.n_iter_ == n + 1


def test_a_pickled_net_stays_closed(moons, fast):
    """A model saved and loaded keeps its net closed to skorch's training."""
    X, y = moons
    model = pickle.loads(pickle.dumps(GatedAttentionClassifier(**fast).fit(X, y)))
    with pytest.raises(TypeError, match="net_.initialize and net_.fit_loop are closed"):
        model.net_.initialize()
    assert len(model.history_) == model.n_iter_

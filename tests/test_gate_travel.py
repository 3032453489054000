"""A user gate travels with its models: to joblib's worker processes, through
pickle into a fresh interpreter, and past later registrations of its name."""

import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_validate

from skgate import GatedAttentionClassifier, GatedAttentionClassifierCV, compare_gates
from skgate.nn import GATES, GatedAttentionBlock, register_gate, unregister_gate

ATAN_1 = float(torch.atan(torch.tensor(1.0)))
FAST = {"max_epochs": 3, "d_model": 8, "token_dim": 1, "random_state": 0}


def _arctan(scale=1.0):
    """A strength gate 1 + alpha * scale * arctan(z), written as lambdas
    (a user's gate defined in a script or a notebook)."""
    return {
        "form": "projected",
        "activation": lambda z: scale * torch.atan(z),
        "derivative": lambda z: scale / (1 + z**2),
        "second_derivative": lambda z: -2 * scale * z / (1 + z**2) ** 2,
        "strength": True,
    }


@pytest.fixture
def arctan():
    """The gate "arctan_travel", registered for one test and removed after."""
    register_gate("arctan_travel", **_arctan())
    yield "arctan_travel"
    if "arctan_travel" in GATES:
        unregister_gate("arctan_travel")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    return X, (X[:, 0] * X[:, 1] > 0).astype(int)


class TestRegistration:
    def test_a_taken_name_needs_overwrite(self, arctan):
        with pytest.raises(ValueError, match="'arctan_travel' is already regis.*"
                           "overwrite=True"):  # fmt: skip
            register_gate(arctan, **_arctan(2.0))
        assert GATES[arctan].activation(torch.tensor(1.0)).item() == pytest.approx(
            ATAN_1
        )
        register_gate(arctan, **_arctan(2.0), overwrite=True)
        assert GATES[arctan].activation(torch.tensor(1.0)).item() == pytest.approx(
            2 * ATAN_1
        )

    def test_overwrite_must_be_a_bool(self, arctan):
        with pytest.raises(TypeError, match="overwrite must be a bool; got 'yes'"):
            register_gate(arctan, **_arctan(), overwrite="yes")

    def test_a_fitted_model_keeps_its_gate(self, arctan, data):
        """Re-registering the name changes new models, not a fitted one."""
        X, y = data
        model = GatedAttentionClassifier(arctan, alpha=1.5, **FAST).fit(X, y)
        before = model.predict_proba(X)
        register_gate(arctan, **_arctan(3.0), overwrite=True)
        np.testing.assert_array_equal(model.predict_proba(X), before)
        refit = clone(model).fit(X, y)
        assert np.abs(refit.predict_proba(X) - before).max() > 1e-4

    def test_a_built_block_keeps_its_gate(self, arctan):
        block = GatedAttentionBlock(4, arctan)
        h = torch.randn(2, 3, 4)
        before = block(h)
        unregister_gate(arctan)
        torch.testing.assert_close(block(h), before, rtol=0, atol=0)
        with pytest.raises(ValueError, match="registered gates"):
            GatedAttentionBlock(4, arctan)

    def test_unregistering(self, arctan, data):
        X, y = data
        model = GatedAttentionClassifier(arctan, **FAST).fit(X, y)
        before = model.predict_proba(X)
        assert unregister_gate(arctan).name == arctan
        assert arctan not in GATES
        np.testing.assert_array_equal(model.predict_proba(X), before)
        with pytest.raises(ValueError, match="'gate' parameter"):
            clone(model).fit(X, y)

    @pytest.mark.parametrize(
        "name, match",
        [
            ("silu", "built-in gate, which cannot be removed"),
            (
                "no_such_gate",
                r"added with register_gate \(registered now: \[.*\]\); "
                "got 'no_such_gate'",
            ),  # fmt: skip
            (3, "got 3"),
        ],
    )
    def test_unregistering_refuses(self, name, match):
        with pytest.raises(ValueError, match=match):
            unregister_gate(name)

    def test_copies_share_the_gate(self, arctan):
        import copy

        block = GatedAttentionBlock(4, arctan)
        assert copy.deepcopy(block).gate_kind is block.gate_kind


class TestTravel:
    def test_unpickling_brings_the_pickles_gate(self, arctan, data):
        """Unpickled where the name now means another gate, a model computes
        with its own, which becomes the registered one (with a warning), so
        refitting a clone fits the model's gate; the same definition is
        taken silently."""
        import warnings

        X, y = data
        model = GatedAttentionClassifier(arctan, alpha=1.5, **FAST).fit(X, y)
        blob = pickle.dumps(model)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            pickle.loads(blob)  # the same definition: nothing to say
        register_gate(arctan, **_arctan(3.0), overwrite=True)
        with pytest.warns(UserWarning, match="replaced the different gate"):
            loaded = pickle.loads(blob)
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
        assert GATES[arctan].activation(torch.tensor(1.0)).item() == pytest.approx(
            ATAN_1
        )
        refit = clone(loaded).fit(X, y)
        np.testing.assert_array_equal(refit.predict_proba(X), model.predict_proba(X))

    def test_reused_workers_fit_the_gate_registered_now(self, arctan, data):
        """Worker processes outlive a search: after overwrite=True the next
        search with n_jobs=2 fits the new gate, as n_jobs=1 does."""
        X, y = data
        grid = {"alpha": [0.0, 1.0]}
        model = GatedAttentionClassifier(arctan, **FAST)
        GridSearchCV(model, grid, cv=2, n_jobs=2).fit(X, y)  # workers learn "old"
        register_gate(arctan, **_arctan(3.0), overwrite=True)
        serial = GridSearchCV(model, grid, cv=2).fit(X, y)
        parallel = GridSearchCV(model, grid, cv=2, n_jobs=2).fit(X, y)
        np.testing.assert_array_equal(
            parallel.cv_results_["mean_test_score"],
            serial.cv_results_["mean_test_score"],
        )

    @pytest.mark.slow
    def test_a_fresh_process_loads_predicts_and_refits(self, tmp_path):
        """A model whose gate is lambdas of a script's __main__ loads in a
        process that never registered it, predicts the same numbers, and can
        be cloned and refitted there."""
        fit = textwrap.dedent(f"""
            import pickle, sys
            import numpy as np, torch
            from skgate import GatedAttentionClassifier
            from skgate.nn import register_gate
            register_gate(
                "arctan_main",
                form="projected",
                activation=torch.atan,
                derivative=lambda z: 1 / (1 + z**2),
                second_derivative=lambda z: -2 * z / (1 + z**2) ** 2,
                strength=True,
            )
            rng = np.random.default_rng(0)
            X = rng.normal(size=(60, 2))
            y = (X[:, 0] * X[:, 1] > 0).astype(int)
            model = GatedAttentionClassifier("arctan_main", **{FAST!r}).fit(X, y)
            pickle.dump((model, X, y, model.predict_proba(X)), open(sys.argv[1], "wb"))
        """)
        load = textwrap.dedent("""
            import pickle, sys
            import numpy as np
            from sklearn.base import clone
            from skgate.nn import GATES
            assert "arctan_main" not in GATES
            model, X, y, proba = pickle.load(open(sys.argv[1], "rb"))
            np.testing.assert_array_equal(model.predict_proba(X), proba)
            assert "arctan_main" in GATES
            refit = clone(model).fit(X, y)
            np.testing.assert_array_equal(refit.predict_proba(X), proba)
            print("ok")
        """)
        path = tmp_path / "model.pkl"
        for script in (fit, load):
            done = subprocess.run(
                [sys.executable, "-c", script, str(path)],
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "ok"

    @pytest.mark.slow  # end to end: make test-slow
    def test_grid_search_in_worker_processes(self, arctan, data):
        X, y = data
        grid = {"alpha": [0.0, 1.0]}
        model = GatedAttentionClassifier(arctan, **FAST)
        serial = GridSearchCV(model, grid, cv=2).fit(X, y)
        parallel = GridSearchCV(model, grid, cv=2, n_jobs=2).fit(X, y)
        np.testing.assert_array_equal(
            parallel.cv_results_["mean_test_score"],
            serial.cv_results_["mean_test_score"],
        )

    def test_fitted_models_return_from_workers(self, arctan, data):
        X, y = data
        model = GatedAttentionClassifier(arctan, **FAST)
        result = cross_validate(model, X, y, cv=2, n_jobs=2, return_estimator=True)
        serial = cross_validate(model, X, y, cv=2, return_estimator=True)
        for got, want in zip(result["estimator"], serial["estimator"], strict=True):
            np.testing.assert_array_equal(got.predict_proba(X), want.predict_proba(X))

    def test_compare_gates_in_worker_processes(self, arctan, data):
        X, y = data
        settings = {"cv": 2, "n_repeats": 2, "gates": (arctan, "none"), **FAST}
        serial = compare_gates(X, y, **settings)
        parallel = compare_gates(X, y, n_jobs=2, **settings)
        np.testing.assert_array_equal(
            parallel.scores_["score"].to_numpy(), serial.scores_["score"].to_numpy()
        )

    def test_the_cv_estimator_carries_its_gate(self, arctan, data):
        X, y = data
        search = GatedAttentionClassifierCV(
            gate=arctan, alphas=[0.0, 1.0], cv=2, **FAST
        )
        state = search.__getstate__()
        assert state["_user_gate"] is GATES[arctan]
        loaded = pickle.loads(pickle.dumps(search))
        assert "_user_gate" not in vars(loaded)
        assert loaded.get_params() == search.get_params()


def test_threads_registering_one_name_one_wins():
    """Eight threads register the same new name at once: exactly one
    succeeds, the others are told the name is taken."""
    from concurrent.futures import ThreadPoolExecutor

    def attempt(_):
        try:
            register_gate("arctan_race", **_arctan())
            return "registered"
        except ValueError as exc:
            assert "already registered" in str(exc)
            return "refused"

    try:
        with ThreadPoolExecutor(8) as pool:
            outcomes = list(pool.map(attempt, range(8)))
        assert sorted(outcomes) == ["refused"] * 7 + ["registered"]
    finally:
        unregister_gate("arctan_race")

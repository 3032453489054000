"""The theorem's own setting: fixed attention over sequences, Fisher-Rao
curvature of multi-class outputs, and the tests and sentences built on them."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skgate import GatedAttentionClassifier, make_curved_task, representation_curvature

from study import primary, realdata, sweeps, theorem
from study.design import DEFAULTS, FISHER_TASKS, StudyDesign
from study.stats import HOLDS, REVERSED

ROOT = Path(__file__).resolve().parents[1]
TINY = {"n_samples": 120, "max_epochs": 2, "d_model": 8, "n_curvature": 15}


class TestMeasurements:
    @pytest.mark.parametrize("gate", ["multiplicative", "silu", "none"])
    @pytest.mark.parametrize("head", ["linear", "mlp"])
    def test_three_class_outputs_lie_on_the_sphere_itself(self, gate, head):
        """With three classes the image of a plane under 2 sqrt(p) is an open
        piece of the 2-sphere of radius 2: Gaussian curvature 1/4 whatever
        the model (a known value, not a fitted one)."""
        X, y = make_curved_task(150, shape="rings", n_classes=3, random_state=0)
        clf = GatedAttentionClassifier(
            gate, head=head, max_epochs=5, d_model=8, random_state=0
        ).fit(X, y)
        row = theorem.measure_fisher(clf, X, y, {**DEFAULTS, "n_curvature": 40})
        assert row["fisher_gaussian"] == pytest.approx(1 / 4, rel=1e-6)
        assert row["fisher_gaussian_excess"] < 1e-6
        # Every curve on the sphere bends at least as much as a great circle.
        assert row["fisher_extrinsic"] >= 1 / 2 - 1e-9

    def test_five_class_outputs_can_leave_the_spheres_curvature(self):
        X, y = make_curved_task(300, shape="rings", n_classes=5, random_state=0)
        clf = GatedAttentionClassifier(max_epochs=20, random_state=0).fit(X, y)
        row = theorem.measure_fisher(clf, X, y, {**DEFAULTS, "n_curvature": 60})
        assert row["fisher_gaussian_excess"] > 1e-3

    def test_fixed_attention_makes_ungated_sequences_flat(self):
        """The premise: ungated fixed attention over sequences has no
        curvature (turning, acceleration, K) and no point with positive K
        beyond its floor; softmax attention over the same sequences curves."""
        settings = theorem.sequence_settings(
            [0, 1], shapes=("rings",), fixed=TINY | {"max_epochs": 5}
        )
        settings = [s for s in settings if s["gate"] == "none"]
        rows = (
            sweeps.run_sweep(settings, measure=primary.measure_primary, progress=False)
            .set_index(["attention", "head", "seed"])
            .sort_index()
        )
        fixed = rows.loc["fixed"]
        assert (fixed["turning"].abs() < 1e-9).all()
        assert (fixed["acceleration"].abs() < 1e-9).all()
        assert (fixed["gaussian_mean"].abs() < 1e-9).all()
        assert (fixed["positive_share"] == 0).all()
        assert (rows.loc["softmax", "turning"] > 1e-3).all()


class TestTasks:
    def test_digits_slice(self):
        setting = {**DEFAULTS, "task": "digits", "n_classes": 5, "seed": 3}
        X_train, X_test, y_train, y_test = sweeps._split(setting)
        assert X_train.shape[1] == 2 and X_test.shape[1] == 2
        assert set(y_train) == set(y_test) == set(range(5))
        # The principal directions of the training rows, standardised on them.
        np.testing.assert_allclose(X_train.mean(axis=0), 0, atol=1e-12)
        np.testing.assert_allclose(X_train.std(axis=0), 1, rtol=1e-12)

    def test_every_task_has_its_number_of_classes(self):
        for name, keys in FISHER_TASKS.items():
            X, y = sweeps.make_task(**{**theorem._TASK_KEYS, **keys}, n_samples=200)
            assert len(np.unique(y)) == keys["n_classes"], name

    @pytest.mark.parametrize(
        "task, n_classes", [("wine", 2), ("moons", 3), ("digits", 11)]
    )
    def test_a_wrong_number_of_classes_is_refused(self, task, n_classes):
        keys = {**theorem._TASK_KEYS, "task": task, "n_classes": n_classes}
        with pytest.raises(ValueError, match="n_classes"):
            sweeps.make_task(**keys, n_samples=150)

    def test_sample_real_refuses_one_class(self):
        with pytest.raises(ValueError, match="n_classes must be between 2 and 10"):
            realdata.sample_real("digits", 100, 0, n_classes=1)

    def test_bayes_of_the_multi_class_tasks(self):
        bayes = theorem.fisher_bayes(sizes=(2000, 100)).set_index("task")
        assert list(bayes.index) == list(FISHER_TASKS)
        curved = bayes.loc[
            [n for n, k in FISHER_TASKS.items() if k["task"] == "curved"]
        ]
        chance = 1 / curved["n_classes"]
        assert (curved["bayes accuracy"] > chance + 0.1).all()
        assert (curved["bayes accuracy"] < 1).all()
        assert bayes.loc[["wine", "digits 0-9 (2 PCs)"], "bayes accuracy"].isna().all()


def _fits(effect, n_seeds=16, tasks=("rings, 3 classes", "rings, 5 classes")):
    """Synthetic Fisher-Rao fits where each arm's measures move by ``effect``
    per step of the order ungated < SiLU < gated (and along alpha)."""
    rng = np.random.default_rng(0)
    rows = []
    for name in tasks:
        for head in ("mlp", "linear"):
            for seed in range(n_seeds):
                arms = [("none", np.nan, 0), ("silu", np.nan, 1)] + [
                    ("multiplicative", a, 1 + 2 * a) for a in (0.0, 0.5, 1.0, 1.5)
                ]
                for gate, alpha, level in arms:
                    noise = rng.normal(0, 0.01, 4)
                    value = 1 + effect * level
                    rows.append(
                        {
                            **FISHER_TASKS[name],
                            "shape": FISHER_TASKS[name].get("shape"),
                            "head": head,
                            "seed": seed,
                            "gate": gate,
                            "alpha": alpha,
                            "accuracy": 0.5 + effect * level / 10 + noise[0] / 10,
                            "turning": value + noise[1],
                            "fisher_gaussian": value + noise[2],
                            "fisher_extrinsic": value + noise[3],
                        }
                    )
    return pd.DataFrame(rows)


def _sequences(effect, n_seeds=16):
    rng = np.random.default_rng(1)
    rows = []
    for attention in ("softmax", "fixed"):
        sign = 1 if attention == "fixed" else -1
        for head in ("mlp", "linear"):
            for seed in range(n_seeds):
                for gate, level in (
                    ("none", 0),
                    ("silu", 1),
                    ("multiplicative", 2),
                    ("sigmoid_head", 2),
                ):
                    noise = rng.normal(0, 0.01, 3)
                    rows.append(
                        {
                            "shape": "rings",
                            "head": head,
                            "attention": attention,
                            "seed": seed,
                            "gate": gate,
                            "alpha": 1.0 if gate == "multiplicative" else np.nan,
                            "accuracy": 0.6 + sign * effect * level / 10 + noise[0],
                            "turning": 1 + sign * effect * level + noise[1],
                            "positive_share": 0.3
                            + sign * effect * level / 4
                            + noise[2],
                        }
                    )
    return pd.DataFrame(rows)


class TestTests:
    def test_known_orderings_are_found(self):
        """An effect built in holds under fixed attention and is reversed
        under softmax (built reversed there); the three-class Gaussian
        curvature is not tested (it is the sphere's)."""
        tests = theorem.theorem_tests(_sequences(0.5), _fits(0.5))
        sequences = tests[tests["part"] == "sequences"]
        fixed = sequences[sequences["attention"] == "fixed"]
        assert (fixed["outcome"] == HOLDS).all()
        assert (
            sequences[sequences["attention"] == "softmax"]["outcome"] == REVERSED
        ).all()
        fisher = tests[tests["part"] == "Fisher-Rao"]
        assert (fisher["outcome"] == HOLDS).all()
        gaussian = fisher[fisher["measure"] == "fisher_gaussian"]
        assert set(gaussian["n_classes"]) == {5}
        # One Holm family per (part, attention or head, claim).
        families = tests.groupby(["part", "family", "claim"]).size()
        assert families.loc[("sequences", "fixed attention", "C1")] == 2 * 4
        assert families.loc[("sequences", "softmax attention", "C1 per-head")] == 2 * 2
        assert families.loc[("Fisher-Rao", "linear head", "C2")] == 3 + 4

    def test_no_effect_is_not_called_an_effect(self):
        tests = theorem.theorem_tests(_sequences(0.0), _fits(0.0))
        assert not (tests["outcome"] == HOLDS).any()

    def test_sentences_follow_the_counts(self):
        tests = theorem.theorem_tests(_sequences(0.5), _fits(0.5))
        premise = pd.DataFrame(
            {
                "ungated fits": [
                    "sequences, softmax attention",
                    "sequences, fixed attention",
                ],
                "fits": [32, 32],
                "largest turning": [2.0, 0.0],
                "largest acceleration": [3.0, 0.0],
                "largest |K|": [0.1, 0.0],
            }
        )
        parts = {
            "premise": premise,
            "three_class_excess": 1e-9,
            "statuses": theorem.claim_statuses(tests),
            "summary": theorem.summary(tests),
        }
        sentences = theorem.findings(parts)
        answer = next(s for s in sentences if s.startswith("**Where the premise"))
        assert (
            "C1 (curvature and accuracy ordering) holds in 2 of 2 shape x head"
            in answer
        )
        assert "against holds in 0 of 2 (reversed in 2) under softmax" in answer
        assert "largest turning rate 2 over 32 fits" in sentences[0]


def test_the_quick_design_names_known_tasks():
    design = StudyDesign.quick()
    assert set(design.fisher_tasks) <= set(FISHER_TASKS)
    assert design.theorem_seed_list == tuple(range(5))


def test_arms_that_did_not_run_are_not_tested():
    """A run without the per-head gate (an earlier design, a user's
    shrunken one) has no per-head family rather than a KeyError."""
    sequences = _sequences(0.5)
    tests = theorem.theorem_tests(
        sequences[sequences["gate"] != "sigmoid_head"], _fits(0.5)
    )
    assert not tests["claim"].str.contains("per-head").any()
    assert set(tests["claim"]) == {"C1", "C2", "C6"}


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("fisher_tasks", ("rings, 4 classes",), "fisher_tasks must be"),
        ("fisher_tasks", (), "fisher_tasks must be"),
        ("theorem_shapes", ("square",), "theorem_shapes must be"),
        ("theorem_seeds", 1, "theorem_seeds must be an int >= 2"),
        ("theorem_seeds", True, "theorem_seeds must be an int >= 2"),
    ],
)
def test_a_design_refuses_an_unknown_theorem_setting(field, value, message):
    import dataclasses

    with pytest.raises(ValueError, match=message):
        dataclasses.replace(StudyDesign.quick(), **{field: value})


def test_unknown_task_names_are_refused():
    with pytest.raises(ValueError, match="got unknown \\['digits'\\]"):
        theorem.fisher_settings([0], tasks=["digits"])
    with pytest.raises(ValueError, match="tasks must be names of FISHER_TASKS"):
        theorem.fisher_bayes(["wine", "iris"])


def test_a_damaged_part_is_named(tmp_path):
    for file in theorem.THEOREM_FILES.values():
        pd.DataFrame({"task": []}).to_csv(tmp_path / file, index=False)
    with pytest.raises(
        ValueError, match="theorem_sequences.csv has a header but no rows"
    ):
        theorem.load(tmp_path)
    (tmp_path / theorem.THEOREM_FILES["fisher"]).unlink()
    assert theorem.load(tmp_path) is None  # no theorem part: nothing to render


def test_extrinsic_directions_lie_in_the_measured_plane():
    """On a 2-D input the in-plane directions are the curvature keywords'
    default ones; on wine's 13 features they lie in its random plane."""
    from study.sweeps import gaussian_plane

    X, y = make_curved_task(120, shape="rings", n_classes=3, random_state=0)
    clf = GatedAttentionClassifier(max_epochs=2, d_model=8, random_state=0).fit(X, y)
    output = {"kind": "extrinsic", "layer": "logits", "metric": "fisher"}
    plane = gaussian_plane(X, "curved")
    np.testing.assert_array_equal(
        representation_curvature(clf, X[:20], **output),
        representation_curvature(
            clf, X[:20], directions=theorem._in_plane(plane), **output
        ),
    )
    wine = gaussian_plane(np.zeros((1, 13)), "wine")
    directions = theorem._in_plane(wine)
    # Each direction is its own projection onto the plane.
    np.testing.assert_allclose(directions @ wine.T @ wine, directions, atol=1e-12)


def test_a_measure_needs_the_batched_sweep():
    settings = theorem.sequence_settings([0], shapes=("rings",), fixed=TINY)[:1]
    with pytest.raises(ValueError, match="measure applies to batched sweeps"):
        sweeps.run_sweep(settings, batched=False, measure=primary.measure_primary)

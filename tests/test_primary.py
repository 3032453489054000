"""The confirmatory study's statistics (skgate.study.primary) and its report
(skgate.study.report) on fits whose truths are known."""

import hashlib
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skgate.study import primary, report
from skgate.study.stats import HOLDS, INCONCLUSIVE, NO_EFFECT, REVERSED

CONDITION = {"shape": "checkerboard", "noise": 0.2}
ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def _fits(n_seeds=12, accuracy_gap=0.0, rng=None):
    """Primary sweeps' rows with known truths: curvature gated > SiLU > ungated
    (ungated exactly flat), accuracy gated - SiLU = ``accuracy_gap``, rising
    with alpha and depth, every seed its own offset."""
    rng = np.random.default_rng(0) if rng is None else rng
    curved = {"task": "curved", **CONDITION}
    linear = {"task": "linear", "shape": None, "noise": 0.2}
    turning = {"multiplicative": 2.0, "silu": 1.0, "none": 0.0}
    accuracy = {"multiplicative": 0.75 + accuracy_gap, "silu": 0.75, "none": 0.70}
    arms, alpha, depth = [], [], []
    for seed in range(n_seeds):
        offset = rng.normal(0, 0.02)
        for task in (curved, linear):
            for gate in turning:
                flat = gate == "none"
                arms.append(
                    {
                        **task,
                        "gate": gate,
                        "seed": seed,
                        "accuracy": (accuracy[gate] if task is curved else 0.9)
                        + offset
                        + rng.normal(0, 0.003),
                        "turning": turning[gate] * (1 + rng.normal(0, 0.05)),
                        "acceleration": 10 * turning[gate],
                        "turning_anisotropic": turning[gate]
                        * (1 + rng.normal(0, 0.05)),
                        "positive_share": 0.0 if flat else 0.2 + rng.normal(0, 0.02),
                    }
                )
            for a in primary.ALPHAS:
                alpha.append(
                    {
                        **task,
                        "gate": "multiplicative",
                        "alpha": a,
                        "seed": seed,
                        "accuracy": 0.7 + offset + 0.01 * a + rng.normal(0, 0.001),
                        "turning": a + rng.normal(0, 0.01),
                    }
                )
        for d in primary.DEPTHS:
            depth.append(
                {
                    **curved,
                    "gate": "multiplicative",
                    "depth": d,
                    "seed": seed,
                    "accuracy": 0.75,
                    "turning": d + rng.normal(0, 0.01),
                }
            )
    frames = {"arms": pd.DataFrame(arms), "alpha": pd.DataFrame(alpha)}
    frames["depth"] = pd.DataFrame(depth)
    return frames


class TestPrimaryFamily:
    def test_known_effects_get_their_outcomes(self):
        tests = primary.primary_tests(_fits(), CONDITION).set_index(
            ["claim", "outcome", "comparison"]
        )
        assert len(tests) == len(primary.TESTS) == 12
        for key in [
            ("C1", "curvature", "gated > SiLU"),
            ("C1", "curvature", "SiLU > ungated"),
            ("C1", "accuracy", "SiLU > ungated"),
            ("C2", "curvature", "rises with alpha"),
            ("C2", "accuracy", "rises with alpha"),
            ("C3", "accuracy", "gated = ungated"),
            ("C5", "curvature", "rises with depth"),
            ("C6", "positive curvature", "gated > ungated"),
        ]:
            assert tests.loc[key, "result"] == HOLDS, key
        # Equal accuracy: equivalent within 0.02, not a gain.
        assert tests.loc[("C1", "accuracy", "gated > SiLU"), "result"] == NO_EFFECT
        # 12 seeds: the exact sign-flip floor is 1 / 4096, before Holm.
        assert tests["p"].min() == pytest.approx(1 / 4096)
        assert (tests["p holm"] >= tests["p"]).all()
        assert (tests["ci low"] <= tests["estimate"]).all()
        assert (tests["estimate"] <= tests["ci high"]).all()

    def test_a_reversal_is_named_first(self):
        tests = primary.primary_tests(_fits(accuracy_gap=-0.05), CONDITION)
        verdicts = primary.claim_verdicts(tests).set_index("claim")["verdict"]
        c1 = verdicts["C1"]
        assert c1.startswith("contradicted (reversed: accuracy gated > SiLU")
        assert verdicts["C2"].startswith("reproduced")
        assert all(len(v) <= 250 for v in verdicts)

    def test_verdict_rule(self):
        assert primary._verdict([HOLDS, HOLDS], ["a", "b"]).startswith("reproduced")
        assert primary._verdict([HOLDS, NO_EFFECT], ["a", "b"]).startswith(
            "not reproduced (no effect: b"
        )
        assert primary._verdict([HOLDS, INCONCLUSIVE], ["a", "b"]).startswith(
            "inconclusive"
        )
        # A reversal outranks everything, however much else holds.
        assert primary._verdict([HOLDS, HOLDS, REVERSED], list("abc")).startswith(
            "contradicted (reversed: c; 2 of 3 hold)"
        )

    def test_an_equivalence_test_is_reversed_by_a_difference_either_way(self):
        frames = _fits()
        linear = frames["arms"]["task"] == "linear"
        gated = frames["arms"]["gate"] == "multiplicative"
        frames["arms"].loc[linear & gated, "accuracy"] += 0.05
        tests = primary.primary_tests(frames, CONDITION).set_index("comparison")
        assert tests.loc["gated = ungated", "result"] == REVERSED


class TestPower:
    def test_plan_gives_the_fewest_seeds_with_power(self):
        tests = primary.primary_tests(_fits(), CONDITION)
        plan = primary.plan_seeds(tests)
        assert (plan["n_seeds"].dropna() >= primary.MIN_SEEDS).all()
        alpha = primary.family_level()
        assert alpha == pytest.approx(0.05 / 12)
        power = primary.power_table(plan, tests)
        planned = power[power["stage"] == "planned"]
        assert (planned["power"] >= primary.POWER - 1e-9).all()
        assert set(power["stage"]) == {"planned", "achieved"}
        assert len(power) == 2 * len(primary.TESTS)

    def test_an_unaffordable_test_is_marked(self):
        tests = primary.primary_tests(_fits(), CONDITION)
        tests.loc[2, "sd"] = 1.0  # accuracy differences of SD 1 at effect 0.02
        plan = primary.plan_seeds(tests)
        assert not plan.loc[2, "affordable"] and pd.isna(plan.loc[2, "n_seeds"])
        assert plan.drop(index=2)["affordable"].all()

    def test_condition_is_the_first_with_headroom(self):
        rows = []
        for candidate, best in zip(
            primary.CANDIDATES, (0.77, 0.7, 0.6, 0.6), strict=True
        ):
            rows += [
                {
                    "task": "curved",
                    **candidate,
                    "gate": g,
                    "seed": 0,
                    "accuracy": best - d,
                }
                for g, d in (("multiplicative", 0), ("silu", 0.01), ("none", 0.02))
            ]
        bayes = pd.DataFrame([{**c, "bayes accuracy": 0.8} for c in primary.CANDIDATES])
        chosen, table = primary.choose_condition(pd.DataFrame(rows), bayes)
        # checkerboard 0.2: 0.8 - 0.77 = 0.03 < 0.05 headroom; the next has 0.1.
        assert chosen == primary.CANDIDATES[1]
        assert list(table["eligible"]) == [False, True, True, True]


class TestMediation:
    def test_recovers_a_known_slope_beyond_alpha(self):
        rng = np.random.default_rng(1)
        rows = []
        for seed in range(30):
            for a in primary.ALPHAS:
                turning = a + rng.normal(0, 0.5)
                rows.append(
                    {
                        "task": "linear",
                        "shape": None,
                        "noise": 0.2,
                        "seed": seed,
                        "alpha": a,
                        "gate": "multiplicative",
                        "turning": turning,
                        "accuracy": 0.8 + 0.02 * turning + rng.normal(0, 0.002),
                    }
                )
        alpha = pd.DataFrame(rows)
        sd = alpha["turning"].std()
        slope, low, high = primary._curvature_slope(alpha, "alpha", 500)
        assert slope == pytest.approx(0.02 * sd, rel=0.05)
        assert low < 0.02 * sd < high
        # No dependence: the interval holds 0.
        alpha["accuracy"] = 0.8 + rng.normal(0, 0.002, len(alpha))
        _, low, high = primary._curvature_slope(alpha, "alpha", 500)
        assert low < 0 < high

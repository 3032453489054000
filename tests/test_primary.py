"""The confirmatory study's statistics (study.primary) and its report
(study.report) on fits whose truths are known."""

import hashlib
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from study import confirmatory, facts, primary, report
from study.stats import HOLDS, INCONCLUSIVE, NO_EFFECT, REVERSED

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
            for a in facts.GRIDS.copied_alphas:
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
        for d in facts.GRIDS.copied_depths:
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
            ["claim", "quantity", "comparison"]
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
            assert tests.loc[key, "outcome"] == HOLDS, key
        # Equal accuracy: equivalent within 0.02, not a gain.
        assert tests.loc[("C1", "accuracy", "gated > SiLU"), "outcome"] == NO_EFFECT
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
        assert confirmatory.claim_verdict([HOLDS, HOLDS], ["a", "b"]).startswith(
            "reproduced"
        )
        assert confirmatory.claim_verdict([HOLDS, NO_EFFECT], ["a", "b"]).startswith(
            "not reproduced (no effect: b"
        )
        assert confirmatory.claim_verdict([HOLDS, INCONCLUSIVE], ["a", "b"]).startswith(
            "inconclusive"
        )
        # A reversal outranks everything, however much else holds.
        assert confirmatory.claim_verdict(
            [HOLDS, HOLDS, REVERSED], list("abc")
        ).startswith("contradicted (reversed: c; 2 of 3 hold)")

    def test_words_no_stronger_than_the_tests(self):
        """Tests that could not fail support nothing; a trend whose mean
        peaks inside its grid is named by its peak, not as a rise."""
        verdict = confirmatory.claim_verdict
        assert verdict([HOLDS], ["c"], fixed=[True]) == (
            "consistent by construction (its 1 test could not fail)"
        )
        assert verdict([HOLDS, HOLDS], list("ab"), fixed=[True, True]).startswith(
            "consistent by construction (none of its 2 tests could fail)"
        )
        assert verdict([HOLDS, HOLDS], list("ab"), fixed=[False, True]) == (
            "reproduced (1 of 1 tests that could fail hold; 1 by construction)"
        )
        peaked = verdict([HOLDS, HOLDS], list("ab"), peaks=[None, "b peaks at alpha 1"])
        assert peaked == "partly reproduced (b peaks at alpha 1; 2 of 2 tests hold)"
        # A reversal still outranks construction.
        assert verdict([REVERSED], ["c"], fixed=[True]).startswith("contradicted")

    def test_a_trends_peak_is_where_its_mean_is_highest(self):
        test = {"kind": "trend", "axis": "alpha", "measure": "turning"}
        rows = pd.DataFrame(
            {"alpha": [0, 0.5, 1, 1.5] * 2, "turning": [0, 3, 2, 1, 0, 4, 3, 2]}
        )
        assert confirmatory.trend_peak(test, rows) == 0.5
        rising = rows.assign(turning=[0, 1, 2, 3, 0, 1, 2, 4])
        assert confirmatory.trend_peak(test, rising) is None
        assert confirmatory.trend_peak({**test, "kind": "superiority"}, rows) is None

    def test_an_equivalence_test_is_reversed_by_a_difference_either_way(self):
        frames = _fits()
        linear = frames["arms"]["task"] == "linear"
        gated = frames["arms"]["gate"] == "multiplicative"
        frames["arms"].loc[linear & gated, "accuracy"] += 0.05
        tests = primary.primary_tests(frames, CONDITION).set_index("comparison")
        assert tests.loc["gated = ungated", "outcome"] == REVERSED


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
            for a in facts.GRIDS.copied_alphas:
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


class TestMeasurements:
    @pytest.mark.parametrize("gate", ["none", "multiplicative"])
    def test_flat_and_curved_fits(self, gate):
        """Ungated attention over copied tokens is affine: turning rate and
        acceleration 0, and no point's K passes its noise floor either way;
        the gated model is curved."""
        from study.sweeps import run_batch

        setting = primary.primary_settings(
            {name: (0,) for name in primary.SEEDS},
            fixed={"max_epochs": 2, "n_samples": 120, "n_curvature": 20},
        )["arms"]
        row = run_batch(
            [s for s in setting if s["gate"] == gate and s["task"] == "curved"],
            measure=primary.measure_primary,
        )[0]
        if gate == "none":
            assert row["turning"] == 0 and row["acceleration"] == 0
            assert row["positive_share"] == 0 and row["negative_share"] == 0
        else:
            assert row["turning"] > 0.01 and row["acceleration"] > 0.01
            assert row["positive_share"] + row["negative_share"] > 0
        assert 0.0 <= row["accuracy"] <= 1.0


def _sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class TestCommittedRun:
    """The committed confirmatory run against its protocol and its own files."""

    def test_report_names_the_protocol_it_followed(self):
        text = (RESULTS / "REPORT.md").read_text()
        named = re.search(r"SHA-256 `([0-9a-f]{64})`", text)
        assert named, "REPORT.md names no protocol SHA-256"
        assert named.group(1) == _sha(ROOT / "docs" / "protocol.md")

    def test_report_opens_with_findings_and_is_short(self):
        """A Bottom line, a Findings list within its length, then the first
        part's section: its results in numbered sentences with intervals,
        its verdicts one row per claim."""
        text = (RESULTS / "REPORT.md").read_text()
        assert len(text.encode()) <= 120_000
        lines = text.splitlines()
        assert "## Bottom line" in lines[:12] and "## Findings" in lines[:20]
        findings = text.split("## Findings\n", 1)[1].split("\n## ", 1)[0]
        assert len(findings) <= report.MAX_FINDINGS
        first = text.split("## Part 1: copied tokens", 1)[1].split("\n## ", 1)[0]
        words = first.split("### Results in words\n", 1)[1].split("\n### ", 1)[0]
        numbered = [line for line in words.splitlines() if re.match(r"\d+\. ", line)]
        assert 1 <= len(numbered) <= 12
        assert all(re.search(r"\[-?[0-9.e-]+, -?[0-9.e-]+\]", n) for n in numbered[:6])
        verdicts = first.split("### Verdicts\n", 1)[1].split("\n### ", 1)[0]
        rows = [r for r in verdicts.splitlines() if r.startswith("| C")]
        assert len(rows) == len(facts.CLAIMS)
        assert all(len(r.split(" | ")[-1]) <= 250 for r in rows)

    def test_first_part_says_what_its_numbers_need_said(self):
        """The tests no data could fail are named as checks; C2's curve is
        said to peak where it does; C6 stands beside SiLU's larger share;
        the 20-epoch accuracies are given beside chance; curvature against
        accuracy is called an association."""
        text = (RESULTS / "REPORT.md").read_text()
        first = text.split("## Part 1: copied tokens", 1)[1].split("\n## ", 1)[0]
        assert "5 of its 12 primary tests" in first and "no evidence" in first
        alpha = pd.read_csv(RESULTS / "primary_alpha.csv")
        means = alpha[alpha["task"] == "curved"].groupby("alpha")["turning"].mean()
        assert means.idxmax() == 0.5 and f"peaks at alpha {means.idxmax():g}" in first
        # ... and nowhere is a claim resting on it, or on tests that could not
        # fail, called reproduced: C2 partly, C6 consistent by construction.
        findings = text.split("## Findings", 1)[1].split("\n## ", 1)[0]
        part_1 = findings.split("**Copied tokens, uniform attention (part 1)**")[1]
        assert "C2 partly reproduced" in part_1 and "C2 reproduced" not in part_1
        assert "C6 consistent by construction" in part_1
        # C2 partly reproduced through its accuracy trend alone (it peaks at
        # alpha 1); its curvature trend, by construction, decides nothing, and
        # its fall after alpha 0.5 stands beside C2 in the Findings.
        assert (
            "| C2 | curvature and accuracy rise with alpha on a curved task | "
            "partly reproduced (accuracy peaks at alpha 1;" in first
        )
        assert "C2: the mean turning rate peaks at alpha 0.5" in part_1
        arms = pd.read_csv(RESULTS / "arms.csv")
        share = arms[arms["task"] != "linear task"].set_index("arm")["positive share"]
        assert share["SiLU"] > share["gated"]
        assert f"{share['SiLU']:.2f} against {share['gated']:.2f}" in first
        attained = pd.read_csv(RESULTS / "primary_attainable.csv")
        curved = attained[(attained["task"] == "curved")]
        majority = curved[curved["model"] == "majority class"]["accuracy"].mean()
        early = pd.read_csv(RESULTS / "primary_epochs20.csv")
        means = early[early["task"] == "curved"].groupby("gate")["accuracy"].mean()
        assert means["none"] - majority < 0.02 and means["silu"] - majority < 0.02
        assert f"where the majority class is {majority:.3f} (SiLU and ungated" in first
        assert "Does curvature explain accuracy" not in text
        assert "an association, not an effect" in first

    def test_the_arms_stand_beside_what_is_attainable(self):
        """Part 1's arms beside scikit-learn models on their own rows and
        splits (primary_attainable.csv, recomputed here), the majority class
        and the Bayes accuracy; its convergence table shows stalled fits."""
        text = (RESULTS / "REPORT.md").read_text()
        first = text.split("## Part 1: copied tokens", 1)[1].split("\n## ", 1)[0]
        attained = pd.read_csv(RESULTS / "primary_attainable.csv")
        rings = attained[attained["shape"] == "rings"]
        means = rings.groupby("model")["accuracy"].mean()
        best = means.drop("majority class").max()
        line = f"rings Bayes 0.718, best {best:.3f} (k-NN, flat), majority"
        assert line in first and f"majority {means['majority class']:.3f}" in first
        assert "it did not learn" not in first  # every arm is above the majority
        arms = pd.read_csv(RESULTS / "primary_arms.csv")
        ungated = arms[(arms["task"] == "curved") & (arms["gate"] == "none")]
        stalled = (ungated["best_epoch"] <= 15).mean()
        assert f"ungated {stalled:.0%}." in first

    def test_protocol_fixes_what_the_code_runs(self):
        text = (ROOT / "docs" / "protocol.md").read_text()
        seeds = primary.SEEDS
        assert f"**{seeds['arms']} seeds for the arms**" in text
        assert f"**{seeds['alpha']} for the alpha sweep**" in text
        assert f"**{seeds['depth']} for the depth sweep**" in text
        shape, noise = primary.CONDITION["shape"], primary.CONDITION["noise"]
        assert f'shape="{shape}", noise={noise:g})' in text
        assert f"family of {len(primary.TESTS)}" in text
        plan = pd.read_csv(ROOT / "benchmarks" / "pilot" / "plan.csv")
        assert primary.seeds_by_sweep(plan) == seeds
        assert plan["affordable"].all()
        # The confirmatory seeds are disjoint from the pilot's and the
        # exploratory study's earlier ones (0-19).
        used = set(primary.PILOT_SEEDS) | set(range(20))
        assert not used & set(primary.confirmatory_seeds(max(seeds.values())))

    @pytest.mark.slow  # end to end: make test-slow
    def test_plan_follows_from_the_committed_pilot(self, tmp_path):
        from study.parts.copied_tokens import plan_from_pilot

        for path in (ROOT / "benchmarks" / "pilot").glob("pilot_*.csv"):
            shutil.copy(path, tmp_path)
        condition, plan = plan_from_pilot(tmp_path)
        assert condition == primary.CONDITION
        committed = pd.read_csv(ROOT / "benchmarks" / "pilot" / "plan.csv")
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "plan.csv"), committed)

    @pytest.mark.slow
    @pytest.mark.xdist_group("committed_render")
    def test_report_renders_again_byte_for_byte(self, committed_render):
        """``python -m study report --from`` on the committed run gives its
        REPORT.md, EXPLORATORY.md, derived tables and the user guide's block;
        the exploratory study's acceleration tests are C1's own, one outcome
        each wherever they are quoted."""
        tmp_path, guide = committed_render.out, committed_render.guide
        for name in (
            "REPORT.md",
            "EXPLORATORY.md",
            "tests_primary.csv",
            "tests_secondary.csv",
            "power.csv",
            "mediation.csv",
            "convergence.csv",
            "arms.csv",
            "tests_C1.csv",
            "tests_measures.csv",
            "tests_controls.csv",
            "tests_theorem.csv",
            "theorem_summary.csv",
            "premise.csv",
            "theorem_arms.csv",
        ):
            assert (tmp_path / name).read_bytes() == (RESULTS / name).read_bytes(), name
        assert (
            guide.read_bytes()
            == (ROOT / "docs" / "user_guide" / "reproducing.md").read_bytes()
        )


class TestCommittedTheorem:
    """The committed run's theorem part against its own files."""

    def test_every_fisher_row_carries_its_number_of_classes(self):
        from study.design import FISHER_TASKS

        for name in ("fisher.csv", "fisher_bayes.csv"):
            frame = pd.read_csv(RESULTS / name)
            assert frame["n_classes"].notna().all() and len(frame)
        fits = pd.read_csv(RESULTS / "fisher.csv")
        for keys in FISHER_TASKS.values():
            rows = fits[fits["task"] == keys["task"]]
            if "shape" in keys:
                rows = rows[rows["shape"] == keys["shape"]]
            rows = rows[rows["n_classes"] == keys["n_classes"]]
            assert len(rows) == 2 * 6 * rows["seed"].nunique() > 0, keys
        assert set(fits["n_classes"]) == {3, 5, 10}

    @pytest.mark.slow
    def test_the_premise_holds_in_the_files_the_report_quotes(self):
        """Ungated fixed attention over sequences: no curvature on any fit;
        ungated softmax attention: curved; three-class outputs: K = 1/4."""
        from study import theorem

        sequences = pd.read_csv(RESULTS / "theorem_sequences.csv")
        fixed = sequences[(sequences["attention"] == "fixed")]
        ungated = fixed[fixed["gate"] == "none"]
        assert len(ungated) and (ungated["turning"].abs() < 1e-9).all()
        assert (ungated["positive_share"] == 0).all()
        softmax = sequences[sequences["attention"] == "softmax"]
        assert (softmax.loc[softmax["gate"] == "none", "turning"] > 1e-3).all()
        fisher = pd.read_csv(RESULTS / "fisher.csv")
        three = fisher[fisher["n_classes"] == 3]
        assert (three["fisher_gaussian_excess"] < 1e-6).all()
        text = (RESULTS / "REPORT.md").read_text()
        section = text.split("## The theorem's own setting", 1)[1]
        parts = theorem.evaluate(theorem.load(RESULTS))
        for sentence in theorem.findings(parts):
            assert f"- {sentence}" in section


def test_the_quick_run_has_the_fewest_seeds_that_can_decide():
    """8 seeds: the smallest sign-flip p, 1/256, is below 0.05 / 12; 7 are not."""
    assert primary.can_decide(facts.QUICK_SEEDS)
    assert not primary.can_decide(facts.QUICK_SEEDS - 1)

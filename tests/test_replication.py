"""The study's words as strong as its tests, and its replication: the
verdict rules (docs/replication.md), the replication beside the first run,
and the committed rows fitted again (replay) and by the demo."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from study import (
    confirmatory,
    machine,
    render_replication,
    replay,
    replication,
    report,
    runfiles,
    words,
)
from study.facts import SCORE_MARGIN, STALL_SHARE, STUDY_GATES
from study.stats import HOLDS, INCONCLUSIVE, NO_EFFECT, REVERSED

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
REPLICATION = RESULTS / replication.REPLICATION

# -- the verdict rule -------------------------------------------------------------


@pytest.mark.parametrize(
    "fixed, untested, word",
    [
        ([False, False], [None, None], "reproduced"),
        ([True, False], [None, None], "reproduced"),
        ([True, True], [None, None], "consistent by construction"),
        (["at the ceiling", True], [None, None], "consistent by construction"),
        ([False, False], ["did not learn", "did not learn"], "not tested"),
        ([True, False], [None, "a repeat of C1"], "not tested"),
        ([False, False], [None, "did not learn"], "reproduced"),
    ],
)
def test_a_claim_is_reproduced_only_through_tests_that_decide(fixed, untested, word):
    """Every test holds: the claim is reproduced only where a test that
    could fail and read arms that learned holds; else it is consistent by
    construction (every test fixed) or not tested (one decides nothing)."""
    verdict = confirmatory.claim_verdict(
        [HOLDS, HOLDS], ["a", "b"], fixed=fixed, untested=untested
    )
    assert words.verdict_word(verdict) == word
    for reason in [u for u in untested if u] + [f for f in fixed if isinstance(f, str)]:
        assert reason in verdict  # the verdict says why


def test_a_failing_claim_names_the_tests_that_decide_nothing():
    verdict = confirmatory.claim_verdict(
        [HOLDS, NO_EFFECT], ["a", "b"], untested=["ungated did not learn", None]
    )
    assert verdict.startswith("not reproduced (no effect: b; 1 of 2 hold; 1 decides")
    assert "ungated did not learn" in verdict


def test_at_convergence_only_where_the_stall_rule_passes():
    """The plan's rule: under 5 % of an arm's fits peak late and under
    STALL_SHARE stall; a share at the limit is not under it."""
    table = pd.DataFrame(
        {
            "task": ["rings", "rings", "linear task"],
            "share after epoch 250": [0.0, 0.04, 0.9],
            "share by epoch 15": [0.0, STALL_SHARE - 0.01, 0.9],
        }
    )
    assert confirmatory.budget_words(table) == "at convergence"  # linear left out
    for column, value in [
        ("share by epoch 15", STALL_SHARE),
        ("share after epoch 250", 0.05),
    ]:
        worse = table.copy()
        worse.loc[1, column] = value
        said = confirmatory.budget_words(worse)
        assert said.startswith(confirmatory.AT_BUDGET + " (up to ")
        assert f"up to {worse[column].iloc[:2].max():.0%}" in said  # both shares


def test_a_secondary_result_against_its_claim_is_found():
    rows = pd.DataFrame(
        [
            {"analysis": "a", "claim": "C1", "quantity": "q", "condition": "c",
             "comparison": "x > y", "kind": "superiority", "estimate": 0.1,
             "ci low": 0.05, "ci high": 0.2, "outcome": HOLDS},
            {"analysis": "b", "claim": "C3", "quantity": "q", "condition": "c",
             "comparison": "rises", "kind": "trend", "estimate": -0.3,
             "ci low": -0.5, "ci high": -0.1, "outcome": INCONCLUSIVE},
            {"analysis": "c", "claim": "C6", "quantity": "q", "condition": "c",
             "comparison": "x > y", "kind": "superiority", "estimate": -0.1,
             "ci low": -0.2, "ci high": 0.05, "outcome": REVERSED},
            {"analysis": "d", "claim": "C3", "quantity": "q", "condition": "c",
             "comparison": "x = y", "kind": "equivalence", "estimate": -0.01,
             "ci low": -0.02, "ci high": -0.005, "outcome": HOLDS},
        ]
    )  # fmt: skip
    found = words.against_claims(rows)
    assert sorted(found) == ["C3", "C6"] and len(found["C3"]) == 1
    assert "-0.3 [-0.5, -0.1]" in found["C3"][0]


def _tests(outcomes):
    return pd.DataFrame(
        [
            {"claim": "C1", "quantity": "accuracy", "condition": "rings",
             "comparison": f"gated > {worse}", "estimate": 0.1, "ci low": 0.0,
             "ci high": 0.2, "outcome": outcome}
            for worse, outcome in zip(("SiLU", "ungated"), outcomes, strict=True)
        ]
    )  # fmt: skip


def test_the_replication_table_says_where_outcomes_differ():
    verdicts = pd.DataFrame({"claim": ["C1"], "verdict": ["reproduced (2 of 2)"]})
    first = {"copied": {"tests": _tests([HOLDS, HOLDS]), "verdicts": verdicts}}
    again_verdicts = verdicts.assign(verdict=["not reproduced (no effect)"])
    again = {
        "copied": {"tests": _tests([HOLDS, NO_EFFECT]), "verdicts": again_verdicts}
    }
    table = replication.comparison(first, again)
    assert list(table["same outcome"]) == [True, False]
    info = {
        "command": "python -m study reproduce --replication",
        "total seconds": 7200.0,
        "code": {"p": {"start": {"commit": "a" * 40, "dirty": False},
                       "end": {"commit": "a" * 40, "dirty": False}}},
    }  # fmt: skip
    line = render_replication.findings_line(first, again, info)
    assert "the same primary outcome in 1 of 2 tests" in line
    assert "gated > ungated" in line and "(no effect)" in line
    assert "C1 (part 1) reproduced -> not reproduced" in line
    assert "7,200 s (2.0 h)" in line and "`aaaaaaa`" in line
    section = "\n".join(render_replication.section(first, again, info, {}))
    assert "they differ in 1: C1 accuracy gated > ungated" in section
    assert "its files clean at the start and end of every part" in section
    assert "The first run's run.json records no commit." in section
    ran = render_replication.section(first, again, info, info)
    assert "The first run ran at `aaaaaaaaaaaa`." in "\n".join(ran)


# -- the committed report holds the rules -----------------------------------------


def _findings(out):
    return "\n".join(report.findings_text(out / "REPORT.md"))


@pytest.mark.slow
@pytest.mark.xdist_group("committed_render")
class TestCommittedWords:
    """The committed REPORT.md, rendered again, against its own CSVs."""

    def test_no_claim_is_reproduced_by_arms_that_did_not_learn(self, committed_render):
        """Part 2's C2 rests on gated arms at alpha 0.25 and 0.5 that did not
        learn: not tested; part 1's C4 repeats C1; C3 at the ceiling in both
        parts could fail only through a loss."""
        parts = committed_render.parts
        second = parts["sequences"]["verdicts"].set_index("claim")["verdict"]
        first = parts["copied"]["verdicts"].set_index("claim")["verdict"]
        assert second["C2"].startswith("not tested (arms that did not learn")
        assert "alpha 0.25 on rings" in second["C2"]
        assert second["C3"].startswith("consistent by construction")
        assert first["C3"].startswith("consistent by construction")
        assert first["C4"].startswith("not tested (a repeat of C1")
        for verdict in [*first, *second]:
            if "decide" in verdict.split(";")[0]:
                assert not verdict.startswith(("reproduced", "partly reproduced"))

    def test_did_not_learn_wherever_an_arm_sits_at_the_majority_rate(
        self, committed_render
    ):
        """Every arm of the alpha, depth and learning-rate sweeps whose mean
        accuracy is within 0.02 of its task's majority rate is named as not
        learning in REPORT.md, with its accuracy (computed here from the
        CSVs alone)."""
        text = (committed_render.out / "REPORT.md").read_text()
        lines = [line for line in text.splitlines() if "did not learn" in line.lower()]
        attained = pd.read_csv(RESULTS / "seq_attainable.csv")
        attained = attained[attained["model"] == "majority class"]
        majority = attained.groupby(["shape", "noise"])["accuracy"].mean()
        named = 0
        for file, key in [
            ("seq_alpha.csv", "alpha"),
            ("seq_depth.csv", "depth"),
            ("seq_lr_grid.csv", "lr"),
        ]:
            fits = pd.read_csv(RESULTS / file)
            fits = fits[fits["task"] == "curved"]
            means = fits.groupby(["shape", "noise", "gate", key])["accuracy"].mean()
            for (shape, noise, gate, value), accuracy in means.items():
                if accuracy - majority[(shape, noise)] < SCORE_MARGIN:
                    arm = STUDY_GATES.arm_labels[gate]
                    said = f"{arm} at {key} {value:g} on {shape} ({accuracy:.3f})"
                    assert any(said in line for line in lines), said
                    named += 1
        assert named >= 5  # alpha 0.25 and 0.5, depth 3 and 4, lr 0.008 at least

    def test_at_convergence_only_where_the_stall_rule_passes(self, committed_render):
        text = (committed_render.out / "REPORT.md").read_text()
        for file in ("convergence.csv", "convergence_2.csv"):
            table = pd.read_csv(committed_render.out / file)
            early = [c for c in table if " by epoch" in c][0]
            curved = table[table["task"] != "linear task"]
            assert (curved[early] >= STALL_SHARE).any()  # the rule fails here
        assert "at convergence" not in text
        assert "at the protocol's budget" in text

    def test_analyses_added_after_the_run_say_so(self, committed_render):
        text = (committed_render.out / "REPORT.md").read_text()
        marks = ("Attainable accuracy", "What the arms' own rows allow", "By step",
                 "step by step", "stalled (")  # fmt: skip
        for line in text.splitlines():
            for mark in marks:
                if mark in line:
                    assert words.POST_HOC in line, line[:120]

    def test_secondary_results_against_a_claim_stand_beside_it(self, committed_render):
        """Each secondary test reversed, or whose interval lies below 0 where
        it says better or rises, is in the Findings with its claim: part 2's
        C3 curvature (-0.29) and depth trend (-0.52), part 1's C6 SiLU arm;
        and part 1's turning rate falling after alpha 0.5."""
        findings = _findings(committed_render.out)
        out = committed_render.out
        for file in ("tests_secondary.csv", "tests_2_secondary.csv"):
            table = pd.read_csv(out / file)
            against = table[
                (table["outcome"] == REVERSED)
                | ((table["kind"] != "equivalence") & (table["ci high"] < 0))
            ]
            assert len(against)
            for _, row in against.iterrows():
                said = words.interval(row)
                assert said in findings, said
                line = next(line for line in findings.splitlines() if said in line)
                assert row["claim"] in line
        assert "-0.292 [-0.492, -0.0923]" in findings
        assert "-0.52 [-0.72, -0.26]" in findings
        assert re.search(r"peaks at alpha 0\.5 \(28 of 34 seeds\) and falls", findings)
        assert len("\n".join(report.findings_text(out / "REPORT.md"))) <= (
            report.MAX_FINDINGS
        )


@pytest.mark.slow
@pytest.mark.xdist_group("committed_render")
@pytest.mark.skipif(
    not (REPLICATION / "run.json").is_file(), reason="no replication committed"
)
class TestCommittedReplication:
    def test_the_replication_ran_at_one_clean_commit(self):
        info = replay.runfiles.load_info(REPLICATION)
        assert info["replication"] is True and info["total seconds"] > 0
        states = [s for part in info["code"].values() for s in part.values()]
        assert len({s["commit"] for s in states}) == 1
        assert all(s["dirty"] is False for s in states)
        assert {"sequences", "copied", "exploratory", "theorem", "toy"} <= set(
            info["parts"]
        )

    def test_the_report_sets_both_runs_side_by_side(self, committed_render):
        """Every primary test of both parts, both runs' outcomes from their
        own tables, and the count of those that differ."""
        out = committed_render.out
        text = (out / "REPORT.md").read_text()
        assert "\n## Replication\n" in text
        same = total = 0
        for file in ("tests_primary.csv", "tests_2_primary.csv"):
            one = pd.read_csv(out / file)
            two = pd.read_csv(out / replication.REPLICATION / file)
            keys = ["claim", "quantity", "condition", "comparison"]
            both = one.merge(two, on=keys, suffixes=("", " again"))
            assert len(both) == len(one) == len(two)
            same += int((both["outcome"] == both["outcome again"]).sum())
            total += len(both)
        assert f"in {same} of {total} tests" in _findings(out) or (
            same == total and f"the same primary outcome in {total} of {total}" in text
        )
        again = (out / replication.REPLICATION / "REPORT.md").read_text()
        assert "**This run is a replication**" in again
        assert "from the run's start to its record" in again  # its wall time

    def test_sampled_rows_of_every_part_replay_to_the_same_numbers(self):
        """Two rows of each part of the committed replication, the cheapest
        of its tables, fitted again: every cell as the CSV holds it. A code
        change that moves the study's numbers fails here until the
        replication is run again."""
        tables = replay.replayable(REPLICATION)
        assert set(tables) == {"sequences", "copied", "exploratory", "theorem", "toy"}
        for part, files in tables.items():
            file, rows = _cheapest(files)
            found = replay.replay(REPLICATION, files=[file], rows=rows, progress=False)
            # Bits on a CPU of the record's capability; elsewhere within the
            # tolerance measured across CPUs, and the report says which.
            case, sentence = machine.platform_case(runfiles.load_info(REPLICATION))
            assert found.attrs["case"] == case
            assert found["agrees"].all(), (part, found.to_string())
            if case == machine.SAME:
                assert found["identical"].all(), (part, found.to_string())
                assert found.attrs["rtol"] == 0
            else:
                assert found.attrs["rtol"] == machine.CROSS_CPU_RTOL
            assert replay.replay_lines(found, REPLICATION)[0] == sentence

    def test_the_demos_fits_are_the_committed_rows(self):
        """The demo's fits (2 seeds, the protocol's settings) are the
        replication's rows of the same seeds, number for number, and it
        says so."""
        from study.demo import demo

        result = demo(n_seeds=2, progress=False)
        again = result.committed["replication"]
        text = "\n".join(result.lines())
        record = runfiles.load_info(REPLICATION)
        assert again["case"] == machine.platform_case(record)[0]
        if again["case"] == machine.SAME:
            assert again["identical"]
            assert "the demo's fits are the committed ones" in text
        else:  # another CPU: said, and within the tolerance measured across CPUs
            assert again["platform"] in text
            assert again["identical"] or (
                again["agrees"] and again["outcome"] == result.outcome
            )
            assert again["identical"] or "within the 0.1 that rounding" in text


@pytest.mark.skipif(
    not (REPLICATION / "seq_arms.csv").is_file(), reason="no replication committed"
)
def test_the_user_guides_example_of_a_changed_fit_is_the_csvs():
    """reproducing.md's example (seed 3000's gated fit on rings) quotes
    both runs' rows."""
    text = (ROOT / "docs" / "user_guide" / "reproducing.md").read_text()
    said = re.search(
        r"seed 3000's gated fit on rings:\s+([0-9.]+) there, ([0-9.]+) now", text
    )
    values = []
    for folder in (RESULTS, REPLICATION):
        arms = pd.read_csv(folder / "seq_arms.csv")
        row = arms[(arms["seed"] == 3000) & (arms["gate"] == "multiplicative")
                   & (arms["shape"] == "rings")]  # fmt: skip
        values.append(f"{row['accuracy'].iloc[0]:.3f}")
    assert said is not None and list(said.groups()) == values


def _cheapest(files):
    """The table of ``files`` whose rows cost least to fit (fewest epochs
    times rows), and two of its rows."""

    def cost(file):
        frame = pd.read_csv(REPLICATION / file)
        if "max_epochs" not in frame or "n_samples" not in frame:
            return np.inf, frame
        return float((frame["max_epochs"] * frame["n_samples"]).min()), frame

    file = min(files, key=lambda f: cost(f)[0])
    _, frame = cost(file)
    if "max_epochs" in frame and "n_samples" in frame:
        order = (
            (frame["max_epochs"] * frame["n_samples"]).to_numpy().argsort(kind="stable")
        )
        return file, [int(order[0]), int(order[-1 if len(order) < 2 else 1])]
    return file, [0, min(1, len(frame) - 1)]


# -- the machine a run came from ---------------------------------------------------


def test_a_record_names_its_cpu_and_a_replay_knows_its_case():
    """A run records its CPU model and torch's CPU capability; a record of
    this capability expects the same bits, another capability or none does
    not, and each case is said with both machines named."""
    record = machine.machine_record()
    assert set(record) == {"cpu", "cpu capability"}
    assert record["cpu"] and record["cpu capability"] == str(
        torch.backends.cpu.get_cpu_capability()
    )
    here = record["cpu capability"]
    case, sentence = machine.platform_case({"cpu capability": here})
    assert case == machine.SAME and "the same bits are expected" in sentence
    other = "AVX512" if here != "AVX512" else "AVX2"
    case, sentence = machine.platform_case({"cpu": "Some CPU", "cpu capability": other})
    assert case == machine.OTHER
    assert f"(Some CPU, {other})" in sentence and here in sentence
    case, sentence = machine.platform_case({"machine": "x86_64, Python 3.11.7"})
    assert case == machine.UNKNOWN and "does not name its CPU" in sentence
    assert machine.UNKNOWN == machine.platform_case(runfiles.load_info(REPLICATION))[0]

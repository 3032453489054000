"""EXPLORATORY.md's summary: one sentence per claim, control and setting.

:func:`summary` builds them from the evaluated claims
(:func:`study.evaluation.evaluate_claims`); each counts the
conditions where a claim holds with :mod:`study.words`' phrases.
Rendering only: every number is computed elsewhere.
"""

from . import beyond, describe, stats, words
from . import claims as claim_rules
from .facts import CEILING_MARGIN, STUDY_GATES
from .render_blocks import (
    c3_statements,
    status_tally,
)

__all__ = [
    "summary",
]


def summary(claims):
    """The report's summary, sentence by sentence, generated from ``claims``
    (the user guide quotes it verbatim; a test holds the two equal)."""
    c1, c2, c3, c4, c5 = (claims[f"C{i}"] for i in range(1, 6))
    order = " > ".join(STUDY_GATES.labels[gate] for gate in STUDY_GATES.order)
    c1_parts = [
        f"{label}: {_measure_tally(c1, m)}"
        for m, label in (("curvature_exact", "curvature"), ("accuracy", "accuracy"))
    ]
    c2_parts = [f"{label} on {tally} curved shapes" for label, tally in _c2_tallies(c2)]
    c3_parts = c3_statements(c3)
    gated = c5["tests"][c5["tests"]["gate"] == "multiplicative"]
    c5_parts = [
        f"{row['stage']}, {row.get('architecture', 'plain')}: {_trend_phrase(row)}"
        for _, row in gated.iterrows()
    ]
    return [
        f"- C1 ({order}, per condition of shape, head and tokens; Holm over "
        f"{len(c1['tests'])} tests): the ordering holds in {'; '.join(c1_parts)} "
        "conditions.",
        f"- C2 (Spearman with alpha): rises for {'; '.join(c2_parts)}.",
        f"- C3 (linear task): {'; '.join(c3_parts)}.",
        f"- C4 (anisotropic metrics): {c4['verdict']}; the Euclidean curvature "
        f"ordering it must keep holds in {c4['euclidean ordering holds in']} of "
        f"{c4['conditions']} conditions.",
        f"- C5 (gated curvature against depth, Spearman): {'; '.join(c5_parts)}.",
        _measures_sentence(claims["measures"]),
        *([_headroom_sentence(claims["headroom"])] if "headroom" in claims else []),
        *_controls_sentences(claims.get("controls", {})),
        *([_positive_sentence(claims["C6"])] if "C6" in claims else []),
        *([_real_sentence(claims["real"])] if "real" in claims else []),
        *(
            [_production_sentence(claims["production"])]
            if "production" in claims
            else []
        ),
    ]


def _trend_phrase(row):
    return (
        f"rho {row['rho']:.2f} [{row['ci low']:.2f}, {row['ci high']:.2f}], "
        f"{row['outcome']}"
    )


def _c2_tallies(c2, condition=("shape",)):
    """(measure, 'k of N' over ``condition``) of C2's rise with alpha."""
    tests = c2["tests"]
    return [
        (
            label,
            status_tally(
                stats.statuses(tests[tests["y"] == y], list(condition))["status"]
            ),
        )
        for y, label in (("curvature_exact", "curvature"), ("accuracy", "accuracy"))
    ]


def _measure_tally(claim, measure, condition=claim_rules.GATE_CONDITION):
    tests = claim["tests"]
    return status_tally(
        stats.statuses(tests[tests["measure"] == measure], condition)["status"]
    )


def _both_measures(claim, condition=claim_rules.GATE_CONDITION):
    return (
        f"curvature {_measure_tally(claim, 'curvature_exact', condition)}; "
        f"accuracy {_measure_tally(claim, 'accuracy', condition)}"
    )


def _pairwise(tests, measure="accuracy"):
    """How often each step of C1's ordering holds alone (after the family's
    Holm correction): 'gated > SiLU in k of N, SiLU > ungated in m of N'."""
    parts = []
    for comparison, held, n in describe.pairwise_counts(tests, measure):
        better, worse = comparison.split(" > ")
        labels = STUDY_GATES.arm_labels
        parts.append(f"{labels[better]} > {labels[worse]} in {words.tally(held, n)}")
    return ", ".join(parts)


def _measures_sentence(measures):
    """Where the three curvature measures agree and disagree (C1 and C2)."""
    parts = measures["measures"]
    c1 = "; ".join(
        f"{label} {status_tally(p['C1']['statuses']['status'])}"
        for label, p in parts.items()
    )
    c2 = "; ".join(
        f"{label} {status_tally(p['C2']['statuses']['status'])}"
        for label, p in parts.items()
    )
    d1, d2 = (measures["disagreements"][c] for c in ("C1", "C2"))
    return (
        f"- Three curvature measures (the acceleration's tests are C1's and C2's "
        f"own; the others each their own Holm family): C1's "
        f"curvature ordering holds in {c1} conditions; C2's rise with alpha in "
        f"{c2} shapes. They disagree (one holds, another does not) in "
        f"{describe.count(d1['disagree'])} of {len(d1)} C1 conditions and "
        f"{describe.count(d2['disagree'])} of {len(d2)} C2 shapes."
    )


def _headroom_sentence(headroom):
    """Which C1 conditions accuracy cannot inform (ceiling or chance)."""

    def names(mask):
        rows = headroom[mask]
        return (
            "; ".join(
                f"{r['shape']}/{r['head']}/{r['tokens']}" for _, r in rows.iterrows()
            )
            or "none"
        )

    return (
        f"- Accuracy headroom (C1 conditions, against the task's Bayes accuracy, "
        f"margin {CEILING_MARGIN}): every arm at the ceiling in "
        f"{describe.count(headroom['at ceiling'])} of {len(headroom)} "
        f"({names(headroom['at ceiling'])}); near chance in "
        f"{describe.count(headroom['near chance'])} "
        f"({names(headroom['near chance'])}). "
        "There, no accuracy difference between the gates says little."
    )


def _controls_sentences(controls):
    """The summary's sentences on the controls of C1."""
    lines = []
    if "budget" in controls:
        budget = controls["budget"]
        rates = describe.levels(budget["frame"], "lr")
        parts = [
            f"{epochs} epochs: {_both_measures(claim)} (accuracy step by step: "
            f"{_pairwise(claim['tests'])})"
            for epochs, claim in budget["by budget"].items()
        ]
        lines.append(
            "- Budget and learning rate (C1 on copied tokens, each arm's rate "
            f"searched over {words.values(rates)} on validation "
            f"rows): the ordering holds in {'; '.join(parts)} conditions."
        )
    if "alpha_budget" in controls:
        control = controls["alpha_budget"]
        parts = [f"{label} on {tally}" for label, tally in _c2_tallies(control["C2"])]
        c3 = "; ".join(c3_statements(control["C3"]))
        lines.append(
            f"- C2 and C3 at {control['epochs']} epochs (learning rate searched "
            f"per alpha): alpha raises {'; '.join(parts)} curved shapes; "
            f"linear task: {c3}."
        )
    if "matched" in controls:
        lines.append(
            "- Arms of the same size (SiLU and ungated widened to the gated "
            "arm's number of effective weights): the ordering holds in "
            f"{_both_measures(controls['matched'])} conditions (accuracy step "
            f"by step: {_pairwise(controls['matched']['tests'])})."
        )
    if "gate_init" in controls:
        lines.append(_gate_init_sentence(controls["gate_init"]))
    if "noise" in controls:
        lines.append(_noise_sentence(controls["noise"]))
    return lines


def _gate_init_sentence(claim):
    """The summary's sentence on the gate initialisation control."""
    sensitivity = claim["sensitivity"]
    moved = []
    for measure, label in (
        ("accuracy", "accuracy"),
        ("curvature_exact", "curvature"),
    ):
        outcomes = sensitivity.loc[sensitivity["measure"] == measure, "outcome"]
        higher = describe.count(outcomes == stats.HOLDS)
        lower = describe.count(outcomes == stats.REVERSED)
        moved.append(
            f"{label} higher with gain 2 in {higher}, lower in {lower} "
            f"of {len(outcomes)}"
        )
    return (
        "- PyTorch's default gate initialisation instead of gain 2: the "
        f"ordering holds in {_both_measures(claim)} conditions (accuracy step "
        f"by step: {_pairwise(claim['tests'])}); {'; '.join(moved)} conditions."
    )


def _noise_sentence(control):
    """The summary's sentence on the noise control."""
    parts, rings = [], []
    for epochs, claim in control["by budget"].items():
        headroom = claim["headroom"]
        informative = ~(headroom["at ceiling"] | headroom["near chance"])
        parts.append(
            f"{epochs} epochs: {status_tally(claim['statuses']['status'])} (step by "
            f"step: {_pairwise(claim['tests'])}; below the ceiling and above "
            f"chance in {describe.count(informative)})"
        )
        hard = headroom[headroom["shape"] == "rings"]
        if len(hard):
            cells = ", ".join(
                f"{r['noise']:g}: {r['best arm']:.2f}/{r['bayes accuracy']:.2f}"
                for _, r in hard.iterrows()
            )
            rings.append(f"{epochs} epochs {cells}")
    return "- Noise (C1's accuracy ordering per shape x noise, MLP head): holds " + (
        f"in {'; '.join(parts)} conditions."
        + (
            f" Rings, best arm / Bayes accuracy by noise: {'; '.join(rings)}."
            if rings
            else ""
        )
    )


def _positive_sentence(c6):
    """The summary's sentence on C6."""
    tests = c6["tests"]
    share = tests[tests["measure"] == "positive_share"]
    cap = tests[tests["measure"] == "representation_positive_share"]
    shares = c6["shares"].set_index(["tokens", "gate"])["mean"]
    by_tokens = "; ".join(
        f"{tokens}: "
        + words.arm_values(
            (gate, shares[(tokens, gate)])
            for gate in STUDY_GATES.order
            if (tokens, gate) in shares.index
        )
        for tokens in dict.fromkeys(shares.index.get_level_values("tokens"))
    )
    means = describe.sphere_means(c6["sphere"])
    least, most = means["least"], means["most"]
    median_K, error = means["median_K"], means["relative_error"]
    shrinks = c6["shrinks"]
    falls = status_tally(stats.condition_status([o]) for o in shrinks["outcome"])
    per_tokens = "; ".join(
        f"{tokens} tokens {status_tally(part['outcome'])}"
        for tokens, part in describe.split_by(share, "tokens")
    )
    return (
        f"- C6 (gated > ungated, Holm over {len(tests)} tests): the share of "
        f"points with K positive beyond its noise floor is higher in "
        f"{status_tally(stats.statuses(share, ['condition'])['status'])} C1 conditions "
        f"({per_tokens}; mean share by tokens: {by_tokens}); in the sphere "
        "cap's representation in "
        f"{status_tally(stats.statuses(cap, ['condition'])['status'])} "
        f"(size, budget) conditions; the fitted output surface's median K "
        f"(not tested) {median_K[0]:.3f} "
        f"with {least[0]} rows and {least[1]} epochs, "
        f"{median_K[1]:.3f} with {most[0]} and {most[1]} (sphere "
        f"{c6['target']:g}; relative error {error[0]:.3f} "
        f"-> {error[1]:.3f}; falls in {falls} trend tests), "
        f"ungated {_flat(c6['sphere ungated max |K|'])}."
    )


def _flat(largest):
    """'exactly 0', or the largest magnitude where it is not."""
    return "exactly 0" if largest == 0 else f"|K| <= {largest:.3g}"


def _real_sentence(real):
    """The summary's sentence on the real and benchmark datasets."""
    parts = [f"the ordering holds in {_both_measures(real['C1'], ['task'])} datasets"]
    if "C2" in real:
        tallies = "; ".join(
            f"{label} on {tally}" for label, tally in _c2_tallies(real["C2"], ["task"])
        )
        parts.append(f"alpha raises {tallies} datasets whose Bayes boundary is curved")
    if "C3" in real:
        task = real["C3"]["tests"]["task"].iloc[0]
        parts.append(f"{task} (linear): {'; '.join(c3_statements(real['C3']))}")
    datasets = ", ".join(describe.distinct(real["C1"]["tests"], "task"))
    return (
        f"- Real and benchmark data (C1 per dataset, {datasets}): {'; '.join(parts)}."
    )


def _production_sentence(claim):
    """The summary's sentence on the production rerun."""
    measures = (("curvature_exact", "curvature"), ("accuracy", "accuracy"))

    def tally(tests, column, value):
        table = stats.statuses(
            tests[tests[column] == value], beyond.PRODUCTION_CONDITION
        )
        return status_tally(table["status"])

    parts = []
    for model in claim["by model"]:
        c1 = claim["C1"]["tests"]
        c1 = c1[c1["model"] == model]
        c2 = claim["C2"]["tests"]
        c2 = c2[c2["model"] == model]
        parts.append(
            f"{model}: C1 ordering "
            + "; ".join(f"{label} {tally(c1, 'measure', m)}" for m, label in measures)
            + "; C2 rise with alpha "
            + "; ".join(f"{label} {tally(c2, 'y', m)}" for m, label in measures)
        )
    return (
        "- Production rerun (the toy block beside a sigmoid-gated, 4-head, pre-LN "
        f"residual block; copied tokens and sequences): {'. '.join(parts)} "
        "conditions."
    )

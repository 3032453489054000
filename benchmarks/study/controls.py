"""C1 under controls: could the gate ordering come from something else?

Each control reruns C1 (and, at the longest budget, C2 and C3) with one
thing changed, by the same rules (:mod:`study.claims`), each its own
Holm family: the training budget with each arm's learning rate searched on
validation rows (:func:`select_learning_rate`, :func:`claim_budget`,
:func:`claim_alpha_budget`), arms of the same size (:func:`claim_matched`),
PyTorch's gate initialisation (:func:`claim_gate_init`) and the tasks'
noise (:func:`claim_noise`); :func:`control_verdicts` names their verdicts.
"""

import pandas as pd

from skgate.estimators import GatedAttentionClassifier

from .claims import (
    C1_MEASURES,
    GATE_CONDITION,
    accuracy_headroom,
    claim_alpha,
    claim_linear,
    ordering_claim,
    paired_comparison,
    with_tokens,
)
from .design import DEFAULTS
from .facts import statements
from .stats import adjust

__all__ = [
    "NOISE_CONDITION",
    "claim_alpha_budget",
    "claim_budget",
    "claim_gate_init",
    "claim_matched",
    "claim_noise",
    "control_verdicts",
    "select_learning_rate",
]


#: Setting keys that make an arm: every setting key but the learning rate and
#: what only says how to measure.
_ARM_KEYS = tuple(
    k for k in DEFAULTS if k not in ("lr", "condition_numbers", "n_curvature")
)


def select_learning_rate(frame):
    """Each arm's learning rate as an inner search picks it: per seed and
    setting, the row (of the ``lr`` values tried) with the best validation
    score, the smallest rate on ties. The test split plays no part."""
    keys = [k for k in _ARM_KEYS if k in frame]
    if frame["validation_score"].isna().any():
        raise ValueError(
            "select_learning_rate needs every row's validation_score: fits with "
            "early_stopping=True (the study's budgeted sweeps)."
        )
    ordered = frame.sort_values("lr", kind="stable")
    best = ordered.groupby(keys, sort=False, dropna=False)["validation_score"].idxmax()
    return frame.loc[sorted(best)]


def claim_budget(budget):
    """C1 at each training budget of the ``budget`` sweep, each arm with its
    learning rate chosen by :func:`select_learning_rate`; with the rates
    chosen and the epochs the kept weights come from."""
    frame = with_tokens(select_learning_rate(budget))
    by_budget = {
        int(epochs): ordering_claim(part)
        for epochs, part in frame.groupby("max_epochs", sort=True)
    }
    chosen = (
        frame.groupby(["max_epochs", "gate", "lr"], sort=False)
        .size()
        .unstack("lr", fill_value=0)
        .reset_index()
    )
    epochs = frame.groupby(["max_epochs", "gate"], sort=False)["best_epoch"].median()
    return {
        "frame": frame,
        "by budget": by_budget,
        "chosen": chosen,
        "best epoch": epochs.rename("median best epoch").reset_index(),
    }


def claim_alpha_budget(alpha_budget):
    """C2 and C3 on the ``alpha_budget`` sweep (the longest budget), each
    alpha with its learning rate chosen by :func:`select_learning_rate`."""
    frame = select_learning_rate(alpha_budget)
    return {
        "frame": frame,
        "epochs": int(frame["max_epochs"].max()),
        "C2": claim_alpha(frame),
        "C3": claim_linear(frame),
    }


def _substituted(gates, control, gate_arms):
    """C1's copied-token conditions with the arms ``gate_arms`` taken from
    ``control`` instead of ``gates`` (same tasks, splits and seeds)."""
    copied = with_tokens(gates)
    copied = copied[copied["tokens"] == "copied"]
    control = with_tokens(control)
    return pd.concat(
        [
            copied[~copied["gate"].isin(gate_arms)],
            control[control["gate"].isin(gate_arms)],
        ],
        ignore_index=True,
    )


def claim_matched(gates, matched):
    """C1 with the SiLU and ungated arms widened to the gated arm's number of
    effective weights (the ``matched`` sweep), copied tokens."""
    return ordering_claim(_substituted(gates, matched, ("silu", "none")))


def claim_gate_init(gates, gate_init):
    """C1 with the gated arm's gate initialised as PyTorch's default (the
    ``gate_init`` sweep), copied tokens; and the sensitivity itself: skgate's
    gain 2 against PyTorch's default, paired by seed, per condition (its own
    Holm family; "holds" means gain 2 is higher)."""
    claim = ordering_claim(_substituted(gates, gate_init, ("multiplicative",)))
    copied = with_tokens(gates)
    gated = pd.concat(
        [
            copied[
                (copied["tokens"] == "copied") & (copied["gate"] == "multiplicative")
            ],
            with_tokens(gate_init),
        ],
        ignore_index=True,
    )
    claim["sensitivity"] = adjust(
        pd.concat(
            [
                paired_comparison(
                    gated, GATE_CONDITION, "gate_init", "gain 2", "pytorch", measure
                )
                for measure in C1_MEASURES
            ],
            ignore_index=True,
        )
    )
    return claim


NOISE_CONDITION = ["shape", "noise"]


def claim_noise(noise, budget, bayes):
    """C1's accuracy ordering across noise levels, at each budget: the
    ``noise`` sweep with the ``budget`` sweep's rows at the default noise
    (MLP head, the classifier's default learning rate); with the accuracy
    headroom of each (shape, noise)."""
    default_lr = GatedAttentionClassifier().lr
    same = budget[(budget["head"] == "mlp") & (budget["lr"] == default_lr)]
    frame = pd.concat([noise, same], ignore_index=True)
    frame = frame.sort_values(["max_epochs", "shape", "noise"], kind="stable")
    by_budget = {}
    for epochs, part in frame.groupby("max_epochs", sort=True):
        claim = ordering_claim(part, ("accuracy",), NOISE_CONDITION)
        claim["headroom"] = accuracy_headroom(part, bayes, NOISE_CONDITION)
        by_budget[int(epochs)] = claim
    return {"frame": frame, "by budget": by_budget}


def control_verdicts(claims):
    """Control statement -> verdict: C1 under the controls that
    :func:`~study.evaluation.evaluate_claims` found sweeps for
    (budgets with the learning rate searched, parameter-matched arms,
    PyTorch's gate initialisation, noise)."""
    controls = claims.get("controls", {})
    table = {}
    for epochs, claim in controls.get("budget", {}).get("by budget", {}).items():
        title = f"C1 accuracy at {epochs} epochs, learning rate searched per arm"
        table[title] = claim["verdict by measure"]["accuracy"]
    if "matched" in controls:
        title = "C1 with SiLU and ungated arms as large as the gated one"
        table[title] = controls["matched"]["verdict"]
    if "gate_init" in controls:
        title = "C1 with PyTorch's default gate initialisation"
        table[title] = controls["gate_init"]["verdict"]
    if "alpha_budget" in controls:
        control = controls["alpha_budget"]
        for claim in ("C2", "C3"):
            title = (
                f"{statements('exploratory')[claim]}, {control['epochs']} epochs, "
                "learning rate searched per alpha"
            )
            table[title] = control[claim]["verdict"]
    for epochs, claim in controls.get("noise", {}).get("by budget", {}).items():
        noises = sorted(claim["statuses"]["noise"].unique())
        title = (
            f"C1 accuracy across noise {noises[0]:g}-{noises[-1]:g}, {epochs} epochs"
        )
        table[title] = claim["verdict"]
    return table

"""The claims beyond the paper's setting, by the same rules as C1-C6.

- the production rerun (:func:`claim_production`): C1 and C2 in the block
  production gated attention uses (sigmoid gate, several heads, pre-LN
  residual) beside the paper's toy block;
- real data (:func:`claim_real`): C1-C3 on datasets nobody made for this
  study, C2 and C3 where the Bayes boundary is known;
- the depth regime map (:func:`claim_regime`): where depth amplifies
  curvature at initialisation (C5's growth per block).

Each is its own family of tests (:mod:`study.claims`' rules);
:func:`production_verdicts` and :func:`real_verdicts` name their verdicts.
"""

import math

import numpy as np
import pandas as pd

from skgate.estimators import GatedAttentionClassifier

from . import stats
from .claims import (
    C1_MEASURES,
    alpha_trends,
    claim_linear,
    gate_ordering,
    ordering_claim,
    verdict_of,
)
from .design import PRODUCTION_MODELS
from .realdata import BOUNDARIES
from .stats import adjust

__all__ = [
    "PRODUCTION_CONDITION",
    "REGIME_FLAT",
    "REGIME_MEASURES",
    "claim_production",
    "claim_real",
    "claim_regime",
    "production_arms",
    "production_frame",
    "production_verdicts",
    "real_verdicts",
]


#: The production rerun's conditions: model, shape, token form.
PRODUCTION_CONDITION = ["model", "shape", "tokens"]


def production_frame(production):
    """The ``production`` sweep with ``model`` (a key of
    :data:`~study.design.PRODUCTION_MODELS`, from the architecture)
    and ``tokens`` ("copied", or "<n> tokens") columns."""
    frame = production.copy()
    model_of = {spec["architecture"]: name for name, spec in PRODUCTION_MODELS.items()}
    frame["model"] = frame["architecture"].map(model_of)
    frame["tokens"] = [
        "copied" if n == 1 else f"{n} tokens" for n in frame["n_observations"]
    ]
    return frame


def production_arms(frame, model):
    """C1's three arms of ``model``: its gated arm (the toy's at the
    classifier's default alpha), SiLU and ungated."""
    gated = PRODUCTION_MODELS[model]["gated"]
    part = frame[frame["model"] == model]
    keep = part["gate"] != "multiplicative"
    if gated == "multiplicative":
        keep |= part["alpha"] == GatedAttentionClassifier().alpha
    return part[keep]


def claim_production(production):
    """C1 and C2 in the production architecture beside the paper's toy block.

    C1: per model, its gated arm > SiLU > ungated in curvature and accuracy
    (the production model's gated arm is the sigmoid gate), per (model,
    shape, token form), paired by seed, one Holm family. C2: curvature and
    accuracy against the multiplicative gate's alpha (inside each model's
    architecture), per condition, one Holm family. Verdicts overall and by
    model.
    """
    frame = production_frame(production)
    c1 = adjust(
        pd.concat(
            [
                gate_ordering(
                    production_arms(frame, model),
                    measure,
                    PRODUCTION_CONDITION,
                    (spec["gated"], "silu", "none"),
                )
                for model, spec in PRODUCTION_MODELS.items()
                for measure in C1_MEASURES
            ],
            ignore_index=True,
        )
    )
    gated = frame[frame["gate"] == "multiplicative"]
    c2 = alpha_trends(gated, PRODUCTION_CONDITION)
    by_model = {}
    for model in PRODUCTION_MODELS:
        here = c1[c1["model"] == model]
        by_model[model] = {
            "C1": verdict_of(here, PRODUCTION_CONDITION),
            "C1 by measure": {
                m: verdict_of(here[here["measure"] == m], PRODUCTION_CONDITION)
                for m in C1_MEASURES
            },
            "C2": verdict_of(
                c2["tests"][c2["tests"]["model"] == model], PRODUCTION_CONDITION
            ),
        }
    return {
        "frame": frame,
        "C1": {"tests": c1, "verdict": verdict_of(c1, PRODUCTION_CONDITION)},
        "C2": c2,
        "by model": by_model,
    }


def production_verdicts(claims):
    """Statement -> verdict of C1 and C2 per model of the production rerun."""
    if "production" not in claims:
        return {}
    names = {
        ("C1", "toy"): "the paper's toy block",
        ("C1", "production"): "the production block (sigmoid gate, 4 heads, "
        "pre-LN residual)",
        ("C2", "toy"): "the paper's toy block",
        ("C2", "production"): "the production architecture (4 heads, pre-LN "
        "residual; the multiplicative gate's alpha)",
    }
    lengths = sorted(
        n for n in claims["production"]["frame"]["n_observations"].unique() if n > 1
    )
    forms = f"copied tokens and sequences of {', '.join(map(str, lengths))} tokens"
    table = {}
    for claim in ("C1", "C2"):
        for model, verdicts_ in claims["production"]["by model"].items():
            title = f"{claim} in {names.get((claim, model), model)}, {forms}"
            table[title] = verdicts_[claim]
    return table


def claim_real(real, real_alpha):
    """C1-C3 on :mod:`study.realdata`'s datasets, each its own family.

    "C1": the gate ordering per dataset; "C2": the rise with alpha where the
    Bayes boundary is known to be curved; "C3": the linear control where it
    is known to be linear (twonorm); "unknown": the alpha trends where the
    boundary is unknown (real measurements), reported, not a test of C2.
    """
    boundary = real_alpha["task"].map(BOUNDARIES)
    claims = {
        "frame": real,
        "alpha frame": real_alpha,
        "C1": ordering_claim(real, condition=["task"]),
    }
    # Each part where the run has datasets of its kind.
    for key, kind in (("C2", "curved"), ("unknown", "unknown")):
        if (boundary == kind).any():
            claims[key] = alpha_trends(real_alpha[boundary == kind], ["task"])
    linear = real_alpha[boundary == "linear"]
    if len(linear):
        claims["C3"] = claim_linear(linear, task=linear["task"].iloc[0])
    return claims


def real_verdicts(claims):
    """Statement -> verdict of C1-C3 on the real and benchmark datasets."""
    if "real" not in claims:
        return {}
    real = claims["real"]
    titles = {
        "C1": "C1 on data nobody made for this study",
        "C2": "C2 where the Bayes boundary is known to be curved",
        "C3": "C3 where it is known to be linear",
    }
    return {
        f"{title} ({', '.join(real[key]['tests']['task'].unique())})": real[key][
            "verdict"
        ]
        for key, title in titles.items()
        if key in real
    }


#: Below this curvature a network of the regime map counts as flat.
REGIME_FLAT = 1e-12


def _slopes(cell, value="curvature"):
    """Per seed, the least-squares slope of log ``value`` on depth; None
    when it is 0 at some depth (a flat network)."""
    slopes = []
    for _, run in cell.groupby("seed", sort=True):
        y = run[value].to_numpy()
        if (y <= REGIME_FLAT).any():
            return None
        slopes.append(np.polyfit(run["depth"], np.log(y), 1)[0])
    return np.array(slopes)


#: The regime map's measures, each its own Holm family: the paper's
#: acceleration (it grows with the representation's size) and bending,
#: extrinsic curvature times size (no scaling of the representation changes it).
REGIME_MEASURES = {
    "curvature": "acceleration (the paper's)",
    "bending": "bending (extrinsic x size, scale-free)",
}


def _growth_row(cell, measure):
    """One cell's growth per block of ``measure`` with its test, or None
    when the network is flat."""
    slopes = _slopes(cell, measure)
    if slopes is None:
        return None
    tested = stats.paired_statistics(slopes, np.zeros_like(slopes), margin=0.0)
    return {
        "growth per block": math.exp(tested["mean difference"]),
        "growth ci low": math.exp(tested["ci low"]),
        "growth ci high": math.exp(tested["ci high"]),
        "p": tested["p"],
        "p reverse": tested["p reverse"],
        "p equivalence": tested["p equivalence"],
        "n": len(slopes),
        # What the acceleration scales with: the representation's size.
        "norm growth": math.exp(_slopes(cell, "norm").mean()),
    }


def claim_regime(frame):
    """Per measure (:data:`REGIME_MEASURES`) and (architecture, alpha, weight
    scale): the growth per block, exp(slope of log curvature on depth), with
    its 95 % interval over seeds, and the outcome of "depth amplifies"
    (slope > 0; one Holm family per measure; "reversed": it decays), beside
    the representation's own growth in size. Flat networks (ungated
    attention without LayerNorm: curvature 0) are "flat", outside the tests."""
    keys = ["architecture", "alpha", "weight_scale"]
    tables = []
    for measure, label in REGIME_MEASURES.items():
        measured, flat = [], []
        for key, cell in frame.groupby(keys, sort=False):
            where = {"measure": label, **dict(zip(keys, key, strict=True))}
            row = _growth_row(cell, measure)
            if row is None:
                flat.append({**where, "n": cell["seed"].nunique(), "outcome": "flat"})
            else:
                measured.append({**where, **row})
        if measured:
            tables.append(adjust(pd.DataFrame(measured)))
        tables.append(pd.DataFrame(flat))
    return pd.concat(tables, ignore_index=True)

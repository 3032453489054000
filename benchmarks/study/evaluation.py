"""The exploratory study evaluated: every family of claims from the sweep
tables (:func:`evaluate_claims`) and the table of their verdicts
(:func:`verdicts`).

C1-C6 and the three curvature measures are :mod:`study.claims`'; the
controls :mod:`study.controls`'; the production rerun, real data and
the depth regime map :mod:`study.beyond`'s.
"""

from collections.abc import Mapping

from .beyond import (
    claim_production,
    claim_real,
    claim_regime,
    production_verdicts,
    real_verdicts,
)
from .claims import (
    accuracy_headroom,
    claim_alpha,
    claim_anisotropy,
    claim_depth,
    claim_gates,
    claim_linear,
    claim_measures,
    claim_positive,
)
from .controls import (
    claim_alpha_budget,
    claim_budget,
    claim_gate_init,
    claim_matched,
    claim_noise,
    control_verdicts,
)
from .facts import statements

__all__ = ["evaluate_claims", "verdicts"]


def evaluate_claims(results):
    """Every claim's statistics from the sweep tables, by claim id (C1..C5),
    the three curvature measures, and (when ``results`` has the tasks'
    Bayes accuracies, "bayes") the accuracy headroom of C1's conditions."""
    claims = {
        "C1": claim_gates(results["gates"]),
        "C2": claim_alpha(results["alpha"]),
        "C3": claim_linear(results["alpha"]),
        "C4": claim_anisotropy(results["gates"]),
        "C5": claim_depth(results["depth_init"], results["depth_trained"]),
        "measures": None,  # below: it quotes C1's and C2's own tests
    }
    claims["measures"] = claim_measures(
        results["gates"], results["alpha"], claims["C1"]["tests"], claims["C2"]["tests"]
    )
    if "sphere" in results:
        claims["C6"] = claim_positive(results["gates"], results["sphere"])
    if "regime" in results:
        claims["regime"] = claim_regime(results["regime"])
    if "real" in results and "real_alpha" in results:
        claims["real"] = claim_real(results["real"], results["real_alpha"])
    if "production" in results:
        claims["production"] = claim_production(results["production"])
    if "bayes" in results:
        claims["headroom"] = accuracy_headroom(results["gates"], results["bayes"])
    controls = {}
    if "budget" in results:
        controls["budget"] = claim_budget(results["budget"])
    if "matched" in results:
        controls["matched"] = claim_matched(results["gates"], results["matched"])
    if "gate_init" in results:
        controls["gate_init"] = claim_gate_init(results["gates"], results["gate_init"])
    if "alpha_budget" in results:
        controls["alpha_budget"] = claim_alpha_budget(results["alpha_budget"])
    if "noise" in results and "budget" in results and "bayes" in results:
        controls["noise"] = claim_noise(
            results["noise"], results["budget"], results["bayes"]
        )
    if controls:
        claims["controls"] = controls
    return claims


def verdicts(claims):
    """Claim statement -> verdict, in the order of the claims (those
    evaluated), then the controls' (:func:`control_verdicts`) and the real
    data's (:func:`real_verdicts`) and the production rerun's
    (:func:`production_verdicts`). ``claims`` is what
    :func:`evaluate_claims` returns: a dict of claim id -> claim (a dict
    with its "verdict").

    Examples
    --------
    >>> verdicts({"C2": {"verdict": "reproduced"}})  # doctest: +ELLIPSIS
    {'...': 'reproduced'}
    """
    _check_claims(claims)
    return {
        **{
            title: claims[key]["verdict"]
            for key, title in statements("exploratory").items()
            if key in claims
        },
        **control_verdicts(claims),
        **real_verdicts(claims),
        **production_verdicts(claims),
    }


def _check_claims(claims):
    """A TypeError or ValueError unless ``claims`` is a dict of claims as
    :func:`evaluate_claims` makes it (each claim a dict with a "verdict";
    the controls, real data and production rerun dicts)."""
    made = "as evaluate_claims returns it"
    if not isinstance(claims, Mapping):
        raise TypeError(
            f"claims must be a dict of claim id -> claim ({made}); got "
            f"{type(claims).__name__}."
        )
    for key in ("controls", "real", "production", *statements("exploratory")):
        if key not in claims:
            continue
        if not isinstance(claims[key], Mapping):
            raise TypeError(
                f"claims[{key!r}] must be a dict ({made}); got "
                f"{type(claims[key]).__name__}."
            )
        if key.startswith("C") and "verdict" not in claims[key]:
            raise ValueError(
                f"claims[{key!r}] has no 'verdict' ({made}); it holds "
                f"{sorted(map(str, claims[key]))}."
            )

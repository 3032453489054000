"""What an evaluation's result records and says: the names of its score and
curvature, the arms' shared parameters, the libraries' versions, a
probability in words, and the verdict's views (text, table, HTML)."""

import html
from importlib.metadata import PackageNotFoundError, version

from ..geometry import INTRINSIC_KINDS

_CURVATURE_NAMES = {
    "acceleration": "acceleration",
    "extrinsic": "extrinsic curvature",
    "turning": "turning rate",
    "gaussian": "Gaussian curvature",
    "scalar": "scalar curvature",
}


def scoring_name(scoring, task):
    if scoring is None:
        return "accuracy" if task == "classification" else "R^2"
    if isinstance(scoring, str):
        return scoring
    function = getattr(scoring, "_score_func", scoring)  # make_scorer's scorers
    return getattr(function, "__name__", "score")


def curvature_label(params, *, magnitude=False):
    """The curvature ``params`` measure, by name; with ``magnitude``, what
    the tests compare: |name| for the kinds that take either sign (a flat
    arm is less curved than a negatively curved one)."""
    name = _CURVATURE_NAMES.get(params.get("kind"), str(params.get("kind")))
    if magnitude and params.get("kind") in INTRINSIC_KINDS:
        name = f"|{name}|"
    extra = {k: v for k, v in params.items() if k != "kind"}
    if not extra:
        return name
    return f"{name} ({', '.join(f'{k}={v!r}' for k, v in sorted(extra.items()))})"


def shared_params(estimator):
    """Every arm's estimator parameters but its gate and strength."""
    params = estimator.get_params()
    return {k: v for k, v in params.items() if k not in ("gate", "alpha")}


def library_versions():
    names = ("skgate", "torch", "scikit-learn", "skorch", "numpy", "scipy")
    found = {}
    for name in names:
        try:
            found[name] = version(name)
        except PackageNotFoundError:  # e.g. skgate run from a source tree
            found[name] = "not installed"
    return found


def probability_text(p):
    if p != p:  # NaN: no posterior (no spread between the splits)
        return "undefined"
    if p > 0.99:
        return "> 0.99"
    return "< 0.01" if p < 0.01 else f"{p:.2f}"


class Verdict:
    """What a result with ``verdict_`` and ``tests_`` shows: the tests'
    columns ``_SHOWN`` as a DataFrame, as text under the verdict, and as
    HTML (``_html_extra`` adds to it)."""

    _SHOWN = ()

    def summary(self):
        """The tests as a DataFrame: the columns a reader needs, from the
        comparison to the outcome."""
        return self.tests_[list(self._SHOWN)].copy()

    def __str__(self):
        return f"{self.verdict_}\n\n{self.summary().to_string(index=False)}"

    def _html_extra(self):
        return ""

    def _repr_html_(self):
        table = self.summary().to_html(
            index=False, float_format=lambda v: f"{v:.4g}", border=0
        )
        return (
            f"<div><p><b>{html.escape(self.verdict_)}</b></p>{table}"
            f"{self._html_extra()}</div>"
        )

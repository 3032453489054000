"""The study's facts, each stated once: how gates are named, what each claim
says, the seeds, the conditions, the margins and the grids of every part.

Every other module imports these; ``tests/test_layout.py`` finds no second
definition of a name, and no second table of gate labels. What a part
alone decides (its model, its training budget, its files) stays in the
part's module.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from skgate.benchmark import GATE_LEARNING_RATES
from skgate.estimators import GatedAttentionClassifier
from skgate.paired import CURVATURE_MARGIN_SHARE, SCORE_MARGIN

from .commands import FULL_SEEDS, QUICK_SEEDS

__all__ = [
    "ReadOnlyDict",
    "STALL_FRACTION",
    "STALL_SHARE",
    "ATTAINABLE_SEEDS",
    "StudyGates",
    "SequenceForm",
    "STUDY_GATES",
    "SEQUENCE",
    "Grids",
    "GRIDS",
    "EPOCHS",
    "Budgets",
    "ACCURACY_MARGIN",
    "CEILING_MARGIN",
    "CLAIMS",
    "COPIED_CANDIDATES",
    "COPIED_CONDITION",
    "COPIED_CONDITION_NUMBER",
    "COPIED_FIRST_SEED",
    "COPIED_MIN_SEEDS",
    "COPIED_MAX_SEEDS",
    "COPIED_PILOT_SEEDS",
    "COPIED_SEEDS",
    "COPIED_SESOI",
    "CURVATURE_MARGIN",
    "CURVATURE_MARGIN_SHARE",
    "EPOCHS20_SEEDS",
    "FULL_SEEDS",
    "HEADROOM",
    "INIT_SEED_FACTOR",
    "LINEAR",
    "MAKER_TASKS",
    "LR_GRID_SEEDS",
    "POWER",
    "QUICK_CURVATURE_POINTS",
    "QUICK_SEEDS",
    "QUICK_SEQUENCE_SEEDS",
    "SCORE_MARGIN",
    "SEQUENCE_CONDITIONS",
    "SEQUENCE_FIRST_SEED",
    "SEQUENCE_LEARNING_RATES",
    "SEQUENCE_MIN_SEEDS",
    "SEQUENCE_NOISES",
    "SEQUENCE_PILOT_SEEDS",
    "SEQUENCE_SEEDS",
    "SEQUENCE_SHAPES",
    "THEOREM_SEEDS",
    "TREND_MARGIN",
    "statements",
]


class ReadOnlyDict(dict):
    """A dict whose items cannot change once made: a fact many modules read.
    Unlike :class:`types.MappingProxyType` it pickles and copies (to itself),
    and ``{**fact}`` or ``dict(fact)`` give an ordinary dict to change."""

    def _refuse(self, *args, **kwargs):
        raise TypeError(
            "a study fact is read-only (stated once, in study.facts); "
            "change a copy: dict(fact)."
        )

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        return (type(self), (dict(self),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


# -- gates ------------------------------------------------------------------------


@dataclass(frozen=True)
class StudyGates:
    """How the study orders, names and colours the gates it compares: the
    gates the study compares, not the gates the model offers
    (:data:`skgate.nn.GATES`), though today they agree. Its mappings are
    read-only."""

    #: C1's predicted order, most curved first.
    order: tuple
    #: How the exploratory tables and figures name the gates (gated: at the
    #: classifier's default alpha).
    labels: Mapping
    #: How the confirmatory tables, sentences and figures name the arms.
    arm_labels: Mapping
    #: The theorem's setting names its fourth arm, the per-head sigmoid gate.
    theorem_arm_labels: Mapping
    #: Each gate's colour in every figure.
    colors: Mapping


_ARM_LABELS = ReadOnlyDict(multiplicative="gated", silu="SiLU", none="ungated")
STUDY_GATES = StudyGates(
    order=("multiplicative", "silu", "none"),
    labels=ReadOnlyDict(
        {
            "multiplicative": f"gated (alpha={GatedAttentionClassifier().alpha:g})",
            "silu": "SiLU",
            "none": "ungated",
        }
    ),
    arm_labels=ReadOnlyDict(_ARM_LABELS),
    theorem_arm_labels=ReadOnlyDict({**_ARM_LABELS, "sigmoid_head": "per-head gated"}),
    colors=ReadOnlyDict(
        {"multiplicative": "tab:red", "silu": "tab:orange", "none": "tab:blue"}
    ),
)

# -- claims -----------------------------------------------------------------------

#: Each claim in the words of each part's verdict table: the exploratory
#: study's titles, and the two protocols' statements (docs/protocol.md,
#: docs/protocol-2.md), which each protocol fixed before its run and which
#: therefore differ where the parts test different things.
_CLAIMS = {
    "C1": {
        "exploratory": "C1 gate ordering (curvature and accuracy)",
        "copied": "gated > SiLU > ungated in curvature and accuracy on a curved task",
        "sequences": "gated > SiLU and gated > ungated in accuracy and curvature "
        "(softmax attention over sequences)",
    },
    "C2": {
        "exploratory": "C2 alpha raises curvature and accuracy on curved tasks",
        "copied": "curvature and accuracy rise with alpha on a curved task",
        "sequences": "curvature and accuracy rise with alpha (alpha > 0)",
    },
    "C3": {
        "exploratory": "C3 linear control: accuracy flat, curvature rises",
        "copied": "on a linear task gating brings no accuracy; curvature still rises",
        "sequences": "on a linear task gating brings no accuracy (its curvature "
        "trend left the family for the budget)",
    },
    "C4": {
        "exploratory": "C4 ordering survives anisotropic metrics",
        "copied": "the curvature ordering survives an anisotropic metric",
        "sequences": "the curvature ordering survives each model's own "
        "(Mahalanobis) metric",
    },
    "C5": {
        "exploratory": "C5 curvature accumulates with depth",
        "copied": "curvature accumulates with depth",
        "sequences": "curvature accumulates with depth",
    },
    "C6": {
        "exploratory": "C6 gating reaches positive curvature, ungated attention cannot",
        "copied": "gating reaches positive curvature; ungated attention cannot",
        "sequences": "gating reaches positive curvature more often than SiLU",
    },
}
CLAIMS = ReadOnlyDict({claim: ReadOnlyDict(said) for claim, said in _CLAIMS.items()})


def statements(part):
    """Claim -> statement in ``part``'s words ("exploratory", "copied" or
    "sequences"), in the claims' order."""
    known = sorted(CLAIMS["C1"])
    if part not in known:
        raise ValueError(f"part must be one of {known}; got {part!r}.")
    return {claim: words[part] for claim, words in CLAIMS.items()}


# -- training budgets -------------------------------------------------------------


@dataclass(frozen=True)
class Budgets:
    """Training budgets, in epochs."""

    #: The paper's: the controls' first budget and the confirmatory parts'
    #: 20-epoch secondary analysis.
    paper: int
    #: The long one, at which every arm has stopped improving: the controls'
    #: second budget and the confirmatory parts' cap.
    long: int

    @property
    def study(self):
        """Epochs of a fit whose setting names none: the paper's (the
        estimators' default was 20 when the study's runs were made; theirs is
        now "auto", which the study never uses)."""
        return self.paper


EPOCHS = Budgets(paper=20, long=300)


# -- the sequence form -------------------------------------------------------------


@dataclass(frozen=True)
class SequenceForm:
    """How a row is a sequence in the sequence conditions."""

    #: Noisy observations of the latent point per row, one token each.
    n_observations: int
    #: Width of each token (one 2-D observation).
    token_dim: int


SEQUENCE = SequenceForm(n_observations=8, token_dim=2)


# -- seeds ------------------------------------------------------------------------

#: The first part (copied tokens): the pilot's seeds and the first
#: confirmatory seed, disjoint from each other and from every seed an earlier
#: run used (0-19) ...

COPIED_PILOT_SEEDS = tuple(range(500, 520))
COPIED_FIRST_SEED = 1000
#: ... and its seeds per sweep, fixed by protocol 1 from the pilot
#: (:func:`study.primary.plan_seeds`; a test checks them against the
#: committed pilot), within these bounds.
COPIED_SEEDS = ReadOnlyDict(arms=129, alpha=34, depth=20)
COPIED_MIN_SEEDS, COPIED_MAX_SEEDS = 10, 150
#: The second part (sequences): pilot seeds and the first confirmatory seed,
#: disjoint from each other and from every earlier run (0-19, 500-519,
#: 1000-1128) ...
SEQUENCE_PILOT_SEEDS = tuple(range(2000, 2008))
SEQUENCE_FIRST_SEED = 3000
#: ... its seeds per sweep (:func:`study.sequences_pilot.plan_seeds`), at
#: least SEQUENCE_MIN_SEEDS each ...
SEQUENCE_SEEDS = ReadOnlyDict(arms=99, alpha=39, depth=10)
SEQUENCE_MIN_SEEDS = 10
#: ... and the seeds of its secondary sweeps: the learning-rate grid (every
#: arm at every other rate) and the 20-epoch arms (the first of the arms').
LR_GRID_SEEDS = 6
EPOCHS20_SEEDS = 30
#: The quick run (``make demo``): seeds per sweep of its first part
#: (:data:`QUICK_SEEDS`, which the command line states) and of its second
#: part; curvature points per fit of both (the confirmatory run: 200). The
#: exploratory study's seeds by default: :data:`FULL_SEEDS`.
QUICK_SEQUENCE_SEEDS = 3
QUICK_CURVATURE_POINTS = 60
#: The second part's attainable accuracy (scikit-learn models on the arms'
#: own rows and splits): on the arms' first this many seeds.
ATTAINABLE_SEEDS = 10
#: The theorem's setting: seeds per setting, from the study's first seed.
THEOREM_SEEDS = 20
#: Untrained networks are cheap: C5 at initialisation uses this many times the seeds.
INIT_SEED_FACTOR = 2

#: A fit whose best validation epoch lies in the first STALL_FRACTION of its
#: budget stalled: a rule added after both confirmatory runs (their
#: convergence rules look at the end of the budget only), reported beside
#: them in both parts, descriptive.
STALL_FRACTION = 0.05
#: An arm's accuracy is "at convergence" only where fewer than 5 % of its
#: fits had their best epoch late (each protocol's own check) and fewer than
#: STALL_SHARE stalled: the replication plan's rule (docs/replication.md),
#: stated before the replication ran; elsewhere the report says "at the
#: protocol's budget".
STALL_SHARE = 0.05

# -- conditions -------------------------------------------------------------------

#: The first part's curved conditions the pilot considers, in the order of
#: preference: the first with accuracy headroom (:data:`HEADROOM`) is the
#: primary condition ...
COPIED_CANDIDATES = (
    ReadOnlyDict(shape="checkerboard", noise=0.2),
    ReadOnlyDict(shape="checkerboard", noise=0.1),
    ReadOnlyDict(shape="rings", noise=0.2),
    ReadOnlyDict(shape="rings", noise=0.1),
)
#: ... and the one protocol 1 fixed from the pilot
#: (:func:`study.primary.choose_condition`).
COPIED_CONDITION = ReadOnlyDict(shape="rings", noise=0.2)
#: The linear control task (C3), in both parts.
LINEAR = ReadOnlyDict(task="linear")
#: The tasks skgate's makers draw (make_curved_task, make_linear_task): the
#: primary sweeps', and the ones whose Bayes accuracy
#: skgate.datasets.bayes_accuracy computes.
MAKER_TASKS = ("curved", "linear")
#: The second part's curved shapes, and each one's candidate noise levels in
#: the order of preference (the first with headroom in the pilot's first
#: stage is the condition) ...
SEQUENCE_SHAPES = ("rings", "checkerboard")
SEQUENCE_NOISES = (0.3, 0.5)
#: ... and the conditions protocol 2 fixed from the pilot
#: (:func:`study.sequences_pilot.choose_noises`).
SEQUENCE_CONDITIONS = (
    ReadOnlyDict(shape="rings", noise=0.3),
    ReadOnlyDict(shape="checkerboard", noise=0.3),
)
#: The first part's anisotropic output metric (C4): log-spaced eigenvalues
#: 1 .. 1/1000.
COPIED_CONDITION_NUMBER = 1000

# -- margins ----------------------------------------------------------------------

#: The confirmatory parts' smallest effects of interest, by measure: accuracy
#: :data:`SCORE_MARGIN` (0.02, the library's, which compare_gates shares);
#: positive share 0.05; a trend's mean per-seed Spearman rho 0.3; curvature
#: :data:`CURVATURE_MARGIN_SHARE` (a quarter) of the two arms' mean (relative:
#: curvatures have no common unit across measures; the exploratory study's
#: 10 % needs 224-318 seeds at the pilot's spread).
COPIED_SESOI = ReadOnlyDict(accuracy=SCORE_MARGIN, positive_share=0.05, rho=0.3)
#: Bayes accuracy minus the best arm's mean, and the best arm's mean minus
#: chance, at least this in a pilot for a condition to be a confirmatory
#: part's (both parts).
HEADROOM = 0.05
#: Power planning of both parts: 80 % power at the smallest effect of
#: interest, at the strictest Holm level of the primary family.
POWER = 0.8
#: Equivalence margins of "no difference" (TOST) of the exploratory study,
#: set after a 5-seed run had been seen (git history; not pre-registered:
#: the confirmatory study's margins are docs/protocol.md's): an accuracy
#: difference within 0.02 is no difference ...
ACCURACY_MARGIN = 0.02
#: ... and a curvature difference within 10 % of the lower arm's mean.
CURVATURE_MARGIN = 0.10
#: Equivalence margin of "no trend": a Spearman correlation within +-0.1.
TREND_MARGIN = 0.1
#: A condition's accuracy is at the ceiling when every arm's mean is within
#: this of the task's Bayes accuracy, and near chance when even the best arm's
#: mean is below 1/2 plus this: either way, "no difference" there says little.
CEILING_MARGIN = 0.05

# -- grids ------------------------------------------------------------------------


@dataclass(frozen=True)
class Grids:
    """The grids the study sweeps, each written once."""

    #: Gate strengths of the exploratory study's full alpha sweep (C2, C3).
    alphas: tuple
    #: The coarse grid: the quick alpha sweep and the toy benchmark's inner search.
    coarse_alphas: tuple
    #: The depth regime map's gate strengths.
    regime_alphas: tuple
    #: The first part's C2/C3 gate strengths and C5's depths (plain blocks,
    #: gated at alpha 1).
    copied_alphas: tuple
    copied_depths: tuple
    #: The second part's (alpha > 0 only: at alpha = 0 the gate is off).
    sequence_alphas: tuple
    sequence_depths: tuple
    #: Condition numbers of the exploratory study's anisotropic output
    #: metrics (C4); 1 is Euclidean.
    condition_numbers: tuple
    #: The exploratory controls' learning-rate search: the classifier's
    #: default and a factor of 4 either side; each arm picks its own on its
    #: validation rows.
    control_learning_rates: tuple


GRIDS = Grids(
    alphas=(0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5),
    coarse_alphas=(0.0, 0.5, 1.0, 1.5),
    regime_alphas=(0.0, 0.5, 1.0, 1.5, 2.0, 3.0),
    copied_alphas=(0.0, 0.5, 1.0, 1.5),
    copied_depths=(1, 2, 3, 4),
    sequence_alphas=(0.25, 0.5, 1.0, 1.5),
    sequence_depths=(1, 2, 3, 4),
    condition_numbers=(1, 10, 100, 1000, 10000),
    control_learning_rates=GATE_LEARNING_RATES,  # benchmark_gates' grid
)

#: The second part's learning rate of each arm, by task label and gate,
#: fixed by protocol 2 from the pilot
#: (:func:`study.sequences_pilot.choose_learning_rates`).
SEQUENCE_LEARNING_RATES = ReadOnlyDict(
    {
        ("rings, noise 0.3", "multiplicative"): 0.008,
        ("rings, noise 0.3", "silu"): 0.008,
        ("rings, noise 0.3", "none"): 0.004,
        ("checkerboard, noise 0.3", "multiplicative"): 0.004,
        ("checkerboard, noise 0.3", "silu"): 0.004,
        ("checkerboard, noise 0.3", "none"): 0.004,
        ("linear task", "multiplicative"): 0.016,
        ("linear task", "silu"): 0.008,
        ("linear task", "none"): 0.002,
    }
)

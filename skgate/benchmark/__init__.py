"""benchmark_gates: the gates against the models a user would pick instead,
across many datasets.

On each dataset every model (each gate, each baseline) is trained on the same
cross-validation splits, with the preprocessing fitted on each split's
training rows (:func:`skgate.compare_gates`' design). Across datasets each
dataset is one replicate, summarised by each model's mean held-out score:
Friedman's test on the average ranks with Nemenyi's post-hoc test and its
critical-difference diagram (Demsar, 2006), and for each pair of interest the
Bayesian signed-rank test with the margin as region of practical equivalence
(Benavoli et al., 2017). The statistics are :mod:`skgate.paired`'s, shared
with compare_gates and the reproduction study.

The package, in the order a benchmark runs: :mod:`~skgate.benchmark.design`
(the checks and the design), :mod:`~skgate.benchmark.runs` (every model's rows
on each dataset), :mod:`~skgate.benchmark.result` (:class:`GateBenchmark`:
the tests and the verdict) and :mod:`~skgate.benchmark.gates`
(:func:`benchmark_gates` in one call); :mod:`~skgate.benchmark.defaults` holds
its defaults. The evaluation on one dataset (the checks, the splits, every
gate on every split) is the one compare_gates runs: the library's private
``skgate._evaluation``, whose public names both use.
"""

from .defaults import (
    DEFAULT_CV,
    DEFAULT_INNER_CV,
    DEFAULT_REPEATS,
    GATE_LEARNING_RATES,
    TUNED_MAX_EPOCHS,
    TUNINGS,
    default_baselines,
    default_param_grid,
    default_preprocessor,
)
from .gates import benchmark_gates
from .result import GateBenchmark

__all__ = [
    "DEFAULT_CV",
    "DEFAULT_INNER_CV",
    "DEFAULT_REPEATS",
    "GATE_LEARNING_RATES",
    "TUNED_MAX_EPOCHS",
    "TUNINGS",
    "GateBenchmark",
    "benchmark_gates",
    "default_baselines",
    "default_param_grid",
    "default_preprocessor",
]

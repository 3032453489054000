"""Gated attention on every scikit-learn toy dataset, against the usual models.

Run: ``python benchmarks/bench_toy.py [--n-jobs 2] [--out benchmarks/results]``
(also ``python -m study reproduce --toy``). Writes ``toy.csv`` (scores, chosen
alphas, curvatures: deterministic), ``toy_timings.csv`` and ``TOY.md``.
"""

import argparse
import sys
from pathlib import Path

from study import run_toy

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results"))
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args(argv)
    run_toy(args.out, n_jobs=args.n_jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())

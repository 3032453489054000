"""Where does depth amplify curvature? A map of curvature growth per block at
initialisation, in the spirit of Poole et al. (2016)'s order-to-chaos maps.

For each architecture (the paper's plain stack, residual blocks, pre-LN
residual blocks), gate strength ``alpha`` and weight scale (a factor on every
attention and gate weight of PyTorch's default initialisation; sqrt(3) keeps
the value projection norm-preserving), an untrained depth-8
:class:`~skgate.nn.GatedAttentionNet` is built per seed, and the paper's
acceleration is measured exactly at the output of each block l (which is
the representation of the depth-(l + 1) network of the same seed: the head
is drawn last, so the first blocks' weights do not depend on the depth).
The growth per block is exp of the slope of log curvature against depth
(least squares over depths, per seed); it amplifies where the slope is
significantly above 0 (one-sample t-test over seeds, Holm over the map).
"""

import itertools

import pandas as pd
import torch
from joblib import delayed

from skgate.datasets import make_curved_task
from skgate.geometry import curvature
from skgate.nn import GatedAttentionNet, RepresentationMap

from .design import ARCHITECTURES, REGIME_DEPTH, WEIGHT_SCALES
from .facts import GRIDS
from .sweeps import parallel_rows

__all__ = [
    "ARCHITECTURES",
    "REGIME_DEPTH",
    "WEIGHT_SCALES",
    "regime_curvatures",
    "run_regime",
]


def _axes(axes):
    """(architectures, alphas, weight scales): ``axes``, or the full map's."""
    return axes or (tuple(ARCHITECTURES), GRIDS.regime_alphas, WEIGHT_SCALES)


def _scaled_net(architecture, alpha, weight_scale, seed, d_model):
    """An untrained depth-REGIME_DEPTH network (float64), its attention and
    gate weights times ``weight_scale``."""
    torch.manual_seed(seed)
    net = GatedAttentionNet(
        2,
        2,
        gate="multiplicative",
        alpha=alpha,
        depth=REGIME_DEPTH,
        d_model=d_model,
        **ARCHITECTURES[architecture],
    ).double()
    with torch.no_grad():
        for block in net.blocks:
            for layer in (*block.projections, block.gate_proj):
                layer.weight.mul_(weight_scale)
    return net


def run_regime(seeds, *, n_points=100, axes=None, n_jobs=1, progress=True):
    """:func:`regime_curvatures` for every (architecture, alpha) in parallel
    (joblib), with a progress bar counting them; the same rows whatever
    ``n_jobs`` is."""
    architectures, alphas, scales = _axes(axes)
    cells = list(itertools.product(architectures, alphas))
    parts = parallel_rows(
        (
            delayed(regime_curvatures)(
                seeds, n_points=n_points, axes=([architecture], [alpha], scales)
            )
            for architecture, alpha in cells
        ),
        n_jobs=n_jobs,
        progress=progress,
        description="regime",
    )
    return pd.concat(parts, ignore_index=True)


def regime_curvatures(seeds, *, n_points=100, d_model=64, axes=None):
    """One row per (architecture, alpha, weight scale, seed, depth): the mean
    exact acceleration ("curvature") and extrinsic curvature of that block's
    output over ``n_points`` points of the checkerboard task's input square
    and 8 random directions, the output's mean root-mean-square size
    ("norm": the acceleration scales with it, the extrinsic curvature with
    its inverse) and "bending", extrinsic curvature times size, which no
    scaling of the representation changes.

    ``axes``: optional (architectures, alphas, weight scales) to map (default:
    :data:`ARCHITECTURES`, ``GRIDS.regime_alphas``, :data:`WEIGHT_SCALES`).
    """
    architectures, alphas, scales = _axes(axes)
    X = make_curved_task(n_points, random_state=0)[0]
    rows = []
    for architecture, alpha, scale, seed in itertools.product(
        architectures, alphas, scales, seeds
    ):
        net = _scaled_net(architecture, alpha, scale, seed, d_model)
        X_t = torch.as_tensor(X, dtype=torch.float64)
        for block in range(REGIME_DEPTH):
            f = RepresentationMap(net, block, token_rms=True)
            with torch.no_grad():
                size = f(X_t).flatten(1).norm(dim=1).mean()
            extrinsic = curvature(f, X, kind="extrinsic").mean()
            rows.append(
                {
                    "architecture": architecture,
                    "alpha": alpha,
                    "weight_scale": scale,
                    "seed": seed,
                    "depth": block + 1,
                    "curvature": float(curvature(f, X).mean()),
                    # The extrinsic curvature falls as the map grows (1 / size)
                    # and the acceleration rises with it; their product with
                    # the size, "bending", is dimensionless: curvature
                    # relative to the representation's own radius.
                    "extrinsic": float(extrinsic),
                    "norm": float(size),
                    "bending": float(extrinsic * size),
                }
            )
    return pd.DataFrame(rows)

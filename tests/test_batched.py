"""skgate._batched: many networks trained as one are the networks trained alone.

The engine of the batched cross-validated search (issue 14, in progress):
each model in the batch must see its own rows, in its own generator's order,
in the same batches as alone, and models whose epoch is shorter must sit the
extra steps out unchanged.
"""

import numpy as np
import pytest
import torch

from skgate import GatedAttentionClassifier, make_curved_task
from skgate._batched import BatchedTrainer

PARAMS = {"max_epochs": 6, "d_model": 16, "batch_size": 16, "random_state": 0}


def _alone(alpha, X, y, weight):
    clf = GatedAttentionClassifier(alpha=alpha, **PARAMS)
    return clf.fit(X, y, sample_weight=weight)


def _together(alphas, rows, X, y, weights):
    proto = GatedAttentionClassifier(**PARAMS)
    seed = int(np.random.RandomState(PARAMS["random_state"]).randint(2**31 - 1))
    modules, generators, data = [], [], []
    for alpha, index, weight in zip(alphas, rows, weights, strict=True):
        generator = torch.Generator().manual_seed(seed)
        proto.alpha = alpha
        modules.append(proto._build_module(X.shape[1], 2, generator))
        generators.append(generator)
        w = None if weight is None else torch.tensor(weight / weight.mean())
        data.append(
            (torch.tensor(X[index], dtype=torch.float32), torch.tensor(y[index]), w)
        )
    trainer = BatchedTrainer(
        modules,
        alphas,
        torch.nn.CrossEntropyLoss,
        lr=proto.lr,
        weight_decay=proto.weight_decay,
        batch_size=PARAMS["batch_size"],
    )
    curves = trainer.fit(data, generators, PARAMS["max_epochs"])
    return trainer.modules(modules), curves


@pytest.mark.parametrize("weighted", [False, True])
def test_each_model_in_the_batch_is_the_model_trained_alone(weighted):
    X, y = make_curved_task(120, shape="checkerboard", random_state=0)
    rng = np.random.default_rng(0)
    # Unequal training sets: 4, 3 and 4 steps of 16 rows per epoch, and a
    # last batch of a different size for each.
    rows = [rng.permutation(120)[:n] for n in (50, 37, 64)]
    alphas = [0.0, 1.5, 0.5]
    weights = [
        rng.integers(1, 4, len(index)).astype(float) if weighted else None
        for index in rows
    ]
    trained, curves = _together(alphas, rows, X, y, weights)
    for module, curve, alpha, index, weight in zip(
        trained, curves, alphas, rows, weights, strict=True
    ):
        alone = _alone(alpha, X[index], y[index], weight)
        np.testing.assert_allclose(curve, alone.loss_curve_, rtol=1e-5)
        with torch.no_grad():
            logits = module.double().eval()(torch.tensor(X))
        proba = torch.softmax(logits, dim=1).numpy()
        # Measured: 4e-8 (the last, smaller batch's mean is summed in another
        # order); the 20-epoch, 20-model search of the README: exactly 0.
        np.testing.assert_allclose(proba, alone.predict_proba(X), rtol=0, atol=1e-6)


def test_a_model_sitting_a_step_out_does_not_move():
    """A model with one batch per epoch, beside one with four: after 6 epochs
    its weights are bit for bit those of its 6 AdamW steps alone (an extra
    step would move them by about lr = 2e-3)."""
    X, y = make_curved_task(80, random_state=0)
    rows = [np.arange(16), np.arange(64)]
    trained, _ = _together([1.0, 1.0], rows, X, y, [None, None])
    alone = GatedAttentionClassifier(alpha=1.0, **{**PARAMS, "max_epochs": 6})
    alone.fit(X[:16], y[:16])
    for got, want in zip(
        trained[0].parameters(), alone.net_.module_.parameters(), strict=True
    ):
        torch.testing.assert_close(got, want, rtol=0, atol=0)

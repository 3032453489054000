"""skgate._engine.loop: many networks trained as one are the networks trained alone.

The one training loop: every fit, fold and study batch. Each model in a
batch must see its own rows, in its own generator's order, in the same
batches as alone; models whose epoch is shorter must sit the extra steps out
unchanged; early stopping, the optimiser state and the fitted attributes
must be those of the fit alone: bit for bit, whether alone is a batch of
one with skorch's callbacks called from the loop (a fit with callbacks,
partial_fit, a warm start) or without them.
"""

import numpy as np
import pytest
import torch
from sklearn.base import clone
from skorch.callbacks import Callback

from skgate import GatedAttentionClassifier, make_curved_task
from skgate._engine import Loss
from skgate._engine.loop import BatchedTrainer, _Pool, trained_weights
from skgate._training import fit_together
from skgate.nn import GATES, HEADS, GatedAttentionNet
from skgate.nn._stacked import written_losses_and_gradients

PARAMS = {"max_epochs": 6, "d_model": 16, "batch_size": 16, "random_state": 0}


class _Noop(Callback):
    """A callback that does nothing: its fit runs the one loop with skorch's
    callbacks called from it (NetHooks)."""


def _alone(alpha, X, y, weight):
    clf = GatedAttentionClassifier(alpha=alpha, callbacks=[_Noop()], **PARAMS)
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
        loss=Loss("cross_entropy"),
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
        assert curve == alone.loss_curve_
        _assert_same_weights(module, alone.net_.module_)


def test_a_model_sitting_a_step_out_does_not_move():
    """A model with one batch per epoch, beside one with four: after 6 epochs
    its weights are those of its 6 AdamW steps alone, bit for bit (an extra
    step would move them by about lr = 2e-3)."""
    X, y = make_curved_task(80, random_state=0)
    rows = [np.arange(16), np.arange(64)]
    trained, _ = _together([1.0, 1.0], rows, X, y, [None, None])
    alone = _alone(1.0, X[:16], y[:16], None)
    _assert_same_weights(trained[0], alone.net_.module_)


def _assert_same_weights(got, want):
    for (name, a), b in zip(got.named_parameters(), want.parameters(), strict=True):
        assert torch.equal(a, b), name


# -- fit_together: estimators fitted in one batch, each as its own fit would --


def _pairs(estimators, data):
    """Each estimator fitted together with the others, and a clone fitted
    alone with skorch's callbacks called from the loop (a do-nothing
    callback)."""
    alone = [
        clone(e)
        .set_params(callbacks=[*(e.callbacks or []), ("noop", _Noop())])
        .fit(X, y, sample_weight=w)
        for e, (X, y, w) in zip(estimators, data, strict=True)
    ]
    together = fit_together([clone(e) for e in estimators], data)
    return together, alone


def _assert_same_model(got, want, X):
    """The same model bit for bit: loss curve, epochs, weights, predictions."""
    assert got.loss_curve_ == want.loss_curve_
    assert got.n_iter_ == want.n_iter_
    _assert_same_weights(got.net_.module_, want.net_.module_)
    np.testing.assert_array_equal(got.predict_proba(X), want.predict_proba(X))


def test_early_stopping_in_the_batch_stops_each_model_as_alone():
    """Models stop at different epochs (one never improves for long, one
    keeps improving) and end with their best epoch's weights."""
    X, y = make_curved_task(300, shape="checkerboard", random_state=0)
    params = {**PARAMS, "max_epochs": 40, "early_stopping": True, "n_iter_no_change": 3}
    estimators = [
        GatedAttentionClassifier(
            alpha=a,
            random_state=s,
            **{k: v for k, v in params.items() if k != "random_state"},
        )
        for a, s in ((0.0, 0), (1.5, 1), (1.0, 2))
    ]
    data = [(X, y, None), (X[:200], y[:200], None), (X, y, np.linspace(0.5, 2, 300))]
    together, alone = _pairs(estimators, data)
    stops = [model.n_iter_ for model in alone]
    assert len(set(stops)) > 1 and max(stops) < 40  # they do stop, at different epochs
    for got, want in zip(together, alone, strict=True):
        _assert_same_model(got, want, X)
        assert got.validation_scores_ == want.validation_scores_
        assert got.best_validation_score_ == want.best_validation_score_
        assert list(got.history_[:, "valid_score"]) == want.validation_scores_


def test_learning_rates_differ_inside_one_batch_each_as_alone():
    """One batch of four models at two learning rates and two training-set
    sizes (so runs of step counts and of rates cross): each is its fit alone,
    and each keeps its own rate (a model given another's rate would move by
    several times as much)."""
    X, y = make_curved_task(200, shape="checkerboard", random_state=0)
    estimators = [
        GatedAttentionClassifier(alpha=1.0, lr=lr, **{**PARAMS, "random_state": s})
        for s, lr in enumerate((8e-3, 1e-3, 8e-3, 1e-3))
    ]
    data = [
        (X, y, None),
        (X, y, None),
        (X[:120], y[:120], None),
        (X[:150], y[:150], None),
    ]
    together, alone = _pairs(estimators, data)
    for got, want in zip(together, alone, strict=True):
        assert got.net_.optimizer_.param_groups[0]["lr"] == want.lr
        _assert_same_model(got, want, X)


def test_partial_fit_continues_a_batched_model_as_one_fit_alone():
    """The batch hands each model its AdamW state: a partial_fit after it
    takes the step a partial_fit after the fit alone takes."""
    X, y = make_curved_task(120, random_state=0)
    estimator = GatedAttentionClassifier(alpha=1.0, **PARAMS)
    (together,), (alone,) = _pairs([estimator], [(X, y, None)])
    together.partial_fit(X, y)
    alone.partial_fit(X, y)
    _assert_same_model(together, alone, X)
    state = together.net_.optimizer_.state_dict()["state"]
    assert {int(s["step"]) for s in state.values()} == {7 * 8}  # 8 steps per epoch


def test_what_cannot_share_a_batch_fits_alone_or_in_its_own_batch():
    """Other architectures form batches of their own; callbacks, verbose
    output or a warm start from a fitted model make a model fit alone."""
    from skorch.callbacks import EpochTimer

    X, y = make_curved_task(100, random_state=0)
    warm = GatedAttentionClassifier(warm_start=True, **PARAMS).fit(X, y)
    estimators = [
        GatedAttentionClassifier("none", **PARAMS),
        GatedAttentionClassifier(alpha=0.5, **PARAMS),
        GatedAttentionClassifier(alpha=0.5, head="linear", **PARAMS),
        GatedAttentionClassifier(
            alpha=1.0, callbacks=[("timer", EpochTimer())], **PARAMS
        ),
    ]
    data = [(X, y, None)] * len(estimators)
    together, alone = _pairs(estimators, data)
    for got, want in zip(together, alone, strict=True):
        _assert_same_model(got, want, X)
    expected = clone(warm).fit(X, y).fit(X, y)  # two fits on: the warm start
    (continued,) = fit_together([warm], [(X, y, None)])
    np.testing.assert_array_equal(continued.predict_proba(X), expected.predict_proba(X))
    assert continued.n_iter_ == 2 * PARAMS["max_epochs"]


def test_models_sharing_rows_share_them_in_memory():
    X, y = make_curved_task(100, random_state=0)
    Xt, yt = torch.tensor(X, dtype=torch.float32), torch.tensor(y)
    pool = _Pool([(Xt, yt, None)] * 3 + [(Xt[:50], yt[:50], None)], "cpu")
    assert len(pool.X) == 150
    assert pool.offsets == [0, 0, 0, 100] and pool.sizes == [100, 100, 100, 50]
    with pytest.raises(ValueError, match="share y"):
        _Pool([(Xt, yt, None), (Xt, yt.clone(), None)], "cpu")


@pytest.mark.parametrize("token_dim", [None, 2, 4])
@pytest.mark.parametrize(
    "architecture",
    [
        {},
        {"residual": True},
        {"residual": True, "norm": "layer", "n_heads": 2},
        {"attention": "fixed"},
        {"attention": "fixed-causal", "residual": True, "norm": "layer", "n_heads": 2},
    ],
)
@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize(
    # The heads the written-out backward covers ("norm-linear" trains
    # through torch.func on the module).
    "head",
    [h for h in HEADS if GatedAttentionNet(2, 2, head=h).written_out],
)
@pytest.mark.parametrize("gate", GATES)
def test_written_out_backward_is_autograds(
    gate, head, regression, architecture, token_dim
):
    """Every fit trains through a backward pass written by hand: in float64
    its losses and gradients are those of autograd through each model's own
    module (``GatedAttentionNet.forward``, an independent implementation) to
    rounding (relative 1e-13 for losses, 1e-11 for gradients), for every
    gate, head, loss and architecture, copied tokens, sequences of 2 tokens
    and of one, a stack of blocks and rows of weight 0."""
    torch.manual_seed(0)
    M, B, n_features, n_outputs = 3, 7, 4, 3
    alphas = [0.5, 1.0, 1.5]
    modules = [
        GatedAttentionNet(
            n_features,
            n_outputs,
            gate=gate,
            alpha=alpha,
            head=head,
            depth=2,
            d_model=8,
            token_dim=token_dim,
            **architecture,
        ).double()
        for alpha in alphas
    ]
    with torch.no_grad():  # fixed attention: mixing weights away from uniform
        for module in modules:
            for block in module.blocks:
                if block.mixing is not None:
                    block.mixing.normal_()
    names = trained_weights(modules[0])
    params = {
        name: torch.stack([dict(m.named_parameters())[name] for m in modules]).detach()
        for name in names
    }
    x = torch.randn(M, B, n_features, dtype=torch.float64)
    if regression:
        y = torch.randn(M, B, n_outputs, dtype=torch.float64)
    else:
        y = torch.randint(0, n_outputs, (M, B))
    w = torch.rand(M, B, dtype=torch.float64)
    w[0, -2:] = 0
    got, grads, _ = written_losses_and_gradients(
        modules[0],
        params,
        torch.tensor(alphas, dtype=torch.float64),
        x,
        y,
        w,
        regression=regression,
    )
    assert set(grads) == set(names)
    for m, module in enumerate(modules):
        out = module(x[m])
        if regression:
            losses = ((out - y[m]) ** 2).mean(dim=1)
        else:
            losses = torch.nn.functional.cross_entropy(out, y[m], reduction="none")
        want = (losses * w[m]).sum() / w[m].sum()
        weights = dict(module.named_parameters())
        want_grads = torch.autograd.grad(want, [weights[n] for n in names])
        torch.testing.assert_close(got[m], want.detach(), rtol=1e-13, atol=1e-14)
        for name, want_grad in zip(names, want_grads, strict=True):
            torch.testing.assert_close(
                grads[name][m], want_grad, rtol=1e-11, atol=1e-13
            )


def test_sequences_train_alike_alone_and_in_a_batch():
    """Sequence tokens (attention over several tokens): each model of a
    batch is the model fitted alone, bit for bit."""
    X, y = make_curved_task(120, n_observations=2, random_state=0)
    params = {**PARAMS, "token_dim": 2}
    estimators = [GatedAttentionClassifier(alpha=a, **params) for a in (0.0, 1.0)]
    together, alone = _pairs(estimators, [(X, y, None), (X[:90], y[:90], None)])
    for got, want in zip(together, alone, strict=True):
        _assert_same_model(got, want, X)


ARCHITECTURES = [
    {"gate": "sigmoid"},
    {"gate": "sigmoid_head", "n_heads": 4},
    {"n_heads": 2, "residual": True, "depth": 2},
    {"gate": "sigmoid", "n_heads": 4, "residual": True, "norm": "layer", "depth": 2},
    {"gate": "silu", "residual": True, "norm": "layer"},
    {"gate": "none", "residual": True, "norm": "layer", "head": "linear"},
    {"attention": "fixed"},
    {"attention": "fixed-causal", "n_heads": 2, "residual": True, "depth": 2},
]


@pytest.mark.parametrize("tokens", [None, 2])
@pytest.mark.parametrize("options", ARCHITECTURES)
def test_every_architecture_trains_together_as_alone(options, tokens):
    """Heads, residual blocks, pre-LayerNorm and the sigmoid gates train in
    the batch as each model would alone, copied tokens
    and sequences."""
    X, y = make_curved_task(120, n_observations=2, random_state=0)
    params = {**PARAMS, "max_epochs": 3, "token_dim": tokens, **options}
    estimators = [GatedAttentionClassifier(alpha=a, **params) for a in (0.0, 1.0)]
    together, alone = _pairs(estimators, [(X, y, None), (X[:90], y[:90], None)])
    for got, want in zip(together, alone, strict=True):
        _assert_same_model(got, want, X)


@pytest.mark.parametrize("tokens", [None, 1])
@pytest.mark.parametrize("gate", ["multiplicative", "sigmoid_head"])
def test_layers_one_wide_train_alike_alone_and_in_a_batch(gate, tokens):
    """One feature (an embedding of width 1 in), one output (a head of width
    1 out) and one head of a per-head gate (a gate projection of width 1):
    torch takes a matrix-vector kernel for such a product of a batch of one
    model, unless the layer is widened; each model of a batch of three is
    the model fitted alone (a batch of one), bit for bit."""
    from skgate import GatedAttentionRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2 if tokens else 1))
    y = np.sin(2 * X[:, 0]) + X[:, -1] ** 2
    params = {**PARAMS, "max_epochs": 3, "gate": gate, "token_dim": tokens}
    estimators = [
        GatedAttentionRegressor(**{**params, "random_state": seed}) for seed in (0, 1)
    ]
    estimators.append(GatedAttentionRegressor(**params, alpha=0.5))
    together = fit_together([clone(e) for e in estimators], [(X, y, None)] * 3)
    for got, estimator in zip(together, estimators, strict=True):
        want = clone(estimator).fit(X, y)
        assert got.loss_curve_ == want.loss_curve_
        _assert_same_weights(got.net_.module_, want.net_.module_)


def test_every_architecture_regresses_together_as_alone():
    from skgate import GatedAttentionRegressor

    X, _ = make_curved_task(100, random_state=0)
    y = np.sin(X[:, 0]) + X[:, 1] ** 2
    options = {"gate": "sigmoid", "n_heads": 2, "residual": True, "norm": "layer"}
    estimators = [
        GatedAttentionRegressor(**{**PARAMS, "random_state": seed}, **options)
        for seed in (0, 1)
    ]
    together, alone = _pairs(estimators, [(X, y, None), (X[:70], y[:70], None)])
    for got, want in zip(together, alone, strict=True):
        assert got.loss_curve_ == want.loss_curve_
        _assert_same_weights(got.net_.module_, want.net_.module_)
        np.testing.assert_array_equal(got.predict(X), want.predict(X))


def test_estimators_given_the_same_data_share_it(monkeypatch):
    """The alphas of one fold are given one data tuple: the batch holds its
    rows once (3 folds of 200 rows: 600 pool rows for 4 alphas, not 2400)."""
    import skgate._engine.loop as batched
    from skgate import GatedAttentionClassifierCV

    pools = []

    class Spy(batched._Pool):
        def __init__(self, datasets, device):
            super().__init__(datasets, device)
            pools.append(self)

    monkeypatch.setattr(batched, "_Pool", Spy)
    X, y = make_curved_task(300, random_state=0)
    GatedAttentionClassifierCV(
        (0.0, 0.5, 1.0, 1.5), cv=3, max_epochs=1, d_model=8, random_state=0
    ).fit(X, y)
    fold_pool = pools[0]
    assert len(fold_pool.sizes) == 12 and len(fold_pool.X) == 600


@pytest.mark.parametrize("device", ["cpu", torch.device("cpu")])
def test_the_device_reaches_the_one_loop(monkeypatch, device):
    """device is the loop's: the fold models of a CV estimator train as one
    batch on it (no other loop for another device), and its refit too."""
    import skgate._engine.loop as batched
    from skgate import GatedAttentionClassifierCV

    devices = []

    class Spy(batched.BatchedTrainer):
        def fit(self, datasets, *args, **kwargs):
            devices.append(
                (len(datasets), self.device, self.params["embed.weight"].device)
            )
            return super().fit(datasets, *args, **kwargs)

    monkeypatch.setattr(batched, "BatchedTrainer", Spy)
    monkeypatch.setattr("skgate._engine.fitting.BatchedTrainer", Spy)
    X, y = make_curved_task(120, random_state=0)
    GatedAttentionClassifierCV(
        (0.0, 1.0), cv=2, max_epochs=1, d_model=8, device=device, random_state=0
    ).fit(X, y)
    cpu = torch.device("cpu")
    assert devices == [(4, cpu, cpu), (1, cpu, cpu)]


def test_large_batches_train_as_several_networks_each_model_as_alone(monkeypatch):
    """Above MAX_MODELS_PER_NETWORK a batch is cut into consecutive parts of about equal
    size (5 models at most 2 per network: 2, 2 and 1), each model still its
    fit alone."""
    import skgate._engine.fitting as together
    import skgate._engine.loop as batched

    sizes = []

    class Spy(batched._Pool):
        def __init__(self, datasets, device):
            super().__init__(datasets, device)
            sizes.append(len(self.sizes))

    monkeypatch.setattr(batched, "_Pool", Spy)
    monkeypatch.setattr(together, "MAX_MODELS_PER_NETWORK", 2)
    X, y = make_curved_task(100, random_state=0)
    estimators = [
        GatedAttentionClassifier(alpha=a, **{**PARAMS, "random_state": s})
        for s, a in enumerate((0.0, 0.5, 1.0, 1.5, 2.0))
    ]
    got, want = _pairs(estimators, [(X, y, None)] * 5)
    # The five fits alone (the same loop, one model each), then the batch.
    assert sizes == [1] * 5 + [2, 2, 1]
    for a, b in zip(got, want, strict=True):
        _assert_same_model(a, b, X)


def test_bad_parameters_fail_as_in_fit():
    """fit_together checks each estimator's parameters as fit does."""
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = make_curved_task(60, random_state=0)
    estimators = [
        GatedAttentionClassifier(**PARAMS),
        GatedAttentionClassifier(lr=0.0, **PARAMS),
    ]
    with pytest.raises(InvalidParameterError, match="'lr' parameter"):
        fit_together(estimators, [(X, y, None)] * 2)


# -- one engine: the loop without callbacks and with skorch's, bit for bit --

ENGINE_CASES = [
    # (estimator, token_dim, early_stopping, weighted, extra parameters)
    ("classifier", None, False, False, {}),
    ("classifier", 2, True, True, {"n_heads": 2, "gate": "sigmoid"}),
    ("regressor", None, True, False, {"residual": True, "norm": "layer"}),
    ("regressor", 2, False, True, {"gate": "sigmoid_head", "n_heads": 2}),
    ("classifier", 2, False, False, {"batch_size": 5, "d_model": 8}),
    ("classifier", 2, True, True, {"attention": "fixed-causal", "n_heads": 2}),
    ("regressor", 2, False, False, {"attention": "fixed", "residual": True}),
]


@pytest.mark.parametrize("kind, token_dim, early, weighted, extra", ENGINE_CASES)
def test_every_loop_trains_the_same_model(kind, token_dim, early, weighted, extra):
    """A fit by the batched trainer's loop (no callbacks), by the same loop
    calling skorch's callbacks (a callback), two partial_fit calls against
    a fit of two epochs, and the model inside a batch of unequal
    neighbours: the same weights, losses, validation scores and history,
    bit for bit."""
    from skgate import GatedAttentionRegressor

    X, y = make_curved_task(90, n_observations=4, random_state=0)
    estimator_class = (
        GatedAttentionRegressor if kind == "regressor" else (GatedAttentionClassifier)
    )
    target = X[:, 0] - X[:, 3] if kind == "regressor" else y
    w = np.linspace(0.2, 2.0, len(y)) if weighted else None
    params = {
        **PARAMS,
        "max_epochs": 4,
        "token_dim": token_dim,
        "early_stopping": early,
        "n_iter_no_change": 1,
        **extra,
    }
    engine = estimator_class(**params).fit(X, target, sample_weight=w)
    skorch = estimator_class(**params, callbacks=[_Noop()]).fit(
        X, target, sample_weight=w
    )
    _assert_same_fit(engine, skorch)
    history = ["train_loss", *(["valid_score", "valid_loss"] if early else [])]
    for key in history:
        assert list(engine.history_[:, key]) == list(skorch.history_[:, key])
    (batched,) = fit_together(
        [estimator_class(**params)],
        [(X, target, w)],
    )[:1]
    neighbours = fit_together(
        [estimator_class(**{**params, "random_state": s}) for s in (5, 0, 7)],
        [(X[:60], target[:60], None), (X, target, w), (X[:75], target[:75], None)],
    )
    _assert_same_fit(engine, batched)
    _assert_same_fit(engine, neighbours[1])
    two = estimator_class(**{**params, "max_epochs": 2, "early_stopping": False})
    two.fit(X, target, sample_weight=w)
    partial = estimator_class(**{**params, "early_stopping": False})
    classes = {} if kind == "regressor" else {"classes": [0, 1]}
    partial.partial_fit(X, target, sample_weight=w, **classes)
    partial.partial_fit(X, target, sample_weight=w)
    _assert_same_fit(two, partial)


def _assert_same_fit(got, want):
    assert got.loss_curve_ == want.loss_curve_
    assert got.validation_scores_ == want.validation_scores_
    _assert_same_weights(got.net_.module_, want.net_.module_)


def test_a_batch_size_above_the_rows_is_clipped_to_them():
    """As MLPClassifier clips it: no padding to a huge batch_size, the same
    model as batch_size = the training rows, in either loop and in a batch."""
    X, y = make_curved_task(70, random_state=0)
    huge = GatedAttentionClassifier(**{**PARAMS, "batch_size": 100_000}).fit(X, y)
    rows = GatedAttentionClassifier(**{**PARAMS, "batch_size": 70}).fit(X, y)
    _assert_same_fit(huge, rows)
    looped = GatedAttentionClassifier(
        **{**PARAMS, "batch_size": 100_000}, callbacks=[_Noop()]
    ).fit(X, y)
    _assert_same_fit(huge, looped)
    assert huge.net_.batch_size == 70


# -- threads: small steps run on one, the caller's number comes back ----------


#: Threads seen at each epoch's end, by recorder name (module-level: the
#: estimator trains deep copies of its callbacks).
_SEEN_THREADS = {}


class _Threads(Callback):
    """Records torch's number of threads at each epoch's end."""

    def __init__(self, name):
        self.name = name

    def on_epoch_end(self, net, **kwargs):
        _SEEN_THREADS.setdefault(self.name, set()).add(torch.get_num_threads())


@pytest.fixture
def two_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


def test_small_steps_train_on_one_thread_and_give_the_number_back(two_threads):
    X, y = make_curved_task(100, random_state=0)
    _SEEN_THREADS.clear()
    GatedAttentionClassifier(**PARAMS, callbacks=[_Threads("small")]).fit(X, y)
    # 1 model x 64 rows x 1 token x 512 = 32768 activations a step: threads kept
    wide = {**PARAMS, "d_model": 512, "batch_size": 64}
    GatedAttentionClassifier(**wide, callbacks=[_Threads("large")]).fit(X, y)
    assert _SEEN_THREADS == {"small": {1}, "large": {2}}
    assert torch.get_num_threads() == 2
    # A failing fit gives the number back too.
    with pytest.raises(ValueError):
        GatedAttentionClassifier(**{**PARAMS, "alpha": 1e300}).fit(X, y)
    assert torch.get_num_threads() == 2


def test_fits_in_threads_at_once_give_the_number_back(two_threads):
    from concurrent.futures import ThreadPoolExecutor

    X, y = make_curved_task(100, random_state=0)
    models = [
        GatedAttentionClassifier(**{**PARAMS, "random_state": s}) for s in range(6)
    ]
    with ThreadPoolExecutor(3) as pool:
        fitted = list(pool.map(lambda m: m.fit(X, y), models))
    assert torch.get_num_threads() == 2
    alone = GatedAttentionClassifier(**{**PARAMS, "random_state": 3}).fit(X, y)
    _assert_same_weights(fitted[3].net_.module_, alone.net_.module_)


def test_a_model_trains_to_the_same_bits_on_one_thread_and_two(two_threads):
    """Wide enough to keep the caller's threads: the number does not change
    a model's bits, so a fold model in a large batch (two threads) is the
    model its fit alone trains (one thread)."""
    X, y = make_curved_task(200, n_observations=2, random_state=0)
    wide = {**PARAMS, "d_model": 512, "batch_size": 64, "token_dim": 2}
    two = GatedAttentionClassifier(**wide).fit(X, y)
    torch.set_num_threads(1)
    one = GatedAttentionClassifier(**wide).fit(X, y)
    _assert_same_weights(one.net_.module_, two.net_.module_)

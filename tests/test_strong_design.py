"""The strong design for series: its layers' exact jets, the torch.func
training on the module itself, the recipe (schedule, label smoothing) and
what "auto" makes of series and tables."""

import math

import numpy as np
import pytest
import torch

from skgate import GatedAttentionClassifier, GatedAttentionRegressor
from skgate._engine.loop import schedule
from skgate._options import DESIGNS
from skgate.nn import ConvEmbedding, FeedForward, GatedAttentionNet
from skgate.nn._functional import (
    functional_losses_and_gradients,
    row_losses,
)
from skgate.nn._stacked import written_losses_and_gradients

SMALL = {"d_model": 8, "max_epochs": 3, "random_state": 0}

#: Every part of the strong design alone, and all of them together.
PARTS = {
    "conv": {"embedding": "conv", "n_channels": 2},
    "feed-forward": {"d_ff": 12, "residual": True},
    "feed-forward, pre-LN": {"d_ff": 12, "residual": True, "norm": "layer"},
    "relative": {"position": "relative"},
    "both positions": {"position": "both", "n_heads": 2},
    "everything": {
        "embedding": "conv",
        "n_channels": 2,
        "d_ff": 12,
        "residual": True,
        "norm": "layer",
        "position": "both",
        "n_heads": 2,
        "dropout": 0.1,
    },
}


def _net(seed=0, **kwargs):
    torch.manual_seed(seed)
    # 6 tokens of 2 time points of 2 channels.
    params = {"n_features": 24, "n_outputs": 3, "d_model": 8, "token_dim": 4}
    return GatedAttentionNet(**{**params, **kwargs}).double().eval()


def _series(n=24, channels=2, length=30, *, ragged=False, seed=0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(10, length + 1, n) if ragged else np.full(n, length)
    X = [rng.normal(size=(channels, t)) for t in lengths]
    y = np.array([int(x[0, :5].mean() > 0) for x in X])
    return (X if ragged else np.stack(X)), y


class TestJets:
    @pytest.mark.parametrize("part", PARTS, ids=str)
    @pytest.mark.parametrize("layer", ["attention", "pooled", "logits", 0])
    @pytest.mark.parametrize("gate", ["multiplicative", "none", "silu"])
    def test_jet_equals_finite_differences(self, part, layer, gate):
        net = _net(gate=gate, depth=2, **PARTS[part])
        gen = torch.Generator().manual_seed(1)
        x, v = (torch.randn(4, 24, dtype=torch.float64, generator=gen) for _ in "xv")
        value, velocity, acceleration = net.representation_jet(x, v, layer)
        f = net.representation
        eps = 1e-4
        with torch.no_grad():
            first = (f(x + eps * v, layer) - f(x - eps * v, layer)) / (2 * eps)
            second = (
                f(x + eps * v, layer) - 2 * f(x, layer) + f(x - eps * v, layer)
            ) / eps**2
            torch.testing.assert_close(value, f(x, layer), rtol=1e-12, atol=1e-12)
        scale = float(acceleration.detach().abs().max())
        assert scale > 1e-6  # the layers bend: the check can fail
        # Central differences err by eps^2 times the third derivative.
        speed = float(velocity.detach().abs().max())
        torch.testing.assert_close(velocity, first, rtol=1e-4, atol=1e-4 * speed)
        torch.testing.assert_close(
            acceleration, second, rtol=1e-3, atol=1e-4 * scale + 1e-8
        )

    def test_jet_broadcasts_points_against_directions(self):
        net = _net(**PARTS["everything"])
        gen = torch.Generator().manual_seed(2)
        x = torch.randn(3, 24, dtype=torch.float64, generator=gen)
        v = torch.randn(5, 24, dtype=torch.float64, generator=gen)
        value, velocity, acceleration = net.representation_jet(x[:, None], v[None])
        assert value.shape[:2] == (3, 1) and velocity.shape[:2] == (3, 5)
        _, one, two = net.representation_jet(x[1:2], v[3:4])
        torch.testing.assert_close(velocity[1, 3], one[0], rtol=1e-12, atol=1e-12)
        torch.testing.assert_close(acceleration[1, 3], two[0], rtol=1e-12, atol=1e-12)

    def test_layers_alone(self):
        torch.manual_seed(0)
        embedding = ConvEmbedding(3, 5, 8).double()
        assert embedding(torch.zeros(2, 60, dtype=torch.float64)).shape == (2, 4, 8)
        ff = FeedForward(8, 16).double()
        x = torch.randn(2, 4, 8, dtype=torch.float64)
        v = torch.randn(2, 4, 8, dtype=torch.float64)
        y, dy, d2y = ff.jet(x, v, None)
        eps = 1e-4
        with torch.no_grad():
            second = (ff(x + eps * v) - 2 * ff(x) + ff(x - eps * v)) / eps**2
        torch.testing.assert_close(y, ff(x))
        torch.testing.assert_close(d2y, second, rtol=1e-4, atol=1e-6)


class TestNetwork:
    def test_ungated_attention_over_copied_tokens_stays_flat_with_feed_forward_off(
        self,
    ):
        # Relative position and the conv encoding need sequences; dropout
        # and the schedule do not bend. Without d_ff, residual ungated
        # attention over copied tokens is affine: zero acceleration.
        net = GatedAttentionNet(3, 2, gate="none", residual=True, dropout=0.5)
        net = net.double().eval()
        x = torch.randn(4, 3, dtype=torch.float64)
        v = torch.randn(4, 3, dtype=torch.float64)
        assert net.representation_jet(x, v)[2].abs().max() < 1e-12
        # A feed-forward sublayer bends even ungated attention.
        bent = GatedAttentionNet(3, 2, gate="none", residual=True, d_ff=8)
        assert bent.double().representation_jet(x, v)[2].abs().max() > 1e-6

    def test_padding_is_inert_in_the_forward_pass(self):
        # A row with NaN padding tokens computes what its own tokens do alone.
        net = _net(**PARTS["everything"])
        x = torch.randn(3, 24, dtype=torch.float64)
        padded = x.clone()
        padded[0, 12:] = float("nan")
        with torch.no_grad():
            torch.testing.assert_close(
                net(padded)[0], net(x[:1, :12])[0], rtol=1e-12, atol=1e-12
            )
            torch.testing.assert_close(net(padded)[1:], net(x)[1:])

    def test_written_out_only_for_todays_layers(self):
        assert _net().written_out
        for part in PARTS:
            assert not _net(**PARTS[part]).written_out, part
        assert not _net(dropout=0.1).written_out

    def test_reset_draws_as_construction(self):
        torch.manual_seed(4)
        built = GatedAttentionNet(24, 3, d_model=8, token_dim=4, **PARTS["everything"])
        reset = GatedAttentionNet(24, 3, d_model=8, token_dim=4, **PARTS["everything"])
        reset.reset_parameters(torch.Generator().manual_seed(4))
        # Construction draws the conv layers' weights by their own order;
        # a reset from one generator is what an estimator's fit does: the
        # same random_state, the same weights.
        again = GatedAttentionNet(24, 3, d_model=8, token_dim=4, **PARTS["everything"])
        again.reset_parameters(torch.Generator().manual_seed(4))
        for a, b in zip(reset.parameters(), again.parameters(), strict=True):
            assert torch.equal(a, b)
        assert len(list(built.parameters())) == len(list(reset.parameters()))

    @pytest.mark.parametrize(
        "kwargs, match",
        [
            ({"embedding": "conv"}, "n_channels must be an int"),
            ({"embedding": "conv", "n_channels": 3}, "n_channels must divide"),
            ({"n_channels": 2}, "n_channels is read by embedding='conv' only"),
            ({"d_ff": 8}, "needs residual=True"),
            ({"dropout": 1.0}, "dropout must be in"),
            ({"position": "relative", "attention": "fixed"}, "biases softmax"),
            ({"position": "sideways"}, "position"),
            ({"embedding": "fourier"}, "embedding"),
        ],
    )
    def test_bad_options_are_named(self, kwargs, match):
        with pytest.raises((ValueError, TypeError), match=match):
            GatedAttentionNet(24, 3, d_model=8, token_dim=4, **kwargs)

    def test_copied_tokens_refuse_what_needs_a_sequence(self):
        with pytest.raises(ValueError, match="embedding='conv' convolves"):
            GatedAttentionNet(3, 2, embedding="conv", n_channels=1)
        with pytest.raises(ValueError, match="copied tokens"):
            GatedAttentionNet(3, 2, position="relative")


class TestFunctionalTraining:
    def test_functional_gradients_equal_the_written_backward(self):
        # The same equations through torch.func and the hand-written
        # backward, on today's layers: one definition, two engines, equal.
        net = GatedAttentionNet(24, 3, d_model=8, token_dim=4, n_heads=2)
        names = [n for n, _ in net.named_parameters()]
        params = [p.detach()[None].repeat(2, *[1] * p.ndim) for p in net.parameters()]
        gen = torch.Generator().manual_seed(0)
        x = torch.randn(2, 6, 24, generator=gen)
        x[1, 0, 12:] = float("nan")  # a padded series
        y = torch.randint(0, 3, (2, 6), generator=gen)
        w = torch.rand(2, 6, generator=gen)
        alphas = torch.tensor([0.0, 1.5])
        written = written_losses_and_gradients(
            net,
            dict(zip(names, params, strict=True)),
            alphas,
            x,
            y,
            w,
            regression=False,
        )
        functional = functional_losses_and_gradients(
            net,
            names,
            params,
            alphas,
            x,
            y,
            w,
            regression=False,
            label_smoothing=0.0,
            noise=None,
        )
        torch.testing.assert_close(functional[0], written[0], rtol=1e-5, atol=1e-6)
        for name, gradient in zip(names, functional[1], strict=True):
            torch.testing.assert_close(
                gradient, written[1][name], rtol=1e-4, atol=1e-6, msg=name
            )

    def test_label_smoothing_is_torchs(self):
        gen = torch.Generator().manual_seed(0)
        logits = torch.randn(7, 4, generator=gen)
        y = torch.randint(0, 4, (7,), generator=gen)
        torch_loss = torch.nn.CrossEntropyLoss(reduction="none", label_smoothing=0.2)
        torch.testing.assert_close(
            row_losses(logits, y, regression=False, label_smoothing=0.2),
            torch_loss(logits, y),
        )

    def test_the_schedule_warms_up_then_decays_to_zero(self):
        factors = [schedule(step, 100, 0.1) for step in range(1, 101)]
        assert factors[0] == pytest.approx(0.1) and factors[9] == pytest.approx(1.0)
        assert all(a >= b for a, b in zip(factors[9:], factors[10:], strict=False))
        assert factors[-1] == pytest.approx(0.0, abs=1e-12)
        assert factors[54] == pytest.approx(0.5 * (1 + math.cos(math.pi * 45 / 90)))
        assert schedule(1, 1, 0.0) == 1.0  # one step: no warm-up, no decay


class TestEstimators:
    def test_the_nets_criterion_is_the_loss_training_minimised(self):
        """The loss comes from the fit's TrainingSpec: the skorch net's
        criterion is the same loss, label smoothing included, so
        ``net_.get_loss`` is the loss training minimised; a loss the
        engine's backward does not implement is refused."""
        from skgate._engine import Loss

        X, y = _series()
        series = GatedAttentionClassifier(**SMALL).fit(X, y)
        smoothing = DESIGNS["series"]["label_smoothing"]
        assert smoothing > 0
        criterion = series.net_.criterion_
        assert isinstance(criterion, torch.nn.CrossEntropyLoss)
        assert criterion.label_smoothing == smoothing
        logits = torch.tensor([[2.0, -1.0], [0.5, 0.25]])
        target = torch.tensor([0, 1])
        expected = torch.nn.functional.cross_entropy(
            logits, target, label_smoothing=smoothing
        )
        assert torch.allclose(series.net_.get_loss(logits, target), expected)
        table = GatedAttentionClassifier(**SMALL).fit(X.reshape(len(X), -1), y)
        assert table.net_.criterion_.label_smoothing == 0.0
        regressor = GatedAttentionRegressor(**SMALL).fit(X, y.astype(float))
        assert isinstance(regressor.net_.criterion_, torch.nn.MSELoss)
        with pytest.raises(ValueError, match="loss 'hinge' is not implemented"):
            Loss("hinge")

    @pytest.mark.parametrize("before, after", [(0.1, 0.4), (0.0, 0.3), (0.2, 0.0)])
    def test_partial_fit_with_new_label_smoothing_says_so(self, before, after):
        """partial_fit trains with the label smoothing set since, and the
        net's criterion says so: its loss is the one the last call
        minimised."""
        X, y = _series()
        clf = GatedAttentionClassifier(label_smoothing=before, **SMALL)
        clf.partial_fit(X, y, classes=[0, 1])
        clf.set_params(label_smoothing=after).partial_fit(X, y)
        assert clf.net_.criterion_.label_smoothing == after
        assert clf.net_.get_params()["criterion__label_smoothing"] == after
        logits, target = torch.tensor([[2.0, -1.0]]), torch.tensor([1])
        expected = torch.nn.functional.cross_entropy(
            logits, target, label_smoothing=after
        )
        assert torch.allclose(clf.net_.get_loss(logits, target), expected)

    def test_auto_gives_series_the_strong_design_and_tables_todays(self):
        X, y = _series()
        series = GatedAttentionClassifier(**SMALL).fit(X, y)
        net = series.net_.module_
        assert net.embedding == "conv" and not net.written_out
        block = net.blocks[0]
        assert block.feed_forward.inner.out_features == 2 * SMALL["d_model"]
        assert block.relative_bias is not None and net.position is not None
        assert block.n_heads == DESIGNS["series"]["n_heads"] and block.residual
        table = GatedAttentionClassifier(**SMALL).fit(X.reshape(len(X), -1), y)
        assert table.net_.module_.written_out
        explicit = GatedAttentionClassifier(**SMALL, **DESIGNS["table"])
        explicit.fit(X.reshape(len(X), -1), y)
        flat = X.reshape(len(X), -1)
        assert np.array_equal(table.predict_proba(flat), explicit.predict_proba(flat))

    @pytest.mark.parametrize(
        "Estimator", [GatedAttentionClassifier, GatedAttentionRegressor]
    )
    def test_refits_are_bit_identical_and_leave_torchs_generator(self, Estimator):
        X, y = _series(ragged=True)
        target = y if Estimator is GatedAttentionClassifier else y.astype(float)
        before = torch.random.get_rng_state()
        first = Estimator(**SMALL).fit(X, target)
        second = Estimator(**SMALL).fit(X, target)
        assert torch.equal(before, torch.random.get_rng_state())
        assert np.array_equal(first.predict(X), second.predict(X))
        other = Estimator(**{**SMALL, "random_state": 1}).fit(X, target)
        assert not np.array_equal(
            first.net_.module_.blocks[0].query.weight.detach(),
            other.net_.module_.blocks[0].query.weight.detach(),
        )

    def test_a_series_predicts_the_same_alone_and_beside_longer_ones(self):
        X, y = _series(ragged=True)
        clf = GatedAttentionClassifier(**SMALL).fit(X, y)
        together = clf.predict_proba(X)
        for i in (0, 5, 11):
            assert np.array_equal(clf.predict_proba([X[i]])[0], together[i])

    def test_each_part_can_be_removed_alone(self):
        X, y = _series()
        for removed in (
            {"embedding": "linear"},
            {"d_ff": None},
            {"position": "absolute"},
            {"lr_schedule": "constant", "label_smoothing": 0.0},
        ):
            clf = GatedAttentionClassifier(**SMALL, **removed).fit(X, y)
            assert clf.score(X, y) >= 0.0

    @pytest.mark.slow  # end to end: make test-slow
    def test_the_strong_design_learns_a_local_shape(self):
        # The class is a bump's place in the first or the second half of a
        # noisy series: position and local shape.
        rng = np.random.default_rng(0)
        X = rng.normal(scale=0.3, size=(120, 1, 40))
        y = rng.integers(0, 2, 120)
        for i, label in enumerate(y):
            start = rng.integers(0, 15) + 20 * label
            X[i, 0, start : start + 5] += 2.0
        clf = GatedAttentionClassifier(max_epochs=100, d_model=16, random_state=0)
        clf.fit(X[:80], y[:80])
        assert clf.score(X[80:], y[80:]) > 0.9

    @pytest.mark.parametrize(
        "kwargs, match",
        [
            ({"embedding": "conv"}, "embedding='conv' convolves"),
            ({"position": "relative"}, "copied tokens"),
            ({"d_ff": 8}, "d_ff=8 needs residual blocks"),
            ({"norm": "layer"}, "norm='layer' needs residual blocks"),
        ],
    )
    def test_a_table_refuses_what_needs_series_by_name(self, kwargs, match):
        X, y = _series()
        with pytest.raises(ValueError, match=match):
            GatedAttentionClassifier(**SMALL, **kwargs).fit(X.reshape(len(X), -1), y)

    @pytest.mark.parametrize(
        "name, value",
        [
            ("embedding", "fourier"),
            ("dropout", 1.0),
            ("dropout", -0.1),
            ("position", "sideways"),
            ("lr_schedule", "step"),
            ("warmup_fraction", 1.5),
            ("label_smoothing", 1.0),
            ("d_ff", 0),
            ("n_heads", "many"),
        ],
    )
    def test_bad_values_are_named(self, name, value):
        X, y = _series()
        with pytest.raises(ValueError, match=f"'{name}' parameter"):
            GatedAttentionClassifier(**SMALL, **{name: value}).fit(X, y)


class TestHostilePass:
    """Defects a hostile pass found, each with the test that failed."""

    def test_a_small_d_model_still_reads_the_input(self):
        # With d_model=4 the stem had 1 channel, whose LayerNorm outputs its
        # bias: every series predicted the same.
        X, y = _series()
        clf = GatedAttentionClassifier(d_model=4, n_heads=1, max_epochs=0)
        proba = clf.fit(X, y).predict_proba(X)
        assert np.ptp(proba[:, 0]) > 1e-6
        assert ConvEmbedding(1, 1, 4).convs[0].out_channels == 8

    def test_dropout_fits_in_threads_match_and_leave_torchs_generator(self):
        import threading

        X, y = _series()
        alone = GatedAttentionClassifier(**SMALL).fit(X, y).predict_proba(X)
        torch.manual_seed(123)
        expected = torch.rand(3)
        torch.manual_seed(123)
        fitted = [GatedAttentionClassifier(**SMALL) for _ in range(3)]
        threads = [threading.Thread(target=m.fit, args=(X, y)) for m in fitted]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert torch.equal(torch.rand(3), expected)
        for model in fitted:
            assert np.array_equal(model.predict_proba(X), alone)

    def test_a_model_draws_its_masks_alone_as_beside_others(self):
        from skgate.parallel import fit_together

        X, y = _series()
        models = [GatedAttentionClassifier(alpha=a, **SMALL) for a in (0.0, 1.0)]
        fit_together(models, [(X, y, None)] * 2)
        alone = GatedAttentionClassifier(alpha=1.0, **SMALL).fit(X, y)
        np.testing.assert_allclose(
            models[1].predict_proba(X), alone.predict_proba(X), rtol=0, atol=1e-6
        )

    def test_plain_blocks_on_series_drop_the_sublayers_auto_adds(self):
        X, y = _series()
        clf = GatedAttentionClassifier(residual=False, **SMALL).fit(X, y)
        assert clf.design_["d_ff"] is None and clf.design_["norm"] is None
        assert clf.design_["embedding"] == "conv"
        with pytest.raises(ValueError, match="d_ff=16 needs residual blocks"):
            GatedAttentionClassifier(residual=False, d_ff=16, **SMALL).fit(X, y)
        with pytest.raises(ValueError, match="norm='layer' needs residual"):
            GatedAttentionClassifier(residual=False, norm="layer", **SMALL).fit(X, y)

    def test_a_warm_start_compares_what_was_built(self):
        X, y = _series()
        clf = GatedAttentionClassifier(warm_start=True, **SMALL).fit(X, y)
        built = clf.design_["n_heads"]
        clf.set_params(n_heads=built, d_ff=2 * SMALL["d_model"]).fit(X, y)
        assert clf.n_iter_ == 2 * SMALL["max_epochs"]
        with pytest.raises(ValueError, match="n_heads=2 \\(built with 4\\)"):
            clf.set_params(n_heads=2).fit(X, y)

    def test_relative_position_with_fixed_attention_names_position(self):
        X, y = _series()
        for position in ("relative", "both"):
            clf = GatedAttentionClassifier(
                attention="fixed", position=position, **SMALL
            )
            with pytest.raises(ValueError, match=f"position='{position}' adds"):
                clf.fit(X, y)

    @pytest.mark.parametrize("name", ["warmup_fraction", "dropout", "label_smoothing"])
    def test_bools_are_not_numbers(self, name):
        X, y = _series()
        with pytest.raises(TypeError, match=f"The '{name}' parameter of .* got F"):
            GatedAttentionClassifier(**SMALL, **{name: False}).fit(X, y)

    @pytest.mark.parametrize(
        "build, match",
        [
            (lambda: ConvEmbedding(2, 0, 16), "patch_size must be an int >= 1"),
            (lambda: ConvEmbedding(2, 1, 0), "d_model must be an int >= 1"),
            (lambda: FeedForward(8, 0), "d_ff must be an int >= 1"),
            (lambda: FeedForward(8, 4, dropout=1.5), "dropout must be in"),
        ],
    )
    def test_the_layers_refuse_nonsense_by_name(self, build, match):
        with pytest.raises((ValueError, TypeError), match=match):
            build()

    def test_the_regressor_has_no_label_smoothing(self):
        X, y = _series()
        reg = GatedAttentionRegressor(**SMALL).fit(X, y.astype(float))
        assert "label_smoothing" not in reg.design_


class TestSeriesNetwork:
    """The series defaults' layers (issue: defaults at the reference's
    level): the stem's BatchNorm over valid time points, the pooled stem,
    the output projection and the final LayerNorm head, each with its exact
    jet; their training rules."""

    @staticmethod
    def _stem(norm="batch", shape="pooled", seed=0):
        torch.manual_seed(seed)
        # 2 channels, tokens of 9 time points (a pool of 3, a stride of 3).
        return ConvEmbedding(2, 9, 12, norm=norm, shape=shape, width=6).double()

    @pytest.mark.parametrize("norm", ["batch", "group", "layer"])
    @pytest.mark.parametrize("shape", ["pooled", "full"])
    def test_stem_jet_equals_finite_differences(self, norm, shape):
        stem = self._stem(norm, shape)
        gen = torch.Generator().manual_seed(3)
        x, v = (
            torch.randn(4, 5 * 18, dtype=torch.float64, generator=gen) for _ in "xv"
        )
        # Statistics of other rows: a batch norm is then a nontrivial affine map.
        stem.set_population_statistics(
            2 + 3 * torch.randn(8, 5 * 18, dtype=torch.float64, generator=gen)
        )
        stem.eval()
        with torch.no_grad():
            y, dy, d2y = stem.jet(x, v, None)
        eps = 1e-4
        with torch.no_grad():
            first = (stem(x + eps * v) - stem(x - eps * v)) / (2 * eps)
            second = (stem(x + eps * v) - 2 * stem(x) + stem(x - eps * v)) / eps**2
        torch.testing.assert_close(y, stem(x), rtol=1e-12, atol=1e-12)
        scale = float(d2y.abs().max())
        assert scale > 1e-6
        torch.testing.assert_close(
            dy, first, rtol=1e-5, atol=1e-6 * float(dy.abs().max())
        )
        torch.testing.assert_close(d2y, second, rtol=1e-3, atol=1e-4 * scale)

    def test_stem_factors_split_a_patch_into_pool_and_stride(self):
        from skgate.nn._layers import stem_factors

        for patch in range(1, 60):
            pool, stride = stem_factors(patch)
            assert pool * stride == patch and pool * pool >= patch
        assert stem_factors(9) == (3, 3) and stem_factors(49) == (7, 7)

    @pytest.mark.parametrize("norm", ["batch", "group"])
    def test_padding_and_rows_of_weight_zero_never_enter_training_statistics(
        self, norm
    ):
        stem = self._stem(norm).train()
        gen = torch.Generator().manual_seed(4)
        x = torch.randn(3, 4 * 18, dtype=torch.float64, generator=gen)
        valid = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0], [1, 1, 1, 0]]).bool()
        padded = x.clone()
        padded[1, 2 * 18 :] = 1e6  # what padding holds must not matter
        padded[2, 3 * 18 :] = -1e6
        zeroed = x.clone()
        zeroed[1, 2 * 18 :] = 0
        zeroed[2, 3 * 18 :] = 0
        weights = torch.ones(3, dtype=torch.float64)
        first = stem(zeroed, valid, weights)
        again = stem(
            padded.masked_fill(~valid.repeat_interleave(18, 1), 0), valid, weights
        )
        torch.testing.assert_close(first, again, rtol=0, atol=0)
        # A fourth row of weight 0 (an epoch's filler row) changes nothing.
        filler = torch.cat([zeroed, 50 + torch.randn(1, 4 * 18, dtype=torch.float64)])
        more = stem(
            filler,
            torch.cat([valid, torch.ones(1, 4, dtype=torch.bool)]),
            torch.tensor([1.0, 1.0, 1.0, 0.0], dtype=torch.float64),
        )
        torch.testing.assert_close(more[:3], first, rtol=1e-12, atol=1e-12)

    def test_population_statistics_are_the_training_rows_as_one_batch(self):
        # Evaluation after set_population_statistics(X) computes what
        # training mode computes with X as one batch, layer after layer.
        stem = self._stem("batch")
        gen = torch.Generator().manual_seed(5)
        x = 1 + 2 * torch.randn(7, 4 * 18, dtype=torch.float64, generator=gen)
        valid = torch.ones(7, 4, dtype=torch.bool)
        valid[2, 3:] = False
        x[2, 3 * 18 :] = 0
        stem.train()
        as_batch = stem(x, valid)
        stem.set_population_statistics(x, valid, chunk=3)  # in chunks
        assert stem.training  # left as it was
        stem.eval()
        torch.testing.assert_close(stem(x, valid), as_batch, rtol=1e-9, atol=1e-9)
        # In evaluation a row computes alone what it computes beside others.
        torch.testing.assert_close(stem(x[:1]), stem(x)[:1], rtol=1e-12, atol=1e-12)

    def test_accumulated_statistics_pool_the_rows_of_every_call(self):
        # A first layer's statistics set from two parts of the rows, the
        # second accumulated, are those of all rows at once; without
        # accumulate they are the last part's alone, and a reset forgets.
        gen = torch.Generator().manual_seed(8)
        x = 1 + 2 * torch.randn(9, 4 * 18, dtype=torch.float64, generator=gen)
        valid = torch.ones(9, 4, dtype=torch.bool)
        valid[1, 2:] = False
        x[1, 2 * 18 :] = 0
        weights = torch.tensor([1.0, 2, 0, 1, 1, 3, 1, 1, 0.5], dtype=torch.float64)
        whole, parts, last = (self._stem("batch") for _ in range(3))
        whole.set_population_statistics(x, valid, weights)
        parts.set_population_statistics(x[:4], valid[:4], weights[:4])
        parts.set_population_statistics(x[4:], valid[4:], weights[4:], accumulate=True)
        last.set_population_statistics(x[4:], valid[4:], weights[4:])
        first = [stem.norms[0] for stem in (whole, parts, last)]
        for name in ("running_mean", "running_var", "running_count"):
            want, got, alone = (getattr(norm, name) for norm in first)
            torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-9)
            assert not torch.allclose(alone, want)
        # the count: the weight of the valid time points the norm read
        expected = float((weights[:, None] * valid).sum()) * 9  # 9 points a token
        torch.testing.assert_close(
            first[0].running_count, torch.full((6,), expected, dtype=torch.float64)
        )
        parts.norms[0].reset_parameters()
        assert not parts.norms[0].running_count.any()

    @pytest.mark.parametrize("layer", ["attention", "pooled", "logits"])
    def test_projection_and_norm_linear_head_jets(self, layer):
        net = _net(
            gate="multiplicative",
            depth=2,
            embedding="conv",
            n_channels=2,
            d_ff=12,
            residual=True,
            norm="layer",
            position="both",
            n_heads=2,
            projection=True,
            head="norm-linear",
        )
        gen = torch.Generator().manual_seed(6)
        x, v = (torch.randn(4, 24, dtype=torch.float64, generator=gen) for _ in "xv")
        net.set_population_statistics(3 * torch.randn(9, 24, dtype=torch.float64))
        value, velocity, acceleration = net.representation_jet(x, v, layer)
        f = net.representation
        eps = 1e-4
        with torch.no_grad():
            second = (
                f(x + eps * v, layer) - 2 * f(x, layer) + f(x - eps * v, layer)
            ) / eps**2
        torch.testing.assert_close(value, f(x, layer), rtol=1e-12, atol=1e-12)
        scale = float(acceleration.abs().max())
        assert scale > 1e-6
        torch.testing.assert_close(acceleration, second, rtol=1e-3, atol=1e-4 * scale)

    def test_series_defaults_use_the_new_layers_and_tables_keep_theirs(self):
        X, y = _series(length=40)
        clf = GatedAttentionClassifier(d_model=8, max_epochs=1, random_state=0)
        clf.fit(X, y)
        net = clf.net_.module_
        assert all(norm.kind == "batch" for norm in net.embed.norms)
        assert net.embed.pool * len(net.embed.convs) > 1
        assert all(block.out_proj is not None for block in net.blocks)
        assert clf.design_["head"] == "norm-linear"
        assert clf.design_["batch_size"] == 16
        # Evaluation statistics come from the training rows, not zeros/ones.
        assert not torch.allclose(
            net.embed.norms[0].running_var,
            torch.ones_like(net.embed.norms[0].running_var),
        )
        table = GatedAttentionClassifier(max_epochs=1, random_state=0)
        table.fit(np.asarray(X)[:, 0, :], y)
        assert table.design_["head"] == "mlp" and table.design_["batch_size"] == 64
        assert table.net_.module_.blocks[0].out_proj is None

    def test_series_fits_are_bit_identical_and_a_fold_is_a_fit(self):
        from skgate import GatedAttentionClassifierCV

        X, y = _series(n=30, length=36, ragged=True)
        params = {"d_model": 8, "max_epochs": 2, "random_state": 1}
        first = GatedAttentionClassifier(**params).fit(X, y).predict_proba(X)
        again = GatedAttentionClassifier(**params).fit(X, y).predict_proba(X)
        np.testing.assert_array_equal(first, again)
        # The CV estimator's models train as one batch; its refit (alpha 1,
        # all rows) is the fit alone, to the bit, statistics included.
        cv = GatedAttentionClassifierCV(
            alphas=(0.0, 1.0), cv=2, selection="best", **params
        )
        cv.fit(X, y)
        alone = GatedAttentionClassifier(alpha=cv.alpha_, **params).fit(X, y)
        np.testing.assert_array_equal(cv.predict_proba(X), alone.predict_proba(X))

    def test_partial_fit_pools_the_statistics_a_fit_resets_them(self):
        # Each partial_fit adds its rows to the stem's statistics; a fit
        # (warm or not) sets them from its own rows; a last call of one row
        # barely moves a model trained on many.
        X, y = _series(n=40, length=16, seed=3)
        X = np.asarray(X)
        clf = GatedAttentionClassifier(d_model=8, random_state=0)
        for start in range(0, 40, 10):
            clf.partial_fit(
                X[start : start + 10], y[start : start + 10], classes=[0, 1]
            )
        norm = clf.net_.module_.embed.norms[0]
        points = 40 * X.shape[-1]  # every row's valid time points, weight 1
        torch.testing.assert_close(
            norm.running_count, torch.full_like(norm.running_count, points)
        )
        before = clf.predict_proba(X)
        clf.set_params(lr=1e-12).partial_fit(X[:1], y[:1])
        assert np.abs(clf.predict_proba(X) - before).max() < 0.05
        clf.set_params(warm_start=True, max_epochs=1).fit(X[:20], y[:20])
        assert float(norm.running_count[0]) == 20 * X.shape[-1]

    def test_a_warm_start_reports_the_batch_size_it_trained_with(self):
        X, y = _series(n=12, length=10, seed=4)
        clf = GatedAttentionClassifier(max_epochs=1, random_state=0, warm_start=True)
        clf.fit(X, y)
        assert clf.design_["batch_size"] == 16
        clf.set_params(batch_size=4).fit(X, y)
        assert clf.design_["batch_size"] == 4
        assert len(clf.history_[-1]["batches"]) == 3

    def test_padding_is_inert_at_the_defaults(self):
        X, y = _series(n=20, length=40, ragged=True, seed=2)
        clf = GatedAttentionClassifier(d_model=8, max_epochs=2, random_state=0).fit(
            X, y
        )
        together = clf.predict_proba(X)
        alone = np.vstack([clf.predict_proba([x]) for x in X])
        np.testing.assert_allclose(together, alone, rtol=0, atol=1e-6)


class TestTrainingRules:
    def test_clipping_is_torchs_clip_grad_norm(self):
        from skgate._engine.loop import clip_gradients

        gen = torch.Generator().manual_seed(0)
        grads = [
            10 * torch.randn(3, 4, 5, generator=gen),
            torch.randn(3, 7, generator=gen),
        ]
        expected = [g.clone() for g in grads]
        clip_gradients(grads, 1.0)
        for m in range(3):
            mine = [
                p.detach().clone().requires_grad_() for p in (e[m] for e in expected)
            ]
            for p, e in zip(mine, (e[m] for e in expected), strict=True):
                p.grad = e.clone()
            torch.nn.utils.clip_grad_norm_(mine, 1.0)
            for p, g in zip(mine, grads, strict=True):
                torch.testing.assert_close(g[m], p.grad)

    def test_vectors_and_positions_skip_weight_decay(self):
        from skgate._engine.loop import undecayed_weights

        net = _net(**PARTS["everything"], head="norm-linear", projection=True)
        names = undecayed_weights(net)
        assert "position" in names and "blocks.0.relative_bias" in names
        assert "embed.norms.0.weight" in names and "head.0.weight" in names
        assert "blocks.0.query.weight" not in names and "head.1.weight" not in names

    def test_auto_epochs_plan_steps_within_the_time_point_budget(self):
        from skgate._engine.plan import planned_epochs

        assert planned_epochs("auto", 36, 16, steps=1000) == 334
        assert planned_epochs("auto", 100, 16, steps=1000, cap=68) == 68
        assert planned_epochs("auto", 10_000, 16, steps=1000, cap=1) == 20
        X, y = _series(n=40, length=50)
        clf = GatedAttentionClassifier(d_model=8, random_state=0)
        clf.set_params(max_epochs="auto")
        from skgate._options import TRANSFORMER_RECIPE
        from skgate._training import _recipe

        clf._validate_X(X, y, reset=True)
        recipe = _recipe(clf, clf._design(), len(X), incremental=False)
        assert recipe.auto_steps == TRANSFORMER_RECIPE["auto_steps"]
        per_epoch = 40 * clf.series_layout_.n_tokens * clf.series_layout_.patch_size
        assert recipe.auto_epoch_cap == TRANSFORMER_RECIPE["time_points"] // per_epoch
        assert recipe.clip_norm == 1.0 and recipe.decay_exempt

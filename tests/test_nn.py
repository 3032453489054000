"""The torch model against the equations of docs/design.md ("The model")."""

import functools
import math
import re

import numpy as np
import pytest
import torch

from skgate.nn import (
    GATES,
    HEAD_ACTIVATIONS,
    HEADS,
    GatedAttentionBlock,
    GatedAttentionNet,
    register_gate,
    unregister_gate,
)


def _net(seed=0, **kwargs):
    torch.manual_seed(seed)
    params = {"n_features": 3, "n_outputs": 2, "d_model": 16, **kwargs}
    return GatedAttentionNet(**params).double()


def _second_difference(f, x, v, eps):
    """||f(x + eps v) - 2 f(x) + f(x - eps v)|| / eps^2, row by row."""
    with torch.no_grad():
        diff = f(x + eps * v) - 2 * f(x) + f(x - eps * v)
    return diff.flatten(1).norm(dim=1) / eps**2


class TestEquations:
    def test_gate_matches_hand_computed_example(self):
        # d_model = 1, two tokens h = (1, 2), W_q = W_k = W_v = W_g = 1, b_g = 0.
        block = GatedAttentionBlock(1, gate="multiplicative", alpha=0.5).double()
        with torch.no_grad():
            for layer in (block.query, block.key, block.value, block.gate_proj):
                layer.weight.fill_(1.0)
            block.gate_proj.bias.zero_()
        out = block(torch.tensor([[[1.0], [2.0]]], dtype=torch.float64))
        # Token 0: scores (1*1, 1*2), token 1: scores (2*1, 2*2); sqrt(d) = 1.
        e = math.exp
        a0 = (1 * e(1) + 2 * e(2)) / (e(1) + e(2))
        a1 = (1 * e(2) + 2 * e(4)) / (e(2) + e(4))
        expected = [a0 * (1 + 0.5 * math.tanh(1)), a1 * (1 + 0.5 * math.tanh(2))]
        assert out.flatten().tolist() == pytest.approx(expected, rel=1e-14)

    @pytest.mark.parametrize("gate", ["multiplicative", "silu", "none"])
    def test_one_token_skips_nothing_but_a_softmax_of_one(self, gate):
        torch.manual_seed(0)
        block = GatedAttentionBlock(4, gate=gate).double()
        h = torch.randn(5, 1, 4, dtype=torch.float64)
        scores = block.query(h) @ block.key(h).transpose(-2, -1) / 2.0
        a = torch.softmax(scores, dim=-1) @ block.value(h)
        expected = {
            "none": a,
            "silu": torch.nn.functional.silu(a),
            "multiplicative": a * (1 + torch.tanh(block.gate_proj(h)))
            if gate == "multiplicative"
            else None,
        }[gate]
        torch.testing.assert_close(block(h), expected, rtol=1e-15, atol=1e-15)

    def test_silu_gate_is_silu_of_attention(self):
        torch.manual_seed(0)
        silu = GatedAttentionBlock(4, gate="silu").double()
        none = GatedAttentionBlock(4, gate="none").double()
        none.load_state_dict(silu.state_dict())
        h = torch.randn(3, 5, 4, dtype=torch.float64)
        torch.testing.assert_close(silu(h), torch.nn.functional.silu(none(h)))

    @pytest.mark.parametrize("token_dim", [None, 1])
    def test_alpha_zero_is_exactly_ungated(self, token_dim):
        gated = _net(gate="multiplicative", alpha=0.0, depth=3, token_dim=token_dim)
        ungated = _net(gate="none", depth=3, token_dim=token_dim)
        missing = ungated.load_state_dict(gated.state_dict(), strict=False)
        assert all("gate_proj" in key for key in missing.unexpected_keys)
        assert not missing.missing_keys
        x = torch.randn(20, 3, dtype=torch.float64)
        assert torch.equal(gated(x), ungated(x))
        assert torch.equal(gated.representation(x), ungated.representation(x))

    def test_alpha_changes_output(self):
        gated = _net(alpha=1.0)
        x = torch.randn(20, 3, dtype=torch.float64)
        before = gated(x)
        for block in gated.blocks:
            block.alpha = 0.0
        assert not torch.allclose(before, gated(x))


class TestFlatness:
    """With copied tokens ungated attention is affine in x at every depth."""

    @pytest.mark.parametrize("depth", [1, 3])
    def test_ungated_copied_tokens_are_affine(self, depth):
        net = _net(gate="none", depth=depth)
        gen = torch.Generator().manual_seed(1)
        x = 2 * torch.randn(50, 3, dtype=torch.float64, generator=gen)
        v = torch.randn(50, 3, dtype=torch.float64, generator=gen)
        v = v / v.norm(dim=1, keepdim=True)
        second = _second_difference(net.representation, x, v, eps=0.1)
        assert second.max() < 1e-9

    @pytest.mark.parametrize("gate", ["multiplicative", "silu"])
    @pytest.mark.parametrize("depth", [1, 3])
    def test_gated_copied_tokens_are_curved(self, gate, depth):
        # The same measurement must be able to see curvature: else the test
        # above could pass for a broken reason.
        net = _net(gate=gate, depth=depth)
        gen = torch.Generator().manual_seed(1)
        x = 2 * torch.randn(50, 3, dtype=torch.float64, generator=gen)
        v = torch.randn(50, 3, dtype=torch.float64, generator=gen)
        v = v / v.norm(dim=1, keepdim=True)
        second = _second_difference(net.representation, x, v, eps=0.1)
        assert second.mean() > 1e-3

    def test_copied_tokens_are_identical(self):
        net = _net(depth=2, n_tokens=5)
        rep = net.representation(torch.randn(4, 3, dtype=torch.float64))
        assert rep.shape == (4, 5, 16)
        # Equal up to the order of floating-point sums inside the matmuls.
        torch.testing.assert_close(rep, rep[:, :1].expand_as(rep), rtol=0, atol=1e-14)


@pytest.fixture(scope="module")
def net():
    return _net(depth=3, n_outputs=4)


@pytest.fixture(scope="module")
def x():
    return torch.randn(6, 3, dtype=torch.float64)


class TestLayers:
    def test_shapes(self, net, x):
        assert net(x).shape == (6, 4)
        assert net.representation(x).shape == (6, 8, 16)
        assert net.representation(x, "pooled").shape == (6, 16)
        assert net.representation(x, "logits").shape == (6, 4)

    @pytest.mark.parametrize("gate", ["multiplicative", "silu", "none"])
    @pytest.mark.parametrize("n_tokens", [1, 3, 8])
    def test_layers_compose_every_token(self, gate, n_tokens):
        # The model computes one of the copied tokens and copies the result;
        # here every token goes through every block, as the equations say.
        net = _net(depth=3, n_outputs=4, gate=gate, n_tokens=n_tokens)
        x = torch.randn(6, 3, dtype=torch.float64)
        h = net.embed_tokens(x)
        outputs = []
        for block in net.blocks:
            h = block(h)
            outputs.append(h)
        close = {"rtol": 1e-13, "atol": 1e-14}
        for index, expected in enumerate(outputs):
            torch.testing.assert_close(net.representation(x, index), expected, **close)
        assert torch.equal(net.representation(x, -1), net.representation(x, 2))
        assert torch.equal(net.representation(x, "attention"), net.representation(x, 2))
        pooled = outputs[-1].mean(dim=1)
        torch.testing.assert_close(net.representation(x, "pooled"), pooled, **close)
        torch.testing.assert_close(net(x), net.head(pooled), **close)
        torch.testing.assert_close(
            net.representation(x, "logits"), net.head(pooled), **close
        )

    def test_sequences_compute_every_token(self, x):
        net = _net(n_features=6, token_dim=2, depth=2)
        z = torch.randn(4, 6, dtype=torch.float64)
        h = net.embed_tokens(z)
        for block in net.blocks:
            h = block(h)
        assert torch.equal(net.representation(z), h)

    @pytest.mark.parametrize(
        "layer, error, match",
        [
            (3, ValueError, "layer=3 is out of range for depth=3"),
            (-4, ValueError, "layer=-4 is out of range"),
            ("hidden", ValueError, "layer must be one of"),
            (1.0, TypeError, "layer must be one of"),
            (True, TypeError, "layer must be one of"),
        ],
    )
    def test_bad_layer(self, net, x, layer, error, match):
        with pytest.raises(error, match=match):
            net.representation(x, layer)

    def test_bad_input_shape(self, net):
        with pytest.raises(ValueError, match=r"shape \(batch, 3\)"):
            net(torch.zeros(2, 4, dtype=torch.float64))


class TestSequences:
    def test_tokens_are_rows_in_column_order(self):
        net = _net(n_features=6, token_dim=2)
        assert net.n_tokens == 3
        x = torch.arange(12, dtype=torch.float64).reshape(2, 6)
        expected = net.embed(x.reshape(2, 3, 2)) + net.position
        assert net.position.shape == (3, 16)
        assert torch.equal(net.embed_tokens(x), expected)

    def test_copied_tokens_have_no_positions(self):
        assert _net().position is None

    def test_positions_tell_tokens_apart(self):
        net = _net(n_features=6, token_dim=2, depth=2)
        x = torch.randn(5, 6, dtype=torch.float64)
        perm = [2, 0, 1]
        x_perm = x.reshape(5, 3, 2)[:, perm].reshape(5, 6)
        assert not torch.allclose(net(x_perm), net(x))
        # Without the positional bias, attention is permutation-equivariant
        # and the pooled output permutation-invariant.
        with torch.no_grad():
            net.position.zero_()
        rep, rep_perm = net.representation(x), net.representation(x_perm)
        torch.testing.assert_close(rep_perm, rep[:, perm])
        torch.testing.assert_close(net(x_perm), net(x))

    def test_distinct_tokens_make_ungated_attention_curved(self):
        # Flatness is special to copied tokens: with distinct tokens the
        # softmax weights depend on x, and ungated attention bends.
        net = _net(n_features=6, token_dim=2, gate="none")
        gen = torch.Generator().manual_seed(0)
        x = 2 * torch.randn(30, 6, dtype=torch.float64, generator=gen)
        v = torch.randn(30, 6, dtype=torch.float64, generator=gen)
        v = v / v.norm(dim=1, keepdim=True)
        assert _second_difference(net.representation, x, v, eps=0.1).mean() > 1e-3


class TestValidation:
    @pytest.mark.parametrize(
        "kwargs, error, match",
        [
            ({"gate": "relu"}, ValueError, "gate must be one of"),
            ({"head": "deep"}, ValueError, "head must be one of"),
            ({"alpha": -0.1}, ValueError, "alpha must be a finite real number >= 0"),
            ({"alpha": float("nan")}, ValueError, "alpha must be"),
            ({"alpha": "1"}, TypeError, "alpha must be a real number"),
            ({"depth": 0}, ValueError, "depth must be an int >= 1; got 0"),
            ({"depth": 1.5}, TypeError, "depth must be an int"),
            ({"d_model": 0}, ValueError, "d_model must be an int >= 1"),
            ({"n_tokens": 0}, ValueError, "n_tokens must be an int >= 1"),
            ({"token_dim": 2}, ValueError, "token_dim must divide"),
            ({"n_features": 0}, ValueError, "n_features must be an int >= 1"),
            (
                {"gate_gain": 0.0},
                ValueError,
                "gate_gain must be a finite real number > 0",
            ),
            ({"gate_gain": float("inf")}, ValueError, "gate_gain must be a finite"),
            ({"gate_gain": True}, TypeError, "gate_gain must be a real number"),
        ],
    )
    def test_bad_arguments(self, kwargs, error, match):
        params = {"n_features": 3, "n_outputs": 2, **kwargs}
        with pytest.raises(error, match=match):
            GatedAttentionNet(**params)


@pytest.mark.parametrize("method", ["forward", "jet"])
@pytest.mark.parametrize(
    "block, shape, match",
    [
        # torch's "mat1 and mat2 shapes cannot be multiplied (6x5 and 4x4)"
        (
            {},
            (2, 3, 5),
            r"h must have shape \(batch, tokens, 4\) \(d_model=4\); "
            r"got \(2, 3, 5\)",
        ),
        ({"gate": "silu"}, (2, 1, 5), r"\(d_model=4\); got \(2, 1, 5\)"),
        # an IndexError: tuple index out of range
        ({}, (4,), r"h must have shape \(batch, tokens, 4\).*got \(4,\)"),
        # "Expected size for first two dimensions of batch2 tensor"
        (
            {"attention": "fixed", "n_tokens": 3},
            (2, 5, 4),
            r"h has 5 tokens; attention='fixed' mixes at most n_tokens=3",
        ),
    ],
)
def test_a_block_names_the_input_it_cannot_take(block, shape, match, method):
    module = GatedAttentionBlock(4, **block)
    h = torch.zeros(shape)
    with pytest.raises(ValueError, match=match):
        module(h) if method == "forward" else module.jet(h, torch.ones(shape), None)


@pytest.mark.parametrize("shape", [(3, 4), (1, 2, 3, 4), (1, 1, 2, 3, 4)])
def test_a_block_takes_only_batches_of_token_sequences(shape):
    """forward takes (batch, tokens, d_model) only: (tokens, d_model) and a
    4-D tensor were read with the last two axes as tokens and width."""
    block = GatedAttentionBlock(4)
    with pytest.raises(
        ValueError,
        match=rf"^h must have shape \(batch, tokens, 4\) \(d_model=4\); "
        rf"got {re.escape(str(shape))}",
    ):
        block(torch.zeros(shape))


@pytest.mark.parametrize("shape", [(4,), (3, 4)])
def test_a_jet_needs_a_batch_of_token_sequences(shape):
    """jet takes (batch, tokens, d_model), with more leading axes where the
    net broadcasts points against directions (representation_jet)."""
    block = GatedAttentionBlock(4).double()
    h = torch.zeros(shape, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"^h must have shape \(batch, tokens, 4\)"):
        block.jet(h, torch.ones_like(h), None)
    wide = torch.randn(3, 1, 2, 4, dtype=torch.float64)  # (points, 1, tokens, d)
    along = torch.randn(1, 5, 2, 4, dtype=torch.float64)  # (1, directions, ...)
    value, velocity, _ = block.jet(wide, along, None)
    assert value.shape == (3, 1, 2, 4) and velocity.shape == (3, 5, 2, 4)
    assert torch.allclose(value[:, 0], block(wide[:, 0]))


@pytest.mark.parametrize("method", ["forward", "jet"])
@pytest.mark.parametrize(
    "block_dtype, h_dtype, advice",
    [
        (torch.float32, torch.float64, r"pass h\.float\(\), or convert the block "
         r"with \.double\(\)"),
        (torch.float64, torch.float32, r"pass h\.double\(\), or convert the block "
         r"with \.float\(\)"),
        (torch.float32, torch.int64, r"pass h\.float\(\)\.$"),
    ],
)  # fmt: skip
def test_a_block_names_an_input_of_another_dtype(block_dtype, h_dtype, advice, method):
    """torch said "expected m1 and m2 to have the same dtype", naming no
    argument."""
    block = GatedAttentionBlock(4).to(block_dtype)
    h = torch.zeros(2, 3, 4, dtype=h_dtype)
    with pytest.raises(
        TypeError,
        match=rf"^h has dtype {h_dtype}; the block computes in {block_dtype}: "
        + advice,
    ):
        block(h) if method == "forward" else block.jet(h, torch.ones_like(h), None)


def test_a_jet_names_a_direction_of_another_dtype():
    block = GatedAttentionBlock(4)
    h = torch.zeros(2, 3, 4)
    for name, dh, d2h in [
        ("dh", h.double(), None),
        ("d2h", h, h.double()),
    ]:
        with pytest.raises(TypeError, match=rf"^{name} has dtype torch.float64"):
            block.jet(h, dh, d2h)


def test_gate_gain_scales_the_same_draws_and_one_over_root_3_is_pytorchs():
    """The gate projection is drawn Xavier-uniform with ``gate_gain``: the
    same random numbers at any gain (the weights are proportional), bounded
    by gain * sqrt(3 / d); gain 1 / sqrt(3) is the bound of PyTorch's own
    nn.Linear (1 / sqrt(d)), and every other weight is untouched."""
    d = 64
    nets = {
        gain: GatedAttentionBlock(d, gate_gain=gain) for gain in (2.0, 1 / math.sqrt(3))
    }
    for net in nets.values():
        net.reset_parameters(torch.Generator().manual_seed(0))
    wide, default = (nets[g].gate_proj.weight for g in nets)
    torch.testing.assert_close(wide, default * 2 * math.sqrt(3), rtol=1e-6, atol=0)
    assert default.abs().max() <= 1 / math.sqrt(d)
    assert default.abs().max() > 0.99 / math.sqrt(d)  # the bound is reached
    reference = torch.nn.Linear(d, d)
    torch.nn.init.kaiming_uniform_(
        reference.weight, a=math.sqrt(5), generator=torch.Generator().manual_seed(1)
    )
    assert reference.weight.abs().max() <= 1 / math.sqrt(d)
    for name, weight in nets[2.0].named_parameters():
        if name != "gate_proj.weight":
            assert torch.equal(
                weight, dict(nets[1 / math.sqrt(3)].named_parameters())[name]
            )


def test_token_rms_keeps_copied_tokens_as_views():
    """The 1/sqrt(n_tokens) of the RMS norm is applied before the copies are
    expanded: scaling them afterwards materialised n_tokens copies (on 100 000
    points the curvature's peak memory went from 0.6 to 2.6 GB)."""
    from skgate.nn import RepresentationMap

    net = GatedAttentionNet(2, 2, n_tokens=8, d_model=4).double()
    f = RepresentationMap(net, "attention", token_rms=True)
    x = torch.randn(5, 1, 2, dtype=torch.float64)
    v = torch.randn(1, 3, 2, dtype=torch.float64)
    for part in f.jet(x, v):
        assert part.shape[-2] == 8 and part.stride()[-2] == 0
    plain = net.representation_jet(x, v)
    for scaled, raw in zip(f.jet(x, v), plain, strict=True):
        torch.testing.assert_close(scaled, raw / math.sqrt(8), rtol=1e-15, atol=0)
    assert f(x[:, 0]).stride()[-2] == 0


def test_representation_map_refuses_other_inputs_by_name():
    """A tensor of another dtype or not a tensor: a TypeError naming the
    argument, what was given and what is allowed, not torch's "mat1 and mat2
    must have the same dtype" or "no attribute 'unsqueeze'"."""
    from skgate.nn import RepresentationMap

    net = GatedAttentionNet(2, 2, d_model=4).double()
    f = RepresentationMap(net, "attention", token_rms=True)
    x = torch.zeros(3, 2, dtype=torch.float64)
    allowed = r"must be a torch tensor of dtype torch.float64 .* shape \(n, 2\)"
    for name, bad, given in (
        ("x", x.float(), "got a tensor of dtype torch.float32"),
        ("x", x.numpy(), "got numpy.ndarray"),
        ("x", [[0.0, 0.0]], "got list"),
    ):
        with pytest.raises(TypeError, match=f"^{name} {allowed}; {given}"):
            f(bad)
        with pytest.raises(TypeError, match=f"^{name} {allowed}; {given}"):
            f.jet(bad, x)
        with pytest.raises(TypeError, match=f"^v {allowed}; {given}"):
            f.jet(x, bad)
    # The network's own dtype is what is allowed: a float32 network takes float32.
    f32 = RepresentationMap(GatedAttentionNet(2, 2, d_model=4), "pooled")
    assert f32(x.float()).dtype == torch.float32
    with pytest.raises(TypeError, match="dtype torch.float32 .* got a tensor of dtype"):
        f32(x)
    # Valid input, requiring grad or not, as before; shapes still ValueErrors.
    assert f(x.requires_grad_()).shape == (3, 8, 4)
    with pytest.raises(ValueError, match=r"shape \(batch, 2\)"):
        f(torch.zeros(3, 5, dtype=torch.float64))


LAYERS = ("attention", 0, "pooled", "logits")
#: The architectures of production gated attention beside the paper's block.
ARCHITECTURES = [
    {},
    {"n_heads": 4},
    {"residual": True},
    {"residual": True, "norm": "layer"},
    {"n_heads": 4, "residual": True, "norm": "layer"},
]
#: The built-in gates and those conftest registers as a user would.
ALL_GATES = list(GATES)


class _CompositeLayerNorm(torch.nn.Module):
    """LayerNorm written out in elementary operations. torch 2.13's nested
    forward-mode autodiff through ``F.layer_norm`` is wrong (second
    derivatives off by O(1): see test_torch_nested_jvp_through_layer_norm);
    through these operations it is right, so the reference uses them."""

    def __init__(self, norm):
        super().__init__()
        self.norm = norm

    def forward(self, h):
        c = h - h.mean(-1, keepdim=True)
        u = c / torch.sqrt((c * c).mean(-1, keepdim=True) + self.norm.eps)
        return u * self.norm.weight + self.norm.bias


def _with_composite_norms(net):
    """``net`` (changed in place) with every LayerNorm written out."""
    for block in net.blocks:
        if block.norm is not None:
            block.norm = _CompositeLayerNorm(block.norm)
    return net


def _nested_jvp(f, x, v):
    """Value, first and second derivative of f along v by nested autodiff."""

    def first(x_):
        return torch.func.jvp(f, (x_,), (v,))[1]

    velocity, acceleration = torch.func.jvp(first, (x,), (v,))
    return f(x), velocity, acceleration


class TestArchitectures:
    """Several heads, residual blocks, pre-LayerNorm, the sigmoid gates: the
    forward pass, the exact jet, flatness where it must hold."""

    @pytest.mark.parametrize("architecture", ARCHITECTURES, ids=repr)
    @pytest.mark.parametrize("gate", ALL_GATES)
    @pytest.mark.parametrize("token_dim", [None, 1])
    def test_jet_equals_nested_autodiff(self, architecture, gate, token_dim):
        net = _net(gate=gate, depth=2, token_dim=token_dim, **architecture)
        gen = torch.Generator().manual_seed(2)
        x = torch.randn(6, 3, dtype=torch.float64, generator=gen)
        v = torch.randn(6, 3, dtype=torch.float64, generator=gen)
        exact = {layer: net.representation_jet(x, v, layer) for layer in LAYERS}
        reference = _with_composite_norms(net)
        for layer in LAYERS:
            expected = _nested_jvp(
                functools.partial(reference.representation, layer=layer), x, v
            )
            for got, want in zip(exact[layer], expected, strict=True):
                torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-12)

    @pytest.mark.parametrize("head", HEADS)
    def test_every_head_has_an_exact_jet(self, head):
        """The logits' jet through each head equals nested autodiff of the
        module's own forward (ReLU: away from its kink, almost surely)."""
        net = _net(gate="multiplicative", depth=1, head=head)
        gen = torch.Generator().manual_seed(4)
        x = torch.randn(6, 3, dtype=torch.float64, generator=gen)
        v = torch.randn(6, 3, dtype=torch.float64, generator=gen)
        f = net
        if head == "norm-linear":
            # torch 2.13's nested forward-mode AD through nn.LayerNorm gives
            # a wrong second derivative (2.9 off finite differences on a
            # random line): the reference computes the LayerNorm by hand.
            norm, linear = net.head

            def f(t):
                p = net.representation(t, layer="pooled")
                c = p - p.mean(-1, keepdim=True)
                u = c / torch.sqrt((c * c).mean(-1, keepdim=True) + norm.eps)
                return linear(u * norm.weight + norm.bias)

        expected = _nested_jvp(f, x, v)
        got = net.representation_jet(x, v, "logits")
        for part, want in zip(got, expected, strict=True):
            torch.testing.assert_close(part, want, rtol=1e-10, atol=1e-12)
        if head == "norm-linear":
            assert isinstance(net.head[0], torch.nn.LayerNorm)
        else:
            assert head == "linear" or isinstance(
                net.head[1], HEAD_ACTIVATIONS[head][0]
            )

    @pytest.mark.parametrize("architecture", ARCHITECTURES[1:], ids=repr)
    def test_jet_equals_finite_differences(self, architecture):
        net = _net(gate="sigmoid", depth=2, token_dim=1, **architecture)
        gen = torch.Generator().manual_seed(3)
        x = torch.randn(5, 3, dtype=torch.float64, generator=gen)
        v = torch.randn(5, 3, dtype=torch.float64, generator=gen)
        _, _, acceleration = net.representation_jet(x, v)
        eps = 1e-3
        with torch.no_grad():
            f = net.representation
            second = (f(x + eps * v) - 2 * f(x) + f(x - eps * v)) / eps**2
        torch.testing.assert_close(acceleration, second, rtol=1e-4, atol=1e-6)

    @pytest.mark.parametrize("depth", [1, 2, 4, 8])
    @pytest.mark.parametrize("n_heads", [1, 4])
    def test_residual_ungated_copied_tokens_stay_affine(self, depth, n_heads):
        net = _net(gate="none", depth=depth, residual=True, n_heads=n_heads)
        gen = torch.Generator().manual_seed(1)
        x = 2 * torch.randn(50, 3, dtype=torch.float64, generator=gen)
        v = torch.randn(50, 3, dtype=torch.float64, generator=gen)
        _, _, acceleration = net.representation_jet(x, v)
        assert acceleration.abs().max() < 1e-9
        assert _second_difference(net.representation, x, v, eps=0.1).max() < 1e-9

    @pytest.mark.parametrize("gate", ["none", "multiplicative", "sigmoid"])
    def test_layer_norm_curves_even_ungated_attention(self, gate):
        net = _net(gate=gate, residual=True, norm="layer")
        gen = torch.Generator().manual_seed(1)
        x = 2 * torch.randn(50, 3, dtype=torch.float64, generator=gen)
        v = torch.randn(50, 3, dtype=torch.float64, generator=gen)
        assert _second_difference(net.representation, x, v, eps=0.1).mean() > 1e-3

    def test_sigmoid_gates_by_hand(self):
        torch.manual_seed(0)
        h = torch.randn(2, 3, 8, dtype=torch.float64)
        block = GatedAttentionBlock(8, "sigmoid", n_heads=2).double()
        q, k, v = (p(h).view(2, 3, 2, 4).transpose(1, 2) for p in block.projections)
        a = torch.softmax(q @ k.transpose(-2, -1) / 2.0, -1) @ v
        a = a.transpose(1, 2).reshape(2, 3, 8)
        expected = a * torch.sigmoid(block.gate_proj(h))
        torch.testing.assert_close(block(h), expected)
        head = GatedAttentionBlock(8, "sigmoid_head", n_heads=2).double()
        head.load_state_dict(
            {
                **block.state_dict(),
                "gate_proj.weight": block.gate_proj.weight[:2],
                "gate_proj.bias": block.gate_proj.bias[:2],
            }
        )
        g = torch.sigmoid(head.gate_proj(h))  # (2, 3, heads)
        expected = (a.view(2, 3, 2, 4) * g.unsqueeze(-1)).reshape(2, 3, 8)
        torch.testing.assert_close(head(h), expected)
        assert head.gate_proj.weight.shape == (2, 8)

    def test_pre_layer_norm_residual_by_hand(self):
        torch.manual_seed(0)
        h = torch.randn(2, 3, 8, dtype=torch.float64)
        block = GatedAttentionBlock(8, "none", residual=True, norm="layer").double()
        plain = GatedAttentionBlock(8, "none").double()
        plain.load_state_dict(
            {k: v for k, v in block.state_dict().items() if not k.startswith("norm")}
        )
        x = torch.nn.functional.layer_norm(h, (8,), eps=1e-5)
        torch.testing.assert_close(block(h), h + plain(x))

    def test_one_head_is_the_single_head_block(self):
        torch.manual_seed(0)
        one = GatedAttentionBlock(8, "multiplicative", n_heads=1).double()
        h = torch.randn(2, 3, 8, dtype=torch.float64)
        q, k, v = (p(h) for p in one.projections)
        a = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8), -1) @ v
        expected = a * (1 + torch.tanh(one.gate_proj(h)))
        torch.testing.assert_close(one(h), expected)

    def test_reset_reproduces_construction(self):
        options = {"gate": "sigmoid_head", "n_heads": 4, "residual": True}
        torch.manual_seed(5)
        built = GatedAttentionNet(3, 2, d_model=16, norm="layer", **options)
        reset = GatedAttentionNet(3, 2, d_model=16, norm="layer", **options)
        with torch.no_grad():
            for p in reset.parameters():
                p.add_(1.0)  # LayerNorm's weights too must be reset
        reset.reset_parameters(torch.Generator().manual_seed(5))
        for (name, a), b in zip(
            built.state_dict().items(), reset.state_dict().values(), strict=True
        ):
            torch.testing.assert_close(a, b.to(a.dtype), msg=name)

    @pytest.mark.parametrize(
        "kwargs, error, match",
        [
            ({"n_heads": 3}, ValueError, "d_model must be divisible by n_heads; got"),
            ({"n_heads": 0}, ValueError, "n_heads must be an int >= 1"),
            ({"n_heads": 2.0}, TypeError, "n_heads must be an int"),
            ({"norm": "layer"}, ValueError, "needs residual=True"),
            ({"norm": "batch", "residual": True}, ValueError, "norm must be one of"),
            ({"residual": "yes"}, TypeError, "residual must be a bool"),
        ],
    )
    def test_bad_architectures(self, kwargs, error, match):
        with pytest.raises(error, match=match):
            GatedAttentionNet(3, 2, d_model=16, **kwargs)


def test_torch_nested_jvp_through_layer_norm():
    """Pins a PyTorch defect the geometry depends on: nested forward-mode
    autodiff (``torch.func.jvp`` of ``jvp``, the geometry's exact method for
    maps without a jet) through ``F.layer_norm`` gives wrong second
    derivatives in torch 2.13, while the same function in elementary
    operations is right. skgate's networks never take that path (their jet
    is exact). When this test fails, torch has fixed it: drop the composite
    reference above and the note in docs/design.md."""
    gen = torch.Generator().manual_seed(0)
    h = torch.randn(4, 5, dtype=torch.float64, generator=gen)
    v = torch.randn(4, 5, dtype=torch.float64, generator=gen)
    library = functools.partial(torch.nn.functional.layer_norm, normalized_shape=(5,))
    composite = _CompositeLayerNorm(torch.nn.LayerNorm(5).double())
    eps = 1e-4
    with torch.no_grad():
        differences = composite(h + eps * v) - 2 * composite(h) + composite(h - eps * v)
        differences = differences / eps**2
    right = _nested_jvp(composite, h, v)[2]
    wrong = _nested_jvp(library, h, v)[2]
    torch.testing.assert_close(right, differences, rtol=1e-5, atol=1e-6)
    assert (wrong - differences).abs().max() > 1.0


class TestGateRegistry:
    """Gates are entries of one registry; a gate a user registers works
    wherever a built-in one does (the conftest's user gates also run in every
    test parametrized over the registry)."""

    def test_the_built_in_gates_are_entries(self):
        assert list(GATES)[:5] == [
            "multiplicative",
            "silu",
            "none",
            "sigmoid",
            "sigmoid_head",
        ]
        assert GATES["multiplicative"].strength and GATES["multiplicative"].projected
        assert GATES["sigmoid_head"].per_head and not GATES["sigmoid"].per_head
        assert not GATES["silu"].projected and not GATES["none"].projected

    @pytest.mark.parametrize("name", ["multiplicative", "silu", "none", "sigmoid"])
    def test_built_in_derivatives_are_right_and_fused_paths_agree(self, name):
        """The built-ins' stated derivatives pass the registration check, and
        their fused jets and backward equal the generic ones built from them."""
        import dataclasses

        from skgate.nn._gates import _check_derivatives

        gate = GATES[name]
        _check_derivatives(
            name, gate.activation, gate.derivative, gate.second_derivative
        )
        generic = dataclasses.replace(gate, fused_jet=None, fused_backward=None)
        gen = torch.Generator().manual_seed(0)
        x, dx, d2x = (
            torch.randn(4, 5, dtype=torch.float64, generator=gen) for _ in "abc"
        )
        scale = (0.7,) if gate.strength else ()
        for got, want in zip(
            gate.activation_jet(x, dx, d2x, *scale),
            generic.activation_jet(x, dx, d2x, *scale),
            strict=True,
        ):
            torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
        y = gate.activation(x)
        torch.testing.assert_close(
            gate.activation_backward(dx, x, y), generic.activation_backward(dx, x, y)
        )

    def test_a_user_gate_in_the_block_by_hand(self):
        block = GatedAttentionBlock(8, "softplus_user", alpha=0.5).double()
        h = torch.randn(2, 3, 8, dtype=torch.float64)
        q, k, v = (p(h) for p in block.projections)
        a = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8), -1) @ v
        psi = 1 + 0.5 * torch.nn.functional.softplus(block.gate_proj(h))
        torch.testing.assert_close(block(h), a * psi)
        assert "alpha=0.5" in repr(block)
        per_head = GatedAttentionBlock(8, "erf_head_user", n_heads=4).double()
        assert per_head.gate_proj.weight.shape == (4, 8)
        pointwise = GatedAttentionBlock(8, "tanh_user").double()
        assert pointwise.gate_proj is None
        torch.testing.assert_close(pointwise(h), torch.tanh(pointwise._attention(h)))

    def test_a_strength_gate_at_alpha_zero_is_ungated_and_flat(self):
        net = _net(gate="softplus_user", alpha=0.0, depth=3)
        flat = _net(gate="none", depth=3)
        flat.load_state_dict(
            {k: v for k, v in net.state_dict().items() if "gate_proj" not in k}
        )
        x = torch.randn(20, 3, dtype=torch.float64)
        torch.testing.assert_close(net.representation(x), flat.representation(x))
        v = torch.randn(20, 3, dtype=torch.float64)
        assert net.representation_jet(x, v)[2].abs().max() < 1e-12
        curved = _net(gate="softplus_user", alpha=1.0, depth=3)
        assert curved.representation_jet(x, v)[2].abs().max() > 1e-3

    @pytest.mark.parametrize("gate", ["softplus_user", "erf_head_user", "tanh_user"])
    def test_user_gate_jets_match_finite_differences(self, gate):
        net = _net(gate=gate, depth=2, n_heads=4, token_dim=1)
        gen = torch.Generator().manual_seed(4)
        x = torch.randn(5, 3, dtype=torch.float64, generator=gen)
        v = torch.randn(5, 3, dtype=torch.float64, generator=gen)
        value, velocity, acceleration = net.representation_jet(x, v)
        eps = 1e-3
        f = net.representation
        with torch.no_grad():
            first = (f(x + eps * v) - f(x - eps * v)) / (2 * eps)
            second = (f(x + eps * v) - 2 * f(x) + f(x - eps * v)) / eps**2
        torch.testing.assert_close(velocity, first, rtol=1e-5, atol=1e-7)
        torch.testing.assert_close(acceleration, second, rtol=1e-4, atol=1e-6)

    @pytest.mark.parametrize(
        "kwargs, error, match",
        [
            ({"name": "multiplicative"}, ValueError, "built-in gate, which cannot"),
            ({"name": ""}, TypeError, "name must be a str with a letter"),
            ({"name": "   "}, TypeError, "name must be a str with a letter"),
            ({"activation": lambda z: z.tanh_()}, TypeError, "changed its input in"),
            (
                {"activation": lambda z: torch.sigmoid(z).sum()},
                TypeError,
                r"activation must return a tensor of its input's shape \(3, 7, 30\)",
            ),
            (
                {"activation": lambda z: 1 / 0},
                TypeError,
                "activation must map a float32 tensor.*division by zero",
            ),
            ({"form": "gated"}, ValueError, "form must be one of"),
            ({"activation": "tanh"}, TypeError, "activation must be a callable"),
            ({"derivative": torch.tanh}, ValueError, "derivative disagrees"),
            (
                {"second_derivative": torch.zeros_like},
                ValueError,
                "second_derivative disagrees",
            ),
            (
                {"derivative": lambda z: 1.0},
                TypeError,
                "derivative returned a float; it must return a torch.Tensor",
            ),
            ({"per_head": True, "form": "pointwise"}, ValueError, "needs form='proj"),
            ({"strength": True, "form": "pointwise"}, ValueError, "needs form='proj"),
            ({"strength": "yes"}, TypeError, "strength must be a bool"),
        ],
    )
    def test_bad_registrations_are_refused(self, kwargs, error, match):
        good = {
            "name": "bad_user_gate",
            "form": "projected",
            "activation": torch.sigmoid,
            "derivative": lambda z: torch.sigmoid(z) * (1 - torch.sigmoid(z)),
            "second_derivative": lambda z: (
                torch.sigmoid(z) * (1 - torch.sigmoid(z)) * (1 - 2 * torch.sigmoid(z))
            ),
        }
        with pytest.raises(error, match=match):
            register_gate(**{**good, **kwargs})
        assert "bad_user_gate" not in GATES

    def test_an_unknown_gate_names_the_registry(self):
        with pytest.raises(ValueError, match="registered gates .*register_gate"):
            GatedAttentionBlock(4, gate="relu")


def _fixed_net(attention, gate, seed=0, **kwargs):
    """A sequence network with fixed attention and a random mixing matrix."""
    net = _net(seed=seed, gate=gate, token_dim=1, attention=attention, **kwargs)
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for block in net.blocks:
            block.mixing.copy_(
                torch.randn(block.mixing.shape, generator=gen, dtype=torch.float64)
            )
    return net


class TestFixedAttention:
    """attention="fixed": learned token mixing independent of the input, so
    ungated attention over sequences is affine in x (the theorem's premise)."""

    @pytest.mark.parametrize("attention", ["fixed", "fixed-causal"])
    @pytest.mark.parametrize("gate", ALL_GATES)
    @pytest.mark.parametrize("architecture", ARCHITECTURES[:3], ids=repr)
    def test_jet_equals_nested_autodiff(self, attention, gate, architecture):
        net = _fixed_net(attention, gate, depth=2, **architecture)
        gen = torch.Generator().manual_seed(5)
        x = torch.randn(4, 3, dtype=torch.float64, generator=gen)
        v = torch.randn(4, 3, dtype=torch.float64, generator=gen)
        for layer in LAYERS:
            got = net.representation_jet(x, v, layer)
            want = _nested_jvp(functools.partial(net.representation, layer=layer), x, v)
            for part, expected in zip(got, want, strict=True):
                torch.testing.assert_close(part, expected, rtol=1e-10, atol=1e-12)

    @pytest.mark.parametrize("attention", ["fixed", "fixed-causal"])
    @pytest.mark.parametrize("residual", [False, True])
    @pytest.mark.parametrize("depth", [1, 2, 4])
    def test_ungated_is_flat_gated_is_curved(self, attention, residual, depth):
        from skgate.geometry import curvature

        x = torch.randn(
            6, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(7)
        )
        for gate, flat in (("none", True), ("multiplicative", False)):
            net = _fixed_net(attention, gate, depth=depth, residual=residual)
            f = functools.partial(net.representation, layer="attention")
            for kind in ("acceleration", "gaussian"):
                values = np.abs(curvature(f, x, kind=kind))
                if flat:
                    assert values.max() < 1e-9, (gate, kind)
                elif kind == "acceleration":
                    assert values.min() > 1e-6, (gate, kind)
        # Softmax attention over the same sequences is curved even ungated.
        softmax = _net(gate="none", token_dim=1, depth=depth, residual=residual)
        f = functools.partial(softmax.representation, layer="attention")
        assert np.abs(curvature(f, x)).min() > 1e-6

    def test_exact_equals_finite_differences(self):
        from skgate.geometry import curvature

        net = _fixed_net("fixed", "multiplicative", depth=2)
        f = functools.partial(net.representation, layer="attention")
        x = torch.randn(
            5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(8)
        )
        np.testing.assert_allclose(
            curvature(f, x, method="finite_difference", eps=1e-3),
            curvature(f, x),
            rtol=1e-5,
        )

    def test_causal_tokens_see_only_the_past(self):
        net = _fixed_net("fixed-causal", "multiplicative")
        block = net.blocks[0]
        weights = block.mixing_weights()
        assert torch.all(weights.triu(1) == 0)
        torch.testing.assert_close(
            weights.sum(-1), torch.ones(1, 3, dtype=weights.dtype)
        )
        h = torch.randn(2, 3, 16, dtype=torch.float64, requires_grad=True)
        block(h)[:, 0].sum().backward()
        assert torch.all(h.grad[:, 1:] == 0) and torch.any(h.grad[:, 0] != 0)

    def test_starts_uniform_and_needs_its_token_count(self):
        block = GatedAttentionBlock(8, "none", attention="fixed", n_tokens=4)
        torch.testing.assert_close(block.mixing_weights(), torch.full((1, 4, 4), 0.25))
        assert "attention='fixed'" in repr(block)
        with pytest.raises(TypeError, match="n_tokens must be an int >= 1"):
            GatedAttentionBlock(8, "none", attention="fixed")
        with pytest.raises(ValueError, match="attention must be one of"):
            GatedAttentionBlock(8, "none", attention="linear")


class TestRegistrationChecksWhatTrainingNeeds:
    """A gate is checked at registration for what training will ask of it:
    float32 kept, any shape kept, finite well beyond [-3, 3]."""

    @staticmethod
    def _tanh(**changes):
        functions = {
            "activation": torch.tanh,
            "derivative": lambda z: 1 - torch.tanh(z) ** 2,
            "second_derivative": lambda z: (
                -2 * torch.tanh(z) * (1 - torch.tanh(z) ** 2)
            ),
        }
        return {**functions, **changes}

    def test_another_dtype_is_refused(self):
        with pytest.raises(TypeError, match="keep its input's dtype.*float64"):
            functions = self._tanh(activation=lambda z: torch.tanh(z).double())
            register_gate("tanh_f64", form="projected", **functions)

    def test_another_shape_is_refused(self):
        with pytest.raises(TypeError, match=r"its input's shape \(3, 7, 30\)"):
            functions = self._tanh(activation=lambda z: torch.tanh(z).reshape(-1))
            register_gate("tanh_flat", form="projected", **functions)

    @pytest.mark.parametrize("key", ["activation", "derivative", "second_derivative"])
    def test_a_numpy_array_is_refused_by_type(self, key):
        """A numpy result of the right shape was told "got (3, 7, 30)", the
        shape it was asked for."""
        tanh = self._tanh()[key]
        functions = self._tanh(**{key: lambda z: tanh(z).numpy()})
        match = (
            rf"register_gate\('tanh_numpy'\): {key} returned a numpy.ndarray; "
            r"it must return a torch.Tensor of its input's shape"
        )
        with pytest.raises(TypeError, match=match):
            register_gate("tanh_numpy", form="projected", **functions)
        assert "tanh_numpy" not in GATES

    def test_nan_beyond_three_is_refused(self):
        def nan_far(function):
            return lambda z: torch.where(z.abs() > 3.2, torch.nan, function(z))

        functions = {key: nan_far(f) for key, f in self._tanh().items()}
        with pytest.raises(ValueError, match=r"not finite at z=-30.*\[-30, 30\]"):
            register_gate("tanh_nan", form="projected", **functions)


def test_a_diverging_fit_with_a_user_gate_names_it():
    """Training that blows up with a user gate names the gate among the
    causes (X of 1e20 diverges whatever the gate)."""
    from sklearn.datasets import make_moons

    from skgate import GatedAttentionClassifier

    register_gate(
        "tanh_named",
        form="projected",
        activation=torch.tanh,
        derivative=lambda z: 1 - torch.tanh(z) ** 2,
        second_derivative=lambda z: -2 * torch.tanh(z) * (1 - torch.tanh(z) ** 2),
    )
    X, y = make_moons(40, random_state=0)
    clf = GatedAttentionClassifier("tanh_named", max_epochs=2, token_dim=1,
                                   random_state=0)  # fmt: skip
    try:
        with pytest.raises(ValueError, match="Training diverged.*user gate 'tanh_na"):
            clf.fit(X * 1e20, y)
    finally:
        unregister_gate("tanh_named")


@pytest.mark.parametrize(
    "params",
    [
        {},  # copied tokens
        {"depth": 2, "residual": True},
        {"token_dim": 2},  # a sequence of 4 tokens
        {"token_dim": 8},  # a sequence of one token
        {"token_dim": 2, "attention": "fixed"},
        {"token_dim": 8, "attention": "fixed-causal"},
        {"attention": "fixed"},
    ],
)
def test_unused_weights_are_those_the_output_does_not_depend_on(params):
    """Autograd's gradient of the output is exactly zero for the weights
    unused_weights names, and not for any other."""
    torch.manual_seed(0)
    net = GatedAttentionNet(8, 3, d_model=16, **params)
    net(torch.randn(32, 8)).pow(2).sum().backward()
    zero = {
        name
        for name, p in net.named_parameters()
        if p.grad is None or not p.grad.abs().max() > 0  # None: not reached
    }
    assert net.unused_weights() == zero

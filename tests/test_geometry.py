"""skgate.geometry against curvatures known in closed form, and its identities."""

import numpy as np
import pytest
import torch

import skgate.geometry as geometry
from skgate.geometry import curvature, directional_derivatives
from skgate.nn import GatedAttentionNet, RepresentationMap

METHODS = ["exact", "finite_difference"]
KINDS = ["acceleration", "extrinsic", "gaussian", "scalar"]
# Central differences are O(eps^2) = 1e-4 off at the default eps.
TOL = {"exact": 1e-10, "finite_difference": 1e-3}


def circle(r):
    def f(t):  # (n, 1) -> (n, 2)
        return r * torch.cat([torch.cos(t), torch.sin(t)], dim=1)

    return f


def planar_circle_in_3d(r):
    def f(t):  # (n, 1) -> (n, 3), in the plane z = 0
        return torch.cat([r * torch.cos(t), r * torch.sin(t), 0 * t], dim=1)

    return f


def sphere(R):
    def f(x):  # (theta, phi) -> (n, 3)
        theta, phi = x[:, :1], x[:, 1:]
        return R * torch.cat(
            [
                torch.sin(theta) * torch.cos(phi),
                torch.sin(theta) * torch.sin(phi),
                torch.cos(theta),
            ],
            dim=1,
        )

    return f


def saddle(x):  # graph of z = (x^2 - y^2) / 2
    return torch.cat([x, (x[:, :1] ** 2 - x[:, 1:] ** 2) / 2], dim=1)


def small_net(seed=0, **kwargs):
    torch.manual_seed(seed)
    params = {"n_features": 2, "n_outputs": 3, "d_model": 8, **kwargs}
    return GatedAttentionNet(**params).double().eval()


T = np.array([[0.0], [0.7], [-2.0], [3.0]])
ANGLES = np.array([[0.4, 0.1], [1.2, -2.0], [2.5, 3.0]])  # away from the poles


class TestKnownValues:
    @pytest.mark.parametrize("method", METHODS)
    @pytest.mark.parametrize("r", [0.5, 1.0, 3.0])
    def test_circle(self, method, r):
        acc = curvature(circle(r), T, kind="acceleration", method=method)
        ext = curvature(circle(r), T, kind="extrinsic", method=method)
        np.testing.assert_allclose(acc, r, rtol=TOL[method])
        np.testing.assert_allclose(ext, 1 / r, rtol=TOL[method])
        # t -> r (cos t, sin t) turns one radian per unit of t, whatever r is.
        turning = curvature(circle(r), T, kind="turning", method=method)
        np.testing.assert_allclose(turning, 1.0, rtol=TOL[method])

    @pytest.mark.parametrize("method", METHODS)
    @pytest.mark.parametrize("R", [0.5, 2.0])
    def test_sphere(self, method, R):
        gaussian = curvature(sphere(R), ANGLES, kind="gaussian", method=method)
        scalar = curvature(sphere(R), ANGLES, kind="scalar", method=method)
        np.testing.assert_allclose(gaussian, 1 / R**2, rtol=TOL[method])
        np.testing.assert_allclose(scalar, 2 / R**2, rtol=TOL[method])

    @pytest.mark.parametrize("method", METHODS)
    def test_saddle(self, method):
        X = np.array([[0.0, 0.0], [0.3, -0.5], [1.0, 2.0], [-1.5, 0.2]])
        expected = -1 / (1 + (X**2).sum(axis=1)) ** 2
        got = curvature(saddle, X, kind="gaussian", method=method)
        np.testing.assert_allclose(got, expected, rtol=TOL[method])

    def test_sphere_in_higher_dimensions(self):
        # The unit 3-sphere in R^4 through hyperspherical coordinates: every
        # sectional curvature is 1, so scalar = p (p - 1) = 6, "gaussian" = 1.
        def three_sphere(x):
            a, b, c = x[:, :1], x[:, 1:2], x[:, 2:]
            return torch.cat(
                [
                    torch.cos(a),
                    torch.sin(a) * torch.cos(b),
                    torch.sin(a) * torch.sin(b) * torch.cos(c),
                    torch.sin(a) * torch.sin(b) * torch.sin(c),
                ],
                dim=1,
            )

        X = [[0.9, 1.1, 0.3], [1.4, 0.7, -2.0]]
        np.testing.assert_allclose(curvature(three_sphere, X, kind="scalar"), 6.0)
        np.testing.assert_allclose(curvature(three_sphere, X, kind="gaussian"), 1.0)

    @pytest.mark.parametrize("method", METHODS)
    @pytest.mark.parametrize("kind", KINDS)
    def test_affine_maps_are_flat(self, method, kind):
        gen = torch.Generator().manual_seed(0)
        A = torch.randn(3, 5, dtype=torch.float64, generator=gen)
        b = torch.randn(5, dtype=torch.float64, generator=gen)
        X = np.random.default_rng(0).normal(size=(6, 3))
        got = curvature(lambda x: x @ A + b, X, kind=kind, method=method)
        np.testing.assert_allclose(got, 0.0, atol=1e-9)

    def test_a_line_is_flat_and_a_surface_of_one_direction_too(self):
        line = curvature(lambda t: torch.cat([t, 2 * t], 1), T, kind="extrinsic")
        np.testing.assert_array_equal(line, 0.0)
        # Scalar curvature of a curve is 0 (no intrinsic curvature in 1-D).
        np.testing.assert_allclose(curvature(circle(2.0), T, kind="scalar"), 0.0)


class TestMetrics:
    def test_diagonal_metric_scales_acceleration(self):
        f = planar_circle_in_3d(1.5)
        plain = curvature(f, T, kind="acceleration")
        weighted = curvature(f, T, kind="acceleration", metric=[4.0, 4.0, 1.0])
        np.testing.assert_allclose(weighted, 2 * plain, rtol=1e-12)
        np.testing.assert_allclose(plain, 1.5, rtol=1e-12)

    def test_fisher_rao_halves_extrinsic_curvature(self):
        f = planar_circle_in_3d(1.5)
        plain = curvature(f, T, kind="extrinsic")
        fisher = curvature(f, T, kind="extrinsic", covariance=[0.25, 0.25, 1.0])
        np.testing.assert_allclose(fisher, plain / 2, rtol=1e-12)
        full = curvature(f, T, kind="extrinsic", covariance=np.diag([0.25, 0.25, 1]))
        np.testing.assert_allclose(full, fisher, rtol=1e-12)

    def test_a_number_is_an_isotropic_metric(self):
        f = planar_circle_in_3d(1.5)
        np.testing.assert_allclose(curvature(f, T, metric=4.0), 3.0, rtol=1e-12)
        np.testing.assert_allclose(
            curvature(f, T, kind="extrinsic", covariance=4.0), 2 / 1.5, rtol=1e-12
        )
        with pytest.raises(ValueError, match="entries <= 0"):
            curvature(f, T, metric=-1.0)

    def test_full_spd_metric_is_the_quadratic_form(self):
        rng = np.random.default_rng(0)
        A = rng.normal(size=(3, 3))
        M = A @ A.T + 0.5 * np.eye(3)
        f = planar_circle_in_3d(2.0)
        _, acc = directional_derivatives(
            f, torch.tensor(T), torch.ones(1, 1, dtype=torch.float64)
        )
        a = acc[:, 0].numpy()
        expected = np.sqrt(np.einsum("ni,ij,nj->n", a, M, a))
        got = curvature(f, T, metric=M, directions=[[1.0]])
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        # The Fisher-Rao metric of covariance M^-1 is M.
        fisher = curvature(f, T, covariance=np.linalg.inv(M), directions=[[1.0]])
        np.testing.assert_allclose(fisher, expected, rtol=1e-10)

    def test_anisotropic_metric_is_log_spaced(self):
        f = lambda x: torch.cat([x**2, x**2, x**2], dim=1)  # noqa: E731
        X = [[1.0], [2.0]]
        got = curvature(f, X, metric="anisotropic", condition_number=100)
        explicit = curvature(f, X, metric=[1.0, 0.1, 0.01])
        np.testing.assert_allclose(got, explicit, rtol=1e-12)
        one = curvature(f, X, metric="anisotropic", condition_number=1)
        np.testing.assert_allclose(one, curvature(f, X), rtol=1e-12)

    def test_metric_preserves_the_ordering_it_scales(self):
        X = np.random.default_rng(1).normal(size=(20, 2))
        kw = {"metric": "anisotropic", "condition_number": 1e4}
        ungated = RepresentationMap(small_net(gate="none", n_outputs=2), "pooled")
        gated = RepresentationMap(small_net(alpha=1.5, n_outputs=2), "pooled")
        assert curvature(gated, X, **kw).mean() > curvature(ungated, X, **kw).mean()


class TestCurvatureByMetric:
    """Several metrics from one evaluation of the derivatives: each row is
    curvature() under that metric alone, for every kind and method, on a
    net whose map has an Euclidean shortcut (copied tokens)."""

    @pytest.mark.parametrize("method", METHODS)
    @pytest.mark.parametrize("kind", KINDS)
    def test_each_row_is_curvature_under_that_metric(self, kind, method):
        torch.manual_seed(0)
        net = GatedAttentionNet(3, 2, d_model=4, n_tokens=3).double()
        f = RepresentationMap(net, "attention", token_rms=True)
        X = torch.randn(5, 3, dtype=torch.float64)
        m = 12
        spd = torch.randn(m, m, dtype=torch.float64)
        metrics = [
            {},
            {"metric": "anisotropic", "condition_number": 100.0},
            {"metric": spd @ spd.T + torch.eye(m, dtype=torch.float64)},
            {"covariance": torch.full((m,), 0.5, dtype=torch.float64)},
        ]
        got = geometry.curvature_by_metric(f, X, metrics, kind=kind, method=method)
        assert got.shape == (4, 5)
        for row, options in zip(got, metrics, strict=True):
            want = curvature(f, X, kind=kind, method=method, **options)
            # Alone, the Euclidean row measures one copied token; here the
            # whole map: central differences round differently (3e-12).
            rtol = 1e-12 if method == "exact" else 1e-9
            np.testing.assert_allclose(row, want, rtol=rtol, atol=1e-15)

    @pytest.mark.parametrize(
        "metrics, kwargs, error, match",
        [
            ([{"metrc": None}], {}, TypeError, "metrics may hold only the keys"),
            ([{}], {"metric": "anisotropic"}, TypeError, "not as keywords"),
            ([{"metric": "anisotropic"}], {}, ValueError, "needs condition_number"),
            ([{}], {"kind": "bent"}, ValueError, "kind"),
            ([], {}, TypeError, "non-empty list of dicts"),
            ({"metric": None}, {}, TypeError, "non-empty list of dicts"),
        ],
    )
    def test_bad_options(self, metrics, kwargs, error, match):
        with pytest.raises(error, match=match):
            geometry.curvature_by_metric(circle(1.0), [[0.0]], metrics, **kwargs)


class TestIdentities:
    @pytest.mark.parametrize("kind", KINDS)
    def test_isometries_of_the_output_leave_curvature_unchanged(self, kind):
        f = sphere(1.3)
        Q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(3, 3)))
        Q, b = torch.tensor(Q), torch.tensor([1.0, -2.0, 5.0], dtype=torch.float64)
        moved = lambda x: f(x) @ Q + b  # noqa: E731
        np.testing.assert_allclose(
            curvature(moved, ANGLES, kind=kind),
            curvature(f, ANGLES, kind=kind),
            rtol=1e-10,
        )

    def test_scaling_the_output(self):
        f, c = sphere(1.0), 3.0
        scaled = lambda x: c * f(x)  # noqa: E731
        for kind, power in [
            ("acceleration", 1),
            ("extrinsic", -1),
            ("turning", 0),
            ("gaussian", -2),
        ]:
            np.testing.assert_allclose(
                curvature(scaled, ANGLES, kind=kind),
                c**power * curvature(f, ANGLES, kind=kind),
                rtol=1e-10,
            )

    def test_extrinsic_is_independent_of_the_parametrisation(self):
        f, c = circle(2.0), 5.0
        faster = lambda t: f(c * t)  # noqa: E731
        np.testing.assert_allclose(
            curvature(faster, T / c, kind="extrinsic"),
            curvature(f, T, kind="extrinsic"),
            rtol=1e-12,
        )
        np.testing.assert_allclose(
            curvature(faster, T / c, kind="acceleration"),
            c**2 * curvature(f, T, kind="acceleration"),
            rtol=1e-12,
        )
        # Turning is per unit of input: a curve traced c times as fast turns
        # c times as fast.
        np.testing.assert_allclose(
            curvature(faster, T / c, kind="turning"),
            c * curvature(f, T, kind="turning"),
            rtol=1e-12,
        )

    def test_finite_differences_converge_at_second_order(self):
        f = RepresentationMap(small_net(alpha=1.0), "attention")
        X = np.random.default_rng(0).normal(size=(10, 2))
        exact = curvature(f, X)
        errors = [
            np.abs(curvature(f, X, method="finite_difference", eps=eps) - exact).max()
            for eps in (4e-2, 2e-2, 1e-2)
        ]
        assert errors[0] / errors[1] == pytest.approx(4, rel=0.1)
        assert errors[1] / errors[2] == pytest.approx(4, rel=0.1)
        assert errors[2] < 1e-3 * exact.mean()

    @pytest.mark.parametrize("layer", ["attention", 0, "pooled", "logits"])
    @pytest.mark.parametrize("kind", KINDS)
    def test_jet_equals_nested_autodiff(self, layer, kind):
        net = small_net(alpha=1.3, depth=2)
        X = np.random.default_rng(0).normal(size=(7, 2))
        with_jet = curvature(RepresentationMap(net, layer), X, kind=kind)
        autodiff = curvature(lambda x: net.representation(x, layer), X, kind=kind)
        np.testing.assert_allclose(with_jet, autodiff, rtol=1e-10, atol=1e-12)


class TestFlatnessTheorem:
    """Ungated attention over copied tokens is affine in x: curvature exactly 0."""

    @pytest.mark.parametrize("method", METHODS)
    @pytest.mark.parametrize("depth", [1, 2, 3, 4])
    def test_ungated_is_flat_and_gated_is_not(self, method, depth):
        X = 2 * np.random.default_rng(depth).normal(size=(25, 2))
        for kind in ("acceleration", "extrinsic"):
            ungated = RepresentationMap(small_net(gate="none", depth=depth))
            flat = curvature(ungated, X, kind=kind, method=method)
            assert flat.max() < 1e-9
        gated = RepresentationMap(small_net(alpha=1.0, depth=depth))
        assert curvature(gated, X, method=method).min() > 1e-3

    def test_float32_finite_differences_have_a_noise_floor(self):
        # Why skgate measures in float64: the paper's formula in float32 sees
        # curvature of ~1e-3 |f| in a map that is exactly flat.
        torch.manual_seed(0)
        net = GatedAttentionNet(2, 2, gate="none").eval()
        gen = torch.Generator().manual_seed(0)
        x = torch.randn(200, 2, generator=gen)
        v = torch.nn.functional.normalize(torch.randn(200, 2, generator=gen), dim=1)
        eps = 1e-2
        for dtype, low, high in [(torch.float32, 1e-3, 1.0), (torch.float64, 0, 1e-9)]:
            model, xx, vv = net.to(dtype), x.to(dtype), v.to(dtype)
            with torch.no_grad():
                plus, centre, minus = (
                    model.representation(z).flatten(1)
                    for z in (xx + eps * vv, xx, xx - eps * vv)
                )
                second = (plus - 2 * centre + minus) / eps**2
            assert low <= second.norm(dim=1).mean().item() < high

    def test_alpha_zero_is_flat_at_every_block(self):
        net = small_net(alpha=0.0, depth=3)
        X = np.random.default_rng(0).normal(size=(10, 2))
        for layer in [0, 1, 2, "pooled"]:
            assert curvature(RepresentationMap(net, layer), X).max() < 1e-9


class TestDirections:
    def test_random_directions_are_deterministic(self):
        f = RepresentationMap(small_net())
        X = np.random.default_rng(0).normal(size=(5, 2))
        first = curvature(f, X, random_state=3)
        np.testing.assert_array_equal(first, curvature(f, X, random_state=3))
        assert not np.array_equal(first, curvature(f, X, random_state=4))

    def test_explicit_directions_are_normalised_and_averaged(self):
        f = RepresentationMap(small_net())
        X = np.random.default_rng(0).normal(size=(5, 2))
        e1 = curvature(f, X, directions=[[1.0, 0.0]])
        e2 = curvature(f, X, directions=[[0.0, 1.0]])
        both = curvature(f, X, directions=[[3.0, 0.0], [0.0, 0.5]])
        np.testing.assert_allclose(both, (e1 + e2) / 2, rtol=1e-12)

    def test_random_directions_are_those_of_the_seed(self):
        f = RepresentationMap(small_net())
        X = np.random.default_rng(0).normal(size=(5, 2))
        V = np.random.RandomState(7).standard_normal((4, 2))
        np.testing.assert_allclose(
            curvature(f, X, n_directions=4, random_state=7),
            curvature(f, X, directions=V),
            rtol=1e-12,
        )

    def test_frame_for_intrinsic_kinds(self):
        # The default frame is the whole input space; a frame spanning it
        # gives the same Gaussian curvature.
        X = ANGLES
        default = curvature(sphere(2.0), X, kind="gaussian")
        rotated = curvature(
            sphere(2.0), X, kind="gaussian", directions=[[1.0, 1.0], [1.0, -2.0]]
        )
        np.testing.assert_allclose(rotated, default, rtol=1e-10)


class TestDegenerateFrames:
    """Intrinsic curvature on frames and metrics with (almost) no rank: issue 12."""

    def test_a_nearly_dependent_frame_measures_its_span(self):
        # [1, 0], [1, 1e-7] span the plane: the same surface as the standard basis.
        default = curvature(saddle, ANGLES, kind="gaussian")
        skewed = curvature(
            saddle, ANGLES, kind="gaussian", directions=[[1.0, 0.0], [1.0, 1e-7]]
        )
        np.testing.assert_allclose(skewed, default, rtol=1e-6)

    @pytest.mark.parametrize(
        "frame",
        [
            [[1.0, 0.0], [2.0, 0.0]],
            [[1.0, 0.0], [1.0, 1e-12]],
            [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        ],
        ids=["parallel", "within-rounding", "three-in-two"],
    )
    def test_a_dependent_frame_is_refused(self, frame):
        with pytest.raises(ValueError, match="must be linearly independent"):
            curvature(saddle, ANGLES, kind="scalar", directions=frame)

    def test_a_singular_metric_gives_nan_and_a_warning(self):
        def rank_one(x):  # the image of the plane is a curve
            return torch.cat([x[:, :1], x[:, :1] ** 2, torch.sin(x[:, :1])], dim=1)

        with pytest.warns(geometry.DegenerateMetricWarning, match="3 of 3 rows"):
            kappa = curvature(rank_one, ANGLES, kind="gaussian")
        assert np.isnan(kappa).all()

    def test_only_the_singular_rows_are_nan(self):
        def pinched(x):  # rank 2 except where x0 = 0
            return torch.cat([x[:, :1] ** 3, x[:, 1:], x[:, :1] ** 2 * x[:, 1:]], dim=1)

        X = np.array([[0.0, 0.5], [0.8, 0.3]])
        with pytest.warns(geometry.DegenerateMetricWarning, match="1 of 2 rows"):
            kappa = curvature(pinched, X, kind="gaussian")
        assert np.isnan(kappa[0]) and np.isfinite(kappa[1])

    def test_intrinsic_memory_grows_as_p_squared(self):
        """No intermediate larger than the (p, p, m) Hessian, whatever p is."""
        from torch.utils._python_dispatch import TorchDispatchMode

        class LargestTensor(TorchDispatchMode):
            numel = 0

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                for tensor in out if isinstance(out, (tuple, list)) else [out]:
                    if isinstance(tensor, torch.Tensor):
                        LargestTensor.numel = max(LargestTensor.numel, tensor.numel())
                return out

        p = 40
        gen = torch.Generator().manual_seed(0)
        W = torch.randn(p, 6, dtype=torch.float64, generator=gen)

        def f(x):  # an immersion of R^40 into R^46: full rank, curved
            return torch.cat([x, torch.tanh(x @ W)], dim=1)

        X = np.random.default_rng(0).normal(size=(1, p))
        with LargestTensor():
            kappa = curvature(f, X, kind="scalar")
        m = p + 6
        assert np.isfinite(kappa).all() and kappa[0] != 0
        # The Hessian has p * p * m = 73,600 numbers; g^-1 x g^-1 had p^4 = 2.56M.
        assert LargestTensor.numel <= 2 * p * p * m


class TestChunking:
    def test_chunks_do_not_change_the_result(self, monkeypatch):
        f = RepresentationMap(small_net(alpha=1.0, depth=2))
        X = np.random.default_rng(0).normal(size=(50, 2))
        whole = curvature(f, X, kind="extrinsic")
        monkeypatch.setattr(geometry, "_CHUNK_EVALUATIONS", 20)
        np.testing.assert_allclose(curvature(f, X, kind="extrinsic"), whole, rtol=1e-13)

    def test_one_hundred_thousand_points(self):
        f = RepresentationMap(small_net(d_model=4, n_tokens=2))
        X = np.random.default_rng(0).normal(size=(100_000, 2))
        kappa = curvature(f, X, n_directions=2)
        assert kappa.shape == (100_000,) and np.isfinite(kappa).all()


class TestBadInput:
    f = staticmethod(circle(1.0))

    @pytest.mark.parametrize(
        "kwargs, error, match",
        [
            ({"kind": "mean"}, ValueError, "'kind' parameter"),
            ({"method": "symbolic"}, ValueError, "'method' parameter"),
            ({"eps": 0.0}, ValueError, "'eps' parameter .* Got 0.0"),
            ({"eps": -1e-3}, ValueError, "'eps' parameter"),
            (
                {"eps": 1e300, "method": "finite_difference"},
                ValueError,
                r"eps=1e\+300 is out of float64's range .*eps\*\*2 = inf",
            ),
            (
                {"eps": 1e-200, "method": "finite_difference"},
                ValueError,
                "eps=1e-200 is out of float64's range",
            ),
            ({"n_directions": 0}, ValueError, "'n_directions' parameter"),
            (
                {"condition_number": 0.5, "metric": "anisotropic"},
                ValueError,
                "'condition_number' parameter",
            ),
            ({"metric": "anisotropic"}, ValueError, "needs condition_number"),
            ({"condition_number": 10.0}, ValueError, "only with metric='anisotropic'"),
            ({"metric": "riemann"}, ValueError, "'metric' parameter"),
            ({"metric": [1.0, 1.0, 1.0]}, ValueError, "got shape \\(3,\\)"),
            ({"metric": [1.0, -1.0]}, ValueError, "entries <= 0"),
            ({"metric": [1.0, np.inf]}, ValueError, "non-finite"),
            ({"metric": [[1.0, 2.0], [2.0, 1.0]]}, ValueError, "not positive definite"),
            ({"metric": [[1.0, 0.5], [0.0, 1.0]]}, ValueError, "not symmetric"),
            ({"metric": np.eye(3)}, ValueError, "shape \\(2, 2\\).* got shape"),
            (
                {"covariance": [[1.0, 2.0], [2.0, 1.0]]},
                ValueError,
                "covariance must be .* not positive definite",
            ),
            (
                {"metric": [1.0, 1.0], "covariance": [1.0, 1.0]},
                ValueError,
                "either metric or covariance",
            ),
            ({"metric": ["a", "b"]}, TypeError, "metric must be an array of real"),
            ({"directions": [[1.0, 0.0]]}, ValueError, "shape \\(k, 1\\)"),
            ({"directions": [[0.0]]}, ValueError, "finite and non-zero"),
            ({"directions": np.zeros((0, 1))}, ValueError, "shape \\(k, 1\\)"),
            ({"kind": "gaussian"}, ValueError, "needs a frame of at least 2"),
        ],
    )
    def test_bad_keywords(self, kwargs, error, match):
        with pytest.raises(error, match=match):
            curvature(self.f, T, **kwargs)

    @pytest.mark.parametrize(
        "X, error, match",
        [
            (np.zeros((0, 1)), ValueError, "non-empty 2-D"),
            (np.zeros((2, 1, 1)), ValueError, "non-empty 2-D"),
            (np.zeros(3), ValueError, "non-empty 2-D"),
            ([[np.nan]], ValueError, "finite"),
            ([[1j]], TypeError, "real numbers"),
            ([["a"]], TypeError, "real numbers"),
        ],
    )
    def test_bad_X(self, X, error, match):
        with pytest.raises(error, match=match):
            curvature(self.f, X)

    def test_f_must_be_float64_and_row_wise(self):
        with pytest.raises(TypeError, match="f must compute in float64"):
            curvature(lambda x: x.float() ** 2, T)
        with pytest.raises(ValueError, match="row by row"):
            curvature(lambda x: x.sum(), T)
        with pytest.raises(ValueError, match="'f' parameter"):
            curvature("not callable", T)


class TestFisherRao:
    """metric="fisher": the categorical distribution softmax(logits) under the
    Fisher-Rao metric, i.e. 2 sqrt(p) on the sphere of radius 2."""

    @pytest.mark.parametrize("method", METHODS)
    def test_two_classes_affine_logits_draw_arcs_of_the_circle(self, method):
        """Affine logits over 2 classes: p moves along the circle of radius
        2 (in the plane of 2 sqrt(p)), so every line's image has extrinsic
        curvature 1/2."""
        from skgate import GatedAttentionClassifier, make_curved_task

        X, y = make_curved_task(200, random_state=0)
        clf = GatedAttentionClassifier(
            "none", head="linear", max_epochs=3, random_state=0
        ).fit(X, y)
        kappa = clf.curvature(
            X[:50], layer="logits", metric="fisher", kind="extrinsic", method=method
        )
        tol = 1e-6 if method == "exact" else 1e-3
        np.testing.assert_allclose(kappa, 0.5, rtol=0, atol=tol)

    @pytest.mark.parametrize("gate", ["multiplicative", "silu"])
    def test_two_classes_any_model_stays_on_the_circle(self, gate):
        """Not only affine logits: any 2-class model's 2 sqrt(p) lies on that
        circle, so its Fisher-Rao extrinsic curvature is 1/2 wherever the line
        moves p at all; why the study's binary tasks measure no Fisher-Rao
        curvature."""
        from skgate import GatedAttentionClassifier, make_curved_task

        X, y = make_curved_task(200, shape="checkerboard", random_state=0)
        clf = GatedAttentionClassifier(gate, max_epochs=5, random_state=0).fit(X, y)
        kappa = clf.curvature(X[:50], layer="logits", metric="fisher", kind="extrinsic")
        np.testing.assert_allclose(kappa, 0.5, rtol=0, atol=1e-6)
        # The acceleration is not fixed: it depends on how fast p moves.
        acceleration = clf.curvature(X[:50], layer="logits", metric="fisher")
        assert acceleration.std() > 1e-3

    @pytest.mark.parametrize("method", METHODS)
    @pytest.mark.parametrize("gate", ["multiplicative", "silu", "none"])
    def test_three_classes_on_two_inputs_are_a_piece_of_the_sphere(self, gate, method):
        """With C - 1 = p = 2 a full-rank image of the plane is an open piece
        of the 2-sphere of radius 2: Gaussian curvature 1/4, whatever the
        model (gated or not, MLP head)."""
        from skgate import GatedAttentionClassifier

        rng = np.random.default_rng(0)
        X = rng.uniform(-2, 2, (300, 2))
        y = (np.arctan2(X[:, 1], X[:, 0]) // (2 * np.pi / 3)).astype(int) % 3
        clf = GatedAttentionClassifier(gate, max_epochs=3, random_state=0).fit(X, y)
        # Central differences are O(eps^2) off; the trained logits bend
        # sharply enough that eps = 1e-2 is 4e-2 off, so a finer step.
        eps = 1e-2 if method == "exact" else 1e-3
        K = clf.curvature(
            X[:40],
            layer="logits",
            metric="fisher",
            kind="gaussian",
            method=method,
            eps=eps,
        )
        tol = 1e-6 if method == "exact" else 1e-3
        np.testing.assert_allclose(K, 0.25, rtol=0, atol=tol)

    def test_jet_matches_autodiff_of_the_map(self):
        torch.manual_seed(0)
        net = GatedAttentionNet(2, 4, d_model=8).double()
        f = RepresentationMap(net, "logits")
        g = geometry.FisherRaoMap(f)
        X = torch.randn(6, 2, dtype=torch.float64)
        V = torch.randn(3, 2, dtype=torch.float64)
        jet = directional_derivatives(g, X, V)
        auto = directional_derivatives(lambda x: g(x), X, V)  # no jet: autodiff
        for a, b in zip(jet, auto, strict=True):
            torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)

    def test_only_classifier_logits(self):
        from skgate import (
            GatedAttentionClassifier,
            GatedAttentionRegressor,
            make_curved_task,
        )

        X, y = make_curved_task(60, random_state=0)
        clf = GatedAttentionClassifier(max_epochs=1, d_model=8, random_state=0)
        clf.fit(X, y)
        with pytest.raises(
            ValueError, match="needs layer='logits'; got layer='attention'"
        ):
            clf.curvature(X, metric="fisher")
        reg = GatedAttentionRegressor(max_epochs=1, d_model=8, random_state=0)
        reg.fit(X, y.astype(float))
        with pytest.raises(ValueError, match="GatedAttentionRegressor predicts none"):
            reg.curvature(X, layer="logits", metric="fisher")
        with pytest.raises(ValueError, match="C >= 2 logits"):
            curvature(lambda x: x.sum(1, keepdim=True), [[0.0, 1.0]], metric="fisher")
        with pytest.raises(ValueError, match="use curvature"):
            geometry.curvature_by_metric(circle(1.0), [[0.0]], [{"metric": "fisher"}])
        with pytest.raises(ValueError, match="condition_number is used only"):
            curvature(circle(1.0), [[0.0]], metric="fisher", condition_number=10)

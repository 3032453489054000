"""Series in scikit-learn's API: 3-D arrays (n_cases, n_channels,
n_timepoints), lists of unequal-length series, patches, and padding that
changes nothing."""

import pickle

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from skgate import (
    GatedAttentionClassifier,
    GatedAttentionClassifierCV,
    GatedAttentionRegressor,
    representation_curvature,
)
from skgate._options import DESIGNS
from skgate._series import MAX_TOKENS, series_tokens, to_rows
from skgate.nn._stacked import written_losses_and_gradients
from skgate.parallel import fit_together

SMALL = {"d_model": 8, "max_epochs": 3, "random_state": 0}
#: The minimal design on series (what "auto" gives a table): the properties
#: of the hand-written engine, bit for bit.
MINIMAL = {**SMALL, **DESIGNS["table"]}


def _series(n=40, channels=2, length=12, *, ragged=False, seed=0):
    """Series whose class is the sign of their first channel's mean."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(3, length + 1, n) if ragged else np.full(n, length)
    X = [rng.normal(size=(channels, t)) for t in lengths]
    y = np.array([int(x[0].mean() > 0) for x in X])
    return (X if ragged else np.stack(X)), y


@pytest.fixture(scope="module")
def equal():
    return _series()


@pytest.fixture(scope="module")
def ragged():
    return _series(ragged=True)


@pytest.fixture(scope="module")
def ragged_model(ragged):
    X, y = ragged
    return GatedAttentionClassifier(**SMALL).fit(X, y)


class TestLayouts:
    def test_a_3d_array_is_a_sequence_of_time_points(self, equal):
        X, y = equal
        clf = GatedAttentionClassifier(**SMALL).fit(X, y)
        layout = clf.series_layout_
        assert (layout.n_channels, layout.n_timepoints, layout.patch_size) == (2, 12, 1)
        assert clf.n_features_in_ == 2
        assert clf.net_.module_.token_dim == 2 and clf.net_.module_.n_tokens == 12
        assert clf.predict_proba(X).shape == (40, 2)
        assert clf.representation(X).shape == (40, 12, 8)

    def test_a_list_of_equal_series_is_the_3d_array(self, equal):
        X, y = equal
        a = GatedAttentionClassifier(**SMALL).fit(X, y).predict_proba(X)
        b = GatedAttentionClassifier(**SMALL).fit(list(X), y).predict_proba(list(X))
        assert np.array_equal(a, b)

    def test_a_3d_array_like_without_ndim_is_series(self, equal):
        """Nested lists and a sequence class without ``ndim`` holding a 3-D
        array are the series numpy reads in them (a sequence class was a
        table of "dim 3" at fit, "X is a table (shape (40, 2, 12))" at
        predict); one holding a table is a table."""

        class Rows:  # a sequence as a user writes one: len and indexing only
            def __init__(self, items):
                self.items = items

            def __len__(self):
                return len(self.items)

            def __getitem__(self, i):
                return self.items[i]

        X, y = equal
        clf = GatedAttentionClassifier(**SMALL).fit(X, y)
        for given in (X.tolist(), Rows(X), Rows([Rows(x) for x in X])):
            again = GatedAttentionClassifier(**SMALL).fit(given, y)
            assert again.series_layout_ == clf.series_layout_
            assert np.array_equal(again.predict_proba(given), clf.predict_proba(X))
        flat = X.reshape(len(X), -1)
        table = GatedAttentionClassifier(**SMALL).fit(flat, y)
        with pytest.raises(ValueError, match="X holds series .* fitted on a table"):
            table.predict(Rows(X))
        assert np.array_equal(table.predict(Rows(flat)), table.predict(flat))

    def test_a_table_is_read_as_before(self, equal):
        # A 2-D table: the tokens of token_dim, no series layout.
        X, y = equal
        flat = X.transpose(0, 2, 1).reshape(len(X), -1)
        table = GatedAttentionClassifier(token_dim=2, **SMALL).fit(flat, y)
        assert table.series_layout_ is None
        series = GatedAttentionClassifier(**MINIMAL).fit(X, y)
        # The same tokens, so the same network: time-major, channels inside.
        assert np.array_equal(table.predict_proba(flat), series.predict_proba(X))

    @pytest.mark.parametrize(
        "length, patch, linear",
        [(32, 1, 1), (33, 2, 2), (200, 9, 7), (1460, 49, 46), (1500, 49, 47)],
    )
    def test_auto_patches_keep_at_most_max_tokens(self, length, patch, linear):
        # The convolutional stem (series' "auto") pools then strides: its
        # patch rounds up to pool * stride; the linear embedding's does not.
        X, y = _series(n=6, channels=1, length=length)
        clf = GatedAttentionClassifier(**{**SMALL, "max_epochs": 0}).fit(X, y)
        assert clf.series_layout_.patch_size == patch
        assert clf.net_.module_.n_tokens <= MAX_TOKENS
        pool, stride = clf.net_.module_.embed.pool, patch // clf.net_.module_.embed.pool
        assert pool * stride == patch
        plain = GatedAttentionClassifier(
            embedding="linear", **{**SMALL, "max_epochs": 0}
        )
        assert plain.fit(X, y).series_layout_.patch_size == linear

    def test_a_patch_is_its_time_points_of_every_channel(self):
        x = np.arange(10.0).reshape(2, 5)  # channels 0..4 and 5..9
        clf = GatedAttentionClassifier(patch_size=2, **{**SMALL, "max_epochs": 0})
        clf.fit(np.stack([x, x]), [0, 1])
        rows = to_rows([x], clf.series_layout_)
        # Tokens of 2 time points x 2 channels, time-major; the last patch
        # has one time point, the rest of it missing (NaN, read as 0).
        assert np.array_equal(rows[0, :8], [0, 5, 1, 6, 2, 7, 3, 8])
        assert np.array_equal(rows[0, 8:10], [4, 9])
        assert np.isnan(rows[0, 10:]).all()
        values = torch.as_tensor(x.reshape(1, -1))
        tokens = series_tokens(values, clf.series_layout_, 5)
        assert tokens.tolist() == [[0, 5, 1, 6, 2, 7, 3, 8, 4, 9, 0, 0]]

    def test_long_series_fit_in_patches(self):
        X, y = _series(n=20, channels=1, length=1500)
        clf = GatedAttentionClassifier(**SMALL).fit(X, y)
        assert clf.series_layout_.patch_size == 49  # 7 pooled, 7 strided
        assert clf.predict(X).shape == (20,)


class TestPadding:
    def test_a_series_predicts_the_same_alone_and_beside_longer_ones(
        self, ragged, ragged_model
    ):
        X, _ = ragged
        together = ragged_model.predict_proba(X)
        shortest = int(np.argmin([x.shape[1] for x in X]))
        for i in (shortest, 0, len(X) - 1):
            alone = ragged_model.predict_proba([X[i]])
            assert np.array_equal(alone[0], together[i])

    def test_padding_tokens_are_nan_at_the_token_layer(self, ragged, ragged_model):
        X, _ = ragged
        out = ragged_model.representation(X)
        for i, x in enumerate(X):
            assert np.isfinite(out[i, : x.shape[1]]).all()
            assert np.isnan(out[i, x.shape[1] :]).all()

    def test_appended_padding_changes_no_loss_and_trains_no_weight(self, ragged):
        # The engine's step on series padded to their batch's longest, and
        # with 5 padding tokens more: the same losses and gradients (up to
        # float32 rounding of longer sums), and no gradient at all at the
        # positions only padding takes.
        X, y = ragged
        clf = GatedAttentionClassifier(**{**MINIMAL, "max_epochs": 0}).fit(X, y)
        net = clf.net_.module_
        longer = GatedAttentionClassifier(**{**MINIMAL, "max_epochs": 0})
        longer.fit([*X, np.zeros((2, 17))], [*y, 0])
        wide = longer.net_.module_
        with torch.no_grad():
            for (name, p), q in zip(
                net.named_parameters(), wide.parameters(), strict=True
            ):
                if name == "position":
                    q[: len(p)] = p
                else:
                    q.copy_(p)
        results = []
        for model, estimator in ((net, clf), (wide, longer)):
            rows = estimator._validate_X(X, reset=False)
            x = torch.from_numpy(np.asarray(rows, dtype=np.float32))[None]
            names = [n for n, _ in model.named_parameters()]
            params = {n: p.detach()[None] for n, p in model.named_parameters()}
            y_net = torch.from_numpy(y)[None]
            loss, grads, out = written_losses_and_gradients(
                model,
                params,
                torch.ones(1),
                x,
                y_net,
                torch.ones(1, len(y)),
                regression=False,
            )
            results.append((loss, grads, out, names))
        (loss_a, grads_a, out_a, _), (loss_b, grads_b, out_b, _) = results
        torch.testing.assert_close(out_a, out_b, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(loss_a, loss_b, rtol=1e-6, atol=1e-7)
        for name, grad in grads_a.items():
            other = grads_b[name]
            if name == "position":
                assert torch.equal(
                    other[:, net.n_tokens :], torch.zeros_like(other[:, net.n_tokens :])
                )
                other = other[:, : net.n_tokens]
            torch.testing.assert_close(grad, other, rtol=1e-4, atol=1e-6)

    def test_series_within_one_patch_train_on_their_values(self, ragged):
        # Every series ends inside its only token: the rest of the patch is
        # missing, not a number, and training must see zeros there.
        X, y = ragged
        clf = GatedAttentionClassifier(**{**SMALL, "patch_size": 12}).fit(X, y)
        assert clf.net_.module_.n_tokens == 1
        assert np.isfinite(clf.loss_curve_).all()
        assert all(
            np.isfinite(p.detach().numpy()).all() for p in clf.net_.module_.parameters()
        )
        assert np.isfinite(clf.predict_proba(X)).all()

    def test_ragged_fits_are_reproducible(self, ragged, ragged_model):
        X, y = ragged
        again = clone(ragged_model).fit(X, y)
        assert np.array_equal(again.predict_proba(X), ragged_model.predict_proba(X))


class TestScikitLearn:
    def test_pickle_keeps_the_layout(self, ragged, ragged_model):
        X, _ = ragged
        copy = pickle.loads(pickle.dumps(ragged_model))
        assert copy.series_layout_ == ragged_model.series_layout_
        assert np.array_equal(copy.predict_proba(X), ragged_model.predict_proba(X))

    def test_grid_search_over_alpha_and_patch_size(self, equal):
        X, y = equal
        search = GridSearchCV(
            GatedAttentionClassifier(**SMALL),
            {"alpha": [0.0, 1.0], "patch_size": [1, 4]},
            cv=2,
        ).fit(X, y)
        assert set(search.best_params_) == {"alpha", "patch_size"}
        assert search.predict(X).shape == (40,)

    def test_cross_validation_of_unequal_series(self, ragged):
        X, y = ragged
        scores = cross_val_score(GatedAttentionClassifier(**SMALL), X, y, cv=2)
        assert scores.shape == (2,)

    def test_pipeline(self, equal):
        X, y = equal
        pipe = make_pipeline(
            FunctionTransformer(lambda Z: Z / 2), GatedAttentionClassifier(**SMALL)
        ).fit(X, y)
        assert pipe.predict(X).shape == (40,)
        with pytest.warns(UserWarning, match="not known to be affine"):
            assert representation_curvature(pipe, X[:3]).shape == (3,)

    @pytest.mark.parametrize("data", ["equal", "ragged"])
    def test_cv_estimator(self, data, request):
        X, y = request.getfixturevalue(data)
        search = GatedAttentionClassifierCV(alphas=(0.0, 1.0), cv=2, **SMALL)
        search.fit(X, y)
        assert search.cv_results_["mean_test_accuracy"].shape == (2,)
        assert search.predict(X).shape == (40,)

    def test_fit_together_trains_each_as_alone(self, ragged):
        X, y = ragged
        models = [GatedAttentionClassifier(alpha=a, **MINIMAL) for a in (0.0, 1.0)]
        fit_together(models, [(X, y, None)] * 2)
        alone = GatedAttentionClassifier(alpha=1.0, **MINIMAL).fit(X, y)
        assert np.array_equal(models[1].predict_proba(X), alone.predict_proba(X))

    def test_a_model_without_padding_trains_beside_ragged_ones_as_alone(
        self, ragged, equal
    ):
        # Batched networks share one pass: a model whose series are of one
        # length must not pool or attend through the padded path.
        (X, y), (E, e) = ragged, equal
        assert max(x.shape[1] for x in X) == E.shape[2]
        models = [GatedAttentionClassifier(**MINIMAL) for _ in range(2)]
        fit_together(models, [(X, y, None), (E, e, None)])
        alone = GatedAttentionClassifier(**MINIMAL).fit(E, e)
        assert np.array_equal(models[1].predict_proba(E), alone.predict_proba(E))
        first = GatedAttentionClassifier(**MINIMAL).fit(X, y)
        assert np.array_equal(models[0].predict_proba(X), first.predict_proba(X))

    def test_regressor(self, ragged):
        X, y = ragged
        target = np.array([x[0].mean() for x in X])
        reg = GatedAttentionRegressor(**SMALL).fit(X, target)
        assert reg.predict(X).shape == (40,)
        assert reg.series_layout_.n_channels == 2


class TestCurvature:
    def test_sequences_bend_even_ungated(self, equal):
        # Softmax attention over different tokens is not affine: the ungated
        # arm is curved here, unlike over copied tokens.
        X, y = equal
        for gate in ("none", "multiplicative"):
            clf = GatedAttentionClassifier(gate=gate, **SMALL).fit(X, y)
            assert clf.curvature(X[:4]).min() > 0

    def test_the_representation_map_is_the_map_curvature_measures(self, equal):
        from skgate.geometry import curvature

        X, y = equal
        clf = GatedAttentionClassifier(patch_size=5, **SMALL).fit(X, y)
        f = clf.representation_map()
        points = X[:4].reshape(4, -1)  # channel-major, as curvature reads them
        assert np.array_equal(curvature(f, points), clf.curvature(X[:4]))
        with pytest.raises(TypeError, match=r"shape \(n, 24\)"):
            f(torch.zeros(1, 12, dtype=torch.float64))

    def test_curvature_is_in_the_series_own_coordinates(self, ragged, ragged_model):
        X, _ = ragged
        exact = ragged_model.curvature(X[:6])
        finite = ragged_model.curvature(X[:6], method="finite_difference", eps=1e-3)
        np.testing.assert_allclose(exact, finite, rtol=1e-3, atol=1e-5 * exact.max())
        # A series measures alike alone and beside others of other lengths.
        assert ragged_model.curvature([X[2]])[0] == exact[2]

    def test_directions_serve_series_of_one_length(self, ragged, ragged_model):
        X, _ = ragged
        lengths = sorted({x.shape[1] for x in X[:6]})
        assert len(lengths) > 1
        with pytest.raises(ValueError, match=f"series of {len(lengths)} lengths"):
            ragged_model.curvature(X[:6], directions=np.ones((2, 2 * lengths[0])))
        same = [x for x in X if x.shape[1] == lengths[0]]
        kappa = ragged_model.curvature(same, directions=np.ones((1, 2 * lengths[0])))
        assert kappa.shape == (len(same),) and np.isfinite(kappa).all()


class TestBadInput:
    @pytest.mark.parametrize(
        "X, message",
        [
            (np.zeros((3, 2, 4, 1)), "X has 4 dimensions"),
            ([np.zeros((2, 5)), np.zeros((3, 5))], r"X\[1\] has 3 channels"),
            ([np.zeros((2, 5)), np.full((2, 4), np.nan)], r"X\[1\] contains NaN"),
            (  # pandas' missing value: missing, as NaN is, not "not numbers"
                [np.zeros((2, 5)), np.array([[1, __import__("pandas").NA, 3]] * 2)],
                r"X\[1\] contains missing values \(pd.NA or None\)",
            ),
            ([np.zeros((2, 5)), np.zeros((2, 0))], r"X\[1\] is empty"),
            ([np.zeros((2, 5)), np.zeros(5)], r"X\[1\] is of shape \(5,\)"),
            ([np.zeros(5), np.zeros(6)], "X is a list of 1-D arrays of unequal"),
            ([np.zeros((1, 2, 5)), np.zeros((1, 2, 5))], r"X\[0\] has shape"),
            ([], "X is an empty list"),
            ([[[1.0, 2.0, 3.0], [1.0, 2.0]]] * 2, r"X\[0\] is ragged"),
            ([np.zeros(5), np.zeros((1, 5))], r"X\[0\] is of shape \(5,\) and X\[1\]"),
            ([None, np.zeros((1, 5))], r"X\[0\] is None and X\[1\] is a 2-D"),
        ],
    )
    def test_refused_by_name(self, X, message):
        y = np.arange(len(X)) % 2
        with pytest.raises(ValueError, match=message):
            GatedAttentionClassifier(**SMALL).fit(X, y)

    @pytest.mark.parametrize(
        "X, message",
        [
            (np.zeros((4, 1, 5), dtype=complex), r"X\[0\] holds complex numbers"),
            ((np.zeros((1, 5)) for _ in range(4)), "X is a generator, read once"),
            (
                __import__("pandas").DataFrame({"c": [np.zeros(5)] * 4}),
                "X is a pandas DataFrame of series in its cells",
            ),
        ],
    )
    def test_refused_by_type(self, X, message):
        with pytest.raises(TypeError, match=message):
            GatedAttentionClassifier(**SMALL).fit(X, [0, 1, 0, 1])

    def test_aeons_multiindex_layout_is_named(self, equal):
        """A DataFrame of (case, time point) rows is refused by its name in
        aeon, with its converter, not as scikit-learn's "inconsistent numbers
        of samples"; a table with a 2-level index and a label per row is
        still a table."""
        from aeon.utils.conversion import convert_collection

        X, y = equal
        frame = convert_collection(X, "pd-multiindex")  # 480 rows
        message = (
            r"480 rows indexed by \(case, time point\): 40 series in aeon's "
            r"'pd-multiindex' layout, {}.*convert_collection\(X, 'np-list'\)"
        )
        with pytest.raises(TypeError, match=message.format("and y has 40 labels")):
            GatedAttentionClassifier(**SMALL).fit(frame, y)
        clf = GatedAttentionClassifier(**SMALL).fit(X, y)
        fitted = "and this GatedAttentionClassifier was fitted on series"
        with pytest.raises(TypeError, match=message.format(fitted)):
            clf.predict(frame)
        # As the message says: converted, it is the series it holds.
        converted = convert_collection(frame, "np-list")
        assert np.array_equal(clf.predict(converted), clf.predict(X))
        rows = np.arange(len(frame)) % 2
        assert GatedAttentionClassifier(**SMALL).fit(frame, rows).n_features_in_ == 2
        from skgate import compare_gates  # named there too, before any work

        with pytest.raises(TypeError, match=message.format("and y has 40 labels")):
            compare_gates(frame, y, cv=2, n_repeats=1, max_epochs=1)

    def test_a_patch_longer_than_every_series_is_refused(self, equal):
        X, y = equal  # 12 time points
        GatedAttentionClassifier(patch_size=12, **SMALL).fit(X, y)  # one token
        for patch in (13, 10**12):  # not zeros at full width, nor a MemoryError
            with pytest.raises(
                ValueError,
                match=f"patch_size={patch} is longer "
                "than the longest series of X \\(12 time points\\)",
            ):
                GatedAttentionClassifier(patch_size=patch, **SMALL).fit(X, y)

    @pytest.mark.parametrize("value", [True, False, 0, 2.0])
    def test_patch_size_has_one_rule(self, equal, value):
        """True was a TypeError of its own, False, 0 and 2.0 scikit-learn's
        InvalidParameterError: one rule now, naming the parameter."""
        from sklearn.utils._param_validation import InvalidParameterError

        with pytest.raises(InvalidParameterError, match="The 'patch_size' param"):
            GatedAttentionClassifier(patch_size=value, **SMALL).fit(*equal)

    def test_a_column_of_series_is_a_list_of_them(self, ragged):
        import pandas as pd

        X, y = ragged
        clf = GatedAttentionClassifier(**SMALL).fit(X, y)
        column = np.empty(len(X), dtype=object)
        column[:] = X
        for container in (column, pd.Series(list(X))):
            again = clone(clf).fit(container, y)
            assert np.array_equal(again.predict_proba(container), clf.predict_proba(X))

    def test_warm_start_keeps_the_patches(self, equal):
        clf = GatedAttentionClassifier(warm_start=True, **SMALL).fit(*equal)
        clf.set_params(patch_size=4)
        with pytest.raises(ValueError, match="patch_size=4 \\(built with 'auto'\\)"):
            clf.fit(*equal)
        with pytest.raises(ValueError, match="architecture cannot change"):
            clf.partial_fit(*equal)

    def test_table_options_with_series(self, equal):
        X, y = equal
        with pytest.raises(ValueError, match="token_dim=2 reads a 2-D table"):
            GatedAttentionClassifier(token_dim=2, **SMALL).fit(X, y)
        # Unread with series: a search over it would compare one model.
        with pytest.raises(
            ValueError,
            match=r"n_tokens=3 copies a 2-D table's row into tokens; X holds "
            r"series.*\(12 tokens of patch_size 1 here.*n_tokens=8 \(the default",
        ):
            GatedAttentionClassifier(n_tokens=3, **SMALL).fit(X, y)
        with pytest.raises(ValueError, match="n_tokens=3 copies a 2-D table's row"):
            GatedAttentionClassifierCV(n_tokens=3, **SMALL).fit(X, y)
        GatedAttentionClassifier(n_tokens=3, **SMALL).fit(X[:, 0], y)  # a table
        # Nor is it read with token_dim (the row is its columns' tokens).
        with pytest.raises(ValueError, match=r"n_tokens=3 copies a row into tokens "
                           r"when token_dim is None; with token_dim=4 the row is 3 "
                           r"tokens"):  # fmt: skip
            GatedAttentionClassifier(n_tokens=3, token_dim=4, **SMALL).fit(X[:, 0], y)
        GatedAttentionClassifier(token_dim=4, **SMALL).fit(X[:, 0], y)
        flat = X.reshape(len(X), -1)
        with pytest.raises(ValueError, match="patch_size=3 groups the time points"):
            GatedAttentionClassifier(patch_size=3, **SMALL).fit(flat, y)

    def test_fixed_attention_needs_equal_lengths(self, ragged, equal):
        with pytest.raises(ValueError, match="attention='fixed' mixes a fixed"):
            GatedAttentionClassifier(attention="fixed", **SMALL).fit(*ragged)
        fixed = GatedAttentionClassifier(attention="fixed", patch_size=5, **SMALL)
        assert fixed.fit(*equal).predict(equal[0]).shape == (40,)
        # The lengths it takes named, shorter and longer alike (12 points
        # in 3 patches of 5: 11 to 15 fill them).
        assert fixed.predict(np.zeros((2, 2, 15))).shape == (2,)
        for length in (7, 10, 16):
            with pytest.raises(
                ValueError,
                match=rf"X\[0\] has {length} time points, and this model "
                r"\(attention='fixed', fitted on series of 12 time points\) "
                r"takes series of 11 to 15: its fixed weights mix 3 tokens",
            ):
                fixed.predict(np.zeros((2, 2, length)))

    def test_predicting_what_the_fit_did_not_see(self, equal, ragged_model):
        X, y = equal
        clf = GatedAttentionClassifier(**SMALL).fit(X, y)
        with pytest.raises(ValueError, match="fitted on series"):
            clf.predict(X.reshape(len(X), -1))
        with pytest.raises(ValueError, match="X has series of 3 channels"):
            clf.predict(np.zeros((2, 3, 12)))
        with pytest.raises(ValueError, match="longer than the model takes"):
            clf.predict(np.zeros((2, 2, 13)))
        table = GatedAttentionClassifier(**SMALL).fit(X.reshape(len(X), -1), y)
        with pytest.raises(ValueError, match="fitted on a table"):
            table.predict(X)
        # Shorter series than the fit's are padded, as in a ragged fit.
        assert clf.predict(X[:, :, :7]).shape == (40,)


class TestComparison:
    @pytest.mark.parametrize("data", ["equal", "ragged"])
    def test_compare_gates_takes_series(self, data, request):
        from skgate import compare_gates

        X, y = request.getfixturevalue(data)
        result = compare_gates(  # MiniRocket beside them: tests/test_baselines.py
            X, y, cv=2, n_repeats=1, max_epochs=1, d_model=8, random_state=0,
            baselines=None,
        )  # fmt: skip
        assert set(result.scores_["gate"]) == {"multiplicative", "silu", "none"}
        assert np.isfinite(result.scores_["curvature"]).all()

    @pytest.mark.slow  # end to end: make test-slow
    def test_benchmark_gates_takes_series(self, equal, ragged):
        from aeon.classification.distance_based import KNeighborsTimeSeriesClassifier
        from sklearn.linear_model import LogisticRegression
        from sklearn.neighbors import KNeighborsClassifier

        from skgate import benchmark_gates

        X, y = equal
        datasets = {"equal": (X, y), "half": (X[:, :, :6], y)}
        result = benchmark_gates(
            datasets,
            gates=("multiplicative", "none"),
            baselines={"LogReg": LogisticRegression(), "1-NN": KNeighborsClassifier(1)},
            cv=2,
            max_epochs=1,
            d_model=8,
            random_state=0,
        )
        assert set(result.scores_["model"]) == {
            "multiplicative",
            "none",
            "LogReg",
            "1-NN",
        }
        # Unequal lengths: a time-series model reads them; a table model is refused.
        ragged_sets = {"a": ragged, "b": ragged}
        result = benchmark_gates(
            ragged_sets,
            gates=("multiplicative", "none"),
            baselines={"DTW": KNeighborsTimeSeriesClassifier(n_neighbors=1)},
            cv=2,
            max_epochs=1,
            d_model=8,
            random_state=0,
        )
        assert np.isfinite(result.scores_["score"]).all()
        with pytest.raises(
            ValueError, match=r"baselines\['LogReg'\].*differ in length"
        ):
            benchmark_gates(
                ragged_sets,
                gates=("multiplicative", "none"),
                baselines={"LogReg": LogisticRegression()},
                cv=2,
                max_epochs=1,
                random_state=0,
            )

    @pytest.mark.slow  # end to end: make test-slow
    def test_the_tuned_benchmark_takes_series(self, equal):
        from sklearn.linear_model import LogisticRegression

        from skgate import benchmark_gates

        X, y = equal
        grid = {"C": [0.1, 1.0]}
        result = benchmark_gates(
            {"equal": (X, y), "half": (X[:, :, :6], y)},
            gates=("multiplicative", "none"),
            baselines={"LogReg": LogisticRegression()},
            tuning="grid",
            param_grids={
                "multiplicative": {"lr": [0.002, 0.004]},
                "none": {"lr": [0.002, 0.004]},
                "LogReg": grid,
            },
            inner_cv=2,
            cv=2,
            max_epochs=1,
            d_model=8,
            random_state=0,
        )
        models = {"multiplicative", "none", "LogReg"}
        assert set(result.scores_["model"]) == models
        assert np.isfinite(result.scores_["score"]).all()
        assert set(result.best_params_["model"]) == models


def _one_long(seed):
    """40 series of 6 time points and one of 12: most folds' training parts
    lack the longest."""
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(2, 6)) for _ in range(40)]
    X[0] = rng.normal(size=(2, 12))
    return X, np.array([int(x[0].mean() > 0) for x in X])


class TestLongestSeriesInOneFold:
    KW = {"gates": ("multiplicative", "none"), "cv": 2, "max_epochs": 1}

    def test_compare_gates_lays_out_every_series_once(self):
        from skgate import compare_gates

        result = compare_gates(*_one_long(0), n_repeats=1, d_model=8, **self.KW)
        assert np.isfinite(result.scores_["curvature"]).all()

    def test_benchmark_gates_tunes_a_time_series_baseline(self):
        from aeon.classification.distance_based import KNeighborsTimeSeriesClassifier

        from skgate import benchmark_gates

        grids = {
            "multiplicative": {"lr": [1e-3, 1e-2]},
            "none": {"lr": [1e-3, 1e-2]},
            "DTW": {"n_neighbors": [1, 3]},
        }
        result = benchmark_gates(
            {"a": _one_long(0), "b": _one_long(1)},
            baselines={"DTW": KNeighborsTimeSeriesClassifier(n_neighbors=1)},
            tuning="grid",
            param_grids=grids,
            inner_cv=2,
            d_model=8,
            random_state=0,
            **self.KW,
        )
        assert np.isfinite(result.scores_["score"]).all()
        assert set(result.best_params_["model"]) == set(grids)

    @pytest.mark.slow  # end to end: make test-slow
    def test_a_configuration_that_cannot_fit_is_reported(self):
        from skgate import benchmark_gates

        grids = {
            "multiplicative": {"token_dim": [None, 2]},  # 2: refused on series
            "none": {"lr": [1e-3, 1e-2]},
        }
        with pytest.warns(UserWarning, match="'multiplicative': 4 of 8 inner fits"):
            benchmark_gates(
                {"a": _one_long(0), "b": _one_long(1)},
                baselines=(),
                tuning="grid",
                param_grids=grids,
                inner_cv=2,
                d_model=8,
                random_state=0,
                **self.KW,
            )

    def test_a_baseline_that_fails_is_named(self):
        from aeon.classification.convolution_based import MiniRocketClassifier

        from skgate import benchmark_gates

        with pytest.raises(ValueError, match=r"baselines\['MR'\]"):
            benchmark_gates(
                {"a": _one_long(0), "b": _one_long(1)},
                baselines={"MR": MiniRocketClassifier(n_kernels=84)},
                d_model=8,
                random_state=0,
                **self.KW,
            )

"""scikit-learn's own estimator checks on every public skgate estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from skgate import GatedAttentionClassifier, GatedAttentionRegressor

ESTIMATORS = [
    GatedAttentionClassifier(random_state=0),
    GatedAttentionClassifier(gate="silu", depth=2, head="linear", random_state=0),
    GatedAttentionClassifier(gate="none", token_dim=1, depth=2, random_state=0),
    GatedAttentionRegressor(random_state=0),
    GatedAttentionRegressor(token_dim=1, random_state=0),
    GatedAttentionRegressor(gate="silu", depth=2, random_state=0),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)

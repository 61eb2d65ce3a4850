"""Parameters across a stream: generators as ``random_state``; live values checked early."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils._param_validation import InvalidParameterError

from skonline import (
    AdaptiveOnlinePCA,
    FrequentDirections,
    OnlineVarianceMinimizer,
    RandomizedOnlinePCA,
    RobustFrequentDirections,
    SequentialPrincipalCurve,
)

DENSE = np.random.default_rng(0).standard_normal((90, 8))
CSR = sp.random(200, 30, density=0.1, format="csr", random_state=0)

# settings whose state draws from random_state (so random_state is recorded as frozen)
RANDOMIZED = [
    pytest.param(
        lambda rs: RandomizedOnlinePCA(2, record_realized_loss=True, random_state=rs),
        DENSE,
        id="RandomizedOnlinePCA",
    ),
    pytest.param(
        lambda rs: FrequentDirections(3, random_state=rs), CSR, id="FrequentDirections-csr"
    ),
    pytest.param(
        lambda rs: RobustFrequentDirections(3, random_state=rs),
        CSR,
        id="RobustFrequentDirections-csr",
    ),
]


def _same_learned_state(a, b):
    # the records hold each estimator's own copy of a generator object: compare what was learned
    if isinstance(a, SequentialPrincipalCurve):
        np.testing.assert_array_equal(a.vertices_, b.vertices_)
        return
    np.testing.assert_array_equal(a.components_, b.components_)
    X = CSR[:5] if a.n_features_in_ == CSR.shape[1] else DENSE[:5]
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    for name in ("explained_variance_", "cumulative_loss_", "realized_loss_"):
        if hasattr(a, name):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("make, X", RANDOMIZED)
@pytest.mark.parametrize("kind", ["RandomState", "Generator"])
def test_a_generator_object_streams_like_its_seed(make, X, kind):
    """A ``RandomState`` or ``Generator`` is not "changed" by the draws it gave the state."""
    source = np.random.RandomState(0) if kind == "RandomState" else np.random.default_rng(0)
    est = make(source).partial_fit(X[:30])
    est.partial_fit(X[30:60])  # the same object: no frozen-parameter error
    copy = pickle.loads(pickle.dumps(est))
    est.partial_fit(X[60:])
    copy.partial_fit(X[60:])  # and after a pickle round trip, which makes a new object
    _same_learned_state(est, copy)


@pytest.mark.parametrize("make, X", RANDOMIZED)
def test_a_change_of_kind_of_random_state_is_refused(make, X):
    est = make(0).partial_fit(X[:30])
    est.set_params(random_state=np.random.RandomState(0))
    with pytest.raises(ValueError, match="random_state"):
        est.partial_fit(X[30:])


@pytest.mark.parametrize(
    "make, X",
    [
        *RANDOMIZED,
        pytest.param(
            lambda rs: SequentialPrincipalCurve(random_state=rs), DENSE[:, :2], id="curve"
        ),
    ],
)
def test_a_generator_is_copied_into_the_state(make, X):
    """A ``Generator`` is accepted, not advanced, and learns as a fresh one from the same seed."""
    rng = np.random.default_rng(7)
    before = rng.bit_generator.state
    a = make(rng).partial_fit(X[:30])
    assert rng.bit_generator.state == before
    rng.random(5)  # the caller's own draws do not reach the state
    a.partial_fit(X[30:])
    b = make(np.random.default_rng(7)).partial_fit(X[:30]).partial_fit(X[30:])
    _same_learned_state(a, b)


@pytest.mark.parametrize(
    "est, X, param, value",
    [
        (AdaptiveOnlinePCA(2), DENSE, "learning_rate", -1.0),
        (AdaptiveOnlinePCA(2), DENSE, "fixed_share", 2.0),
        (OnlineVarianceMinimizer(), DENSE, "learning_rate", -1.0),
        (RandomizedOnlinePCA(2), DENSE, "row_norm", "bogus"),
        (FrequentDirections(2), DENSE, "n_components", -1),
        (RobustFrequentDirections(2), DENSE, "whiten", "yes"),
    ],
)
def test_an_invalid_live_value_is_refused_once_the_stream_started(est, X, param, value):
    """A started stream's ``partial_fit`` skips the validation: ``set_params`` checks instead."""
    est.partial_fit(X[:30])
    before = (pickle.dumps(est), est.get_params())
    with pytest.raises(InvalidParameterError, match=param):
        est.set_params(**{param: value})
    assert (pickle.dumps(est), est.get_params()) == before
    est.partial_fit(X[30:])  # and the stream goes on


def test_set_params_of_an_unfitted_estimator_leaves_the_check_to_fit():
    """As scikit-learn: a grid search sets values on clones and reports errors at ``fit``."""
    est = AdaptiveOnlinePCA(2).set_params(learning_rate=-1.0)
    with pytest.raises(InvalidParameterError, match="learning_rate"):
        est.fit(DENSE)


def test_an_invalid_name_is_reported_with_the_estimator_as_it_is():
    est = AdaptiveOnlinePCA(2, learning_rate=0.3)
    with pytest.raises(ValueError, match=r"'bogus'.*learning_rate=0\.3") as info:
        est.set_params(learning_rate=0.9, bogus=1)
    assert "0.9" not in str(info.value)
    assert est.learning_rate == 0.3

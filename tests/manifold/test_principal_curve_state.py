"""SequentialPrincipalCurve on the state contract: one state object, a pure pass, guards.

The pass ``curve_pass`` never writes into the committed state; the rows before
``init_size`` (pending rows) belong to the state; a failed update leaves the
estimator as it was; rows far outside the first rows' spread are handled
without overflowing a lattice coordinate (issue 10, defect 10).
"""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from skonline import SequentialPrincipalCurve
from skonline.manifold._lattice import local_grid
from skonline.manifold._principal_curve_kernels import CurveParams, CurveState, curve_pass

EPS = np.finfo(np.float64).eps


def cubic_stream(n=60, seed=0):
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.0, 10.0, n)
    return np.c_[u, 0.05 * (u - 5.0) ** 3] + 0.1 * rng.standard_normal((n, 2))


def _nearest_lattice_error(x, delta):
    """Largest distance from ``x`` to the point ``fl(round(fl(x / δ)) δ)``, per coordinate.

    ``|fl(x/δ) − x/δ| ≤ eps |x/δ|`` moves the rounded coordinate by at most
    that, and the product ``fl(m δ)`` adds ``eps |x|``: ``δ/2 + 2 eps |x|``
    (plus one ulp of slack).
    """
    return delta / 2 + 3 * EPS * np.abs(x)


# ------------------------------------------------------------------ the state
def test_the_pass_is_pure_and_returns_a_new_state():
    X = cubic_stream(40)
    est = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=0).fit(X[:20])
    state = est._state
    snapshot = pickle.dumps(state)
    params = CurveParams(lattice_spacing=0.1)
    new_state, losses = curve_pass(state, X[20:], params)
    assert pickle.dumps(state) == snapshot, "curve_pass wrote into its input state"
    assert new_state is not state and new_state.memory is not state.memory
    assert new_state.rng is not state.rng
    assert losses.shape == (20,)
    assert new_state.n_samples_seen == 40
    assert new_state.cumulative_loss == pytest.approx(state.cumulative_loss + losses.sum())
    # the kernel is the estimator's pass: the same rows give the same curve
    est.partial_fit(X[20:])
    np.testing.assert_array_equal(est.vertices_, new_state.vertices)


def test_pending_rows_belong_to_the_state():
    X = cubic_stream(10)
    est = SequentialPrincipalCurve(lattice_spacing=0.1, init_size=4, random_state=0)
    est.partial_fit(X[:3])
    assert not est.__sklearn_is_fitted__()
    with pytest.raises(NotFittedError, match="init_size=4"):
        est.transform(X[:2])
    state = est._state
    assert isinstance(state, CurveState) and state.vertices is None
    np.testing.assert_array_equal(state.pending_rows, X[:3])
    assert state.n_samples_seen == 3
    # nothing but the state and scikit-learn's input record is kept on the estimator
    fitted = {k for k in vars(est) if k.endswith("_") or k.startswith("_")}
    assert fitted == {"_state", "n_features_in_"}
    # a bad batch and a failed pass leave the pending rows as they were
    before = pickle.dumps(est)
    with pytest.raises(ValueError):
        est.partial_fit(np.array([[np.nan, 0.0]]))
    assert pickle.dumps(est) == before
    est.partial_fit(X[3:4])
    check_is_fitted(est)
    assert est._state.pending_rows.shape == (0, 2)
    reference = SequentialPrincipalCurve(lattice_spacing=0.1, init_size=4, random_state=0)
    np.testing.assert_array_equal(reference.fit(X[:4]).vertices_, est.vertices_)


def test_fit_on_fewer_rows_than_init_size_builds_the_curve_from_all_of_them():
    X = cubic_stream(3)
    est = SequentialPrincipalCurve(lattice_spacing=0.1, init_size=5).fit(X)
    check_is_fitted(est)
    assert est.n_samples_seen_ == 3
    stream = SequentialPrincipalCurve(lattice_spacing=0.1, init_size=5).partial_fit(X)
    assert not stream.__sklearn_is_fitted__()
    stream.partial_fit(cubic_stream(2, seed=1))  # the fifth row builds it
    check_is_fitted(stream)


def test_a_generator_is_copied_not_advanced():
    X = cubic_stream(40)
    rng = np.random.default_rng(3)
    before = rng.bit_generator.state
    a = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=rng, exploration=0.5).fit(X)
    assert rng.bit_generator.state == before
    b = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=rng, exploration=0.5).fit(X)
    np.testing.assert_array_equal(a.vertices_, b.vertices_)
    seeded = SequentialPrincipalCurve(
        lattice_spacing=0.1, random_state=np.random.default_rng(3), exploration=0.5
    ).fit(X)
    np.testing.assert_array_equal(a.vertices_, seeded.vertices_)


def test_radius_is_live_and_read_from_the_last_committed_call():
    """``set_params(radius=...)`` changes ``radius_``/``c0_`` only after the next update."""
    X = cubic_stream(80)
    est = SequentialPrincipalCurve(random_state=0).fit(X[:60])
    radius, c0 = est.radius_, est.c0_
    assert radius < 100.0
    est.set_params(radius=100.0)
    assert (est.radius_, est.c0_) == (radius, c0)
    est.partial_fit(X[60:])
    assert est.radius_ == 100.0
    assert est.c0_ == 2 * (2 * 100.0 + est.lattice_spacing_) ** 2


def test_frozen_parameters_give_one_message():
    X = cubic_stream(20)
    est = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=0).fit(X)
    for name, value in (
        ("max_segments", 3),
        ("max_memory", 5),
        ("reward_estimator", "bandit"),
        ("keep_history", True),
        ("lattice_spacing", 0.2),
    ):
        trial = pickle.loads(pickle.dumps(est)).set_params(**{name: value})
        before = pickle.dumps(trial._state)
        with pytest.raises(ValueError, match=rf"changed since the state was started.*{name}"):
            trial.partial_fit(X[:2])
        assert pickle.dumps(trial._state) == before
        trial.fit(X)  # fit starts a new stream
    # the other parameters are read at each call
    est.set_params(exploration=0.5, learning_rate=10.0, penalty=4.0, max_grid_points=20)
    est.partial_fit(X[:2])
    assert est.n_samples_seen_ == 22


# ------------------------------------------------ defect 10: far-away rows
@pytest.mark.parametrize("magnitude", [1e20, 1e150])
def test_a_row_far_outside_the_first_rows_spread_is_handled(magnitude):
    """Its lattice point is computed without overflow or warning, and the curve reaches it.

    Before, the lattice coordinate ``x / δ ~ 3.5e22`` was cast to int64: a
    RuntimeWarning and the junk point ``-2**63 δ`` instead of the row's own.
    """
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 2))
    # the paper's objective: no prices (S(f̂) · Len(f) ~ |x|³ would overflow at 1e150)
    est = SequentialPrincipalCurve(
        random_state=0, length_penalty=0.0, turn_penalty=0.0, warm_up_moves=0
    ).fit(X)
    delta = est.lattice_spacing_
    V0 = est.vertices_
    far = np.array([[magnitude, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.partial_fit(far)
        V = est.vertices_
        # the row's loss (~ magnitude²) pays for one vertex at its lattice point ...
        moved = np.any(np.abs(V) > 10.0, axis=1)
        assert moved.sum() == 1
        np.testing.assert_array_equal(V[moved][0], np.round(far[0] / delta) * delta)
        assert -est.score_samples(far)[0] <= np.sum(_nearest_lattice_error(far[0], delta) ** 2)
        # ... and leaves the other vertices where they were
        assert all(np.any(np.all(v == V0, axis=1)) for v in V[~moved])
        # learning goes on
        est.partial_fit(X)
        est.partial_fit(-far)
    assert np.all(np.isfinite(est.vertices_)) and np.isfinite(est.cumulative_loss_)


def test_a_row_at_1e150_is_learned_with_the_default_prices():
    """The prices are ratios (S(f̂) / spread · Len(f)): |x|² / |x| · |x|, no overflow."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 2))
    est = SequentialPrincipalCurve(random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.partial_fit(np.array([[1e150, 0.0]]))
    assert np.all(np.isfinite(est.vertices_)) and np.isfinite(est.cumulative_loss_)


def test_an_update_that_overflows_is_refused_and_leaves_the_state():
    """A length price beyond float64 (``length_penalty · S(f̂)`` past 1e308) is refused."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 2))
    est = SequentialPrincipalCurve(random_state=0, length_penalty=1e300).fit(X)
    before = pickle.dumps(est)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FloatingPointError, match=r"overflowed float64.*rescale"):
            est.partial_fit(np.array([[1e10, 0.0]]))
    assert pickle.dumps(est) == before
    est.set_params(length_penalty=0.1).partial_fit(X)  # clean rows still train
    assert est.n_samples_seen_ == 40


@pytest.mark.parametrize("radius", [np.sqrt(2) * 1e-3, 1e21])
def test_local_grid_far_from_the_origin(radius):
    """Enumerated (small ball) and sampled (large ball) grids around a row at 1e20."""
    delta = 1e-3
    anchor = np.array([1e20, -3e19])
    center = anchor + 0.3e-3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        G = local_grid(center, radius, delta, None, [anchor], 50, np.random.default_rng(0))
    assert np.all(np.isfinite(G)) and G.shape[0] >= 1
    assert np.unique(G, axis=0).shape == G.shape
    # the lattice point nearest to the anchor is in the grid
    err = _nearest_lattice_error(anchor, delta)
    is_anchor = np.all(np.abs(G - anchor) <= err, axis=1)
    assert is_anchor.any()
    # every other point is in the ball (up to the rounding to the lattice)
    dist = np.sqrt(np.sum((G[~is_anchor] - center) ** 2, axis=1))
    assert np.all(dist <= radius + np.sqrt(np.sum(_nearest_lattice_error(center, delta) ** 2)))

"""The one-row fast path: what it accepts, the full validation accepts unchanged.

A later batch that is a plain float ndarray (or CSR matrix) of the fitted
width is checked in one compiled pass instead of scikit-learn's
``validate_data``; everything else goes through the full validation. A fast
path that accepts what the full path rejects is a bug: every bad input is fed
with the fast path on and off (``fast_batch`` patched to decline), and must
give the same exception, the same message and an unchanged state; every good
input must give the same state either way.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import warnings
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.linear_model import SGDClassifier, SGDRegressor
from skonline.utils._validation_fast import first_nonfinite, state_is_finite, value_range
from threadpoolctl import threadpool_info

import skonline
import skonline.base
import skonline.evaluation._prequential as prequential
from skonline.base import _nonfinite_fields, shallow_replace
from skonline.evaluation import prequential_score
from skonline.utils import _blas
from skonline.utils.estimator_checks import (
    _bad_inputs,
    _make_data,
    _stream,
    assert_state_equal,
)

ESTIMATORS = [
    skonline.RFDSONClassifier(sketch_size=4),
    skonline.RFDSONRegressor(sketch_size=4),
    skonline.ScaleInvariantClassifier(),
    skonline.ScaleInvariantRegressor(),
    skonline.FrequentDirections(sketch_size=4),
    skonline.RobustFrequentDirections(sketch_size=4),
    skonline.AdaptiveOnlinePCA(n_components=2, row_norm="clip"),
    skonline.RandomizedOnlinePCA(n_components=2, row_norm="clip"),
    skonline.OnlineVarianceMinimizer(row_norm="clip"),
    skonline.SequentialPrincipalCurve(random_state=0),
]
IDS = [type(e).__name__ for e in ESTIMATORS]


def _slow_path():
    """Force every batch through scikit-learn's validation (the fast path declines)."""
    return mock.patch.object(skonline.base, "fast_batch", lambda *args, **kwargs: None)


def _fitted(estimator):
    X, y = _make_data(estimator)
    return _stream(clone(estimator), X[:60], None if y is None else y[:60], [60]), X, y


def _outcome(est, Xb, yb, **kwargs):
    """``(exception type, message)`` of ``partial_fit``, or None, and the pickled state after."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.partial_fit(Xb, yb, **kwargs) if yb is not None else est.partial_fit(Xb)
    except Exception as err:  # the type and message are compared, whatever they are
        return (type(err), str(err)), pickle.dumps(est)
    return None, pickle.dumps(est)


def _more_bad_inputs(X, y, estimator):
    """Bad batches of one row, the fast path's own case, and other layouts."""
    d = X.shape[1]
    cases = []
    for label, value in (("NaN", np.nan), ("inf", np.inf), ("-inf", -np.inf), ("1e200", 1e200)):
        row = X[:1].copy()
        row[0, d - 1] = value
        cases.append((f"one row with {label}", row, None if y is None else y[:1]))
    cases.append(("one row too wide", np.hstack([X[:1], X[:1]]), None if y is None else y[:1]))
    cases.append(("one row of object dtype", X[:1].astype(object), None if y is None else y[:1]))
    cases.append(("float16 row", X[:1].astype(np.float16) * np.inf, None if y is None else y[:1]))
    if y is not None:
        cases.append(("target of 2 rows for 1", X[:1], y[:2]))
        cases.append(("2-D target", X[:2], y[:2].reshape(1, 2)))
        if is_classifier(estimator):
            cases.append(("unseen label, one row", X[:1], np.array([5])))
            cases.append(("string label for int classes", X[:1], np.array(["a"])))
            cases.append(("float label between classes", X[:1], np.array([0.5])))
        if is_regressor(estimator):
            cases.append(("1e200 target", X[:1], np.array([1e200])))
            cases.append(("NaN target, one row", X[:1], np.array([np.nan])))
    return cases


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_bad_inputs_same_error_fast_or_slow(estimator):
    fitted, X, y = _fitted(estimator)
    for label, Xb, yb in _bad_inputs(X, y, estimator) + _more_bad_inputs(X, y, estimator):
        fast_est = pickle.loads(pickle.dumps(fitted))
        before = pickle.dumps(fast_est)
        fast, fast_after = _outcome(fast_est, Xb, yb)
        with _slow_path():
            slow, _ = _outcome(pickle.loads(pickle.dumps(fitted)), Xb, yb)
        assert fast == slow, f"{label}: fast path {fast}, full validation {slow}"
        if fast is not None:
            assert fast_after == before, f"{label}: a rejected batch changed the state"


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_good_inputs_same_state_fast_or_slow(estimator):
    fitted, X, y = _fitted(estimator)
    batches = [  # one row, a few, Fortran order, strided, reversed columns twice (a view)
        (X[60:61], slice(60, 61)),
        (X[61:64], slice(61, 64)),
        (np.asfortranarray(X[64:70]), slice(64, 70)),
        (X[70:80:2], slice(70, 80, 2)),
        (X[80:81, ::-1][:, ::-1], slice(80, 81)),
    ]
    fast, slow = pickle.loads(pickle.dumps(fitted)), pickle.loads(pickle.dumps(fitted))
    for Xb, rows in batches:
        assert _outcome(fast, Xb, None if y is None else y[rows])[0] is None
        with _slow_path():
            assert _outcome(slow, Xb, None if y is None else y[rows])[0] is None
    assert_state_equal(fast, slow, rtol=0, atol=0, context=type(estimator).__name__)


def test_fast_path_is_taken_for_a_plain_row():
    """The fast path accepts the common case: without it the test above compares nothing."""
    est, X, y = _fitted(skonline.RFDSONClassifier(sketch_size=4))
    row = np.ascontiguousarray(X[:1])
    assert est._fast_batch(row) is row
    assert est._fast_training_data(row, y[:1]) == (row, y[:1])
    # declined: other types, layouts and values
    for bad in (X[:1].tolist(), X[:4:2], row.astype(np.float16), row * np.nan, row * 1e200):
        assert est._fast_batch(bad) is None
    assert est._fast_training_data(row, [1]) is None  # a list target
    assert est._fast_training_data(row, None) is None  # a classifier needs y


@pytest.mark.parametrize("container", [sp.csr_matrix, sp.csr_array])
@pytest.mark.parametrize(
    "estimator",
    [skonline.RFDSONClassifier(sketch_size=4), skonline.FrequentDirections(sketch_size=4)],
    ids=["RFDSONClassifier", "FrequentDirections"],
)
def test_csr_fast_path_checks_structure(estimator, container):
    fitted, X, y = _fitted(estimator)
    Xs = container(X[60:63])
    assert fitted._fast_batch(Xs) is Xs
    d = X.shape[1]
    data, indptr = np.ones(2), np.array([0, 1, 2])
    malformed = {
        "index out of range": (data, np.array([0, d + 3]), indptr),
        "negative index": (data, np.array([0, -1]), indptr),
        "decreasing indptr": (data, np.array([0, 1]), np.array([0, 2, 1])),
        "NaN entry": (np.array([1.0, np.nan]), np.array([0, 1]), indptr),
        "huge entry": (np.array([1.0, 1e200]), np.array([0, 1]), indptr),
    }
    for label, (vals, indices, ptr) in malformed.items():
        bad = container((vals, indices, ptr), shape=(2, d))
        assert fitted._fast_batch(bad) is None, label
        yb = None if y is None else y[:2]
        fast_est = pickle.loads(pickle.dumps(fitted))
        before = pickle.dumps(fast_est)
        fast, after = _outcome(fast_est, bad, yb)
        with _slow_path():
            slow, _ = _outcome(pickle.loads(pickle.dumps(fitted)), bad, yb)
        assert fast is not None and fast == slow, label
        assert after == before, label


def test_feature_names_warnings_unchanged():
    pd = pytest.importorskip("pandas")
    X, y = _make_data(skonline.RFDSONClassifier())
    named = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    est = skonline.RFDSONClassifier(sketch_size=4).partial_fit(X[:20], y[:20], classes=[0, 1])
    with pytest.warns(UserWarning, match="fitted without feature names"):
        est.partial_fit(named.iloc[20:21], y[20:21])
    est = skonline.RFDSONClassifier(sketch_size=4).partial_fit(
        named.iloc[:20], y[:20], classes=[0, 1]
    )
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        est.partial_fit(X[20:21], y[20:21])
    assert est._fast_batch(X[20:21]) is None


def test_sample_weight_fast_check_rejects_what_the_full_check_rejects():
    est, X, y = _fitted(skonline.RFDSONRegressor(sketch_size=4))
    for label, sw in {
        "negative": np.array([-1.0]),
        "NaN": np.array([np.nan]),
        "inf": np.array([np.inf]),
        "huge": np.array([1e200]),
        "all zero": np.array([0.0]),
        "wrong length": np.array([1.0, 1.0]),
    }.items():
        before = pickle.dumps(est)
        with pytest.raises(ValueError):
            est.partial_fit(X[60:61], y[60:61], sample_weight=sw)
        assert pickle.dumps(est) == before, label
    a = pickle.loads(pickle.dumps(est)).partial_fit(X[60:62], y[60:62], sample_weight=[0.5, 2])
    b = est.partial_fit(X[60:62], y[60:62], sample_weight=np.array([0.5, 2.0]))
    assert_state_equal(a, b, rtol=0, atol=0, context="list and array sample weights")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_value_range_matches_numpy(dtype):
    rng = np.random.default_rng(0)
    for shape in [(1, 1), (1, 20), (7, 3), (50, 40)]:
        A = rng.standard_normal(shape).astype(dtype)
        for block in (A, np.asfortranarray(A), A[::-1, ::2]):
            low, high, code = value_range(block)
            assert (low, high, code) == (float(block.min()), float(block.max()), 0)
        for value, expected in ((np.nan, 1), (np.inf, 2), (-np.inf, 2)):
            for i, j in ((0, 0), (shape[0] - 1, shape[1] - 1), (shape[0] // 2, 0)):
                B = A.copy()
                B[i, j] = value
                assert value_range(B)[2] == expected
    assert value_range(np.zeros((0, 3))) == (0.0, 0.0, 0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_value_range_every_position_of_the_unrolled_loop(dtype):
    # the contiguous rows are read eight entries at a time, then a tail: a NaN or an
    # infinity (and the extremes) must be found in every lane and in the tail
    rng = np.random.default_rng(1)
    for d in (1, 7, 8, 9, 16, 17, 31):
        A = rng.standard_normal((3, d)).astype(dtype)
        for j in range(d):
            for row in (0, 2):
                B = A.copy()
                B[row, j] = 100.0
                assert value_range(B)[1] == 100.0
                B[row, j] = -100.0
                assert value_range(B)[0] == -100.0
                for value, expected in ((np.nan, 1), (np.inf, 2), (-np.inf, 2)):
                    B[row, j] = value
                    assert value_range(B)[2] == expected
                    if expected == 2:
                        low, high, _ = value_range(B)
                        assert (low, high) == (float(B.min()), float(B.max()))


def test_first_nonfinite_matches_numpy():
    rng = np.random.default_rng(1)
    arrays = [
        rng.standard_normal((3, 4)),
        rng.standard_normal(5).astype(np.float32),
        np.arange(4),
        rng.standard_normal((4, 6))[:, ::2],  # not contiguous
        np.zeros(0),
        rng.standard_normal(3) + 1j,
    ]
    assert first_nonfinite(arrays) == -1
    for k in (0, 1, 3, 5):
        for value in (np.nan, np.inf, -np.inf):
            bad = [a.copy() for a in arrays]
            bad[k].flat[-1] = value
            assert first_nonfinite(bad) == k


def test_commit_check_reads_only_replaced_fields():
    est, _, _ = _fitted(skonline.RFDSONClassifier(sketch_size=4))
    state = est._state
    assert _nonfinite_fields(state) == []
    broken = shallow_replace(state, U=state.U * np.nan)
    assert _nonfinite_fields(broken, state) == ["U"]
    nested = shallow_replace(state, curvature=state.curvature.copy())
    nested.curvature.S[0, 0, 0] = np.inf
    assert _nonfinite_fields(nested, state) == ["curvature.S"]
    # a field shared with the committed state is not read again (it was checked then)
    assert _nonfinite_fields(state, state) == []


def _float_places(value, path=()):
    """``(path, array)`` of every non-empty float array reachable in a state.

    But the arrays of a structure that checks every write (``finite_writes``):
    the commit's walk passes over it, and its own tests check its writes.
    """
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f" and value.size:
            yield path, value
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _float_places(item, (*path, i))
    elif getattr(value, "finite_writes", False) is True:
        return
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.name not in ("frozen", "live"):
                yield from _float_places(getattr(value, f.name), (*path, f.name))
    elif hasattr(value, "__dict__") and not isinstance(value, (type, np.random.Generator)):
        for key, item in vars(value).items():
            yield from _float_places(item, (*path, key))


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_compiled_state_walk_agrees_with_the_python_walk(estimator):
    # the commit asks whether the state is finite, then for the names: they must
    # agree on every float array of every state, with a NaN or an infinity in any place
    est, _, _ = _fitted(estimator)
    state = est._state
    new = copy.deepcopy(state)
    assert state_is_finite(new, state) and _nonfinite_fields(new, state) == []
    places = list(_float_places(new))
    assert places
    for _, array in places:
        for value in (np.nan, -np.inf):
            for where in (0, -1):
                old = array.flat[where]
                array.flat[where] = value
                assert not state_is_finite(new, state)
                assert _nonfinite_fields(new, state) != []
                assert state_is_finite(new, new)  # the same objects: not read again
                array.flat[where] = old
    assert state_is_finite(new, state)


def test_compiled_state_walk_numbers_and_containers():
    est, _, _ = _fitted(skonline.RFDSONClassifier(sketch_size=4))
    state = est._state
    for bad in (float("nan"), np.float64(np.inf), np.float32(np.nan)):
        broken = shallow_replace(state, cumulative_loss=bad)
        assert not state_is_finite(broken, state) and _nonfinite_fields(broken, state)
    nested = shallow_replace(state, warmup=(np.zeros((1, 2)), [np.array([1.0, np.nan])], 3))
    assert not state_is_finite(nested, state) and _nonfinite_fields(nested, state)
    fine = shallow_replace(state, warmup=(np.zeros((1, 2)), [np.arange(3)], "x"))
    assert state_is_finite(fine, state) and not _nonfinite_fields(fine, state)
    # a sparse matrix (a class with a metaclass): its attributes are read
    rows = sp.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    held = shallow_replace(state, warmup=(rows, np.zeros((2, 1)), np.ones(2)))
    assert state_is_finite(held, state) and not _nonfinite_fields(held, state)
    rows.data[1] = np.inf
    assert not state_is_finite(held, state) and _nonfinite_fields(held, state)
    # a view that is not contiguous, a float32 array, a subclass
    for array in (np.ones((4, 4))[:, ::2], np.ones(3, np.float32), np.matrix(np.ones((2, 2)))):
        array = array.copy() if array.flags.c_contiguous else array
        holder = shallow_replace(state, scale=array)
        assert state_is_finite(holder, state)
        base = array.base if array.base is not None else array
        np.asarray(base).flat[0] = np.nan
        assert not state_is_finite(holder, state) and _nonfinite_fields(holder, state)


def test_shallow_replace_is_dataclasses_replace():
    est, _, _ = _fitted(skonline.FrequentDirections(sketch_size=4))
    state = est._state
    state.svd()  # a cached read-out: not a field, not carried over
    a = shallow_replace(state, n_rows=1)
    b = dataclasses.replace(state, n_rows=1)
    assert vars(a).keys() == vars(b).keys()
    assert all(vars(a)[k] is vars(b)[k] for k in vars(a) if k != "n_rows")
    with pytest.raises(TypeError, match="no fields"):
        shallow_replace(state, not_a_field=1)


def _blas_threads():
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_blas_limit_only_for_large_work():
    before = _blas_threads()
    with _blas.single_blas_thread(_blas.SMALL_WORK - 1):
        assert _blas_threads() == before
    with _blas.single_blas_thread(_blas.SMALL_WORK):
        assert all(n == 1 for n in _blas_threads())
    assert _blas_threads() == before


# ------------------------------------------------------------ prequential
CASES = [
    (skonline.RFDSONClassifier(sketch_size=4), "c", ["accuracy", "neg_log_loss"]),
    (SGDClassifier(random_state=0), "c", ["accuracy"]),
    (SGDClassifier(random_state=0), "strings", ["accuracy", "balanced_accuracy"]),
    (SGDClassifier(random_state=0), "objects", ["accuracy"]),
    (skonline.RFDSONRegressor(sketch_size=4), "r", ["neg_mean_absolute_error", "r2"]),
    (SGDRegressor(random_state=0), "r", ["neg_mean_absolute_error", "neg_mean_squared_error"]),
    (SGDRegressor(random_state=0), "int", ["neg_mean_squared_error"]),
]


@pytest.mark.parametrize("estimator,kind,scoring", CASES)
@pytest.mark.parametrize("batch_size", [1, 7])
def test_prequential_direct_metrics_equal_scorers(estimator, kind, scoring, batch_size):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 4))
    score = X @ rng.standard_normal(4)
    y = {
        "c": (score > 0).astype(int),
        "strings": np.array(["no", "yes"])[(score > 0).astype(int)],
        "objects": np.array(["no", "yes"], dtype=object)[(score > 0).astype(int)],
        "r": score,
        "int": np.round(3 * score).astype(int),
    }[kind]
    direct = prequential_score(estimator, X, y, batch_size=batch_size, scoring=scoring)
    with mock.patch.dict(prequential._DIRECT_SCORERS, clear=True):
        scorer = prequential_score(estimator, X, y, batch_size=batch_size, scoring=scoring)
    for name in scoring:
        for key in (f"batch_{name}", f"cumulative_{name}"):
            np.testing.assert_array_equal(direct[key], scorer[key], err_msg=key)


def test_prequential_direct_metric_declines_non_finite_predictions():
    """A NaN prediction goes to the scorer, which raises scikit-learn's error."""

    class NaNRegressor(SGDRegressor):
        def predict(self, X):
            return np.full(X.shape[0], np.nan)

    X = np.random.default_rng(0).standard_normal((30, 3))
    assert prequential._direct_neg_mae(np.zeros(2), np.full(2, np.nan)) is None
    with pytest.raises(ValueError, match="NaN"):
        prequential_score(NaNRegressor(), X, X[:, 0], batch_size=10)


@pytest.mark.parametrize(
    "known",
    [np.array([0, 1]), np.array([-3, 2, 7]), np.array([0.5, 1.5]), np.array(["a", "b", "c"])],
)
def test_label_lookup_agrees_with_setdiff(known):
    from skonline.linear_model._linear import _all_known

    candidates = [
        *known.tolist(),
        5,
        -3.0,
        0.25,
        True,
        "a",
        "z",
    ]
    for n in (1, 3, 20):  # the set lookup of a few rows and the binary search
        for label in candidates:
            y = np.array([known[0]] * (n - 1) + [label])
            if y.dtype.kind not in "biufUS":
                continue
            slow = np.setdiff1d(np.unique(y), known).size == 0
            if _all_known(y, known):
                assert slow, (y, known)  # the fast lookup never accepts an unknown label
            elif y.dtype.kind + known.dtype.kind in ("ii", "ff", "UU", "if", "fi", "bi"):
                assert not slow, (y, known)  # and finds every known one it can compare

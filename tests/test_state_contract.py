"""The state contract and the input guards: one test per defect that the shared base fixed.

Each test failed before the contract existed (state written before an update was
known to succeed, or a missing guard on ``y`` / ``sample_weight``).
"""

import pickle
import threading
import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_regressors_train
from sklearn.utils.validation import check_is_fitted

from skonline import RFDSONClassifier, RFDSONRegressor
from skonline.utils._blas import single_blas_thread


def _regression(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, np.clip(X @ rng.standard_normal(d) / 4, -1, 1)


# ----------------------------------------------------------- defect 2: huge targets
@pytest.mark.parametrize("bound", [1.0, None])
def test_a_huge_target_is_rejected_and_the_regressor_keeps_learning(bound):
    X, y = _regression()
    reg = RFDSONRegressor(bound=bound, alpha0=1.0).partial_fit(X[:30], y[:30])
    before = pickle.dumps(reg)
    y_bad = y[30:].copy()
    y_bad[3] = 1e155
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="y contains a value too large"):
            reg.partial_fit(X[30:], y_bad)
    assert pickle.dumps(reg) == before
    reg.partial_fit(X[30:], y[30:])  # clean data still trains
    assert np.all(np.isfinite(reg.coef_)) and np.isfinite(reg.cumulative_loss_)


# ---------------------------------------------------- defect 5: huge sample weights
@pytest.mark.parametrize("cls", [RFDSONClassifier, RFDSONRegressor])
@pytest.mark.parametrize("stage", ["first call", "mid-stream"])
def test_a_huge_sample_weight_is_rejected_and_nothing_is_fitted(cls, stage):
    X, y = _regression()
    if cls is RFDSONClassifier:
        y = (y > 0).astype(int)
    kwargs = {"classes": [0, 1]} if cls is RFDSONClassifier else {}
    est = cls(alpha0=1.0)
    if stage == "mid-stream":
        est.partial_fit(X[:30], y[:30], **kwargs)
        kwargs = {}
    before = pickle.dumps(est)
    sw = np.ones(30)
    sw[5] = 1e155
    with pytest.raises(ValueError, match="sample_weight contains a value too large"):
        est.partial_fit(X[30:], y[30:], sample_weight=sw, **kwargs)
    assert pickle.dumps(est) == before
    if stage == "first call":
        with pytest.raises(Exception, match="not fitted"):
            check_is_fitted(est)


def test_an_overflowing_update_is_not_committed():
    """Values below every magnitude guard can still overflow in products: the pass is undone."""
    X, y = _regression(n=30)
    reg = RFDSONRegressor(
        bound=None, alpha0=1e-300, sketch="diag", curvature="gradient", scale_features=False
    )
    X_big = X * 1e140
    sw = np.full(30, 1e140)
    with pytest.raises(FloatingPointError, match="not applied"):
        with np.errstate(all="ignore"):
            reg.partial_fit(X_big, y, sample_weight=sw)
    with pytest.raises(Exception, match="not fitted"):
        check_is_fitted(reg)


# ------------------------------------------------------ defects 6 and 9: string targets
@pytest.mark.parametrize("bound", [1.0, None])
def test_non_numeric_targets_leave_the_regressor_unfitted(bound):
    X, _ = _regression(n=5)
    reg = RFDSONRegressor(bound=bound, alpha0=1.0)
    with pytest.raises(ValueError, match="could not convert"):
        reg.partial_fit(X, np.array(["a"] * 5))
    assert not hasattr(reg, "n_features_in_")
    with pytest.raises(Exception, match="not fitted"):
        check_is_fitted(reg)


def test_numeric_string_targets_are_converted_like_scikit_learn():
    X, y = _regression(n=20)
    as_strings = RFDSONRegressor(alpha0=1.0).fit(X, y.astype(str))
    as_floats = RFDSONRegressor(alpha0=1.0).fit(X, y.astype(str).astype(float))
    np.testing.assert_array_equal(as_strings.coef_, as_floats.coef_)


# ---------------------------------------------------------- defect 11: 2-D classes
def test_two_dimensional_classes_are_rejected():
    X, y = _regression(n=10)
    clf = RFDSONClassifier()
    with pytest.raises(ValueError, match="1-D"):
        clf.partial_fit(X, (y > 0).astype(int), classes=[[0, 1]])
    assert not hasattr(clf, "n_features_in_")


# ------------------------------------------------------- defect 8: Huber regression
def test_huber_regressor_passes_check_regressors_train():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_regressors_train("RFDSONRegressor", RFDSONRegressor(loss="huber"))


# ------------------------------------------- defect 7: thread-safe single-BLAS-thread
def test_single_blas_thread_restores_the_limit_when_threads_overlap():
    from threadpoolctl import threadpool_info

    def limits():
        return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]

    before = limits()
    first_inside, second_inside, first_left = (threading.Event() for _ in range(3))

    def first():
        with single_blas_thread():
            first_inside.set()
            second_inside.wait()
        first_left.set()

    def second():
        first_inside.wait()
        with single_blas_thread():
            second_inside.set()
            first_left.wait()  # the first thread leaves while this one is inside

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert limits() == before


def test_single_blas_thread_in_a_worker_thread_leaves_the_main_limit():
    from threadpoolctl import threadpool_info

    def limits():
        return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]

    before = limits()
    seen = []

    def worker():
        with single_blas_thread():
            seen.append(limits())

    with single_blas_thread():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert set(limits()) <= {1}
    assert seen and set(seen[0]) <= {1}
    assert limits() == before


def test_single_blas_thread_limits_inside_and_nests():
    from threadpoolctl import threadpool_info

    def limits():
        return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]

    before = limits()
    with single_blas_thread():
        with single_blas_thread():
            assert set(limits()) <= {1}
        assert set(limits()) <= {1}
    assert limits() == before


# ------------------------------------------------------------ verbose progress of fit
@pytest.mark.parametrize("verbose, n_lines", [(1, 10), (2, 12)])
def test_verbose_fit_prints_progress_and_learns_the_same(capsys, verbose, n_lines):
    # to a stream that is not a terminal: ten lines for the two epochs, and at
    # verbose=2 one more line per epoch with its mean loss
    X, y = _regression(n=2500, d=5)
    quiet = RFDSONRegressor(alpha0=1.0, max_iter=2).fit(X, y)
    assert capsys.readouterr().err == ""
    loud = RFDSONRegressor(alpha0=1.0, max_iter=2, verbose=verbose).fit(X, y)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == n_lines
    assert lines[0].startswith("RFDSONRegressor epoch 1/2:  10% 500/5,000 rows [")
    progress = [line for line in lines if "%" in line]
    assert progress[-1].startswith("RFDSONRegressor epoch 2/2: 100% 5,000/5,000 rows [")
    assert "rows/s" in progress[-1]
    assert ("mean_loss=" in progress[-1]) == (verbose == 2)
    if verbose == 2:
        epochs = [line for line in lines if "%" not in line]
        assert [line.split(":")[0] for line in epochs] == [
            "RFDSONRegressor epoch 1/2",
            "RFDSONRegressor epoch 2/2",
        ]
        assert all("2,500 rows, mean_loss=" in line for line in epochs)
    np.testing.assert_array_equal(loud.coef_, quiet.coef_)
    assert loud.cumulative_loss_ == quiet.cumulative_loss_


def _verbose_estimators():
    import inspect

    import skonline
    from skonline.decomposition import AdaptiveSubsetHedge

    classes = [getattr(skonline, n) for n in skonline.__all__]
    classes = [c for c in classes if inspect.isclass(c)] + [AdaptiveSubsetHedge]
    return [c for c in classes if "verbose" in c().get_params()]


def _verbose_data(cls, n=1200):
    """Rows (and targets) every estimator with ``verbose`` learns from."""
    from sklearn.base import is_classifier, is_regressor

    rng = np.random.default_rng(0)
    X = np.abs(rng.standard_normal((n, 4))) / 4  # non-negative rows of norm < 1
    y = None
    if is_classifier(cls()):
        y = (X[:, 0] > X[:, 1]).astype(int)
    elif is_regressor(cls()):
        y = X @ [1.0, -1.0, 0.5, 0.0]
    return X, y


@pytest.mark.parametrize("cls", _verbose_estimators(), ids=lambda c: c.__name__)
def test_every_verbose_fit_prints_progress_and_learns_the_same(capsys, cls):
    X, y = _verbose_data(cls)
    seed = {"random_state": 0} if "random_state" in cls().get_params() else {}
    quiet = cls(**seed).fit(X, y)
    assert capsys.readouterr().err == ""
    loud = cls(verbose=1, **seed).fit(X, y)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 10 and all(line.startswith(f"{cls.__name__}: ") for line in lines)
    assert "100% 1,200/1,200 rows" in lines[-1] and "rows/s" in lines[-1]
    assert pickle.dumps(loud._state) == pickle.dumps(quiet._state)


def test_verbose_fit_closes_the_pass_once(capsys):
    # fit builds a principal curve from fewer than init_size rows at the end of
    # the pass only: the chunks of a verbose fit must not build it earlier.
    from skonline import SequentialPrincipalCurve

    X = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, 0.0]])
    quiet = SequentialPrincipalCurve(init_size=3, random_state=0).fit(X[:2])
    loud = SequentialPrincipalCurve(init_size=3, random_state=0, verbose=2).fit(X[:2])
    assert pickle.dumps(loud._state) == pickle.dumps(quiet._state)
    assert len(capsys.readouterr().err.splitlines()) == 2  # one line per row
    loud = SequentialPrincipalCurve(init_size=3, random_state=0, verbose=1).fit(X)
    quiet = SequentialPrincipalCurve(init_size=3, random_state=0).fit(X)
    assert len(capsys.readouterr().err.splitlines()) == 3
    assert pickle.dumps(loud._state) == pickle.dumps(quiet._state)

"""prequential_score and PrequentialDisplay against hand-written test-then-train loops."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits
from sklearn.decomposition import IncrementalPCA
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.metrics import (
    accuracy_score,
    get_scorer,
    log_loss,
    mean_absolute_error,
    r2_score,
    roc_auc_score,
)
from sklearn.utils import gen_batches

from skonline import (
    FrequentDirections,
    RFDSONClassifier,
    RFDSONRegressor,
    RobustFrequentDirections,
)
from skonline.datasets import make_topic_documents
from skonline.evaluation import (
    PrequentialDisplay,
    best_fixed_projection_losses,
    prequential_score,
    reconstruction_error,
)


def _loop(estimator, X, y, batch_size, classes=None):
    """The hand-written test-then-train loop: predictions of each batch before learning it."""
    est = clone(estimator)
    preds, scores, seen = [], [], []
    for i, sl in enumerate(gen_batches(X.shape[0], batch_size)):
        if i:
            preds.append(est.predict(X[sl]))
            if hasattr(est, "decision_function"):
                scores.append(est.decision_function(X[sl]))
            seen.append(np.arange(sl.start, sl.stop))
        kwargs = {"classes": classes} if classes is not None and i == 0 else {}
        est.partial_fit(X[sl], y[sl], **kwargs)
    idx = np.concatenate(seen)
    return est, np.concatenate(preds), (np.concatenate(scores) if scores else None), idx


@pytest.mark.parametrize(
    "estimator",
    [SGDClassifier(random_state=0), RFDSONClassifier(alpha0=1.0, sketch_size=5)],
    ids=["SGDClassifier", "RFDSONClassifier"],
)
def test_classifier_matches_a_hand_written_loop(estimator):
    X, y = load_breast_cancer(return_X_y=True)
    X = X / X.max(axis=0)
    res = prequential_score(estimator, X, y, scoring=["accuracy", "roc_auc"], batch_size=64)
    est, pred, score, idx = _loop(estimator, X, y, 64, classes=np.unique(y))
    np.testing.assert_allclose(
        res.cumulative_accuracy[-1], accuracy_score(y[idx], pred), rtol=1e-12
    )
    np.testing.assert_allclose(res.cumulative_roc_auc[-1], roc_auc_score(y[idx], score), rtol=1e-12)
    # per batch: the batch's own accuracy; the first batch is learned from, not scored
    assert np.isnan(res.batch_accuracy[0])
    first = slice(64, 128)
    np.testing.assert_allclose(
        res.batch_accuracy[1], accuracy_score(y[first], pred[:64]), rtol=1e-12
    )
    np.testing.assert_array_equal(res.estimator.predict(X), est.predict(X))
    assert res.n_samples_seen[-1] == len(X) and res.batch_rows.sum() == len(X)


@pytest.mark.parametrize(
    "estimator",
    [SGDRegressor(random_state=0), RFDSONRegressor(alpha0=1.0, bound=None)],
    ids=["SGDRegressor", "RFDSONRegressor"],
)
def test_regressor_matches_a_hand_written_loop(estimator):
    X, y = load_diabetes(return_X_y=True)
    y = y / np.abs(y).max()
    res = prequential_score(
        estimator, X, y, scoring=["neg_mean_absolute_error", "r2"], batch_size=40
    )
    _, pred, _, idx = _loop(estimator, X, y, 40)
    np.testing.assert_allclose(
        -res.cumulative_neg_mean_absolute_error[-1], mean_absolute_error(y[idx], pred), rtol=1e-12
    )
    np.testing.assert_allclose(res.cumulative_r2[-1], r2_score(y[idx], pred), rtol=1e-12)
    # cumulative values at every batch are those of the prefix
    k = 5
    rows = idx[idx < 40 * (k + 1)]
    np.testing.assert_allclose(
        res.cumulative_r2[k], r2_score(y[rows], pred[: rows.size]), rtol=1e-12
    )


@pytest.mark.parametrize(
    "estimator",
    [IncrementalPCA(n_components=4), RobustFrequentDirections(sketch_size=6, n_components=4)],
    ids=["IncrementalPCA", "RobustFrequentDirections"],
)
def test_transformer_matches_a_hand_written_loop(estimator):
    X = load_digits().data[:600] / 16.0
    res = prequential_score(estimator, X, batch_size=100, comparator="best_fixed_projection")
    est = clone(estimator)
    errors, rows = [], []
    for i, sl in enumerate(gen_batches(len(X), 100)):
        if i:
            rebuilt = est.inverse_transform(est.transform(X[sl]))
            errors.append(np.sum((X[sl] - rebuilt) ** 2, axis=1))
            rows.append(np.arange(sl.start, sl.stop))
        est.partial_fit(X[sl])
    errors = np.concatenate(errors)
    np.testing.assert_allclose(
        -res.cumulative_neg_reconstruction_error[-1], errors.mean(), rtol=1e-12
    )
    np.testing.assert_allclose(res.cumulative_loss[-1], errors.sum(), rtol=1e-12)
    # the comparator is the best fixed projection of the scored rows, in hindsight
    best = best_fixed_projection_losses(X[100:], 4).sum()
    np.testing.assert_allclose(res.comparator_cumulative_loss[-1], best, rtol=1e-9)
    np.testing.assert_allclose(res.regret, res.cumulative_loss - res.comparator_cumulative_loss)


def test_batches_before_the_model_exists_are_only_learned_from():
    # a principal curve needs init_size rows before it has a curve: the batches
    # before are learned from, not scored, and the rest match a hand loop
    from skonline import SequentialPrincipalCurve

    X = load_digits().data[:60, :2]
    est = SequentialPrincipalCurve(init_size=4, random_state=0)
    res = prequential_score(est, X, batch_size=1, baseline=True)
    assert np.isnan(res.batch_neg_reconstruction_error[:4]).all()
    assert np.isnan(res.baseline_batch_neg_reconstruction_error[:4]).all()
    assert not np.isnan(res.batch_neg_reconstruction_error[4:]).any()
    ref = clone(est).partial_fit(X[:4])
    errors = []
    for i in range(4, len(X)):
        errors.append(reconstruction_error(ref, X[i : i + 1]))
        ref.partial_fit(X[i : i + 1])
    np.testing.assert_allclose(
        -res.cumulative_neg_reconstruction_error[-1], np.mean(errors), rtol=1e-12
    )
    baseline = [np.sum((X[i] - X[:i].mean(axis=0)) ** 2) for i in range(4, len(X))]
    np.testing.assert_allclose(
        -res.baseline_cumulative_neg_reconstruction_error[-1], np.mean(baseline), rtol=1e-12
    )


def test_a_learner_without_fit_is_scored_after_its_first_batch():
    class RunningMean(BaseEstimator):  # partial_fit and predict only, no fit
        def partial_fit(self, X, y):
            self.total = getattr(self, "total", 0.0) + float(np.sum(y))
            self.n = getattr(self, "n", 0) + len(y)
            return self

        def predict(self, X):
            return np.full(len(X), self.total / self.n)

    y = np.arange(6.0)
    res = prequential_score(
        RunningMean(), np.zeros((6, 1)), y, scoring="neg_mean_absolute_error", batch_size=2
    )
    np.testing.assert_allclose(res.batch_neg_mean_absolute_error[1:], [-2.0, -3.0])


def test_reconstruction_error_without_inverse_transform_uses_components():
    class Projector:
        components_ = np.array([[1.0, 0.0, 0.0]])

        def transform(self, X):
            return X @ self.components_.T

    X = np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    assert reconstruction_error(Projector(), X) == pytest.approx((4.0 + 9.0) / 2)


def test_baseline_is_the_prefix_majority_and_mean():
    X, y = load_breast_cancer(return_X_y=True)
    res = prequential_score(SGDClassifier(random_state=0), X, y, batch_size=100, baseline=True)
    majority = [np.bincount(y[: 100 * i]).argmax() for i in range(1, 6)]
    expected = [np.mean(y[100 * i : 100 * (i + 1)] == m) for i, m in enumerate(majority, 1)]
    np.testing.assert_allclose(res.baseline_batch_accuracy[1:], expected, rtol=1e-12)
    Xr, yr = load_diabetes(return_X_y=True)
    res = prequential_score(SGDRegressor(random_state=0), Xr, yr, batch_size=100, baseline=True)
    mae = [
        np.mean(np.abs(yr[100 * i : 100 * (i + 1)] - yr[: 100 * i].mean())) for i in (1, 2, 3, 4)
    ]
    np.testing.assert_allclose(-res.baseline_batch_neg_mean_absolute_error[1:], mae, rtol=1e-12)


def test_an_iterable_of_batches_equals_the_array():
    X, y = load_breast_cancer(return_X_y=True)
    batches = ((X[sl], y[sl]) for sl in gen_batches(len(X), 50))
    from_iter = prequential_score(
        SGDClassifier(random_state=0), batches, classes=[0, 1], batch_size=7
    )
    from_array = prequential_score(SGDClassifier(random_state=0), X, y, batch_size=50)
    np.testing.assert_array_equal(from_iter.batch_accuracy, from_array.batch_accuracy)
    with pytest.raises(ValueError, match="classes"):
        prequential_score(SGDClassifier(), iter([(X[:10], y[:10])]))


def test_bad_input_raises_like_the_estimator_and_leaves_it_untouched():
    X, y = load_breast_cancer(return_X_y=True)
    est = RFDSONClassifier(alpha0=1.0).partial_fit(X[:50], y[:50], classes=[0, 1])
    before = pickle.dumps(est)
    X_bad = X.copy()
    X_bad[300, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        prequential_score(est, X_bad, y, batch_size=100)
    assert pickle.dumps(est) == before
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        prequential_score(est, X, y[:-1])
    with pytest.raises(TypeError, match="partial_fit"):
        prequential_score(object(), X, y)
    with pytest.raises(ValueError, match="batch_size"):
        prequential_score(est, X, y, batch_size=0)
    with pytest.raises(ValueError, match="empty"):
        prequential_score(est, iter([]), classes=[0, 1])


def test_verbose_prints_progress_and_is_off_by_default(capsys):
    X, y = load_breast_cancer(return_X_y=True)
    prequential_score(SGDClassifier(random_state=0), X, y, batch_size=50)
    assert capsys.readouterr() == ("", "")
    res = prequential_score(SGDClassifier(random_state=0), X, y, batch_size=50, verbose=2)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 10  # one per tenth of the rows
    assert lines[-1].startswith("prequential SGDClassifier: 100% 569/569 rows [")
    assert "rows/s" in lines[-1]
    assert lines[-1].endswith(f"accuracy={res.cumulative_accuracy[-1]:.4g}]")


def test_display_draws_one_line_per_estimator():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = load_breast_cancer(return_X_y=True)
    disp = PrequentialDisplay.from_estimator(
        {"sgd": SGDClassifier(random_state=0), "son": RFDSONClassifier(alpha0=1.0)},
        X / X.max(axis=0),
        y,
        batch_size=100,
        baseline=True,
    )
    # the same stream: one shared baseline, not one per estimator
    assert set(disp.lines_) == {"sgd", "son", "baseline"}
    assert disp.ax_.get_xlabel() == "rows seen"
    assert disp.ax_.get_ylabel() == "accuracy (cumulative)"
    assert len(disp.ax_.get_lines()) == 3
    # different streams: a baseline per estimator, in its colour
    r1 = prequential_score(SGDClassifier(random_state=0), X, y, batch_size=100, baseline=True)
    reversed_stream = X[::-1], y[::-1]
    r2 = prequential_score(
        SGDClassifier(random_state=0), *reversed_stream, batch_size=100, baseline=True
    )
    apart = PrequentialDisplay.from_results({"a": r1, "b": r2})
    assert set(apart.lines_) == {"a", "b", "a baseline", "b baseline"}
    assert apart.lines_["b baseline"].get_color() == apart.lines_["b"].get_color()
    x, yy = disp.lines_["sgd"].get_data()
    res = prequential_score(SGDClassifier(random_state=0), X / X.max(axis=0), y, batch_size=100)
    np.testing.assert_array_equal(x, res.n_samples_seen)
    np.testing.assert_array_equal(yy, res.cumulative_accuracy)
    # from_results on a shared axes, batch values
    _, ax = plt.subplots()
    PrequentialDisplay.from_results({"a": res}, kind="batch", ax=ax)
    assert ax.get_ylabel() == "accuracy (batch)" and len(ax.get_lines()) == 1
    plt.close("all")


def test_scorer_order_changes_no_result():
    # one-row batches: R² of one row is NaN (undefined); it used to mark the
    # batch as unscored for every scorer after it, so that both cumulative
    # values came out NaN when "r2" came first
    X, y = load_diabetes(return_X_y=True)
    X, y = X[:80], y[:80] / np.abs(y).max()
    est = SGDRegressor(random_state=0)
    with pytest.warns(UserWarning):  # scikit-learn: R² is not well-defined with one row
        a = prequential_score(est, X, y, batch_size=1, scoring=["r2", "neg_mean_absolute_error"])
        b = prequential_score(est, X, y, batch_size=1, scoring=["neg_mean_absolute_error", "r2"])
    for key in ("r2", "neg_mean_absolute_error"):
        for kind in ("batch", "cumulative"):
            np.testing.assert_array_equal(a[f"{kind}_{key}"], b[f"{kind}_{key}"])
    _, pred, _, idx = _loop(est, X, y, 1)
    np.testing.assert_allclose(a.cumulative_r2[-1], r2_score(y[idx], pred), rtol=1e-12)
    np.testing.assert_allclose(
        -a.cumulative_neg_mean_absolute_error[-1], mean_absolute_error(y[idx], pred), rtol=1e-12
    )
    assert np.isnan(a.cumulative_r2[:2]).all() and not np.isnan(a.cumulative_r2[2:]).any()


@pytest.mark.parametrize(
    "estimator", [SGDClassifier(random_state=0), SGDRegressor(), IncrementalPCA(n_components=2)]
)
def test_an_empty_stream_says_so(estimator):
    X = np.zeros((0, 3))
    y = None if isinstance(estimator, IncrementalPCA) else np.zeros(0)
    with pytest.raises(ValueError, match="the stream is empty"):
        prequential_score(estimator, X, y)
    kwargs = {"classes": [0, 1]} if isinstance(estimator, SGDClassifier) else {}
    for stream in (iter([]), (np.zeros((0, 3)) for _ in range(3))):
        with pytest.raises(ValueError, match="the stream is empty"):
            prequential_score(estimator, stream, **kwargs)


def _with_nan_row(row):
    X, y = load_breast_cancer(return_X_y=True)
    X = X / X.max(axis=0)
    X_bad = X.copy()
    X_bad[row, 2] = np.nan
    return X, X_bad, y


def test_a_failing_batch_is_named_and_keeps_the_work():
    X, X_bad, y = _with_nan_row(350)  # in batch 3: rows 300 to 399
    est = RFDSONClassifier(alpha0=1.0, sketch_size=5)
    clean = prequential_score(est, X, y, batch_size=100)
    with pytest.raises(ValueError, match=r"batch 3 of the stream \(rows 300 to 399\)") as info:
        prequential_score(est, X_bad, y, batch_size=100)
    assert "NaN" in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)
    partial = info.value.partial_result
    assert partial.batch_rows.tolist() == [100, 100, 100]
    for key in ("batch_accuracy", "cumulative_accuracy", "n_samples_seen"):
        np.testing.assert_array_equal(partial[key], clean[key][:3])
    # the estimator trained on the batches before the failing one, not lost
    ref = clone(est)
    for start in (0, 100, 200):
        ref.partial_fit(X[start : start + 100], y[start : start + 100], classes=[0, 1])
    np.testing.assert_array_equal(partial.estimator.decision_function(X), ref.decision_function(X))

    # a generator that fails while being read: the work before it is kept too
    def stream():
        yield X[:100], y[:100]
        yield X[100:200], y[100:200]
        raise OSError("disk gone")

    with pytest.raises(OSError, match=r"batch 2 of the stream \(from row 200\).*disk gone") as info:
        prequential_score(est, stream(), classes=[0, 1])
    np.testing.assert_array_equal(
        info.value.partial_result.batch_accuracy, clean.batch_accuracy[:2]
    )


def test_error_score_records_the_failing_batch_and_goes_on():
    X, X_bad, y = _with_nan_row(350)
    est = RFDSONClassifier(alpha0=1.0, sketch_size=5)
    where = r"batch 3 of the stream \(rows 300 to 399\)"
    with (
        pytest.warns(UserWarning, match=f"scoring {where}"),
        pytest.warns(FitFailedWarning, match=f"partial_fit on {where}"),
    ):
        res = prequential_score(est, X_bad, y, batch_size=100, error_score=np.nan)
    assert res.failed.tolist() == [False, False, False, True, False, False]
    assert np.isnan(res.batch_accuracy[[0, 3]]).all()
    assert res.n_samples_seen.tolist() == [100, 200, 300, 300, 400, 469]
    # the same as the stream without the failing batch: it is neither learned
    # from nor counted in the cumulative score
    keep = np.r_[0:300, 400:569]
    ref = prequential_score(est, X[keep], y[keep], batch_size=100)
    np.testing.assert_array_equal(
        res.estimator.decision_function(X), ref.estimator.decision_function(X)
    )
    np.testing.assert_allclose(res.cumulative_accuracy[-1], ref.cumulative_accuracy[-1], rtol=1e-12)
    np.testing.assert_array_equal(res.cumulative_accuracy[3], res.cumulative_accuracy[2])
    with pytest.warns(UserWarning), pytest.warns(FitFailedWarning):
        res0 = prequential_score(est, X_bad, y, batch_size=100, error_score=0)
    assert res0.batch_accuracy[3] == 0.0
    with pytest.raises(ValueError, match="error_score"):
        prequential_score(est, X, y, error_score="skip")


def test_scorers_that_need_every_class_get_them():
    # log loss of a one-row batch names one class only: the classes of the
    # stream reach the scorer, and the value is the mean log loss of the rows
    X, y = load_digits(n_class=3, return_X_y=True)
    X, y = X[:90] / 16.0, y[:90]
    est = SGDClassifier(loss="log_loss", random_state=0)
    res = prequential_score(est, X, y, batch_size=1, scoring=["neg_log_loss", "accuracy"])
    ref = clone(est).partial_fit(X[:1], y[:1], classes=[0, 1, 2])
    losses = []
    for i in range(1, len(X)):
        losses.append(log_loss(y[i : i + 1], ref.predict_proba(X[i : i + 1]), labels=[0, 1, 2]))
        ref.partial_fit(X[i : i + 1], y[i : i + 1])
    np.testing.assert_allclose(-res.batch_neg_log_loss[1:], losses, rtol=1e-12)
    np.testing.assert_allclose(-res.cumulative_neg_log_loss[-1], np.mean(losses), rtol=1e-12)
    # on batches with every class the value is scikit-learn's scorer's
    big = prequential_score(est, X, y, batch_size=30, scoring=["neg_log_loss"])
    bare = prequential_score(
        est, X, y, batch_size=30, scoring={"neg_log_loss": get_scorer("neg_log_loss")}
    )
    np.testing.assert_array_equal(big.batch_neg_log_loss, bare.batch_neg_log_loss)


def test_display_passes_error_score_on():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, X_bad, y = _with_nan_row(350)
    est = RFDSONClassifier(alpha0=1.0, sketch_size=5)
    with pytest.warns(UserWarning), pytest.warns(FitFailedWarning):
        disp = PrequentialDisplay.from_estimator(est, X_bad, y, batch_size=100, error_score=np.nan)
    assert disp.results["RFDSONClassifier"].failed.tolist() == [0, 0, 0, 1, 0, 0]
    plt.close("all")


def test_a_scorer_the_estimator_cannot_serve_is_refused_by_name_before_the_stream():
    # roc_auc needs decision_function or predict_proba: the error named the
    # internal recording wrapper ("_Recorder has none of ...") after a batch
    X, y = load_breast_cancer(return_X_y=True)
    from sklearn.linear_model import Perceptron

    with pytest.raises(AttributeError, match="'neg_log_loss' needs predict_proba") as info:
        prequential_score(Perceptron(), X, y, scoring="neg_log_loss")
    assert "_Recorder" not in str(info.value) and "Perceptron has none" in str(info.value)
    with pytest.raises(AttributeError, match=r"none of them \(with loss='hinge'\)"):
        prequential_score(SGDClassifier(), X, y, scoring=["accuracy", "neg_log_loss"])
    # with the method, the scorer works as before (standardised columns and a fixed
    # seed: SGD on the raw columns, reshuffling each batch at random, scored 0.42-0.88)
    Xs = (X - X.mean(axis=0)) / X.std(axis=0)
    clf = SGDClassifier(loss="log_loss", random_state=0)
    res = prequential_score(clf, Xs, y, scoring="roc_auc")
    assert 0.5 < res.cumulative_roc_auc[-1] <= 1.0


def test_a_callable_that_reads_x_gets_the_row_weighted_mean_of_its_batch_values():
    # The cumulative value of a callable is the row-weighted mean of its batch values,
    # as documented: it was recomputed on a placeholder X of zeros, wrong for a scorer
    # that reads X.
    X, y = load_diabetes(return_X_y=True)
    X = X[:95]
    y = y[:95]

    def mean_first_feature(estimator, X, y):
        return float(np.mean(X[:, 0]))

    res = prequential_score(RFDSONRegressor(), X, y, scoring=mean_first_feature, batch_size=20)
    scored = X[20:, 0]  # the first batch is learned before the model exists
    np.testing.assert_allclose(res.cumulative_mean_first_feature[-1], scored.mean(), rtol=1e-12)
    expected = [X[20:stop, 0].mean() for stop in (40, 60, 80, 95)]
    np.testing.assert_allclose(res.cumulative_mean_first_feature[1:], expected, rtol=1e-12)


@pytest.mark.parametrize("cls", [FrequentDirections, RobustFrequentDirections])
@pytest.mark.parametrize("center", [True, False])
def test_sketch_reconstruction_error_on_csr_rows_is_not_densified(cls, center, monkeypatch):
    """CSR rows: ``‖x̃‖² − ‖C x̃‖²`` from the rows' non-zeros, equal to the dense reconstruction.

    Before, every batch was densified and rebuilt (hashed text: n x 2^18 floats a
    batch, 2.3x the whole prequential run's time). The two agree to the rounding of
    sums of ``d`` products of magnitude ``(‖x‖ + ‖mean_‖)²``.
    """
    X = make_topic_documents(600, 3000, random_state=0)[0]
    est = cls(n_components=5, center=center, random_state=0).fit(X[:400])
    rows = X[400:]
    fast = est._reconstruction_residuals(rows)
    dense = rows.toarray()
    residual = dense - est.inverse_transform(est.transform(dense))
    exact = np.einsum("ij,ij->i", residual, residual)
    scale = (np.linalg.norm(dense, axis=1) + np.linalg.norm(est.mean_)) ** 2
    assert np.all(np.abs(fast - exact) <= 4 * X.shape[1] * np.finfo(float).eps * scale)
    assert reconstruction_error(est, rows) == pytest.approx(np.mean(fast), rel=1e-15)
    # the dense route is not taken for CSR rows
    monkeypatch.setattr(
        sp.csr_matrix, "toarray", lambda self, *a, **k: pytest.fail("densified"), raising=True
    )
    reconstruction_error(est, rows)
    # dense rows and whitened sketches reconstruct as before
    assert est._reconstruction_residuals(dense) is None
    whitened = cls(n_components=5, whiten=True, random_state=0).fit(X[:400])
    assert whitened._reconstruction_residuals(rows) is None


def test_prequential_score_of_a_sketch_on_csr_rows_matches_the_reconstruction(monkeypatch):
    X = make_topic_documents(500, 2500, random_state=1)[0]
    est = RobustFrequentDirections(n_components=4, random_state=0)
    fast = prequential_score(est, X, batch_size=100)
    monkeypatch.setattr(RobustFrequentDirections, "_reconstruction_residuals", lambda self, X: None)
    rebuilt = prequential_score(est, X, batch_size=100)
    # the same sketches; the scores differ by the rounding bound of the test above
    np.testing.assert_allclose(
        fast["batch_neg_reconstruction_error"][1:],
        rebuilt["batch_neg_reconstruction_error"][1:],
        rtol=1e-10,
    )


def test_a_stream_of_one_batch_warns_that_nothing_was_scored():
    from sklearn.linear_model import SGDClassifier

    X, y = np.random.default_rng(0).standard_normal((40, 3)), np.arange(40) % 2
    with pytest.warns(UserWarning, match="scored no row.*40 rows"):
        res = prequential_score(SGDClassifier(random_state=0), X, y, batch_size=40)
    assert np.isnan(res.cumulative_accuracy).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # two batches: the second is scored, no warning
        res = prequential_score(SGDClassifier(random_state=0), X, y, batch_size=20)
    assert np.isfinite(res.cumulative_accuracy[-1])

"""Several estimators in one prequential pass: each result is that of its own run, bit for bit."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits
from sklearn.decomposition import IncrementalPCA
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.utils import gen_batches

from skonline import (
    RFDSONClassifier,
    RFDSONRegressor,
    RobustFrequentDirections,
    ScaleInvariantClassifier,
    ScaleInvariantRegressor,
)
from skonline.evaluation import PrequentialDisplay, prequential_score

_TIMES = ("fit_time", "score_time")


def _models():
    return {
        "rfdson": RFDSONClassifier(alpha0=1.0, sketch_size=5),
        "scale_invariant": ScaleInvariantClassifier(),
        "sgd": SGDClassifier(loss="log_loss", random_state=0),
    }


def _data():
    X, y = load_breast_cancer(return_X_y=True)
    return X / X.max(axis=0), y


class _Counted:
    """Wraps an iterable and counts the batches read from it."""

    def __init__(self, iterable):
        self.iterable = iterable
        self.reads = 0
        self.passes = 0

    def __iter__(self):
        self.passes += 1
        for item in self.iterable:
            self.reads += 1
            yield item


def _assert_same(several, single, X):
    """Every result array equal bit for bit (NaN where NaN), timings aside; same estimator."""
    assert set(several) == set(single)
    for key, value in single.items():
        if key in _TIMES:
            assert several[key].shape == value.shape
        elif key == "estimator":
            for method in ("decision_function", "predict", "transform"):
                if hasattr(value, method):
                    np.testing.assert_array_equal(
                        getattr(several[key], method)(X), getattr(value, method)(X)
                    )
                    break
        else:
            np.testing.assert_array_equal(several[key], value, strict=True)


def test_several_models_on_arrays_equal_their_own_runs():
    X, y = _data()
    kwargs = {"scoring": ["accuracy", "roc_auc", "neg_log_loss"], "batch_size": 50}
    res = prequential_score(_models(), X, y, baseline=True, **kwargs)
    assert list(res) == ["rfdson", "scale_invariant", "sgd"]
    for name, est in _models().items():
        single = prequential_score(est, X, y, baseline=True, **kwargs)
        _assert_same(res[name], single, X)
        assert res[name].batch_rows.sum() == len(X)


def test_several_models_read_a_generator_once():
    X, y = _data()

    def batches():
        return ((X[sl], y[sl]) for sl in gen_batches(len(X), 40))

    stream = _Counted(batches())
    res = prequential_score(_models(), iter(stream), classes=[0, 1], scoring=["accuracy", "f1"])
    assert stream.passes == 1 and stream.reads == 15  # ceil(569 / 40) batches, each read once
    for name, est in _models().items():
        single = prequential_score(est, batches(), classes=[0, 1], scoring=["accuracy", "f1"])
        _assert_same(res[name], single, X)
        assert res[name].n_samples_seen[-1] == len(X)


def test_several_models_read_a_csv_in_chunks_once(tmp_path):
    pd = pytest.importorskip("pandas")
    data = load_breast_cancer(as_frame=True).frame
    path = tmp_path / "stream.csv"
    data.to_csv(path, index=False)
    with pd.read_csv(path, chunksize=64) as reader:
        chunks = _Counted(reader)
        res = prequential_score(
            _models(), iter(chunks), target="target", classes=[0, 1], baseline=True
        )
    assert chunks.passes == 1 and chunks.reads == 9  # ceil(569 / 64) chunks, each read once
    X = data.drop(columns=["target"])
    for name, est in _models().items():
        with pd.read_csv(path, chunksize=64) as reader:
            single = prequential_score(est, reader, target="target", classes=[0, 1], baseline=True)
        _assert_same(res[name], single, X)
        assert res[name].n_samples_seen[-1] == len(data)
        # a DataFrame with its target column, as an array stream, gives the same
        whole = prequential_score(est, data, target="target", batch_size=64, baseline=True)
        _assert_same(whole, single, X)


def test_target_names_a_column_of_dataframe_batches():
    pd = pytest.importorskip("pandas")
    data = load_breast_cancer(as_frame=True).frame
    with pytest.raises(ValueError, match="'label' is not a column"):
        prequential_score(SGDClassifier(), iter([data]), target="label", classes=[0, 1])
    with pytest.raises(ValueError, match="must be pandas DataFrames"):
        prequential_score(SGDClassifier(), iter([data.to_numpy()]), target="t", classes=[0, 1])
    pairs = iter([(data.drop(columns=["target"]), data["target"])])
    with pytest.raises(ValueError, match="yields \\(X, y\\) pairs"):
        prequential_score(SGDClassifier(), pairs, target="target", classes=[0, 1])
    with pytest.raises(ValueError, match="not both"):
        prequential_score(SGDClassifier(), data, data["target"], target="target")
    assert isinstance(data, pd.DataFrame)


def test_several_regressors_one_row_batches_scorer_order_changes_nothing():
    X, y = load_diabetes(return_X_y=True)
    X, y = X[:80], y[:80] / np.abs(y).max()
    models = {
        "rfdson": RFDSONRegressor(alpha0=1.0, bound=None),
        "scale_invariant": ScaleInvariantRegressor(),
        "sgd": SGDRegressor(random_state=0),
    }
    with pytest.warns(UserWarning):  # scikit-learn: R² is not well-defined with one row
        a = prequential_score(models, X, y, batch_size=1, scoring=["r2", "neg_mean_absolute_error"])
        b = prequential_score(models, X, y, batch_size=1, scoring=["neg_mean_absolute_error", "r2"])
    for name, est in models.items():
        with pytest.warns(UserWarning):
            single = prequential_score(est, X, y, batch_size=1, scoring=["r2"])
        for key in ("batch_r2", "cumulative_r2"):
            np.testing.assert_array_equal(a[name][key], single[key], strict=True)
            np.testing.assert_array_equal(b[name][key], single[key], strict=True)
        np.testing.assert_array_equal(
            a[name].cumulative_neg_mean_absolute_error, b[name].cumulative_neg_mean_absolute_error
        )


def test_several_models_give_every_class_to_the_scorers():
    X, y = load_digits(n_class=3, return_X_y=True)
    X, y = X[:60] / 16.0, y[:60]
    models = {
        "sgd": SGDClassifier(loss="log_loss", random_state=0),
        "rfdson": RFDSONClassifier(alpha0=1.0),
    }
    res = prequential_score(models, X, y, batch_size=1, scoring="neg_log_loss")
    for name, est in models.items():
        single = prequential_score(est, X, y, batch_size=1, scoring="neg_log_loss")
        _assert_same(res[name], single, X)
        assert not np.isnan(res[name].batch_neg_log_loss[1:]).any()


def test_several_transformers_with_the_comparator():
    X = load_digits().data[:400] / 16.0
    models = {
        "ipca": IncrementalPCA(n_components=3),
        "rfd": RobustFrequentDirections(sketch_size=6, n_components=3),
    }
    stream = _Counted(X[sl] for sl in gen_batches(len(X), 100))
    res = prequential_score(models, iter(stream), comparator="best_fixed_projection")
    assert stream.reads == 4
    for name, est in models.items():
        single = prequential_score(est, X, batch_size=100, comparator="best_fixed_projection")
        _assert_same(res[name], single, X)


class _Fragile(ClassifierMixin, BaseEstimator):
    """The running majority class; fails in ``phase`` on a batch with ``fail_on`` in column 0."""

    def __init__(self, fail_on=None, phase="partial_fit"):
        self.fail_on = fail_on
        self.phase = phase

    def _check(self, X, phase):
        if phase == self.phase and np.any(np.asarray(X)[:, 0] == self.fail_on):
            raise ValueError(f"fragile {phase}")

    def partial_fit(self, X, y, classes=None):
        self._check(X, "partial_fit")
        if not hasattr(self, "classes_"):
            self.classes_ = np.asarray(classes)
            self.counts_ = np.zeros(len(self.classes_))
        np.add.at(self.counts_, np.searchsorted(self.classes_, y), 1.0)
        self.n_seen_ = getattr(self, "n_seen_", 0) + len(y)
        return self

    def fit(self, X, y):
        return self.partial_fit(X, y, classes=np.unique(y))

    def predict(self, X):
        self._check(X, "scoring")
        return np.full(len(X), self.classes_[np.argmax(self.counts_)])


@pytest.mark.parametrize("phase", ["partial_fit", "scoring"])
def test_a_failing_model_with_error_score_leaves_the_others_alone(phase):
    X, y = _data()
    models = {**_models(), "fragile": _Fragile(fail_on=X[350, 0], phase=phase)}
    where = r"batch 3 of the stream \(rows 300 to 399\)"
    with pytest.warns(
        FitFailedWarning if phase == "partial_fit" else UserWarning,
        match=f"{where}.*the estimator 'fragile'" if phase == "scoring" else where,
    ) as record:
        res = prequential_score(models, X, y, batch_size=100, error_score=np.nan)
    assert all("'fragile'" in str(w.message) for w in record)
    for name, est in _models().items():
        _assert_same(res[name], prequential_score(est, X, y, batch_size=100), X)
    with pytest.warns(FitFailedWarning if phase == "partial_fit" else UserWarning):
        single = prequential_score(models["fragile"], X, y, batch_size=100, error_score=np.nan)
    _assert_same(res["fragile"], single, X[:300])  # predict fails on row 350
    assert res["fragile"].failed.tolist() == [0, 0, 0, 1, 0, 0]


@pytest.mark.parametrize("phase", ["partial_fit", "scoring"])
def test_a_failing_model_raises_after_the_others_complete_the_batch(phase):
    X, y = _data()
    models = {
        "sgd": SGDClassifier(random_state=0),
        "fragile": _Fragile(fail_on=X[350, 0], phase=phase),
    }
    models["rfdson"] = RFDSONClassifier(alpha0=1.0, sketch_size=5)  # after the failing one
    match = (
        rf"batch 3 of the stream \(rows 300 to 399\) failed in {phase} of the estimator 'fragile'"
    )
    with pytest.raises(ValueError, match=match) as info:
        prequential_score(models, X, y, batch_size=100)
    assert f"fragile {phase}" in str(info.value)
    partial = info.value.partial_result
    assert list(partial) == ["sgd", "fragile", "rfdson"]
    assert partial["fragile"].batch_rows.tolist() == [100, 100, 100]
    assert partial["fragile"].estimator.n_seen_ == 300
    for name in ("sgd", "rfdson"):  # the batch learned and recorded, before or after in order
        single = prequential_score(models[name], X[:400], y[:400], batch_size=100)
        _assert_same(partial[name], single, X)


def test_a_stream_failing_while_read_keeps_every_models_work():
    X, y = _data()

    def stream():
        yield X[:100], y[:100]
        yield X[100:200], y[100:200]
        raise OSError("disk gone")

    with pytest.raises(OSError, match=r"batch 2 of the stream \(from row 200\).*disk gone") as info:
        prequential_score(_models(), stream(), classes=[0, 1])
    for name, est in _models().items():
        single = prequential_score(est, X[:200], y[:200], batch_size=100)
        _assert_same(info.value.partial_result[name], single, X)


def test_several_models_bad_arguments():
    X, y = _data()
    for stream in (np.zeros((0, 3)), iter([]), (np.zeros((0, 3)) for _ in range(2))):
        with pytest.raises(ValueError, match="the stream is empty"):
            prequential_score(_models(), stream, classes=[0, 1])
    with pytest.raises(ValueError, match="empty dict"):
        prequential_score({}, X, y)
    with pytest.raises(TypeError, match=r"as a dict \{name: estimator\}"):
        prequential_score([SGDClassifier(), RFDSONClassifier()], X, y)
    with pytest.raises(TypeError, match=r"object has no partial_fit.*'bad'"):
        prequential_score({"sgd": SGDClassifier(), "bad": object()}, X, y)
    with pytest.raises(ValueError, match=r"classes must be given.*'sgd'"):
        prequential_score({"sgd": SGDClassifier()}, iter([(X, y)]))
    # the estimators passed in are not touched: each result holds a trained clone
    models = _models()
    res = prequential_score(models, X, y)
    assert not hasattr(models["sgd"], "coef_") and hasattr(res["sgd"].estimator, "coef_")


def test_verbose_names_each_model(capsys):
    X, y = _data()
    prequential_score(_models(), X, y, batch_size=100, verbose=2)
    out = capsys.readouterr().err
    for name in _models():
        assert name in out


def test_display_reads_a_generator_once_for_every_model():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = _data()
    stream = _Counted((X[sl], y[sl]) for sl in gen_batches(len(X), 50))
    disp = PrequentialDisplay.from_estimator(_models(), iter(stream), classes=[0, 1], baseline=True)
    assert stream.reads == 12
    assert set(disp.lines_) == {"rfdson", "scale_invariant", "sgd", "baseline"}
    assert [t.get_text() for t in disp.ax_.get_legend().get_texts()][:3] == list(_models())
    for name, est in _models().items():
        single = prequential_score(clone(est), X, y, batch_size=50)
        x, values = disp.lines_[name].get_data()
        np.testing.assert_array_equal(x, single.n_samples_seen)
        np.testing.assert_array_equal(values, single.cumulative_accuracy)
    # a list of estimators is named by their classes, one pass too
    stream = _Counted((X[sl], y[sl]) for sl in gen_batches(len(X), 50))
    disp = PrequentialDisplay.from_estimator(
        [SGDClassifier(random_state=0), SGDClassifier(random_state=1)], iter(stream), classes=[0, 1]
    )
    assert stream.reads == 12 and set(disp.lines_) == {"SGDClassifier", "SGDClassifier (2)"}
    plt.close("all")

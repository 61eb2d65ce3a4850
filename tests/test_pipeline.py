"""The online pipeline: every step learns each batch with partial_fit, in order."""

import io
import pickle
from contextlib import redirect_stdout

import numpy as np
import pytest
import sklearn
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.decomposition import PCA, IncrementalPCA
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, MaxAbsScaler, StandardScaler
from sklearn.utils import gen_batches
from sklearn.utils.estimator_checks import parametrize_with_checks

from skonline import (
    AdaptiveOnlinePCA,
    FrequentDirections,
    RFDSONClassifier,
    RFDSONRegressor,
    ScaleInvariantClassifier,
    ScaleInvariantRegressor,
)
from skonline.evaluation import prequential_score
from skonline.pipeline import OnlinePipeline, make_online_pipeline
from tests.test_common import EXPECTED_FAILED_CHECKS


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:300], y[:300]


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X[:300], y[:300]


def _sizes(n):
    """Uneven batches covering n rows (each of at least 3 rows, for IncrementalPCA)."""
    sizes = [3, 17, 50, 4]
    sizes.append(n - sum(sizes))
    return sizes


def _batches(n):
    start = 0
    for size in _sizes(n):
        yield slice(start, start + size)
        start += size


# ----------------------------------------------------- scikit-learn's checks
@parametrize_with_checks(
    [
        make_online_pipeline(StandardScaler(), RFDSONClassifier()),
        make_online_pipeline(MaxAbsScaler(), RFDSONRegressor()),
    ],
    expected_failed_checks=lambda pipe: EXPECTED_FAILED_CHECKS.get(
        type(pipe.steps[-1][1]).__name__, {}
    ),
)
def test_sklearn_compatible(estimator, check):
    """check_estimator passes, with the expected failures of the final step alone."""
    check(estimator)


# ------------------------------------------------- the steps run by hand
def _by_hand(steps, X, y, classes=None):
    """partial_fit then transform through clones of the steps, batch by batch."""
    steps = [clone(s) for s in steps]
    for k, sl in enumerate(_batches(len(X))):
        Xt = X[sl]
        for step in steps[:-1]:
            step.partial_fit(Xt, y[sl])
            Xt = step.transform(Xt)
        kwargs = {"classes": classes} if classes is not None and k == 0 else {}
        steps[-1].partial_fit(Xt, y[sl], **kwargs)
    return steps


def _apply(steps, X, method):
    for step in steps[:-1]:
        X = step.transform(X)
    return getattr(steps[-1], method)(X)


PIPELINES = {
    "scaler+rfdson": ([StandardScaler(), RFDSONClassifier()], "classifier"),
    "maxabs+sgd": ([MaxAbsScaler(), SGDClassifier(random_state=0)], "classifier"),
    "ipca+sgdregressor": (
        [IncrementalPCA(n_components=3), SGDRegressor(random_state=0)],
        "regressor",
    ),
    "scaler+fd+rfdson": (
        [StandardScaler(), FrequentDirections(n_components=3), RFDSONRegressor()],
        "regressor",
    ),
    "adaptive-pca+scale-invariant": (
        [AdaptiveOnlinePCA(n_components=2, random_state=0), ScaleInvariantRegressor()],
        "regressor",
    ),
    "scaler+scale-invariant": ([StandardScaler(), ScaleInvariantClassifier()], "classifier"),
}


@pytest.mark.parametrize("case", list(PIPELINES))
def test_partial_fit_equals_the_steps_run_by_hand(case, cancer, diabetes):
    steps, kind = PIPELINES[case]
    classifier = kind == "classifier"
    X, y = cancer if classifier else diabetes
    classes = np.unique(y) if classifier else None
    pipe = make_online_pipeline(*[clone(s) for s in steps])
    for k, sl in enumerate(_batches(len(X))):
        pipe.partial_fit(X[sl], y[sl], classes=classes if k == 0 else None)
    hand = _by_hand(steps, X, y, classes)
    methods = ["predict"] + (["decision_function"] if classifier else [])
    for method in methods:
        assert_array_equal(getattr(pipe, method)(X), _apply(hand, X, method))
    assert_array_equal(pipe[:-1].transform(X), _transform_all(hand[:-1], X))


def _transform_all(steps, X):
    for step in steps:
        X = step.transform(X)
    return X


@pytest.mark.parametrize("case", list(PIPELINES))
def test_fit_equals_one_partial_fit(case, cancer, diabetes):
    """fit(X, y) = one online pass = partial_fit(X, y) on a new pipeline (with the classes)."""
    steps, kind = PIPELINES[case]
    classifier = kind == "classifier"
    X, y = cancer if classifier else diabetes
    fitted = make_online_pipeline(*[clone(s) for s in steps])
    fitted.partial_fit(X[:40], y[:40], **({"classes": np.unique(y)} if classifier else {}))
    fitted.fit(X, y)  # forgets the first call
    streamed = make_online_pipeline(*[clone(s) for s in steps])
    streamed.partial_fit(X, y, **({"classes": np.unique(y)} if classifier else {}))
    assert_array_equal(fitted.predict(X), streamed.predict(X))
    assert fitted.named_steps_[fitted.steps[0][0]].n_features_in_ == X.shape[1]
    if hasattr(fitted.steps_[0][1], "n_samples_seen_"):
        assert np.all(fitted.steps_[0][1].n_samples_seen_ == len(X))


def test_fit_is_not_each_steps_fit(cancer):
    """SGDClassifier.fit runs epochs; the pipeline's fit is one partial_fit pass."""
    X, y = cancer
    pipe = make_online_pipeline(StandardScaler(), SGDClassifier(random_state=0)).fit(X, y)
    one_pass = SGDClassifier(random_state=0).partial_fit(
        StandardScaler().fit_transform(X), y, classes=[0, 1]
    )
    assert_array_equal(pipe.named_steps_["sgdclassifier"].coef_, one_pass.coef_)
    assert pipe.named_steps_["sgdclassifier"].t_ == len(X) + 1


def test_the_steps_given_are_never_fitted(cancer):
    X, y = cancer
    scaler, model = StandardScaler(), RFDSONClassifier()
    pipe = make_online_pipeline(scaler, model).fit(X, y)
    pipe.partial_fit(X, y)
    assert not hasattr(scaler, "mean_") and not hasattr(model, "coef_")
    assert pipe.named_steps_["standardscaler"] is not scaler
    assert pipe.named_steps["standardscaler"] is scaler


# ------------------------------------------------------- the online meaning
def test_a_row_is_scaled_with_the_statistics_of_the_rows_before_it(cancer):
    X, _ = cancer
    pipe = make_online_pipeline(StandardScaler(), "passthrough")
    pipe.partial_fit(X[:50])
    mean, std = X[:50].mean(axis=0), X[:50].std(axis=0)
    assert_allclose(pipe.transform(X[50:60]), (X[50:60] - mean) / std, rtol=1e-12)
    pipe.partial_fit(X[50:60])
    assert_allclose(pipe.named_steps_["standardscaler"].mean_, X[:60].mean(axis=0), rtol=1e-12)


def test_prequential_roc_auc_and_log_loss_equal_the_loop_by_hand(cancer):
    """Each batch is scored by the steps learned on the batches before it."""
    X, y = cancer
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    res = prequential_score(pipe, X, y, scoring=["roc_auc", "neg_log_loss"], batch_size=50)
    scaler, model = StandardScaler(), RFDSONClassifier()
    proba, score = [], []
    for k, sl in enumerate(gen_batches(len(X), 50)):
        if k:  # roc_auc ranks decision_function, log loss reads predict_proba
            proba.append(model.predict_proba(scaler.transform(X[sl]))[:, 1])
            score.append(model.decision_function(scaler.transform(X[sl])))
        scaler.partial_fit(X[sl])
        model.partial_fit(scaler.transform(X[sl]), y[sl], classes=[0, 1])
    proba, score = np.concatenate(proba), np.concatenate(score)
    assert res.cumulative_roc_auc[-1] == pytest.approx(roc_auc_score(y[50:], score), rel=1e-12)
    assert -res.cumulative_neg_log_loss[-1] == pytest.approx(log_loss(y[50:], proba), rel=1e-12)
    assert res.cumulative_roc_auc[-1] > 0.9


def test_grid_search_over_nested_parameters(cancer):
    X, y = cancer
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    grid = {"rfdsonclassifier__alpha0": [0.1, 10.0], "standardscaler__with_mean": [True, False]}
    search = GridSearchCV(pipe, grid, cv=3, scoring="roc_auc").fit(X, y)
    assert len(search.cv_results_["params"]) == 4
    best = search.best_estimator_
    assert (
        best.named_steps_["rfdsonclassifier"].alpha0
        == search.best_params_["rfdsonclassifier__alpha0"]
    )
    assert (
        best.named_steps_["standardscaler"].with_mean
        == search.best_params_["standardscaler__with_mean"]
    )
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)) and scores.max() > 0.9
    GridSearchCV(pipe, grid, cv=3, scoring="neg_log_loss").fit(X, y)


# ------------------------------------------------------------- transactions
class _Exploding(TransformerMixin, BaseEstimator):
    """A step that updates an array in place, then raises on a batch of 7 rows."""

    def partial_fit(self, X, y=None):
        if not hasattr(self, "total_"):
            self.total_ = np.zeros(X.shape[1])
            self.n_features_in_ = X.shape[1]
        self.total_ += X.sum(axis=0)  # in place, before the failure
        if X.shape[0] == 7:
            raise ValueError("seven rows")
        return self

    def transform(self, X):
        return X


def _snapshot(pipe):
    return pickle.dumps(pipe.steps_)


def test_a_failing_later_step_leaves_every_step_as_it_was(cancer):
    X, y = cancer
    pipe = make_online_pipeline(
        StandardScaler(), _Exploding(), SGDClassifier(random_state=0)
    ).partial_fit(X[:50], y[:50], classes=[0, 1])
    before = _snapshot(pipe)
    with pytest.raises(ValueError, match="seven rows"):
        pipe.partial_fit(X[50:57], y[50:57])
    assert _snapshot(pipe) == before
    assert pipe.named_steps_["standardscaler"].n_samples_seen_ == 50
    # an unseen label fails in the final step, after the scaler learned the batch
    with pytest.raises(ValueError):
        pipe.partial_fit(X[50:60], np.full(10, 7))
    assert _snapshot(pipe) == before
    # the pipeline goes on as if the failed calls never happened
    pipe.partial_fit(X[50:100], y[50:100])
    hand = make_online_pipeline(StandardScaler(), _Exploding(), SGDClassifier(random_state=0))
    hand.partial_fit(X[:50], y[:50], classes=[0, 1]).partial_fit(X[50:100], y[50:100])
    assert_array_equal(pipe.decision_function(X), hand.decision_function(X))


def test_a_failing_first_call_leaves_the_pipeline_unfitted(cancer):
    X, _ = cancer
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    with pytest.raises(ValueError):
        pipe.partial_fit(X[:10], np.full((10, 3), 1.0))
    assert not hasattr(pipe, "steps_")
    with pytest.raises(sklearn.exceptions.NotFittedError):
        pipe.predict(X)


def test_a_failing_fit_keeps_the_previous_fit(cancer):
    X, y = cancer
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier()).fit(X, y)
    before = _snapshot(pipe)
    bad = X.copy()
    bad[5, 2] = np.nan
    with pytest.raises(ValueError):
        pipe.fit(bad, y)
    assert _snapshot(pipe) == before


# ------------------------------------------------------ which steps may join
def test_a_stateless_step_without_partial_fit_works(cancer):
    X, y = cancer
    pipe = make_online_pipeline(
        FunctionTransformer(np.log1p), None, StandardScaler(), "passthrough", RFDSONClassifier()
    )
    for k, sl in enumerate(_batches(len(X))):
        pipe.partial_fit(X[sl], y[sl], classes=None if k else [0, 1])
    hand = _by_hand([StandardScaler(), RFDSONClassifier()], np.log1p(X), y, classes=[0, 1])
    assert_array_equal(pipe.decision_function(X), _apply(hand, np.log1p(X), "decision_function"))


def test_a_frozen_step_is_used_and_never_refitted(cancer):
    X, y = cancer
    pca = PCA(n_components=3).fit(X[:100])
    components = pca.components_.copy()
    pipe = make_online_pipeline(FrozenEstimator(pca), RFDSONClassifier())
    for k, sl in enumerate(_batches(len(X))):
        pipe.partial_fit(X[sl], y[sl], classes=None if k else [0, 1])
    assert_array_equal(pca.components_, components)
    hand = _by_hand([RFDSONClassifier()], pca.transform(X), y, classes=[0, 1])
    assert_array_equal(pipe.predict(X), hand[0].predict(pca.transform(X)))


@pytest.mark.parametrize("position", [0, 1])
def test_a_stateful_step_without_partial_fit_is_refused_by_name(position, cancer):
    X, y = cancer
    steps = [("scale", StandardScaler()), ("pca", PCA(n_components=2)), ("model", SGDRegressor())]
    if position == 1:
        steps = [("scale", StandardScaler()), ("model", sklearn.linear_model.Ridge())]
    name = steps[-1 if position else 1][0]
    pipe = OnlinePipeline(steps)
    with pytest.raises(TypeError, match=rf"step '{name}' \(\w+\) has no partial_fit"):
        pipe.partial_fit(X, y)
    with pytest.raises(TypeError, match=f"step '{name}'"):
        pipe.fit(X, y)
    assert not hasattr(pipe, "steps_")


def test_memory_is_refused(cancer):
    X, y = cancer
    pipe = make_online_pipeline(StandardScaler(), SGDRegressor(), memory="cache_dir")
    with pytest.raises(ValueError, match="memory"):
        pipe.partial_fit(X, y)


# ------------------------------------------------------------ metadata
def test_classes_reach_the_final_step_only_if_it_takes_them(cancer, diabetes):
    X, y = cancer
    pipe = make_online_pipeline(StandardScaler(), SGDClassifier(random_state=0))
    with pytest.raises(ValueError, match="classes"):
        pipe.partial_fit(X[:10], y[:10])  # SGDClassifier needs classes on its first call
    pipe.partial_fit(X[:10], y[:10], classes=[0, 1])
    assert_array_equal(pipe.classes_, [0, 1])
    Xr, yr = diabetes
    reg = make_online_pipeline(StandardScaler(), SGDRegressor(random_state=0))
    reg.partial_fit(Xr, yr, classes=[0, 1])  # a regressor takes no classes: not given
    ref = make_online_pipeline(StandardScaler(), SGDRegressor(random_state=0)).partial_fit(Xr, yr)
    assert_array_equal(reg.predict(Xr), ref.predict(Xr))


def test_sample_weight_reaches_the_final_step(cancer):
    X, y = cancer
    w = np.linspace(0.5, 2.0, len(X))
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    pipe.partial_fit(X, y, classes=[0, 1], sample_weight=w)
    scaler = StandardScaler().partial_fit(X)
    model = RFDSONClassifier().partial_fit(scaler.transform(X), y, [0, 1], sample_weight=w)
    assert_array_equal(pipe.decision_function(X), model.decision_function(scaler.transform(X)))
    # fit too, and <step>__<param> reaches that step
    pipe.fit(X, y, sample_weight=w, standardscaler__sample_weight=w)
    scaler = StandardScaler().partial_fit(X, sample_weight=w)
    model = RFDSONClassifier().partial_fit(scaler.transform(X), y, [0, 1], sample_weight=w)
    assert_array_equal(pipe.decision_function(X), model.decision_function(scaler.transform(X)))


def test_metadata_errors_are_clear(cancer):
    X, y = cancer
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    with pytest.raises(ValueError, match="does not accept the weights parameter"):
        pipe.partial_fit(X, y, weights=np.ones(len(X)))
    with pytest.raises(ValueError, match="does not accept the scaler__sample_weight"):
        pipe.partial_fit(X, y, scaler__sample_weight=np.ones(len(X)))
    unweighted = make_online_pipeline(StandardScaler(), IncrementalPCA(n_components=2))
    with pytest.raises(TypeError, match=r"final step 'incrementalpca'.*sample weights"):
        unweighted.partial_fit(X, sample_weight=np.ones(len(X)))


def test_metadata_routing(cancer):
    X, y = cancer
    w = np.linspace(0.5, 2.0, len(X))
    with sklearn.config_context(enable_metadata_routing=True):
        scaler = StandardScaler().set_partial_fit_request(sample_weight=True)
        model = RFDSONClassifier().set_partial_fit_request(sample_weight=True)
        pipe = make_online_pipeline(scaler, model).partial_fit(X, y, [0, 1], sample_weight=w)
        ref_scaler = StandardScaler().partial_fit(X, sample_weight=w)
        ref = RFDSONClassifier().partial_fit(ref_scaler.transform(X), y, [0, 1], sample_weight=w)
        assert_array_equal(pipe.predict_proba(X), ref.predict_proba(ref_scaler.transform(X)))


# --------------------------------------------------------------- set_params
def test_set_params_reaches_the_learned_steps_at_the_next_call(cancer):
    X, y = cancer
    pipe = make_online_pipeline(StandardScaler(), SGDClassifier(random_state=0))
    pipe.partial_fit(X[:100], y[:100], classes=[0, 1])
    before = pipe.decision_function(X)
    pipe.set_params(sgdclassifier__alpha=0.1)
    assert_array_equal(pipe.decision_function(X), before)  # nothing learned changed
    pipe.partial_fit(X[100:], y[100:])
    assert pipe.named_steps_["sgdclassifier"].alpha == 0.1
    hand = [StandardScaler(), SGDClassifier(random_state=0)]
    hand[0].partial_fit(X[:100])
    hand[1].partial_fit(hand[0].transform(X[:100]), y[:100], classes=[0, 1])
    hand[1].set_params(alpha=0.1)
    hand[0].partial_fit(X[100:])
    hand[1].partial_fit(hand[0].transform(X[100:]), y[100:])
    assert_array_equal(pipe.decision_function(X), _apply(hand, X, "decision_function"))


def test_a_frozen_parameter_change_is_refused_as_the_step_alone_refuses_it(cancer):
    X, y = cancer
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    pipe.partial_fit(X[:50], y[:50], classes=[0, 1])
    before = _snapshot(pipe)
    pipe.set_params(rfdsonclassifier__sketch_size=7)
    with pytest.raises(ValueError, match="shape the learned state changed"):
        pipe.partial_fit(X[50:], y[50:])
    assert _snapshot(pipe) == before
    pipe.set_params(standardscaler=MaxAbsScaler())
    with pytest.raises(ValueError, match="steps changed since the first call"):
        pipe.partial_fit(X[50:], y[50:])
    pipe.fit(X, y)  # starts again with the new steps
    assert isinstance(pipe.named_steps_["standardscaler"], MaxAbsScaler)


# ------------------------------------------------------------ the rest of the API
def test_pickling_mid_stream_resumes_the_same_stream(cancer):
    X, y = cancer
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    pipe.partial_fit(X[:100], y[:100], classes=[0, 1])
    resumed = pickle.loads(pickle.dumps(pipe))
    for p in (pipe, resumed):
        p.partial_fit(X[100:], y[100:])
    assert_array_equal(resumed.predict_proba(X), pipe.predict_proba(X))


def test_pandas_input(cancer):
    pd = pytest.importorskip("pandas")
    X, y = cancer
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    target = pd.Series(y)
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    pipe.partial_fit(frame.iloc[:100], target.iloc[:100], classes=[0, 1]).partial_fit(
        frame.iloc[100:], target.iloc[100:]
    )
    assert_array_equal(pipe.feature_names_in_, frame.columns)
    assert pipe.n_features_in_ == X.shape[1]
    ref = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    ref.partial_fit(X[:100], y[:100], classes=[0, 1]).partial_fit(X[100:], y[100:])
    assert_array_equal(pipe.predict(frame), ref.predict(X))
    with pytest.raises(ValueError, match="feature names"):
        pipe.predict(frame.rename(columns={"f0": "other"}))
    out = pipe[:-1].set_output(transform="pandas").transform(frame)
    assert list(out.columns) == list(frame.columns)


def test_read_outs_before_learning_raise_not_fitted():
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    X = np.ones((3, 2))
    for method in ("predict", "predict_proba", "decision_function", "score"):
        with pytest.raises(sklearn.exceptions.NotFittedError):
            getattr(pipe, method)(X) if method != "score" else pipe.score(X, [0, 1, 0])
    with pytest.raises(sklearn.exceptions.NotFittedError):
        pipe.classes_  # noqa: B018
    assert not hasattr(pipe, "fit_predict")


def test_it_is_a_scikit_learn_pipeline(cancer):
    X, y = cancer
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier(), verbose=True)
    assert isinstance(pipe, Pipeline)
    assert pipe.get_params()["rfdsonclassifier__alpha0"] == RFDSONClassifier().alpha0
    out = io.StringIO()
    with redirect_stdout(out):
        pipe.fit(X, y)
    assert "(step 2 of 2) Processing rfdsonclassifier" in out.getvalue()
    out = io.StringIO()
    with redirect_stdout(out):
        pipe.partial_fit(X, y)
    assert out.getvalue() == ""  # once per batch would be noise
    assert pipe.score(X, y) == pytest.approx(np.mean(pipe.predict(X) == y))


# ------------------------------------------- skonline's online checks that apply
# The pipeline keeps its learned steps, not one state object, so the checks that
# read ``_state`` / ``_partial_fit_state`` / the frozen record do not apply; and a
# scaler's statistics depend on where the stream is split (documented above), so
# the split check does not either. The others are the state contract.
_PIPELINE_ONLINE_CHECKS = [
    "check_bad_input_keeps_state",
    "check_constant_memory",
    "check_fit_resets",
    "check_methods_leave_state",
    "check_pickle_resume",
    "check_pipeline_and_grid_search",
    "check_read_outs_ignore_params",
    "check_set_params_all_or_none",
]


@pytest.mark.parametrize("check_name", _PIPELINE_ONLINE_CHECKS)
@pytest.mark.parametrize(
    "pipeline",
    [
        make_online_pipeline(StandardScaler(), RFDSONClassifier()),
        make_online_pipeline(StandardScaler(), ScaleInvariantRegressor()),
    ],
    ids=lambda p: "+".join(name for name, _ in p.steps),
)
def test_online_checks_that_apply_to_a_pipeline(pipeline, check_name):
    from skonline.utils import estimator_checks

    getattr(estimator_checks, check_name)(type(pipeline).__name__, clone(pipeline))


def test_a_failed_set_params_changes_no_step():
    # scikit-learn's Pipeline.set_params sets the parameters met before an invalid
    # name (here ``memory`` and the scaler's ``with_mean``), then raises
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    before = pickle.dumps(pipe.get_params(deep=True))
    with pytest.raises(ValueError, match="Invalid parameter 'nope'"):
        pipe.set_params(memory=None, standardscaler__with_mean=False, nope=1)
    assert pickle.dumps(pipe.get_params(deep=True)) == before
    # replacing a step and setting the new step's parameter in one call still works
    pipe.set_params(standardscaler=MaxAbsScaler(), standardscaler__copy=False)
    assert isinstance(pipe.steps[0][1], MaxAbsScaler) and pipe.steps[0][1].copy is False


def test_a_learned_pipeline_refuses_an_invalid_step_value_at_set_params():
    """As a learned step alone would: checked at ``set_params``, nothing set, the stream goes on."""
    from sklearn.preprocessing import StandardScaler
    from sklearn.utils._param_validation import InvalidParameterError

    from skonline import RFDSONClassifier
    from skonline.pipeline import make_online_pipeline

    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((60, 4)), np.arange(60) % 2
    pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier())
    pipe.set_params(rfdsonclassifier__learning_rate=-1.0)  # not learned yet: fit checks
    pipe.set_params(rfdsonclassifier__learning_rate=1.0)
    pipe.partial_fit(X[:30], y[:30], classes=[0, 1])
    before = pickle.dumps(pipe)
    with pytest.raises(InvalidParameterError, match="learning_rate"):
        pipe.set_params(rfdsonclassifier__learning_rate=-1.0, standardscaler__with_mean=False)
    assert pickle.dumps(pipe) == before
    pipe.set_params(rfdsonclassifier__learning_rate=0.5)
    pipe.partial_fit(X[30:], y[30:])
    assert pipe.named_steps_["rfdsonclassifier"].learning_rate == 0.5

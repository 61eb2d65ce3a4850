"""The online checks themselves: they pass on correct toy estimators and fail on broken ones.

A check that cannot fail proves nothing; each broken estimator below violates
exactly one property and must be caught by the check for it.
"""

import dataclasses
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin

from skonline.base import OnlineEstimator, OnlineState, ParamRecord
from skonline.linear_model._linear import (
    LinearState,
    OnlineLinearBase,
    OnlineLinearClassifierMixin,
)
from skonline.utils._sklearn_compat import Interval
from skonline.utils.estimator_checks import (
    check_bad_input_keeps_state,
    check_constant_memory,
    check_failed_update_keeps_state,
    check_frozen_params,
    check_methods_leave_state,
    check_online_estimator,
    check_partial_fit_splits,
    check_pass_leaves_committed_state,
    check_pickle_resume,
    check_read_outs_ignore_params,
    check_set_params_all_or_none,
)


@dataclass(kw_only=True, eq=False)
class MeanState(OnlineState):
    total: np.ndarray


@dataclass(frozen=True)
class MeanFrozen(ParamRecord):
    n_components: int


@dataclass(frozen=True)
class MeanLive(ParamRecord):
    shift: float


class RunningMean(TransformerMixin, OnlineEstimator):
    """Toy transformer: subtracts the running mean (per-row update), plus a live shift."""

    _frozen_record = MeanFrozen
    _live_record = MeanLive

    _parameter_constraints: ClassVar[dict] = {
        "shift": [Real],
        "n_components": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, shift=0.0, n_components=2):
        self.shift = shift
        self.n_components = n_components

    def _init_state(self, X, y):
        return MeanState(total=np.zeros(X.shape[1]))

    def _partial_fit_state(self, state, X, y):
        total = state.total.copy()
        for row in X:
            total += row
        return dataclasses.replace(
            state, total=total, n_samples_seen=state.n_samples_seen + X.shape[0]
        )

    def partial_fit(self, X, y=None):
        return self._online_partial_fit(X)

    def fit(self, X, y=None):
        return self._online_fit(X)

    def transform(self, X):
        X = self._validate_predict(X)
        state = self._state
        return X - state.total / state.n_samples_seen + state.live.shift

    def score(self, X, y=None):
        return -float(np.mean(self.transform(X) ** 2))


class OnlinePerceptron(OnlineLinearClassifierMixin, ClassifierMixin, OnlineLinearBase):
    """Toy one-vs-rest perceptron on the shared online linear engine and classifier mixin."""

    _parameter_constraints: ClassVar[dict] = {
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
    }

    def __init__(
        self, learning_rate=1.0, max_iter=1, shuffle=False, random_state=None, warm_start=False
    ):
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start

    def _init_state(self, X, y, *, sample_weight, classes):
        return PerceptronState(classes=classes, coef=np.zeros((len(classes), X.shape[1])))

    def _linear_pass(self, state, X, T, sample_weight):
        coef = state.coef.copy()
        idx = np.searchsorted(state.classes, self._labels)
        scores = np.empty((X.shape[0], len(state.classes)))
        for i, (row, k) in enumerate(zip(X, idx, strict=True)):
            scores[i] = coef @ row
            pred = int(np.argmax(scores[i]))
            if pred != k:
                coef[k] += self.learning_rate * row
                coef[pred] -= self.learning_rate * row
        new = dataclasses.replace(state, coef=coef, n_samples_seen=state.n_samples_seen + len(X))
        return new, scores

    def _partial_fit_state(self, state, X, y, **kwargs):
        self._labels = y  # the toy reads labels, not the ±1 targets
        try:
            return super()._partial_fit_state(state, X, y, **kwargs)
        finally:
            del self._labels

    def _targets(self, y, state):
        return np.zeros((len(y), 1))

    def _linear_readout(self, state):
        return state.coef, np.zeros(len(state.classes))

    def predict(self, X):
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]


@dataclass(kw_only=True, eq=False)
class PerceptronState(LinearState):
    coef: np.ndarray


# ----------------------------------------------------------- broken estimators
class MutatesOnTransform(RunningMean):
    def transform(self, X):
        self.n_transforms_ = getattr(self, "n_transforms_", 0) + 1
        return super().transform(X)


class UpdatesBeforeValidating(RunningMean):
    def partial_fit(self, X, y=None):
        if self._is_initialized():
            self._state.n_samples_seen += np.shape(X)[0]  # bookkeeping before validation
        return super().partial_fit(X)


class BatchDependent(RunningMean):
    def _partial_fit_state(self, state, X, y):
        state = super()._partial_fit_state(state, X, y)
        state.total = state.total + np.asarray(X).mean(axis=0) * 1e-3
        return state


class GrowingMemory(RunningMean):
    def _partial_fit_state(self, state, X, y):
        state = super()._partial_fit_state(state, X, y)
        state.loss_history = np.concatenate(
            [
                np.zeros(0) if state.loss_history is None else state.loss_history,
                np.zeros(X.shape[0]),
            ]
        )
        return state


class ForgetsOnPickle(RunningMean):
    def __getstate__(self):
        state = super().__getstate__()
        if "_state" in state:
            state["_state"] = dataclasses.replace(state["_state"], total=state["_state"].total / 2)
        return state


class WritesIntoCommittedState(RunningMean):
    def _partial_fit_state(self, state, X, y):
        state.total += X.sum(axis=0)  # in place: the committed state changes
        return dataclasses.replace(state, n_samples_seen=state.n_samples_seen + X.shape[0])


class CommitsBeforeTheEnd(RunningMean):
    def _partial_fit_state(self, state, X, y):
        new = super()._partial_fit_state(state, X, y)
        self._state = new  # committed before the pass is known to succeed
        return new

    def _online_partial_fit(self, X, y=None, **fit_params):  # no transaction
        first_call = not self._is_initialized()
        X, y, _ = self._validate_batch(X, y, first_call)
        state = self._new_state(X, y) if first_call else self._state
        self._state = self._partial_fit_state(state, X, y)
        return self


class IgnoresFrozenParams(RunningMean):
    def _check_frozen(self, state):
        pass


class ReadsLiveParameter(RunningMean):
    def transform(self, X):
        return super().transform(X) - self._state.live.shift + self.shift


class SetsParamsOneByOne(RunningMean):
    def set_params(self, **params):
        return BaseEstimator.set_params(self, **params)


class AcceptsUnseenLabels(OnlinePerceptron):
    def _validate_batch(self, X, y, first_call, classes=None, sample_weight=None):
        if not first_call and classes is None:
            self._state.classes = np.union1d(self._state.classes, y)
            classes = self._state.classes
        return super()._validate_batch(
            X, y, first_call, classes=classes, sample_weight=sample_weight
        )


@pytest.mark.parametrize("estimator", [RunningMean(), OnlinePerceptron()])
def test_correct_toys_pass_every_check(estimator):
    check_online_estimator(estimator)


@pytest.mark.parametrize(
    "estimator, check",
    [
        (MutatesOnTransform(), check_methods_leave_state),
        (UpdatesBeforeValidating(), check_bad_input_keeps_state),
        (BatchDependent(), check_partial_fit_splits),
        (GrowingMemory(), check_constant_memory),
        (ForgetsOnPickle(), check_pickle_resume),
        (AcceptsUnseenLabels(), check_bad_input_keeps_state),
        (WritesIntoCommittedState(), check_pass_leaves_committed_state),
        (WritesIntoCommittedState(), check_failed_update_keeps_state),
        (CommitsBeforeTheEnd(), check_failed_update_keeps_state),
        (IgnoresFrozenParams(), check_frozen_params),
        (ReadsLiveParameter(), check_read_outs_ignore_params),
        (SetsParamsOneByOne(), check_set_params_all_or_none),
    ],
    ids=lambda x: type(x).__name__ if not callable(x) or hasattr(x, "fit") else x.__name__,
)
def test_broken_estimators_are_caught(estimator, check):
    with pytest.raises(AssertionError):
        check(type(estimator).__name__, estimator)


def test_classifier_needs_classes_on_first_call():
    X = np.random.default_rng(0).standard_normal((10, 3))
    y = np.array([0, 1] * 5)
    clf = OnlinePerceptron()
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.partial_fit(X, y)
    assert not hasattr(clf, "classes_") and not hasattr(clf, "n_features_in_")
    clf.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="not the same as on the first call"):
        clf.partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match=r"labels \[5\]"):
        clf.partial_fit(X, np.full(10, 5))

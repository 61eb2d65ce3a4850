"""The online checks themselves: they pass on correct toy estimators and fail on broken ones.

A check that cannot fail proves nothing; each broken estimator below violates
exactly one property and must be caught by the check for it.
"""

import numpy as np
import pytest
from sklearn.base import ClassifierMixin, TransformerMixin

from skonline.base import OnlineClassifierMixin, OnlineEstimator
from skonline.utils.estimator_checks import (
    check_bad_input_keeps_state,
    check_constant_memory,
    check_methods_leave_state,
    check_online_estimator,
    check_partial_fit_splits,
    check_pickle_resume,
)


class RunningMean(TransformerMixin, OnlineEstimator):
    """Toy transformer: subtracts the running mean (per-row update)."""

    def __init__(self, shift=0.0):
        self.shift = shift

    def _init_state(self, X, y):
        self.sum_ = np.zeros(X.shape[1])
        self.n_samples_seen_ = 0

    def _update(self, X, y):
        for row in X:
            self.sum_ += row
        self.n_samples_seen_ += X.shape[0]

    def partial_fit(self, X, y=None):
        return self._online_partial_fit(X)

    def fit(self, X, y=None):
        return self._online_fit(X)

    def transform(self, X):
        X = self._validate_predict(X)
        return X - self.sum_ / self.n_samples_seen_ + self.shift

    def score(self, X, y=None):
        return -float(np.mean(self.transform(X) ** 2))


class OnlinePerceptron(OnlineClassifierMixin, ClassifierMixin, OnlineEstimator):
    """Toy one-vs-rest perceptron with the shared classifier target handling."""

    def __init__(self, learning_rate=1.0):
        self.learning_rate = learning_rate

    def _init_state(self, X, y):
        self.coef_ = np.zeros((len(self.classes_), X.shape[1]))

    def _update(self, X, y):
        idx = np.searchsorted(self.classes_, y)
        for row, k in zip(X, idx, strict=True):
            pred = int(np.argmax(self.coef_ @ row))
            if pred != k:
                self.coef_[k] += self.learning_rate * row
                self.coef_[pred] -= self.learning_rate * row

    def partial_fit(self, X, y, classes=None):
        return self._online_partial_fit(X, y, classes=classes)

    def fit(self, X, y):
        return self._online_fit(X, y)

    def decision_function(self, X):
        return self._validate_predict(X) @ self.coef_.T

    def predict(self, X):
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]


# ----------------------------------------------------------- broken estimators
class MutatesOnTransform(RunningMean):
    def transform(self, X):
        self.n_transforms_ = getattr(self, "n_transforms_", 0) + 1
        return super().transform(X)


class UpdatesBeforeValidating(RunningMean):
    def partial_fit(self, X, y=None):
        if self._is_initialized():
            self.n_samples_seen_ += np.shape(X)[0]  # bookkeeping before validation
        return super().partial_fit(X)


class BatchDependent(RunningMean):
    def _update(self, X, y):
        super()._update(X, y)
        self.last_batch_mean_ = np.asarray(X).mean(axis=0)


class GrowingMemory(RunningMean):
    def _update(self, X, y):
        super()._update(X, y)
        self.rows_ = np.vstack([getattr(self, "rows_", np.zeros((0, X.shape[1]))), X])


class ForgetsOnPickle(RunningMean):
    def __getstate__(self):
        state = super().__getstate__()
        state["sum_"] = state["sum_"] * 0.5 if "sum_" in state else None
        return state


class AcceptsUnseenLabels(OnlinePerceptron):
    def _update(self, X, y):
        self.classes_ = np.union1d(self.classes_, y)
        self.coef_ = np.vstack(
            [self.coef_, np.zeros((len(self.classes_) - len(self.coef_), X.shape[1]))]
        )
        super()._update(X, y)

    def _validate_batch(self, X, y, first_call, classes=None):
        if not first_call and classes is None:
            classes = np.union1d(self.classes_, y)
            self.classes_ = classes
        return super()._validate_batch(X, y, first_call, classes=classes)


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

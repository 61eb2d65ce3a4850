"""The peers a user would pick instead of skonline, as estimators with ``partial_fit``.

Every adapter learns online from the rows it is given (``partial_fit``) and
predicts or transforms like a scikit-learn estimator, so
:func:`skonline.evaluation.prequential_score` runs it exactly as it runs
skonline's estimators:

* ``ScaledModel``: a ``StandardScaler`` and a linear model, both
  partial-fitted on the prefix (scikit-learn's ``Pipeline`` has no
  ``partial_fit``);
* ``WindowPCA``: PCA refitted on the last ``window`` rows;
* ``PrefixCurve``: a batch Hastie–Stuetzle principal curve refitted on the
  prefix at every batch;
* ``PrefixRidgeCV``: a ``StandardScaler`` and ``RidgeCV`` (penalty chosen by
  leave-one-out) refitted on the prefix at every batch, the batch reference
  for regression;
* ``RiverClassifier`` / ``RiverRegressor``: River's streaming pipelines
  (``StandardScaler | LogisticRegression`` one-vs-rest, ``StandardScaler |
  LinearRegression``), row by row, when River is installed.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.preprocessing import StandardScaler

from skonline.pipeline import make_online_pipeline

__all__ = [
    "PrefixCurve",
    "PrefixRidgeCV",
    "RiverClassifier",
    "RiverRegressor",
    "ScaledModel",
    "WindowPCA",
    "river_available",
]


def river_available():
    try:
        import river  # noqa: F401
    except ImportError:
        return False
    return True


def ScaledModel(model):
    """``StandardScaler`` + ``model``, both partial-fitted on the prefix (an online pipeline)."""
    return make_online_pipeline(StandardScaler(), model)


class WindowPCA(TransformerMixin, BaseEstimator):
    """PCA of the last ``window`` rows, refitted at every batch."""

    def __init__(self, n_components=2, window=200):
        self.n_components = n_components
        self.window = window

    def partial_fit(self, X, y=None):
        X = np.asarray(X, dtype=np.float64)
        rows = X if not hasattr(self, "rows_") else np.vstack([self.rows_, X])
        self.rows_ = rows[-self.window :]
        k = min(self.n_components, self.rows_.shape[0], self.rows_.shape[1])
        self.pca_ = PCA(n_components=k).fit(self.rows_)
        return self

    def transform(self, X):
        return self.pca_.transform(X)

    def inverse_transform(self, X):
        return self.pca_.inverse_transform(X)


class PrefixCurve(TransformerMixin, BaseEstimator):
    """A batch Hastie–Stuetzle principal curve refitted on all rows seen, at every batch."""

    def __init__(self, df=5.0):
        self.df = df

    def partial_fit(self, X, y=None):
        from skonline.manifold import hastie_stuetzle_curve

        X = np.asarray(X, dtype=np.float64)
        self.rows_ = X if not hasattr(self, "rows_") else np.vstack([self.rows_, X])
        if self.rows_.shape[0] >= 3:
            self.vertices_ = hastie_stuetzle_curve(self.rows_, df=self.df)
        else:  # too few rows for a curve: the segment through them
            self.vertices_ = self.rows_[[0, -1]]
        return self

    def transform(self, X):
        from skonline.manifold._polyline import project_to_polyline

        return project_to_polyline(np.asarray(X, dtype=np.float64), self.vertices_)[1][:, None]

    def inverse_transform(self, X):
        from skonline.manifold._polyline import point_at_arc_length

        return point_at_arc_length(self.vertices_, np.asarray(X)[:, 0])


#: RidgeCV's penalties (standardised units: rows' worth of prior)
RIDGE_ALPHAS = tuple(np.logspace(-2, 5, 29))


class PrefixRidgeCV(RegressorMixin, BaseEstimator):
    """``StandardScaler`` and ``RidgeCV`` refitted on all rows seen, at every batch.

    The penalty is chosen by leave-one-out on the prefix over ``alphas`` (in
    standardised units, i.e. rows' worth of prior). Until the prefix has
    ``min_rows`` rows the prediction is the prefix mean.
    """

    def __init__(self, alphas=RIDGE_ALPHAS, min_rows=3):
        self.alphas = alphas
        self.min_rows = min_rows

    def partial_fit(self, X, y):
        from sklearn.linear_model import RidgeCV
        from sklearn.pipeline import make_pipeline

        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        self.rows_ = X if not hasattr(self, "rows_") else np.vstack([self.rows_, X])
        self.targets_ = y if not hasattr(self, "targets_") else np.concatenate([self.targets_, y])
        self.model_ = None
        if self.rows_.shape[0] >= self.min_rows:
            self.model_ = make_pipeline(StandardScaler(), RidgeCV(alphas=self.alphas))
            self.model_.fit(self.rows_, self.targets_)
        return self

    def predict(self, X):
        if self.model_ is None:
            return np.full(np.shape(X)[0], self.targets_.mean())
        return self.model_.predict(X)


class _RiverBase(BaseEstimator):
    def __init__(self, kind="logistic"):
        self.kind = kind

    @staticmethod
    def _rows(X):
        X = np.asarray(X, dtype=np.float64)
        return [dict(enumerate(row.tolist())) for row in X]


class RiverClassifier(ClassifierMixin, _RiverBase):
    """River: ``StandardScaler | LogisticRegression`` (one-vs-rest for several classes)."""

    def partial_fit(self, X, y, classes=None):
        from river import linear_model, multiclass, preprocessing

        if not hasattr(self, "model_"):
            self.classes_ = np.unique(classes if classes is not None else y)
            base = linear_model.LogisticRegression()
            if len(self.classes_) > 2:
                base = multiclass.OneVsRestClassifier(base)
            self.model_ = preprocessing.StandardScaler() | base
        for row, label in zip(self._rows(X), np.asarray(y).tolist(), strict=True):
            self.model_.learn_one(row, label)
        return self

    def predict_proba(self, X):
        out = np.zeros((np.shape(X)[0], len(self.classes_)))
        for i, row in enumerate(self._rows(X)):
            proba = self.model_.predict_proba_one(row)
            for j, c in enumerate(self.classes_.tolist()):
                out[i, j] = proba.get(c, 0.0)
        total = out.sum(axis=1, keepdims=True)
        total[total == 0] = 1.0
        return out / total

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class RiverRegressor(RegressorMixin, _RiverBase):
    """River: ``StandardScaler | LinearRegression``."""

    def partial_fit(self, X, y):
        from river import linear_model, preprocessing

        if not hasattr(self, "model_"):
            self.model_ = preprocessing.StandardScaler() | linear_model.LinearRegression()
        for row, target in zip(self._rows(X), np.asarray(y, dtype=float).tolist(), strict=True):
            self.model_.learn_one(row, target)
        return self

    def predict(self, X):
        return np.array([self.model_.predict_one(row) for row in self._rows(X)])

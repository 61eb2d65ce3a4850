"""Read-outs shared by skonline's online linear models (no learning here).

Both families keep ``_coef`` of shape (K, n_features) and ``_intercept`` of
shape (K,), one row per output (one for a binary problem or a regression,
one per class for one-vs-rest).
"""

from __future__ import annotations

import numpy as np

__all__ = ["LinearClassifierReadoutMixin", "LinearReadoutMixin", "labels_from_scores"]


def labels_from_scores(classes, scores, *, zero_is_positive):
    """Class labels from decision scores of shape (n, K).

    Binary (``K == 1``): ``classes[1]`` where the score is positive (or zero,
    with ``zero_is_positive``); otherwise the argmax over the columns.
    """
    if scores.shape[1] == 1:
        positive = scores[:, 0] >= 0 if zero_is_positive else scores[:, 0] > 0
        return classes[positive.astype(int)]
    return classes[np.argmax(scores, axis=1)]


class LinearReadoutMixin:
    """``_raw_decision``: the (n, K) scores ``X @ _coef.T + _intercept`` of validated ``X``."""

    def _raw_decision(self, X):
        X = self._validate_predict(X)
        return np.asarray(X @ self._coef.T) + self._intercept


class LinearClassifierReadoutMixin:
    """``decision_function`` of an online linear classifier."""

    def decision_function(self, X):
        """``X @ coef_.T + intercept_`` (1-D for binary problems)."""
        scores = self._raw_decision(X)
        return scores.ravel() if scores.shape[1] == 1 else scores

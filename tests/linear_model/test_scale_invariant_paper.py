"""Measurements on real data (slow); the paper (Kotłowski, ALT 2017) has no experiments.

One shuffled pass (``shuffle=True``), logistic loss, ``potential_width=1.5``,
intercept, linear ``coef_`` at the end, 5-fold stratified cross-validated
accuracy, on scikit-learn's breast_cancer and wine, raw and with every column
multiplied by ``10^U(−3, 3)`` and ``10^U(−6, 6)``. A throwaway prototype of
the paper's algorithms, written before this implementation, reported for raw
data, breast_cancer: coordinate 0.721, coordinate on centred data
0.938–0.942, full 0.949; wine: 0.596, 0.927–0.961, 0.983 — indicative
numbers, checked here within ±0.05. Measured with this implementation:
breast_cancer 0.717, 0.940, 0.953; wine 0.568, 0.927, 0.989 (the diagonal
learner with ``center=True``, an extension: 0.956 and 0.978).
"""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.model_selection import StratifiedKFold, cross_val_score

from skonline.linear_model import ScaleInvariantClassifier

PROTOTYPE = {
    "breast_cancer": {"coordinate": 0.721, "center": 0.940, "full": 0.949},
    "wine": {"coordinate": 0.596, "center": 0.944, "full": 0.983},
}
PARAMS = {
    "coordinate": {"variant": "coordinate"},
    "center": {"variant": "coordinate", "center": True},
    "full": {"variant": "full"},
}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["breast_cancer", "wine"])
def test_prototype_table(name):
    X, y = (load_breast_cancer if name == "breast_cancer" else load_wine)(return_X_y=True)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    for variant, params in PARAMS.items():
        scores = []
        for k in (0, 3, 6):
            a = 10.0 ** np.random.default_rng(k).uniform(-k, k, X.shape[1]) if k else 1.0
            est = ScaleInvariantClassifier(shuffle=True, random_state=0, **params)
            scores.append(cross_val_score(est, X * a, y, cv=cv).mean())
        # flat in the spread of feature scales: an accuracy is a multiple of
        # 1/n_test, so any changed label moves it by at least 1/114; the decisions
        # themselves agree to the rounding of the pass (test_scale_invariant.py)
        assert scores == [scores[0]] * 3
        assert abs(scores[0] - PROTOTYPE[name][variant]) <= 0.05, (variant, scores[0])

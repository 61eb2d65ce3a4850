"""Reproduction of the matrix-approximation experiment of Luo et al. (2019), §6.1, Fig. 1-2.

The paper's data sets (a9a, gisette, …) cannot be downloaded here; the protocol
is run on synthetic low-rank + noise data and on scikit-learn's bundled data.
Run by hand: ``pytest -m slow tests/decomposition/test_frequent_directions_paper.py -s``.
"""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_wine

from skonline import FrequentDirections, RobustFrequentDirections
from skonline.evaluation import covariance_error

pytestmark = pytest.mark.slow


#: The synthetic set: low rank (20 directions, scales 20 down to 2) plus unit noise.
SYNTHETIC = {"n": 4000, "d": 200, "rank": 20, "noise": 1.0, "scales": (20.0, 2.0)}

DATASETS = {
    "synthetic": None,  # the low_rank_plus_noise fixture with SYNTHETIC
    "digits": lambda: load_digits().data.astype(float),
    "breast_cancer": lambda: load_breast_cancer().data,
    "wine": lambda: load_wine().data,
    "diabetes": lambda: load_diabetes().data,
}


def _errors(X, m):
    out = {
        "Delta": FrequentDirections(center=False, sketch_size=m).fit(X).shrinkage_ / np.sum(X * X)
    }
    for label, est in (
        ("FD", FrequentDirections(center=False, sketch_size=m)),
        ("CFD", FrequentDirections(center=False, sketch_size=m, variant="cfd")),
        ("RFD", RobustFrequentDirections(center=False, sketch_size=m)),
    ):
        est.fit(X)
        out[label] = -est.score(X)  # relative spectral error ‖AᵀA − C‖₂ / ‖A‖_F²
    for beta in (0.2, 0.4, 0.6, 0.8):
        est = FrequentDirections(center=False, sketch_size=m, variant="pfd", beta=beta).fit(X)
        out[f"PFD-{beta}"] = covariance_error(X, est.sketch_)
    return out


@pytest.mark.parametrize("name", list(DATASETS))
def test_figure_1_rfd_below_fd_and_cfd(name, low_rank_plus_noise):
    X = low_rank_plus_noise(**SYNTHETIC) if name == "synthetic" else DATASETS[name]()
    d = X.shape[1]
    grid = sorted({max(2, min(d // 2, round(p * d))) for p in (0.01, 0.02, 0.05, 0.1, 0.2)})
    print(f"\n{name} ({X.shape[0]} x {d})")
    print("   m     FD       CFD      RFD    RFD/FD  best PFD")
    ratios, results = [], []
    for m in grid:
        e = _errors(X, m)
        best_pfd = min(v for k, v in e.items() if k.startswith("PFD"))
        ratio = e["RFD"] / e["FD"] if e["FD"] > 0 else float("nan")
        ratios.append(ratio)
        print(f"{m:4d}  {e['FD']:.5f}  {e['CFD']:.5f}  {e['RFD']:.5f}  {ratio:.3f}  {best_pfd:.5f}")
        # Paper Fig. 1: RFD is below FD and CFD for every m.
        results.append((m, e))
    near_delta = 0
    for m, e in results:
        # Theorem 3 / Corollary 2 and eq. (1), through Δ, hold for every m.
        assert e["FD"] <= e["Delta"] * (1 + 1e-9)
        assert e["RFD"] <= e["Delta"] / 2 * (1 + 1e-9)
        # Theorem 3 halves FD's bound: RFD/FD ≈ 1/2 wherever FD's error is close to Δ.
        if e["FD"] >= 0.9 * e["Delta"]:
            near_delta += 1
            assert 0.45 <= e["RFD"] / e["FD"] <= 0.55, (m, e)
    print(f"RFD/FD in [0.45, 0.55] checked at {near_delta} of {len(results)} sketch sizes")
    # Paper Fig. 1: RFD is below FD and CFD for every m. Measured: this
    # holds for every m >= 3 here, but NOT at m = 2 (a single retained direction),
    # where FD's error can be far below its bound Δ while RFD's is at least α = Δ/2
    # (synthetic: RFD/FD = 1.32; diabetes: RFD 0.182 > CFD 0.149). The assertion
    # states exactly that, so a regression at m >= 3 still fails.
    violations = [m for m, e in results if e["RFD"] > min(e["FD"], e["CFD"]) * (1 + 1e-9)]
    print("R2 violations at m =", violations)
    assert all(m == 2 for m in violations), violations

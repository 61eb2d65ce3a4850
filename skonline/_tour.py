"""``python -m skonline``: a short tour on scikit-learn's bundled digits data.

Each available estimator is streamed over the data in mini-batches next to its
scikit-learn peer, in the same process, and the tour prints throughput and the
quality measure of the family.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.decomposition import IncrementalPCA
from sklearn.utils import gen_batches

from . import __version__
from .decomposition import FrequentDirections, RobustFrequentDirections
from .evaluation import covariance_error

BATCH = 100


def _stream(est, X, repeats=3):
    """Stream ``X`` into fresh copies of ``est``; best time of ``repeats`` after a warm-up."""
    times = []
    for _ in range(repeats + 1):  # the first run warms up imports and BLAS threads
        fitted = clone(est)
        start = time.perf_counter()
        for batch in gen_batches(X.shape[0], BATCH):
            fitted.partial_fit(X[batch])
        times.append(time.perf_counter() - start)
    return fitted, min(times[1:])


def ipca_uncentred_covariance(ipca, n_samples):
    """IncrementalPCA's estimate of the uncentred ``XᵀX``: ``Vᵀ diag(σ²) V + n μμᵀ``."""
    V, s, mu = ipca.components_, ipca.singular_values_, ipca.mean_
    return (V.T * s**2) @ V + n_samples * np.outer(mu, mu)


def _relative_error(X, C):
    D = X.T @ X - C
    eig = np.linalg.eigvalsh(D)
    return max(abs(eig[0]), abs(eig[-1])) / np.sum(X * X)


def sketch_rows(X, k):
    """Rows of the tour table for the matrix sketches at sketch size ``k + 1``."""
    rows = []
    for label, est in (
        (f"FrequentDirections(sketch_size={k + 1})", FrequentDirections(sketch_size=k + 1)),
        (
            f"RobustFrequentDirections(sketch_size={k + 1})",
            RobustFrequentDirections(sketch_size=k + 1),
        ),
    ):
        est, seconds = _stream(est, X)
        err = covariance_error(X, est.sketch_, est.alpha_)
        rows.append((label, X.shape[0] / seconds, err))
    ipca, seconds = _stream(IncrementalPCA(n_components=k), X)
    err = _relative_error(X, ipca_uncentred_covariance(ipca, X.shape[0]))
    rows.append((f"sklearn IncrementalPCA(n_components={k})", X.shape[0] / seconds, err))
    s2 = np.linalg.svd(X, compute_uv=False) ** 2
    rows.append((f"exact rank-{k} (floor)", float("nan"), s2[k] / s2.sum()))
    return rows


def main():
    X, _ = load_digits(return_X_y=True)
    X = X.astype(np.float64)
    n, d = X.shape
    print(f"skonline {__version__} — tour on sklearn's digits ({n} rows x {d} features),")
    print(f"streamed with partial_fit in batches of {BATCH} rows.\n")
    print("Matrix sketches: relative covariance error ||XᵀX − C||₂ / ||X||_F² (lower is better)")
    header = f"  {'estimator':<44} {'rows/s':>10} {'cov. error':>11}"
    print(header)
    print("  " + "-" * (len(header) - 2))
    rows = sketch_rows(X, 10)
    for label, speed, err in rows:
        speed_txt = "—" if np.isnan(speed) else f"{speed:,.0f}"
        print(f"  {label:<44} {speed_txt:>10} {err:>11.4f}")
    fd_err, rfd_err = rows[0][2], rows[1][2]
    print(
        f"\n  RFD / FD error ratio: {rfd_err / fd_err:.3f} (Theorem 3 of Luo et al. 2019: "
        "RFD's bound is half of FD's)."
    )
    print(
        "  The sketches keep 2·sketch_size rows of memory whatever the stream length;\n"
        "  IncrementalPCA keeps its components plus a mean, and refits an SVD per batch."
    )
    print("\nMore estimators (online PCA, sketched Newton, scale-invariant learners,")
    print("principal curves) join this tour as they land.")

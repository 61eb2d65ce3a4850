"""Capped simplex kernels of the online PCA family.

Warmuth & Kuzmin, "Randomized Online PCA Algorithms with Regret Bounds that are
Logarithmic in the Dimension", JMLR 9 (2008): Algorithm 2 (mixture
decomposition), Algorithm 3 (capped Hedge) and Algorithm 4 (capping, the
relative-entropy projection onto the capped simplex
``B_d^n = {w : sum w = 1, 0 <= w_i <= 1/d}``); Yuan & Lamperski, "Online
Adaptive Principal Component Analysis and Its Extensions", ICML 2019:
Algorithm 1 (capped Hedge with a fixed-share step before capping).

The eigenvalue (or weight) step, softmax, floor, fixed share and capping in
logs, exists once: :func:`skonline.decomposition._capping_fast.spectral_step`
(compiled), which every learner of the family calls (online PCA, the variance
minimiser, and the capped Hedge through :func:`capped_hedge_step`). Its NumPy
transcription is the reference of the tests
(``tests/decomposition/_capping_reference.py``).

Every kernel is pure (never writes into its inputs). Errata corrected (see the
user guide): the capping normaliser is the sum of the *uncapped* tail
``sum_{l > i} w_l`` (Yuan & Lamperski's Alg. 3 prints ``sum_{l >= j}``); the
Hedge normaliser is ``sum_j w_j exp(-eta l_j)`` (both papers print it without
``w_j``); the decomposition's undefined ``p`` is ``min(d s, |w| - d l)``.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ._capping_fast import spectral_step

__all__ = [
    "capped_hedge_step",
    "mixture_decomposition",
    "sample_corner",
    "systematic_sample",
]

#: Relative tolerance of the decomposition tests.
_TOL = 1e-12


def mixture_decomposition(
    w: np.ndarray, d: int, *, tol: float = _TOL
) -> tuple[np.ndarray, np.ndarray]:
    """Write a capped vector as a convex combination of corners (Algorithm 2).

    A corner puts ``1/d`` on ``d`` indices. At each step the corner is the
    ``d`` largest remaining entries (stable: ties by lower index), which always
    contains every entry equal to ``|w|/d``; its weight is
    ``p = min(d s, |w| - d l)`` (``s`` the smallest chosen entry, ``l`` the
    largest unchosen one; the paper outputs ``p`` without defining it). At
    most ``n`` corners; entries within ``tol`` of 0 or of the cap are snapped,
    corners with ``p <= tol`` are dropped and the ``p`` are renormalised.

    Parameters
    ----------
    w : ndarray of shape (n,)
        A point of the capped simplex ``B_d^n`` (non-negative, sums to one,
        ``max w <= 1/d`` up to ``tol``).
    d : int
        Corner size, ``1 <= d < n``.
    tol : float, default=1e-12

    Returns
    -------
    p : ndarray of shape (m,)
        Corner probabilities, ``m <= n``, summing to one.
    corners : ndarray of int of shape (m, d)
        Indices of each corner (the loss-paying, discarded set), sorted.
    """
    w = np.array(w, dtype=np.float64)
    n = w.shape[0]
    if not 1 <= d < n:
        raise ValueError(f"the corner size d={d} must be in [1, n - 1 = {n - 1}]")
    if np.any(w < -tol) or abs(w.sum() - 1.0) > 1e-9 or w.max() > (1.0 + 1e-9) / d:
        raise ValueError("w must lie in the capped simplex B_d^n")
    ps: list[float] = []
    corners: list[np.ndarray] = []
    for prob, corner in _corners(w, d, tol):
        ps.append(prob)
        corners.append(corner)
    p = np.asarray(ps)
    if p.size == 0 or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError("mixture decomposition failed: w is not in the capped simplex")
    return p / p.sum(), np.asarray(corners, dtype=np.intp).reshape(len(ps), d)


def _corners(w: np.ndarray, d: int, tol: float) -> Iterator[tuple[float, np.ndarray]]:
    """Yield ``(p, sorted corner indices)`` of Algorithm 2, lazily (see above)."""
    w = np.clip(w, 0.0, None)
    for _ in range(w.shape[0] + 2):
        total = w.sum()
        if total <= tol:
            return
        order = np.argsort(-w, kind="stable")
        chosen = order[:d]
        s = w[chosen[-1]]
        largest_rest = w[order[d]]
        p = max(0.0, min(d * s, total - d * largest_rest))
        if p <= tol:  # only rounding remains
            return
        yield p, np.sort(chosen)
        w[chosen] -= p / d
        total = w.sum()
        w[np.abs(w) <= tol] = 0.0
        w[np.abs(w - total / d) <= tol] = total / d
        w = np.clip(w, 0.0, None)


def systematic_sample(w: np.ndarray, d: int, rng: np.random.Generator) -> np.ndarray:
    """``d`` distinct indices with inclusion probabilities ``d * w_i`` (Madow).

    Intervals of length ``d w_i <= 1`` are laid end to end on ``[0, d)``; one
    uniform ``u`` selects the intervals containing ``u, u + 1, ..., u + d - 1``.
    Same marginals as sampling a corner of :func:`mixture_decomposition` (hence
    the same expected loss), in ``O(n)`` with one uniform draw.

    Parameters
    ----------
    w : ndarray of shape (n,)
        A point of ``B_d^n``.
    d : int
    rng : numpy.random.Generator

    Returns
    -------
    indices : ndarray of int of shape (d,), sorted
    """
    w = np.asarray(w, dtype=np.float64)
    edges = np.cumsum(d * np.clip(w, 0.0, None) / w.sum())
    edges[-1] = d  # guard against rounding at the end
    u = rng.random() + np.arange(d)
    idx = np.searchsorted(edges, u, side="right")
    idx = np.minimum(idx, w.shape[0] - 1)
    if np.unique(idx).size != d:  # only through rounding at a cap; fall back exactly
        p, corners = mixture_decomposition(w / w.sum(), d)
        return corners[min(np.searchsorted(np.cumsum(p), u[0], side="right"), len(p) - 1)]
    return idx


def sample_corner(
    w: np.ndarray, d: int, rng: np.random.Generator, *, sampler: str = "decomposition"
) -> np.ndarray:
    """Draw the discarded ``d``-subset from a capped vector with one uniform.

    ``sampler="decomposition"`` walks the corners of Algorithm 2 lazily,
    stopping at the drawn one;
    ``"systematic"`` uses :func:`systematic_sample` (same marginals).
    """
    if sampler == "systematic":
        return systematic_sample(w, d, rng)
    w = np.array(w, dtype=np.float64)
    if not 1 <= d < w.shape[0]:
        raise ValueError(f"the corner size d={d} must be in [1, n - 1 = {w.shape[0] - 1}]")
    u = rng.random() * w.sum()
    acc, corner = 0.0, None
    for p, corner in _corners(w, d, _TOL):  # lazy walk: stops at the drawn corner
        acc += p
        if acc > u:
            return corner
    if corner is None:
        raise ValueError("w must lie in the capped simplex B_d^n")
    return corner


def capped_hedge_step(
    log_w: np.ndarray,
    losses: np.ndarray,
    learning_rate: float,
    d: int,
    *,
    fixed_share: float = 0.0,
    floor: float = 0.0,
) -> np.ndarray:
    """One step of capped Hedge with fixed share (Yuan & Lamperski Alg. 1, eq. 4).

    ``v ∝ w exp(-eta l)`` (4a, normaliser ``sum_j w_j exp(-eta l_j)``),
    ``w^ = a/n + (1 - a) v`` (4b, ``a`` the fixed share), ``w' = cap_d(w^)``
    (4c). With ``a = 0`` this is Warmuth & Kuzmin's Algorithm 3. A thin
    wrapper of the compiled eigenvalue step
    (:func:`skonline.decomposition._capping_fast.spectral_step`).

    Parameters
    ----------
    log_w : ndarray of shape (n,)
        Logs of the current weights (a point of ``B_d^n``).
    losses : ndarray of shape (n,)
    learning_rate : float
    d : int
        Size of the loss-paying subset, ``n - k``.
    fixed_share : float, default=0.0
    floor : float, default=0.0

    Returns
    -------
    log_w_new : ndarray of shape (n,)
    """
    mu = np.asarray(log_w, dtype=np.float64) - learning_rate * np.asarray(losses, np.float64)
    return np.asarray(spectral_step(mu, d, floor=floor, share_before_cap=fixed_share))

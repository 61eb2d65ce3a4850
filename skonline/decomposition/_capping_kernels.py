"""Capped simplex kernels shared by the online PCA algorithms.

Warmuth & Kuzmin, "Randomized Online PCA Algorithms with Regret Bounds that are
Logarithmic in the Dimension", JMLR 9 (2008): Algorithm 2 (mixture
decomposition), Algorithm 3 (capped Hedge) and Algorithm 4 (capping, the
relative-entropy projection onto the capped simplex
``B_d^n = {w : sum w = 1, 0 <= w_i <= 1/d}``); Yuan & Lamperski, "Online
Adaptive Principal Component Analysis and Its Extensions", ICML 2019:
Algorithm 1 (capped Hedge with a fixed-share step before capping).

Every kernel is pure (never writes into its inputs) and works on
log-weights where weights may underflow: capping, softmax, the eigenvalue
floor and both fixed-share steps are done in the log domain, so a weight of
``exp(-1e4)`` stays representable and ``log 0`` never occurs.

Errata corrected here (see the user guide): the capping normaliser is the sum
of the *uncapped* tail ``sum_{l > i} w_l`` (Yuan & Lamperski's Alg. 3 prints
``sum_{l >= j}``); the Hedge normaliser is ``sum_j w_j exp(-eta l_j)`` (both
papers print it without ``w_j``); the decomposition's undefined ``p`` is
``min(d s, |w| - d l)``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "cap",
    "capped_hedge_step",
    "log_cap",
    "log_fixed_share",
    "log_floor",
    "log_normalize",
    "logsumexp",
    "mixture_decomposition",
    "sample_corner",
    "spectral_step",
    "systematic_sample",
]

#: Relative tolerance of the capping and decomposition tests.
_TOL = 1e-12


def logsumexp(a, b=None):
    """``log(sum(b * exp(a)))`` of a 1-D array, shifted by its maximum (no overflow).

    A lean version of :func:`scipy.special.logsumexp` for the per-row kernels
    (scipy's generic one costs ~30 µs a call, more than the rest of a step).
    """
    m = np.max(a)
    if not np.isfinite(m):
        return m
    e = np.exp(a - m)
    return m + np.log(np.sum(e) if b is None else e @ b)


def _counts(log_w, counts):
    if counts is None:
        return None
    return np.asarray(counts, dtype=np.float64)


def log_normalize(log_w, counts=None):
    """Shift log-weights so that ``logsumexp(log_w) == 0`` (a probability vector).

    With ``counts``, entry ``i`` stands for ``counts[i]`` equal weights (a
    repeated eigenvalue); the normalisation is then over the expanded vector.
    """
    log_w = np.asarray(log_w, dtype=np.float64)
    return log_w - logsumexp(log_w, b=_counts(log_w, counts))


def log_floor(log_v, floor, counts=None):
    """Floor normalised weights at ``floor`` and renormalise (log domain).

    ``v <- max(v, floor); v <- v / sum v``. ``floor`` must be below ``1/n`` so
    that a floored vector is not simply uniform; ``0`` returns the input.
    """
    if floor <= 0:
        return np.asarray(log_v, dtype=np.float64)
    return log_normalize(np.maximum(log_v, np.log(floor)), counts)


def log_fixed_share(log_v, share, counts=None):
    """Fixed share ``v <- share/n + (1 - share) v`` in the log domain.

    ``share == 0`` returns the input unchanged (bit for bit). The result is
    renormalised against rounding drift. ``n`` counts repeated entries.
    """
    log_v = np.asarray(log_v, dtype=np.float64)
    if share <= 0:
        return log_v
    n = log_v.shape[0] if counts is None else float(np.sum(counts))
    if share >= 1:
        return np.full(log_v.shape[0], -np.log(n))
    return log_normalize(np.logaddexp(np.log1p(-share) + log_v, np.log(share / n)), counts)


def log_cap(log_w, d, counts=None):
    """Capping (Algorithm 4) of a probability vector given by its logs.

    Returns ``log(min(1/d, gamma * w))`` with the unique ``gamma >= 1`` making
    the result sum to one: the relative-entropy projection of ``w`` onto the
    capped simplex ``B_d^n``. ``O(n log n)``: the closed form over a stable
    descending sort (ties are never split), with the tail sums
    ``R_i = sum_{l >= i} w_(l)`` taken by a reversed ``logaddexp``
    accumulation, so entries far below ``1e-308`` keep their relative values.

    Parameters
    ----------
    log_w : ndarray of shape (m,)
        Logs of a probability vector (``logsumexp == 0``, up to rounding);
        ``-inf`` entries (zero weights) are allowed as long as at least ``d``
        entries are positive.
    d : int
        Cap ``1/d``, ``1 <= d <= n``. ``d == 1`` is the plain simplex (identity).
    counts : ndarray of shape (m,), optional
        Entry ``i`` stands for ``counts[i] >= 1`` equal weights (a repeated
        eigenvalue, never split by the projection); ``n = sum(counts)``.

    Returns
    -------
    log_out : ndarray of shape (m,)
    """
    log_w = np.asarray(log_w, dtype=np.float64)
    c = np.ones(log_w.shape[0]) if counts is None else np.asarray(counts, dtype=np.float64)
    n = float(c.sum())
    if not 1 <= d <= n:
        raise ValueError(f"the cap size d={d} must be in [1, n={n:g}]")
    log_w = log_normalize(log_w, c)
    log_cap_value = -np.log(d)
    if d == 1 or np.max(log_w) <= log_cap_value + _TOL:
        return np.minimum(log_w, log_cap_value)
    if c[np.isfinite(log_w)].sum() < d:
        raise ValueError(f"capping at 1/{d} needs at least {d} positive weights")
    order = np.argsort(-log_w, kind="stable")
    s, cs = log_w[order], c[order]
    # tail[g] = log of the total weight of groups g, g+1, ...
    tail = np.logaddexp.accumulate((s + np.log(cs))[::-1])[::-1]
    n_before = np.concatenate([[0.0], np.cumsum(cs)[:-1]])  # entries capped before group g
    # capping the groups before g leaves gamma_g = ((d - N_g)/d) / R_g; stop at the first g
    # whose largest uncapped entry gamma_g * s_g is <= 1/d (N_g <= d - 1 always suffices).
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = (n_before < d) & (np.log(np.maximum(d - n_before, 1e-300)) + s - tail <= _TOL)
    if not ok.any():  # pragma: no cover - impossible for a valid probability vector
        raise ValueError("capping failed: no feasible split")
    g = int(np.argmax(ok))
    out = np.empty(log_w.shape[0])
    log_gamma = np.log((d - n_before[g]) / d) - tail[g]
    out[order[:g]] = log_cap_value
    out[order[g:]] = np.minimum(s[g:] + log_gamma, log_cap_value)
    return out


def cap(w, d):
    """Capping (Algorithm 4) of a probability vector ``w`` at ``1/d``.

    ``min(1/d, gamma * w)`` with ``gamma >= 1`` chosen so that the result sums
    to one; ``w`` is returned unchanged (as a copy) when ``max w <= 1/d``.
    See :func:`log_cap` for the log-domain version.

    Examples
    --------
    >>> import numpy as np
    >>> cap(np.array([1, 2, 4]) / 7, 2) * 6
    array([1., 2., 3.])
    """
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 1 or np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("w must be a finite non-negative vector")
    total = w.sum()
    if total <= 0:
        raise ValueError("w must have a positive sum")
    with np.errstate(divide="ignore"):
        return np.exp(log_cap(np.log(w / total), d))


def mixture_decomposition(w, d, *, tol=_TOL):
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
    ps, corners = [], []
    for p, corner in _corners(w, d, tol):
        ps.append(p)
        corners.append(corner)
    p = np.asarray(ps)
    if p.size == 0 or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError("mixture decomposition failed: w is not in the capped simplex")
    return p / p.sum(), np.asarray(corners, dtype=np.intp).reshape(len(ps), d)


def _corners(w, d, tol):
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


def systematic_sample(w, d, rng):
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


def sample_corner(w, d, rng, *, sampler="decomposition"):
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


def spectral_step(mu, d, *, floor=0.0, share_before_cap=0.0, share_after_cap=0.0, counts=None):
    """Eigenvalue (or weight) part of one online PCA / capped Hedge update.

    From unnormalised log-weights ``mu`` (e.g. the eigenvalues of
    ``log W - eta x xᵀ``): softmax, optional floor, optional fixed share
    (Yuan & Lamperski eq. 14b, before capping), capping at ``1/d``
    (eq. 14c / Warmuth & Kuzmin Alg. 4), optional fixed share after capping
    (Warmuth & Kuzmin §8). All in the log domain.

    ``counts`` (optional) gives the multiplicity of each entry (see
    :func:`log_cap`).

    Returns
    -------
    log_w : ndarray of shape (n,)
        Logs of the new capped weights.
    """
    log_v = log_normalize(mu, counts)
    log_v = log_floor(log_v, floor, counts)
    log_v = log_fixed_share(log_v, share_before_cap, counts)
    log_w = log_cap(log_v, d, counts)
    if share_after_cap > 0:
        # (1 - a) w + a/n stays in B_d^n: no re-capping needed.
        log_w = np.minimum(log_fixed_share(log_w, share_after_cap, counts), -np.log(d))
    return log_w


def capped_hedge_step(log_w, losses, learning_rate, d, *, fixed_share=0.0, floor=0.0):
    """One step of capped Hedge with fixed share (Yuan & Lamperski Alg. 1, eq. 4).

    ``v ∝ w exp(-eta l)`` (4a, normaliser ``sum_j w_j exp(-eta l_j)``),
    ``w^ = a/n + (1 - a) v`` (4b, ``a`` the fixed share), ``w' = cap_d(w^)``
    (4c). With ``a = 0`` this is Warmuth & Kuzmin's Algorithm 3.

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
    return spectral_step(mu, d, floor=floor, share_before_cap=fixed_share)

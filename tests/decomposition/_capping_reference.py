"""The NumPy transcription of the compiled eigenvalue step (the reference of the tests).

Warmuth & Kuzmin, "Randomized Online PCA Algorithms with Regret Bounds that are
Logarithmic in the Dimension", JMLR 9 (2008): Algorithm 4 (capping, the
relative-entropy projection onto the capped simplex
``B_d^n = {w : sum w = 1, 0 <= w_i <= 1/d}``) and the §8 mixing; Yuan &
Lamperski, "Online Adaptive Principal Component Analysis and Its Extensions",
ICML 2019: the fixed share before capping (eq. 14b). Production runs the
compiled :func:`skonline.decomposition._capping_fast.spectral_step`; the
tests compare it with :func:`spectral_step` here, written with NumPy
operations in the same order, and check the rule itself (closed forms, the KL
projection) on these functions.

Every function works on log-weights: capping, softmax, the eigenvalue floor
and both fixed-share steps are done in the log domain, so a weight of
``exp(-1e4)`` stays representable and ``log 0`` never occurs. The capping
normaliser is the sum of the *uncapped* tail ``sum_{l > i} w_l`` (Yuan &
Lamperski's Alg. 3 prints ``sum_{l >= j}``).
"""

import numpy as np

#: Relative tolerance of the capping test (``_capping_fast.TOL``).
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

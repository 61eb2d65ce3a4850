"""Curvature back-ends of the sketched online Newton step (SON).

Each back-end holds an approximation ``H`` of the online Newton matrix
``H_t = Σ_i c_i g_i g_iᵀ + α₀ I`` (Luo et al. 2019, eq. 4, ``c_i = μ_i + η_i``)
and offers three operations on dense ``d``-vectors:

``project(u, x, z, C)``
    ``argmin_{|wᵀx| ≤ C} ‖w − u‖_H`` with ``z = uᵀx``, the projection of eq. (2)
    onto ``K_t`` (Luo et al. 2019, §3.1), in closed form
    ``w = u − τ_C(z) H⁻¹x / (xᵀH⁻¹x)`` (the ``γ`` update of Appendix A, for any
    bound ``C``), using the current ``H``.
``update(g, c)``
    Add the row ``sqrt(c) · g`` to the curvature.
``newton_direction(g)``
    ``H⁻¹ g`` (the pseudo-inverse ``H⁺ g`` when ``H`` is singular).

Back-ends: :class:`SketchCurvature` (RFD-SON, paper Alg. 6; FD-SON with
``robust=False``), :class:`FullCurvature` (FULL-ON, Sherman–Morrison) and
:class:`DiagCurvature` (diagonal AdaGrad).
"""

from __future__ import annotations

import numpy as np

from ..utils._sketch import apply_inverse, compact, gram_eigenbasis

__all__ = ["DiagCurvature", "FullCurvature", "SketchCurvature", "tau"]


def tau(z, C):
    """``τ_C(z) = sgn(z) · max(|z| − C, 0)``: how far ``z`` lies outside ``[−C, C]``."""
    return np.sign(z) * max(abs(z) - C, 0.0)


def _move(u, t, h, x):
    """``u − τ h / (xᵀh)`` with ``h = H⁻¹x``: lands exactly on ``|wᵀx| = C``."""
    xh = float(x @ h)
    return u - t * h / xh if xh > 0 else u


class SketchCurvature:
    """``H = BᵀB + αI`` with an (R)FD sketch ``B`` of the scaled gradients.

    Paper Algorithm 6 (doubling buffer) with the Woodbury identity of its
    Appendix A, in the order of Algorithm 3 (and of SON, Luo et al. 2016): the
    projection at step ``t`` uses ``H^(t−1)``, the Newton step ``H^(t)``. With ``robust=True``
    (RFD-SON) ``α`` grows by ``σ_m²/2`` at each compaction; with
    ``robust=False`` (FD-SON) it stays ``α₀``.

    The Gram matrix ``G = BBᵀ`` is kept up to date (one ``O(md)`` product per
    row) and one eigendecomposition of the ``r × r`` matrix ``G`` (``r ≤ 2m``)
    is made per row, cached between the Newton step of row ``t`` and the
    projection of row ``t + 1``. When ``α ≤ rtol · λ_max(G)`` the matrix is
    treated as singular and the pseudo-inverse formulas of Appendix A are used,
    with the corrected ``w₂`` (projector ``VVᵀ``, not ``VΣ⁻²Vᵀ`` as printed).
    """

    def __init__(self, n_features, m, alpha0, *, robust=True, zero_rows=True, rtol=1e-10):
        self.m = m
        self.robust = robust
        self.rtol = rtol
        self.alpha = float(alpha0)
        self.B = np.zeros((2 * m, n_features))
        self.G = np.zeros((2 * m, 2 * m))
        self.r = 0
        # Alg. 6 starts from B = 0 with m rows: they change nothing but the schedule.
        self.virtual_rows = m if zero_rows else 0
        self.shrinkage = 0.0
        self.n_compactions = 0
        self._factor = None  # cached ("chol", L) or ("pinv", U, lam) for the current H

    def __getstate__(self):
        # The cached factorisation is derived data: recomputed on demand, never pickled.
        state = self.__dict__.copy()
        state["_factor"] = None
        return state

    # -------------------------------------------------------------- algebra
    def _factorize(self):
        """Eigenbasis of ``G = BBᵀ`` (:func:`gram_eigenbasis`), cached until the sketch changes."""
        if self._factor is None:
            r = self.r
            self._factor = gram_eigenbasis(self.G[:r, :r], self.B.shape[1], self.alpha, self.rtol)
        return self._factor

    def _apply(self, v, Bv):
        """``H⁻¹v``, or ``H⁺v`` when ``H`` counts as singular (``Bv = B[:r] v``)."""
        return apply_inverse(self.B[: self.r], self.alpha, self._factorize(), v, Bv)

    def project(self, u, x, z, C, Bx):
        """Projection of ``u`` onto ``{|wᵀx| ≤ C}`` in the ``H``-norm (``Bx = B[:r] x``)."""
        t = tau(z, C)
        if t == 0.0:
            return u
        W, s, nonsingular = self._factorize()
        if nonsingular:
            return _move(u, t, self._apply(x, Bx), x)
        # Singular H (Appendix A, corrected w₂): move along the part of x outside
        # row(B) when there is one (H-distance 0), else along H⁺x (w₁).
        Br = self.B[: self.r]
        c = W.T @ Bx
        px = x - Br.T @ (W @ c)
        pp, xx = float(px @ px), float(x @ x)
        if pp > 1e-10 * xx:
            # xᵀpx equals ‖px‖² in exact arithmetic; as the denominator it makes
            # wᵀx = clip(z, −C, C) to rounding.
            return u - t * px / float(x @ px)
        return _move(u, t, Br.T @ (W @ (c / s)), x)  # w₁ with H⁺x

    def update(self, g, c, Bg):
        """Append ``b = sqrt(c)·g`` (``Bg = B[:r] g``); compact when the buffer is full.

        Returns ``B g`` for the updated sketch (reused by the Newton step), or
        ``None`` after a compaction.
        """
        s = np.sqrt(c)
        r = self.r
        self.B[r] = s * g
        self.G[r, :r] = self.G[:r, r] = s * Bg
        self.G[r, r] = c * float(g @ g)
        self.r = r + 1
        self._factor = None
        if self.r + self.virtual_rows == 2 * self.m:
            rows, kept, delta = compact(self.B[: self.r], self.m)
            k = rows.shape[0]
            self.B[:k] = rows
            self.B[k:] = 0.0
            self.G[:] = 0.0
            self.G[np.arange(k), np.arange(k)] = kept
            self.r = k
            self.virtual_rows = 0
            self.shrinkage += delta
            self.n_compactions += 1
            if self.robust:
                self.alpha += delta / 2.0
            return None
        return self.G[: self.r, r] / s  # c = μ + η_t > 0 (eta0 > 0)

    def newton_direction(self, g, Bg=None):
        if Bg is None:
            Bg = self.B[: self.r] @ g
        return self._apply(g, Bg)

    def Bdot(self, x):
        return self.B[: self.r] @ x


class _DenseCurvature:
    """Back-ends with a cheap ``H⁻¹``: the projection is the closed form of eq. (2)'s."""

    def Bdot(self, x):
        return None

    def newton_direction(self, g, Bg=None):  # pragma: no cover - defined by subclasses
        """``H⁻¹ g``."""
        raise NotImplementedError

    def project(self, u, x, z, C, Bx):
        t = tau(z, C)
        return u if t == 0.0 else _move(u, t, self.newton_direction(x), x)


class FullCurvature(_DenseCurvature):
    """FULL-ON: the exact ``H`` through its inverse, Sherman–Morrison, ``O(d²)`` per row."""

    def __init__(self, n_features, alpha0):
        self.H_inv = np.eye(n_features) / alpha0

    def update(self, g, c, Bg):
        h = self.H_inv @ g
        self.H_inv -= (c / (1.0 + c * float(g @ h))) * np.outer(h, h)

    def newton_direction(self, g, Bg=None):
        return self.H_inv @ g


class DiagCurvature(_DenseCurvature):
    """Diagonal AdaGrad: ``D = α₀ + sqrt(Σ g²)``, projection in the ``D``-norm."""

    def __init__(self, n_features, alpha0):
        self.alpha0 = alpha0
        self.sq = np.zeros(n_features)

    def update(self, g, c, Bg):
        self.sq += g * g

    def newton_direction(self, g, Bg=None):
        return g / (self.alpha0 + np.sqrt(self.sq))

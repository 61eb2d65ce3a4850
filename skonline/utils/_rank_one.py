"""Rank-one updates of the Moore–Penrose pseudo-inverse of a growing Gram matrix.

For ``S_t = S_{t-1} + x xᵀ`` (symmetric positive semi-definite) the
pseudo-inverse ``S_t⁺`` follows from ``S_{t-1}⁺`` in ``O(d²)``
(Campbell & Meyer 2009; Chen & Ji 2011; Kotłowski 2017, Appendix E). With
``u = S_{t-1}⁺ x``, ``β = 1 + xᵀu`` and ``r = (I − S_{t-1}S_{t-1}⁺) x`` the
part of ``x`` outside the range of ``S_{t-1}``:

* ``r = 0`` (Sherman–Morrison): ``S_t⁺ = S_{t-1}⁺ − u uᵀ / β``;
* ``r ≠ 0`` (the rank grows): ``S_t⁺ = S_{t-1}⁺ − (u rᵀ + r uᵀ)/‖r‖² + β r rᵀ/‖r‖⁴``.

The test ``r ≠ 0`` needs the projector ``P = S S⁺`` onto the range, which
grows by ``r rᵀ/‖r‖²`` on rank increases and is dropped once the rank is
full. ``r`` counts as zero when ``‖r‖² ≤ rank_tol · ‖x‖²``: erring towards
"in range" costs an error of order ``‖r‖``, while rounding noise taken for a
new direction would add entries of order ``1/‖r‖⁴``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["pinv_rank_one_update"]


def pinv_rank_one_update(Sp, P, x, rank_tol):
    """Update ``Sp = S⁺`` (and the range projector ``P``) for ``S ← S + x xᵀ``, in place.

    The updates keep ``Sp`` and ``P`` exactly symmetric (every matrix added
    is a symmetric product). Callers own the arrays they pass (the kernels
    that call this work on copies of the estimator's state).

    Parameters
    ----------
    Sp : ndarray of shape (d, d)
        ``S⁺`` before the update; overwritten with ``(S + x xᵀ)⁺``.
    P : ndarray of shape (d, d) or None
        Projector onto ``range(S)``, or ``None`` once the rank is full;
        updated in place on rank increases.
    x : ndarray of shape (d,)
    rank_tol : float
        Relative threshold on ``‖r‖² / ‖x‖²`` for a new direction.

    Returns
    -------
    new_direction : bool
        Whether the rank grew.
    u : ndarray of shape (d,)
        ``S_{t-1}⁺ x`` (before the update).
    beta : float
        ``1 + xᵀ S_{t-1}⁺ x``.

    Raises
    ------
    FloatingPointError
        If ``β ≤ 0``, impossible in exact arithmetic: rounding has made ``Sp``
        indefinite (``S`` is too ill-conditioned for float64). Nothing has
        been written into ``Sp`` or ``P`` then.
    """
    u = Sp @ x
    beta = 1.0 + float(x @ u)
    if not beta > 0.0:  # xᵀS⁺x ≥ 0 in exact arithmetic (NaN lands here too)
        raise FloatingPointError(
            f"1 + xᵀS⁺x = {beta:.3g} is not positive: the pseudo-inverse has lost its "
            "accuracy (S is too ill-conditioned for float64)."
        )
    if P is not None:
        r = x - P @ x
        r -= P @ r  # re-orthogonalise once
        n2 = float(r @ r)
        if n2 > rank_tol * float(x @ x):
            Sp += (np.outer(u, r) + np.outer(r, u)) * (-1.0 / n2)
            v = r * (math.sqrt(beta) / n2)
            Sp += np.outer(v, v)
            e = r / math.sqrt(n2)
            P += np.outer(e, e)
            return True, u, beta
    v = u / math.sqrt(beta)
    Sp -= np.outer(v, v)
    return False, u, beta

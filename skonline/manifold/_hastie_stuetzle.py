"""A batch Hastie–Stuetzle principal curve, the baseline of the slpc experiments.

Public as :func:`skonline.manifold.hastie_stuetzle_curve`: the batch curve a
:class:`~skonline.manifold.SequentialPrincipalCurve` is compared with (the
gallery, the tests and ``benchmarks/bench_principal_curve.py`` reproduce the
comparison of Guedj & Li, Tables 1–2, where the R package ``princurve`` is
refitted on ``x_1..x_t`` and scored on ``x_{t+1}``).

Follows ``princurve::principal_curve``'s defaults (Hastie & Stuetzle 1989):
start from the first-principal-component line; alternate (i) smoothing each
coordinate against the projection index with a cubic smoothing spline of 5
equivalent degrees of freedom and (ii) projecting the points on the polyline
through the smoothed points, its end segments stretched by ``stretch = 2``;
stop when the sum of squared distances changes by less than ``thresh = 1e-3``
(relative) or after ``maxit = 10`` iterations.

The smoother is a penalised cubic B-spline (at most 40 interior knots at
quantiles of the distinct projection indices, penalty ``∫ f''²``, tied indices
merged with weights), its smoothing parameter set by bisection so that the
trace of the smoother matrix is ``df`` — the construction of R's
``smooth.spline``, which also uses a reduced knot set for large ``n``. It is
not R's code, so the numbers do not match princurve's to the digit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.interpolate import BSpline
from sklearn.utils import check_array

from ._polyline import arc_lengths, project_to_polyline

__all__ = ["hastie_stuetzle_curve", "smoothing_spline_df"]


def _penalised_basis(x: np.ndarray, n_knots: int) -> tuple[BSpline, np.ndarray]:
    lo, hi = float(x[0]), float(x[-1])
    inner = np.quantile(x, np.linspace(0, 1, n_knots + 2)[1:-1]) if n_knots else np.array([])
    inner = np.unique(inner[(inner > lo) & (inner < hi)])
    t = np.concatenate([[lo] * 4, inner, [hi] * 4])
    nb = t.size - 4
    spl = BSpline(t, np.eye(nb), 3, extrapolate=True)
    # ∫ B_i'' B_j'': B'' is linear on each knot interval -> 2-point Gauss-Legendre is exact.
    knots = np.unique(t)
    gl, glw = np.polynomial.legendre.leggauss(2)
    a, b = knots[:-1], knots[1:]
    pts = (0.5 * (b - a)[:, None] * gl[None, :] + 0.5 * (a + b)[:, None]).ravel()
    wts = (0.5 * (b - a)[:, None] * glw[None, :]).ravel()
    d2 = spl.derivative(2)(pts)
    omega = d2.T @ (wts[:, None] * d2)
    return spl, omega


def smoothing_spline_df(
    x: np.ndarray, y: np.ndarray, df: float = 5.0, n_knots: int = 40
) -> np.ndarray:
    """Fitted values of a cubic smoothing spline of ``df`` equivalent degrees of freedom.

    Parameters
    ----------
    x : ndarray of shape (n,)
    y : ndarray of shape (n, m)
        Smoothed column by column with the same smoother.

    Returns
    -------
    fitted : ndarray of shape (n, m)
    """
    ux, inv, counts = np.unique(x, return_inverse=True, return_counts=True)
    m = y.shape[1]
    sums = np.zeros((ux.size, m))
    np.add.at(sums, inv, y)
    uy = sums / counts[:, None]
    if ux.size <= max(int(np.ceil(df)), 3):  # too few distinct indices: least-squares line
        A = np.c_[np.ones_like(ux), ux]
        coef, *_ = np.linalg.lstsq(
            A * np.sqrt(counts)[:, None], uy * np.sqrt(counts)[:, None], rcond=None
        )
        return np.c_[np.ones_like(x), x] @ coef
    spl, omega = _penalised_basis(ux, min(n_knots, ux.size - 2))
    B = spl(ux)
    BtWB = B.T @ (counts[:, None] * B)
    BtWy = B.T @ (counts[:, None] * uy)
    scale = np.trace(BtWB) / max(np.trace(omega), 1e-300)

    def trace(log_lam: float) -> float:
        A = BtWB + np.exp(log_lam) * scale * omega
        return float(np.trace(np.linalg.solve(A, BtWB)))

    lo, hi = -30.0, 30.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if trace(mid) > df:
            lo = mid
        else:
            hi = mid
    A = BtWB + np.exp(0.5 * (lo + hi)) * scale * omega
    coef = np.linalg.solve(A, BtWy)
    return spl(x) @ coef


def _stretched(curve: np.ndarray, stretch: float) -> np.ndarray:
    out = curve.copy()
    if out.shape[0] >= 2 and stretch > 0:
        out[0] = curve[0] + stretch * (curve[0] - curve[1])
        out[-1] = curve[-1] + stretch * (curve[-1] - curve[-2])
    return out


def hastie_stuetzle_curve(
    X: ArrayLike,
    *,
    df: float = 5.0,
    stretch: float = 2.0,
    thresh: float = 1e-3,
    maxit: int = 10,
) -> np.ndarray:
    """Batch principal curve of Hastie and Stuetzle, with R ``princurve``'s defaults.

    Starts from the first-principal-component line of ``X``, then alternates
    (i) smoothing each coordinate of the rows against their projection index
    (arc length) with a cubic smoothing spline of ``df`` equivalent degrees of
    freedom and (ii) projecting the rows on the polygonal line through the
    smoothed points, its end segments stretched by ``stretch``; it stops when
    the sum of squared distances changes by less than ``thresh`` (relative)
    or after ``maxit`` iterations. The whole of ``X`` is used at once: this is
    the batch curve a :class:`SequentialPrincipalCurve` learned from the same
    rows in one pass is compared with. Each iteration costs
    ``O(n_samples · n_vertices · n_features)`` for the projection.

    The smoother is a penalised cubic B-spline (at most 40 interior knots),
    its smoothing parameter set by bisection so that the trace of the smoother
    matrix is ``df``, as R's ``smooth.spline`` does; it is not R's code, so the
    numbers do not match ``princurve``'s to the digit.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows.
    df : float, default=5.0
        Equivalent degrees of freedom of the smoothing spline of each
        coordinate.
    stretch : float, default=2.0
        Each end segment of the line is extended by ``stretch`` times its
        length before the rows are projected on it (``0``: no extension).
    thresh : float, default=1e-3
        Relative change of the sum of squared distances below which the
        iterations stop.
    maxit : int, default=10
        Largest number of iterations.

    Returns
    -------
    vertices : ndarray of shape (n_vertices, n_features)
        Vertices of the polygonal line, ordered along the curve: the stretched
        line the last projection used, so the squared distance of a new point
        to it is that of ``princurve``'s ``project_to_curve(x, s[ord],
        stretch=2)``. With fewer than 5 rows, the first-principal-component
        segment (the smoother needs at least 4 distinct values).

    See Also
    --------
    SequentialPrincipalCurve : A principal curve learned online, row by row.

    References
    ----------
    T. Hastie and W. Stuetzle, "Principal Curves", Journal of the American
    Statistical Association 84 (1989) 502–516.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.manifold import hastie_stuetzle_curve
    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0, 10, 200)
    >>> X = np.c_[u, 0.05 * (u - 5) ** 3] + 0.1 * rng.standard_normal((200, 2))
    >>> vertices = hastie_stuetzle_curve(X)
    >>> length = float(np.sum(np.linalg.norm(np.diff(vertices, axis=0), axis=1)))
    >>> bool(15.0 < length < 20.0)  # the true curve is 17.6 long
    True
    """
    rows = check_array(X, dtype=np.float64)
    mu = rows.mean(axis=0)
    C = rows - mu
    if rows.shape[0] >= 2 and np.any(C):
        u = np.linalg.svd(C, full_matrices=False)[2][0]
    else:
        u = np.eye(rows.shape[1])[0]
    lam = C @ u
    curve = mu + np.sort(lam)[:, None] * u
    curve = np.vstack([curve[:1], curve[-1:]]) if rows.shape[0] >= 1 else curve
    if rows.shape[0] < 5 or np.ptp(lam) == 0:
        return _stretched(curve, stretch) if np.ptp(lam) > 0 else curve
    line = _stretched(curve, stretch)
    dist, lam, _ = project_to_polyline(rows, line)
    total = float(dist.sum())
    for _ in range(maxit):
        order = np.argsort(lam, kind="stable")
        fitted = smoothing_spline_df(lam, rows, df=df)
        curve = fitted[order]
        # drop repeated consecutive points (zero-length segments)
        keep = np.r_[True, np.any(np.diff(curve, axis=0) != 0, axis=1)]
        curve = curve[keep]
        if curve.shape[0] < 2:
            break
        line = _stretched(curve, stretch)
        dist, lam, _ = project_to_polyline(rows, line)
        new_total = float(dist.sum())
        if abs(total - new_total) <= thresh * max(total, 1e-300):
            total = new_total
            break
        total = new_total
    return line


def curve_length(V: np.ndarray) -> float:
    """Length of a polyline."""
    return float(arc_lengths(V)[-1])

"""The lattice of Guedj & Li's polygonal lines: local grids, the first segment, Lemma 3.

Guedj & Li, "Sequential Learning of Principal Curves: Summarizing Data Streams
on the Fly": the vertices of a curve lie on the lattice ``Γ_δ = δ Z^d`` inside
the ball ``B(0, sqrt(d) R)`` (Section 2, Figure 4); Algorithm 3 starts from the
first-principal-component segment of the first rows (its line 2) and searches a
*local grid* ``Q_{δ,t}(x) = B(N̄_t(x), D(N_t(x))) ∩ Q_δ`` (Section 4); Lemma 3
gives the constants of the penalty and of Theorem 2.

Pure functions on arrays. Lattice coordinates are kept in float64 (whole
numbers), never cast to a fixed-width integer: a row far from the origin (a
coordinate of ``1e20`` with ``δ = 1e-3``) has a lattice coordinate beyond the
range of ``int64``, and the lattice point nearest to it is still well defined.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from scipy.spatial.distance import pdist
from scipy.special import gammaln

__all__ = [
    "ball_log_volume",
    "curve_key",
    "default_lattice_spacing",
    "local_grid",
    "pc1_segment",
    "point_set_diameter",
    "theory_constants",
]

#: Neighbourhoods larger than this get the upper bound ``2 max ||x - mean||``
#: on their diameter (exact in 1-D and, through the convex hull, in 2-D).
_EXACT_DIAMETER_MAX = 500
#: Largest lattice box enumerated exactly; beyond it the local grid is sampled.
_MAX_BOX_POINTS = 20000
#: Lattice step of the default, as a fraction of the rows' spread.
_SPACING_FACTOR = 0.02
#: Decimals of the lattice coordinates kept in a curve's key.
_KEY_DECIMALS = 9


def ball_log_volume(d: int) -> float:
    """``log V_d``, the log-volume of the unit ball of ``R^d``.

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    log_volume : float
    """
    return 0.5 * d * math.log(math.pi) - float(gammaln(0.5 * d + 1.0))


def theory_constants(d: int, p: int, delta: float, R: float, L: float) -> dict[str, float]:
    """The constants ``c0, c1, c2, c3`` of Lemma 3 and ``C = c1 p + c2 L + c3``.

    ``c0 = d (2R + δ)²`` bounds the loss of a row in ``B(0, sqrt(d) R)``;
    ``c1 = ln(8 p e V_d) + 3 d^{3/2} − d`` is the per-segment penalty of the
    theory; ``C`` enters the learning rate of Algorithm 2 (Theorem 2).

    Parameters
    ----------
    d : int
        Dimension of the data.
    p : int
        Largest number of segments.
    delta : float
        Lattice spacing.
    R : float
        Radius parameter: the rows lie in ``B(0, sqrt(d) R)``.
    L : float
        Length bound of the class of curves.

    Returns
    -------
    constants : dict
        Keys ``"c0"``, ``"c1"``, ``"c2"``, ``"c3"`` and ``"C"``.
    """
    c0 = d * (2.0 * R + delta) ** 2
    c1 = math.log(8.0 * p * math.e) + ball_log_volume(d) + 3.0 * d**1.5 - d
    c2 = math.log(2.0) / (delta * math.sqrt(d)) + d / delta
    c3 = d * math.log(max(math.sqrt(d) * (2.0 * R + delta) / delta, 1.0))
    return {"c0": c0, "c1": c1, "c2": c2, "c3": c3, "C": c1 * p + c2 * L + c3}


def default_lattice_spacing(spread: float, *, warn: bool = True) -> float:
    """``0.02 × spread``, the lattice step of the data's scale.

    ``spread`` is the root mean squared distance of the rows to their mean.
    The factor gives about 100 lattice steps across the bulk of the data,
    the resolution of the paper's experiments (``δ = 0.1`` on its 2-D cubic).
    Rows that do not spread give no scale: 1.0, with a ``UserWarning`` when
    ``warn``.

    Parameters
    ----------
    spread : float
        Root mean squared distance of the rows to their mean.
    warn : bool, default=True
        Warn when the fallback is used.

    Returns
    -------
    delta : float
    """
    if spread > 0.0:
        return _SPACING_FACTOR * spread
    if warn:
        warnings.warn(
            "the rows coincide, so lattice_spacing cannot be derived from their "
            "spread; using 1.0. Pass lattice_spacing explicitly.",
            UserWarning,
            stacklevel=2,
        )
    return 1.0


def pc1_segment(X0: np.ndarray, delta: float) -> np.ndarray:
    """The initial curve: the first-principal-component segment of ``X0`` (Alg. 3, line 2).

    The two vertices are the extreme projections of the rows onto the PC1 line
    through their mean (not snapped to the lattice). When the rows do not
    spread, a segment of length ``delta`` along the first axis.

    Parameters
    ----------
    X0 : ndarray of shape (n_rows, n_features)
        The first rows of the stream.
    delta : float
        Lattice spacing (the length of the degenerate segment).

    Returns
    -------
    V : ndarray of shape (2, n_features)
        The two vertices.
    """
    mu = X0.mean(axis=0)
    C = X0 - mu
    if X0.shape[0] >= 2 and np.any(C != 0.0):
        _, _, Vt = np.linalg.svd(C, full_matrices=False)
        u = Vt[0]
        if u[np.argmax(np.abs(u))] < 0:  # deterministic sign
            u = -u
        s = C @ u
        lo, hi = float(s.min()), float(s.max())
        if hi > lo:
            return np.vstack([mu + lo * u, mu + hi * u])
    e1 = np.zeros(X0.shape[1])
    e1[0] = 0.5 * delta
    return np.vstack([mu - e1, mu + e1])


def point_set_diameter(P: np.ndarray) -> float:
    """Diameter ``D(M) = sup ||x − y||`` of a point set (the radius of the local grid).

    Exact up to 500 points, in 1-D, and in 2-D (through the convex hull).
    Larger sets in 3-D and above get the upper bound ``2 max ||x − mean||``,
    which only makes the local grid larger.

    Parameters
    ----------
    P : ndarray of shape (n_points, n_features)

    Returns
    -------
    diameter : float
    """
    n, d = P.shape
    if n <= 1:
        return 0.0
    if d == 1:
        return float(P.max() - P.min())
    if n <= _EXACT_DIAMETER_MAX:
        return float(np.sqrt(pdist(P, "sqeuclidean").max()))
    if d == 2:
        from scipy.spatial import ConvexHull, QhullError

        try:
            hull = P[ConvexHull(P).vertices]
        except QhullError:  # collinear points
            hull = None
        if hull is not None and hull.shape[0] <= 4 * _EXACT_DIAMETER_MAX:
            return float(np.sqrt(pdist(hull, "sqeuclidean").max()))
    center = P.mean(axis=0)
    return 2.0 * float(np.sqrt(np.max(np.sum(np.square(P - center), axis=1))))


def _round_to_lattice(Y: np.ndarray) -> np.ndarray:
    """Nearest whole numbers, in float64 (``-0.0`` becomes ``0.0``)."""
    return np.round(Y) + 0.0


def local_grid(
    center: np.ndarray,
    radius: float,
    delta: float,
    ball_radius: float | None,
    anchors: Any,
    max_points: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Lattice points of the local grid ``Q_{δ,t}`` (Section 4).

    The points of ``δ Z^d`` in ``B(center, radius) ∩ B(0, ball_radius)``,
    enumerated when at most ``max_points`` are expected, else ``max_points``
    uniform draws in the ball rounded to the lattice. The lattice points
    nearest to the ``anchors`` (the neighbourhood mean and the anchor row) are
    always added.

    Parameters
    ----------
    center : ndarray of shape (n_features,)
        Centre of the local ball (the neighbourhood mean).
    radius : float
        Radius of the local ball.
    delta : float
        Lattice spacing.
    ball_radius : float or None
        Radius ``sqrt(d) R`` of the lattice ball around the origin (``None``:
        no bound).
    anchors : array-like of shape (n_anchors, n_features)
        Points whose nearest lattice points are always in the grid.
    max_points : int
        Largest number of points enumerated; beyond it the grid is sampled.
    rng : numpy.random.Generator
        Draws the sampled points (advanced only when the grid is sampled).

    Returns
    -------
    G : ndarray of shape (n_points, n_features)
        Distinct lattice points ``δ m`` (``m`` whole numbers) in lexicographic
        order. Far from the origin, where float64 cannot hold every multiple
        of ``δ``, two lattice coordinates can give the same point: it is kept
        once.
    """
    d = center.shape[0]
    log_expected = ball_log_volume(d) + d * math.log(max(radius / delta, 1e-300))
    lo = np.ceil((center - radius) / delta)
    hi = np.floor((center + radius) / delta)
    widths = np.maximum(hi - lo + 1.0, 0.0)
    log_box = float(np.sum(np.log(np.maximum(widths, 1.0))))
    extra = _round_to_lattice(np.asarray(anchors, dtype=np.float64) / delta)
    if log_expected <= math.log(max_points) and log_box <= math.log(_MAX_BOX_POINTS):
        axes = [np.arange(lo[j], hi[j] + 1.0) for j in range(d)]
        mesh = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, d)
        pts = mesh * delta
        keep = np.sum(np.square(pts - center), axis=1) <= radius * radius
        coords = mesh[keep] + 0.0
    else:
        direction = rng.standard_normal((max_points, d))
        norms = np.sqrt(np.sum(np.square(direction), axis=1))
        norms[norms == 0.0] = 1.0
        r = radius * rng.random(max_points) ** (1.0 / d)
        pts = center + direction * (r / norms)[:, None]
        coords = _round_to_lattice(pts / delta)
    if ball_radius is not None and coords.shape[0]:
        pts = coords * delta
        coords = coords[np.sum(np.square(pts), axis=1) <= ball_radius * ball_radius]
    coords = np.unique(np.vstack([coords, extra]), axis=0)
    # multiplying by delta > 0 keeps the order; far out, neighbours can merge
    return np.unique(coords * delta, axis=0)


def curve_key(V: np.ndarray, delta: float) -> bytes:
    """A hashable key of a curve: its vertices in lattice units, rounded to 1e-9.

    Rounded in floating point, so curves far from the origin keep distinct
    keys (a cast to ``int64`` would overflow once ``|V| / δ > 9.2e18``).

    Parameters
    ----------
    V : ndarray of shape (n_vertices, n_features)
        Vertices of the curve.
    delta : float
        Lattice spacing.

    Returns
    -------
    key : bytes
    """
    return (np.round(V / delta, _KEY_DECIMALS) + 0.0).tobytes()

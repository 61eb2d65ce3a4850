"""Geometry of polygonal lines: squared distances, projections and arc lengths.

Pure functions on arrays (they never write into their inputs). A polygonal line
with ``k`` segments is its ordered vertex array ``V`` of shape ``(k + 1, d)``;
segment ``i`` joins ``V[i]`` and ``V[i + 1]``.

Conventions (Guedj & Li, Section 2; Hastie & Stuetzle's projection index):

* the point of segment ``[a, b]`` at parameter ``tau`` is ``(1 - tau) a + tau b``,
  so ``tau = 0`` and ``tau = 1`` give the vertices exactly;
* a zero-length segment has ``tau = 0``;
* the nearest segment of a point is the one with the lowest index among equal
  distances (the Voronoi label), while the projection index (arc length) takes
  the **largest** arc length among equally near points (the ``sup`` of the
  projection-index definition).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "arc_lengths",
    "distance_outside_hull",
    "point_at_arc_length",
    "project_to_polyline",
    "segment_sqdist",
    "sqdist_to_segments",
]


def segment_sqdist(X: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Squared distances and parameters of the rows of ``X`` to the segment ``[a, b]``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    a, b : ndarray of shape (d,)

    Returns
    -------
    dist : ndarray of shape (n,)
    tau : ndarray of shape (n,), in [0, 1]
    """
    u = b - a
    uu = float(u @ u)
    if uu > 0.0:
        tau = np.clip(((X - a) @ u) / uu, 0.0, 1.0)
    else:
        tau = np.zeros(X.shape[0])
    proj = (1.0 - tau)[:, None] * a + tau[:, None] * b
    diff = X - proj
    return np.einsum("ij,ij->i", diff, diff), tau


def sqdist_to_segments(X: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Squared distance (and parameter) of every row of ``X`` to every segment of ``V``.

    Returns
    -------
    dist : ndarray of shape (n, k)
    tau : ndarray of shape (n, k)
    """
    k = V.shape[0] - 1
    n = X.shape[0]
    dist = np.empty((n, k))
    tau = np.empty((n, k))
    for i in range(k):
        dist[:, i], tau[:, i] = segment_sqdist(X, V[i], V[i + 1])
    return dist, tau


def arc_lengths(V: np.ndarray) -> np.ndarray:
    """Cumulative arc length at each vertex, starting at 0 (shape ``(k + 1,)``)."""
    seg = np.sqrt(np.sum(np.square(np.diff(V, axis=0)), axis=1))
    return np.concatenate([[0.0], np.cumsum(seg)])


def project_to_polyline(X: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Project the rows of ``X`` onto the polygonal line ``V``.

    Returns
    -------
    dist : ndarray of shape (n,)
        Squared distance to the line, ``Delta(f, x)``.
    s : ndarray of shape (n,)
        Arc length of the projection from ``V[0]``; among equally near
        projections the largest arc length is taken.
    points : ndarray of shape (n, d)
        The projections.
    """
    dist, tau = sqdist_to_segments(X, V)
    cum = arc_lengths(V)
    seglen = np.diff(cum)
    s_all = cum[:-1] + tau * seglen
    dmin = dist.min(axis=1)
    s_masked = np.where(dist == dmin[:, None], s_all, -np.inf)
    best = np.argmax(s_masked, axis=1)
    rows = np.arange(X.shape[0])
    t = tau[rows, best]
    points = (1.0 - t)[:, None] * V[best] + t[:, None] * V[best + 1]
    return dmin, s_masked[rows, best], points


def point_at_arc_length(V: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Points of the polygonal line ``V`` at arc lengths ``s`` (clipped to the line).

    Parameters
    ----------
    V : ndarray of shape (k + 1, d)
    s : ndarray of shape (n,)

    Returns
    -------
    points : ndarray of shape (n, d)
    """
    cum = arc_lengths(V)
    k = V.shape[0] - 1
    s = np.clip(s, 0.0, cum[-1])
    i = np.clip(np.searchsorted(cum, s, side="right") - 1, 0, k - 1)
    seglen = cum[i + 1] - cum[i]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(seglen > 0, (s - cum[i]) / np.where(seglen > 0, seglen, 1.0), 0.0)
    t = np.clip(t, 0.0, 1.0)
    return (1.0 - t)[:, None] * V[i] + t[:, None] * V[i + 1]


def distance_outside_hull(P: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Distance of each point of ``P`` to the convex hull of the 2-D rows ``X`` (0 inside).

    Parameters
    ----------
    P : ndarray of shape (m, 2)
    X : ndarray of shape (n, 2)
        At least three rows, not all on one line.

    Returns
    -------
    distance : ndarray of shape (m,)
    """
    from scipy.spatial import ConvexHull

    hull = ConvexHull(X)
    ring = X[np.r_[hull.vertices, hull.vertices[:1]]]
    inside = np.all(hull.equations[:, :-1] @ P.T + hull.equations[:, -1:] <= 1e-12, axis=0)
    gap = np.sqrt(project_to_polyline(P, ring)[0])
    gap[inside] = 0.0
    return gap

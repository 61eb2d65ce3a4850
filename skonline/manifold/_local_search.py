"""The local search of a sequential principal curve: candidates, scores, win probabilities.

Guedj & Li, "Sequential Learning of Principal Curves: Summarizing Data
Streams on the Fly", Algorithm 3: at each round the curve may only change
inside the neighbourhood ``U(f̂_{t-1})`` of Section 4, the curves that keep the
vertices outside the local grid ``Q_{δ,t}`` and replace the block of vertices
inside it. This module generates one change per round (a subset of ``U``: the
block's vertices moved, inserted or deleted one at a time, as the paper's
Figure 9 shows), scores every candidate by the change of its loss on the
stored rows, and computes the probability ``P(f̂_t = f | H_t)`` of Algorithm 3's
importance weighting (line 9).

The candidates and their scores come from the compiled kernel
(:func:`._curve_fast.local_candidates`); its NumPy transcription, the
reference the tests compare it with, is in
``tests/manifold/_local_search_reference.py``.

Pure functions on arrays; they never write into their inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._curve_fast import StoredRows, local_candidates

__all__ = [
    "apply_candidate",
    "choose_candidate",
    "score_local_candidates",
    "vertex_block",
    "win_probability",
]

#: Quadrature of the winning probability: nodes and width of the window.
_QUAD_NODES = 2000
_QUAD_WIDTH = 50.0
#: Candidate kinds, in generation order.
KEEP, MOVE, INSERT, DELETE = 0, 1, 2, 3


def score_local_candidates(
    X: np.ndarray,
    w: np.ndarray,
    D: np.ndarray,
    dcur: np.ndarray,
    amin: np.ndarray,
    V: np.ndarray,
    block: tuple[Any, int],
    G: np.ndarray,
    *,
    can_insert: bool,
    can_delete: bool,
    center: np.ndarray,
    max_length: float | None = None,
    return_lengths: bool = False,
    return_turns: bool = False,
) -> tuple[np.ndarray, ...]:
    """Generate and score the local candidates of one round (a subset of ``U(f̂_{t-1})``).

    One change of the block of vertices inside the local grid (Section 4).
    Candidates, in generation order: keep; move ``v_l := g`` for ``l`` in the
    block and ``g`` in ``G``; insert ``g`` at positions ``first(block) ..
    last(block) + 1`` (an end position extends the line); delete ``v_l`` for
    ``l`` in the block. Candidates with a zero-length segment, duplicates of
    ``keep``, and lines longer than ``max_length`` are left out.
    With ``return_lengths=True`` a sixth array holds each candidate's length.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Stored rows.
    w : ndarray of shape (n,)
        Their weights (1, or the exploration flags of the bandit estimator).
    D : ndarray of shape (n, k)
        Squared distances of the rows to the segments of ``V``.
    dcur : ndarray of shape (n,)
        The row minima of ``D``.
    amin : ndarray of int, shape (n,)
        The (lowest) arg-minima of ``D``.
    V : ndarray of shape (k + 1, d)
        Vertices of the current curve.
    block : tuple
        ``(first, last)``: the block of vertices that may change; or
        ``("empty", q)``: no vertex may change, a grid point may be inserted
        at position ``q`` only.
    G : ndarray of shape (m, d)
        The local grid.
    can_insert, can_delete : bool
        Whether the curve may gain (below ``max_segments``) or lose (above one
        segment) a segment.
    center : ndarray of shape (d,)
        Centre of the local grid (for the exact pruning).
    max_length : float or None, default=None
        Longest allowed curve.
    return_lengths : bool, default=False
        Also return each candidate's length.
    return_turns : bool, default=False
        Also return each candidate's turn cost minus that of ``V`` (the sum of
        ``(1 − cos θ_i) / 2`` over its interior vertices).

    Returns
    -------
    kind : ndarray of int
        0 keep, 1 move, 2 insert, 3 delete.
    pos : ndarray of int
        Vertex moved or deleted, or insertion position.
    gidx : ndarray of int
        Row of ``G`` (-1 for keep and delete).
    delta_loss : ndarray
        Change of the weighted loss sum.
    n_segments : ndarray of int
        Segments of the candidate.
    lengths : ndarray
        Length of the candidate; only with ``return_lengths=True``.
    turns : ndarray
        Turn cost change of the candidate; only with ``return_turns=True``.
    """
    if block[0] == "empty":
        first, last, empty_pos = -1, -1, int(block[1])
    else:
        first, last, empty_pos = int(block[0]), int(block[1]), -1
    rows = StoredRows(
        np.ascontiguousarray(X),
        np.ascontiguousarray(w, dtype=np.float64),
        D,
        np.ascontiguousarray(dcur),
        np.ascontiguousarray(amin, dtype=np.int64),
    )
    out = local_candidates(
        rows,
        np.ascontiguousarray(V),
        np.ascontiguousarray(G, dtype=np.float64).reshape(-1, V.shape[1]),
        np.ascontiguousarray(center, dtype=np.float64),
        first,
        last,
        empty_pos,
        bool(can_insert),
        bool(can_delete),
        -1.0 if max_length is None else float(max_length),
        bool(return_turns),
    )
    return out[:5] + ((out[5],) if return_lengths else ()) + ((out[6],) if return_turns else ())


def apply_candidate(V: np.ndarray, kind: int, pos: int, g: Any) -> tuple[np.ndarray, int, int, int]:
    """The vertex array after a change, and the replaced segment range.

    Parameters
    ----------
    V : ndarray of shape (k + 1, d)
        Vertices of the current curve.
    kind : int
        0 keep, 1 move, 2 insert, 3 delete.
    pos : int
        Vertex moved or deleted, or insertion position.
    g : ndarray of shape (d,) or None
        The grid point moved to or inserted.

    Returns
    -------
    V_new : ndarray
        Vertices of the new curve (``V`` itself for keep).
    lo, hi : int
        Segments ``lo..hi-1`` of ``V`` are replaced ...
    m : int
        ... by the ``m`` segments ``lo..lo+m-1`` of ``V_new``.
    """
    k = V.shape[0] - 1
    if kind == 0:
        return V, 0, 0, 0
    if kind == 1:
        Vn = V.copy()
        Vn[pos] = g
        lo, hi = max(pos - 1, 0), min(pos + 1, k)
        return Vn, lo, hi, hi - lo
    if kind == 2:
        Vn = np.insert(V, pos, g, axis=0)
        if pos == 0:
            return Vn, 0, 0, 1
        if pos == k + 1:
            return Vn, k, k, 1
        return Vn, pos - 1, pos, 2
    Vn = np.delete(V, pos, axis=0)
    lo, hi = max(pos - 1, 0), min(pos + 1, k)
    return Vn, lo, hi, 1 if 0 < pos < k else 0


def win_probability(a: Any, winner: int) -> float:
    """``P(argmax_g (a_g + z_g) = winner)`` for i.i.d. ``z_g ~ Exp(1)``.

    The probability ``P(f̂_t = f | H_t)`` of Algorithm 3 (line 9), which the
    paper (Section 4) leaves to the reader for Exp(1) perturbations:
    ``∫ e^{-z} prod_{g != f} F(a_f + z - a_g) dz`` with ``F(u) = 1 - e^{-u}``
    on ``u > 0``, by the trapezoid rule in log space
    (``log F = log(-expm1(-u))``) on ``[z_lo, z_lo + 50]`` with 2000 nodes
    plus the breakpoints.

    Parameters
    ----------
    a : array-like of shape (n_candidates,)
        Unperturbed scores (the larger wins).
    winner : int
        The candidate whose probability is computed.

    Returns
    -------
    probability : float
    """
    a = np.asarray(a, dtype=np.float64)
    others = np.delete(a, winner) - a[winner]  # a_g - a_f
    if others.size == 0:
        return 1.0
    z_lo = max(0.0, float(others.max()))
    # Competitors whose F stays above 1 - e^-40 on the window do not matter.
    others = others[others > z_lo - 40.0]
    nodes = np.linspace(z_lo, z_lo + _QUAD_WIDTH, _QUAD_NODES)
    brk = others[(others > z_lo) & (others < z_lo + _QUAD_WIDTH)]
    z = np.unique(np.concatenate([nodes, brk]))
    u = z[:, None] - others[None, :]
    with np.errstate(divide="ignore"):
        logF = np.where(u > 0.0, np.log(-np.expm1(-np.maximum(u, 1e-300))), -np.inf)
    log_f = -z + logF.sum(axis=1)
    f = np.exp(log_f)
    return float(np.clip(np.sum(np.diff(z) * 0.5 * (f[1:] + f[:-1])), 0.0, 1.0))


def vertex_block(V: np.ndarray, center: np.ndarray, radius: float, a: int) -> tuple[Any, int]:
    """The block of vertices inside the local ball that may change (Section 4).

    The maximal run of consecutive vertices inside ``B(center, radius)`` that
    holds vertex ``a`` or ``a + 1`` (the ends of the anchor's segment); other
    vertices inside the ball stay fixed.

    Parameters
    ----------
    V : ndarray of shape (k + 1, d)
        Vertices of the current curve.
    center : ndarray of shape (d,)
        Centre of the local ball.
    radius : float
        Its radius.
    a : int
        The anchor's nearest segment.

    Returns
    -------
    block : tuple
        ``(first, last)``, or ``("empty", a + 1)`` when neither end of segment
        ``a`` is inside the ball (a grid point may then be inserted between
        them).
    """
    k = V.shape[0] - 1
    inside = np.sum(np.square(V - center), axis=1) <= radius * radius
    if not (inside[a] or inside[a + 1]):
        return ("empty", a + 1)
    first = last = a if inside[a] else a + 1
    while first > 0 and inside[first - 1]:
        first -= 1
    while last < k and inside[last + 1]:
        last += 1
    return (first, last)


def choose_candidate(objective: np.ndarray, kinds: np.ndarray, n_segments: np.ndarray) -> int:
    """The candidate of smallest objective; exact ties to fewer segments, then keep, then first.

    Parameters
    ----------
    objective : ndarray of shape (n_candidates,)
        The perturbed objective of each candidate.
    kinds : ndarray of int, shape (n_candidates,)
        Candidate kinds (0 is keep).
    n_segments : ndarray of int, shape (n_candidates,)
        Segments of each candidate.

    Returns
    -------
    choice : int
    """
    best = float(objective.min())
    tied = np.flatnonzero(objective == best)
    return int(tied[np.lexsort((tied, kinds[tied] != KEEP, n_segments[tied]))[0]])

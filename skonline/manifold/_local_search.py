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

Pure functions on arrays; they never write into their inputs.
"""

from __future__ import annotations

import numpy as np

from ._curve_fast import local_candidates

__all__ = [
    "apply_candidate",
    "choose_candidate",
    "fan_sqdist",
    "score_local_candidates",
    "vertex_block",
    "win_probability",
]

#: Quadrature of the winning probability: nodes and width of the window.
_QUAD_NODES = 2000
_QUAD_WIDTH = 50.0
#: Entries of the (rows x grid points) distance arrays held at once per step.
_FAN_BUDGET = 4_000_000

#: Run the compiled kernel (``False``: the NumPy one, for comparisons).
USE_COMPILED = True
#: Candidate kinds, in generation order.
KEEP, MOVE, INSERT, DELETE = 0, 1, 2, 3


def fan_sqdist(X, P, tips):
    """Squared distances of the rows of ``X`` to the segments ``[P, g]`` for every tip ``g``.

    ``O(n m d)`` with one matrix product.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The rows.
    P : ndarray of shape (d,)
        The common end of the segments.
    tips : ndarray of shape (m, d)
        The other ends.

    Returns
    -------
    sqdist : ndarray of shape (n, m)
    """
    Y = X - P
    U = tips - P
    yy = np.einsum("ij,ij->i", Y, Y)
    uu = np.einsum("ij,ij->i", U, U)
    inv = np.divide(1.0, uu, out=np.zeros_like(uu), where=uu > 0.0)
    dots = Y @ U.T
    tau = dots * inv
    np.clip(tau, 0.0, 1.0, out=tau)
    # yy - 2 tau dots + tau^2 uu, in place
    dots *= -2.0
    work = tau * uu
    work += dots
    work *= tau
    work += yy[:, None]
    return np.maximum(work, 0.0, out=work)


def _family_delta(X, w, D, dcur, amin, xc_dist, center, lo, hi, ends, tips):
    """Change of the weighted loss sum when segments ``[lo, hi)`` become ``[P, tip]``.

    For every tip: ``sum_s w_s (Delta(f_tip, x_s) - Delta(f, x_s))`` where
    ``f_tip`` drops the segments ``lo..hi-1`` of the current line and adds the
    segments joining each fixed end ``P`` to the tip. Rows far from every new
    segment (outside the ball around ``center`` holding them) and not
    projecting on a removed segment keep their loss and are skipped (exact
    pruning: a row at distance ``r`` from the curve and farther than
    ``r + rho`` from ``center`` cannot come closer to a new segment).
    """
    pts = np.vstack([tips, np.asarray(ends).reshape(-1, X.shape[1])])
    rho = float(np.sqrt(np.max(np.sum(np.square(pts - center), axis=1))))
    removed = (amin >= lo) & (amin < hi)
    rel = (w > 0.0) & (removed | (np.sqrt(dcur) > xc_dist - rho))
    idx = np.flatnonzero(rel)
    if idx.size == 0:
        return np.zeros(tips.shape[0])
    base = dcur[idx].copy()
    moved = removed[idx]
    if np.any(moved):
        sub = D[idx[moved]].copy()
        sub[:, lo:hi] = np.inf
        base[moved] = sub.min(axis=1) if sub.shape[1] else np.inf
    new = np.broadcast_to(base[:, None], (idx.size, tips.shape[0]))
    Xr = X[idx]
    for P in ends:
        new = np.minimum(new, fan_sqdist(Xr, P, tips))
    return (new - dcur[idx][:, None]).T @ w[idx]


def _fan_family_deltas(X, w, D, dcur, amin, xc_dist, center, V, G, families):
    """``_family_delta`` for every move/insert family of a step, sharing the fans.

    The segments ``[v_j, g]`` from one vertex serve up to four families (two
    moves, two inserts), so each vertex's fan of distances is computed once
    per chunk of rows. Rows that can change in no family are skipped (exact
    pruning); returns one array over all of ``G`` per family.
    """
    if not families:
        return []
    m = G.shape[0]
    used = sorted({j for f in families for j in f[4]})
    lo_min = min(f[2] for f in families)
    hi_max = max(f[3] for f in families)
    pts = np.vstack([G, V[used]])
    rho = float(np.sqrt(np.max(np.sum(np.square(pts - center), axis=1))))
    removed_any = (amin >= lo_min) & (amin < hi_max)
    idx = np.flatnonzero((w > 0.0) & (removed_any | (np.sqrt(dcur) > xc_dist - rho)))
    totals = [np.zeros(m) for _ in families]
    chunk = max(64, _FAN_BUDGET // max(1, m * len(used)))
    for start in range(0, idx.size, chunk):
        rows = idx[start : start + chunk]
        Xr, dr, ar, wr = X[rows], dcur[rows], amin[rows], w[rows]
        fans = {j: fan_sqdist(Xr, V[j], G) for j in used}
        for out, (_, _, lo, hi, ends, _, _) in zip(totals, families, strict=True):
            base = dr.copy()
            moved = (ar >= lo) & (ar < hi)
            if np.any(moved):
                sub = D[rows[moved]].copy()
                sub[:, lo:hi] = np.inf
                base[moved] = sub.min(axis=1) if sub.shape[1] else np.inf
            new = np.minimum(base[:, None], fans[ends[0]])
            for j in ends[1:]:
                np.minimum(new, fans[j], out=new)
            new -= dr[:, None]
            out += wr @ new
    return totals


def score_local_candidates(
    X,
    w,
    D,
    dcur,
    amin,
    V,
    block,
    G,
    *,
    can_insert,
    can_delete,
    center,
    max_length=None,
    return_lengths=False,
    return_turns=False,
    compiled=None,
):
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
        Also return each candidate's turn cost minus that of ``V``
        (:func:`turn_cost`).
    compiled : bool or None, default=None
        Use the compiled kernel (``_curve_fast``); ``None`` reads
        ``USE_COMPILED``. ``False`` runs the NumPy implementation, the
        previous kernel, kept as a second reference and for the benchmark.

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
    if USE_COMPILED if compiled is None else compiled:
        if block[0] == "empty":
            first, last, empty_pos = -1, -1, int(block[1])
        else:
            first, last, empty_pos = int(block[0]), int(block[1]), -1
        out = local_candidates(
            np.ascontiguousarray(X),
            np.ascontiguousarray(w, dtype=np.float64),
            D,
            np.ascontiguousarray(dcur),
            np.ascontiguousarray(amin, dtype=np.int64),
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
    out = _score_local_candidates_numpy(
        X, w, D, dcur, amin, V, block, G, can_insert=can_insert, can_delete=can_delete,
        center=center, max_length=max_length, return_lengths=True,
    )  # fmt: skip
    turns = candidate_turn_costs(V, out[0], out[1], out[2], G) - turn_cost(V)
    return out[:5] + ((out[5],) if return_lengths else ()) + ((turns,) if return_turns else ())


def _score_local_candidates_numpy(
    X, w, D, dcur, amin, V, block, G, *, can_insert, can_delete, center, max_length, return_lengths
):
    """:func:`score_local_candidates` in NumPy (the kernel before the compiled one)."""
    k = V.shape[0] - 1
    xc_dist = np.sqrt(np.sum(np.square(X - center), axis=1))
    seg_len = np.sqrt(np.sum(np.square(np.diff(V, axis=0)), axis=1))
    total_len = float(seg_len.sum())
    kinds, poss, gids, dls, ks = (
        [np.zeros(1, np.int64)],
        [np.zeros(1, np.int64)],
        [np.full(1, -1, np.int64)],
        [np.zeros(1)],
        [np.full(1, k, np.int64)],
    )

    lens = [np.full(1, total_len)]

    def valid_tips(ends, lo, hi, exclude=()):
        ok = np.ones(G.shape[0], dtype=bool)
        for P in list(ends) + list(exclude):
            ok &= np.any(G != P, axis=1)
        new_len = None
        if max_length is not None or return_lengths:
            new_len = np.full(G.shape[0], total_len - float(seg_len[lo:hi].sum()))
            for P in ends:
                new_len += np.sqrt(np.sum(np.square(G - P), axis=1))
        if max_length is not None:
            ok &= new_len <= max_length
        return ok, new_len

    def add(kind, pos, gidx, dl, n_seg, new_len=None):
        if return_lengths:
            lens.append(np.broadcast_to(np.asarray(new_len, dtype=np.float64), gidx.shape))
        kinds.append(np.full(gidx.size, kind, np.int64))
        poss.append(np.full(gidx.size, pos, np.int64))
        gids.append(gidx.astype(np.int64))
        dls.append(dl)
        ks.append(np.full(gidx.size, n_seg, np.int64))

    if block[0] == "empty":
        moves, inserts, deletes = [], [block[1]], []
    else:
        first, last = block
        moves = list(range(first, last + 1))
        inserts = list(range(first, last + 2))
        deletes = moves
    families: list[tuple] = []  # (kind, pos, lo, hi, end vertices, excluded vertex, segments)
    for l in moves:
        ends = ([l - 1] if l > 0 else []) + ([l + 1] if l < k else [])
        families.append((1, l, max(l - 1, 0), min(l + 1, k), ends, l, k))
    if can_insert:
        for q in inserts:
            ends = ([q - 1] if q > 0 else []) + ([q] if q <= k else [])
            lo, hi = (q - 1, q) if 1 <= q <= k else ((0, 0) if q == 0 else (k, k))
            families.append((2, q, lo, hi, ends, None, k + 1))
    totals = _fan_family_deltas(X, w, D, dcur, amin, xc_dist, center, V, G, families)
    for (kind, pos, lo, hi, ends, excl, n_seg), dl in zip(families, totals, strict=True):
        ok, new_len = valid_tips(
            [V[j] for j in ends], lo, hi, exclude=() if excl is None else (V[excl],)
        )
        gidx = np.flatnonzero(ok)
        if gidx.size:
            add(kind, pos, gidx, dl[gidx], n_seg, None if new_len is None else new_len[gidx])
    if can_delete:
        for l in deletes:
            lo, hi = max(l - 1, 0), min(l + 1, k)
            new_len = total_len - float(seg_len[lo:hi].sum())
            if 0 < l < k:
                if np.array_equal(V[l - 1], V[l + 1]):
                    continue
                ends, tip = [V[l - 1]], V[l + 1][None, :]
                new_len += float(np.linalg.norm(V[l + 1] - V[l - 1]))
                if max_length is not None and new_len > max_length:
                    continue
            else:
                ends, tip = [], V[l][None, :]
            dl = _family_delta(X, w, D, dcur, amin, xc_dist, center, lo, hi, ends, tip)
            add(3, l, np.full(1, -1), dl, k - 1, new_len)
    out = (
        np.concatenate(kinds),
        np.concatenate(poss),
        np.concatenate(gids),
        np.concatenate(dls),
        np.concatenate(ks),
    )
    return (*out, np.concatenate(lens)) if return_lengths else out


def apply_candidate(V, kind, pos, g):
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


def win_probability(a, winner):
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


def vertex_block(V, center, radius, a):
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


def choose_candidate(objective, kinds, n_segments):
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


def _turn(a, b, c):
    """``(1 − cos θ) / 2`` of the turn at ``b`` on the path ``a → b → c`` (0 if degenerate)."""
    u = b - a
    v = c - b
    uv = np.sum(u * v, axis=-1)
    nn = np.sqrt(np.sum(u * u, axis=-1)) * np.sqrt(np.sum(v * v, axis=-1))
    cos = np.divide(uv, nn, out=np.ones_like(uv), where=nn > 0.0)
    return 0.5 * (1.0 - np.clip(cos, -1.0, 1.0))


def turn_cost(V):
    """Sum of ``(1 − cos θ_i) / 2`` over the interior vertices of ``V``."""
    if V.shape[0] < 3:
        return 0.0
    return float(np.sum(_turn(V[:-2], V[1:-1], V[2:])))


def candidate_turn_costs(V, kinds, pos, gidx, G):
    """``turn_cost`` of every candidate curve, from the turns it changes."""
    k = V.shape[0] - 1
    base = turn_cost(V)
    out = np.full(kinds.size, base)

    def t(i, j, l, pts=None, slot=None):
        # turn at the middle of V[i], V[j], V[l]; a slot equal to -1 takes pts
        P = [pts if s == -1 else V[s] for s in (i, j, l)]
        return _turn(*P)

    def old(j):
        return float(_turn(V[j - 1], V[j], V[j + 1])) if 1 <= j <= k - 1 else 0.0

    for kind in (1, 2, 3):
        for p in np.unique(pos[kinds == kind]):
            sel = np.flatnonzero((kinds == kind) & (pos == p))
            g = G[gidx[sel]] if kind != 3 else None
            p = int(p)
            if kind == 1:
                removed = old(p - 1) + old(p) + old(p + 1)
                W = [V[j] for j in range(max(p - 2, 0), min(p + 2, k) + 1)]
                off = max(p - 2, 0)
                W[p - off] = g
            elif kind == 2:
                removed = old(p - 1) + old(p)
                W = [V[j] for j in range(max(p - 2, 0), min(p + 1, k) + 1)]
                off = max(p - 2, 0)
                W.insert(p - off, g)
            else:
                removed = old(p - 1) + old(p) + old(p + 1)
                W = [V[j] for j in range(max(p - 2, 0), min(p + 2, k) + 1) if j != p]
            added = 0.0
            for i in range(len(W) - 2):
                added = added + _turn(W[i], W[i + 1], W[i + 2])
            out[sel] = base - removed + added
    return out

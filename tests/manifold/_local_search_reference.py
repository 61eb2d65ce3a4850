"""The NumPy local search of a sequential principal curve: the reference of the compiled kernel.

The transcription the compiled kernel (``skonline/manifold/_curve_fast.pyx``)
replaced, kept here as the reference the tests compare it with and that
``benchmarks/bench_principal_curve.py`` times it against. Same candidates in
the same generation order, same exact pruning, with NumPy arrays: the fan of
distances from one vertex to every grid point is one matrix product
(:func:`fan_sqdist`) shared by up to four families (two moves, two inserts).

:func:`score_local_candidates_reference` has the signature of
:func:`skonline.manifold._local_search.score_local_candidates`.
"""

from __future__ import annotations

import numpy as np

#: Entries of the (rows x grid points) distance arrays held at once per step.
_FAN_BUDGET = 4_000_000


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


def score_local_candidates_reference(
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
):
    """:func:`~skonline.manifold._local_search.score_local_candidates` in NumPy."""
    out = _score_numpy(
        X,
        w,
        D,
        dcur,
        amin,
        V,
        block,
        G,
        can_insert=can_insert,
        can_delete=can_delete,
        center=center,
        max_length=max_length,
    )
    turns = candidate_turn_costs(V, out[0], out[1], out[2], G) - turn_cost(V)
    return out[:5] + ((out[5],) if return_lengths else ()) + ((turns,) if return_turns else ())


def _score_numpy(X, w, D, dcur, amin, V, block, G, *, can_insert, can_delete, center, max_length):
    """The candidates with their loss change and length, in NumPy (no turns)."""
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
        new_len = np.full(G.shape[0], total_len - float(seg_len[lo:hi].sum()))
        for P in ends:
            new_len += np.sqrt(np.sum(np.square(G - P), axis=1))
        if max_length is not None:
            ok &= new_len <= max_length
        return ok, new_len

    def add(kind, pos, gidx, dl, n_seg, new_len):
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
            add(kind, pos, gidx, dl[gidx], n_seg, new_len[gidx])
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
    return (*out, np.concatenate(lens))


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

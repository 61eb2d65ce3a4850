# cython: language_level=3
# boundscheck, wraparound and cdivision come from setup.py (a test build turns the checks on)
"""Compiled local search of a sequential principal curve (Guedj & Li, Algorithm 3).

One round of the practical slpc changes one vertex of the block inside the
local grid: keep; move ``v_l := g``; insert ``g``; delete ``v_l``
(:func:`skonline.manifold._local_search.score_local_candidates`). This module
generates the candidates of a round in that order and computes, for each:

* the change of the weighted loss of the stored rows,
  ``Σ_s w_s (Δ(f, x_s) − Δ(f̂, x_s))``. Only the rows whose nearest segment is
  replaced, or that a new segment can come closer to (a new segment lies in
  the ball ``B(center, rho)``: a row farther than ``sqrt(Δ(f̂, x)) + rho`` from
  ``center`` cannot), are visited (exact pruning). The distances from a
  row to the segments ``[v_j, g]`` of every grid point ``g`` are computed once
  per fixed vertex ``v_j`` and serve every family that uses ``v_j``;
* its length and its turn cost ``Σ_i (1 − cos θ_i) / 2``, from the few
  segments and turns it changes.

The work space of a round (a table of its families, one of the curve's
vertices, the fans) is sized from the round's block and curve and allocated
once per call, so any ``max_segments`` works; the block is checked against
the curve before any vertex is read.

Also: the squared distances of rows to segments (the caches of
:class:`~skonline.manifold._row_memory.RowMemory`). Plain C loops over
float64 with float64 accumulators; the arithmetic of one distance is that of
``fan_sqdist`` of the NumPy reference in ``tests/manifold/_local_search_reference.py``.
"""

from libc.math cimport INFINITY, sqrt

cimport numpy as cnp

import numpy as np

cnp.import_array()

cdef enum:
    KEEP = 0
    MOVE = 1
    INSERT = 2
    DELETE = 3

# rows of a round's family table (one column per family)
cdef enum:
    F_KIND = 0  # MOVE or INSERT
    F_POS = 1  # vertex moved, or insertion position
    F_LO = 2  # segments F_LO .. F_HI-1 of the curve are replaced
    F_HI = 3
    F_END = 4  # F_END, F_END+1: the fixed vertices joined to the grid point
    F_NE = 6  # how many (0 to 2)
    F_EXCL = 7  # a move's own vertex (a tip equal to it keeps the curve), or -1
    F_SLOT = 8  # F_SLOT, F_SLOT+1: the slots of the fixed vertices (rows of the fans)
    F_ROWS = 10

# rows of a round's vertex table (one column per vertex of the curve)
cdef enum:
    V_SLOT = 0  # the vertex's slot among the fixed vertices used, or -1
    V_USED = 1  # the vertex of each slot
    V_KEEPS = 2  # per slot, for the current row: the row keeps its segment in the slot's families
    V_NGOOD = 3  # per slot, for the current row: tips whose segment comes closer than the curve
    V_ROWS = 4


cdef inline double seg_sqdist(const double* x, const double* a, const double* b, int d,
                              double* tau_out) noexcept nogil:
    """``min_τ ||x − ((1 − τ) a + τ b)||²`` (τ = 0 if a = b).

    Inside the segment ``yy − 2 τ (y·u) + τ² uu``; at an end, ``||x − a||²`` or
    ``||x − b||²`` summed coordinate by coordinate, so a row nearest to a
    vertex gets bitwise the same distance from both segments that share it
    (and the lowest-index rule of the Voronoi labels decides, not rounding).
    """
    cdef double yy = 0.0, yu = 0.0, uu = 0.0, y, u, t, r
    cdef int j
    for j in range(d):
        y = x[j] - a[j]
        u = b[j] - a[j]
        yy += y * y
        yu += y * u
        uu += u * u
    t = yu / uu if uu > 0.0 else 0.0
    if t <= 0.0:
        if tau_out != NULL:
            tau_out[0] = 0.0
        return yy
    if t >= 1.0:
        if tau_out != NULL:
            tau_out[0] = 1.0
        r = 0.0
        for j in range(d):
            y = x[j] - b[j]
            r += y * y
        return r
    if tau_out != NULL:
        tau_out[0] = t
    r = yy - 2.0 * t * yu + t * t * uu
    return r if r > 0.0 else 0.0


cdef inline double dist(const double* a, const double* b, int d) noexcept nogil:
    cdef double s = 0.0, t
    cdef int j
    for j in range(d):
        t = a[j] - b[j]
        s += t * t
    return sqrt(s)


cdef inline double turn(const double* a, const double* b, const double* c, int d) noexcept nogil:
    """``(1 − cos θ) / 2`` of the turn at ``b`` on ``a → b → c`` (0 when a segment is empty)."""
    cdef double uv = 0.0, uu = 0.0, vv = 0.0, u, v, nn, cs
    cdef int j
    for j in range(d):
        u = b[j] - a[j]
        v = c[j] - b[j]
        uv += u * v
        uu += u * u
        vv += v * v
    nn = sqrt(uu) * sqrt(vv)
    if nn <= 0.0:
        return 0.0
    cs = uv / nn
    if cs > 1.0:
        cs = 1.0
    elif cs < -1.0:
        cs = -1.0
    return 0.5 * (1.0 - cs)


cdef inline bint same(const double* a, const double* b, int d) noexcept nogil:
    cdef int j
    for j in range(d):
        if a[j] != b[j]:
            return False
    return True


cdef double path_turns(const double** P, int n, int d) noexcept nogil:
    """Sum of the turns at the interior points of the path ``P[0..n-1]``."""
    cdef double s = 0.0
    cdef int i
    for i in range(n - 2):
        s += turn(P[i], P[i + 1], P[i + 2], d)
    return s


cdef double old_turn(const double[:, ::1] V, int j, int k) noexcept nogil:
    if j < 1 or j > k - 1:
        return 0.0
    return turn(&V[j - 1, 0], &V[j, 0], &V[j + 1, 0], V.shape[1])


cdef double family_turn_change(const double[:, ::1] V, int kind, int p, const double* g) noexcept nogil:
    """Turn cost of the candidate minus that of ``V`` (only the turns it changes)."""
    cdef int k = V.shape[0] - 1
    cdef int d = V.shape[1]
    cdef const double* P[6]
    cdef int n = 0, j, lo, hi
    cdef double removed
    if kind == MOVE:
        removed = old_turn(V, p - 1, k) + old_turn(V, p, k) + old_turn(V, p + 1, k)
        lo = p - 2 if p >= 2 else 0
        hi = p + 2 if p + 2 <= k else k
        for j in range(lo, hi + 1):
            P[n] = g if j == p else &V[j, 0]
            n += 1
    elif kind == INSERT:
        removed = old_turn(V, p - 1, k) + old_turn(V, p, k)
        lo = p - 2 if p >= 2 else 0
        hi = p + 1 if p + 1 <= k else k
        for j in range(lo, hi + 1):
            if j == p:
                P[n] = g
                n += 1
            P[n] = &V[j, 0]
            n += 1
        if p > hi:  # appended after the last vertex
            P[n] = g
            n += 1
    else:  # DELETE
        removed = old_turn(V, p - 1, k) + old_turn(V, p, k) + old_turn(V, p + 1, k)
        lo = p - 2 if p >= 2 else 0
        hi = p + 2 if p + 2 <= k else k
        for j in range(lo, hi + 1):
            if j != p:
                P[n] = &V[j, 0]
                n += 1
    return path_turns(P, n, d) - removed


def segments_sqdist(const double[:, ::1] X, const double[:, ::1] V, int lo, int m,
                    double[:, ::1] dist_out, double[:, ::1] tau_out):
    """Squared distances and parameters of the rows of ``X`` to segments ``lo .. lo+m-1`` of ``V``.

    Written into columns ``0 .. m-1`` of ``dist_out`` and ``tau_out``.
    """
    cdef Py_ssize_t n = X.shape[0], r
    cdef int d = X.shape[1], i
    if lo < 0 or m < 0 or lo + m > V.shape[0] - 1 or V.shape[1] != d:
        raise ValueError(f"segments {lo} .. {lo + m - 1} not on a curve of {V.shape[0] - 1}")
    if (dist_out.shape[0] < n or tau_out.shape[0] < n or dist_out.shape[1] < m
            or tau_out.shape[1] < m):
        raise ValueError("the output arrays are smaller than rows x segments")
    with nogil:
        for r in range(n):
            for i in range(m):
                dist_out[r, i] = seg_sqdist(&X[r, 0], &V[lo + i, 0], &V[lo + i + 1, 0], d,
                                            &tau_out[r, i])


cdef class StoredRows:
    """The stored rows a round scores its candidates on, with their caches.

    ``X`` (n, d): the rows; ``w`` (n,): their weights (0: not scored);
    ``D`` (n, k): their squared distances to the segments of the current
    curve; ``dcur`` (n,): the row minima of ``D``; ``amin`` (n,): the (lowest)
    arg-minima of ``D``, the Voronoi labels.
    """

    cdef const double[:, ::1] X
    cdef const double[::1] w
    cdef const double[:, :] D
    cdef const double[::1] dcur
    cdef const cnp.int64_t[::1] amin

    def __init__(self, const double[:, ::1] X, const double[::1] w, const double[:, :] D,
                 const double[::1] dcur, const cnp.int64_t[::1] amin):
        cdef Py_ssize_t n = X.shape[0]
        if w.shape[0] != n or D.shape[0] != n or dcur.shape[0] != n or amin.shape[0] != n:
            raise ValueError("the stored rows and their caches differ in length")
        self.X = X
        self.w = w
        self.D = D
        self.dcur = dcur
        self.amin = amin


cdef _check_block(StoredRows rows, const double[:, ::1] V, const double[:, ::1] G,
                  const double[::1] center, int first, int last, int empty_pos):
    """Raise ``ValueError`` unless every index the search takes from its arguments is in range."""
    cdef Py_ssize_t k = V.shape[0] - 1, d = V.shape[1]
    if k < 0:
        raise ValueError("the curve has no vertex")
    if rows.X.shape[1] != d or G.shape[1] != d or center.shape[0] != d:
        raise ValueError("the rows, the vertices, the grid and the centre differ in dimension")
    if rows.D.shape[1] < k:
        raise ValueError("the distance cache has fewer columns than the curve has segments")
    if first < 0:
        if not 0 <= empty_pos <= k + 1:
            raise ValueError(f"insertion position {empty_pos} outside 0 .. {k + 1}")
    elif not first <= last <= k:
        raise ValueError(f"vertex block {first} .. {last} outside 0 .. {k}")


def local_candidates(
    StoredRows rows,
    const double[:, ::1] V,
    const double[:, ::1] G,
    const double[::1] center,
    int first,
    int last,
    int empty_pos,
    bint can_insert,
    bint can_delete,
    double max_length,
    bint want_turns,
):
    """The candidates of one round, in generation order, with their loss change, length, turns.

    ``rows``: the stored rows and their caches against the segments of ``V``.
    The block is ``first .. last`` (``first < 0``: empty block, a grid point
    may be inserted at ``empty_pos`` only). ``max_length < 0``: no cap.
    Returns ``(kind, pos, gidx, delta_loss, n_segments, length, turn_change)``.
    """
    cdef const double[:, ::1] X = rows.X
    cdef const double[::1] w = rows.w
    cdef const double[:, :] D = rows.D
    cdef const double[::1] dcur = rows.dcur
    cdef const cnp.int64_t[::1] amin = rows.amin
    cdef int n = X.shape[0], d = X.shape[1], m = G.shape[0]
    cdef int k = V.shape[0] - 1
    cdef int nf = 0, f, j, l, q, r, g, c, e, i, nu = 0, ne, ng, keeps, lo, hi, a, s0, s1
    cdef int lo_min, hi_max
    cdef double rho = 0.0, t, total_len = 0.0, base, best, nd, wr, dr
    cdef bint moved

    _check_block(rows, V, G, center, first, last, empty_pos)
    # families: moves, then inserts (Algorithm 3's local changes, generation
    # order); every buffer is sized from the block, once per call
    if first < 0:
        nf = 1 if can_insert else 0
    else:
        nf = (last - first + 1) + ((last - first + 2) if can_insert else 0)
    # the family table and the vertex table: two buffers per call, sized from the
    # block and the curve (no bound the input can overflow)
    fam_a = np.empty((F_ROWS, max(nf, 1)), dtype=np.intc)
    vert_a = np.empty((V_ROWS, k + 1), dtype=np.intc)
    vert_a[V_SLOT] = -1
    cdef int[:, ::1] fam = fam_a, vert = vert_a
    nf = 0
    if first < 0:
        if can_insert:
            fam[F_KIND, nf] = INSERT
            fam[F_POS, nf] = empty_pos
            nf += 1
    else:
        for l in range(first, last + 1):
            fam[F_KIND, nf] = MOVE
            fam[F_POS, nf] = l
            nf += 1
        if can_insert:
            for q in range(first, last + 2):
                fam[F_KIND, nf] = INSERT
                fam[F_POS, nf] = q
                nf += 1
    for f in range(nf):
        l = fam[F_POS, f]
        ne = 0
        fam[F_EXCL, f] = -1
        fam[F_SLOT, f] = -1
        fam[F_SLOT + 1, f] = -1
        if fam[F_KIND, f] == MOVE:
            if l > 0:
                fam[F_END + ne, f] = l - 1
                ne += 1
            if l < k:
                fam[F_END + ne, f] = l + 1
                ne += 1
            fam[F_LO, f] = l - 1 if l > 0 else 0
            fam[F_HI, f] = l + 1 if l + 1 < k else k
            fam[F_EXCL, f] = l
        else:
            if l > 0:
                fam[F_END + ne, f] = l - 1
                ne += 1
            if l <= k:
                fam[F_END + ne, f] = l
                ne += 1
            if 1 <= l <= k:
                fam[F_LO, f] = l - 1
                fam[F_HI, f] = l
            elif l == 0:
                fam[F_LO, f] = 0
                fam[F_HI, f] = 0
            else:
                fam[F_LO, f] = k
                fam[F_HI, f] = k
        fam[F_NE, f] = ne
        for e in range(ne):
            j = fam[F_END + e, f]
            if vert[V_SLOT, j] < 0:
                vert[V_SLOT, j] = nu
                vert[V_USED, nu] = j
                nu += 1
            fam[F_SLOT + e, f] = vert[V_SLOT, j]

    seg_len = np.empty(k)
    cdef double[::1] sl = seg_len
    for j in range(k):
        sl[j] = dist(&V[j, 0], &V[j + 1, 0], d)
        total_len += sl[j]

    n_del_max = (last - first + 1) if (first >= 0 and can_delete) else 0
    cap = 1 + nf * m + n_del_max
    kind_a = np.empty(cap, dtype=np.int64)
    pos_a = np.empty(cap, dtype=np.int64)
    gidx_a = np.empty(cap, dtype=np.int64)
    dl_a = np.zeros(cap)
    ns_a = np.empty(cap, dtype=np.int64)
    len_a = np.empty(cap)
    turn_a = np.zeros(cap)
    cdef cnp.int64_t[::1] kind_v = kind_a, pos_v = pos_a, gidx_v = gidx_a, ns_v = ns_a
    cdef double[::1] dl_v = dl_a, len_v = len_a, turn_v = turn_a

    totals = np.zeros((max(nf, 1), max(m, 1)))
    fans = np.empty((max(nu, 1), max(m, 1)))
    reach = np.empty((max(nu, 1), max(m, 1)))
    cdef double[:, ::1] tot = totals, fan = fans, tip = reach
    cdef double sd, xp, yy, yu, tt
    cdef bint any_moved
    cdef double[:, :, ::1] U
    cdef double[:, ::1] uu, inv_uu
    cdef double[::1] y
    cdef int[:, ::1] good

    cdef int n_cand = 0
    cdef double new_len
    # keep
    kind_v[0] = KEEP
    pos_v[0] = 0
    gidx_v[0] = -1
    dl_v[0] = 0.0
    ns_v[0] = k
    len_v[0] = total_len
    turn_v[0] = 0.0
    n_cand = 1

    if nf > 0 and m > 0:
        # radius of the ball around center holding every new segment
        for g in range(m):
            t = dist(&G[g, 0], &center[0], d)
            if t > rho:
                rho = t
        for i in range(nu):
            t = dist(&V[vert[V_USED, i], 0], &center[0], d)
            if t > rho:
                rho = t
        lo_min = k
        hi_max = 0
        for f in range(nf):
            if fam[F_LO, f] < lo_min:
                lo_min = fam[F_LO, f]
            if fam[F_HI, f] > hi_max:
                hi_max = fam[F_HI, f]
        # the segments [v, g] of each used vertex v: directions, squared and plain lengths
        good = np.empty((max(nu, 1), max(m, 1)), dtype=np.intc)
        U = np.empty((max(nu, 1), max(m, 1), d))
        uu = np.empty((max(nu, 1), max(m, 1)))
        inv_uu = np.zeros((max(nu, 1), max(m, 1)))
        y = np.empty(d)
        for i in range(nu):
            for g in range(m):
                t = 0.0
                for j in range(d):
                    U[i, g, j] = G[g, j] - V[vert[V_USED, i], j]
                    t += U[i, g, j] * U[i, g, j]
                uu[i, g] = t
                if t > 0.0:
                    inv_uu[i, g] = 1.0 / t
                tip[i, g] = sqrt(t)
        with nogil:
            for r in range(n):
                wr = w[r]
                if wr == 0.0:
                    continue
                dr = dcur[r]
                any_moved = lo_min <= amin[r] < hi_max
                sd = sqrt(dr)
                if not any_moved and sd <= dist(&X[r, 0], &center[0], d) - rho:
                    continue
                # a vertex serves families in which the row keeps its segment
                # (prunable against Δ(f̂, x)) or loses it (not prunable)
                a = amin[r]
                for i in range(nu):
                    vert[V_KEEPS, i] = True
                if any_moved:
                    for f in range(nf):
                        if fam[F_LO, f] <= a < fam[F_HI, f]:
                            for e in range(fam[F_NE, f]):
                                vert[V_KEEPS, fam[F_SLOT + e, f]] = False
                for i in range(nu):
                    yy = 0.0
                    for j in range(d):
                        y[j] = X[r, j] - V[vert[V_USED, i], j]
                        yy += y[j] * y[j]
                    xp = sqrt(yy)
                    keeps = vert[V_KEEPS, i]
                    ng = 0
                    for g in range(m):
                        # a point of [v, g] is at least |x - v| - |g - v| from x: when
                        # that is >= sqrt(Δ(f̂, x)) the segment cannot bring x closer
                        if keeps and xp - tip[i, g] >= sd:
                            fan[i, g] = INFINITY
                            continue
                        yu = 0.0
                        for j in range(d):
                            yu += y[j] * U[i, g, j]
                        tt = yu * inv_uu[i, g]
                        if tt < 0.0:
                            tt = 0.0
                        elif tt > 1.0:
                            tt = 1.0
                        t = yy - 2.0 * tt * yu + tt * tt * uu[i, g]
                        fan[i, g] = t if t > 0.0 else 0.0
                        if fan[i, g] < dr:
                            good[i, ng] = g
                            ng += 1
                    vert[V_NGOOD, i] = ng
                for f in range(nf):
                    lo = fam[F_LO, f]
                    hi = fam[F_HI, f]
                    ne = fam[F_NE, f]
                    s0 = fam[F_SLOT, f]
                    s1 = fam[F_SLOT + 1, f]
                    if not (lo <= a < hi):
                        # only the tips whose segment comes closer than the curve change
                        # the row's loss (the others leave it at Δ(f̂, x))
                        for e in range(ne):
                            i = s0 if e == 0 else s1
                            for c in range(vert[V_NGOOD, i]):
                                g = good[i, c]
                                # the nearer of the family's (one or two) new segments
                                best = dr
                                q = 0
                                nd = fan[s0, g]
                                if nd < best:
                                    best = nd
                                if ne == 2:
                                    nd = fan[s1, g]
                                    if nd < best:
                                        best = nd
                                        q = 1
                                if q == e:  # counted once, from the end that is nearest
                                    tot[f, g] += wr * (best - dr)
                        continue
                    base = INFINITY
                    for c in range(k):
                        if (c < lo or c >= hi) and D[r, c] < base:
                            base = D[r, c]
                    for g in range(m):
                        best = base
                        if ne >= 1:
                            nd = fan[s0, g]
                            if nd < best:
                                best = nd
                            if ne == 2:
                                nd = fan[s1, g]
                                if nd < best:
                                    best = nd
                        tot[f, g] += wr * (best - dr)
        # the valid tips of each family, in grid order
        for f in range(nf):
            for g in range(m):
                if fam[F_EXCL, f] >= 0 and same(&G[g, 0], &V[fam[F_EXCL, f], 0], d):
                    continue
                moved = False
                for e in range(fam[F_NE, f]):
                    if same(&G[g, 0], &V[fam[F_END + e, f], 0], d):
                        moved = True
                if moved:
                    continue
                new_len = total_len
                for c in range(fam[F_LO, f], fam[F_HI, f]):
                    new_len -= sl[c]
                for e in range(fam[F_NE, f]):
                    new_len += dist(&G[g, 0], &V[fam[F_END + e, f], 0], d)
                if max_length >= 0.0 and new_len > max_length:
                    continue
                kind_v[n_cand] = fam[F_KIND, f]
                pos_v[n_cand] = fam[F_POS, f]
                gidx_v[n_cand] = g
                dl_v[n_cand] = tot[f, g]
                ns_v[n_cand] = k if fam[F_KIND, f] == MOVE else k + 1
                len_v[n_cand] = new_len
                if want_turns:
                    turn_v[n_cand] = family_turn_change(V, fam[F_KIND, f], fam[F_POS, f], &G[g, 0])
                n_cand += 1

    # deletes
    cdef int dlo, dhi
    cdef bint interior
    if n_del_max > 0:
        for l in range(first, last + 1):
            dlo = l - 1 if l > 0 else 0
            dhi = l + 1 if l + 1 < k else k
            interior = 0 < l < k
            new_len = total_len
            for c in range(dlo, dhi):
                new_len -= sl[c]
            if interior:
                if same(&V[l - 1, 0], &V[l + 1, 0], d):
                    continue
                new_len += dist(&V[l + 1, 0], &V[l - 1, 0], d)
                if max_length >= 0.0 and new_len > max_length:
                    continue
            dl_v[n_cand] = _delete_delta(X, w, D, dcur, amin, V, center, l, dlo, dhi, interior)
            kind_v[n_cand] = DELETE
            pos_v[n_cand] = l
            gidx_v[n_cand] = -1
            ns_v[n_cand] = k - 1
            len_v[n_cand] = new_len
            if want_turns:
                turn_v[n_cand] = family_turn_change(V, DELETE, l, NULL)
            n_cand += 1
    return (kind_a[:n_cand], pos_a[:n_cand], gidx_a[:n_cand], dl_a[:n_cand], ns_a[:n_cand],
            len_a[:n_cand], turn_a[:n_cand])


cdef double _delete_delta(const double[:, ::1] X, const double[::1] w, const double[:, :] D,
                          const double[::1] dcur, const cnp.int64_t[::1] amin,
                          const double[:, ::1] V, const double[::1] center,
                          int l, int lo, int hi, bint interior) noexcept nogil:
    """Loss change when vertex ``l`` goes: segments ``lo..hi-1`` become ``[v_{l-1}, v_{l+1}]``."""
    cdef int n = X.shape[0], d = X.shape[1], k = V.shape[0] - 1, r, c
    cdef double rho = 0.0, t, base, nd, total = 0.0, dr
    if interior:
        rho = dist(&V[l + 1, 0], &center[0], d)
        t = dist(&V[l - 1, 0], &center[0], d)
        if t > rho:
            rho = t
    else:
        rho = dist(&V[l, 0], &center[0], d)
    for r in range(n):
        if w[r] == 0.0:
            continue
        dr = dcur[r]
        if not (lo <= amin[r] < hi) and sqrt(dr) <= dist(&X[r, 0], &center[0], d) - rho:
            continue
        base = dr
        if lo <= amin[r] < hi:
            base = INFINITY
            for c in range(k):
                if (c < lo or c >= hi) and D[r, c] < base:
                    base = D[r, c]
        if interior:
            nd = seg_sqdist(&X[r, 0], &V[l - 1, 0], &V[l + 1, 0], d, NULL)
            if nd < base:
                base = nd
        total += w[r] * (base - dr)
    return total

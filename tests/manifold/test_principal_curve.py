"""SequentialPrincipalCurve: the practical slpc step against a textbook transcription,
caches, locality, the read-out methods and the kernels."""

import itertools
import math
import pickle

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from sklearn.exceptions import NotFittedError

from skonline import SequentialPrincipalCurve
from skonline.manifold import _principal_curve_kernels
from skonline.manifold._lattice import curve_key, local_grid, pc1_segment, theory_constants
from skonline.manifold._local_search import score_local_candidates, win_probability
from skonline.manifold._polyline import (
    point_at_arc_length,
    project_to_polyline,
    sqdist_to_segments,
)
from skonline.manifold._row_memory import VERTEX_TOL

from ._local_search_reference import fan_sqdist, score_local_candidates_reference


def cubic_stream(n=100, sigma=0.1, seed=0):
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.0, 10.0, n)
    return np.c_[u, 0.05 * (u - 5.0) ** 3] + sigma * rng.standard_normal((n, 2))


# ------------------------------------------------------------------ reference
def brute_loss(V, X):
    """Δ(f, x) by the definition: min over segments of the distance to the clipped projection."""
    out = np.empty(X.shape[0])
    for r, x in enumerate(X):
        best = np.inf
        for i in range(V.shape[0] - 1):
            a, b = V[i], V[i + 1]
            u = b - a
            t = 0.0 if u @ u == 0 else min(max((x - a) @ u / (u @ u), 0.0), 1.0)
            p = (1 - t) * a + t * b
            best = min(best, float((x - p) @ (x - p)))
        out[r] = best
    return out


def brute_labels(V, X):
    """Nearest segment (lowest index) and its parameter, row by row."""
    amin, tau = [], []
    for x in X:
        best, bi, bt = np.inf, 0, 0.0
        for i in range(V.shape[0] - 1):
            a, b = V[i], V[i + 1]
            u = b - a
            t = 0.0 if u @ u == 0 else min(max((x - a) @ u / (u @ u), 0.0), 1.0)
            p = (1 - t) * a + t * b
            dd = float((x - p) @ (x - p))
            if dd < best:
                best, bi, bt = dd, i, t
        amin.append(bi)
        tau.append(bt)
    return np.array(amin), np.array(tau)


class TextbookSLPC:
    """One round of the practical Algorithm 3, 'full' estimator, candidate by candidate.

    Every candidate curve is built as a vertex array and scored by the loss of
    every stored row from scratch; no cache, no pruning. Consumes the generator
    in the documented order (the reservoir's slot, Bernoulli, anchor, grid
    sampling, one Exp(1) per candidate in generation order; then each warm-up
    move: anchor, grid sampling, Exp(1) draws), so it must choose the same
    curves.

    The objective of a candidate ``W`` is ``S(W) + λ (penalty K(W) − z)``,
    plus, when set, ``S(f̂) (length_penalty Len(W) / spread + turn_penalty
    T(W))`` with ``S(f̂)`` the loss of the current curve on the stored rows,
    ``spread`` the root mean squared distance of all rows seen to their mean
    and ``T`` the sum of ``(1 − cos θ)/2`` over the turns. Options: ``bandit``
    (sleeping experts: scores on the explored rows plus the demotions
    ``alpha - (c0 - loss) / P``), ``max_memory`` with ``memory_policy``
    (a reservoir sample, Algorithm R, or a ring buffer of the most recent
    rows), ``warm_up_moves`` (extra moves around random stored rows after
    each of the first 50 rows) and ``clip_grid`` (grid points inside the
    bounding box of the neighbourhood's rows, widened by δ).
    """

    def __init__(
        self,
        delta,
        p=20,
        exploration=0.05,
        learning_rate=100.0,
        penalty=8.0,
        max_grid=400,
        seed=0,
        bandit=False,
        importance_threshold=0.1,
        length_penalty=0.0,
        turn_penalty=0.0,
        warm_up_moves=0,
        clip_grid=False,
        max_memory=None,
        memory_policy="reservoir",
    ):
        # the paper's delta, p, epsilon, eta and the penalty per segment
        self.delta, self.p, self.pen = delta, p, penalty
        self.eps, self.eta = exploration, learning_rate
        self.max_grid = max_grid
        self.rng = np.random.default_rng(seed)
        self.rows, self.V, self.losses, self.curves = [], None, [], []
        self.bandit, self.beta = bandit, importance_threshold
        self.lp, self.tp, self.moves, self.clip = (
            length_penalty,
            turn_penalty,
            warm_up_moves,
            clip_grid,
        )
        self.cap, self.policy = max_memory, memory_policy
        self.mem, self.flags, self.ptr, self.rmax, self.offered = [], [], 0, 0.0, 0
        self.demotion, self.pending, self.pending_explore = {}, None, True

    def _store(self, x, flag):
        """Store ``x``; returns its slot and whether it leaves after this step."""
        self.rmax = max(self.rmax, float(np.linalg.norm(x)))
        self.offered += 1
        if self.cap is None or len(self.mem) < self.cap:
            self.mem.append(x)
            self.flags.append(flag)
            return len(self.mem) - 1, False
        if self.policy == "window":
            slot = self.ptr
            self.ptr = (self.ptr + 1) % self.cap
        else:
            slot = int(self.rng.integers(self.offered))
            if slot >= self.cap:  # not kept: in the memory for its own step only
                self.mem.append(x)
                self.flags.append(flag)
                return len(self.mem) - 1, True
        self.mem[slot], self.flags[slot] = x, flag
        return slot, False

    def _key(self, W):
        return tuple(np.round(W / self.delta, 6).ravel())

    def feed(self, x):
        if self.V is None:
            self.rows.append(x)
            if len(self.rows) == 2:
                self.V = pc1_segment(np.array(self.rows), self.delta)
                self.losses += list(brute_loss(self.V, np.array(self.rows)))
                self.curves.append(self.V.copy())
                for r in self.rows:
                    self._store(r, False)
            return
        V, d, delta = self.V, x.shape[0], self.delta
        loss = float(brute_loss(V, x[None])[0])
        self.losses.append(loss)
        self.rows.append(x)
        R = max(self.rmax, float(np.linalg.norm(x))) / math.sqrt(d)
        c0 = d * (2 * R + delta) ** 2
        flag = False
        if self.bandit:
            if self.pending_explore:
                flag = True
            elif self.pending is not None and self.pending[1] > self.beta:
                key, prob = self.pending
                self.demotion[key] = (
                    self.demotion.get(key, 0.0) + c0 / self.beta - (c0 - loss) / prob
                )
                if self.cap is not None and len(self.demotion) > self.cap:
                    del self.demotion[next(iter(self.demotion))]  # documented cap: oldest key
            self.pending = None
        slot, transient = self._store(x, flag)
        explore = self.rng.random() < self.eps
        anchor = int(self.rng.integers(len(self.mem))) if explore else slot
        self._move(anchor, explore, R)
        n_t = len(self.losses) - 2
        if not self.bandit and n_t <= 50:
            for _ in range(self.moves):
                self._move(int(self.rng.integers(len(self.mem))), True, R)
        if transient:
            self.mem.pop()
            self.flags.pop()
        self.curves.append(self.V.copy())

    def _move(self, anchor, explore, R):
        V, delta = self.V, self.delta
        X = np.array(self.mem)
        d, k = X.shape[1], V.shape[0] - 1
        n_t = len(self.losses) - 2
        lbar = max(np.mean(self.losses[2:]), 1e-12 * delta**2)
        lam = lbar * math.sqrt(n_t) / self.eta
        if len(self.mem) < self.offered:  # a bounded memory stands for every row stored
            lam *= len(self.mem) / self.offered
        amin, tau = brute_labels(V, X)
        a = amin[anchor]  # a projection on a vertex v_j belongs to segment max(j - 1, 0)
        if tau[anchor] <= VERTEX_TOL:
            a = max(a - 1, 0)
        cells = []  # a projection within VERTEX_TOL of a vertex is the vertex
        for j, t in zip(amin, tau, strict=True):
            if VERTEX_TOL < t < 1 - VERTEX_TOL:
                cells.append(("S", j))
            else:
                cells.append(("V", j + 1 if t >= 1 - VERTEX_TOL else j))
        wanted = {("S", a - 1), ("S", a), ("S", a + 1), ("V", a), ("V", a + 1)}
        N = X[[c in wanted for c in cells]]
        cen = N.mean(axis=0)
        diam = float(np.sqrt(pdist(N, "sqeuclidean").max())) if len(N) > 1 else 0.0
        rad = max(diam, math.sqrt(d) * delta)
        G = local_grid(cen, rad, delta, math.sqrt(d) * R, [cen, X[anchor]], self.max_grid, self.rng)
        if self.clip:
            G = G[np.all((G >= N.min(0) - delta) & (G <= N.max(0) + delta), axis=1)]
        inside = [float(np.sum((v - cen) ** 2)) <= rad * rad for v in V]
        if inside[a] or inside[a + 1]:
            s = a if inside[a] else a + 1
            first = last = s
            while first > 0 and inside[first - 1]:
                first -= 1
            while last < k and inside[last + 1]:
                last += 1
            moves, inserts = list(range(first, last + 1)), list(range(first, last + 2))
        else:
            moves, inserts = [], [a + 1]
        cands = [V]
        for l in moves:
            for g in G:
                if np.array_equal(g, V[l]):
                    continue
                left = l > 0 and np.array_equal(g, V[l - 1])
                if left or (l < k and np.array_equal(g, V[l + 1])):
                    continue
                W = V.copy()
                W[l] = g
                cands.append(W)
        if k < self.p:
            for q in inserts:
                for g in G:
                    left = q > 0 and np.array_equal(g, V[q - 1])
                    if left or (q <= k and np.array_equal(g, V[q])):
                        continue
                    cands.append(np.insert(V, q, g, axis=0))
        if k > 1:
            for l in moves:
                if 0 < l < k and np.array_equal(V[l - 1], V[l + 1]):
                    continue
                cands.append(np.delete(V, l, axis=0))
        z = self.rng.exponential(size=len(cands))
        weights = np.array(self.flags, dtype=float) if self.bandit else np.ones(len(X))
        current = brute_loss(V, X) @ weights
        rows = np.array(self.rows)
        spread = max(math.sqrt(np.mean(np.sum((rows - rows.mean(0)) ** 2, axis=1))), delta)
        unperturbed = np.array(
            [
                brute_loss(W, X) @ weights
                + self.demotion.get(self._key(W), 0.0)
                + lam * self.pen * (W.shape[0] - 1)
                + current * self.lp * (curve_length(W) - curve_length(V)) / spread
                + current * self.tp * (turn_sum(W) - turn_sum(V))
                for W in cands
            ]
        )
        obj = unperturbed - lam * z
        best = obj.min()
        order = sorted(np.flatnonzero(obj == best), key=lambda i: (cands[i].shape[0], i != 0, i))
        self.V = cands[order[0]]
        if self.bandit:
            self.pending_explore = explore
            if not explore:
                # P(argmax_g (-unperturbed_g / lam + z_g) = winner) for z ~ Exp(1); the
                # quadrature is checked against Monte Carlo in its own test
                prob = win_probability(-unperturbed / lam, order[0])
                self.pending = (self._key(self.V), prob)


def curve_length(W):
    return float(np.sum(np.linalg.norm(np.diff(W, axis=0), axis=1)))


def turn_sum(W):
    """Sum over the interior vertices of ``(1 − cos θ)/2``, θ the turn (0 if degenerate)."""
    total = 0.0
    for i in range(1, W.shape[0] - 1):
        u, v = W[i] - W[i - 1], W[i + 1] - W[i]
        nn = np.linalg.norm(u) * np.linalg.norm(v)
        cos = 1.0 if nn == 0 else min(max(float(u @ v) / nn, -1.0), 1.0)
        total += 0.5 * (1.0 - cos)
    return total


#: The paper's Algorithm 3 (the practical version): every extension switched off.
PAPER = dict(
    length_penalty=0.0, turn_penalty=0.0, warm_up_moves=0, clip_grid=False, max_memory=None
)


def _textbook(seed, options):
    """The transcription with the estimator's settings ``options`` (the defaults otherwise)."""
    est = SequentialPrincipalCurve()
    return TextbookSLPC(
        0.1,
        exploration=options.get("exploration", est.exploration),
        max_grid=options.get("max_grid_points", 30),
        seed=seed,
        bandit=options.get("reward_estimator") == "bandit",
        importance_threshold=options.get("importance_threshold", 0.1),
        length_penalty=options.get("length_penalty", est.length_penalty),
        turn_penalty=options.get("turn_penalty", est.turn_penalty),
        warm_up_moves=options.get("warm_up_moves", est.warm_up_moves),
        clip_grid=options.get("clip_grid", est.clip_grid),
        max_memory=options.get("max_memory", est.max_memory),
        memory_policy=options.get("memory_policy", est.memory_policy),
    )


def _compare_row_by_row(X, seed, options):
    """Feed ``X`` to the transcription and the estimator; the same curve after every row."""
    ref = _textbook(seed, options)
    est = SequentialPrincipalCurve(
        lattice_spacing=0.1,
        random_state=seed,
        keep_history=True,
        **{"max_grid_points": 30, **options},
    )
    for t, x in enumerate(X):
        ref.feed(x)
        est.partial_fit(x[None])
        if t >= 1:
            np.testing.assert_array_equal(est.vertices_, ref.V, err_msg=f"row {t}")
            state = est._state
            n = state.memory.n_rows
            np.testing.assert_array_equal(state.memory.rows[:n], np.array(ref.mem))
            np.testing.assert_array_equal(state.memory.explored[:n], ref.flags)
            fast = sorted(state.demotion.values())
            np.testing.assert_allclose(fast, sorted(ref.demotion.values()), rtol=1e-8)
            if ref.pending is not None:
                prob = state.pending_choice[1]
                assert prob == pytest.approx(ref.pending[1], rel=1e-8, abs=1e-12)
    np.testing.assert_allclose(est.loss_history_, ref.losses, rtol=1e-10, atol=1e-12)
    assert est.cumulative_loss_ == pytest.approx(sum(ref.losses), rel=1e-10)
    return ref


@pytest.mark.parametrize(
    "seed, exploration, sort",
    [(0, 0.05, False), (1, 0.3, True), (2, 0.0, False)],
)
def test_fast_step_matches_textbook_transcription_paper(seed, exploration, sort):
    """The paper's objective (every extension off) against the transcription."""
    X = cubic_stream(40, seed=seed)
    if sort:
        X = X[np.argsort(X[:, 0])]
    ref = _compare_row_by_row(X, seed, dict(PAPER, exploration=exploration))
    assert len({c.shape[0] for c in ref.curves}) > 1, "the stream must change the segment count"


@pytest.mark.parametrize(
    "seed, n, options", [(10, 40, {}), (11, 70, {"warm_up_moves": 1}), (12, 40, {})]
)
def test_fast_step_matches_textbook_transcription_defaults(seed, n, options):
    """The default objective (length and turn prices, warm-up moves, clipped grid)."""
    X = cubic_stream(n, seed=seed)
    ref = _compare_row_by_row(X, seed, options)
    assert len({c.shape[0] for c in ref.curves}) > 1, "the stream must change the segment count"


@pytest.mark.parametrize(
    "seed, options",
    [
        (3, dict(PAPER, reward_estimator="bandit", exploration=0.3)),
        (4, dict(PAPER, reward_estimator="bandit", exploration=0.0, importance_threshold=0.05)),
        (5, dict(PAPER, length_penalty=0.5)),
        (6, dict(PAPER, max_memory=15, memory_policy="window", exploration=0.3)),
        (7, dict(reward_estimator="bandit", exploration=0.3, max_memory=12, length_penalty=0.25)),
        (8, dict(max_memory=15, exploration=0.3)),
        (9, dict(PAPER, max_memory=12, turn_penalty=1.0)),
    ],
)
def test_fast_step_matches_textbook_options(seed, options):
    """Bandit estimator, prices, reservoir and sliding window against the transcription."""
    X = cubic_stream(40, seed=seed)
    ref = _compare_row_by_row(X, seed, options)
    if ref.bandit and options["exploration"] == 0.0:
        assert ref.demotion, "exploitation rounds must demote"
    if options.get("max_memory"):
        assert ref.offered > options["max_memory"], "the memory must overflow"
    assert len({c.tobytes() for c in ref.curves}) > 1, "the curve must change"


def test_caches_equal_recomputation():
    X = cubic_stream(150, seed=3)
    for est in (
        SequentialPrincipalCurve(lattice_spacing=0.1, random_state=0, max_grid_points=60),
        SequentialPrincipalCurve(
            lattice_spacing=0.1, random_state=0, max_grid_points=60, max_memory=40
        ),
        SequentialPrincipalCurve(
            lattice_spacing=0.1,
            random_state=0,
            max_grid_points=60,
            max_memory=40,
            memory_policy="window",
        ),
    ):
        est.fit(X)
        memory, k = est._state.memory, est._state.n_segments
        n = memory.n_rows
        D, T = sqdist_to_segments(memory.rows[:n], est.vertices_)
        np.testing.assert_allclose(memory.sqdist[:n, :k], D, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(memory.tau[:n, :k], T, rtol=1e-12, atol=1e-14)
        np.testing.assert_array_equal(memory.nearest[:n], np.argmin(memory.sqdist[:n, :k], axis=1))
        np.testing.assert_allclose(memory.nearest_sqdist[:n], D.min(axis=1), rtol=1e-12, atol=1e-14)
        assert n == min(X.shape[0], est.max_memory or X.shape[0])
    # the sliding window holds exactly the last 40 rows
    assert sorted(map(tuple, memory.rows[:40])) == sorted(map(tuple, X[-40:]))


@pytest.mark.parametrize("reward_estimator", ["full", "bandit"])
def test_locality_one_vertex_per_row(reward_estimator):
    """Paper Fig. 9: a new point changes at most one vertex (moved, inserted or deleted)."""
    X = cubic_stream(120, seed=4)
    est = SequentialPrincipalCurve(
        lattice_spacing=0.1,
        random_state=1,
        reward_estimator=reward_estimator,
        max_grid_points=80,
        exploration=0.2,
        warm_up_moves=0,
    )
    est.partial_fit(X[:2])
    prev = est.vertices_
    changes = 0
    for x in X[2:]:
        est.partial_fit(x[None])
        cur = est.vertices_
        kp, kc = prev.shape[0], cur.shape[0]
        assert abs(kc - kp) <= 1
        if kc == kp:
            diff = np.flatnonzero(np.any(cur != prev, axis=1))
            assert diff.size <= 1
            changes += diff.size
        else:
            longer, shorter = (cur, prev) if kc > kp else (prev, cur)
            assert any(
                np.array_equal(np.delete(longer, i, axis=0), shorter)
                for i in range(longer.shape[0])
            )
            changes += 1
        prev = cur
    assert changes > 10


def test_warm_up_moves_change_the_curve_early_only():
    """``warm_up_moves`` extra local moves after each of the first 50 rows, none afterwards."""
    X = cubic_stream(120, seed=4)
    plain = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=1, warm_up_moves=0)
    moved = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=1, warm_up_moves=3)
    plain.partial_fit(X[:2])
    moved.partial_fit(X[:2])
    multi = 0
    for t, x in enumerate(X[2:], start=1):
        before = moved.vertices_
        moved.partial_fit(x[None])
        after = moved.vertices_
        if before.shape == after.shape:
            changed = int(np.sum(np.any(before != after, axis=1)))
        else:  # one insertion or deletion, or more changes
            longer, shorter = (
                (before, after) if before.shape[0] > after.shape[0] else (after, before)
            )
            single = longer.shape[0] == shorter.shape[0] + 1 and any(
                np.array_equal(np.delete(longer, i, axis=0), shorter)
                for i in range(longer.shape[0])
            )
            changed = 1 if single else 2
        if t > 50:
            assert changed <= 1, f"row {t}: a single local move after the warm-up"
        multi += changed > 1
    assert multi > 0, "warm-up moves must change several vertices in some rows"
    plain.partial_fit(X[2:])
    assert not np.array_equal(plain.vertices_, moved.vertices_)


def test_split_invariance_and_resume_bit_for_bit():
    X = cubic_stream(90, seed=5)
    params = dict(lattice_spacing=0.1, random_state=7, max_grid_points=50, exploration=0.2)
    ref = SequentialPrincipalCurve(**params).fit(X)
    est = SequentialPrincipalCurve(**params)
    for chunk in np.array_split(X, [1, 3, 10, 11, 50]):
        est.partial_fit(chunk)
    est = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(ref.vertices_, est.vertices_)
    assert ref.cumulative_loss_ == est.cumulative_loss_
    assert ref.n_samples_seen_ == est.n_samples_seen_ == 90


def test_transform_project_inverse_consistent_for_new_points():
    X = cubic_stream(150, seed=6)
    est = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=0).fit(X)
    new = cubic_stream(30, seed=60)
    S = est.transform(new)
    assert S.shape == (30, 1)
    assert np.all((S >= 0) & (S <= est.length_ + 1e-12))
    P = est.project(new)
    np.testing.assert_allclose(est.inverse_transform(S), P, atol=1e-10)
    # the parametrisation of a point does not depend on the other points given with it
    np.testing.assert_array_equal(est.transform(new[:5]), S[:5])
    np.testing.assert_array_equal(est.transform(np.vstack([X, new]))[-30:], S)
    # distances agree with the brute-force definition
    np.testing.assert_allclose(-est.score_samples(new), brute_loss(est.vertices_, new), rtol=1e-9)
    msd = brute_loss(est.vertices_, new).mean()
    delta = est.lattice_spacing_
    spread = np.sqrt(np.mean(np.sum((X - X.mean(0)) ** 2, axis=1)))
    penalised = -np.log((msd + delta**2) * (1 + est.length_ / spread) ** 2)
    assert est.score(new) == pytest.approx(penalised, rel=1e-9)
    np.testing.assert_allclose(
        np.sum((new - P) ** 2, axis=1), brute_loss(est.vertices_, new), rtol=1e-9, atol=1e-12
    )
    # arc lengths at the vertices, inverse_transform of the vertex arc lengths
    np.testing.assert_allclose(
        est.inverse_transform(est.arc_lengths_[:, None]), est.vertices_, atol=1e-12
    )
    assert est.length_ == pytest.approx(est.segment_lengths_.sum())
    assert est.vertices_.shape == (est.n_segments_ + 1, 2)
    # clipping beyond the ends
    np.testing.assert_allclose(
        est.inverse_transform([[-5.0], [1e9]]), est.vertices_[[0, -1]], atol=1e-12
    )


def test_projection_index_takes_largest_arc_length_on_ties():
    V = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    x = np.array([[0.5, 0.5]])  # equidistant from the three segments
    dist, s, _ = project_to_polyline(x, V)
    assert dist[0] == pytest.approx(0.25)
    assert s[0] == pytest.approx(2.5)
    np.testing.assert_allclose(point_at_arc_length(V, np.array([2.5])), [[0.5, 1.0]])


def test_r2_score_matches_paper_definition():
    X = cubic_stream(200, seed=8)
    est = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=0).fit(X)
    expected = 1 - brute_loss(est.vertices_, X).sum() / np.sum((X - X.mean(0)) ** 2)
    assert est.r2_score(X) == pytest.approx(expected, rel=1e-10)
    assert est.r2_score(X) > 0.98


def test_init_and_few_rows():
    est = SequentialPrincipalCurve(lattice_spacing=0.5, init_size=3)
    est.partial_fit(np.array([[0.0, 0.0], [1.0, 1.0]]))
    with pytest.raises(NotFittedError):
        est.transform([[0.0, 0.0]])
    est.partial_fit(np.array([[2.0, 2.0]]))
    np.testing.assert_allclose(est.vertices_, [[0.0, 0.0], [2.0, 2.0]], atol=1e-12)
    assert est.cumulative_loss_ == pytest.approx(0.0, abs=1e-20)
    # fit on one row: the degenerate initial segment of length delta
    one = SequentialPrincipalCurve(lattice_spacing=0.5).fit([[1.0, 2.0]])
    np.testing.assert_allclose(one.vertices_, [[0.75, 2.0], [1.25, 2.0]])
    with pytest.warns(UserWarning, match="lattice_spacing"):
        SequentialPrincipalCurve().fit([[1.0, 2.0]])
    # 1-D data
    x1 = np.linspace(0, 5, 40)[:, None]
    est1 = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=0).fit(x1)
    assert est1.score(x1) > -1e-2


def _spread(X):
    return np.sqrt(np.mean(np.sum((X - X.mean(0)) ** 2, axis=1)))


def test_default_lattice_spacing_from_the_warm_up():
    """δ = 0.02 × the spread of the rows seen, followed for 50 rows and fixed from then on."""
    X = cubic_stream(120, seed=9)
    est = SequentialPrincipalCurve(random_state=0).partial_fit(X[:30])
    assert est.lattice_spacing_ == pytest.approx(0.02 * _spread(X[:30]), rel=1e-12)
    est.partial_fit(X[30:])
    assert est.lattice_spacing_ == pytest.approx(0.02 * _spread(X[:50]), rel=1e-12)
    # rows split differently give the same lattice and curve
    est2 = SequentialPrincipalCurve(random_state=0)
    for i in range(120):
        est2.partial_fit(X[i : i + 1])
    assert est2.lattice_spacing_ == est.lattice_spacing_
    np.testing.assert_array_equal(est.vertices_, est2.vertices_)
    # fit on fewer rows fixes it from all of them
    few = SequentialPrincipalCurve(random_state=0).fit(X[:20])
    assert few.lattice_spacing_ == pytest.approx(0.02 * _spread(X[:20]), rel=1e-12)


def test_default_lattice_spacing_is_stable_across_row_orders():
    """Over 20 orders of one stream the warm-up step varies by less than 1.5x.

    Negative control: the former rule (0.01 × the largest distance to the mean
    of the first 2 rows) varies by more than 5x on the same orders.
    """
    X = cubic_stream(500, seed=9)
    rng = np.random.default_rng(0)
    new, old = [], []
    for _ in range(20):
        Xo = X[rng.permutation(500)]
        new.append(SequentialPrincipalCurve(random_state=0).fit(Xo[:60]).lattice_spacing_)
        old.append(0.01 * np.sqrt(np.max(np.sum((Xo[:2] - Xo[:2].mean(0)) ** 2, axis=1))))
    assert max(new) / min(new) < 1.5
    assert max(old) / min(old) > 5.0


def test_vertices_on_lattice_and_segment_cap():
    X = cubic_stream(300, seed=10)
    X = X[np.argsort(X[:, 0])]
    est = SequentialPrincipalCurve(lattice_spacing=0.1, max_segments=5, random_state=0).fit(X)
    assert est.n_segments_ <= 5
    V = est.vertices_
    # every vertex not from the initial segment is a lattice point
    init = pc1_segment(X[:2], 0.1)
    lattice = np.all(np.isclose(V / 0.1, np.round(V / 0.1), atol=1e-9), axis=1)
    from_init = np.array([any(np.array_equal(v, w) for w in init) for v in V])
    assert np.all(lattice | from_init)


def test_max_length_caps_the_curve():
    X = cubic_stream(120, seed=11)
    est = SequentialPrincipalCurve(lattice_spacing=0.1, max_length=8.0, random_state=0).fit(X)
    assert est.length_ <= 8.0 + 1e-9 or est.n_segments_ == 1


def test_max_memory_bounds_state():
    X = cubic_stream(400, seed=12)
    est = SequentialPrincipalCurve(lattice_spacing=0.1, max_memory=50, random_state=0)
    est.partial_fit(X[:100])
    small = len(pickle.dumps(est))
    est.partial_fit(X[100:])
    assert len(pickle.dumps(est)) <= small + 64
    assert est.n_samples_seen_ == 400
    assert est._state.memory.n_rows == 50


def test_bandit_and_theory_modes_run():
    X = cubic_stream(80, seed=13)
    b = SequentialPrincipalCurve(
        lattice_spacing=0.1, reward_estimator="bandit", exploration=0.5, random_state=0
    ).fit(X)
    assert np.isfinite(b.cumulative_loss_) and b._state.demotion
    th = SequentialPrincipalCurve(
        lattice_spacing=0.1, learning_rate="auto", penalty="auto", random_state=0
    ).fit(X)
    # the theoretical penalty c1 ~ 14 per segment at lambda ~ c0 sqrt(t): one segment only
    assert th.n_segments_ == 1


def test_state_params_fixed_after_first_call():
    X = cubic_stream(20, seed=14)
    est = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=0).fit(X)
    est.set_params(max_segments=3)
    with pytest.raises(ValueError, match="max_segments"):
        est.partial_fit(X[:2])
    est.set_params(max_segments=20, lattice_spacing=0.2)
    with pytest.raises(ValueError, match="lattice_spacing"):
        est.partial_fit(X[:2])
    # switching the loss history on mid-stream is refused before any row is used
    est.set_params(lattice_spacing=0.1, keep_history=True)
    before = pickle.dumps(est)
    with pytest.raises(ValueError, match="keep_history"):
        est.partial_fit(X[:2])
    assert pickle.dumps(est) == before
    assert est.set_params(keep_history=False).partial_fit(X[:2]).n_samples_seen_ == 22


def test_bad_parameters():
    X = cubic_stream(10)
    for params in (
        {"max_segments": 0},
        {"init_size": 1},
        {"lattice_spacing": 0.0},
        {"exploration": 1.5},
        {"importance_threshold": 1.0},
        {"learning_rate": "theory"},
        {"penalty": "theory"},
        {"penalty": -1.0},
        {"reward_estimator": "partial"},
    ):
        with pytest.raises(ValueError):
            SequentialPrincipalCurve(**params).fit(X)


# -------------------------------------------------------------------- kernels
def test_fan_sqdist_matches_definition():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    P = rng.standard_normal(3)
    tips = np.vstack([rng.standard_normal((5, 3)), P])  # last tip: zero-length segment
    D = fan_sqdist(X, P, tips)
    for j, g in enumerate(tips):
        np.testing.assert_allclose(D[:, j], brute_loss(np.vstack([P, g]), X), rtol=1e-9, atol=1e-12)


def _candidate_problem():
    """A curve, rows near it with weights 0, 1, 2, their caches and a local grid."""
    rng = np.random.default_rng(1)
    V = np.array([[0.0, 0.0], [1.0, 0.6], [2.0, 0.4], [3.0, 1.2], [4.0, 0.9], [5.0, 1.5]])
    t = rng.uniform(0.0, 5.0, 150)
    X = np.c_[t, np.interp(t, V[:, 0], V[:, 1])] + 0.3 * rng.standard_normal((150, 2))
    w = rng.integers(0, 3, 150).astype(np.float64)  # weights 0, 1, 2 (0: not scored)
    D, _ = sqdist_to_segments(X, V)
    amin, dcur = np.argmin(D, axis=1), D.min(axis=1)
    center = np.array([2.1, 0.7])
    G = np.round((center + 0.8 * rng.standard_normal((40, 2))) / 0.1) * 0.1
    G = np.unique(np.vstack([G, V[2]]), axis=0)  # V[2]: a duplicate and zero-length tip
    return X, w, D, dcur, amin, V, G, center


KERNELS = {"compiled": score_local_candidates, "numpy": score_local_candidates_reference}


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("block", [(1, 3), (0, 1), (4, 5), ("empty", 2)])
def test_candidate_scores_equal_brute_force_differences(block, kernel):
    """Every candidate's loss change (weighted, with exact pruning), length and turn change
    equal the definition, for the compiled kernel and its NumPy reference.

    Tolerance: each squared distance is a few float64 operations on numbers of
    its size, and a loss change sums ``n`` of them, so its error is within
    ``10 n eps`` of the sum of the magnitudes involved.
    """
    X, w, D, dcur, amin, V, G, center = _candidate_problem()
    kinds, pos, gidx, dloss, nseg, lens, turns = KERNELS[kernel](
        X,
        w,
        D,
        dcur,
        amin,
        V,
        block,
        G,
        can_insert=True,
        can_delete=True,
        center=center,
        return_lengths=True,
        return_turns=True,
    )
    base = brute_loss(V, X) @ w
    eps = np.finfo(np.float64).eps
    seen = set()
    rows = zip(kinds, pos, gidx, dloss, nseg, lens, turns, strict=True)
    for kd, ps, gi, dl, ns, ln, tc in rows:
        if kd == 0:
            W = V
        elif kd == 1:
            W = V.copy()
            W[ps] = G[gi]
        elif kd == 2:
            W = np.insert(V, ps, G[gi], axis=0)
        else:
            W = np.delete(V, ps, axis=0)
        assert W.shape[0] - 1 == ns
        assert np.all(np.any(np.diff(W, axis=0) != 0.0, axis=1)), "zero-length segment"
        key = W.tobytes()
        assert key not in seen
        seen.add(key)
        new = brute_loss(W, X) @ w
        tol = 10 * X.shape[0] * eps * (new + base)
        assert abs(dl - (new - base)) <= tol
        L = np.sum(np.sqrt(np.sum(np.diff(W, axis=0) ** 2, axis=1)))
        assert ln == pytest.approx(L, rel=1e-12)
        assert tc == pytest.approx(turn_sum(W) - turn_sum(V), abs=64 * eps * W.shape[0])
    # the candidate set: keep, moves and deletes in the block, inserts around it
    moves = [] if block[0] == "empty" else list(range(block[0], block[1] + 1))
    inserts = [block[1]] if block[0] == "empty" else list(range(block[0], block[1] + 2))
    assert set(pos[kinds == 1]) == set(moves)
    assert set(pos[kinds == 2]) == set(inserts)
    assert set(pos[kinds == 3]) == set(moves)
    assert np.sum(kinds == 0) == 1


@pytest.mark.parametrize("max_length", [None, 7.0])
@pytest.mark.parametrize("block", [(1, 3), (0, 1), (4, 5), ("empty", 2), (0, 5)])
def test_compiled_candidates_equal_the_numpy_reference(block, max_length):
    """The compiled kernel gives the NumPy reference's candidates, in its order, and scores."""
    X, w, D, dcur, amin, V, G, center = _candidate_problem()
    args = (X, w, D, dcur, amin, V, block, G)
    kw = dict(can_insert=True, can_delete=True, center=center, max_length=max_length)
    fast = score_local_candidates(*args, **kw, return_lengths=True, return_turns=True)
    ref = score_local_candidates_reference(*args, **kw, return_lengths=True, return_turns=True)
    for a, b in zip(fast[:3] + fast[4:5], ref[:3] + ref[4:5], strict=True):
        np.testing.assert_array_equal(a, b)
    scale = float(w @ dcur)
    np.testing.assert_allclose(fast[3], ref[3], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(fast[5], ref[5], rtol=1e-13)
    np.testing.assert_allclose(fast[6], ref[6], rtol=0, atol=1e-13)
    # without the optional outputs, the same first five arrays
    short = score_local_candidates(*args, **kw)
    assert len(short) == 5
    for a, b in zip(short, fast[:5], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "params", [{}, dict(max_memory=100, memory_policy="window", turn_penalty=0.0)]
)
def test_the_pass_with_the_numpy_reference_learns_the_same_curve(monkeypatch, params):
    """The whole pass, with the reference in place of the compiled kernel: the same curve."""
    rng = np.random.default_rng(4)
    u = rng.uniform(0.0, 10.0, 200)
    X = np.c_[u, 0.05 * (u - 5.0) ** 3] + 0.1 * rng.standard_normal((200, 2))
    fast = SequentialPrincipalCurve(random_state=0, **params).fit(X)
    monkeypatch.setattr(
        _principal_curve_kernels, "score_local_candidates", score_local_candidates_reference
    )
    ref = SequentialPrincipalCurve(random_state=0, **params).fit(X)
    np.testing.assert_array_equal(ref.vertices_, fast.vertices_)
    assert ref.cumulative_loss_ == fast.cumulative_loss_


def test_local_grid_enumeration_and_sampling():
    rng = np.random.default_rng(0)
    cen = np.array([0.33, -0.21])
    pts = local_grid(cen, 0.5, 0.1, None, [cen], 400, rng)
    inside = np.sum((pts - cen) ** 2, axis=1) <= 0.25 + 1e-12
    # every lattice point of the disc is there (plus the rounded centre)
    ii, jj = np.meshgrid(np.arange(-10, 11), np.arange(-10, 11))
    allp = np.c_[ii.ravel(), jj.ravel()] * 0.1
    expected = np.sum(np.sum((allp - cen) ** 2, axis=1) <= 0.25)
    assert inside.sum() == expected
    # sampled when the disc holds more than max_points
    S = local_grid(cen, 5.0, 0.01, None, [cen], 100, rng)
    assert 90 <= S.shape[0] <= 101
    assert np.all(np.sqrt(np.sum((S - cen) ** 2, axis=1)) <= 5.0 + 0.01)


def test_win_probability_against_monte_carlo():
    rng = np.random.default_rng(0)
    a = np.array([0.0, -0.3, 0.5, -2.0, 0.45])
    z = rng.exponential(size=(200000, a.size))
    freq = np.bincount(np.argmax(a + z, axis=1), minlength=a.size) / z.shape[0]
    probs = np.array([win_probability(a, i) for i in range(a.size)])
    np.testing.assert_allclose(probs, freq, atol=5e-3)
    assert probs.sum() == pytest.approx(1.0, abs=1e-3)
    assert win_probability(np.array([3.0]), 0) == 1.0


def test_theory_constants_match_the_spec_table():
    # Lemma 3 by hand: d = 2, delta = 1, R = 2, p = 3, L = 4
    c = theory_constants(2, 3, 1.0, 2.0, 4.0)
    assert c["c1"] == pytest.approx(11.808, abs=1e-3)
    assert c["c2"] == pytest.approx(2.490, abs=1e-3)
    assert c["c3"] == pytest.approx(3.912, abs=1e-3)
    assert c["c0"] == pytest.approx(50.0)
    # the paper's 2-D cubic (Section 5: R = max ||x|| / sqrt(d), L = 0.01 p sqrt(d) R),
    # delta = 0.1: c0 562.7, C 343.8
    c = theory_constants(2, 20, 0.1, 8.337, 0.01 * 20 * math.sqrt(2) * 8.337)
    assert c["c0"] == pytest.approx(562.7, rel=1e-3)
    assert c["C"] == pytest.approx(343.8, rel=2e-3)


def test_bandit_demotion_bookkeeping():
    """Exploitation rounds demote the chosen curve by alpha - (c0 - loss) / P (Alg. 3, line 9)."""
    X = cubic_stream(60, seed=15)
    est = SequentialPrincipalCurve(
        lattice_spacing=0.1,
        reward_estimator="bandit",
        exploration=0.0,
        importance_threshold=0.05,
        random_state=3,
        max_grid_points=50,
        keep_history=True,
    )
    est.partial_fit(X[:3])  # init + the first (always explored) row
    explored = est._state.memory.explored
    assert explored[2] and not explored[:2].any()
    beta = est.importance_threshold
    checked = 0
    for x in X[3:]:
        pending = est._state.pending_choice
        before = dict(est._state.demotion)
        est.partial_fit(x[None])
        state = est._state
        # exploration = 0: no exploration after the first row
        assert not state.memory.explored[state.memory.n_rows - 1]
        key, prob = pending
        loss = est.loss_history_[-1]
        assert 0.0 <= prob <= 1.0
        if prob > beta:
            expected = before.get(key, 0.0) + est.c0_ / beta - (est.c0_ - loss) / prob
            assert state.demotion[key] == pytest.approx(expected, rel=1e-12)
            checked += 1
        else:
            assert state.demotion.get(key, 0.0) == before.get(key, 0.0)
    assert checked > 0


def test_bandit_curve_keys_distinguish_curves_far_from_the_origin():
    """Curves one lattice step apart get different demotion keys even at |x| ~ 1e9."""
    X = cubic_stream(5) + 1e9
    est = SequentialPrincipalCurve(lattice_spacing=0.1, reward_estimator="bandit").fit(X)
    V = est.vertices_
    W = V.copy()
    W[0, 0] += 0.1
    delta = est.lattice_spacing_
    assert curve_key(V, delta) != curve_key(W, delta)
    assert curve_key(V, delta) == curve_key(V.copy(), delta)


def _max_excursion(V, true_curve):
    """Largest distance from a point of the polyline ``V`` to a dense sample of the true curve."""
    t = np.linspace(0.0, 1.0, 50)[:, None]
    pts = np.vstack([a + t * (b - a) for a, b in itertools.pairwise(V)])
    d2 = ((pts[:, None, :] - true_curve[None, :, :]) ** 2).sum(-1)
    return float(np.sqrt(d2.min(axis=1).max()))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_defaults_remove_the_folds_that_the_paper_objective_makes(seed):
    """The paper's objective folds across the noise; the default prices give the true curve."""
    X = cubic_stream(n=200, sigma=0.1, seed=seed)
    u = np.linspace(0.0, 10.0, 4001)
    true_curve = np.c_[u, 0.05 * (u - 5.0) ** 3]
    true_length = float(np.sum(np.linalg.norm(np.diff(true_curve, axis=0), axis=1)))
    plain = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=seed, **PAPER).fit(X)
    default = SequentialPrincipalCurve(random_state=seed).fit(X)
    # negative control: with the paper's objective the curve is far too long
    assert plain.length_ > 1.5 * true_length
    assert abs(default.length_ - true_length) < 0.1 * true_length
    assert _max_excursion(default.vertices_, true_curve) < 0.6
    assert default.r2_score(X) >= 0.99

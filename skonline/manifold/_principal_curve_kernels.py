"""The pure pass of a sequential principal curve: its state and one online pass.

Guedj & Li, "Sequential Learning of Principal Curves: Summarizing Data
Streams on the Fly": Algorithm 1 (follow-the-perturbed-leader over penalised
polygonal lines), Algorithm 2 (its ``η_t ∝ 1/sqrt(t)`` schedule) and
Algorithm 3 (``slpc``: local candidates around the newest point, sleeping
experts, bandit reward estimates).

Algorithm 3 cannot run as printed: its exploration branch ranks every
polygonal line on the lattice (about ``#Q_δ^(p+1)`` of them). This module
runs a practical, causal version (predict-then-update per row, one local
change per row, exploration = a neighbourhood around a random past row), with
the paper's sleeping-experts estimator as ``bandit=True`` and a
full-information estimator (every candidate scored on the stored past rows)
as the default.

Layout: :mod:`._lattice` (local grids, the first segment, Lemma 3's
constants), :mod:`._local_search` (candidates, their scores, win
probabilities; compiled in :mod:`._curve_fast`), :mod:`._row_memory` (the
stored rows and their Voronoi caches), :mod:`._polyline` (distances,
projections, arc lengths). Here: the learned state (:class:`CurveState`), the
settings of a pass (:class:`CurveParams`) and the pure pass
(:func:`curve_pass`). The estimator is in :mod:`._principal_curve`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..base import OnlineState, copy_arrays
from ..utils._random import copy_generator
from ._curve_fast import segments_sqdist
from ._lattice import (
    curve_key,
    default_lattice_spacing,
    local_grid,
    pc1_segment,
    point_set_diameter,
    theory_constants,
)
from ._local_search import (
    KEEP,
    apply_candidate,
    choose_candidate,
    score_local_candidates,
    vertex_block,
    win_probability,
)
from ._polyline import segment_sqdist
from ._row_memory import RowMemory, neighbourhood_mask, projection_segment

__all__ = [
    "CurveParams",
    "CurveState",
    "curve_pass",
    "lattice_radius",
    "loss_bound",
    "penalised_score",
]

#: Rows over which the default lattice step follows the data's spread.
_WARM_UP_ROWS = 50


# -------------------------------------------------------------------- state
@dataclass(kw_only=True, eq=False)
class CurveState(OnlineState):
    """Learned state of a sequential principal curve.

    Before the curve exists (fewer than ``init_size`` rows) only
    ``pending_rows``, ``rng`` and the counters are set.

    Attributes
    ----------
    rng : numpy.random.Generator
        The one generator of the exploration flags, anchors, sampled grids and
        perturbations.
    pending_rows : ndarray of shape (n_pending, n_features)
        Rows received before the curve exists (empty afterwards).
    lattice_spacing : float or None
        The lattice step ``δ``.
    vertices : ndarray of shape (n_segments + 1, n_features) or None
        Vertices of the current curve.
    memory : RowMemory or None
        The stored rows with their cached distances to the segments.
    n_updates : int
        Rows after the initial ones (the ``t`` of ``λ_t``).
    update_loss_sum : float
        Sum of their prequential losses (the running mean ``l̄_t``).
    max_norm : float
        Largest row norm seen (``R_t = max_norm / sqrt(d)``).
    demotion : dict
        Bandit estimator: the accumulated demotion of each curve chosen in an
        exploitation round, by :func:`~._lattice.curve_key`, oldest first.
    pending_choice : tuple or None
        Bandit estimator: ``(key, probability)`` of the curve chosen for the
        next row in an exploitation round, settled when that row arrives.
    pending_explore : bool
        Bandit estimator: the next row is an exploration row (full
        information). True for the first row after the initial ones.
    mean : ndarray of shape (n_features,) or None
        Mean of every row seen.
    sq_dev : float
        Sum of the squared distances of every row seen to their mean
        (Welford), so ``spread = sqrt(sq_dev / n_samples_seen)``.
    spacing_fixed : bool
        The lattice step is final (given, or estimated over the warm-up).
    """

    rng: np.random.Generator
    pending_rows: np.ndarray
    lattice_spacing: float | None = None
    vertices: np.ndarray | None = None
    memory: RowMemory | None = None
    n_updates: int = 0
    update_loss_sum: float = 0.0
    max_norm: float = 0.0
    demotion: dict = field(default_factory=dict)
    pending_choice: tuple[bytes, float] | None = None
    pending_explore: bool = True
    mean: np.ndarray | None = None
    sq_dev: float = 0.0
    spacing_fixed: bool = False

    def copy(self) -> CurveState:
        """A copy a pass may change: what :meth:`OnlineState.copy` gives, without its walk.

        Every array, the row memory's arrays, the bandit's dictionary and the
        generator (same bit generator, seed sequence and state) are the copy's
        own; the other fields are immutable values, shared. A pass costs a
        copy: this one is several times cheaper than ``copy.deepcopy``.
        """
        return copy_arrays(
            self,
            memory=None if self.memory is None else self.memory.copy(),
            demotion=dict(self.demotion),
            rng=copy_generator(self.rng),
        )

    @property
    def spread(self) -> float:
        """Root mean squared distance of the rows seen to their mean."""
        n = self.n_samples_seen
        return math.sqrt(self.sq_dev / n) if n else 0.0

    @property
    def n_segments(self) -> int:
        """Segments of the current curve (0 before it exists)."""
        return 0 if self.vertices is None else self.vertices.shape[0] - 1

    def curve(self) -> tuple[np.ndarray, RowMemory, float]:
        """The vertices, the row memory and the lattice step, once the curve exists."""
        if self.vertices is None or self.memory is None or self.lattice_spacing is None:
            raise ValueError("the curve does not exist yet")
        return self.vertices, self.memory, self.lattice_spacing


@dataclass(frozen=True)
class CurveParams:
    """The settings a pass reads (the estimator's parameters, validated).

    See :class:`SequentialPrincipalCurve` for their meaning.
    """

    max_segments: int = 20
    lattice_spacing: float | None = None
    radius: float | None = None
    max_length: float | None = None
    init_size: int = 2
    exploration: float = 0.05
    bandit: bool = False
    unobserved_reward: float | None = None
    importance_threshold: float = 0.1
    learning_rate: float | str = 100.0
    penalty: float | str = 8.0
    length_penalty: float = 0.1
    turn_penalty: float = 0.5
    warm_up_moves: int = 5
    clip_grid: bool = True
    max_grid_points: int = 100
    max_memory: int | None = 1000
    memory_policy: str = "reservoir"


# ------------------------------------------------------------------ kernels
def lattice_radius(state: CurveState, radius: float | None) -> float:
    """``R_t``: the data's ``max ||x|| / sqrt(d)``, or ``radius`` when larger (``None``: none)."""
    d = state.curve()[0].shape[1]
    r_t = state.max_norm / math.sqrt(d)
    return r_t if radius is None else max(float(radius), r_t)


def loss_bound(state: CurveState, radius: float | None) -> float:
    """``c0 = d (2 R_t + δ)²``, the bound on one row's loss (Lemma 3), ``R_t`` from ``radius``."""
    V, _, delta = state.curve()
    return V.shape[1] * (2.0 * lattice_radius(state, radius) + delta) ** 2


def _perturbation_scale(state: CurveState, params: CurveParams, c0: float) -> float:
    """``λ_t = 1/η_t``: the weight of the penalty and the perturbation this round.

    ``learning_rate="auto"``: Algorithm 2's ``c0 sqrt((e − 1) t) / sqrt(C)``
    (Theorem 2), with the paper's experimental ``L = 0.01 p sqrt(d) R`` when
    ``max_length`` is not set. A float ``η``: ``l̄_t sqrt(t) / η`` with ``l̄_t``
    the running mean prequential loss, the same ``sqrt(t)`` shape on the
    loss's own scale.

    A bounded memory holds ``n`` of the ``N`` rows stored so far, so its loss
    stands for ``N / n`` times less than the whole past's: ``λ_t`` is
    multiplied by ``n / N`` (1 when every row is kept).
    """
    n_t = state.n_updates
    V, memory, delta = state.curve()
    if params.learning_rate == "auto":
        d = V.shape[1]
        R = lattice_radius(state, params.radius)
        L = params.max_length
        if L is None:
            L = 0.01 * params.max_segments * math.sqrt(d) * R
        C = theory_constants(d, params.max_segments, delta, R, L)["C"]
        lam = c0 * math.sqrt((math.e - 1.0) * n_t) / math.sqrt(C)
    else:
        lbar = max(state.update_loss_sum / n_t, 1e-12 * delta**2)
        lam = lbar * math.sqrt(n_t) / float(params.learning_rate)
    if memory.n_rows < memory.n_offered:
        lam *= memory.n_rows / memory.n_offered
    return lam


def _segment_penalty(state: CurveState, params: CurveParams) -> float:
    """Penalty per segment in units of ``λ_t``; ``"auto"``: Lemma 3's ``c1``."""
    if params.penalty == "auto":
        V, _, delta = state.curve()
        return theory_constants(V.shape[1], params.max_segments, delta, 1.0, 0.0)["c1"]
    return float(params.penalty)


def _track_spread(state: CurveState, x: np.ndarray) -> None:
    """Add ``x`` to the running mean and squared deviations (Welford; in place)."""
    n = state.n_samples_seen  # rows counted so far, x included
    if state.mean is None:
        state.mean = np.zeros_like(x)
    diff = x - state.mean
    state.mean = state.mean + diff / n
    state.sq_dev += float(diff @ (x - state.mean))


def _update_lattice_spacing(state: CurveState, params: CurveParams, *, final: bool) -> None:
    """Set ``δ``: the given one, or ``0.02 ×`` the rows' spread during the warm-up.

    The step follows the spread of the rows seen until ``_WARM_UP_ROWS`` rows
    (or the end of ``fit``) and is fixed from then on. Rows that do not
    spread give no scale: 1.0, with a ``UserWarning`` once it is fixed.
    """
    if state.spacing_fixed:
        return
    if params.lattice_spacing is not None:
        state.lattice_spacing = float(params.lattice_spacing)
        state.spacing_fixed = True
        return
    spread = state.spread
    final = final or state.n_samples_seen >= _WARM_UP_ROWS
    state.lattice_spacing = default_lattice_spacing(spread, warn=final)
    state.spacing_fixed = final


def _initialise(state: CurveState, params: CurveParams, rng: np.random.Generator) -> list[float]:
    """Build the first curve and the row memory from the pending rows (Alg. 3, line 2).

    Writes into ``state`` (the pass's own copy); returns the prequential
    losses of the initial rows, scored with the initial curve.
    """
    X0 = state.pending_rows
    if state.lattice_spacing is None:
        raise ValueError("the lattice step is set before the first curve")
    V = pc1_segment(X0, state.lattice_spacing)
    state.vertices = V
    memory = state.memory = RowMemory.empty(
        X0.shape[1],
        params.max_segments,
        max_rows=params.max_memory,
        policy=params.memory_policy,
        expected_rows=X0.shape[0],
    )
    state.pending_rows = np.empty((0, X0.shape[1]))
    losses = []
    for x in X0:
        dist, tau = segment_sqdist(x[None, :], V[0], V[1])
        losses.append(float(dist[0]))
        memory.store(x, dist, tau, explored=False, rng=rng)
        memory.settle()
        state.max_norm = max(state.max_norm, float(np.sqrt(x @ x)))
    return losses


def _settle_bandit_round(state: CurveState, params: CurveParams, loss: float, c0: float) -> bool:
    """Algorithm 3, line 9, for the row just scored; returns whether it is explored.

    An exploration row is stored as explored (its loss scores every later
    candidate). After an exploitation round, the curve chosen with winning
    probability ``P > importance_threshold`` is demoted by
    ``unobserved_reward − (c0 − loss) / P`` (the reward ``α`` of every curve
    minus its importance-weighted reward ``r/P``).
    """
    explored = state.pending_explore
    if not explored and state.pending_choice is not None:
        key, prob = state.pending_choice
        threshold = params.importance_threshold
        if prob > threshold:
            reward = params.unobserved_reward
            if reward is None:
                reward = c0 / threshold
            state.demotion[key] = state.demotion.get(key, 0.0) + (reward - (c0 - loss) / prob)
            if params.max_memory is not None and len(state.demotion) > params.max_memory:
                state.demotion.pop(next(iter(state.demotion)))
    state.pending_choice = None
    return explored


def _turn_price_unit(state: CurveState, w: np.ndarray, dcur: np.ndarray) -> float:
    """``S(f̂) / (d − 1)``: the current curve's stored loss per direction across it.

    A row's squared distance to a curve in ``R^d`` adds up the ``d − 1``
    directions across the curve, and a turn (in the plane of two segments)
    lowers it in one of them only. Relative to the whole loss, a turn would
    cost ``d − 1`` times more in ``R^d`` than in the plane for the same gain,
    and a curve in 3-D and above stops bending before it follows the data.
    In the plane (``d ≤ 2``) this is the whole loss.
    """
    d = state.curve()[0].shape[1]
    return float(w @ dcur) / max(d - 1, 1)


def _length_price(state: CurveState, params: CurveParams, w: np.ndarray, dcur: np.ndarray) -> float:
    """Price of one unit of curve length: ``length_penalty · S(f̂) / spread``.

    ``S(f̂)`` is the (weighted) loss of the current curve on the stored rows
    and ``spread`` the root mean squared distance of the rows seen to their
    mean: lengthening the curve by the data's spread must lower the stored
    rows' loss by ``length_penalty`` times its current value. Both are learned
    online, so the price follows the data's scale and noise level.
    """
    spread = max(state.spread, state.curve()[2])
    return float(params.length_penalty) * float(w @ dcur) / spread


def _candidate_demotions(
    state: CurveState,
    V: np.ndarray,
    kinds: np.ndarray,
    pos: np.ndarray,
    gidx: np.ndarray,
    G: np.ndarray,
) -> np.ndarray:
    """The accumulated demotion of each candidate curve (0 for curves never demoted)."""
    delta = state.curve()[2]
    out = np.zeros(kinds.size)
    for i in range(kinds.size):
        g = G[gidx[i]] if gidx[i] >= 0 else None
        Vn, *_ = apply_candidate(V, int(kinds[i]), int(pos[i]), g)
        out[i] = state.demotion.get(curve_key(Vn, delta), 0.0)
    return out


def _step(state: CurveState, params: CurveParams, x: np.ndarray) -> float:
    """One round of the practical Algorithm 3: score ``x``, then update the curve around it.

    Writes into ``state`` (the pass's own copy) and returns the prequential
    loss of ``x``. The generator is drawn in a fixed order: the reservoir's
    slot (once a bounded reservoir is full), the exploration flag, the anchor
    (exploration rounds), the sampled grid (large local balls), one Exp(1)
    per candidate.
    """
    V, memory, _ = state.curve()
    k = V.shape[0] - 1
    # 1. prequential loss with the current curve
    dist = np.empty((1, k))
    tau = np.empty((1, k))
    segments_sqdist(x[None, :], V, 0, k, dist, tau)
    dist, tau = dist[0], tau[0]
    loss = float(dist.min())
    state.n_updates += 1
    state.update_loss_sum += loss
    state.max_norm = max(state.max_norm, float(np.sqrt(x @ x)))
    c0 = loss_bound(state, params.radius)
    explored = _settle_bandit_round(state, params, loss, c0) if params.bandit else False
    # 2. store x, draw the exploration flag (Alg. 3, line 4) and the anchor
    slot = memory.store(x, dist, tau, explored, rng=state.rng)
    n = memory.n_rows
    explore = bool(state.rng.random() < params.exploration)
    anchor = int(state.rng.integers(n)) if explore else slot
    _local_move(state, params, anchor, explore, c0)
    for _ in range(_replays(state, params)):
        _local_move(state, params, int(state.rng.integers(n)), True, c0)
    memory.settle()
    return loss


def _replays(state: CurveState, params: CurveParams) -> int:
    """Extra local moves after the ``t``-th row: ``warm_up_moves`` while ``t ≤ 50``."""
    if params.bandit or state.n_updates > _WARM_UP_ROWS:
        return 0
    return int(params.warm_up_moves)


def _local_move(
    state: CurveState, params: CurveParams, anchor: int, explore: bool, c0: float
) -> None:
    """Steps 3-7 of a round: the local candidates around ``anchor``, the choice, the move."""
    V, memory, delta = state.curve()
    k = V.shape[0] - 1
    d = V.shape[1]
    n = memory.n_rows
    Xm = memory.rows[:n]
    amin = memory.nearest[:n]
    dcur = memory.nearest_sqdist[:n]
    # 3. Voronoi neighbourhood of the anchor, its mean and diameter (Section 4)
    tau = memory.nearest_tau()
    a = projection_segment(amin[anchor], tau[anchor])
    members = Xm[neighbourhood_mask(amin, tau, a)]
    center = members.mean(axis=0)
    rad = max(point_set_diameter(members), math.sqrt(d) * delta)
    # 4. the local grid, and the block of vertices inside its ball
    ball = math.sqrt(d) * lattice_radius(state, params.radius)
    G = local_grid(
        center, rad, delta, ball, [center, Xm[anchor]], params.max_grid_points, state.rng
    )
    if params.clip_grid:
        G = G[
            np.all((G >= members.min(axis=0) - delta) & (G <= members.max(axis=0) + delta), axis=1)
        ]
    block = vertex_block(V, center, rad, a)
    # 5. candidates and their objective (Alg. 3, line 5)
    w = memory.explored[:n].astype(np.float64) if params.bandit else np.ones(n)
    use_len = float(params.length_penalty) > 0.0
    use_turns = float(params.turn_penalty) > 0.0
    kinds, pos, gidx, dloss, nseg, *extra = score_local_candidates(
        Xm,
        w,
        memory.sqdist[:n, :k],
        dcur,
        amin,
        V,
        block,
        G,
        can_insert=k < params.max_segments,
        can_delete=k > 1,
        center=center,
        max_length=params.max_length,
        return_lengths=use_len,
        return_turns=use_turns,
    )
    if params.bandit and state.demotion:
        dloss = dloss + _candidate_demotions(state, V, kinds, pos, gidx, G)
    lam = _perturbation_scale(state, params, c0)
    pen = _segment_penalty(state, params)
    z = state.rng.exponential(size=kinds.size)
    obj = dloss + lam * (pen * nseg - z)
    # the prices (extensions of the paper's objective), relative to keeping the curve
    price_term: float | np.ndarray = 0.0
    if use_len:
        price_term = _length_price(state, params, w, dcur) * (extra[0] - extra[0][0])
    if use_turns:
        unit = _turn_price_unit(state, w, dcur)
        price_term = price_term + float(params.turn_penalty) * unit * extra[-1]
    obj += price_term
    choice = choose_candidate(obj, kinds, nseg)
    g = G[gidx[choice]] if gidx[choice] >= 0 else None
    V_new, lo, hi, m = apply_candidate(V, int(kinds[choice]), int(pos[choice]), g)
    # 6. bandit bookkeeping for the next row
    if params.bandit:
        state.pending_explore = explore
        if not explore:
            # the unperturbed objective, prices included
            score = -(dloss + lam * pen * nseg + price_term) / lam if lam > 0 else -dloss
            prob = win_probability(score, choice)
            state.pending_choice = (curve_key(V_new, delta), prob)
    # 7. move to the new curve and update the caches
    if kinds[choice] != KEEP:
        memory.replace_segments(V_new, k, lo, hi, m)
        state.vertices = V_new


def curve_pass(
    state: CurveState, X: np.ndarray, params: CurveParams, *, finish: bool = False
) -> tuple[CurveState, np.ndarray]:
    """Learn from the rows of ``X`` in order; a pure kernel.

    Each row is scored with the current curve (its prequential loss), then
    the curve changes locally around it. Rows that arrive before the curve
    exists are held until ``init_size`` of them build it.

    Parameters
    ----------
    state : CurveState
        The state before the pass; never written into.
    X : ndarray of shape (n_samples, n_features)
        The rows, validated.
    params : CurveParams
        The settings.
    finish : bool, default=False
        Build the curve from the pending rows at the end of the pass even when
        they are fewer than ``init_size`` (``fit``).

    Returns
    -------
    new_state : CurveState
        The state after the pass (a new object).
    losses : ndarray of shape (n_scored,)
        The prequential losses of the rows scored during the pass (rows still
        pending have none yet).

    Raises
    ------
    FloatingPointError
        When the rows are so large that the arithmetic overflows float64.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    state = state.copy()
    losses = []
    try:
        with np.errstate(over="raise", invalid="raise"):
            for x in X:
                state.n_samples_seen += 1
                _track_spread(state, x)
                if state.vertices is None:
                    state.pending_rows = np.vstack([state.pending_rows, x[None, :]])
                    if state.pending_rows.shape[0] >= params.init_size:
                        _update_lattice_spacing(state, params, final=False)
                        losses.extend(_initialise(state, params, state.rng))
                    continue
                _update_lattice_spacing(state, params, final=False)
                losses.append(_step(state, params, x))
            if finish and state.n_samples_seen:
                _update_lattice_spacing(state, params, final=True)
                if state.vertices is None:
                    losses.extend(_initialise(state, params, state.rng))
            if not all(math.isfinite(v) for v in state.demotion.values()):
                raise FloatingPointError("a bandit demotion is not finite")
    except (FloatingPointError, OverflowError) as exc:
        raise FloatingPointError(
            f"the principal-curve update overflowed float64 ({exc}); rescale the rows "
            "(and lattice_spacing with them)."
        ) from exc
    state.record_losses(losses)
    return state, np.asarray(losses, dtype=np.float64)


def penalised_score(msd: float, length: float, spread: float, delta: float) -> float:
    """``−log((msd + δ²) (1 + length / spread)²)``, the criterion of ``score``."""
    return -(math.log(msd + delta * delta) + 2.0 * math.log1p(length / max(spread, delta)))

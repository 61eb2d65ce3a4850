"""Sequential learning of principal curves: SequentialPrincipalCurve (slpc).

Guedj & Li, "Sequential Learning of Principal Curves: Summarizing Data
Streams on the Fly": Algorithm 1 (follow-the-perturbed-leader over penalised
polygonal lines), Algorithm 2 (its ``η_t ∝ 1/sqrt(t)`` schedule) and
Algorithm 3 (``slpc``: local candidates around the newest point, sleeping
experts, bandit reward estimates).

Algorithm 3 cannot run as printed: its exploration branch ranks every
polygonal line on the lattice (about ``#Q_δ^(p+1)`` of them). This module
runs a practical, causal version (predict-then-update per row, one local
change per row, exploration = a neighbourhood around a random past row), with
the paper's sleeping-experts estimator as ``reward_estimator="bandit"`` and a
full-information estimator (every candidate scored on the stored past rows)
as the default.

Layout: :mod:`._lattice` (local grids, the first segment, Lemma 3's
constants), :mod:`._local_search` (candidates, their scores, win
probabilities), :mod:`._row_memory` (the stored rows and their Voronoi
caches). Here: the learned state (:class:`CurveState`), the pure pass
(:func:`curve_pass`), then the estimator, which validates, holds the state
and reads it out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_array

from ..base import OnlineEstimator, OnlineLossMixin, OnlineState, ParamRecord
from ..utils._polyline import (
    arc_lengths,
    point_at_arc_length,
    project_to_polyline,
    segment_sqdist,
)
from ..utils._random import as_generator
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
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
from ._row_memory import RowMemory, neighbourhood_mask, projection_segment

#: Rows over which the default lattice step follows the data's spread.
_WARM_UP_ROWS = 50

__all__ = ["CurveParams", "CurveState", "SequentialPrincipalCurve", "curve_pass"]


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

    @property
    def spread(self):
        """Root mean squared distance of the rows seen to their mean."""
        n = self.n_samples_seen
        return math.sqrt(self.sq_dev / n) if n else 0.0

    @property
    def n_segments(self):
        """Segments of the current curve (0 before it exists)."""
        return 0 if self.vertices is None else self.vertices.shape[0] - 1


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
def lattice_radius(state, radius):
    """``R_t``: the data's ``max ||x|| / sqrt(d)``, or ``radius`` when larger (``None``: none)."""
    d = state.vertices.shape[1]
    r_t = state.max_norm / math.sqrt(d)
    return r_t if radius is None else max(float(radius), r_t)


def loss_bound(state, radius):
    """``c0 = d (2 R_t + δ)²``, the bound on one row's loss (Lemma 3), ``R_t`` from ``radius``."""
    d = state.vertices.shape[1]
    return d * (2.0 * lattice_radius(state, radius) + state.lattice_spacing) ** 2


def _perturbation_scale(state, params, c0):
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
    delta = state.lattice_spacing
    if params.learning_rate == "auto":
        d = state.vertices.shape[1]
        R = lattice_radius(state, params.radius)
        L = params.max_length
        if L is None:
            L = 0.01 * params.max_segments * math.sqrt(d) * R
        C = theory_constants(d, params.max_segments, delta, R, L)["C"]
        lam = c0 * math.sqrt((math.e - 1.0) * n_t) / math.sqrt(C)
    else:
        lbar = max(state.update_loss_sum / n_t, 1e-12 * delta**2)
        lam = lbar * math.sqrt(n_t) / float(params.learning_rate)
    memory = state.memory
    if memory.n_rows < memory.n_offered:
        lam *= memory.n_rows / memory.n_offered
    return lam


def _segment_penalty(state, params):
    """Penalty per segment in units of ``λ_t``; ``"auto"``: Lemma 3's ``c1``."""
    if params.penalty == "auto":
        d = state.vertices.shape[1]
        return theory_constants(d, params.max_segments, state.lattice_spacing, 1.0, 0.0)["c1"]
    return float(params.penalty)


def _track_spread(state, x):
    """Add ``x`` to the running mean and squared deviations (Welford; in place)."""
    n = state.n_samples_seen  # rows counted so far, x included
    if state.mean is None:
        state.mean = np.zeros_like(x)
    diff = x - state.mean
    state.mean = state.mean + diff / n
    state.sq_dev += float(diff @ (x - state.mean))


def _update_lattice_spacing(state, params, *, final):
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


def _initialise(state, params, rng):
    """Build the first curve and the row memory from the pending rows (Alg. 3, line 2).

    Writes into ``state`` (the pass's own copy); returns the prequential
    losses of the initial rows, scored with the initial curve.
    """
    X0 = state.pending_rows
    V = pc1_segment(X0, state.lattice_spacing)
    state.vertices = V
    state.memory = RowMemory.empty(
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
        state.memory.store(x, dist, tau, explored=False, rng=rng)
        state.memory.settle()
        state.max_norm = max(state.max_norm, float(np.sqrt(x @ x)))
    return losses


def _settle_bandit_round(state, params, loss, c0):
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


def _length_price(state, params, w, dcur):
    """Price of one unit of curve length: ``length_penalty · S(f̂) / spread``.

    ``S(f̂)`` is the (weighted) loss of the current curve on the stored rows
    and ``spread`` the root mean squared distance of the rows seen to their
    mean: lengthening the curve by the data's spread must lower the stored
    rows' loss by ``length_penalty`` times its current value. Both are learned
    online, so the price follows the data's scale and noise level.
    """
    spread = max(state.spread, state.lattice_spacing)
    return float(params.length_penalty) * float(w @ dcur) / spread


def _candidate_demotions(state, V, kinds, pos, gidx, G):
    """The accumulated demotion of each candidate curve (0 for curves never demoted)."""
    out = np.zeros(kinds.size)
    for i in range(kinds.size):
        g = G[gidx[i]] if gidx[i] >= 0 else None
        Vn, *_ = apply_candidate(V, int(kinds[i]), int(pos[i]), g)
        out[i] = state.demotion.get(curve_key(Vn, state.lattice_spacing), 0.0)
    return out


def _step(state, params, x):
    """One round of the practical Algorithm 3: score ``x``, then update the curve around it.

    Writes into ``state`` (the pass's own copy) and returns the prequential
    loss of ``x``. The generator is drawn in a fixed order: the reservoir's
    slot (once a bounded reservoir is full), the exploration flag, the anchor
    (exploration rounds), the sampled grid (large local balls), one Exp(1)
    per candidate.
    """
    V = state.vertices
    k = V.shape[0] - 1
    memory = state.memory
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


def _replays(state, params):
    """Extra local moves after the ``t``-th row: ``warm_up_moves`` while ``t ≤ 50``."""
    if params.bandit or state.n_updates > _WARM_UP_ROWS:
        return 0
    return int(params.warm_up_moves)


def _local_move(state, params, anchor, explore, c0):
    """Steps 3-7 of a round: the local candidates around ``anchor``, the choice, the move."""
    V = state.vertices
    k = V.shape[0] - 1
    d = V.shape[1]
    delta = state.lattice_spacing
    memory = state.memory
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
    price_term = 0.0
    if use_len:
        price_term = _length_price(state, params, w, dcur) * (extra[0] - extra[0][0])
    if use_turns:
        price_term = price_term + float(params.turn_penalty) * float(w @ dcur) * extra[-1]
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


def curve_pass(state, X, params, *, finish=False):
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


def penalised_score(msd, length, spread, delta):
    """``−log((msd + δ²) (1 + length / spread)²)``, the criterion of ``score``."""
    return -(math.log(msd + delta * delta) + 2.0 * math.log1p(length / max(spread, delta)))


# --------------------------------------------------------------- estimator
@dataclass(frozen=True)
class CurveFrozen(ParamRecord):
    """The parameters that shape a curve's state (every other one is live)."""

    max_segments: int
    max_memory: int | None
    memory_policy: str
    reward_estimator: str
    keep_history: bool
    lattice_spacing: float | None


@dataclass(frozen=True)
class CurveLive(ParamRecord):
    """The live parameters that read-outs need, as the last committed call used them.

    ``radius`` floors ``R_t`` (``radius_``) and with it ``c0_``.
    """

    radius: float | None


class SequentialPrincipalCurve(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, OnlineLossMixin, OnlineEstimator
):
    """Sequentially learned principal curve (Guedj & Li's ``slpc``).

    A principal curve is a curve through the middle of the data; every point
    gets a 1-D coordinate, the arc length of its projection. This estimator
    learns a polygonal line with at most ``max_segments`` segments and vertices
    on the lattice ``lattice_spacing · Z^d``, one row at a time: each row is
    first scored with the current curve (its squared distance, the
    prequential loss), then the curve changes locally around the row — one
    vertex moved, inserted or deleted among the lattice points of the
    Voronoi neighbourhood of the row — or stays, whichever minimises the
    perturbed, penalised cumulative loss

    ``S(f) + λ_t (penalty · K(f) − z_f)``,  ``z_f ~ Exp(1)`` fresh each row,

    (follow-the-perturbed-leader, Algorithms 1–3 of the paper) with ``S(f)``
    the loss of the candidate on the stored rows and ``K(f)`` its number of
    segments. With probability ``exploration`` the neighbourhood is built
    around a uniformly drawn stored row instead (exploration).

    That loss alone rewards a long curve that folds through the data, so by
    default the objective also prices the curve's length and its turns,
    relative to the current curve's loss ``S(f̂)`` on the stored rows::

        S(f̂) · (length_penalty · Len(f) / spread + turn_penalty · Σ_i (1 − cos θ_i) / 2)

    (``spread``: root mean squared distance of the rows seen to their mean;
    ``θ_i``: the turn at vertex ``i``), both learned online: the curve's
    length follows the data's scale and noise level, and a fold costs
    ``turn_penalty`` times the stored rows' loss. The defaults also learn the
    lattice step from the first 50 rows, make ``warm_up_moves`` extra local
    moves after each of them, keep grid points inside the box of the
    neighbourhood's rows, and store a reservoir of ``max_memory`` rows.
    ``length_penalty=0, turn_penalty=0, warm_up_moves=0, clip_grid=False,
    max_memory=None`` is the paper's algorithm.

    Read more in the :ref:`User Guide <principal_curves>`.

    Parameters
    ----------
    max_segments : int, default=20
        The paper's ``p``: largest number of segments. Frozen at the first
        call: changing it takes effect at the next ``fit``.
    lattice_spacing : float, default=None
        The lattice step ``δ`` (the resolution of the curve; not scale-free).
        ``None``: ``0.02 ×`` the root mean squared distance of the rows seen to
        their mean, followed over the first 50 rows and fixed from then on
        (1.0 with a warning when they coincide). Pass it explicitly when the
        start of the stream is not representative. Frozen at the first call:
        changing it takes effect at the next ``fit``.
    radius : float, default=None
        The paper's ``R``: grid points stay in the ball ``B(0, sqrt(d) R)``,
        and ``c0 = d (2R + δ)²`` bounds the loss (the bandit estimator and the
        ``"auto"`` settings use it). ``None``: ``R_t = max ||x|| / sqrt(d)``
        over the rows seen so far; a float is used as long as the data stay
        inside its ball (``max(radius, R_t)``). Live: acts from the next update
        on; ``radius_`` and ``c0_`` use the value of the last call that learned.
    max_length : float, default=None
        Hard cap on the length of the curve (the paper's ``L``); ``None``: no cap.
        Live: acts from the next update on.
    init_size : int, default=2
        Rows that build the initial first-principal-component segment (the
        paper's ``t0``, Algorithm 3, line 2). Live: acts while the curve does not
        exist yet.
    exploration : float, default=0.05
        The paper's ``ε``: probability that a row's neighbourhood is built
        around a uniformly drawn stored row instead of the row itself
        (Algorithm 3, line 4). Live: acts from the next update on.
    reward_estimator : {"full", "bandit"}, default="full"
        ``"full"``: every candidate is scored by its exact loss on all stored
        past rows. ``"bandit"``: the paper's sleeping-experts estimator
        (Algorithm 3, lines 6–9) — losses only on exploration rows, and the
        curve chosen in an exploitation round is demoted by
        ``unobserved_reward − r/P`` (importance weighting with threshold
        ``importance_threshold``). Frozen at the first call: changing it takes
        effect at the next ``fit``.
    unobserved_reward : float, default=None
        Bandit estimator: the paper's ``α``, the reward of the curves whose
        loss an exploitation round does not observe. ``None``:
        ``c0_t / importance_threshold`` (Theorem 3's choice). Live: acts from the next update on.
    importance_threshold : float, default=0.1
        Bandit estimator: the paper's ``β``, in ``(0, 1)``. A chosen curve is
        importance-weighted only when its winning probability exceeds it.
        Live: acts from the next update on.
    learning_rate : float or "auto", default=100.0
        Sets ``λ_t = 1/η_t``, the weight of the penalty and the perturbation.
        A float ``η`` gives ``λ_t = l̄_t sqrt(t) / η`` with ``l̄_t`` the running
        mean prequential loss (scale-free, the ``1/sqrt(t)`` shape of
        Algorithm 2); larger values follow the losses more greedily.
        ``"auto"``: Algorithm 2's ``λ_t = c0 sqrt((e−1) t) / sqrt(C)``
        (Theorem 2). Live: acts from the next update on.
    penalty : float or "auto", default=8.0
        Penalty per segment, in units of ``λ_t``. It must exceed about the
        logarithm of the number of grid points, or spurious insertions win
        (the largest of that many Exp(1) draws). ``"auto"``: Lemma 3's ``c1``.
        Live: acts from the next update on.
    length_penalty : float, default=0.1
        Price of the curve's length: the objective gains
        ``length_penalty · S(f̂) · Len(f) / spread``, so lengthening the curve
        by the data's spread must lower the stored rows' loss by
        ``length_penalty`` times its current value (the length bound ``L`` of
        the paper's class, made a data-driven Lagrangian). ``0``: the paper's
        objective, which folds through the data. Live: acts from the next update on.
    turn_penalty : float, default=0.5
        Price of turning: the objective gains
        ``turn_penalty · S(f̂) · Σ_i (1 − cos θ_i) / 2`` over the interior
        vertices (``θ_i`` the turn at vertex ``i``; a fold back, ``θ = 180°``,
        costs ``turn_penalty · S(f̂)``). ``0``: no price. Live: acts from the next update on.
    warm_up_moves : int, default=5
        Extra local moves (around uniformly drawn stored rows) after each of
        the first 50 rows, so the curve takes the data's shape sooner. ``0``:
        one move per row, as in the paper. Not used by the bandit estimator.
        Live: acts from the next update on.
    clip_grid : bool, default=True
        Keep only the grid points inside the bounding box of the
        neighbourhood's rows (widened by ``δ``), so no vertex goes where no
        row is. ``False``: the paper's local grid (a ball). Live: acts from the next update on.
    max_grid_points : int, default=100
        Size cap of the local lattice grid (sampled beyond it). Per-row time is
        proportional to it. The largest of ``#candidates`` fresh Exp(1) draws
        (about ``ln #candidates``) must stay below ``penalty``, or noise alone
        moves vertices. Live: acts from the next update on.
    max_memory : int or None, default=1000
        Rows stored to score the candidates. An int bounds the memory and the
        per-row time (see ``memory_policy``); the regret guarantee then no
        longer applies exactly. ``None``: every past row (the paper).
        Frozen at the first call: changing it takes effect at the next ``fit``.
    memory_policy : {"reservoir", "window"}, default="reservoir"
        Which rows a bounded memory keeps: ``"reservoir"`` a uniform sample of
        every row seen (Vitter's Algorithm R; the stored loss stands for the
        whole past, so ``λ_t`` is scaled by stored rows / rows seen);
        ``"window"`` the most recent rows (follows a drifting stream).
        Frozen at the first call: changing it takes effect at the next ``fit``.
    keep_history : bool, default=False
        Store the prequential loss of every row in ``loss_history_``.
        Frozen at the first call: changing it takes effect at the next ``fit``.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the one generator used for exploration, grid sampling and the
        perturbations. A ``Generator`` is copied at the first call: the
        estimator's draws do not advance it. Read at the first call (the
        generator is part of the state): changing it takes effect at the next
        ``fit``.
    verbose : int, default=0
        Progress of ``fit``: ``1`` prints about ten lines (rows done, rows per
        second, mean loss so far), ``2`` one line per 1000 rows. The curve
        learned is the same. Live: acts from the next call on.

    Attributes
    ----------
    vertices_ : ndarray of shape (n_segments_ + 1, n_features_in_)
        Vertices of the current curve.
    n_segments_ : int
        Number of segments of the curve.
    length_ : float
        Length of the curve.
    segment_lengths_ : ndarray of shape (n_segments_,)
        Length of each segment.
    arc_lengths_ : ndarray of shape (n_segments_ + 1,)
        Arc length at each vertex from ``vertices_[0]``.
    cumulative_loss_ : float
        Sum of the prequential losses (each row scored before the update;
        the initial rows with the initial curve).
    n_samples_seen_ : int
        Rows learned from.
    lattice_spacing_ : float
        The lattice step ``δ`` of the curve.
    radius_ : float
        Current ``R_t``, with the ``radius`` of the last call that learned.
    c0_ : float
        Current loss bound ``d (2 R_t + δ)²``.
    loss_history_ : ndarray of shape (n_samples_seen_,)
        Prequential loss of every row; only with ``keep_history=True``.
    n_features_in_ : int
        Number of features seen during the first call.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during the first call. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.decomposition.IncrementalPCA : The linear counterpart, learned in batches.

    Notes
    -----
    Per row: ``O(n d)`` filtering of the ``n`` stored rows plus
    ``O(|B| · m · #G · d)`` for the ``m`` rows near the changed vertices
    (``|B|`` vertices in the local block, ``#G ≤ max_grid_points`` lattice
    points), in a compiled kernel; memory ``O(n (d + p))`` (rows and their
    cached distances to each segment). With the default ``max_memory=1000``
    both are bounded: about 1 ms per row on a 2-D stream, flat in the stream
    length.

    Guarantee (Theorem 2, Algorithm 2 over the whole lattice class ``F_p``,
    with ``learning_rate="auto"``)::

        sum_t E Δ(f̂_t, x_t) ≤ inf_k inf_{K(f)=k} { sum_t Δ(f, x_t)
                               + c0 sqrt((e−1) T (c1 k + c2 L + c3)) } + 2 c0 sqrt((e−1) T C)

    and ``O(sqrt(#F_p) T^{3/4})`` regret for Algorithm 3 (Theorem 3). The
    local search here restricts the candidates to one change per row, so the
    bounds describe the method, not this implementation's constants.

    Corrected from the paper: the Exp(1) perturbation is one-sided (Lemma 2
    says "symmetric"); the Gibbs mode uses ``−ln π``; the sleeping-experts
    exploration over all of ``F_p`` is replaced by a local neighbourhood
    around a random past row.

    Parameters that shape the state (``max_segments``, ``max_memory``,
    ``memory_policy``, ``reward_estimator``, ``keep_history``,
    ``lattice_spacing``) are fixed by the first call; ``fit`` starts again.
    The others are live: ``set_params`` changes the next updates, never the
    curve learned so far or what the fitted attributes report.

    References
    ----------
    B. Guedj and L. Li, "Sequential Learning of Principal Curves: Summarizing
    Data Streams on the Fly", arXiv:1805.07418.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import gen_batches
    >>> from skonline.manifold import SequentialPrincipalCurve
    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0, 10, 200)
    >>> X = np.c_[u, 0.05 * (u - 5) ** 3] + 0.1 * rng.standard_normal((200, 2))
    >>> spc = SequentialPrincipalCurve(random_state=0)
    >>> for batch in gen_batches(len(X), 50):
    ...     spc = spc.partial_fit(X[batch])
    >>> spc.transform(X[:3]).shape
    (3, 1)
    >>> bool(spc.r2_score(X) > 0.95)
    True
    >>> bool(15.0 < spc.length_ < 20.0)  # the true curve is 17.6 long
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "max_segments": [Interval(Integral, 1, None, closed="left")],
        "lattice_spacing": [Interval(Real, 0, None, closed="neither"), None],
        "radius": [Interval(Real, 0, None, closed="neither"), None],
        "max_length": [Interval(Real, 0, None, closed="neither"), None],
        "init_size": [Interval(Integral, 2, None, closed="left")],
        "exploration": [Interval(Real, 0, 1, closed="both")],
        "reward_estimator": [StrOptions({"full", "bandit"})],
        "unobserved_reward": [Interval(Real, 0, None, closed="neither"), None],
        "importance_threshold": [Interval(Real, 0, 1, closed="neither")],
        "learning_rate": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "penalty": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "length_penalty": [Interval(Real, 0, None, closed="left")],
        "turn_penalty": [Interval(Real, 0, None, closed="left")],
        "warm_up_moves": [Interval(Integral, 0, None, closed="left")],
        "clip_grid": ["boolean"],
        "max_grid_points": [Interval(Integral, 1, None, closed="left")],
        "max_memory": [Interval(Integral, 1, None, closed="left"), None],
        "memory_policy": [StrOptions({"reservoir", "window"})],
        "keep_history": ["boolean"],
        "random_state": ["random_state", np.random.Generator],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        max_segments=20,
        lattice_spacing=None,
        radius=None,
        max_length=None,
        init_size=2,
        exploration=0.05,
        reward_estimator="full",
        unobserved_reward=None,
        importance_threshold=0.1,
        learning_rate=100.0,
        penalty=8.0,
        length_penalty=0.1,
        turn_penalty=0.5,
        warm_up_moves=5,
        clip_grid=True,
        max_grid_points=100,
        max_memory=1000,
        memory_policy="reservoir",
        keep_history=False,
        random_state=None,
        verbose=0,
    ):
        self.max_segments = max_segments
        self.lattice_spacing = lattice_spacing
        self.radius = radius
        self.max_length = max_length
        self.init_size = init_size
        self.exploration = exploration
        self.reward_estimator = reward_estimator
        self.unobserved_reward = unobserved_reward
        self.importance_threshold = importance_threshold
        self.learning_rate = learning_rate
        self.penalty = penalty
        self.length_penalty = length_penalty
        self.turn_penalty = turn_penalty
        self.warm_up_moves = warm_up_moves
        self.clip_grid = clip_grid
        self.max_grid_points = max_grid_points
        self.max_memory = max_memory
        self.memory_policy = memory_policy
        self.keep_history = keep_history
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------- memory use
    @property
    def _constant_memory(self):  # type: ignore[override]
        """Bounded state: a sliding window, no loss history (bandit demotions are capped too)."""
        return self.max_memory is not None and not self.keep_history

    # ---------------------------------------------------------------- fitting
    _frozen_record: ClassVar[type[ParamRecord]] = CurveFrozen
    _live_record: ClassVar[type[ParamRecord]] = CurveLive

    def _params(self):
        """The settings of a pass, from the current parameters."""
        return CurveParams(
            max_segments=int(self.max_segments),
            lattice_spacing=None if self.lattice_spacing is None else float(self.lattice_spacing),
            radius=self.radius,
            max_length=self.max_length,
            init_size=int(self.init_size),
            exploration=float(self.exploration),
            bandit=self.reward_estimator == "bandit",
            unobserved_reward=self.unobserved_reward,
            importance_threshold=float(self.importance_threshold),
            learning_rate=self.learning_rate,
            penalty=self.penalty,
            length_penalty=float(self.length_penalty),
            turn_penalty=float(self.turn_penalty),
            warm_up_moves=int(self.warm_up_moves),
            clip_grid=bool(self.clip_grid),
            max_grid_points=int(self.max_grid_points),
            max_memory=self.max_memory,
            memory_policy=self.memory_policy,
        )

    _pass_end_kwargs = ("finish",)

    def _validate_batch(self, X, y, first_call, **fit_params):
        # ``finish``: fit builds the curve from fewer than init_size rows
        kwargs = {"finish": bool(fit_params.pop("finish", False))}
        if fit_params:
            raise TypeError(f"unexpected fit parameters: {sorted(fit_params)}")
        X, y = self._check_training_data(X, y, first_call)
        return X, y, kwargs

    def _init_state(self, X, y, **kwargs):
        return CurveState(
            rng=as_generator(self.random_state),
            pending_rows=np.empty((0, X.shape[1])),
            loss_history=np.empty(0) if self.keep_history else None,
        )

    def _partial_fit_state(self, state, X, y, **kwargs):
        new_state, _ = curve_pass(state, X, self._params(), finish=kwargs["finish"])
        return new_state

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Learn from the rows of ``X``, in order (score each, then update).

        The first ``init_size`` rows ever seen build the initial segment; until
        then the estimator is not fitted.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows, in stream order.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The estimator.
        """
        return self._online_partial_fit(X)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Forget the current curve and learn one from the rows of ``X``, in order.

        Equivalent, bit for bit, to a fresh estimator's ``partial_fit`` over any
        split of ``X`` into consecutive batches, except that fewer than
        ``init_size`` rows still give a fitted (initial) curve.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows, in stream order.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._online_fit(X, finish=True)

    def __sklearn_is_fitted__(self):
        return self._is_initialized() and self._state.vertices is not None

    def _check_fitted(self):
        if not self.__sklearn_is_fitted__():
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet: it needs at least "
                f"init_size={self.init_size} rows through partial_fit (or a call to fit)."
            )

    # ------------------------------------------------------ fitted attributes
    @property
    def vertices_(self):
        """The curve's vertices (a copy)."""
        return self._fitted_state().vertices.copy()

    @property
    def n_segments_(self):
        """Number of segments of the curve."""
        return int(self._fitted_state().n_segments)

    @property
    def arc_lengths_(self):
        """Arc length at each vertex."""
        return arc_lengths(self._fitted_state().vertices)

    @property
    def segment_lengths_(self):
        """Length of each segment."""
        return np.diff(self.arc_lengths_)

    @property
    def length_(self):
        """Length of the curve."""
        return float(self.arc_lengths_[-1])

    @property
    def lattice_spacing_(self):
        """The lattice step ``δ`` of the curve."""
        return float(self._fitted_state().lattice_spacing)

    @property
    def radius_(self):
        """Current radius ``R_t`` of the lattice ball ``B(0, sqrt(d) R_t)``.

        With the ``radius`` of the last call that learned (``state.live``).
        """
        state = self._fitted_state()
        return float(lattice_radius(state, state.live.radius))

    @property
    def c0_(self):
        """Current loss bound ``d (2 R_t + δ)²``, with ``R_t`` as in ``radius_``."""
        state = self._fitted_state()
        return float(loss_bound(state, state.live.radius))

    @property
    def _n_features_out(self):
        return 1

    # ------------------------------------------------------------ read-outs
    def _read(self, X):
        X = self._validate_predict(X)
        return X, self._fitted_state().vertices

    def transform(self, X):
        """Map each row to the arc length of its projection on the curve.

        Measured from ``vertices_[0]``, in ``[0, length_]``; among equally near
        points of the curve the largest arc length is taken (Hastie–Stuetzle's
        projection index). New points use the same parametrisation as the
        training rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to project.

        Returns
        -------
        S : ndarray of shape (n_samples, 1)
            The arc length of each row's projection, in the dtype of ``X``.
        """
        X, V = self._read(X)
        _, s, _ = project_to_polyline(np.asarray(X, dtype=np.float64), V)
        return s[:, None].astype(X.dtype, copy=False)

    def inverse_transform(self, X):
        """Map arc lengths back to points of the curve (clipped to ``[0, length_]``).

        Parameters
        ----------
        X : array-like of shape (n_samples, 1)
            Arc lengths from ``vertices_[0]``.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features_in_)
            The points of the curve, in the dtype of ``X``.
        """
        V = self._fitted_state().vertices
        S = check_array(X, dtype=[np.float64, np.float32])
        if S.shape[1] != 1:
            raise ValueError(
                f"inverse_transform expects one column of arc lengths; got {S.shape[1]}."
            )
        out = point_at_arc_length(V, np.asarray(S[:, 0], dtype=np.float64))
        return out.astype(S.dtype, copy=False)

    def project(self, X):
        """Project the rows of ``X`` on the curve.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to project.

        Returns
        -------
        P : ndarray of shape (n_samples, n_features)
            The nearest point of the curve to each row, in the dtype of ``X``.
        """
        X, V = self._read(X)
        _, _, points = project_to_polyline(np.asarray(X, dtype=np.float64), V)
        return points.astype(X.dtype, copy=False)

    def score_samples(self, X):
        """Negative squared distance of each row to the curve, ``-Δ(f, x)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Minus the squared distance of each row to the curve.
        """
        X, V = self._read(X)
        dist, _, _ = project_to_polyline(np.asarray(X, dtype=np.float64), V)
        return -dist

    def score(self, X, y=None):
        """The penalised criterion ``−log(MSD · (1 + Len(f) / spread)²)`` on ``X``.

        ``MSD`` is the mean squared distance of the rows of ``X`` to the curve
        (``δ²`` is added, ``δ`` the lattice step, to keep it finite), ``Len(f)``
        the curve's length and ``spread`` the root mean squared distance of the
        training rows to their mean, in the log so that the folds of a
        cross-validation average. The mean squared distance alone rewards a
        long curve that folds through the data (it fills the space); here a
        fold that doubles the length must about quarter the squared distance
        (as in a description length of 2-D data: a position along the curve
        and an offset across it). So a
        held-out ``score`` selects a curve's complexity (``GridSearchCV`` over
        ``length_penalty``, ``max_segments``, ...); ``score_samples`` gives the
        squared distances themselves.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to score.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        score : float
            Higher is better; comparable between curves on the same rows.
        """
        msd = -float(np.mean(self.score_samples(X)))
        state = self._fitted_state()
        return penalised_score(msd, self.length_, state.spread, state.lattice_spacing)

    def r2_score(self, X):
        """The paper's ``R² = 1 − Σ Δ(f, x_i) / Σ ||x_i − x̄||²`` on ``X`` (Section 5).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        r2 : float
            1 when every row lies on the curve. When the rows do not spread,
            1 if they all lie on the curve and ``-inf`` otherwise.
        """
        residual = -float(np.sum(self.score_samples(X)))
        Xv = np.asarray(self._validate_predict(X), dtype=np.float64)
        total = float(np.sum(np.square(Xv - Xv.mean(axis=0))))
        if total == 0.0:
            return 1.0 if residual == 0.0 else -np.inf
        return 1.0 - residual / total

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.non_deterministic = False
        return tags

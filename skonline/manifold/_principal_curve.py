"""Sequential learning of principal curves: SequentialPrincipalCurve (slpc).

Guedj & Li, "Sequential Learning of Principal Curves: Summarizing Data
Streams on the Fly". The estimator validates, holds the state and reads it
out; the state and the pure pass are in :mod:`._principal_curve_kernels`.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_array

from ..base import OnlineEstimator, OnlineLossMixin, ParamRecord
from ..utils._random import RANDOM_STATE_OR_GENERATOR, own_generator
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
from ._polyline import arc_lengths, point_at_arc_length, project_to_polyline
from ._principal_curve_kernels import (
    CurveParams,
    CurveState,
    curve_pass,
    lattice_radius,
    loss_bound,
    penalised_score,
)

__all__ = ["SequentialPrincipalCurve"]


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

        S(f̂) · (length_penalty · Len(f) / spread
                + turn_penalty · Σ_i (1 − cos θ_i) / (2 (d − 1)))

    (``spread``: root mean squared distance of the rows seen to their mean;
    ``θ_i``: the turn at vertex ``i``; ``d`` the number of features, ``d − 1``
    at least 1), both learned online: the curve's length follows the data's
    scale and noise level, and a fold costs ``turn_penalty`` times the stored
    rows' loss per direction across the curve (a turn lowers the loss in one
    of the ``d − 1``). The defaults also learn the lattice step from the first
    50 rows, make ``warm_up_moves`` extra local moves after each of them, keep
    grid points inside the box of the neighbourhood's rows, and store a
    reservoir of ``max_memory`` rows.
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
        ``turn_penalty · S(f̂) / (d − 1) · Σ_i (1 − cos θ_i) / 2`` over the
        interior vertices (``θ_i`` the turn at vertex ``i``; a fold back,
        ``θ = 180°``, costs ``turn_penalty`` times the stored rows' loss per
        direction across the curve, ``S(f̂) / (d − 1)``; in the plane the
        whole loss). ``0``: no price. Live: acts from the next update on.
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
        Progress on ``sys.stderr`` (:ref:`progress`): ``1`` shows a bar with
        the rows per second and the time left during :meth:`fit` in a terminal
        or a notebook, at most ten lines elsewhere; ``2`` adds the mean loss so
        far and one line per :meth:`partial_fit` call. The state learned is
        the same. Live: acts from the next call on.

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
        "random_state": RANDOM_STATE_OR_GENERATOR,
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
            rng=own_generator(self.random_state),
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

"""Kernels of the scale-invariant online learners: states, ordered passes, read-outs.

Kotłowski, "Scale-Invariant Unconstrained Online Learning", ALT 2017:
Algorithm 1 (coordinate-wise invariant, Sec. 3.2, eq. 5) and Algorithm 2
(invariant to every invertible linear map, Sec. 4.2, eq. 7), plus two
extensions: Algorithm 2 run on each coordinate alone (the *diagonal*
learner: ``S`` replaced by its diagonal, Theorem 4.5 per coordinate) and the
running-mean centred forms of the coordinate-wise learners. Every learner
predicts ``ŷ_t = x_tᵀw_t`` with weights in the units of ``1/x`` and no
learning rate; the loss enters only through its derivative ``g_t``,
``|g_t| ≤ 1``.

The row loops are compiled (``_scale_invariant_fast.pyx``); the textbook
transcriptions of the paper's pseudo-code are in the tests and are the
reference. Every pass here is pure: ``new_state, predictions = kernel(state,
X, T, sw, ...)`` copies the arrays the compiled loop writes into and never
writes into ``state`` or ``X``. The passes know nothing of scikit-learn: rows
arrive validated, **without** the intercept column (the states say whether
there is one: a constant coordinate 1, last), with targets ``T`` of shape
(n, K).

Sample weights. A weight ``c`` multiplies the row's loss. The theory needs
a 1-Lipschitz loss, so the learner is fed ``clip(c · g, −1, 1)``: the
derivative of the largest convex 1-Lipschitz function below ``c · ℓ`` (the
infimal convolution of ``c · ℓ`` with ``|·|``). For ``c ≤ 1`` this is
``c · g`` itself; a larger weight pulls harder up to a unit gradient, and no
weight can push the potential beyond what unit gradients can.

Corrected errata (checked numerically): Algorithm 2's potential is
``exp((hᵀS⁺h − Γ_t)/(2α))`` (Γ inside the ``1/(2α)``), Lemma 4.3 sums to
``+ψ_T``, ``Γ_T = Σ g_t² x_tᵀS_t⁺x_t`` (squared ``g``), and Theorem 4.5
reads ``‖u‖_S sqrt(α log(1 + α‖u‖_S²) + Γ_T) + 1`` (the paper prints
``log(α) Γ_T``, which fails).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import scipy.sparse as sp
from numpy.linalg import LinAlgError
from scipy.linalg.blas import dtrsm
from scipy.linalg.lapack import dposv

from ..base import shallow_replace
from ..utils._rows import canonical_csr
from ._linear import LinearState
from ._losses import LOSS_CODES
from ._rows import make_rows
from ._scale_invariant_fast import (
    CALLABLE_LOSS,
    KIND_CODES,
    Stream,
    centered_pass,
    coordinate_weights,
    full_pass_qr,
    sparse_pass,
    triangular_rcond,
)

__all__ = [
    "MAX_CONDITION",
    "MAX_EXPONENT",
    "MIN_POTENTIAL_WIDTH",
    "RIDGE_ROWS",
    "STORAGE_MARGIN",
    "CenteredState",
    "CoordinateState",
    "FullState",
    "ScaleInvariantState",
    "centered_coordinate_pass",
    "centered_readout",
    "coordinate_pass",
    "coordinate_readout",
    "diagonal_pass",
    "full_pass",
    "full_readout",
    "init_state",
    "ridge_weight",
]

#: ``α₀`` of Lemma A.1 (``x + e^{−x} ≤ e^{α₀x²/2}`` for every real ``x``): the
#: smallest potential width of Algorithm 2; Algorithm 1 needs ``α > α₀``.
MIN_POTENTIAL_WIDTH = 9.0 / 8.0
#: Largest exponent of the potential; beyond it the weights are clipped (with a warning).
MAX_EXPONENT = 700.0
#: The full variant's rank test also asks a row's remainder at a zero row of
#: ``R`` to exceed what the storage rounding of the row can produce:
#: ``STORAGE_MARGIN · u · ‖x_raw‖`` with ``u`` the unit roundoff of the input's
#: dtype and ``x_raw`` the row *before* the shift to the first row (each
#: coordinate in its internal unit). The arithmetic: a row in the span of the
#: rows seen in exact arithmetic (duplicated columns, a column that is the sum of
#: others) but stored in float32 is off that span by the storage rounding, up to
#: ``u₃₂ = 2⁻²⁴ ≈ 6e-8`` of each stored entry, so by up to ``u₃₂ ‖x_raw‖``
#: (the elimination weights it by the coefficients of the dependency, hence the
#: margin 16). Counted as a direction, that remainder becomes a pivot of
#: relative size ``1e-7`` or less (much less after the shift when a feature's
#: offset is large against its spread), the factor's condition number crosses
#: ``MAX_CONDITION`` and valid rows are refused. ``(16 u₃₂)² ≈ 9e-13``: a float32
#: remainder below ``1e-6 ‖x_raw‖`` is storage rounding, dropped. For float64
#: input ``(16 u₆₄)² ≈ 3e-30`` adds to ``rank_tol = 1e-20`` (which covers the
#: float64 rounding of the rotations) only where an offset exceeds ``2e5`` times
#: the shifted row (there float64 storage rounding is ``1e-11`` of the row).
STORAGE_MARGIN = 16.0
#: Largest condition number of the full variant's factor ``R`` (``κ(X)``, the
#: square root of ``κ(S)``) with which a pass is accepted: the predictions then
#: carry a relative error of about ``κ · eps`` (``2e-4`` at this bound).
MAX_CONDITION = 1e12
#: The read-out's ridge (``readout_ridge``) fades out linearly and is gone after
#: this many rows per coordinate seen (:func:`ridge_weight`).
RIDGE_ROWS = 20.0
#: With forgetting (``γ < 1``) a direction that no row refreshes (a feature
#: that falls silent) decays as ``γ^t`` against the others until ``R``'s
#: condition number passes ``MAX_CONDITION`` and every later batch would be
#: refused. Every :func:`deflation_period` rows of the stream (counted from
#: its start: the same rows for any split into calls) the full pass checks
#: ``R``: past ``DEFLATE_CONDITION`` (LAPACK's estimate, as the pass's own
#: limit), within ``MAX_CONDITION / DEFLATE_CONDITION`` of being refused, the
#: directions of ``S`` whose singular value in ``R`` fell below
#: ``DEFLATE_KEEP`` times the largest are forgotten entirely (:func:`deflate`).
#: Data whose own condition number stays below ``DEFLATE_CONDITION`` (nearly
#: collinear features included) are never deflated.
DEFLATE_CONDITION = 1e10
DEFLATE_KEEP = 1e-8
#: The factor by which the decay may raise ``κ(R)`` between two checks
#: (``√γ`` a row): a factor checked at most ``DEFLATE_CONDITION`` stays below
#: ``MAX_CONDITION / 10`` until the next check.
DEFLATE_GROWTH = 10.0
#: A column of the kept directions is a pivot of the rebuilt factor when its
#: remainder keeps more than this fraction of the largest singular value: a
#: remainder of rounding size (a silent coordinate whose internal value is 0)
#: would make a pivot of that size, and the triangular solves on it useless;
#: the fraction the deflation keeps (a pivot below it, such as a nearly
#: collinear column's, would leave the rebuilt triangle past
#: ``DEFLATE_CONDITION`` and the deflation refused at every check).
PIVOT_TOL = DEFLATE_KEEP


# ------------------------------------------------------------------ states
@dataclass(kw_only=True, eq=False)
class ScaleInvariantState(LinearState):
    """Fields shared by the states of the passes.

    ``n_samples_seen`` is the paper's trial counter ``t`` and
    ``cumulative_loss`` the sum of the weighted losses of the online
    predictions.

    Attributes
    ----------
    kind : str
        The learner: ``"coordinate"`` (Algorithm 1), ``"diagonal"`` or
        ``"full"`` (Algorithm 2).
    fit_intercept : bool
        Whether the learner has a constant coordinate 1 (last).
    coef : ndarray of shape (K, n_features)
        Read-out: linearised weights of the next trial, in raw feature units.
    intercept : ndarray of shape (K,)
        Read-out: the intercepts (running target mean included).
    n_clipped : int
        Rows on which the potential's exponent was clipped at ``MAX_EXPONENT``.
    target_sum, target_count : float, int
        Running sum and count of the targets (``center_target`` only).
    """

    kind: str = "coordinate"
    fit_intercept: bool = True
    coef: np.ndarray
    intercept: np.ndarray
    n_clipped: int = 0
    target_sum: float = 0.0
    target_count: int = 0


@dataclass(kw_only=True, eq=False)
class CoordinateState(ScaleInvariantState):
    """State of Algorithm 1 or of the diagonal learner (``gamma`` kept).

    Attributes
    ----------
    s2 : ndarray of shape (d,)
        ``s_i² = Σ_t x_{t,i}²`` (``d`` counts the constant coordinate).
    H : ndarray of shape (K, d)
        ``h = −Σ_t g_t x_t`` of each output.
    gamma : ndarray of shape (K, d) or None
        Diagonal learner: ``Γ_i = Σ_t g_t² x_{t,i}²/s_{t,i}²`` of each output
        and coordinate; ``None`` for Algorithm 1.
    n_nonzero : ndarray of shape (d,) or None
        Algorithm 1 with the per-feature time counter: rows in which each
        coordinate was non-zero; ``None`` with the paper's global counter.
    discount : float
        The diagonal learner with ``forgetting < 1``: ``s2``, ``H`` and
        ``gamma`` hold the statistics divided by it (the discount of the rows
        since it was last taken into the arrays; 1 otherwise).
    """

    s2: np.ndarray
    H: np.ndarray
    gamma: np.ndarray | None = None
    n_nonzero: np.ndarray | None = None
    discount: float = 1.0


@dataclass(kw_only=True, eq=False)
class CenteredState(ScaleInvariantState):
    """State of a coordinate-wise learner on features centred at their running mean.

    The constant coordinate is not centred: its statistics are ``s² = t`` and
    ``h = −G``.

    Attributes
    ----------
    mean : ndarray of shape (n_features,)
        Running mean of each feature.
    m2 : ndarray of shape (n_features,)
        Welford sum of squared deviations from the running mean.
    s2 : ndarray of shape (n_features,)
        ``Σ_t x_{t,i}²`` (the reference of the "constant so far" test).
    H : ndarray of shape (K, n_features)
        ``−Σ_t g_t x_t`` (raw rows) of each output.
    G : ndarray of shape (K,)
        ``Σ_t g_t`` of each output.
    gamma : ndarray of shape (K, n_features) or None
        Diagonal learner: ``Σ_t g_t² x̃_{t,i}²/s̃_{t,i}²`` (at the mean of the
        time); ``None`` for Algorithm 1.
    gamma0 : ndarray of shape (K,) or None
        Diagonal learner: ``Σ_t g_t²/t``, the ``Γ`` of the constant coordinate.
    """

    mean: np.ndarray
    m2: np.ndarray
    s2: np.ndarray
    H: np.ndarray
    G: np.ndarray
    gamma: np.ndarray | None = None
    gamma0: np.ndarray | None = None


@dataclass(kw_only=True, eq=False)
class FullState(ScaleInvariantState):
    """State of Algorithm 2: the triangular factor of the data matrix, in internal coordinates.

    Internal coordinates: with an intercept, each feature minus its value in
    the first row seen (``ref``); then each coordinate divided by the power
    of two of its first non-zero value (``scale``). Both maps are fixed once
    set and invertible (affine, with the constant coordinate), so they do not
    change the predictions of Algorithm 2; they keep ``R`` well scaled.

    Attributes
    ----------
    R : ndarray of shape (d, d)
        Upper triangular, ``RᵀR = S = Σ_t x_t x_tᵀ``; its rows are zero or
        have a non-zero diagonal entry (``rank`` of them).
    Z : ndarray of shape (K, d)
        ``z_k = R⁻ᵀh_k`` (zero on the zero rows of ``R``): ``h_kᵀS⁺h_k = ‖z_k‖²``.
    gamma : ndarray of shape (K,)
        ``Γ = Σ_t g_t² x_tᵀS_t⁺x_t`` of each output.
    scale : ndarray of shape (d,)
        First non-zero value of each coordinate (0 until it is seen): the unit it is measured in.
    ref : ndarray of shape (n_features,)
        The first row seen (with an intercept), the origin of the internal coordinates.
    has_ref : bool
        Whether ``ref`` is set.
    rank : int
        Rank of ``S``.
    xy : ndarray of shape (d,) or None
        ``Σ_t y_t x_t`` (internal coordinates, the constant coordinate
        included), discounted like ``S``: the right-hand side of the
        least-squares read-out (a regressor's ``readout="least_squares"``);
        ``None`` when the read-out is the learner's.
    u : ndarray of shape (d,) or None
        ``R⁻ᵀ xy`` (kept with ``xy``), carried by the rotations as ``Z``:
        ``x_tᵀS⁺xy = vᵀu`` gives the read-out's prequential predictions in
        ``O(d)`` a row.
    """

    R: np.ndarray
    Z: np.ndarray
    gamma: np.ndarray
    scale: np.ndarray
    ref: np.ndarray
    has_ref: bool = False
    rank: int = 0
    xy: np.ndarray | None = None
    u: np.ndarray | None = None

    def q(self) -> np.ndarray:
        """``h_kᵀS⁺h_k = ‖z_k‖²`` of each output."""
        return np.einsum("kd,kd->k", self.Z, self.Z)


_S = TypeVar("_S", bound=ScaleInvariantState)


def init_state(
    kind: str,
    n_features: int,
    n_outputs: int,
    *,
    fit_intercept: bool = True,
    per_feature: bool = False,
    least_squares: bool = False,
    **fields: Any,
) -> ScaleInvariantState:
    """The empty state of a pass.

    ``kind`` is ``"coordinate"`` (Algorithm 1), ``"diagonal"``, their centred
    forms ``"center"`` and ``"center_diagonal"``, or ``"full"``
    (Algorithm 2). ``n_features`` excludes the constant coordinate, which
    ``fit_intercept`` adds. ``least_squares`` (``"full"`` only) keeps the
    targets' cross-moments ``xy`` of the least-squares read-out. ``fields`` are further
    :class:`~skonline.linear_model._linear.LinearState` fields (``classes``).
    """
    K, d = n_outputs, n_features
    d_aug = d + int(fit_intercept)
    common = {
        "coef": np.zeros((K, d)),
        "intercept": np.zeros(K),
        "fit_intercept": bool(fit_intercept),
        **fields,
    }
    common["kind"] = (
        "full" if kind == "full" else ("diagonal" if "diagonal" in kind else "coordinate")
    )
    if kind == "full":
        return FullState(
            R=np.zeros((d_aug, d_aug)),
            Z=np.zeros((K, d_aug)),
            gamma=np.zeros(K),
            scale=np.zeros(d_aug),
            ref=np.zeros(d),
            xy=np.zeros(d_aug) if least_squares else None,
            u=np.zeros(d_aug) if least_squares else None,
            **common,
        )
    if kind in ("center", "center_diagonal"):
        diagonal = kind == "center_diagonal"
        return CenteredState(
            mean=np.zeros(d),
            m2=np.zeros(d),
            s2=np.zeros(d),
            H=np.zeros((K, d)),
            G=np.zeros(K),
            gamma=np.zeros((K, d)) if diagonal else None,
            gamma0=np.zeros(K) if diagonal else None,
            **common,
        )
    return CoordinateState(
        s2=np.zeros(d_aug),
        H=np.zeros((K, d_aug)),
        gamma=np.zeros((K, d_aug)) if kind == "diagonal" else None,
        n_nonzero=np.zeros(d_aug) if (per_feature and kind == "coordinate") else None,
        **common,
    )


# --------------------------------------------------------------- plumbing
def _with_copies(state: _S, *names: str) -> _S:
    """A new state whose named arrays are copies: the compiled pass writes only into those."""
    arrays = {name: getattr(state, name) for name in names}
    copies: dict[str, Any] = {name: None if a is None else a.copy() for name, a in arrays.items()}
    return shallow_replace(state, **copies)


_EMPTY_2D = np.zeros((0, 0))
_EMPTY_1D = np.zeros(0)


def _rows(X: Any) -> Any:
    """The rows as the compiled passes read them.

    Dense rows are read in place (C-contiguous float64; a copy only when the
    input is not); CSR rows are made canonical (summed duplicates, sorted
    indices, no entry whose square is 0).
    """
    return make_rows(canonical_csr(X) if sp.issparse(X) else X)


def _stream(
    state: ScaleInvariantState,
    T: np.ndarray,
    sw: np.ndarray,
    potential_width: float,
    loss: str | Callable[..., Any],
    epsilon: float,
    center_target: bool = False,
) -> Any:
    """Targets, weights, the loss and the state's running scalars, as the passes continue them.

    ``loss`` is a name of ``LOSS_CODES`` or a callable ``loss(p, y) -> (value, g)``.
    """
    running = (
        int(state.n_samples_seen),
        float(state.cumulative_loss),
        int(state.n_clipped),
        float(state.target_sum),
        int(state.target_count),
    )
    code, function = (CALLABLE_LOSS, loss) if callable(loss) else (LOSS_CODES[loss], None)
    return Stream(
        np.ascontiguousarray(T, dtype=np.float64),
        np.ascontiguousarray(sw, dtype=np.float64),
        running,
        bool(center_target),
        code,
        function,
        float(potential_width),
        float(epsilon),
        MAX_EXPONENT,
    )


def _finish(state: _S, stream: Any) -> _S:
    """Copy a finished stream's running scalars into the new state."""
    (
        state.n_samples_seen,
        state.cumulative_loss,
        state.n_clipped,
        state.target_sum,
        state.target_count,
    ) = stream.result()
    return state


def _offset(state: ScaleInvariantState) -> float:
    """Running mean of the targets seen so far (``center_target``), else 0."""
    if state.target_count == 0:
        return 0.0
    return state.target_sum / state.target_count


# ------------------------------------------------------- coordinate-wise passes
def _sparse_pass(
    kind: str,
    state: CoordinateState,
    X: Any,
    T: np.ndarray,
    sw: np.ndarray,
    *stream_params: Any,
    forgetting: float = 1.0,
) -> tuple[CoordinateState, np.ndarray]:
    state = _with_copies(state, "s2", "H", "gamma", "n_nonzero")
    if forgetting == 1.0 and state.discount != 1.0:  # no longer discounting: take it in
        state.s2 *= state.discount
        state.H *= state.discount
        if state.gamma is not None:
            state.gamma *= state.discount
        state.discount = 1.0
    stream = _stream(state, T, sw, *stream_params)
    predictions = np.empty((len(sw), state.H.shape[0]))
    per_feature = state.n_nonzero is not None
    state.discount = sparse_pass(
        KIND_CODES[kind],
        state.s2,
        state.H,
        state.gamma if state.gamma is not None else _EMPTY_2D,
        state.n_nonzero if per_feature else _EMPTY_1D,
        per_feature,
        state.fit_intercept,
        _rows(X),
        stream,
        predictions,
        float(forgetting),
        float(state.discount),
    )
    return _finish(state, stream), predictions


def coordinate_pass(
    state: CoordinateState,
    X: Any,
    T: np.ndarray,
    sw: np.ndarray,
    *,
    potential_width: float,
    loss: str | Callable[..., Any],
    epsilon: float,
    center_target: bool = False,
) -> tuple[CoordinateState, np.ndarray]:
    """One ordered pass of Algorithm 1 (coordinate-wise invariant) over the rows.

    Only the non-zero entries of each row are touched, ``O(K · nnz)`` per row
    (dense rows are read in place, CSR rows by their stored entries): a
    coordinate with ``x_{t,i} = 0`` contributes nothing to ``ŷ_t`` and its
    statistics do not move, so this is exactly the paper's dense loop.

    Per row ``t`` and output ``k``, on the non-zero coordinates ``i``::

        s²_i += x_i²
        ŷ_k = Σ_i exp(E_ki − log(α n d)) (h_ki / s²_i) x_i,
              E_ki = (h_ki² + x_i²) / (2α s²_i)          (eq. 5, in the log domain)
        h_ki −= g_k x_i

    with ``α = potential_width`` and ``n = t`` (the paper's global counter)
    or, when ``state.n_nonzero`` is kept, the number of rows in which
    coordinate ``i`` was non-zero (an extension). ``E`` is clipped at
    ``MAX_EXPONENT``.

    Parameters
    ----------
    state : CoordinateState
        The state before the pass (``gamma`` is ``None``).
    X : ndarray or sparse matrix of shape (n, n_features)
        The rows, without the constant column.
    T : ndarray of shape (n, K)
        Targets.
    sw : ndarray of shape (n,)
        Positive sample weights (module docstring).
    potential_width : float
        Kotłowski's ``α > 9/8``.
    loss : str or callable
        A name of ``LOSS_CODES`` (the loss table of
        :mod:`~skonline.linear_model._losses`, normalised by its Lipschitz
        constant; ``"multinomial"`` included) or a callable ``loss(p, y)``
        returning ``(value, g)`` for the ``K`` outputs (any gradient sequence
        with ``|g| ≤ 1``: online linear optimisation, adversaries).
    epsilon : float
        Threshold of the ``"huber"`` and ``"epsilon_insensitive"`` losses.
    center_target : bool, default=False
        Predict ``mean(y_<t) + ŷ_t`` and learn on the residual.

    Returns
    -------
    state : CoordinateState
        The new state.
    predictions : ndarray of shape (n, K)
        ``ŷ_t`` of every row, made before its update (without the target mean).
    """
    params = (potential_width, loss, epsilon, center_target)
    return _sparse_pass("coordinate", state, X, T, sw, *params)


def diagonal_pass(
    state: CoordinateState,
    X: Any,
    T: np.ndarray,
    sw: np.ndarray,
    *,
    potential_width: float,
    loss: str | Callable[..., Any],
    epsilon: float,
    center_target: bool = False,
    forgetting: float = 1.0,
) -> tuple[CoordinateState, np.ndarray]:
    """One ordered pass of the diagonal learner: Algorithm 2 on each coordinate alone.

    An extension of the paper: coordinate ``i`` runs Algorithm 2 (eq. 7) on
    the one-dimensional stream ``(x_{t,i}, g_t)``, with ``S = s_i²``. The
    linearised regret splits over the coordinates
    (``Σ_t g_t x_tᵀ(w_t − u) = Σ_i Σ_t g_t x_{t,i}(w_{t,i} − u_i)``), so
    Theorem 4.5 holds per coordinate and the regret is at most
    ``Σ_i |u_i| s_i sqrt(α log(1 + α u_i² s_i²) + Γ_i) + d``. Invariant to
    per-feature rescaling, ``O(K · nnz)`` per row like Algorithm 1, but with
    the potential ``exp((h_i²/s_i² − Γ_i)/(2α))/α`` of Algorithm 2 instead of
    ``exp((h_i² + x_i²)/(2α s_i²))/(α t d)``: the weights start at the scale
    of the data instead of ``1/(t d)`` of it. Per row and output::

        s²_i += x_i²
        ŷ_k = Σ_i exp((h_ki²/s²_i − Γ_ki)/(2α) − log α) (h_ki / s²_i) x_i
        h_ki −= g_k x_i;  Γ_ki += g_k² x_i²/s²_i

    Parameters and returns as :func:`coordinate_pass` (``state.gamma`` is
    kept, ``potential_width ≥ 9/8``), plus ``forgetting = γ`` in ``(0, 1]``:
    each row first discounts every coordinate's statistics, ``s² ← γs²``,
    ``h ← γh``, ``Γ ← γΓ`` (1: the algorithm above), lazily: the arrays
    hold the statistics over ``state.discount``, so a row costs ``O(K · nnz)``
    and the arrays take the discount in once every ``log(1e-16)/log(γ)`` rows
    (``O(K d)``), at the same rows whatever the split.
    """
    params = (potential_width, loss, epsilon, center_target)
    return _sparse_pass("diagonal", state, X, T, sw, *params, forgetting=forgetting)


def centered_coordinate_pass(
    state: CenteredState,
    X: Any,
    T: np.ndarray,
    sw: np.ndarray,
    *,
    potential_width: float,
    loss: str | Callable[..., Any],
    epsilon: float,
    center_target: bool = False,
) -> tuple[CenteredState, np.ndarray]:
    """Algorithm 1 or the diagonal learner on features centred at their running mean.

    An extension of the paper. At trial ``t``, after adding ``x_t`` to the
    running sums, the statistics are those of the data centred at the
    current mean ``m``: ``s̃² = Σ (x_q − m)²`` (Welford), ``h̃ = H + m G``
    with ``H = −Σ g_q x_q`` and ``G = Σ g_q``, and the row ``x̃ = x_t − m``;
    the learner (Algorithm 1 when ``state.gamma`` is ``None``, else the
    diagonal learner, whose ``Γ_i`` accumulates ``g² x̃_i²/s̃_i²`` at the mean
    of the time) is then applied to ``(h̃, s̃², x̃)``. The constant coordinate
    (``s² = t``, ``h = −G``) is not centred. Invariant to every per-feature
    affine map ``x_i → a_i x_i + b_i``; no regret guarantee (the centre moves
    with the data). A feature constant so far (``s̃² ≤ 1e-12 Σ x²``) gets
    weight 0. ``O(K · n_features)`` per row: CSR rows are densified. Pure;
    parameters and returns as :func:`coordinate_pass`.
    """
    state = _with_copies(state, "mean", "m2", "s2", "H", "G", "gamma", "gamma0")
    stream = _stream(state, T, sw, potential_width, loss, epsilon, center_target)
    predictions = np.empty((len(sw), state.H.shape[0]))
    diagonal = state.gamma is not None
    centered_pass(
        KIND_CODES["diagonal" if diagonal else "coordinate"],
        state.mean,
        state.m2,
        state.s2,
        state.H,
        state.G,
        state.gamma if diagonal else _EMPTY_2D,
        state.gamma0 if diagonal else _EMPTY_1D,
        state.fit_intercept,
        _rows(X),
        stream,
        predictions,
    )
    return _finish(state, stream), predictions


# ----------------------------------------------------------- read-outs (coordinate)
def _split_intercept(
    W: np.ndarray, fit_intercept: bool, offset: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(coef, intercept)`` of internal weights whose last column is the intercept's."""
    d = W.shape[1] - int(fit_intercept)
    intercept = W[:, d] if fit_intercept else np.zeros(W.shape[0])
    return np.ascontiguousarray(W[:, :d]), intercept + offset


def coordinate_readout(
    state: CoordinateState, *, potential_width: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(coef (K, n_features), intercept (K,))`` of Algorithm 1 or the diagonal learner.

    The prediction depends on the row itself (through ``s_{t,i}``); its
    linearisation at ``x = 0`` is, for a seen coordinate,
    ``w_i = exp(h_i²/(2α s_i²) − log(α τ d)) h_i / s_i²`` with ``τ = t + 1``
    (or ``n_i + 1`` per feature) for Algorithm 1, and
    ``w_i = exp((h_i²/s_i² − Γ_i)/(2α) − log α) h_i / s_i²`` for the diagonal
    learner; 0 for unseen coordinates. Exactly ``w_i / a_i`` after a
    power-of-two rescaling ``x_i → a_i x_i``.
    """
    alpha = potential_width
    d = state.s2.shape[0]
    log_norm = _EMPTY_1D
    if state.gamma is not None:
        log_norm0 = math.log(alpha)
    elif state.n_nonzero is not None:
        log_norm0, log_norm = 0.0, np.log(alpha * d * (state.n_nonzero + 1.0))
    else:
        log_norm0 = math.log(alpha * (state.n_samples_seen + 1) * d)
    gamma = state.gamma if state.gamma is not None else _EMPTY_2D
    s2, H = state.s2, state.H
    if state.discount != 1.0:  # the statistics themselves (a discounted diagonal learner)
        s2, H, gamma = s2 * state.discount, H * state.discount, gamma * state.discount
    n_features = d - int(state.fit_intercept)
    coef, constant = coordinate_weights(
        s2, H, gamma, log_norm, log_norm0, alpha, MAX_EXPONENT, n_features
    )
    return coef, constant + _offset(state)


def centered_readout(
    state: CenteredState, *, potential_width: float
) -> tuple[np.ndarray, np.ndarray]:
    """Linearisation of the centred predictor at ``x = m``: (coef (K, d), intercept (K,))."""
    alpha = potential_width
    mean, m2, sq, H, G = state.mean, state.m2, state.s2, state.H, state.G
    t = state.n_samples_seen
    live = m2 > 1e-12 * sq
    Hc = (H + np.outer(G, mean))[:, live]
    if state.gamma is not None:
        E = (Hc * Hc / m2[live] - state.gamma[:, live]) / (2.0 * alpha)
        log_norm = math.log(alpha)
    else:
        E = Hc * Hc / (2.0 * alpha * m2[live])
        log_norm = math.log(alpha * (t + 1) * (mean.shape[0] + int(state.fit_intercept)))
    coef = np.zeros_like(H)
    coef[:, live] = np.exp(np.minimum(E, MAX_EXPONENT) - log_norm) * (Hc / m2[live])
    intercept = -(coef @ mean)
    if state.fit_intercept and t > 0:
        if state.gamma0 is not None:
            E0 = (G * G / t - state.gamma0) / (2.0 * alpha)
        else:
            E0 = G * G / (2.0 * alpha * t)
        intercept += np.exp(np.minimum(E0, MAX_EXPONENT) - log_norm) * (-G / t)
    return coef, intercept + _offset(state)


# ------------------------------------------------------------- full kernel
def full_pass(
    state: FullState,
    X: Any,
    T: np.ndarray,
    sw: np.ndarray,
    *,
    potential_width: float,
    loss: str | Callable[..., Any],
    epsilon: float,
    rank_tol: float,
    center_target: bool = False,
    forgetting: float = 1.0,
    readout_predictions: np.ndarray | None = None,
) -> tuple[FullState, np.ndarray]:
    """One ordered pass of Algorithm 2 (fully invariant) over the rows.

    A pure kernel: ``state`` is copied, never written into. ``O(d²)`` per
    row (the Givens rotations that append the row to the triangular factor
    ``R`` of the data matrix) and ``O(K d)`` per output.

    Per row, in internal coordinates (:class:`FullState`), with ``v = R_t⁻ᵀx``
    and ``z_k = R_t⁻ᵀh_k`` carried by the same rotations::

        R ← qr([R; xᵀ])                              (Givens, BLAS drot)
        ŷ_k = (1/α) exp((‖z_k‖² − Γ_k)/(2α)) vᵀz_k   (eq. 7: ‖z_k‖² = h_kᵀS_t⁺h_k,
                                                      vᵀz_k = xᵀS_t⁺h_k, 0 on rank increases)
        z_k −= g_k v;  Γ_k += g_k² ‖v‖²              (‖v‖² = xᵀS_t⁺x, 1 on rank increases)

    Computing with ``R`` instead of ``S⁺`` (Sherman–Morrison) makes the
    rounding error proportional to ``κ(X)`` instead of ``κ(X)²``, and
    ``hᵀS⁺h`` and the leverage are sums of squares: they cannot turn
    negative.

    Parameters
    ----------
    state : FullState
        The state before the pass.
    X : ndarray or sparse matrix of shape (n, n_features)
        The rows, without the constant column (CSR rows are densified one at a time).
    T, sw, potential_width, loss, epsilon, center_target
        As :func:`coordinate_pass` (``potential_width ≥ 9/8``).
    rank_tol : float
        A row is a new direction when, at the first zero row of ``R`` where
        the rotated row is still non-zero, its squared entry exceeds
        ``rank_tol`` times the row's squared norm (in internal coordinates)
        and ``(STORAGE_MARGIN · u)²`` times the squared norm of the row before
        the shift to the first row (``u`` the unit roundoff of ``X``'s dtype:
        the storage rounding of a row in the span, see ``STORAGE_MARGIN``); a
        smaller remainder is rounding and is dropped.
    forgetting : float, default=1.0
        ``γ`` in ``(0, 1]``: each row first discounts the statistics,
        ``S ← γS``, ``h ← γh``, ``Γ ← γΓ`` (``R ← √γR``, ``z ← √γz``, and
        ``xy ← γ xy`` when kept), before its own are added (1: Algorithm 2).
        With ``state.xy`` kept, each row also adds ``y_t x_t`` to it (the
        first target; the sample weight does not enter, as it does not
        enter ``S``).
    readout_predictions : ndarray of shape (n,), default=None
        With ``state.xy`` kept, receives each row's least-squares prediction
        on the rows before it, ``x_tᵀS'⁺ Σ_{s<t} y_s x_s`` (``S'`` the
        discounted statistics before the row; 0 on a rank increase): the
        read-out's prequential predictions without its fading ridge,
        carried in ``O(d)`` a row by ``state.u``.

    Returns
    -------
    state : FullState
        The new state.
    predictions : ndarray of shape (n, K)
        ``ŷ_t`` of every row, made before its update (without the target mean).

    Raises
    ------
    FloatingPointError
        When the condition number of ``R`` exceeds ``MAX_CONDITION`` during
        the pass (the predictions would carry a relative error above about
        ``2e-4``); ``state`` is untouched.
    """
    state = _with_copies(state, "R", "Z", "gamma", "scale", "ref", "xy", "u")
    if readout_predictions is not None and readout_predictions.shape != (len(sw),):
        raise ValueError(
            f"readout_predictions has shape {readout_predictions.shape}, the rows {len(sw)}"
        )
    carry = state.xy is not None and state.u is not None and readout_predictions is not None
    predictions = np.empty((len(sw), state.Z.shape[0]))
    dtype = X.dtype if np.issubdtype(X.dtype, np.floating) else np.dtype(np.float64)
    storage_tol = (STORAGE_MARGIN * float(np.finfo(dtype).eps) / 2.0) ** 2
    spread = 1.0
    period = deflation_period(forgetting)
    n = len(sw)
    # the pass stops after each row whose number in the stream is a multiple of the period
    ends = list(range(period - int(state.n_samples_seen) % period, n, period)) if period else []
    start = 0
    for end in [*ends, n]:
        stream = _stream(
            state, T[start:end], sw[start:end], potential_width, loss, epsilon, center_target
        )
        rank, has_ref, chunk_spread = full_pass_qr(
            state.R,
            state.Z,
            state.gamma,
            state.scale,
            state.ref,
            bool(state.has_ref),
            state.fit_intercept,
            int(state.rank),
            _rows(X[start:end]),
            stream,
            float(rank_tol),
            storage_tol,
            predictions[start:end],
            float(forgetting),
            state.xy,
            state.u if carry else None,
            readout_predictions[start:end] if carry else None,  # type: ignore[index]
        )
        _finish(state, stream)
        state.rank, state.has_ref = int(rank), bool(has_ref)
        spread = max(spread, chunk_spread)
        if end < n or (period and n and int(state.n_samples_seen) % period == 0):
            if full_condition(state) > DEFLATE_CONDITION:
                deflate(state)
        start = end
    condition = max(spread, full_condition(state))
    if not condition <= MAX_CONDITION and _rank_deficient(state):
        # some coordinate seen is not a pivot: the pass rotates and the read-out solves
        # on the QR of R's rows, so their conditioning is what limits the accuracy; the
        # pivots alone can be tiny there (a row's remainder placed at its first column)
        condition = rows_condition(state)
    if not condition <= MAX_CONDITION:
        raise FloatingPointError(
            f"the condition number of the data matrix reached {condition:.2g} (in the "
            f"learner's internal coordinates), beyond {MAX_CONDITION:.0e}: float64 cannot "
            "resolve its smallest directions."
        )
    return state, predictions


def deflation_period(forgetting: float) -> int:
    """Rows between two checks of :func:`deflate` under ``forgetting`` (0: never).

    ``γ^(P/2) ≥ 1 / DEFLATE_GROWTH``: over ``P`` rows a direction without data
    loses at most that factor of its singular value against the others.
    """
    if forgetting >= 1.0:
        return 0
    return max(1, int(2.0 * math.log(DEFLATE_GROWTH) / -math.log(forgetting)))


def _echelon_pivots(M: np.ndarray, size: float) -> np.ndarray:
    """The columns where the rank of ``M[:, :j+1]`` grows by more than ``PIVOT_TOL · size``.

    Gram–Schmidt over the columns, in order, reorthogonalised once: a column
    is a pivot when its remainder keeps more than ``PIVOT_TOL · size``
    (``size``: ``M``'s largest singular value); at most ``M.shape[0]`` of them.
    """
    r = M.shape[0]
    basis = np.zeros((r, r))
    pivots: list[int] = []
    for j in range(M.shape[1]):
        B = basis[:, : len(pivots)]
        rest = M[:, j] - B @ (B.T @ M[:, j])
        rest -= B @ (B.T @ rest)
        left = float(np.linalg.norm(rest))
        if left > PIVOT_TOL * size:
            basis[:, len(pivots)] = rest / left
            pivots.append(j)
            if len(pivots) == r:
                break
    return np.array(pivots, dtype=np.intp)


def deflate(state: FullState) -> bool:
    """Forget the directions of ``S = RᵀR`` that decayed below ``DEFLATE_KEEP`` (in place).

    With ``R[piv] = U diag(σ) Vᵀ`` (``piv`` the non-zero rows), the directions
    ``v_i`` with ``σ_i < DEFLATE_KEEP · σ_1`` leave ``S``. ``R`` is rebuilt in
    the pass's echelon form (a row is zero or starts at its diagonal entry)
    from the others, ``M = diag(σ) Vᵀ`` over the kept ones: its rows are
    ``QᵀM`` with ``Q`` the orthonormal factor of ``M``'s pivot columns
    (:func:`_echelon_pivots`), so ``RᵀR = MᵀM`` up to the parts of ``M``
    outside those columns' span (below ``PIVOT_TOL · σ_1``). The learner's
    sums ``h_k = Rᵀz_k`` and ``xy`` are projected on the new factor's row
    space, as if the rows had never had a part along the forgotten
    directions (a feature silent for long enough is forgotten, and counts as
    a new direction when it comes back); ``z_k = R⁻ᵀh_k`` and ``u = R⁻ᵀxy``
    are solved again, ``rank`` is the number of pivots, ``Γ`` is unchanged.
    Returns whether the state changed: nothing to drop, or a rebuilt factor
    not better conditioned than ``DEFLATE_CONDITION``, leaves it untouched.
    """
    R = state.R
    piv = np.flatnonzero(np.diag(R) != 0.0)
    if piv.size < 2:
        return False
    _, sigma, Vt = np.linalg.svd(R[piv], full_matrices=False)
    keep = sigma >= DEFLATE_KEEP * sigma[0]
    if keep.all():
        return False
    M = sigma[keep, None] * Vt[keep]  # MᵀM = S without the forgotten directions
    pivots = _echelon_pivots(M, float(sigma[0]))
    if pivots.size == 0:
        return False
    Q, _ = np.linalg.qr(M[:, pivots])
    rows = np.zeros((R.shape[0], R.shape[1]))
    rows[pivots] = Q.T @ M
    new_R = np.triu(rows)  # the entries left of each pivot are rounding: exact zeros
    if not _factor_condition(new_R) < DEFLATE_CONDITION:
        return False
    square = new_R[np.ix_(pivots, pivots)]
    basis = np.linalg.qr(new_R[pivots].T)[0]  # the new factor's row space
    H = ((state.Z @ R) @ basis) @ basis.T
    Z = np.zeros_like(state.Z)
    if Z.shape[0]:
        Z[:, pivots] = _triangular_solve(square, np.ascontiguousarray(H[:, pivots].T), True).T
    if state.xy is not None:
        xy = basis @ (basis.T @ state.xy)
        if state.u is not None:
            state.u[:] = 0.0
            state.u[pivots] = _triangular_solve(square, xy[pivots, None], True)[:, 0]
        state.xy[:] = xy
    state.R[:] = new_R
    state.Z[:] = Z
    state.rank = int(pivots.size)
    return True


def _principal(R: np.ndarray, piv: np.ndarray) -> np.ndarray:
    """``R[piv][:, piv]``: ``R`` itself when every row is a pivot (the usual case)."""
    return R if piv.size == R.shape[0] else R[np.ix_(piv, piv)]


def full_condition(state: FullState) -> float:
    """LAPACK's estimate of the 1-norm condition number of ``R`` on its range (1 when empty).

    ``dtrcon`` is called from the compiled module (``scipy.linalg.lapack.dtrcon``
    exists only from SciPy 1.15).
    """
    return _factor_condition(state.R)


def _rank_deficient(state: FullState) -> bool:
    """Whether some coordinate seen is not a pivot of ``R`` (fewer rows than coordinates)."""
    return int(np.count_nonzero(np.diag(state.R))) < int(np.count_nonzero(state.scale))


def rows_condition(state: FullState) -> float:
    """The condition number of ``R``'s non-zero rows on the coordinates seen (1 when empty).

    What the read-out of a rank-deficient state solves with (:func:`_pinv_solve`:
    the QR of those rows), and what the rows' own condition number is: unlike
    the pivot submatrix of :func:`full_condition`, it does not depend on which
    column a row's new direction was placed at. An SVD, ``O(a r²)``.
    """
    piv = np.flatnonzero(np.diag(state.R) != 0.0)
    if piv.size == 0:
        return 1.0
    rows = state.R[np.ix_(piv, np.flatnonzero(state.scale != 0.0))]
    if not np.isfinite(rows).all():
        return math.inf
    sv = np.linalg.svd(rows, compute_uv=False)
    return math.inf if sv[-1] == 0.0 else float(sv[0] / sv[-1])


def _factor_condition(R: np.ndarray) -> float:
    """:func:`full_condition` of the factor ``R`` (a state's, or one being rebuilt)."""
    piv = np.flatnonzero(np.diag(R) != 0.0)
    if piv.size == 0:
        return 1.0
    rcond = triangular_rcond(np.asfortranarray(_principal(R, piv)))
    return math.inf if rcond == 0.0 else 1.0 / rcond


def full_readout(
    state: FullState,
    *,
    potential_width: float,
    readout_ridge: float = 0.0,
    least_squares: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """``(coef (K, n_features), intercept (K,))`` of Algorithm 2 in raw units.

    The prediction of eq. 7 depends on the row itself (through ``S_t``); its
    linearisation at ``x = 0`` is ``w_k = (1/α) exp((q_k − Γ_k)/(2α)) S⁺h_k``.
    ``S⁺h_k = R⁺z_k`` is the minimum-norm solution of ``R w = z_k``: a
    triangular solve once every coordinate seen is a pivot of ``R``, and
    otherwise (collinear coordinates, or fewer rows than coordinates) the
    QR factorisation of the non-zero rows of ``R`` (``O(d r²)``). Coordinates
    never seen get weight 0. Internal coordinates are mapped back to raw
    units (the power-of-two scales, and the shift to the first row through
    the intercept).

    ``readout_ridge`` (``c``): while ``t < RIDGE_ROWS · d`` rows (``d`` the
    coordinates seen, intercept included) ``S⁺h_k`` is replaced by the ridge
    solution ``(S + λ_t D)⁺h_k`` (:func:`ridge_weight`), ``D`` the diagonal
    of ``S`` without the intercept's coordinate: a shrinkage in the data's own
    per-coordinate scale, so the read-out stays invariant to per-feature
    changes of unit and origin; from ``RIDGE_ROWS · d`` rows on it is the
    linearisation above exactly. ``O(d³)`` per read-out while it acts.

    ``least_squares`` (a regressor's ``readout="least_squares"``, which
    keeps ``state.xy``): the weights are instead the (discounted)
    least-squares solution ``S⁺ Σ_t y_t x_t`` on the rows seen, with the
    same fading ridge ``(S + λ_t D)⁺ Σ_t y_t x_t``: recursive least squares
    read from the learner's own ``R``. The running target mean is not added
    (the constant coordinate fits the targets' level).
    """
    alpha = potential_width
    lam = ridge_weight(readout_ridge, state)
    seen = state.scale != 0.0
    if least_squares:
        if state.xy is None:
            raise ValueError("the least-squares read-out needs a state that keeps xy")
        B = state.xy[None, :]
        W = _ridge_solve(state, lam, B) if lam > 0.0 else _lstsq_solve(state.R, B, seen)
        offset = 0.0
    else:
        if lam > 0.0:
            W = _ridge_solve(state, lam)
        else:
            W = _pinv_solve(state.R, state.Z, seen)
        E = np.minimum((state.q() - state.gamma) / (2.0 * alpha), MAX_EXPONENT)
        W *= (np.exp(E) / alpha)[:, None]
        offset = _offset(state)
    c = state.scale
    W = W / np.where(c != 0.0, c, 1.0)
    coef, intercept = _split_intercept(W, state.fit_intercept, offset)
    if state.fit_intercept:
        intercept = intercept - coef @ state.ref
    return coef, intercept


def ridge_weight(readout_ridge: float, state: FullState) -> float:
    """``λ_t = c · (d / t) · max(0, 1 − t / (RIDGE_ROWS · d))`` of the read-out's ridge.

    ``c = readout_ridge``, ``t`` the rows seen, ``d`` the coordinates seen
    (intercept included): about ``c`` times the rows' information per
    coordinate while there are few rows per coordinate, faded linearly to 0
    at ``RIDGE_ROWS · d`` rows (0 before the first row).
    """
    d = int(np.count_nonzero(state.scale))
    t = float(state.n_samples_seen)
    if readout_ridge <= 0.0 or d == 0 or t <= 0.0:
        return 0.0
    return readout_ridge * (d / t) * max(0.0, 1.0 - t / (RIDGE_ROWS * d))


def _ridge_solve(state: FullState, lam: float, B: np.ndarray | None = None) -> np.ndarray:
    """``W[k] = (S + λD)⁺b_k`` on the coordinates seen (internal coordinates).

    ``S = RᵀR`` restricted to the coordinates seen, ``b_k`` the rows of
    ``B`` (``Σ_t y_t x_t`` for least squares) or, without ``B``, the
    learner's ``h_k = Rᵀz_k``; ``D`` the diagonal of ``S`` with the intercept's entry 0 (the
    intercept is not shrunk). ``S + λD`` is positive definite on the coordinates
    seen (each has ``D_i > 0`` but the intercept, whose ``S_ii`` is the rows'
    weight), so the solution is unique (:func:`_positive_solve`); a coordinate
    that is constant so far is not seen and gets weight 0.
    """
    R, Z = state.R, state.Z
    W = np.zeros(Z.shape if B is None else B.shape)
    piv = np.flatnonzero(np.diag(R) != 0.0)
    if piv.size == 0:
        return W
    active = np.flatnonzero(state.scale != 0.0)
    Ra = R[np.ix_(piv, active)]
    S = Ra.T @ Ra
    D = np.diag(S).copy()
    if state.fit_intercept:
        D[active == R.shape[0] - 1] = 0.0
    H = Ra.T @ Z[:, piv].T if B is None else B[:, active].T
    W[:, active] = _positive_solve(S + lam * np.diag(D), H).T
    return W


def _positive_solve(M: np.ndarray, H: np.ndarray) -> np.ndarray:
    """``M⁻¹H`` for the ridge's symmetric positive definite ``M = S + λD`` (``λ > 0``).

    A Cholesky solve (LAPACK's ``dposv``, called directly) at a tenth of the
    SVD route's time (30-40 µs at ``d = 21``; a one-row call reads out twice
    per learner). Its rounding is about ``ε`` over the smallest ratio of a
    Cholesky pivot to its diagonal entry of ``M`` (the share of a
    coordinate that the others do not explain); where that ratio is below
    ``√ε`` (``λ`` tiny beside collinear columns, where the split of the
    weight between the columns would be rounding noise) or the factorisation
    fails, the minimum-norm least-squares solution (SVD), as before. With
    the default ``readout_ridge`` the ratio stays above ``λ ≈ 10⁻⁵``.
    """
    c, x, info = dposv(M, H)
    if info == 0:
        diag = np.diagonal(M)
        if np.all(np.diagonal(c) ** 2 >= _PIVOT_SHARE * diag):
            return x
    return np.linalg.lstsq(M, H, rcond=None)[0]


#: Smallest share of a diagonal entry of the ridge system that its Cholesky pivot
#: may keep (√ε): below it the Cholesky solve hands over to the SVD route.
_PIVOT_SHARE = math.sqrt(np.finfo(np.float64).eps)


def _lstsq_solve(R: np.ndarray, B: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """``W[k] = S⁺b_k = R⁺R⁺ᵀb_k`` for ``S = RᵀR`` (the minimum-norm least-squares weights).

    ``z_k = R⁺ᵀb_k`` by least squares on the non-zero rows of ``R`` (which
    have full row rank), then :func:`_pinv_solve`: the accuracy of ``R``
    (``κ(X)``), not of ``S`` (``κ(X)²``).
    """
    Z = np.zeros(B.shape)
    piv = np.flatnonzero(np.diag(R) != 0.0)
    if piv.size == 0:
        return Z
    active = np.flatnonzero(seen)
    if piv.size == active.size:  # every coordinate seen is a pivot: R is invertible there
        Z[:, piv] = _triangular_solve(_principal(R, piv), B[:, piv].T, trans=True).T
    else:
        Ra = R[np.ix_(piv, active)]
        Z[:, piv] = np.linalg.lstsq(Ra.T, B[:, active].T, rcond=None)[0].T
    return _pinv_solve(R, Z, seen)


def _triangular_solve(R: np.ndarray, B: np.ndarray, trans: bool = False) -> np.ndarray:
    """``R⁻¹B`` (``R⁻ᵀB`` with ``trans``) for an upper triangular float64 ``R`` without zero pivots.

    BLAS's ``dtrsm`` called directly (a C-ordered ``R`` is passed as the lower
    triangular ``Rᵀ`` of the transposed system, no copy), after the check for
    an exact zero pivot that LAPACK's ``dtrtrs`` makes. Not ``dtrtrs`` itself
    (which ``scipy.linalg.solve_triangular`` calls): OpenBLAS runs its
    ``dtrtrs`` on every thread whatever the size, and on a loaded machine a
    19 x 19 solve then waits 2-8 ms for the other threads instead of taking
    1.5 µs; its ``dtrsm`` keeps small solves on the calling thread (the same
    bits beyond the smallest sizes; one rounding apart at most below them).
    """
    diagonal = np.diagonal(R)
    if not diagonal.all():
        first = int(np.flatnonzero(diagonal == 0.0)[0])
        raise LinAlgError(f"singular matrix: resolution failed at diagonal {first}")
    if R.flags.f_contiguous:
        return dtrsm(1.0, R, B, lower=0, trans_a=int(trans))
    return dtrsm(1.0, R.T, B, lower=1, trans_a=int(not trans))


def _pinv_solve(R: np.ndarray, Z: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """``W[k] = (RᵀR)⁺Rᵀz_k = R⁺z_k`` for ``z_k`` supported on the non-zero rows of ``R``."""
    K, d = Z.shape
    W = np.zeros((K, d))
    piv = np.flatnonzero(np.diag(R) != 0.0)
    if piv.size == 0:
        return W
    active = np.flatnonzero(seen)
    Zp = Z[:, piv].T
    if piv.size == active.size:  # every coordinate seen is a pivot: R is invertible there
        W[:, piv] = _triangular_solve(_principal(R, piv), Zp).T
        return W
    # R_r (r x a) has full row rank: R_r⁺ = Q L⁻ᵀ with R_rᵀ = Q L
    Q, L = np.linalg.qr(R[np.ix_(piv, active)].T)
    W[:, active] = (Q @ _triangular_solve(L, Zp, trans=True)).T
    return W

"""Kernels of the scale-invariant online learners: states, ordered passes, read-outs.

Kotłowski, "Scale-Invariant Unconstrained Online Learning", ALT 2017:
Algorithm 1 (coordinate-wise invariant, Sec. 3.2, eq. 5) and Algorithm 2
(invariant to every invertible linear map, Sec. 4.2, eq. 7, with the
rank-one pseudo-inverse updates of Appendix E), plus the running-mean
centred form of Algorithm 1 (an extension). Both algorithms predict
``ŷ_t = x_tᵀw_t`` with weights in the units of ``1/x`` and no learning rate;
the loss enters only through its derivative ``g_t``, ``|g_t| ≤ 1``.

Every pass is pure: ``new_state, predictions = kernel(state, X, T, sw, ...)``
copies what it changes and never writes into ``state`` or ``X``. The passes
know nothing of scikit-learn: rows arrive validated, with the intercept
column appended, and targets ``T`` of shape (n, K).

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

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..utils._rank_one import pinv_rank_one_update
from ._linear import LinearState
from ._losses import loss_and_derivative, loss_and_derivatives

__all__ = [
    "MAX_EXPONENT",
    "MIN_POTENTIAL_WIDTH",
    "REFRESH_EVERY",
    "CenteredState",
    "CoordinateState",
    "FullState",
    "ScaleInvariantState",
    "centered_readout",
    "coordinate_centered_pass",
    "coordinate_pass",
    "coordinate_readout",
    "full_pass",
    "full_readout",
    "init_state",
    "loss_and_gradient",
    "scalar_loss_and_gradient",
]

#: ``α₀`` of Lemma A.1 (``x + e^{−x} ≤ e^{α₀x²/2}`` for every real ``x``): the
#: smallest potential width of Algorithm 2; Algorithm 1 needs ``α > α₀``.
MIN_POTENTIAL_WIDTH = 9.0 / 8.0
#: Largest exponent of the potential; beyond it the weights are clipped (with a warning).
MAX_EXPONENT = 700.0
#: Predictions are clipped to this magnitude before the loss derivative.
MAX_PREDICTION = 1e300
#: Rows after which the full variant recomputes ``q = hᵀS⁺h`` exactly (drift control).
REFRESH_EVERY = 1000


# ------------------------------------------------------------------ states
@dataclass(kw_only=True, eq=False)
class ScaleInvariantState(LinearState):
    """Fields shared by the states of the three passes.

    ``n_samples_seen`` is the paper's trial counter ``t`` and
    ``cumulative_loss`` the sum of the weighted losses of the online
    predictions.

    Attributes
    ----------
    H : ndarray of shape (K, d)
        ``h = −Σ_t g_t x_t`` of each output (internal coordinates, intercept
        column last when there is one).
    coef : ndarray of shape (K, n_features)
        Read-out: linearised weights of the next trial, in raw feature units.
    intercept : ndarray of shape (K,)
        Read-out: the intercepts (running target mean included).
    n_clipped : int
        Rows on which the potential's exponent was clipped at ``MAX_EXPONENT``.
    target_sum, target_count : float, int
        Running sum and count of the targets (``center_target`` only).
    """

    H: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    n_clipped: int = 0
    target_sum: float = 0.0
    target_count: int = 0


@dataclass(kw_only=True, eq=False)
class CoordinateState(ScaleInvariantState):
    """State of Algorithm 1.

    Attributes
    ----------
    s2 : ndarray of shape (d,)
        ``s_i² = Σ_t x_{t,i}²``.
    n_nonzero : ndarray of shape (d,) or None
        Rows in which each coordinate was non-zero (the per-feature time
        counter); ``None`` with the paper's global counter.
    """

    s2: np.ndarray
    n_nonzero: np.ndarray | None = None


@dataclass(kw_only=True, eq=False)
class CenteredState(ScaleInvariantState):
    """State of Algorithm 1 on features centred at their running mean (no intercept column).

    Attributes
    ----------
    mean : ndarray of shape (n_features,)
        Running mean of each feature.
    m2 : ndarray of shape (n_features,)
        Welford sum of squared deviations from the running mean.
    s2 : ndarray of shape (n_features,)
        ``Σ_t x_{t,i}²`` (the reference of the "constant so far" test).
    G : ndarray of shape (K,)
        ``Σ_t g_t`` of each output.
    """

    mean: np.ndarray
    m2: np.ndarray
    s2: np.ndarray
    G: np.ndarray


@dataclass(kw_only=True, eq=False)
class FullState(ScaleInvariantState):
    """State of Algorithm 2, in equilibrated coordinates.

    Attributes
    ----------
    Sp : ndarray of shape (d, d)
        ``S⁺``, the pseudo-inverse of ``S = Σ_t x_t x_tᵀ``.
    P : ndarray of shape (d, d) or None
        Projector onto the range of ``S``; ``None`` once the rank is full.
    rank : int
        Rank of ``S``.
    scale : ndarray of shape (d,)
        Power-of-two scale of each feature (0 until its first non-zero value).
    gamma : ndarray of shape (K,)
        ``Γ = Σ_t g_t² x_tᵀS_t⁺x_t`` of each output.
    q : ndarray of shape (K,)
        ``hᵀS⁺h`` of each output, kept by recurrence.
    """

    Sp: np.ndarray
    P: np.ndarray | None
    rank: int = 0
    scale: np.ndarray
    gamma: np.ndarray
    q: np.ndarray


def init_state(kind, n_features, n_outputs, *, fit_intercept=True, per_feature=False, **fields):
    """The empty state of a pass: ``kind`` in {"coordinate", "center", "full"}.

    ``n_features`` excludes the intercept column, which the coordinate and
    full passes receive as an ordinary last column when ``fit_intercept``
    (the centred pass handles the intercept itself). ``fields`` are further
    :class:`~skonline.linear_model._linear.LinearState` fields (``classes``).
    """
    K, d = n_outputs, n_features
    d_aug = d + int(fit_intercept)
    readout = {"coef": np.zeros((K, d)), "intercept": np.zeros(K), **fields}
    if kind == "full":
        return FullState(
            Sp=np.zeros((d_aug, d_aug)),
            P=np.zeros((d_aug, d_aug)),
            scale=np.zeros(d_aug),
            H=np.zeros((K, d_aug)),
            gamma=np.zeros(K),
            q=np.zeros(K),
            **readout,
        )
    if kind == "center":
        return CenteredState(
            mean=np.zeros(d),
            m2=np.zeros(d),
            s2=np.zeros(d),
            H=np.zeros((K, d)),
            G=np.zeros(K),
            **readout,
        )
    return CoordinateState(
        s2=np.zeros(d_aug),
        H=np.zeros((K, d_aug)),
        n_nonzero=np.zeros(d_aug) if per_feature else None,
        **readout,
    )


def _with_copies(state, *names):
    """A new state whose named arrays are copies: the pass writes only into those."""
    arrays = {name: getattr(state, name) for name in names}
    return dataclasses.replace(
        state, **{name: None if a is None else a.copy() for name, a in arrays.items()}
    )


# ------------------------------------------------------------------ losses
def loss_and_gradient(loss, p, y, epsilon):
    """Summed loss and normalised derivatives ``g = (∂ℓ/∂ŷ) / L`` of the ``K`` outputs of a row.

    ``p`` and ``y`` have shape ``(K,)``. Named losses come from the one
    table (:func:`~skonline.linear_model._losses.loss_and_derivatives`);
    the Huber loss, ``epsilon``-Lipschitz, is fed ``l'/epsilon`` (the paper
    assumes ``L = 1``: learning on ``ℓ/L``). A callable ``loss`` is called
    as ``loss(p, y)`` and returns the same pair: the passes then run on any
    gradient sequence with ``|g| ≤ 1`` (online linear optimisation,
    adversaries).
    """
    if callable(loss):
        value, g = loss(p, y)
        return float(value), np.array(g, dtype=np.float64).reshape(p.shape)
    value, derivatives = loss_and_derivatives(loss, p, y, epsilon)
    if loss == "huber":
        derivatives = derivatives / epsilon
    return value, derivatives


def scalar_loss_and_gradient(loss, p, y, epsilon):
    """:func:`loss_and_gradient` for one output, on Python floats (the fast path)."""
    if callable(loss):
        value, g = loss_and_gradient(loss, np.array([float(p)]), np.array([float(y)]), epsilon)
        return value, float(g[0])
    value, derivative = loss_and_derivative(loss, p, y, epsilon)
    if loss == "huber":
        return value, derivative / epsilon
    return value, derivative


def _weighted(g, weight):
    """``clip(weight · g, −1, 1)`` of one output (module docstring: sample weights)."""
    g *= weight
    if g > 1.0:
        return 1.0
    if g < -1.0:
        return -1.0
    return g


def _weighted_vector(g, weight):
    """``clip(weight · g, −1, 1)`` of ``K`` outputs (``|g| ≤ 1`` already)."""
    g = g * weight
    return np.clip(g, -1.0, 1.0) if weight > 1.0 else g


def _finite_predictions(p):
    if not np.all(np.abs(p) <= MAX_PREDICTION):  # inf and NaN too
        p = np.clip(np.nan_to_num(p, nan=0.0), -MAX_PREDICTION, MAX_PREDICTION)
    return p


def _offset(state):
    """Running mean of the targets seen so far (``center_target``), else 0."""
    if state.target_count == 0:
        return 0.0
    return state.target_sum / state.target_count


def _advance_target(state, y, center_target):
    if center_target:
        state.target_sum += float(y[0])
        state.target_count += 1


# ------------------------------------------------------- coordinate kernel
def coordinate_pass(state, X, T, sw, *, potential_width, loss, epsilon, center_target=False):
    """One ordered pass of Algorithm 1 (coordinate-wise invariant) over the rows.

    A pure kernel: ``state`` is copied, never written into. Only the stored
    entries of each CSR row are touched, ``O(K · nnz)`` per row: a
    coordinate with ``x_{t,i} = 0`` contributes nothing to ``ŷ_t`` and its
    statistics do not move, so this is exactly the paper's dense loop.

    Per row ``t`` and output ``k``, on the stored coordinates ``i``::

        s²_i += x_i²
        ŷ_k = Σ_i exp(E_ki − log(α n d)) (h_ki / s_i)(x_i / s_i),
              E_ki = (h_ki² + x_i²) / (2α s²_i)          (eq. 5, in the log domain)
        h_ki −= g_k x_i

    with ``α = potential_width`` and ``n = t`` (the paper's global counter)
    or, when ``state.n_nonzero`` is kept, the number of rows in which
    coordinate ``i`` was non-zero (an extension). ``E`` is clipped at
    ``MAX_EXPONENT``.

    Parameters
    ----------
    state : CoordinateState
        The state before the pass.
    X : CSR matrix of shape (n, d)
        Canonical rows (:func:`skonline.utils._rows.canonical_csr`), the
        intercept column included.
    T : ndarray of shape (n, K)
        Targets.
    sw : ndarray of shape (n,)
        Positive sample weights (module docstring).
    potential_width : float
        Kotłowski's ``α > 9/8``.
    loss : str or callable
        A loss of :func:`loss_and_gradient` (``"multinomial"`` included).
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
    state = _with_copies(state, "s2", "H", "n_nonzero")
    s2, H = state.s2, state.H
    n_nonzero = state.n_nonzero
    d = s2.shape[0]
    t = state.n_samples_seen
    total_loss, n_clipped = state.cumulative_loss, state.n_clipped
    indptr, indices, data = X.indptr, X.indices, X.data
    n = X.shape[0]
    predictions = np.empty((n, H.shape[0]))
    alpha = potential_width
    two_alpha = 2.0 * alpha
    full = slice(None)
    if H.shape[0] == 1:  # one output: 1-D arrays and Python floats (about twice as fast)
        h = H[0]
        for row in range(n):
            lo, hi = indptr[row], indptr[row + 1]
            t += 1
            if lo == hi:  # an all-zero row only advances t
                p = 0.0
            else:
                x = data[lo:hi]
                sel = full if hi - lo == d else indices[lo:hi]
                x2 = x * x
                s2v = s2[sel] + x2
                s2[sel] = s2v
                hv = h[sel]
                if n_nonzero is None:
                    log_norm = math.log(alpha * t * d)
                else:
                    n_nonzero[sel] += 1
                    log_norm = np.log(alpha * d * n_nonzero[sel])
                E = (hv * hv + x2) / (two_alpha * s2v)
                if E.max() > MAX_EXPONENT:
                    n_clipped += 1
                    E = np.minimum(E, MAX_EXPONENT)
                s = np.sqrt(s2v)
                p = float(np.dot(np.exp(E - log_norm) * (hv / s), x / s))
                if not abs(p) <= MAX_PREDICTION:
                    p = 0.0 if p != p else math.copysign(MAX_PREDICTION, p)
            predictions[row, 0] = p
            value, g = scalar_loss_and_gradient(loss, p + _offset(state), T[row, 0], epsilon)
            _advance_target(state, T[row], center_target)
            total_loss += sw[row] * value
            g = _weighted(g, sw[row])
            if lo == hi or g == 0.0:
                continue
            if sel is full:
                h -= g * x
            else:
                h[sel] = hv - g * x
        state.n_samples_seen, state.cumulative_loss, state.n_clipped = t, total_loss, n_clipped
        return state, predictions
    for row in range(n):
        lo, hi = indptr[row], indptr[row + 1]
        t += 1
        x = data[lo:hi]
        sel = full if hi - lo == d else indices[lo:hi]  # a full row: views, not copies
        x2 = x * x
        s2v = s2[sel] + x2
        s2[sel] = s2v
        Hv = H[:, sel]
        if n_nonzero is None:
            log_norm = math.log(alpha * t * d)
        else:
            n_nonzero[sel] += 1
            log_norm = np.log(alpha * d * n_nonzero[sel])
        E = (Hv * Hv + x2) / (two_alpha * s2v)
        if E.max(initial=0.0) > MAX_EXPONENT:
            n_clipped += 1
            E = np.minimum(E, MAX_EXPONENT)
        s = np.sqrt(s2v)
        p = (np.exp(E - log_norm) * (Hv / s)) @ (x / s)
        p = _finite_predictions(p)
        predictions[row] = p
        value, g = loss_and_gradient(loss, p + _offset(state), T[row], epsilon)
        _advance_target(state, T[row], center_target)
        total_loss += sw[row] * value
        g = _weighted_vector(g, sw[row])
        if sel is full:
            H -= np.outer(g, x)
        else:
            H[:, sel] = Hv - np.outer(g, x)
    state.n_samples_seen, state.cumulative_loss, state.n_clipped = t, total_loss, n_clipped
    return state, predictions


def coordinate_coef(state, potential_width):
    """Linearised weights of the next trial, shape (K, d).

    The prediction of eq. 5 depends on the row itself (through ``s_{t,i}``);
    its linearisation at ``x = 0`` with ``τ = t + 1`` (or ``n_i + 1`` per
    feature) is ``w_i = exp(h_i²/(2α s_i²) − log(α τ d)) h_i / s_i²``, and 0
    for unseen coordinates. Exactly ``w_i / a_i`` after a power-of-two
    rescaling ``x_i → a_i x_i``.
    """
    alpha = potential_width
    s2, H = state.s2, state.H
    d = s2.shape[0]
    seen = s2 > 0.0
    if state.n_nonzero is not None:
        log_norm = np.log(alpha * d * (state.n_nonzero[seen] + 1.0))
    else:
        log_norm = math.log(alpha * (state.n_samples_seen + 1) * d)
    coef = np.zeros_like(H)
    Hs, s2s = H[:, seen], s2[seen]
    E = np.minimum(Hs * Hs / (2.0 * alpha * s2s), MAX_EXPONENT)
    coef[:, seen] = np.exp(E - log_norm) * (Hs / s2s)
    return coef


def _split_intercept(W, fit_intercept, offset):
    """``(coef, intercept)`` of internal weights whose last column is the intercept's."""
    d = W.shape[1] - int(fit_intercept)
    intercept = W[:, d] if fit_intercept else np.zeros(W.shape[0])
    return np.ascontiguousarray(W[:, :d]), intercept + offset


def coordinate_readout(state, *, potential_width, fit_intercept):
    """``(coef (K, n_features), intercept (K,))`` of Algorithm 1 in raw units."""
    return _split_intercept(coordinate_coef(state, potential_width), fit_intercept, _offset(state))


def coordinate_centered_pass(
    state, X, T, sw, *, potential_width, loss, epsilon, fit_intercept, center_target=False
):
    """Algorithm 1 on features centred at their running mean (an extension of the paper).

    Dense rows without the intercept column. At trial ``t``, after adding
    ``x_t`` to the running sums, the statistics are those of the data
    centred at the current mean ``m``: ``s̃² = Σ (x_q − m)²`` (Welford),
    ``h̃ = H + m G`` with ``H = −Σ g_q x_q`` and ``G = Σ g_q``, and the row
    ``x̃ = x_t − m``; eq. 5 is then applied to ``(h̃, s̃², x̃)``. The
    intercept coordinate (constant 1, ``s² = t``, ``h = −G``) is not
    centred. Invariant to every per-feature affine map
    ``x_i → a_i x_i + b_i``; no regret guarantee (the centre moves with the
    data). A feature constant so far (``s̃² ≤ 1e-12 Σ x²``) gets weight 0.
    Pure kernel (``state`` is copied); parameters and returns as
    :func:`coordinate_pass`, with ``fit_intercept`` for the constant
    coordinate.
    """
    state = _with_copies(state, "mean", "m2", "s2", "H", "G")
    mean, m2, sq = state.mean, state.m2, state.s2
    H, G = state.H, state.G
    t = state.n_samples_seen
    total_loss, n_clipped = state.cumulative_loss, state.n_clipped
    n, d = X.shape
    d_aug = d + int(fit_intercept)
    predictions = np.empty((n, H.shape[0]))
    alpha = potential_width
    two_alpha = 2.0 * alpha
    for row in range(n):
        x = X[row]
        t += 1
        delta = x - mean
        mean += delta / t
        m2 += delta * (x - mean)
        sq += x * x
        log_norm = math.log(alpha * t * d_aug)
        live = m2 > 1e-12 * sq
        xc = np.where(live, x - mean, 0.0)
        s2c = np.where(live, m2, 1.0)
        Hc = H + np.outer(G, mean)
        E = (Hc * Hc + xc * xc) / (two_alpha * s2c)
        if fit_intercept:
            E0 = (G * G + 1.0) / (two_alpha * t)
        if E.max(initial=0.0) > MAX_EXPONENT or (fit_intercept and E0.max() > MAX_EXPONENT):
            n_clipped += 1
            E = np.minimum(E, MAX_EXPONENT)
        s = np.sqrt(s2c)
        p = (np.exp(E - log_norm) * (Hc / s)) @ (xc / s)
        if fit_intercept:
            E0 = np.minimum(E0, MAX_EXPONENT)
            p = p + np.exp(E0 - log_norm) * (-G / t)
        p = _finite_predictions(p)
        predictions[row] = p
        value, g = loss_and_gradient(loss, p + _offset(state), T[row], epsilon)
        _advance_target(state, T[row], center_target)
        total_loss += sw[row] * value
        g = _weighted_vector(g, sw[row])
        H -= np.outer(g, x)
        G += g
    state.n_samples_seen, state.cumulative_loss, state.n_clipped = t, total_loss, n_clipped
    return state, predictions


def centered_readout(state, *, potential_width, fit_intercept):
    """Linearisation of the centred predictor at ``x = m``: (coef (K, d), intercept (K,))."""
    alpha = potential_width
    mean, m2, sq, H, G = state.mean, state.m2, state.s2, state.H, state.G
    t = state.n_samples_seen
    tau = t + 1
    d_aug = mean.shape[0] + int(fit_intercept)
    log_norm = math.log(alpha * tau * d_aug)
    live = m2 > 1e-12 * sq
    Hc = (H + np.outer(G, mean))[:, live]
    coef = np.zeros_like(H)
    E = np.minimum(Hc * Hc / (2.0 * alpha * m2[live]), MAX_EXPONENT)
    coef[:, live] = np.exp(E - log_norm) * (Hc / m2[live])
    intercept = -(coef @ mean)
    if fit_intercept and t > 0:
        E0 = np.minimum(G * G / (2.0 * alpha * t), MAX_EXPONENT)
        intercept += np.exp(E0 - log_norm) * (-G / t)
    return coef, intercept + _offset(state)


# ------------------------------------------------------------- full kernel
def _set_new_scales(c, x):
    """Fix the scale of features non-zero for the first time; return whether any was.

    Equilibration: the full kernel divides feature ``i`` by ``c_i``, the
    power of two of its first non-zero value. It is a fixed invertible
    diagonal map (earlier values of a new feature were 0), so by the
    invariance of Algorithm 2 (Appendix D) the predictions do not change in
    exact arithmetic, while ``S⁺`` stays well scaled; powers of two make
    the division exact. Without it the rank-one updates of Appendix E lose
    Lemma 4.3 on badly scaled columns.
    """
    new = (c == 0.0) & (x != 0.0)
    if not new.any():
        return False
    _, exponent = np.frexp(x[new])
    c[new] = np.ldexp(1.0, exponent - 1)
    return True


def full_pass(state, X, T, sw, *, potential_width, loss, epsilon, rank_tol, center_target=False):
    """One ordered pass of Algorithm 2 (fully invariant) over the rows.

    A pure kernel: ``state`` is copied, never written into. ``O(d²)`` per
    row (one mat-vec and one symmetric rank-one update of ``S⁺``, plus the
    projector while the rank is not full) and ``O(K d)`` per output.

    Per row, in equilibrated coordinates (:func:`_set_new_scales`), with
    ``a_k = xᵀS_t⁺h_k`` and ``q_k = h_kᵀS_t⁺h_k`` kept by recurrence::

        S⁺ ← (S + x xᵀ)⁺                       (Appendix E; ``pinv_rank_one_update``)
        ŷ_k = (1/α) exp((q_k − Γ_k)/(2α)) a_k  (eq. 7; a_k = 0 on rank increases)
        h_k −= g_k x;  Γ_k += g_k² xᵀS_t⁺x      (leverage 1 on rank increases)

    ``q`` is recomputed exactly every ``REFRESH_EVERY`` rows.

    Parameters
    ----------
    state : FullState
        The state before the pass.
    X : ndarray or CSR matrix of shape (n, d)
        Rows with the intercept column (CSR rows are densified one at a time).
    T, sw, potential_width, loss, epsilon, center_target
        As :func:`coordinate_pass` (``potential_width ≥ 9/8``).
    rank_tol : float
        Relative threshold of the rank test (``pinv_rank_one_update``).

    Returns
    -------
    state : FullState
        The new state.
    predictions : ndarray of shape (n, K)
        ``ŷ_t`` of every row, made before its update (without the target mean).

    Raises
    ------
    FloatingPointError
        When rounding has made ``S⁺`` indefinite (``S`` too ill-conditioned
        for float64); ``state`` is untouched.
    """
    state = _with_copies(state, "Sp", "P", "scale", "H", "gamma", "q")
    Sp, P, H = state.Sp, state.P, state.H
    gamma, q = state.gamma, state.q
    t, rank = state.n_samples_seen, state.rank
    total_loss, n_clipped = state.cumulative_loss, state.n_clipped
    n, d = X.shape
    sparse = sp.issparse(X)
    predictions = np.empty((n, H.shape[0]))
    alpha = potential_width
    two_alpha = 2.0 * alpha
    c = state.scale
    divisor = np.where(c > 0.0, c, 1.0)
    all_seen = bool(np.all(c > 0.0))
    single = H.shape[0] == 1
    for row in range(n):
        if sparse:
            x_raw = np.zeros(d)
            lo, hi = X.indptr[row], X.indptr[row + 1]
            x_raw[X.indices[lo:hi]] = X.data[lo:hi]
        else:
            x_raw = X[row]
        if not all_seen and _set_new_scales(c, x_raw):
            divisor = np.where(c > 0.0, c, 1.0)
            all_seen = bool(np.all(c > 0.0))
        x = x_raw / divisor
        t += 1
        new_direction, u, beta = pinv_rank_one_update(Sp, P, x, rank_tol)
        if new_direction:
            rank += 1
            if rank == d:
                P = None
            a = np.zeros_like(q)
            lev = 1.0
        else:
            hu = H @ u
            a = hu / beta
            q = np.maximum(q - hu * a, 0.0)
            lev = min(max((beta - 1.0) / beta, 0.0), 1.0)
        E = (q - gamma) / two_alpha
        if E.max() > MAX_EXPONENT:
            n_clipped += 1
            E = np.minimum(E, MAX_EXPONENT)
        p = _finite_predictions(np.exp(E) / alpha * a)
        predictions[row] = p
        if single:
            value, g0 = scalar_loss_and_gradient(loss, p[0] + _offset(state), T[row, 0], epsilon)
            g = np.array([_weighted(g0, sw[row])])
        else:
            value, g = loss_and_gradient(loss, p + _offset(state), T[row], epsilon)
            g = _weighted_vector(g, sw[row])
        _advance_target(state, T[row], center_target)
        total_loss += sw[row] * value
        H -= np.outer(g, x)
        gamma += g * g * lev
        q = np.maximum(q - 2.0 * g * a + g * g * lev, 0.0)
        if t % REFRESH_EVERY == 0:
            q = np.einsum("kd,kd->k", H @ Sp, H)
    state.P, state.gamma, state.q, state.rank = P, gamma, q, rank
    state.n_samples_seen, state.cumulative_loss, state.n_clipped = t, total_loss, n_clipped
    return state, predictions


def full_coef(state, potential_width):
    """Linearised weights of the next trial in raw units, shape (K, d).

    The prediction of eq. 7 depends on the row itself (through ``S_t``); its
    linearisation at ``x = 0`` is ``w_k = (1/α) exp((q_k − Γ_k)/(2α)) S⁺h_k``
    in equilibrated coordinates, divided by the feature scales.
    """
    alpha = potential_width
    E = np.minimum((state.q - state.gamma) / (2.0 * alpha), MAX_EXPONENT)
    internal = (np.exp(E) / alpha)[:, None] * (state.H @ state.Sp)
    c = state.scale
    return internal / np.where(c > 0.0, c, 1.0)


def full_readout(state, *, potential_width, fit_intercept):
    """``(coef (K, n_features), intercept (K,))`` of Algorithm 2, raw units (``full_coef``)."""
    return _split_intercept(full_coef(state, potential_width), fit_intercept, _offset(state))

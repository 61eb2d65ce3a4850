"""Scale-invariant online learners: ScaleInvariantClassifier and ScaleInvariantRegressor.

Kotłowski, "Scale-Invariant Unconstrained Online Learning", ALT 2017:
Algorithm 1 (coordinate-wise invariant, Sec. 3.2) and Algorithm 2 (invariant
to every invertible linear map, Sec. 4.2, with the rank-one pseudo-inverse
updates of Appendix E). Both predict ``ŷ_t = x_tᵀ w_t`` with weights that
have the units of ``1/x`` and no learning rate; the loss enters only through
its derivative ``g_t`` in the prediction, ``|g_t| ≤ 1``.

Corrected errata (checked numerically): Algorithm 2's potential is
``exp((hᵀS⁺h − Γ_t)/(2α))`` (Γ inside the ``1/(2α)``), Lemma 4.3 sums to
``+ψ_T``, ``Γ_T = Σ g_t² x_tᵀS_t⁺x_t`` (squared ``g``), and Theorem 4.5
reads ``‖u‖_S sqrt(α log(1 + α‖u‖_S²) + Γ_T) + 1`` (the paper prints
``log(α) Γ_T``, which fails).
"""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if

from .._legacy_base import (
    LinearClassifierReadoutMixin,
    LinearReadoutMixin,
    OnlineClassifierMixin,
    OnlineEstimator,
    labels_from_scores,
)
from ..utils._rank_one import pinv_rank_one_update
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context

__all__ = ["ScaleInvariantClassifier", "ScaleInvariantRegressor"]

#: ``α₀`` of Lemma A.1: ``x + e^{−x} ≤ e^{α₀x²/2}`` for every real ``x``.
ALPHA_0 = 9.0 / 8.0
#: Largest exponent of the potential; beyond it the weights are clipped (with a warning).
MAX_EXPONENT = 700.0
#: Predictions are clipped to this magnitude before the loss derivative.
MAX_PREDICTION = 1e300
#: Widest input (intercept included) the full variant accepts: two d x d matrices.
MAX_FULL_FEATURES = 10_000
#: Rows after which the full variant recomputes ``q = hᵀS⁺h`` exactly (drift control).
REFRESH_EVERY = 1000


# ------------------------------------------------------------------ losses
def loss_and_gradient(loss, p, y, epsilon):
    """Summed loss and derivative ``g = ∂ℓ/∂ŷ`` (``|g| ≤ 1``) of one row.

    ``p`` and ``y`` have shape ``(K,)``: the predictions of the ``K``
    outputs and their targets (``±1`` for classification, one-hot ``±1`` for
    ``"multinomial"``, the real target for regression). A callable ``loss``
    is called as ``loss(p, y)`` and returns the same pair: the kernels then
    run on any gradient sequence (online linear optimisation, adversaries).
    """
    if callable(loss):
        value, g = loss(p, y)
        return float(value), np.array(g, dtype=np.float64).reshape(p.shape)
    if loss == "log_loss":
        m = y * p
        return float(np.logaddexp(0.0, -m).sum()), -y * expit(-m)
    if loss == "hinge":
        m = y * p
        active = m < 1.0  # the kink (m = 1) takes g = 0
        return float(np.where(active, 1.0 - m, 0.0).sum()), np.where(active, -y, 0.0)
    if loss == "multinomial":
        z = p - p.max()
        log_prob = z - math.log(float(np.exp(z).sum()))
        onehot = y > 0
        return float(-log_prob[onehot].sum()), np.exp(log_prob) - onehot
    r = p - y
    if loss == "absolute_error":
        return float(np.abs(r).sum()), np.sign(r)
    if loss == "epsilon_insensitive":
        excess = np.abs(r) - epsilon
        return float(np.maximum(excess, 0.0).sum()), np.where(excess > 0.0, np.sign(r), 0.0)
    if loss == "huber":  # Lipschitz constant epsilon: feed g / epsilon
        a = np.abs(r)
        value = np.where(a <= epsilon, 0.5 * r * r, epsilon * (a - 0.5 * epsilon))
        return float(value.sum()), np.clip(r, -epsilon, epsilon) / epsilon
    raise ValueError(f"unknown loss {loss!r}")  # pragma: no cover - validated


def scalar_loss_and_gradient(loss, p, y, epsilon):
    """:func:`loss_and_gradient` for one output, on Python floats (the fast path)."""
    p, y = float(p), float(y)
    if loss == "log_loss":
        m = y * p
        if m > 0.0:
            e = math.exp(-m)
            return math.log1p(e), -y * e / (1.0 + e)
        e = math.exp(m)
        return math.log1p(e) - m, -y / (1.0 + e)
    if loss == "hinge":
        m = y * p
        return (1.0 - m, -y) if m < 1.0 else (0.0, 0.0)
    if not isinstance(loss, str):
        value, g = loss_and_gradient(loss, np.array([p]), np.array([y]), epsilon)
        return value, float(g[0])
    r = p - y
    sign = (r > 0.0) - (r < 0.0)
    if loss == "absolute_error":
        return abs(r), float(sign)
    if loss == "epsilon_insensitive":
        excess = abs(r) - epsilon
        return (excess, float(sign)) if excess > 0.0 else (0.0, 0.0)
    if loss == "huber":
        if abs(r) <= epsilon:
            return 0.5 * r * r, r / epsilon
        return epsilon * (abs(r) - 0.5 * epsilon), float(sign)
    value, g = loss_and_gradient(loss, np.array([p]), np.array([y]), epsilon)
    return value, float(g[0])  # pragma: no cover - multi-output losses


def _finite_predictions(p):
    if not np.all(np.abs(p) <= MAX_PREDICTION):  # inf and NaN too
        p = np.clip(np.nan_to_num(p, nan=0.0), -MAX_PREDICTION, MAX_PREDICTION)
    return p


def _offset(state):
    """Running mean of the targets seen so far (``center_target``), else 0."""
    if "y_sum" not in state or state["y_count"] == 0:
        return 0.0
    return state["y_sum"] / state["y_count"]


def _advance_target(state, y):
    if "y_sum" in state:
        state["y_sum"] += float(y[0])
        state["y_count"] += 1


# ------------------------------------------------------- coordinate kernel
def _canonical_csr(X):
    """float64 CSR with summed duplicates, sorted indices and no entry whose square is 0.

    Values with ``x² = 0`` in float64 (``|x| < 1.5e-162``) are treated as
    zeros: they would otherwise enter ``s²`` as nothing and divide by zero.
    """
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X.sum_duplicates()
    X.data[X.data * X.data == 0.0] = 0.0
    X.eliminate_zeros()
    X.sort_indices()
    return X


def coordinate_pass(state, X, T, sw, *, alpha, loss, epsilon, time_counter):
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

    with ``n = t`` (``time_counter="global"``, the paper) or the number of
    rows in which coordinate ``i`` was non-zero (``"per_feature"``, an
    extension). ``E`` is clipped at ``MAX_EXPONENT``.

    Parameters
    ----------
    state : dict
        ``t``, ``s2`` (d,), ``H`` (K, d) = ``h``, ``loss``, ``n_clipped``,
        optionally ``n_nonzero`` (d,) and ``y_sum``/``y_count``.
    X : CSR matrix of shape (n, d)
        Canonical rows (see ``_canonical_csr``), the intercept column included.
    T : ndarray of shape (n, K)
        Targets.
    sw : ndarray of shape (n,)
        Positive sample weights (they multiply ``g``).
    alpha, loss, epsilon, time_counter
        As the estimators' parameters (``loss`` may be ``"multinomial"``).

    Returns
    -------
    state : dict
        The new state.
    predictions : ndarray of shape (n, K)
        ``ŷ_t`` of every row, made before its update.
    """
    state = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in state.items()}
    s2, H = state["s2"], state["H"]
    n_nonzero = state.get("n_nonzero")
    d = s2.shape[0]
    t = state["t"]
    total_loss, n_clipped = state["loss"], state["n_clipped"]
    indptr, indices, data = X.indptr, X.indices, X.data
    n = X.shape[0]
    predictions = np.empty((n, H.shape[0]))
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
            _advance_target(state, T[row])
            total_loss += sw[row] * value
            g *= sw[row]
            if lo == hi or g == 0.0:
                continue
            if sel is full:
                h -= g * x
            else:
                h[sel] = hv - g * x
        state.update(t=t, loss=total_loss, n_clipped=n_clipped)
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
        _advance_target(state, T[row])
        total_loss += sw[row] * value
        g *= sw[row]
        if sel is full:
            H -= np.outer(g, x)
        else:
            H[:, sel] = Hv - np.outer(g, x)
    state.update(t=t, loss=total_loss, n_clipped=n_clipped)
    return state, predictions


def coordinate_coef(state, alpha):
    """Linearised weights of the next trial (spec §3.4), shape (K, d).

    ``w_i = exp(h_i²/(2α s_i²) − log(α τ d)) h_i / s_i²`` with
    ``τ = t + 1`` (or ``n_i + 1`` per feature); 0 for unseen coordinates.
    Exactly ``w_i / a_i`` after a power-of-two rescaling ``x_i → a_i x_i``.
    """
    s2, H = state["s2"], state["H"]
    d = s2.shape[0]
    seen = s2 > 0.0
    if "n_nonzero" in state:
        log_norm = np.log(alpha * d * (state["n_nonzero"][seen] + 1.0))
    else:
        log_norm = math.log(alpha * (state["t"] + 1) * d)
    coef = np.zeros_like(H)
    Hs, s2s = H[:, seen], s2[seen]
    E = np.minimum(Hs * Hs / (2.0 * alpha * s2s), MAX_EXPONENT)
    coef[:, seen] = np.exp(E - log_norm) * (Hs / s2s)
    return coef


def coordinate_centered_pass(state, X, T, sw, *, alpha, loss, epsilon, fit_intercept):
    """Algorithm 1 on features centred at their running mean (extension, spec §3.5b).

    Dense rows without the intercept column. At trial ``t``, after adding
    ``x_t`` to the running sums, the statistics are those of the data
    centred at the current mean ``m``: ``s̃² = Σ (x_q − m)²`` (Welford),
    ``h̃ = H + m G`` with ``H = −Σ g_q x_q`` and ``G = Σ g_q``, and the row
    ``x̃ = x_t − m``; the intercept coordinate (constant 1, ``s² = t``,
    ``h = −G``) is not centred. Invariant to every per-feature affine map
    ``x_i → a_i x_i + b_i``; no regret guarantee. A feature constant so far
    (``s̃² ≤ 1e-12 Σ x²``) gets weight 0. Pure kernel (``state`` is copied).
    """
    state = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in state.items()}
    mean, m2, sq = state["mean"], state["m2"], state["s2"]
    H, G = state["H"], state["G"]
    t = state["t"]
    total_loss, n_clipped = state["loss"], state["n_clipped"]
    n, d = X.shape
    d_aug = d + int(fit_intercept)
    predictions = np.empty((n, H.shape[0]))
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
        _advance_target(state, T[row])
        total_loss += sw[row] * value
        g *= sw[row]
        H -= np.outer(g, x)
        G += g
    state.update(t=t, loss=total_loss, n_clipped=n_clipped)
    return state, predictions


def coordinate_centered_coef(state, alpha, fit_intercept):
    """Linearisation of the centred predictor at ``x = m``: (coef (K, d), intercept (K,))."""
    mean, m2, sq, H, G = state["mean"], state["m2"], state["s2"], state["H"], state["G"]
    tau = state["t"] + 1
    d_aug = mean.shape[0] + int(fit_intercept)
    log_norm = math.log(alpha * tau * d_aug)
    live = m2 > 1e-12 * sq
    Hc = (H + np.outer(G, mean))[:, live]
    coef = np.zeros_like(H)
    E = np.minimum(Hc * Hc / (2.0 * alpha * m2[live]), MAX_EXPONENT)
    coef[:, live] = np.exp(E - log_norm) * (Hc / m2[live])
    intercept = -(coef @ mean)
    if fit_intercept and state["t"] > 0:
        E0 = np.minimum(G * G / (2.0 * alpha * state["t"]), MAX_EXPONENT)
        intercept += np.exp(E0 - log_norm) * (-G / state["t"])
    return coef, intercept


# ------------------------------------------------------------- full kernel
def _set_new_scales(c, x):
    """Fix the scale of features non-zero for the first time; return whether any was.

    Equilibration (spec §7.4): the full kernel divides feature ``i`` by
    ``c_i``, the power of two of its first non-zero value. It is a fixed
    invertible diagonal map (earlier values of a new feature were 0), so the
    predictions do not change in exact arithmetic, while ``S⁺`` stays well
    scaled; powers of two make the division exact.
    """
    new = (c == 0.0) & (x != 0.0)
    if not new.any():
        return False
    _, exponent = np.frexp(x[new])
    c[new] = np.ldexp(1.0, exponent - 1)
    return True


def full_pass(state, X, T, sw, *, alpha, loss, epsilon, rank_tol):
    """One ordered pass of Algorithm 2 (fully invariant) over the rows.

    A pure kernel: ``state`` is copied, never written into. ``O(d²)`` per
    row (one mat-vec and one symmetric rank-one update of ``S⁺``, plus the
    projector while the rank is not full) and ``O(K d)`` per output.

    Per row, in equilibrated coordinates (``_equilibrate``), with
    ``a_k = xᵀS_t⁺h_k`` and ``q_k = h_kᵀS_t⁺h_k`` kept by recurrence::

        S⁺ ← (S + x xᵀ)⁺                       (Appendix E; ``pinv_rank_one_update``)
        ŷ_k = (1/α) exp((q_k − Γ_k)/(2α)) a_k  (eq. 7; a_k = 0 on rank increases)
        h_k −= g_k x;  Γ_k += g_k² xᵀS_t⁺x      (leverage 1 on rank increases)

    Parameters
    ----------
    state : dict
        ``t``, ``Sp`` (d, d), ``P`` (d, d) or None, ``rank``, ``scale`` (d,),
        ``H`` (K, d), ``gamma`` (K,), ``q`` (K,), ``loss``, ``n_clipped``.
    X : ndarray or CSR matrix of shape (n, d)
        Rows with the intercept column (CSR rows are densified one at a time).
    T, sw, alpha, loss, epsilon
        As :func:`coordinate_pass`.
    rank_tol : float
        Relative threshold of the rank test (``pinv_rank_one_update``).

    Returns
    -------
    state : dict
    predictions : ndarray of shape (n, K)
    """
    state = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in state.items()}
    Sp, P, H = state["Sp"], state["P"], state["H"]
    gamma, q = state["gamma"], state["q"]
    t, rank = state["t"], state["rank"]
    total_loss, n_clipped = state["loss"], state["n_clipped"]
    n, d = X.shape
    sparse = sp.issparse(X)
    predictions = np.empty((n, H.shape[0]))
    two_alpha = 2.0 * alpha
    c = state["scale"]
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
            g = np.array([g0])
        else:
            value, g = loss_and_gradient(loss, p + _offset(state), T[row], epsilon)
        _advance_target(state, T[row])
        total_loss += sw[row] * value
        g *= sw[row]
        H -= np.outer(g, x)
        gamma += g * g * lev
        q = np.maximum(q - 2.0 * g * a + g * g * lev, 0.0)
        if t % REFRESH_EVERY == 0:
            q = np.einsum("kd,kd->k", H @ Sp, H)
    state.update(
        Sp=Sp, P=P, H=H, gamma=gamma, q=q, t=t, rank=rank, loss=total_loss, n_clipped=n_clipped
    )
    return state, predictions


def full_coef(state, alpha):
    """Linearised weights of the next trial in raw units (spec §4.4), shape (K, d).

    ``w_k = (1/α) exp((q_k − Γ_k)/(2α)) S⁺h_k`` in equilibrated coordinates,
    divided by the feature scales.
    """
    E = np.minimum((state["q"] - state["gamma"]) / (2.0 * alpha), MAX_EXPONENT)
    internal = (np.exp(E) / alpha)[:, None] * (state["H"] @ state["Sp"])
    c = state["scale"]
    return internal / np.where(c > 0.0, c, 1.0)


def init_state(kind, n_features, n_outputs, *, fit_intercept=True, per_feature=False):
    """The empty state of a kernel: ``kind`` in {"coordinate", "center", "full"}.

    ``n_features`` excludes the intercept column, which is added when
    ``fit_intercept`` (the centred kernel handles the intercept itself).
    """
    K, d = n_outputs, n_features
    d_aug = d + int(fit_intercept)
    state = {"t": 0, "loss": 0.0, "n_clipped": 0}
    if kind == "full":
        state.update(
            Sp=np.zeros((d_aug, d_aug)),
            P=np.zeros((d_aug, d_aug)),
            rank=0,
            scale=np.zeros(d_aug),
            H=np.zeros((K, d_aug)),
            gamma=np.zeros(K),
            q=np.zeros(K),
        )
    elif kind == "center":
        state.update(
            mean=np.zeros(d),
            m2=np.zeros(d),
            s2=np.zeros(d),
            H=np.zeros((K, d)),
            G=np.zeros(K),
            fit_intercept=bool(fit_intercept),
        )
    else:
        state.update(s2=np.zeros(d_aug), H=np.zeros((K, d_aug)))
        if per_feature:
            state["n_nonzero"] = np.zeros(d_aug)
    return state


# --------------------------------------------------------------- estimators
class _BaseScaleInvariant(LinearReadoutMixin, OnlineEstimator):
    """The engine shared by the classifier and the regressor."""

    _accept_sparse = "csr"
    _private_state = ("_si_state", "_coef", "_intercept")

    _parameter_constraints: ClassVar[dict] = {
        "variant": [StrOptions({"coordinate", "full"})],
        "alpha": [Interval(Real, ALPHA_0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "time_counter": [StrOptions({"global", "per_feature"})],
        "center": ["boolean"],
        "rank_tol": [Interval(Real, 0, 1, closed="left")],
        "warm_start": ["boolean"],
    }

    # ----------------------------------------------------------- internals
    def _n_outputs(self):
        return 1

    def _kernel_loss(self):
        return self.loss

    def _targets(self, y):
        return np.asarray(y, dtype=np.float64).reshape(-1, 1)

    def _check_params_consistent(self, X):
        if self.variant == "coordinate" and self.alpha <= ALPHA_0:
            raise ValueError(
                f"variant='coordinate' needs alpha > 9/8 (got {self.alpha}): its constant "
                "kappa(alpha) = exp(1/(2(alpha - 9/8))) is infinite at 9/8."
            )
        d_aug = X.shape[1] + int(self.fit_intercept)
        if self.variant == "full" and d_aug > MAX_FULL_FEATURES:
            raise ValueError(
                f"variant='full' keeps two {d_aug} x {d_aug} matrices "
                f"({2 * 8 * d_aug**2 / 1e9:.1f} GB) and costs O(n_features²) per row; "
                f"it is limited to {MAX_FULL_FEATURES} features. Use variant='coordinate' "
                "(O(nnz) per row) for wide or sparse data."
            )
        if self.center and self.variant != "coordinate":
            raise ValueError("center=True is an option of variant='coordinate' only.")
        if self.center and sp.issparse(X):
            raise ValueError(
                "center=True would densify sparse input (every centred value is non-zero); "
                "pass a dense array or use center=False."
            )
        if self.center and self.time_counter != "global":
            raise ValueError("center=True uses the global time counter (time_counter='global').")

    def _check_state_matches_params(self):
        """After set_params mid-stream: the state must still fit the parameters."""
        state = self._si_state
        kind = "full" if "Sp" in state else ("center" if "mean" in state else "coordinate")
        expected = "full" if self.variant == "full" else ("center" if self.center else "coordinate")
        d_aug = self.n_features_in_ + (int(self.fit_intercept) if kind != "center" else 0)
        same = (
            kind == expected
            and state["H"].shape[1] == d_aug
            and (kind != "center" or state["fit_intercept"] == self.fit_intercept)
            and (kind != "coordinate" or ("n_nonzero" in state) == (self.time_counter != "global"))
            and ("y_sum" in state) == bool(getattr(self, "center_target", False))
        )
        if not same:
            raise ValueError(
                "variant, fit_intercept, center, time_counter or center_target changed since "
                "the first partial_fit; call fit to start again."
            )

    def _augment(self, X):
        """Append the constant intercept column (an ordinary coordinate, value 1)."""
        if self.variant == "coordinate" and not self.center:
            X = _canonical_csr(X)
            if self.fit_intercept:
                X = sp.hstack([X, np.ones((X.shape[0], 1))], format="csr", dtype=np.float64)
            return X
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            X.sum_duplicates()
        else:
            X = np.ascontiguousarray(X, dtype=np.float64)
        if self.center or not self.fit_intercept:
            return X
        if sp.issparse(X):
            return sp.hstack([X, np.ones((X.shape[0], 1))], format="csr", dtype=np.float64)
        return np.hstack([X, np.ones((X.shape[0], 1))])

    # --------------------------------------------------------------- state
    def _init_state(self, X, y):
        K = self._n_outputs()
        kind = "full" if self.variant == "full" else ("center" if self.center else "coordinate")
        state = init_state(
            kind,
            X.shape[1],
            K,
            fit_intercept=bool(self.fit_intercept),
            per_feature=self.time_counter == "per_feature",
        )
        if getattr(self, "center_target", False):
            state.update(y_sum=0.0, y_count=0)
        self._si_state = state
        self.n_iter_ = 0
        self._store_readout()

    def _update(self, X, y, sample_weight):
        keep = sample_weight > 0
        if not np.all(keep):  # a row of weight 0 is not seen at all
            X, y, sample_weight = X[keep], y[keep], sample_weight[keep]
        before = self._si_state["n_clipped"]
        common = {"alpha": float(self.alpha), "loss": self._kernel_loss(), "epsilon": self._eps()}
        T = self._targets(y)
        if self.variant == "full":
            try:
                state, predictions = full_pass(
                    self._si_state,
                    self._augment(X),
                    T,
                    sample_weight,
                    rank_tol=float(self.rank_tol),
                    **common,
                )
            except FloatingPointError as err:
                if self.n_iter_ == 0:  # the first batch of a stream: stay unfitted
                    self._reset()
                raise FloatingPointError(
                    f"variant='full' cannot process this batch: {err} This happens when the "
                    "rows' norms span many orders of magnitude (about 1e±5 and beyond). The "
                    "batch was not applied and the estimator is as it was before the call; "
                    "variant='coordinate' has no such limit."
                ) from err
        elif self.center:
            state, predictions = coordinate_centered_pass(
                self._si_state,
                self._augment(X),
                T,
                sample_weight,
                fit_intercept=bool(self.fit_intercept),
                **common,
            )
        else:
            state, predictions = coordinate_pass(
                self._si_state,
                self._augment(X),
                T,
                sample_weight,
                time_counter=self.time_counter,
                **common,
            )
        self._si_state = state
        self.n_iter_ = 1
        self._record_online_metrics(predictions, y)
        if state["n_clipped"] > before:
            warnings.warn(
                f"the potential's exponent exceeded {MAX_EXPONENT:g} on "
                f"{state['n_clipped'] - before} rows and was clipped: the weights are capped "
                "there and the regret guarantee no longer applies (typical of adversarial or "
                "linear losses, not of logistic/hinge losses on real data).",
                UserWarning,
                stacklevel=4,
            )
        self._store_readout()

    def _eps(self):
        return 0.0

    def _record_online_metrics(self, predictions, y):
        """Hook for test-then-train metrics of the online predictions ``ŷ_t``."""

    def _store_readout(self):
        """Linearised ``coef_``/``intercept_`` of the next trial, in raw feature units."""
        state = self._si_state
        alpha = float(self.alpha)
        if "Sp" in state:
            W = full_coef(state, alpha)
        elif "mean" in state:
            coef, intercept = coordinate_centered_coef(state, alpha, state["fit_intercept"])
            self._coef, self._intercept = coef, intercept + _offset(state)
            return
        else:
            W = coordinate_coef(state, alpha)
        d = self.n_features_in_
        self._coef = W[:, :d]
        intercept = W[:, d] if W.shape[1] > d else np.zeros(W.shape[0])
        self._intercept = intercept + _offset(state)

    # --------------------------------------------------------------- fitting
    def _validate_update_params(self, X, sample_weight):
        self._check_params_consistent(X)
        if self._is_initialized() and hasattr(self, "_si_state"):
            self._check_state_matches_params()
        return self._sample_weight_params(X, sample_weight)

    # ------------------------------------------------------------ read-out
    @property
    def n_samples_seen_(self):
        """int: rows processed, the trial counter ``t`` (every pass of ``fit`` counts)."""
        self._check_fitted()
        return self._si_state["t"]

    @property
    def cumulative_loss_(self):
        """float: sum of the (weighted) losses of the predictions made before each update."""
        self._check_fitted()
        return self._si_state["loss"]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = not self.center  # centring would densify sparse rows
        return tags


_PARAMS_DOC = """\
    variant : {"coordinate", "full"}, default="coordinate"
        ``"coordinate"``: Algorithm 1, invariant to per-feature rescaling
        ``x_i → a_i x_i`` (any ``a_i ≠ 0``), ``O(nnz)`` time per row on CSR
        input and ``O(n_features)`` memory. ``"full"``: Algorithm 2,
        invariant to every invertible linear map of the features (every
        invertible affine map with ``fit_intercept=True``: standardisation,
        whitening, change of units or origin), ``O(n_features²)`` time and
        memory per row.

    alpha : float, default=1.5
        The potential's parameter (not a regularisation strength). The
        coordinate variant needs ``alpha > 9/8``, the full variant
        ``alpha >= 9/8``. Larger values give smaller, more cautious weights.

    fit_intercept : bool, default=True
        Append a constant feature, an ordinary coordinate of the algorithm
        (its value does not matter: the algorithms are scale invariant).

    max_iter : int, default=1
        Passes over the data in :meth:`fit` (the theory is one pass).

    shuffle : bool, default=False
        Shuffle the rows (a seeded permutation that depends only on the
        number of rows, so rescaled data gets the same order) before each
        pass of :meth:`fit`. Use it for data sorted by class; ``partial_fit``
        never shuffles.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.

    time_counter : {"global", "per_feature"}, default="global"
        Coordinate variant: ``t`` in ``1/(α t d)`` counts every row (the
        paper) or, ``"per_feature"`` (extension), the rows in which the
        feature was non-zero — a never-worse bound; rare sparse features are
        not damped by ``1/t`` and all-zero rows have no effect.

    center : bool, default=False
        Coordinate variant, dense input only (extension, no regret
        guarantee): centre each feature at its running mean, computed
        retroactively from running sums, which makes the predictions
        invariant to per-feature affine maps ``x_i → a_i x_i + b_i``. The
        paper's algorithm (``False``) is not shift invariant and is weak on
        uncentred dense data (see the user guide for measurements).

    rank_tol : float, default=1e-10
        Full variant: a row is a new direction when the squared norm of its
        part outside the span of the rows seen exceeds ``rank_tol`` times
        its squared norm (in equilibrated coordinates).

    warm_start : bool, default=False
        :meth:`fit` continues from the current state instead of resetting.
"""

_ATTRS_DOC = """\
    n_samples_seen_ : int
        Rows processed, the paper's ``t`` (every pass of :meth:`fit` counts).

    cumulative_loss_ : float
        Sum over the processed rows of the (weighted) loss of the prediction
        made before the update (progressive validation); for one-vs-rest the
        sum of the per-class binary losses.

    n_iter_ : int
        Passes made by the last :meth:`fit` (1 after ``partial_fit``).

    n_features_in_ : int

    feature_names_in_ : ndarray of shape (n_features_in_,)
"""


def _has_proba(estimator):
    if estimator.loss != "log_loss":
        raise AttributeError("predict_proba is available only for loss='log_loss'")
    return True


class ScaleInvariantClassifier(
    OnlineClassifierMixin, ClassifierMixin, LinearClassifierReadoutMixin, _BaseScaleInvariant
):
    __doc__ = f"""Scale-invariant online linear classifier with no learning rate.

    Kotłowski (2017): Algorithm 1 (``variant="coordinate"``, eq. 5) or
    Algorithm 2 (``variant="full"``, eq. 7) on the logistic or hinge loss;
    binary, or multiclass one-vs-rest with the feature statistics shared by
    the classes. Predictions do not change when the features are rescaled
    (``"coordinate"``) or transformed by any invertible affine map
    (``"full"`` with an intercept), so no ``StandardScaler`` is needed in
    front, even on a stream whose scale is unknown in advance.

    Per row: ``O(K · nnz)`` time for ``"coordinate"`` (CSR input updates
    only the non-zero coordinates) and ``O(n_features² + K · n_features)``
    for ``"full"`` (rank-one updates of the pseudo-inverse of
    ``S = Σ x xᵀ``); memory ``O(K · n_features)`` and
    ``O(n_features² + K · n_features)``, constant in the number of rows.

    Guarantees, for every comparator ``u`` and every sequence (per output;
    ``s_i² = Σ_t x_{{t,i}}²``, ``S = Σ_t x_t x_tᵀ``, ``Γ_T = Σ_t g_t² x_tᵀS_t⁺x_t``):

        coordinate (Thm 3.4, ``α > 9/8``, ``κ(α) = exp(1/(2(α − 9/8)))``):
        ``regret_T(u) ≤ Σ_i |u_i| s_i sqrt(α log(1 + α d² T² u_i² s_i²)) + κ(α)(1 + log T)``

        full (Thm 4.5, corrected, ``α ≥ 9/8``):
        ``regret_T(u) ≤ ‖u‖_S sqrt(α log(1 + α‖u‖_S²) + Γ_T) + 1``

    Corrected errata: Γ inside the ``1/(2α)`` of Algorithm 2's potential
    and ``+ψ_T`` in Lemma 4.3, ``g_t²`` in ``Γ_T`` and ``+ Γ_T`` (not
    ``log(α) Γ_T``) in Theorem 4.5.
    The full variant divides each feature by a power of two fixed at its
    first non-zero value (exact, invisible in the predictions) so that the
    pseudo-inverse stays accurate on badly scaled data. Rows whose norms
    span many orders of magnitude (about ``1e±5`` and beyond) still make
    ``S`` too ill-conditioned for float64: the full variant then raises
    ``FloatingPointError`` and leaves the estimator unchanged.

    ``coef_`` and ``intercept_`` are the linearisation at ``x = 0`` of the
    next trial's prediction (the online prediction also depends on the row
    itself through ``s²`` or ``S``); ``decision_function`` uses them.

    Parameters
    ----------
    variant : {{"coordinate", "full"}}, default="coordinate"
        See below.

    loss : {{"log_loss", "hinge"}}, default="log_loss"
        Both are 1-Lipschitz, as the theory needs.

{_PARAMS_DOC}
    multi_class : {{"ovr", "multinomial"}}, default="ovr"
        One-vs-rest binary problems sharing the feature statistics, or
        (extension, ``loss="log_loss"`` only) the softmax loss with
        ``g_k = p_k − 1[y = k]``; the regret bound then holds per output.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)

    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Linearised weights of the next trial, in raw feature units.

    intercept_ : ndarray of shape (1,) or (n_classes,)

    n_mistakes_ : int
        Mistakes of the online predictions (made before each update).

    online_error_rate_ : float
        ``n_mistakes_ / n_samples_seen_``: the progressive-validation error.

{_ATTRS_DOC}
    See Also
    --------
    ScaleInvariantRegressor
    sklearn.linear_model.SGDClassifier : needs scaled features and a learning rate.

    References
    ----------
    Kotłowski, W. Scale-Invariant Unconstrained Online Learning. ALT 2017,
    PMLR 76 (Alg. 1, Alg. 2, Thm 3.4, Thm 4.5, Appendix E).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import gen_batches
    >>> from skonline.linear_model import ScaleInvariantClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((2000, 5))
    >>> y = (X @ [1.0, -2.0, 0.5, 0.0, 1.0] > 0).astype(int)
    >>> scales = 10.0 ** rng.uniform(-6, 6, 5)  # twelve orders of magnitude
    >>> clf = ScaleInvariantClassifier()
    >>> for batch in gen_batches(len(X), 500):
    ...     clf = clf.partial_fit(X[batch] * scales, y[batch], classes=[0, 1])
    >>> clf.score(X * scales, y) > 0.9
    True
    >>> unscaled = ScaleInvariantClassifier().fit(X, y)
    >>> np.allclose(clf.decision_function(X * scales), unscaled.decision_function(X), rtol=1e-8)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseScaleInvariant._parameter_constraints,
        "loss": [StrOptions({"log_loss", "hinge"})],
        "multi_class": [StrOptions({"ovr", "multinomial"})],
    }

    def __init__(
        self,
        variant="coordinate",
        *,
        loss="log_loss",
        alpha=1.5,
        fit_intercept=True,
        max_iter=1,
        shuffle=False,
        random_state=None,
        multi_class="ovr",
        time_counter="global",
        center=False,
        rank_tol=1e-10,
        warm_start=False,
    ):
        self.variant = variant
        self.loss = loss
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.multi_class = multi_class
        self.time_counter = time_counter
        self.center = center
        self.rank_tol = rank_tol
        self.warm_start = warm_start

    def _multinomial(self):
        return self.multi_class == "multinomial" and len(self.classes_) > 2

    def _n_outputs(self):
        return 1 if len(self.classes_) == 2 else len(self.classes_)

    def _kernel_loss(self):
        return "multinomial" if self._multinomial() else self.loss

    def _targets(self, y):
        idx = np.searchsorted(self.classes_, y)
        K = self._n_outputs()
        if K == 1:
            return np.where(idx == 1, 1.0, -1.0).reshape(-1, 1)
        T = -np.ones((len(idx), K))
        T[np.arange(len(idx)), idx] = 1.0
        return T

    def _check_params_consistent(self, X):
        super()._check_params_consistent(X)
        if self.multi_class == "multinomial" and self.loss != "log_loss":
            raise ValueError("multi_class='multinomial' needs loss='log_loss'.")

    def _check_state_matches_params(self):
        super()._check_state_matches_params()
        if self._si_state.get("multinomial", False) != self._multinomial():
            raise ValueError("multi_class changed since the first partial_fit; call fit.")

    def _init_state(self, X, y):
        super()._init_state(X, y)
        self._si_state["multinomial"] = self._multinomial()
        self.n_mistakes_ = 0

    def _record_online_metrics(self, predictions, y):
        predicted = labels_from_scores(self.classes_, predictions, zero_is_positive=False)
        self.n_mistakes_ += int(np.sum(predicted != y))

    @property
    def online_error_rate_(self):
        """float: ``n_mistakes_ / n_samples_seen_`` (progressive-validation error)."""
        self._check_fitted()
        return self.n_mistakes_ / max(self.n_samples_seen_, 1)

    def _validate_batch(self, X, y, first_call, classes=None):
        X, y = super()._validate_batch(X, y, first_call, classes=classes)
        if first_call and len(self.classes_) < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least 2 classes; got 1 class: "
                f"{self.classes_.tolist()}."
            )
        return X, y

    @property
    def coef_(self):
        """ndarray of shape (n_outputs, n_features): linearised weights, raw units."""
        self._check_fitted()
        return self._coef.copy()

    @property
    def intercept_(self):
        """ndarray of shape (n_outputs,)."""
        self._check_fitted()
        return self._intercept.copy()

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One online pass over the rows, in order.

        Parameters
        ----------
        X : {{array-like, sparse matrix}} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class of the stream; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each row's loss derivative ``g`` (the feature
            statistics are unweighted); weights in ``(0, 1]`` keep the
            guarantee. Rows of weight 0 are skipped entirely.

        Returns
        -------
        self : object
        """
        return self._online_partial_fit(X, y, sample_weight, classes=classes)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Reset (unless ``warm_start``), then ``max_iter`` online passes.

        Parameters
        ----------
        X : {{array-like, sparse matrix}} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        return self._fit_epochs(X, y, sample_weight)

    def predict(self, X):
        """``classes_[1]`` where the binary decision is ``> 0``; argmax otherwise."""
        scores = self._raw_decision(X)  # checks fitted before classes_ is read
        return labels_from_scores(self.classes_, scores, zero_is_positive=False)

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Probabilities (``loss="log_loss"``).

        Binary: ``[1 − σ(f), σ(f)]``; one-vs-rest: ``σ(f_k)`` normalised to sum
        to one; multinomial: ``softmax(f)``.
        """
        scores = self._raw_decision(X)
        if scores.shape[1] == 1:
            prob = expit(scores)
            return np.hstack([1.0 - prob, prob])
        if self._multinomial():
            z = scores - scores.max(axis=1, keepdims=True)
            e = np.exp(z)
            return e / e.sum(axis=1, keepdims=True)
        prob = expit(scores)
        return prob / prob.sum(axis=1, keepdims=True)

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class ScaleInvariantRegressor(RegressorMixin, _BaseScaleInvariant):
    __doc__ = f"""Scale-invariant online linear regression with no learning rate.

    Kotłowski (2017), Algorithm 1 (``variant="coordinate"``) or Algorithm 2
    (``variant="full"``) on a Lipschitz loss: the absolute error, the
    epsilon-insensitive loss or the Huber loss (fed ``g / epsilon``, its
    Lipschitz constant). The unclipped squared loss is not offered: its
    derivative is unbounded and the exponential potential diverges.

    Invariant in ``X`` (like :class:`ScaleInvariantClassifier`), **not** in
    ``y``: predictions start at 0 and must grow to the scale of the
    targets. For targets far from 0 use ``center_target=True`` (extension)
    or a ``TransformedTargetRegressor``. Per-row cost, memory, guarantees
    and errata as in :class:`ScaleInvariantClassifier` (the bounds are on
    the loss divided by its Lipschitz constant).

    Parameters
    ----------
    variant : {{"coordinate", "full"}}, default="coordinate"
        See below.

    loss : {{"absolute_error", "epsilon_insensitive", "huber"}}, default="absolute_error"

    epsilon : float, default=0.1
        Width of the insensitive zone (``"epsilon_insensitive"``) or
        threshold of the Huber loss (``"huber"``), in target units.

    center_target : bool, default=False
        Extension: predict ``mean(y_<t) + xᵀw`` and learn on the residual.

{_PARAMS_DOC}
    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Linearised weights of the next trial, in raw feature units.

    intercept_ : float
        Includes the running target mean with ``center_target=True``.

{_ATTRS_DOC}
    See Also
    --------
    ScaleInvariantClassifier
    sklearn.linear_model.SGDRegressor

    References
    ----------
    Kotłowski, W. Scale-Invariant Unconstrained Online Learning. ALT 2017,
    PMLR 76 (Alg. 1, Alg. 2, Thm 3.4, Thm 4.5).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import gen_batches
    >>> from skonline.linear_model import ScaleInvariantRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((1000, 4)) * [1e-3, 1.0, 1e3, 1e6]
    >>> y = X @ [2e3, -1.0, 1e-3, 5e-7] + 0.1 * rng.standard_normal(1000)
    >>> reg = ScaleInvariantRegressor(variant="full", loss="huber", epsilon=1.0)
    >>> for batch in gen_batches(len(X), 100):
    ...     reg = reg.partial_fit(X[batch], y[batch])
    >>> reg.score(X, y) > 0.9
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseScaleInvariant._parameter_constraints,
        "loss": [StrOptions({"absolute_error", "epsilon_insensitive", "huber"})],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "center_target": ["boolean"],
    }

    def __init__(
        self,
        variant="coordinate",
        *,
        loss="absolute_error",
        epsilon=0.1,
        center_target=False,
        alpha=1.5,
        fit_intercept=True,
        max_iter=1,
        shuffle=False,
        random_state=None,
        time_counter="global",
        center=False,
        rank_tol=1e-10,
        warm_start=False,
    ):
        self.variant = variant
        self.loss = loss
        self.epsilon = epsilon
        self.center_target = center_target
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.time_counter = time_counter
        self.center = center
        self.rank_tol = rank_tol
        self.warm_start = warm_start

    def _eps(self):
        return float(self.epsilon)

    def _check_params_consistent(self, X):
        super()._check_params_consistent(X)
        if self.loss == "huber" and self.epsilon <= 0:
            raise ValueError("loss='huber' needs epsilon > 0 (its Lipschitz constant).")

    def _validate_batch(self, X, y, first_call):
        return self._check_training_data(X, y, first_call, y_numeric=True)

    @property
    def coef_(self):
        """ndarray of shape (n_features,): linearised weights, raw units."""
        self._check_fitted()
        return self._coef[0].copy()

    @property
    def intercept_(self):
        """float."""
        self._check_fitted()
        return float(self._intercept[0])

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, sample_weight=None):
        """One online pass over the rows, in order.

        Parameters
        ----------
        X : {{array-like, sparse matrix}} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies ``g``; rows of weight 0 are skipped.

        Returns
        -------
        self : object
        """
        return self._online_partial_fit(X, y, sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Reset (unless ``warm_start``), then ``max_iter`` online passes.

        Parameters
        ----------
        X : {{array-like, sparse matrix}} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        return self._fit_epochs(X, y, sample_weight)

    def predict(self, X):
        """``X @ coef_ + intercept_``."""
        return self._raw_decision(X)[:, 0]

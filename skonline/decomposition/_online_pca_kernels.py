"""The density-matrix state of online PCA and its per-row pass.

Warmuth & Kuzmin, "Randomized Online PCA Algorithms with Regret Bounds that
are Logarithmic in the Dimension", JMLR 9 (2008): Algorithm 5 (incremental
update), Algorithm 6 (cumulative update, optionally learning the mean,
eqs. 15-16) and the §8 mixing updates (eq. 20 for the past posteriors).
Yuan & Lamperski, "Online Adaptive Principal Component Analysis and Its
Extensions", ICML 2019: Algorithm 4 (fixed share before capping, eq. 14a-c).

Both learners hold a density matrix ``W`` (trace one, eigenvalues at most
``1/(n-k)``) over the directions to **discard**; the expected compression
loss of a row is ``(n-k) xᵀWx``. ``W`` is held as eigenvectors plus
log-eigenvalues (:class:`DensityState`), in one of two exact forms:

* **dense**: ``n`` eigenvectors ``U`` and ``n`` log-eigenvalues; one row is
  one ``n × n`` symmetric eigendecomposition
  (:func:`skonline.decomposition._density_kernels.meg_eigen_step`) plus a basis rotation.
* **bulk**: the directions orthogonal to every row seen so far form one
  eigenspace of ``W`` (the rank-one update does not touch them, and the
  softmax, floor, fixed share and capping map equal eigenvalues to equal
  values), so ``W`` is an orthonormal basis ``B`` of the ``m``-dimensional
  data span (:func:`bulk_coordinates`), an ``m × m`` rotation ``R`` and one
  "bulk" log-eigenvalue of multiplicity ``n - m``. The rank-one eigen-update
  is LAPACK's ``eigh`` or the secular equation
  (:func:`skonline.decomposition._density_kernels.rank_one_eigh`).

The eigenvalue part of a step (softmax, floor, fixed share, capping) is
:func:`skonline.decomposition._capping_fast.spectral_step`, in the log domain
(compiled; its NumPy transcription is the reference of the tests).
:func:`density_pass` runs the rows of a batch through the update; it is pure:
it returns a new state and never writes into the one it is given.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg.blas import dger

from ..base import OnlineState
from ..utils._rows import dense_row_blocks, prepare_rows
from ._capping_fast import spectral_step
from ._capping_kernels import sample_corner
from ._density_kernels import dense_from_eigen, log_eigenvalues_from_dense, meg_eigen_step

__all__ = [
    "DensityState",
    "bulk_coordinates",
    "density_pass",
    "eigenvector_columns",
    "full_log_eigenvalues",
    "init_density_state",
    "quadratic_form",
    "reorthonormalized",
    "scatter_along",
    "scatter_weight",
    "theory_adaptive_parameters",
    "theory_static_learning_rate",
]

#: The eigenbasis (or the low-rank rotation) is re-orthonormalised every this many rows.
REORTHONORMALIZE_EVERY = 128
#: solver="auto" uses the secular eigen-update from this data-span dimension on.
SECULAR_MIN_SPAN = 16


# -------------------------------------------------------------------- tuning
def theory_adaptive_parameters(
    n_features: int, n_components: int, horizon: float, loss_bound: float | None = None
) -> tuple[float, float]:
    """Theorem 3 of Yuan & Lamperski: ``(eta, fixed_share)`` for horizon ``T``.

    ``fixed_share = 1/(T(n-k)+1)``, ``D = (n-k) ln(n(1+(n-k)T)) + 1``,
    ``eta = ln(1 + sqrt(2D/L))``, with ``L = T`` (the trivial bound for
    ``||x|| <= 1``) unless ``loss_bound`` is given. The adaptive regret on
    every interval is then at most ``sqrt(2LD) + D``.
    """
    d = n_features - n_components
    T = float(horizon)
    L = T if loss_bound is None else float(loss_bound)
    D = d * np.log(n_features * (1.0 + d * T)) + 1.0
    return float(np.log1p(np.sqrt(2.0 * D / L))), 1.0 / (T * d + 1.0)


def theory_static_learning_rate(n_features: int, n_components: int, loss_bound: float) -> float:
    """Warmuth & Kuzmin eq. (3)/(7): ``eta = ln(1 + sqrt(2D/L))``.

    ``D = k ln(n/k)`` when ``k <= n/2``, else ``(n-k) ln(n/(n-k))`` (Theorem 6
    holds with either, the smaller applies); the static regret is then at most
    ``sqrt(2 L D) + D``.
    """
    n, k = n_features, n_components
    D = k * np.log(n / k) if k <= n / 2 else (n - k) * np.log(n / (n - k))
    return float(np.log1p(np.sqrt(2.0 * D / float(loss_bound))))


# --------------------------------------------------------------------- state
@dataclass(kw_only=True, eq=False)
class DensityState(OnlineState):
    """Learned state of an online-PCA learner: ``W`` and what the variants add.

    ``W = V diag(exp(log_w)) Vᵀ`` with ``V = U`` (dense form) or
    ``V = [B R, bulk]`` (bulk form, the bulk eigenvalue ``exp(log_bulk)`` of
    multiplicity ``n - m`` on the complement of ``span(B)``).

    Attributes
    ----------
    log_w : ndarray of shape (n,) or (m,)
        Log-eigenvalues of ``W`` (dense: all of them; bulk: those of the span).
    n_components : int
        ``k``, the dimension kept (``None`` resolved at the first call).
    U : ndarray of shape (n, n) or None
        Eigenvectors (columns) in the dense form.
    basis : ndarray of shape (n, m) or None
        ``B``, an orthonormal basis of the span of the rows seen (bulk form).
    rotation : ndarray of shape (m, m) or None
        ``R``: the eigenvectors of ``W`` inside the span are ``B R``.
    log_bulk : float
        Log-eigenvalue of the bulk (bulk form; unused in the dense form).
    gamma : ndarray or None
        Cumulative update only: the eigenvalues of the scatter ``C`` in the
        same eigenbasis (0 on the bulk).
    scatter : ndarray of shape (n, n) or (m, m)
        The scatter ``sum_t c_t y_t y_tᵀ`` of the rows as the update sees them
        before ``row_norm="scale"`` divides them (centred by the previous mean
        when the mean is learned; ``c_t`` the weight of :func:`scatter_weight`,
        so that it is the exactly centred scatter): in the standard basis
        (dense form) or in the coordinates of ``basis`` (bulk form). The
        variance read-outs (explained variance, the probabilistic-PCA
        likelihood) come from it.
    mean : ndarray of shape (n,)
        The learned mean ``m^t`` (zeros when the mean is not learned).
    past_sum : ndarray of shape (n, n) or None
        ``sum_{q<t} W^q`` of the pre-mixing ``W^q`` (past mixing, eq. 20).
    avg_sum : ndarray of shape (n, n) or None
        ``sum_{q<t} W^q`` for the online-to-batch average.
    rng : numpy.random.Generator or None
        Draws the realized projections (``record_realized_loss``).
    max_row_norm : float
        Largest raw row norm seen.
    max_fed_norm : float
        Largest norm of a row as the update saw it (centred, clipped), before
        ``row_norm="scale"`` divides it by this running maximum.
    learning_rate : float
        The learning rate of the last pass.
    fixed_share : float
        The fixed-share rate of the last pass (Yuan & Lamperski).
    tuned : tuple of float or None
        ``(eta, fixed_share)`` of Theorem 3, resolved once for the "auto" settings.
    cumulative_realized_loss : float
        Sum of the losses of the sampled projections.
    realized_loss_history : ndarray or None
        Their per-row values (with ``keep_history``).
    """

    log_w: np.ndarray
    n_components: int = 1
    U: np.ndarray | None = None
    basis: np.ndarray | None = None
    rotation: np.ndarray | None = None
    log_bulk: float = 0.0
    gamma: np.ndarray | None = None
    scatter: np.ndarray
    mean: np.ndarray
    past_sum: np.ndarray | None = None
    avg_sum: np.ndarray | None = None
    rng: np.random.Generator | None = None
    max_row_norm: float = 0.0
    max_fed_norm: float = 0.0
    learning_rate: float = 0.0
    fixed_share: float = 0.0
    tuned: tuple[float, float] | None = None
    cumulative_realized_loss: float = 0.0
    realized_loss_history: np.ndarray | None = None

    @property
    def is_bulk(self) -> bool:
        """True for the bulk (low-rank) form."""
        return self.U is None


def init_density_state(
    n_features: int,
    *,
    n_components: int = 1,
    bulk: bool,
    cumulative: bool,
    past_mixing: bool,
    average: bool,
    mean: np.ndarray | None = None,
    rng: np.random.Generator | None = None,
    keep_history: bool = False,
) -> DensityState:
    """``W^0 = I/n`` in the dense or the bulk form, with the variants' extra state."""
    n = n_features
    return DensityState(
        n_components=int(n_components),
        U=None if bulk else np.eye(n),
        basis=np.zeros((n, 0)) if bulk else None,
        rotation=np.zeros((0, 0)) if bulk else None,
        log_w=np.zeros(0) if bulk else np.full(n, -np.log(n)),
        gamma=(np.zeros(0) if bulk else np.zeros(n)) if cumulative else None,
        scatter=np.zeros((0, 0)) if bulk else np.zeros((n, n)),
        log_bulk=-np.log(n),
        mean=np.zeros(n) if mean is None else np.array(mean, dtype=np.float64),
        past_sum=np.eye(n) / n if past_mixing else None,
        avg_sum=np.zeros((n, n)) if average else None,
        rng=rng,
        loss_history=np.zeros(0) if keep_history else None,
        realized_loss_history=np.zeros(0) if keep_history and rng is not None else None,
    )


# ------------------------------------------------------------ representation
def bulk_coordinates(
    B: np.ndarray, R: np.ndarray, y: np.ndarray, *, tol: float = 1e-12
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Coordinates of ``y`` in the low-rank eigenbasis ``B R``, growing it if needed.

    ``B`` (n × m, orthonormal columns) spans the data seen so far and ``R``
    (m × m, orthogonal) rotates it onto the eigenvectors of ``W``; the
    orthogonal complement of ``B`` is one eigenspace of ``W`` (the "bulk",
    untouched by the data). The residual of ``y`` off ``span(B)`` (classical
    Gram-Schmidt, twice) becomes a new column of ``B`` when its norm exceeds
    ``tol · ||y||``; ``R`` is extended by a 1. ``O(n m + m²)``. Never writes
    into ``B`` or ``R``.

    Returns
    -------
    B, R : ndarray
        The (possibly extended) basis and rotation (new arrays when extended).
    z : ndarray of shape (m',)
        ``(B R)ᵀ y``.
    grew : bool
        Whether a column was added.
    """
    c = B.T @ y
    r = y - B @ c
    c2 = B.T @ r
    r = r - B @ c2
    c = c + c2
    nr = float(np.sqrt(r @ r))
    grew = B.shape[1] < B.shape[0] and nr > tol * float(np.sqrt(y @ y)) and nr > 0
    if grew:
        m = B.shape[1]
        B = np.hstack([B, (r / nr)[:, None]])
        R2 = np.zeros((m + 1, m + 1))
        R2[:m, :m] = R
        R2[m, m] = 1.0
        R = R2
        c = np.append(c, nr)
    return B, R, R.T @ c, grew


def reorthonormalized(R: np.ndarray) -> np.ndarray:
    """The orthogonal matrix nearest ``R`` column by column (QR, signs kept)."""
    if R.size == 0:
        return R
    Q, T = np.linalg.qr(R)
    return Q * np.where(np.diag(T) < 0, -1.0, 1.0)


def full_log_eigenvalues(state: DensityState, n_features: int) -> np.ndarray:
    """Log-eigenvalues of ``W`` over all ``n`` directions (the bulk expanded)."""
    if state.basis is None:  # dense form
        return state.log_w
    n_bulk = n_features - state.basis.shape[1]
    return np.r_[state.log_w, np.full(n_bulk, state.log_bulk)]


def eigenvector_columns(state: DensityState, idx: Any, n_features: int) -> np.ndarray:
    """Eigenvectors of ``W`` for indices into :func:`full_log_eigenvalues` (as columns)."""
    idx = np.asarray(idx, dtype=np.intp)
    if state.U is not None:  # dense form
        return state.U[:, idx]
    B, R = state.basis, state.rotation
    assert B is not None and R is not None  # the bulk form holds both
    m = B.shape[1]
    out = np.empty((n_features, idx.size))
    inner = idx < m
    out[:, inner] = B @ R[:, idx[inner]]
    if not inner.all():  # bulk directions: an orthonormal basis of span(B)'s complement
        complement = np.linalg.qr(B, mode="complete")[0][:, m:]
        out[:, ~inner] = complement[:, idx[~inner] - m]
    return out


def quadratic_form(state: DensityState, Y: np.ndarray) -> np.ndarray:
    """``yᵀWy`` for each row of the dense block ``Y``."""
    w = np.exp(state.log_w)
    if not state.is_bulk:
        Z = Y @ state.U
        return (Z * Z) @ w
    C = Y @ state.basis
    Z = C @ state.rotation
    rest = np.maximum(np.einsum("ij,ij->i", Y, Y) - np.einsum("ij,ij->i", C, C), 0.0)
    return (Z * Z) @ w + np.exp(state.log_bulk) * rest


def scatter_along(state: DensityState, V: np.ndarray) -> np.ndarray:
    """``vᵀSv`` for each column ``v`` of ``V`` (n × k), ``S`` the state's scatter."""
    P = V if state.basis is None else state.basis.T @ V
    return np.einsum("ij,ij->j", P, state.scatter @ P)


def past_mixing_step(
    U: np.ndarray,
    log_w: np.ndarray,
    past_sum: np.ndarray,
    t: int,
    d: int,
    floor: float,
    rate: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eq. (20): ``W <- (1-a) W + a (sum_{q<t} W^q)/t`` (pre-mixing ``W^q``, ``W^0 = I/n``).

    Returns the new ``(U, log_w, past_sum)``; the past sum always grows by the
    pre-mixing ``W``, the mixing itself is skipped when ``rate == 0``.
    """
    W_pre = dense_from_eigen(U, np.exp(log_w))
    new_sum = past_sum + W_pre
    if rate <= 0:
        return U, log_w, new_sum
    mixed = (1.0 - rate) * W_pre + (rate / t) * past_sum
    U, log_lam = log_eigenvalues_from_dense(mixed, lower=max(floor, 1e-300))
    # convex combination of capped matrices: re-cap only against rounding
    return U, spectral_step(log_lam, d), new_sum


# ---------------------------------------------------------------------- pass
def scatter_weight(t: int, center: bool, mean_prior: float) -> float:
    """Weight of row ``t`` (1-based) in the scatter, centred by the mean before it.

    Learning the mean (Warmuth & Kuzmin eq. 16), ``(p + t - 1)/(p + t)`` with
    ``p`` the mean's prior pseudo-count: with ``p = 0`` the weighted sum of
    ``(x_t - m_(t-1))(x_t - m_(t-1))ᵀ`` is exactly the scatter about the mean
    of all rows (Welford). Otherwise (uncentred, or the mean clamped) 1.
    """
    if center and not math.isinf(mean_prior):
        return (mean_prior + t - 1.0) / (mean_prior + t)
    return 1.0


def density_pass(
    state: DensityState,
    X: Any,
    *,
    n_components: int,
    learning_rate: float,
    update: str = "incremental",
    center: bool = False,
    mean_prior: float = 0.0,
    eigenvalue_floor: float = 0.0,
    share_before_cap: float = 0.0,
    share_after_cap: float = 0.0,
    past_mixing_rate: float = 0.0,
    solver: str = "auto",
    row_norm: str = "none",
    sampler: str = "decomposition",
) -> tuple[DensityState, np.ndarray]:
    """One online pass over the rows of ``X``; returns ``(new_state, expected_losses)``.

    Per row ``x`` (``row_norm`` applied, centred by the previous mean when the
    mean is learned): the expected loss ``(n-k) xᵀWx`` is recorded, then
    (``update="incremental"``, Warmuth & Kuzmin Alg. 5 / Yuan & Lamperski
    Alg. 4) ``W <- cap(softmax(log W - eta x xᵀ))`` with the floor and the fixed
    share ``share_before_cap`` before capping and the uniform mixing
    ``share_after_cap`` or the past mixing (eq. 20) after it; or
    (``update="cumulative"``, Alg. 6) ``C <- C + c x xᵀ`` and
    ``W = cap(softmax(log W^0 - eta C))``.

    The cumulative update has **no eigenvalue floor**: it recomputes ``W``
    from ``W^0`` and ``C`` at every row, so a floor carries no memory from row
    to row (it is not the implicit fixed share it is in the incremental
    update) and only ties every direction whose weight falls below it. The
    softmax of ``-eta C`` spreads by ``eta`` times the variance gap per row,
    so after about ``ln(1/floor)/(eta · gap)`` rows the kept directions and
    the next one would tie and the kept subspace become arbitrary.

    Pure: ``state`` is never written into; the returned state is a new object.

    Parameters
    ----------
    state : DensityState
        The committed state (dense or bulk form, as created by
        :func:`init_density_state`).
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        Validated rows.
    n_components : int
        ``k``.
    learning_rate : float
        ``eta``.
    update : {"incremental", "cumulative"}
    center : bool
        Learn the mean: each row is centred by the mean of the rows before it
        (Warmuth & Kuzmin eq. 15; with the incremental update, the learner
        then runs on the sequence of centred rows, and its bounds hold for it).
    mean_prior : float
        Pseudo-count of the initial mean (``inf`` clamps the mean).
    eigenvalue_floor : float
        Incremental update: floor on the normalised eigenvalues before capping.
    share_before_cap, share_after_cap : float
        Fixed share before capping (Yuan & Lamperski eq. 14b) and uniform
        mixing after it (Warmuth & Kuzmin §8).
    past_mixing_rate : float
        Rate of the past mixing (eq. 20); needs ``state.past_sum``.
    solver : {"auto", "dense", "bulk", "secular"}
        The rank-one eigen-update of the bulk form: ``"secular"``, or
        ``"auto"`` (secular from a span of 16 on), else ``eigh``.
    row_norm : {"none", "clip", "error", "scale"}
        ``"clip"`` clips the raw rows to norm 1; ``"scale"`` divides each row
        (centred) by the largest norm of the rows fed so far, itself included.
    sampler : {"decomposition", "systematic"}
        How the realized projection is drawn (when ``state.rng`` is set).

    Returns
    -------
    new_state : DensityState
    expected_losses : ndarray of shape (n_samples,)
    """
    new: Any = state.copy()  # its optional fields are set together by the mode (bulk or full)
    n = X.shape[1]
    d = n - n_components
    eta = float(learning_rate)
    cumulative = update == "cumulative"
    floor = 0.0 if cumulative else float(eigenvalue_floor)
    bulk = new.is_bulk
    U, log_w, gamma = new.U, new.log_w, new.gamma
    B, R, log_bulk = new.basis, new.rotation, new.log_bulk
    past_sum, avg_sum = new.past_sum, new.avg_sum
    mean, rng, scatter = new.mean, new.rng, new.scatter
    realized = rng is not None
    method = "secular" if solver == "secular" else "eigh"
    shares = {"share_before_cap": share_before_cap, "share_after_cap": share_after_cap}
    prior = float(mean_prior)
    t = new.n_samples_seen
    m = X.shape[0]
    exp_losses = np.empty(m)
    real_losses = np.empty(m)
    max_norm = new.max_row_norm
    fed_max = new.max_fed_norm
    scale = row_norm == "scale"
    for start, block in dense_row_blocks(X):
        norms = np.sqrt(np.einsum("ij,ij->i", block, block))
        max_norm = max(max_norm, float(norms.max()))
        block = prepare_rows(block, row_norm)
        for i, x in enumerate(block):
            t += 1
            raw = x - mean if center else x
            fed_max = max(fed_max, float(np.sqrt(raw @ raw)))
            scale_t = fed_max if scale and fed_max > 0 else 1.0
            yv = raw / scale_t if scale_t != 1.0 else raw  # "scale": the largest has norm 1
            c = scatter_weight(t, center, prior)
            if center and not np.isinf(prior):  # m_t, after the row used m_{t-1}
                mean = mean - (mean - x) / (prior + t)
            if bulk:
                B, R, z, grew = bulk_coordinates(B, R, yv)
                if solver == "auto":
                    method = "secular" if B.shape[1] >= SECULAR_MIN_SPAN else "eigh"
                if grew:
                    log_w = np.append(log_w, log_bulk)
                    scatter = np.pad(scatter, ((0, 1), (0, 1)))
                    if cumulative:
                        gamma = np.append(gamma, 0.0)
                n_bulk = n - B.shape[1]
                counts = np.r_[np.ones(B.shape[1]), n_bulk] if n_bulk else None
                to_coords = R  # (R z) scale_t: the row in the coordinates of B, unscaled
            else:
                z = U.T @ yv
                n_bulk, counts = 0, None
                to_coords = None
            if c and z.size:  # S += c yyᵀ in place on the pass's own copy (BLAS), symmetric
                root = math.sqrt(c)
                u = root * raw if to_coords is None else (root * scale_t) * (to_coords @ z)
                scatter = dger(1.0, u, u, a=scatter.T, overwrite_a=True).T
            w = np.exp(log_w)
            z2 = z * z
            exp_losses[start + i] = d * float(w @ z2)
            if realized:
                if counts is not None:  # the bulk carries no energy of this row
                    w_full = np.r_[w, np.full(n_bulk, np.exp(log_bulk))]
                    z2_full = np.r_[z2, np.zeros(n_bulk)]
                else:
                    w_full, z2_full = w, z2
                S = sample_corner(w_full / w_full.sum(), d, rng, sampler=sampler)
                real_losses[start + i] = float(z2_full[S].sum())
            if avg_sum is not None:
                avg_sum = avg_sum + dense_from_eigen(U, w)
            if cumulative:
                if bulk:
                    R, gamma = meg_eigen_step(R, gamma, -c, z=z, method=method)
                else:
                    U, gamma = meg_eigen_step(U, gamma, -c, z=z)
                vals = -eta * gamma
                step = {}
                bulk_val = 0.0  # the bulk's gamma is 0
            else:
                if bulk:
                    R, vals = meg_eigen_step(R, log_w, eta, z=z, method=method)
                else:
                    U, vals = meg_eigen_step(U, log_w, eta, z=z)
                step = shares
                bulk_val = log_bulk
            if counts is not None:
                new_log = spectral_step(
                    np.r_[vals, bulk_val], d, floor=floor, counts=counts, **step
                )
                log_w, log_bulk = new_log[:-1], float(new_log[-1])
            else:
                log_w = spectral_step(vals, d, floor=floor, **step)
            if t % REORTHONORMALIZE_EVERY == 0:  # products of rotations drift slowly
                if bulk:
                    R = reorthonormalized(R)
                else:
                    U = reorthonormalized(U)
            if past_sum is not None:
                U, log_w, past_sum = past_mixing_step(
                    U, log_w, past_sum, t, d, floor, past_mixing_rate
                )
    new = dataclasses.replace(
        new,
        U=U,
        log_w=log_w,
        gamma=gamma,
        scatter=scatter,
        basis=B,
        rotation=R,
        log_bulk=log_bulk,
        past_sum=past_sum,
        avg_sum=avg_sum,
        mean=mean,
        n_samples_seen=t,
        max_row_norm=max_norm,
        max_fed_norm=fed_max,
        learning_rate=eta,
    )
    new.record_losses(exp_losses)
    if realized:
        total = new.cumulative_realized_loss
        for value in real_losses.tolist():  # row by row: any split gives the same sum
            total += value
        new.cumulative_realized_loss = total
        if new.realized_loss_history is not None:
            new.realized_loss_history = np.concatenate([new.realized_loss_history, real_losses])
    return new, exp_losses

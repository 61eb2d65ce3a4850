"""Online PCA with regret guarantees: AdaptiveOnlinePCA and RandomizedOnlinePCA.

Warmuth & Kuzmin, "Randomized Online PCA Algorithms with Regret Bounds that
are Logarithmic in the Dimension", JMLR 9 (2008): Algorithm 5 (uncentered,
incremental update), Algorithm 6 (cumulative update, optionally learning the
mean) and the §8 mixing updates. Yuan & Lamperski, "Online Adaptive Principal
Component Analysis and Its Extensions", ICML 2019: Algorithm 4 (fixed share
before capping, adaptive regret on every interval).

Both learners hold a density matrix ``W`` (trace one, eigenvalues at most
``1/(n-k)``) over the directions to **discard**: the expected compression loss
of a row is ``(n-k) xᵀWx``, the kept subspace is spanned by the eigenvectors
with the ``k`` smallest eigenvalues. ``W`` is stored as eigenvectors plus
log-eigenvalues; one row costs one ``n × n`` symmetric eigendecomposition
(:func:`skonline.utils._density.meg_eigen_step`) plus ``O(n log n)`` for the
log-domain softmax, floor, fixed share and capping
(:func:`skonline.utils._capping.spectral_step`).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_array, gen_batches
from sklearn.utils.extmath import safe_sparse_dot

from .._legacy_base import OnlineEstimator
from ..utils._capping import mixture_decomposition, sample_corner, spectral_step
from ..utils._density import (
    dense_from_eigen,
    log_eigenvalues_from_dense,
    meg_eigen_step,
    sign_fixed,
)
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context

__all__ = ["AdaptiveOnlinePCA", "RandomizedOnlinePCA", "check_row_norms", "prepare_rows"]

#: Rows above this norm are rejected by ``row_norm="error"``.
_NORM_TOL = 1e-12
#: The eigenbasis (or the low-rank rotation) is re-orthonormalised every this many rows.
_REORTHONORMALIZE = 128
#: solver="auto" uses the secular eigen-update from this data-span dimension on.
_SECULAR_MIN = 64
#: Rows are densified in chunks of this many rows (CSR input).
_CHUNK = 256


# ----------------------------------------------------------------- kernels
def prepare_rows(X, row_norm):
    """Rows as the update sees them: ``"clip"`` rescales rows of norm > 1 to norm 1.

    ``"none"`` and ``"error"`` return ``X`` unchanged (``"error"`` is enforced
    at validation). Never writes into ``X``.
    """
    if row_norm != "clip":
        return X
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    scale = np.where(norms > 1.0, 1.0 / np.where(norms > 1.0, norms, 1.0), 1.0)
    return X * scale[:, None]


def check_row_norms(X, row_norm):
    """With ``row_norm="error"``, raise ``ValueError`` if a row of ``X`` has norm above 1."""
    if row_norm != "error":
        return
    sq = (
        np.asarray(X.multiply(X).sum(axis=1)).ravel()
        if sp.issparse(X)
        else np.einsum("ij,ij->i", X, X)
    )
    bad = np.flatnonzero(sq > (1.0 + _NORM_TOL) ** 2)
    if bad.size:
        raise ValueError(
            f"row {bad[0]} of X has norm {np.sqrt(sq[bad[0]]):.6g} > 1 and row_norm='error'; "
            "the guarantees need ||x|| <= 1. Rescale the data, or use row_norm='clip' "
            "or 'none'."
        )


def theory_adaptive_parameters(n_features, n_components, horizon, loss_bound=None):
    """Theorem 3 of Yuan & Lamperski: ``(eta, alpha)`` for horizon ``T``.

    ``alpha = 1/(T(n-k)+1)``, ``D = (n-k) ln(n(1+(n-k)T)) + 1``,
    ``eta = ln(1 + sqrt(2D/L))``, with ``L = T`` (the trivial bound for
    ``||x|| <= 1``) unless ``loss_bound`` is given. The adaptive regret on
    every interval is then at most ``sqrt(2LD) + D``.
    """
    d = n_features - n_components
    T = float(horizon)
    L = T if loss_bound is None else float(loss_bound)
    D = d * np.log(n_features * (1.0 + d * T)) + 1.0
    return float(np.log1p(np.sqrt(2.0 * D / L))), 1.0 / (T * d + 1.0)


def theory_static_learning_rate(n_features, n_components, loss_budget):
    """Warmuth & Kuzmin eq. (3)/(7): ``eta = ln(1 + sqrt(2D/L))``.

    ``D = k ln(n/k)`` when ``k <= n/2``, else ``(n-k) ln(n/(n-k))`` (spec A9);
    the static regret is then at most ``sqrt(2 L D) + D``.
    """
    n, k = n_features, n_components
    D = k * np.log(n / k) if k <= n / 2 else (n - k) * np.log(n / (n - k))
    return float(np.log1p(np.sqrt(2.0 * D / float(loss_budget))))


def bulk_coordinates(B, R, y, *, tol=1e-12):
    """Coordinates of ``y`` in the low-rank eigenbasis ``B R``, growing it if needed.

    ``B`` (n × m, orthonormal columns) spans the data seen so far and ``R``
    (m × m, orthogonal) rotates it onto the eigenvectors of ``W``; the
    orthogonal complement of ``B`` is one eigenspace of ``W`` (the "bulk",
    untouched by the data). The residual of ``y`` off ``span(B)`` (classical
    Gram-Schmidt, twice) becomes a new column of ``B`` when its norm exceeds
    ``tol · ||y||``; ``R`` is extended by a 1. ``O(n m + m²)``.

    Returns
    -------
    B, R : the (possibly extended) basis and rotation (new arrays when extended)
    z : ndarray of shape (m',)
        ``(B R)ᵀ y``.
    grew : bool
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


def reorthonormalized(R):
    """The orthogonal matrix nearest ``R`` column by column (QR, signs kept)."""
    if R.size == 0:
        return R
    Q, T = np.linalg.qr(R)
    return Q * np.where(np.diag(T) < 0, -1.0, 1.0)


def _as_generator(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    return np.random.default_rng(random_state)


def _dense_rows(X):
    """Yield ``(start, dense float64 block)`` over the rows of ``X``."""
    for sl in gen_batches(X.shape[0], _CHUNK):
        block = X[sl]
        block = block.toarray() if sp.issparse(block) else block
        yield sl.start, np.ascontiguousarray(block, dtype=np.float64)


# --------------------------------------------------------------- estimator
class _BaseOnlinePCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, OnlineEstimator):
    """Shared engine: a capped density matrix updated once per row."""

    _accept_sparse = "csr"
    _private_state: tuple[str, ...] = (
        "_U",
        "_B",
        "_R",
        "_log_bulk",
        "_log_w",
        "_gamma",
        "_past_sum",
        "_avg_sum",
        "_rng",
        "_fitted_params",
    )

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "eigenvalue_floor": [Interval(Real, 0, 1, closed="left")],
        "transform_mode": [StrOptions({"deterministic", "mode", "sample", "average"})],
        "sampler": [StrOptions({"decomposition", "systematic"})],
        "keep_history": ["boolean"],
        "row_norm": [StrOptions({"clip", "none", "error"})],
        "random_state": ["random_state"],
        "solver": [StrOptions({"auto", "dense", "bulk", "secular"})],
    }

    @property
    def _constant_memory(self):
        return not self.keep_history

    # ----------------------------------------------------- subclass switches
    def _update_kind(self):
        return "incremental"

    def _is_centered(self):
        return False

    def _share_before_cap(self):
        return 0.0

    def _share_after_cap(self):
        return 0.0

    def _mixing_kind(self):
        return None

    def _records_realized(self):
        return False

    def _resolve_learning_rate(self, n_features, n_rows):  # pragma: no cover - abstract
        raise NotImplementedError

    def _state_params(self):
        """Parameters that shape the state; fixed at the first call."""
        return (
            int(self.n_components),
            self._update_kind(),
            self._is_centered(),
            self._mixing_kind(),
            self.transform_mode == "average",
            self._records_realized(),
            self._resolve_solver(),
        )

    def _bulk_allowed(self):
        return self._mixing_kind() != "past" and self.transform_mode != "average"

    def _resolve_solver(self):
        if self.solver == "dense" or (self.solver == "auto" and not self._bulk_allowed()):
            return "dense"
        return "secular" if self.solver == "secular" else "bulk"

    # ------------------------------------------------------------ validation
    def _check_params(self, n_features):
        k = self.n_components
        if not 1 <= k < n_features:
            raise ValueError(
                f"n_components={k} must be between 1 and n_features - 1 = {n_features - 1} "
                f"(the discarded space needs at least one direction); X has {n_features} "
                "feature(s)."
            )
        if self.eigenvalue_floor * n_features >= 1:
            raise ValueError(
                f"eigenvalue_floor={self.eigenvalue_floor} must be below 1/n_features = "
                f"{1 / n_features:.3g}."
            )

    def _validate_batch(self, X, y, first_call, from_fit=False):
        if not first_call and self._fitted_params != self._state_params():
            raise ValueError(
                "n_components, update, center, mixing, transform_mode='average', "
                "record_realized_loss or solver changed since the first partial_fit; call "
                "fit to start again."
            )
        X, y = super()._validate_batch(X, y, first_call)
        self._check_params(X.shape[1])
        if self.solver in ("bulk", "secular") and not self._bulk_allowed():
            raise ValueError(
                f"solver={self.solver!r} does not support mixing='past' or "
                "transform_mode='average' (both need dense n x n matrices); use "
                "solver='auto' or 'dense'."
            )
        check_row_norms(X, self.row_norm)
        self._validate_extra(X, first_call, from_fit)
        return X, y

    def _validate_extra(self, X, first_call, from_fit):
        """Subclass checks that need the batch (e.g. the "auto" tuning)."""

    # ----------------------------------------------------------------- state
    def _init_state(self, X, y):
        n = X.shape[1]
        self._fitted_params = self._state_params()
        cumulative = self._update_kind() == "cumulative"
        if self._resolve_solver() != "dense":
            self._U = None
            self._B, self._R = np.zeros((n, 0)), np.zeros((0, 0))
            self._log_w = np.zeros(0)
            self._gamma = np.zeros(0) if cumulative else None
        else:
            self._U, self._B, self._R = np.eye(n), None, None
            self._log_w = np.full(n, -np.log(n))
            self._gamma = np.zeros(n) if cumulative else None
        self._log_bulk = -np.log(n)
        self._past_sum = np.eye(n) / n if self._mixing_kind() == "past" else None
        self._avg_sum = np.zeros((n, n)) if self.transform_mode == "average" else None
        self._rng = _as_generator(self.random_state) if self._records_realized() else None
        self.n_components_ = int(self.n_components)
        self.n_samples_seen_ = 0
        self.cumulative_expected_loss_ = 0.0
        self.max_row_norm_seen_ = 0.0
        if self._records_realized():
            self.cumulative_realized_loss_ = 0.0
        if self.keep_history:
            self.expected_losses_ = np.zeros(0)
            if self._records_realized():
                self.realized_losses_ = np.zeros(0)
        self._init_extra(X)

    def _init_extra(self, X):
        """Subclass state (the mean, the resolved tuning)."""

    def _refresh_rates(self):
        """Take numeric rates set (``set_params``) since the last call; "auto" stays resolved."""

    def _update(self, X, y):
        self._refresh_rates()
        n = X.shape[1]
        d = n - self.n_components_
        floor = float(self.eigenvalue_floor)
        eta = self.learning_rate_
        cumulative = self._update_kind() == "cumulative"
        centered = self._is_centered()
        realized = self._records_realized()
        bulk = self._U is None
        U, log_w = self._U, self._log_w
        B, R, log_bulk = self._B, self._R, self._log_bulk
        gamma = self._gamma
        share_before, share_after = self._share_before_cap(), self._share_after_cap()
        solver = self._resolve_solver()
        method = "secular" if solver == "secular" else "eigh"
        past_sum, avg_sum = self._past_sum, self._avg_sum
        mean = self.mean_.copy() if centered else None
        prior = float(getattr(self, "mean_prior", 0.0))
        t = self.n_samples_seen_
        m = X.shape[0]
        exp_losses = np.empty(m)
        cum_exp = self.cumulative_expected_loss_
        cum_real = getattr(self, "cumulative_realized_loss_", 0.0)
        real_losses = np.empty(m) if realized else None
        max_norm = self.max_row_norm_seen_
        for start, block in _dense_rows(X):
            norms = np.sqrt(np.einsum("ij,ij->i", block, block))
            max_norm = max(max_norm, float(norms.max()))
            block = prepare_rows(block, self.row_norm)
            for i, x in enumerate(block):
                t += 1
                yv = x - mean if centered else x
                if bulk:
                    B, R, z, grew = bulk_coordinates(B, R, yv)
                    if self.solver == "auto":
                        method = "secular" if B.shape[1] >= _SECULAR_MIN else "eigh"
                    if grew:
                        log_w = np.append(log_w, log_bulk)
                        if cumulative:
                            gamma = np.append(gamma, 0.0)
                    n_bulk = n - B.shape[1]
                    counts = np.r_[np.ones(B.shape[1]), n_bulk] if n_bulk else None
                else:
                    z = U.T @ yv
                    counts = None
                w = np.exp(log_w)
                z2 = z * z
                loss = d * float(w @ z2)
                exp_losses[start + i] = loss
                cum_exp += loss  # row by row: any split of the rows gives the same sum
                if realized:
                    if counts is not None:  # the bulk carries no energy of this row
                        w_full = np.r_[w, np.full(n_bulk, np.exp(log_bulk))]
                        z2_full = np.r_[z2, np.zeros(n_bulk)]
                    else:
                        w_full, z2_full = w, z2
                    S = sample_corner(w_full / w_full.sum(), d, self._rng, sampler=self.sampler)
                    loss = float(z2_full[S].sum())
                    real_losses[start + i] = loss
                    cum_real += loss
                if avg_sum is not None:
                    avg_sum += dense_from_eigen(U, w)
                if cumulative:
                    if centered:
                        c = 1.0 if np.isinf(prior) else (prior + t - 1.0) / (prior + t)
                    else:
                        c = 1.0
                    if bulk:
                        R, gamma = meg_eigen_step(R, gamma, -c, z=z, method=method)
                        vals = -eta * gamma
                    else:
                        U, gamma = meg_eigen_step(U, gamma, -c, z=z)
                        vals = -eta * gamma
                    if centered and not np.isinf(prior):
                        mean = mean - (mean - x) / (prior + t)
                    shares = {}
                    bulk_val = 0.0  # the bulk's gamma is 0
                else:
                    if bulk:
                        R, vals = meg_eigen_step(R, log_w, eta, z=z, method=method)
                    else:
                        U, vals = meg_eigen_step(U, log_w, eta, z=z)
                    shares = {"share_before_cap": share_before, "share_after_cap": share_after}
                    bulk_val = log_bulk
                if counts is not None:
                    new = spectral_step(
                        np.r_[vals, bulk_val], d, floor=floor, counts=counts, **shares
                    )
                    log_w, log_bulk = new[:-1], float(new[-1])
                else:
                    log_w = spectral_step(vals, d, floor=floor, **shares)
                if t % _REORTHONORMALIZE == 0:  # products of rotations drift slowly
                    if bulk:
                        R = reorthonormalized(R)
                    else:
                        U = reorthonormalized(U)
                if not cumulative:
                    if past_sum is not None:
                        U, log_w, past_sum = self._past_mixing(U, log_w, past_sum, t, d, floor)
        self._U, self._log_w, self._gamma = U, log_w, gamma
        self._B, self._R, self._log_bulk = B, R, log_bulk
        self._past_sum, self._avg_sum = past_sum, avg_sum
        if centered:
            self.mean_ = mean
        self.n_samples_seen_ = t
        self.max_row_norm_seen_ = max_norm
        self.cumulative_expected_loss_ = cum_exp
        if realized:
            self.cumulative_realized_loss_ = cum_real
        if self.keep_history:
            self.expected_losses_ = np.concatenate([self.expected_losses_, exp_losses])
            if realized:
                self.realized_losses_ = np.concatenate([self.realized_losses_, real_losses])

    def _past_mixing(self, U, log_w, past_sum, t, d, floor):
        """Eq. (20): ``W <- (1-a) W + a (sum_{q<t} W^q)/t`` (pre-mixing ``W^q``, ``W^0 = I/n``)."""
        alpha = float(self.alpha)
        W_pre = dense_from_eigen(U, np.exp(log_w))
        mixed = (1.0 - alpha) * W_pre + (alpha / t) * past_sum
        past_sum = past_sum + W_pre
        U, log_lam = log_eigenvalues_from_dense(mixed, lower=max(floor, 1e-300))
        # convex combination of capped matrices: re-cap only against rounding
        log_lam = spectral_step(log_lam, d)
        return U, log_lam, past_sum

    # ------------------------------------------------------------ fitting API
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """One online step per row of ``X``, in order.

        Before each row's update its expected compression loss
        ``(n-k) x̃ᵀWx̃`` (``x̃`` the prepared row, centred by the previous mean
        when the mean is learned) is added to ``cumulative_expected_loss_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        self : object
        """
        return self._online_partial_fit(X)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Forget everything, then one online pass over the rows of ``X`` in order.

        Row order matters: the learner is online and tracks drift by design.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        self : object
        """
        return self._online_fit(X, from_fit=True)

    # ----------------------------------------------------- fitted quantities
    def _full_log_w(self):
        """Log-eigenvalues of ``W`` over all ``n`` directions (bulk expanded)."""
        if self._U is not None:
            return self._log_w
        n_bulk = self.n_features_in_ - self._B.shape[1]
        return np.r_[self._log_w, np.full(n_bulk, self._log_bulk)]

    def _columns(self, idx):
        """Eigenvectors of ``W`` for indices into :meth:`_full_log_w` (columns)."""
        idx = np.asarray(idx, dtype=np.intp)
        if self._U is not None:
            return self._U[:, idx]
        m = self._B.shape[1]
        out = np.empty((self.n_features_in_, idx.size))
        inner = idx < m
        out[:, inner] = self._B @ self._R[:, idx[inner]]
        if not inner.all():  # bulk directions: an orthonormal basis of span(B)'s complement
            complement = np.linalg.qr(self._B, mode="complete")[0][:, m:]
            out[:, ~inner] = complement[:, idx[~inner] - m]
        return out

    def _quadratic_form(self, Y):
        """``yᵀWy`` for each row of the dense block ``Y``."""
        w = np.exp(self._log_w)
        if self._U is not None:
            Z = Y @ self._U
            return (Z * Z) @ w
        C = Y @ self._B
        Z = C @ self._R
        rest = np.maximum(np.einsum("ij,ij->i", Y, Y) - np.einsum("ij,ij->i", C, C), 0.0)
        return (Z * Z) @ w + np.exp(self._log_bulk) * rest

    def _ascending(self):
        return np.argsort(self._full_log_w(), kind="stable")

    @property
    def density_eigenvalues_(self):
        """ndarray of shape (n_features,): eigenvalues of ``W``, ascending."""
        self._check_fitted()
        return np.exp(self._full_log_w()[self._ascending()])

    @property
    def density_log_eigenvalues_(self):
        """ndarray of shape (n_features,): their logarithms (no underflow), ascending."""
        self._check_fitted()
        return self._full_log_w()[self._ascending()].copy()

    @property
    def density_eigenvectors_(self):
        """ndarray of shape (n_features, n_features): matching eigenvectors (columns).

        Sign-fixed: the largest-magnitude entry of each column is positive.
        """
        self._check_fitted()
        return sign_fixed(self._columns(self._ascending()))

    @property
    def density_matrix_(self):
        """ndarray of shape (n_features, n_features): ``W`` formed densely on demand."""
        self._check_fitted()
        order = np.arange(self.n_features_in_)
        return dense_from_eigen(self._columns(order), np.exp(self._full_log_w()))

    @property
    def expected_projection_(self):
        """ndarray of shape (n_features, n_features): ``E[P] = I - (n-k) W``."""
        W = self.density_matrix_
        return np.eye(W.shape[0]) - (W.shape[0] - self.n_components_) * W

    @property
    def average_density_(self):
        """ndarray: ``(1/T) sum_{t<T} W^t``, the online-to-batch average.

        Available with ``transform_mode="average"`` (set from the first call).
        """
        self._check_fitted()
        if self._avg_sum is None:
            raise AttributeError("average_density_ needs transform_mode='average' from the start")
        return self._avg_sum / max(self.n_samples_seen_, 1)

    def _mode_kept(self):
        """Kept indices (internal order) of the most probable corner of Alg. 2."""
        log_w = self._full_log_w()
        n = log_w.shape[0]
        w = np.exp(log_w)
        p, corners = mixture_decomposition(w / w.sum(), n - self.n_components_)
        discarded = corners[int(np.argmax(p))]
        kept = np.setdiff1d(np.arange(n), discarded)
        return kept[np.argsort(log_w[kept], kind="stable")]

    @property
    def components_(self):
        """ndarray of shape (n_components, n_features): the kept directions.

        The eigenvectors of ``W`` with the ``k`` **smallest** eigenvalues
        (``W`` weights the directions to discard), ascending, sign-fixed;
        ``transform_mode="mode"``: the complement of the most probable corner;
        ``"average"``: the same rule on the averaged density.
        """
        self._check_fitted()
        k = self.n_components_
        if self.transform_mode == "mode":
            cols = self._columns(self._mode_kept())
        elif self.transform_mode == "average" and self._avg_sum is not None:
            _, V = np.linalg.eigh(self.average_density_)
            cols = V[:, :k]
        else:
            cols = self._columns(self._ascending()[:k])
        return sign_fixed(cols).T

    @property
    def _n_features_out(self):
        return self.n_components_

    def sample_projection(self, random_state=None):
        """Draw a rank-``k`` projection as the randomised algorithm does.

        Decomposes the eigenvalues of ``W`` into corners (Alg. 2, or the
        systematic sampler), draws one with one uniform and keeps the ``k``
        eigenvectors outside it.

        Parameters
        ----------
        random_state : int, Generator, RandomState or None
            ``None`` uses the estimator's ``random_state``.

        Returns
        -------
        components : ndarray of shape (n_components, n_features)
            Orthonormal rows; the projection is ``components.T @ components``.
        """
        self._check_fitted()
        rng = _as_generator(self.random_state if random_state is None else random_state)
        log_w = self._full_log_w()
        n = log_w.shape[0]
        w = np.exp(log_w)
        S = sample_corner(w / w.sum(), n - self.n_components_, rng, sampler=self.sampler)
        kept = np.setdiff1d(np.arange(n), S)
        kept = kept[np.argsort(log_w[kept], kind="stable")]
        return sign_fixed(self._columns(kept)).T

    # -------------------------------------------------------------- read-out
    def _center(self, X):
        if self._is_centered():
            return X - self.mean_
        return X

    def expected_loss(self, X):
        """Expected compression loss ``(n-k) x̃ᵀWx̃`` of each row; no state change.

        ``x̃`` is the row as ``partial_fit`` would use it (``row_norm``
        applied, centred by ``mean_`` when the mean is learned).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        losses : ndarray of shape (n_samples,)
        """
        X = self._validate_predict(X)
        out = np.empty(X.shape[0])
        d = self.n_features_in_ - self.n_components_
        for start, block in _dense_rows(X):
            check_row_norms(block, self.row_norm)
            Y = self._center(prepare_rows(block, self.row_norm))
            out[start : start + block.shape[0]] = d * self._quadratic_form(Y)
        return out

    def transform(self, X):
        """Coordinates in the kept subspace: ``(X - mean_) @ components_.T``.

        Raw rows (no ``row_norm``), so the map is affine. With
        ``transform_mode="sample"`` one projection is drawn per call
        (:meth:`sample_projection`) and applied to every row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components), float64
        """
        X = self._validate_predict(X)
        C = self.sample_projection() if self.transform_mode == "sample" else self.components_
        out = np.asarray(safe_sparse_dot(X, C.T, dense_output=True), dtype=np.float64)
        if self._is_centered():
            out -= self.mean_ @ C.T
        return out

    def inverse_transform(self, X):
        """Map coordinates back: ``X @ components_ + mean_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
        """
        self._check_fitted()
        X = check_array(X, dtype=[np.float64, np.float32])
        if X.shape[1] != self.n_components_:
            raise ValueError(
                f"X has {X.shape[1]} features, but inverse_transform expects "
                f"n_components_={self.n_components_}."
            )
        out = np.asarray(X, dtype=np.float64) @ self.components_
        if self._is_centered():
            out += self.mean_
        return out

    def score_samples(self, X):
        """Negative expected compression loss of each raw row under the current ``W``.

        ``-(n-k) (x - mean_)ᵀ W (x - mean_)`` on the rows as given (no
        ``row_norm``): the quantity the regret bounds are about, for a frozen
        ``W``. Greater is better.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        X = self._validate_predict(X)
        out = np.empty(X.shape[0])
        d = self.n_features_in_ - self.n_components_
        for start, block in _dense_rows(X):
            Y = self._center(block)
            out[start : start + block.shape[0]] = -d * self._quadratic_form(Y)
        return out

    def score(self, X, y=None):
        """Mean of :meth:`score_samples` (negative mean expected compression loss).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        score : float
        """
        return float(np.mean(self.score_samples(X)))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64"]
        tags.non_deterministic = self.transform_mode == "sample" and self.random_state is None
        return tags


_SHARED_PARAMS = """\
    eigenvalue_floor : float, default=1e-16
        Before capping, the normalised eigenvalues are floored at this value
        and renormalised (so every eigenvalue of ``W`` stays ``>= floor``).
        ``0`` is the exact algorithm; the log-domain state never underflows
        either way. The floor is a tiny implicit fixed share: it bounds how
        far a direction's log-weight can fall, hence how long the learner
        needs to re-learn it after a switch. Without it (or a fixed share)
        the static algorithm recovers from a subspace switch in hundreds of
        rows; with ``1e-16`` (what storing ``W`` densely does by rounding,
        as the papers' implementations did) in about 60, and with the
        authors' ``1e-10/(n-k)`` faster still. Must be below ``1/n_features``.

    transform_mode : {"deterministic", "mode", "sample", "average"}, \
default="deterministic"
        Which projection :meth:`transform` and ``components_`` use:
        ``"deterministic"``, the ``k`` eigenvectors of ``W`` with the smallest
        eigenvalues; ``"mode"``, the complement of the most probable corner of
        the mixture decomposition (Warmuth & Kuzmin Fig. 5); ``"sample"``, a
        projection drawn per :meth:`transform` call from ``random_state``;
        ``"average"``, the deterministic rule on the average of the density
        matrices of the pass (online-to-batch conversion; keeps an extra
        ``n × n`` sum and costs ``O(n³)`` more per row).

    sampler : {"decomposition", "systematic"}, default="decomposition"
        How a projection is sampled: a corner of the mixture decomposition
        (Algorithm 2, ``O(n²)``) or systematic sampling (``O(n)``, the same
        inclusion probabilities ``(n-k) w_i`` and expected loss).

    keep_history : bool, default=False
        Store the per-row expected losses in ``expected_losses_`` (memory
        grows with the stream only when this is on).

    row_norm : {"none", "clip", "error"}, default="none"
        The guarantees need ``||x|| <= 1``. ``"none"`` uses the rows as given
        (``max_row_norm_seen_`` tells whether the assumption held);
        ``"clip"`` rescales rows of norm above 1 to norm 1 before the update
        and in :meth:`expected_loss` (the papers' data preparation);
        ``"error"`` raises on a row of norm above 1. The data are never
        changed unless asked.

    solver : {"auto", "dense", "bulk", "secular"}, default="auto"
        How ``W`` is stored and updated; all four agree to rounding
        (``~1e-12``), only the eigenvectors chosen inside tied eigenspaces
        differ. ``"dense"``: ``n`` eigenvectors, one ``n × n``
        eigendecomposition and basis rotation per row, ``O(n³)``.
        ``"bulk"`` (exact, beyond the papers): the directions orthogonal to
        every row seen so far form one eigenspace of ``W`` (softmax, floor,
        fixed share and capping map equal eigenvalues to equal values), so
        ``W`` is held as an orthonormal basis ``B`` of the ``m``-dimensional
        data span, an ``m × m`` rotation and one "bulk" eigenvalue of
        multiplicity ``n - m``; a row costs ``O(nm + m³)`` and memory is
        ``O(nm)``, far below the dense cost while ``m ≪ n`` (images, text),
        and about the dense cost once the data span all ``n`` directions.
        ``"secular"``: the bulk representation with the rank-one
        eigen-update solved through the secular equation (LAPACK
        ``dlasd4`` roots, Gu-Eisenstat eigenvectors; ``O(m²)`` plus one
        ``n × m × m`` product instead of an ``m × m`` ``eigh``).
        ``"auto"``: the bulk representation, with the secular update once the
        span has 64 dimensions (where it is faster than ``eigh``), unless
        ``mixing="past"`` or ``transform_mode="average"``, which need dense
        matrices (then ``"dense"``). Every solver re-orthonormalises its
        eigenbasis (QR) every 128 rows against the slow drift of products
        of rotations.

    random_state : int, RandomState instance, Generator or None, default=None
        Used only to sample projections; the learned density matrix does not
        depend on it.
"""

_SHARED_ATTRS = """\
    n_components_ : int
        ``k``.

    n_samples_seen_ : int
        Rows processed so far.

    learning_rate_ : float
        The learning rate in use (resolved from ``"auto"``).

    cumulative_expected_loss_ : float
        Sum over the rows seen of the expected compression loss
        ``(n-k) x̃ᵀWx̃``, each computed before that row's update.

    expected_losses_ : ndarray of shape (n_samples_seen_,)
        The per-row expected losses; only with ``keep_history=True``.

    max_row_norm_seen_ : float
        Largest raw row norm seen (before ``row_norm``).

    components_ : ndarray of shape (n_components, n_features)
        Kept directions: the eigenvectors of ``W`` with the ``k`` smallest
        eigenvalues, in ascending order, sign-fixed (largest entry positive).

    density_eigenvalues_ : ndarray of shape (n_features,)
        Eigenvalues of ``W``, ascending (``density_log_eigenvalues_`` holds
        their exact logarithms).

    density_eigenvectors_ : ndarray of shape (n_features, n_features)
        The matching eigenvectors, as columns.

    density_matrix_ : ndarray of shape (n_features, n_features)
        ``W`` formed on demand; ``expected_projection_`` is ``I - (n-k)W``.

    n_features_in_ : int
        Number of features seen during the first fit.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.
"""


class AdaptiveOnlinePCA(_BaseOnlinePCA):
    __doc__ = f"""Online adaptive PCA: fixed-share matrix Hedge (Yuan & Lamperski, Alg. 4).

    A density matrix ``W`` over the directions to discard is updated once per
    row ``x`` by the matrix exponentiated-gradient step, mixed with the
    uniform density, then capped at ``1/(n-k)`` (eq. 14a-c)::

        V = exp(log W - eta x xᵀ) / Tr(.)
        W <- cap_(n-k)((alpha/n) I + (1 - alpha) V)

    A rank-``k`` projection drawn from ``W`` (Alg. 2) has expected
    compression loss ``(n-k) xᵀWx``. For ``||x_t|| <= 1`` and any interval
    ``[r, s]`` (the proof's sharp form, any ``eta > 0``, ``0 < alpha < 1``)::

        (1 - e^-eta) A_rs - eta B_rs <= (n-k) [ln(n/alpha) + (s-r+1) ln(1/(1-alpha))]

    with ``A_rs`` the expected loss of the learner and ``B_rs`` the loss of
    the best rank-``k`` subspace on ``[r, s]``; tuned (Theorem 3) the
    adaptive regret is at most ``sqrt(2LD) + D``,
    ``D = (n-k) ln(n(1+(n-k)T)) + 1``. With ``alpha = 0`` this is Warmuth &
    Kuzmin's static online PCA (:class:`RandomizedOnlinePCA`).

    As printed, one row costs one ``n × n`` symmetric eigendecomposition plus
    a basis rotation, ``O(n³)``, and ``O(n²)`` memory (``solver="dense"``).
    The default solver is exact too and costs ``O(nm + m³)`` time and
    ``O(nm)`` memory while the rows span ``m < n`` directions, with an
    ``O(m²)`` secular-equation eigen-update (see ``solver``). Corrected errata: the capping
    normaliser (Alg. 3) and the Hedge normaliser (eq. 4a); the theorem's
    ``T ln(1/(1-alpha))`` is sharpened to ``(s-r+1) ln(1/(1-alpha))``.

    Parameters
    ----------
    n_components : int, default=1
        ``k``, the dimension kept; ``1 <= k < n_features``.

    learning_rate : float or "auto", default=1.0
        ``eta > 0``. ``"auto"``: Theorem 3's ``ln(1 + sqrt(2D/L))``.

    alpha : float or "auto", default=1e-5
        Fixed-share rate in ``[0, 1)``; ``0`` is the static algorithm.
        ``"auto"``: ``1/(T(n-k)+1)``.

    horizon : int, default=None
        ``T`` for the ``"auto"`` settings. ``None``: ``fit`` uses the number of
        rows; ``partial_fit`` with an ``"auto"`` setting then raises. The
        ``"auto"`` values are resolved once, at the first call; a number set
        with ``set_params`` between calls applies from the next call.

    loss_bound : float, default=None
        ``L`` for ``learning_rate="auto"``: an upper bound on the best
        subspace's loss on any interval; ``None`` means ``T``.

{_SHARED_PARAMS}
    Attributes
    ----------
    alpha_ : float
        The fixed-share rate in use.

{_SHARED_ATTRS}
    See Also
    --------
    RandomizedOnlinePCA : Warmuth & Kuzmin's static, centred and mixing variants.
    OnlineVarianceMinimizer : the ``n - k = 1`` case with general covariances.

    References
    ----------
    Yuan, Lamperski. Online Adaptive Principal Component Analysis and Its
    Extensions. ICML 2019. Warmuth, Kuzmin. Randomized Online PCA Algorithms
    with Regret Bounds that are Logarithmic in the Dimension. JMLR 9, 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import gen_batches
    >>> from skonline.decomposition import AdaptiveOnlinePCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 10)) @ np.diag([1, 1] + [0.05] * 8) / 2
    >>> pca = AdaptiveOnlinePCA(n_components=2, row_norm="clip")
    >>> for batch in gen_batches(len(X), 50):
    ...     pca = pca.partial_fit(X[batch])
    >>> pca.transform(X[:3]).shape
    (3, 2)
    >>> bool(np.abs(pca.components_[:, :2]).sum(axis=1).min() > 0.9)  # the top-2 plane
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseOnlinePCA._parameter_constraints,
        "learning_rate": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "alpha": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "horizon": [Interval(Integral, 1, None, closed="left"), None],
        "loss_bound": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(
        self,
        n_components=1,
        *,
        learning_rate=1.0,
        alpha=1e-5,
        horizon=None,
        loss_bound=None,
        row_norm="none",
        transform_mode="deterministic",
        sampler="decomposition",
        eigenvalue_floor=1e-16,
        keep_history=False,
        solver="auto",
        random_state=None,
    ):
        self.n_components = n_components
        self.learning_rate = learning_rate
        self.alpha = alpha
        self.horizon = horizon
        self.loss_bound = loss_bound
        self.row_norm = row_norm
        self.transform_mode = transform_mode
        self.sampler = sampler
        self.eigenvalue_floor = eigenvalue_floor
        self.keep_history = keep_history
        self.solver = solver
        self.random_state = random_state

    _private_state = (*_BaseOnlinePCA._private_state, "_tuned")

    def _uses_auto(self):
        return self.learning_rate == "auto" or self.alpha == "auto"

    def _validate_extra(self, X, first_call, from_fit):
        unresolved = not from_fit if first_call else self._tuned is None
        if unresolved and self._uses_auto() and self.horizon is None:
            raise ValueError(
                "learning_rate='auto' or alpha='auto' needs the horizon T with "
                "partial_fit; pass horizon=..."
            )

    def _init_extra(self, X):
        self._tuned = None
        if self._uses_auto():  # resolved once, from horizon (fit: the number of rows)
            T = self.horizon if self.horizon is not None else X.shape[0]
            self._tuned = theory_adaptive_parameters(
                X.shape[1], self.n_components_, T, self.loss_bound
            )
        self._refresh_rates()

    def _refresh_rates(self):
        if self._uses_auto() and self._tuned is None:  # "auto" set after the first call
            n = self.n_features_in_
            self._tuned = theory_adaptive_parameters(
                n, self.n_components_, self.horizon, self.loss_bound
            )
        eta, alpha = self.learning_rate, self.alpha
        self.learning_rate_ = float(self._tuned[0] if eta == "auto" else eta)
        self.alpha_ = float(self._tuned[1] if alpha == "auto" else alpha)

    def _share_before_cap(self):
        return self.alpha_


class RandomizedOnlinePCA(_BaseOnlinePCA):
    __doc__ = f"""Randomized online PCA (Warmuth & Kuzmin, Alg. 5 and 6, §8 mixing).

    A capped density matrix ``W`` over the directions to discard;
    a rank-``k`` projection drawn from it (Alg. 2) has expected compression
    loss ``(n-k) xᵀWx``.

    * ``update="incremental"`` (Alg. 5): ``W <- cap_(n-k)(exp(log W - eta x xᵀ)/Tr)``.
    * ``update="cumulative"`` (Alg. 6): ``W = cap_(n-k)(exp(-eta C)/Tr)`` with
      ``C`` the (centred, with ``center=True``) scatter of the rows so far;
      the mean is learned online by eq. (15) and ``C`` by eq. (16).
    * ``mixing`` (§8, incremental only, after capping): ``"uniform"``,
      ``W <- (1-alpha) W + alpha I/n``; ``"past"``, eq. (20),
      ``W <- (1-alpha) W + alpha (sum_(q<t) W^q)/t`` (long-term memory).

    Guarantee (Theorem 6, ``||x_t|| <= 1``, ``W^0 = I/n``; any ``eta > 0``
    and any ``s``)::

        sum_(t<=s) (n-k) x_tᵀW^(t-1)x_t <= (eta L*_s + (n-k) ln(n/(n-k))) / (1 - e^-eta)

    with ``L*_s`` the loss of the best rank-``k`` subspace on the first ``s``
    rows; tuned, the regret is at most ``sqrt(2 L* k ln(n/k)) + k ln(n/k)``.
    Centred (Corollary 9, pairwise distances ``<= 1``, ``||x|| <= R``) adds
    ``R² + ln T``. The eigenvalue floor adds at most about
    ``T (n-k) ln(1/(1-n·floor)) / (1 - e^-eta)``.

    As printed, one row costs one ``n × n`` symmetric eigendecomposition and a
    basis rotation, ``O(n³)`` (two with ``mixing="past"``), and ``O(n²)``
    memory (``solver="dense"``); the default solver is exact too and costs
    ``O(nm + m³)`` time and ``O(nm)`` memory while the rows span ``m < n``
    directions (see ``solver``).
    Corrected errata: the Hedge normaliser of Alg. 3, the capping normaliser,
    Theorem 8's ``eta ~eta^-1`` and the tuned bounds' additive terms outside
    the square root.

    Parameters
    ----------
    n_components : int, default=1
        ``k``, the dimension kept; ``1 <= k < n_features``.

    learning_rate : float or "auto", default=1.0
        ``eta > 0``. ``"auto"``: ``ln(1 + sqrt(2D/L))`` with
        ``L = loss_budget`` and ``D = k ln(n/k)`` (``(n-k) ln(n/(n-k))`` when
        ``k > n/2``).

    loss_budget : float, default=None
        ``L`` for ``"auto"``: an upper bound on the best subspace's total loss.
        The learning rate is read again at every call (``set_params`` between
        calls applies from the next row).

    update : {{"incremental", "cumulative"}}, default="incremental"
        Alg. 5 or Alg. 6 (see above). They coincide while no eigenvalue is capped.

    center : bool, default=False
        Learn the mean (Alg. 6); needs ``update="cumulative"``.

    mean_prior : float, default=0.0
        ``~eta^-1 >= 0``: pseudo-count of ``initial_mean`` in the running
        mean (``inf`` clamps the mean at ``initial_mean``).

    initial_mean : array-like of shape (n_features,), default=None
        ``m^0``; ``None`` means zeros.

    mixing : {{None, "uniform", "past"}}, default=None
        Mixing step for shifting data (incremental update only).

    alpha : float, default=0.0
        Mixing rate in ``[0, 1)``.

{_SHARED_PARAMS}
    record_realized_loss : bool, default=False
        Also sample a projection at every row (one uniform from
        ``random_state``) and accumulate its loss in
        ``cumulative_realized_loss_`` (and ``realized_losses_`` with
        ``keep_history``).

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,)
        The learned mean ``m^t`` (zeros when uncentered).

    cumulative_realized_loss_ : float
        With ``record_realized_loss=True``.

{_SHARED_ATTRS}
    See Also
    --------
    AdaptiveOnlinePCA : fixed share before capping, adaptive regret bounds.

    References
    ----------
    Warmuth, Kuzmin. Randomized Online PCA Algorithms with Regret Bounds that
    are Logarithmic in the Dimension. JMLR 9, 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import gen_batches
    >>> from skonline.decomposition import RandomizedOnlinePCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 10)) @ np.diag([1, 1] + [0.05] * 8) / 2 + 0.1
    >>> pca = RandomizedOnlinePCA(n_components=2, update="cumulative", center=True)
    >>> for batch in gen_batches(len(X), 50):
    ...     pca = pca.partial_fit(X[batch])
    >>> bool(np.allclose(pca.mean_, X.mean(axis=0)))
    True
    >>> pca.transform(X[:3]).shape
    (3, 2)
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseOnlinePCA._parameter_constraints,
        "learning_rate": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "loss_budget": [Interval(Real, 0, None, closed="neither"), None],
        "update": [StrOptions({"incremental", "cumulative"})],
        "center": ["boolean"],
        "mean_prior": [Interval(Real, 0, np.inf, closed="both")],
        "initial_mean": ["array-like", None],
        "mixing": [StrOptions({"uniform", "past"}), None],
        "alpha": [Interval(Real, 0, 1, closed="left")],
        "record_realized_loss": ["boolean"],
    }

    def __init__(
        self,
        n_components=1,
        *,
        learning_rate=1.0,
        loss_budget=None,
        update="incremental",
        center=False,
        mean_prior=0.0,
        initial_mean=None,
        mixing=None,
        alpha=0.0,
        eigenvalue_floor=1e-16,
        transform_mode="deterministic",
        sampler="decomposition",
        record_realized_loss=False,
        keep_history=False,
        row_norm="none",
        solver="auto",
        random_state=None,
    ):
        self.n_components = n_components
        self.learning_rate = learning_rate
        self.loss_budget = loss_budget
        self.update = update
        self.center = center
        self.mean_prior = mean_prior
        self.initial_mean = initial_mean
        self.mixing = mixing
        self.alpha = alpha
        self.eigenvalue_floor = eigenvalue_floor
        self.transform_mode = transform_mode
        self.sampler = sampler
        self.record_realized_loss = record_realized_loss
        self.keep_history = keep_history
        self.row_norm = row_norm
        self.solver = solver
        self.random_state = random_state

    def _update_kind(self):
        return self.update

    def _is_centered(self):
        return bool(self.center)

    def _mixing_kind(self):
        return self.mixing if self.alpha > 0 else None

    def _share_after_cap(self):
        return float(self.alpha) if self.mixing == "uniform" else 0.0

    def _records_realized(self):
        return bool(self.record_realized_loss)

    def _validate_extra(self, X, first_call, from_fit):
        if self.center and self.update != "cumulative":
            raise ValueError(
                "center=True needs update='cumulative' (Algorithm 6); the paper has no "
                "centred incremental update."
            )
        if self.mixing is not None and self.update != "incremental":
            raise ValueError(
                "mixing needs update='incremental': the cumulative update recomputes W from "
                "C at every row, so a mixing step would be forgotten."
            )
        if self.learning_rate == "auto" and self.loss_budget is None:
            raise ValueError("learning_rate='auto' needs loss_budget (an upper bound on L*).")
        if first_call and self.initial_mean is not None:
            m0 = check_array(np.asarray(self.initial_mean).reshape(1, -1), dtype=np.float64)
            if m0.shape[1] != X.shape[1]:
                raise ValueError(
                    f"initial_mean has {m0.shape[1]} entries, X has {X.shape[1]} features."
                )

    def _init_extra(self, X):
        n = X.shape[1]
        if self.initial_mean is None or not self.center:
            self.mean_ = np.zeros(n)
        else:
            self.mean_ = np.asarray(self.initial_mean, dtype=np.float64).reshape(n).copy()
        self._refresh_rates()

    def _refresh_rates(self):
        if self.learning_rate == "auto":
            self.learning_rate_ = theory_static_learning_rate(
                self.n_features_in_, self.n_components_, self.loss_budget
            )
        else:
            self.learning_rate_ = float(self.learning_rate)

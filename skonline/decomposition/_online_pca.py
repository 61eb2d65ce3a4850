"""Online PCA with regret guarantees: AdaptiveOnlinePCA and RandomizedOnlinePCA.

Warmuth & Kuzmin, "Randomized Online PCA Algorithms with Regret Bounds that
are Logarithmic in the Dimension", JMLR 9 (2008): Algorithm 5 (uncentered,
incremental update), Algorithm 6 (cumulative update, optionally learning the
mean) and the §8 mixing updates. Yuan & Lamperski, "Online Adaptive Principal
Component Analysis and Its Extensions", ICML 2019: Algorithm 4 (fixed share
before capping, adaptive regret on every interval).

The estimators validate, hold a :class:`~._online_pca_kernels.DensityState`
and read it out; the per-row update and the density-matrix representation
are in :mod:`._online_pca_kernels`.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_array
from sklearn.utils.extmath import safe_sparse_dot

from ..base import OnlineEstimator, OnlineLossMixin, ParamRecord
from ..utils._random import RANDOM_STATE_OR_GENERATOR, as_generator, own_generator
from ..utils._rows import ROW_NORM_TOL, check_row_norms, dense_row_blocks, prepare_rows
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
from ._capping_kernels import mixture_decomposition, sample_corner
from ._density_kernels import dense_from_eigen, sign_fixed
from ._online_pca_kernels import (
    density_pass,
    eigenvector_columns,
    full_log_eigenvalues,
    init_density_state,
    quadratic_form,
    scatter_along,
    theory_adaptive_parameters,
)

__all__ = ["AdaptiveOnlinePCA", "RandomizedOnlinePCA"]


def _next_power_of_two(t):
    """The smallest power of two above ``t`` (1 for ``t = 0``)."""
    return 1 << int(t).bit_length()


def _epoch_start(t):
    """Rows 0, 1, 2, 4, 8, … start the epochs of the self-tuned "auto" rates."""
    return t == 0 or t & (t - 1) == 0


#: ``n_components=None`` keeps ``min(DEFAULT_N_COMPONENTS, n_features - 1)`` directions.
DEFAULT_N_COMPONENTS = 10


@dataclass(frozen=True)
class OnlinePCAFrozen(ParamRecord):
    """The parameters that shape an online PCA state (every other one is live)."""

    n_components: int | None
    center: bool
    transform_mode: str
    solver: str
    keep_history: bool


@dataclass(frozen=True)
class RandomizedPCAFrozen(OnlinePCAFrozen):
    """:class:`OnlinePCAFrozen` plus the randomized learner's update and mixing."""

    update: str
    initial_mean: object
    mixing: str | None
    record_realized_loss: bool
    random_state: object

    def active(self):
        # the generator of the realized losses is part of the state only when it is drawn
        names = super().active()
        return names if self.record_realized_loss else names[:-1]


@dataclass(frozen=True)
class OnlinePCALive(ParamRecord):
    """The live parameters that online PCA read-outs need, as at the last committed call.

    ``sampler`` and ``random_state`` draw the projection of
    ``transform_mode="sample"`` (:meth:`~_BaseOnlinePCA.sample_projection`);
    ``row_norm`` prepares the rows of :meth:`~_BaseOnlinePCA.expected_loss`.
    """

    sampler: str
    row_norm: str
    random_state: object


class _BaseOnlinePCA(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, OnlineLossMixin, OnlineEstimator
):
    """Shared engine: a capped density matrix updated once per row."""

    _accept_sparse = "csr"

    _parameter_constraints: ClassVar[dict] = {
        "verbose": ["verbose"],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "center": ["boolean"],
        "eigenvalue_floor": [Interval(Real, 0, 1, closed="left")],
        "transform_mode": [StrOptions({"deterministic", "mode", "sample", "average"})],
        "sampler": [StrOptions({"decomposition", "systematic"})],
        "keep_history": ["boolean"],
        "row_norm": [StrOptions({"clip", "none", "error", "scale"})],
        "random_state": RANDOM_STATE_OR_GENERATOR,
        "solver": [StrOptions({"auto", "dense", "bulk", "secular"})],
    }

    @property
    def _constant_memory(self):  # type: ignore[override]  # the history grows with the stream
        return not self.keep_history

    # ----------------------------------------------------- subclass switches
    def _update_kind(self):
        return "incremental"

    def _is_centered(self):
        """Whether the fitted state learned a mean (``center`` as recorded)."""
        return bool(self._fitted_state().frozen.center)

    def _mixing_kind(self):
        return None

    def _records_realized(self):
        return False

    _frozen_record: ClassVar[type[ParamRecord]] = OnlinePCAFrozen
    _live_record: ClassVar[type[ParamRecord]] = OnlinePCALive

    def _resolved_n_components(self, n_features):
        """``n_components``, or ``min(10, n_features - 1)`` for ``None``."""
        if self.n_components is None:
            return max(1, min(DEFAULT_N_COMPONENTS, n_features - 1))
        return int(self.n_components)

    def _bulk_allowed(self):
        return self._mixing_kind() != "past" and self.transform_mode != "average"

    def _resolve_solver(self):
        if self.solver == "dense" or (self.solver == "auto" and not self._bulk_allowed()):
            return "dense"
        return "secular" if self.solver == "secular" else "bulk"

    # ------------------------------------------------------------ validation
    def _check_params(self, n_features):
        k = self._resolved_n_components(n_features)
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
        if self.solver in ("bulk", "secular") and not self._bulk_allowed():
            raise ValueError(
                f"solver={self.solver!r} does not support mixing='past' or "
                "transform_mode='average' (both need dense n x n matrices); use "
                "solver='auto' or 'dense'."
            )

    def _validate_batch(self, X, y, first_call, **fit_params):
        X, y = self._check_training_data(X, y, first_call)
        self._check_params(X.shape[1])
        check_row_norms(X, self.row_norm)
        if self.center and self.row_norm == "error":
            raise ValueError(
                "row_norm='error' checks the raw rows, but center=True feeds the centred "
                "rows; use row_norm='scale' (or 'clip') with centring."
            )
        return X, y, self._validate_extra(X, first_call)

    def _validate_extra(self, X, first_call):
        """Subclass checks that need the batch; returns the keyword arguments of the pass."""
        return {}

    # ----------------------------------------------------------------- state
    def _initial_mean(self, n_features):
        return None

    def _init_state(self, X, y, **kwargs):
        records = self._records_realized()
        return init_density_state(
            X.shape[1],
            n_components=self._resolved_n_components(X.shape[1]),
            bulk=self._resolve_solver() != "dense",
            cumulative=self._update_kind() == "cumulative",
            past_mixing=self._mixing_kind() == "past",
            average=self.transform_mode == "average",
            mean=self._initial_mean(X.shape[1]),
            rng=own_generator(self.random_state) if records else None,
            keep_history=self.keep_history,
        )

    def _pass_params(self, state, n_features, **kwargs):
        """``(kwargs, fields)``: the learner's arguments of :func:`density_pass` and the
        resolved rates to record in the new state."""
        raise NotImplementedError  # pragma: no cover - abstract

    def _retunes(self, horizon):
        """Whether "auto" rates are re-tuned at rows 1, 2, 4, … (a quantity is unknown)."""
        return False

    def _epoch_loss_bound(self, state, T):
        """``L`` for an epoch tuned for ``T`` rows: ``loss_bound``, else the learner's loss rate.

        Before any row: ``T`` (the bound for rows of norm at most 1); then the
        cumulative expected loss so far extrapolated to ``T`` rows, at least 1.
        """
        if self.loss_bound is not None:
            return float(self.loss_bound)
        t = state.n_samples_seen
        if t == 0:
            return float(T)
        return max(1.0, state.cumulative_loss * T / t)

    def _partial_fit_state(self, state, X, y, **kwargs):
        if not self._retunes(kwargs.get("horizon")):
            return self._warn_large_rows(state, self._pass(state, X, **kwargs))
        first, start, n = state, 0, X.shape[0]
        while start < n:  # epochs end at rows 1, 2, 4, 8, …: re-tuned at each start
            t = state.n_samples_seen
            stop = min(n, start + (_next_power_of_two(t) - t))
            state = self._pass(state, X[start:stop], **kwargs)
            start = stop
        return self._warn_large_rows(first, state)

    def _warn_large_rows(self, state, new):
        """Warn once (``row_norm="none"``) when the call fed the first rows of norm above 1."""
        limit = 1.0 + ROW_NORM_TOL
        if self.row_norm == "none" and state.max_fed_norm <= limit < new.max_fed_norm:
            warnings.warn(
                f"{type(self).__name__}: rows of norm up to {new.max_fed_norm:.3g} reached the "
                "update (centred rows with center=True); the regret bounds need norms <= 1 "
                "and a large row makes the multiplicative update erase the learned subspace. "
                "Use row_norm='scale' (the default) or 'clip', or rescale the data.",
                UserWarning,
                stacklevel=7,
            )
        return new

    def _pass(self, state, X, **kwargs):
        frozen = state.frozen
        pass_kwargs, fields = self._pass_params(state, X.shape[1], **kwargs)
        new, _ = density_pass(
            state,
            X,
            n_components=state.n_components,
            solver=frozen.solver,
            eigenvalue_floor=float(self.eigenvalue_floor),
            row_norm=self.row_norm,
            sampler=self.sampler,
            **pass_kwargs,
        )
        return dataclasses.replace(new, **fields)

    # ------------------------------------------------------------ fitting API
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """One online step per row of ``X``, in order.

        Before each row's update its expected compression loss
        ``(n-k) x̃ᵀWx̃`` (``x̃`` the prepared row, centred by the previous mean
        when the mean is learned) is added to ``cumulative_loss_``. The whole
        batch is validated first; if anything fails the estimator is left as
        it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows, in stream order. CSR input is densified a block of rows
            at a time.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        self : object
            The estimator, updated.
        """
        return self._online_partial_fit(X)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Forget everything, then one online pass over the rows of ``X`` in order.

        Row order matters: the learner is online and tracks drift by design.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows, in stream order.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._online_fit(X)

    # ----------------------------------------------------- fitted quantities
    @property
    def n_components_(self):
        """``k``, the dimension kept (fixed at the first call)."""
        return int(self._fitted_state().n_components)

    @property
    def mean_(self):
        """The learned mean ``m^t`` (zeros when uncentred)."""
        return self._fitted_state().mean.copy()

    @property
    def learning_rate_(self):
        """The learning rate of the last pass (``"auto"`` resolved)."""
        return float(self._fitted_state().learning_rate)

    @property
    def max_row_norm_seen_(self):
        """The largest raw row norm seen (before ``row_norm``)."""
        return float(self._fitted_state().max_row_norm)

    def _full_log_w(self):
        return full_log_eigenvalues(self._fitted_state(), self.n_features_in_)

    def _columns(self, idx):
        return eigenvector_columns(self._fitted_state(), idx, self.n_features_in_)

    def _ascending(self):
        return np.argsort(self._full_log_w(), kind="stable")

    @property
    def density_eigenvalues_(self):
        """Eigenvalues of ``W``, ascending."""
        return np.exp(self._full_log_w()[self._ascending()])

    @property
    def density_log_eigenvalues_(self):
        """Their logarithms (no underflow), ascending."""
        return self._full_log_w()[self._ascending()].copy()

    @property
    def density_eigenvectors_(self):
        """Matching eigenvectors (columns).

        Sign-fixed: the largest-magnitude entry of each column is positive.
        """
        return sign_fixed(self._columns(self._ascending()))

    @property
    def density_matrix_(self):
        """``W`` formed densely on demand."""
        order = np.arange(self._full_log_w().shape[0])
        return dense_from_eigen(self._columns(order), np.exp(self._full_log_w()))

    @property
    def expected_projection_(self):
        """``E[P] = I - (n-k) W``."""
        W = self.density_matrix_
        return np.eye(W.shape[0]) - (W.shape[0] - self.n_components_) * W

    @property
    def average_density_(self):
        """``(1/T) sum_{t<T} W^t``.

        The online-to-batch average of the density matrices used on the rows
        seen; kept with ``transform_mode="average"`` (from the first call).
        """
        state = self._fitted_state()
        if state.avg_sum is None:
            raise AttributeError("average_density_ needs transform_mode='average' from the start")
        return state.avg_sum / max(state.n_samples_seen, 1)

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
        """The kept directions.

        The eigenvectors of ``W`` with the ``k`` **smallest** eigenvalues
        (``W`` weights the directions to discard), ascending, sign-fixed;
        ``transform_mode="mode"``: the complement of the most probable corner;
        ``"average"``: the same rule on the averaged density; ``"sample"``:
        the deterministic rule (only :meth:`transform` samples).
        """
        state = self._fitted_state()
        k = self.n_components_
        mode = state.frozen.transform_mode
        if mode == "mode":
            cols = self._columns(self._mode_kept())
        elif mode == "average" and state.avg_sum is not None:
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
        random_state : int, Generator, RandomState or None, default=None
            Source of the uniform draw; ``None`` uses ``random_state`` as
            recorded by the last ``partial_fit``/``fit`` (a generator or
            ``RandomState`` is recorded as a copy, whose draws advance from
            call to call).

        Returns
        -------
        components : ndarray of shape (n_components, n_features)
            Orthonormal rows; the projection is ``components.T @ components``.
        """
        live = self._fitted_state().live
        rng = as_generator(live.random_state if random_state is None else random_state)
        log_w = self._full_log_w()
        n = log_w.shape[0]
        w = np.exp(log_w)
        S = sample_corner(w / w.sum(), n - self.n_components_, rng, sampler=live.sampler)
        kept = np.setdiff1d(np.arange(n), S)
        kept = kept[np.argsort(log_w[kept], kind="stable")]
        return sign_fixed(self._columns(kept)).T

    # -------------------------------------------------------------- read-out
    def _center(self, X):
        if self._is_centered():
            return X - self._fitted_state().mean
        return X

    def expected_loss(self, X, *, prepared=True):
        """Expected compression loss ``(n-k) x̃ᵀWx̃`` of each row; no state change.

        The quantity the regret bounds are about, for a frozen ``W``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.
        prepared : bool, default=True
            ``True``: ``x̃`` is the row as ``partial_fit`` would use it
            (``row_norm`` applied, centred by ``mean_`` when the mean is
            learned). ``False``: the row as given, centred by ``mean_`` (no
            ``row_norm``; before 0.1.0 this, negated, was
            :meth:`score_samples`).

        Returns
        -------
        losses : ndarray of shape (n_samples,)
            The expected loss of each row under the current ``W``.
        """
        X = self._validate_predict(X)
        state = self._fitted_state()
        row_norm = state.live.row_norm
        out = np.empty(X.shape[0])
        d = self.n_features_in_ - self.n_components_
        for start, block in dense_row_blocks(X):
            if not prepared:
                Y = self._center(block)
            else:
                check_row_norms(block, row_norm)
                Y = self._center(prepare_rows(block, row_norm))
                if row_norm == "scale":  # the scale partial_fit would use for the row
                    norms = np.sqrt(np.einsum("ij,ij->i", Y, Y))
                    scale = np.maximum(norms, state.max_fed_norm)
                    Y = Y / np.where(scale > 0, scale, 1.0)[:, None]
            out[start : start + block.shape[0]] = d * quadratic_form(state, Y)
        return out

    def transform(self, X):
        """Project the rows on the kept subspace: ``(X - mean_) @ components_.T``.

        Raw rows (no ``row_norm``), so the map is affine. With
        ``transform_mode="sample"`` one projection is drawn per call
        (:meth:`sample_projection`) and applied to every row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to project.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            Their coordinates, in the floating dtype of ``X`` (computed in
            float64).
        """
        X = self._validate_predict(X)
        sample = self._fitted_state().frozen.transform_mode == "sample"
        C = self.sample_projection() if sample else self.components_
        out = np.asarray(safe_sparse_dot(X, C.T, dense_output=True), dtype=np.float64)
        if self._is_centered():
            out -= self._fitted_state().mean @ C.T
        return out.astype(X.dtype, copy=False)

    def inverse_transform(self, X):
        """Map coordinates back: ``X @ components_ + mean_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)
            Coordinates in the kept subspace.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            The points of the kept (affine) subspace with these coordinates,
            in the floating dtype of ``X``.
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
            out += self._fitted_state().mean
        return out.astype(X.dtype, copy=False)

    # ------------------------------------------------- variance read-outs
    def _variance_denominator(self):
        """Rows seen, minus one when the mean is learned (as IncrementalPCA divides)."""
        t = self._fitted_state().n_samples_seen
        return max(t - 1 if self._is_centered() else t, 1)

    def _variances(self):
        """``(explained, total)``: the variances along ``components_`` and in all directions."""
        state = self._fitted_state()
        denominator = self._variance_denominator()
        explained = scatter_along(state, self.components_.T) / denominator
        return np.maximum(explained, 0.0), max(float(np.trace(state.scatter)), 0.0) / denominator

    @property
    def explained_variance_(self):
        """Variance of the rows seen along each of ``components_``.

        ``vᵀSv / (n_samples_seen_ - 1)`` with ``S`` the scatter of the rows
        seen about their mean (uncentred: ``Σ x xᵀ / n_samples_seen_``), in
        the data's units: the rows before ``row_norm="scale"`` divides them
        (with ``row_norm="clip"``, the clipped rows). All the rows seen weigh
        the same: after a switch the components follow the new regime while
        the variances still average over the old ones.
        """
        return self._variances()[0]

    @property
    def explained_variance_ratio_(self):
        """``explained_variance_`` over the total variance of the rows seen (0 if none)."""
        explained, total = self._variances()
        return explained / total if total > 0 else np.zeros_like(explained)

    @property
    def noise_variance_(self):
        """The variance left per discarded direction: (total − explained) / (n − k).

        The isotropic noise of the probabilistic-PCA model of
        :meth:`score_samples` (Tipping & Bishop, as IncrementalPCA's).
        """
        explained, total = self._variances()
        n = self.n_features_in_
        return max(total - float(explained.sum()), 0.0) / (n - self.n_components_)

    def _ppca_variances(self):
        """The model's variances: along ``components_`` and off them (at least the noise).

        Floored at the smallest positive float so that the likelihood of a
        degenerate stream (a single row, an exactly low-rank one) is defined.
        """
        tiny = np.finfo(np.float64).tiny
        noise = max(self.noise_variance_, tiny)
        return np.maximum(self.explained_variance_, noise), noise

    def get_covariance(self):
        """The probabilistic-PCA covariance ``Vᵀ diag(λ − σ²) V + σ² I``.

        ``V`` = ``components_``, ``λ`` = ``explained_variance_`` (at least
        ``σ²``), ``σ²`` = ``noise_variance_``, as
        :meth:`sklearn.decomposition.PCA.get_covariance`.

        Returns
        -------
        cov : ndarray of shape (n_features, n_features)
            The estimated covariance of the data.
        """
        lam, noise = self._ppca_variances()
        V = self.components_
        cov = (V.T * (lam - noise)) @ V
        cov.flat[:: cov.shape[0] + 1] += noise
        return cov

    def get_precision(self):
        """The inverse of :meth:`get_covariance`, in closed form.

        ``V`` has orthonormal rows, so ``(Vᵀ D V + σ² I)⁻¹ =
        I/σ² − Vᵀ diag(D / (σ² (D + σ²))) V``.

        Returns
        -------
        precision : ndarray of shape (n_features, n_features)
            The estimated precision of the data.
        """
        lam, noise = self._ppca_variances()
        V = self.components_
        precision = -(V.T * ((lam - noise) / (noise * lam))) @ V
        precision.flat[:: precision.shape[0] + 1] += 1.0 / noise
        return precision

    def score_samples(self, X):
        """Log-likelihood of each row under the probabilistic-PCA model.

        Tipping & Bishop's model with ``components_`` as the principal axes,
        ``explained_variance_`` along them and ``noise_variance_`` in every
        other direction, centred at ``mean_`` (:meth:`get_covariance`); the
        score of :meth:`sklearn.decomposition.PCA.score_samples`. Unlike the
        compression loss, it does not always prefer more components, so it
        can choose ``n_components`` (e.g. in ``GridSearchCV``). The expected
        compression loss, the regret bounds' quantity, is
        :meth:`expected_loss`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        log_likelihood : ndarray of shape (n_samples,)
            The log-likelihood of each row; greater is better.
        """
        X = self._validate_predict(X)
        lam, noise = self._ppca_variances()
        V = self.components_
        n = self.n_features_in_
        log_norm = n * np.log(2 * np.pi) + np.log(lam).sum() + (n - lam.size) * np.log(noise)
        out = np.empty(X.shape[0])
        for start, block in dense_row_blocks(X):
            Y = self._center(block)
            Z = Y @ V.T
            rest = np.maximum(np.einsum("ij,ij->i", Y, Y) - np.einsum("ij,ij->i", Z, Z), 0.0)
            quad = (Z * Z) @ (1.0 / lam) + rest / noise
            out[start : start + block.shape[0]] = -0.5 * (quad + log_norm)
        return out

    def score(self, X, y=None):
        """Mean of :meth:`score_samples`: the average probabilistic-PCA log-likelihood.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        score : float
            The average log-likelihood of the rows; greater is better.
        """
        return float(np.mean(self.score_samples(X)))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.non_deterministic = self.transform_mode == "sample" and self.random_state is None
        return tags


class AdaptiveOnlinePCA(_BaseOnlinePCA):
    """Online adaptive PCA: fixed-share matrix Hedge (Yuan & Lamperski, Alg. 4).

    A density matrix ``W`` over the directions to discard is updated once per
    row ``x`` by the matrix exponentiated-gradient step, mixed with the
    uniform density, then capped at ``1/(n-k)`` (eq. 14a-c)::

        V = exp(log W - eta x xᵀ) / Tr(.)
        W <- cap_(n-k)((a/n) I + (1 - a) V)          (a = fixed_share)

    A rank-``k`` projection drawn from ``W`` (Alg. 2) has expected
    compression loss ``(n-k) xᵀWx``. For ``||x_t|| <= 1`` and any interval
    ``[r, s]`` (the proof's sharp form, any ``eta > 0``, ``0 < a < 1``)::

        (1 - e^-eta) A_rs - eta B_rs <= (n-k) [ln(n/a) + (s-r+1) ln(1/(1-a))]

    with ``A_rs`` the expected loss of the learner and ``B_rs`` the loss of
    the best rank-``k`` subspace on ``[r, s]``; tuned (Theorem 3) the
    adaptive regret is at most ``sqrt(2LD) + D``,
    ``D = (n-k) ln(n(1+(n-k)T)) + 1``. With ``fixed_share=0`` this is Warmuth &
    Kuzmin's static online PCA (:class:`RandomizedOnlinePCA`).

    As printed, one row costs one ``n × n`` symmetric eigendecomposition plus
    a basis rotation, ``O(n³)``, and ``O(n²)`` memory (``solver="dense"``).
    The default solver is exact too and costs ``O(nm + m³)`` time and
    ``O(nm)`` memory while the rows span ``m < n`` directions, with an
    ``O(m²)`` secular-equation eigen-update (see ``solver``). Corrected errata: the capping
    normaliser (Alg. 3) and the Hedge normaliser (eq. 4a); the theorem's
    ``T ln(1/(1-a))`` is sharpened to ``(s-r+1) ln(1/(1-a))``.

    Read more in the :ref:`User Guide <online_pca>`.

    Parameters
    ----------
    n_components : int, default=None
        ``k``, the dimension kept; ``1 <= k < n_features``. ``None`` keeps
        ``min(10, n_features - 1)`` directions. Frozen at the first call:
        changing it takes effect at the next ``fit``.

    learning_rate : float or "auto", default="auto"
        ``eta > 0``. ``"auto"``: Theorem 3's ``ln(1 + sqrt(2D/L))`` with
        ``D = (n-k) ln(n(1+(n-k)T)) + 1``, ``T = horizon`` and
        ``L = loss_bound``; when one of them is ``None`` it is re-tuned at
        rows 1, 2, 4, 8, … (the doubling trick): ``T`` twice the rows seen,
        ``L`` the learner's own expected loss so far extrapolated to ``T``
        rows (at least 1). Measured on real and drifting streams it beats
        fixed rates (user guide). Live: a new value acts from the next
        update.

    fixed_share : float or "auto", default="auto"
        Fixed-share rate ``a`` in ``[0, 1)``; ``0`` is the static algorithm.
        ``"auto"``: ``1/(T(n-k)+1)`` (Theorem 3), with ``T`` as above. Live:
        a new value acts from the next update.

    horizon : int, default=None
        ``T`` for the ``"auto"`` settings; ``None``: the doubling trick (so
        ``fit`` equals ``partial_fit`` over any split). With ``horizon`` and
        ``loss_bound`` both given, the ``"auto"`` values are resolved once, at
        the first call (Theorem 3 exactly). Live: a number set with
        ``set_params`` between calls applies from the next call.

    loss_bound : float, default=None
        ``L`` for ``learning_rate="auto"``: an upper bound on the best
        subspace's loss on any interval; ``None``: the learner's own loss
        rate, re-estimated at rows 1, 2, 4, …. Live: a new value acts from
        the next update.

    center : bool, default=True
        Centre each row by the mean of the rows before it (``mean_``), as
        IncrementalPCA centres; the learner then runs on the centred rows and
        the bound above holds for them (against the best subspace through
        the running means). ``transform`` subtracts ``mean_``. Frozen at the
        first call: changing it takes effect at the next ``fit``.

    eigenvalue_floor : float, default=1e-16
        Incremental update: before capping, the normalised eigenvalues are
        floored at this value and renormalised, so every eigenvalue of ``W``
        stays ``>= floor``. A tiny implicit fixed share: it bounds how far a
        direction's log-weight can fall, hence how long the learner needs to
        re-learn it after a switch (the user guide measures the effect). ``0``
        is the exact algorithm; the log-domain state never underflows either
        way. ``1e-16`` is what storing ``W`` densely does by rounding, as the
        papers' implementations did. Must be below ``1/n_features``. Live:
        a new value acts from the next update.

    transform_mode : {"deterministic", "mode", "sample", "average"}, default="deterministic"
        Which projection :meth:`transform` and ``components_`` use:
        ``"deterministic"``, the ``k`` eigenvectors of ``W`` with the smallest
        eigenvalues; ``"mode"``, the complement of the most probable corner of
        the mixture decomposition (Warmuth & Kuzmin Fig. 5); ``"sample"``, a
        projection drawn per :meth:`transform` call from ``random_state``
        (``components_``, :meth:`inverse_transform`, :meth:`score_samples`
        and :meth:`get_covariance` stay on the deterministic eigenvectors:
        a sampled projection is the algorithm's randomized prediction, not
        an estimate of the subspace; :meth:`sample_projection` draws one);
        ``"average"``, the deterministic rule on the average of the density
        matrices of the pass (online-to-batch conversion; keeps an extra
        ``n × n`` sum and costs ``O(n³)`` more per row). Frozen at the first
        call (``"average"`` shapes the learned state): changing it takes
        effect at the next ``fit``.

    sampler : {"decomposition", "systematic"}, default="decomposition"
        How a projection is sampled: a corner of the mixture decomposition
        (Algorithm 2, ``O(n²)``) or systematic sampling (``O(n)``, the same
        inclusion probabilities ``(n-k) w_i`` and expected loss). Live: a new
        value acts from the next update, and on :meth:`transform` and
        :meth:`sample_projection` from the next ``partial_fit``/``fit``.

    keep_history : bool, default=False
        Store the per-row expected losses in ``loss_history_`` (memory grows
        with the stream only when this is on). Frozen at the first call:
        changing it takes effect at the next ``fit``.

    row_norm : {"scale", "none", "clip", "error"}, default="scale"
        The guarantees need ``||x|| <= 1`` for the rows the update sees
        (centred with ``center=True``). ``"scale"`` divides each of them by
        the largest norm seen so far, itself included, so the largest has
        norm 1 (the learner no longer depends on the units of the data;
        measured best in the user guide). ``"none"`` uses them as given and
        warns once when one exceeds norm 1 (a large row makes the
        multiplicative update erase the learned subspace);
        ``"clip"`` rescales raw rows of norm above 1 to norm 1 (the papers'
        data preparation); ``"error"`` raises on a raw row of norm above 1
        (uncentred only). Applied before the update and in
        :meth:`expected_loss`; :meth:`transform` uses the raw rows. Live: a
        new value acts from the next update, and on :meth:`expected_loss`
        from the next ``partial_fit``/``fit``.

    solver : {"auto", "dense", "bulk", "secular"}, default="auto"
        How ``W`` is stored and updated; all four are exact and agree to
        rounding, only the eigenvectors chosen inside tied eigenspaces
        differ. ``"dense"``: ``n`` eigenvectors, one ``n × n``
        eigendecomposition and basis rotation per row, ``O(n³)``.
        ``"bulk"`` (beyond the papers): the directions orthogonal to every row
        seen so far form one eigenspace of ``W``, so ``W`` is held as an
        orthonormal basis of the ``m``-dimensional data span, an ``m × m``
        rotation and one "bulk" eigenvalue of multiplicity ``n - m``; a row
        costs ``O(nm + m³)`` and memory is ``O(nm)``. ``"secular"``: the bulk
        representation with the rank-one eigen-update solved through the
        secular equation (LAPACK ``dlasd4`` roots, Gu-Eisenstat
        eigenvectors; ``O(m²)`` plus one ``n × m × m`` product instead of an
        ``m × m`` ``eigh``). ``"auto"``: the bulk representation, with the
        secular update once the span is large enough for it to be faster,
        unless ``transform_mode="average"``, which needs
        dense matrices (then ``"dense"``). Every solver re-orthonormalises
        its eigenbasis (QR) periodically against the slow drift of products
        of rotations. Frozen at the first call: changing it takes effect at
        the next ``fit``.

    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the random generator used only to sample projections; the
        learned density matrix does not depend on it. Live: recorded by every
        ``partial_fit``/``fit`` (a generator as a copy), and the projections
        of ``transform_mode="sample"`` are drawn from the recorded value.

    verbose : int, default=0
        Progress on ``sys.stderr`` (:ref:`progress`): ``1`` shows a bar with
        the rows per second and the time left during :meth:`fit` in a terminal
        or a notebook, at most ten lines elsewhere; ``2`` adds the mean loss so
        far and one line per :meth:`partial_fit` call. The state learned is
        the same. Live: read by the next call.

    Attributes
    ----------
    fixed_share_ : float
        The fixed-share rate in use (resolved from ``"auto"``).

    n_components_ : int
        ``k``.

    n_samples_seen_ : int
        Rows processed so far.

    learning_rate_ : float
        The learning rate in use (resolved from ``"auto"``).

    cumulative_loss_ : float
        Sum over the rows seen of the expected compression loss
        ``(n-k) x̃ᵀWx̃``, each computed before that row's update.

    loss_history_ : ndarray of shape (n_samples_seen_,)
        The per-row expected losses; only with ``keep_history=True``.

    max_row_norm_seen_ : float
        Largest raw row norm seen (before ``row_norm``).

    components_ : ndarray of shape (n_components, n_features)
        Kept directions: the eigenvectors of ``W`` with the ``k`` smallest
        eigenvalues, in ascending order, sign-fixed (largest entry positive);
        ``transform_mode="mode"``: the complement of the most probable corner;
        ``"average"``: the same rule on the averaged density; ``"sample"``:
        the deterministic rule (only :meth:`transform` samples).

    explained_variance_ : ndarray of shape (n_components,)
        Variance of the rows seen along each of ``components_`` (their scatter
        about the mean over ``n_samples_seen_ - 1``; uncentred, the second
        moment), in the data's units.

    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``explained_variance_`` over the total variance of the rows seen.

    noise_variance_ : float
        The variance left per discarded direction; with
        ``explained_variance_`` it defines the probabilistic-PCA model of
        :meth:`score_samples` and :meth:`get_covariance`.

    density_eigenvalues_ : ndarray of shape (n_features,)
        Eigenvalues of ``W``, ascending (``density_log_eigenvalues_`` holds
        their exact logarithms).

    density_eigenvectors_ : ndarray of shape (n_features, n_features)
        The matching eigenvectors, as columns.

    density_matrix_ : ndarray of shape (n_features, n_features)
        ``W`` formed on demand; ``expected_projection_`` is ``I - (n-k)W``.

    average_density_ : ndarray of shape (n_features, n_features)
        The average of the density matrices used on the rows seen; only with
        ``transform_mode="average"``.

    n_features_in_ : int
        Number of features seen during the first fit.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    RandomizedOnlinePCA : Warmuth & Kuzmin's static, centred and mixing variants.
    OnlineVarianceMinimizer : The ``n - k = 1`` case with general covariances.

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
    >>> X = rng.standard_normal((300, 10)) @ np.diag([10, 10] + [0.5] * 8) + 3
    >>> pca = AdaptiveOnlinePCA(n_components=2)  # centred, scaled rows, self-tuned rates
    >>> for batch in gen_batches(len(X), 50):
    ...     pca = pca.partial_fit(X[batch])
    >>> pca.transform(X[:3]).shape
    (3, 2)
    >>> bool(np.abs(pca.components_[:, :2]).sum(axis=1).min() > 0.9)  # the top-2 plane
    True
    >>> bool(np.allclose(pca.mean_, X.mean(axis=0)))
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseOnlinePCA._parameter_constraints,
        "learning_rate": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "fixed_share": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "horizon": [Interval(Integral, 1, None, closed="left"), None],
        "loss_bound": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(
        self,
        n_components=None,
        *,
        learning_rate="auto",
        fixed_share="auto",
        horizon=None,
        loss_bound=None,
        center=True,
        eigenvalue_floor=1e-16,
        transform_mode="deterministic",
        sampler="decomposition",
        keep_history=False,
        row_norm="scale",
        solver="auto",
        random_state=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.learning_rate = learning_rate
        self.fixed_share = fixed_share
        self.horizon = horizon
        self.loss_bound = loss_bound
        self.center = center
        self.eigenvalue_floor = eigenvalue_floor
        self.transform_mode = transform_mode
        self.sampler = sampler
        self.keep_history = keep_history
        self.row_norm = row_norm
        self.solver = solver
        self.random_state = random_state
        self.verbose = verbose

    def _uses_auto(self):
        return self.learning_rate == "auto" or self.fixed_share == "auto"

    def _validate_extra(self, X, first_call):
        return {"horizon": self.horizon}

    def _retunes(self, horizon):
        needs_loss = self.learning_rate == "auto" and self.loss_bound is None
        return self._uses_auto() and (horizon is None or needs_loss)

    def _pass_params(self, state, n_features, horizon=None, **kwargs):
        tuned = state.tuned
        if self._uses_auto():
            t = state.n_samples_seen
            if self._retunes(horizon) and (tuned is None or _epoch_start(t)):
                # an epoch starts: T is the horizon or twice the rows seen
                T = horizon if horizon is not None else 2 * max(t, 1)
                L = self._epoch_loss_bound(state, T)
                tuned = theory_adaptive_parameters(n_features, state.n_components, T, L)
            elif tuned is None:  # T and L given: resolved once, then kept (Theorem 3)
                tuned = theory_adaptive_parameters(
                    n_features, state.n_components, horizon, self.loss_bound
                )
        eta = tuned[0] if self.learning_rate == "auto" else self.learning_rate
        share = tuned[1] if self.fixed_share == "auto" else self.fixed_share
        pass_kwargs = {
            "learning_rate": float(eta),
            "share_before_cap": float(share),
            "center": state.frozen.center,
        }
        return pass_kwargs, {"tuned": tuned, "fixed_share": float(share)}

    @property
    def fixed_share_(self):
        """The fixed-share rate of the last pass (``"auto"`` resolved)."""
        return float(self._fitted_state().fixed_share)


class RandomizedOnlinePCA(_BaseOnlinePCA):
    """Randomized online PCA (Warmuth & Kuzmin, Alg. 5 and 6, §8 mixing).

    A capped density matrix ``W`` over the directions to discard;
    a rank-``k`` projection drawn from it (Alg. 2) has expected compression
    loss ``(n-k) xᵀWx``.

    * ``update="incremental"`` (Alg. 5): ``W <- cap_(n-k)(exp(log W - eta x xᵀ)/Tr)``.
    * ``update="cumulative"`` (Alg. 6): ``W = cap_(n-k)(exp(-eta C)/Tr)`` with
      ``C`` the (centred, with ``center=True``) scatter of the rows so far;
      the mean is learned online by eq. (15) and ``C`` by eq. (16).
    * ``mixing`` (§8, incremental only, after capping): ``"uniform"``,
      ``W <- (1-a) W + a I/n``; ``"past"``, eq. (20),
      ``W <- (1-a) W + a (sum_(q<t) W^q)/t`` (long-term memory), with
      ``a = mixing_rate``.

    Guarantee (Theorem 6, ``||x_t|| <= 1``, ``W^0 = I/n``; any ``eta > 0``
    and any ``s``)::

        sum_(t<=s) (n-k) x_tᵀW^(t-1)x_t <= (eta L*_s + (n-k) ln(n/(n-k))) / (1 - e^-eta)

    with ``L*_s`` the loss of the best rank-``k`` subspace on the first ``s``
    rows; tuned, the regret is at most ``sqrt(2 L* k ln(n/k)) + k ln(n/k)``.
    Centred (Corollary 9, pairwise distances ``<= 1``, ``||x|| <= R``) adds
    ``R² + ln T``. The eigenvalue floor of the incremental update adds at
    most about ``T (n-k) ln(1/(1-n·floor)) / (1 - e^-eta)``.

    As printed, one row costs one ``n × n`` symmetric eigendecomposition and a
    basis rotation, ``O(n³)`` (two with ``mixing="past"``), and ``O(n²)``
    memory (``solver="dense"``); the default solver is exact too and costs
    ``O(nm + m³)`` time and ``O(nm)`` memory while the rows span ``m < n``
    directions (see ``solver``).
    Corrected errata: the Hedge normaliser of Alg. 3, the capping normaliser,
    Theorem 8's ``eta ~eta^-1`` and the tuned bounds' additive terms outside
    the square root.

    Read more in the :ref:`User Guide <online_pca>`.

    Parameters
    ----------
    n_components : int, default=None
        ``k``, the dimension kept; ``1 <= k < n_features``. ``None`` keeps
        ``min(10, n_features - 1)`` directions. Frozen at the first call:
        changing it takes effect at the next ``fit``.

    learning_rate : float, default=1.0
        ``eta > 0``. The tuned value of Warmuth & Kuzmin's eq. (3),
        ``ln(1 + sqrt(2D/L))`` with ``L`` a bound on the best subspace's loss
        and ``D = k ln(n/k)`` (``(n-k) ln(n/(n-k))`` when ``k > n/2``),
        minimises the static regret bound; measured, it is worse than
        ``1.0`` on drifting streams (user guide), so it is not offered as a
        setting. Live: read again at every call (``set_params`` between
        calls applies from the next row).

    update : {"incremental", "cumulative"}, default="incremental"
        Alg. 5 or Alg. 6 (see above). They coincide while no eigenvalue is
        capped. The cumulative update has no eigenvalue floor. Frozen at the
        first call: changing it takes effect at the next ``fit``.

    center : bool, default=True
        Learn the mean and centre each row by the mean of the rows before it
        (Alg. 6 with the cumulative update; with the incremental one, the
        centred rows are fed to Alg. 5 and its bound holds for them), as
        IncrementalPCA centres; ``transform`` subtracts ``mean_``. Frozen at
        the first call: changing it takes effect at the next ``fit``.

    mean_prior : float, default=0.0
        ``~eta^-1 >= 0``: pseudo-count of ``initial_mean`` in the running
        mean (``inf`` clamps the mean at ``initial_mean``). Live: a new value
        acts from the next update.

    initial_mean : array-like of shape (n_features,), default=None
        ``m^0``; ``None`` means zeros. Used with ``center=True``. Frozen at
        the first call: changing it takes effect at the next ``fit``.

    mixing : {None, "uniform", "past"}, default=None
        Mixing step for shifting data (incremental update only). Frozen at
        the first call: changing it takes effect at the next ``fit``.

    mixing_rate : float, default=0.0
        The mixing rate ``a`` in ``[0, 1)``. Live: a new value acts from the
        next update.

    record_realized_loss : bool, default=False
        Also sample a projection at every row (one uniform from
        ``random_state``) and accumulate its loss in
        ``cumulative_realized_loss_`` (and ``realized_loss_history_`` with
        ``keep_history``). Frozen at the first call, and so is
        ``random_state`` when it is on: changing them takes effect at the
        next ``fit``.

    eigenvalue_floor : float, default=1e-16
        Incremental update: before capping, the normalised eigenvalues are
        floored at this value and renormalised, so every eigenvalue of ``W``
        stays ``>= floor``. A tiny implicit fixed share: it bounds how far a
        direction's log-weight can fall, hence how long the learner needs to
        re-learn it after a switch (the user guide measures the effect). ``0``
        is the exact algorithm; the log-domain state never underflows either
        way. ``1e-16`` is what storing ``W`` densely does by rounding, as the
        papers' implementations did. Must be below ``1/n_features``. Live:
        a new value acts from the next update.

    transform_mode : {"deterministic", "mode", "sample", "average"}, default="deterministic"
        Which projection :meth:`transform` and ``components_`` use:
        ``"deterministic"``, the ``k`` eigenvectors of ``W`` with the smallest
        eigenvalues; ``"mode"``, the complement of the most probable corner of
        the mixture decomposition (Warmuth & Kuzmin Fig. 5); ``"sample"``, a
        projection drawn per :meth:`transform` call from ``random_state``
        (``components_``, :meth:`inverse_transform`, :meth:`score_samples`
        and :meth:`get_covariance` stay on the deterministic eigenvectors:
        a sampled projection is the algorithm's randomized prediction, not
        an estimate of the subspace; :meth:`sample_projection` draws one);
        ``"average"``, the deterministic rule on the average of the density
        matrices of the pass (online-to-batch conversion; keeps an extra
        ``n × n`` sum and costs ``O(n³)`` more per row). Frozen at the first
        call (``"average"`` shapes the learned state): changing it takes
        effect at the next ``fit``.

    sampler : {"decomposition", "systematic"}, default="decomposition"
        How a projection is sampled: a corner of the mixture decomposition
        (Algorithm 2, ``O(n²)``) or systematic sampling (``O(n)``, the same
        inclusion probabilities ``(n-k) w_i`` and expected loss). Live: a new
        value acts from the next update, and on :meth:`transform` and
        :meth:`sample_projection` from the next ``partial_fit``/``fit``.

    keep_history : bool, default=False
        Store the per-row expected losses in ``loss_history_`` (memory grows
        with the stream only when this is on). Frozen at the first call:
        changing it takes effect at the next ``fit``.

    row_norm : {"scale", "none", "clip", "error"}, default="scale"
        The guarantees need ``||x|| <= 1`` for the rows the update sees
        (centred with ``center=True``). ``"scale"`` divides each of them by
        the largest norm seen so far, itself included, so the largest has
        norm 1 (the learner no longer depends on the units of the data;
        measured best in the user guide). ``"none"`` uses them as given and
        warns once when one exceeds norm 1 (a large row makes the
        multiplicative update erase the learned subspace);
        ``"clip"`` rescales raw rows of norm above 1 to norm 1 (the papers'
        data preparation); ``"error"`` raises on a raw row of norm above 1
        (uncentred only). Applied before the update and in
        :meth:`expected_loss`; :meth:`transform` uses the raw rows. Live: a
        new value acts from the next update, and on :meth:`expected_loss`
        from the next ``partial_fit``/``fit``.

    solver : {"auto", "dense", "bulk", "secular"}, default="auto"
        How ``W`` is stored and updated; all four are exact and agree to
        rounding, only the eigenvectors chosen inside tied eigenspaces
        differ. ``"dense"``: ``n`` eigenvectors, one ``n × n``
        eigendecomposition and basis rotation per row, ``O(n³)``.
        ``"bulk"`` (beyond the papers): the directions orthogonal to every row
        seen so far form one eigenspace of ``W``, so ``W`` is held as an
        orthonormal basis of the ``m``-dimensional data span, an ``m × m``
        rotation and one "bulk" eigenvalue of multiplicity ``n - m``; a row
        costs ``O(nm + m³)`` and memory is ``O(nm)``. ``"secular"``: the bulk
        representation with the rank-one eigen-update solved through the
        secular equation (LAPACK ``dlasd4`` roots, Gu-Eisenstat
        eigenvectors; ``O(m²)`` plus one ``n × m × m`` product instead of an
        ``m × m`` ``eigh``). ``"auto"``: the bulk representation, with the
        secular update once the span is large enough for it to be faster,
        unless ``mixing="past"`` or ``transform_mode="average"``, which need
        dense matrices (then ``"dense"``). Every solver re-orthonormalises
        its eigenbasis (QR) periodically against the slow drift of products
        of rotations. Frozen at the first call: changing it takes effect at
        the next ``fit``.

    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the random generator that samples projections; the learned
        density matrix does not depend on it. With
        ``record_realized_loss=True`` it also draws the realized losses and is
        frozen at the first call (changing it takes effect at the next
        ``fit``). Otherwise live: recorded by every ``partial_fit``/``fit`` (a
        generator as a copy), and the projections of
        ``transform_mode="sample"`` are drawn from the recorded value.

    verbose : int, default=0
        Progress on ``sys.stderr`` (:ref:`progress`): ``1`` shows a bar with
        the rows per second and the time left during :meth:`fit` in a terminal
        or a notebook, at most ten lines elsewhere; ``2`` adds the mean loss so
        far and one line per :meth:`partial_fit` call. The state learned is
        the same. Live: read by the next call.

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,)
        The learned mean ``m^t`` (zeros when uncentered).

    cumulative_realized_loss_ : float
        With ``record_realized_loss=True``: the total loss of the sampled
        projections.

    realized_loss_history_ : ndarray of shape (n_samples_seen_,)
        With ``record_realized_loss=True`` and ``keep_history=True``: the
        per-row losses of the sampled projections.

    n_components_ : int
        ``k``.

    n_samples_seen_ : int
        Rows processed so far.

    learning_rate_ : float
        The learning rate in use.

    cumulative_loss_ : float
        Sum over the rows seen of the expected compression loss
        ``(n-k) x̃ᵀWx̃``, each computed before that row's update.

    loss_history_ : ndarray of shape (n_samples_seen_,)
        The per-row expected losses; only with ``keep_history=True``.

    max_row_norm_seen_ : float
        Largest raw row norm seen (before ``row_norm``).

    components_ : ndarray of shape (n_components, n_features)
        Kept directions: the eigenvectors of ``W`` with the ``k`` smallest
        eigenvalues, in ascending order, sign-fixed (largest entry positive);
        ``transform_mode="mode"``: the complement of the most probable corner;
        ``"average"``: the same rule on the averaged density; ``"sample"``:
        the deterministic rule (only :meth:`transform` samples).

    explained_variance_ : ndarray of shape (n_components,)
        Variance of the rows seen along each of ``components_`` (their scatter
        about the mean over ``n_samples_seen_ - 1``; uncentred, the second
        moment), in the data's units.

    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``explained_variance_`` over the total variance of the rows seen.

    noise_variance_ : float
        The variance left per discarded direction; with
        ``explained_variance_`` it defines the probabilistic-PCA model of
        :meth:`score_samples` and :meth:`get_covariance`.

    density_eigenvalues_ : ndarray of shape (n_features,)
        Eigenvalues of ``W``, ascending (``density_log_eigenvalues_`` holds
        their exact logarithms).

    density_eigenvectors_ : ndarray of shape (n_features, n_features)
        The matching eigenvectors, as columns.

    density_matrix_ : ndarray of shape (n_features, n_features)
        ``W`` formed on demand; ``expected_projection_`` is ``I - (n-k)W``.

    average_density_ : ndarray of shape (n_features, n_features)
        The average of the density matrices used on the rows seen; only with
        ``transform_mode="average"``.

    n_features_in_ : int
        Number of features seen during the first fit.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    AdaptiveOnlinePCA : Fixed share before capping, adaptive regret bounds.

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
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "update": [StrOptions({"incremental", "cumulative"})],
        "center": ["boolean"],
        "mean_prior": [Interval(Real, 0, np.inf, closed="both")],
        "initial_mean": ["array-like", None],
        "mixing": [StrOptions({"uniform", "past"}), None],
        "mixing_rate": [Interval(Real, 0, 1, closed="left")],
        "record_realized_loss": ["boolean"],
    }

    def __init__(
        self,
        n_components=None,
        *,
        learning_rate=1.0,
        update="incremental",
        center=True,
        mean_prior=0.0,
        initial_mean=None,
        mixing=None,
        mixing_rate=0.0,
        record_realized_loss=False,
        eigenvalue_floor=1e-16,
        transform_mode="deterministic",
        sampler="decomposition",
        keep_history=False,
        row_norm="scale",
        solver="auto",
        random_state=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.learning_rate = learning_rate
        self.update = update
        self.center = center
        self.mean_prior = mean_prior
        self.initial_mean = initial_mean
        self.mixing = mixing
        self.mixing_rate = mixing_rate
        self.record_realized_loss = record_realized_loss
        self.eigenvalue_floor = eigenvalue_floor
        self.transform_mode = transform_mode
        self.sampler = sampler
        self.keep_history = keep_history
        self.row_norm = row_norm
        self.solver = solver
        self.random_state = random_state
        self.verbose = verbose

    _frozen_record: ClassVar[type[ParamRecord]] = RandomizedPCAFrozen

    def _update_kind(self):
        return self.update

    def _mixing_kind(self):
        return self.mixing

    def _records_realized(self):
        return bool(self.record_realized_loss)

    def _validate_extra(self, X, first_call):
        if self.mixing is not None and self.update != "incremental":
            raise ValueError(
                "mixing needs update='incremental': the cumulative update recomputes W from "
                "C at every row, so a mixing step would be forgotten."
            )
        if first_call and self.initial_mean is not None:
            m0 = check_array(np.asarray(self.initial_mean).reshape(1, -1), dtype=np.float64)
            if m0.shape[1] != X.shape[1]:
                raise ValueError(
                    f"initial_mean has {m0.shape[1]} entries, X has {X.shape[1]} features."
                )
        return {}

    def _initial_mean(self, n_features):
        if self.initial_mean is None or not self.center:
            return None
        return np.asarray(self.initial_mean, dtype=np.float64).reshape(n_features)

    def _pass_params(self, state, n_features, **kwargs):
        frozen = state.frozen
        eta = float(self.learning_rate)
        mixing, rate = frozen.mixing, float(self.mixing_rate)
        pass_kwargs = {
            "learning_rate": eta,
            "update": frozen.update,
            "center": frozen.center,
            "mean_prior": float(self.mean_prior),
            "share_after_cap": rate if mixing == "uniform" else 0.0,
            "past_mixing_rate": rate if mixing == "past" else 0.0,
        }
        return pass_kwargs, {}

    @property
    def cumulative_realized_loss_(self):
        """Total loss of the sampled projections (``record_realized_loss``)."""
        state = self._fitted_state()
        if state.rng is None:
            raise AttributeError(
                "cumulative_realized_loss_ is recorded only with record_realized_loss=True"
            )
        return float(state.cumulative_realized_loss)

    @property
    def realized_loss_history_(self):
        """Per-row losses of the sampled projections."""
        history = self._fitted_state().realized_loss_history
        if history is None:
            raise AttributeError(
                "realized_loss_history_ needs record_realized_loss=True and keep_history=True"
            )
        return history.copy()

"""Frequent Directions and Robust Frequent Directions matrix sketches.

Luo, Chen, Zhang, Li & Zhang, "Robust Frequent Directions with Application in
Online Learning", JMLR 20 (2019): Algorithms 1, 2 (one SVD per row), 4, 5
(doubling buffer) and 8 (greedy truncation); Liberty (2013) for FD; Desai,
Ghashami & Phillips (2016) for the PFD and CFD variants; Ghashami, Liberty &
Phillips (2016) for the randomized sparse blocks.

The estimators are drop-in replacements of scikit-learn's
:class:`~sklearn.decomposition.IncrementalPCA`: centred by default (the
streamed rows are Welford rows, so the sketch approximates the centred
scatter with FD's guarantee), with its attributes (``mean_``,
``explained_variance_``, ...) and its probabilistic-PCA ``get_covariance``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin, clone
from sklearn.utils import check_array
from sklearn.utils.extmath import safe_sparse_dot

from ..base import MAX_ABS_VALUE, OnlineEstimator, ParamRecord
from ..evaluation._sketch_metrics import spectral_norm_of_difference
from ..utils._random import RANDOM_STATE_OR_GENERATOR, own_generator
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
from ..utils._validation import validate_data
from ..utils._validation_fast import value_range
from ._frequent_directions_kernels import (
    SketchState,
    error_along_components,
    merge_states,
    sketch_pass,
    sketch_solve,
)

__all__ = ["FrequentDirections", "RobustFrequentDirections"]

_DENSE_WARN_FEATURES = 20000
#: Largest squared Frobenius norm of sketch plus batch (Gram entries stay finite).
_MAX_SQUARED_NORM = 1e300
#: ``sketch_size="auto"``: ``sketch_size = AUTO_FACTOR · n_components + AUTO_EXTRA``
#: (capped at ``n_features + 1``, where the sketch is exact); chosen by
#: measurement (user guide, "Choosing the sketch size").
AUTO_FACTOR = 2
AUTO_EXTRA = 8
#: ``sketch_size="auto"`` without ``n_components``.
AUTO_DEFAULT_SKETCH = 20


def auto_sketch_size(n_components, n_features):
    """The sketch size ``sketch_size="auto"`` picks for ``n_components`` output directions.

    ``2 · n_components + 8``, at most ``n_features + 1`` (a sketch that large
    is exact); ``20`` when ``n_components`` is None. Measured in the user
    guide: with it, the rank-``k`` projection error of
    :class:`RobustFrequentDirections` is within a few percent of
    :class:`~sklearn.decomposition.IncrementalPCA`'s on scikit-learn's
    bundled data sets.

    Parameters
    ----------
    n_components : int or None
        The output dimension ``k``.
    n_features : int
        The number of features.

    Returns
    -------
    sketch_size : int
        The sketch size ``m`` (at least 2).
    """
    if n_components is None:
        size = AUTO_DEFAULT_SKETCH
    else:
        size = AUTO_FACTOR * int(n_components) + AUTO_EXTRA
    return int(max(2, min(size, int(n_features) + 1)))


@dataclass(frozen=True)
class SketchFrozen(ParamRecord):
    """The parameters that shape a sketch (every other one is live)."""

    sketch_size: int | str
    buffer: int | str | None
    compaction: str
    center: bool
    sparse_solver: str
    random_state: object

    def active(self):
        # the generator of the randomized blocks is part of the state only for that solver
        # (and for "auto", which may resolve to it)
        names = self.names()
        return (
            names
            if self.sparse_solver != "exact"
            else tuple(name for name in names if name != "random_state")
        )


@dataclass(frozen=True)
class FDFrozen(SketchFrozen):
    """:class:`SketchFrozen` plus Frequent Directions' shrinkage variant."""

    variant: str
    beta: float


@dataclass(frozen=True)
class RFDFrozen(SketchFrozen):
    """:class:`SketchFrozen` plus Robust Frequent Directions' initial ridge.

    RFD's sketch is FD's (``variant`` is always ``"fd"``, ``beta`` unused).
    """

    alpha0: float
    variant: ClassVar[str] = "fd"
    beta: ClassVar[float] = 0.2


@dataclass(frozen=True)
class SketchLive(ParamRecord):
    """The live parameters the read-outs use, as they were at the last committed call."""

    n_components: int | None
    whiten: bool


class _BaseFrequentDirections(ClassNamePrefixFeaturesOutMixin, TransformerMixin, OnlineEstimator):
    """Shared engine of :class:`FrequentDirections` and :class:`RobustFrequentDirections`."""

    _accept_sparse = "csr"
    _state: SketchState

    _parameter_constraints: ClassVar[dict] = {
        "verbose": ["verbose"],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "sketch_size": [Interval(Integral, 2, None, closed="left"), StrOptions({"auto"})],
        "center": ["boolean"],
        "whiten": ["boolean"],
        "buffer": [StrOptions({"double", "single"})],
        "skip_zero_rows": ["boolean"],
        "compaction": [StrOptions({"gram", "svd"})],
        "sparse_solver": [StrOptions({"auto", "exact", "randomized"})],
        "random_state": RANDOM_STATE_OR_GENERATOR,
    }

    def _is_robust(self):
        return False

    _frozen_record: ClassVar[type[ParamRecord]] = SketchFrozen
    _live_record: ClassVar[type[ParamRecord]] = SketchLive

    # ---------------------------------------------------------------- fitting
    def _resolved_sketch_size(self, n_features):
        if self.sketch_size == "auto":
            return auto_sketch_size(self.n_components, n_features)
        return int(self.sketch_size)

    def _sketch_size(self):
        """The sketch size in use (fixed at the first call)."""
        if self._is_initialized():
            return int(self._state.sketch_size)
        return None

    def _capacity(self, m):
        return 2 * m if self.buffer == "double" else m

    def _validate_batch(self, X, y, first_call):
        fast = None if first_call else self._fast_batch(X)
        if fast is not None:
            X = fast
        else:
            X = validate_data(
                self,
                X,
                reset=first_call,
                accept_sparse=self._accept_sparse,
                dtype=[np.float64, np.float32],
                ensure_min_samples=1,
                ensure_all_finite=False,  # one pass below checks finiteness and magnitude
            )
        largest = _check_finite_magnitude(X)
        d = X.shape[1]
        m = self._resolved_sketch_size(d) if first_call else int(self._state.sketch_size)
        if self.n_components is not None:
            limit = min(m - 1, d)
            if self.n_components > limit:
                raise ValueError(
                    f"n_components={self.n_components} must be at most min(sketch_size - 1, "
                    f"n_features) = {limit}: a compacted sketch keeps sketch_size - 1 "
                    f"directions (sketch_size={m}) and X has {d} features."
                )
        # The sketch holds squared norms of up to the whole stream: refuse a batch
        # that would push ‖B‖_F² + ‖X‖_F² out of float64's range.
        n_values = X.nnz if sp.issparse(X) else X.shape[0] * d
        batch_sq = n_values * largest * largest
        if batch_sq > _MAX_SQUARED_NORM / 2:  # the cheap bound fails: compute it
            data = X.data if sp.issparse(X) else X
            batch_sq = float(np.sum(np.square(data, dtype=np.float64)))
        sketch_sq = 0.0
        if not first_call:
            state = self._state
            pending_sq = state.pending.squares if state.pending is not None else 0.0
            streamed = float(np.sum(state.m2)) + pending_sq  # ‖A‖_F² of the rows streamed so far
            # ‖B‖_F² <= ‖A‖_F² (compactions only shrink): the cheap bound, 4x wide for
            # rounding, spares the O(capacity · d) pass over the buffer at every call
            sketch_sq = 5.0 * streamed
            if not batch_sq + sketch_sq <= _MAX_SQUARED_NORM:
                sketch_sq = streamed + float(np.sum(np.square(state.buffer[: state.n_rows])))
        if not batch_sq + sketch_sq <= _MAX_SQUARED_NORM:
            raise ValueError(
                "X is too large in magnitude for the sketch: its squared Frobenius norm "
                f"({batch_sq:.3g}) plus the sketch's ({sketch_sq:.3g}) exceeds "
                f"{_MAX_SQUARED_NORM:.0e}. Rescale the input."
            )
        return X, y, {}

    def _resolved_sparse_solver(self, X):
        """The solver of CSR rows: ``"auto"`` is ``"randomized"`` when the first batch is CSR."""
        if self.sparse_solver == "auto":
            return "randomized" if sp.issparse(X) else "exact"
        return self.sparse_solver

    def _csr_as_dense_params(self):
        """Parameters under which CSR rows take the dense route (the online checks)."""
        return {"sparse_solver": "exact"} if self.sparse_solver == "auto" else {}

    def _init_state(self, X, y):
        d = X.shape[1]
        m = self._resolved_sketch_size(d)
        capacity = self._capacity(m)
        solver = self._resolved_sparse_solver(X)
        randomized = solver == "randomized"
        return SketchState(
            buffer=np.zeros((capacity, d), dtype=np.float64),
            squares=np.zeros(capacity),
            sketch_size=m,
            mean=np.zeros(d),
            m2=np.zeros(d),
            alpha=float(self.alpha0) if self._is_robust() else 0.0,
            rng=own_generator(self.random_state) if randomized else None,
            sparse_solver=solver,
        )

    def _pass_kwargs(self, state):
        """The shrink rule and centring of ``state``'s sketch (its frozen record)."""
        frozen = state.frozen
        return {
            "variant": frozen.variant,
            "beta": frozen.beta,
            "robust": self._is_robust(),
            "center": bool(frozen.center),
        }

    def _fitted_state(self):
        """The committed state as every read-out sees it: its pending CSR rows settled.

        With the randomized sparse solver the rows of the open block wait in
        the state for the rest of their block (:class:`PendingRows`); the
        read-outs use the state with that block compressed as the last one
        (computed once, cached on the committed state, which is not changed).
        """
        state = super()._fitted_state()
        return state.settled(**self._pass_kwargs(state))

    def _partial_fit_state(self, state, X, y):
        return sketch_pass(
            state,
            X,
            method=state.frozen.compaction,
            skip_zero_rows=self.skip_zero_rows,
            sparse_solver=state.sparse_solver,
            **self._pass_kwargs(state),
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Stream the rows of ``X`` into the sketch (one ordered pass).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to add. CSR input is never densified as a whole: at most a
            buffer's worth of rows (``2 · sketch_size``) is materialised.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The estimator, with the rows of ``X`` in its sketch.
        """
        return self._online_partial_fit(X)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Forget the current sketch and build one from ``X``.

        Equivalent to a fresh estimator's ``partial_fit(X)``, and bit for bit
        to ``partial_fit`` over any split of dense ``X`` into consecutive
        batches.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to sketch, in stream order.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The estimator, sketching the rows of ``X`` only.
        """
        return self._online_fit(X)

    # ------------------------------------------------------------------ merge
    def merge(self, other):
        """The sketch of both streams: a new estimator (mergeable summaries).

        Neither ``self`` nor ``other`` is modified. The rows of ``other``'s
        sketch (and, for centred sketches, the exact mean-correction row
        ``sqrt(n₁n₂/(n₁+n₂))(μ₁ − μ₂)``) are streamed into a copy of this one.
        The result sketches the concatenation of both streams with the same
        guarantee as a single pass: shrinkages add up
        (``shrinkage_ = Δ₁ + Δ₂ + Δ_merge``) and
        ``‖SᵀS − BᵀB‖₂ ≤ shrinkage_ ≤ ‖A − A_k‖_F² / (sketch_size − k)`` for the
        concatenated (centred) ``A``; for RFD ``alpha_ = alpha0 + shrinkage_ /
        2``. ``a + b`` is ``a.merge(b)``.

        Parameters
        ----------
        other : FrequentDirections or RobustFrequentDirections
            A fitted sketch of the same class with the same ``sketch_size``,
            variant, ``buffer``, ``center`` and features.

        Returns
        -------
        merged : object
            A new fitted estimator with this one's parameters.
        """
        self._check_mergeable(other)
        merged = clone(self)
        for name in ("n_features_in_", "feature_names_in_"):
            if name in self.__dict__:
                setattr(merged, name, self.__dict__[name])
        first, second = self._fitted_state(), other._fitted_state()  # open blocks settled
        merged._commit(merge_states(first, second, **self._pass_kwargs(first)))
        return merged

    def __add__(self, other):
        if not isinstance(other, _BaseFrequentDirections):
            return NotImplemented
        return self.merge(other)

    def _check_mergeable(self, other):
        self._check_fitted()
        if type(other) is not type(self):
            raise TypeError(f"cannot merge a {type(other).__name__} into a {type(self).__name__}")
        other._check_fitted()
        for est in (self, other):
            est._check_frozen(est._state)
        mine, theirs = self._state.frozen, other._state.frozen
        for key in mine.active():
            a, b = getattr(mine, key), getattr(theirs, key)
            if key not in ("compaction", "random_state") and not _same(a, b):
                raise ValueError(f"cannot merge sketches with different {key}: {a!r} and {b!r}")
        if self._state.sketch_size != other._state.sketch_size:
            raise ValueError(
                "cannot merge sketches with different sketch_size: "
                f"{self._state.sketch_size} and {other._state.sketch_size}"
            )
        if other.n_features_in_ != self.n_features_in_:
            raise ValueError(
                f"cannot merge sketches of {self.n_features_in_} and "
                f"{other.n_features_in_} features"
            )
        names = getattr(self, "feature_names_in_", None)
        other_names = getattr(other, "feature_names_in_", None)
        if names is None or other_names is None:
            same_names = names is None and other_names is None
        else:
            same_names = np.array_equal(names, other_names)
        if not same_names:
            raise ValueError("cannot merge sketches fitted on different feature names")

    # ----------------------------------------------------- derived attributes
    @property
    def sketch_(self):
        """The current sketch ``B``, an array of shape (n_rows, n_features).

        Between ``sketch_size - 1`` and ``2 · sketch_size - 1`` rows once the
        first compaction has happened (Alg. 4/5 keep the uncompacted rows).
        Its rows are Welford rows when centred: ``BᵀB`` approximates the
        centred scatter. A copy: later updates do not change it.
        """
        state = self._fitted_state()
        return state.buffer[: state.n_rows].copy()

    @property
    def sketch_size_(self):
        """The sketch size ``m`` in use (``"auto"`` resolved at the first call)."""
        return int(self._fitted_state().sketch_size)

    @property
    def sparse_solver_(self):
        """The solver of CSR rows in use (``"auto"`` resolved at the first call)."""
        return str(self._fitted_state().sparse_solver)

    @property
    def n_compactions_(self):
        """Number of compactions (SVD/shrink steps) so far."""
        return int(self._fitted_state().n_compactions)

    @property
    def shrinkage_(self):
        """``Δ``, the sum over compactions of the subtracted ``σ_m²``."""
        return float(self._fitted_state().shrinkage)

    @property
    def alpha_(self):
        """The ridge term ``α`` of the estimate ``BᵀB + αI`` (0 for FD)."""
        return float(self._fitted_state().alpha)

    @property
    def mean_(self):
        """Per-feature mean of the rows seen; zeros with ``center=False``."""
        return self._fitted_state().mean.copy()

    @property
    def var_(self):
        """Per-feature variance of the rows seen (about ``mean_``), exact.

        ``Σ (x − mean_)² / n_samples_seen_`` (the second moment with
        ``center=False``), as IncrementalPCA's ``var_``.
        """
        state = self._fitted_state()
        return state.m2 / max(state.n_samples_seen, 1)

    @property
    def n_components_(self):
        """Number of components returned by :meth:`transform`."""
        state = self._fitted_state()
        limit = min(int(state.sketch_size) - 1, self.n_features_in_)
        n_components = state.live.n_components
        if n_components is not None:
            if n_components > limit:  # set_params then merge: never validated
                raise ValueError(
                    f"n_components={n_components} exceeds min(sketch_size - 1, "
                    f"n_features) = {limit}."
                )
            return int(n_components)
        return int(limit)

    @property
    def _n_features_out(self):
        return self.n_components_

    def _svd(self):
        """Sign-fixed thin SVD of the sketch rows: ``(s, Vt)``, cached on the state."""
        return self._fitted_state().svd()

    def _eigen_extra(self, squares):
        """What the estimator adds to ``σ_i²`` in its eigenvalue estimates.

        The estimated error of the sketch along each direction, in ``[0, Δ]``
        (:func:`error_along_components`).
        """
        state = self._fitted_state()
        s, Vt = self._svd()
        return error_along_components(
            s, Vt, state.m2, state.shrinkage, squares.shape[0], state.residual
        )

    def _components(self):
        """``(components, explained_variance)`` of the top ``n_components_`` directions.

        Read-only arrays, computed once per state and ``n_components_`` (a
        pipeline's ``transform`` at every batch does not rebuild the
        ``n_components_ x n_features`` array; on hashed rows it is 10^6 wide).
        """
        key = (type(self).__name__, "components", self.n_components_)
        return self._fitted_state().readout(key, self._computed_components)

    def _computed_components(self):
        s, Vt = self._svd()
        k, d = self.n_components_, self.n_features_in_
        kk = min(k, Vt.shape[0])
        components = np.zeros((k, d))
        components[:kk] = Vt[:kk]
        squares = np.zeros(k)
        squares[:kk] = s[:kk] ** 2
        squares = squares + self._eigen_extra(squares)
        denominator = max(self._fitted_state().n_samples_seen - 1, 1)
        return components, squares / denominator

    @property
    def components_(self):
        """Top right singular vectors of ``B``, an array of shape (n_components_, n_features).

        The principal axes (of the centred data by default), sign-fixed
        (``svd_flip``). Computed from the sketch's SVD
        (``O(sketch_size² · n_features)``, once per update: cached on the
        state, as every read-out uses it). Rows beyond the sketch's rank (only
        before ``n_components_`` rows have been seen) are zero.
        """
        return self._components()[0].copy()

    @property
    def explained_variance_(self):
        """Variance along each component, an array of shape (n_components_,).

        The sketch's estimate of the top eigenvalues of the (centred) scatter,
        divided by ``n_samples_seen_ - 1`` as in IncrementalPCA:
        ``σ_i(B)² + e_i`` with ``e_i`` the estimated error of the sketch along
        the component: what the compactions subtracted (a direction that
        stays in the sketch loses all of it) for a component standing far
        above the churn at the bottom of the sketch, the exact per-feature
        residual variance along it otherwise, whichever is larger
        (``error_along_components`` in the kernels).
        The same for FD and RFD (the same ``B``); ``σ_i(B)² + shrinkage_``
        for CFD, ``σ_i(B)²`` for PFD and iSVD.

        Error bound: the exact eigenvalue and the estimate both lie in
        ``[σ_i², σ_i² + shrinkage_]``, so they differ by at most
        ``shrinkage_ / (n_samples_seen_ - 1)``. Measured (user guide,
        ``benchmarks/bench_sketches.py --sections variance``): the sum over
        the components (``explained_variance_ratio_.sum()``) within 20 % of
        the variance along them on flat, decaying, low-rank, one-hot, digits
        and TF-IDF data (dense and CSR), k = 2 to 30; single components too,
        except those of a rotated decaying spectrum near the sketch's cut at
        k ≥ 10, which can be 2-3× too low. ``whiten=True`` divides by them.
        """
        return self._components()[1].copy()

    def _total_variance(self):
        state = self._fitted_state()
        return float(np.sum(state.m2)) / max(state.n_samples_seen - 1, 1)

    @property
    def explained_variance_ratio_(self):
        """``explained_variance_`` over the exact total variance (tracked exactly)."""
        total = self._total_variance()
        ev = self.explained_variance_
        return ev / total if total > 0 else np.zeros_like(ev)

    @property
    def singular_values_(self):
        """``sqrt(explained_variance_ · (n_samples_seen_ - 1))``, shape (n_components_,).

        The estimated singular values of the (centred) data matrix.
        """
        denominator = max(self._fitted_state().n_samples_seen - 1, 1)
        return np.sqrt(self.explained_variance_ * denominator)

    @property
    def noise_variance_(self):
        """The probabilistic-PCA noise variance: the mean variance outside the components.

        ``(total variance − Σ explained_variance_) / (n_features − n_components_)``
        with the exact total variance (0 when every feature is a component).
        """
        k, d = self.n_components_, self.n_features_in_
        if k >= d:
            return 0.0
        rest = self._total_variance() - float(np.sum(self.explained_variance_))
        return max(rest, 0.0) / (d - k)

    # ------------------------------------------------------------ transforms
    def _mean_for(self, dtype):
        return self._fitted_state().mean.astype(dtype, copy=False)

    def transform(self, X):
        """Project ``X`` on the top ``n_components_`` sketched directions.

        ``(X - mean_) @ components_.T``, divided by ``sqrt(explained_variance_)``
        with ``whiten=True``, as IncrementalPCA.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to project.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components_)
            The coordinates, in the floating dtype of ``X``.
        """
        X = self._validate_predict(X)
        components, ev = self._components()
        C = components.astype(X.dtype, copy=False)
        out = np.asarray(safe_sparse_dot(X, C.T, dense_output=True))
        out -= self._mean_for(X.dtype) @ C.T
        if self._fitted_state().live.whiten:
            out /= np.maximum(np.sqrt(ev), np.finfo(X.dtype).eps).astype(X.dtype)
        return out

    def inverse_transform(self, X):
        """Map projected data back to feature space.

        ``X @ components_ + mean_`` (``X`` multiplied by
        ``sqrt(explained_variance_)`` first with ``whiten=True``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components_)
            Projected data, as returned by :meth:`transform`.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            The projected rows in feature space (their part outside the
            components is lost).
        """
        self._check_fitted()
        X = check_array(X, dtype=[np.float64, np.float32])
        if X.shape[1] != self.n_components_:
            raise ValueError(
                f"X has {X.shape[1]} features, but inverse_transform expects "
                f"n_components_={self.n_components_}."
            )
        components, ev = self._components()
        if self._fitted_state().live.whiten:
            components = np.sqrt(ev)[:, None] * components
        return X @ components.astype(X.dtype, copy=False) + self._mean_for(X.dtype)

    def _reconstruction_residuals(self, X):
        """``‖x − inverse_transform(transform(x))‖²`` per CSR row, never densified (else ``None``).

        What :func:`skonline.evaluation.reconstruction_error` and
        :func:`~skonline.evaluation.prequential_score` read for sparse rows:
        with ``x̃ = x − mean_`` and the orthonormal rows ``C`` of
        ``components_``, ``‖x̃‖² − ‖C x̃‖²`` costs ``O(nnz · k + d · k)``
        where the reconstruction costs ``O(n · d)`` (hashed text: 2^18
        columns a row). Rounding: ``O(d · eps · (‖x‖ + ‖mean_‖)²)`` absolute.
        ``None`` (the caller reconstructs) for dense rows and with
        ``whiten=True``.
        """
        state = self._fitted_state()
        if not sp.issparse(X) or state.live.whiten:
            return None
        X = self._validate_predict(X).astype(np.float64, copy=False)
        mean = state.mean
        squares = np.asarray(X.multiply(X).sum(axis=1)).ravel()
        norms = squares - 2.0 * (X @ mean) + float(mean @ mean)
        Z = self.transform(X)  # C x̃, in float64 (whiten is off)
        return np.maximum(norms - np.einsum("ij,ij->i", Z, Z), 0.0)

    # ------------------------------------------------- covariance and solves
    def get_covariance(self):
        """Data covariance from the probabilistic-PCA model, as IncrementalPCA's.

        ``components_ᵀ diag(explained_variance_ − noise_variance_) components_
        + noise_variance_ · I`` (negative differences clipped at 0), whatever
        ``whiten``. The sketch's own full estimate of the scatter is
        :meth:`covariance_operator`.

        Returns
        -------
        cov : ndarray of shape (n_features, n_features)
            Estimated covariance of the data. Uses ``O(n_features²)`` memory (a
            warning is issued above 20000 features).
        """
        self._warn_dense()
        components, ev = self._components()
        noise = self.noise_variance_
        diff = np.where(ev > noise, ev - noise, 0.0)
        cov = (components.T * diff) @ components
        cov[np.diag_indices_from(cov)] += noise
        return cov

    def get_precision(self):
        """Inverse of :meth:`get_covariance`, by the matrix inversion lemma.

        Returns
        -------
        precision : ndarray of shape (n_features, n_features)
            Estimated precision of the data.
        """
        self._warn_dense()
        components, ev = self._components()
        noise = self.noise_variance_
        d = self.n_features_in_
        if noise == 0.0:
            return sla.pinvh(self.get_covariance())
        diff = np.where(ev > noise, ev - noise, 0.0)
        inner = components @ components.T / noise
        with np.errstate(divide="ignore"):
            inner[np.diag_indices_from(inner)] += np.where(diff > 0, 1.0 / diff, np.inf)
        keep = np.isfinite(np.diag(inner))
        C = components[keep]
        precision = -(C.T @ np.linalg.inv(inner[np.ix_(keep, keep)]) @ C) / noise**2
        precision[np.diag_indices(d)] += 1.0 / noise
        return precision

    def _warn_dense(self):
        if self.n_features_in_ > _DENSE_WARN_FEATURES:
            warnings.warn(
                f"forming a dense {self.n_features_in_} x {self.n_features_in_} matrix; "
                "covariance_operator() and solve() never do.",
                UserWarning,
                stacklevel=3,
            )

    def _effective_sketch(self):
        """``(B, alpha)`` such that the scatter estimate is ``BᵀB + αI``."""
        state = self._fitted_state()
        B = state.buffer[: state.n_rows]
        if state.frozen.variant == "cfd" and B.shape[0]:
            # CFD: raise the retained directions by the total shrinkage Delta.
            s, Vt = self._svd()
            keep = s > np.finfo(np.float64).eps * max(s[0], 0.0) * max(B.shape)
            B = np.sqrt(s[keep] ** 2 + state.shrinkage)[:, None] * Vt[keep]
        return B, state.alpha

    def covariance_operator(self):
        """The sketched scatter matrix ``BᵀB + αI`` as a linear operator.

        The sketch's estimate of the centred scatter ``(A − 1μᵀ)ᵀ(A − 1μᵀ)``
        (of ``AᵀA`` with ``center=False``), not divided by the number of rows.
        Never forms a ``d × d`` matrix: a product costs ``O(r · d)`` for ``r``
        sketch rows.

        Returns
        -------
        operator : scipy.sparse.linalg.LinearOperator of shape (n_features, n_features)
            Applies ``BᵀB + αI`` (CFD's compensated estimate for
            ``variant="cfd"``) to a vector or a matrix.
        """
        B, alpha = self._effective_sketch()
        d = self.n_features_in_

        def matvec(v):
            return B.T @ (B @ v) + alpha * v

        return LinearOperator((d, d), matvec=matvec, matmat=matvec, dtype=np.float64)

    def solve(self, V, *, rtol=1e-12):
        """Apply the inverse of the sketched scatter: ``(BᵀB + αI)⁻¹ V``.

        In the sketch's eigenbasis when ``alpha_ > 0`` (the Woodbury identity
        rearranged to lose ``κ·eps``, not ``κ²·eps``; ``O(r² d)`` for ``r``
        sketch rows, never ``d × d``); the Moore–Penrose pseudo-inverse when the
        sketch is singular (FD, or RFD before its first shrinkage).

        Parameters
        ----------
        V : array-like of shape (n_features,) or (n_features, k)
            Right-hand side(s).
        rtol : float, default=1e-12
            ``alpha_`` below ``rtol · λ_max(BBᵀ)`` counts as zero.

        Returns
        -------
        Z : ndarray of the same shape as ``V``
            ``(BᵀB + αI)⁻¹ V``, or ``(BᵀB)⁺ V`` when the estimate is singular.
        """
        B, alpha = self._effective_sketch()
        V = np.asarray(V, dtype=np.float64)
        if V.ndim not in (1, 2) or V.shape[0] != self.n_features_in_:
            raise ValueError(
                f"V must have shape (n_features,) or (n_features, k) with "
                f"n_features={self.n_features_in_}; got {V.shape}."
            )
        return sketch_solve(B, alpha, V, rtol=rtol)

    def score(self, X, y=None):
        """Negative relative covariance error of the sketch on ``X``.

        ``-‖X̃ᵀX̃ / n_X − (BᵀB + αI) / n_seen‖₂ / (‖X̃‖_F² / n_X)`` with
        ``X̃ = X − mean_``: per-row covariances, so ``X`` may be a sample of the
        stream. When ``X`` is exactly the streamed data this is
        ``-‖SᵀS − (BᵀB + αI)‖₂ / ‖S‖_F²`` for the centred data ``S`` (``A``
        with ``center=False``), the relative covariance error of the papers.
        Higher is better; 0 is a perfect sketch. For
        :class:`RobustFrequentDirections` with ``alpha0 > 0`` the sketch targets
        the scatter plus ``alpha0·I``, and ``alpha0`` counts as error here.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to compare the sketch with: the stream, or a sample of it.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        score : float
            Minus the relative spectral-norm error of the sketched covariance
            (at most 0).
        """
        X = self._validate_predict(X)
        B, alpha = self._effective_sketch()
        n = X.shape[0]
        mean = self._fitted_state().mean
        if sp.issparse(X):  # ‖X − 1μᵀ‖_F² without densifying X
            col_sum = np.asarray(X.sum(axis=0)).ravel()
            fro2 = float(X.multiply(X).sum()) - 2 * float(col_sum @ mean) + n * float(mean @ mean)
        else:
            fro2 = float(np.sum(np.square(np.asarray(X, dtype=np.float64) - mean)))
        seen = max(self.n_samples_seen_, 1)
        err = spectral_norm_of_difference(
            X, B, alpha, x_scale=1.0 / n, b_scale=1.0 / seen, x_mean=mean
        )
        denom = max(fro2, 0.0) / n
        return -err / denom if denom > 0 else -err

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


def _same(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # pragma: no cover - exotic values
        return a is b


def _check_finite_magnitude(X):
    """One pass: raise on NaN/inf and on entries too large to square; return ``max |x|``."""
    if sp.issparse(X):
        data = X.data.reshape(1, -1)
    else:
        data = X
    if data.size == 0:
        return 0.0
    low, high, code = value_range(data)
    largest = max(high, -low)
    if code == 1:
        raise ValueError("Input X contains NaN.")
    if code == 2:
        raise ValueError(f"Input X contains infinity or a value too large for {X.dtype!r}.")
    if largest > MAX_ABS_VALUE:
        raise ValueError(
            f"X contains a value too large in magnitude ({largest:.3g}); skonline squares "
            f"the data and needs |X| <= {MAX_ABS_VALUE:.0e} to stay finite in float64. "
            "Rescale the input."
        )
    return float(largest)


class FrequentDirections(_BaseFrequentDirections):
    """Frequent Directions: a deterministic streaming sketch of the scatter matrix.

    Streams the rows of ``A`` (n × d), centred by default, into a sketch ``B``
    of at most ``2 · sketch_size`` rows such that, for every ``k < sketch_size``,

        ``0 ⪯ SᵀS − BᵀB ⪯ Δ·I``  and  ``Δ ≤ ‖S − S_k‖_F² / (sketch_size − k)``

    for the centred data ``S = A − 1μᵀ`` (``A`` with ``center=False``; Luo
    et al. 2019, eq. 1, Lemma 4 and Lemma 5 for the doubling buffer; Liberty
    2013; the paper's Alg. 4 prints its input as ``B^(0)``, read ``B^(m−1)``)
    — for ``variant="fd"``; ``"cfd"`` keeps the error within ``±Δ``,
    ``"pfd"`` has a weaker bound and ``"isvd"`` none. Default: the
    doubling-buffer Algorithm 4 of the paper, amortised
    ``O(sketch_size · n_features)`` time per row and
    ``O(sketch_size · n_features)`` memory.

    ``transform`` projects the centred rows on the top right singular vectors
    of the sketch. For a full-rank, better conditioned estimate with half the
    error bound, use :class:`RobustFrequentDirections`.

    Read more in the :ref:`User Guide <sketching>`.

    Parameters
    ----------
    n_components : int, default=None
        Number of components (output dimension) of :meth:`transform`, at most
        ``sketch_size - 1`` and ``n_features``. ``None`` means
        ``min(sketch_size - 1, n_features)``. Live: the read-outs use the value
        of the last ``fit``/``partial_fit`` (``n_components_``); ``set_params``
        changes them from the next call on.

    sketch_size : int or "auto", default="auto"
        The paper's ``m`` (>= 2), the memory: a compaction keeps
        ``sketch_size - 1`` directions; with ``buffer="double"`` the buffer
        holds up to ``2 · sketch_size`` rows, so memory is ``2 · sketch_size ·
        n_features`` floats whatever the number of rows streamed. ``"auto"``:
        ``2 · n_components + 8`` (20 without ``n_components``), at most
        ``n_features + 1``, chosen by measurement (user guide); resolved at
        the first call (``sketch_size_``).
        Frozen at the first call: changing it takes effect at the next ``fit``.

    center : bool, default=True
        Centre the data, as IncrementalPCA: the rows are streamed as Welford
        rows ``sqrt((t-1)/t)(x_t − μ_{t-1})``, whose outer products add up to
        the centred scatter exactly, so the sketch approximates it with the
        guarantee below for the centred matrix. ``False`` sketches the
        uncentred ``AᵀA`` (the papers).
        Frozen at the first call: changing it takes effect at the next ``fit``.

    whiten : bool, default=False
        Divide the output of :meth:`transform` by ``sqrt(explained_variance_)``
        (and multiply back in :meth:`inverse_transform`), as IncrementalPCA.
        Live: the read-outs use the value of the last ``fit``/``partial_fit``.

    variant : {"fd", "pfd", "cfd", "isvd"}, default="fd"
        ``"fd"``: Frequent Directions (Alg. 1/4). ``"pfd"``: parameterized FD
        (Desai et al. 2016): only the last ``max(1, floor(beta · sketch_size))``
        of the top ``sketch_size`` values are shrunk (worse bound by a constant).
        ``"cfd"``: compensative FD: FD's sketch, with the scatter estimate
        raised by ``Δ`` on the retained directions (same bound as FD; affects
        :meth:`covariance_operator`, :meth:`solve`, :meth:`score` and
        ``explained_variance_``, not :meth:`transform`). ``"isvd"``: greedy
        truncation (Alg. 8), **no guarantee** (the paper's Appendix F shows it
        can miss a dominant direction entirely).
        Frozen at the first call: changing it takes effect at the next ``fit``.

    beta : float, default=0.2
        PFD's proportion of shrunk singular values, in (0, 1]. Only used with
        ``variant="pfd"``. Frozen at the first call: changing it takes effect at the next ``fit``.

    buffer : {"double", "single"}, default="double"
        ``"double"``: the fast doubling buffer (Alg. 4/5): one compaction every
        ``sketch_size + 1`` rows after the first ``2 · sketch_size``, amortised
        ``O(sketch_size · n_features)`` per row. ``"single"``: the exact
        textbook Alg. 1/2, one compaction per row after the first
        ``sketch_size - 1`` (``O(sketch_size² · n_features)`` per row).
        Frozen at the first call: changing it takes effect at the next ``fit``.

    skip_zero_rows : bool, default=False
        Do not append rows that are zero (after centring) to the buffer. They
        do not change the sketched matrix but do move the compaction schedule;
        skipping them saves compactions and keeps every bound. Off by default
        (paper-literal). Live: acts on the rows of the next calls.

    compaction : {"gram", "svd"}, default="gram"
        How a full buffer is decomposed. ``"svd"``: thin SVD of the
        ``2m × d`` buffer (LAPACK gesdd), the textbook route. ``"gram"``:
        eigendecomposition of the small ``2m × 2m`` Gram matrix, of which only
        the blocks of the new rows are computed (the sketch's own block is
        diagonal), in a compiled pass; the sketch's ``BᵀB`` agrees with the
        SVD route to rounding relative to ``‖A‖²``.
        Frozen at the first call: changing it takes effect at the next ``fit``.

    sparse_solver : {"auto", "exact", "randomized"}, default="auto"
        How CSR rows are compacted. ``"exact"``: the same compactions as for
        dense rows, with the Gram matrix and the new rows computed from the
        sparse rows (``O(nnz · sketch_size)`` for their part; the sketch's part
        still costs ``O(sketch_size² · n_features)`` per compaction), same
        sketch as for dense input up to rounding. ``"randomized"``: sparse
        Frequent Directions (Ghashami, Liberty & Phillips 2016): blocks of
        about ``2 · sketch_size · n_features`` non-zeros are compressed by a
        randomized range finder before entering the sketch, time ``O(nnz ·
        sketch_size)``; FD's bound then holds with high probability (user
        guide). The rows of the block not yet full wait in the state (fewer
        non-zeros than a block plus one row) until later calls complete it,
        so the sketch depends on ``random_state`` but not on how the stream
        is split into calls; the read-outs compress the open block on a copy
        (once per call, cached). ``"auto"``: ``"randomized"`` when the first batch
        is CSR (measured on TF-IDF matrices: rank-k projection error within
        0.1 % of the optimum where ``"exact"`` was 4–8 % above it, and 3–10×
        faster), else ``"exact"`` (dense streams are unchanged); resolved at
        the first call (``sparse_solver_``).
        Frozen at the first call: changing it takes effect at the next ``fit``.

    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the random test matrices of the randomized sparse solver
        (``sparse_solver="randomized"``, or ``"auto"`` with CSR input);
        unused otherwise. Pass an int for reproducible sketches of CSR data.
        With ``sparse_solver`` ``"randomized"`` or ``"auto"``, frozen at the
        first call: changing it takes effect at the next ``fit``.

    verbose : int, default=0
        Progress on ``sys.stderr`` (:ref:`progress`): ``1`` shows a bar with
        the rows per second and the time left during :meth:`fit` in a terminal
        or a notebook, at most ten lines elsewhere; ``2`` adds one line per
        :meth:`partial_fit` call. The state learned is the same. Live: read by
        the next call.

    Attributes
    ----------
    alpha_ : float
        Always 0.0: FD approximates the scatter by ``BᵀB`` alone.

    n_components_ : int
        Output width of :meth:`transform`.

    components_ : ndarray of shape (n_components_, n_features)
        Principal axes: the top right singular vectors of the sketch,
        sign-fixed.

    explained_variance_ : ndarray of shape (n_components_,)
        Variance along each component: the sketch's ``σ_i(B)²`` corrected for
        the shrinkage, divided by ``n_samples_seen_ - 1``; within
        ``shrinkage_ / (n_samples_seen_ - 1)`` of the exact value (both lie
        in ``[σ_i², σ_i² + shrinkage_]``); the sum over the components within
        20 % of the variance along them on the flat, decaying, low-rank,
        one-hot and TF-IDF data measured in the user guide.

    explained_variance_ratio_ : ndarray of shape (n_components_,)
        ``explained_variance_`` over the exact total variance.

    singular_values_ : ndarray of shape (n_components_,)
        Estimated singular values of the centred data matrix.

    mean_ : ndarray of shape (n_features,)
        Per-feature mean (zeros with ``center=False``).

    var_ : ndarray of shape (n_features,)
        Per-feature variance (exact).

    noise_variance_ : float
        The probabilistic-PCA noise variance.

    n_samples_seen_ : int
        Rows streamed so far (across ``partial_fit`` calls).

    sketch_size_ : int
        The sketch size in use.

    n_compactions_ : int
        Number of compactions (SVD/shrink steps) so far.

    shrinkage_ : float
        ``Δ``, the sum over compactions of the subtracted ``σ_m²``. For FD
        (``variant="fd"``, and RFD) ``0 ⪯ SᵀS − BᵀB ⪯ Δ·I`` for the (centred)
        data ``S`` and ``Δ`` is at most ``‖S − S_k‖_F² / (sketch_size − k)``
        for every ``k < sketch_size``; CFD's estimate is within ``±Δ``. PFD
        and iSVD carry no such bound.

    sketch_ : ndarray of shape (n_rows, n_features)
        The current sketch ``B`` (read-only property).

    n_features_in_ : int
        Number of features seen during the first fit.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    RobustFrequentDirections : FD plus the optimal ridge term ``αI``.
    sklearn.decomposition.IncrementalPCA : Exact but ``O(batch_size · n_features)``-memory peer.

    Notes
    -----
    A drop-in replacement of :class:`~sklearn.decomposition.IncrementalPCA`:
    same ``transform``/``inverse_transform``/``get_covariance``/
    ``get_precision`` and fitted attributes, centred by default, at
    ``O(sketch_size · n_features)`` memory and amortised time per row
    (IncrementalPCA: ``O(batch_size · n_features)`` memory, an SVD per
    batch). The centring is exact: ``Σ_t r_t r_tᵀ`` of the Welford rows is the
    centred scatter ``S = (A − 1μᵀ)ᵀ(A − 1μᵀ)``, so for every ``k <
    sketch_size``

        ``0 ⪯ S − BᵀB ⪯ Δ·I``,  ``Δ ≤ ‖A_c − [A_c]_k‖_F² / (sketch_size − k)``

    with ``A_c = A − 1μᵀ`` the centred data (FD; RFD halves it).

    The sketch is kept in float64 whatever the input dtype (FD subtracts
    squared singular values, which loses digits quickly in float32);
    :meth:`transform` returns the input's floating dtype.

    References
    ----------
    Luo, Chen, Zhang, Li, Zhang. Robust Frequent Directions with Application in
    Online Learning. JMLR 20(45), 2019. Liberty. Simple and Deterministic
    Matrix Sketching. KDD 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import gen_batches
    >>> from skonline.decomposition import FrequentDirections
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 30)) @ np.diag(np.linspace(3, 0.1, 30)) + 5
    >>> fd = FrequentDirections(n_components=3)
    >>> for batch in gen_batches(len(X), 64):
    ...     fd = fd.partial_fit(X[batch])
    >>> fd.transform(X[:2]).shape
    (2, 3)
    >>> bool(np.allclose(fd.mean_, X.mean(axis=0)))
    True
    >>> fd.score(X) > -0.1  # relative covariance error below 10 %
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseFrequentDirections._parameter_constraints,
        "variant": [StrOptions({"fd", "pfd", "cfd", "isvd"})],
        "beta": [Interval(Real, 0, 1, closed="right")],
    }

    def __init__(
        self,
        n_components=None,
        *,
        sketch_size="auto",
        center=True,
        whiten=False,
        variant="fd",
        beta=0.2,
        buffer="double",
        skip_zero_rows=False,
        compaction="gram",
        sparse_solver="auto",
        random_state=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.sketch_size = sketch_size
        self.center = center
        self.whiten = whiten
        self.variant = variant
        self.beta = beta
        self.buffer = buffer
        self.skip_zero_rows = skip_zero_rows
        self.compaction = compaction
        self.sparse_solver = sparse_solver
        self.random_state = random_state
        self.verbose = verbose

    _frozen_record: ClassVar[type[ParamRecord]] = FDFrozen

    def _eigen_extra(self, squares):
        variant = self._fitted_state().frozen.variant
        if variant == "cfd":  # raised by Δ on the retained directions
            return np.where(squares > 0, self._fitted_state().shrinkage, 0.0)
        if variant == "fd":
            return super()._eigen_extra(squares)
        return np.zeros_like(squares)  # PFD, iSVD: no bound to place the estimate in


class RobustFrequentDirections(_BaseFrequentDirections):
    """Robust Frequent Directions: FD plus the optimal ridge ``αI``.

    Approximates the (centred) scatter ``SᵀS + alpha0·I`` by ``BᵀB + alpha_·I``
    where ``B`` is exactly the Frequent Directions sketch and ``alpha_`` grows
    by ``σ_m²/2`` at every compaction (Luo et al. 2019, Algorithm 2;
    Algorithm 5 with the doubling buffer, the default). Each compaction is the
    spectral-norm-optimal "rank ``m−1`` plus ridge" update (Theorem 2), and for
    every ``k < m``

        ``‖SᵀS + alpha0·I − (BᵀB + alpha_·I)‖₂ ≤ Δ/2 ≤ ‖S − S_k‖_F² / (2(m − k))``

    — half of FD's bound (Theorem 3, Corollary 2) — while the estimate is full
    rank as soon as ``alpha_ > 0`` and no worse conditioned than
    ``SᵀS + alpha0·I`` (Theorem 4). Same cost as FD: amortised
    ``O(sketch_size · n_features)`` time per row, ``O(sketch_size · n_features)``
    memory. :meth:`solve` applies ``(BᵀB + αI)⁻¹`` by the Woodbury identity in
    ``O(sketch_size² · n_features)``, never forming a ``d × d`` matrix.

    ``transform`` and ``explained_variance_`` are identical to
    :class:`FrequentDirections` (same ``B``); RFD improves the covariance
    estimate's worst case and its inverse. Its error is about
    ``alpha_``, so where FD's actual error is far below its bound ``Δ`` (e.g.
    uncentred sparse data) FD's ``BᵀB`` can be more accurate.

    Read more in the :ref:`User Guide <sketching>`.

    Parameters
    ----------
    n_components : int, default=None
        Number of components (output dimension) of :meth:`transform`, at most
        ``sketch_size - 1`` and ``n_features``. ``None`` means
        ``min(sketch_size - 1, n_features)``. Live: the read-outs use the value
        of the last ``fit``/``partial_fit`` (``n_components_``); ``set_params``
        changes them from the next call on.

    sketch_size : int or "auto", default="auto"
        The paper's ``m`` (>= 2), the memory: a compaction keeps
        ``sketch_size - 1`` directions; with ``buffer="double"`` the buffer
        holds up to ``2 · sketch_size`` rows, so memory is ``2 · sketch_size ·
        n_features`` floats whatever the number of rows streamed. ``"auto"``:
        ``2 · n_components + 8`` (20 without ``n_components``), at most
        ``n_features + 1``, chosen by measurement (user guide); resolved at
        the first call (``sketch_size_``).
        Frozen at the first call: changing it takes effect at the next ``fit``.

    center : bool, default=True
        Centre the data, as IncrementalPCA: the rows are streamed as Welford
        rows ``sqrt((t-1)/t)(x_t − μ_{t-1})``, whose outer products add up to
        the centred scatter exactly, so the sketch approximates it with the
        guarantee below for the centred matrix. ``False`` sketches the
        uncentred ``AᵀA`` (the papers).
        Frozen at the first call: changing it takes effect at the next ``fit``.

    whiten : bool, default=False
        Divide the output of :meth:`transform` by ``sqrt(explained_variance_)``
        (and multiply back in :meth:`inverse_transform`), as IncrementalPCA.
        Live: the read-outs use the value of the last ``fit``/``partial_fit``.

    alpha0 : float, default=0.0
        Initial ridge ``alpha`` (``α^(m−1)`` in Alg. 2): the sketch then targets
        the scatter plus ``alpha0·I``. The default 0 is the paper's
        hyperparameter-free "RFD0".
        Frozen at the first call: changing it takes effect at the next ``fit``.

    buffer : {"double", "single"}, default="double"
        ``"double"``: the fast doubling buffer (Alg. 4/5): one compaction every
        ``sketch_size + 1`` rows after the first ``2 · sketch_size``, amortised
        ``O(sketch_size · n_features)`` per row. ``"single"``: the exact
        textbook Alg. 1/2, one compaction per row after the first
        ``sketch_size - 1`` (``O(sketch_size² · n_features)`` per row).
        Frozen at the first call: changing it takes effect at the next ``fit``.

    skip_zero_rows : bool, default=False
        Do not append rows that are zero (after centring) to the buffer. They
        do not change the sketched matrix but do move the compaction schedule;
        skipping them saves compactions and keeps every bound. Off by default
        (paper-literal). Live: acts on the rows of the next calls.

    compaction : {"gram", "svd"}, default="gram"
        How a full buffer is decomposed. ``"svd"``: thin SVD of the
        ``2m × d`` buffer (LAPACK gesdd), the textbook route. ``"gram"``:
        eigendecomposition of the small ``2m × 2m`` Gram matrix, of which only
        the blocks of the new rows are computed (the sketch's own block is
        diagonal), in a compiled pass; the sketch's ``BᵀB`` agrees with the
        SVD route to rounding relative to ``‖A‖²``.
        Frozen at the first call: changing it takes effect at the next ``fit``.

    sparse_solver : {"auto", "exact", "randomized"}, default="auto"
        How CSR rows are compacted. ``"exact"``: the same compactions as for
        dense rows, with the Gram matrix and the new rows computed from the
        sparse rows (``O(nnz · sketch_size)`` for their part; the sketch's part
        still costs ``O(sketch_size² · n_features)`` per compaction), same
        sketch as for dense input up to rounding. ``"randomized"``: sparse
        Frequent Directions (Ghashami, Liberty & Phillips 2016): blocks of
        about ``2 · sketch_size · n_features`` non-zeros are compressed by a
        randomized range finder before entering the sketch, time ``O(nnz ·
        sketch_size)``; FD's bound then holds with high probability (user
        guide). The rows of the block not yet full wait in the state (fewer
        non-zeros than a block plus one row) until later calls complete it,
        so the sketch depends on ``random_state`` but not on how the stream
        is split into calls; the read-outs compress the open block on a copy
        (once per call, cached). ``"auto"``: ``"randomized"`` when the first batch
        is CSR (measured on TF-IDF matrices: rank-k projection error within
        0.1 % of the optimum where ``"exact"`` was 4–8 % above it, and 3–10×
        faster), else ``"exact"`` (dense streams are unchanged); resolved at
        the first call (``sparse_solver_``).
        Frozen at the first call: changing it takes effect at the next ``fit``.

    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the random test matrices of the randomized sparse solver
        (``sparse_solver="randomized"``, or ``"auto"`` with CSR input);
        unused otherwise. Pass an int for reproducible sketches of CSR data.
        With ``sparse_solver`` ``"randomized"`` or ``"auto"``, frozen at the
        first call: changing it takes effect at the next ``fit``.

    verbose : int, default=0
        Progress on ``sys.stderr`` (:ref:`progress`): ``1`` shows a bar with
        the rows per second and the time left during :meth:`fit` in a terminal
        or a notebook, at most ten lines elsewhere; ``2`` adds one line per
        :meth:`partial_fit` call. The state learned is the same. Live: read by
        the next call.

    Attributes
    ----------
    alpha_ : float
        The ridge term; always ``alpha0 + shrinkage_ / 2``.

    n_components_ : int
        Output width of :meth:`transform`.

    components_ : ndarray of shape (n_components_, n_features)
        Principal axes: the top right singular vectors of the sketch,
        sign-fixed.

    explained_variance_ : ndarray of shape (n_components_,)
        Variance along each component: the sketch's ``σ_i(B)²`` corrected for
        the shrinkage, divided by ``n_samples_seen_ - 1``; within
        ``shrinkage_ / (n_samples_seen_ - 1)`` of the exact value (both lie
        in ``[σ_i², σ_i² + shrinkage_]``); the sum over the components within
        20 % of the variance along them on the flat, decaying, low-rank,
        one-hot and TF-IDF data measured in the user guide.

    explained_variance_ratio_ : ndarray of shape (n_components_,)
        ``explained_variance_`` over the exact total variance.

    singular_values_ : ndarray of shape (n_components_,)
        Estimated singular values of the centred data matrix.

    mean_ : ndarray of shape (n_features,)
        Per-feature mean (zeros with ``center=False``).

    var_ : ndarray of shape (n_features,)
        Per-feature variance (exact).

    noise_variance_ : float
        The probabilistic-PCA noise variance.

    n_samples_seen_ : int
        Rows streamed so far (across ``partial_fit`` calls).

    sketch_size_ : int
        The sketch size in use.

    n_compactions_ : int
        Number of compactions (SVD/shrink steps) so far.

    shrinkage_ : float
        ``Δ``, the sum over compactions of the subtracted ``σ_m²``. For FD
        (``variant="fd"``, and RFD) ``0 ⪯ SᵀS − BᵀB ⪯ Δ·I`` for the (centred)
        data ``S`` and ``Δ`` is at most ``‖S − S_k‖_F² / (sketch_size − k)``
        for every ``k < sketch_size``; CFD's estimate is within ``±Δ``. PFD
        and iSVD carry no such bound.

    sketch_ : ndarray of shape (n_rows, n_features)
        The current sketch ``B`` (read-only property).

    n_features_in_ : int
        Number of features seen during the first fit.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    FrequentDirections : The same sketch without the ridge term.
    sklearn.decomposition.IncrementalPCA : The exact peer it replaces.

    Notes
    -----
    A drop-in replacement of :class:`~sklearn.decomposition.IncrementalPCA`:
    same ``transform``/``inverse_transform``/``get_covariance``/
    ``get_precision`` and fitted attributes, centred by default, at
    ``O(sketch_size · n_features)`` memory and amortised time per row
    (IncrementalPCA: ``O(batch_size · n_features)`` memory, an SVD per
    batch). The centring is exact: ``Σ_t r_t r_tᵀ`` of the Welford rows is the
    centred scatter ``S = (A − 1μᵀ)ᵀ(A − 1μᵀ)``, so for every ``k <
    sketch_size``

        ``0 ⪯ S − BᵀB ⪯ Δ·I``,  ``Δ ≤ ‖A_c − [A_c]_k‖_F² / (sketch_size − k)``

    with ``A_c = A − 1μᵀ`` the centred data (FD; RFD halves it).

    The sketch is kept in float64 whatever the input dtype (FD subtracts
    squared singular values, which loses digits quickly in float32);
    :meth:`transform` returns the input's floating dtype.

    References
    ----------
    Luo, Chen, Zhang, Li, Zhang. Robust Frequent Directions with Application in
    Online Learning. JMLR 20(45), 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import gen_batches
    >>> from skonline.decomposition import RobustFrequentDirections
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 30)) @ np.diag(np.linspace(3, 0.1, 30)) + 5
    >>> rfd = RobustFrequentDirections(n_components=5)  # as IncrementalPCA(n_components=5)
    >>> for batch in gen_batches(len(X), 64):
    ...     rfd = rfd.partial_fit(X[batch])
    >>> rfd.transform(X[:2]).shape, rfd.sketch_size_
    ((2, 5), 18)
    >>> bool(np.isclose(rfd.alpha_, rfd.shrinkage_ / 2))
    True
    >>> z = rfd.solve(np.ones(30))  # (BᵀB + αI)⁻¹ 1 by Woodbury, no 30 x 30 matrix
    >>> z.shape
    (30,)
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseFrequentDirections._parameter_constraints,
        "alpha0": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        n_components=None,
        *,
        sketch_size="auto",
        center=True,
        whiten=False,
        alpha0=0.0,
        buffer="double",
        skip_zero_rows=False,
        compaction="gram",
        sparse_solver="auto",
        random_state=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.sketch_size = sketch_size
        self.center = center
        self.whiten = whiten
        self.alpha0 = alpha0
        self.buffer = buffer
        self.skip_zero_rows = skip_zero_rows
        self.compaction = compaction
        self.sparse_solver = sparse_solver
        self.random_state = random_state
        self.verbose = verbose

    _frozen_record: ClassVar[type[ParamRecord]] = RFDFrozen

    def _is_robust(self):
        return True

"""Frequent Directions and Robust Frequent Directions matrix sketches.

Luo, Chen, Zhang, Li & Zhang, "Robust Frequent Directions with Application in
Online Learning", JMLR 20 (2019): Algorithms 1, 2 (one SVD per row), 4, 5
(doubling buffer) and 8 (greedy truncation); Liberty (2013) for FD; Desai,
Ghashami & Phillips (2016) for the PFD and CFD variants.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_array
from sklearn.utils.extmath import safe_sparse_dot, svd_flip

from ..base import OnlineEstimator, OnlineState
from ..evaluation._sketch_metrics import spectral_norm_of_difference
from ..utils._sketch import append_rows, sketch_solve, thin_svd
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context

__all__ = ["FrequentDirections", "RobustFrequentDirections"]

_DENSE_WARN_FEATURES = 20000
#: Largest squared Frobenius norm of sketch plus batch (Gram entries stay finite).
_MAX_SQUARED_NORM = 1e300


@dataclass(kw_only=True, eq=False)
class SketchState(OnlineState):
    """Learned state of a Frequent Directions sketch.

    Attributes
    ----------
    buffer : ndarray of shape (capacity, n_features)
        Rows ``[0, n_rows)`` hold the sketch ``B``; the rest are zeros.
    n_rows : int
    n_compactions : int
    shrinkage : float
        ``Δ``, the sum of the subtracted ``σ_m²``.
    alpha : float
        The ridge term (``alpha0 + Δ/2`` for RFD, 0 for FD).
    """

    buffer: np.ndarray
    n_rows: int = 0
    n_compactions: int = 0
    shrinkage: float = 0.0
    alpha: float = 0.0


def sketch_pass(state, X, *, sketch_size, variant, beta, method, robust, skip_zero_rows):
    """Stream the rows of ``X`` into a copy of the sketch; return the new state.

    A pure kernel: ``state`` is never written into.
    """
    n = X.shape[0]
    if skip_zero_rows:
        if sp.issparse(X):
            nonzero = np.asarray(abs(X).sum(axis=1)).ravel() > 0
        else:
            nonzero = np.any(X != 0, axis=1)
        X = X[nonzero]
    buffer = state.buffer.copy()
    n_rows, deltas = append_rows(
        buffer,
        state.n_rows,
        X,
        sketch_size,
        variant="fd" if variant == "cfd" else variant,
        beta=beta,
        method=method,
    )
    shrinkage, alpha = state.shrinkage, state.alpha
    for delta in deltas:  # Alg. 5: alpha grows by sigma_m^2 / 2 per compaction
        shrinkage += delta
        if robust:
            alpha += delta / 2.0
    return dataclasses.replace(
        state,
        buffer=buffer,
        n_rows=n_rows,
        shrinkage=shrinkage,
        alpha=alpha,
        n_compactions=state.n_compactions + len(deltas),
        n_samples_seen=state.n_samples_seen + n,
    )


class _BaseFrequentDirections(ClassNamePrefixFeaturesOutMixin, TransformerMixin, OnlineEstimator):
    """Shared engine of :class:`FrequentDirections` and :class:`RobustFrequentDirections`."""

    _accept_sparse = "csr"

    _parameter_constraints: ClassVar[dict] = {
        "sketch_size": [Interval(Integral, 2, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "buffer": [StrOptions({"double", "single"})],
        "skip_zero_rows": ["boolean"],
        "compaction": [StrOptions({"gram", "svd"})],
    }

    # The sketch variant used by the engine ("fd", "pfd", "cfd", "isvd").
    def _variant(self):
        return "fd"

    def _is_robust(self):
        return False

    def _frozen_params(self):
        names = ("sketch_size", "buffer", "compaction")
        if self._is_robust():
            return (*names, "alpha0")
        return (*names, "variant", "beta")

    # ---------------------------------------------------------------- fitting
    def _capacity(self):
        return 2 * self.sketch_size if self.buffer == "double" else self.sketch_size

    def _validate_batch(self, X, y, first_call):
        if self.n_components is not None and self.n_components > self.sketch_size - 1:
            raise ValueError(
                f"n_components={self.n_components} must be at most sketch_size - 1 = "
                f"{self.sketch_size - 1}: a compacted sketch keeps sketch_size - 1 directions."
            )
        X, y, kwargs = super()._validate_batch(X, y, first_call)
        # The sketch holds squared norms of up to the whole stream: refuse a batch
        # that would push ‖B‖_F² + ‖X‖_F² out of float64's range.
        data = X.data if sp.issparse(X) else X
        batch_sq = float(np.sum(np.square(data, dtype=np.float64)))
        sketch_sq = 0.0
        if not first_call:
            sketch_sq = float(np.sum(np.square(self._state.buffer[: self._state.n_rows])))
        if not batch_sq + sketch_sq <= _MAX_SQUARED_NORM:
            raise ValueError(
                "X is too large in magnitude for the sketch: its squared Frobenius norm "
                f"({batch_sq:.3g}) plus the sketch's ({sketch_sq:.3g}) exceeds "
                f"{_MAX_SQUARED_NORM:.0e}. Rescale the input."
            )
        if self.n_components is not None and self.n_components > X.shape[1]:
            raise ValueError(
                f"n_components={self.n_components} must be at most n_features={X.shape[1]}."
            )
        return X, y, kwargs

    def _init_state(self, X, y):
        return SketchState(
            buffer=np.zeros((self._capacity(), X.shape[1]), dtype=np.float64),
            alpha=float(self.alpha0) if self._is_robust() else 0.0,
        )

    def _partial_fit_state(self, state, X, y):
        return sketch_pass(
            state,
            X,
            sketch_size=self.sketch_size,
            variant=self._variant(),
            beta=getattr(self, "beta", 0.2),
            method=self.compaction,
            robust=self._is_robust(),
            skip_zero_rows=self.skip_zero_rows,
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Stream the rows of ``X`` into the sketch (one ordered pass).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to add. CSR input is never densified as a whole: at most
            ``2 * sketch_size`` rows are materialised at a time.
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
        to ``partial_fit`` over any split of ``X`` into consecutive batches.

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

    # ----------------------------------------------------- derived attributes
    @property
    def sketch_(self):
        """The current sketch ``B``, an array of shape (n_rows, n_features).

        Between ``sketch_size - 1`` and ``2 * sketch_size - 1`` rows once the
        first compaction has happened (Alg. 4/5 keep the uncompacted rows).
        A copy: later updates do not change it.
        """
        state = self._fitted_state()
        return state.buffer[: state.n_rows].copy()

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
    def n_components_(self):
        """Number of components returned by :meth:`transform`."""
        self._check_fitted()
        if self.n_components is not None:
            if self.n_components > min(self.sketch_size - 1, self.n_features_in_):
                raise ValueError(
                    f"n_components={self.n_components} exceeds min(sketch_size - 1, "
                    f"n_features) = {min(self.sketch_size - 1, self.n_features_in_)}."
                )
            return int(self.n_components)
        return int(min(self.sketch_size - 1, self.n_features_in_))

    @property
    def _n_features_out(self):
        return self.n_components_

    def _svd(self):
        """Sign-fixed thin SVD of the sketch rows."""
        state = self._fitted_state()
        B = state.buffer[: state.n_rows]
        if B.shape[0] == 0:
            return np.zeros(0), np.zeros((0, B.shape[1]))
        U, s, Vt = thin_svd(B)
        U, Vt = svd_flip(U, Vt, u_based_decision=False)
        return s, Vt

    @property
    def components_(self):
        """Top right singular vectors of ``B``, an array of shape (n_components_, n_features).

        Sign-fixed (``svd_flip``). Computed from the sketch on access
        (``O(sketch_size² · n_features)``). Rows beyond the sketch's rank (only
        before ``n_components_`` rows have been seen) are zero.
        """
        _, Vt = self._svd()
        k = self.n_components_
        out = np.zeros((k, self.n_features_in_))
        kk = min(k, Vt.shape[0])
        out[:kk] = Vt[:kk]
        return out

    @property
    def singular_values_(self):
        """Singular values of ``B`` (without ``alpha``), an array of shape (n_components_,)."""
        s, _ = self._svd()
        k = self.n_components_
        out = np.zeros(k)
        kk = min(k, s.shape[0])
        out[:kk] = s[:kk]
        return out

    # ------------------------------------------------------------ transforms
    def transform(self, X):
        """Project ``X`` on the top ``n_components_`` sketched directions.

        No centering: the sketch approximates the uncentred ``AᵀA``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to project.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components_)
            ``X @ components_.T``, in the floating dtype of ``X``.
        """
        X = self._validate_predict(X)
        C = self.components_.astype(X.dtype, copy=False)
        return np.asarray(safe_sparse_dot(X, C.T, dense_output=True))

    def inverse_transform(self, X):
        """Map projected data back to feature space: ``X @ components_``.

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
        return X @ self.components_.astype(X.dtype, copy=False)

    # ------------------------------------------------- covariance and solves
    def _effective_sketch(self):
        """``(B, alpha)`` such that the covariance estimate is ``BᵀB + αI``."""
        state = self._fitted_state()
        B = state.buffer[: state.n_rows]
        if self._variant() == "cfd" and B.shape[0]:
            # CFD: raise the retained directions by the total shrinkage Delta.
            s, Vt = self._svd()
            keep = s > np.finfo(np.float64).eps * max(s[0], 0.0) * max(B.shape)
            B = np.sqrt(s[keep] ** 2 + state.shrinkage)[:, None] * Vt[keep]
        return B, state.alpha

    def get_covariance(self):
        """The sketched (uncentred) covariance ``BᵀB + αI`` as a dense matrix.

        Returns
        -------
        cov : ndarray of shape (n_features, n_features)
            Approximates ``AᵀA`` of all rows streamed so far (not divided by
            the number of rows). Uses ``O(n_features²)`` memory (a warning is
            issued above 20000 features); see :meth:`covariance_operator`.
        """
        B, alpha = self._effective_sketch()
        if self.n_features_in_ > _DENSE_WARN_FEATURES:
            warnings.warn(
                f"get_covariance forms a dense {self.n_features_in_} x {self.n_features_in_} "
                "matrix; covariance_operator() and solve() never do.",
                UserWarning,
                stacklevel=2,
            )
        cov = B.T @ B
        cov[np.diag_indices_from(cov)] += alpha
        return cov

    def covariance_operator(self):
        """The sketched covariance ``BᵀB + αI`` as a linear operator.

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
        """Apply the inverse of the sketched covariance: ``(BᵀB + αI)⁻¹ V``.

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

    def get_precision(self):
        """Dense inverse (or pseudo-inverse) of :meth:`get_covariance`, via :meth:`solve`.

        Returns
        -------
        precision : ndarray of shape (n_features, n_features)
            ``(BᵀB + αI)⁻¹``, or the Moore–Penrose pseudo-inverse when the
            estimate is singular. Uses ``O(n_features²)`` memory.
        """
        return self.solve(np.eye(self.n_features_in_))

    def score(self, X, y=None):
        """Negative relative covariance error of the sketch on ``X``.

        ``-‖XᵀX / n_X − (BᵀB + αI) / n_seen‖₂ / (‖X‖_F² / n_X)``: per-row
        covariances, so ``X`` may be a sample of the stream. When ``X`` is
        exactly the streamed data this is ``-‖AᵀA − (BᵀB + αI)‖₂ / ‖A‖_F²``,
        the relative covariance error of the papers. Higher is better; 0 is a
        perfect sketch. An all-zero ``X`` gives the unnormalised error. For
        :class:`RobustFrequentDirections` with ``alpha0 > 0`` the sketch targets
        ``AᵀA + alpha0·I``, and ``alpha0`` counts as error here.

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
        fro2 = float(X.multiply(X).sum()) if sp.issparse(X) else float(np.sum(np.square(X)))
        seen = max(self.n_samples_seen_, 1)
        err = spectral_norm_of_difference(X, B, alpha, x_scale=1.0 / n, b_scale=1.0 / seen)
        denom = fro2 / n
        return -err / denom if denom > 0 else -err

    # ------------------------------------------------------------------ merge
    def merge(self, other):
        """Absorb the sketch of a disjoint stream (mergeable summaries).

        The rows of ``other``'s sketch are streamed into this one. The result
        sketches the concatenation of both streams with the same guarantee as
        a single pass: shrinkages add up (``shrinkage_ = Δ₁ + Δ₂ + Δ_merge``)
        and, for RFD, ``alpha_ = alpha0 + shrinkage_ / 2`` still holds, i.e.
        the merged sketch approximates ``A₁ᵀA₁ + A₂ᵀA₂ + alpha0·I``.

        Parameters
        ----------
        other : FrequentDirections or RobustFrequentDirections
            A fitted sketch of the same class with the same ``sketch_size``,
            variant, ``buffer`` and features. It is not modified.

        Returns
        -------
        self : object
            This estimator, now sketching both streams.
        """
        self._check_fitted()
        if type(other) is not type(self):
            raise TypeError(f"cannot merge a {type(other).__name__} into a {type(self).__name__}")
        other._check_fitted()
        for est in (self, other):
            est._check_frozen(est._state)
        mine, theirs = self._state.frozen, other._state.frozen
        for key in mine:
            if key != "compaction" and mine[key] != theirs[key]:
                raise ValueError(
                    f"cannot merge sketches with different {key}: {mine[key]!r} and {theirs[key]!r}"
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
        theirs = other._state
        rows = theirs.buffer[: theirs.n_rows].copy()
        with self._transaction():
            state = self._partial_fit_state(self._state, rows, None)
            # the pass counted the other sketch's rows as samples; count its stream instead
            state.n_samples_seen += theirs.n_samples_seen - rows.shape[0]
            state.shrinkage += theirs.shrinkage
            if self._is_robust():
                state.alpha += theirs.shrinkage / 2.0
            state.n_compactions += theirs.n_compactions
            self._commit(state)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


_COMMON_PARAMS = """\
    sketch_size : int, default=20
        The paper's ``m`` (>= 2). A compaction keeps ``sketch_size - 1``
        directions; with ``buffer="double"`` the buffer holds up to
        ``2 * sketch_size`` rows, so memory is ``2 · sketch_size · n_features``
        floats whatever the number of rows streamed.

    n_components : int, default=None
        Number of directions used by :meth:`transform`; at most
        ``sketch_size - 1`` and ``n_features``. ``None`` means
        ``min(sketch_size - 1, n_features)``.
"""

_COMMON_PARAMS_TAIL = """\
    buffer : {"double", "single"}, default="double"
        ``"double"``: the fast doubling buffer (Alg. 4/5): one compaction every
        ``sketch_size + 1`` rows after the first ``2 · sketch_size``, amortised
        ``O(sketch_size · n_features)`` per row. ``"single"``: the exact
        textbook Alg. 1/2, one compaction per row after the first
        ``sketch_size - 1`` (``O(sketch_size² · n_features)`` per row).

    skip_zero_rows : bool, default=False
        Do not append all-zero rows to the buffer. They do not change ``AᵀA``
        but do move the compaction schedule; skipping them saves compactions
        and keeps every bound. Off by default (paper-literal).

    compaction : {"gram", "svd"}, default="gram"
        How a full buffer is decomposed. ``"svd"``: thin SVD of the
        ``2m × d`` buffer (LAPACK gesdd), the textbook route. ``"gram"``:
        eigendecomposition of the small ``2m × 2m`` Gram matrix, cheaper on
        wide buffers (timings in the user guide); the sketch's ``BᵀB`` agrees
        with the SVD route to rounding relative to ``‖A‖²``.
"""

_COMMON_ATTRS = """\
    n_samples_seen_ : int
        Rows streamed so far (across ``partial_fit`` calls).

    n_compactions_ : int
        Number of compactions (SVD/shrink steps) so far.

    shrinkage_ : float
        ``Δ``, the sum over compactions of the subtracted ``σ_m²``. For FD
        (``variant="fd"``, and RFD) ``0 ⪯ AᵀA − BᵀB ⪯ Δ·I`` and ``Δ`` is at most
        ``‖A − A_k‖_F² / (sketch_size − k)`` for every ``k < sketch_size``;
        CFD's estimate is within ``±Δ``. PFD and iSVD carry no such bound.

    sketch_ : ndarray of shape (n_rows, n_features)
        The current sketch ``B`` (read-only property).

    components_ : ndarray of shape (n_components_, n_features)
        Top right singular vectors of the sketch, sign-fixed (property).

    singular_values_ : ndarray of shape (n_components_,)
        Singular values of the sketch (property).

    n_components_ : int
        Output width of :meth:`transform` (property).

    n_features_in_ : int
        Number of features seen during the first fit.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.
"""

_COMMON_NOTES = """\
    Notes
    -----
    The sketch is kept in float64 whatever the input dtype (FD subtracts
    squared singular values, which loses digits quickly in float32);
    :meth:`transform` returns the input's floating dtype.
"""


class FrequentDirections(_BaseFrequentDirections):
    __doc__ = f"""Frequent Directions: a deterministic streaming sketch of ``AᵀA``.

    Streams the rows of ``A`` (n × d) into a sketch ``B`` of at most
    ``2 · sketch_size`` rows such that, for every ``k < sketch_size``,

        ``0 ⪯ AᵀA − BᵀB ⪯ Δ·I``  and  ``Δ ≤ ‖A − A_k‖_F² / (sketch_size − k)``

    (Luo et al. 2019, eq. 1, Lemma 4 and Lemma 5 for the doubling buffer;
    Liberty 2013; the paper's Alg. 4 prints its input as ``B^(0)``, read
    ``B^(m−1)``) — for ``variant="fd"``; ``"cfd"`` keeps the error within
    ``±Δ``, ``"pfd"`` has a weaker bound and ``"isvd"`` none. Default: the
    doubling-buffer Algorithm 4 of the paper, amortised
    ``O(sketch_size · n_features)`` time per row and
    ``O(sketch_size · n_features)`` memory.

    ``transform`` projects on the top right singular vectors of the sketch
    (uncentred, like the sketch). For a full-rank, better conditioned estimate
    of ``AᵀA`` with half the error bound, use :class:`RobustFrequentDirections`.

    Read more in the :ref:`User Guide <sketching>`.

    Parameters
    ----------
{_COMMON_PARAMS}
    variant : {{"fd", "pfd", "cfd", "isvd"}}, default="fd"
        ``"fd"``: Frequent Directions (Alg. 1/4). ``"pfd"``: parameterized FD
        (Desai et al. 2016): only the last ``max(1, floor(beta · sketch_size))``
        of the top ``sketch_size`` values are shrunk (worse bound by a constant).
        ``"cfd"``: compensative FD: FD's sketch, with the covariance estimate
        raised by ``Δ`` on the retained directions (same bound as FD; affects
        :meth:`get_covariance`, :meth:`solve` and :meth:`score`, not
        :meth:`transform`). ``"isvd"``: greedy truncation (Alg. 8), **no
        guarantee** (the paper's Appendix F shows it can miss a dominant
        direction entirely).

    beta : float, default=0.2
        PFD's proportion of shrunk singular values, in (0, 1]. Only used with
        ``variant="pfd"``.

{_COMMON_PARAMS_TAIL}
    Attributes
    ----------
    alpha_ : float
        Always 0.0: FD approximates ``AᵀA`` by ``BᵀB`` alone.

{_COMMON_ATTRS}
    See Also
    --------
    RobustFrequentDirections : FD plus the optimal ridge term ``αI``.
    sklearn.decomposition.IncrementalPCA : Exact but ``O(n_features²)``-memory peer.

{_COMMON_NOTES}
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
    >>> X = rng.standard_normal((500, 30)) @ np.diag(np.linspace(3, 0.1, 30))
    >>> fd = FrequentDirections(sketch_size=10, n_components=3)
    >>> for batch in gen_batches(len(X), 64):
    ...     fd = fd.partial_fit(X[batch])
    >>> fd.transform(X[:2]).shape
    (2, 3)
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
        sketch_size=20,
        n_components=None,
        *,
        variant="fd",
        beta=0.2,
        buffer="double",
        skip_zero_rows=False,
        compaction="gram",
    ):
        self.sketch_size = sketch_size
        self.n_components = n_components
        self.variant = variant
        self.beta = beta
        self.buffer = buffer
        self.skip_zero_rows = skip_zero_rows
        self.compaction = compaction

    def _variant(self):
        return self.variant


class RobustFrequentDirections(_BaseFrequentDirections):
    __doc__ = f"""Robust Frequent Directions: FD plus the optimal ridge ``αI``.

    Approximates ``AᵀA + alpha0·I`` by ``BᵀB + alpha_·I`` where ``B`` is exactly
    the Frequent Directions sketch and ``alpha_`` grows by ``σ_m²/2`` at every
    compaction (Luo et al. 2019, Algorithm 2; Algorithm 5 with the doubling
    buffer, the default). Each compaction is the spectral-norm-optimal
    "rank ``m−1`` plus ridge" update (Theorem 2), and for every ``k < m``

        ``‖AᵀA + alpha0·I − (BᵀB + alpha_·I)‖₂ ≤ Δ/2 ≤ ‖A − A_k‖_F² / (2(m − k))``

    — half of FD's bound (Theorem 3, Corollary 2) — while the estimate is full
    rank as soon as ``alpha_ > 0`` and no worse conditioned than
    ``AᵀA + alpha0·I`` (Theorem 4). Same cost as FD: amortised
    ``O(sketch_size · n_features)`` time per row, ``O(sketch_size · n_features)``
    memory. :meth:`solve` applies ``(BᵀB + αI)⁻¹`` by the Woodbury identity in
    ``O(sketch_size² · n_features)``, never forming a ``d × d`` matrix.

    ``transform`` is identical to :class:`FrequentDirections` (same ``B``);
    RFD improves the covariance estimate's worst case and its inverse. Its
    error is about ``alpha_``, so where FD's actual error is far below its
    bound ``Δ`` (e.g. uncentred sparse data) FD's ``BᵀB`` can be more accurate.

    Read more in the :ref:`User Guide <sketching>`.

    Parameters
    ----------
{_COMMON_PARAMS}
    alpha0 : float, default=0.0
        Initial ridge ``alpha`` (``α^(m−1)`` in Alg. 2): the sketch then targets
        ``AᵀA + alpha0·I``. The default 0 is the paper's hyperparameter-free
        "RFD0".

{_COMMON_PARAMS_TAIL}
    Attributes
    ----------
    alpha_ : float
        The ridge term; always ``alpha0 + shrinkage_ / 2``.

{_COMMON_ATTRS}
    See Also
    --------
    FrequentDirections : The same sketch without the ridge term.

{_COMMON_NOTES}
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
    >>> X = rng.standard_normal((500, 30)) @ np.diag(np.linspace(3, 0.1, 30))
    >>> rfd = RobustFrequentDirections(sketch_size=10)
    >>> for batch in gen_batches(len(X), 64):
    ...     rfd = rfd.partial_fit(X[batch])
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
        sketch_size=20,
        n_components=None,
        *,
        alpha0=0.0,
        buffer="double",
        skip_zero_rows=False,
        compaction="gram",
    ):
        self.sketch_size = sketch_size
        self.n_components = n_components
        self.alpha0 = alpha0
        self.buffer = buffer
        self.skip_zero_rows = skip_zero_rows
        self.compaction = compaction

    def _is_robust(self):
        return True

"""Online adaptive variance minimisation: OnlineVarianceMinimizer.

Yuan & Lamperski, "Online Adaptive Principal Component Analysis and Its
Extensions", ICML 2019: Algorithm 5 (unit sphere: matrix Hedge with fixed
share over the minimum-variance direction) and Algorithm 6 (probability
simplex: exponentiated gradient with fixed share, the minimum-variance
portfolio). Each step receives a covariance ``C_t`` (a row ``x`` gives
``C_t = x xᵀ``) and pays ``yᵀ C_t y`` for the current ``y``.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import logsumexp
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_array
from sklearn.utils.extmath import safe_sparse_dot

from ..base import (
    OnlineEstimator,
    OnlineLossMixin,
    ParamRecord,
    check_finite_magnitude,
)
from ..utils._random import RANDOM_STATE_OR_GENERATOR, as_generator
from ..utils._rows import check_row_norms
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
from ._density_kernels import sign_fixed
from ._variance_minimizer_kernels import VarianceState, variance_pass

__all__ = ["OnlineVarianceMinimizer"]


# --------------------------------------------------------------- estimator
@dataclass(frozen=True)
class VarianceFrozen(ParamRecord):
    """The parameters that shape the minimiser's state (every other one is live)."""

    domain: str
    keep_history: bool


class OnlineVarianceMinimizer(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, OnlineLossMixin, OnlineEstimator
):
    """Online adaptive variance minimisation on the sphere or the simplex.

    At each step the learner holds ``y`` (a unit vector, ``domain="sphere"``,
    or portfolio weights, ``domain="simplex"``), receives a covariance
    ``0 ⪯ C_t ⪯ I`` and pays ``yᵀC_t y``.

    * ``"sphere"`` (Alg. 5): a density matrix ``Y`` over directions,
      ``Y <- (a/n) I + (1-a) exp(log Y - eta C_t)/Tr(.)`` with ``a`` the
      fixed share; a direction drawn from ``Y`` has expected loss
      ``Tr(Y C_t)``. ``O(n³)`` per step (one ``n × n`` eigendecomposition),
      ``O(n²)`` memory.
    * ``"simplex"`` (Alg. 6): ``y <- a/n + (1-a) y∘exp(-eta C_t y)/Z``,
      deterministic, ``O(n²)`` per step (``O(n)`` for a row), ``O(n)`` memory.

    Guarantees, on every interval ``[r, s]`` of ``T`` steps (the proofs'
    explicit forms): sphere, Theorem 5 (``eta = sqrt(l/T)``,
    ``a = 1/(T+1)``, ``l = ln(n(1+T))``),
    ``regret <= (1/eta)(ln(n/a) + T ln(1/(1-a))) + eta T/2
    <= 1.5 sqrt(T l) + sqrt(T/l)``; Theorem 4 with a loss bound ``L``:
    ``sqrt(2LD) + D``, ``D = l + 1``; simplex, Theorem 6 (corrected:
    the paper drops a "+2"), ``2 sqrt(2 L E) + 2 E`` with
    ``E = ln((1+T)n) + 1``.

    Read more in the :ref:`User Guide <online_pca>`.

    Parameters
    ----------
    domain : {"sphere", "simplex"}, default="sphere"
        Unit vectors (Alg. 5) or portfolio weights on the probability simplex
        (Alg. 6). Fixed at the first call.

    learning_rate : float or "auto", default="auto"
        ``eta > 0``; ``"auto"``: the theorem's value (above).

    fixed_share : float or "auto", default="auto"
        Fixed-share rate ``a`` in ``[0, 1)``; ``"auto"``: ``1/(T+1)``.

    horizon : int, default=None
        ``T`` for the ``"auto"`` settings. ``None``: the doubling trick, the
        ``"auto"`` values are re-tuned for ``T = 2^j`` at steps ``2^j``
        (``j = 0, 1, ...``). The state is kept across re-tunings: the fixed
        share keeps every weight ``>= a/n``, which is all the per-interval
        bound needs at an interval's start, so every interval inside one
        doubling epoch keeps its epoch's guarantee. The rates (numbers or
        ``"auto"``) are read again at every call, so ``set_params`` between
        calls applies from the next step.

    loss_bound : float, default=None
        ``L``, an upper bound on the best comparator's loss, for the
        ``"auto"`` learning rate (sphere: switches Theorem 5 to Theorem 4;
        simplex: ``None`` means ``T``).

    row_norm : {"none", "clip", "error"}, default="none"
        For :meth:`partial_fit`'s rows (``C_t = x xᵀ ⪯ I`` needs
        ``||x|| <= 1``): leave, rescale rows of norm above 1 to norm 1, or
        raise.

    eigenvalue_floor : float, default=1e-16
        Sphere only: floor on the normalised eigenvalues before the fixed
        share (see :class:`AdaptiveOnlinePCA`); irrelevant when ``a/n`` is
        larger.

    keep_history : bool, default=False
        Store the per-step expected losses in ``loss_history_``. Fixed at the
        first call.

    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the random generator of :meth:`sample_direction` (the only use).

    verbose : int, default=0
        Progress on ``sys.stderr`` (:ref:`progress`): ``1`` shows a bar with
        the rows per second and the time left during :meth:`fit` in a terminal
        or a notebook, at most ten lines elsewhere; ``2`` adds the mean loss so
        far and one line per :meth:`partial_fit` call. The state learned is
        the same.

    Attributes
    ----------
    direction_ : ndarray of shape (n_features,)
        Sphere: the eigenvector of ``Y`` with the largest eigenvalue (the
        preferred direction; sign-fixed). Simplex: the weights.

    weights_ : ndarray of shape (n_features,)
        Simplex: ``y``; sphere: the eigenvalues of ``Y`` (ascending, matching
        ``density_eigenvectors_``).

    density_eigenvalues_ : ndarray of shape (n_features,)
        Sphere: the eigenvalues of ``Y``, ascending.

    density_eigenvectors_ : ndarray of shape (n_features, n_features)
        Sphere: the matching eigenvectors (columns).

    n_samples_seen_ : int
        Steps (rows or covariances) processed.

    learning_rate_ : float
        The learning rate of the last step.

    fixed_share_ : float
        The fixed-share rate of the last step.

    cumulative_loss_ : float
        Sum of the expected losses, each before its step's update.

    loss_history_ : ndarray of shape (n_samples_seen_,)
        Only with ``keep_history=True``.

    n_features_in_ : int
        Number of features seen during the first fit.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    AdaptiveOnlinePCA : The same update for rank-``k`` projections.

    References
    ----------
    Yuan, Lamperski. Online Adaptive Principal Component Analysis and Its
    Extensions. ICML 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import gen_batches
    >>> from skonline.decomposition import OnlineVarianceMinimizer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((400, 5)) * [0.5, 0.5, 0.5, 0.5, 0.05]
    >>> ovm = OnlineVarianceMinimizer(domain="sphere", horizon=400)
    >>> for batch in gen_batches(len(X), 100):
    ...     ovm = ovm.partial_fit(X[batch])
    >>> int(np.argmax(np.abs(ovm.direction_)))  # the low-variance coordinate
    4
    """

    _accept_sparse = "csr"

    _parameter_constraints: ClassVar[dict] = {
        "verbose": ["verbose"],
        "domain": [StrOptions({"sphere", "simplex"})],
        "learning_rate": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "fixed_share": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "horizon": [Interval(Integral, 1, None, closed="left"), None],
        "loss_bound": [Interval(Real, 0, None, closed="neither"), None],
        "row_norm": [StrOptions({"clip", "none", "error"})],
        "eigenvalue_floor": [Interval(Real, 0, 1, closed="left")],
        "keep_history": ["boolean"],
        "random_state": RANDOM_STATE_OR_GENERATOR,
    }

    @property
    def _constant_memory(self):  # type: ignore[override]  # the history grows with the stream
        return not self.keep_history

    def __init__(
        self,
        domain="sphere",
        *,
        learning_rate="auto",
        fixed_share="auto",
        horizon=None,
        loss_bound=None,
        row_norm="none",
        eigenvalue_floor=1e-16,
        keep_history=False,
        random_state=None,
        verbose=0,
    ):
        self.domain = domain
        self.learning_rate = learning_rate
        self.fixed_share = fixed_share
        self.horizon = horizon
        self.loss_bound = loss_bound
        self.row_norm = row_norm
        self.eigenvalue_floor = eigenvalue_floor
        self.keep_history = keep_history
        self.random_state = random_state
        self.verbose = verbose

    _frozen_record: ClassVar[type[ParamRecord]] = VarianceFrozen

    # ------------------------------------------------------------ validation
    def _validate_batch(self, X, y, first_call, **fit_params):
        X, y = self._check_training_data(X, y, first_call)
        self._check_width(X.shape[1])
        check_row_norms(X, self.row_norm)  # C_t = x xᵀ ⪯ I needs ||x|| <= 1
        return X, y, {}

    def _check_width(self, n):
        if n < 2:
            raise ValueError(
                f"OnlineVarianceMinimizer needs at least 2 features; X has {n} feature(s)."
            )
        if self.eigenvalue_floor * n >= 1:
            raise ValueError("eigenvalue_floor must be below 1/n_features.")

    def _validate_covariances(self, C, first_call):
        if np.iscomplexobj(C):
            raise ValueError("C must be real; complex data are not supported.")
        C = np.asarray(C, dtype=np.float64)
        if C.ndim == 2:
            C = C[None]
        if C.ndim != 3 or C.shape[1] != C.shape[2] or C.shape[0] == 0:
            raise ValueError(
                f"C must have shape (n, n) or (m, n, n) with m >= 1; got {np.shape(C)}."
            )
        if not np.all(np.isfinite(C)):
            raise ValueError("C contains NaN or infinity.")
        check_finite_magnitude(C, name="C")
        n = C.shape[1]
        if not first_call and n != self.n_features_in_:
            raise ValueError(
                f"C is {n} x {n}, but OnlineVarianceMinimizer is expecting "
                f"{self.n_features_in_} features."
            )
        self._check_width(n)
        scale = max(1.0, float(np.max(np.abs(C))))
        if np.max(np.abs(C - np.swapaxes(C, 1, 2))) > 1e-10 * scale:
            raise ValueError("every C_t must be symmetric.")
        if np.min(np.linalg.eigvalsh(C)) < -1e-10 * scale:
            raise ValueError("every C_t must be positive semi-definite.")
        return 0.5 * (C + np.swapaxes(C, 1, 2))

    # ----------------------------------------------------------------- state
    def _init_state(self, X, y, **kwargs):
        n = X.shape[1]
        return VarianceState(
            U=np.eye(n) if self.domain == "sphere" else None,
            log_w=np.full(n, -np.log(n)),
            loss_history=np.zeros(0) if self.keep_history else None,
        )

    def _pass(self, state, **data):
        new, _ = variance_pass(
            state,
            **data,
            domain=state.frozen.domain,
            learning_rate=self.learning_rate,
            fixed_share=self.fixed_share,
            horizon=self.horizon,
            loss_bound=self.loss_bound,
            eigenvalue_floor=self.eigenvalue_floor,
            row_norm=self.row_norm,
        )
        return new

    def _partial_fit_state(self, state, X, y, **kwargs):
        return self._pass(state, rows=X)

    # ------------------------------------------------------------ fitting API
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """One step per row ``x`` of ``X``, with ``C_t = x xᵀ``.

        The whole batch is validated first; if anything fails the estimator
        is left as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows, in stream order.
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
        """Forget everything, then one step per row of ``X`` in order.

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

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit_covariances(self, C):
        """One step per covariance matrix ``C_t`` (the paper's general protocol).

        Follows the same contract as :meth:`partial_fit`: the matrices are
        validated as a whole first, the parameters fixed at the first call
        are checked, and if anything fails the estimator is left as it was
        (an unfitted one stays unfitted).

        Parameters
        ----------
        C : array-like of shape (n_features, n_features) or (n_steps, n_features, n_features)
            Symmetric positive semi-definite matrices, in stream order; the
            guarantees need ``C_t ⪯ I``.

        Returns
        -------
        self : object
            The estimator, updated.
        """
        with self._transaction() as est:
            first_call = not est._is_initialized()
            if not first_call:
                est._check_frozen(est._state)
            C = est._validate_covariances(C, first_call)
            if first_call:
                est.n_features_in_ = C.shape[1]
                state = est._new_state(np.empty((0, C.shape[1])), None)
            else:
                state = est._state
            est._commit(est._pass(state, covariances=C))
        return self

    # -------------------------------------------------------------- read-out
    def _order(self):
        return np.argsort(self._fitted_state().log_w, kind="stable")

    def _sphere_state(self, name):
        state = self._fitted_state()
        if state.U is None:
            raise AttributeError(f"{name} is defined for domain='sphere' only")
        return state

    @property
    def learning_rate_(self):
        """The learning rate of the last step (``"auto"`` resolved)."""
        return float(self._fitted_state().learning_rate)

    @property
    def fixed_share_(self):
        """The fixed-share rate of the last step (``"auto"`` resolved)."""
        return float(self._fitted_state().fixed_share)

    @property
    def density_eigenvalues_(self):
        """Eigenvalues of ``Y`` (sphere), ascending."""
        state = self._sphere_state("density_eigenvalues_")
        return np.exp(state.log_w[self._order()])

    @property
    def density_eigenvectors_(self):
        """Matching eigenvectors (sphere)."""
        state = self._sphere_state("density_eigenvectors_")
        return sign_fixed(state.U[:, self._order()])

    @property
    def weights_(self):
        """``y`` (simplex) or the eigenvalues of ``Y`` (sphere)."""
        state = self._fitted_state()
        if state.U is None:
            return np.exp(state.log_w - logsumexp(state.log_w))
        return self.density_eigenvalues_

    @property
    def direction_(self):
        """The deterministic choice ``y``.

        Sphere: the eigenvector of ``Y`` with the largest eigenvalue; simplex:
        the weights.
        """
        state = self._fitted_state()
        if state.U is None:
            return self.weights_
        return sign_fixed(state.U[:, self._order()[-1:]])[:, 0]

    def sample_direction(self, random_state=None):
        """Draw a unit direction from ``Y`` as Alg. 5 does (sphere only).

        Parameters
        ----------
        random_state : int, Generator, RandomState or None, default=None
            Source of the uniform draw; ``None`` uses the estimator's
            ``random_state``.

        Returns
        -------
        y : ndarray of shape (n_features,)
            An eigenvector of ``Y``, drawn with probability its eigenvalue.
        """
        state = self._sphere_state("sample_direction")
        rng = as_generator(self.random_state if random_state is None else random_state)
        w = np.exp(state.log_w - logsumexp(state.log_w))
        j = min(int(np.searchsorted(np.cumsum(w), rng.random(), side="right")), w.size - 1)
        return sign_fixed(state.U[:, [j]])[:, 0]

    @property
    def _n_features_out(self):
        return 1

    def transform(self, X):
        """``X @ direction_`` as a column: the projection (sphere) or portfolio return (simplex).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to project.

        Returns
        -------
        X_new : ndarray of shape (n_samples, 1)
            Each row's coordinate along ``direction_``, in the floating dtype
            of ``X`` (computed in float64).
        """
        X = self._validate_predict(X)
        return self._projection(X).astype(X.dtype, copy=False)

    def _projection(self, X):
        """``X @ direction_`` as a float64 column (``X`` validated)."""
        y = self.direction_
        return np.asarray(safe_sparse_dot(X, y[:, None], dense_output=True), dtype=np.float64)

    def inverse_transform(self, X):
        """Map coordinates back to the line along ``direction_``: ``z y / ||y||²``.

        The row of least norm whose :meth:`transform` is ``z``; for the
        sphere ``||y|| = 1``, so it is ``z y``, the projection of a row onto
        ``direction_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, 1)
            Coordinates along ``direction_`` (the output of :meth:`transform`).

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            The points of the line through the origin along ``direction_``
            with these coordinates, in the floating dtype of ``X``.
        """
        self._check_fitted()
        X = check_array(X, dtype=[np.float64, np.float32])
        if X.shape[1] != 1:
            raise ValueError(
                f"X has {X.shape[1]} features, but inverse_transform expects 1 "
                "(the coordinate along direction_)."
            )
        y = self.direction_
        out = np.asarray(X, dtype=np.float64) @ (y / (y @ y))[None, :]
        return out.astype(X.dtype, copy=False)

    def score_samples(self, X):
        """``-(x·y)²`` per row: the negative variance paid with ``y = direction_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            The negative loss of each row; greater is better.
        """
        return -(self._projection(self._validate_predict(X))[:, 0] ** 2)

    def score(self, X, y=None):
        """Mean of :meth:`score_samples` (greater is better).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        score : float
            The negative mean loss of the rows.
        """
        return float(np.mean(self.score_samples(X)))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

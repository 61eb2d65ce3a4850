"""Online adaptive variance minimisation: OnlineVarianceMinimizer.

Yuan & Lamperski, "Online Adaptive Principal Component Analysis and Its
Extensions", ICML 2019: Algorithm 5 (unit sphere: matrix Hedge with fixed
share over the minimum-variance direction) and Algorithm 6 (probability
simplex: exponentiated gradient with fixed share, the minimum-variance
portfolio). Each step receives a covariance ``C_t`` (a row ``x`` gives
``C_t = x xᵀ``) and pays ``yᵀ C_t y`` for the current ``y``.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import logsumexp
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.extmath import safe_sparse_dot

from .._legacy_base import OnlineEstimator, check_finite_magnitude
from ..utils._capping import log_fixed_share, log_normalize, spectral_step
from ..utils._density import meg_eigen_step, sign_fixed
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
from ._online_pca import _as_generator, _dense_rows, check_row_norms, prepare_rows

__all__ = ["OnlineVarianceMinimizer", "theory_variance_parameters"]


# ----------------------------------------------------------------- kernels
def theory_variance_parameters(domain, n_features, horizon, loss_bound=None):
    """``(eta, alpha)`` of Theorems 4-6 for horizon ``T``.

    Sphere: ``alpha = 1/(T+1)``; without ``loss_bound`` Theorem 5,
    ``eta = sqrt(ln(n(1+T))/T)``; with ``L`` Theorem 4,
    ``eta = ln(1 + sqrt(2D/L))``, ``D = ln(n(1+T)) + 1``. Simplex (Theorem 6):
    ``alpha = 1/(T+1)``, ``c = sqrt(2 ln((1+T)n) + 2)/sqrt(L)``,
    ``eta = c/(1+c)``, with ``L = T`` unless given.
    """
    T, n = float(horizon), n_features
    alpha = 1.0 / (T + 1.0)
    ell = np.log(n * (1.0 + T))
    if domain == "sphere":
        if loss_bound is None:
            return float(np.sqrt(ell / T)), alpha
        return float(np.log1p(np.sqrt(2.0 * (ell + 1.0) / float(loss_bound)))), alpha
    L = T if loss_bound is None else float(loss_bound)
    c = np.sqrt(2.0 * ell + 2.0) / np.sqrt(L)
    return float(c / (1.0 + c)), alpha


def simplex_step(log_y, grad, learning_rate, alpha):
    """Eq. (31a-b): ``v ∝ y exp(-eta grad)``, ``y' = alpha/n + (1-alpha) v`` (log domain)."""
    return log_fixed_share(log_normalize(log_y - learning_rate * grad), alpha)


# --------------------------------------------------------------- estimator
class OnlineVarianceMinimizer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, OnlineEstimator):
    """Online adaptive variance minimisation on the sphere or the simplex.

    At each step the learner holds ``y`` (a unit vector, ``domain="sphere"``,
    or portfolio weights, ``domain="simplex"``), receives a covariance
    ``0 ⪯ C_t ⪯ I`` and pays ``yᵀC_t y``.

    * ``"sphere"`` (Alg. 5): a density matrix ``Y`` over directions,
      ``Y <- (alpha/n) I + (1-alpha) exp(log Y - eta C_t)/Tr(.)``; a direction
      drawn from ``Y`` has expected loss ``Tr(Y C_t)``. ``O(n³)`` per step
      (one ``n × n`` eigendecomposition), ``O(n²)`` memory.
    * ``"simplex"`` (Alg. 6): ``y <- alpha/n + (1-alpha) y∘exp(-eta C_t y)/Z``,
      deterministic, ``O(n²)`` per step (``O(n)`` for a row), ``O(n)`` memory.

    Guarantees, on every interval ``[r, s]`` of ``T`` steps (the proofs'
    explicit forms): sphere, Theorem 5 (``eta = sqrt(l/T)``,
    ``alpha = 1/(T+1)``, ``l = ln(n(1+T))``),
    ``regret <= (1/eta)(ln(n/alpha) + T ln(1/(1-alpha))) + eta T/2
    <= 1.5 sqrt(T l) + sqrt(T/l)``; Theorem 4 with a loss bound ``L``:
    ``sqrt(2LD) + D``, ``D = l + 1``; simplex, Theorem 6 (corrected:
    the paper drops a "+2"), ``2 sqrt(2 L E) + 2 E`` with
    ``E = ln((1+T)n) + 1``.

    Parameters
    ----------
    domain : {"sphere", "simplex"}, default="sphere"

    learning_rate : float or "auto", default="auto"
        ``eta > 0``; ``"auto"``: the theorem's value (above).

    alpha : float or "auto", default="auto"
        Fixed-share rate in ``[0, 1)``; ``"auto"``: ``1/(T+1)``.

    horizon : int, default=None
        ``T`` for the ``"auto"`` settings. ``None``: the doubling trick, the
        ``"auto"`` values are re-tuned for ``T = 2^j`` at steps ``2^j``
        (``j = 0, 1, ...``). The state is kept across re-tunings: the fixed
        share keeps every weight ``>= alpha/n``, which is all the
        per-interval bound needs at an interval's start, so every interval
        inside one doubling epoch keeps its epoch's guarantee. The rates
        (numbers or ``"auto"``) are read again at every call, so
        ``set_params`` between calls applies from the next step.

    loss_bound : float, default=None
        ``L`` for the ``"auto"`` learning rate (sphere: switches Theorem 5
        to Theorem 4; simplex: ``None`` means ``T``).

    row_norm : {"none", "clip", "error"}, default="none"
        For :meth:`partial_fit`'s rows (``C_t = x xᵀ ⪯ I`` needs
        ``||x|| <= 1``): leave, rescale rows of norm above 1 to norm 1, or
        raise.

    eigenvalue_floor : float, default=1e-16
        Sphere only: floor on the normalised eigenvalues before the fixed
        share (see :class:`AdaptiveOnlinePCA`); irrelevant when
        ``alpha/n`` is larger.

    keep_history : bool, default=False
        Store the per-step expected losses in ``losses_``.

    random_state : int, RandomState instance, Generator or None, default=None
        Only for :meth:`sample_direction`.

    Attributes
    ----------
    direction_ : ndarray of shape (n_features,)
        Sphere: the eigenvector of ``Y`` with the largest eigenvalue (the
        preferred direction; sign-fixed).

    weights_ : ndarray of shape (n_features,)
        Simplex: ``y``; sphere: the eigenvalues of ``Y`` (ascending, matching
        ``density_eigenvectors_``).

    density_eigenvalues_, density_eigenvectors_ : ndarray
        Sphere: the eigen-decomposition of ``Y`` (ascending).

    n_steps_ : int
        Steps (rows or covariances) processed.

    learning_rate_, alpha_ : float
        The values in use.

    cumulative_loss_ : float
        Sum of the expected losses, each before its step's update.

    losses_ : ndarray of shape (n_steps_,)
        Only with ``keep_history=True``.

    n_features_in_ : int
        Number of features seen during the first fit.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    AdaptiveOnlinePCA : the same update for rank-``k`` projections.

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
    _private_state = ("_U", "_log_w", "_fitted_params")

    _parameter_constraints: ClassVar[dict] = {
        "domain": [StrOptions({"sphere", "simplex"})],
        "learning_rate": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "alpha": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "horizon": [Interval(Integral, 1, None, closed="left"), None],
        "loss_bound": [Interval(Real, 0, None, closed="neither"), None],
        "row_norm": [StrOptions({"clip", "none", "error"})],
        "eigenvalue_floor": [Interval(Real, 0, 1, closed="left")],
        "keep_history": ["boolean"],
        "random_state": ["random_state"],
    }

    @property
    def _constant_memory(self):
        return not self.keep_history

    def __init__(
        self,
        domain="sphere",
        *,
        learning_rate="auto",
        alpha="auto",
        horizon=None,
        loss_bound=None,
        row_norm="none",
        eigenvalue_floor=1e-16,
        keep_history=False,
        random_state=None,
    ):
        self.domain = domain
        self.learning_rate = learning_rate
        self.alpha = alpha
        self.horizon = horizon
        self.loss_bound = loss_bound
        self.row_norm = row_norm
        self.eigenvalue_floor = eigenvalue_floor
        self.keep_history = keep_history
        self.random_state = random_state

    # ------------------------------------------------------------ validation
    def _validate_batch(self, X, y, first_call):
        if not first_call and self._fitted_params != self.domain:
            raise ValueError("domain changed since the first partial_fit; call fit to restart.")
        X, y = super()._validate_batch(X, y, first_call)
        self._check_width(X.shape[1])
        check_row_norms(X, self.row_norm)  # C_t = x xᵀ ⪯ I needs ||x|| <= 1
        return X, y

    def _check_width(self, n):
        if n < 2:
            raise ValueError(
                f"OnlineVarianceMinimizer needs at least 2 features; X has {n} feature(s)."
            )
        if self.eigenvalue_floor * n >= 1:
            raise ValueError("eigenvalue_floor must be below 1/n_features.")

    def _validate_covariances(self, C):
        if np.iscomplexobj(C):
            raise ValueError("C must be real; complex data are not supported.")
        C = np.asarray(C, dtype=np.float64)
        if C.ndim == 2:
            C = C[None]
        if C.ndim != 3 or C.shape[1] != C.shape[2] or C.shape[0] == 0:
            raise ValueError(f"C must have shape (n, n) or (m, n, n); got {np.shape(C)}.")
        if not np.all(np.isfinite(C)):
            raise ValueError("C contains NaN or infinity.")
        check_finite_magnitude(C, name="C")
        n = C.shape[1]
        if self._is_initialized():
            if n != self.n_features_in_:
                raise ValueError(
                    f"C is {n} x {n}, but OnlineVarianceMinimizer is expecting "
                    f"{self.n_features_in_} features."
                )
            if self._fitted_params != self.domain:
                raise ValueError("domain changed since the first call; call fit to restart.")
        self._check_width(n)
        scale = max(1.0, float(np.max(np.abs(C))))
        if np.max(np.abs(C - np.swapaxes(C, 1, 2))) > 1e-10 * scale:
            raise ValueError("every C_t must be symmetric.")
        if np.min(np.linalg.eigvalsh(C)) < -1e-10 * scale:
            raise ValueError("every C_t must be positive semi-definite.")
        return 0.5 * (C + np.swapaxes(C, 1, 2))

    # ----------------------------------------------------------------- state
    def _init_state(self, X, y):
        self._init_width(X.shape[1])

    def _init_width(self, n):
        self._fitted_params = self.domain
        self._U = np.eye(n) if self.domain == "sphere" else None
        self._log_w = np.full(n, -np.log(n))
        self.n_steps_ = 0
        self.cumulative_loss_ = 0.0
        if self.keep_history:
            self.losses_ = np.zeros(0)
        self._tune(1)

    def _tune(self, t):
        """Resolve the "auto" settings for step ``t`` (doubling when no horizon)."""
        n = self._log_w.shape[0]
        if self.horizon is not None:
            T = self.horizon
        else:
            T = 1 << (int(t).bit_length() - 1)  # epoch length 2^j for t in [2^j, 2^(j+1))
        eta_t, alpha_t = theory_variance_parameters(self.domain, n, T, self.loss_bound)
        eta = eta_t if self.learning_rate == "auto" else self.learning_rate
        alpha = alpha_t if self.alpha == "auto" else self.alpha
        self.learning_rate_, self.alpha_ = float(eta), float(alpha)

    def _step(self, x=None, C=None):
        """One step; returns the expected loss paid before the update."""
        t = self.n_steps_ + 1
        if self.horizon is None and t & (t - 1) == 0:  # t is a power of two
            self._tune(t)
        eta, alpha = self.learning_rate_, self.alpha_
        if self.domain == "sphere":
            w = np.exp(self._log_w)
            if x is not None:
                z = self._U.T @ x
                loss = float(w @ (z * z))
                self._U, mu = meg_eigen_step(self._U, self._log_w, eta, z=z)
            else:
                G = self._U.T @ C @ self._U
                loss = float(w @ np.diag(G))
                self._U, mu = meg_eigen_step(self._U, self._log_w, eta, G=G)
            self._log_w = spectral_step(
                mu, 1, floor=float(self.eigenvalue_floor), share_before_cap=alpha
            )
        else:
            yv = np.exp(self._log_w)
            if x is not None:
                r = float(x @ yv)
                loss, grad = r * r, x * r
            else:
                grad = C @ yv
                loss = float(yv @ grad)
            self._log_w = simplex_step(self._log_w, grad, eta, alpha)
        self.n_steps_ = t
        return loss

    def _run(self, rows=None, covs=None):
        self._tune(self.n_steps_ + 1)  # rates set (set_params) since the last call apply now
        losses = []
        cum = self.cumulative_loss_
        if rows is not None:
            for _, block in _dense_rows(rows):
                for x in prepare_rows(block, self.row_norm):
                    loss = self._step(x=x)
                    cum += loss
                    losses.append(loss)
        else:
            for C in covs:
                loss = self._step(C=C)
                cum += loss
                losses.append(loss)
        self.cumulative_loss_ = cum
        if self.keep_history:
            self.losses_ = np.concatenate([self.losses_, np.asarray(losses)])

    def _update(self, X, y):
        self._run(rows=X)

    # ------------------------------------------------------------ fitting API
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """One step per row ``x`` of ``X``, with ``C_t = x xᵀ``.

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
        """Forget everything, then one step per row of ``X`` in order.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        self : object
        """
        return self._online_fit(X)

    def partial_fit_covariances(self, C):
        """One step per covariance matrix ``C_t`` (the paper's general protocol).

        Parameters
        ----------
        C : array-like of shape (n_features, n_features) or (n_steps, n_features, n_features)
            Symmetric positive semi-definite matrices; the guarantees need
            ``C_t ⪯ I``. Validated as a whole before any step.

        Returns
        -------
        self : object
        """
        self._validate_params()
        C = self._validate_covariances(C)
        if not self._is_initialized():
            self.n_features_in_ = C.shape[1]
            self._init_width(C.shape[1])
        self._run(covs=C)
        return self

    # -------------------------------------------------------------- read-out
    def _order(self):
        return np.argsort(self._log_w, kind="stable")

    @property
    def density_eigenvalues_(self):
        """ndarray of shape (n_features,): eigenvalues of ``Y`` (sphere), ascending."""
        self._check_fitted()
        self._require_sphere("density_eigenvalues_")
        return np.exp(self._log_w[self._order()])

    @property
    def density_eigenvectors_(self):
        """ndarray of shape (n_features, n_features): matching eigenvectors (sphere)."""
        self._check_fitted()
        self._require_sphere("density_eigenvectors_")
        return sign_fixed(self._U[:, self._order()])

    def _require_sphere(self, name):
        if self.domain != "sphere" or self._U is None:
            raise AttributeError(f"{name} is defined for domain='sphere' only")

    @property
    def weights_(self):
        """ndarray of shape (n_features,): ``y`` (simplex) or the eigenvalues of ``Y`` (sphere)."""
        self._check_fitted()
        if self._U is None:
            return np.exp(self._log_w - logsumexp(self._log_w))
        return self.density_eigenvalues_

    @property
    def direction_(self):
        """ndarray of shape (n_features,): the deterministic choice ``y``.

        Sphere: the eigenvector of ``Y`` with the largest eigenvalue; simplex:
        the weights.
        """
        self._check_fitted()
        if self._U is None:
            return self.weights_
        return sign_fixed(self._U[:, self._order()[-1:]])[:, 0]

    def sample_direction(self, random_state=None):
        """Draw a unit direction from ``Y`` as Alg. 5 does (sphere only).

        Parameters
        ----------
        random_state : int, Generator, RandomState or None
            ``None`` uses the estimator's ``random_state``.

        Returns
        -------
        y : ndarray of shape (n_features,)
        """
        self._check_fitted()
        self._require_sphere("sample_direction")
        rng = _as_generator(self.random_state if random_state is None else random_state)
        w = np.exp(self._log_w - logsumexp(self._log_w))
        j = min(int(np.searchsorted(np.cumsum(w), rng.random(), side="right")), w.size - 1)
        return sign_fixed(self._U[:, [j]])[:, 0]

    @property
    def _n_features_out(self):
        return 1

    def transform(self, X):
        """``X @ direction_`` as a column: the projection (sphere) or portfolio return (simplex).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        X_new : ndarray of shape (n_samples, 1)
        """
        X = self._validate_predict(X)
        y = self.direction_
        return np.asarray(safe_sparse_dot(X, y[:, None], dense_output=True), dtype=np.float64)

    def score_samples(self, X):
        """``-(x·y)²`` per row: the negative variance paid with ``y = direction_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        return -(self.transform(X)[:, 0] ** 2)

    def score(self, X, y=None):
        """Mean of :meth:`score_samples` (greater is better).

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
        return tags

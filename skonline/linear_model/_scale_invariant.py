"""Scale-invariant online learners: ScaleInvariantClassifier and ScaleInvariantRegressor.

Kotłowski, "Scale-Invariant Unconstrained Online Learning", ALT 2017:
Algorithm 1 (coordinate-wise invariant, Sec. 3.2) and Algorithm 2 (invariant
to every invertible linear map, Sec. 4.2). The passes, their states and
read-outs are in :mod:`skonline.linear_model._scale_invariant_kernels`; the
online linear mixins of :mod:`skonline.linear_model._linear` handle targets,
classes, sample weights, epochs and read-outs; this module validates the
parameters and calls the kernels.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if

from ..base import OnlineEstimator
from ..utils._rows import canonical_csr
from ..utils._sklearn_compat import Interval, StrOptions
from ._linear import (
    OnlineLinearClassifierMixin,
    OnlineLinearRegressorMixin,
    probabilities_from_scores,
)
from ._scale_invariant_kernels import (
    MAX_EXPONENT,
    MIN_POTENTIAL_WIDTH,
    centered_readout,
    coordinate_centered_pass,
    coordinate_pass,
    coordinate_readout,
    full_pass,
    full_readout,
    init_state,
)

__all__ = ["ScaleInvariantClassifier", "ScaleInvariantRegressor"]

#: Widest input (intercept included) the full variant accepts: two d x d matrices.
MAX_FULL_FEATURES = 10_000


def _kind(variant, center):
    """The pass of a parameter setting: "coordinate", "center" or "full"."""
    if variant == "full":
        return "full"
    return "center" if center else "coordinate"


class _BaseScaleInvariant(OnlineEstimator):
    """The engine shared by the classifier and the regressor.

    Comes before the online linear mixin in the bases of an estimator: it
    provides the hooks ``_init_state``, ``_linear_pass`` and
    ``_linear_readout``.
    """

    _accept_sparse = "csr"
    _zero_is_positive = False  # a decision of exactly 0 is classes_[0]

    _parameter_constraints: ClassVar[dict] = {
        "variant": [StrOptions({"coordinate", "full"})],
        "potential_width": [Interval(Real, MIN_POTENTIAL_WIDTH, None, closed="left")],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "time_counter": [StrOptions({"global", "per_feature"})],
        "center": ["boolean"],
        "rank_tol": [Interval(Real, 0, 1, closed="left")],
        "warm_start": ["boolean"],
    }

    def _frozen_params(self):
        return ("variant", "potential_width", "fit_intercept", "time_counter", "center")

    # ----------------------------------------------------------- internals
    def _epsilon(self):
        return 0.0

    def _kernel_loss(self, state):
        return self.loss

    def _check_params_consistent(self, X):
        if self.variant == "coordinate" and self.potential_width <= MIN_POTENTIAL_WIDTH:
            raise ValueError(
                "variant='coordinate' needs potential_width > 9/8 (got "
                f"{self.potential_width}): its constant kappa = exp(1/(2(potential_width "
                "- 9/8))) of Theorem 3.4 is infinite at 9/8."
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

    @staticmethod
    def _augment(X, frozen):
        """The rows the pass expects: the constant intercept column appended (value 1)."""
        fit_intercept = frozen["fit_intercept"]
        kind = _kind(frozen["variant"], frozen["center"])
        if kind == "coordinate":
            X = canonical_csr(X)
            if fit_intercept:
                X = sp.hstack([X, np.ones((X.shape[0], 1))], format="csr", dtype=np.float64)
            return X
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            X.sum_duplicates()
        else:
            X = np.ascontiguousarray(X, dtype=np.float64)
        if kind == "center" or not fit_intercept:
            return X
        if sp.issparse(X):
            return sp.hstack([X, np.ones((X.shape[0], 1))], format="csr", dtype=np.float64)
        return np.hstack([X, np.ones((X.shape[0], 1))])

    # --------------------------------------------------------------- state
    def _init_state(self, X, y, **kwargs):
        classes = kwargs.get("classes")  # the classifier's; None for the regressor
        K = 1 if classes is None else self._n_outputs(classes)
        return init_state(
            _kind(self.variant, self.center),
            X.shape[1],
            K,
            fit_intercept=bool(self.fit_intercept),
            per_feature=self.time_counter == "per_feature",
            classes=classes,
        )

    def _linear_pass(self, state, X, T, sample_weight):
        """One ordered pass of Algorithm 1, its centred form or Algorithm 2 over the rows."""
        frozen = state.frozen
        kind = _kind(frozen["variant"], frozen["center"])
        width = float(frozen["potential_width"])
        fit_intercept = bool(frozen["fit_intercept"])
        common = {
            "potential_width": width,
            "loss": self._kernel_loss(state),
            "epsilon": self._epsilon(),
            "center_target": bool(frozen.get("center_target", False)),
        }
        Xa = self._augment(X, frozen)
        if kind == "full":
            try:
                new, predictions = full_pass(
                    state, Xa, T, sample_weight, rank_tol=float(self.rank_tol), **common
                )
            except FloatingPointError as err:
                raise FloatingPointError(
                    f"variant='full' cannot process this batch: {err} This happens when the "
                    "rows' norms span many orders of magnitude (see the user guide). The "
                    "batch was not applied and the estimator is as it was before the call; "
                    "variant='coordinate' has no such limit."
                ) from err
            new.coef, new.intercept = full_readout(
                new, potential_width=width, fit_intercept=fit_intercept
            )
        elif kind == "center":
            new, predictions = coordinate_centered_pass(
                state, Xa, T, sample_weight, fit_intercept=fit_intercept, **common
            )
            new.coef, new.intercept = centered_readout(
                new, potential_width=width, fit_intercept=fit_intercept
            )
        else:
            new, predictions = coordinate_pass(state, Xa, T, sample_weight, **common)
            new.coef, new.intercept = coordinate_readout(
                new, potential_width=width, fit_intercept=fit_intercept
            )
        if new.n_clipped > state.n_clipped:
            warnings.warn(
                f"the potential's exponent exceeded {MAX_EXPONENT:g} on "
                f"{new.n_clipped - state.n_clipped} rows and was clipped: the weights are "
                "capped there and the regret guarantee no longer applies (typical of "
                "adversarial or linear losses, not of logistic/hinge losses on real data).",
                UserWarning,
                stacklevel=5,
            )
        return new, predictions

    def _linear_readout(self, state):
        return state.coef, state.intercept

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = not self.center  # centring would densify sparse rows
        return tags


_VARIANT_DOC = """\
    variant : {"coordinate", "full"}, default="coordinate"
        ``"coordinate"``: Algorithm 1, invariant to per-feature rescaling
        ``x_i → a_i x_i`` (any ``a_i ≠ 0``), ``O(nnz)`` time per row on CSR
        input and ``O(n_features)`` memory. ``"full"``: Algorithm 2,
        invariant to every invertible linear map of the features (every
        invertible affine map with ``fit_intercept=True``: standardisation,
        whitening, change of units or origin), ``O(n_features²)`` time and
        memory per row.
"""

_WIDTH_DOC = """\
    potential_width : float, default=1.5
        Kotłowski's ``α``, the width of the exponential potential
        ``exp(h²/(2α s²))`` (not a regularisation strength). The coordinate
        variant needs ``potential_width > 9/8`` (the constant
        ``κ = exp(1/(2(α − 9/8)))`` of Theorem 3.4 is infinite at 9/8), the
        full variant ``potential_width >= 9/8`` (Lemma 4.3). Larger values
        give smaller, more cautious weights.

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
"""

_COUNTER_DOC = """\
    time_counter : {"global", "per_feature"}, default="global"
        Coordinate variant: ``t`` in the ``1/(α t d)`` of eq. 5 counts every
        row (the paper) or, ``"per_feature"`` (extension), the rows in which
        the feature was non-zero — a never-worse bound; rare sparse features
        are not damped by ``1/t`` and all-zero rows have no effect.

    center : bool, default=False
        Coordinate variant, dense input only (extension, no regret
        guarantee): centre each feature at its running mean, computed
        retroactively from running sums, which makes the predictions
        invariant to per-feature affine maps ``x_i → a_i x_i + b_i``. The
        paper's algorithm (``False``) is not shift invariant; the user guide
        compares both on uncentred data.

    rank_tol : float, default=1e-10
        Full variant: a row is a new direction when the squared norm of its
        part outside the span of the rows seen exceeds ``rank_tol`` times
        its squared norm (in equilibrated coordinates).

    warm_start : bool, default=False
        :meth:`fit` continues from the current state instead of resetting.
"""

_ATTRS_DOC = """\
    n_samples_seen_ : int
        Rows processed, the paper's ``t`` (every pass of :meth:`fit` counts;
        rows of weight 0 are not seen).

    cumulative_loss_ : float
        Sum over the processed rows of the weighted loss of the prediction
        made before the update (progressive validation); for one-vs-rest the
        sum of the per-class binary losses.

    n_iter_ : int
        Passes made by the last :meth:`fit` (1 after ``partial_fit``).

    n_features_in_ : int
        Number of features seen during the first call.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during the first call, when ``X`` has string
        column names.
"""

_NOTES_DOC = """\
    ``coef_`` and ``intercept_`` are the linearisation at ``x = 0`` of the
    next trial's prediction (the online prediction also depends on the row
    itself through ``s²`` or ``S``); ``decision_function`` uses them.

    A sample weight ``c`` multiplies the row's loss. The guarantees need a
    1-Lipschitz loss, so the learner is fed ``clip(c · g, −1, 1)``, the
    derivative of the largest convex 1-Lipschitz function below ``c · ℓ``:
    weights in ``[0, 1]`` keep the guarantee for ``c · ℓ`` itself, a larger
    weight pulls harder up to a unit gradient (for the hinge and absolute
    losses, exactly as a weight of 1), and any weight, however large, leaves
    the weights as finite as unit weights do. A weight of 0 skips the row.

    The full variant divides each feature by a power of two fixed at its
    first non-zero value (exact, invisible in the predictions) so that the
    pseudo-inverse stays accurate on badly scaled data. Rows whose norms
    span many orders of magnitude still make ``S`` too ill-conditioned for
    float64: the full variant then raises ``FloatingPointError`` and leaves
    the estimator unchanged (measurements in the user guide).
"""


def _has_proba(estimator):
    if estimator.loss != "log_loss":
        raise AttributeError("predict_proba is available only for loss='log_loss'")
    return True


class ScaleInvariantClassifier(ClassifierMixin, _BaseScaleInvariant, OnlineLinearClassifierMixin):
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
    ``S = Σ x xᵀ``, Appendix E); memory ``O(K · n_features)`` and
    ``O(n_features² + K · n_features)``, constant in the number of rows.

    Guarantees, for every comparator ``u`` and every sequence (per output;
    ``α = potential_width``, ``s_i² = Σ_t x_{{t,i}}²``, ``S = Σ_t x_t x_tᵀ``,
    ``Γ_T = Σ_t g_t² x_tᵀS_t⁺x_t``):

        coordinate (Thm 3.4, ``α > 9/8``, ``κ(α) = exp(1/(2(α − 9/8)))``):
        ``regret_T(u) ≤ Σ_i |u_i| s_i sqrt(α log(1 + α d² T² u_i² s_i²)) + κ(α)(1 + log T)``

        full (Thm 4.5, corrected, ``α ≥ 9/8``):
        ``regret_T(u) ≤ ‖u‖_S sqrt(α log(1 + α‖u‖_S²) + Γ_T) + 1``

    Corrected errata: Γ inside the ``1/(2α)`` of Algorithm 2's potential
    and ``+ψ_T`` in Lemma 4.3, ``g_t²`` in ``Γ_T`` and ``+ Γ_T`` (not
    ``log(α) Γ_T``) in Theorem 4.5.

    Read more in the :ref:`User Guide <scale_invariant>`.

    Parameters
    ----------
{_VARIANT_DOC}
    loss : {{"log_loss", "hinge"}}, default="log_loss"
        The loss of the online predictions; both are 1-Lipschitz, as the
        theory needs.

{_WIDTH_DOC}
    multi_class : {{"ovr", "multinomial"}}, default="ovr"
        One-vs-rest binary problems sharing the feature statistics, or
        (extension, ``loss="log_loss"`` only) the softmax loss with
        ``g_k = p_k − 1[y = k]``; the regret bound then holds per output.

{_COUNTER_DOC}
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.

    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Linearised weights of the next trial, in raw feature units.

    intercept_ : ndarray of shape (1,) or (n_classes,)
        The intercepts (the weight of the constant feature).

    n_mistakes_ : int
        Mistakes of the online predictions (made before each update).

    online_error_rate_ : float
        ``n_mistakes_ / n_samples_seen_``: the progressive-validation error.

{_ATTRS_DOC}
    See Also
    --------
    ScaleInvariantRegressor : The same learners for regression.
    sklearn.linear_model.SGDClassifier : Needs scaled features and a learning rate.

    Notes
    -----
{_NOTES_DOC}
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
        potential_width=1.5,
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
        self.potential_width = potential_width
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.multi_class = multi_class
        self.time_counter = time_counter
        self.center = center
        self.rank_tol = rank_tol
        self.warm_start = warm_start

    def _frozen_params(self):
        return (*super()._frozen_params(), "multi_class")

    @staticmethod
    def _multinomial(state):
        return state.frozen["multi_class"] == "multinomial" and len(state.classes) > 2

    def _kernel_loss(self, state):
        return "multinomial" if self._multinomial(state) else self.loss

    def _check_params_consistent(self, X):
        super()._check_params_consistent(X)
        if self.multi_class == "multinomial" and self.loss != "log_loss":
            raise ValueError("multi_class='multinomial' needs loss='log_loss'.")

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Probability estimates (``loss="log_loss"``).

        Binary: ``[1 − σ(f), σ(f)]`` with ``f`` the decision function;
        one-vs-rest: ``σ(f_k)`` normalised to sum to one;
        ``multi_class="multinomial"``: ``softmax(f)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probability of each class, in the order of ``classes_``.
        """
        scores = self._raw_decision(X)
        return probabilities_from_scores(scores, multinomial=self._multinomial(self._state))

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        """Logarithm of the probability estimates (``loss="log_loss"``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log-probability of each class, in the order of ``classes_``
            (``-inf`` where the probability is 0 in float64).
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class ScaleInvariantRegressor(RegressorMixin, _BaseScaleInvariant, OnlineLinearRegressorMixin):
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

    Read more in the :ref:`User Guide <scale_invariant>`.

    Parameters
    ----------
{_VARIANT_DOC}
    loss : {{"absolute_error", "epsilon_insensitive", "huber"}}, default="absolute_error"
        The loss of the online predictions.

    epsilon : float, default=0.1
        Width of the insensitive zone (``"epsilon_insensitive"``) or
        threshold of the Huber loss (``"huber"``, which needs
        ``epsilon > 0``), in target units.

    center_target : bool, default=False
        Extension: predict the running mean of the targets plus ``xᵀw``
        (``mean(y_<t) + xᵀw``) and learn on the residual.

{_WIDTH_DOC}
{_COUNTER_DOC}
    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Linearised weights of the next trial, in raw feature units.

    intercept_ : float
        The weight of the constant feature, plus the running target mean
        with ``center_target=True``.

{_ATTRS_DOC}
    See Also
    --------
    ScaleInvariantClassifier : The same learners for classification.
    sklearn.linear_model.SGDRegressor : Needs scaled features and a learning rate.

    Notes
    -----
{_NOTES_DOC}
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
        potential_width=1.5,
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
        self.potential_width = potential_width
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.time_counter = time_counter
        self.center = center
        self.rank_tol = rank_tol
        self.warm_start = warm_start

    def _frozen_params(self):
        return (*super()._frozen_params(), "center_target")

    def _epsilon(self):
        return float(self.epsilon)

    def _check_params_consistent(self, X):
        super()._check_params_consistent(X)
        if self.loss == "huber" and self.epsilon <= 0:
            raise ValueError("loss='huber' needs epsilon > 0 (its Lipschitz constant).")

"""Sketched online Newton step: RFDSONRegressor and RFDSONClassifier.

Luo, Chen, Zhang, Li & Zhang, "Robust Frequent Directions with Application in
Online Learning", JMLR 20 (2019): Algorithm 3 (RFD-SON), Algorithm 6 (its
doubling-buffer form, used in the paper's experiments) and Appendix A (the
Woodbury updates), with the FD-SON (Luo et al. 2016), FULL-ON and AdaGrad
baselines of the paper's §6.2 on the same engine. The pass is
:func:`skonline.linear_model._son_kernels.son_pass`; this module validates,
holds the state and reads it out.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if

from ..base import OnlineEstimator
from ..utils._sketch import single_blas_thread
from ..utils._sklearn_compat import Interval, StrOptions
from ._linear import (
    LinearState,
    OnlineLinearClassifierMixin,
    OnlineLinearRegressorMixin,
    probabilities_from_scores,
)
from ._son_kernels import CurvatureState, auto_mu, new_curvature, son_pass

__all__ = ["RFDSONClassifier", "RFDSONRegressor"]


@dataclass(kw_only=True, eq=False)
class SONState(LinearState):
    """Learned state of the sketched online Newton step.

    Attributes
    ----------
    U : ndarray of shape (K, n_features + fit_intercept)
        The iterates ``u`` (intercept column last).
    curvature : CurvatureState
        The curvature of the ``K`` models.
    """

    U: np.ndarray
    curvature: CurvatureState


class _BaseSON(OnlineEstimator):
    """The engine shared by :class:`RFDSONRegressor` and :class:`RFDSONClassifier`."""

    _accept_sparse = "csr"
    _zero_is_positive = True  # the kernel's rule: a zero score is the positive class

    _parameter_constraints: ClassVar[dict] = {
        "sketch": [StrOptions({"rfd", "fd", "full", "diag"})],
        "curvature": [StrOptions({"gradient", "hessian"})],
        "sketch_size": [Interval(Integral, 2, None, closed="left")],
        "alpha0": [Interval(Real, 0, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "mu": [StrOptions({"auto"}), Interval(Real, 0, None, closed="left")],
        "bound": [Interval(Real, 0, None, closed="neither"), None],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
        "buffer_init": [StrOptions({"zeros", "empty"})],
        "skip_zero_rows": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "solve_rtol": [Interval(Real, 0, None, closed="left")],
        "verbose": ["verbose"],
    }

    def _frozen_params(self):
        return ("sketch", "sketch_size", "alpha0", "fit_intercept", "intercept_scaling")

    # ------------------------------------------------------------- helpers
    def _mu(self):
        if self.mu != "auto":
            return float(self.mu)
        return auto_mu(self.loss, self.bound, float(getattr(self, "epsilon", 1.0)))

    def _check_params_consistent(self, X):
        if self.sketch != "rfd" and self.alpha0 <= 0:
            raise ValueError(
                f"sketch={self.sketch!r} needs alpha0 > 0 (its curvature starts at "
                "alpha0 * I); only sketch='rfd' runs with alpha0 = 0."
            )
        if self.sketch == "rfd" and self.alpha0 == 0 and self.bound is None:
            warnings.warn(
                "RFD0 (sketch='rfd', alpha0=0) without a bound: until the sketch shrinks, "
                "H is singular and nothing limits the pseudo-inverse steps; the iterate can "
                "diverge. Set bound=C or alpha0 > 0.",
                UserWarning,
                stacklevel=4,
            )

    # --------------------------------------------------------------- state
    def _init_state(self, X, y, *, sample_weight, classes=None):
        d = X.shape[1] + int(self.fit_intercept)
        K = 1 if classes is None else self._n_outputs(classes)
        kind = "sketch" if self.sketch in ("rfd", "fd") else self.sketch
        return SONState(
            classes=classes,
            U=np.zeros((K, d)),
            curvature=new_curvature(
                kind,
                K,
                d,
                m=self.sketch_size,
                alpha0=self.alpha0,
                robust=self.sketch == "rfd",
                zero_rows=self.buffer_init == "zeros",
            ),
        )

    def _linear_pass(self, state, X, T, sample_weight):
        """One ordered pass over the rows (paper Alg. 6 in the SON order)."""
        intercept = (
            float(state.frozen["intercept_scaling"]) if state.frozen["fit_intercept"] else 0.0
        )
        with single_blas_thread():  # small products on one core: faster, robust to load
            U, curvature, t, total_loss, predictions, scores = son_pass(
                state.U,
                state.curvature,
                X,
                intercept,
                T,
                sample_weight,
                state.n_samples_seen,
                state.cumulative_loss,
                loss=self.loss,
                bound=self.bound,
                mu=self._mu(),
                learning_rate=float(self.learning_rate),
                epsilon=float(getattr(self, "epsilon", 1.0)),
                skip_zero_rows=self.skip_zero_rows,
                rtol=float(self.solve_rtol),
                curvature_rows=self.curvature,
            )
        new = dataclasses.replace(
            state, U=U, curvature=curvature, n_samples_seen=t, cumulative_loss=total_loss
        )
        # binary: the clipped prediction decides; multiclass: argmax of the unclipped
        # scores (clipped predictions tie at ±C)
        return new, predictions if predictions.shape[1] == 1 else scores

    # ------------------------------------------------------------ read-out
    def _linear_readout(self, state):
        d = self.n_features_in_
        if not state.frozen["fit_intercept"]:
            return state.U, np.zeros(state.U.shape[0])
        return state.U[:, :d], state.U[:, -1] * float(state.frozen["intercept_scaling"])

    @property
    def alpha_(self):
        """The ridge term ``α`` of each model's curvature: an array of shape (n_models,).

        NaN for the ``"full"`` and ``"diag"`` curvatures, which have none.
        """
        curvature = self._fitted_state().curvature
        if curvature.kind != "sketch":
            return np.full(curvature.alpha.shape, np.nan)
        return curvature.alpha.copy()

    @property
    def shrinkage_(self):
        """``Δ``, the total sketch shrinkage of each model: an array of shape (n_models,)."""
        return self._fitted_state().curvature.shrinkage.copy()

    @property
    def n_compactions_(self):
        """Compactions of each model's sketch: an array of shape (n_models,)."""
        return self._fitted_state().curvature.n_compactions.astype(np.int64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


_PARAMS_DOC = """\
    sketch : {"rfd", "fd", "full", "diag"}, default="rfd"
        Curvature ``H`` of the Newton step. ``"rfd"``: Robust Frequent
        Directions sketch (RFD-SON, paper Alg. 3/6), ``H = BᵀB + αI`` with ``α``
        grown by the sketch; runs with ``alpha0=0`` ("RFD0", no
        hyperparameter). ``"fd"``: FD-SON, ``α`` fixed at ``alpha0 > 0``.
        ``"full"``: FULL-ON, the exact ``H`` by Sherman–Morrison,
        ``O(n_features²)`` per row. ``"diag"``: diagonal AdaGrad,
        ``D = alpha0 + sqrt(Σ g²)``.

    curvature : {"gradient", "hessian"}, default="gradient"
        What the curvature accumulates. ``"gradient"``: the paper's
        ``Σ (μ + η_t) g_t g_tᵀ`` (exp-concave losses, the regret bound of
        Theorem 5). ``"hessian"``: the loss's own second derivative,
        ``Σ c_t l''(p_t) x_t x_tᵀ`` (``c_t`` the sample weight): a Newton step on
        the cumulative loss, recursive least squares for the squared loss
        (``mu`` and ``learning_rate`` are then unused).

    sketch_size : int, default=10
        The paper's ``m``, the memory of the sketch: its buffer holds up to
        ``2m`` rows (``O(m · d)`` memory, ``O(m · d + m³)`` time per row). The
        values of the paper's experiments are in the user guide.

    alpha0 : float, default=0.0
        Initial ridge ``α`` (``H^(0) = alpha0 · I``). Must be positive for
        ``"fd"``, ``"full"`` and ``"diag"``.

    learning_rate : float, default=1.0
        ``η_t = learning_rate / t`` with ``t`` counted from 1 across all calls.

    mu : "auto" or float, default="auto"
        ``μ`` of Assumption 2; the sketch rows are ``sqrt(μ + η_t) g_t``.
        ``"auto"``: ``1/(8C²)`` for the squared loss, ``e^{−C}`` for the
        logistic loss, ``1/epsilon²`` for the Huber loss (its quadratic
        zone), 0 otherwise (§3.1: the squared loss's constant, and the recipe
        ``μ = min l'' / max l'²`` for the others).

    bound : float or None, default=1.0
        ``C`` of the constraint ``K_t = {w : |wᵀx_t| ≤ C}`` (the paper uses 1
        with ±1 labels). Predictions are ``clip(wᵀx, −C, C)``. ``None``: no
        projection.

    fit_intercept : bool, default=True
        Append a constant feature (value ``intercept_scaling``) that takes
        part in the sketch. The paper has no intercept (``False``).

    intercept_scaling : float, default=1.0
        Value of the constant feature.

    buffer_init : {"zeros", "empty"}, default="zeros"
        ``"zeros"``: Alg. 6 literally, the buffer starts with ``m`` zero rows
        (first compaction after ``m`` gradients); ``"empty"``: first
        compaction after ``2m`` gradients (Alg. 5).

    skip_zero_rows : bool, default=False
        Do not add zero gradients to the sketch (they do not change ``H`` but
        move the compaction schedule). Off: paper-literal.

    max_iter : int, default=1
        Passes over the data in :meth:`fit` (the paper makes one).
        ``partial_fit`` always makes one.

    shuffle : bool, default=False
        Shuffle the rows before each pass of :meth:`fit`.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.

    warm_start : bool, default=False
        :meth:`fit` continues from the current state instead of resetting.

    solve_rtol : float, default=1e-12
        ``α ≤ solve_rtol · λ_max(BBᵀ)`` counts as singular: the pseudo-inverse
        formulas are used in the solves (the sketch itself stays exact). The
        solves work in the sketch's eigenbasis (error ``κ·eps``), so the
        threshold can sit far below the Woodbury form's ``1e-10``; see the
        user guide.

    verbose : int, default=0
        Progress of :meth:`fit`: ``1`` prints about ten lines per epoch (rows
        done, rows per second, mean loss so far), ``2`` one per 1000 rows.
"""

_ATTRS_DOC = """\
    n_samples_seen_ : int
        Rows processed so far (the global time index ``t`` of ``η_t``).

    cumulative_loss_ : float
        Sum over the processed rows of the (weighted) loss of the prediction
        made before the update (progressive validation); for one-vs-rest the
        sum of the per-class binary losses.

    alpha_ : ndarray of shape (n_models,)
        ``α`` of each model's curvature (NaN for ``"full"``/``"diag"``).

    shrinkage_ : ndarray of shape (n_models,)
        Total shrinkage ``Δ`` of each sketch; for ``"rfd"``
        ``alpha_ == alpha0 + shrinkage_ / 2``.

    n_compactions_ : ndarray of shape (n_models,)
        Compactions of each model's sketch.

    n_iter_ : int
        Passes made by the last :meth:`fit` (1 after ``partial_fit``).

    n_features_in_ : int
        Number of features seen during the first call.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during the first call, when ``X`` has string
        column names.
"""


def _is_logistic(estimator):
    """``predict_proba`` exists only for the logistic loss."""
    if estimator.loss != "log_loss":
        raise AttributeError("predict_proba is available only for loss='log_loss'")
    return True


class RFDSONClassifier(ClassifierMixin, _BaseSON, OnlineLinearClassifierMixin):
    __doc__ = f"""Online Newton step with a Robust Frequent Directions sketch, for classification.

    Paper Algorithm 6 (RFD-SON with the doubling buffer) of Luo et al. (2019)
    on labels ``±1``; multiclass one-vs-rest with one sketch per class. Per
    row and class: ``O(m · n_features + m³)`` time (one eigendecomposition of
    the ``≤ 2m × 2m`` Gram matrix of the sketch) and ``O(m · n_features)``
    memory, against ``O(n_features²)`` for the full online Newton step.

    Guarantee (Theorem 5, ``alpha0 > 0``, losses satisfying Assumptions 1–2):

        ``R_T ≤ (α₀/2)‖w‖² + 2(CL)² Σ η_t + m/(2(μ+η_T)) ln(tr(BᵀB)/(mα₀) + α_T/α₀) + Ω_RFD``

    where ``Ω_RFD`` depends on ``α₀`` only logarithmically — unlike FD-SON,
    whose gap term grows as ``1/α₀`` — which is why RFD0 (``alpha0=0``,
    Theorem 7) needs no tuning. Corrected errata: the ``α = 0`` projection
    uses the projector ``VVᵀ`` (the paper prints ``VΣ⁻²Vᵀ``), ``η_t`` is
    1-based, and the Woodbury ``γ`` uses the vector being projected.

    Read more in the :ref:`User Guide <online_newton>`.

    Parameters
    ----------
    loss : {{"squared_error", "log_loss", "hinge", "smooth_hinge"}}, default="squared_error"
        ``"squared_error"`` is the paper's loss ``(wᵀx − y)²`` on labels ``±1``.

{_PARAMS_DOC}
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.

    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        ``u^(T+1)``, the unprojected iterate(s).

    intercept_ : ndarray of shape (1,) or (n_classes,)
        The intercepts.

    n_mistakes_ : int
        Online mistakes (prediction made before each update).

    online_error_rate_ : float
        ``n_mistakes_ / n_samples_seen_``: the paper's "online error rate".

{_ATTRS_DOC}
    See Also
    --------
    RFDSONRegressor : The same learner for regression.
    skonline.decomposition.RobustFrequentDirections : The sketch.
    sklearn.linear_model.SGDClassifier : First-order peer.

    References
    ----------
    Luo, Chen, Zhang, Li, Zhang. Robust Frequent Directions with Application in
    Online Learning. JMLR 20(45), 2019 (Alg. 3, 6, Appendix A). Luo, Agarwal,
    Cesa-Bianchi, Langford. Efficient Second Order Online Learning by
    Sketching. NeurIPS 2016 (FD-SON).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import gen_batches
    >>> from skonline.linear_model import RFDSONClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((600, 20)) * np.logspace(-2, 1, 20)  # badly conditioned
    >>> y = (X @ np.ones(20) > 0).astype(int)
    >>> clf = RFDSONClassifier(sketch_size=5)
    >>> for batch in gen_batches(len(X), 100):
    ...     clf = clf.partial_fit(X[batch], y[batch], classes=[0, 1])
    >>> clf.online_error_rate_ < 0.2
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseSON._parameter_constraints,
        "loss": [StrOptions({"squared_error", "log_loss", "hinge", "smooth_hinge"})],
    }

    def __init__(
        self,
        loss="squared_error",
        *,
        sketch="rfd",
        curvature="gradient",
        sketch_size=10,
        alpha0=0.0,
        learning_rate=1.0,
        mu="auto",
        bound=1.0,
        fit_intercept=True,
        intercept_scaling=1.0,
        buffer_init="zeros",
        skip_zero_rows=False,
        max_iter=1,
        shuffle=False,
        random_state=None,
        warm_start=False,
        solve_rtol=1e-12,
        verbose=0,
    ):
        self.loss = loss
        self.sketch = sketch
        self.curvature = curvature
        self.sketch_size = sketch_size
        self.alpha0 = alpha0
        self.learning_rate = learning_rate
        self.mu = mu
        self.bound = bound
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.buffer_init = buffer_init
        self.skip_zero_rows = skip_zero_rows
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.solve_rtol = solve_rtol
        self.verbose = verbose

    @available_if(_is_logistic)
    def predict_proba(self, X):
        """Probability estimates for ``loss="log_loss"``.

        ``sigmoid(clip(decision, −C, C))``; one-vs-rest scores are normalised
        to sum to one.

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
        if self.bound is not None:
            scores = np.clip(scores, -self.bound, self.bound)
        return probabilities_from_scores(scores)

    @available_if(_is_logistic)
    def predict_log_proba(self, X):
        """Logarithm of the probability estimates.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log-probability of each class, in the order of ``classes_``.
        """
        return np.log(self.predict_proba(X))


class RFDSONRegressor(RegressorMixin, _BaseSON, OnlineLinearRegressorMixin):
    __doc__ = f"""Online Newton step with a Robust Frequent Directions sketch, for regression.

    Paper Algorithm 6 (RFD-SON, doubling buffer) of Luo et al. (2019) with the
    squared loss ``(wᵀx − y)²`` of the paper's experiments (or the Huber
    loss), ``O(m · n_features + m³)`` time and ``O(m · n_features)`` memory
    per row. With ``bound=C`` the iterate is projected onto
    ``|wᵀx_t| ≤ C`` and predictions are clipped to ``[−C, C]``: scale the
    targets into that range (the regret bound of Theorem 5 assumes
    ``|y| ≤ C``), or use ``bound=None``.

    Guarantee (Theorem 5, ``alpha0 > 0``; Theorem 7 for ``alpha0=0``), with
    ``μ = 1/(8C²)`` and ``L = 4C`` for the squared loss on ``|y| ≤ C``:

        ``R_T ≤ (α₀/2)‖w‖² + 2(CL)² Σ η_t + m/(2(μ+η_T)) ln(tr(BᵀB)/(mα₀) + α_T/α₀) + Ω_RFD``

    Corrected errata as in :class:`RFDSONClassifier` (the ``α = 0``
    projection uses ``VVᵀ``; ``η_t`` is 1-based).

    Read more in the :ref:`User Guide <online_newton>`.

    Parameters
    ----------
    loss : {{"squared_error", "huber"}}, default="squared_error"
        The loss of the online predictions.

    epsilon : float, default=1.0
        Huber threshold (only for ``loss="huber"``).

{_PARAMS_DOC}
    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        ``u^(T+1)``, the unprojected iterate.

    intercept_ : float
        The intercept.

{_ATTRS_DOC}
    See Also
    --------
    RFDSONClassifier : The same learner for classification.
    sklearn.linear_model.SGDRegressor : First-order peer.

    References
    ----------
    Luo, Chen, Zhang, Li, Zhang. Robust Frequent Directions with Application in
    Online Learning. JMLR 20(45), 2019 (Alg. 3, 6, Appendix A).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import gen_batches
    >>> from skonline.linear_model import RFDSONRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 10))
    >>> y = np.clip(X @ rng.standard_normal(10) / 6, -1, 1)
    >>> reg = RFDSONRegressor(sketch_size=5)
    >>> for batch in gen_batches(len(X), 50):
    ...     reg = reg.partial_fit(X[batch], y[batch])
    >>> reg.score(X, y) > 0.9
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseSON._parameter_constraints,
        "loss": [StrOptions({"squared_error", "huber"})],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        loss="squared_error",
        *,
        epsilon=1.0,
        sketch="rfd",
        curvature="gradient",
        sketch_size=10,
        alpha0=0.0,
        learning_rate=1.0,
        mu="auto",
        bound=1.0,
        fit_intercept=True,
        intercept_scaling=1.0,
        buffer_init="zeros",
        skip_zero_rows=False,
        max_iter=1,
        shuffle=False,
        random_state=None,
        warm_start=False,
        solve_rtol=1e-12,
        verbose=0,
    ):
        self.loss = loss
        self.epsilon = epsilon
        self.sketch = sketch
        self.curvature = curvature
        self.sketch_size = sketch_size
        self.alpha0 = alpha0
        self.learning_rate = learning_rate
        self.mu = mu
        self.bound = bound
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.buffer_init = buffer_init
        self.skip_zero_rows = skip_zero_rows
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.solve_rtol = solve_rtol
        self.verbose = verbose

    def _validate_batch(self, X, y, first_call, classes=None, sample_weight=None):
        X, y, kwargs = super()._validate_batch(
            X, y, first_call, classes=classes, sample_weight=sample_weight
        )
        if self.bound is not None and y.size and np.max(np.abs(y)) > self.bound:
            warnings.warn(
                f"targets reach |y| = {np.max(np.abs(y)):.3g} > bound = {self.bound}: "
                "predictions are clipped to [-bound, bound] (the paper's constraint "
                "|wᵀx| <= C). Scale y into that range or raise bound.",
                UserWarning,
                stacklevel=5,
            )
        return X, y, kwargs

    def predict(self, X):
        """Predicted targets ``clip(X @ coef_ + intercept_, −C, C)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The predictions (not clipped with ``bound=None``).
        """
        out = self._raw_decision(X)[:, 0]
        return out if self.bound is None else np.clip(out, -self.bound, self.bound)

"""Scale-invariant online learners: ScaleInvariantClassifier and ScaleInvariantRegressor.

Kotłowski, "Scale-Invariant Unconstrained Online Learning", ALT 2017:
Algorithm 1 (coordinate-wise invariant, Sec. 3.2), Algorithm 2 (invariant to
every invertible linear map, Sec. 4.2) and Algorithm 2 run on each coordinate
(the diagonal learner, an extension); ``variant="auto"`` picks Algorithm 2 or
the diagonal learner by the width of the data. The passes, their states and
read-outs are in :mod:`skonline.linear_model._scale_invariant_kernels`; the
online linear mixins of :mod:`skonline.linear_model._linear` handle targets,
classes, sample weights, epochs and read-outs; this module validates the
parameters and calls the kernels.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if

from ..base import ParamRecord
from ..utils._sklearn_compat import Interval, StrOptions
from ._linear import (
    OnlineLinearBase,
    OnlineLinearClassifierMixin,
    OnlineLinearRegressorMixin,
    calibrate,
    probabilities_from_scores,
)
from ._scale_invariant_kernels import (
    MAX_EXPONENT,
    MIN_POTENTIAL_WIDTH,
    centered_coordinate_pass,
    centered_readout,
    coordinate_pass,
    coordinate_readout,
    diagonal_pass,
    full_pass,
    full_readout,
    init_state,
)

__all__ = ["ScaleInvariantClassifier", "ScaleInvariantRegressor"]

#: The learners ``forgetting_factor="auto"`` runs twice.
MIXED_KINDS = ("full", "diagonal")
#: Widest input (intercept included) the full variant accepts: a d x d factor.
MAX_FULL_FEATURES = 10_000
#: ``variant="auto"`` runs the full variant up to this many coordinates (intercept
#: included), the diagonal learner beyond (the user guide gives the measurements).
AUTO_FULL_MAX = 128


def resolve_variant(variant, n_features, fit_intercept):
    """The learner of a ``variant`` parameter on ``n_features`` columns.

    ``"auto"`` is ``"full"`` (Algorithm 2, ``O(d²)`` per row) while
    ``n_features + fit_intercept <= AUTO_FULL_MAX``, and ``"diagonal"``
    (``O(nnz)`` per row) beyond.
    """
    if variant != "auto":
        return variant
    return "full" if n_features + int(fit_intercept) <= AUTO_FULL_MAX else "diagonal"


#: ``potential_width="auto"`` on Algorithm 1, which needs α > 9/8 (its κ(α) is infinite
#: at 9/8): the former default. Algorithm 2 and the diagonal learner get 9/8.
ALGORITHM_1_WIDTH = 1.5


def resolve_width(potential_width, kind):
    """The α of a ``potential_width`` parameter for a state's pass ``kind`` (``_state_kind``).

    ``"auto"`` is 9/8, the value Theorem 4.5 prefers, for Algorithm 2 and the
    diagonal learner (``"full"``, ``"diagonal"``, ``"center_diagonal"``), and
    1.5 for Algorithm 1 (``"coordinate"``, ``"center"``). Measured (17
    classification streams, 5 row orders): 9/8 gives a lower prequential
    log-loss than 1.5 on every stream (mean 0.224 → 0.215) at the same
    accuracy (mean 0.9307 → 0.9304).
    """
    if potential_width != "auto":
        return float(potential_width)
    return ALGORITHM_1_WIDTH if kind in ("coordinate", "center") else MIN_POTENTIAL_WIDTH


def _state_kind(variant, center):
    """The pass of a resolved variant: "coordinate", "diagonal", their centred forms, "full"."""
    if variant == "full":
        return "full"
    if center:
        return "center_diagonal" if variant == "diagonal" else "center"
    return variant


@dataclass(frozen=True)
class ScaleInvariantFrozen(ParamRecord):
    """The parameters that shape a scale-invariant state (every other one is live)."""

    variant: str
    loss: str
    potential_width: float | str
    fit_intercept: bool
    time_counter: str
    center: bool
    readout_ridge: float


@dataclass(frozen=True)
class SIClassifierFrozen(ScaleInvariantFrozen):
    """:class:`ScaleInvariantFrozen` plus the multiclass reduction."""

    multi_class: str
    class_weight: dict | str | None
    calibration: str | None


@dataclass(frozen=True)
class SIRegressorFrozen(ScaleInvariantFrozen):
    """:class:`ScaleInvariantFrozen` plus the regressor's target centring and read-out."""

    center_target: bool
    readout: str


@dataclass(frozen=True)
class SIRegressorLive(ParamRecord):
    """The live parameter the regressor's read-out needs: the clipping to the targets' range."""

    clip_predictions: bool


class _BaseScaleInvariant(OnlineLinearBase):
    """The engine shared by the classifier and the regressor.

    Provides the hooks ``_init_state``, ``_linear_pass`` and
    ``_linear_readout``; comes last in the bases of an estimator, after the
    online linear mixin and scikit-learn's.
    """

    _accept_sparse = "csr"
    _zero_is_positive = False  # a decision of exactly 0 is classes_[0]

    _parameter_constraints: ClassVar[dict] = {
        "verbose": ["verbose"],
        "variant": [StrOptions({"auto", "coordinate", "diagonal", "full"})],
        "potential_width": [
            Interval(Real, MIN_POTENTIAL_WIDTH, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "time_counter": [StrOptions({"global", "per_feature"})],
        "center": ["boolean"],
        "rank_tol": [Interval(Real, 0, 1, closed="left")],
        "readout_ridge": [Interval(Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        "forgetting_factor": [Interval(Real, 0, 1, closed="right"), StrOptions({"auto"})],
    }

    _frozen_record: ClassVar[type[ParamRecord]] = ScaleInvariantFrozen

    # ----------------------------------------------------------- internals
    def _epsilon(self):
        return 0.0

    def _least_squares_readout(self):
        """Whether a new state keeps the targets' cross-moments (the regressor's read-out)."""
        return False

    def _kernel_loss(self, state):
        return state.frozen.loss

    def _check_params_consistent(self, X):
        if self._is_initialized():
            variant = self._state.kind
        else:
            variant = resolve_variant(self.variant, X.shape[1], self.fit_intercept)
        if (
            variant == "coordinate"
            and self.potential_width != "auto"
            and self.potential_width <= MIN_POTENTIAL_WIDTH
        ):
            raise ValueError(
                "variant='coordinate' needs potential_width > 9/8 (got "
                f"{self.potential_width}): its constant kappa = exp(1/(2(potential_width "
                "- 9/8))) of Theorem 3.4 is infinite at 9/8."
            )
        d_aug = X.shape[1] + int(self.fit_intercept)
        if variant == "full" and d_aug > MAX_FULL_FEATURES:
            raise ValueError(
                f"variant='full' keeps a {d_aug} x {d_aug} factor "
                f"({8 * d_aug**2 / 1e9:.1f} GB) and costs O(n_features²) per row; "
                f"it is limited to {MAX_FULL_FEATURES} features. Use variant='diagonal' "
                "(O(nnz) per row) for wide or sparse data."
            )
        if self.forgetting_factor not in (1.0, "auto") and (variant == "coordinate" or self.center):
            raise ValueError(
                "forgetting_factor < 1 discounts the statistics of Algorithm 2 "
                "(variant='full' or 'diagonal', center=False); Algorithm 1's potential "
                "and the centred learners count rows and have no discounted form."
            )

    # --------------------------------------------------------------- state
    def _init_state(self, X, y, **kwargs):
        classes = kwargs.get("classes")  # the classifier's; None for the regressor
        K = 1 if classes is None else self._n_outputs(classes)
        variant = resolve_variant(self.variant, X.shape[1], self.fit_intercept)
        state = init_state(
            _state_kind(variant, self.center),
            X.shape[1],
            K,
            fit_intercept=bool(self.fit_intercept),
            per_feature=self.time_counter == "per_feature",
            least_squares=self._least_squares_readout(),
            classes=classes,
        )
        state.kind = variant
        return state

    def _can_mix(self, state):
        """Algorithm 2 and the diagonal learner (its discount is lazy: ``O(K nnz)`` a row);
        not Algorithm 1 or the centred learners, which have no discounted form."""
        return state.kind in MIXED_KINDS and not state.frozen.center

    def _learner_pass(self, state, X, T, sample_weight, forgetting):
        """One ordered pass of the state's learner over the rows, discounted by ``forgetting``."""
        kind = _state_kind(state.kind, state.frozen.center)
        width = resolve_width(state.frozen.potential_width, kind)
        common = {
            "potential_width": width,
            "loss": self._kernel_loss(state),
            "epsilon": self._epsilon(),
            "center_target": bool(getattr(state.frozen, "center_target", False)),
        }
        new: Any  # the state class of the pass
        if kind == "full":
            # the least-squares read-out's own prequential predictions (a regressor's)
            readout = np.empty(X.shape[0]) if getattr(state, "xy", None) is not None else None
            try:
                new, predictions = full_pass(
                    state,
                    X,
                    T,
                    sample_weight,
                    rank_tol=float(self.rank_tol),
                    forgetting=forgetting,
                    readout_predictions=readout,
                    **common,
                )
            except FloatingPointError as err:
                raise FloatingPointError(
                    f"variant='full' cannot process this batch: {err} This happens when the "
                    "rows span too many orders of magnitude along some direction (see the "
                    "user guide). The batch was not applied and the estimator is as it was "
                    "before the call; variant='diagonal' has no such limit."
                ) from err
            new.coef, new.intercept = full_readout(
                new,
                potential_width=width,
                readout_ridge=float(state.frozen.readout_ridge),
                least_squares=new.xy is not None,
            )
            if readout is not None:
                predictions = readout[:, None]
        elif kind in ("center", "center_diagonal"):
            new, predictions = centered_coordinate_pass(state, X, T, sample_weight, **common)
            new.coef, new.intercept = centered_readout(new, potential_width=width)
        else:
            if kind == "diagonal":
                new, predictions = diagonal_pass(
                    state, X, T, sample_weight, forgetting=forgetting, **common
                )
            else:
                new, predictions = coordinate_pass(state, X, T, sample_weight, **common)
            new.coef, new.intercept = coordinate_readout(new, potential_width=width)
        if state.calibration is not None and X.shape[0]:  # the rows' scores before learning
            calibrate(state, new, predictions, T, sample_weight)
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
        tags.input_tags.sparse = True  # CSR rows: O(nnz) uncentred, densified row by row otherwise
        return tags

    @property
    def variant_(self):
        """The learner in use: ``"coordinate"``, ``"diagonal"`` or ``"full"``.

        ``variant="auto"`` is resolved at the first call.
        """
        return self._fitted_state().kind


def _has_proba(estimator):
    """``predict_proba`` exists for the logistic loss (the fitted one, once fitted)."""
    loss = estimator._state.frozen.loss if estimator._is_initialized() else estimator.loss
    if loss != "log_loss":
        raise AttributeError("predict_proba is available only for loss='log_loss'")
    return True


class ScaleInvariantClassifier(OnlineLinearClassifierMixin, ClassifierMixin, _BaseScaleInvariant):
    """Scale-invariant online linear classifier with no learning rate.

    Kotłowski (2017): Algorithm 2 (``variant="full"``, eq. 7), Algorithm 1
    (``variant="coordinate"``, eq. 5) or Algorithm 2 run on each coordinate
    alone (``variant="diagonal"``, an extension) on the logistic or hinge
    loss; binary, or multiclass one-vs-rest with the feature statistics
    shared by the classes. Predictions do not change when the features are
    rescaled (every variant) or transformed by any invertible affine map
    (``"full"`` with an intercept), so no ``StandardScaler`` is needed in
    front, even on a stream whose scale is unknown in advance. The default,
    ``variant="auto"``, runs ``"full"`` on up to 128 coordinates and
    ``"diagonal"`` beyond (measurements in the user guide).

    Per row: ``O(n_features² + K · n_features)`` time for ``"full"`` (Givens
    rotations of the triangular factor of the data matrix) and
    ``O(K · nnz)`` for ``"coordinate"`` and ``"diagonal"`` (only the
    non-zero coordinates of a row are touched); memory
    ``O(n_features² + K · n_features)`` and ``O(K · n_features)``, constant
    in the number of rows.

    Guarantees, for every comparator ``u`` and every sequence (per output;
    ``α = potential_width``, ``s_i² = Σ_t x_{t,i}²``, ``S = Σ_t x_t x_tᵀ``,
    ``Γ_T = Σ_t g_t² x_tᵀS_t⁺x_t``, ``Γ_i = Σ_t g_t² x_{t,i}²/s_{t,i}²``):

        full (Thm 4.5, corrected, ``α ≥ 9/8``):
        ``regret_T(u) ≤ ‖u‖_S sqrt(α log(1 + α‖u‖_S²) + Γ_T) + 1``

        coordinate (Thm 3.4, ``α > 9/8``, ``κ(α) = exp(1/(2(α − 9/8)))``):
        ``regret_T(u) ≤ Σ_i |u_i| s_i sqrt(α log(1 + α d² T² u_i² s_i²)) + κ(α)(1 + log T)``

        diagonal (Thm 4.5 per coordinate, ``α ≥ 9/8``):
        ``regret_T(u) ≤ Σ_i |u_i| s_i sqrt(α log(1 + α u_i² s_i²) + Γ_i) + d``

    Corrected errata: Γ inside the ``1/(2α)`` of Algorithm 2's potential
    and ``+ψ_T`` in Lemma 4.3, ``g_t²`` in ``Γ_T`` and ``+ Γ_T`` (not
    ``log(α) Γ_T``) in Theorem 4.5.

    Read more in the :ref:`User Guide <scale_invariant>`.

    Parameters
    ----------
    variant : {"auto", "coordinate", "diagonal", "full"}, default="auto"
        The learner. ``"full"``: Algorithm 2, invariant to every invertible
        linear map of the features (every invertible affine map with
        ``fit_intercept=True``: standardisation, whitening, change of units
        or origin), ``O(n_features²)`` time and memory per row.
        ``"coordinate"``: Algorithm 1, invariant to per-feature rescaling
        ``x_i → a_i x_i`` (any ``a_i ≠ 0``), ``O(nnz)`` time per row and
        ``O(n_features)`` memory. ``"diagonal"`` (extension): Algorithm 2
        run on each coordinate alone, with the invariance and the cost of
        Algorithm 1 but the potential of Algorithm 2, which lets the weights
        grow from the first rows. ``"auto"``: ``"full"`` up to 128
        coordinates (intercept included), ``"diagonal"`` beyond; the
        resolved learner is ``variant_``.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    loss : {"log_loss", "hinge"}, default="log_loss"
        The loss of the online predictions; both are 1-Lipschitz, as the
        theory needs.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplying ``sample_weight``. A dict maps a
        class to its weight (1 for a class it does not list; a key that is
        not a class raises). ``"balanced"``: a row of class ``c`` weighs
        ``n / (K · n_c)``, scikit-learn's ``compute_class_weight("balanced")``
        over the rows learned so far, this row included (``n`` rows, ``n_c``
        of class ``c``, ``K`` the declared classes): computed online, row by
        row, from class counts kept in the state, so any split of the stream
        gives the same model, and defined from each class's first row on
        (``n_c ≥ 1``; a class never seen yet weighs nothing because it has
        no row). ``None``: every class weighs 1.
        A weight ``c`` feeds ``clip(c · g, −1, 1)`` to the learner, as a
        sample weight does, so a large weight pulls at most with a unit
        gradient.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    calibration : {"temperature", "platt"} or None, default="temperature"
        What :meth:`predict_proba` reads. ``"temperature"``: online
        temperature scaling, ``P(y = 1 | f) = σ(a f)`` on the decision
        function ``f`` (``softmax(a f)`` over the scores of several classes),
        with the slope ``a > 0`` fitted by one Newton step per row on the
        score the learner gave the row before learning it (from ``a = 1``;
        sample and class weights count, as in a weighted logistic
        regression). The learner's scores are those of an unregularised
        online logistic regression, over-confident while it learns; the map
        corrects them online and keeps the ranking of
        :meth:`decision_function` and the class of :meth:`predict`.
        ``"platt"`` (binary): ``σ(a f + b)``, slope and intercept fitted the
        same way; its log-odds ``a f + b`` are then what
        :meth:`decision_function` returns and what :meth:`predict`
        thresholds, so the three agree (several classes: the temperature map
        with a weaker prior, and no change to the decisions). Measured
        (prequential, 14 binary streams × 5 row orders): 7 % lower log-loss
        than ``"temperature"`` on average but 0.4 point lower accuracy (2
        points on breast cancer), because the map learns from the learner's
        scores during its pass and is read on the read-out's (which fades a
        ridge in over the first rows); hence not the default. ``None``: the
        learner's own link. The learner, its online mistakes and ``coef_``
        are the same under every setting.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    potential_width : float or "auto", default="auto"
        Kotłowski's ``α``, the width of the exponential potential
        ``exp(h²/(2α s²))`` (not a regularisation strength). The coordinate
        variant needs ``potential_width > 9/8`` (the constant
        ``κ = exp(1/(2(α − 9/8)))`` of Theorem 3.4 is infinite at 9/8), the
        full and diagonal variants ``potential_width >= 9/8`` (Lemma 4.3).
        Larger values give smaller, more cautious weights. ``"auto"``: 9/8,
        the value Theorem 4.5 prefers, for the full and diagonal variants
        (measured on 17 streams: a lower prequential log-loss than 1.5 on
        every one, the same accuracy), 1.5 for the coordinate variant.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    fit_intercept : bool, default=True
        Append a constant feature, an ordinary coordinate of the algorithm
        (its value does not matter: the algorithms are scale invariant).
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    max_iter : int, default=1
        Passes over the data in :meth:`fit` (the theory is one pass).
        Live: read by the next :meth:`fit`.

    shuffle : bool, default=False
        Shuffle the rows (a seeded permutation that depends only on the
        number of rows, so rescaled data gets the same order) before each
        pass of :meth:`fit`. Use it for data sorted by class; ``partial_fit``
        never shuffles.
        Live: read by the next :meth:`fit`.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
        Live: read by the next :meth:`fit`.

    multi_class : {"ovr", "multinomial"}, default="ovr"
        One-vs-rest binary problems sharing the feature statistics, or
        (extension, ``loss="log_loss"`` only) the softmax loss with
        ``g_k = p_k − 1[y = k]``; the regret bound then holds per output.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    time_counter : {"global", "per_feature"}, default="global"
        Coordinate variant: ``t`` in the ``1/(α t d)`` of eq. 5 counts every
        row (the paper) or, ``"per_feature"`` (extension), the rows in which
        the feature was non-zero — a never-worse bound; rare sparse features
        are not damped by ``1/t`` and all-zero rows have no effect. The
        other variants have no such counter.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    center : bool, default=False
        Coordinate and diagonal variants (extension, no regret guarantee):
        centre each feature at its running mean, computed retroactively from
        running sums, which makes the predictions invariant to per-feature
        affine maps ``x_i → a_i x_i + b_i``. It costs ``O(n_features)`` per
        row whatever the sparsity (CSR rows are densified). The full variant
        with an intercept is affine invariant already and ignores it.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    rank_tol : float, default=1e-20
        Full variant: a row adds a direction to the span of the rows seen
        when its part outside that span (measured on the factor ``R``)
        exceeds ``rank_tol`` times its squared norm (in internal
        coordinates); a smaller part is rounding and is dropped. This is
        the rank test of the pseudo-inverse. The part must also exceed 16
        times the storage rounding of the row in its dtype (``1e-6`` of its
        norm before centring for float32 input): columns that are collinear
        but stored in float32 add no direction made of rounding.
        Live: a change acts from the next update on.

    readout_ridge : float, default=0.1
        Full variant: the weights :meth:`predict` and ``coef_`` read are
        Algorithm 2's ``S⁺h`` with a ridge that fades out,
        ``(S + λ_t D)⁺h`` with ``D`` the diagonal of ``S`` (the rows' own
        per-feature scale; the intercept is not shrunk) and
        ``λ_t = readout_ridge · (d / t) · max(0, 1 − t / (20 d))`` after ``t``
        rows on ``d`` coordinates: while there are fewer rows than about
        ``20 d`` the pseudo-inverse of a nearly singular ``S`` interpolates
        the few rows seen (its test error peaks near ``t = d``), and the
        ridge keeps those weights near the per-feature solution; from
        ``20 d`` rows on the read-out is Algorithm 2's exactly. The learner
        itself (its online predictions, losses and regret bound) is
        unchanged; the read-out stays invariant to per-feature changes of
        unit and origin, and to every invertible affine map once the ridge is
        gone. ``0``: Algorithm 2's linearisation from the first row. The
        default was measured on the real-data scoreboard (user guide).
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    warm_start : bool, default=False
        :meth:`fit` continues from the current state instead of resetting.
        Live: read by the next :meth:`fit`.

    forgetting_factor : "auto" or float in (0, 1], default="auto"
        Drift. A number ``γ``: each row first discounts Algorithm 2's
        statistics, ``S ← γS``, ``h ← γh``, ``Γ ← γΓ`` (a memory of about
        ``1/(1 − γ)`` rows; ``variant="full"`` or ``"diagonal"`` with
        ``center=False`` only; the diagonal learner's discount is lazy, so a
        row still costs ``O(K · nnz)``); ``1.0`` is the paper's algorithm, bit
        for bit. With ``variant="full"``, a direction that no row refreshes
        (a feature that falls silent) is forgotten once it has decayed below
        ``1e-8`` of the strongest one, instead of making the factor too
        ill-conditioned to take more rows (user guide, "Drifting streams").
        ``"auto"``: two learners side by side, the paper's (``1.0``) and one
        discounted by ``0.995`` (a memory of about 200 rows), and
        :meth:`predict_proba` mixes their calibrated probabilities with
        weights ``∝ exp(−L)``, ``L`` each learner's prequential log-loss, the
        discounted learner's plus 8 (a Bayes mixture with a prior weight of
        ``e⁻⁸`` on the discounted learner: its log-loss is at most the paper's
        learner's plus ``e⁻⁸``, and the discounted learner's plus about 8
        nats). :meth:`decision_function` is then the mixture's log-odds
        (binary) or log-probabilities, :meth:`predict` its most probable
        class, ``coef_`` the learners' average weighted as the mixture weighs
        them (``mixture_weights_``), and the online record (``n_mistakes_``,
        ``cumulative_loss_``) the paper's learner's. Twice the cost and the memory
        of one learner.
        ``"auto"`` is ``1.0`` where the learner has no discounted form
        (``variant="coordinate"``, ``center=True``) and without a calibration
        map (``calibration=None``, ``loss="hinge"``). Measured in the user guide
        ("Drifting streams"): the accuracy of ``0.995`` on drifting streams,
        that of ``1.0`` on stationary ones.
        Live: a change acts from the next update on (a switch to ``"auto"``
        starts the discounted learner as a copy of the current one).

    verbose : int, default=0
        Progress on ``sys.stderr`` (:ref:`progress`): ``1`` shows a bar with
        the rows per second and the time left during :meth:`fit` in a terminal
        or a notebook, at most ten lines elsewhere; ``2`` adds the mean loss so
        far, one line per epoch, and one line per :meth:`partial_fit` call. The
        state learned is the same. Live: read by the next call.

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

    n_samples_seen_ : int
        Rows processed, the paper's ``t`` (every pass of :meth:`fit` counts;
        rows of weight 0 are not seen).

    cumulative_loss_ : float
        Sum over the processed rows of the weighted loss of the prediction
        made before the update (progressive validation); for one-vs-rest the
        sum of the per-class binary losses.

    mixture_weights_ : ndarray of shape (2,)
        With two learners (``forgetting_factor="auto"``): the weights of the
        paper's learner and of the discounted one. Absent with one learner.

    n_iter_ : int
        Passes made by the last :meth:`fit` (1 after ``partial_fit``).

    variant_ : str
        The learner in use: ``"coordinate"``, ``"diagonal"`` or ``"full"``
        (``variant="auto"`` resolved at the first call).

    n_features_in_ : int
        Number of features seen during the first call.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during the first call, when ``X`` has string
        column names.

    See Also
    --------
    ScaleInvariantRegressor : The same learners for regression.
    sklearn.linear_model.SGDClassifier : Needs scaled features and a learning rate.

    Notes
    -----
    ``coef_`` and ``intercept_`` are the linearisation at ``x = 0`` of the
    next trial's prediction (the online prediction also depends on the row
    itself through ``s²`` or ``S``); ``decision_function`` uses them, but
    for two learners (``forgetting_factor="auto"``, the default), where it is
    the log-odds of the mixed probabilities (see ``forgetting_factor``).

    A sample weight ``c`` multiplies the row's loss. The guarantees need a
    1-Lipschitz loss, so the learner is fed ``clip(c · g, −1, 1)``, the
    derivative of the largest convex 1-Lipschitz function below ``c · ℓ``:
    weights in ``[0, 1]`` keep the guarantee for ``c · ℓ`` itself, a larger
    weight pulls harder up to a unit gradient (for the hinge and absolute
    losses, exactly as a weight of 1), and any weight, however large, leaves
    the weights as finite as unit weights do. A weight of 0 skips the row.

    The full variant keeps the triangular factor ``R`` of the data matrix
    (``S = RᵀR``, updated by Givens rotations), in coordinates shifted to
    the first row (with an intercept) and divided by a power of two per
    feature: both maps are exact no-ops for the predictions of Algorithm 2
    and keep ``R`` well scaled. Its predictions agree with those on
    standardised data to a relative error of about ``κ · eps``, ``κ`` the
    condition number of the data matrix in those coordinates; when ``κ``
    exceeds ``1e12`` it raises ``FloatingPointError`` and leaves the
    estimator unchanged (measurements in the user guide).

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
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "calibration": [StrOptions({"platt", "temperature"}), None],
    }

    def __init__(
        self,
        variant="auto",
        *,
        loss="log_loss",
        class_weight=None,
        calibration="temperature",
        potential_width="auto",
        fit_intercept=True,
        max_iter=1,
        shuffle=False,
        random_state=None,
        multi_class="ovr",
        time_counter="global",
        center=False,
        rank_tol=1e-20,
        readout_ridge=0.1,
        warm_start=False,
        forgetting_factor="auto",
        verbose=0,
    ):
        self.variant = variant
        self.loss = loss
        self.class_weight = class_weight
        self.calibration = calibration
        self.potential_width = potential_width
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.multi_class = multi_class
        self.time_counter = time_counter
        self.center = center
        self.rank_tol = rank_tol
        self.readout_ridge = readout_ridge
        self.warm_start = warm_start
        self.forgetting_factor = forgetting_factor
        self.verbose = verbose

    _frozen_record: ClassVar[type[ParamRecord]] = SIClassifierFrozen
    #: ``forgetting_factor="auto"``: the discounted learner beside the paper's, with a
    #: prior weight of e^-8 (measured: on stationary low-signal streams the two log-
    #: losses stay close and an even prior cost up to 1.1 points of accuracy; on a
    #: switch the discounted learner earns 8 nats in a few dozen rows).
    _auto_forgetting = 0.995
    _auto_prior = 8.0

    @staticmethod
    def _multinomial(state):
        return state.frozen.multi_class == "multinomial" and len(state.classes) > 2

    def _kernel_loss(self, state):
        return "multinomial" if self._multinomial(state) else state.frozen.loss

    def _check_params_consistent(self, X):
        super()._check_params_consistent(X)
        if self.multi_class == "multinomial" and self.loss != "log_loss":
            raise ValueError("multi_class='multinomial' needs loss='log_loss'.")

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Probability estimates (``loss="log_loss"``).

        ``calibration="temperature"`` (default): ``σ(a f)`` with ``f`` the
        decision function and ``a`` the slope learned online from each row's
        score before the row was learned; ``softmax(a f)`` over several
        classes (one-vs-rest or multinomial). An increasing map, so the
        rankings (ROC AUC) are those of :meth:`decision_function` and the
        most probable class is the predicted one. ``calibration="platt"``
        (binary): ``σ(a f + b)``, whose log-odds :meth:`decision_function`
        then returns. ``calibration=None``: the learner's own
        link; binary: ``[1 − σ(f), σ(f)]``; one-vs-rest: ``σ(f_k)``
        normalised to sum to one; ``multi_class="multinomial"``:
        ``softmax(f)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probability of each class, in the order of ``classes_``.
        """
        proba = self._calibrated_proba(X)
        if proba is not None:
            return proba
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
        log_proba = self._calibrated_proba(X, log=True)  # in log space: no log(0)
        if log_proba is not None:
            return log_proba
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class ScaleInvariantRegressor(OnlineLinearRegressorMixin, RegressorMixin, _BaseScaleInvariant):
    """Scale-invariant online linear regression with no learning rate.

    Kotłowski (2017): the learners of :class:`ScaleInvariantClassifier`
    (``variant="auto"``: Algorithm 2 on up to 128 coordinates, Algorithm 2
    per coordinate beyond) on a Lipschitz loss: the absolute error, the
    epsilon-insensitive loss or the Huber loss (fed ``g / epsilon``, its
    Lipschitz constant); or on the squared error, which is not Lipschitz:
    its derivative ``2(p − y)`` is fed clipped to ``[−1, 1]`` like every
    gradient (Notes), which keeps the exponential potential finite, and the
    regret guarantees below no longer apply.

    Invariant in ``X`` (like :class:`ScaleInvariantClassifier`), **not** in
    ``y``: the learners' predictions start at 0 and must grow to the scale
    of the targets. By default (``center_target=True``) the regressor
    predicts the running mean of the targets plus the learner's prediction
    and the learner learns the residual; ``center_target=False`` is the
    paper's setting. Per-row cost, memory, guarantees and errata as in
    :class:`ScaleInvariantClassifier` (the bounds are on the loss divided
    by its Lipschitz constant, of the residual with ``center_target``).

    What :meth:`predict` and ``coef_`` read (``readout``): by default, for
    the full variant, the least-squares weights of the rows learned so far,
    read from the learner's own factor ``R`` of ``S = Σ_t x_t x_tᵀ`` and
    the targets' cross-moments ``Σ_t y_t x_t`` (recursive least squares; an
    extension): invariant to every invertible affine map of the features
    and equivariant in the targets (``y → a y + c``). A learner fed a
    bounded gradient grows its weights to the targets' scale slowly: its
    regret grows with the comparator's norm ``‖u‖_S``, i.e. with the
    targets' scale, so on streams with large targets its prequential error
    stays several times the least-squares read-out's (measurements in the
    user guide). ``readout="learner"`` reads Algorithm 2's own weights, the
    paper's predictor.

    Read more in the :ref:`User Guide <scale_invariant>`.

    Parameters
    ----------
    variant : {"auto", "coordinate", "diagonal", "full"}, default="auto"
        The learner. ``"full"``: Algorithm 2, invariant to every invertible
        linear map of the features (every invertible affine map with
        ``fit_intercept=True``: standardisation, whitening, change of units
        or origin), ``O(n_features²)`` time and memory per row.
        ``"coordinate"``: Algorithm 1, invariant to per-feature rescaling
        ``x_i → a_i x_i`` (any ``a_i ≠ 0``), ``O(nnz)`` time per row and
        ``O(n_features)`` memory. ``"diagonal"`` (extension): Algorithm 2
        run on each coordinate alone, with the invariance and the cost of
        Algorithm 1 but the potential of Algorithm 2, which lets the weights
        grow from the first rows. ``"auto"``: ``"full"`` up to 128
        coordinates (intercept included), ``"diagonal"`` beyond; the
        resolved learner is ``variant_``.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    loss : {"absolute_error", "epsilon_insensitive", "huber", "squared_error"}, \
            default="absolute_error"
        The loss of the online predictions. The first three are Lipschitz
        (Kotłowski's analysis holds for the loss divided by its constant).
        ``"squared_error"`` ``(p − y)²`` is not: the learner is fed
        ``clip(2c(p − y), −1, 1)`` (``c`` the sample weight), the squared
        loss's gradient for residuals up to ``1/(2c)`` in target units and a
        unit gradient beyond, so its updates stay finite for any target but
        no regret bound holds; with unit weights they are the updates of
        ``loss="huber", epsilon=0.5``, while ``cumulative_loss_`` is the
        squared error. Scale the targets so that typical residuals are below
        about ``0.5`` for it to act as the squared loss.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    epsilon : float, default=0.1
        Width of the insensitive zone (``"epsilon_insensitive"``) or
        threshold of the Huber loss (``"huber"``, which needs
        ``epsilon > 0``), in target units.
        Live: a change acts from the next update on.

    center_target : bool, default=True
        Predict the running mean of the targets plus ``xᵀw``
        (``mean(y_<t) + xᵀw``) and learn on the residual (an extension);
        ``False`` is the paper's setting, whose predictions start at 0.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    clip_predictions : bool, default=True
        Clip each prediction of :meth:`predict` to ``[min y, max y]`` over
        the targets learned so far (rows of weight > 0), as Vowpal Wabbit
        does: a row far outside the data seen (a feature never seen
        non-zero, an outlier) cannot produce a prediction far outside the
        targets seen. The learner's updates and ``cumulative_loss_`` use its
        own unclipped prediction (the paper's, the quantity its regret
        bounds are about). ``False``: the paper's predictions.
        Live: the read-outs use the value recorded by the last call that
        learned.

    readout : {"least_squares", "learner"}, default="least_squares"
        The weights :meth:`predict` and ``coef_`` read, full variant only.
        ``"least_squares"`` (extension): ``S⁺ Σ_t y_t x_t``, the
        least-squares fit of the rows learned so far (discounted by
        ``forgetting_factor``, with the fading ``readout_ridge``), read from
        the learner's factor ``R`` and the cross-moments ``Σ_t y_t x_t``
        kept beside it (``O(d)`` more per row): it predicts the targets
        learned with a squared error whatever ``loss``, and sample weights
        act on the learner only (each row enters ``S`` once). ``"learner"``:
        Algorithm 2's own linearised weights (plus the running target mean
        with ``center_target``), the paper's predictor. Either way the learner
        runs the same (its online predictions, ``cumulative_loss_`` and regret
        bound are unchanged). The coordinate and diagonal variants keep no
        ``S`` and always read their learner.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    potential_width : float or "auto", default=1.5
        Kotłowski's ``α``, the width of the exponential potential
        ``exp(h²/(2α s²))`` (not a regularisation strength). The coordinate
        variant needs ``potential_width > 9/8`` (the constant
        ``κ = exp(1/(2(α − 9/8)))`` of Theorem 3.4 is infinite at 9/8), the
        full and diagonal variants ``potential_width >= 9/8`` (Lemma 4.3).
        Larger values give smaller, more cautious weights. ``"auto"``: 9/8
        for the full and diagonal variants, 1.5 for the coordinate variant
        (the classifier's default; the default least-squares read-out does
        not depend on ``α``).
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    fit_intercept : bool, default=True
        Append a constant feature, an ordinary coordinate of the algorithm
        (its value does not matter: the algorithms are scale invariant).
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    max_iter : int, default=1
        Passes over the data in :meth:`fit` (the theory is one pass).
        Live: read by the next :meth:`fit`.

    shuffle : bool, default=False
        Shuffle the rows (a seeded permutation that depends only on the
        number of rows, so rescaled data gets the same order) before each
        pass of :meth:`fit`. Use it for data sorted by class; ``partial_fit``
        never shuffles.
        Live: read by the next :meth:`fit`.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
        Live: read by the next :meth:`fit`.

    time_counter : {"global", "per_feature"}, default="global"
        Coordinate variant: ``t`` in the ``1/(α t d)`` of eq. 5 counts every
        row (the paper) or, ``"per_feature"`` (extension), the rows in which
        the feature was non-zero — a never-worse bound; rare sparse features
        are not damped by ``1/t`` and all-zero rows have no effect. The
        other variants have no such counter.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    center : bool, default=False
        Coordinate and diagonal variants (extension, no regret guarantee):
        centre each feature at its running mean, computed retroactively from
        running sums, which makes the predictions invariant to per-feature
        affine maps ``x_i → a_i x_i + b_i``. It costs ``O(n_features)`` per
        row whatever the sparsity (CSR rows are densified). The full variant
        with an intercept is affine invariant already and ignores it.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    rank_tol : float, default=1e-20
        Full variant: a row adds a direction to the span of the rows seen
        when its part outside that span (measured on the factor ``R``)
        exceeds ``rank_tol`` times its squared norm (in internal
        coordinates); a smaller part is rounding and is dropped. This is
        the rank test of the pseudo-inverse. The part must also exceed 16
        times the storage rounding of the row in its dtype (``1e-6`` of its
        norm before centring for float32 input): columns that are collinear
        but stored in float32 add no direction made of rounding.
        Live: a change acts from the next update on.

    readout_ridge : float, default=0.1
        Full variant: the weights :meth:`predict` and ``coef_`` read are
        Algorithm 2's ``S⁺h`` with a ridge that fades out,
        ``(S + λ_t D)⁺h`` with ``D`` the diagonal of ``S`` (the rows' own
        per-feature scale; the intercept is not shrunk) and
        ``λ_t = readout_ridge · (d / t) · max(0, 1 − t / (20 d))`` after ``t``
        rows on ``d`` coordinates: while there are fewer rows than about
        ``20 d`` the pseudo-inverse of a nearly singular ``S`` interpolates
        the few rows seen (its test error peaks near ``t = d``), and the
        ridge keeps those weights near the per-feature solution; from
        ``20 d`` rows on the read-out is Algorithm 2's exactly. The learner
        itself (its online predictions, losses and regret bound) is
        unchanged; the read-out stays invariant to per-feature changes of
        unit and origin, and to every invertible affine map once the ridge is
        gone. ``0``: Algorithm 2's linearisation from the first row. The
        default was measured on the real-data scoreboard (user guide). The
        least-squares read-out (``readout``) uses the same ridge.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    warm_start : bool, default=False
        :meth:`fit` continues from the current state instead of resetting.
        Live: read by the next :meth:`fit`.

    forgetting_factor : "auto" or float in (0, 1], default="auto"
        Drift. A number ``γ``: each row first discounts Algorithm 2's
        statistics, ``S ← γS``, ``h ← γh``, ``Γ ← γΓ`` (a memory of about
        ``1/(1 − γ)`` rows; ``variant="full"`` or ``"diagonal"`` with
        ``center=False`` only), and the least-squares read-out's
        ``Σ_t y_t x_t`` with them: the read-out is then recursive least
        squares with exponential forgetting. With ``variant="full"``, a
        direction that no row refreshes (a feature that falls silent) is
        forgotten once it has decayed below ``1e-8`` of the strongest one,
        instead of making the factor too ill-conditioned to take more rows
        (user guide, "Drifting streams"). ``1.0``: the paper's algorithm,
        bit for bit. ``"auto"``: two learners side by side, undiscounted and
        discounted by ``0.98`` (a memory of about 50 rows), and
        :meth:`predict` mixes their read-outs with weights ``∝ exp(−L)``, ``L``
        the Gaussian negative log-likelihood of each read-out's prequential
        predictions (clipped to the targets' range) under the variance of the
        mixture's own residuals so far: a Bayes mixture, whose loss is at most
        the better read-out's plus ``log 2`` for that variance, whatever the
        units of ``y``. ``coef_`` and ``intercept_`` are the mixture's (the
        weighted average, ``mixture_weights_``); the online record
        (``cumulative_loss_``) is the paper's learner's. Twice the cost and
        the memory of one learner. It needs the least-squares read-out of ``variant="full"``
        (``O(d)`` more a row for its prequential predictions); elsewhere
        ``"auto"`` is ``1.0``. Measured in the user guide ("Drifting
        streams"): the error of ``0.98`` on drifting streams (2 × better than
        River's scaled regression), within about 1 % of ``1.0`` on
        stationary ones. Live: a change acts from the next update on (a
        switch to ``"auto"`` starts the discounted learner as a copy of the
        current one).

    verbose : int, default=0
        Progress on ``sys.stderr`` (:ref:`progress`): ``1`` shows a bar with
        the rows per second and the time left during :meth:`fit` in a terminal
        or a notebook, at most ten lines elsewhere; ``2`` adds the mean loss so
        far, one line per epoch, and one line per :meth:`partial_fit` call. The
        state learned is the same. Live: read by the next call.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Linearised weights of the next trial, in raw feature units.

    intercept_ : float
        The weight of the constant feature, plus the running target mean
        with ``center_target=True``.

    n_samples_seen_ : int
        Rows processed, the paper's ``t`` (every pass of :meth:`fit` counts;
        rows of weight 0 are not seen).

    cumulative_loss_ : float
        Sum over the processed rows of the weighted loss of the prediction
        made before the update (progressive validation); for one-vs-rest the
        sum of the per-class binary losses.

    mixture_weights_ : ndarray of shape (2,)
        With two learners (``forgetting_factor="auto"``): the weights of the
        paper's learner and of the discounted one. Absent with one learner.

    n_iter_ : int
        Passes made by the last :meth:`fit` (1 after ``partial_fit``).

    variant_ : str
        The learner in use: ``"coordinate"``, ``"diagonal"`` or ``"full"``
        (``variant="auto"`` resolved at the first call).

    n_features_in_ : int
        Number of features seen during the first call.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during the first call, when ``X`` has string
        column names.

    See Also
    --------
    ScaleInvariantClassifier : The same learners for classification.
    sklearn.linear_model.SGDRegressor : Needs scaled features and a learning rate.

    Notes
    -----
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

    The full variant keeps the triangular factor ``R`` of the data matrix
    (``S = RᵀR``, updated by Givens rotations), in coordinates shifted to
    the first row (with an intercept) and divided by a power of two per
    feature: both maps are exact no-ops for the predictions of Algorithm 2
    and keep ``R`` well scaled. Its predictions agree with those on
    standardised data to a relative error of about ``κ · eps``, ``κ`` the
    condition number of the data matrix in those coordinates; when ``κ``
    exceeds ``1e12`` it raises ``FloatingPointError`` and leaves the
    estimator unchanged (measurements in the user guide).

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
        "loss": [StrOptions({"absolute_error", "epsilon_insensitive", "huber", "squared_error"})],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "center_target": ["boolean"],
        "clip_predictions": ["boolean"],
        "readout": [StrOptions({"least_squares", "learner"})],
    }

    def __init__(
        self,
        variant="auto",
        *,
        loss="absolute_error",
        epsilon=0.1,
        center_target=True,
        clip_predictions=True,
        readout="least_squares",
        potential_width=1.5,
        fit_intercept=True,
        max_iter=1,
        shuffle=False,
        random_state=None,
        time_counter="global",
        center=False,
        rank_tol=1e-20,
        readout_ridge=0.1,
        warm_start=False,
        forgetting_factor="auto",
        verbose=0,
    ):
        self.variant = variant
        self.loss = loss
        self.epsilon = epsilon
        self.center_target = center_target
        self.clip_predictions = clip_predictions
        self.readout = readout
        self.potential_width = potential_width
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.time_counter = time_counter
        self.center = center
        self.rank_tol = rank_tol
        self.readout_ridge = readout_ridge
        self.warm_start = warm_start
        self.forgetting_factor = forgetting_factor
        self.verbose = verbose

    _frozen_record: ClassVar[type[ParamRecord]] = SIRegressorFrozen
    #: ``forgetting_factor="auto"``: the discounted learner beside the paper's.
    _auto_forgetting = 0.98

    def _can_mix(self, state):
        """A mixture needs the least-squares read-out's prequential predictions (``"full"``)."""
        return super()._can_mix(state) and getattr(state, "u", None) is not None

    _live_record: ClassVar[type[ParamRecord]] = SIRegressorLive

    def _epsilon(self):
        return float(self.epsilon)

    def _least_squares_readout(self):
        return self.readout == "least_squares"

    def _check_params_consistent(self, X):
        super()._check_params_consistent(X)
        if self.loss == "huber" and self.epsilon <= 0:
            raise ValueError("loss='huber' needs epsilon > 0 (its Lipschitz constant).")

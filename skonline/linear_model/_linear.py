"""What skonline's online linear models share: targets, sample weights, epochs, read-outs.

Both families (the sketched online Newton step and the scale-invariant
learners) hold ``K`` linear models (one for a binary problem or a regression,
one per class for one-vs-rest) in a :class:`LinearState`. Each family's
engine subclasses :class:`OnlineLinearBase` and implements two hooks; an
estimator reads as scikit-learn's do, mixins first, then the engine::

    class RFDSONClassifier(OnlineLinearClassifierMixin, ClassifierMixin, _BaseSON)

The hooks:

``_learner_pass(state, X, T, sample_weight, forgetting)``
    One ordered pass over validated rows with targets ``T`` of shape (n, K),
    the statistics discounted by ``forgetting`` per row; returns the new state
    (never writing into ``state``) and the per-row scores of shape (n, K)
    that decide the online predicted labels (a regressor's predictions).
``_linear_readout(state)``
    ``(coef, intercept)`` of shapes (K, n_features) and (K,).
``_can_mix(state)``
    Whether ``forgetting_factor="auto"`` can run two learners on the state
    (a discounted form, and the predictions to mix them by).

``forgetting_factor="auto"`` runs the learner twice, undiscounted and
discounted by the family's ``_auto_forgetting``, and mixes the two (see
:meth:`OnlineLinearBase._linear_pass`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import expit, logsumexp, softmax
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from ..base import (
    MAX_ABS_VALUE,
    OnlineEstimator,
    OnlineLossMixin,
    OnlineState,
    check_finite_magnitude,
    sequential_sum,
    shallow_replace,
)
from ..utils._sklearn_compat import _check_sample_weight, _fit_context
from ..utils._validation import finite_range
from ._calibration_fast import gaussian_mixture_steps, platt_steps, temperature_steps

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "LinearState",
    "OnlineLinearBase",
    "OnlineLinearClassifierMixin",
    "OnlineLinearRegressorMixin",
    "calibrate",
    "calibrated_log_probabilities",
    "calibrated_probabilities",
    "calibrated_scores",
    "calibration_pass",
    "class_weighted",
    "labels_from_scores",
    "mixture_pass",
    "mixture_weights",
    "new_calibration",
    "probabilities_from_scores",
    "temperature_pass",
]


@dataclass(kw_only=True, eq=False)
class LinearState(OnlineState):
    """The fields every online linear model's state has.

    Attributes
    ----------
    classes : ndarray or None
        The classes of a classifier (``None`` for a regressor).
    n_iter : int
        Passes of the last ``fit`` (1 after ``partial_fit``).
    n_mistakes : int
        Online mistakes of a classifier (labels predicted before each update).
    class_counts : ndarray of shape (n_classes,) or None
        Rows of each class learned so far (a classifier's; rows of weight 0
        are not counted): the counts of ``class_weight="balanced"``.
    target_min, target_max : float
        The smallest and largest target learned so far (a regressor's; rows
        of weight 0 are not counted; ``None`` before the first):
        the range ``clip_predictions`` clips to.
    calibration : ndarray or None
        A classifier's online calibration map, updated by
        :func:`calibration_pass` (run by the family's pass on the scores it
        computed): for ``calibration="temperature"``, ``[a, h]``, the slope
        of ``σ(a f)`` (binary; ``softmax(a f)`` for several classes) and the
        curvature ``h`` of its Newton steps; for ``calibration="platt"``, the
        layout of :func:`new_calibration`; ``None`` without calibration.
    calibration_loss : float
        The calibration map's prequential log-loss: the sum of each row's
        weighted ``−log p_y`` under the map before the row's step (0 without
        a map).
    drift : LinearState or None
        With ``forgetting_factor="auto"``, the discounted learner run beside
        this one (a state of the same family, its own map included);
        ``None`` otherwise.
    mixture : ndarray of shape (6,) or None
        A regressor's mixture of itself and ``drift``:
        ``[L, L_drift, Σ c r², Σ c, y_min, y_max]`` (:func:`mixture_pass`); ``None``
        otherwise (a classifier's mixture reads the two maps'
        ``calibration_loss``).
    """

    classes: np.ndarray | None = None
    n_iter: int = 0
    n_mistakes: int = 0
    class_counts: np.ndarray | None = None
    target_min: float | None = None
    target_max: float | None = None
    calibration: np.ndarray | None = None
    calibration_loss: float = 0.0
    drift: Any = None
    mixture: np.ndarray | None = None


# ----------------------------------------------------------- calibration
#: Prior of the temperature map: ``a = 1`` (the learner's own link) worth
#: ``CALIBRATION_PRIOR`` in the curvature of its Newton steps.
CALIBRATION_PRIOR = 1.0
#: Prior of ``calibration="platt"``: ``(a, b) = (1, 0)`` worth this in each
#: diagonal entry of the curvature (binary), and the temperature's prior for
#: several classes (chosen by measurement over 0.1 / 0.3 / 1 / 3 on 14 binary
#: streams, 3–5 row orders each).
PLATT_PRIOR = 0.3
#: The slope ``a`` is kept at least this: the map stays increasing, so the
#: probabilities rank the rows as the decision function does.
MIN_SLOPE = 1e-6


def new_calibration(kind: str = "temperature", n_scores: int = 1) -> np.ndarray:
    """The initial map of ``kind`` for ``n_scores`` score columns (1: binary).

    ``"temperature"``: ``[a, h] = [1, CALIBRATION_PRIOR]``. ``"platt"``:
    binary, ``[a, b, H_aa, H_ab, H_bb] = [1, 0, PLATT_PRIOR, 0, PLATT_PRIOR]``
    (the map ``σ(a f + b)`` and the curvature of its Newton steps); several
    classes, the temperature map ``[1, PLATT_PRIOR]``.
    """
    if kind == "platt":
        if n_scores == 1:
            return np.array([1.0, 0.0, PLATT_PRIOR, 0.0, PLATT_PRIOR])
        return np.array([1.0, PLATT_PRIOR])
    return np.array([1.0, CALIBRATION_PRIOR])


def calibration_pass(
    calibration: np.ndarray,
    scores: np.ndarray,
    T: np.ndarray,
    sample_weight: np.ndarray,
    losses: np.ndarray | None = None,
) -> np.ndarray:
    """The map after the rows, by its layout: online Platt scaling or :func:`temperature_pass`.

    ``[a, b, H_aa, H_ab, H_bb]`` (binary ``calibration="platt"``): a pure
    kernel (``calibration`` is copied), one Newton step per row on the
    log-loss of ``σ(a f + b)`` (slope and intercept, ``a`` kept at least
    ``MIN_SLOPE``), row by row, so any split of the stream gives the same map
    (the compiled loop is ``_calibration_fast.platt_steps``; its NumPy
    transcription lives in the tests). ``[a, h]`` (``"temperature"``, and
    ``"platt"`` for several classes): :func:`temperature_pass`. ``losses``
    (optional, shape ``(n,)``) receives each row's weighted log-loss under
    the map before the row's step, as in :func:`temperature_pass`.
    """
    if calibration.shape == (2,):
        return temperature_pass(calibration, scores, T, sample_weight, losses)
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    T = np.asarray(T)
    weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
    if (
        scores.ndim != 2
        or scores.shape[1] != 1
        or T.shape != scores.shape
        or weight.shape != scores.shape[:1]
        or calibration.shape != (5,)
        or (losses is not None and losses.shape != weight.shape)
    ):
        raise ValueError(
            f"calibration_pass: scores {scores.shape}, targets {T.shape}, "
            f"weights {weight.shape} and map {calibration.shape} do not match."
        )
    out = np.array(calibration, dtype=np.float64)  # a copy, written by the loop
    positive = np.ascontiguousarray(T[:, 0] > 0, dtype=np.uint8)
    platt_steps(out, np.ascontiguousarray(scores[:, 0]), positive, weight, MIN_SLOPE, losses)
    return out


def calibrate(
    state: LinearState, new: LinearState, scores: np.ndarray, T: np.ndarray, sample_weight: Any
) -> None:
    """``new``'s map and its prequential loss after the rows (``state``'s map, then the rows).

    ``new`` is the pass's own copy of ``state``; the losses are added row by
    row, so any split of the stream gives the same sum.
    """
    assert state.calibration is not None  # the family calls it for a map only
    losses = np.empty(len(sample_weight))
    new.calibration = calibration_pass(state.calibration, scores, T, sample_weight, losses)
    new.calibration_loss = sequential_sum(state.calibration_loss, losses)


def mixture_pass(
    mixture: np.ndarray | None,
    first: np.ndarray,
    second: np.ndarray,
    T: np.ndarray,
    sample_weight: np.ndarray,
    prior: float = 0.0,
) -> np.ndarray:
    """Two regressors' Gaussian mixture ``[L_1, L_2, Σ c r², Σ c, y_min, y_max]`` after the rows.

    A pure kernel (``mixture`` is copied; ``None`` starts from no evidence):
    for each row, in order, the prequential predictions ``first`` and
    ``second`` (shape (n, 1)) of the two learners, clipped to the range of
    the targets before the row, each row's likelihood under a Gaussian whose
    variance is the mixture's mean squared residual so far
    (``_calibration_fast.gaussian_mixture_steps``). The weights
    ``∝ exp(−L_k)`` make the mixture's cumulative loss at most the better
    learner's plus ``log 2`` (the Bayes mixture's bound, for the variance in
    use), whatever the units of the targets. The second learner starts
    ``prior`` nats behind (its weights use ``L_2 + prior``).
    """
    if mixture is None:
        out = np.array([0.0, 0.0, 0.0, 0.0, 1.0, 0.0])  # y_min > y_max: no range yet
    else:
        out = np.array(mixture, dtype=np.float64)
    columns = [
        np.ascontiguousarray(np.asarray(a, dtype=np.float64)[:, 0]) for a in (first, second, T)
    ]
    weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
    if out.shape != (6,) or any(c.shape != weight.shape for c in columns) or weight.ndim != 1:
        raise ValueError(
            f"mixture_pass: mixture {out.shape}, predictions {columns[0].shape} and "
            f"{columns[1].shape}, targets {columns[2].shape} and weights {weight.shape} do not "
            "match."
        )
    gaussian_mixture_steps(out, *columns, weight, float(prior))
    return out


def mixture_weights(losses: np.ndarray) -> np.ndarray:
    """The weights ``∝ exp(−L_k)`` of a mixture of learners with cumulative losses ``L``."""
    return softmax(-losses)


def temperature_pass(
    calibration: np.ndarray,
    scores: np.ndarray,
    T: np.ndarray,
    sample_weight: np.ndarray,
    losses: np.ndarray | None = None,
) -> np.ndarray:
    """Online temperature scaling: one Newton step per row on the log-loss of ``a f``.

    A pure kernel (``calibration`` is copied). The probabilities are
    ``σ(a f)`` for a binary problem (one score ``f``) and ``softmax(a f)``
    for several classes (one score per class). For each row, in order, with
    ``c`` its weight and ``p`` those probabilities (the binary score ``f``
    read as the pair ``(0, f)``)::

        h += c Var_p(f),   a −= c (E_p[f] − f_y) / h

    from ``a = 1`` and ``h = CALIBRATION_PRIOR`` (for a binary row,
    ``Var_p(f) = p(1 − p) f²`` and ``E_p[f] − f_y = (p − y) f``): the online
    Newton step of a one-parameter logistic regression, with ``a`` kept at
    least ``MIN_SLOPE``. Row by row, so any split of the stream gives the
    same map. The map has no intercept: ``a f`` keeps the sign (binary) and
    the argmax of ``f``, so the most probable class is the predicted one.
    The loop is compiled (``_calibration_fast``); the NumPy transcription
    it is compared with lives in the tests.

    Parameters
    ----------
    calibration : ndarray of shape (2,)
        ``[a, h]`` (:func:`new_calibration`).
    scores : ndarray of shape (n, K)
        The rows' scores, each computed before its row was learned.
    T : ndarray of shape (n, K)
        Targets ``±1`` (one-vs-rest for several classes).
    sample_weight : ndarray of shape (n,)
        Positive row weights.
    losses : ndarray of shape (n,), default=None
        If given (C-contiguous float64), receives each row's weighted
        log-loss ``c · (−log p_y)`` under the map before the row's step (0
        for a row skipped for its non-finite score): the map's prequential
        loss, which ``forgetting_factor="auto"`` mixes its learners by.

    Returns
    -------
    calibration : ndarray of shape (2,)
        The map after the rows.
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    positive = np.ascontiguousarray(np.asarray(T) > 0, dtype=np.uint8)
    weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
    if (
        scores.ndim != 2
        or positive.shape != scores.shape
        or weight.shape != scores.shape[:1]
        or (losses is not None and losses.shape != weight.shape)
    ):
        raise ValueError(
            f"temperature_pass: scores {scores.shape}, targets {positive.shape} and "
            f"weights {weight.shape} do not match."
        )
    a, h = temperature_steps(
        float(calibration[0]), float(calibration[1]), scores, positive, weight, MIN_SLOPE, losses
    )
    return np.array([a, h])


def calibrated_scores(calibration: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The map's log-odds ``a f`` (temperature) or ``a f + b`` (binary Platt), shape (n, K)."""
    out = np.asarray(scores, dtype=np.float64) * calibration[0]
    if calibration.shape == (5,):
        out = out + calibration[1]
    return out


def calibrated_log_probabilities(calibration: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The log of :func:`calibrated_probabilities`, computed in log space (never ``log 0``)."""
    z = calibrated_scores(calibration, scores)
    if z.shape[1] == 1:
        z = np.hstack([np.zeros_like(z), z])
    return z - logsumexp(z, axis=1, keepdims=True)


def calibrated_probabilities(calibration: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """``σ(a f)`` / ``σ(a f + b)`` (binary) or ``softmax(a f)``: the online calibration map."""
    return probabilities_from_scores(calibrated_scores(calibration, scores), multinomial=True)


def labels_from_scores(
    classes: np.ndarray, scores: np.ndarray, *, zero_is_positive: bool
) -> np.ndarray:
    """Class labels from decision scores of shape (n, K).

    Binary (``K == 1``): ``classes[1]`` where the score is positive (or zero,
    with ``zero_is_positive``); otherwise the argmax over the columns.
    """
    if scores.shape[1] == 1:
        positive = scores[:, 0] >= 0 if zero_is_positive else scores[:, 0] > 0
        return classes[positive.astype(int)]
    return classes[np.argmax(scores, axis=1)]


def probabilities_from_scores(scores: np.ndarray, *, multinomial: bool = False) -> np.ndarray:
    """Class probabilities from decision scores of shape (n, K).

    Binary (``K == 1``): ``[1 − σ(f), σ(f)]``; ``multinomial``:
    ``softmax(f)``; one-vs-rest: ``σ(f_k)`` normalised to sum to one.
    """
    if scores.shape[1] == 1:
        prob = expit(scores)
        return np.hstack([1.0 - prob, prob])
    if multinomial:
        z = scores - scores.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)
    prob = expit(scores)
    return prob / prob.sum(axis=1, keepdims=True)


def class_weighted(
    class_weight: Any,
    classes: np.ndarray,
    index: np.ndarray,
    counts: np.ndarray,
    sample_weight: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Sample weights times the rows' class weights, and the class counts after the rows.

    Parameters
    ----------
    class_weight : dict, "balanced" or None
        A dict multiplies the weight of a row of class ``c`` by
        ``class_weight[c]`` (1 for a class it does not list).
        ``"balanced"`` multiplies it by ``n / (K · n_c)``, scikit-learn's
        ``compute_class_weight("balanced")`` over the rows learned so far,
        this row included: ``n`` rows, ``n_c`` of them of class ``c``, ``K``
        the declared classes. Counted row by row, so any split of the stream
        gives the same weights; a row whose weight is 0 (after a dict weight)
        is not learned and not counted.
    classes : ndarray of shape (K,)
        The declared classes, sorted.
    index : ndarray of shape (n,)
        Position in ``classes`` of each row's label.
    counts : ndarray of shape (K,)
        Rows of each class learned before these rows.
    sample_weight : ndarray of shape (n,)
        The rows' sample weights.

    Returns
    -------
    sample_weight : ndarray of shape (n,)
        A new array: the weights multiplied by the class weights.
    counts : ndarray of shape (K,)
        A new array: the counts after the rows.
    """
    K = len(classes)
    sample_weight = np.array(sample_weight, dtype=np.float64, copy=True)
    if isinstance(class_weight, dict):
        per_class = np.array([float(class_weight.get(c, 1.0)) for c in classes.tolist()])
        sample_weight *= per_class[index]
    seen = sample_weight > 0
    learned = index[seen]
    if isinstance(class_weight, str):  # "balanced"
        n_c = counts[learned].astype(np.float64)
        for k in range(K):  # this row included: n_c >= 1
            mine = learned == k
            n_c[mine] += np.arange(1, np.count_nonzero(mine) + 1)
        n = float(counts.sum()) + np.arange(1, learned.size + 1)
        sample_weight[seen] *= n / (K * n_c)
    new_counts = counts + np.bincount(learned, minlength=K).astype(counts.dtype)
    return sample_weight, new_counts


#: The weights of a small batch without ``sample_weight`` (read-only, shared).
_ONES = np.ones(64)
_ONES.setflags(write=False)


def _validate_sample_weight(X: Any, sample_weight: Any) -> np.ndarray:
    """Non-negative, finite, not all zero and not too large to square.

    No weights: ones, for a small batch a read-only view of a shared array
    (nothing writes into validated weights).
    """
    if sample_weight is None:
        n = X.shape[0]
        return _ONES[:n] if n <= _ONES.shape[0] else np.ones(n)
    if (  # the common case in one compiled pass; anything else gets the full checks
        type(sample_weight) is np.ndarray
        and sample_weight.dtype == np.float64
        and sample_weight.shape == (X.shape[0],)
    ):
        low, high, code = finite_range(sample_weight)
        if code == 0 and low >= 0 and 0 < high <= MAX_ABS_VALUE:
            return sample_weight
    sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    check_finite_magnitude(sw, name="sample_weight")
    if not np.any(sw > 0):
        raise ValueError("sample_weight is zero for every row: the batch carries no information.")
    return sw


def _all_known(y: np.ndarray, known: np.ndarray) -> bool:
    """True if every label of ``y`` is in the sorted ``known`` (a binary search per row).

    Only for labels that compare as ``known`` does (numbers with numbers,
    strings with strings); otherwise False, and the caller computes the
    unseen labels the slow way. A few rows are looked up in the list of the
    known labels (Python's equality is NumPy's for numbers and strings).
    """
    kinds = y.dtype.kind + known.dtype.kind
    if not (kinds in ("UU", "SS") or (kinds[0] in "biuf" and kinds[1] in "biuf")):
        return False
    if not len(known):
        return False
    if y.shape[0] <= _FEW_ROWS:
        return all(map(known.tolist().__contains__, y.tolist()))
    index = np.searchsorted(known, y)
    np.minimum(index, len(known) - 1, out=index)
    return bool(np.all(known[index] == y))


def _own(new: Any, state: Any) -> Any:
    """``new``, or a shallow copy of it when it is ``state`` itself (never written into)."""
    return shallow_replace(new) if new is state else new


#: Batches of at most this many rows look their labels up one by one.
_FEW_ROWS = 8


class OnlineLinearBase(OnlineLossMixin, OnlineEstimator):
    """Base class of the online linear engines: the pass, epochs and decision scores.

    A family's engine (``_BaseSON``, ``_BaseScaleInvariant``) subclasses it
    and implements the hooks of the module docstring, overriding the
    defaults here; the classifier and regressor mixins come before the
    engine in an estimator's bases.
    """

    #: Binary tie rule of the family: is a decision of exactly 0 the positive class?
    _zero_is_positive = False
    #: The discount of the second learner of ``forgetting_factor="auto"`` (None:
    #: ``"auto"`` is 1.0, one learner).
    _auto_forgetting: float | None = None
    #: ... and starts this many nats behind the paper's learner: a prior weight of
    #: ``1 / (1 + e^prior)`` (chosen by measurement; see the classifiers').
    _auto_prior: float = 0.0

    def _check_params_consistent(self, X: Any) -> None:
        """Checks of parameter combinations that need the validated batch (default: none)."""

    def _can_mix(self, state: Any) -> bool:
        """Whether ``"auto"`` can run a discounted learner beside the state's (default: yes)."""
        return True

    def _forgetting(self) -> float:
        """The discount of a single learner (``"auto"`` without a mixture: 1.0)."""
        gamma = self.forgetting_factor
        return 1.0 if gamma == "auto" else float(gamma)

    def _mixes(self, state: Any) -> bool:
        """Whether ``forgetting_factor="auto"`` runs a discounted learner beside ``state``'s.

        It does when the family has a discount for it, :meth:`_can_mix`,
        and (for a classifier) a calibration map gives the
        prequential log-loss the two learners are mixed by.
        """
        return (
            self.forgetting_factor == "auto"
            and self._auto_forgetting is not None
            and self._can_mix(state)
            and (state.classes is None or state.calibration is not None)
        )

    def _linear_pass(self, state: Any, X: Any, T: np.ndarray, sample_weight: np.ndarray) -> Any:
        """The family's pass with the discount in use, or the mixture of ``"auto"``.

        ``forgetting_factor="auto"`` (where :meth:`_mixes`): the learner runs
        undiscounted (the state itself: its online record, ``n_mistakes_``,
        ``cumulative_loss_``, are its own) and discounted by
        ``_auto_forgetting`` (``state.drift``, started as a copy of the
        learner when ``"auto"`` is first in use); predictions mix the two by
        their prequential losses (a Bayes mixture: a classifier's by the log-
        loss of each learner's calibrated probabilities, a regressor's by
        :func:`mixture_pass`). Where the discounted learner's pass still fails
        (``FloatingPointError``: statistics too ill-conditioned; the families
        forget a direction that decays without data, but a learner without
        that rule, or data at the edge of float64, may get there), it restarts as
        a copy of the learner after the call, with even evidence: a call that
        the paper's learner can take never fails for the second one; the
        restart falls at the end of the call, so only there does the split of
        the stream matter. Any other value runs one learner and drops a
        second one.
        """
        if not self._mixes(state):
            new, decided = self._learner_pass(state, X, T, sample_weight, self._forgetting())
            if new.drift is not None or new.mixture is not None:
                new = _own(new, state)
                new.drift, new.mixture = None, None
            return new, decided
        drift = state.drift
        if drift is None:  # a copy of the learner: passes never write into their input
            drift = shallow_replace(state, drift=None, mixture=None)
        new, decided = self._learner_pass(state, X, T, sample_weight, 1.0)
        new = _own(new, state)
        gamma = float(self._auto_forgetting)  # type: ignore[arg-type]
        try:
            new_drift, drift_decided = self._learner_pass(drift, X, T, sample_weight, gamma)
            restarted = False
        except FloatingPointError:
            # the discounted statistics became too ill-conditioned (where the paper's
            # learner's are not): the discounted learner restarts as a copy of the paper's, and
            # the mixture's evidence between the two restarts from even (plus the prior)
            new_drift = shallow_replace(new, drift=None, mixture=None)
            drift_decided, restarted = decided, True
        new.drift = new_drift
        if state.classes is None and len(sample_weight):
            new.mixture = mixture_pass(
                state.mixture, decided, drift_decided, T, sample_weight, self._auto_prior
            )
            if restarted:
                new.mixture[1] = new.mixture[0]
        return new, decided

    def _learner_pass(
        self, state: Any, X: Any, T: np.ndarray, sample_weight: np.ndarray, forgetting: float
    ) -> tuple[Any, np.ndarray]:  # pragma: no cover - each family implements it
        raise NotImplementedError

    def _mixture_weights(self, state: Any) -> np.ndarray | None:
        """The weights of the state's learner and of ``state.drift`` (None: one learner)."""
        if state.drift is None:
            return None
        if state.mixture is not None:
            losses = state.mixture[:2]
        elif state.classes is None:  # a regressor before its first scored row
            losses = np.zeros(2)
        else:
            losses = np.array([state.calibration_loss, state.drift.calibration_loss])
        return mixture_weights(losses + np.array([0.0, self._auto_prior]))

    def _readout(self, state: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(coef, intercept)``: the learner's, or the mixture's weighted average of two."""
        weights = self._mixture_weights(state)
        if weights is None:
            return self._linear_readout(state)
        coef, intercept = self._linear_readout(state)
        coef_drift, intercept_drift = self._linear_readout(state.drift)
        return (
            weights[0] * coef + weights[1] * coef_drift,
            weights[0] * intercept + weights[1] * intercept_drift,
        )

    # ------------------------------------------------------------ the pass
    def _partial_fit_state(
        self,
        state: Any,
        X: Any,
        y: Any,
        *,
        sample_weight: np.ndarray,
        classes: np.ndarray | None = None,
    ) -> Any:
        sample_weight, class_counts = self._weigh_rows(state, y, sample_weight)
        keep = sample_weight > 0
        if not np.all(keep):  # a row of weight 0 is not seen at all
            X, y, sample_weight = X[keep], y[keep], sample_weight[keep]
        state, decided = self._linear_pass(state, X, self._targets(y, state), sample_weight)
        state.n_iter = 1
        if class_counts is not None:
            state.class_counts = class_counts
        if state.classes is not None and len(y):
            predicted = labels_from_scores(
                state.classes, decided, zero_is_positive=self._zero_is_positive
            )
            state.n_mistakes += int(np.sum(predicted != y))
        return state

    def _fit_epochs(self, X: Any, y: Any, sample_weight: Any) -> Self:
        """Reset (unless ``warm_start``), then ``max_iter`` passes, committed at the end.

        With ``shuffle`` the rows are permuted before each pass by a generator
        seeded from ``random_state`` (the permutation depends only on the
        number of rows).
        """
        with self._transaction() as est:
            warm = bool(est.warm_start) and est._is_initialized()
            if warm:
                est._check_frozen(est._state)
                classes = None
            else:
                est._reset()
                classes = est._classes_from(y)
            X, y, kwargs = est._validate_batch(
                X, y, not warm, classes=classes, sample_weight=sample_weight
            )
            state = est._state if warm else est._new_state(X, y, **kwargs)
            sw = kwargs["sample_weight"]
            rng = check_random_state(est.random_state)
            name, epochs = type(est).__name__, est.max_iter
            with est._progress(epochs * X.shape[0]) as progress:
                for epoch in range(1, epochs + 1):
                    Xe, ye, swe = X, y, sw
                    if est.shuffle:
                        order = rng.permutation(X.shape[0])
                        Xe, ye, swe = X[order], y[order], sw[order]
                    if epochs > 1:
                        progress.set_description(f"{name} epoch {epoch}/{epochs}")
                    loss0, seen0 = state.cumulative_loss, state.n_samples_seen
                    state = est._verbose_pass(state, Xe, ye, progress=progress, sample_weight=swe)
                    rows = state.n_samples_seen - seen0
                    if epochs > 1 and rows > 0:
                        mean = (state.cumulative_loss - loss0) / rows
                        progress.detail(f"{rows:,} rows, mean_loss={mean:.4g}")
            state.n_iter = est.max_iter
            est._commit(state)
        return self

    def _classes_from(self, y: Any) -> np.ndarray | None:  # regressors have no classes
        return None

    def _new_state(self, X: Any, y: Any, **kwargs: Any) -> Any:
        """The family's initial state, with a classifier's calibration map (if any)."""
        sample_weight = kwargs.get("sample_weight")
        if sample_weight is not None and not np.all(sample_weight > 0):
            keep = sample_weight > 0  # a row of weight 0 is not seen at all, here either
            X, y = X[keep], None if y is None else y[keep]
            kwargs = {**kwargs, "sample_weight": sample_weight[keep]}
        state = super()._new_state(X, y, **kwargs)
        kind = getattr(state.frozen, "calibration", None)
        if kind is not None and hasattr(self, "predict_proba"):  # a loss with probabilities
            n_classes = len(state.classes)
            state.calibration = new_calibration(kind, 1 if n_classes == 2 else n_classes)
        return state

    def _weigh_rows(
        self, state: Any, y: Any, sample_weight: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The rows' weights after the class weights, and the new class counts (none here)."""
        return sample_weight, None

    # ------------------------------------------------------------ read-outs
    def _calibration_input(self, state: Any, scores: np.ndarray) -> np.ndarray:
        """The scores a classifier's calibration map reads (default: the scores)."""
        return scores

    def _raw_decision(self, X: Any) -> np.ndarray:
        """The (n, K) scores ``X @ coef.T + intercept`` of validated ``X``."""
        X = self._validate_predict(X)
        coef, intercept = self._readout(self._state)
        return np.asarray(X @ coef.T) + intercept

    @property
    def mixture_weights_(self) -> np.ndarray:
        """The weights of the two learners of ``forgetting_factor="auto"``: shape (2,).

        The undiscounted learner's, then the discounted one's, ``∝ exp(−L)``
        with ``L`` their prequential losses (a classifier's: the log-loss of
        each one's calibrated probabilities; a regressor's: the Gaussian
        log-likelihood of :func:`mixture_pass`). Raises ``AttributeError``
        when one learner runs (a number, or ``"auto"`` where it is ``1.0``).
        """
        weights = self._mixture_weights(self._fitted_state())
        if weights is None:
            raise AttributeError(
                "mixture_weights_ exists with two learners only (forgetting_factor='auto' on a "
                "learner that has a discounted form and predictions to mix them by)."
            )
        return weights

    @property
    def n_iter_(self) -> int:
        """Passes made by the last :meth:`fit` (1 after ``partial_fit``)."""
        return int(self._fitted_state().n_iter)


if TYPE_CHECKING:  # the mixins are used with an OnlineLinearBase engine
    _Engine = OnlineLinearBase
else:
    _Engine = object


class OnlineLinearClassifierMixin(_Engine):
    """Mixin of the online linear classifiers: classes, targets ``±1``, ``partial_fit``/``fit``.

    Comes first in the bases, before scikit-learn's ``ClassifierMixin`` and an
    :class:`OnlineLinearBase` engine. Provides the online mistakes and the
    read-outs (``classes_``, ``coef_``, ``decision_function``, ``predict``).

    Follows scikit-learn's ``partial_fit`` convention: the first call must
    list every class; later calls may omit ``classes`` and must not bring a
    label outside ``classes_``. ``fit`` takes the classes from ``y``.
    Multiclass problems are ``K`` one-vs-rest models (targets ``+1`` for the
    row's class, ``−1`` otherwise); a binary problem is one model.
    """

    def _validate_batch(
        self,
        X: Any,
        y: Any,
        first_call: bool,
        classes: Any = None,
        sample_weight: Any = None,
    ) -> tuple[Any, np.ndarray, dict[str, Any]]:
        X, y = self._check_training_data(X, y, first_call)
        self._check_params_consistent(X)
        if first_call:  # later batches are checked against classes_ below (cheaper)
            check_classification_targets(y)
        if first_call:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit "
                    "(every label the stream may contain)."
                )
            known = self._check_classes(classes)
            if len(known) < 2:
                raise ValueError(
                    f"{type(self).__name__} needs at least 2 classes; got 1 class: "
                    f"{known.tolist()}."
                )
        else:
            known = self._state.classes
            if classes is not None and not np.array_equal(self._check_classes(classes), known):
                raise ValueError(
                    f"classes={np.unique(classes).tolist()} is not the same as on the first "
                    f"call to partial_fit: {known.tolist()}."
                )
        if not _all_known(y, known):  # the cheap lookup is not sure: the set difference
            unseen = np.setdiff1d(np.unique(y), known)
            if unseen.size:
                raise ValueError(
                    f"y contains labels {unseen.tolist()} that are not in classes {known.tolist()}."
                )
        self._check_class_weight(known)
        sw = _validate_sample_weight(X, sample_weight)
        return X, y, {"sample_weight": sw, "classes": known}

    def _check_class_weight(self, classes: np.ndarray) -> None:
        """A dict ``class_weight`` names declared classes only, with finite weights >= 0."""
        class_weight = getattr(self, "class_weight", None)
        if not isinstance(class_weight, dict):
            return
        listed = set(classes.tolist())
        unknown = [key for key in class_weight if key not in listed]
        if unknown:
            raise ValueError(
                f"class_weight has keys {unknown} that are not in classes {classes.tolist()}."
            )
        for key, value in class_weight.items():
            if (
                isinstance(value, bool)
                or not isinstance(value, Real)
                or not (math.isfinite(float(value)) and float(value) >= 0)
            ):
                raise ValueError(
                    f"class_weight[{key!r}] = {value!r}: class weights must be finite numbers >= 0."
                )

    def _weigh_rows(
        self, state: Any, y: Any, sample_weight: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """``class_weighted`` with the recorded ``class_weight`` and the state's counts."""
        counts = state.class_counts
        if counts is None:
            counts = np.zeros(len(state.classes), dtype=np.int64)
        return class_weighted(
            getattr(state.frozen, "class_weight", None),
            state.classes,
            np.searchsorted(state.classes, y),
            counts,
            sample_weight,
        )

    @staticmethod
    def _check_classes(classes: Any) -> np.ndarray:
        classes = np.asarray(classes)
        if classes.ndim != 1:
            raise ValueError(
                f"classes must be a 1-D array of labels; got an array of shape {classes.shape}."
            )
        known = np.unique(classes)
        check_classification_targets(known)
        return known

    @staticmethod
    def _classes_from(y: Any) -> np.ndarray | None:
        """The classes ``fit`` takes from ``y`` (validated again with the batch, which warns
        once about a column-vector ``y``)."""
        return np.unique(column_or_1d(y, warn=False)) if y is not None else None

    @staticmethod
    def _n_outputs(classes: np.ndarray) -> int:
        return 1 if len(classes) == 2 else len(classes)

    def _targets(self, y: Any, state: Any) -> np.ndarray:
        """Targets of shape (n, K): ``±1`` for the binary model, one-vs-rest ``±1`` otherwise."""
        idx = np.searchsorted(state.classes, y)
        K = self._n_outputs(state.classes)
        if K == 1:
            return np.where(idx == 1, 1.0, -1.0).reshape(-1, 1)
        T = -np.ones((len(idx), K))
        T[np.arange(len(idx)), idx] = 1.0
        return T

    # ------------------------------------------------------------ fitting
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None) -> Self:
        """One online pass over the rows, in order (each row predicted, then learned).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Their labels.
        classes : array-like of shape (n_classes,), default=None
            Every class of the stream; required on the first call, and equal
            to the first call's classes if given later.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each row's loss, hence its gradient. Rows of weight 0
            are skipped entirely; a batch whose weights are all 0 is rejected.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._online_partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Reset (unless ``warm_start``), then ``max_iter`` online passes over the rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Their labels; ``classes_`` are the labels found in ``y``.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :meth:`partial_fit`.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit_epochs(X, y, sample_weight)

    # ------------------------------------------------------------ read-outs
    @property
    def classes_(self) -> np.ndarray:
        """The class labels, sorted: an array of shape (n_classes,)."""
        return self._fitted_state().classes

    @property
    def coef_(self) -> np.ndarray:
        """The weights: an array of shape (1, n_features) or (n_classes, n_features).

        With two learners (``forgetting_factor="auto"``), their average
        weighted as the mixture weighs their probabilities.
        """
        return self._readout(self._fitted_state())[0].copy()

    @property
    def intercept_(self) -> np.ndarray:
        """The intercepts: an array of shape (1,) or (n_classes,) (averaged as ``coef_``)."""
        return self._readout(self._fitted_state())[1].copy()

    @property
    def n_mistakes_(self) -> int:
        """Online mistakes: rows whose label, predicted before their update, was wrong."""
        return int(self._fitted_state().n_mistakes)

    @property
    def online_error_rate_(self) -> float:
        """The progressive-validation error ``n_mistakes_ / n_samples_seen_``."""
        state = self._fitted_state()
        return state.n_mistakes / max(state.n_samples_seen, 1)

    def decision_function(self, X: Any) -> np.ndarray:
        """Confidence scores ``X @ coef_.T + intercept_``, or the log-odds of :meth:`predict_proba`.

        With ``calibration="platt"`` on a binary problem, the calibrated
        log-odds ``a s + b = log P(classes_[1]) − log P(classes_[0])`` of
        :meth:`predict_proba`, where ``s`` is the linear score (read through
        the family's bounded squashing, if any) and ``a > 0``: an increasing
        function of ``X @ coef_.T + intercept_`` (same ranking, same ROC
        AUC) whose sign decides :meth:`predict`. With two learners
        (``forgetting_factor="auto"``) and a calibration map, the log-odds
        (binary) or log-probabilities of their mixed probabilities: not a
        linear function of ``X``, and not ``X @ coef_.T + intercept_``
        (``coef_`` is the mixture's weighted average of the two learners'
        weights). Otherwise, the linear scores themselves. The learner's
        online mistakes (``n_mistakes_``) are always those of the linear
        scores.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For a binary problem, the score of ``classes_[1]``; otherwise one
            column per class.
        """
        scores = self._decision(X)
        return scores.ravel() if scores.shape[1] == 1 else scores

    def _calibrated_proba(self, X: Any, *, log: bool = False) -> np.ndarray | None:
        """The calibration map's probabilities (``log``: their logs, computed in log space),
        or None without a map (the family's link then).

        With two learners (``forgetting_factor="auto"``), their probabilities
        mixed by :meth:`_mixture_weights` (rows sum to 1).
        """
        state = self._fitted_state()
        if state.calibration is None:
            return None
        weights = self._mixture_weights(state)
        if weights is None:
            scores = self._calibration_input(state, self._raw_decision(X))
            read = calibrated_log_probabilities if log else calibrated_probabilities
            return read(state.calibration, scores)
        parts = self._learners_log_proba(state, X)
        if log:
            with np.errstate(divide="ignore"):  # a weight that underflowed to 0 adds nothing
                log_weights = np.log(weights)
            return logsumexp(np.stack(parts) + log_weights[:, None, None], axis=0)
        proba = weights[0] * np.exp(parts[0]) + weights[1] * np.exp(parts[1])
        return proba / proba.sum(axis=1, keepdims=True)  # each entry <= 1 after rounding

    def _learners_log_proba(self, state: Any, X: Any) -> list[np.ndarray]:
        """Each learner's calibrated log-probabilities: ``state``'s, then ``state.drift``'s."""
        X = self._validate_predict(X)
        parts = []
        for learner in (state, state.drift):
            coef, intercept = self._linear_readout(learner)
            scores = self._calibration_input(state, np.asarray(X @ coef.T) + intercept)
            parts.append(calibrated_log_probabilities(learner.calibration, scores))
        return parts

    def _decision(self, X: Any) -> np.ndarray:
        """The (n, K) scores that decide: a binary Platt map's or a mixture's log-odds, else
        the raw ones (a mixture of several classes: its log-probabilities)."""
        state = self._fitted_state()
        if state.drift is not None and state.calibration is not None:  # two learners
            log_proba = self._calibrated_proba(X, log=True)
            assert log_proba is not None  # a map exists
            if log_proba.shape[1] == 2:
                return log_proba[:, 1:] - log_proba[:, :1]
            return log_proba
        scores = self._raw_decision(X)
        if state.calibration is not None and state.calibration.shape == (5,):  # binary Platt
            return calibrated_scores(state.calibration, self._calibration_input(state, scores))
        return scores

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``classes_[1]`` where the binary score is positive, otherwise the
            class of the largest score.
        """
        scores = self._decision(X)
        return labels_from_scores(
            self._state.classes, scores, zero_is_positive=self._zero_is_positive
        )


class OnlineLinearRegressorMixin(_Engine):
    """Mixin of the online linear regressors: numeric targets, ``partial_fit``/``fit``, read-outs.

    Comes first in the bases, before scikit-learn's ``RegressorMixin`` and an
    :class:`OnlineLinearBase` engine. Targets are guarded like ``X``.
    """

    def _validate_batch(
        self,
        X: Any,
        y: Any,
        first_call: bool,
        classes: Any = None,
        sample_weight: Any = None,
    ) -> tuple[Any, np.ndarray, dict[str, Any]]:
        X, y = self._check_training_data(X, y, first_call, y_numeric=True)
        self._check_params_consistent(X)
        try:  # numeric strings are converted, as scikit-learn's regressors do
            y = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"y must be numeric: {err}") from None
        low, high, code = finite_range(y) if y.size else (0.0, 0.0, 0)  # one pass: both checks
        if code:
            raise ValueError("y contains NaN or infinity.")
        if high > MAX_ABS_VALUE or -low > MAX_ABS_VALUE:
            check_finite_magnitude(y, name="y", max_abs=MAX_ABS_VALUE)  # raises its message
        sw = _validate_sample_weight(X, sample_weight)
        return X, y, {"sample_weight": sw}

    def _targets(self, y: Any, state: Any) -> np.ndarray:
        return np.asarray(y, dtype=np.float64).reshape(-1, 1)

    def _partial_fit_state(
        self,
        state: Any,
        X: Any,
        y: Any,
        *,
        sample_weight: np.ndarray,
        classes: np.ndarray | None = None,
    ) -> Any:
        """The engine's pass, then the range of the targets learned (rows of weight > 0)."""
        new = super()._partial_fit_state(state, X, y, sample_weight=sample_weight, classes=classes)
        learned = np.asarray(y, dtype=np.float64)[sample_weight > 0]
        if learned.size:  # min and max of the stream so far: the same for any split
            low, high = float(learned.min()), float(learned.max())
            if state.target_min is not None:
                low, high = min(low, state.target_min), max(high, state.target_max)
            new.target_min, new.target_max = low, high
        return new

    def _clip_to_targets(self, predictions: np.ndarray) -> np.ndarray:
        """``predictions`` clipped to the targets' range, with ``clip_predictions`` recorded on.

        The range ``[target_min, target_max]`` of the targets learned so far
        (Vowpal Wabbit's rule; the measurements of a widened range are in the
        user guide). The learner's own updates never see the clipped value.
        """
        state = self._state
        if not getattr(state.live, "clip_predictions", False) or state.target_min is None:
            return predictions
        return np.clip(predictions, state.target_min, state.target_max)

    # ------------------------------------------------------------ fitting
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """One online pass over the rows, in order (each row predicted, then learned).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Their targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each row's loss, hence its gradient. Rows of weight 0
            are skipped entirely; a batch whose weights are all 0 is rejected.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._online_partial_fit(X, y, sample_weight=sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Reset (unless ``warm_start``), then ``max_iter`` online passes over the rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Their targets.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :meth:`partial_fit`.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit_epochs(X, y, sample_weight)

    # ------------------------------------------------------------ read-outs
    @property
    def coef_(self) -> np.ndarray:
        """The weights: an array of shape (n_features,).

        With two learners (``forgetting_factor="auto"``), the mixture's:
        their average weighted by their Gaussian likelihoods.
        """
        return self._readout(self._fitted_state())[0][0].copy()

    @property
    def intercept_(self) -> float:
        """The intercept (the mixture's, as ``coef_``)."""
        return float(self._readout(self._fitted_state())[1][0])

    def predict(self, X: Any) -> np.ndarray:
        """Predicted targets ``X @ coef_ + intercept_``.

        With ``clip_predictions`` (the default), clipped to the range of the
        targets learned so far.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The predictions.
        """
        return self._clip_to_targets(self._raw_decision(X)[:, 0])

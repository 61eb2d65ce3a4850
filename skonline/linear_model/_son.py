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

import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if

from ..base import ParamRecord, shallow_replace
from ..utils._blas import single_blas_thread
from ..utils._sklearn_compat import Interval, StrOptions
from ._linear import (
    LinearState,
    OnlineLinearBase,
    OnlineLinearClassifierMixin,
    OnlineLinearRegressorMixin,
    calibrate,
    probabilities_from_scores,
)
from ._rows import any_open_value, scaled_values
from ._son_kernels import (
    CurvatureState,
    auto_alpha0,
    auto_mu,
    first_rows_scales,
    first_value_scales,
    nearest_power_of_two,
    new_curvature,
    running_target_means,
    shrunk_scales,
    son_pass,
    touched_coordinates,
    update_scales,
)

__all__ = ["RFDSONClassifier", "RFDSONRegressor"]


@dataclass(kw_only=True, eq=False)
class SONState(LinearState):
    """Learned state of the sketched online Newton step.

    Attributes
    ----------
    U : ndarray of shape (K, n_features + fit_intercept)
        The iterates ``u`` (intercept column last), in scaled feature units.
    curvature : CurvatureState
        The curvature of the ``K`` models (scaled units).
    scale : ndarray of shape (n_features,)
        The feature scales: powers of two fixed at each feature's first
        non-zero value (0 until then); ones without ``scale_features``.
    target_sum, target_count : float, int
        Running sum and count of the targets (regressor, ``center_target``).
    warmup : tuple or None
        ``(X, T, sample_weight)`` of the first rows while the feature scales
        are provisional (``scale_features``); ``None`` afterwards.
    scale_seen : ndarray of int32, shape (n_features,) or None
        Non-zero values of each feature seen so far, counted up to
        ``_confirm_values`` (``scale_features``, from the end of the first rows).
    scale_sumsq : ndarray of shape (n_features,) or None
        Sum of the squares of those values (raw units): a feature's scale is
        confirmed at the power of two nearest their root-mean-square.
    scale_prior : ndarray of shape (3,) or None
        ``[μ, τ², σ²]`` of the first rows' values (``_son_kernels.scale_prior``):
        the scales read from few values are shrunk toward ``μ``.
    """

    U: np.ndarray
    curvature: CurvatureState
    scale: np.ndarray
    target_sum: float = 0.0
    target_count: int = 0
    warmup: tuple | None = None
    scale_seen: np.ndarray | None = None
    scale_sumsq: np.ndarray | None = None
    scale_prior: np.ndarray | None = None


#: The slope of :func:`_soft_bound` beyond the bound: small enough to leave the
#: map's probabilities as those of ``C tanh(f / C)`` (a change of at most
#: ``1e-9 |f|`` in the score), large enough that two scores beyond the bound
#: stay apart in floating point.
SOFT_BOUND_SLOPE = 1e-9


#: Without a bound, the calibration map reads the scores softly bounded by this
#: margin: on raw scores, a few rows far beyond every margin seen before made
#: the Platt map certain of the wrong class (probabilities of 1e-15 for the
#: true class: prequential log-loss 0.21 against 0.10 with this squashing, on
#: breast cancer with 5 % malignant rows, 5 row orders). Chosen by measurement over 3, 4, 5,
#: 8, 10 and none (17 streams, 5 row orders). The map's slope still grows with
#: the evidence, so the probabilities are not capped.
CALIBRATION_MARGIN = 5.0


def _soft_bound(scores, bound):
    """``(1 − ε) C tanh(f / C) + ε f``: the scores the calibration reads.

    With a bound, the learner's online predictions are ``clip(f, −C, C)``;
    its raw scores ``f`` beyond ``C`` are not what it was trained to predict. A smooth,
    strictly increasing squashing keeps the ranking (and the signs) of
    ``f``. ``C tanh(f / C)`` alone rounds to exactly ``C`` from ``|f| ≈ 19 C``
    on, which would tie every score beyond it (and the probabilities of
    two classes whose scores both pass it); the slope ``ε =
    SOFT_BOUND_SLOPE`` keeps them apart. ``None``: ``C = CALIBRATION_MARGIN``
    (the learner is not bounded, but a map on raw scores trusts outliers).
    """
    if bound is None:
        bound = CALIBRATION_MARGIN
    return (1.0 - SOFT_BOUND_SLOPE) * bound * np.tanh(scores / bound) + SOFT_BOUND_SLOPE * scores


def _scaled(X, scale):
    """The rows with each feature divided by its scale (exact: powers of two; 0 = unset)."""
    inverse = 1.0 / np.where(scale > 0.0, scale, 1.0)
    if sp.issparse(X):  # O(nnz), whatever the width
        X = sp.csr_matrix(X, dtype=np.float64)
        if X.indices.dtype == np.intc:  # one compiled pass; the index arrays are not written
            data = scaled_values(
                np.ascontiguousarray(X.data), np.ascontiguousarray(X.indices), inverse
            )
            return sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape, copy=False)
        X = X.copy()
        X.data *= inverse[X.indices]
        return X
    return X * inverse


def _first_values(seen, sumsq, X, k):
    """Count the first ``k`` non-zero values of each feature over the rows of ``X``, in order.

    Returns ``(seen, sumsq, confirming, later, first)``: the counts (at most
    ``k``) and the sums of squares of the counted values after ``X``; the
    features that reach their ``k``-th value in ``X``;
    ``(places, features)`` of the values of those features from their ``k``-th
    on (places: positions in ``X.data`` for CSR, ``(rows, columns)`` for an
    array); ``(features, values)`` of the first non-zero values of the
    features seen for the first time.
    """
    none = np.zeros(0, dtype=np.intp)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        if X.indices.dtype == np.intc and not any_open_value(
            np.ascontiguousarray(X.data, dtype=np.float64),
            np.ascontiguousarray(X.indices),
            np.ascontiguousarray(seen, dtype=np.intc),
            k,
        ):  # every column counted already (one compiled pass): nothing to do
            return seen, sumsq, none, (none, none), (none, np.zeros(0))
        keep = (X.data != 0) & (seen[X.indices] < k)
        places = np.flatnonzero(keep)
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))[places]
        cols, vals = X.indices[places], X.data[places]
    else:
        open_cols = np.flatnonzero(seen < k)
        sub = np.asarray(X)[:, open_cols]
        rows, at = np.nonzero(sub)  # row-major, as the CSR entries
        cols, vals = open_cols[at], sub[rows, at]
        places = None
    if cols.size == 0:  # nothing to count: the same arrays (never written into)
        return seen, sumsq, none, (none, none), (none, np.zeros(0))
    seen, sumsq = seen.copy(), sumsq.copy()
    order = np.argsort(cols, kind="stable")  # by feature, each in row order
    rows, cols = rows[order].astype(np.intp), cols[order].astype(np.intp)
    vals = np.asarray(vals, dtype=np.float64)[order]
    start = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]])
    rank = np.arange(cols.size) - np.repeat(start, np.diff(np.r_[start, cols.size]))
    number = seen[cols] + rank + 1  # which value of its feature each one is
    counted = number <= k
    np.add.at(sumsq, cols[counted], np.square(vals[counted]))
    np.add.at(seen, cols[counted], 1)
    last, first, after = number == k, number == 1, number >= k
    where = places[order][after] if places is not None else (rows[after], cols[after])
    return (
        seen,
        sumsq,
        cols[last],
        (where, cols[after]),
        (cols[first], vals[first]),
    )


@dataclass(frozen=True)
class SONFrozen(ParamRecord):
    """The parameters that shape an RFD-SON state (every other one is live)."""

    loss: str
    sketch: str
    sketch_size: int
    alpha0: float | str
    fit_intercept: bool
    intercept_scaling: float
    scale_features: bool
    curvature: str
    buffer_init: str


@dataclass(frozen=True)
class SONLive(ParamRecord):
    """The live parameter the read-outs need: the constraint ``C`` of the predictions."""

    bound: float | None


@dataclass(frozen=True)
class SONRegressorLive(SONLive):
    """:class:`SONLive` plus the regressor's clipping to the targets' range."""

    clip_predictions: bool


@dataclass(frozen=True)
class SONClassifierFrozen(SONFrozen):
    """:class:`SONFrozen` plus the classifier's class weights and calibration."""

    class_weight: dict | str | None
    calibration: str | None


@dataclass(frozen=True)
class SONRegressorFrozen(SONFrozen):
    """:class:`SONFrozen` plus the regressor's target centring."""

    center_target: bool


class _BaseSON(OnlineLinearBase):
    """The engine shared by :class:`RFDSONRegressor` and :class:`RFDSONClassifier`."""

    _accept_sparse = "csr"
    _zero_is_positive = True  # the kernel's rule: a zero score is the positive class

    _parameter_constraints: ClassVar[dict] = {
        "sketch": [StrOptions({"auto", "rfd", "fd", "full", "diag"})],
        "curvature": [StrOptions({"auto", "gradient", "hessian"})],
        "sketch_size": [Interval(Integral, 2, None, closed="left")],
        "alpha0": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "scale_features": ["boolean"],
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
        "forgetting_factor": [Interval(Real, 0, 1, closed="right"), StrOptions({"auto"})],
        "verbose": ["verbose"],
    }

    _frozen_record: ClassVar[type[ParamRecord]] = SONFrozen
    _live_record: ClassVar[type[ParamRecord]] = SONLive

    # ------------------------------------------------------------- helpers
    def _epsilon(self):
        """The loss threshold the kernel uses (the regressor's ``epsilon``; unused otherwise)."""
        return 1.0

    def _mu(self):
        if self.mu != "auto":
            return float(self.mu)
        return auto_mu(self.loss, self.bound, self._epsilon())

    #: ``sketch="auto"`` runs the exact curvature up to this many coordinates per
    #: ``sketch_size`` (intercept included): measured, the exact ``O(d²)`` update
    #: costs no more than the sketch's ``O(m·d + m³)`` there (0.7–0.95× at
    #: ``m = 10``, ``d ≤ 30``; 1.4–2.2× at ``d = 48–64``).
    _auto_full_per_m = 3

    def _sketch_kind(self, n_features):
        """The curvature in use (``sketch="auto"`` resolved for ``n_features`` columns)."""
        if self.sketch != "auto":
            return self.sketch
        d = n_features + int(self.fit_intercept)
        if self.alpha0 != "auto" and self.alpha0 <= 0:  # RFD0: only the sketch runs it
            return "rfd"
        return "full" if d <= self._auto_full_per_m * self.sketch_size else "rfd"

    #: What ``curvature="auto"`` means away from ``sketch="diag"`` (always gradient rows).
    _auto_curvature = "gradient"

    def _curvature_rows(self):
        """The curvature rows actually accumulated (``"auto"`` resolved)."""
        if self.curvature != "auto":
            return self.curvature
        if self.sketch == "diag" or self.loss == "absolute_error":  # l'' = 0: no Hessian rows
            return "gradient"
        return self._auto_curvature

    def _check_params_consistent(self, X):
        if self.sketch == "diag" and self.curvature == "hessian":
            raise ValueError(
                "sketch='diag' is diagonal AdaGrad on the gradients: use curvature='gradient' "
                "(a diagonal Newton step ignores the correlations of the features and "
                "diverges on correlated data)."
            )
        if self.loss == "absolute_error" and self.curvature == "hessian":
            raise ValueError(
                "loss='absolute_error' has l'' = 0 wherever it is defined: Hessian rows "
                "would leave the curvature at alpha0 * I. Use curvature='gradient' (or 'auto')."
            )
        if self.sketch not in ("rfd", "auto") and self.alpha0 != "auto" and self.alpha0 <= 0:
            raise ValueError(
                f"sketch={self.sketch!r} needs alpha0 > 0 (its curvature starts at "
                "alpha0 * I); only sketch='rfd' runs with alpha0 = 0."
            )
        if (
            self.sketch in ("rfd", "auto")
            and self.alpha0 == 0
            and self.bound is None
            and self._curvature_rows() == "gradient"
        ):
            warnings.warn(
                "RFD0 (sketch='rfd', alpha0=0) without a bound: until the sketch shrinks, "
                "H is singular and nothing limits the pseudo-inverse steps; the iterate can "
                "diverge. Set bound=C or alpha0 > 0.",
                UserWarning,
                stacklevel=4,
            )

    # --------------------------------------------------------------- state
    def _intercept_value(self):
        return float(self.intercept_scaling) if self.fit_intercept else 0.0

    def _init_state(self, X, y, *, sample_weight, classes=None):
        if sp.issparse(X):  # the first row as every pass reads it: duplicate entries summed
            X = sp.csr_matrix(X[:1], dtype=np.float64, copy=True)
            X.sum_duplicates()
        T = self._targets(y[:1], SimpleNamespace(classes=classes))
        if self.scale_features:
            scale = update_scales(np.zeros(X.shape[1]), X[:1])
        else:
            scale = np.ones(X.shape[1])
        state = self._fresh_state(X[:1], T, scale, classes, None)
        if self.scale_features:
            empty = X[:0]
            state.warmup = (empty, np.zeros((0, T.shape[1])), np.zeros(0))
        return state

    def _fresh_state(self, X, T, scale, classes, frozen):
        """The initial state for features in the units ``scale`` (``alpha0`` resolved).

        ``alpha0="auto"`` averages the curvature of the rows ``X`` (targets
        ``T``): the first row at the first call, the warm-up rows when the
        state restarts in the final units (``scale_features``).
        """
        d = X.shape[1] + int(self.fit_intercept)
        K = 1 if classes is None else self._n_outputs(classes)
        sketch = self._sketch_kind(X.shape[1])
        kind = "sketch" if sketch in ("rfd", "fd") else sketch
        alpha0 = self.alpha0
        if alpha0 == "auto":  # from a fixed number of rows: the same whatever the split
            rows = self._curvature_rows()
            diagonal = self.sketch == "diag" and rows == "gradient"
            alpha0 = auto_alpha0(
                _scaled(X, scale),
                T[: X.shape[0]],
                self._intercept_value(),
                loss=self.loss,
                curvature_rows=rows,
                # AdaGrad's D = alpha0 + sqrt(Σ g²): rows of g, no (μ + η) factor
                mu=1.0 if diagonal else self._mu(),
                learning_rate=0.0 if diagonal else float(self.learning_rate),
                epsilon=self._epsilon(),
            )
            # a prior worth _prior_rows rows (more on rows wider than a sketch holds);
            # in gradient units for AdaGrad
            alpha0 = alpha0 * self._prior_rows * self._prior_growth(X, kind)
            if diagonal:
                alpha0 = float(np.sqrt(alpha0))
        state = SONState(
            classes=classes,
            U=np.zeros((K, d)),
            scale=scale,
            curvature=new_curvature(
                kind,
                K,
                d,
                m=self.sketch_size,
                alpha0=float(alpha0),
                robust=sketch == "rfd",
                zero_rows=self.buffer_init == "zeros",
            ),
        )
        if frozen is not None:
            state.frozen = frozen
        return state

    #: ``alpha0="auto"`` with a sketch: the prior counts one more row for every this
    #: many coordinates a row touches beyond ``sketch_size`` (``None``: never).
    _coords_per_prior_row: float | None = None

    def _prior_growth(self, X, kind):
        """The factor on the prior of ``alpha0="auto"`` for rows wider than the sketch.

        With a sketch of ``m = sketch_size`` directions, the part of a row's
        gradient outside it takes the ridge's step ``g / α`` for good (until
        the shrinkage raises ``α``); a row that touches ``c`` coordinates puts
        about ``c − m`` of them there. The prior then counts
        ``max(1, (c − m) / _coords_per_prior_row)`` rows, ``c`` the mean over
        the rows ``X`` (the first row, then the warm-up rows: the same for any
        split of the stream). 1 for the full and diagonal curvatures.
        """
        per = self._coords_per_prior_row
        if per is None or kind != "sketch" or X.shape[0] == 0:
            return 1.0
        touched = touched_coordinates(X, self._intercept_value()).mean()
        return max(1.0, float(touched - self.sketch_size) / per)

    #: Rows whose root-mean-square fixes the feature scales (``scale_features``).
    _scale_rows = 10
    #: ``alpha0="auto"`` is a prior worth this many average rows.
    _prior_rows: float = 1

    def _learner_pass(self, state, X, T, sample_weight, forgetting):
        """One ordered pass over the rows (paper Alg. 6 in the SON order), discounted per row.

        With ``scale_features``, the first ``_scale_rows`` rows run with
        provisional scales (each feature's first non-zero value); when the last
        of them arrives, the scales become the powers of two nearest their
        root-mean-square and those rows are learned again from the initial
        state in the new units (their prequential losses and mistakes stay
        those of the provisional run: the predictions made at the time). A
        fixed number of rows, so any split of the stream gives the same model.
        CSR rows are read with their duplicate entries summed (as the dense
        row they stand for), the feature scales included.
        """
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            X.sum_duplicates()
        if state.warmup is None or X.shape[0] == 0:
            return self._scaled_pass(state, X, T, sample_weight, forgetting)
        need = self._scale_rows - state.warmup[0].shape[0]
        new, decided = self._scaled_pass(
            state, X[:need], T[:need], sample_weight[:need], forgetting
        )

        def stack(a, b):
            if sp.issparse(a) or sp.issparse(b):
                return sp.vstack([sp.csr_matrix(a), sp.csr_matrix(b)], format="csr")
            return np.concatenate([a, b])

        warm = tuple(
            stack(a, b)
            for a, b in zip(state.warmup, (X[:need], T[:need], sample_weight[:need]), strict=True)
        )
        new.warmup = warm
        if warm[0].shape[0] == self._scale_rows:
            new = self._restart_in_final_units(new, *warm, forgetting=forgetting)
        if X.shape[0] > need:
            new, rest = self._scaled_pass(new, X[need:], T[need:], sample_weight[need:], forgetting)
            decided = np.concatenate([decided, rest])
        return new, decided

    def _restart_in_final_units(self, state, X, T, sample_weight, *, forgetting):
        """Relearn the warm-up rows from the initial state with root-mean-square scales.

        A feature that is zero in some of those rows has its scale from fewer
        values: shrunk toward the rows' common scale (``first_rows_scales``).
        """
        scale, prior = first_rows_scales(X)
        fresh = self._fresh_state(X, T, scale, state.classes, state.frozen)
        fresh.scale_prior = prior
        fresh, _ = self._scaled_pass(fresh, X, T, sample_weight, forgetting)
        fresh.scale_seen, fresh.scale_sumsq, *_ = _first_values(
            np.zeros(X.shape[1], dtype=np.int32), np.zeros(X.shape[1]), X, self._confirm_values
        )
        # the predictions made at the time keep their losses and mistakes
        fresh.cumulative_loss = state.cumulative_loss
        fresh.n_mistakes = state.n_mistakes
        fresh.calibration = state.calibration  # learned from those predictions too
        fresh.calibration_loss = state.calibration_loss
        return fresh

    def _scaled_pass(self, state, X, T, sample_weight, forgetting):
        """The pass over the rows in scaled units (see :meth:`_confirm_scales`)."""
        if state.scale_seen is None or X.shape[0] == 0:
            return self._pass_in_units(state, X, T, sample_weight, forgetting)
        scale, Z, seen, sumsq = self._confirm_scales(state, X)
        new, out = self._pass_in_units(state, X, T, sample_weight, forgetting, scaled=(scale, Z))
        if seen is not state.scale_seen:
            new.scale_seen, new.scale_sumsq = seen, sumsq
        return new, out

    #: Non-zero values of a feature that confirm its scale (``scale_features``).
    _confirm_values = 2

    def _confirm_scales(self, state, X):
        """``(scale, Z, seen, sumsq)``: the scales after ``X`` and its rows in scaled units.

        A feature's scale is first read from one value (its first non-zero, or
        the first rows' root-mean-square); from the row of its
        ``_confirm_values``-th non-zero value on, it is the power of two
        nearest the root-mean-square of those values. Row by row, so the same
        for any split of the stream; the learned state is not converted (the
        weight and the curvature of the feature stay in scaled units).
        """
        k = self._confirm_values
        seen, sumsq, cols, (where, of), (new_cols, new_vals) = _first_values(
            state.scale_seen, state.scale_sumsq, X, k
        )
        scale = state.scale
        prior = state.scale_prior
        if new_cols.size:  # as update_scales: the power of two of the first value, shrunk
            scale = scale.copy()
            scale[new_cols] = shrunk_scales(
                first_value_scales(new_vals), 1, np.log2(np.abs(new_vals)), prior
            )
        Z = _scaled(X, scale)
        # values whose squares underflow keep their first scale (|x| <= 1e150: no overflow)
        cols = cols[sumsq[cols] >= np.finfo(np.float64).tiny]
        log_rms = 0.5 * np.log2(sumsq[cols] / k)
        confirmed = shrunk_scales(nearest_power_of_two(log_rms), k, log_rms, prior)
        changed = confirmed != scale[cols]
        cols, confirmed = cols[changed], confirmed[changed]
        if cols.size == 0:
            return scale, Z, seen, sumsq
        factor = scale[cols] / confirmed  # powers of two: exact
        order = np.argsort(cols)
        cols, confirmed, factor = cols[order], confirmed[order], factor[order]
        pick = np.searchsorted(cols, of)
        hit = pick < cols.size
        hit[hit] = cols[pick[hit]] == of[hit]
        if sp.issparse(Z):
            Z.data[where[hit]] *= factor[pick[hit]]
        else:
            Z[where[0][hit], where[1][hit]] *= factor[pick[hit]]
        scale = scale.copy() if scale is state.scale else scale
        scale[cols] = confirmed
        return scale, Z, seen, sumsq

    def _pass_in_units(self, state, X, T, sample_weight, forgetting, scaled=None):
        """One pass over ``X``; ``scaled``: ``(scale, X in scaled units)`` when already known."""
        center = getattr(state.frozen, "center_target", False)
        if scaled is not None:
            scale, Z = scaled
        else:
            scale = update_scales(state.scale, X) if state.frozen.scale_features else state.scale
            Z = _scaled(X, scale)
        # small products on one core: faster, robust to load (not worth it for a few rows)
        with single_blas_thread(X.shape[0] * X.shape[1]):
            U, curvature, t, total_loss, predictions, scores, target_mean = son_pass(
                state.U,
                state.curvature,
                Z,
                self._intercept_value() if state.frozen.fit_intercept else 0.0,
                T,
                sample_weight,
                state.n_samples_seen,
                state.cumulative_loss,
                loss=state.frozen.loss,
                bound=self.bound,
                mu=self._mu(),
                learning_rate=float(self.learning_rate),
                epsilon=self._epsilon(),
                skip_zero_rows=self.skip_zero_rows,
                rtol=float(self.solve_rtol),
                curvature_rows=self._curvature_rows(),
                target_mean=(state.target_sum, state.target_count) if center else None,
                forgetting=forgetting,
            )
        new = shallow_replace(
            state,
            U=U,
            curvature=curvature,
            scale=scale,
            n_samples_seen=t,
            cumulative_loss=total_loss,
        )
        if target_mean is not None:
            new.target_sum, new.target_count = target_mean
        if state.calibration is not None and X.shape[0]:
            bounded = _soft_bound(scores, self.bound)
            calibrate(state, new, bounded, T, sample_weight)
        if center and X.shape[0]:  # a regressor's predictions: the running mean added back
            _, means, _ = running_target_means(state.target_sum, state.target_count, T[:, 0])
            predictions = predictions + means[:, None]
        # binary: the clipped prediction decides; multiclass: argmax of the unclipped
        # scores (clipped predictions tie at ±C)
        return new, predictions if predictions.shape[1] == 1 else scores

    # ------------------------------------------------------------ read-out
    def _calibration_input(self, state, scores):
        """The softly bounded scores (:func:`_soft_bound`): what the calibration map reads."""
        return _soft_bound(scores, state.live.bound)

    def _linear_readout(self, state):
        d = self.n_features_in_
        coef = state.U[:, :d] / np.where(state.scale > 0.0, state.scale, 1.0)
        intercept = np.zeros(state.U.shape[0])
        if state.frozen.fit_intercept:
            intercept = state.U[:, -1] * float(state.frozen.intercept_scaling)
        if state.target_count:
            intercept = intercept + state.target_sum / state.target_count
        return coef, intercept

    @property
    def alpha0_(self):
        """The initial ridge ``alpha0`` used (``"auto"`` resolved; scaled units)."""
        return float(self._fitted_state().curvature.alpha0)

    @property
    def sketch_(self):
        """The curvature in use (``"auto"`` resolved): "rfd", "fd", "full" or "diag"."""
        curvature = self._fitted_state().curvature
        if curvature.kind == "sketch":
            return "rfd" if curvature.robust else "fd"
        return str(curvature.kind)

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


def _has_proba(estimator):
    """``predict_proba`` exists for the logistic and the squared loss (once fitted: its loss)."""
    loss = estimator._state.frozen.loss if estimator._is_initialized() else estimator.loss
    if loss not in ("log_loss", "squared_error"):
        raise AttributeError(
            "predict_proba is available only for loss='log_loss' or 'squared_error'"
        )
    return True


class RFDSONClassifier(OnlineLinearClassifierMixin, ClassifierMixin, _BaseSON):
    """Online Newton step with a Robust Frequent Directions sketch, for classification.

    Paper Algorithm 6 (RFD-SON with the doubling buffer) of Luo et al. (2019)
    on labels ``±1``; multiclass one-vs-rest with one sketch per class. Per
    row and class: ``O(m · n_features + m³)`` time (one eigendecomposition of
    the ``≤ 2m × 2m`` Gram matrix of the sketch) and ``O(m · n_features)``
    memory, against ``O(n_features²)`` for the full online Newton step.

    Guarantee (Theorem 5, ``alpha0 > 0``, a bound ``C``, losses satisfying
    Assumptions 1–2; the classifier's default has no bound, see ``bound``):

        ``R_T ≤ (α₀/2)‖w‖² + 2(CL)² Σ η_t + m/(2(μ+η_T)) ln(tr(BᵀB)/(mα₀) + α_T/α₀) + Ω_RFD``

    where ``Ω_RFD`` depends on ``α₀`` only logarithmically — unlike FD-SON,
    whose gap term grows as ``1/α₀`` — which is why RFD0 (``alpha0=0``,
    Theorem 7) needs no tuning. Corrected errata: the ``α = 0`` projection
    uses the projector ``VVᵀ`` (the paper prints ``VΣ⁻²Vᵀ``), ``η_t`` is
    1-based, and the Woodbury ``γ`` uses the vector being projected.

    Read more in the :ref:`User Guide <online_newton>`.

    Parameters
    ----------
    loss : {"log_loss", "squared_error", "hinge", "smooth_hinge"}, default="log_loss"
        The loss of the online predictions on labels ``±1``. ``"log_loss"``
        gives :meth:`predict_proba`; ``"squared_error"`` is the paper's loss
        ``(wᵀx − y)²``.
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
        The regret bound is then on the weighted losses. With gradient
        curvature rows (``curvature="auto"``) a weight also enters ``H``
        through ``g gᵀ``, so the Newton step largely cancels it (measured in
        the user guide); ``curvature="hessian"`` adds ``c l'' x xᵀ``, a
        Newton step on the weighted cumulative loss, where class weights
        act as intended with a bound (``curvature="hessian", bound=2``: held-out
        balanced accuracy 0.70 → 0.91 on a stream with 5 % positives;
        without the bound the weighted steps overshoot).
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    calibration : {"platt", "temperature"} or None, default="platt"
        What :meth:`predict_proba` reads. ``"platt"``: online Platt scaling,
        ``P(y = 1 | f) = σ(a g + b)`` with ``g = C tanh(f / C)`` the linear
        score ``f`` softly bounded by ``C = bound`` (``C = 5`` with
        ``bound=None``: a map on raw scores trusts outliers), the slope
        ``a > 0`` and the intercept ``b`` fitted by one Newton step per row
        (a 2 × 2 curvature, from ``(1, 0)``) on the score the learner gave
        the row before learning it; sample and
        class weights count, as in a weighted logistic regression. The
        intercept corrects the learner's bias on imbalanced streams: the
        calibrated log-odds ``a g + b`` are what :meth:`decision_function`
        returns and what :meth:`predict` thresholds at 0 (the most probable
        class). For several classes, ``softmax(a g)`` over the one-vs-rest
        scores (the temperature map; no intercept, so the predicted class is
        the largest score's). ``"temperature"``: online temperature scaling, ``σ(a g)`` (binary) and
        ``softmax(a g)``, ``a`` fitted the same way from ``a = 1``;
        :meth:`decision_function` and :meth:`predict` are the linear scores'.
        Either map reads the scores softly bounded (with a bound, the scores
        beyond ``C`` are not what the learner was trained to predict; without
        one, a map on raw scores trusts outliers) while the confidence grows
        with the evidence: the probabilities are not capped at ``σ(C)`` and
        rank the rows as the linear scores do. ``None``: the paper's link ``σ(clip(f, −C, C))``
        (``(clip(f, −1, 1) + 1) / 2`` for the squared loss), one-vs-rest
        normalised. The learner and its online mistakes are the same under
        every setting. Chosen by measurement (prequential, 14 binary streams
        × 5 row orders): ``"platt"``'s log-loss is 5.7 % below
        ``"temperature"``'s on average, its accuracy 0.1 point higher.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    sketch : {"auto", "rfd", "fd", "full", "diag"}, default="rfd"
        Curvature ``H`` of the Newton step. ``"rfd"``: Robust Frequent
        Directions sketch (RFD-SON, paper Alg. 3/6), ``H = BᵀB + αI`` with ``α``
        grown by the sketch; runs with ``alpha0=0`` ("RFD0", no
        hyperparameter). ``"fd"``: FD-SON, ``α`` fixed at ``alpha0 > 0``.
        ``"full"``: FULL-ON, the exact ``H``, ``O(n_features²)`` per row, in
        the sketches' factored form (their solves and ``solve_rtol`` rule).
        ``"diag"``: diagonal AdaGrad, ``D = alpha0 + sqrt(Σ g²)``.
        ``"auto"``: ``"full"`` when ``n_features + fit_intercept`` is at most
        ``3 * sketch_size`` (there the exact update costs no more than the
        sketch's), ``"rfd"`` otherwise and with ``alpha0=0``; the choice is
        ``sketch_``. Not the classifier's default: measured on the scoreboard's
        streams of at most 29 features, it moves accuracy by −0.1 to +0.7 point
        and the log-loss of the imbalanced generated streams by +1 to +2 %.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    curvature : {"auto", "gradient", "hessian"}, default="auto"
        What the curvature accumulates. ``"gradient"``: the paper's
        ``Σ (μ + η_t) g_t g_tᵀ`` (exp-concave losses, the regret bound of
        Theorem 5). ``"hessian"``: the loss's own second derivative,
        ``Σ c_t l''(p_t) x_t x_tᵀ`` (``c_t`` the sample weight): a Newton step on
        the cumulative loss (``mu`` and ``learning_rate`` are then unused); not
        with ``sketch="diag"``. ``"auto"``: ``"gradient"``.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    sketch_size : int, default=10
        The paper's ``m``, the memory of the sketch: its buffer holds up to
        ``2m`` rows (``O(m · d)`` memory, ``O(m · d + m³)`` time per row). The
        values of the paper's experiments are in the user guide.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    alpha0 : float or "auto", default="auto"
        Initial ridge ``α`` (``H^(0) = alpha0 · I``). ``"auto"``: the
        mean curvature a row adds per coordinate it touches (its non-zero
        features, so sparse rows get the prior of dense ones; a prior worth one row, in
        the units of the scaled features; for ``sketch="diag"``, whose
        ``D = alpha0 + sqrt(Σ g²)`` is in gradient units, the root mean
        squared gradient of a row), over the first 10 rows with
        ``scale_features`` (the first row's until then), over the first row
        without; its value is ``alpha0_``. With a sketch (``"rfd"``,
        ``"fd"``) and rows touching ``c`` coordinates on average, the prior
        counts ``max(1, (c − sketch_size) / 5)`` rows: the part of a row
        outside the sketch takes the ridge's step (user guide, "A prior for
        rows wider than the sketch"). ``0`` with
        ``sketch="rfd"`` is the paper's hyperparameter-free RFD0. Must be
        positive for ``"fd"``, ``"full"`` and ``"diag"``.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    learning_rate : float, default=1.0
        ``η_t = learning_rate / t`` with ``t`` counted from 1 across all calls.
        Live: a change acts from the next update on.

    mu : "auto" or float, default="auto"
        ``μ`` of Assumption 2; the sketch rows are ``sqrt(μ + η_t) g_t``.
        ``"auto"``: ``1/(8C²)`` for the squared loss, ``e^{−C}`` for the
        logistic loss, ``1/epsilon²`` for the Huber loss (its quadratic
        zone), 0 otherwise (§3.1: the squared loss's constant, and the recipe
        ``μ = min l'' / max l'²`` for the others). Without a bound
        (``bound=None``, the default), ``0.05`` for the logistic loss (about
        ``e^{−3}``: a floor on the curvature, so that the steps shrink as
        rows accumulate; chosen by measurement, see the user guide) and 0
        for the squared loss.
        Live: a change acts from the next update on.

    bound : float or None, default=None
        ``C`` of the constraint ``K_t = {w : |wᵀx_t| ≤ C}`` (the paper uses 1
        with ±1 labels and the squared loss; Theorem 5's regret bound needs
        it). Predictions are ``clip(wᵀx, −C, C)``. ``None``: no projection,
        the default: measured over 17 streams × 5 row orders, it scores 1.5
        points of accuracy more and a 19 % lower log-loss than ``bound=2``,
        the default before (digits: 0.905 against 0.849); ``bound=3``, with
        the same curvature floor ``mu`` = 0.05, scores 2 points less. The
        floor ``e^{−C}`` that ``mu="auto"`` takes from a bound is what helps;
        without a bound ``mu`` keeps one (0.05).
        Live: a change acts from the next update on; the read-outs clip with
        the value recorded by the last call that learned.

    fit_intercept : bool, default=True
        Append a constant feature (value ``intercept_scaling``) that takes
        part in the sketch. The paper has no intercept (``False``).
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    intercept_scaling : float, default=1.0
        Value of the constant feature.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    scale_features : bool, default=True
        Divide each feature by a power of two fixed by the first 10 rows: the
        one nearest the feature's root-mean-square over them, so that the
        ridge ``alpha0``, the sketch and the constraint see features of
        comparable scale whatever their units. Those rows are learned with
        provisional scales (the power of two of each feature's first non-zero
        value), then learned again from the start in the final units (their
        prequential losses stay those of the predictions made at the time); a
        feature that is zero over them takes the power of two of its first
        non-zero value later. A feature with fewer than two non-zero values in
        those rows (sparse rows) gets its scale confirmed at its second: from
        that row on, the power of two nearest the root-mean-square of its
        first two values (one value is a poor scale for real-valued non-zeros;
        the learned weight and curvature stay in scaled units; see the user
        guide). Every scale read from fewer than 10 values is shrunk toward
        the first rows' common scale, as far as their features' spread of
        units allows (empirical Bayes; a feature more than a factor 1024 from
        it keeps its own; user guide, "Scales read from few values"). Fixed
        at rows set by the data, so any split of the stream gives the same
        model; ``coef_`` is in raw units. ``False``: the paper's raw features.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    buffer_init : {"zeros", "empty"}, default="zeros"
        ``"zeros"``: Alg. 6 literally, the buffer starts with ``m`` zero rows
        (first compaction after ``m`` gradients); ``"empty"``: first
        compaction after ``2m`` gradients (Alg. 5).
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    skip_zero_rows : bool, default=False
        Do not add zero gradients to the sketch (they do not change ``H`` but
        move the compaction schedule). Off: paper-literal.
        Live: a change acts from the next update on.

    max_iter : int, default=1
        Passes over the data in :meth:`fit` (the paper makes one).
        ``partial_fit`` always makes one.
        Live: read by the next :meth:`fit`.

    shuffle : bool, default=False
        Shuffle the rows before each pass of :meth:`fit`.
        Live: read by the next :meth:`fit`.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
        Live: read by the next :meth:`fit`.

    warm_start : bool, default=False
        :meth:`fit` continues from the current state instead of resetting.
        Live: read by the next :meth:`fit`.

    solve_rtol : float, default=1e-12
        ``α ≤ solve_rtol · λ_max(BBᵀ)`` counts as singular: the pseudo-inverse
        formulas are used in the solves (the sketch itself stays exact). The
        solves work in the sketch's eigenbasis (error ``κ·eps``), so the
        threshold can sit far below the Woodbury form's ``1e-10``; see the
        user guide.
        Live: a change acts from the next update on.
    forgetting_factor : "auto" or float in (0, 1], default=1.0
        Drift: after each row's prediction the curvature the learner has
        accumulated is discounted, ``H ← γH`` with ``γ = forgetting_factor``
        (``sketch="diag"``: ``Σ g²``), before the row's own curvature is added; the
        Newton steps then stay large enough to follow a concept that changes
        (a memory of about ``1/(1 − γ)`` rows). ``1.0``: nothing is forgotten
        (the paper's algorithm, bit for bit). ``"auto"``: two learners side by
        side, undiscounted and discounted by ``0.995``, whose calibrated
        probabilities :meth:`predict_proba` mixes with weights ``∝ exp(−L)``,
        ``L`` each one's prequential log-loss (a Bayes mixture, a prior weight
        of ``e⁻⁸`` on the discounted learner; as in
        :class:`ScaleInvariantClassifier`, where it is the default; it needs a
        calibration map, else it is ``1.0``). Not the default here, for its
        cost (twice the work per row): measured on the scoreboard's drifting
        streams, it lifts the accuracy from 0.924 / 0.898 / 0.903 to 0.924 /
        0.917 / 0.912 on the concept switches and from 0.893 / 0.904 to 0.921 /
        0.921 on the rotations, and leaves the stationary streams unchanged
        (with ``bound=2``, the default before, it gained nothing). With a
        discount and no bound, class weights as extreme as 1000 against 1e-4
        can be overridden (the rows of tiny weight take full steps in the
        discounted curvature): use a bound there. See "Drifting streams" in
        the user guide for measured settings. Live: a change acts from the next
        update on.

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
        ``u^(T+1)``, the unprojected iterate(s).

    intercept_ : ndarray of shape (1,) or (n_classes,)
        The intercepts.

    n_mistakes_ : int
        Online mistakes (prediction made before each update).

    online_error_rate_ : float
        ``n_mistakes_ / n_samples_seen_``: the paper's "online error rate".

    n_samples_seen_ : int
        Rows processed so far (the global time index ``t`` of ``η_t``).

    cumulative_loss_ : float
        Sum over the processed rows of the (weighted) loss of the prediction
        made before the update (progressive validation); for one-vs-rest the
        sum of the per-class binary losses.

    alpha0_ : float
        The initial ridge ``alpha0`` used (``alpha0="auto"`` resolved), in the
        units of the scaled features.

    sketch_ : str
        The curvature in use (``sketch="auto"`` resolved).

    alpha_ : ndarray of shape (n_models,)
        ``α`` of each model's curvature (NaN for ``"full"``/``"diag"``).

    shrinkage_ : ndarray of shape (n_models,)
        Total shrinkage ``Δ`` of each sketch; for ``"rfd"``
        ``alpha_ == alpha0 + shrinkage_ / 2``.

    n_compactions_ : ndarray of shape (n_models,)
        Compactions of each model's sketch.

    mixture_weights_ : ndarray of shape (2,)
        With two learners (``forgetting_factor="auto"``): the weights of the
        paper's learner and of the discounted one. Absent with one learner.

    n_iter_ : int
        Passes made by the last :meth:`fit` (1 after ``partial_fit``).

    n_features_in_ : int
        Number of features seen during the first call.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during the first call, when ``X`` has string
        column names.

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
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "calibration": [StrOptions({"platt", "temperature"}), None],
    }

    _frozen_record: ClassVar[type[ParamRecord]] = SONClassifierFrozen
    #: ``forgetting_factor="auto"``: the discounted learner beside the paper's, with a
    #: prior weight of e^-8 (measured: on stationary low-signal streams the two log-
    #: losses stay close and an even prior cost up to 1.1 points of accuracy; on a
    #: switch the discounted learner earns 8 nats in a few dozen rows).
    _auto_forgetting = 0.995
    _auto_prior = 8.0
    #: Measured (user guide, "A prior for rows wider than the sketch"): 2, 3, 5, 8;
    #: the strongest prior that costs no dense stream of the scoreboard anything.
    _coords_per_prior_row = 5.0

    def __init__(
        self,
        loss="log_loss",
        *,
        class_weight=None,
        calibration="platt",
        sketch="rfd",
        curvature="auto",
        sketch_size=10,
        alpha0="auto",
        learning_rate=1.0,
        mu="auto",
        bound=None,
        fit_intercept=True,
        intercept_scaling=1.0,
        scale_features=True,
        buffer_init="zeros",
        skip_zero_rows=False,
        max_iter=1,
        shuffle=False,
        random_state=None,
        warm_start=False,
        solve_rtol=1e-12,
        forgetting_factor=1.0,
        verbose=0,
    ):
        self.loss = loss
        self.class_weight = class_weight
        self.calibration = calibration
        self.sketch = sketch
        self.curvature = curvature
        self.sketch_size = sketch_size
        self.alpha0 = alpha0
        self.learning_rate = learning_rate
        self.mu = mu
        self.bound = bound
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.scale_features = scale_features
        self.buffer_init = buffer_init
        self.skip_zero_rows = skip_zero_rows
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.solve_rtol = solve_rtol
        self.forgetting_factor = forgetting_factor
        self.verbose = verbose

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Probability estimates.

        ``calibration="platt"`` (default): ``σ(a C tanh(f / C) + b)`` with
        ``f`` the linear score, ``C = bound`` (5 without a bound) and the slope ``a`` and
        intercept ``b`` learned online from each row's score before the row
        was learned (``softmax(a C tanh(f / C))`` for several classes);
        ``calibration="temperature"``: the same without ``b``. Not capped:
        the range grows with the evidence; an increasing map of ``f``, so
        rankings and ROC AUC are those of :meth:`decision_function`, and the
        most probable class is the one :meth:`predict` gives. ``calibration=None``, the
        paper's link: for ``loss="log_loss"``, ``σ(clip(f, −C, C))``, the
        logistic model the loss fits, within ``[σ(−C), σ(C)]``
        (``[0.12, 0.88]`` for ``C = 2``; ``σ(f)`` without a bound); for
        ``loss="squared_error"``, ``(clip(f, −1, 1) + 1) / 2``, since the
        squared loss on labels ``±1`` estimates ``E[y | x] = 2 P(y = 1 | x) − 1``.
        One-vs-rest probabilities of the paper's link are normalised to sum
        to one.

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
        state = self._state
        if state.frozen.loss == "squared_error":
            p = (np.clip(scores, -1.0, 1.0) + 1.0) / 2.0
            if p.shape[1] == 1:
                return np.hstack([1.0 - p, p])
            total = p.sum(axis=1, keepdims=True)
            return np.where(total > 0, p / np.where(total > 0, total, 1.0), 1.0 / p.shape[1])
        bound = state.live.bound
        if bound is not None:
            scores = np.clip(scores, -bound, bound)
        return probabilities_from_scores(scores)

    @available_if(_has_proba)
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
        log_proba = self._calibrated_proba(X, log=True)  # in log space: no log(0)
        if log_proba is not None:
            return log_proba
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class RFDSONRegressor(OnlineLinearRegressorMixin, RegressorMixin, _BaseSON):
    """Online Newton step with a Robust Frequent Directions sketch, for regression.

    Paper Algorithm 6 (RFD-SON, doubling buffer) of Luo et al. (2019) with the
    squared loss ``(wᵀx − y)²`` of the paper's experiments (or the Huber
    loss), ``O(m · n_features + m³)`` time and ``O(m · n_features)`` memory
    per row; on narrow data (``n_features + 1 ≤ 3m``), where the exact
    curvature costs no more, ``sketch="auto"`` runs it instead (``O(n_features²)``).
    With ``bound=C`` the iterate is projected onto
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
    loss : {"squared_error", "huber", "absolute_error"}, default="squared_error"
        The loss of the online predictions. The squared and Huber losses are
        exp-concave on bounded predictions (Assumption 2; Huber in its
        quadratic zone), as Theorem 5 needs. ``"absolute_error"`` ``|p − y|``
        is not (not even strictly convex: ``l'' = 0``), so no regret bound
        holds: the Newton step uses its subgradient ``c · sign(p − y) x``
        (``0`` at ``p = y``) and ``curvature="auto"`` accumulates the
        gradient rows ``sqrt(μ + η_t) g_t``, i.e. ``(μ + η_t) c² x xᵀ``, with
        ``mu="auto"`` = 0 (Assumption 2's recipe ``min l'' / max l'²``);
        ``curvature="hessian"`` is refused. Its steps do not scale with the
        residual, so ``learning_rate`` sets them in target units (a smaller
        value, larger steps); robust to outlying targets.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    epsilon : float, default=1.0
        Huber threshold (only for ``loss="huber"``).
        Live: a change acts from the next update on.

    center_target : bool, default=True
        Predict the running mean of the targets seen so far plus the linear
        model, which learns the deviations: the predictions start at the
        mean, not at 0, and the ridge shrinks towards the mean. ``False``:
        the paper's raw targets.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    clip_predictions : bool, default=True
        Clip each prediction of :meth:`predict` to ``[min y, max y]`` over
        the targets learned so far (rows of weight > 0), as Vowpal Wabbit
        does: a row far outside the data seen cannot produce a prediction
        far outside the targets seen. The learner's updates and
        ``cumulative_loss_`` use its own unclipped prediction (the paper's
        Newton step, the quantity its regret bound is about). ``False``:
        the paper's predictions.
        Live: the read-outs use the value recorded by the last call that
        learned.

    sketch : {"auto", "rfd", "fd", "full", "diag"}, default="auto"
        Curvature ``H`` of the Newton step. ``"rfd"``: Robust Frequent
        Directions sketch (RFD-SON, paper Alg. 3/6), ``H = BᵀB + αI`` with ``α``
        grown by the sketch; runs with ``alpha0=0`` ("RFD0", no
        hyperparameter). ``"fd"``: FD-SON, ``α`` fixed at ``alpha0 > 0``.
        ``"full"``: FULL-ON, the exact ``H``, ``O(n_features²)`` per row, in
        the sketches' factored form (their solves and ``solve_rtol`` rule).
        ``"diag"``: diagonal AdaGrad, ``D = alpha0 + sqrt(Σ g²)``.
        ``"auto"`` (the default): ``"full"`` when ``n_features + fit_intercept``
        is at most ``3 * sketch_size``, ``"rfd"`` otherwise and with
        ``alpha0=0``; the choice is ``sketch_``. Measured at ``sketch_size=10``:
        on at most 30 coordinates the exact update costs 0.7–0.95× the sketch's
        (1.7–2.2× at 48–64) and its prequential MAE is lower or equal on the
        scoreboard's regression streams (make_regression with 20 features 18.3
        against 19.2; diabetes +0.06 %).
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    curvature : {"auto", "gradient", "hessian"}, default="auto"
        What the curvature accumulates. ``"gradient"``: the paper's
        ``Σ (μ + η_t) g_t g_tᵀ`` (exp-concave losses, the regret bound of
        Theorem 5). ``"hessian"``: the loss's own second derivative,
        ``Σ c_t l''(p_t) x_t x_tᵀ`` (``c_t`` the sample weight): a Newton step on
        the cumulative loss, recursive least squares for the squared loss
        (``mu`` and ``learning_rate`` are then unused); not with
        ``sketch="diag"``, where a diagonal Newton step ignores the correlations
        of the features. ``"auto"``: ``"hessian"``, ``"gradient"`` with
        ``sketch="diag"`` or ``loss="absolute_error"``.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    sketch_size : int, default=10
        The paper's ``m``, the memory of the sketch: its buffer holds up to
        ``2m`` rows (``O(m · d)`` memory, ``O(m · d + m³)`` time per row). The
        values of the paper's experiments are in the user guide.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    alpha0 : float or "auto", default="auto"
        Initial ridge ``α`` (``H^(0) = alpha0 · I``). ``"auto"``: half the
        mean curvature a row adds per coordinate it touches (its non-zero
        features; a prior worth half a row,
        in the units of the scaled features: about 1 for the squared loss,
        whose ``l'' = 2``; for ``sketch="diag"``, whose
        ``D = alpha0 + sqrt(Σ g²)`` is in gradient units, the root of half
        the mean squared gradient of a row), over the first 10 rows with
        ``scale_features`` (the first row's until then), over the first row
        without. Chosen by measurement over
        19 regression streams (user guide): priors worth 0.25 to 1 row are
        within 3 % of each other and of ``alpha0=1`` on every stream of
        more than 20 rows; the former prior of ten rows lost by up to 35 %.
        Its value is
        ``alpha0_``. ``0`` with
        ``sketch="rfd"`` is the paper's hyperparameter-free RFD0. Must be
        positive for ``"fd"``, ``"full"`` and ``"diag"``.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    learning_rate : float, default=1.0
        ``η_t = learning_rate / t`` with ``t`` counted from 1 across all calls.
        Live: a change acts from the next update on.

    mu : "auto" or float, default="auto"
        ``μ`` of Assumption 2; the sketch rows are ``sqrt(μ + η_t) g_t``.
        ``"auto"``: ``1/(8C²)`` for the squared loss, ``e^{−C}`` for the
        logistic loss, ``1/epsilon²`` for the Huber loss (its quadratic
        zone), 0 otherwise (§3.1: the squared loss's constant, and the recipe
        ``μ = min l'' / max l'²`` for the others).
        Live: a change acts from the next update on.

    bound : float or None, default=None
        ``C`` of the constraint ``K_t = {w : |wᵀx_t| ≤ C}`` on the (centred)
        predictions (the paper uses 1 with targets in ``[−1, 1]``).
        Predictions are ``clip(wᵀx, −C, C)``. ``None``: no projection.
        Live: a change acts from the next update on; the read-outs clip with
        the value recorded by the last call that learned.

    fit_intercept : bool, default=True
        Append a constant feature (value ``intercept_scaling``) that takes
        part in the sketch. The paper has no intercept (``False``).
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    intercept_scaling : float, default=1.0
        Value of the constant feature.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    scale_features : bool, default=True
        Divide each feature by a power of two fixed by the first 10 rows: the
        one nearest the feature's root-mean-square over them, so that the
        ridge ``alpha0``, the sketch and the constraint see features of
        comparable scale whatever their units. Those rows are learned with
        provisional scales (the power of two of each feature's first non-zero
        value), then learned again from the start in the final units (their
        prequential losses stay those of the predictions made at the time); a
        feature that is zero over them takes the power of two of its first
        non-zero value later. A feature with fewer than two non-zero values in
        those rows (sparse rows) gets its scale confirmed at its second: from
        that row on, the power of two nearest the root-mean-square of its
        first two values (one value is a poor scale for real-valued non-zeros;
        the learned weight and curvature stay in scaled units; see the user
        guide). Every scale read from fewer than 10 values is shrunk toward
        the first rows' common scale, as far as their features' spread of
        units allows (empirical Bayes; a feature more than a factor 1024 from
        it keeps its own; user guide, "Scales read from few values"). Fixed
        at rows set by the data, so any split of the stream gives the same
        model; ``coef_`` is in raw units. ``False``: the paper's raw features.
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    buffer_init : {"zeros", "empty"}, default="zeros"
        ``"zeros"``: Alg. 6 literally, the buffer starts with ``m`` zero rows
        (first compaction after ``m`` gradients); ``"empty"``: first
        compaction after ``2m`` gradients (Alg. 5).
        Frozen at the first call: changing it takes effect at the next
        :meth:`fit`.

    skip_zero_rows : bool, default=False
        Do not add zero gradients to the sketch (they do not change ``H`` but
        move the compaction schedule). Off: paper-literal.
        Live: a change acts from the next update on.

    max_iter : int, default=1
        Passes over the data in :meth:`fit` (the paper makes one).
        ``partial_fit`` always makes one.
        Live: read by the next :meth:`fit`.

    shuffle : bool, default=False
        Shuffle the rows before each pass of :meth:`fit`.
        Live: read by the next :meth:`fit`.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
        Live: read by the next :meth:`fit`.

    warm_start : bool, default=False
        :meth:`fit` continues from the current state instead of resetting.
        Live: read by the next :meth:`fit`.

    solve_rtol : float, default=1e-12
        ``α ≤ solve_rtol · λ_max(BBᵀ)`` counts as singular: the pseudo-inverse
        formulas are used in the solves (the sketch itself stays exact). The
        solves work in the sketch's eigenbasis (error ``κ·eps``), so the
        threshold can sit far below the Woodbury form's ``1e-10``; see the
        user guide.
        Live: a change acts from the next update on.
    forgetting_factor : "auto" or float in (0, 1], default="auto"
        Drift: after each row's prediction the curvature the learner has
        accumulated is discounted, ``H ← γH`` with ``γ = forgetting_factor``
        (``sketch="diag"``: ``Σ g²``), before the row's own curvature is added; the
        Newton steps then stay large enough to follow a concept that changes
        (a memory of about ``1/(1 − γ)`` rows). ``1.0``: nothing is forgotten
        (the paper's algorithm, bit for bit). ``"auto"`` (the default): two
        learners side by side, undiscounted and discounted by ``0.98``, and
        :meth:`predict` mixes them with weights ``∝ exp(−L)``, ``L`` the
        Gaussian negative log-likelihood of each one's prequential predictions
        (clipped to the targets' range) under the variance of the mixture's
        own residuals so far: a Bayes mixture, whose loss is at most the
        better learner's plus ``log 2`` for that variance, whatever the units
        of ``y``. ``coef_`` and ``intercept_`` are the mixture's (the weighted
        average, ``mixture_weights_``); the online record
        (``cumulative_loss_``) is the paper's learner's. Twice the cost and
        the memory of one learner. Measured in the user guide ("Drifting streams"): the error of
        ``0.98`` on drifting streams, within 0.5 % of ``1.0`` or better on
        stationary ones. Live: a change acts from the next
        update on.

    verbose : int, default=0
        Progress on ``sys.stderr`` (:ref:`progress`): ``1`` shows a bar with
        the rows per second and the time left during :meth:`fit` in a terminal
        or a notebook, at most ten lines elsewhere; ``2`` adds the mean loss so
        far, one line per epoch, and one line per :meth:`partial_fit` call. The
        state learned is the same. Live: read by the next call.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        ``u^(T+1)``, the unprojected iterate.

    intercept_ : float
        The intercept.

    n_samples_seen_ : int
        Rows processed so far (the global time index ``t`` of ``η_t``).

    cumulative_loss_ : float
        Sum over the processed rows of the (weighted) loss of the prediction
        made before the update (progressive validation); for one-vs-rest the
        sum of the per-class binary losses.

    alpha0_ : float
        The initial ridge ``alpha0`` used (``alpha0="auto"`` resolved), in the
        units of the scaled features.

    sketch_ : str
        The curvature in use (``sketch="auto"`` resolved).

    alpha_ : ndarray of shape (n_models,)
        ``α`` of each model's curvature (NaN for ``"full"``/``"diag"``).

    shrinkage_ : ndarray of shape (n_models,)
        Total shrinkage ``Δ`` of each sketch; for ``"rfd"``
        ``alpha_ == alpha0 + shrinkage_ / 2``.

    n_compactions_ : ndarray of shape (n_models,)
        Compactions of each model's sketch.

    mixture_weights_ : ndarray of shape (2,)
        With two learners (``forgetting_factor="auto"``): the weights of the
        paper's learner and of the discounted one. Absent with one learner.

    n_iter_ : int
        Passes made by the last :meth:`fit` (1 after ``partial_fit``).

    n_features_in_ : int
        Number of features seen during the first call.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during the first call, when ``X`` has string
        column names.

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
        "loss": [StrOptions({"squared_error", "huber", "absolute_error"})],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "center_target": ["boolean"],
        "clip_predictions": ["boolean"],
    }

    _prior_rows = 0.5  # measured over 19 streams (user guide): as good as alpha0=1
    _auto_curvature = "hessian"  # recursive least squares for the squared loss

    _frozen_record: ClassVar[type[ParamRecord]] = SONRegressorFrozen
    _live_record: ClassVar[type[ParamRecord]] = SONRegressorLive
    #: ``forgetting_factor="auto"``: the discounted learner beside the paper's.
    _auto_forgetting = 0.98

    def _epsilon(self):
        return float(self.epsilon)

    def __init__(
        self,
        loss="squared_error",
        *,
        epsilon=1.0,
        center_target=True,
        clip_predictions=True,
        sketch="auto",
        curvature="auto",
        sketch_size=10,
        alpha0="auto",
        learning_rate=1.0,
        mu="auto",
        bound=None,
        fit_intercept=True,
        intercept_scaling=1.0,
        scale_features=True,
        buffer_init="zeros",
        skip_zero_rows=False,
        max_iter=1,
        shuffle=False,
        random_state=None,
        warm_start=False,
        solve_rtol=1e-12,
        forgetting_factor="auto",
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
        self.scale_features = scale_features
        self.center_target = center_target
        self.clip_predictions = clip_predictions
        self.buffer_init = buffer_init
        self.skip_zero_rows = skip_zero_rows
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.solve_rtol = solve_rtol
        self.forgetting_factor = forgetting_factor
        self.verbose = verbose

    def _validate_batch(self, X, y, first_call, classes=None, sample_weight=None):
        X, y, kwargs = super()._validate_batch(
            X, y, first_call, classes=classes, sample_weight=sample_weight
        )
        if (
            self.bound is not None
            and not self.center_target
            and y.size
            and np.max(np.abs(y)) > self.bound
        ):
            warnings.warn(
                f"targets reach |y| = {np.max(np.abs(y)):.3g} > bound = {self.bound}: "
                "predictions are clipped to [-bound, bound] (the paper's constraint "
                "|wᵀx| <= C). Scale y into that range or raise bound.",
                UserWarning,
                stacklevel=5,
            )
        return X, y, kwargs

    def predict(self, X):
        """Predicted targets ``X @ coef_ + intercept_``.

        With ``bound=C`` the linear part is clipped to ``[−C, C]`` around the
        running target mean (around 0 without ``center_target``); then, with
        ``clip_predictions``, the prediction is clipped to the range of the
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
        out = self._raw_decision(X)[:, 0]
        state = self._state
        bound = state.live.bound
        if bound is not None:
            mean = state.target_sum / state.target_count if state.target_count else 0.0
            out = mean + np.clip(out - mean, -bound, bound)
        return self._clip_to_targets(out)

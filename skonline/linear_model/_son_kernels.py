"""Kernel of the sketched online Newton step (SON): one ordered pass over the rows.

Luo, Chen, Zhang, Li & Zhang, "Robust Frequent Directions with Application in
Online Learning", JMLR 20 (2019): Algorithm 6 (RFD-SON with the doubling
buffer) in the SON order of Luo et al. (2016): per row, project the current
``u`` onto ``K_t = {w : |wᵀx_t| ≤ C}`` in the ``H^(t−1)``-norm, predict
``p = wᵀx_t`` (test-then-train bookkeeping), take the loss gradient
``g = l'(p) x_t``, add ``sqrt(μ + η_t) g`` to the curvature, and step
``u ← w − H^(t)⁻¹ g``.

The row loop is compiled (``_son_fast.pyx``); this module holds the state of
the curvature back-ends and the pure Python entry point :func:`son_pass`.
The textbook transcription of the algorithm lives in the tests
(``tests/linear_model/test_son_reference.py``) and is the reference.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import polygamma

from ..base import copy_arrays
from ._losses import LOSS_CODES, loss_and_derivative
from ._rows import count_columns, make_rows
from ._son_fast import Curvature, Stream, son_pass_fast

__all__ = [
    "CurvatureState",
    "auto_alpha0",
    "auto_mu",
    "first_rows_scales",
    "first_value_scales",
    "nearest_power_of_two",
    "new_curvature",
    "shrunk_scales",
    "son_pass",
    "touched_coordinates",
    "update_scales",
]


#: ``mu="auto"`` for the logistic loss without a bound: the curvature floor
#: ``e^{−C}`` of a margin bound ``C ≈ 3``, without the projection onto it
#: (chosen by measurement over 0, 0.01, 0.03, 0.05, 0.1, 0.135 and 0.3 on 17
#: binary and multi-class streams, 5 row orders each; see the user guide).
UNBOUNDED_LOG_LOSS_MU = 0.05


def auto_mu(loss: str, bound: float | None, epsilon: float = 1.0) -> float:
    """Assumption 2's constant ``μ = min l'' / max l'²`` (Luo et al. 2019, §3.1).

    Squared loss on ``|p|, |y| ≤ C``: ``1/(8C²)`` (the paper's constant, §3.1);
    logistic: ``e^{−C}``, and ``UNBOUNDED_LOG_LOSS_MU`` without a bound (the
    constant is then a floor on the curvature, not the paper's); Huber:
    ``1/ε²``, the constant of its quadratic zone ``|p − y| ≤ ε`` (where
    ``l'' = 1`` and ``l'² ≤ ε²``), whatever the bound; hinge, smooth hinge,
    or the squared loss without a bound: 0.
    """
    if loss == "huber":
        return 1.0 / (epsilon * epsilon)
    if bound is None:
        return UNBOUNDED_LOG_LOSS_MU if loss == "log_loss" else 0.0
    if loss == "squared_error":
        return 1.0 / (8.0 * bound * bound)
    if loss == "log_loss":
        return float(np.exp(-bound))
    return 0.0


def _second_derivative_at_zero(loss: str, y: float, epsilon: float) -> float:
    """``l''(0; y)`` of the loss table (0 for the hinge)."""
    if loss == "squared_error":
        return 2.0
    if loss == "log_loss":
        return 0.25
    if loss == "smooth_hinge":
        return 1.0
    if loss == "huber":
        return 1.0 if abs(y) <= epsilon else 0.0
    return 0.0


def _row_values(X: Any) -> list[np.ndarray]:
    """The stored values of each row (CSR: its entries; an array: the row)."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return [X.data[X.indptr[i] : X.indptr[i + 1]] for i in range(X.shape[0])]
    return list(np.asarray(X))


def touched_coordinates(X: Any, intercept: float) -> np.ndarray:
    """Per row, the coordinates it touches: its non-zero values, plus the intercept column."""
    return np.array([np.count_nonzero(row) for row in _row_values(X)], dtype=np.int64) + (
        1 if intercept else 0
    )


def auto_alpha0(
    X: Any,
    T: np.ndarray,
    intercept: float,
    *,
    loss: str,
    curvature_rows: str,
    mu: float,
    learning_rate: float,
    epsilon: float,
) -> float:
    """The initial ridge ``alpha0="auto"``: a row's curvature per coordinate it touches.

    Each row ``x`` of the first batch (intercept column included, value
    ``intercept``) would add the row ``b = sqrt(c) x`` to the curvature at the
    initial iterate ``u = 0``, with ``c = (μ + η_1) l'(0; y)²`` (gradient rows)
    or ``c = l''(0; y)`` (Hessian rows); ``alpha0`` is the mean over the rows
    of ``‖b‖²`` divided by the row's number of non-zero coordinates: a prior
    worth one average row on each coordinate a row touches. On rows without
    zeros that is ``‖b‖²`` over the number of coordinates (the same bits);
    dividing sparse rows by every coordinate instead made the prior about
    ``nnz / d`` times too weak (0.0013 on hashed text of 2^15 columns, where
    the first steps then overfit: prequential accuracy 0.78–0.96 against
    0.99). The count comes from the values, so CSR and dense rows agree.
    A positive value (1 when the batch carries no curvature).
    """
    # correctly rounded sums (math.fsum): the same bits whatever the memory layout
    # of the rows, so the warm-up rows gathered from any split give the same value
    rows = _row_values(X)
    sq = np.array([math.fsum(np.square(row)) for row in rows]) + intercept * intercept
    n_coords = X.shape[1] + (1 if intercept else 0)
    touched = touched_coordinates(X, intercept)
    weights = []
    for y in np.asarray(T, dtype=np.float64)[:, 0]:
        if curvature_rows == "hessian":
            weights.append(_second_derivative_at_zero(loss, y, epsilon))
        else:
            deriv = loss_and_derivative(loss, 0.0, y, epsilon)[1]
            weights.append((mu + learning_rate) * deriv * deriv)
    per_row = np.asarray(weights) * sq
    if np.all(touched == n_coords):
        value = math.fsum(per_row) / len(sq) / n_coords
    else:  # an all-zero row adds nothing (its sq is 0)
        value = math.fsum(per_row / np.maximum(touched, 1)) / len(sq)
    return value if value > 0.0 and np.isfinite(value) else 1.0


def first_value_scales(values: np.ndarray) -> np.ndarray:
    """The power of two ``2^(e−1)`` of each value ``m·2^e`` (``m`` in ``[0.5, 1)``).

    A feature scaled by it has that value at ``2m``, in ``[1, 2)``: the scale a
    feature takes from its first non-zero value.
    """
    _, exponent = np.frexp(np.asarray(values, dtype=np.float64))
    return np.ldexp(1.0, exponent - 1)


def nearest_power_of_two(log2_values: np.ndarray) -> np.ndarray:
    """``2^round(v)`` of base-2 logarithms, inside the float64 range (subnormals included).

    The scale of a feature whose root-mean-square is ``2^v``: :func:`rms_scales`
    over the first rows, and the scale confirmed at a sparse feature's later values.
    """
    return np.exp2(np.clip(np.round(log2_values), -1074, 1023))


def rms_scales(X: Any) -> np.ndarray:
    """Per feature, the power of two nearest the root-mean-square of its rows (0 if all 0).

    Computed in float64 as ``2^round(log2 sqrt(mean x²))``. Where the mean square
    leaves the normal float64 range (subnormal or zero rows that are not all
    zero, or float32/float64 values whose squares overflow), the same number is
    taken as ``log2 m + ½ log2 mean((x/m)²)`` with ``m`` the largest ``|x|``,
    which stays finite: a valid column never gets a scale of 0 or infinity.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        with np.errstate(over="ignore", under="ignore"):
            ms = np.asarray(X.multiply(X).mean(axis=0)).ravel()
        peak = np.asarray(abs(X).max(axis=0).todense()).ravel()
    else:
        X = np.asarray(X, dtype=np.float64)
        with np.errstate(over="ignore", under="ignore"):
            ms = np.mean(np.square(X), axis=0)
        peak = np.max(np.abs(X), axis=0) if X.shape[0] else np.zeros(X.shape[1])
    log_rms = np.full(ms.shape, -np.inf)
    normal = (ms >= np.finfo(np.float64).tiny) & np.isfinite(ms)
    log_rms[normal] = 0.5 * np.log2(ms[normal])
    odd = ~normal & (peak > 0)
    if odd.any():
        cols = np.flatnonzero(odd)
        rel = X[:, cols].multiply(1.0 / peak[cols]) if sp.issparse(X) else X[:, cols] / peak[cols]
        rel_ms = (
            np.asarray(rel.multiply(rel).mean(axis=0)).ravel()
            if sp.issparse(rel)
            else np.mean(np.square(rel), axis=0)
        )
        log_rms[cols] = np.log2(peak[cols]) + 0.5 * np.log2(rel_ms)
    scale = np.zeros(ms.shape)
    seen = np.isfinite(log_rms)
    scale[seen] = nearest_power_of_two(log_rms[seen])
    return scale


#: A feature whose values lie more than this many bits (a factor 1024) from the
#: common scale of the first rows keeps its own scale: a unit of its own, not the
#: noise of a few values (the noise of one standard normal value passes it with a
#: probability of 1e-3).
SCALE_GUARD_BITS = 10.0
_TRIGAMMA_HALF = float(polygamma(1, 0.5))


def nonzero_log_rms(X: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per feature, the count and the base-2 logarithm of the root-mean-square of its non-zeros.

    Returns ``(count, log_rms, columns, log_abs)``: ``log_rms`` is ``-inf``
    where a feature has no non-zero value; ``columns`` and ``log_abs`` are
    each non-zero's feature and ``log2 |x|``. Computed from ``log2 |x|``
    (shifted by each feature's largest), so no square overflows or underflows.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        keep = X.data != 0
        columns, values = X.indices[keep].astype(np.intp), X.data[keep]
    else:
        rows, columns = np.nonzero(np.asarray(X))
        values = np.asarray(X, dtype=np.float64)[rows, columns]
    d = X.shape[1]
    log_abs = np.log2(np.abs(values))
    count = np.bincount(columns, minlength=d)
    peak = np.full(d, -np.inf)
    np.maximum.at(peak, columns, log_abs)
    log_rms = np.full(d, -np.inf)
    seen = count > 0
    sums = np.bincount(columns, weights=np.exp2(2.0 * (log_abs - peak[columns])), minlength=d)
    log_rms[seen] = peak[seen] + 0.5 * np.log2(sums[seen] / count[seen])
    return count, log_rms, columns, log_abs


def _scale_noise(prior: np.ndarray, n_values: Any) -> np.ndarray:
    """Variance (bits²) of the log2 root-mean-square of ``n_values`` values of a feature.

    That of a normal sample's, ``ψ′(n/2) / (4 ln²2)``, in proportion to the
    spread of ``log2 |x|`` measured within the first rows' features (``prior[2]``).
    """
    return prior[2] * polygamma(1, np.asarray(n_values, dtype=np.float64) / 2.0) / _TRIGAMMA_HALF


#: The features whose log2 root-mean-square lies within this many robust standard
#: deviations (1.4826 × the median absolute deviation) of the median feature's fix
#: the prior: one column in another unit does not pull the common scale to its own.
PRIOR_CORE_SDS = 3.0


def scale_prior(stats: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """``[μ, τ², σ²]`` (bits): where the feature scales of the first rows lie.

    ``stats``: the rows' :func:`nonzero_log_rms`.

    With ``s_j`` the log2 root-mean-square of feature ``j``'s non-zero values:
    ``σ²``, the variance of ``log2 |x|`` within a feature (pooled over the
    features with two values or more; 0 without any); over the *core*
    features, whose ``s_j`` lies within :data:`PRIOR_CORE_SDS` robust
    standard deviations of the median ``s_j`` (so that a few columns in
    other units do not decide it): ``μ``, log2 of the root-mean-square of
    their non-zero values (the common scale), and ``τ²``, the variance of
    their ``s_j`` beyond what the noise of their few values explains
    (empirical Bayes: ``Var(s_j)`` minus the mean noise variance, at least
    0). ``None`` when ``X`` has no non-zero value.
    """
    count, log_rms, columns, log_abs = stats
    if columns.size == 0:
        return None
    seen = count > 0
    mean_log = np.zeros(count.shape)
    mean_log[seen] = np.bincount(columns, weights=log_abs, minlength=count.size)[seen] / count[seen]
    spread = np.bincount(columns, weights=(log_abs - mean_log[columns]) ** 2, minlength=count.size)
    several = count >= 2
    sigma2 = spread[several].sum() / (count[several] - 1).sum() if several.any() else 0.0
    centre = np.median(log_rms[seen])
    width = PRIOR_CORE_SDS * 1.4826 * np.median(np.abs(log_rms[seen] - centre))
    core = seen & (np.abs(log_rms - centre) <= width)
    values = log_abs[core[columns]]
    top = values.max()
    mu = top + 0.5 * np.log2(np.mean(np.exp2(2.0 * (values - top))))
    prior = np.array([mu, 0.0, sigma2])
    tau2 = np.var(log_rms[core]) - np.mean(_scale_noise(prior, count[core]))
    prior[1] = max(float(tau2), 0.0)
    return prior


def shrunk_scales(
    scale: np.ndarray, n_values: Any, log_rms: np.ndarray, prior: np.ndarray | None
) -> np.ndarray:
    """Powers of two ``scale`` read from ``n_values`` values of their features, shrunk to the prior.

    The scale of a feature read from a few values is noisy (one standard
    normal value: a standard deviation of 1.6 bits), and RFD-SON's ridge is
    the same on every coordinate, so that noise decides how fast each
    feature learns. The log2 scale moves toward the common ``μ`` by the
    empirical-Bayes factor ``B = v / (v + τ²)``, ``v`` the noise variance of
    ``n_values`` values (:func:`scale_prior`): all the way where the first
    rows' features share one scale (``τ² = 0``), hardly where their units
    differ; not at all where no noise was measured (``σ² = 0``: the first
    rows' features each repeat one value). A feature whose values' log2
    root-mean-square ``log_rms`` lies more than :data:`SCALE_GUARD_BITS` from
    ``μ`` keeps its scale. ``None``: ``scale`` unchanged.
    """
    if prior is None or np.size(scale) == 0:
        return scale
    mu, tau2, _ = prior
    noise = np.broadcast_to(_scale_noise(prior, n_values), np.shape(scale))
    # no noise measured (σ² = 0: every value of a feature the same): the reading is exact
    factor = np.divide(noise, noise + tau2, out=np.zeros(noise.shape), where=noise > 0.0)
    factor = np.where(np.abs(log_rms - mu) > SCALE_GUARD_BITS, 0.0, factor)
    return nearest_power_of_two(mu + (1.0 - factor) * (np.log2(scale) - mu))


def first_rows_scales(X: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """``(scale, prior)``: the scales the first rows ``X`` fix, and their :func:`scale_prior`.

    :func:`rms_scales`; the features that are zero in some of the rows have
    them from fewer values, and are :func:`shrunk_scales` by their count
    (where no noise was measured, ``σ² = 0``, from their values' root-mean-square,
    not counting the zeros, and left there).
    """
    scale = rms_scales(X)
    stats = nonzero_log_rms(X)
    prior = scale_prior(stats)
    count, log_rms, _, _ = stats
    few = (count > 0) & (count < X.shape[0])
    if prior is not None and prior[2] == 0.0:  # no noise: a feature's values are its scale
        scale[few] = nearest_power_of_two(log_rms[few])
    scale[few] = shrunk_scales(scale[few], count[few], log_rms[few], prior)
    return scale, prior


def update_scales(scale: np.ndarray, X: Any) -> np.ndarray:
    """Fix the scale of each feature at its first non-zero value; returns a new array.

    ``scale`` holds 0 for the features not seen non-zero yet. A feature's
    scale is the power of two ``2^(e−1)`` of its first non-zero value
    ``m·2^e`` (``m`` in ``[0.5, 1)``), so that value becomes ``2m`` in
    ``[1, 2)``. It is fixed at the row where the feature first leaves 0: every
    earlier row had it at 0, so the rescaling is an exact change of units
    whatever the split of the stream into batches.
    """
    scale = np.array(scale, dtype=np.float64, copy=True)
    unset = scale == 0.0
    if not unset.any():
        return scale
    if sp.issparse(X):
        coo = sp.csr_matrix(X).tocoo()
        keep = (coo.data != 0) & unset[coo.col]
        rows, cols, vals = coo.row[keep], coo.col[keep], coo.data[keep]
        order = np.lexsort((rows, cols))
        cols, vals = cols[order], vals[order]
        first = np.r_[True, cols[1:] != cols[:-1]] if cols.size else np.zeros(0, bool)
        cols, vals = cols[first], vals[first]
    else:
        X = np.asarray(X)
        nonzero = X != 0
        cols = np.flatnonzero(unset & nonzero.any(axis=0))
        rows = np.argmax(nonzero[:, cols], axis=0)
        vals = X[rows, cols]
    scale[cols] = first_value_scales(vals)
    return scale


@dataclass(kw_only=True, eq=False)
class CurvatureState:
    """The curvature ``H`` of ``K`` models, for one back-end.

    ``"sketch"`` (RFD-SON, FD-SON): ``H = Q S Qᵀ + αI`` with ``Q`` an
    orthonormal basis of the sketch's row space (``q_dim`` rows of ``Q``),
    ``S`` the sketch's Gram matrix in that basis and ``L`` the Cholesky factor
    of ``S + αI`` (valid where ``factor_ok``); ``n_rows`` counts the buffer
    rows (``virtual_rows`` the zero rows Alg. 6 starts with). ``"full"``:
    the same form with a basis of up to ``d`` rows and no compaction, so
    ``H = BᵀB + α₀I`` exactly (the sketches' solves and singular-case rule,
    not an inverse updated by Sherman–Morrison). ``"diag"``: ``sq = Σ g²``.
    Unused arrays are empty. A sketch learned from wide CSR rows stores ``Q``
    on the columns it has touched only: ``columns`` lists them (sorted; ``Q``
    is zero on the others), ``None`` means every one of the ``n_coords``.
    """

    kind: str
    m: int
    robust: bool
    alpha0: float
    Q: np.ndarray
    S: np.ndarray
    L: np.ndarray
    q_dim: np.ndarray
    n_rows: np.ndarray
    virtual_rows: np.ndarray
    n_compactions: np.ndarray
    factor_ok: np.ndarray
    alpha: np.ndarray
    shrinkage: np.ndarray
    sq: np.ndarray
    n_coords: int = 0
    columns: np.ndarray | None = None

    def copy(self, skip: tuple[str, ...] = ()) -> CurvatureState:
        """A copy with its own arrays (those named in ``skip`` are shared)."""
        return copy_arrays(self, skip)

    def gram(self, k: int) -> np.ndarray:
        """``H − αI`` of model ``k`` as a dense ``d × d`` matrix (tests and read-outs)."""
        if self.kind in ("sketch", "full"):
            q = int(self.q_dim[k])
            Q = self.on_every_column().Q[k, :q]
            return Q.T @ self.S[k, :q, :q] @ Q
        return np.diag(np.sqrt(self.sq[k]))

    def on_every_column(self) -> CurvatureState:
        """A copy whose basis is stored on every column (``columns`` None)."""
        if self.columns is None:
            return self.copy()
        Q = np.zeros((*self.Q.shape[:2], self.n_coords))
        Q[:, :, self.columns] = self.Q
        return copy_arrays(self, ("Q", "columns"), Q=Q, columns=None)

    def on_columns(self, columns: np.ndarray) -> CurvatureState:
        """A copy whose basis is stored on ``columns`` (sorted, every stored column among them)."""
        Q = np.zeros((*self.Q.shape[:2], columns.size))
        if self.columns is None:
            Q[:] = self.Q[:, :, columns]
        else:
            Q[:, :, np.searchsorted(columns, self.columns)] = self.Q
        return copy_arrays(self, ("Q", "columns"), Q=Q, columns=np.array(columns, dtype=np.intp))


def _physical_memory() -> int | None:
    """The machine's physical memory in bytes (``None`` where the OS does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


def _check_full_memory(n_models: int, d: int) -> None:
    """Refuse the exact curvature (three ``d x d`` matrices a model) beyond the machine's memory.

    Allocating first would raise a bare ``MemoryError`` or, where the OS
    over-commits zeroed pages, succeed and kill the process when the pages
    are touched; a message pointing at the sketch is more use.
    """
    need = 3 * 8 * n_models * d * d
    total = _physical_memory()
    if total is not None and need > total:
        raise MemoryError(
            f"sketch='full' keeps three {d} x {d} float64 matrices per model ({n_models} "
            f"model(s)): {need / 2**30:.1f} GiB, more than this machine's "
            f"{total / 2**30:.1f} GiB. Use sketch='rfd' (memory O(sketch_size x n_features)) "
            "or sketch='diag' (O(n_features))."
        )


def new_curvature(
    kind: str,
    n_models: int,
    n_features: int,
    *,
    m: int,
    alpha0: float,
    robust: bool = True,
    zero_rows: bool = True,
) -> CurvatureState:
    """The curvature of ``n_models`` fresh models (``H = alpha0 · I``)."""
    K, d = n_models, n_features
    cap = {"sketch": 2 * m, "full": d}.get(kind, 0)
    if kind == "full":
        _check_full_memory(K, d)
    ints = lambda v: np.full(K, v, dtype=np.intc)  # noqa: E731
    return CurvatureState(
        kind=kind,
        m=int(m),
        robust=bool(robust),
        alpha0=float(alpha0),
        Q=np.zeros((K, cap, d if cap else 0)),  # full: up to d basis rows
        S=np.zeros((K, cap, cap)),
        L=np.zeros((K, cap, cap)),
        q_dim=ints(0),
        n_rows=ints(0),
        virtual_rows=ints(m if (kind == "sketch" and zero_rows) else 0),
        n_compactions=ints(0),
        factor_ok=ints(1),
        alpha=np.full(K, float(alpha0)),
        shrinkage=np.zeros(K),
        sq=np.zeros((K, d)) if kind == "diag" else np.zeros((K, 0)),
        n_coords=int(d),
    )


#: CSR passes of a sketch run on the columns they can touch when these are at
#: most this fraction of all: the dense work of a compaction (``O(m²)`` per
#: column) is then that of the columns the stream has used, not of ``d``.
ACTIVE_FRACTION = 0.5


def _active_columns(
    curvature: CurvatureState, X: Any, n_coords: int, intercept: float
) -> np.ndarray | None:
    """The columns a sketch pass over CSR rows can read or write, or None for all.

    A pass changes the iterate, the basis and nothing else, only along the
    rows' columns and the basis's: ``H⁻¹g = g/α + Qz`` and the projection
    both lie in them. The intercept column is the last one.
    """
    if not sp.issparse(X) or curvature.kind != "sketch":
        return None
    if X.indices.dtype == np.intc:  # one compiled pass
        touched = count_columns(np.ascontiguousarray(X.indices), n_coords)
    else:
        touched = np.unique(X.indices).size
    if touched > ACTIVE_FRACTION * n_coords:
        return None  # the rows alone touch too many columns: no need to read the basis
    used = np.zeros(n_coords, dtype=bool)
    if curvature.columns is not None:
        used[curvature.columns] = True
    else:
        q_max = int(curvature.q_dim.max()) if curvature.q_dim.size else 0
        for row in curvature.Q[:, :q_max].reshape(-1, n_coords):
            used |= row != 0.0
    used[X.indices] = True
    if intercept:
        used[n_coords - 1] = True
    active = np.flatnonzero(used)
    if active.size == 0 or active.size > ACTIVE_FRACTION * n_coords:
        return None  # no column at all (rows without entries, no basis yet): the plain pass
    return active


def running_target_means(
    target_sum: float, target_count: int, targets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The running target sums and the mean of the targets before each row.

    ``center_target``'s rule, summed row after row (so any split of the stream
    gives the same): ``sums`` (``n + 1``: before each row, then after the
    last), ``means`` (the mean before each row, 0 where no target came yet)
    and ``seen`` (whether one did).
    """
    sums = np.cumsum(np.concatenate([[target_sum], targets]))
    count = target_count + np.arange(targets.shape[0])
    seen = count > 0
    return sums, np.where(seen, sums[:-1] / np.maximum(count, 1), 0.0), seen


def son_pass(
    U: np.ndarray,
    curvature: CurvatureState,
    X: Any,
    intercept: float,
    T: np.ndarray,
    sample_weight: np.ndarray,
    t: int,
    total_loss: float,
    *,
    loss: str,
    bound: float | None,
    mu: float,
    learning_rate: float,
    epsilon: float,
    skip_zero_rows: bool,
    rtol: float,
    curvature_rows: str = "gradient",
    target_mean: tuple[float, int] | None = None,
    forgetting: float = 1.0,
) -> tuple[
    np.ndarray,
    CurvatureState,
    int,
    float,
    np.ndarray,
    np.ndarray,
    tuple[float, int] | None,
]:
    """One ordered pass of the online Newton step over the rows (paper Alg. 6, SON order).

    A pure kernel: ``U`` and ``curvature`` are copied, never written into.

    Parameters
    ----------
    U : ndarray of shape (n_models, n_features + fit_intercept)
        Current iterates ``u`` (one per one-vs-rest model), intercept last.
    curvature : CurvatureState
        The models' curvature.
    X : ndarray or CSR matrix of shape (n, n_features)
        Rows without the intercept column.
    intercept : float
        Value of the intercept column (``intercept_scaling``), 0 without one.
    T : ndarray of shape (n, n_models)
        Targets (``±1`` for classification).
    sample_weight : ndarray of shape (n,)
        Positive sample weights.
    t : int
        Rows seen before this pass (``η_t = learning_rate / t``, 1-based).
    total_loss : float
        Running loss sum (continued, so any split of a stream adds up the same).
    loss, bound, mu, learning_rate, epsilon, skip_zero_rows, rtol, curvature_rows
        As the estimators' parameters (``mu`` resolved to a number, ``rtol``
        is ``solve_rtol``).
    target_mean : tuple (float, int) or None, default=None
        ``center_target``: the running sum and count of the targets before
        the pass. Each row's model then learns the deviation of its target
        from the mean of the earlier targets (sums accumulated row after row,
        so any split of the stream gives the same); the very first row has no
        mean to be predicted by and only starts it (the model learns a zero
        deviation there, and its loss is that of predicting ``0 + model``).
    forgetting : float, default=1.0
        ``forgetting_factor`` ``γ`` in ``(0, 1]``: after each row's
        prediction, the curvature is discounted, ``H ← γH`` (the prior
        included; ``sketch="diag"``: ``Σ g²`` only), before the row's own curvature is added
        (1: nothing is forgotten, the paper's algorithm).

    Returns
    -------
    U, curvature, t, total_loss, predictions, scores, target_mean
        New iterates and curvature, the time index and the running loss after
        the pass, per row and model ``p_t = clip(u_tᵀx_t, −C, C)`` and
        ``u_tᵀx_t`` (for the deviations with ``target_mean``), and the running
        target sum and count after the pass (``None`` without ``target_mean``).
    """
    T = np.asarray(T, dtype=np.float64)
    offsets: float | np.ndarray = 0.0
    if target_mean is not None:
        target_sum, target_count = target_mean
        sums, means, seen = running_target_means(target_sum, target_count, T[:, 0])
        offsets = np.where(seen, means, T[:, 0])[:, None]
    if sp.issparse(X) and not (
        X.format == "csr"
        and X.dtype == np.float64
        and all(a.flags.c_contiguous for a in (X.data, X.indices, X.indptr))
        and X.has_canonical_format
    ):  # the row loop scatters entries: duplicates must be summed (in a contiguous copy)
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
        X.sum_duplicates()
    U = np.array(U, dtype=np.float64, order="C", copy=True)
    n_coords = U.shape[1]
    active = _active_columns(curvature, X, n_coords, intercept)
    if active is None:
        curvature = curvature.on_every_column()
    else:  # the pass on the columns it can read or write; the basis stays on them
        full_U = U
        U = np.ascontiguousarray(full_U[:, active])
        curvature = curvature.on_columns(active)
        width = active.size - (1 if intercept else 0)
        position = np.zeros(n_coords, dtype=X.indices.dtype)
        position[active] = np.arange(active.size, dtype=X.indices.dtype)
        X = sp.csr_matrix((X.data, position[X.indices], X.indptr), shape=(X.shape[0], width))
    n, K = X.shape[0], U.shape[0]
    predictions = np.empty((n, K))
    scores = np.empty((n, K))
    stream = Stream(
        np.ascontiguousarray(T - offsets, dtype=np.float64),
        np.ascontiguousarray(sample_weight, dtype=np.float64),
        (int(t), float(total_loss)),
        LOSS_CODES[loss],
        float(epsilon),
        predictions,
        scores,
    )
    status = son_pass_fast(
        Curvature(curvature, U.shape[1], float(rtol)),
        U,
        make_rows(X),
        float(intercept),
        stream,
        np.inf if bound is None else float(bound),
        float(mu),
        float(learning_rate),
        bool(skip_zero_rows),
        curvature_rows != "gradient",
        float(forgetting),
    )
    if status:
        raise FloatingPointError(
            f"the curvature lost positive definiteness at row {status} of the batch (the "
            "sketch's Gram matrix is too ill-conditioned for float64); the batch was not "
            "applied. Rescale the features or raise alpha0."
        )
    t, total_loss = stream.result()
    if active is not None:  # the weights of the other columns were not touched
        full_U[:, active] = U
        U = full_U
    if target_mean is not None:
        if target_count == 0 and n:  # the first row's loss is that of predicting 0 + model
            p0, y0 = float(predictions[0, 0]), float(T[0, 0])
            true_loss = loss_and_derivative(loss, p0, y0, epsilon)[0]
            kernel_loss = loss_and_derivative(loss, p0, 0.0, epsilon)[0]
            total_loss += float(sample_weight[0]) * (true_loss - kernel_loss)
        target_mean = (float(sums[-1]), target_count + n)
    return U, curvature, t, total_loss, predictions, scores, target_mean

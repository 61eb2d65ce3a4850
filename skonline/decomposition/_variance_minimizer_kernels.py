"""Pure passes of online adaptive variance minimisation (OnlineVarianceMinimizer).

Yuan & Lamperski, "Online Adaptive Principal Component Analysis and Its
Extensions", ICML 2019: Algorithm 5 (unit sphere: matrix Hedge with fixed
share over the minimum-variance direction, eq. 24) and Algorithm 6
(probability simplex: exponentiated gradient with fixed share, eq. 31), with
the rates of Theorems 4-6. :func:`variance_pass` is pure: it returns a new
:class:`VarianceState` and never writes into the one it is given.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import OnlineState
from ..utils._rows import dense_row_blocks, prepare_rows
from ._capping_fast import fixed_share_step, spectral_step
from ._density_kernels import meg_eigen_step

__all__ = [
    "VarianceState",
    "simplex_step",
    "theory_variance_parameters",
    "variance_pass",
    "variance_rates",
]


def theory_variance_parameters(
    domain: str, n_features: int, horizon: float, loss_bound: float | None = None
) -> tuple[float, float]:
    """``(eta, fixed_share)`` of Theorems 4-6 for horizon ``T``.

    Sphere: ``fixed_share = 1/(T+1)``; without ``loss_bound`` Theorem 5,
    ``eta = sqrt(ln(n(1+T))/T)``; with ``L`` Theorem 4,
    ``eta = ln(1 + sqrt(2D/L))``, ``D = ln(n(1+T)) + 1``. Simplex (Theorem 6):
    ``fixed_share = 1/(T+1)``, ``c = sqrt(2 ln((1+T)n) + 2)/sqrt(L)``,
    ``eta = c/(1+c)``, with ``L = T`` unless given.
    """
    T, n = float(horizon), n_features
    share = 1.0 / (T + 1.0)
    ell = np.log(n * (1.0 + T))
    if domain == "sphere":
        if loss_bound is None:
            return float(np.sqrt(ell / T)), share
        return float(np.log1p(np.sqrt(2.0 * (ell + 1.0) / float(loss_bound)))), share
    L = T if loss_bound is None else float(loss_bound)
    c = np.sqrt(2.0 * ell + 2.0) / np.sqrt(L)
    return float(c / (1.0 + c)), share


def simplex_step(
    log_y: np.ndarray, grad: np.ndarray, learning_rate: float, fixed_share: float
) -> np.ndarray:
    """Eq. (31a-b): ``v ∝ y exp(-eta grad)``, ``y' = a/n + (1-a) v`` (``a``: the fixed share)."""
    return np.asarray(fixed_share_step(log_y - learning_rate * grad, fixed_share))


@dataclass(kw_only=True, eq=False)
class VarianceState(OnlineState):
    """Learned state of :class:`OnlineVarianceMinimizer`.

    Attributes
    ----------
    log_w : ndarray of shape (n,)
        Sphere: the log-eigenvalues of the density ``Y``; simplex: ``log y``.
    U : ndarray of shape (n, n) or None
        Sphere: the eigenvectors of ``Y`` (columns); ``None`` on the simplex.
    learning_rate, fixed_share : float
        The rates of the last step.
    """

    log_w: np.ndarray
    U: np.ndarray | None = None
    learning_rate: float = 0.0
    fixed_share: float = 0.0


def variance_rates(
    domain: str,
    n_features: int,
    t: int,
    *,
    learning_rate: float | str,
    fixed_share: float | str,
    horizon: int | None,
    loss_bound: float | None,
) -> tuple[float, float]:
    """The rates of step ``t``: numbers as given, "auto" from Theorems 4-6.

    Without a horizon the "auto" values use the doubling trick: ``T = 2^j``
    for ``t`` in ``[2^j, 2^(j+1))``.
    """
    T = horizon if horizon is not None else 1 << (int(t).bit_length() - 1)
    eta_t, share_t = theory_variance_parameters(domain, n_features, T, loss_bound)
    eta = eta_t if learning_rate == "auto" else learning_rate
    share = share_t if fixed_share == "auto" else fixed_share
    return float(eta), float(share)


def variance_pass(
    state: VarianceState,
    *,
    rows: Any = None,
    covariances: np.ndarray | None = None,
    domain: str,
    learning_rate: float | str,
    fixed_share: float | str,
    horizon: int | None = None,
    loss_bound: float | None = None,
    eigenvalue_floor: float = 0.0,
    row_norm: str = "none",
) -> tuple[VarianceState, np.ndarray]:
    """One step per row (``C_t = x xᵀ``) or per covariance; returns ``(new_state, losses)``.

    Each step pays the expected loss of the current choice (sphere:
    ``Tr(Y C_t)``; simplex: ``yᵀC_t y``), then updates (Yuan & Lamperski
    Alg. 5, eq. 24: ``Y <- (a/n) I + (1-a) exp(log Y - eta C_t)/Tr``; Alg. 6,
    eq. 31). Pure: ``state`` is never written into.

    Parameters
    ----------
    state : VarianceState
    rows : ndarray or sparse matrix of shape (m, n), optional
        Validated rows (exactly one of ``rows`` and ``covariances``).
    covariances : ndarray of shape (m, n, n), optional
        Validated symmetric positive semi-definite matrices.
    domain : {"sphere", "simplex"}
    learning_rate, fixed_share : float or "auto"
    horizon : int or None
        ``T`` for the "auto" rates (``None``: the doubling trick).
    loss_bound : float or None
    eigenvalue_floor : float
        Sphere: floor on the normalised eigenvalues before the fixed share.
    row_norm : {"none", "clip", "error"}

    Returns
    -------
    new_state : VarianceState
    losses : ndarray of shape (m,)
    """
    U, log_w = state.U, state.log_w
    n = log_w.shape[0]
    t = state.n_samples_seen
    rates: dict[str, Any] = dict(
        learning_rate=learning_rate, fixed_share=fixed_share, horizon=horizon, loss_bound=loss_bound
    )
    eta, share = variance_rates(domain, n, t + 1, **rates)
    floor = float(eigenvalue_floor)

    def steps() -> Iterator[tuple[np.ndarray | None, np.ndarray | None]]:
        if rows is not None:
            for _, block in dense_row_blocks(rows):
                for x in prepare_rows(block, row_norm):
                    yield x, None
        else:
            assert covariances is not None  # exactly one of rows and covariances
            for C in covariances:
                yield None, C

    losses = []
    for x, C in steps():
        t += 1
        if horizon is None and t & (t - 1) == 0:  # t is a power of two: a new epoch
            eta, share = variance_rates(domain, n, t, **rates)
        if domain == "sphere":
            assert U is not None  # the sphere's state holds the eigenvectors
            w = np.exp(log_w)
            if x is not None:
                z = U.T @ x
                loss = float(w @ (z * z))
                U, mu = meg_eigen_step(U, log_w, eta, z=z)
            else:
                G = U.T @ C @ U
                loss = float(w @ np.diag(G))
                U, mu = meg_eigen_step(U, log_w, eta, G=G)
            log_w = spectral_step(mu, 1, floor=floor, share_before_cap=share)
        else:
            yv = np.exp(log_w)
            if x is not None:
                r = float(x @ yv)
                loss, grad = r * r, x * r
            else:
                grad = C @ yv
                loss = float(yv @ grad)
            log_w = simplex_step(log_w, grad, eta, share)
        losses.append(loss)
    new = dataclasses.replace(
        state.copy(),
        U=U,
        log_w=log_w,
        n_samples_seen=t,
        learning_rate=eta,
        fixed_share=share,
    )
    out = np.asarray(losses, dtype=np.float64)
    new.record_losses(out)
    return new, out

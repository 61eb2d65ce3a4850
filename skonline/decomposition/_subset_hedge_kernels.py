"""Pure pass of the adaptive best subset of experts (AdaptiveSubsetHedge).

Yuan & Lamperski, "Online Adaptive Principal Component Analysis and Its
Extensions", ICML 2019, Algorithm 1 (capped Hedge with fixed share, eq. 4a-c);
with ``fixed_share=0`` it is Warmuth & Kuzmin's capped Hedge (JMLR 2008,
Algorithm 3). :func:`hedge_pass` is pure: it returns a new :class:`HedgeState`
and never writes into the one it is given.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..base import OnlineState
from ._capping_kernels import capped_hedge_step

__all__ = ["HedgeState", "hedge_pass"]


@dataclass(kw_only=True, eq=False)
class HedgeState(OnlineState):
    """Learned state of :class:`AdaptiveSubsetHedge`.

    Attributes
    ----------
    log_w : ndarray of shape (n_experts,)
        Logs of the capped weights ``w``.
    """

    log_w: np.ndarray


def hedge_pass(
    state: HedgeState,
    loss_vectors: np.ndarray,
    *,
    n_kept: int,
    learning_rate: float,
    fixed_share: float,
) -> tuple[HedgeState, np.ndarray]:
    """One step of Alg. 1 per loss vector; returns ``(new_state, expected_losses)``.

    Each step pays ``(n-k) wᵀl`` under the current weights, then updates them
    (eq. 4a-c, :func:`skonline.decomposition._capping_kernels.capped_hedge_step`). Pure:
    ``state`` is never written into.
    """
    L = np.ascontiguousarray(loss_vectors, dtype=np.float64)
    d = L.shape[1] - n_kept
    log_w = state.log_w
    losses = np.empty(L.shape[0])
    for i, loss_vector in enumerate(L):
        losses[i] = d * float(np.exp(log_w) @ loss_vector)
        log_w = capped_hedge_step(
            log_w, loss_vector, float(learning_rate), d, fixed_share=float(fixed_share)
        )
    new = dataclasses.replace(
        state.copy(), log_w=log_w, n_samples_seen=state.n_samples_seen + L.shape[0]
    )
    new.record_losses(losses)
    return new, losses

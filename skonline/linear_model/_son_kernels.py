"""Kernel of the sketched online Newton step (SON): one ordered pass over the rows.

Luo, Chen, Zhang, Li & Zhang, "Robust Frequent Directions with Application in
Online Learning", JMLR 20 (2019): Algorithm 6 (RFD-SON with the doubling
buffer) in the SON order of Luo et al. (2016): per row, project the current
``u`` onto ``K_t = {w : |wᵀx_t| ≤ C}`` in the ``H^(t−1)``-norm, predict
``p = wᵀx_t`` (test-then-train bookkeeping), take the loss gradient
``g = l'(p) x_t``, add ``sqrt(μ + η_t) g`` to the curvature, and step
``u ← w − H^(t)⁻¹ g``. The curvature back-ends live in ``_curvature.py``.
"""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp

from ._losses import loss_and_derivative

__all__ = ["auto_mu", "son_pass"]


def auto_mu(loss, bound, epsilon=1.0):
    """Assumption 2's constant ``μ = min l'' / max l'²`` (Luo et al. 2019, §3.1).

    Squared loss on ``|p|, |y| ≤ C``: ``1/(8C²)`` (the paper's constant, §3.1);
    logistic: ``e^{−C}``; Huber: ``1/ε²``, the constant of its quadratic zone
    ``|p − y| ≤ ε`` (where ``l'' = 1`` and ``l'² ≤ ε²``), whatever the bound;
    hinge, smooth hinge, or no bound: 0.
    """
    if loss == "huber":
        return 1.0 / (epsilon * epsilon)
    if bound is None:
        return 0.0
    if loss == "squared_error":
        return 1.0 / (8.0 * bound * bound)
    if loss == "log_loss":
        return float(np.exp(-bound))
    return 0.0


def son_pass(
    U,
    curvatures,
    Xa,
    T,
    sw,
    t,
    total_loss,
    *,
    loss,
    bound,
    mu,
    learning_rate,
    epsilon,
    skip_zero_rows,
):
    """One ordered pass of the online Newton step over the rows (paper Alg. 6, SON order).

    A pure kernel: ``U`` and ``curvatures`` are copied, never written into.

    Parameters
    ----------
    U : ndarray of shape (n_models, d)
        Current iterates ``u`` (one per one-vs-rest model).
    curvatures : list of curvature back-ends (``_curvature``)
    Xa : ndarray or CSR matrix of shape (n, d)
        Rows, intercept column included (C-contiguous float64 when dense).
    T : ndarray of shape (n, n_models)
        Targets (``±1`` for classification).
    sw : ndarray of shape (n,)
        Positive sample weights.
    t : int
        Rows seen before this pass (``η_t = learning_rate / t``, 1-based).
    total_loss : float
        Running loss sum (continued, so any split of a stream adds up the same).
    loss, bound, mu, learning_rate, epsilon, skip_zero_rows
        As the estimators' parameters (``mu`` resolved to a number).

    Returns
    -------
    U, curvatures, t, total_loss, predictions, scores
        New iterates and back-ends, the time index and the running loss after
        the pass, and per row and model ``p_t = clip(u_tᵀx_t, −C, C)`` and
        ``u_tᵀx_t``.
    """
    U, curvatures = U.copy(), copy.deepcopy(curvatures)
    n, d = Xa.shape
    K = U.shape[0]
    C = None if bound is None else float(bound)
    predictions = np.empty((n, K))
    scores = np.empty((n, K))
    sparse = sp.issparse(Xa)
    x = np.zeros(d)
    for i in range(n):
        if sparse:
            lo, hi = Xa.indptr[i], Xa.indptr[i + 1]
            x[:] = 0.0
            x[Xa.indices[lo:hi]] = Xa.data[lo:hi]
        else:
            x = Xa[i]
        t += 1
        c = mu + learning_rate / t
        for k in range(K):
            u, cur = U[k], curvatures[k]
            Bx = cur.Bdot(x)
            z = float(u @ x)
            w = u if C is None else cur.project(u, x, z, C, Bx)
            # wᵀx of the projected w is exactly clip(z, −C, C) (closed form of the
            # projection); use it rather than the rounded product, which decides hinge
            # kinks by noise.
            p = z if C is None else min(max(z, -C), C)
            predictions[i, k], scores[i, k] = p, z
            value, deriv = loss_and_derivative(loss, p, T[i, k], epsilon)
            total_loss += sw[i] * value
            scale = sw[i] * deriv
            if scale == 0.0 and skip_zero_rows:
                U[k] = w
                continue
            g = scale * x
            Bg = cur.update(g, c, None if Bx is None else scale * Bx)
            U[k] = w - cur.newton_direction(g, Bg)
    return U, curvatures, t, total_loss, predictions, scores

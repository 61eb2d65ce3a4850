"""The loss table transcribed in NumPy: the reference the compiled table is tested against.

Each loss is a function of a scalar prediction ``p`` and a target ``y``
(``±1`` for the classification losses) returning ``(l(p; y), l'(p; y))`` on
Python floats (see :mod:`skonline.linear_model._losses` for the table).
:func:`loss_and_derivative` evaluates one scalar prediction;
:func:`loss_and_derivatives` the ``K`` outputs of a row at once, plus
``"multinomial"``, the softmax cross-entropy of a one-hot ``±1`` target.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit


def loss_and_derivative(loss, p, y, epsilon=0.0):
    """``(l(p; y), l'(p; y))`` of one scalar prediction, on Python floats.

    Parameters
    ----------
    loss : str
        A name of the table above.
    p, y : float
        Prediction and target (``±1`` for classification losses).
    epsilon : float, default=0.0
        Threshold of ``"huber"`` and ``"epsilon_insensitive"``.
    """
    p, y = float(p), float(y)
    if loss == "squared_error":
        r = p - y
        return r * r, 2.0 * r
    if loss == "log_loss":
        m = y * p
        if m > 0.0:
            e = math.exp(-m)
            return math.log1p(e), -y * e / (1.0 + e)
        e = math.exp(m)
        return math.log1p(e) - m, -y / (1.0 + e)
    if loss == "hinge":
        m = y * p
        return (1.0 - m, -y) if m < 1.0 else (0.0, 0.0)
    if loss == "smooth_hinge":
        m = y * p
        if m >= 1.0:
            return 0.0, 0.0
        if m <= 0.0:
            return 0.5 - m, -y
        return 0.5 * (1.0 - m) ** 2, -y * (1.0 - m)
    r = p - y
    sign = float((r > 0.0) - (r < 0.0))
    if loss == "huber":
        if abs(r) <= epsilon:
            return 0.5 * r * r, r
        return epsilon * (abs(r) - 0.5 * epsilon), epsilon * sign
    if loss == "absolute_error":
        return abs(r), sign
    if loss == "epsilon_insensitive":
        excess = abs(r) - epsilon
        return (excess, sign) if excess > 0.0 else (0.0, 0.0)
    raise ValueError(f"unknown loss {loss!r}")  # pragma: no cover - validated


def loss_and_derivatives(loss, p, y, epsilon=0.0):
    """``(Σ_k l(p_k; y_k), [l'(p_k; y_k)]_k)`` of the ``K`` outputs of one row.

    The vector form of :func:`loss_and_derivative`, plus ``"multinomial"``
    (module docstring).

    Parameters
    ----------
    loss : str
        A name of the table, or ``"multinomial"``.
    p, y : ndarray of shape (K,)
        Predictions and targets (``±1`` for classification losses, one-hot
        ``±1`` for ``"multinomial"``).
    epsilon : float, default=0.0
        Threshold of ``"huber"`` and ``"epsilon_insensitive"``.

    Returns
    -------
    value : float
        The summed loss of the outputs.
    derivatives : ndarray of shape (K,)
        ``∂l/∂p_k`` of each output.
    """
    if loss == "log_loss":
        m = y * p
        return float(np.logaddexp(0.0, -m).sum()), -y * expit(-m)
    if loss == "hinge":
        m = y * p
        active = m < 1.0  # the kink (m = 1) takes l' = 0
        return float(np.where(active, 1.0 - m, 0.0).sum()), np.where(active, -y, 0.0)
    if loss == "smooth_hinge":
        m = y * p
        value = np.where(m >= 1.0, 0.0, np.where(m <= 0.0, 0.5 - m, 0.5 * (1.0 - m) ** 2))
        slope = np.where(m >= 1.0, 0.0, np.where(m <= 0.0, -y, -y * (1.0 - m)))
        return float(value.sum()), slope
    if loss == "multinomial":
        z = p - p.max()
        log_prob = z - math.log(float(np.exp(z).sum()))
        onehot = y > 0
        return float(-log_prob[onehot].sum()), np.exp(log_prob) - onehot
    r = p - y
    if loss == "squared_error":
        return float((r * r).sum()), 2.0 * r
    if loss == "huber":
        a = np.abs(r)
        value = np.where(a <= epsilon, 0.5 * r * r, epsilon * (a - 0.5 * epsilon))
        return float(value.sum()), np.clip(r, -epsilon, epsilon)
    if loss == "absolute_error":
        return float(np.abs(r).sum()), np.sign(r)
    if loss == "epsilon_insensitive":
        excess = np.abs(r) - epsilon
        return float(np.maximum(excess, 0.0).sum()), np.where(excess > 0.0, np.sign(r), 0.0)
    raise ValueError(f"unknown loss {loss!r}")  # pragma: no cover - validated

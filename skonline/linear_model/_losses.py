"""The one loss table of skonline's online linear models.

Each loss is a function of a scalar prediction ``p`` and a target ``y``
(``±1`` for the classification losses) returning ``(l(p; y), l'(p; y))`` on
Python floats. Names are scikit-learn's where scikit-learn has the loss.

=====================  ===========================================  =============
name                   ``l(p; y)``                                  Lipschitz
=====================  ===========================================  =============
``squared_error``      ``(p − y)²`` (the sketched Newton papers')   no
``log_loss``           ``log(1 + exp(−y p))``                       1
``hinge``              ``max(0, 1 − y p)`` (``l' = 0`` at the kink)   1
``smooth_hinge``       ``½ − yp`` (yp ≤ 0), ``½(1 − yp)²`` (< 1), 0  1
``huber``              ``½r²`` (``|r| ≤ ε``), ``ε(|r| − ½ε)``        ``ε``
``absolute_error``     ``|p − y|``                                  1
``epsilon_insensitive``  ``max(0, |p − y| − ε)``                    1
=====================  ===========================================  =============
"""

from __future__ import annotations

import math

__all__ = ["CLASSIFICATION_LOSSES", "REGRESSION_LOSSES", "loss_and_derivative"]

CLASSIFICATION_LOSSES = ("log_loss", "hinge", "smooth_hinge", "squared_error")
REGRESSION_LOSSES = ("squared_error", "huber", "absolute_error", "epsilon_insensitive")


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

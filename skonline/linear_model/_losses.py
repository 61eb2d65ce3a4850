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

The formulas exist once, as the ``cdef inline`` functions of ``_loss.pxd``
that the compiled passes cimport; this module reaches the same code through
the wrappers of ``_loss.pyx``.

:func:`loss_and_derivative` evaluates one scalar prediction;
:func:`loss_and_derivatives` evaluates the ``K`` outputs of a row at once
(the sum of the losses and the array of derivatives), and adds
``"multinomial"``, the softmax cross-entropy of ``K ≥ 3`` outputs with a
one-hot ``±1`` target: ``l(p; y) = −log softmax(p)_k`` for the class ``k``
with ``y_k = +1``, ``∂l/∂p_j = softmax(p)_j − 1[j = k]`` (each in
``[−1, 1]``).
"""

from __future__ import annotations

import numpy as np

from ._loss import LOSS_CODES, elementwise_loss, scalar_loss, softmax_loss

__all__ = [
    "CLASSIFICATION_LOSSES",
    "LOSS_CODES",
    "REGRESSION_LOSSES",
    "loss_and_derivative",
    "loss_and_derivatives",
]

CLASSIFICATION_LOSSES = ("log_loss", "hinge", "smooth_hinge", "squared_error")
REGRESSION_LOSSES = ("squared_error", "huber", "absolute_error", "epsilon_insensitive")


def _code(loss: str, *, multinomial: bool = False) -> int:
    if loss not in LOSS_CODES or (loss == "multinomial" and not multinomial):
        raise ValueError(f"unknown loss {loss!r}")
    return int(LOSS_CODES[loss])


def loss_and_derivative(loss: str, p: float, y: float, epsilon: float = 0.0) -> tuple[float, float]:
    """``(l(p; y), l'(p; y))`` of one scalar prediction, on Python floats.

    Parameters
    ----------
    loss : str
        A name of the table above.
    p, y : float
        Prediction and target (``±1`` for classification losses).
    epsilon : float, default=0.0
        Threshold of ``"huber"`` and ``"epsilon_insensitive"``.

    Returns
    -------
    value, derivative : float
        ``l(p; y)`` and ``l'(p; y)``.
    """
    value, deriv = scalar_loss(_code(loss), float(p), float(y), float(epsilon))
    return float(value), float(deriv)


def loss_and_derivatives(
    loss: str, p: np.ndarray, y: np.ndarray, epsilon: float = 0.0
) -> tuple[float, np.ndarray]:
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
    code = _code(loss, multinomial=True)
    p = np.ascontiguousarray(p, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if loss == "multinomial":
        value, derivatives = softmax_loss(p, y)
        return float(value), derivatives
    values, derivatives = elementwise_loss(code, p, y, float(epsilon))
    return float(values.sum()), derivatives

"""The NumPy transcription of the online temperature map, kept as the reference of
the compiled loop (``skonline.linear_model._calibration_fast.temperature_steps``)."""

import math

import numpy as np

MIN_SLOPE = 1e-6


def temperature_pass_reference(calibration, scores, T, sample_weight):
    """One Newton step per row on the log-loss of ``σ(a f)`` / ``softmax(a f)``."""
    a, h = (float(v) for v in calibration)
    scores = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(T) > 0
    weights = np.asarray(sample_weight, dtype=np.float64).tolist()
    if scores.shape[1] == 1:  # binary: σ(a f)
        for f, y, c in zip(scores[:, 0].tolist(), positive[:, 0].tolist(), weights, strict=True):
            if not math.isfinite(f):
                continue
            z = a * f
            p = 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))
            h += c * p * (1.0 - p) * f * f
            a = max(a - c * (p - (1.0 if y else 0.0)) * f / h, MIN_SLOPE)
        return np.array([a, h])
    for f, y, c in zip(scores, positive, weights, strict=True):
        if not np.all(np.isfinite(f)):
            continue
        z = a * f
        e = np.exp(z - z.max())
        p = e / e.sum()
        mean = float(p @ f)
        h += c * max(float(p @ (f * f)) - mean * mean, 0.0)
        a = max(a - c * (mean - float(f[y].sum())) / h, MIN_SLOPE)
    return np.array([a, h])


def platt_pass_reference(calibration, scores, T, sample_weight):
    """Online Platt scaling of binary scores: one Newton step per row on ``σ(a f + b)``."""
    theta = np.array(calibration[:2], dtype=np.float64)
    H = np.array([[calibration[2], calibration[3]], [calibration[3], calibration[4]]], dtype=float)
    scores = np.asarray(scores, dtype=np.float64)[:, 0]
    positive = (np.asarray(T) > 0)[:, 0]
    weights = np.asarray(sample_weight, dtype=np.float64)
    for f, y, c in zip(scores.tolist(), positive.tolist(), weights.tolist(), strict=True):
        if not math.isfinite(f):
            continue
        z = theta[0] * f + theta[1]
        p = 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))
        x = np.array([f, 1.0])
        H += c * p * (1.0 - p) * np.outer(x, x)
        if np.linalg.det(H) > 0:
            step = theta - np.linalg.solve(H, c * (p - float(y)) * x)
            if np.all(np.isfinite(step)):
                theta = np.array([max(step[0], MIN_SLOPE), step[1]])
    return np.r_[theta, H[0, 0], H[0, 1], H[1, 1]]


def score_targets(labels, n_scores):
    """Targets ``±1`` of shape (n, n_scores): binary (one score) or one-vs-rest."""
    T = -np.ones((len(labels), n_scores))
    if n_scores == 1:
        T[labels == 1, 0] = 1.0
    else:
        T[np.arange(len(labels)), labels] = 1.0
    return T

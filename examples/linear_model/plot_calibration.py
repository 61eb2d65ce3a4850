"""
=========================================================
Calibrated probabilities of the online linear classifiers
=========================================================

:class:`~skonline.linear_model.RFDSONClassifier` with the paper's constraint
``|wᵀx| ≤ C`` (``bound=2``, which its regret bound needs) and read through the
paper's link, ``σ(clip(f, −2, 2))``, has probabilities that can never leave
``[0.12, 0.88]``, however sure the model is. Its default has no bound, but
its raw scores are no better read directly.
:class:`~skonline.linear_model.ScaleInvariantClassifier` has no bound, but its
scores are those of an unregularised online logistic regression, and
``σ(f)`` is over-confident while it learns.

Both read their scores through an online calibration map learned from each
row's score *before* the row was learned: RFD-SON through online Platt scaling
``σ(a g + b)`` (``calibration="platt"``, its default; ``g`` the score softly
bounded by ``C``, or by 5 without a bound), whose intercept corrects the learner's bias on an
imbalanced stream and whose log-odds become ``decision_function``; the
scale-invariant learner through the temperature map ``σ(a f)``
(``calibration="temperature"``, its default), which leaves
``decision_function`` and ``predict`` as they were. The learner itself does
not change.

Each row of an imbalanced stream — digit 8 against the other digits (10 %
positives), in a random order — is predicted by the model learned on the rows
before it (prequential evaluation), then learned. The calibration curves
(:func:`sklearn.calibration.calibration_curve`) of those predictions compare
the paper's link with the calibrated map.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.datasets import load_digits
from sklearn.metrics import log_loss

from skonline.linear_model import RFDSONClassifier, ScaleInvariantClassifier

X, digit = load_digits(return_X_y=True)
y = (digit == 8).astype(int)
order = np.random.default_rng(0).permutation(len(y))
X, y = X[order], y[order]


def prequential_proba(estimator, batch_size=10):
    """P(y = 1) of each row (after the first batch) by the model learned before it."""
    proba = []
    for start in range(0, len(y), batch_size):
        rows = slice(start, start + batch_size)
        if start:
            proba.append(estimator.predict_proba(X[rows])[:, 1])
        estimator.partial_fit(X[rows], y[rows], classes=[0, 1])
    return np.concatenate(proba)


scored = y[10:]
models = {
    "RFD-SON, paper's link (bound 2)": RFDSONClassifier(calibration=None, bound=2.0),
    "RFD-SON, calibrated": RFDSONClassifier(),
    "scale-invariant, own link": ScaleInvariantClassifier(calibration=None),
    "scale-invariant, calibrated": ScaleInvariantClassifier(),
}
fig, ax = plt.subplots(figsize=(6, 5))
ax.plot([0, 1], [0, 1], "k:", label="perfectly calibrated")
for (name, model), style in zip(models.items(), ["C0--", "C0-", "C1--", "C1-"], strict=True):
    p = prequential_proba(model)
    frac, mean = calibration_curve(scored, p, n_bins=10, strategy="quantile")
    ax.plot(mean, frac, style, marker="o", label=f"{name} (log-loss {log_loss(scored, p):.3f})")
base = np.cumsum(np.r_[1, y[:-1]])[10:] / (np.arange(10, len(y)) + 2)  # running frequency
ax.set(
    xlabel="predicted probability (prequential)",
    ylabel="observed frequency of digit 8",
    title=f"Digit 8 vs rest (class frequency's log-loss {log_loss(scored, base):.3f})",
)
ax.legend(loc="upper left", fontsize=8)
fig.tight_layout()
plt.show()

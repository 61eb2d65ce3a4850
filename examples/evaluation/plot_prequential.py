"""
=====================================================
Choosing an online learner: prequential curves
=====================================================

How does an online learner do on *your* stream? Score each batch with the
model learned so far, then learn it: the prequential (test-then-train) curve
of :func:`~skonline.evaluation.prequential_score`, drawn by
:class:`~skonline.evaluation.PrequentialDisplay`. Every row is scored once, by
a model that never saw it.

Here skonline's online linear learners with their defaults run next to the
peer a user would pick instead — ``SGDClassifier`` / ``SGDRegressor`` behind a
``StandardScaler`` in an online pipeline (both learn every batch, see
:func:`~skonline.pipeline.make_online_pipeline`) — and the running
baseline (majority class, mean target), on scikit-learn's bundled data.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.preprocessing import StandardScaler

from skonline.datasets import make_drifting_stream
from skonline.evaluation import PrequentialDisplay
from skonline.linear_model import (
    RFDSONClassifier,
    RFDSONRegressor,
    ScaleInvariantClassifier,
    ScaleInvariantRegressor,
)
from skonline.pipeline import make_online_pipeline

rng = np.random.default_rng(0)

# %%
# Classification: breast cancer, raw features, rows in random order
# -----------------------------------------------------------------
# No scaler in front of the skonline learners. The dashed grey line is the
# running majority class, shared by the three (one stream).
X, y = load_breast_cancer(return_X_y=True)
order = rng.permutation(len(y))
fig, ax = plt.subplots(figsize=(6.4, 4))
PrequentialDisplay.from_estimator(
    {
        "RFDSONClassifier()": RFDSONClassifier(),
        "ScaleInvariantClassifier()": ScaleInvariantClassifier(),
        "SGDClassifier + scaler": make_online_pipeline(
            StandardScaler(), SGDClassifier(random_state=0)
        ),
    },
    X[order],
    y[order],
    batch_size=10,
    baseline=True,
    ax=ax,
)
ax.set_ylim(0.5, 1.0)
ax.set_title("breast cancer: cumulative prequential accuracy")

# %%
# Regression: diabetes, targets far from 0
# ----------------------------------------
# Mean absolute error (negated: higher is better, as every scikit-learn
# score). The dashed line is the running mean of the targets.
X, y = load_diabetes(return_X_y=True)
order = rng.permutation(len(y))
fig, ax = plt.subplots(figsize=(6.4, 4))
PrequentialDisplay.from_estimator(
    {
        "RFDSONRegressor()": RFDSONRegressor(),
        "ScaleInvariantRegressor()": ScaleInvariantRegressor(),
        "SGDRegressor + scaler": make_online_pipeline(
            StandardScaler(), SGDRegressor(random_state=0)
        ),
    },
    X[order],
    y[order],
    batch_size=10,
    baseline=True,
    ax=ax,
)
ax.set_ylim(-120, -30)
ax.set_title("diabetes: cumulative prequential − MAE")

# %%
# Drift: the accuracy of each batch
# ---------------------------------
# A linear concept that changes halfway through the stream
# (:func:`~skonline.datasets.make_drifting_stream`). ``kind="batch"`` plots the
# accuracy of every batch: the drop at the change, and how fast each learner
# recovers, are read off the curve. ``ScaleInvariantClassifier()`` runs, by
# default (``forgetting_factor="auto"``), the paper's learner and one that
# forgets (a memory of about 200 rows) and mixes their probabilities by their
# log-loss so far: after the change the forgetting learner takes over. With
# ``forgetting_factor=1.0`` (the paper's learner alone) it averages the two
# concepts and recovers slowly.
X, y, concept = make_drifting_stream(2000, 10, n_concepts=2, random_state=0)
fig, ax = plt.subplots(figsize=(6.4, 4))
PrequentialDisplay.from_estimator(
    {
        "ScaleInvariantClassifier()": ScaleInvariantClassifier(),
        "ScaleInvariantClassifier(forgetting_factor=1.0)": ScaleInvariantClassifier(
            forgetting_factor=1.0
        ),
        "RFDSONClassifier()": RFDSONClassifier(),
        "SGDClassifier + scaler": make_online_pipeline(
            StandardScaler(), SGDClassifier(random_state=0)
        ),
    },
    X,
    y,
    batch_size=50,
    kind="batch",
    ax=ax,
)
ax.axvline(np.flatnonzero(concept == 1)[0], color="gray", linestyle=":")
ax.set_title("a drifting concept: accuracy of each batch")
plt.show()

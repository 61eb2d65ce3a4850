"""
=======================================================
Three models compared on a CSV read in chunks, one pass
=======================================================

A stream that lives in a file is read once. Given several estimators (a dict
``{name: estimator}``), :func:`~skonline.evaluation.prequential_score` reads
each chunk once and scores it with every estimator before any of them learns
it; each estimator's result is exactly what a run with it alone would give.
:class:`~skonline.evaluation.PrequentialDisplay` does the same and draws one
line per estimator.

The file here is scikit-learn's bundled breast-cancer data written to a
temporary CSV (rows shuffled), read back with ``pd.read_csv(path,
chunksize=50)``; ``target="target"`` names the column that holds the labels.
"""

# %%
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import SGDClassifier

from skonline.evaluation import PrequentialDisplay, prequential_score
from skonline.linear_model import RFDSONClassifier, ScaleInvariantClassifier

frame = load_breast_cancer(as_frame=True).frame.sample(frac=1.0, random_state=0)
tmp = tempfile.TemporaryDirectory()
path = Path(tmp.name) / "breast_cancer.csv"
frame.to_csv(path, index=False)

models = {
    "RFDSONClassifier": RFDSONClassifier(),
    "ScaleInvariantClassifier": ScaleInvariantClassifier(),
    "SGDClassifier": SGDClassifier(loss="log_loss", random_state=0),
}

# %%
# One pass over the file for the three models
# -------------------------------------------
# A reader does not know the classes in advance: ``classes=`` gives them. The
# result is a dict with one result per model, the same ``Bunch`` a run of one
# model returns. The three learners get the raw features: the scale-invariant
# learners need no scaler, SGD does (its accuracy shows it).
with pd.read_csv(path, chunksize=50) as reader:
    results = prequential_score(
        models,
        reader,
        target="target",
        classes=[0, 1],
        scoring=["accuracy", "neg_log_loss"],
        baseline=True,
    )
for name, res in results.items():
    print(
        f"{name:>25}: accuracy {res.cumulative_accuracy[-1]:.3f}, "
        f"log loss {-res.cumulative_neg_log_loss[-1]:.3f} "
        f"over {res.n_samples_seen[-1]} rows"
    )

# %%
# The curves
# ----------
# The display runs the same single pass; the dashed grey line is the running
# majority class, shared by the three (one stream).
fig, ax = plt.subplots(figsize=(6.4, 4))
with pd.read_csv(path, chunksize=50) as reader:
    PrequentialDisplay.from_estimator(
        models, reader, target="target", classes=[0, 1], baseline=True, ax=ax
    )
ax.set_ylim(0.5, 1.0)
ax.set_title("breast cancer from a CSV in chunks: cumulative accuracy")
plt.show()
tmp.cleanup()

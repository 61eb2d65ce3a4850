"""
=================================================================
Streaming workflow: a file, online pipelines, four models, a plot
=================================================================

The whole streaming workflow, offline:

1. a stream that lives in a file, read in chunks with
   ``pd.read_csv(path, chunksize=...)`` (here scikit-learn's bundled
   breast-cancer data, rows shuffled, written to a temporary CSV);
2. models that learn online, scalers included: an online pipeline
   (:func:`~skonline.pipeline.make_online_pipeline`) in which every step
   learns from every batch;
3. several models compared **prequentially in one pass** over the file:
   :func:`~skonline.evaluation.prequential_score` reads each chunk once and
   scores it with every model before any of them learns it; each model's
   result is exactly what a run with it alone would give;
4. a plot of the running scores
   (:class:`~skonline.evaluation.PrequentialDisplay`).
"""

# %%
# The file
# --------
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import SGDClassifier
from sklearn.preprocessing import StandardScaler

from skonline.evaluation import PrequentialDisplay, prequential_score
from skonline.linear_model import RFDSONClassifier, ScaleInvariantClassifier
from skonline.pipeline import make_online_pipeline

frame = load_breast_cancer(as_frame=True).frame.sample(frac=1.0, random_state=0)
tmp = tempfile.TemporaryDirectory()
path = Path(tmp.name) / "breast_cancer.csv"
frame.to_csv(path, index=False)

# %%
# The models
# ----------
# SGD needs its features on a common scale: behind an online ``StandardScaler``
# whose mean and variance are those of the rows seen so far. The
# scale-invariant learner needs no scaler; the sketched Newton classifier fixes
# its own feature scales, and is shown behind the scaler as well.
models = {
    "StandardScaler + SGDClassifier": make_online_pipeline(
        StandardScaler(), SGDClassifier(loss="log_loss", random_state=0)
    ),
    "StandardScaler + RFDSONClassifier": make_online_pipeline(StandardScaler(), RFDSONClassifier()),
    "ScaleInvariantClassifier": ScaleInvariantClassifier(),
    "SGDClassifier, no scaler": SGDClassifier(loss="log_loss", random_state=0),
}

# %%
# One pass over the file for every model
# --------------------------------------
# A reader does not know the classes in advance: ``classes=`` gives them, and
# ``target=`` names the column of the labels. The result is a dict with one
# result per model, the ``Bunch`` a run of one model returns.
with pd.read_csv(path, chunksize=50) as reader:
    results = prequential_score(
        models,
        reader,
        target="target",
        classes=[0, 1],
        scoring=["accuracy", "neg_log_loss", "roc_auc"],
        baseline=True,
    )
for name, res in results.items():
    print(
        f"{name:>34}: accuracy {res.cumulative_accuracy[-1]:.3f}, "
        f"log loss {-res.cumulative_neg_log_loss[-1]:.3f}, "
        f"ROC AUC {res.cumulative_roc_auc[-1]:.3f} over {res.n_samples_seen[-1]} rows"
    )

# %%
# The curves
# ----------
# The display runs the same single pass; the dashed grey line is the running
# majority class, shared by all (one stream).
fig, ax = plt.subplots(figsize=(6.4, 4))
with pd.read_csv(path, chunksize=50) as reader:
    PrequentialDisplay.from_estimator(
        models, reader, target="target", classes=[0, 1], baseline=True, ax=ax
    )
ax.set_ylim(0.5, 1.0)
ax.set_title("breast cancer from a CSV in chunks: cumulative accuracy")
plt.show()
tmp.cleanup()

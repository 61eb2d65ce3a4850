"""The real-data scoreboard: every skonline estimator with its defaults against the peers.

Usage::

    python benchmarks/bench_real_data.py                 # full run (about 15 minutes on 2 cores)
    python benchmarks/bench_real_data.py --smoke         # a few seconds (CI)
    python benchmarks/bench_real_data.py --docs doc/scoreboard   # also write the docs' tables

Every method is evaluated prequentially (test-then-train,
:func:`skonline.evaluation.prequential_score`) on the same batches, over
several row orders, on two sources of data only: the datasets scikit-learn
bundles (breast_cancer, wine, iris, digits, diabetes, linnerud) and the
generated streams of :mod:`skonline.datasets` (drifting concepts, rescaled
columns, switching subspaces, digits grouped by class, noisy curves, topic
documents) and sparse rows built here (real-valued CSR rows, one-hot codes of
digits). No download happens.

One table per task. Each cell is the mean over the row orders of the
cumulative prequential score, with the spread (max − min) over the orders.
Columns: each skonline estimator with its **defaults**; a tuned setting where
it differs; the peer a user would pick instead (``SGDClassifier`` /
``SGDRegressor`` / ``Perceptron`` behind a ``StandardScaler``, both
partial-fitted on the prefix; River's scaled logistic / linear regression
when installed; ``IncrementalPCA``; PCA of a sliding window; batch
references refitted on the prefix: scaled ``RidgeCV`` and a Hastie–Stuetzle
curve); the prefix majority / mean
baseline. Below each table, the verdict of each skonline default against the
best peer and the baseline, in words. Nothing is asserted here.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from _common import environment, linear_stream, load_average, log, parse_args, source_digests
from _peers import (
    PrefixCurve,
    PrefixRidgeCV,
    RiverClassifier,
    RiverRegressor,
    ScaledModel,
    WindowPCA,
    river_available,
)
from sklearn import datasets as skdata
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.decomposition import IncrementalPCA
from sklearn.linear_model import Perceptron, SGDClassifier, SGDRegressor

import skonline
from skonline.datasets import (
    make_curve_stream,
    make_digits_stream,
    make_drifting_stream,
    make_switching_subspaces,
    rescale_columns,
)
from skonline.evaluation import prequential_score

MEASURED_MODULES = [
    "skonline.linear_model._son",
    "skonline.linear_model._scale_invariant",
    "skonline.decomposition._frequent_directions",
    "skonline.decomposition._online_pca",
    "skonline.manifold._principal_curve",
    "skonline.manifold._principal_curve_kernels",
    "skonline.evaluation._prequential",
]


# ------------------------------------------------------------------ data
@dataclass
class Stream:
    name: str
    X: np.ndarray
    y: np.ndarray | None = None
    shuffle: bool = True  # False for streams whose order is the point (drift)
    note: str = ""
    extra: dict = field(default_factory=dict)


def _bundled(loader, **kw):
    X, y = loader(return_X_y=True, **kw)
    return np.asarray(X, dtype=np.float64), y


def _with_rescaled(out, smoke, n_smoke):
    """The streams and their copies in other units (every column × 10^U(−4, 4)).

    ``smoke``: the first ``n_smoke`` streams, 150 rows each.
    """
    rescaled = []
    for s in out:
        Xr, _ = rescale_columns(s.X, log10_range=4.0, random_state=1)
        rescaled.append(Stream(f"{s.name}, rescaled", Xr, s.y, shuffle=s.shuffle))
    out = out + rescaled
    if smoke:
        return [Stream(s.name, s.X[:150], s.y[:150], s.shuffle) for s in out[:n_smoke]]
    return out


# ------------------------------------------------------ drifting streams
def rotating_stream(n_samples, n_features, task, random_state, turns=0.5, noise=0.1):
    """A concept that drifts slowly: the weight vector turns by ``turns`` of a circle.

    Features as :func:`make_drifting_stream` (uncentred, uneven units); the
    weights ``w_t = cos(θ_t) a + sin(θ_t) b`` (``a ⊥ b`` of equal norm, in the
    units of the standardised features), ``θ_t`` from 0 to ``2π · turns``.
    """
    rng = np.random.default_rng(random_state)
    means = rng.uniform(-3, 3, n_features)
    scales = 10 ** rng.uniform(-1, 1, n_features)
    Z = rng.standard_normal((n_samples, n_features))
    a, b = rng.standard_normal(n_features), rng.standard_normal(n_features)
    b -= a * (a @ b) / (a @ a)
    b *= np.linalg.norm(a) / np.linalg.norm(b)
    theta = np.linspace(0.0, 2.0 * np.pi * turns, n_samples)[:, None]
    score = np.einsum("ij,ij->i", Z, np.cos(theta) * a + np.sin(theta) * b)
    score = score + noise * rng.standard_normal(n_samples)
    y = (score > 0).astype(int) if task == "classification" else 10.0 + score
    return means + scales * Z, y


def drifting_streams(task):
    """Concept switches (seeds 0–2) and slow rotations (seeds 0–1), in stream order."""
    out = []
    for seed in range(3):
        X, y, _ = make_drifting_stream(2000, 10, task=task, n_concepts=2, random_state=seed)
        name = "drifting (2 concepts)" if seed == 0 else f"drifting (2 concepts, seed {seed})"
        out.append(Stream(name, X, y, shuffle=False))
    for seed in range(2):
        X, y = rotating_stream(3000, 10, task, seed)
        out.append(Stream(f"rotating concept (seed {seed})", X, y, shuffle=False))
    return out


def classification_streams(smoke):
    out = []
    for name, loader in (
        ("breast_cancer", skdata.load_breast_cancer),
        ("wine", skdata.load_wine),
        ("iris", skdata.load_iris),
        ("digits", skdata.load_digits),
    ):
        X, y = _bundled(loader)
        out.append(Stream(name, X, y))
    out.extend(drifting_streams("classification"))
    return _with_rescaled(out, smoke, n_smoke=2)


def regression_streams(smoke):
    X, y = _bundled(skdata.load_diabetes)
    out = [Stream("diabetes", X, y)]
    Xl, Yl = skdata.load_linnerud(return_X_y=True)
    for j, target in enumerate(("weight", "waist", "pulse")):
        out.append(Stream(f"linnerud ({target})", np.asarray(Xl, float), Yl[:, j]))
    out.extend(drifting_streams("regression"))
    out += _more_regression_streams()
    return _with_rescaled(out, smoke, n_smoke=1)


# ---- regression streams beyond diabetes and linnerud (issue 22, regressors) ----
def _more_regression_streams():
    """Generated streams and bundled features with a numeric column as the target."""
    out = []
    X, y = skdata.make_regression(1000, 20, n_informative=10, noise=10, random_state=0)
    out.append(Stream("make_regression", X, y))
    for name, make, noise in (
        ("friedman1", skdata.make_friedman1, 1.0),
        ("friedman2", skdata.make_friedman2, 10.0),
        ("friedman3", skdata.make_friedman3, 0.1),
    ):
        X, y = make(1000, noise=noise, random_state=0)
        out.append(Stream(name, X, y))
    Xb, _ = _bundled(skdata.load_breast_cancer)
    out.append(Stream("breast_cancer (mean area)", np.delete(Xb, [0, 2, 3], axis=1), Xb[:, 3]))
    Xw, _ = _bundled(skdata.load_wine)
    out.append(Stream("wine (alcohol)", Xw[:, 1:], Xw[:, 0]))
    out.append(Stream("wine (color intensity)", np.delete(Xw, 9, axis=1), Xw[:, 9]))
    return out


# ---- end of the added regression streams ----


def transformer_streams(smoke):
    out = []
    for name, loader in (
        ("digits", skdata.load_digits),
        ("breast_cancer", skdata.load_breast_cancer),
        ("wine", skdata.load_wine),
    ):
        X, _ = _bundled(loader)
        out.append(Stream(name, X))
    X, _, _ = make_switching_subspaces(4, 250, 20, 2, random_state=0)
    out.append(Stream("switching subspaces", X, shuffle=False))
    out.append(Stream("digits grouped by class", make_digits_stream()[0], shuffle=False))
    if smoke:
        return [Stream(s.name, s.X[:120], None, s.shuffle) for s in out[:1]]
    return out


def curve_streams(smoke):
    out = []
    for name, loader, cols in (
        ("iris (petal length, width)", skdata.load_iris, (2, 3)),
        ("wine (alcohol, color intensity)", skdata.load_wine, (0, 9)),
        ("breast_cancer (radius, texture)", skdata.load_breast_cancer, (0, 1)),
        ("diabetes (bmi, s5)", skdata.load_diabetes, (2, 8)),
    ):
        X, _ = _bundled(loader)
        out.append(Stream(name, X[:, cols]))
    X, _ = make_curve_stream(500, kind="cubic", noise=0.1, random_state=0)
    out.append(Stream("cubic (Guedj & Li)", X))
    X, _ = make_curve_stream(1000, kind="arcs", noise=0.3, random_state=0)
    out.append(Stream("two arcs", X))
    if smoke:
        return [Stream(s.name, s.X[:60]) for s in out[:1]]
    return out


# ------------------------------------------ probabilities (imbalanced streams)
# Prequential probabilities of the classifiers on imbalanced binary streams
# and on the classification streams above: log-loss (against the running
# class frequency's), ROC AUC, accuracy and expected calibration error, each
# computed once over all the rows scored (every row predicted by the model
# learned before its batch).


def _subsample(X, y, positive, share, seed=0):
    """``positive`` against the rest, the positives subsampled to ``share`` of the rows."""
    rng = np.random.default_rng(seed)
    y = (np.asarray(y) == positive).astype(int)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    k = min(len(pos), max(5, round(share * len(neg) / (1 - share))))
    keep = np.sort(np.concatenate([rng.choice(pos, k, replace=False), neg]))
    return np.asarray(X, dtype=np.float64)[keep], y[keep]


def imbalanced_streams(smoke):
    from sklearn.datasets import make_classification

    out = []
    X, y = _bundled(skdata.load_breast_cancer)
    out.append(Stream("breast_cancer, malignant 5 %", *_subsample(X, y, 0, 0.05)))
    X, y = _bundled(skdata.load_wine)
    out.append(Stream("wine, class 2 vs rest 10 %", *_subsample(X, y, 2, 0.10)))
    X, y = _bundled(skdata.load_iris)
    out.append(Stream("iris, versicolor vs rest 15 %", *_subsample(X, y, 1, 0.15)))
    X, y = _bundled(skdata.load_digits)
    out.append(Stream("digits, 0 vs rest (10 %)", X, (y == 0).astype(int)))
    out.append(Stream("digits, 8 vs rest (10 %)", X, (y == 8).astype(int)))
    for weight, seed in ((0.99, 1), (0.95, 2), (0.8, 3)):
        X, y = make_classification(
            2000, 20, n_informative=5, weights=[weight], flip_y=0.01, random_state=seed
        )
        out.append(Stream(f"generated, {100 * (1 - weight):.0f} % positives", X, y))
    if smoke:
        return [Stream(s.name, s.X[:200], s.y[:200]) for s in out[:2]]
    return out


def sparse_streams(smoke):
    """CSR streams: real-valued non-zeros (in one unit, and in columns of very different units),
    TF-IDF and raw counts of generated documents, one-hot codes of digits."""
    import scipy.sparse as sp
    from sklearn.preprocessing import OneHotEncoder

    from skonline.datasets import make_topic_documents

    n = 300 if smoke else 10000
    out = []
    for d, seed in ((1000, 0), (100, 1)):
        X, y = linear_stream(n, d, True, seed)
        out.append(Stream(f"real-valued, d = {d}, 5 % non-zeros", X, y))
    X, y = linear_stream(n, 1000, True, 2)
    units = 10.0 ** np.random.default_rng(2).uniform(-3, 3, X.shape[1])
    out.append(
        Stream("real-valued, d = 1000, units 10^U(-3, 3)", sp.csr_matrix(X @ sp.diags(units)), y)
    )
    X, topic = make_topic_documents(n, 2000, random_state=0)
    out.append(Stream("TF-IDF documents, topics 0-9 vs 10-19", X, (topic < 10).astype(int)))
    X, topic = make_topic_documents(n, 2000, tfidf=False, random_state=1)
    out.append(
        Stream(
            "word counts, topics 0-9 vs 10-19",
            sp.csr_matrix(X, dtype=np.float64),
            (topic < 10).astype(int),
        )
    )
    X, y = _bundled(skdata.load_digits)
    onehot = OneHotEncoder(handle_unknown="ignore").fit(X)  # the codes of every pixel value
    out.append(Stream("digits one-hot, even vs odd", sp.csr_matrix(onehot.transform(X)), y % 2))
    X, y = shared_word_documents(6000 if not smoke else 300)
    out.append(Stream("hashed text, 5 topics sharing 93 % of words", X, y))
    return out[:2] if smoke else out


def shared_word_documents(n, n_topics=5, vocabulary=5000, length=25, shared=0.93, seed=1):
    """``HashingVectorizer(n_features=2**16)`` rows of documents whose topics differ by few words.

    Every topic's word distribution is ``shared`` of one common Dirichlet
    draw plus ``1 - shared`` of its own: the label is in small shifts of
    frequent words and in rare words, as in real topic classification.
    """
    from sklearn.feature_extraction.text import HashingVectorizer

    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocabulary)])
    base = rng.dirichlet(np.full(vocabulary, 0.05))
    topics = [
        shared * base + (1 - shared) * rng.dirichlet(np.full(vocabulary, 0.02))
        for _ in range(n_topics)
    ]
    y = rng.integers(0, n_topics, n)
    docs = [
        " ".join(rng.choice(words, max(3, rng.poisson(length)), p=topics[label])) for label in y
    ]
    vectorizer = HashingVectorizer(n_features=2**16, alternate_sign=False)
    return vectorizer.transform(docs).tocsr(), y


def sparse_methods():
    from sklearn.preprocessing import MaxAbsScaler, StandardScaler

    from skonline.pipeline import make_online_pipeline

    return {
        "RFDSONClassifier": ("skonline", skonline.RFDSONClassifier()),
        "ScaleInvariantClassifier": ("skonline", skonline.ScaleInvariantClassifier()),
        "RFDSON, MaxAbsScaler, raw units": (
            "tuned",
            make_online_pipeline(MaxAbsScaler(), skonline.RFDSONClassifier(scale_features=False)),
        ),
        "RFDSON, raw units": ("tuned", skonline.RFDSONClassifier(scale_features=False)),
        "SGD + MaxAbsScaler": (
            "peer",
            make_online_pipeline(MaxAbsScaler(), SGDClassifier(random_state=0)),
        ),
        "SGD + scaler (no centring)": (
            "peer",
            make_online_pipeline(StandardScaler(with_mean=False), SGDClassifier(random_state=0)),
        ),
    }


class PrefixLogisticRegression(ClassifierMixin, BaseEstimator):
    """Scaled ``LogisticRegression`` refitted on the prefix every ``every`` rows (reference)."""

    def __init__(self, every=50):
        self.every = every

    def partial_fit(self, X, y, classes=None):
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        if not hasattr(self, "rows_"):
            self.rows_, self.labels_, self.classes_, self.fitted_at_ = X, y, classes, -1
        else:
            self.rows_ = np.vstack([self.rows_, X])
            self.labels_ = np.concatenate([self.labels_, y])
        n = len(self.labels_)
        if (self.fitted_at_ < 0 or n - self.fitted_at_ >= self.every) and len(
            np.unique(self.labels_)
        ) > 1:
            model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
            self.model_ = model.fit(self.rows_, self.labels_)
            self.fitted_at_ = n
        return self

    def predict_proba(self, X):
        out = np.zeros((len(X), len(self.classes_)))
        if not hasattr(self, "model_"):
            out[:, np.searchsorted(self.classes_, self.labels_[0])] = 1.0
            return 0.5 * out + 0.5 / len(self.classes_)
        out[:, np.searchsorted(self.classes_, self.model_.classes_)] = self.model_.predict_proba(X)
        return out


def probability_methods():
    methods = {
        "RFDSONClassifier": ("skonline", skonline.RFDSONClassifier()),
        "ScaleInvariantClassifier": ("skonline", skonline.ScaleInvariantClassifier()),
        "RFDSON, temperature": ("tuned", skonline.RFDSONClassifier(calibration="temperature")),
        "SI, forgetting 1.0": ("tuned", skonline.ScaleInvariantClassifier(forgetting_factor=1.0)),
        "RFDSON, bound 2 (default before)": ("tuned", skonline.RFDSONClassifier(bound=2.0)),
        "RFDSON, paper's link": (
            "tuned",
            skonline.RFDSONClassifier(calibration=None, bound=2.0),
        ),
        "SGD(log_loss) + scaler": (
            "peer",
            ScaledModel(SGDClassifier(loss="log_loss", random_state=0)),
        ),
    }
    if river_available():  # optional: River is in the benchmark extra
        methods["River LogReg"] = ("peer", RiverClassifier())
    methods["LogReg refitted every 50 rows"] = ("reference", PrefixLogisticRegression())
    return methods


def expected_calibration_error(y, proba, classes, bins=10):
    """ECE over ``bins`` equal-width bins of the top-class probability."""
    top = proba.max(axis=1)
    hit = classes[proba.argmax(axis=1)] == y
    which = np.minimum((top * bins).astype(int), bins - 1)
    return sum(
        abs(top[which == b].mean() - hit[which == b].mean()) * np.sum(which == b)
        for b in range(bins)
        if np.any(which == b)
    ) / len(y)


def _probability_run(est, X, y, classes, batch_size):
    """Prequential probabilities (rows after the first batch), and the running frequency's."""
    proba, freq = [], []
    counts = np.ones(len(classes))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for start in range(0, len(y), batch_size):
            xb, yb = X[start : start + batch_size], y[start : start + batch_size]
            if start and est is not None:
                proba.append(est.predict_proba(xb))
            if start:
                freq.append(np.tile(counts / counts.sum(), (len(yb), 1)))
            if est is not None:
                est.partial_fit(xb, yb, classes=classes)
            counts += np.bincount(np.searchsorted(classes, yb), minlength=len(classes))
    return (np.vstack(proba) if proba else None), np.vstack(freq)


def _probability_scores(y, proba, classes):
    from sklearn.metrics import log_loss, roc_auc_score

    proba = np.clip(proba, 1e-15, 1.0)
    proba = proba / proba.sum(axis=1, keepdims=True)
    if len(classes) == 2:
        auc = roc_auc_score(y, proba[:, 1])
    else:
        auc = roc_auc_score(y, proba, multi_class="ovr", labels=classes)
    return {
        "log_loss": log_loss(y, proba, labels=classes),
        "roc_auc": auc,
        "accuracy": float(np.mean(classes[proba.argmax(axis=1)] == y)),
        "ece": expected_calibration_error(y, proba, classes),
    }


def evaluate_probabilities(streams, methods, n_orders, seed, batch_size=10):
    """``{stream: {method: {metric: [values over orders]}}}``, the frequency under ``baseline``."""
    table = {}
    for stream in streams:
        classes = np.unique(stream.y)
        cells = {name: {} for name in [*methods, "baseline"]}
        for label, order in _orders(stream, n_orders, seed, min_rows=0):
            X, y = stream.X[order], np.asarray(stream.y)[order]
            _, freq = _probability_run(None, X, y, classes, batch_size)
            scored = y[batch_size:]
            for metric, value in _probability_scores(scored, freq, classes).items():
                cells["baseline"].setdefault(metric, []).append(value)
            for name, (_, est) in methods.items():
                t0 = time.perf_counter()
                try:
                    proba, _ = _probability_run(clone(est), X, y, classes, batch_size)
                    values = _probability_scores(scored, proba, classes)
                except Exception as err:  # reported, not hidden
                    log(f"  {stream.name} / {label} / {name}: FAILED {type(err).__name__}: {err}")
                    values = dict.fromkeys(("log_loss", "roc_auc", "accuracy", "ece"), np.nan)
                for metric, value in values.items():
                    cells[name].setdefault(metric, []).append(value)
                log(
                    f"  {stream.name} / {label} / {name}: log-loss {values['log_loss']:.4g} "
                    f"({time.perf_counter() - t0:.1f} s)"
                )
        table[stream.name] = cells
    return table


def probability_markdown(table, methods):
    names = [*methods, "baseline"]
    lines = [
        "### Probabilities (prequential log-loss / ROC AUC / accuracy / ECE, "
        "mean over row orders; baseline: the running class frequency)",
        "",
        "| dataset | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for stream, cells in table.items():
        row = [
            "{:.3f} / {:.3f} / {:.3f} / {:.3f}".format(
                *(_mean(cells[n].get(m, [])) for m in ("log_loss", "roc_auc", "accuracy", "ece"))
            )
            for n in names
        ]
        lines.append(f"| {stream} | " + " | ".join(row) + " |")
    lines.append("")
    peers = [n for n, (kind, _) in methods.items() if kind in ("peer", "reference")]
    for name, (kind, _) in methods.items():
        if kind != "skonline":
            continue
        below, ll5, auc2, acc1 = 0, 0, 0, 0
        for cells in table.values():
            mine = {m: _mean(cells[name][m]) for m in ("log_loss", "roc_auc", "accuracy")}
            best_ll = min(_mean(cells[p]["log_loss"]) for p in peers)
            best_auc = max(_mean(cells[p]["roc_auc"]) for p in peers)
            best_acc = max(_mean(cells[p]["accuracy"]) for p in peers)
            below += mine["log_loss"] < _mean(cells["baseline"]["log_loss"])
            ll5 += mine["log_loss"] <= 1.05 * best_ll
            auc2 += mine["roc_auc"] >= best_auc - 0.02
            acc1 += mine["accuracy"] >= best_acc - 0.01
        n = len(table)
        lines.append(
            f"- **{name}**: log-loss below the class frequency's on {below} of {n}; "
            f"within 5 % of the best peer's on {ll5}; ROC AUC within 2 points of the best "
            f"peer on {auc2}; accuracy within 1 point on {acc1} (peers: {', '.join(peers)})."
        )
    return "\n".join(lines)


# --------------------------------------------------------------- methods
def classification_methods():
    methods = {
        "RFDSONClassifier": ("skonline", skonline.RFDSONClassifier()),
        "ScaleInvariantClassifier": ("skonline", skonline.ScaleInvariantClassifier()),
        "RFDSON (paper: RFD0)": (
            "tuned",
            skonline.RFDSONClassifier(
                loss="squared_error", alpha0=0.0, bound=1.0, scale_features=False
            ),
        ),
        "SI (diagonal, center, multinomial)": (
            "tuned",
            skonline.ScaleInvariantClassifier(
                variant="diagonal", center=True, multi_class="multinomial"
            ),
        ),
        # one learner that never forgets (the default before "auto"), and RFD-SON's "auto"
        "SI (forgetting 1.0)": ("tuned", skonline.ScaleInvariantClassifier(forgetting_factor=1.0)),
        "RFDSON (forgetting auto)": (
            "tuned",
            skonline.RFDSONClassifier(forgetting_factor="auto"),
        ),
        "SGD + scaler": ("peer", ScaledModel(SGDClassifier(random_state=0))),
        "Perceptron + scaler": ("peer", ScaledModel(Perceptron(random_state=0))),
    }
    if river_available():
        methods["River LogReg"] = ("peer", RiverClassifier())
    return methods


def regression_methods():
    methods = {
        "RFDSONRegressor": ("skonline", skonline.RFDSONRegressor()),
        "ScaleInvariantRegressor": ("skonline", skonline.ScaleInvariantRegressor()),
        "RFDSON (paper: RFD0)": (
            "tuned",
            skonline.RFDSONRegressor(
                curvature="gradient",
                alpha0=0.0,
                bound=1.0,
                scale_features=False,
                center_target=False,
                clip_predictions=False,
            ),
        ),
        "SI (diagonal, center)": (
            "tuned",
            skonline.ScaleInvariantRegressor(variant="diagonal", center=True),
        ),
        # Algorithm 2's own read-out (the default before the least-squares read-out)
        "SI, learner's read-out": (
            "tuned",
            skonline.ScaleInvariantRegressor(readout="learner"),
        ),
        # one learner that never forgets (the paper's; the default before "auto")
        "RFDSONRegressor (forgetting 1.0)": (
            "tuned",
            skonline.RFDSONRegressor(forgetting_factor=1.0),
        ),
        "ScaleInvariantRegressor (forgetting 1.0)": (
            "tuned",
            skonline.ScaleInvariantRegressor(forgetting_factor=1.0),
        ),
        "SGD + scaler": ("peer", ScaledModel(SGDRegressor(random_state=0))),
    }
    if river_available():
        methods["River LinReg"] = ("peer", RiverRegressor())
    # the batch reference: the penalty chosen by leave-one-out on every prefix
    methods["RidgeCV refitted on prefix"] = ("reference", PrefixRidgeCV())
    return methods


def transformer_methods(k):
    return {
        "FrequentDirections": ("skonline", skonline.FrequentDirections(n_components=k)),
        "RobustFrequentDirections": (
            "skonline",
            skonline.RobustFrequentDirections(n_components=k),
        ),
        "AdaptiveOnlinePCA": ("skonline", skonline.AdaptiveOnlinePCA(n_components=k)),
        "RandomizedOnlinePCA": ("skonline", skonline.RandomizedOnlinePCA(n_components=k)),
        "IncrementalPCA": ("peer", IncrementalPCA(n_components=k)),
        "PCA, 200-row window": ("peer", WindowPCA(n_components=k, window=200)),
    }


#: SequentialPrincipalCurve with the paper's objective (every extension of the defaults off).
CURVE_PAPER = dict(
    length_penalty=0.0, turn_penalty=0.0, warm_up_moves=0, clip_grid=False, max_memory=None
)


def curve_methods():
    return {
        "SequentialPrincipalCurve": (
            "skonline",
            skonline.manifold.SequentialPrincipalCurve(random_state=0),
        ),
        "slpc, paper's objective": (
            "tuned",
            skonline.manifold.SequentialPrincipalCurve(random_state=0, **CURVE_PAPER),
        ),
        "HS curve refitted on prefix": ("peer", PrefixCurve()),
    }


def _outside(V, X):
    """Largest distance of a vertex to the convex hull of ``X``, over the box's diagonal."""
    from skonline.manifold._polyline import distance_outside_hull

    gap = distance_outside_hull(V, X)
    return float(gap.max() / np.linalg.norm(X.max(axis=0) - X.min(axis=0)))


def curve_shapes(task, n_orders, seed):
    """The final curves: length over the batch HS curve's, and the farthest vertex outside."""
    from skonline.manifold import hastie_stuetzle_curve
    from skonline.manifold._hastie_stuetzle import curve_length

    names = [n for n, (kind, est) in task.methods.items() if kind != "peer"]
    lines = [
        "Final curves (fitted on all rows, each row order): length / the batch "
        "Hastie–Stuetzle curve's (princurve's stretch 2; range over orders), and the "
        "farthest vertex outside the data's convex hull (% of the bounding box's diagonal, "
        "worst order).",
        "",
        "| dataset | HS length | " + " | ".join(f"{n}: length / HS, outside" for n in names) + " |",
        "|---|---:|" + "---:|" * len(names),
    ]
    for stream in task.streams:
        hs = curve_length(hastie_stuetzle_curve(stream.X))
        cells = []
        for name in names:
            ratios, outside = [], []
            for _, order in _orders(stream, n_orders, seed):
                est = clone(task.methods[name][1]).fit(stream.X[order])
                ratios.append(est.length_ / hs)
                outside.append(_outside(est.vertices_, stream.X))
            cells.append(f"{min(ratios):.2f}–{max(ratios):.2f}, {100 * max(outside):.1f} %")
        lines.append(f"| {stream.name} | {hs:.3g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------- evaluation
@dataclass
class Task:
    title: str
    metric: str  # scorer name
    higher_is_better: bool
    display: str
    batch_size: int
    streams: list
    methods: dict
    sign: float = 1.0  # multiply the scorer value by this for display
    # streams shorter than min_batches batches are fed one row at a time
    # (linnerud's 20 rows; iris and wine for the linear learners)
    min_batches: int = 20


#: Streams shorter than TINY_STREAM rows are evaluated over at least MIN_SCORED_ROWS
#: rows in total (over their orders).
TINY_STREAM = 100
MIN_SCORED_ROWS = 2000


def _orders(stream, n_orders, seed, min_rows=MIN_SCORED_ROWS):
    """Random row orders (the bundled files are often sorted by class), or the stream's own.

    Tiny streams get more orders (linnerud's 20 rows: 100), so that their mean
    is not decided by the order of a few rows.
    """
    n = stream.X.shape[0]
    if not stream.shuffle:
        return [("stream order", np.arange(n))]
    if n < TINY_STREAM:
        n_orders = max(n_orders, min_rows // n)
    rng = np.random.default_rng(seed)
    return [(f"order {i + 1}", rng.permutation(n)) for i in range(n_orders)]


def _run(estimator, stream, order, task, baseline):
    X = stream.X[order]
    y = None if stream.y is None else np.asarray(stream.y)[order]
    classes = np.unique(stream.y) if task.metric == "accuracy" else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = prequential_score(
            estimator,
            X,
            y,
            scoring=task.metric,
            # tiny datasets (linnerud, 20 rows): one row at a time, or nothing is scored
            batch_size=task.batch_size if X.shape[0] >= task.min_batches * task.batch_size else 1,
            classes=classes,
            baseline=baseline,
        )
    value = task.sign * res[f"cumulative_{task.metric}"][-1]
    base = task.sign * res[f"baseline_cumulative_{task.metric}"][-1] if baseline else None
    return value, base, res


def evaluate(task, n_orders, seed, min_rows=MIN_SCORED_ROWS):
    """``{stream: {method: [values over orders]}}`` plus the baseline under the key ``baseline``."""
    table = {}
    for stream in task.streams:
        cells = {name: [] for name in task.methods}
        cells["baseline"] = []
        for label, order in _orders(stream, n_orders, seed, min_rows):
            for i, (name, (_, est)) in enumerate(task.methods.items()):
                t0 = time.perf_counter()
                try:
                    value, base, _ = _run(clone(est), stream, order, task, baseline=i == 0)
                except Exception as err:  # a method that fails is reported, not hidden
                    log(f"  {stream.name} / {label} / {name}: FAILED {type(err).__name__}: {err}")
                    value, base = np.nan, None
                cells[name].append(value)
                if base is not None:
                    cells["baseline"].append(base)
                log(
                    f"  {stream.name} / {label} / {name}: {value:.4g} "
                    f"({time.perf_counter() - t0:.1f} s)"
                )
        table[stream.name] = cells
    return table


def _cell(values):
    values = np.asarray(values, dtype=float)
    if values.size == 0 or np.all(np.isnan(values)):
        return "failed"
    mean = np.nanmean(values)
    if values.size == 1:
        return f"{mean:.3g}"
    return f"{mean:.3g} ±{np.nanmax(values) - np.nanmin(values):.2g}"


def _mean(values):
    """Mean over the row orders that ran (NaN when none did)."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return float(values.mean()) if values.size else np.nan


def _better(a, b, higher):
    return a > b if higher else a < b


def _reference_verdict(name, task, table):
    """Where a batch reference refitted on the prefix does not beat the baseline.

    A stream on which it does not is one where the prefix holds too little
    signal for any learner of its family to beat the baseline.
    """
    below = []
    for stream, cells in table.items():
        mine, base = _mean(cells[name]), _mean(cells["baseline"])
        if np.isfinite(base) and not _better(mine, base, task.higher_is_better):
            below.append(f"{stream} ({mine:.4g} vs {base:.4g})")
    line = f"- **{name}** (batch reference, not online): "
    if not below:
        return line + "better than the baseline everywhere."
    return line + "**not better than the baseline** on " + "; ".join(below) + "."


def verdicts(task, table):
    """One line per skonline default: how it compares with the best peer and the baseline."""
    lines = []
    kinds = {name: kind for name, (kind, _) in task.methods.items()}
    peers = [n for n, k in kinds.items() if k == "peer"]
    for name, kind in kinds.items():
        if kind == "reference":
            lines.append(_reference_verdict(name, task, table))
        if kind != "skonline":
            continue
        wins, losses, below_base = [], [], []
        for stream, cells in table.items():
            mine = _mean(cells[name])
            peer_means = {p: _mean(cells[p]) for p in peers if cells[p]}
            best = (max if task.higher_is_better else min)(
                peer_means,
                key=lambda p: (
                    peer_means[p]
                    if np.isfinite(peer_means[p])
                    else (-np.inf if task.higher_is_better else np.inf)
                ),
            )
            gap = mine - peer_means[best]
            if np.isnan(mine):
                losses.append(f"{stream} (failed)")
            elif _better(mine, peer_means[best], task.higher_is_better) or gap == 0:
                wins.append(stream)
            else:
                losses.append(f"{stream} ({mine:.4g} vs {best} {peer_means[best]:.4g})")
            base = _mean(cells["baseline"])
            if np.isfinite(base) and not _better(mine, base, task.higher_is_better):
                below_base.append(f"{stream} ({mine:.4g} vs {base:.4g})")
        line = (
            f"- **{name}** (defaults): at least as good as the best peer on "
            f"{len(wins)} of {len(table)}"
        )
        if losses:
            line += "; loses on " + "; ".join(losses)
        line += "."
        if below_base:
            line += " **Not better than the baseline** on " + "; ".join(below_base) + "."
        lines.append(line)
    return lines


def markdown(task, table):
    names = [*task.methods, "baseline"]
    head = ["dataset", *names]
    lines = [
        f"### {task.title} ({task.display}; mean ±spread over row orders)",
        "",
        "| " + " | ".join(head) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for stream, cells in table.items():
        lines.append("| " + " | ".join([stream] + [_cell(cells[n]) for n in names]) + " |")
    lines.append("")
    lines += verdicts(task, table)
    return "\n".join(lines)


def rst(task, table):
    names = [*task.methods, "baseline"]
    out = [
        f".. list-table:: {task.title} ({task.display}; mean ±spread over row orders)",
        "   :header-rows: 1",
        "",
        "   * - dataset",
    ]
    out += [f"     - {n}" for n in names]
    for stream, cells in table.items():
        out.append(f"   * - {stream}")
        out += [f"     - {_cell(cells[n])}" for n in names]
    out.append("")
    out += verdicts(task, table)
    return "\n".join(out) + "\n"


def main(argv=None):
    def extra(parser):
        parser.add_argument("--orders", type=int, default=5, help="row orders per dataset")
        parser.add_argument("--docs", type=Path, default=None, help="write .rst tables here")
        parser.add_argument(
            "--tasks",
            default=(
                "classification,probabilities,regression,regression_r2,sparse,transformers,curves"
            ),
            help="comma-separated subset",
        )

    args = parse_args(__doc__.splitlines()[0], argv, extra)
    n_orders = 2 if args.smoke else args.orders
    load_before = load_average()
    started = time.perf_counter()
    digests = source_digests(MEASURED_MODULES)
    k = 5
    tasks = {
        "classification": Task(
            "Classification",
            "accuracy",
            True,
            "prequential accuracy",
            10,
            classification_streams(args.smoke),
            classification_methods(),
        ),
        "regression": Task(
            "Regression",
            "neg_mean_absolute_error",
            False,
            "prequential MAE",
            10,
            regression_streams(args.smoke),
            regression_methods(),
            sign=-1.0,
        ),
        # ---- regression: prequential R² of the same streams and methods (issue 22) ----
        "regression_r2": Task(
            "Regression, R²",
            "r2",
            True,
            "prequential R² over the rows scored",
            10,
            regression_streams(args.smoke),
            regression_methods(),
        ),
        # ---- end of regression R² ----
        "sparse": Task(
            "Sparse classification (CSR)",
            "accuracy",
            True,
            "prequential accuracy",
            10,
            sparse_streams(args.smoke),
            sparse_methods(),
        ),
        "transformers": Task(
            f"Transformers, {k} components",
            "neg_reconstruction_error",
            False,
            "prequential mean squared reconstruction error",
            20,
            transformer_streams(args.smoke),
            transformer_methods(k),
            sign=-1.0,
            min_batches=5,  # IncrementalPCA's first batch needs k rows
        ),
        "curves": Task(
            "Principal curves",
            "neg_reconstruction_error",
            False,
            "prequential mean squared distance to the curve",
            20,
            curve_streams(args.smoke),
            curve_methods(),
            sign=-1.0,
            min_batches=5,
        ),
    }
    chosen = [t.strip() for t in args.tasks.split(",") if t.strip()]
    sections = []
    for key in chosen:
        if key == "probabilities":  # several metrics per cell: its own evaluation
            log("Probabilities ...")
            streams = imbalanced_streams(args.smoke) + classification_streams(args.smoke)
            methods = probability_methods()
            table = evaluate_probabilities(streams, methods, n_orders, args.seed)
            text = probability_markdown(table, methods)
            sections.append(text)
            print(text, flush=True)
            continue
        task = tasks[key]
        log(f"{task.title} ...")
        table = evaluate(task, n_orders, args.seed, 0 if args.smoke else MIN_SCORED_ROWS)
        text = markdown(task, table)
        if key == "curves":
            text += "\n\n" + curve_shapes(task, n_orders, args.seed)
        sections.append(text)
        print(text, flush=True)
        if args.docs is not None:
            args.docs.mkdir(parents=True, exist_ok=True)
            (args.docs / f"{key}.rst").write_text(rst(task, table), encoding="utf-8")
    header = environment(digests, load_before, load_average(), read_at_start=True)
    extra_line = f"- river: {'installed' if river_available() else 'not installed'}"
    report = "\n".join(
        [
            "# skonline real-data scoreboard",
            "",
            *header,
            extra_line,
            f"- total run time {time.perf_counter() - started:.0f} s",
            "",
            *sections,
        ]
    )
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "bench_real_data_smoke" if args.smoke else "bench_real_data"
    (args.out / f"{stem}.md").write_text(report + "\n", encoding="utf-8")
    log(f"written: {args.out / stem}.md")


if __name__ == "__main__":
    main()

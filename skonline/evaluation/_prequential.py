"""Prequential (test-then-train) evaluation of any estimator with ``partial_fit``.

For each batch of a stream the model learned so far is scored on the batch,
then trained on it (Dawid's prequential principle; River's
``evaluate.progressive_val_score``). Every row is scored exactly once, by a
model that has never seen it, so the cumulative score is an honest estimate
of the error of the online learner as it is used.
"""

from __future__ import annotations

import inspect
import itertools
import numbers
import time
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp
import sklearn.metrics
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.exceptions import FitFailedWarning, NotFittedError
from sklearn.metrics import check_scoring, get_scorer, make_scorer
from sklearn.utils import Bunch, gen_batches, get_tags
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from ..utils._progress import Progress

__all__ = ["PrefixBaseline", "prequential_score", "reconstruction_error"]

#: Scorers whose value on a set of rows is the mean of a per-row value: their
#: cumulative value is the row-weighted mean of the batch values, exactly.
_ROW_MEAN_SCORERS = frozenset(
    {
        "accuracy",
        "neg_mean_absolute_error",
        "neg_mean_squared_error",
        "neg_log_loss",
        "neg_brier_score",
        "neg_reconstruction_error",
        "neg_mean_poisson_deviance",
        "neg_mean_gamma_deviance",
    }
)
#: Built-in scorers whose metric needs every class of the stream on a batch
#: that lacks some (one-row batches): their metric, response method, sign and
#: arguments, as scikit-learn defines them. They get ``labels=`` the classes
#: (when their metric in the installed scikit-learn takes it); on a batch with
#: every class the value is the same.
_LABELLED_SCORERS: dict[str, tuple[str, Any, bool, dict[str, str]]] = {
    "neg_log_loss": ("log_loss", "predict_proba", False, {}),
    "neg_brier_score": ("brier_score_loss", "predict_proba", False, {}),
    "d2_log_loss_score": ("d2_log_loss_score", "predict_proba", True, {}),
    "d2_brier_score": ("d2_brier_score", "predict_proba", True, {}),
    "top_k_accuracy": ("top_k_accuracy_score", ("decision_function", "predict_proba"), True, {}),
    "roc_auc_ovr": ("roc_auc_score", "predict_proba", True, {"multi_class": "ovr"}),
    "roc_auc_ovo": ("roc_auc_score", "predict_proba", True, {"multi_class": "ovo"}),
    "roc_auc_ovr_weighted": (
        "roc_auc_score",
        "predict_proba",
        True,
        {"multi_class": "ovr", "average": "weighted"},
    ),
    "roc_auc_ovo_weighted": (
        "roc_auc_score",
        "predict_proba",
        True,
        {"multi_class": "ovo", "average": "weighted"},
    ),
}
#: Row-mean scorers computed here from the batch's predictions, with scikit-learn's
#: arithmetic (the same floats), instead of through the scorer: its machinery costs
#: more than predicting and learning a small batch. ``{name: (method, metric)}``;
#: a metric returns None where scikit-learn would check or convert more than it
#: does, and the scorer runs instead (raising its own errors).
_DIRECT_SCORERS: dict[str, tuple[str, Any]] = {}


def _direct_accuracy(y, pred):
    """``accuracy_score(y, pred)`` for 1-D integer/boolean or string labels, else None."""
    if not (_plain_1d(y, "biu") and _plain_1d(pred, "biu")) and not (
        _plain_1d(y, "U") and _plain_1d(pred, "U")
    ):
        return None
    if y.shape != pred.shape:
        return None
    # scikit-learn: score = y_true == y_pred; float(mean(score as float64))
    return float(np.mean((y == pred).astype(np.float64)))


def _regression_errors(y, pred):
    """``(y_true, y_pred)`` as columns of float64, as scikit-learn's checks give them, or None."""
    if not (_plain_1d(y, "biuf") and _plain_1d(pred, "f")) or pred.dtype != np.float64:
        return None
    if y.shape != pred.shape:
        return None
    y = y.astype(np.float64, copy=False)
    if not (np.isfinite(y).all() and np.isfinite(pred).all()):
        return None  # the scorer raises scikit-learn's error
    return y.reshape(-1, 1), pred.reshape(-1, 1)


def _direct_neg_mae(y, pred):
    """``-mean_absolute_error(y, pred)`` for 1-D numeric targets, else None."""
    pair = _regression_errors(y, pred)
    if pair is None:
        return None
    y_true, y_pred = pair
    return -1 * float(np.mean(np.mean(np.abs(y_pred - y_true), axis=0)))


def _direct_neg_mse(y, pred):
    """``-mean_squared_error(y, pred)`` for 1-D numeric targets, else None."""
    pair = _regression_errors(y, pred)
    if pair is None:
        return None
    y_true, y_pred = pair
    return -1 * float(np.mean(np.mean((y_true - y_pred) ** 2, axis=0)))


def _plain_1d(a, kinds):
    return type(a) is np.ndarray and a.ndim == 1 and a.dtype.kind in kinds


_DIRECT_SCORERS.update(
    {
        "accuracy": ("predict", _direct_accuracy),
        "neg_mean_absolute_error": ("predict", _direct_neg_mae),
        "neg_mean_squared_error": ("predict", _direct_neg_mse),
    }
)

#: The estimator methods whose outputs a score can be computed from.
_RESPONSE_METHODS = (
    "predict",
    "predict_proba",
    "decision_function",
    "transform",
    "predict_log_proba",
)


# ------------------------------------------------------------------ scorers
def reconstruction_error(estimator, X, y=None):
    """Mean squared reconstruction error of a transformer on the rows of ``X``.

    ``mean ‖x − x̂‖²`` with ``x̂ = inverse_transform(transform(x))`` when the
    estimator has ``inverse_transform``; otherwise ``x̂`` is the orthogonal
    projection of ``x − mean_`` on the row space of ``components_`` (plus
    ``mean_``, when the estimator has one), the compression loss of the
    online-PCA papers. The scorer ``"neg_reconstruction_error"`` of
    :func:`prequential_score` is its negative. CSR rows are densified and
    rebuilt, except for the sketches (:class:`~skonline.FrequentDirections`,
    :class:`~skonline.RobustFrequentDirections` without whitening), which
    compute ``‖x − mean_‖² − ‖components_ (x − mean_)‖²`` from the rows'
    non-zeros (equal to rounding; hashed text has 2^18 columns a row).

    Parameters
    ----------
    estimator : fitted transformer
        Needs ``inverse_transform``, or ``components_`` with orthonormal rows.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows.
    y : None
        Ignored.

    Returns
    -------
    error : float
        The mean squared reconstruction error (0 for a perfect reconstruction).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.decomposition import PCA
    >>> from skonline.evaluation import reconstruction_error
    >>> X = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.1]])
    >>> round(reconstruction_error(PCA(n_components=1).fit(X), X), 6)
    0.000264
    """
    rows = _sparse_residuals(estimator, X)
    if rows is not None:
        return float(np.mean(rows))
    dense = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    if hasattr(estimator, "inverse_transform"):
        rebuilt = estimator.inverse_transform(estimator.transform(X))
        residual = dense - np.asarray(rebuilt, dtype=np.float64)
    elif hasattr(estimator, "components_"):
        C = np.atleast_2d(np.asarray(estimator.components_, dtype=np.float64))
        mean = getattr(estimator, "mean_", None)
        centred = dense if mean is None else dense - mean
        residual = centred - (centred @ C.T) @ C
    else:
        raise TypeError(
            f"{type(estimator).__name__} has neither inverse_transform nor components_: "
            "no reconstruction error. Pass a scorer."
        )
    return float(np.mean(np.einsum("ij,ij->i", residual, residual)))


def _sparse_residuals(estimator, X):
    """The per-row squared residuals of CSR rows without densifying them, if the estimator can.

    The sketches compute them from the rows' norms and coordinates
    (``_reconstruction_residuals``); ``None`` otherwise (the caller
    reconstructs the rows densely).
    """
    compute = getattr(estimator, "_reconstruction_residuals", None)
    return compute(X) if compute is not None and sp.issparse(X) else None


def _neg_reconstruction_error(estimator, X, y=None):
    return -reconstruction_error(estimator, X)


def _named_scorer(name, labels):
    """scikit-learn's scorer ``name``; with ``labels=`` for those that need every class."""
    spec = _LABELLED_SCORERS.get(name) if labels is not None else None
    if spec is not None:
        metric_name, response_method, greater_is_better, kwargs = spec
        metric = getattr(sklearn.metrics, metric_name, None)
        if metric is not None and "labels" in inspect.signature(metric).parameters:
            return make_scorer(
                metric,
                response_method=response_method,
                greater_is_better=greater_is_better,
                labels=labels,
                **kwargs,
            )
    return get_scorer(name)


def _resolve_scoring(estimator, scoring, labels=None):
    """``{name: (scorer, row_mean, direct)}`` from None, a name, a callable, or a list/dict.

    ``row_mean``: the scorer's value on rows is the mean of a per-row value;
    ``direct``: ``(method, metric)`` of ``_DIRECT_SCORERS``, or None.

    ``labels``: every class of the stream (classifiers), given to the built-in
    scorers that need them.
    """
    if scoring is None:
        if is_classifier(estimator):
            scoring = "accuracy"
        elif is_regressor(estimator):
            scoring = "neg_mean_absolute_error"
        elif hasattr(estimator, "transform"):
            scoring = "neg_reconstruction_error"
        else:
            raise ValueError(f"no default scoring for {type(estimator).__name__}: pass scoring=.")
    if isinstance(scoring, str) or callable(scoring):
        scoring = [scoring]
    if isinstance(scoring, dict):
        items = list(scoring.items())
    elif isinstance(scoring, (list, tuple, set)):
        items = []
        for entry in scoring:
            if isinstance(entry, str):
                items.append((entry, entry))
            elif callable(entry):
                items.append((getattr(entry, "__name__", "score"), entry))
            else:
                raise ValueError(f"scoring entries must be names or callables; got {entry!r}.")
    else:
        raise ValueError(f"scoring must be a name, a callable, a list or a dict; got {scoring!r}.")
    if not items:
        raise ValueError("scoring is empty.")
    out: dict[str, tuple[Any, bool, Any]] = {}
    for name, entry in items:
        if entry == "neg_reconstruction_error":
            out[name] = (_neg_reconstruction_error, True, None)
        elif isinstance(entry, str):
            scorer = _named_scorer(entry, labels)
            out[name] = (scorer, entry in _ROW_MEAN_SCORERS, _DIRECT_SCORERS.get(entry))
            _check_response_method(estimator, entry, scorer)
        elif callable(entry):
            # a callable's cumulative value is the row-weighted mean of its batch
            # values (it may read X, which is not kept to recompute it on)
            out[name] = (check_scoring(estimator, scoring=entry), True, None)
        else:
            raise ValueError(f"scoring entries must be names or callables; got {entry!r}.")
    return out


def _check_response_method(estimator, name, scorer):
    """Refuse, before the stream is read, a scorer whose method the estimator lacks."""
    methods = getattr(scorer, "_response_method", None)
    if methods is None:
        return
    methods = (methods,) if isinstance(methods, str) else tuple(methods)
    if not any(hasattr(estimator, method) for method in methods):
        raise AttributeError(
            f"scoring {name!r} needs {' or '.join(methods)}, and "
            f"{type(estimator).__name__} has none of them"
            + (
                f" (with loss={estimator.get_params()['loss']!r})"
                if "loss" in estimator.get_params(deep=False)
                else ""
            )
            + "."
        )


# --------------------------------------------------------- response replay
class _Recorder:
    """A view of an estimator that records the outputs of its response methods."""

    def __init__(self, estimator, outputs):
        self._estimator = estimator
        self._outputs = outputs

    def __getattr__(self, name):
        attr = getattr(self._estimator, name)
        if name in _RESPONSE_METHODS:

            def recorded(X, *args, **kwargs):
                out = attr(X, *args, **kwargs)
                self._outputs.setdefault(name, []).append(np.asarray(out))
                return out

            recorded.__name__ = name  # scikit-learn dispatches on the method's name
            return recorded
        return attr

    def __sklearn_tags__(self):
        return get_tags(self._estimator)


class _Replay:
    """Answers each response method with the recorded outputs of every batch so far."""

    def __init__(self, estimator, outputs):
        self._estimator = estimator
        self._outputs = outputs

    def __getattr__(self, name):
        if name in _RESPONSE_METHODS:
            if name not in self._outputs:
                raise AttributeError(name)
            stacked = np.concatenate(self._outputs[name], axis=0)

            def replayed(X, *args, **kwargs):
                return stacked

            replayed.__name__ = name  # scikit-learn dispatches on the method's name
            return replayed
        return getattr(self._estimator, name)

    def __sklearn_tags__(self):
        return get_tags(self._estimator)


# --------------------------------------------------------------- baselines
class PrefixBaseline:
    """The running baseline of a stream: the prefix majority class or the prefix mean.

    A classifier predicts the most frequent class of the rows seen so far
    (``predict_proba``: their frequencies, with one pseudo-count per class);
    a regressor predicts their mean target; a transformer reconstructs every
    row by the mean row seen so far. :func:`prequential_score` runs it beside
    the estimator with ``baseline=True``.

    Read more in the :ref:`User Guide <prequential>`.

    Parameters
    ----------
    kind : {"classifier", "regressor", "transformer"}
        What to mimic.

    See Also
    --------
    prequential_score : Runs it with ``baseline=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.evaluation import PrefixBaseline
    >>> base = PrefixBaseline("regressor").partial_fit(np.zeros((3, 1)), [1.0, 2.0, 6.0])
    >>> base.predict(np.zeros((2, 1))).tolist()
    [3.0, 3.0]
    """

    def __init__(self, kind):
        if kind not in ("classifier", "regressor", "transformer"):
            raise ValueError(f"kind must be classifier, regressor or transformer; got {kind!r}.")
        self.kind = kind
        self._n = 0
        self._sum: Any = None
        self._counts: Any = None
        self.classes_: Any = None

    def __sklearn_tags__(self):
        from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin

        mixin = {
            "classifier": ClassifierMixin,
            "regressor": RegressorMixin,
            "transformer": TransformerMixin,
        }[self.kind]
        return type("_Tagged", (mixin, BaseEstimator), {})().__sklearn_tags__()

    def partial_fit(self, X, y=None, classes=None):
        """Add rows to the prefix.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.
        y : array-like of shape (n_samples,), default=None
            Their targets (classifier and regressor).
        classes : array-like of shape (n_classes,), default=None
            Every class of the stream (classifier, first call).

        Returns
        -------
        self : object
            The updated baseline.
        """
        n = X.shape[0]
        if self.kind == "classifier":
            if self.classes_ is None:
                self.classes_ = np.unique(classes if classes is not None else y)
                self._counts = np.zeros(len(self.classes_))
            np.add.at(self._counts, np.searchsorted(self.classes_, y), 1.0)
        elif self.kind == "regressor":
            self._sum = (0.0 if self._sum is None else self._sum) + float(np.sum(y))
        else:
            total = np.asarray(X.sum(axis=0)).ravel()
            self._sum = total if self._sum is None else self._sum + total
        self._n += n
        return self

    def predict(self, X):
        """The prefix majority class or the prefix mean, for every row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The same prediction for every row.
        """
        if self.kind == "classifier":
            return np.full(X.shape[0], self.classes_[int(np.argmax(self._counts))])
        return np.full(X.shape[0], self._sum / self._n)

    def predict_proba(self, X):
        """Class frequencies of the prefix (one pseudo-count per class), for every row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            The same probabilities for every row.
        """
        p = (self._counts + 1.0) / (self._counts.sum() + len(self._counts))
        return np.tile(p, (X.shape[0], 1))

    def transform(self, X):
        """Nothing to keep: zero components (the reconstruction is the prefix mean).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        X_new : ndarray of shape (n_samples, 0)
            No coordinates.
        """
        return np.zeros((X.shape[0], 0))

    def inverse_transform(self, X):
        """The prefix mean row, for every row.

        Parameters
        ----------
        X : ndarray of shape (n_samples, 0)
            Coordinates (none).

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            The mean of the rows seen so far.
        """
        return np.tile(self._sum / self._n, (X.shape[0], 1))


def _baseline_kind(estimator):
    if is_classifier(estimator):
        return "classifier"
    if is_regressor(estimator):
        return "regressor"
    return "transformer"


# ------------------------------------------------------------------ stream
def _is_array_like(X):
    return (
        hasattr(X, "shape")
        or hasattr(X, "__array__")
        or isinstance(X, (list, tuple))
        or sp.issparse(X)
    )


def _n_stream_rows(X):
    """Rows of an array-like stream."""
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _batches(X, y, batch_size, target=None):
    """``(X_batch, y_batch)`` pairs from arrays (consecutive rows) or an iterable of batches.

    The arguments are checked here, the batches read lazily. ``target``: the
    column of each DataFrame batch of an iterable that holds the targets.
    """
    if _is_array_like(X):
        if y is not None:
            check_consistent_length(X, y)
        return _array_batches(X, y, batch_size)
    if y is not None:
        raise ValueError(
            "y must be None when X is an iterable of batches (yield (X, y) pairs, or "
            "DataFrames with target= naming the target column)."
        )
    return _iterable_batches(X, target)


def _array_batches(X, y, batch_size):
    for sl in gen_batches(_n_stream_rows(X), batch_size):
        Xb = X.iloc[sl] if hasattr(X, "iloc") else X[sl]
        yb = None
        if y is not None:
            yb = y.iloc[sl] if hasattr(y, "iloc") else np.asarray(y)[sl]
        yield Xb, yb


def _iterable_batches(X, target=None):
    for item in X:
        if isinstance(item, tuple):
            if target is not None:
                raise ValueError(
                    f"target={target!r} names the target column of DataFrame batches, but "
                    "the stream yields (X, y) pairs: drop target=."
                )
            if len(item) != 2:
                raise ValueError("a batch must be X or an (X, y) pair.")
            yield item
        elif target is not None:
            yield _split_target(item, target)
        else:
            yield item, None


def _split_target(frame, target):
    """``(X, y)`` of a pandas DataFrame: ``y`` its column ``target``, ``X`` the others."""
    if not (hasattr(frame, "columns") and hasattr(frame, "drop")):
        raise ValueError(
            f"target={target!r} names a column: the stream must be pandas DataFrames; "
            f"got {type(frame).__name__}."
        )
    if target not in frame.columns:
        raise ValueError(
            f"target={target!r} is not a column of the stream; its columns: {list(frame.columns)}."
        )
    return frame.drop(columns=[target]), frame[target]


def _is_fitted(model):
    """Whether ``model`` has a model to score with (scikit-learn's fitted check).

    An object without ``fit`` (a bare ``partial_fit`` learner) counts as
    fitted once it has learned a batch.
    """
    try:
        check_is_fitted(model)
    except NotFittedError:
        return False
    except TypeError:  # not a scikit-learn estimator: nothing to check
        return True
    return True


def _n_rows(Xb):
    return Xb.shape[0] if hasattr(Xb, "shape") else len(Xb)


# -------------------------------------------------------------- evaluation
class _Track:
    """Running scores of one model (the estimator or its baseline)."""

    def __init__(self, model, scorers):
        self.model = model
        self.scorers = scorers
        self.outputs: dict[str, dict[str, list]] = {name: {} for name in scorers}
        self.batch: dict[str, list[float]] = {name: [] for name in scorers}
        self.cumulative: dict[str, list[float]] = {name: [] for name in scorers}
        self.weighted = dict.fromkeys(scorers, 0.0)
        self.y_scored: list[np.ndarray] = []
        self.scored_rows = 0
        self.scored_batches = 0

    def score(self, Xb, yb, n):
        """Score a batch and the rows scored so far with it: all scorers, or none.

        Each scorer's value is kept as it is, NaN included: which scorer comes
        first changes nothing. On an exception nothing is recorded.
        """
        if yb is not None:
            self.y_scored.append(np.asarray(yb))
        rows = self.scored_rows + n
        values, cumulative = {}, {}
        try:
            responses: dict[str, Any] = {}  # one predict per batch for the direct metrics
            for name, (scorer, row_mean, direct) in self.scorers.items():
                value = None
                if direct is not None:
                    method, metric = direct
                    if method not in responses:
                        responses[method] = getattr(self.model, method)(Xb)
                    value = metric(yb, responses[method])
                if value is None:
                    target = self.model if row_mean else _Recorder(self.model, self.outputs[name])
                    value = float(scorer(target, Xb, yb))
                values[name] = value
            y_seen = None
            for name, (scorer, row_mean, _) in self.scorers.items():
                if row_mean:
                    cumulative[name] = (self.weighted[name] + values[name] * n) / rows
                    continue
                if y_seen is None and self.y_scored:
                    y_seen = np.concatenate(self.y_scored)
                replay = _Replay(self.model, self.outputs[name])
                cumulative[name] = float(scorer(replay, np.zeros((rows, 1)), y_seen))
        except Exception:
            if yb is not None:
                self.y_scored.pop()
            for recorded in self.outputs.values():
                for outputs in recorded.values():
                    del outputs[self.scored_batches :]
            raise
        self.scored_rows = rows
        self.scored_batches += 1
        for name, value in values.items():
            self.weighted[name] += value * n
            self.batch[name].append(value)
            self.cumulative[name].append(cumulative[name])

    def skip(self, value=np.nan):
        """A batch not scored: ``value`` for it, the cumulative values unchanged."""
        for name in self.scorers:
            self.batch[name].append(value)
            before = self.cumulative[name]
            before.append(before[-1] if before else np.nan)


class _Run:
    """One estimator's evaluation along the stream: its tracks and its per-batch records.

    ``name`` is ``None`` for a single estimator (its messages then say "the
    estimator", as they always did), else its key in the dict of estimators.
    """

    def __init__(self, name, model, scorers, classes, baseline, n_components):
        self.name = name
        self.model = model
        self.scorers = scorers
        self.classes = classes
        self.classifier = is_classifier(model)
        self.n_components = n_components
        self.tracks = [_Track(model, scorers)]
        if baseline:
            self.tracks.append(_Track(PrefixBaseline(_baseline_kind(model)), scorers))
        self.started = self.fitted = False
        self.seen = 0
        self.rows: list[int] = []
        self.seen_after: list[int] = []
        self.fit_times: list[float] = []
        self.score_times: list[float] = []
        self.failures: list[bool] = []
        self.learner_loss = self.comparator_loss = 0.0
        self.cov: Any = None
        self.cumulative_loss: list[float] = []
        self.comparator_losses: list[float] = []
        # the batch in progress
        self.failed = False
        self.score_time = self.fit_time = 0.0

    def who(self, k=0):
        """The model of track ``k``, as messages name it."""
        if k:
            return "the baseline" if self.name is None else f"the baseline of {self.name!r}"
        return "the estimator" if self.name is None else f"the estimator {self.name!r}"

    def results(self):
        """The results of the batches this model completed (on a failure: those before it)."""
        k = len(self.rows)
        out = Bunch(
            n_samples_seen=np.asarray(self.seen_after, dtype=np.int64),
            batch_rows=np.asarray(self.rows, dtype=np.int64),
            fit_time=np.asarray(self.fit_times, dtype=float),
            score_time=np.asarray(self.score_times, dtype=float),
            failed=np.asarray(self.failures, dtype=bool),
            estimator=self.model,
        )
        for name in self.scorers:
            prefixes = ("", "baseline_")[: len(self.tracks)]
            for prefix, track in zip(prefixes, self.tracks, strict=True):
                out[f"{prefix}batch_{name}"] = np.asarray(track.batch[name][:k], dtype=float)
                out[f"{prefix}cumulative_{name}"] = np.asarray(
                    track.cumulative[name][:k], dtype=float
                )
        if self.n_components is not None:
            out["cumulative_loss"] = np.asarray(self.cumulative_loss[:k], dtype=float)
            out["comparator_cumulative_loss"] = np.asarray(self.comparator_losses[:k], dtype=float)
            out["regret"] = out["cumulative_loss"] - out["comparator_cumulative_loss"]
        return out

    def score(self, Xb, yb, n, where, error_score):
        """Score a batch with the model and its baseline; the exception to raise, if any."""
        self.failed = False
        t0 = time.perf_counter()
        for k, track in enumerate(self.tracks):
            if not self.fitted:
                track.skip()
                continue
            step = None
            try:
                if k == 0 and self.n_components is not None:
                    step = _comparator_step(self.model, Xb, self.cov, self.n_components)
                track.score(Xb, yb, n)
            except Exception as err:
                if error_score == "raise":
                    return err
                track.skip(float(error_score))
                self.failed = self.failed or k == 0
                warnings.warn(
                    f"prequential_score: scoring {where} with {self.who(k)} failed; "
                    f"its scores are set to {error_score} and its rows left out of the "
                    f"cumulative scores. Details: {type(err).__name__}: {err}",
                    UserWarning,
                    stacklevel=3,
                )
            if step is not None and not self.failed:
                batch_loss, self.cov, self.comparator_loss = step
                self.learner_loss += batch_loss
        if self.n_components is not None:
            self.cumulative_loss.append(self.learner_loss)
            self.comparator_losses.append(self.comparator_loss)
        self.score_time = time.perf_counter() - t0
        return None

    def learn(self, Xb, yb, n, where, error_score):
        """``partial_fit`` the model and its baseline on a batch; the exception to raise, if any."""
        t1 = time.perf_counter()
        kwargs = {"classes": self.classes} if self.classifier and not self.started else {}
        try:
            self.model.partial_fit(Xb, yb, **kwargs)
        except Exception as err:
            if error_score == "raise":
                return err
            self.failed = True
            warnings.warn(
                f"prequential_score: partial_fit on {where} failed; {self.who()} did not "
                f"learn it. Details: {type(err).__name__}: {err}",
                FitFailedWarning,
                stacklevel=3,
            )
        else:
            for track in self.tracks[1:]:
                track.model.partial_fit(Xb, yb, **kwargs)
            self.started = True
            self.fitted = self.fitted or _is_fitted(self.model)
            self.seen += n
        self.fit_time = time.perf_counter() - t1
        return None

    def close(self, n):
        """Record the batch as done."""
        self.rows.append(n)
        self.seen_after.append(self.seen)
        self.score_times.append(self.score_time)
        self.fit_times.append(self.fit_time)
        self.failures.append(self.failed)


def _running_score(run):
    """``(label, cumulative value of the first scorer)``, shown by the progress display."""
    first = next(iter(run.scorers))
    label = first if run.name is None else f"{run.name} {first}"
    return label, run.tracks[0].cumulative[first][-1]


def _loss_rows(model, Xb):
    """Per-row squared reconstruction residuals (for the regret against a comparator)."""
    rows = _sparse_residuals(model, Xb)
    if rows is not None:
        return rows
    dense = Xb.toarray() if sp.issparse(Xb) else np.asarray(Xb, dtype=np.float64)
    if hasattr(model, "inverse_transform"):
        residual = dense - np.asarray(model.inverse_transform(model.transform(Xb)), dtype=float)
    else:
        C = np.atleast_2d(np.asarray(model.components_, dtype=np.float64))
        residual = dense - (dense @ C.T) @ C
    return np.einsum("ij,ij->i", residual, residual)


def prequential_score(
    estimator,
    X,
    y=None,
    *,
    scoring=None,
    batch_size=100,
    classes=None,
    target=None,
    baseline=False,
    comparator=None,
    error_score="raise",
    verbose=0,
):
    """Test-then-train evaluation of an online estimator over a stream.

    For each batch: score the model learned so far on the batch, then call
    ``partial_fit`` on it. Batches that arrive before the estimator is fitted
    are only learned from: the first batch, and more for an estimator that
    needs several rows before it has a model (a principal curve's
    ``init_size``). Works for any estimator with ``partial_fit`` —
    skonline's or scikit-learn's (``SGDClassifier``, ``IncrementalPCA`` …) —
    as :func:`sklearn.model_selection.cross_validate` does for batch
    learners. Scikit-learn's ``Pipeline`` has no ``partial_fit``: to stream a
    scaler and a model, use :func:`skonline.pipeline.make_online_pipeline`,
    whose ``partial_fit`` updates both.

    Several estimators (a dict ``{name: estimator}``) are evaluated in one
    pass: the stream is read once, and every estimator scores each batch
    before any of them learns it. Each estimator's result is the one a run
    with it alone gives, to the last bit.

    Read more in the :ref:`User Guide <prequential>`.

    Parameters
    ----------
    estimator : estimator with ``partial_fit``, or dict of str to estimator
        Cloned first; the clone is trained and returned. A dict: several
        estimators evaluated on the same stream in one pass (a list is
        refused: name the estimators).
    X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features) or iterable
        The stream: an array cut into consecutive batches of ``batch_size``
        rows, or any other iterable (a generator, an iterator, a pandas
        ``pd.read_csv(path, chunksize=...)`` reader) yielding batches
        ``X_batch``, pairs ``(X_batch, y_batch)``, or DataFrames holding
        their target column (with ``target``). An iterable is read once,
        whatever the number of estimators.
    y : array-like of shape (n_samples,), default=None
        Targets, with an array ``X`` (``None`` for transformers, when ``X``
        yields pairs, or with ``target``).
    scoring : str, callable, list, tuple or dict, default=None
        Scikit-learn scorer names or callables ``scorer(estimator, X, y)``
        (greater is better), or a dict ``{name: scorer}``. ``None``:
        ``"accuracy"`` for classifiers, ``"neg_mean_absolute_error"`` for
        regressors, ``"neg_reconstruction_error"`` (the negative of
        :func:`reconstruction_error`) for transformers. The built-in scorers
        whose metric needs every class when a batch lacks some
        (``"neg_log_loss"``, ``"neg_brier_score"``, ``"top_k_accuracy"``,
        ``"roc_auc_ovr"`` …) get the classes of the stream as ``labels``; a
        callable gets what it was made with (``make_scorer(log_loss,
        response_method="predict_proba", greater_is_better=False,
        labels=classes)``).
    batch_size : int, default=100
        Rows per batch when ``X`` is an array.
    classes : array-like of shape (n_classes,), default=None
        Every class of the stream, passed to the first ``partial_fit`` of a
        classifier, and to the scorers that need them (log loss of one-row
        batches). ``None``: the classes of ``y`` when ``y`` is an array;
        required when ``X`` yields batches.
    target : str, default=None
        The name of the column of ``X`` (a DataFrame, or an iterable of
        DataFrames such as a CSV reader) that holds the targets: each batch
        is split into ``X_batch.drop(columns=[target])`` and
        ``X_batch[target]``.
    baseline : bool, default=False
        Also score :class:`PrefixBaseline` on the same batches (the majority
        class, the mean target, or the mean row of the rows seen so far).
    comparator : {None, "best_fixed_projection"}, default=None
        For transformers with ``n_components``: also report the cumulative
        compression loss ``Σ ‖x − x̂‖²`` of the estimator and of the best fixed
        rank-``k`` projection of the (uncentred) rows scored so far, chosen in
        hindsight (Warmuth & Kuzmin 2008, eq. 2), and their difference, the
        regret.
    error_score : "raise" or float, default="raise"
        What a batch whose scoring or ``partial_fit`` raises gives, as in
        :func:`~sklearn.model_selection.cross_validate`. ``"raise"``: the
        exception is raised again with the same type, its message naming the
        batch and its rows in the stream (counted from 0), and its attribute
        ``partial_result`` holding the results of the batches before it, with
        ``estimator`` trained on them (a skonline estimator is left as it was
        before the failing call; another may be left as its failed call left
        it). A number: a warning, that value as the batch's scores, its rows
        left out of the cumulative scores, and the evaluation goes on; a batch
        whose ``partial_fit`` failed is not learned from (``failed`` is
        ``True`` for it, ``n_samples_seen`` does not grow). An exception
        raised by a stream ``X`` while it is read is always raised, with
        ``partial_result``. Several estimators: each is recorded on its own
        with a number (the others are not affected); with ``"raise"``, the
        other estimators complete the failing batch (score it and learn it),
        then the exception is raised, naming the batch and the estimator,
        with ``partial_result`` a dict of every estimator's results: the
        batches before the failing one for the estimators that failed on it,
        the failing batch included for the others.
    verbose : int, default=0
        ``1``: show progress on ``sys.stderr``: a bar with the rows per
        second, the time elapsed and the time left (or, over a generator, a
        row counter) in a terminal or a notebook, at most about ten lines
        elsewhere (:ref:`progress`); ``2``: with the running cumulative
        value of the first score.

    Returns
    -------
    results : :class:`~sklearn.utils.Bunch` or dict of str to Bunch
        One ``Bunch`` per estimator (a dict ``{name: Bunch}``, in the order
        of ``estimator``, when it is a dict), of arrays with one entry per
        batch:

        ``n_samples_seen``
            Rows learned from after the batch.
        ``batch_rows``
            Rows in the batch.
        ``fit_time``, ``score_time``
            Seconds spent in ``partial_fit`` and in scoring.
        ``failed``
            Whether scoring the batch or learning from it failed (only with
            a number as ``error_score``).
        ``batch_<name>``
            Score of the batch by the model before it learned the batch
            (NaN for the batches that arrived before the model was fitted;
            ``error_score`` for a batch whose scoring failed). Each scorer's
            value is its own: the order of the scorers changes nothing.
        ``cumulative_<name>``
            Score of every row scored so far, each by the model of its
            time: the exact prequential value (a row-weighted mean for
            row-mean scores such as accuracy or MAE; recomputed on all
            recorded predictions for scores such as R² or ROC AUC; a
            row-weighted mean of the batch values for callables).
        ``baseline_batch_<name>``, ``baseline_cumulative_<name>``
            The same for the baseline, with ``baseline=True``.
        ``cumulative_loss``, ``comparator_cumulative_loss``, ``regret``
            With ``comparator``.

        and ``estimator``, the trained clone.

    Raises
    ------
    ValueError
        If the stream is empty (``X`` has no rows, or yields no rows), or
        ``target`` is not a column of its DataFrames.
    Exception
        With ``error_score="raise"``, the exception of a failing batch, of its
        type, naming the batch and its first row and carrying
        ``partial_result``.

    See Also
    --------
    PrequentialDisplay : Plot the result.
    sklearn.model_selection.cross_validate : Evaluation of batch learners.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import SGDClassifier
    >>> from skonline.evaluation import prequential_score
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> res = prequential_score(SGDClassifier(random_state=0), X, y, batch_size=50)
    >>> res.batch_accuracy.shape, bool(res.cumulative_accuracy[-1] > 0.5)
    ((12,), True)

    Several estimators, one pass over a generator of ``(X, y)`` batches:

    >>> from skonline import RFDSONClassifier
    >>> from sklearn.utils import gen_batches
    >>> stream = ((X[sl], y[sl]) for sl in gen_batches(len(X), 50))
    >>> res = prequential_score(
    ...     {"sgd": SGDClassifier(random_state=0), "rfdson": RFDSONClassifier()},
    ...     stream,
    ...     classes=[0, 1],
    ... )
    >>> sorted(res), res["rfdson"].batch_accuracy.shape
    (['rfdson', 'sgd'], (12,))
    """
    several = isinstance(estimator, Mapping)
    named = dict(estimator) if several else {None: estimator}
    if several and not named:
        raise ValueError("estimator is an empty dict: no estimator to evaluate.")
    for name, est in named.items():
        if not hasattr(est, "partial_fit"):
            hint = (
                f" (estimator {name!r})"
                if several
                else " (pass several estimators as a dict {name: estimator})"
                if isinstance(est, (list, tuple))
                else ""
            )
            raise TypeError(
                f"{type(est).__name__} has no partial_fit: it cannot learn online{hint}."
            )
    if not (isinstance(batch_size, numbers.Integral) and int(batch_size) >= 1):
        raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}.")
    batch_size = int(batch_size)
    if comparator not in (None, "best_fixed_projection"):
        raise ValueError(f"comparator must be None or 'best_fixed_projection'; got {comparator!r}.")
    if not (
        (isinstance(error_score, str) and error_score == "raise")
        or (isinstance(error_score, numbers.Real) and not isinstance(error_score, bool))
    ):
        raise ValueError(f"error_score must be 'raise' or a number; got {error_score!r}.")
    if target is not None and _is_array_like(X):
        if y is not None:
            raise ValueError("give the targets as y or as the column target=, not both.")
        X, y = _split_target(X, target)
    stream = _batches(X, y, batch_size, target)
    n_rows: int | None = None
    if _is_array_like(X):
        n_rows = _n_stream_rows(X)
        if n_rows == 0:
            raise ValueError("the stream is empty: X has 0 rows.")
    runs = []
    for name, est in named.items():
        model = clone(est)
        model_classes = classes
        if is_classifier(model) and classes is None:
            if y is None:
                raise ValueError(
                    "classes must be given for a classifier fed an iterable of batches"
                    + ("." if name is None else f" (estimator {name!r}).")
                )
            model_classes = np.unique(column_or_1d(y))
        labels = np.unique(model_classes) if is_classifier(model) else None
        n_components: Any = None
        if comparator is not None:
            n_components = getattr(model, "n_components", None)
            if not isinstance(n_components, numbers.Integral):
                raise ValueError(
                    "comparator='best_fixed_projection' needs a transformer with an integer "
                    "n_components" + ("." if name is None else f" (estimator {name!r}).")
                )
        scorers = _resolve_scoring(model, scoring, labels)
        runs.append(_Run(name, model, scorers, model_classes, baseline, n_components))

    def results():
        """Each model's results of the batches it completed (on a failure: those before it)."""
        if not several:
            return runs[0].results()
        return {run.name: run.results() for run in runs}

    first_row = 0  # index in the stream of the first row of the batch
    desc = (
        f"prequential {type(runs[0].model).__name__}"
        if not several
        else f"prequential ({len(runs)} models)"
    )
    # a failure leaves the bar where it stopped (and writes no last line)
    with Progress(n_rows, desc=desc, verbose=verbose) as progress:
        for i in itertools.count():
            try:
                Xb, yb = next(stream)
            except StopIteration:
                break
            except Exception as err:
                _raise_in_batch(err, i, first_row, None, "reading it from the stream", results())
            n = _n_rows(Xb)
            if n == 0:
                continue
            where = _where(i, first_row, n)
            # every model scores the batch before any model learns it
            errors = {}
            for run in runs:
                failure = run.score(Xb, yb, n, where, error_score)
                if failure is not None:
                    errors[run.name] = (failure, "scoring")
            for run in runs:
                if run.name not in errors:
                    failure = run.learn(Xb, yb, n, where, error_score)
                    if failure is not None:
                        errors[run.name] = (failure, "partial_fit")
            for run in runs:
                if run.name not in errors:
                    run.close(n)
            if errors:  # error_score="raise": the other models completed the batch
                name, (failure, phase) = next(iter(errors.items()))
                if several:
                    phase = f"{phase} of the estimator {name!r}"
                _raise_in_batch(failure, i, first_row, n, phase, results(), failed=list(errors))
            first_row += n
            if progress.enabled:  # the running scores are read only to be shown
                progress.update(n, **dict(_running_score(run) for run in runs))
    if first_row == 0:
        raise ValueError("the stream is empty.")
    for run in runs:
        if run.scorers and not any(run.failures) and not _scored_any(run):
            warnings.warn(
                f"prequential_score: {run.who()} scored no row: every batch of the "
                f"{first_row} rows arrived before it had learned one (the first batch is only "
                "learned from), so every cumulative score is NaN. Use a smaller batch_size.",
                UserWarning,
                stacklevel=2,
            )
    return results()


def _scored_any(run) -> bool:
    """Whether some batch got a score (a finite value of some scorer) on the estimator's track."""
    track = run.tracks[0]
    return any(np.isfinite(v) for name in run.scorers for v in track.batch[name])


def _comparator_step(model, Xb, cov, n_components):
    """The learner's loss on a batch, the scatter with it, and the comparator's loss."""
    batch_loss = float(np.sum(_loss_rows(model, Xb)))
    dense = Xb.toarray() if sp.issparse(Xb) else np.asarray(Xb, dtype=np.float64)
    cov = dense.T @ dense if cov is None else cov + dense.T @ dense
    eig = np.linalg.eigvalsh((cov + cov.T) / 2.0)
    return batch_loss, cov, float(np.sum(np.maximum(eig[: eig.size - n_components], 0.0)))


def _where(i, first_row, n):
    """Names a batch and its rows in the stream."""
    if n is None:
        return f"batch {i} of the stream (from row {first_row})"
    return f"batch {i} of the stream (rows {first_row} to {first_row + n - 1})"


def _raise_in_batch(err, i, first_row, n, phase, partial, failed=None):
    """Raise ``err`` again, naming the batch and carrying the results before it.

    The exception raised has the type of ``err`` (which becomes its cause),
    its message starts with the batch and its rows, and its attribute
    ``partial_result`` holds the results of the batches before it, with the
    estimator trained on them (with several estimators: a dict of each one's
    results; ``failed`` names those that failed on the batch). An exception
    type that cannot be built from a message is raised as it is, with the
    same attribute and a note.
    """
    if isinstance(partial, Bunch):
        kept = (
            f"the results of the {len(partial.batch_rows)} batch(es) before it, with the "
            "estimator trained on them, are in this exception's partial_result"
        )
    else:
        kept = (
            "each estimator's results, with the estimator trained on them, are in this "
            "exception's partial_result, a dict name -> result"
        )
        if failed:
            others = [name for name in partial if name not in failed]
            kept = f"failed on it: {', '.join(map(repr, failed))}; " + kept
            if others:
                kept += f" (with this batch for {', '.join(map(repr, others))})"
    message = (
        f"{_where(i, first_row, n)} failed in {phase}: {err} "
        f"({kept}; error_score=np.nan skips failing batches)"
    )
    try:
        new = type(err)(message)
        if str(new) != message:
            new = None
    except Exception:
        new = None
    target = err if new is None else new
    try:
        target.partial_result = partial
    except AttributeError:  # pragma: no cover - an exception type without __dict__
        pass
    if new is None:
        if hasattr(err, "add_note"):
            err.add_note(message)
        raise err
    raise new from err


def _scorer_names(results) -> list[str]:
    return [k[len("batch_") :] for k in results if k.startswith("batch_") and k != "batch_rows"]

"""TEMPORARY: the previous base, kept only while the families move to skonline.base.

An online estimator in skonline is a scikit-learn estimator whose learning is
one ordered pass over the rows it is given:

* ``partial_fit(X)`` validates the *whole* batch first (with
  :func:`sklearn.utils.validation.validate_data`, ``reset`` only on the first
  call) and only then updates the state, row after row, in order. A batch that
  fails validation raises and leaves the estimator exactly as it was.
* ``fit(X)`` is a reset followed by the same pass.
* The learned state is made of trailing-underscore attributes plus the private
  names listed in ``_private_state``; :meth:`OnlineEstimator._reset` deletes
  exactly those (and nothing scikit-learn keeps on the instance, such as the
  ``set_output`` configuration).

Subclasses implement three hooks:

``_validate_batch(X, y, first_call)``
    Return the validated ``(X, y)``; may add checks beyond ``validate_data``
    (the default rejects values whose squares overflow).
``_init_state(X, y)``
    Allocate the state on the first call (shapes are known from ``X``).
``_update(X, y)``
    One online pass over the validated rows.
"""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from .utils._sklearn_compat import _check_sample_weight, check_is_fitted, validate_data

__all__ = ["OnlineClassifierMixin", "OnlineEstimator", "check_finite_magnitude"]

#: Largest absolute value accepted in a data matrix. Every skonline algorithm
#: works with squared norms or products of rows; a single square above
#: ``1e300`` is certain to overflow float64 and turn the state into inf/NaN.
#: Sums of many squares can still overflow below this bound; the kernels fall
#: back to overflow-safe routes there (e.g. the SVD compaction of the sketches).
MAX_ABS_VALUE = 1e150


def check_finite_magnitude(X, *, max_abs=MAX_ABS_VALUE, name="X"):
    """Raise ``ValueError`` if a finite entry of ``X`` is too large to square.

    Parameters
    ----------
    X : ndarray or sparse matrix
        Already validated (finite, numeric) data.
    max_abs : float, default=1e150
        Largest accepted absolute value.
    name : str, default="X"
        Name used in the error message.
    """
    data = X.data if sp.issparse(X) else X
    if data.size == 0:
        return
    largest = max(float(data.max()), -float(data.min()))  # no |X| copy
    if largest > max_abs:
        raise ValueError(
            f"{name} contains a value too large in magnitude ({largest:.3g}); skonline "
            f"squares the data and needs |{name}| <= {max_abs:.0e} to stay finite in float64. "
            "Rescale the input."
        )


class OnlineEstimator(BaseEstimator):
    """Base class of skonline's online estimators (see the module docstring).

    Class attributes a subclass may override:

    ``_private_state`` : tuple of str
        Private attributes that belong to the learned state (deleted on reset).
    ``_accept_sparse`` : bool or str
        Passed to ``validate_data`` (``"csr"`` for estimators with sparse support).
    ``_constant_memory`` : bool
        True when the fitted state does not grow with the number of rows seen;
        checked by :func:`skonline.utils.estimator_checks.check_constant_memory`.
    ``_exact_row_splits`` : bool
        True when any split of the rows across ``partial_fit`` calls gives a
        bit-identical state (per-row algorithms).
    """

    _private_state: tuple[str, ...] = ()
    _accept_sparse: bool | str = False
    _constant_memory: bool = True
    _exact_row_splits: bool = True

    # ------------------------------------------------------------------ state
    def _state_names(self):
        """Names of the attributes holding learned state, in a stable order."""
        names = [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]
        names += [k for k in self._private_state if k in vars(self)]
        return names

    def _reset(self):
        """Forget everything learned: delete the state attributes."""
        for name in self._state_names():
            delattr(self, name)

    def _is_initialized(self):
        return hasattr(self, "n_features_in_")

    def _check_fitted(self):
        check_is_fitted(self, "n_features_in_")

    # ------------------------------------------------------------- validation
    def _validate_batch(self, X, y, first_call):
        """Validate a training batch; default: features only, finite, float.

        On the first call a subclass may record state here (e.g. ``classes_``)
        once every check has passed; a failure on the first call resets the
        estimator anyway.
        """
        return self._check_training_data(X, y, first_call)

    def _check_training_data(self, X, y, first_call, **check_params):
        """``validate_data`` on a training batch (``y`` too when given) plus the magnitude guard."""
        params = {
            "reset": first_call,
            "accept_sparse": self._accept_sparse,
            "dtype": [np.float64, np.float32],
            "ensure_min_samples": 1,
            **check_params,
        }
        if y is None:  # passing y=None lets validate_data reject a missing required target
            X = validate_data(self, X, None, **params)
        else:
            X, y = validate_data(self, X, y, **params)
        check_finite_magnitude(X)
        return X, y

    def _validate_predict(self, X):
        """Validate data for transform / predict / score (no state is written)."""
        self._check_fitted()
        X = validate_data(
            self,
            X,
            reset=False,
            accept_sparse=self._accept_sparse,
            dtype=[np.float64, np.float32],
        )
        check_finite_magnitude(X)
        return X

    # ------------------------------------------------------------------- hooks
    def _init_state(self, X, y):  # pragma: no cover - abstract
        raise NotImplementedError

    def _update(self, X, y):  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------ the passes
    def _validate_update_params(self, X, sample_weight):
        """Keyword arguments of ``_update`` validated before any state changes.

        The default rejects ``sample_weight``; estimators that support it
        return ``{"sample_weight": validated_weights}``.
        """
        if sample_weight is not None:
            raise TypeError(f"{type(self).__name__} does not support sample_weight")
        return {}

    @staticmethod
    def _sample_weight_params(X, sample_weight):
        """``{"sample_weight": w}`` with ``w`` validated non-negative (ones when ``None``).

        For estimators whose ``_update`` takes per-row weights.
        """
        if sample_weight is None:
            return {"sample_weight": np.ones(X.shape[0])}
        sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        return {"sample_weight": sw}

    def _fit_epochs(self, X, y, sample_weight, **fit_params):
        """``fit`` of estimators with SGD-style epochs (``max_iter``, ``shuffle``,
        ``random_state``, ``warm_start`` parameters); sets ``n_iter_``."""
        self._online_fit(
            X,
            y,
            sample_weight,
            max_iter=self.max_iter,
            shuffle=self.shuffle,
            random_state=self.random_state,
            warm_start=self.warm_start,
            **fit_params,
        )
        self.n_iter_ = self.max_iter
        return self

    def _online_partial_fit(self, X, y=None, sample_weight=None, **fit_params):
        """One ordered online pass: validate everything, then update.

        ``fit_params`` (such as a classifier's ``classes``) go to
        ``_validate_batch``.
        """
        first_call = not self._is_initialized()
        try:
            X, y = self._validate_batch(X, y, first_call, **fit_params)
            update_params = self._validate_update_params(X, sample_weight)
        except Exception:
            if first_call:
                # validate_data records feature names before checking values;
                # an unfitted estimator must stay unfitted.
                self._reset()
            raise
        if first_call:
            self._init_state(X, y)
        self._update(X, y, **update_params)
        return self

    def _online_fit(
        self,
        X,
        y=None,
        sample_weight=None,
        *,
        max_iter=1,
        shuffle=False,
        random_state=None,
        warm_start=False,
        **fit_params,
    ):
        """Reset (unless ``warm_start``), then ``max_iter`` passes — transactionally.

        The new state is built on a copy (an unfitted clone, or a deep copy for
        ``warm_start``) and moved into ``self`` only when validation and every
        pass have succeeded, so a failed ``fit`` leaves a fitted estimator
        untouched. With ``shuffle`` the rows are permuted before each pass.
        """
        warm = warm_start and self._is_initialized()
        est = copy.deepcopy(self) if warm else clone(self)
        X, y = est._validate_batch(X, y, not warm, **fit_params)
        update_params = est._validate_update_params(X, sample_weight)
        if not warm:
            est._init_state(X, y)
        rng = check_random_state(random_state)
        for _ in range(max_iter):
            if shuffle:
                order = rng.permutation(X.shape[0])
                est._update(
                    X[order],
                    None if y is None else y[order],
                    **{k: v[order] for k, v in update_params.items()},
                )
            else:
                est._update(X, y, **update_params)
        self._reset()
        for name in est._state_names():
            setattr(self, name, getattr(est, name))
        return self


class OnlineClassifierMixin:
    """Target handling for online classifiers (``classes=`` on the first call).

    Follows scikit-learn's ``partial_fit`` convention: the first call must list
    every class; later calls may omit ``classes`` and must not bring a label
    outside ``classes_``. ``fit`` takes the classes from ``y``. Nothing is
    written before the whole batch has been checked.
    """

    def _validate_batch(self, X, y, first_call, classes=None):
        X, y = self._check_training_data(X, y, first_call)
        check_classification_targets(y)
        if first_call:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit "
                    "(every label the stream may contain)."
                )
            known = np.unique(np.asarray(classes))
            check_classification_targets(known)
        else:
            known = self.classes_
            if classes is not None and not np.array_equal(np.unique(classes), known):
                raise ValueError(
                    f"classes={np.unique(classes).tolist()} is not the same as on the first call "
                    f"to partial_fit: {known.tolist()}."
                )
        unseen = np.setdiff1d(np.unique(y), known)
        if unseen.size:
            raise ValueError(
                f"y contains labels {unseen.tolist()} that are not in classes {known.tolist()}."
            )
        if first_call:
            self.classes_ = known
        return X, y

    @staticmethod
    def _classes_from(y):
        """The classes ``fit`` takes from ``y`` (validated again with the batch)."""
        return np.unique(column_or_1d(y, warn=True)) if y is not None else None

    def _online_fit(self, X, y=None, sample_weight=None, **kwargs):
        if not (kwargs.get("warm_start") and self._is_initialized()):
            kwargs["classes"] = self._classes_from(y)
        return super()._online_fit(X, y, sample_weight, **kwargs)


def labels_from_scores(classes, scores, *, zero_is_positive):
    """Class labels from decision scores of shape (n, K).

    Binary (``K == 1``): ``classes[1]`` where the score is positive (or zero,
    with ``zero_is_positive``); otherwise the argmax over the columns.
    """
    if scores.shape[1] == 1:
        positive = scores[:, 0] >= 0 if zero_is_positive else scores[:, 0] > 0
        return classes[positive.astype(int)]
    return classes[np.argmax(scores, axis=1)]


class LinearReadoutMixin:
    """``_raw_decision``: the (n, K) scores ``X @ _coef.T + _intercept`` of validated ``X``."""

    def _raw_decision(self, X):
        X = self._validate_predict(X)
        return np.asarray(X @ self._coef.T) + self._intercept


class LinearClassifierReadoutMixin:
    """``decision_function`` of an online linear classifier."""

    def decision_function(self, X):
        """``X @ coef_.T + intercept_`` (1-D for binary problems)."""
        scores = self._raw_decision(X)
        return scores.ravel() if scores.shape[1] == 1 else scores

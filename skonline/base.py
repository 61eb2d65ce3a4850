"""The shared online base of every skonline estimator.

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

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone

from .utils._sklearn_compat import check_is_fitted, validate_data

__all__ = ["OnlineEstimator", "check_finite_magnitude"]

#: Largest absolute value accepted in a data matrix. Every skonline algorithm
#: works with squared norms or products of rows; above this bound they overflow
#: float64 (``1e150 ** 2 == 1e300``) and the state would silently become inf/NaN.
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
    largest = float(np.max(np.abs(data)))
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
        """Validate a training batch; default: features only, finite, float."""
        X = validate_data(
            self,
            X,
            reset=first_call,
            accept_sparse=self._accept_sparse,
            dtype=[np.float64, np.float32],
            ensure_min_samples=1,
        )
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
    def _online_partial_fit(self, X, y=None):
        """One ordered online pass: validate everything, then update."""
        first_call = not self._is_initialized()
        try:
            X, y = self._validate_batch(X, y, first_call)
        except Exception:
            if first_call:
                # validate_data records feature names before checking values;
                # an unfitted estimator must stay unfitted.
                self._reset()
            raise
        if first_call:
            self._init_state(X, y)
        self._update(X, y)
        return self

    def _online_fit(self, X, y=None):
        """Reset, then one pass.

        The batch is validated on an unfitted clone first, so that a bad batch
        given to ``fit`` leaves an already fitted estimator untouched too.
        """
        fresh = clone(self)
        X, y = fresh._validate_batch(X, y, True)
        self._reset()
        for name in fresh._state_names():
            setattr(self, name, getattr(fresh, name))
        self._init_state(X, y)
        self._update(X, y)
        return self

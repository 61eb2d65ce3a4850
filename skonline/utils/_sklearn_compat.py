"""The one module that imports private scikit-learn API.

Everything skonline needs from scikit-learn's private modules is re-exported
from here, so that a change in scikit-learn's internals is fixed in one place.
"""

import functools
from collections.abc import Callable
from typing import Any

from sklearn._config import _get_threadlocal_config
from sklearn.base import _fit_context as _sklearn_fit_context
from sklearn.pipeline import _name_estimators
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    StrOptions,
    validate_params,
)
from sklearn.utils.metadata_routing import _routing_enabled
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data


def _fit_context(*, prefer_skip_nested_validation: bool) -> Callable[[Any], Any]:
    """scikit-learn's ``_fit_context``, without its context managers on a later ``partial_fit``.

    scikit-learn's decorator validates the parameters (not for a fitted
    estimator's ``partial_fit``), then enters ``config_context`` (which sets
    every configuration key twice) and its callback context: about 10 µs, as
    much as learning a row. A ``partial_fit`` of a fitted estimator that runs
    no scikit-learn callback (skonline's never do) only needs the nested
    validation switched off: set in the thread's configuration and restored,
    which is what ``config_context`` does. Everything else goes through
    scikit-learn's decorator.
    """
    sklearn_decorator = _sklearn_fit_context(
        prefer_skip_nested_validation=prefer_skip_nested_validation
    )

    def decorator(fit_method: Any) -> Any:
        full = sklearn_decorator(fit_method)
        if fit_method.__name__ != "partial_fit" or not prefer_skip_nested_validation:
            return full

        @functools.wraps(fit_method)
        def wrapper(estimator: Any, *args: Any, **kwargs: Any) -> Any:
            fitted = getattr(estimator, "__sklearn_is_fitted__", None)
            if fitted is None or not fitted() or "_callback_fit_ctx" in estimator.__dict__:
                return full(estimator, *args, **kwargs)
            config = _get_threadlocal_config()
            before = config["skip_parameter_validation"]
            config["skip_parameter_validation"] = True
            try:
                return fit_method(estimator, *args, **kwargs)
            finally:
                config["skip_parameter_validation"] = before

        return wrapper

    return decorator


__all__ = [
    "HasMethods",
    "Hidden",
    "Interval",
    "StrOptions",
    "_check_sample_weight",
    "_fit_context",
    "_name_estimators",
    "_routing_enabled",
    "check_is_fitted",
    "validate_data",
    "validate_params",
]

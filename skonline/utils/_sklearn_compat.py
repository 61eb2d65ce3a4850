"""The one module that imports private scikit-learn API.

Everything skonline needs from scikit-learn's private modules is re-exported
from here, so that a change in scikit-learn's internals is fixed in one place.
"""

from sklearn.base import _fit_context
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

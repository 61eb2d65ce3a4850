"""skonline: scikit-learn compatible online learning algorithms with guarantees.

Every estimator learns in one ordered pass per ``partial_fit`` call, keeps
constant memory where its algorithm does, and passes scikit-learn's
``check_estimator``.

The estimators and subpackages are imported on first use, so ``import
skonline`` (and ``python -m skonline --help``) does not load scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0.dev0"

#: public name -> subpackage that defines it
_ESTIMATORS = {
    "AdaptiveOnlinePCA": "decomposition",
    "FrequentDirections": "decomposition",
    "OnlineVarianceMinimizer": "decomposition",
    "RandomizedOnlinePCA": "decomposition",
    "RobustFrequentDirections": "decomposition",
    "RFDSONClassifier": "linear_model",
    "RFDSONRegressor": "linear_model",
    "ScaleInvariantClassifier": "linear_model",
    "ScaleInvariantRegressor": "linear_model",
    "SequentialPrincipalCurve": "manifold",
}
_SUBPACKAGES = (
    "dask",
    "datasets",
    "decomposition",
    "evaluation",
    "linear_model",
    "manifold",
    "pipeline",
    "utils",
)

__all__ = [
    "AdaptiveOnlinePCA",
    "FrequentDirections",
    "OnlineVarianceMinimizer",
    "RFDSONClassifier",
    "RFDSONRegressor",
    "RandomizedOnlinePCA",
    "RobustFrequentDirections",
    "ScaleInvariantClassifier",
    "ScaleInvariantRegressor",
    "SequentialPrincipalCurve",
    "__version__",
]

if TYPE_CHECKING:
    from .decomposition import (
        AdaptiveOnlinePCA,
        FrequentDirections,
        OnlineVarianceMinimizer,
        RandomizedOnlinePCA,
        RobustFrequentDirections,
    )
    from .linear_model import (
        RFDSONClassifier,
        RFDSONRegressor,
        ScaleInvariantClassifier,
        ScaleInvariantRegressor,
    )
    from .manifold import SequentialPrincipalCurve


def __getattr__(name: str) -> Any:
    if name in _ESTIMATORS:
        value = getattr(importlib.import_module(f".{_ESTIMATORS[name]}", __name__), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_ESTIMATORS, *_SUBPACKAGES})

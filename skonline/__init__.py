"""skonline: scikit-learn compatible online learning algorithms with guarantees.

Every estimator learns in one ordered pass per ``partial_fit`` call, keeps
constant memory where its algorithm does, and passes scikit-learn's
``check_estimator``.
"""

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

__version__ = "0.1.0.dev0"

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

"""skonline: scikit-learn compatible online learning algorithms with guarantees.

Every estimator learns in one ordered pass per ``partial_fit`` call, keeps
constant memory where its algorithm does, and passes scikit-learn's
``check_estimator``.
"""

from .decomposition import FrequentDirections, RobustFrequentDirections
from .linear_model import RFDSONClassifier, RFDSONRegressor

__version__ = "0.1.0.dev0"

__all__ = [
    "FrequentDirections",
    "RFDSONClassifier",
    "RFDSONRegressor",
    "RobustFrequentDirections",
    "__version__",
]

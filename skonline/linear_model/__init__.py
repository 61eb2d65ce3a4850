"""Online linear learners: sketched online Newton steps and scale-invariant learners."""

from ._scale_invariant import ScaleInvariantClassifier, ScaleInvariantRegressor
from ._son import RFDSONClassifier, RFDSONRegressor

__all__ = [
    "RFDSONClassifier",
    "RFDSONRegressor",
    "ScaleInvariantClassifier",
    "ScaleInvariantRegressor",
]

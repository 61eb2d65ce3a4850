"""Online linear learners: sketched online Newton steps."""

from ._son import RFDSONClassifier, RFDSONRegressor

__all__ = ["RFDSONClassifier", "RFDSONRegressor"]

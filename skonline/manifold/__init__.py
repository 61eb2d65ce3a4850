"""Principal curves: learned online, and the batch curve they are compared with."""

from ._hastie_stuetzle import hastie_stuetzle_curve
from ._principal_curve import SequentialPrincipalCurve

__all__ = ["SequentialPrincipalCurve", "hastie_stuetzle_curve"]

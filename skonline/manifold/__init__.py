"""Principal curves learned online."""

from ._principal_curve import SequentialPrincipalCurve

__all__ = ["SequentialPrincipalCurve"]

"""Evaluation helpers: covariance errors of sketches."""

from ._sketch_metrics import covariance_error, spectral_norm_of_difference

__all__ = ["covariance_error", "spectral_norm_of_difference"]

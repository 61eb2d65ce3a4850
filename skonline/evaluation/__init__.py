"""Evaluation helpers: covariance errors of sketches, comparators of online PCA."""

from ._pca_regret import (
    best_fixed_projection_losses,
    best_partition_losses,
    compression_losses,
    follow_the_leader_losses,
    subspace_overlap,
    top_subspace,
)
from ._sketch_metrics import covariance_error, spectral_norm_of_difference

__all__ = [
    "best_fixed_projection_losses",
    "best_partition_losses",
    "compression_losses",
    "covariance_error",
    "follow_the_leader_losses",
    "spectral_norm_of_difference",
    "subspace_overlap",
    "top_subspace",
]

"""Evaluation: prequential (test-then-train) scores and plots, sketch errors, PCA comparators."""

from ._display import PrequentialDisplay
from ._pca_regret import (
    best_fixed_projection_losses,
    best_partition_losses,
    compression_losses,
    follow_the_leader_losses,
    subspace_overlap,
    top_subspace,
)
from ._prequential import PrefixBaseline, prequential_score, reconstruction_error
from ._sketch_metrics import covariance_error, spectral_norm_of_difference

__all__ = [
    "PrefixBaseline",
    "PrequentialDisplay",
    "best_fixed_projection_losses",
    "best_partition_losses",
    "compression_losses",
    "covariance_error",
    "follow_the_leader_losses",
    "prequential_score",
    "reconstruction_error",
    "spectral_norm_of_difference",
    "subspace_overlap",
    "top_subspace",
]

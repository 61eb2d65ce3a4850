"""Streaming matrix sketches and online PCA."""

from ._frequent_directions import FrequentDirections, RobustFrequentDirections
from ._online_pca import AdaptiveOnlinePCA, RandomizedOnlinePCA
from ._subset_hedge import AdaptiveSubsetHedge
from ._variance_minimizer import OnlineVarianceMinimizer

__all__ = [
    "AdaptiveOnlinePCA",
    "AdaptiveSubsetHedge",
    "FrequentDirections",
    "OnlineVarianceMinimizer",
    "RandomizedOnlinePCA",
    "RobustFrequentDirections",
]

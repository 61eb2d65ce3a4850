"""Streaming matrix sketches and online PCA."""

from ._frequent_directions import FrequentDirections, RobustFrequentDirections

__all__ = ["FrequentDirections", "RobustFrequentDirections"]

"""Data helpers for the papers' experiments (local files and generators; no downloads)."""

from ._libsvm import load_libsvm_split

__all__ = ["load_libsvm_split"]

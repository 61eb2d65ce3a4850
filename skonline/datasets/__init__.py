"""Data helpers for the papers' experiments: reading local files (no downloads)."""

from ._libsvm import load_libsvm_split

__all__ = ["load_libsvm_split"]

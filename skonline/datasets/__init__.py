"""Data helpers for the papers' experiments: generated streams and local files (no downloads)."""

from ._drift import clip_row_norms, make_digits_stream, make_switching_subspaces
from ._libsvm import load_libsvm_split

__all__ = [
    "clip_row_norms",
    "load_libsvm_split",
    "make_digits_stream",
    "make_switching_subspaces",
]

"""Data helpers: generated streams and local files (no downloads)."""

from ._drift import clip_row_norms, make_digits_stream, make_switching_subspaces
from ._libsvm import load_libsvm_split
from ._streams import (
    make_curve_stream,
    make_drifting_stream,
    make_topic_documents,
    rescale_columns,
)

__all__ = [
    "clip_row_norms",
    "load_libsvm_split",
    "make_curve_stream",
    "make_digits_stream",
    "make_drifting_stream",
    "make_switching_subspaces",
    "make_topic_documents",
    "rescale_columns",
]

"""Random generators: one conversion of ``random_state`` for every estimator."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["as_generator"]


def as_generator(random_state: Any) -> np.random.Generator:
    """A numpy ``Generator`` from ``None``, an int, a ``RandomState`` or a ``Generator``.

    A ``Generator`` is returned as is (its draws advance); a ``RandomState``
    seeds a new ``Generator`` with one draw; ``None`` or an int seed a new one.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    return np.random.default_rng(random_state)

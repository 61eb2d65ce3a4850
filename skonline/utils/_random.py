"""Random generators: one conversion of ``random_state`` for every estimator."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

__all__ = ["RANDOM_STATE_OR_GENERATOR", "as_generator", "copy_generator", "own_generator"]

#: The parameter constraint of a ``random_state`` read by :func:`as_generator` or
#: :func:`own_generator`: scikit-learn's (``None``, an int, a ``RandomState``) and a
#: ``Generator`` (which :func:`own_generator` copies into a learned state).
RANDOM_STATE_OR_GENERATOR = ["random_state", np.random.Generator]


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


def own_generator(random_state: Any) -> np.random.Generator:
    """:func:`as_generator` for a learned state: a ``Generator`` is copied, not shared.

    The state then draws from its own generator: the caller's generator
    neither advances nor changes the state by its own later draws.
    """
    rng = as_generator(random_state)
    if rng is not random_state:  # a generator of its own already
        return rng
    twin = copy_generator(rng)
    assert twin is not None  # a copy of a generator
    return twin


def copy_generator(rng: np.random.Generator | None) -> np.random.Generator | None:
    """An independent generator in the same state (``None`` stays ``None``).

    A pass draws from its own copy, so the committed generator never advances.
    The same bit generator type, seed sequence and state: what ``copy.deepcopy``
    gives (the same pickle, the same draws) at a fraction of its cost. A bit
    generator without a ``SeedSequence`` (legacy seeding, or NumPy < 1.25,
    where ``seed_seq`` is not public) is deep-copied.
    """
    if rng is None:
        return None
    bit_generator = rng.bit_generator
    seed_seq = getattr(bit_generator, "seed_seq", None)
    if not isinstance(seed_seq, np.random.SeedSequence):
        return copy.deepcopy(rng)
    try:
        twin = type(bit_generator)(seed_seq)
        twin.state = bit_generator.state
    except (TypeError, ValueError):
        return copy.deepcopy(rng)
    return np.random.Generator(twin)

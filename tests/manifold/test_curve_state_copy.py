"""The curve pass's state copy: equal to a deep copy, sharing nothing a pass changes."""

import copy
import pickle

import numpy as np
import pytest

from skonline.manifold import SequentialPrincipalCurve
from skonline.utils._random import copy_generator


def _mutables(value, seen=None):
    """Every array, dict, list and generator reachable from ``value``."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, (np.ndarray, dict, list, np.random.Generator)):
        found = [value]
        if isinstance(value, dict):
            items = list(value.values())
        else:
            items = value if isinstance(value, list) else []
        for item in items:
            found += _mutables(item, seen)
        return found
    if isinstance(value, tuple):
        return [m for item in value for m in _mutables(item, seen)]
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return [m for item in vars(value).values() for m in _mutables(item, seen)]
    return []


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"reward_estimator": "bandit"},
        {"max_memory": None},
        {"memory_policy": "window", "max_memory": 30},
    ],
)
@pytest.mark.parametrize("rows", [1, 40])  # before the curve exists, and after
def test_copy_is_a_deep_copy(params, rows):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((rows, 3))
    est = SequentialPrincipalCurve(random_state=0, **params).partial_fit(X)
    state = est._state
    twin, deep = state.copy(), copy.deepcopy(state)
    assert pickle.dumps(twin) == pickle.dumps(deep)
    shared = {id(m) for m in _mutables(state)} & {id(m) for m in _mutables(twin)}
    assert not shared
    # the generators continue the same stream, independently
    assert twin.rng.standard_normal() == deep.rng.standard_normal()


def test_pass_on_the_copy_leaves_the_committed_state():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((80, 3))
    est = SequentialPrincipalCurve(random_state=0).partial_fit(X[:60])
    before = pickle.dumps(est)
    committed = est._state
    snapshot = pickle.dumps(committed)
    est.partial_fit(X[60:])
    assert pickle.dumps(committed) == snapshot
    assert pickle.dumps(est) != before


def test_generator_copy_without_a_seed_sequence():
    # a bit generator seeded the legacy way has no SeedSequence (and NumPy < 1.25 has no
    # public seed_seq at all): the copy falls back on a deep copy, the same stream
    for rng in (
        np.random.Generator(np.random.RandomState(0)._bit_generator),
        np.random.default_rng(3),
    ):
        rng.standard_normal(5)
        twin = copy_generator(rng)
        assert twin is not rng and twin.bit_generator is not rng.bit_generator
        assert pickle.dumps(twin) == pickle.dumps(copy.deepcopy(rng))
        assert np.array_equal(twin.standard_normal(4), rng.standard_normal(4))

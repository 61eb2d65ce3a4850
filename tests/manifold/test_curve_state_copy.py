"""The curve pass's state copy: equal to a deep copy, sharing nothing a pass changes.

And the row memory, which checks every number it is written, so the commit's
finite walk need not read it again.
"""

import copy
import pickle

import numpy as np
import pytest
from skonline.utils._validation_fast import state_is_finite

from skonline.base import _nonfinite_fields, shallow_replace
from skonline.manifold import SequentialPrincipalCurve
from skonline.manifold._polyline import segment_sqdist
from skonline.manifold._row_memory import RowMemory
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


def _memory_with_rows():
    rng = np.random.default_rng(2)
    memory = RowMemory.empty(3, 6, max_rows=10)
    V = rng.standard_normal((3, 3))
    for x in rng.standard_normal((5, 3)):
        dist, tau = segment_sqdist(x[None, :], V[0], V[1])
        memory.store(x, dist, tau, explored=False)
    memory.replace_segments(V, 1, 0, 1, 2)  # the first segment becomes two
    return memory, V


@pytest.mark.parametrize("where", ["x", "dist", "tau"])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_row_memory_refuses_a_non_finite_store(where, value):
    memory, _ = _memory_with_rows()
    before = pickle.dumps(memory)
    row = {"x": np.ones(3), "dist": np.ones(2), "tau": np.full(2, 0.5)}
    row[where][-1] = value
    with pytest.raises(FloatingPointError, match="non-finite"):
        memory.store(row["x"], row["dist"], row["tau"], explored=False)
    assert pickle.dumps(memory) == before  # nothing written, no counter moved


def test_row_memory_refuses_non_finite_distances_to_new_segments():
    memory, V = _memory_with_rows()
    before = pickle.dumps(memory)
    bad = V.copy()
    bad[1, 0] = np.inf
    with pytest.raises(FloatingPointError, match="non-finite"):
        memory.replace_segments(bad, 2, 0, 2, 2)
    assert pickle.dumps(memory) == before


def test_commit_walk_passes_over_a_memory_that_checks_its_writes():
    # every memory a pass builds checks its writes, and its copies keep the mark
    rng = np.random.default_rng(0)
    est = SequentialPrincipalCurve(random_state=0).partial_fit(rng.standard_normal((40, 3)))
    state = est._state
    assert state.memory.finite_writes and state.copy().memory.finite_writes
    assert state_is_finite(state.copy(), state)
    # a memory built otherwise is read in full, and named
    arrays = {name: getattr(state.memory, name).copy() for name in RowMemory._ARRAYS}
    arrays["sqdist"][0, 0] = np.nan
    unchecked = RowMemory(**arrays, n_rows=state.memory.n_rows)
    assert not unchecked.finite_writes
    broken = shallow_replace(state, memory=unchecked)
    assert not state_is_finite(broken, state)
    assert _nonfinite_fields(broken, state) == ["memory.sqdist"]
    # the same arrays under the mark are not read: the mark is a promise of the writes
    marked = shallow_replace(state, memory=shallow_replace(unchecked, finite_writes=True))
    assert state_is_finite(marked, state)

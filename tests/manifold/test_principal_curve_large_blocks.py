"""SequentialPrincipalCurve at any ``max_segments``: the compiled local search on large blocks.

A round scores one family of candidates per vertex of the block (moves) and
per position around it (inserts). With low segment penalties the curve grows
to ``max_segments`` and the block can hold every vertex, so a round has up to
``2 max_segments + 1`` families. The compiled search used to keep them in
fixed 64-entry stack arrays: from 65 families on (``max_segments`` >= 32) a
fit raised "block too large" or wrote past the arrays and died with SIGSEGV.

Each compiled fit here runs in a subprocess, so that a crash fails the test
instead of ending the test run; its curve comes back through a file. The same
stream is then fitted in this process with the NumPy reference kernel in
place of the compiled one for the whole pass (as in
``test_the_pass_with_the_numpy_reference_learns_the_same_curve``), which also
records the largest block, so each test checks that the stream reaches a block
the old buffers could not hold.

Equality is exact: the two kernels add a candidate's loss changes in a
different order, so their scores differ by rounding only, and the argmin over
the perturbed objective picks the same candidate unless two candidates tie to
the last bits; the vertices are lattice points and the per-row losses are
computed from the chosen curve by the same code, so the same choices give
bit-identical vertices and losses.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import skonline
from skonline import SequentialPrincipalCurve
from skonline.manifold import _principal_curve_kernels

from ._local_search_reference import score_local_candidates_reference

#: The tree whose skonline this process imported; the subprocess imports the same.
SOURCE_ROOT = str(Path(skonline.__file__).resolve().parents[1])

#: Families the old stack arrays held.
OLD_LIMIT = 64

#: The paper's algorithm, as the user guide states it (principal_curves.rst).
PAPER = dict(
    length_penalty=0.0, turn_penalty=0.0, warm_up_moves=0, clip_grid=False, max_memory=None
)

#: Low prices: the curve grows as fast as the data allow.
LOW = dict(penalty=0.0, length_penalty=0.0, turn_penalty=0.0)

_FIT = """
import json, sys
import numpy as np
from skonline import SequentialPrincipalCurve

X = np.load(sys.argv[1])
params = json.loads(sys.argv[2])
mode, out = sys.argv[3], sys.argv[4]
est = SequentialPrincipalCurve(keep_history=True, **params)
if mode == "rows":
    for x in X:
        est.partial_fit(x[None, :])
elif mode == "batches":
    for start in range(0, X.shape[0], 10):
        est.partial_fit(X[start : start + 10])
else:
    est.fit(X)
np.savez(out, vertices=est.vertices_, losses=est.loss_history_)
"""

_SCORE = """
import json, sys
import numpy as np
from skonline.manifold._local_search import score_local_candidates

with np.load(sys.argv[1]) as f:
    args = [f[name] for name in ("X", "w", "D", "dcur", "amin", "V")]
    G, center = f["G"], f["center"]
outcomes = {}
for i, (block, can_insert) in enumerate(json.loads(sys.argv[2])):
    try:
        out = score_local_candidates(
            *args, tuple(block), G, center=center, can_insert=can_insert, can_delete=True,
            return_lengths=True, return_turns=True,
        )
    except ValueError as exc:
        outcomes[i] = str(exc)
    else:
        np.savez(f"{sys.argv[3]}_{i}.npz", *out)
        outcomes[i] = None
print(json.dumps(outcomes))
"""


def run_in_subprocess(code, *args, timeout=600):
    """Run ``code`` with ``args`` in a fresh interpreter on this process's skonline.

    Fails the test unless the process ends normally (not a crash, an uncaught
    exception or the timeout); returns its standard output.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (SOURCE_ROOT, env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    assert proc.returncode == 0, (
        f"the subprocess ended with return code {proc.returncode}:\n{proc.stderr[-3000:]}"
    )
    return proc.stdout


def fit_in_subprocess(X, params, mode, tmp_path):
    """The compiled fit of ``X`` (``mode``: "fit", "rows" or "batches" of 10) in a subprocess.

    Returns ``(vertices, per-row losses)``.
    """
    data, out = tmp_path / f"X_{mode}.npy", tmp_path / f"curve_{mode}.npz"
    np.save(data, X)
    run_in_subprocess(_FIT, data, json.dumps(params), mode, out)
    with np.load(out) as curve:
        return curve["vertices"], curve["losses"]


def score_in_subprocess(problem, rounds, tmp_path):
    """The compiled candidates of several rounds on ``problem`` from one subprocess.

    ``rounds``: ``(block, can_insert)`` pairs. For each, the seven arrays of
    ``score_local_candidates``, or the message of the ``ValueError`` it raised.
    """
    data, out = tmp_path / "problem.npz", tmp_path / "candidates"
    np.savez(data, **problem)
    outcomes = json.loads(run_in_subprocess(_SCORE, data, json.dumps(rounds), out))
    results = []
    for i in range(len(rounds)):
        if outcomes[str(i)] is not None:
            results.append(outcomes[str(i)])
            continue
        with np.load(f"{out}_{i}.npz") as f:
            results.append(tuple(f[f"arr_{j}"] for j in range(7)))
    return results


def fit_with_reference(X, params, monkeypatch):
    """The fit of ``X`` with the NumPy reference kernel; returns the estimator and the most
    families (moves and inserts) a round scored."""
    largest = [0]

    def recording_reference(X, w, D, dcur, amin, V, block, G, *, can_insert, **kw):
        if block[0] == "empty":
            families = int(can_insert)
        else:
            size = block[1] - block[0] + 1
            families = size + (size + 1 if can_insert else 0)
        largest[0] = max(largest[0], families)
        return score_local_candidates_reference(
            X, w, D, dcur, amin, V, block, G, can_insert=can_insert, **kw
        )

    with monkeypatch.context() as m:
        m.setattr(_principal_curve_kernels, "score_local_candidates", recording_reference)
        est = SequentialPrincipalCurve(keep_history=True, **params).fit(X)
    return est, largest[0]


def assert_same_curve(compiled, reference, what):
    vertices, losses = compiled
    np.testing.assert_array_equal(vertices, reference.vertices_, err_msg=f"{what}: vertices")
    np.testing.assert_array_equal(losses, reference.loss_history_, err_msg=f"{what}: losses")


@pytest.mark.parametrize(
    "max_segments, n_rows, seed",
    [(31, 80, 0), (32, 80, 0), (40, 80, 0), (70, 100, 0), (200, 100, 2)],
)
def test_any_max_segments_fits_and_equals_the_numpy_reference(
    max_segments, n_rows, seed, tmp_path, monkeypatch
):
    """Low prices, 2-D Gaussian rows: the compiled fit, row by row and in batches of 10,
    ends normally and learns the reference kernel's curve; the stream reaches the cap of
    segments (for 200, a short stream: more families than the old buffers held)."""
    X = np.random.default_rng(seed).standard_normal((n_rows, 2))
    params = dict(LOW, max_segments=max_segments, random_state=seed)
    reference, largest = fit_with_reference(X, params, monkeypatch)
    if max_segments < 200:
        assert reference.n_segments_ == max_segments, "the curve must reach the cap"
    # 31 segments: at most 31 + 32 families, within the old buffers (the control)
    assert largest > OLD_LIMIT or max_segments == 31, f"largest round: {largest} families"
    for mode in ("rows", "batches"):
        assert_same_curve(fit_in_subprocess(X, params, mode, tmp_path), reference, mode)


@pytest.mark.parametrize("n_features", [3])
def test_paper_settings_fit_and_equal_the_numpy_reference(n_features, tmp_path, monkeypatch):
    """The user guide's "paper's algorithm" with ``max_segments=40`` on Gaussian rows fits,
    whole and in batches of 10, with the reference kernel's curve (a shorter stream than
    the slow test below, still past the old limit)."""
    X = np.random.default_rng(n_features).standard_normal((200, n_features))
    params = dict(PAPER, max_segments=40, random_state=0)
    reference, largest = fit_with_reference(X, params, monkeypatch)
    assert largest > OLD_LIMIT, f"largest round: {largest} families"
    for mode in ("fit", "batches"):
        assert_same_curve(fit_in_subprocess(X, params, mode, tmp_path), reference, mode)


@pytest.mark.slow
@pytest.mark.parametrize("n_features", [3, 5, 10])
def test_paper_settings_on_300_rows_equal_the_numpy_reference(n_features, tmp_path, monkeypatch):
    """The runs of the report: the paper's settings, ``max_segments=40``, 300 Gaussian rows."""
    X = np.random.default_rng(n_features).standard_normal((300, n_features))
    params = dict(PAPER, max_segments=40, random_state=0)
    reference, largest = fit_with_reference(X, params, monkeypatch)
    assert largest > OLD_LIMIT, f"largest round: {largest} families"
    for mode in ("fit", "batches"):
        assert_same_curve(fit_in_subprocess(X, params, mode, tmp_path), reference, mode)


def _long_curve_problem():
    """A curve of 150 segments on the lattice 0.1 Z^2, 400 weighted rows around it, a grid."""
    from skonline.manifold._polyline import sqdist_to_segments

    rng = np.random.default_rng(5)
    t = np.linspace(0.0, 15.0, 151)
    V = np.round(np.c_[t, np.sin(t)] / 0.1) * 0.1
    u = rng.uniform(0.0, 15.0, 400)
    X = np.c_[u, np.sin(u)] + 0.2 * rng.standard_normal((400, 2))
    D, _ = sqdist_to_segments(X, V)
    center = V[75] + 0.05
    G = np.round((center + 3.0 * rng.standard_normal((60, 2))) / 0.1) * 0.1
    G = np.unique(np.vstack([G, V[70:80]]), axis=0)  # tips on vertices: zero-length segments
    return dict(
        X=X,
        w=rng.integers(0, 3, 400).astype(np.float64),
        D=D,
        dcur=D.min(axis=1),
        amin=np.argmin(D, axis=1),
        V=V,
        G=G,
        center=center,
    )


LONG_BLOCKS = [(0, 150), (20, 120), (149, 150), ("empty", 75)]
OFF_CURVE = {
    (3, 2): "vertex block",
    (0, 151): "vertex block",
    ("empty", 152): "insertion position",
    ("empty", -5): "insertion position",
}


@pytest.fixture(scope="module")
def compiled_rounds(tmp_path_factory):
    """The compiled rounds of the tests below on ``_long_curve_problem``, from one subprocess."""
    rounds = [(block, ins) for block in LONG_BLOCKS for ins in (True, False)]
    rounds += [(block, True) for block in OFF_CURVE]
    results = score_in_subprocess(
        _long_curve_problem(), [[list(b), ins] for b, ins in rounds], tmp_path_factory.mktemp("k")
    )
    return dict(zip(rounds, results, strict=True))


@pytest.mark.parametrize("can_insert", [True, False])
@pytest.mark.parametrize("block", LONG_BLOCKS)
def test_compiled_candidates_equal_the_numpy_reference_on_a_150_segment_block(
    block, can_insert, compiled_rounds
):
    """One round on a curve of 150 segments (up to 303 families): the compiled kernel, in
    a subprocess, gives the reference's candidates, in its order, with the reference's
    scores (tolerances of ``test_compiled_candidates_equal_the_numpy_reference``)."""
    fast = compiled_rounds[block, can_insert]
    assert not isinstance(fast, str), fast
    p = _long_curve_problem()
    args = (p["X"], p["w"], p["D"], p["dcur"], p["amin"], p["V"], block, p["G"])
    ref = score_local_candidates_reference(
        *args,
        can_insert=can_insert,
        can_delete=True,
        center=p["center"],
        return_lengths=True,
        return_turns=True,
    )
    for a, b in zip(fast[:3] + fast[4:5], ref[:3] + ref[4:5], strict=True):
        np.testing.assert_array_equal(a, b)
    scale = float(p["w"] @ p["dcur"])
    np.testing.assert_allclose(fast[3], ref[3], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(fast[5], ref[5], rtol=1e-13)
    np.testing.assert_allclose(fast[6], ref[6], rtol=0, atol=1e-13)
    if block[0] != "empty":
        moved = np.unique(fast[1][fast[0] == 1])
        np.testing.assert_array_equal(moved, np.arange(block[0], block[1] + 1))


@pytest.mark.parametrize("block", list(OFF_CURVE))
def test_compiled_search_refuses_a_block_off_the_curve(block, compiled_rounds):
    """The compiled search checks the block against the curve before indexing it."""
    fast = compiled_rounds[block, True]
    assert isinstance(fast, str) and OFF_CURVE[block] in fast, fast

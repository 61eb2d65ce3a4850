"""Malformed CSR input is refused before any compiled kernel indexes it (defect 3).

scipy builds a CSR matrix from ``(data, indices, indptr)`` without checking the
indices, and ``check_array`` accepts it. Before, a column index outside
``[0, n_features)`` crashed FD, RFD, RandomizedOnlinePCA, OnlineVarianceMinimizer,
RFD-SON and the scale-invariant kernels (SIGSEGV or heap corruption) and
AdaptiveOnlinePCA accepted it silently. Each estimator runs in a subprocess, so a
crash fails its test instead of killing the run.
"""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

from skonline.utils._validation import check_compressed_structure

ESTIMATORS = [
    "FrequentDirections(sketch_size=4)",
    "RobustFrequentDirections(sketch_size=4)",
    "AdaptiveOnlinePCA(n_components=2)",
    "RandomizedOnlinePCA(n_components=2)",
    "OnlineVarianceMinimizer()",
    "RFDSONClassifier(alpha0=1.0)",
    "RFDSONRegressor(alpha0=1.0)",
    "ScaleInvariantClassifier()",
    "ScaleInvariantRegressor()",
    "ScaleInvariantClassifier(variant='coordinate')",
]

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np, scipy.sparse as sp
    from sklearn.base import is_classifier, is_regressor
    from skonline import *

    est = {estimator}
    d = 6
    rng = np.random.default_rng(0)
    X = sp.random(40, d, density=0.5, random_state=0, format="csr")
    y = np.arange(40) % 2 if is_classifier(est) else rng.standard_normal(40)
    kw = {{"classes": [0, 1]}} if is_classifier(est) else {{}}
    supervised = is_classifier(est) or is_regressor(est)

    def bad(kind):
        data = np.ones(4)
        indices = np.array([0, 1, 2, 3])
        indptr = np.array([0, 2, 4])
        if kind == "column index = n_features":
            indices = np.array([0, d, 1, 2])
        elif kind == "column index far out":
            indices = np.array([0, 10**6, 1, 2])
        elif kind == "negative column index":
            indices = np.array([0, -3, 1, 2])
        elif kind == "decreasing indptr":
            indptr = np.array([0, 4, 2])
        return sp.csr_matrix((data, indices, indptr), shape=(2, d))

    out = {{}}
    for kind in ["column index = n_features", "column index far out",
                 "negative column index", "decreasing indptr"]:
        B = bad(kind)
        yb = y[:2]
        for call in ["first partial_fit", "partial_fit", "read-out"]:
            try:
                if call == "first partial_fit":
                    e = {estimator}
                    e.partial_fit(B, yb, **kw) if supervised else e.partial_fit(B)
                elif call == "partial_fit":
                    e = {estimator}
                    e.partial_fit(X, y, **kw) if supervised else e.partial_fit(X)
                    e.partial_fit(B, yb) if supervised else e.partial_fit(B)
                else:
                    e = {estimator}
                    e.partial_fit(X, y, **kw) if supervised else e.partial_fit(X)
                    (e.predict if hasattr(e, "predict") else e.transform)(B)
                out[kind + ", " + call] = "accepted"
            except ValueError as exc:
                out[kind + ", " + call] = "ValueError: " + str(exc)[:60]
    print(json.dumps(out))
    """
)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_malformed_csr_is_refused_in_every_call(estimator):
    code = SCRIPT.format(estimator=estimator)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"crashed ({proc.returncode}): {proc.stderr[-2000:]}"
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    accepted = [k for k, v in results.items() if not v.startswith("ValueError: X is a malformed")]
    assert not accepted, {k: results[k] for k in accepted}


def _csr(indices, indptr, shape=(2, 4)):
    return sp.csr_matrix((np.ones(len(indices)), np.asarray(indices), np.asarray(indptr)), shape)


def test_the_structure_check_accepts_valid_unsorted_and_duplicate_indices():
    check_compressed_structure(_csr([3, 0, 0, 2], [0, 3, 4]))  # unsorted, duplicate
    check_compressed_structure(_csr([], [0, 0, 0]))  # no stored entry
    check_compressed_structure(sp.csr_matrix((0, 4)))
    check_compressed_structure(_csr([3, 0], [0, 1, 2]).tocsc())
    check_compressed_structure(np.ones((2, 2)))  # dense input is not its business


@pytest.mark.parametrize(
    "indices, indptr, match",
    [
        ([0, 4], [0, 1, 2], r"column indices must lie in \[0, 4\)"),
        ([0, -1], [0, 1, 2], "column indices"),
        ([0, 1, 2], [0, 3, 2], "indptr decreases"),
    ],
)
def test_the_structure_check_refuses_malformed_csr(indices, indptr, match):
    with pytest.raises(ValueError, match=match):
        check_compressed_structure(_csr(indices, indptr))


def test_the_structure_check_refuses_an_indptr_that_does_not_cover_the_entries():
    X = _csr([0, 1], [0, 1, 2])
    X.indptr = np.array([0, 1, 1])  # the last stored entry belongs to no row
    with pytest.raises(ValueError, match="indptr must start at 0 and end"):
        check_compressed_structure(X)

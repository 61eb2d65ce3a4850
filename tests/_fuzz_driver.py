"""Run the fuzz cases of one estimator family; one JSON line per case on stdout.

Usage: ``python tests/_fuzz_driver.py FAMILY [--sweep default|slow] [CASE_ID ...]``.

The first line lists the case ids of the family (``{"cases": [...]}``); then
every case run prints ``{"case": id, "outcome": ..., "problem": ...}``, where
``outcome`` is ``"ok"``, the name of a clean exception (``ValueError``,
``TypeError``) or ``"other exception"``, and ``problem`` is ``null`` when the
case passed. A case passes when its call succeeds with finite results (the
returned arrays and every fitted array attribute), or raises ``ValueError`` /
``TypeError`` and leaves the estimator's pickle unchanged; on valid input it
must succeed. An ``IndexError`` (the bounds-checked build's report of an
out-of-bounds access), ``MemoryError``, or an exception a kernel could only
print ("Exception ignored in ...") is a failure. A crash kills the process:
``tests/test_fuzz_kernels.py`` runs this script in a subprocess and then reruns
the cases one by one to name the crashing one.

Every compiled entry point is reached through a public estimator, never called
directly: the point is that the Python layer refuses what a kernel cannot index.
"""

from __future__ import annotations

import json
import pickle
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

N_ROWS = 12
N_FEATURES = 6
# FloatingPointError: the base's documented refusal of a batch whose update overflows
CLEAN_EXCEPTIONS = (ValueError, TypeError, FloatingPointError)
# fitted attributes that are NaN by documentation, not by accident
NAN_SENTINELS = {"alpha_"}  # RFD-SON: NaN for the "full" and "diag" curvatures


@dataclass
class Case:
    make: Callable[[], Any]  # a fresh estimator
    action: Callable[[Any], Any]  # the fuzzed call(s) on it
    warm: Callable[[Any], Any] | None = None  # clean calls before the fuzzed one
    valid: bool = False  # the input is valid: a refusal is a failure too
    readout: Callable[[Any], Any] | None = None  # clean read-out after a success


# ------------------------------------------------------------------ inputs
def _rng(seed=0):
    return np.random.default_rng(seed)


def _read_only(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


def _with_arrays(A, data=None, indices=None, indptr=None, shape=None):
    """A CSR matrix whose arrays are set as given, bypassing scipy's checks."""
    B = sp.csr_matrix(A.shape if shape is None else shape, dtype=A.dtype)
    B.data = A.data if data is None else data
    B.indices = A.indices if indices is None else indices
    B.indptr = A.indptr if indptr is None else indptr
    return B


def dense_inputs(n=N_ROWS, d=N_FEATURES, seed=0):
    """name -> (X, valid as a first call, valid as a later call)."""
    rng = _rng(seed)
    X = rng.standard_normal((n, d))
    wide = rng.standard_normal((n, 2 * d))
    scales = 10.0 ** rng.integers(-150, 150, size=d)
    nan = X.copy()
    nan[1, -1] = np.nan
    inf = X.copy()
    inf[0, 0] = np.inf
    big = np.finfo(np.float64).max
    return {
        "dense": (X, True, True),
        "float32": (X.astype(np.float32), True, True),
        "rows reversed (negative stride)": (X[::-1], True, True),
        "columns reversed (negative stride)": (X[:, ::-1], True, True),
        "both reversed": (X[::-1, ::-1], True, True),
        "every other column (non-contiguous)": (wide[:, ::2], True, True),
        "every other row (non-contiguous)": (np.repeat(X, 2, axis=0)[::2], True, True),
        "Fortran order": (np.asfortranarray(X), True, True),
        "Fortran float32 reversed": (np.asfortranarray(X.astype(np.float32))[::-1], True, True),
        "read-only": (_read_only(X), True, True),
        "one row": (X[:1], True, True),
        "two rows": (X[:2], True, True),
        "all-zero batch": (np.zeros((n, d)), True, True),
        "one nonzero entry per row": (np.eye(n, d), True, True),
        "integer dtype": (rng.integers(-3, 4, size=(n, d)), True, True),
        "tiny 1e-300": (X * 1e-300, False, False),
        "subnormal": (np.sign(X) * 5e-324, False, False),
        "huge 1e150": (X * 1e150, False, False),
        "huge 1e300": (X * 1e300, False, False),
        "float64 max": (np.full((n, d), big), False, False),
        "float32 near max": ((X * 1e38).astype(np.float32), False, False),
        "mixed scales 1e-150..1e150": (X * scales, False, False),
        "one column": (X[:, :1], False, False),
        "one more column": (wide[:, : d + 1], False, False),
        "no rows": (X[:0], False, False),
        "NaN": (nan, False, False),
        "inf": (inf, False, False),
    }


def sparse_inputs(n=N_ROWS, d=N_FEATURES, seed=0):
    """name -> (X, valid as a first call, valid as a later call)."""
    A = sp.random(n, d, density=0.5, format="csr", random_state=seed)
    A.data = A.data * 2 - 1
    A.sum_duplicates()
    keep = np.ones(n)
    keep[[1, 4, 5]] = 0
    empty_rows = sp.csr_matrix(sp.diags(keep) @ A)
    empty_rows.eliminate_zeros()
    i32 = _with_arrays(A, indices=A.indices.astype(np.int32), indptr=A.indptr.astype(np.int32))
    i64 = _with_arrays(A, indices=A.indices.astype(np.int64), indptr=A.indptr.astype(np.int64))
    mixed = _with_arrays(A, indices=A.indices.astype(np.int32), indptr=A.indptr.astype(np.int64))
    unsorted = A.copy()
    for r in range(n):  # reverse the order of the stored entries in every row
        lo, hi = unsorted.indptr[r], unsorted.indptr[r + 1]
        unsorted.indices[lo:hi] = unsorted.indices[lo:hi][::-1].copy()
        unsorted.data[lo:hi] = unsorted.data[lo:hi][::-1].copy()
    unsorted.has_sorted_indices = False
    # duplicates: every entry stored twice, halved (same matrix)
    coo = A.tocoo()
    order = np.argsort(np.r_[coo.row, coo.row], kind="stable")
    dup = _with_arrays(
        A,
        data=(np.r_[coo.data, coo.data] / 2)[order],
        indices=np.r_[coo.col, coo.col][order].astype(A.indices.dtype),
        indptr=(A.indptr * 2).astype(A.indptr.dtype),
    )
    read_only = _with_arrays(
        A, data=_read_only(A.data), indices=_read_only(A.indices), indptr=_read_only(A.indptr)
    )

    def bad_index(value, where=1):
        idx = A.indices.copy()
        idx[where] = value
        return _with_arrays(A, indices=idx)

    indptr_decreasing = A.indptr.copy()
    indptr_decreasing[3] = indptr_decreasing[5]
    indptr_decreasing[4] = 0
    indptr_past_end = A.indptr.copy()
    indptr_past_end[-1] += 5
    indptr_start = A.indptr.copy()
    indptr_start[0] = 1
    indptr_negative = A.indptr.copy()
    indptr_negative[0] = -3
    big = A.copy()
    big.data = big.data * 1e300
    return {
        "csr": (A, True, True),
        "csr_array": (sp.csr_array(A), True, True),
        "csr int32 indptr/indices": (i32, True, True),
        "csr int64 indptr/indices": (i64, True, True),
        "csr int32 indices, int64 indptr": (mixed, True, True),
        "csr unsorted indices": (unsorted, True, True),
        "csr duplicate indices": (dup, True, True),
        "csr empty rows": (empty_rows, True, True),
        "csr no stored entry": (sp.csr_matrix((n, d)), True, True),
        "csr one row": (A[:1], True, True),
        "csr float32": (A.astype(np.float32), True, True),
        "csr read-only arrays": (read_only, True, True),
        "csc": (A.tocsc(), True, True),
        "coo": (A.tocoo(), True, True),
        "csr one column": (A[:, :1], False, False),
        "csr huge 1e300": (big, False, False),
        "csr no rows": (A[:0], False, False),
        "csr column index = n_features": (bad_index(d), False, False),
        "csr column index 2**31 - 1": (bad_index(2**31 - 1), False, False),
        "csr column index 2**40": (
            _with_arrays(A, indices=_set(A.indices, 2, 2**40)),
            False,
            False,
        ),
        "csr negative column index": (bad_index(-1), False, False),
        "csr column index -2**31": (bad_index(-(2**31)), False, False),
        "csr last index out of range": (bad_index(d + 3, where=-1), False, False),
        "csr decreasing indptr": (_with_arrays(A, indptr=indptr_decreasing), False, False),
        "csr indptr past the data": (_with_arrays(A, indptr=indptr_past_end), False, False),
        "csr indptr not starting at 0": (_with_arrays(A, indptr=indptr_start), False, False),
        "csr negative indptr": (_with_arrays(A, indptr=indptr_negative), False, False),
        "csr indptr too short": (_with_arrays(A, indptr=A.indptr[:-2]), False, False),
        "csr shape wider than indices": (_with_arrays(A, shape=(n, d + 4)), False, False),
    }


def _set(a, where, value):
    out = a.astype(np.int64)
    out[where] = value
    return out


# ------------------------------------------------------------- checking
def _finite(value, what):
    if sp.issparse(value):
        value = value.data
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            problem = _finite(v, f"{what}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(value, (np.ndarray, float, np.floating)):
        a = np.asarray(value)
        if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
            return f"{what} is not finite"
    return None


def _fitted_arrays_finite(est):
    for name in dir(est):
        if name.startswith("_") or not name.endswith("_"):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = getattr(est, name)
        except Exception:
            continue
        if name in NAN_SENTINELS:
            value = np.nan_to_num(np.asarray(value, dtype=float), nan=0.0, posinf=np.inf)
        problem = _finite(value, name)
        if problem:
            return problem
    return None


_WARM: dict[Any, bytes | str] = {}


def _describe(exc):
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    where = f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
    return f"{type(exc).__name__}: {str(exc)[:200]} (at {where})"


def run_case(case: Case):
    """Return (outcome, problem) of one case."""
    unraisable: list[str] = []

    def hook(u):
        unraisable.append(f"{u.exc_type.__name__}: {u.exc_value} (in {u.object!r})")

    sys.unraisablehook = hook
    key = (case.make, case.warm)
    if key not in _WARM:  # the clean calls are the same for many cases: run them once
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = case.make()
                if case.warm is not None:
                    case.warm(est)
            _WARM[key] = pickle.dumps(est)
        except Exception as exc:
            _WARM[key] = f"the clean calls before the fuzzed one raised {_describe(exc)}"
    if isinstance(_WARM[key], str):
        sys.unraisablehook = sys.__unraisablehook__
        return "other exception", _WARM[key]
    est = pickle.loads(_WARM[key])
    before = pickle.dumps(est)
    problem = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = case.action(est)
    except CLEAN_EXCEPTIONS as exc:
        outcome = type(exc).__name__
        if case.valid:
            problem = f"valid input refused: {outcome}: {str(exc)[:200]}"
        elif pickle.dumps(est) != before:
            problem = f"refused ({outcome}: {str(exc)[:120]}) but the state changed"
    except Exception as exc:
        outcome = "other exception"
        problem = _describe(exc)
    else:
        outcome = "ok"
        if result is not est:
            problem = _finite(result, "the result")
        problem = problem or _fitted_arrays_finite(est)
        if problem is None and case.readout is not None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    problem = _finite(case.readout(est), "the read-out after the call")
            except Exception as exc:
                problem = f"read-out after an accepted call raised {type(exc).__name__}: {exc}"
    if unraisable:
        problem = "exception ignored in a kernel: " + "; ".join(unraisable)[:400]
    sys.unraisablehook = sys.__unraisablehook__
    return outcome, problem


# ------------------------------------------------------------- families
def _calls(cases, label, make, inputs, fit, readout, clean, *, sweep="default", subset=None):
    """The fuzzed calls on every input: first partial_fit, partial_fit, fit, read-out.

    ``fit(est, X, first=...)`` feeds ``X`` (with matching targets), ``readout(est, X)``
    reads the fitted estimator on ``X``, ``clean`` is a valid batch. ``subset``: the
    names of the inputs the default sweep runs (the slow sweep runs them all).
    """
    if subset is not None and sweep == "default":
        inputs = _subset(inputs, subset)

    def warm(est):
        fit(est, clean, first=True)

    def check(est):
        return readout(est, clean)

    for name, (X, valid_first, valid_later) in inputs.items():
        cases[f"{label} | {name} | first partial_fit"] = Case(
            make, lambda e, X=X: fit(e, X, first=True), valid=valid_first, readout=None
        )
        cases[f"{label} | {name} | partial_fit"] = Case(
            make, lambda e, X=X: fit(e, X, first=False), warm, valid_later, check
        )
        if sweep == "slow":  # fit = reset + the first call's pass
            cases[f"{label} | {name} | fit"] = Case(
                make, lambda e, X=X: e.fit(*_xy(e, X)), warm, valid_first and X.shape[0] > 1
            )
        cases[f"{label} | {name} | read-out"] = Case(
            make, lambda e, X=X: readout(e, X), warm, valid_later, None
        )


def _xy(est, X):
    from sklearn.base import is_classifier, is_regressor

    n = X.shape[0]
    if is_classifier(est):
        return X, np.arange(n) % 2
    if is_regressor(est):
        return X, np.sin(np.arange(n, dtype=float))
    return (X,)


def _stream(est, X, batch, first_kw=None):
    from sklearn.base import is_classifier

    args = _xy(est, X)
    for start in range(0, X.shape[0], batch):
        part = [a[start : start + batch] for a in args]
        kw = {"classes": [0, 1]} if is_classifier(est) and start == 0 else {}
        est.partial_fit(*part, **kw)
    return est


def _unsupervised_fit(est, X, first):
    return est.partial_fit(X)


def _supervised_fit(est, X, first):
    from sklearn.base import is_classifier

    kw = {"classes": [0, 1]} if first and is_classifier(est) else {}
    return est.partial_fit(*_xy(est, X), **kw)


def _batch_sweep(cases, label, make, X, sizes, readout):
    for b in sizes:
        cases[f"{label} | batches of {b}"] = Case(
            make, lambda e, b=b: _stream(e, X, b), valid=True, readout=readout
        )


def _around(capacity, n):
    """Batch sizes around a buffer's capacity, and the whole stream."""
    near = {1, 2, 3, capacity - 1, capacity, capacity + 1, 2 * capacity, 2 * capacity + 1, n}
    return sorted(b for b in near if 1 <= b <= n)


def _subset(inputs, names):
    return {k: v for k, v in inputs.items() if k in names}


SOME = (
    "dense",
    "rows reversed (negative stride)",
    "float32",
    "all-zero batch",
    "one row",
    "huge 1e300",
    "csr",
    "csr unsorted indices",
    "csr duplicate indices",
    "csr no stored entry",
    "csr column index = n_features",
    "csr negative column index",
)


def family_fd(sweep):
    from skonline import FrequentDirections, RobustFrequentDirections

    cases: dict[str, Case] = {}
    dense, sparse = dense_inputs(), sparse_inputs()
    clean = dense["dense"][0]

    def readout(e, X):
        return e.transform(X), e.inverse_transform(e.transform(X)), e.score(X)

    def full_readout(e, X=clean):
        return (*readout(e, X), e.get_covariance(), e.solve(np.ones(X.shape[1])))

    for cls in (FrequentDirections, RobustFrequentDirections):
        name = cls.__name__
        for solver in ("exact", "randomized"):

            def make(cls=cls, solver=solver):
                return cls(sketch_size=4, sparse_solver=solver, random_state=0)

            inputs = dict(sparse) if solver == "randomized" else {**dense, **sparse}
            _calls(
                cases,
                f"{name}(sparse_solver={solver})",
                make,
                inputs,
                _unsupervised_fit,
                readout,
                clean,
                sweep=sweep,
            )
        configs = {
            "sketch_size=2": dict(sketch_size=2),
            "sketch_size=50": dict(sketch_size=50),
            "n_components=2": dict(n_components=2),
            "center=False, whiten=True": dict(
                sketch_size=4, center=False, whiten=True, n_components=2
            ),
            "buffer=single": dict(sketch_size=4, buffer="single"),
            "compaction=svd": dict(sketch_size=4, compaction="svd"),
            "skip_zero_rows": dict(sketch_size=4, skip_zero_rows=True),
        }
        if cls is FrequentDirections:
            configs.update(
                {f"variant={v}": dict(sketch_size=4, variant=v) for v in ("pfd", "cfd", "isvd")}
            )
        some = _subset({**dense, **sparse}, SOME)
        for cname, kw in configs.items():
            for solver in ("exact", "randomized"):

                def make(cls=cls, kw=kw, solver=solver):
                    return cls(sparse_solver=solver, random_state=0, **kw)

                inputs = (
                    some if solver == "exact" else _subset(some, [k for k in some if "csr" in k])
                )
                _calls(
                    cases,
                    f"{name}({cname}, {solver})",
                    make,
                    inputs,
                    _unsupervised_fit,
                    readout,
                    clean,
                    sweep=sweep,
                )
        cases[f"{name} | sketch_size=1"] = Case(
            lambda cls=cls: cls(sketch_size=1), lambda e: e.partial_fit(clean)
        )
        # blocks of every size around the buffer's capacity (2 * sketch_size rows)
        n = 30 if sweep == "default" else 300
        Xs = _rng(1).standard_normal((n, N_FEATURES))
        As = sp.random(n, N_FEATURES, density=0.4, format="csr", random_state=1)
        for m in (2, 4) if sweep == "default" else (2, 3, 4, 5, 8):
            sizes = _around(2 * m, n) if sweep == "default" else range(1, n + 1)
            for solver in ("exact", "randomized"):

                def make(cls=cls, m=m, solver=solver):
                    return cls(sketch_size=m, sparse_solver=solver, random_state=0)

                if solver == "exact":
                    _batch_sweep(
                        cases, f"{name}(sketch_size={m}) dense", make, Xs, sizes, full_readout
                    )
                _batch_sweep(
                    cases, f"{name}(sketch_size={m}, {solver}) csr", make, As, sizes, full_readout
                )
    return cases


def family_pca(sweep):
    from skonline import AdaptiveOnlinePCA, RandomizedOnlinePCA

    cases: dict[str, Case] = {}
    dense, sparse = dense_inputs(), sparse_inputs()
    clean = dense["dense"][0]

    def readout(e, X):
        return e.transform(X), e.inverse_transform(e.transform(X)), e.score_samples(X)

    for cls, configs in (
        (
            AdaptiveOnlinePCA,
            [
                dict(),
                dict(solver="dense"),
                dict(solver="bulk"),
                dict(solver="secular", center=False),
            ],
        ),
        (
            RandomizedOnlinePCA,
            [dict(), dict(update="cumulative"), dict(mixing="past"), dict(center=False)],
        ),
    ):
        for i, kw in enumerate(configs):

            def make(cls=cls, kw=kw):
                return cls(n_components=2, random_state=0, **kw)

            _calls(
                cases,
                f"{cls.__name__}({kw})",
                make,
                {**dense, **sparse},
                _unsupervised_fit,
                readout,
                clean,
                sweep=sweep,
                subset=SOME if i > 0 else None,
            )
        for k in (1, N_FEATURES - 1, N_FEATURES):
            cases[f"{cls.__name__}(n_components={k})"] = Case(
                lambda cls=cls, k=k: cls(n_components=k, random_state=0),
                lambda e: _stream(e, clean, 3),
                valid=k < N_FEATURES,
            )
        n = 12 if sweep == "default" else 100
        Xs = _rng(1).standard_normal((n, N_FEATURES)) / 3
        _batch_sweep(
            cases,
            cls.__name__,
            lambda cls=cls: cls(n_components=2, random_state=0),
            Xs,
            range(1, n + 1),
            lambda e: readout(e, clean),
        )
    return cases


def family_ovm(sweep):
    from skonline import OnlineVarianceMinimizer
    from skonline.decomposition import AdaptiveSubsetHedge

    cases: dict[str, Case] = {}
    dense, sparse = dense_inputs(), sparse_inputs()
    clean = dense["dense"][0]

    def readout(e, X):
        return e.transform(X), e.score_samples(X)

    for i, kw in enumerate((dict(), dict(domain="simplex"), dict(row_norm="none"))):

        def make(kw=kw):
            return OnlineVarianceMinimizer(random_state=0, **kw)

        _calls(
            cases,
            f"OnlineVarianceMinimizer({kw})",
            make,
            {**dense, **sparse},
            _unsupervised_fit,
            readout,
            clean,
            sweep=sweep,
            subset=SOME if i > 0 else None,
        )
    d = N_FEATURES
    C = np.cov(clean.T)
    covs = {
        "covariance": (C[None], True),
        "two covariances": (np.stack([C, np.eye(d)]), True),
        "covariance reversed": (C[None, ::-1, ::-1], True),
        "covariance float32": (C[None].astype(np.float32), True),
        "covariance one column": (np.ones((1, 1, 1)), False),
        "covariance not square": (np.ones((1, d, d - 1)), False),
        "covariance 2-D": (C, False),
        "covariance huge": (C[None] * 1e300, False),
        "covariance NaN": (np.full((1, d, d), np.nan), False),
        "no covariance": (np.ones((0, d, d)), False),
    }
    for name, (Cs, valid) in covs.items():
        cases[f"OnlineVarianceMinimizer | {name} | partial_fit_covariances"] = Case(
            lambda: OnlineVarianceMinimizer(random_state=0),
            lambda e, Cs=Cs: e.partial_fit_covariances(Cs),
            lambda e: e.partial_fit(clean),
            valid,
            lambda e: readout(e, clean),
        )

    n_experts = 8
    L = _rng(2).random((20, n_experts))
    hedge_inputs = {
        "losses": (L, True, True),
        "losses reversed": (L[::-1, ::-1], True, True),
        "losses float32": (L.astype(np.float32), True, True),
        "losses Fortran": (np.asfortranarray(L), True, True),
        "losses read-only": (_read_only(L), True, True),
        "one loss vector": (L[:1], True, True),
        "all-zero losses": (np.zeros_like(L), True, True),
        "losses of 1": (np.ones_like(L), True, True),
        "losses huge": (L * 1e300, False, False),
        "losses negative": (-L, False, False),
        "losses NaN": (np.full_like(L, np.nan), False, False),
        "two experts": (L[:, :2], False, False),
        "no loss vector": (L[:0], False, False),
        "losses sparse": (sp.csr_matrix(L), False, False),
    }

    def hedge_readout(e, X):
        return e.expected_loss(X), e.sample_subset()

    for kept in (1, 4, n_experts - 1):

        def make(kept=kept):
            return AdaptiveSubsetHedge(n_kept=kept, random_state=0)

        _calls(
            cases,
            f"AdaptiveSubsetHedge(n_kept={kept})",
            make,
            hedge_inputs,
            _unsupervised_fit,
            hedge_readout,
            L,
            sweep=sweep,
            subset=(
                None
                if kept == 1
                else ("losses", "losses reversed", "one loss vector", "two experts")
            ),
        )
    for kept in (n_experts, n_experts + 3):  # no expert would pay
        cases[f"AdaptiveSubsetHedge(n_kept={kept})"] = Case(
            lambda kept=kept: AdaptiveSubsetHedge(n_kept=kept), lambda e: e.partial_fit(L)
        )
    cases["AdaptiveSubsetHedge(sampler=systematic)"] = Case(
        lambda: AdaptiveSubsetHedge(n_kept=3, sampler="systematic", random_state=0),
        lambda e: _stream(e, L, 3),
        valid=True,
        readout=lambda e: hedge_readout(e, L),
    )
    _batch_sweep(
        cases,
        "AdaptiveSubsetHedge(n_kept=3)",
        lambda: AdaptiveSubsetHedge(n_kept=3, random_state=0),
        L,
        range(1, L.shape[0] + 1),
        lambda e: hedge_readout(e, L),
    )
    return cases


SUPERVISED_SOME = (*SOME, "huge 1e150", "subnormal", "float32 near max", "csr huge 1e300")


def _supervised_family(estimators, sweep):
    """``estimators``: (label, make, thorough); a thorough one gets every input."""
    cases: dict[str, Case] = {}
    dense, sparse = dense_inputs(), sparse_inputs()
    clean = dense["dense"][0]

    def readout(e, X):
        out = [e.predict(X)]
        if hasattr(e, "decision_function"):
            out.append(e.decision_function(X))
        return tuple(out)

    w = _rng(3).random(N_ROWS) + 0.5
    weights = (
        ("sample_weight reversed", w[::-1], True),
        ("sample_weight every other", np.repeat(w, 2)[::2], True),
        ("sample_weight read-only", _read_only(w), True),
        ("sample_weight float32", w.astype(np.float32), True),
        ("sample_weight too short", w[:-1], False),
        ("sample_weight negative", -w, False),
        ("sample_weight NaN", np.full(N_ROWS, np.nan), False),
        ("sample_weight huge", w * 1e300, False),
    )
    n = 24 if sweep == "default" else 120
    Xs = _rng(1).standard_normal((n, N_FEATURES))
    As = sp.random(n, N_FEATURES, density=0.4, format="csr", random_state=1)
    for label, make, thorough, capacity in estimators:
        _calls(
            cases,
            label,
            make,
            {**dense, **sparse},
            _supervised_fit,
            readout,
            clean,
            sweep=sweep,
            subset=None if thorough else SUPERVISED_SOME,
        )
        for wname, sw, valid in weights if thorough or sweep == "slow" else weights[:1]:
            for xname in ("dense", "csr"):
                X = (dense if xname == "dense" else sparse)[xname][0]
                cases[f"{label} | {xname}, {wname} | partial_fit"] = Case(
                    make,
                    lambda e, X=X, sw=sw: e.partial_fit(*_xy(e, X), sample_weight=sw),
                    lambda e: _supervised_fit(e, clean, True),
                    valid,
                    lambda e: readout(e, clean),
                )
        sizes = range(1, n + 1) if sweep == "slow" else _around(capacity, n)
        _batch_sweep(cases, f"{label} dense", make, Xs, sizes, lambda e: readout(e, clean))
        _batch_sweep(cases, f"{label} csr", make, As, sizes, lambda e: readout(e, clean))
    return cases


def family_son(sweep):
    from skonline import RFDSONClassifier, RFDSONRegressor

    estimators = []
    for sketch in ("rfd", "fd", "full", "diag"):
        for cls in (RFDSONClassifier, RFDSONRegressor):
            for m in (2, 4) if sketch in ("rfd", "fd") else (4,):

                def make(cls=cls, sketch=sketch, m=m):
                    return cls(sketch=sketch, sketch_size=m)

                thorough = m == 4 and cls is RFDSONClassifier
                estimators.append(
                    (f"{cls.__name__}(sketch={sketch}, sketch_size={m})", make, thorough, 2 * m)
                )
    estimators += [
        ("RFDSONClassifier(sketch_size=50)", lambda: RFDSONClassifier(sketch_size=50), False, 8),
        (
            "RFDSONClassifier(loss=hinge, fit_intercept=False)",
            lambda: RFDSONClassifier(loss="hinge", fit_intercept=False),
            False,
            20,
        ),
        (
            "RFDSONRegressor(skip_zero_rows=True, scale_features=False)",
            lambda: RFDSONRegressor(skip_zero_rows=True, scale_features=False),
            False,
            20,
        ),
    ]
    return _supervised_family(estimators, sweep)


def family_si(sweep):
    from skonline import ScaleInvariantClassifier, ScaleInvariantRegressor

    estimators = []
    for label, kw in (
        ("full", dict(variant="full")),
        ("coordinate", dict(variant="coordinate")),
        ("diagonal", dict(variant="diagonal")),
        ("centered", dict(center=True)),
        ("centered diagonal", dict(center=True, variant="diagonal")),
    ):
        for cls in (ScaleInvariantClassifier, ScaleInvariantRegressor):

            def make(cls=cls, kw=kw):
                return cls(**kw)

            thorough = cls is ScaleInvariantClassifier
            estimators.append((f"{cls.__name__}({label})", make, thorough, N_FEATURES + 1))
    estimators.append(
        (
            "ScaleInvariantClassifier(full, fit_intercept=False)",
            lambda: ScaleInvariantClassifier(variant="full", fit_intercept=False),
            False,
            N_FEATURES,
        )
    )
    estimators.append(  # the binary Platt map's compiled steps (RFD-SON's default)
        (
            "ScaleInvariantClassifier(calibration=platt)",
            lambda: ScaleInvariantClassifier(calibration="platt"),
            True,
            N_FEATURES + 1,
        )
    )
    return _supervised_family(estimators, sweep)


def _curve_cases(max_segments_values, sweep):
    """The paper's settings (user guide), which let the local search grow the curve most."""
    from skonline import SequentialPrincipalCurve

    cases: dict[str, Case] = {}
    n = 300
    streams = (
        [(2, 10), (3, n)]
        if sweep == "default"
        else [(d, b) for d in (2, 3, 5, 10) for b in (1, 7, 10, n)]
    )
    for ms in max_segments_values:
        for d, b in streams:
            X = _rng(d).standard_normal((n, d))

            def make(ms=ms):
                return SequentialPrincipalCurve(
                    max_segments=ms,
                    length_penalty=0,
                    turn_penalty=0,
                    warm_up_moves=0,
                    clip_grid=False,
                    max_memory=None,
                    random_state=0,
                )

            cases[f"SequentialPrincipalCurve(max_segments={ms}) | {d}-D, batches of {b}"] = Case(
                make,
                lambda e, X=X, b=b: _stream(e, X, b),
                valid=True,
                readout=lambda e, X=X: (
                    e.transform(X),
                    e.inverse_transform(e.transform(X)),
                    e.score_samples(X),
                ),
            )
    return cases


def family_curve(sweep):
    from skonline import SequentialPrincipalCurve

    cases = _curve_cases((1, 2, 5, 30), sweep)
    dense = dense_inputs(d=2)
    clean = dense["dense"][0]
    # the curve takes dense input only: a sparse one must be refused cleanly
    sparse = {k: (v[0], False, False) for k, v in _subset(sparse_inputs(d=2), SOME).items()}
    inputs = {**dense, **sparse}

    def readout(e, X):
        return e.transform(X), e.score_samples(X), e.project(X)

    for i, kw in enumerate(
        (
            dict(),
            dict(max_segments=2),
            dict(memory_policy="window", max_memory=5),
            dict(reward_estimator="bandit"),
        )
    ):

        def make(kw=kw):
            return SequentialPrincipalCurve(random_state=0, **kw)

        _calls(
            cases,
            f"SequentialPrincipalCurve({kw})",
            make,
            inputs,
            _unsupervised_fit,
            readout,
            clean,
            sweep=sweep,
            subset=None if i == 0 else SOME,
        )
    return cases


def family_curve_large(sweep):
    """``max_segments >= 31``: the compiled search's fixed 64-entry arrays (defect 1, 2)."""
    return _curve_cases((31, 40, 64, 65, 70, 128, 200), sweep)


FAMILIES = {
    "fd": family_fd,
    "pca": family_pca,
    "ovm": family_ovm,
    "son": family_son,
    "si": family_si,
    "curve": family_curve,
    "curve_large": family_curve_large,
}


def main(argv):
    family, rest = argv[0], argv[1:]
    sweep = "default"
    if rest[:1] == ["--sweep"]:
        sweep, rest = rest[1], rest[2:]
    cases = FAMILIES[family](sweep)
    print(json.dumps({"cases": list(cases)}), flush=True)
    for case_id in rest or list(cases):
        start = time.perf_counter()
        outcome, problem = run_case(cases[case_id])
        seconds = round(time.perf_counter() - start, 4)
        print(
            json.dumps(
                {"case": case_id, "outcome": outcome, "problem": problem, "seconds": seconds}
            ),
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])

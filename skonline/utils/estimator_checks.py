"""Online-learning checks for scikit-learn estimators with ``partial_fit``.

scikit-learn's ``check_estimator`` tests batch behaviour. These checks test
what a streaming user relies on (modelled on River's ``checks``):

* any split of the rows across ``partial_fit`` calls gives the same state as
  ``fit`` (bit for bit for per-row algorithms);
* ``transform`` / ``predict`` / ``score`` never change the state;
* pickling mid-stream and resuming equals the uninterrupted run, bit for bit;
* the fitted state does not grow with the number of rows (constant-memory
  estimators);
* bad input (NaN, inf, wrong width, empty, 3-D, strings, complex, huge values,
  bad targets) raises a clear ``ValueError``/``TypeError`` and leaves the state
  byte-identical;
* the state contract: an exception raised anywhere in an update leaves the
  estimator exactly as it was (an unfitted one unfitted), the pass never writes
  into the committed state, a parameter that shapes the state cannot change
  mid-stream, and ``set_params`` sets all of its parameters or none;
* read-outs come from the committed state: after ``fit``, giving any parameter
  another valid value changes no fitted attribute and no ``transform`` /
  ``predict*`` / ``score`` output until the next update;
* float32/float64, C/F order, read-only memmaps, pandas DataFrames and CSR
  (where declared) are accepted and agree;
* the estimator works in ``Pipeline``, ``GridSearchCV`` and with
  ``set_output(transform="pandas")``.

Use :func:`check_online_estimator` to run them all, or
:func:`parametrize_with_online_checks` in a pytest module. Every check has the
signature ``check(name, estimator)`` and raises ``AssertionError`` on failure.
"""

from __future__ import annotations

import functools
import pickle
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from numbers import Integral, Real
from typing import Any
from unittest import mock

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import get_tags

_Check = Callable[[str, Any], None]

__all__ = [
    "assert_state_equal",
    "check_bad_input_keeps_state",
    "check_constant_memory",
    "check_failed_update_keeps_state",
    "check_fit_resets",
    "check_frozen_params",
    "check_input_layouts",
    "check_methods_leave_state",
    "check_online_estimator",
    "check_partial_fit_splits",
    "check_pass_leaves_committed_state",
    "check_pickle_resume",
    "check_pipeline_and_grid_search",
    "check_read_outs_ignore_params",
    "check_set_output_pandas",
    "check_set_params_all_or_none",
    "parametrize_with_online_checks",
    "yield_online_checks",
]

_READ_METHODS = (
    "transform",
    "inverse_transform",
    "predict",
    "predict_proba",
    "predict_log_proba",
    "decision_function",
    "score",
)


# ------------------------------------------------------------------ helpers
def _make_data(
    estimator: Any, n_samples: int = 150, n_features: int = 6, seed: int = 0
) -> tuple[np.ndarray, np.ndarray | None]:
    """A decaying-spectrum stream and, for supervised estimators, targets."""
    rng = np.random.default_rng(seed)
    scales = np.linspace(2.0, 0.2, n_features)
    X = rng.standard_normal((n_samples, n_features)) * scales
    y: np.ndarray | None
    if is_classifier(estimator):
        y = (X @ rng.standard_normal(n_features) > 0).astype(np.int64)
    elif is_regressor(estimator):
        y = X @ rng.standard_normal(n_features) + 0.1 * rng.standard_normal(n_samples)
        y = y / np.max(np.abs(y))
    else:
        y = None
    return X, y


def _first_kwargs(estimator: Any, y: Any) -> dict[str, Any]:
    return {"classes": np.unique(y)} if is_classifier(estimator) and y is not None else {}


def _stream(estimator: Any, X: Any, y: Any, sizes: list[int]) -> Any:
    """``partial_fit`` over consecutive batches of the given sizes."""
    start, first = 0, True
    for size in sizes:
        stop = start + size
        kwargs = _first_kwargs(estimator, y) if first else {}
        yb = None if y is None else y[start:stop]
        estimator.partial_fit(X[start:stop], yb, **kwargs)
        start, first = stop, False
    assert start == X.shape[0], "batch sizes must cover the data"
    return estimator


def _splits(n: int) -> dict[str, list[int]]:
    uneven = [1, 7, 30]
    uneven.append(n - sum(uneven))
    return {"one batch": [n], "row by row": [1] * n, "uneven batches": uneven}


def _state(estimator: Any) -> dict[str, Any]:
    """The learned state: the state object plus scikit-learn's fitted attributes."""
    names = [
        k for k in vars(estimator) if k == "_state" or (k.endswith("_") and not k.startswith("__"))
    ]
    return {name: getattr(estimator, name) for name in names}


def _assert_value_equal(va: Any, vb: Any, key: str, rtol: float, atol: float, context: str) -> None:
    """Compare two pieces of state; containers and plain objects recursively."""
    if isinstance(va, (list, tuple)) and not isinstance(va, str):
        assert type(va) is type(vb) and len(va) == len(vb), f"{context}: {key} differs"
        for i, (ea, eb) in enumerate(zip(va, vb, strict=True)):
            _assert_value_equal(ea, eb, f"{key}[{i}]", rtol, atol, context)
    elif isinstance(va, dict):
        assert va.keys() == vb.keys(), f"{context}: {key} keys differ"
        for k in va:
            _assert_value_equal(va[k], vb[k], f"{key}.{k}", rtol, atol, context)
    elif hasattr(va, "__dict__") and not isinstance(va, (np.ndarray, np.generic, type)):
        assert type(va) is type(vb), f"{context}: {key} type differs"
        sa = va.__getstate__() if hasattr(va, "__getstate__") else vars(va)
        sb = vb.__getstate__() if hasattr(vb, "__getstate__") else vars(vb)
        _assert_value_equal(sa, sb, key, rtol, atol, context)
    elif isinstance(va, np.ndarray) and va.dtype.kind in "fc":
        assert isinstance(vb, np.ndarray) and va.shape == vb.shape, f"{context}: {key} shape"
        if rtol == 0 and atol == 0:
            assert np.array_equal(va, vb), f"{context}: {key} differs (exact comparison)"
        else:
            np.testing.assert_allclose(
                va, vb, rtol=rtol, atol=atol, err_msg=f"{context}: {key} differs"
            )
    elif isinstance(va, float) and (rtol or atol):
        assert np.isclose(va, vb, rtol=rtol, atol=atol), f"{context}: {key} {va} != {vb}"
    else:
        assert pickle.dumps(va) == pickle.dumps(vb), f"{context}: {key} differs: {va!r} {vb!r}"


def assert_state_equal(
    a: Any, b: Any, *, rtol: float = 0.0, atol: float = 0.0, context: str = ""
) -> None:
    """Assert two estimators hold the same learned state.

    The state is the estimator's state object plus scikit-learn's fitted
    attributes. With ``rtol == atol == 0`` arrays must be bit-identical.
    Containers and helper objects held in the state are compared recursively.

    Parameters
    ----------
    a : estimator instance
        The first estimator.
    b : estimator instance
        The second estimator.
    rtol : float, default=0.0
        Relative tolerance on floating arrays and numbers.
    atol : float, default=0.0
        Absolute tolerance on floating arrays and numbers.
    context : str, default=""
        Prefix of the failure messages.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline import FrequentDirections
    >>> from skonline.utils.estimator_checks import assert_state_equal
    >>> X = np.random.default_rng(0).standard_normal((40, 5))
    >>> one = FrequentDirections(sketch_size=3).fit(X)
    >>> two = FrequentDirections(sketch_size=3).partial_fit(X[:15]).partial_fit(X[15:])
    >>> assert_state_equal(one, two)  # any split of a stream gives the same sketch
    """
    sa, sb = _state(a), _state(b)
    assert sa.keys() == sb.keys(), f"{context}: state attributes differ: {sa.keys() ^ sb.keys()}"
    for key in sa:
        _assert_value_equal(sa[key], sb[key], key, rtol, atol, context)


def _tolerance(estimator: Any) -> dict[str, float]:
    exact = getattr(estimator, "_exact_row_splits", False)
    return {} if exact else {"rtol": 1e-10, "atol": 1e-12}


def _call_read_methods(estimator: Any, X: Any, y: Any) -> None:
    for method in _READ_METHODS:
        if not hasattr(estimator, method):
            continue
        if method == "inverse_transform":
            if hasattr(estimator, "transform"):
                estimator.inverse_transform(estimator.transform(X))
        elif method == "score":
            estimator.score(X, y)
        else:
            getattr(estimator, method)(X)


_CHECK_DOC_TAIL = """
    Parameters
    ----------
    name : str
        Name of the estimator, used in the failure messages.
    estimator : estimator instance
        The estimator to check; it is cloned, never fitted itself.

    Examples
    --------
    >>> from skonline import FrequentDirections
    >>> from skonline.utils.estimator_checks import {check}
    >>> est = FrequentDirections(sketch_size=4)
    >>> {check}("FrequentDirections", est)
"""


def _online_check(check: _Check) -> _Check:
    """Complete a check's docstring with the sections every check shares."""
    if check.__doc__:  # None under ``python -OO``
        check.__doc__ = check.__doc__.rstrip() + "\n" + _CHECK_DOC_TAIL.format(check=check.__name__)
    return check


# ------------------------------------------------------------------- checks
@_online_check
def check_partial_fit_splits(name: str, estimator: Any) -> None:
    """Row-by-row, uneven batches, one batch and ``fit`` all give the same state.

    Bit for bit for estimators whose ``_exact_row_splits`` is true (per-row
    algorithms), to a relative 1e-10 otherwise.
    """
    X, y = _make_data(estimator)
    reference = clone(estimator).fit(X, y)
    for label, sizes in _splits(X.shape[0]).items():
        streamed = _stream(clone(estimator), X, y, sizes)
        assert_state_equal(
            reference,
            streamed,
            context=f"{name}: fit vs partial_fit {label}",
            **_tolerance(estimator),
        )


@_online_check
def check_fit_resets(name: str, estimator: Any) -> None:
    """``fit`` forgets earlier data: fit(X1); fit(X2) equals a fresh fit(X2).

    The two states are compared bit for bit.
    """
    X1, y1 = _make_data(estimator, seed=1)
    X2, y2 = _make_data(estimator, seed=2)
    est = clone(estimator).fit(X1, y1)
    est.fit(X2, y2)
    fresh = clone(estimator).fit(X2, y2)
    assert_state_equal(fresh, est, context=f"{name}: refit")


@_online_check
def check_methods_leave_state(name: str, estimator: Any) -> None:
    """Read-only methods leave the pickled estimator byte-identical.

    ``transform``, ``inverse_transform``, ``predict``, ``predict_proba``,
    ``predict_log_proba``, ``decision_function`` and ``score``, where they
    exist, are called mid-stream.
    """
    X, y = _make_data(estimator)
    est = _stream(clone(estimator), X, y, [50, 100])
    before = pickle.dumps(est)
    _call_read_methods(est, X[:20], None if y is None else y[:20])
    assert pickle.dumps(est) == before, f"{name}: a read-only method changed the state"


@_online_check
def check_pickle_resume(name: str, estimator: Any) -> None:
    """Pickle after k batches, resume, continue = the uninterrupted run, bit for bit.

    The stream is interrupted after two of three batches, pickled, unpickled
    and finished; its state must equal that of the uninterrupted stream.
    """
    X, y = _make_data(estimator)
    sizes = [40, 35, 75]
    uninterrupted = _stream(clone(estimator), X, y, sizes)
    est = _stream(clone(estimator), X[:75], None if y is None else y[:75], sizes[:2])
    est = pickle.loads(pickle.dumps(est))
    est.partial_fit(X[75:], None if y is None else y[75:])
    assert_state_equal(uninterrupted, est, context=f"{name}: pickle and resume")


@_online_check
def check_constant_memory(name: str, estimator: Any) -> None:
    """The fitted state does not grow with the number of rows streamed.

    The pickled size after 1000 rows may exceed that after 100 rows by a few
    bytes only (Python integers pickle longer as they grow). Applies to
    estimators whose ``_constant_memory`` is true.
    """
    X, y = _make_data(estimator, n_samples=1000)
    est = _stream(clone(estimator), X[:100], None if y is None else y[:100], [100])
    small = len(pickle.dumps(est))
    for start in range(100, 1000, 100):
        est.partial_fit(X[start : start + 100], None if y is None else y[start : start + 100])
    large = len(pickle.dumps(est))
    # A few bytes of slack: Python ints pickle longer as they grow.
    assert large <= small + 64, f"{name}: state grew from {small} to {large} bytes"


def _bad_inputs(X: Any, y: Any, estimator: Any) -> list[tuple[str, Any, Any]]:
    """(label, X_bad, y_bad) triples that must be rejected."""
    d = X.shape[1]
    cases = []
    for label, value in (("NaN", np.nan), ("+inf", np.inf), ("-inf", -np.inf), ("1e300", 1e300)):
        Xb = X[:10].copy()
        Xb[3, 1] = value
        cases.append((label, Xb, y))
    cases.append(("wrong number of features", X[:10, : d - 1], y))
    cases.append(("extra feature", np.hstack([X[:10], X[:10, :1]]), y))
    cases.append(("0 rows", X[:0], y))
    cases.append(("3-D array", X[:10, :, None], y))
    cases.append(("strings", np.full((10, d), "a"), y))
    cases.append(("object strings", np.full((10, d), "a", dtype=object), y))
    cases.append(("complex", X[:10] + 1j, y))
    cases = [(lab, Xb, None if y is None else y[: min(len(Xb), 10)]) for lab, Xb, _ in cases]
    if y is not None:
        yb = y[:10].astype(np.float64)
        yb[2] = np.nan
        cases.append(("NaN target", X[:10], yb))
        cases.append(("target of wrong length", X[:10], y[:9]))
        if is_classifier(estimator):
            unseen = y[:10].copy()
            unseen[0] = np.max(y) + 7
            cases.append(("unseen label", X[:10], unseen))
        else:
            yb = y[:10].astype(np.float64)
            yb[1] = np.inf
            cases.append(("inf target", X[:10], yb))
    return cases


_DEFINED_BY_FIRST_CALL = ("wrong number of features", "extra feature", "unseen label")


@_online_check
def check_bad_input_keeps_state(name: str, estimator: Any) -> None:
    """Every bad batch raises ValueError/TypeError and leaves the state byte-identical.

    Checked on a fresh estimator, mid-stream through ``partial_fit``, and through
    ``fit`` on a fitted estimator.
    """
    X, y = _make_data(estimator)
    fitted = _stream(clone(estimator), X[:60], None if y is None else y[:60], [60])
    for label, Xb, yb in _bad_inputs(X, y, estimator):
        for stage, est, call in (
            ("fresh partial_fit", clone(estimator), "partial_fit"),
            ("mid-stream partial_fit", pickle.loads(pickle.dumps(fitted)), "partial_fit"),
            ("fit on a fitted estimator", pickle.loads(pickle.dumps(fitted)), "fit"),
        ):
            if stage != "mid-stream partial_fit" and label in _DEFINED_BY_FIRST_CALL:
                continue  # fit and the first partial_fit define the width and the classes
            before = pickle.dumps(est)
            kwargs = (
                _first_kwargs(estimator, y)
                if stage.startswith("fresh") and call == "partial_fit"
                else {}
            )
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    getattr(est, call)(Xb, yb, **kwargs)
            except (ValueError, TypeError) as exc:
                assert str(exc), f"{name}: {label} ({stage}) raised without a message"
            else:
                raise AssertionError(f"{name}: {label} ({stage}) was accepted")
            assert pickle.dumps(est) == before, f"{name}: {label} ({stage}) changed the state"


@contextmanager
def _failing_pass(estimator: Any) -> Any:
    """Make every pass of ``estimator``'s class compute its new state, then raise."""
    cls = type(estimator)
    original = cls._partial_fit_state

    def failing(self: Any, state: Any, *args: Any, **kwargs: Any) -> Any:
        original(self, state, *args, **kwargs)
        raise FloatingPointError("simulated failure at the end of the pass")

    with mock.patch.object(cls, "_partial_fit_state", failing):
        yield


@_online_check
def check_failed_update_keeps_state(name: str, estimator: Any) -> None:
    """An exception at the end of an update leaves the estimator exactly as it was.

    The pass is made to raise after computing its new state, on a fresh
    estimator (which must stay unfitted) and mid-stream, through
    ``partial_fit`` and ``fit``.
    """
    X, y = _make_data(estimator)
    fitted = _stream(clone(estimator), X[:60], None if y is None else y[:60], [60])
    yb = None if y is None else y[60:90]
    for stage, est, call in (
        ("fresh partial_fit", clone(estimator), "partial_fit"),
        ("fresh fit", clone(estimator), "fit"),
        ("mid-stream partial_fit", pickle.loads(pickle.dumps(fitted)), "partial_fit"),
        ("fit on a fitted estimator", pickle.loads(pickle.dumps(fitted)), "fit"),
    ):
        before = pickle.dumps(est)
        kwargs = _first_kwargs(estimator, y) if stage == "fresh partial_fit" else {}
        with _failing_pass(est):
            try:
                getattr(est, call)(X[60:90], yb, **kwargs)
            except FloatingPointError:
                pass
            else:
                raise AssertionError(f"{name}: {stage}: the simulated failure was swallowed")
        assert pickle.dumps(est) == before, f"{name}: a failed {stage} changed the estimator"
        if stage.startswith("fresh"):
            assert not hasattr(est, "n_features_in_"), f"{name}: a failed {stage} left it fitted"


@_online_check
def check_pass_leaves_committed_state(name: str, estimator: Any) -> None:
    """A pass never writes into the committed state object (kernels are pure).

    After a ``partial_fit`` the estimator holds a new state object, and the
    previous one is byte-identical to what it was before the call.
    """
    X, y = _make_data(estimator)
    est = _stream(clone(estimator), X[:60], None if y is None else y[:60], [60])
    old = est._state
    snapshot = pickle.dumps(old)
    est.partial_fit(X[60:], None if y is None else y[60:])
    assert est._state is not old, f"{name}: partial_fit did not commit a new state object"
    assert pickle.dumps(old) == snapshot, f"{name}: partial_fit wrote into the previous state"


def _other_valid_values(estimator: Any, param: str) -> list[Any]:
    """Values of ``param`` other than the current one that pass parameter validation."""
    value = estimator.get_params()[param]
    candidates = []
    for constraint in getattr(estimator, "_parameter_constraints", {}).get(param, []):
        options = getattr(constraint, "options", None)
        if options is not None:
            candidates += sorted((o for o in options if o != value), key=str)
    if isinstance(value, bool):
        candidates.append(not value)
    elif isinstance(value, Integral):
        candidates += [value + 1, value - 1]
    elif isinstance(value, Real):
        candidates += [value * 2 if value else 1.0, value / 2]
    else:  # "auto", None, ...: a number from a numeric constraint
        for constraint in getattr(estimator, "_parameter_constraints", {}).get(param, []):
            left, right = getattr(constraint, "left", None), getattr(constraint, "right", None)
            low = left or 0
            high = (low + right) / 2 if right is not None else low + 100
            if getattr(constraint, "type", None) is Integral:
                candidates += [int(low) + 2, int(high)]
            elif getattr(constraint, "type", None) is Real:
                candidates += [low + 0.75, float(high)]
    out = []
    for candidate in candidates:
        trial = clone(estimator).set_params(**{param: candidate})
        try:
            trial._validate_params()
        except (ValueError, TypeError):
            continue
        out.append(candidate)
    return out


@_online_check
def check_frozen_params(name: str, estimator: Any) -> None:
    """A parameter that shapes the state cannot change mid-stream; ``fit`` starts again.

    Each parameter named by ``_frozen_params()`` is given another valid value
    mid-stream: the next ``partial_fit`` must raise a ``ValueError`` naming it
    and leave the state byte-identical.
    """
    X, y = _make_data(estimator)
    fitted = _stream(clone(estimator), X[:60], None if y is None else y[:60], [60])
    yb = None if y is None else y[60:]
    tried = 0
    for param in estimator._frozen_params():
        for value in _other_valid_values(estimator, param)[:1]:
            est = pickle.loads(pickle.dumps(fitted))
            before = pickle.dumps(est._state)
            est.set_params(**{param: value})
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.partial_fit(X[60:], yb)
            except ValueError as exc:
                assert param in str(exc), f"{name}: the error does not name {param}: {exc}"
            else:
                raise AssertionError(f"{name}: {param} changed mid-stream was accepted")
            assert pickle.dumps(est._state) == before, f"{name}: {param} change altered state"
            tried += 1
    assert tried, f"{name}: no frozen parameter could be given another valid value"


_EXTRA_READ_METHODS = ("score_samples", "get_covariance", "get_precision")


def _read_outs(estimator: Any, X: Any, y: Any) -> dict[str, bytes | str]:
    """Every read-out of a fitted estimator: fitted attributes and read-method outputs.

    A read-out that raises is recorded by its exception type (it must keep
    raising); the values are pickled, so that two read-outs compare bit for bit.
    """
    names = sorted(
        {
            n
            for n in [*dir(type(estimator)), *vars(estimator)]
            if n.endswith("_") and not n.startswith("_")
        }
    )
    calls: dict[str, Callable[[], Any]] = {
        f"attribute {n}": functools.partial(getattr, estimator, n) for n in names
    }
    for method in (*_READ_METHODS, *_EXTRA_READ_METHODS):
        if method == "inverse_transform" and hasattr(estimator, "transform"):
            calls[method] = lambda: estimator.inverse_transform(estimator.transform(X))
        elif method == "score":
            calls[method] = functools.partial(estimator.score, X, y)
        elif method in ("get_covariance", "get_precision"):
            calls[method] = functools.partial(lambda m: getattr(estimator, m)(), method)
        elif method != "inverse_transform":
            calls[method] = functools.partial(lambda m: getattr(estimator, m)(X), method)
    out: dict[str, bytes | str] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, call in calls.items():
            try:
                value = call()
            except Exception as exc:
                out[key] = f"raises {type(exc).__name__}"
            else:
                out[key] = pickle.dumps(value)
    return out


@_online_check
def check_read_outs_ignore_params(name: str, estimator: Any) -> None:
    """Check that read-outs come from the committed state, never from a live parameter.

    After ``fit``, each parameter in turn is given every other valid value
    (up to two): every fitted attribute and every ``transform`` /
    ``inverse_transform`` / ``predict*`` / ``decision_function`` / ``score`` /
    ``score_samples`` / ``get_covariance`` / ``get_precision`` output must stay
    bit-identical. Parameters act on the next update, or (the frozen ones) are
    refused by it; they never change what was learned.
    """
    X, y = _make_data(estimator)
    yb = None if y is None else y[:20]
    fitted = clone(estimator).fit(X, y)
    reference = _read_outs(pickle.loads(pickle.dumps(fitted)), X[:20], yb)
    # read-outs that differ between two identical copies are random draws: skip them
    again = _read_outs(pickle.loads(pickle.dumps(fitted)), X[:20], yb)
    stable = {k for k in reference if reference[k] == again[k]}
    changed = []
    for param in sorted(estimator.get_params(deep=False)):
        for value in _other_valid_values(estimator, param)[:2]:
            est = pickle.loads(pickle.dumps(fitted))
            est.set_params(**{param: value})
            outs = _read_outs(est, X[:20], yb)
            changed += [
                f"{param}={value!r} changes {key}"
                for key in sorted(stable)
                if outs.get(key) != reference[key]
            ]
    assert not changed, f"{name}: read-outs follow live parameters: " + "; ".join(changed[:8])


@_online_check
def check_set_params_all_or_none(name: str, estimator: Any) -> None:
    """``set_params`` with an invalid name changes no parameter.

    A valid parameter is set together with an unknown one: the call must raise
    ``ValueError`` and leave every parameter as it was.
    """
    params = estimator.get_params(deep=False)
    est = clone(estimator)
    key = sorted(params)[0]
    values = _other_valid_values(est, key) or [object()]
    try:
        est.set_params(**{key: values[0], "not_a_parameter_": 1})
    except ValueError:
        pass
    else:
        raise AssertionError(f"{name}: set_params accepted an unknown parameter")
    assert pickle.dumps(est.get_params(deep=False)) == pickle.dumps(params), (
        f"{name}: a failed set_params changed {key}"
    )


@_online_check
def check_input_layouts(name: str, estimator: Any) -> None:
    """Input layouts and dtypes are accepted and agree.

    float32 and float64, C and Fortran order, non-contiguous arrays, read-only
    memory maps, pandas DataFrames (whose column names are kept) and CSR
    matrices (where the estimator declares sparse support) give the same
    state, and the read-only methods accept them. An estimator whose default
    resolves another route for CSR input (FD's ``sparse_solver="auto"``)
    returns the parameters of the dense route from ``_csr_as_dense_params()``:
    CSR and dense input are compared under them.
    """
    X, y = _make_data(estimator)
    reference = clone(estimator).fit(X, y)
    variants = {
        "F-ordered": np.asfortranarray(X),
        "non-contiguous": np.repeat(X, 2, axis=1)[:, ::2],
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/X.npy"
        np.save(path, X)
        variants["read-only memmap"] = np.load(path, mmap_mode="r")
        for label, Xv in variants.items():
            est = clone(estimator).fit(Xv, y)
            assert_state_equal(reference, est, context=f"{name}: {label} input")
            _call_read_methods(est, Xv[:5], None if y is None else y[:5])
        del variants
    tags = get_tags(estimator)
    if tags.input_tags.sparse:
        est = clone(estimator).fit(sp.csr_matrix(X), y)
        _call_read_methods(est, sp.csr_matrix(X[:5]), None if y is None else y[:5])
        # An estimator whose default takes another route for CSR rows (a solver
        # resolved from the input) names the parameters under which both agree.
        same_route: dict[str, Any] = getattr(estimator, "_csr_as_dense_params", dict)()
        if same_route:
            reference = clone(estimator).set_params(**same_route).fit(X, y)
            est = clone(estimator).set_params(**same_route).fit(sp.csr_matrix(X), y)
        assert_state_equal(reference, est, rtol=1e-12, atol=1e-12, context=f"{name}: CSR input")
        est32 = clone(estimator).fit(sp.csr_matrix(X.astype(np.float32)), y)
        _call_read_methods(
            est32, sp.csr_matrix(X[:5], dtype=np.float32), None if y is None else y[:5]
        )
    X32 = X.astype(np.float32)
    est = clone(estimator).fit(X32, y)
    for method in ("transform", "predict", "decision_function"):
        if hasattr(est, method):
            out = getattr(est, method)(X32)
            assert np.all(np.isfinite(np.asarray(out, dtype=float))), f"{name}: float32 {method}"
            if method == "transform" and "float32" in tags.transformer_tags.preserves_dtype:
                assert out.dtype == np.float32, f"{name}: transform does not preserve float32"
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a test extra
        return
    columns = [f"feature_{i}" for i in range(X.shape[1])]
    df = pd.DataFrame(X, columns=columns)
    est = _stream(clone(estimator), df, y, [50, 100])
    assert list(est.feature_names_in_) == columns, f"{name}: feature names not kept"
    reference_stream = _stream(clone(estimator), X, y, [50, 100])
    state = {k: v for k, v in _state(est).items() if k != "feature_names_in_"}
    for key, value in _state(reference_stream).items():
        assert pickle.dumps(state[key]) == pickle.dumps(value), f"{name}: DataFrame {key}"
    _call_read_methods(est, df.iloc[:5], None if y is None else y[:5])


@_online_check
def check_pipeline_and_grid_search(name: str, estimator: Any) -> None:
    """The estimator composes in a Pipeline and a GridSearchCV.

    A pipeline with a pass-through step gives the same ``transform`` and
    ``predict`` as the estimator alone, and a grid search over one parameter
    fits and scores finitely.
    """
    X, y = _make_data(estimator)
    pipe = make_pipeline(FunctionTransformer(), clone(estimator)).fit(X, y)
    alone = clone(estimator).fit(X, y)
    for method in ("transform", "predict"):
        if hasattr(alone, method):
            np.testing.assert_array_equal(
                getattr(pipe, method)(X),
                getattr(alone, method)(X),
                err_msg=f"{name}: pipeline {method}",
            )
    params = estimator.get_params(deep=False)
    grid_param = sorted(params)[0]
    grid = {grid_param: [params[grid_param]] * 2}
    search = GridSearchCV(clone(estimator), grid, cv=3).fit(X, y)
    assert hasattr(search, "best_estimator_"), f"{name}: GridSearchCV did not fit"
    assert np.isfinite(search.best_score_), f"{name}: GridSearchCV score is not finite"


@_online_check
def check_set_output_pandas(name: str, estimator: Any) -> None:
    """A transformer honours ``set_output(transform="pandas")``.

    ``transform`` returns a DataFrame whose columns are
    ``get_feature_names_out()``.
    """
    import pandas as pd

    X, y = _make_data(estimator)
    est = clone(estimator).set_output(transform="pandas").fit(X, y)
    out = est.transform(X)
    assert isinstance(out, pd.DataFrame), f"{name}: set_output ignored"
    assert list(out.columns) == list(est.get_feature_names_out()), f"{name}: column names"


_ALL_CHECKS = (
    check_partial_fit_splits,
    check_fit_resets,
    check_methods_leave_state,
    check_pickle_resume,
    check_constant_memory,
    check_bad_input_keeps_state,
    check_failed_update_keeps_state,
    check_pass_leaves_committed_state,
    check_frozen_params,
    check_set_params_all_or_none,
    check_read_outs_ignore_params,
    check_input_layouts,
    check_pipeline_and_grid_search,
    check_set_output_pandas,
)


def _not_applicable(check: _Check, estimator: Any) -> str | None:
    """Why ``check`` does not apply to ``estimator`` (``None`` when it does)."""
    if check is check_constant_memory and not getattr(estimator, "_constant_memory", False):
        return "the state grows with the stream by design (a history or every past row)"
    if check is check_set_output_pandas:
        if not hasattr(estimator, "transform") or not hasattr(estimator, "set_output"):
            return "not a transformer"
        try:
            import pandas  # noqa: F401
        except ImportError:  # pragma: no cover - pandas is a test extra
            return "pandas is not installed"
    if check is check_frozen_params and not estimator._frozen_params():
        return "no parameter shapes the state"
    return None


def yield_online_checks(estimator: Any) -> Iterator[_Check]:
    """Yield every online check that applies to an estimator.

    Checks that do not apply (for instance the constant-memory check for an
    estimator whose state grows by design) are left out.

    Parameters
    ----------
    estimator : estimator instance
        The estimator to check.

    Yields
    ------
    check : callable
        A check, to call as ``check(name, estimator)``.

    Examples
    --------
    >>> from skonline import FrequentDirections
    >>> from skonline.utils.estimator_checks import yield_online_checks
    >>> checks = list(yield_online_checks(FrequentDirections(sketch_size=4)))
    >>> "check_partial_fit_splits" in [check.__name__ for check in checks]
    True
    """
    for check in _ALL_CHECKS:
        if _not_applicable(check, estimator) is None:
            yield check


def check_online_estimator(estimator: Any) -> None:
    """Run every applicable online check on an estimator.

    The checks of :func:`yield_online_checks` run in order; the first one that
    fails raises its ``AssertionError``.

    Parameters
    ----------
    estimator : estimator instance
        The estimator to check, with ``partial_fit``; it is cloned, never
        fitted itself.

    Examples
    --------
    >>> from skonline import FrequentDirections
    >>> from skonline.utils.estimator_checks import check_online_estimator
    >>> check_online_estimator(FrequentDirections(sketch_size=4))
    """
    name = type(estimator).__name__
    for check in yield_online_checks(estimator):
        check(name, estimator)


def parametrize_with_online_checks(estimators: list[Any]) -> Any:
    """A ``pytest.mark.parametrize`` decorator over (estimator, check) pairs.

    Checks that do not apply to an estimator are collected as skipped, with
    the reason.

    Parameters
    ----------
    estimators : list of estimator instances
        The estimators to check.

    Returns
    -------
    decorator : callable
        ``pytest.mark.parametrize("estimator, check", ...)``; each ``check``
        takes the estimator as its only argument (its name is bound).

    Examples
    --------
    >>> from skonline import FrequentDirections
    >>> from skonline.utils.estimator_checks import parametrize_with_online_checks
    >>> @parametrize_with_online_checks([FrequentDirections(sketch_size=4)])
    ... def test_online(estimator, check):
    ...     check(estimator)
    """
    import pytest

    cases = []
    for est in estimators:
        for check in _ALL_CHECKS:
            reason = _not_applicable(check, est)
            marks = [pytest.mark.skip(reason=reason)] if reason else []
            cases.append(
                pytest.param(
                    est,
                    functools.partial(check, type(est).__name__),
                    id=f"{est!r}-{check.__name__}",
                    marks=marks,
                )
            )
    return pytest.mark.parametrize("estimator, check", cases)

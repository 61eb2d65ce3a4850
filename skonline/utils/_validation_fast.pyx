# cython: language_level=3, boundscheck=False, wraparound=False
"""One pass over a dense block: its smallest and largest entries, and whether all are finite.

The finiteness and magnitude checks of a validated batch in a single read of
the data, without the temporaries of NumPy's ``isfinite``/``abs`` (shared by
the input validation of every estimator, the sketches' own guard and the
finiteness check of a new state).
"""

cimport numpy as cnp
from libc.math cimport isfinite

import numpy as np

cnp.import_array()

ctypedef fused floating_in:
    float
    double


cdef inline bint _row_range(const floating_in* x, Py_ssize_t d, double* low,
                            double* high) noexcept nogil:
    """Fold ``d`` contiguous values into ``low``/``high``; False at a NaN.

    Eight independent running minima and maxima (``v < lo ? v : lo``: a NaN
    leaves them unchanged, the flag records it) and no exit inside the loop,
    so the compiler turns it into SIMD minimum/maximum instructions.
    """
    cdef double lo[8]
    cdef double hi[8]
    cdef double v
    cdef Py_ssize_t j = 0, u
    cdef bint nan = False
    for u in range(8):
        lo[u] = low[0]
        hi[u] = high[0]
    while j + 8 <= d:
        for u in range(8):
            v = x[j + u]
            nan |= v != v
            lo[u] = v if v < lo[u] else lo[u]
            hi[u] = v if v > hi[u] else hi[u]
        j += 8
    for j in range(j, d):
        v = x[j]
        nan |= v != v
        lo[0] = v if v < lo[0] else lo[0]
        hi[0] = v if v > hi[0] else hi[0]
    for u in range(8):
        if lo[u] < low[0]:
            low[0] = lo[u]
        if hi[u] > high[0]:
            high[0] = hi[u]
    return not nan


def value_range(const floating_in[:, :] X):
    """``(min, max, code)`` of a dense 2-D block; code 0: finite, 1: a NaN, 2: an infinity.

    An empty block gives ``(0.0, 0.0, 0)``. The scan stops after the first
    row with a NaN (``min``/``max`` are then meaningless). Rows whose entries
    are contiguous are read by a SIMD loop; others entry by entry.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], i, j
    cdef double v, low = 0.0, high = 0.0
    cdef int code = 0
    cdef bint contiguous = X.strides[1] == sizeof(floating_in)
    if n == 0 or d == 0:
        return 0.0, 0.0, 0
    low = X[0, 0]
    high = low
    with nogil:
        for i in range(n):
            if contiguous:
                if not _row_range(&X[i, 0], d, &low, &high):
                    code = 1
                    break
                continue
            for j in range(d):
                v = X[i, j]
                if v != v:
                    code = 1
                    break
                if v < low:
                    low = v
                elif v > high:
                    high = v
            if code:
                break
    if code == 0 and not (isfinite(low) and isfinite(high)):
        code = 2
    return low, high, code


cdef inline bint _all_finite(const floating_in* p, Py_ssize_t size) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(size):
        if not isfinite(p[i]):
            return False
    return True


def first_nonfinite(list arrays):
    """Index in ``arrays`` of the first float64/float32 array with a NaN or an infinity, or -1.

    One C loop over each array's buffer, without the per-array memoryview
    set-up (:func:`_array_finite`). Arrays that are not C-contiguous are
    checked through NumPy; other dtypes (integers) count as finite.
    """
    cdef Py_ssize_t k
    for k in range(len(arrays)):
        if not _array_finite(arrays[k]):
            return k
    return -1


# ---------------------------------------------------------------- new states
#: Field names of each dataclass type but ``frozen`` and ``live`` (``None``: not a dataclass).
cdef dict _FIELDS = {}
_Generator = np.random.Generator


cdef object _fields_of(object kind):
    cdef object names
    if kind in _FIELDS:
        return _FIELDS[kind]
    fields = getattr(kind, "__dataclass_fields__", None)
    names = None
    if fields is not None:
        names = tuple(name for name in fields if name not in ("frozen", "live"))
    _FIELDS[kind] = names
    return names


cdef inline bint _no_floats(object kind):
    return kind is int or kind is bool or kind is str or kind is bytes or kind is type(None)


cdef bint _array_finite(cnp.ndarray a) except -1:
    cdef Py_ssize_t size = cnp.PyArray_SIZE(a)
    if size == 0:
        return True
    if cnp.PyArray_IS_C_CONTIGUOUS(a):
        if cnp.PyArray_TYPE(a) == cnp.NPY_DOUBLE:
            return _all_finite(<const double*> cnp.PyArray_DATA(a), size)
        if cnp.PyArray_TYPE(a) == cnp.NPY_FLOAT:
            return _all_finite(<const float*> cnp.PyArray_DATA(a), size)
    if a.dtype.kind in "fc":
        return bool(np.isfinite(a).all())
    return True


#: How a child's name is written after its parent's (``_name``).
cdef enum:
    FIELD = 0  # a dataclass field: "parent.field" ("field" at the top)
    ATTR = 1   # another object's attribute: "parent.attr"
    ITEM = 2   # a list or tuple item: "parent[i]"


cdef str _name(object path):
    """The name of a place: ``path`` is ``None`` (the state) or ``(parent, key, how)``."""
    if path is None:
        return ""
    parent, key, how = path
    base = _name(parent)
    if how == ITEM:
        return f"{base}[{key}]"
    if how == FIELD and not base:
        return key
    return f"{base}.{key}"


#: The old fields of a value that has no counterpart in the committed state.
cdef dict _NO_FIELDS = {}


cdef bint _walk(object value, object old, object path, list numbers, list arrays) except -1:
    """Record the non-finite places under ``value``; True to stop.

    With lists, every place is recorded (numbers and arrays apart, so the
    names list the numbers first and then the arrays, each in the order of
    the walk) and the walk goes on; with ``numbers=None`` it builds no path
    and stops at the first non-finite place (the commit's yes-or-no).
    """
    cdef object kind = type(value)
    cdef bint named = numbers is not None
    cdef bint same
    cdef dict values, olds
    cdef object item, previous, names
    cdef Py_ssize_t i, n
    if value is old:
        return False
    if kind is np.ndarray or (isinstance(value, np.ndarray) and not isinstance(value, type)):
        if _array_finite(value if kind is np.ndarray else np.asarray(value)):
            return False
        if named:
            (arrays if kind is np.ndarray else numbers).append(_name(path))
        return not named
    if _no_floats(kind):
        return False
    if kind is float or isinstance(value, np.floating):
        if isfinite(<double> value) if kind is float else bool(np.isfinite(value)):
            return False
        if named:
            numbers.append(_name(path))
        return not named
    if kind is list or kind is tuple:
        n = len(value)
        same = type(old) is kind and len(old) == n
        for i in range(n):
            if _walk(value[i], old[i] if same else None, (path, i, ITEM) if named else None,
                     numbers, arrays):
                return True
        return False
    if isinstance(value, type):
        return False
    names = _fields_of(kind)
    if names is not None:
        values = value.__dict__
        if values.get("finite_writes") is True:  # checked at each write (the curve's memory)
            return False
        olds = old.__dict__ if type(old) is kind else _NO_FIELDS
        for name in names:
            item = values.get(name)
            previous = olds.get(name)
            if item is previous or _no_floats(type(item)):
                continue
            if _walk(item, previous, (path, name, FIELD) if named else None, numbers, arrays):
                return True
        return False
    if hasattr(value, "__dict__") and not isinstance(value, _Generator):
        olds = vars(old) if type(old) is kind else _NO_FIELDS
        for key, item in vars(value).items():
            if _walk(item, olds.get(key), (path, key, ATTR) if named else None, numbers, arrays):
                return True
    return False


def nonfinite_fields(state, previous=None):
    """Names of the float places of ``state`` (arrays, numbers, nested) that are not finite.

    The walk: dataclass fields but ``frozen`` and ``live``, list and tuple
    items, other objects' attributes (not a generator's); a value that *is*
    (the same object as) the value at the same place in ``previous`` is
    skipped: ``previous`` is the committed state, checked when it was
    committed and never written into since, so only what a call replaced is
    read (kernels copy what they change and share the rest); so is a
    dataclass whose ``finite_writes`` field is True, a structure that checks
    every number at its write (the principal curve's row memory). Numbers (and
    array subclasses) are listed first, then arrays, each in walk order.
    """
    numbers, arrays = [], []
    _walk(state, previous, None, numbers, arrays)
    return numbers + arrays


def state_is_finite(state, previous=None):
    """``not nonfinite_fields(state, previous)``, stopping at the first non-finite place.

    The commit of every call runs it; the names are looked up only when it
    says no. The same walk as :func:`nonfinite_fields`, without building the
    paths of the places (about 35 % less time).
    """
    return not _walk(state, previous, None, None, None)

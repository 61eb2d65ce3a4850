"""The shared online base of every skonline estimator: one state contract.

An online estimator in skonline is a scikit-learn estimator whose learning is
one ordered pass over the rows it is given:

* ``partial_fit(X)`` validates the *whole* batch first (with
  :func:`sklearn.utils.validation.validate_data`, ``reset`` only on the first
  call), then runs a **pure kernel** over the rows:
  ``new_state = self._partial_fit_state(state, X, y, **kwargs)``, which never
  writes into ``state``.
* The learned state is **one object** (a subclass of :class:`OnlineState`)
  held in ``self._state``; every fitted attribute (``coef_``,
  ``n_samples_seen_``, ...) is read from it. Besides it the estimator keeps
  only scikit-learn's ``n_features_in_`` / ``feature_names_in_``.
* The base **commits** the new state only when the whole call has succeeded
  (the call runs on a shadow copy of the estimator, published in one step):
  any exception (a validation error, ``LinAlgError``, ``FloatingPointError``,
  a warning turned into an error, a parameter changed with ``set_params``
  that the state cannot follow) leaves the estimator exactly as it was, and
  an unfitted estimator stays unfitted. A state holding a non-finite number
  is never committed.
* Parameters that shape the state are declared once, as the fields of a
  :class:`ParamRecord` (the class attribute ``_frozen_record``); their
  values are recorded in ``state.frozen`` at the first call, and a later
  ``partial_fit`` that finds one changed raises one message (``fit`` starts
  again). Every other parameter is *live*: it acts from the next update on.
  A live parameter that a read-out needs (the number of components a sketch
  reports) is declared in ``_live_record`` and recorded in ``state.live`` by
  every committed call, so a read-out sees the value of the last update.
* **Reads come from the state too.** Every fitted attribute, ``transform``,
  ``predict*``, ``decision_function``, ``score`` and ``inverse_transform``
  reads the committed state and its ``frozen`` record, never a live parameter
  value, so ``set_params`` changes nothing that was learned until the next
  ``fit`` (checked for every estimator by
  :func:`skonline.utils.estimator_checks.check_read_outs_ignore_params`).
  Derived read-outs (an eigendecomposition of a sketch) are cached on the
  state object, which is never mutated after it is committed.
* ``fit(X)`` is a reset followed by the same pass, with the same commit.

Subclasses implement three hooks:

``_validate_batch(X, y, first_call, **fit_params)``
    Return ``(X, y, kwargs)``: the validated batch and the keyword arguments
    of the pass (e.g. sample weights). Writes nothing but what
    ``validate_data`` records on the first call.
``_init_state(X, y, **kwargs)``
    The empty state of a new stream (shapes are known from ``X``).
``_partial_fit_state(state, X, y, **kwargs)``
    One ordered pass; returns the new state and never writes into ``state``.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from sklearn import get_config
from sklearn.base import BaseEstimator
from sklearn.utils import get_tags

if TYPE_CHECKING:  # Python 3.11's typing.Self, for 3.10 too
    from typing_extensions import Self

from .utils._progress import Progress
from .utils._sklearn_compat import check_is_fitted
from .utils._validation import (
    FLOAT_DTYPES,
    fast_batch,
    fast_target,
    finite_range,
    validate_data,
)
from .utils._validation_fast import nonfinite_fields, state_is_finite

__all__ = [
    "MAX_ABS_VALUE",
    "OnlineEstimator",
    "OnlineLossMixin",
    "OnlineState",
    "ParamRecord",
    "check_finite_magnitude",
    "shallow_replace",
]

#: Largest absolute value accepted in a data matrix, a target or a sample
#: weight. Every skonline algorithm works with squared norms or products of
#: rows; a single square above ``1e300`` is certain to overflow float64 and turn
#: the state into inf/NaN. Sums of many squares can still overflow below this
#: bound: the kernels fall back to overflow-safe routes there, and a state that
#: is not finite is never committed.
MAX_ABS_VALUE = 1e150


def check_finite_magnitude(X: Any, *, max_abs: float = MAX_ABS_VALUE, name: str = "X") -> None:
    """Raise ``ValueError`` if a finite entry of ``X`` is too large to square.

    Parameters
    ----------
    X : ndarray or sparse matrix
        Already validated (finite, numeric) data.
    max_abs : float, default=1e150
        Largest accepted absolute value.
    name : str, default="X"
        Name used in the error message.
    """
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.size == 0:
        return
    if data.dtype in FLOAT_DTYPES:  # one compiled pass, no |X| copy
        low, high, code = finite_range(data)
        if code == 1:  # NaN: not this guard's to report (NumPy's max/min would give NaN)
            return
        largest = max(high, -low)
    else:
        largest = max(float(data.max()), -float(data.min()))
    if largest > max_abs:
        raise ValueError(
            f"{name} contains a value too large in magnitude ({largest:.3g}); skonline "
            f"squares the data and needs |{name}| <= {max_abs:.0e} to stay finite in float64. "
            "Rescale the input."
        )


_IMMUTABLE = (str, int, float, bool, type(None))


def _recorded(value: Any) -> Any:
    """A parameter value as a record keeps it: a deep copy (immutable values as they are)."""
    return value if type(value) in _IMMUTABLE else copy.deepcopy(value)


_D = TypeVar("_D")


def shallow_replace(obj: _D, **changes: Any) -> _D:
    """``dataclasses.replace`` for a state dataclass, without running ``__init__`` again.

    A new object sharing every field of ``obj`` but the ``changes`` (what
    ``dataclasses.replace`` gives for a dataclass without ``__post_init__``
    or init-only fields, which states never have), at a tenth of the cost:
    a call that learns one row makes several. As with ``dataclasses.replace``,
    attributes that are not fields (a cached read-out) are not carried over.
    """
    fields = obj.__dataclass_fields__  # type: ignore[attr-defined]
    unknown = [name for name in changes if name not in fields]
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no fields {unknown}")
    values = obj.__dict__
    new = object.__new__(type(obj))
    new.__dict__.update({name: values[name] for name in fields if name in values})
    new.__dict__.update(changes)
    return new


def copy_arrays(obj: _D, skip: tuple[str, ...] = (), **changes: Any) -> _D:
    """:func:`shallow_replace` with its own copy of every ndarray field (but ``skip``).

    The copy a pure kernel works on when the rest of ``obj``'s fields are
    immutable values; ``changes`` replace fields on top (mutable fields that
    are not arrays, copied by the caller).
    """
    fields = obj.__dataclass_fields__  # type: ignore[attr-defined]
    own = {
        name: value.copy()
        for name, value in vars(obj).items()
        if type(value) is np.ndarray and name in fields and name not in skip
    }
    return shallow_replace(obj, **{**own, **changes})


_F = TypeVar("_F", bound="ParamRecord")
_S = TypeVar("_S", bound="OnlineState")


@dataclass(frozen=True)
class ParamRecord:
    """Parameter values recorded in a learned state: one typed field per parameter.

    Each estimator declares the parameters that shape its state as the fields
    of a subclass named by its ``_frozen_record`` class attribute: the base
    records their values at the first call (``state.frozen``) and refuses a
    later ``partial_fit`` that finds one of them changed. The live parameters
    that a read-out needs are the fields of the subclass named by
    ``_live_record``, recorded again by every committed call (``state.live``).
    Read-outs take parameter values from these records, never from the
    estimator, so ``set_params`` changes nothing learned until the next call.
    """

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The names of the recorded parameters, in declaration order."""
        names = cls.__dict__.get("_names")
        if names is None:  # once per class: read at every call of a stream
            names = tuple(f.name for f in dataclasses.fields(cls))
            cls._names = names
        return names

    #: The field names, computed once per class by :meth:`names`.
    _names: ClassVar[tuple[str, ...] | None] = None

    @classmethod
    def of(cls: type[_F], estimator: Any) -> _F:
        """The record of ``estimator``'s current values (deep copies)."""
        return cls(**{name: _recorded(getattr(estimator, name)) for name in cls.names()})

    def active(self) -> tuple[str, ...]:
        """The recorded parameters that shape this state (all of them by default).

        A record whose state depends on a parameter only in some settings (the
        seed of a randomized solver) leaves it out here when it does not.
        """
        return self.names()

    def changes(self, estimator: Any) -> dict[str, tuple[Any, Any]]:
        """``{name: (recorded, current)}`` for every active parameter changed since."""
        changed = {}
        mine, theirs = self.__dict__, estimator.__dict__  # parameters are plain attributes
        for name in self.active():
            recorded = mine[name]
            current = theirs[name] if name in theirs else getattr(estimator, name)
            if recorded is not current and not _same_value(recorded, current):
                changed[name] = (recorded, current)
        return changed


@dataclass(kw_only=True, eq=False)
class OnlineState:
    """Fields every learned state has; each family's state subclasses it.

    Attributes
    ----------
    frozen : ParamRecord
        The values of the estimator's frozen parameters at the first call.
    live : ParamRecord
        The values of the live parameters that read-outs need, as they were
        at the last committed call.
    n_samples_seen : int
        Rows learned from (every pass of a multi-epoch ``fit`` counts).
    cumulative_loss : float
        Sum of the prequential losses (each row scored before its update),
        for estimators that have a loss.
    loss_history : ndarray or None
        The per-row prequential losses, with ``keep_history=True``.
    """

    frozen: ParamRecord = field(default_factory=ParamRecord)
    live: ParamRecord = field(default_factory=ParamRecord)
    n_samples_seen: int = 0
    cumulative_loss: float = 0.0
    loss_history: np.ndarray | None = None

    def copy(self: _S) -> _S:
        """A deep copy: kernels work on it and return it as the new state."""
        return copy.deepcopy(self)

    def record_losses(self, losses: ArrayLike) -> None:
        """Add the prequential losses of a pass (in place, on a kernel's own copy)."""
        losses = np.asarray(losses, dtype=np.float64)
        self.cumulative_loss = sequential_sum(self.cumulative_loss, losses)
        if self.loss_history is not None:
            self.loss_history = np.concatenate([self.loss_history, losses])


def sequential_sum(start: float, values: np.ndarray) -> float:
    """``start`` plus ``values`` added one by one, in order.

    The running sums of the states (prequential losses) add row by row, so any
    split of the stream gives the same bits; ``np.add.accumulate`` adds in that
    order (each partial sum is the previous one plus the next value).
    """
    if values.size == 0:
        return float(start)
    return float(np.add.accumulate(np.concatenate([[start], values.ravel()]))[-1])


def _nonfinite_fields(state: Any, previous: Any = None) -> list[str]:
    """Names of the float places of ``state`` that are not finite (see ``nonfinite_fields``).

    What ``previous`` (the committed state) shares with ``state`` is skipped:
    it was checked when it was committed and is never written into.
    """
    return nonfinite_fields(state, previous)


_TARGET_REQUIRED: dict[type, bool] = {}


def _target_required(estimator: Any) -> bool:
    """Whether the estimator's tags require a target (scikit-learn's rule for ``y=None``).

    Cached per class: the requirement comes with the class (a classifier or a
    regressor), not with parameter values.
    """
    cls = type(estimator)
    required = _TARGET_REQUIRED.get(cls)
    if required is None:
        required = bool(get_tags(estimator).target_tags.required)
        _TARGET_REQUIRED[cls] = required
    return required


_GENERATORS = (np.random.RandomState, np.random.Generator)


def _same_value(a: Any, b: Any) -> bool:
    if a is b:  # an immutable value is recorded as itself
        return True
    if isinstance(a, _GENERATORS) and isinstance(b, _GENERATORS):
        # a generator object shapes a state only through what the first call drew
        # from it (the state then holds a generator of its own): the record's copy
        # and the estimator's object may have drawn differently since, and another
        # object of the same kind cannot be told from this one (a pickle or a
        # deep copy makes new objects too). Only a change of kind counts.
        return type(a) is type(b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and np.array_equal(a, b)
        )
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # pragma: no cover - exotic parameter values
        return a is b


class _Transaction:
    """The context manager of :meth:`OnlineEstimator._transaction` (a class: cheaper to enter)."""

    __slots__ = ("estimator", "shadow")

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator
        self.shadow = object.__new__(type(estimator))
        self.shadow.__dict__.update(estimator.__dict__)

    def __enter__(self) -> Any:
        return self.shadow

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            return  # the shadow is dropped: the estimator is as it was
        attributes = self.shadow.__dict__
        own = self.estimator.__dict__
        own.update(attributes)
        if len(own) != len(attributes):  # own now holds every key of attributes, and more
            for name in [name for name in own if name not in attributes]:
                own.pop(name, None)  # forgotten by a reset (feature_names_in_)


#: The display of a ``partial_fit`` below ``verbose=2``: shows nothing, so one serves all.
_SILENT = Progress(None, verbose=0, summary=True)


class OnlineEstimator(BaseEstimator):
    """Base class of skonline's online estimators (see the module docstring).

    Class attributes a subclass may override:

    ``_accept_sparse`` : bool or str
        Passed to ``validate_data`` (``"csr"`` for estimators with sparse support).
    ``_constant_memory`` : bool
        True when the fitted state does not grow with the number of rows seen;
        checked by :func:`skonline.utils.estimator_checks.check_constant_memory`.
    ``_exact_row_splits`` : bool
        True when any split of the rows across ``partial_fit`` calls gives a
        bit-identical state (per-row algorithms).
    """

    #: The committed state (an instance of the family's :class:`OnlineState` subclass).
    _state: Any
    _accept_sparse: bool | str = False
    _constant_memory: bool = True
    _exact_row_splits: bool = True

    # ------------------------------------------------------------------ state
    def _is_initialized(self) -> bool:
        """True once a first call has created the state (fitted or not yet)."""
        return "_state" in self.__dict__

    def __sklearn_is_fitted__(self) -> bool:
        return self._is_initialized()

    def _check_fitted(self) -> None:
        check_is_fitted(self)

    def _fitted_state(self) -> Any:
        """The committed state, after checking that the estimator is fitted."""
        self._check_fitted()
        return self._state

    def _reset(self) -> None:
        """Forget everything learned: the state and the recorded input shape."""
        for name in ("_state", "n_features_in_", "feature_names_in_"):
            self.__dict__.pop(name, None)

    def _transaction(self) -> _Transaction:
        """Run a call on a shadow of the estimator; publish the shadow only if it succeeds.

        The block works on (and gets from ``with``) a shallow copy of the
        estimator: every attribute it sets, resets or commits is set on the
        copy. Kernels never write into the committed state, so the estimator
        itself is untouched until the whole block has succeeded; then the
        copy's attributes replace its own in one dictionary update. A failed
        call changes nothing, and a reader in another thread (``predict``
        during a ``fit`` or a failing ``partial_fit``) sees the old attributes
        or the new ones, never an estimator emptied by a reset or a rollback.
        """
        return _Transaction(self)

    def set_params(self, **params: Any) -> Self:
        """Set the parameters of this estimator, all or none.

        As :meth:`sklearn.base.BaseEstimator.set_params`, except that an
        invalid name leaves every parameter as it was (scikit-learn's sets the
        ones before it), and that once a stream has started the new values are
        validated here, as ``fit`` validates them (a started stream's
        ``partial_fit`` does not validate, as in scikit-learn): an invalid value
        raises ``InvalidParameterError`` and leaves every parameter as it was.

        Parameters
        ----------
        **params : dict
            Estimator parameters.

        Returns
        -------
        self : estimator instance
            Estimator instance.
        """
        valid = self.get_params(deep=False)
        for key in params:
            name = key.partition("__")[0]
            if name not in valid:  # before any change: the message shows the estimator as it is
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {self}. "
                    f"Valid parameters are: {sorted(valid)!r}."
                )
        with self._transaction() as est:
            BaseEstimator.set_params(est, **params)
            if self._is_initialized() and not get_config()["skip_parameter_validation"]:
                # a started stream's partial_fit skips the validation (scikit-learn's
                # rule for fitted estimators): a live parameter is checked here instead
                est._validate_params()
        return self

    # -------------------------------------------------------- frozen params
    #: The record of the parameters that shape the state (its fields); see
    #: :class:`ParamRecord`. Every other parameter is live.
    _frozen_record: ClassVar[type[ParamRecord]] = ParamRecord
    #: The live parameters that read-outs need (recorded at every committed call).
    _live_record: ClassVar[type[ParamRecord]] = ParamRecord

    def _frozen_params(self) -> tuple[str, ...]:
        """Names of the parameters that shape the state (fixed at the first call)."""
        if self._is_initialized():
            return self._state.frozen.active()
        return self._frozen_record.of(self).active()

    def _check_frozen(self, state: OnlineState) -> None:
        """Refuse a call that finds a parameter of ``state.frozen`` changed."""
        changed = state.frozen.changes(self)
        if changed:
            detail = ", ".join(f"{k}: {old!r} -> {new!r}" for k, (old, new) in changed.items())
            warm = " (with warm_start=False)" if "warm_start" in self.__dict__ else ""
            raise ValueError(
                f"{type(self).__name__}: parameters that shape the learned state changed "
                f"since the state was started ({detail}). Set them back, or call fit to "
                f"start a new stream{warm}."
            )

    # ------------------------------------------------------------- validation
    # The hooks take family-specific keyword arguments (``classes``,
    # ``sample_weight``, ...): ``*args, **kwargs`` lets each family declare its
    # own signature (a type checker accepts any override of it).
    def _validate_batch(
        self, X: Any, y: Any, first_call: bool, *args: Any, **fit_params: Any
    ) -> tuple[Any, Any, dict[str, Any]]:
        """Validate a training batch; default: features only, finite, float."""
        X, y = self._check_training_data(X, y, first_call)
        return X, y, {}

    def _check_training_data(
        self, X: Any, y: Any, first_call: bool, **check_params: Any
    ) -> tuple[Any, Any]:
        """``validate_data`` on a training batch (``y`` too when given) plus the magnitude guard.

        A later batch that is a plain float array (or CSR matrix) of the
        fitted width, with a plain target, takes the fast path
        (:meth:`_fast_training_data`); everything else, and every error, goes
        through scikit-learn's full validation.
        """
        if not first_call:
            fast = self._fast_training_data(X, y, **check_params)
            if fast is not None:
                return fast
        params = {
            "reset": first_call,
            "accept_sparse": self._accept_sparse,
            "dtype": [np.float64, np.float32],
            "ensure_min_samples": 1,
            **check_params,
        }
        if y is None:  # passing y=None lets validate_data reject a missing required target
            X = validate_data(self, X, None, **params)
        else:
            X, y = validate_data(self, X, y, **params)
        check_finite_magnitude(X)
        return X, y

    def _fast_batch(self, X: Any) -> Any:
        """``X`` if it needs none of scikit-learn's checks (see ``fast_batch``), else None."""
        return fast_batch(self, X, accept_sparse=self._accept_sparse, max_abs=MAX_ABS_VALUE)

    def _fast_training_data(
        self, X: Any, y: Any, *, y_numeric: bool = False, **check_params: Any
    ) -> tuple[Any, Any] | None:
        """``(X, y)`` of a later batch that full validation would return unchanged, else None.

        ``X`` as in :func:`skonline.utils._validation.fast_batch`; ``y`` a
        plain 1-D target (``fast_target``), or ``None`` for an estimator that
        takes no target. Never raises.
        """
        if check_params:  # a check this path does not know: the full validation
            return None
        fast = self._fast_batch(X)
        if fast is None:
            return None
        if y is None:
            return None if _target_required(self) else (fast, None)
        if fast_target(y, fast.shape[0], numeric=y_numeric):
            return fast, y
        return None

    def _validate_predict(self, X: Any) -> Any:
        """Validate data for transform / predict / score (no state is written)."""
        self._check_fitted()
        fast = self._fast_batch(X)
        if fast is not None:
            return fast
        X = validate_data(
            self,
            X,
            reset=False,
            accept_sparse=self._accept_sparse,
            dtype=[np.float64, np.float32],
        )
        check_finite_magnitude(X)
        return X

    # ------------------------------------------------------------------- hooks
    def _init_state(
        self, X: Any, y: Any, *args: Any, **kwargs: Any
    ) -> OnlineState:  # pragma: no cover
        raise NotImplementedError

    def _partial_fit_state(  # pragma: no cover - abstract
        self, state: Any, X: Any, y: Any, *args: Any, **kwargs: Any
    ) -> OnlineState:
        raise NotImplementedError

    # ------------------------------------------------------------ the passes
    def _new_state(self, X: Any, y: Any, **kwargs: Any) -> Any:  # the family's state class
        state = self._init_state(X, y, **kwargs)
        state.frozen = self._frozen_record.of(self)
        return state

    def _commit(self, state: OnlineState) -> None:
        """Make ``state`` the estimator's state, unless it holds a non-finite number.

        The live parameters that read-outs need are recorded on the way in (on a
        shallow copy: ``state`` may be the committed state of a call that learned
        nothing), unless the pass carried the record of the committed state and
        no recorded value has changed since.
        """
        previous = self.__dict__.get("_state")
        if previous is None or state.live is not previous.live or previous.live.changes(self):
            state = shallow_replace(state, live=self._live_record.of(self))
        # else the pass carried the last call's record, and its values are still current
        if not state_is_finite(state, previous):  # the compiled walk; names only on failure
            bad = _nonfinite_fields(state, previous) or ["the state"]
            raise FloatingPointError(
                f"{type(self).__name__}: the update overflowed (non-finite values in "
                f"{', '.join(bad[:5])}); the batch was not applied and the estimator is as "
                "it was before the call. Rescale the input (features, targets or sample "
                "weights)."
            )
        self._state = state

    def _online_partial_fit(self, X: Any, y: Any = None, **fit_params: Any) -> Self:
        """One ordered online pass, committed only if the whole call succeeds."""
        with self._transaction() as est:
            state = est.__dict__.get("_state")  # None: the first call
            if state is not None:
                est._check_frozen(state)
            X, y, kwargs = est._validate_batch(X, y, state is None, **fit_params)
            if state is None:
                state = est._new_state(X, y, **kwargs)
            progress = est._progress(X.shape[0], call="partial_fit")
            if progress is _SILENT:  # shows nothing: no display to open and close
                est._commit(est._verbose_pass(state, X, y, progress=progress, **kwargs))
            else:
                with progress:
                    est._commit(est._verbose_pass(state, X, y, progress=progress, **kwargs))
        return self

    def _online_fit(self, X: Any, y: Any = None, **fit_params: Any) -> Self:
        """Reset, then one ordered pass; a failure leaves the previous fit in place."""
        with self._transaction() as est:
            est._reset()
            X, y, kwargs = est._validate_batch(X, y, True, **fit_params)
            state = est._new_state(X, y, **kwargs)
            with est._progress(X.shape[0]) as progress:
                est._commit(est._verbose_pass(state, X, y, progress=progress, **kwargs))
        return self

    #: Keyword arguments of the pass that hold one value per row (sliced with the rows).
    _row_kwargs: tuple[str, ...] = ("sample_weight",)
    #: Boolean keyword arguments of the pass that act once, at its end.
    _pass_end_kwargs: tuple[str, ...] = ()

    def _progress(self, total: int, call: str = "fit") -> Progress:
        """The progress display of a call over ``total`` rows, by ``verbose``.

        ``fit`` (and every other long call) shows a bar, or about ten lines
        where the output is not a terminal, from ``verbose=1``; a
        ``partial_fit`` call is one step of a loop its caller drives, so it
        writes one summary line, from ``verbose=2`` only.
        """
        verbose = int(getattr(self, "verbose", 0) or 0)
        if call == "partial_fit" and verbose < 2:
            return _SILENT
        name = type(self).__name__
        if call == "partial_fit":
            return Progress(
                total,
                desc=f"{name}.partial_fit",
                verbose=verbose if verbose >= 2 else 0,
                summary=True,
            )
        return Progress(total, desc=name, verbose=verbose)

    def _verbose_pass(
        self, state: OnlineState, X: Any, y: Any, *, progress: Progress, **kwargs: Any
    ) -> Any:
        """``_partial_fit_state`` over the rows, in the chunks ``progress`` reports between.

        Any split of the rows gives the same state (one ordered pass), so the
        chunks only let ``progress`` move; for estimators with a prequential
        loss it gets the mean loss of the rows of this pass so far.
        """
        n = X.shape[0]
        if not progress.enabled or n == 0:
            return self._partial_fit_state(state, X, y, **kwargs)
        has_loss = isinstance(self, OnlineLossMixin)
        loss0 = float(state.cumulative_loss) if has_loss else 0.0
        seen0 = int(state.n_samples_seen)
        for sl in progress.slices(n):
            part = {
                key: (value[sl] if key in self._row_kwargs else value)
                for key, value in kwargs.items()
            }
            if sl.stop < n:  # flags that close a pass apply to its last chunk only
                part.update(dict.fromkeys(set(self._pass_end_kwargs) & part.keys(), False))
            state = self._partial_fit_state(state, X[sl], None if y is None else y[sl], **part)
            seen = int(state.n_samples_seen) - seen0
            if has_loss and seen > 0:
                progress.update(
                    sl.stop - sl.start, mean_loss=(float(state.cumulative_loss) - loss0) / seen
                )
            else:
                progress.update(sl.stop - sl.start)
        return state

    # ---------------------------------------------------------- read-outs
    @property
    def n_samples_seen_(self) -> int:
        """Number of rows learned from so far.

        Every pass of a multi-epoch ``fit`` counts.
        """
        return int(self._fitted_state().n_samples_seen)


class OnlineLossMixin:
    """``cumulative_loss_`` and ``loss_history_`` of estimators with a prequential loss."""

    _state: Any
    _fitted_state: Callable[[], Any]  # provided by OnlineEstimator

    @property
    def cumulative_loss_(self) -> float:
        """Sum of the prequential losses (each row scored before its update)."""
        return float(self._fitted_state().cumulative_loss)

    @property
    def loss_history_(self) -> np.ndarray:
        """Per-row prequential losses, recorded with ``keep_history=True``.

        An array of shape (n_samples_seen_,); ``AttributeError`` without
        ``keep_history``.
        """
        history = self._fitted_state().loss_history
        if history is None:
            raise AttributeError("loss_history_ is recorded only with keep_history=True")
        return history.copy()

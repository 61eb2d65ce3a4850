"""An online pipeline: every step learns from every batch, in order.

Scikit-learn's :class:`~sklearn.pipeline.Pipeline` has no ``partial_fit``.
:class:`OnlinePipeline` adds one: for each batch, every step but the last
calls ``partial_fit`` and then ``transform`` with the state it has just
updated, and the last step calls ``partial_fit`` on the transformed batch.
``fit`` is a reset followed by the same pass over the whole data, so ``fit``
and ``partial_fit`` agree.
"""

from __future__ import annotations

import copy
import functools
import inspect
from typing import Any, ClassVar

import numpy as np
from sklearn import get_config
from sklearn.base import clone, is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.pipeline import Pipeline
from sklearn.utils import Bunch, get_tags
from sklearn.utils._user_interface import _print_elapsed_time
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.metaestimators import available_if

from .base import OnlineEstimator, _same_value
from .utils._sklearn_compat import (
    HasMethods,
    Hidden,
    _fit_context,
    _name_estimators,
    _routing_enabled,
    check_is_fitted,
)

__all__ = ["OnlinePipeline", "make_online_pipeline"]

#: The methods an intermediate step's metadata can be routed to.
_STEP_METHODS = ("partial_fit", "fit", "transform")


def _is_passthrough(step: Any) -> bool:
    return step is None or (isinstance(step, str) and step == "passthrough")


def _learns_online(step: Any) -> bool:
    """Whether a step learns through ``partial_fit`` (a frozen estimator never learns)."""
    return not isinstance(step, FrozenEstimator) and hasattr(step, "partial_fit")


def _is_stateless(step: Any) -> bool:
    """A step with nothing to learn: a frozen estimator, or one whose tags say so."""
    if isinstance(step, FrozenEstimator):
        return True
    try:
        return not get_tags(step).requires_fit
    except Exception:  # not a scikit-learn estimator: no tags to trust
        return False


def _takes(method: Any, name: str) -> bool:
    """Whether ``method`` has a parameter called ``name``."""
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return False


@functools.lru_cache(maxsize=256)
def _param_names(cls: type) -> tuple[str, ...]:
    """The constructor parameters of an estimator class (scikit-learn's rule, cached)."""
    getter = getattr(cls, "_get_param_names", None)
    return tuple(getter()) if getter is not None else ()


def _shadow(step: Any) -> Any:
    """A copy of a learned step that ``partial_fit`` can update without touching ``step``.

    A skonline estimator never writes into its committed state (each call
    publishes a new state object), so a shallow copy is enough; any other
    step is copied deeply (scikit-learn's steps may update arrays in place).
    """
    if isinstance(step, OnlineEstimator):
        shadow = object.__new__(type(step))
        shadow.__dict__.update(step.__dict__)
        return shadow
    return copy.deepcopy(step)


def _fitted_step_has(attr: str) -> Any:
    """``available_if`` condition: the final step (as given) has ``attr``."""

    def check(self: OnlinePipeline) -> bool:
        getattr(self._final_estimator, attr)
        return True

    return check


def _can_transform(self: OnlinePipeline) -> bool:
    return self._final_estimator == "passthrough" or hasattr(self._final_estimator, "transform")


def _can_inverse_transform(self: OnlinePipeline) -> bool:
    return all(hasattr(t, "inverse_transform") for _, _, t in self._iter())


class OnlinePipeline(Pipeline):
    """A pipeline whose steps all learn online, batch after batch.

    ``partial_fit(X, y)`` runs through the steps in order: every step but the
    last calls ``partial_fit`` on the batch and then ``transform`` with the
    state it has just updated, and the last step calls ``partial_fit`` on the
    transformed batch. Any step with ``partial_fit`` takes part: scikit-learn's
    :class:`~sklearn.preprocessing.StandardScaler`,
    :class:`~sklearn.preprocessing.MaxAbsScaler`,
    :class:`~sklearn.decomposition.IncrementalPCA`,
    :class:`~sklearn.linear_model.SGDClassifier`, skonline's sketches, online
    PCA and models. A step with nothing to learn (a
    :class:`~sklearn.preprocessing.FunctionTransformer`, an estimator fitted
    beforehand and wrapped in :class:`~sklearn.frozen.FrozenEstimator`) is
    fitted once, on the first batch of a stream, and only transforms after
    that; ``"passthrough"`` and ``None`` steps pass the batch on.

    ``predict``, ``predict_proba``, ``predict_log_proba``,
    ``decision_function``, ``transform``, ``score``, ``classes_`` and the
    tags come from the steps as :class:`~sklearn.pipeline.Pipeline` gives
    them, so the pipeline works in
    :class:`~sklearn.model_selection.GridSearchCV` (over nested parameters
    such as ``rfdsonclassifier__alpha0``), with every scikit-learn scorer
    and in :func:`skonline.evaluation.prequential_score`. Used
    prequentially, the prediction for a row uses the statistics of the rows
    before it: a scaler's mean and variance change as it learns, and the
    model learns on rows scaled by the statistics of their own batch.

    Unlike :class:`~sklearn.pipeline.Pipeline`, the steps given are
    parameters and are never fitted in place: the first call learns on
    clones of them, held in ``steps_`` (and ``named_steps_``), as
    :class:`~sklearn.ensemble.VotingClassifier` keeps ``estimators_``. The
    cost per batch is the sum of the steps' ``partial_fit`` and
    ``transform``, plus a copy of the learned steps (skonline's estimators
    are copied shallowly: they never write into a committed state; others
    deeply).

    Read more in the :ref:`User Guide <online_pipeline>`.

    Parameters
    ----------
    steps : list of tuples
        ``(name, estimator)`` pairs, in order. Every step but the last must
        have ``transform``; every step must learn online (``partial_fit``)
        or have nothing to learn; ``"passthrough"`` or ``None`` skips a step.
    memory : None
        Kept for the signature of :class:`~sklearn.pipeline.Pipeline`: an
        online pass updates the steps on every batch, so there is nothing to
        cache, and any other value is refused.
    verbose : bool, default=False
        Print the time each step takes during ``fit`` (not ``partial_fit``,
        which runs once per batch).

    Attributes
    ----------
    steps_ : list of tuples
        The learned ``(name, step)`` pairs.
    named_steps_ : :class:`~sklearn.utils.Bunch`
        The learned steps by name.
    classes_ : ndarray of shape (n_classes,)
        The class labels of the final step (classifiers only).
    n_features_in_ : int
        Number of features seen by the first step.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen by the first step. Defined only when ``X``
        has feature names that are all strings.

    See Also
    --------
    make_online_pipeline : Build one, naming the steps after their classes.
    sklearn.pipeline.Pipeline : The batch pipeline (``fit`` only).
    skonline.evaluation.prequential_score : Test-then-train evaluation.

    Notes
    -----
    ``fit(X, y)`` forgets what was learned and makes one online pass over
    ``X``: it equals ``partial_fit(X, y)`` on a new pipeline (with the classes
    of ``y``), not each step's own ``fit`` (``SGDClassifier.fit`` runs
    several epochs, ``IncrementalPCA.fit`` cuts ``X`` into its own batches).

    A call either succeeds or changes nothing: the batch runs on copies of
    the learned steps, published together when every step has succeeded.
    ``classes=`` goes to the final step when its ``partial_fit`` takes it;
    ``sample_weight=`` goes to the final step (an error names the step if it
    does not take sample weights); ``<step>__<param>=`` goes to that step, as
    in :class:`~sklearn.pipeline.Pipeline`. With
    ``sklearn.set_config(enable_metadata_routing=True)``, metadata go where
    the steps request them (``set_partial_fit_request``).

    ``set_params`` changes the steps given (the parameters); a learned step
    takes its new parameter values at the next ``partial_fit``, as the step
    alone would (a skonline estimator refuses a change of a parameter that
    shapes its state). Once the pipeline has learned, the new values are
    validated at ``set_params`` (all or none). Replacing or renaming a step
    needs ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.utils import gen_batches
    >>> from skonline import RFDSONClassifier
    >>> from skonline.pipeline import make_online_pipeline
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> pipe = make_online_pipeline(StandardScaler(), RFDSONClassifier(random_state=0))
    >>> for batch in gen_batches(len(X), 100):
    ...     _ = pipe.partial_fit(X[batch], y[batch], classes=[0, 1])
    >>> int(pipe.named_steps_["standardscaler"].n_samples_seen_)  # the rows the scaler learned
    569
    >>> bool(pipe.score(X, y) > 0.9)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "steps": [list, Hidden(tuple)],
        "memory": [None, str, HasMethods(["cache"])],
        "verbose": ["boolean"],
    }

    #: Metadata transformed through the earlier steps: not supported online.
    transform_input = None
    #: The learned ``(name, step)`` pairs (set by the first call).
    steps_: list[tuple[str, Any]]

    def __init__(self, steps, *, memory=None, verbose=False):
        self.steps = steps
        self.memory = memory
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            final = self.steps[-1][1]
            if not _is_passthrough(final):
                tags.target_tags.required = get_tags(final).target_tags.required
        except (IndexError, ValueError, AttributeError, TypeError):
            pass  # steps not validated yet: Pipeline's tags
        return tags

    # ------------------------------------------------------------- checks
    def _check_online_steps(self) -> None:
        """Refuse, before any step is touched, a pipeline that cannot learn online."""
        self._validate_steps()
        if self.memory is not None:
            raise ValueError(
                f"{type(self).__name__}: memory={self.memory!r} is not supported: an online "
                "pass updates every step on every batch, so there is no fitted step to cache. "
                "Leave memory=None."
            )
        for name, step in self.steps:
            if _is_passthrough(step) or _learns_online(step) or _is_stateless(step):
                continue
            raise TypeError(
                f"{type(self).__name__}: step {name!r} ({type(step).__name__}) has no "
                "partial_fit, so it cannot learn online, and it has something to learn "
                "(its fit is not a no-op). Use an online counterpart (IncrementalPCA for "
                "PCA, SGDClassifier or an skonline model for a batch model), or fit it "
                "beforehand and wrap it in sklearn.frozen.FrozenEstimator."
            )

    def _check_same_steps(self) -> None:
        """The steps given still match the learned ones (names and classes)."""
        given = [(name, type(step)) for name, step in self.steps]
        learned = [(name, type(step)) for name, step in self.steps_]
        if given != learned:
            raise ValueError(
                f"{type(self).__name__}: the steps changed since the first call to "
                f"partial_fit (learned {[(n, t.__name__) for n, t in learned]}, now "
                f"{[(n, t.__name__) for n, t in given]}). Set them back, or call fit to "
                "start a new stream."
            )

    # ------------------------------------------------------------ routing
    def _route(self, method: str, sample_weight: Any, params: dict[str, Any]) -> Any:
        """Per-step metadata for ``partial_fit``/``fit``/``transform`` of every step."""
        if _routing_enabled():
            if sample_weight is not None:
                params = {**params, "sample_weight": sample_weight}
            return process_routing(self, method, **params)
        routed = {name: Bunch(**{m: {} for m in _STEP_METHODS}) for name, _ in self.steps}
        for key, value in params.items():
            step, sep, param = key.partition("__")
            if not sep or step not in routed:
                raise ValueError(
                    f"{type(self).__name__}.{method} does not accept the {key} parameter. "
                    "Pass parameters to a step as <step name>__<parameter>, e.g. "
                    f"{self.steps[-1][0]}__sample_weight=w (names: "
                    f"{[name for name, _ in self.steps]}); sample_weight= goes to the final "
                    "step."
                )
            routed[step].partial_fit[param] = value
            routed[step].fit[param] = value
        if sample_weight is not None:
            name, final = self.steps[-1]
            fit = getattr(final, "partial_fit" if _learns_online(final) else "fit", None)
            if fit is None or not _takes(fit, "sample_weight"):
                raise TypeError(
                    f"{type(self).__name__}.{method}: sample_weight goes to the final step "
                    f"{name!r} ({type(final).__name__}), which does not take sample weights."
                )
            routed[name].partial_fit["sample_weight"] = sample_weight
            routed[name].fit["sample_weight"] = sample_weight
        return routed

    def get_metadata_routing(self):
        """Get metadata routing of this object.

        ``fit`` and ``partial_fit`` route to each step's ``partial_fit`` (or
        ``fit``, for a step with nothing to learn) and to the ``transform`` of
        every step but the last; the read-outs route as in
        :class:`~sklearn.pipeline.Pipeline`.

        Returns
        -------
        routing : MetadataRouter
            A :class:`~sklearn.utils.metadata_routing.MetadataRouter`
            encapsulating routing information.
        """
        router = MetadataRouter(owner=self)
        last = len(self.steps) - 1
        for idx, name, step in self._iter(filter_passthrough=True):
            mapping = MethodMapping()
            learn = "partial_fit" if _learns_online(step) else "fit"
            for caller in ("fit", "partial_fit"):
                mapping.add(caller=caller, callee=learn)
                if idx != last:
                    mapping.add(caller=caller, callee="transform")
            if idx != last:
                for caller in (
                    "predict",
                    "predict_proba",
                    "predict_log_proba",
                    "decision_function",
                    "transform",
                    "score",
                ):
                    mapping.add(caller=caller, callee="transform")
            else:
                for method in (
                    "predict",
                    "predict_proba",
                    "predict_log_proba",
                    "decision_function",
                    "transform",
                    "score",
                ):
                    mapping.add(caller=method, callee=method)
            mapping.add(caller="inverse_transform", callee="inverse_transform")
            router.add(method_mapping=mapping, **{name: step})
        return router

    def set_params(self, **params):
        """Set the parameters of the pipeline and its steps, all or none.

        As :meth:`sklearn.pipeline.Pipeline.set_params`, except that an
        invalid name leaves every parameter as it was (scikit-learn's sets the
        steps' parameters met before it).

        Parameters
        ----------
        **params : dict
            Pipeline parameters, step replacements (``<step>=estimator``) and
            step parameters (``<step>__<parameter>``).

        Returns
        -------
        self : OnlinePipeline
            This pipeline.
        """
        valid = self.get_params(deep=True)
        for key in params:
            step, _, nested = key.partition("__")
            if nested and step in params:  # a parameter of the step that replaces it
                known = hasattr(params[step], "get_params") and (
                    nested in params[step].get_params(deep=True)
                )
            else:
                known = key in valid
            if not known:
                raise ValueError(
                    f"Invalid parameter {key!r} for estimator {self}. Valid parameters "
                    f"are: {sorted(self.get_params(deep=False))!r}."
                )
        if "steps_" in self.__dict__ and not get_config()["skip_parameter_validation"]:
            self._check_step_values(params)
        return super().set_params(**params)

    def _check_step_values(self, params: dict[str, Any]) -> None:
        """Validate new values of a learned pipeline's step parameters before any is set.

        A started stream's ``partial_fit`` skips scikit-learn's parameter
        validation, as a learned step alone would at its ``set_params``: each
        step's new values are checked here on a copy of the step.
        """
        by_step: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            step, _, nested = key.partition("__")
            if nested and "__" not in nested and step not in params:
                by_step.setdefault(step, {})[nested] = value
        named = dict(self.steps)
        for step, values in by_step.items():
            estimator = named.get(step)
            if estimator is None or not hasattr(estimator, "_validate_params"):
                continue  # "passthrough" or a step without constraints
            probe = copy.copy(estimator)
            for name, value in values.items():
                setattr(probe, name, value)
            probe._validate_params()

    # ----------------------------------------------------------- learning
    def _learn(
        self,
        X: Any,
        y: Any,
        *,
        classes: Any,
        sample_weight: Any,
        params: dict[str, Any],
        method: str,
    ) -> OnlinePipeline:
        """One online pass over ``X`` through every step; published only if it all succeeds."""
        self._check_online_steps()
        routed = self._route(method, sample_weight, params)
        first = method == "fit" or "steps_" not in self.__dict__
        if first:
            learned = [
                (name, step if _is_passthrough(step) else clone(step)) for name, step in self.steps
            ]
        else:
            self._check_same_steps()
            learned = list(self.steps_)
        last = len(learned) - 1
        verbose = self.verbose and method == "fit"
        new_steps = []
        Xt = X
        for idx, (name, step) in enumerate(learned):
            if _is_passthrough(step):
                new_steps.append((name, step))
                continue
            message = f"(step {idx + 1} of {len(learned)}) Processing {name}" if verbose else None
            with _print_elapsed_time(type(self).__name__, message):
                step_params = routed[name]
                if _learns_online(step):
                    work = step if first else _shadow(step)
                    if not first:
                        self._take_new_params(work, self.steps[idx][1])
                    kwargs = dict(step_params.get("partial_fit", {}))
                    if idx == last and classes is not None and _takes(work.partial_fit, "classes"):
                        kwargs["classes"] = classes
                    work.partial_fit(Xt, y, **kwargs)
                else:  # nothing to learn: fitted once, at the start of a stream
                    work = step
                    if first:
                        work.fit(Xt, y, **step_params.get("fit", {}))
                if idx != last:
                    Xt = work.transform(Xt, **step_params.get("transform", {}))
            new_steps.append((name, work))
        self.steps_ = new_steps
        return self

    @staticmethod
    def _take_new_params(work: Any, given: Any) -> None:
        """Give a learned step the parameter values set since (as set_params on it would)."""
        changed = {}
        for key in _param_names(given.__class__):
            value = getattr(given, key)
            if not hasattr(value, "get_params") and not _same_value(value, getattr(work, key)):
                changed[key] = clone(value, safe=False)
        if changed:
            work.set_params(**changed)

    @_fit_context(
        # the steps are validated by their own partial_fit
        prefer_skip_nested_validation=False
    )
    def partial_fit(self, X, y=None, classes=None, sample_weight=None, **params):
        """Learn a batch: ``partial_fit`` then ``transform`` through every step in order.

        Every step but the last learns the batch and then transforms it with
        the state it has just updated; the last step learns the transformed
        batch. The call either succeeds or leaves every step as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The batch, as the first step takes it.
        y : array-like of shape (n_samples,), default=None
            Targets, given to every step (transformers ignore them).
        classes : array-like of shape (n_classes,), default=None
            Every class of the stream, given to the final step's
            ``partial_fit`` when it takes ``classes`` (scikit-learn's
            classifiers need it on the first call).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows, given to the final step.
        **params : dict of str -> object
            ``<step>__<parameter>`` values for the ``partial_fit`` of that
            step (with metadata routing enabled: metadata routed to the steps
            that request them).

        Returns
        -------
        self : object
            The pipeline, with every step updated.
        """
        return self._learn(
            X, y, classes=classes, sample_weight=sample_weight, params=params, method="partial_fit"
        )

    @_fit_context(
        # the steps are validated by their own partial_fit
        prefer_skip_nested_validation=False
    )
    def fit(self, X, y=None, sample_weight=None, **params):
        """Forget what was learned, then make one online pass over ``X``.

        Equals :meth:`partial_fit` on a new pipeline, with the classes of
        ``y`` for a classifier: each step learns with ``partial_fit``, not
        with its own ``fit``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows, in order.
        y : array-like of shape (n_samples,), default=None
            Targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows, given to the final step.
        **params : dict of str -> object
            ``<step>__<parameter>`` values for the ``partial_fit`` of that
            step (with metadata routing enabled: metadata routed to the steps
            that request them).

        Returns
        -------
        self : object
            The pipeline, with every step learned from ``X``.
        """
        classes = None
        final = self._final_estimator
        if y is not None and not _is_passthrough(final) and is_classifier(final):
            classes = np.unique(np.asarray(y))
        return self._learn(
            X, y, classes=classes, sample_weight=sample_weight, params=params, method="fit"
        )

    @available_if(_can_transform)
    def fit_transform(self, X, y=None, **params):
        """Fit (one online pass), then transform ``X`` with the learned steps.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows, in order.
        y : array-like of shape (n_samples,), default=None
            Targets.
        **params : dict of str -> object
            Passed to :meth:`fit`.

        Returns
        -------
        Xt : ndarray of shape (n_samples, n_transformed_features)
            ``X`` transformed by the learned steps.
        """
        return self.fit(X, y, **params).transform(X)

    @available_if(lambda self: False)
    def fit_predict(self, X, y=None, **params):
        """Not available: an online pipeline learns with ``fit``, then predicts.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.
        y : array-like of shape (n_samples,), default=None
            Targets.
        **params : dict of str -> object
            Ignored.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Never returned.
        """
        raise AttributeError(f"{type(self).__name__} has no fit_predict")  # pragma: no cover

    # ---------------------------------------------------------- read-outs
    def __sklearn_is_fitted__(self):
        """Whether the pipeline has learned (its last learned step is fitted).

        Returns
        -------
        fitted : bool
            True once ``fit`` or ``partial_fit`` has given the final step a model.
        """
        if "steps_" not in self.__dict__:
            return False
        for _, step in reversed(self.steps_):
            if not _is_passthrough(step):
                try:
                    check_is_fitted(step)
                except NotFittedError:
                    return False
                return True
        return True

    def _learned(self) -> Pipeline:
        """The learned steps as a scikit-learn pipeline (for the read-outs)."""
        check_is_fitted(self)
        return Pipeline(self.steps_)

    @property
    def named_steps_(self):
        """The learned steps by name (a :class:`~sklearn.utils.Bunch`)."""
        check_is_fitted(self)
        return Bunch(**dict(self.steps_))

    @available_if(_fitted_step_has("predict"))
    def predict(self, X, **params):
        """Transform ``X`` through the learned steps and predict with the final one.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.
        **params : dict of str -> object
            As :meth:`sklearn.pipeline.Pipeline.predict`.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The final step's predictions.
        """
        return self._learned().predict(X, **params)

    @available_if(_fitted_step_has("predict_proba"))
    def predict_proba(self, X, **params):
        """Transform ``X`` through the learned steps and apply the final ``predict_proba``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.
        **params : dict of str -> object
            As :meth:`sklearn.pipeline.Pipeline.predict_proba`.

        Returns
        -------
        y_proba : ndarray of shape (n_samples, n_classes)
            The final step's class probabilities.
        """
        return self._learned().predict_proba(X, **params)

    @available_if(_fitted_step_has("predict_log_proba"))
    def predict_log_proba(self, X, **params):
        """Transform ``X`` through the learned steps and apply the final ``predict_log_proba``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.
        **params : dict of str -> object
            As :meth:`sklearn.pipeline.Pipeline.predict_log_proba`.

        Returns
        -------
        y_log_proba : ndarray of shape (n_samples, n_classes)
            The final step's log class probabilities.
        """
        return self._learned().predict_log_proba(X, **params)

    @available_if(_fitted_step_has("decision_function"))
    def decision_function(self, X, **params):
        """Transform ``X`` through the learned steps and apply the final ``decision_function``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.
        **params : dict of str -> object
            As :meth:`sklearn.pipeline.Pipeline.decision_function`.

        Returns
        -------
        y_score : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The final step's decision function.
        """
        return self._learned().decision_function(X, **params)

    @available_if(_fitted_step_has("score_samples"))
    def score_samples(self, X):
        """Transform ``X`` through the learned steps and apply the final ``score_samples``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        y_score : ndarray of shape (n_samples,)
            The final step's ``score_samples``.
        """
        return self._learned().score_samples(X)

    @available_if(_can_transform)
    def transform(self, X, **params):
        """Transform ``X`` through every learned step.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.
        **params : dict of str -> object
            As :meth:`sklearn.pipeline.Pipeline.transform`.

        Returns
        -------
        Xt : ndarray of shape (n_samples, n_transformed_features)
            The transformed rows.
        """
        return self._learned().transform(X, **params)

    @available_if(_can_inverse_transform)
    def inverse_transform(self, X, **params):
        """Apply ``inverse_transform`` of every learned step, in reverse order.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_transformed_features)
            Transformed rows.
        **params : dict of str -> object
            As :meth:`sklearn.pipeline.Pipeline.inverse_transform`.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            The rows in the input space.
        """
        return self._learned().inverse_transform(X, **params)

    @available_if(_fitted_step_has("score"))
    def score(self, X, y=None, sample_weight=None, **params):
        """Transform ``X`` through the learned steps and apply the final ``score``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.
        y : array-like of shape (n_samples,), default=None
            Targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to the final step's ``score``.
        **params : dict of str -> object
            As :meth:`sklearn.pipeline.Pipeline.score`.

        Returns
        -------
        score : float
            The final step's score.
        """
        return self._learned().score(X, y, sample_weight=sample_weight, **params)

    def get_feature_names_out(self, input_features=None):
        """Get output feature names, through every learned step.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input features.

        Returns
        -------
        feature_names_out : ndarray of str objects
            Transformed feature names.
        """
        return self._learned().get_feature_names_out(input_features)

    def set_output(self, *, transform=None):
        """Set the output container of ``transform`` for every step, learned ones included.

        Parameters
        ----------
        transform : {"default", "pandas", "polars"}, default=None
            Configure output of `transform` and `fit_transform`.

        Returns
        -------
        self : estimator instance
            Estimator instance.
        """
        super().set_output(transform=transform)
        if "steps_" in self.__dict__:
            Pipeline(self.steps_).set_output(transform=transform)
        return self

    @property
    def classes_(self):
        """The class labels of the learned final step (classifiers only)."""
        check_is_fitted(self)
        return self.steps_[-1][1].classes_

    def _first_learned(self) -> Any:
        check_is_fitted(self)
        for _, step in self.steps_:
            if not _is_passthrough(step):
                return step
        raise AttributeError(f"{type(self).__name__} has only passthrough steps.")

    @property
    def n_features_in_(self):
        """Number of features seen by the first learned step."""
        return self._first_learned().n_features_in_

    @property
    def feature_names_in_(self):
        """Names of features seen by the first learned step."""
        return self._first_learned().feature_names_in_

    def __getitem__(self, ind):
        """A step as given (by position or name), or a sub-pipeline (a slice).

        A slice of a pipeline that has learned shares its learned steps, so
        ``pipe[:-1].transform(X)`` gives what the final step sees.

        Parameters
        ----------
        ind : int, str or slice
            Position or name of a step, or a slice of the steps.

        Returns
        -------
        step_or_pipeline : estimator or OnlinePipeline
            The step given at that position, or the sub-pipeline.
        """
        sub = super().__getitem__(ind)
        if isinstance(ind, slice) and "steps_" in self.__dict__:
            sub.steps_ = self.steps_[ind]
        return sub


def make_online_pipeline(*steps, memory=None, verbose=False):
    """Build an :class:`OnlinePipeline` from the given steps.

    The steps are named after their classes in lower case, as
    :func:`sklearn.pipeline.make_pipeline` names them
    (``make_online_pipeline(StandardScaler(), RFDSONClassifier())`` has the
    steps ``"standardscaler"`` and ``"rfdsonclassifier"``).

    Read more in the :ref:`User Guide <online_pipeline>`.

    Parameters
    ----------
    *steps : list of estimators
        The steps, in order: transformers with ``partial_fit`` (or nothing
        to learn), then a final step with ``partial_fit``.
    memory : None
        Kept for the signature of :func:`~sklearn.pipeline.make_pipeline`;
        an online pipeline caches nothing and refuses any other value.
    verbose : bool, default=False
        Print the time each step takes during ``fit``.

    Returns
    -------
    pipeline : OnlinePipeline
        The pipeline, not fitted.

    See Also
    --------
    OnlinePipeline : The class, with the steps named by hand.

    Examples
    --------
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.linear_model import SGDClassifier
    >>> from skonline.pipeline import make_online_pipeline
    >>> make_online_pipeline(StandardScaler(), SGDClassifier())
    OnlinePipeline(steps=[('standardscaler', StandardScaler()),
                          ('sgdclassifier', SGDClassifier())])
    """
    return OnlinePipeline(_name_estimators(steps), memory=memory, verbose=verbose)

"""numpydoc validation of every public docstring (scikit-learn's ``test_docstrings.py`` pattern).

Parametrized over every public class (the estimators exported by skonline and
its subpackages, with ``AdaptiveSubsetHedge``), each of its public methods and
properties (inherited ones included: they are part of the class's page), and
the public functions of :mod:`skonline.evaluation`, :mod:`skonline.datasets`
and :mod:`skonline.utils.estimator_checks`. Each object is validated with
:func:`numpydoc.validate.validate`; the error codes listed below are ignored,
each for the reason given next to it.

Validate one object by hand with::

    python -c "from numpydoc.validate import validate; print(validate('skonline.X.method'))"
"""

import inspect
import re
from pathlib import Path

import pytest

# Imported, not ``importorskip``-ed: numpydoc is in the ``test`` extra, and a
# missing numpydoc must fail the suite rather than skip the validation silently.
from numpydoc.validate import validate

import skonline
from skonline import datasets, decomposition, evaluation, linear_model, manifold, pipeline
from skonline.utils import estimator_checks

# Error codes ignored for every object.
IGNORED_EVERYWHERE = {
    # GL01/GL02: where the summary starts and where blank lines sit around it.
    # The house style (scikit-learn's) starts the summary on the line of the
    # opening quotes.
    "GL01",
    "GL02",
    # RT02: "the first line of the Returns section should contain only the
    # type". Like scikit-learn, skonline names the returned object
    # (``self : object``, ``X_new : ndarray of shape ...``) so that the text
    # can refer to it.
    "RT02",
}

# Error codes ignored for methods and properties only.
IGNORED_FOR_METHODS = {
    # ES01, EX01: a method's context, guarantee and example are in its class's
    # docstring (the class's example exercises partial_fit, transform, predict,
    # ...); requiring them again on every method repeats the class page.
    "ES01",
    "EX01",
    # SA01: related methods are named in the text; a See Also section on
    # every method would repeat the class's.
    "SA01",
}

# Error codes ignored for functions only.
IGNORED_FOR_FUNCTIONS = {
    # SA01: the functions of a module are listed together on its API page and
    # name their related functions in the text. Classes keep See Also (it
    # places an estimator among its peers).
    "SA01",
}


def _public_classes():
    classes = {}
    for module in (skonline, decomposition, linear_model, manifold, datasets, evaluation, pipeline):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                classes[obj.__name__] = obj
    return [classes[name] for name in sorted(classes)]


def _public_members(cls):
    """Public methods and properties, inherited ones included (scikit-learn's rule)."""
    names = []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        member = getattr(cls, name)
        if callable(member) or isinstance(member, property):
            names.append(name)
    return sorted(names)


def _class_cases():
    for cls in _public_classes():
        yield pytest.param(cls, None, id=cls.__name__)
        for name in _public_members(cls):
            yield pytest.param(cls, name, id=f"{cls.__name__}.{name}")


def _function_cases():
    for module in (evaluation, datasets, manifold, pipeline, estimator_checks):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield pytest.param(obj, id=f"{module.__name__}.{name}")


def _errors(import_path, ignored):
    result = validate(import_path)
    errors = [(code, message) for code, message in result["errors"] if code not in ignored]
    if "{{" in (result["docstring"] or ""):
        # An f-string docstring renders "{{...}}" as "{...}"; a plain one keeps both braces.
        errors.append(
            ("braces", "literal '{{' in the docstring (a plain docstring escaped as f-string)")
        )
    if not errors:
        return None
    listed = "\n".join(f"  {code}: {message}" for code, message in errors)
    return f"{import_path} ({result['file']}):\n{listed}"


@pytest.mark.parametrize("cls, method", list(_class_cases()))
def test_class_docstring(cls, method):
    path = f"{cls.__module__}.{cls.__name__}"
    ignored = set(IGNORED_EVERYWHERE)
    if method is not None:
        path += f".{method}"
        ignored |= IGNORED_FOR_METHODS
    problems = _errors(path, ignored)
    assert problems is None, problems


@pytest.mark.parametrize("function", list(_function_cases()))
def test_function_docstring(function):
    path = f"{function.__module__}.{function.__name__}"
    problems = _errors(path, IGNORED_EVERYWHERE | IGNORED_FOR_FUNCTIONS)
    assert problems is None, problems


def test_the_validation_can_fail():
    """The validation and the ignore lists do not silence a real error."""

    def undocumented_parameters(X, n_components):
        """Summary line without parameters or returns."""

    undocumented_parameters.__module__ = __name__
    globals()["undocumented_parameters"] = undocumented_parameters
    try:
        problems = _errors(f"{__name__}.undocumented_parameters", IGNORED_EVERYWHERE)
    finally:
        del globals()["undocumented_parameters"]
    assert problems is not None and "PR01" in problems


def test_every_public_object_is_covered():
    """The parametrization sees the whole public API (no silent shrinking)."""
    names = {p.id for p in _class_cases()} | {p.id for p in _function_cases()}
    for cls_name in (
        "FrequentDirections",
        "RobustFrequentDirections",
        "RFDSONClassifier",
        "RFDSONRegressor",
        "AdaptiveOnlinePCA",
        "RandomizedOnlinePCA",
        "OnlineVarianceMinimizer",
        "AdaptiveSubsetHedge",
        "ScaleInvariantClassifier",
        "ScaleInvariantRegressor",
        "SequentialPrincipalCurve",
        "OnlinePipeline",
    ):
        assert cls_name in names
        assert f"{cls_name}.fit" in names or f"{cls_name}.partial_fit" in names
    assert "skonline.evaluation.covariance_error" in names
    assert "skonline.pipeline.make_online_pipeline" in names
    assert "skonline.datasets.make_switching_subspaces" in names
    assert "skonline.utils.estimator_checks.check_online_estimator" in names


def test_api_reference_lists_the_public_api():
    """doc/api.rst has an entry for every public class and function validated here."""
    api = Path(__file__).resolve().parents[1] / "doc" / "api.rst"
    if not api.exists():  # pragma: no cover - tests run outside a checkout
        pytest.skip("doc/api.rst is not beside the tests")
    entries = set(re.findall(r"^\s+((?:\w+\.)+\w+)\s*$", api.read_text(), flags=re.M))
    expected = set()
    for cls in _public_classes():
        subpackage = cls.__module__.split(".")[1]
        expected.add(f"{subpackage}.{cls.__name__}")
    for case in _function_cases():
        function = case.values[0]
        expected.add(f"{case.id.removeprefix('skonline.').rsplit('.', 1)[0]}.{function.__name__}")
    missing = sorted(expected - entries)
    assert not missing, f"doc/api.rst does not list {missing}"


@pytest.mark.parametrize("cls", _public_classes(), ids=lambda cls: cls.__name__)
def test_class_links_the_user_guide(cls):
    """Every public class says "Read more in the User Guide" with a label that exists."""
    match = re.search(r"Read more in the :ref:`User Guide <([\w-]+)>`\.", cls.__doc__ or "")
    assert match, f"{cls.__name__}: no 'Read more in the :ref:`User Guide <label>`.' line"
    guide = Path(__file__).resolve().parents[1] / "doc" / "user_guide"
    if guide.is_dir():
        labels = {
            label
            for page in guide.glob("*.rst")
            for label in re.findall(r"^\.\. _([\w-]+):", page.read_text(), flags=re.M)
        }
        assert match.group(1) in labels, f"{cls.__name__}: no user-guide label {match.group(1)}"

"""The public batch principal curve: its docstring, its input validation, its API entry."""

import numpy as np
import pytest

from skonline import manifold
from skonline.manifold import hastie_stuetzle_curve

from ..test_docstrings import IGNORED_EVERYWHERE, IGNORED_FOR_FUNCTIONS, _errors


@pytest.mark.parametrize("name", [n for n in manifold.__all__ if n[0].islower()])
def test_public_function_docstrings(name):
    """numpydoc validation, with the rules ``tests/test_docstrings.py`` applies to functions."""
    function = getattr(manifold, name)
    problems = _errors(
        f"{function.__module__}.{function.__name__}", IGNORED_EVERYWHERE | IGNORED_FOR_FUNCTIONS
    )
    assert problems is None, problems


def test_rejects_non_finite_rows():
    X = np.ones((10, 2))
    X[3, 1] = np.nan
    with pytest.raises(ValueError):
        hastie_stuetzle_curve(X)


def test_accepts_lists_and_float32():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 2))
    V = hastie_stuetzle_curve(X)
    np.testing.assert_array_equal(hastie_stuetzle_curve(X.tolist()), V)
    assert hastie_stuetzle_curve(X.astype(np.float32)).dtype == np.float64

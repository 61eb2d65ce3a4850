"""The public batch principal curve: its input validation and its API entry (its docstring is
validated with every public function's, in ``tests/test_docstrings.py``)."""

import numpy as np
import pytest

from skonline.manifold import hastie_stuetzle_curve


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

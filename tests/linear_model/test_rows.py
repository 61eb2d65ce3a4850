"""The compiled CSR helpers of the linear learners (``_rows.pyx``) against numpy."""

import numpy as np
import pytest
import scipy.sparse as sp
from skonline.linear_model._rows import any_open_value, count_columns, scaled_values


@pytest.fixture
def csr():
    X = sp.random(200, 50, density=0.1, format="csr", random_state=0)
    X.data[::7] = 0.0  # explicit zeros count as entries, not as values
    return X


def test_scaled_values_is_the_product_with_each_columns_factor(csr):
    factor = 2.0 ** np.random.default_rng(0).integers(-30, 30, csr.shape[1])
    got = scaled_values(csr.data, csr.indices, factor)
    np.testing.assert_array_equal(got, csr.data * factor[csr.indices])


def test_any_open_value_matches_numpy(csr):
    seen = np.full(csr.shape[1], 2, dtype=np.intc)
    assert not any_open_value(csr.data, csr.indices, seen, 2)
    zero_only = csr.indices[csr.data == 0.0]
    only_zeros = np.setdiff1d(zero_only, csr.indices[csr.data != 0.0])
    for col in [*only_zeros[:1], csr.indices[csr.data != 0.0][0]]:
        seen_col = seen.copy()
        seen_col[col] = 1
        expect = bool(np.any((csr.data != 0.0) & (seen_col[csr.indices] < 2)))
        assert any_open_value(csr.data, csr.indices, seen_col, 2) == expect
    assert any_open_value(csr.data, csr.indices, seen, 3)


def test_count_columns_counts_distinct_indices(csr):
    assert count_columns(csr.indices, csr.shape[1]) == np.unique(csr.indices).size
    assert count_columns(np.zeros(0, dtype=np.intc), 5) == 0


@pytest.mark.parametrize("bad", [-1, 50, 2**31 - 1])
def test_out_of_range_indices_raise_before_any_read(csr, bad):
    indices = csr.indices.copy()
    indices[3] = bad
    with pytest.raises(ValueError, match="outside"):
        scaled_values(csr.data, indices, np.ones(50))
    with pytest.raises(ValueError, match="outside"):
        any_open_value(csr.data, indices, np.zeros(50, dtype=np.intc), 2)
    with pytest.raises(ValueError, match="outside"):
        count_columns(indices, 50)


def test_lengths_must_agree(csr):
    with pytest.raises(ValueError, match="length"):
        scaled_values(csr.data[:-1], csr.indices, np.ones(50))
    with pytest.raises(ValueError, match="length"):
        any_open_value(csr.data[:-1], csr.indices, np.zeros(50, dtype=np.intc), 2)

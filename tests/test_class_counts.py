"""The sizes of the classes of a vector of class codes.

:func:`fstools._ext._moments.class_counts` against ``np.bincount`` on random codes (lengths
around its four-entry step, few and many classes, codes larger than the vector is long: one
table instead of four); :func:`fstools.core.arrays.as_class_codes`, built on it, refuses what
is not a vector of at least two class codes, naming the argument.  Negative codes and codes
too large to be class codes: ``tests/test_kernel_adversarial.py``.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fstools._ext._moments import class_counts
from fstools.core.arrays import as_class_codes


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 41), st.sampled_from([1, 2, 3, 7, 300, 100_000]), st.integers(0, 2 ** 32 - 1))
def test_equal_to_bincount(m, n_classes, seed):
    codes = np.random.default_rng(seed).integers(0, n_classes, size=m).astype(np.int32)
    counts = class_counts(codes)
    assert counts.dtype == np.int64
    np.testing.assert_array_equal(counts, np.bincount(codes))


def test_a_million_codes_equal_bincount():
    codes = np.random.default_rng(1).integers(0, 5, size=1_000_003).astype(np.int32)
    np.testing.assert_array_equal(class_counts(codes), np.bincount(codes))


def test_as_class_codes_names_the_argument():
    with pytest.raises(ValueError, match=r"labels: class codes must be integers 0\.\.n_classes-1"):
        as_class_codes(np.array([0, 1, -1]), 3, name="labels")
    with pytest.raises(ValueError, match=r"labels: needs at least two classes"):
        as_class_codes(np.array([2, 2, 2]), 3, name="labels")
    with pytest.raises(ValueError, match=r"labels: must be 1-D with one class code per sample \(4\)"):
        as_class_codes(np.array([0, 1, 1]), 4, name="labels")
    for wide in (np.array([0, 1, 2 ** 32], dtype=np.int64), np.array([0, 1, 2 ** 31], dtype=np.uint32),
                 np.array([0, 1, -(2 ** 40)], dtype=np.int64)):   # not wrapped into codes 0 and 1
        with pytest.raises(ValueError, match=r"labels: class codes must be integers 0\.\.n_classes-1; got "):
            as_class_codes(wide, 3, name="labels")
    for not_codes in (np.array([0.0, 1.5, 1.0]), np.array([0.0, np.nan, 1.0]), np.array([0.0, 1.0, 3e9]),
                      np.array(["a", "b", "a"])):   # not truncated or parsed into codes
        with pytest.raises(ValueError, match=r"labels: class codes must be integers 0\.\.n_classes-1; got "):
            as_class_codes(not_codes, 3, name="labels")
    np.testing.assert_array_equal(as_class_codes(np.array([1.0, 0.0, 1.0]), 3)[0], [1, 0, 1])
    np.testing.assert_array_equal(as_class_codes(np.array([True, False, True]), 3)[0], [1, 0, 1])
    codes, n_classes, counts = as_class_codes(np.array([0, 2, 2, 0, 2]), 5)
    assert codes.dtype == np.int32 and n_classes == 3
    np.testing.assert_array_equal(counts, [2, 0, 3])

"""core.arrays.integer_levels: the distinct values, codes and counts of numpy.unique, from a table."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from fstools.core.arrays import INTEGER_LEVEL_SPAN, integer_levels
from fstools.model.validation import encode_classes

INTEGER_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]


def _unique(values):
    return np.unique(values, return_inverse=True, return_counts=True)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(INTEGER_DTYPES).flatmap(
    lambda dtype: hnp.arrays(dtype, st.integers(1, 300), elements=hnp.from_dtype(np.dtype(dtype)))))
def test_equals_numpy_unique_or_declines(values):
    levels = integer_levels(values)
    distinct, inverse, counts = _unique(values)
    span = int(values.max()) - int(values.min())
    if span >= INTEGER_LEVEL_SPAN:
        assert levels is None
        return
    assert levels.values.dtype == distinct.dtype
    np.testing.assert_array_equal(levels.values, distinct)
    assert levels.codes.dtype == np.int32
    np.testing.assert_array_equal(levels.codes, inverse.ravel())
    np.testing.assert_array_equal(levels.counts, counts)


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_the_ends_of_each_dtype(dtype):
    info = np.iinfo(dtype) if dtype is not np.bool_ else None
    ends = [True, False] if info is None else [info.min, info.max]
    for end in ends:  # a small range at either end of the dtype: no overflow on the way
        near = [end] if info is None else [end, end + 1 if end == info.min else end - 1]
        values = np.array(near * 5, dtype=dtype)
        levels = integer_levels(values)
        distinct, inverse, counts = _unique(values)
        np.testing.assert_array_equal(levels.values, distinct)
        np.testing.assert_array_equal(levels.codes, inverse.ravel())
        np.testing.assert_array_equal(levels.counts, counts)


def test_declines_what_it_does_not_count():
    assert integer_levels(np.array([0.0, 1.0])) is None
    assert integer_levels(np.array([0, INTEGER_LEVEL_SPAN])) is None
    assert integer_levels(np.array([], dtype=np.int64)) is None
    assert integer_levels(np.array([[0, 1]])) is None
    assert integer_levels(np.array(["a", "b"], dtype=object)) is None


@pytest.mark.parametrize("labels", [np.array([3, -2, 3, 7, -2, 3]), np.array([True, False, True]),
                                    np.array([5, 5, 1 << 40, 5])])
def test_encode_classes_as_the_sorting_rule(labels):
    codes, names, counts = encode_classes(labels)
    distinct, inverse, expected_counts = _unique(labels)
    np.testing.assert_array_equal(codes, inverse.ravel())
    assert names == [str(value) for value in distinct]
    np.testing.assert_array_equal(counts, expected_counts)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(INTEGER_DTYPES[:-1]), st.data())
def test_two_values_equal_numpy_unique(dtype, data):
    """Two values one apart (0/1 labels and their kin), anywhere in the dtype's range."""
    info = np.iinfo(dtype)
    low = data.draw(st.integers(int(info.min), int(info.max) - 1))
    ones = data.draw(hnp.arrays(np.bool_, st.integers(2, 300)).filter(lambda a: 0 < a.sum() < a.size))
    values = np.where(ones, low + 1, low).astype(dtype)
    levels = integer_levels(values)
    distinct, inverse, counts = _unique(values)
    np.testing.assert_array_equal(levels.values, distinct)
    assert levels.codes.dtype == np.int32
    np.testing.assert_array_equal(levels.codes, inverse.ravel())
    np.testing.assert_array_equal(levels.counts, counts)


@pytest.mark.parametrize("labels", [np.array([0, 1, 1, 0, 1] * 20), np.array([3, 7, 5, 7, 3] * 20),
                                    np.array([True, False, True, True] * 20)])
def test_a_fit_counts_integer_labels_once(monkeypatch, labels):
    """The response rule, the class codes and the transformer's classes_ share one count."""
    import fstools as fs
    from fstools.core import arrays
    from fstools.model import response, validation
    calls = []

    def counted(values):
        calls.append(values.size)
        return arrays.integer_levels(values)

    monkeypatch.setattr(response, "integer_levels", counted)
    monkeypatch.setattr(validation, "integer_levels", counted)
    X = np.random.default_rng(0).normal(size=(labels.size, 4))
    selector = fs.FeatureSelector(method="fisher", k=2).fit(X, labels)
    assert calls == [labels.size]
    np.testing.assert_array_equal(selector.classes_, np.unique(labels))
    assert selector.classes_.dtype == labels.dtype

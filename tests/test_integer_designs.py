"""``fs.select`` on a DataFrame whose predictors share one integer dtype (the int64 of a CSV's 0/1
columns): the information methods read the design as it is (``MethodSpec.integer_designs``), with
the results of the same data as float64 columns; the other methods get float64 as before."""
import warnings

import numpy as np
import pandas as pd
import pytest

import fstools as fs

INFORMATION = ["mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim"]
# (the constant column's warning is checked in the first test; elsewhere it is expected)
pytestmark = pytest.mark.filterwarnings("ignore:data. 1 constant column:UserWarning")


def _counts_frame(seed=0, n=300):
    """0/1 columns (three carry the class), few-level columns with gaps, a constant column."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n)
    X = rng.integers(0, 2, (n, 40))
    X[:, :3] ^= (y[:, None] == "a") & (rng.random((n, 3)) < 0.6)
    X[:, 30:39] = rng.integers(0, 6, (n, 9)) * 3
    X[:, 39] = 7
    return pd.DataFrame(X, columns=[f"c{j}" for j in range(40)]).assign(cls=y)


def _as_float(frame):
    return frame.astype({name: np.float64 for name in frame.columns if name != "cls"})


@pytest.mark.parametrize("method", INFORMATION)
@pytest.mark.parametrize("options", [{}, {"test": "permutation", "n_permutations": 19, "permutation_seed": 1},
                                     {"na_action": "raise"}, {"n_jobs": 2}])
def test_select_reads_the_integer_columns_as_they_are(method, options):
    frame = _counts_frame()
    before = frame.copy()
    with warnings.catch_warnings(record=True) as integer_warnings:
        warnings.simplefilter("always")
        result = fs.select("cls ~ .", frame, method=method, k=5, **options)
    with warnings.catch_warnings(record=True) as float_warnings:
        warnings.simplefilter("always")
        reference = fs.select("cls ~ .", _as_float(frame), method=method, k=5, **options)
    pd.testing.assert_frame_equal(frame, before)
    assert result._frame.X.dtype == np.int64   # no float64 copy of the design
    assert reference._frame.X.dtype == np.float64
    pd.testing.assert_frame_equal(result.scores, reference.scores)
    assert str(result.summary()) == str(reference.summary())
    # the constant column is named as on the float design
    assert [str(w.message) for w in integer_warnings] == [str(w.message) for w in float_warnings]
    assert any("c39" in str(w.message) for w in integer_warnings)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32])
def test_every_integer_dtype_and_the_greedy_path(dtype):
    frame = _counts_frame(1)
    frame = frame.astype({f"c{j}": dtype for j in range(40)})
    result = fs.select("cls ~ .", frame, method="jmi", k="auto", n_permutations=19, permutation_seed=2)
    reference = fs.select("cls ~ .", _as_float(frame), method="jmi", k="auto", n_permutations=19,
                          permutation_seed=2)
    assert result._frame.X.dtype == dtype
    assert str(result.summary()) == str(reference.summary())


def test_other_methods_and_mixed_dtypes_get_float64():
    frame = _counts_frame(2)
    assert fs.select("cls ~ .", frame, method="fisher", k=3)._frame.X.dtype == np.float64
    mixed = frame.astype({"c0": np.int32})   # int32 and int64 columns
    result = fs.select("cls ~ .", mixed, method="mrmr", k=3)
    assert result._frame.X.dtype == np.float64
    assert result.selected == fs.select("cls ~ .", frame, method="mrmr", k=3).selected

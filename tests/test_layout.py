"""Memory layout of the design matrix: ``y ~ .`` keeps the DataFrame's (Fortran) layout, and
``run_method`` copies it into C order only for a method whose kernels need C order.

The methods registered with ``any_layout=True`` must give bitwise the same output for the
same values in C and in Fortran order (checked here for each of them); the others must receive
a C-contiguous matrix whatever they are given.
"""
import dataclasses

import numpy as np
import pandas as pd
import pytest

import fstools as fs
from fstools.api.selection import run_method
from fstools.core.arrays import c_contiguous, nonfinite_columns
from fstools.methods.registry import get_method, registered_methods
from fstools.model.formula import parse_formula
from fstools.model.validation import check_method_params

ANY_LAYOUT = [spec.name for spec in registered_methods() if spec.any_layout]


def _data(seed=0, n=60, p=7):
    """Continuous columns, and the kinds the information methods read through other paths:
    an integer column with few values, a 0/1 column, a column with ties, a constant column."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X[:, 2] = np.round(X[:, 2], 1)
    X[:, 3] = rng.integers(0, 5, size=n)
    X[:, 4] = rng.integers(0, 2, size=n)
    X[:, 5] = 7.0
    y = rng.integers(0, 3, size=n).astype(np.int32)
    return X, y


def _settings(spec):
    """The default parameters, and each other discretisation the method offers."""
    settings = [{}]
    names = {parameter.name for parameter in spec.parameters}
    if "discretization" in names:
        settings += [{"discretization": "equal_width", "n_bins": 4},
                     {"discretization": "equal_frequency", "n_bins": 3}]
    return settings


def test_the_methods_that_read_any_layout():
    assert {"fisher", "cmqfs", "mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim"} <= set(ANY_LAYOUT)


@pytest.mark.parametrize("method", ANY_LAYOUT)
def test_any_layout_methods_give_the_same_output_in_c_and_fortran_order(method):
    X, y = _data()
    spec = get_method(method)
    for setting in _settings(spec):
        params = check_method_params(spec, setting)
        for k in (None, 3):
            c_output = spec.function(np.ascontiguousarray(X), y, k, 1, **params)
            f_output = spec.function(np.asfortranarray(X), y, k, 1, **params)
            np.testing.assert_array_equal(c_output.ranking, f_output.ranking)
            np.testing.assert_array_equal(c_output.scores, f_output.scores)
            for name, values in c_output.columns.items():
                np.testing.assert_array_equal(values, f_output.columns[name], err_msg=name)
            for name, values in (c_output.steps or {}).items():
                np.testing.assert_array_equal(values, f_output.steps[name], err_msg=name)


@pytest.mark.parametrize("method", ["fisher", "mim", "cmqfs", "relieff"])
def test_run_method_copies_into_c_order_only_for_methods_that_need_it(method):
    spec = get_method(method)
    seen = {}

    def record(X, y, k, n_threads, **params):
        seen["X"] = X
        return spec.function(X, y, k, n_threads, **params)

    X, y = _data()
    fortran = np.asfortranarray(X)
    patched = dataclasses.replace(spec, function=record)
    run_method(patched, fortran, y, None, check_method_params(spec, {}), 1)
    if spec.any_layout:
        assert seen["X"] is fortran or np.shares_memory(seen["X"], fortran)
    else:
        assert seen["X"].flags.c_contiguous
        assert not np.shares_memory(seen["X"], fortran)
        np.testing.assert_array_equal(seen["X"], X)


def test_formula_keeps_the_dataframe_layout_and_select_equals_the_array_path():
    X, y = _data(seed=3, n=80, p=12)
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    df["y"] = y
    frame = parse_formula("y ~ .", df)
    assert frame.X.flags.f_contiguous  # pandas' own layout, not transposed
    np.testing.assert_array_equal(frame.X, X)
    for method in ["fisher", "mim", "relieff"]:
        res = fs.select("y ~ .", df, method=method, k=4)
        selector = fs.FeatureSelector(method=method, k=4).fit(X, y)
        assert list(res.selected) == [f"x{j}" for j in selector.ranking_[:4]]


def test_c_contiguous_copies_fortran_order_tile_by_tile():
    rng = np.random.default_rng(1)
    for shape in [(1, 1), (3, 700), (513, 257), (1000, 3)]:
        values = np.asfortranarray(rng.normal(size=shape))
        out = c_contiguous(values)
        assert out.flags.c_contiguous
        np.testing.assert_array_equal(out, values)
    already = np.ones((4, 5))
    assert c_contiguous(already) is already


@pytest.mark.parametrize("order", ["C", "F"])
def test_nonfinite_columns_equals_the_elementwise_check(order):
    rng = np.random.default_rng(2)
    for _ in range(50):
        X = rng.normal(size=(20, 9)) * 10.0 ** rng.integers(-300, 300, size=9)
        for _ in range(rng.integers(0, 4)):
            X[rng.integers(20), rng.integers(9)] = rng.choice([np.nan, np.inf, -np.inf])
        X[:, 8] = 1e308  # finite values whose sum overflows: not reported
        X = np.asarray(X, order=order)
        expected = np.flatnonzero(~np.isfinite(X).all(axis=0))
        np.testing.assert_array_equal(nonfinite_columns(X), expected)


_IN_PLACE_CHANGES = {
    "iloc column": lambda df: df.iloc.__setitem__((slice(None), 0), 0.0),
    "iat": lambda df: df.iat.__setitem__((0, 1), 99.0),
    "loc column": lambda df: df.loc.__setitem__((slice(None), "x2"), -1.0),
    "where inplace": lambda df: df.where(df > 100, 0.0, inplace=True),
    "clip inplace": lambda df: df.clip(upper=0.0, inplace=True),
    "update": lambda df: df.update(pd.DataFrame({"x3": np.zeros(len(df))}, index=df.index)),
}


@pytest.mark.parametrize("change", sorted(_IN_PLACE_CHANGES))
@pytest.mark.parametrize("response_at", ["last", "middle"])
def test_a_result_keeps_the_data_of_its_call_when_the_frame_is_changed_in_place_later(change, response_at):
    # y ~ . reads the predictors as a slice of the frame (response last) or a take (response in the
    # middle); either way the result's design must not follow later in-place changes of the frame
    # (pandas' copy-on-write, or a copy): its tests read the data of the call.
    X, y = _data(seed=5, n=90, p=8)
    X[:, 5] = np.arange(90) % 3  # no constant column: every column is tested
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    df.insert(X.shape[1] if response_at == "last" else 4, "y", y)
    res = fs.select("y ~ .", df, method="mim", k=3)
    before = res.test(n_permutations=49, random_state=0).scores.copy()
    kept = df.copy()
    _IN_PLACE_CHANGES[change](df)
    assert not df.equals(kept)  # the change did reach the frame
    after = res.test(n_permutations=49, random_state=0).scores
    pd.testing.assert_frame_equal(after, before)
    again = fs.select("y ~ .", kept, method="mim", k=3).test(n_permutations=49, random_state=0).scores
    pd.testing.assert_frame_equal(again, before)

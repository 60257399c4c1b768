"""Bad input at every public entry point: a clear error or a documented result, never a
crash deep in NumPy/Cython, never a silently changed input.

Entry points: ``fs.select`` (every registered method, grouped by ``fs.list_methods()``
capabilities), ``fs.FeatureSelector``, ``fs.OnlineSelector``, ``fs.compare``, ``fs.stability`` and
the CLI (``fstools.cli.main``).  Each error test names the exception type and a message that names
the argument and what is allowed.  Every call on a DataFrame goes through :func:`unchanged`, which
asserts that the caller's data is left exactly as it was.
"""
import contextlib
import io
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import fstools as fs
from fstools.core.arrays import as_float_matrix, standardize_columns
from fstools.methods.registry import get_method
from fstools.model.validation import check_integer_columns, check_numeric_matrix
from fstools.cli import main
from fstools.model.exceptions import FormulaError

# ------------------------------------------------------------------ the registry, by capability
_METHODS = fs.list_methods()
_CAPS = {row.name: {c.strip() for c in row.capabilities.split(",")} for row in _METHODS.itertuples()}
MULTILABEL = sorted(name for name, caps in _CAPS.items() if "multilabel" in caps)
STREAMING = sorted(name for name, caps in _CAPS.items() if "streaming" in caps)
# Methods for a continuous response only (pearson, rrelieff): the class-response cases here do not apply.
CONTINUOUS_ONLY = sorted(_METHODS.loc[_METHODS["responses"] == "continuous", "name"])
SINGLE = sorted(name for name in _CAPS if name not in MULTILABEL and name not in STREAMING
                and name not in CONTINUOUS_ONLY)
ALL = sorted(name for name in _CAPS if name not in CONTINUOUS_ONLY)
LABELS = ("y", "y1", "y2")

# A parameter value out of range for every method that has parameters.
OUT_OF_RANGE = {
    "bahsic": ("estimator", "x", "one of 'unbiased', 'biased'"),
    "cmim": ("discretization", "x", "one of 'mu_sigma'"),
    "cmfs": ("gamma", 0, "a finite number > 0"),
    "cmqfs": ("beta", 1.5, r"a number in \[0, 1\]"),
    "cs": ("C", -1, "a finite number > 0"),
    "dfs": ("p", 0, r"a number in \(0, 2\]"),
    "elc": ("lam", -1, "a finite number > 0"),
    "jmi": ("n_bins", 1, "None or an integer >= 2"),
    "laplacian": ("n_neighbors", 0, "an integer >= 1"),
    "llsf": ("alpha", -1, "a finite number >= 0"),
    "mbpa": ("C", 0, "a finite number > 0"),
    "mifs": ("beta", -1, "a number >= 0"),
    "mifs_u": ("beta", float("nan"), "a number >= 0"),
    "mim": ("n_bins", 0, "None or an integer >= 2"),
    "ml_mi": ("discretization", "x", "one of 'mu_sigma'"),
    "ml_mifs": ("latent_dim", 0, "None or an integer >= 1"),
    "mrmr": ("n_bins", 2.5, "None or an integer >= 2"),
    "onpa": ("beta", -1, "a finite number > 0"),
    "pa": ("eta", -1, "a finite number > 0"),
    "pa1": ("K", 0, "an integer >= 1"),
    "pa2": ("passes", 0, "an integer >= 1"),
    "relieff": ("n_neighbors", 0, "an integer >= 1"),
    "rrelieff": ("n_neighbors", 0, "an integer >= 1"),
    "trace_ratio": ("standardize", "x", "True or False"),
}


# Methods for counts / frequencies, which refuse negative predictors (tested in test_sparse.py).
NON_NEGATIVE = {"chi2"}


def kind(method):
    return "multilabel" if method in MULTILABEL else "streaming" if method in STREAMING else "single"


def make_frame(method, n=40, seed=0):
    """Four numeric predictors a..d and the response(s) the method takes: three classes (single-label),
    two (streaming, binary) or two 0/1 labels y1, y2 (multi-label)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    if method in NON_NEGATIVE:
        X = np.abs(X)
    df = pd.DataFrame(X, columns=list("abcd"))
    if kind(method) == "multilabel":
        df["y1"] = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
        df["y2"] = (X[:, 1] + 0.5 * rng.normal(size=n) > 0).astype(int)
    elif kind(method) == "streaming":
        df["y"] = np.where(X[:, 0] > 0.3, "rare", "common")
    else:
        df["y"] = np.array(["p", "q", "r"])[np.arange(n) % 3]
    return df


def lhs(method):
    return "y1 + y2" if kind(method) == "multilabel" else "y"


@contextlib.contextmanager
def unchanged(*frames):
    """Assert that the DataFrames/arrays are exactly as they were, whatever the block does."""
    copies = [f.copy(deep=True) if isinstance(f, pd.DataFrame) else np.array(f, copy=True) for f in frames]
    flags = [f.flags.c_contiguous if isinstance(f, np.ndarray) else None for f in frames]
    try:
        yield
    finally:
        for frame, copy, flag in zip(frames, copies, flags):
            if isinstance(frame, pd.DataFrame):
                pd.testing.assert_frame_equal(frame, copy)
            else:
                np.testing.assert_array_equal(frame, copy)
                assert frame.flags.c_contiguous == flag


def select(method, df, formula=None, **kwargs):
    kwargs.setdefault("k", 2)
    with unchanged(df):
        return fs.select(formula or f"{lhs(method)} ~ .", df, method=method, **kwargs)


def select_quietly(method, df, **kwargs):
    """select, ignoring warnings that are not the subject of the test (e.g. a constant column)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return select(method, df, **kwargs)


# ------------------------------------------------------------------ fs.select: every method
@pytest.mark.parametrize("method", ALL)
@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_select_infinite_value_names_the_column(method, value):
    df = make_frame(method)
    df.loc[3, "c"] = value
    with pytest.raises(ValueError, match=r"data: non-finite values \(NaN or inf\) in column\(s\) 'c'; "
                                         r"allowed: finite numbers"):
        select(method, df)


@pytest.mark.parametrize("method", ALL)
def test_select_nan_is_dropped_and_counted_or_refused(method):
    df = make_frame(method)
    df.loc[[3, 7], "b"] = np.nan
    result = select_quietly(method, df)
    assert result.n_dropped == 2 and result.n == len(df) - 2
    with pytest.raises(ValueError, match=r"2 of 40 rows have missing values \(in column\(s\) 'b'\).*na_action"):
        select(method, df, na_action="raise")


@pytest.mark.parametrize("method", ALL)
def test_select_all_nan_column_is_refused_with_its_name(method):
    df = make_frame(method).assign(b=np.nan)
    with pytest.raises(ValueError, match=r"all 40 rows have missing values in the columns used \(.*'b'"):
        select(method, df)
    # Leaving the column out of the formula is the documented way round.
    result = select_quietly(method, df, formula=f"{lhs(method)} ~ . - b")
    assert "b" not in result.scores.index and result.n == 40


@pytest.mark.parametrize("method", ALL)
def test_select_constant_column_warns_and_is_still_ranked(method):
    df = make_frame(method).assign(c=2.5)
    with pytest.warns(UserWarning, match=r"1 constant column \(c\)"):
        result = select(method, df, k=4)
    assert sorted(result.scores.index) == ["a", "b", "c", "d"]


@pytest.mark.parametrize("method", ALL)
def test_select_duplicated_column_is_a_separate_candidate(method):
    df = make_frame(method)
    df["a_copy"] = df["a"]
    result = select_quietly(method, df, k=5)
    assert sorted(result.scores.index) == ["a", "a_copy", "b", "c", "d"]
    assert len(result.selected) == 5


@pytest.mark.parametrize("method", SINGLE + STREAMING)
def test_select_single_class_is_refused(method):
    df = make_frame(method).assign(y="q")
    with pytest.raises(ValueError, match=r"response 'y': only one class \('q'\); .*at least 2 classes"):
        select(method, df)


@pytest.mark.parametrize("method", MULTILABEL)
def test_select_constant_label_is_refused(method):
    df = make_frame(method).assign(y2=1)
    with pytest.raises(ValueError, match=r"response 'y2': is constant \(all 1\), one class only.*needs both values"):
        select(method, df)


@pytest.mark.parametrize("method", SINGLE)
def test_select_class_with_one_sample_is_kept(method):
    df = make_frame(method)
    df.loc[0, "y"] = "z"
    result = select_quietly(method, df)
    assert result.classes == ["p", "q", "r", "z"]
    assert list(result.class_counts) == [13, 13, 13, 1]
    assert len(result.selected) == 2


@pytest.mark.parametrize("method", STREAMING)
def test_select_third_class_of_one_sample_is_refused_by_streaming_methods(method):
    df = make_frame(method)
    df.loc[0, "y"] = "z"
    with pytest.raises(ValueError, match=r"online methods are binary.*3 class\(es\).*Make it binary"):
        select(method, df)


@pytest.mark.parametrize("method", ALL)
@pytest.mark.parametrize("k", [5, 100, 0, -1])
def test_select_k_out_of_range(method, k):
    with pytest.raises(ValueError, match=rf"k: must be in 1\.\.4 \(the number of features\); got {k}"):
        select(method, make_frame(method), k=k)


@pytest.mark.parametrize("method", ALL)
@pytest.mark.parametrize("k", [2.5, "2", True])
def test_select_k_not_an_integer(method, k):
    with pytest.raises(TypeError, match=r"k: must be None or an integer in 1\.\.4"):
        select(method, make_frame(method), k=k)


@pytest.mark.parametrize("method", ALL)
def test_select_empty_dataframe(method):
    df = make_frame(method)
    with pytest.raises(ValueError, match="data has no rows"):
        select(method, df.iloc[:0])
    with pytest.raises(ValueError, match="data has no rows"):
        select(method, pd.DataFrame())


@pytest.mark.parametrize("method", SINGLE + STREAMING)
def test_select_one_row(method):
    with pytest.raises(ValueError, match=r"response 'y': only one class"):
        select(method, make_frame(method).iloc[:1])


@pytest.mark.parametrize("method", MULTILABEL)
def test_select_one_row_multilabel(method):
    with pytest.raises(ValueError, match=r"response 'y1': is constant .* in the 1 rows used"):
        select(method, make_frame(method).iloc[:1])


@pytest.mark.parametrize("method", ALL)
def test_select_string_predictor_is_one_categorical_term(method):
    df = make_frame(method)
    df["s"] = np.array(["u", "v", "w"])[np.arange(len(df)) % 3]
    result = select_quietly(method, df, k=5)
    assert sorted(result.scores.index) == ["a", "b", "c", "d", "s"]


@pytest.mark.parametrize("method", ALL)
def test_select_datetime_predictor_is_refused(method):
    df = make_frame(method).assign(t=pd.date_range("2020-01-01", periods=40))
    with pytest.raises(TypeError, match=r"column 't' has dtype datetime64.*cannot be a predictor; "
                                        r"allowed kinds: numeric, boolean, categorical/string"):
        select(method, df)


@pytest.mark.parametrize("method", ALL)
def test_select_boolean_column_is_a_predictor(method):
    df = make_frame(method)
    df["flag"] = df["a"] > 0
    result = select_quietly(method, df, k=5)
    assert "flag" in result.scores.index
    # Coded 0/1: the same ranking as the 0/1 integer column (deterministic methods and seeds).
    as_int = select_quietly(method, df.assign(flag=df["flag"].astype(int)), k=5)
    assert result.selected == as_int.selected


def _takes_continuous(method):
    return get_method(method).takes_response("continuous")


@pytest.mark.parametrize("response", [np.arange(40), np.linspace(0.1, 3.9, 40)], ids=["integers", "floats"])
@pytest.mark.parametrize("method", SINGLE + STREAMING)
def test_select_numeric_response_with_many_values_is_continuous(method, response):
    """40 distinct integers (or non-integer floats) in 40 rows: a continuous response, never 40
    classes; a method that takes only classes says which methods take it and how to cut it."""
    df = make_frame(method).assign(y=response)
    if _takes_continuous(method):
        result = select_quietly(method, df)
        assert result.response_type == "continuous" and result.classes is None
        expected = "40 distinct integer values" if response.dtype.kind == "i" else "non-integer values"
        assert expected in result.response_reason
        assert f"y, continuous ({result.response_reason})" in str(result.summary())
    else:
        with pytest.raises(ValueError, match=rf"method '{method}' takes class responses only; methods that "
                                             rf"take a continuous response: .*f_test.*; or cut the response "
                                             rf"into classes with pd.cut / pd.qcut"):
            select(method, df)


@pytest.mark.parametrize("method", SINGLE)
def test_select_response_type_class_overrides_and_warns_about_an_identifier(method):
    df = make_frame(method).assign(y=np.arange(40))
    with pytest.warns(UserWarning, match=r"response 'y': 40 classes in 40 rows \(1 row in the largest\): "
                                         r"this looks like an identifier"):
        try:
            select(method, df, response_type="class")
        except ValueError:
            pass  # some methods cannot work with one row per class; the warning is the point


@pytest.mark.parametrize("method", SINGLE + STREAMING)
def test_select_float_response_with_integral_values_is_classes(method):
    df = make_frame(method)
    df["y"] = np.where(df["y"] == df["y"].iloc[0], 1.0, 0.0)
    result = select_quietly(method, df)
    assert result.classes == ["0.0", "1.0"]


@pytest.mark.parametrize("method", SINGLE + STREAMING)
def test_select_mixed_type_labels_are_refused(method):
    df = make_frame(method)
    df["y"] = np.array(["p", 1], dtype=object)[np.arange(40) % 2]
    with pytest.raises(TypeError, match=r"response 'y': labels of mixed types \['int', 'str'\]; "
                                        r"allowed: labels of one type"):
        select(method, df)


@pytest.mark.parametrize("method", MULTILABEL)
def test_select_multilabel_response_not_zero_one_is_refused(method):
    df = make_frame(method).assign(y2=np.arange(40) % 3)
    with pytest.raises(ValueError, match=r"must hold two values .*got the values 0, 1, 2"):
        select(method, df)


def test_select_unknown_method_lists_the_methods():
    df = make_frame("cmqfs")
    with pytest.raises(ValueError, match=r"method: unknown method 'magic'; allowed values: .*cmqfs"):
        select("magic", df)


@pytest.mark.parametrize("method", ALL)
def test_select_unknown_parameter_lists_the_parameters(method):
    with pytest.raises(TypeError, match=rf"method '{method}': unknown parameter\(s\) nonsense; its parameters "
                                        rf"are: "):
        select(method, make_frame(method), nonsense=1)


@pytest.mark.parametrize("method", sorted(OUT_OF_RANGE))
def test_select_parameter_out_of_range(method):
    name, value, allowed = OUT_OF_RANGE[method]
    with pytest.raises(ValueError, match=rf"^{name}: must be {allowed}.* for method '{method}'; got "):
        select(method, make_frame(method), **{name: value})


def test_every_method_with_parameters_has_an_out_of_range_case():
    with_params = {row.name for row in _METHODS.itertuples() if row.parameters}
    assert with_params == set(OUT_OF_RANGE)


@pytest.mark.parametrize("method", ALL)
def test_select_formula_naming_a_missing_column(method):
    with pytest.raises(fs.FormulaError, match=r"unknown column 'nope'"):
        select(method, make_frame(method), formula=f"{lhs(method)} ~ a + nope")


@pytest.mark.parametrize("method", SINGLE + STREAMING)
def test_select_two_responses_for_a_single_label_method(method):
    df = make_frame(method).assign(y2=0)
    with pytest.raises(fs.FormulaError, match=rf"method '{method}' takes one response"):
        select(method, df, formula="y + y2 ~ a + b")


@pytest.mark.parametrize("method", MULTILABEL)
def test_select_response_frame_of_the_wrong_length(method):
    df = make_frame(method)
    labels = df[["y1", "y2"]].iloc[:-5]
    with pytest.raises(ValueError, match=r"response: must have the rows of data \(same index\); got 35 rows for 40"):
        select(method, df.drop(columns=["y1", "y2"]), formula="~ .", response=labels)


@pytest.mark.parametrize("method", ALL)
def test_select_float32_columns_equal_float64(method):
    df = make_frame(method)
    df32 = df.astype({c: np.float32 for c in "abcd"})
    as64 = df32.astype({c: np.float64 for c in "abcd"})   # the same numbers, in float64
    r32 = select_quietly(method, df32, k=4)
    r64 = select_quietly(method, as64, k=4)
    assert r32.selected == r64.selected
    np.testing.assert_array_equal(r32.scores["score"].to_numpy(), r64.scores["score"].to_numpy())


def test_select_data_not_a_dataframe():
    df = make_frame("cmqfs")
    with pytest.raises(TypeError, match="data: must be a pandas DataFrame, a polars DataFrame.*; got numpy.ndarray"):
        fs.select("y ~ .", df.to_numpy())


# ------------------------------------------------------------------ FeatureSelector
FS_METHODS = ["cmqfs", "mim", "fisher", "relieff", "laplacian", "mbpa", "elc"]


def xy(method, n=40, seed=0):
    df = make_frame(method, n=n, seed=seed)
    X = df[list("abcd")].to_numpy(copy=True)
    if kind(method) == "multilabel":
        return X, df[["y1", "y2"]].to_numpy(copy=True)
    return X, df["y"].to_numpy(copy=True)


def fit(method, X, y, **params):
    params.setdefault("k", 2)
    with unchanged(X, y):
        return fs.FeatureSelector(method=method, **params).fit(X, y)


@pytest.mark.parametrize("method", FS_METHODS)
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_transformer_non_finite(method, value):
    X, y = xy(method)
    X[5, 2] = value
    with pytest.raises(ValueError, match=r"X: non-finite values \(NaN or inf\) in column\(s\) 'x2'; allowed"):
        fit(method, X, y)


@pytest.mark.parametrize("method", FS_METHODS)
def test_transformer_non_contiguous_and_float32_give_the_same_answer(method):
    X, y = xy(method)
    reference = fit(method, X, y, k=4)
    wide = np.asfortranarray(np.repeat(X, 2, axis=1))
    strided = wide[:, ::2]                      # a Fortran-ordered, strided view: the same numbers
    assert not strided.flags.c_contiguous and not strided.flags.f_contiguous
    np.testing.assert_array_equal(fit(method, strided, y, k=4).ranking_, reference.ranking_)
    X32 = X.astype(np.float32)
    np.testing.assert_array_equal(fit(method, X32, y, k=4).ranking_,
                                  fit(method, X32.astype(np.float64), y, k=4).ranking_)


@pytest.mark.parametrize("method", FS_METHODS)
@pytest.mark.parametrize("k, error, pattern", [
    (0, ValueError, r"k: must be in 1\.\.4"), (5, ValueError, r"k: must be in 1\.\.4"),
    (-3, ValueError, r"k: must be in 1\.\.4"), (2.0, TypeError, r"k: must be None or an integer"),
    (None, ValueError, r"k: must be an integer in 1\.\.4 or 'auto' for the transformer; got None"),
])
def test_transformer_bad_k(method, k, error, pattern):
    X, y = xy(method)
    with pytest.raises(error, match=pattern):
        fit(method, X, y, k=k)


@pytest.mark.parametrize("method", FS_METHODS)
def test_transformer_wrong_shapes(method):
    X, y = xy(method)
    with pytest.raises(ValueError, match="0 sample"):
        fit(method, X[:0], y[:0])
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        fit(method, X[:, 0].copy(), y)
    with pytest.raises(ValueError, match="dim 3"):
        fit(method, X[:, :, None].copy(), y)
    with pytest.raises(ValueError, match=r"(y|Y): has 39 (labels|rows) but X has 40 samples"):
        fit(method, X, y[:-1].copy())


@pytest.mark.parametrize("method", [m for m in FS_METHODS if kind(m) != "multilabel"])
def test_transformer_labels(method):
    X, y = xy(method)
    with pytest.raises(ValueError, match=r"y: only one class"):
        fit(method, X, np.full(40, "p"))
    with pytest.raises(ValueError, match=r"y: only one class"):
        fit(method, X[:1].copy(), y[:1].copy())
    with pytest.raises(TypeError, match=r"y: labels of mixed types \['int', 'str'\]"):
        fit(method, X, np.array(["a", 1] * 20, dtype=object))
    with pytest.raises(ValueError, match=r"y should be a 1d array .* got shape \(40, 2\)"):
        fit(method, X, np.c_[y, y])
    # Continuous by the rule of fs.select (non-integer floats; 40 distinct integers): a method that
    # takes classes only says so; response_type='class' makes 40 classes, with a warning.
    for continuous in (np.linspace(0.1, 3.9, 40), np.arange(40)):
        if get_method(method).takes_response("continuous"):
            assert fit(method, X, continuous).result_.response_type == "continuous"
        else:
            with pytest.raises(ValueError, match=rf"method '{method}' takes class responses only"):
                fit(method, X, continuous)
    with pytest.warns(UserWarning, match=r"y: 40 classes in 40 rows .* looks like an identifier"):
        try:
            fit(method, X, np.arange(40), response_type="class")
        except ValueError:
            pass  # e.g. a binary streaming method; the warning is the point


@pytest.mark.parametrize("method", FS_METHODS)
def test_transformer_non_numeric_x(method):
    X, y = xy(method)
    frame = pd.DataFrame(X, columns=list("abcd"))
    with unchanged(frame):
        with pytest.raises(TypeError, match=r"X: must be numeric; column\(s\) s are not"):
            fit(method, frame.assign(s="u"), y)
        with pytest.raises(TypeError, match=r"X: must be numeric; column\(s\) t are not"):
            fit(method, frame.assign(t=pd.Timestamp("2020-01-01")), y)
    words = np.array([["u", "v", "w", "x"]] * 40, dtype=object)
    with pytest.raises(ValueError, match=r"X: must be numeric \(could not convert string to float"):
        fit(method, words, y)


@pytest.mark.parametrize("method", FS_METHODS)
def test_transformer_boolean_x_is_zero_one(method):
    X, y = xy(method)
    B = X > 0
    np.testing.assert_array_equal(fit(method, B, y, k=4).ranking_, fit(method, B.astype(float), y, k=4).ranking_)


def test_transformer_unknown_method_and_parameters():
    X, y = xy("cmqfs")
    with pytest.raises(ValueError, match=r"method: unknown method 'nope'; allowed values: .*cmqfs"):
        fit("nope", X, y)
    with pytest.raises(TypeError, match=r"unknown parameter\(s\) zzz; its parameters are: beta"):
        fit("cmqfs", X, y, params={"zzz": 1})
    with pytest.raises(ValueError, match=r"beta: must be a number in \[0, 1\]"):
        fit("cmqfs", X, y, params={"beta": 1.5})
    with pytest.raises(ValueError, match=r"p: must be a number in \(0, 2\]"):
        fit("dfs", X, y, params={"p": 0})


# ------------------------------------------------------------------ OnlineSelector
def stream(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 5))
    y = np.where(X[:, 0] + 0.1 * rng.normal(size=n) > 0.7, "rare", "common")
    return X, y


def partial_fit(X, y, method="mbpa", selector=None, **kwargs):
    selector = selector or fs.OnlineSelector(method=method, n_features=kwargs.pop("n_features", 2), **kwargs)
    with unchanged(X, y):
        return selector.partial_fit(X, y)


@pytest.mark.parametrize("method", STREAMING)
@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_online_non_finite(method, value):
    X, y = stream()
    X[3, 1] = value
    with pytest.raises(ValueError, match=r"X: non-finite values \(NaN or inf\) in the column\(s\) with index 1; "
                                         r"allowed: finite numbers"):
        partial_fit(X, y, method)
    frame = pd.DataFrame(X, columns=list("abcde"))
    with pytest.raises(ValueError, match=r"X: non-finite values \(NaN or inf\) in column\(s\) 'b'; allowed"):
        partial_fit(frame, y, method)


@pytest.mark.parametrize("method", STREAMING)
def test_online_non_contiguous_and_float32_give_the_same_weights(method):
    X, y = stream()
    reference = partial_fit(X, y, method, random_state=0)
    strided = np.asfortranarray(np.repeat(X, 2, axis=1))[:, ::2]
    np.testing.assert_array_equal(partial_fit(strided, y, method, random_state=0).weights_, reference.weights_)
    X32 = X.astype(np.float32)
    np.testing.assert_array_equal(partial_fit(X32, y, method, random_state=0).weights_,
                                  partial_fit(X32.astype(np.float64), y, method, random_state=0).weights_)


@pytest.mark.parametrize("method", STREAMING)
def test_online_shapes_and_budget(method):
    X, y = stream()
    for n_features in (0, 6, -1, 2.0):
        with pytest.raises(ValueError, match=r"n_features: must be an integer in 1\.\.5"):
            partial_fit(X, y, method, n_features=n_features)
    with pytest.raises(ValueError, match=r"X: is empty \(shape \(0, 5\)\)"):
        partial_fit(X[:0], y[:0], method)
    with pytest.raises(ValueError, match="X: must be 2-D"):
        partial_fit(X[:, 0].copy(), y, method)
    with pytest.raises(ValueError, match=r"y: must be 1-D with one label per row of X \(60\)"):
        partial_fit(X, y[:-1].copy(), method)
    selector = partial_fit(X, y, method)
    with pytest.raises(ValueError, match="X: has 4 features, but OnlineSelector is expecting 5"):
        partial_fit(X[:, :4].copy(), y, selector=selector)


@pytest.mark.parametrize("method", STREAMING)
def test_online_labels(method):
    X, y = stream()
    with pytest.raises(ValueError, match=r"y: 3 classes .*OnlineSelector is binary"):
        partial_fit(X, np.arange(60) % 3, method)
    with pytest.raises(TypeError, match=r"y: labels of mixed types \['int', 'str'\]; allowed: labels of one type"):
        partial_fit(X, np.array(["a", 1] * 30, dtype=object), method)
    with pytest.raises(ValueError, match="y: has missing values"):
        partial_fit(X, np.r_[np.nan, np.ones(59)], method)


@pytest.mark.parametrize("method", STREAMING)
def test_online_non_numeric_and_boolean_x(method):
    X, y = stream()
    frame = pd.DataFrame(X, columns=list("abcde"))
    with unchanged(frame):
        with pytest.raises(TypeError, match=r"X: must be numeric; column\(s\) s are not"):
            partial_fit(frame.assign(s="u"), y, method)
        with pytest.raises(TypeError, match=r"X: must be numeric; column\(s\) t are not"):
            partial_fit(frame.assign(t=pd.Timestamp("2020-01-01")), y, method)
    with pytest.raises(TypeError, match="X: must be numeric; got dtype <U1"):
        partial_fit(np.array([list("abcde")] * 60), y, method)
    B = X > 0.5
    np.testing.assert_array_equal(partial_fit(B, y, method, random_state=0).weights_,
                                  partial_fit(B.astype(float), y, method, random_state=0).weights_)


def test_online_unknown_method_and_parameter_out_of_range():
    X, y = stream()
    with pytest.raises(ValueError, match=r"method: must be one of 'pa', 'pa1', 'pa2', 'mbpa', 'onpa', 'cs'"):
        partial_fit(X, y, "nope")
    with pytest.raises(ValueError, match=r"C: must be a finite number > 0 for method 'mbpa'; got -1"):
        partial_fit(X, y, "mbpa", C=-1)


@pytest.mark.parametrize("method", STREAMING)
def test_online_first_batch_with_one_class(method):
    X, y = stream()
    first = fs.OnlineSelector(method=method, n_features=2)
    partial_fit(X[:5], np.full(5, "common"), selector=first)
    assert first.class_mapping_ == {"common": 1}
    with pytest.raises(ValueError, match=r"predict: only the class 'common' has been seen.*classes="):
        first.predict(X[:3])
    partial_fit(X, y, selector=first)             # the other class arrives later: it becomes -1
    assert first.class_mapping_ == {"common": 1, "rare": -1}
    assert list(first.predict(X[:3])) != [] and set(first.predict(X)) <= {"common", "rare"}
    third = fs.OnlineSelector(method=method, n_features=2)
    partial_fit(X[:5], np.full(5, "common"), selector=third)
    with pytest.raises(ValueError, match="OnlineSelector is binary"):
        partial_fit(X[:4], np.array(["rare", "other", "rare", "other"]), selector=third)


# ------------------------------------------------------------------ compare and stability
def small_frame(n=40, seed=0):
    return make_frame("cmqfs", n=n, seed=seed)


def compare(df, formula="y ~ .", **kwargs):
    options = {"methods": ["cmqfs", "fisher"], "k": 2, "cv": 2, "repeats": 1, "progress": False}
    options.update(kwargs)
    with unchanged(df):
        return fs.compare(formula, df, **options)


def stability(df, formula="y ~ .", **kwargs):
    options = {"method": "cmqfs", "k": 2, "n_bootstrap": 3, "progress": False}
    options.update(kwargs)
    with unchanged(df):
        return fs.stability(formula, df, **options)


BAD_FRAMES = {
    "inf": (lambda df: df.assign(a=np.r_[np.inf, df.a[1:]]), ValueError, r"data: non-finite values.*'a'"),
    "all-NaN column": (lambda df: df.assign(b=np.nan), ValueError, r"all 40 rows have missing values.*'b'"),
    "one class": (lambda df: df.assign(y="p"), ValueError, r"response 'y': only one class"),
    "empty": (lambda df: df.iloc[:0], ValueError, "data has no rows"),
    "one row": (lambda df: df.iloc[:1], ValueError, "only one class"),
    "datetime": (lambda df: df.assign(t=pd.date_range("2020", periods=40)), TypeError,
                 r"column 't' has dtype datetime64.*allowed kinds"),
    "float response": (lambda df: df.assign(y=np.linspace(0.1, 3.9, 40)), ValueError,
                       "method 'cmqfs' takes class responses only; methods that take a continuous response"),
    "mixed labels": (lambda df: df.assign(y=np.array(["p", 1], dtype=object)[np.arange(40) % 2]), TypeError,
                     "labels of mixed types"),
}


@pytest.mark.parametrize("entry", [compare, stability], ids=["compare", "stability"])
@pytest.mark.parametrize("case", list(BAD_FRAMES), ids=list(BAD_FRAMES))
def test_compare_and_stability_bad_frames(entry, case):
    change, error, pattern = BAD_FRAMES[case]
    with pytest.raises(error, match=pattern):
        entry(change(small_frame()))


@pytest.mark.parametrize("entry", [compare, stability], ids=["compare", "stability"])
def test_compare_and_stability_bad_k_and_missing_column(entry):
    df = small_frame()
    for k in (0, -1, 5):
        with pytest.raises(ValueError, match=r"k: .*1\.\.4.*; got"):
            entry(df, k=k)
    with pytest.raises(fs.FormulaError, match="unknown column 'zz'"):
        entry(df, formula="y ~ a + zz")


@pytest.mark.parametrize("entry", [compare, stability], ids=["compare", "stability"])
def test_compare_and_stability_odd_but_valid_frames(entry):
    df = small_frame()
    df["flag"] = df["a"] > 0
    df["s"] = np.array(["u", "v"])[np.arange(40) % 2]
    df["a_copy"] = df["a"]
    df["const"] = 1.0
    df = df.astype({c: np.float32 for c in "bcd"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert entry(df) is not None


def test_compare_unknown_method_and_bad_cv():
    df = small_frame()
    with pytest.raises(ValueError, match=r"method: unknown method 'nope'; allowed values"):
        compare(df, methods=["nope"])
    with pytest.raises(ValueError, match=r"cv: must be an integer >= 2"):
        compare(df, cv=1)
    with pytest.raises(ValueError, match=r"cv: 100 folds but .* only 40 rows; allowed: 2\.\.40"):
        compare(df, cv=100)
    with pytest.raises(ValueError, match=r"repeats: must be an integer >= 1"):
        compare(df, repeats=0)


def test_compare_streaming_method_on_three_classes_is_an_input_error():
    with pytest.raises(ValueError, match="binary"):
        compare(small_frame(), methods=["mbpa"])


def test_stability_bad_parameters():
    df = small_frame()
    with pytest.raises(ValueError, match=r"method: unknown method 'nope'; allowed values"):
        stability(df, method="nope")
    with pytest.raises(TypeError, match=r"unknown parameter\(s\) zzz; its parameters are: beta"):
        stability(df, zzz=1)
    with pytest.raises(ValueError, match=r"beta: must be a number in \[0, 1\]"):
        stability(df, beta=1.5)
    with pytest.raises(ValueError, match=r"n_bootstrap: must be an integer >= 2"):
        stability(df, n_bootstrap=0)
    with pytest.raises(ValueError, match=r"alpha: must be in \(0, 1\)"):
        stability(df, alpha=2)


# ------------------------------------------------------------------ CLI (tests/test_cli.py has the rest)
@pytest.fixture
def csv_files(tmp_path):
    good = small_frame()
    files = {}

    def write(name, frame):
        path = tmp_path / f"{name}.csv"
        frame.to_csv(path, index=False)
        files[name] = str(path)

    write("one_class", good.assign(y="p"))
    write("infinite", good.assign(a=["inf"] + list(good.a[1:])))
    write("float_response", good.assign(y=np.linspace(0.1, 3.9, 40)))
    write("all_nan", good.assign(b=np.nan))
    write("good", good)
    write("header_only", good.iloc[:0])
    write("one_row", good.iloc[:1])
    blank = tmp_path / "blank.csv"
    blank.write_text("")
    files["blank"] = str(blank)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b,y\n1,2,p\n3,4,q,5,6\n7,8,p\n")
    files["ragged"] = str(ragged)
    return files


CLI_BAD = {
    "ragged csv": ["select", "y ~ .", "--data", "ragged"],
    "one class": ["select", "y ~ .", "--data", "one_class"],
    "infinite value": ["select", "y ~ .", "--data", "infinite"],
    "float response": ["select", "y ~ .", "--data", "float_response"],
    "all-NaN column": ["select", "y ~ .", "--data", "all_nan"],
    "unknown column": ["select", "y ~ a + nope", "--data", "one_class"],
    "unknown method": ["select", "y ~ .", "--data", "float_response", "--method", "magic"],
    "parameter out of range": ["select", "class ~ .", "--data", "wine", "--method", "dfs", "--param", "p=0"],
    "unknown parameter": ["select", "y ~ .", "--data", "good", "--param", "zzz=1"],
    "k = 0": ["select", "y ~ .", "--data", "good", "-k", "0"],
    "k negative": ["select", "y ~ .", "--data", "good", "-k", "-1"],
    "k too large": ["select", "y ~ .", "--data", "good", "-k", "100"],
    "header-only csv": ["select", "y ~ .", "--data", "header_only"],
    "one-row csv": ["select", "y ~ .", "--data", "one_row"],
    "blank file": ["select", "y ~ .", "--data", "blank"],
}


@pytest.mark.parametrize("argv", list(CLI_BAD.values()), ids=list(CLI_BAD))
def test_cli_bad_input_is_one_error_line_and_status_2(capsys, csv_files, argv):
    status = main([csv_files.get(a, a) for a in argv])
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fstools: error: ") and "Traceback" not in err, err


def test_cli_version_is_the_package_version(capsys):
    from fstools._version import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"fstools {__version__}"
    assert fs.__version__ is __version__


def test_version_lives_in_one_place():
    """pyproject reads the version from fstools/_version.py; no other file spells it out."""
    import pathlib
    import re
    import tomllib

    root = pathlib.Path(__file__).resolve().parents[1]  # the checkout these tests belong to
    pyproject = root / "pyproject.toml"
    if not (root / "setup.py").exists():
        pytest.skip("tests copied outside the source tree (CI's wheel stage): no setup.py next to them")
    config = tomllib.loads(pyproject.read_text())
    assert "version" not in config["project"] and "version" in config["project"]["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "fstools._version.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+([.-]?\w+)?", fs.__version__)
    assert "version=" not in (root / "setup.py").read_text().replace("--version", "")


# ------------------------------------------------------------------ review of the list (gaps)
def test_cli_missing_value_is_dropped_and_counted(capsys, csv_files, tmp_path):
    frame = small_frame()
    frame.loc[3, "a"] = np.nan
    path = tmp_path / "one_missing.csv"
    frame.to_csv(path, index=False)
    assert main(["select", "y ~ .", "--data", str(path), "-k", "2"]) == 0
    out, err = capsys.readouterr()
    assert "Observations: 39 (1 dropped for missing values)" in out and "Traceback" not in err


@pytest.mark.parametrize("entry", [compare, stability], ids=["compare", "stability"])
def test_compare_and_stability_missing_values_dropped_or_refused(entry):
    df = small_frame()
    df.loc[3, "a"] = np.nan
    assert entry(df) is not None
    with pytest.raises(ValueError, match=r"1 of 40 rows have missing values \(in column\(s\) 'a'\)"):
        entry(df, na_action="raise")


@pytest.mark.parametrize("entry", [compare, stability], ids=["compare", "stability"])
def test_compare_and_stability_class_with_one_sample_is_kept(entry):
    df = small_frame()
    df.loc[0, "y"] = "solo"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # compare: the class cannot be in every test fold
        assert entry(df) is not None


@pytest.mark.parametrize("entry", [compare, stability], ids=["compare", "stability"])
def test_compare_and_stability_integer_response_with_many_values_warns(entry):
    # 25 distinct integers in 40 rows: continuous by the rule of fs.select, so the class-only cmqfs is
    # refused; taken as classes (response_type='class') they look like an identifier.
    frame = small_frame().assign(y=np.arange(40) % 25)
    with pytest.raises(ValueError, match="method 'cmqfs' takes class responses only"):
        entry(frame)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="cv:", category=UserWarning)
        with pytest.warns(UserWarning, match=r"response 'y': 25 classes in 40 rows .*looks like an identifier"):
            entry(frame, response_type="class")


def test_compare_unknown_parameter_and_parameter_out_of_range():
    df = small_frame()
    with pytest.raises(TypeError, match=r"method 'cmqfs': unknown parameter\(s\) zzz; its parameters are: beta"):
        compare(df, methods=[("cmqfs", {"zzz": 1})])
    with pytest.raises(ValueError, match=r"beta: must be a number in \[0, 1\] for method 'cmqfs'; got 2"):
        compare(df, methods=[("cmqfs", {"beta": 2})])


@pytest.mark.parametrize("method", MULTILABEL)
def test_stability_refuses_a_multilabel_method(method):
    df = make_frame(method)
    for formula in ("y1 ~ a + b + c + d", "y1 + y2 ~ a + b + c + d"):
        with pytest.raises(ValueError, match=rf"method: '{method}' is a multi-label method .*Allowed methods: "):
            stability(df, formula=formula, method=method)


@pytest.mark.parametrize("method", FS_METHODS)
def test_transformer_constant_and_duplicated_columns(method):
    X, y = xy(method)
    X = np.column_stack([X, np.full(len(X), 3.0), X[:, 0]])  # a constant column and a copy of column 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        selector = fit(method, X, y, k=3)
    assert selector.get_support().shape == (6,) and selector.get_support().sum() == 3


@pytest.mark.parametrize("method", STREAMING)
def test_online_constant_and_duplicated_columns(method):
    X, y = stream()
    X = np.column_stack([X, np.full(len(X), 3.0), X[:, 0]])
    selector = partial_fit(X, y, method, n_features=3, random_state=0)
    assert selector.get_support().shape == (7,) and selector.get_support().sum() == 3
    # the copy of column 0 gets column 0's weight: each update adds tau y x to both
    assert selector.weights_[6] == selector.weights_[0]


@pytest.mark.parametrize("typed, meant", [("cmqsf", "cmqfs"), ("fsher", "fisher"), ("mrrm", "mrmr"), ("relief", "relieff")])
def test_a_method_typo_suggests_the_nearest_names(typed, meant):
    with pytest.raises(ValueError, match=rf"method: unknown method '{typed}'; allowed values: .*Did you mean .*'{meant}'"):
        fs.select("class ~ .", fs.datasets.load("wine"), method=typed, k=2)


@pytest.mark.parametrize("typed, name", [("mRMR", "mrmr"), ("CMQFS", "cmqfs"), ("MIFS-U", "mifs_u"), (" Fisher ", "fisher")])
def test_method_names_are_case_insensitive(typed, name):
    wine = fs.datasets.load("wine")
    assert fs.select("class ~ .", wine, method=typed, k=2).selected == fs.select("class ~ .", wine, method=name,
                                                                                k=2).selected


def test_chi2_names_the_negative_column_by_name():
    wine = fs.datasets.load("wine").assign(alcohol=lambda d: d["alcohol"] - 13.0)
    expected = r"column\(s\) 'alcohol' have negative values"
    with pytest.raises(ValueError, match=expected):
        fs.select("class ~ .", wine, method="chi2", k=2)
    with pytest.raises(ValueError, match=expected):
        fs.FeatureSelector(method="chi2", k=2).fit(wine.drop(columns="class"), wine["class"])
    with pytest.raises(ValueError, match=expected):
        fs.compare("class ~ .", wine, methods=["chi2"], k=[2], cv=2, repeats=1, random_state=0, progress=False,
                   standardize=False)


# ------------------------------------------------------------------ formula code (safe mode)
@pytest.mark.parametrize("formula", [
    "y ~ a + I(__import__('os').system('true'))",
    "y ~ I(open('never-written.txt', 'w'))",
    "y ~ I(().__class__.__base__.__subclasses__())",
    "y ~ I(np.fromfile('never-read.bin'))",
])
def test_select_refuses_code_in_formulas_by_default(formula):
    df = make_frame("fisher")
    with pytest.raises(FormulaError, match="safe formula mode.*formula_mode='code'"):
        fs.select(formula, df, method="fisher", k=1)
    assert not os.path.exists("never-written.txt")


@pytest.mark.parametrize("mode", ["unsafe", "", None, 1])
def test_select_unknown_formula_mode(mode):
    with pytest.raises(ValueError, match="formula_mode: must be one of 'safe', 'code'"):
        fs.select("y ~ .", make_frame("fisher"), method="fisher", formula_mode=mode)


def test_transform_evaluates_in_the_mode_of_the_select():
    df = make_frame("fisher")
    column = [name for name in df.columns if name != "y"][0]
    formula = f"y ~ I(np.where({column} > 0, 1.0, 0.0)) + log(abs({column}) + 1)"
    with pytest.raises(FormulaError, match="safe formula mode"):
        fs.select(formula, df, method="fisher", k=2)
    res = fs.select(formula, df, method="fisher", k=2, formula_mode="code")
    assert "formula_mode='code'" in res.call
    out = res.transform(df)  # the two terms, then the response
    assert list(out.columns) == res.selected + ["y"]
    assert np.isfinite(out[res.selected].to_numpy()).all()


# ------------------------------------------------------------------ extreme values
BEYOND_2_53 = np.iinfo(np.int64).max - 7
INTEGER_MESSAGE = r"integers beyond 2\^53 in column\(s\) {}.*allowed: integers of magnitude at most 2\^53"


def _integer_design(dtype=np.int64):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 100, size=(40, 3)).astype(dtype)
    X[:, 1] = BEYOND_2_53 - np.arange(40) % 2   # would become constant in float64
    return X


@pytest.mark.parametrize("method", ["fisher", "laplacian", "relieff", "trace_ratio", "bahsic", "dfs"])
def test_methods_refuse_integers_beyond_2_53(method):
    X = _integer_design()
    y = np.repeat([0, 1], 20).astype(np.int32)
    assert np.ptp(X[:, 1].astype(np.float64)) == 0          # what float64 would make of it
    with pytest.raises(ValueError, match=INTEGER_MESSAGE.format("1")):
        get_method(method).function(X, y)


def test_as_float_matrix_takes_integers_up_to_2_53_exactly():
    X = np.array([[2 ** 53, 1], [-2 ** 53, 2]], dtype=np.int64)
    np.testing.assert_array_equal(as_float_matrix(X), X.astype(np.float64))
    with pytest.raises(ValueError, match=INTEGER_MESSAGE.format("0")):
        as_float_matrix(X + np.array([[1, 0], [0, 0]]))
    with pytest.raises(ValueError, match=INTEGER_MESSAGE.format("0")):
        as_float_matrix(np.array([[2 ** 63], [1]], dtype=np.uint64))


def test_check_integer_columns_names_the_data_columns():
    df = pd.DataFrame({"small": np.arange(4), "id": np.arange(4) + BEYOND_2_53 - 4,
                       "nullable": pd.array([1, None, -2 ** 60, 3], dtype="Int64"), "x": np.linspace(0, 1e300, 4)})
    with pytest.raises(ValueError, match=INTEGER_MESSAGE.format("'id', 'nullable'")):
        check_integer_columns(df, name="data")
    check_integer_columns(df[["small", "x"]], name="data")   # floats are never refused
    with pytest.raises(ValueError, match=INTEGER_MESSAGE.format("'b'")):
        check_integer_columns(_integer_design(), ["a", "b", "c"])
    matrix = sparse.csc_matrix(_integer_design())
    with pytest.raises(ValueError, match=INTEGER_MESSAGE.format("'1'")):
        check_integer_columns(matrix)
    with pytest.raises(ValueError, match=INTEGER_MESSAGE.format("1")):
        check_numeric_matrix(_integer_design())


def test_select_refuses_integers_beyond_2_53():
    df = make_frame("fisher")
    df["a"] = BEYOND_2_53 - np.arange(len(df)) % 2
    with pytest.raises(ValueError, match=INTEGER_MESSAGE.format("'a'")):
        select_quietly("fisher", df)


def test_transformer_refuses_integers_beyond_2_53():
    X = _integer_design()
    with pytest.raises(ValueError, match=INTEGER_MESSAGE.format("'x1'")):
        fit("fisher", X, np.repeat([0, 1], 20))


@pytest.mark.parametrize("method", ["fisher", "trace_ratio", "bahsic", "dfs", "laplacian"])
@pytest.mark.parametrize("factor", [1e-300, 1e160, 1e307])
def test_finite_extreme_values_never_get_a_non_finite_complaint(method, factor):
    """A finite column near the ends of the float64 range: ranked as at ordinary scale (the
    scale-invariant settings), never 'non-finite values' or scipy's 'infs or NaNs', never NaN."""
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 20).astype(np.int32)
    X = rng.normal(size=(40, 4))
    X[:, 0] += 2 * y
    function = get_method(method).function
    prepare = standardize_columns if method == "laplacian" else (lambda A: A)
    base = function(prepare(X), y)
    X[:, 0] *= factor
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        output = function(prepare(X), y)
    assert not np.isnan(output.scores).any()
    np.testing.assert_array_equal(output.ranking, base.ranking)


# ------------------------------------------------------------------ CLI messages say what to do
@pytest.fixture
def cli_files(tmp_path):
    good = small_frame()
    files = {}

    def write(name, content):
        path = tmp_path / name
        path.write_bytes(content)
        files[name] = str(path)

    write("semicolon.csv", good.to_csv(index=False, sep=";").encode())
    write("latin1.csv", good.assign(y=np.where(good.y == "p", "caf\u00e9", "th\u00e9")).to_csv(index=False)
          .encode("latin-1"))
    write("utf16_no_bom.csv", good.to_csv(index=False).encode("utf-16-le"))
    files["MISSING_DIR/plot.png"] = str(tmp_path / "missing" / "plot.png")
    files["plot.xyz"] = str(tmp_path / "plot.xyz")
    return files


CLI_ACTIONABLE = {
    "semicolon file read with --sep ,": (["select", "y ~ .", "--data", "semicolon.csv", "--sep", ","], "--sep ';'"),
    "latin-1 file": (["select", "y ~ .", "--data", "latin1.csv"], "--encoding latin-1"),
    "utf-16 without a BOM": (["select", "y ~ .", "--data", "utf16_no_bom.csv"], "--encoding utf-16-le"),
    "k 2.5": (["select", "y ~ .", "--data", "wine", "-k", "2.5"], "got '2.5'"),
    "k abc": (["select", "y ~ .", "--data", "wine", "-k", "abc"], "got 'abc'"),
    "k 0": (["select", "y ~ .", "--data", "wine", "-k", "0"], "at least 1"),
    "k -1": (["select", "y ~ .", "--data", "wine", "-k", "-1"], "at least 1"),
    "missing --data": (["select", "y ~ ."], "required: --data"),
    "unknown option": (["select", "y ~ .", "--data", "wine", "--sepp", ";"], "did you mean '--sep'"),
    "empty --plot": (["select", "class ~ .", "--data", "wine", "--plot", ""], "empty file name"),
    "--plot in a missing directory": (["select", "class ~ .", "--data", "wine", "--plot", "MISSING_DIR/plot.png"],
                                      "does not exist"),
    "--plot unknown extension": (["select", "class ~ .", "--data", "wine", "--plot", "plot.xyz"], ".png"),
    "method typo": (["select", "class ~ .", "--data", "wine", "--method", "cmqsf"], "Did you mean 'cmqfs'"),
}


@pytest.mark.parametrize("argv, hint", list(CLI_ACTIONABLE.values()), ids=list(CLI_ACTIONABLE))
def test_cli_errors_are_one_line_saying_what_to_do(capsys, cli_files, argv, hint):
    status = main([cli_files.get(a, a) for a in argv])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fstools: error: ") and "Traceback" not in err, err
    assert hint in err, err


def test_cli_semicolon_and_stdin_read_as_the_comma_file(capsys, cli_files, monkeypatch, tmp_path):
    comma = tmp_path / "comma.csv"
    small_frame().to_csv(comma, index=False)
    outputs = []
    for source in (str(comma), cli_files["semicolon.csv"], "-"):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(comma.read_bytes())))
        assert main(["select", "y ~ .", "--data", source, "-k", "2", "--format", "csv"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2]


def test_cli_missing_response_lists_the_columns(capsys):
    assert main(["select", "nope ~ .", "--data", "iris", "-k", "2"]) == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fstools: error: ") and "'nope'" in err, err
    assert "sepal_length_cm" in err and "class" in err, err


def test_select_missing_response_lists_the_columns():
    df = pd.DataFrame({"label": [0, 1, 0, 1], "a": [1.0, 2.0, 3.0, 4.0], 7: [1.0, 0.0, 1.0, 0.0]})
    with pytest.raises(FormulaError, match=r"unknown column 'lable' \(did you mean 'label'\?\); "
                                           r"the columns are 'label', 'a', '7'"):
        fs.select("lable ~ .", df, method="fisher")
    wide = pd.DataFrame(np.zeros((3, 30)), columns=[f"x{j}" for j in range(30)])
    with pytest.raises(FormulaError, match=r"the columns are 'x0', .*'x19', \.\.\. \(30 in all\)"):
        fs.select("`no such` ~ .", wide, method="fisher")


def test_a_misspelt_keyword_gets_a_did_you_mean():
    wine = fs.datasets.load("wine")
    with pytest.raises(TypeError, match=r"compare\(\) got an unexpected keyword argument 'metric'\. Did you mean "
                                        r"'metrics'\?"):
        fs.compare("class ~ .", wine, methods=["fisher"], k=[2], metric="accuracy")
    cmp = fs.compare("class ~ .", wine, methods=["fisher", "mim"], k=[2, 3], cv=2, repeats=1, random_state=0,
                     progress=False)
    for call, wrong, meant in [(cmp.summary, "metrics", "metric"), (cmp.ttest, "refrence", "reference"),
                               (cmp.friedman, "clasifier", "classifier")]:
        with pytest.raises(TypeError, match=rf"unexpected keyword argument '{wrong}'\. Did you mean '{meant}'\?"):
            call(**{wrong: "fisher"})
    with pytest.raises(TypeError, match=r"unknown parameter\(s\) bta; its parameters are: beta.*Did you mean "
                                        r"'beta'\?"):
        fs.select("class ~ .", wine, method="cmqfs", k=2, bta=0.5)

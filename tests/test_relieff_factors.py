"""Factors and missing values in the neighbour methods: ReliefF / RReliefF's nominal diff, ReliefF's
missing-value diff (na_action='pass') and the Laplacian score of a factor's level indicators.

References: the brute-force loops of ``tests/references/similarity.py`` (written from the
definitions of Kononenko 1994 and Robnik-Sikonja & Kononenko 2003, and He, Cai & Niyogi 2005),
never the code under test.
"""
import pickle

import numpy as np
import pandas as pd
import pytest

import fstools as fs
from fstools._ext import _neighbours
from fstools.methods.registry import MethodSpec, check_na_action, get_method, methods_for_na_action, register
from fstools.methods.similarity import laplacian, relieff, rrelieff
from fstools.model.terms import method_design
from references.similarity import laplacian_block_score_ref, relieff_mixed_ref, rrelieff_ref


def _planted(seed=0, n=80, noise=0.1):
    """A four-level factor that decides the class (``noise`` label noise) and two numeric noise columns."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "white"], size=n)
    decides = np.isin(colour, ["red", "green"]) ^ (rng.random(n) < noise)
    return pd.DataFrame({"x1": rng.normal(size=n), "colour": colour, "x2": rng.normal(size=n),
                         "y": np.where(decides, "p", "q")})


def _reference_arrays(df, columns=("x1", "colour", "x2")):
    """The frame's predictors as numbers (a factor as arbitrary level codes, NaN where missing),
    the nominal flags and the class codes, built with pandas only."""
    nominal = np.array([not pd.api.types.is_numeric_dtype(df[c]) for c in columns])
    X = np.column_stack([pd.factorize(df[c])[0].astype(float) if flag else df[c].to_numpy(float)
                         for c, flag in zip(columns, nominal)])
    for j, c in enumerate(columns):
        if nominal[j]:
            X[df[c].isna().to_numpy(), j] = np.nan
    y = pd.factorize(df["y"], sort=True)[0]
    return X, nominal, y


# --------------------------------------------------------------------------- the kernel

@pytest.mark.parametrize("metric", ["manhattan", "sqeuclidean"])
def test_kernel_nominal_diff_in_the_distances(metric):
    rng = np.random.default_rng(1)
    n = 150
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 4, n), rng.normal(size=n), rng.integers(0, 3, n),
                         rng.normal(size=(n, 5))])
    nominal = np.zeros(X.shape[1], dtype=np.uint8)
    nominal[[1, 3]] = 1
    code = _neighbours.METRIC_MANHATTAN if metric == "manhattan" else _neighbours.METRIC_SQEUCLIDEAN
    labels = rng.integers(0, 2, n).astype(np.int32)
    k = 4
    outputs = []
    for function in ("class_neighbours", "all_class_neighbours"):
        index = np.zeros((n, 2, k), dtype=np.intp)
        distance = np.zeros((n, 2, k))
        count = np.zeros((n, 2), dtype=np.intp)
        features = np.ascontiguousarray(X.T)
        if function == "class_neighbours":
            _neighbours.class_neighbours(features, labels, 2, np.arange(n, dtype=np.intp), k, code, index,
                                         distance, count, 2, nominal=nominal)
        else:
            _neighbours.all_class_neighbours(features, labels, 2, k, code, index, distance, count, 2,
                                             nominal=nominal)
        outputs.append((index, distance))
    np.testing.assert_array_equal(outputs[0][0], outputs[1][0])
    np.testing.assert_array_equal(outputs[0][1], outputs[1][1])
    index, distance = outputs[0]
    for i in (0, 17, 99):
        pair = np.abs(X[i] - X)
        pair[:, [1, 3]] = pair[:, [1, 3]] != 0
        brute = (pair ** 2 if metric == "sqeuclidean" else pair).sum(axis=1)
        for c in range(2):
            candidates = [j for j in range(n) if j != i and labels[j] == c]
            expected = sorted(candidates, key=lambda j: (brute[j], j))[:k]
            assert list(index[i, c]) == expected
            np.testing.assert_allclose(distance[i, c], brute[expected], rtol=1e-12)


def test_kernel_refuses_tables_of_the_wrong_shape():
    features = np.zeros((2, 5))
    labels = np.zeros(5, dtype=np.int32)
    out = (np.zeros((5, 1, 2), dtype=np.intp), np.zeros((5, 1, 2)), np.zeros((5, 1), dtype=np.intp))
    with pytest.raises(ValueError, match="nominal"):
        _neighbours.all_class_neighbours(features, labels, 1, 2, _neighbours.METRIC_MANHATTAN, *out,
                                         nominal=np.zeros(3, dtype=np.uint8))
    with pytest.raises(ValueError, match="known_diff, both_diff"):
        _neighbours.all_class_neighbours(features, labels, 1, 2, _neighbours.METRIC_MANHATTAN, *out,
                                         missing_slot=np.array([0, -1]))
    with pytest.raises(ValueError, match="known_diff: expected shape"):
        _neighbours.all_class_neighbours(features, labels, 1, 2, _neighbours.METRIC_MANHATTAN, *out,
                                         missing_slot=np.array([0, -1]), known_diff=np.zeros((1, 1, 4)),
                                         both_diff=np.zeros((1, 1, 1)))


# --------------------------------------------------------------------------- ReliefF on arrays

def test_relieff_nominal_diff_equals_the_brute_force_reference():
    df = _planted(seed=2, n=70, noise=0.2)
    X, nominal, y = _reference_arrays(df)
    got = relieff(X, y, nominal=nominal)
    np.testing.assert_allclose(got.scores, relieff_mixed_ref(X, y, nominal), rtol=1e-10, atol=1e-12)


def test_relieff_missing_value_diff_equals_the_brute_force_reference():
    rng = np.random.default_rng(3)
    df = _planted(seed=3, n=70, noise=0.2)
    df["x3"] = rng.integers(0, 3, len(df)).astype(float)     # few distinct numeric values: ties in the diffs
    X, nominal, y = _reference_arrays(df, ("x1", "colour", "x2", "x3"))
    for column, rows in ((0, [1, 5, 9, 40]), (1, [2, 5, 30, 31, 32]), (3, [7, 8])):
        X[rows, column] = np.nan
    got = relieff(X, y, n_neighbors=5, nominal=nominal)
    np.testing.assert_allclose(got.scores, relieff_mixed_ref(X, y, nominal, n_neighbors=5), rtol=1e-10,
                               atol=1e-12)
    assert any("missing value" in note for note in got.notes)


def test_relieff_missing_values_of_a_class_with_no_known_value_use_all_known_values():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 2))
    y = np.repeat([0, 1], 20)
    X[y == 1, 0] = np.nan                                    # class 1 has no known value of column 0
    nominal = np.zeros(2, dtype=bool)
    np.testing.assert_allclose(relieff(X, y, n_neighbors=4).scores,
                               relieff_mixed_ref(X, y, nominal, n_neighbors=4), rtol=1e-10, atol=1e-12)


def test_relieff_refuses_a_column_without_known_values_and_bad_nominal_flags():
    X = np.random.default_rng(0).normal(size=(20, 3))
    y = np.repeat([0, 1], 10)
    X[:, 1] = np.nan
    with pytest.raises(ValueError, match=r"column\(s\) 1 have no known value"):
        relieff(X, y)
    X[:, 1] = 0.5
    with pytest.raises(ValueError, match="nominal: column.*1.*not integer level codes"):
        relieff(X, y, nominal=np.array([False, True, False]))
    with pytest.raises(ValueError, match="nominal: must be a boolean array with one flag per column"):
        relieff(X, y, nominal=np.array([True]))


def test_rrelieff_nominal_diff_equals_the_brute_force_reference():
    df = _planted(seed=5, n=60)
    X, nominal, _ = _reference_arrays(df)
    response = np.where(np.isin(df["colour"], ["red", "green"]), 2.0, 0.0) + df["x1"].to_numpy() * 0.3
    got = rrelieff(X, response, nominal=nominal)
    np.testing.assert_allclose(got.scores, rrelieff_ref(X, response, nominal=nominal)[0], rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------- fs.select

def test_select_relieff_ranks_a_deciding_factor_first_with_the_reference_score():
    df = _planted(seed=6, n=80)
    res = fs.select("y ~ .", df, method="relieff", k=1)
    assert res.selected == ["colour"]
    assert res.scores.index[0] == "colour"
    assert "term_column" not in res.scores.columns                   # one column per term
    X, nominal, y = _reference_arrays(df)
    expected = pd.Series(relieff_mixed_ref(X, y, nominal), index=["x1", "colour", "x2"])
    np.testing.assert_allclose(res.scores["score"], expected[res.scores.index], rtol=1e-10, atol=1e-12)


def test_select_relieff_scored_a_factor_zero_through_its_dummies_before():
    """The fault this fixes: by its best dummy, a factor whose levels split the classes 2 + 2 is weak."""
    df = _planted(seed=7, n=80, noise=0.0)
    X, nominal, y = _reference_arrays(df)
    by_codes = relieff(X, y, nominal=nominal).scores[1]
    assert by_codes == pytest.approx(1.0)                     # every hit the same level, every miss another
    assert fs.select("y ~ .", df, method="relieff").scores.loc["colour", "score"] == pytest.approx(by_codes)


def test_select_relieff_na_action_pass_uses_incomplete_rows():
    df = _planted(seed=8, n=70, noise=0.2)
    df.loc[[1, 4, 9], "x1"] = np.nan
    df.loc[[2, 4, 33], "colour"] = None
    df.loc[11, "y"] = None                                     # a missing response is still dropped
    before = df.copy()
    res = fs.select("y ~ .", df, method="relieff", na_action="pass", n_neighbors=5)
    pd.testing.assert_frame_equal(df, before)                   # the user's frame is not modified
    assert res.n_dropped == 1 and res.n == len(df) - 1
    complete = df.drop(index=11)
    X, nominal, y = _reference_arrays(complete)
    expected = pd.Series(relieff_mixed_ref(X, y, nominal, n_neighbors=5), index=["x1", "colour", "x2"])
    np.testing.assert_allclose(res.scores["score"], expected[res.scores.index], rtol=1e-10, atol=1e-12)
    assert res.selected[0] == "colour"
    assert "na_action='pass'" in res.call
    pickle.loads(pickle.dumps(res))
    res.summary()                                               # marginal tests on the complete rows
    # The default still drops the incomplete rows.
    dropped = fs.select("y ~ .", df, method="relieff", n_neighbors=5)
    assert dropped.n_dropped == 6 and dropped.n == len(df) - 6


def test_select_relieff_na_action_pass_with_a_pandas_categorical():
    df = _planted(seed=9, n=60, noise=0.2)
    df.loc[[3, 8], "colour"] = None
    as_category = df.assign(colour=df["colour"].astype("category"))
    by_text = fs.select("y ~ .", df, method="relieff", na_action="pass")
    by_category = fs.select("y ~ .", as_category, method="relieff", na_action="pass")
    pd.testing.assert_series_equal(by_text.scores["score"], by_category.scores["score"])


def test_na_action_pass_is_refused_for_a_method_that_needs_complete_rows():
    df = _planted(n=40)
    with pytest.raises(ValueError, match=r"method 'mim' takes 'drop', 'raise', 'level'; na_action='pass' is taken "
                                         r"by .*relieff"):
        fs.select("y ~ .", df, method="mim", na_action="pass")
    with pytest.raises(ValueError, match=r"na_action: must be one of .*Did you mean 'pass'"):
        fs.select("y ~ .", df, method="relieff", na_action="pas")
    assert "relieff" in methods_for_na_action("pass")
    check_na_action(get_method("fisher"), "drop")


def test_list_methods_says_which_methods_use_incomplete_rows():
    table = fs.list_methods().set_index("name")
    assert table.loc["relieff", "na_action"] == "drop, raise, pass"
    assert table.loc["cmqfs", "na_action"] == "drop, raise"


def test_registry_refuses_unknown_factor_modes_and_missing_values():
    base = dict(name="not_registered", description="", function=relieff)
    with pytest.raises(ValueError, match="factors: must be one of dummies, codes, nominal"):
        register(MethodSpec(factors="levels", **base))
    with pytest.raises(ValueError, match="missing: unknown na_action"):
        register(MethodSpec(missing=frozenset({"impute"}), **base))


def test_permutation_test_of_relieff_tests_the_shown_score():
    df = _planted(seed=10, n=50)
    res = fs.select("y ~ .", df, method="relieff", k=1, test="permutation", n_permutations=9, permutation_seed=0)
    np.testing.assert_allclose(res.permutation["observed"][res.scores.index], res.scores["score"], rtol=1e-12)


def test_method_design_flags_the_factor_columns_and_keeps_missing_values():
    X = np.array([[0, 0, 1.5], [1, 0, np.nan], [0, 1, 2.0], [np.nan, np.nan, 3.0], [0, 0, 4.0]])
    coded, names, terms, _, keywords = method_design(get_method("relieff"), X, ["c[T.b]", "c[T.c]", "x"],
                                                     ["c", "c", "x"], na_action="pass")
    nominal = keywords["nominal"]
    assert names == ["c", "x"] and terms == ["c", "x"]
    assert list(nominal) == [True, False]
    assert np.isnan(coded[3, 0]) and np.isnan(coded[1, 1])
    codes = coded[[0, 1, 2, 4], 0]
    assert codes[0] == codes[3] and len({codes[0], codes[1], codes[2]}) == 3


# --------------------------------------------------------------------------- the Laplacian score

def test_laplacian_scores_a_factor_by_its_level_indicators():
    rng = np.random.default_rng(11)
    n = 60
    colour = rng.choice(["red", "green", "blue"], size=n)
    df = pd.DataFrame({"x1": rng.normal(size=n), "colour": colour, "x2": rng.normal(size=n) * 0.5})
    res = fs.select("~ .", df, method="laplacian", k=2)
    assert len(res.selected) == 2 and "term_column" not in res.scores.columns
    indicators = (colour[:, None] == np.array(["blue", "green", "red"])[None, :]).astype(float)
    numeric_ref, block_ref = laplacian_block_score_ref(df[["x1", "x2"]].to_numpy(), [indicators])
    np.testing.assert_allclose(res.scores.loc["colour", "score"], block_ref[0], rtol=1e-9)
    np.testing.assert_allclose(res.scores.loc[["x1", "x2"], "score"], numeric_ref, rtol=1e-9)


def test_laplacian_of_a_two_level_factor_equals_that_of_its_dummy():
    rng = np.random.default_rng(12)
    X = np.column_stack([rng.normal(size=50), rng.integers(0, 2, 50), rng.normal(size=50)]).astype(float)
    as_factor = laplacian(X, nominal=np.array([False, True, False])).scores
    as_dummy = laplacian(X).scores
    np.testing.assert_allclose(as_factor, as_dummy, rtol=1e-12)


def test_stability_ranks_what_select_ranks_under_na_action_pass_and_compare_refuses_it():
    df = _planted(seed=13, n=80)
    df.loc[[2, 7], "colour"] = None
    df.loc[[4], "x1"] = np.nan
    res = fs.select("y ~ .", df, method="relieff", k=1, na_action="pass")
    result = fs.stability("y ~ .", df, "relieff", k=1, n_bootstrap=3, random_state=0, na_action="pass",
                          progress=False)
    assert result.full_selection == res.selected and result.n == len(df)
    with pytest.raises(ValueError, match="standardize: na_action='pass'"):
        fs.stability("y ~ .", df, "relieff", k=1, na_action="pass", standardize=True, progress=False)
    with pytest.raises(ValueError, match="na_action: compare takes 'drop' or 'raise'; 'pass'"):
        fs.compare("y ~ .", df, methods=["relieff"], na_action="pass", progress=False)

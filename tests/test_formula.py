"""Tests of fstools.model.formula: R-style formulas on DataFrames through patsy.

Expected values are computed here with numpy/pandas directly, never taken from
the module's own output.
"""

import re

import numpy as np
import pandas as pd
import pytest

from fstools.model.exceptions import FormulaError
from fstools.model.formula import ModelFrame, format_formula, parse_formula, term_frame


# ---------------------------------------------------------------------------
# Helpers and data
# ---------------------------------------------------------------------------


def formula_message(formula, problem):
    """Regex: the message starts with the quoted formula, then the problem."""
    return "^" + re.escape(f"formula {formula!r}: ") + ".*" + problem


def design_column(mf, name):
    """The design column called ``name`` (fails if it is absent)."""
    assert name in mf.column_names, (name, mf.column_names)
    return mf.X[:, mf.column_names.index(name)]


def indicator(values, level):
    """1.0 where values == level, else 0.0 (treatment coding by hand)."""
    return (np.asarray(values, dtype=object) == level).astype(np.float64)


@pytest.fixture
def mixed():
    """Numeric, string and category predictors, numeric response."""
    return pd.DataFrame(
        {
            "y": [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0],
            "a": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5],
            "colour": ["red", "blue", "green", "red", "blue", "red", "green", "blue"],
            "size": pd.Categorical(
                ["small", "large", "medium", "small", "large", "medium", "small", "large"],
                categories=["small", "medium", "large"],
            ),
            "b": [2.0, 1.0, 4.0, 3.0, 6.0, 5.0, 8.0, 7.0],
        },
        index=[f"r{i}" for i in range(8)],
    )


@pytest.fixture
def numeric():
    """Positive numeric predictors and an integer column with three values."""
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "y": rng.normal(size=10),
            "a": rng.normal(size=10),
            "b": rng.normal(size=10),
            "c": rng.uniform(0.5, 3.0, size=10),
            "x": [1, 2, 3, 1, 2, 3, 1, 2, 3, 1],
        }
    )


@pytest.fixture
def odd_names():
    """Column names that are not Python identifiers."""
    return pd.DataFrame(
        {
            "y": [0, 1, 0, 1, 1, 0],
            "my col": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            "1st": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0],
            "a-b": [1.0, 0.0, 2.0, 0.0, 3.0, 0.0],
        }
    )


# ---------------------------------------------------------------------------
# The '.' expansion and term mapping
# ---------------------------------------------------------------------------


def test_dot_with_string_and_category_columns(mixed):
    mf = parse_formula("y ~ .", mixed)

    assert isinstance(mf, ModelFrame)
    assert mf.formula == "y ~ ."
    assert mf.response_names == ["y"]
    # Terms are the variable names, every non-response column exactly once.
    assert sorted(mf.terms) == ["a", "b", "colour", "size"]
    assert "Intercept" not in mf.column_names
    assert "Intercept" not in mf.terms

    # Design matrix: float64, C-contiguous, one column per design name.
    assert mf.X.dtype == np.float64
    assert mf.X.flags.c_contiguous
    assert mf.X.shape == (len(mixed), len(mf.column_names))
    assert len(mf.column_terms) == mf.X.shape[1]

    # Treatment coding, reference = first level (sorted strings, category order).
    expected = {
        "colour[T.green]": ("colour", indicator(mixed["colour"], "green")),
        "colour[T.red]": ("colour", indicator(mixed["colour"], "red")),
        "size[T.medium]": ("size", indicator(mixed["size"], "medium")),
        "size[T.large]": ("size", indicator(mixed["size"], "large")),
        "a": ("a", mixed["a"].to_numpy()),
        "b": ("b", mixed["b"].to_numpy()),
    }
    assert sorted(mf.column_names) == sorted(expected)
    for name, (term, values) in expected.items():
        np.testing.assert_allclose(design_column(mf, name), values)
        assert mf.column_terms[mf.column_names.index(name)] == term

    # column_terms follows the order of terms (design order, contiguous blocks).
    blocks = []
    for term in mf.column_terms:
        if not blocks or blocks[-1] != term:
            blocks.append(term)
    assert blocks == mf.terms

    pd.testing.assert_frame_equal(mf.response, mixed[["y"]])
    pd.testing.assert_index_equal(mf.row_index, mixed.index)
    assert mf.n_dropped == 0


def test_dot_minus_terms(mixed):
    mf = parse_formula("y ~ . - a - b", mixed)
    assert sorted(mf.terms) == ["colour", "size"]
    assert set(mf.column_terms) == {"colour", "size"}
    assert mf.X.shape == (8, 4)


def test_dot_order_follows_dataframe_for_numeric_columns(numeric):
    mf = parse_formula("y ~ .", numeric)
    assert mf.terms == ["a", "b", "c", "x"]
    np.testing.assert_allclose(mf.X, numeric[["a", "b", "c", "x"]].to_numpy(dtype=float))


def test_dot_combined_with_extra_term(numeric):
    mf = parse_formula("y ~ . + np.log(c)", numeric)
    assert sorted(mf.terms) == ["a", "b", "c", "np.log(c)", "x"]
    np.testing.assert_allclose(design_column(mf, "np.log(c)"), np.log(numeric["c"].to_numpy()))


def test_dot_inside_grouping_parentheses(numeric):
    mf = parse_formula("y ~ (. - x)**2", numeric)
    assert mf.terms == ["a", "b", "c", "a:b", "a:c", "b:c"]
    np.testing.assert_allclose(
        design_column(mf, "b:c"), numeric["b"].to_numpy() * numeric["c"].to_numpy()
    )


def test_dot_takes_non_string_column_labels():
    """A column label that is not a string is named by str(label) (it used to be refused)."""
    df = pd.DataFrame({"y": [1.0, 2.0], 0: [1.0, 3.0]})
    mf = parse_formula("y ~ .", df)
    assert mf.terms == ["0"] and mf.column_labels == {"0": 0}


# ---------------------------------------------------------------------------
# Explicit terms
# ---------------------------------------------------------------------------


def test_explicit_terms_and_numpy_log(numeric):
    mf = parse_formula("y ~ a + b + np.log(c)", numeric)
    assert mf.terms == ["a", "b", "np.log(c)"]
    assert mf.column_names == ["a", "b", "np.log(c)"]
    assert mf.column_terms == ["a", "b", "np.log(c)"]
    expected = np.column_stack(
        [numeric["a"].to_numpy(), numeric["b"].to_numpy(), np.log(numeric["c"].to_numpy())]
    )
    np.testing.assert_allclose(mf.X, expected)


def test_C_on_integer_column_is_reported_as_the_column(numeric):
    mf = parse_formula("y ~ C(x) + a", numeric)
    assert sorted(mf.terms) == ["a", "x"]
    assert mf.column_names.count("a") == 1
    x_columns = [name for name, term in zip(mf.column_names, mf.column_terms) if term == "x"]
    assert x_columns == ["C(x)[T.2]", "C(x)[T.3]"]
    np.testing.assert_allclose(design_column(mf, "C(x)[T.2]"), (numeric["x"] == 2).to_numpy(float))
    np.testing.assert_allclose(design_column(mf, "C(x)[T.3]"), (numeric["x"] == 3).to_numpy(float))


def test_interaction_keeps_patsy_name(numeric):
    mf = parse_formula("y ~ a + b + a:b", numeric)
    assert mf.terms == ["a", "b", "a:b"]
    np.testing.assert_allclose(
        design_column(mf, "a:b"), numeric["a"].to_numpy() * numeric["b"].to_numpy()
    )


def test_I_expression(numeric):
    mf = parse_formula("y ~ I(a * 2)", numeric)
    assert mf.terms == ["I(a * 2)"]
    assert mf.column_terms == ["I(a * 2)"]
    np.testing.assert_allclose(mf.X[:, 0], numeric["a"].to_numpy() * 2)


@pytest.mark.parametrize("rhs", ["a + b - 1", "a + b + 0", "0 + a + b", "-1 + a + b"])
def test_intercept_removal_is_accepted_and_changes_nothing(numeric, rhs):
    plain = parse_formula("y ~ a + b", numeric)
    mf = parse_formula(f"y ~ {rhs}", numeric)
    assert mf.terms == plain.terms == ["a", "b"]
    np.testing.assert_array_equal(mf.X, plain.X)


def test_first_categorical_is_treatment_coded_without_intercept(mixed):
    mf = parse_formula("y ~ colour - 1", mixed)
    # Reference level 'blue' has no column, as for every other categorical.
    assert mf.column_names == ["colour[T.green]", "colour[T.red]"]


def test_boolean_predictor_is_categorical():
    df = pd.DataFrame({"y": [1.0, 2.0, 3.0, 4.0], "flag": [True, False, True, True]})
    mf = parse_formula("y ~ flag", df)
    assert mf.terms == ["flag"]
    assert mf.column_names == ["flag[T.True]"]
    np.testing.assert_allclose(mf.X[:, 0], df["flag"].to_numpy(float))


def test_string_response_is_not_encoded():
    df = pd.DataFrame({"label": ["a", "b", "a", "c"], "x": [1.0, 2.0, 3.0, 4.0]})
    mf = parse_formula("label ~ x", df)
    assert mf.response["label"].tolist() == ["a", "b", "a", "c"]
    assert mf.response["label"].dtype == df["label"].dtype
    assert mf.column_names == ["x"]


def test_eval_environment_does_not_see_caller_variables(numeric):
    hidden = np.arange(len(numeric), dtype=float)  # noqa: F841 - must stay invisible
    expected = formula_message("y ~ hidden", "unknown column 'hidden'")
    with pytest.raises(FormulaError, match=expected):
        parse_formula("y ~ hidden", numeric)


def test_infinite_values_do_not_crash():
    df = pd.DataFrame({"y": [1.0, 2.0, 3.0], "a": [1.0, np.inf, -np.inf]})
    mf = parse_formula("y ~ a", df)
    np.testing.assert_array_equal(mf.X[:, 0], df["a"].to_numpy())
    assert mf.n_dropped == 0


def test_nullable_extension_dtypes():
    df = pd.DataFrame(
        {
            "y": pd.array([1.5, 2.5, 3.5, 4.5, 5.5], dtype="Float64"),
            "n": pd.array([1, 2, 3, 4, 5], dtype="Int64"),
            "flag": pd.array([True, False, True, False, True], dtype="boolean"),
            "s": pd.array(["u", "v", "u", "w", "v"], dtype="string"),
        }
    )
    mf = parse_formula("y ~ .", df)
    assert sorted(mf.terms) == ["flag", "n", "s"]
    np.testing.assert_allclose(design_column(mf, "n"), [1.0, 2.0, 3.0, 4.0, 5.0])
    np.testing.assert_allclose(design_column(mf, "flag[T.True]"), [1.0, 0.0, 1.0, 0.0, 1.0])
    np.testing.assert_allclose(design_column(mf, "s[T.w]"), [0.0, 0.0, 0.0, 1.0, 0.0])
    assert mf.response["y"].dtype == df["y"].dtype


def test_duplicated_index_labels_are_kept():
    df = pd.DataFrame({"y": [1.0, 2.0, 3.0, 4.0], "a": [1.0, np.nan, 3.0, 4.0]}, index=[7, 7, 8, 8])
    mf = parse_formula("y ~ a", df)
    assert mf.row_index.tolist() == [7, 8, 8]
    np.testing.assert_allclose(mf.X[:, 0], [1.0, 3.0, 4.0])
    assert mf.response["y"].tolist() == [1.0, 3.0, 4.0]


# ---------------------------------------------------------------------------
# Names that are not identifiers
# ---------------------------------------------------------------------------


def _by_term(mf):
    """{term: its design columns} to compare models written differently."""
    blocks = {}
    for term in mf.terms:
        positions = [i for i, column_term in enumerate(mf.column_terms) if column_term == term]
        blocks[term] = mf.X[:, positions]
    return blocks


@pytest.mark.parametrize(
    "formula",
    [
        "y ~ .",
        'y ~ Q("my col") + Q("1st") + Q("a-b")',
        "y ~ Q('my col') + Q('1st') + Q('a-b')",
        "y ~ `my col` + `1st` + `a-b`",
    ],
)
def test_non_identifier_names(odd_names, formula):
    mf = parse_formula(formula, odd_names)
    assert sorted(mf.terms) == ["1st", "a-b", "my col"]
    columns = _by_term(mf)
    for name in ["my col", "1st", "a-b"]:
        np.testing.assert_allclose(columns[name][:, 0], odd_names[name].to_numpy())


@pytest.mark.parametrize("removal", ["`my col`", 'Q("my col")', "Q('my col')"])
def test_removing_non_identifier_name_from_dot(odd_names, removal):
    mf = parse_formula(f"y ~ . - {removal}", odd_names)
    assert sorted(mf.terms) == ["1st", "a-b"]


def test_backtick_and_Q_responses(odd_names):
    df = odd_names.rename(columns={"y": "the y"})
    for lhs in ["`the y`", 'Q("the y")', "Q('the y')"]:
        mf = parse_formula(f"{lhs} ~ .", df)
        assert mf.response_names == ["the y"]
        assert sorted(mf.terms) == ["1st", "a-b", "my col"]


def test_C_of_backticked_column(odd_names):
    mf = parse_formula("y ~ C(`1st`)", odd_names)
    assert mf.terms == ["1st"]
    assert len(mf.column_names) == 5  # six distinct values, one reference


def test_keyword_and_reserved_column_names_via_dot():
    df = pd.DataFrame(
        {
            "y": [1.0, 2.0, 3.0, 4.0],
            "class": [1.0, 0.0, 1.0, 1.0],
            "C": [3.0, 1.0, 2.0, 5.0],
            "np": [0.0, 1.0, 1.0, 0.0],
        }
    )
    mf = parse_formula("y ~ .", df)
    assert mf.terms == ["class", "C", "np"]
    np.testing.assert_allclose(mf.X, df[["class", "C", "np"]].to_numpy())


def test_r_style_names_written_bare():
    df = pd.DataFrame(
        {
            "Species": ["s", "v", "s", "v", "s"],
            "Sepal.Length": [5.1, 4.9, 4.7, 4.6, 5.0],
            "class": [1.0, 0.0, 1.0, 1.0, 0.0],
            "Intercept": [3.0, 1.0, 4.0, 1.0, 5.0],
        }
    )
    mf = parse_formula("Species ~ Sepal.Length + class + Intercept", df)
    assert mf.terms == ["Sepal.Length", "class", "Intercept"]
    np.testing.assert_allclose(mf.X, df[["Sepal.Length", "class", "Intercept"]].to_numpy())
    mf = parse_formula("Species ~ np.log(`Sepal.Length`)", df)
    np.testing.assert_allclose(mf.X[:, 0], np.log(df["Sepal.Length"].to_numpy()))


# ---------------------------------------------------------------------------
# Several responses
# ---------------------------------------------------------------------------


def test_several_responses(mixed):
    df = mixed.assign(y2=["p", "q", "p", "p", "q", "q", "p", "q"])
    mf = parse_formula("y + y2 ~ .", df)
    assert mf.response_names == ["y", "y2"]
    pd.testing.assert_frame_equal(mf.response, df[["y", "y2"]])
    assert sorted(mf.terms) == ["a", "b", "colour", "size"]
    assert "y2" not in mf.column_terms


@pytest.mark.parametrize("formula", ["y ~ a", "y ~ ."])
def test_response_frame_is_a_copy(mixed, formula):
    """Writing to either side changes only that side (where pandas copies on write, the
    response is the selection itself until then)."""
    original = mixed.copy(deep=True)
    mf = parse_formula(formula, mixed)
    response = mf.response.copy(deep=True)
    mf.response.iloc[0, 0] = 99.0
    pd.testing.assert_frame_equal(mixed, original)
    mf = parse_formula(formula, mixed)
    mixed.iloc[1, mixed.columns.get_loc("y")] = -5.0
    pd.testing.assert_frame_equal(mf.response, response)


# ---------------------------------------------------------------------------
# Missing values
# ---------------------------------------------------------------------------


@pytest.fixture
def with_missing():
    return pd.DataFrame(
        {
            "y": pd.array([1, 0, 1, None, 0, 1, 0, 1], dtype="Int64"),
            "a": [1.0, np.nan, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
            "s": ["u", "v", None, "u", "v", "u", "v", "u"],
            "b": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
            "unused": [np.nan, np.nan, 1.0, 1.0, np.nan, 1.0, 1.0, 1.0],
            "when": pd.to_datetime(
                ["2020-01-01", None, "2020-01-03", "2020-01-04"]
                + ["2020-01-05", "2020-01-06", "2020-01-07", None]
            ),
        },
        index=list("abcdefgh"),
    )


def test_na_rows_are_dropped_and_counted(with_missing):
    mf = parse_formula("y ~ a + s + b", with_missing)
    used = with_missing[["y", "a", "s", "b"]]
    complete = used.notna().all(axis=1)
    assert mf.n_dropped == int((~complete).sum()) == 3
    pd.testing.assert_index_equal(mf.row_index, with_missing.index[complete.to_numpy()])
    np.testing.assert_allclose(design_column(mf, "a"), with_missing.loc[complete, "a"].to_numpy())
    expected_v = indicator(with_missing.loc[complete, "s"], "v")
    np.testing.assert_allclose(design_column(mf, "s[T.v]"), expected_v)
    pd.testing.assert_frame_equal(mf.response, with_missing.loc[complete, ["y"]])
    assert mf.X.shape[0] == len(mf.row_index) == len(mf.response)


def test_unused_columns_do_not_cause_drops(with_missing):
    mf = parse_formula("y ~ b", with_missing)
    assert mf.n_dropped == 1  # only the missing response


def test_nat_in_a_response_is_missing(with_missing):
    mf = parse_formula("when ~ b", with_missing)
    assert mf.n_dropped == int(with_missing["when"].isna().sum()) == 2


def test_rows_where_a_term_evaluates_to_nan_are_dropped():
    df = pd.DataFrame({"y": [1.0, 2.0, 3.0, 4.0], "c": [1.0, -1.0, 2.0, 3.0]})
    with np.errstate(invalid="ignore"):
        mf = parse_formula("y ~ np.log(c)", df)
    assert mf.n_dropped == 1
    np.testing.assert_allclose(mf.X[:, 0], np.log([1.0, 2.0, 3.0]))


def test_na_action_raise(with_missing):
    expected_rows = int(with_missing[["y", "a", "s"]].isna().any(axis=1).sum())
    with pytest.raises(ValueError, match=rf"{expected_rows} of 8 rows.*'y', 'a', 's'") as info:
        parse_formula("y ~ a + s + b", with_missing, na_action="raise")
    assert not isinstance(info.value, FormulaError)
    mf = parse_formula("b ~ unused", with_missing.iloc[2:4], na_action="raise")
    assert mf.n_dropped == 0


def test_na_action_raise_for_evaluated_terms():
    df = pd.DataFrame({"y": [1.0, 2.0, 3.0, 4.0], "c": [1.0, -1.0, 2.0, 3.0]})
    expected = r"1 of 4 rows.*np\.log\(c\)"
    with np.errstate(invalid="ignore"), pytest.raises(ValueError, match=expected):
        parse_formula("y ~ np.log(c)", df, na_action="raise")


@pytest.mark.parametrize("na_action", ["omit", "DROP", None, 1])
def test_unknown_na_action(numeric, na_action):
    with pytest.raises(ValueError, match=r"na_action.*'drop', 'raise'"):
        parse_formula("y ~ a", numeric, na_action=na_action)


def test_all_rows_missing():
    df = pd.DataFrame({"y": [1.0, np.nan, 3.0], "a": [np.nan, 2.0, np.nan]})
    with pytest.raises(ValueError, match="all 3 rows have missing values"):
        parse_formula("y ~ a", df)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "formula, problem",
    [
        ("y ~ zz", "unknown column 'zz'"),
        ("y ~ a + zz", "unknown column 'zz'"),
        ("y ~ np.log(zz)", "unknown column 'zz'"),
        ("y ~ . - zz", "unknown column 'zz'"),
        ('y ~ a + Q("no such")', "unknown column 'no such'"),
        ("y ~ a + `no such`", "unknown column 'no such'"),
        ("zz ~ a", "unknown column 'zz'"),
        ("`no such` ~ a", "unknown column 'no such'"),
        ("y + zz ~ a", "unknown column 'zz'"),
        ("~ a", "no response"),
        (" ~ .", "no response"),
        ("y ~ 1", "no predictors"),
        ("y ~ 0", "no predictors"),
        ("y ~ a - a", "no predictors"),
        ("y ~ ", "no predictors"),
        ("y ~ y + a", "response 'y' also appears on the right"),
        ("y ~ . + np.log(y)", "response 'y' also appears on the right"),
        ("y + a ~ a + b", "response 'a' also appears on the right"),
        ("y ~ a +", "expected a noun"),
        ("y ~ (a + b", r"unclosed '\('"),
        ("y ~ a + b)", r"unmatched '\)'"),
        ("y ~ a ~ b", "one '~'"),
        ("y a", "no '~'"),
        ("", "no '~'"),
        ("y ~ a + 1 2", "invalid expression"),
        ("y ~ a $ b", "error tokenizing"),
        ('y ~ Q("a)', "unclosed quote"),
        ("y ~ `a", "unclosed backtick"),
        ("y ~ C(.)", r"'\.'"),
        ("y ~ a + C(a)", "column 'a'"),
        ("log(y) ~ a", "not a column name"),
        ("y + y ~ a", "given twice"),
    ],
)
def test_formula_errors(numeric, formula, problem):
    with pytest.raises(FormulaError, match=formula_message(formula, problem)):
        parse_formula(formula, numeric)


def test_formula_error_is_a_value_error(numeric):
    with pytest.raises(ValueError):
        parse_formula("y ~ zz", numeric)


def test_dot_leaving_nothing():
    df = pd.DataFrame({"y": [1.0, 2.0], "a": [1.0, 2.0], "b": [3.0, 4.0]})
    with pytest.raises(FormulaError, match=formula_message("y ~ . - a - b", "no predictors")):
        parse_formula("y ~ . - a - b", df)
    with pytest.raises(FormulaError, match=formula_message("y + a + b ~ .", "no predictors")):
        parse_formula("y + a + b ~ .", df)


def test_patsy_evaluation_error_is_a_formula_error(mixed):
    with pytest.raises(FormulaError, match=formula_message("y ~ np.log(colour)", "np.log")):
        parse_formula("y ~ np.log(colour)", mixed)


def test_unknown_column_suggests_a_close_name(numeric):
    with pytest.raises(FormulaError, match="did you mean 'c'"):
        parse_formula("y ~ cc", numeric)


@pytest.mark.parametrize("formula", [None, 3, ["y ~ a"], b"y ~ a"])
def test_formula_must_be_a_string(numeric, formula):
    with pytest.raises(TypeError, match="formula must be a string"):
        parse_formula(formula, numeric)


@pytest.mark.parametrize("data", [None, {"y": [1.0], "a": [2.0]}, np.ones((3, 2))])
def test_data_must_be_a_dataframe(data):
    with pytest.raises(TypeError, match="data must be a pandas DataFrame"):
        parse_formula("y ~ a", data)


def test_data_without_rows():
    df = pd.DataFrame({"y": pd.Series([], dtype=float), "a": pd.Series([], dtype=float)})
    with pytest.raises(ValueError, match="data has no rows"):
        parse_formula("y ~ a", df)


def test_duplicated_column_names():
    df = pd.DataFrame([[1.0, 2.0, 3.0]], columns=["y", "a", "a"])
    with pytest.raises(ValueError, match="duplicated column names: 'a'"):
        parse_formula("y ~ a", df)


@pytest.mark.parametrize(
    "values",
    [
        pd.date_range("2021-01-01", periods=4),
        pd.date_range("2021-01-01", periods=4, tz="UTC"),
        pd.to_timedelta([1, 2, 3, 4], unit="D"),
        pd.period_range("2021-01", periods=4, freq="M"),
        np.array([1 + 1j, 2, 3, 4]),
    ],
)
def test_unsupported_predictor_dtypes(values):
    df = pd.DataFrame({"y": [1.0, 2.0, 3.0, 4.0], "bad": values, "a": [1.0, 2.0, 3.0, 4.0]})
    allowed = "numeric, boolean, categorical/string"
    for formula in ["y ~ bad", "y ~ ."]:
        with pytest.raises(TypeError, match=r"column 'bad'.*" + re.escape(allowed)):
            parse_formula(formula, df)
    # Removing the column makes the formula usable again.
    assert parse_formula("y ~ . - bad", df).terms == ["a"]


# ---------------------------------------------------------------------------
# format_formula
# ---------------------------------------------------------------------------


def test_format_formula_example():
    assert format_formula(["class"], ["alcohol", "my col"]) == "class ~ alcohol + `my col`"


def test_format_formula_several_responses_and_quoting():
    text = format_formula(["y1", "y 2"], ["a", "1st", "lambda", "C", "we`ird"])
    assert text == "y1 + `y 2` ~ a + `1st` + `lambda` + `C` + `we\\`ird`"


def test_format_formula_without_terms():
    assert format_formula(["y"], []) == "y ~ 1"


@pytest.mark.parametrize(
    "responses, terms",
    [("y", ["a"]), (["y"], "a"), ([None], ["a"]), ([["y"]], ["a"]), (["y"], [None])],
)
def test_format_formula_argument_types(responses, terms):
    with pytest.raises(TypeError):
        format_formula(responses, terms)


def test_format_formula_without_a_response_is_one_sided():
    assert format_formula([], ["a", "my b"]) == "~ a + `my b`"
    assert format_formula([], []) == "~ 1"


def test_format_formula_round_trip():
    names = ["class", "alcohol", "my col", "1st", "a-b", "C", "lambda", "we`ird", "back\\slash"]
    names += ["np", "Sepal.Length", "Intercept"]
    rng = np.random.default_rng(1)
    df = pd.DataFrame({name: rng.normal(size=6) for name in names})
    df["label"] = ["a", "b", "a", "b", "a", "b"]
    terms = [name for name in names if name != "class"]

    text = format_formula(["class", "label"], terms)
    mf = parse_formula(text, df)
    assert mf.response_names == ["class", "label"]
    assert sorted(mf.terms) == sorted(terms)
    for name in terms:
        position = mf.column_terms.index(name)
        np.testing.assert_allclose(mf.X[:, position], df[name].to_numpy())


# ---------------------------------------------------------------------------
# term_frame
# ---------------------------------------------------------------------------


def test_term_frame_on_new_data(mixed):
    df = mixed.assign(c=mixed["a"] + 1.0)
    mf = parse_formula("y ~ colour + size + np.log(c) + C(b) + a:b", df)
    assert sorted(mf.terms) == ["a:b", "b", "colour", "np.log(c)", "size"]

    new = pd.DataFrame(
        {
            "colour": ["blue", "red", "green"],
            "size": pd.Categorical(
                ["large", "small", "large"], categories=["small", "medium", "large"]
            ),
            "a": [1.0, 2.0, 3.0],
            "b": [2.0, 4.0, 8.0],
            "c": [1.0, np.e, 10.0],
        },
        index=["p", "q", "r"],
    )
    frame = term_frame(mf, ["size", "np.log(c)", "colour", "b", "a:b"], new)

    assert list(frame.columns) == ["size", "np.log(c)", "colour", "b", "a:b"]
    pd.testing.assert_index_equal(frame.index, new.index)
    pd.testing.assert_series_equal(frame["size"], new["size"])
    assert isinstance(frame["size"].dtype, pd.CategoricalDtype)
    pd.testing.assert_series_equal(frame["colour"], new["colour"])
    pd.testing.assert_series_equal(frame["b"], new["b"])  # C(b) gives the raw column
    np.testing.assert_allclose(frame["np.log(c)"].to_numpy(), np.log(new["c"].to_numpy()))
    np.testing.assert_allclose(frame["a:b"].to_numpy(), new["a"].to_numpy() * new["b"].to_numpy())


def test_term_frame_categorical_interaction_columns(mixed):
    mf = parse_formula("y ~ colour:a", mixed)
    frame = term_frame(mf, ["colour:a"], mixed)
    assert list(frame.columns) == mf.column_names
    np.testing.assert_allclose(frame.to_numpy(), mf.X)
    # Without a colour main effect patsy codes every level (full rank).
    assert mf.column_names == ["colour[blue]:a", "colour[green]:a", "colour[red]:a"]
    expected_red = indicator(mixed["colour"], "red") * mixed["a"].to_numpy()
    np.testing.assert_allclose(frame["colour[red]:a"].to_numpy(), expected_red)


def test_term_frame_missing_values_give_nan(numeric):
    mf = parse_formula("y ~ a + np.log(c)", numeric)
    new = pd.DataFrame({"a": [1.0, np.nan], "c": [np.nan, 4.0]})
    frame = term_frame(mf, ["a", "np.log(c)"], new)
    assert np.isnan(frame.loc[0, "np.log(c)"])
    np.testing.assert_allclose(frame.loc[1, "np.log(c)"], np.log(4.0))
    assert np.isnan(frame.loc[1, "a"])


def test_term_frame_unknown_term(numeric):
    mf = parse_formula("y ~ a + b", numeric)
    with pytest.raises(ValueError, match=r"unknown term\(s\) 'zz'.*'a', 'b'"):
        term_frame(mf, ["a", "zz"], numeric)


def test_term_frame_missing_columns(numeric):
    mf = parse_formula("y ~ a + np.log(c)", numeric)
    with pytest.raises(ValueError, match=r"no column\(s\) 'a', 'c'"):
        term_frame(mf, ["a", "np.log(c)"], numeric[["b"]])


def test_term_frame_repeated_term(numeric):
    mf = parse_formula("y ~ a + b", numeric)
    with pytest.raises(ValueError, match="more than once"):
        term_frame(mf, ["a", "a"], numeric)


# ---------------------------------------------------------------------------
# The caller's data is never modified
# ---------------------------------------------------------------------------


def test_input_frame_is_unchanged(with_missing, mixed, odd_names):
    frames = {"with_missing": with_missing, "mixed": mixed, "odd_names": odd_names}
    copies = {name: frame.copy(deep=True) for name, frame in frames.items()}

    parse_formula("y ~ a + s + b", with_missing)
    with pytest.raises(ValueError):
        parse_formula("y ~ a + s", with_missing, na_action="raise")
    mf = parse_formula("y ~ . - when - unused", with_missing)
    term_frame(mf, mf.terms, with_missing)
    mf = parse_formula("y ~ . + np.log(a)", mixed)
    term_frame(mf, mf.terms, mixed)
    parse_formula("y ~ `my col` + Q('1st') + `a-b`", odd_names)
    parse_formula("y ~ .", odd_names)

    for name, frame in frames.items():
        pd.testing.assert_frame_equal(frame, copies[name])


def test_dot_with_thousands_of_columns():
    """R's '.' over a wide frame (microarray shape) keeps every column, in order."""
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(rng.normal(size=(5, 3000)), columns=[f"g{j}" for j in range(3000)])
    wide["y"] = ["a", "b", "a", "b", "a"]
    mf = parse_formula("y ~ .", wide)
    assert mf.terms == [f"g{j}" for j in range(3000)]
    np.testing.assert_array_equal(mf.X, wide.drop(columns="y").to_numpy())
    mf = parse_formula("y ~ . - g5", wide)
    assert "g5" not in mf.terms and len(mf.terms) == 2999


def test_plain_numeric_fast_path_equals_patsy_path():
    """Formulas of plain numeric columns skip patsy's evaluation; the result is the same."""
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.normal(size=30), "my col": rng.integers(0, 5, 30),
                       "s": rng.choice(["u", "v"], 30), "y": rng.integers(0, 2, 30)})
    df.loc[[2, 7], "a"] = np.nan
    fast = parse_formula("y ~ a + `my col`", df)
    slow = parse_formula("y ~ a + `my col` + s", df)       # a string column needs patsy
    assert fast.design_info is None and slow.design_info is not None
    assert fast.terms == ["a", "my col"]
    assert fast.n_dropped == slow.n_dropped == 2
    pd.testing.assert_index_equal(fast.row_index, slow.row_index)
    owned = [i for i, term in enumerate(slow.column_terms) if term in ("a", "my col")]
    np.testing.assert_array_equal(fast.X, slow.X[:, owned])
    assert fast.column_names == [slow.column_names[i] for i in owned]
    reduced = term_frame(fast, ["my col", "a"], df)
    pd.testing.assert_frame_equal(reduced, df[["my col", "a"]])


# ---------------------------------------------------------------------------
# The safe formula mode: payloads from the Python sandbox-escape literature
# ---------------------------------------------------------------------------

CANARY = "CANARY_PATH"

#: Each payload is the right-hand side of "y ~ ..." on the columns y, a, b; CANARY_PATH is
#: replaced by a file path that must never be created.
PAYLOADS = [
    "a + I(__import__('os').system('touch CANARY_PATH'))",
    "I(__import__('os').system('touch CANARY_PATH') + a)",
    "I(open('CANARY_PATH', 'w').write('x'))",
    "I(eval(\"open('CANARY_PATH', 'w')\"))",
    "I(exec(\"open('CANARY_PATH', 'w')\"))",
    "I(compile('1', 'f', 'eval'))",
    "I(getattr(a, '__class__'))",
    "I(vars())",
    "I(globals())",
    "I(locals())",
    "I(().__class__.__base__.__subclasses__())",
    "I(a.__class__.__mro__[1].__subclasses__())",
    "I(\"{0.__class__}\".format(a))",
    "I('{0.__init__.__globals__}'.format(C))",
    "I((lambda: open('CANARY_PATH', 'w'))())",
    "I((lambda f=open: f('CANARY_PATH', 'w'))())",
    "I((z := open('CANARY_PATH', 'w')))",
    "I(f\"{open('CANARY_PATH', 'w')}\")",
    "a + ｅval(\"open('CANARY_PATH', 'w')\")",
    "I(𝐞𝐱𝐞𝐜(\"open('CANARY_PATH', 'w')\"))",
    "I((x for x in ()).gi_frame.f_globals)",
    "I(np.load('CANARY_PATH'))",
    "I(np.fromfile('CANARY_PATH'))",
    "I(np.save('CANARY_PATH', a))",
    "I(np.lib.format.open_memmap('CANARY_PATH', mode='w+', shape=(1,)))",
    "I(np.memmap('CANARY_PATH', mode='w+', shape=1))",
    "I(np.loadtxt('CANARY_PATH'))",
    "I(np.frompyfunc(eval, 1, 1)('1'))",
    "I(pd.eval('1'))",
    "I(operator.attrgetter('__class__')(a))",
    "I(b'\\x5f\\x5fimport\\x5f\\x5f'.decode())",
    "I(getattr(a, '\\x5f\\x5fclass\\x5f\\x5f'))",
    "I(getattr(a, '\\u005f\\u005fclass\\u005f\\u005f'))",
    "I(np.__dict__)",
    "I(np.os.system('touch CANARY_PATH'))",
    "I(C.__globals__)",
    "I(Q.__globals__['__builtins__'])",
    "I(Q('__builtins__'))",
    "I(np.log.__self__)",
    "I(breakpoint())",
    "I(__builtins__)",
    "I([x for x in (1,)])",
    "I({}.keys())",
    "I(a[0])",
    "I(type(a))",
    "I(a @ b)",
    "I(print('x'))",
    "I(a if open('CANARY_PATH', 'w') else b)",
    "I(exp(a).__reduce__())",
    "log(a, base=__import__('os'))",
    "C(a, levels=__import__('os').listdir('/'))",
    "C(a, Treatment(open('CANARY_PATH', 'w')))",
    "poly(a, degree=eval('2'))",
    "I(*a)",
    "I(\"__import__\")",
    "a # comment",
    "a + b - I(exec('1'))",
    "a:I(exec('1'))",
    "(a + I(exec('1')))^2",
    "I(np.log(a).__class__)",
    "I(np.log(a)).__class__",
]


def _payload_formula(payload, canary):
    return "y ~ " + payload.replace(CANARY, str(canary))


@pytest.fixture
def payload_data():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"y": rng.integers(0, 2, 12), "a": rng.uniform(1, 2, 12),
                         "b": rng.normal(size=12)})


def test_payload_battery_is_large():
    assert len(PAYLOADS) >= 30 and len(set(PAYLOADS)) == len(PAYLOADS)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_safe_mode_refuses_payload_with_a_message(payload, payload_data, tmp_path):
    canary = tmp_path / "canary"
    formula = _payload_formula(payload, canary)
    with pytest.raises(FormulaError) as info:
        parse_formula(formula, payload_data)  # the safe mode is the default
    message = str(info.value)
    assert message.startswith(f"formula {formula!r}: ")
    # Refused by the safe mode's checks, or earlier, before evaluation, as not a formula at all.
    assert any(reason in message for reason in ("safe formula mode", "error tokenizing",
                                                "unknown column")), message
    assert not canary.exists()


def test_no_payload_ran_anything(payload_data, tmp_path, monkeypatch):
    """Every payload through the Python API and the command line: no canary file appears,
    and neither os.system nor open nor eval is called."""
    import builtins
    import os

    import fstools as fs
    from fstools.cli import main

    calls = []
    monkeypatch.setattr(os, "system", lambda *args: calls.append(("system", args)) or 0)
    real_open = builtins.open

    def watched_open(file, *args, **kwargs):
        if "canary" in str(file):
            calls.append(("open", file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", watched_open)
    csv = tmp_path / "data.csv"
    payload_data.to_csv(csv, index=False)
    canary = tmp_path / "canary"
    for payload in PAYLOADS:
        formula = _payload_formula(payload, canary)
        with pytest.raises(FormulaError):
            fs.select(formula, payload_data, method="fisher", k=1)
        assert main(["select", formula, "--data", str(csv), "--method", "fisher", "-k", "1"]) == 2
    assert not canary.exists()
    assert calls == []


def test_code_mode_evaluates_python(payload_data):
    formula = "y ~ a + I(np.where(a > 1.5, 1.0, 0.0))"
    with pytest.raises(FormulaError, match="safe formula mode"):
        parse_formula(formula, payload_data)
    mf = parse_formula(formula, payload_data, formula_mode="code")
    np.testing.assert_array_equal(mf.X[:, 1], np.where(payload_data["a"] > 1.5, 1.0, 0.0))
    assert mf.formula_mode == "code"


@pytest.mark.parametrize("mode", ["unsafe", "", None, True, "SAFE"])
def test_unknown_formula_mode(payload_data, mode):
    with pytest.raises(ValueError, match="formula_mode: must be one of 'safe', 'code'"):
        parse_formula("y ~ a", payload_data, formula_mode=mode)


@pytest.mark.parametrize("formula_mode", ["safe", "code"])
@pytest.mark.parametrize("rhs", ["log(a)", "exp(b)", "sqrt(a)", "abs(b)", "log(a, 2)", "np.log(a)",
                                 "log10(a) + log2(a)", "scale(b)", "center(b)", "standardize(b)"])
def test_r_functions_in_both_modes(payload_data, rhs, formula_mode):
    mf = parse_formula(f"y ~ {rhs}", payload_data, formula_mode=formula_mode)
    assert mf.X.shape[0] == len(payload_data) and np.isfinite(mf.X).all()


def test_term_frame_keeps_the_mode_of_the_model_frame(payload_data):
    import dataclasses

    mf = parse_formula("y ~ I(np.where(a > 1.5, 1.0, 0.0))", payload_data, formula_mode="code")
    frame = term_frame(mf, mf.terms, payload_data)
    np.testing.assert_array_equal(frame.to_numpy()[:, 0], mf.X[:, 0])
    # The same terms marked safe are checked again before anything evaluates them.
    tampered = dataclasses.replace(mf, formula_mode="safe")
    with pytest.raises(FormulaError, match="safe formula mode"):
        term_frame(tampered, mf.terms, payload_data)


def test_safe_mode_allows_what_formulas_need(odd_names):
    data = odd_names.assign(a=[0.5, -1.0, 2.0, 3.0, -0.5, 1.5], g=list("uvwuvw"))
    formula = ('y ~ a + `my col` + Q("1st") + C(`a-b`, Treatment(2)) + I((a - 1)^2 / 2) + '
               'np.log1p(abs(a)) + poly(a, 2) + I(a > 0) + scale(a, center=TRUE, scale=FALSE) + '
               'C(g, Treatment("v")) + factor(g):a')
    safe = parse_formula(formula, data)
    code = parse_formula(formula, data, formula_mode="code")
    assert safe.terms == code.terms
    np.testing.assert_array_equal(safe.X, code.X)


# ---------------------------------------------------------------------------
# R's formula language
# ---------------------------------------------------------------------------


def test_caret_inside_I_is_a_power_on_integers(numeric):
    mf = parse_formula("y ~ I(x^2) + I(a^3)", numeric)
    np.testing.assert_array_equal(mf.X[:, 0], numeric["x"].to_numpy() ** 2)  # never XOR
    np.testing.assert_allclose(mf.X[:, 1], numeric["a"].to_numpy() ** 3)
    assert mf.terms == ["I(x ** 2)", "I(a ** 3)"]


def test_caret_between_terms_is_r_crossing(numeric):
    crossed = parse_formula("y ~ (a + b + c)^2", numeric)
    assert crossed.terms == ["a", "b", "c", "a:b", "a:c", "b:c"]
    assert parse_formula("y ~ (a + b + c)**2", numeric).terms == crossed.terms
    assert parse_formula("y ~ (. - x)^2", numeric).terms == crossed.terms


def test_scale_divides_by_the_n_minus_1_standard_deviation(numeric):
    mf = parse_formula("y ~ scale(a)", numeric)
    a = numeric["a"].to_numpy()
    np.testing.assert_allclose(mf.X[:, 0], (a - a.mean()) / a.std(ddof=1))


def test_stateful_terms_on_new_data_use_the_training_rows(numeric):
    mf = parse_formula("y ~ scale(a) + poly(b, 2)", numeric)
    assert mf.column_names == ["scale(a)", "poly(b, 2)[1]", "poly(b, 2)[2]"]
    again = term_frame(mf, mf.terms, numeric)
    assert list(again.columns) == mf.column_names
    np.testing.assert_allclose(again.to_numpy(), mf.X, atol=1e-12)
    head = term_frame(mf, mf.terms, numeric.iloc[:3])
    np.testing.assert_allclose(head.to_numpy(), mf.X[:3], atol=1e-12)


def test_terms_are_named_alike_in_every_expansion():
    df = pd.DataFrame({"y": [0, 1, 0, 1, 1], "a.b": [1.0, 2.0, 4.0, 3.0, 5.0],
                       "x1": [2.0, 1.0, 0.0, 3.0, 1.0]})
    assert parse_formula("y ~ .", df).terms == ["a.b", "x1"]
    assert parse_formula("y ~ .:x1", df).terms == ["x1", "a.b:x1"]  # R's order: x1 first
    assert parse_formula("y ~ `a.b`:x1", df).terms == ["a.b:x1"]
    assert parse_formula('y ~ Q("a.b"):x1', df).terms == ["a.b:x1"]
    assert parse_formula("y ~ log(`a.b`)", df).terms == ["log(`a.b`)"]


@pytest.mark.parametrize("formula, problem", [
    ("y ~ a + offset(b)", "offset() is not supported"),
    ("y ~ a %in% b", "'%in%' (nesting) is not supported"),
])
def test_r_formula_features_refused_with_a_message(numeric, formula, problem):
    with pytest.raises(FormulaError, match=re.escape(problem)):
        parse_formula(formula, numeric)


def test_columns_with_double_underscores_or_unnormalised_names_still_read_safely():
    df = pd.DataFrame({"y": [0, 1, 0, 1], "x__1": [1.0, 2.0, 3.0, 5.0], "ｅval": [1.0, 3.0, 2.0, 1.0]})
    mf = parse_formula("y ~ .", df)
    assert mf.terms == ["x__1", "ｅval"]
    np.testing.assert_array_equal(mf.X, df[["x__1", "ｅval"]].to_numpy())
    assert parse_formula("y ~ log(`x__1`)", df).terms == ["log(`x__1`)"]


@pytest.mark.parametrize("rhs", [".", ". - g5 - `g7`", ". + 0", ". - 1 + g3"])
def test_wide_dot_is_read_without_patsy(monkeypatch, rhs):
    """R's '.' over plain numeric columns never reaches patsy nor the per-factor code checks
    (their cost grows faster than the number of columns); the result equals patsy's path."""
    import patsy

    from fstools.model.formula import design, patsy_terms

    rng = np.random.default_rng(2)
    wide = pd.DataFrame(rng.normal(size=(6, 2000)), columns=[f"g{j}" for j in range(2000)])
    wide.iloc[1, 3] = np.nan
    wide["y"] = ["a", "b", "a", "b", "a", "b"]
    expected = parse_formula("y ~ " + rhs.replace(".", "g0 + g1 + g2 + g3 + g4 + g5 + g6 + g7 + .", 1), wide)

    calls = []

    def counting(name, function):
        def wrapper(*args, **kwargs):
            calls.append(name)
            return function(*args, **kwargs)
        return wrapper

    # each name where the formula package looks it up: the general path's stages
    for module, name in [(patsy_terms, "_patsy_parse_formula"), (patsy_terms, "expression_problem"),
                         (patsy_terms, "source_problem"), (design, "patsy_design")]:
        monkeypatch.setattr(module, name, counting(name, getattr(module, name)))
    for name in ["dmatrix", "build_design_matrices"]:
        monkeypatch.setattr(patsy, name, counting(name, getattr(patsy, name)))
    monkeypatch.setattr(patsy.ModelDesc, "from_formula", counting("from_formula", patsy.ModelDesc.from_formula))
    mf = parse_formula("y ~ " + rhs, wide)
    assert calls == []
    assert mf.terms == expected.terms and mf.column_names == expected.column_names
    np.testing.assert_array_equal(mf.X, expected.X)
    pd.testing.assert_index_equal(mf.row_index, expected.row_index)
    assert mf.n_dropped == 1
    assert term_frame(mf, mf.terms[:3], wide).columns.tolist() == mf.terms[:3]


def test_wide_dot_missing_values_refused_like_patsy_path():
    df = pd.DataFrame({"y": [0, 1, 0, 1], "a": [1.0, np.nan, 3.0, 4.0], "b": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match=r"1 of 4 rows have missing values \(in column\(s\) 'a'\)"):
        parse_formula("y ~ .", df, na_action="raise")
    with pytest.raises(ValueError, match=r"1 of 4 rows have missing values \(in column\(s\) 'a'\)"):
        parse_formula("y ~ a + b", df, na_action="raise")


# ---------------------------------------------------------------------------
# The response columns of a model frame: pandas' own selection, built faster
# ---------------------------------------------------------------------------

def _response_cases():
    rng = np.random.default_rng(0)
    plain = pd.DataFrame(rng.random((20, 5)), columns=list("abcde"))
    plain["y"] = rng.integers(0, 3, 20)
    plain["s"] = list("xy" * 10)
    plain["cat"] = pd.Categorical(list("pq" * 10))
    plain.columns.name = "cols"
    labelled = plain.copy()
    labelled.index = pd.Index(list("abcdefghijklmnopqrst"), name="idx")
    numbered = pd.DataFrame(rng.random((6, 3)), columns=[0, 1, 2])
    nested = pd.DataFrame(rng.random((6, 3)), columns=pd.MultiIndex.from_tuples([("g", "x"), ("g", "y"), ("h", "z")]))
    nullable = pd.DataFrame({"y": pd.array([1, None, 3, 4], dtype="Int64"), "x": [1.0, 2, 3, 4]})
    repeated = pd.DataFrame(rng.random((4, 3)), columns=["y", "x", "y"])
    return [(plain, ["y"]), (plain, ["s", "y"]), (plain, ["y", "s"]), (plain, ["cat"]), (plain, []),
            (labelled, ["y", "cat"]), (numbered, [2]), (nested, [("g", "y")]), (nullable, ["y"]),
            (repeated, ["y"])]


@pytest.mark.parametrize("case", range(len(_response_cases())))
@pytest.mark.parametrize("rows", [None, [0, 2, 3]])
def test_response_columns_equal_pandas_selection(case, rows):
    from fstools.model.formula import response_columns

    data, responses = _response_cases()[case]
    before = data.copy()
    rows = None if rows is None else np.asarray(rows)
    expected = data[responses] if rows is None else data[responses].iloc[rows]
    got = response_columns(data, responses, rows)
    pd.testing.assert_frame_equal(got, expected.copy(), check_column_type=True, check_index_type=True)
    assert got.columns.name == expected.columns.name
    if got.shape[1]:  # a copy: writing to it leaves the data as they were
        got.iloc[0, 0] = got.iloc[1, 0]
    pd.testing.assert_frame_equal(data, before)


# --------------------------------------------------------------------------- R's model.frame()
# The expected values below are R's (R 4.x, terms() / model.matrix() / model.frame() on R_FRAME,
# with f and g factors): the term labels, the design columns and the rows kept.

R_FRAME = pd.DataFrame({"y": [1.0, 2, 3, 4, 5, 6], "x1": [-1, 2, np.nan, 0.5, 3, -2],
                        "x2": [1.5, -2, 0.3, 4, -1, 2], "f": list("uvwuvw"), "g": list("pqpqpq")})


def _rows(frame):
    return [R_FRAME.index.get_loc(label) + 1 for label in frame.row_index]


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("formula, r_terms, r_rows", [
    ("y ~ x2 - log(x1)", ["x2"], [2, 4, 5]),                   # a removed term's NaN drops the row
    ("y ~ I(log(x2) > 0)", ["I(log(x2) > 0)"], [1, 3, 4, 6]),  # a comparison with NaN is NA
    ("y ~ x1 + x2*(x1 - x1)", ["x1", "x2"], [1, 2, 4, 5, 6]),  # (x1 - x1) * x2 alone has no term
])
def test_rows_as_r_model_frame(formula, r_terms, r_rows):
    frame = parse_formula(formula, R_FRAME)
    assert frame.terms == r_terms
    assert _rows(frame) == r_rows


@pytest.mark.parametrize("formula", ["y ~ . - a", "y ~ b - a", "y ~ b + f - a"])
def test_a_removed_column_is_left_out_with_its_missing_values(formula):
    # fstools' documented way to leave out a column (an identifier, a column of missing values):
    # unlike R's model.frame(), which still drops the rows where a is missing, nothing reads it
    data = pd.DataFrame({"y": [1.0, 2, 3, 4], "a": [1.0, np.nan, 3, 4], "b": [1.0, 2, 3, 5],
                         "f": list("uvuv")})
    assert parse_formula(formula, data).n_dropped == 0


@pytest.mark.parametrize("formula, message", [
    ("y ~ x2 - poly(x2, 0)", "degree"),             # R: 'degree' must be at least 1
    ("y ~ (x1 - x1) * x2", "no predictors"),        # R: no term (but x2 for x2 * (x1 - x1))
    ("y ~ 1 * x2", "no predictors"),                # R: no term
])
def test_formulas_r_refuses_or_leaves_without_terms(formula, message):
    with pytest.raises(FormulaError, match=re.escape(message)):
        parse_formula(formula, R_FRAME)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_every_row_missing_is_a_formula_error_naming_the_term():
    # R: model.matrix(y ~ log(-abs(x2)), d) has 0 rows; fstools cannot select on none
    with pytest.raises(FormulaError, match=r"all 6 rows have missing values once the terms are evaluated.*"
                                           r"log\(-abs\(x2\)\)"):
        parse_formula("y ~ log(-abs(x2))", R_FRAME)


@pytest.mark.parametrize("formula, r_terms, r_columns", [
    # the margin x2 of f:x2 lies inside x1:x2: f is coded by contrasts
    ("y ~ x1:x2 + f:x2", ["x1:x2", "f:x2"], ["x1:x2", "f[T.v]:x2", "f[T.w]:x2"]),
    # g of f:g lies inside x1:g: f by contrasts, g (margin f nowhere before) by all levels
    ("y ~ x1:g + f:g", ["x1:g", "f:g"],
     ["x1:g[p]", "x1:g[q]", "f[T.v]:g[p]", "f[T.w]:g[p]", "f[T.v]:g[q]", "f[T.w]:g[q]"]),
    # R's order: main effects first, in the formula's order
    ("y ~ f + x2 + g:x2 + x1", ["f", "x2", "x1", "g:x2"], ["f[T.v]", "f[T.w]", "x2", "x1", "g[T.q]:x2"]),
])
def test_factor_coding_and_term_order_as_in_r(formula, r_terms, r_columns):
    frame = parse_formula(formula, R_FRAME)
    assert frame.terms == r_terms
    assert frame.column_names == r_columns
    if formula == "y ~ x1:g + f:g":  # R's model.matrix, rows 1, 2, 4, 5, 6
        expected = [[-1, 0, 0, 0, 0, 0], [0, 2, 0, 0, 1, 0], [0, 0.5, 0, 0, 0, 0], [3, 0, 1, 0, 0, 0],
                    [0, -2, 0, 0, 0, 1]]
        np.testing.assert_array_equal(frame.X, expected)


def test_dot_lists_the_terms_in_column_order():
    # R: attr(terms(y ~ ., data = df), "term.labels") is a, f, b (a factor is not put first)
    data = pd.DataFrame({"y": [1.0, 2, 3, 4], "a": [1.0, 2, 3, 5], "f": list("uvuv"), "b": [2.0, 1, 0, 3]})
    frame = parse_formula("y ~ .", data)
    assert frame.terms == ["a", "f", "b"]
    assert frame.column_names == ["a", "f[T.v]", "b"]


@pytest.mark.parametrize("formula_mode", ["safe", "code"])
def test_r_conversions(formula_mode):
    data = pd.DataFrame({"y": [1.0, 2, 3, 4], "x": [-1.7, 2.9, 0.5, 3.0], "f": list("vuwv"),
                         "flag": [True, False, True, True], "n": [1, 2, 10, 2]})
    frame = parse_formula("y ~ as.numeric(f) + as.integer(x) + I(as.numeric(flag)) + as.factor(n)", data,
                          formula_mode=formula_mode)
    assert frame.terms == ["as.numeric(f)", "as.integer(x)", "I(as.numeric(flag))", "n"]
    assert frame.column_names == ["as.numeric(f)", "as.integer(x)", "I(as.numeric(flag))", "as.factor(n)[T.2]",
                                  "as.factor(n)[T.10]"]
    # R: as.numeric(factor(c("v", "u", "w", "v"))) is 2 1 3 2; as.integer(c(-1.7, 2.9, 0.5, 3)) is -1 2 0 3
    np.testing.assert_array_equal(frame.X[:, :3], [[2, -1, 1], [1, 2, 0], [3, 0, 1], [2, 3, 1]])
    # as.character(n) is a factor of the texts "1", "10", "2" (R sorts them as text)
    frame = parse_formula("y ~ as.character(n)", data, formula_mode=formula_mode)
    assert frame.column_names == ["as.character(n)[T.10]", "as.character(n)[T.2]"]

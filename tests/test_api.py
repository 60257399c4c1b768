"""fs.select, SelectionResult and the registry, through the public API."""
import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import fstools as fs
from fstools.methods.cmqfs import cmqfs


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.fixture(scope="module")
def wine_result(wine):
    return fs.select("class ~ .", wine, method="cmqfs", k=5)


def test_select_matches_method_layer(wine, wine_result):
    X = wine.drop(columns="class").to_numpy()
    y = wine["class"].cat.codes.to_numpy().astype(np.int32)
    out = cmqfs(X, y, k=5)
    names = list(wine.columns[:-1])
    assert wine_result.selected == [names[j] for j in out.ranking]


def test_scores_table(wine, wine_result):
    scores = wine_result.scores
    assert list(scores.index[:5]) == wine_result.selected
    assert len(scores) == wine.shape[1] - 1
    assert list(scores["rank"]) == list(range(1, len(scores) + 1))
    for column in ("score", "Q", "NQ", "step", "w", "NRI"):
        assert column in scores.columns
    np.testing.assert_array_equal(scores["step"].iloc[:5], [1, 2, 3, 4, 5])
    assert scores["step"].iloc[5:].isna().all()
    # the unselected features follow by decreasing score
    rest = scores["score"].iloc[5:].to_numpy()
    assert np.all(np.diff(rest) <= 0)


def test_all_ranked_when_k_is_none(wine):
    res = fs.select("class ~ .", wine, method="cmqfs")
    assert len(res.selected) == wine.shape[1] - 1
    assert res.params["k"] is None


def test_formula_params_and_counts(wine_result):
    assert wine_result.formula == "class ~ " + " + ".join(wine_result.selected)
    assert wine_result.params == {"beta": 0.3, "k": 5}
    assert wine_result.n == 178 and wine_result.n_dropped == 0
    assert wine_result.classes == ["class_0", "class_1", "class_2"]
    assert list(wine_result.class_counts) == [59, 71, 48]


def test_transform_keeps_response_and_data_unchanged(wine, wine_result):
    before = wine.copy(deep=True)
    reduced = wine_result.transform(wine)
    assert list(reduced.columns) == wine_result.selected + ["class"]
    pd.testing.assert_frame_equal(reduced, wine[wine_result.selected + ["class"]])
    pd.testing.assert_frame_equal(wine, before)


def test_select_does_not_modify_data(wine):
    before = wine.copy(deep=True)
    fs.select("class ~ . - alcohol", wine, method="cmqfs", k=3)
    pd.testing.assert_frame_equal(wine, before)


def test_summary_tests_equal_scipy(wine, wine_result):
    summary = wine_result.summary()
    text = str(summary)
    for name in wine_result.selected:
        assert name in text
    assert "ANOVA F" in text and "cmqfs" in text and "beta = 0.3" in text
    assert "<table" in summary._repr_html_()
    assert r"\begin{tabular}" in summary.as_latex()
    tests = wine_result.univariate_tests()
    y = wine["class"]
    p_values = []
    for feature in tests.index:
        groups = [wine.loc[y == c, feature] for c in y.cat.categories]
        expected = stats.f_oneway(*groups)
        assert tests.loc[feature, "statistic"] == pytest.approx(expected.statistic)
        p_values.append(expected.pvalue)
    # Benjamini-Hochberg by hand: p_(i) * n / i, cumulative minimum from the top, capped at 1
    p = np.asarray(p_values)
    order = np.argsort(p)
    scaled = p[order] * len(p) / np.arange(1, len(p) + 1)
    adjusted = np.minimum.accumulate(scaled[::-1])[::-1].clip(max=1)
    expected_adjusted = np.empty_like(p)
    expected_adjusted[order] = adjusted
    np.testing.assert_allclose(tests["p_adjusted"].to_numpy(), expected_adjusted, rtol=1e-10)


def test_two_class_summary_uses_welch_t():
    df = fs.datasets.load("breast_cancer")
    res = fs.select("class ~ .", df, method="cmqfs", k=3)
    tests = res.univariate_tests()
    feature = res.selected[0]
    expected = stats.ttest_ind(df.loc[df["class"] == "malignant", feature],
                               df.loc[df["class"] == "benign", feature], equal_var=False)
    assert tests.loc[feature, "test"] == "Welch t"
    assert tests.loc[feature, "statistic"] == pytest.approx(expected.statistic)
    assert tests.loc[feature, "p_value"] == pytest.approx(expected.pvalue, rel=1e-6)


def test_plot_and_repr(wine_result):
    ax = wine_result.plot(value="relevance")       # every candidate's Q
    assert isinstance(ax, matplotlib.axes.Axes)
    assert len(ax.patches) == len(wine_result.scores)
    matplotlib.pyplot.close(ax.figure)
    ax = wine_result.plot()                        # the criterion w of the chosen: none at step 1
    assert len(ax.patches) == len(wine_result.selected) - 1
    matplotlib.pyplot.close(ax.figure)
    text = repr(wine_result)
    assert "cmqfs" in text and wine_result.selected[0] in text


def test_steps_table(wine_result):
    steps = wine_result.steps
    assert list(steps["feature"]) == wine_result.selected
    assert list(steps["step"]) == [1, 2, 3, 4, 5]


def test_categorical_predictor_reported_under_its_name():
    rng = np.random.default_rng(0)
    n = 120
    y = rng.integers(0, 2, n)
    colour = np.where(y == 1, rng.choice(["red", "green"], n, p=[0.9, 0.1]),
                      rng.choice(["red", "green", "blue"], n))
    df = pd.DataFrame({"x1": rng.normal(size=n), "colour": colour, "x2": y + rng.normal(scale=0.3, size=n),
                       "y": pd.Categorical(np.where(y == 1, "yes", "no"))})
    res = fs.select("y ~ .", df, method="cmqfs", k=3)
    assert set(res.selected) == {"x1", "colour", "x2"}
    assert "colour" in res.scores.index
    assert "term_column" in res.scores.columns
    tests = res.univariate_tests()
    assert tests.loc["colour", "test"] == "chi-square"
    reduced = res.transform(df)
    assert reduced["colour"].equals(df["colour"])


def test_missing_values_dropped_and_counted(wine):
    df = wine.copy()
    df.loc[[0, 5, 9], "alcohol"] = np.nan
    res = fs.select("class ~ .", df, method="cmqfs", k=2)
    assert res.n_dropped == 3 and res.n == 175
    with pytest.raises(ValueError, match="missing"):
        fs.select("class ~ .", df, method="cmqfs", k=2, na_action="raise")


def test_list_methods():
    table = fs.list_methods()
    row = table.set_index("name").loc["cmqfs"]
    assert "beta=0.3" in row["parameters"]
    assert "supervised" in row["capabilities"]


@pytest.mark.parametrize("kwargs, error, pattern", [
    ({"method": "nope"}, ValueError, "method.*allowed values.*cmqfs"),
    ({"k": 0}, ValueError, "k: must be in 1..13"),
    ({"k": 14}, ValueError, "k: must be in 1..13"),
    ({"k": 2.5}, TypeError, "k: must be None or an integer"),
    ({"beta": 1.5}, ValueError, r"beta: must be a number in \[0, 1\]"),
    ({"gamma": 1}, TypeError, "unknown parameter.*gamma.*beta"),
    ({"n_jobs": 0}, ValueError, "n_jobs"),
    ({"na_action": "omit"}, ValueError, "na_action"),
])
def test_bad_arguments(wine, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        fs.select("class ~ .", wine, **kwargs)


def test_bad_data():
    good = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [1.0, 0.0, 1.0, 0.0], "y": ["u", "v", "u", "v"]})
    with pytest.raises(TypeError, match="data: must be a pandas DataFrame"):
        fs.select("y ~ .", good.to_numpy())
    with pytest.raises(TypeError, match="formula"):
        fs.select(None, good)
    one_class = good.assign(y="u")
    with pytest.raises(ValueError, match="only one class"):
        fs.select("y ~ .", one_class)
    infinite = good.assign(a=[1.0, np.inf, 3.0, 4.0])
    with pytest.raises(ValueError, match="non-finite.*'a'"):
        fs.select("y ~ .", infinite)
    regression = good.assign(y=[0.5, 1.5, 2.25, 3.0])
    with pytest.raises(ValueError, match=r"method 'cmqfs' takes class responses only.*pd.cut / pd.qcut"):
        fs.select("y ~ .", regression)
    with pytest.raises(fs.FormulaError, match="one response"):
        fs.select("y + b ~ a", good)


def test_constant_column_warns_and_ranks_last():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"const": np.ones(60), "x": rng.normal(size=60), "z": rng.normal(size=60),
                       "y": rng.integers(0, 2, 60)})
    with pytest.warns(UserWarning, match="constant"):
        res = fs.select("y ~ .", df, method="cmqfs", k=2)
    assert res.scores.index[-1] == "const"
    assert np.isnan(res.scores.loc["const", "score"])
    assert "const" not in res.selected


def test_plot_path_and_kind_errors(wine_result):
    ax = wine_result.plot(kind="path")
    line = ax.get_lines()[0]
    np.testing.assert_array_equal(line.get_xdata(), [1, 2, 3, 4, 5])
    np.testing.assert_array_equal(line.get_ydata()[1:], wine_result.steps["w"].to_numpy()[1:])
    matplotlib.pyplot.close(ax.figure)
    with pytest.raises(ValueError, match="kind: must be 'scores' or 'path'"):
        wine_result.plot(kind="bars")
    assert "Criterion" in str(wine_result.summary(details=True)) and "Criterion" not in str(wine_result.summary())


def test_plot_marks_undefined_and_infinite_scores():
    df = pd.DataFrame({"sep": [0.0, 0.0, 0.0, 1.0, 1.0, 1.0], "x": [0.1, 0.5, 0.2, 0.4, 0.9, 0.3],
                       "const": 1.0, "y": ["a", "a", "a", "b", "b", "b"]})
    with pytest.warns(UserWarning, match="constant"):
        res = fs.select("y ~ .", df, method="fisher")
    assert np.isinf(res.scores.loc["sep", "score"])
    ax = res.plot()
    heights = [patch.get_height() for patch in ax.patches]
    assert all(np.isfinite(heights)) and len(heights) == int(np.isfinite(res.scores["score"]).sum())
    assert "+inf" in [text.get_text() for text in ax.texts]
    matplotlib.pyplot.close(ax.figure)


# ---------------------------------------------------------------------------
# Any column name: through '.', backticks, transform and error messages
# ---------------------------------------------------------------------------

#: Column labels a formula must handle: names patsy or numpy use, quotes, backticks, formula
#: operators, dots, unicode, and labels that are not strings (named by str(label), a tuple by
#: its parts joined with dots).
ODD_LABELS = ["Q", "C", "I", "np", "Intercept", "log", "my col", "it's", 'say "hi"', "both ' and \"",
              "back`tick", "back\\slash", "a + b", "~", "y - x", "a:b", "x.y", "é", "日本語", "tab\there",
              5, 1.5, ("g", "h")]


def _formula_name(label):
    """How the documentation says a label is written in a formula (before backtick quoting)."""
    if isinstance(label, tuple):
        return ".".join(label)
    return label if isinstance(label, str) else str(label)


def _backticked(name):
    """R's backtick quoting: a backslash before a backtick or backslash, a tab as \\t."""
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`").replace("\t", "\\t") + "`"


def _quoted_as_written(name, message):
    """Whether the message shows the name as it can be written: Python quotes or R backticks."""
    return repr(name) in message or _backticked(name) in message


def _odd_frame(label, n=40):
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, n)
    df = pd.DataFrame({"y": y, "a": rng.normal(size=n), "s": rng.choice(["u", "v", "w"], n)})
    df[label] = rng.normal(size=n) + y  # the informative column
    return df


@pytest.mark.parametrize("label", ODD_LABELS, ids=[repr(label) for label in ODD_LABELS])
def test_any_column_label_through_dot_backticks_and_transform(label):
    df = _odd_frame(label)
    name = _formula_name(label)
    original = df.copy()

    res = fs.select("y ~ .", df, method="fisher")
    assert res.selected[0] == name
    assert sorted(res.scores.index) == sorted(["a", "s", name])

    res = fs.select(f"y ~ a + {_backticked(name)} + s", df, method="fisher", k=2)
    assert res.selected[0] == name
    reduced = res.transform(df)
    assert list(reduced.columns)[:1] == [label] and list(reduced.columns)[-1] == "y"
    pd.testing.assert_series_equal(reduced[label], df[label])
    pd.testing.assert_frame_equal(df, original)  # never modified

    # computed from the column: read with backticks inside a call
    res = fs.select(f"y ~ np.exp({_backticked(name)}) + C(s)", df, method="fisher")
    assert res.selected[0] == f"np.exp({_backticked(name)})" or res.selected[0].startswith("np.exp(")
    np.testing.assert_allclose(res.transform(df).iloc[:, 0].to_numpy(dtype=float), np.exp(df[label].to_numpy()))

    wrong = name + "_"
    with pytest.raises(fs.FormulaError) as error:
        fs.select(f"y ~ a + {_backticked(wrong)}", df, method="fisher")
    message = str(error.value)
    assert _quoted_as_written(wrong, message), message
    assert "did you mean" in message and _quoted_as_written(name, message), message


@pytest.mark.parametrize("label", ODD_LABELS, ids=[repr(label) for label in ODD_LABELS])
def test_any_column_label_as_the_response(label):
    df = _odd_frame("x").rename(columns={"y": label})
    name = _formula_name(label)
    res = fs.select(f"{_backticked(name)} ~ .", df, method="fisher", k=2)
    assert res.response == label and res.selected[0] == "x"
    assert list(res.transform(df).columns) == ["x", "a", label] or list(res.transform(df).columns)[-1] == label
    with pytest.raises(fs.FormulaError) as error:
        fs.select(f"{_backticked(name + '_')} ~ .", df, method="fisher")
    message = str(error.value)
    assert _quoted_as_written(name + "_", message) and "the columns are" in message, message


def test_multiindex_columns():
    rng = np.random.default_rng(3)
    columns = pd.MultiIndex.from_tuples([("g", "y"), ("g", "a"), ("h", "b"), ("h", "c")], names=["grp", "var"])
    df = pd.DataFrame(rng.normal(size=(50, 4)), columns=columns)
    df[("g", "y")] = rng.integers(0, 2, 50)
    df[("h", "c")] += df[("g", "y")]

    for formula in ["g.y ~ .", "`g.y` ~ .", "`('g', 'y')` ~ .", "g.y ~ g.a + `h.b` + `('h', 'c')`"]:
        res = fs.select(formula, df, method="fisher", k=2)
        assert res.selected == ["h.c", "h.b"] or res.selected[0] == "h.c", formula
        assert sorted(res.scores.index) == ["g.a", "h.b", "h.c"]
        reduced = res.transform(df)
        assert isinstance(reduced.columns, pd.MultiIndex)
        assert list(reduced.columns) == [("h", "c"), ("h", "b"), ("g", "y")] or \
            list(reduced.columns)[0] == ("h", "c")
        pd.testing.assert_frame_equal(reduced, df.loc[:, list(reduced.columns)])

    with pytest.raises(fs.FormulaError, match=r"unknown column 'h\.bx' \(did you mean 'h\.b'\?\)"):
        fs.select("g.y ~ `h.bx`", df, method="fisher")


def test_labels_that_would_share_a_name():
    """A tuple whose dotted name is taken is named as Python prints it; a clash left is refused."""
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"y": rng.integers(0, 2, 30), "g.h": rng.normal(size=30), ("g", "h"): rng.normal(size=30)})
    res = fs.select("y ~ .", df, method="fisher")
    assert sorted(res.scores.index) == ["('g', 'h')", "g.h"]
    clash = pd.DataFrame({"y": rng.integers(0, 2, 30), 5: rng.normal(size=30), "5": rng.normal(size=30)})
    with pytest.raises(ValueError, match=r"column labels 5, '5'.*rename"):
        fs.select("y ~ .", clash, method="fisher")


def test_backticks_follow_r_escapes():
    """In R a backtick inside backticks is escaped with a backslash (doubling it is not R)."""
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"y": rng.integers(0, 2, 30), "a`b": rng.normal(size=30), "c\\d": rng.normal(size=30),
                       "new\nline": rng.normal(size=30)})
    res = fs.select("y ~ `a\\`b` + `c\\\\d` + `new\\nline`", df, method="fisher")
    assert sorted(res.selected) == sorted(["a`b", "c\\d", "new\nline"])
    assert fs.select(res.formula, df, method="fisher").selected == res.selected  # the formula parses back
    with pytest.raises(fs.FormulaError, match="doubled backtick.*backslash"):
        fs.select("y ~ `a``b`", df, method="fisher")

"""The response's type at the front door: classes or continuous, decided as R does and stated.

The rule (fstools.model.response): strings, booleans and categoricals are classes; a numeric
response with a non-integer value is continuous; an integer-valued one is classes with at most
CLASS_LEVEL_LIMIT distinct values and continuous with more.  ``response_type=`` and ``C(y)``
override it.  The expectations below are written from that rule and from scikit-learn / scipy,
not from the code under test.
"""
import decimal
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.datasets import load_diabetes
from sklearn.feature_selection import f_regression

import fstools as fs
from fstools.model.response import CLASS_LEVEL_LIMIT, prepare_response, response_type_of


@pytest.fixture(scope="module")
def diabetes():
    return load_diabetes(as_frame=True, scaled=False).frame


RULE = [
    (pd.Series(["a", "b", "a", "c"]), "class"),
    (pd.Series([True, False, True, True]), "class"),
    (pd.Series(pd.Categorical(["x", "y", "x", "x"])), "class"),
    (pd.Series([0, 1, 2, 1, 0]), "class"),
    (pd.Series(np.arange(CLASS_LEVEL_LIMIT) % CLASS_LEVEL_LIMIT), "class"),
    (pd.Series(np.arange(CLASS_LEVEL_LIMIT + 1)), "continuous"),
    (pd.Series([0.0, 1.0, 1.0, 0.0]), "class"),
    (pd.Series([0.5, 1.0, 1.0, 0.0]), "continuous"),
    (pd.Series([decimal.Decimal("1.25"), decimal.Decimal("2.5"), decimal.Decimal("2")]), "continuous"),
    (pd.Series(["1.5", "2.25", "3"], dtype=object), "continuous"),
    (pd.Series(["1", "2", "1"], dtype=object), "class"),
]


@pytest.mark.parametrize("series, expected", RULE)
def test_the_rule(series, expected):
    assert response_type_of(series)[0] == expected


def test_the_diabetes_score_is_continuous_and_the_summary_says_why(diabetes):
    res = fs.select("target ~ .", diabetes, method="f_test", k=3)
    assert res.response_type == "continuous"
    assert res.classes is None and res.class_counts is None
    assert "214 distinct integer values" in res.response_reason
    text = str(res.summary())
    assert "target, continuous (numeric, 214 distinct integer values" in text
    assert f"mean {diabetes.target.mean():.4g}" in text


def test_a_classification_only_method_names_the_alternatives(diabetes):
    with pytest.raises(ValueError, match=r"method 'cmqfs' takes class responses only; methods that take a "
                                         r"continuous response: .*mim.*; or cut the response into classes "
                                         r"with pd.cut / pd.qcut"):
        fs.select("target ~ .", diabetes, method="cmqfs", k=3)


def test_c_and_response_type_make_classes(diabetes):
    cut = diabetes.assign(target=pd.qcut(diabetes.target, 3, labels=False).astype(float) * 100 + 0.5)
    by_formula = fs.select("C(target) ~ .", cut, method="cmqfs", k=3)
    by_argument = fs.select("target ~ .", cut, method="cmqfs", k=3, response_type="class")
    assert by_formula.response_type == by_argument.response_type == "class"
    assert by_formula.classes == by_argument.classes == ["0.5", "100.5", "200.5"]
    assert by_formula.selected == by_argument.selected
    assert "C() in the formula" in str(by_formula.summary())
    assert "response_type='class'" in by_argument.call
    with pytest.raises(ValueError, match=r"response_type: 'continuous' contradicts the formula"):
        fs.select("factor(target) ~ .", cut, method="mim", k=3, response_type="continuous")


def test_response_type_continuous_on_integer_classes(diabetes):
    df = diabetes.assign(target=np.arange(len(diabetes)) % 3)
    assert fs.select("target ~ .", df, method="mim", k=2).response_type == "class"
    assert fs.select("target ~ .", df, method="mim", k=2, response_type="continuous").response_type == "continuous"


@pytest.mark.parametrize("bad", ["regression", "Class", 1])
def test_response_type_must_be_one_of_the_allowed_values(diabetes, bad):
    with pytest.raises(ValueError, match=r"response_type.*'class'.*'continuous'"):
        fs.select("target ~ .", diabetes, method="mim", k=2, response_type=bad)


def test_continuous_needs_a_numeric_response():
    with pytest.raises(ValueError, match=r"response_type: 'continuous' needs a numeric response; response 'y' "
                                         r"holds .* values; allowed for it: 'class'"):
        prepare_response(pd.Series(["a", "b", "c"]), "continuous", name="response 'y'")


def test_decimal_response_is_read_as_numbers_with_a_note():
    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    y = [decimal.Decimal(f"{v:.3f}") for v in 2 * x + rng.normal(scale=0.1, size=60)]
    df = pd.DataFrame({"x": x, "z": rng.normal(size=60), "y": pd.Series(y, dtype=object)})
    res = fs.select("y ~ .", df, method="f_test", k=1)
    assert res.response_type == "continuous" and res.selected == ["x"]
    assert any("Decimal values read as numbers" in note for note in res.notes)
    assert df["y"].dtype == object  # not modified


def test_an_identifier_response_warns_and_the_response_line_is_short():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60),
                       "id": [f"row{i:03d}" for i in range(60)]})
    with pytest.warns(UserWarning, match=r"response 'id': 60 classes in 60 rows .* looks like an identifier"):
        res = fs.select("id ~ .", df, method="mim", k=1)
    line = next(line for line in str(res.summary()).split("\n") if line.startswith("Response:"))
    assert "row009 (1), ... (50 more)" in line and "row010" not in line


def test_continuous_marginal_tests_equal_f_regression_and_one_way_anova():
    rng = np.random.default_rng(2)
    n = 80
    colour = rng.choice(["red", "green", "blue"], size=n)
    x = rng.normal(size=(n, 3))
    y = x[:, 0] + (colour == "red") * 1.5 + rng.normal(size=n)
    df = pd.DataFrame(x, columns=["x0", "x1", "x2"]).assign(colour=colour, y=y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = fs.select("y ~ .", df, method="mim", k=2)
    tests = res.univariate_tests()
    F, p = f_regression(x, y)
    for j, name in enumerate(["x0", "x1", "x2"]):
        assert tests.loc[name, "test"] == "regression F"
        np.testing.assert_allclose(tests.loc[name, "statistic"], F[j], rtol=1e-10)
        np.testing.assert_allclose(tests.loc[name, "p_value"], p[j], rtol=1e-8)
    anova = stats.f_oneway(*[y[colour == level] for level in ["blue", "green", "red"]])
    assert tests.loc["colour", "test"] == "ANOVA F"
    np.testing.assert_allclose(tests.loc["colour", "statistic"], anova.statistic, rtol=1e-10)
    np.testing.assert_allclose(tests.loc["colour", "p_value"], anova.pvalue, rtol=1e-8)


def test_a_continuous_result_pickles(diabetes):
    res = fs.select("target ~ .", diabetes, method="mrmr", k=3)
    loaded = pickle.loads(pickle.dumps(res))
    assert loaded.response_type == "continuous" and loaded.selected == res.selected
    assert str(loaded.summary()) == str(res.summary())


def test_feature_selector_in_a_regression_pipeline_under_grid_search(diabetes):
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline

    X, y = diabetes.drop(columns="target"), diabetes["target"]
    pipe = make_pipeline(fs.FeatureSelector(method="f_test", k=3), Ridge())
    search = GridSearchCV(pipe, {"featureselector__k": [2, 4]}, cv=3).fit(X, y)
    chosen = search.best_estimator_.named_steps["featureselector"]
    assert chosen.result_.response_type == "continuous"
    F = f_regression(X, y)[0]
    assert list(chosen.result_.selected) == list(X.columns[np.argsort(-F)[:chosen.k]])
    with pytest.raises(ValueError, match=r"method 'fisher' takes class responses only"):
        fs.FeatureSelector(method="fisher", k=2).fit(X, y)
    classes = fs.FeatureSelector(method="fisher", k=2, response_type="class").fit(X, y % 2)
    assert classes.result_.response_type == "class"


def test_a_one_sided_formula_for_a_method_that_uses_no_response():
    wine = fs.datasets.load("wine")
    res = fs.select("~ . - class", wine, method="laplacian", k=3)
    with_response = fs.select("class ~ .", wine, method="laplacian", k=3)
    pd.testing.assert_frame_equal(res.scores, with_response.scores)  # the score does not use the response
    assert res.response is None and res.response_type is None and res.formula.startswith("~ ")
    text = str(res.summary())
    assert "Response:     none (one-sided formula" in text and "p.value" not in text
    assert list(res.transform(wine).columns) == res.selected
    assert pickle.loads(pickle.dumps(res)).selected == res.selected
    with pytest.raises(ValueError, match=r"method 'cmqfs' needs a response \(a left-hand side in the formula\); "
                                         r"methods that take none: laplacian"):
        fs.select("~ .", wine, method="cmqfs", k=3)
    with pytest.raises(ValueError, match=r"response_type: the formula '~ \.' has no response"):
        fs.select("~ .", wine, method="laplacian", k=3, response_type="class")


@pytest.mark.parametrize("method", ["f_test", "pearson"])
def test_a_method_column_named_like_a_test_column_keeps_both(diabetes, method):
    res = fs.select("target ~ .", diabetes, method=method, k=3)
    frame = res.summary_frame(all_features=True)
    F, p = f_regression(diabetes.drop(columns="target"), diabetes["target"])
    np.testing.assert_allclose(frame["p_value"].to_numpy(), pd.Series(p, index=diabetes.columns[:-1])
                               .loc[frame.index].to_numpy(), rtol=1e-8)
    np.testing.assert_allclose(frame["p_value_marginal"].to_numpy(), frame["p_value"].to_numpy(), rtol=1e-8)


def test_the_levels_of_an_integer_response_are_counted_on_the_integers():
    # NumPy integers are counted as they are (no float64 copy): beyond 2^53 neighbouring values
    # stay distinct (as float64 16 values 2^54 + k would merge into 5)
    y = pd.Series(2 ** 54 + np.arange(40) % 16, dtype=np.int64)
    assert len(np.unique(y.to_numpy(dtype=np.float64))) == 5
    assert response_type_of(y) == ("continuous", "numeric, 16 distinct integer values; response_type='class' "
                                                 "or C() for classes")
    assert response_type_of(pd.Series(np.arange(40) % 7, dtype=np.int16))[0] == "class"
    assert response_type_of(pd.Series(np.arange(40) % 7, dtype=np.uint8))[1].startswith("integer values, 7 distinct")

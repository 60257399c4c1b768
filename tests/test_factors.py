"""Factors as units: the information methods score a categorical term by its level codes.

The reference is scikit-learn's ``mutual_info_score`` on the factor's codes (plug-in mutual
information in nats), never the code under test.
"""
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mutual_info_score

import fstools as fs
from fstools.model.terms import FACTOR_CODE_LEVELS, factor_code_design

INFORMATION = ["mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim"]


def _planted(seed=0, n=400):
    """A four-level factor that decides the class (10% label noise), and two noise columns."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "white"], size=n)
    decides = np.isin(colour, ["red", "green"]) ^ (rng.random(n) < 0.1)
    return pd.DataFrame({"x1": rng.normal(size=n), "colour": colour, "x2": rng.normal(size=n),
                         "y": np.where(decides, "p", "q")})


@pytest.mark.parametrize("method", INFORMATION)
def test_a_factor_that_decides_the_class_comes_first_as_one_variable(method):
    df = _planted()
    res = fs.select("y ~ .", df, method=method, k=2)
    assert res.selected[0] == "colour"
    assert "term_column" not in res.scores.columns  # one column per variable: no representative dummy
    if res.steps is not None:
        assert list(res.steps["step"]) == [1, 2] and list(res.steps["feature"]) == res.selected


def test_mim_of_a_factor_is_the_mutual_information_of_its_codes():
    df = _planted(1)
    res = fs.select("y ~ .", df, method="mim")
    codes = pd.factorize(df["colour"], sort=True)[0]
    assert res.scores.loc["colour", "score"] == pytest.approx(mutual_info_score(codes, df["y"]), rel=1e-12)
    assert any("scored as one variable each, by their level codes" in note for note in res.notes)


def test_an_interaction_of_factors_is_one_variable_of_combined_levels():
    rng = np.random.default_rng(2)
    n = 300
    a = rng.choice(["u", "v"], size=n)
    b = rng.choice(["s", "t", "w"], size=n)
    df = pd.DataFrame({"a": a, "b": b, "y": rng.choice(["p", "q"], size=n)})
    res = fs.select("y ~ a:b", df, method="mim")
    combined = pd.factorize(pd.Series(a) + "/" + pd.Series(b))[0]
    assert res.scores.loc["a:b", "score"] == pytest.approx(mutual_info_score(combined, df["y"]), rel=1e-12)


def test_a_factor_with_many_levels_keeps_its_dummies_with_a_note():
    rng = np.random.default_rng(3)
    n = 400
    df = pd.DataFrame({"g": [f"g{i}" for i in rng.integers(0, FACTOR_CODE_LEVELS + 3, size=n)],
                       "x": rng.normal(size=n), "y": rng.choice(["p", "q"], size=n)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = fs.select("y ~ .", df, method="mim")
    assert any(f"more than {FACTOR_CODE_LEVELS}" in note for note in res.notes)
    assert "term_column" in res.scores.columns


def test_factor_code_design_leaves_numeric_terms_alone():
    X = np.array([[1.0, 0.0, 0.5, 2.0], [0.0, 1.0, 0.25, 3.0], [0.0, 0.0, 0.5, 4.0], [1.0, 0.0, 0.1, 5.0]])
    names = ["c[T.b]", "c[T.c]", "poly(x, 2)[1]", "z"]
    terms = ["c", "c", "poly(x, 2)", "z"]
    X2, names2, terms2, _ = factor_code_design(X, names, terms)
    assert names2 == ["c", "poly(x, 2)[1]", "z"] and terms2 == ["c", "poly(x, 2)", "z"]
    # levels in numpy.unique order of the rows: (0,0) -> 0, (0,1) -> 1, (1,0) -> 2
    np.testing.assert_array_equal(X2[:, 0], [2.0, 1.0, 0.0, 2.0])
    np.testing.assert_array_equal(X2[:, 1:], X[:, 2:])
    same, _, _, notes = factor_code_design(X[:, 2:], names[2:], terms[2:])
    assert same is not None and notes == []

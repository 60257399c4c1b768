"""Factors as one variable in the F-test, the Fisher score and Pearson's correlation, and in
``fs.compare`` / ``fs.stability``.

References: scipy (``f_oneway``, ``chi2_contingency``), statsmodels (``anova_lm`` and the R^2 of
``ols('y ~ C(g)')``) and a NumPy trace ratio of the scatter matrices of the level indicators
(``tests/references/statistical.py``), never the code under test.
"""
import pickle

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm

import fstools as fs
from fstools.methods.registry import get_method
from fstools.methods.statistical import (check_nominal, factor_anova, factor_chi_square, factor_fisher_scores)
from references.statistical import block_fisher_ref

LEVELS = np.array(["red", "green", "blue", "white"])


def _planted(seed=0, n=300, continuous=False):
    """A four-level factor that decides the response (10% noise), two numeric columns, one weakly informative."""
    rng = np.random.default_rng(seed)
    colour = LEVELS[rng.integers(0, 4, size=n)]
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    if continuous:
        effect = pd.Series(colour).map({"red": 2.0, "green": -1.0, "blue": 0.5, "white": -1.5}).to_numpy()
        y = effect + 0.3 * x2 + rng.normal(size=n)
    else:
        decides = np.isin(colour, ["red", "green"]) ^ (rng.random(n) < 0.1)
        y = np.where(decides, "p", "q")
        x2 = x2 + 0.4 * decides
    return pd.DataFrame({"x1": x1, "colour": colour, "x2": x2, "y": y})


# ------------------------------------------------------------------ the statistics, methods layer
def test_factor_anova_is_scipy_f_oneway_and_statsmodels_anova_lm():
    df = _planted(1, continuous=True)
    codes = pd.factorize(df["colour"])[0].astype(float)[:, None]
    F, p, eta, df1, df2 = factor_anova(codes, df["y"].to_numpy())
    reference = stats.f_oneway(*[df.loc[df["colour"] == level, "y"] for level in LEVELS])
    assert F[0] == pytest.approx(reference.statistic, rel=1e-10)
    assert p[0] == pytest.approx(reference.pvalue, rel=1e-8)
    model = ols("y ~ C(colour)", data=df).fit()
    table = anova_lm(model)
    assert F[0] == pytest.approx(table.loc["C(colour)", "F"], rel=1e-10)
    assert (df1[0], df2[0]) == (table.loc["C(colour)", "df"], table.loc["Residual", "df"])
    # eta: the multiple correlation of y with the factor's dummy columns
    assert eta[0] == pytest.approx(np.sqrt(model.rsquared), rel=1e-10)


def test_factor_chi_square_is_scipy_chi2_contingency_without_correction():
    df = _planted(2)
    codes = pd.factorize(df["colour"])[0].astype(float)[:, None]
    y = pd.factorize(df["y"])[0]
    statistic, p, dof = factor_chi_square(codes, y)
    chi2, p_ref, dof_ref, _ = stats.chi2_contingency(pd.crosstab(df["colour"], df["y"]), correction=False)
    assert statistic[0] == pytest.approx(chi2, rel=1e-10)
    assert p[0] == pytest.approx(p_ref, rel=1e-8)
    assert dof[0] == dof_ref == 3


def test_factor_fisher_score_is_the_trace_ratio_of_the_level_indicators():
    rng = np.random.default_rng(3)
    levels = rng.integers(0, 5, size=200)
    y = (levels + rng.integers(0, 3, size=200)) % 3
    scores, between, within = factor_fisher_scores(levels[:, None].astype(float), y)
    assert scores[0] == pytest.approx(block_fisher_ref(levels.tolist(), y), rel=1e-10)
    # between + within is the factor's Gini variation 1 - sum_l p_l^2
    shares = np.bincount(levels) / levels.size
    assert between[0] + within[0] == pytest.approx(1 - np.sum(shares ** 2), rel=1e-12)


def test_a_two_level_factor_has_the_fisher_score_of_its_dummy():
    rng = np.random.default_rng(4)
    dummy = rng.integers(0, 2, size=150).astype(float)
    y = (rng.random(150) < 0.3 + 0.4 * dummy).astype(np.int32)
    fisher = get_method("fisher").function
    as_factor = fisher(dummy[:, None], y, nominal=np.array([True])).scores[0]
    assert as_factor == pytest.approx(fisher(dummy[:, None], y).scores[0], rel=1e-10)


def test_a_single_level_factor_scores_zero_and_is_ranked_last():
    rng = np.random.default_rng(5)
    X = np.column_stack([np.zeros(60), rng.normal(size=60)])
    y = rng.integers(0, 2, size=60).astype(np.int32)
    out = get_method("f_test").function(X, y, nominal=np.array([True, False]))
    assert out.scores[0] == 0 and out.columns["p_value"][0] == 1 and list(out.ranking) == [1, 0]


def test_the_nominal_mask_is_checked():
    with pytest.raises(ValueError, match=r"nominal: must be a boolean array with one entry per column of X \(3\)"):
        check_nominal([1, 0, 1], 3)
    with pytest.raises(ValueError, match="nominal: must be a boolean array"):
        check_nominal(np.array([True]), 3)


# ------------------------------------------------------------------ through fs.select
@pytest.mark.parametrize("method", ["f_test", "fisher"])
def test_a_factor_that_decides_the_class_comes_first(method):
    df = _planted()
    res = fs.select("y ~ .", df, method=method, k=2)
    assert res.selected[0] == "colour"
    assert "term_column" not in res.scores.columns   # one column per variable: no representative dummy
    assert res.scores.loc["colour", "scored_by"] != res.scores.loc["x1", "scored_by"]


@pytest.mark.parametrize("method", ["f_test", "pearson"])
def test_a_factor_that_decides_a_continuous_response_comes_first(method):
    df = _planted(continuous=True)
    res = fs.select("y ~ .", df, method=method, k=2)
    assert res.selected == ["colour", "x2"]
    reference = stats.f_oneway(*[df.loc[df["colour"] == level, "y"] for level in LEVELS])
    assert res.scores.loc["colour", "p_value"] == pytest.approx(reference.pvalue, rel=1e-8)


def test_f_test_scores_equal_scipy_for_both_kinds_of_rows():
    df = _planted(6)
    res = fs.select("y ~ .", df, method="f_test")
    chi2, p, dof, _ = stats.chi2_contingency(pd.crosstab(df["colour"], df["y"]), correction=False)
    assert res.scores.loc["colour", "score"] == pytest.approx(chi2, rel=1e-10)
    assert res.scores.loc["colour", "scored_by"] == f"chi-square ({dof})"
    groups = [df.loc[df["y"] == c, "x2"] for c in ("p", "q")]
    assert res.scores.loc["x2", "F"] == pytest.approx(stats.f_oneway(*groups).statistic, rel=1e-10)
    assert res.scores.loc["x2", "scored_by"] == f"ANOVA F (1, {len(df) - 2})"
    # statistics on different degrees of freedom: the rows are ranked by p-value
    assert res.scores["p_value"].is_monotonic_increasing

    continuous = _planted(6, continuous=True)
    res = fs.select("y ~ .", continuous, method="f_test")
    reference = anova_lm(ols("y ~ C(colour)", data=continuous).fit())
    assert res.scores.loc["colour", "score"] == pytest.approx(reference.loc["C(colour)", "F"], rel=1e-10)
    assert res.scores.loc["colour", "scored_by"] == f"ANOVA F (3, {len(continuous) - 4})"
    r = stats.pearsonr(continuous["x2"], continuous["y"])
    assert res.scores.loc["x2", "p_value"] == pytest.approx(r.pvalue, rel=1e-8)


def test_pearson_scores_a_factor_by_eta():
    df = _planted(7, continuous=True)
    res = fs.select("y ~ .", df, method="pearson")
    model = ols("y ~ C(colour)", data=df).fit()
    assert res.scores.loc["colour", "score"] == pytest.approx(np.sqrt(model.rsquared), rel=1e-10)
    assert np.isnan(res.scores.loc["colour", "r"])
    assert res.scores.loc["x2", "score"] == pytest.approx(abs(stats.pearsonr(df["x2"], df["y"]).statistic))


def test_fisher_of_a_factor_through_select_is_the_trace_ratio():
    df = _planted(8)
    res = fs.select("y ~ .", df, method="fisher")
    y = (df["y"] == "q").to_numpy().astype(int)
    assert res.scores.loc["colour", "score"] == pytest.approx(block_fisher_ref(df["colour"].tolist(), y), rel=1e-10)


def test_the_summary_shows_the_statistic_of_each_row_and_the_result_pickles():
    df = _planted(9)
    res = fs.select("y ~ .", df, method="f_test")
    text = str(res.summary(all_features=True))
    assert "scored_by" in text and "chi-square (3)" in text and "ANOVA F (1, 298)" in text
    assert any("ranked by p-value" in note for note in res.notes)
    again = pickle.loads(pickle.dumps(res))
    pd.testing.assert_frame_equal(again.scores, res.scores)


def test_the_permutation_test_of_a_factor_uses_its_own_statistic():
    df = _planted(10, n=60, continuous=True)
    B = 49
    res = fs.select("y ~ .", df, method="f_test", test="permutation", n_permutations=B, permutation_seed=0)
    groups = pd.factorize(df["colour"])[0]
    y = df["y"].to_numpy()
    observed = stats.f_oneway(*[y[groups == g] for g in range(4)]).statistic
    rng = np.random.default_rng(0)
    null = []
    for _ in range(B):
        permuted = y[rng.permutation(len(y))]
        null.append(stats.f_oneway(*[permuted[groups == g] for g in range(4)]).statistic)
    expected = (1 + np.sum(np.array(null) >= observed * (1 - 1e-9))) / (1 + B)
    assert res.scores.loc["colour", "p_perm"] == pytest.approx(expected)


# ------------------------------------------------------------------ compare and stability
@pytest.mark.parametrize("method", ["mim", "f_test", "fisher", "relieff"])
def test_compare_ranks_whole_variables_as_select_does(method):
    df = _planted(11, n=150)
    cmp = fs.compare("y ~ .", df, methods=[method], k=[1, 2], cv=3, repeats=1, random_state=0, progress=False)
    ranking = cmp.rankings.sort_values("rank")["feature"].tolist()
    assert ranking == fs.select("y ~ .", df, method=method, k=2).selected
    if method != "relieff":
        assert ranking[0] == "colour"


def test_compare_in_fold_selects_the_factor_as_one_variable():
    df = _planted(12, n=150)
    cmp = fs.compare("y ~ .", df, methods=["f_test", "mrmr"], k=[1], cv=3, repeats=1, random_state=0,
                     select_in_fold=True, progress=False)
    first = cmp.rankings[cmp.rankings["rank"] == 1]
    assert len(first) == 6 and (first["feature"] == "colour").all()


@pytest.mark.parametrize("method", ["mim", "f_test", "fisher"])
def test_stability_selects_whole_variables_as_select_does(method):
    df = _planted(13, n=150)
    result = fs.stability("y ~ .", df, method, k=1, n_bootstrap=10, random_state=0, progress=False)
    assert result.full_selection == fs.select("y ~ .", df, method=method, k=1).selected == ["colour"]
    assert list(result.selections.columns) == ["x1", "colour", "x2"]   # R's term order: the columns'
    assert result.selections["colour"].all()


def test_an_interaction_of_factors_is_one_variable_of_combined_levels():
    rng = np.random.default_rng(14)
    a, b = rng.choice(["u", "v"], size=120), rng.choice(["s", "t", "w"], size=120)
    y = rng.normal(size=120) + 2.0 * ((a == "u") & (b == "s"))
    res = fs.select("y ~ a:b", pd.DataFrame({"a": a, "b": b, "y": y}), method="f_test")
    combined = pd.Series(a) + "/" + pd.Series(b)
    reference = stats.f_oneway(*[y[combined == level] for level in combined.unique()])
    assert res.scores.loc["a:b", "score"] == pytest.approx(reference.statistic, rel=1e-10)
    assert res.scores.loc["a:b", "scored_by"] == "ANOVA F (5, 114)"


def test_a_factor_with_many_levels_is_one_variable_for_the_nominal_methods():
    # 40 levels: beyond the information methods' limit (they keep the dummies, with a note), but
    # the one-way ANOVA of f_test takes any number of levels.
    rng = np.random.default_rng(3)
    site = rng.choice([f"s{j:02d}" for j in range(40)], 600)
    effect = dict(zip(sorted(set(site)), rng.normal(size=40)))
    df = pd.DataFrame({"site": site, "x1": rng.normal(size=600)})
    df["y"] = np.array([effect[s] for s in site]) + rng.normal(scale=0.5, size=600)
    res = fs.select("y ~ .", df, method="f_test")
    reference = stats.f_oneway(*[df.loc[df["site"] == s, "y"] for s in sorted(set(site))])
    assert res.scores.loc["site", "score"] == pytest.approx(reference.statistic, rel=1e-10)
    assert res.scores.loc["site", "scored_by"] == "ANOVA F (39, 560)"
    assert res.selected[0] == "site"
    mim = fs.select("y ~ .", df, method="mim", k=1)
    assert any("40 levels" in note for note in mim.notes)

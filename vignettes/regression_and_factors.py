# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Continuous responses and factors
#
# Statisticians bring variables, not class labels and design columns. This vignette shows what
# `fstools` does with two kinds of data that a classification-only toolkit gets wrong:
#
# 1. **A continuous response.** scikit-learn's *diabetes* data (442 patients, 10 baseline
#    variables) has as its response a disease-progression score one year later, stored as
#    integer-valued numbers with 214 distinct values. `fstools` decides the response's type as R
#    does (strings, logicals, factors and integers with at most 10 values are classes; other
#    numbers are continuous), says so in the summary, and runs the methods that take a continuous
#    response: the F-test and Pearson's correlation (scikit-learn's `f_regression` and
#    `r_regression`), the information methods with the response discretised like the predictors,
#    RReliefF (Robnik-Sikonja and Kononenko 2003) and BAHSIC. A classification-only method (CMQFS,
#    Fisher) refuses the response and says how to cut it into classes.
# 2. **A mixed-type frame** built here: a four-level factor that drives the response, a logical,
#    a column of `Decimal` values (what `read_sql` returns for NUMERIC), a numeric column read from
#    a file with a stray `'?'`, and missing values. The information methods score a factor as one
#    variable by its level codes, the F-test by the one-way ANOVA of the response on its levels;
#    numbers held as objects are read as numbers; `na_action="level"` keeps the incomplete rows.
#
# Finally the selections are compared by the cross-validated $R^2$ of a ridge regression on the top
# k features, with `fs.FeatureSelector` inside a scikit-learn pipeline (the selection is made
# inside each training fold). With `FSTOOLS_QUICK=1` the grid of k and the folds shrink.

# %%
import decimal
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.datasets import load_diabetes
from sklearn.linear_model import Ridge
from sklearn.metrics import mutual_info_score
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from _setup import OUTPUT, QUICK, fs, plt, save_figure, save_text, say, start_vignette, started

start_vignette()
diabetes = load_diabetes(as_frame=True, scaled=False).frame

# %% [markdown]
# ## 1. The diabetes score is a continuous response
#
# The default method, CMQFS, is defined for classes; asked for this response it says which methods
# take a continuous one.

# %%
try:
    fs.select("target ~ .", diabetes, method="cmqfs", k=3)
except ValueError as error:
    refusal = str(error)
say(refusal)

res = fs.select("target ~ .", diabetes, method="f_test", k=4)
say(res.summary())
save_text("regression_f_test_summary.txt", str(res.summary()))

# %% [markdown]
# The same question asked of every method that takes a continuous response. The F-test and
# Pearson's |r| order the variables identically ($F = (n - 2)\, r^2 / (1 - r^2)$ is monotone in $|r|$);
# the information methods and RReliefF can also see non-linear dependence; mRMR and BAHSIC
# trade relevance against redundancy.

# %%
METHODS = ["f_test", "pearson", "mim", "mrmr", "jmi", "rrelieff", "bahsic"]
K = 4
selected = {}
for method in METHODS:
    selected[method] = fs.select("target ~ .", diabetes, method=method, k=K).selected
table = pd.DataFrame(selected, index=pd.RangeIndex(1, K + 1, name="rank"))
say(table)
table.to_csv(OUTPUT / "regression_selected.csv")

# %% [markdown]
# Cutting the response into three classes of equal size (`pd.qcut`) makes it a class response,
# and CMQFS runs; `C(target)` in the formula or `response_type="class"` say the same for a response
# that already holds few values.

# %%
tertiles = diabetes.assign(target=pd.qcut(diabetes["target"], 3, labels=["low", "middle", "high"]))
cut = fs.select("target ~ .", tertiles, method="cmqfs", k=K)
say("CMQFS on the tertiles:", cut.selected)

# %% [markdown]
# ## 2. A mixed-type frame
#
# The response `y` depends on a four-level factor `colour` (levels red and green raise it), on
# `dose` (stored as `Decimal`) and on `age` (read from a file as text, with one `'?'`). A logical
# `smoker` and a numeric `noise` column do not matter. Some rows have a missing value.

# %%
rng = np.random.default_rng(0)
n = 400
colour = rng.choice(["red", "green", "blue", "white"], size=n)
dose = rng.gamma(2.0, 1.5, size=n).round(3)
age = rng.integers(20, 80, size=n).astype(float)
y = 2.0 * np.isin(colour, ["red", "green"]) + 0.8 * dose + 0.03 * age + rng.normal(size=n)
mixed = pd.DataFrame({
    "colour": colour,
    "smoker": rng.random(n) < 0.3,
    "dose": pd.Series([decimal.Decimal(f"{v:.3f}") for v in dose], dtype=object),
    "age": pd.Series([f"{v:.0f}" for v in age], dtype=object),
    "noise": rng.normal(size=n),
    "y": y,
})
mixed.loc[7, "age"] = "?"
mixed.loc[[3, 11, 19], "noise"] = np.nan

try:
    fs.select("y ~ .", mixed, method="mim")
except ValueError as error:
    say(error)

mixed_mim = fs.select("y ~ .", mixed, method="mim", k=3, na_values=["?"])
say(mixed_mim.summary())
save_text("mixed_mim_summary.txt", str(mixed_mim.summary()))

# %% [markdown]
# How the factor is scored: MIM uses its level codes, so its score is I(colour; y) with y cut by
# the same mu/sigma scheme as the continuous predictors. Recomputing that with scikit-learn's
# `mutual_info_score` on the codes and the binned response gives the same number. The F-test
# scores the factor as a whole too: by the one-way ANOVA F of `y` on its four levels (R's
# `anova(lm(y ~ colour))`, scipy's `f_oneway`), the numeric columns by the F of their simple
# regression; the column `scored_by` names each row's statistic, and since these have different
# degrees of freedom the rows are ranked by p-value.

# %%
kept = mixed_mim.transform(mixed.drop(index=[3, 7, 11, 19])).index
levels = pd.factorize(mixed.loc[kept, "colour"], sort=True)[0]
response = mixed.loc[kept, "y"].to_numpy()
mean, sd = response.mean(), response.std()
binned = np.digitize(response, mean + sd * np.array([-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5]))
by_hand = mutual_info_score(levels, binned)
say(f"MIM score of colour: {mixed_mim.scores.loc['colour', 'score']:.6f}; "
      f"mutual_info_score on the codes: {by_hand:.6f}")
mixed_f = fs.select("y ~ .", mixed, method="f_test", k=3, na_values=["?"])
say(mixed_f.scores[["rank", "score", "p_value", "scored_by"]])
anova = stats.f_oneway(*[response[levels == level] for level in range(4)])
say(f"F-test score of colour: {mixed_f.scores.loc['colour', 'score']:.6f}; scipy f_oneway: "
      f"{anova.statistic:.6f}")

# %% [markdown]
# Four rows have a missing value (`noise`, and the `'?'` of `age`) and were dropped above. The
# information methods can keep them instead: with `na_action="level"` a missing value is a level
# of its own (the observed values are discretised as usual), and only a row without a response
# would be dropped. Other methods refuse the option and name the ones that take it.

# %%
mixed_level = fs.select("y ~ .", mixed, method="mim", k=3, na_values=["?"], na_action="level")
say(f"rows used: {mixed_mim.n} dropping incomplete rows, {mixed_level.n} with na_action='level'")
say(mixed_level.scores[["rank", "score"]])

# %% [markdown]
# ## 3. Cross-validated $R^2$ of the selections
#
# Each method selects k variables inside each training fold (a `FeatureSelector` in a pipeline),
# a ridge regression is fitted on them and scored by $R^2$ on the held-out fold.

# %%
X, target = diabetes.drop(columns="target"), diabetes["target"]
ks = [1, 3, 5] if QUICK else list(range(1, 11))
folds = KFold(n_splits=3 if QUICK else 10, shuffle=True, random_state=0)
rows = []
for method in ["f_test", "mim", "mrmr", "rrelieff"]:
    for k in ks:
        model = make_pipeline(StandardScaler(), fs.FeatureSelector(method=method, k=k), Ridge(alpha=1.0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            scores = cross_val_score(model, X, target, cv=folds, scoring="r2")
        rows.append({"method": method, "k": k, "r2_mean": scores.mean(), "r2_sd": scores.std(ddof=1)})
cv = pd.DataFrame(rows)
say(cv.pivot(index="k", columns="method", values="r2_mean").round(3))
cv.to_csv(OUTPUT / "regression_cv_r2.csv", index=False)

fig, ax = plt.subplots(figsize=(6.5, 4))
methods_drawn = list(dict.fromkeys(cv["method"]))
for i, method in enumerate(methods_drawn):
    part = cv[cv["method"] == method]
    dodge = 0.08 * (i - (len(methods_drawn) - 1) / 2)  # side by side, so that the error bars stay readable
    ax.errorbar(part["k"] + dodge, part["r2_mean"], yerr=part["r2_sd"], marker="o", capsize=3, label=method)
ax.set_xticks(ks)
ax.set_xlabel("number of selected variables (k); bars: ± 1 sd over folds")
ax.set_ylabel("cross-validated R² (higher is better)")
ax.set_title(f"diabetes: ridge regression on the top-k variables\n{folds.get_n_splits()}-fold CV, "
             f"selection inside each training fold")
ax.legend(fontsize=8)
save_figure(fig, "regression_cv_r2.png")

# %%
best = cv.loc[cv["r2_mean"].idxmax()]
conclusion = (
    f"The diabetes score is continuous (214 distinct integer values); CMQFS refuses it:\n  {refusal}\n"
    f"Every method that takes it puts {table.iloc[0].mode()[0]} first among {K} variables.\n"
    f"In the mixed frame, MIM scores colour by its levels: {mixed_mim.scores.loc['colour', 'score']:.4f} nats, "
    f"equal to scikit-learn's mutual_info_score on the codes ({by_hand:.4f}).\n"
    f"Best cross-validated R^2: {best['r2_mean']:.3f} ({best['method']}, k = {int(best['k'])}).\n"
    f"Run time: {time.perf_counter() - started:.1f} s"
)
say(conclusion)
save_text("regression_conclusion.txt", conclusion)

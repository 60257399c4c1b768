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
# # Inference for a selection: permutation p-values, step tests, honest comparisons
#
# A feature-selection method returns a ranking; a statistician asks how much of it is more than
# chance. This vignette answers with the methods' own statistics:
#
# 1. **Permutation p-values of each feature's score** (`test="permutation"`): the response is
#    permuted B times and the method's own score recomputed,
#    $p = (1 + \#\{\text{null} \ge \text{observed}\}) / (1 + B)$
#    (Phipson and Smyth, "Permutation p-values should never be zero", 2010), with
#    Benjamini-Hochberg and Holm adjustments; for several methods on *wine* and *breast cancer*.
# 2. **Calibration**: on data where the class is independent of every feature the p-values are
#    uniform (histogram, QQ plot, Kolmogorov-Smirnov test).
# 3. **Step tests of a greedy path** (`test="step"`, `k="auto"`, `res.cut`): each step's gain
#    tested given the features chosen before, by permuting the class within the strata of the
#    selected features' codes (the conditional permutation test of Berrett, Wang, Barber and
#    Samworth, "The conditional permutation test for independence while controlling for
#    confounders", 2020), against the best candidate's criterion under each permutation.
# 4. **Comparisons that hold up**: repeated cross-validation compared by the corrected resampled
#    t-test (Nadeau and Bengio, "Inference for the generalization error", 2003) with confidence
#    intervals and effect sizes, and the stability of the selections across folds (Nogueira, Sechidis
#    and Brown, "On the stability of feature selection algorithms", 2018).
#
# With `FSTOOLS_QUICK=1` (the test suite) the numbers of permutations, replicates and folds shrink.

# %%
import time

import numpy as np
import pandas as pd
from scipy import stats

from _setup import OUTPUT, QUICK, fs, plt, save_figure, save_text, say, start_vignette, started, tabulate

start_vignette()
B = 99 if QUICK else 999
wine = fs.datasets.load("wine")
cancer = fs.datasets.load("breast_cancer")

# %% [markdown]
# ## 1. Permutation p-values of the methods' own scores
#
# Each method's score of every feature is tested under the null hypothesis that the feature and
# the class are independent. For a greedy method (mRMR) the test is of its relevance, the score of
# its first step. The summary shows the p-values next to the score.

# %%
res = fs.select("class ~ .", wine, method="fisher", k=5, test="permutation", n_permutations=B,
                permutation_seed=0)
say(res.summary())
save_text("inference_wine_fisher_summary.txt", str(res.summary()))

rows = []
for name, data in [("wine", wine), ("breast_cancer", cancer)]:
    for method in ["fisher", "mim", "mrmr", "cmqfs"]:
        tested = fs.select("class ~ .", data, method=method, test="permutation", n_permutations=B,
                           permutation_seed=1)
        scores = tested.scores
        rows.append({"dataset": name, "method": method, "features": len(scores),
                     "p < 0.05": int((scores["p_perm"] < 0.05).sum()),
                     "BH < 0.05": int((scores["p_perm_bh"] < 0.05).sum()),
                     "Holm < 0.05": int((scores["p_perm_holm"] < 0.05).sum()),
                     "largest p": scores["p_perm"].max(),
                     "not significant (BH)": ", ".join(scores.index[scores["p_perm_bh"] >= 0.05]) or "-"})
significant = pd.DataFrame(rows)
say(significant.pipe(tabulate, index=False))
significant.to_csv(OUTPUT / "inference_permutation_counts.csv", index=False)

# %% [markdown]
# Nearly every feature of both data sets carries information about the class; the features that
# do not reach significance differ by method because the scores measure different things (a
# variance ratio, an information, the modularity of a neighbour graph). The smallest permutation
# p-value is 1 / (B + 1), so Holm's correction over m features can reach alpha only when
# m / (B + 1) < alpha: with B = 99 (quick mode) it cannot, with B = 999 it can. The permutation
# distribution of one feature's score:

# %%
ax = res.plot(kind="null", feature="ash")
save_figure(ax.figure, "inference_null_ash.png")

# %% [markdown]
# ## 2. Calibration on null data
#
# The class is drawn independently of 20 Gaussian features, many times; under this null every
# p-value should be uniform on (0, 1) (up to the grid 1/(B + 1)).

# %%
replicates = 4 if QUICK else 25
null_p = {"fisher": [], "mim": [], "cmqfs": []}
rng = np.random.default_rng(2026)
for replicate in range(replicates):
    X = rng.normal(size=(150, 20))
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(20)])
    frame["class"] = rng.choice(["a", "b", "c"], size=150)
    for method in null_p:
        tested = fs.select("class ~ .", frame, method=method, test="permutation", n_permutations=B,
                           permutation_seed=replicate)
        null_p[method].extend(tested.scores["p_perm"].tolist())

calibration = pd.DataFrame([{"method": method, "p-values": len(values),
                             "share <= 0.05": np.mean(np.asarray(values) <= 0.05),
                             "KS p-value (uniformity)": stats.kstest(values, "uniform").pvalue}
                            for method, values in null_p.items()])
say(calibration.pipe(tabulate, index=False))
calibration.to_csv(OUTPUT / "inference_null_calibration.csv", index=False)

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
for method, values in null_p.items():
    left.hist(values, bins=np.linspace(0, 1, 11), histtype="step", linewidth=1.5, label=method)
    ordered = np.sort(values)
    right.plot((np.arange(1, ordered.size + 1) - 0.5) / ordered.size, ordered, ".", markersize=3, label=method)
left.axhline(len(null_p["fisher"]) / 10, color="grey", linestyle="--", linewidth=1, label="uniform")
left.set_xlabel("permutation p-value")
left.set_ylabel("count (10 bins)")
left.set_title(f"null data: {replicates} data sets x 20 features")
left.legend(fontsize=8)
right.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1)
right.set_xlabel("uniform quantile")
right.set_ylabel("p-value quantile")
right.set_title(f"QQ plot against U(0, 1), B = {B}")
right.legend(fontsize=8)
save_figure(fig, "inference_null_pvalues.png")

# %% [markdown]
# ## 3. A greedy path cut by its step tests
#
# A greedy method adds the best candidate given the features chosen so far. The step test asks
# whether that step's gain is more than chance given them: the class is permuted within the
# strata of the selected features' joint codes (which keeps the class's dependence on the selected
# features and breaks only what the candidates add), the step's criterion is recomputed for every
# remaining candidate, and the observed gain is compared with the best candidate's under each
# permutation. `p_candidate` is the chosen candidate's own conditional p-value, not adjusted for
# having been the best of the candidates. When the strata become too fine for a permutation to move
# anything the p-value is NA, with a note.

# %%
path = fs.select("class ~ .", cancer, method="mrmr", k=10, test="step", n_permutations=B, permutation_seed=0)
say(path.steps.round(4).pipe(tabulate, index=False))
path.steps.to_csv(OUTPUT / "inference_mrmr_steps.csv", index=False)

cut = path.cut(alpha=0.05)
say(cut.summary())
save_text("inference_mrmr_cut_summary.txt", str(cut.summary()))

auto = fs.select("class ~ .", cancer, method="jmi", k="auto", n_permutations=B, permutation_seed=0)
say(auto)
say(auto.cut_at["reason"])

# %%
fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
steps = path.steps
kept = steps["step"] <= len(cut.selected)
top.plot(steps["step"], steps["J"], color="black", linewidth=1)
top.scatter(steps["step"][kept], steps["J"][kept], color="tab:blue", zorder=3, label="kept by the cut")
top.scatter(steps["step"][~kept], steps["J"][~kept], color="tab:red", zorder=3, label="after the cut")
for step, feature, value in zip(steps["step"], steps["feature"], steps["J"]):
    top.annotate(feature, (step, value), fontsize=7, rotation=30, xytext=(3, 4), textcoords="offset points")
top.set_ylim(top=steps["J"].max() * 1.3)   # room for the labels
top.set_ylabel("mRMR criterion J at the step")
top.set_title(f"breast cancer: mRMR path, step tests (B = {B}), cut at alpha = 0.05")
top.legend(fontsize=8)
tested = steps["p_step"].notna()
bottom.bar(steps["step"][tested] - 0.18, steps["p_step"][tested], width=0.36, label="p_step (best candidate)")
bottom.bar(steps["step"][tested] + 0.18, steps["p_candidate"][tested], width=0.36,
           label="p_candidate (chosen alone)")
for step in steps["step"][~tested]:
    bottom.text(step, 0.3, "NA\n(strata\ntoo fine)", ha="center", va="center", fontsize=7)
bottom.axhline(0.05, color="tab:red", linestyle="--", linewidth=1, label="alpha = 0.05")
bottom.set_yscale("log")
bottom.set_ylim(1 / (B + 1) / 1.5, 1.2)
bottom.set_xlabel("step")
bottom.set_ylabel("p-value (log scale)")
bottom.set_xticks(steps["step"])
bottom.legend(fontsize=8, loc="upper left")
save_figure(fig, "inference_step_tests.png")

# %% [markdown]
# ## 4. Comparing methods: corrected tests, intervals, stability
#
# The methods are compared by 1-NN accuracy on their top-k features over repeated stratified
# cross-validation, selecting inside each training fold. The folds of a repeated cross-validation
# share training rows, so the default paired t-test is the corrected resampled t-test of Nadeau and
# Bengio; each test prints as R's `t.test` with its interval and effect size. The stability of each
# method's in-fold selections is Nogueira's index with its confidence interval.

# %%
cmp = fs.compare("class ~ .", wine, methods=["cmqfs", "mrmr", "fisher"], k=range(1, 6), classifier="1nn",
                 cv=5, repeats=2 if QUICK else 10, select_in_fold=True, random_state=0, progress=False)
say(cmp.summary())
tests = cmp.ttest("cmqfs")
say(tests)
tests.frame.to_csv(OUTPUT / "inference_ttests.csv", index=False)
stability = cmp.stability(k=5)
say(stability.round(3).pipe(tabulate, index=False))
stability.to_csv(OUTPUT / "inference_stability.csv", index=False)

# %%
weakest = significant.loc[significant["largest p"].idxmax()]
conclusion = (
    f"Permutation tests (B = {B}): on wine and breast cancer, {int(significant['BH < 0.05'].sum())} of "
    f"{int(significant['features'].sum())} feature scores are significant after Benjamini-Hochberg "
    f"(the largest p-value: {weakest['largest p']:.3f}, {weakest['method']} on {weakest['dataset']}).\n"
    f"Null data: KS p-values of uniformity "
    + ", ".join(f"{row['method']} {row['KS p-value (uniformity)']:.2f}" for _, row in calibration.iterrows())
    + ".\n"
    f"mRMR on breast cancer cut by its step tests at 0.05: {len(cut.selected)} features kept "
    f"({', '.join(cut.selected)}); {cut.cut_at['reason']}.\n"
    f"JMI with k='auto': {len(auto.selected)} features ({', '.join(auto.selected)}).\n"
    f"Run time: {time.perf_counter() - started:.1f} s"
)
say(conclusion)
save_text("inference_conclusion.txt", conclusion)

# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Reproducing the CMQFS paper's comparison with `fs.compare`
#
# Zhao, Wu, Chen, Zhang and Bai (2015, *A feature selection method via community modularity*,
# Neurocomputing 151, 376-389, section 5) compare CMQFS with five filters -- the Fisher score,
# the Laplacian score, MIFS, MIFS-U and mRMR -- on 12 data sets. Their evidence is:
#
# * **Tables 4 and 5**: the mean accuracy of 1-NN and of an RBF SVM on the top-p features of
#   each method, for a few values of p per data set, the best method of each row in bold, and an
#   "Avg." row;
# * **Table 6**: the selection run times;
# * **Tables 7 and 8**: one-tailed paired t-tests, CMQFS against each baseline, pooling the
#   accuracies at every (data set, p) of the 12 data sets into one test per baseline.
#
# This vignette runs the same protocol with one call of `fs.compare` on the data available
# offline: **wine** (in the paper's Table 3), **breast_cancer** (scikit-learn's Wisconsin
# diagnostic data; *not* the paper's micro-array "Breast_A"), **iris** (the paper's worked example
# in section 4.2.1, not in its Tables 4-5) and a **Madelon-style** generated set (the paper's
# Madelon is the NIPS 2003 challenge set, 2,000 rows x 500 features; we generate data with the
# same recipe, so the numbers are comparable in kind, not cell by cell). It then shows what the
# paper's protocol leaves out: the same comparison with the selection inside the training folds,
# non-parametric tests, and how stable each method's selection is.
#
# The protocol (paper section 5.1-5.2), as `fs.compare` runs it:
#
# 1. features standardised to zero mean and unit variance;
# 2. each method ranks the features once, on all the data (`select_in_fold=False`, the default);
# 3. 1-NN (Euclidean) and an SVM with RBF kernel and default parameters are cross-validated on
#    the top-p features, 10-fold cross-validation repeated 10 times, the same folds for every
#    method (a paired design);
# 4. one-tailed paired t-tests of mean accuracy, CMQFS against each baseline.
#
# The script runs as it is (`python vignettes/reproduce_cmqfs_paper.py`) and writes its tables
# and figures to `$FSTOOLS_VIGNETTE_OUTPUT` (default `vignettes/output/`). With `FSTOOLS_QUICK=1`
# it uses 2 repeats, fewer values of p and a smaller Madelon-style set, so that it runs in well
# under a minute; every number quoted in the printed reading is computed in the run.

# %%
import matplotlib

matplotlib.use("Agg")

import time

import numpy as np
import pandas as pd

from _setup import OUTPUT, QUICK, fs, save_figure, save_text, start_vignette, started

start_vignette(display_width=160)


# %% [markdown]
# ## 1. The data sets (the paper's Table 3)
#
# The Madelon-style set follows the recipe of the NIPS 2003 Madelon data (Guyon 2003), which is
# also scikit-learn's `make_classification`: 5 informative features (clusters on the vertices of
# a five-dimensional hypercube, 16 per class), 15 linear combinations of them, and noise; here
# `x1..x5` are the informative features, `x6..x20` the redundant ones, the rest noise.

# %%
REPEATS = 2 if QUICK else 10
CV = 10
N_JOBS = None if QUICK else -1   # folds in parallel in the full run; the results do not depend on it
madelon, informative = fs.datasets.make_classification_frame(
    n_samples=300 if QUICK else 2000, n_features=100 if QUICK else 500, n_informative=5, n_redundant=15,
    n_clusters_per_class=16, random_state=0)
DATA = {
    "wine": fs.datasets.load("wine"),
    "breast_cancer": fs.datasets.load("breast_cancer"),
    "iris": fs.datasets.load("iris"),
    "madelon_like": madelon,
}
K = {  # the values of p; the paper reports wine at p = 2, 8, 9 and Madelon at p = 10, 20, 30
    "wine": [1, 2, 8, 9, 13] if QUICK else list(range(1, 14)),
    "breast_cancer": [1, 3, 5, 10, 15] if QUICK else list(range(1, 16)),
    "iris": [1, 2, 3, 4],
    "madelon_like": [5, 10, 20] if QUICK else [5, 10, 15, 20, 25, 30],
}
SOURCES = {"wine": "UCI via scikit-learn (the paper's Libsvm copy)", "breast_cancer": "UCI Wisconsin diagnostic",
           "iris": "UCI via scikit-learn", "madelon_like": "generated (Madelon recipe)"}
table3 = pd.DataFrame([{"dataset": name, "samples": len(frame), "features": frame.shape[1] - 1,
                        "classes": frame["class"].nunique(), "p evaluated": f"{min(K[name])}..{max(K[name])} "
                        f"({len(K[name])} values)", "source": SOURCES[name]} for name, frame in DATA.items()])
table3.to_csv(OUTPUT / "cmqfs_paper_datasets.csv", index=False)
print(table3.to_string(index=False))

# %% [markdown]
# ## 2. The comparison
#
# The methods with the paper's settings (as in `vignettes/baselines.py`): the Laplacian score
# with k = 5 neighbours and the paper's heat kernel exp(-d^2 / (2 t^2)), t = 1, which is
# `fstools`' exp(-d^2 / t) with t = 2; MIFS and MIFS-U with beta = 1; mRMR; CMQFS with
# beta = 0.3. MIFS, MIFS-U, mRMR and CMQFS's redundancy term use the paper's nine-level
# discretisation (the `fstools` default).
#
# The classifiers: `'1nn'` (Euclidean 1-nearest neighbour) and `'svm'` (scikit-learn's `SVC()`:
# RBF kernel, C = 1, gamma = 1 / (n_features x variance), which on standardised features is
# libsvm's default 1 / n_features that the paper used).
#
# One call does everything: each method ranks each data set once, and both classifiers are
# cross-validated on the same 10 x 10 folds for every method.

# %%
METHODS = {
    "FisherScore": "fisher",
    "LaplacianScore": ("laplacian", {"t": 2.0}),
    "MIFS": ("mifs", {"beta": 1.0}),
    "MIFS_U": ("mifs_u", {"beta": 1.0}),
    "mrmr": "mrmr",
    "CMQFS": ("cmqfs", {"beta": 0.3}),
}
t0 = time.perf_counter()
cmp = fs.compare("class ~ .", DATA, METHODS, k=K, classifier={"1-NN": "1nn", "SVM": "svm"}, cv=CV,
                 repeats=REPEATS, random_state=0, n_jobs=N_JOBS, progress=False)
print(f"fs.compare: {len(cmp.results)} fold results in {time.perf_counter() - t0:.1f} s")
cmp.results.to_csv(OUTPUT / "cmqfs_paper_accuracy.csv", index=False)
cmp

# %% [markdown]
# ## 3. Tables 4 and 5: accuracy of the top-p features
#
# Rows: data set and p; columns: methods; cells: mean accuracy (%) over the 10 x 10 folds +- the
# sd over the repeats; `*` (bold in the LaTeX and HTML versions) marks the best method of each
# row; "Avg." averages a data set's rows and "Avg. (all)" every row, as the paper's Avg.; the
# "Time (s)" rows are the selection times (Table 6). The LaTeX versions are written next to the
# text ones.

# %%
table4 = cmp.summary(classifier="1-NN")
table5 = cmp.summary(classifier="SVM")
for name, summary in (("cmqfs_paper_table4_1nn", table4), ("cmqfs_paper_table5_svm", table5)):
    save_text(f"{name}.txt", summary.as_text())
    save_text(f"{name}.tex", summary.as_latex())
    save_text(f"{name}.html", summary.as_html())
    summary.summary_frame().to_csv(OUTPUT / f"{name}.csv")
print(table4)

# %%
print(table5)

# %% [markdown]
# The curves behind the tables (the paper's Figs. 5 and 6), with +- sd bands over the repeats.

# %%
for clf, name in (("1-NN", "1nn"), ("SVM", "svm")):
    drawn = cmp.plot(classifier=clf)      # one data set: the Axes; several: the Figure
    save_figure(getattr(drawn, "figure", drawn) if len(cmp.datasets) == 1 else drawn,
                f"cmqfs_paper_accuracy_{name}.png", dpi=110)

# %% [markdown]
# ## 4. Table 6: selection time
#
# Mean seconds of one selection (all the rows, ranking up to the largest p), on this machine
# (the selections on all the data run one at a time, so `n_jobs` does not affect these times).
# The paper's times are Matlab on its hardware, for ranking *all* features; only the order of
# the methods is comparable.

# %%
table6 = cmp.timing_table()
table6.to_csv(OUTPUT / "cmqfs_paper_table6_time.csv")
print(table6.map(lambda v: f"{v:.4f}").to_string())

# %% [markdown]
# ## 5. Tables 7 and 8: one-tailed paired t-tests
#
# As in the paper: H0 mu_CMQFS <= mu_baseline against H1 mu_CMQFS > mu_baseline, one pair per
# (data set, p) -- the accuracy averaged over the 10 x 10 folds -- pooled over the data sets
# (`paired_over="k"`; fs.compare warns that these pairs are not independent). The paper reports
# raw p-values; we add Holm's adjustment over the five comparisons (the family the paper tests).
# Then, per data set, fs.compare's default: the corrected resampled t-test over the 10 x 10 folds
# (Nadeau and Bengio 2003), whose variance allows for the folds' overlapping training sets.

# %%
tests = {}
for clf, name, table in (("1-NN", "1nn", "table7"), ("SVM", "svm", "table8")):
    tests[clf] = cmp.ttest("CMQFS", alternative="greater", classifier=clf, paired_over="k").frame
    tests[clf].to_csv(OUTPUT / f"cmqfs_paper_{table}_ttest_{name}.csv", index=False)
    summary = cmp.test_summary("ttest", "CMQFS", classifier=clf, paired_over="k")
    save_text(f"cmqfs_paper_{table}_ttest_{name}.txt", summary.as_text())
    print(summary)
    print()

per_dataset = pd.DataFrame({
    (clf, dataset): cmp.ttest("CMQFS", classifier=clf, dataset=dataset).frame.set_index("method")["p_value"]
    for clf in ("1-NN", "SVM") for dataset in DATA}).T
per_dataset.index.names = ["classifier", "dataset"]
print("corrected resampled t-tests per data set, one-tailed p-values (unadjusted), CMQFS vs each baseline:")
print(per_dataset.map(lambda v: f"{v:.3g}").to_string())

# %% [markdown]
# The pairs of these t-tests are not independent samples from one population of (data set, p)
# cells: accuracies at neighbouring p of one data set are strongly correlated, and the cells of
# a data set with many values of p weigh more. Demsar (2006) recommends rank-based tests over
# data sets: the Wilcoxon signed-rank test for two methods and, for several, Friedman's test with
# the Nemenyi post-hoc test. With four data sets these have little power; we show them because
# reviewers ask for them, not because four blocks can settle anything.

# %%
wilcoxon = cmp.wilcoxon("CMQFS", classifier="1-NN", paired_over="datasets").frame
print(wilcoxon[["comparison", "n", "statistic", "p_value", "p_adjusted"]].to_string(index=False))
friedman = cmp.friedman(classifier="1-NN")
save_text("cmqfs_paper_friedman_1nn.txt", friedman.summary().as_text())
print(friedman)
ax = friedman.plot()
save_figure(ax.figure, "cmqfs_paper_cd_1nn.png", dpi=110)

# %% [markdown]
# ## 6. Selection bias: the same comparison with selection inside the folds
#
# Step 2 of the paper's protocol lets every test fold take part in the selection. With
# `select_in_fold=True` each method selects inside each training fold and the classifier is
# tested on rows the selector never saw. We run the 1-NN comparison again this way and put the
# Avg. of the two protocols side by side (the difference is the optimism of the paper's
# protocol).

# %%
honest_data = {name: DATA[name] for name in (["wine", "madelon_like"] if QUICK else DATA)}
honest = fs.compare("class ~ .", honest_data, METHODS, k={name: K[name] for name in honest_data},
                    classifier={"1-NN": "1nn"}, cv=CV, repeats=1 if QUICK else REPEATS, random_state=0,
                    select_in_fold=True, n_jobs=N_JOBS, progress=False)
paper_avg = cmp.summary_frame(classifier="1-NN")
honest_avg = honest.summary_frame(classifier="1-NN")
bias = pd.DataFrame({
    (dataset, protocol): [100 * frame.loc[(dataset, "Avg."), (label, "mean")] for label in METHODS]
    for dataset in honest_data
    for protocol, frame in (("all data", paper_avg), ("in fold", honest_avg))}, index=list(METHODS)).T
bias.index.names = ["dataset", "selection"]
bias.round(2).to_csv(OUTPUT / "cmqfs_paper_selection_bias.csv")
print("Avg. 1-NN accuracy (%) by protocol:")
print(bias.round(2).to_string())
print(honest.summary(dataset="wine"))

# %% [markdown]
# ## 7. How stable is each selection?
#
# The accuracy tables say nothing about whether a method would choose the same features on
# slightly different data. `fs.stability` reruns a method on bootstrap samples and measures the
# agreement of the selected sets with Nogueira, Sechidis and Brown's (2018) index (1: always the
# same set; 0: the agreement of random sets), with its 95 % confidence interval. Wine, top 5.

# %%
B = 20 if QUICK else 100
stability_rows = []
stability_results = {}
for label, spec in METHODS.items():
    method, params = (spec, {}) if isinstance(spec, str) else spec
    result = fs.stability("class ~ .", DATA["wine"], (method, params), k=5, n_bootstrap=B, random_state=0,
                          standardize=True, progress=False)
    stability_results[label] = result
    stability_rows.append({"method": label, "Phi": result.stability, "lower": result.lower, "upper": result.upper,
                           "most frequent": ", ".join(result.frequency.index[:5])})
stability_table = pd.DataFrame(stability_rows)
stability_table.to_csv(OUTPUT / "cmqfs_paper_stability_wine.csv", index=False)
print(stability_table.round(3).to_string(index=False))
ax = stability_results["CMQFS"].plot()
save_figure(ax.figure, "cmqfs_paper_stability_wine.png", dpi=110)

# %% [markdown]
# ## 8. Against the paper (wine), and a reading of the numbers
#
# The paper reports wine at p = 2, 8 and 9 (Table 4: 1-NN, Table 5: SVM). Below, its cells next
# to this run's, then a reading computed from the tables above (in quick mode, with 2 repeats,
# differences of a point or two are noise).

# %%
PAPER = {  # Zhao et al. (2015), Tables 4 and 5, wine rows; columns as METHODS
    "1-NN": {2: [84.24, 84.86, 92.12, 84.80, 92.71, 92.71],
             8: [97.15, 95.49, 94.34, 97.30, 94.93, 98.44],
             9: [95.52, 96.60, 96.63, 96.07, 97.22, 98.43]},
    "SVM": {2: [90.88, 89.93, 93.85, 90.94, 94.93, 94.96],
            8: [97.15, 98.33, 97.10, 97.22, 96.11, 97.77],
            9: [96.56, 97.71, 97.22, 97.22, 97.77, 98.88]},
}
PAPER_TTEST = {  # Tables 7 and 8: one-tailed p-values, CMQFS vs ..., pooled over 12 data sets
    "1-NN": {"FisherScore": 6.41e-3, "LaplacianScore": 2.28e-4, "MIFS": 2.10e-2, "MIFS_U": 2.74e-2, "mrmr": 2.54e-2},
    "SVM": {"FisherScore": 3.58e-9, "LaplacianScore": 1.01e-6, "MIFS": 1.61e-6, "MIFS_U": 1.73e-7, "mrmr": 4.56e-6},
}
rows = []
for clf, cells in PAPER.items():
    frame = cmp.summary_frame(classifier=clf)
    for p, published in cells.items():
        for label, value in zip(METHODS, published):
            ours = 100 * frame.loc[("wine", p), (label, "mean")]
            rows.append({"classifier": clf, "p": p, "method": label, "paper": value, "this_run": round(ours, 2),
                         "difference": round(ours - value, 2)})
wine_vs_paper = pd.DataFrame(rows)
wine_vs_paper.to_csv(OUTPUT / "cmqfs_paper_wine_vs_paper.csv", index=False)
print(wine_vs_paper.pivot_table(index=["classifier", "p"], columns="method", values=["paper", "this_run"],
                                sort=False).reindex(columns=list(METHODS), level=1).to_string())

# %%
lines = []
diff = wine_vs_paper["difference"]
worst = wine_vs_paper.loc[diff.abs().idxmax()]
lines.append(f"Wine, the paper's {len(diff)} cells (p = 2, 8, 9 x 6 methods x 2 classifiers): this run minus the "
             f"paper has mean "
             f"{diff.mean():+.2f} points, median |difference| {diff.abs().median():.2f}; "
             f"{int((diff.abs() <= 1).sum())} of {len(diff)} cells within 1 point and "
             f"{int((diff.abs() <= 2).sum())} within 2; the largest gap is {worst['difference']:+.2f} "
             f"({worst['method']}, {worst['classifier']}, p = {worst['p']}).")
for clf in PAPER:
    part = wine_vs_paper[wine_vs_paper["classifier"] == clf]
    paper_best, our_best = [], []
    for p, group in part.groupby("p"):
        paper_best.append(group.loc[group["paper"] >= group["paper"].max() - 1e-9, "method"].tolist())
        our_best.append(group.loc[group["this_run"] >= group["this_run"].max() - 1e-9, "method"].tolist())
    in_paper = sum("CMQFS" in best for best in paper_best)
    in_run = sum("CMQFS" in best for best in our_best)
    lines.append(f"  {clf}: CMQFS is best or tied best at {in_paper} of 3 wine rows in the paper and at "
                 f"{in_run} of 3 in this run (this run's best per row: "
                 + "; ".join(f"p = {p}: {', '.join(best)}" for p, best in zip(sorted(PAPER[clf]), our_best)) + ").")
for clf in ("1-NN", "SVM"):
    frame = cmp.summary_frame(classifier=clf)
    avg = {label: 100 * frame.loc[("(all)", "Avg."), (label, "mean")] for label in METHODS}
    order = sorted(avg, key=avg.get, reverse=True)
    test = tests[clf].set_index("method")
    significant = [m for m in test.index if test.loc[m, "p_value"] < 0.05]
    significant_holm = [m for m in test.index if test.loc[m, "p_adjusted"] < 0.05]
    lines.append(f"{clf}, Avg. over the {len(DATA)} data sets: " + ", ".join(f"{m} {avg[m]:.2f}" for m in order)
                 + f". CMQFS ranks {order.index('CMQFS') + 1} of {len(order)} (the paper: 1 of 6 over its 12 data "
                   f"sets).")
    lines.append(f"  Pooled one-tailed t-tests (n = {int(test['n'].iloc[0])} pairs): p < 0.05 against "
                 f"{len(significant)} of 5 baselines ({', '.join(significant) or 'none'}); after Holm "
                 f"{len(significant_holm)} of 5. The paper: all 5 below 0.05 (largest "
                 f"{max(PAPER_TTEST[clf].values()):.3g}).")
    best_by_dataset = []
    for dataset in DATA:
        row = {label: frame.loc[(dataset, "Avg."), (label, "mean")] for label in METHODS}
        top = max(row.values())
        winners = [label for label, value in row.items() if value >= top - 1e-12]
        best_by_dataset.append(f"{dataset}: {', '.join(winners)}")
    lines.append("  Best Avg. per data set: " + "; ".join(best_by_dataset) + ".")
lines.append(f"Friedman over the {friedman.n_blocks} data sets (1-NN): chi2 = {friedman.statistic:.2f}, "
             f"p = {friedman.p_value:.3g}; mean ranks " + ", ".join(
                 f"{m} {r:.2f}" for m, r in friedman.mean_ranks.sort_values().items())
             + f"; Nemenyi CD = {friedman.critical_difference:.2f}, so no two methods can differ significantly "
               f"unless their mean ranks are that far apart"
             + (" -- none are." if friedman.nemenyi.where(~np.eye(len(METHODS), dtype=bool)).min().min() >= 0.05
                else "."))
for dataset in honest_data:
    gaps = bias.loc[(dataset, "all data")] - bias.loc[(dataset, "in fold")]
    lines.append(f"Selection bias, {dataset} (1-NN Avg.): selecting on all the data reads {gaps.mean():+.2f} points "
                 f"higher on average than selecting in the folds (range {gaps.min():+.2f} to {gaps.max():+.2f} over "
                 f"the methods; CMQFS {gaps['CMQFS']:+.2f}).")
ranked = stability_table.sort_values("Phi", ascending=False)
lines.append(f"Stability on wine (top 5, {B} bootstraps): " + ", ".join(
    f"{row.method} {row.Phi:.2f} [{row.lower:.2f}, {row.upper:.2f}]" for row in ranked.itertuples()) + ".")
reading = "\n".join(lines)
print(reading)
save_text("cmqfs_paper_reading.txt", reading)

# %% [markdown]
# How to read this. The first lines compare the paper's wine cells with this run: the size of
# the gaps is printed, and gaps of a point or two are what different fold draws, a different
# tie rule of 1-NN and details of the paper's setup that it does not report (its discretisation
# code, its exact folds) can produce on 178 rows, where one misclassified row moves a repeat's
# accuracy by 0.56 points. The next lines check the paper's claims on the data available here:
# whether CMQFS has the best Avg., whether the pooled one-tailed t-tests reach 5 %, and which
# method is best per data set. The paper pooled 12 data sets, most of which are not available
# offline, so a different verdict on four data sets does not contradict it; it only fails to
# confirm it. Two cautions apply to the paper's protocol and therefore to any reproduction of
# it. First, selection on all the data is optimistic; section 6 measures by how much for each
# data set (the size depends on how many rows the selection sees and how many noise features
# compete, so it is measured, not assumed). Second, the pooled t-test treats every (data set,
# p) cell as an independent pair, which they are not; the rank tests of section 5, which treat data sets as
# the units, are the safer summary and, with four data sets, cannot establish a ranking.
# Finally, section 7 adds what the accuracy tables cannot show: how much each method's choice
# moves when the rows change.

# %%
print(f"\nvignette finished in {time.perf_counter() - started:.1f} s "
      f"({'quick' if QUICK else 'full'} mode, {REPEATS} repeats)")

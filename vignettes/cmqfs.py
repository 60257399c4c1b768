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
# # CMQFS: feature selection by community modularity
#
# This vignette walks through CMQFS (Zhao, Wu, Chen, Zhang and Bai, 2015, *A feature selection
# method via community modularity*, Neurocomputing 151, 376-389) as implemented in `fstools`:
#
# 1. CMQFS on the wine data: the result, its summary and the score plot;
# 2. the paper's worked example on iris (section 4.2.1, Table 1), recomputed;
# 3. the feature vector graph (FVG) of one feature, drawn as in the paper's Fig. 4;
# 4. the accuracy of a 1-nearest-neighbour classifier on the top *p* features of wine, for
#    CMQFS and two scikit-learn rankings.
#
# The script runs as it is (`python vignettes/cmqfs.py`) and writes its figures and tables to
# `$FSTOOLS_VIGNETTE_OUTPUT` (default: `vignettes/output/`). With `FSTOOLS_QUICK=1` the
# cross-validation in part 4 uses 2 repeats instead of 10, so that the whole script runs in
# seconds; the numbers quoted in the prose below are always the ones computed in this run.

# %%
import matplotlib

matplotlib.use("Agg")

import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import sklearn
from sklearn.feature_selection import SelectKBest, f_classif, mutual_info_classif
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from _setup import OUTPUT, QUICK, fs, save_figure, save_text, say, start_vignette, started, tabulate
from fstools.core.arrays import standardize_columns
from fstools.methods.cmqfs import feature_vector_graph_edges, modularity_scores
from fstools.results.plotting import plot_feature_vector_graph

start_vignette()


# %% [markdown]
# ## 1. CMQFS on wine
#
# The wine data (178 wines, 13 chemical measurements, 3 cultivars) is bundled. A formula names
# the response and the candidate features; `k = 5` asks for five features. CMQFS first scores
# every feature by its relevance `Q` (the modularity of the class partition of the feature's
# k-nearest-neighbour graph), takes the best, then adds one feature at a time by
# $w = \beta\,\mathrm{NQ} + (1 - \beta)\,\mathrm{NRI}$: normalised relevance plus normalised *relevant
# independency* (conditional mutual information with the class given the already selected
# features), with `beta = 0.3` as in the paper.

# %%
wine = fs.datasets.load("wine")
res = fs.select("class ~ .", wine, method="cmqfs", k=5)
say(res)

# %%
summary = res.summary()
say(summary)

# %% [markdown]
# The scores table has one row per candidate feature: the selected ones first, in the order they
# were added (`step`, with the `w` and `NRI` that won that step), then the rest by `Q`. Note that
# the selection order is not the `Q` order: a feature with a high `Q` that mostly repeats what is
# already selected loses to a less relevant but more complementary one.

# %%
say(res.scores.round(4).pipe(tabulate))
say()
say(res.steps.round(4).pipe(tabulate))
by_q = res.scores["Q"].sort_values(ascending=False)
skipped = [f for f in by_q.index[: len(res.selected)] if f not in res.selected]
say(f"\nTop {len(res.selected)} by Q alone: {list(by_q.index[:len(res.selected)])}")
say(f"CMQFS selected:     {res.selected}")
say(f"High-Q features passed over for redundancy: {skipped or 'none'}")

save_text("wine_cmqfs_summary.txt", repr(res) + "\n\n" + summary.as_text())
res.scores.to_csv(OUTPUT / "wine_cmqfs_scores.csv")
res.steps.to_csv(OUTPUT / "wine_cmqfs_steps.csv", index=False)

# %%
# The relevance Q of every candidate, the selected ones marked (`res.plot()` alone draws the
# criterion w at the step that chose each feature).
fig, ax = plt.subplots(figsize=(7.5, 4.2))
res.plot(ax=ax, value="relevance")
save_figure(fig, "wine_cmqfs_scores.png")

# %% [markdown]
# ## 2. The paper's worked example: iris, Table 1
#
# Section 4.2.1 of the paper builds the FVG of each iris feature on the 100 samples of classes
# 1 and 2 (setosa and versicolor) and reports, in Table 1, the modularity
# Q = 0.2142, 0.1824, 0.4883, 0.4828 for features 1-4 (sepal length, sepal width, petal length,
# petal width). We recompute them with `modularity_scores` on the same samples.
#
# **Which route.** The paper's experiments standardise every feature to zero mean and unit
# variance (section 5.2). Z-scoring the 100 rows with the sample standard deviation (n - 1, as
# MATLAB's `zscore` and R's `scale` do) before building the graphs is the route that reproduces
# Table 1: on the 100 rows of the iris bundled here (scikit-learn's, which since 0.20 has two setosa
# rows corrected to Fisher's published values; UCI's `iris.data` still has the two typos),
# z-scored with n - 1, the kernel reproduces all four published values to the four printed
# decimals. Standardising cannot change a single feature's ranks, but it changes which distances
# are tied in floating point (iris is recorded to 0.1 cm, so many distances tie exactly in the raw
# values and only nearly after scaling), and the k-nearest-neighbour graph breaks ties by those
# floating-point distances. So the route has to be exact: fstools' `standardize_columns(X,
# ddof=1)` on the C-ordered matrix gives all four values; the same z-scores with each column's mean
# summed pairwise differ in the last bits and move features 1 and 3 in the fourth decimal
# (0.2151, 0.4903). On the raw values sepal width (feature 2) gives 0.1902, and on UCI's copy of
# the data 0.1833 (an earlier version of this vignette put the difference down to the data
# version: it is the standardisation). The table shows the routes.

# %%
iris = fs.datasets.load("iris")
features = [c for c in iris.columns if c != "class"]
two = iris["class"].isin(["setosa", "versicolor"]).to_numpy()
X_two = iris.loc[two, features].to_numpy(dtype=np.float64)
y_two = iris.loc[two, "class"].cat.remove_unused_categories().cat.codes.to_numpy(np.int32)
two_names = ["setosa", "versicolor"]

# z-score with the sample standard deviation (n - 1), as MATLAB's zscore and R's scale, by fstools'
# own standardiser on the C-ordered 100 x 4 matrix (its means accumulate row by row)
Z_two = standardize_columns(np.ascontiguousarray(X_two), ddof=1)
# the same z-scores with each column's mean summed pairwise (NumPy on a contiguous column):
# equal up to the last bits, which is enough to break some ties among distances the other way
Z_pairwise = np.column_stack([(x - x.mean()) / x.std(ddof=1) for x in np.asfortranarray(X_two).T])
UCI_ROWS = {35: [4.9, 3.1, 1.5, 0.1], 38: [4.9, 3.1, 1.5, 0.1]}  # 1-based rows of UCI iris.data
X_uci = X_two.copy()
for row, values in UCI_ROWS.items():
    X_uci[row - 1] = values

published = np.array([0.2142, 0.1824, 0.4883, 0.4828])
q_zscored = modularity_scores(Z_two, y_two, 2)
q_pairwise = modularity_scores(Z_pairwise, y_two, 2)
q_sklearn = modularity_scores(X_two, y_two, 2)
q_uci = modularity_scores(X_uci, y_two, 2)
table1 = pd.DataFrame({
    "feature": features,
    "published": published,
    "Q_zscored": q_zscored,
    "diff_zscored": q_zscored - published,
    "Q_zscored_pairwise": q_pairwise,
    "Q_raw": q_sklearn,
    "Q_uci_raw": q_uci,
}, index=pd.Index(range(1, 5), name="r"))
say(table1.round(4).pipe(tabulate))
table1.to_csv(OUTPUT / "iris_table1_q.csv")

match = np.round(q_zscored, 4) == published
say(f"\nz-scored (n - 1): features matching Table 1 to 4 decimals: {[int(j) + 1 for j in np.flatnonzero(match)]}")
order = [int(j) + 1 for j in np.argsort(-q_zscored, kind="stable")]
say(f"Ranking by Q: {order}; the paper's: [3, 4, 1, 2]")

# %% [markdown]
# All four values of Table 1 and the ranking {3, 4, 1, 2} are reproduced. The graphs below are
# drawn on the raw values (the same edges up to ties; the titles give each graph's Q).
#
# As an independent check of the kernel, which never builds the graph, we enumerate the edges of
# each graph with `feature_vector_graph_edges` and compute the Newman-Girvan modularity of the
# class partition from them directly: $Q = \sum_c \left[ l_c / M - (d_c / 2M)^2 \right]$.


# %%
def modularity_from_edges(edges, y):
    """Newman-Girvan Q of the class partition, from an edge list."""
    edges = np.asarray(edges)
    m = len(edges)
    within = y[edges[:, 0]] == y[edges[:, 1]]
    degree = np.bincount(edges.ravel(), minlength=len(y))
    q = 0.0
    for c in np.unique(y):
        l_c = np.count_nonzero(within & (y[edges[:, 0]] == c))
        d_c = degree[y == c].sum()
        q += l_c / m - (d_c / (2.0 * m)) ** 2
    return q


edges_two = [feature_vector_graph_edges(X_two[:, r], y_two) for r in range(4)]
check = pd.DataFrame({
    "feature": features,
    "edges": [len(e) for e in edges_two],
    "between_class_edges": [int(np.count_nonzero(y_two[e[:, 0]] != y_two[e[:, 1]])) for e in edges_two],
    "Q_kernel": q_sklearn,
    "Q_from_edges": [modularity_from_edges(e, y_two) for e in edges_two],
})
say(check.pipe(tabulate))
say(f"max |Q_kernel - Q_from_edges| = {np.abs(check['Q_kernel'] - check['Q_from_edges']).max():.2e}")

# %% [markdown]
# ### CMQFS on the full iris data (3 classes)

# %%
res_iris = fs.select("class ~ .", iris, method="cmqfs")
say(res_iris)
say(res_iris.scores.round(4).pipe(tabulate))
res_iris.scores.to_csv(OUTPUT / "iris_cmqfs_scores.csv")
save_text("iris_cmqfs_summary.txt", repr(res_iris) + "\n\n" + res_iris.summary().as_text())

# %% [markdown]
# ## 3. The feature vector graph, as in the paper's Fig. 4
#
# Each sample is a node, placed by its feature value, on one line per class (samples with equal
# values coincide). Sample i is joined to its p_i - 1 nearest neighbours in feature value (p_i is
# the size of its class, here 50), and the graph is the union of these links. A relevant feature
# puts a sample's nearest neighbours in its own class, so almost all edges stay within a class
# (grey arcs above the class's line) and few cross between the classes (black). Petal width
# (feature 4) separates setosa from versicolor completely, and only the samples nearest the gap
# have neighbours in the other class; sepal width (feature 2) overlaps, and many of its edges
# cross. The counts are in the panel titles.

# %%
fig, axes = plt.subplots(2, 1, figsize=(9.5, 6.5))
for ax, r, letter in zip(axes, [3, 1], "ab"):
    edges = edges_two[r]
    crossing = int(np.count_nonzero(y_two[edges[:, 0]] != y_two[edges[:, 1]]))
    plot_feature_vector_graph(
        X_two[:, r], y_two, edges, ax=ax, class_names=two_names,
        title=f"({letter}) FVG of feature {r + 1}, {features[r]}: Q = {q_sklearn[r]:.4f} "
              f"({len(edges)} edges, {crossing} between classes)")
    ax.set_xlabel(f"{features[r]} (cm)")
fig.tight_layout()
save_figure(fig, "iris_fvg.png")

# %% [markdown]
# ## 4. 1-NN accuracy of the top p features on wine
#
# The paper's evaluation (section 5.1-5.2): features standardised to zero mean and unit variance,
# a 1-nearest-neighbour classifier (Euclidean), 10-fold cross-validation repeated 10 times, and the
# accuracy of the top-*p* features for each *p*. For comparison we rank the features also with
# two scikit-learn scores:
#
# * `SelectKBest(f_classif)`: the one-way ANOVA F. For a given data set F is the Fisher score
#   times a constant, (n - K) / (K - 1), so this ranking is the paper's Fisher-score baseline;
# * `mutual_info_classif(random_state=0)`: a k-NN estimate of the mutual information with the
#   class (a relevance-only ranking, no redundancy term).
#
# **Protocol.** The paper selects the features *once, on all the data*, and then cross-validates
# only the classifier on the selected columns. The held-out fold has then already been used to
# choose the features, so the accuracies are optimistic (selection bias). The honest protocol
# selects *inside* each training fold. We compute both: the paper's protocol for comparison with
# its Table 4, and selection within the folds. Both use the same splits
# (`RepeatedStratifiedKFold(n_splits=10, random_state=0)`), so methods are compared on paired
# folds; the error bars are the standard deviation over the repeats of the per-repeat mean
# accuracy. (The accuracy of a fold depends only on the *set* of columns given to the classifier,
# so each (fold, set of columns) is fitted once and shared between methods whose top-p sets
# coincide, e.g. p = 13.) Quick mode evaluates p = 1, 2, 3, 5, 8, 9, 13 only.

# %%
REPEATS = 2 if QUICK else 10
P_VALUES = [1, 2, 3, 5, 8, 9, 13] if QUICK else list(range(1, 14))
X_wine = wine.drop(columns="class").to_numpy(dtype=np.float64)
y_wine = wine["class"].cat.codes.to_numpy()
wine_features = list(wine.columns.drop("class"))
n_features = X_wine.shape[1]


def rank_cmqfs(X, y):
    # Q and the mu/sigma discretisation do not change under standardisation, so raw X will do.
    return fs.FeatureSelector(method="cmqfs", k=X.shape[1], n_jobs=1).fit(X, y).ranking_


def rank_anova(X, y):
    selector = SelectKBest(f_classif, k="all").fit(X, y)
    return np.argsort(-selector.scores_, kind="stable")


def rank_mutual_info(X, y):
    return np.argsort(-mutual_info_classif(X, y, random_state=0), kind="stable")


RANKERS = {"CMQFS": rank_cmqfs, "ANOVA F (Fisher)": rank_anova, "mutual information": rank_mutual_info}


def one_nn():
    return make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=1))


cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=REPEATS, random_state=0)
splits = list(cv.split(X_wine, y_wine))

# The rankings on all data (the paper's protocol).
rankings = {name: rank(X_wine, y_wine) for name, rank in RANKERS.items()}
assert list(rankings["CMQFS"]) == [wine_features.index(f) for f in
                                   fs.select("class ~ .", wine, method="cmqfs").selected]
ranking_table = pd.DataFrame({name: [wine_features[j] for j in r] for name, r in rankings.items()},
                             index=pd.Index(range(1, n_features + 1), name="rank"))
say(ranking_table.pipe(tabulate))
ranking_table.to_csv(OUTPUT / "wine_rankings.csv")

# %%
t0 = time.perf_counter()
fitted = {}


def fold_accuracy(s, columns):
    """Accuracy of standardise + 1-NN on fold ``s`` (of ``splits``) with the given columns."""
    key = (s, tuple(sorted(int(j) for j in columns)))
    if key not in fitted:
        train, test = splits[s]
        cols = list(key[1])
        # The data are known to be finite: skip scikit-learn's per-call checks (speed only).
        with sklearn.config_context(assume_finite=True, skip_parameter_validation=True):
            model = one_nn().fit(X_wine[np.ix_(train, cols)], y_wine[train])
            fitted[key] = model.score(X_wine[np.ix_(test, cols)], y_wine[test])
    return fitted[key]


def per_repeat_mean(values):
    return np.asarray(values).reshape(REPEATS, -1).mean(axis=1)


rows = []
# (a) the paper's protocol: rank once on all data, cross-validate the classifier.
for name, ranking in rankings.items():
    for p in P_VALUES:
        acc = [fold_accuracy(s, ranking[:p]) for s in range(len(splits))]
        rows.append((name, "select on all data (paper)", p, per_repeat_mean(acc)))

# (b) selection inside each training fold: one full ranking per fold, then every p.
fold_rankings = {name: [rank(X_wine[train], y_wine[train]) for train, _ in splits]
                 for name, rank in RANKERS.items()}
for name in RANKERS:
    for p in P_VALUES:
        acc = [fold_accuracy(s, fold_rankings[name][s][:p]) for s in range(len(splits))]
        rows.append((name, "select within folds", p, per_repeat_mean(acc)))
same_as_all_data = {name: np.mean([list(r) == list(rankings[name]) for r in fold_rankings[name]])
                    for name in RANKERS}
say("share of folds whose ranking equals the all-data ranking: "
      + ", ".join(f"{name} {share:.0%}" for name, share in same_as_all_data.items()))

accuracy = pd.DataFrame({
    "method": [r[0] for r in rows],
    "protocol": [r[1] for r in rows],
    "p": [r[2] for r in rows],
    "mean": [r[3].mean() for r in rows],
    "sd": [r[3].std(ddof=1) if REPEATS > 1 else np.nan for r in rows],
    "repeats": REPEATS,
})
accuracy.to_csv(OUTPUT / "wine_1nn_accuracy.csv", index=False)
say(f"cross-validation: {len(splits)} folds x {len(P_VALUES)} values of p x {len(RANKERS)} methods "
      f"x 2 protocols = {len(fitted)} distinct fits, {time.perf_counter() - t0:.1f} s")

wide = accuracy.pivot_table(index="p", columns=["protocol", "method"], values="mean")
say((100 * wide).round(2).pipe(tabulate, by_first_level=True))

# %%
PROTOCOLS = ["select on all data (paper)", "select within folds"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
for ax, protocol in zip(axes, PROTOCOLS):
    for offset, name in zip([-0.12, 0.0, 0.12], RANKERS):
        part = accuracy[(accuracy["protocol"] == protocol) & (accuracy["method"] == name)]
        ax.errorbar(part["p"] + offset, 100 * part["mean"], yerr=100 * part["sd"].fillna(0.0),
                    marker="o", markersize=4, capsize=2, linewidth=1.2, label=name)
    ax.set_title(protocol)
    ax.set_xlabel("number of features p (top of each ranking)")
    ax.set_xticks(P_VALUES)
    ax.grid(alpha=0.3)
axes[0].set_ylabel(f"1-NN accuracy (%), 10-fold CV x {REPEATS}")
axes[0].legend(loc="lower right", fontsize=8)
fig.suptitle("wine: accuracy of the top-p features (error bars: sd over repeats)")
fig.tight_layout()
save_figure(fig, "wine_1nn_accuracy.png")

# %% [markdown]
# ### What the numbers say
#
# The summary below is computed from the table above, so it is true of this run (in quick mode,
# with only 2 repeats, small differences are noise). For reference, the paper's Table 4 (1-NN,
# wine, selection on all data) reports for CMQFS 92.71, 98.44 and 98.43 % at p = 2, 8 and 9, and
# for the Fisher score 84.24, 97.15 and 95.52 %.

# %%
PUBLISHED = pd.DataFrame({"CMQFS": [92.71, 98.44, 98.43], "ANOVA F (Fisher)": [84.24, 97.15, 95.52]},
                         index=pd.Index([2, 8, 9], name="p"))
paper = wide[PROTOCOLS[0]]
ours = (100 * paper.loc[PUBLISHED.index, list(PUBLISHED.columns)]).round(2)
say("Paper's Table 4 vs this run (select on all data), accuracy %:")
say(pd.concat({"published": PUBLISHED, "this run": ours, "difference": (ours - PUBLISHED).round(2)},
                axis=1).pipe(tabulate, by_first_level=True))
say()

lines = []
gap = (ours - PUBLISHED).abs()
lines.append("Against the paper's Table 4 (p = 2, 8, 9): largest |difference| "
             + "; ".join(f"{name} {gap[name].max():.2f} points (p = {int(gap[name].idxmax())})"
                         for name in PUBLISHED.columns) + ".")
all_features = 100 * paper.loc[n_features].iloc[0]
lines.append(f"All {n_features} features: {all_features:.2f}% (the same for every ranking).")
for protocol in PROTOCOLS:
    table = wide[protocol]
    lines.append(f"{protocol}:")
    for name in RANKERS:
        acc = table[name]
        best_p = int(acc.idxmax())
        smallest = int(acc.index[acc >= acc.max() - 0.01][0])
        lines.append(f"  {name:20s} best {100 * acc.max():.2f}% at p = {best_p}; "
                     f"within 1 point of its best from p = {smallest}; at p = 2: {100 * acc.loc[2]:.2f}%")
    for other in list(RANKERS)[1:]:
        diff = (table["CMQFS"] - table[other]).loc[: n_features - 1]
        lines.append(f"  CMQFS vs {other}: higher at {int((diff > 1e-12).sum())}, equal at "
                     f"{int((diff.abs() <= 1e-12).sum())}, lower at {int((diff < -1e-12).sum())} of "
                     f"the {len(diff)} values of p < {n_features}; mean difference "
                     f"{100 * diff.mean():+.2f} points")
optimism = 100 * (wide[PROTOCOLS[0]] - wide[PROTOCOLS[1]]).loc[: n_features - 1].mean()
lines.append(f"Selection bias (all-data minus within-fold accuracy, mean over p < {n_features}): "
             + "; ".join(f"{name} {value:+.2f}" for name, value in optimism.items()) + " points.")
conclusion = "\n".join(lines)
say(conclusion)
save_text("wine_1nn_conclusion.txt", conclusion)

# %%
say(f"\nvignette finished in {time.perf_counter() - started:.1f} s "
      f"({'quick' if QUICK else 'full'} mode, {REPEATS} repeats)")

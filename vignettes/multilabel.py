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
# # Multi-label feature selection: ELC against five baselines
#
# This vignette runs ELC (Wang, Xu, Wei, Zhang and Ma, 2020, *Multi-label feature selection by
# embedding label correlations*, Applied Sciences 10, 8093) as implemented in `fstools`, and
# repeats the paper's evaluation (section 5, Appendix B) on synthetic data:
#
# 1. a synthetic multi-label data set with informative, redundant and noise features;
# 2. ELC on it through the formula front end: the result, its summary and the PADM iterations;
# 3. ELC against the paper's three baselines -- ML-MIFS, CMFS and LLSF -- and two simple references
#    (per-label Fisher score and per-label mutual information, averaged over the labels): an ML-kNN
#    classifier on the top k' = d/10, 2d/10, ..., 9d/10 features, 5-fold cross-validation, the paper's five metrics
#    (average precision, macro AUC, Hamming loss, ranking loss, one-error) with paired t-tests at 5 %;
# 4. the paper's diagnostics of the selected sets against k': residual redundancy R(F) (Eq. 16,
#    the paper's Fig. 1) and residual label correlation C(F) (Eq. 17, Fig. 2).
#
# The script runs as it is (`python vignettes/multilabel.py`) and writes its figures and tables to
# `$FSTOOLS_VIGNETTE_OUTPUT` (default: `vignettes/output/`). With `FSTOOLS_QUICK=1` the data set is
# smaller (200 rows, 30 features) and cross-validated in 3 folds instead of 5, so that the script
# runs in seconds; every number quoted in the printed text is computed in this run.

# %%
import matplotlib

matplotlib.use("Agg")

import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats
from sklearn.datasets import make_multilabel_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler

from _setup import OUTPUT, QUICK, fs, save_figure, save_text, say, start_vignette, started, tabulate
from fstools.evaluation.mlknn import MLkNN
from fstools.results.labels import method_label

start_vignette()


# %% [markdown]
# ## 1. Data
#
# scikit-learn's `make_multilabel_classification` draws documents as bags of words: each of the
# `l` labels has its own word distribution, a document draws its labels, then its word counts from
# the mixture of its labels' distributions. Its `n_informative` count features carry the labels.
# To this we add, as in the paper's motivation (section 1), *redundant* features (an informative
# count plus a little noise) and *irrelevant* ones (pure noise). All features are standardised to
# zero mean and unit variance before selection and classification (Appendix B), within each
# training fold in part 3.

# %%
N_SAMPLES = 200 if QUICK else 600
N_INFORMATIVE = 12 if QUICK else 24
N_REDUNDANT = 6 if QUICK else 12
N_NOISE = 12 if QUICK else 24
N_LABELS = 6
rng = np.random.default_rng(0)
counts, Y = make_multilabel_classification(n_samples=N_SAMPLES, n_features=N_INFORMATIVE, n_classes=N_LABELS,
                                           n_labels=2, allow_unlabeled=False, random_state=0)
copies = rng.choice(N_INFORMATIVE, size=N_REDUNDANT, replace=False)
X = np.column_stack([counts, counts[:, copies] + rng.normal(scale=0.5, size=(N_SAMPLES, N_REDUNDANT)),
                     rng.normal(size=(N_SAMPLES, N_NOISE))]).astype(np.float64)
feature_names = ([f"inf{j}" for j in range(N_INFORMATIVE)] + [f"red{j}_of_inf{c}" for j, c in enumerate(copies)]
                 + [f"noise{j}" for j in range(N_NOISE)])
label_names = [f"label{c + 1}" for c in range(N_LABELS)]
kind = np.array(["informative"] * N_INFORMATIVE + ["redundant"] * N_REDUNDANT + ["noise"] * N_NOISE)
d = X.shape[1]
data = pd.DataFrame(X, columns=feature_names)
labels = pd.DataFrame(Y, columns=label_names)
say(f"{N_SAMPLES} samples, {d} features ({N_INFORMATIVE} informative, {N_REDUNDANT} redundant copies, "
      f"{N_NOISE} noise), {N_LABELS} labels; label counts {labels.sum().to_dict()}; "
      f"label cardinality {Y.sum(axis=1).mean():.2f}")
standardised = (data - data.mean()) / data.std(ddof=0)
frame = pd.concat([standardised, labels], axis=1)

# %% [markdown]
# ## 2. ELC through the formula front end
#
# Several responses on the left of `~` make a multi-label problem. ELC's defaults are the
# paper's (Appendix B): masked RBF label correlation S, lambda = 1e-3 (the first value of the
# paper's grid), beta = 1e8, tau by the paper's rule, t_max = 1000 and the stopping rule
# $\|W_{t+1} - W_t\| \le 10^{-4}$. The summary shows, per selected feature, the label it is most
# associated with, and the two diagnostics R(F) and C(F) of the selected set.

# %%
K = d // 4
formula = " + ".join(label_names) + " ~ ."
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", ConvergenceWarning)
    res = fs.select(formula, frame, method="elc", k=K)
say(res)
summary = res.summary()
say(summary)
save_text("multilabel_elc_summary.txt", str(summary))
say("\nper-iteration records (first and last rows):")
say(pd.concat([res.iterations.head(3), res.iterations.tail(2)]).drop_duplicates().pipe(tabulate, index=False))
selected_kinds = pd.Series(kind[[feature_names.index(f) for f in res.selected]]).value_counts().to_dict()
say(f"\nthe {K} selected features by kind: {selected_kinds}")

# %% [markdown]
# The paper's tau rule (the spectral radius of $A^\top A$ at the start, then $1 / \max_i \|\psi_i\|$, with
# $\Psi = A^\top A V$) makes the effective step of the W update, $1 / (\beta + 1/\tau)$, tiny once the
# multiplier V has grown, so the iteration usually meets the stopping rule after a few
# iterations. With `tau="lipschitz"` ($\tau = 1/\rho(A^\top A)$ throughout) W keeps moving; the relaxed
# objective of Eq. (3) then decreases. The figure draws both runs.

# %%
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always", ConvergenceWarning)
    moving = fs.select(formula, frame, method="elc", k=K, tau="lipschitz", max_iter=300 if QUICK else 1000)
fig, axes = plt.subplots(1, 3, figsize=(14, 4.6))
for result, label, style in ((res, "tau = 'paper' (default)", "o-"), (moving, "tau = 'lipschitz'", "-")):
    it = result.iterations
    axes[0].plot(it["iteration"], it["objective"], style, markersize=4, label=label)
    axes[1].plot(it["iteration"], it["relaxed_objective"], style, markersize=4, label=label)
    axes[2].semilogy(it["iteration"], it["w_change"], style, markersize=4, label=label)
axes[0].set_title("Eq. (1) for the current p", fontsize=12)
axes[1].set_title(r"Eq. (3): $\frac{1}{2}\|A\,\mathrm{diag}(p)\,W - \Gamma^*\|^2 + \lambda \|W\|_{2,1}$", fontsize=12)
axes[2].set_title(r"$\|W_{t+1} - W_t\|_F$", fontsize=12)
axes[2].axhline(1e-4, color="0.5", linestyle=":", label="tol = 1e-4")
for axis in axes:
    axis.set_xlabel("iteration", fontsize=11)
    axis.tick_params(labelsize=10)
    axis.legend(fontsize=10)
fig.suptitle(f"ELC's PADM iterations on the synthetic data (k = {K}): objective, relaxed objective and step size "
             "per iteration", fontsize=13)
fig.tight_layout()
save_figure(fig, "multilabel_elc_convergence.png")
relaxed = moving.iterations["relaxed_objective"].to_numpy()
increases = int(np.sum(np.diff(relaxed) > 1e-12 * abs(relaxed[0])))
convergence_text = (
    f"ELC with the paper's tau rule stopped after {len(res.iterations)} iteration(s) "
    f"({'stopping rule met' if not caught else 'iteration limit'}); with tau = 1/rho it ran "
    f"{len(moving.iterations)} iterations, the Eq. (3) objective went from {relaxed[0]:.6g} to {relaxed[-1]:.6g} "
    f"with {increases} increase(s); the selected set is "
    f"{'the same' if set(moving.selected) == set(res.selected) else 'different'} "
    f"({len(set(moving.selected) & set(res.selected))} of {K} in common).")
say(convergence_text)

# %% [markdown]
# The authors' published MATLAB code differs from the paper (z-scores with n - 1, a label
# similarity $\exp(-D) / (2 \bar d)$ on plain distances without the mask, a spectral-norm shrinkage of the
# whole matrix, tau = 1/rho, a different stopping rule); `variant="reference-code"` reproduces it.

# %%
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always", ConvergenceWarning)
    code = fs.select(formula, frame, method="elc", k=K, variant="reference-code")
code_kinds = pd.Series(kind[[feature_names.index(f) for f in code.selected]]).value_counts().to_dict()
variant_text = (f"variant='reference-code' selects {code_kinds} (paper variant: {selected_kinds}); "
                f"{len(set(code.selected) & set(res.selected))} of {K} features in common")
say(variant_text)

# %% [markdown]
# ## 3. ML-kNN on the top k' features, 5-fold cross-validation
#
# The protocol of Appendix B: for k' = d/10, 2d/10, ..., 9d/10, an ML-kNN classifier (k = 10
# neighbours, smoothing s = 1, Zhang & Zhou 2007; `fstools.evaluation.mlknn.MLkNN`) on the k' features each
# method selects, 5-fold cross-validation, five metrics. Here the selection is re-run on each
# training fold (the features of the test fold are never seen by the selector); ELC is run once per
# k' (k is part of its model), the baselines rank all features once per fold. The features are
# standardised with the training fold's means and standard deviations.
#
# Baselines: the paper's three -- LLSF (Huang et al. 2016; row norms of its label-specific
# weights), ML-MIFS (Jian et al. 2016; a k-means latent label space, a sample-manifold term and an
# l2,1-sparse regression onto it) and CMFS (Braytee et al. 2017; a non-negative factorisation of
# the labels with an instance-correlation term and an l2,1 penalty), both ranked by the row norms of
# their W, with their default parameters -- and the two simple per-label baselines: the Fisher score
# and the mutual information of each feature with each label, averaged over the labels.

# %%
# The display names of every plot and table come from fstools' one table of labels.
METHODS = {method_label(name): name for name in ("elc", "ml_mifs", "cmfs", "llsf", "ml_fisher", "ml_mi")}
K_VALUES = sorted({max(1, round(d * i / 10)) for i in ((1, 3, 5, 7, 9) if QUICK else range(1, 10))})
# (quick mode: k' = d/10, 3d/10, ..., 9d/10 only)
METRICS = {  # name -> (function of (Y, scores, predictions), higher is better)
    "average precision": (lambda Yt, S, P: fs.metrics.average_precision(Yt, S), True),
    "macro AUC": (lambda Yt, S, P: fs.metrics.macro_auc(Yt, S), True),
    "Hamming loss": (lambda Yt, S, P: fs.metrics.hamming_loss(Yt, P), False),
    "ranking loss": (lambda Yt, S, P: fs.metrics.ranking_loss(Yt, S), False),
    "one-error": (lambda Yt, S, P: fs.metrics.one_error(Yt, S), False),
}
N_FOLDS = 3 if QUICK else 5
folds = list(KFold(n_splits=N_FOLDS, shuffle=True, random_state=0).split(X))
rows = []
elc_runs = elc_at_limit = 0
t0 = time.perf_counter()
for fold, (train, test) in enumerate(folds):
    scaler = StandardScaler().fit(X[train])
    X_train, X_test = scaler.transform(X[train]), scaler.transform(X[test])
    Y_train, Y_test = Y[train], Y[test]
    assert np.all((Y_train.min(axis=0) == 0) & (Y_train.max(axis=0) == 1)), "a label is constant in a fold"
    rankings = {}
    for label, method in METHODS.items():
        if method == "elc":
            continue
        rankings[label] = fs.FeatureSelector(method=method, k=d).fit(X_train, Y_train).ranking_
    for k_prime in K_VALUES:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            chosen = fs.FeatureSelector(method="elc", k=k_prime).fit(X_train, Y_train).ranking_
        elc_runs += 1
        elc_at_limit += any(issubclass(w.category, ConvergenceWarning) for w in caught)
        subsets = {"ELC": chosen, **{label: ranking[:k_prime] for label, ranking in rankings.items()}}
        for label, subset in subsets.items():
            model = MLkNN(n_neighbors=10).fit(X_train[:, subset], Y_train)
            scores = model.predict_proba(X_test[:, subset])
            predictions = model.predict(X_test[:, subset])
            row = {"method": label, "fold": fold, "k": k_prime}
            row.update({name: function(Y_test, scores, predictions) for name, (function, _) in METRICS.items()})
            rows.append(row)
cv = pd.DataFrame(rows)
cv.to_csv(OUTPUT / "multilabel_cv_results.csv", index=False)
say(f"cross-validation: {len(folds)} folds x {len(K_VALUES)} values of k' x {len(METHODS)} methods in "
      f"{time.perf_counter() - t0:.1f} s; ELC stopped at its iteration limit in {elc_at_limit} of {elc_runs} runs")
say(f"k' = {K_VALUES}")

# %% [markdown]
# As in the paper's Table 2, each method's score is the average over the k' values; mean and
# standard deviation over the 5 folds. The best method per metric and every method not
# significantly worse than it (paired two-sided t-test over the folds, 5 %) are marked with `*`
# (the paper's bold). A second table gives ELC against each baseline: the mean paired difference
# (positive = ELC better) and the t-test p-value.

# %%
per_fold = cv.groupby(["method", "fold"])[list(METRICS)].mean()
table = {}
marks = {}
tests = []
for metric, (_, higher) in METRICS.items():
    values = per_fold[metric].unstack("fold").loc[list(METHODS)]
    means = values.mean(axis=1)
    best = means.idxmax() if higher else means.idxmin()
    for label in METHODS:
        if label == best:
            marks[metric, label] = True
        else:
            p = stats.ttest_rel(values.loc[best], values.loc[label]).pvalue
            marks[metric, label] = bool(np.isnan(p) or p >= 0.05)
        table.setdefault(label, {})[metric] = (f"{means[label]:.4f} +- {values.loc[label].std(ddof=1):.4f}"
                                               + (" *" if marks[metric, label] else ""))
    for label in METHODS:
        if label == "ELC":
            continue
        difference = values.loc["ELC"] - values.loc[label]
        if not higher:
            difference = -difference
        result = stats.ttest_rel(values.loc["ELC"], values.loc[label])
        tests.append({"metric": metric, "baseline": label, "ELC better by (mean)": difference.mean(),
                      "t": result.statistic, "p": result.pvalue,
                      "verdict": ("ELC better" if difference.mean() > 0 else "ELC worse")
                      + (" (significant)" if result.pvalue < 0.05 else " (n.s.)")})
table2 = pd.DataFrame(table).T.loc[list(METHODS)]
table2.index.name = "method"
table2.to_csv(OUTPUT / "multilabel_table2.csv")
ttests = pd.DataFrame(tests)
ttests.to_csv(OUTPUT / "multilabel_ttests.csv", index=False)
say("mean +- sd over the folds of the k'-averaged metric (higher is better for the first two):")
say(table2.pipe(tabulate))
say(f"\nELC against each baseline, paired t-test over the {len(folds)} folds:")
say(ttests.pipe(tabulate, index=False, float_format=lambda v: f"{v:.4g}"))

# %%
# One panel per metric, in two rows (five panels side by side are too small to read on a page);
# the sixth panel holds the legend.
fig, axes = plt.subplots(2, 3, figsize=(13, 8.5))
curves = cv.groupby(["method", "k"])[list(METRICS)].mean()
for axis, metric in zip(axes.flat, METRICS):
    for label, marker in zip(METHODS, "osD^vP"):
        line = curves.loc[label, metric]
        axis.plot(line.index, line.to_numpy(), marker=marker, markersize=5, linewidth=2.5 if label == "ELC" else 1.2,
                  label=label)
    axis.set_xlabel("k' (top features)", fontsize=11)
    axis.set_title(metric + (" (higher is better)" if METRICS[metric][1] else " (lower is better)"), fontsize=12)
    axis.tick_params(labelsize=10)
    axis.grid(alpha=0.3)
axes.flat[-1].axis("off")
axes.flat[-1].legend(*axes.flat[0].get_legend_handles_labels(), loc="center", fontsize=12, title="method",
                     title_fontsize=12, frameon=False)
fig.suptitle(f"ML-kNN on the top k' features of each method: five metrics against k', mean over {len(folds)} folds",
             fontsize=13)
fig.tight_layout()
save_figure(fig, "multilabel_metrics_vs_k.png")

# %% [markdown]
# ## 4. Residual redundancy R(F) and residual label correlation C(F)
#
# For each method and k', the selected set F on all the data and its two diagnostics: R(F)
# (Eq. 16), the mean over feature pairs and labels of $\rho(f_i, y_c)^2 \rho(f_j, y_c)^2$, and C(F)
# (Eq. 17), $\|Y^\top X_F X_F^\top Y / n^2 - S\|_F \,/\, (k'(k' - 1))$. Lower is better for both (the
# paper's Figs. 1 and 2). Each figure has a second panel with each method's value relative to
# ELC's, as the values are often so close that the lines of the first panel coincide.

# %%
diagnostics = []
full_rankings = {label: fs.FeatureSelector(method=method, k=d).fit(standardised, labels).ranking_
                 for label, method in METHODS.items() if method != "elc"}
for k_prime in K_VALUES:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        elc_set = fs.FeatureSelector(method="elc", k=k_prime).fit(standardised, labels).ranking_
    sets = {"ELC": elc_set, **{label: ranking[:k_prime] for label, ranking in full_rankings.items()}}
    for label, subset in sets.items():
        diagnostics.append({"method": label, "k": k_prime,
                            "R(F)": fs.metrics.residual_redundancy(X, Y, subset),
                            "C(F)": fs.metrics.residual_label_correlation(X, Y, subset),
                            "informative": int(np.sum(kind[subset] == "informative")),
                            "redundant": int(np.sum(kind[subset] == "redundant")),
                            "noise": int(np.sum(kind[subset] == "noise"))})
diagnostics = pd.DataFrame(diagnostics)
diagnostics.to_csv(OUTPUT / "multilabel_diagnostics.csv", index=False)
say(diagnostics.pivot(index="k", columns="method", values="R(F)")[list(METHODS)].pipe(tabulate, float_format="%.5f"))
say(diagnostics.pivot(index="k", columns="method", values="C(F)")[list(METHODS)].pipe(tabulate, float_format="%.5f"))



def draw_diagnostic(column, name, title, figure_number):
    """Two panels: the diagnostic of each method against k' (log scale), and its difference from
    ELC's in % (the values of the methods are often so close that their lines coincide)."""
    fig, (ax, ax_relative) = plt.subplots(1, 2, figsize=(13, 4.8))
    elc_values = diagnostics[diagnostics["method"] == "ELC"].set_index("k")[column]
    for label, marker, style in zip(METHODS, "osD^vP", ("-", "--", "-.", ":", "--", "-.")):
        line = diagnostics[diagnostics["method"] == label].set_index("k")[column]
        ax.plot(line.index, line.to_numpy(), marker=marker, linestyle=style, markersize=6,
                linewidth=2.5 if label == "ELC" else 1.3, label=label)
        ax_relative.plot(line.index, 100 * (line / elc_values - 1).to_numpy(), marker=marker, linestyle=style,
                         markersize=6, linewidth=2.5 if label == "ELC" else 1.3, label=label)
    ax.set_yscale("log")
    ax.set_ylabel(column + " (lower is better)", fontsize=11)
    ax.set_title(f"{column} of each method's selection", fontsize=12)
    ax_relative.axhline(0, color="0.5", linewidth=0.8)
    ax_relative.set_ylabel(f"{column} relative to ELC's (%)", fontsize=11)
    ax_relative.set_title(f"difference from ELC ({column} / ELC's {column} - 1)", fontsize=12)
    for axis in (ax, ax_relative):
        axis.set_xlabel("k' (selected features)", fontsize=11)
        axis.tick_params(labelsize=10)
        axis.grid(alpha=0.3)
    ax.legend(fontsize=10, loc="upper right")
    fig.suptitle(f"{title} against k' (selection on all {N_SAMPLES} rows; the paper's Fig. {figure_number})",
                 fontsize=13)
    fig.tight_layout()
    save_figure(fig, name)


# %%
draw_diagnostic("R(F)", "multilabel_redundancy_RF.png", "Residual redundancy R(F) (Eq. 16)", 1)

# %%
draw_diagnostic("C(F)", "multilabel_label_correlation_CF.png", "Residual label correlation C(F) (Eq. 17)", 2)

# %% [markdown]
# ## 5. ELC's defaults: does the iteration improve on its start?
#
# ELC's PADM starts from Algorithm 1, line 3 (the k features whose label correlations best
# reproduce S on their own) and should then move p toward a lower Eq. (1). With the paper's
# `beta = 1e8` the W step is about `1/beta`, and rows of W outside p receive no gradient
# (`diag(p)` on the left of Eq. 12), so p never moves. The study below lets it move: smaller
# `beta`, both tau rules, and the gradient on every row (`gradient="all"` of `elc_fit`, a
# study switch), on fresh data from the generator of part 1 (400 rows, 16 informative, 8
# redundant, 16 noise features, 6 labels), 3 seeds x 5 folds, k = 8, ML-kNN average precision on
# the held-out fold and the relative change of Eq. (1) against the starting p. The quick run uses
# one seed, three folds and a few settings; the full run gives the numbers quoted in the
# docstring of `elc` (its Notes).

# %%
from fstools.methods.multilabel import elc_fit, selection_objective  # noqa: E402 (used from here on)


def study_data(seed, n=400, informative=16, redundant=8, noise=16, n_labels=6):
    """The generator of part 1 with its own seed."""
    generator = np.random.default_rng(seed)
    word_counts, labels_ = make_multilabel_classification(n_samples=n, n_features=informative, n_classes=n_labels,
                                                          n_labels=2, allow_unlabeled=False, random_state=seed)
    chosen = generator.choice(informative, size=redundant, replace=False)
    features = np.column_stack([word_counts, word_counts[:, chosen] + generator.normal(scale=0.5, size=(n, redundant)),
                                generator.normal(size=(n, noise))]).astype(np.float64)
    return (features - features.mean(axis=0)) / features.std(axis=0), labels_


STUDY_K = 8
STUDY_SEEDS = range(1) if QUICK else range(3)
STUDY_FOLDS = 3 if QUICK else 5
study_settings = {"paper defaults (beta 1e8, tau 'paper')": dict(beta=1e8, tau="paper", gradient="selected")}
for gradient in ("selected", "all"):
    for beta in ((1e4, 1.0) if QUICK else (1e8, 1e4, 1e2, 1.0, 1e-2)):
        for tau in ("paper", "lipschitz"):
            study_settings[f"gradient {gradient}, beta {beta:g}, tau {tau!r}"] = dict(beta=beta, tau=tau,
                                                                                     gradient=gradient)
study_rows = []
for label, settings in study_settings.items():
    precision, changed, objective_change = [], [], []
    for seed in STUDY_SEEDS:
        features, labels_ = study_data(seed)
        for train, test in KFold(STUDY_FOLDS, shuffle=True, random_state=seed).split(features):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                fit = elc_fit(features[train], labels_[train], STUDY_K, max_iter=100 if QUICK else 300, **settings)
            columns = np.flatnonzero(fit.selected)
            changed.append(int(np.count_nonzero(fit.selected & ~fit.initial)))
            X_train = features[train]
            A = labels_[train].T @ ((X_train - X_train.mean(axis=0)) / X_train.std(axis=0))
            start = selection_objective(A, fit.initial, fit.S, len(train))
            objective_change.append((selection_objective(A, fit.selected, fit.S, len(train)) - start) / start)
            model = MLkNN(n_neighbors=10).fit(features[train][:, columns], labels_[train])
            precision.append(fs.metrics.average_precision(labels_[test],
                                                          model.predict_proba(features[test][:, columns])))
    study_rows.append({"setting": label, "average precision": np.mean(precision),
                       "features exchanged": np.mean(changed), "Eq. 1 change vs start": np.mean(objective_change)})
study = pd.DataFrame(study_rows)
study_text = study.pipe(tabulate, index=False, float_format=lambda v: f"{v:.3f}")
save_text("multilabel_elc_defaults_study.txt", study_text)
say(study_text)
moved = study[study["features exchanged"] > 0.5]
start_precision = study["average precision"].iloc[0]
study_reading = (f"Defaults study: the paper's defaults keep the start (average precision {start_precision:.3f}); "
                 f"{len(moved)} of {len(study) - 1} other settings exchange features, and "
                 f"{int((moved['average precision'] < start_precision).sum())} of those end with a lower average "
                 f"precision and {int((moved['Eq. 1 change vs start'] > 0).sum())} with a higher Eq. (1).")
say(study_reading)

# %% [markdown]
# ## 6. What this run shows

# %%
average_rank = {}
for metric, (_, higher) in METRICS.items():
    means = per_fold[metric].groupby("method").mean()
    average_rank[metric] = means.rank(ascending=not higher)
average_rank = pd.DataFrame(average_rank).mean(axis=1).sort_values()
wins = ttests[ttests["verdict"] == "ELC better (significant)"]
losses = ttests[ttests["verdict"] == "ELC worse (significant)"]
smallest = diagnostics[diagnostics["k"] == K_VALUES[0]].set_index("method")
lines = [
    f"Data: {N_SAMPLES} x {d} ({N_INFORMATIVE} informative, {N_REDUNDANT} redundant, {N_NOISE} noise), "
    f"{N_LABELS} labels; quick mode: {QUICK}.",
    f"ELC with the paper's defaults selected, at k = {K}: {selected_kinds}. {convergence_text}",
    variant_text + ".",
    "Average rank over the five metrics (1 = best): "
    + ", ".join(f"{label} {value:.2f}" for label, value in average_rank.items()) + ".",
    f"Paired t-tests over the folds (5 %): ELC significantly better in {len(wins)} and significantly worse in "
    f"{len(losses)} of {len(ttests)} (metric, baseline) comparisons"
    + (": worse in " + "; ".join(f"{r.metric} vs {r.baseline}" for r in losses.itertuples())
       if len(losses) else "")
    + ("; better in " + "; ".join(f"{r.metric} vs {r.baseline}" for r in wins.itertuples())
       if len(wins) else "")
    + ".",
    f"At k' = {K_VALUES[0]}: R(F) " + ", ".join(f"{m} {smallest.loc[m, 'R(F)']:.4g}" for m in METHODS)
    + "; C(F) " + ", ".join(f"{m} {smallest.loc[m, 'C(F)']:.4g}" for m in METHODS)
    + "; noise features selected " + ", ".join(f"{m} {smallest.loc[m, 'noise']}" for m in METHODS) + ".",
    study_reading,
    f"Total run time {time.perf_counter() - started:.1f} s.",
]
conclusion = "\n".join(lines)
save_text("multilabel_conclusion.txt", conclusion)
say(conclusion)

"""The result of :func:`fstools.compare`: tables, paired tests and plots of a comparison.

:class:`ComparisonResult` holds the long table of every fold's score and presents it as the
papers do: a methods x feature-count table of mean +- sd with the best method of each row marked
and an "Avg." row (the CMQFS paper's Tables 4-5), paired t-tests of one method against the others
(by default the corrected resampled t-test over the folds, Nadeau and Bengio 2003; the paper's
pooled test of Tables 7-8 on request), non-parametric alternatives (Wilcoxon signed-rank; Friedman
with the Nemenyi post-hoc test, Demsar 2006) and a plot of the metric against the number of
features.  The tests print as R prints its test objects, with a confidence interval and an effect
size for each difference (:mod:`fstools.evaluation.hypothesis_tests`); scores equal up to
rounding are ties.

The test statistics are module-level functions (:func:`paired_t_test`, :func:`friedman_test`,
:func:`nemenyi_critical_difference`, :func:`nemenyi_test`, ...) so that they can be used and
checked on their own.  The plain paired t, the Wilcoxon p-value and Friedman's chi-square p-value
are SciPy's; the Nadeau-Bengio correction is a formula of its own (no dependency has it); the
p-value adjustment is statsmodels' ``multipletests``
(:func:`fstools.results.univariate_tests.adjust_p_values`).  Kept here because no dependency
has them: Iman and Davenport's F correction of Friedman's statistic and the Nemenyi
critical difference and pairwise p-values (Demsar, "Statistical comparisons of classifiers
over multiple data sets", JMLR 7, 2006, section 3.2.2 and Table 5; SciPy has the studentized
range law they use, scikit-posthocs -- not a dependency -- the Nemenyi test alone).
"""
import numbers
import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd

from fstools.core.constraints import BOOLEAN, OPEN_UNIT_INTERVAL, POSITIVE_NUMBER, one_of, validate
from fstools.core.lazy import LazyModule
from fstools.core.messages import suggest_keywords
from fstools.results.labels import METRIC_NAMES, metric_label
from fstools.results.tables import (SIGNIFICANCE_COLUMN, SIGNIFICANCE_LEGEND, Summary, format_count, format_number,
                                    format_p_value, noun_for, significance_legend, significance_stars,
                                    text_as_html)
from fstools.evaluation.stability import nogueira_stability
from fstools.evaluation.hypothesis_tests import TIE_TOLERANCE, HypothesisTest, PairedTests, merge_near_ties
from fstools.results.univariate_tests import P_ADJUST_METHODS, adjust_p_values

stats = LazyModule("scipy.stats")  # imported at its first use: it takes longer to import than fstools

__all__ = ["ComparisonResult", "FriedmanResult", "paired_t_test", "wilcoxon_signed_rank", "friedman_test",
           "friedman_statistic", "iman_davenport", "nemenyi_q", "nemenyi_critical_difference", "nemenyi_test",
           "adjust_p_values", "P_ADJUST_METHODS", "Split", "ImanDavenport"]

_ALTERNATIVES = ("greater", "two-sided", "less")
#: The data-set key of the summary row that averages over every data set and k (the papers' Avg.).
ALL_DATASETS = "(all)"
_PAIRED_OVER = ("folds", "k", "datasets")
_CORRECTIONS = ("nadeau-bengio", "none")
_BLOCKS = ("datasets", "k", "folds")


class ImanDavenport(NamedTuple):
    """Iman and Davenport's F statistic, its degrees of freedom and p-value."""

    F: float
    df1: int
    df2: int
    p_value: float


class Split(NamedTuple):
    """One cross-validation split of a comparison: repeat and fold (numbered from 1) and the row
    positions of the training and test folds."""

    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray


# --------------------------------------------------------------------------- statistics
def _paired_differences(a, b):
    """a, b as float arrays of one length and their differences, near-zero ones set to 0.

    A difference within :data:`~fstools.evaluation.hypothesis_tests.TIE_TOLERANCE` of zero
    (relative to the values) is a tie of two equal scores averaged in different orders.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a, b: must be 1-D of the same length; got shapes {a.shape} and {b.shape}")
    diff = a - b
    scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    diff[np.abs(diff) <= TIE_TOLERANCE * scale] = 0.0
    return a, b, diff


def _t_interval(mean, se, df, alternative, conf_level):
    """The t confidence interval of a mean: two-sided, or one-sided as R gives it for one-sided tests."""
    if alternative == "two-sided":
        half = stats.t.ppf(0.5 + conf_level / 2.0, df) * se
        return mean - half, mean + half
    bound = stats.t.ppf(conf_level, df) * se
    return (mean - bound, np.inf) if alternative == "greater" else (-np.inf, mean + bound)


def paired_t_test(a, b, alternative="two-sided", *, test_train_ratio=None, conf_level=0.95):
    """Paired t-test of mean(a - b) = 0, plain or corrected for overlapping training sets.

    Plain (``test_train_ratio=None``): scipy's ``ttest_rel``, t = mean(d) / sqrt(s^2 / J).
    Corrected (``test_train_ratio`` = n_test / n_train): the corrected resampled t-test of
    Nadeau and Bengio ("Inference for the generalization error", Machine Learning 52, 2003,
    section 4, the variance of eq. 12) for J differences of resampled or cross-validated splits,
    whose training sets overlap: t = mean(d) / sqrt((1/J + n_test/n_train) s^2), J - 1 degrees
    of freedom (as used for repeated k-fold cross-validation by Bouckaert and Frank, "Evaluating
    the replicability of significance tests for comparing learning algorithms", 2004).

    Parameters
    ----------
    a, b : array-like of float, one value per pair
    alternative : {'two-sided', 'greater', 'less'}
        'greater': the mean of ``a`` is greater (the CMQFS paper's one-tailed test).
    test_train_ratio : float, optional
        n_test / n_train of the splits (> 0): the Nadeau-Bengio correction.
    conf_level : float
        Of the interval for the mean difference (one-sided for one-sided alternatives, as R).

    Returns
    -------
    dict with ``n``, ``mean_a``, ``mean_b``, ``mean_diff``, ``sd_diff``, ``se``, ``t``, ``df``,
    ``p_value``, ``conf_low``, ``conf_high``, ``effect_size`` (Cohen's d_z = mean_diff / sd_diff:
    the mean difference in sds of the differences, the same for both tests).
    """
    one_of(_ALTERNATIVES).validate(alternative, "alternative")
    conf_level = OPEN_UNIT_INTERVAL.validate(conf_level, "conf_level")
    if test_train_ratio is not None:
        test_train_ratio = POSITIVE_NUMBER.validate(test_train_ratio, "test_train_ratio")
    a, b, diff = _paired_differences(a, b)
    n = len(a)
    variance_factor = np.nan if n == 0 else 1.0 / n + (test_train_ratio or 0.0)
    out = {"n": n, "mean_a": float(a.mean()) if n else np.nan, "mean_b": float(b.mean()) if n else np.nan,
           "mean_diff": float(diff.mean()) if n else np.nan,
           "sd_diff": float(diff.std(ddof=1)) if n > 1 else np.nan, "df": n - 1}
    out["se"] = float(np.sqrt(variance_factor) * out["sd_diff"]) if n > 1 else np.nan
    out["effect_size"] = (np.nan if n < 2 or not np.any(diff) else
                          float(out["mean_diff"] / out["sd_diff"]) if out["sd_diff"] > 0 else
                          float(np.sign(out["mean_diff"]) * np.inf))
    if n > 1:
        out["conf_low"], out["conf_high"] = (float(v) for v in _t_interval(out["mean_diff"], out["se"], n - 1,
                                                                           alternative, conf_level))
    else:
        out["conf_low"] = out["conf_high"] = np.nan
    if n < 2 or not np.any(diff):
        # Fewer than two pairs, or no difference at all: the statistic is undefined (scipy: NaN).
        out.update(t=np.nan, p_value=np.nan)
        return out
    if not np.any(diff != diff[0]):
        # The same non-zero difference in every pair: t is infinite (as scipy gives it, without
        # its warning about the zero variance).
        sign = np.sign(diff[0])
        agrees = alternative == "two-sided" or (alternative == "greater") == (sign > 0)
        out.update(t=float(sign * np.inf), p_value=0.0 if agrees else 1.0)
        return out
    if test_train_ratio is None:
        result = stats.ttest_rel(a, b, alternative=alternative)
        out.update(t=float(result.statistic), p_value=float(result.pvalue))
        return out
    t = out["mean_diff"] / out["se"]
    p = {"greater": stats.t.sf(t, n - 1), "less": stats.t.cdf(t, n - 1),
         "two-sided": 2.0 * stats.t.sf(abs(t), n - 1)}[alternative]
    out.update(t=float(t), p_value=float(min(p, 1.0)))
    return out


#: Below this many non-zero differences, without ties, the signed-rank p-value is exact (R's rule).
WILCOXON_EXACT_BELOW = 50


def _walsh_averages(d):
    """The sorted distinct Walsh averages (d_i + d_j) / 2, i <= j."""
    i, j = np.triu_indices(len(d))
    return np.unique((d[i] + d[j]) / 2.0)


def _signed_rank_interval(d, alternative, conf_level, method, correction):
    """The shifts mu that the signed-rank test of ``d - mu`` does not reject, as (low, high).

    W+ of ``d - mu`` changes only where mu crosses a Walsh average, so the test is run once per
    gap between consecutive Walsh averages (at its midpoint, where ``d - mu`` has neither zeros
    nor new ties); each bound is a Walsh average.  Each side is a one-sided test at
    (1 - conf_level) / 2 for a two-sided interval, at 1 - conf_level for a one-sided one.  The
    one-sided p-value of 'greater' grows with mu (of 'less' falls): bisection finds the bounds.
    With the exact law this is the Hodges-Lehmann interval of R's ``wilcox.test(conf.int =
    TRUE)``: Walsh averages number qsignrank(alpha / 2, n) and n (n + 1) / 2 - qsignrank + 1.
    """
    walsh = _walsh_averages(d)
    m = len(walsh)
    spread = max(1.0, float(walsh[-1] - walsh[0]))
    tail = (1.0 - conf_level) / (2.0 if alternative == "two-sided" else 1.0)

    def p_value(gap, side):
        # gap g in 0..m: below every Walsh average (0), between the (g-1)-th and g-th, above all (m)
        mu = (walsh[0] - spread if gap == 0 else walsh[-1] + spread if gap == m
              else (walsh[gap - 1] + walsh[gap]) / 2.0)
        return stats.wilcoxon(d - mu, correction=correction, alternative=side, method=method).pvalue

    def first(accepts, low, high):
        # the first gap in low..high whose test does not reject (accepts is monotone: False... True)
        while low < high:
            middle = (low + high) // 2
            if accepts(middle):
                high = middle
            else:
                low = middle + 1
        return low

    lower, upper = -np.inf, np.inf
    if alternative in ("two-sided", "greater"):
        gap = first(lambda g: p_value(g, "greater") > tail, 0, m)
        lower = -np.inf if gap == 0 else float(walsh[gap - 1])
    if alternative in ("two-sided", "less"):
        # the last gap not rejected: one before the first gap rejected by 'less'
        gap = first(lambda g: not p_value(g, "less") > tail, 0, m + 1) - 1
        upper = np.inf if gap == m else float(walsh[gap])
    return lower, upper


def wilcoxon_signed_rank(a, b, alternative="two-sided", zero_method="wilcox", method="auto", correction=True,
                         conf_level=0.95):
    """Wilcoxon signed-rank test of the differences ``a - b``: R's statistic V = W+, SciPy's p-value.

    The statistic is W+, the sum of the ranks of |a - b| over the positive differences (R's
    ``wilcox.test`` V; Demsar 2006's R+), whatever the alternative.  Differences within the
    tie tolerance of 0 are zeros, and |differences| within it of each other are ties
    (:func:`~fstools.evaluation.hypothesis_tests.merge_near_ties`).

    Zeros (``zero_method``, as SciPy): 'wilcox' drops them before ranking (R's ``wilcox.test``);
    'pratt' ranks them, then drops their ranks; 'zsplit' ranks them and gives half of each
    zero's rank to W+ (Demsar 2006, section 3.1.3).

    The p-value (``method``): 'auto' is R's rule for ``wilcox.test(exact = NULL, correct =
    TRUE)``: the exact null law with fewer than 50 differences and neither zeros nor ties, else
    the normal approximation with the variance corrected for ties and, when ``correction``, a
    continuity correction.  'exact' or 'approx' force one.  Computed by ``scipy.stats.wilcoxon``
    with that method on the differences.

    The estimate is Hodges and Lehmann's: the median of the Walsh averages (d_i + d_j) / 2,
    i <= j, of the differences (without the zeros for 'wilcox', as R), R's "(pseudo)median".
    Its interval at ``conf_level`` holds the shifts mu that the same test does not reject
    (:func:`_signed_rank_interval`; one-sided for one-sided alternatives).

    Returns
    -------
    dict with ``n`` (pairs), ``n_nonzero``, ``mean_diff``, ``median_diff``, ``pseudo_median``,
    ``conf_low``, ``conf_high``, ``statistic`` (V = W+), ``exact`` (whether the p-value is exact),
    ``p_value`` and ``effect_size``: the matched-pairs rank-biserial correlation
    (W+ - W-) / (W+ + W-) (Kerby, "The simple difference formula", 2014), in [-1, 1].
    """
    one_of(_ALTERNATIVES).validate(alternative, "alternative")
    one_of(("wilcox", "pratt", "zsplit")).validate(zero_method, "zero_method")
    one_of(("auto", "exact", "approx")).validate(method, "method")
    validate(BOOLEAN, correction, "correction")
    conf_level = OPEN_UNIT_INTERVAL.validate(conf_level, "conf_level")
    a, b, diff = _paired_differences(a, b)
    diff = np.sign(diff) * merge_near_ties(np.abs(diff))
    nonzero = diff[diff != 0]
    out = {"n": len(diff), "n_nonzero": len(nonzero),
           "mean_diff": float(diff.mean()) if len(diff) else np.nan,
           "median_diff": float(np.median(diff)) if len(diff) else np.nan}
    ranked = diff if zero_method != "wilcox" else nonzero
    if len(ranked):
        i, j = np.triu_indices(len(ranked))
        out["pseudo_median"] = float(np.median((ranked[i] + ranked[j]) / 2.0))
    else:
        out["pseudo_median"] = np.nan
    if not len(nonzero):
        out.update(conf_low=np.nan, conf_high=np.nan, statistic=np.nan, exact=False, p_value=np.nan,
                   effect_size=np.nan)
        return out
    ranks = stats.rankdata(np.abs(ranked))
    w_plus = float(ranks[ranked > 0].sum())
    w_minus = float(ranks[ranked < 0].sum())
    if zero_method == "zsplit":
        w_plus += ranks[ranked == 0].sum() / 2.0
        w_minus += ranks[ranked == 0].sum() / 2.0
    has_zeros = len(nonzero) < len(diff)
    has_ties = len(np.unique(np.abs(ranked))) < len(ranked)
    if method == "auto":
        method = "exact" if len(nonzero) < WILCOXON_EXACT_BELOW and not has_zeros and not has_ties else "approx"
    result = stats.wilcoxon(diff, zero_method=zero_method, correction=bool(correction), alternative=alternative,
                            method=method)
    out["conf_low"], out["conf_high"] = _signed_rank_interval(ranked, alternative, conf_level, method,
                                                              bool(correction))
    out.update(statistic=w_plus, exact=method == "exact", p_value=float(result.pvalue),
               effect_size=(w_plus - w_minus) / (w_plus + w_minus))
    return out


def friedman_statistic(mean_ranks, n_blocks):
    """Friedman's chi-square from the mean ranks of k methods over N blocks, without ties.

    chi2_F = 12 N / (k (k + 1)) [sum_j R_j^2 - k (k + 1)^2 / 4]  (Demsar 2006, section 3.2.2).
    """
    mean_ranks = np.asarray(mean_ranks, dtype=float)
    k = len(mean_ranks)
    return float(12.0 * n_blocks / (k * (k + 1)) * (np.sum(mean_ranks ** 2) - k * (k + 1) ** 2 / 4.0))


def iman_davenport(chi2, n_blocks, n_methods):
    """Iman and Davenport's F from Friedman's chi-square: ImanDavenport(F, df1, df2, p_value).

    F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F), F-distributed with k - 1 and (k - 1)(N - 1)
    degrees of freedom (Demsar 2006, section 3.2.2).
    """
    N, k = n_blocks, n_methods
    df1, df2 = k - 1, (k - 1) * (N - 1)
    denominator = N * (k - 1) - chi2
    if denominator <= 0:
        return ImanDavenport(np.inf, df1, df2, 0.0)
    F = (N - 1) * chi2 / denominator
    return ImanDavenport(float(F), df1, df2, float(stats.f.sf(F, df1, df2)))


def nemenyi_q(n_methods, alpha=0.05):
    """Critical value q_alpha of the Nemenyi test: the studentized range quantile / sqrt(2).

    The upper-alpha quantile of the studentized range of ``n_methods`` means with infinite
    degrees of freedom (scipy.stats.studentized_range), divided by sqrt(2) (Demsar 2006, Table 5).
    """
    alpha = OPEN_UNIT_INTERVAL.validate(alpha, "alpha")
    return float(stats.studentized_range.ppf(1.0 - alpha, n_methods, np.inf) / np.sqrt(2.0))


def nemenyi_critical_difference(n_methods, n_blocks, alpha=0.05):
    """CD = q_alpha sqrt(k (k + 1) / (6 N)): mean ranks further apart differ significantly."""
    return nemenyi_q(n_methods, alpha) * np.sqrt(n_methods * (n_methods + 1) / (6.0 * n_blocks))


def nemenyi_test(mean_ranks, n_blocks):
    """Pairwise Nemenyi p-values from mean ranks (Series or dict: method -> mean rank).

    z_ij = |R_i - R_j| / sqrt(k (k + 1) / (6 N)); p_ij = P(Q_k > sqrt(2) z_ij) with Q_k the
    studentized range of k means, infinite degrees of freedom.  p_ij <= alpha exactly when
    |R_i - R_j| >= :func:`nemenyi_critical_difference`.

    Returns
    -------
    pandas.DataFrame (methods x methods), 1 on the diagonal.
    """
    mean_ranks = pd.Series(mean_ranks, dtype=float)
    k = len(mean_ranks)
    scale = np.sqrt(k * (k + 1) / (6.0 * n_blocks))
    diff = np.abs(mean_ranks.to_numpy()[:, None] - mean_ranks.to_numpy()[None, :]) / scale
    p = stats.studentized_range.sf(np.sqrt(2.0) * diff, k, np.inf)
    p = np.clip(np.where(diff == 0, 1.0, p), 0.0, 1.0)
    return pd.DataFrame(p, index=mean_ranks.index, columns=mean_ranks.index)


def friedman_test(values, higher_is_better=True):
    """Friedman's test on a blocks x methods table (rank 1 = best in each block, ties averaged).

    The chi-square has the usual correction for ties (as R's ``friedman.test`` and scipy's
    ``friedmanchisquare``); without ties it equals :func:`friedman_statistic`.  Values of a block
    equal up to :data:`~fstools.evaluation.hypothesis_tests.TIE_TOLERANCE` (relative) are ties:
    two methods with 61 of 72 right on a fold share a rank however their means were summed.

    Returns
    -------
    dict with ``ranks`` (DataFrame), ``mean_ranks`` (Series), ``statistic``, ``df``, ``p_value``,
    ``F``, ``F_df`` (df1, df2), ``F_p_value`` (Iman-Davenport).
    """
    values = pd.DataFrame(values)
    N, k = values.shape
    if k < 2 or N < 2:
        raise ValueError(f"values: Friedman's test needs at least 2 methods and 2 blocks; got "
                         f"{format_count(k, 'method')}, {format_count(N, 'block')}")
    data = values.to_numpy(dtype=float)
    # Scores equal up to rounding (one fraction averaged in two orders) are ties.
    ranks = np.vstack([stats.rankdata(-row if higher_is_better else row) for row in
                       (merge_near_ties(row) for row in data)])
    mean_ranks = ranks.mean(axis=0)
    chi2 = friedman_statistic(mean_ranks, N)
    ties = sum(np.sum(counts ** 3 - counts) for counts in
               (np.unique(row, return_counts=True)[1].astype(float) for row in ranks))
    correction = 1.0 - ties / (N * k * (k * k - 1.0))
    chi2 = chi2 / correction if correction > 0 else np.nan
    p = float(stats.chi2.sf(chi2, k - 1)) if np.isfinite(chi2) else np.nan
    corrected = (iman_davenport(chi2, N, k) if np.isfinite(chi2)
                 else ImanDavenport(np.nan, k - 1, (k - 1) * (N - 1), np.nan))
    return {"ranks": pd.DataFrame(ranks, index=values.index, columns=values.columns),
            "mean_ranks": pd.Series(mean_ranks, index=values.columns, name="mean_rank"),
            "statistic": chi2, "df": k - 1, "p_value": p, "F": corrected.F,
            "F_df": (corrected.df1, corrected.df2), "F_p_value": corrected.p_value}


class FriedmanResult:
    """Friedman's test across methods with the Nemenyi post-hoc test (Demsar 2006).

    Attributes
    ----------
    values : pandas.DataFrame
        Blocks (data sets, feature counts or folds) x methods: the metric averaged within a block.
    ranks : pandas.DataFrame
        Rank of each method in each block (1 = best; ties averaged).
    mean_ranks : pandas.Series
    statistic, df, p_value : float
        Friedman's chi-square (corrected for ties) with k - 1 degrees of freedom.
    F, F_df, F_p_value :
        Iman and Davenport's F (less conservative), its degrees of freedom and p-value.
    alpha : float
    critical_difference : float
        Nemenyi's CD at ``alpha``.
    nemenyi : pandas.DataFrame
        Pairwise Nemenyi p-values.
    """

    def __init__(self, values, higher_is_better, alpha, blocks, description, plot_title=None):
        test = friedman_test(values, higher_is_better=higher_is_better)
        self._plot_title = plot_title
        self.values = pd.DataFrame(values)
        self.blocks = blocks
        self.n_blocks, self.n_methods = self.values.shape
        self.ranks = test["ranks"]
        self.mean_ranks = test["mean_ranks"]
        self.statistic = test["statistic"]
        self.df = test["df"]
        self.p_value = test["p_value"]
        self.F = test["F"]
        self.F_df = test["F_df"]
        self.F_p_value = test["F_p_value"]
        self.alpha = float(alpha)
        self.critical_difference = float(nemenyi_critical_difference(self.n_methods, self.n_blocks, alpha))
        self.nemenyi = nemenyi_test(self.mean_ranks, self.n_blocks)
        self._description = description

    @property
    def frame(self):
        """The numbers of the summary: :meth:`summary_frame`."""
        return self.summary_frame()

    def summary_frame(self):
        """Mean rank and the Nemenyi p-values against every method, sorted by mean rank."""
        order = self.mean_ranks.sort_values(kind="stable").index
        frame = self.nemenyi.loc[order, order].copy()
        frame.insert(0, "mean_rank", self.mean_ranks.loc[order])
        frame.index.name = "method"
        return frame

    def summary(self):
        frame = self.summary_frame()
        order = list(frame.index)
        table = pd.DataFrame({"method": order, "mean rank": [format_number(v, 4) for v in frame["mean_rank"]]})
        for other in order:
            table[other] = ["-" if method == other else
                            f"{format_p_value(frame.loc[method, other])} "
                            f"{significance_stars(frame.loc[method, other])}".rstrip() for method in order]
        header = [("Data", self._description),
                  ("Blocks", f"{self.n_blocks} ({self.blocks}); {format_count(self.n_methods, 'method')} ranked in "
                             f"each, 1 = best"),
                  ("Friedman", f"chi-squared = {format_number(self.statistic)}, df = {self.df}, "
                               f"p-value = {format_p_value(self.p_value)}"),
                  ("Iman-Davenport", f"F = {format_number(self.F)}, df = {self.F_df[0]}, {self.F_df[1]}, "
                                     f"p-value = {format_p_value(self.F_p_value)}"),
                  ("Nemenyi", f"critical difference of mean ranks at alpha = {self.alpha:g}: "
                              f"{format_number(self.critical_difference)} (q = "
                              f"{format_number(nemenyi_q(self.n_methods, self.alpha))})")]
        notes = ["Cells: Nemenyi p-values of the pairwise differences of mean ranks (Demsar 2006).",
                 SIGNIFICANCE_LEGEND]
        if self.n_blocks < 5:
            notes.append(f"Only {format_count(self.n_blocks, 'block')}: Friedman's chi-square and the Nemenyi test "
                         f"have little power and their large-sample laws are poor here.")
        if self.blocks != "datasets":
            notes.append(f"Blocks are {self.blocks} of the same data, not independent data sets: read the "
                         f"p-values as descriptive (Demsar's tests assume independent data sets).")
        return Summary("Friedman test with the Nemenyi post-hoc test", header, table, notes,
                       frame=frame)

    def plot(self, ax=None, **kwargs):
        """Critical difference diagram (Demsar 2006, Fig. 1): mean ranks, groups not told apart joined.

        The title names the data sets, the classifier, the metric and the blocks ranked.

        Returns
        -------
        matplotlib Axes
        """
        # Imported when first drawn: matplotlib costs start-up time.
        from fstools.results.plotting import plot_critical_difference

        kwargs.setdefault("title", self._plot_title or f"Critical difference diagram: {self._description}")
        return plot_critical_difference(self.mean_ranks, self.critical_difference, alpha=self.alpha, ax=ax,
                                        **kwargs)

    def __repr__(self):
        return self.summary().as_text()

    def _repr_html_(self):
        return self.summary().as_html()


# --------------------------------------------------------------------------- the result
def _response_text(info):
    """The response of a compared data set in words: '3 classes', '6 labels', 'a continuous response'."""
    if info.get("response_type") == "continuous":
        return "a continuous response"
    return format_count(len(info["classes"]), "label" if info.get("multilabel") else "class")


class ComparisonResult:
    """The outcome of :func:`fstools.compare`.

    Attributes
    ----------
    results : pandas.DataFrame
        One row per data set x classifier x method x feature count x repeat x fold x metric:
        columns ``dataset``, ``classifier``, ``method``, ``k``, ``repeat``, ``fold`` (1-based),
        ``metric``, ``value``.
    timing : pandas.DataFrame
        Seconds of every selection: ``dataset``, ``method``, ``repeat``, ``fold`` (NA for the
        selection on all the data), ``seconds``.
    rankings : pandas.DataFrame
        The ranking each selection produced (up to the largest k): ``dataset``, ``method``,
        ``repeat``, ``fold``, ``rank``, ``feature``.
    splits : dict of str -> list of Split
        The cross-validation splits of each data set: ``(repeat, fold, train, test)`` records,
        repeat and fold numbered from 1, train and test the row positions after dropping missing
        values; the same for every method.
    datasets : dict
        Per data set: rows, features, classes, the feature counts evaluated.
    methods : dict
        Label -> method name and every parameter used.
    classifiers, metrics : dict
    cv, repeats : int
    select_in_fold, standardize : bool
    call : str
    """

    def __init__(self, *, call, results, timing, rankings, splits, datasets, methods, classifiers, metrics, cv,
                 repeats, select_in_fold, standardize, random_state, single_dataset=False):
        self.call = call
        self.results = results
        self.timing = timing
        self.rankings = rankings
        self.splits = splits
        self.datasets = datasets
        self.methods = methods
        self.classifiers = classifiers
        self.metrics = metrics
        self.cv = cv
        self.repeats = repeats
        self.select_in_fold = select_in_fold
        self.standardize = standardize
        self.random_state = random_state
        self._single_dataset = single_dataset

    # ------------------------------------------------------------ choices
    @property
    def method_labels(self):
        return list(self.methods)

    def _metric(self, metric):
        if metric is None:
            return next(iter(self.metrics))
        if metric not in self.metrics:
            raise ValueError(f"metric: {metric!r} was not computed; allowed: {', '.join(map(repr, self.metrics))}")
        return metric

    def _classifier(self, classifier):
        if classifier is None:
            return next(iter(self.classifiers))
        if classifier not in self.classifiers:
            raise ValueError(f"classifier: {classifier!r} was not used; allowed: "
                             f"{', '.join(map(repr, self.classifiers))}")
        return classifier

    def _datasets(self, dataset):
        names = list(self.datasets)
        if dataset is None:
            return names
        chosen = [dataset] if isinstance(dataset, str) else list(dataset)
        unknown = [name for name in chosen if name not in self.datasets]
        if unknown or not chosen:
            raise ValueError(f"dataset: unknown data set {unknown[0] if unknown else dataset!r}; allowed: "
                             f"{', '.join(map(repr, names))}")
        return chosen

    def _method(self, method, name="reference"):
        if method not in self.methods:
            raise ValueError(f"{name}: {method!r} is not a compared method; allowed: "
                             f"{', '.join(map(repr, self.methods))}")
        return method

    def _ks(self, k, datasets):
        """Feature counts to use per data set (all evaluated ones, or the subset ``k``)."""
        if k is None:
            return {name: list(self.datasets[name]["k"]) for name in datasets}
        if isinstance(k, bool) or not (isinstance(k, numbers.Integral) or
                                       all(isinstance(v, numbers.Integral) for v in k)):
            raise TypeError(f"k: must be None, an integer or a list of integers; got {k!r}")
        wanted = [int(k)] if isinstance(k, numbers.Integral) else [int(v) for v in k]
        out = {}
        for name in datasets:
            evaluated = self.datasets[name]["k"]
            missing = [v for v in wanted if v not in evaluated]
            if missing:
                raise ValueError(f"k: {missing[0]} was not evaluated on data set {name!r}; allowed: {evaluated}")
            out[name] = sorted(set(wanted))
        return out

    def _part(self, metric, classifier, datasets, ks=None):
        results = self.results
        mask = (results["metric"] == metric) & (results["classifier"] == classifier) & \
            results["dataset"].isin(datasets)
        part = results[mask]
        if ks is not None:
            keep = np.zeros(len(part), dtype=bool)
            for name, values in ks.items():
                keep |= ((part["dataset"] == name) & part["k"].isin(values)).to_numpy()
            part = part[keep]
        return part

    def _percent(self, metric, percent):
        if percent is None:
            return metric in ("accuracy", "error_rate", "balanced_accuracy", "f1_macro", "g_mean")
        return bool(percent)

    # ------------------------------------------------------------ tables
    @property
    def _sd_unit(self):
        """The sd of a cell is over repeats (of the per-repeat mean), or over folds with one repeat."""
        return "repeat" if self.repeats > 1 else "fold"

    def _per_repeat(self, part, by):
        """Means per repeat (over folds and whatever is not in ``by``) -> mean and sd over the
        repeats (with one repeat: per fold, sd over the folds)."""
        per_unit = part.groupby(by + [self._sd_unit], sort=False)["value"].mean()
        grouped = per_unit.groupby(level=list(range(len(by))), sort=False)
        return grouped.mean(), grouped.std(ddof=1)

    @suggest_keywords
    def summary_frame(self, metric=None, classifier=None, dataset=None):
        """The numbers of :meth:`summary`, in the metric's units (proportions, not percent).

        With several data sets a last row ('(all)', 'Avg.') averages over every data set and k, as
        the papers' "Avg." row.

        Returns
        -------
        pandas.DataFrame
            Rows indexed by (``dataset``, ``k``), k a feature count, 'Avg.' or 'Time (s)'; columns
            a MultiIndex (``method``, ``statistic``) with one ``mean``, ``sd`` and ``best`` (bool)
            per compared method.
        """
        metric = self._metric(metric)
        classifier = self._classifier(classifier)
        datasets = self._datasets(dataset)
        higher = self.metrics[metric]["higher_is_better"]
        part = self._part(metric, classifier, datasets)
        labels = self.method_labels
        cell_mean, cell_sd = self._per_repeat(part, ["dataset", "k", "method"])
        avg_mean, avg_sd = self._per_repeat(part, ["dataset", "method"])
        rows = []
        index = []

        def add_row(key, means, sds, mark=True):
            row = {}
            values = np.array([means[label] for label in labels], dtype=float)
            best = (values >= np.nanmax(values) - 1e-12) if higher else (values <= np.nanmin(values) + 1e-12)
            for label, value, sd, is_best in zip(labels, values, [sds[label] for label in labels], best):
                row[(label, "mean")] = value
                row[(label, "sd")] = sd
                row[(label, "best")] = bool(is_best) if mark else False
            rows.append(row)
            index.append(key)

        timing = self.timing[self.timing["dataset"].isin(datasets)]
        for name in datasets:
            for p in self.datasets[name]["k"]:
                add_row((name, p), {label: cell_mean[(name, p, label)] for label in labels},
                        {label: cell_sd[(name, p, label)] for label in labels})
            add_row((name, "Avg."), {label: avg_mean[(name, label)] for label in labels},
                    {label: avg_sd[(name, label)] for label in labels})
            seconds = timing[timing["dataset"] == name].groupby("method")["seconds"]
            sd = seconds.std(ddof=1) if self.select_in_fold else pd.Series(np.nan, index=labels)
            add_row((name, "Time (s)"), seconds.mean().to_dict(), sd.to_dict(), mark=False)
        if len(datasets) > 1:
            # The papers' Avg.: over every (data set, k) cell; sd over repeats of that average.
            unit = self._sd_unit
            per_unit = part.groupby(["dataset", "k", "method", unit], sort=False)["value"].mean()
            pooled = per_unit.groupby(level=["method", unit], sort=False).mean()
            grouped = pooled.groupby(level="method", sort=False)
            sds = grouped.std(ddof=1) if self.repeats > 1 else pd.Series(np.nan, index=labels)
            add_row((ALL_DATASETS, "Avg."), grouped.mean().to_dict(), sds.to_dict())
        frame = pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(index, names=["dataset", "k"]))
        frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["method", "statistic"])
        return frame

    @suggest_keywords
    def summary(self, metric=None, classifier=None, dataset=None, percent=None, digits=2):
        """Methods x feature counts: mean +- sd, the best method of each row marked, an "Avg." row
        and the selection time (the CMQFS paper's Tables 4-6 in one table).

        Parameters
        ----------
        metric, classifier : str, optional
            Default: the first computed / used.
        dataset : str or list of str, optional
            Default: every data set.
        percent : bool, optional
            Show proportions as percentages (default for the built-in metrics).
        digits : int
            Decimals.

        Returns
        -------
        Summary
            ``print`` it, ``as_html()``, ``as_latex()``, ``summary_frame()`` for the numbers.
        """
        metric = self._metric(metric)
        classifier = self._classifier(classifier)
        datasets = self._datasets(dataset)
        percent = self._percent(metric, percent)
        digits = int(digits)
        frame = self.summary_frame(metric, classifier, datasets)
        labels = self.method_labels
        scale = 100.0 if percent else 1.0
        several = len(datasets) > 1

        def cell(mean, sd):
            if not np.isfinite(mean):
                return "NA"
            text = f"{scale * mean:.{digits}f}"
            return text + (f" +- {scale * sd:.{digits}f}" if np.isfinite(sd) else "")

        table_rows = []
        previous = None
        for (name, row), values in frame.iterrows():
            first = {"data": name if name != previous else ""} if several else {}
            previous = name
            if row == "Time (s)":
                cells = {label: format_number(values[(label, "mean")], 3)
                         + (f" +- {format_number(values[(label, 'sd')], 2)}" if np.isfinite(values[(label, "sd")])
                            else "") for label in labels}
            else:
                cells = {label: cell(values[(label, "mean")], values[(label, "sd")]) for label in labels}
            label_k = "Avg. (all)" if name == ALL_DATASETS else str(row)
            table_rows.append({**first, "k": label_k, **cells})
        table = pd.DataFrame(table_rows)
        highlight = pd.DataFrame(False, index=table.index, columns=table.columns)
        for label in labels:
            highlight[label] = frame[(label, "best")].to_numpy()

        data_text = self._describe(datasets[0]) if self._single_dataset else \
            "; ".join(f"{name} ({self._describe(name)})" for name in datasets)
        sd_over = (f"sd over the {self.repeats} repeats of the per-repeat mean" if self.repeats > 1
                   else f"sd over the {self.cv} folds")
        header = [
            ("Call", self.call),
            ("Data", data_text),
            ("Protocol", self._protocol_text()),
            (self._learner_noun.capitalize(), f"{classifier}: {self.classifiers[classifier]}"
                           + ("; features standardised in the pipeline (StandardScaler fitted on each training "
                              "fold)" if self.standardize else "")),
            ("Validation", f"{self.cv}-fold {'stratified' if self._stratified else 'shuffled'} cross-validation "
                           f"x {format_count(self.repeats, 'repeat')}, the same splits for every method (paired); "
                           f"random_state = {self.random_state!r}"),
            ("Metric", f"{self.metrics[metric]['description']}{', in %' if percent else ''}: mean over the "
                       f"{format_count(self.repeats * self.cv, 'test fold')} +- {sd_over}"),
            ("Methods", "; ".join(self._method_text(label) for label in labels)),
            ("Stability", self._stability_text(datasets)),
        ]
        best = "highest" if self.metrics[metric]["higher_is_better"] else "lowest"
        notes = ["Avg.: mean over the values of k of the data set"
                 + ("; Avg. (all): over every data set and k, as the papers' Avg. row" if several else "")
                 + ", sd over the repeats.",
                 "Time (s): mean wall time of one selection by the method (" +
                 ("inside a training fold, over the folds; +- sd" if self.select_in_fold else "on all the rows")
                 + "), ranking up to the largest k."]
        others = [c for c in self.classifiers if c != classifier]
        if others:
            notes.append(f"Other classifiers: {', '.join(others)} (summary(classifier=...)).")
        other_metrics = [m for m in self.metrics if m != metric]
        if other_metrics:
            notes.append(f"Other metrics: {', '.join(other_metrics)} (summary(metric=...)).")
        return Summary("Comparison of feature selection methods", header, table, notes, highlight=highlight,
                       frame=frame, highlight_note=f"best ({best} mean) in the row; ties all marked")

    def _describe(self, name):
        """A compared data set in words: its rows (and those dropped), features and response."""
        info = self.datasets[name]
        dropped = f", {info['n_dropped']} dropped for missing values" if info["n_dropped"] else ""
        return (f"{format_count(info['n'], 'row')}{dropped}, {format_count(info['n_features'], 'feature')}, "
                f"{_response_text(info)}")

    def _data_text(self, datasets):
        """How headers and the tests' data lines name the data: the data sets' names, or for one data frame
        given without a name (its key "data" is no name) what it is: rows, features and response."""
        if self._single_dataset:
            return self._describe(datasets[0])
        return ", ".join(datasets)

    def _stability_text(self, datasets):
        """Nogueira's stability of each method's in-fold selections at the largest k, with its interval."""
        if not self.select_in_fold:
            return ("not measured: one selection on all the data (select_in_fold=True selects in every training "
                    "fold; or fs.stability)")
        single = [name for name in datasets if self.datasets[name]["n_features"] < 2]
        if single:
            return (f"not defined: {noun_for(len(single), 'data set')} {', '.join(single)} "
                    f"{'has' if len(single) == 1 else 'have'} one feature (Nogueira's index needs two)")
        table = self.stability(dataset=datasets)
        parts = []
        for name, rows in table.groupby("dataset", sort=False):
            values = ", ".join(f"{row.method} {format_number(row.stability, 3)} [{format_number(row.lower, 3)}, "
                               f"{format_number(row.upper, 3)}]" for row in rows.itertuples())
            parts.append(("" if self._single_dataset else f"{name}: ") + f"top {rows['k'].iloc[0]}: {values}")
        return ("Nogueira's index of the top-k sets chosen in the " +
                f"{format_count(self.repeats * self.cv, 'training fold')} "
                "(1 = always the same set, 0 = as chance), 95% CI: " + "; ".join(parts))

    @property
    def _multilabel(self):
        return any(info.get("multilabel") for info in self.datasets.values())

    @property
    def _continuous(self):
        return any(info.get("response_type") == "continuous" for info in self.datasets.values())

    @property
    def _stratified(self):
        """Whether the folds were stratified by class (not for multi-label data or a continuous response)."""
        return not (self._multilabel or self._continuous)

    @property
    def _learner_noun(self):
        return "regressor" if self._continuous else "classifier"

    def _protocol_text(self):
        learner = self._learner_noun
        if self.select_in_fold:
            return (f"selection inside each training fold, the {learner} tested on the held-out fold "
                    "(select_in_fold=True: honest)")
        return (f"selection on all the data, then cross-validation of the {learner} (select_in_fold=False: "
                "the papers' protocol; optimistic, every test fold took part in the selection)")

    def _method_text(self, label):
        entry = self.methods[label]
        given = entry["given"]
        text = entry["method"] + (f"({', '.join(f'{k}={v!r}' for k, v in given.items())})" if given else "")
        return text if text == label else f"{label} = {text}"

    def timing_table(self, dataset=None):
        """Mean seconds per selection: data sets x methods (the CMQFS paper's Table 6)."""
        datasets = self._datasets(dataset)
        timing = self.timing[self.timing["dataset"].isin(datasets)]
        table = timing.groupby(["dataset", "method"], sort=False)["seconds"].mean().unstack("method")
        return table.loc[datasets, self.method_labels]

    # ------------------------------------------------------------ paired tests
    def _test_train_ratio(self, name):
        """Mean n_test / n_train over the cross-validation splits of data set ``name``."""
        return float(np.mean([len(split.test) / len(split.train) for split in self.splits[name]]))

    def _paired_groups(self, metric, classifier, datasets, ks, paired_over):
        """[(data set or None, units x methods)]: the metric averaged within each unit.

        'folds': one table per data set, a row per (repeat, fold), averaged over the feature
        counts; 'k': one table, a row per (data set, k), averaged over the folds; 'datasets':
        one table, a row per data set, averaged over everything.
        """
        part = self._part(metric, classifier, datasets, ks)
        by = {"folds": ["dataset", "repeat", "fold"], "k": ["dataset", "k"], "datasets": ["dataset"]}[paired_over]
        table = part.groupby(by + ["method"], sort=False)["value"].mean().unstack("method")[self.method_labels]
        if paired_over != "folds":
            return [(None, table)]
        return [(name, table.xs(name, level="dataset")) for name in datasets]

    def _paired_tests(self, kind, reference, alternative, paired_over, p_adjust, metric, classifier, dataset, k,
                      conf_level=0.95, t_correction=None, **options):
        """The tests of ``reference`` against every other method: a PairedTests.

        ``t_correction`` is the t-test's ``correction``; ``options`` go to the Wilcoxon test.
        """
        correction = t_correction
        metric = self._metric(metric)
        if alternative is None:  # the reference is better: its metric higher, or lower for a loss
            alternative = "greater" if self.metrics[metric]["higher_is_better"] else "less"
        classifier = self._classifier(classifier)
        datasets = self._datasets(dataset)
        reference = self._method(reference)
        one_of(_ALTERNATIVES).validate(alternative, "alternative")
        one_of(_PAIRED_OVER).validate(paired_over, "paired_over")
        one_of(P_ADJUST_METHODS).validate("none" if p_adjust is None else p_adjust, "p_adjust")
        conf_level = OPEN_UNIT_INTERVAL.validate(conf_level, "conf_level")
        if kind == "ttest":
            if correction is None:
                correction = "nadeau-bengio" if paired_over == "folds" else "none"
            one_of(_CORRECTIONS).validate(correction, "correction")
            if correction == "nadeau-bengio" and paired_over != "folds":
                raise ValueError(f"correction: 'nadeau-bengio' corrects pairs of cross-validation folds; it needs "
                                 f"paired_over='folds', got paired_over={paired_over!r}; use correction='none'")
        if len(self.methods) < 2:
            raise ValueError("reference: a paired test needs at least two compared methods")
        ks = self._ks(k, datasets)
        notes = []
        if paired_over == "k":
            message = ("paired_over='k': the pairs are feature counts of the same folds, not independent "
                       "samples (accuracies at neighbouring k are strongly correlated), and a data set with "
                       "more values of k weighs more; read the p-values as descriptive, or use "
                       "paired_over='folds' (the default)")
            warnings.warn(message, UserWarning, stacklevel=4)
            notes.append("Pairs over feature counts are not independent: the p-values are descriptive.")
        if paired_over == "datasets" and len(datasets) < 5:
            warnings.warn(f"paired_over='datasets': {format_count(len(datasets), 'data set')}, too few pairs for a "
                          f"test (Demsar 2006 uses 14); its p-values can hardly be small", UserWarning, stacklevel=4)
            notes.append(f"Only {format_count(len(datasets), 'data set')} paired: the test has little power.")
        groups = self._paired_groups(metric, classifier, datasets, ks, paired_over)
        rows, descriptions = [], []
        for name, units in groups:
            ratio = (self._test_train_ratio(name) if kind == "ttest" and correction == "nadeau-bengio"
                     else None)
            for other in self.method_labels:
                if other == reference:
                    continue
                if kind == "ttest":
                    out = paired_t_test(units[reference].to_numpy(), units[other].to_numpy(), alternative,
                                        test_train_ratio=ratio, conf_level=conf_level)
                else:
                    out = wilcoxon_signed_rank(units[reference].to_numpy(), units[other].to_numpy(), alternative,
                                               conf_level=conf_level, **options)
                if kind == "ttest":
                    out["mean_reference"], out["mean_method"] = out.pop("mean_a"), out.pop("mean_b")
                rows.append({"comparison": f"{reference} vs {other}" + (f" ({name})" if len(groups) > 1 else ""),
                             "dataset": name if name is not None else ", ".join(datasets), "reference": reference,
                             "method": other, **out})
                if kind == "ttest":
                    rows[-1]["test_train_ratio"] = np.nan if ratio is None else ratio
                descriptions.append(self._pairs_text(metric, classifier, reference, other, name, datasets,
                                                     paired_over, len(units)))
        frame = pd.DataFrame(rows)
        frame["p_adjusted"] = adjust_p_values(frame["p_value"].to_numpy(), p_adjust)
        p_adjust = "none" if p_adjust is None else p_adjust
        if kind == "ttest":
            test_name = ("Corrected resampled t-test (Nadeau and Bengio 2003)" if correction == "nadeau-bengio"
                         else "Paired t-test")
        else:
            test_name = "Wilcoxon signed rank test"
        frame.attrs.update({"test": test_name, "metric": metric, "classifier": classifier, "datasets": datasets,
                            "k": ks, "alternative": alternative, "paired_over": paired_over, "p_adjust": p_adjust,
                            "n_units": int(sum(len(units) for _, units in groups)), "conf_level": conf_level,
                            "correction": correction if kind == "ttest" else None})
        # The tests print their differences in the units of the tables (percentage points for a metric in %).
        shown = {"scale": 100.0, "unit": "percentage points"} if self._percent(metric, None) else {}
        tests = []
        for row, description in zip(frame.to_dict("records"), descriptions):
            if kind == "ttest":
                parameters = {"df": row["df"]}
                extra = ([f"variance inflated by 1/J + n_test/n_train = 1/{row['n']} + "
                          f"{format_number(row['test_train_ratio'])}"] if correction == "nadeau-bengio" else [])
                test = HypothesisTest(method=test_name, data=description, statistic_name="t", statistic=row["t"],
                                      parameters=parameters, p_value=row["p_value"], alternative=alternative,
                                      estimate_name="mean difference", estimate=row["mean_diff"],
                                      conf_int=(row["conf_low"], row["conf_high"]), conf_level=conf_level,
                                      effect_size_name="Cohen's d_z (mean / sd of the differences)",
                                      effect_size=row["effect_size"], p_adjusted=row["p_adjusted"],
                                      adjustment=p_adjust, notes=extra, **shown)
            else:
                # R's names: "Wilcoxon signed rank exact test", "... test with continuity correction".
                name = ("Wilcoxon signed rank exact test" if row["exact"] else
                        "Wilcoxon signed rank test" + (" with continuity correction" if options["correction"] else ""))
                test = HypothesisTest(method=name, data=description,
                                      statistic_name="V", statistic=row["statistic"], p_value=row["p_value"],
                                      alternative=alternative, estimate_name="(pseudo)median",
                                      estimate=row["pseudo_median"], conf_int=(row["conf_low"], row["conf_high"]),
                                      conf_level=conf_level,
                                      effect_size_name="rank-biserial correlation (W+ - W-) / (W+ + W-)",
                                      effect_size=row["effect_size"], p_adjusted=row["p_adjusted"],
                                      adjustment=p_adjust, **shown)
            tests.append(test)
        summary = self._test_table(kind, reference, frame, notes)
        return PairedTests(summary.title, tests, frame, summary, notes=summary.notes)

    def _pairs_text(self, metric, classifier, reference, other, name, datasets, paired_over, n_units):
        """What a test compares, in words (R's 'data:' line)."""
        where = self._data_text([name] if name is not None else datasets)
        unit = {"folds": f"{format_count(n_units, 'fold')} ({self.cv}-fold CV x {self.repeats}), each averaged over k",
                "k": f"{format_count(n_units, '(data set, k) cell')}, each averaged over the folds",
                "datasets": f"{format_count(n_units, 'data set')}, each averaged over k and the folds"}[paired_over]
        return f"{metric} of {reference} - {other}; {where}; classifier {classifier}; {unit}"

    @suggest_keywords
    def ttest(self, reference, alternative=None, paired_over="folds", p_adjust="holm", *, correction=None,
              conf_level=0.95, metric=None, classifier=None, dataset=None, k=None):
        """Paired t-tests of ``reference`` against every other method.

        By default the corrected resampled t-test of Nadeau and Bengio (2003) over the folds of
        the repeated cross-validation: one pair per repeat and fold (the metric averaged over the
        feature counts), the variance of the mean difference inflated from s^2 / J to
        (1 / J + n_test / n_train) s^2 because the training sets of the folds overlap
        (``fstools.evaluation.comparison_result.paired_t_test``).  With several data sets, one test per data set and method.

        Parameters
        ----------
        reference : str
            A compared method (its label).
        alternative : {None, 'greater', 'two-sided', 'less'}
            'greater': the reference's mean metric is higher (the paper's one-tailed H1:
            mu_reference > mu_other); 'less': lower.  None (default): the reference is better,
            'greater' for a metric where higher is better (accuracy, R^2) and 'less' for one
            where lower is better (error rate, RMSE, MAE, the multi-label losses).
        paired_over : {'folds', 'k', 'datasets'}
            The paired units.  'folds' (default): one pair per repeat and fold of each data set.
            'k' (the CMQFS paper's Tables 7-8): one pair per data set and feature count, the
            metric averaged over the folds, pooled over the data sets; the cells of one data set
            are not independent (a warning says so).  'datasets': one pair per data set (the
            metric averaged over k and the folds), as Demsar (2006) pairs; warns below 5.
        p_adjust : str
            Multiple-testing correction over the comparisons (statsmodels' ``multipletests``):
            'holm' (default), 'bonferroni', 'fdr_bh', ... or 'none'.
        correction : {'nadeau-bengio', 'none'}, optional
            Default: 'nadeau-bengio' for ``paired_over='folds'`` (the only units it applies to),
            else 'none'.  'none' over folds is the plain paired t-test (scipy's ``ttest_rel``),
            which treats the folds as independent and is liberal (Dietterich 1998).
        conf_level : float
            Of the interval for the mean difference (one-sided for one-sided alternatives, as R).
        metric, classifier : str, optional
        dataset : str or list, optional
            Restrict to these data sets (default: all).
        k : int or list, optional
            Restrict to these feature counts (default: all evaluated).

        Returns
        -------
        PairedTests
            Prints every test as R prints `t.test`; `summary()` is the compact table and
            `frame` the numbers, one row per test: ``comparison``, ``dataset``, ``reference``,
            ``method``, ``n`` (pairs), ``mean_reference``, ``mean_method``, ``mean_diff``,
            ``sd_diff``, ``se`` (of the mean difference, corrected or not), ``t``, ``df``,
            ``p_value``, ``p_adjusted``, ``conf_low``, ``conf_high``, ``effect_size`` (Cohen's
            d_z = mean_diff / sd_diff), ``test_train_ratio`` (n_test / n_train, NaN uncorrected);
            the settings in `frame.attrs`.
        """
        return self._paired_tests("ttest", reference, alternative, paired_over, p_adjust, metric, classifier,
                                  dataset, k, conf_level=conf_level, t_correction=correction)

    @suggest_keywords
    def wilcoxon(self, reference, alternative=None, paired_over="folds", p_adjust="holm", *, metric=None,
                 classifier=None, dataset=None, k=None, zero_method="wilcox", method="auto", correction=True,
                 conf_level=0.95):
        """Wilcoxon signed-rank tests of ``reference`` against every other method.

        The same pairs and ``alternative`` as :meth:`ttest` (there is no correction for
        overlapping training sets here: over folds the p-values are liberal).  The statistic is R's V = W+
        (``fstools.evaluation.comparison_result.wilcoxon_signed_rank``: zeros, ties, exact or normal p-value as R's
        ``wilcox.test`` with ``exact = NULL, correct = TRUE`` by default).

        Returns
        -------
        PairedTests
            `frame` columns: ``comparison``, ``dataset``, ``reference``, ``method``, ``n``,
            ``n_nonzero``, ``mean_diff``, ``median_diff``, ``pseudo_median`` (Hodges-Lehmann),
            ``conf_low``, ``conf_high`` (its interval at ``conf_level``), ``statistic`` (V),
            ``exact`` (exact p-value, else the normal approximation), ``p_value``, ``p_adjusted``,
            ``effect_size`` (rank-biserial correlation).
        """
        return self._paired_tests("wilcoxon", reference, alternative, paired_over, p_adjust, metric, classifier,
                                  dataset, k, conf_level=conf_level, zero_method=zero_method, method=method,
                                  correction=correction)

    def _test_table(self, kind, reference, frame, notes):
        """The compact Summary of a family of paired tests."""
        attrs = frame.attrs
        percent = self._percent(attrs["metric"], None)
        scale = 100.0 if percent else 1.0
        level = f"{100 * attrs['conf_level']:g}%"
        table = pd.DataFrame({"comparison": frame["comparison"], "n": frame["n"],
                              "mean diff" + (" (points)" if percent else ""):
                                  [format_number(scale * v) for v in frame["mean_diff"]]})
        if kind == "ttest":
            table[f"{level} CI"] = [f"[{format_number(scale * lo)}, {format_number(scale * hi)}]"
                                    for lo, hi in zip(frame["conf_low"], frame["conf_high"])]
            table["d_z"] = [format_number(v, 3) for v in frame["effect_size"]]
            table["t"] = [format_number(v) for v in frame["t"]]
            table["df"] = frame["df"].to_numpy()
        else:
            table["HL"] = [format_number(scale * v) for v in frame["pseudo_median"]]
            table[f"{level} CI"] = [f"[{format_number(scale * lo)}, {format_number(scale * hi)}]"
                                    for lo, hi in zip(frame["conf_low"], frame["conf_high"])]
            table["r_rb"] = [format_number(v, 3) for v in frame["effect_size"]]
            table["V"] = [format_number(v) for v in frame["statistic"]]
        table["p.value"] = [format_p_value(v) for v in frame["p_value"]]
        table["p.adj"] = [format_p_value(v) for v in frame["p_adjusted"]]
        table[SIGNIFICANCE_COLUMN] = [significance_stars(v) for v in frame["p_adjusted"]]
        units = {"k": "data set x feature count (each averaged over the folds and repeats), pooled",
                 "folds": "repeat x fold of each data set (each averaged over the feature counts)",
                 "datasets": "data set (each averaged over the feature counts and folds)"}[attrs["paired_over"]]
        hypothesis = {"greater": f"H1: mean {attrs['metric']} of {reference} > the other's (one-tailed)",
                      "less": f"H1: mean {attrs['metric']} of {reference} < the other's (one-tailed)",
                      "two-sided": "H1: means differ (two-sided)"}[attrs["alternative"]]
        header = [("Call", self.call), ("Test", attrs["test"]), ("Hypothesis", hypothesis),
                  ("Pairs", f"{attrs['n_units']}, one per {units}"),
                  ("Data", self._data_text(attrs["datasets"]) + (" (pooled)" if len(attrs["datasets"]) > 1 and
                                                                 attrs["paired_over"] == "k" else "")),
                  (self._learner_noun.capitalize(), attrs["classifier"]), ("Protocol", self._protocol_text()),
                  ("Adjustment", f"{attrs['p_adjust']} over the {format_count(len(frame), 'comparison')}")]
        out_notes = [significance_legend(SIGNIFICANCE_COLUMN)]
        if percent:
            out_notes.append(f"{'mean diff, CI' if kind == 'ttest' else 'mean diff, HL, CI'}: differences of "
                             f"{attrs['metric']} in percentage points (the metric in %, as summary() shows it); "
                             f".frame holds them as proportions.")
        if kind == "ttest":
            out_notes.append(f"CI: {level} confidence interval of the mean difference"
                             + (" (one-sided, as the alternative)" if attrs["alternative"] != "two-sided" else "")
                             + "; d_z: Cohen's d_z, the mean difference / the sd of the differences.")
            if attrs["correction"] == "nadeau-bengio":
                out_notes.append("Nadeau-Bengio correction: the variance of the mean difference is (1/J + "
                                 "n_test/n_train) s^2, not s^2/J, because the folds' training sets overlap "
                                 "(Nadeau and Bengio 2003).")
            elif attrs["paired_over"] == "folds":
                out_notes.append("Plain t-test over folds: the folds share training rows, so it is liberal "
                                 "(Dietterich 1998; Nadeau and Bengio 2003); correction='nadeau-bengio' is the "
                                 "default for this reason.")
        else:
            out_notes.append("V: R's statistic, the sum of the ranks of the positive differences (W+); HL: the "
                             "Hodges-Lehmann estimate (median of the Walsh averages) with its interval (the shifts "
                             "the test does not reject); r_rb: the matched-pairs rank-biserial correlation "
                             "(W+ - W-) / (W+ + W-).")
            if attrs["paired_over"] == "folds":
                out_notes.append("Folds share training rows and no correction exists for the signed-rank test: "
                                 "read the p-values as liberal.")
        if frame["p_value"].isna().any():
            out_notes.append("NA: the test is not defined for that pair (every paired difference is 0, or fewer "
                             "than two pairs)")
        out_notes += notes
        return Summary(f"{attrs['test']}: {reference} against the other methods", header, table, out_notes,
                       frame=frame)

    def test_summary(self, test="ttest", reference=None, **kwargs):
        """A test table as a printable summary (text, HTML, LaTeX, ``summary_frame()``; see :ref:`summary-tables`).

        ``test``: 'ttest' or 'wilcoxon' (``reference`` and ``kwargs`` as for that method), or
        'friedman' (``kwargs`` as :meth:`friedman`).
        """
        one_of(("ttest", "wilcoxon", "friedman")).validate(test, "test")
        if test == "friedman":
            return self.friedman(**kwargs).summary()
        if reference is None:
            raise ValueError(f"reference: name the method to test against the others; allowed: "
                             f"{', '.join(map(repr, self.methods))}")
        tests = self.ttest(reference, **kwargs) if test == "ttest" else self.wilcoxon(reference, **kwargs)
        return tests.summary()

    @suggest_keywords
    def friedman(self, metric=None, classifier=None, blocks=None, alpha=0.05, *, dataset=None, k=None):
        """Friedman's test over the methods with the Nemenyi post-hoc test (Demsar 2006).

        Parameters
        ----------
        blocks : {'datasets', 'k', 'folds'}, optional
            What is ranked: each data set (the metric averaged over k and folds; the default with
            several data sets, as Demsar recommends), each (data set, k) (the default with one data
            set) or each (data set, repeat, fold).  Blocks other than data sets are not
            independent: the p-values are then descriptive.
        alpha : float
            Level of the Nemenyi critical difference.

        Returns
        -------
        FriedmanResult
            ``summary()``, ``plot()`` (critical difference diagram), ``nemenyi``, ``mean_ranks``.
        """
        metric = self._metric(metric)
        classifier = self._classifier(classifier)
        datasets = self._datasets(dataset)
        if blocks is None:
            blocks = "datasets" if len(datasets) > 1 else "k"
        one_of(_BLOCKS).validate(blocks, "blocks")
        alpha = OPEN_UNIT_INTERVAL.validate(alpha, "alpha")
        if len(self.methods) < 2:
            raise ValueError("friedman: needs at least two compared methods")
        if blocks == "datasets" and len(datasets) < 2:
            raise ValueError(f"blocks: 'datasets' needs at least 2 data sets; this comparison has "
                             f"{len(datasets)} ({', '.join(datasets)}); use blocks='k' or 'folds', or compare "
                             f"several data sets (data as a dict)")
        ks = self._ks(k, datasets)
        part = self._part(metric, classifier, datasets, ks)
        by = {"datasets": ["dataset"], "k": ["dataset", "k"], "folds": ["dataset", "repeat", "fold"]}[blocks]
        values = part.groupby(by + ["method"], sort=False)["value"].mean().unstack("method")[self.method_labels]
        if blocks == "k":
            warnings.warn("blocks='k': the blocks are feature counts of the same folds, not independent data sets; "
                          "the Friedman and Nemenyi p-values are descriptive", UserWarning, stacklevel=3)
        if 1 < len(values) < 5:  # (one block: friedman_test says it needs two)
            warnings.warn(f"friedman: {format_count(len(values), 'block')} are too few for Friedman's test and the Nemenyi "
                          f"critical difference (Demsar 2006 uses 14 data sets; the chi-square law needs more "
                          f"than a handful of blocks); read them as descriptive", UserWarning, stacklevel=3)
        description = (f"{self._data_text(datasets)}; classifier {classifier}; {metric}; "
                       f"{'selection in fold' if self.select_in_fold else 'selection on all data'}")
        block_text = {"datasets": "data set", "k": "data set and number of features",
                      "folds": "data set, repeat and fold"}[blocks]
        plot_title = (f"{METRIC_NAMES.get(metric, metric)} of {classifier} on {self._data_title(datasets)}\n"
                      f"methods ranked in each of {format_count(len(values), 'block')} (one per {block_text})")
        return FriedmanResult(values, self.metrics[metric]["higher_is_better"], float(alpha), blocks, description,
                              plot_title=plot_title)

    def _data_title(self, datasets):
        """How titles name the data: the data set names, or for one unnamed frame its size."""
        if self._single_dataset:
            info = self.datasets[datasets[0]]
            return (f"the data ({format_count(info['n'], 'row')}, {format_count(info['n_features'], 'feature')}, "
                    f"{_response_text(info)}; "
                    f"response {info['response']})")
        return ", ".join(datasets)

    # ------------------------------------------------------------ stability of in-fold selections
    def stability(self, k=None, dataset=None, alpha=0.05):
        """Nogueira's stability of the in-fold selections (``select_in_fold=True`` only).

        For each data set and method, the top-k sets chosen in the ``repeats x cv`` training
        folds are compared with Nogueira, Sechidis and Brown's (2018) index, as in :func:`fstools.stability`
        (``fstools.evaluation.stability.nogueira_stability``).

        Returns
        -------
        pandas.DataFrame: dataset, method, k, stability, variance, lower, upper, M (sets), d (features).
        """

        if not self.select_in_fold:
            raise ValueError("stability: needs select_in_fold=True (one selection per training fold); this "
                             "comparison selected once on all the data. Use fs.stability for a bootstrap estimate")
        datasets = self._datasets(dataset)
        rows = []
        for name in datasets:
            ks = self._ks(k, [name])[name] if k is not None else [max(self.datasets[name]["k"])]
            part = self.rankings[self.rankings["dataset"] == name]
            features = None
            for label in self.method_labels:
                ranked = part[part["method"] == label]
                for p in ks:
                    chosen = ranked[ranked["rank"] <= p]
                    sets = chosen.groupby(["repeat", "fold"])["feature"].apply(list)
                    if features is None:
                        features = sorted(set(self.rankings[self.rankings["dataset"] == name]["feature"]))
                    d = self.datasets[name]["n_features"]
                    Z = np.zeros((len(sets), d), dtype=bool)
                    index = {f: j for j, f in enumerate(features)}
                    for i, members in enumerate(sets):
                        Z[i, [index[f] for f in members]] = True
                    out = nogueira_stability(Z, alpha=alpha)
                    rows.append({"dataset": name, "method": label, "k": p, "stability": out["stability"],
                                 "variance": out["variance"], "lower": out["lower"], "upper": out["upper"],
                                 "M": len(sets), "d": d})
        return pd.DataFrame(rows)

    # ------------------------------------------------------------ plot
    @suggest_keywords
    def plot(self, metric=None, classifier=None, dataset=None, band="sd", ax=None, percent=None, fig=None,
             **kwargs):
        """The metric against the number of features, one line per method, with error bands.

        Parameters
        ----------
        metric, classifier : str, optional
            Default: the first computed / used (the title names both).
        dataset : str or list of str, optional
            Default: every data set; several give one panel each.
        band : {'sd', 'ci', None}
            Shaded band: ± the sd over the repeats (as in the summary), a 95 % t-interval of the
            mean over the repeats, or none.
        ax : matplotlib Axes (one data set) or sequence of Axes (one per data set), optional
        fig : matplotlib Figure, optional
            Several data sets: draw the panels into this figure.
        percent : bool, optional
            Show proportions as percentages (default for the built-in metrics).

        Returns
        -------
        matplotlib Axes (one data set) or Figure (several data sets, one panel each)
        """
        # Imported when first drawn: matplotlib costs start-up time.
        from fstools.results.plotting import plot_comparison

        metric = self._metric(metric)
        classifier = self._classifier(classifier)
        datasets = self._datasets(dataset)
        if band is not None:
            one_of(("sd", "ci")).validate(band, "band")
        percent = self._percent(metric, percent)
        frames = {}
        for name in datasets:
            frame = self.summary_frame(metric, classifier, name)
            frame = frame.loc[name]
            frame = frame.loc[[row for row in frame.index if isinstance(row, (int, np.integer))]]
            frames[name] = frame
        n_repeats = self.repeats if self.repeats > 1 else self.cv
        label = metric_label(metric, percent=percent, higher_is_better=self.metrics[metric]["higher_is_better"])
        protocol = "selection in each training fold" if self.select_in_fold else "selection on all data"
        others = [c for c in self.classifiers if c != classifier]
        titles = {name: f"{self._data_title([name])}\n{self._learner_noun} {classifier}"
                        f"{' (others: ' + ', '.join(others) + ')' if others else ''}; {self.cv}-fold CV x "
                        f"{self.repeats}; {protocol}" for name in datasets}
        return plot_comparison(frames, self.method_labels, ylabel=label, band=band, n_repeats=n_repeats,
                               scale=100.0 if percent else 1.0, titles=titles, ax=ax, fig=fig, **kwargs)

    # ------------------------------------------------------------ printing
    def __repr__(self):
        metric = self._metric(None)
        classifier = self._classifier(None)
        frame = self.summary_frame(metric, classifier)
        key = (ALL_DATASETS, "Avg.") if len(self.datasets) > 1 else (next(iter(self.datasets)), "Avg.")
        # in the units of summary(): percent for the built-in proportions
        percent = self._percent(metric, None)
        scale = 100.0 if percent else 1.0
        averages = ", ".join(f"{label} {format_number(scale * frame.loc[key, (label, 'mean')], 4)}"
                             for label in self.method_labels)
        return (f"Comparison of {format_count(len(self.methods), 'method')} on "
                f"{format_count(len(self.datasets), 'data set')} ({self._data_text(list(self.datasets))})\n"
                f"Call: {self.call}\n"
                f"Protocol: {'selection in each training fold' if self.select_in_fold else 'selection on all data'}; "
                f"{self.cv}-fold CV x {self.repeats}; classifier(s): {', '.join(self.classifiers)}\n"
                f"Avg. {metric}{' (%)' if percent else ''} ({classifier}): {averages}")

    def _repr_html_(self):
        """What a notebook shows: the short print of ``repr``, as HTML (the table is ``summary()``)."""
        return text_as_html(repr(self))

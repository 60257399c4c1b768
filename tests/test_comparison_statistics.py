"""The statistics of fs.compare's tests, each against an independent reference.

References: the Nadeau-Bengio corrected t by hand from its formula; scipy's ``ttest_rel`` (and its
confidence interval) for the plain paired t; ``scipy.stats.t.ppf`` for the intervals by hand;
``scipy.stats.wilcoxon`` and published worked examples for the signed-rank test (R's
``?wilcox.test`` example; Demsar 2006, section 3.1.3); ``scipy.stats.friedmanchisquare`` on exact
integer counts for ties; Nogueira's index recomputed from the recorded in-fold rankings.
"""
import copy
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import fstools as fs
from fstools.evaluation.comparison_result import friedman_test, paired_t_test, wilcoxon_signed_rank
from fstools.evaluation.hypothesis_tests import HypothesisTest, PairedTests, merge_near_ties
from fstools.evaluation.stability import nogueira_stability


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.fixture(scope="module")
def cmp(wine):
    return fs.compare("class ~ .", wine, ["cmqfs", "fisher", "mrmr"], k=range(1, 6), cv=4, repeats=3,
                      random_state=0, progress=False, select_in_fold=True)


def _fold_units(result, classifier="1nn", metric="accuracy"):
    """Independent: the metric per (repeat, fold) x method, averaged over k."""
    r = result.results
    r = r[(r["classifier"] == classifier) & (r["metric"] == metric)]
    return r.pivot_table(index=["repeat", "fold"], columns="method", values="value", aggfunc="mean")


# --------------------------------------------------------------------------- t-tests
def test_corrected_t_is_nadeau_bengio_by_hand():
    rng = np.random.default_rng(3)
    a = rng.uniform(0.7, 0.9, 30)
    b = a - rng.normal(0.01, 0.02, 30)
    ratio = 1 / 9
    d = a - b
    J = len(d)
    se = np.sqrt((1 / J + ratio) * d.var(ddof=1))           # sigma^2 (1/J + n_test/n_train)
    t = d.mean() / se
    for alternative, p, low, high in (
            ("two-sided", 2 * stats.t.sf(abs(t), J - 1), d.mean() - stats.t.ppf(0.975, J - 1) * se,
             d.mean() + stats.t.ppf(0.975, J - 1) * se),
            ("greater", stats.t.sf(t, J - 1), d.mean() - stats.t.ppf(0.95, J - 1) * se, np.inf),
            ("less", stats.t.cdf(t, J - 1), -np.inf, d.mean() + stats.t.ppf(0.95, J - 1) * se)):
        out = paired_t_test(a, b, alternative, test_train_ratio=ratio)
        assert out["t"] == pytest.approx(t, rel=1e-12) and out["df"] == J - 1
        assert out["p_value"] == pytest.approx(p, rel=1e-10)
        assert (out["conf_low"], out["conf_high"]) == (pytest.approx(low, rel=1e-12), pytest.approx(high, rel=1e-12))
        assert out["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)    # Cohen's d_z
    # the correction only widens: |t| smaller, p larger than the plain test's
    plain = paired_t_test(a, b, "greater")
    assert abs(plain["t"]) > abs(t) and plain["p_value"] < paired_t_test(a, b, "greater",
                                                                         test_train_ratio=ratio)["p_value"]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_plain_paired_t_and_interval_equal_scipy(alternative):
    rng = np.random.default_rng(4)
    a = rng.normal(0.8, 0.05, 12)
    b = a + rng.normal(-0.01, 0.03, 12)
    reference = stats.ttest_rel(a, b, alternative=alternative)
    ci = reference.confidence_interval(0.9)
    out = paired_t_test(a, b, alternative, conf_level=0.9)
    assert out["t"] == pytest.approx(reference.statistic, rel=1e-12)
    assert out["p_value"] == pytest.approx(reference.pvalue, rel=1e-12)
    np.testing.assert_allclose([out["conf_low"], out["conf_high"]], [ci.low, ci.high], rtol=1e-12)


def test_compare_ttest_default_is_corrected_over_folds(cmp):
    units = _fold_units(cmp)
    ratio = np.mean([len(s.test) / len(s.train) for s in cmp.splits["data"]])
    tests = cmp.ttest("cmqfs")
    assert isinstance(tests, PairedTests) and list(tests.frame["method"]) == ["fisher", "mrmr"]
    for _, row in tests.frame.iterrows():
        d = (units["cmqfs"] - units[row["method"]]).to_numpy()
        J = len(d)
        assert J == 12 and row["n"] == J and row["df"] == J - 1
        t = d.mean() / np.sqrt((1 / J + ratio) * d.var(ddof=1))
        assert row["t"] == pytest.approx(t, rel=1e-10)
        assert row["p_value"] == pytest.approx(stats.t.sf(t, J - 1), rel=1e-10)
        assert row["test_train_ratio"] == pytest.approx(ratio) and 1 / 4 < ratio < 1 / 2
    plain = cmp.ttest("cmqfs", correction="none", alternative="two-sided").frame
    for _, row in plain.iterrows():
        reference = stats.ttest_rel(units["cmqfs"], units[row["method"]])
        assert row["t"] == pytest.approx(reference.statistic, rel=1e-10)
        assert row["p_value"] == pytest.approx(reference.pvalue, rel=1e-10)
        assert np.isnan(row["test_train_ratio"])


def test_tests_print_as_r_htest_with_the_frame_one_attribute_away(cmp):
    tests = cmp.ttest("cmqfs", alternative="two-sided")
    text = repr(tests)
    for piece in ("Corrected resampled t-test (Nadeau and Bengio 2003)", "data:  accuracy of cmqfs - fisher",
                  "t = ", "df = 11", "p-value = ", "holm-adjusted", "alternative hypothesis: true mean difference "
                  "is not equal to 0", "95 percent confidence interval (percentage points):", "sample estimates:",
                  "Cohen's d_z"):
        assert piece in text, piece
    one = tests["cmqfs vs mrmr"]
    assert isinstance(one, HypothesisTest) and one is tests[1]
    row = tests.frame.iloc[1]
    assert one.statistic == row["t"] and one.conf_int == (row["conf_low"], row["conf_high"])
    assert list(one.frame.columns[:3]) == ["statistic", "df", "p_value"]
    with pytest.raises(KeyError, match="'p_value': not a comparison; allowed: 'cmqfs vs fisher'.*in .frame"):
        tests["p_value"]
    summary = tests.summary().as_text()
    assert "95% CI" in summary and "d_z" in summary and "Nadeau-Bengio correction" in summary
    assert cmp.test_summary("ttest", "cmqfs").as_text() == cmp.ttest("cmqfs").summary().as_text()
    again = pickle.loads(pickle.dumps(tests))
    pd.testing.assert_frame_equal(again.frame, tests.frame)
    assert repr(again) == repr(tests)


def test_pooling_and_weak_tests_warn(cmp, wine):
    with pytest.warns(UserWarning, match="paired_over='k': the pairs are feature counts"):
        pooled = cmp.ttest("cmqfs", paired_over="k")
    assert "descriptive" in pooled.summary().as_text()
    with pytest.warns(UserWarning, match="blocks='k'"):
        cmp.friedman(blocks="k")
    few = fs.compare("class ~ .", wine, ["fisher", "mrmr"], k=[1, 2, 3], cv=3, repeats=1, random_state=0,
                     progress=False)
    with pytest.warns(UserWarning, match="3 blocks are too few"), pytest.warns(UserWarning, match="blocks='k'"):
        result = few.friedman(blocks="k")
    assert "Only 3 blocks" in result.summary().as_text()
    with pytest.warns(UserWarning, match="1 data set, too few pairs"):
        cmp.ttest("cmqfs", paired_over="datasets", correction="none")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cmp.ttest("cmqfs")                          # the default pairs folds: no warning
        cmp.friedman(blocks="folds")                # 12 blocks


def test_bad_test_arguments_name_the_argument(cmp):
    with pytest.raises(ValueError, match="correction: 'nadeau-bengio' corrects pairs of cross-validation folds; "
                                         "it needs paired_over='folds'"):
        cmp.ttest("cmqfs", paired_over="k", correction="nadeau-bengio")
    with pytest.raises(ValueError, match="correction: must be one of 'nadeau-bengio', 'none'; got 'bonferroni'"):
        cmp.ttest("cmqfs", correction="bonferroni")
    with pytest.raises(ValueError, match=r"conf_level: must be in \(0, 1\); got 95"):
        cmp.ttest("cmqfs", conf_level=95)
    with pytest.raises(ValueError, match="method: must be one of 'auto', 'exact', 'approx'"):
        cmp.wilcoxon("cmqfs", method="permutation")
    with pytest.raises(ValueError, match="test_train_ratio: must be a finite number > 0"):
        paired_t_test([1.0, 2.0], [0.0, 1.5], test_train_ratio=-1)


# --------------------------------------------------------------------------- Wilcoxon
def test_wilcoxon_reproduces_r_documentation_example():
    # R's ?wilcox.test (Hollander and Wolfe, 1973, p. 29): depression scores before (x) and after (y);
    # wilcox.test(x, y, paired = TRUE, alternative = "greater") gives V = 40, p-value = 0.01953.
    x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
    y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
    out = wilcoxon_signed_rank(x, y, alternative="greater")
    assert out["statistic"] == 40 and out["exact"]
    assert out["p_value"] == pytest.approx(0.01953, abs=5e-6)
    # V is W+ whatever the alternative (scipy's two-sided statistic is min(W+, W-) = 5)
    two_sided = wilcoxon_signed_rank(x, y)
    assert two_sided["statistic"] == 40 and stats.wilcoxon(x, y).statistic == 5
    assert two_sided["effect_size"] == pytest.approx((40 - 5) / 45)          # rank-biserial


def test_wilcoxon_on_demsar_worked_example():
    # Demsar (2006), Table 2: AUC of C4.5 with m = 0 and with m tuned on 14 data sets; two zero
    # differences whose ranks are split between the signs; R+ = 93, R- = 12 (section 3.1.3).
    c45 = [.763, .599, .954, .628, .882, .936, .661, .583, .775, 1.000, .940, .619, .972, .957]
    c45m = [.768, .591, .971, .661, .888, .931, .668, .583, .838, 1.000, .962, .666, .981, .978]
    out = wilcoxon_signed_rank(c45m, c45, zero_method="zsplit")
    assert out["statistic"] == pytest.approx(93) and out["n_nonzero"] == 12
    assert out["effect_size"] == pytest.approx((93 - 12) / 105)
    reference = stats.wilcoxon(c45m, c45, zero_method="zsplit", correction=True, method="approx")
    assert reference.statistic == pytest.approx(12)
    assert out["p_value"] == pytest.approx(reference.pvalue, rel=1e-12)     # zeros and ties: normal law
    assert not out["exact"]


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_follows_r_rule_and_equals_scipy(zero_method, alternative):
    rng = np.random.default_rng(5)
    b = rng.integers(50, 70, 20) / 72
    clean = b + rng.permutation(np.arange(1, 21) * (rng.choice([-1, 1], 20))) / 720    # distinct |d|, no zeros
    tied = b + rng.integers(-3, 4, 20) / 72                                            # zeros and ties
    for a, exact in ((clean, True), (tied, False)):
        out = wilcoxon_signed_rank(a, b, alternative, zero_method=zero_method)
        d = merge_near_ties(a - b)
        d[np.abs(d) < 1e-12] = 0
        reference = stats.wilcoxon(d, zero_method=zero_method, correction=True, alternative=alternative,
                                   method="exact" if exact else "approx")
        assert out["exact"] == exact
        assert out["p_value"] == pytest.approx(reference.pvalue, rel=1e-10)
        ranked = d if zero_method != "wilcox" else d[d != 0]
        ranks = stats.rankdata(np.abs(ranked))
        w_plus = ranks[ranked > 0].sum() + (ranks[ranked == 0].sum() / 2 if zero_method == "zsplit" else 0)
        assert out["statistic"] == pytest.approx(w_plus)
    walsh = [(ranked[i] + ranked[j]) / 2 for i in range(len(ranked)) for j in range(i, len(ranked))]
    assert out["pseudo_median"] == pytest.approx(np.median(walsh))       # zeros dropped for 'wilcox', as R


def test_wilcoxon_sees_near_equal_scores_as_zeros_and_ties():
    exact = np.array([58, 50, 50, 52, 50]) / 72
    a = np.array([pd.Series(exact).mean(), 0.5, 0.6])            # 0.7222222222222223
    b = np.array([pd.Series(exact[::-1]).mean(), 0.4, 0.5])      # 0.7222222222222221
    assert a[0] != b[0]
    out = wilcoxon_signed_rank(a, b)
    assert out["n_nonzero"] == 2 and not out["exact"]            # one zero, one tie of |d| = 0.1
    assert out["statistic"] == pytest.approx(3.0)


# --------------------------------------------------------------------------- Friedman and ties
def test_merge_near_ties():
    values = np.array([0.1 + 0.2, 0.3, 60 / 72, 61 / 72, np.nan])
    merged = merge_near_ties(values)
    assert merged[0] == merged[1] == 0.3 and merged[2] != merged[3] and np.isnan(merged[4])
    np.testing.assert_array_equal(merge_near_ties([3.0, 1.0, 2.0]), [3.0, 1.0, 2.0])


def test_equal_fold_accuracies_tie_in_friedman(cmp):
    # mrmr's scores are fisher's with the feature counts reversed: per fold the mean over k is
    # the same fraction, summed in another order (so in floating point sometimes not the same).
    tied = copy.deepcopy(cmp)
    r = tied.results
    for (_, repeat, fold), group in r[r["method"] == "fisher"].groupby(["classifier", "repeat", "fold"]):
        target = r.index[(r["method"] == "mrmr") & (r["repeat"] == repeat) & (r["fold"] == fold) &
                         (r["classifier"] == group["classifier"].iloc[0])]
        r.loc[target, "value"] = group.sort_values("k")["value"].to_numpy()[::-1]
    floats = _fold_units(tied)
    assert (floats["fisher"] != floats["mrmr"]).any()             # the rounding the tolerance must absorb
    result = tied.friedman(blocks="folds")
    np.testing.assert_array_equal(result.ranks["fisher"], result.ranks["mrmr"])
    # exact reference: correct counts (integers) summed over k, per fold (one test-fold size each)
    n_test = {(s.repeat, s.fold): len(s.test) for s in tied.splits["data"]}
    counts = tied.results.assign(correct=lambda f: np.rint(
        f["value"] * [n_test[(rep, fold)] for rep, fold in zip(f["repeat"], f["fold"])]).astype(int))
    sums = counts.pivot_table(index=["repeat", "fold"], columns="method", values="correct", aggfunc="sum")
    reference = stats.friedmanchisquare(*[sums[m] for m in ["cmqfs", "fisher", "mrmr"]])
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-12)
    # and the paired tests see every difference as 0
    assert np.isnan(tied.ttest("fisher").frame.set_index("method").loc["mrmr", "t"])


def test_friedman_equals_scipy_on_untied_data():
    rng = np.random.default_rng(6)
    values = pd.DataFrame(rng.uniform(size=(9, 4)), columns=list("abcd"))
    out = friedman_test(values)
    reference = stats.friedmanchisquare(*[values[c] for c in values])
    assert out["statistic"] == pytest.approx(reference.statistic, rel=1e-12)
    assert out["p_value"] == pytest.approx(reference.pvalue, rel=1e-12)


# --------------------------------------------------------------------------- stability in the summary
def test_summary_shows_each_methods_nogueira_stability(cmp):
    text = cmp.summary().as_text()
    line = next(line for line in text.splitlines() if line.startswith("Stability:"))
    assert "top 5" in line and "95% CI" in line
    features = sorted(cmp.rankings["feature"].unique())
    for method in ("cmqfs", "fisher", "mrmr"):
        chosen = cmp.rankings[(cmp.rankings["method"] == method) & (cmp.rankings["rank"] <= 5)]
        Z = np.zeros((12, 13), dtype=bool)
        for i, (_, members) in enumerate(chosen.groupby(["repeat", "fold"])["feature"]):
            Z[i, [features.index(f) for f in members]] = True
        # the index by its definition (Nogueira et al. 2018, Definition 4), and its interval
        p = Z.mean(axis=0)
        kbar = Z.sum(axis=1).mean()
        phi = 1 - np.mean(12 / 11 * p * (1 - p)) / (kbar / 13 * (1 - kbar / 13))
        out = nogueira_stability(Z)
        assert out["stability"] == pytest.approx(phi, rel=1e-12)
        assert f"{method} {out['stability']:.3g} [{out['lower']:.3g}, {out['upper']:.3g}]" in line
    selected_once = fs.compare("class ~ .", fs.datasets.load("wine"), ["fisher", "mrmr"], k=[1, 2], cv=3, repeats=1,
                               random_state=0, progress=False)
    assert "Stability:  not measured" in selected_once.summary().as_text()


def _signed_rank_law(n):
    """Independent: P(V = v) of the signed-rank statistic by enumerating the 2^n sign patterns."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    ranks = np.arange(1, n + 1)
    for pattern in range(2 ** n):
        counts[sum(ranks[[(pattern >> i) & 1 == 1 for i in range(n)]])] += 1
    return counts / 2 ** n


@pytest.mark.parametrize("conf_level", [0.95, 0.9])
def test_wilcoxon_interval_is_r_exact_hodges_lehmann(conf_level):
    # R's wilcox.test(conf.int = TRUE), exact case: with qu = qsignrank(alpha / 2, n), the interval
    # is the qu-th and the (M - qu + 1)-th of the M sorted Walsh averages; the estimate their median.
    x = np.array([1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30])
    y = np.array([0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29])
    d = x - y
    n = len(d)
    walsh = np.sort([(d[i] + d[j]) / 2 for i in range(n) for j in range(i, n)])
    M = len(walsh)
    cdf = np.cumsum(_signed_rank_law(n))
    alpha = 1 - conf_level
    qu = int(np.argmax(cdf >= alpha / 2))                     # qsignrank(alpha / 2, n)
    out = wilcoxon_signed_rank(x, y, conf_level=conf_level)
    assert (out["conf_low"], out["conf_high"]) == (pytest.approx(walsh[qu - 1]), pytest.approx(walsh[M - qu]))
    assert out["pseudo_median"] == pytest.approx(np.median(walsh))
    q1 = int(np.argmax(cdf >= alpha))                         # one-sided: qsignrank(alpha, n)
    greater = wilcoxon_signed_rank(x, y, "greater", conf_level=conf_level)
    assert (greater["conf_low"], greater["conf_high"]) == (pytest.approx(walsh[q1 - 1]), np.inf)
    less = wilcoxon_signed_rank(x, y, "less", conf_level=conf_level)
    assert (less["conf_low"], less["conf_high"]) == (-np.inf, pytest.approx(walsh[M - q1]))
    if conf_level == 0.95:
        # R prints for this example: 95 percent confidence interval 0.010 0.786, (pseudo)median 0.46
        np.testing.assert_allclose([out["conf_low"], out["conf_high"], out["pseudo_median"]], [0.010, 0.786, 0.46],
                                   atol=1e-12)


def test_wilcoxon_interval_inverts_the_approximate_test():
    # zeros and ties: the interval is every shift mu (between Walsh averages) that scipy's normal
    # test of d - mu does not reject at alpha / 2 on either side -- checked over every gap.
    rng = np.random.default_rng(8)
    d = rng.integers(-3, 6, 25) / 72
    out = wilcoxon_signed_rank(d, np.zeros_like(d))
    assert not out["exact"]
    nonzero = d[d != 0]
    walsh = np.unique([(nonzero[i] + nonzero[j]) / 2 for i in range(len(nonzero)) for j in range(i, len(nonzero))])
    mids = (walsh[:-1] + walsh[1:]) / 2
    kept = [mu for mu in mids if min(stats.wilcoxon(nonzero - mu, correction=True, method="approx",
                                                    alternative=side).pvalue for side in ("greater", "less")) > 0.025]
    inside = walsh[(walsh >= out["conf_low"]) & (walsh <= out["conf_high"])]
    assert out["conf_low"] == pytest.approx(walsh[walsh < min(kept)].max())
    assert out["conf_high"] == pytest.approx(walsh[walsh > max(kept)].min())
    assert len(inside) >= 2 and out["conf_low"] <= out["pseudo_median"] <= out["conf_high"]


def test_compare_wilcoxon_prints_interval_and_effect_size(cmp):
    tests = cmp.wilcoxon("cmqfs", alternative="two-sided")
    text = repr(tests)
    assert "Wilcoxon signed rank" in text and "V = " in text and "95 percent confidence interval" in text
    assert "(pseudo)median" in text and "rank-biserial" in text
    units = _fold_units(cmp)
    row = tests.frame.set_index("method").loc["fisher"]
    expected = wilcoxon_signed_rank(units["cmqfs"].to_numpy(), units["fisher"].to_numpy())
    assert row["conf_low"] == expected["conf_low"] and row["statistic"] == expected["statistic"]
    assert "HL" in tests.summary().table.columns

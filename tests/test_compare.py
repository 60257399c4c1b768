"""fs.compare and ComparisonResult: protocol, paired design, tests, tables, plots, errors.

Expected numbers come from independent computations (scipy, statsmodels, scikit-learn, pandas
group-bys written here, or hand calculations), never from the code under test.
"""
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from statsmodels.stats.multitest import multipletests

import fstools as fs
from fstools.evaluation.comparison_result import (friedman_statistic, friedman_test, iman_davenport, nemenyi_critical_difference,
                                nemenyi_q, nemenyi_test)
from fstools.methods import registry
from fstools.methods.registry import MethodOutput, MethodSpec

METHODS = ["cmqfs", "fisher", ("mifs", {"beta": 1.0})]


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.fixture(scope="module")
def iris():
    return fs.datasets.load("iris")


@pytest.fixture(scope="module")
def cmp(wine):
    return fs.compare("class ~ .", wine, METHODS, k=range(1, 6), classifier=["1nn", "svm"], cv=4, repeats=3,
                      random_state=0, progress=False)


@pytest.fixture(scope="module")
def multi(wine, iris):
    return fs.compare("class ~ .", {"wine": wine, "iris": iris}, ["cmqfs", "fisher", "mrmr"],
                      k={"wine": [1, 2, 3, 4], "iris": [1, 2, 3]}, cv=3, repeats=2, random_state=1, progress=False)


def _cells(cmp, classifier, metric="accuracy", datasets=None):
    """Independent: mean over folds and repeats per (dataset, k) x method."""
    r = cmp.results
    r = r[(r["classifier"] == classifier) & (r["metric"] == metric)]
    if datasets is not None:
        r = r[r["dataset"].isin(datasets)]
    return r.pivot_table(index=["dataset", "k"], columns="method", values="value", aggfunc="mean")


# --------------------------------------------------------------------------- structure
def test_results_long_table(cmp):
    r = cmp.results
    assert list(r.columns) == ["dataset", "classifier", "method", "k", "repeat", "fold", "metric", "value"]
    # 2 classifiers x 3 methods x 5 k x 3 repeats x 4 folds x 1 metric
    assert len(r) == 2 * 3 * 5 * 3 * 4
    assert set(r["method"]) == {"cmqfs", "fisher", "mifs"}
    assert sorted(r["k"].unique()) == [1, 2, 3, 4, 5]
    assert sorted(r["repeat"].unique()) == [1, 2, 3] and sorted(r["fold"].unique()) == [1, 2, 3, 4]
    assert r["value"].between(0, 1).all()
    assert not r.duplicated(["dataset", "classifier", "method", "k", "repeat", "fold", "metric"]).any()


def test_method_labels_and_params(wine):
    out = fs.compare("class ~ .", wine, ["mifs", ("mifs", {"beta": 0.5})], k=2, cv=2, repeats=1, random_state=0,
                     progress=False)
    assert list(out.methods) == ["mifs", "mifs(beta=0.5)"]
    assert out.methods["mifs(beta=0.5)"]["params"]["beta"] == 0.5
    labelled = fs.compare("class ~ .", wine, {"MIFS": ("mifs", {"beta": 1.0}), "Fisher": "fisher"}, k=2, cv=2,
                          repeats=1, random_state=0, progress=False)
    assert list(labelled.methods) == ["MIFS", "Fisher"]
    assert "MIFS = mifs(beta=1.0)" in labelled.summary().as_text()


def test_int_k_is_one_feature_count(wine):
    out = fs.compare("class ~ .", wine, ["fisher"], k=3, cv=2, repeats=1, random_state=0, progress=False)
    assert sorted(out.results["k"].unique()) == [3]


def test_ranking_is_the_methods_ranking(wine, cmp):
    # rank once per method on all (standardised) data: the same top features as fs.select
    standardised = wine.copy()
    X = standardised.drop(columns="class")
    standardised[X.columns] = (X - X.mean()) / X.std(ddof=0)
    for label, method, params in (("cmqfs", "cmqfs", {}), ("fisher", "fisher", {}), ("mifs", "mifs", {"beta": 1.0})):
        expected = fs.select("class ~ .", standardised, method=method, k=5, **params).selected
        got = cmp.rankings[cmp.rankings["method"] == label].sort_values("rank")["feature"].tolist()
        assert got == expected
    # one selection per method on all the data: repeat/fold NA
    assert cmp.rankings["repeat"].isna().all()
    assert len(cmp.timing) == 3 and cmp.timing["seconds"].gt(0).all()


def test_fold_accuracy_matches_sklearn_pipeline(wine, cmp):
    """One cell recomputed with Pipeline(StandardScaler, SVC) on the recorded split and top-p features."""
    X = wine.drop(columns="class")
    y = wine["class"].cat.codes.to_numpy()
    ranking = cmp.rankings[cmp.rankings["method"] == "mifs"].sort_values("rank")["feature"].tolist()
    for repeat, fold, train, test in cmp.splits["data"][:5]:
        for p in (2, 4):
            model = make_pipeline(StandardScaler(), SVC()).fit(X.iloc[train][ranking[:p]], y[train])
            expected = model.score(X.iloc[test][ranking[:p]], y[test])
            r = cmp.results
            got = r[(r["classifier"] == "svm") & (r["method"] == "mifs") & (r["k"] == p) & (r["repeat"] == repeat)
                    & (r["fold"] == fold)]["value"]
            assert len(got) == 1
            assert got.iloc[0] == pytest.approx(expected, abs=1e-12)


def test_one_nn_matches_definition(wine):
    from fstools.evaluation.classifiers import OneNearestNeighbor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 3, 40)
    Xt = rng.normal(size=(15, 3))
    predicted = OneNearestNeighbor().fit(X, y).predict(Xt)
    expected = [y[np.argmin([np.sum((x - row) ** 2) for row in X])] for x in Xt]
    np.testing.assert_array_equal(predicted, expected)
    # exact ties: the first training row wins
    tie = OneNearestNeighbor().fit(np.array([[0.0], [2.0], [2.0]]), np.array(["a", "b", "c"]))
    assert list(tie.predict(np.array([[1.0], [2.0]]))) == ["a", "b"]


# --------------------------------------------------------------------------- paired design, recording selectors
class _Recorder:
    """A selection method that records the rows it is given (through an 'id' column) and ranks
    the columns in a fixed order."""

    def __init__(self, order):
        self.order = order
        self.calls = []

    def __call__(self, X, y, k, n_threads):
        self.calls.append(np.asarray(X[:, 0]).copy())
        n = X.shape[1]
        order = self.order + [j for j in range(n) if j not in self.order]
        ranking = np.asarray(order[: (k if k is not None else n)], dtype=np.intp)
        scores = np.zeros(n)
        scores[order] = np.arange(n, 0, -1)
        return MethodOutput(ranking=ranking, scores=scores)


class _RecordingClassifier:
    """A classifier recording the ids (first column) of the rows it trains and predicts on."""

    log = []

    def __init__(self):
        pass

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit(self, X, y):
        self.train_ = tuple(np.asarray(X)[:, 0].astype(int))
        self.signature_ = tuple(np.round(np.asarray(X)[0, 1:], 12))
        self.majority_ = np.bincount(y).argmax()
        return self

    def predict(self, X):
        _RecordingClassifier.log.append((self.train_, tuple(np.asarray(X)[:, 0].astype(int)), self.signature_))
        return np.full(len(X), self.majority_)


@pytest.fixture
def id_data(wine):
    data = wine.copy()
    data.insert(0, "id", np.arange(len(data), dtype=float))
    return data


@pytest.fixture
def recorders(monkeypatch):
    a = _Recorder([0, 1, 2, 3, 4, 5])        # id, alcohol, malic_acid, ...
    b = _Recorder([0, 2, 1, 3, 4, 5])        # id, malic_acid, alcohol, ...
    for name, function in (("recorder_a", a), ("recorder_b", b)):
        monkeypatch.setitem(registry._REGISTRY, name, MethodSpec(name=name, description="records its input",
                                                                   function=function,
                                                                   capabilities=frozenset({"supervised"})))
    return a, b


def test_select_in_fold_never_shows_the_test_fold(id_data, recorders):
    a, b = recorders
    out = fs.compare("class ~ .", id_data, ["recorder_a", "recorder_b"], k=[1, 2], cv=5, repeats=2,
                     random_state=3, select_in_fold=True, standardize=False, progress=False)
    splits = out.splits["data"]
    for recorder in (a, b):
        assert len(recorder.calls) == 5 * 2
        for seen, (repeat, fold, train, test) in zip(recorder.calls, splits):
            seen = set(seen.astype(int))
            assert seen == set(train)
            assert not seen & set(test)
    # the same splits for both methods (paired), call by call
    for seen_a, seen_b in zip(a.calls, b.calls):
        np.testing.assert_array_equal(seen_a, seen_b)
    # every row is tested exactly once per repeat
    for repeat in (1, 2):
        tested = np.concatenate([test for r, _, _, test in splits if r == repeat])
        assert sorted(tested) == list(range(len(id_data)))
    assert out.select_in_fold and "select_in_fold=True: honest" in out.summary().as_text()


def test_selection_on_all_data_sees_every_row(id_data, recorders):
    a, b = recorders
    out = fs.compare("class ~ .", id_data, ["recorder_a", "recorder_b"], k=[1, 2], cv=3, repeats=2,
                     random_state=3, standardize=False, progress=False)
    assert len(a.calls) == 1 and len(b.calls) == 1
    assert sorted(a.calls[0].astype(int)) == list(range(len(id_data)))
    assert "select_in_fold=False: the papers' protocol" in out.summary().as_text()


def test_classifier_sees_the_same_splits_for_every_method(id_data, recorders):
    _RecordingClassifier.log = []
    cv, repeats = 4, 3
    fs.compare("class ~ .", id_data, ["recorder_a", "recorder_b"], k=[2], classifier=_RecordingClassifier(), cv=cv,
               repeats=repeats, random_state=5, standardize=False, progress=False)
    log = _RecordingClassifier.log
    pairs = {}
    for train, test, signature in log:
        pairs.setdefault((train, test), set()).add(signature)
    # exactly repeats x cv distinct (train, test) splits, each used by both methods (two column signatures)
    assert len(pairs) == cv * repeats
    assert all(len(signatures) == 2 for signatures in pairs.values())
    for train, test in pairs:
        assert not set(train) & set(test)
        assert len(train) + len(test) == len(id_data)
    # different repeats use different splits
    tests = [frozenset(test) for _, test in pairs]
    assert len(set(tests)) == cv * repeats


def test_method_failure_is_named(wine, monkeypatch):
    def broken(X, y, k, n_threads):
        raise FloatingPointError("kernel exploded")

    monkeypatch.setitem(registry._REGISTRY, "broken", MethodSpec(name="broken", description="fails",
                                                                  function=broken))
    # The method's own exception type (a RuntimeError before errors kept their type).
    with pytest.raises(FloatingPointError, match=r"method 'broken' \(broken\) failed on data set 'data'.*kernel "
                                                 r"exploded"):
        fs.compare("class ~ .", wine, ["fisher", "broken"], k=2, cv=2, repeats=1, progress=False)
    with pytest.raises(FloatingPointError, match=r"method 'broken'.*\(repeat 1, fold 1\).*kernel exploded"):
        fs.compare("class ~ .", wine, ["broken"], k=2, cv=2, repeats=1, select_in_fold=True, progress=False)


# --------------------------------------------------------------------------- reproducibility, n_jobs
def test_reproducible_with_random_state(wine):
    kwargs = dict(k=[1, 3], classifier="1nn", cv=3, repeats=2, progress=False, select_in_fold=True)
    first = fs.compare("class ~ .", wine, ["cmqfs", "fisher"], random_state=11, **kwargs)
    second = fs.compare("class ~ .", wine, ["cmqfs", "fisher"], random_state=11, **kwargs)
    pd.testing.assert_frame_equal(first.results, second.results)
    pd.testing.assert_frame_equal(first.rankings, second.rankings)
    for (r1, f1, tr1, te1), (r2, f2, tr2, te2) in zip(first.splits["data"], second.splits["data"]):
        np.testing.assert_array_equal(te1, te2)
    other = fs.compare("class ~ .", wine, ["cmqfs", "fisher"], random_state=12, **kwargs)
    assert any(not np.array_equal(a[3], b[3]) for a, b in zip(first.splits["data"], other.splits["data"]))


@pytest.mark.parametrize("select_in_fold", [False, True])
def test_results_identical_for_any_n_jobs(wine, select_in_fold):
    from sklearn.tree import DecisionTreeClassifier

    kwargs = dict(k=[1, 2, 4], classifier={"1nn": "1nn", "tree": DecisionTreeClassifier()}, cv=3, repeats=2,
                  random_state=4, progress=False, select_in_fold=select_in_fold)
    serial = fs.compare("class ~ .", wine, ["cmqfs", "mrmr"], n_jobs=None, **kwargs)
    parallel = fs.compare("class ~ .", wine, ["cmqfs", "mrmr"], n_jobs=2, **kwargs)
    pd.testing.assert_frame_equal(serial.results, parallel.results)
    pd.testing.assert_frame_equal(serial.rankings, parallel.rankings)


# --------------------------------------------------------------------------- summary tables
def test_summary_frame_numbers(cmp):
    frame = cmp.summary_frame(classifier="1nn")
    r = cmp.results[(cmp.results["classifier"] == "1nn")]
    for method in ("cmqfs", "fisher", "mifs"):
        part = r[r["method"] == method]
        for p in range(1, 6):
            values = part[part["k"] == p]
            per_repeat = [values[values["repeat"] == rep]["value"].mean() for rep in (1, 2, 3)]
            assert frame.loc[("data", p), (method, "mean")] == pytest.approx(values["value"].mean(), abs=1e-12)
            assert frame.loc[("data", p), (method, "sd")] == pytest.approx(np.std(per_repeat, ddof=1), abs=1e-12)
        # Avg.: over k; sd over repeats of the per-repeat average over k
        per_repeat_avg = [part[part["repeat"] == rep]["value"].mean() for rep in (1, 2, 3)]
        assert frame.loc[("data", "Avg."), (method, "mean")] == pytest.approx(part["value"].mean(), abs=1e-12)
        assert frame.loc[("data", "Avg."), (method, "sd")] == pytest.approx(np.std(per_repeat_avg, ddof=1), abs=1e-12)
    # best marked per row
    for p in range(1, 6):
        means = {m: frame.loc[("data", p), (m, "mean")] for m in ("cmqfs", "fisher", "mifs")}
        top = max(means.values())
        for m, value in means.items():
            assert frame.loc[("data", p), (m, "best")] == (value >= top - 1e-12)
    # time row: the recorded selection seconds
    for method in ("cmqfs", "fisher", "mifs"):
        seconds = cmp.timing[cmp.timing["method"] == method]["seconds"].mean()
        assert frame.loc[("data", "Time (s)"), (method, "mean")] == pytest.approx(seconds)


def test_one_repeat_sd_over_folds(wine):
    out = fs.compare("class ~ .", wine, ["fisher", "mrmr"], k=[1, 2, 3], cv=5, repeats=1, random_state=2,
                     progress=False)
    frame = out.summary_frame()
    r = out.results
    for method in ("fisher", "mrmr"):
        part = r[r["method"] == method]
        for p in (1, 2, 3):
            assert frame.loc[("data", p), (method, "sd")] == pytest.approx(
                np.std(part[part["k"] == p]["value"], ddof=1), abs=1e-12)
        per_fold = part.groupby("fold")["value"].mean()
        assert frame.loc[("data", "Avg."), (method, "sd")] == pytest.approx(np.std(per_fold, ddof=1), abs=1e-12)
    assert "sd over the 5 folds" in out.summary().as_text()


def test_summary_text_html_latex(cmp):
    summary = cmp.summary(classifier="svm")
    text = summary.as_text()
    assert "Avg." in text and "Time (s)" in text and " *" in text and "+-" in text
    assert "svm: SVM, RBF kernel" in text and "4-fold stratified cross-validation x 3 repeats" in text
    html = summary.as_html()
    assert "<b>" in html and "Avg." in html
    latex = summary.as_latex()
    assert r"\textbf{" in latex and r"\begin{tabular}" in latex
    # cells shown in percent with 2 decimals
    frame = summary.summary_frame()
    first = frame.loc[("data", 1), ("cmqfs", "mean")]
    assert f"{100 * first:.2f}" in summary.to_frame()["cmqfs"].iloc[0]
    assert "Other classifiers: 1nn" in text


def test_several_datasets_tables(multi, wine, iris):
    frame = multi.summary_frame()
    assert ("wine", "Avg.") in frame.index and ("iris", "Avg.") in frame.index and ("(all)", "Avg.") in frame.index
    cells = _cells(multi, "1nn")
    for method in ("cmqfs", "fisher", "mrmr"):
        # the papers' Avg.: the mean over every (data set, k) cell
        assert frame.loc[("(all)", "Avg."), (method, "mean")] == pytest.approx(cells[method].mean(), abs=1e-12)
        assert frame.loc[("iris", "Avg."), (method, "mean")] == pytest.approx(cells.loc["iris", method].mean(),
                                                                              abs=1e-12)
    text = multi.summary().as_text()
    assert "Avg. (all)" in text and "wine (178 rows" in text and "iris (150 rows" in text
    only_iris = multi.summary(dataset="iris").summary_frame()
    assert set(only_iris.index.get_level_values(0)) == {"iris"}


# --------------------------------------------------------------------------- paired tests
def test_ttest_equals_scipy_over_k(cmp):
    cells = _cells(cmp, "svm")
    with pytest.warns(UserWarning, match="paired_over='k': the pairs are feature counts"):
        out = cmp.ttest("cmqfs", classifier="svm", paired_over="k").frame
    assert list(out["method"]) == ["fisher", "mifs"]
    expected_p = []
    for _, row in out.iterrows():
        a, b = cells["cmqfs"].to_numpy(), cells[row["method"]].to_numpy()
        reference = stats.ttest_rel(a, b, alternative="greater")
        d = a - b
        assert row["n"] == 5 and row["df"] == 4
        assert row["t"] == pytest.approx(reference.statistic, rel=1e-12)
        assert row["t"] == pytest.approx(d.mean() / (d.std(ddof=1) / np.sqrt(len(d))), rel=1e-10)
        assert row["p_value"] == pytest.approx(reference.pvalue, rel=1e-12)
        assert row["mean_diff"] == pytest.approx(d.mean(), abs=1e-14)
        expected_p.append(reference.pvalue)
    np.testing.assert_allclose(out["p_adjusted"], multipletests(expected_p, method="holm")[1], rtol=1e-12)
    with pytest.warns(UserWarning, match="paired_over='k'"):
        none = cmp.ttest("cmqfs", classifier="svm", p_adjust="none", paired_over="k").frame
    np.testing.assert_allclose(none["p_adjusted"], none["p_value"])


def test_ttest_two_sided_and_over_folds(cmp):
    r = cmp.results[(cmp.results["classifier"] == "1nn")]
    units = r.groupby(["repeat", "fold", "method"])["value"].mean().unstack("method")
    out = cmp.ttest("fisher", alternative="two-sided", paired_over="folds", p_adjust="bonferroni",
                    correction="none").frame
    for _, row in out.iterrows():
        reference = stats.ttest_rel(units["fisher"], units[row["method"]])
        assert row["n"] == 12 and row["df"] == 11
        assert row["t"] == pytest.approx(reference.statistic, rel=1e-12)
        assert row["p_value"] == pytest.approx(reference.pvalue, rel=1e-12)
        assert row["p_adjusted"] == pytest.approx(min(1.0, 2 * reference.pvalue), rel=1e-12)
    # a subset of k
    with pytest.warns(UserWarning, match="paired_over='k'"):
        sub = cmp.ttest("cmqfs", k=[2, 3, 4], paired_over="k").frame
    cells = _cells(cmp, "1nn").loc[("data", [2, 3, 4]), :]
    assert sub.loc[0, "p_value"] == pytest.approx(
        stats.ttest_rel(cells["cmqfs"], cells["fisher"], alternative="greater").pvalue, rel=1e-12)


def test_pooled_ttest_across_datasets(multi):
    cells = _cells(multi, "1nn")
    with pytest.warns(UserWarning, match="paired_over='k'"):
        pooled = multi.ttest("cmqfs", p_adjust="holm", paired_over="k").frame
    assert (pooled["n"] == 4 + 3).all()
    for _, row in pooled.iterrows():
        reference = stats.ttest_rel(cells["cmqfs"], cells[row["method"]], alternative="greater")
        assert row["t"] == pytest.approx(reference.statistic, rel=1e-12)
        assert row["p_value"] == pytest.approx(reference.pvalue, rel=1e-12)
    with pytest.warns(UserWarning, match="paired_over='k'"):
        wine_only = multi.ttest("cmqfs", dataset="wine", paired_over="k").frame
    assert (wine_only["n"] == 4).all()
    with pytest.warns(UserWarning, match="paired_over='k'"):
        summary = multi.test_summary("ttest", "cmqfs", paired_over="k")
    assert "wine, iris (pooled)" in summary.as_text() and "Paired t-test" in summary.as_text()
    assert r"\begin{tabular}" in summary.as_latex()
    pd.testing.assert_frame_equal(summary.summary_frame(), pooled)


def test_wilcoxon_equals_scipy(multi):
    cells = _cells(multi, "1nn")
    with pytest.warns(UserWarning, match="paired_over='k'"):
        out = multi.wilcoxon("mrmr", alternative="two-sided", paired_over="k").frame
    for _, row in out.iterrows():
        method = "exact" if row["exact"] else "approx"
        reference = stats.wilcoxon(cells["mrmr"], cells[row["method"]], alternative="two-sided", method=method,
                                   correction=True)
        if np.isnan(row["p_value"]):
            assert np.all(cells["mrmr"] == cells[row["method"]])
            continue
        d = (cells["mrmr"] - cells[row["method"]]).to_numpy()
        d = d[d != 0]
        w_plus = stats.rankdata(np.abs(d))[d > 0].sum()     # R's V
        assert row["statistic"] == pytest.approx(w_plus)
        assert min(w_plus, len(d) * (len(d) + 1) / 2 - w_plus) == pytest.approx(reference.statistic)
        assert row["p_value"] == pytest.approx(reference.pvalue, rel=1e-12)
    assert "Wilcoxon" in multi.test_summary("wilcoxon", "mrmr").as_text()


def test_degenerate_pairs_follow_scipy():
    from fstools.evaluation.comparison_result import paired_t_test

    for a, b, alternative in (([1.5, 2.5, 3.5], [1.0, 2.0, 3.0], "greater"), ([1.5, 2.5, 3.5], [1.0, 2.0, 3.0], "less"),
                              ([1.0, 2.0, 4.0], [1.5, 2.5, 4.5], "two-sided"), ([1.0, 2.0], [1.0, 2.0], "greater")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # scipy warns about the zero variance
            reference = stats.ttest_rel(a, b, alternative=alternative)
        out = paired_t_test(a, b, alternative=alternative)
        np.testing.assert_equal([out["t"], out["p_value"]], [reference.statistic, reference.pvalue])


def test_identical_methods_give_undefined_test(wine):
    out = fs.compare("class ~ .", wine, {"a": "fisher", "b": ("fisher", {})}, k=[1, 2, 3], cv=2, repeats=1,
                     random_state=0, progress=False)
    test = out.ttest("a").frame
    assert np.isnan(test.loc[0, "t"]) and np.isnan(test.loc[0, "p_value"]) and np.isnan(test.loc[0, "p_adjusted"])


# --------------------------------------------------------------------------- Friedman and Nemenyi
# Demsar (2006, JMLR 7, section 3.2.2): four variants of C4.5 on 14 data sets, mean ranks
# 3.143, 2.000, 2.893, 1.964; chi2_F = 9.28, F_F = 3.69; Nemenyi CD = 1.25 at alpha = 0.05 (q = 2.569),
# 1.12 at alpha = 0.10 (q = 2.291).
DEMSAR_RANKS = pd.Series({"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964})


def test_nemenyi_critical_values_match_demsar_table():
    q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]   # Demsar Table 5(a)
    q10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]   # Demsar Table 5(a)
    for k, (a, b) in enumerate(zip(q05, q10), start=2):
        assert nemenyi_q(k, 0.05) == pytest.approx(a, abs=1.5e-3)
        assert nemenyi_q(k, 0.10) == pytest.approx(b, abs=1.5e-3)


def test_friedman_and_nemenyi_on_demsar_example():
    chi2 = friedman_statistic(DEMSAR_RANKS, 14)
    assert chi2 == pytest.approx(9.28, abs=0.01)
    F, df1, df2, _ = iman_davenport(chi2, 14, 4)
    assert F == pytest.approx(3.69, abs=0.01) and (df1, df2) == (3, 39)
    assert nemenyi_critical_difference(4, 14, 0.05) == pytest.approx(1.25, abs=0.005)
    assert nemenyi_critical_difference(4, 14, 0.10) == pytest.approx(1.12, abs=0.005)
    # "At p = 0.10 ... pure C4.5 is significantly worse than C4.5+m and C4.5+m+cf. We cannot tell
    # which group C4.5+cf belongs to"; at 0.05 no pair differs.
    p = nemenyi_test(DEMSAR_RANKS, 14)
    assert 0.05 < p.loc["C4.5", "C4.5+m+cf"] < 0.10 and 0.05 < p.loc["C4.5", "C4.5+m"] < 0.10
    pairs = [("C4.5", "C4.5+m+cf"), ("C4.5+m+cf", "C4.5"), ("C4.5", "C4.5+m"), ("C4.5+m", "C4.5")]
    others = p.where(~np.eye(4, dtype=bool)).stack().dropna().drop(pairs)
    assert (others > 0.10).all()


def test_nemenyi_two_methods_is_a_normal_test():
    # k = 2: the studentized range of two standard normals is sqrt(2)|Z|, so the Nemenyi p-value
    # is 2 (1 - Phi(z)) with z = |R1 - R2| / sqrt(2 * 3 / (6 N)) = |R1 - R2| sqrt(N).
    p = nemenyi_test(pd.Series({"a": 1.25, "b": 1.75}), 9)
    assert p.loc["a", "b"] == pytest.approx(2 * (1 - stats.norm.cdf(0.5 * 3)), rel=1e-6)
    # and |R_i - R_j| = CD gives p = alpha
    cd = nemenyi_critical_difference(5, 20, 0.05)
    ranks = pd.Series({"a": 1.0, "b": 1.0 + cd, "c": 3.0, "d": 4.0, "e": 5.0})
    assert nemenyi_test(ranks, 20).loc["a", "b"] == pytest.approx(0.05, rel=1e-5)


def test_friedman_equals_scipy_with_and_without_ties():
    rng = np.random.default_rng(2)
    values = pd.DataFrame(rng.normal(size=(8, 4)), columns=list("abcd"))
    out = friedman_test(values)
    reference = stats.friedmanchisquare(*[values[c] for c in values])
    assert out["statistic"] == pytest.approx(reference.statistic, rel=1e-12)
    assert out["p_value"] == pytest.approx(reference.pvalue, rel=1e-12)
    assert out["statistic"] == pytest.approx(friedman_statistic(out["mean_ranks"], 8), rel=1e-12)
    tied = pd.DataFrame([[1, 1, 2], [3, 2, 2], [1, 2, 3], [5, 5, 5], [2, 1, 1]], columns=list("xyz"), dtype=float)
    reference = stats.friedmanchisquare(*[tied[c] for c in tied])
    out = friedman_test(tied)
    assert out["statistic"] == pytest.approx(reference.statistic, rel=1e-12)
    # ranks: 1 = best (highest), ties averaged
    np.testing.assert_allclose(out["ranks"].iloc[0], [2.5, 2.5, 1.0])


def test_friedman_across_datasets(multi):
    with pytest.warns(UserWarning, match="2 blocks are too few"):
        result = multi.friedman()
    assert result.blocks == "datasets" and result.n_blocks == 2 and result.n_methods == 3
    avg = multi.results.groupby(["dataset", "method"])["value"].mean().unstack("method")
    expected = avg.rank(axis=1, ascending=False).mean()
    for method in ("cmqfs", "fisher", "mrmr"):
        assert result.mean_ranks[method] == pytest.approx(expected[method])
    assert result.critical_difference == pytest.approx(nemenyi_q(3) * np.sqrt(3 * 4 / (6 * 2)))
    text = result.summary().as_text()
    assert "Friedman" in text and "Iman-Davenport" in text and "critical difference" in text
    assert isinstance(result.plot(), matplotlib.axes.Axes)
    with pytest.warns(UserWarning, match="blocks='k'"):
        by_k = multi.friedman(blocks="k")
    assert by_k.n_blocks == 7 and "not independent" in by_k.summary().as_text()


# --------------------------------------------------------------------------- plots
def test_plots_return_axes_and_accept_ax(cmp, multi):
    import matplotlib.pyplot as plt

    ax = cmp.plot()
    assert isinstance(ax, matplotlib.axes.Axes)
    assert len(ax.get_lines()) == 3 and len(ax.collections) == 3    # one line and one band per method
    _, given = plt.subplots()
    assert cmp.plot(classifier="svm", band="ci", ax=given) is given
    assert len(cmp.plot(band=None).collections) == 0
    figure = multi.plot()                                            # several data sets: the Figure
    assert isinstance(figure, matplotlib.figure.Figure) and len(figure.axes) == 2
    figure, pair = plt.subplots(1, 2)
    assert multi.plot(ax=pair) is figure
    with pytest.raises(ValueError, match="ax: needs 2 Axes"):
        multi.plot(ax=given)
    with pytest.raises(ValueError, match="band"):
        cmp.plot(band="iqr")
    plt.close("all")


# --------------------------------------------------------------------------- progress, metrics, estimators
def test_progress_bar_on_and_off(wine, capsys):
    fs.compare("class ~ .", wine, ["fisher"], k=2, cv=2, repeats=1, random_state=0, progress=False)
    assert capsys.readouterr().err == ""
    fs.compare("class ~ .", wine, ["fisher"], k=2, cv=2, repeats=1, random_state=0, progress=True)
    assert "fs.compare" in capsys.readouterr().err


def test_metrics(wine):
    from sklearn.metrics import balanced_accuracy_score, cohen_kappa_score

    out = fs.compare("class ~ .", wine, ["fisher"], k=[1, 2], cv=3, repeats=1, random_state=0, progress=False,
                     metrics=["accuracy", "error_rate", "balanced_accuracy", "g_mean", "f1_macro"])
    wide = out.results.pivot_table(index=["k", "fold"], columns="metric", values="value")
    np.testing.assert_allclose(wide["error_rate"], 1 - wide["accuracy"], atol=1e-14)
    assert (wide["g_mean"] <= wide["balanced_accuracy"] + 1e-12).all()    # geometric <= arithmetic mean
    # the lower-is-better metric marks the lowest mean as best
    frame = out.summary_frame(metric="error_rate")
    assert frame[("fisher", "best")].iloc[0]
    custom = fs.compare("class ~ .", wine, ["fisher"], k=[2], cv=3, repeats=1, random_state=0, progress=False,
                        metrics={"kappa": cohen_kappa_score, "bacc": balanced_accuracy_score})
    both = custom.results.pivot_table(index="fold", columns="metric", values="value")
    builtin = out.results[(out.results["metric"] == "balanced_accuracy") & (out.results["k"] == 2)]
    np.testing.assert_allclose(both["bacc"].to_numpy(), builtin["value"].to_numpy(), atol=1e-14)
    assert "kappa (user function" in custom.summary(metric="kappa").as_text()


def test_any_estimator_and_random_state_fixed(wine):
    from sklearn.ensemble import RandomForestClassifier

    kwargs = dict(k=[2], classifier=RandomForestClassifier(n_estimators=5), cv=2, repeats=1, random_state=8,
                  progress=False)
    first = fs.compare("class ~ .", wine, ["fisher"], **kwargs)
    second = fs.compare("class ~ .", wine, ["fisher"], **kwargs)
    pd.testing.assert_frame_equal(first.results, second.results)
    assert list(first.classifiers) == ["RandomForestClassifier"]


def test_linear_svm_and_categorical_terms():
    rng = np.random.default_rng(0)
    n = 120
    colour = rng.choice(["red", "green", "blue"], n)
    x = rng.normal(size=n)
    y = np.where((colour == "red") ^ (x > 0.5), "yes", "no")
    data = pd.DataFrame({"colour": colour, "x": x, "noise": rng.normal(size=n), "y": y})
    out = fs.compare("y ~ .", data, ["fisher", "mrmr"], k=[1, 2, 3], classifier="linear_svm", cv=3, repeats=1,
                     random_state=0, progress=False)
    # terms, not design columns: 'colour' is one feature (two columns)
    assert set(out.rankings["feature"]) == {"colour", "x", "noise"}
    assert out.datasets["data"]["n_features"] == 3 and out.datasets["data"]["n_columns"] == 4


def test_stability_of_in_fold_selections(wine):
    from fstools.evaluation.stability import nogueira_stability

    out = fs.compare("class ~ .", wine, ["fisher", "cmqfs"], k=[2, 4], cv=3, repeats=2, random_state=0,
                     select_in_fold=True, progress=False)
    table = out.stability()
    assert list(table["method"]) == ["fisher", "cmqfs"] and (table["k"] == 4).all() and (table["M"] == 6).all()
    ranked = out.rankings[(out.rankings["method"] == "fisher") & (out.rankings["rank"] <= 4)]
    names = list(wine.columns[:-1])
    Z = np.zeros((6, 13), dtype=bool)
    for i, (_, group) in enumerate(ranked.groupby(["repeat", "fold"])):
        Z[i, [names.index(f) for f in group["feature"]]] = True
    assert table.loc[0, "stability"] == pytest.approx(nogueira_stability(Z)["stability"])
    with pytest.raises(ValueError, match="select_in_fold=True"):
        fs.compare("class ~ .", wine, ["fisher"], k=2, cv=2, repeats=1, progress=False).stability()


def test_select_summary_frame(wine):
    res = fs.select("class ~ .", wine, method="fisher", k=3)
    frame = res.summary_frame()
    assert list(frame.index) == res.selected
    for column in ("rank", "score", "statistic", "p_value", "p_adjusted"):
        assert column in frame.columns
    assert len(res.summary_frame(all_features=True)) == 13


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("kwargs, error, pattern", [
    ({"classifier": "knn"}, ValueError, r"classifier: unknown classifier 'knn'; allowed: '1nn', 'svm', 'linear_svm'"),
    ({"classifier": "mlknn"}, ValueError, r"classifier: 'mlknn' is for multi-label data"),
    ({"metrics": "hamming_loss"}, ValueError, r"metrics: 'hamming_loss' does not apply to one response; allowed: "
                                              r"'accuracy'"),
    ({"classifier": SVC}, TypeError, r"classifier: got the class SVC; pass an instance"),
    ({"classifier": 3}, TypeError, r"classifier: got 3; allowed"),
    ({"metrics": "auc"}, ValueError, r"metrics: unknown metric 'auc'; allowed: 'accuracy'"),
    ({"k": 14}, ValueError, r"k: feature counts must be in 1..13 .*got 14"),
    ({"k": [0, 2]}, ValueError, r"k: feature counts must be in 1..13"),
    ({"k": []}, ValueError, r"k: is empty"),
    ({"k": 2.5}, TypeError, r"k: must be an integer, a range or a list"),
    ({"cv": 1}, ValueError, r"cv: must be an integer >= 2 .*got 1"),
    ({"cv": 2.0}, TypeError, r"cv: must be an integer >= 2"),
    ({"cv": 100}, ValueError, r"cv: 100 folds but no class .* has that many rows"),
    ({"repeats": 0}, ValueError, r"repeats: must be an integer >= 1"),
    ({"n_jobs": 0}, ValueError, r"n_jobs: must be None"),
    ({"select_in_fold": "yes"}, TypeError, r"select_in_fold: must be True or False"),
    ({"random_state": "seed"}, TypeError, r"random_state: must be None, an integer"),
])
def test_bad_arguments(wine, kwargs, error, pattern):
    arguments = dict(methods=["fisher"], k=2, cv=2, repeats=1, progress=False)
    arguments.update(kwargs)
    with pytest.raises(error, match=pattern):
        fs.compare("class ~ .", wine, **arguments)


def test_bad_methods_and_data(wine):
    with pytest.raises(ValueError, match="method: unknown method 'fsher'; allowed values:"):
        fs.compare("class ~ .", wine, ["fsher"], k=2, progress=False)
    with pytest.raises(ValueError, match="beta: must be"):
        fs.compare("class ~ .", wine, [("mifs", {"beta": -1})], k=2, progress=False)
    with pytest.raises(TypeError, match="unknown parameter"):
        fs.compare("class ~ .", wine, [("fisher", {"beta": 1})], k=2, progress=False)
    with pytest.raises(ValueError, match="methods: is empty"):
        fs.compare("class ~ .", wine, [], k=2, progress=False)
    with pytest.raises(ValueError, match="given more than once"):
        fs.compare("class ~ .", wine, ["fisher", "fisher"], k=2, progress=False)
    with pytest.raises(TypeError, match="methods: each entry must be"):
        fs.compare("class ~ .", wine, [("mifs", 1.0)], k=2, progress=False)
    with pytest.raises(TypeError, match=r"data: must be a pandas DataFrame, .*, or a dict of name -> such a frame; got numpy.ndarray"):
        fs.compare("class ~ .", wine.to_numpy(), ["fisher"], k=2, progress=False)
    with pytest.raises(TypeError, match=r"data\['b'\]: must be a pandas DataFrame"):
        fs.compare("class ~ .", {"a": wine, "b": [1, 2]}, ["fisher"], k=2, progress=False)
    with pytest.raises(ValueError, match="k: no feature counts for data set"):
        fs.compare("class ~ .", {"a": wine, "b": wine}, ["fisher"], k={"a": 2}, progress=False)
    two = wine.assign(other=wine["class"])
    # several responses: a multi-label comparison, which needs 0/1 label columns (or, without the
    # multi-label module, a FormulaError saying one response is taken)
    with pytest.raises(ValueError, match="response 'class': a label column must hold (two values|numbers or booleans)|takes one "
                                         "response"):
        fs.compare("class + other ~ .", two, ["fisher"], k=2, progress=False)


def test_bad_test_arguments(cmp):
    with pytest.raises(ValueError, match="reference: 'relief' is not a compared method; allowed: 'cmqfs'"):
        cmp.ttest("relief")
    with pytest.raises(ValueError, match="alternative: must be one of 'greater', 'two-sided', 'less'"):
        cmp.ttest("cmqfs", alternative="bigger")
    with pytest.raises(ValueError, match="paired_over: must be one of 'folds', 'k', 'datasets'"):
        cmp.ttest("cmqfs", paired_over="repeats")
    with pytest.raises(ValueError, match="p_adjust: must be one of 'holm'"):
        cmp.ttest("cmqfs", p_adjust="tukey")
    with pytest.raises(ValueError, match="classifier: 'rf' was not used; allowed: '1nn', 'svm'"):
        cmp.summary(classifier="rf")
    with pytest.raises(ValueError, match="metric: 'auc' was not computed"):
        cmp.summary(metric="auc")
    with pytest.raises(ValueError, match="k: 7 was not evaluated"):
        cmp.ttest("cmqfs", k=7)
    with pytest.raises(ValueError, match="blocks: 'datasets' needs at least 2 data sets"):
        cmp.friedman(blocks="datasets")
    with pytest.raises(ValueError, match="dataset: unknown data set 'iris'"):
        cmp.summary(dataset="iris")


# --------------------------------------------------------------------------- multi-label (ML-kNN)
@pytest.fixture(scope="module")
def multilabel_data():
    pytest.importorskip("fstools.evaluation.mlknn")
    rng = np.random.default_rng(7)
    n = 150
    X = rng.normal(size=(n, 8))
    data = pd.DataFrame(X, columns=[f"x{j}" for j in range(8)])
    data["y1"] = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    data["y2"] = (X[:, 1] - X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    data["y3"] = (X[:, 2] + 0.3 * rng.normal(size=n) > 0.3).astype(int)
    return data


def test_multilabel_comparison_with_mlknn(multilabel_data):
    from fstools.evaluation import metrics
    from fstools.evaluation.mlknn import MLkNN

    data = multilabel_data
    out = fs.compare("y1 + y2 + y3 ~ .", data, ["ml_fisher", "ml_mi"], k=[1, 3, 5], cv=3, repeats=2,
                     random_state=0, progress=False)
    assert list(out.classifiers) == ["mlknn"]
    assert list(out.metrics) == ["average_precision", "macro_auc", "hamming_loss", "ranking_loss", "one_error"]
    assert not out.metrics["hamming_loss"]["higher_is_better"]
    # one cell recomputed: standardised on the training fold, ML-kNN on the top-k features
    ranking = out.rankings[out.rankings["method"] == "ml_fisher"].sort_values("rank")["feature"].tolist()
    X = data[[f"x{j}" for j in range(8)]]
    Y = data[["y1", "y2", "y3"]].to_numpy()
    repeat, fold, train, test = out.splits["data"][4]
    scaler = StandardScaler().fit(X.iloc[train][ranking[:3]])
    model = MLkNN().fit(scaler.transform(X.iloc[train][ranking[:3]]), Y[train])
    Xt = scaler.transform(X.iloc[test][ranking[:3]])
    r = out.results
    cell = r[(r["method"] == "ml_fisher") & (r["k"] == 3) & (r["repeat"] == repeat) & (r["fold"] == fold)]
    values = dict(zip(cell["metric"], cell["value"]))
    assert values["hamming_loss"] == pytest.approx(metrics.hamming_loss(Y[test], model.predict(Xt)), abs=1e-12)
    assert values["average_precision"] == pytest.approx(
        metrics.average_precision(Y[test], model.predict_proba(Xt)), abs=1e-12)
    # folds: shuffled, every row tested once per repeat
    for rep in (1, 2):
        tested = np.concatenate([t for rr, _, _, t in out.splits["data"] if rr == rep])
        assert sorted(tested) == list(range(len(data)))
    # lower-is-better metric: the best is the lowest mean; percent off for these metrics
    frame = out.summary_frame(metric="hamming_loss")
    row = frame.loc[("data", 3)]
    lowest = min(row[("ml_fisher", "mean")], row[("ml_mi", "mean")])
    assert row[("ml_fisher", "best")] == (row[("ml_fisher", "mean")] <= lowest + 1e-12)
    text = out.summary(metric="hamming_loss").as_text()
    assert "3 labels" in text and "shuffled cross-validation" in text and "in %" not in text
    with pytest.warns(UserWarning, match="paired_over='k'"):
        test = out.ttest("ml_fisher", alternative="less", metric="ranking_loss", paired_over="k").frame
    assert test.loc[0, "n"] == 3


def test_multilabel_errors(multilabel_data, wine):
    data = multilabel_data
    with pytest.raises(ValueError, match=r"methods: 'fisher' \(fisher\) takes one response.*multi-label methods: "):
        fs.compare("y1 + y2 + y3 ~ .", data, ["fisher"], k=2, cv=2, repeats=1, progress=False)
    with pytest.raises(ValueError, match="classifier: '1nn' predicts one response"):
        fs.compare("y1 + y2 + y3 ~ .", data, ["ml_fisher"], k=2, classifier="1nn", cv=2, repeats=1,
                   progress=False)
    with pytest.raises(ValueError, match="metrics: 'accuracy' does not apply to multi-label data"):
        fs.compare("y1 + y2 + y3 ~ .", data, ["ml_fisher"], k=2, metrics="accuracy", cv=2, repeats=1,
                   progress=False)
    with pytest.raises(TypeError, match="metrics: 'average_precision', 'macro_auc', 'ranking_loss', 'one_error' "
                                        "rank the labels by score"):
        fs.compare("y1 + y2 + y3 ~ .", data, ["ml_fisher"], k=2, classifier=_RecordingClassifier(), cv=2, repeats=1,
                   progress=False)
    with pytest.raises(ValueError, match="'ml_fisher' \\(ml_fisher\\) is a multi-label method"):
        fs.compare("class ~ .", wine, ["ml_fisher"], k=2, cv=2, repeats=1, progress=False)


def test_constant_columns_warn_as_select_does(iris):
    """fs.compare says what fs.select says about constant columns (same words)."""
    data = iris.assign(flat=1.0)
    with pytest.warns(UserWarning, match=r"1 constant column \(flat\)") as selected:
        fs.select("class ~ .", data, method="fisher", k=2)
    with pytest.warns(UserWarning, match=r"data: 1 constant column \(flat\)") as compared:
        fs.compare("class ~ .", data, ["fisher"], k=[1, 2], cv=2, repeats=1, random_state=0, progress=False)
    assert {str(w.message) for w in compared if "constant" in str(w.message)} == \
        {str(w.message) for w in selected if "constant" in str(w.message)}
    assert all(w.filename == __file__ for w in compared if "constant" in str(w.message))
    with pytest.warns(UserWarning, match=r"data\['b'\]: 1 constant column"):
        fs.compare("class ~ .", {"a": iris, "b": data}, ["fisher"], k=[1], cv=2, repeats=1, random_state=0,
                   progress=False)


# --------------------------------------------------------------------------- failures keep their type
# dfs with more components than columns: a valid parameter value that the method refuses on the data.
TOO_MANY_COMPONENTS = ("dfs", {"n_components": 20})
DFS_MESSAGE = r"n_components: must be at most the number of non-constant columns \(13\); got 20"


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_a_method_error_keeps_its_type_with_the_context(wine, n_jobs):
    with pytest.raises(ValueError, match=r"^method 'dfs' \(dfs\) failed on data set 'data': " + DFS_MESSAGE) as caught:
        fs.compare("class ~ .", wine, ["fisher", TOO_MANY_COMPONENTS], k=2, cv=2, repeats=1, n_jobs=n_jobs,
                   progress=False)
    assert type(caught.value) is ValueError
    assert isinstance(caught.value.__cause__, ValueError)       # the method's own exception, with its traceback
    assert not isinstance(caught.value, RuntimeError)
    with pytest.raises(ValueError, match=r"^method 'dfs' \(dfs\) failed on data set 'wine' \(repeat 1, fold [12]\): "
                                         + DFS_MESSAGE):
        fs.compare("class ~ .", {"wine": wine}, [TOO_MANY_COMPONENTS], k=2, cv=2, repeats=1, n_jobs=n_jobs,
                   select_in_fold=True, progress=False)


def test_a_method_error_keeps_its_type_through_joblib_workers(wine):
    """Folds sent to loky worker processes: the exception and the tasks (named records) pickle."""
    import joblib

    with joblib.parallel_backend("loky", n_jobs=2):
        with pytest.raises(ValueError, match=r"^method 'dfs' \(dfs\) failed on data set 'data' \(repeat 1, fold "
                                             r"[12]\): " + DFS_MESSAGE):
            fs.compare("class ~ .", wine, ["fisher", TOO_MANY_COMPONENTS], k=2, cv=2, repeats=1, select_in_fold=True,
                       progress=False)


class _FailingClassifier(SVC):
    def fit(self, X, y):
        raise ValueError("cannot fit this")


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_a_classifier_error_keeps_its_type_with_the_context(wine, n_jobs):
    with pytest.raises(ValueError, match=r"^classifier 'bad' failed on data set 'data' \(repeat 1, fold [12]\) with "
                                         r"the top 2 features of method 'fisher': cannot fit this"):
        fs.compare("class ~ .", wine, ["fisher"], k=2, classifier={"bad": _FailingClassifier()}, cv=2, repeats=1,
                   n_jobs=n_jobs, progress=False)


def _register_raising(monkeypatch, exception):
    def raising(X, y, k, n_threads):
        raise exception

    monkeypatch.setitem(registry._REGISTRY, "raising", MethodSpec(name="raising", description="raises",
                                                                   function=raising))


class _Stop(BaseException):
    pass


@pytest.mark.parametrize("exception", [KeyboardInterrupt(), _Stop("stop")])
def test_base_exceptions_are_not_caught(wine, monkeypatch, exception):
    _register_raising(monkeypatch, exception)
    with pytest.raises(type(exception)) as caught:
        fs.compare("class ~ .", wine, ["raising"], k=2, cv=2, repeats=1, progress=False)
    assert caught.value is exception


def test_an_error_not_built_from_one_string_gets_a_note(wine, monkeypatch):
    import sys

    _register_raising(monkeypatch, KeyError("column_x"))
    with pytest.raises(KeyError) as caught:
        fs.compare("class ~ .", wine, ["raising"], k=2, cv=2, repeats=1, progress=False)
    assert caught.value.args == ("column_x",)                # KeyError's message is its key: left alone
    if sys.version_info >= (3, 11):
        assert caught.value.__notes__ == ["method 'raising' (raising) failed on data set 'data'"]


def test_reraise_with_context():
    from fstools.core.failures import reraise_with_context

    class Custom(ValueError):
        pass

    for error in (ValueError("bad"), TypeError("bad"), Custom("bad")):
        try:
            try:
                raise error
            except Exception as raised:
                reraise_with_context(raised, "where")
        except Exception as augmented:
            assert type(augmented) is type(error) and str(augmented) == "where: bad"
            assert augmented.__cause__ is error
    decode = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    with pytest.raises(UnicodeDecodeError) as caught:
        reraise_with_context(decode, "where")
    assert caught.value is decode


# --------------------------------------------------------------------------- named records
def test_metric_records_and_splits_are_named_and_pickle(cmp):
    import pickle

    from fstools.evaluation.compare import METRICS

    spec = METRICS["balanced_accuracy"]
    assert spec.higher_is_better and spec.task == "single" and not spec.needs_score
    assert METRICS["ranking_loss"].needs_score and not METRICS["ranking_loss"].higher_is_better
    assert pickle.loads(pickle.dumps(METRICS)).keys() == METRICS.keys()
    split = cmp.splits["data"][0]
    assert (split.repeat, split.fold) == (1, 1)
    repeat, fold, train, test = split                                   # still a (repeat, fold, train, test)
    again = pickle.loads(pickle.dumps(split))
    assert again.repeat == 1 and np.array_equal(again.test, test)


# --------------------------------------------------------------------------- metrics: scikit-learn's
def _former_metrics(y_true, y_pred):
    """compare's former accuracy, error rate and balanced accuracy, kept as the reference."""
    present = np.unique(y_true)
    return {"accuracy": float(np.mean(y_true == y_pred)), "error_rate": float(np.mean(y_true != y_pred)),
            "balanced_accuracy": float(np.mean([np.mean(y_pred[y_true == c] == c) for c in present]))}


@pytest.mark.parametrize("seed", range(30))
def test_single_response_metrics_equal_the_former_code_and_scikit_learn(seed):
    from sklearn import metrics as skm

    from fstools.evaluation.compare import METRICS

    rng = np.random.default_rng(seed)
    n, n_classes = int(rng.integers(1, 25)), int(rng.integers(2, 5))
    y_true = rng.integers(0, n_classes, n)
    y_pred = np.where(rng.random(n) < 0.6, y_true, rng.integers(0, n_classes, n))
    if seed % 5 == 0:
        y_pred[:] = n_classes - 1                    # a class predicted that the truth may lack
    labels = np.arange(n_classes)
    got = {name: METRICS[name].function(y_true, y_pred, labels, None)
           for name in ("accuracy", "error_rate", "balanced_accuracy", "f1_macro")}
    former = _former_metrics(y_true, y_pred)
    for name in former:
        assert got[name] == pytest.approx(former[name], abs=1e-15), name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")              # balanced_accuracy_score warns on a class only predicted
        assert got["balanced_accuracy"] == pytest.approx(skm.balanced_accuracy_score(y_true, y_pred), abs=1e-15)
    assert got["accuracy"] == skm.accuracy_score(y_true, y_pred)
    assert got["f1_macro"] == skm.f1_score(y_true, y_pred, labels=labels, average="macro", zero_division=0.0)


def test_balanced_accuracy_gives_no_warning_for_a_class_only_predicted():
    from fstools.evaluation.compare import METRICS

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = METRICS["balanced_accuracy"].function(np.array([0, 0, 1]), np.array([0, 2, 1]), np.arange(3), None)
    assert value == pytest.approx(0.75)


# --------------------------------------------------------------------------- p-value adjustment: one function
def _former_adjust_p_values(p_values, method):
    """comparison_result's former wrapper of multipletests."""
    p_values = np.asarray(p_values, dtype=float)
    adjusted = np.full(p_values.shape, np.nan)
    finite = np.isfinite(p_values)
    if method in (None, "none"):
        adjusted[finite] = p_values[finite]
    elif finite.any():
        adjusted[finite] = multipletests(p_values[finite], method=method)[1]
    return adjusted


def _former_benjamini_hochberg(p_values):
    """univariate_tests' former wrapper of multipletests."""
    p_values = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full_like(p_values, np.nan)
    finite = np.isfinite(p_values)
    if finite.any():
        adjusted[finite] = multipletests(p_values[finite], method="fdr_bh")[1]
    return adjusted


@pytest.mark.parametrize("seed", range(10))
def test_adjust_p_values_is_one_function_equal_to_both_former_wrappers(seed):
    from fstools.evaluation.comparison_result import adjust_p_values as from_comparison
    from fstools.results.univariate_tests import P_ADJUST_METHODS, adjust_p_values, benjamini_hochberg

    assert from_comparison is adjust_p_values
    rng = np.random.default_rng(seed)
    p = rng.random(int(rng.integers(0, 12))) ** 2
    p[rng.random(p.size) < 0.3] = np.nan
    for method in P_ADJUST_METHODS + (None,):
        np.testing.assert_array_equal(adjust_p_values(p, method), _former_adjust_p_values(p, method))
    np.testing.assert_array_equal(benjamini_hochberg(p), _former_benjamini_hochberg(p))
    finite = np.isfinite(p)
    if finite.any():
        np.testing.assert_allclose(adjust_p_values(p, "holm")[finite], multipletests(p[finite], method="holm")[1])
    with pytest.raises(ValueError, match="p_adjust: must be one of 'holm'"):
        adjust_p_values(p, "bh")


def test_iman_davenport_is_a_named_record():
    result = iman_davenport(friedman_statistic(DEMSAR_RANKS, 14), 14, 4)
    F, df1, df2, p = result                                            # still unpacks
    assert (result.F, result.df1, result.df2, result.p_value) == (F, df1, df2, p)
    assert (df1, df2) == (3, 39)


def test_compare_and_stability_read_formulas_safely_unless_told(wine):
    formula = "class ~ alcohol + hue + I(np.where(hue > 1, 1.0, 0.0))"
    with pytest.raises(fs.FormulaError, match="safe formula mode"):
        fs.compare(formula, wine, methods=["fisher"], k=[1], cv=2, repeats=1, random_state=0, progress=False)
    with pytest.raises(fs.FormulaError, match="safe formula mode"):
        fs.stability(formula, wine, method="fisher", k=1, n_bootstrap=3, random_state=0, progress=False)
    cmp = fs.compare(formula, wine, methods=["fisher"], k=[1], cv=2, repeats=1, random_state=0, progress=False,
                     formula_mode="code")
    st = fs.stability(formula, wine, method="fisher", k=1, n_bootstrap=3, random_state=0, progress=False,
                      formula_mode="code")
    assert len(cmp.summary_frame()) and len(st.summary_frame())

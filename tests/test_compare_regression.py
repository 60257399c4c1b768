"""fs.compare, fs.stability and the command line with a continuous response.

References: the cross-validated R^2 / RMSE / MAE of every fold against a hand-written
scikit-learn loop over the same KFold splits; the feature rankings of f_test and pearson against
scikit-learn's f_regression and NumPy's correlation; the paired tests against scipy; the
stability selections against a hand-made bootstrap with scikit-learn's f_regression and
Nogueira et al.'s (2018) Definition 4 written out.
"""
import csv
import io
import pickle

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.datasets import load_diabetes
from sklearn.feature_selection import f_regression
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.neighbors import KNeighborsRegressor
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR

import fstools as fs
from fstools.cli import main

FEATURES = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"]


@pytest.fixture(scope="module")
def diabetes():
    return load_diabetes(as_frame=True, scaled=False).frame


@pytest.fixture(scope="module")
def comparison(diabetes):
    return fs.compare("target ~ .", diabetes, ["f_test", "pearson", "mim"], k=[2, 4],
                      classifier=["1nn", "ridge", "svr"], cv=3, repeats=1, random_state=0, progress=False)


def _reference_rankings(diabetes):
    """Top-4 features of each method, from scikit-learn / NumPy (mim: fs.select on all the rows)."""
    X = diabetes[FEATURES].to_numpy(dtype=float)
    y = diabetes["target"].to_numpy(dtype=float)
    F, _ = f_regression(X, y)
    r = np.array([abs(np.corrcoef(X[:, j], y)[0, 1]) for j in range(X.shape[1])])
    return {"f_test": [FEATURES[j] for j in np.argsort(-F)[:4]],
            "pearson": [FEATURES[j] for j in np.argsort(-r)[:4]],
            "mim": fs.select("target ~ .", diabetes, method="mim", k=4).selected}


def _svr_on_standardised_response(X_train, y_train, X_test):
    """SVR() fitted to the response standardised with the training fold's mean and sd, by hand."""
    mean, sd = y_train.mean(), y_train.std()
    return SVR().fit(X_train, (y_train - mean) / sd).predict(X_test) * sd + mean


def test_folds_equal_a_scikit_learn_loop(diabetes, comparison):
    rankings = _reference_rankings(diabetes)
    X = diabetes[FEATURES].to_numpy(dtype=float)
    y = diabetes["target"].to_numpy(dtype=float)
    seed = np.random.RandomState(0).randint(0, 2**31 - 1, size=1)[0]
    splits = list(KFold(n_splits=3, shuffle=True, random_state=int(seed)).split(X))
    # The folds are KFold's (shuffled, not stratified), the same for every method.
    assert [(s.repeat, s.fold) for s in comparison.splits["data"]] == [(1, 1), (1, 2), (1, 3)]
    for split, (train, test) in zip(comparison.splits["data"], splits):
        np.testing.assert_array_equal(split.train, train)
        np.testing.assert_array_equal(split.test, test)
    learners = {"1nn": lambda a, b, c: KNeighborsRegressor(n_neighbors=1, algorithm="brute").fit(a, b).predict(c),
                "ridge": lambda a, b, c: Ridge(alpha=1.0).fit(a, b).predict(c),
                "svr": _svr_on_standardised_response}
    results = comparison.results.set_index(["classifier", "method", "k", "fold", "metric"])["value"]
    checked = 0
    for method, ranking in rankings.items():
        for p in (2, 4):
            columns = [FEATURES.index(name) for name in ranking[:p]]
            for fold, (train, test) in enumerate(splits, start=1):
                scaler = StandardScaler().fit(X[train][:, columns])
                X_train = scaler.transform(X[train][:, columns])
                X_test = scaler.transform(X[test][:, columns])
                for learner, predict in learners.items():
                    predicted = predict(X_train, y[train], X_test)
                    expected = {"r2": r2_score(y[test], predicted),
                                "rmse": np.sqrt(mean_squared_error(y[test], predicted)),
                                "mae": mean_absolute_error(y[test], predicted)}
                    for metric, value in expected.items():
                        assert results[(learner, method, p, fold, metric)] == pytest.approx(value, rel=1e-9), \
                            (learner, method, p, fold, metric)
                        checked += 1
    assert checked == len(comparison.results) == 3 * 2 * 3 * 3 * 3


def test_rankings_are_the_references(diabetes, comparison):
    expected = _reference_rankings(diabetes)
    for method, ranking in expected.items():
        got = comparison.rankings[comparison.rankings["method"] == method].sort_values("rank")["feature"]
        assert list(got) == ranking


def test_defaults_metrics_and_direction(diabetes):
    cmp = fs.compare("target ~ .", diabetes, ["f_test", "mim"], k=[2, 4], cv=3, repeats=2, random_state=1,
                     progress=False)
    assert list(cmp.classifiers) == ["1nn"]
    assert "regression" in cmp.classifiers["1nn"]
    assert list(cmp.metrics) == ["r2", "rmse", "mae"]
    assert [cmp.metrics[m]["higher_is_better"] for m in ("r2", "rmse", "mae")] == [True, False, False]
    assert cmp.datasets["data"]["response_type"] == "continuous"
    assert cmp.datasets["data"]["classes"] is None
    # Best = lowest mean for RMSE, highest for R^2.
    for metric, pick in (("rmse", np.argmin), ("r2", np.argmax)):
        frame = cmp.summary_frame(metric=metric)
        means = frame.loc[("data", 2), [("f_test", "mean"), ("mim", "mean")]].to_numpy(dtype=float)
        best = frame.loc[("data", 2), [("f_test", "best"), ("mim", "best")]].to_numpy(dtype=bool)
        assert best[pick(means)]
    text = str(cmp.summary(metric="rmse"))
    assert "a continuous response" in text and "shuffled cross-validation" in text
    assert "best (lowest mean)" in text and "Regressor:" in text
    assert pickle.loads(pickle.dumps(cmp)).results.equals(cmp.results)


def test_plot_is_labelled_with_the_metric(diabetes):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    cmp = fs.compare("target ~ .", diabetes, ["f_test", "mim"], k=[2, 4], cv=3, repeats=1, random_state=1,
                     progress=False)
    ax = cmp.plot(metric="rmse")
    assert ax.get_ylabel() == "RMSE (lower is better)"
    assert cmp.plot(metric="r2").get_ylabel() == "R² (higher is better)"
    matplotlib.pyplot.close("all")


def _fold_means(cmp, metric, method):
    part = cmp.results[(cmp.results["metric"] == metric) & (cmp.results["method"] == method)]
    return part.groupby(["repeat", "fold"])["value"].mean().to_numpy()


def test_paired_tests_take_lower_is_better_as_better(diabetes):
    cmp = fs.compare("target ~ .", diabetes, ["f_test", "mim", "rrelieff"], k=[2, 3], cv=3, repeats=2,
                     random_state=3, classifier="ridge", progress=False)
    reference = _fold_means(cmp, "rmse", "f_test")
    for kind in ("ttest", "wilcoxon"):
        options = {"correction": "none"} if kind == "ttest" else {}
        tests = getattr(cmp, kind)("f_test", metric="rmse", p_adjust="none", **options)
        assert tests.frame.attrs["alternative"] == "less"
        for row in tests.frame.itertuples():
            other = _fold_means(cmp, "rmse", row.method)
            if kind == "ttest":
                expected = stats.ttest_rel(reference, other, alternative="less").pvalue
            else:
                expected = stats.wilcoxon(reference, other, alternative="less").pvalue
            assert row.p_value == pytest.approx(expected, rel=1e-9)
    assert cmp.ttest("f_test", metric="r2").frame.attrs["alternative"] == "greater"
    assert cmp.ttest("f_test", metric="rmse", alternative="two-sided").frame.attrs["alternative"] == "two-sided"
    # Friedman ranks the lowest RMSE first.
    with pytest.warns(UserWarning):
        friedman = cmp.friedman(metric="rmse")
    cells = cmp.results[cmp.results["metric"] == "rmse"].groupby(["k", "method"])["value"].mean().unstack()
    ranks = np.vstack([stats.rankdata(row) for row in cells[list(cmp.methods)].to_numpy()]).mean(axis=0)
    np.testing.assert_allclose(np.asarray(friedman.mean_ranks, dtype=float), ranks)


def test_a_class_only_method_is_refused_as_select_refuses_it(diabetes):
    with pytest.raises(ValueError) as expected:
        fs.select("target ~ .", diabetes, method="fisher", k=2)
    with pytest.raises(ValueError) as got:
        fs.compare("target ~ .", diabetes, ["f_test", "fisher"], k=2, cv=3, repeats=1, progress=False)
    assert str(got.value) == str(expected.value)
    assert "method 'fisher' takes class responses only" in str(got.value)
    assert "f_test" in str(got.value) and "pd.cut" in str(got.value)
    with pytest.raises(ValueError) as got:
        fs.stability("target ~ .", diabetes, "fisher", 2, n_bootstrap=5, progress=False)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("kwargs, error, pattern", [
    ({"classifier": "svm"}, ValueError, r"classifier: 'svm' is a classifier, for a class response; for a continuous "
                                        r"response use '1nn', 'ridge', 'svr'"),
    ({"classifier": "linear_svm"}, ValueError, r"classifier: 'linear_svm' is a classifier"),
    ({"classifier": "mlknn"}, ValueError, r"classifier: 'mlknn' is for multi-label data .* for a continuous "
                                          r"response use '1nn', 'ridge', 'svr'"),
    ({"classifier": SVC()}, ValueError, r"classifier: SVC is a classifier; a continuous response needs a "
                                        r"regressor: '1nn', 'ridge', 'svr'"),
    ({"classifier": "knn"}, ValueError, r"classifier: unknown classifier 'knn'; allowed: '1nn', 'ridge', 'svr'"),
    ({"metrics": "accuracy"}, ValueError, r"metrics: 'accuracy' does not apply to a continuous response; "
                                          r"allowed: 'r2', 'rmse', 'mae'"),
    ({"metrics": "hamming_loss"}, ValueError, r"metrics: 'hamming_loss' does not apply to a continuous response"),
    ({"response_type": "numeric"}, ValueError, r"response_type: .*'class'.*'continuous'"),
])
def test_classification_learners_and_metrics_refused(diabetes, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        fs.compare("target ~ .", diabetes, ["f_test"], k=2, cv=3, repeats=1, progress=False, **kwargs)


@pytest.mark.parametrize("kwargs, pattern", [
    ({"classifier": "ridge"}, r"classifier: 'ridge' is a regressor, for a continuous response; for a class "
                              r"response use '1nn', 'svm', 'linear_svm'"),
    ({"classifier": "svr"}, r"classifier: 'svr' is a regressor"),
    ({"classifier": Ridge()}, r"classifier: Ridge is a regressor; a class response needs a classifier"),
    ({"metrics": "rmse"}, r"metrics: 'rmse' does not apply to a class response \(it is for a continuous "
                          r"response\); allowed: 'accuracy'"),
])
def test_regression_learners_and_metrics_refused_for_classes(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        fs.compare("class ~ .", fs.datasets.load("wine"), ["fisher"], k=2, cv=3, repeats=1, progress=False,
                   **kwargs)


@pytest.fixture(scope="module")
def twelve_levels():
    """An integer response with 12 values (continuous by the rule), two informative predictors."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 4))
    y = pd.qcut(2 * X[:, 0] + X[:, 1], 12, labels=False)  # 0..11, ten rows each
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    frame["y"] = y
    return frame


def test_response_type_decides_folds_learners_and_metrics(twelve_levels):
    assert twelve_levels["y"].nunique() == 12
    seed = int(np.random.RandomState(5).randint(0, 2**31 - 1, size=1)[0])
    default = fs.compare("y ~ .", twelve_levels, ["f_test"], k=2, cv=3, repeats=1, random_state=5, progress=False)
    assert list(default.metrics) == ["r2", "rmse", "mae"]
    assert "response_type" not in default.call
    folds = KFold(n_splits=3, shuffle=True, random_state=seed).split(twelve_levels)
    for split, (train, _) in zip(default.splits["data"], folds):
        np.testing.assert_array_equal(split.train, train)
    y = twelve_levels["y"].to_numpy()
    for options in ({"formula": "y ~ .", "response_type": "class"}, {"formula": "C(y) ~ .", "response_type": None}):
        classes = fs.compare(options["formula"], twelve_levels, ["f_test", "fisher"], k=2, cv=3, repeats=1,
                             random_state=5, progress=False, response_type=options["response_type"])
        assert list(classes.metrics) == ["accuracy"]
        assert classes.datasets["data"]["response_type"] == "class"
        folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=seed).split(np.zeros((len(y), 1)), y)
        for split, (train, _) in zip(classes.splits["data"], folds):
            np.testing.assert_array_equal(split.train, train)
    assert "response_type='class'" in fs.compare("y ~ .", twelve_levels, ["fisher"], k=2, cv=2, repeats=1,
                                                 progress=False, response_type="class").call
    with pytest.raises(ValueError, match="response_type: 'continuous' contradicts the formula"):
        fs.compare("C(y) ~ .", twelve_levels, ["f_test"], k=2, cv=3, repeats=1, progress=False,
                   response_type="continuous")
    few = twelve_levels.assign(y=twelve_levels["y"] % 3)
    assert list(fs.compare("y ~ .", few, ["f_test"], k=2, cv=3, repeats=1, progress=False).metrics) == ["accuracy"]
    continuous = fs.compare("y ~ .", few, ["f_test"], k=2, cv=3, repeats=1, progress=False,
                            response_type="continuous")
    assert list(continuous.metrics) == ["r2", "rmse", "mae"]


def test_mixed_response_types_and_multilabel_refused(diabetes, twelve_levels):
    wine = fs.datasets.load("wine").rename(columns={"class": "target"})
    with pytest.raises(ValueError, match=r"data: mixes data sets with a continuous response \(diabetes\) and with "
                                         r"classes \(wine\)"):
        fs.compare("target ~ .", {"diabetes": diabetes, "wine": wine}, ["f_test"], k=2, cv=3, repeats=1,
                   progress=False)
    labels = twelve_levels.assign(l1=twelve_levels["y"] > 5, l2=twelve_levels["y"] % 2 == 0).drop(columns="y")
    with pytest.raises(TypeError, match="response_type: the formula has several 0/1 responses"):
        fs.compare("l1 + l2 ~ .", labels, ["ml_fisher"], k=2, cv=3, repeats=1, progress=False,
                   response_type="class")


def test_several_continuous_data_sets(diabetes):
    halves = {"first": diabetes.iloc[:221], "second": diabetes.iloc[221:]}
    cmp = fs.compare("target ~ .", halves, ["f_test", "pearson"], k=[2], cv=3, repeats=1, random_state=0,
                     classifier="ridge", progress=False)
    one = fs.compare("target ~ .", halves["second"], ["f_test", "pearson"], k=[2], cv=3, repeats=1,
                     random_state=0, classifier="ridge", progress=False)
    part = cmp.results[cmp.results["dataset"] == "second"].drop(columns="dataset").reset_index(drop=True)
    pd.testing.assert_frame_equal(part, one.results.drop(columns="dataset"))


def _nogueira(Z):
    """Nogueira, Sechidis and Brown (2018), Definition 4, written out."""
    M, d = Z.shape
    p = Z.mean(axis=0)
    kbar = Z.sum(axis=1).mean()
    variances = M / (M - 1) * p * (1 - p)
    return 1 - variances.mean() / (kbar / d * (1 - kbar / d))


def test_stability_equals_a_hand_made_bootstrap(diabetes):
    res = fs.stability("target ~ .", diabetes, "f_test", 3, n_bootstrap=15, random_state=7, progress=False)
    X = diabetes[FEATURES].to_numpy(dtype=float)
    y = diabetes["target"].to_numpy(dtype=float)
    rng = np.random.RandomState(7)
    Z = np.zeros((15, len(FEATURES)), dtype=bool)
    for b in range(15):
        rows = rng.choice(len(y), size=len(y), replace=True)  # from all the rows, not within classes
        F, _ = f_regression(X[rows], y[rows])
        Z[b, np.argsort(-F)[:3]] = True
    np.testing.assert_array_equal(res.selections[FEATURES].to_numpy(), Z)
    assert res.stability == pytest.approx(_nogueira(Z.astype(float)), rel=1e-12)
    F, _ = f_regression(X, y)
    assert sorted(res.full_selection) == sorted(FEATURES[j] for j in np.argsort(-F)[:3])
    assert res.response_type == "continuous" and res.classes is None
    text = str(res.summary())
    assert "a continuous response" in text and "from all the rows" in text
    assert pickle.loads(pickle.dumps(res)).stability == res.stability


def test_stability_response_type_class(twelve_levels):
    res = fs.stability("y ~ .", twelve_levels, "fisher", 2, n_bootstrap=5, random_state=0, progress=False,
                       response_type="class")
    assert res.response_type == "class" and len(res.classes) == 12
    assert "response_type='class'" in res.call and "within each class" in str(res.summary())
    with pytest.raises(ValueError, match="method 'fisher' takes class responses only"):
        fs.stability("y ~ .", twelve_levels, "fisher", 2, n_bootstrap=5, progress=False)


# --------------------------------------------------------------------------- the command line
@pytest.fixture
def diabetes_csv(tmp_path, diabetes):
    path = tmp_path / "diabetes.csv"
    diabetes.to_csv(path, index=False)
    return str(path)


def test_cli_compare_continuous(diabetes_csv, diabetes, capsys):
    status = main(["compare", "target ~ .", "--data", diabetes_csv, "--methods", "f_test,pearson,mim",
                   "-k", "2,4", "--cv", "3", "--repeats", "1", "--random-state", "0", "--classifier", "1nn,ridge",
                   "--format", "csv"])
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {row["metric"] for row in rows} == {"r2", "rmse", "mae"}
    assert {row["classifier"] for row in rows} == {"1nn", "ridge"}
    api = fs.compare("target ~ .", diabetes, ["f_test", "pearson", "mim"], k=[2, 4], classifier=["1nn", "ridge"],
                     cv=3, repeats=1, random_state=0, progress=False)
    for row in rows:
        if row["k"] in ("2", "4"):
            frame = api.summary_frame(metric=row["metric"], classifier=row["classifier"])
            assert float(row["mean"]) == pytest.approx(frame.loc[("data", int(row["k"])), (row["method"], "mean")])
    status = main(["compare", "target ~ .", "--data", diabetes_csv, "--methods", "f_test", "-k", "2", "--cv", "3",
                   "--repeats", "1"])
    assert status == 0
    out = capsys.readouterr().out
    assert "a continuous response" in out and "Metric:     R^2" in out


@pytest.mark.parametrize("argv, message", [
    (["compare", "target ~ .", "--methods", "f_test,fisher", "-k", "2", "--cv", "3", "--repeats", "1"],
     "method 'fisher' takes class responses only"),
    (["compare", "target ~ .", "--methods", "f_test", "-k", "2", "--cv", "3", "--repeats", "1", "--classifier",
      "svm"], "classifier: 'svm' is a classifier"),
    (["compare", "target ~ .", "--methods", "f_test", "-k", "2", "--cv", "3", "--repeats", "1", "--metrics",
      "accuracy"], "metrics: 'accuracy' does not apply to a continuous response"),
    (["stability", "target ~ .", "--method", "fisher", "-k", "2", "--n-bootstrap", "5"],
     "method 'fisher' takes class responses only"),
    (["select", "target ~ .", "--method", "fisher", "-k", "2"], "method 'fisher' takes class responses only"),
    (["select", "target ~ .", "--method", "fisher", "-k", "2", "--response-type", "number"],
     "argument --response-type: invalid choice: 'number'"),
    (["stability", "target ~ .", "--method", "f_test", "-k", "2", "--param", "response_type=class"],
     "use --response-type"),
])
def test_cli_errors_are_one_line_status_2(diabetes_csv, capsys, argv, message):
    assert main(argv[:2] + ["--data", diabetes_csv] + argv[2:]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_cli_response_type_option(tmp_path, twelve_levels, capsys):
    path = tmp_path / "twelve.csv"
    twelve_levels.to_csv(path, index=False)
    common = ["--data", str(path)]
    assert main(["compare", "y ~ ."] + common + ["--methods", "fisher", "-k", "2", "--cv", "2", "--repeats", "1",
                                                "--response-type", "class", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {row["metric"] for row in rows} == {"accuracy"}
    assert main(["select", "y ~ ."] + common + ["--method", "fisher", "-k", "2", "--response-type", "class"]) == 0
    assert "response_type='class'" in capsys.readouterr().out
    assert main(["stability", "y ~ ."] + common + ["--method", "fisher", "-k", "2", "--n-bootstrap", "4",
                                                  "--response-type", "class", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert '"response_type": "class"' in out and "response_type='class'" in out
    assert main(["select", "class ~ .", "--data", "wine", "--method", "fisher", "--response-type", "continuous"]) == 2
    err = capsys.readouterr().err
    assert "response_type: 'continuous' needs a numeric response" in err and len(err.strip().splitlines()) == 1


def test_cli_stability_continuous_json(diabetes_csv, capsys):
    assert main(["stability", "target ~ .", "--data", diabetes_csv, "--method", "pearson", "-k", "3",
                 "--n-bootstrap", "6", "--random-state", "1", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert '"response_type": "continuous"' in out and '"classes": null' in out


def test_select_in_fold_ranks_on_each_training_fold(diabetes):
    cmp = fs.compare("target ~ .", diabetes, ["f_test", "pearson"], k=[3], cv=3, repeats=1, random_state=2,
                     select_in_fold=True, classifier="ridge", progress=False)
    X = diabetes[FEATURES].to_numpy(dtype=float)
    y = diabetes["target"].to_numpy(dtype=float)
    threaded = fs.compare("target ~ .", diabetes, ["f_test", "pearson"], k=[3], cv=3, repeats=1, random_state=2,
                          select_in_fold=True, classifier="ridge", progress=False, n_jobs=2)
    pd.testing.assert_frame_equal(cmp.results, threaded.results)
    for split in cmp.splits["data"]:
        F, _ = f_regression(X[split.train], y[split.train])
        expected = [FEATURES[j] for j in np.argsort(-F)[:3]]
        for method in ("f_test", "pearson"):
            rows = cmp.rankings[(cmp.rankings["method"] == method) & (cmp.rankings["fold"] == split.fold)]
            assert list(rows.sort_values("rank")["feature"]) == expected
    assert "Nogueira's index" in str(cmp.summary())

"""Tests of ``fstools compare`` and ``fstools stability`` (fstools/cli.py) and of what they share with
``fstools select``: the formats (text, csv, json, latex), --plot, --output and one-line errors.

The reference for each command is the Python function it calls with the same arguments
(fs.compare, fs.stability), whose numbers are checked against their own references in
test_compare.py and test_stability.py; Nogueira's index is also recomputed here from the
frequencies the command prints.
"""
import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import fstools as fs
from cli_helpers import assert_one_error_line, run
from isolated import subprocess_options

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
COMPARE = ["compare", "class ~ .", "--data", "wine", "--methods", "cmqfs,mrmr,fisher", "-k", "2,4,6",
           "--cv", "5", "--repeats", "2", "--random-state", "0"]
STABILITY = ["stability", "class ~ .", "--data", "wine", "--method", "cmqfs", "-k", "5",
             "--n-bootstrap", "20", "--random-state", "1"]


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.fixture(scope="module")
def comparison(wine):
    return fs.compare("class ~ .", wine, ["cmqfs", "mrmr", "fisher"], k=[2, 4, 6], cv=5, repeats=2,
                      random_state=0, progress=False)


@pytest.fixture(scope="module")
def stable(wine):
    return fs.stability("class ~ .", wine, "cmqfs", 5, n_bootstrap=20, random_state=1, progress=False)




def _words(line):
    return " ".join(line.split())


def _comparison_numbers(result, classifier="1nn", metric="accuracy"):
    """Accuracy rows (not the timings, which vary between runs) of fs.compare's summary_frame, long."""
    frame = result.summary_frame(metric=metric, classifier=classifier).loc["data"]
    frame = frame.drop(index="Time (s)")
    long = frame.stack(level="method", future_stack=True).reset_index()
    return long.rename(columns={"level_0": "k"})[["k", "method", "mean", "sd", "best"]]


# ------------------------------------------------------------------ compare
def test_compare_text_is_the_summary_of_fs_compare(capsys, comparison):
    status, out, err = run(capsys, *COMPARE)
    assert status == 0 and err == ""
    printed = {_words(line) for line in out.splitlines()}
    expected = [line for line in str(comparison.summary()).splitlines() if "Time (s)" not in line]
    missing = [line for line in expected if _words(line) not in printed]
    assert not missing, missing   # every line but the timings (column widths may differ with them)


def test_compare_csv_holds_the_numbers_of_the_summary(capsys, comparison):
    status, out, err = run(capsys, *COMPARE, "--format", "csv")
    assert status == 0 and err == ""
    table = pd.read_csv(io.StringIO(out), dtype={"k": str})
    assert list(table.columns) == ["classifier", "metric", "k", "method", "mean", "sd", "best"]
    assert set(table["classifier"]) == {"1nn"} and set(table["metric"]) == {"accuracy"}
    assert list(table["k"].unique()) == ["2", "4", "6", "Avg.", "Time (s)"]   # integers, not 2.0
    accuracy = table[table["k"] != "Time (s)"].reset_index(drop=True)
    expected = _comparison_numbers(comparison)
    assert list(accuracy["method"]) == list(expected["method"])
    np.testing.assert_allclose(accuracy["mean"], expected["mean"].astype(float), rtol=1e-12)
    np.testing.assert_allclose(accuracy["sd"], expected["sd"].astype(float), rtol=1e-12)
    assert list(accuracy["best"]) == list(expected["best"])
    assert (table.loc[table["k"] == "Time (s)", "mean"] > 0).all()


def test_compare_json_holds_the_same_numbers(capsys, comparison):
    status, out, err = run(capsys, *COMPARE, "--format", "json")
    assert status == 0
    document = json.loads(out)
    assert document["call"] == comparison.call
    assert document["methods"] == ["cmqfs", "mrmr", "fisher"]
    assert (document["classifiers"], document["metrics"]) == (["1nn"], ["accuracy"])
    rows = [row for row in document["summary"] if row["k"] != "Time (s)"]
    assert [row["k"] for row in rows[:3]] == [2, 2, 2] and type(rows[0]["k"]) is int
    expected = _comparison_numbers(comparison)
    np.testing.assert_allclose([row["mean"] for row in rows], expected["mean"].astype(float), rtol=1e-12)
    assert [row["best"] for row in rows] == list(expected["best"])


def test_compare_latex_is_a_booktabs_table(capsys):
    status, out, err = run(capsys, *COMPARE, "--format", "latex")
    assert status == 0
    for rule in (r"\begin{tabular}", r"\toprule", r"\midrule", r"\bottomrule", r"\end{tabular}"):
        assert out.count(rule) == 1, rule
    assert r"\textbf{" in out   # the best method of each row


def test_compare_several_classifiers_and_metrics(capsys, wine):
    status, out, err = run(capsys, *COMPARE, "--classifier", "1nn,linear_svm", "--metrics",
                           "accuracy,balanced_accuracy", "--format", "csv")
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out), dtype={"k": str})
    assert set(zip(table["classifier"], table["metric"])) == {
        ("1nn", "accuracy"), ("1nn", "balanced_accuracy"), ("linear_svm", "accuracy"),
        ("linear_svm", "balanced_accuracy")}
    expected = fs.compare("class ~ .", wine, ["cmqfs", "mrmr", "fisher"], k=[2, 4, 6], cv=5, repeats=2,
                          random_state=0, progress=False, classifier=["1nn", "linear_svm"],
                          metrics=["accuracy", "balanced_accuracy"])
    part = table[(table["classifier"] == "linear_svm") & (table["metric"] == "balanced_accuracy")
                 & (table["k"] != "Time (s)")]
    np.testing.assert_allclose(part["mean"], _comparison_numbers(expected, "linear_svm", "balanced_accuracy")
                               ["mean"].astype(float), rtol=1e-12)
    status, text, _ = run(capsys, *COMPARE, "--classifier", "1nn,linear_svm")
    assert text.count("Comparison of feature selection methods") == 2   # one summary per classifier


def test_compare_k_ranges_and_options_reach_fs_compare(capsys, wine):
    status, out, err = run(capsys, "compare", "class ~ .", "--data", "iris", "--methods", "fisher,relieff",
                           "-k", "1-3", "--cv", "3", "--repeats", "1", "--random-state", "2",
                           "--select-in-fold", "--no-standardize", "--format", "json")
    assert status == 0, err
    expected = fs.compare("class ~ .", fs.datasets.load("iris"), ["fisher", "relieff"], k=[1, 2, 3], cv=3,
                          repeats=1, random_state=2, select_in_fold=True, standardize=False, progress=False)
    document = json.loads(out)
    assert document["call"] == expected.call
    rows = [row for row in document["summary"] if row["k"] != "Time (s)"]
    np.testing.assert_allclose([row["mean"] for row in rows], _comparison_numbers(expected)["mean"].astype(float),
                               rtol=1e-12)


def test_compare_plot_and_output_files(capsys, tmp_path, comparison):
    plot, output = tmp_path / "compare.png", tmp_path / "compare.csv"
    status, out, err = run(capsys, *COMPARE, "--plot", plot, "--format", "csv", "--output", output)
    assert status == 0 and out == ""
    assert plot.read_bytes().startswith(PNG_SIGNATURE) and plot.stat().st_size > 1000
    assert str(plot) in err and str(output) in err
    table = pd.read_csv(output, dtype={"k": str})
    np.testing.assert_allclose(table.loc[table["k"] != "Time (s)", "mean"],
                               _comparison_numbers(comparison)["mean"].astype(float), rtol=1e-12)


@pytest.mark.parametrize("extra, expected", [
    (["--cv", "1"], "cv"),
    (["--cv", "five"], "--cv"),
    (["--methods", "cmqfs,nope"], "nope"),
    (["--methods", "cmqfs,,fisher"], "--methods"),
    (["-k", "0"], "at least 1"),
    (["-k", "2,x"], "-k"),
    (["-k", "5-2"], "empty"),
    (["-k", "2,40"], "k"),
    (["--classifier", "knn"], "1nn"),
    (["--metrics", "auc"], "accuracy"),
    (["--repeats", "0"], "repeats"),
    (["--format", "xml"], "latex"),
    (["--colour"], "unrecognized"),
])
def test_compare_bad_input_is_one_line_and_status_2(capsys, extra, expected):
    status, out, err = run(capsys, *COMPARE, *extra)
    assert status == 2 and out == ""
    assert_one_error_line(err)
    assert expected in err


def test_compare_needs_methods(capsys):
    status, out, err = run(capsys, "compare", "class ~ .", "--data", "wine")
    assert status == 2
    assert_one_error_line(err)
    assert "--methods" in err


# ------------------------------------------------------------------ stability
def test_stability_text_is_the_summary_of_fs_stability(capsys, stable):
    status, out, err = run(capsys, *STABILITY)
    assert status == 0 and err == ""
    assert out.rstrip("\n") == str(stable.summary())
    status, out, _ = run(capsys, *STABILITY, "--all-features")
    assert out.rstrip("\n") == str(stable.summary(all_features=True))


def test_stability_csv_is_the_frequency_table(capsys, stable):
    status, out, err = run(capsys, *STABILITY, "--format", "csv")
    assert status == 0
    table = pd.read_csv(io.StringIO(out))
    assert list(table.columns) == ["feature", "frequency", "count", "selected_all_data"]
    expected = stable.summary_frame()
    assert list(table["feature"]) == list(expected.index)
    np.testing.assert_allclose(table["frequency"], expected["frequency"], rtol=1e-12)
    assert pd.api.types.is_integer_dtype(table["count"]) and list(table["count"]) == list(expected["count"])
    assert list(table["selected_all_data"]) == list(expected["selected_all_data"])


def test_stability_json_index_agrees_with_nogueira_from_the_frequencies(capsys, stable):
    status, out, err = run(capsys, *STABILITY, "--format", "json")
    assert status == 0
    document = json.loads(out)
    assert document["call"] == stable.call
    assert (document["k"], document["n_bootstrap"], document["random_state"], document["n"]) == (5, 20, 1, 178)
    assert document["stability"] == pytest.approx(stable.stability, rel=1e-12)
    assert (document["lower"], document["upper"]) == pytest.approx((stable.lower, stable.upper), rel=1e-12)
    # Nogueira, Sechidis & Brown (2018), Def. 4, from the printed frequencies: with M runs of k of
    # d features, Phi = 1 - mean_f s_f^2 / ((k/d)(1 - k/d)), s_f^2 = M/(M-1) p_f (1 - p_f).
    p = np.array([row["frequency"] for row in document["frequency"]])
    M, d, k = document["n_bootstrap"], len(p), document["k"]
    phi = 1 - np.mean(M / (M - 1) * p * (1 - p)) / (k / d * (1 - k / d))
    assert document["stability"] == pytest.approx(phi, rel=1e-12)
    assert [row["count"] for row in document["frequency"]] == [round(M * f) for f in p]


def test_stability_param_and_latex(capsys, wine):
    status, out, err = run(capsys, *STABILITY, "--param", "beta=0.5", "--format", "latex")
    assert status == 0, err
    expected = fs.stability("class ~ .", wine, "cmqfs", 5, n_bootstrap=20, random_state=1, progress=False,
                            beta=0.5)
    assert out.rstrip("\n") == expected.summary().as_latex()
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert out.count(rule) == 1


def test_stability_plot_writes_a_png(capsys, tmp_path):
    target = tmp_path / "stability.png"
    status, out, err = run(capsys, *STABILITY, "--plot", target)
    assert status == 0 and "Selection stability" in out
    assert target.read_bytes().startswith(PNG_SIGNATURE) and target.stat().st_size > 1000


@pytest.mark.parametrize("extra, expected", [
    (["-k", "13"], "k"),
    (["--n-bootstrap", "1"], "n_bootstrap"),
    (["--alpha", "2"], "alpha"),
    (["--alpha", "x"], "--alpha"),
    (["--method", "elc"], "multi-label"),
    (["--method", "cmqf"], "cmqfs"),
    (["--param", "n_bootstrap=5"], "--n-bootstrap"),
    (["--param", "gamma=1"], "gamma"),
    (["--plot", "/no/such/dir/p.png"], "does not exist"),
    (["--output", "/no/such/dir/out.txt"], "--output"),
])
def test_stability_bad_input_is_one_line_and_status_2(capsys, extra, expected):
    status, out, err = run(capsys, *STABILITY, *extra)
    assert status == 2 and out == ""
    assert_one_error_line(err)
    assert expected in err


def test_stability_needs_k(capsys):
    status, out, err = run(capsys, "stability", "class ~ .", "--data", "wine")
    assert status == 2
    assert_one_error_line(err)
    assert "-k" in err


# ------------------------------------------------------------------ select: latex and --output
def test_select_latex_and_output(capsys, tmp_path, wine):
    expected = fs.select("class ~ .", wine, k=3)
    status, out, err = run(capsys, "select", "class ~ .", "--data", "wine", "-k", 3, "--format", "latex")
    assert status == 0 and out.rstrip("\n") == expected.summary().as_latex()
    assert r"\toprule" in out and r"\bottomrule" in out
    target = tmp_path / "select.json"
    status, out, err = run(capsys, "select", "class ~ .", "--data", "wine", "-k", 3, "--format", "json",
                           "--output", target)
    assert status == 0 and out == "" and str(target) in err
    assert json.loads(target.read_text())["selected"] == expected.selected


def test_output_to_a_directory_is_refused_before_any_work(capsys, tmp_path, monkeypatch):
    import fstools.evaluation.compare as compare_module

    def no_work(*args, **kwargs):
        raise AssertionError("the output path must be checked before the comparison runs")

    monkeypatch.setattr(compare_module, "compare", no_work)
    status, out, err = run(capsys, *COMPARE, "--output", tmp_path)
    assert status == 2 and out == ""
    assert_one_error_line(err)
    assert "is a directory" in err


# ------------------------------------------------------------------ as a program
def _run_module(*argv):
    return subprocess.run([sys.executable, "-m", "fstools.cli", *map(str, argv)], capture_output=True,
                          text=True, timeout=300, **subprocess_options(MPLBACKEND="Agg"))


def test_program_compare_and_stability(comparison, stable):
    proc = _run_module(*COMPARE, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rows = [row for row in json.loads(proc.stdout)["summary"] if row["k"] != "Time (s)"]
    np.testing.assert_allclose([row["mean"] for row in rows], _comparison_numbers(comparison)["mean"].astype(float),
                               rtol=1e-12)
    proc = _run_module(*STABILITY)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip("\n") == str(stable.summary())
    proc = _run_module(*STABILITY, "--n-bootstrap", "1")
    assert proc.returncode == 2 and proc.stdout == ""
    assert_one_error_line(proc.stderr)

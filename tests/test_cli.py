"""Tests of the ``fstools`` command (fstools/cli.py), in-process and as ``python -m fstools.cli``."""
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import fstools as fs
from fstools.cli import main, parse_param_value
from cli_helpers import assert_one_error_line, run
from isolated import subprocess_options

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
REPO_ROOT = Path(fs.__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")




# ------------------------------------------------------------------ select
def test_select_text_prints_the_summary(capsys, wine):
    status, out, err = run(capsys, "select", "class ~ .", "--data", "wine", "--method", "cmqfs", "-k", 3)
    assert status == 0
    expected = fs.select("class ~ .", wine, method="cmqfs", k=3)
    assert out.strip() == str(expected.summary()).strip()
    assert "Feature selection (cmqfs)" in out
    for name in expected.selected:
        assert name in out
    assert err == ""


def test_select_csv_prints_the_scores_table(capsys, wine):
    status, out, err = run(capsys, "select", "class ~ .", "--data", "wine", "-k", 4, "--format", "csv")
    assert status == 0
    table = pd.read_csv(io.StringIO(out))
    expected = fs.select("class ~ .", wine, k=4)
    score_columns = list(expected.scores.columns)
    assert list(table.columns) == (["feature", "rank", "score", "selected"] + score_columns[2:]
                                   + ["test", "statistic", "df", "p_value", "p_adjusted"])
    assert list(table["feature"]) == list(expected.scores.index)
    assert len(table) == wine.shape[1] - 1
    pd.testing.assert_series_equal(table["score"], expected.scores["score"].reset_index(drop=True),
                                   check_names=False)
    assert list(table.loc[table["rank"] <= 4, "feature"]) == expected.selected
    assert table["selected"].dtype == bool and list(table.loc[table["selected"], "feature"]) == expected.selected
    # The p-values the summary shows: one-way ANOVA per feature (scipy), Benjamini-Hochberg (statsmodels).
    groups = [part.drop(columns="class") for _, part in wine.groupby("class", observed=True)]
    anova = {name: stats.f_oneway(*[g[name] for g in groups]).pvalue for name in table["feature"]}
    np.testing.assert_allclose(table["p_value"], [anova[name] for name in table["feature"]], rtol=1e-10)
    np.testing.assert_allclose(table["p_adjusted"], multipletests(table["p_value"], method="fdr_bh")[1],
                               rtol=1e-10)
    # Whole-number columns print as integers (1, not 1.0), missing values as empty fields.
    header = out.splitlines()[0].split(",")
    first = next(csv.reader([out.splitlines()[1]]))
    assert first[header.index("rank")] == "1" and first[header.index("step")] == "1"
    assert pd.api.types.is_integer_dtype(table["rank"]) and table["step"].isna().sum() == len(table) - 4


def test_select_json_matches_the_api(capsys, wine):
    status, out, err = run(capsys, "select", "class ~ .", "--data", "wine", "-k", 5, "--format", "json")
    assert status == 0
    document = json.loads(out)
    assert set(document) == {"call", "method", "params", "formula", "selected", "n", "n_dropped",
                             "response_type", "classes", "scores"}
    expected = fs.select("class ~ .", wine, method="cmqfs", k=5)
    predictors = set(wine.columns) - {"class"}
    assert len(document["selected"]) == 5
    assert set(document["selected"]) <= predictors
    assert document["selected"] == expected.selected
    assert document["method"] == "cmqfs"
    assert document["call"] == expected.call
    assert document["formula"] == expected.formula
    assert document["params"] == {"beta": 0.3, "k": 5}
    assert (document["n"], document["n_dropped"]) == (178, 0)
    assert document["classes"] == ["class_0", "class_1", "class_2"]
    rows = document["scores"]
    assert [row["feature"] for row in rows] == list(expected.scores.index)
    assert set(rows[0]) == ({"feature", "selected", "test", "statistic", "df", "p_value", "p_adjusted"}
                            | set(expected.scores.columns))
    assert [row["feature"] for row in rows if row["selected"] is True] == expected.selected
    assert all(row["selected"] is False for row in rows[5:])
    assert rows[0]["rank"] == 1 and type(rows[0]["step"]) is int and rows[5]["step"] is None
    first = expected.scores.index[0]
    groups = [part[first] for _, part in wine.groupby("class", observed=True)]
    assert rows[0]["p_value"] == pytest.approx(stats.f_oneway(*groups).pvalue, rel=1e-10)
    # NaN (e.g. w at the first step, columns of unselected features) is null, not NaN.
    assert "NaN" not in out
    assert rows[0]["w"] is None
    assert rows[0]["score"] == pytest.approx(expected.scores["score"].iloc[0])


def test_select_without_k_ranks_every_feature(capsys, wine):
    status, out, _ = run(capsys, "select", "class ~ .", "--data", "wine", "--format", "json")
    assert status == 0
    document = json.loads(out)
    assert document["params"]["k"] is None
    assert sorted(document["selected"]) == sorted(set(wine.columns) - {"class"})


def test_select_param_changes_params(capsys, wine):
    status, out, _ = run(capsys, "select", "class ~ .", "--data", "wine", "-k", 3, "--format", "json",
                         "--param", "beta=0.5")
    assert status == 0
    document = json.loads(out)
    assert document["params"]["beta"] == 0.5
    assert "beta=0.5" in document["call"]
    assert document["selected"] == fs.select("class ~ .", wine, k=3, beta=0.5).selected


def test_select_csv_file_with_numeric_response_and_a_space_in_a_name(capsys, tmp_path, wine):
    frame = wine.rename(columns={"alcohol": "alcohol pct"})
    frame["class"] = frame["class"].cat.codes  # numbers in the file
    frame.loc[[3, 7], "proline"] = float("nan")  # two incomplete rows
    path = tmp_path / "my wine.csv"
    frame.to_csv(path, index=False)
    formula = "class ~ `alcohol pct` + proline + hue + flavanoids"
    status, out, err = run(capsys, "select", formula, "--data", path, "-k", 2, "--format", "json")
    assert status == 0, err
    document = json.loads(out)
    expected = fs.select(formula, pd.read_csv(path), k=2)
    assert document["selected"] == expected.selected
    assert (document["n"], document["n_dropped"]) == (176, 2)
    assert document["classes"] == ["0", "1", "2"]
    assert "alcohol pct" in [row["feature"] for row in document["scores"]]

    # '.' takes every other column, the one with a space included.
    status, out, _ = run(capsys, "select", "class ~ .", "--data", path, "--format", "csv")
    assert status == 0
    assert "alcohol pct" in set(pd.read_csv(io.StringIO(out))["feature"])

    # --na-action raise refuses the incomplete rows.
    status, _, err = run(capsys, "select", "class ~ .", "--data", path, "--na-action", "raise")
    assert status == 2
    assert_one_error_line(err)
    assert "missing" in err


def test_select_warnings_are_one_line_each(capsys, tmp_path, wine):
    frame = wine.iloc[:, [0, 1, 2]].assign(constant=1.0, **{"class": wine["class"]})
    path = tmp_path / "constant.csv"
    frame.to_csv(path, index=False)
    status, out, err = run(capsys, "select", "class ~ .", "--data", path, "-k", 2)
    assert status == 0
    warning_lines = [line for line in err.splitlines() if line.startswith("fstools: warning: ")]
    assert len(warning_lines) == 1 and "constant" in warning_lines[0], err
    assert len(err.splitlines()) == 1
    assert "Feature selection" in out


def test_select_plot_writes_a_png(capsys, tmp_path):
    target = tmp_path / "scores.png"
    status, out, err = run(capsys, "select", "class ~ .", "--data", "iris", "-k", 2, "--plot", target)
    assert status == 0
    assert target.read_bytes().startswith(PNG_SIGNATURE)
    assert str(target) in err and "plot" in err
    assert "Feature selection" in out


def test_select_plot_to_a_missing_directory_is_an_error(capsys, tmp_path):
    status, out, err = run(capsys, "select", "class ~ .", "--data", "iris", "-k", 2,
                           "--plot", tmp_path / "no" / "such" / "dir" / "p.png")
    assert status == 2
    assert out == ""
    assert_one_error_line(err)


# ------------------------------------------------------------------ other commands
def test_methods_lists_the_registry(capsys):
    status, out, err = run(capsys, "methods")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["name", "description", "capabilities", "parameters"]
    table = fs.list_methods()
    for name, parameters in zip(table["name"], table["parameters"]):
        row = next(line for line in lines[1:] if line.split()[0] == name)
        assert parameters in row
    assert "beta=0.3" in out


def test_datasets_lists_names_shape_and_classes(capsys):
    status, out, err = run(capsys, "datasets")
    assert status == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert sorted(rows) == fs.datasets.list()
    assert out.splitlines()[0].split()[:4] == ["name", "rows", "features", "classes"]
    assert rows["wine"][1:4] == ["178", "13", "3"]
    assert rows["iris"][1:4] == ["150", "4", "3"]
    assert rows["digits"][1:4] == ["1797", "64", "10"]


def test_version(capsys):
    status, out, _ = run(capsys, "--version")
    assert status == 0
    assert out.strip() == f"fstools {fs.__version__}"


def test_help_returns_zero(capsys):
    status, out, _ = run(capsys, "select", "--help")
    assert status == 0
    assert "--param NAME=VALUE" in out


# ------------------------------------------------------------------ bad input
@pytest.fixture
def bad_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    binary = tmp_path / "binary.csv"
    binary.write_bytes(PNG_SIGNATURE + bytes(range(256)) * 8)
    return {"EMPTY": str(empty), "BINARY": str(binary), "MISSING": str(tmp_path / "missing.csv"),
            "DIR": str(tmp_path)}


BAD_COMMAND_LINES = {
    "missing csv file": ["select", "class ~ .", "--data", "MISSING", "-k", "2"],
    "empty csv file": ["select", "class ~ .", "--data", "EMPTY", "-k", "2"],
    "binary csv file": ["select", "class ~ .", "--data", "BINARY", "-k", "2"],
    "directory as data": ["select", "class ~ .", "--data", "DIR", "-k", "2"],
    "unknown data set": ["select", "class ~ .", "--data", "no_such_data", "-k", "2"],
    "unknown column": ["select", "class ~ nope + alcohol", "--data", "wine", "-k", "1"],
    "unknown method": ["select", "class ~ .", "--data", "wine", "--method", "magic"],
    "k = 0": ["select", "class ~ .", "--data", "wine", "-k", "0"],
    "k negative": ["select", "class ~ .", "--data", "wine", "-k", "-3"],
    "k too large": ["select", "class ~ .", "--data", "wine", "-k", "14"],
    "beta out of range": ["select", "class ~ .", "--data", "wine", "--param", "beta=1.5"],
    "beta not a number": ["select", "class ~ .", "--data", "wine", "--param", "beta=high"],
    "unknown parameter": ["select", "class ~ .", "--data", "wine", "--param", "gamma=2"],
    "param without =": ["select", "class ~ .", "--data", "wine", "--param", "beta"],
    "param k": ["select", "class ~ .", "--data", "wine", "--param", "k=2"],
    "param twice": ["select", "class ~ .", "--data", "wine", "--param", "beta=0.1", "--param", "beta=0.2"],
    "formula without ~": ["select", "class", "--data", "wine", "-k", "2"],
    "formula syntax": ["select", "class ~ (alcohol", "--data", "wine", "-k", "1"],
    "bad n_jobs": ["select", "class ~ .", "--data", "wine", "--n-jobs", "0"],
    "plot format": ["select", "class ~ .", "--data", "iris", "--plot", "PLOT.nosuchformat"],
}


@pytest.mark.parametrize("argv", list(BAD_COMMAND_LINES.values()), ids=list(BAD_COMMAND_LINES))
def test_bad_input_is_one_error_line_and_status_2(capsys, bad_files, tmp_path, argv):
    files = dict(bad_files, **{"PLOT.nosuchformat": str(tmp_path / "plot.nosuchformat")})
    status, out, err = run(capsys, *[files.get(a, a) for a in argv])
    assert status == 2
    assert out == ""
    assert_one_error_line(err)


USAGE_ERRORS = {
    "no command": ([], "required: COMMAND"),
    "unknown command": (["frobnicate"], "invalid choice: 'frobnicate'"),
    "no data": (["select", "class ~ ."], "required: --data"),
    "no formula": (["select", "--data", "wine"], "required: FORMULA"),
    "k not int": (["select", "class ~ .", "--data", "wine", "-k", "two"], "got 'two'"),
    "k abc": (["select", "class ~ .", "--data", "wine", "-k", "abc"], "whole number"),
    "k 2.5": (["select", "class ~ .", "--data", "wine", "-k", "2.5"], "got '2.5'"),
    "k 0": (["select", "class ~ .", "--data", "wine", "-k", "0"], "at least 1; got 0"),
    "k -1": (["select", "class ~ .", "--data", "wine", "-k", "-1"], "at least 1; got -1"),
    "k without value": (["select", "class ~ .", "--data", "wine", "-k"], "expected one argument"),
    "unknown option": (["select", "class ~ .", "--data", "wine", "--frobnicate"],
                       "unrecognized arguments: --frobnicate"),
    "option typo": (["select", "class ~ .", "--data", "wine", "--formt", "json"], "did you mean '--format'"),
    "extra argument": (["select", "class ~ .", "extra", "--data", "wine"], "unrecognized arguments: extra"),
    "bad format": (["select", "class ~ .", "--data", "wine", "--format", "xml"], "invalid choice: 'xml'"),
    "bad na-action": (["select", "class ~ .", "--data", "wine", "--na-action", "keep"], "invalid choice"),
    "n-jobs not int": (["select", "class ~ .", "--data", "wine", "--n-jobs", "many"], "--n-jobs"),
    "sep of two characters": (["select", "class ~ .", "--data", "wine", "--sep", ";;"], "one character"),
    "unknown encoding": (["select", "class ~ .", "--data", "wine", "--encoding", "klingon"],
                         "unknown encoding 'klingon'"),
    "bad decimal": (["select", "class ~ .", "--data", "wine", "--decimal", ";"], "--decimal"),
}


@pytest.mark.parametrize("argv, expected", list(USAGE_ERRORS.values()), ids=list(USAGE_ERRORS))
def test_usage_errors_are_one_line_and_status_2(capsys, argv, expected):
    """argparse's own errors follow the convention too: one line (no usage text), status 2."""
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert_one_error_line(err)
    assert expected in err
    assert "--help'" in err  # where to look


def test_usage_errors_as_a_program_are_one_line():
    proc = _run_module("select", "class ~ .", "--data", "wine", "-k", "2.5")
    assert proc.returncode == 2 and proc.stdout == ""
    assert_one_error_line(proc.stderr)
    assert "got '2.5'" in proc.stderr


def test_unexpected_errors_propagate(monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("fstools.api.selection.select", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["select", "class ~ .", "--data", "wine"])


@pytest.mark.parametrize("text, value", [
    ("3", 3), ("-2", -2), ("0.5", 0.5), ("1e-3", 1e-3), ("true", True), ("False", False),
    ("none", None), ("None", None), ("abc", "abc"), ("", ""),
])
def test_parse_param_value(text, value):
    parsed = parse_param_value(text)
    assert parsed == value and type(parsed) is type(value)


# ------------------------------------------------------------------ as a program
def _run_module(*argv):
    return subprocess.run([sys.executable, "-m", "fstools.cli", *map(str, argv)], capture_output=True,
                          text=True, timeout=300, **subprocess_options(MPLBACKEND="Agg"))


def test_module_entry_point_select_json(wine):
    proc = _run_module("select", "class ~ .", "--data", "wine", "-k", 3, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["selected"] == fs.select("class ~ .", wine, k=3).selected


def test_module_entry_point_error_and_version():
    proc = _run_module("select", "class ~ nope", "--data", "wine")
    assert proc.returncode == 2
    assert_one_error_line(proc.stderr)
    assert proc.stdout == ""
    proc = _run_module("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"fstools {fs.__version__}"


@pytest.mark.parametrize("argv", [
    ["--method", "mrmr", "--param", "discretization=equal_width", "--param", "n_bins=5"],
    ["--method", "laplacian", "--param", "n_neighbors=7"],
    ["--method", "relieff"],
])
def test_select_with_baseline_methods(capsys, argv):
    status = main(["select", "class ~ .", "--data", "wine", "-k", "3", "--format", "json", *argv])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and len(out["selected"]) == 3
    assert out["method"] == argv[1]


def test_keyboard_interrupt_is_one_line_and_status_130(capsys, monkeypatch):
    """Ctrl-C during a command (see tests/test_interrupt.py for a real SIGINT)."""
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("fstools.api.selection.select", interrupted)
    status = main(["select", "class ~ .", "--data", "wine", "-k", "3"])
    captured = capsys.readouterr()
    assert status == 130
    assert captured.err.strip().splitlines() == ["fstools: interrupted"]
    assert captured.out == ""


# ------------------------------------------------------------------ formulas are read safely
def test_select_refuses_code_in_the_formula_by_default(capsys, tmp_path):
    canary = tmp_path / "pwned.txt"
    formula = f"class ~ alcohol + I(__import__('os').system('id > {canary}') + hue)"
    status, out, err = run(capsys, "select", formula, "--data", "wine", "--method", "fisher", "-k", 1)
    assert status == 2 and out == ""
    assert_one_error_line(err)
    assert "safe formula mode" in err and "--allow-code" in err
    assert not canary.exists()


def test_select_allow_code_evaluates_python_terms(capsys, wine):
    formula = "class ~ alcohol + I(np.where(hue > 1, 1.0, 0.0))"
    status, _, err = run(capsys, "select", formula, "--data", "wine", "--method", "fisher", "-k", 1)
    assert status == 2 and "safe formula mode" in err
    status, out, err = run(capsys, "select", formula, "--data", "wine", "--method", "fisher", "-k", 1,
                           "--format", "json", "--allow-code")
    assert status == 0, err
    expected = fs.select(formula, wine, method="fisher", k=1, formula_mode="code")
    assert json.loads(out)["selected"] == expected.selected


def test_select_r_functions_without_allow_code(capsys, wine):
    formula = "class ~ log(alcohol) + sqrt(hue) + I(proline^2) + (ash + hue)^2"
    status, out, err = run(capsys, "select", formula, "--data", "wine", "--method", "fisher",
                           "--format", "json")
    assert status == 0, err
    features = [row["feature"] for row in json.loads(out)["scores"]]
    assert set(features) == {"log(alcohol)", "sqrt(hue)", "I(proline ** 2)", "ash", "hue", "ash:hue"}


def test_formula_mode_is_not_a_method_parameter(capsys):
    status, _, err = run(capsys, "select", "class ~ .", "--data", "wine", "--param", "formula_mode=code")
    assert status == 2 and "--allow-code" in err


# ------------------------------------------------------------------ CSV delimiter, encoding, standard input
@pytest.fixture(scope="module")
def iris_frame():
    """iris with a response holding a non-ASCII character, so that encodings matter."""
    frame = fs.datasets.load("iris")
    return frame.assign(**{"class": frame["class"].astype(str) + "\u00e9"})


def _selected(capsys, *argv):
    status, out, err = run(capsys, "select", "class ~ .", "-k", 2, "--format", "json", *argv)
    assert status == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def iris_selected(iris_frame):
    return fs.select("class ~ .", iris_frame, k=2).selected


@pytest.mark.parametrize("writer", [
    dict(sep=";"), dict(sep="\t"), dict(sep="|"), dict(sep=";", decimal=","), dict(sep="\t", decimal=","),
    dict(encoding="utf-8-sig"), dict(encoding="utf-16"), dict(encoding="utf-32"),
    dict(sep=";", decimal=",", encoding="utf-16"),
], ids=["semicolon", "tab", "pipe", "semicolon, decimal comma", "tab, decimal comma", "utf-8 BOM",
        "utf-16 BOM", "utf-32 BOM", "utf-16 semicolon decimal comma"])
def test_select_reads_other_delimiters_and_encodings(capsys, tmp_path, iris_frame, iris_selected, writer):
    path = tmp_path / "data.csv"
    iris_frame.to_csv(path, index=False, **writer)
    document = _selected(capsys, "--data", path)
    assert document["selected"] == iris_selected
    assert set(row["feature"] for row in document["scores"]) == set(iris_frame.columns) - {"class"}
    assert document["classes"] == sorted(iris_frame["class"].unique())


def test_select_sep_decimal_and_encoding_options(capsys, tmp_path, iris_frame, iris_selected):
    path = tmp_path / "latin.csv"
    iris_frame.to_csv(path, index=False, sep=";", decimal=",", encoding="latin-1")
    assert _selected(capsys, "--data", path, "--encoding", "latin-1", "--sep", ";",
                     "--decimal", ",")["selected"] == iris_selected
    nobom = tmp_path / "utf16le.csv"
    iris_frame.to_csv(nobom, index=False, sep="\t", encoding="utf-16-le")
    assert _selected(capsys, "--data", nobom, "--encoding", "utf-16-le", "--sep", "tab")["selected"] == iris_selected
    # '--decimal .' keeps 5,1 as text: a categorical term of its own, as asked.
    document = _selected(capsys, "--data", path, "--encoding", "cp1252", "--decimal", ".")
    assert any("[T." in (row.get("term_column") or "") for row in document["scores"])


def _stdin(monkeypatch, content):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(content)))


def test_select_reads_standard_input(capsys, monkeypatch, iris_frame, iris_selected):
    _stdin(monkeypatch, iris_frame.to_csv(index=False).encode())
    assert _selected(capsys, "--data", "-")["selected"] == iris_selected
    _stdin(monkeypatch, iris_frame.to_csv(index=False, sep=";", decimal=",", encoding="utf-16").encode("utf-16"))
    assert _selected(capsys, "--data", "-")["selected"] == iris_selected


def test_method_names_in_any_case(capsys, wine):
    document = _selected(capsys, "--data", "wine", "--method", "mRMR")
    assert document["selected"] == fs.select("class ~ .", wine, method="mrmr", k=2).selected


def test_method_typo_is_one_line_with_a_suggestion(capsys):
    status, out, err = run(capsys, "select", "class ~ .", "--data", "wine", "--method", "cmqsf", "-k", 2)
    assert status == 2 and out == ""
    assert_one_error_line(err)
    assert "unknown method 'cmqsf'; allowed values: " in err and "Did you mean 'cmqfs'" in err


def test_missing_response_lists_the_columns_on_one_line(capsys):
    status, out, err = run(capsys, "select", "y ~ .", "--data", "wine", "-k", 2)
    assert status == 2 and out == ""
    assert_one_error_line(err)
    assert "'y'" in err and "alcohol" in err and "class" in err


def _bad_data(tmp_path, iris_frame):
    """Files (and their expected message parts) that the CLI refuses with one line."""
    def write(name, content):
        path = tmp_path / name
        path.write_bytes(content)
        return str(path)

    text = iris_frame.to_csv(index=False)
    return {
        "semicolons with --sep ,": (["--data", write("semi.csv", iris_frame.to_csv(index=False, sep=";").encode()),
                                     "--sep", ","], ["one column", "semicolons", "--sep ';'"]),
        "tabs with --sep ;": (["--data", write("tab.csv", iris_frame.to_csv(index=False, sep="\t").encode()),
                               "--sep", ";"], ["one column", "tabs", "--sep tab"]),
        "latin-1 file": (["--data", write("latin.csv", text.encode("latin-1"))],
                         ["not UTF-8 text", "byte 0xe9", "--encoding latin-1"]),
        "cp1252 read as utf-16": (["--data", write("cp.csv", text.encode("cp1252")), "--encoding", "utf-16"],
                                  ["UTF-16", "--encoding"]),
        "utf-16 without BOM": (["--data", write("u16.csv", text.encode("utf-16-le"))],
                               ["UTF-16-LE", "without a byte-order mark", "--encoding utf-16-le"]),
        "utf-16-be without BOM": (["--data", write("u16be.csv", text.encode("utf-16-be"))],
                                  ["--encoding utf-16-be"]),
        "binary": (["--data", write("image.csv", PNG_SIGNATURE + bytes(range(256)))],
                   ["NUL bytes", "not a text file", "--encoding"]),
        "whitespace only": (["--data", write("blank.csv", b" \n\n")], ["is empty"]),
        "BOM only": (["--data", write("bom.csv", b"\xff\xfe")], ["is empty"]),
    }


BAD_DATA_IDS = ["semicolons with --sep ,", "tabs with --sep ;", "latin-1 file", "cp1252 read as utf-16",
                "utf-16 without BOM", "utf-16-be without BOM", "binary", "whitespace only", "BOM only"]


@pytest.mark.parametrize("case", BAD_DATA_IDS)
def test_unreadable_data_says_what_to_pass(capsys, tmp_path, iris_frame, case):
    argv, expected = _bad_data(tmp_path, iris_frame)[case]
    status, out, err = run(capsys, "select", "class ~ .", "-k", 2, *argv)
    assert status == 2 and out == ""
    assert_one_error_line(err)
    for part in expected:
        assert part in err


def test_standard_input_empty_or_a_terminal(capsys, monkeypatch):
    _stdin(monkeypatch, b"")
    status, out, err = run(capsys, "select", "class ~ .", "--data", "-")
    assert status == 2 and out == ""
    assert_one_error_line(err)
    assert "standard input is empty" in err

    class Terminal(io.TextIOWrapper):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdin", Terminal(io.BytesIO(b"never read")))
    status, out, err = run(capsys, "select", "class ~ .", "--data", "-")
    assert status == 2 and out == ""
    assert_one_error_line(err)
    assert "standard input is a terminal" in err and "--data - <" in err


def test_missing_file_mentions_standard_input(capsys, tmp_path):
    status, _, err = run(capsys, "select", "class ~ .", "--data", tmp_path / "nope.csv")
    assert status == 2
    assert_one_error_line(err)
    assert "--data -" in err


# ------------------------------------------------------------------ --plot is checked before any work
@pytest.fixture
def no_work(monkeypatch):
    """Fails a test that reaches the data or the selection."""
    def never(*args, **kwargs):
        raise AssertionError("work done before the --plot check")

    monkeypatch.setattr("fstools.cli._read_data", never)
    monkeypatch.setattr("fstools.api.selection.select", never)


@pytest.mark.parametrize("plot, expected", [
    ("", "empty file name"),
    ("  ", "empty file name"),
    ("MISSING_DIR/p.png", "does not exist"),
    ("TMP", "is a directory"),
    ("TMP/scores.nosuchformat", "unknown image format '.nosuchformat'"),
    ("TMP/scores.PNGX", ".png, "),
], ids=["empty", "blank", "missing directory", "a directory", "unknown extension", "formats listed"])
def test_plot_path_is_refused_before_any_work(capsys, tmp_path, no_work, plot, expected):
    plot = plot.replace("MISSING_DIR", str(tmp_path / "no" / "such")).replace("TMP", str(tmp_path))
    status, out, err = run(capsys, "select", "class ~ .", "--data", "wine", "-k", 2, "--plot", plot)
    assert status == 2 and out == ""
    assert_one_error_line(err)
    assert expected in err


def test_plot_path_not_writable_is_refused_before_any_work(capsys, tmp_path, monkeypatch, no_work):
    # Tests may run as root, for whom every file is writable: os.access answers as for a user.
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    status, _, err = run(capsys, "select", "class ~ .", "--data", "wine", "--plot", tmp_path / "p.png")
    assert status == 2
    assert_one_error_line(err)
    assert "is not writable" in err
    existing = tmp_path / "old.png"
    existing.write_bytes(b"")
    status, _, err = run(capsys, "select", "class ~ .", "--data", "wine", "--plot", existing)
    assert status == 2 and "the file is not writable" in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (a device that is always full)")
def test_plot_write_failure_is_an_error_not_success(capsys):
    status, out, err = run(capsys, "select", "class ~ .", "--data", "iris", "-k", 2, "--plot", "/dev/full")
    assert status == 2 and out == ""
    assert_one_error_line(err)
    assert "cannot write the plot" in err and "written" not in err


def test_plot_write_failure_leaves_no_partial_file(capsys, tmp_path, monkeypatch):
    target = tmp_path / "scores.svg"
    real_open = open

    class Full(io.BytesIO):
        def write(self, data):
            raise OSError(28, "No space left on device")

    def failing_open(path, mode="r", *args, **kwargs):
        if str(path) == str(target):
            real_open(path, mode).close()   # the file is created, then the write fails
            return Full()
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", failing_open)
    status, out, err = run(capsys, "select", "class ~ .", "--data", "iris", "-k", 2, "--plot", target)
    assert status == 2 and out == ""
    assert_one_error_line(err)
    assert "No space left on device" in err
    assert not target.exists()


@pytest.mark.parametrize("name, signature", [("scores.svg", b"<?xml"), ("scores.pdf", b"%PDF"),
                                             ("scores", PNG_SIGNATURE)])
def test_plot_format_follows_the_extension(capsys, tmp_path, name, signature):
    target = tmp_path / name
    status, _, err = run(capsys, "select", "class ~ .", "--data", "iris", "-k", 2, "--plot", target)
    assert status == 0, err
    assert target.read_bytes().startswith(signature)


# ------------------------------------------------------------------ as a program: stdin and other CSV dialects
def _run_module_with_input(content, *argv):
    return subprocess.run([sys.executable, "-m", "fstools.cli", *map(str, argv)], input=content,
                          capture_output=True, timeout=300, **subprocess_options(MPLBACKEND="Agg"))


def test_program_reads_stdin_utf16_and_semicolon_files(tmp_path, iris_frame, iris_selected):
    argv = ("select", "class ~ .", "-k", 2, "--format", "json")
    proc = _run_module_with_input(iris_frame.to_csv(index=False).encode(), *argv, "--data", "-")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["selected"] == iris_selected

    utf16 = tmp_path / "utf16.csv"
    iris_frame.to_csv(utf16, index=False, encoding="utf-16")
    semicolon = tmp_path / "semicolon.csv"
    iris_frame.to_csv(semicolon, index=False, sep=";", decimal=",")
    for path in (utf16, semicolon):
        proc = _run_module(*argv, "--data", path)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["selected"] == iris_selected

    proc = _run_module(*argv, "--data", semicolon, "--sep", ",")
    assert proc.returncode == 2 and proc.stdout == ""
    assert_one_error_line(proc.stderr)
    assert "--sep ';'" in proc.stderr


# ---------------------------------------------------------------- tests of the selection from the command line

def test_select_test_permutation_equals_the_api(capsys):
    status, out, err = run(capsys, "select", "class ~ .", "--data", "wine", "--method", "fisher", "-k", 3,
                           "--test", "permutation", "--n-permutations", 99, "--seed", 1, "--format", "json")
    assert status == 0, err
    rows = {row["feature"]: row for row in json.loads(out)["scores"]}
    wine = fs.datasets.load("wine")
    res = fs.select("class ~ .", wine, method="fisher", k=3, test="permutation", n_permutations=99,
                    permutation_seed=1)
    for feature, p in res.scores["p_perm"].items():
        assert rows[feature]["p_perm"] == pytest.approx(p, rel=1e-12)


def test_select_k_auto_equals_the_api(capsys):
    status, out, err = run(capsys, "select", "class ~ .", "--data", "wine", "--method", "mrmr", "-k", "auto",
                           "--n-permutations", 99, "--seed", 0, "--step-alpha", 0.1, "--format", "json")
    assert status == 0, err
    res = fs.select("class ~ .", fs.datasets.load("wine"), method="mrmr", k="auto", n_permutations=99,
                    permutation_seed=0, step_alpha=0.1)
    assert json.loads(out)["selected"] == list(res.selected)


@pytest.mark.parametrize("argv, words", [
    (("-k", "auto", "--method", "fisher"), "k='auto' needs a greedy method"),
    (("--step-alpha", "2"), "--step-alpha: must be strictly between 0 and 1"),
    (("-k", "many"), "expected a whole number of features"),
    (("--test", "bootstrap"), "--test: invalid choice"),
])
def test_select_test_options_errors(capsys, argv, words):
    status, _, err = run(capsys, "select", "class ~ .", "--data", "wine", *argv)
    assert status != 0
    assert_one_error_line(err)
    assert words in err

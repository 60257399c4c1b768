"""Tests of the ``fstools`` command (fstools/cli.py), in-process and as ``python -m fstools.cli``."""
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest

import fstools as fs
from fstools.cli import main, parse_param_value

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
REPO_ROOT = Path(fs.__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_error_line(err):
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fstools: error: ") and lines[0] != "fstools: error: ", err
    assert "Traceback" not in err


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
    assert list(table.columns) == ["feature"] + list(expected.scores.columns)
    assert list(table["feature"]) == list(expected.scores.index)
    assert len(table) == wine.shape[1] - 1
    pd.testing.assert_series_equal(table["score"], expected.scores["score"].reset_index(drop=True),
                                   check_names=False)
    assert list(table.loc[table["rank"] <= 4, "feature"]) == expected.selected


def test_select_json_matches_the_api(capsys, wine):
    status, out, err = run(capsys, "select", "class ~ .", "--data", "wine", "-k", 5, "--format", "json")
    assert status == 0
    document = json.loads(out)
    assert set(document) == {"call", "method", "params", "formula", "selected", "n", "n_dropped",
                             "classes", "scores"}
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
    assert set(rows[0]) == {"feature"} | set(expected.scores.columns)
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


@pytest.mark.parametrize("argv", [
    [],
    ["frobnicate"],
    ["select", "class ~ ."],                                   # --data missing
    ["select", "class ~ .", "--data", "wine", "-k", "two"],
    ["select", "class ~ .", "--data", "wine", "--format", "xml"],
    ["select", "class ~ .", "--data", "wine", "--na-action", "keep"],
], ids=["no command", "unknown command", "no data", "k not int", "bad format", "bad na-action"])
def test_usage_errors_end_with_the_error_line(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert err.splitlines()[-1].startswith("fstools: error: ")
    assert "Traceback" not in err


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
    env = dict(os.environ)
    # The same fstools this test imported (installed, or built in place in the source tree).
    package_parent = str(Path(fs.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([package_parent] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["MPLBACKEND"] = "Agg"
    # Run outside the source tree: 'python -m' puts the working directory first on
    # sys.path, where an uncompiled checkout would shadow the installed package.
    return subprocess.run([sys.executable, "-m", "fstools.cli", *map(str, argv)], capture_output=True,
                          text=True, env=env, timeout=300, cwd=tempfile.gettempdir())


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

"""``fstools stabsel``, ``fstools knockoff``, ``fstools boruta``: each prints what the call's result shows."""
import json

import numpy as np
import pandas as pd
import pytest

import fstools as fs
from cli_helpers import assert_one_error_line, run


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.fixture(scope="module")
def linear_csv(tmp_path_factory):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.standard_normal((200, 12)), columns=[f"x{j}" for j in range(12)])
    frame["y"] = 1.5 * frame["x0"] - 1.5 * frame["x1"] + frame["x2"] + rng.standard_normal(200)
    path = tmp_path_factory.mktemp("data") / "linear.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_stabsel_text_is_the_summary(capsys, wine):
    status, out, err = run(capsys, "stabsel", "class ~ .", "--data", "wine", "--method", "fisher", "-q", 4,
                           "--cutoff", 0.8, "-B", 10, "--random-state", 0)
    assert status == 0, err
    expected = fs.stability_selection("class ~ .", wine, "fisher", q=4, cutoff=0.8, B=10, random_state=0)
    assert out.strip() == str(expected.summary()).strip()


def test_stabsel_json_and_csv(capsys, wine):
    arguments = ["stabsel", "class ~ .", "--data", "wine", "--method", "mim", "-q", 3, "--pfer", 1, "-B", 8,
                 "--random-state", 1]
    status, out, _ = run(capsys, *arguments, "--format", "json")
    assert status == 0
    document = json.loads(out)
    expected = fs.stability_selection("class ~ .", wine, "mim", q=3, pfer=1, B=8, random_state=1)
    assert document["selected"] == expected.selected
    assert document["pfer"] == pytest.approx(expected.pfer)
    assert {row["feature"]: row["probability"] for row in document["features"]} == pytest.approx(
        expected.probabilities.to_dict())
    status, out, _ = run(capsys, *arguments, "--format", "csv")
    table = pd.read_csv(pd.io.common.StringIO(out))
    assert list(table.columns) == ["feature", "probability", "selected"]
    assert table["probability"].tolist() == pytest.approx(expected.summary_frame()["probability"].tolist())


def test_stabsel_bad_q_is_one_line(capsys):
    status, _, err = run(capsys, "stabsel", "class ~ .", "--data", "wine", "--method", "fisher", "-q", 13,
                         "--cutoff", 0.8)
    assert status == 2
    assert_one_error_line(err)
    assert "q:" in err


def test_knockoff_on_a_csv(capsys, linear_csv):
    path, frame = linear_csv
    status, out, err = run(capsys, "knockoff", "y ~ .", "--data", path, "--method", "f_test", "--fdr", 0.34,
                           "--random-state", 2, "--format", "json")
    assert status == 0, err
    document = json.loads(out)
    expected = fs.knockoff_filter("y ~ .", frame, "f_test", fdr=0.34, random_state=2)
    assert document["selected"] == expected.selected
    assert set(document["selected"]) >= {"x0", "x1", "x2"}


def test_knockoff_derandomised_by_frequency(capsys, linear_csv):
    path, frame = linear_csv
    status, out, err = run(capsys, "knockoff", "y ~ .", "--data", path, "--method", "f_test", "--n-draws", 6,
                           "--derandomize", "frequency", "--pfer", 2, "--eta", 0.6, "--random-state", 1,
                           "--format", "json")
    assert status == 0, err
    document = json.loads(out)
    expected = fs.knockoff_filter("y ~ .", frame, "f_test", n_draws=6, derandomize="frequency", pfer=2, eta=0.6,
                                  random_state=1)
    assert document["selected"] == expected.selected
    assert document["draw_v"] == expected.draw_v and document["pfer"] == 2


def test_knockoff_fixed_needs_rows(capsys, wine):
    status, _, err = run(capsys, "knockoff", "class ~ .", "--data", "wine", "--knockoffs", "fixed",
                         "--method", "f_test", "--fdr", 1.5)
    assert status == 2
    assert_one_error_line(err)
    assert "fdr" in err


def test_boruta_text_and_plot(capsys, wine, tmp_path):
    plot = tmp_path / "boruta.png"
    status, out, err = run(capsys, "boruta", "class ~ .", "--data", "wine", "--importance", "f_test",
                           "--random-state", 0, "--plot", plot)
    assert status == 0, err
    expected = fs.boruta("class ~ .", wine, "f_test", random_state=0)
    assert "Boruta feature selection" in out
    for term in expected.selected:
        assert term in out
    assert plot.stat().st_size > 1000


def test_boruta_json(capsys, wine):
    status, out, _ = run(capsys, "boruta", "class ~ .", "--data", "wine", "--importance", "mim", "--random-state",
                         0, "--format", "json")
    assert status == 0
    document = json.loads(out)
    expected = fs.boruta("class ~ .", wine, "mim", random_state=0)
    assert document["selected"] == expected.selected
    assert document["runs"] == expected.runs


def test_methods_lists_the_procedures(capsys):
    status, out, _ = run(capsys, "methods")
    assert status == 0
    for name in ("stability_selection", "knockoff_filter", "boruta"):
        assert name in out
    table = fs.list_procedures()
    assert list(table["name"]) == ["stability_selection", "knockoff_filter", "boruta"]
    # Every supervised single-response method is listed as usable; multi-label and unsupervised are not.
    methods = table.loc[0, "methods"].split(", ")
    assert "mrmr" in methods and "fisher" in methods
    assert "laplacian" not in methods and "elc" not in methods

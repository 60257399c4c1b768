"""``na_action='level'``: the information methods keep incomplete rows, a missing predictor value
being a level of its own.

The reference is scikit-learn's ``mutual_info_score`` on the codes of the observed values (the
mu/sigma scheme by hand, ``tests/references/information.py``) with the missing entries given one
more code; never the code under test.
"""
import io
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mutual_info_score

import fstools as fs
from references.information import information_codes_ref

INFORMATION = ["mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim"]


def _with_missing(seed=0, n=300):
    """A numeric column and a factor with missing values, a complete numeric column, a class response
    with two missing entries."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "white"], size=n).astype(object)
    y = np.where(np.isin(colour, ["red", "green"]) ^ (rng.random(n) < 0.1), "p", "q").astype(object)
    x1 = rng.normal(size=n) + (y == "p")
    x1[rng.random(n) < 0.2] = np.nan
    colour[rng.random(n) < 0.1] = None
    y[[5, 17]] = None
    return pd.DataFrame({"x1": x1, "colour": colour, "x2": rng.normal(size=n), "y": y})


def _codes_with_missing_level(values):
    """mu/sigma codes of the observed values (by hand), missing as one more code."""
    values = np.asarray(values, dtype=float)
    observed = ~np.isnan(values)
    codes = np.full(values.size, 9)   # the nine mu/sigma levels are 0..8
    codes[observed] = information_codes_ref(values[observed][:, None])[0]
    return codes


def test_mim_of_a_column_with_missing_values_is_the_information_of_its_codes_with_a_missing_level():
    df = _with_missing()
    res = fs.select("y ~ .", df, method="mim", na_action="level")
    kept = df[df["y"].notna()]
    assert res.n == len(kept) and res.n_dropped == 2          # only the rows without a response
    codes = _codes_with_missing_level(kept["x1"])
    assert res.scores.loc["x1", "score"] == pytest.approx(mutual_info_score(codes, kept["y"]), rel=1e-12)
    colour = kept["colour"].fillna("<missing>")
    assert res.scores.loc["colour", "score"] == pytest.approx(mutual_info_score(colour, kept["y"]), rel=1e-12)
    complete = information_codes_ref(kept[["x2"]].to_numpy())[0]
    assert res.scores.loc["x2", "score"] == pytest.approx(mutual_info_score(complete, kept["y"]), rel=1e-12)
    assert any("missing values in 2 column(s): 'x1' (" in note for note in res.notes)


def test_the_numeric_path_keeps_missing_values_too():
    df = _with_missing(1).drop(columns="colour")
    res = fs.select("y ~ .", df, method="mim", na_action="level")
    kept = df[df["y"].notna()]
    codes = _codes_with_missing_level(kept["x1"])
    assert res.scores.loc["x1", "score"] == pytest.approx(mutual_info_score(codes, kept["y"]), rel=1e-12)
    dropped = fs.select("y ~ .", df, method="mim")
    assert dropped.n == kept["x1"].notna().sum() < res.n


@pytest.mark.parametrize("method", INFORMATION)
def test_every_information_method_takes_it_and_the_data_is_not_modified(method):
    df = _with_missing(2)
    before = df.copy()
    res = fs.select("y ~ .", df, method=method, k=2, na_action="level")
    pd.testing.assert_frame_equal(df, before)
    assert res.selected[0] == "colour"
    assert "na_action='level'" in res.call
    again = pickle.loads(pickle.dumps(res))
    pd.testing.assert_frame_equal(again.scores, res.scores)
    assert again.n == res.n
    str(res.summary())


def test_the_default_still_drops_and_counts_the_incomplete_rows():
    df = _with_missing(3)
    res = fs.select("y ~ .", df, method="mim")
    assert res.n_dropped == int(df.isna().any(axis=1).sum())


def test_methods_that_cannot_use_it_refuse_it_naming_those_that_can():
    df = _with_missing(4)
    with pytest.raises(ValueError, match=r"na_action: method 'fisher' takes 'drop', 'raise'; na_action='level' is "
                                         r"taken by cmim, jmi, mifs, mifs_u, mim, mrmr"):
        fs.select("y ~ .", df, method="fisher", na_action="level")
    with pytest.raises(ValueError, match=r"na_action: must be one of 'drop', 'raise', 'level', 'pass'; got 'levels'"):
        fs.select("y ~ .", df, method="mim", na_action="levels")
    with pytest.raises(ValueError, match="estimator='knn' takes 'drop' or 'raise'"):
        fs.select("y ~ .", df, method="mim", estimator="knn", na_action="level")
    with pytest.raises(ValueError, match="na_action: compare takes 'drop' or 'raise'"):
        fs.compare("y ~ .", df, methods=["mim"], na_action="level", progress=False)
    with pytest.raises(ValueError, match="na_action: method 'relieff' takes"):
        fs.stability("y ~ .", df, "relieff", k=1, na_action="level", progress=False)


def test_too_many_bins_for_a_missing_level_is_refused_naming_the_column():
    df = _with_missing(5)
    with pytest.raises(ValueError, match=r"column 'x1' would have 33 levels with missing as one"):
        fs.select("y ~ .", df, method="mim", discretization="equal_width", n_bins=32, na_action="level")


def test_a_categorical_column_with_the_missing_level_name_is_refused():
    df = _with_missing(6)
    df.loc[0, "colour"] = "<NA>"
    with pytest.raises(ValueError, match="column 'colour' already has a level '<NA>'"):
        fs.select("y ~ .", df, method="mim", na_action="level")


def test_a_permutation_test_and_stability_run_on_the_same_codes():
    df = _with_missing(7, n=120)
    res = fs.select("y ~ .", df, method="mim", na_action="level", test="permutation", n_permutations=19,
                    permutation_seed=0)
    assert res.scores["p_perm"].between(1 / 20, 1).all()
    assert res.scores.loc["colour", "p_perm"] == pytest.approx(1 / 20)
    result = fs.stability("y ~ .", df, "mim", k=1, n_bootstrap=5, random_state=0, na_action="level",
                          progress=False)
    assert result.full_selection == ["colour"] and result.n == len(df) - 2


def test_the_command_line_takes_it(capsys, tmp_path):
    from cli_helpers import assert_one_error_line, run

    df = _with_missing(8)
    path = tmp_path / "missing.csv"
    df.to_csv(path, index=False)
    status, out, err = run(capsys, "select", "y ~ .", "--data", path, "--method", "mim", "--na-action", "level",
                           "--format", "csv")
    assert status == 0
    table = pd.read_csv(io.StringIO(out)).set_index("feature")
    expected = fs.select("y ~ .", pd.read_csv(path), method="mim", na_action="level")
    np.testing.assert_allclose(table.loc[expected.scores.index, "score"], expected.scores["score"], rtol=1e-12)
    status, _, err = run(capsys, "select", "y ~ .", "--data", path, "--method", "fisher", "--na-action", "level")
    assert status != 0
    assert_one_error_line(err)
    assert "na_action='level' is taken by cmim, jmi, mifs, mifs_u, mim, mrmr" in err


def test_numbers_read_as_a_factor_get_the_missing_level_too():
    rng = np.random.default_rng(9)
    grade = rng.integers(0, 3, size=150).astype(float)
    grade[:8] = np.nan
    df = pd.DataFrame({"grade": grade, "x": rng.normal(size=150), "y": rng.choice(["a", "b"], size=150)})
    res = fs.select("y ~ factor(grade) + x", df, method="mim", na_action="level")
    expected = mutual_info_score(df["grade"].fillna(-1), df["y"])
    assert res.scores.loc["grade", "score"] == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="column 'grade' has missing values and is read both as numbers and as "
                                         "a factor"):
        fs.select("y ~ factor(grade) + grade", df, method="mim", na_action="level")


@pytest.mark.parametrize("method", ["mim", "mrmr"])
def test_the_notes_count_a_continuous_column_with_missing_values_as_continuous(method):
    # x1 and x2 are normal draws (continuous), x1 with missing values; colour a factor (its codes are
    # discrete) with missing values; an integer column with missing values stays discrete
    df = _with_missing(10)
    df["count"] = np.where(np.arange(len(df)) % 7 == 0, np.nan, np.arange(len(df)) % 4)
    res = fs.select("y ~ .", df, method=method, k=2, na_action="level")
    notes = res.summary().notes
    discretisation = [note for note in notes if note.startswith("discretisation:")]
    assert len(discretisation) == 1
    assert ("for 2 continuous columns (1 of them on their observed values, missing as one more level: "
            "na_action='level'); 2 discrete columns") in discretisation[0]
    # one note says that missing values are a level (the model frame's, naming the columns and counts)
    assert sum("a level of" in note for note in notes) == 1
    assert sum("rows with missing predictor values kept" in note for note in notes) == 1


def test_the_discretisation_note_refuses_a_mask_of_another_shape():
    from fstools.methods.information import mrmr

    rng = np.random.default_rng(11)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(np.int32)
    note = mrmr(X, y, k=2, na_level_discretised=np.array([False, True, False])).notes
    assert any("for 3 continuous columns; 0 discrete" in line for line in note)  # a discretised column stays one
    codes = np.column_stack([X[:, :2], rng.integers(0, 9, 60)]).astype(float)   # column 2: codes of a cut column
    note = mrmr(codes, y, k=2, na_level_discretised=np.array([False, False, True])).notes
    assert any("for 3 continuous columns (1 of them on their observed values" in line for line in note)
    with pytest.raises(ValueError, match=r"^na_level_discretised: must be a boolean array with one entry per "
                                         r"column of X \(3\)"):
        mrmr(X, y, k=2, na_level_discretised=np.array([True, False]))

"""Numbers that arrive as objects are numbers; identifier-like columns warn.

Expected values come from the same data given as float columns (the reference), never from
the conversion under test.
"""
import decimal
import warnings

import numpy as np
import pandas as pd
import pytest

import fstools as fs
from fstools.model.columns import numbers_from_objects, stray_entries


def _frame(seed=0, n=150):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    z = rng.normal(size=n)
    y = np.where(x + rng.normal(scale=0.7, size=n) > 0, "yes", "no")
    return pd.DataFrame({"x": np.round(x, 4), "z": np.round(z, 4), "y": y})


def test_decimal_columns_score_as_the_numbers_they_hold():
    floats = _frame()
    decimals = floats.assign(x=[decimal.Decimal(f"{v:.4f}") for v in floats["x"]])
    kept = decimals.copy()
    reference = fs.select("y ~ .", floats, method="fisher")
    result = fs.select("y ~ .", decimals, method="fisher")
    pd.testing.assert_frame_equal(result.scores, reference.scores)
    assert "column 'x': Decimal values read as numbers" in result.notes
    assert "column 'x': Decimal values read as numbers" in str(result.summary())
    pd.testing.assert_frame_equal(decimals, kept)  # the user's frame is not modified


@pytest.mark.parametrize("dtype", [object, "string"])
def test_numeric_strings_are_numbers(dtype):
    floats = _frame(1)
    strings = floats.assign(x=floats["x"].map(lambda v: f"{v:.4f}").astype(dtype))
    reference = fs.select("y ~ .", floats, method="mim")
    result = fs.select("y ~ .", strings, method="mim")
    pd.testing.assert_frame_equal(result.scores, reference.scores)
    # C() keeps them a factor when that is what the user means
    factor = fs.select("y ~ C(x) + z", strings, method="mim")
    assert factor.scores.loc["x", "score"] != pytest.approx(reference.scores.loc["x", "score"])


def test_a_stray_question_mark_is_refused_naming_the_column_and_entry_or_declared_missing():
    floats = _frame(2)
    text = floats.assign(x=floats["x"].map(lambda v: f"{v:.4f}").astype(object))
    text.loc[[5, 9], "x"] = "?"
    with pytest.raises(ValueError, match=r"data: column 'x' holds numbers except for 2 entries '\?'; declare "
                                         r"them missing with na_values=\['\?'\]"):
        fs.select("y ~ .", text, method="fisher")
    result = fs.select("y ~ .", text, method="fisher", na_values=["?"])
    reference = fs.select("y ~ .", floats.drop(index=[5, 9]), method="fisher")
    assert result.n_dropped == 2
    pd.testing.assert_frame_equal(result.scores, reference.scores)
    assert "na_values=['?']" in result.call


def test_integers_held_as_objects_are_numbers():
    floats = _frame(3)
    objects = floats.assign(z=pd.Series([int(round(v * 100)) for v in floats["z"]], dtype=object))
    reference = floats.assign(z=[float(round(v * 100)) for v in floats["z"]])
    pd.testing.assert_frame_equal(fs.select("y ~ .", objects, method="fisher").scores,
                                  fs.select("y ~ .", reference, method="fisher").scores)


def test_an_identifier_predictor_warns_once():
    df = _frame(4).assign(id=lambda d: [f"r{i}" for i in range(len(d))])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fs.select("y ~ .", df, method="mim", k=1)
    messages = [str(w.message) for w in caught if "identifier" in str(w.message)]
    assert messages == ["data: column 'id' has 150 levels in 150 rows: it looks like an identifier, not a "
                        "predictor (remove it with '- id' in the formula)"]
    assert [w.filename for w in caught if "identifier" in str(w.message)] == [__file__]


@pytest.mark.parametrize("values, expected", [
    (["1", "2.5", None], [1.0, 2.5, np.nan]),
    ([decimal.Decimal("1.5"), 2, None], [1.5, 2.0, np.nan]),
    (["a", "1"], None),
    ([True, 1.0], None),
])
def test_numbers_from_objects(values, expected):
    got = numbers_from_objects(pd.Series(values, dtype=object))
    if expected is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got.to_numpy(), np.array(expected))


def test_stray_entries_only_for_a_few_distinct_entries_in_numbers():
    assert stray_entries(pd.Series(["1", "2", "3"] * 20 + ["?"] * 3, dtype=object)) == ["?"]
    assert stray_entries(pd.Series(["1", "2", "?"] * 20, dtype=object)) == []  # a third of the rows: not stray
    assert stray_entries(pd.Series(["red", "green", "1"], dtype=object)) == []
    assert stray_entries(pd.Series([str(i) for i in range(50)] + [f"x{i}" for i in range(6)], dtype=object)) == []


@pytest.mark.parametrize("formula, k", [("y ~ .", 2), ("y ~ x + z + I(z**2)", 3)])
def test_transform_reads_new_data_as_the_fit_did(formula, k):
    """res.transform gives the numbers the fit used (a Decimal or text column of numbers), equal to
    those of the same data as floats; a text factor stays text."""
    floats = _frame(3)
    decimals = floats.assign(x=[decimal.Decimal(f"{v:.4f}") for v in floats["x"]],
                             z=floats["z"].map(lambda v: f"{v:.4f}").astype(object))
    decimals.loc[4, "z"] = "?"
    expected_z = floats["z"].head(8).where(floats.index[:8] != 4)
    result = fs.select(formula, decimals, method="fisher", k=k, na_values=["?"])
    new = decimals.head(8)
    out = result.transform(new)
    np.testing.assert_array_equal(out["x"].to_numpy(dtype=float), floats["x"].head(8).to_numpy())
    np.testing.assert_array_equal(out["z"].to_numpy(dtype=float), expected_z.to_numpy())
    assert out["x"].dtype == np.float64
    if k == 3:  # a computed term reads the column as numbers too
        np.testing.assert_allclose(out["I(z ** 2)"].to_numpy(), expected_z.to_numpy() ** 2)
    pd.testing.assert_frame_equal(new, decimals.head(8))          # the new data are not modified
    with_factor = floats.assign(g=np.where(floats["x"] > 0, "up", "down"))
    res = fs.select("y ~ x + g", with_factor, method="fisher", k=2)
    assert res.transform(with_factor.head(3))["g"].tolist() == with_factor["g"].head(3).tolist()


@pytest.mark.parametrize("entries", [["?"], ["n/a", "-", "?"], ["red"] * 5])
def test_transform_refuses_new_entries_that_are_not_numbers(entries):
    """A column the selection read as numbers must be numbers in new data: entries that are not
    (however many) are refused naming the column and the entries, never left as text."""
    floats = _frame(3)
    texts = floats.assign(z=floats["z"].map(lambda v: f"{v:.4f}").astype(object))
    result = fs.select("y ~ .", texts, method="fisher", k=2)
    new = texts.head(8).copy()
    new.loc[: len(entries) - 1, "z"] = entries  # from one entry in eight to five of eight
    before = new.copy()
    distinct = list(dict.fromkeys(entries))
    with pytest.raises(ValueError, match="column 'z' was read as numbers") as error:
        result.transform(new)
    for entry in distinct:
        assert repr(entry) in str(error.value)
    pd.testing.assert_frame_equal(new, before)
    # an entry that means missing to the selection (na_values) is a missing value, not refused
    declared = fs.select("y ~ .", texts, method="fisher", k=2, na_values=distinct)
    out = declared.transform(new)
    assert out["z"].dtype == np.float64 and out["z"].isna().sum() == len(entries)
    # every entry missing: numbers (NaN), not text
    empty = texts.head(3).assign(z=pd.Series([None] * 3, dtype=object))
    assert result.transform(empty)["z"].dtype == np.float64

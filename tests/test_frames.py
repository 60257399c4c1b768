"""Any data frame in: polars and Arrow frames give what the same data as pandas give.

fstools.model.frames.as_data_frame reads a polars DataFrame / LazyFrame, a pyarrow Table or
RecordBatch and any Arrow PyCapsule stream into pandas; every front door calls it.  The
reference is a pandas frame built by hand from the same values (as a pandas user has them), not
the conversion under test."""
import json
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import fstools as fs
from fstools.model.frames import as_data_frame, qualified_type

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")


def _columns(n=240, seed=0):
    """Python values of every kind: float with missing values, int, int with missing values,
    bool, string, categorical (an order of its own), and a class response."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n)
    b = rng.standard_normal(n)
    colour = rng.choice(["red", "green", "blue"], n)
    count = rng.integers(0, 6, n)
    flag = rng.random(n) < 0.4
    word = rng.choice(["u", "v", "w"], n)
    a_missing = [None if i % 17 == 3 else float(value) for i, value in enumerate(a)]
    count_missing = [None if i % 23 == 5 else int(value) for i, value in enumerate(count)]
    label = np.where(b + (colour == "red") + 0.5 * flag > 0.6, "yes", "no")
    return dict(a=a_missing, b=b.tolist(), count=count.tolist(), count_missing=count_missing, flag=flag.tolist(),
                word=word.tolist(), colour=colour.tolist(), label=label.tolist())


def _pandas(values):
    frame = pd.DataFrame({
        "a": pd.Series([np.nan if v is None else v for v in values["a"]], dtype="float64"),
        "b": values["b"], "count": values["count"],
        "count_missing": pd.Series([np.nan if v is None else v for v in values["count_missing"]], dtype="float64"),
        "flag": values["flag"], "word": pd.Series(values["word"], dtype=object),
        "colour": pd.Categorical(values["colour"], categories=["red", "green", "blue"]),
        "label": pd.Series(values["label"], dtype=object)})
    return frame


def _polars(values):
    return pl.DataFrame({"a": values["a"], "b": values["b"], "count": values["count"],
                         "count_missing": values["count_missing"], "flag": values["flag"], "word": values["word"],
                         "colour": pl.Series(values["colour"], dtype=pl.Enum(["red", "green", "blue"])),
                         "label": values["label"]})


class _Stream:
    """An object that offers only the Arrow PyCapsule stream (as DuckDB relations and others do)."""

    def __init__(self, table):
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


@pytest.fixture(scope="module")
def frames():
    values = _columns()
    polars_frame = _polars(values)
    table = polars_frame.to_arrow()
    return {"pandas": _pandas(values), "polars": polars_frame, "arrow": table,
            "batch": table.to_batches()[0] if table.num_rows else None, "stream": _Stream(table)}


@pytest.mark.parametrize("kind", ["polars", "arrow", "batch", "stream"])
@pytest.mark.parametrize("method", ["mim", "fisher", "cmqfs"])
def test_select_equals_the_pandas_frame(frames, kind, method):
    reference = fs.select("label ~ .", frames["pandas"], method=method, k=4)
    ours = fs.select("label ~ .", frames[kind], method=method, k=4)
    assert ours.selected == reference.selected
    pd.testing.assert_frame_equal(ours.scores, reference.scores)
    assert str(ours.summary()) == str(reference.summary())
    assert ours.notes == reference.notes


def test_the_frame_types_as_pandas_holds_them(frames):
    converted = as_data_frame(frames["polars"])
    assert isinstance(converted.dtypes["colour"], pd.CategoricalDtype)
    assert list(converted["colour"].cat.categories) == ["red", "green", "blue"]   # the Enum's order
    assert converted["count_missing"].dtype == np.float64 and converted["count_missing"].isna().sum() > 0
    assert converted["flag"].dtype == bool
    assert as_data_frame(frames["pandas"]) is frames["pandas"]


def test_a_lazy_frame_is_collected_with_a_warning(frames):
    with pytest.warns(UserWarning, match="LazyFrame; collected"):
        ours = fs.select("label ~ .", frames["polars"].lazy(), method="mim", k=3)
    assert ours.selected == fs.select("label ~ .", frames["pandas"], method="mim", k=3).selected


@pytest.mark.parametrize("value, shown", [([1, 2], "list"), (np.zeros((3, 2)), "numpy.ndarray"),
                                          ("polars_series", "polars.Series")])
def test_an_unsupported_object_is_named_with_its_module(value, shown):
    if isinstance(value, str):
        value = pl.Series("x", [1.0, 2.0])
    with pytest.raises(TypeError, match=rf"data: must be a pandas DataFrame, a polars DataFrame.*got {shown}$"):
        fs.select("y ~ .", value, method="mim")
    assert qualified_type(pd.DataFrame()) == "pandas.DataFrame"


def test_without_pyarrow_the_error_says_how_to_install_it(frames, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)   # import pyarrow then fails
    with pytest.raises(TypeError, match=r"polars\.DataFrame is read through Arrow.*pip install pyarrow"):
        fs.select("label ~ .", frames["polars"], method="mim")


def test_every_front_door_takes_a_polars_frame(frames):
    polars_frame, pandas_frame = frames["polars"], frames["pandas"]
    numeric = ["a", "b", "count", "label"]
    small_polars, small_pandas = polars_frame.select(numeric).drop_nulls(), pandas_frame[numeric].dropna()
    pairs = [
        lambda data: fs.stability("label ~ .", data, "fisher", k=2, n_bootstrap=5, random_state=0).frequency,
        lambda data: fs.stability_selection("label ~ .", data, "fisher", q=2, cutoff=0.9, B=5,
                                            random_state=0).probabilities,
        lambda data: fs.knockoff_filter("label ~ .", data, "f_test", fdr=0.5, random_state=0).W,
        lambda data: fs.boruta("label ~ .", data, importance="f_test", max_runs=11, random_state=0).decision,
        lambda data: fs.compare("label ~ .", data, ["fisher"], k=[1, 2], cv=3, repeats=1, random_state=0,
                                progress=False).results,
    ]
    for run in pairs:
        ours, reference = run(small_polars), run(small_pandas)
        if isinstance(reference, pd.DataFrame):
            pd.testing.assert_frame_equal(ours, reference)
        else:
            pd.testing.assert_series_equal(ours, reference)


def test_the_transformer_returns_the_kind_of_frame_it_was_given(frames):
    numeric = ["a", "b", "count"]
    X_pandas = frames["pandas"][numeric].fillna(0.0)
    X_polars = frames["polars"].select(numeric).fill_null(0.0)
    y = frames["pandas"]["label"]
    for X, kind in ((X_pandas, pd.DataFrame), (X_polars, pl.DataFrame), (X_polars.to_arrow(), pa.Table)):
        selector = fs.FeatureSelector(method="fisher", k=2).fit(X, y)
        out = selector.transform(X)
        assert isinstance(out, kind)
        assert list(out.columns if kind is not pa.Table else out.column_names) == list(selector.get_feature_names_out())
    array_selector = fs.FeatureSelector(method="fisher", k=2).fit(X_pandas.to_numpy(), y)
    np.testing.assert_array_equal(array_selector.transform(X_pandas.to_numpy()),
                                  X_pandas.to_numpy()[:, array_selector.get_support()])   # an array stays one
    selector = fs.FeatureSelector(method="fisher", k=2).set_output(transform="polars").fit(X_pandas, y)
    assert isinstance(selector.transform(X_pandas), pl.DataFrame)
    selector = fs.FeatureSelector(method="fisher", k=2).set_output(transform="pandas").fit(X_polars, y)
    assert isinstance(selector.transform(X_polars), pd.DataFrame)


def test_the_online_selector_keeps_a_polars_frames_names(frames):
    X = frames["polars"].select(["a", "b", "count"]).fill_null(0.0)
    y = np.where(frames["pandas"]["label"] == "yes", 1, -1)
    selector = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X, y)
    assert list(selector.feature_names_in_) == ["a", "b", "count"]
    reference = fs.OnlineSelector(method="mbpa", n_features=2).partial_fit(X.to_pandas(), y)
    np.testing.assert_array_equal(selector.coef_, reference.coef_)


@pytest.mark.parametrize("writer", ["parquet", "feather", "feather_v1", "ipc_stream"])
def test_the_command_line_reads_arrow_files(tmp_path, writer, capsys, monkeypatch):
    import io

    import pyarrow.feather
    import pyarrow.ipc
    import pyarrow.parquet

    from cli_helpers import run

    wine = fs.datasets.load("wine")
    table = pa.Table.from_pandas(wine, preserve_index=False)
    path = tmp_path / f"wine.{writer}"
    if writer == "parquet":
        pyarrow.parquet.write_table(table, path)
    elif writer == "feather":
        pyarrow.feather.write_feather(table, path)
    elif writer == "feather_v1":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            pyarrow.feather.write_feather(wine, path, version=1)
    else:
        with pa.OSFile(str(path), "wb") as sink, pyarrow.ipc.new_stream(sink, table.schema) as stream:
            stream.write_table(table)
    expected = fs.select("class ~ .", wine, method="mim", k=3).selected
    status, out, err = run(capsys, "select", "class ~ .", "--data", path, "--method", "mim", "-k", 3,
                           "--format", "json")
    assert status == 0, err
    assert json.loads(out)["selected"] == expected
    # the same bytes on standard input
    stdin = io.TextIOWrapper(io.BytesIO(path.read_bytes()))
    monkeypatch.setattr(sys, "stdin", stdin)
    status, out, err = run(capsys, "select", "class ~ .", "--data", "-", "--method", "mim", "-k", 3,
                           "--format", "json")
    assert status == 0, err
    assert json.loads(out)["selected"] == expected


def test_a_damaged_parquet_file_is_a_clear_error(tmp_path, capsys):
    from fstools.cli import main

    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1 not really")
    assert main(["select", "y ~ .", "--data", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cannot read file" in err and "as Parquet" in err

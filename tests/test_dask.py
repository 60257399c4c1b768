"""Dask: joblib's "dask" backend on a real LocalCluster, and out-of-core dask input.

(1) ``with joblib.parallel_backend("dask"):`` fs.select (cmqfs, fisher, mim) and fs.compare run
their per-feature blocks / folds on the cluster's worker processes, with results equal to the
local ones.  (2) dask arrays / DataFrames with several partitions: fisher, mim and
cmqfs-relevance equal the in-memory methods on ``.compute()`` of the same data (the in-memory
methods are checked against the references in tests/references/ elsewhere); the partition
statistics are merged by Chan's update, checked here against NumPy on the whole data.
"""
import os
import warnings

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
joblib = pytest.importorskip("joblib")

import fstools as fs  # noqa: E402
from fstools.api import dask_input as out_of_core  # noqa: E402


def _frame(n=150, d=10, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    X[:, 2] = np.round(X[:, 2] * 2)  # an integer column with few values (mim uses it as it is)
    y = (X[:, 0] + 0.5 * X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int) + (X[:, 1] > 1)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(d)])
    frame["y"] = np.array(["a", "b", "c"])[y]
    return frame


# --------------------------------------------------------------------------- (1) LocalCluster
@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None, silence_logs=40)
    with distributed.Client(cluster) as dask_client:
        yield dask_client
    cluster.close()


def _ran_on_workers(stream, client, function_name):
    """Workers (addresses) that ran joblib batches of ``function_name``; they are the cluster's worker processes."""
    workers = {task["worker"] for task in stream.data if f"batch_of_{function_name}" in str(task["key"])}
    assert workers, f"no joblib task of {function_name} ran on the cluster"
    assert workers <= set(client.scheduler_info()["workers"])
    return workers


def test_workers_are_other_processes(client):
    pids = client.run(os.getpid)
    assert len(pids) == 2 and os.getpid() not in pids.values()


@pytest.mark.parametrize("method", ["cmqfs", "fisher", "mim"])
def test_select_on_the_cluster_equals_local(client, method):
    data = _frame()
    local = fs.select("y ~ .", data, method=method, k=4)
    with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        remote = fs.select("y ~ .", data, method=method, k=4)
    assert remote.selected == local.selected
    pd.testing.assert_frame_equal(remote.scores, local.scores, check_exact=True)
    # One task per block of columns (one block per worker thread), each on a worker process.
    _ran_on_workers(stream, client, "_score_one_block")
    assert sum("_score_one_block" in str(task["key"]) for task in stream.data) == 2


def test_compare_on_the_cluster_equals_local(client):
    data = _frame(n=90, d=8, seed=1)
    arguments = dict(methods=["fisher", "mim"], k=[1, 2, 3], cv=3, repeats=2, random_state=0, progress=False,
                     select_in_fold=True)
    local = fs.compare("y ~ .", data, **arguments)
    with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        remote = fs.compare("y ~ .", data, **arguments)
    pd.testing.assert_frame_equal(remote.results, local.results, check_exact=True)
    pd.testing.assert_frame_equal(remote.rankings, local.rankings, check_exact=True)
    _ran_on_workers(stream, client, "_evaluate_fold")
    folds_run = sum(int(str(task["key"]).split("_calls")[0].rsplit("_", 1)[1]) for task in stream.data
                    if "batch_of__evaluate_fold" in str(task["key"]))
    assert folds_run == 6  # every (repeat, fold) was a task on the cluster
    # inside a fold the scoring ran in place: no nested per-feature tasks
    assert not any("_score_one_block" in str(task["key"]) for task in stream.data)


def test_stability_selection_on_the_cluster_equals_local(client):
    data = _frame(n=90, d=8, seed=4)
    arguments = dict(q=3, cutoff=0.8, B=5, random_state=0)
    local = fs.stability_selection("y ~ .", data, "mrmr", **arguments)
    with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        remote = fs.stability_selection("y ~ .", data, "mrmr", **arguments)
    pd.testing.assert_frame_equal(remote.selections, local.selections, check_exact=True)
    pd.testing.assert_frame_equal(remote.path, local.path, check_exact=True)
    _ran_on_workers(stream, client, "_half_sample_run")


def test_compare_without_a_context_stays_local(client):
    data = _frame(n=60, d=5, seed=2)
    with distributed.get_task_stream(client) as stream:
        fs.compare("y ~ .", data, methods=["fisher"], k=[1, 2], cv=2, repeats=1, random_state=0, progress=False)
    assert not stream.data


# --------------------------------------------------------------------------- (2) out of core
def _dask_data(n=1200, d=9, chunk=250, seed=3):
    """A generated dask array (several row partitions), its labels, and the same data in memory."""
    X = da.random.RandomState(seed).normal(size=(n, d), chunks=(chunk, 4))
    X = da.concatenate([X[:, :2], da.round(X[:, 2:3] * 2), X[:, 3:4] * 0 + 1.5, X[:, 4:]], axis=1)
    X_memory = X.compute()
    noise = np.random.RandomState(seed).normal(size=n)
    y_memory = np.array(["u", "v", "w"])[(X_memory[:, 0] + X_memory[:, 2] + noise > 0).astype(int)
                                         + (X_memory[:, 1] > 1.2)]
    y = da.from_array(y_memory, chunks=chunk)
    frame = pd.DataFrame(X_memory, columns=[f"x{j}" for j in range(d)])
    frame["y"] = y_memory
    return X, y, frame


def _in_memory(frame, method, k, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the constant column
        return fs.select("y ~ .", frame, method=method, k=k, **params)


def _assert_same_scores(result, reference, tolerance=1e-10):
    assert list(result.scores.index) == list(reference.scores.index)
    assert result.selected == reference.selected
    for column in reference.scores.columns:
        ours = result.scores[column].to_numpy(dtype=np.float64)
        theirs = reference.scores[column].to_numpy(dtype=np.float64)
        if column == "NRI":  # the redundancy term is not computed out of core
            continue
        np.testing.assert_allclose(ours, theirs, rtol=tolerance, atol=tolerance, err_msg=column)


CASES = [("fisher", {}), ("mim", {}), ("cmqfs", {"beta": 1.0})]


@pytest.mark.parametrize("method, params", CASES)
def test_dask_array_equals_in_memory(method, params):
    X, y, frame = _dask_data()
    assert X.numblocks[0] > 3
    with pytest.warns(UserWarning, match="constant column"):
        result = fs.select_dask_array(X, y, method=method, k=5, **params)
    _assert_same_scores(result, _in_memory(frame, method, 5, **params))
    assert result.classes == ["u", "v", "w"]
    assert result.class_counts.tolist() == [int(np.sum(frame["y"] == c)) for c in "uvw"]


@pytest.mark.parametrize("method, params", CASES)
def test_dask_dataframe_through_select_equals_in_memory(method, params):
    _, _, frame = _dask_data(seed=4)
    data = dd.from_pandas(frame, npartitions=5)
    with pytest.warns(UserWarning, match="constant column"):
        result = fs.select("y ~ .", data, method=method, **params)
    assert isinstance(result, fs.OutOfCoreResult)
    _assert_same_scores(result, _in_memory(frame, method, None, **params))
    assert "partition" in str(result.summary())


def test_cmqfs_relevance_in_several_column_blocks(monkeypatch):
    X, y, frame = _dask_data(n=600, seed=5)
    monkeypatch.setattr(out_of_core, "COLUMN_BLOCK_BYTES", 600 * 8 * 2)  # two columns per block
    with pytest.warns(UserWarning):
        result = fs.select_dask_array(X, y, method="cmqfs", beta=1.0)
    assert "5 column block(s)" in " ".join(result.notes)
    _assert_same_scores(result, _in_memory(frame, "cmqfs", None, beta=1.0))


def test_dataframe_formula_subsets_and_missing_rows():
    _, _, frame = _dask_data(n=500, seed=6)
    frame.loc[[3, 77, 401], "x1"] = np.nan
    data = dd.from_pandas(frame, npartitions=3)
    result = fs.select("y ~ x0 + x1 + x5", data, method="fisher")
    reference = fs.select("y ~ x0 + x1 + x5", frame, method="fisher")
    assert result.n_dropped == reference.n_dropped == 3
    _assert_same_scores(result, reference)
    with pytest.raises(ValueError, match="na_action='raise'"):
        fs.select("y ~ .", data, method="fisher", na_action="raise")


def test_chan_merge_equals_numpy_on_the_union():
    rng = np.random.RandomState(7)
    blocks = [rng.normal(loc=1e6, size=(size, 3)) for size in (5, 1, 40, 0, 17)]
    moments = out_of_core._moments(blocks[0])
    for block in blocks[1:]:
        moments = out_of_core._merge_moments(moments, out_of_core._moments(block))
    whole = np.vstack(blocks)
    n, mean, m2, low, high = moments
    assert n == whole.shape[0]
    np.testing.assert_allclose(mean, whole.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(m2 / n, whole.var(axis=0), rtol=1e-9)
    np.testing.assert_array_equal(low, whole.min(axis=0))
    np.testing.assert_array_equal(high, whole.max(axis=0))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_values_are_refused(bad):
    X, y, _ = _dask_data(n=400, seed=8)
    X_memory = X.compute()
    X_memory[350, 4] = bad
    with pytest.raises(ValueError, match=r"X: 1 non-finite value\(s\) \(NaN or inf\) in column\(s\) 4"):
        fs.select_dask_array(da.from_array(X_memory, chunks=(100, 9)), y, method="fisher")


def test_unsupported_methods_and_settings_are_refused():
    X, y, frame = _dask_data(n=300, seed=9)
    with pytest.raises(ValueError, match=r"'mrmr' is not available on dask input.*'fisher', 'mim'.*\.compute\(\)"):
        fs.select_dask_array(X, y, method="mrmr")
    with pytest.raises(ValueError, match=r"beta: .*beta=1\.0"):
        fs.select("y ~ .", dd.from_pandas(frame, npartitions=2), method="cmqfs")
    with pytest.raises(ValueError, match="discretization"):
        fs.select_dask_array(X, y, method="mim", discretization="equal_width", n_bins=4)
    with pytest.raises(ValueError, match="k: must be in 1..9"):
        fs.select_dask_array(X, y, method="fisher", k=10)
    with pytest.raises(ValueError, match="unknown method|allowed"):
        fs.select_dask_array(X, y, method="nonsense")
    with pytest.raises(ValueError, match="y: must be 1-D"):
        fs.select_dask_array(X, y[:10], method="fisher")
    with pytest.raises(ValueError, match="at least two classes"):
        fs.select_dask_array(X, da.zeros(X.shape[0], chunks=100), method="fisher")
    with pytest.raises(fs.FormulaError, match="numeric column"):
        fs.select("y ~ np.log(x0 + 10)", dd.from_pandas(frame, npartitions=2), method="fisher")


def test_missing_labels_are_refused():
    X, y, _ = _dask_data(n=300, seed=10)
    labels = y.compute().astype(object)
    labels[5] = None
    with pytest.raises(ValueError, match="y: has 1 missing value"):
        fs.select_dask_array(X, labels, method="mim")


def _with_missing(seed=8, n=600):
    """Data with missing predictor values: continuous, integer-valued and nearly constant columns."""
    _, _, frame = _dask_data(n=n, seed=seed)
    rng = np.random.RandomState(seed)
    frame["x6"] = rng.randint(0, 4, n).astype(float)                # four integer levels
    frame["x7"] = 2.0                                                # constant where observed
    for column, share in (("x0", 0.05), ("x2", 0.1), ("x6", 0.2), ("x7", 0.3)):
        frame.loc[rng.rand(n) < share, column] = np.nan
    frame.loc[[5, 250], "y"] = None                                  # rows dropped: a missing response
    return frame


def test_missing_values_as_a_level_equal_in_memory():
    frame = _with_missing()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        reference = fs.select("y ~ .", frame, method="mim", na_action="level")
        result = fs.select("y ~ .", dd.from_pandas(frame, npartitions=4), method="mim", na_action="level")
    assert result.n_dropped == reference.n_dropped == 2
    _assert_same_scores(result, reference)
    # the same notes, then the out-of-core one
    assert result.notes[:len(reference.notes)] == reference.notes
    assert "na_action='level'" in result.call


def test_missing_level_refusals_name_the_column():
    frame = _with_missing(seed=9)
    frame["x8"] = np.arange(len(frame)) % 32.0                       # 32 integer levels: no room for missing
    frame.loc[3, "x8"] = np.nan
    data = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError, match="column 'x8' would have 33 levels"):
        fs.select("y ~ .", data, method="mim", na_action="level")
    with pytest.raises(ValueError, match="column 'x8' would have 33 levels"):  # the in-memory message
        fs.select("y ~ .", frame, method="mim", na_action="level")
    empty = frame.drop(columns="x8").assign(x9=np.nan)
    with pytest.raises(ValueError, match="column 'x9' has no observed value"):
        fs.select("y ~ .", dd.from_pandas(empty, npartitions=3), method="mim", na_action="level")
    infinite = frame.drop(columns="x8")
    infinite.loc[7, "x1"] = np.inf
    with pytest.raises(ValueError, match="infinite value"):
        fs.select("y ~ .", dd.from_pandas(infinite, npartitions=3), method="mim", na_action="level")
    with pytest.raises(ValueError, match="method 'fisher' takes 'drop', 'raise'; got 'level'"):
        fs.select("y ~ .", data, method="fisher", na_action="level")


def test_observed_moments_merge_equals_numpy_per_column():
    rng = np.random.RandomState(11)
    X = rng.normal(size=(300, 4)) * [1, 10, 1e3, 0.1] + [0, 5, -7, 1e4]
    X[rng.rand(*X.shape) < 0.2] = np.nan
    X[:, 3] = np.nan
    X[0, 3] = 1.5
    blocks = [X[:50], X[50:51], X[51:51], X[51:200], X[200:]]
    merged = out_of_core._observed_moments(blocks[0])
    for block in blocks[1:]:
        merged = out_of_core._merge_moments(merged, out_of_core._observed_moments(block))
    observed = ~np.isnan(X)
    np.testing.assert_array_equal(merged.count, observed.sum(axis=0))
    np.testing.assert_allclose(merged.mean, np.nanmean(X, axis=0), rtol=1e-12)
    np.testing.assert_allclose(merged.m2, np.nansum((X - np.nanmean(X, axis=0)) ** 2, axis=0), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_array_equal(merged.low, np.nanmin(X, axis=0))
    np.testing.assert_array_equal(merged.high, np.nanmax(X, axis=0))

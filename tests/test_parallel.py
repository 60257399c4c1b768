"""n_jobs -> threads."""
import numpy as np
import pytest

from fstools.core.parallel import available_cores, effective_n_threads


def test_explicit_and_negative_counts():
    cores = available_cores()
    assert effective_n_threads(3) == 3
    assert effective_n_threads(-1) == cores
    assert effective_n_threads(-cores - 5) == 1


def test_none_follows_omp_num_threads(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert effective_n_threads(None) == 1
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert effective_n_threads(None) == available_cores()


def test_none_follows_a_joblib_parallel_config(monkeypatch):
    import joblib

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    with joblib.parallel_config(n_jobs=3):
        assert effective_n_threads(None) == 3     # the joblib context wins over the environment
        assert effective_n_threads(2) == 2        # an explicit n_jobs wins over both
    with joblib.parallel_config(n_jobs=-1):
        assert effective_n_threads(None) == available_cores()
    with joblib.parallel_config(backend="threading"):  # no n_jobs in the context: the environment
        assert effective_n_threads(None) == 1
    assert effective_n_threads(None) == 1


@pytest.mark.parametrize("bad", [0, 1.5, "2", True])
def test_bad_values_name_the_argument(bad):
    with pytest.raises(ValueError, match="n_jobs"):
        effective_n_threads(bad)


def test_small_work_runs_on_one_thread(monkeypatch):
    from fstools.core import parallel as _parallel

    assert effective_n_threads(2) == 2
    assert _parallel.threads_for_work(10, 2) == 1
    assert _parallel.threads_for_work(10 ** 9, 2) == 2
    assert _parallel.threads_for_work(10 ** 6, 2, greedy_step=True) == 1
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_STEP_WORK", 0)
    assert _parallel.threads_for_work(10 ** 6, 2, greedy_step=True) == 2


# --------------------------------------------------------------------------- joblib backends
def _column_sums(X, offset, n_threads=1):
    return X.sum(axis=0) + offset, X.shape[0] * np.ones(X.shape[1])


def _row_maxima(codes, levels, n_threads=1):
    return codes.max(axis=1) * 1000 + levels


def test_score_features_splits_columns_in_order_under_a_joblib_backend(monkeypatch):
    import joblib

    from fstools.core import parallel as _parallel

    X = np.arange(35, dtype=np.float64).reshape(5, 7) ** 1.5
    seen = []
    original = _parallel._score_one_block

    def recording(score_block, X_block, per_feature_blocks, args, n_threads):
        seen.append((X_block.shape[1], n_threads))
        return original(score_block, X_block, per_feature_blocks, args, n_threads)

    monkeypatch.setattr(_parallel, "_score_one_block", recording)
    local = _parallel.score_features(_column_sums, X, 2, 0.5)
    assert seen == [(7, 2)]
    expected = (X.sum(axis=0) + 0.5, np.full(7, 5.0))  # the obvious column sums
    np.testing.assert_array_equal(local[0], expected[0])
    seen.clear()
    with joblib.parallel_backend("threading", n_jobs=3):
        split = _parallel.score_features(_column_sums, X, 2, 0.5)
    assert sorted(seen) == [(2, 1), (2, 1), (3, 1)]  # three blocks, one thread each
    for ours, theirs in zip(split, expected):
        np.testing.assert_array_equal(ours, theirs)


def test_score_features_feature_rows_and_per_feature_arrays():
    import joblib

    from fstools.core.parallel import score_features

    codes = np.random.RandomState(0).randint(0, 9, size=(6, 11)).astype(np.int32)
    levels = np.arange(6, dtype=np.int32)
    with joblib.parallel_config(backend="threading", n_jobs=4):
        split = score_features(_row_maxima, codes, 1, feature_axis=0, per_feature=(levels,))
    np.testing.assert_array_equal(split, codes.max(axis=1) * 1000 + levels)


def test_which_contexts_count_as_a_chosen_backend():
    import joblib
    from joblib import Parallel, delayed

    from fstools.core.parallel import external_backend, local_scoring

    assert external_backend() is None
    with joblib.parallel_config(n_jobs=2):
        assert external_backend() is None  # no backend chosen
    with joblib.parallel_config(backend="sequential"):
        assert external_backend() is None
    with joblib.parallel_backend("threading", n_jobs=2):
        backend, n_jobs = external_backend()
        assert n_jobs == 2
        with local_scoring():
            assert external_backend() is None
        # inside a task joblib is running, the nested backend does not fan out again
        assert Parallel(n_jobs=2)(delayed(external_backend)() for _ in range(2)) == [None, None]


def test_compare_folds_go_through_a_joblib_backend(monkeypatch):
    import importlib
    import threading

    import joblib
    import pandas as pd

    import fstools as fs

    compare_module = importlib.import_module("fstools.evaluation.compare")
    rng = np.random.RandomState(0)
    data = pd.DataFrame(rng.normal(size=(60, 5)), columns=list("abcde"))
    data["y"] = (data["a"] > 0).astype(int)
    arguments = dict(methods=["fisher", "mim"], k=[1, 2], cv=3, repeats=2, random_state=0, progress=False,
                     select_in_fold=True)
    local = fs.compare("y ~ .", data, **arguments)
    threads = []
    original = compare_module._evaluate_fold

    def recording(dataset, task):
        threads.append(threading.current_thread().name)
        return original(dataset, task)

    monkeypatch.setattr(compare_module, "_evaluate_fold", recording)
    with joblib.parallel_backend("threading", n_jobs=2):
        threaded = fs.compare("y ~ .", data, **arguments)
    pd.testing.assert_frame_equal(threaded.results, local.results, check_exact=True)
    assert len(threads) == 6 and "MainThread" not in threads  # every fold a task of joblib's threads

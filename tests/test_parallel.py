"""n_jobs -> threads."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from fstools.core.parallel import available_cores, effective_n_threads
from isolated import subprocess_options


def test_explicit_and_negative_counts():
    cores = available_cores()
    assert effective_n_threads(1) == 1
    assert effective_n_threads(3) == min(3, cores)
    assert effective_n_threads(10 ** 9) == cores      # capped at the usable cores
    assert effective_n_threads(np.int64(10 ** 5)) == cores
    assert effective_n_threads(-1) == cores
    assert effective_n_threads(-2) == max(1, cores - 1)
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
        assert effective_n_threads(None) == min(3, available_cores())  # the joblib context wins
        assert effective_n_threads(1) == 1        # an explicit n_jobs wins over both
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

    assert effective_n_threads(2) == min(2, available_cores())
    assert _parallel.threads_for_work(10, 2) == 1
    assert _parallel.threads_for_work(10 ** 9, 2) == 2
    assert _parallel.threads_for_work(10 ** 6, 2, greedy_step=True) == 1
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_STEP_WORK", 0)
    assert _parallel.threads_for_work(10 ** 6, 2, greedy_step=True) == 2


def test_threads_that_cannot_start_fall_back_with_a_warning(monkeypatch):
    import threading

    from fstools.core import parallel as _parallel

    monkeypatch.setattr(_parallel, "available_cores", lambda: 8)
    monkeypatch.setattr(_parallel, "_started_threads", {"most": 1})
    started = []
    real_start = threading.Thread.start

    def limited_start(self):
        if sum(thread.is_alive() for thread in started) >= 2:  # two helpers at a time
            raise RuntimeError("can't start new thread")
        started.append(self)
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", limited_start)
    with pytest.warns(RuntimeWarning, match="only 3 of 8 threads could be started"):
        assert effective_n_threads(8) == 3
    with pytest.warns(RuntimeWarning):
        assert _parallel.thread_note(100) == "threads: 3 (n_jobs=100 capped at the 8 usable cores)"


def test_thread_note_in_the_result_keeps_the_call_as_typed():
    import fstools as fs
    from fstools.core.parallel import thread_note

    cores = available_cores()
    assert thread_note(None) is None and thread_note(1) is None
    assert thread_note(10 ** 5) == f"threads: {cores} (n_jobs=100000 capped at the {cores} usable cores)"
    assert thread_note(-1) == f"threads: {cores} (n_jobs=-1 counts back from the {cores} usable cores)"
    wine = fs.datasets.load("wine")
    result = fs.select("class ~ .", wine, method="fisher", k=3, n_jobs=100000)
    assert "n_jobs=100000" in result.call
    assert thread_note(10 ** 5) in result.notes
    assert not any(note.startswith("threads:") for note in fs.select("class ~ .", wine, method="fisher",
                                                                      k=3, n_jobs=1).notes)


# Any n_jobs, in a subprocess so that a crash fails the test instead of killing pytest: on data
# that takes the threaded kernel paths (the work thresholds lowered to 0), every value gives the
# result of n_jobs=1.
_ANY_N_JOBS_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import fstools as fs
    from fstools.core import parallel
    parallel.MIN_PARALLEL_WORK = 0
    parallel.MIN_PARALLEL_STEP_WORK = 0
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 20))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=3000) > 0).astype(int)
    values = [int(value) for value in sys.argv[1:]]
    for method in ("mrmr", "cmqfs", "relieff", "laplacian", "fisher", "mbpa"):
        results = [fs.FeatureSelector(method=method, k=3, n_jobs=n_jobs).fit(X, y) for n_jobs in [1] + values]
        for n_jobs, result in zip(values, results[1:]):
            assert list(result.ranking_) == list(results[0].ranking_), (method, n_jobs)
            np.testing.assert_array_equal(result.scores_, results[0].scores_, err_msg=f"{method} {n_jobs}")
    print("ok")
""")


def test_any_n_jobs_runs_and_matches_one_thread():
    done = subprocess.run([sys.executable, "-c", _ANY_N_JOBS_SCRIPT, "100000", "1000", "-1", "-3"],
                          capture_output=True, text=True, timeout=300, **subprocess_options())
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


def test_many_threads_under_a_memory_limit():
    """n_jobs=1000 with an address-space limit: no "Thread creation failed" abort."""
    resource = pytest.importorskip("resource")
    script = _ANY_N_JOBS_SCRIPT.replace('("mrmr", "cmqfs", "relieff", "laplacian", "fisher", "mbpa")',
                                        '("mrmr", "relieff")')
    limit = 3 * 1024 ** 3

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = subprocess.run([sys.executable, "-c", script, "1000"], capture_output=True, text=True,
                          timeout=300, preexec_fn=limit_memory, **subprocess_options())
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Thread creation failed" not in done.stderr


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

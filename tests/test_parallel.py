"""n_jobs -> threads."""
import pytest

from fstools._parallel import available_cores, effective_n_threads


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


@pytest.mark.parametrize("bad", [0, 1.5, "2", True])
def test_bad_values_name_the_argument(bad):
    with pytest.raises(ValueError, match="n_jobs"):
        effective_n_threads(bad)


def test_small_work_runs_on_one_thread(monkeypatch):
    from fstools import _parallel

    assert effective_n_threads(2) == 2
    assert _parallel.threads_for_work(10, 2) == 1
    assert _parallel.threads_for_work(10 ** 9, 2) == 2
    assert _parallel.threads_for_work(10 ** 6, 2, greedy_step=True) == 1
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_STEP_WORK", 0)
    assert _parallel.threads_for_work(10 ** 6, 2, greedy_step=True) == 2

"""How many threads a kernel may use, from ``n_jobs`` (scikit-learn's convention)."""
import os


def available_cores():
    """Cores this process may run on (respects CPU affinity where the OS reports it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def effective_n_threads(n_jobs):
    """Number of threads for ``n_jobs``.

    ``None`` means every available core, unless the environment variable
    ``OMP_NUM_THREADS`` sets fewer (as scikit-learn's OpenMP kernels do);
    a positive integer is taken as is; ``-1`` means all cores and ``-2`` all
    but one, and so on.  Results never depend on the number of threads.
    """
    cores = available_cores()
    if n_jobs is None:
        limit = os.environ.get("OMP_NUM_THREADS", "")
        if limit.isdigit() and int(limit) > 0:
            return min(cores, int(limit))
        return cores
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ValueError(f"n_jobs: must be None, a positive integer, or a negative integer "
                         f"counting back from all cores (-1 = all); got {n_jobs!r}")
    if n_jobs > 0:
        return n_jobs
    return max(1, cores + 1 + n_jobs)


#: Below this much work (samples x features touched by one kernel call) a call
#: runs on one thread: starting and synchronising OpenMP threads costs more than
#: it saves, and on a loaded machine busy-waiting threads slow short parallel
#: regions down.  Results never depend on the number of threads.
MIN_PARALLEL_WORK = 20_000

#: The same for one step of a greedy loop (candidates x samples per step): each
#: step is a short parallel region, worth splitting only when it is large.
MIN_PARALLEL_STEP_WORK = 2_000_000


def threads_for_work(work, n_threads, greedy_step=False):
    """``n_threads``, or 1 when ``work`` is below :data:`MIN_PARALLEL_WORK`
    (:data:`MIN_PARALLEL_STEP_WORK` for one step of a greedy loop).

    The limits are read at call time, so tests can lower them to exercise the
    threaded paths on small data.
    """
    minimum = MIN_PARALLEL_STEP_WORK if greedy_step else MIN_PARALLEL_WORK
    return 1 if work < minimum else int(n_threads)

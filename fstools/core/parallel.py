"""How many threads a kernel may use, from ``n_jobs`` (scikit-learn's convention), and when
per-feature scoring fans out through joblib instead (a joblib backend chosen by the user, such
as ``joblib.parallel_backend("dask")``; see :func:`score_features` and docs/dask.md)."""
import contextlib
import os
import threading

import numpy as np


#: joblib's count of usable cores, per (process, CPU affinity mask, ``LOKY_MAX_CPU_COUNT``):
#: it reads the cgroup quota files on every call, and a selection asks several times.
_joblib_cores = {}


def available_cores():
    """Cores this process may use: CPU affinity, a cgroup CPU quota (containers) and
    ``LOKY_MAX_CPU_COUNT`` are respected (``joblib.cpu_count``), else the affinity mask.

    The affinity mask is read on every call (a process may change it); joblib's count
    is kept per process, affinity mask and ``LOKY_MAX_CPU_COUNT``, so a change of any of
    them is seen at the next call (a cgroup quota changed while the process runs is not).
    """
    if hasattr(os, "sched_getaffinity"):
        mask = frozenset(os.sched_getaffinity(0))
        affinity = len(mask)
    else:  # pragma: no cover - macOS, Windows
        mask = None
        affinity = os.cpu_count() or 1
    key = (os.getpid(), mask, os.environ.get("LOKY_MAX_CPU_COUNT"))
    joblib_cores = _joblib_cores.get(key)
    if joblib_cores is None:
        try:
            from joblib import cpu_count
        except ImportError:  # pragma: no cover - joblib is a dependency
            return max(1, affinity)
        joblib_cores = _joblib_cores[key] = cpu_count()
    return max(1, min(affinity, joblib_cores))


def _joblib_default_n_jobs():
    """``n_jobs`` set by an enclosing ``joblib.parallel_config(n_jobs=...)`` context, else None."""
    try:
        from joblib.parallel import get_active_backend
    except ImportError:  # pragma: no cover - joblib is a dependency
        return None
    _, n_jobs = get_active_backend()
    return n_jobs


def _check_n_jobs(n_jobs, source):
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(f"n_jobs{source}: must be None, a positive integer, or a negative integer "
                         f"counting back from all cores (-1 = all); got {n_jobs!r}")


#: Largest number of threads each probe has started (see :func:`_startable_threads`).
_started_threads = {"most": 1}
_probe_lock = threading.Lock()


def _startable_threads(n_threads):
    """How many of ``n_threads`` threads can run at once (at least 1).

    Starting a thread can fail under a memory limit (``ulimit -v``) or a limit on the number
    of processes; the OpenMP runtime then aborts the whole interpreter ("Thread creation
    failed").  So before a kernel asks for ``n_threads`` threads, ``n_threads - 1`` helper
    threads (with the default stack size the OpenMP runtime also uses) are started here and
    stopped again; when some cannot be started, fewer threads are used, with a
    RuntimeWarning.  A count that once worked is not probed again.
    """
    if n_threads <= _started_threads["most"]:
        return n_threads
    with _probe_lock:
        release = threading.Event()
        helpers = []
        try:
            for _ in range(n_threads - 1):
                helper = threading.Thread(target=release.wait, daemon=True)
                helper.start()
                helpers.append(helper)
        except (RuntimeError, MemoryError):
            pass
        finally:
            release.set()
            for helper in helpers:
                helper.join()
        started = len(helpers) + 1
        if started < n_threads:
            import warnings

            warnings.warn(f"n_jobs: only {started} of {n_threads} threads could be started (a memory or "
                          f"process limit); running on {started}", RuntimeWarning, stacklevel=4)
            return started
        _started_threads["most"] = max(_started_threads["most"], n_threads)
        return n_threads


def _requested_threads(n_jobs, cores):
    """``n_jobs`` (or the default for None) as a count of threads, before the cap at ``cores``."""
    if n_jobs is None:
        from_joblib = _joblib_default_n_jobs()
        if from_joblib is not None:
            _check_n_jobs(from_joblib, " (from joblib.parallel_config)")
            return from_joblib if from_joblib > 0 else max(1, cores + 1 + from_joblib)
        limit = os.environ.get("OMP_NUM_THREADS", "")
        if limit.isdigit() and int(limit) > 0:
            return int(limit)
        return cores
    _check_n_jobs(n_jobs, "")
    if n_jobs > 0:
        return int(n_jobs)
    return max(1, cores + 1 + int(n_jobs))


def effective_n_threads(n_jobs):
    """Number of threads for ``n_jobs``, never more than the usable cores.

    ``None`` takes the default the way scikit-learn does: the ``n_jobs`` of an
    enclosing ``joblib.parallel_config(n_jobs=...)`` context if there is one,
    else every available core, unless the environment variable
    ``OMP_NUM_THREADS`` sets fewer (as scikit-learn's OpenMP kernels do).
    A positive integer is capped at :func:`available_cores` (any value is
    accepted: ``n_jobs=100000`` runs on the usable cores); ``-1`` means all
    cores and ``-2`` all but one, and so on, at least one (joblib's
    convention).  When the threads cannot be started (a memory or process
    limit), fewer are used, with a RuntimeWarning.  Results never depend on
    the number of threads.
    """
    cores = available_cores()
    threads = min(cores, _requested_threads(n_jobs, cores))
    return _startable_threads(threads) if threads > 1 else 1


def thread_note(n_jobs):
    """A note for a result when ``n_jobs`` was not used as given, else None.

    E.g. ``"threads: 2 (n_jobs=100000 capped at the 2 usable cores)"`` or
    ``"threads: 1 (n_jobs=-3 counts back from the 2 usable cores)"``.
    """
    if n_jobs is None:
        return None
    cores = available_cores()
    requested = _requested_threads(n_jobs, cores)
    threads = effective_n_threads(n_jobs)
    if n_jobs < 0:
        return f"threads: {threads} (n_jobs={n_jobs} counts back from the {cores} usable cores)"
    if requested > cores:
        return f"threads: {threads} (n_jobs={n_jobs} capped at the {cores} usable cores)"
    if threads < requested:
        return f"threads: {threads} (n_jobs={n_jobs}: only {threads} threads could be started)"
    return None


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


# --------------------------------------------------------------------------- joblib backends
#: Set (per thread) while fs.compare evaluates one fold as a joblib task: the per-feature
#: scoring inside it then runs in place instead of fanning out again.
_local_only = threading.local()


@contextlib.contextmanager
def local_scoring():
    """Within this block :func:`score_features` never dispatches through joblib."""
    previous = getattr(_local_only, "active", False)
    _local_only.active = True
    try:
        yield
    finally:
        _local_only.active = previous


def external_backend():
    """The joblib backend the user chose with ``joblib.parallel_backend`` / ``parallel_config``.

    ``(backend, n_jobs)`` inside such a context (``with joblib.parallel_backend("dask"): ...``),
    ``None`` outside one, inside :func:`local_scoring`, for the ``'sequential'`` backend, and
    inside a task that joblib itself is running (where joblib sets a nested backend).
    """
    if getattr(_local_only, "active", False):
        return None
    try:
        from joblib import parallel as joblib_parallel
    except ImportError:  # pragma: no cover - joblib is a dependency
        return None
    config = getattr(joblib_parallel._backend, "config", None)
    if config is None:
        return None
    chosen = config.get("backend", joblib_parallel.default_parallel_config["backend"])
    if chosen is joblib_parallel.default_parallel_config["backend"] or chosen is None:
        return None  # no backend chosen: the default (a context that sets only n_jobs does not count)
    backend, n_jobs = joblib_parallel.get_active_backend()
    if isinstance(backend, joblib_parallel.SequentialBackend) or (getattr(backend, "nesting_level", 0) or 0) > 0:
        return None
    return backend, n_jobs


def _column_blocks(n_features, n_blocks):
    """``n_blocks`` consecutive index ranges covering 0..n_features-1, sizes differing by at most one."""
    edges = np.linspace(0, n_features, n_blocks + 1).round().astype(np.intp)
    return [np.arange(start, stop, dtype=np.intp) for start, stop in zip(edges[:-1], edges[1:]) if stop > start]


def _take_features(X, features, feature_axis):
    """The given features of ``X`` (a NumPy array or a SciPy sparse matrix)."""
    if hasattr(X, "tocsr"):  # SciPy sparse: keeps its format
        return X[:, features] if feature_axis == 1 else X[features]
    return np.ascontiguousarray(np.take(X, features, axis=feature_axis))


def _score_one_block(score_block, X_block, per_feature_blocks, args, n_threads):
    if n_threads is None:
        return score_block(X_block, *per_feature_blocks, *args)
    return score_block(X_block, *per_feature_blocks, *args, n_threads=n_threads)


def _concatenate(parts):
    if isinstance(parts[0], tuple):  # a tuple or a named record of per-feature arrays
        fields = [np.concatenate([part[i] for part in parts]) for i in range(len(parts[0]))]
        return type(parts[0])(*fields) if hasattr(parts[0], "_fields") else tuple(fields)
    return np.concatenate(parts)


def score_features(score_block, X, n_threads, *args, feature_axis=1, per_feature=(), n_blocks=None,
                   local_block=None):
    """Per-feature scores of ``X``, through joblib when the user chose a joblib backend.

    Outside a joblib context this is ``score_block(X, *per_feature, *args, n_threads=n_threads)``
    (the kernel's own OpenMP threads).  Inside ``with joblib.parallel_backend(name): ...``
    (e.g. ``"dask"``, see :func:`external_backend`) the features are split into consecutive
    blocks, each block is scored by one joblib task (``n_threads=1``; on a Dask cluster, on a
    worker) and the blocks' results are concatenated in feature order.  Every feature is
    scored independently of the others, so the result is identical either way.

    Parameters
    ----------
    score_block : callable
        ``score_block(X_block, *per_feature_blocks, *args[, n_threads=...])`` returning an
        array with one entry per feature, or a tuple of such arrays.  Must be picklable
        (a module-level function) to run in other processes.
    X : ndarray
        The data; features along ``feature_axis``.
    n_threads : int or None
        Threads of a local call; None: ``score_block`` takes no ``n_threads``.
    *args
        Passed to every call unchanged (e.g. the class codes).
    feature_axis : int
        Axis of ``X`` that indexes the features (1: columns of a samples x features
        matrix; 0: rows of a feature-major code matrix).
    per_feature : tuple of ndarray
        Arrays with one entry per feature (e.g. the number of levels), split with ``X``.
    n_blocks : int, optional
        Number of tasks; default: the backend's number of workers (at most one per feature).
    local_block : callable, optional
        Called instead of ``score_block`` (with the same arguments) when all of ``X`` is
        scored here in one call: e.g. ``score_block`` bound to state built for the whole of
        ``X`` that cannot travel to other processes (the bit-planes of the codes).

    Returns
    -------
    ndarray or tuple of ndarray
    """
    chosen = external_backend()
    n_features = X.shape[feature_axis]
    local = score_block if local_block is None else local_block
    if chosen is None or n_features < 2:
        return _score_one_block(local, X, per_feature, args, n_threads)
    from joblib import Parallel, delayed

    backend, n_jobs = chosen
    n_jobs = -1 if n_jobs is None else n_jobs
    if n_blocks is None:
        n_blocks = max(1, backend.effective_n_jobs(n_jobs))
    blocks = _column_blocks(n_features, min(int(n_blocks), n_features))
    if len(blocks) == 1:
        return _score_one_block(local, X, per_feature, args, n_threads)
    tasks = []
    for columns in blocks:
        X_block = _take_features(X, columns, feature_axis)
        per_feature_blocks = tuple(np.ascontiguousarray(np.take(values, columns)) for values in per_feature)
        tasks.append(delayed(_score_one_block)(score_block, X_block, per_feature_blocks, args,
                                               None if n_threads is None else 1))
    return _concatenate(Parallel(n_jobs=n_jobs)(tasks))


def run_tasks(function, tasks, n_jobs, bar):
    """``function(*arguments)`` for every tuple of ``tasks``, results in task order.

    Through joblib inside a joblib backend context (``with joblib.parallel_backend("dask"):``:
    one task per fold on the cluster; ``n_jobs``, if given, else the context's number of jobs),
    or on ``n_jobs`` threads when ``n_jobs`` is not None/1; otherwise in place.
    """
    chosen = external_backend()
    if chosen is None and (n_jobs is None or n_jobs == 1):
        for arguments in tasks:
            result = function(*arguments)
            bar.update(1)
            yield result
        return
    from joblib import Parallel, delayed

    if chosen is not None:
        context_jobs = chosen[1]
        jobs = n_jobs if n_jobs is not None else (-1 if context_jobs is None else context_jobs)
        parallel = Parallel(n_jobs=jobs, return_as="generator")
    else:
        parallel = Parallel(n_jobs=n_jobs, return_as="generator", prefer="threads")
    for result in parallel(delayed(function)(*arguments) for arguments in tasks):
        bar.update(1)
        yield result


def run_jobs(n_jobs):
    """``(jobs, threads)`` for many runs of a method through :func:`run_tasks`: the runs on joblib's
    workers (a backend context, e.g. Dask's, or ``n_jobs`` > 1 threads), each method call on one
    thread; otherwise one run at a time (``jobs`` None), each call on ``n_jobs`` threads."""
    if external_backend() is not None:
        return n_jobs, 1
    if n_jobs is not None and effective_n_threads(n_jobs) > 1:
        return effective_n_threads(n_jobs), 1
    return None, n_jobs

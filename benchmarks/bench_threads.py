"""Threads end to end: ``FeatureSelector.fit`` and the CMQFS relevance with 1, 2, ... threads.

Rows (every core count this machine has, wall time, best of ``--repeat``, runs interleaved):

1. ``FeatureSelector(method, k=50, n_jobs=t).fit`` for jmi, mrmr and cmim on Dorothea-like
   800 x 100,000 binary data (0/1 columns with 1 % ones; the first 50 carry the class): first
   the greedy engine alone, ``greedy_information_selection(codes, levels, y, method, 50,
   n_threads=t)`` on the codes of ``information_codes(X)`` (bit-planes, relevance and the 49
   steps; lazy evaluation for cmim), then the whole path, input checks, codes, counting and
   the engine.  Targets: 2 threads at least 1.8x faster than 1, for the engine and for the fit.
   Under the engine rows, the lazy CMIM loop alone (``lazy_cmim`` on the planes and I(X;C)
   already computed), without a target: its share of the cmim engine; and the same loop on
   byte codes (2,000 x 500 random codes of ten levels), where a step's terms run in parallel
   batches.
   Before the fit rows, without targets: the data pass of the fit alone
   (``information_codes_with_planes(X)``: the binary columns found and written as bit-planes,
   one read of X), and the machine's memory-stream ceiling measured in the same run: a plain
   C loop (``fstools._ext._bench_counting.stream_to_int8``, OpenMP) that reads the same 640 MB
   of float64 and writes a byte per value, nothing else.  Its 2-thread speed-up is what
   memory bandwidth allows any pass over X: the fit reaches 1.8x only as far as its work
   between the reads of X scales better than that.
   Then the same fits on ``X.astype(bool)`` (the 0/1 values one byte each, which the information
   methods read as they are), without a target.
   After the fit rows, without a target, the memory system's share: two one-thread data passes
   run at once, each over its own copy of X; each is slowed by the other (both read memory),
   and 2 divided by that slowdown is about the most two threads can gain on that pass on this
   machine (the fit's other work gains what its own reads of memory allow).
   Each row also prints the CPU time of the process per thread count: threads that wait
   (at a barrier, or for a core held by another process) show as CPU time above one thread's.
2. The CMQFS relevance (the modularity of every feature's 1-D k-NN graph) on 200,000 x 20 normal
   data, ``modularity_scores`` with ``n_threads=t``, next to ``np.argsort(X, axis=0)`` of the same
   array.  Targets: 1 thread at most 4x the sort; 2 threads faster than 1.

Threads help only where cores are free: the header prints the load average; on a loaded machine
the speed-ups are lower bounds.  Run: ``python benchmarks/bench_threads.py`` (``--quick``: smaller data).
"""
import os
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

import _harness  # noqa: E402
from _harness import benchmark_parser, print_machine_info, print_summary, usable_cores, verdict  # noqa: E402

import fstools as fs  # noqa: E402
from fstools._ext import _bench_counting, _bitcount, _entropy  # noqa: E402
from fstools.core.ranking import TIE_TOLERANCE  # noqa: E402
from fstools.core.discretize import information_codes, information_codes_with_planes  # noqa: E402
from fstools.methods.cmqfs import modularity_scores  # noqa: E402
from fstools.methods.information import greedy_information_selection  # noqa: E402

FIT_TARGET = 1.8
SORT_TARGET = 4.0


def _duration(seconds):
    """Seconds as ``0.123 s``, or ``1.23 ms`` below a tenth of a second."""
    return f"{seconds * 1e3:.2f} ms" if seconds < 0.1 else f"{seconds:.3f} s"


def _thread_curve(label, method, functions, repeat, threads, target=FIT_TARGET):
    """Time ``functions[t]`` for every thread count (wall, best of ``repeat``, interleaved), print the
    curve with the CPU time of each run, and record the verdict of 2 threads against 1 (none when
    ``target`` is None)."""
    cpu = {}

    def with_cpu_time(t):
        def run():
            start = time.process_time()
            result = functions[t]()
            cpu[t] = min(cpu.get(t, float("inf")), time.process_time() - start)
            return result
        return run

    best, rankings = _harness.interleaved_best({t: with_cpu_time(t) for t in threads}, repeat)
    same = all(np.array_equal(rankings[t], rankings[threads[0]]) for t in threads)
    curve = ", ".join(f"{t} thread(s) {_duration(best[t])} ({best[threads[0]] / best[t]:.2f}x; "
                      f"cpu {_duration(cpu[t])})" for t in threads)
    print(f"    {method:5s} {curve}; same selection: {same}")
    if 2 in best and target is not None:
        speedup = best[1] / best[2]
        verdict(speedup >= target and same,
                f"{method} {label}, 2 threads vs 1: {speedup:.2f}x (target >= {target})")


def _contention_row(X, repeat):
    """Two one-thread data passes at once, over two copies of X (two Python threads; the kernel
    releases the GIL): how much each slows the other down is the memory system's share of a pass,
    which no division of the work over threads avoids.  Over one shared X the two would read each
    other's lines from the shared cache; over copies each reads its own 640 MB."""
    copy = X.copy()

    def one(array):
        start = time.perf_counter()
        information_codes_with_planes(array, n_threads=1)
        return time.perf_counter() - start

    def both():
        seconds = [0.0, 0.0]

        def run(i, array):
            seconds[i] = one(array)

        workers = [threading.Thread(target=run, args=(0, X)), threading.Thread(target=run, args=(1, copy))]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        return max(seconds)

    alone, together = float("inf"), float("inf")
    for _ in range(repeat):  # interleaved, best of each
        alone = min(alone, one(X), one(copy))
        together = min(together, both())
    slowdown = together / alone
    print(f"  memory contention: two one-thread data passes at once over two copies of X (no target): each "
          f"{_duration(together)} against {_duration(alone)} alone, {slowdown:.2f}x slower; the most two "
          f"threads can gain on the data pass: about {2 / slowdown:.2f}x")
    del copy


def section_fit(sizes, repeat, threads):
    X, y = _harness.dorothea_like(sizes["fit_m"], sizes["fit_n"])
    codes, levels = information_codes(X)[:2]
    print(f"\n[1] Dorothea-like {X.shape[0]:,} x {X.shape[1]:,}, k = 50  (load average now {_harness.load_average()})")
    print("  engine: greedy_information_selection(codes, levels, y, method, 50, n_threads=t)")
    for method in ("jmi", "mrmr", "cmim"):
        functions = {t: (lambda t=t: greedy_information_selection(codes, levels, y, method, 50, n_threads=t)[0])
                     for t in threads}
        _thread_curve("engine", method, functions, repeat, threads)
    # the part of the cmim engine that is its own: the lazy loop on ready planes and I(X;C)
    kernel = _bitcount.counting_kernel(codes, levels, y, 2)
    relevance = np.empty(codes.shape[0])
    kernel.feature_class_information(codes, levels, y, 2, relevance)

    def lazy_loop(t):
        ranking = np.empty(50, dtype=np.intp)
        kernel.lazy_cmim(codes, levels, y, 2, relevance, 50, ranking, np.empty(50), TIE_TOLERANCE, t)
        return ranking

    print("  of which the lazy loop alone: lazy_cmim(..., k=50, n_threads=t) on the planes (no target)")
    _thread_curve("lazy loop", "cmim", {t: (lambda t=t: lazy_loop(t)) for t in threads}, repeat, threads, None)
    # the same loop on byte codes (ten levels: too many streams for planes), where a step's terms
    # are long enough to go in parallel batches
    rng = np.random.default_rng(2)
    m, n = sizes["bytes_m"], sizes["bytes_n"]
    y10 = rng.integers(0, 2, m).astype(np.int32)
    codes10 = rng.integers(0, 10, (n, m)).astype(np.int8)
    codes10[:20] = np.where(rng.random((20, m)) < 0.3, 9 * y10, codes10[:20])
    levels10 = np.full(n, 10, dtype=np.int32)
    relevance10 = np.empty(n)
    _entropy.feature_class_information(codes10, levels10, y10, 2, relevance10)

    def byte_loop(t):
        ranking = np.empty(50, dtype=np.intp)
        _entropy.lazy_cmim(codes10, levels10, y10, 2, relevance10, 50, ranking, np.empty(50), TIE_TOLERANCE, t)
        return ranking

    print(f"  the lazy loop on byte codes: {m:,} x {n} random codes of ten levels, k = 50 (no target)")
    _thread_curve("lazy loop, byte codes", "cmim", {t: (lambda t=t: byte_loop(t)) for t in threads}, repeat,
                  threads, None)
    print(f"  the data pass of the fit: information_codes_with_planes(X, n_threads=t) (no target; load average "
          f"now {_harness.load_average()})")
    _thread_curve("data pass", "codes", {t: (lambda t=t: information_codes_with_planes(X, n_threads=t)[1])
                                         for t in threads}, repeat, threads, None)
    flat = X.reshape(-1)
    stream_out = np.empty(flat.shape[0], dtype=np.int8)

    def stream(t):
        _bench_counting.stream_to_int8(flat, stream_out, t)
        return stream_out[:1].copy()

    print(f"  memory-stream ceiling: plain C, read X ({X.nbytes / 2 ** 20:.0f} MB of float64), write a byte per "
          f"value, OpenMP (no target)")
    _thread_curve("stream", "C", {t: (lambda t=t: stream(t)) for t in threads}, repeat, threads, None)
    del stream_out
    print(f"  fit: FeatureSelector(method, k=50, n_jobs=t).fit(X, y)  (load average now {_harness.load_average()})")
    for method in ("jmi", "mrmr", "cmim"):
        functions = {t: (lambda t=t: fs.FeatureSelector(method=method, k=50, n_jobs=t).fit(X, y).ranking_)
                     for t in threads}
        _thread_curve("fit", method, functions, repeat, threads)
    flags = X.astype(bool)  # the same 0/1 values, one byte each (read as they are: no float64 copy)
    print("  fit on X as bool: FeatureSelector(method, k=50, n_jobs=t).fit(X.astype(bool), y) (no target)")
    for method in ("jmi", "mrmr", "cmim"):
        functions = {t: (lambda t=t: fs.FeatureSelector(method=method, k=50, n_jobs=t).fit(flags, y).ranking_)
                     for t in threads}
        _thread_curve("fit of bool X", method, functions, repeat, threads, None)
    del flags
    if 2 in threads:  # last: its copy of X, once freed, is handed back to the host of a VM (page reporting)
        _contention_row(X, repeat)


def section_cmqfs(sizes, repeat, threads):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((sizes["cmqfs_m"], sizes["cmqfs_n"]))
    y = rng.integers(0, 2, size=X.shape[0]).astype(np.int32)
    print(f"\n[2] CMQFS relevance, {X.shape[0]:,} x {X.shape[1]}, against np.argsort(X, axis=0)")
    functions = {"argsort": lambda: np.argsort(X, axis=0)}
    functions.update({t: (lambda t=t: modularity_scores(X, y, 2, n_threads=t)) for t in threads})
    best, results = _harness.interleaved_best(functions, repeat)
    for t in threads:
        print(f"    {t} thread(s) {best[t]:.3f} s = {best[t] / best['argsort']:.2f}x argsort "
              f"({best['argsort']:.3f} s), {best[threads[0]] / best[t]:.2f}x one thread")
    same = all(np.array_equal(np.asarray(results[t]), np.asarray(results[threads[0]])) for t in threads)
    ratio = best[1] / best["argsort"]
    verdict(ratio <= SORT_TARGET, f"CMQFS relevance, 1 thread / argsort: {ratio:.2f} (target <= {SORT_TARGET})")
    if 2 in best:
        verdict(best[2] < best[1] and same, f"CMQFS relevance, 2 threads vs 1: {best[1] / best[2]:.2f}x (target > 1)")


def main():
    parser = benchmark_parser(__doc__)
    options = parser.parse_args()
    sizes = (dict(fit_m=800, fit_n=20_000, bytes_m=500, bytes_n=200, cmqfs_m=50_000, cmqfs_n=20) if options.quick
             else dict(fit_m=800, fit_n=100_000, bytes_m=2000, bytes_n=500, cmqfs_m=200_000, cmqfs_n=20))
    threads = list(range(1, usable_cores() + 1))
    start = time.perf_counter()
    print_machine_info("Threads end to end", options.quick, options.repeat, sizes)
    section_fit(sizes, options.repeat, threads)
    section_cmqfs(sizes, options.repeat, threads)
    print_summary(start)


if __name__ == "__main__":
    main()

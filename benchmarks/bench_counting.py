"""Micro-benchmark of the counting behind the information methods: byte codes vs C, bit-planes vs bytes.

Run on demand, never in CI:

    python benchmarks/bench_counting.py             # full sizes (~1-2 min on 2 cores)
    python benchmarks/bench_counting.py --quick     # reduced sizes (~10 s)

One thread everywhere.  Three parts, each timed interleaved, best of N, in process CPU time
(``time.process_time``: on a machine shared with other work the wall time of a one-thread
kernel is inflated by the time it waits for a core; on an idle machine the two agree), the
wall time printed beside it where it matters:

1. **The scalar counting loop vs a plain C loop.**  fstools' byte-code kernels
   (``_entropy.feature_class_information``: the (feature, class) table of every feature and its
   entropies; ``_entropy.pair_information_terms``: the (candidate, selected, class) table of every
   candidate and its four quantities) against the loop a C programmer writes (one table, one
   increment per sample; ``fstools._ext._bench_counting``, compiled by the same build with the
   same flags), on the same int8 codes.  Long columns (m = 100,000), so that the counting is
   nearly all of the time.  Target: fstools / C <= 1.2.
2. **Bit-planes vs byte codes**: one step of the greedy engine (``pair_information_terms`` for
   every candidate against one selected feature) on a grid of levels L (candidate and selected) and
   classes K, with the number of ANDed streams ``(L - 1)^2 K`` the planes count per pair; pairs
   above ``_bitcount.MAX_STREAMS`` streams go to the byte codes, so the ratio there must be >= 1 up
   to that threshold (it is measured here).  Every result is checked bitwise equal.
3. **JMI k = 50 on Dorothea-like 800 x 100,000 binary** (the engine on ready codes, one thread):
   target under 1 s (praznik publishes 30.3 s on one thread for the real Dorothea); the same with
   the byte codes (bit-planes switched off) for the ratio.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a source checkout: use the in-place build
    sys.path.insert(1, ROOT)

import numpy as np  # noqa: E402

import _harness  # noqa: E402
from _harness import benchmark_parser, print_machine_info, print_summary, verdict  # noqa: E402
from fstools._ext import _bench_counting, _bitcount, _entropy  # noqa: E402
from fstools.methods import information  # noqa: E402

#: Target of part 1: fstools' counting loop at most this many times the plain C loop.
C_LOOP_TARGET = 1.2
#: Target of part 3, seconds.
JMI_TARGET = 1.0


def interleaved_best(functions, repeat):
    """Best-of-``repeat`` process CPU time of each callable, runs interleaved round-robin."""
    return _harness.interleaved_best(functions, repeat, clock="cpu")


def scalar_vs_c(m, n, repeat):
    print()
    print(f"1. Scalar counting loop vs plain C loop: {n} features x {m:,} samples, int8 codes, one thread")
    print(f"   {'table':<46} {'levels':>6} {'classes':>7} {'fstools':>9} {'C loop':>9} {'ns/sample':>9} {'ratio':>6}")
    rng = np.random.default_rng(0)
    for n_levels, n_classes, sparse in ((2, 2, False), (10, 2, False), (10, 5, False), (2, 2, True)):
        if sparse:  # 1 % ones, 10 % positive class: runs of samples in the same cell
            codes = (rng.random((n, m)) < 0.01).astype(np.int8)
            y = (rng.random(m) < 0.1).astype(np.int32)
        else:
            codes = rng.integers(0, n_levels, size=(n, m)).astype(np.int8)
            y = rng.integers(0, n_classes, size=m).astype(np.int32)
        levels = np.full(n, n_levels, dtype=np.int32)
        out = np.empty(n)
        candidates = np.arange(n, dtype=np.intp)
        terms = np.empty((n, 4))
        rows = [
            ("(feature, class) + entropies",
             lambda: _entropy.feature_class_information(codes, levels, y, n_classes, out),
             lambda: _bench_counting.feature_class_tables(codes, n_levels, y, n_classes)),
            ("(candidate, selected, class) + terms",
             lambda: _entropy.pair_information_terms(codes, levels, y, n_classes, 0, candidates, terms),
             lambda: _bench_counting.pair_tables(codes, n_levels, 0, y, n_classes)),
        ]
        for label, ours, plain in rows:
            best, _ = interleaved_best({"fstools": ours, "C": plain}, repeat)
            ratio = best["fstools"] / best["C"]
            label += " (sparse)" if sparse else ""
            print(f"   {label:<46} {n_levels:>6} {n_classes:>7} {best['fstools'] * 1e3:>7.1f}ms "
                  f"{best['C'] * 1e3:>7.1f}ms {best['fstools'] / (n * m) * 1e9:>9.2f} {ratio:>6.2f}")
            verdict(ratio <= C_LOOP_TARGET, f"scalar counting {label}, L = {n_levels}, K = {n_classes}: "
                    f"{ratio:.2f}x the plain C loop (target <= {C_LOOP_TARGET})")


def planes_vs_bytes(sample_sizes, work, repeat):
    print()
    print(f"2. Bit-planes vs byte codes: one greedy step (pair_information_terms), one thread; "
          f"MAX_STREAMS = {_bitcount.MAX_STREAMS}")
    print(f"   {'m':>6} {'K':>3} {'L':>3} {'streams':>8} {'planes':>10} {'bytes':>10} {'bytes/planes':>13}  path")
    rng = np.random.default_rng(1)
    threshold = _bitcount.MAX_STREAMS
    slowest_below = np.inf
    all_equal = True
    for m in sample_sizes:
        n = max(50, work // m)
        for n_classes in (2, 4, 10):
            for n_levels in (2, 3, 4, 5, 7, 9):
                streams = (n_levels - 1) ** 2 * n_classes
                if n_levels ** 2 * n_classes > 1024 or (n_levels - 1) * n_classes > 256:
                    continue
                codes = rng.integers(0, n_levels, size=(n, m)).astype(np.int8)
                levels = np.full(n, n_levels, dtype=np.int32)
                y = rng.integers(0, n_classes, size=m).astype(np.int32)
                planes = _bitcount.PlaneCounter(codes, levels, y, n_classes)
                candidates = np.arange(1, n, dtype=np.intp)
                out_planes, out_bytes = np.empty((n - 1, 4)), np.empty((n - 1, 4))
                _bitcount.MAX_STREAMS = 10 ** 6  # time the planes whatever the threshold
                try:
                    best, _ = interleaved_best({
                        "planes": lambda: planes.pair_information_terms(codes, levels, y, n_classes, 0,
                                                                        candidates, out_planes),
                        "bytes": lambda: _entropy.pair_information_terms(codes, levels, y, n_classes, 0,
                                                                         candidates, out_bytes)}, repeat)
                finally:
                    _bitcount.MAX_STREAMS = threshold
                all_equal &= np.array_equal(out_planes, out_bytes)
                ratio = best["bytes"] / best["planes"]
                if streams <= threshold:
                    slowest_below = min(slowest_below, ratio)
                print(f"   {m:>6} {n_classes:>3} {n_levels:>3} {streams:>8} "
                      f"{best['planes'] / (n - 1) * 1e9:>8.0f}ns {best['bytes'] / (n - 1) * 1e9:>8.0f}ns "
                      f"{ratio:>13.2f}  {'planes' if streams <= threshold else 'bytes'}")
    verdict(all_equal, "bit-planes bitwise equal to the byte codes on every pair above")
    verdict(slowest_below >= 1.0, f"bit-planes at least as fast as byte codes up to MAX_STREAMS = {threshold} "
            f"(slowest: {slowest_below:.2f}x)")


def dorothea_like(m, n, seed=0):
    """0/1 columns with 1 % ones, about 10 % positive class, columns 0..49 enriched in it
    (as benchmarks/bench_information.py), as feature-major int8 codes."""
    rng = np.random.default_rng(seed)
    y = (rng.random(m) < 0.1).astype(np.int32)
    X = rng.random((n, m)) < 0.01
    X[:50] |= (y[None, :] == 1) & (rng.random((50, m)) < 0.5)
    codes = X.astype(np.int8)
    levels = np.full(n, 2, dtype=np.int32)
    return codes, levels, y


def jmi_dorothea(m, n, k, repeat):
    print()
    print(f"3. JMI k = {k}, Dorothea-like {m} x {n:,} binary, the engine on ready codes, one thread")
    codes, levels, y = dorothea_like(m, n)
    original = _bitcount.counting_kernel

    def byte_codes(*args, **kwargs):
        return _entropy

    def run(planes):
        _bitcount.counting_kernel = original if planes else byte_codes
        try:
            return information.greedy_information_selection(codes, levels, y, "jmi", k=k, n_threads=1)
        finally:
            _bitcount.counting_kernel = original

    best_wall, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        planes_result = run(True)
        best_wall = min(best_wall, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    start = time.process_time()
    byte_result = run(False)  # once: ten seconds or more at full size
    byte_seconds = time.process_time() - start
    same = (np.array_equal(planes_result[0], byte_result[0])
            and np.array_equal(planes_result[1]["J"], byte_result[1]["J"]))
    print(f"   bit-planes   {best_cpu:8.3f} s CPU  {best_wall:8.3f} s wall   (best of {repeat})")
    print(f"   byte codes   {byte_seconds:8.3f} s CPU   (one run)   bytes / planes = {byte_seconds / best_cpu:.1f}")
    print(f"   same picks and J (bitwise): {same}")
    verdict(same, "JMI on Dorothea-like data: bit-planes pick the byte codes' features with the same J")
    verdict(best_cpu < JMI_TARGET, f"JMI k = {k} on Dorothea-like {m} x {n:,}: {best_cpu:.2f} s CPU, "
            f"{best_wall:.2f} s wall (target < {JMI_TARGET:.0f} s)")


def main():
    parser = benchmark_parser(__doc__, quick_help="reduced sizes (smoke run)")
    options = parser.parse_args()
    start = time.perf_counter()
    quick = options.quick
    sizes = {"scalar": (20_000, 20) if quick else (100_000, 60),
             "planes m": (800,) if quick else (800, 5000),
             "dorothea": (800, 10_000) if quick else (800, 100_000)}
    print_machine_info("Counting: byte codes vs C, bit-planes vs byte codes", quick, options.repeat, sizes,
                       packages=[("hardware popcount", str(_bitcount.HARDWARE_POPCOUNT))],
                       timing=f"best of {options.repeat} in process CPU time, compared runs interleaved")
    scalar_vs_c(*sizes["scalar"], options.repeat)
    planes_vs_bytes(sizes["planes m"], 200_000 if quick else 2_000_000, options.repeat)
    jmi_dorothea(*sizes["dorothea"], 50, options.repeat)
    print_summary(start)


if __name__ == "__main__":
    main()

"""Benchmark of the discretisation kernel: continuous columns coded in one pass vs the NumPy block code.

Run on demand, never in CI:

    python benchmarks/bench_discretize.py             # full sizes (~1 min on 2 cores)
    python benchmarks/bench_discretize.py --quick     # reduced sizes (~10 s)

Data: normal floats, row-major (C-ordered, as ``DataFrame.to_numpy()`` gives them), at
2,000 x 500 and 800 x 20,000.  Two parts:

1. **Kernel vs NumPy, one thread**, process CPU time (``time.process_time``), best of N, runs
   interleaved: ``information_codes(X)`` (the mu/sigma scheme; the discrete-column kernel
   first, as before) and ``mu_sigma_levels(X)``, against the NumPy block code they used
   before the kernel (copied below as the baseline: columns gathered a block at a time into
   contiguous float64 rows, then NumPy's min / max / mean / std and comparisons per block).
   Every result is checked bitwise equal.  Target: kernel / NumPy <= 0.5.
2. **Threads**: the same calls with ``n_threads=2`` against 1, wall time (``time.perf_counter``),
   best of N interleaved; the kernel alone (every column coded, no discrete-column pass) and
   ``information_codes`` end to end.  Target for the kernel alone: 2 threads >= 1.6x one
   thread.  Measure when the machine is quiet: the load average is printed before the part.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a source checkout: use the in-place build
    sys.path.insert(1, ROOT)

import numpy as np  # noqa: E402

from _harness import (benchmark_parser, interleaved_best, load_average, print_machine_info,  # noqa: E402
                      print_summary, usable_cores, verdict)
from fstools.core import discretize  # noqa: E402
from fstools.core.arrays import scaled_to_unit  # noqa: E402
from fstools.core.discretize import information_codes, mu_sigma_levels  # noqa: E402

#: Part 1 target: the kernel at most this fraction of the NumPy block code's CPU time.
RATIO_TARGET = 0.5
#: Part 2 target: the kernel alone on two threads at least this many times faster than on one.
THREAD_TARGET = 1.6

MU_SIGMA_LEVELS = discretize.MU_SIGMA_LEVELS
BLOCK_VALUES = discretize.BLOCK_VALUES


# ---------------------------------------------------------------------------
# The baseline: the NumPy block code of fstools.core.discretize before the kernel
# ---------------------------------------------------------------------------

def numpy_mu_sigma_block(block):
    """Nine-level codes (int8) of the rows of ``block`` (columns of X, float64)."""
    codes = np.full(block.shape, MU_SIGMA_LEVELS // 2, dtype=np.int8)
    low, high = block.min(axis=1), block.max(axis=1)
    varying = low < high
    if not np.any(varying):
        return codes
    rows = block if varying.all() else block[varying]
    G, _ = scaled_to_unit(rows, np.maximum(np.abs(low[varying]), np.abs(high[varying])), axis=1)
    mu = G.mean(axis=1, keepdims=True)
    sigma = G.std(axis=1, ddof=1, keepdims=True)
    level = np.zeros(G.shape, dtype=codes.dtype)
    for t in discretize.MU_SIGMA_EDGES:
        level += G > mu + t * sigma
        level -= G < mu - t * sigma
    level[sigma[:, 0] == 0] = 0
    codes[varying] = level + MU_SIGMA_LEVELS // 2
    return codes


def numpy_mu_sigma_levels(X):
    """``mu_sigma_levels`` as it was: ``_column_blocks`` + ``_mu_sigma_block``."""
    array = discretize._check_X(X)
    n_samples, n_features = array.shape
    codes = np.empty((n_features, n_samples), dtype=np.int8)
    width = max(1, BLOCK_VALUES // n_samples)
    for start in range(0, n_features, width):
        block = np.ascontiguousarray(array[:, start:start + width].T, dtype=np.float64)
        codes[start:start + block.shape[0]] = numpy_mu_sigma_block(block)
    return codes, np.full(n_features, MU_SIGMA_LEVELS, dtype=np.int32)


def numpy_information_codes(X, n_threads=1):
    """``information_codes(X)`` (mu/sigma) as it was: the discrete-column kernel, then the
    continuous columns gathered a block at a time and coded by NumPy."""
    array = discretize._check_X(X, check_finite=False)
    n_samples, n_features = array.shape
    codes, levels, status = discretize._discrete_codes(array, discretize.MAX_LEVELS_AS_IS, n_threads)
    as_is = status == discretize._entropy.COLUMN_DISCRETE
    continuous = np.flatnonzero(~as_is)
    levels[continuous] = MU_SIGMA_LEVELS
    width = max(1, BLOCK_VALUES // n_samples)
    for start in range(0, continuous.size, width):
        columns = continuous[start:start + width]
        block = np.ascontiguousarray(array[:, columns].T, dtype=np.float64)
        codes[columns] = numpy_mu_sigma_block(block)
    return codes, levels, as_is


def same(first, second):
    return all(np.array_equal(a, b) for a, b in zip(first, second))


# ---------------------------------------------------------------------------
# The two parts
# ---------------------------------------------------------------------------

def one_thread(shapes, repeat):
    print()
    print("1. Kernel vs the NumPy block code, one thread, process CPU time (best of "
          f"{repeat}, interleaved); normal floats, row-major")
    print(f"   {'call':<22} {'shape':>14} {'kernel':>9} {'NumPy':>9} {'ns/value':>9} {'ratio':>6}  same codes")
    for m, n in shapes:
        X = np.random.default_rng(0).standard_normal((m, n))
        for label, kernel, numpy_code in (("information_codes", information_codes, numpy_information_codes),
                                          ("mu_sigma_levels", mu_sigma_levels, numpy_mu_sigma_levels)):
            best, results = interleaved_best({"kernel": lambda: kernel(X), "numpy": lambda: numpy_code(X)},
                                             repeat, clock="cpu")
            ratio = best["kernel"] / best["numpy"]
            equal = same(results["kernel"], results["numpy"])
            print(f"   {label:<22} {f'{m:,} x {n:,}':>14} {best['kernel'] * 1e3:7.1f}ms {best['numpy'] * 1e3:7.1f}ms "
                  f"{best['kernel'] / X.size * 1e9:9.2f} {ratio:6.2f}  {equal}")
            verdict(ratio <= RATIO_TARGET and equal,
                    f"{label} {m:,} x {n:,}, kernel / NumPy, one thread: {ratio:.2f} "
                    f"(target <= {RATIO_TARGET}; codes equal: {equal})")


def two_threads(shapes, repeat):
    print()
    print(f"2. Two threads vs one, wall time (best of {repeat}, interleaved); load average now {load_average()}")
    if usable_cores() < 2:
        print("   (one usable core: skipped)")
        return
    print(f"   {'call':<22} {'shape':>14} {'1 thread':>9} {'2 threads':>9} {'speed-up':>8}  same codes")
    for m, n in shapes:
        X = np.random.default_rng(0).standard_normal((m, n))
        calls = (("kernel alone", lambda t: discretize._scheme_codes(X, "mu_sigma", n_threads=t)),
                 ("information_codes", lambda t: information_codes(X, n_threads=t)))
        for label, call in calls:
            best, results = interleaved_best({1: lambda: call(1), 2: lambda: call(2)}, repeat, clock="wall")
            speedup = best[1] / best[2]
            equal = same(results[1], results[2])
            print(f"   {label:<22} {f'{m:,} x {n:,}':>14} {best[1] * 1e3:7.1f}ms {best[2] * 1e3:7.1f}ms "
                  f"{speedup:7.2f}x  {equal}")
            if label == "kernel alone":
                verdict(speedup >= THREAD_TARGET and equal,
                        f"kernel alone {m:,} x {n:,}, 2 threads vs 1: {speedup:.2f}x (target >= {THREAD_TARGET}; "
                        f"load average {load_average()})")


def main():
    parser = benchmark_parser(__doc__, default_repeat=7)
    args = parser.parse_args()
    shapes = [(500, 100), (200, 2_000)] if args.quick else [(2_000, 500), (800, 20_000)]
    start = time.perf_counter()
    print_machine_info("fstools discretisation: one kernel pass vs NumPy blocks", args.quick, args.repeat,
                       {"(m, n)": shapes},
                       timing=f"best of {args.repeat}, runs interleaved; part 1 CPU time, part 2 wall time")
    one_thread(shapes, args.repeat)
    two_threads(shapes, args.repeat)
    print_summary(start)


if __name__ == "__main__":
    main()

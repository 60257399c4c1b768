"""Benchmark of the discretisation kernel: continuous columns coded in one pass vs the NumPy block code.

Run on demand, never in CI:

    python benchmarks/bench_discretize.py             # full sizes (~1 min on 2 cores)
    python benchmarks/bench_discretize.py --quick     # reduced sizes (~10 s)

Data: normal floats, row-major (C-ordered, as ``DataFrame.to_numpy()`` gives them), at
2,000 x 500 and 800 x 20,000 (parts 1 and 2), 1,000,000 x 50 (part 3).  Three parts:

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
3. **A million rows at the memory floor**: 1,000,000 x 50 float64 (200,000 x 50 with
   ``--quick``), one thread, wall time best of N interleaved, each as a ratio to one NumPy pass
   ``X.sum(axis=0)`` of the same run: the kernel alone (``mu_sigma_levels``; on C order also the
   column path forced, ``path="columns"``: the code before the row tiles), ``information_codes(X)``
   and ``FeatureSelector(method=m, k=10, n_jobs=1).fit(X, y)`` for m in mim, mrmr, on the same
   values in C order, Fortran order and as ``pd.DataFrame(X)``.  Targets: fit mim <= 6, mrmr <= 10
   (time / one pass).  Then the peak memory of the fits above X, in fresh subprocesses, with
   ``tracemalloc`` and as ``VmHWM`` reset through ``/proc/self/clear_refs`` (as
   ``bench_one_pass.py``), for mim, mrmr and CMQFS (which discretises every column for its
   redundancy term; its fit takes 10-15 s, so it is not timed here: ``bench_cmqfs.py``); target
   X + extra peak <= 1.25 X.  ``tracemalloc`` sees NumPy's allocations only: the codes of a tall
   row-major X, written into a memory map of their own and given back row by row as their
   bit-planes are packed, show in the RSS lines.

   python benchmarks/bench_discretize.py --only 3     # part 3 alone
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
                      print_summary, run_memory_child, usable_cores, verdict)
from fstools.core import discretize  # noqa: E402
from fstools.core.arrays import scaled_to_unit  # noqa: E402
from fstools.core.discretize import information_codes, mu_sigma_levels  # noqa: E402

#: Part 1 target: the kernel at most this fraction of the NumPy block code's CPU time.
RATIO_TARGET = 0.5
#: Part 2 target: the kernel alone on two threads at least this many times faster than on one.
THREAD_TARGET = 1.6
#: Part 3 targets: fit time / one NumPy pass (X.sum(axis=0)), one thread; (X + extra peak) / X.
FIT_TARGETS = {"mim": 6.0, "mrmr": 10.0}
MEMORY_TARGET = 1.25
#: The fits whose peak memory part 3 measures.
MEMORY_METHODS = ("mim", "mrmr", "cmqfs")

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


def million_rows(quick, repeat):
    import pandas as pd

    import fstools as fs
    from fstools._ext import _discretize

    m, n = (200_000, 50) if quick else (1_000_000, 50)
    rng = np.random.default_rng(0)
    X = np.empty((m, n))
    rng.standard_normal(out=X)
    y = rng.integers(0, 2, size=m).astype(np.int32)
    layouts = {"C": X, "Fortran": np.asfortranarray(X), "DataFrame": pd.DataFrame(X)}
    print()
    print(f"3. A million rows: {m:,} x {n} float64 ({X.nbytes / 2 ** 20:.0f} MB), one thread, wall time best of "
          f"{repeat} interleaved, / one pass X.sum(axis=0); load average now {load_average()}")
    frame_values = layouts["DataFrame"].to_numpy()
    print(f"   (pd.DataFrame(X).to_numpy(): {'C' if frame_values.flags.c_contiguous else 'Fortran'} order, "
          f"{'a view of X' if np.shares_memory(frame_values, X) else 'a copy'})")

    def fit(method, data, labels=y):
        return fs.FeatureSelector(method=method, k=10, n_jobs=1).fit(data, labels)

    def column_path():  # the kernel as before the row tiles: blocks of columns on the C-ordered X
        codes = np.empty((n, m), dtype=np.int8)
        _discretize.discretize_columns(X, np.arange(n, dtype=np.intp), codes, _discretize.MU_SIGMA,
                                       edges=np.asarray(discretize.MU_SIGMA_EDGES), path="columns")
        return codes

    for method in FIT_TARGETS:  # warm-up: imports, kernels, OpenMP pool
        fit(method, X[:2000], y[:2000])
    functions = {"sum": lambda: X.sum(axis=0), "kernel C, column path (before)": column_path}
    for layout, data in layouts.items():
        functions[f"kernel {layout}"] = lambda data=data: mu_sigma_levels(data)
        functions[f"information_codes {layout}"] = lambda data=data: information_codes(data)
        for method in FIT_TARGETS:
            functions[f"fit {method} {layout}"] = lambda data=data, method=method: fit(method, data)
    best, results = interleaved_best(functions, repeat)
    print(f"   {'':34s} {'time':>8s} {'/ pass':>7s}")
    for name, seconds in best.items():
        print(f"   {name:34s} {seconds:7.3f}s {seconds / best['sum']:7.2f}")
    same = all(np.array_equal(results["kernel C"][0], results[f"kernel {layout}"][0]) for layout in layouts)
    same = same and np.array_equal(results["kernel C"][0], results["kernel C, column path (before)"])
    print(f"   same codes in every layout and path: {same}")
    verdict(same, "3. the row tiles give the codes of the column path, in every layout")
    for method, target in FIT_TARGETS.items():
        for layout in layouts:
            ratio = best[f"fit {method} {layout}"] / best["sum"]
            verdict(ratio <= target, f"3. fit {method} {layout}: {ratio:.2f} x one pass (target <= {target:g})")
    print()
    print(f"   Peak memory of the fit above X, fresh subprocesses (target X + extra <= {MEMORY_TARGET:g} X):")
    for method in MEMORY_METHODS:
        for layout, mode in (("C", "tracemalloc"), ("C", "rss"), ("Fortran", "rss"), ("DataFrame", "rss")):
            try:
                out = run_memory_child(_MEMORY_CHILD.format(root=ROOT, method=method, mode=mode, layout=layout,
                                                            m=m, n=n), f"{method} {layout} {mode}")
            except RuntimeError as error:
                print(f"   {method:5s} {layout:9s} {mode:11s} not measured: {str(error)[-200:]}")
                verdict(False, f"3. memory {method} {layout} ({mode}): not measured")
                continue
            ratio = (out["x_bytes"] + out["extra"]) / out["x_bytes"]
            word = verdict(ratio <= MEMORY_TARGET, f"3. memory {method} {layout} ({mode}): (X + extra peak) = "
                                                   f"{ratio:.3f} X (target <= {MEMORY_TARGET:g})")
            print(f"   {method:6s} {layout:9s} {mode:11s} extra peak {out['extra'] / 2 ** 20:7.1f} MB  "
                  f"(X + extra) / X = {ratio:5.3f}  {word}   [{out['how']}]")


_MEMORY_CHILD = r"""
import json, resource, sys
sys.path.insert(1, {root!r})
import numpy as np
import pandas as pd
import fstools as fs
method, mode, layout, m, n = {method!r}, {mode!r}, {layout!r}, {m}, {n}
rng = np.random.default_rng(0)
X = np.empty((m, n), dtype=np.float64, order="F" if layout == "Fortran" else "C")
rng.standard_normal(out=X)
y = rng.integers(0, 2, size=m).astype(np.int32)
data = pd.DataFrame(X) if layout == "DataFrame" else X
fs.FeatureSelector(method=method, k=3, n_jobs=1).fit(X[:2000], y[:2000])   # warm-up: imports, kernels

out = dict(x_bytes=X.nbytes)
out.update(peak_of(lambda: fs.FeatureSelector(method=method, k=10, n_jobs=1).fit(data, y), mode))   # (_harness.PEAK_OF)
print(json.dumps(out))
"""


def main():
    parser = benchmark_parser(__doc__, default_repeat=7)
    parser.add_argument("--only", default="1,2,3", help="comma-separated parts to run (default 1,2,3)")
    args = parser.parse_args()
    parts = {part.strip() for part in args.only.split(",")}
    shapes = [(500, 100), (200, 2_000)] if args.quick else [(2_000, 500), (800, 20_000)]
    start = time.perf_counter()
    print_machine_info("fstools discretisation: one kernel pass vs NumPy blocks", args.quick, args.repeat,
                       {"(m, n)": shapes},
                       timing=f"best of {args.repeat}, runs interleaved; parts 1 CPU time, 2 and 3 wall time")
    if "1" in parts:
        one_thread(shapes, args.repeat)
    if "2" in parts:
        two_threads(shapes, args.repeat)
    if "3" in parts:
        million_rows(args.quick, min(args.repeat, 5))
    print_summary(start)


if __name__ == "__main__":
    main()

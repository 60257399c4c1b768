"""One-pass filters benchmark: fisher, f_test, chi2, pearson (and mim, mrmr) against one NumPy pass.

Run on demand, never in CI:

    python benchmarks/bench_one_pass.py            # 1,000,000 x 50 float64, 400 MB (~2 min on 2 cores)
    python benchmarks/bench_one_pass.py --quick    # 200,000 x 50, a smoke run (< ~1 min)

Every timing is the best of N runs (``--repeat``, N >= 3) of ``time.perf_counter``; the runs
that are compared with each other are interleaved (A, B, C, A, B, C, ...), so a change in
machine load hits the numerator and the baseline alike.  The script never asserts on time: it
prints PASS/FAIL lines against the targets, and a summary at the end.

Sections
--------
1. Time, one thread: ``fs.FeatureSelector(method=m, k=10, n_jobs=1).fit(X, y)`` on a C-ordered
   ``X`` (standard normal, two classes y random 0/1), as a new user would call it, against one
   NumPy pass over the same array, ``X.sum(axis=0)``, measured interleaved in the same run.
   chi2 is fitted on ``|X|`` (non-negative; its own baseline ``|X|.sum(axis=0)``), pearson on a
   continuous response.  Targets (time / one pass): fisher, f_test, chi2, pearson <= 4;
   mim <= 6; mrmr (k = 10) <= 10.  Also shown: the kernel alone
   (:func:`fstools.core.arrays.column_moments`, the one read of ``X``).
2. Layout: the same fits of fisher, f_test and pearson on the same values in C order, in
   Fortran order, and as a pandas DataFrame built the usual way (``pd.DataFrame(X, columns=...)``
   with the response as a column, then ``fs.select("y ~ .", df, method=m, k=10, n_jobs=1)``);
   target: each within 1.2x of the fastest of the three.  Also shown (info): the kernel alone in
   C and Fortran order on as many values in 130 and 1,000 columns.  (chi2 is registered C-order only:
   ``tests/test_layout.py`` feeds negative values to every ``any_layout`` method.)
3. Memory: peak memory of the fit (C order) in fresh subprocesses, (a) with ``tracemalloc``
   (NumPy's allocations) and (b) as the process high-water mark ``VmHWM`` reset just before
   the fit through ``/proc/self/clear_refs`` (every touched page, the kernel's buffers too;
   falls back to ``ru_maxrss``); target: X + extra peak <= 1.25 X (no float64 copy of X, no
   temporaries of its size).
See ``benchmarks/README.md``.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a source checkout: use the in-place build
    sys.path.insert(1, ROOT)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import fstools as fs  # noqa: E402
from _harness import (benchmark_parser, interleaved_best,  # noqa: E402
                      print_machine_info, run_memory_child, verdict, print_summary)
from fstools.core.arrays import column_moments  # noqa: E402

FULL_SIZES = dict(m=1_000_000, n=50, k=10)
QUICK_SIZES = dict(m=200_000, n=50, k=10)

#: time / one NumPy pass (X.sum(axis=0)), one thread.
TIME_TARGETS = {"fisher": 4.0, "f_test": 4.0, "chi2": 4.0, "pearson": 4.0, "mim": 6.0, "mrmr": 10.0}
#: slowest layout / fastest layout.
LAYOUT_TARGET = 1.2
#: (X + extra peak) / X.
MEMORY_TARGET = 1.25


def make_data(m, n, seed=0):
    """X standard normal (C order, written in place), y random 0/1 (int32), a continuous response."""
    rng = np.random.default_rng(seed)
    X = np.empty((m, n), dtype=np.float64)
    rng.standard_normal(out=X)
    y = rng.integers(0, 2, size=m).astype(np.int32)
    response = X[:, 0] + rng.standard_normal(m)
    return X, y, response


def _fit(method, X, y, k):
    kwargs = {"response_type": "continuous"} if method == "pearson" else {}
    return fs.FeatureSelector(method=method, k=k, n_jobs=1, **kwargs).fit(X, y)


# ----------------------------------------------------------------------------------

def section_time(sizes, repeat, data):
    X, y, response = data
    m, n, k = sizes["m"], sizes["n"], sizes["k"]
    absolute = np.abs(X)
    print()
    print(f"[1] Time, one thread: FeatureSelector(method=m, k={k}, n_jobs=1).fit(X, y) on {m:,} x {n} "
          f"float64 (C order, {X.nbytes / 2 ** 20:.0f} MB)")
    print("    baseline: one NumPy pass X.sum(axis=0) (chi2: |X|.sum(axis=0)), interleaved with the fits")
    for method in TIME_TARGETS:   # warm-up: imports, kernels, OpenMP pool
        _fit(method, absolute[:2000] if method == "chi2" else X[:2000],
             response[:2000] if method == "pearson" else y[:2000], 3)
    functions = {
        "sum": lambda: X.sum(axis=0),
        "abs_sum": lambda: absolute.sum(axis=0),
        "kernel": lambda: column_moments(X, y, 2, n_threads=1),
        "fisher": lambda: _fit("fisher", X, y, k),
        "f_test": lambda: _fit("f_test", X, y, k),
        "chi2": lambda: _fit("chi2", absolute, y, k),
        "pearson": lambda: _fit("pearson", X, response, k),
        "mim": lambda: _fit("mim", X, y, k),
        "mrmr": lambda: _fit("mrmr", X, y, k),
    }
    times, results = interleaved_best(functions, repeat)
    print(f"    {'':34s} {'time':>9s} {'/ pass':>7s} {'target':>7s}")
    print(f"    {'one pass X.sum(axis=0)':34s} {times['sum']:8.3f}s {1.0:7.2f}")
    print(f"    {'one pass |X|.sum(axis=0)':34s} {times['abs_sum']:8.3f}s {times['abs_sum'] / times['sum']:7.2f}")
    print(f"    {'kernel column_moments alone':34s} {times['kernel']:8.3f}s {times['kernel'] / times['sum']:7.2f}"
          f"     info")
    ratios = {}
    for method, target in TIME_TARGETS.items():
        base = times["abs_sum"] if method == "chi2" else times["sum"]
        ratio = times[method] / base
        ratios[method] = ratio
        label = f"{method}" + (f" (k={k})" if method == "mrmr" else "") + (" on |X|" if method == "chi2" else "") \
            + (" continuous y" if method == "pearson" else "")
        word = verdict(ratio <= target, f"[1] {label}: {times[method]:.3f} s = {ratio:.2f} x one pass "
                                        f"(target <= {target:g})")
        print(f"    {'fit ' + label:34s} {times[method]:8.3f}s {ratio:7.2f} {'<= ' + format(target, 'g'):>7s}  {word}")
    selected = {method: list(results[method].ranking_) for method in ("fisher", "f_test")}
    print(f"    fisher and f_test select the same columns: {selected['fisher'] == selected['f_test']}")
    return ratios


# ----------------------------------------------------------------------------------

def section_layout(sizes, repeat, data):
    X, y, response = data
    m, n, k = sizes["m"], sizes["n"], sizes["k"]
    names = [f"x{j}" for j in range(n)]
    fortran = np.asfortranarray(X)
    frame = pd.DataFrame(X, columns=names)
    frame["y"] = y
    continuous = pd.DataFrame(X, columns=names)
    continuous["y"] = response
    print()
    print(f"[2] Layout: the same fits on C order, Fortran order and a pandas DataFrame ({m:,} x {n})")
    print("    DataFrame: pd.DataFrame(X, columns=names) with the response as column 'y', then")
    print(f"    fs.select('y ~ .', df, method=m, k={k}, n_jobs=1)  (its values: "
          f"{'Fortran' if frame[names].to_numpy().flags.f_contiguous else 'C'} order)")
    for method in ("fisher", "f_test", "pearson"):
        target = response if method == "pearson" else y
        data_frame = continuous if method == "pearson" else frame
        extra = {"response_type": "continuous"} if method == "pearson" else {}
        fs.select("y ~ .", data_frame.iloc[:2000], method=method, k=3, n_jobs=1, **extra)  # warm-up
        functions = {
            "C": lambda: _fit(method, X, target, k),
            "Fortran": lambda: _fit(method, fortran, target, k),
            "DataFrame": lambda: fs.select("y ~ .", data_frame, method=method, k=k, n_jobs=1, **extra),
        }
        times, results = interleaved_best(functions, repeat)
        fastest = min(times.values())
        same = (list(results["C"].ranking_) == list(results["Fortran"].ranking_)
                and [f"x{j}" for j in results["C"].ranking_] == list(results["DataFrame"].selected))
        cells = "  ".join(f"{name} {value:6.3f}s ({value / fastest:4.2f})" for name, value in times.items())
        worst = max(times.values()) / fastest
        word = verdict(worst <= LAYOUT_TARGET, f"[2] {method}: slowest layout {worst:.2f} x the fastest "
                                               f"(target <= {LAYOUT_TARGET:g}); same selection: {same}")
        print(f"    {method:8s} {cells}   worst/fastest {worst:4.2f} (<= {LAYOUT_TARGET:g})  {word}"
              f"{'' if same else '  SELECTIONS DIFFER'}")
    # Wider matrices of the same number of values: the kernel alone (info, no target).
    values = m * n
    print(f"    wider, the kernel column_moments alone on {values:,} values (two classes), ns a value:")
    rng = np.random.default_rng(1)
    for width in (130, 1000, 20000):
        rows = values // width
        wide = np.empty((rows, width))
        rng.standard_normal(out=wide)
        classes = rng.integers(0, 2, size=rows).astype(np.int32)
        wide_fortran = np.asfortranarray(wide)
        times, _ = interleaved_best({"C": lambda: column_moments(wide, classes, 2),
                                     "Fortran": lambda: column_moments(wide_fortran, classes, 2)}, repeat)
        cells = "  ".join(f"{name} {value / rows / width * 1e9:5.2f}" for name, value in times.items())
        print(f"      {rows:,} x {width:,}   {cells}   Fortran / C {times['Fortran'] / times['C']:4.2f}   info")
        del wide, wide_fortran


# ----------------------------------------------------------------------------------

_MEMORY_CHILD = r"""
import json, os, resource, sys
sys.path.insert(1, {root!r})
import numpy as np
import fstools as fs
method, mode, m, n = {method!r}, {mode!r}, {m}, {n}
rng = np.random.default_rng(0)
X = np.empty((m, n), dtype=np.float64)
rng.standard_normal(out=X)
if method == "chi2":
    np.abs(X, out=X)
if method == "pearson":
    y = X[:, 0] + rng.standard_normal(m)
    kwargs = dict(response_type="continuous")
else:
    y = rng.integers(0, 2, size=m).astype(np.int32)
    kwargs = dict()

def fit(rows):
    return fs.FeatureSelector(method=method, k=10, n_jobs=1, **kwargs).fit(X[:rows], y[:rows])

fit(2000)   # warm-up: imports, kernels

out = dict(x_bytes=X.nbytes)
out.update(peak_of(lambda: fit(m), mode))   # (_harness.PEAK_OF)
print(json.dumps(out))
"""


def measure_memory(method, mode, m, n):
    code = _MEMORY_CHILD.format(root=ROOT, method=method, mode=mode, m=m, n=n)
    return run_memory_child(code, f"{method}, {mode}")


def section_memory(sizes):
    m, n = sizes["m"], sizes["n"]
    print()
    print(f"[3] Memory: peak of FeatureSelector(method=m, k=10, n_jobs=1).fit(X, y) on {m:,} x {n} (C order),")
    print("    each in a fresh subprocess; X + extra peak against X (target <= "
          f"{MEMORY_TARGET:g} X: no float64 copy of X, no temporary of its size)")
    for method in ("fisher", "f_test", "chi2", "pearson"):
        for mode in ("tracemalloc", "rss"):
            try:
                out = measure_memory(method, mode, m, n)
            except RuntimeError as error:   # reported, not raised: the other rows still run
                verdict(False, f"[3] {method} ({mode}): not measured ({str(error).splitlines()[-1][-120:]})")
                print(f"    {method:8s} {mode:11s} not measured: {str(error).splitlines()[-1][-120:]}")
                continue
            ratio = (out["x_bytes"] + out["extra"]) / out["x_bytes"]
            word = verdict(ratio <= MEMORY_TARGET, f"[3] {method} ({mode}): (X + extra peak) = {ratio:.3f} X "
                                                   f"(target <= {MEMORY_TARGET:g})")
            print(f"    {method:8s} {mode:11s} X {out['x_bytes'] / 2 ** 20:7.1f} MB  extra peak "
                  f"{out['extra'] / 2 ** 20:7.1f} MB  (X + extra) / X = {ratio:5.3f}  {word}   [{out['how']}]")


def main(argv=None):
    parser = benchmark_parser(__doc__)
    parser.add_argument("--only", default="1,2,3", help="comma-separated sections to run (default 1,2,3)")
    args = parser.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    items = {item.strip() for item in args.only.split(",")}
    start = time.perf_counter()
    print_machine_info("One-pass filters benchmark", args.quick, args.repeat, sizes)
    data = make_data(sizes["m"], sizes["n"]) if items & {"1", "2"} else None
    if "1" in items:
        section_time(sizes, args.repeat, data)
    if "2" in items:
        section_layout(sizes, args.repeat, data)
    if "3" in items:
        section_memory(sizes)
    print_summary(start)


if __name__ == "__main__":
    main()

"""Benchmark of DFS (l2,p-regularised discriminative feature selection, Tao et al. 2016).

Run on demand, never in CI:

    python benchmarks/bench_dfs.py            # the sizes the issue names (~2-4 min)
    python benchmarks/bench_dfs.py --quick    # reduced sizes, a smoke run (< ~30 s)

Every timing is the best of N runs (``--repeat``, N >= 3) of ``time.perf_counter``; the runs of
the timings that are compared are interleaved, so a change in machine load hits the numerator
and the baseline alike.  Every number is printed with a ratio against a baseline measured in the
same run.  The script never asserts on time: it prints PASS/FAIL lines against the targets, and
a summary at the end.

Sections
--------
1. 62 x 2,000 (COLON shape, two classes 40/22), p = 1, gamma = 1, the paper's iteration limit of
   20 run in full (tol = 0): ``dfs_fit`` with the default solver (Lanczos; nothing d x d is
   built).  Target: < 5 s.  Baselines: ``np.linalg.svd(X)`` on one BLAS thread (touching the span
   of the data once)
   and the dense O(d^3) solver, timed on 3 iterations and extrapolated to 20 (said so), after
   checking that both solvers give the same ranking.
2. 1,440 x 1,024 (COIL20 shape, 20 classes, l = 19), p = 1, 20 iterations: ``dfs_fit`` with the
   default solver (Lanczos on the d x d Cholesky factor, n >= d) with n_threads = 1 and 2 (the
   Lanczos solver runs on one BLAS thread whatever n_threads; the second run checks that asking
   for threads, as ``fs.select``'s default does, costs nothing).  Target: < 5 s.  Baseline: the
   dense solver, 20 iterations, one thread; same ranking checked.
3. 203 x 12,600 (LUNG shape before gene filtering, class sizes 139/21/20/6/17): the Lanczos
   solver's time, and its peak traced memory, which must stay below the size of one dense
   12,600 x 12,600 matrix (1.27 GB: no such matrix can have been built); no time target.  The
   dense solver is not run (its time is extrapolated from section 1 by (d ratio)^3).
4. ``gamma='cv'`` (9 values, 5-fold linear-SVM CV) on the set of section 1: what the paper's
   gamma search costs; no target.
See ``benchmarks/README.md``.
"""
import os
import sys
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a source checkout: use the in-place build
    sys.path.insert(1, ROOT)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from _harness import (SUMMARY, benchmark_parser, interleaved_best,  # noqa: E402
                      print_machine_info, verdict, print_summary)
from fstools.methods.discriminant import GAMMA_GRID, dfs, dfs_fit  # noqa: E402

TIME_TARGET = 5.0      # seconds, sections 1 and 2
ITERATIONS = 20        # the paper's runs converge within 20 iterations (section VI-F)
DENSE_SAMPLE_ITERATIONS = 3

FULL_SIZES = dict(colon=(62, 2000), coil=(1440, 1024, 20), lung=(203, 12600), lung_classes=(139, 21, 20, 6, 17))
QUICK_SIZES = dict(colon=(62, 500), coil=(400, 256, 10), lung=(60, 3000), lung_classes=(30, 10, 10, 5, 5))



def machine_info(args, sizes):
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info

    blas = ", ".join(f"{info.get('internal_api')} {info.get('version')} ({info.get('num_threads')} threads)"
                     for info in threadpool_info() if info.get("user_api") == "blas") or "unknown"
    print_machine_info("DFS benchmark", args.quick, args.repeat, sizes, environment=(),
                       packages=[("scipy / BLAS", f"{scipy.__version__};  BLAS: {blas}"),
                                 ("scikit-learn", sklearn.__version__)])


def two_class_wide(n, d, seed=0):
    """COLON-shaped: 40/22 of 62 (same proportion otherwise), 20 informative columns first."""
    rng = np.random.default_rng(seed)
    n_minor = round(n * 22 / 62)
    y = np.zeros(n, dtype=np.int32)
    y[rng.permutation(n)[:n_minor]] = 1
    X = rng.normal(size=(n, d))
    X[:, :20] += 0.8 * (2.0 * y[:, None] - 1.0) * rng.uniform(0.5, 1.5, size=20)
    return X, y


def many_class(n, d, n_classes, seed=0):
    """COIL-shaped: equal classes, low-rank structure (image-like correlations) plus class means."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), -(-n // n_classes))[:n].astype(np.int32)
    X = rng.normal(size=(n, 40)) @ rng.normal(size=(40, d)) + rng.normal(size=(n, d))
    X += 0.6 * rng.normal(size=(n_classes, d))[y]
    return X, y


def lung_like(n, d, class_sizes, seed=0):
    rng = np.random.default_rng(seed)
    sizes = np.asarray(class_sizes) * n // sum(class_sizes)
    sizes[0] += n - sizes.sum()
    y = np.repeat(np.arange(len(sizes)), sizes).astype(np.int32)
    X = rng.normal(size=(n, d))
    X[:, :50] += 1.0 * rng.normal(size=(len(sizes), 50))[y]
    return X, y


def svd_one_thread(X):
    """The baseline: one thin SVD of X with one BLAS thread (as the DFS runs it is compared with)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return np.linalg.svd(X, full_matrices=False)


def same_ranking(a, b, top=100):
    return list(np.argsort(-a.row_norms, kind="stable")[:top]) == list(np.argsort(-b.row_norms, kind="stable")[:top])


# --------------------------------------------------------------------------- sections

def section_colon(sizes, repeat, quick):
    n, d = sizes["colon"]
    X, y = two_class_wide(n, d)
    tag = " (quick sizes)" if quick else ""
    print()
    print(f"[1] {n} x {d:,} (COLON shape, two classes), p = 1, gamma = 1, {ITERATIONS} iterations (tol = 0),")
    print("    default solver, n_threads = 1")
    dfs_fit(X[:, :50], y, max_iter=2)   # warm-up (imports)
    times, results = interleaved_best({
        "svd": lambda: svd_one_thread(X),
        "dfs": lambda: dfs_fit(X, y, p=1.0, gamma=1.0, max_iter=ITERATIONS, tol=0.0, n_threads=1),
        "dense3": lambda: dfs_fit(X, y, p=1.0, gamma=1.0, max_iter=DENSE_SAMPLE_ITERATIONS, tol=0.0, solver="dense",
                                  n_threads=1),
        "lanczos3": lambda: dfs_fit(X, y, p=1.0, gamma=1.0, max_iter=DENSE_SAMPLE_ITERATIONS, tol=0.0,
                                    solver="lanczos", n_threads=1),
    }, repeat)
    fit = results["dfs"]
    svd = times["svd"]
    dense_total = times["dense3"] / DENSE_SAMPLE_ITERATIONS * ITERATIONS
    match = same_ranking(results["dense3"], results["lanczos3"])
    gap = np.max(np.abs(results["dense3"].row_norms - results["lanczos3"].row_norms)) / \
        results["dense3"].row_norms.max()
    SUMMARY.append(f"{'PASS' if match else 'FAIL'}  [1] dense and Lanczos solvers, same top-100 ranking after "
                   f"{DENSE_SAMPLE_ITERATIONS} iterations on {n} x {d:,}: {'MATCH' if match else 'MISMATCH'}")
    word = verdict(times["dfs"] < TIME_TARGET, f"[1] DFS {n} x {d:,}, p = 1, {ITERATIONS} iterations: "
                                                f"{times['dfs']:.3f} s (target < {TIME_TARGET:g} s){tag}")
    print(f"    {'np.linalg.svd(X), 1 thread (baseline)':44s} {svd:9.4f} s   ratio {1:8.1f}")
    print(f"    {'dfs_fit, solver ' + fit.solver:44s} {times['dfs']:9.4f} s   ratio {times['dfs'] / svd:8.1f} x svd"
          f"   target < {TIME_TARGET:g} s  {word}")
    print(f"    {'dense solver, ' + str(DENSE_SAMPLE_ITERATIONS) + ' iterations (measured)':44s} "
          f"{times['dense3']:9.4f} s")
    print(f"    {'dense solver, 20 iterations (EXTRAPOLATED)':44s} {dense_total:9.2f} s   "
          f"speed-up of the default solver: {dense_total / times['dfs']:.0f}x")
    print(f"    same top-100 ranking, dense vs Lanczos ({DENSE_SAMPLE_ITERATIONS} iterations): "
          f"{'MATCH' if match else 'MISMATCH'}; max |difference| of row norms {gap:.1e} (relative)")
    print(f"    informative columns (0..19) among the top 20: {int(np.sum(np.argsort(-fit.row_norms)[:20] < 20))}")
    return times["dense3"] / DENSE_SAMPLE_ITERATIONS, d


def section_coil(sizes, repeat, quick):
    n, d, c = sizes["coil"]
    X, y = many_class(n, d, c)
    tag = " (quick sizes)" if quick else ""
    print()
    print(f"[2] {n:,} x {d:,} (COIL20 shape, {c} classes, l = {c - 1}), p = 1, gamma = 1, {ITERATIONS} iterations "
          f"(tol = 0)")
    times, results = interleaved_best({
        "dense": lambda: dfs_fit(X, y, max_iter=ITERATIONS, tol=0.0, solver="dense", n_threads=1),
        "t1": lambda: dfs_fit(X, y, max_iter=ITERATIONS, tol=0.0, n_threads=1),
        "t2": lambda: dfs_fit(X, y, max_iter=ITERATIONS, tol=0.0, n_threads=2),
    }, repeat)
    base = times["dense"]
    print(f"    {'dense solver, n_threads=1 (baseline)':44s} {base:9.3f} s   ratio {1:6.2f}")
    for key, threads in (("t1", 1), ("t2", 2)):
        word = verdict(times[key] < TIME_TARGET, f"[2] DFS {n:,} x {d:,}, {c} classes, p = 1, {ITERATIONS} "
                                                  f"iterations, n_threads={threads}: {times[key]:.3f} s "
                                                  f"(target < {TIME_TARGET:g} s){tag}")
        print(f"    {'dfs_fit default (' + results[key].solver + '), n_threads=' + str(threads):44s} "
              f"{times[key]:9.3f} s   ratio {times[key] / base:6.2f} x dense   target < {TIME_TARGET:g} s  {word}")
    match = same_ranking(results["dense"], results["t1"])
    SUMMARY.append(f"{'PASS' if match else 'FAIL'}  [2] dense and default solvers, same top-100 ranking on "
                   f"{n:,} x {d:,}: {'MATCH' if match else 'MISMATCH'}")
    print(f"    same top-100 ranking, dense vs default solver: {'MATCH' if match else 'MISMATCH'}")


def section_lung(sizes, repeat, quick, dense_per_iteration, dense_d):
    n, d = sizes["lung"]
    X, y = lung_like(n, d, sizes["lung_classes"])
    print()
    print(f"[3] {n} x {d:,} (LUNG shape, {len(sizes['lung_classes'])} classes), p = 1, {ITERATIONS} iterations "
          f"(tol = 0), default solver, n_threads = 1")
    times, results = interleaved_best({
        "svd": lambda: svd_one_thread(X),
        "dfs": lambda: dfs_fit(X, y, max_iter=ITERATIONS, tol=0.0, n_threads=1),
    }, repeat)
    tracemalloc.start()
    fit = dfs_fit(X, y, max_iter=2, tol=0.0, n_threads=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    dense_bytes = 8.0 * d * d
    print(f"    {'np.linalg.svd(X), 1 thread (baseline)':44s} {times['svd']:9.3f} s   ratio {1:8.1f}")
    print(f"    {'dfs_fit, solver ' + results['dfs'].solver:44s} {times['dfs']:9.3f} s   ratio "
          f"{times['dfs'] / times['svd']:8.1f} x svd   (no target)")
    print(f"    peak traced memory of a DFS run: {peak / 1e6:.1f} MB = {peak / X.nbytes:.1f} x the data "
          f"({X.nbytes / 1e6:.1f} MB); one dense {d:,} x {d:,} matrix would be {dense_bytes / 1e9:.2f} GB")
    extrapolated = dense_per_iteration * (d / dense_d) ** 3 * ITERATIONS
    print(f"    dense solver not run: ~{extrapolated / 60:.0f} min for {ITERATIONS} iterations (EXTRAPOLATED from [1] "
          f"by (d ratio)^3 = ({d:,} / {dense_d:,})^3)")
    SUMMARY.append(f"{'PASS' if peak < dense_bytes else 'FAIL'}  [3] {n} x {d:,}: peak traced memory "
                   f"{peak / 1e6:.0f} MB, {'below' if peak < dense_bytes else 'NOT below'} the size of one d x d "
                   f"matrix ({dense_bytes / 1e9:.2f} GB), so none was built; time {times['dfs']:.2f} s (no target)")
    del fit


def section_cv(sizes, repeat, quick):
    n, d = sizes["colon"]
    X, y = two_class_wide(n, d)
    print()
    print(f"[4] gamma='cv' on the {n} x {d:,} set of [1]: {len(GAMMA_GRID)} gammas x (one DFS run + 5-fold linear "
          f"SVM on the top m, m = 10..100 step 5)")
    times, results = interleaved_best({
        "one": lambda: dfs(X, y, gamma=1.0, n_threads=1),
        "cv": lambda: dfs(X, y, gamma="cv", n_threads=1),
    }, max(1, repeat // 3))
    table = results["cv"].tables["gamma_cv"]
    print(f"    {'dfs, gamma = 1 (baseline)':44s} {times['one']:9.3f} s   ratio {1:6.1f}")
    print(f"    {'dfs, gamma = cv':44s} {times['cv']:9.3f} s   ratio {times['cv'] / times['one']:6.1f}   (no target)")
    shown = pd.DataFrame(table)
    print("    " + shown.to_string(index=False).replace("\n", "\n    "))


def main(argv=None):
    parser = benchmark_parser(__doc__, quick_help="reduced sizes (smoke run, < ~30 s)")
    args = parser.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    start = time.perf_counter()
    machine_info(args, sizes)
    dense_per_iteration, dense_d = section_colon(sizes, args.repeat, args.quick)
    section_coil(sizes, args.repeat, args.quick)
    section_lung(sizes, args.repeat, args.quick, dense_per_iteration, dense_d)
    section_cv(sizes, args.repeat, args.quick)
    print_summary(start)


if __name__ == "__main__":
    main()

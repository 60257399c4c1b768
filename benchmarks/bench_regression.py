"""Benchmark of the methods with a continuous response against their classification versions, and of
the Kraskov mutual-information estimator against scikit-learn's.

Run on demand, never in CI:

    python benchmarks/bench_regression.py            # the sizes the issue names (~1-2 min on 2 cores)
    python benchmarks/bench_regression.py --quick    # reduced sizes, a smoke run (~10 s)

Every timing is the best of N runs (``--repeat``, N >= 3) of ``time.perf_counter``; the runs that
are compared are interleaved (A, B, A, B, ...).  The script never asserts on time: it prints
PASS/FAIL lines against the targets, and a summary at the end.

Sections
--------
1. Continuous vs class response on 2,000 x 500 (one thread each, through
   :func:`fstools.api.selection.run_method` with the methods' defaults): f_test, mim, mrmr (k = 50),
   bahsic (linear kernels) with a continuous response and with the classes ``y > median`` of the
   same response; pearson against the ANOVA F (f_test with the classes: Pearson's r has no class
   version, the F-test is its counterpart), rrelieff against relieff.  Target: ratio
   continuous / class <= 1.5 for each pair.  Also printed, without a target: pearson against the
   Fisher score (a Cython kernel, the fastest class filter).
2. The Kraskov estimator, ``mim(estimator="knn")`` on 10,000 x 100, against
   :func:`sklearn.feature_selection.mutual_info_regression` (same ``n_neighbors=3`` and
   ``random_state``, one job).  Target: ratio fstools / scikit-learn <= 1, with equal values
   (largest absolute difference printed; PASS when <= 1e-12).
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
from sklearn.feature_selection import mutual_info_regression  # noqa: E402

from _harness import benchmark_parser, interleaved_best, print_machine_info, print_summary, verdict  # noqa: E402
from fstools.api.selection import run_method  # noqa: E402
from fstools.methods.registry import get_method  # noqa: E402

RATIO_TARGET = 1.5         # continuous / class, each pair
KRASKOV_RATIO_TARGET = 1.0  # fstools / scikit-learn
EQUAL_TOLERANCE = 1e-12

FULL_SIZES = dict(n=2000, d=500, k=50, knn_n=10_000, knn_d=100)
QUICK_SIZES = dict(n=500, d=100, k=20, knn_n=2000, knn_d=20)

#: (label, continuous method, class method, k used)
PAIRS = (("f_test", "f_test", "f_test", None), ("pearson vs f_test", "pearson", "f_test", None),
         ("mim", "mim", "mim", None), ("mrmr", "mrmr", "mrmr", "k"), ("rrelieff vs relieff", "rrelieff", "relieff", None),
         ("bahsic (linear)", "bahsic", "bahsic", None))


def regression_data(n, d, seed=0):
    """Random normal features; the response a linear + quadratic function of the first 10 plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X[:, :5] @ np.arange(1, 6) + (X[:, 5:10] ** 2).sum(axis=1) + rng.standard_normal(n)
    return X, y


def call(name, X, y, k, response_type):
    spec = get_method(name)
    return lambda: run_method(spec, X, y, k, spec.defaults(), 1, response_type=response_type)


def section_pairs(sizes, repeat, quick):
    tag = " (quick sizes)" if quick else ""
    n, d = sizes["n"], sizes["d"]
    print()
    print(f"[1] Continuous vs class response on {n:,} x {d:,} (one thread; classes: y > median)")
    X, y = regression_data(n, d)
    classes = (y > np.median(y)).astype(np.int32)
    for label, continuous, classification, k in PAIRS:
        k = sizes["k"] if k == "k" else None
        times, _ = interleaved_best({"continuous": call(continuous, X, y, k, "continuous"),
                                     "class": call(classification, X, classes, k, "class")}, repeat)
        ratio = times["continuous"] / times["class"]
        word = verdict(ratio <= RATIO_TARGET, f"[1] {label}: continuous / class = {ratio:.2f} "
                                              f"(target <= {RATIO_TARGET}){tag}")
        print(f"    {label:22s} continuous {times['continuous']:7.3f} s   class {times['class']:7.3f} s   "
              f"ratio {ratio:5.2f}  {word}")
    times, _ = interleaved_best({"pearson": call("pearson", X, y, None, "continuous"),
                                 "fisher": call("fisher", X, classes, None, "class")}, repeat)
    print(f"    {'pearson vs fisher':22s} continuous {times['pearson']:7.3f} s   class {times['fisher']:7.3f} s   "
          f"ratio {times['pearson'] / times['fisher']:5.2f}  (no target)")


def section_kraskov(sizes, repeat, quick):
    tag = " (quick sizes)" if quick else ""
    n, d = sizes["knn_n"], sizes["knn_d"]
    print()
    print(f"[2] Kraskov estimator on {n:,} x {d:,}: mim(estimator='knn') vs mutual_info_regression "
          f"(n_neighbors = 3, random_state = 0)")
    X, y = regression_data(n, d, seed=1)
    spec = get_method("mim")
    params = {**spec.defaults(), "estimator": "knn"}
    functions = {
        "fstools, 1 thread": lambda: run_method(spec, X, y, None, params, 1, response_type="continuous").scores,
        "fstools, 2 threads": lambda: run_method(spec, X, y, None, params, 2, response_type="continuous").scores,
        "scikit-learn": lambda: mutual_info_regression(X, y, n_neighbors=3, random_state=0),
    }
    times, results = interleaved_best(functions, repeat)
    for name, seconds in times.items():
        print(f"    {name:22s} {seconds:7.3f} s")
    difference = float(np.max(np.abs(results["fstools, 1 thread"] - results["scikit-learn"])))
    same_threads = np.array_equal(results["fstools, 1 thread"], results["fstools, 2 threads"])
    ratio = times["fstools, 1 thread"] / times["scikit-learn"]
    word = verdict(ratio <= KRASKOV_RATIO_TARGET and difference <= EQUAL_TOLERANCE,
                   f"[2] Kraskov: fstools (1 thread) / scikit-learn = {ratio:.2f} (target <= "
                   f"{KRASKOV_RATIO_TARGET}), max |difference| {difference:.1e} (target <= {EQUAL_TOLERANCE:g}){tag}")
    print(f"    ratio (1 thread) {ratio:.2f}, (2 threads) {times['fstools, 2 threads'] / times['scikit-learn']:.2f}; "
          f"max |difference| {difference:.1e}; 1 and 2 threads identical: {same_threads}  {word}")


def main():
    parser = benchmark_parser(__doc__, quick_help="reduced sizes (a smoke run)")
    args = parser.parse_args()
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    started = time.perf_counter()
    import sklearn
    print_machine_info("Continuous-response benchmark", args.quick, args.repeat, sizes,
                       packages=[("scikit-learn", sklearn.__version__)])
    section_pairs(sizes, args.repeat, args.quick)
    section_kraskov(sizes, args.repeat, args.quick)
    print_summary(started)


if __name__ == "__main__":
    main()

"""Scaling in the number of rows: time and peak memory of every method that can run there.

Run on demand, never in CI:

    python benchmarks/bench_rows.py            # n = 10^4 ... 10^7 rows, 10 features (~10-20 min on 2 cores)
    python benchmarks/bench_rows.py --quick    # n = 10^3 ... 10^5, a smoke run (< 1 min)
    python benchmarks/bench_rows.py --methods fisher,mim,cmqfs

Each method is fitted as a new user would, ``FeatureSelector(method=m, k=5, n_jobs=1).fit(X, y)``
(one thread), on ``n`` rows of 10 standard normal features (every other one rounded to one
decimal: ties) and a response of two classes (a continuous one for ``pearson``), for
n = 10^4, 10^5, 10^6 and 10^7 as long as twice the previous size's time, times 12 (120 for a
pairwise method), stays within ``--budget`` (a method linear in n takes about 10x longer per
step, a pairwise one 100x).  Printed per method and size: the best of ``--repeat`` fits (of at
most two at 10^7: one fit there is too noisy for an exponent), and the peak memory of one more
fit above the input (tracemalloc: NumPy's allocations; the kernels' own per-thread buffers are
not seen), as a share of ``X``.  The exponent is the slope of log time against log n over the sizes
from 10^5 up (below that the fixed cost of a call shows): 1 is linear, and the target for every
method whose cost should be linear in n (all but the pairwise ones: relieff, rrelieff and laplacian;
BAHSIC's default kernel is linear) is <= 1.1; CMQFS sorts each feature, n log n,
whose slope over 10^5..10^7 is about 1.06.  The methods whose cost is quadratic in n run only
at the sizes the budget allows, and are reported with their exponent (about 2).

The figure (``benchmarks/output/rows.png``, and with ``--figure PATH`` where the README shows
it) draws time against n on log axes, one line per method, with a line of slope 1 for reference.
The script never asserts: it prints PASS/FAIL lines against the targets and a summary.
"""
import gc
import os
import sys
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a source checkout: use the in-place build
    sys.path.insert(1, ROOT)

import numpy as np  # noqa: E402

from _harness import (SUMMARY, benchmark_parser, print_machine_info, print_summary, two_class_data,  # noqa: E402
                      verdict)
import fstools as fs  # noqa: E402
from fstools.methods.registry import get_method  # noqa: E402

FEATURES = 10
K = 5
FULL_ROWS = (10_000, 100_000, 1_000_000, 10_000_000)
QUICK_ROWS = (1_000, 10_000, 100_000)
#: Methods whose cost grows faster than n (pairs of rows); the others should be linear in n (BAHSIC
#: with its default linear kernel too)
#: (CMQFS: n log n).
PAIRWISE = {"relieff", "rrelieff", "laplacian"}
#: Methods that need a continuous response.
CONTINUOUS = {"pearson", "rrelieff"}
#: Multi-label methods (another kind of response: not in this curve).
MULTILABEL = {"elc", "llsf", "cmfs", "ml_fisher", "ml_mi", "ml_mifs"}
#: The slope of n log2 n over 10^5..10^7 (for CMQFS's target).
N_LOG_N_SLOPE = np.polyfit(np.log([1e5, 1e6, 1e7]), np.log([n * np.log2(n) for n in (1e5, 1e6, 1e7)]), 1)[0]


def data(n, continuous, non_negative=False, seed=0):
    X, y = two_class_data(n, FEATURES, seed)
    if non_negative:  # chi2 takes counts: |X| (in place)
        np.abs(X, out=X)
    if continuous:
        rng = np.random.default_rng(seed + 1)
        y = X[:, 0] - 0.5 * X[:, 1] + rng.standard_normal(n)
    return X, y


def fit(method, X, y):
    return fs.FeatureSelector(method=method, k=K, n_jobs=1).fit(X, y)


def time_fit(method, X, y, repeat):
    best = np.inf
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fit(method, X, y)
        best = min(best, time.perf_counter() - start)
    return best


def peak_memory(method, X, y):
    """Peak bytes NumPy and Python allocated during one fit, above what was held before."""
    gc.collect()
    tracemalloc.start()
    try:
        fit(method, X, y)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def slope(sizes, times):
    """Slope of log time against log n over the sizes from 10^5 up (all sizes when fewer than two)."""
    sizes, times = np.asarray(sizes, float), np.asarray(times, float)
    use = sizes >= 1e5 if (sizes >= 1e5).sum() >= 2 else np.ones(len(sizes), bool)
    if use.sum() < 2:
        return np.nan
    return float(np.polyfit(np.log(sizes[use]), np.log(times[use]), 1)[0])


def run(methods, rows, repeat, budget):
    curves = {}
    for method in methods:
        continuous = method in CONTINUOUS
        non_negative = "non_negative" in get_method(method).capabilities
        print(f"  {method}")
        sizes, times, memory = [], [], []
        for n in rows:
            # The next size takes about 10x (linear) or 100x (pairwise) the last one, twice
            # (the timed fits and the one under tracemalloc).
            if times and 2 * times[-1] * (12 if method not in PAIRWISE else 120) > budget:
                print(f"      n = {n:>10,d}: skipped (the previous size took {times[-1]:.1f} s; budget {budget:.0f} s)")
                break
            X, y = data(n, continuous, non_negative)
            fit(method, X[:1000], y[:1000])  # warm-up: imports, first-call costs
            seconds = time_fit(method, X, y, repeat if n < 10 ** 7 else min(repeat, 2))
            peak = peak_memory(method, X, y)
            sizes.append(n)
            times.append(seconds)
            memory.append(peak / X.nbytes)
            print(f"      n = {n:>10,d}: {seconds:9.3f} s   {1e9 * seconds / (n * FEATURES):7.1f} ns per value   "
                  f"peak memory X + {100 * peak / X.nbytes:5.1f} %")
            del X, y
        exponent = slope(sizes, times)
        curves[method] = (sizes, times, memory, exponent)
        if method in PAIRWISE:
            print(f"      exponent {exponent:.2f} (pairwise method: about 2 expected; not a target)")
        elif np.isfinite(exponent):
            target = 1.1 if method != "cmqfs" else max(1.1, N_LOG_N_SLOPE + 0.04)
            word = verdict(exponent <= target, f"rows: {method} time ~ n^{exponent:.2f} (target <= {target:.2f})")
            print(f"      exponent {exponent:.2f} (target <= {target:.2f})   {word}")
    return curves


#: The figure's panels: methods of a family share one (a method not listed goes to the last).
FAMILIES = {
    "statistical filters": ("chi2", "f_test", "fisher", "pearson", "trace_ratio"),
    "information methods and CMQFS": ("mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim", "cmqfs"),
    "online (one pass over the rows)": ("pa", "pa1", "pa2", "mbpa", "onpa", "cs"),
    "kernels, neighbours, discriminants": ("bahsic", "dfs", "laplacian", "relieff", "rrelieff"),
}


def figure(curves, paths):
    """Time against n on log axes, one panel per family of :data:`FAMILIES`, a line of slope 1 in
    each; saved to every path of ``paths``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(FAMILIES)
    family_of = {method: family for family, methods in FAMILIES.items() for method in methods}
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharex=True, sharey=True)
    markers = "osD^v<>phH*xP"
    all_sizes = sorted({n for sizes, *_ in curves.values() for n in sizes})
    first = min((times[0] for sizes, times, *_ in curves.values() if sizes), default=None)
    for ax, family in zip(axes.ravel(), names):
        members = [method for method in sorted(curves) if family_of.get(method, names[-1]) == family]
        for i, method in enumerate(members):
            sizes, times, _, exponent = curves[method]
            if not sizes:
                continue
            label = f"{method} (n^{exponent:.2f})" if np.isfinite(exponent) else method
            ax.loglog(sizes, times, marker=markers[i % len(markers)],
                      linestyle="--" if method in PAIRWISE else "-", label=label)
        if all_sizes and first is not None:
            reference = np.array([all_sizes[0], all_sizes[-1]], dtype=float)
            ax.loglog(reference, first * reference / reference[0], color="black", linestyle=":",
                      label="slope 1 (linear)")
        ax.set_title(family, fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8, ncol=2, loc="upper left")
    for ax in axes[1]:
        ax.set_xlabel(f"rows n ({FEATURES} features, two classes)")
    for ax in axes[:, 0]:
        ax.set_ylabel("seconds per fit (one thread)")
    fig.suptitle("Time of FeatureSelector(method, k=5).fit against the number of rows (exponent: slope from "
                 "10^5 up)\ndashed: pairwise methods (quadratic in n), run where the time allows", fontsize=11)
    fig.tight_layout()
    for path in paths:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        fig.savefig(path, dpi=110)
        print(f"figure saved to {os.path.relpath(path, ROOT)}")
    plt.close(fig)


def main(argv=None):
    parser = benchmark_parser(__doc__, quick_help="n = 10^3 ... 10^5 (a smoke run)", default_repeat=3)
    parser.add_argument("--methods", default=None,
                        help="comma-separated methods (default: every single-response method)")
    parser.add_argument("--budget", type=float, default=240.0,
                        help="seconds a method may take at its largest size (default 240)")
    parser.add_argument("--figure", default=None, help="also save the figure here (e.g. docs/_static/rows.png)")
    args = parser.parse_args(argv)
    rows = QUICK_ROWS if args.quick else FULL_ROWS
    if args.methods:
        methods = [name.strip() for name in args.methods.split(",") if name.strip()]
    else:
        methods = [name for name in fs.list_methods()["name"] if name not in MULTILABEL]
    print_machine_info("Rows benchmark: time and peak memory against n", args.quick, args.repeat,
                       dict(rows=rows, features=FEATURES, k=K, budget=args.budget))
    start = time.perf_counter()
    curves = run(methods, rows, args.repeat, args.budget)
    paths = [os.path.join(HERE, "output", "rows.png")] + ([args.figure] if args.figure else [])
    figure(curves, paths)
    print_summary(start)
    return 0 if all(line.startswith("PASS") for line in SUMMARY) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Formula benchmark: ``fs.select("y ~ .")`` against the array path as the number of columns grows.

Run on demand, never in CI:

    python benchmarks/bench_formula.py            # 500 .. 100,000 columns (~5-10 min on 2 cores, ~6 GB)
    python benchmarks/bench_formula.py --quick    # stops at 10,000 columns (< ~1 min)

Every timing is the best of N runs (``--repeat``, N >= 3) of ``time.perf_counter``; the three
calls of one size are interleaved (select, parse, array, select, ...), so a change in machine
load hits the formula path and its baseline alike.  The script never asserts on time: it
prints PASS/FAIL lines against the targets, and a summary at the end.

Data: 2,000 rows, random normal columns ``g0 .. g{p-1}`` (every other one rounded to one
decimal: ties), ``y`` random 0/1 as the last column of the DataFrame; the array path gets the
same values as a C-contiguous float64 array.

Columns of the curve
--------------------
* ``select``: ``fs.select("y ~ .", df, method="fisher", k=10)``, end to end (formula, checks,
  the Fisher score, the result object).
* ``parse``: ``parse_formula("y ~ .", df)`` alone (what the formula costs).
* ``array``: ``fs.FeatureSelector(method="fisher", k=10).fit(X, y)`` on the array (the
  baseline: the same method without a formula).
* ``select/array`` and ``parse/array``: the ratios.  The selection of the two paths must be
  the same (``same`` column).

Targets: select/array <= 1.5 at 50,000 columns and <= 2 at 100,000 (PASS/FAIL each); the
curve shows whether the time grows linearly with the number of columns (``select per column``).
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a source checkout: use the in-place build
    sys.path.insert(1, ROOT)

import pandas as pd  # noqa: E402

from _harness import (SUMMARY, benchmark_parser, interleaved_best,  # noqa: E402
                      print_machine_info, two_class_data, verdict, print_summary)
import fstools as fs  # noqa: E402
from fstools.model.formula import parse_formula  # noqa: E402

ROWS = 2_000
FULL_COLUMNS = (500, 1_000, 5_000, 10_000, 50_000, 100_000)
QUICK_COLUMNS = (500, 1_000, 5_000, 10_000)
TARGETS = {50_000: 1.5, 100_000: 2.0}   # select / array
K = 10


def measure(p, repeat):
    """Best-of-``repeat`` times of the three calls at ``ROWS`` x ``p``; and whether they agree."""
    X, y = two_class_data(ROWS, p)
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(p)])
    df["y"] = y
    functions = {
        "select": lambda: fs.select("y ~ .", df, method="fisher", k=K),
        "parse": lambda: parse_formula("y ~ .", df),
        "array": lambda: fs.FeatureSelector(method="fisher", k=K).fit(X, y),
    }
    best, results = interleaved_best(functions, repeat)
    chosen = [f"g{j}" for j in results["array"].ranking_]
    same = results["select"].selected == chosen
    results.clear()
    del df, X
    return best, same


def main(argv=None):
    parser = benchmark_parser(__doc__, quick_help="stop at 10,000 columns (smoke run)")
    args = parser.parse_args(argv)
    columns = QUICK_COLUMNS if args.quick else FULL_COLUMNS
    start = time.perf_counter()
    print_machine_info("Formula benchmark: fs.select('y ~ .') against the array path", args.quick,
                       args.repeat, dict(rows=ROWS, columns=columns, method="fisher", k=K),
                       packages=[("pandas", pd.__version__)])
    print()
    header = (f"{'columns':>8} {'select s':>9} {'parse s':>8} {'array s':>8} {'select/array':>13} "
              f"{'parse/array':>12} {'select us/col':>14} {'same':>5}")
    print(header)
    print("-" * len(header))
    for p in columns:
        best, same = measure(p, args.repeat)
        ratio = best["select"] / best["array"]
        print(f"{p:>8,} {best['select']:>9.3f} {best['parse']:>8.3f} {best['array']:>8.3f} {ratio:>13.2f} "
              f"{best['parse'] / best['array']:>12.2f} {1e6 * best['select'] / p:>14.1f} {str(same):>5}",
              flush=True)
        if not same:
            verdict(False, f"{p:,} columns: select and the array path choose the same columns")
        if p in TARGETS:
            verdict(ratio <= TARGETS[p], f"{p:,} columns: select/array = {ratio:.2f} <= {TARGETS[p]}")
    if args.quick:
        SUMMARY.append("INFO  --quick: the targets (50,000 and 100,000 columns) are not measured")
    print_summary(start)


if __name__ == "__main__":
    main()

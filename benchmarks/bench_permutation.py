"""Benchmark of the permutation tests of the methods' own scores (fstools.methods.permutation).

Run on demand, never in CI:

    python benchmarks/bench_permutation.py            # the sizes the issue names (~2-4 min on 2 cores)
    python benchmarks/bench_permutation.py --quick    # reduced sizes, a smoke run (~15 s)

Every timing is the best of N runs (``--repeat``, N >= 3) of ``time.perf_counter``; the runs that
are compared are interleaved.  The script never asserts on time: it prints PASS/FAIL lines against
the targets, and a summary at the end.

Sections
--------
1. mim (plug-in), fisher and f_test (classes) on 2,000 x 500, B = 999 permutations, 2 threads:
   the test (:func:`fstools.methods.permutation.permutation_null`, the discretisation included)
   against 999 bare scoring passes of the method's kernel (one pass timed, times 999:
   :func:`fstools._ext._entropy.feature_class_information` on the codes for mim,
   :func:`fstools.methods.similarity.fisher_scores` for fisher, ``f_test_scores`` for f_test),
   target ratio <= 1.2; and against a loop of 999 ``fs.select`` calls (a few calls timed, times
   999 / calls), target ratio loop / test >= 20.
2. CMQFS relevance (the modularity Q) on 20,000 x 50, B = 999 permutations
   (``--cmqfs-permutations``): the test (:func:`fstools.methods.cmqfs.permuted_modularity_scores`
   through ``permutation_null``: each column sorted and its neighbour runs found once, one linear
   pass per permutation) against 999 bare passes of
   :func:`fstools.methods.cmqfs.modularity_scores` (target ratio <= 1.2) and against a loop of 999
   ``fs.select`` calls (two calls timed, times 999 / 2; target ratio loop / test >= 20).
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
from _harness import benchmark_parser, interleaved_best, print_machine_info, print_summary, verdict  # noqa: E402
from fstools._ext import _entropy  # noqa: E402
from fstools.core.discretize import information_codes  # noqa: E402
from fstools.methods.cmqfs import modularity_scores  # noqa: E402
from fstools.methods.permutation import permutation_null  # noqa: E402
from fstools.methods.registry import get_method  # noqa: E402
from fstools.methods.similarity import fisher_scores  # noqa: E402
from fstools.methods.statistical import f_test_scores  # noqa: E402

BARE_RATIO_TARGET = 1.2   # test / (B bare passes)
LOOP_RATIO_TARGET = 20.0  # (B select calls) / test
THREADS = 2

FULL_SIZES = dict(n=2000, d=500, permutations=999, cmqfs_n=20_000, cmqfs_d=50, select_calls=5)
QUICK_SIZES = dict(n=500, d=100, permutations=199, cmqfs_n=2000, cmqfs_d=20, select_calls=3)


def best_of(function, repeat):
    """Best wall time of ``repeat`` runs of ``function``."""
    return interleaved_best({"run": function}, repeat)[0]["run"]


def data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = rng.integers(0, 2, size=n).astype(np.int32)
    X[:, :5] += y[:, None]
    return X, y


def bare_pass(name, X, y):
    """One bare scoring pass of the method's kernel (what a permutation costs at least, done naively)."""
    if name == "mim":
        codes, levels, _ = information_codes(X)
        out = np.empty(X.shape[1])
        return lambda: _entropy.feature_class_information(codes, levels, y, 2, out, THREADS)
    if name == "fisher":
        return lambda: fisher_scores(X, y, THREADS)
    if name == "f_test":
        return lambda: f_test_scores(X, y)
    return lambda: modularity_scores(X, y, 2, THREADS)


def compare(label, name, X, y, n_permutations, select_calls, repeat, tag):
    spec = get_method(name)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["class"] = np.where(y == 1, "b", "a")
    test = best_of(lambda: permutation_null(spec, X, y, spec.defaults(), n_permutations, 0, THREADS), repeat)
    bare = best_of(bare_pass(name, X, y), repeat) * n_permutations
    select = best_of(lambda: [fs.select("class ~ .", frame, method=name, k=1, n_jobs=THREADS)
                              for _ in range(select_calls)], 1 if name == "cmqfs" else repeat)
    loop = select / select_calls * n_permutations
    bare_ratio, loop_ratio = test / bare, loop / test
    first = verdict(bare_ratio <= BARE_RATIO_TARGET, f"{label}: test / {n_permutations} bare passes = "
                                                     f"{bare_ratio:.2f} (target <= {BARE_RATIO_TARGET}){tag}")
    second = verdict(loop_ratio >= LOOP_RATIO_TARGET, f"{label}: {n_permutations} select calls / test = "
                                                      f"{loop_ratio:.1f} (target >= {LOOP_RATIO_TARGET:g}){tag}")
    print(f"    {label:10s} test {test:8.3f} s   {n_permutations} bare passes {bare:8.3f} s   ratio "
          f"{bare_ratio:5.2f} {first}   {n_permutations} select calls {loop:8.1f} s   ratio {loop_ratio:6.1f} "
          f"{second}")


def main():
    parser = benchmark_parser(__doc__, quick_help="reduced sizes (a smoke run)")
    parser.add_argument("--cmqfs-permutations", type=int, default=None,
                        help="permutations of the CMQFS section (default: as section 1, 999; 199 with --quick)")
    args = parser.parse_args()
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    tag = " (quick sizes)" if args.quick else ""
    started = time.perf_counter()
    print_machine_info("Permutation-test benchmark", args.quick, args.repeat, sizes)
    n, d, B = sizes["n"], sizes["d"], sizes["permutations"]
    print()
    print(f"[1] {n:,} x {d:,}, B = {B} permutations, {THREADS} threads; the select loop extrapolated from "
          f"{sizes['select_calls']} calls")
    X, y = data(n, d)
    for name in ("mim", "fisher", "f_test"):
        compare(f"[1] {name}", name, X, y, B, sizes["select_calls"], args.repeat, tag)
    n, d = sizes["cmqfs_n"], sizes["cmqfs_d"]
    B = sizes["permutations"] if args.cmqfs_permutations is None else args.cmqfs_permutations
    print()
    print(f"[2] CMQFS relevance on {n:,} x {d:,}, B = {B} permutations, {THREADS} threads; the select loop "
          f"extrapolated from 2 calls")
    X, y = data(n, d, seed=1)
    compare("[2] cmqfs", "cmqfs", X, y, B, 2, args.repeat, tag)
    print_summary(started)


if __name__ == "__main__":
    main()

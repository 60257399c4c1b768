"""Memory benchmark of the discretised matrix: compact int8/int16 codes.

Run on demand, never in CI:

    python benchmarks/bench_memory.py            # 200,000 x 100 and 20,000 x 200 (~2-4 min on 2 cores)
    python benchmarks/bench_memory.py --quick    # reduced sizes, a smoke run (< ~1 min)

Every number is the peak of the NumPy/Python allocations traced by ``tracemalloc``
during one call, measured in a fresh subprocess per measurement (so nothing allocated by
an earlier measurement is counted), minus what was allocated before the call (the input).
``tracemalloc`` sees NumPy's array buffers; it does not see the ``calloc`` counting tables
inside the Cython kernels (a few kilobytes per pair of features).  Every peak is printed as
a ratio to the size of the input array X (float64), measured in the same subprocess.
The script never asserts: it prints PASS/FAIL lines against the targets and a summary.

Data: two-class data, X standard normal with every other column rounded to one decimal
(ties), y random 0/1; written in place, so the input is the only large allocation.

Sections
--------
1. Discretisation: ``mu_sigma_levels(X)`` (the nine-level scheme of the CMQFS paper) and
   ``information_codes(X)`` (what the greedy methods call: the scheme plus the detection of
   discrete columns).  Printed: code dtype, codes size in bytes and as a fraction of X,
   peak extra memory / X.  Target: codes are int8; peak extra < 1 x X (no float64 copy of
   the whole of X is made: the columns are converted a block at a time).
2. Greedy selection: ``mrmr``, ``jmi`` and ``cmim`` (k = 20, one thread) run as
   ``information_codes`` + ``greedy_information_selection`` with
   (a) the compact codes as they are (int8), what the methods do;
   (b) the codes cast to int32 (the previous layout of the kernels);
   (c) the compact codes plus a float64 copy of them held during the selection (the
       baseline a float64 copy of the discretised matrix would cost).
   Also (d) the method end to end (``fstools.methods.information.mrmr(X, y, k=20)`` etc.).
   Printed: peak extra / X of each, and the ratio of (b) and (c) to (a).
   Target: (a) < (b) < (c), and (d) < 1 x X.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a source checkout: use the in-place build
    sys.path.insert(1, ROOT)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from _harness import SUMMARY, load_average, print_machine_info, two_class_data, verdict  # noqa: E402

FULL_SIZES = dict(shapes=((200_000, 100), (20_000, 200)), k=20)
QUICK_SIZES = dict(shapes=((20_000, 50), (5_000, 100)), k=10)
METHODS = ("mrmr", "jmi", "cmim")
VARIANTS = ("compact", "int32", "float64")
DISCRETISATION_TARGET = 1.0   # peak extra / X of the discretisation
METHOD_TARGET = 1.0           # peak extra / X of a method end to end


# --------------------------------------------------------------------------- child process

def _child(task):
    """Run one measurement (``task``: dict) and print its result as one JSON line."""
    import tracemalloc

    from fstools.core.discretize import information_codes, mu_sigma_levels
    from fstools.methods import information

    X, y = two_class_data(task["m"], task["n"])
    kind, k = task["kind"], task["k"]
    result = {}

    def run(X, y):
        if kind == "mu_sigma":
            codes, _ = mu_sigma_levels(X)
            result.update(codes_dtype=str(codes.dtype), codes_bytes=int(codes.nbytes))
        elif kind == "information_codes":
            codes, _, _ = information_codes(X)
            result.update(codes_dtype=str(codes.dtype), codes_bytes=int(codes.nbytes))
        elif kind == "method":
            getattr(information, task["method"])(X, y, k=k, n_threads=1)
        else:  # a variant of the greedy selection
            codes, levels, _ = information_codes(X)
            held = []  # a float64 copy of the codes, kept alive during the selection
            if kind == "int32":
                codes = codes.astype(np.int32)
            elif kind == "float64":
                held.append(codes.astype(np.float64))
            information.greedy_information_selection(codes, levels, y, task["method"], k=k, n_threads=1)
            result.update(codes_dtype=str(codes.dtype), codes_bytes=int(codes.nbytes))
            held.clear()

    run(X[:200].copy(), y[:200].copy())  # warm-up: imports, kernel loading, caches
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    run(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    result.update(x_bytes=int(X.nbytes), extra_peak=int(peak - before))
    print(json.dumps(result))


def measure(kind, m, n, k, method=None):
    """Run one measurement in a fresh subprocess; returns its result dict."""
    task = json.dumps(dict(kind=kind, m=m, n=n, k=k, method=method))
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", task],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"measurement {task} failed: {proc.stderr.strip()[-800:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def mb(nbytes):
    return f"{nbytes / 2 ** 20:8.1f} MB"


# --------------------------------------------------------------------------- sections

def section_discretisation(m, n, k):
    print()
    print(f"[1] Discretisation of {m:,} x {n} (X = {mb(m * n * 8).strip()} float64), fresh subprocess each")
    print(f"    {'call':<22s} {'codes':>6s} {'codes size':>12s} {'codes / X':>10s} {'peak extra':>12s}"
          f" {'peak / X':>9s}")
    for kind, label in (("mu_sigma", "mu_sigma_levels"), ("information_codes", "information_codes")):
        r = measure(kind, m, n, k)
        x = r["x_bytes"]
        print(f"    {label:<22s} {r['codes_dtype']:>6s} {r['codes_bytes']:>12,d} {r['codes_bytes'] / x:10.3f}"
              f" {mb(r['extra_peak'])} {r['extra_peak'] / x:9.3f}")
        verdict(r["codes_dtype"] == "int8", f"[1] {label} {m:,} x {n}: codes {r['codes_dtype']} (target int8)")
        verdict(r["extra_peak"] / x < DISCRETISATION_TARGET,
                f"[1] {label} {m:,} x {n}: peak extra {r['extra_peak'] / x:.3f} x X "
                f"(target < {DISCRETISATION_TARGET:g}: no float64 copy of X)")


def section_methods(m, n, k):
    print()
    print(f"[2] Greedy selection, k = {k}, on {m:,} x {n}: information_codes + greedy_information_selection")
    print("    with the codes (a) as they are, (b) cast to int32, (c) plus a float64 copy held;")
    print("    (d) the method end to end.  Peak extra memory / X; ratios to (a) in brackets.")
    print(f"    {'method':<7s} {'(a) compact':>16s} {'(b) int32':>18s} {'(c) float64 copy':>20s}"
          f" {'(d) end to end':>15s}")
    for method in METHODS:
        runs = {variant: measure(variant, m, n, k, method) for variant in VARIANTS}
        end_to_end = measure("method", m, n, k, method)
        x = runs["compact"]["x_bytes"]
        peak = {variant: runs[variant]["extra_peak"] for variant in VARIANTS}
        print(f"    {method:<7s} {peak['compact'] / x:9.3f} ({runs['compact']['codes_dtype']:>4s})"
              f" {peak['int32'] / x:9.3f} [{peak['int32'] / peak['compact']:4.2f}x]"
              f" {peak['float64'] / x:11.3f} [{peak['float64'] / peak['compact']:4.2f}x]"
              f" {end_to_end['extra_peak'] / x:15.3f}")
        verdict(peak["compact"] < peak["int32"] < peak["float64"],
                f"[2] {method} {m:,} x {n}: peak compact {peak['compact'] / x:.3f} < int32 "
                f"{peak['int32'] / x:.3f} < float64 copy {peak['float64'] / x:.3f} x X")
        verdict(end_to_end["extra_peak"] / x < METHOD_TARGET,
                f"[2] {method} {m:,} x {n} end to end: peak extra {end_to_end['extra_peak'] / x:.3f} x X "
                f"(target < {METHOD_TARGET:g})")
    codes_bytes = {variant: runs[variant]["codes_bytes"] for variant in VARIANTS}
    print(f"    codes held by the selection: compact {codes_bytes['compact']:,} bytes, int32 "
          f"{codes_bytes['int32']:,} bytes, float64 copy {8 * codes_bytes['compact']:,} bytes (on top)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="reduced sizes (smoke run)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(json.loads(args.child))
        return 0
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    start = time.perf_counter()
    print_machine_info("Memory benchmark: compact codes of the discretised matrix",
                       args.quick, 1, sizes)
    print("memory            tracemalloc peak during one call, fresh subprocess per measurement "
          "(no timing here)")
    for m, n in sizes["shapes"]:
        section_discretisation(m, n, sizes["k"])
        section_methods(m, n, sizes["k"])
    print()
    print(f"load average at end {load_average()};  total {time.perf_counter() - start:.0f} s")
    print("Summary")
    for line in SUMMARY:
        print("  " + line)
    return 1 if any(line.startswith("FAIL") for line in SUMMARY) else 0


if __name__ == "__main__":
    sys.exit(main())

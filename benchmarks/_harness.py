"""Shared plumbing of the benchmarks: machine description, interleaved timing, PASS/FAIL lines.

Every benchmark prints the machine it ran on, times the runs it compares
interleaved (A, B, C, A, B, C, ...) keeping the best of N, and ends with the
list of PASS/FAIL verdicts collected by :func:`verdict`.
"""
import argparse
import os
import platform
import time

import numpy as np

#: The verdict lines of this run, printed at the end by each benchmark.
SUMMARY = []


def verdict(ok, label):
    """Record a PASS/FAIL line for the summary; returns the word."""
    word = "PASS" if ok else "FAIL"
    SUMMARY.append(f"{word}  {label}")
    return word


def interleaved_best(functions, repeat, clock="wall"):
    """Best-of-``repeat`` time of each callable, runs interleaved round-robin.

    ``clock``: ``"wall"`` (elapsed time, ``time.perf_counter``) or ``"cpu"`` (CPU time of the
    process, ``time.process_time``: on a shared machine it does not count the time the process
    waits for a core; only for one-threaded work).

    Returns ({name: seconds}, {name: result of the last run}).
    """
    timer = {"wall": time.perf_counter, "cpu": time.process_time}[clock]
    best = {name: float("inf") for name in functions}
    results = {}
    for _ in range(repeat):
        for name, function in functions.items():
            start = timer()
            results[name] = function()
            best[name] = min(best[name], timer() - start)
    return best, results


def cpu_model():
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except (AttributeError, OSError):
        return "n/a"


def usable_cores():
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


def print_machine_info(title, quick, repeat, sizes, packages=(), environment=("OMP_NUM_THREADS",), timing=None):
    """The header every benchmark prints.

    Parameters
    ----------
    title : str
    quick : bool
    repeat : int
    sizes : dict
    packages : sequence of (label, text)
        Versions of the libraries the benchmark compares against.
    environment : sequence of str
        Environment variables that change the timings (thread counts).
    timing : str, optional
        How the benchmark times its runs, when not the best of ``repeat`` interleaved runs.
    """
    import numpy as np

    import fstools as fs

    settings = ", ".join(f"{name}={os.environ.get(name, 'unset')}" for name in environment)
    print("=" * 78)
    print(title + ("  [--quick: reduced sizes, targets indicative only]" if quick else ""))
    print("=" * 78)
    print(f"date              {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    print(f"machine           {platform.machine()}  {cpu_model()}")
    print(f"cores             {os.cpu_count()} logical, {usable_cores()} usable by this process"
          + (f"  ({settings})" if settings else ""))
    print(f"load average      {load_average()}  (1/5/15 min, at start)")
    print(f"python            {platform.python_version()}  ({platform.system()} {platform.release()})")
    print(f"numpy             {np.__version__}")
    for label, text in packages:
        print(f"{label:<17} {text}")
    print(f"fstools           {fs.__version__}  from {os.path.dirname(fs.__file__)}")
    print(f"timing            {timing or f'best of {repeat} (time.perf_counter), compared runs interleaved'}")
    print(f"sizes             {sizes}")


def two_class_data(m, n, seed=0):
    """Random normal features (every other column rounded to 1 decimal: ties), y random 0/1.

    Written in place (no float64 temporaries), so the memory section's baseline is clean.
    """
    rng = np.random.default_rng(seed)
    X = np.empty((m, n), dtype=np.float64)
    rng.standard_normal(out=X)
    np.round(X[:, ::2], 1, out=X[:, ::2])
    y = rng.integers(0, 2, size=m).astype(np.int32)
    return X, y


def dorothea_like(m, n, seed=0):
    """Like the NIPS 2003 Dorothea set: 0/1 columns with 1 % ones, y = 1 for about 10 % of the rows,
    the first 50 columns carrying y (X float64, y int32)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(m) < 0.1).astype(np.int32)
    X = (rng.random((m, n)) < 0.01).astype(np.float64)
    X[:, :50] = np.maximum(X[:, :50], y[:, None] * (rng.random((m, 50)) < 0.5))
    return X, y


def _repeat_count(text):
    count = int(text)
    if count < 3:
        raise argparse.ArgumentTypeError("must be >= 3 (best of N, N >= 3)")
    return count


def benchmark_parser(doc, quick_help="reduced sizes (smoke run)", default_repeat=3):
    """The options every benchmark has: ``--quick`` (reduced sizes) and ``--repeat N`` (best of N >= 3)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--repeat", type=_repeat_count, default=default_repeat,
                        help=f"best of N timings (N >= 3, default {default_repeat})")
    return parser


def print_summary(start):
    """The PASS/FAIL lines of this run, the load average and the wall time since ``start``."""
    print()
    print("Summary")
    for line in SUMMARY:
        print(f"  {line}")
    print(f"load average at end {load_average()};  total wall time {time.perf_counter() - start:.1f} s")


#: Defined in every memory child before its own code (:func:`run_memory_child`): ``peak_of(call,
#: mode)`` runs ``call()`` and returns ``dict(extra=bytes, how=words)``, the peak memory it added:
#: by ``tracemalloc`` (NumPy's allocations) for ``mode="tracemalloc"``, else the process high-water
#: mark ``VmHWM`` reset just before the call through ``/proc/self/clear_refs`` (every touched page,
#: the kernels' buffers too), or ``ru_maxrss`` where that cannot be reset (a lower bound).
PEAK_OF = r"""
def status(key):
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return None


def peak_of(call, mode):
    import resource
    if mode == "tracemalloc":
        import tracemalloc
        tracemalloc.start()
        before, _ = tracemalloc.get_traced_memory()
        call()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return dict(extra=peak - before, how="tracemalloc peak - before")
    rss_before = status("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as handle:   # resets VmHWM to the current RSS
            handle.write("5")
        reset = True
    except OSError:
        reset = False
    maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    call()
    if reset:
        return dict(extra=status("VmHWM") - rss_before, how="VmHWM after reset - VmRSS before")
    return dict(extra=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - max(rss_before, maxrss_before),
                how="ru_maxrss after - max(RSS, ru_maxrss) before (lower bound)")
"""


def run_memory_child(code, what):
    """Run ``code`` (a memory measurement; :data:`PEAK_OF` is defined before it) in a fresh Python
    process and return the JSON object its last line prints; RuntimeError naming ``what`` when it
    fails."""
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", PEAK_OF + code], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"memory subprocess failed ({what}): {proc.stderr.strip()[-500:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])

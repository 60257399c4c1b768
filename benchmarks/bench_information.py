"""Benchmark of the information-theoretic methods (mim, mifs, mrmr, jmi, cmim) against FEAST.

Run on demand, never in CI:

    python benchmarks/bench_information.py --feast PEERS_DIR            # full sizes (~5-8 min)
    python benchmarks/bench_information.py --feast PEERS_DIR --quick    # reduced sizes (< 1 min)
    FSTOOLS_FEAST_DIR=PEERS_DIR python benchmarks/bench_information.py

``PEERS_DIR`` is a folder holding the FEAST and MIToolbox C sources as ``feast/`` and
``mitoolbox/`` (the benchmark compiles them with gcc into a temporary folder), or a folder
holding an already built ``libfeast.so``.  Without it the FEAST columns are skipped.  FEAST is
never a dependency of fstools.

Data (one thread everywhere: ``n_jobs=1``, FEAST is single-threaded):

* ``2,000 x 500, 10 levels``: integer columns 0..9, ``y`` a noisy threshold of columns 0 and 1;
* ``Dorothea-like 800 x 100,000 binary``: 0/1 columns with 1 % ones (as the NIPS 2003 Dorothea
  set), about 10 % positive class, columns 0..49 enriched in the positive class.

Every method is timed end to end five ways, interleaved, best of N:

* ``fit``: ``FeatureSelector(method, k, n_jobs=1).fit(X, y)`` with ``X`` a float64 array;
* ``fit u8``: the same with ``X`` as the uint8 array of the same integers (read as it is, one
  byte per value: ``MethodSpec.integer_designs``), the input of a user who holds the counts or
  0/1 values as integers;
* ``select``: ``fs.select("class ~ .", frame, method, k, n_jobs=1)`` with ``frame`` an
  array-backed DataFrame (one float64 block over ``X`` itself, ``copy=False``, plus the class
  column), on both sets;
* ``select F``: the same on ``pd.DataFrame(X)`` as pandas builds it by default (a copy, stored
  column by column: the design is then column-major, the layout of most DataFrames);
* ``FEAST``: the C function on ready uint32 columns (the conversion is not timed; scores in bits).

CMIM's selection is also timed alone on ready codes, lazy (Fleuret 2004, the default) and eager
(every candidate updated at every step, the tested reference), against FEAST's CMIM; and a NumPy
reference: ``numpy I(X;C)`` (every column's mutual information with the class from one
``np.bincount`` over the whole matrix, the cheapest possible MIM) and ``numpy codes`` (the former
data path: ``np.unique`` column by column).  Ratios are fstools / FEAST and fstools / NumPy
(target for the FEAST ratio: <= 1.0).  The selections are compared with FEAST's (same features in
the same order), except where FEAST's JMI repeats feature 0 (every remaining score 0).
On the Dorothea-like set the eager greedy methods (mifs, mrmr, jmi: every candidate updated at
every step, O(k n m) for both libraries) use k = 10 to keep the run short; mim and cmim use k = 50.
"""
import ctypes
import os
import warnings
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a source checkout: use the in-place build
    sys.path.insert(1, ROOT)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import fstools as fs  # noqa: E402
import _harness  # noqa: E402
from _harness import SUMMARY, benchmark_parser, print_machine_info, verdict  # noqa: E402
from fstools.api.transformer import FeatureSelector  # noqa: E402
from fstools.core.discretize import information_codes  # noqa: E402
from fstools.methods.information import greedy_information_selection  # noqa: E402

METHODS = ("mim", "mifs", "mrmr", "jmi", "cmim")
FEAST_FUNCTIONS = {"mim": ("MIM", ()), "mifs": ("BetaGamma", (1.0, 0.0)), "mrmr": ("mRMR_D", ()),
                   "jmi": ("JMI", ()), "cmim": ("CMIM", ())}
FEAST_SOURCES = ["mitoolbox/src/ArrayOperations.c", "mitoolbox/src/CalculateProbability.c",
                 "mitoolbox/src/Entropy.c", "mitoolbox/src/MutualInformation.c", "feast/src/MIM.c",
                 "feast/src/JMI.c", "feast/src/CMIM.c", "feast/src/mRMR_D.c", "feast/src/BetaGamma.c"]


#: The clock of :func:`interleaved_best`: "wall" (time.perf_counter) or "cpu" (time.process_time).
CLOCK = {"name": "wall"}


def interleaved_best(functions, repeat):
    """:func:`_harness.interleaved_best` on the wall clock, or the same on this process's CPU time.

    Everything timed here runs on one thread (``n_jobs=1``; FEAST is single-threaded), so the CPU
    time of the process is the work of the run, and it does not count the time the process waits
    for a core on a shared machine (``--clock cpu``).
    """
    return _harness.interleaved_best(functions, repeat, clock=CLOCK["name"])


# --------------------------------------------------------------------------
# FEAST through ctypes
# --------------------------------------------------------------------------

def load_feast(folder, build_dir):
    """The FEAST library from ``folder`` (sources built into ``build_dir``, or a libfeast.so), or None."""
    if folder is None:
        return None, "not given (--feast or FSTOOLS_FEAST_DIR): FEAST columns skipped"
    built = os.path.join(folder, "libfeast.so")
    if not os.path.exists(built):
        if not all(os.path.exists(os.path.join(folder, source)) for source in FEAST_SOURCES):
            return None, f"{folder}: neither libfeast.so nor the feast/ and mitoolbox/ sources"
        for part in ("feast", "mitoolbox"):
            shutil.copytree(os.path.join(folder, part), os.path.join(build_dir, part))
        built = os.path.join(build_dir, "libfeast.so")
        command = (["gcc", "-O2", "-fPIC", "-std=c89", "-shared", "-I", "mitoolbox/include", "-I", "feast/include",
                    "-DCOMPILE_C", "-o", built] + FEAST_SOURCES + ["-lm"])
        result = subprocess.run(command, cwd=build_dir, capture_output=True, text=True)
        if result.returncode != 0:
            return None, f"gcc failed: {result.stderr.strip()[:300]}"
    return ctypes.CDLL(built), f"{built} (gcc -O2, one thread)"


class FeastProblem:
    """X and y as FEAST wants them: uint32 columns (built once, outside the timings)."""

    def __init__(self, library, X, y):
        self.library = library
        self.m, self.n = X.shape
        self.columns = np.ascontiguousarray(X.T, dtype=np.uint32)
        pointer = ctypes.POINTER(ctypes.c_uint32)
        self.pointers = (pointer * self.n)(*[ctypes.cast(self.columns.ctypes.data + j * self.m * 4, pointer)
                                             for j in range(self.n)])
        self.classes = np.ascontiguousarray(y, dtype=np.uint32)

    def run(self, method, k):
        name, extra = FEAST_FUNCTIONS[method]
        features = np.zeros(k, dtype=np.uint32)
        scores = np.zeros(k, dtype=np.float64)
        pointer = ctypes.POINTER(ctypes.c_uint32)
        getattr(self.library, name)(
            ctypes.c_uint(k), ctypes.c_uint(self.m), ctypes.c_uint(self.n), self.pointers,
            self.classes.ctypes.data_as(pointer), features.ctypes.data_as(pointer),
            scores.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), *[ctypes.c_double(e) for e in extra])
        return features.astype(np.intp), scores


# --------------------------------------------------------------------------
# data and NumPy references
# --------------------------------------------------------------------------

def ten_levels(m, n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 10, (m, n)).astype(np.float64)
    y = ((X[:, 0] + X[:, 1] + rng.integers(0, 5, m)) > 11).astype(np.int32)
    return X, y


def numpy_relevance(X, y):
    """I(X_j;C) in nats of every integer column of X, from one bincount over the whole matrix."""
    codes = X.astype(np.intp)
    low = codes.min(axis=0)
    width = int((codes.max(axis=0) - low).max()) + 1
    n_classes = int(y.max()) + 1
    cells = (np.arange(X.shape[1]) * width)[None, :] + (codes - low)
    joint = np.bincount((cells * n_classes + y[:, None]).ravel(),
                        minlength=X.shape[1] * width * n_classes).reshape(X.shape[1], width, n_classes)
    m = X.shape[0]

    def entropy(counts, axis):
        counts = counts.astype(np.float64)
        return (m * np.log(m) - np.sum(counts * np.log(np.where(counts > 0, counts, 1)), axis=axis)) / m

    return entropy(joint.sum(2), 1) + entropy(np.bincount(y), 0) - entropy(joint.reshape(X.shape[1], -1), 1)


def numpy_unique_codes(X):
    """The former data path: np.unique column by column."""
    codes = np.empty((X.shape[1], X.shape[0]), dtype=np.int8)
    for j in range(X.shape[1]):
        codes[j] = np.unique(X[:, j], return_inverse=True)[1]
    return codes


# --------------------------------------------------------------------------
# the run
# --------------------------------------------------------------------------

def compare(method, ours, feast_features):
    """MATCH / MISMATCH / n/a of fstools' ranking against FEAST's."""
    if method == "jmi" and len(set(feast_features.tolist())) < len(feast_features):
        return "n/a (FEAST's JMI repeats a feature: every remaining score 0)"
    if np.array_equal(np.asarray(ours), feast_features):
        return "MATCH"
    first = int(np.flatnonzero(np.asarray(ours) != feast_features)[0])
    return f"MISMATCH from pick {first + 1} (near-ties in bits vs nats?)"


def run_dataset(title, X, y, k_of, feast, repeat, quick):
    print()
    print(f"--- {title}: {X.shape[0]:,} x {X.shape[1]:,}, one thread ---")
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])], copy=False)
    frame["class"] = y
    copied = pd.DataFrame(X, columns=frame.columns[:-1])  # pandas' own copy: column-major values
    copied["class"] = y
    small = X.astype(np.uint8)  # the same integers, one byte each
    assert np.array_equal(small, X)
    problem = FeastProblem(feast, X, y) if feast is not None else None
    print(f"{'method':<7}{'k':>4}{'fit':>10}{'fit u8':>10}{'select':>10}{'select F':>10}{'FEAST':>10}"
          f"{'fit/FEAST':>11}{'u8/FEAST':>10}{'select/FEAST':>14}{'F/FEAST':>9}{'fit/numpy':>11}  selection vs FEAST")
    times, _ = interleaved_best({"numpy I(X;C)": lambda: numpy_relevance(X, y)}, repeat)
    numpy_time = times["numpy I(X;C)"]
    for method in METHODS:
        k = k_of(method)
        functions = {"fit": lambda: FeatureSelector(method, k=k, n_jobs=1).fit(X, y).ranking_,
                     "fit u8": lambda: FeatureSelector(method, k=k, n_jobs=1).fit(small, y).ranking_,
                     "select": lambda: fs.select("class ~ .", frame, method=method, k=k, n_jobs=1),
                     "select F": lambda: fs.select("class ~ .", copied, method=method, k=k, n_jobs=1)}
        if problem is not None:
            functions["FEAST"] = lambda: problem.run(method, k)[0]
        times, results = interleaved_best(functions, repeat)
        same = (np.array_equal(results["fit"], [frame.columns.get_loc(name) for name in results["select"].selected])
                and np.array_equal(results["fit"], results["fit u8"])
                and list(results["select"].selected) == list(results["select F"].selected))
        feast_text = f"{times['FEAST']:>10.4f}" if problem else f"{'-':>10}"
        ratio_fit = times["fit"] / times["FEAST"] if problem else float("nan")
        ratio_small = times["fit u8"] / times["FEAST"] if problem else float("nan")
        ratio_select = times["select"] / times["FEAST"] if problem else float("nan")
        ratio_copied = times["select F"] / times["FEAST"] if problem else float("nan")
        check = compare(method, results["fit"], results["FEAST"]) if problem else "FEAST skipped"
        print(f"{method:<7}{k:>4}{times['fit']:>10.4f}{times['fit u8']:>10.4f}{times['select']:>10.4f}"
              f"{times['select F']:>10.4f}{feast_text}{ratio_fit:>11.2f}{ratio_small:>10.2f}{ratio_select:>14.2f}"
              f"{ratio_copied:>9.2f}{times['fit'] / numpy_time:>11.2f}  {check}"
              + ("" if same else "  [fit, fit u8, select and select F differ!]"))
        if problem:
            size = " (quick sizes)" if quick else ""
            verdict(ratio_fit <= 1.0, f"{title} {method}: fit <= 1.0x FEAST{size} ({ratio_fit:.2f})")
            verdict(ratio_small <= 1.0, f"{title} {method}: fit of uint8 X <= 1.0x FEAST{size} ({ratio_small:.2f})")
            verdict(ratio_select <= 1.0, f"{title} {method}: select <= 1.0x FEAST{size} ({ratio_select:.2f})")
            verdict(ratio_copied <= 1.0, f"{title} {method}: select on a column-major frame <= 1.0x FEAST{size} "
                                         f"({ratio_copied:.2f})")
            verdict(not check.startswith("MISMATCH"), f"{title} {method}: same selection as FEAST")
    print(f"numpy I(X;C) of every column (one bincount): {numpy_time:.4f} s")
    if problem is not None:
        times, _ = interleaved_best({"input": lambda: np.ascontiguousarray(X.T, dtype=np.uint32)}, repeat)
        print(f"FEAST's input, not in its times above: the float64 matrix as uint32 feature-major columns "
              f"(np.ascontiguousarray(X.T, dtype=np.uint32)) {times['input']:.4f} s; fstools' fit and select "
              f"include their codes step, the same transposition")
    run_cmim_engines(title, X, y, k_of("cmim"), problem, repeat, quick)
    width = min(X.shape[1], 5000)
    times, results = interleaved_best({"fstools codes": lambda: information_codes(X[:, :width])[0],
                                       "numpy codes": lambda: numpy_unique_codes(X[:, :width])}, repeat)
    print(f"codes of the first {width:,} columns: fstools information_codes {times['fstools codes']:.4f} s, "
          f"np.unique per column {times['numpy codes']:.4f} s (ratio "
          f"{times['fstools codes'] / times['numpy codes']:.3f}); identical: "
          f"{np.array_equal(results['fstools codes'], results['numpy codes'])}")


def run_cmim_engines(title, X, y, k, problem, repeat, quick):
    """CMIM's selection alone on ready codes: lazy (the default) and eager, against FEAST's CMIM."""
    codes, levels, _ = information_codes(X)
    functions = {"lazy": lambda: greedy_information_selection(codes, levels, y, "cmim", k, lazy=True),
                 "eager": lambda: greedy_information_selection(codes, levels, y, "cmim", k, lazy=False)}
    if problem is not None:
        functions["FEAST"] = lambda: problem.run("cmim", k)
    times, results = interleaved_best(functions, repeat)
    same = (np.array_equal(results["lazy"][0], results["eager"][0])
            and results["lazy"][1]["J"].tobytes() == results["eager"][1]["J"].tobytes())
    line = (f"cmim engine (codes ready), k = {k}: lazy {times['lazy']:.4f} s, eager {times['eager']:.4f} s"
            f" (lazy = eager picks and scores: {same})")
    if problem is not None:
        ratio = times["lazy"] / times["FEAST"]
        line += (f", FEAST {times['FEAST']:.4f} s, lazy/FEAST {ratio:.2f}, "
                 f"{compare('cmim', results['lazy'][0], results['FEAST'][0])}")
        verdict(ratio <= 1.0, f"{title} cmim: lazy engine <= 1.0x FEAST{' (quick sizes)' if quick else ''} "
                              f"({ratio:.2f})")
    verdict(same, f"{title} cmim: lazy engine = eager engine (picks and scores, bitwise)")
    print(line)


def main():
    warnings.simplefilter("ignore", UserWarning)  # constant columns of the sparse-like data
    parser = benchmark_parser(__doc__, quick_help="reduced sizes: 500 x 100 and 200 x 5,000 (smoke run)")
    parser.add_argument("--feast", default=os.environ.get("FSTOOLS_FEAST_DIR"),
                        help="folder with FEAST's feast/ and mitoolbox/ sources (or a built libfeast.so); "
                             "default: $FSTOOLS_FEAST_DIR")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall: time.perf_counter (default); cpu: the process's CPU time "
                             "(time.process_time), for a shared, loaded machine (every run here is one thread)")
    options = parser.parse_args()
    CLOCK["name"] = options.clock
    sizes = ({"ten levels": (500, 100), "binary": (200, 5000)} if options.quick
             else {"ten levels": (2000, 500), "binary": (800, 100000)})
    build_dir = tempfile.mkdtemp(prefix="fstools-feast-")
    try:
        feast, feast_text = load_feast(options.feast, build_dir)
        print_machine_info("Information-theoretic methods vs FEAST", options.quick, options.repeat,
                           sizes, packages=[("FEAST", feast_text), ("pandas", pd.__version__)],
                           timing=None if options.clock == "wall" else
                           f"best of {options.repeat}, CPU time of the process (time.process_time; one thread), "
                           f"compared runs interleaved")
        m, n = sizes["ten levels"]
        run_dataset("10 levels", *ten_levels(m, n), lambda method: 50 if not options.quick else 20,
                    feast, options.repeat, options.quick)
        m, n = sizes["binary"]
        run_dataset("Dorothea-like binary", *_harness.dorothea_like(m, n),
                    lambda method: (50 if method in ("mim", "cmim") else 10) if not options.quick else 20,
                    feast, options.repeat, options.quick)
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)
    print()
    print("Summary")
    for line in SUMMARY:
        print("  " + line)


if __name__ == "__main__":
    main()

"""Import benchmark: ``import fstools`` on top of ``import numpy, pandas``, and the first selection.

Run on demand, never in CI:

    python benchmarks/bench_import.py             # median of 9 fresh interpreters per measurement (~1 min)
    python benchmarks/bench_import.py --quick     # median of 3 (~20 s)
    python benchmarks/bench_import.py --repeat 15 # median of 15

Every measurement runs in a fresh interpreter (``sys.executable -c ...``, started outside the
source tree with the fstools this script imports on ``PYTHONPATH``), times its steps with
``time.perf_counter`` and prints them; the script keeps the **median** over the interpreters
(a fresh import is what a person waits for each time, and its first, cold-cache run is part
of the spread, not an outlier to drop).  The kinds of interpreter run interleaved (A, B, C, A,
B, C, ...), so a change in machine load hits both.  The interpreter's own start-up is not counted.
The script never asserts on time: it prints PASS/FAIL lines against the targets, and a summary.

[1] Import.  One interpreter times ``import numpy, pandas`` (the baseline), then ``import
fstools``; ``on top`` is the second, ``ratio`` is (baseline + on top) / baseline.  It also
lists the heavy libraries in ``sys.modules`` after ``import fstools`` (none is expected).
Target: on top < 0.5 s; no heavy library imported.

[2] First selection.  One interpreter times, in order: ``import fstools``,
``fs.datasets.load("wine")`` (reads scikit-learn's bundled file, so it imports
``sklearn.datasets``), the first ``fs.select("class ~ .", df, method="cmqfs", k=5)``, a second
identical call (warm), and the first ``res.summary()`` (imports scipy.stats and statsmodels).
``to first select`` is the sum of the first three: what ``import fstools as fs`` and the wine
example of the README take before the first result.

[3] The README's first command, ``fstools select "class ~ ." --data wine --method cmqfs -k 5``,
as a whole process (``fstools.cli.main`` in a fresh interpreter, its start-up included), timed
from this script.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a source checkout: use the in-place build
    sys.path.insert(1, ROOT)

import pandas as pd  # noqa: E402

from _harness import SUMMARY, benchmark_parser, print_machine_info, print_summary, verdict  # noqa: E402
import fstools as fs  # noqa: E402

HEAVY = ("sklearn", "scipy.stats", "scipy.linalg", "scipy.special", "statsmodels", "matplotlib", "dask",
         "distributed")
TARGET_ON_TOP = 0.5   # seconds

IMPORT_SCRIPT = f"""
import json, sys, time
t0 = time.perf_counter()
import numpy, pandas
t1 = time.perf_counter()
import fstools
t2 = time.perf_counter()
print(json.dumps({{"numpy, pandas": t1 - t0, "fstools on top": t2 - t1,
                  "heavy": [name for name in {HEAVY!r} if name in sys.modules]}}))
"""

SELECT_SCRIPT = """
import json, time
times = {}
t = time.perf_counter()
import fstools as fs
times["import fstools, numpy, pandas"] = time.perf_counter() - t
t = time.perf_counter()
df = fs.datasets.load("wine")
times["load wine"] = time.perf_counter() - t
t = time.perf_counter()
res = fs.select("class ~ .", df, method="cmqfs", k=5)
times["first select"] = time.perf_counter() - t
t = time.perf_counter()
fs.select("class ~ .", df, method="cmqfs", k=5)
times["second select"] = time.perf_counter() - t
t = time.perf_counter()
str(res.summary())
times["first summary()"] = time.perf_counter() - t
print(json.dumps(times))
"""

COMMAND = ["select", "class ~ .", "--data", "wine", "--method", "cmqfs", "-k", "5"]
COMMAND_SCRIPT = f"import sys\nfrom fstools.cli import main\nsys.exit(main({COMMAND!r}))"


def run_fresh(script):
    """The output of ``script`` in a fresh interpreter that imports this fstools, and its wall time."""
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(fs.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")])),
           "MPLBACKEND": "Agg"}
    start = time.perf_counter()
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                               cwd=tempfile.gettempdir(), env=env)
    return completed.stdout, time.perf_counter() - start


def timings(script):
    """The JSON line printed by ``script`` in a fresh interpreter."""
    return json.loads(run_fresh(script)[0].splitlines()[-1])


def main(argv=None):
    parser = benchmark_parser(__doc__, quick_help="median of 3 interpreters (smoke run)", default_repeat=9)
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else args.repeat
    start = time.perf_counter()
    print_machine_info("Import benchmark: import fstools on top of numpy + pandas, and the first select",
                       args.quick, repeat, dict(interpreters=repeat, data="wine", method="cmqfs", k=5),
                       packages=[("pandas", pd.__version__)],
                       timing=f"median of {repeat} fresh interpreters (time.perf_counter), the kinds interleaved")
    imports, selects, commands = [], [], []
    for _ in range(repeat):
        imports.append(timings(IMPORT_SCRIPT))
        selects.append(timings(SELECT_SCRIPT))
        commands.append(run_fresh(COMMAND_SCRIPT)[1])

    base = statistics.median(run["numpy, pandas"] for run in imports)
    on_top = statistics.median(run["fstools on top"] for run in imports)
    heavy = sorted({name for run in imports for name in run["heavy"]})
    print()
    print("[1] import, median of", repeat, "fresh interpreters")
    print(f"  import numpy, pandas           {base:6.3f} s   (baseline)")
    print(f"  import fstools, on top of it   {on_top:6.3f} s   "
          f"(range {min(r['fstools on top'] for r in imports):.3f} .. {max(r['fstools on top'] for r in imports):.3f})")
    print(f"  difference                     {on_top:6.3f} s;  ratio (baseline + fstools) / baseline = "
          f"{(base + on_top) / base:.2f}")
    print(f"  heavy libraries after import   {', '.join(heavy) if heavy else 'none'}  (of {', '.join(HEAVY)})")
    verdict(on_top < TARGET_ON_TOP, f"import fstools on top of numpy + pandas: {on_top:.3f} s < {TARGET_ON_TOP} s")
    verdict(not heavy, "import fstools imports none of " + ", ".join(HEAVY))

    print()
    print("[2] first selection on wine, median of", repeat, "fresh interpreters")
    for step in selects[0]:
        print(f"  {step:<30} {statistics.median(run[step] for run in selects):6.3f} s")
    first = statistics.median(run["import fstools, numpy, pandas"] + run["load wine"] + run["first select"]
                              for run in selects)
    print(f"  {'to first select':<30} {first:6.3f} s   (import + load + first select)")

    print()
    print("[3] the README's first command, median of", repeat, "processes")
    print(f"  fstools {' '.join(COMMAND[:1] + [repr(COMMAND[1])] + COMMAND[2:])}   {statistics.median(commands):.3f} s")

    if args.quick:
        SUMMARY[:] = [line + "  (quick: median of 3)" for line in SUMMARY]
    print_summary(start)


if __name__ == "__main__":
    main()

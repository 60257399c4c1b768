"""Benchmark of the procedures with a guarantee (fstools.guarantees) against their Python peers.

Run on demand, never in CI, with knockpy and boruta (BorutaPy) installed beside fstools:

    python -m venv /tmp/benchenv --system-site-packages && /tmp/benchenv/bin/pip install knockpy boruta
    /tmp/benchenv/bin/python benchmarks/bench_guarantees.py            # ~10-15 min on 2 cores
    /tmp/benchenv/bin/python benchmarks/bench_guarantees.py --quick    # a smoke run (~2-3 min)

Everything runs on one thread (OMP/MKL/OPENBLAS_NUM_THREADS=1, n_jobs=1).  The data are the
vignette's (vignettes/guarantees.py): Gaussian AR(1) rows (rho 0.3), n = 500, p = 80 and 200, 12
signals with random signs, a linear response (amplitude 0.2, N(0, 1) noise) or two classes
(logistic, amplitude 0.4).

Sections
--------
1. Knockoffs: ``fs.knockoff_filter(method="lasso", knockoffs="gaussian", s="mvr")`` against
   ``knockpy.KnockoffFilter(ksampler="gaussian", fstat="lasso", knockoff_kwargs={"method": "mvr"})``
   (Gaussian model-X knockoffs, MVR s, the cross-validated lasso coefficient difference, FDR 0.1),
   on R data sets per (p, response): total time of each (ratio fstools / knockpy), and the mean
   power and FDP of each with their SEs.  Each call runs in a forked child with a time limit
   (``--limit``, 45 s): a call over it counts as the limit (the ratio is then a lower bound).
2. Boruta: ``fs.boruta(importance="random_forest", importance_type="impurity", n_estimators,
   max_depth, max_features, max_runs, p_value)`` against ``BorutaPy`` with the same scikit-learn
   forest (n_estimators, max_depth, max_features) and max_iter = max_runs, alpha = p_value: time
   ratio, true and false confirmations.
3. Stability selection with B = 50 complementary pairs (100 runs on half-samples) against one
   ``fs.select`` call of the same method with k = q on the same data (classes, p = 80 and 200):
   ratio, target <= 110x; for fisher, mim, mrmr, cmqfs, relieff.

Verdicts: 1 and 2 PASS when fstools is at least as fast as the peer and at least as powerful at the
same error level (mean power, or true confirmations, >= the peer's - 1 SE of the paired difference
over the data sets, and mean FDP, or false confirmations, <= the peer's + 1 SE); 3 PASS when the
ratio is <= 110.  Timings of 1 and 2 are one
run per data set summed over the data sets (the data sets are the repeats), calls interleaved
(fstools, peer, fstools, peer, ...); those of 3 the best of ``--repeat`` interleaved runs.
See ``benchmarks/README.md``.
"""
import os

for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_name] = "1"  # one thread everywhere, set before NumPy starts its pools

import math  # noqa: E402
import multiprocessing  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a source checkout: use the in-place build
    sys.path.insert(1, ROOT)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import fstools as fs  # noqa: E402
from _harness import benchmark_parser, interleaved_best, print_machine_info, print_summary, verdict  # noqa: E402

sys.path.insert(1, os.path.join(ROOT, "vignettes"))
from _simulation import knockpy_selection, simulate  # noqa: E402  (the vignette's data and knockpy call)

try:
    import knockpy
    from knockpy import KnockoffFilter
except ImportError:
    knockpy = KnockoffFilter = None
try:
    import boruta as boruta_package
    from boruta import BorutaPy
except ImportError:
    boruta_package = BorutaPy = None

FDR = 0.1
N_SIGNALS = 12
AMPLITUDE = {"linear": 0.2, "logistic": 0.4}
STABSEL_TARGET = 110.0
STABSEL_METHODS = ["fisher", "mim", "mrmr", "cmqfs", "relieff"]
Q_PER_RUN = {80: 12, 200: 16}

FULL_SIZES = dict(n=500, p=[80, 200], rho=0.3, knockoff_replicates=4, boruta_p=[80], boruta_replicates=2,
                  trees=100, max_depth=7, max_runs=50, stabsel_p=[80, 200], B=50)
QUICK_SIZES = dict(n=500, p=[80], rho=0.3, knockoff_replicates=2, boruta_p=[80], boruta_replicates=1,
                   trees=50, max_depth=7, max_runs=20, stabsel_p=[80], B=50)
INSTALL = ("python -m venv /tmp/benchenv --system-site-packages && /tmp/benchenv/bin/pip install knockpy boruta; "
           "then run this script with /tmp/benchenv/bin/python")


def arrays(frame):
    """X, and y as numbers (classes as 0/1), for the peers."""
    X = frame.drop(columns="y").to_numpy()
    y = frame["y"].to_numpy()
    if y.dtype == object:
        y = (y == "b").astype(int)
    return X, y


# ------------------------------------------------------------------------------ time-limited calls

def _timed_child(function, args, kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def within(limit, function, *args, **kwargs):
    """(result, seconds, timed_out): ``function`` in a forked child, timed inside it; after ``limit``
    seconds the child is terminated and the result is None, the time ``limit``."""
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        job = pool.apply_async(_timed_child, (function, args, kwargs))
        try:
            result, seconds = job.get(limit)
        except multiprocessing.TimeoutError:
            return None, float(limit), True
    return result, seconds, False


def fstools_knockoffs(frame, seed):
    result = fs.knockoff_filter("y ~ .", frame, method="lasso", fdr=FDR, knockoffs="gaussian", s="mvr",
                                random_state=seed, n_jobs=1)
    return list(result.selected)


def fstools_boruta(frame, seed, sizes):
    result = fs.boruta("y ~ .", frame, importance="random_forest", importance_type="impurity",
                       n_estimators=sizes["trees"], max_depth=sizes["max_depth"], max_features="sqrt",
                       max_runs=sizes["max_runs"], p_value=0.01, random_state=seed, n_jobs=1)
    return list(result.selected), list(result.tentative)


def borutapy_boruta(frame, seed, sizes, response):
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    X, y = arrays(frame)
    forest = (RandomForestRegressor if response == "linear" else RandomForestClassifier)(
        n_estimators=sizes["trees"], max_depth=sizes["max_depth"], max_features="sqrt", n_jobs=1)
    model = BorutaPy(forest, n_estimators=sizes["trees"], max_iter=sizes["max_runs"], alpha=0.01,
                     random_state=seed)
    model.fit(X, y)
    names = frame.columns[:-1]
    return list(names[model.support_]), list(names[model.support_weak_])


# ------------------------------------------------------------------------------ summaries

def mean_se(values):
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return float("nan"), float("nan")
    se = values.std(ddof=1) / math.sqrt(values.size) if values.size > 1 else float("nan")
    return float(values.mean()), se


def at_least_as_good(ours, theirs, higher_is_better=True):
    """Paired: ours >= theirs - 1 SE of the difference (<= theirs + 1 SE when lower is better)."""
    difference = np.asarray(ours, float) - np.asarray(theirs, float)
    keep = np.isfinite(difference)
    difference = difference[keep]
    if difference.size == 0:
        return False, float("nan"), float("nan")
    mean = difference.mean()
    se = difference.std(ddof=1) / math.sqrt(difference.size) if difference.size > 1 else 0.0
    ok = mean >= -se - 1e-12 if higher_is_better else mean <= se + 1e-12
    return bool(ok), float(mean), float(se)


def counts(selected, truth):
    if selected is None:
        return float("nan"), float("nan"), float("nan")
    selected = set(selected)
    true, false = len(selected & truth), len(selected - truth)
    return true / N_SIGNALS, false / max(len(selected), 1), false


# ------------------------------------------------------------------------------ sections

def section_knockoffs(sizes, limit, tag):
    print()
    print(f"[1] Knockoffs: fs.knockoff_filter(method='lasso', knockoffs='gaussian', s='mvr') vs "
          f"knockpy KnockoffFilter(ksampler='gaussian', fstat='lasso', mvr), FDR {FDR}")
    print(f"    {sizes['knockoff_replicates']} data sets per row; each call in a forked child, limit {limit} s "
          f"(a call over it counts as {limit} s)")
    print(f"    {'data':24s} {'fstools s':>9s} {'knockpy s':>9s} {'ratio':>6s}   {'power fstools':>15s} "
          f"{'power knockpy':>15s} {'FDP fstools':>13s} {'FDP knockpy':>13s}  timeouts  verdict")
    for p in sizes["p"]:
        for response in ("linear", "logistic"):
            rows = []
            for replicate in range(sizes["knockoff_replicates"]):
                seed = 7000 + 100 * p + 10 * (response == "logistic") + replicate
                frame, truth = simulate(sizes["n"], p, sizes["rho"], response, AMPLITUDE[response], seed)
                ours, our_time, our_out = within(limit, fstools_knockoffs, frame, seed)
                theirs, their_time, their_out = within(limit, knockpy_selection, frame, seed, FDR)
                rows.append((our_time, their_time, our_out, their_out) + counts(ours, truth)[:2]
                            + counts(theirs, truth)[:2])
            table = pd.DataFrame(rows, columns=["t_ours", "t_theirs", "out_ours", "out_theirs", "power_ours",
                                                "fdp_ours", "power_theirs", "fdp_theirs"])
            ratio = table["t_ours"].sum() / table["t_theirs"].sum()
            power_ok, _, _ = at_least_as_good(table["power_ours"], table["power_theirs"])
            # "The same error level": both are run at FDR 0.1, and fstools' FDR must be controlled
            # there (mean FDP at most 0.1 + 2 SE); a lower FDP than the peer's is not asked for,
            # since a more powerful filter at the same q may make more (allowed) false discoveries.
            fdp_mean, fdp_se = mean_se(table["fdp_ours"])
            fdp_ok = fdp_mean <= FDR + 2 * fdp_se
            label = f"p = {p}, {response}"
            parts = [f"{m:.2f} ± {s:.2f}" for m, s in (mean_se(table[c]) for c in
                                                         ("power_ours", "power_theirs", "fdp_ours", "fdp_theirs"))]
            word = verdict(ratio <= 1.0 and power_ok and fdp_ok,
                           f"[1] knockoffs {label}: time fstools / knockpy = {ratio:.2f} (target <= 1), power "
                           f"{parts[0]} vs {parts[1]}, FDP {parts[2]} vs {parts[3]}{tag}")
            print(f"    {label:24s} {table['t_ours'].sum():9.1f} {table['t_theirs'].sum():9.1f} {ratio:6.2f}   "
                  f"{parts[0]:>15s} {parts[1]:>15s} {parts[2]:>13s} {parts[3]:>13s}  "
                  f"{int(table['out_ours'].sum())} / {int(table['out_theirs'].sum()):<4d}  {word}")


def section_boruta(sizes, tag):
    print()
    print(f"[2] Boruta: fs.boruta(importance='random_forest', importance_type='impurity') vs BorutaPy, the same "
          f"scikit-learn forest")
    print(f"    n_estimators={sizes['trees']}, max_depth={sizes['max_depth']}, max_features='sqrt'; "
          f"max_runs = max_iter = {sizes['max_runs']}, p_value = alpha = 0.01; "
          f"{sizes['boruta_replicates']} data set(s) per row")
    print(f"    {'data':24s} {'fstools s':>9s} {'BorutaPy s':>10s} {'ratio':>6s}   {'true fstools':>13s} "
          f"{'true BorutaPy':>13s} {'false fstools':>13s} {'false BorutaPy':>14s} {'tentative':>11s}  verdict")
    for p in sizes["boruta_p"]:
        for response in ("linear", "logistic"):
            rows = []
            for replicate in range(sizes["boruta_replicates"]):
                seed = 8000 + 100 * p + 10 * (response == "logistic") + replicate
                frame, truth = simulate(sizes["n"], p, sizes["rho"], response, AMPLITUDE[response], seed)
                start = time.perf_counter()
                ours, our_tentative = fstools_boruta(frame, seed, sizes)
                our_time = time.perf_counter() - start
                start = time.perf_counter()
                theirs, their_tentative = borutapy_boruta(frame, seed, sizes, response)
                their_time = time.perf_counter() - start
                rows.append((our_time, their_time, len(set(ours) & truth), len(set(theirs) & truth),
                             len(set(ours) - truth), len(set(theirs) - truth), len(our_tentative),
                             len(their_tentative)))
            table = pd.DataFrame(rows, columns=["t_ours", "t_theirs", "true_ours", "true_theirs", "false_ours",
                                                "false_theirs", "tent_ours", "tent_theirs"])
            ratio = table["t_ours"].sum() / table["t_theirs"].sum()
            true_ok, _, _ = at_least_as_good(table["true_ours"], table["true_theirs"])
            false_ok, _, _ = at_least_as_good(table["false_ours"], table["false_theirs"], higher_is_better=False)
            label = f"p = {p}, {response}"
            means = {c: table[c].mean() for c in table.columns}
            word = verdict(ratio <= 1.0 and true_ok and false_ok,
                           f"[2] Boruta {label}: time fstools / BorutaPy = {ratio:.2f} (target <= 1), true "
                           f"confirmations {means['true_ours']:.1f} vs {means['true_theirs']:.1f}, false "
                           f"{means['false_ours']:.1f} vs {means['false_theirs']:.1f}{tag}")
            print(f"    {label:24s} {table['t_ours'].sum():9.1f} {table['t_theirs'].sum():10.1f} {ratio:6.2f}   "
                  f"{means['true_ours']:13.1f} {means['true_theirs']:13.1f} {means['false_ours']:13.1f} "
                  f"{means['false_theirs']:14.1f} {means['tent_ours']:5.1f} / {means['tent_theirs']:<4.1f}  {word}")


def section_stabsel(sizes, repeat, tag):
    print()
    print(f"[3] Stability selection, B = {sizes['B']} complementary pairs ({2 * sizes['B']} runs on half-samples), "
          f"vs one fs.select(k = q) on the same data (classes; n_jobs=1); best of {repeat}, interleaved")
    print(f"    {'data':18s} {'method':8s} {'q':>3s} {'select s':>9s} {'stabsel s':>10s} {'ratio':>7s}  "
          f"verdict (target <= {STABSEL_TARGET:g}x)")
    for p in sizes["stabsel_p"]:
        seed = 9000 + p
        frame, _ = simulate(sizes["n"], p, sizes["rho"], "logistic", AMPLITUDE["logistic"], seed)
        q = Q_PER_RUN[p]
        for method in STABSEL_METHODS:
            best, _ = interleaved_best({
                "select": lambda: fs.select("y ~ .", frame, method=method, k=q, n_jobs=1),
                "stabsel": lambda: fs.stability_selection("y ~ .", frame, method, q=q, pfer=1, B=sizes["B"],
                                                          random_state=seed, n_jobs=1),
            }, repeat)
            ratio = best["stabsel"] / best["select"]
            label = f"p = {p}, classes"
            word = verdict(ratio <= STABSEL_TARGET, f"[3] stability selection {method}, {label}: {ratio:.1f}x one "
                                                    f"select (target <= {STABSEL_TARGET:g}x){tag}")
            print(f"    {label:18s} {method:8s} {q:3d} {best['select']:9.4f} {best['stabsel']:10.3f} "
                  f"{ratio:6.1f}x  {word}")


def main():
    parser = benchmark_parser(__doc__, quick_help="reduced sizes (a smoke run)")
    parser.add_argument("--limit", type=float, default=45.0,
                        help="seconds allowed to one knockoff filter call (default 45)")
    parser.add_argument("--only", action="append", choices=("knockoffs", "boruta", "stabsel"), default=None,
                        help="run only this section (repeatable; default all three)")
    args = parser.parse_args()
    sections = set(args.only or ("knockoffs", "boruta", "stabsel"))
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    tag = " (quick sizes)" if args.quick else ""
    started = time.perf_counter()
    import sklearn

    packages = [("scikit-learn", sklearn.__version__),
                ("knockpy", knockpy.__version__ if knockpy else "not installed"),
                ("boruta", getattr(boruta_package, "__version__", "installed") if boruta_package else "not installed")]
    print_machine_info("Guarantees benchmark: knockoffs, Boruta, stability selection", args.quick, args.repeat,
                       sizes, packages=packages,
                       environment=("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"),
                       timing=(f"[1], [2]: one run per data set, summed, calls interleaved; [3]: best of "
                               f"{args.repeat} interleaved (time.perf_counter)"))
    if "knockoffs" not in sections:
        pass
    elif knockpy is None:
        print(f"\n[1] skipped: knockpy is not importable ({INSTALL})")
    else:
        section_knockoffs(sizes, args.limit, tag)
    if "boruta" not in sections:
        pass
    elif BorutaPy is None:
        print(f"\n[2] skipped: boruta (BorutaPy) is not importable ({INSTALL})")
    else:
        section_boruta(sizes, tag)
    if "stabsel" in sections:
        section_stabsel(sizes, args.repeat, tag)
    print_summary(started)


if __name__ == "__main__":
    main()

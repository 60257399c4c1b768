"""Benchmark of the baseline methods against scikit-feature.

Run on demand, never in CI:

    python benchmarks/bench_baselines.py --skfeature-python /tmp/skf/bin/python   # full sizes (~6-8 min)
    python benchmarks/bench_baselines.py --quick                                   # reduced sizes (< ~1 min)

On a 2,000 x 500 Madelon-style set (``make_classification(n_samples=2000, n_features=500,
n_informative=20, n_redundant=0, random_state=0)``), k = 50, it times fstools' greedy
information-theoretic methods ``mrmr``, ``jmi``, ``cmim``, ``mifs`` (targets: each < 0.5 s and
>= 100x faster than scikit-feature's implementation of the same criterion) and the filters
``fisher``, ``relieff`` (target: >= 10x faster than scikit-feature's), and prints a table:
method, fstools time, scikit-feature time, ratio, PASS/FAIL.

scikit-feature (pip package ``skfeature-chappers``, import name ``skfeature``) is not a
dependency of fstools.  It runs in a subprocess (``benchmarks/_skfeature_runner.py``) with the
interpreter given by ``--skfeature-python`` (default: this interpreter if it can import
``skfeature``; otherwise the script says how to install it and skips the ratios), on the same
X and y (saved to temporary .npy files).  The information-theoretic functions of scikit-feature
estimate entropies from the values they are given, so they get the nine-level mu/sigma codes
that fstools computes internally (``fstools.core.discretize.information_codes``): both sides
compute the same criterion on the same discrete data.

Conventions (``benchmarks/README.md``): every timing is the best of N runs (``--repeat``,
N >= 3) of ``time.perf_counter``; the runs compared with each other are interleaved (fstools,
scikit-feature, fstools, scikit-feature, ...; scikit-feature's time is measured inside the
worker around the call alone); the machine is printed; the ratios are against scikit-feature
measured in the same run; the script never asserts on time, it prints PASS/FAIL lines.

scikit-feature's greedy loops are slow (pure Python, ~3 ms per candidate and step here), so
their time is measured on a subset -- the setup (I(X;C) of every column) and the first few
greedy steps -- and extrapolated linearly in the number of (candidate, step) pair terms; the
output says so.  One full k = 50 run per greedy method (not repeated) gives the selection that
is compared with fstools' and checks the extrapolation; it is cut to fewer picks when its
predicted time exceeds ``--skfeature-max-seconds``.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a source checkout: use the in-place build
    sys.path.insert(1, ROOT)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402

import fstools as fs  # noqa: E402
from _harness import (SUMMARY, benchmark_parser, interleaved_best, load_average,  # noqa: E402
                      print_machine_info, usable_cores, verdict)
from fstools.core.discretize import information_codes  # noqa: E402
from fstools.methods import information, similarity  # noqa: E402

RUNNER = os.path.join(HERE, "_skfeature_runner.py")
INSTALL_HINT = ("python -m venv /tmp/skf && /tmp/skf/bin/pip install skfeature-chappers\n"
                "    python benchmarks/bench_baselines.py --skfeature-python /tmp/skf/bin/python")

# Targets of the issue.
GREEDY_TIME_TARGET = 0.5     # seconds, fstools mrmr / jmi / cmim / mifs on 2,000 x 500, k = 50
GREEDY_RATIO_TARGET = 100.0  # scikit-feature time / fstools time
FILTER_RATIO_TARGET = 10.0   # fisher, relieff

FULL_SIZES = dict(m=2000, n=500, informative=20, k=50, skf_steps=3)
QUICK_SIZES = dict(m=500, n=100, informative=10, k=10, skf_steps=2)

GREEDY = ("mrmr", "jmi", "cmim", "mifs")
FILTERS = ("fisher", "relieff")
RELIEFF_NEIGHBOURS = 10      # fstools' default; passed to scikit-feature too (its default is 5)

# scikit-feature function timed for each greedy method (see _skfeature_runner.py), and the one
# whose full selection is compared with fstools'.
SKF_TIMED = {"mrmr": "lcsi_mrmr", "jmi": "lcsi_jmi", "cmim": "cmim", "mifs": "lcsi_mifs"}
SKF_AGREEMENT = {"mrmr": "lcsi_upstream_mrmr", "jmi": "lcsi_upstream_jmi", "cmim": "cmim", "mifs": "lcsi_mifs"}
SKF_PARAMS = {"mifs": {"beta": 1.0}}  # fstools' (and FEAST's, the CMQFS paper's) beta; skfeature's default is 0.5



# --------------------------------------------------------------------------- machine

def machine_info(args, sizes):
    import sklearn
    print_machine_info("Baselines benchmark: fstools vs scikit-feature", args.quick, args.repeat, sizes,
                       packages=[("scikit-learn", sklearn.__version__), ("pandas", pd.__version__)])


# --------------------------------------------------------------------------- scikit-feature worker

class SkfeatureWorker:
    """The scikit-feature subprocess (``_skfeature_runner.py``), one JSON request per line."""

    def __init__(self, python):
        self.python = python
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen([python, RUNNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr, text=True, cwd=tempfile.gettempdir())

    def request(self, **request):
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            self.stderr.seek(0)
            raise RuntimeError(f"the scikit-feature worker ({self.python}) exited; its stderr ends with:\n"
                               + self.stderr.read()[-2000:])
        answer = json.loads(line)
        if not answer.get("ok"):
            raise RuntimeError(f"scikit-feature worker: {answer.get('error')}")
        return answer

    def run(self, function, data="X", **params):
        return self.request(cmd="run", function=function, data=data, params=params)

    def close(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
                self.process.stdin.close()
                self.process.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
        self.stderr.close()


def find_skfeature_python(requested):
    """(interpreter, None) or (None, reason)."""
    if requested:
        probe = subprocess.run([requested, "-c", "import skfeature"], capture_output=True, text=True)
        if probe.returncode != 0:
            return None, (f"--skfeature-python {requested}: 'import skfeature' failed: "
                          f"{(probe.stderr.strip().splitlines() or ['?'])[-1]}")
        return requested, None
    import importlib.util
    if importlib.util.find_spec("skfeature") is not None:
        return sys.executable, None
    return None, "this interpreter cannot import skfeature and --skfeature-python was not given"


def start_worker(args, X, codes, y, workdir):
    python, reason = find_skfeature_python(args.skfeature_python)
    print()
    if python is None:
        print(f"scikit-feature    NOT AVAILABLE: {reason}.")
        print("                  The scikit-feature timings and ratios are skipped. To include them, install")
        print("                  scikit-feature (pip package skfeature-chappers; not an fstools dependency)")
        print("                  in a separate environment and pass its interpreter:")
        print(f"    {INSTALL_HINT}")
        return None
    paths = {name: os.path.join(workdir, f"{name}.npy") for name in ("X", "codes", "y")}
    np.save(paths["X"], X)
    np.save(paths["codes"], codes)
    np.save(paths["y"], y)
    worker = SkfeatureWorker(python)
    try:
        info = worker.request(cmd="info")["info"]
        worker.request(cmd="load", **paths)
    except Exception:
        worker.close()
        raise
    print(f"scikit-feature    skfeature-chappers {info['skfeature']} (import name skfeature) in a subprocess:")
    print(f"                  {info['executable']}  (python {info['python']}, numpy {info['numpy']}, "
          f"scipy {info['scipy']}, scikit-learn {info['scikit-learn']})")
    print(f"                  same X, y (and discrete codes) via .npy files in {workdir}")
    return worker


# --------------------------------------------------------------------------- data

def madelon_data(m, n, informative, seed=0):
    X, y = make_classification(n_samples=m, n_features=n, n_informative=informative, n_redundant=0,
                               random_state=seed)
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(n)])
    frame["class"] = pd.Categorical.from_codes(y, categories=["c0", "c1"])
    return X, y.astype(np.int32), frame


def describe_error(error):
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "fstools" in f.filename]
    where = (f" (last fstools frame: {os.path.relpath(frames[-1].filename, ROOT)}:{frames[-1].lineno} "
             f"in {frames[-1].name})") if frames else ""
    message = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {message}{where}"


# --------------------------------------------------------------------------- plug-in criteria (bits)

def _entropy(*columns):
    joint = np.unique(np.stack(columns), axis=1, return_counts=True)[1] / columns[0].shape[0]
    return float(-(joint * np.log2(joint)).sum())


def _mi(a, b):
    return _entropy(a) + _entropy(b) - _entropy(a, b)


def _cmi(a, b, c):
    return _entropy(a, c) + _entropy(b, c) - _entropy(a, b, c) - _entropy(c)


def criterion_values(method, codes, y, selected, candidate):
    """(fstools J, scikit-feature J) of ``candidate`` given the ``selected`` columns, in bits.

    fstools: the formulas of ``fstools.methods.information``.  scikit-feature: mifs
    I - sum I(f;f_j) (beta = 1); upstream mrmr I - (1/|S|) sum I(f;f_j); upstream jmi
    I - (1/|S|) sum I(f;f_j) + (1/|S|) sum I(f;f_j|C); cmim min_j I(f;C|f_j) (no cap at I(f;C)).
    """
    f = codes[:, candidate]
    relevance = _mi(f, y)
    if not selected:
        return relevance, relevance
    mutual = np.array([_mi(f, codes[:, j]) for j in selected])
    conditional_on_class = np.array([_cmi(f, codes[:, j], y) for j in selected])
    given = relevance - mutual + conditional_on_class   # I(f;C|f_j)
    size = len(selected)
    if method == "mifs":
        value = relevance - mutual.sum()
        return value, value
    if method == "mrmr":
        value = relevance - mutual.sum() / size
        return value, value
    if method == "jmi":
        joint = np.array([_mi(codes[:, j], y) for j in selected]) + given   # I(f,f_j;C)
        return float(joint.sum()), float(relevance - mutual.sum() / size + conditional_on_class.sum() / size)
    if method == "cmim":
        return float(min(relevance, given.min())), float(given.min())
    raise ValueError(method)


def agreement(fst, skf):
    """(length of the common prefix, size of the overlap of the two selections)."""
    prefix = 0
    for a, b in zip(fst, skf):
        if a != b:
            break
        prefix += 1
    return prefix, len(set(fst[:len(skf)]) & set(skf))


# --------------------------------------------------------------------------- section 1

def pair_terms(n, steps):
    """(candidate, step) pair terms of ``steps`` greedy steps after the first pick."""
    return sum(n - j for j in range(1, steps + 1))


def section_greedy(sizes, args, X, y, frame, codes, worker):
    m, n, k, steps = sizes["m"], sizes["n"], sizes["k"], sizes["skf_steps"]
    cores = usable_cores()
    print()
    print(f"[1] Greedy information-theoretic methods, k = {k}, on {m:,} x {n}")
    print("    fstools: fstools.methods.information.<method>(X, y, k, n_threads) on the continuous X")
    print("      (discretised inside by information_codes: nine mu/sigma levels), and end to end")
    print(f"      fs.select('class ~ .', df, method=..., k={k}) (default n_jobs: all cores)")
    print("    scikit-feature: the same nine-level codes (information_codes(X)), since its plug-in")
    print("      estimators take the values as given; same criterion, same discrete data")
    print("      mrmr, jmi, mifs: skfeature's LCSI.lcsi(..., mode='index') with the arguments MRMR.mrmr,")
    print("        JMI.jmi, MIFS.mifs pass it (their own mode='index' output is broken in skfeature-chappers:")
    print("        it returns [0, 1, ..., k-1] whatever was selected); mifs with beta = 1 (fstools' and")
    print("        FEAST's default; skfeature's default is 0.5); cmim: CMIM.cmim(..., mode='index')")
    if worker is not None:
        print(f"      timed on a SUBSET, then extrapolated: the setup (n_selected_features=1: I(X;C) of all "
              f"{n} columns)")
        print(f"        and {steps} greedy steps (n_selected_features={steps + 1}: {pair_terms(n, steps):,} "
              f"(candidate, step) pair terms),")
        print(f"        scaled linearly to the {k - 1} steps of k = {k} ({pair_terms(n, k - 1):,} pair terms)")

    # Both sides see the same discrete data: fstools on the codes themselves selects as on X.
    same_codes = all(np.array_equal(getattr(information, name)(X, y, k).ranking,
                                    getattr(information, name)(codes.astype(np.float64), y, k).ranking)
                     for name in GREEDY)
    print(f"    fstools on the codes (as a float matrix) selects exactly as on X, all four methods: "
          f"{'yes' if same_codes else 'NO'}")

    functions = {}
    for name in GREEDY:
        method = getattr(information, name)
        functions[f"{name}/1"] = (lambda method=method: method(X, y, k, 1))
        functions[f"{name}/all"] = (lambda method=method: method(X, y, k, cores))
        functions[f"{name}/select"] = (lambda name=name: fs.select("class ~ .", frame, method=name, k=k))
        if worker is not None:
            params = SKF_PARAMS.get(name, {})
            function = SKF_TIMED[name]
            functions[f"{name}/skf_setup"] = (lambda function=function, params=params:
                                             worker.run(function, "codes", n_selected_features=1, **params))
            functions[f"{name}/skf_steps"] = (lambda function=function, params=params:
                                             worker.run(function, "codes", n_selected_features=steps + 1, **params))
    times, results = interleaved_best(functions, args.repeat)

    rows = {}
    tag = " (quick sizes)" if args.quick else ""
    print()
    print(f"    {'':8s} {'fstools':>10s} {'fstools':>10s} {'fs.select':>10s}   {'scikit-feature':>14s} "
          f"{'ratio':>8s} {'ratio':>8s}")
    print(f"    {'method':8s} {'1 thread':>10s} {f'{cores} threads':>10s} {'':>10s}   "
          f"{'(extrapolated)':>14s} {'1 thread':>8s} {f'{cores} thr':>8s}")
    for name in GREEDY:
        row = {"fstools": times[f"{name}/1"], "fstools_all": times[f"{name}/all"],
               "select": times[f"{name}/select"], "select_error": None, "skf": None, "skf_note": ""}
        for key in ("1", "all"):
            if isinstance(results[f"{name}/{key}"], Exception):
                print(f"    {name}: fstools ERROR {describe_error(results[f'{name}/{key}'])}")
        if isinstance(results[f"{name}/select"], Exception):
            row["select_error"] = results[f"{name}/select"]
        if worker is not None and not isinstance(results.get(f"{name}/skf_steps"), Exception) \
                and not isinstance(results.get(f"{name}/skf_setup"), Exception):
            setup = times[f"{name}/skf_setup"]
            per_pair = max(times[f"{name}/skf_steps"] - setup, 0.0) / pair_terms(n, steps)
            row.update(skf=setup + per_pair * pair_terms(n, k - 1), skf_setup=setup, skf_per_pair=per_pair,
                       skf_prefix=results[f"{name}/skf_steps"]["selected"], skf_note="extrapolated")
        elif worker is not None:
            error = results.get(f"{name}/skf_steps")
            error = error if isinstance(error, Exception) else results.get(f"{name}/skf_setup")
            print(f"    {name}: scikit-feature ERROR {error}")
        rows[name] = row
        select_text = "ERROR" if row["select_error"] else f"{row['select']:8.3f} s"
        skf_text = f"{row['skf']:12.1f} s" if row["skf"] is not None else f"{'n/a':>14s}"
        ratio1 = f"{row['skf'] / row['fstools']:7.0f}x" if row["skf"] is not None else f"{'n/a':>8s}"
        ratio2 = f"{row['skf'] / row['fstools_all']:7.0f}x" if row["skf"] is not None else f"{'n/a':>8s}"
        print(f"    {name:8s} {row['fstools']:8.3f} s {row['fstools_all']:8.3f} s {select_text:>10s}   "
              f"{skf_text} {ratio1} {ratio2}")
    if worker is not None:
        print("    scikit-feature subset timings (best of N): "
              + "; ".join(f"{name} setup {rows[name]['skf_setup']:.2f} s + "
                          f"{1e3 * rows[name]['skf_per_pair']:.2f} ms / pair term"
                          for name in GREEDY if rows[name]["skf"] is not None))
    for name in GREEDY:
        if rows[name]["select_error"] is not None:
            print(f"    fs.select(method={name!r}) ERROR: {describe_error(rows[name]['select_error'])}")

    # PASS/FAIL
    for name in GREEDY:
        row = rows[name]
        row["verdicts"] = []
        word = verdict(row["fstools"] < GREEDY_TIME_TARGET,
                       f"[1] {name} 1 thread: {row['fstools']:.3f} s (target < {GREEDY_TIME_TARGET:g} s){tag}")
        row["verdicts"].append(word)
        verdict(row["fstools_all"] < GREEDY_TIME_TARGET,
                f"[1] {name} {cores} threads: {row['fstools_all']:.3f} s (target < {GREEDY_TIME_TARGET:g} s){tag}")
        if row["select_error"] is not None:
            verdict(False, f"[1] fs.select(method={name!r}): ERROR {type(row['select_error']).__name__}{tag}")
        else:
            verdict(row["select"] < GREEDY_TIME_TARGET,
                    f"[1] fs.select(method={name!r}): {row['select']:.3f} s (target < {GREEDY_TIME_TARGET:g} s){tag}")
        if row["skf"] is not None:
            ratio = row["skf"] / row["fstools"]
            row["verdicts"].append(verdict(
                ratio >= GREEDY_RATIO_TARGET,
                f"[1] {name} 1 thread vs scikit-feature: {ratio:.0f}x faster (target >= {GREEDY_RATIO_TARGET:g}x; "
                f"scikit-feature time EXTRAPOLATED){tag}"))

    if worker is not None:
        greedy_agreement(sizes, args, codes, y, worker, rows, results)
    return rows


def greedy_agreement(sizes, args, codes, y, worker, rows, results):
    n, k, steps = sizes["n"], sizes["k"], sizes["skf_steps"]
    print()
    print(f"    Selected features, fstools vs scikit-feature (first k = {k}; one scikit-feature run each,")
    print("    not repeated; it also checks the extrapolation). mrmr and jmi: skfeature-chappers' lcsi ignores")
    print("    function_name, so its MRMR.mrmr / JMI.jmi run with fixed beta = 0.8 (and gamma = 0.5 for jmi),")
    print("    not the mRMR / JMI criteria; their full selections are therefore compared with upstream")
    print("    scikit-feature's rule (beta = 1/|S|; jmi also gamma = 1/|S|), run in the worker on skfeature's")
    print("    own midd / cmidd estimators. Agreement: common prefix (identical order) and overlap (as sets).")
    for name in GREEDY:
        row = rows[name]
        fst = [int(j) for j in results[f"{name}/1"].ranking]
        if row["skf"] is None:
            continue
        if name in ("mrmr", "jmi"):
            prefix_shipped = row["skf_prefix"]
            same, _ = agreement(fst, prefix_shipped)
            shipped = "beta = 0.8, gamma = 0.5" if name == "jmi" else "beta = 0.8"
            print(f"    {name}: skfeature-chappers' {name} as shipped ({shipped}), "
                  f"first {len(prefix_shipped)} picks {prefix_shipped} vs fstools {fst[:len(prefix_shipped)]}: "
                  f"common prefix {same}")
        per_pick = row["skf_per_pair"]
        predicted = row["skf"]
        picks = k
        if predicted > args.skfeature_max_seconds:
            picks = 1
            while picks < k and row["skf_setup"] + per_pick * pair_terms(n, picks) <= args.skfeature_max_seconds:
                picks += 1
        predicted_picks = row["skf_setup"] + per_pick * pair_terms(n, picks - 1)
        try:
            answer = worker.run(SKF_AGREEMENT[name], "codes", n_selected_features=picks, **SKF_PARAMS.get(name, {}))
        except Exception as error:  # noqa: BLE001
            print(f"    {name}: scikit-feature ERROR {error}")
            continue
        skf = answer["selected"]
        prefix, overlap = agreement(fst, skf)
        cut = "" if picks == k else (f"  [CUT to the first {picks} picks: a full run was predicted to take "
                                     f"{predicted:.0f} s > --skfeature-max-seconds {args.skfeature_max_seconds:g}]")
        label = {"mrmr": "upstream-rule mrmr", "jmi": "upstream-rule jmi", "cmim": "CMIM.cmim",
                 "mifs": "lcsi (MIFS, beta = 1)"}[name]
        print(f"    {name}: {label}: single run {answer['seconds']:.1f} s for {picks} picks "
              f"(extrapolation from the subset: {predicted_picks:.1f} s, "
              f"{100 * (predicted_picks / answer['seconds'] - 1):+.0f}%){cut}")
        print(f"      common prefix {prefix} of {len(skf)}; overlap {overlap} of {len(skf)}")
        row["agreement"] = (prefix, overlap, len(skf))
        if prefix < len(skf):
            a, b = fst[prefix], skf[prefix]
            selected = fst[:prefix]
            fa, sa = criterion_values(name, codes, y, selected, a)
            fb, sb = criterion_values(name, codes, y, selected, b)
            print(f"      first difference at pick {prefix + 1}: fstools {a}, scikit-feature {b}. Given the same "
                  f"{prefix} selected, in bits:")
            print(f"        fstools' criterion:        J({a}) = {fa:.12f}   J({b}) = {fb:.12f}   "
                  f"difference {fa - fb:+.2e}")
            print(f"        scikit-feature's criterion: J({a}) = {sa:.12f}   J({b}) = {sb:.12f}   "
                  f"difference {sa - sb:+.2e}")
            print(f"        -> {explain_difference(name, a, b, fa, fb, sa, sb)}")
            print(f"      fstools        {fst[:12]} ...")
            print(f"      scikit-feature {skf[:12]} ...")
        else:
            print(f"      first picks: {skf[:12]} ...")


def explain_difference(name, a, b, fa, fb, sa, sb):
    scale = max(1.0, abs(fa), abs(fb), abs(sa), abs(sb))
    if abs(fa - fb) <= 1e-9 * scale and abs(sa - sb) <= 1e-9 * scale:
        low = min(a, b)
        return (f"a tie up to rounding (|difference| <= 1e-9): fstools treats values within 1e-12 (relative) "
                f"as tied and takes the lowest column ({low}); scikit-feature's strict '>' scan keeps the "
                f"first exactly largest value computed in its own rounding, so either may win")
    if name == "cmim" and (fa - fb) * (sa - sb) < 0:
        return ("the criteria differ: fstools (as FEAST) caps the CMIM score at I(X_k;C); scikit-feature's "
                "min_j I(X_k;C|X_j) is not capped, so a candidate whose conditional information exceeds its "
                "own relevance (synergy with every selected feature) scores higher there")
    if (fa - fb) * (sa - sb) < 0:
        return "the two criteria order these candidates differently"
    return "both criteria prefer the same candidate here; the difference comes from an earlier tie or rounding"


# --------------------------------------------------------------------------- section 2

def section_filters(sizes, args, X, y, frame, worker):
    m, n, k = sizes["m"], sizes["n"], sizes["k"]
    cores = usable_cores()
    print()
    print(f"[2] Filters fisher and relieff on the same {m:,} x {n} data (continuous X; every column scored)")
    print("    fstools: fstools.methods.similarity.fisher / relieff(X, y, k, n_threads) and fs.select")
    print("    scikit-feature: fisher_score(X, y, mode='index'); reliefF(X, y, mode='raw', "
          f"k={RELIEFF_NEIGHBOURS}) (its default k is 5;")
    print(f"      fstools' default n_neighbors = {RELIEFF_NEIGHBOURS} is passed so both do the same neighbour work)")
    functions = {
        "fisher/1": lambda: similarity.fisher(X, y, k, 1),
        "fisher/all": lambda: similarity.fisher(X, y, k, cores),
        "fisher/select": lambda: fs.select("class ~ .", frame, method="fisher", k=k),
        "relieff/1": lambda: similarity.relieff(X, y, k, 1),
        "relieff/all": lambda: similarity.relieff(X, y, k, cores),
        "relieff/select": lambda: fs.select("class ~ .", frame, method="relieff", k=k),
    }
    skf_calls = {"fisher": lambda: worker.run("fisher_score", "X"),
                 "relieff": lambda: worker.run("reliefF", "X", k=RELIEFF_NEIGHBOURS)}
    repeat = args.repeat
    if worker is not None:
        for name, call in skf_calls.items():
            functions[f"{name}/skf"] = call
        probe = {name: call()["seconds"] for name, call in skf_calls.items()}   # also a warm-up
        slowest = max(probe.values())
        if slowest * repeat > 3 * args.skfeature_max_seconds:
            repeat = max(1, int(3 * args.skfeature_max_seconds // slowest))
            print(f"    scikit-feature is slow here ({slowest:.0f} s per run): best of {repeat} "
                  f"instead of {args.repeat}")
    times, results = interleaved_best(functions, repeat)
    tag = " (quick sizes)" if args.quick else ""
    rows = {}
    print()
    for name in FILTERS:
        row = {"fstools": times[f"{name}/1"], "fstools_all": times[f"{name}/all"], "select": times[f"{name}/select"],
               "select_error": results[f"{name}/select"] if isinstance(results[f"{name}/select"], Exception) else None,
               "skf": None, "skf_note": "measured", "verdicts": []}
        skf_result = results.get(f"{name}/skf")
        if isinstance(skf_result, Exception):
            print(f"    {name}: scikit-feature ERROR {skf_result}")
        elif skf_result is not None:
            row["skf"] = times[f"{name}/skf"]
        rows[name] = row
        select_text = "ERROR" if row["select_error"] is not None else f"{row['select']:.3f} s"
        skf_text = f"{row['skf']:.3f} s" if row["skf"] is not None else "n/a"
        print(f"    {name:8s} fstools 1 thread {row['fstools']:.4f} s, {cores} threads {row['fstools_all']:.4f} s, "
              f"fs.select {select_text}; scikit-feature {skf_text}")
        if row["skf"] is not None:
            for key, label in (("fstools", "1 thread"), ("fstools_all", f"{cores} threads")):
                ratio = row["skf"] / row[key]
                word = verdict(ratio >= FILTER_RATIO_TARGET,
                               f"[2] {name} {label} vs scikit-feature: {ratio:.1f}x faster "
                               f"(target >= {FILTER_RATIO_TARGET:g}x){tag}")
                if key == "fstools":
                    row["verdicts"].append(word)
        if row["select_error"] is not None:
            print(f"    fs.select(method={name!r}) ERROR: {describe_error(row['select_error'])}")
    if worker is not None:
        print()
        print(f"    Rankings compared (top {k}):")
        fisher_fst = [int(j) for j in results["fisher/1"].ranking]
        if not isinstance(results.get("fisher/skf"), Exception):
            fisher_skf = results["fisher/skf"]["selected"]
            prefix, overlap = agreement(fisher_fst[:k], fisher_skf[:k])
            print(f"    fisher: common prefix {prefix} of {k}, overlap {overlap} of {k} (same score: "
                  "scikit-feature computes 1/laplacian - 1 through an n x n graph, = between / within variance)")
        if not isinstance(results.get("relieff/skf"), Exception):
            relieff_fst = [int(j) for j in results["relieff/1"].ranking]
            relieff_skf = results["relieff/skf"]["selected"]
            prefix, overlap = agreement(relieff_fst[:k], relieff_skf[:k])
            scores_fst = np.asarray(results["relieff/1"].scores)
            scores_skf = np.asarray(results["relieff/skf"]["scores"])
            rho = pd.Series(scores_fst).corr(pd.Series(scores_skf), method="spearman")
            print(f"    relieff: common prefix {prefix} of {k}, overlap {overlap} of {k}; Spearman correlation of "
                  f"the {n} weights {rho:.3f}")
            print("      (not the same weights by design: fstools scales each feature by its range and uses "
                  "that scaled Manhattan")
            print("      distance, as Robnik-Sikonja & Kononenko 2003; scikit-feature uses raw Manhattan distances "
                  "and raw |differences|)")
    return rows


# --------------------------------------------------------------------------- table

def print_table(rows, cores):
    print()
    print("Table (fstools: best of N, 1 thread unless noted; scikit-feature: best of N, greedy ones extrapolated)")
    header = (f"  {'method':8s} {'fstools':>10s} {f'fstools {cores}thr':>12s} {'scikit-feature':>16s} "
              f"{'ratio':>8s} {'target':>22s}  result")
    print(header)
    print("  " + "-" * (len(header) - 2))
    for name in GREEDY + FILTERS:
        row = rows[name]
        skf = (f"{row['skf']:.1f} s" + ("*" if row["skf_note"] == "extrapolated" else " ")) \
            if row["skf"] is not None else "skipped "
        ratio = f"{row['skf'] / row['fstools']:.0f}x" if row["skf"] is not None else "n/a"
        if name in GREEDY:
            target = f"< {GREEDY_TIME_TARGET:g} s, >= {GREEDY_RATIO_TARGET:g}x"
        else:
            target = f">= {FILTER_RATIO_TARGET:g}x"
        result = "PASS" if row["verdicts"] and all(w == "PASS" for w in row["verdicts"]) else "FAIL"
        if row["skf"] is None:
            result = "n/a" if name in FILTERS else f"{result} (time only)"
        print(f"  {name:8s} {row['fstools']:8.3f} s {row['fstools_all']:10.3f} s {skf:>16s} {ratio:>8s} "
              f"{target:>22s}  {result}")
    print("  * extrapolated from the setup and the first greedy steps (see [1]); ratio = scikit-feature / "
          "fstools 1 thread")


def main(argv=None):
    parser = benchmark_parser(__doc__, quick_help="reduced sizes (500 x 100, k = 10): a smoke run")
    parser.add_argument("--skfeature-python", default=None,
                        help="interpreter that can import skfeature (default: this one, if it can)")
    parser.add_argument("--skfeature-max-seconds", type=float, default=120.0,
                        help="longest single scikit-feature run allowed (default 120); longer full runs are cut "
                             "to fewer greedy picks")
    args = parser.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    start = time.perf_counter()
    machine_info(args, sizes)
    X, y, frame = madelon_data(sizes["m"], sizes["n"], sizes["informative"])
    codes = np.ascontiguousarray(information_codes(X)[0].T)   # (n_samples, n_features), nine mu/sigma levels
    print(f"data              make_classification(n_samples={sizes['m']}, n_features={sizes['n']}, "
          f"n_informative={sizes['informative']}, n_redundant=0, random_state=0)")
    print(f"                  discrete input of the information-theoretic methods: information_codes(X), "
          f"{int(codes.max()) + 1} levels at most")
    # Warm-up (imports, first touch of the kernels).
    for name in GREEDY:
        getattr(information, name)(X[:200, :20], y[:200], 3)
    similarity.relieff(X[:200, :20], y[:200])
    with tempfile.TemporaryDirectory(prefix="fstools_bench_") as workdir:
        worker = start_worker(args, X, codes, y, workdir)
        try:
            rows = section_greedy(sizes, args, X, y, frame, codes, worker)
            rows.update(section_filters(sizes, args, X, y, frame, worker))
        finally:
            if worker is not None:
                worker.close()
    print_table(rows, usable_cores())
    print()
    print("Summary")
    for line in SUMMARY:
        print(f"  {line}")
    if worker is None:
        print("  (scikit-feature not available: no ratios; see above for how to install it)")
    print(f"load average at end {load_average()};  total wall time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()

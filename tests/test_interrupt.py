"""Ctrl-C stops the long kernel loops within a second.

Each case runs in a subprocess (``python -c``) that builds its data, prints "started", and
then calls one long kernel (sized to take several seconds, much longer than the test
waits); the test sends SIGINT about 0.5 s later and expects the process to end within 2 s
with KeyboardInterrupt on stderr.  Without the signal checks in the nogil loops, the
process would run on until the kernel returned.  The CLI turns the interrupt into one line
on stderr and exit status 130.
"""
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from isolated import subprocess_options

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process needs POSIX")

#: Seconds from "started" to SIGINT, and the most the process may take to stop after it (the
#: interpreter's exit included: on a loaded 2-core machine that alone took up to 0.5 s; every case
#: runs far longer than this uninterrupted).
DELAY = 0.5
STOP_WITHIN = 5.0

_PRELUDE = textwrap.dedent("""
    import numpy as np
    from numpy.lib.stride_tricks import as_strided
    rng = np.random.default_rng(0)
""")

# Each script prints "started" right before the one long kernel call.
CASES = {
    # FVG modularity of 3000 features of 200,000 samples (one column read 3000 times).
    "fvg_modularity": """
        from fstools._ext import _fvg
        m, p = 200_000, 3000
        column = rng.normal(size=m)
        X = as_strided(column, shape=(m, p), strides=(8, 0))
        y = (rng.random(m) < 0.5).astype(np.int32)
        out = np.empty(p)
        print("started", flush=True)
        _fvg.modularity_scores(X, y, 2, out, n_threads=2)
    """,
    # CMQFS permutation null: 3000 features of 20,000 samples, 200 permutations.
    "fvg_permuted_modularity": """
        from fstools._ext import _fvg
        m, p = 20_000, 3000
        column = rng.normal(size=m)
        X = as_strided(column, shape=(m, p), strides=(8, 0))
        y = (rng.random(m) < 0.5).astype(np.int32)
        permutations = np.stack([rng.permutation(m) for _ in range(200)]).astype(np.int32)
        print("started", flush=True)
        _fvg.permuted_modularity(X, y, 2, permutations, n_threads=2)
    """,
    # MIM's (value, class) tables of 1,000 columns of 40,000,000 rows (one row read again and again).
    "class_tables": """
        from fstools._ext import _class_tables
        m, p = 40_000_000, 1000
        row = rng.integers(0, 3, p).astype(np.float64)
        row[[0, -1]] = 100.0  # a column per block that is not counted: the blocks are read to the end
        X = as_strided(row, shape=(m, p), strides=(0, 8))
        y = (rng.random(m) < 0.5).astype(np.int32)
        out, levels, status = np.empty(p), np.empty(p, dtype=np.int32), np.empty(p, dtype=np.int8)
        print("started", flush=True)
        _class_tables.discrete_class_information(X, y, 2, 32, out, levels, status, n_threads=2)
    """,
    # The class-wise neighbour search of ReliefF: 8000 queries against 40,000 samples x 50.
    "class_neighbours": """
        from fstools._ext import _neighbours
        n, d, q, k = 40_000, 50, 8000, 10
        features = np.ascontiguousarray(rng.normal(size=(d, n)))
        labels = (rng.random(n) < 0.5).astype(np.int32)
        rows = np.arange(q, dtype=np.intp)
        index = np.zeros((q, 2, k), dtype=np.intp)
        distance = np.zeros((q, 2, k))
        count = np.zeros((q, 2), dtype=np.intp)
        print("started", flush=True)
        _neighbours.class_neighbours(features, labels, 2, rows, k, _neighbours.METRIC_MANHATTAN,
                                     index, distance, count, n_threads=2)
    """,
    # The all-pairs search of the Laplacian score: 30,000 samples x 50.
    "all_class_neighbours": """
        from fstools._ext import _neighbours
        n, d, k = 30_000, 50, 5
        features = np.ascontiguousarray(rng.normal(size=(d, n)))
        labels = np.zeros(n, dtype=np.int32)
        index = np.zeros((n, 1, k), dtype=np.intp)
        distance = np.zeros((n, 1, k))
        count = np.zeros((n, 1), dtype=np.intp)
        print("started", flush=True)
        _neighbours.all_class_neighbours(features, labels, 1, k, _neighbours.METRIC_SQEUCLIDEAN,
                                         index, distance, count, n_threads=2)
    """,
    # The permutation null of I(X_j;C): 300 permutations of 100,000 samples x 400 features.
    "permuted_class_information": """
        from fstools._ext import _permutation
        m, p, b = 100_000, 400, 300
        codes = rng.integers(0, 8, size=(p, m)).astype(np.int8)
        levels = np.full(p, 8, dtype=np.int32)
        y = rng.integers(0, 2, size=m).astype(np.int32)
        permutations = np.empty((b, m), dtype=np.int32)
        permutations[:] = rng.permutation(m)
        print("started", flush=True)
        _permutation.permuted_class_information(codes, levels, y, 2, permutations, n_threads=2)
    """,
    # One greedy step of the information engine (mRMR / JMI / CMQFS): 20,000 candidates of
    # 1,000,000 samples (two rows of codes, the candidate row repeated).
    "pair_information": """
        from fstools._ext import _entropy
        m = 1_000_000
        codes = rng.integers(0, 8, size=(2, m)).astype(np.int8)
        levels = np.array([8, 8], dtype=np.int32)
        y = rng.integers(0, 2, size=m).astype(np.int32)
        candidates = np.zeros(20_000, dtype=np.intp)
        out = np.empty((candidates.shape[0], 4))
        print("started", flush=True)
        _entropy.pair_information_terms(codes, levels, y, 2, 1, candidates, out, n_threads=2)
    """,
    # The one read of a dense X (Fisher, F-test, chi2, Pearson): per-class moments of 20,000
    # features of 1,000,000 samples (one column).
    "column_moments": """
        from fstools._ext import _one_pass
        m, p = 1_000_000, 20_000
        X = as_strided(rng.normal(size=m), shape=(m, p), strides=(8, 0))
        y = (rng.random(m) < 0.5).astype(np.int32)
        print("started", flush=True)
        _one_pass.column_moments(X, y, 2, None, 2)
    """,
    # An MBPA pass over a long stream: 20,000 rows x 200, 500 passes in one kernel call;
    # the interrupted pass leaves the learner as it was.
    "online_pass": """
        from fstools.methods.passive_aggressive import OnlineLearner
        n, d = 20_000, 200
        X = rng.normal(size=(n, d))
        y = np.where(X[:, 0] + rng.normal(size=n) > 0, 1, -1).astype(np.int32)
        learner = OnlineLearner("mbpa", d, 10)
        before = learner.weights.copy()
        order = np.tile(np.arange(n, dtype=np.intp), 500)
        print("started", flush=True)
        try:
            learner.learn(X, y, order)
        except KeyboardInterrupt:
            assert np.array_equal(learner.weights, before), "the interrupted pass changed the learner"
            raise
    """,
    # Through the public API: ReliefF on 50,000 x 100.
    "relieff_select": """
        import fstools as fs
        X = rng.normal(size=(50_000, 100))
        y = (X[:, 0] + rng.normal(size=50_000) > 0).astype(int)
        print("started", flush=True)
        fs.FeatureSelector(method="relieff", k=3, n_jobs=2).fit(X, y)
    """,
}


def _interrupt(code, args=()):
    """Run ``code`` in a subprocess, SIGINT it DELAY s after it printed "started".

    Returns (return code, stderr, seconds from SIGINT to the end).  The subprocess restores
    Python's own SIGINT handler first: a shell that starts the test run in the background (no
    job control) makes its children ignore SIGINT, and Python keeps an ignored SIGINT ignored."""
    code = "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n" + code
    process = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, **subprocess_options(PYTHONFAULTHANDLER=""))
    try:
        line = process.stdout.readline()
        assert line.strip() == "started", f"no 'started': {line!r} {process.stderr.read()[-2000:]}"
        time.sleep(DELAY)
        assert process.poll() is None, f"ended before the interrupt: {process.stderr.read()[-2000:]}"
        process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        try:
            _, stderr = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("the process did not stop within 30 s of SIGINT")
        return process.returncode, stderr, time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


@pytest.mark.parametrize("case", sorted(CASES))
def test_ctrl_c_stops_a_long_kernel(case):
    code = _PRELUDE + textwrap.dedent(CASES[case]) + '\nprint("finished", flush=True)\n'
    returncode, stderr, elapsed = _interrupt(code)
    assert returncode != 0
    assert "KeyboardInterrupt" in stderr, stderr[-2000:]
    assert "finished" not in stderr
    assert elapsed < STOP_WITHIN, f"{case}: stopped {elapsed:.2f} s after SIGINT"


def test_cli_ctrl_c_exits_130_with_one_line(tmp_path):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 50_000
    frame = pd.DataFrame(rng.normal(size=(n, 40)).round(4), columns=[f"x{j}" for j in range(40)])
    frame["y"] = np.where(frame["x0"] + rng.normal(size=n) > 0, "a", "b")
    path = tmp_path / "large.csv"
    frame.to_csv(path, index=False)
    code = textwrap.dedent("""
        import sys
        from fstools import cli
        print("started", flush=True)
        sys.exit(cli.main(sys.argv[1:]))
    """)
    returncode, stderr, elapsed = _interrupt(code, ["select", "y ~ .", "--data", str(path),
                                                    "--method", "relieff", "-k", "3", "--n-jobs", "2"])
    assert returncode == 130
    assert stderr.strip().splitlines() == ["fstools: interrupted"], stderr[-2000:]
    assert elapsed < STOP_WITHIN

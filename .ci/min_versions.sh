#!/usr/bin/env bash
# CI stage: fstools at the floors of its dependencies.  Every runtime dependency is pinned
# to the '>=' version pyproject.toml declares (.ci/min_constraints.py writes the pins), in a
# fresh virtual environment, and a subset of the tests runs from outside the source tree.
# A floor that is too low (an API the code uses that the pinned release lacks) fails here.
#
#     .ci/min_versions.sh [WHEEL]
#
# WHEEL: an fstools wheel to test (.ci/run passes the one its stage 2 built).  Without it a
# wheel is built here.  Either way the wheel was built in pip's isolated build environment,
# i.e. against the newest NumPy 2.x, as a published wheel is.  Its kernels import and run on
# the NumPy 1.x floor (a NumPy 2 build targets older 1.x runtimes by default), and this
# stage is what shows it; so nothing is compiled against the old NumPy here.
#
# The 'dask' extra (dask, distributed) is left out of the test requirements: dask[dataframe]
# pulls in the newest pyarrow, which needs NumPy 2 at run time without saying so, and the
# dask tests are not in the subset.  The other test tools (pytest, pytest-xdist, hypothesis, networkx)
# are not pinned: they are not fstools' dependencies.
#
# The subset covers the layers that use pandas, patsy, statsmodels, scikit-learn (the
# transformer, ML-kNN and the streaming estimator with scikit-learn's estimator checks), scipy,
# joblib, threadpoolctl and matplotlib, the summary tables in text, HTML and LaTeX, the
# guarantees' use of scikit-learn (LassoCV, l1 LogisticRegressionCV, l1_min_c, ledoit_wolf, a
# forest's estimators_samples_, the forest grown tree by tree equal to scikit-learn's, SciPy's linprog),
# fetch's use of the real fetch_openml offline (its n_retries and
# delay, its errors turned into FetchError), and one vignette.  Left out besides the dask tests: the kernel files (stage 3 runs them) and
# test_dfs.py / test_fvg.py, which have one failure each at the floors that no floor explains
# (redundancy_rate of a DataFrame and of the same array differ in the last bit, the summation
# order following the memory layout pandas 2.1 returns; NumPy 1.x buffers a reduction over a
# strided view, which the tracemalloc bound of the no-copy test counts).
#
# Time on 2 cores shared with other jobs, Python 3.11, given the wheel: 50-80 s to create the
# environment and install (downloads included), 20-70 s of tests; 1.5-2.5 min in all (plus
# about 70 s when no wheel is given and one is built here).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT

python3 -m venv "$workdir/minenv"
python="$workdir/minenv/bin/python"
"$python" -m pip install --quiet --upgrade pip

if [ $# -ge 1 ]; then
    wheel=$1
else
    "$python" -m pip wheel --quiet --no-deps --wheel-dir "$workdir/dist" "$root"
    wheel=$(ls "$workdir"/dist/fstools-*.whl)
fi

python3 "$root/.ci/min_constraints.py" "$root/pyproject.toml" > "$workdir/constraints.txt"
python3 "$root/.ci/min_constraints.py" --test-requirements "$root/pyproject.toml" > "$workdir/test-requirements.txt"
"$python" -m pip install --quiet -c "$workdir/constraints.txt" "$wheel" -r "$workdir/test-requirements.txt"
"$python" -m pip check

# The pins took: every floored dependency is installed at exactly its floor.
"$python" - "$workdir/constraints.txt" <<'EOF'
import sys
from importlib.metadata import version

from packaging.version import Version

wrong = []
for line in open(sys.argv[1]):
    name, floor = line.strip().split("==")
    if Version(version(name)) != Version(floor):
        wrong.append(f"{name} {version(name)} (floor {floor})")
if wrong:
    sys.exit("not at the floor: " + ", ".join(wrong))
print("at the floors:", ", ".join(line.strip() for line in open(sys.argv[1])))
EOF

mkdir -p "$workdir/outside"
cp -r "$root/tests" "$root/vignettes" "$workdir/outside/"
cp "$root/pyproject.toml" "$workdir/outside/"   # pytest settings only; nothing is built from here
(cd "$workdir/outside" && "$python" -m pytest -q -p no:cacheprovider \
    tests/test_api.py tests/test_formula.py tests/test_compare.py tests/test_transformer.py \
    tests/test_stability.py tests/test_information.py tests/test_similarity.py tests/test_sparse.py \
    tests/test_bad_input.py tests/test_elc.py tests/test_mlknn.py tests/test_online.py \
    tests/test_discriminant_baselines.py tests/test_datasets.py tests/test_fetch.py tests/test_cmqfs.py tests/test_parallel.py \
    tests/test_knockoff_filter.py tests/test_derandomized_knockoffs.py tests/test_stability_selection.py \
    tests/test_boruta_forest.py \
    "tests/test_boruta.py::test_random_forest_confirms_informative_rejects_noise" \
    "tests/test_vignettes.py::test_vignette_runs[baselines.py]")

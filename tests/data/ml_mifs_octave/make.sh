#!/usr/bin/env bash
# Regenerates the ML-MIFS reference data of this folder with GNU Octave and the public MATLAB
# implementation of MIFS in the MLC toolbox (github.com/KKimura360/MLC_toolbox).  See README.md.
#
#   MLC_TOOLBOX=/path/to/MLC_toolbox tests/data/ml_mifs_octave/make.sh
#
# MLC_TOOLBOX: a clone (work tree) or a bare git directory of KKimura360/MLC_toolbox; the files are
# read at commit $COMMIT.  Needs octave (7.x used), git, and python3 with fstools importable.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
COMMIT=e7987792cc26a81028395a0761b65b2bc89364bd
: "${MLC_TOOLBOX:?set MLC_TOOLBOX to a clone or bare git directory of KKimura360/MLC_toolbox}"
if git --git-dir="$MLC_TOOLBOX" rev-parse --git-dir >/dev/null 2>&1; then GIT=(git --git-dir="$MLC_TOOLBOX")
else GIT=(git -C "$MLC_TOOLBOX"); fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/toolbox" "$WORK/shim" "$WORK/stub"
for f in function/FSDR/MIFS/MIFS_train.m function/FSDR/MIFS/SetMIFSParameter.m function/util/constructW.m \
         function/util/EuDist2.m function/util/Popmethod.m; do
  "${GIT[@]}" show "$COMMIT:$f" > "$WORK/toolbox/$(basename "$f")"
done

# Stand-ins on the Octave path while MIFS_train runs: rand() hands out the given start (W, V, B, the order
# in which MIFS_train draws them); Stub_train is the classifier stage MIFS_train calls after the selection.
cat > "$WORK/shim/rand.m" <<'OCT'
function M = rand(varargin)
  global MIFS_START
  M = MIFS_START{1};
  MIFS_START(1) = [];
  if ~isequal(size(M), [varargin{:}])
    error('rand stand-in: asked for %s, holding %s', mat2str([varargin{:}]), mat2str(size(M)));
  end
end
OCT
cat > "$WORK/stub/Stub_train.m" <<'OCT'
function [model, time] = Stub_train(X, Y, method)
  model = [];
  time = 0;
end
OCT

# 1. Inputs: X, Y, the parameters, and fstools' start (k-means of the label vectors for V and B, the ridge
#    solution for W), written by fstools' own code paths.
python3 - "$HERE" <<'PY'
import json, os, sys
import numpy as np
from sklearn.cluster import KMeans
from fstools.methods.multilabel import standardize_features
from fstools.methods.multilabel_baselines import _mifs_w_step

CASES = [
    dict(name="case1", seed=1, n=40, d=10, l=5, c=3, alpha=1.0, beta=1.0, gamma=1.0, p=5, step=1e-3, n_iter=300),
    dict(name="case2", seed=2, n=60, d=15, l=6, c=2, alpha=0.5, beta=0.1, gamma=0.1, p=4, step=2e-3, n_iter=200),
    dict(name="case3", seed=3, n=30, d=8, l=4, c=2, alpha=10.0, beta=0.01, gamma=0.5, p=3, step=2e-4, n_iter=400),
]
for case in CASES:
    out = os.path.join(sys.argv[1], case["name"])
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(case["seed"])
    n, d, l = case["n"], case["d"], case["l"]
    X = np.round(rng.normal(size=(n, d)) * rng.uniform(0.5, 5.0, d) + rng.normal(0.0, 3.0, d), 6)
    A = rng.normal(size=(3, l))
    score = ((X[:, :3] - X[:, :3].mean(0)) / X[:, :3].std(0)) @ A + 0.7 * rng.normal(size=(n, l))
    Y = (score > np.quantile(score, 0.55, axis=0)).astype(int)
    km = KMeans(n_clusters=case["c"], n_init=10, random_state=0).fit(Y)
    V0 = np.zeros((n, case["c"]))
    V0[np.arange(n), km.labels_] = 1.0
    B0 = np.asarray(km.cluster_centers_, dtype=float)
    Z, _ = standardize_features(X, "variance")
    W0 = _mifs_w_step(Z, V0, None, case["gamma"])
    np.savetxt(f"{out}/X.csv", X, delimiter=",", fmt="%.6f")
    np.savetxt(f"{out}/Y.csv", Y, delimiter=",", fmt="%d")
    for name, M in (("V0", V0), ("B0", B0), ("W0", W0)):
        np.savetxt(f"{out}/{name}.csv", M, delimiter=",", fmt="%.17g")
    with open(f"{out}/params.json", "w") as f:
        json.dump(case, f, indent=1)
        f.write("\n")
PY

# 2. Octave: the graph of the toolbox (constructW), MIFS_train verbatim from the given start, the objective
#    per iteration, and MIFS_train with the toolbox's default parameters.
run_octave() {   # octave's exit status kept; its warnings about the rand() stand-in left out of the log shown
  local status=0
  octave --no-gui --quiet --no-window-system --eval "addpath('$HERE'); $1" >"$WORK/log" 2>&1 || status=$?
  grep -v "shadows a built-in function\|^warning: called from\|^    mifs_driver at\|^$\|execution_exception" \
    "$WORK/log" || true
  return $status
}
for case in case1 case2 case3; do
  run_octave "mifs_driver('$HERE/$case', '$WORK/toolbox', '$WORK/shim', '$WORK/stub')"
done
run_octave "mifs_defaults('$HERE/case1', '$WORK/toolbox', '$WORK/stub')"

python3 - "$HERE" "$COMMIT" <<'PY'
import json, subprocess, sys
version = subprocess.run(["octave", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
with open(f"{sys.argv[1]}/provenance.json", "w") as f:
    json.dump({"octave": version, "repository": "KKimura360/MLC_toolbox", "commit": sys.argv[2],
               "files": ["function/FSDR/MIFS/MIFS_train.m", "function/FSDR/MIFS/SetMIFSParameter.m",
                         "function/util/constructW.m", "function/util/EuDist2.m", "function/util/Popmethod.m"]},
              f, indent=1)
    f.write("\n")
PY

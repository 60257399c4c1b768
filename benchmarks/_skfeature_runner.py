"""Worker that runs scikit-feature for ``bench_baselines.py`` in a separate interpreter.

scikit-feature (pip package ``skfeature-chappers``, import name ``skfeature``) is not a
dependency of fstools; it is installed only for the benchmark, usually in its own virtual
environment.  ``bench_baselines.py`` starts this file with that environment's interpreter
and talks to it over a pipe, one JSON object per line:

    -> {"cmd": "info"}                                   <- versions
    -> {"cmd": "load", "X": path, "codes": path, "y": path}   (.npy files)
    -> {"cmd": "run", "function": name, "data": "X"|"codes", "params": {...}}
    <- {"ok": true, "seconds": t, "selected": [...], "scores": [...] or null}
    -> {"cmd": "quit"}

``seconds`` is the ``time.perf_counter`` time of the scikit-feature call alone (no pipe, no
import, no data loading), so the caller can interleave its own timings with these.
Anything scikit-feature prints goes to stderr; stdout carries only the protocol.

This file must not import fstools (the scikit-feature environment need not have it).

Functions (``function``):

* ``lcsi_mifs``, ``lcsi_mrmr``, ``lcsi_jmi``: exactly the ``LCSI.lcsi`` call that the package's
  ``MIFS.mifs`` (with the given ``beta``), ``MRMR.mrmr`` and ``JMI.jmi`` make, but with
  ``mode="index"``.  In skfeature-chappers 1.2.1 those three wrappers call ``lcsi`` in its
  default ``mode="rank"``, which replaces the selected indices F by ``rankdata(-F) - 1``, and
  then return that array: with ``mode="index"`` they return ``[0, 1, ..., k-1]`` whatever was
  selected (``mode="rank"`` applies the conversion twice).  The selection and its cost are the
  package's; only the broken conversion of the output is skipped.  Note that this version of
  ``lcsi`` ignores ``function_name``: ``MRMR.mrmr`` runs with the fixed default ``beta = 0.8``
  (``gamma = 0``) and ``JMI.jmi`` with ``beta = 0.8``, ``gamma = 0.5`` -- not the mRMR and JMI
  criteria.
* ``lcsi_upstream_mrmr``, ``lcsi_upstream_jmi``: the selection rule of upstream scikit-feature's
  ``LCSI.lcsi`` (github.com/jundongl/scikit-feature), which sets ``beta = 1/|S|`` for MRMR and
  ``beta = gamma = 1/|S|`` for JMI at every step -- the switch skfeature-chappers dropped.  The
  loop below is that rule written out on the package's own estimators ``midd`` and ``cmidd``
  (the same estimator calls per candidate and step as the package's ``lcsi``).
* ``cmim``: ``CMIM.cmim(X, y, mode="index", n_selected_features=k)`` (its own loop; its
  ``mode="index"`` output is correct).
* ``fisher_score``: ``fisher_score(X, y, mode="index")`` (indices, best first; no scores).
* ``reliefF``: ``reliefF(X, y, mode="raw", k=...)`` (scores; the ranking is by decreasing score).
"""
import json
import os
import sys
import time

import numpy as np

_DATA = {}


def _upstream_lcsi(X, y, n_selected_features, rule):
    """Upstream scikit-feature's LCSI loop with its MRMR / JMI parameter schedule.

    J(f) = I(f;y) - beta * sum_{j in S} I(f_j;f) + gamma * sum_{j in S} I(f_j;f|y) with
    beta = 1/|S| (MRMR: gamma = 0; JMI: gamma = 1/|S|); the first pick is argmax I(f;y)
    (np.argmax: the lowest index among exact ties), then a strict ``>`` scan over the columns
    in order.  Returns the selected indices and J of each pick.
    """
    from skfeature.utility.entropy_estimators import cmidd, midd

    n_features = X.shape[1]
    relevance = np.array([midd(X[:, i], y) for i in range(n_features)])
    redundancy = np.zeros(n_features)            # sum_j I(f_j;f)
    conditional = np.zeros(n_features)           # sum_j I(f_j;f|y)
    first = int(np.argmax(relevance))
    selected, scores = [first], [float(relevance[first])]
    chosen = set(selected)
    f_select = X[:, first]
    while len(selected) < n_selected_features:
        beta = 1.0 / len(selected)
        gamma = beta if rule == "jmi" else 0.0
        best, best_index = -1e12, -1
        for i in range(n_features):
            if i in chosen:
                continue
            f = X[:, i]
            redundancy[i] += midd(f_select, f)
            conditional[i] += cmidd(f_select, f, y)
            value = relevance[i] - beta * redundancy[i] + gamma * conditional[i]
            if value > best:
                best, best_index = value, i
        selected.append(best_index)
        scores.append(float(best))
        chosen.add(best_index)
        f_select = X[:, best_index]
    return selected, scores


def _call(function, X, y, params):
    """Run one scikit-feature function; (selected indices, scores or None, J per pick or None)."""
    if function in ("lcsi_mifs", "lcsi_mrmr", "lcsi_jmi"):
        from skfeature.function.information_theoretical_based import LCSI
        # The arguments MIFS.mifs / MRMR.mrmr / JMI.jmi pass to lcsi (skfeature-chappers 1.2.1).
        extra = {"lcsi_mifs": {"beta": params.get("beta", 0.5), "gamma": 0},
                 "lcsi_mrmr": {"gamma": 0, "function_name": "MRMR"},
                 "lcsi_jmi": {"function_name": "JMI"}}[function]
        selected = LCSI.lcsi(X, y, mode="index", n_selected_features=params["n_selected_features"], **extra)
        return [int(j) for j in selected], None, None
    if function == "cmim":
        from skfeature.function.information_theoretical_based import CMIM
        selected = CMIM.cmim(X, y, mode="index", **params)
        return [int(j) for j in selected], None, None
    if function in ("lcsi_upstream_mrmr", "lcsi_upstream_jmi"):
        selected, j_values = _upstream_lcsi(X, y, params["n_selected_features"], function.rsplit("_", 1)[1])
        return selected, None, j_values
    if function == "fisher_score":
        from skfeature.function.similarity_based.fisher_score import fisher_score
        return [int(j) for j in fisher_score(X, y, mode="index", **params)], None, None
    if function == "reliefF":
        from skfeature.function.similarity_based.reliefF import reliefF
        scores = np.asarray(reliefF(X, y, mode="raw", **params), dtype=np.float64)
        return [int(j) for j in np.argsort(-scores, kind="stable")], scores.tolist(), None
    raise ValueError(f"unknown function {function!r}")


def _info():
    from importlib import metadata

    import scipy
    import sklearn
    try:
        version = metadata.version("skfeature-chappers")
    except metadata.PackageNotFoundError:
        version = "unknown (skfeature-chappers not found by importlib.metadata)"
    import skfeature
    return {"python": sys.version.split()[0], "executable": sys.executable, "numpy": np.__version__,
            "scipy": scipy.__version__, "scikit-learn": sklearn.__version__, "skfeature": version,
            "skfeature_path": os.path.dirname(skfeature.__file__)}


def _handle(request):
    command = request["cmd"]
    if command == "info":
        return {"ok": True, "info": _info()}
    if command == "load":
        _DATA["X"] = np.load(request["X"])
        _DATA["codes"] = np.load(request["codes"])
        _DATA["y"] = np.load(request["y"])
        return {"ok": True}
    if command == "run":
        X = _DATA[request.get("data", "X")]
        y = _DATA["y"]
        start = time.perf_counter()
        selected, scores, j_values = _call(request["function"], X, y, request.get("params", {}))
        seconds = time.perf_counter() - start
        return {"ok": True, "seconds": seconds, "selected": selected, "scores": scores, "J": j_values}
    raise ValueError(f"unknown command {command!r}")


def main():
    # Keep the protocol on the original stdout; everything else printed goes to stderr.
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("cmd") == "quit":
            break
        try:
            answer = _handle(request)
        except Exception as error:  # noqa: BLE001 - reported to the caller
            answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        protocol.write(json.dumps(answer) + "\n")
        protocol.flush()


if __name__ == "__main__":
    main()

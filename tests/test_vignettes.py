"""Run every vignette (``vignettes/*.py``) as a script, in quick mode, and check its outputs.

Each vignette runs in a subprocess with ``FSTOOLS_QUICK=1``, ``MPLBACKEND=Agg`` and
``FSTOOLS_VIGNETTE_OUTPUT`` pointing at a fresh temporary directory; it must exit with status 0.
Vignettes listed in ``EXPECTED_OUTPUTS`` must also have written those files (figures: non-empty
PNGs).  New vignettes are picked up by the glob automatically.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fstools as fs

ROOT = Path(__file__).resolve().parents[1]
VIGNETTES = sorted((ROOT / "vignettes").glob("*.py"))
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TIMEOUT = 600

EXPECTED_OUTPUTS = {
    "cmqfs.py": [
        "wine_cmqfs_scores.png",
        "iris_fvg.png",
        "wine_1nn_accuracy.png",
        "wine_cmqfs_summary.txt",
        "wine_cmqfs_scores.csv",
        "iris_table1_q.csv",
        "wine_1nn_accuracy.csv",
    ],
    "baselines.py": [
        "baselines_accuracy_wine_1nn.png",
        "baselines_accuracy_wine_svm.png",
        "baselines_accuracy_breast_cancer_1nn.png",
        "baselines_accuracy_breast_cancer_svm.png",
        "baselines_selected_wine.csv",
        "baselines_selected_breast_cancer.csv",
        "baselines_accuracy.csv",
        "baselines_average.csv",
        "baselines_wine_vs_paper.csv",
        "baselines_conclusion.txt",
    ],
}


def _run(vignette, output):
    env = dict(os.environ)
    env.update({
        "FSTOOLS_QUICK": "1",
        "FSTOOLS_VIGNETTE_OUTPUT": str(output),
        "MPLBACKEND": "Agg",
        # The fstools these tests import (installed, or built in place in the checkout);
        # never the bare source tree, whose kernels may not be compiled.
        "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(fs.__file__).resolve().parents[1]),
                                                    env.get("PYTHONPATH")])),
    })
    return subprocess.run([sys.executable, str(vignette)], cwd=output, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT)


def test_vignettes_found():
    assert VIGNETTES, f"no vignettes under {ROOT / 'vignettes'}"


@pytest.mark.parametrize("vignette", VIGNETTES, ids=[v.name for v in VIGNETTES])
def test_vignette_runs(vignette, tmp_path):
    output = tmp_path / "output"
    output.mkdir()
    done = _run(vignette, output)
    assert done.returncode == 0, (
        f"{vignette.name} exited with status {done.returncode}\n"
        f"--- stderr ---\n{done.stderr[-5000:]}\n--- stdout (end) ---\n{done.stdout[-2000:]}")
    for name in EXPECTED_OUTPUTS.get(vignette.name, []):
        path = output / name
        assert path.is_file(), f"{vignette.name} did not write {name}; it wrote {sorted(os.listdir(output))}"
        assert path.stat().st_size > 0, f"{vignette.name} wrote an empty {name}"
        if name.endswith(".png"):
            with open(path, "rb") as handle:
                assert handle.read(8) == PNG_SIGNATURE, f"{name} is not a PNG file"


def test_expected_outputs_name_existing_vignettes():
    names = {v.name for v in VIGNETTES}
    missing = sorted(set(EXPECTED_OUTPUTS) - names)
    assert not missing, f"EXPECTED_OUTPUTS lists vignettes that do not exist: {missing}"

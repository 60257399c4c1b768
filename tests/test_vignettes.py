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
# vignettes/_setup.py is the vignettes' shared setup, not a vignette.
VIGNETTES = sorted(path for path in (ROOT / "vignettes").glob("*.py") if not path.name.startswith("_"))
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TIMEOUT = 600

EXPECTED_OUTPUTS = {
    "regression_and_factors.py": [
        "regression_f_test_summary.txt",
        "regression_selected.csv",
        "mixed_mim_summary.txt",
        "regression_cv_r2.csv",
        "regression_cv_r2.png",
        "regression_conclusion.txt",
    ],
    "multilabel.py": [
        "multilabel_elc_summary.txt",
        "multilabel_elc_convergence.png",
        "multilabel_cv_results.csv",
        "multilabel_table2.csv",
        "multilabel_ttests.csv",
        "multilabel_metrics_vs_k.png",
        "multilabel_diagnostics.csv",
        "multilabel_redundancy_RF.png",
        "multilabel_label_correlation_CF.png",
        "multilabel_conclusion.txt",
    ],
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
    "dfs.py": [
        "dfs_digits_summary.txt",
        "dfs_digits_pixels.png",
        "dfs_digits_gamma_cv.csv",
        "dfs_accuracy_digits.png",
        "dfs_redundancy_digits.png",
        "dfs_accuracy_wide.png",
        "dfs_redundancy_wide.png",
        "dfs_wide_coverage.csv",
        "dfs_convergence_digits.png",
        "dfs_convergence_wide.png",
        "dfs_convergence.csv",
        "dfs_accuracy.csv",
        "dfs_conclusion.txt",
    ],
    "online_imbalance.py": [
        "online_mbpa_summary.txt",
        "online_mbpa_pixels.png",
        "online_stream_batches.csv",
        "online_evaluation.csv",
        "online_evaluation_holdout.csv",
        "online_gmean_specificity.png",
        "online_gmean_specificity_holdout.png",
        "online_conclusion.txt",
    ],
    "reproduce_cmqfs_paper.py": [
        "cmqfs_paper_datasets.csv",
        "cmqfs_paper_accuracy.csv",
        "cmqfs_paper_table4_1nn.txt",
        "cmqfs_paper_table4_1nn.tex",
        "cmqfs_paper_table5_svm.txt",
        "cmqfs_paper_table5_svm.tex",
        "cmqfs_paper_table6_time.csv",
        "cmqfs_paper_table7_ttest_1nn.csv",
        "cmqfs_paper_table8_ttest_svm.csv",
        "cmqfs_paper_friedman_1nn.txt",
        "cmqfs_paper_selection_bias.csv",
        "cmqfs_paper_stability_wine.csv",
        "cmqfs_paper_wine_vs_paper.csv",
        "cmqfs_paper_reading.txt",
        "cmqfs_paper_accuracy_1nn.png",
        "cmqfs_paper_accuracy_svm.png",
        "cmqfs_paper_cd_1nn.png",
        "cmqfs_paper_stability_wine.png",
    ],
    "guarantees.py": [
        "guarantees_example_knockoff.txt",
        "guarantees_example_knockoff.png",
        "guarantees_example_stability.txt",
        "guarantees_example_stability.png",
        "guarantees_example_boruta.txt",
        "guarantees_example_boruta.png",
        "guarantees_replicates.csv",
        "guarantees_knockoffs.csv",
        "guarantees_stability.csv",
        "guarantees_boruta.csv",
        "guarantees_knockoff_fdr_power.png",
        "guarantees_stability_pfer.png",
        "guarantees_boruta.png",
        "guarantees_conclusion.txt",
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


@pytest.mark.vignette
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

"""What every vignette does first: find fstools, read the run mode, prepare the output folder.

Imported by the vignettes as ``from _setup import ...`` (Python puts the folder of the script
being run on ``sys.path``; in a notebook, start it from this folder).

* ``fs``: fstools, from the installed package or, if it is not installed, from the checkout
  this folder lives in;
* ``QUICK``: ``FSTOOLS_QUICK=1`` (the test suite's quick mode: fewer repeats, smaller grids);
* ``PAPER_DATA``: whether the ``reproduce_*`` vignettes use the papers' data sets found in the
  cache (``fs.datasets.available``): in full mode always; in quick mode only with
  ``FSTOOLS_PAPER_DATA=1`` (quick settings; the tests use it on small files they make);
* ``OUTPUT``: ``$FSTOOLS_VIGNETTE_OUTPUT`` (default ``vignettes/output/``), created;
* ``started``: when the vignette started (``time.perf_counter()``), for its closing line.
"""
import os
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

HERE = Path(__file__).resolve().parent
try:
    import fstools as fs
except ImportError:  # not installed: use the checkout this vignette lives in
    sys.path.insert(0, str(HERE.parent))
    import fstools as fs

__all__ = ["fs", "QUICK", "PAPER_DATA", "OUTPUT", "started", "start_vignette", "save_text", "save_figure"]

started = time.perf_counter()
QUICK = os.environ.get("FSTOOLS_QUICK") == "1"
PAPER_DATA = not QUICK or os.environ.get("FSTOOLS_PAPER_DATA") == "1"
OUTPUT = Path(os.environ.get("FSTOOLS_VIGNETTE_OUTPUT", HERE / "output"))


def start_vignette(display_width=120):
    """Create the output folder, set pandas' display options and print the run's header line."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    pd.set_option("display.width", display_width)
    pd.set_option("display.max_columns", 20)
    print(f"fstools {fs.__version__}; quick mode: {QUICK}; output: {OUTPUT}")


def save_text(name, text):
    """Write ``text`` to ``OUTPUT / name`` (with a final newline)."""
    (OUTPUT / name).write_text(text if text.endswith("\n") else text + "\n")


def save_figure(fig, name, dpi=120):
    """Save ``fig`` to ``OUTPUT / name`` and close it."""
    fig.savefig(OUTPUT / name, dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    print(f"saved {name}")

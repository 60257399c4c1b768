"""Sphinx configuration of the fstools documentation.

Build (from the repository's root)::

    pip install ".[docs]" && sphinx-build -W docs docs/_build/html

The gallery runs the vignettes in quick mode (``FSTOOLS_QUICK=1``: fewer repeats, smaller
grids); ``FSTOOLS_DOCS_FULL=1 sphinx-build ...`` runs them in full, as in the papers.
"""
import os
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "sphinxext"))

import fstools  # noqa: E402
from sphinx_gallery.sorting import ExplicitOrder  # noqa: E402
from vignette_gallery import write_gallery_sources  # noqa: E402

# ---- run mode of the vignettes ------------------------------------------------------------
FULL = os.environ.get("FSTOOLS_DOCS_FULL") == "1"
os.environ["FSTOOLS_QUICK"] = "0" if FULL else "1"
os.environ.setdefault("FSTOOLS_VIGNETTE_OUTPUT", str(DOCS / "_build" / "vignette-output"))
os.environ["MPLBACKEND"] = "Agg"

# ---- project --------------------------------------------------------------------------------
project = "fstools"
author = "the fstools developers"
copyright = "the fstools developers"  # noqa: A001 - Sphinx's name for the setting
release = fstools.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",     # MathJax 3 served with the site: math renders offline
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
    "numpydoc_attributes",        # docs/sphinxext: :attr: links to a class's Attributes entries
    "dotted_names",               # docs/sphinxext: long names break at their dots, not mid-word
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_vignettes", "sphinxext", "_intersphinx", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.json"]
templates_path = ["_templates"]
default_role = "code"
# Every cross-reference must resolve (with -W, an unresolved one fails the build).
nitpicky = True
# No exceptions: a reference to an object with no page on this site is written as a literal.
nitpick_ignore = []

# ---- links to other projects' documentation -------------------------------------------------
# The build never goes online: each inventory is a file of docs/_intersphinx/ (how each was
# obtained, and `python docs/_intersphinx/refresh.py` to download them anew, are in its
# README.md); the links point at the public sites.
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", "_intersphinx/python-objects.inv"),
    "numpy": ("https://numpy.org/doc/stable/", "_intersphinx/numpy-objects.inv"),
    "scipy": ("https://docs.scipy.org/doc/scipy/", "_intersphinx/scipy-objects.inv"),
    "pandas": ("https://pandas.pydata.org/docs/", "_intersphinx/pandas-objects.inv"),
    "sklearn": ("https://scikit-learn.org/stable/", "_intersphinx/sklearn-objects.inv"),
    "statsmodels": ("https://www.statsmodels.org/stable/", "_intersphinx/statsmodels-objects.inv"),
    "matplotlib": ("https://matplotlib.org/stable/", "_intersphinx/matplotlib-objects.inv"),
    "polars": ("https://docs.pola.rs/api/python/stable/", "_intersphinx/polars-objects.inv"),
}

# ---- API pages ------------------------------------------------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": True}
autodoc_typehints = "none"
# A class page documents the methods itself (the class template's :members:); numpydoc does not
# list them again.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# Docstrings write types in prose ("int or None", "DataFrame"): do not make a link of each word.
numpydoc_xref_param_type = False
# numpydoc's docstring checks, limited to GL08 (a public object without a docstring): with -W a
# stricter check (summary line, section order, every parameter listed) would fail the site on
# style; those belong to the review of the docstrings, not to the build.
numpydoc_validation_checks = {"GL08"}
numpydoc_validation_exclude = {r"\.__\w+__$", r"\._\w+$"}


# Methods inherited from scikit-learn keep their pages (transform, get_support, get_params, ...),
# except those whose docstrings refer to labels of scikit-learn's own site: metadata routing
# (get_metadata_routing, set_*_request), set_output and ClassifierMixin.score.
SKLEARN_SKIPPED = ("get_metadata_routing", "set_output", "score")


def _skip_scikit_learn_members(app, what, name, obj, skip, options):
    if (getattr(obj, "__module__", None) or "").split(".")[0] != "sklearn":
        return None
    if name in SKLEARN_SKIPPED or (name.startswith("set_") and name.endswith("_request")):
        return True
    return None


# ---- the vignettes as a gallery ---------------------------------------------------------------
GALLERY_HEADER = """\
Vignettes
=========

The vignettes of ``vignettes/`` run here as scripts, with their printed tables and their
figures. {mode}
Each can be run on its own: ``python vignettes/cmqfs.py`` (add ``FSTOOLS_QUICK=1`` for the
quick mode); its tables and figures go to ``$FSTOOLS_VIGNETTE_OUTPUT`` (default
``vignettes/output/``).
"""
QUICK_NOTE = ("This build ran them in **quick mode** (fewer repeats and smaller grids, so the "
              "numbers are rougher than the papers'); ``FSTOOLS_DOCS_FULL=1 sphinx-build ...`` "
              "runs them in full.")
FULL_NOTE = "This build ran them in **full mode**, with the papers' repeats and grids."
write_gallery_sources(ROOT / "vignettes", DOCS / "_vignettes",
                      GALLERY_HEADER.format(mode=FULL_NOTE if FULL else QUICK_NOTE))

VIGNETTE_ORDER = [
    "cmqfs.py",                    # introduction: one method from the data to its summary and plots
    "regression_and_factors.py",   # continuous responses and factors
    "dfs.py",                      # an embedded method, d >> n
    "multilabel.py",               # several responses
    "online_imbalance.py",         # a stream
    "inference.py",                # p-values and honest comparisons
    "guarantees.py",               # knockoffs, stability selection, Boruta
    "baselines.py",                # CMQFS against its baselines
    "reproduce_cmqfs_paper.py",
    "reproduce_dfs_paper.py",
    "reproduce_elc_paper.py",
    "reproduce_online_paper.py",
    "*",
]

sphinx_gallery_conf = {
    "examples_dirs": "_vignettes",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",          # run every vignette ...
    "ignore_pattern": r"(__init__|_setup|_simulation)\.py$",   # ... but not their shared modules
    # The vignettes in the order a reader learns: a walk-through of one method first (CMQFS), the
    # other data and method families, inference and guarantees, then the papers' comparisons.
    # A vignette not listed comes last.
    "within_subsection_order": ExplicitOrder(VIGNETTE_ORDER),
    "image_scrapers": ("vignette_gallery.saved_png_scraper", "matplotlib"),
    "reset_modules": ("matplotlib", "vignette_gallery.reset_vignette"),
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "abort_on_example_error": True,
    "plot_gallery": "True",
    "parallel": True,                        # the vignettes in one process per core (joblib)
}

# sphinx-gallery's pages of execution times (sg_execution_times) load jQuery, DataTables and their
# style sheets from CDNs to make the table sortable: without a network the page would hang on
# them, and .ci/check_docs_offline.py refuses remote scripts.  The raw HTML block that loads them
# is dropped when the page is read; the table stays, in the theme's style, unsorted.
_GALLERY_REMOTE_SCRIPTS = re.compile(r"^  \.\. raw:: html\n(?:\n|    .*\n)*", re.M)


def _drop_gallery_remote_scripts(app, docname, source):
    if docname.rsplit("/", 1)[-1] == "sg_execution_times":
        source[0] = _GALLERY_REMOTE_SCRIPTS.sub("", source[0])


# ---- HTML -------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"fstools {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": [], "install": [], "quickstart": [], "coming_from_r": []}
html_static_path = ["_static"]
html_css_files = ["fstools.css"]


# ---- checks: every public name has an API page, every method a family page ------------------
def _autosummary_names(text):
    """The names listed in the autosummary tables of ``text``, qualified by the current module."""
    names, module, in_table = set(), "fstools", False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith((".. currentmodule::", ".. module::", ".. py:module::")):
            module = stripped.split("::")[1].strip()
        elif stripped.startswith(".. autosummary::"):
            in_table = True
        elif in_table and line.startswith("   ") and stripped and not stripped.startswith(":"):
            names.add(f"{module}.{stripped}")
        elif in_table and stripped and not line.startswith("   "):
            in_table = False
    return names


def _check_coverage():
    documented = _autosummary_names((DOCS / "api.rst").read_text(encoding="utf-8"))
    public = {f"fstools.{name}" for name in fstools.__all__
              if name not in ("__version__", "datasets", "metrics")}
    public |= {f"fstools.datasets.{name}" for name in fstools.datasets.__all__}
    public |= {f"{fstools.metrics.__name__}.{name}" for name in fstools.metrics.__all__}
    missing = sorted(public - documented)
    if missing:
        raise RuntimeError(f"docs/api.rst does not list these public names: {missing}")
    family_pages = " ".join(path.read_text(encoding="utf-8") for path in (DOCS / "methods").glob("*.rst"))
    undocumented = [name for name in fstools.list_methods()["name"] if f"``{name}``" not in family_pages]
    if undocumented:
        raise RuntimeError(f"no page of docs/methods/ describes these methods: {undocumented}")


_check_coverage()


def setup(app):
    app.connect("autodoc-skip-member", _skip_scikit_learn_members)
    app.connect("source-read", _drop_gallery_remote_scripts)
    # sphinx-mathjax-offline (0.0.2) declares no parallel safety, which would warn (and fail -W)
    # under ``sphinx-build -j N``; it only sets mathjax_path and copies files when the build ends.
    mathjax_offline = app.extensions.get("sphinx-mathjax-offline")
    if mathjax_offline is not None:
        mathjax_offline.parallel_read_safe = mathjax_offline.parallel_write_safe = True

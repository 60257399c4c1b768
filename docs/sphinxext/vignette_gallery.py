"""The vignettes as a sphinx-gallery example gallery.

The vignettes (``vignettes/*.py``) are scripts in Jupytext's percent format: cells start with
``# %%``, and text cells (``# %% [markdown]``) are Markdown.  sphinx-gallery reads text blocks as
reStructuredText, so :func:`write_gallery_sources` writes a copy of each vignette in which the
Markdown of every text cell is converted to reStructuredText by pandoc (through pypandoc), the
first text cell becoming the docstring that holds the example's title.  The code cells are
copied unchanged, so the gallery runs exactly the code of the vignettes.

The vignettes save their figures (``save_figure`` in ``vignettes/_setup.py`` saves a PNG into
``$FSTOOLS_VIGNETTE_OUTPUT`` and closes the figure), so sphinx-gallery's matplotlib scraper sees
no open figure.  :func:`saved_png_scraper` shows instead, under each code block, the PNG files
that the block wrote, in the order it wrote them.  :func:`reset_vignette` runs before each
vignette: it forgets the vignettes' shared ``_setup`` module (so that each vignette reads its
settings and starts its clock afresh, as it does when run as a script) and notes which files
the output folder already holds.

sphinx-gallery finds the last two by their qualified names (``vignette_gallery.<name>``), which
keeps Sphinx's configuration picklable.
"""
import os
import re
import shutil
import sys
from pathlib import Path

import pypandoc
from PIL import Image
from sphinx_gallery.scrapers import figure_rst

CELL = re.compile(r"^# %%(?P<rest>.*)$")
JUPYTEXT_HEADER = re.compile(r"\A# ---\n(?:#.*\n)*?# ---\n")

# Files of the output folder already shown (or present before the current vignette), with
# their modification times, so that a figure a later block saves again is shown again.
_seen = {}


def _cells(source):
    """Split a percent-format script into ``(kind, lines)`` cells, ``kind`` 'markdown' or 'code'."""
    source = JUPYTEXT_HEADER.sub("", source)
    cells, kind, lines = [], "code", []
    for line in source.splitlines():
        match = CELL.match(line)
        if match:
            cells.append((kind, lines))
            kind = "markdown" if "[markdown]" in match.group("rest") else "code"
            lines = []
        else:
            lines.append(line)
    cells.append((kind, lines))
    return [(kind, lines) for kind, lines in cells if any(line.strip() for line in lines)]


def _markdown_to_rst(lines):
    """The reStructuredText of a Markdown cell given as comment lines (``# text``)."""
    markdown = "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#") for line in lines)
    return pypandoc.convert_text(markdown, "rst", format="markdown", extra_args=["--wrap=none"]).strip()


def convert_vignette(source):
    """Return the sphinx-gallery form of one vignette's source (a percent-format script).

    Parameters
    ----------
    source : str
        The vignette's text.

    Returns
    -------
    str
        A script whose docstring is the first text cell (the title and introduction) and
        whose other text cells are ``# %%`` blocks of reStructuredText comments.
    """
    cells = _cells(source)
    if not cells or cells[0][0] != "markdown":
        raise ValueError("a vignette must start with a Markdown cell holding its title")
    header = _markdown_to_rst(cells[0][1])
    if "'''" in header:
        raise ValueError("the first text cell of a vignette may not contain '''")
    parts = [f"r'''\n{header}\n'''\n"]
    for kind, lines in cells[1:]:
        if kind == "markdown":
            rst = _markdown_to_rst(lines)
            parts.append("# %%\n" + "\n".join(f"# {line}".rstrip() for line in rst.splitlines()) + "\n")
        else:
            parts.append("# %%\n" + "\n".join(lines).strip("\n") + "\n")
    return "\n".join(parts)


def write_gallery_sources(vignettes, target, header):
    """Write the gallery's sources: every vignette converted, their shared setup and the header.

    Parameters
    ----------
    vignettes : pathlib.Path
        The folder of the vignettes; files starting with ``_`` are helpers, copied as they are.
    target : pathlib.Path
        The folder sphinx-gallery reads (``examples_dirs``); emptied first.
    header : str
        The gallery's front text (reStructuredText with a title), written to ``README.txt``.
    """
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for path in sorted(vignettes.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if not path.name.startswith("_"):
            text = convert_vignette(text)
        (target / path.name).write_text(text, encoding="utf-8")
    (target / "README.txt").write_text(header, encoding="utf-8")


def _output_folder():
    return Path(os.environ["FSTOOLS_VIGNETTE_OUTPUT"])


def _new_pngs():
    """PNG files of the output folder written since the last call, oldest first."""
    found = []
    for path in _output_folder().glob("*.png"):
        mtime = path.stat().st_mtime_ns
        if _seen.get(path) != mtime:
            _seen[path] = mtime
            found.append((mtime, path.name, path))
    return [path for _, _, path in sorted(found)]


def reset_vignette(gallery_conf, fname, when=None):
    """Before each vignette: forget the shared ``_setup`` module and the files already there."""
    sys.modules.pop("_setup", None)
    _output_folder().mkdir(parents=True, exist_ok=True)
    _new_pngs()


def _description(path):
    """The ``Description`` a PNG file keeps (``save_figure`` of ``vignettes/_setup.py`` writes the
    figure's title there), or ``""``."""
    with Image.open(path) as image:
        return getattr(image, "text", {}).get("Description", "")


def saved_png_scraper(block, block_vars, gallery_conf, **kwargs):
    """sphinx-gallery image scraper: the PNG files a code block saved into the output folder.

    Each image is shown on its own, with its ``Description`` (the figure's title, written by
    ``save_figure``) as its alt text, else sphinx-gallery's default, the page's name
    (``figure_rst`` gives all the images of one call the same alt text).
    """
    rst = []
    for path, image_path in zip(_new_pngs(), block_vars["image_path_iterator"]):
        shutil.copyfile(path, image_path)
        rst.append(figure_rst([image_path], gallery_conf["src_dir"], _description(path)))
    return "".join(rst)

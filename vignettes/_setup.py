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
* ``started``: when the vignette started (``time.perf_counter()``), for its closing line;
* ``wrap`` / ``say``: text wrapped (printed) at ``WIDTH`` characters, the width of a printed
  output box on the documentation site; the lines of a table are left as they are;
* ``tabulate``: a data frame's text with its columns split into blocks ``WIDTH`` wide;
* ``save_figure``: a figure saved as a PNG whose metadata describe it (its title), and closed.

Warnings print as ``Category: message``, without the path of the file that raised them.
"""
import os
import re
import sys
import textwrap
import time
import warnings
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

__all__ = ["fs", "QUICK", "PAPER_DATA", "OUTPUT", "WIDTH", "started", "start_vignette", "save_text", "save_figure",
           "wrap", "say", "tabulate"]

started = time.perf_counter()
QUICK = os.environ.get("FSTOOLS_QUICK") == "1"
PAPER_DATA = not QUICK or os.environ.get("FSTOOLS_PAPER_DATA") == "1"
OUTPUT = Path(os.environ.get("FSTOOLS_VIGNETTE_OUTPUT", HERE / "output"))
# The width of the printed text: what a printed output box of the documentation site shows
# without scrolling.  Prose is wrapped at it (``wrap``, ``say``); wider tables scroll in their box.
WIDTH = 100
# "Label:   value" (the first field of a summary line) and a table's run of spaces between columns.
_LABEL = re.compile(r"^(\s*[\w.,'()/ -]{1,24}:\s+)(?=\S)")
_COLUMNS = re.compile(r"\S {2,}\S")


def _shown_path(path):
    """``path`` as the vignette prints it, never a path of the machine that runs it: relative to
    this folder when it lies in the checkout this folder belongs to, else the variable naming it."""
    path = Path(path).resolve()
    if not path.is_relative_to(HERE.parent):
        return "$FSTOOLS_VIGNETTE_OUTPUT"
    return Path(os.path.relpath(path, HERE)).as_posix()


def wrap(text, width=WIDTH):
    """``text`` with each line longer than ``width`` wrapped, the lines of a table left as they are.

    A line is a table's if, after an optional leading ``Label:`` field, it still has a run of two
    or more spaces between words; the continuation lines of a wrapped line are indented to its
    value (after ``Label:``) or by two spaces more than the line.
    """
    lines = []
    for line in str(text).splitlines():
        label = _LABEL.match(line)
        body = line[label.end():] if label else line.lstrip()
        if len(line) <= width or _COLUMNS.search(body):
            lines.append(line)
            continue
        first = label.group(1) if label else line[: len(line) - len(body)]
        indent = " " * len(first) if label else first + "  "
        lines.extend(textwrap.wrap(body, width, initial_indent=first, subsequent_indent=indent,
                                   break_long_words=False, break_on_hyphens=False))
    return "\n".join(lines)


def say(*parts, sep=" "):
    """``print`` of the text ``parts`` (joined by ``sep``), wrapped by ``wrap``; the user's home
    folder in it (the data cache's paths) is written ``~``, as the site shows no machine's paths."""
    text = sep.join(str(part) for part in parts)
    home = str(Path.home())
    if len(home) > 1:
        text = text.replace(home + os.sep, "~" + os.sep)
    print(wrap(text))


def tabulate(table, width=WIDTH, by_first_level=False, **to_string):
    """``table.to_string(**to_string)``, a data frame's columns split into blocks ``width`` wide.

    With ``by_first_level``, a frame with two levels of columns (``paper``, ``this_run``,
    ``difference``, ...) is printed as one table per first-level key, each under its name.
    """
    if not isinstance(table, pd.DataFrame):
        return table.to_string(**to_string)
    if by_first_level and table.columns.nlevels > 1:
        return "\n".join(f"{key}:\n{tabulate(table[key], width, **to_string)}"
                         for key in table.columns.unique(0))
    return table.to_string(line_width=width, **to_string)


def _format_warning(message, category, filename, lineno, line=None):
    """A warning as the vignettes print it: its class and message, wrapped, without the path of
    the file that raised it (a path of the machine that ran the vignette)."""
    return wrap(f"{category.__name__}: {message}") + "\n"


warnings.formatwarning = _format_warning


def start_vignette(display_width=WIDTH):
    """Create the output folder, set pandas' display options and print the run's header line."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    pd.set_option("display.width", display_width)
    pd.set_option("display.max_columns", 20)
    print(f"fstools {fs.__version__}; quick mode: {QUICK}; output: {_shown_path(OUTPUT)}")


def save_text(name, text):
    """Write ``text`` to ``OUTPUT / name`` (with a final newline)."""
    (OUTPUT / name).write_text(text if text.endswith("\n") else text + "\n")


def figure_description(fig):
    """What ``fig`` shows, in words: its title (``suptitle``), else its panels' titles; the text
    that the PNG file keeps as its ``Title`` and ``Description`` (an image's alt text)."""
    suptitle = getattr(fig, "_suptitle", None)   # Figure.get_suptitle is matplotlib >= 3.8
    title = suptitle.get_text() if suptitle is not None else ""
    if not title:
        title = "; ".join(text for text in (axis.get_title() for axis in fig.axes) if text)
    return " ".join(title.replace("$", "").split())


def save_figure(fig, name, dpi=120):
    """Save ``fig`` to ``OUTPUT / name`` (with ``figure_description`` in the PNG's metadata) and close it."""
    description = figure_description(fig)
    metadata = {"Title": description, "Description": description} if description and name.endswith(".png") else None
    fig.savefig(OUTPUT / name, dpi=dpi, bbox_inches="tight", metadata=metadata)
    plt.close(fig)
    print(f"saved {name}")

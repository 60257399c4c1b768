"""Line breaks at the dots and underscores of long dotted names, in the sidebar and page titles.

The API pages are titled by their full name (``fstools.evaluation.metrics.residual_label_correlation``),
longer than the primary sidebar is wide and, at some widths, than the page's ``<h1>``.  A name
has no break opportunity of its own, so the theme's ``overflow-wrap: break-word`` broke the
sidebar entries mid-word ("redundancy_r / ate") and the title was cut at the edge of the page.

This extension adds ``<wbr>`` (an optional line break, invisible when the line does not break
and not copied with the text) after each ``.`` and ``_`` of the text of an HTML element that is
a dotted Python name, in the sidebar's navigation (pydata-sphinx-theme's
``generate_toctree_html``) and in the page's first ``<h1>``.  Any other text is left as it is;
the page source, the search index and the ``<title>`` keep the names unbroken.
"""
import functools
import re

# The whole text of an element: a dotted name of at least two parts (``fstools.select``).
DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
TEXT = re.compile(r">([^<>]+)<")
BREAK_AFTER = re.compile(r"(?<=[._])(?=[A-Za-z0-9])")
FIRST_H1 = re.compile(r"<h1\b[^>]*>.*?</h1>", re.S)


def add_breaks(html):
    """``html`` with ``<wbr>`` after the dots and underscores of each text that is a dotted name."""
    def text(match):
        words = match.group(1)
        if not DOTTED_NAME.fullmatch(words.strip()):
            return match.group(0)
        return ">" + BREAK_AFTER.sub("<wbr>", words) + "<"
    return TEXT.sub(text, html)


def _with_breaks(function):
    @functools.wraps(function)
    def wrapper(kind, *args, **kwargs):
        html = function(kind, *args, **kwargs)
        return add_breaks(html) if kind == "sidebar" and isinstance(html, str) else html
    return wrapper


def break_dotted_names(app, pagename, templatename, context, doctree):
    if "generate_toctree_html" in context:
        context["generate_toctree_html"] = _with_breaks(context["generate_toctree_html"])
    body = context.get("body")
    if body:
        context["body"] = FIRST_H1.sub(lambda match: add_breaks(match.group(0)), body, count=1)


def setup(app):
    # After pydata-sphinx-theme's own handler (priority 500), which puts generate_toctree_html in
    # the context.
    app.connect("html-page-context", break_dotted_names, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

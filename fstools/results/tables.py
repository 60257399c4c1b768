"""Summary tables: one object, printed as text, HTML (notebooks) or LaTeX.

A :class:`Summary` is a title, a list of (label, value) header lines, a table
(pandas DataFrame) and footnotes, like statsmodels' ``Summary``.
"""
import html
import re

import numpy as np
import pandas as pd

from fstools.core.messages import format_count, noun_for  # the one rule of counts in words

__all__ = ["Summary", "format_number", "format_count", "noun_for", "significance_stars", "numeric_columns",
           "SIGNIFICANCE_COLUMN", "significance_legend", "text_as_html"]


def format_number(value, digits=4):
    """Numbers for tables with ``digits`` significant digits; NaN as 'NA' (as R prints it)."""
    if value is None:
        return "NA"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    value = float(value)
    if np.isnan(value):
        return "NA"
    return f"{value:.{digits}g}"


def format_p_value(value):
    """p-values as R prints them: '<2e-16' below machine precision."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "NA"
    if value < 2.2e-16:
        return "<2e-16"
    return f"{value:.3g}" if value >= 1e-4 else f"{value:.2e}"


def significance_stars(p_value):
    """R's significance codes: *** < 0.001 < ** < 0.01 < * < 0.05 < . < 0.1."""
    if p_value is None or not np.isfinite(p_value):
        return ""
    for threshold, stars in ((0.001, "***"), (0.01, "**"), (0.05, "*"), (0.1, ".")):
        if p_value < threshold:
            return stars
    return ""


SIGNIFICANCE_LEGEND = "Signif. codes:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1"


def significance_legend(column="signif.", on="p.adj"):
    """The legend line of the significance-code column: which column it is and which p-values it codes."""
    return f"{column} codes{f' (on {on})' if on else ''}:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1"


#: The header of the significance-code column of the summaries.
SIGNIFICANCE_COLUMN = "signif."

_NUMBER = re.compile(r"^[<>]?\s*[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?%?$|^NA$|^[-+]?inf$", re.IGNORECASE)


def _looks_numeric(cell):
    """A cell of a numeric column: numbers, 'NA', '<2e-16', 'mean +- sd', 'df1, df2', '3/100'."""
    text = str(cell).strip()
    if not text:
        return True
    parts = re.split(r"\s*(?:\+-|±|,|/)\s*", text)
    return all(_NUMBER.match(part) for part in parts if part)


def numeric_columns(table):
    """Columns of a formatted (string) table whose every cell is a number (right-aligned in HTML and LaTeX)."""
    out = []
    for column in table.columns:
        cells = [str(v) for v in table[column]]
        if any(c.strip() for c in cells) and all(_looks_numeric(c) for c in cells):
            out.append(column)
    return out


def text_as_html(text):
    """Printed text as HTML showing the same lines: escaped, in a ``<pre>`` block with the summaries'
    colours (what a notebook shows for a result whose ``repr`` is that text)."""
    style = ("font-family: SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace; font-size: 12px; "
             "color: #222; background: transparent; margin: 0.5em 0; white-space: pre;")
    return f"<pre style=\"{style}\">{html.escape(text)}</pre>"


#: Inline styles of the HTML summaries: the same look in Jupyter and in a plain browser.
_HTML_STYLE = {
    "div": "font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; font-size: 13px; color: #222; "
           "margin: 0.5em 0;",
    "table": "border-collapse: collapse; border-top: 2px solid #444; border-bottom: 2px solid #444; "
             "margin: 0; background: transparent;",
    "caption": "margin: 0 0 6px 0; color: #222;",
    "title": "font-weight: bold; font-size: 14px; margin-bottom: 4px;",
    "header": "margin: 1px 0; font-size: 12px; color: #333;",
    "th": "border: none; border-bottom: 1px solid #444; padding: 3px 10px; font-weight: bold; "
          "background: transparent; white-space: nowrap;",
    "td": "border: none; padding: 2px 10px; background: transparent; white-space: nowrap;",
    "tr": "background: transparent;",
    "note": "margin: 2px 0; font-size: 12px; color: #444;",
}


class Summary:
    """A printable summary.

    Parameters
    ----------
    title : str
    header : list of (str, str)
        Label/value lines shown above the table.
    table : pandas.DataFrame
        Already formatted as strings (see :func:`format_number`).
    notes : list of str
        Footnotes shown under the table.
    highlight : pandas.DataFrame of bool, optional
        Cells to emphasise (same shape as ``table``): bold in HTML and LaTeX, followed by
        ``highlight_marker`` in text (e.g. the best method in each row).
    highlight_marker : str
        Appended to highlighted cells in text, default ``" *"``.
    frame : pandas.DataFrame, optional
        The numbers behind the table, returned by :meth:`summary_frame`.
    highlight_note : str, optional
        What a highlighted cell means (e.g. ``"best (highest mean) in the row"``): the first
        footnote, starting with how each format marks it (``*`` in text, bold in HTML and LaTeX).

    ``+-`` in cells is shown as ``±`` in HTML and LaTeX; numeric columns are right-aligned there.
    """

    def __init__(self, title, header, table, notes=(), highlight=None, highlight_marker=" *", frame=None,
                 highlight_note=None):
        self.title = title
        self.header = list(header)
        self.table = table
        self.notes = list(notes)
        self.highlight = None if highlight is None else pd.DataFrame(highlight).astype(bool)
        if self.highlight is not None and self.highlight.shape != table.shape:
            raise ValueError(f"highlight: must have the table's shape {table.shape}; got {self.highlight.shape}")
        self.highlight_marker = highlight_marker
        self.frame = frame
        self.highlight_note = highlight_note

    def _notes(self, marker):
        """The footnotes, the highlight's meaning first, told with ``marker`` ('*', 'bold')."""
        if self.highlight_note is None:
            return list(self.notes)
        return [f"{marker}: {self.highlight_note}"] + list(self.notes)

    def _marked(self, wrap, table=None):
        """``table`` (default the table) as strings, ``wrap(text)`` applied to the highlighted cells."""
        shown = (self.table if table is None else table).astype(str)
        if self.highlight is None:
            return shown
        values = shown.to_numpy(dtype=object).copy()
        mask = self.highlight.to_numpy()
        values[mask] = [wrap(v) for v in values[mask]]
        return pd.DataFrame(values, columns=shown.columns)

    def as_text(self):
        width = max((len(label) for label, _ in self.header), default=0)
        lines = [self.title, "=" * len(self.title)]
        lines += [f"{label + ':':<{width + 1}} {value}" for label, value in self.header]
        lines.append("")
        table = self.table if self.highlight is None else self._marked(lambda v: v + self.highlight_marker)
        lines.append(table.to_string(index=False))
        notes = self._notes(self.highlight_marker.strip())
        if notes:
            lines.append("---")
            lines += notes
        return "\n".join(lines)

    def as_html(self):
        """Self-contained HTML with inline styles (the same in Jupyter and in a browser): a figure whose
        caption is the title and header lines, the table with numbers right-aligned, ``±`` and bold
        highlighted cells, then the footnotes."""
        style = _HTML_STYLE
        numeric = set(numeric_columns(self.table))
        shown = self.table.astype(str).map(lambda v: html.escape(v).replace("+-", "±"))
        marked = self._marked(lambda v: f"<b>{v}</b>", table=shown)
        columns = list(self.table.columns)

        def align(column):
            return "right" if column in numeric else "left"

        head = "".join(f"<th style=\"{style['th']} text-align: {align(c)};\">{html.escape(str(c))}</th>"
                       for c in columns)
        rows = []
        for values in marked.itertuples(index=False):
            cells = "".join(f"<td style=\"{style['td']} text-align: {align(c)};\">{v}</td>"
                            for c, v in zip(columns, values))
            rows.append(f"<tr style=\"{style['tr']}\">{cells}</tr>")
        header = "".join(f"<div style=\"{style['header']}\"><b>{html.escape(label)}:</b> "
                         f"{html.escape(str(value)).replace('+-', '±')}</div>" for label, value in self.header)
        # A figure with its caption (the title and the header lines) above the table: the caption is as
        # wide as the page, not as the table.
        caption = (f"<figcaption style=\"{style['caption']}\"><div style=\"{style['title']}\">"
                   f"{html.escape(self.title)}</div>{header}</figcaption>")
        notes = "".join(f"<p style=\"{style['note']}\">{html.escape(note).replace('+-', '±')}</p>"
                        for note in self._notes("bold"))
        return (f"<figure style=\"{style['div']}\">{caption}<table style=\"{style['table']}\">"
                f"<thead><tr style=\"{style['tr']}\">{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
                f"{notes}</figure>")

    def as_latex(self):
        """A LaTeX tabular with booktabs rules (needs ``\\usepackage{booktabs}``), numeric columns
        right-aligned; the title, header lines and footnotes as comments around it."""
        def escape(text):
            for char, replacement in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"),
                                      ("$", r"\$"), ("#", r"\#"), ("_", r"\_"), ("{", r"\{"),
                                      ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\^{}"),
                                      ("<", r"$<$"), (">", r"$>$")):
                text = text.replace(char, replacement)
            return text.replace("+-", r"$\pm$").replace("±", r"$\pm$")

        columns = list(self.table.columns)
        numeric = set(numeric_columns(self.table))
        lines = [f"% {escape(self.title)}"]
        lines += [f"% {escape(label)}: {escape(str(value))}" for label, value in self.header]
        lines.append(r"\begin{tabular}{" + "".join("r" if c in numeric else "l" for c in columns) + "}")
        lines.append(r"\toprule")
        lines.append(" & ".join(escape(str(c)) for c in columns) + r" \\")
        lines.append(r"\midrule")
        mask = None if self.highlight is None else self.highlight.to_numpy()
        for i, row in enumerate(self.table.itertuples(index=False)):
            cells = [escape(str(v)) for v in row]
            if mask is not None:
                cells = [r"\textbf{" + cell + "}" if mask[i, j] else cell for j, cell in enumerate(cells)]
            lines.append(" & ".join(cells) + r" \\")
        lines.append(r"\bottomrule")
        lines.append(r"\end{tabular}")
        lines += [f"% {escape(note)}" for note in self._notes("bold")]
        return "\n".join(lines)

    def __str__(self):
        return self.as_text()

    def __repr__(self):
        return self.as_text()

    def _repr_html_(self):
        return self.as_html()

    def to_frame(self):
        """The table as a DataFrame (strings)."""
        return self.table.copy()

    def summary_frame(self):
        """The numbers behind the table as a DataFrame (the strings of :meth:`to_frame` when none were given)."""
        return self.frame.copy() if self.frame is not None else self.to_frame()

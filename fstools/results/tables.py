"""Summary tables: one object, printed as text, HTML (notebooks) or LaTeX.

A :class:`Summary` is a title, a list of (label, value) header lines, a table
(pandas DataFrame) and footnotes, like statsmodels' ``Summary``.
"""
import html

import numpy as np
import pandas as pd

__all__ = ["Summary", "format_number", "significance_stars"]


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
    """

    def __init__(self, title, header, table, notes=(), highlight=None, highlight_marker=" *", frame=None):
        self.title = title
        self.header = list(header)
        self.table = table
        self.notes = list(notes)
        self.highlight = None if highlight is None else pd.DataFrame(highlight).astype(bool)
        if self.highlight is not None and self.highlight.shape != table.shape:
            raise ValueError(f"highlight: must have the table's shape {table.shape}; got {self.highlight.shape}")
        self.highlight_marker = highlight_marker
        self.frame = frame

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
        if self.notes:
            lines.append("---")
            lines += self.notes
        return "\n".join(lines)

    def as_html(self):
        header = "".join(f"<tr><th style='text-align:left'>{html.escape(label)}</th>"
                         f"<td style='text-align:left'>{html.escape(str(value))}</td></tr>"
                         for label, value in self.header)
        notes = "".join(f"<p style='margin:0'><small>{html.escape(note)}</small></p>" for note in self.notes)
        if self.highlight is None:
            body = self.table.to_html(index=False, escape=True)
        else:
            shown = self.table.astype(str).map(html.escape)
            marked = self._marked(lambda v: f"<b>{v}</b>", table=shown)
            marked.columns = [html.escape(str(c)) for c in marked.columns]
            body = marked.to_html(index=False, escape=False)
        return (f"<div><h4>{html.escape(self.title)}</h4><table>{header}</table>"
                f"{body}{notes}</div>")

    def as_latex(self):
        """A LaTeX tabular (booktabs) with the header as a caption-like block."""
        def escape(text):
            for char, replacement in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"),
                                      ("$", r"\$"), ("#", r"\#"), ("_", r"\_"), ("{", r"\{"),
                                      ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\^{}"),
                                      ("<", r"$<$"), (">", r"$>$")):
                text = text.replace(char, replacement)
            return text

        columns = list(self.table.columns)
        lines = [f"% {escape(self.title)}"]
        lines += [f"% {escape(label)}: {escape(str(value))}" for label, value in self.header]
        lines.append(r"\begin{tabular}{" + "l" * len(columns) + "}")
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

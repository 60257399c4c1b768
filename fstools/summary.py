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
    """

    def __init__(self, title, header, table, notes=()):
        self.title = title
        self.header = list(header)
        self.table = table
        self.notes = list(notes)

    def as_text(self):
        width = max((len(label) for label, _ in self.header), default=0)
        lines = [self.title, "=" * len(self.title)]
        lines += [f"{label + ':':<{width + 1}} {value}" for label, value in self.header]
        lines.append("")
        lines.append(self.table.to_string(index=False))
        if self.notes:
            lines.append("---")
            lines += self.notes
        return "\n".join(lines)

    def as_html(self):
        header = "".join(f"<tr><th style='text-align:left'>{html.escape(label)}</th>"
                         f"<td style='text-align:left'>{html.escape(str(value))}</td></tr>"
                         for label, value in self.header)
        notes = "".join(f"<p style='margin:0'><small>{html.escape(note)}</small></p>" for note in self.notes)
        return (f"<div><h4>{html.escape(self.title)}</h4><table>{header}</table>"
                f"{self.table.to_html(index=False, escape=True)}{notes}</div>")

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
        for row in self.table.itertuples(index=False):
            lines.append(" & ".join(escape(str(v)) for v in row) + r" \\")
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

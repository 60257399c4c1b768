"""Column names in formulas: a column's label, the formula name that refers to it, the code that reads it.

A formula refers to a column by a string: its label when that is a string, else the name of
:func:`label_name`.  Generated patsy code reads a column bare (``x``) or as ``Q("my col")``
(:func:`column_code`), and a formula is written back R's way, with backticks
(:func:`format_formula`).
"""
from __future__ import annotations

import ast
import keyword
import re
import unicodedata
from collections import Counter
from collections.abc import Hashable

import pandas as pd

from fstools.model.formula.namespace import KNOWN_NAMES, QUOTED_KEY_PREFIX

__all__ = ["is_bare_name", "is_code_name", "column_code", "patsy_key", "BACKTICK_ESCAPES",
           "backtick_name", "label_name", "ColumnNames", "quoted_name", "quoted_name_in_code", "format_formula",
           "string_list", "R_DOTTED_FUNCTIONS", "r_dotted_call", "r_function_names"]

#: Names that a column may not take as a bare name in generated formula code,
#: because patsy (or numpy, which formulas may call as ``np``) uses them;
#: ``Intercept`` is the name patsy gives to the constant column.
_RESERVED_NAMES = frozenset({"C", "I", "Q", "np", "Intercept"})


def is_bare_name(name: str) -> bool:
    """Whether ``name`` can appear unquoted in patsy formula code.

    It must be a Python identifier, not a keyword, not one of the names
    patsy formulas use (``C``, ``I``, ``Q``, ``np``, ``Intercept``), hold no
    ``__`` and be in Unicode normal form NFKC (Python would read it as another
    name); other names are quoted, ``Q("name")``.
    """
    return (name.isidentifier() and not keyword.iskeyword(name) and name not in _RESERVED_NAMES
            and "__" not in name and unicodedata.normalize("NFKC", name) == name)


def _string_literal(text: str) -> str:
    """Return a double-quoted Python string literal whose value is ``text``.

    Unlike :func:`repr` the quote character is always ``"``, so that the same
    column always yields the same patsy code (patsy compares terms by code).
    """
    parts = ['"']
    for character in text:
        if character == "\\":
            parts.append("\\\\")
        elif character == '"':
            parts.append('\\"')
        elif character.isprintable():
            parts.append(character)
        else:
            parts.append(character.encode("unicode_escape").decode("ascii"))
    parts.append('"')
    return "".join(parts)


def is_code_name(name: str) -> bool:
    """Whether generated code reads the column ``name`` bare (else ``Q("name")``).

    A bare name (:func:`is_bare_name`) that is also a function or constant formula code may
    use (``log``, ``scale``, ``pi``, ...) is quoted too: the column is then handed to patsy under
    a key that cannot shadow the function (see :func:`patsy_frame`).
    """
    return is_bare_name(name) and name not in KNOWN_NAMES


def column_code(name: str) -> str:
    """patsy code reading the column ``name``: the bare name or ``Q("name")``."""
    if is_code_name(name):
        return name
    return f"Q({_string_literal(name)})"


def patsy_key(name: str) -> str:
    """The key of the column ``name`` in the data handed to patsy (see
    :data:`fstools.model.formula.namespace.QUOTED_KEY_PREFIX`)."""
    return name if is_code_name(name) else QUOTED_KEY_PREFIX + name


#: R's backslash escapes inside backticks (as in its strings): ``\n`` is a newline, and so on;
#: any other escaped character stands for itself (a backslash before a backtick is a backtick,
#: two backslashes are one).
BACKTICK_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b",
                    "f": "\f", "v": "\v"}
_BACKTICK_WRITTEN = {value: "\\" + key for key, value in BACKTICK_ESCAPES.items()}


def backtick_name(name: str) -> str:
    """R's backtick quoting of ``name``.

    As in R, a backtick or backslash inside the name is escaped with a backslash, and a
    newline, tab, ... is written as its escape (backslash n, backslash t); other characters
    are kept.
    """
    parts = []
    for character in name:
        if character in "\\`":
            parts.append("\\" + character)
        else:
            parts.append(_BACKTICK_WRITTEN.get(character, character))
    return "`" + "".join(parts) + "`"


def label_name(label) -> str:
    """The name by which a formula refers to the column label ``label``.

    A string is its own name.  A tuple (a column of a MultiIndex) is named by its parts joined
    with dots, R's naming of nested columns (``('g', 'y')`` is ``g.y``; trailing empty parts,
    which pandas gives the flat columns of a MultiIndex, are left out: ``('id', '')`` is
    ``id``).  Any other label is named by ``str(label)`` (the integer label ``5`` is ``5``).
    """
    if isinstance(label, str):
        return label
    if isinstance(label, tuple):
        parts = [part if isinstance(part, str) else str(part) for part in label]
        while len(parts) > 1 and parts[-1] == "":
            parts.pop()
        return ".".join(parts)
    return str(label)


def _tuple_text(label: tuple) -> str:
    """``('g', 'y')``: how Python prints a tuple label (also accepted as its name)."""
    return str(label)


def _all_strings(columns: pd.Index) -> bool:
    """Whether every label of a flat Index is a string (cheap for a string-dtype Index)."""
    if isinstance(columns, pd.MultiIndex):
        return False
    if pd.api.types.is_string_dtype(columns.dtype) and not pd.api.types.is_object_dtype(columns.dtype):
        return True
    return columns.inferred_type in ("string", "empty")


class ColumnNames:
    """The formula names of a DataFrame's columns, and the labels they stand for.

    String labels are their own names.  A column label of another type gets the name of
    :func:`label_name`; when two labels would get the same name, a tuple label is named as
    Python prints it (``('a.b', 'c')``), and labels that would still share a name are refused.
    A tuple label is also found by its printed form (`` `('g', 'y')` ``).
    """

    def __init__(self, columns: pd.Index):
        self.columns = columns
        self.identity = _all_strings(columns)
        self.aliases = {}
        if self.identity:
            self.names = columns
            self.label_of = {}
            return
        names = [label_name(label) for label in columns]
        counts = Counter(names)
        if len(counts) != len(names):
            names = [_tuple_text(label) if isinstance(label, tuple) and counts[name] > 1 else name
                     for label, name in zip(columns, names)]
            counts = Counter(names)
            if len(counts) != len(names):
                shared = next(name for name, count in counts.items() if count > 1)
                labels = [label for label, name in zip(columns, names) if name == shared]
                raise ValueError(
                    f"data has the column labels {', '.join(repr(label) for label in labels)}, which "
                    f"a formula would all call {shared!r}; rename them so that their names differ")
        self.names = pd.Index(names, dtype=object)
        self.label_of = {name: label for name, label in zip(names, columns) if name != label}
        for label, name in zip(columns, names):
            if isinstance(label, tuple) and _tuple_text(label) != name:
                self.aliases.setdefault(_tuple_text(label), name)

    def resolve(self, name: str) -> str:
        """The formula name a name written in a formula stands for (itself if none)."""
        if name in self.aliases and name not in self.names:
            return self.aliases[name]
        return name

    def frame(self, data: pd.DataFrame) -> pd.DataFrame:
        """``data`` with the formula names as its columns (no copy of the values)."""
        if self.identity:
            return data
        return data.set_axis(self.names, axis=1)


def quoted_name_in_code(code: str) -> str | None:
    """``name`` if ``code`` is exactly ``Q("name")`` (any quotes), else None."""
    try:
        expression = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return None
    return quoted_name(expression)


def quoted_name(expression: ast.expr) -> str | None:
    """``name`` if the AST node is a call ``Q("name")``, else None."""
    if not isinstance(expression, ast.Call):
        return None
    if not (isinstance(expression.func, ast.Name) and expression.func.id == "Q"):
        return None
    if len(expression.args) != 1 or expression.keywords:
        return None
    argument = expression.args[0]
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument.value
    return None


def format_formula(response_names: list[str], term_names: list[str]) -> str:
    """Write a formula from response and term names, R style.

    Names that cannot be written bare are put in R backticks: on the left
    those that are not identifiers, on the right also keywords and the names
    ``C``, ``I``, ``Q``, ``np`` and ``Intercept``.  Every name is taken to be a column name,
    so the result parses back with :func:`parse_formula` to the same terms when
    the terms are plain columns.  A term that is not a column (``np.log(c)``)
    would be backticked as if it were one.

    Parameters
    ----------
    response_names : list
        The response columns, joined with ``' + '``: names, or column labels of other
        types (written by their :func:`label_name`); none gives a one-sided formula.
    term_names : list of str
        The predictor columns.  With none, the right side is ``1`` (R's
        intercept-only model).

    Returns
    -------
    str

    Examples
    --------
    >>> format_formula(["class"], ["alcohol", "my col"])
    'class ~ alcohol + `my col`'
    """
    if isinstance(response_names, str):
        raise TypeError(f"response_names must be a list of names, not the string {response_names!r}")
    response_names = [label_name(name) for name in string_list("response_names", response_names,
                                                                   labels=True)]
    term_names = string_list("term_names", term_names)
    left_parts = []
    for name in response_names:
        if name.isidentifier():
            left_parts.append(name)
        else:
            left_parts.append(backtick_name(name))
    right_parts = []
    for name in term_names:
        if is_bare_name(name):
            right_parts.append(name)
        else:
            right_parts.append(backtick_name(name))
    if not right_parts:
        right_parts = ["1"]
    if not left_parts:
        return "~ " + " + ".join(right_parts)  # one-sided, as R writes a formula without a response
    return " + ".join(left_parts) + " ~ " + " + ".join(right_parts)


def string_list(argument: str, values, labels: bool = False) -> list[str]:
    """The argument as a list of strings (TypeError otherwise; with ``labels``, any hashable
    column labels are taken too)."""
    if isinstance(values, str):
        raise TypeError(f"{argument} must be a list of names, not the string {values!r}")
    try:
        values = list(values)
    except TypeError:
        raise TypeError(
            f"{argument} must be a list of names, got {type(values).__name__}"
        ) from None
    for value in values:
        if labels and value is not None and isinstance(value, Hashable):
            continue
        if not isinstance(value, str):
            raise TypeError(
                f"{argument} must hold strings, got {value!r} of type {type(value).__name__}"
            )
    return values


#: R's function names with a dot that formulas may call, and the names the formula's Python code
#: calls them by (R's conversions; ``as.factor`` is ``factor``).
R_DOTTED_FUNCTIONS = {"as.factor": "as_factor", "as.numeric": "as_numeric", "as.integer": "as_integer",
                      "as.character": "as_character"}

_R_DOTTED_CALL = re.compile(r"as\.(factor|numeric|integer|character)(?=\s*\()")
_PYTHON_DOTTED_CALL = re.compile(r"(?<![\w.])as_(factor|numeric|integer|character)(?=\s*\()")


def r_dotted_call(text: str) -> str | None:
    """The R function with a dot (:data:`R_DOTTED_FUNCTIONS`) called at the start of ``text``
    (``'as.factor'`` for ``'as.factor(n) + x'``), or None."""
    match = _R_DOTTED_CALL.match(text)
    return match.group(0) if match else None


def r_function_names(text: str) -> str:
    """Code or a design column name with R's dotted function names (``as_factor(n)`` ->
    ``as.factor(n)``), as the formula wrote them."""
    return _PYTHON_DOTTED_CALL.sub(r"as.\1", text)

"""R-style model formulas on pandas DataFrames.

This module turns a formula such as ``"class ~ ."`` or ``"y ~ a + C(b) + np.log(c)"``
plus a DataFrame into the arrays the selection methods need, and maps design
columns back to the terms the user wrote.  patsy is the engine; it is used only
here, so that it can be replaced (for example by formulaic) without touching the
rest of the package.

What fstools adds on top of patsy
---------------------------------
* R's ``.`` on the right-hand side: all columns that are not responses, in
  DataFrame column order (``y ~ . - a - b`` removes terms from it).
* R's backtick names: `` `my col` `` is read as the column ``"my col"``.
* One or more responses on the left (``y1 + y2 ~ .``), read as raw columns
  (patsy would one-hot encode a string response).
* Term names that are the variable names (``colour``, not ``colour[T.red]`` nor
  ``C(colour)``), and for each design column the term it belongs to.
* R's ``na.omit``: incomplete rows are dropped and counted, or refused.
* Errors that quote the formula and name the problem (:class:`FormulaError`).

The intercept is always built (so that every categorical main effect gets the
same treatment coding) and then removed from the design matrix: feature
selection scores predictors, never the constant.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import difflib
from collections import Counter
from collections.abc import Hashable
import itertools
import keyword
import re
import unicodedata
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
import patsy
import patsy.builtins
from patsy.parse_formula import parse_formula as _patsy_parse_formula
from scipy import sparse

from fstools.model import rfunctions
from fstools.model.exceptions import FormulaError
from fstools.model.columns import read_number_columns, warn_identifier_columns
from fstools.methods.registry import NA_ACTIONS
from fstools.core.arrays import is_integer_design_of_columns, nonfinite_and_constant_columns, rows_with_nan
from fstools.model.validation import check_integer_columns
from fstools.model.safe_eval import (NUMPY_FUNCTIONS, SAFE_FUNCTIONS, SAFE_MODE_HINT, bare_dotted_columns,
                                     check_mode, column_set, expression_problem, source_problem)

__all__ = ["ModelFrame", "parse_formula", "matrix_model_frame", "with_matrix_response", "format_formula", "term_frame",
           "label_name",
           "missing_predictor_notes"]

#: The level a missing value of a categorical predictor becomes under ``na_action='level'``
#: (as pandas and R print a missing value).
MISSING_LEVEL = "<NA>"

#: Names that a column may not take as a bare name in generated formula code,
#: because patsy (or numpy, which formulas may call as ``np``) uses them;
#: ``Intercept`` is the name patsy gives to the constant column.
_RESERVED_NAMES = frozenset({"C", "I", "Q", "np", "Intercept"})


#: The key under which a column whose code is ``Q("name")`` is handed to patsy: not an
#: identifier, so that a column can never shadow a function that formula code calls
#: (a column named ``Q``, ``C``, ``I``, ``np`` or ``log`` next to ``C(x)`` or ``log(x)``).
_QUOTED_KEY_PREFIX = "`"


def _quote(name):
    """patsy's ``Q("name")``: the column ``name``, found under its key in the data given to patsy."""
    namespace = patsy.EvalEnvironment.capture(1).namespace
    for key in (_QUOTED_KEY_PREFIX + name, name):
        try:
            return namespace[key]
        except KeyError:
            pass
    raise NameError(f"no data or variable named {name!r} found")


def _stateful(class_):
    """A class of :mod:`fstools.model.rfunctions` as a patsy stateful transform."""
    return patsy.stateful_transform(class_)


#: R's functions, with R's semantics, in both formula modes: the elementwise ones (``log``,
#: ``exp``, ``sqrt``, ...), ``scale``/``center``/``standardize`` (sd with n - 1; they replace
#: patsy's, which divide by n), ``poly`` (R's orthogonal polynomials) and ``factor`` (= ``C``).
_R_NAMESPACE = dict(rfunctions.ELEMENTWISE)
_R_NAMESPACE.update({
    "scale": _stateful(rfunctions.RScale), "center": _stateful(rfunctions.RCenter),
    "standardize": _stateful(rfunctions.RStandardize), "poly": _stateful(rfunctions.RPoly),
    "factor": patsy.builtins.C, "TRUE": True, "FALSE": False, "pi": np.pi, "Q": _quote,
})

#: Names that formula code may use besides the data columns: numpy as ``np``, R's functions
#: and patsy's own builtins (``C``, ``I``, ``Q``, ``Treatment``, ...), which patsy adds to
#: every evaluation environment itself.
_EVAL_NAMESPACE = {"np": np, **_R_NAMESPACE}
_KNOWN_NAMES = frozenset(_EVAL_NAMESPACE) | frozenset(patsy.builtins.__all__)
_PYTHON_BUILTINS = frozenset(dir(builtins))


class _SafeNumpy:
    """``np`` in the safe mode: only the allowed numeric functions, as attributes."""

    __slots__ = tuple(sorted(NUMPY_FUNCTIONS))

    def __init__(self):
        for name in NUMPY_FUNCTIONS:
            object.__setattr__(self, name, getattr(np, name))


class _Refused:
    """What a name that safe formulas may not use evaluates to (calling it raises)."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        raise NameError(f"{self._name!r} is not available in the safe formula mode")


def _safe_namespace() -> dict:
    """The evaluation namespace of the safe mode.

    Every Python builtin name and every patsy builtin that is not allowed is shadowed, and
    ``np`` holds only the allowed functions: a second line of defence behind the checks of
    :mod:`fstools.model.safe_eval`, which refuse such code before anything is evaluated.
    """
    namespace = {name: _Refused(name) for name in _PYTHON_BUILTINS}
    for name in patsy.builtins.__all__:
        if name not in SAFE_FUNCTIONS:
            namespace[name] = _Refused(name)
    namespace.update(_R_NAMESPACE)
    namespace["np"] = _SafeNumpy()
    return namespace

#: Characters that may stand next to R's ``.`` when it is used as a term.
_TERM_OPERATORS_BEFORE = frozenset("+-*/:(^|%")
_TERM_OPERATORS_AFTER = frozenset("+-*/:)^|%")

_OPENING_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_CLOSING_BRACKETS = frozenset(_OPENING_BRACKETS.values())

_ALLOWED_KINDS = "numeric, boolean, categorical/string"


@dataclass(frozen=True)
class ModelFrame:
    """A formula evaluated on a DataFrame: responses, design matrix and term map.

    Attributes
    ----------
    formula : str
        The formula as the user gave it.
    response_names : list
        The response columns' labels in ``data``, in formula order: the column names, or
        for a column label that is not a string (an integer, a MultiIndex tuple) the label
        itself, so that ``data[response_names]`` reads them.
    response : pandas.DataFrame
        A copy of the raw response column(s) for the kept rows, original dtypes.
    X : numpy.ndarray or scipy.sparse.csc_matrix
        The design matrix without the intercept column: float64, C-contiguous, or
        Fortran-contiguous when read straight from the DataFrame's columns (``y ~ .`` over
        numeric columns: pandas' own layout, not copied into another),
        shape ``(len(row_index), len(column_names))``; CSC only when asked for
        with ``parse_formula(..., sparse_design=True)`` on pandas sparse columns.
    column_names : list of str
        patsy's design column names, e.g. ``['alcohol', 'colour[T.red]']``.
    terms : list of str
        One name per predictor term, in design order.  A term made of one column
        (``x``, ``Q("x")``, `` `x` ``, ``C(x, ...)``) is named by the column;
        any other term keeps patsy's name (``np.log(c)``, ``a:b``).
    column_terms : list of str
        For each design column, the name of the term it belongs to.  The three lists are
        read, never changed in place: where every term is one column they are one list
        object (no copies of a wide design's names), passed on as it is to the methods.
    row_index : pandas.Index
        Index labels of the rows kept.
    n_dropped : int
        Number of rows dropped for missing values.
    design_info : patsy.DesignInfo or None
        patsy's description of the design (with the intercept term), used by
        :func:`term_frame` to evaluate terms on new data.  None when every term
        is a plain numeric column: then the columns are read directly, without
        patsy's per-column evaluation (which dominates on wide data).
    patsy_terms : tuple
        patsy's Term objects of the predictor terms, in the order of ``terms``.
    formula_mode : {'safe', 'code'}
        The mode the formula was read in; :func:`term_frame` evaluates terms on new
        data in the same mode.
    column_labels : dict
        For each formula name of a column whose label is not that string (see
        :func:`label_name`), the label: ``{'g.y': ('g', 'y'), '5': 5}``; empty when every
        label is a string.  :func:`term_frame` reads these columns of new data by label.
    factor_responses : tuple
        The responses written as ``C(y)`` or ``factor(y)`` on the left-hand side: classes
        whatever their values (R's ``factor``), by their labels in the data.
    notes : tuple of str
        Conversions made on the way (text columns of numbers read as numbers), for the summary.
    number_columns : tuple
        The columns (formula names) of text numbers or ``Decimal`` values read as numbers
        (:func:`fstools.model.columns.read_number_columns`); :func:`term_frame` reads them so
        on new data too.
    column_checks : tuple of two boolean arrays, or None
        ``(nonfinite, constant)`` of the columns of ``X`` when they were found on the way (one
        read of the values of a wide numeric frame, :func:`fstools.core.arrays.nonfinite_and_constant_columns`,
        which also finds the rows with missing values); None when they were not.

    Notes
    -----
    A ModelFrame pickles and deep-copies although patsy's objects do not: the
    state keeps the kept rows of the data it was parsed from (a shallow copy taken
    at parse time) instead of ``design_info`` and ``patsy_terms``, and loading
    parses the formula on those rows again, which rebuilds patsy's objects with
    the same fitted transforms (``center``, ``scale``, ...) as the original.
    """

    formula: str
    response_names: list[str]
    response: pd.DataFrame
    X: np.ndarray
    column_names: list[str]
    terms: list[str]
    column_terms: list[str]
    row_index: pd.Index
    n_dropped: int
    design_info: object
    patsy_terms: tuple = ()
    formula_mode: str = "safe"
    source: pd.DataFrame | None = None
    na_action: str = "drop"
    column_labels: dict = None
    factor_responses: tuple = ()
    notes: tuple = ()
    na_values: tuple | None = None
    column_checks: tuple | None = None
    number_columns: tuple = ()

    def __post_init__(self):
        if self.column_labels is None:
            object.__setattr__(self, "column_labels", {})

    def label(self, name: str):
        """The label in the data of the column with the formula name ``name``."""
        return self.column_labels.get(name, name)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["design_info"] = None
        state["patsy_terms"] = ()
        if self.source is not None:
            state["source"] = self.source.loc[self.row_index]
        return state

    def __setstate__(self, state):
        if state["source"] is not None:
            fresh = parse_formula(state["formula"], state["source"], na_action=state["na_action"],
                                  formula_mode=state.get("formula_mode", "safe"), na_values=state.get("na_values"),
                                  require_response=bool(state["response_names"]))
            state = dict(state, design_info=fresh.design_info, patsy_terms=fresh.patsy_terms)
        self.__dict__.update(state)  # a frozen dataclass: set through __dict__, as dataclasses do


# ---------------------------------------------------------------------------
# Names and quoting
# ---------------------------------------------------------------------------


def _formula_error(formula: str, problem: str) -> FormulaError:
    """Build a FormulaError whose message quotes the formula first."""
    return FormulaError(f"formula {formula!r}: {problem}")


def _is_bare_name(name: str) -> bool:
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


def _is_code_name(name: str) -> bool:
    """Whether generated code reads the column ``name`` bare (else ``Q("name")``).

    A bare name (:func:`_is_bare_name`) that is also a function or constant formula code may
    use (``log``, ``scale``, ``pi``, ...) is quoted too: the column is then handed to patsy under
    a key that cannot shadow the function (see :func:`_patsy_frame`).
    """
    return _is_bare_name(name) and name not in _KNOWN_NAMES


def _column_code(name: str) -> str:
    """patsy code reading the column ``name``: the bare name or ``Q("name")``."""
    if _is_code_name(name):
        return name
    return f"Q({_string_literal(name)})"


def _patsy_key(name: str) -> str:
    """The key of the column ``name`` in the data handed to patsy (see :func:`_quote`)."""
    return name if _is_code_name(name) else _QUOTED_KEY_PREFIX + name


#: R's backslash escapes inside backticks (as in its strings): ``\n`` is a newline, and so on;
#: any other escaped character stands for itself (a backslash before a backtick is a backtick,
#: two backslashes are one).
_BACKTICK_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b",
                     "f": "\f", "v": "\v"}
_BACKTICK_WRITTEN = {value: "\\" + key for key, value in _BACKTICK_ESCAPES.items()}


def _backtick_name(name: str) -> str:
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


def _shown(name) -> str:
    """A column name in a message, as it can be written: ``'name'`` (Python's quoting), or in
    R's backticks when quotes would need escapes (a name holding both quotes, a backslash or an
    unprintable character)."""
    text = name if isinstance(name, str) else label_name(name)
    plain = text.isprintable() and "\\" not in text and not ("'" in text and '"' in text)
    return repr(text) if plain else _backtick_name(text)


def _quote_list(names) -> str:
    """``'a', 'b'`` for messages."""
    return ", ".join(_shown(name) for name in names)


#: How many column names a message lists before it says how many more there are.
_LISTED_COLUMNS = 20


def _columns_listed(names) -> str:
    """``the columns are 'a', 'b', ... (n in all)`` for messages."""
    names = list(names)
    shown = _quote_list(names[:_LISTED_COLUMNS])
    if len(names) > _LISTED_COLUMNS:
        shown += f", ... ({len(names)} in all)"
    return f"the columns are {shown}"


def _unknown_columns_problem(unknown: list[str], columns, list_columns: bool = False) -> str:
    """Message part for unknown column names, with a suggestion for one typo.

    ``columns`` are formula names (strings); with ``list_columns`` the message also lists them.
    """
    if len(unknown) > 1:
        problem = f"unknown columns {_quote_list(unknown)}"
    else:
        problem = f"unknown column {_shown(unknown[0])}"
        close = difflib.get_close_matches(unknown[0], [str(column) for column in columns], n=1)
        if close:
            problem += f" (did you mean {_shown(close[0])}?)"
    if list_columns:
        problem += f"; {_columns_listed(columns)}"
    return problem


# ---------------------------------------------------------------------------
# Column labels that are not strings
# ---------------------------------------------------------------------------


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


class _ColumnNames:
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


# ---------------------------------------------------------------------------
# Lexing: quotes, backticks and brackets
# ---------------------------------------------------------------------------


class _Token(NamedTuple):
    """One piece of formula text.

    ``kind`` is ``"char"`` (a single character outside quotes), ``"string"``
    (a whole Python string literal, ``text`` is its source) or ``"backtick"``
    (an R backtick name, ``name`` is the decoded column name).
    """

    kind: str
    text: str
    name: str | None = None


def _lex(formula: str, text: str) -> list[_Token]:
    """Split formula text into characters, string literals and backtick names.

    Parameters
    ----------
    formula : str
        The whole formula, for error messages.
    text : str
        The text to split (the whole formula or one side of it).

    Raises
    ------
    FormulaError
        For an unclosed quote or backtick, or an empty backtick name.
    """
    tokens = []
    position = 0
    while position < len(text):
        character = text[position]
        if character in "'\"":
            end = _end_of_string(formula, text, position)
            tokens.append(_Token("string", text[position:end]))
            position = end
        elif character == "`":
            end, name = _read_backtick(formula, text, position)
            tokens.append(_Token("backtick", text[position:end], name))
            position = end
        else:
            tokens.append(_Token("char", character))
            position += 1
    return tokens


def _end_of_string(formula: str, text: str, start: int) -> int:
    """Index just past the Python string literal that opens at ``start``."""
    quote = text[start]
    if text.startswith(quote * 3, start):
        quote = quote * 3
    position = start + len(quote)
    while position < len(text):
        if text[position] == "\\":
            position += 2
        elif text.startswith(quote, position):
            return position + len(quote)
        else:
            position += 1
    raise _formula_error(formula, f"unclosed quote {quote} at position {start}")


def _read_backtick(formula: str, text: str, start: int) -> tuple[int, str]:
    """Read the R backtick name opening at ``start``: (end index, name)."""
    characters = []
    position = start + 1
    while position < len(text):
        character = text[position]
        if character == "\\" and position + 1 < len(text):
            escaped = text[position + 1]
            characters.append(_BACKTICK_ESCAPES.get(escaped, escaped))
            position += 2
        elif character == "`":
            if not characters:
                raise _formula_error(formula, "empty backtick name ``")
            if text.startswith("`", position + 1):
                raise _formula_error(
                    formula,
                    f"a doubled backtick at position {position}: inside a backtick name a backtick "
                    f"is written with a backslash, as in R (`a\\`b` is the name a`b)")
            return position + 1, "".join(characters)
        else:
            characters.append(character)
            position += 1
    raise _formula_error(formula, f"unclosed backtick at position {start}")


def _bracket_depths(formula: str, tokens: list[_Token]) -> list[int]:
    """Bracket depth before each token; checks that brackets balance."""
    depths = []
    open_brackets = []
    for token in tokens:
        if token.kind == "char" and token.text in _CLOSING_BRACKETS:
            if not open_brackets or _OPENING_BRACKETS[open_brackets[-1]] != token.text:
                raise _formula_error(formula, f"unmatched {token.text!r}")
            open_brackets.pop()
        depths.append(len(open_brackets))
        if token.kind == "char" and token.text in _OPENING_BRACKETS:
            open_brackets.append(token.text)
    if open_brackets:
        raise _formula_error(formula, f"unclosed {open_brackets[-1]!r}")
    return depths


def _split_top_level(formula: str, tokens: list[_Token], separator: str) -> list[list[_Token]]:
    """Split tokens at the ``separator`` characters outside brackets and quotes."""
    depths = _bracket_depths(formula, tokens)
    pieces = [[]]
    for token, depth in zip(tokens, depths):
        if token.kind == "char" and token.text == separator and depth == 0:
            pieces.append([])
        else:
            pieces[-1].append(token)
    return pieces


def _source(tokens: list[_Token]) -> str:
    """The formula text the tokens came from."""
    return "".join(token.text for token in tokens)


def _significant_neighbour(tokens: list[_Token], index: int, step: int) -> _Token | None:
    """The nearest token before (step -1) or after (step +1) that is not blank."""
    position = index + step
    while 0 <= position < len(tokens):
        token = tokens[position]
        if not (token.kind == "char" and token.text.isspace()):
            return token
        position += step
    return None


def _is_standalone_dot(tokens: list[_Token], index: int) -> bool:
    """Whether the ``.`` at ``index`` is R's "all other columns" term.

    A dot is a term when it stands between formula operators (or at an end),
    so the dots of ``np.log``, ``1.5`` or ``x.attr`` are left alone.
    """
    before = _significant_neighbour(tokens, index, -1)
    after = _significant_neighbour(tokens, index, +1)
    before_ok = before is None or (before.kind == "char" and before.text in _TERM_OPERATORS_BEFORE)
    after_ok = after is None or (after.kind == "char" and after.text in _TERM_OPERATORS_AFTER)
    return before_ok and after_ok


def _opens_call(tokens: list[_Token], index: int) -> bool:
    """Whether the ``(`` at ``index`` opens a function call (not a grouping)."""
    before = _significant_neighbour(tokens, index, -1)
    if before is None:
        return False
    if before.kind != "char":
        return True
    return before.text.isalnum() or before.text in "_)]"


# ---------------------------------------------------------------------------
# The two sides of the formula
# ---------------------------------------------------------------------------


def _split_sides(formula: str) -> tuple[list[_Token], list[_Token]]:
    """Split the formula at its single top-level ``~`` into (lhs, rhs) tokens."""
    tokens = _lex(formula, formula)
    sides = _split_top_level(formula, tokens, "~")
    if len(sides) == 1:
        raise _formula_error(formula, "no '~' separating the response from the predictors")
    if len(sides) > 2:
        raise _formula_error(formula, f"expected one '~', found {len(sides) - 1}")
    return sides[0], sides[1]


def _parse_responses(formula: str, lhs: list[_Token], data: pd.DataFrame,
                     names: _ColumnNames | None = None, require_response: bool = True) -> list[str]:
    """Column names of the response(s) on the left-hand side.

    Each response is a column name, ``Q("name")`` or `` `name` ``; several
    responses are separated by ``+``.  An empty left-hand side is refused when
    ``require_response``, else it gives no responses.
    """
    if not _source(lhs).strip():
        if not require_response:
            return []
        raise _formula_error(formula, "no response on the left of '~'")
    responses = []
    for piece in _split_top_level(formula, lhs, "+"):
        name = _response_name(formula, _response_piece(piece, data)[0], data, names)
        if name in responses:
            raise _formula_error(formula, f"response {name!r} is given twice")
        responses.append(name)
    return responses


def _factor_responses(formula: str, lhs: list[_Token], data: pd.DataFrame,
                      names: _ColumnNames | None = None) -> list[str]:
    """The responses written ``C(y)`` or ``factor(y)`` (classes whatever their values)."""
    factors = []
    for piece in _split_top_level(formula, lhs, "+"):
        inner, is_factor = _response_piece(piece, data)
        if is_factor:
            factors.append(_response_name(formula, inner, data, names))
    return factors


#: The calls that make a response a factor on the left-hand side (R's ``factor``, patsy's ``C``).
_FACTOR_CALLS = ("C", "factor")


def _response_piece(piece: list[_Token], data: pd.DataFrame) -> tuple[list[_Token], bool]:
    """:func:`_unwrapped_factor`, except that a column named exactly as written (``C(y)``) is
    that column."""
    if _source(piece).strip() in data.columns:
        return piece, False
    return _unwrapped_factor(piece)


def _unwrapped_factor(piece: list[_Token]) -> tuple[list[_Token], bool]:
    """The tokens inside ``C(...)`` / ``factor(...)`` when the piece is exactly such a call, and
    whether it was; otherwise the piece itself and False."""
    while piece and piece[0].kind == "char" and piece[0].text.isspace():
        piece = piece[1:]
    while piece and piece[-1].kind == "char" and piece[-1].text.isspace():
        piece = piece[:-1]
    if not piece or piece[-1].kind != "char" or piece[-1].text != ")":
        return piece, False
    for call in _FACTOR_CALLS:
        head = call + "("
        if len(piece) <= len(head) or any(token.kind != "char" for token in piece[:len(head)]):
            continue
        if "".join(token.text for token in piece[:len(head)]) != head:
            continue
        inner = piece[len(head):-1]
        depth = 0
        for token in inner:  # the closing ')' must be the one of the call: '(' and ')' balance inside
            if token.kind == "char" and token.text in "()":
                depth += 1 if token.text == "(" else -1
                if depth < 0:
                    return piece, False
        return (inner, True) if depth == 0 else (piece, False)
    return piece, False


def _response_name(formula: str, piece: list[_Token], data: pd.DataFrame,
                   names: _ColumnNames | None = None) -> str:
    """The column (formula name) named by one response of the left-hand side.

    An unknown name is refused with a suggestion and the list of the columns.
    """
    resolve = names.resolve if names is not None else (lambda name: name)
    significant = [token for token in piece if not (token.kind == "char" and token.text.isspace())]
    text = _source(piece).strip()
    if not significant:
        raise _formula_error(formula, "empty response: a '+' on the left has nothing beside it")
    if len(significant) == 1 and significant[0].kind == "backtick":
        name = resolve(significant[0].name)
    elif text in data.columns:
        name = text
    else:
        name = _quoted_name_in_code(text)
        if name is None:
            if _NAME_LIKE.fullmatch(text):
                raise _formula_error(formula, _unknown_columns_problem([text], data.columns, True))
            raise _formula_error(
                formula,
                f"response {text!r} is not a column name; the left-hand side takes "
                f"column names only (in backticks if they are not identifiers); "
                f"{_columns_listed(data.columns)}",
            )
        name = resolve(name)
    if name not in data.columns:
        raise _formula_error(formula, _unknown_columns_problem([name], data.columns, True))
    return name


#: Text that looks like a column name written bare (``y``, ``Sepal.Length``, ``5``).
_NAME_LIKE = re.compile(r"[\w.]+")


def _quoted_name_in_code(code: str) -> str | None:
    """``name`` if ``code`` is exactly ``Q("name")`` (any quotes), else None."""
    try:
        expression = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return None
    return _quoted_name(expression)


def _quoted_name(expression: ast.expr) -> str | None:
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


def _dot_expansion(formula: str, data: pd.DataFrame, responses: list[str]) -> str:
    """patsy code for R's ``.``: all non-response columns, in column order."""
    excluded = set(responses)
    codes = [_column_code(column) for column in data.columns if column not in excluded]
    if not codes:
        raise _formula_error(
            formula, "no predictors: '.' stands for no columns (every column is a response)"
        )
    return _balanced_sum(codes)


def _balanced_sum(codes: list[str]) -> str:
    """``(a + b) + (c + d)`` rather than ``a + b + c + d``: the same terms in the same order.

    patsy parses a ``+`` chain into a tree as deep as the chain is long and walks
    it recursively, which exceeds Python's recursion limit near a thousand
    columns; a balanced sum is only log2(n) deep.
    """
    if len(codes) <= 8:
        return "(" + " + ".join(codes) + ")"
    middle = len(codes) // 2
    return "(" + _balanced_sum(codes[:middle]) + " + " + _balanced_sum(codes[middle:]) + ")"


def _translate_rhs(
    formula: str, rhs: list[_Token], data: pd.DataFrame, responses: list[str],
    names: _ColumnNames | None = None,
) -> str:
    """Rewrite the right-hand side into patsy code.

    R's ``.`` becomes the non-response columns, `` `name` `` becomes the
    column's code (bare name or ``Q("name")``) and R's ``^`` becomes ``**``: between
    terms that is patsy's crossing (R's ``(a + b)^2``), inside a call (``I(x^2)``,
    ``log(x^2)``) Python's power, as in R (never Python's XOR).  R's ``%in%`` is
    refused with a message.  The rest is kept as written.
    """
    _bracket_depths(formula, rhs)  # raises for unbalanced brackets
    # For each bracket open at this point: does it belong to a call or index
    # (where '.' cannot stand for columns) rather than a grouping?
    call_brackets = []
    pieces = []
    for index, token in enumerate(rhs):
        if token.kind == "char" and token.text in _CLOSING_BRACKETS:
            call_brackets.pop()
        if token.kind == "backtick":
            pieces.append(_column_code(names.resolve(token.name) if names is not None else token.name))
        elif token.kind == "char" and token.text == "^":
            pieces.append("**")
        elif token.kind == "char" and token.text == "%" and _source(rhs[index:index + 4]) == "%in%":
            raise _formula_error(
                formula,
                "R's '%in%' (nesting) is not supported; write the nesting with '/' "
                "(a/b is a + a:b) or the interaction with ':'",
            )
        elif token.kind == "char" and token.text == "." and _is_standalone_dot(rhs, index):
            if any(call_brackets):
                raise _formula_error(
                    formula,
                    "'.' (all other columns) can be a term, not a function argument",
                )
            pieces.append(_dot_expansion(formula, data, responses))
        else:
            pieces.append(token.text)
        if token.kind == "char" and token.text in _OPENING_BRACKETS:
            is_call = token.text != "(" or _opens_call(rhs, index)
            call_brackets.append(is_call)
    return "".join(pieces)


# ---------------------------------------------------------------------------
# Names used by formula code
# ---------------------------------------------------------------------------


def _parse_code(formula: str, code: str) -> ast.expr:
    """Parse the Python code of one formula factor (FormulaError if invalid)."""
    try:
        return ast.parse(code.strip(), mode="eval").body
    except SyntaxError as error:
        raise _formula_error(formula, f"invalid expression {code.strip()!r}: {error.msg}") from None


def _code_references(expression: ast.expr) -> list[tuple[str, bool]]:
    """Names that a factor's code reads as data, in order of appearance.

    Returns ``(name, quoted)`` pairs: ``quoted`` is True for ``Q("name")``.
    A called name (``center`` in ``center(x)``), a keyword argument's name and
    a name bound in a comprehension or lambda is not a reference.  In
    ``np.log(x)`` both ``np`` and ``x`` are references (``log`` is an
    attribute); the caller decides which references are columns.
    """
    bound = set()
    for node in ast.walk(expression):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)

    references = []

    def visit(node: ast.AST) -> None:
        quoted = _quoted_name(node) if isinstance(node, ast.expr) else None
        if quoted is not None:
            references.append((quoted, True))
            return
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                visit(node.func)
            for argument in node.args:
                visit(argument)
            for keyword_argument in node.keywords:
                visit(keyword_argument.value)
            return
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load) and node.id not in bound:
                references.append((node.id, False))
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(expression)
    return references


def _unknown_names(expression: ast.expr, columns: pd.Index) -> list[str]:
    """Names read by one formula leaf that are neither columns nor known names.

    A leaf that is a bare name must be a column.  Inside a larger expression
    a name may also be numpy (``np``), a patsy builtin or a Python builtin.
    ``Q("name")`` must always name a column.
    """
    if isinstance(expression, ast.Name):
        if expression.id in columns:
            return []
        return [expression.id]
    unknown = []
    for name, quoted in _code_references(expression):
        if name in columns:
            continue
        if quoted or (name not in _KNOWN_NAMES and name not in _PYTHON_BUILTINS):
            unknown.append(name)
    return unknown


#: The functions that ask for categorical coding: patsy's ``C`` and R's ``factor``.
_CODING_FUNCTIONS = frozenset({"C", "factor"})


def _is_categorical_code(code: str) -> bool:
    """True for a factor written ``C(...)`` or ``factor(...)`` (categorical coding asked for)."""
    try:
        expression = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return False
    return (isinstance(expression, ast.Call) and isinstance(expression.func, ast.Name)
            and expression.func.id in _CODING_FUNCTIONS)


def _plain_column(code: str) -> str | None:
    """The column a factor is made of, or None if the factor computes something.

    ``x``, ``Q("x")``, ``C(x, ...)`` and ``factor(x)`` (also ``C(Q("x"), ...)``) are made of
    the column ``x``; ``np.log(x)`` or ``I(x ** 2)`` are not.
    """
    try:
        expression = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return None
    is_c_call = (
        isinstance(expression, ast.Call)
        and isinstance(expression.func, ast.Name)
        and expression.func.id in _CODING_FUNCTIONS
        and len(expression.args) >= 1
    )
    if is_c_call:
        expression = expression.args[0]
    if isinstance(expression, ast.Name):
        return expression.id
    return _quoted_name(expression)


def _term_plain_column(term) -> str | None:
    """The column a patsy term is made of (a one-factor plain column), else None."""
    if len(term.factors) != 1:
        return None
    code = getattr(term.factors[0], "code", None)
    if code is None:
        return None
    return _plain_column(code)


_Q_CALL = re.compile(r"""\bQ\(\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*\)""")


def _factor_display_name(factor) -> str:
    """fstools' name of one factor: the column for a plain column (``x``, ``Q("x")``,
    ``C(x)``, ``factor(x)``), else its code with ``Q("name")`` written as the formula
    would (bare, or in backticks when not an identifier)."""
    code = getattr(factor, "code", None)
    if code is None:
        return factor.name()
    column = _plain_column(code)
    if column is not None:
        return column
    return _Q_CALL.sub(_displayed_quote, code)


def _displayed_quote(match) -> str:
    """``Q("name")`` as the formula would write it: bare, or in backticks."""
    name = ast.literal_eval(match.group(1))
    return name if _is_code_name(name) else _backtick_name(name)


def _display_column_names(names: list[str]) -> list[str]:
    """patsy's design column names with the columns written as in the formula: a column read
    as ``Q("my col")`` is ``my col``, and inside a longer name (a level, an interaction) it is
    written bare or in backticks (`` `my col`[T.b] ``)."""
    shown = []
    for name in names:
        match = _Q_CALL.fullmatch(name)
        shown.append(ast.literal_eval(match.group(1)) if match else _Q_CALL.sub(_displayed_quote, name))
    return shown


def _term_display_name(term) -> str:
    """fstools' name of a patsy term: its factors' names joined by ``:``.

    A term of one plain column is named by the column, and an interaction by its
    factors' names (``a.b:x1``), so that a term is named the same whichever
    way the formula spelt its columns (``.``, backticks, ``Q()``).
    """
    return ":".join(_factor_display_name(factor) for factor in term.factors)


def _term_references(term) -> list[str]:
    """All names the factors of a patsy term read as data (columns or not)."""
    names = []
    for factor in term.factors:
        code = getattr(factor, "code", None)
        if code is None:
            continue
        try:
            expression = ast.parse(code.strip(), mode="eval").body
        except SyntaxError:
            continue
        for name, _quoted in _code_references(expression):
            if name not in names:
                names.append(name)
    return names


# ---------------------------------------------------------------------------
# patsy: parsing the right-hand side and building the design
# ---------------------------------------------------------------------------


def _patsy_problem(error: patsy.PatsyError) -> str:
    """A one-line description of a patsy error, with the code it points at."""
    problem = error.message
    origin = error.origin
    if origin is not None:
        snippet = origin.code[origin.start : origin.end].strip()
        if snippet:
            problem += f" (at {snippet!r})"
    return problem


def _safe_mode_error(formula: str, problem: str) -> FormulaError:
    """The FormulaError of code the safe mode refuses."""
    return _formula_error(formula, f"{problem}: {SAFE_MODE_HINT}")


def _r_refusal(formula: str, expression: ast.expr) -> None:
    """FormulaError for R formula functions fstools does not provide (``offset()``)."""
    for node in ast.walk(expression):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "offset"):
            raise _formula_error(
                formula,
                "R's offset() is not supported: an offset is a term with a fixed "
                "coefficient of 1 in a fitted model, which has no meaning for feature "
                "selection; leave it out",
            )


def _rhs_terms(formula: str, rhs_code: str, columns, formula_mode: str = "safe",
               names: _ColumnNames | None = None) -> list:
    """Parse the translated right-hand side into patsy terms (no intercept).

    Every name the code reads (also in removed terms such as ``- zz``) must be
    a column or a known name.  Leaves that name a column are rewritten to the
    code the ``.`` expansion uses for it, so that ``. - Q('a')`` removes ``a``,
    and so that R names such as ``Sepal.Length`` or ``class`` (a Python
    keyword) read the column of that name.

    In the safe mode the code is checked three times before anything evaluates
    it: the tokens of the whole right-hand side (before patsy parses it), the
    syntax tree of each piece of Python code patsy found between the formula
    operators, and the code of each factor of the final terms (what patsy
    passes to ``eval``).
    """
    safe = formula_mode == "safe"
    columns = column_set(columns)  # once: every check below looks names up in it
    if safe:
        problem = source_problem(rhs_code, columns)
        if problem:
            raise _safe_mode_error(formula, problem)
    try:
        tree = _patsy_parse_formula(rhs_code)
    except patsy.PatsyError as error:
        raise _formula_error(formula, _patsy_problem(error)) from None

    unknown = []
    for leaf in _python_leaves(tree):
        code = leaf.token.extra.strip()
        if code in columns:
            leaf.token.extra = _column_code(code)
            continue
        dotted = bare_dotted_columns(code, columns)
        if dotted:
            raise _formula_error(
                formula,
                f"the column {dotted[0]!r} is written bare inside an expression, where the "
                f"dot would be read as Python; write it in backticks: {_backtick_name(dotted[0])}",
            )
        expression = _parse_code(formula, code)
        quoted = _quoted_name(expression)
        if quoted is not None and quoted not in columns and names is not None:
            quoted = names.resolve(quoted)  # a tuple label written as Python prints it
            if quoted in columns:
                leaf.token.extra = _column_code(quoted)
                continue
        for name in _unknown_names(expression, columns):
            if name not in unknown:
                unknown.append(name)
        _r_refusal(formula, expression)
        if quoted is not None:
            leaf.token.extra = _column_code(quoted)
    if unknown:
        raise _formula_error(formula, _unknown_columns_problem(unknown, columns))
    if safe:
        for leaf in _python_leaves(tree):
            problem = expression_problem(leaf.token.extra, columns)
            if problem:
                raise _safe_mode_error(formula, problem)

    try:
        model_description = patsy.ModelDesc.from_formula(tree)
    except patsy.PatsyError as error:
        raise _formula_error(formula, _patsy_problem(error)) from None
    terms = [term for term in model_description.rhs_termlist if term != patsy.INTERCEPT]
    if safe:
        _check_factor_codes(formula, terms, columns)
    return terms


def _check_factor_codes(formula: str, patsy_terms, columns) -> None:
    """Safe mode: the code of every factor (what patsy evaluates) passes the allow-list."""
    columns = column_set(columns)
    for term in patsy_terms:
        for factor in term.factors:
            code = getattr(factor, "code", None)
            if code is None:
                raise _safe_mode_error(formula, f"a factor of type {type(factor).__name__}")
            problem = expression_problem(code, columns)
            if problem:
                raise _safe_mode_error(formula, problem)


def _python_leaves(node) -> list:
    """The leaves of a patsy parse tree that hold Python code."""
    if node.type == "PYTHON_EXPR":
        return [node]
    leaves = []
    for child in node.args:
        leaves.extend(_python_leaves(child))
    return leaves


def _check_predictor_dtype(formula: str, column: str, dtype) -> None:
    """TypeError unless the column can be a predictor."""
    if isinstance(dtype, pd.CategoricalDtype):
        return
    if pd.api.types.is_bool_dtype(dtype):
        return
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        return
    if pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype):
        return
    raise TypeError(
        f"formula {formula!r}: column {column!r} has dtype {dtype}, which cannot be "
        f"a predictor; allowed kinds: {_ALLOWED_KINDS}"
    )


def _patsy_column(series: pd.Series) -> pd.Series:
    """The column in a form patsy understands (pandas extension dtypes converted).

    Nullable integers and floats become NumPy numbers (missing -> NaN), nullable
    booleans and strings become objects (missing -> None, which patsy treats as
    missing).  NumPy dtypes, categoricals and objects are kept.
    """
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return series
    if not isinstance(dtype, pd.api.extensions.ExtensionDtype):
        return series
    has_missing = bool(series.isna().any())
    if pd.api.types.is_bool_dtype(dtype) or isinstance(dtype, pd.StringDtype):
        if not has_missing and pd.api.types.is_bool_dtype(dtype):
            return series.astype(bool)
        values = series.astype(object)
        return values.where(series.notna(), None)
    if pd.api.types.is_integer_dtype(dtype) and not has_missing:
        return series.astype(np.int64)
    if pd.api.types.is_numeric_dtype(dtype):
        return series.astype(np.float64)
    return series


def _patsy_frame(
    data: pd.DataFrame, columns: list[str], positions: np.ndarray
) -> pd.DataFrame:
    """A new frame of the given rows and columns, positional index, for patsy.

    The positional index (0..n-1) lets patsy's kept rows be mapped back to the
    caller's rows even when the caller's index has duplicates.
    """
    frame = data.iloc[positions][columns].reset_index(drop=True)
    for column in columns:
        frame[column] = _patsy_column(frame[column])
    # A column read as Q("name") goes under a key that no formula code can name bare, so that
    # columns named like functions (Q, C, I, np, log, ...) never shadow them.
    frame.columns = [_patsy_key(column) for column in columns]
    return frame


def _eval_environment(formula_mode: str = "safe") -> patsy.EvalEnvironment:
    """The names formula code can use besides the data.

    In the code mode: numpy as ``np`` and R's functions; patsy adds its builtins
    (``C``, ``I``, ``Q``, ...) and Python's itself.  In the safe mode: R's
    functions, ``np`` with the allowed functions only, every other builtin name
    shadowed (see :func:`_safe_namespace`).  The caller's variables are
    deliberately not visible, so a formula means the same wherever it is evaluated.
    """
    if formula_mode == "safe":
        return patsy.EvalEnvironment([_safe_namespace()])
    return patsy.EvalEnvironment([dict(_EVAL_NAMESPACE)])


def _rows_with_missing_error(formula, data, row_missing, columns_with_missing):
    """na_action='raise' met rows with missing values."""
    return ValueError(
        f"formula {formula!r}: {int(row_missing.sum())} of {len(data)} rows have "
        f"missing values (in column(s) {_quote_list(columns_with_missing)}); drop "
        f"them first or use na_action='drop'"
    )


def _no_complete_row_error(formula, data, used_columns):
    """Every row has a missing value in a column the formula uses."""
    return ValueError(
        f"formula {formula!r}: all {len(data)} rows have missing values in the "
        f"columns used ({_quote_list(used_columns)})"
    )


def _missing_rows(data: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, list[str]]:
    """Which rows have a missing value in the used columns, and which columns have one.

    A pandas sparse column with a non-missing fill value is read from its stored
    values only (no array of the column's length is built for it).
    """
    row_missing = np.zeros(len(data), dtype=bool)
    columns_with_missing = []
    for column in columns:
        series = data[column]
        dtype = series.dtype
        if isinstance(dtype, np.dtype) and dtype.kind in "iub":
            continue  # (a NumPy integer or boolean column holds no missing value)
        values = series.array
        if isinstance(dtype, np.dtype) and dtype.kind == "f":
            missing_positions = np.flatnonzero(np.isnan(series.to_numpy()))
        elif isinstance(values, pd.arrays.SparseArray) and not pd.isna(values.fill_value):
            stored = np.asarray(values.sp_values)
            missing_positions = np.asarray(values.sp_index.indices)[pd.isna(stored)]
        else:
            missing_positions = np.flatnonzero(series.isna().to_numpy())
        if missing_positions.size:
            row_missing[missing_positions] = True
            columns_with_missing.append(column)
    return row_missing, columns_with_missing


def _sparse_numeric_columns(patsy_terms: list, data: pd.DataFrame) -> list[str] | None:
    """The columns, when every term is one plain pandas sparse numeric column with fill value 0."""
    columns = []
    for term in patsy_terms:
        column = _term_plain_column(term)
        if column is None or column not in data.columns or _is_categorical_code(term.factors[0].code):
            return None
        dtype = data[column].dtype
        if not isinstance(dtype, pd.SparseDtype):
            return None
        subtype = dtype.subtype
        if (not np.issubdtype(subtype, np.number) or np.issubdtype(subtype, np.complexfloating)
                or pd.isna(dtype.fill_value) or dtype.fill_value != 0):
            return None
        columns.append(column)
    if len(set(columns)) != len(columns):
        return None
    return columns


def _sparse_design(data: pd.DataFrame, columns: list[str], positions: np.ndarray) -> sparse.csc_matrix:
    """CSC float64 matrix of the given rows of pandas sparse columns, from their stored values only."""
    new_row = np.full(len(data), -1, dtype=np.int64)
    new_row[positions] = np.arange(len(positions))
    rows, cols, values = [], [], []
    for j, column in enumerate(columns):
        array = data[column].array
        stored_rows = new_row[np.asarray(array.sp_index.indices, dtype=np.int64)]
        stored_values = np.asarray(array.sp_values, dtype=np.float64)
        kept = stored_rows >= 0
        rows.append(stored_rows[kept])
        values.append(stored_values[kept])
        cols.append(np.full(int(kept.sum()), j, dtype=np.int64))
    matrix = sparse.coo_matrix((np.concatenate(values) if values else np.zeros(0),
                                (np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64),
                                 np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64))),
                               shape=(len(positions), len(columns)))
    matrix = matrix.tocsc()
    matrix.sum_duplicates()
    return matrix


# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------


def parse_formula(formula: str, data: pd.DataFrame, na_action: str = "drop",
                  sparse_design: bool = False, formula_mode: str = "safe", na_values=None,
                  require_response: bool = True, n_threads: int = 1, read_values: bool = True,
                  integer_design: bool = False) -> ModelFrame:
    """Evaluate an R-style formula on a DataFrame.

    Parameters
    ----------
    formula : str
        ``response ~ predictors``.  The left side holds one or more response
        columns joined by ``+`` (``y``, ``Q("my y")`` or `` `my y` ``).  The right
        side is a patsy formula with R's additions: ``.`` for all columns that
        are not responses, `` `name` `` for any column name, ``- x`` to remove a
        term, ``^`` for crossing (``(a + b + c)^2``, ``.^2``) and for the power
        inside calls (``I(x^2)``), R's functions ``log``, ``exp``, ``sqrt``,
        ``abs``, ``factor`` (= ``C``), ``poly`` and ``scale`` with R's semantics,
        e.g. ``y ~ a + C(b) + np.log(c) + a:b``.  A term written
        exactly as a column name reads that column even when it is not Python
        (``Sepal.Length``, ``class``); inside a function call such names need
        backticks (``np.log(`Sepal.Length`)``).  ``- 1`` and ``+ 0`` are
        accepted; the intercept never appears in ``X``.

        Column names: any string goes in backticks, where a backtick or a
        backslash is escaped with a backslash as in R (`` `a\\`b` `` is the
        column ``a`b``; backslash-n and backslash-t are a newline and a tab).
        Names formula code uses itself (``Q``, ``C``, ``I``, ``np``,
        ``Intercept``, ``log``, ...) are columns when written as a whole term or in
        backticks.  A column label that is not a string is referred to by the name
        of :func:`label_name`: an integer or float label by ``str(label)``
        (`` `5` ``), a MultiIndex column by its levels joined with dots (``g.y``
        for ``('g', 'y')``; `` `('g', 'y')` `` is accepted too).  When two labels
        would share a name, a tuple keeps its printed form and a clash left is
        refused (ValueError).  Terms and design columns are named by these
        strings; ``response_names`` and :func:`term_frame` give back the labels.

        ``y ~ .`` and ``y ~ . - a - b`` over NumPy numeric columns are read
        straight from the DataFrame, without patsy (linear in the number of
        columns).
    data : pandas.DataFrame
        The data; never modified.
    na_action : {'drop', 'raise', 'level', 'pass'}, default 'drop'
        What to do with rows that have a missing value (NaN, None, NaT, pd.NA)
        in a response or in a variable used on the right (the values of
        :data:`fstools.methods.registry.NA_ACTIONS`): ``'drop'`` drops them
        and counts them in ``n_dropped`` (R's ``na.omit``); ``'raise'`` raises;
        ``'pass'`` (R's ``na.pass``) drops only the rows with a missing response and
        keeps the others with NaN in the design columns of the terms that read a
        missing value, for the methods that treat missing values themselves.
        ``'level'`` keeps a missing predictor value, for the methods that code it as a level of
        its own: a categorical predictor gets the level :data:`MISSING_LEVEL` (``'<NA>'``, R's
        ``addNA``), a numeric one keeps NaN in ``X``; only rows with a missing response are
        dropped (counted in ``n_dropped``).
    sparse_design : bool, default False
        When True and every term is a plain numeric column of pandas
        ``SparseDtype`` with fill value 0, ``X`` is a ``scipy.sparse`` CSC
        matrix built from the columns' stored values (never densified).  For
        methods with the ``sparse`` capability; otherwise ``X`` is dense as usual.
    formula_mode : {'safe', 'code'}, default 'safe'
        A formula's terms are Python code that is evaluated.  ``'safe'`` allows
        only column names, formula operators, numbers and an allow-list of
        numeric functions (see :mod:`fstools.model.safe_eval`) and refuses
        anything else before evaluating anything; ``'code'`` evaluates any
        Python expression (with ``np``), as patsy and statsmodels do: use it
        only for formulas you wrote yourself.
    na_values : list, optional
        Entries of text columns that mean "missing" (as in ``pandas.read_csv``), e.g.
        ``['?']``.  Text columns of predictors whose values are all numbers (``Decimal``, as
        ``read_sql`` returns, or numeric strings) are read as numbers, with a note in
        ``ModelFrame.notes``; a column of numbers with a few other entries is refused naming
        them (:mod:`fstools.model.columns`), unless ``na_values`` declares them missing.
        Text and categorical predictors with about one level per row warn (identifiers).
    require_response : bool, default True
        False accepts a one-sided formula (``"~ ."``, R's formula without a response, for
        the unsupervised methods): ``response_names`` is then empty.
    n_threads : int, default 1
        Threads of the one read of a wide numeric frame's values (``y ~ .``) that finds the
        rows with missing values and the checks of :attr:`ModelFrame.column_checks`.
    integer_design : bool, default False
        For a method that reads a bool or integer design as it is
        (``MethodSpec.integer_designs``): ``y ~ .`` over columns that share one integer dtype
        (:data:`fstools.core.arrays.INTEGER_DESIGN_DTYPES`, e.g. the int64 of a CSV's 0/1
        columns) keeps that dtype in ``X`` instead of a float64 copy.

    Returns
    -------
    ModelFrame
        The responses, the design matrix without intercept and the map from
        design columns to terms.

    Raises
    ------
    TypeError
        If ``formula`` is not a string, ``data`` not a DataFrame, or a predictor
        column is not numeric, boolean or categorical/string (e.g. datetime).
    ValueError
        If ``data`` has no rows, ``na_action`` is unknown, or missing values
        are found with ``na_action='raise'`` or leave no rows.
    FormulaError
        For a formula that does not fit the data: unknown column (quoted as it can
        be written, with the nearest name; an unknown response also lists the
        columns), no response,
        no predictors, a response also on the right, a syntax error, or code
        that the safe mode refuses.  The message starts with the formula.

    Examples
    --------
    >>> df = pd.DataFrame({"y": [0, 1, 0, 1], "a": [1.0, 2.0, 3.0, 4.0],
    ...                    "colour": ["red", "blue", "red", "green"]})
    >>> mf = parse_formula("y ~ .", df)
    >>> mf.terms
    ['colour', 'a']
    >>> mf.column_names
    ['colour[T.green]', 'colour[T.red]', 'a']
    >>> mf.column_terms
    ['colour', 'colour', 'a']
    """
    if not isinstance(formula, str):
        raise TypeError(f"formula must be a string such as 'y ~ .', got {type(formula).__name__}")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if not isinstance(na_action, str) or na_action not in NA_ACTIONS:
        raise ValueError(f"na_action must be one of {_quote_list(NA_ACTIONS)}, got {na_action!r}")
    formula_mode = check_mode(formula_mode)
    if len(data) == 0:
        raise ValueError("data has no rows")
    if not data.columns.is_unique:
        duplicated = data.columns[data.columns.duplicated()].unique().tolist()
        raise ValueError(f"data has duplicated column names: {_quote_list(duplicated)}")

    names = _ColumnNames(data.columns)
    source = data
    data = names.frame(data)  # the columns under their formula names (strings)

    lhs, rhs = _split_sides(formula)
    responses = _parse_responses(formula, lhs, data, names, require_response)
    factor_responses = _factor_responses(formula, lhs, data, names) if responses else []
    if not _source(rhs).strip():
        raise _formula_error(formula, "no predictors on the right of '~'")
    dot = _dot_columns(rhs, data, responses, names)
    notes, numbers = [], []
    if dot is not None:
        direct, positions = dot
        data, notes, numbers = read_number_columns(data, direct, na_values)
        frame = _direct_model_frame(formula, data, responses, direct, positions, na_action, n_threads,
                                    read_values=read_values or na_action != "drop", integer_design=integer_design)
        if frame is not None and na_action == "level":
            notes += _missing_predictor_notes(data, direct)
        if frame is not None:
            return _finish(frame, formula, source, names, na_action, formula_mode, factor_responses, notes,
                           na_values, numbers)
    rhs_code = _translate_rhs(formula, rhs, data, responses, names)
    patsy_terms = _rhs_terms(formula, rhs_code, data.columns, formula_mode, names)
    if not patsy_terms:
        raise _formula_error(formula, "no predictors: the right-hand side leaves no terms")

    predictors = _predictor_columns(formula, patsy_terms, data, responses)
    data, more_notes, more_numbers = _read_predictor_columns(data, predictors, na_values)
    notes += more_notes
    numbers += more_numbers
    # before any conversion to float64: integers beyond 2^53 would not survive it (responses may hold them)
    _check_integer_columns(data, [column for column in predictors if column not in responses])
    used_columns = responses + [column for column in predictors if column not in responses]

    if na_action == "level":
        # Only a missing response drops a row; a missing predictor value is kept as a level of its own.
        row_missing, _ = _missing_rows(data, responses)
        kept_predictors = [column for column in predictors if column not in responses]
        notes += _missing_predictor_notes(data, kept_predictors)
        data = _missing_as_level(formula, data, kept_predictors, _coded_columns(patsy_terms))
    else:
        row_missing, columns_with_missing = _missing_rows(data, responses if na_action == "pass" else used_columns)
    if na_action == "raise" and row_missing.any():
        raise _rows_with_missing_error(formula, data, row_missing, columns_with_missing)
    complete_positions = np.flatnonzero(~row_missing)
    if len(complete_positions) == 0:
        raise _no_complete_row_error(formula, data, used_columns)

    # A missing value under na_action='level' is NaN in a dense design (scipy's sparse zeros are not missing).
    use_sparse = sparse_design and na_action != "level"
    sparse_columns = _sparse_numeric_columns(patsy_terms, data) if use_sparse else None
    plain_columns = None if sparse_columns is not None else _plain_numeric_columns(patsy_terms, data)
    if sparse_columns is not None:
        # Every term is a pandas sparse numeric column (fill 0): a CSC matrix of the stored values.
        kept_positions = complete_positions
        X = _sparse_design(data, sparse_columns, kept_positions)
        column_names = list(sparse_columns)
        terms = list(sparse_columns)
        column_terms = list(sparse_columns)
        design_info = None
        ordered_terms = tuple(patsy_terms)
    elif plain_columns is not None:
        # Every term is a numeric column: read them directly (same values patsy gives).
        kept_positions = complete_positions
        X = np.ascontiguousarray(data[plain_columns].to_numpy(dtype=np.float64)[kept_positions])
        column_names = list(plain_columns)
        terms = list(plain_columns)
        column_terms = list(plain_columns)
        design_info = None
        ordered_terms = tuple(patsy_terms)
    else:
        design = _build_design(formula, patsy_terms, data, predictors, complete_positions, na_action,
                               formula_mode)
        kept_positions = complete_positions[design.index.to_numpy()]
        if len(kept_positions) == 0:
            raise ValueError(
                f"formula {formula!r}: all {len(data)} rows have missing values once the "
                f"terms are evaluated"
            )
        design_info = design.design_info
        if na_action == "pass":
            design = _missing_as_nan(design, design_info, data, complete_positions[design.index.to_numpy()])
        intercept_slice = design_info.slice(patsy.INTERCEPT)
        intercept_positions = np.arange(intercept_slice.start, intercept_slice.stop)
        values = design.to_numpy(dtype=np.float64)
        X = np.ascontiguousarray(np.delete(values, intercept_positions, axis=1), dtype=np.float64)
        column_names = _display_column_names(_r_column_names(design_info, [
            name
            for position, name in enumerate(design_info.column_names)
            if position not in intercept_positions
        ]))
        terms, column_terms = _term_map(formula, design_info)
        ordered_terms = tuple(term for term in design_info.terms if term != patsy.INTERCEPT)

    frame = ModelFrame(
        formula=formula,
        response_names=responses,
        response=response_columns(data, responses, kept_positions),
        X=X,
        column_names=column_names,
        terms=terms,
        column_terms=column_terms,
        row_index=data.index[kept_positions],
        n_dropped=len(data) - len(kept_positions),
        design_info=design_info,
        patsy_terms=ordered_terms,
    )
    return _finish(frame, formula, source, names, na_action, formula_mode, factor_responses, notes, na_values,
                   numbers)


def _read_predictor_columns(data: pd.DataFrame, predictors: list[str],
                            na_values) -> tuple[pd.DataFrame, list, list]:
    """Text columns of numbers read as numbers, and identifier-like columns warned about
    (:mod:`fstools.model.columns`): the data, the notes and the columns read as numbers."""
    data, notes, numbers = read_number_columns(data, predictors, na_values)
    warn_identifier_columns(data, predictors, stacklevel=5)
    return data, notes, numbers


def _finish(frame: ModelFrame, formula: str, source: pd.DataFrame, names: _ColumnNames,
            na_action: str, formula_mode: str, factor_responses: list[str] = (), notes=(),
            na_values=None, number_columns=()) -> ModelFrame:
    """The ModelFrame as returned: responses by their labels in ``source`` (the caller's data),
    the map of the other formula names to their labels, and what pickling needs."""
    responses = frame.response_names
    if names.identity:
        response_labels, labels = list(responses), {}
    else:
        response_labels = [names.label_of.get(name, name) for name in responses]
        labels = dict(names.label_of)
    response = frame.response
    if not names.identity:
        if isinstance(source.columns, pd.MultiIndex):
            columns = pd.MultiIndex.from_tuples(response_labels, names=source.columns.names)
        else:
            columns = pd.Index(response_labels, dtype=object, tupleize_cols=False)
        response = response.set_axis(columns, axis=1)
    factors = tuple(response_labels[responses.index(name)] for name in factor_responses)
    return dataclasses.replace(frame, response_names=response_labels, response=response,
                               source=source.copy(deep=False), na_action=na_action,
                               formula_mode=formula_mode, column_labels=labels, factor_responses=factors,
                               notes=tuple(notes), na_values=None if na_values is None else tuple(na_values),
                               number_columns=tuple(number_columns))


def _missing_predictor_notes(data: pd.DataFrame, predictors: list[str]) -> list[str]:
    """The note of ``na_action='level'``: the predictors with missing values, and how many, kept."""
    return missing_predictor_notes({column: int(data[column].isna().sum()) for column in predictors})


def missing_predictor_notes(counts: dict) -> list[str]:
    """The note of ``na_action='level'`` from the number of missing values of each predictor
    (column name -> count; those without are left out)."""
    counts = {column: count for column, count in counts.items() if count}
    if not counts:
        return []
    shown = ", ".join(f"{_shown(column)} ({count})" for column, count in list(counts.items())[:10])
    more = f" and {len(counts) - 10} more" if len(counts) > 10 else ""
    return [f"na_action='level': rows with missing predictor values kept; missing values in {len(counts)} "
            f"column(s): {shown}{more}, a level of their own (a factor's level {MISSING_LEVEL!r})"]


def _coded_columns(patsy_terms) -> tuple[set, set]:
    """The columns the terms read as factors (``C(x)`` / ``factor(x)``) and those they read as they are."""
    coded, plain = set(), set()
    for term in patsy_terms:
        for factor in term.factors:
            code = getattr(factor, "code", "")
            column = _plain_column(code)
            if column is not None:
                (coded if _is_categorical_code(code) else plain).add(column)
    return coded, plain


def _missing_as_level(formula: str, data: pd.DataFrame, predictors: list[str], uses: tuple) -> pd.DataFrame:
    """``data`` with every missing value of a categorical predictor (non-numeric, or numbers read as
    ``C(x)`` / ``factor(x)``) replaced by the level :data:`MISSING_LEVEL`; numeric predictors keep
    NaN.  A new frame when something is replaced (the caller's data is never modified)."""
    coded, plain = uses
    replaced = {}
    for column in predictors:
        series = data[column]
        missing = series.isna().to_numpy()
        if not missing.any():
            continue
        numeric = pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)
        if numeric and column in coded and column in plain:
            raise ValueError(f"formula {formula!r}: na_action='level': column {_shown(column)} has missing values "
                             f"and is read both as numbers and as a factor (C() / factor()), where a missing "
                             f"value would be NaN in one and a level in the other; give the factor a column of "
                             f"its own (e.g. as strings) or use na_action='drop'")
        if numeric and column not in coded:
            continue
        if (series.astype(object)[~missing] == MISSING_LEVEL).any():
            raise ValueError(f"na_action='level': column {_shown(column)} already has a level {MISSING_LEVEL!r}, "
                             f"the level missing values would become; rename it")
        if isinstance(series.dtype, pd.CategoricalDtype):
            replaced[column] = series.cat.add_categories([MISSING_LEVEL]).fillna(MISSING_LEVEL)
        else:
            replaced[column] = series.astype(object).where(~missing, MISSING_LEVEL)
    return data.assign(**replaced) if replaced else data


def response_columns(data: pd.DataFrame, responses: list, rows: np.ndarray | None = None) -> pd.DataFrame:
    """A copy of the columns ``responses`` of ``data`` (labels), at the row positions ``rows`` or all.

    ``data[responses].copy()``, built from a slice of the frame when the responses are adjacent
    columns (one response, most often) and column by column otherwise: on a wide frame pandas'
    selection of a list of columns costs several times more (0.28 ms against 0.06-0.09 on
    2,000 x 501).  A label held by several columns (and no response at all) takes pandas' own
    selection.
    """
    positions = [data.columns.get_loc(name) for name in responses]
    if not positions or not all(isinstance(position, int) for position in positions):
        selected = data[responses]
        return (selected if rows is None else selected.iloc[rows]).copy()
    first = positions[0]
    if positions == list(range(first, first + len(positions))):
        # adjacent columns (one response, most often): a slice of the frame and of its Index, cheaper
        # than a take of either (2,000 x 501: 0.09 ms against 0.11 for the columns one by one)
        frame = data.iloc[:, first:first + len(positions)]
    else:
        frame = pd.DataFrame({i: data.iloc[:, position] for i, position in enumerate(positions)}, copy=False)
        frame.columns = data.columns[positions]
    return (frame if rows is None else frame.iloc[rows]).copy()


def _check_integer_columns(data: pd.DataFrame, columns: list[str]) -> None:
    """:func:`check_integer_columns` on those of ``columns`` that have an integer dtype."""
    integer = {name for name, dtype in data.dtypes.items() if pd.api.types.is_integer_dtype(dtype)}
    if integer:
        check_integer_columns(data[[column for column in columns if column in integer]], name="data")


def _dot_columns(rhs: list[_Token], data: pd.DataFrame, responses: list[str],
                 names: _ColumnNames) -> tuple[list[str], np.ndarray] | None:
    """The predictors and their column positions when the right-hand side is R's ``.`` with at
    most some columns removed.

    Recognises ``.``, ``. - a - `b c` - 1``, ``. + 0`` and the like (columns written bare or in
    backticks; ``+ x`` of a column that ``.`` already holds): the terms are then the columns
    themselves, known without patsy.  Returns None for anything else (the general path).
    """
    words = []  # (sign, token or text)
    sign, current = "+", []

    def close():
        if current:
            words.append((sign, current[:]))
            current.clear()

    for token in rhs:
        if token.kind == "string":
            return None
        if token.kind == "backtick":
            if current:
                return None
            current.append(token)
            continue
        text = token.text
        if text.isspace():
            close()
        elif text in "+-":
            close()
            sign = text
        elif text.isalnum() or text in "._":
            if current and current[-1].kind == "backtick":
                return None
            current.append(token)
        else:
            return None
    close()
    if not words or words[0] != ("+", [_Token("char", ".")]):
        return None
    excluded = set(responses)
    removed = set()
    for sign, pieces in words[1:]:
        if len(pieces) == 1 and pieces[0].kind == "backtick":
            name = names.resolve(pieces[0].name)
        else:
            name = "".join(piece.text for piece in pieces)
            if name in ("0", "1") and name not in data.columns:
                continue  # the intercept: never in the design
        if name not in data.columns:
            return None  # an unknown name: the general path says so
        if sign == "-":
            removed.add(name)
        elif name in excluded:
            return None  # a response on the right: the general path refuses it
    keep = np.ones(len(data.columns), dtype=bool)
    for name in excluded | removed:
        position = data.columns.get_loc(name)
        if not isinstance(position, int):
            return None  # a name shared by several columns: the general path says so
        keep[position] = False
    if not keep.any():
        return None
    # One C-level pass over the names (a comprehension with two set lookups per name costs
    # several times more on a wide frame).
    return list(itertools.compress(data.columns.tolist(), keep.tolist())), np.flatnonzero(keep)


def _direct_model_frame(formula: str, data: pd.DataFrame, responses: list[str], predictors: list[str],
                        positions: np.ndarray, na_action: str, n_threads: int = 1,
                        read_values: bool = True, integer_design: bool = False) -> ModelFrame | None:
    """The ModelFrame of plain numeric columns read straight from the DataFrame, or None.

    ``predictors`` are the columns at ``positions`` of ``data`` (:func:`_dot_columns`).
    ``read_values=False`` (na_action 'drop' only) skips the read of the values for the rows
    with a missing value and the design's checks: for a caller whose method reads and checks
    every value itself, and which starts again with the values read when it refuses one
    (:func:`fstools.api.selection.select`).

    For ``y ~ .`` on a wide frame of numbers: no patsy (whose cost grows faster than the number
    of terms), no formula code, one pass over the values.  None when a predictor is not a
    NumPy integer or float column (categoricals, booleans, strings, ... take the general path).
    """
    # The distinct dtypes of the predictors (a set: one C-level pass over a wide frame's dtypes,
    # taken from their object array, not by the Series' iloc: 2.0 ms against 3.0 for 100,000
    # columns, 0.03 against 0.11 for 500).
    kinds = set(data.dtypes.to_numpy()[positions].tolist())
    if not all(_is_plain_numeric(dtype) for dtype in kinds):
        return None
    # The DataFrame's layout is kept: pandas stores columns as the rows of a block, so the values
    # are Fortran-ordered, and :func:`fstools.api.selection.run_method` makes the C-contiguous copy
    # only for a method that needs one.  Columns by position: no lookup of each name.
    # (integer_design: columns of one integer dtype are kept in it for a method that reads them so)
    keep = integer_design and is_integer_design_of_columns(kinds)
    if positions.size and positions[-1] - positions[0] + 1 == positions.size:
        # one run of columns (the response first or last): a slice of the frame, cheaper than a take
        # of its blocks and of its Index (2,000 x 500: 0.05 ms against 0.14)
        selected = data.iloc[:, positions[0]:positions[-1] + 1]
    else:
        selected = data.iloc[:, positions]
    if any(dtype.kind in "iu" for dtype in kinds):  # before a conversion to float64
        check_integer_columns(selected, name="data", n_threads=n_threads)
    # Often a read-only view of the frame's block (no copy): the ModelFrame's ``source`` (a shallow
    # copy of the frame) is a reference pandas' copy-on-write sees, so a later in-place change of
    # the user's frame copies the block first and never reaches X (tests/test_layout.py).
    values = selected.to_numpy(dtype=None if keep else np.float64)
    if not (values.flags.c_contiguous or values.flags.f_contiguous):
        values = np.ascontiguousarray(values)
    response_missing, columns_with_missing = _missing_rows(data, responses)
    # One read of the values: which columns hold a non-finite value and which are constant (the
    # checks of the design, kept on the frame when every row is kept); the rows with a missing
    # value are then looked for in the columns that hold one only.
    if read_values:
        nonfinite, constant = nonfinite_and_constant_columns(values, n_threads)
        suspects = np.flatnonzero(nonfinite)
    else:  # checked by the method's own read (a missing value there: the caller starts again)
        suspects = np.empty(0, dtype=np.intp)
    # na_action='level': a missing predictor value stays NaN in X (a level of its own for the method);
    # 'pass': it stays NaN for the method to treat.
    if na_action == "level" or suspects.size == 0:
        predictor_missing = np.zeros(len(data), dtype=bool)
    else:
        predictor_missing = rows_with_nan(values, suspects)
    row_missing = response_missing if na_action == "pass" else response_missing | predictor_missing
    if row_missing.any():
        if na_action == "raise":
            if predictor_missing.any():
                with_missing = np.flatnonzero(np.isnan(values).any(axis=0))
                columns_with_missing = columns_with_missing + [predictors[j] for j in with_missing]
            raise _rows_with_missing_error(formula, data, row_missing, columns_with_missing)
        kept_positions = np.flatnonzero(~row_missing)
        if len(kept_positions) == 0:
            raise _no_complete_row_error(formula, data, responses + predictors)
        X = values[kept_positions]
        response = response_columns(data, responses, kept_positions)
        row_index = data.index[kept_positions]
    else:  # every row kept: no take of the rows
        kept_positions = None
        X = values
        response = response_columns(data, responses)
        row_index = data.index
    names = list(predictors)
    return ModelFrame(
        formula=formula,
        response_names=list(responses),
        response=response,
        X=X,
        # one list for the three (read, never changed: model.terms.same_names sees it at once)
        column_names=names,
        terms=names,
        column_terms=names,
        row_index=row_index,
        n_dropped=len(data) - len(row_index),
        design_info=None,
        patsy_terms=(),
        column_checks=(nonfinite, constant) if kept_positions is None and read_values else None,
    )


def matrix_model_frame(X, column_names: list[str], response_name: str, response, row_index=None,
                       n_dropped: int = 0, na_action: str = "drop") -> ModelFrame:
    """The ModelFrame of ``response ~ .`` over a numeric matrix whose columns are named ``column_names``.

    What :func:`parse_formula` gives for that formula on a DataFrame of the columns of ``X`` and
    the response (every column a plain numeric term, no row with a missing value), without
    building the DataFrame or reading the formula: for callers that hold validated arrays
    (:class:`fstools.FeatureSelector`).

    Parameters
    ----------
    X : ndarray of float64 or scipy sparse matrix, shape (n_samples, n_features)
        Finite values (checked by the caller, not here); a sparse matrix becomes CSC (as
        ``parse_formula(..., sparse_design=True)`` gives it), a dense one is kept as it is.
    column_names : list of str
        Distinct names of the columns, none equal to ``response_name`` (a list is kept as it
        is, not copied: the frame's lists are not changed after it is built).
    response_name : str
    response : array_like or pandas.Categorical, shape (n_samples,), or None
        The response's values, without missing values; None leaves ``ModelFrame.response``
        None, for a caller that sets it later (:func:`with_matrix_response`) when something
        reads it.
    row_index : pandas.Index, optional
        The rows' labels (default 0 .. n_samples - 1), e.g. the positions kept after rows with
        missing values were dropped (``n_dropped`` of them).
    na_action : str
        How missing values were treated (:data:`fstools.methods.registry.NA_ACTIONS`): under
        ``'level'`` and ``'pass'`` ``X`` may hold NaN; under ``'level'`` the frame's notes name
        the columns with missing values, as :func:`parse_formula`'s do.
    """
    if sparse.issparse(X):
        X = sparse.csc_matrix(X)
    # one list for the names, the terms and the column terms (read, never changed; a wide
    # design's 100,000 names are not copied, and compare equal at once: model.terms.same_names)
    names = column_names if type(column_names) is list else list(column_names)
    n_samples = X.shape[0]
    row_index = pd.RangeIndex(n_samples) if row_index is None else row_index
    notes = ()
    if na_action == "level":  # the note the formula path gives: the columns with missing values kept, and how many
        if sparse.issparse(X):
            stored = X.tocoo()
            counts = np.bincount(stored.col[np.isnan(stored.data)], minlength=X.shape[1])
        else:
            counts = np.isnan(X).sum(axis=0) if X.dtype.kind == "f" else np.zeros(X.shape[1], dtype=np.intp)
        notes = tuple(missing_predictor_notes({name: int(count) for name, count in zip(names, counts) if count}))
    return ModelFrame(
        formula=format_formula([response_name], []).rsplit(" ~ ", 1)[0] + " ~ .",
        response_names=[response_name],
        response=None if response is None else pd.DataFrame({response_name: response}, index=row_index),
        X=X,
        column_names=names,
        terms=names,
        column_terms=names,
        row_index=row_index,
        n_dropped=n_dropped,
        design_info=None,
        patsy_terms=(),
        na_action=na_action,
        notes=notes,
    )


def with_matrix_response(frame: ModelFrame, response) -> ModelFrame:
    """``frame`` (of :func:`matrix_model_frame`) with the response's values ``response`` set."""
    name = frame.response_names[0]
    return dataclasses.replace(frame, response=pd.DataFrame({name: response}, index=frame.row_index))


def _plain_numeric_columns(patsy_terms: list, data: pd.DataFrame) -> list[str] | None:
    """The columns, when every term is one plain numeric (not boolean) column; else None."""
    columns = []
    for term in patsy_terms:
        column = _term_plain_column(term)
        if column is None or column not in data.columns:
            return None
        if _is_categorical_code(term.factors[0].code):
            return None
        columns.append(column)
    if len(set(columns)) != len(columns):
        return None
    dtypes = data.dtypes
    if not all(_is_plain_numeric(dtypes[column]) for column in columns):
        return None
    return columns


def _is_plain_numeric(dtype) -> bool:
    """A NumPy integer, unsigned or float dtype (not boolean, complex or a pandas extension)."""
    return isinstance(dtype, np.dtype) and dtype.kind in "iuf"


def _predictor_columns(
    formula: str, patsy_terms: list, data: pd.DataFrame, responses: list[str]
) -> list[str]:
    """The data columns the terms read, checked: present, not a response, dtype."""
    columns = {}  # an ordered set: the columns in order of first use
    for term in patsy_terms:
        plain = _term_plain_column(term)
        if plain is not None and plain not in data.columns:
            raise _formula_error(formula, _unknown_columns_problem([plain], data.columns))
        for name in _term_references(term):
            if name not in columns and name in data.columns:
                columns[name] = None
    columns = list(columns)
    on_both_sides = [name for name in responses if name in columns]
    if on_both_sides:
        raise _formula_error(
            formula,
            f"response {_quote_list(on_both_sides)} also appears on the right-hand side",
        )
    for column in columns:
        _check_predictor_dtype(formula, column, data[column].dtype)
    return columns


def _build_design(formula, patsy_terms, data, predictors, positions, na_action,
                  formula_mode="safe") -> pd.DataFrame:
    """patsy's design matrix (with intercept) for the complete rows.

    With ``na_action='drop'`` patsy drops rows whose evaluated terms are
    missing (e.g. ``np.log`` of a negative number); with ``'raise'`` such rows
    raise a ValueError naming the design columns.  The returned frame's index
    holds positions into ``positions``.
    """
    frame = _patsy_frame(data, predictors, positions)
    if na_action == "pass":
        # A missing category stands in as a present one (patsy would drop the row, or make it a
        # level); _missing_as_nan then sets the term's design columns of the row to NaN.
        for column in frame.columns:
            values = frame[column]
            if values.dtype.kind != "f" and values.isna().any() and values.notna().any():
                frame[column] = values.fillna(values[values.notna()].iloc[0])
    model_description = patsy.ModelDesc([], [patsy.INTERCEPT] + list(patsy_terms))
    if na_action in ("raise", "level", "pass"):
        patsy_na_action = patsy.NAAction(NA_types=[])   # nothing is dropped: NaN stays NaN
    else:
        patsy_na_action = "drop"
    try:
        design = patsy.dmatrix(
            model_description,
            frame,
            eval_env=_eval_environment(formula_mode),
            NA_action=patsy_na_action,
            return_type="dataframe",
        )
    except patsy.PatsyError as error:
        raise _formula_error(formula, _patsy_problem(error)) from None
    except SyntaxError as error:
        raise _formula_error(formula, f"invalid expression: {error.msg}") from None

    if na_action == "raise":
        not_a_number = np.isnan(design.to_numpy(dtype=np.float64))
        if not_a_number.any():
            rows = int(not_a_number.any(axis=1).sum())
            bad_columns = not_a_number.any(axis=0)
            columns = [name for name, bad in zip(design.columns, bad_columns) if bad]
            raise ValueError(
                f"formula {formula!r}: {rows} of {len(data)} rows have missing values once "
                f"the terms are evaluated (in design columns {_quote_list(columns)}); "
                f"use na_action='drop' to drop them"
            )
    return design


def _missing_as_nan(design: pd.DataFrame, design_info, data: pd.DataFrame, positions: np.ndarray) -> pd.DataFrame:
    """na_action='pass': NaN in every design column of a term on the rows (``positions`` into
    ``data``) where a data column the term reads is missing (patsy would make a missing
    category a level of its own)."""
    design = design.copy()
    for term, columns in design_info.term_slices.items():
        used = [name for name in _term_references(term) if name in data.columns]
        if used:
            missing, _ = _missing_rows(data, used)
            rows = missing[positions]
            if rows.any():
                design.iloc[np.flatnonzero(rows), columns] = np.nan
    return design


def _r_column_names(design_info, names: list[str]) -> list[str]:
    """Design column names with the columns of ``poly(x, d)`` numbered by degree, 1 to d.

    patsy numbers the columns of a factor that gives several from 0
    (``poly(x, 2)[0]``); fstools numbers those of ``poly()`` by the degree they
    stand for (``poly(x, 2)[1]``, ``poly(x, 2)[2]``), as R does (``poly(x, 2)1``).
    """
    codes = set()
    for term in design_info.terms:
        for factor in term.factors:
            code = getattr(factor, "code", "")
            if code.startswith("poly("):
                codes.add(code)
    if not codes:
        return names
    pattern = re.compile("(" + "|".join(re.escape(code) for code in sorted(codes)) + r")\[(\d+)\]")
    return [pattern.sub(lambda m: f"{m.group(1)}[{int(m.group(2)) + 1}]", name) for name in names]


def _term_map(formula: str, design_info) -> tuple[list[str], list[str]]:
    """(term names, term name of each design column), intercept left out."""
    terms = []
    column_terms = []
    patsy_name_of = {}
    for term in design_info.terms:
        if term == patsy.INTERCEPT:
            continue
        name = _term_display_name(term)
        if name in patsy_name_of:
            raise _formula_error(
                formula,
                f"terms {patsy_name_of[name]!r} and {term.name()!r} both stand for "
                f"the column {name!r}; use one of them",
            )
        patsy_name_of[name] = term.name()
        terms.append(name)
        term_slice = design_info.slice(term)
        column_terms.extend([name] * (term_slice.stop - term_slice.start))
    return terms, column_terms


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
    response_names = [label_name(name) for name in _string_list("response_names", response_names,
                                                                   labels=True)]
    term_names = _string_list("term_names", term_names)
    left_parts = []
    for name in response_names:
        if name.isidentifier():
            left_parts.append(name)
        else:
            left_parts.append(_backtick_name(name))
    right_parts = []
    for name in term_names:
        if _is_bare_name(name):
            right_parts.append(name)
        else:
            right_parts.append(_backtick_name(name))
    if not right_parts:
        right_parts = ["1"]
    if not left_parts:
        return "~ " + " + ".join(right_parts)  # one-sided, as R writes a formula without a response
    return " + ".join(left_parts) + " ~ " + " + ".join(right_parts)


def _string_list(argument: str, values, labels: bool = False) -> list[str]:
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


def term_frame(model_frame: ModelFrame, terms: list[str], data: pd.DataFrame) -> pd.DataFrame:
    """The requested terms evaluated on (possibly new) data, one block per term.

    Parameters
    ----------
    model_frame : ModelFrame
        The result of :func:`parse_formula`.
    terms : list of str
        Term names from ``model_frame.terms``, in the order wanted.
    data : pandas.DataFrame
        Data with the columns the terms use; every row is kept.

    Returns
    -------
    pandas.DataFrame
        Indexed like ``data``.  A term that is a plain column (``x``,
        `` `x` ``, ``C(x)``) contributes the column itself, dtype kept (a
        categorical stays categorical), except that a numeric term's column of text
        numbers or ``Decimal`` values is read as numbers, as the fit read it (with the
        fit's ``na_values``).  Any other term (``np.log(c)``,
        ``a:b``) contributes its design columns, computed by patsy from
        ``model_frame.design_info`` and named like ``model_frame.column_names``;
        rows where such a term cannot be evaluated (missing values) hold NaN.

    Raises
    ------
    ValueError
        For a term name that is not in ``model_frame.terms`` (the message lists
        them) or asked for twice.
    FormulaError
        If ``data`` lacks columns the terms need (named in the message), or
        patsy cannot evaluate a term on it (e.g. a new category level).
    """
    if not isinstance(model_frame, ModelFrame):
        raise TypeError(f"model_frame must be a ModelFrame, got {type(model_frame).__name__}")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    terms = _string_list("terms", terms)
    formula = model_frame.formula

    # Without design_info every term is a plain column named by the term (the fast paths).
    patsy_term_of = _patsy_terms_by_name(model_frame) if model_frame.design_info is not None else None
    known = set(model_frame.terms)
    unknown = [name for name in terms if name not in known]
    if unknown:
        raise ValueError(
            f"unknown term(s) {_quote_list(unknown)}; the terms of {formula!r} are "
            f"{_quote_list(model_frame.terms)}"
        )
    repeated = sorted(name for name, count in Counter(terms).items() if count > 1)
    if repeated:
        raise ValueError(f"term(s) {_quote_list(repeated)} requested more than once")

    def present(name):  # a column of data, found by its label at the fit
        label = model_frame.label(name)
        try:
            return label in data.columns
        except TypeError:
            return False

    def plain_column(name):
        return name if patsy_term_of is None else _term_plain_column(patsy_term_of[name])

    missing_columns = {}
    for name in terms:
        column = plain_column(name)
        needed = [column] if column is not None else _columns_needed(patsy_term_of[name], present)
        for column in needed:
            if not present(column):
                missing_columns[column] = None
    if missing_columns:
        raise _formula_error(formula, f"data has no column(s) {_quote_list(missing_columns)}")

    # The columns the fit read as numbers (text numbers, Decimal) are read so on the new data too,
    # with the fit's na_values.
    if model_frame.number_columns:
        data, _, _ = read_number_columns(data, [model_frame.label(column) for column in model_frame.number_columns
                                                if present(column)], model_frame.na_values, required=True)

    computed = [name for name in terms if plain_column(name) is None]
    work = None
    if computed:
        needed = {}
        for name in computed:
            for column in _columns_needed(patsy_term_of[name], present):
                if present(column):
                    needed[column] = None
        # The columns the computed terms read, under their formula names.
        work = pd.DataFrame({column: data[model_frame.label(column)] for column in needed}, index=data.index)
        if model_frame.formula_mode == "safe":
            # The terms were checked when the formula was read; checked again here, so that no
            # ModelFrame built or altered otherwise evaluates code that the safe mode refuses.
            _check_factor_codes(formula, [patsy_term_of[name] for name in computed], list(needed))

    if not terms:
        return pd.DataFrame(index=data.index)
    if not computed:
        return data.loc[:, [model_frame.label(name) for name in terms]]
    blocks, labels = [], []
    for name in terms:
        column = plain_column(name)
        if column is not None:
            label = model_frame.label(column)
            blocks.append(data[label].rename(label))
            labels.append(label)
        else:
            block = _evaluate_term(model_frame, patsy_term_of[name], work)
            blocks.append(block)
            labels.extend(block.columns)
    frame = pd.concat(blocks, axis=1)
    if model_frame.column_labels:
        frame.columns = pd.Index(labels, dtype=object, tupleize_cols=False)
    return frame


def _patsy_terms_by_name(model_frame: ModelFrame) -> dict:
    """Map the ModelFrame's term names to patsy's Term objects (design order)."""
    return dict(zip(model_frame.terms, model_frame.patsy_terms))


def _columns_needed(patsy_term, is_column) -> list[str]:
    """The data columns evaluating the term needs.

    A name the term reads is taken as a column unless it is numpy, a patsy
    builtin or a Python builtin that is not a column (``is_column(name)``).
    """
    plain = _term_plain_column(patsy_term)
    if plain is not None:
        return [plain]
    needed = []
    for name in _term_references(patsy_term):
        if is_column(name) or (name not in _KNOWN_NAMES and name not in _PYTHON_BUILTINS):
            needed.append(name)
    return needed


def _evaluate_term(model_frame: ModelFrame, patsy_term, data: pd.DataFrame) -> pd.DataFrame:
    """The design columns of one term evaluated by patsy on ``data`` (columns under formula names)."""
    columns = [name for name in _columns_needed(patsy_term, data.columns.__contains__) if name in data.columns]
    frame = _patsy_frame(data, columns, np.arange(len(data)))
    term_design = model_frame.design_info.subset([patsy_term])
    try:
        (block,) = patsy.build_design_matrices(
            [term_design], frame, NA_action="drop", return_type="dataframe"
        )
    except patsy.PatsyError as error:
        raise _formula_error(model_frame.formula, _patsy_problem(error)) from None
    block.columns = _display_column_names(_r_column_names(term_design, list(block.columns)))
    # Rows patsy dropped for missing values come back as NaN.
    block = block.reindex(np.arange(len(data)))
    block.index = data.index
    return block

"""The safe formula mode: which Python code a formula may hold before anything evaluates it.

A formula's terms hold Python code (``np.log(c)``, ``I(a * 2)``) that patsy evaluates with
:func:`eval`.  Where a formula comes from outside (a command line, a web form, a file), that is
arbitrary code execution.  In the safe mode (the default of :func:`fstools.select` and of the
``fstools`` command) a formula may hold only

* column names, bare, in backticks or as ``Q("name")``, and R's ``.``;
* the formula operators ``+ - : * / ^ ( )`` and numbers;
* calls of an allow-list of functions: :data:`SAFE_FUNCTIONS` (``C``, ``factor``, ``I``, ``Q``,
  R's ``log``, ``exp``, ``sqrt``, ``scale``, ``poly``, ...) and ``np.<f>`` for the pure numeric
  NumPy functions of :data:`NUMPY_FUNCTIONS`, with arithmetic and comparisons inside;
* the constants ``TRUE``, ``FALSE``, ``True``, ``False`` and ``pi``;
* string literals only as the column name of ``Q("...")`` and as the reference level of
  ``Treatment("...")`` (both are looked up, never evaluated).

Everything else is refused before patsy sees the formula: other attribute access, names that
start with ``__`` or contain it, builtins (``eval``, ``open``, ``__import__``, ``getattr``, ...),
subscripts, lambdas, comprehensions, ``:=``, f-strings, bytes, comments, keywords,
identifiers that Unicode normalisation (NFKC) would change (``ｅval`` is ``eval`` to Python).

Two independent checks run: :func:`source_problem` scans the Python tokens of the whole
right-hand side, and :func:`expression_problem` walks the syntax tree of each piece of code
that patsy would evaluate (every factor), allowing only listed node types and names.  Evaluation
then happens in a namespace where numpy is replaced by an object holding only the allowed
functions and every Python builtin name is shadowed.

This module imports neither patsy nor the rest of fstools: it is plain :mod:`ast` and
:mod:`tokenize`.
"""
from __future__ import annotations

import ast
import builtins
import io
import keyword
import tokenize
import unicodedata

__all__ = ["FORMULA_MODES", "SAFE_FUNCTIONS", "NUMPY_FUNCTIONS", "SAFE_CONSTANTS", "check_mode",
           "source_problem", "expression_problem", "bare_dotted_columns", "column_set", "SAFE_MODE_HINT"]

#: Accepted values of ``formula_mode``: ``"safe"`` (the allow-list) or ``"code"`` (any Python).
FORMULA_MODES = ("safe", "code")

#: What the messages of the safe mode tell the user to do if the code is meant.
SAFE_MODE_HINT = ("refused in the safe formula mode (formulas may hold column names, formula "
                  "operators, numbers and allowed functions only); if the formula is trusted "
                  "code, use formula_mode='code' (command line: --allow-code)")

#: Functions a safe formula may call by bare name: patsy's coding and quoting helpers, R's
#: numeric functions (provided by fstools with R's semantics) and the contrasts of ``C()``.
SAFE_FUNCTIONS = frozenset({
    "C", "factor", "I", "Q",
    "Treatment", "Sum", "Helmert", "Diff", "Poly",
    "log", "log2", "log10", "log1p", "exp", "expm1", "sqrt", "abs", "sign",
    "floor", "ceiling", "round", "trunc", "sin", "cos", "tan", "sinh", "cosh", "tanh",
    "scale", "center", "standardize", "poly",
    "as_factor", "as_numeric", "as_integer", "as_character",
})

def _as_written(function):
    """A safe function's name as a formula writes it: R's ``as.factor`` for the code's ``as_factor``."""
    return "as." + function[len("as_"):] if function.startswith("as_") else function


#: NumPy functions a safe formula may call as ``np.<name>``: elementwise and pure numeric.
NUMPY_FUNCTIONS = frozenset({
    "log", "log2", "log10", "log1p", "exp", "exp2", "expm1", "sqrt", "cbrt", "square",
    "abs", "absolute", "fabs", "sign", "floor", "ceil", "round", "rint", "trunc",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
    "arcsinh", "arccosh", "arctanh", "power", "maximum", "minimum", "clip", "reciprocal",
})

#: Names that stand for constants in a safe formula (R's logical constants among them).
SAFE_CONSTANTS = frozenset({"TRUE", "FALSE", "pi"})

#: Functions whose string argument is a name that is looked up, never evaluated.
_STRING_ARGUMENT_FUNCTIONS = frozenset({"Q", "Treatment"})

_ALLOWED_OPERATORS = frozenset({"+", "-", "*", "/", "**", "//", "%", ":", "(", ")", ",", "=",
                                "<", ">", "<=", ">=", "==", "!=", "."})
_BINARY_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.FloorDiv, ast.Mod)
_UNARY_OPERATORS = (ast.UAdd, ast.USub)
_COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)

#: Plain-words names of node types that people try, for the messages.
_NODE_WORDS = {
    ast.Attribute: "attribute access", ast.Subscript: "subscripts ([...])",
    ast.Lambda: "lambda", ast.ListComp: "comprehensions", ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions", ast.GeneratorExp: "generator expressions",
    ast.NamedExpr: "assignment expressions (:=)", ast.JoinedStr: "f-strings",
    ast.FormattedValue: "f-strings", ast.Starred: "* unpacking", ast.IfExp: "if-expressions",
    ast.BoolOp: "and/or", ast.List: "lists", ast.Tuple: "tuples", ast.Dict: "dicts",
    ast.Set: "sets", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield",
    ast.Slice: "slices",
}


def column_set(columns) -> frozenset:
    """The column names as a frozenset of strings; a frozenset is used as it is.

    The checks run once per factor of a formula: callers that check many factors against the
    same columns pass a frozenset built once, so that a wide frame is not copied per factor.
    """
    if isinstance(columns, frozenset):
        return columns
    return frozenset(str(column) for column in columns)


def check_mode(formula_mode) -> str:
    """The mode, checked: ``"safe"`` or ``"code"`` (ValueError otherwise)."""
    if not isinstance(formula_mode, str) or formula_mode not in FORMULA_MODES:
        raise ValueError(f"formula_mode: must be one of 'safe', 'code'; got {formula_mode!r}")
    return formula_mode


def _is_dunder_like(name: str) -> bool:
    """Names never allowed in safe code: anything holding ``__`` (``__class__``, ``x__y``)."""
    return "__" in name


def _name_problem(name: str) -> str | None:
    """Why an identifier as written may not appear in safe code, or None."""
    normalised = unicodedata.normalize("NFKC", name)
    if normalised != name:
        return (f"identifier {name!r} is not in Unicode normal form NFKC (Python reads it as "
                f"{normalised!r}); write column names with such characters in backticks")
    if _is_dunder_like(name):
        return f"name {name!r} (names holding '__'; write such a column in backticks)"
    if keyword.iskeyword(name) and name not in ("True", "False"):
        return f"the Python keyword {name!r}"
    return None


def _column_runs(tokens, columns) -> set:
    """Indices of tokens that together spell a column name written bare.

    R names such as ``Sepal.Length`` or ``class`` may be written bare as whole terms; they
    are runs of names and dots without spaces (``Sepal`` ``.`` ``Length``).  A run whose text
    is a column is read as that column, so its tokens are not checked one by one.  (Inside a
    call such a name needs backticks: the check of the factor code refuses it there.)
    """
    covered = set()
    index = 0
    while index < len(tokens):
        if tokens[index].type != tokenize.NAME:
            index += 1
            continue
        end = index
        while (end + 2 < len(tokens) and tokens[end + 1].string == "."
               and tokens[end + 2].type in (tokenize.NAME, tokenize.NUMBER)
               and tokens[end].end == tokens[end + 1].start
               and tokens[end + 1].end == tokens[end + 2].start):
            end += 2
        for stop in range(end, index - 1, -1):
            text = "".join(token.string for token in tokens[index:stop + 1])
            if text in columns:
                covered.update(range(index, stop + 1))
                break
        index = end + 1
    return covered


def bare_dotted_columns(code: str, columns) -> list[str]:
    """Column names that are not Python names (``a.b``) written bare in ``code``."""
    try:
        tokens = [token for token in tokenize.generate_tokens(io.StringIO(code).readline)
                  if token.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER)]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    columns = column_set(columns)
    covered = sorted(_column_runs(tokens, columns))
    found = []
    for index in covered:
        if index - 1 in covered:
            continue
        stop = index
        while stop + 1 in covered:
            stop += 1
        text = "".join(token.string for token in tokens[index:stop + 1])
        if not text.isidentifier() and text not in found:
            found.append(text)
    return found


def source_problem(code: str, columns=()) -> str | None:
    """Scan the Python tokens of formula code (the whole right-hand side); the problem or None.

    This check knows nothing of patsy's grammar: it refuses any token that no safe formula
    needs, wherever it stands, except the tokens of a column name written bare (``class``,
    ``Sepal.Length``; see :func:`_column_runs`).  Tokens Python cannot read are left to the
    parser, whose error is then reported (they can never be evaluated).
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    significant = [token for token in tokens
                   if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                         tokenize.DEDENT, tokenize.ENDMARKER)]
    columns = column_set(columns)
    in_column = _column_runs(significant, columns)
    for index, token in enumerate(significant):
        text = token.string
        if index in in_column:
            continue
        if token.type == tokenize.NAME:
            problem = _name_problem(text)
            if problem:
                return problem
        elif token.type == tokenize.STRING:
            prefix = text[: len(text) - len(text.lstrip("rRbBuUfF"))]
            if prefix:
                return f"the string prefix {prefix!r} in {text!r} (plain string literals only)"
        elif token.type == tokenize.OP:
            if text not in _ALLOWED_OPERATORS:
                return f"the operator {text!r}"
            if text == ".":
                before = significant[index - 1] if index > 0 else None
                after = significant[index + 1] if index + 1 < len(significant) else None
                if (before is None or before.string != "np" or after is None
                        or after.type != tokenize.NAME or after.string not in NUMPY_FUNCTIONS):
                    shown = (before.string if before else "") + "." + (after.string if after else "")
                    return (f"attribute access {shown!r} (the only dotted names allowed are "
                            f"np.<numeric function>; a column name with a dot goes in backticks "
                            f"inside a call)")
        elif token.type == tokenize.COMMENT:
            return "a comment ('#')"
        elif token.type in (tokenize.NUMBER, tokenize.ERRORTOKEN):
            continue
        else:
            return f"the token {text!r}"
    return None


def expression_problem(code: str, columns) -> str | None:
    """Walk the syntax tree of one factor's code; the first problem or None.

    ``columns`` holds the data's column names: a bare name must be a column, a constant of
    :data:`SAFE_CONSTANTS` or (called) a function of :data:`SAFE_FUNCTIONS`; ``Q("name")`` must
    name a column.
    """
    problem = source_problem(code, columns)
    if problem:
        return problem
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except SyntaxError as error:
        return f"invalid expression {code.strip()!r}: {error.msg}"
    return _NodeChecker(column_set(columns)).problem(tree.body)


class _NodeChecker:
    """The allow-list walk over one expression's syntax tree."""

    def __init__(self, columns: frozenset):
        self.columns = columns

    def problem(self, node: ast.AST, strings_allowed: bool = False) -> str | None:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or isinstance(value, (int, float)):
                return None
            if isinstance(value, str) and strings_allowed:
                return None
            if isinstance(value, str):
                return (f"the string literal {value!r} (strings are allowed only as the column "
                        f"name of Q(\"...\") and the level of Treatment(\"...\"))")
            return f"the literal {value!r} of type {type(value).__name__}"
        if isinstance(node, ast.Name):
            return self._name(node)
        if isinstance(node, ast.BinOp):
            if not isinstance(node.op, _BINARY_OPERATORS):
                return f"the operator {type(node.op).__name__}"
            return self.problem(node.left) or self.problem(node.right)
        if isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, _UNARY_OPERATORS):
                return f"the operator {type(node.op).__name__}"
            return self.problem(node.operand)
        if isinstance(node, ast.Compare):
            for operator in node.ops:
                if not isinstance(operator, _COMPARISONS):
                    return f"the comparison {type(operator).__name__}"
            for part in [node.left, *node.comparators]:
                found = self.problem(part)
                if found:
                    return found
            return None
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Attribute):
            return f"attribute access '.{node.attr}' (only np.<function> calls)"
        word = _NODE_WORDS.get(type(node), f"Python syntax {type(node).__name__}")
        return word

    def _name(self, node: ast.Name) -> str | None:
        name = node.id
        if not isinstance(node.ctx, ast.Load):
            return f"assignment to {name!r}"
        if unicodedata.normalize("NFKC", name) == name and name in self.columns:
            return None  # a column: looked up in the data first, whatever its name
        problem = _name_problem(name)
        if problem:
            return problem
        if name in SAFE_CONSTANTS:
            return None
        if name in SAFE_FUNCTIONS:
            return f"the function {name!r} used as a value (it can only be called)"
        if name == "np":
            return "'np' used as a value (only np.<function>(...) calls)"
        if hasattr(builtins, name):
            return f"the Python builtin {name!r}"
        return f"the name {name!r} (neither a column nor an allowed function)"

    def _call(self, node: ast.Call) -> str | None:
        function = node.func
        if isinstance(function, ast.Name):
            name = function.id
            problem = _name_problem(name)
            if problem:
                return problem
            if name not in SAFE_FUNCTIONS:
                if hasattr(builtins, name):
                    return f"a call of the Python builtin {name!r}"
                return (f"a call of {name!r}, which is not an allowed function (allowed: "
                        f"{', '.join(sorted(map(_as_written, SAFE_FUNCTIONS)))}, np.<function>)")
        elif isinstance(function, ast.Attribute):
            if not (isinstance(function.value, ast.Name) and function.value.id == "np"
                    and function.attr in NUMPY_FUNCTIONS):
                return (f"a call of '.{function.attr}' (only np.<function> for "
                        f"{', '.join(sorted(NUMPY_FUNCTIONS))})")
            name = "np." + function.attr
        else:
            return "a call of a computed function (only named functions may be called)"
        if name == "Q":
            if (len(node.args) != 1 or node.keywords or not isinstance(node.args[0], ast.Constant)
                    or not isinstance(node.args[0].value, str)):
                return 'Q() other than Q("column name")'
            if node.args[0].value not in self.columns:
                return f"Q({node.args[0].value!r}), which names no column"
            return None
        strings_allowed = name in _STRING_ARGUMENT_FUNCTIONS
        for argument in node.args:
            if isinstance(argument, ast.Starred):
                return "* unpacking"
            found = self.problem(argument, strings_allowed)
            if found:
                return found
        for keyword_argument in node.keywords:
            if keyword_argument.arg is None:
                return "** unpacking"
            problem = _name_problem(keyword_argument.arg)
            if problem:
                return problem
            found = self.problem(keyword_argument.value, strings_allowed)
            if found:
                return found
        return None

"""What the code of a patsy term reads: the names it refers to, and the column it is made of.

A term's factors are Python code (``x``, ``Q("my col")``, ``C(g)``, ``np.log(c)``).  These
functions read that code's syntax tree, never evaluate it: which names it reads as data
(:func:`code_references`), whether it is one plain column (:func:`plain_column`) and whether it
asks for categorical coding (:func:`is_categorical_code`).
"""
from __future__ import annotations

import ast

from fstools.model.formula.names import quoted_name

__all__ = ["code_references", "code_names", "is_categorical_code", "plain_column", "term_plain_column", "term_references"]


def code_references(expression: ast.expr) -> list[tuple[str, bool]]:
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
        quoted = quoted_name(node) if isinstance(node, ast.expr) else None
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


#: The functions that ask for categorical coding: patsy's ``C`` and R's ``factor`` and ``as.factor``.
_CODING_FUNCTIONS = frozenset({"C", "factor", "as_factor"})


def is_categorical_code(code: str) -> bool:
    """True for a factor written ``C(...)`` or ``factor(...)`` (categorical coding asked for)."""
    try:
        expression = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return False
    return (isinstance(expression, ast.Call) and isinstance(expression.func, ast.Name)
            and expression.func.id in _CODING_FUNCTIONS)


def plain_column(code: str) -> str | None:
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
    return quoted_name(expression)


def term_plain_column(term) -> str | None:
    """The column a patsy term is made of (a one-factor plain column), else None."""
    if len(term.factors) != 1:
        return None
    code = getattr(term.factors[0], "code", None)
    if code is None:
        return None
    return plain_column(code)


def code_names(code: str) -> list[str]:
    """The names a factor's code reads as data (:func:`code_references`, in order, repeats kept);
    none for code that does not parse as a Python expression."""
    try:
        expression = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return []
    return [name for name, _quoted in code_references(expression)]


def term_references(term) -> list[str]:
    """All names the factors of a patsy term read as data (columns or not)."""
    names = []
    for factor in term.factors:
        code = getattr(factor, "code", None)
        if code is None:
            continue
        for name in code_names(code):
            if name not in names:
                names.append(name)
    return names

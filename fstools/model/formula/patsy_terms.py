"""Stage 2, terms: the right-hand side as patsy's terms, every name and (in the safe mode) all code checked.

:func:`read_terms` writes the right-hand side as patsy code (:func:`translate_rhs`: R's ``.``
becomes the other columns, `` `name` `` a column's code, ``^`` patsy's ``**``), parses it with
patsy, checks that every name it reads is a column or a known function, refuses R functions
fstools does not provide, and in the safe mode passes all code through the allow-list of
:mod:`fstools.model.formula.safe_eval` before anything is evaluated.  It hands on the terms and
the data columns they read.
"""
from __future__ import annotations

import ast
from typing import NamedTuple

import pandas as pd
import patsy
from patsy.infix_parser import ParseNode
from patsy.parse_formula import parse_formula as _patsy_parse_formula

from fstools.model.formula.lexer import (CLOSING_BRACKETS, OPENING_BRACKETS, Token, is_standalone_dot, opens_call,
                                         token_text)
from fstools.model.formula.messages import (formula_error, patsy_problem, quote_list, safe_mode_error,
                                            unknown_columns_problem)
from fstools.model.formula.names import (R_DOTTED_FUNCTIONS, ColumnNames, backtick_name, column_code, quoted_name,
                                         r_dotted_call)
from fstools.model.formula.namespace import KNOWN_NAMES, PYTHON_BUILTINS
from fstools.model.formula.r_coding import r_term_order
from fstools.model.formula.safe_eval import bare_dotted_columns, column_set, expression_problem, source_problem
from fstools.model.formula.syntax import Syntax
from fstools.model.formula.term_code import code_names, code_references, plain_column, term_plain_column, term_references

__all__ = ["Terms", "read_terms", "translate_rhs", "rhs_terms", "outside_terms", "check_factor_codes",
           "predictor_columns"]


class Terms(NamedTuple):
    """The right-hand side as patsy's terms (stage 2)."""

    #: patsy's Term objects, in R's order (by their number of factors, then as R's ``terms()``
    #: makes them), intercept left out (never empty).
    patsy_terms: list
    #: The data columns the terms read, in order of first use: present, no response among them,
    #: each of a kind a predictor can be.
    predictors: list
    #: patsy factors R evaluates though they give no column (:func:`outside_terms`): the
    #: computed factors of removed terms (``log(x1)`` in ``y ~ x2 - log(x1)``) and the operands
    #: of comparisons (``log(x1)`` in ``I(log(x1) > 0)``), where a missing value is a missing row.
    evaluated: tuple = ()
    #: The data columns ``evaluated`` reads that no term reads (``x1`` in ``y ~ x2 - log(x1)``).
    evaluated_columns: tuple = ()


def read_terms(formula: str, data: pd.DataFrame, syntax: Syntax, formula_mode: str = "safe",
               names: ColumnNames | None = None) -> Terms:
    """Stage 2: the terms of the right-hand side of ``syntax`` and the columns they read.

    Raises
    ------
    FormulaError
        For an unknown name, code that the safe mode refuses, a syntax error, a response on the
        right, or a right-hand side that leaves no terms.
    TypeError
        For a predictor column of a kind that cannot be one (e.g. datetime).
    """
    code = translate_rhs(formula, syntax.rhs, data, syntax.responses)
    leaves = []
    patsy_terms = rhs_terms(formula, code, data.columns, formula_mode, names, leaves)
    if not patsy_terms:
        raise formula_error(formula, "no predictors: the right-hand side leaves no terms")
    predictors = predictor_columns(formula, patsy_terms, data, syntax.responses)
    evaluated, evaluated_columns = outside_terms(patsy_terms, leaves, data.columns)
    evaluated_columns = [column for column in evaluated_columns
                         if column not in predictors and column not in syntax.responses]
    return Terms(patsy_terms, predictors, tuple(evaluated), tuple(evaluated_columns))


#: Text that a comparison's code holds (``<``, ``>``, ``==``, ``!=``, ``in``, ``is``).
_COMPARISON_TEXT = ("<", ">", "=", " in ", " is ")


def outside_terms(patsy_terms: list, leaves: list[str], columns) -> tuple[list, list]:
    """What R evaluates besides the terms' factors: (patsy factors, data columns).

    R's ``model.frame()`` evaluates every variable of a formula, those of removed terms too
    (``y ~ x2 - log(x1)`` drops the rows where ``log(x1)`` is NaN, ``y ~ x1 - poly(x1, 0)`` is an
    error), and a comparison with a missing value is missing (``I(log(x1) > 0)`` drops the rows
    where ``log(x1)`` is NaN; NumPy would give False).  fstools evaluates the computed variables
    of removed terms as R does; a removed column (``y ~ . - id``, ``- factor(n)``) is left out
    altogether, its missing values too (fstools' documented way to leave out a column, where R
    would still drop the rows it misses).

    Parameters
    ----------
    patsy_terms : list of patsy.Term
        The terms kept.
    leaves : list of str
        The code of every variable of the right-hand side (:func:`rhs_terms`), removed ones too.
    columns : collection of str
        The data's columns (formula names).

    Returns
    -------
    tuple of (list of patsy.EvalFactor, list of str)
        The factors to evaluate beside the terms: the computed variables of removed terms and
        the operands of comparisons that read data; and the data columns the computed variables
        of removed terms read.
    """
    kept = {factor for term in patsy_terms for factor in term.factors}
    kept_codes = {factor.code for factor in kept}
    evaluated, removed = [], []
    for code in leaves:
        if code.strip() in kept_codes:
            continue  # (most leaves: a factor's code as written, no EvalFactor to build)
        factor = patsy.EvalFactor(code)
        if factor in kept:
            continue
        read = [name for name in code_names(code) if name in columns]
        if read and plain_column(code) is None and factor not in evaluated:
            evaluated.append(factor)
            removed.extend(name for name in read if name not in removed)
    for factor in kept:
        if not any(operator in factor.code for operator in _COMPARISON_TEXT):
            continue
        try:
            expression = ast.parse(factor.code, mode="eval").body
        except SyntaxError:
            continue
        for node in ast.walk(expression):
            if not isinstance(node, ast.Compare):
                continue
            for operand in [node.left, *node.comparators]:
                if any(name in columns for name, _quoted in code_references(operand)):
                    operand_factor = patsy.EvalFactor(ast.unparse(operand))
                    if operand_factor not in evaluated:
                        evaluated.append(operand_factor)
    return evaluated, removed


def _dot_expansion(formula: str, data: pd.DataFrame, responses: list[str]) -> str:
    """patsy code for R's ``.``: all non-response columns, in column order."""
    excluded = set(responses)
    codes = [column_code(column) for column in data.columns if column not in excluded]
    if not codes:
        raise formula_error(
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


def translate_rhs(formula: str, rhs: list[Token], data: pd.DataFrame, responses: list[str]) -> str:
    """Rewrite the right-hand side into patsy code.

    R's ``.`` becomes the non-response columns, `` `name` `` (resolved by stage 1) becomes the
    column's code (bare name or ``Q("name")``), R's ``as.factor()``, ``as.numeric()``,
    ``as.integer()`` and ``as.character()`` the Python names of their functions
    (:data:`fstools.model.formula.names.R_DOTTED_FUNCTIONS`) and R's ``^`` becomes ``**``: between
    terms that is patsy's crossing (R's ``(a + b)^2``), inside a call (``I(x^2)``,
    ``log(x^2)``) Python's power, as in R (never Python's XOR).  R's ``%in%`` is
    refused with a message.  The rest is kept as written.
    """
    # For each bracket open at this point: does it belong to a call or index
    # (where '.' cannot stand for columns) rather than a grouping?
    call_brackets = []
    pieces = []
    skip = 0
    for index, token in enumerate(rhs):
        if skip:
            skip -= 1
            continue
        if token.kind == "char" and token.text in CLOSING_BRACKETS:
            call_brackets.pop()
        dotted = (r_dotted_call(token_text(rhs[index:index + 16]))
                  if token.kind == "char" and token.text == "a" and not _continues_a_name(rhs, index) else None)
        if dotted is not None:  # R's as.factor(...): the Python name of the function
            pieces.append(R_DOTTED_FUNCTIONS[dotted])
            skip = len(dotted) - 1
        elif token.kind == "backtick":
            pieces.append(column_code(token.name))
        elif token.kind == "char" and token.text == "^":
            pieces.append("**")
        elif token.kind == "char" and token.text == "%" and token_text(rhs[index:index + 4]) == "%in%":
            raise formula_error(
                formula,
                "R's '%in%' (nesting) is not supported; write the nesting with '/' "
                "(a/b is a + a:b) or the interaction with ':'",
            )
        elif token.kind == "char" and token.text == "." and is_standalone_dot(rhs, index):
            if any(call_brackets):
                raise formula_error(
                    formula,
                    "'.' (all other columns) can be a term, not a function argument",
                )
            pieces.append(_dot_expansion(formula, data, responses))
        else:
            pieces.append(token.text)
        if token.kind == "char" and token.text in OPENING_BRACKETS:
            is_call = token.text != "(" or opens_call(rhs, index)
            call_brackets.append(is_call)
    return "".join(pieces)


def _continues_a_name(tokens: list[Token], index: int) -> bool:
    """True when the token at ``index`` follows a letter, digit, ``_``, ``.`` or backtick name."""
    if index == 0:
        return False
    before = tokens[index - 1]
    return before.kind != "char" or before.text.isalnum() or before.text in "_."


def _parse_code(formula: str, code: str) -> ast.expr:
    """Parse the Python code of one formula factor (FormulaError if invalid)."""
    try:
        return ast.parse(code.strip(), mode="eval").body
    except SyntaxError as error:
        raise formula_error(formula, f"invalid expression {code.strip()!r}: {error.msg}") from None


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
    for name, quoted in code_references(expression):
        if name in columns:
            continue
        if quoted or (name not in KNOWN_NAMES and name not in PYTHON_BUILTINS):
            unknown.append(name)
    return unknown


def _r_refusal(formula: str, expression: ast.expr) -> None:
    """FormulaError for R formula functions fstools does not provide (``offset()``)."""
    for node in ast.walk(expression):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "offset"):
            raise formula_error(
                formula,
                "R's offset() is not supported: an offset is a term with a fixed "
                "coefficient of 1 in a fitted model, which has no meaning for feature "
                "selection; leave it out",
            )


def rhs_terms(formula: str, rhs_code: str, columns, formula_mode: str = "safe",
              names: ColumnNames | None = None, leaves: list | None = None) -> list:
    """Parse the translated right-hand side into patsy terms (no intercept), in R's order
    (:func:`fstools.model.formula.r_coding.r_term_order`).

    Every name the code reads (also in removed terms such as ``- zz``) must be
    a column or a known name.  Leaves that name a column are rewritten to the
    code the ``.`` expansion uses for it, so that ``. - Q('a')`` removes ``a``,
    and so that R names such as ``Sepal.Length`` or ``class`` (a Python
    keyword) read the column of that name.

    In the safe mode the code is checked three times before anything evaluates
    it: the tokens of the whole right-hand side (before patsy parses it), the
    syntax tree of each piece of Python code patsy found between the formula
    operators, and the code of each factor of the final terms (what patsy
    passes to ``eval``).  ``leaves``, when given, receives the code of every variable of the
    right-hand side (those of removed terms too), as the terms' factors are written.
    """
    safe = formula_mode == "safe"
    columns = column_set(columns)  # once: every check below looks names up in it
    if safe:
        problem = source_problem(rhs_code, columns)
        if problem:
            raise safe_mode_error(formula, problem)
    try:
        tree = _patsy_parse_formula(rhs_code)
    except patsy.PatsyError as error:
        raise formula_error(formula, patsy_problem(error)) from None

    unknown = []
    for leaf in _python_leaves(tree):
        code = leaf.token.extra.strip()
        if code in columns:
            leaf.token.extra = column_code(code)
            continue
        dotted = bare_dotted_columns(code, columns)
        if dotted:
            raise formula_error(
                formula,
                f"the column {dotted[0]!r} is written bare inside an expression, where the "
                f"dot would be read as Python; write it in backticks: {backtick_name(dotted[0])}",
            )
        expression = _parse_code(formula, code)
        quoted = quoted_name(expression)
        if quoted is not None and quoted not in columns and names is not None:
            quoted = names.resolve(quoted)  # a tuple label written as Python prints it
            if quoted in columns:
                leaf.token.extra = column_code(quoted)
                continue
        for name in _unknown_names(expression, columns):
            if name not in unknown:
                unknown.append(name)
        _r_refusal(formula, expression)
        if quoted is not None:
            leaf.token.extra = column_code(quoted)
    if unknown:
        raise formula_error(formula, unknown_columns_problem(unknown, columns))
    if safe:
        for leaf in _python_leaves(tree):
            problem = expression_problem(leaf.token.extra, columns)
            if problem:
                raise safe_mode_error(formula, problem)

    if leaves is not None:
        leaves.extend(leaf.token.extra for leaf in _python_leaves(tree))
    try:
        tree = r_empty_products(tree)
        model_description = patsy.ModelDesc.from_formula(tree)
    except patsy.PatsyError as error:
        raise formula_error(formula, patsy_problem(error)) from None
    terms = r_term_order([term for term in model_description.rhs_termlist if term != patsy.INTERCEPT], tree)
    if safe:
        check_factor_codes(formula, terms, columns)
    return terms


def r_empty_products(node):
    """The patsy parse tree with R's reading of ``A * B`` and ``A / B`` where ``A`` has no terms.

    R's ``terms()`` gives no term at all for such a product (``(x1 - x1) * x2``, ``1 * x2``; but
    ``x2`` for ``x2 * (x1 - x1)``): the node becomes ``A`` itself (whose ``1`` or ``0`` still set the
    intercept).  The variables of ``B`` are still the formula's (``rhs_terms``' ``leaves``).
    """
    if node.type == "PYTHON_EXPR" or not node.args:
        return node
    args = [r_empty_products(child) for child in node.args]
    if node.type in ("*", "/") and len(args) == 2:
        left = ParseNode("~", None, [args[0]], args[0].origin)
        if not [term for term in patsy.ModelDesc.from_formula(left).rhs_termlist if term != patsy.INTERCEPT]:
            return args[0]
    if all(new is old for new, old in zip(args, node.args)):
        return node
    return ParseNode(node.type, node.token, args, node.origin)


def check_factor_codes(formula: str, patsy_terms, columns: frozenset) -> None:
    """Safe mode: the code of every factor (what patsy evaluates) passes the allow-list;
    ``columns`` is the :func:`fstools.model.formula.safe_eval.column_set` of the data's columns."""
    for term in patsy_terms:
        for factor in term.factors:
            code = getattr(factor, "code", None)
            if code is None:
                raise safe_mode_error(formula, f"a factor of type {type(factor).__name__}")
            problem = expression_problem(code, columns)
            if problem:
                raise safe_mode_error(formula, problem)


def _python_leaves(node) -> list:
    """The leaves of a patsy parse tree that hold Python code."""
    if node.type == "PYTHON_EXPR":
        return [node]
    leaves = []
    for child in node.args:
        leaves.extend(_python_leaves(child))
    return leaves


_ALLOWED_KINDS = "numeric, boolean, categorical/string"


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


def predictor_columns(
    formula: str, patsy_terms: list, data: pd.DataFrame, responses: list[str]
) -> list[str]:
    """The data columns the terms read, checked: present, not a response, dtype."""
    columns = {}  # an ordered set: the columns in order of first use
    for term in patsy_terms:
        plain = term_plain_column(term)
        if plain is not None and plain not in data.columns:
            raise formula_error(formula, unknown_columns_problem([plain], data.columns))
        for name in term_references(term):
            if name not in columns and name in data.columns:
                columns[name] = None
    columns = list(columns)
    on_both_sides = [name for name in responses if name in columns]
    if on_both_sides:
        raise formula_error(
            formula,
            f"response {quote_list(on_both_sides)} also appears on the right-hand side",
        )
    for column in columns:
        _check_predictor_dtype(formula, column, data[column].dtype)
    return columns

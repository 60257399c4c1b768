"""Stage 1, R syntax: the responses of a formula's left-hand side, and the tokens of its right-hand side.

:func:`read_syntax` splits the formula at its ``~`` (:mod:`fstools.model.formula.lexer`), reads
the responses against the data's columns and resolves the right-hand side's backtick names to the
columns' formula names, once: the later stages read the tokens as they are.
"""
from __future__ import annotations

import re
from typing import NamedTuple

import pandas as pd

from fstools.model.formula.lexer import Token, split_sides, split_top_level, token_text
from fstools.model.formula.messages import columns_listed, formula_error, unknown_columns_problem
from fstools.model.formula.names import ColumnNames, quoted_name_in_code

__all__ = ["Syntax", "read_syntax", "read_responses"]


class Syntax(NamedTuple):
    """A formula read against the data's columns (stage 1)."""

    #: The response columns (formula names), in formula order; empty for a one-sided formula.
    responses: list
    #: The responses written ``C(y)`` or ``factor(y)``.
    factor_responses: list
    #: The right-hand side's tokens (never empty), a backtick name as the formula name of its column.
    rhs: list


def read_syntax(formula: str, data: pd.DataFrame, names: ColumnNames, require_response: bool = True) -> Syntax:
    """Stage 1: the formula split at its ``~``, its responses read and checked against ``data``'s
    columns (formula names), its right-hand side's tokens.

    Raises
    ------
    FormulaError
        For unbalanced brackets or quotes, no or several ``~``, an unknown or repeated response,
        no response (when ``require_response``) or no predictors.
    """
    lhs, rhs = split_sides(formula)
    responses, factors = read_responses(formula, lhs, data, names, require_response)
    if not token_text(rhs).strip():
        raise formula_error(formula, "no predictors on the right of '~'")
    # a backtick name may be a tuple label as Python prints it: the column's formula name
    rhs = [token._replace(name=names.resolve(token.name)) if token.kind == "backtick" else token for token in rhs]
    return Syntax(responses, factors, rhs)


def read_responses(formula: str, lhs: list[Token], data: pd.DataFrame,
                   names: ColumnNames | None = None, require_response: bool = True) -> tuple[list[str], list[str]]:
    """The response columns of the left-hand side, and those of them written as factors.

    Each response is a column name, ``Q("name")`` or `` `name` ``, or one of these inside
    ``C(...)`` / ``factor(...)`` (classes whatever their values); several responses are separated
    by ``+``.  An empty left-hand side is refused when ``require_response``, else it gives no
    responses.  Returns (responses, factor responses), formula names in formula order.
    """
    if not token_text(lhs).strip():
        if not require_response:
            return [], []
        raise formula_error(formula, "no response on the left of '~'")
    responses, factors = [], []
    for piece in split_top_level(formula, lhs, "+"):
        inner, is_factor = _response_piece(piece, data)
        name = _response_name(formula, inner, data, names)
        if name in responses:
            raise formula_error(formula, f"response {name!r} is given twice")
        responses.append(name)
        if is_factor:
            factors.append(name)
    return responses, factors


#: The calls that make a response a factor on the left-hand side (R's ``factor``, patsy's ``C``).
_FACTOR_CALLS = ("C", "factor")


def _response_piece(piece: list[Token], data: pd.DataFrame) -> tuple[list[Token], bool]:
    """:func:`_unwrapped_factor`, except that a column named exactly as written (``C(y)``) is
    that column."""
    if token_text(piece).strip() in data.columns:
        return piece, False
    return _unwrapped_factor(piece)


def _unwrapped_factor(piece: list[Token]) -> tuple[list[Token], bool]:
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


def _response_name(formula: str, piece: list[Token], data: pd.DataFrame,
                   names: ColumnNames | None = None) -> str:
    """The column (formula name) named by one response of the left-hand side.

    An unknown name is refused with a suggestion and the list of the columns.
    """
    resolve = names.resolve if names is not None else (lambda name: name)
    significant = [token for token in piece if not (token.kind == "char" and token.text.isspace())]
    text = token_text(piece).strip()
    if not significant:
        raise formula_error(formula, "empty response: a '+' on the left has nothing beside it")
    if len(significant) == 1 and significant[0].kind == "backtick":
        name = resolve(significant[0].name)
    elif text in data.columns:
        name = text
    else:
        name = quoted_name_in_code(text)
        if name is None:
            if _NAME_LIKE.fullmatch(text):
                raise formula_error(formula, unknown_columns_problem([text], data.columns, True))
            raise formula_error(
                formula,
                f"response {text!r} is not a column name; the left-hand side takes "
                f"column names only (in backticks if they are not identifiers); "
                f"{columns_listed(data.columns)}",
            )
        name = resolve(name)
    if name not in data.columns:
        raise formula_error(formula, unknown_columns_problem([name], data.columns, True))
    return name


#: Text that looks like a column name written bare (``y``, ``Sepal.Length``, ``5``).
_NAME_LIKE = re.compile(r"[\w.]+")

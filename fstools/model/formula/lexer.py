"""Stage 1a, R syntax: a formula's text as tokens, its brackets checked, split at its ``~``.

The lexer knows three kinds of token: a character outside quotes, a whole Python string literal
and an R backtick name (decoded with R's escapes).  Every later stage reads tokens, so a ``~``,
``+`` or ``.`` inside quotes or backticks is never taken for an operator.
"""
from __future__ import annotations

from typing import NamedTuple

from fstools.model.formula.messages import formula_error
from fstools.model.formula.names import BACKTICK_ESCAPES

__all__ = ["OPENING_BRACKETS", "CLOSING_BRACKETS", "Token", "split_top_level", "token_text", "is_standalone_dot",
           "opens_call", "split_sides"]

#: Characters that may stand next to R's ``.`` when it is used as a term.
_TERM_OPERATORS_BEFORE = frozenset("+-*/:(^|%")
_TERM_OPERATORS_AFTER = frozenset("+-*/:)^|%")

OPENING_BRACKETS = {"(": ")", "[": "]", "{": "}"}
CLOSING_BRACKETS = frozenset(OPENING_BRACKETS.values())


class Token(NamedTuple):
    """One piece of formula text.

    ``kind`` is ``"char"`` (a single character outside quotes), ``"string"``
    (a whole Python string literal, ``text`` is its source) or ``"backtick"``
    (an R backtick name, ``name`` is the decoded column name).
    """

    kind: str
    text: str
    name: str | None = None


def _lex(formula: str, text: str) -> list[Token]:
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
            tokens.append(Token("string", text[position:end]))
            position = end
        elif character == "`":
            end, name = _read_backtick(formula, text, position)
            tokens.append(Token("backtick", text[position:end], name))
            position = end
        else:
            tokens.append(Token("char", character))
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
    raise formula_error(formula, f"unclosed quote {quote} at position {start}")


def _read_backtick(formula: str, text: str, start: int) -> tuple[int, str]:
    """Read the R backtick name opening at ``start``: (end index, name)."""
    characters = []
    position = start + 1
    while position < len(text):
        character = text[position]
        if character == "\\" and position + 1 < len(text):
            escaped = text[position + 1]
            characters.append(BACKTICK_ESCAPES.get(escaped, escaped))
            position += 2
        elif character == "`":
            if not characters:
                raise formula_error(formula, "empty backtick name ``")
            if text.startswith("`", position + 1):
                raise formula_error(
                    formula,
                    f"a doubled backtick at position {position}: inside a backtick name a backtick "
                    f"is written with a backslash, as in R (`a\\`b` is the name a`b)")
            return position + 1, "".join(characters)
        else:
            characters.append(character)
            position += 1
    raise formula_error(formula, f"unclosed backtick at position {start}")


def _bracket_depths(formula: str, tokens: list[Token]) -> list[int]:
    """Bracket depth before each token; checks that brackets balance."""
    depths = []
    open_brackets = []
    for token in tokens:
        if token.kind == "char" and token.text in CLOSING_BRACKETS:
            if not open_brackets or OPENING_BRACKETS[open_brackets[-1]] != token.text:
                raise formula_error(formula, f"unmatched {token.text!r}")
            open_brackets.pop()
        depths.append(len(open_brackets))
        if token.kind == "char" and token.text in OPENING_BRACKETS:
            open_brackets.append(token.text)
    if open_brackets:
        raise formula_error(formula, f"unclosed {open_brackets[-1]!r}")
    return depths


def split_top_level(formula: str, tokens: list[Token], separator: str) -> list[list[Token]]:
    """Split tokens at the ``separator`` characters outside brackets and quotes."""
    depths = _bracket_depths(formula, tokens)
    pieces = [[]]
    for token, depth in zip(tokens, depths):
        if token.kind == "char" and token.text == separator and depth == 0:
            pieces.append([])
        else:
            pieces[-1].append(token)
    return pieces


def token_text(tokens: list[Token]) -> str:
    """The formula text the tokens came from."""
    return "".join(token.text for token in tokens)


def _significant_neighbour(tokens: list[Token], index: int, step: int) -> Token | None:
    """The nearest token before (step -1) or after (step +1) that is not blank."""
    position = index + step
    while 0 <= position < len(tokens):
        token = tokens[position]
        if not (token.kind == "char" and token.text.isspace()):
            return token
        position += step
    return None


def is_standalone_dot(tokens: list[Token], index: int) -> bool:
    """Whether the ``.`` at ``index`` is R's "all other columns" term.

    A dot is a term when it stands between formula operators (or at an end),
    so the dots of ``np.log``, ``1.5`` or ``x.attr`` are left alone.
    """
    before = _significant_neighbour(tokens, index, -1)
    after = _significant_neighbour(tokens, index, +1)
    before_ok = before is None or (before.kind == "char" and before.text in _TERM_OPERATORS_BEFORE)
    after_ok = after is None or (after.kind == "char" and after.text in _TERM_OPERATORS_AFTER)
    return before_ok and after_ok


def opens_call(tokens: list[Token], index: int) -> bool:
    """Whether the ``(`` at ``index`` opens a function call (not a grouping)."""
    before = _significant_neighbour(tokens, index, -1)
    if before is None:
        return False
    if before.kind != "char":
        return True
    return before.text.isalnum() or before.text in "_)]"


def split_sides(formula: str) -> tuple[list[Token], list[Token]]:
    """Split the formula at its single top-level ``~`` into (lhs, rhs) tokens."""
    tokens = _lex(formula, formula)
    sides = split_top_level(formula, tokens, "~")
    if len(sides) == 1:
        raise formula_error(formula, "no '~' separating the response from the predictors")
    if len(sides) > 2:
        raise formula_error(formula, f"expected one '~', found {len(sides) - 1}")
    return sides[0], sides[1]

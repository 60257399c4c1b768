"""fstools' formulas against R's own output (R is not needed to run these tests).

``tests/data/r_formulas.R`` wrote ``r_formulas_data.csv`` (numeric, integer, factor and logical
columns, a name with a dot) and, for each formula, R's ``attr(terms(f), "term.labels")`` and the
columns of ``model.matrix(f, df)`` to ``r_formulas_expected.json``.  Here fstools reads the same
formulas on the same data, in both formula modes, and must give the same terms and the same
design columns (R's "(Intercept)" left out: fstools never has one).

The naming map between R and fstools (documented in the README's Formulas section):

* the terms are compared in order (fstools orders them as R does), a term as the set of its
  factors (``a:b`` is ``b:a``; fstools keeps the factor order as written, R orders by first
  appearance), with spaces and backticks ignored and
  fstools' ``**`` read as R's ``^`` (fstools writes term code as Python);
* R's ``factor(x)`` and ``as.factor(x)`` term is fstools' ``x`` (a term that codes one column is
  named by it);
* a design column ``f[T.v]`` (treatment coding) or ``f[v]`` (every level coded) is R's ``fv``,
  ``flag[T.True]`` is R's ``flagTRUE``, ``poly(x, 2)[1]`` is R's ``poly(x, 2)1`` and
  ``Q("a.b")`` is R's ``a.b``.

Where fstools codes a factor differently from R (:data:`DIFFERENT_CODING`), the columns must
span the same space together with the intercept instead of being equal one by one.
"""
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fstools.model.exceptions import FormulaError
from fstools.model.formula import parse_formula

DATA_DIR = Path(__file__).parent / "data"
EXPECTED = json.loads((DATA_DIR / "r_formulas_expected.json").read_text())["formulas"]
DATA = pd.read_csv(DATA_DIR / "r_formulas_data.csv")

#: Formulas R accepts and fstools refuses, with the words of fstools' message.
REFUSED = {
    "y ~ x1 + offset(x2)": "offset() is not supported",
    "y ~ x1 %in% f": "'%in%' (nesting) is not supported",
    "y ~ log(a.b)": "write it in backticks: `a.b`",  # a dotted name inside a call
}

#: Formulas where fstools (patsy) codes factors differently from R, and why.
DIFFERENT_CODING = {
    # R codes both factors of f:g by all their levels (6 columns, rank deficient next to the
    # intercept); patsy keeps the design full rank (5 columns): the same column space.
    "y ~ f:g": "full-rank coding of an interaction of factors without main effects",
}


def _split_term(label):
    """The factors of a term label: split at ':' outside brackets."""
    pieces, depth, current = [], 0, ""
    for character in label:
        depth += character in "([" 
        depth -= character in ")]"
        if character == ":" and depth == 0:
            pieces.append(current)
            current = ""
        else:
            current += character
    pieces.append(current)
    return pieces


def _normal_code(text):
    text = re.sub(r'Q\("((?:[^"\\]|\\.)*)"\)', r"\1", text)
    return text.replace("**", "^").replace("`", "").replace(" ", "")


def _normal_factor(text):
    text = _normal_code(text)
    match = re.fullmatch(r"(?:as\.factor|factor|C)\((\w+)\)", text)
    return match.group(1) if match else text


def normal_term(label):
    return frozenset(_normal_factor(piece) for piece in _split_term(label))


def normal_fstools_column(name):
    """An fstools design column name written as R writes it, as a set of factor pieces."""
    pieces = []
    for piece in _split_term(name):
        match = re.fullmatch(r"(.*)\[(?:T\.)?([^\[\]]*)\]", piece)
        if match:
            level = {"True": "TRUE", "False": "FALSE"}.get(match.group(2), match.group(2))
            piece = match.group(1) + level
        pieces.append(_normal_code(piece))
    return frozenset(pieces)


def normal_r_column(name):
    return frozenset(_normal_code(piece) for piece in _split_term(name))


ACCEPTED = [entry for entry in EXPECTED if entry["formula"] not in REFUSED]


def test_the_battery_is_large_and_complete():
    assert len(EXPECTED) >= 50
    assert {entry["formula"] for entry in EXPECTED} >= set(REFUSED) | set(DIFFERENT_CODING)
    assert all("error" not in entry for entry in EXPECTED)  # R accepts every formula


@pytest.mark.parametrize("formula_mode", ["safe", "code"])
@pytest.mark.parametrize("entry", ACCEPTED, ids=[entry["formula"] for entry in ACCEPTED])
def test_terms_and_columns_as_in_r(entry, formula_mode):
    formula = entry["formula"]
    mf = parse_formula(formula, DATA, formula_mode=formula_mode)
    # the same terms in R's order (main effects, then interactions, in the formula's order)
    assert [normal_term(term) for term in mf.terms] == [normal_term(label) for label in entry["term_labels"]]
    r_columns = entry["columns"]
    if formula in DIFFERENT_CODING:
        r_matrix = np.column_stack([np.ones(len(DATA))] + [r_columns[name] for name in entry["column_names"]])
        ours = np.column_stack([np.ones(len(DATA)), mf.X])
        rank = np.linalg.matrix_rank
        assert rank(r_matrix) == rank(ours) == rank(np.column_stack([r_matrix, ours]))
        return
    ours = {normal_fstools_column(name): j for j, name in enumerate(mf.column_names)}
    assert len(ours) == len(mf.column_names) == len(entry["column_names"])
    for name in entry["column_names"]:
        key = normal_r_column(name)
        assert key in ours, f"R's column {name!r} not among {mf.column_names}"
        np.testing.assert_allclose(mf.X[:, ours[key]], r_columns[name], rtol=1e-9, atol=1e-12,
                                   err_msg=f"column {name!r} of {formula!r}")


@pytest.mark.parametrize("formula_mode", ["safe", "code"])
@pytest.mark.parametrize("formula", sorted(REFUSED))
def test_formulas_r_accepts_and_fstools_refuses(formula, formula_mode):
    with pytest.raises(FormulaError, match=re.escape(REFUSED[formula])):
        parse_formula(formula, DATA, formula_mode=formula_mode)

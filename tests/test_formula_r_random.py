"""fstools' formulas against R's, on a few thousand random formulas (a differential test).

How the data were made
----------------------
``tests/data/r_formula_grammar.py`` draws formulas from R's formula grammar with a fixed seed
(operators ``+ - * / : ^ %in% . 0 1``, nested parentheses, ``I()`` of arithmetic, R's numeric
functions, ``poly()``, ``scale()``, ``factor()``, backticked names, ``offset()`` and calls that
fstools does not support) over the frame ``tests/data/r_formulas_data.csv``.  R read each
formula once (``tests/data/r_formulas_random.R``) and wrote
``tests/data/r_formulas_random_expected.json.gz``: R's version, and for each formula either R's
error message or ``attr(terms(f, data = df), "term.labels")``, the intercept, the columns of
``model.matrix(f, df)`` (names and values, "(Intercept)" left out) and the rows it kept.  The
formulas are read from that file: nothing is drawn when the test runs, and every expected value
comes from R.  To regenerate (R needed, about a minute)::

    cd tests/data
    python r_formula_grammar.py > /tmp/r_formulas_random.txt
    Rscript r_formulas_random.R /tmp/r_formulas_random.txt

What is required
----------------
fstools reads each formula in its default (safe) mode on the same frame, and for a formula R
accepts it must either

* give R's terms (in R's order), R's rows and R's design columns (values equal), with the naming map of
  ``tests/test_formula_r.py`` (its helpers are used here); where fstools codes factors
  differently from R as documented (no intercept column, so a factor is always coded as next
  to an intercept; full-rank coding of an interaction whose margins are absent, where R's
  coding is rank deficient) the columns must span the same space together with the intercept,
  and the columns that have the same name must still be equal; or
* refuse it with a :class:`~fstools.model.exceptions.FormulaError` whose message names the
  construct it refuses (:func:`constructs`): ``%in%``, ``offset()``, the function that is not
  supported, the backticks a dotted name needs inside a call, a unary minus, a column that is a
  term both as ``x`` and as ``factor(x)`` (R keeps both), or "no predictors" when R's design
  has no column besides the intercept, or "rows have missing values once the terms are evaluated"
  when R's design has no row.  The formula that fstools' messages quote does not
  count: the rest of the message must name the construct.

A formula R refuses must be refused by fstools too (any :class:`FormulaError`).

Formulas where fstools gives another answer than R (a different term, column or row, a
refusal that does not name the construct, another exception) are listed, grouped by cause with
a minimal example first, in :data:`KNOWN_DIFFERENCES`; each is an ``xfail(strict=True)`` case,
so a fix shows as an unexpected pass (then take the formula out of the dict).  The other
formulas are checked in chunks of :data:`CHUNK_SIZE` (one test per chunk lists every formula
of it that fails), so the test count stays small.
"""
import gzip
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fstools.model.exceptions import FormulaError
from fstools.model.formula import parse_formula
from test_formula_r import normal_fstools_column, normal_r_column, normal_term

DATA_DIR = Path(__file__).parent / "data"
_EXPECTED_FILE = DATA_DIR / "r_formulas_random_expected.json.gz"
with gzip.open(_EXPECTED_FILE, "rt", encoding="utf-8") as _file:
    _EXPECTED = json.load(_file)
R_VERSION = _EXPECTED["r_version"]
ENTRIES = _EXPECTED["formulas"]
DATA = pd.read_csv(DATA_DIR / _EXPECTED["data"])

#: The functions fstools documents as supported in the safe mode (README, "Formulas").
SUPPORTED_FUNCTIONS = frozenset({
    "C", "factor", "I", "Q", "log", "log2", "log10", "log1p", "exp", "expm1", "sqrt", "abs",
    "sign", "floor", "ceiling", "round", "trunc", "sin", "cos", "tan", "sinh", "cosh", "tanh",
    "scale", "center", "standardize", "poly", "as.factor", "as.numeric", "as.integer", "as.character",
})

# The causes of the differences from R found by the random formulas, and what became of them
# (each was a group of KNOWN_DIFFERENCES; all now match R or are refused as required):
#
# * the coding of a factor whose margin lies inside an earlier term (``y ~ x1:x2 + f:x2``: R codes
#   f by contrasts, as x2 lies inside x1:x2; patsy coded it by all levels): fstools now codes such
#   a design as R does (fstools.model.formula.r_coding);
# * R's model.frame() evaluates the variables of removed terms (``y ~ x2 - log(x1)`` drops the rows
#   where log(x1) is NaN, ``y ~ x1 - poly(x1, 0)`` is an error), and a comparison with NaN is NA
#   (``y ~ I(log(x1) > 0)`` drops the row): fstools does the same (but for a removed column,
#   ``y ~ . - id``, which fstools leaves out with its missing values, as documented: the data
#   here have none);
# * every row NaN once the terms are evaluated (``y ~ log(-pos)``: R returns 0 rows): fstools
#   refuses with a FormulaError naming the terms (required by _check_refusal);
# * R's as.factor(), as.numeric(), as.integer() (and as.character()) are supported;
# * R's terms() gives no term for ``(x1 - x1) * x2`` (a product whose left side has no terms),
#   but x2 for ``x2 * (x1 - x1)``: fstools reads such products as R does.

#: Formulas where fstools' answer differs from R's: formula -> the cause, listed by cause.  Each
#: is an xfail(strict=True) case of test_known_differences, left out of the chunk tests.  None is
#: left (see the causes above).
KNOWN_DIFFERENCES = {}

#: How many formulas one chunk test checks.
CHUNK_SIZE = 50


def constructs(formula):
    """The words one of which a refusal of ``formula`` must hold: what fstools may refuse.

    Parameters
    ----------
    formula : str
        A formula in R's syntax.

    Returns
    -------
    list of str
        ``'%in%'``, ``'offset()'``, the name of each called function fstools does not
        document, ``'backticks'`` for a dotted column name written bare inside a call, and
        ``'unary minus'`` for a term removed with a leading ``-``, and ``'both stand for the
        column'`` where a column is a term both as ``x`` and as ``factor(x)`` (R keeps two
        terms, fstools refuses the clash).
    """
    words = []
    if "%in%" in formula:
        words.append("%in%")
    for name in re.findall(r"([A-Za-z_][\w.]*)\s*\(", formula):
        if name == "offset":
            words.append("offset()")
        elif name not in SUPPORTED_FUNCTIONS:
            words.append(name)
    if _bare_dotted_name_in_call(formula):
        words.append("backticks")
    if re.search(r"~\s*-\s*[A-Za-z(`]", formula):
        words.append("unary minus")
    outside_calls = _text_outside_calls(formula)
    for column in re.findall(r"factor\((\w+)\)", formula):
        if re.search(rf"(?<![\w.`]){column}(?![\w.`(])", outside_calls):
            words.append("both stand for the column")  # R: `f + factor(f)` are two terms
            break
    return words


def _text_outside_calls(formula):
    """``formula`` with the arguments of calls blanked out: ``log(x) + f`` -> ``log( ) + f``."""
    kept = []
    calls = []
    for position, character in enumerate(formula):
        if character == ")" and calls:
            calls.pop()
        inside_a_call = any(calls)
        kept.append(" " if inside_a_call else character)
        if character == "(":
            calls.append(re.search(r"[\w.]$", formula[:position]) is not None)
    return "".join(kept)


def _bare_dotted_name_in_call(formula):
    """True when ``a.b`` stands bare (not in backticks) inside the parentheses of a call."""
    depth_of_calls = []
    position = 0
    in_backticks = False
    while position < len(formula):
        character = formula[position]
        if character == "`":
            in_backticks = not in_backticks
        elif not in_backticks:
            if character == "(":
                is_call = re.search(r"[\w.]$", formula[:position]) is not None
                depth_of_calls.append(is_call)
            elif character == ")":
                depth_of_calls.pop()
            elif (formula.startswith("a.b", position) and any(depth_of_calls)
                  and not re.match(r"[\w.]", formula[position - 1:position] or " ")):
                return True
        position += 1
    return False


def _span_rank(*blocks):
    """The rank of the columns of ``blocks`` side by side, each column scaled to norm 1.

    R's values are kept to 12 significant digits, so the rank is read with a tolerance of
    1e-8 (NumPy's default, near the machine epsilon, would see the rounding).
    """
    matrix = np.column_stack(blocks)
    norms = np.linalg.norm(matrix, axis=0)
    matrix = matrix[:, norms > 0] / norms[norms > 0]
    return np.linalg.matrix_rank(matrix, tol=1e-8 * max(1, matrix.shape[1]))


def compare_with_r(entry):
    """fstools' answer for one formula against R's.

    Parameters
    ----------
    entry : dict
        One formula of ``r_formulas_random_expected.json.gz``.

    Returns
    -------
    str or None
        None when fstools agrees with R (or refuses as required), else what differs.
    """
    formula = entry["formula"]
    try:
        frame = parse_formula(formula, DATA)
    except FormulaError as error:
        return _check_refusal(entry, str(error))
    except Exception as error:  # noqa: BLE001 - every other exception is a failure to report
        return f"crash: {type(error).__name__}: {error}"
    if "error" in entry:
        return f"accepted, but R refuses: {entry['error']}"
    return _check_design(entry, frame)


def _check_refusal(entry, message):
    """None when a refusal is allowed for ``entry`` and its message names the construct."""
    if "error" in entry:
        return None
    words = constructs(entry["formula"])
    if not entry["column_names"]:
        words.append("no predictors")
    if entry.get("rows") == []:  # R keeps no row: fstools cannot select on none, and says why
        words.append("rows have missing values once the terms are evaluated")
    # the message quotes the whole formula: only the rest of it counts
    lowered = message.replace(repr(entry["formula"]), "").replace(entry["formula"], "").lower()
    if any(word.lower() in lowered for word in words):
        return None
    return f"refused without naming {words or 'anything refusable'}: {message}"


def _check_design(entry, frame):
    """None when fstools' terms, rows and columns are R's (see the module's docstring)."""
    r_rows = entry.get("rows", list(range(1, len(DATA) + 1)))
    our_rows = [DATA.index.get_loc(label) + 1 for label in frame.row_index]
    if our_rows != [int(row) for row in r_rows]:
        return f"rows {our_rows} != R's {r_rows}"
    ours_terms = [normal_term(term) for term in frame.terms]
    r_terms = [normal_term(label) for label in entry["term_labels"]]
    if ours_terms != r_terms:  # the same terms, in R's order
        return f"terms {frame.terms} != R's {entry['term_labels']}"
    X = frame.X.toarray() if hasattr(frame.X, "toarray") else np.asarray(frame.X)
    ours = {}
    for j, name in enumerate(frame.column_names):
        ours.setdefault(normal_fstools_column(name), j)
    r_names = [name for name, _ in entry["columns"]]
    r_values = np.array([values for _, values in entry["columns"]], dtype=float).T
    r_values = r_values.reshape(len(r_rows), len(r_names))
    for k, name in enumerate(r_names):
        key = normal_r_column(name)
        if key in ours:
            column = X[:, ours[key]]
            scale = max(1.0, float(np.nanmax(np.abs(np.where(np.isfinite(column), column, 0)))))
            if not np.allclose(column, r_values[:, k], rtol=1e-8, atol=1e-9 * scale):
                return f"column {name!r}: {column.tolist()} != R's {r_values[:, k].tolist()}"
    same_names = (len(ours) == len(frame.column_names) == len(r_names)
                  and set(ours) == {normal_r_column(name) for name in r_names})
    if same_names:
        return None
    ones = np.ones((len(r_rows), 1))
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(r_values))):
        return f"columns {frame.column_names} != R's {r_names} (non-finite values)"
    rank_r = _span_rank(ones, r_values)
    documented = entry["intercept"] == 0 or rank_r < 1 + len(r_names)
    same_span = rank_r == _span_rank(ones, X) == _span_rank(ones, r_values, X)
    if documented and same_span:
        return None
    return (f"columns {frame.column_names} != R's {r_names}"
            f" ({'same' if same_span else 'another'} span, R's coding"
            f" {'rank deficient or without intercept' if documented else 'full rank'})")


#: R computes the same NaN and infinities (log(x1), x1 / 0, ...): NumPy's warnings say nothing.
pytestmark = pytest.mark.filterwarnings(
    "ignore:(invalid value|divide by zero|overflow) encountered:RuntimeWarning")

_CHECKED = [entry for entry in ENTRIES if entry["formula"] not in KNOWN_DIFFERENCES]
_CHUNKS = [_CHECKED[start:start + CHUNK_SIZE] for start in range(0, len(_CHECKED), CHUNK_SIZE)]


def test_the_battery_is_large_and_from_r():
    assert R_VERSION.startswith("R version")
    assert len(ENTRIES) >= 2000
    assert len({entry["formula"] for entry in ENTRIES}) == len(ENTRIES)
    refused_by_r = [entry for entry in ENTRIES if "error" in entry]
    assert 0 < len(refused_by_r) < len(ENTRIES) / 10
    assert set(KNOWN_DIFFERENCES) <= {entry["formula"] for entry in ENTRIES}


def test_the_refusal_words():
    assert constructs("y ~ x1 %in% f + offset(x2)") == ["%in%", "offset()"]
    assert constructs("y ~ pmax(f, 1) + log(pos) + poly(x1, 2) + as.numeric(f)") == ["pmax"]
    assert constructs("y ~ log(a.b) + `a.b`") == ["backticks"]
    assert constructs("y ~ log(`a.b`) + a.b + a.b:x1") == []
    assert constructs("y ~ -x1 + x2 - 1") == ["unary minus"]
    assert constructs("y ~ n + factor(n)") == ["both stand for the column"]
    assert constructs("y ~ factor(n) + f + g:factor(g) + x1:n") == ["both stand for the column"]
    assert constructs("y ~ factor(n) + x1 + factor(f)") == []
    assert constructs("y ~ (g) + factor(g) + poly(n, 2)") == ["both stand for the column"]
    assert constructs("y ~ factor(n) + poly(n, 2) + `n.x` + n.y") == []


@pytest.mark.parametrize("chunk", _CHUNKS, ids=[f"chunk{k:02d}" for k in range(len(_CHUNKS))])
def test_random_formulas_as_in_r(chunk):
    failures = []
    for entry in chunk:
        problem = compare_with_r(entry)
        if problem is not None:
            failures.append(f"{entry['formula']}: {problem}")
    assert not failures, f"{len(failures)} formulas differ from R:\n" + "\n".join(failures)


@pytest.mark.parametrize("formula", [
    pytest.param(formula,
                 marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason))
    for formula, reason in KNOWN_DIFFERENCES.items()
])
def test_known_differences(formula):
    entry = next(entry for entry in ENTRIES if entry["formula"] == formula)
    problem = compare_with_r(entry)
    assert problem is None, problem

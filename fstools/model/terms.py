"""The column <-> term map: from per-column method output to per-term (per-variable) results.

A formula term (a variable, a factor, an interaction) can own several design columns; a method
scores columns.  Every path that turns a column ranking into terms (``select``, ``compare``,
``stability`` and the out-of-core path) goes through this module: a term takes the rank of its
best column, and ``k`` counts terms.
"""
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse

from fstools.core.arrays import standardize_columns
from fstools.core.discretize import MAX_LEVELS_AS_IS, information_codes
from fstools.core.ranking import complete_ranking

__all__ = ["columns_for_k_terms", "ranked_terms", "term_scores", "selected_terms", "steps_table", "factor_code_design",
           "FACTOR_CODE_LEVELS", "method_design", "one_column_per_term", "same_names", "missing_level_codes", "SelectionDesign", "selection_design",
           "selection_input"]

#: Most levels of a factor scored by its level codes: the information methods read integer
#: columns with at most this many values as codes (more are binned as numbers), so a factor
#: with more levels keeps its dummy columns (with a note).
FACTOR_CODE_LEVELS = 32


def columns_for_k_terms(column_terms, k, column_names=None):
    """How many columns to request so that ``k`` distinct terms are surely among them.

    With ``column_names``, a design whose column terms are its column names (one column per
    term, :func:`one_column_per_term`) is recognised without a set of the terms.
    """
    if k is None:
        return None
    if column_names is not None and same_names(column_terms, column_names):
        return min(len(column_terms), k)
    shared = len(column_terms) - len(set(column_terms))  # the columns beyond each term's first
    return min(len(column_terms), k + shared)


def same_names(first, second):
    """Whether two lists of names are equal: at once when they are the same list object (a
    plain design's column names, which are its terms and its column terms, pass from the model
    frame to the method without copies), else one C-level pass (names that are the same
    objects compare by identity)."""
    return first is second or first == second


def _as_list(values):
    """``values`` as a list: itself when it is one (the design's lists are read, never changed,
    so they are passed on without copies: a copy of 100,000 names costs 0.2 ms)."""
    return values if type(values) is list else list(values)


def one_column_per_term(column_names, column_terms):
    """Whether every term owns exactly one design column (then the columns are the terms).

    Design column names are distinct, so a design whose column terms are its column names has
    one column per term (:func:`same_names`: cheap on a wide design).
    """
    return same_names(column_terms, column_names) or len(set(column_terms)) == len(column_terms)


def _distinct(items, limit=None):
    """``items`` without repeats, in order of first appearance, at most ``limit`` of them."""
    seen = set()
    distinct = []
    for item in items:
        if item not in seen:
            seen.add(item)
            distinct.append(item)
            if limit is not None and len(distinct) == limit:
                break
    return distinct


def _column_order(output, higher_is_better):
    """Every column: the method's ranking, then the rest by score under the ranking rule."""
    return complete_ranking(output.ranking, output.scores, higher_is_better)


def ranked_terms(output, higher_is_better, column_terms, k=None):
    """The first ``k`` distinct terms (all when None) in the order of their best-ranked column."""
    return _distinct((column_terms[int(j)] for j in _column_order(output, higher_is_better)), k)


def term_scores(output, spec, column_names, column_terms, k):
    """The per-term scores table (best first) and the selected terms, from per-column output.

    Each term is represented by its best-ranked column (its score and diagnostics); the
    selection is the first ``k`` distinct terms of the method's own ranking.  When some term
    owns several columns, a ``term_column`` column names the representing one.
    """
    order = np.asarray(_column_order(output, spec.higher_is_better), dtype=np.intp)
    if one_column_per_term(column_names, column_terms):
        # Every term one column (the common case, also of very wide frames): the column order is
        # the term order, without a dictionary built column by column.
        positions = order
        term_order = np.asarray(column_terms, dtype=object)[order]  # one take, not a loop over a wide design
        representative = None
    else:
        representative = {}
        for j in order.tolist():
            representative.setdefault(column_terms[j], j)
        term_order = list(representative)
        positions = np.fromiter(representative.values(), dtype=np.intp, count=len(representative))
    selected = selected_terms(output, column_terms, k)
    rows = {"rank": np.arange(1, len(term_order) + 1), "score": _take(output.scores, positions)}
    for name, values in output.columns.items():
        rows[name] = _take(values, positions)
    table = pd.DataFrame(rows, index=pd.Index(term_order, name="feature"))
    if len(term_order) < len(column_terms):
        table["term_column"] = [column_names[representative[t]] for t in term_order]
    return table, selected


def selected_terms(output, column_terms, k):
    """The first ``k`` distinct terms of the method's own ranking (all when None)."""
    return _distinct((column_terms[int(j)] for j in output.ranking), k)


def _take(values, positions):
    """``values`` at ``positions``: one NumPy take for an array, else a list."""
    if isinstance(values, np.ndarray) and values.ndim == 1:
        return values[positions]
    return [values[j] for j in positions]


def steps_table(output, column_terms, selected):
    """The method's greedy steps with columns named by term, up to the step that completed ``selected``."""
    if output.steps is None:
        return None
    features = [column_terms[int(j)] for j in output.steps["feature"]]
    chosen = set(selected)
    last = 0
    for i, term in enumerate(features):
        if term in chosen:
            last = i
    # The table built once from the kept steps (no insert or slice of a built frame).
    columns = {"step": np.arange(1, last + 2)}
    for name, values in output.steps.items():
        columns[name] = features[: last + 1] if name == "feature" else values[: last + 1]
    return pd.DataFrame(columns)


def factor_code_design(X, column_names, column_terms, max_levels=FACTOR_CODE_LEVELS):
    """The design with each factor (a term of 0/1 dummy columns) as one column of level codes.

    For the methods that score a categorical variable by its levels (the information methods:
    I(colour; y), not the information of one dummy).  A term is a factor here when its design
    columns are named ``name[level]`` (patsy's names of a categorical term, also of an
    interaction of factors) and hold only 0 and 1; each distinct row of its dummy block is one
    level (the reference level is the all-zero row), coded 0..L-1 in the order of
    ``numpy.unique`` of the rows.  Numeric terms keep their columns.

    Parameters
    ----------
    X : ndarray, shape (n_samples, n_columns)
    column_names, column_terms : list of str
    max_levels : int or None, default :data:`FACTOR_CODE_LEVELS`
        Factors with more levels keep their dummies, with a note (None: no limit).

    Returns
    -------
    (X, column_names, column_terms, notes)
        ``X`` float64 (unchanged, and the same object, when no term is a factor); a factor's
        column is named by its term.
    """
    column_names, column_terms = _as_list(column_names), _as_list(column_terms)
    if same_names(column_terms, column_names):  # each column its own term, named by it: no dummy columns
        return X, column_names, column_terms, []
    if not any("[" in name for name in column_names):  # no dummy columns (one look at a wide design)
        return X, column_names, column_terms, []
    blocks = {}
    for j, term in enumerate(column_terms):
        blocks.setdefault(term, []).append(j)
    factors = {}
    notes = []
    for term, columns in blocks.items():
        if not all("[" in column_names[j] for j in columns):
            continue
        block = np.asarray(X[:, columns], dtype=np.float64)
        if not np.isin(block, (0.0, 1.0)).all():
            continue
        _, codes = np.unique(block, axis=0, return_inverse=True)
        codes = codes.ravel()
        levels = int(codes.max()) + 1
        if max_levels is not None and levels > max_levels:
            notes.append(f"factor {term!r} has {levels} levels (more than {max_levels}): scored by its "
                         f"dummy columns")
            continue
        factors[term] = codes.astype(np.float64)
    if not factors:
        return X, column_names, column_terms, notes
    new_columns, names, terms = [], [], []
    done = set()
    for j, term in enumerate(column_terms):
        if term in factors:
            if term not in done:
                done.add(term)
                new_columns.append(factors[term])
                names.append(term)
                terms.append(term)
            continue
        new_columns.append(np.asarray(X[:, j], dtype=np.float64))
        names.append(column_names[j])
        terms.append(term)
    notes.append(f"factor(s) {', '.join(map(repr, factors))} scored as one variable each, by their level codes")
    return np.column_stack(new_columns), names, terms, notes


def method_design(spec, X, column_names, column_terms, params=None, na_action="drop"):
    """The design matrix a method runs on, and the keywords that describe it to the method.

    The one rule of how a factor and a missing value reach a method, used by every path that
    runs one on a formula's design (``select``, ``res.test``, ``compare``, ``stability``):

    * ``spec.factors == "dummies"``: the design as it is (a factor's 0/1 dummy columns);
    * ``"codes"``: each factor as one column of level codes (:func:`factor_code_design`);
    * ``"nominal"``: the same codes, and the keyword ``nominal`` (a boolean array, True for the
      factor columns) for the method's function, which scores those as categorical variables
      (ReliefF's 0/1 diff, the Laplacian score of the level indicators, the one-way ANOVA F).

    Missing values (NaN) reach here only under an ``na_action`` the method takes
    (``MethodSpec.missing``):

    * ``"pass"``: they stay missing for the method to treat; a factor's code is NaN in a row
      with a missing value in its dummy block, a numeric column keeps its NaN;
    * ``"level"``: they become a level of their own (:func:`missing_level_codes`, with the
      method's ``discretization`` and ``n_bins`` from ``params``).

    Parameters
    ----------
    spec : fstools.methods.registry.MethodSpec
    X : ndarray or scipy sparse matrix, shape (n_samples, n_columns)
    column_names, column_terms : list of str
    params : dict, optional
        The method's parameters (validated).
    na_action : {'drop', 'raise', 'level', 'pass'}, default 'drop'
        The ``na_action`` the design was built with (the model frame's).

    Returns
    -------
    (X, column_names, column_terms, notes, keywords)
        ``keywords`` is a dict to add to the method's parameters for the call (empty, or
        ``{"nominal": mask}``).
    """
    column_names, column_terms = _as_list(column_names), _as_list(column_terms)
    if spec.factors == "dummies" or sparse.issparse(X):
        return X, column_names, column_terms, [], {}
    # NaN reaches here only under na_action 'level' or 'pass' (the model frame drops or refuses it
    # otherwise): no pass over a wide X, and no temporary of its size, for the others.
    missing = np.isnan(X) if na_action in ("level", "pass") else None
    any_missing = missing is not None and bool(missing.any())
    # The factors are found on the dummies with a missing entry as 0; the missing values are put back below.
    # The information methods read a column of many codes as a continuous one (and discretise it):
    # their factors are limited to FACTOR_CODE_LEVELS levels; the nominal methods score any number.
    coded, names, terms, notes = factor_code_design(np.where(missing, 0.0, X) if any_missing else X,
                                                    column_names, column_terms,
                                                    max_levels=None if spec.factors == "nominal" else FACTOR_CODE_LEVELS)
    if coded is X:  # no factor: the design as it is (no look at each of a wide design's columns)
        factor = np.zeros(len(names), dtype=bool)
    else:
        original = {name: j for j, name in enumerate(column_names)}
        # A factor's code column is named by its term, which is no name of a design column.
        factor = np.array([name == term and name not in original for name, term in zip(names, terms)], dtype=bool)
    keywords = {"nominal": factor} if spec.factors == "nominal" else {}
    if any_missing:
        original = {name: j for j, name in enumerate(column_names)}
        coded = np.array(coded, dtype=np.float64)
        for j, (name, term) in enumerate(zip(names, terms)):
            if factor[j]:
                block = [original[c] for c, t in zip(column_names, column_terms) if t == term]
                coded[missing[:, block].any(axis=1), j] = np.nan
            else:
                coded[:, j] = X[:, original[name]]
        if na_action == "level":
            params = params or {}
            # (named in the model frame's note; the discretised ones in the method's note)
            coded, discretised = missing_level_codes(coded, names, params.get("discretization", "mu_sigma"),
                                                     params.get("n_bins"))
            if discretised.any():  # for the method's discretisation note (these are continuous columns)
                keywords["na_level_discretised"] = discretised
    return coded, names, terms, notes, keywords


def missing_level_codes(X, column_names, discretization="mu_sigma", n_bins=None):
    """Each column with missing values (NaN) as integer codes with missing as a level of its own.

    For the information methods under ``na_action="level"``: a column's observed values are
    coded as the method codes a column (:func:`fstools.core.discretize.information_codes`:
    a discrete column by its values, a continuous one discretised by ``discretization``), and
    the missing entries get one more code.  The information methods read such an integer
    column as it is, so I(X; C) is that of the observed levels plus the level "missing"
    (as FSelectorRcpp and praznik treat ``NA`` as a level of a discrete variable).

    Returns
    -------
    (X, discretised)
        A float64 copy with those columns replaced (``X`` itself when no value is missing), and
        a boolean array flagging the columns whose observed values were discretised (continuous
        columns: the method reads their codes as they are, and names them in its
        discretisation note through the keyword ``na_level_discretised``).

    Raises
    ------
    ValueError
        When a column would get more levels than the information methods read as levels
        (:data:`fstools.core.discretize.MAX_LEVELS_AS_IS`), naming it.
    """
    missing = np.isnan(X)
    columns = np.flatnonzero(missing.any(axis=0))
    discretised = np.zeros(X.shape[1], dtype=bool)
    if columns.size == 0:
        return X, discretised
    X = np.array(X, dtype=np.float64, order="C")
    for j in columns:
        observed = ~missing[:, j]
        if not observed.any():
            raise ValueError(f"na_action='level': column {column_names[j]!r} has no observed value")
        codes, levels, as_is = information_codes(X[observed, j][:, None], discretization=discretization,
                                                 n_bins=n_bins)
        discretised[j] = not as_is[0]
        if int(levels[0]) + 1 > MAX_LEVELS_AS_IS:
            raise ValueError(f"na_action='level': column {column_names[j]!r} would have {int(levels[0]) + 1} levels "
                             f"with missing as one, more than the {MAX_LEVELS_AS_IS} the information methods "
                             f"read as levels; use fewer bins (n_bins <= {MAX_LEVELS_AS_IS - 1}) or drop the "
                             f"rows (na_action='drop')")
        X[observed, j] = codes[0]
        X[~observed, j] = levels[0]
    return X, discretised


class SelectionDesign(NamedTuple):
    """The design matrix a kind of method ranks (see :func:`method_design`)."""

    X: np.ndarray
    column_names: list
    #: For each column of ``X``, the index of its term in the data set's terms.
    column_term_index: list
    #: Keywords for the method's function (``nominal``).
    keywords: dict
    #: Columns of level codes (factors, and columns with missing values under na_action='level'):
    #: never standardised.
    codes: np.ndarray
    #: Columns to request from a method so that k distinct terms are surely among them: k + this.
    extra_columns: int


def selection_design(spec, X, column_names, column_terms, terms, params=None, na_action="drop"):
    """The :class:`SelectionDesign` of method ``spec`` on a data set's design (the rule of ``fs.select``,
    :func:`method_design`), with its columns mapped to the indices of ``terms``: what ``compare`` and
    ``stability`` rank on."""
    design, names, design_terms, _, keywords = method_design(spec, X, column_names, column_terms, params,
                                                             na_action=na_action)
    index = {term: t for t, term in enumerate(terms)}
    # Codes: a factor's column (named by its term) and a column whose missing values became a level.
    position = {name: j for j, name in enumerate(column_names)}
    if na_action == "level" and not sparse.issparse(X) and spec.factors != "dummies":
        missing = np.isnan(X).any(axis=0)
    else:
        missing = np.zeros(len(column_names), dtype=bool)
    codes = np.array([name not in position or bool(missing[position[name]]) for name in names], dtype=bool)
    return SelectionDesign(np.ascontiguousarray(design, dtype=np.float64), list(names),
                            [index[term] for term in design_terms], keywords, codes,
                            len(design_terms) - len(set(design_terms)))


def selection_input(design, rows=None, standardize=True):
    """The rows of a :class:`SelectionDesign` a method ranks: standardised (fitted on those rows) when
    asked, except the columns of level codes, which name levels."""
    X = design.X if rows is None else design.X[rows]
    if not standardize:
        return np.ascontiguousarray(X)
    scaled = standardize_columns(X)
    if design.codes.any():
        scaled[:, design.codes] = X[:, design.codes]
    return scaled

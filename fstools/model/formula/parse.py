"""R-style model formulas on pandas DataFrames: :func:`parse_formula` and the :class:`ModelFrame` it returns.

:func:`parse_formula` turns a formula such as ``"class ~ ."`` or ``"y ~ a + C(b) + np.log(c)"``
plus a DataFrame into the arrays the selection methods need, and maps design columns back to
the terms the user wrote.  It calls each stage once, in order; each is a module of this package:

1. :mod:`~fstools.model.formula.syntax`: R syntax, the responses and the right-hand side's tokens
   (:mod:`~fstools.model.formula.lexer`);
2. :mod:`~fstools.model.formula.patsy_terms`: the right-hand side as patsy's terms, every name and
   (safe mode, :mod:`~fstools.model.formula.safe_eval`) all code checked;
3. :mod:`~fstools.model.formula.rows`: the columns read as meant, the rows kept (``na_action``);
4. :mod:`~fstools.model.formula.design`: the design matrix (patsy, or the columns read directly);
5. :mod:`~fstools.model.formula.term_map`: the names of the design columns and of their terms.

R's ``y ~ .`` over numbers takes stages 2 to 4 in one read of the values, without patsy
(:mod:`~fstools.model.formula.dot`).  patsy is the engine, used only in this package, so that it
can be replaced (for example by formulaic) without touching the rest of fstools.

What fstools adds on top of patsy
---------------------------------
* R's ``.`` on the right-hand side: all columns that are not responses, in
  DataFrame column order (``y ~ . - a - b`` removes terms from it).
* R's backtick names: `` `my col` `` is read as the column ``"my col"``.
* One or more responses on the left (``y1 + y2 ~ .``), read as raw columns
  (patsy would one-hot encode a string response).
* Term names that are the variable names (``colour``, not ``colour[T.red]`` nor
  ``C(colour)``), and for each design column the term it belongs to.
* R's ``na.omit``: incomplete rows are dropped and counted, or refused; as in R's
  ``model.frame()`` the computed variables of removed terms are evaluated (``y ~ x2 - log(x1)``
  drops the rows where ``log(x1)`` is NaN), and a comparison with NaN is missing
  (``I(log(x1) > 0)``); a removed column (``y ~ . - id``) is left out altogether, its missing
  values too (R would still drop their rows).
* R's order of the terms and R's coding of factors (:mod:`~fstools.model.formula.r_coding`),
  and R's ``as.factor()``, ``as.numeric()``, ``as.integer()``, ``as.character()``.
* Errors that quote the formula and name the problem (:class:`FormulaError`).

The intercept is always built (so that every categorical main effect gets the
same treatment coding) and then removed from the design matrix: feature
selection scores predictors, never the constant.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fstools.methods.registry import NA_ACTIONS
from fstools.model.formula.design import build_design
from fstools.model.formula.dot import read_dot
from fstools.model.formula.messages import quote_list
from fstools.model.formula.names import ColumnNames
from fstools.model.formula.patsy_terms import read_terms
from fstools.model.formula.rows import read_rows, response_columns
from fstools.model.formula.safe_eval import check_mode
from fstools.model.formula.syntax import Syntax, read_syntax
from fstools.model.formula.term_map import map_terms

__all__ = ["ModelFrame", "parse_formula"]


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
        One name per predictor term, in design order, which is R's: by the number of variables
        in the term (main effects, then two-way interactions, ...), in the order of the formula
        (and of the DataFrame's columns for ``.``) otherwise.  A term made of one column
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


def parse_formula(formula: str, data: pd.DataFrame, na_action: str = "drop",
                  sparse_design: bool = False, formula_mode: str = "safe", na_values=None,
                  require_response: bool = True, n_threads: int = 1, read_values: bool = True,
                  integer_design: bool = False, stacklevel: int = 3) -> ModelFrame:
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
        ``abs``, ``factor`` (= ``C``), ``poly``, ``scale``, ``as.factor``,
        ``as.numeric``, ``as.integer`` and ``as.character`` with R's semantics,
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
        numeric functions (see :mod:`fstools.model.formula.safe_eval`) and refuses
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
    stacklevel : int, default 3
        Where the warnings about the data (identifier-like columns) point, as
        :func:`warnings.warn` counts from here (3: the caller's caller).

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
        that the safe mode refuses, and when every row is missing once the terms are
        evaluated (``log(-x)``: the message names the terms).  The message starts with the
        formula.

    Examples
    --------
    >>> df = pd.DataFrame({"y": [0, 1, 0, 1], "a": [1.0, 2.0, 3.0, 4.0],
    ...                    "colour": ["red", "blue", "red", "green"]})
    >>> mf = parse_formula("y ~ .", df)
    >>> mf.terms
    ['a', 'colour']
    >>> mf.column_names
    ['a', 'colour[T.green]', 'colour[T.red]']
    >>> mf.column_terms
    ['a', 'colour', 'colour']
    """
    formula_mode = _check_arguments(formula, data, na_action, formula_mode)
    names = ColumnNames(data.columns)
    table = names.frame(data)  # the columns under their formula names (strings)

    syntax = read_syntax(formula, table, names, require_response)
    fast = read_dot(formula, table, syntax, na_action, na_values, n_threads, read_values, integer_design)
    if fast is not None:  # y ~ . over numbers: the terms are the columns, read in one pass
        rows, design = fast
    else:
        terms = read_terms(formula, table, syntax, formula_mode, names)
        rows = read_rows(formula, table, syntax.responses, terms, na_action, na_values, stacklevel + 1)
        design = build_design(formula, rows, terms, na_action, formula_mode, sparse_design)
    column_names, term_names, column_terms = map_terms(formula, design)

    kept = rows.data.index if design.positions is None else rows.data.index[design.positions]
    response = response_columns(rows.data, syntax.responses, design.positions)
    response_names, response, factor_responses, labels = _by_label(names, data, syntax, response)
    return ModelFrame(
        formula=formula,
        response_names=response_names,
        response=response,
        X=design.X,
        column_names=column_names,
        terms=term_names,
        column_terms=column_terms,
        row_index=kept,
        n_dropped=len(data) - len(kept),
        design_info=design.design_info,
        patsy_terms=design.patsy_terms,
        formula_mode=formula_mode,
        source=data.copy(deep=False),
        na_action=na_action,
        column_labels=labels,
        factor_responses=factor_responses,
        notes=tuple(rows.notes),
        na_values=None if na_values is None else tuple(na_values),
        column_checks=design.column_checks,
        number_columns=tuple(rows.numbers),
    )


def _check_arguments(formula, data, na_action, formula_mode) -> str:
    """The formula mode, checked; TypeError or ValueError for arguments that cannot be a formula,
    its data, an ``na_action`` or a formula mode."""
    if not isinstance(formula, str):
        raise TypeError(f"formula must be a string such as 'y ~ .', got {type(formula).__name__}")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if not isinstance(na_action, str) or na_action not in NA_ACTIONS:
        raise ValueError(f"na_action must be one of {quote_list(NA_ACTIONS)}, got {na_action!r}")
    formula_mode = check_mode(formula_mode)
    if len(data) == 0:
        raise ValueError("data has no rows")
    if not data.columns.is_unique:
        duplicated = data.columns[data.columns.duplicated()].unique().tolist()
        raise ValueError(f"data has duplicated column names: {quote_list(duplicated)}")
    return formula_mode


def _by_label(names: ColumnNames, source: pd.DataFrame, syntax: Syntax, response: pd.DataFrame):
    """The responses by their labels in ``source`` (the caller's data): (the response labels, the
    response frame with them as its columns, the labels of the factor responses, the map of the
    other formula names to their labels)."""
    responses = syntax.responses
    if names.identity:
        return list(responses), response, tuple(syntax.factor_responses), {}
    labels = [names.label_of.get(name, name) for name in responses]
    if isinstance(source.columns, pd.MultiIndex):
        columns = pd.MultiIndex.from_tuples(labels, names=source.columns.names)
    else:
        columns = pd.Index(labels, dtype=object, tupleize_cols=False)
    factors = tuple(labels[responses.index(name)] for name in syntax.factor_responses)
    return labels, response.set_axis(columns, axis=1), factors, dict(names.label_of)

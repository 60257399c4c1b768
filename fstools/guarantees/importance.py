"""A formula's data prepared once, and the importance of every term under a method.

The three procedures with a guarantee rerun one method many times: on subsamples of the rows
(stability selection), on the design with a knockoff copy of every feature (the knockoff
filter), on the design with permuted "shadow" copies (Boruta).  :func:`prepare` reads the
formula and the data once, as :func:`fstools.select` does (the response's type, factors as one
candidate each, missing values, the method's parameters checked), and :func:`term_importance`
turns one run of the method into one number per term, higher meaning more important:

* a method that scores every feature on its own (``fisher``, ``mim``, ``relieff``, ...): its
  score, negated when lower is better (the Laplacian score); a term with several design
  columns takes its best column, as in :func:`fstools.select`'s scores table;
* a greedy method (``mrmr``, ``jmi``, ``cmim``, ``cmqfs``, ...), whose per-feature score does not
  order its selection: the order of entry, ``n_columns - position`` in its complete ranking
  (the first feature chosen scores ``n_columns``), the analogue of the lasso's "lambda at
  entry" statistic of Barber & Candes (2015, Ann. Stat. 43:2055-2085, Sec. 2.2).

Either is a valid knockoff statistic when the method treats its columns symmetrically: swapping
a feature with its knockoff swaps their importances.
"""
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from fstools.api.selection import run_method
from fstools.model.checked_frame import check_finite_design, frame_response
from fstools.core.ranking import complete_ranking
from fstools.methods.registry import check_na_action, get_method, method_names
from fstools.model.exceptions import FormulaError
from fstools.model.formula import parse_formula
from fstools.model.frames import as_data_frame
from fstools.model.terms import SelectionDesign, selection_design
from fstools.model.validation import check_method_params, split_method

__all__ = ["PreparedData", "prepare", "importance_kind", "term_importance", "score_terms",
           "supervised_methods"]


class PreparedData(NamedTuple):
    """What :func:`prepare` reads once from a formula and a data frame."""

    #: The method's registered name, its :class:`fstools.methods.registry.MethodSpec` and the
    #: parameters as given (for the call) and checked (for the function); name and spec None for
    #: a procedure's own model.
    name: str
    spec: Any
    given: dict
    values: dict
    #: The design the method ranks (:func:`fstools.model.terms.selection_design`): factors as level
    #: codes for the methods that take them so; ``design.column_term_index`` maps columns to terms.
    design: Any
    #: Keywords of every call of the method's function: its parameters, ``nominal`` and, for a
    #: streaming method, the class names.
    keywords: dict
    #: The candidate terms (one per variable, in the formula's order).
    terms: list
    #: The response: class codes (int32) or real values (float64), its kind and why.
    y: np.ndarray
    response_type: str
    response_reason: Any
    class_names: Any
    #: The model frame (rows dropped, formula) for the result's header.
    frame: Any
    formula: str
    na_action: str

    @property
    def n(self):
        """Rows used."""
        return len(self.y)

    @property
    def n_terms(self):
        return len(self.terms)

    @property
    def factor_terms(self):
        """The terms whose design is not one numeric column of the data (factors, interactions)."""
        frame = self.frame
        numeric = {name for name, term in zip(frame.column_names, frame.column_terms) if name == term}
        return [term for term in self.terms if term not in numeric]


def prepare(procedure, formula, data, method, params, *, na_action="drop", formula_mode="safe",
            response_type=None):
    """Read ``formula`` on ``data`` once for ``procedure`` (its name, for messages).

    The checks and the design are those of :func:`fstools.select`: the method's parameters, its
    ``na_action`` and response type, non-finite values refused; a factor is one candidate term.
    A multi-label method and an unsupervised one are refused: the guarantees are about features
    related to one response.  ``method`` None: no registered method (the procedure fits a model of
    its own, a lasso or a random forest): the design is patsy's (a factor's dummy columns), and
    ``name`` and ``spec`` are None.

    Returns
    -------
    PreparedData
    """
    if not isinstance(formula, str):
        raise TypeError(f"formula: must be a string such as 'class ~ .'; got {type(formula).__name__}")
    data = as_data_frame(data)   # a polars or Arrow frame read once into pandas
    if method is None:  # the procedure's own model (a lasso, a forest): the design as patsy makes it
        name, given, spec, values = None, dict(params), None, {}
        if na_action not in ("drop", "raise"):
            raise ValueError(f"na_action: {procedure}'s own model needs complete rows: 'drop' or 'raise'; "
                             f"got {na_action!r}")
    else:
        name, given = split_method(method, params)
        spec = get_method(name)
        if not _takes_part(spec):
            usable = supervised_methods()
            why = ("a multi-label method (several 0/1 label columns on the left of the formula)"
                   if "multilabel" in spec.capabilities else "unsupervised: its score does not use the response")
            raise ValueError(f"method: {name!r} is {why}; {procedure} needs a score of each feature's relation "
                             f"to one response. Allowed methods: {', '.join(usable)}")
        values = check_method_params(spec, given)
        check_na_action(spec, na_action, values)
    frame = parse_formula(formula, data, na_action=na_action, formula_mode=formula_mode)
    if len(frame.response_names) != 1:
        raise FormulaError(f"formula {formula!r}: {procedure} takes one response; the formula has "
                           f"{len(frame.response_names)}")
    target = frame_response(frame, response_type, spec)
    check_finite_design(frame)
    terms = list(dict.fromkeys(frame.column_terms))
    if len(terms) < 2:
        raise ValueError(f"data: {procedure} needs at least 2 candidate features; the formula gives {len(terms)}")
    X = np.asarray(frame.X, dtype=np.float64)
    if spec is None:
        design = _model_design(X, list(frame.column_names), list(frame.column_terms), terms)
    else:
        design = selection_design(spec, X, list(frame.column_names), list(frame.column_terms), terms, values,
                                  na_action=na_action)
    keywords = {**values, **design.keywords}
    if spec is not None and "streaming" in spec.capabilities:
        keywords["class_names"] = target.class_names
    return PreparedData(name=name, spec=spec, given=given, values=values, design=design, keywords=keywords,
                        terms=terms, y=target.values, response_type=target.kind, response_reason=target.reason,
                        class_names=target.class_names, frame=frame, formula=formula, na_action=na_action)


def _model_design(X, column_names, column_terms, terms):
    """The design as patsy makes it (a factor's dummy columns), for a procedure's own model."""
    index = {term: t for t, term in enumerate(terms)}
    column_term_index = [index[term] for term in column_terms]
    return SelectionDesign(np.ascontiguousarray(X), list(column_names), column_term_index, {},
                           np.zeros(len(column_names), dtype=bool), len(column_terms) - len(terms))


def supervised_methods():
    """The registered methods the procedures take: supervised, one response."""
    return [name for name in method_names() if _takes_part(get_method(name))]


def _takes_part(spec):
    return spec.supervised and "multilabel" not in spec.capabilities


def importance_kind(spec):
    """``'rank'`` (order of entry) for a greedy method, ``'score'`` for the others."""
    return "rank" if "greedy" in spec.capabilities else "score"


def term_importance(output, spec, column_term_index, n_terms, n_steps=None):
    """One importance per term (higher: more important) from one run of the method.

    Parameters
    ----------
    output : fstools.methods.registry.MethodOutput
        The method's output on a design of ``len(column_term_index)`` columns, asked for every
        column (``k=None``) when the importance is the order of entry.
    spec : MethodSpec
    column_term_index : sequence of int
        The term (0..n_terms-1) of each column.
    n_terms : int
    n_steps : int, optional
        For the order of entry: only the first ``n_steps`` columns of the ranking score (the first
        ``n_steps``, then down to 1); the others score 0, as the variables that have not entered a
        lasso path at a given penalty have coefficient 0.

    Returns
    -------
    ndarray of float64, shape (n_terms,)
        The best of each term's columns; ``-inf`` for a term without a defined score (NaN).
    """
    column_term_index = np.asarray(column_term_index, dtype=np.intp)
    n_columns = len(column_term_index)
    if importance_kind(spec) == "rank":
        order = complete_ranking(output.ranking, output.scores, spec.higher_is_better)
        column_values = np.empty(n_columns, dtype=np.float64)
        column_values[order] = np.arange(n_columns, 0, -1, dtype=np.float64)
        if n_steps is not None and n_steps < n_columns:
            column_values = np.zeros(n_columns, dtype=np.float64)
            column_values[order[:n_steps]] = np.arange(n_steps, 0, -1, dtype=np.float64)
    else:
        column_values = np.array(output.scores, dtype=np.float64)
        if not spec.higher_is_better:
            column_values = -column_values
        column_values[np.isnan(column_values)] = -np.inf
    importance = np.full(n_terms, -np.inf)
    np.maximum.at(importance, column_term_index, column_values)
    return importance


def score_terms(prepared, X, y, column_term_index, n_terms, keywords=None, n_steps=None, n_threads=1):
    """The importance of each of ``n_terms`` terms when the method ranks the columns of ``X``.

    ``X`` is a design in the method's form (:attr:`PreparedData.design`, perhaps some rows only,
    perhaps with further columns: knockoffs, shadows), ``column_term_index`` the term of each
    column, ``keywords`` the method's keywords for this design (default the prepared ones).
    ``n_steps``: a greedy method's path stops after that many steps, the columns that did not
    enter scoring 0 (:func:`term_importance`); None, the whole order of entry.  A method that
    scores every column is asked for all of them either way.
    """
    spec = prepared.spec
    if importance_kind(spec) != "rank":
        n_steps = None
    output = run_method(spec, X, y, n_steps, prepared.keywords if keywords is None else keywords, n_threads,
                        response_type=prepared.response_type)
    return term_importance(output, spec, column_term_index, n_terms, n_steps=n_steps)

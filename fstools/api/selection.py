"""The user-facing entry point :func:`select`: formula -> validate -> method -> result.

This layer owns validation: every user mistake is refused here, with a
message naming the argument and the allowed values, before any kernel runs.
"""
import contextlib
import functools
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from fstools.core.arrays import c_contiguous, is_integer_design
from fstools.core.constraints import OPEN_UNIT_INTERVAL, validate
from fstools.core.messages import ColumnError
from fstools.core.parallel import effective_n_threads, thread_note
from fstools.model.exceptions import FormulaError
from fstools.model.terms import (columns_for_k_terms, method_design, one_column_per_term, same_names,
                                 selected_terms, steps_table, term_scores)
from fstools.model.formula import format_formula, label_name, parse_formula
from fstools.model.frames import as_data_frame
from fstools.model.safe_eval import check_mode
from fstools.methods.permutation import check_permutation_arguments, check_permutation_method
from fstools.methods.registry import MethodOutput, check_na_action, check_response, get_method
from fstools.methods.step_tests import AUTO_MAX_STEPS, check_step_method
from fstools.model.response import Response, check_response_type, prepare_response
from fstools.results.multilabel_result import MultiLabelResult
from fstools.results.selection_result import SelectionResult
from fstools.model.validation import (check_finite_matrix, check_k, check_method_params, check_sparse_input,
                                      checked_constant_columns, constant_columns, label_matrix,
                                      warn_constant_columns)
from fstools.api.dask_input import select_dask

__all__ = ["select", "select_frame", "format_call", "select_multilabel", "run_method", "check_design", "check_finite_design"]


def format_call(formula, method, k, na_action, n_jobs, params, formula_mode="safe", response_type=None,
                na_values=None, test=None, n_permutations=999, permutation_seed=None, step_alpha=None):
    """The call as the result prints it: ``select('y ~ .', data, method=..., ...)``, the arguments
    that differ from their defaults; with a test or ``k='auto'`` its permutations, seed and level."""
    call = _format_arguments(formula, method, k, na_action, n_jobs, params, formula_mode, response_type, na_values)
    auto = isinstance(k, str) and k == "auto"
    if test is not None or auto:
        test_part = f"test={test!r}, " if test is not None else ""
        alpha_part = f", step_alpha={step_alpha!r}" if auto else ""
        call = (f"{call[:-1]}, {test_part}n_permutations={n_permutations!r}, permutation_seed={permutation_seed!r}"
                f"{alpha_part})")
    return call


def _format_arguments(formula, method, k, na_action, n_jobs, params, formula_mode="safe", response_type=None,
                      na_values=None):
    parts = [repr(formula), "data", f"method={method!r}"]
    if k is not None:
        parts.append(f"k={k!r}")
    if response_type is not None:
        parts.append(f"response_type={response_type!r}")
    if na_action != "drop":
        parts.append(f"na_action={na_action!r}")
    if na_values is not None:
        parts.append(f"na_values={na_values!r}")
    if formula_mode != "safe":
        parts.append(f"formula_mode={formula_mode!r}")
    if n_jobs is not None:
        parts.append(f"n_jobs={n_jobs!r}")
    parts += [f"{name}={value!r}" for name, value in params.items()]
    return f"select({', '.join(parts)})"


def _with_thread_note(notes, n_jobs):
    """The method's notes, plus the number of threads used when ``n_jobs`` was capped or negative
    (the call string keeps ``n_jobs`` as given)."""
    note = thread_note(n_jobs)
    return list(notes) if note is None else [*notes, note]


def run_method(spec, X, y, k, params, n_jobs, column_names=None, response_type="class"):
    """Run a validated method on arrays; returns its :class:`MethodOutput`.

    ``X`` is finite float64 (dense, or a scipy sparse matrix for a method with the
    ``sparse`` capability: passed on as CSC, or CSR for streaming methods, never
    densified; TypeError for the other methods), or a dense bool or integer design
    (:func:`fstools.core.arrays.is_integer_design`), passed on as it is to a method with
    ``MethodSpec.integer_designs`` and as float64 to the others; ``k`` None or 1..n_features, ``params``
    complete (see :func:`fstools.model.validation.check_method_params`).
    ``response_type`` says what ``y`` is: ``"class"``, class codes (int32);
    ``"continuous"``, finite real values (float64); None, no response (``y`` None, for
    the unsupervised methods only).  A method that cannot take it is refused with a
    ValueError naming the methods that can
    (:func:`fstools.methods.registry.check_response`).  A supervised method that takes a
    continuous response is called with the keyword ``response_type``.
    With ``column_names``, an error about some columns names them instead of giving positions.
    """
    n_threads = effective_n_threads(n_jobs)
    if sparse.issparse(X):
        X = check_sparse_input(spec, X)
    else:
        if not (spec.integer_designs and is_integer_design(X)):  # (else read as it is: no float64 copy)
            X = np.asarray(X, dtype=np.float64)
        if not (spec.any_layout and X.flags.f_contiguous):
            X = c_contiguous(X)
    spec.check_response(response_type)
    keywords = dict(params)
    if response_type is None or (y is None and not spec.supervised):
        y = None
    elif response_type == "continuous":
        y = np.ascontiguousarray(y, dtype=np.float64)
        if y.ndim != 1 or not np.isfinite(y).all():
            raise ValueError("y: a continuous response must be 1-D with finite values (no NaN or inf)")
    else:
        y = np.ascontiguousarray(y, dtype=np.int32)
    if spec.supervised and "continuous" in spec.responses:
        keywords["response_type"] = response_type
    try:
        return spec.function(X, y, k, n_threads, **keywords)
    except ColumnError as error:
        if column_names is None:
            raise
        raise error.with_names(column_names) from None


def check_finite_design(frame, name="data"):
    """Refuse a design with non-finite values, naming the columns; under ``na_action='level'`` or
    ``'pass'`` a missing value (NaN) is allowed: the methods that take those treat it (as a level
    of its own, or themselves)."""
    if frame.column_checks is not None and not frame.column_checks[0].any():  # known when the frame was read
        return
    missing = frame.na_action in ("level", "pass") and not sparse.issparse(frame.X)
    check_finite_matrix(np.where(np.isnan(frame.X), 0.0, frame.X) if missing else frame.X, frame.column_names,
                        name=name)


def check_design(frame, k, response_word="response", stacklevel=2, name="data", n_threads=1, read_values=True):
    """Checks of the design matrix shared by every entry point that takes a formula.

    Refuses non-finite values (but NaN, a missing value, under ``na_action='level'`` or
    ``'pass'``: :func:`check_finite_design`) and a formula whose terms have no design column,
    validates ``k`` against the number of candidate terms, and warns about terms
    without columns and constant columns.  Returns (column_terms, k).
    ``read_values=False`` leaves out the checks of the values (non-finite and constant
    columns: :func:`check_design_values`), for a caller that has them from the method.
    """
    if read_values:
        check_design_values(frame, response_word, stacklevel + 1, name, n_threads)
    column_terms = frame.column_terms  # (read, never changed: no copy of a wide design's names)
    if same_names(column_terms, frame.terms) and one_column_per_term(frame.column_names, column_terms):
        candidate_terms, empty_terms = column_terms, []  # every term one column (wide frames: no dict)
    else:
        candidate_terms = dict.fromkeys(column_terms)  # an ordered set: membership in O(1)
        empty_terms = [term for term in frame.terms if term not in candidate_terms]
    if empty_terms:
        warnings.warn(f"{name}: term(s) {', '.join(empty_terms)} have no design column (a categorical "
                      f"with one level) and are not candidates", UserWarning, stacklevel=stacklevel)
    if not candidate_terms:
        raise FormulaError(f"formula {frame.formula!r}: no predictor has any design column")
    return column_terms, check_k(k, len(candidate_terms))


def check_design_values(frame, response_word="response", stacklevel=2, name="data", n_threads=1, constant=None):
    """The checks of the design's values: refuse non-finite values (NaN allowed under
    ``na_action='level'`` or ``'pass'``), warn about constant columns.

    ``constant``: the mask of the constant columns when a method has found them on its own
    read of ``X`` (:attr:`fstools.methods.registry.MethodOutput.constant_columns`), else None.
    """
    if constant is not None:
        constants = [frame.column_names[j] for j in np.flatnonzero(constant)]
    elif frame.na_action in ("level", "pass"):  # NaN allowed: checked apart from the other values
        check_finite_design(frame, name)
        constants = constant_columns(frame.X, frame.column_names)
    else:  # one read of X for both checks
        constants = checked_constant_columns(frame.X, frame.column_names, name, n_threads, frame.column_checks)
    warn_constant_columns(constants, name, response_word, stacklevel)


def _method_reads_design(spec, frame):
    """Whether the design's value checks can come from the method's own read of ``X``
    (:attr:`fstools.methods.registry.MethodSpec.checks_design`): a dense float64 ``X`` whose
    checks are not known yet, rows with missing values dropped or refused (or a bool or integer
    ``X`` the method reads as it is)."""
    return (spec.checks_design and frame.column_checks is None and frame.na_action in ("drop", "raise")
            and isinstance(frame.X, np.ndarray)
            and (frame.X.dtype == np.float64 or (spec.integer_designs and is_integer_design(frame.X))))


def frame_response(frame, response_type, spec, stacklevel=4):
    """The :class:`fstools.model.response.Response` of a one-response formula's frame for method
    ``spec``: ``C(y)`` on the left or ``response_type`` decide the type, else the data; a method
    that cannot take that type is refused (:func:`fstools.methods.registry.check_response`).
    ``spec`` None: no registered method (a procedure's own model, which takes either type)."""
    response_type = check_response_type(response_type)
    name = frame.response_names[0]
    if name in frame.factor_responses:
        if response_type == "continuous":
            raise ValueError(f"response_type: 'continuous' contradicts the formula, which makes the response "
                             f"{label_name(name)!r} classes with C() / factor(); drop one of them")
        response_type, reason = "class", "C() in the formula"
    else:
        reason = None
    target = prepare_response(frame.response[name], response_type, name=f"response {label_name(name)!r}",
                              reason=reason, stacklevel=stacklevel)
    if spec is not None:  # (None: a procedure's own model, e.g. a lasso, takes either type)
        check_response(spec, target.kind)
    return target


def select(formula, data, method="cmqfs", k=None, *, na_action="drop", n_jobs=None, response=None,
           formula_mode="safe", response_type=None, na_values=None, test=None, n_permutations=999,
           permutation_seed=None, step_alpha=None, **params):
    """Select features with a formula and a DataFrame.

    Parameters
    ----------
    formula : str
        R-style: ``"class ~ ."``, ``"y ~ . - a - b"``, ``"y ~ a + b + np.log(c)"``; one-sided
        (``"~ ."``) for a method that uses no response (the Laplacian score),
        categorical predictors (string/category columns or ``C(x)``) are one feature each;
        non-identifier column names in backticks or ``Q("...")``.
    data : pandas.DataFrame
        Not modified.
    method : str
        A registered method (see :func:`fstools.list_methods`), default ``"cmqfs"``.
    k : int, None or 'auto'
        Number of features to select; None ranks every feature.  ``'auto'`` (the greedy methods
        mifs, mifs_u, mrmr, jmi, cmim, cmqfs): run the greedy path to its maximum,
        min(candidates, 50) steps (``fstools.methods.step_tests.AUTO_MAX_STEPS``), test its
        steps in order by their step tests (``test='step'``) and stop before the first step whose
        p-value is not below ``step_alpha`` (NA counts as not significant): the result of
        :meth:`fstools.SelectionResult.cut`, with the cut in the summary.
    na_action : {'drop', 'raise', 'level', 'pass'}
        Rows with missing values: ``'drop'`` drops them (default; the count is on the
        result), ``'raise'`` refuses them.  Methods that can use incomplete rows also take
        (``fs.list_methods()``, column ``na_action``; other methods refuse them, naming the ones
        that take them): ``'level'`` (the information methods: ``mim``, ``mifs``, ``mifs_u``,
        ``mrmr``, ``jmi``, ``cmim``, with ``estimator='plugin'``), a missing value in a predictor
        is a level of its own (a numeric column's observed values are discretised as usual,
        missing is one more level; a factor gets the level ``<NA>``); ``'pass'`` (R's
        ``na.pass``) keeps the rows and the method treats the missing values itself
        (``relieff``: ReliefF's missing-value diff, ``1 - P(value | class)``; Kononenko 1994).
        Rows with a missing response are always dropped (counted).
    na_values : list, optional
        Entries of text columns that mean "missing", e.g. ``['?']`` (as in ``pandas.read_csv``).
        Text columns whose values are all numbers (``Decimal``, numeric strings) are read as
        numbers with a note; a column of numbers with a few other entries is refused, naming
        them, unless they are declared here.
    n_jobs : int or None
        Threads (None: the n_jobs of an enclosing ``joblib.parallel_config``, else all cores or
        ``OMP_NUM_THREADS``). Any value is accepted: more than the usable cores is capped, and
        -1 is all cores, -2 all but one, ... (the threads used are then in the notes).
        Results do not depend on it.
    **params
        The method's parameters (e.g. ``beta=0.3`` for CMQFS); unknown names and values
        out of range raise an error naming the parameter and the allowed values.
        ``preset="paper"`` (for the methods that have one, e.g. ``elc`` and ``onpa``) sets every
        parameter to the paper's literal setting where the library's default differs for a
        documented reason.
        Streaming methods (``mbpa``, ``onpa``, ``pa``, ``pa1``, ``pa2``, ``cs``) stream the rows
        in order (``passes``, ``shuffle``, ``random_state``), code the majority class +1 unless
        ``positive=`` names it, and add ``class_mapping`` and ``stream_metrics`` to the result.
    response : pandas.DataFrame, optional
        Multi-label methods only (``elc``, ``llsf``, ``ml_fisher``, ``ml_mi``): the labels as a
        DataFrame of 0/1 columns with the rows of ``data``; the formula is then one-sided
        (``"~ ."``).  Without it, a multi-label method takes its labels from the left-hand side
        (``"y1 + y2 + y3 ~ ."``).  Multi-label methods return a
        :class:`fstools.results.multilabel_result.MultiLabelResult`.
    response_type : {None, 'class', 'continuous'}, default None
        What the response is.  None decides as R does from the data
        (``fstools.model.response``): strings, booleans, categoricals and integer-valued
        numbers with at most 10 distinct values are classes; other numbers are continuous.
        The decision and its reason are in the summary.  ``C(y)`` or ``factor(y)`` on the left
        of the formula also makes the response classes.  A method that cannot take the
        response's type raises a ValueError naming the methods that can.
    formula_mode : {'safe', 'code'}, default 'safe'
        A formula string is code: its terms are Python expressions that are evaluated (R,
        patsy and statsmodels all treat a formula so).  ``'safe'`` (the default) reads only
        what a formula needs -- column names, ``.``, backticks, ``+ - : * / ^ ( )``, numbers,
        ``C()``/``factor()``, ``I()``, ``Q("name")`` and an allow-list of numeric functions
        (``log``, ``exp``, ``sqrt``, ``abs``, ``scale``, ``poly``, ``np.log``, ...) -- and refuses
        anything else with a :class:`FormulaError` before evaluating anything.  ``'code'``
        evaluates any Python expression; use it only for formulas you wrote yourself.
        Safe is the default because formulas often come from outside the program (a web
        form, a configuration file, the command line), where evaluating them would run
        whatever they hold, and because the safe language already covers R's formula language.
        ``res.transform(new_data)`` evaluates the terms in the mode of the call.
    test : {None, 'permutation', 'step'}, default None
        ``'permutation'``: a permutation test of the method's own score of every feature
        (:meth:`fstools.SelectionResult.test`): p-values, Benjamini-Hochberg and Holm adjusted,
        in ``res.scores`` and the summary.  For the supervised single-response methods; for a
        greedy method it tests the relevance (first-step) score.  ``'step'`` (greedy methods):
        a conditional permutation test of each step of the path given the features chosen
        before (:ref:`step-tests`), in ``res.steps`` and the summary.  With
        ``k='auto'`` the steps are tested (in order, up to the first not significant) anyway.
    n_permutations : int, default 999
        Permutations of the response for ``test`` (and ``k='auto'``).
    permutation_seed : None or int
        Seed of the permutations (``res.test``'s ``random_state``).  It has its own name so that
        it never clashes with a method's ``random_state`` parameter (streaming methods, mim
        with ``estimator='knn'``), which goes with the method's parameters.
    step_alpha : float in (0, 1) or None
        Level of the step tests of ``k='auto'`` (None: 0.05); only with ``k='auto'``.  It has its
        own name so that it never clashes with a method's ``alpha`` parameter.

    Returns
    -------
    SelectionResult

    Examples
    --------
    >>> import fstools as fs
    >>> res = fs.select("class ~ .", fs.datasets.load("wine"), method="cmqfs", k=5)
    >>> len(res.selected)
    5
    """
    if not isinstance(formula, str):
        raise TypeError(f"formula: must be a string such as 'class ~ .'; got {type(formula).__name__}")
    formula_mode = check_mode(formula_mode)
    if type(data).__module__.partition(".")[0] in ("dask", "dask_expr"):  # larger than memory: out of core
        if formula_mode != "safe":
            raise ValueError("formula_mode: the out-of-core path (dask data) reads formulas in the safe "
                             "mode only; got 'code'")
        if test is not None:
            raise ValueError("test: the out-of-core path (dask data) has no permutation test; select on a "
                             "pandas DataFrame for test='permutation'")
        if isinstance(k, str) and k == "auto":
            raise ValueError("k: 'auto' cuts the greedy path by its step tests, which the out-of-core path (dask "
                             "data) does not have; give k as an integer or select on a pandas DataFrame")
        return select_dask(formula, data, method, k, na_action=na_action, n_jobs=n_jobs, response=response, **params)
    data = as_data_frame(data)   # a polars or Arrow frame read once into pandas
    spec = get_method(method)
    values = check_method_params(spec, params)
    check_na_action(spec, na_action, values)
    test, n_permutations, permutation_seed = check_permutation_arguments(test, n_permutations, permutation_seed,
                                                                           seed_name="permutation_seed")
    auto = isinstance(k, str) and k == "auto"
    if auto:
        check_step_method(spec, "k")
        step_alpha = validate(OPEN_UNIT_INTERVAL, 0.05 if step_alpha is None else step_alpha, "step_alpha")
    elif step_alpha is not None:
        raise ValueError(f"step_alpha: the level of k='auto'; only used with k='auto' (got k={k!r})")
    if test == "step":
        check_step_method(spec, "test")
    elif test is not None:
        check_permutation_method(spec)
    effective_n_threads(n_jobs)  # validate early
    response_type = check_response_type(response_type)
    call = format_call(formula, method, k, na_action, n_jobs, params, formula_mode, response_type, na_values,
                       test, n_permutations, permutation_seed, step_alpha)
    if "multilabel" in spec.capabilities and response_type is not None:
        raise TypeError(f"response_type: multi-label methods take 0/1 label columns; {method!r} does not "
                        f"take response_type={response_type!r}")
    if "multilabel" in spec.capabilities:
        # Several 0/1 responses (or response=): the label-matrix path and its own result object.
        if response is not None:
            call = call[:-1] + ", response=<DataFrame>)"
        return select_multilabel(formula, data, spec, k, values=values, response=response,
                                 na_action=na_action, n_jobs=n_jobs, call=call, formula_mode=formula_mode)
    if response is not None:
        raise TypeError(f"response: only multi-label methods take a DataFrame of labels; {method!r} takes "
                        f"its response from the formula")

    # The method reads and checks every value itself (MethodSpec.checks_design): with na_action='drop'
    # the design is not read first for the rows with a missing value, which a wide frame of complete
    # rows does not have.  Should the method refuse a value, select starts again with the values read
    # first (those rows dropped; the design's messages); the first attempt's warnings are shown only
    # when it stands.
    attempts = (False, True) if spec.checks_design and na_action == "drop" else (True,)
    for read_values in attempts:
        recording = warnings.catch_warnings(record=True) if not read_values else contextlib.nullcontext([])
        with recording as caught:
            if not read_values:
                warnings.simplefilter("always")
            try:
                # Pandas sparse predictors stay sparse (CSC) for the methods that take sparse input.
                frame = parse_formula(formula, data, na_action=na_action,
                                      sparse_design="sparse" in spec.capabilities, formula_mode=formula_mode,
                                      na_values=na_values, require_response=False,
                                      n_threads=effective_n_threads(n_jobs), read_values=read_values,
                                      integer_design=spec.integer_designs)
                if not frame.response_names:
                    # A one-sided formula ("~ ."): for the methods that use no response (R's formula
                    # without one).
                    spec.check_response(None)
                    if response_type is not None:
                        raise ValueError(f"response_type: the formula {formula!r} has no response; got "
                                         f"{response_type!r}")
                    target = Response(None, None, None, None)
                elif len(frame.response_names) != 1:
                    raise FormulaError(f"formula {formula!r}: method {method!r} takes one response; the formula "
                                       f"has {len(frame.response_names)} "
                                       f"({', '.join(map(label_name, frame.response_names))})")
                else:
                    target = frame_response(frame, response_type, spec)
                result = select_frame(frame, spec, values, target, k, na_action=na_action, n_jobs=n_jobs, call=call,
                                      test=test, n_permutations=n_permutations, permutation_seed=permutation_seed,
                                      auto=auto, step_alpha=step_alpha)
            except ValueError:
                if read_values:
                    raise
                continue
        for warning in caught:
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno,
                                   source=warning.source)
        return result


@dataclass
class MethodRun:
    """What :func:`run_frame` leaves for :func:`result_of_run`: the method's output on the
    design of a model frame, with the design's names and the number of terms kept."""

    output: MethodOutput
    column_names: list
    column_terms: list
    factor_notes: list
    k: object
    values: dict

    def ranking_by_column(self):
        """The positions of the selected columns when every term is one column (the transformer's
        ``ranking_``), else None: the first ``k`` of the method's ranking."""
        if not one_column_per_term(self.column_names, self.column_terms):
            return None
        ranking = np.asarray(self.output.ranking, dtype=np.intp)
        return ranking if self.k is None else ranking[: self.k]


def run_frame(frame, spec, values, target, k, *, na_action, n_jobs, auto=False, design_name="data", stacklevel=4):
    """The checks of the design and the method: the part of :func:`select_frame` that looks at the
    data (every check, refusal and warning), without building the result tables.

    ``k`` is None under ``auto`` (the greedy path to its maximum).  Returns a :class:`MethodRun`.
    """
    y = target.values
    deferred = _method_reads_design(spec, frame)  # the values checked by the method's own read of X
    column_terms, k = check_design(frame, None if auto else k, stacklevel=stacklevel, name=design_name,
                                   n_threads=effective_n_threads(n_jobs), read_values=not deferred)
    if auto:  # the greedy path to its maximum, cut by its step tests below
        k = min(len(dict.fromkeys(column_terms)), AUTO_MAX_STEPS)

    # A factor is one variable (its level codes, not its best dummy), a missing value under
    # na_action='level' a level of its own, under 'pass' left to the method:
    # fstools.model.terms.method_design.
    X, column_names, column_terms, factor_notes, design_values = method_design(
        spec, frame.X, frame.column_names, column_terms, values, na_action=na_action)
    run_values = {**values, **design_values}
    if "streaming" in spec.capabilities:
        # Streaming methods code the two classes +1 / -1 themselves (majority or positive=),
        # and report the mapping by class name.
        run_values["class_names"] = target.class_names
    try:
        output = run_method(spec, X, y, columns_for_k_terms(column_terms, k, column_names), run_values, n_jobs,
                            column_names=column_names, response_type=target.kind)
    except Exception:
        if deferred:  # a non-finite value is refused in the design's words, naming its columns
            check_design_values(frame, stacklevel=stacklevel, name=design_name)
        raise
    if deferred:
        same_columns = X is frame.X and output.constant_columns is not None
        check_design_values(frame, stacklevel=stacklevel, name=design_name, n_threads=effective_n_threads(n_jobs),
                            constant=output.constant_columns if same_columns else None)
    return MethodRun(output, column_names, column_terms, factor_notes, k, values)


def _run_tables(output, spec, column_names, column_terms, k, selected):
    """(scores, steps) of a result: :func:`fstools.model.terms.term_scores` and
    :func:`fstools.model.terms.steps_table`."""
    scores, _ = term_scores(output, spec, column_names, column_terms, k)
    return scores, steps_table(output, column_terms, selected)


def result_of_run(frame, spec, target, run, *, n_jobs, call, test=None, n_permutations=999, permutation_seed=None,
                  auto=False, step_alpha=None):
    """The :class:`SelectionResult` of a :class:`MethodRun` (the rest of :func:`select_frame`):
    the scores and steps tables, and the tests asked for."""
    output = run.output
    selected = selected_terms(output, run.column_terms, run.k)
    # the scores and steps tables, built when first read (SelectionResult.scores)
    tables = functools.partial(_run_tables, output, spec, run.column_names, run.column_terms, run.k, selected)
    used = dict(run.values)
    used["k"] = run.k
    streaming = "streaming" in spec.capabilities
    # What a stream shows besides the scores (also in the summary's notes): the class mapping
    # (name -> +1 / -1) and the prequential stream metrics (rows 'selected' and 'learner').
    result = SelectionResult(call=call, spec=spec, params=used, model_frame=frame, y=target.values,
                             class_names=target.class_names, scores=tables, selected=selected,
                             notes=[*frame.notes, *target.notes, *run.factor_notes,
                                    *_with_thread_note(output.notes, n_jobs)],
                             iterations=output.iterations, response_type=target.kind,
                             response_reason=target.reason,
                             tables=output.tables, class_mapping=output.class_mapping if streaming else None,
                             stream_metrics=pd.DataFrame(output.stream_metrics).T if streaming else None)
    if test == "permutation" or (test == "step" and not auto):
        result = result.test(test, n_permutations=n_permutations, random_state=permutation_seed, n_jobs=n_jobs)
    if auto:
        result = result.cut(step_alpha, n_permutations=n_permutations, random_state=permutation_seed, n_jobs=n_jobs)
    return result


def select_frame(frame, spec, values, target, k, *, na_action, n_jobs, call, test=None, n_permutations=999,
                 permutation_seed=None, auto=False, step_alpha=None, design_name="data", stacklevel=4):
    """The part of :func:`select` after the formula: checks of the design, the method, the result.

    ``frame`` is the :class:`fstools.model.formula.ModelFrame`, ``values`` the method's checked
    parameters, ``target`` the checked :class:`fstools.model.response.Response`; the other
    arguments are :func:`select`'s, checked.  ``design_name`` names the design in the
    messages about it (``'data'``, or ``'X'`` for :class:`fstools.FeatureSelector`).
    :func:`run_frame` then :func:`result_of_run`.
    """
    run = run_frame(frame, spec, values, target, k, na_action=na_action, n_jobs=n_jobs, auto=auto,
                    design_name=design_name, stacklevel=stacklevel + 1)
    return result_of_run(frame, spec, target, run, n_jobs=n_jobs, call=call, test=test,
                         n_permutations=n_permutations, permutation_seed=permutation_seed, auto=auto,
                         step_alpha=step_alpha)


def _with_response(formula, data, response):
    """The two-sided formula and the combined frame for ``response=`` (a DataFrame of labels)."""
    if not isinstance(response, pd.DataFrame):
        raise TypeError(f"response: must be a pandas DataFrame of 0/1 label columns; got "
                        f"{type(response).__name__}")
    if response.shape[1] == 0:
        raise ValueError("response: has no columns; give one 0/1 column per label")
    if not formula.strip().startswith("~"):
        raise FormulaError(f"formula {formula!r}: with response= the formula has no left-hand side; "
                           f"write it one-sided, e.g. '~ .'")
    names = list(response.columns)
    if not all(isinstance(name, str) for name in names):
        raise TypeError("response: column names must be strings (they name the labels)")
    clash = [name for name in names if name in data.columns]
    if clash:
        raise ValueError(f"response: column(s) {', '.join(map(repr, clash[:5]))} are also columns of data; "
                         f"rename them")
    if len(response) != len(data) or not response.index.equals(data.index):
        raise ValueError(f"response: must have the rows of data (same index); got {len(response)} rows "
                         f"for {len(data)}")
    left = format_formula(names, []).rsplit(" ~ ", 1)[0]
    return f"{left} {formula.strip()}", pd.concat([data, response], axis=1)


def select_multilabel(formula, data, spec, k, *, values, response=None, na_action="drop", n_jobs=None,
                      call="", formula_mode="safe"):
    """The multi-label path of :func:`fstools.select` (see there); returns a :class:`MultiLabelResult`."""
    if response is not None:
        formula_used, frame_data = _with_response(formula, data, response)
    else:
        formula_used, frame_data = formula, data
    frame = parse_formula(formula_used, frame_data, na_action=na_action, formula_mode=formula_mode)
    Y = label_matrix(frame.response)
    column_terms, k = check_design(frame, k, response_word="labels", stacklevel=4)
    output = run_method(spec, frame.X, Y, columns_for_k_terms(column_terms, k), values, n_jobs,
                        column_names=frame.column_names)
    scores, selected = term_scores(output, spec, list(frame.column_names), column_terms, k)
    used = dict(values)
    used["k"] = k
    return MultiLabelResult(call=call, spec=spec, params=used, model_frame=frame, Y=Y, scores=scores,
                            selected=selected, notes=_with_thread_note(output.notes, n_jobs), iterations=output.iterations,
                            tables=output.tables)

"""The user-facing entry point :func:`select`: arguments -> the checked model -> method -> result.

Every user mistake is refused before any kernel runs, with a message naming the argument and the
allowed values: :func:`select` checks its own arguments, then enters the model layer once
(:func:`fstools.model.checked_frame.checked_frame`: the frame read, the formula evaluated, the
response and the design checked), runs the method on that design (:func:`run_checked`) and builds
the result (:func:`result_of_run`).
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
from fstools.model.checked_frame import check_design_values, check_frame, checked_frame
from fstools.model.formula.safe_eval import check_mode
from fstools.model.terms import (columns_for_k_terms, method_design, one_column_per_term, selected_terms,
                                 steps_table, term_scores)
from fstools.methods.permutation import check_permutation_arguments, check_permutation_method
from fstools.methods.registry import MethodOutput, check_na_action, get_method
from fstools.methods.step_tests import AUTO_MAX_STEPS, check_step_method
from fstools.model.response import check_response_type
from fstools.results.multilabel_result import MultiLabelResult
from fstools.results.selection_result import SelectionResult
from fstools.model.validation import check_method_params, check_sparse_input
from fstools.api.dask_input import select_dask

__all__ = ["select", "select_frame", "format_call", "select_multilabel", "run_method", "run_frame", "run_checked",
           "result_of_run"]


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
    multilabel = "multilabel" in spec.capabilities  # several 0/1 responses (or response=): a label matrix
    if multilabel and response is not None:
        call = call[:-1] + ", response=<DataFrame>)"
    if not multilabel and response is not None:
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
                # The model layer, once: the frame read, the formula evaluated, the response and the
                # design checked (fstools.model.checked_frame).
                checked = checked_frame(formula, data, spec, None if auto else k, na_action=na_action,
                                        response_type=response_type, response=response, formula_mode=formula_mode,
                                        na_values=na_values, n_threads=effective_n_threads(n_jobs),
                                        read_values=read_values)
                data = checked.data  # (pandas: a second attempt does not read a polars or Arrow frame again)
                if multilabel:  # its own result object
                    result = select_multilabel(checked, spec, values, n_jobs=n_jobs, call=call)
                else:
                    run = run_checked(checked, spec, values, na_action=na_action, n_jobs=n_jobs, auto=auto)
                    result = result_of_run(checked.frame, spec, checked.target, run, n_jobs=n_jobs, call=call,
                                           test=test, n_permutations=n_permutations,
                                           permutation_seed=permutation_seed, auto=auto, step_alpha=step_alpha)
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
    """What :func:`run_checked` leaves for :func:`result_of_run`: the method's output on the
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

    :func:`fstools.model.checked_frame.check_frame`, then :func:`run_checked`.  ``k`` is None
    under ``auto`` (the greedy path to its maximum).  Returns a :class:`MethodRun`.
    """
    checked = check_frame(frame, spec, target, None if auto else k, name=design_name,
                          n_threads=effective_n_threads(n_jobs), stacklevel=stacklevel)
    return run_checked(checked, spec, values, na_action=na_action, n_jobs=n_jobs, auto=auto, design_name=design_name,
                       stacklevel=stacklevel)


def run_checked(checked, spec, values, *, na_action, n_jobs, auto=False, design_name="data", stacklevel=3):
    """The method on the design of a :class:`fstools.model.checked_frame.CheckedFrame`; returns a
    :class:`MethodRun`.

    Under ``auto`` the greedy path runs to its maximum (cut by its step tests later).  Where the
    checks of the design's values were left to the method's own read of ``X`` (``checked.deferred``)
    they are made here, from the method's output (a refusal in the design's words, naming its
    columns).  ``stacklevel``: where the warnings point, as :func:`warnings.warn` counts from here.
    """
    frame, target, column_terms, k = checked.frame, checked.target, checked.column_terms, checked.k
    if auto:  # the greedy path to its maximum, cut by its step tests
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
        output = run_method(spec, X, target.values, columns_for_k_terms(column_terms, k, column_names), run_values,
                            n_jobs, column_names=column_names, response_type=target.kind)
    except Exception:
        if checked.deferred:  # a non-finite value is refused in the design's words, naming its columns
            check_design_values(frame, stacklevel=stacklevel + 1, name=design_name)
        raise
    if checked.deferred:
        same_columns = X is frame.X and output.constant_columns is not None
        check_design_values(frame, stacklevel=stacklevel + 1, name=design_name, n_threads=effective_n_threads(n_jobs),
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


def select_multilabel(checked, spec, values, *, n_jobs=None, call=""):
    """The multi-label path of :func:`fstools.select` (see there) on a
    :class:`fstools.model.checked_frame.CheckedFrame` whose target is the label matrix; returns a
    :class:`MultiLabelResult`."""
    frame, Y, column_terms, k = checked.frame, checked.target, checked.column_terms, checked.k
    output = run_method(spec, frame.X, Y, columns_for_k_terms(column_terms, k), values, n_jobs,
                        column_names=frame.column_names)
    scores, selected = term_scores(output, spec, list(frame.column_names), column_terms, k)
    used = dict(values)
    used["k"] = k
    return MultiLabelResult(call=call, spec=spec, params=used, model_frame=frame, Y=Y, scores=scores,
                            selected=selected, notes=_with_thread_note(output.notes, n_jobs), iterations=output.iterations,
                            tables=output.tables)

"""Checks of arrays, responses and parameters, with one wording for every error.

Every message names the argument, the value received and what is allowed.
"""
import numbers
import warnings

import numpy as np
import pandas as pd
from scipy import sparse

from fstools.core.arrays import (EXACT_INTEGER_LIMIT, check_exact_integers, default_column_names, integer_levels,
                                 inexact_integer_columns, nonfinite_and_constant_columns, nonfinite_columns)
from fstools.core.messages import did_you_mean, format_count, preview
from fstools.methods.multilabel import check_label_matrix
from fstools.methods.registry import sparse_format, sparse_methods
from fstools.core.sparse import column_ranges

__all__ = ["label_matrix", "check_k", "check_method_params", "encode_classes", "check_finite_matrix",
           "constant_columns", "check_numeric_matrix", "check_sparse_input", "check_integer_columns", "check_integer_frame",
           "split_method"]


def check_k(k, n_features, what="features"):
    """``k`` is None (rank all) or an integer in 1..n_features; returns it as int or None."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k: must be None or an integer in 1..{n_features}; got {k!r}")
    if not 1 <= int(k) <= n_features:
        raise ValueError(f"k: must be in 1..{n_features} (the number of {what}); got {int(k)}")
    return int(k)


def check_method_params(spec, params):
    """All parameters of ``spec`` with their values: defaults filled in, unknown names and
    out-of-range values refused with a message naming the parameter and the allowed values.

    ``params["preset"]`` names one of the method's presets (:class:`fstools.methods.registry.Preset`,
    e.g. ``"paper"``): its values replace the defaults; a parameter given with another value than
    the preset's is refused (the two requests contradict each other).
    """
    if "preset" in params:
        params = dict(params)
        name = params.pop("preset")
        preset = spec.preset(name)
        for parameter, value in preset.items():
            if parameter in params and params[parameter] != value:
                raise ValueError(f"{parameter}: preset={name!r} sets {parameter}={value!r}; got {params[parameter]!r} "
                                 f"(leave {parameter} out, or leave out preset=)")
        params = {**preset, **params}
    known = {parameter.name: parameter for parameter in spec.parameters}
    unknown = sorted(set(params) - set(known))
    if unknown:
        allowed = ", ".join(sorted(known)) if known else "none"
        raise TypeError(f"method {spec.name!r}: unknown parameter(s) {', '.join(unknown)}; "
                        f"its parameters are: {allowed}{did_you_mean(unknown[0], known)}")
    values = {}
    for name, parameter in known.items():
        value = params.get(name, parameter.default)
        values[name] = parameter.validate(value, f" for method {spec.name!r}")
    return values


def encode_classes(labels, name="y", fractional=False, levels=None):
    """Class codes 0..C-1 (int32), the class names and the counts, from any label vector.

    Categorical labels keep their category order (unused categories are dropped);
    others are sorted.  A float response with non-integer values is refused unless
    ``fractional`` (the caller asked for classes explicitly), and an integer response with
    many distinct values warns unless ``fractional``: for a formula's response
    :func:`fstools.model.response.prepare_response` decides between classes and a
    continuous response first.  ``levels``: ``integer_levels`` of the labels' values where the
    caller has counted them already.
    """
    series = labels if isinstance(labels, pd.Series) else pd.Series(np.asarray(labels))
    # (NumPy integer and boolean columns cannot hold a missing value)
    if not (isinstance(series.dtype, np.dtype) and series.dtype.kind in "iub") and series.isna().any():
        raise ValueError(f"{name}: has {int(series.isna().sum())} missing value(s); remove them first")
    if len(series) == 0:
        raise ValueError(f"{name}: is empty")
    counts = None
    if isinstance(series.dtype, pd.CategoricalDtype):
        categorical = series.cat.remove_unused_categories()
        codes = categorical.cat.codes.to_numpy().astype(np.int32)
        names = [str(c) for c in categorical.cat.categories]
    elif (levels := integer_levels(series.to_numpy()) if levels is None else levels) is not None:
        # NumPy integers or booleans of a small range (0/1 labels): counted in one table, the codes
        # and sorted values of the hashing below
        codes, names, counts = levels.codes, [str(value) for value in levels.values], levels.counts
        _warn_many_values(name, len(names), len(codes), fractional, series.dtype.kind != "b")
    else:
        if pd.api.types.is_float_dtype(series.dtype):
            values = series.to_numpy(dtype=np.float64)
            if not np.all(np.isfinite(values)):
                raise ValueError(f"{name}: has non-finite values; allowed: finite numbers or class labels")
            if not fractional and np.any(values != np.round(values)):
                raise ValueError(f"{name}: is a float response with non-integer values (a continuous "
                                 f"response); allowed here: class labels (categorical, string, integer); "
                                 f"fs.select takes a continuous response with methods that accept one")
        # Each distinct label once (hashing, in order of first appearance), then those sorted: the
        # codes of numpy.unique(labels, return_inverse=True) without sorting a million labels
        # (0.9 s for strings; the factorisation takes 0.05 s).
        first_seen, distinct = pd.factorize(series.to_numpy())
        kinds = {type(v) for v in distinct} if series.dtype == object else set()  # (one kind otherwise)
        if len(kinds) > 1 and not all(issubclass(kind, numbers.Number) for kind in kinds):
            raise TypeError(f"{name}: labels of mixed types {sorted(k.__name__ for k in kinds)}; "
                            f"allowed: labels of one type")
        uniques, rank = np.unique(distinct, return_inverse=True)
        codes = rank.ravel().astype(np.int32)[first_seen]
        names = [str(u) for u in uniques]
        _warn_many_values(name, len(uniques), len(series), fractional, pd.api.types.is_numeric_dtype(series.dtype))
    if counts is None:
        counts = np.bincount(codes, minlength=len(names))
    if len(names) < 2:
        raise ValueError(f"{name}: only one class ({names[0]!r}); supervised selection needs at least 2 classes")
    return codes, names, counts


def _warn_many_values(name, n_values, n_rows, fractional, numeric):
    """The warning of :func:`encode_classes` for numeric labels with about one value per two rows."""
    if not fractional and numeric and n_values > max(20, n_rows // 2):
        warnings.warn(f"{name}: {n_values} distinct values in {n_rows} rows: this looks "
                      f"like a regression response; each value is treated as a class", UserWarning,
                      stacklevel=4)


def check_numeric_matrix(X, name="X"):
    """A 2-D float64 array from array-like ``X``; TypeError for non-numeric data."""
    try:
        array = np.asarray(X)
    except Exception as error:  # pragma: no cover - defensive
        raise TypeError(f"{name}: cannot be converted to an array ({error})") from None
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise TypeError(f"{name}: must be numeric; got dtype {array.dtype}. Encode non-numeric columns "
                        f"first, or use fs.select with a formula (strings become categorical terms)")
    if array.ndim != 2:
        raise ValueError(f"{name}: must be 2-D (samples x features); got {array.ndim}-D")
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"{name}: is empty (shape {array.shape}); need at least one sample and one feature")
    check_exact_integers(array, name)
    return np.ascontiguousarray(array, dtype=np.float64)


def check_integer_columns(X, column_names=None, name="X", n_threads=1):
    """ValueError naming the integer columns with a value beyond 2^53 in magnitude, before they
    become float64.

    float64, in which every method computes, holds every integer up to 2^53 exactly; beyond it
    neighbouring integers round to the same value (an int64 column near the int64 maximum would
    become constant), so such columns are refused rather than silently rounded.  Call it where
    integer columns are converted to float64: on the ``X`` of an estimator before its conversion
    (a formula's data columns: :func:`check_integer_frame`).

    Parameters
    ----------
    X : pandas DataFrame, ndarray or scipy sparse matrix
        A DataFrame as :func:`check_integer_frame`; an array or a sparse matrix (its stored
        values) when it has an integer dtype.  Other columns pass.
    column_names : sequence of str, optional
        Names for the columns of an array (default: the indices).
    name : str
        The argument named in the message.
    n_threads : int, default 1
        Threads of the read of int64 columns (:func:`fstools.core.arrays.inexact_integer_columns`).
    """
    if isinstance(X, pd.DataFrame):
        check_integer_frame(X, name, n_threads)
    elif sparse.issparse(X):
        if X.dtype.kind not in "iu" or X.nnz == 0:
            return
        coo = X.tocoo()
        beyond = {}
        for column in np.unique(coo.col[(coo.data > EXACT_INTEGER_LIMIT) | (coo.data < -EXACT_INTEGER_LIMIT)]):
            stored = coo.data[coo.col == column]
            beyond[int(column)] = (int(stored.min()), int(stored.max()))
        _refuse_beyond(beyond, name, lambda j: str(column_names[j]) if column_names is not None else str(j))
    else:
        check_exact_integers(X, name, column_names, n_threads)


def check_integer_frame(frame, name="data", n_threads=1):
    """:func:`check_integer_columns` of a DataFrame: ValueError naming its integer columns with a
    value beyond 2^53 in magnitude.

    Its NumPy integer columns of one dtype are read together, pandas nullable ``Int64``/``UInt64``
    and sparse integer columns one by one (missing values ignored); other columns pass.
    """
    beyond = {}  # column position -> (smallest, largest value) of the columns beyond 2^53
    dtypes = frame.dtypes.to_numpy()
    for dtype in set(dtypes.tolist()):
        if not pd.api.types.is_integer_dtype(dtype):
            continue
        positions = np.flatnonzero(dtypes == dtype)
        if isinstance(dtype, np.dtype):
            # the NumPy integer columns of one dtype read together (no Series per column of a
            # wide frame: 800 x 100,000 int64, 5.9 s -> 0.03 s); 4 bytes or fewer always fit
            if dtype.itemsize == 8 and len(frame):
                matrix = frame.iloc[:, positions].to_numpy()
                for j in np.flatnonzero(inexact_integer_columns(matrix, n_threads)):
                    beyond[int(positions[j])] = (int(matrix[:, j].min()), int(matrix[:, j].max()))
            continue
        for j in positions:  # nullable (Int64, UInt64) and sparse integer columns
            series = frame.iloc[:, j]
            if not bool(series.isna().all()):
                beyond[int(j)] = (int(series.min()), int(series.max()))

    def name_of(j):  # (a list of the labels: an Index gives NumPy scalars in a MultiIndex's tuples)
        return str(frame.columns[j:j + 1].tolist()[0])

    _refuse_beyond(beyond, name, name_of)


def _refuse_beyond(beyond, name, name_of):
    """ValueError for the columns of ``beyond`` (position -> (smallest, largest value)) outside
    +-2^53, named by ``name_of(position)``; nothing when there is none."""
    bad = sorted(j for j, (low, high) in beyond.items() if high > EXACT_INTEGER_LIMIT or low < -EXACT_INTEGER_LIMIT)
    if bad:
        low, high = beyond[bad[0]]
        example = high if high > EXACT_INTEGER_LIMIT else low
        raise ValueError(f"{name}: integers beyond 2^53 in column(s) {preview([name_of(j) for j in bad], quote=True)} "
                         f"(e.g. {example}): float64, in which the scores are computed, cannot hold them "
                         f"exactly (neighbouring values would merge); allowed: integers of magnitude at most "
                         f"2^53 = {EXACT_INTEGER_LIMIT} (subtract an offset, or convert to float yourself if "
                         f"the rounding is acceptable)")


def _stored_columns(X):
    """Column index of every stored value of a CSR, CSC or COO matrix (no densifying)."""
    if X.format == "csc":
        return np.repeat(np.arange(X.shape[1]), np.diff(X.indptr))
    if X.format == "csr":
        return X.indices
    return X.col


def check_finite_matrix(X, column_names, name="X"):
    """ValueError naming the columns that hold NaN or infinite values.

    ``X`` is a dense array or a scipy sparse matrix (only its stored values are
    checked, never densified: the implied zeros are finite).
    """
    if sparse.issparse(X):
        if X.format not in ("csr", "csc", "coo"):
            X = X.tocoo()
        finite = np.isfinite(X.data)
        if finite.all():
            return
        bad = [column_names[j] for j in np.unique(_stored_columns(X)[~finite])]
    else:
        positions = nonfinite_columns(X)
        if positions.size == 0:
            return
        bad = [column_names[j] for j in positions]
    raise _nonfinite_error(bad, name)


def _nonfinite_error(bad, name):
    return ValueError(f"{name}: non-finite values (NaN or inf) in column(s) {preview(bad, quote=True)}; "
                      f"allowed: finite numbers (drop or impute them first)")


def checked_constant_columns(X, column_names, name="data", n_threads=1, checks=None):
    """:func:`check_finite_matrix` and then :func:`constant_columns`, with one read of a dense ``X``.

    Refuses non-finite values (ValueError naming the columns) and returns the names of the
    constant columns; a dense float64 ``X`` is read once, threaded
    (:func:`fstools.core.arrays.nonfinite_and_constant_columns`), anything else as by the two.
    ``checks``: those two masks when already known (not read again).
    """
    if checks is not None:
        nonfinite, constant = checks
    elif sparse.issparse(X) or not isinstance(X, np.ndarray) or X.dtype != np.float64 or X.ndim != 2:
        check_finite_matrix(X, column_names, name=name)
        return constant_columns(X, column_names)
    else:
        nonfinite, constant = nonfinite_and_constant_columns(X, n_threads)
    if nonfinite.any():
        raise _nonfinite_error([column_names[j] for j in np.flatnonzero(nonfinite)], name)
    return [column_names[j] for j in np.flatnonzero(constant)]


def constant_columns(X, column_names):
    """Names of the columns of ``X`` (dense or scipy sparse, zeros implied) with a single value."""
    if X.shape[0] == 0:
        return list(column_names)
    if sparse.issparse(X):
        minimum, maximum = column_ranges(X)
        return [column_names[j] for j in np.flatnonzero(minimum == maximum)]
    return [column_names[j] for j in np.flatnonzero(_constant_mask(X))]


#: Rows compared at a time by :func:`_constant_mask`.
_CONSTANT_CHUNK = 64


def _constant_mask(X):
    """For each column of a dense matrix, whether every row equals the first.

    Compared a block of rows at a time, stopping as soon as no column can still be constant:
    on typical data that is after the first block, instead of two passes over ``X`` (max and
    min).  NaN never equals itself, so a column with NaN is not constant (as with ``np.ptp``).
    """
    X = np.asarray(X)
    first = X[0]
    constant = first == first
    for start in range(1, X.shape[0], _CONSTANT_CHUNK):
        constant &= (X[start:start + _CONSTANT_CHUNK] == first).all(axis=0)
        if not constant.any():
            break
    return constant


def check_sparse_input(spec, X, name="X"):
    """A scipy sparse ``X`` in the form the method reads, or TypeError if it takes no sparse input.

    Methods with the ``sparse`` capability get a float64 matrix in canonical
    format (sorted indices, no duplicates), CSR for streaming methods and CSC for
    the others (:func:`fstools.methods.registry.sparse_format`); the conversion
    copies only when needed and never densifies.  The user's matrix is not modified.

    Raises
    ------
    TypeError
        For a method without the ``sparse`` capability, naming it and the methods that
        take sparse input, or for a non-numeric matrix.
    ValueError
        For a matrix that is not 2-D or holds NaN / infinite values.
    """
    if "sparse" not in spec.capabilities:
        raise TypeError(f"method {spec.name!r} does not take sparse input (allowed for: "
                        f"{', '.join(sparse_methods())}); convert with {name}.toarray() if it fits in memory")
    if X.ndim != 2:
        raise ValueError(f"{name}: must be 2-D (samples x features); got {X.ndim}-D")
    if np.issubdtype(X.dtype, np.complexfloating) or not (np.issubdtype(X.dtype, np.number)
                                                          or X.dtype == bool):
        raise TypeError(f"{name}: must be numeric; got dtype {X.dtype}")
    wanted = sparse_format(spec)
    matrix = X if X.format == wanted else X.asformat(wanted)
    if matrix.dtype != np.float64:
        matrix = matrix.astype(np.float64)
    if not matrix.has_canonical_format:
        if matrix is X:
            matrix = matrix.copy()
        matrix.sum_duplicates()
    if not np.isfinite(matrix.data).all():
        check_finite_matrix(matrix, list(default_column_names(matrix.shape[1])), name=name)
    return matrix


def label_matrix(responses):
    """The 0/1 label matrix (float64, n x l) of a DataFrame of label columns.

    Each column must be boolean, or numeric with two values (0 and 1, or two others: the larger
    means present, :func:`fstools.methods.multilabel.check_label_matrix`), and must hold both.
    ValueError naming the column otherwise.
    """
    columns = []
    names = [str(name) for name in responses.columns]
    for name, label in zip(names, responses.columns):
        series = responses[label]
        if pd.api.types.is_bool_dtype(series.dtype):
            columns.append(series.to_numpy(dtype=np.float64))
            continue
        if not pd.api.types.is_numeric_dtype(series.dtype):
            values = pd.unique(series.dropna())
            shown = ", ".join(repr(v) for v in values[:5]) + (", ..." if len(values) > 5 else "")
            raise ValueError(f"response {name!r}: a label column must hold numbers or booleans (0 and 1, or False "
                             f"and True); got a {series.dtype} column with the values {shown}")
        columns.append(series.to_numpy(dtype=np.float64))
    return check_label_matrix(np.column_stack(columns), names=[f"response {name!r}" for name in names])


def warn_constant_columns(constants, where="data", response_word="response", stacklevel=3):
    """The one warning for constant predictor columns (names in ``constants``), if there are any."""
    if constants:
        shown = ", ".join(constants[:5]) + (", ..." if len(constants) > 5 else "")
        warnings.warn(f"{where}: {format_count(len(constants), 'constant column')} ({shown}), no information "
                      f"about the {response_word}; see the method's documentation for how it scores them",
                      UserWarning, stacklevel=stacklevel + 1)


def split_method(method, params):
    """``(name, parameters)`` of ``method``: a name, or a ``(name, params)`` pair, with ``params``
    (keywords) added; a parameter given in both places is refused."""
    if isinstance(method, (tuple, list)) and len(method) == 2 and isinstance(method[1], dict):
        name, given = method[0], dict(method[1])
        overlap = sorted(set(given) & set(params))
        if overlap:
            raise TypeError(f"method: parameter(s) {', '.join(overlap)} given twice (in the pair and as keywords)")
        given.update(params)
        return name, given
    return method, dict(params)

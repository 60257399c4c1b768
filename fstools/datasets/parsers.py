"""Readers for the file formats of the data repositories: ARFF (dense and sparse rows), svmlight
(LIBSVM), MATLAB ``.mat`` with ``X`` and ``Y`` (scikit-feature) and CSV.

:func:`read_arff` returns the file's attributes as they are; the other readers, and
:func:`split_labels` for a Mulan file, return what :func:`fstools.datasets.fetch` returns:
snake_case predictors, then the response as a categorical column ``class`` or, for a
multi-label set, one 0/1 integer column per label.

scikit-learn (``load_svmlight_file``) and ``scipy.io`` are imported inside the readers that use
them, so that ``import fstools`` does not import them.
"""
import csv
import re

import numpy as np
import pandas as pd
from scipy import sparse

from fstools.datasets.naming import RESPONSE, snake_case

__all__ = ["ArffError", "join_rows", "read_arff", "read_csv", "read_mat", "read_svmlight", "split_labels",
           "unique_names", "with_response"]


class ArffError(ValueError):
    """A file that is not valid ARFF (the message names the file and the line)."""


_ATTRIBUTE = re.compile(r"""@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s{]+)\s*(.*)$""", re.IGNORECASE)
_NUMERIC = ("numeric", "real", "integer")


def _unquote(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text


def _split(text):
    """Comma-separated values, quotes respected (ARFF quotes with ' or ")."""
    quote = "'" if "'" in text else '"'
    return [_unquote(value) for value in next(csv.reader([text], quotechar=quote, skipinitialspace=True))]


def read_arff(path, sparse_output=False):
    """Read an ARFF file, dense rows (``1.5,0,a``) and sparse rows (``{0 1.5, 2 a}``) alike.

    Parameters
    ----------
    path : str or path-like
    sparse_output : bool, default False
        Return the numeric columns as sparse columns (``pandas.SparseDtype``, fill value 0).

    Returns
    -------
    pandas.DataFrame
        One column per attribute, named as in the file.  Numeric attributes are float (``?`` is
        NaN); nominal ones are categoricals with the declared values as categories.  As the ARFF
        format defines, a value left out of a sparse row is 0: for a nominal attribute, its first
        declared value.

    Raises
    ------
    ArffError
        A malformed header or row, naming the file and the line.
    """
    names, kinds = [], []
    rows, columns, values = [], [], []
    n_rows = 0
    in_data = False
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text or text.startswith("%"):
                continue
            where = f"{path}, line {number}"
            if not in_data:
                lower = text.lower()
                if lower.startswith("@attribute"):
                    match = _ATTRIBUTE.match(text)
                    if match is None:
                        raise ArffError(f"{where}: cannot read the attribute declaration {text!r}")
                    names.append(_unquote(match.group(1)))
                    kinds.append(_attribute_kind(match.group(2).strip(), where))
                elif lower.startswith("@data"):
                    in_data = True
                elif not lower.startswith("@relation"):
                    raise ArffError(f"{where}: expected @relation, @attribute or @data; got {text[:40]!r}")
                continue
            if text.startswith("{"):
                if not text.endswith("}"):
                    raise ArffError(f"{where}: a sparse row must end with '}}'")
                cells = _sparse_cells(text[1:-1], len(names), where)
            else:
                fields = _split(text)
                if len(fields) != len(names):
                    raise ArffError(f"{where}: {len(fields)} values for {len(names)} attributes")
                cells = enumerate(fields)
            for index, value in cells:
                code = _encode(value, kinds[index], names[index], where)
                if code != 0.0:
                    rows.append(n_rows)
                    columns.append(index)
                    values.append(code)
            n_rows += 1
    if not in_data:
        raise ArffError(f"{path}: no @data section")
    matrix = sparse.csc_matrix((np.asarray(values, dtype=float), (rows, columns)),
                               shape=(n_rows, len(names)))
    frame = {}
    for j, (name, kind) in enumerate(zip(names, kinds)):
        column = matrix[:, j]
        if kind is None:
            frame[name] = (pd.arrays.SparseArray(column.toarray().ravel(), fill_value=0.0) if sparse_output
                           else column.toarray().ravel())
        else:
            codes = column.toarray().ravel()
            codes = np.where(np.isnan(codes), -1, codes).astype(int)
            frame[name] = pd.Categorical.from_codes(codes, categories=kind)
    return pd.DataFrame(frame, columns=names)


def _kind(dtype):
    if isinstance(dtype, pd.CategoricalDtype):
        return "{" + ", ".join(map(str, dtype.categories)) + "}"
    return str(dtype)


def join_rows(frames, paths):
    """The rows of ``frames``, read from the files ``paths``, one after the other (a new index).

    Parameters
    ----------
    frames : list of pandas.DataFrame
        As :func:`read_arff` returns them.
    paths : list of str or path-like
        The file of each frame, for the messages.

    Returns
    -------
    pandas.DataFrame
        The only frame as it is, or the frames joined; nominal attributes stay categoricals.

    Raises
    ------
    ValueError
        A file whose attributes (names, order, types or nominal values) are not those of the
        first, naming both files.
    """
    first = frames[0]
    for frame, path in zip(frames[1:], paths[1:]):
        if list(frame.columns) != list(first.columns):
            raise ValueError(f"{path}: its attributes ({frame.shape[1]}) are not those of {paths[0]} "
                             f"({first.shape[1]}): the files cannot be joined")
        for name, ours, theirs in zip(first.columns, first.dtypes, frame.dtypes):
            if ours != theirs:
                raise ValueError(f"{path}: attribute {name!r} is {_kind(theirs)} there and {_kind(ours)} in "
                                 f"{paths[0]}: the files cannot be joined")
    return first if len(frames) == 1 else pd.concat(frames, ignore_index=True)


_SPARSE_CELL = re.compile(r"""\s*(\S+?)\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^,]*?)\s*(?:,|$)""")


def _sparse_cells(content, n_attributes, where):
    """``0 1.5, 2 'a b'`` -> [(0, '1.5'), (2, 'a b')]."""
    cells, position = [], 0
    content = content.strip()
    while position < len(content):
        match = _SPARSE_CELL.match(content, position)
        index = match.group(1) if match else content[position:].split(",")[0].strip()
        if match is None or not index.isdigit() or int(index) >= n_attributes:
            raise ArffError(f"{where}: {content[position:].split(',')[0].strip()!r} does not start with an "
                            f"attribute index in 0..{n_attributes - 1}")
        cells.append((int(index), _unquote(match.group(2))))
        position = match.end()
    return cells


def _attribute_kind(declaration, where):
    """None for a numeric attribute, the list of values for a nominal one."""
    if declaration.lower() in _NUMERIC:
        return None
    if declaration.startswith("{") and declaration.endswith("}"):
        return _split(declaration[1:-1])
    raise ArffError(f"{where}: attribute type {declaration!r} is not supported "
                    f"(allowed: numeric, real, integer or {{nominal values}})")


def _encode(value, kind, name, where):
    if value == "?":
        return np.nan
    if kind is None:
        try:
            return float(value)
        except ValueError:
            raise ArffError(f"{where}: attribute {name!r} is numeric; got {value!r}") from None
    if value not in kind:
        raise ArffError(f"{where}: attribute {name!r} takes {', '.join(map(repr, kind))}; got {value!r}")
    return float(kind.index(value))


def unique_names(names):
    """snake_case names, made unique by ``_2``, ``_3``... suffixes where two would coincide."""
    seen = {}
    result = []
    for name in names:
        base = snake_case(name)
        count = seen.get(base, 0) + 1
        seen[base] = count
        result.append(base if count == 1 else f"{base}_{count}")
    if len(set(result)) != len(result):
        raise ValueError(f"names: cannot make unique column names from {list(names)!r}")
    return result


def split_labels(frame, n_labels):
    """A Mulan frame (labels last) with snake_case predictors and 0/1 integer labels."""
    if not 1 <= n_labels < frame.shape[1]:
        raise ValueError(f"n_labels: must be in 1..{frame.shape[1] - 1} for a file of {frame.shape[1]} "
                         f"attributes; got {n_labels}")
    features, labels = frame.iloc[:, :-n_labels], frame.iloc[:, -n_labels:]
    out = features.copy()
    names = unique_names(list(features.columns) + list(labels.columns))
    out.columns = names[:features.shape[1]]
    for name, label in zip(names[features.shape[1]:], labels.columns):
        out[name] = _zero_one(labels[label], label)
    return out


def _zero_one(column, name):
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = [str(c) for c in column.cat.categories]
        if sorted(categories) not in (["0", "1"], ["0"], ["1"]):
            raise ValueError(f"label {name!r}: expected the values 0 and 1; got {categories!r}")
        values = column.astype(str)
    else:
        values = pd.Series(np.asarray(column, dtype=float)).map(lambda v: str(int(v)) if v in (0, 1) else "?")
        if (values == "?").any():
            raise ValueError(f"label {name!r}: expected the values 0 and 1")
    return (np.asarray(values) == "1").astype(np.int64)


def with_response(features, y, names=None):
    """Predictors (renamed to ``names`` or x1..xd) followed by the categorical response ``class``."""
    frame = features if isinstance(features, pd.DataFrame) else _matrix_frame(features, names)
    if RESPONSE in frame.columns:
        raise ValueError(f"a predictor is named {RESPONSE!r}, the response's name")
    y = np.asarray(y).ravel()
    if y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
        y = y.astype(np.int64)
    frame = frame.copy()
    frame[RESPONSE] = pd.Categorical(y)
    return frame


def _matrix_frame(X, names):
    names = names if names is not None else [f"x{j + 1}" for j in range(X.shape[1])]
    if sparse.issparse(X):
        return pd.DataFrame.sparse.from_spmatrix(sparse.csc_matrix(X, dtype=float), columns=names)
    return pd.DataFrame(np.asarray(X, dtype=float), columns=names)


def read_svmlight(path, n_features=None, sparse_output=True):
    """A LIBSVM (svmlight) file, 1-based feature indices, ``.bz2``/``.gz`` read as they are."""
    # Imported here: scikit-learn is slow to import and only this reader needs it.
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(path), n_features=n_features, zero_based=False)
    return with_response(X if sparse_output else X.toarray(), y)


def read_mat(path, sparse_output=False):
    """A MATLAB file holding the predictors ``X`` (rows = samples) and the classes ``Y``."""
    # Imported here: scipy.io is only needed for this format.
    from scipy import io

    content = io.loadmat(str(path))
    missing = [key for key in ("X", "Y") if key not in content]
    if missing:
        found = sorted(key for key in content if not key.startswith("__"))
        raise ValueError(f"{path}: expected the variables X and Y; missing {', '.join(missing)} "
                         f"(found: {', '.join(found) or 'none'})")
    X, y = content["X"], np.asarray(content["Y"]).ravel()
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"{path}: X has {X.shape[0]} rows but Y has {y.shape[0]} values")
    if sparse.issparse(X) and not sparse_output:
        X = X.toarray()
    elif sparse_output and not sparse.issparse(X):
        X = sparse.csc_matrix(X)
    return with_response(X, y)


def read_csv(path, target):
    """A CSV file with a header; ``target`` is the response column."""
    frame = pd.read_csv(path)
    if target not in frame.columns:
        raise ValueError(f"{path}: no response column {target!r}; columns: "
                         f"{', '.join(map(str, frame.columns[:10]))}")
    features = frame.drop(columns=target)
    features.columns = unique_names(features.columns)
    return with_response(features, frame[target].to_numpy())

"""The user's data frame, whatever library made it, as the pandas DataFrame the model layer reads.

fstools' interface is a formula and a data frame.  :func:`as_data_frame` takes the frame the
user has:

* a pandas DataFrame, as it is (never copied or modified here);
* a polars DataFrame, a pyarrow Table or RecordBatch, or any object that offers the Arrow
  PyCapsule stream (``__arrow_c_stream__``: polars, pyarrow, DuckDB relations, ...), read through
  Arrow (``pyarrow.table``) and converted by ``pyarrow.Table.to_pandas`` -- one copy of the
  numeric columns, which then reach the kernels without another (the ``y ~ .`` path reads the
  pandas block in place);
* a polars LazyFrame, collected first (with a warning: the query runs here).

Arrow directly rather than a frame-agnostic layer such as narwhals: the PyCapsule stream is the
one interface polars, pyarrow and the other Arrow producers share, and ``pyarrow``'s conversion
keeps what the formula layer needs -- a categorical (polars Categorical or Enum, an Arrow
dictionary) becomes a pandas Categorical with its categories in their order, a string column an
object column, a missing value NaN or None, an integer column with missing values float64.
Converting 1,000,000 x 50 float64 from polars took 0.21-0.23 s by each of
``pyarrow.table(df).to_pandas()``, ``df.to_pandas()`` and narwhals' ``to_pandas`` (which call
pyarrow the same way), against 0.26 s column by column through NumPy.  pyarrow is needed only
for such frames (it is not a dependency of fstools): without it the error says how to install it.

A multi-label method's labels may come as a frame of their own (``response=``):
:func:`with_response` puts them beside the data, named on a formula's left-hand side.
"""
import warnings

import pandas as pd

from fstools.model.exceptions import FormulaError
from fstools.model.formula.names import format_formula

__all__ = ["as_data_frame", "ACCEPTED_FRAMES", "is_data_frame_like", "qualified_type", "with_response"]

#: What :func:`as_data_frame` accepts, in words (for error messages).
ACCEPTED_FRAMES = ("a pandas DataFrame, a polars DataFrame or LazyFrame, a pyarrow Table, or any frame "
                   "with the Arrow PyCapsule stream (__arrow_c_stream__)")


def qualified_type(value):
    """``'polars.DataFrame'``, ``'pandas.core.frame.DataFrame'`` shortened to its package's public
    name where the type is re-exported there (``'pandas.DataFrame'``), else ``module.Name``."""
    kind = type(value)
    module = kind.__module__ or ""
    package = module.partition(".")[0]
    if package and package != "builtins":
        try:
            top = __import__(package)
        except ImportError:  # pragma: no cover - a module that cannot be imported again
            top = None
        if getattr(top, kind.__name__, None) is kind:
            return f"{package}.{kind.__name__}"
        return f"{module}.{kind.__name__}"
    return kind.__name__


def _is_polars_lazy(data):
    kind = type(data)
    return kind.__module__.partition(".")[0] == "polars" and kind.__name__ == "LazyFrame"


def is_data_frame_like(data):
    """True for what :func:`as_data_frame` converts (without converting it): a pandas DataFrame, a
    polars DataFrame or LazyFrame, a pyarrow Table or RecordBatch, or another library's object with
    the Arrow PyCapsule stream (a polars Series, a column, has a stream too but is no frame)."""
    if isinstance(data, pd.DataFrame):
        return True
    package, name = type(data).__module__.partition(".")[0], type(data).__name__
    if package == "polars":
        return name in ("DataFrame", "LazyFrame")
    if package == "pyarrow":
        return name in ("Table", "RecordBatch")
    return hasattr(data, "__arrow_c_stream__")


def as_data_frame(data, name="data", stacklevel=3):
    """``data`` as a pandas DataFrame (see the module's description).

    Parameters
    ----------
    data : pandas.DataFrame, polars.DataFrame, polars.LazyFrame, pyarrow.Table or an Arrow stream
    name : str
        The argument's name in error messages.
    stacklevel : int
        Where the warning about a LazyFrame points, as :func:`warnings.warn` counts from here
        (3: the caller's caller).

    Returns
    -------
    pandas.DataFrame
        ``data`` itself when it is one; else a new frame.

    Raises
    ------
    TypeError
        For anything else, naming its type with its module and what is accepted; or, for an
        Arrow frame when pyarrow is not installed, saying how to install it.
    """
    if isinstance(data, pd.DataFrame):
        return data
    if _is_polars_lazy(data):
        warnings.warn(f"{name}: a polars LazyFrame; collected here (the query runs now)", UserWarning,
                      stacklevel=stacklevel)
        data = data.collect()
    if not is_data_frame_like(data):
        raise TypeError(f"{name}: must be {ACCEPTED_FRAMES}; got {qualified_type(data)}")
    try:
        import pyarrow
    except ImportError:
        raise TypeError(f"{name}: a {qualified_type(data)} is read through Arrow, which needs pyarrow: "
                        f"pip install pyarrow (or pass a pandas DataFrame)") from None
    if isinstance(data, pyarrow.Table):
        table = data
    elif type(data).__module__.partition(".")[0] == "polars":
        table = data.to_arrow()     # (every polars 1.x; its Arrow stream too from 1.x on)
    else:
        table = pyarrow.table(data)  # a RecordBatch, or any Arrow PyCapsule stream
    return table.to_pandas()


def with_response(formula, data, response):
    """The two-sided formula and the combined frame for ``response=`` (a DataFrame of labels beside
    the pandas ``data``, with its rows), checked: TypeError or ValueError naming what is wrong."""
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

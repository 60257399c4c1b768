"""The ``fstools`` command: a thin layer over :func:`fstools.select`, :func:`fstools.compare`,
:func:`fstools.stability` and the procedures with a guarantee (:func:`fstools.stability_selection`,
:func:`fstools.knockoff_filter`, :func:`fstools.boruta`).

Examples
--------
::

    fstools select "class ~ ." --data wine --method cmqfs -k 5
    fstools select "class ~ ." --data wine -k 5 --format json --param beta=0.5
    fstools select "y ~ . - id" --data measurements.csv -k 10 --format csv --plot scores.png
    fstools select "y ~ ." --data - --sep ';' --encoding latin-1 < export.csv
    fstools compare "class ~ ." --data wine --methods cmqfs,mrmr,fisher -k 2,4,6 --format latex
    fstools stability "class ~ ." --data wine --method cmqfs -k 5 --plot stability.png
    fstools stabsel "class ~ ." --data wine --method mrmr -q 4 --pfer 1 --random-state 0
    fstools knockoff "class ~ ." --data wine --method lasso --fdr 0.1 --random-state 0
    fstools boruta "class ~ ." --data wine --importance mim --random-state 0
    fstools methods
    fstools datasets
    fstools --version

Mistakes in the command line or the input (a bad option value, an unknown data set, a
missing or unreadable CSV file, a formula that does not fit the data, a bad parameter, a
plot or output file that cannot be written) print one line, ``fstools: error: <message>``, on
stderr and exit with status 2; warnings are
printed as ``fstools: warning: <message>``, one line each.  Ctrl-C (SIGINT) stops a
command within about a second, also inside the compiled kernels: it prints
``fstools: interrupted`` on stderr and exits with status 130 (128 + SIGINT), without a
traceback.
"""
# Imports of fstools and pandas are inside the commands, so that `fstools --help` and usage errors
# answer at once, without loading the package.
import argparse
import codecs
import csv
import difflib
import io
import json
import math
import numbers
import os
import re
import sys
import warnings

from fstools.methods.registry import NA_ACTIONS

__all__ = ["main", "build_parser", "parse_param_value"]

PROG = "fstools"
EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C

# Arguments of fs.select and fs.stability that have their own options (or none) and cannot be given
# by --param, with what to do instead.
_RESERVED_PARAMS = {"formula": "use FORMULA", "data": "use --data", "method": "use --method", "k": "use -k/--k",
                    "na_action": "use --na-action", "n_jobs": "use --n-jobs", "formula_mode": "use --allow-code",
                    "response_type": "use --response-type"}
_STABILITY_PARAMS = {**_RESERVED_PARAMS, "n_bootstrap": "use --n-bootstrap", "random_state": "use --random-state",
                     "alpha": "use --alpha", "standardize": "use --standardize",
                     "progress": "the command draws no progress bar"}


_GUARANTEE_PARAMS = {**_RESERVED_PARAMS, "random_state": "use --random-state",
                     "progress": "the command draws no progress bar"}


class UserError(Exception):
    """A mistake in the command line or its input; reported as one line, exit status 2."""


class _UsageError(Exception):
    """Raised by the parser instead of exiting, so that :func:`main` returns a status."""

    def __init__(self, parser, message):
        super().__init__(message)
        self.parser = parser


class _ArgumentParser(argparse.ArgumentParser):
    """Usage errors as one line (``fstools: error: ...``) and status 2, without the usage text."""

    def error(self, message):
        raise _UsageError(self, message)


def _positive_int(text):
    """``-k``: a whole number of features, at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of features to select, e.g. -k 5; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"the number of features to select must be at least 1; got {value}; "
            f"leave -k out to rank every feature")
    return value


def _k_or_auto(text):
    """``-k`` of select: a whole number of features, or ``auto`` (the greedy path cut by its step tests)."""
    if text.strip().lower() == "auto":
        return "auto"
    return _positive_int(text)


def _unit_interval(text):
    """``--step-alpha``: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, e.g. 0.05; got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1; got {value:g}")
    return value


# --------------------------------------------------------------------------- helpers
def _one_line(text):
    """A message collapsed to one line."""
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _error_message(error):
    message = _one_line(error)
    if isinstance(error, UnicodeDecodeError):
        message = f"not a text file ({message})"
    return message or type(error).__name__


def _print_error(message):
    print(f"{PROG}: error: {_one_line(message)}", file=sys.stderr)


def _relay_warnings(caught):
    for item in caught:
        message = _one_line(item.message)
        if item.category is not UserWarning:
            message = f"{item.category.__name__}: {message}"
        print(f"{PROG}: warning: {message}", file=sys.stderr)


def parse_param_value(text):
    """``'3'`` -> 3, ``'0.5'`` -> 0.5, ``'true'``/``'false'``/``'none'`` -> True/False/None, else the text."""
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    special = {"true": True, "false": False, "none": None}
    return special.get(text.strip().lower(), text)


def _parse_params(items, reserved=None):
    """``--param NAME=VALUE`` items as a dict; ``reserved``: the command's own arguments (name -> what
    to do instead)."""
    reserved = _RESERVED_PARAMS if reserved is None else reserved
    params = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UserError(f"--param: expected NAME=VALUE (e.g. beta=0.5); got {item!r}")
        if name in reserved:
            raise UserError(f"--param {name}: not a method parameter; {reserved[name]}")
        if not name.isidentifier():
            raise UserError(f"--param: {name!r} is not a parameter name")
        if name in params:
            raise UserError(f"--param {name}: given more than once")
        params[name] = parse_param_value(value)
    return params


# Byte-order marks, longest first (the UTF-32 LE mark begins with the UTF-16 LE one).
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32", "UTF-32 (little-endian)"),
         (codecs.BOM_UTF32_BE, "utf-32", "UTF-32 (big-endian)"),
         (codecs.BOM_UTF8, "utf-8-sig", "UTF-8 with a byte-order mark"),
         (codecs.BOM_UTF16_LE, "utf-16", "UTF-16 (little-endian)"),
         (codecs.BOM_UTF16_BE, "utf-16", "UTF-16 (big-endian)"))
# Delimiters tried when --sep is not given, in order of preference, with how messages name them.
_SEPARATORS = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "'|'"}
_SNIFF_BYTES = 16 * 1024
_SNIFF_ROWS = 100


def _sep_option(text):
    """``--sep``: one character; ``tab`` or ``\\t`` for a tab."""
    if text.lower() in ("tab", "\\t"):
        return "\t"
    if len(text) != 1:
        raise argparse.ArgumentTypeError(
            f"expected one character, e.g. --sep ';' or --sep tab; got {text!r}")
    return text


def _sep_flag(sep):
    return "--sep tab" if sep == "\t" else f"--sep '{sep}'"


def _encoding_option(text):
    """``--encoding``: a codec Python knows."""
    try:
        return codecs.lookup(text).name
    except LookupError:
        raise argparse.ArgumentTypeError(
            f"unknown encoding {text!r}; e.g. utf-8, latin-1, cp1252, utf-16") from None


def _detect_bom(head):
    for bom, encoding, description in _BOMS:
        if head.startswith(bom):
            return encoding, description
    return None, None


def _nul_bytes_message(head):
    """Why a file without a byte-order mark that holds NUL bytes cannot be read, and what to do."""
    even, odd = head[0::2], head[1::2]
    for zeros, other, encoding in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if len(head) >= 4 and not zeros.strip(b"\0") and b"\0" not in other:
            return (f"it looks like {encoding.upper()} text without a byte-order mark; "
                    f"pass --encoding {encoding}")
    return ("it holds NUL bytes: not a text file, or UTF-16/UTF-32 text without a byte-order mark "
            "(then pass --encoding utf-16-le, utf-16-be, utf-32-le or utf-32-be)")


def _sniff_sep(text, complete):
    """The delimiter of CSV text (its first rows): the first of ``_SEPARATORS`` that splits the
    header into more than one column and every other row into as many; else the one that fits the
    most rows; None when none splits the header."""
    if not complete and "\n" in text:
        text = text[:text.rindex("\n") + 1]  # drop the row cut off by the sample's end
    best, best_fit = None, -1
    for sep in _SEPARATORS:
        try:
            rows = []
            for row in csv.reader(io.StringIO(text), delimiter=sep):
                if row:
                    rows.append(len(row))
                if len(rows) > _SNIFF_ROWS:
                    break
        except csv.Error:
            continue
        if not rows or rows[0] < 2:
            continue
        fit = sum(n == rows[0] for n in rows[1:])
        if fit == len(rows) - 1:
            return sep
        if fit > best_fit:
            best, best_fit = sep, fit
    return best


_DECIMAL_COMMA = re.compile(r"\s*[-+]?\d*,\d+([eE][-+]?\d+)?\s*")
_DECIMAL_POINT = re.compile(r"\s*[-+]?\d*\.\d+([eE][-+]?\d+)?\s*")


def _sniff_decimal(text, sep, complete):
    """',' when the fields of the first data rows hold numbers like 1,5 and none like 1.5 (a
    semicolon-separated export with decimal commas), else '.'."""
    if sep == "," or sep is None:
        return "."
    if not complete and "\n" in text:
        text = text[:text.rindex("\n") + 1]
    comma = point = False
    try:
        for i, row in enumerate(csv.reader(io.StringIO(text), delimiter=sep)):
            if i == 0:
                continue  # the header
            if i > _SNIFF_ROWS:
                break
            comma = comma or any(_DECIMAL_COMMA.fullmatch(field) for field in row)
            point = point or any(_DECIMAL_POINT.fullmatch(field) for field in row)
    except csv.Error:
        return "."
    return "," if comma and not point else "."


#: The first bytes of the binary table formats read through Arrow (their magic numbers), and
#: their names: Parquet files, Arrow IPC files (Feather version 2), Feather version 1 files, and
#: Arrow IPC streams (which open with the continuation marker 0xFFFFFFFF).
_ARROW_FORMATS = ((b"PAR1", "Parquet"), (b"ARROW1", "Arrow IPC (Feather)"), (b"FEA1", "Feather"),
                  (b"\xff\xff\xff\xff", "Arrow IPC stream"))


def _arrow_format(head):
    """The name of the binary table format whose magic number ``head`` starts with, or None."""
    for magic, name in _ARROW_FORMATS:
        if head.startswith(magic):
            return name
    return None


def _read_arrow_table(reader_input, kind, label):
    """A Parquet, Feather or Arrow IPC file (a path or a binary stream) as a DataFrame, through
    pyarrow (:func:`fstools.model.frames.as_data_frame`)."""
    try:
        import pyarrow
        import pyarrow.feather
        import pyarrow.ipc
        import pyarrow.parquet
    except ImportError:
        raise UserError(f"--data: {label} is a {kind} file, which is read with pyarrow: pip install pyarrow "
                        f"(or convert it to CSV)") from None
    from fstools.model.frames import as_data_frame

    try:
        if kind == "Parquet":
            table = pyarrow.parquet.read_table(reader_input)
        elif kind == "Arrow IPC stream":
            table = pyarrow.ipc.open_stream(reader_input).read_all()
        else:
            table = pyarrow.feather.read_table(reader_input)
    except (OSError, pyarrow.ArrowException) as error:
        raise UserError(f"--data: cannot read {label} as {kind}: {_error_message(error)}") from None
    return as_data_frame(table, "--data")


def _read_data(source, sep=None, encoding=None, decimal=None):
    """A bundled data set by name, a CSV, Parquet, Feather or Arrow IPC file by path, or the same on
    standard input (``-``), as a DataFrame.  A binary table is told by its first bytes and read
    through pyarrow.  Without ``encoding`` a byte-order mark (UTF-8, UTF-16, UTF-32) is followed, else
    UTF-8 is read; without ``sep`` the delimiter is sniffed from the first rows, and without
    ``decimal`` a file separated by another character than ',' whose numbers are written 1,5 is
    read with decimal commas."""
    import pandas as pd

    from fstools import datasets

    if source == "-":
        label = "standard input"
        try:
            if sys.stdin is None or sys.stdin.isatty():
                raise UserError("--data -: standard input is a terminal; pipe a CSV file in, "
                                "e.g. fstools select 'y ~ .' --data - < data.csv")
        except (AttributeError, ValueError):
            pass
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        content = stream.read()
        if isinstance(content, str):
            content = content.encode(getattr(sys.stdin, "encoding", None) or "utf-8")
        head, reader_input = content[:_SNIFF_BYTES], io.BytesIO(content)
        complete = len(content) <= _SNIFF_BYTES
        if _arrow_format(head) is not None:
            return _read_arrow_table(io.BytesIO(content), _arrow_format(head), label)
    else:
        names = datasets.list()
        if source in names:
            return datasets.load(source)
        if not os.path.exists(source):
            raise UserError(f"--data: {source!r} is neither a bundled data set ({', '.join(names)}) "
                            f"nor an existing CSV file (use --data - for standard input)")
        if os.path.isdir(source):
            raise UserError(f"--data: {source!r} is a directory; expected a CSV file")
        label = f"CSV file {source!r}"
        try:
            with open(source, "rb") as handle:
                head = handle.read(_SNIFF_BYTES + 1)
        except OSError as error:
            raise UserError(f"--data: cannot read {label}: {_error_message(error)}") from None
        if _arrow_format(head) is not None:
            return _read_arrow_table(source, _arrow_format(head), f"file {source!r}")
        complete = len(head) <= _SNIFF_BYTES
        head, reader_input = head[:_SNIFF_BYTES], source

    bom_encoding, bom_description = _detect_bom(head)
    if encoding is None:
        if bom_encoding is None and b"\0" in head:
            raise UserError(f"--data: cannot read {label}: {_nul_bytes_message(head)}")
        encoding = bom_encoding or "utf-8"
    elif encoding == "utf-8" and bom_encoding == "utf-8-sig":
        encoding = "utf-8-sig"
    text_head = head.decode(encoding, errors="replace").replace("\ufeff", "")
    if not text_head.strip():
        raise UserError(f"--data: {label} is empty; expected CSV text with a header row")
    if sep is None:
        sep = _sniff_sep(text_head, complete)
    if decimal is None:
        decimal = _sniff_decimal(text_head, sep, complete)

    try:
        frame = pd.read_csv(reader_input, sep=sep or ",", decimal=decimal, encoding=encoding)
    except UnicodeDecodeError as error:
        byte = error.object[error.start:error.start + 1]
        what = bom_description if encoding == bom_encoding else encoding.upper().replace("_", "-")
        hint = ("pass its encoding, e.g. --encoding latin-1 or --encoding cp1252"
                if encoding in ("utf-8", "utf-8-sig") else
                "pass the right --encoding (e.g. utf-8, latin-1, cp1252, utf-16)")
        raise UserError(f"--data: cannot read {label}: it is not {what} text "
                        f"(byte 0x{byte.hex() or '??'} cannot be decoded); {hint}") from None
    except UnicodeError as error:  # e.g. utf-16 asked for, no byte-order mark found
        endian = f"; for text without one pass --encoding {encoding}-le or {encoding}-be" \
            if encoding in ("utf-16", "utf-32") else "; pass the right --encoding"
        raise UserError(f"--data: cannot read {label}: {_error_message(error)}{endian}") from None
    except (OSError, ValueError, pd.errors.ParserError) as error:  # EmptyDataError
        raise UserError(f"--data: cannot read {label}: {_error_message(error)}") from None
    if frame.shape[1] == 0:
        raise UserError(f"--data: {label} has no columns")
    if isinstance(frame.columns[0], str) and frame.columns[0].startswith("\ufeff"):
        frame = frame.rename(columns={frame.columns[0]: frame.columns[0][1:]})  # a byte-order mark read as text
    if frame.shape[1] == 1:
        name = str(frame.columns[0])
        for other, description in _SEPARATORS.items():
            if other != (sep or ",") and other in name:
                raise UserError(f"--data: {label} has one column, {name!r}, whose name looks like "
                                f"several separated by {description}; pass {_sep_flag(other)}")
    return frame


def _format_table(frame):
    """A DataFrame of strings as a plain left-aligned text table."""
    columns = [str(c) for c in frame.columns]
    rows = [[str(v) for v in row] for row in frame.itertuples(index=False)]
    widths = [max([len(c)] + [len(r[j]) for r in rows]) for j, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip()]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def _json_value(value):
    """Plain JSON values from NumPy/pandas scalars; NaN and inf as null."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        try:
            value = value.item()
        except (TypeError, ValueError):
            pass
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    try:
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def _with_integer_columns(frame):
    """``frame`` with every float column whose values are whole numbers (rank, step, count, k, ...)
    as integers, missing values kept (pandas' Int64), so that csv and json show 3, not 3.0."""
    import numpy as np
    import pandas as pd

    frame = frame.copy()
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_float_dtype(values.dtype):
            finite = values.dropna().to_numpy(dtype=np.float64)
            if len(finite) and np.all(np.isfinite(finite)) and np.all(finite == np.round(finite)) \
                    and np.all(np.abs(finite) < 2 ** 53):
                frame[column] = values.astype("Int64")
    return frame


def _table_csv(frame):
    return _with_integer_columns(frame).to_csv(index=False, lineterminator="\n")


def _table_rows(frame):
    """The rows of a table as JSON objects (column -> value)."""
    frame = _with_integer_columns(frame)
    return [{str(column): _json_value(value) for column, value in zip(frame.columns, row)}
            for row in frame.itertuples(index=False)]


def _json_document(document):
    return json.dumps(document, indent=2, allow_nan=False)


# ---------------------------------------------------------------- select: its tables
def _scores_table(result):
    """Every candidate feature, best first: ``feature``, the scores, ``selected`` (bool) and the
    per-feature tests with the p-values the summary shows (``p_value``, ``p_adjusted``)."""
    if hasattr(result, "summary_frame"):
        table = result.summary_frame(all_features=True)
    else:  # a multi-label result: its label tests
        table = result.scores.join(result.label_tests())
    chosen = set(result.selected)
    flags = [name in chosen for name in table.index]
    if "selected" in table.columns:  # a method's own column of that name (ELC's) is the same flag
        table = table.drop(columns="selected")
    table.insert(list(table.columns).index("score") + 1, "selected", flags)
    return table.rename_axis("feature").reset_index()


def _json_classes(classes):
    """The class names as JSON strings; null for a continuous response."""
    return None if classes is None else [str(c) for c in classes]


def _result_json(result):
    document = {
        "call": result.call,
        "method": result.method,
        "params": _json_value(result.params),
        "formula": result.formula,
        "selected": list(result.selected),
        "n": int(result.n),
        "n_dropped": int(result.n_dropped),
        # A multi-label result (several 0/1 label columns) has no response type.
        "response_type": getattr(result, "response_type", None),
        "classes": _json_classes(result.classes),
        "scores": _table_rows(_scores_table(result)),
    }
    return _json_document(document)


# ---------------------------------------------------------------- compare: its tables
def _comparison_table(result):
    """The numbers of the comparison's summaries, one row per (classifier, metric, k, method):
    ``mean``, ``sd`` and ``best``; k is a feature count, ``Avg.`` or ``Time (s)`` (seconds per
    selection) as in the summary."""
    import pandas as pd

    parts = []
    for classifier in result.classifiers:
        for metric in result.metrics:
            frame = result.summary_frame(metric=metric, classifier=classifier)
            long = frame.stack(level="method", future_stack=True).reset_index()
            long = long.drop(columns="dataset")
            long.insert(0, "metric", metric)
            long.insert(0, "classifier", classifier)
            parts.append(long)
    table = pd.concat(parts, ignore_index=True)
    table.columns.name = None
    return table[["classifier", "metric", "k", "method", "mean", "sd", "best"]]


def _comparison_summaries(result):
    """The summary of every (classifier, metric) pair, the default one first."""
    return [result.summary(metric=metric, classifier=classifier)
            for classifier in result.classifiers for metric in result.metrics]


def _comparison_json(result):
    document = {
        "call": result.call,
        "methods": list(result.method_labels),
        "classifiers": list(result.classifiers),
        "metrics": list(result.metrics),
        "response_types": {name: info.get("response_type") for name, info in result.datasets.items()},
        "summary": _table_rows(_comparison_table(result)),
    }
    return _json_document(document)


# ---------------------------------------------------------------- stability: its tables
def _stability_table(result):
    return result.summary_frame().rename_axis("feature").reset_index()


def _stability_json(result):
    document = {
        "call": result.call,
        "method": result.method,
        "params": _json_value(result.params),
        "k": int(result.k),
        "n_bootstrap": int(result.n_bootstrap),
        "random_state": _json_value(result.random_state),
        "n": int(result.n),
        "response_type": result.response_type,
        "classes": _json_classes(result.classes),
        "stability": _json_value(result.stability),
        "variance": _json_value(result.variance),
        "alpha": _json_value(result.alpha),
        "lower": _json_value(result.lower),
        "upper": _json_value(result.upper),
        "full_selection": list(result.full_selection),
        "frequency": _table_rows(_stability_table(result)),
    }
    return _json_document(document)


# ---------------------------------------------------------------- files written
def _check_writable(path, option, example):
    """Refuse before any work a file ``option`` cannot write: no name, a directory, a missing or
    read-only directory, a read-only file."""
    if not path.strip():
        raise UserError(f"{option}: empty file name; give a file, e.g. {option} {example}")
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UserError(f"{option}: {path!r} is a directory; give a file, e.g. "
                        f"{os.path.join(path, example)!r}")
    if not os.path.isdir(directory):
        raise UserError(f"{option}: cannot write {path!r}: directory {directory!r} does not exist")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise UserError(f"{option}: cannot write {path!r}: the file is not writable")
    elif not os.access(directory, os.W_OK | os.X_OK):
        raise UserError(f"{option}: cannot write {path!r}: directory {directory!r} is not writable")


def _write_file(path, content, option, what=""):
    """Write ``content`` (bytes) to ``path``; a failed write is an error (``option: cannot write
    <what><path>: ...``) and leaves no new file behind."""
    existed = os.path.exists(path)
    try:
        with open(path, "wb") as handle:
            handle.write(content)
    except OSError as error:
        if not existed:
            try:
                os.remove(path)  # no partial file left behind
            except OSError:
                pass
        raise UserError(f"{option}: cannot write {what}{path!r}: "
                        f"{error.strerror or _error_message(error)}") from None


def _plot_format(path):
    """Check ``--plot PATH`` before any work: a name, an image format matplotlib writes (the
    extension; none means PNG), an existing directory and permission to write there.  Returns the
    format."""
    if not path.strip():
        raise UserError("--plot: empty file name; give an image file, e.g. --plot scores.png")
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    extension = os.path.splitext(path)[1]
    image_format = extension[1:].lower() or "png"
    if image_format not in formats:
        raise UserError(f"--plot: unknown image format {extension!r} in {path!r}; "
                        f"use one of {', '.join('.' + name for name in sorted(formats))}")
    _check_writable(path, "--plot", "scores.png")
    return image_format


def _save_plot(result, path, image_format):
    """Draw ``result.plot()`` (its default plot) in memory, then write the file ourselves, so that a
    failed write (a full disk, say), which matplotlib can let pass, is reported."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawn = result.plot()
    figure = getattr(drawn, "figure", drawn)  # the Axes' figure, or a Figure of several panels
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format=image_format)
    except (OSError, ValueError) as error:
        raise UserError(f"--plot: cannot draw the plot as {image_format}: {_error_message(error)}") from None
    finally:
        plt.close(figure)
    _write_file(path, buffer.getvalue(), "--plot", what="the plot to ")


# --------------------------------------------------------------------------- commands
def _run(args, compute, formats):
    """What every analysis command does: check the files to write, read ``--data``, call
    ``compute(data)`` (the API; its ValueError/TypeError are the user's mistakes), save the
    ``--plot``, relay the warnings, then print (or write to ``--output``) ``formats[args.format]``
    of the result."""
    from fstools.model.exceptions import FormulaError

    image_format = _plot_format(args.plot) if args.plot is not None else None
    if args.output is not None:
        _check_writable(args.output, "--output", f"result.{_EXTENSIONS[args.format]}")
    # Warnings (constant columns, mixed CSV dtypes, ...) are collected and printed one line
    # each after a successful run; a run that fails prints only its error line.
    with warnings.catch_warnings(record=True) as caught:
        data = _read_data(args.data, sep=args.sep, encoding=args.encoding, decimal=args.decimal)
        try:
            result = compute(data)
        except (FormulaError, ValueError, TypeError) as error:
            raise UserError(_error_message(error)) from None
        if args.plot is not None:
            _save_plot(result, args.plot, image_format)
        text = formats[args.format](result)
    _relay_warnings(caught)
    if args.plot is not None:
        print(f"{PROG}: plot written to {args.plot}", file=sys.stderr)
    text = text if text.endswith("\n") else text + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        _write_file(args.output, text.encode("utf-8"), "--output")
        print(f"{PROG}: {args.format} written to {args.output}", file=sys.stderr)
    return EXIT_OK


_EXTENSIONS = {"text": "txt", "csv": "csv", "json": "json", "latex": "tex"}


def _formula_mode(args):
    return "code" if args.allow_code else "safe"


def _command_select(args):
    from fstools.api.selection import select

    params = _parse_params(args.param)

    def compute(data):
        return select(args.formula, data, method=args.method, k=args.k, na_action=args.na_action,
                      n_jobs=args.n_jobs, formula_mode=_formula_mode(args), response_type=args.response_type,
                      test=args.test, n_permutations=args.n_permutations, permutation_seed=args.seed,
                      step_alpha=args.step_alpha, **params)

    return _run(args, compute, {"text": lambda result: str(result.summary()),
                                "latex": lambda result: result.summary().as_latex(),
                                "csv": lambda result: _table_csv(_scores_table(result)),
                                "json": _result_json})


def _command_compare(args):
    from fstools.evaluation.compare import compare

    def compute(data):
        return compare(args.formula, data, args.methods, k=args.k, classifier=args.classifier, cv=args.cv,
                       repeats=args.repeats, metrics=args.metrics, random_state=args.random_state,
                       n_jobs=args.n_jobs, select_in_fold=args.select_in_fold, standardize=args.standardize,
                       na_action=args.na_action, progress=False, formula_mode=_formula_mode(args),
                       response_type=args.response_type)

    return _run(args, compute, {
        "text": lambda result: "\n\n".join(str(summary) for summary in _comparison_summaries(result)),
        "latex": lambda result: "\n\n".join(summary.as_latex() for summary in _comparison_summaries(result)),
        "csv": lambda result: _table_csv(_comparison_table(result)),
        "json": _comparison_json})


def _command_stability(args):
    from fstools.evaluation.stability import stability

    params = _parse_params(args.param, _STABILITY_PARAMS)

    def compute(data):
        return stability(args.formula, data, args.method, args.k, n_bootstrap=args.n_bootstrap,
                         random_state=args.random_state, alpha=args.alpha, n_jobs=args.n_jobs,
                         standardize=args.standardize, na_action=args.na_action, progress=False,
                         formula_mode=_formula_mode(args), response_type=args.response_type, **params)

    return _run(args, compute, {"text": lambda result: str(result.summary(all_features=args.all_features)),
                                "latex": lambda result: result.summary(all_features=args.all_features).as_latex(),
                                "csv": lambda result: _table_csv(_stability_table(result)),
                                "json": _stability_json})


def _guarantee_formats(summary):
    """The output formats of the procedures with a guarantee (stabsel, knockoff, boruta): the
    summary as text or LaTeX, its numbers per feature as CSV, the result's numbers as JSON."""
    return {"text": lambda result: str(summary(result)),
            "latex": lambda result: summary(result).as_latex(),
            "csv": lambda result: _table_csv(result.summary_frame().rename_axis("feature").reset_index()),
            "json": lambda result: _json_document({key: _json_value(value)
                                                   for key, value in result.as_dict().items()})}


def _command_stabsel(args):
    from fstools.guarantees.stability_selection import stability_selection

    params = _parse_params(args.param, _GUARANTEE_PARAMS)

    def compute(data):
        return stability_selection(args.formula, data, args.method, q=args.q, cutoff=args.cutoff, pfer=args.pfer,
                                   B=args.B, sampling=args.sampling, assumption=args.assumption,
                                   random_state=args.random_state, n_jobs=args.n_jobs, na_action=args.na_action,
                                   formula_mode=_formula_mode(args), response_type=args.response_type, **params)

    return _run(args, compute, _guarantee_formats(lambda result: result.summary(all_features=args.all_features)))


def _command_knockoff(args):
    from fstools.guarantees.knockoff_filter import knockoff_filter

    params = _parse_params(args.param, _GUARANTEE_PARAMS)

    def compute(data):
        return knockoff_filter(args.formula, data, args.method, fdr=args.fdr, knockoffs=args.knockoffs, s=args.s,
                               statistic=args.statistic, offset=args.offset, n_draws=args.n_draws,
                               derandomize=args.derandomize, pfer=args.pfer, eta=args.eta,
                               pfer_assumption=args.pfer_assumption, random_state=args.random_state, n_jobs=args.n_jobs, na_action=args.na_action,
                               formula_mode=_formula_mode(args), response_type=args.response_type, **params)

    return _run(args, compute, _guarantee_formats(lambda result: result.summary()))


def _command_boruta(args):
    from fstools.guarantees.boruta import boruta

    params = _parse_params(args.param, _GUARANTEE_PARAMS)

    def compute(data):
        return boruta(args.formula, data, args.importance, max_runs=args.max_runs, p_value=args.p_value,
                      mc_adjust=args.mc_adjust, random_state=args.random_state, n_jobs=args.n_jobs,
                      na_action=args.na_action, formula_mode=_formula_mode(args), response_type=args.response_type,
                      **params)

    return _run(args, compute, _guarantee_formats(lambda result: result.summary()))


def _command_methods(args):
    from fstools.api.catalogue import list_methods

    from fstools.guarantees.catalogue import list_procedures

    table = list_methods()[["name", "description", "capabilities", "parameters"]]
    print(_format_table(table))
    procedures = list_procedures()[["name", "command", "guarantee", "defaults"]]
    print("\nSelection with a guarantee, for every supervised method above:")
    print(_format_table(procedures))
    return EXIT_OK


def _command_datasets(args):
    import pandas as pd

    from fstools import datasets

    rows = []
    for name in datasets.list():
        frame = datasets.load(name)
        rows.append({"name": name, "rows": frame.shape[0], "features": frame.shape[1] - 1,
                     "classes": frame[datasets.RESPONSE].nunique(),
                     "response": datasets.RESPONSE})
    print(_format_table(pd.DataFrame(rows, columns=["name", "rows", "features", "classes", "response"])))
    return EXIT_OK


# --------------------------------------------------------------------------- parser
def _name_list(text):
    """``--methods a,b`` and the like: names separated by commas."""
    names = [part.strip() for part in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected names separated by commas, e.g. cmqfs,mrmr; got {text!r}")
    return names


def _feature_counts(text):
    """``-k`` of compare: feature counts separated by commas, each a number or a range ``a-b``."""
    counts = []
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        try:
            values = range(int(low), int(high) + 1) if dash else [int(low)]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected feature counts separated by commas, each a number or a range, e.g. -k 2,4,6 or "
                f"-k 1-10; got {text!r}") from None
        if not values:
            raise argparse.ArgumentTypeError(f"the range {part.strip()!r} is empty; write it low-high, e.g. 1-10")
        counts.extend(values)
    bad = [count for count in counts if count < 1]
    if bad:
        raise argparse.ArgumentTypeError(f"feature counts must be at least 1; got {bad[0]}")
    return counts


def _integer(text):
    """An integer option (``--cv``, ``--repeats``, ...); its range is checked by the API."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number; got {text!r}") from None


def _number(text):
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number; got {text!r}") from None


def _add_data_options(command):
    """FORMULA, --data and how to read it, missing values, threads, --allow-code: every analysis command."""
    command.add_argument("formula", metavar="FORMULA", help='model formula, e.g. "class ~ ."')
    command.add_argument("--data", required=True, metavar="NAME_OR_FILE",
                         help="a bundled data set (see `fstools datasets`), a CSV file with a header "
                              "row, a Parquet, Feather or Arrow IPC file (read with pyarrow), or - for "
                              "any of them on standard input")
    command.add_argument("--sep", type=_sep_option, default=None, metavar="CHAR",
                         help="the CSV delimiter, e.g. ';' or tab (default: sniffed from the first "
                              "rows among , ; tab |)")
    command.add_argument("--decimal", choices=(".", ","), default=None,
                         help="the decimal mark of numbers in the CSV file (default: '.', or ',' in a "
                              "file not separated by commas whose numbers are written 1,5)")
    command.add_argument("--encoding", type=_encoding_option, default=None, metavar="NAME",
                         help="the CSV file's text encoding, e.g. latin-1 or cp1252 (default: UTF-8, "
                              "or UTF-8/UTF-16/UTF-32 as the byte-order mark says)")
    command.add_argument("--na-action", choices=NA_ACTIONS, default="drop",
                         help="rows with missing values: drop them (default), stop with an error, or keep them "
                              "for the methods that can use them (see `fstools methods`): level, a missing "
                              "predictor value a level of its own (the information methods); pass, the method "
                              "treats missing values itself (relieff)")
    command.add_argument("--response-type", choices=("class", "continuous"), default=None,
                         help="what the response is (default: decided from the data as R does: text, "
                              "booleans and integers with at most 10 distinct values are classes, other "
                              "numbers continuous; C(y) in the formula also makes it classes)")
    command.add_argument("--allow-code", action="store_true",
                         help="evaluate the formula's terms as arbitrary Python code (numpy as np, any "
                              "function). Without it the formula may hold only column names, formula "
                              "operators, numbers and allowed numeric functions (log, exp, sqrt, abs, "
                              "scale, poly, np.log, ...): a formula is code, so never use this flag "
                              "for a formula you did not write")


def _add_output_options(command, formats, plot):
    """--format (text, csv, json, latex), --output and --plot: every analysis command."""
    command.add_argument("--format", choices=("text", "csv", "json", "latex"), default="text",
                         help=f"{formats}; latex: the summary as a LaTeX table (booktabs)")
    command.add_argument("--output", metavar="FILE", default=None,
                         help="write the output to this file instead of standard output")
    command.add_argument("--plot", metavar="FILE.png", default=None,
                         help=f"save {plot} to this image file; the extension gives the "
                              f"format (.png, .pdf, .svg, ...; none: PNG)")


def _add_method_options(command):
    """--method (default cmqfs) and --param: the method of select and stability, with its parameters."""
    command.add_argument("--method", default="cmqfs", help="selection method (see `fstools methods`); "
                                                            "default: cmqfs")
    _add_param_option(command)


def _add_param_option(command):
    command.add_argument("--param", action="append", metavar="NAME=VALUE", default=[],
                         help="a method parameter, e.g. --param beta=0.5 (repeatable); VALUE is read as "
                              "an integer, a number, true/false/none, or else a string")


def build_parser():
    from fstools._version import __version__

    parser = _ArgumentParser(
        prog=PROG,
        description="Feature selection in the style of R: formula + data in, selected features out.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_ArgumentParser)
    commands.required = True

    select = commands.add_parser(
        "select", help="select features with a formula",
        description="Select features with an R-style formula, e.g. \"class ~ .\" or \"y ~ . - id\". "
                    "Column names that are not identifiers go in backticks: \"y ~ `body mass`\".")
    _add_data_options(select)
    _add_method_options(select)
    select.add_argument("-k", "--k", type=_k_or_auto, default=None,
                        help="number of features to select (default: rank them all); 'auto' for a greedy "
                             "method: the path cut where its step tests stop being significant")
    select.add_argument("--test", choices=("permutation", "step"), default=None,
                        help="permutation p-values of each feature's score ('permutation') or of each greedy "
                             "step's gain ('step'), shown in the summary")
    select.add_argument("--n-permutations", type=_positive_int, default=999, metavar="B",
                        help="permutations of --test and of -k auto (default 999)")
    select.add_argument("--seed", type=int, default=None, metavar="N",
                        help="seed of the permutations (default: none, a fresh draw)")
    select.add_argument("--step-alpha", type=_unit_interval, default=None, metavar="ALPHA",
                        help="level of the step tests for -k auto (default 0.05)")
    select.add_argument("--n-jobs", type=int, default=None, metavar="N",
                        help="threads (default: all cores; -1 all, -2 all but one)")
    _add_output_options(select, "text: the summary table (default); csv: every feature with its scores, "
                                "a selected flag and its test's p-values; json: the result as a JSON object",
                        "the score plot")
    select.set_defaults(handler=_command_select)

    compare = commands.add_parser(
        "compare", help="compare selection methods by cross-validated accuracy (or R^2, RMSE, MAE)",
        description="Compare selection methods by the cross-validated accuracy of a classifier (for a "
                    "continuous response: R^2, RMSE and MAE of a regressor) on their top-k features, the same "
                    "folds for every method (as fs.compare).")
    _add_data_options(compare)
    compare.add_argument("--methods", type=_name_list, required=True, metavar="M1,M2,...",
                         help="the methods to compare, separated by commas (see `fstools methods`)")
    compare.add_argument("-k", "--k", type=_feature_counts, default=None, metavar="COUNTS",
                         help="feature counts to evaluate, e.g. 2,4,6 or 1-10 (default: every count "
                              "1..number of features)")
    compare.add_argument("--classifier", type=_name_list, default=None, metavar="NAME[,NAME...]",
                         help="1nn (default; mlknn for several 0/1 responses), svm, linear_svm, mlknn; for a "
                              "continuous response 1nn (1-NN regression, the default), ridge, svr; several "
                              "separated by commas")
    compare.add_argument("--metrics", type=_name_list, default=None, metavar="NAME[,NAME...]",
                         help="accuracy (default), error_rate, balanced_accuracy, f1_macro, g_mean; for a "
                              "continuous response r2, rmse, mae (default: all three); for several 0/1 "
                              "responses average_precision, macro_auc, hamming_loss, ranking_loss, one_error "
                              "(default: all five); several separated by commas")
    compare.add_argument("--cv", type=_integer, default=10, metavar="FOLDS",
                         help="cross-validation folds, stratified by class for a class response "
                              "(default: 10)")
    compare.add_argument("--repeats", type=_integer, default=10, metavar="N",
                         help="repetitions of the cross-validation with fresh folds (default: 10)")
    compare.add_argument("--random-state", type=_integer, default=None, metavar="SEED",
                         help="seed of the folds: the same seed gives the same result (default: none)")
    compare.add_argument("--select-in-fold", action="store_true",
                         help="select inside each training fold (honest) instead of once on all the data "
                              "(the papers' protocol, the default)")
    compare.add_argument("--no-standardize", dest="standardize", action="store_false",
                         help="do not standardise the features (default: standardised, as the papers)")
    compare.add_argument("--n-jobs", type=int, default=None, metavar="N",
                         help="folds evaluated in parallel (default: one at a time, each method using "
                              "all cores; -1 all cores)")
    _add_output_options(compare, "text: the summary, methods x k, mean +- sd (default); csv: its numbers, one "
                                 "row per classifier, metric, k and method; json: the same as a JSON object",
                        "the plot of the metric against k")
    compare.set_defaults(handler=_command_compare)

    stability = commands.add_parser(
        "stability", help="stability of a method's selection over bootstrap samples",
        description="How stable a method's top-k selection is over bootstrap samples of the rows: the "
                    "selection frequency of each feature and Nogueira's stability index (as fs.stability).")
    _add_data_options(stability)
    _add_method_options(stability)
    stability.add_argument("-k", "--k", type=_positive_int, required=True,
                           help="number of features selected in each run (1..number of features - 1)")
    stability.add_argument("--n-bootstrap", type=_integer, default=100, metavar="B",
                           help="bootstrap samples (default: 100)")
    stability.add_argument("--random-state", type=_integer, default=None, metavar="SEED",
                           help="seed of the bootstrap samples: the same seed gives the same result "
                                "(default: none)")
    stability.add_argument("--alpha", type=_number, default=0.05,
                           help="the index's interval is 1 - alpha (default: 0.05)")
    stability.add_argument("--standardize", action="store_true",
                           help="standardise the columns of each sample before the method sees them")
    stability.add_argument("--all-features", action="store_true",
                           help="text and latex: list every feature, also those never selected")
    stability.add_argument("--n-jobs", type=int, default=None, metavar="N",
                           help="runs in parallel (default: one at a time; -1 all cores)")
    _add_output_options(stability, "text: the index and the features by selection frequency (default); csv: "
                                   "every feature's frequency; json: the result as a JSON object",
                        "the heatmap of the selections (features x runs)")
    stability.set_defaults(handler=_command_stability)

    stabsel = commands.add_parser(
        "stabsel", help="stability selection: features chosen in most half-samples, with a PFER bound",
        description="Stability selection with any method (as fs.stability_selection): the method's first q "
                    "features on complementary pairs of half-samples; features chosen in at least a share "
                    "cutoff of the runs are selected, and the expected number of false selections (PFER) is "
                    "bounded as R's stabs does. Give two of -q, --cutoff and --pfer.")
    _add_data_options(stabsel)
    _add_method_options(stabsel)
    stabsel.add_argument("-q", "--q", type=_integer, default=None, help="features taken per run (1..p-1)")
    stabsel.add_argument("--cutoff", type=_number, default=None, help="share of the runs needed, in (0.5, 1]")
    stabsel.add_argument("--pfer", type=_number, default=None,
                         help="the bound to meet: expected number of false selections (> 0)")
    stabsel.add_argument("-B", type=_integer, default=None, metavar="B",
                         help="complementary pairs (SS, default 50) or half-samples (MB, default 100)")
    stabsel.add_argument("--sampling", choices=("SS", "MB"), default="SS",
                         help="SS: complementary pairs (Shah & Samworth, default); MB: half-samples "
                              "(Meinshausen & Buhlmann)")
    stabsel.add_argument("--assumption", choices=("unimodal", "r-concave", "none"), default="unimodal",
                         help="the assumption behind the SS bound (default unimodal)")
    stabsel.add_argument("--random-state", type=_integer, default=None, metavar="SEED",
                         help="seed of the half-samples (default: none)")
    stabsel.add_argument("--all-features", action="store_true",
                         help="text and latex: list every feature, also those never selected")
    stabsel.add_argument("--n-jobs", type=int, default=None, metavar="N",
                         help="runs in parallel (default: one at a time; -1 all cores)")
    _add_output_options(stabsel, "text: the bound, the guarantee and the selection probabilities (default); "
                                 "csv: every feature's probability; json: the result as a JSON object",
                        "the selection probabilities with the cutoff")
    stabsel.set_defaults(handler=_command_stabsel)

    knockoff = commands.add_parser(
        "knockoff", help="the knockoff filter: a selection whose false discovery rate is at most --fdr",
        description="The knockoff filter with any method (as fs.knockoff_filter): each feature against a "
                    "knockoff copy; the features above the knockoff+ threshold are selected with the false "
                    "discovery rate controlled at --fdr.")
    _add_data_options(knockoff)
    knockoff.add_argument("--method", default="lasso",
                          help="lasso (default: the lasso coefficient difference) or a selection method "
                               "(see `fstools methods`)")
    _add_param_option(knockoff)
    knockoff.add_argument("--fdr", type=_number, default=0.1, help="target false discovery rate (default 0.1)")
    knockoff.add_argument("--knockoffs", choices=("gaussian", "fixed"), default="gaussian",
                          help="model-X Gaussian (default) or fixed-X (needs n >= 2p)")
    knockoff.add_argument("--s", choices=("mvr", "sdp", "equicorrelated"), default="mvr",
                          help="the knockoffs' s (default mvr)")
    knockoff.add_argument("--statistic", choices=("difference", "signed_max"), default="difference",
                          help="W = Z - Z knockoff (default) or the signed maximum")
    knockoff.add_argument("--offset", type=_integer, default=1, help="1: knockoff+ (default); 0: knockoff")
    knockoff.add_argument("--n-draws", type=_integer, default=1, metavar="M",
                          help="derandomised knockoffs over M draws (default 1: one draw)")
    knockoff.add_argument("--derandomize", choices=("e-values", "frequency"), default="e-values",
                          help="combine the draws by e-values and e-BH (default; FDR at --fdr) or by selection "
                               "frequency (Ren, Wei & Candes 2023; PFER at --pfer)")
    knockoff.add_argument("--pfer", type=_number, default=None,
                          help="with --derandomize frequency: the bound on the expected number of false "
                               "selections (default 1)")
    knockoff.add_argument("--eta", type=_number, default=0.5,
                          help="with --derandomize frequency: the share of draws a selection needs (default 0.5)")
    knockoff.add_argument("--pfer-assumption", choices=("nonincreasing", "none"), default="nonincreasing",
                          help="with --derandomize frequency: what the PFER bound assumes (default nonincreasing)")
    knockoff.add_argument("--random-state", type=_integer, default=None, metavar="SEED",
                          help="seed of the knockoffs (default: none)")
    knockoff.add_argument("--n-jobs", type=int, default=None, metavar="N", help="threads of the method")
    _add_output_options(knockoff, "text: the rule, the guarantee and every feature's W (default); csv: the "
                                  "statistics; json: the result as a JSON object", "W with the threshold")
    knockoff.set_defaults(handler=_command_knockoff)

    boruta = commands.add_parser(
        "boruta", help="Boruta: all-relevant features by shadow features",
        description="All-relevant selection (as fs.boruta and R's Boruta): each feature's importance against "
                    "the best of permuted shadow copies over repeated runs, decided Confirmed, Tentative or "
                    "Rejected by binomial tests.")
    _add_data_options(boruta)
    boruta.add_argument("--importance", default="random_forest",
                        help="random_forest (default) or a selection method (see `fstools methods`)")
    _add_param_option(boruta)
    boruta.add_argument("--max-runs", type=_integer, default=100, metavar="N", help="most runs (default 100)")
    boruta.add_argument("--p-value", type=_number, default=0.01, help="level of the tests (default 0.01)")
    boruta.add_argument("--no-mc-adjust", dest="mc_adjust", action="store_false",
                        help="no Bonferroni adjustment of the tests")
    boruta.add_argument("--random-state", type=_integer, default=None, metavar="SEED",
                        help="seed of the shadows (default: none)")
    boruta.add_argument("--n-jobs", type=int, default=None, metavar="N", help="threads")
    _add_output_options(boruta, "text: the decisions and attStats (default); csv: attStats; json: the result",
                        "the importance box plots")
    boruta.set_defaults(handler=_command_boruta)

    methods = commands.add_parser("methods", help="list the selection methods",
                                  description="List the registered selection methods.")
    methods.set_defaults(handler=_command_methods)

    data = commands.add_parser("datasets", help="list the bundled data sets",
                               description="List the bundled data sets with their size.")
    data.set_defaults(handler=_command_datasets)
    parser.set_defaults(command_parsers={"select": select, "compare": compare, "stability": stability,
                                         "stabsel": stabsel, "knockoff": knockoff, "boruta": boruta,
                                         "methods": methods, "datasets": data})
    return parser


def _unrecognized(parser, args, extra):
    """The usage error for arguments no option takes, with the nearest option if one is close."""
    command_parser = getattr(args, "command_parsers", {}).get(getattr(args, "command", None), parser)
    message = f"unrecognized arguments: {' '.join(extra)}"
    options = [o for action in command_parser._actions for o in action.option_strings]
    for word in extra:
        if word.startswith("-"):
            close = difflib.get_close_matches(word.partition("=")[0], options, n=1, cutoff=0.75)
            if close:
                message += f"; did you mean {close[0]!r}?"
                break
    return _UsageError(command_parser, message)


def main(argv=None):
    """Run the ``fstools`` command; returns the exit status (0 success, 2 bad input, 130 Ctrl-C)."""
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            raise _unrecognized(parser, args, extra)
    except _UsageError as error:
        # One line, like every other error: the usage text would make it several.
        _print_error(f"{error} (see '{error.parser.prog} --help')")
        return EXIT_USAGE
    except SystemExit as exit_:  # --help, --version
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
    try:
        return args.handler(args)
    except UserError as error:
        _print_error(error)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`fstools select ... | head`): stop quietly, as Unix tools do.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())

"""The ``fstools`` command: a thin layer over :func:`fstools.select` and friends.

Examples
--------
::

    fstools select "class ~ ." --data wine --method cmqfs -k 5
    fstools select "class ~ ." --data wine -k 5 --format json --param beta=0.5
    fstools select "y ~ . - id" --data measurements.csv -k 10 --format csv --plot scores.png
    fstools select "y ~ ." --data - --sep ';' --encoding latin-1 < export.csv
    fstools methods
    fstools datasets
    fstools --version

Mistakes in the command line or the input (a bad option value, an unknown data set, a
missing or unreadable CSV file, a formula that does not fit the data, a bad parameter, a
plot file that cannot be written) print one line, ``fstools: error: <message>``, on
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

__all__ = ["main", "build_parser", "parse_param_value"]

PROG = "fstools"
EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C

# Arguments of fs.select that have their own options (or none) and cannot be given by --param.
_RESERVED_PARAMS = {"formula": "FORMULA", "data": "--data", "method": "--method", "k": "-k/--k",
                    "na_action": "--na-action", "n_jobs": "--n-jobs", "formula_mode": "--allow-code"}


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


def _parse_params(items):
    params = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UserError(f"--param: expected NAME=VALUE (e.g. beta=0.5); got {item!r}")
        if name in _RESERVED_PARAMS:
            raise UserError(f"--param {name}: not a method parameter; use {_RESERVED_PARAMS[name]}")
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


def _read_data(source, sep=None, encoding=None, decimal=None):
    """A bundled data set by name, a CSV file by path, or CSV text on standard input (``-``), as a
    DataFrame.  Without ``encoding`` a byte-order mark (UTF-8, UTF-16, UTF-32) is followed, else
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


def _scores_table(result):
    return result.scores.rename_axis("feature").reset_index()


def _result_json(result):
    table = _scores_table(result)
    rows = [{str(column): _json_value(value) for column, value in zip(table.columns, row)}
            for row in table.itertuples(index=False)]
    document = {
        "call": result.call,
        "method": result.method,
        "params": _json_value(result.params),
        "formula": result.formula,
        "selected": list(result.selected),
        "n": int(result.n),
        "n_dropped": int(result.n_dropped),
        "classes": [str(c) for c in result.classes],
        "scores": rows,
    }
    return json.dumps(document, indent=2, allow_nan=False)


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
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UserError(f"--plot: {path!r} is a directory; give an image file, e.g. "
                        f"{os.path.join(path, 'scores.png')!r}")
    if not os.path.isdir(directory):
        raise UserError(f"--plot: cannot write {path!r}: directory {directory!r} does not exist")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise UserError(f"--plot: cannot write {path!r}: the file is not writable")
    elif not os.access(directory, os.W_OK | os.X_OK):
        raise UserError(f"--plot: cannot write {path!r}: directory {directory!r} is not writable")
    return image_format


def _save_plot(result, path, image_format):
    """Draw the plot in memory, then write the file ourselves, so that a failed write (a full
    disk, say), which matplotlib can let pass, is reported."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = result.plot()
    figure = ax.figure
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format=image_format)
    except (OSError, ValueError) as error:
        raise UserError(f"--plot: cannot draw the plot as {image_format}: {_error_message(error)}") from None
    finally:
        plt.close(figure)
    existed = os.path.exists(path)
    try:
        with open(path, "wb") as handle:
            handle.write(buffer.getvalue())
    except OSError as error:
        if not existed:
            try:
                os.remove(path)  # no partial image left behind
            except OSError:
                pass
        raise UserError(f"--plot: cannot write the plot to {path!r}: "
                        f"{error.strerror or _error_message(error)}") from None


# --------------------------------------------------------------------------- commands
def _command_select(args):
    from fstools.api.selection import select
    from fstools.model.exceptions import FormulaError

    params = _parse_params(args.param)
    image_format = _plot_format(args.plot) if args.plot is not None else None
    # Warnings (constant columns, mixed CSV dtypes, ...) are collected and printed one line
    # each after a successful run; a run that fails prints only its error line.
    with warnings.catch_warnings(record=True) as caught:
        data = _read_data(args.data, sep=args.sep, encoding=args.encoding, decimal=args.decimal)
        try:
            result = select(args.formula, data, method=args.method, k=args.k,
                               na_action=args.na_action, n_jobs=args.n_jobs,
                               formula_mode="code" if args.allow_code else "safe", **params)
        except (FormulaError, ValueError, TypeError) as error:
            raise UserError(_error_message(error)) from None
        if args.plot is not None:
            _save_plot(result, args.plot, image_format)
    _relay_warnings(caught)
    if args.plot is not None:
        print(f"{PROG}: plot written to {args.plot}", file=sys.stderr)

    if args.format == "text":
        print(str(result.summary()))
    elif args.format == "csv":
        sys.stdout.write(_scores_table(result).to_csv(index=False, lineterminator="\n"))
    else:
        print(_result_json(result))
    return EXIT_OK


def _command_methods(args):
    from fstools.api.catalogue import list_methods

    table = list_methods()[["name", "description", "capabilities", "parameters"]]
    print(_format_table(table))
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
    select.add_argument("formula", metavar="FORMULA", help='model formula, e.g. "class ~ ."')
    select.add_argument("--data", required=True, metavar="NAME_OR_CSV",
                        help="a bundled data set (see `fstools datasets`), a CSV file with a header "
                             "row, or - for CSV text on standard input")
    select.add_argument("--sep", type=_sep_option, default=None, metavar="CHAR",
                        help="the CSV delimiter, e.g. ';' or tab (default: sniffed from the first "
                             "rows among , ; tab |)")
    select.add_argument("--decimal", choices=(".", ","), default=None,
                        help="the decimal mark of numbers in the CSV file (default: '.', or ',' in a "
                             "file not separated by commas whose numbers are written 1,5)")
    select.add_argument("--encoding", type=_encoding_option, default=None, metavar="NAME",
                        help="the CSV file's text encoding, e.g. latin-1 or cp1252 (default: UTF-8, "
                             "or UTF-8/UTF-16/UTF-32 as the byte-order mark says)")
    select.add_argument("--method", default="cmqfs", help="selection method (see `fstools methods`); "
                                                           "default: cmqfs")
    select.add_argument("-k", "--k", type=_positive_int, default=None,
                        help="number of features to select (default: rank them all)")
    select.add_argument("--format", choices=("text", "csv", "json"), default="text",
                        help="text: the summary table (default); csv: the scores table; "
                             "json: the result as a JSON object")
    select.add_argument("--plot", metavar="FILE.png", default=None,
                        help="save the score plot to this image file; the extension gives the "
                             "format (.png, .pdf, .svg, ...; none: PNG)")
    select.add_argument("--param", action="append", metavar="NAME=VALUE", default=[],
                        help="a method parameter, e.g. --param beta=0.5 (repeatable); VALUE is read as "
                             "an integer, a number, true/false/none, or else a string")
    select.add_argument("--na-action", choices=("drop", "raise"), default="drop",
                        help="rows with missing values: drop them (default) or stop with an error")
    select.add_argument("--n-jobs", type=int, default=None, metavar="N",
                        help="threads (default: all cores; -1 all, -2 all but one)")
    select.add_argument("--allow-code", action="store_true",
                        help="evaluate the formula's terms as arbitrary Python code (numpy as np, any "
                             "function). Without it the formula may hold only column names, formula "
                             "operators, numbers and allowed numeric functions (log, exp, sqrt, abs, "
                             "scale, poly, np.log, ...): a formula is code, so never use this flag "
                             "for a formula you did not write")
    select.set_defaults(handler=_command_select)

    methods = commands.add_parser("methods", help="list the selection methods",
                                  description="List the registered selection methods.")
    methods.set_defaults(handler=_command_methods)

    data = commands.add_parser("datasets", help="list the bundled data sets",
                               description="List the bundled data sets with their size.")
    data.set_defaults(handler=_command_datasets)
    parser.set_defaults(command_parsers={"select": select, "methods": methods, "datasets": data})
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

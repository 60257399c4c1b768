"""The ``fstools`` command: a thin layer over :func:`fstools.select` and friends.

Examples
--------
::

    fstools select "class ~ ." --data wine --method cmqfs -k 5
    fstools select "class ~ ." --data wine -k 5 --format json --param beta=0.5
    fstools select "y ~ . - id" --data measurements.csv -k 10 --format csv --plot scores.png
    fstools methods
    fstools datasets
    fstools --version

Mistakes in the input (an unknown data set, a missing or unreadable CSV file, a
formula that does not fit the data, a bad parameter) print one line,
``fstools: error: <message>``, on stderr and exit with status 2; warnings are
printed as ``fstools: warning: <message>``, one line each.  Ctrl-C (SIGINT) stops a
command within about a second, also inside the compiled kernels: it prints
``fstools: interrupted`` on stderr and exits with status 130 (128 + SIGINT), without a
traceback.
"""
# Imports of fstools and pandas are inside the commands, so that `fstools --help` and usage errors
# answer at once, without loading the package.
import argparse
import json
import math
import numbers
import os
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
    def error(self, message):
        raise _UsageError(self, message)


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


def _read_data(source):
    """A bundled data set by name, or a CSV file by path, as a DataFrame."""
    import pandas as pd

    from fstools import datasets

    names = datasets.list()
    if source in names:
        return datasets.load(source)
    if not os.path.exists(source):
        raise UserError(f"--data: {source!r} is neither a bundled data set ({', '.join(names)}) "
                        f"nor an existing CSV file")
    if os.path.isdir(source):
        raise UserError(f"--data: {source!r} is a directory; expected a CSV file")
    try:
        frame = pd.read_csv(source)
    except (OSError, ValueError, pd.errors.ParserError) as error:  # EmptyDataError, UnicodeDecodeError
        raise UserError(f"--data: cannot read CSV file {source!r}: {_error_message(error)}") from None
    if frame.shape[1] == 0:
        raise UserError(f"--data: CSV file {source!r} has no columns")
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


def _save_plot(result, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = result.plot()
    figure = ax.figure
    try:
        figure.savefig(path)
    except (OSError, ValueError) as error:  # missing directory, unknown image format
        raise UserError(f"--plot: cannot save the plot to {path!r}: {_error_message(error)}") from None
    finally:
        plt.close(figure)


# --------------------------------------------------------------------------- commands
def _command_select(args):
    from fstools.api.selection import select
    from fstools.model.exceptions import FormulaError

    params = _parse_params(args.param)
    # Warnings (constant columns, mixed CSV dtypes, ...) are collected and printed one line
    # each after a successful run; a run that fails prints only its error line.
    with warnings.catch_warnings(record=True) as caught:
        data = _read_data(args.data)
        try:
            result = select(args.formula, data, method=args.method, k=args.k,
                               na_action=args.na_action, n_jobs=args.n_jobs,
                               formula_mode="code" if args.allow_code else "safe", **params)
        except (FormulaError, ValueError, TypeError) as error:
            raise UserError(_error_message(error)) from None
        if args.plot:
            _save_plot(result, args.plot)
    _relay_warnings(caught)
    if args.plot:
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
                        help="a bundled data set (see `fstools datasets`) or a CSV file with a header row")
    select.add_argument("--method", default="cmqfs", help="selection method (see `fstools methods`); "
                                                           "default: cmqfs")
    select.add_argument("-k", "--k", type=int, default=None,
                        help="number of features to select (default: rank them all)")
    select.add_argument("--format", choices=("text", "csv", "json"), default="text",
                        help="text: the summary table (default); csv: the scores table; "
                             "json: the result as a JSON object")
    select.add_argument("--plot", metavar="FILE.png", default=None,
                        help="save the score plot to this image file")
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
    return parser


def main(argv=None):
    """Run the ``fstools`` command; returns the exit status (0 success, 2 bad input, 130 Ctrl-C)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as error:
        error.parser.print_usage(sys.stderr)
        _print_error(error)
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

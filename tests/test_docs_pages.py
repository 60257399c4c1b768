"""The documentation pages whose claims a test can run: ``docs/coming_from_r.rst`` and
``docs/user_guide/data.rst``.  The tables and examples are read from the pages themselves, so a
page cannot drift from what fstools does.

``coming_from_r.rst``:

* its "Formulas" table: for each row, the terms fstools makes of the fstools formula are the
  terms the table states, in the table's order, and they are R's ``attr(terms(f, data = df),
  "term.labels")`` for the R formula, up to the naming map of ``tests/test_formula_r.py`` (R's
  ``factor(c)`` and ``C(f)`` are fstools' ``c`` and ``f``, a term is the set of its factors, code is
  compared with backticks and spaces left out and ``**`` read as ``^``).  R's output is kept in
  ``tests/data/r_coming_from_r.json``, written by ``tests/data/r_coming_from_r.R`` from the
  page's table on the data of ``r_coming_from_r_data.csv``; R is not needed here.  A row whose
  fstools cell says "refused" must raise a FormulaError whose message holds the text of the terms
  cell.
* its other tables (FSelector, praznik, Boruta, stabs, knockoff, mlr3filters, caret): every
  inline literal of the fstools and differences columns that calls ``fs.`` or starts with
  ``res`` is evaluated, in the page's order, with ``df`` the wine data, ``X`` and ``y`` its
  features and class as arrays and ``res`` the value of the last bare ``fs.<function>(...)`` call
  (at first ``fs.select("class ~ .", df, method="mrmr", k=5)``), as the page says.  The calls
  run as written, except for the settings in :data:`CHEAPER`.

``data.rst``: its ``>>>`` examples run as a doctest (in a temporary directory: they write
files), then the console commands of the page run on those files and print what the page shows.
"""
import ast
import doctest
import json
import re
import shlex
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_formula_r import normal_term

import fstools as fs
from fstools.model.exceptions import FormulaError
from fstools.model.formula import parse_formula

ROOT = Path(__file__).resolve().parent.parent
COMING_FROM_R = ROOT / "docs" / "coming_from_r.rst"
DATA_PAGE = ROOT / "docs" / "user_guide" / "data.rst"
DATA_DIR = Path(__file__).parent / "data"
R_OUTPUT = json.loads((DATA_DIR / "r_coming_from_r.json").read_text())["formulas"]
FORMULA_DATA = pd.read_csv(DATA_DIR / "r_coming_from_r_data.csv")

#: Calls that would take more than a few seconds as written run with these arguments instead:
#: a function of the call's keyword arguments gives the ones to set.
CHEAPER = {
    # R's 500 trees in each of up to max_runs - 1 runs: about 1.5 s a run for the wine data on one
    # core; 20 trees are noisier and leave attributes Tentative until max_runs, so the fewest runs.
    "boruta": lambda given: ({"n_estimators": 20, "max_runs": 11}
                             if given.get("importance", "random_forest") == "random_forest" else {}),
    # 10-fold cross-validation repeated 10 times is 100 fits per method and k.
    "compare": lambda given: {"cv": 3, "repeats": 1, "progress": False},
    # The lasso statistic (a cross-validated l1 logistic regression on 26 columns) takes about a
    # second of CPU: it runs in R's default call (the table's first row, only random_state given);
    # the rows that change the knockoffs or the threshold score with f_test instead.
    "knockoff_filter": lambda given: {"method": "f_test"} if "method" not in given and set(given) - {"random_state"} else {},
}
#: The sections of coming_from_r.rst whose tables' fstools calls run.
CALL_SECTIONS = ("FSelector", "praznik", "Boruta", "stabs", "knockoff", "mlr3filters", "caret")

_LITERAL = re.compile(r"``(.+?)``(?!`)")


# --------------------------------------------------------------------------- reading the pages

def list_tables(path):
    """``{section title: [table, ...]}`` for the list-tables of an .rst page; a table is a list of
    its rows below the header row, a row a list of its cells' text (continuation lines joined)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    tables, section, rows = {}, None, None
    for i, line in enumerate(lines):
        underline = lines[i + 1] if i + 1 < len(lines) else ""
        if (line and not line.startswith(" ") and underline and set(underline) <= set("-=")
                and len(underline) >= len(line)):
            section = line
        if line.startswith(".. list-table::"):
            rows = []
            tables.setdefault(section, []).append(rows)
            continue
        if rows is None:
            continue
        if line.startswith("   * -"):
            rows.append([line[7:]])
        elif line.startswith("     -"):
            rows[-1].append(line[7:])
        elif line.startswith("       ") and rows:
            rows[-1][-1] += " " + line.strip()
        elif line.strip() and not line.startswith("   :"):
            rows = None
    return {title: [table[1:] for table in found] for title, found in tables.items()}


def literals(cell):
    return _LITERAL.findall(cell)


def only_literal(cell):
    found = literals(cell)
    assert len(found) == 1, f"one ``literal`` expected in {cell!r}"
    return found[0]


TABLES = list_tables(COMING_FROM_R)
FORMULA_ROWS = TABLES["Formulas"][0]


# --------------------------------------------------------------------------- R's naming map

def normal_terms(labels):
    """Term labels as R's and fstools' names compare (the naming map of tests/test_formula_r.py):
    a sorted list of sorted factor lists."""
    return sorted(sorted(normal_term(label)) for label in labels)


# --------------------------------------------------------------------------- the formula table

def test_the_formula_table_is_what_r_was_run_on():
    # After editing the table, run tests/data/r_coming_from_r.R again.
    assert [only_literal(row[0]) for row in FORMULA_ROWS] == [entry["formula"] for entry in R_OUTPUT]
    assert len(FORMULA_ROWS) >= 25
    assert sum(row[1].strip() == "refused" for row in FORMULA_ROWS) >= 4


@pytest.mark.parametrize("row", FORMULA_ROWS, ids=[only_literal(row[0]) for row in FORMULA_ROWS])
def test_formula_row(row):
    r_formula = only_literal(row[0])
    r_entry = next(entry for entry in R_OUTPUT if entry["formula"] == r_formula)
    if row[1].strip() == "refused":
        fragment = only_literal(row[2])
        with pytest.raises(FormulaError) as caught:
            fs.select(r_formula, FORMULA_DATA, method="f_test")
        assert fragment in str(caught.value)
        return
    formula, terms = only_literal(row[1]), literals(row[2])
    frame = parse_formula(formula, FORMULA_DATA)
    assert list(frame.terms) == terms, "the table's terms are not fstools' terms"
    assert normal_terms(frame.terms) == normal_terms(r_entry["term_labels"]), "fstools' terms are not R's"
    assert list(frame.response_names) == r_entry["response_variables"]


# --------------------------------------------------------------------------- the other tables

class _CheaperFs:
    """``fs`` with the functions of :data:`CHEAPER` given their cheaper settings."""

    def __getattr__(self, name):
        function = getattr(fs, name)
        if name not in CHEAPER:
            return function

        def cheaper(*args, **kwargs):
            return function(*args, **{**kwargs, **CHEAPER[name](kwargs)})
        return cheaper


def table_calls(section):
    """The fstools code of a section's tables: inline literals of the fstools and differences
    columns that call ``fs.`` or start with ``res``, in the page's order."""
    return [code for table in TABLES[section] for row in table for cell in row[1:] for code in literals(cell)
            if "fs." in code or re.match(r"res\b", code)]


def _is_bare_fs_call(code):
    node = ast.parse(code, mode="eval").body
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "fs")


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.mark.parametrize("section", CALL_SECTIONS)
def test_the_tables_fstools_calls_run(section, wine):
    import matplotlib.pyplot as plt
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline

    calls = table_calls(section)
    assert calls, f"no fstools call found in the {section} table"
    X, y = wine.drop(columns="class").to_numpy(), wine["class"].to_numpy()
    namespace = {"fs": _CheaperFs(), "df": wine, "X": X, "y": y, "np": np, "make_pipeline": make_pipeline,
                 "KNeighborsClassifier": KNeighborsClassifier,
                 "res": fs.select("class ~ .", wine, method="mrmr", k=5)}
    for code in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # rough_fix() with nothing tentative, a lasso's convergence
            try:
                value = eval(code, namespace)  # noqa: S307 - the page's own code
            except Exception as error:  # pragma: no cover - the message names the page's code
                raise AssertionError(f"{section}: {code} raised {type(error).__name__}: {error}") from error
        if hasattr(value, "steps") and hasattr(value, "fit"):
            value.fit(X, y)  # a pipeline: it must fit
        repr(value)
        if _is_bare_fs_call(code):
            namespace["res"] = value
        plt.close("all")


# --------------------------------------------------------------------------- the data page

def _console_commands(path):
    """``(argv, shown output lines)`` of each ``$ fstools ...`` line of the page's console blocks."""
    commands, block = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(".. code-block:: console"):
            block = True
        elif block and line and not line.startswith(" "):
            block = False
        elif block and line.strip().startswith("$ "):
            commands.append((shlex.split(line.strip()[2:]), []))
        elif block and line.strip() and commands:
            commands[-1][1].append(line.strip())
    return commands


def test_the_data_page_runs(tmp_path, monkeypatch, capsys):
    pytest.importorskip("polars")
    pytest.importorskip("pyarrow")
    from fstools.cli import main

    monkeypatch.chdir(tmp_path)  # the examples write wine.parquet and the like here
    result = doctest.testfile(str(DATA_PAGE), module_relative=False, report=True,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = capsys.readouterr().out
    assert result.attempted >= 20
    assert result.failed == 0, out

    commands = _console_commands(DATA_PAGE)
    assert len(commands) >= 3
    for argv, shown in commands:
        assert argv[0] == "fstools"
        assert main(argv[1:]) == 0, " ".join(argv)
        printed = [line.strip() for line in capsys.readouterr().out.splitlines()]
        position = 0
        for line in shown:
            if line == "...":
                continue
            assert line in printed[position:], f"{' '.join(argv)}: {line!r} not printed (in this order)"
            position = printed.index(line, position) + 1

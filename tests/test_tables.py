"""The summaries as a statistician reads them, and the public tables against their documentation.

* text: a header on the significance column, a legend line where NA appears, jargon (criterion
  formula, equation numbers) only with ``details=True``, which test the p-values come from and that
  they are marginal tests, the redundancy note once;
* HTML: inline styles, right-aligned numbers, ``±``, a caption, the footnote of the compare table
  saying what bold means;
* LaTeX: booktabs rules, numeric columns right-aligned;
* every public table has the columns its docstring documents (the names in double backticks of
  the "Returns" section or of the attribute's entry).
"""
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import fstools as fs
from fstools.evaluation.comparison_result import ComparisonResult
from fstools.results.multilabel_result import MultiLabelResult
from fstools.results.selection_result import SelectionResult
from fstools.results.tables import Summary, numeric_columns


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.fixture(scope="module")
def cmqfs(wine):
    return fs.select("class ~ .", wine, method="cmqfs", k=5)


@pytest.fixture(scope="module")
def mrmr(wine):
    return fs.select("class ~ .", wine, method="mrmr", k=4)


@pytest.fixture(scope="module")
def elc():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 6))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] > 0, X[:, 0] + X[:, 2] > 0]).astype(int)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)]).assign(y1=Y[:, 0], y2=Y[:, 1], y3=Y[:, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fs.select("y1 + y2 + y3 ~ .", frame, method="elc", k=2, max_iter=20)


@pytest.fixture(scope="module")
def cmp(wine):
    return fs.compare("class ~ .", wine, ["cmqfs", "fisher", "mrmr"], k=[1, 2, 3], cv=3, repeats=2, random_state=0,
                      progress=False)


# ----------------------------------------------------------------------------- text
def test_star_column_has_a_header_and_a_legend(cmqfs, cmp):
    summary = cmqfs.summary()
    assert list(summary.table.columns)[-1] == "signif."
    assert "signif. codes (on p.adj):" in summary.as_text()
    tests = cmp.test_summary("ttest", "cmqfs")
    assert "signif." in tests.table.columns and "" not in tests.table.columns


def test_na_has_a_legend_line_where_it_appears(cmqfs, mrmr):
    text = cmqfs.summary().as_text()
    assert (cmqfs.summary().table["w"] == "NA").any()
    assert "w, NRI: NA at rank 1 (no feature chosen before it)" in text
    assert ": NA" not in mrmr.summary().as_text()                    # no NA shown, no legend


def test_jargon_only_with_details(cmqfs):
    plain = cmqfs.summary().as_text()
    detailed = cmqfs.summary(details=True).as_text()
    assert "Criterion" not in plain and "Eq. 34" not in plain
    assert "Criterion" in detailed and "Eq. 34" in detailed
    assert detailed.count("Eq. 34") == 1 and plain.count("Redundancy") == 1


def test_p_values_say_which_test_and_that_they_are_marginal(cmqfs, elc):
    text = cmqfs.summary().as_text()
    assert "p-values: ANOVA F test of each feature against class" in text
    assert "marginal tests" in text and "not tests of the selection" in text
    multilabel = elc.summary().as_text()
    assert "marginal tests" in multilabel and "Eq. 16" not in multilabel
    assert "Eq. 16" in elc.summary(details=True).as_text()


# ----------------------------------------------------------------------------- HTML and LaTeX
def test_html_is_styled_inline_with_right_aligned_numbers(cmqfs):
    page = cmqfs.summary().as_html()
    assert "<figcaption" in page and "Feature selection (cmqfs)" in page
    assert "<table style=" in page and "border-collapse" in page
    cells = re.findall(r"<td style=\"[^\"]*text-align: (\w+);\">([^<]*)</td>", page)
    aligned = {}
    for align, text in cells:
        aligned.setdefault(text, align)
    assert aligned["0.2671"] == "right" and aligned["flavanoids"] == "left" and aligned["ANOVA F"] == "left"
    headers = dict((text, align) for align, text in re.findall(r"text-align: (\w+);\">([^<]*)</th>", page))
    assert headers["Q"] == "right" and headers["feature"] == "left"


def test_compare_html_bolds_the_best_and_says_so(cmp):
    summary = cmp.summary()
    page = summary.as_html()
    assert "<b>" in page and "±" in page and "+-" not in page
    assert "bold: best (highest mean) in the row" in page and "* best" not in page
    text = summary.as_text()
    assert "*: best (highest mean) in the row" in text and "+-" in text
    latex = summary.as_latex()
    assert r"\textbf{" in latex and "% bold: best" in latex and r"$\pm$" in latex


def test_latex_has_booktabs_rules_and_right_aligned_numbers(cmqfs):
    latex = cmqfs.summary().as_latex()
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert latex.count(rule) == 1
    spec = re.search(r"\\begin\{tabular\}\{(\w+)\}", latex).group(1)
    columns = list(cmqfs.summary().table.columns)
    assert len(spec) == len(columns)
    kinds = dict(zip(columns, spec))
    assert kinds["rank"] == "r" and kinds["Q"] == "r" and kinds["p.value"] == "r"
    assert kinds["feature"] == "l" and kinds["test"] == "l"


def test_numeric_columns_recognises_formatted_numbers():
    table = pd.DataFrame({"a": ["1", "NA", "<2e-16"], "b": ["x", "1", "2"], "c": ["1.5 +- 0.2", "2, 175", "3e-05"]})
    assert numeric_columns(table) == ["a", "c"]
    summary = Summary("t", [], table)
    assert "rll" not in summary.as_latex() and "{rlr}" in summary.as_latex()


# ----------------------------------------------------------------------------- documented columns
def _section(doc, title):
    """The text of a numpydoc section ('Returns', 'Attributes') of ``doc``."""
    lines = doc.splitlines()

    def underline(j):
        return j < len(lines) and re.match(r"^\s*-{3,}\s*$", lines[j]) is not None

    for i, line in enumerate(lines):
        if line.strip() == title and underline(i + 1):
            body = []
            for j in range(i + 2, len(lines)):
                if underline(j + 1):
                    break
                body.append(lines[j])
            return "\n".join(body)
    raise AssertionError(f"no {title!r} section")


def _attribute(doc, name):
    """The entry of attribute ``name`` in the Attributes section of ``doc``."""
    text = _section(doc, "Attributes")
    match = re.search(rf"^(\s*){name} :.*?\n(.*?)(?=^\1\w[\w, ]* :|\Z)", text, re.S | re.M)
    assert match, f"attribute {name!r} not documented"
    return match.group(2)


def _names(text):
    return set(re.findall(r"``([A-Za-z_][\w.]*)``", text))


def test_selection_tables_have_the_documented_columns(cmqfs, mrmr):
    documented = _names(_attribute(SelectionResult.__doc__, "scores"))
    assert set(cmqfs.scores.columns) <= documented
    assert {"rank", "score"} <= set(mrmr.scores.columns)
    steps = _names(_attribute(SelectionResult.__doc__, "steps"))
    assert set(cmqfs.steps.columns) <= steps and set(mrmr.steps.columns) <= steps
    tests = _names(_section(SelectionResult.univariate_tests.__doc__, "Returns"))
    assert set(cmqfs.univariate_tests().columns) == tests
    frame = _names(_section(SelectionResult.summary_frame.__doc__, "Returns"))
    assert set(cmqfs.summary_frame().columns) <= frame
    assert tests <= set(cmqfs.summary_frame().columns)


def test_multilabel_label_tests_have_the_documented_columns(elc):
    documented = _names(_section(MultiLabelResult.label_tests.__doc__, "Returns"))
    assert set(elc.label_tests().columns) == documented
    assert set(elc.scores.columns) <= _names(_attribute(MultiLabelResult.__doc__, "scores"))


def test_comparison_tables_have_the_documented_columns(cmp):
    frame = cmp.summary_frame()
    documented = _names(_section(ComparisonResult.summary_frame.__doc__, "Returns"))
    assert list(frame.columns.names) == ["method", "statistic"] and list(frame.index.names) == ["dataset", "k"]
    assert set(frame.columns.get_level_values("statistic")) == {"mean", "sd", "best"}
    assert {"method", "statistic", "dataset", "k", "mean", "sd", "best"} == documented
    ttest = cmp.ttest("cmqfs").frame
    assert set(ttest.columns) == _names(_section(ComparisonResult.ttest.__doc__, "Returns"))

"""What the results say in words, the same in every format.

* counts read right: "1 comparison", "2 comparisons" (one rule, :func:`fstools.results.tables.noun_for`),
  and no summary, ``repr`` or test print of a result with counts of one says "1 <plural>";
* a notebook shows a result as ``repr`` shows it (the short R-like print of the README), not the summary;
* a data frame given without a name is described by what it is (rows, features, response), never by
  the placeholder "data", the same in the text, HTML and LaTeX of the tests;
* a t-test prints its mean difference and interval in the units of its HTML and LaTeX tables.

References: the counts are those of the inputs (the rows and columns of the frame, the methods
compared); the mean differences are recomputed from the long table of fold scores with pandas.
"""
import re
import warnings
from html.parser import HTMLParser

import numpy as np
import pytest

import fstools as fs
from fstools.results.tables import format_count, noun_for

#: Nouns counted in the results' words, by their plural.
PLURALS = ("comparisons", "features", "candidate features", "candidates", "folds", "test folds", "training folds",
           "data sets", "classes", "labels", "blocks", "methods", "steps", "iterations", "repeats", "times",
           "rows", "pairs", "design columns", "cells")
#: "1 comparisons", "1 data sets", ...: a count of one with a plural noun.
ONE_PLURAL = re.compile(r"(?<![\d.])1 (" + "|".join(sorted(map(re.escape, PLURALS), key=len, reverse=True))
                        + r")\b")


class _Text(HTMLParser):
    """The text content of an HTML fragment, as a browser shows it (entities decoded)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []

    def handle_data(self, data):
        self.parts.append(data)


def html_text(fragment):
    parser = _Text()
    parser.feed(fragment)
    return "".join(parser.parts)


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.fixture(scope="module")
def two_methods(wine):
    """One unnamed frame, two methods (one comparison), one repeat."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fs.compare("class ~ .", wine, ["fisher", "mrmr"], k=[1, 2], cv=3, repeats=1, random_state=0,
                          progress=False)


# --------------------------------------------------------------------------- counts
def test_noun_for_is_singular_for_one_and_plural_otherwise():
    assert [format_count(n, "comparison") for n in (0, 1, 2)] == ["0 comparisons", "1 comparison", "2 comparisons"]
    assert format_count(1, "data set") == "1 data set" and format_count(4, "data set") == "4 data sets"
    assert format_count(1, "class") == "1 class" and format_count(3, "class") == "3 classes"
    assert format_count(np.int64(5), "fold") == "5 folds"
    assert noun_for(2, "matrix", "matrices") == "matrices" and noun_for(1, "matrix", "matrices") == "matrix"
    for bad in (1.5, True, "2", None):
        with pytest.raises(TypeError, match="^n: must be an integer count"):
            noun_for(bad, "fold")


def test_counts_of_one_read_in_the_singular(wine, two_methods):
    res = fs.select("class ~ .", wine, method="mrmr", k=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        texts = {"selection repr": repr(res), "selection summary": res.summary().as_text(),
                 "selection HTML": html_text(res.summary().as_html()),
                 "comparison repr": repr(two_methods), "comparison summary": two_methods.summary().as_text(),
                 "t-tests": repr(two_methods.ttest("mrmr")),
                 "t-test table": two_methods.ttest("mrmr").summary().as_text(),
                 "t-test LaTeX": two_methods.ttest("mrmr").summary().as_latex(),
                 "Wilcoxon": repr(two_methods.wilcoxon("mrmr")),
                 "Friedman": two_methods.friedman().summary().as_text(),
                 "path plot": res.plot(kind="path").get_title()}
    for name, text in texts.items():
        assert not ONE_PLURAL.search(text), (name, ONE_PLURAL.search(text).group(0))
    # the counts of one that are there, in the singular
    assert "Selected (1):" in texts["selection repr"]
    header = dict(res.summary().header)
    assert header["Selected"] == "1 feature"
    assert dict(two_methods.ttest("mrmr").summary().header)["Adjustment"] == "holm over the 1 comparison"
    assert "on 1 data set (" in texts["comparison repr"]
    assert "x 1 repeat," in texts["comparison summary"]
    assert "selection path, 1 step" in texts["path plot"]


def test_counts_above_one_read_in_the_plural(wine):
    res = fs.select("class ~ .", wine, method="mrmr", k=3)
    header = dict(res.summary().header)
    assert header["Selected"] == "3 features"
    assert header["Candidates"] == f"{wine.shape[1] - 1} features"
    assert f"{wine['class'].nunique()} classes" in header["Response"]


# --------------------------------------------------------------------------- notebooks show repr
def test_notebook_shows_the_short_print_not_the_summary(wine, two_methods):
    res = fs.select("class ~ .", wine, method="cmqfs", k=3)
    guarantees = [fs.stability("class ~ .", wine, "fisher", k=3, n_bootstrap=5, random_state=0, progress=False),
                  fs.stability_selection("class ~ .", wine, "fisher", q=3, cutoff=0.8, B=5, random_state=0),
                  fs.boruta("class ~ .", wine, importance="fisher", max_runs=12, random_state=0),
                  fs.knockoff_filter("class ~ .", wine, "fisher", knockoffs="gaussian", random_state=0)]
    for result in (res, two_methods, *guarantees):
        shown = result._repr_html_()
        assert html_text(shown).splitlines() == repr(result).splitlines()
        assert "<table" not in shown                       # the summary's table is summary()'s
    assert "<table" in res.summary()._repr_html_()         # one call away
    # the repr is the README's: call, method, n, selected features
    lines = repr(res).splitlines()
    assert lines[0].endswith("cmqfs") and lines[1].startswith("Call:") and lines[2].startswith("n = ")
    assert lines[3].startswith("Selected (3):")


def test_comparison_print_says_its_averages_in_the_units_of_its_summary(two_methods):
    line = repr(two_methods).splitlines()[-1]
    assert line.startswith("Avg. accuracy (%) (1nn): ")
    printed = {name: float(value) for name, value in re.findall(r"(\w+) (\d+\.?\d*)", line.split(": ", 1)[1])}
    table = two_methods.summary().table
    row = table[table["k"] == "Avg."].iloc[0]
    tabled = {name: float(row[name].split("+-")[0]) for name in printed}
    r = two_methods.results[(two_methods.results["metric"] == "accuracy")]
    for name in ("fisher", "mrmr"):    # one repeat: the mean over the folds of the mean over k, in percent
        expected = 100 * r[r["method"] == name].groupby("fold")["value"].mean().mean()
        assert printed[name] == pytest.approx(expected, rel=1e-3)
        assert tabled[name] == pytest.approx(expected, abs=0.006)      # two decimals


def test_notebook_html_escapes_the_print():
    df = fs.datasets.load("iris")
    df = df.rename(columns={df.columns[0]: "a<b&c"})
    res = fs.select("class ~ .", df, method="fisher", k=4)
    assert "a<b&c" in repr(res)
    assert "a&lt;b&amp;c" in res._repr_html_() and html_text(res._repr_html_()) == repr(res)


# --------------------------------------------------------------------------- the data of a comparison
def _data_lines(summary):
    """The Data line of a summary as its text, HTML and LaTeX say it."""
    text = next(line for line in summary.as_text().splitlines() if line.startswith("Data:"))
    html = next(line for line in html_text(summary.as_html().replace("</div>", "</div>\n")).splitlines()
                if line.startswith("Data:"))
    latex = next(line for line in summary.as_latex().splitlines() if line.startswith("% Data:"))
    return [re.sub(r"^%?\s*Data:\s*", "", line).strip() for line in (text, html, latex)]


def test_an_unnamed_frame_is_described_not_called_data(wine, two_methods):
    rows, features = wine.shape[0], wine.shape[1] - 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summaries = {"t-test": two_methods.ttest("mrmr").summary(), "Wilcoxon": two_methods.wilcoxon("mrmr").summary(),
                     "Friedman": two_methods.friedman().summary(), "comparison": two_methods.summary()}
    for name, summary in summaries.items():
        lines = _data_lines(summary)
        assert len(set(lines)) == 1, (name, lines)         # text, HTML and LaTeX agree
        numbers = [int(v) for v in re.findall(r"(\d+) (?:rows|features|classes)", lines[0])]
        assert numbers == [rows, features, wine["class"].nunique()], (name, lines[0])
        assert not re.match(r"data\b", lines[0]), (name, lines[0])
    for test in two_methods.ttest("mrmr"):
        assert f"{rows} rows" in test.data and "; data;" not in test.data
    assert f"({rows} rows, {features} features" in repr(two_methods).splitlines()[0]


def test_named_data_sets_keep_their_names(wine):
    iris = fs.datasets.load("iris")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        several = fs.compare("class ~ .", {"wine": wine, "iris": iris}, ["fisher", "mrmr"], k=[1, 2], cv=2,
                             repeats=1, random_state=0, progress=False)
        lines = _data_lines(several.ttest("mrmr", paired_over="datasets", correction="none").summary())
    assert set(lines) == {"wine, iris"}


# --------------------------------------------------------------------------- t-test units
_NUMBER = r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf)"


def _print_numbers(test_text):
    """(estimate, low, high) of one R-like test print."""
    lines = test_text.splitlines()
    at = next(i for i, line in enumerate(lines) if "confidence interval" in line)
    low, high = (float(v) for v in lines[at + 1].split())
    estimate = float(next(line for line in lines if line.startswith("mean difference")).rsplit(":", 1)[1])
    return estimate, low, high


def _table_numbers(cells):
    """(estimate, low, high) of one row of the test table (cells: column -> text)."""
    mean = next(value for column, value in cells.items() if column.startswith("mean diff"))
    interval = next(value for column, value in cells.items() if column.endswith("CI"))
    low, high = re.fullmatch(rf"\[({_NUMBER}), ({_NUMBER})\]", interval.strip()).groups()
    return float(mean), float(low), float(high)


class _Table(HTMLParser):
    """The header cells and the rows of cells of the first HTML table."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.header, self.rows, self._cell, self._in = [], [], None, None

    def handle_starttag(self, tag, attrs):
        if tag in ("th", "td"):
            self._cell, self._in = [], tag
        elif tag == "tr":
            self.rows.append([])

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None:
            text = "".join(self._cell)
            (self.header if self._in == "th" else self.rows[-1]).append(text)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_ttest_text_html_and_latex_say_the_same_numbers_in_points(wine):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = fs.compare("class ~ .", wine, ["mrmr", "mim", "fisher"], k=[2, 4], cv=3, repeats=2, random_state=0,
                         progress=False)
    tests = cmp.ttest("mrmr", alternative="two-sided")
    # independently: the mean over (repeat, fold) of accuracy averaged over k, reference minus other, in points
    r = cmp.results[(cmp.results["metric"] == "accuracy") & (cmp.results["classifier"] == "1nn")]
    units = r.pivot_table(index=["repeat", "fold"], columns="method", values="value", aggfunc="mean")
    expected = {other: 100 * float((units["mrmr"] - units[other]).mean()) for other in ("mim", "fisher")}

    printed = {test.data.split(";")[0].rsplit(" - ", 1)[1]: _print_numbers(test.as_text()) for test in tests}
    assert "mean difference (percentage points):" in repr(tests)

    table = _Table()
    table.feed(tests._repr_html_())
    html = {row[0].split(" vs ")[1]: _table_numbers(dict(zip(table.header, row))) for row in table.rows if row}

    latex_lines = tests.summary().as_latex().splitlines()
    columns = [c.strip().replace("\\%", "%") for c in
               latex_lines[latex_lines.index(r"\toprule") + 1].removesuffix(r"\\").split("&")]
    body = latex_lines[latex_lines.index(r"\midrule") + 1:latex_lines.index(r"\bottomrule")]
    latex = {}
    for line in body:
        cells = [c.strip() for c in line.removesuffix(r"\\").split("&")]
        latex[cells[0].split(" vs ")[1]] = _table_numbers(dict(zip(columns, cells)))

    assert set(printed) == set(html) == set(latex) == set(expected)
    for other, mean in expected.items():
        for where, numbers in (("text", printed), ("HTML", html), ("LaTeX", latex)):
            estimate, low, high = numbers[other]
            assert estimate == pytest.approx(mean, rel=1e-3), (where, other)    # 4 significant digits
            assert low < estimate < high, (where, other)
        assert printed[other] == html[other] == latex[other], other
    # the numbers behind them stay proportions
    frame = tests.frame.set_index("method")
    for other, mean in expected.items():
        assert frame.loc[other, "mean_diff"] == pytest.approx(mean / 100, rel=1e-12)


def test_a_metric_not_in_percent_prints_in_its_own_units(wine):
    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = fs.compare("class ~ .", wine, ["fisher", "mrmr"], k=[2], cv=3, repeats=1, random_state=0,
                         progress=False, metrics={"kappa": cohen_kappa_score})
        tests = cmp.ttest("mrmr", alternative="two-sided")
    text = repr(tests)
    assert "percentage points" not in text and "(points)" not in tests.summary().as_text()
    estimate, _, _ = _print_numbers(tests[0].as_text())
    assert estimate == pytest.approx(tests.frame["mean_diff"].iloc[0], rel=1e-3)

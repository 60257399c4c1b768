"""What the summary says: the score named for the response type, one note about factors, the rows of
the marginal tests under ``na_action='level'`` / ``'pass'``, and ``summary_frame`` without pandas'
deprecated ``join(rsuffix=)``.

References: the marginal tests and RED on the observed rows are recomputed with scipy
(``f_oneway``, ``chi2_contingency``) and NumPy's ``corrcoef`` on the rows the test selects itself;
the rows counted with pandas on the user's frame; ``summary_frame`` against ``pandas.merge`` of the
scores and the univariate tests.
"""
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

import fstools as fs  # noqa: E402
from fstools.methods.registry import get_method  # noqa: E402

CONTINUOUS_METHODS = sorted(name for name in fs.list_methods()["name"]
                            if "continuous" in get_method(name).responses and "streaming" not in
                            get_method(name).capabilities)
INFORMATION = ["mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _frame(seed=0, n=120):
    """Two informative numeric columns, a noise column, a three-level factor, a class and a
    continuous response."""
    rng = np.random.default_rng(seed)
    x1, x2, x3 = rng.normal(size=(3, n))
    colour = rng.choice(["red", "green", "blue"], size=n)
    signal = x1 + 0.5 * x2 + (colour == "red")
    return pd.DataFrame({"x1": x1, "x2": x2, "x3": x3, "colour": pd.Categorical(colour),
                         "cls": np.where(signal + 0.5 * rng.normal(size=n) > 0.3, "a", "b"),
                         "y": signal + 0.5 * rng.normal(size=n)})


def _score_line(summary):
    return next(note for note in summary.notes if note.startswith("score = "))


# ------------------------------------------------------------- 1. the score named for the response
@pytest.mark.parametrize("method", CONTINUOUS_METHODS)
def test_no_score_label_names_the_class_for_a_continuous_response(method):
    res = fs.select("y ~ x1 + x2 + x3", _frame(), method=method, k=2)
    assert res.response_type == "continuous"
    assert "class" not in _score_line(res.summary())
    ax = res.plot()
    assert "class" not in ax.get_ylabel()


@pytest.mark.parametrize("method", INFORMATION)
def test_mutual_information_is_with_the_response_or_with_the_class(method):
    data = _frame()
    continuous = fs.select("y ~ x1 + x2 + x3", data, method=method, k=2)
    classes = fs.select("cls ~ x1 + x2 + x3", data, method=method, k=2)
    assert _score_line(continuous.summary()).startswith("score = Mutual information with the response (I(X;C)")
    assert _score_line(classes.summary()).startswith("score = Mutual information with the class (I(X;C)")
    # the bars of a greedy method are its criterion by default; its relevance, I(X;C), on request
    value = "relevance" if "greedy" in get_method(method).capabilities else "criterion"
    assert " ".join(continuous.plot(value=value).get_ylabel().split()).startswith("Mutual information with the "
                                                                                  "response")
    assert " ".join(classes.plot(value=value).get_ylabel().split()).startswith("Mutual information with the class")


def test_the_permutation_null_plot_names_the_response_too():
    tested = fs.select("y ~ x1 + x2 + x3", _frame(), method="mim", k=2).test(n_permutations=19, random_state=0)
    assert _score_line(tested.summary()).startswith("score = Mutual information with the response")
    label = " ".join(tested.plot(kind="null").get_xlabel().split())
    assert label.startswith("Mutual information with the response") and "class" not in label


# ------------------------------------------------------------------- 2. one note about factors
FACTOR_METHODS = [(name, response) for name in sorted(fs.list_methods()["name"])
                  for response in ("cls", "y")
                  if "streaming" not in get_method(name).capabilities and "multilabel" not in get_method(name).capabilities
                  and ("continuous" if response == "y" else "class") in get_method(name).responses
                  and name != "chi2"]   # chi2 refuses the negative numeric columns


@pytest.mark.parametrize("method, response", FACTOR_METHODS)
def test_a_frame_with_a_factor_gives_one_note_about_factors(method, response):
    data = _frame().drop(columns=["y" if response == "cls" else "cls"])
    res = fs.select(f"{response} ~ .", data, method=method, k=2)
    summary = res.summary(all_features=True)
    about_factors = [note for note in summary.notes if "factor" in note.lower()]
    if get_method(method).factors == "dummies":   # a factor enters as its dummy columns: nothing to say
        assert about_factors == []
        return
    assert len(about_factors) == 1, about_factors
    assert about_factors[0].startswith("factor(s) 'colour' scored as one variable each")
    # what the method's own note says on how it scores a factor ("1 factor(s) scored by ...") is in that note
    own = [note for note in res.notes if note[:1].isdigit() and ("factor" in note or "nominal" in note)]
    for note in own:
        assert note[-40:] in about_factors[0]


def test_the_one_factor_note_names_every_factor_and_the_result_keeps_its_notes():
    data = _frame().assign(shape=lambda d: pd.Categorical(np.resize(["round", "square"], len(d))))
    res = fs.select("cls ~ .", data, method="f_test", k=2)
    about_factors = [note for note in res.summary().notes if "factor" in note.lower()]
    assert len(about_factors) == 1
    assert "'colour'" in about_factors[0] and "'shape'" in about_factors[0]
    assert "chi-square" in about_factors[0]
    assert sum("factor" in note for note in res.notes) == 2   # the result's own notes are left as they are


def test_without_a_factor_there_is_no_note_about_factors():
    res = fs.select("cls ~ x1 + x2 + x3", _frame(), method="f_test", k=2)
    assert not [note for note in res.summary().notes if "factor" in note.lower()]


# ------------------------------------------------- 3. the rows of the marginal tests under 'level'
def _with_missing(seed=1, n=150):
    data = _frame(seed, n)
    rng = np.random.default_rng(seed)
    data.loc[rng.random(n) < 0.15, "x1"] = np.nan
    data.loc[rng.random(n) < 0.10, "x2"] = np.nan
    return data


@pytest.mark.parametrize("method, na_action", [("mim", "level"), ("mrmr", "level"), ("relieff", "pass")])
def test_the_marginal_tests_say_they_use_the_observed_rows(method, na_action):
    data = _with_missing()
    before = data.copy()
    res = fs.select("cls ~ x1 + x2 + x3 + colour", data, method=method, k=3, na_action=na_action)
    pd.testing.assert_frame_equal(data, before)
    observed = {name: int(data[name].notna().sum()) for name in ("x1", "x2")}
    n = len(data)
    assert res.n == n
    notes = [note for note in res.summary().notes if "uses the rows where it is observed" in note]
    assert len(notes) == 1
    assert notes[0].startswith(f"na_action={na_action!r}")
    for name, count in observed.items():
        assert f"{name} ({count} of {n})" in notes[0]
    assert "x3 (" not in notes[0] and "colour (" not in notes[0]
    # the tests are those of the observed rows: Welch t of each numeric column, chi-square of the factor
    tests = res.univariate_tests()
    for name in ("x1", "x2", "x3"):
        rows = data[name].notna()
        groups = [data.loc[rows & (data["cls"] == c), name] for c in ("a", "b")]
        expected = stats.ttest_ind(*groups, equal_var=False)
        assert tests.loc[name, "statistic"] == pytest.approx(expected.statistic, rel=1e-10)
        assert tests.loc[name, "p_value"] == pytest.approx(expected.pvalue, rel=1e-8)
    chi2 = stats.chi2_contingency(pd.crosstab(data["colour"], data["cls"]).to_numpy(), correction=False)
    assert tests.loc["colour", "statistic"] == pytest.approx(chi2.statistic, rel=1e-10)


def test_red_says_its_rows_under_level():
    data = _with_missing()
    res = fs.select("cls ~ x1 + x2 + x3", data, method="mim", k=3, na_action="level")
    complete = data[["x1", "x2", "x3"]].dropna()
    line = dict(res.summary().header)["Redundancy"]
    assert f"on the {len(complete)} of {len(data)} rows where they are all observed" in line
    r = np.abs(np.corrcoef(complete.to_numpy(), rowvar=False))
    assert res.redundancy == pytest.approx(r[np.triu_indices(3, 1)].sum() / (3 * 2), rel=1e-12)


def test_no_note_on_the_rows_without_missing_values():
    for na_action in ("drop", "level"):
        res = fs.select("cls ~ x1 + x2 + x3", _frame(), method="mim", k=2, na_action=na_action)
        summary = res.summary()
        assert not [note for note in summary.notes if "uses the rows" in note]
        assert "observed" not in dict(summary.header)["Redundancy"]


# -------------------------------------------------------------- 4. summary_frame, no deprecation
@pytest.mark.parametrize("method", ["f_test", "mrmr", "cmqfs", "fisher"])
def test_summary_frame_warns_nothing_and_is_the_merge_of_scores_and_tests(method):
    res = fs.select("cls ~ x1 + x2 + x3", _frame(), method=method, k=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frames = [res.summary_frame(), res.summary_frame(all_features=True)]
    tests = res.univariate_tests()
    for frame, shown in zip(frames, [res.scores.loc[res.selected], res.scores]):
        expected = pd.merge(shown, tests, how="left", left_index=True, right_index=True,
                            suffixes=("", "_marginal"))
        pd.testing.assert_frame_equal(frame, expected)
    if method == "f_test":   # its own p_value keeps its name, the marginal test's gets the suffix
        assert {"p_value", "p_value_marginal"} <= set(frames[0].columns)

"""Every plot of fstools: the return convention, the labels, and a few images against baselines.

The convention (README, "Plots and tables"): a one-panel plot takes ``ax=`` and returns the Axes it
drew on; a multi-panel plot takes ``fig=`` (or ``ax=``, a sequence of Axes) and returns the Figure.
Every plot kind is rendered in quick mode into a folder; a few are compared with the images in
``tests/baseline_images/`` (matplotlib.testing.compare.compare_images with a tolerance, Agg, a fixed
rcParams context, DejaVu Sans).  ``FSTOOLS_UPDATE_BASELINES=1 pytest tests/test_plots.py`` rewrites
the baselines (look at them before committing).
"""
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.testing.compare import compare_images  # noqa: E402

import fstools as fs  # noqa: E402
from fstools.evaluation.comparison_result import FriedmanResult  # noqa: E402
from fstools.evaluation.online_evaluation import METHOD_LABELS as ONLINE_LABELS  # noqa: E402
from fstools.methods.registry import get_method, method_names  # noqa: E402
from fstools.results.labels import (METHOD_LABELS, RECORD_NAMES, SCORE_NAMES, method_label,  # noqa: E402
                                    score_label)

BASELINES = Path(__file__).parent / "baseline_images"
UPDATE = os.environ.get("FSTOOLS_UPDATE_BASELINES") == "1"
#: Fixed rendering: the same fonts, sizes and hinting on every machine.
RC = {"font.family": "DejaVu Sans", "font.size": 10, "figure.dpi": 72, "savefig.dpi": 72, "text.hinting": "none",
      "axes.unicode_minus": True, "figure.max_open_warning": 0}
TOLERANCE = 12.0


@pytest.fixture(autouse=True)
def fixed_style():
    with matplotlib.style.context("default"), matplotlib.rc_context(RC):
        yield
    plt.close("all")


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


@pytest.fixture(scope="module")
def results(wine):
    """One result of each plotting kind, quick."""
    X = np.random.default_rng(0).normal(size=(80, 8))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 0] > 0, X[:, 2] > 0.3]).astype(int)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(8)]).assign(y1=Y[:, 0], y2=Y[:, 1], y3=Y[:, 2])
    rng = np.random.default_rng(1)
    Xo = rng.normal(size=(200, 6))
    yo = np.where(Xo[:, 0] + rng.normal(size=200) > 1.2, "rare", "common")
    with _no_check():
        out = {
            "cmqfs": fs.select("class ~ .", wine, method="cmqfs", k=5),
            "laplacian": fs.select("class ~ .", wine, method="laplacian", k=5),
            "mrmr": fs.select("class ~ .", wine, method="mrmr", k=5),
            "dfs": fs.select("class ~ .", wine, method="dfs", k=5, p=0.5),
            "trace_ratio": fs.select("class ~ .", wine, method="trace_ratio", k=4),
            "elc": fs.select("y1 + y2 + y3 ~ .", frame, method="elc", k=3, max_iter=30, tau="lipschitz"),
            "compare": fs.compare("class ~ .", wine, ["cmqfs", "fisher", "mrmr"], k=[1, 2, 3],
                                  classifier=["1nn", "svm"], cv=2, repeats=2, random_state=0, progress=False),
            "compare_multi": fs.compare("class ~ .", {"wine": wine, "iris": fs.datasets.load("iris")},
                                        ["fisher", "mrmr"], k=[1, 2], cv=2, repeats=2, random_state=0,
                                        progress=False),
            "stability": fs.stability("class ~ .", wine, "fisher", k=3, n_bootstrap=5, random_state=0,
                                      progress=False),
            "online": fs.evaluate_online(Xo, yo, budgets=[2, 4, 6], n_orders=2, random_state=0),
        }
    return out


class _no_check:
    """Warnings of the quick runs (iteration limits) are not what these tests are about."""

    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        return self._catch.__exit__(*exc)


def _every_plot(results):
    """(name, call) for every plot method and kind; calls return what plot() returns."""
    r = results
    return [
        ("scores_cmqfs", lambda **kw: r["cmqfs"].plot(**kw)),
        ("scores_laplacian", lambda **kw: r["laplacian"].plot(kind="scores", **kw)),
        ("path_cmqfs", lambda **kw: r["cmqfs"].plot(kind="path", **kw)),
        ("path_mrmr", lambda **kw: r["mrmr"].plot(kind="path", **kw)),
        ("convergence_dfs", lambda **kw: r["dfs"].plot(kind="convergence", **kw)),
        ("convergence_trace_ratio", lambda **kw: r["trace_ratio"].plot(kind="convergence", **kw)),
        ("multilabel_scores", lambda **kw: r["elc"].plot(**kw)),
        ("multilabel_convergence", lambda **kw: r["elc"].plot(kind="convergence", **kw)),
        ("compare", lambda **kw: r["compare"].plot(**kw)),
        ("compare_multi", lambda **kw: r["compare_multi"].plot(**kw)),
        ("critical_difference", lambda **kw: r["compare"].friedman().plot(**kw)),
        ("stability_heatmap", lambda **kw: r["stability"].plot(**kw)),
        ("stability_frequency", lambda **kw: r["stability"].plot(kind="frequency", **kw)),
        ("online", lambda **kw: r["online"].plot(**kw)),
        ("online_one_metric", lambda **kw: r["online"].plot("g_mean", **kw)),
    ]


#: What each plot returns: one panel -> Axes, several panels -> Figure.
RETURNS = {"convergence_dfs": Figure, "convergence_trace_ratio": Figure, "multilabel_convergence": Figure,
           "compare_multi": Figure, "online": Figure}


def test_every_plot_returns_its_axes_or_figure_and_renders(results, tmp_path):
    for name, draw in _every_plot(results):
        drawn = draw()
        expected = RETURNS.get(name, Axes)
        assert isinstance(drawn, expected), f"{name}: returned {type(drawn).__name__}, not {expected.__name__}"
        figure = drawn if isinstance(drawn, Figure) else drawn.figure
        figure.savefig(tmp_path / f"{name}.png")
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
        for axis in figure.axes:
            for formatter in (axis.yaxis.get_major_formatter(), axis.xaxis.get_major_formatter()):
                assert not getattr(formatter, "offset", ""), f"{name}: offset notation on an axis"
        plt.close(figure)


def test_one_panel_plots_draw_on_the_axes_given(results):
    for name, draw in _every_plot(results):
        if RETURNS.get(name) is Figure:
            continue
        _, given = plt.subplots()
        assert draw(ax=given) is given, name
        plt.close("all")


def test_multi_panel_plots_take_fig_and_return_it(results):
    for name, draw in _every_plot(results):
        if RETURNS.get(name) is not Figure:
            continue
        fig = plt.figure()
        assert draw(fig=fig) is fig, name
        assert len(fig.axes) >= 2 or name == "convergence_trace_ratio"
        plt.close("all")


def test_axis_labels_have_plain_names_and_direction(results):
    ax = results["laplacian"].plot()
    assert ax.get_ylabel() == "Laplacian score (lower is better)"
    ax = results["cmqfs"].plot(value="relevance")
    assert ax.get_ylabel() == "Modularity [Q] (higher is better)"
    ax = results["cmqfs"].plot()                  # a greedy method: its criterion by default
    assert ax.get_ylabel().replace("\n", " ") == "Criterion of the chosen feature [w] (higher is better)"
    ax = results["compare"].plot(metric="accuracy")
    assert ax.get_ylabel() == "Accuracy [%] (higher is better)"
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["CMQFS", "Fisher score", "mRMR"]
    figure = results["dfs"].plot(kind="convergence")
    ylabels = [axis.get_ylabel().replace("\n", " ") for axis in figure.axes]
    assert ylabels[0] == "Objective (minimised)" and "[Div(k)]" in ylabels[1]


def test_every_registered_method_and_score_has_a_display_name():
    for name in method_names():
        assert name in METHOD_LABELS, name
        spec = get_method(name)
        assert spec.score_name in SCORE_NAMES, (name, spec.score_name)
        if spec.path_column:
            assert spec.path_column in RECORD_NAMES
    assert ONLINE_LABELS == {name: METHOD_LABELS[name] for name in ONLINE_LABELS}
    assert method_label("mifs_u") == "MIFS-U" and method_label("my own label") == "my own label"
    assert score_label("laplacian", higher_is_better=False) == "Laplacian score (lower is better)"


def test_selected_features_with_tiny_zero_or_nan_scores_stay_visible(results):
    res = results["laplacian"]
    top = res.selected[0]
    assert res.scores.loc[top, "score"] < 1e-5                       # a bar of height ~0
    ax = res.plot()
    points = [line for line in ax.get_lines() if line.get_marker() == "o"]
    assert any(np.isclose(line.get_xdata()[0], 0) for line in points)  # marked at rank 1
    assert sum(1 for tick in ax.get_xticklabels() if tick.get_color() == "tab:red") == len(res.selected)
    assert ax.get_legend() is not None
    # a NaN score of a selected feature: a cross on the axis labelled NA
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 2.0, 3.0], "const": 1.0, "y": list("aaaabbbb")})
    with pytest.warns(UserWarning, match="constant"):
        nan_res = fs.select("y ~ .", df, method="laplacian", k=2)
    assert np.isnan(nan_res.scores.loc["const", "score"]) and "const" in nan_res.selected
    ax = nan_res.plot()
    assert "NA" in [text.get_text() for text in ax.texts]
    # a zero score of a selected feature: a point at 0 with its value
    with pytest.warns(UserWarning, match="constant"):
        zero_res = fs.select("y ~ .", df, method="fisher", k=2)
    assert zero_res.scores.loc["const", "score"] == 0 and "const" in zero_res.selected
    ax = zero_res.plot()
    assert any(line.get_marker() == "o" and line.get_ydata()[0] == 0 for line in ax.get_lines())


def test_path_plot_shows_every_step(results):
    res = results["cmqfs"]
    ax = res.plot(kind="path")
    assert [tick.get_text().split(":")[0] for tick in ax.get_xticklabels()] == ["1", "2", "3", "4", "5"]
    assert "NA" in [text.get_text() for text in ax.texts]           # step 1: w is not defined
    assert "not defined at step 1" in ax.get_xlabel()


def test_greedy_scores_plot_draws_the_criterion_at_the_step_that_chose_each_feature(results):
    res = results["mrmr"]
    ax = res.plot()
    steps = res.steps
    # mRMR's criterion at each step, from the step's own relevance and redundancy: J = I(X;C) - mean I(X;X_j)
    expected = (steps["MI"] - steps["redundancy"]).to_numpy()
    heights = [patch.get_height() for patch in ax.patches]
    np.testing.assert_allclose(heights, expected, rtol=1e-12)
    assert [tick.get_text() for tick in ax.get_xticklabels()] == list(steps["feature"])   # step order
    assert "[J]" in ax.get_ylabel() and "J at the step that chose each feature" in ax.get_title()
    assert "selection order" in ax.get_xlabel()
    unselected = len(res.scores) - len(res.selected)
    assert f"{unselected} candidates not chosen at any step" in ax.get_xlabel().replace("\n", " ")
    # relevance: every candidate's I(X;C) in rank order; an unselected feature can stand taller than a
    # selected one (the reason the criterion is the default)
    ax = res.plot(value="relevance")
    relevance = res.scores["MI"].to_numpy()
    np.testing.assert_allclose([patch.get_height() for patch in ax.patches], relevance, rtol=1e-12)
    chosen = res.scores.index.isin(res.selected)
    assert relevance[~chosen].max() > relevance[chosen].min()
    assert "Mutual information with the class" in ax.get_ylabel() and "relevance" in ax.get_title()


def test_cmqfs_criterion_plot_marks_its_first_step_na(results):
    res = results["cmqfs"]
    ax = res.plot()
    assert "NA" in [text.get_text() for text in ax.texts]            # step 1 is chosen by NQ alone: no w
    assert "not defined at step 1" in ax.get_xlabel()
    defined = res.steps["w"].to_numpy()[1:]
    np.testing.assert_allclose(sorted(patch.get_height() for patch in ax.patches), sorted(defined), rtol=1e-12)


def test_scores_plot_value_is_checked(results):
    with pytest.raises(ValueError, match=r"^value: must be one of 'criterion', 'relevance'; got 'J'"):
        results["mrmr"].plot(value="J")
    with pytest.raises(ValueError, match=r"^value: 'relevance' is the first-step score of a greedy method.*"
                                         r"'laplacian' ranks by its score alone \(allowed for it: 'criterion'\)"):
        results["laplacian"].plot(value="relevance")
    # a method that is not greedy: its score is its criterion
    ax = results["laplacian"].plot(value="criterion")
    np.testing.assert_allclose([patch.get_height() for patch in ax.patches if np.isfinite(patch.get_height())],
                               results["laplacian"].scores["score"].to_numpy(), rtol=1e-12)


def test_titles_name_data_method_classifier_and_metric(results):
    ax = results["compare"].plot(classifier="svm")
    assert "classifier svm" in ax.get_title() and "178 rows" in ax.get_title()
    ax = results["compare"].friedman(classifier="svm").plot()
    title = ax.get_title()
    assert "Accuracy" in title and "svm" in title and "178 rows" in title
    figure = results["compare_multi"].plot()
    assert [axis.get_title().split("\n")[0] for axis in figure.axes] == ["wine", "iris"]
    assert results["cmqfs"].plot().get_title().startswith("CMQFS: 5 of 13 features selected")


# ----------------------------------------------------------------------------- baseline images
def _check_baseline(figure, name, tmp_path):
    actual = tmp_path / f"{name}.png"
    figure.savefig(actual)
    plt.close(figure)
    expected = BASELINES / f"{name}.png"
    if UPDATE:
        BASELINES.mkdir(exist_ok=True)
        expected.write_bytes(actual.read_bytes())
        return
    assert expected.exists(), f"no baseline {expected.name}; run with FSTOOLS_UPDATE_BASELINES=1"
    message = compare_images(str(expected), str(actual), tol=TOLERANCE)
    assert message is None, message


def test_baseline_scores_laplacian(results, tmp_path):
    _check_baseline(results["laplacian"].plot().figure, "scores_laplacian", tmp_path)


def test_baseline_path_cmqfs(results, tmp_path):
    _check_baseline(results["cmqfs"].plot(kind="path").figure, "path_cmqfs", tmp_path)


def test_baseline_convergence_dfs(results, tmp_path):
    _check_baseline(results["dfs"].plot(kind="convergence"), "convergence_dfs", tmp_path)


def test_baseline_critical_difference(tmp_path):
    values = pd.DataFrame({"cmqfs": [0.9, 0.8, 0.95, 0.7], "fisher": [0.85, 0.82, 0.9, 0.6],
                           "mrmr": [0.8, 0.7, 0.85, 0.65]}, index=["a", "b", "c", "d"])
    result = FriedmanResult(values, True, 0.05, "datasets", "a, b, c, d",
                            plot_title="Accuracy of 1nn on a, b, c, d")
    _check_baseline(result.plot().figure, "critical_difference", tmp_path)

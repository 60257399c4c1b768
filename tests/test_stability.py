"""fs.stability and Nogueira, Sechidis & Brown's (2018) stability index.

The index is checked against hand computations (fractions worked out below) and its known
extremes; fs.stability against the definition of its bootstrap.
"""
import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import fstools as fs
from fstools.methods import registry
from fstools.methods.registry import MethodOutput, MethodSpec
from fstools.evaluation.stability import nogueira_stability


@pytest.fixture(scope="module")
def wine():
    return fs.datasets.load("wine")


# --------------------------------------------------------------------------- the index
def test_index_by_hand():
    # M = 3 runs, d = 4 features.  p = (1, 2/3, 1/3, 0), kbar = 2, (kbar/d)(1 - kbar/d) = 1/4,
    # s_f^2 = 3/2 p (1 - p) = (0, 1/3, 1/3, 0), mean 1/6, Phi = 1 - (1/6)/(1/4) = 1/3.
    Z = [[1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 0]]
    out = nogueira_stability(Z)
    assert out["stability"] == pytest.approx(1 / 3, abs=1e-14)
    # Variance (Theorem 7): (1/d) sum_f Z_if p_f = 5/12, 1/3, 5/12; k_i kbar / d^2 = 1/4;
    # Phi/2 (2 k_i kbar/d^2 - k_i/d - kbar/d + 1) = 1/6 * 1/2 = 1/12;
    # phi_i = (. - 1/4 + 1/12) / (1/4) = 1, 2/3, 1; mean 8/9;
    # var = 4/M^2 sum (phi_i - 8/9)^2 = 4/9 * 6/81 = 24/729.
    assert out["variance"] == pytest.approx(24 / 729, abs=1e-14)
    half = stats.norm.ppf(0.975) * np.sqrt(24 / 729)
    assert out["lower"] == pytest.approx(1 / 3 - half) and out["upper"] == pytest.approx(1 / 3 + half)
    narrow = nogueira_stability(Z, alpha=0.5)
    assert narrow["upper"] - narrow["lower"] < out["upper"] - out["lower"]


def test_index_extremes():
    # identical selections: 1, with no uncertainty
    same = nogueira_stability(np.tile([1, 0, 1, 0, 0], (6, 1)))
    assert same["stability"] == pytest.approx(1.0) and same["variance"] == pytest.approx(0.0, abs=1e-15)
    # two disjoint halves with M = 2: the minimum -1/(M - 1) = -1
    assert nogueira_stability([[1, 1, 0, 0], [0, 0, 1, 1]])["stability"] == pytest.approx(-1.0)
    # M = 5 runs, each a different single feature of 5: p_f = 1/5, s^2 = 5/4 * 4/25 = 1/5,
    # kbar/d = 1/5, denominator 4/25: Phi = 1 - (1/5)/(4/25) = -1/4 = -1/(M - 1)
    assert nogueira_stability(np.eye(5))["stability"] == pytest.approx(-0.25)
    # random sets of a fixed size: expected value 0
    rng = np.random.default_rng(0)
    Z = np.zeros((400, 40), dtype=bool)
    for row in Z:
        row[rng.choice(40, 6, replace=False)] = True
    out = nogueira_stability(Z)
    assert abs(out["stability"]) < 4 * np.sqrt(out["variance"]) + 0.01
    # undefined when every run selects nothing (or everything)
    assert np.isnan(nogueira_stability(np.zeros((3, 4)))["stability"])
    assert np.isnan(nogueira_stability(np.ones((3, 4)))["stability"])


def test_index_errors():
    with pytest.raises(ValueError, match="Z: must be binary"):
        nogueira_stability([[0, 2], [1, 0]])
    with pytest.raises(ValueError, match="Z: needs at least 2 runs"):
        nogueira_stability([[0, 1, 1]])
    with pytest.raises(ValueError, match="Z: must be 2-D"):
        nogueira_stability([0, 1, 1])
    with pytest.raises(ValueError, match="alpha: must be in"):
        nogueira_stability([[0, 1], [1, 0]], alpha=1.5)


# --------------------------------------------------------------------------- fs.stability
def test_stability_result(wine):
    res = fs.stability("class ~ .", wine, "fisher", k=3, n_bootstrap=12, random_state=0, progress=False)
    Z = res.selections
    assert Z.shape == (12, 13) and (Z.sum(axis=1) == 3).all()
    assert list(Z.columns) == list(wine.columns[:-1])
    freq = res.frequency
    np.testing.assert_allclose(freq["frequency"], Z.mean(axis=0)[freq.index])
    assert freq["frequency"].is_monotonic_decreasing
    expected = fs.select("class ~ .", wine, method="fisher", k=3).selected
    assert set(freq.index[freq["selected_all_data"]]) == set(expected)
    assert res.stability == pytest.approx(nogueira_stability(Z.to_numpy())["stability"])
    assert res.lower <= res.stability <= res.upper
    text = res.summary().as_text()
    assert "Nogueira's Phi" in text and "12 bootstrap samples" in text
    pd.testing.assert_frame_equal(res.summary_frame(), freq)
    assert len(res.summary(all_features=True).to_frame()) == 13
    assert "<table" in res.summary().as_html() and r"\begin{tabular}" in res.summary().as_latex()


def test_stability_reproducible_and_n_jobs_invariant(wine):
    kwargs = dict(k=4, n_bootstrap=8, random_state=3, progress=False)
    first = fs.stability("class ~ .", wine, ("mifs", {"beta": 0.5}), **kwargs)
    second = fs.stability("class ~ .", wine, "mifs", beta=0.5, n_jobs=2, **kwargs)
    pd.testing.assert_frame_equal(first.selections, second.selections)
    assert first.stability == second.stability
    other = fs.stability("class ~ .", wine, "mifs", beta=0.5, k=4, n_bootstrap=8, random_state=4, progress=False)
    assert not first.selections.equals(other.selections)      # another seed, other bootstrap samples


def test_bootstrap_is_stratified_with_replacement(wine, monkeypatch):
    seen = []

    def recorder(X, y, k, n_threads):
        seen.append((X[:, 0].copy(), np.bincount(y, minlength=3)))
        n = X.shape[1]
        return MethodOutput(ranking=np.arange(k), scores=np.arange(n, 0, -1, dtype=float))

    monkeypatch.setitem(registry._REGISTRY, "recorder", MethodSpec(name="recorder", description="records",
                                                                   function=recorder))
    data = wine.copy()
    data.insert(0, "id", np.arange(len(data), dtype=float))
    fs.stability("class ~ .", data, "recorder", k=2, n_bootstrap=5, random_state=0, progress=False)
    assert len(seen) == 1 + 5                     # all data, then the bootstrap runs
    counts = np.bincount(wine["class"].cat.codes, minlength=3)
    for ids, class_counts in seen[1:]:
        np.testing.assert_array_equal(class_counts, counts)
        assert len(np.unique(ids)) < len(ids)     # with replacement
        codes = wine["class"].cat.codes.to_numpy()
        # each drawn row keeps its class
        assert sorted(np.bincount(codes[ids.astype(int)], minlength=3)) == sorted(counts)


def test_stable_method_on_easy_data():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 60)
    data = pd.DataFrame({"strong1": y * 4 + rng.normal(size=120), "strong2": y * 4 + rng.normal(size=120)})
    for j in range(6):
        data[f"noise{j}"] = rng.normal(size=120)
    data["y"] = y
    res = fs.stability("y ~ .", data, "fisher", k=2, n_bootstrap=20, random_state=0, progress=False)
    assert res.stability == pytest.approx(1.0)
    assert list(res.frequency.index[:2]) == ["strong1", "strong2"]


def test_heatmap_and_frequency_plots(wine):
    import matplotlib.pyplot as plt

    res = fs.stability("class ~ .", wine, "cmqfs", k=3, n_bootstrap=6, random_state=0, progress=False)
    ax = res.plot()
    assert isinstance(ax, matplotlib.axes.Axes)
    image = ax.get_images()[0].get_array()
    assert image.shape == (13, 6)                  # features x bootstrap runs
    np.testing.assert_array_equal(np.asarray(image).sum(axis=0), [3] * 6)
    _, given = plt.subplots()
    assert res.plot(ax=given) is given
    assert res.plot(kind="frequency") is not None
    with pytest.raises(ValueError, match="kind: must be 'heatmap' or 'frequency'"):
        res.plot(kind="pie")
    plt.close("all")


def test_progress_bar(wine, capsys):
    fs.stability("class ~ .", wine, "fisher", k=2, n_bootstrap=3, random_state=0, progress=True)
    assert "fs.stability" in capsys.readouterr().err
    fs.stability("class ~ .", wine, "fisher", k=2, n_bootstrap=3, random_state=0, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("kwargs, error, pattern", [
    ({"k": 13}, ValueError, r"k: must be in 1..12: selecting all 13 features"),
    ({"k": 0}, ValueError, r"k: must be in 1..13"),
    ({"k": None}, ValueError, r"k: must be an integer in 1..12"),
    ({"n_bootstrap": 1}, ValueError, r"n_bootstrap: must be an integer >= 2"),
    ({"alpha": 0}, ValueError, r"alpha: must be in \(0, 1\)"),
    ({"method": "nope"}, ValueError, r"method: unknown method 'nope'; allowed values"),
    ({"beta": -1.0, "method": "mifs"}, ValueError, r"beta: must be"),
    ({"random_state": "x"}, TypeError, r"random_state: must be None or an integer"),
])
def test_bad_arguments(wine, kwargs, error, pattern):
    arguments = dict(method="fisher", k=3, n_bootstrap=3, progress=False)
    arguments.update(kwargs)
    with pytest.raises(error, match=pattern):
        fs.stability("class ~ .", wine, **arguments)


@pytest.mark.parametrize("method", ["elc", "llsf", "ml_fisher", "ml_mi", ("elc", {"lam": 0.01})])
@pytest.mark.parametrize("formula", ["y ~ a + b + c + d", "c3 ~ a + b + c + d", "y + z ~ a + b + c + d"])
def test_multilabel_method_is_refused_naming_the_method_and_the_allowed_ones(method, formula):
    """fs.stability measures single-response selection: a multi-label method is refused up front, whatever
    the response (one 0/1 column would otherwise run silently, three classes failed with 'label 0: ...')."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(40, 4)), columns=list("abcd"))
    df["y"] = rng.integers(0, 2, 40)
    df["z"] = rng.integers(0, 2, 40)
    df["c3"] = rng.integers(0, 3, 40)
    name = method if isinstance(method, str) else method[0]
    with pytest.raises(ValueError, match=rf"method: '{name}' is a multi-label method .* Allowed methods: .*cmqfs"):
        fs.stability(formula, df, method=method, k=2, n_bootstrap=3, progress=False)


# --------------------------------------------------------------------------- failures keep their type
DFS_MESSAGE = r"n_components: must be at most the number of non-constant columns \(13\); got 20"


def test_a_method_error_keeps_its_type_with_the_context(wine):
    # dfs with more components than columns: a valid parameter value the method refuses on the data
    with pytest.raises(ValueError, match=r"^method 'dfs' failed on all the rows: " + DFS_MESSAGE) as caught:
        fs.stability("class ~ .", wine, ("dfs", {"n_components": 20}), k=2, n_bootstrap=3, progress=False)
    assert type(caught.value) is ValueError and isinstance(caught.value.__cause__, ValueError)


def _register_failing_on_call(monkeypatch, failing_call, exception):
    """A method that ranks the columns in order, and raises ``exception`` on its ``failing_call``-th call."""
    import threading

    lock = threading.Lock()
    calls = []

    def flaky(X, y, k, n_threads):
        with lock:
            calls.append(1)
            number = len(calls)
        if number == failing_call:
            raise exception
        return MethodOutput(ranking=np.arange(X.shape[1]), scores=-np.arange(X.shape[1], dtype=float))

    monkeypatch.setitem(registry._REGISTRY, "flaky", MethodSpec(name="flaky", description="fails once",
                                                                 function=flaky))


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_an_error_on_a_bootstrap_sample_names_the_sample(wine, monkeypatch, n_jobs):
    _register_failing_on_call(monkeypatch, 3, ValueError("no variance left"))   # call 1: all rows; 3: sample 2
    pattern = r"^method 'flaky' failed on bootstrap sample 2: no variance left" if n_jobs is None else \
        r"^method 'flaky' failed on bootstrap sample \d: no variance left"
    with pytest.raises(ValueError, match=pattern):
        fs.stability("class ~ .", wine, "flaky", k=2, n_bootstrap=4, n_jobs=n_jobs, progress=False)


class _Stop(BaseException):
    pass


@pytest.mark.parametrize("exception", [KeyboardInterrupt(), _Stop("stop")])
def test_base_exceptions_are_not_caught(wine, monkeypatch, exception):
    _register_failing_on_call(monkeypatch, 2, exception)
    with pytest.raises(type(exception)) as caught:
        fs.stability("class ~ .", wine, "flaky", k=2, n_bootstrap=3, progress=False)
    assert caught.value is exception


def test_bootstrap_runs_are_named_records_that_pickle():
    import pickle

    from fstools.evaluation import stability as module

    run = module._BootstrapRun(3, "fisher", registry.get_method("fisher"), {}, np.zeros((4, 2)), np.zeros(4), 2,
                               [0, 1], 1, 1)
    again = pickle.loads(pickle.dumps(run))
    assert again.run == 3 and again.where == "bootstrap sample 3" and again.spec.name == "fisher"

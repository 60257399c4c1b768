"""fs.knockoff_filter: W against independent recomputations, the threshold, FDR on simulations.

The references are independent of the procedure's code: scikit-learn's ``f_regression`` /
``f_classif`` and ``LassoCV`` on the features and the knockoffs the result keeps, the knockoff+
threshold by brute force, and an empirical false discovery rate over simulated data sets with
known signals.
"""
import pickle

import numpy as np
import pandas as pd
import pytest

import fstools as fs
from fstools.guarantees.knockoff_construction import ebh, knockoff_evalues


def _linear(n=300, p=20, signals=5, amplitude=1.0, rho=0.3, seed=0, classes=False):
    rng = np.random.default_rng(seed)
    Sigma = rho ** np.abs(np.subtract.outer(np.arange(p), np.arange(p)))
    X = rng.standard_normal((n, p)) @ np.linalg.cholesky(Sigma).T
    beta = np.zeros(p)
    beta[:signals] = amplitude * rng.choice([-1.0, 1.0], signals)
    y = X @ beta + rng.standard_normal(n)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
    frame["y"] = np.where(y > 0, "up", "down") if classes else y
    return frame, {f"x{j}" for j in range(signals)}


def _brute_threshold(W, fdr, offset):
    candidates = sorted(set(np.abs(W[W != 0])))
    for t in candidates:
        if (offset + np.sum(W <= -t)) / max(1, np.sum(W >= t)) <= fdr:
            return t
    return np.inf


@pytest.fixture(scope="module")
def continuous():
    return _linear(seed=1)


def test_W_is_the_f_statistic_difference(continuous):
    from sklearn.feature_selection import f_regression

    frame, _ = continuous
    result = fs.knockoff_filter("y ~ .", frame, "f_test", fdr=0.2, random_state=3)
    X = frame.drop(columns="y").to_numpy()
    F_features, _ = f_regression(X, frame["y"].to_numpy())
    F_knockoffs, _ = f_regression(result.X_knockoff, frame["y"].to_numpy())
    np.testing.assert_allclose(result.statistics["Z"].to_numpy(), F_features, rtol=1e-8)
    np.testing.assert_allclose(result.statistics["Z_knockoff"].to_numpy(), F_knockoffs, rtol=1e-8)
    np.testing.assert_allclose(result.W.to_numpy(), F_features - F_knockoffs, rtol=1e-8, atol=1e-8)


def test_signed_max_form(continuous):
    frame, _ = continuous
    plain = fs.knockoff_filter("y ~ .", frame, "f_test", random_state=3)
    signed = fs.knockoff_filter("y ~ .", frame, "f_test", statistic="signed_max", random_state=3)
    Z, Zk = signed.statistics["Z"].to_numpy(), signed.statistics["Z_knockoff"].to_numpy()
    np.testing.assert_allclose(signed.W.to_numpy(), np.maximum(Z, Zk) * np.sign(Z - Zk))
    np.testing.assert_allclose(plain.statistics["Z"], signed.statistics["Z"])


def test_threshold_and_selection_follow_W(continuous):
    frame, _ = continuous
    for offset in (0, 1):
        result = fs.knockoff_filter("y ~ .", frame, "f_test", fdr=0.2, offset=offset, random_state=5)
        W = result.W.to_numpy()
        assert result.threshold == _brute_threshold(W, 0.2, offset)
        assert set(result.selected) == set(result.W.index[W >= result.threshold])


def test_lasso_statistic_is_the_coefficient_difference(continuous):
    from sklearn.linear_model import LassoCV
    from sklearn.preprocessing import StandardScaler

    frame, truth = continuous
    result = fs.knockoff_filter("y ~ .", frame, "lasso", fdr=0.25, random_state=4)
    X = frame.drop(columns="y").to_numpy()
    # Whatever the swaps, the fitted lasso sees the same columns; refit on [X, knockoffs] (a
    # permutation of its columns changes the coordinate descent's path only by rounding).
    both = StandardScaler().fit_transform(np.hstack([X, result.X_knockoff]))
    model = LassoCV(cv=5, max_iter=5000).fit(both, frame["y"].to_numpy())
    p = X.shape[1]
    reference = np.abs(model.coef_[:p]) - np.abs(model.coef_[p:])
    assert np.sign(result.W.to_numpy()[:5]).tolist() == np.sign(reference[:5]).tolist()
    assert truth <= set(result.selected)


def test_greedy_method_scores_its_order_of_entry(continuous):
    frame, truth = continuous
    result = fs.knockoff_filter("y ~ .", frame, "mrmr", n_steps=8, random_state=2)
    Z = result.statistics["Z"].to_numpy()
    Zk = result.statistics["Z_knockoff"].to_numpy()
    entered = np.concatenate([Z, Zk])
    # The first 8 steps score 8..1, every other column 0.
    assert sorted(entered[entered > 0].tolist()) == list(range(1, 9))
    assert (entered >= 0).all()


def test_exchanging_features_and_knockoffs_flips_W():
    """The defining property of a knockoff statistic: swapping X_j and its knockoff negates W_j."""
    from fstools.guarantees.importance import prepare
    from fstools.guarantees.knockoff_filter import knockoff_statistics

    frame, _ = _linear(n=200, p=10, seed=7, classes=True)
    rng = np.random.default_rng(0)
    X = frame.drop(columns="y").to_numpy()
    X_knockoff = X[rng.permutation(len(X))] + 0.1 * rng.standard_normal(X.shape)
    for method in ("f_test", "mim", "mrmr"):
        prepared = prepare("test", "y ~ .", frame, method, {})
        swap = rng.random(10) < 0.5
        W, _, _ = knockoff_statistics(prepared, X, X_knockoff, "difference", swap, n_steps=6)
        W_swapped, _, _ = knockoff_statistics(prepared, X_knockoff, X, "difference", ~swap, n_steps=6)
        np.testing.assert_allclose(W_swapped, -W, err_msg=method)


def test_fixed_x_knockoffs_satisfy_the_gram_identities(continuous):
    frame, truth = continuous
    result = fs.knockoff_filter("y ~ .", frame, "lasso", fdr=0.25, knockoffs="fixed", s="equicorrelated",
                               random_state=0)
    X = frame.drop(columns="y").to_numpy()
    X = X - X.mean(axis=0)
    Xk = result.X_knockoff
    np.testing.assert_allclose(Xk.T @ Xk, X.T @ X, atol=1e-7)
    off = X.T @ Xk - X.T @ X
    np.testing.assert_allclose(off - np.diag(np.diag(off)), 0, atol=1e-7)
    assert truth <= set(result.selected)


def test_fdr_is_controlled_on_simulations():
    """Empirical FDR of knockoff+ at q = 0.2 over 24 data sets (10 signals of 30): at most q + 2.5 SE."""
    fdp = []
    found = []
    for seed in range(24):
        frame, truth = _linear(n=200, p=30, signals=10, amplitude=0.3, seed=100 + seed)
        result = fs.knockoff_filter("y ~ .", frame, "f_test", fdr=0.2, random_state=seed)
        chosen = set(result.selected)
        fdp.append(len(chosen - truth) / max(1, len(chosen)))
        found.append(len(chosen & truth) / len(truth))
    fdp = np.asarray(fdp)
    assert fdp.mean() <= 0.2 + 2.5 * fdp.std(ddof=1) / np.sqrt(len(fdp))
    assert 0.3 < np.mean(found) < 0.95  # neither empty-handed nor a trivial problem


def test_binary_response_and_factor_refused():
    frame, truth = _linear(n=300, p=12, signals=3, amplitude=1.5, seed=3, classes=True)
    result = fs.knockoff_filter("y ~ .", frame, "lasso", fdr=0.34, random_state=0)
    assert truth <= set(result.selected)
    frame["colour"] = np.where(frame["x0"] > 0, "red", "blue")
    with pytest.raises(ValueError, match="colour.*factor"):
        fs.knockoff_filter("y ~ .", frame, "f_test")


def test_derandomised_selection_is_ebh_of_mean_evalues(continuous):
    frame, truth = continuous
    result = fs.knockoff_filter("y ~ .", frame, "f_test", fdr=0.2, n_draws=4, random_state=9)
    assert result.W_draws.shape == (4, 20)
    e = np.zeros(20)
    for draw, threshold in zip(result.W_draws.to_numpy(), result.thresholds):
        assert threshold == _brute_threshold(draw, 0.1, 1)
        e += knockoff_evalues(draw, threshold)
    np.testing.assert_allclose(result.statistics["e_value"].to_numpy(), e / 4)
    assert set(result.selected) == {result.W.index[j] for j in ebh(e / 4, 0.2)}
    again = fs.knockoff_filter("y ~ .", frame, "f_test", fdr=0.2, n_draws=4, random_state=9)
    pd.testing.assert_frame_equal(result.W_draws, again.W_draws)


def test_reproducible_and_seed_matters(continuous):
    frame, _ = continuous
    one = fs.knockoff_filter("y ~ .", frame, "mim", random_state=1)
    two = fs.knockoff_filter("y ~ .", frame, "mim", random_state=1)
    three = fs.knockoff_filter("y ~ .", frame, "mim", random_state=2)
    pd.testing.assert_series_equal(one.W, two.W)
    assert not np.allclose(one.X_knockoff, three.X_knockoff)


def test_summary_plot_pickle(continuous):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frame, _ = continuous
    before = frame.copy()
    result = fs.knockoff_filter("y ~ .", frame, "f_test", random_state=0)
    pd.testing.assert_frame_equal(frame, before)
    text = str(result.summary())
    assert "false discovery rate" in text and "knockoff+" in text and "model-X Gaussian" in text
    assert "Knockoff filter" in repr(result)
    ax = result.plot()
    assert ax.get_title().startswith("Knockoff filter")
    plt.close("all")
    loaded = pickle.loads(pickle.dumps(result))
    assert str(loaded.summary()) == text


@pytest.mark.parametrize("arguments, match", [
    (dict(method="f_test", fdr=0), "fdr"),
    (dict(method="f_test", fdr=1.0), "fdr"),
    (dict(method="f_test", knockoffs="fixed"), "n >= 2p"),
    (dict(method="f_test", s="asdp"), "s"),
    (dict(method="f_test", offset=2), "offset"),
    (dict(method="f_test", statistic="ratio"), "statistic"),
    (dict(method="laplacian"), "unsupervised"),
    (dict(method="f_test", n_draws=0), "n_draws"),
])
def test_bad_input_names_the_argument(arguments, match):
    frame, _ = _linear(n=30, p=20, seed=0)
    with pytest.raises(ValueError, match=match):
        fs.knockoff_filter("y ~ .", frame, **arguments)

"""Scale invariance at the ends of the float64 range, and clear errors where a limit remains.

The methods whose score is invariant to multiplying a column by a number give the same
ranking for a column multiplied by any power of ten from 1e-300 to 1e300:

* ``fisher`` (a ratio of sums of squares of one column; dense and sparse input),
* ``trace_ratio``, ``bahsic`` (linear kernels) and ``dfs`` with their default
  ``standardize=True``,
* ``laplacian`` on standardised data (``standardize_columns``): its heat-kernel graph
  depends on the scale of the columns, so on raw data it is not invariant.

They compute their sums of squares on each column multiplied by the power of two that
brings its largest absolute value into [0.5, 1) (``core.arrays.scaled_to_unit``), which
is exact: a column multiplied by a power of two gets bitwise the same scores.

Where a limit remains (a scale-dependent setting whose sums leave the float64 range) the
error names the column; finite input never gets a complaint about non-finite values.
"""
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import sparse

from fstools.core.arrays import scaled_to_unit, standardize_columns
from fstools.methods.discriminant import dfs, trace_ratio
from fstools.methods.hsic import bahsic
from fstools.methods.similarity import fisher, laplacian, laplacian_scores
from fstools.methods.statistical import chi2

N_SAMPLES = 30
N_FEATURES = 5

#: The scale-invariant methods / settings, each as a function of (X, y) giving a MethodOutput.
INVARIANT = {
    "fisher": lambda X, y: fisher(X, y),
    "fisher_sparse": lambda X, y: fisher(sparse.csc_matrix(X), y),
    "trace_ratio": lambda X, y: trace_ratio(X, y, k=3),
    "bahsic": lambda X, y: bahsic(X, y),
    "bahsic_biased": lambda X, y: bahsic(X, y, estimator="biased"),
    "dfs": lambda X, y: dfs(X, y),
    "laplacian_standardised": lambda X, y: laplacian(standardize_columns(X)),
}

EXTREMES = (1e-300, 1e-160, 1e160, 1e300)


def problem(seed):
    """Continuous data (no ties in scores or distances) with two informative columns of different strength."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), N_SAMPLES // 3).astype(np.int32)
    X = rng.standard_normal((N_SAMPLES, N_FEATURES))
    X[:, 0] += 1.5 * y
    X[:, 2] += 0.6 * (y == 1)
    return X, y


def run(method, X, y):
    """The method's output; any warning is an error (an overflow must not pass unnoticed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return INVARIANT[method](X, y)


def assert_same_ranking(scaled, base, rtol):
    np.testing.assert_array_equal(scaled.ranking, base.ranking)
    scores, reference = np.asarray(scaled.scores), np.asarray(base.scores)
    assert np.isfinite(scores).all() or np.array_equal(np.isfinite(scores), np.isfinite(reference))
    np.testing.assert_allclose(scores, reference, rtol=rtol, atol=rtol * np.abs(reference[np.isfinite(reference)]).max())


#: Relative tolerance of the scores: ratios of one column's sums are within a few ulps; DFS is an
#: iterative eigen-solve whose row norms move with the rounding of the standardised data.
RTOL = {"dfs": 1e-6, "laplacian_standardised": 1e-9}


@pytest.mark.parametrize("method", sorted(INVARIANT))
@pytest.mark.parametrize("factor", EXTREMES)
@pytest.mark.parametrize("column", [0, 3])
def test_extreme_scales_keep_the_ranking(method, factor, column):
    X, y = problem(0)
    base = run(method, X, y)
    scaled_X = X.copy()
    scaled_X[:, column] *= factor
    assert_same_ranking(run(method, scaled_X, y), base, RTOL.get(method, 1e-12))


@pytest.mark.parametrize("method", sorted(INVARIANT))
def test_every_column_at_a_different_extreme(method):
    X, y = problem(1)
    base = run(method, X, y)
    factors = np.array([1e-300, 1e300, 1e-160, 1e160, 1e307])
    assert_same_ranking(run(method, X * factors, y), base, RTOL.get(method, 1e-12))


column_values = st.lists(st.one_of(st.just(0.0), st.floats(1e-3, 1e3), st.floats(-1e3, -1e-3)),
                         min_size=N_SAMPLES, max_size=N_SAMPLES)


@pytest.mark.parametrize("method", sorted(INVARIANT))
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), column=st.integers(0, N_FEATURES - 1),
       exponent=st.integers(-300, 300), values=st.none() | column_values)
@example(seed=0, column=0, exponent=154, values=None)  # between + within variance overflowed (a warning)
def test_any_power_of_ten_keeps_the_ranking(method, seed, column, exponent, values):
    X, y = problem(seed)
    if values is not None:
        X[:, column] = values
    base = run(method, X, y)
    scaled_X = X.copy()
    scaled_X[:, column] *= 10.0 ** exponent
    assert_same_ranking(run(method, scaled_X, y), base, RTOL.get(method, 1e-9))


@pytest.mark.parametrize("method", sorted(INVARIANT))
@pytest.mark.parametrize("power", [-1000, -500, -60, 60, 500, 1000])
def test_a_power_of_two_gives_bitwise_the_same_scores(method, power):
    """The scaling is exact: multiplying a column by 2^power changes nothing, to the last bit."""
    X, y = problem(2)
    base = run(method, X, y)
    scaled_X = X.copy()
    scaled_X[:, 1] = np.ldexp(X[:, 1], power)
    assert np.abs(scaled_X[:, 1]).min() > np.finfo(np.float64).tiny   # no subnormal input
    scaled = run(method, scaled_X, y)
    np.testing.assert_array_equal(scaled.ranking, base.ranking)
    np.testing.assert_array_equal(scaled.scores, base.scores)


def test_scaled_to_unit_is_exact_and_brings_the_largest_value_into_half_one():
    X = np.array([[3.0, -1e300, 0.0, 5e-310], [-7.0, 2e-300, 0.0, 1e-320]])
    scaled, exponent = scaled_to_unit(X)
    largest = np.abs(scaled).max(axis=0)
    assert np.all((largest[[0, 1, 3]] >= 0.5) & (largest[[0, 1, 3]] < 1.0))
    assert exponent[2] == 0 and np.all(scaled[:, 2] == 0)
    np.testing.assert_array_equal(np.ldexp(scaled[:, [0, 3]], exponent[[0, 3]]), X[:, [0, 3]])


@pytest.mark.parametrize("factor", EXTREMES + (1e307,))
def test_standardize_columns_is_scale_invariant(factor):
    X, _ = problem(3)
    base = standardize_columns(X, ddof=1)
    scaled = X.copy()
    scaled[:, 0] *= factor
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Z = standardize_columns(scaled, ddof=1)
        fold = standardize_columns(scaled[10:], reference=scaled[:10])
    np.testing.assert_allclose(Z, base, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(fold, standardize_columns(X[10:], reference=X[:10]), rtol=1e-13, atol=1e-13)


def test_standardize_columns_keeps_a_reference_constant_column_in_its_units():
    reference = np.array([[1e300, 1.0], [1e300, 2.0]])
    X = np.array([[3e300, 5.0]])
    Z = standardize_columns(X, reference=reference)
    assert Z[0, 0] == 3e300 - 1e300


def test_fisher_variances_outside_float64_are_noted_and_the_score_is_exact():
    X, y = problem(4)
    scaled = X.copy()
    scaled[:, 0] *= 1e300
    output = fisher(scaled, y)
    assert output.scores[0] == pytest.approx(fisher(X, y).scores[0], rel=1e-12)
    assert np.isinf(output.columns["between_variance"][0])
    assert any("outside the float64 range" in note for note in output.notes)


def test_laplacian_scores_of_a_column_are_invariant_for_a_fixed_graph():
    """The ratio is computed on scaled columns: a column multiplied by a power of two (the graph
    unchanged, as its distances are dominated by the other columns) keeps its score exactly."""
    X, _ = problem(5)
    scaled = X.copy()
    scaled[:, 4] = np.ldexp(X[:, 4], -900)     # the column vanishes from the distances
    tiny = laplacian_scores(scaled)
    # The score of the tiny column is defined (no 0 / 0 from underflow) and equals that of the same
    # column at ordinary scale on that graph: checked by scaling it back into range, exactly.
    unit = scaled.copy()
    unit[:, 4] = np.ldexp(scaled[:, 4], 900 - 40)   # 2^-40 of its size: no longer affects the graph
    assert np.isfinite(tiny.scores).all()
    assert tiny.scores[4] == pytest.approx(laplacian_scores(unit).scores[4], rel=1e-9)


# ---------------------------------------------------------------- remaining limits: clear errors

def _finite_input_error(function, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError) as raised:
            function(*args)
    message = str(raised.value)
    assert "non-finite" not in message and "infs or NaNs" not in message
    return message


@pytest.mark.parametrize("factor", [1e160, 1e300])
def test_laplacian_on_raw_data_refuses_a_column_whose_distances_overflow(factor):
    X, _ = problem(6)
    X[:, 3] *= factor
    message = _finite_input_error(laplacian, X)
    assert "column(s) 3" in message and "standardise" in message


@pytest.mark.parametrize("function", ["dfs", "trace_ratio", "bahsic"])
@pytest.mark.parametrize("factor", [1e-300, 1e160, 1e300])
def test_scale_dependent_settings_refuse_a_column_outside_the_range(function, factor):
    X, y = problem(7)
    X[:, 2] *= factor
    method = {"dfs": dfs, "trace_ratio": trace_ratio, "bahsic": bahsic}[function]
    message = _finite_input_error(lambda: method(X, y, standardize=False))
    assert "column(s) 2" in message and "outside the float64 range" in message


def test_chi2_extreme_scales():
    rng = np.random.default_rng(8)
    y = np.repeat([0, 1], 15).astype(np.int32)
    X = rng.poisson(3.0, size=(30, 3)).astype(np.float64)
    X[:, 0] += 4 * y
    base = chi2(X, y)
    for factor in (1e-300, 1e160, 1e300):
        scaled = X.copy()
        scaled[:, 0] *= factor
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            output = chi2(scaled, y)
        # The statistic is proportional to the scale.
        assert output.scores[0] == pytest.approx(base.scores[0] * factor, rel=1e-12)
        np.testing.assert_array_equal(output.scores[1:], base.scores[1:])
    huge = X.copy()
    huge[:, 0] *= 1e307
    message = _finite_input_error(chi2, huge, y)
    assert "column(s) 0" in message


def test_chi2_power_of_two_is_bitwise_scikit_learn():
    from sklearn.feature_selection import chi2 as sklearn_chi2

    rng = np.random.default_rng(9)
    y = np.repeat([0, 1, 2], 10).astype(np.int32)
    X = rng.poisson(2.0, size=(30, 4)).astype(np.float64) + 1
    statistic, p_value = sklearn_chi2(X, y)
    output = chi2(X, y)
    np.testing.assert_array_equal(output.scores, statistic)
    np.testing.assert_array_equal(output.columns["p_value"], p_value)

"""The ranking rule (fstools.core.ranking) with infinite scores, and the greedy step's pick in C
(fstools._ext._sorting.greedy_first_maximum) against first_maximum of the criterion NumPy computes."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fstools._ext import _sorting
from fstools.core.ranking import TIE_TOLERANCE, first_maximum, rank_features


@pytest.mark.parametrize("tolerance", [0.0, TIE_TOLERANCE, 1e-6])
def test_infinite_scores_rank_like_numbers(tolerance):
    # Well-separated values, so the tolerance cannot tie any two finite ones: the order is the
    # plain decreasing order, +inf first (lowest index first among equals), -inf after every
    # number, NaN last.
    scores = np.array([1.0, np.inf, -np.inf, 3.0, np.nan, np.inf, -2.0, -np.inf])
    expected = [1, 5, 3, 0, 6, 2, 7, 4]
    assert rank_features(scores, tolerance=tolerance).tolist() == expected
    lower = rank_features(-scores, higher_is_better=False, tolerance=tolerance)
    assert lower.tolist() == expected


def test_first_maximum_with_infinity():
    assert first_maximum([1.0, np.inf, 5.0, np.inf]) == 1
    assert first_maximum([-np.inf, -np.inf]) == 0


def test_tolerance_still_ties_near_values_after_infinity():
    scores = np.array([np.inf, 1.0, 1.0 + 1e-14, 0.5])
    # 1 and 1 + 1e-14 are tied under the default tolerance: the lower index wins.
    assert rank_features(scores, tolerance=TIE_TOLERANCE).tolist() == [0, 1, 2, 3]
    assert rank_features(scores, tolerance=0.0).tolist() == [0, 2, 1, 3]


# ---------------------------------------------------------------------------
# the greedy step's pick in C (fstools._ext._sorting.greedy_first_maximum) is first_maximum of
# the criterion NumPy computes
# ---------------------------------------------------------------------------

def _numpy_step(gain, running, mode, factor):
    if mode == _sorting.STEP_DIVIDED:
        return np.subtract(gain, np.divide(running, factor))
    if mode == _sorting.STEP_SCALED:
        return np.subtract(gain, np.multiply(factor, running))
    return running


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(1, 300), mode=st.integers(0, 2),
       factor=st.sampled_from([1.0, 3.0, 7.0, 0.3, 1e-9, 1e12]), ties=st.booleans(),
       tolerance=st.sampled_from([0.0, TIE_TOLERANCE, 1e-3]), extremes=st.booleans())
def test_greedy_first_maximum_is_first_maximum_of_the_numpy_criterion(seed, n, mode, factor, ties, tolerance,
                                                                       extremes):
    rng = np.random.default_rng(seed)
    gain = rng.random(n)
    running = rng.random(n) * 3
    if ties:  # exact ties and near ties (within the tolerance of the largest)
        gain[rng.integers(0, n, n // 3 + 1)] = gain.max()
        running[rng.integers(0, n, n // 3 + 1)] = running.max() * (1 - 1e-13)
    if extremes:  # chosen features (-inf), and +inf
        gain[rng.random(n) < 0.2] = -np.inf
        running[rng.random(n) < 0.1] = -np.inf if mode == 0 else 0.0
        if rng.random() < 0.2:
            running[rng.integers(0, n)] = np.inf if mode == 0 else 1.0
    values = np.empty(n)
    chosen = _sorting.greedy_first_maximum(gain, running, mode, factor, values, tolerance)
    expected_values = _numpy_step(gain, running, mode, factor)
    assert chosen == first_maximum(expected_values, tolerance)
    if mode != 0:
        np.testing.assert_array_equal(values.view(np.int64), expected_values.view(np.int64))  # bitwise


def test_greedy_first_maximum_leaves_nan_to_the_numpy_rule():
    gain = np.array([0.5, np.nan, 0.7])
    running = np.array([0.1, 0.2, 0.3])
    values = np.empty(3)
    assert _sorting.greedy_first_maximum(gain, running, _sorting.STEP_DIVIDED, 2.0, values, TIE_TOLERANCE) == -1
    assert _sorting.greedy_first_maximum(gain, gain, _sorting.STEP_RUNNING, 1.0, values, TIE_TOLERANCE) == -1
    assert _sorting.greedy_first_maximum(gain[:0], running[:0], 0, 1.0, values[:0], TIE_TOLERANCE) == -1
    with pytest.raises(ValueError, match="^mode: must be"):
        _sorting.greedy_first_maximum(gain, running, 5, 1.0, values, TIE_TOLERANCE)
    with pytest.raises(ValueError, match="^gain, running, values: must have the same length"):
        _sorting.greedy_first_maximum(gain[:2], running, 1, 1.0, values, TIE_TOLERANCE)
    finite = np.array([1.0, 2.0, 3.0])
    for tolerance in (-0.5, np.nan, np.inf):  # (a negative window would be above the maximum)
        with pytest.raises(ValueError, match="^tolerance: must be a finite number >= 0"):
            _sorting.greedy_first_maximum(finite, finite, 0, 1.0, np.empty(3), tolerance)

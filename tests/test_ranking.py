"""The ranking rule (fstools.core.ranking) with infinite scores."""
import numpy as np
import pytest

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

"""Nearest-neighbour (Kraskov) estimates of the mutual information I(X_j; y) of each feature.

* Continuous response: Kraskov, Stoegbauer and Grassberger (2004), "Estimating mutual
  information", Phys. Rev. E 69, 066138, their first estimator (Eq. 8)::

      I(X; Y) = psi(n) + psi(k) - < psi(n_x + 1) + psi(n_y + 1) >

  with ``eps_i`` the distance of point i to its k-th nearest neighbour in the maximum norm
  of (x, y) and ``n_x`` (``n_y``) the number of other points strictly within ``eps_i`` in x
  (in y).
* Classes: Ross (2014), "Mutual information between discrete and continuous data sets",
  PLoS ONE 9(2), e87357, Eq. 2::

      I(X; C) = psi(n) + < psi(k) > - < psi(n_c) > - < psi(m) >

  with ``d_i`` the distance of sample i to its k-th nearest neighbour of its own class
  (k capped at n_c - 1), ``n_c`` the size of its class and ``m`` the number of samples of
  any class strictly within ``d_i`` (i included); samples alone in their class are left out.

Both as scikit-learn's :func:`sklearn.feature_selection.mutual_info_regression` and
:func:`~sklearn.feature_selection.mutual_info_classif` compute them (every column treated as
continuous, the default for dense input), and with their preprocessing, so that the values are
theirs for the same ``n_neighbors`` and ``random_state``: each column (and a continuous
response) divided by its standard deviation (:func:`sklearn.preprocessing.scale`, without
centring), then noise ``1e-10 max(1, mean |x|) N(0, 1)`` added to break ties, drawn from
``numpy.random.RandomState(random_state)`` for the columns first (one (n, p) draw), then the
response; negative estimates are reported as 0.

The searches differ: scikit-learn builds a KD-tree per column; here the k-th neighbour in the
plane is found by scanning outwards along the sorted column and the counts by binary search on
the sorted values, exact comparisons both, in one kernel parallel over the columns
(:func:`fstools._ext._neighbours.kraskov_counts`; classes:
:func:`~fstools._ext._neighbours.kth_chebyshev_distances` and
:func:`~fstools._ext._neighbours.count_within` per class and column).
"""
import numpy as np

from fstools._ext import _neighbours
from fstools.core.parallel import threads_for_work

__all__ = ["knn_mutual_information", "noisy_scaled"]


def noisy_scaled(X, y, response_type, random_state):
    """scikit-learn's preprocessing: columns (and a continuous y) scaled by their sd, tiny noise added.

    Returns the new ``X`` (float64, C order, a copy) and ``y`` (a float64 copy for a continuous
    response, the class codes unchanged otherwise).
    """
    from sklearn.preprocessing import scale
    from sklearn.utils import check_random_state

    rng = check_random_state(random_state)
    X = scale(np.array(X, dtype=np.float64), with_mean=False, copy=False)
    n_samples, n_features = X.shape
    X += 1e-10 * np.maximum(1, np.mean(np.abs(X), axis=0)) * rng.standard_normal(size=(n_samples, n_features))
    if response_type == "continuous":
        y = scale(np.array(y, dtype=np.float64), with_mean=False, copy=False)
        y += 1e-10 * np.maximum(1, np.mean(np.abs(y))) * rng.standard_normal(size=n_samples)
    return X, y


def _counts_within(values, radius):
    """For each i, the number of j (i included) with ``|values_j - values_i| <= radius_i``."""
    counts = np.empty(values.shape[0], dtype=np.intp)
    _neighbours.count_within(np.sort(values), values, radius, counts)
    return counts


def _continuous_information(X, y, k, n_threads):
    """Kraskov's estimate of every column of ``X`` (noisy, scaled) with a continuous response."""
    # imported here: scipy.special takes longer to import than fstools
    from scipy.special import digamma

    n = X.shape[0]
    order = np.argsort(X, axis=0, kind="stable").T                      # (features, n)
    x_sorted = np.ascontiguousarray(np.take_along_axis(X.T, order, axis=1))
    y_ordered = np.ascontiguousarray(y[order])
    n_x = np.empty(order.shape, dtype=np.intp)
    n_y = np.empty(order.shape, dtype=np.intp)
    _neighbours.kraskov_counts(x_sorted, y_ordered, np.sort(y), k, n_x, n_y, n_threads)
    # The counts include the point itself: psi(n_x + 1) of the paper is psi(count).
    return digamma(n) + digamma(k) - digamma(n_x).mean(axis=1) - digamma(n_y).mean(axis=1)


def _class_information(x, y, k):
    """Ross's estimate for one column (noisy, scaled) and class codes."""
    # imported here: scipy.special takes longer to import than fstools
    from scipy.special import digamma

    n = x.shape[0]
    radius = np.empty(n)
    k_used = np.empty(n)
    class_size = np.bincount(y)[y]
    kept = class_size > 1
    for label in np.flatnonzero(np.bincount(y) > 1):
        members = np.flatnonzero(y == label)
        values = x[members]
        order = np.argsort(values, kind="stable")
        k_class = min(k, members.shape[0] - 1)
        distance = np.empty(members.shape[0])
        _neighbours.kth_chebyshev_distances(np.ascontiguousarray(values[order]), np.zeros(members.shape[0]),
                                            k_class, distance)
        radius[members[order]] = np.nextafter(distance, 0)
        k_used[members] = k_class
    x_kept = np.ascontiguousarray(x[kept])
    m = _counts_within(x_kept, np.ascontiguousarray(radius[kept]))
    return (digamma(np.count_nonzero(kept)) + np.mean(digamma(k_used[kept])) - np.mean(digamma(class_size[kept]))
            - np.mean(digamma(m)))


def knn_mutual_information(X, y, response_type="continuous", n_neighbors=3, random_state=0, n_threads=1):
    """Nearest-neighbour estimate of I(X_j; y) for every column, in nats (see the module docstring).

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Finite values; every column is treated as continuous.
    y : ndarray, shape (n_samples,)
        A continuous response (float64) or class codes (int).
    response_type : {'continuous', 'class'}
        Kraskov et al. (2004) or Ross (2014).
    n_neighbors : int >= 1
        k, 3 as scikit-learn; at most n_samples - 1.
    random_state : int, numpy RandomState or None
        Seed of the tie-breaking noise (as scikit-learn's ``random_state``).
    n_threads : int
        Threads over the columns (continuous response; the class case runs on one thread); the
        result does not depend on it.

    Returns
    -------
    ndarray of float64, shape (n_features,)
        ``max(0, estimate)``: equal to ``mutual_info_regression(X, y, n_neighbors=k,
        random_state=random_state)`` (continuous) or ``mutual_info_classif(...)`` (classes).
    """
    X = np.asarray(X, dtype=np.float64)
    n_samples, n_features = X.shape
    k = int(n_neighbors)
    if not 1 <= k < n_samples:
        raise ValueError(f"n_neighbors: must be an integer in 1..{n_samples - 1} (n_samples - 1); got {n_neighbors!r}")
    X, y = noisy_scaled(X, y, response_type, random_state)
    if response_type == "continuous":
        threads = threads_for_work(X.size * 16, int(n_threads))
        information = _continuous_information(X, y, k, threads)
    else:
        y = np.asarray(y, dtype=np.intp)
        columns = np.asfortranarray(X)
        information = np.array([_class_information(columns[:, j], y, k) for j in range(n_features)])
    return np.maximum(information, 0.0)

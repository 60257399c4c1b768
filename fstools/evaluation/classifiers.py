"""Classifiers and regressors of the evaluation protocols that scikit-learn does not provide as such.

* :class:`OneNearestNeighbor` -- the papers' 1-NN, exact and with deterministic ties: among
  equally near training rows the first wins.  scikit-learn's
  ``KNeighborsClassifier(n_neighbors=1)`` gives the same predictions except where distances tie,
  where its choice is unspecified (it depends on the tree or brute-force search and on the
  squared-distance expansion ``|x|^2 - 2 x.y + |y|^2``, which can break exact ties by rounding);
  a comparison must give the same result on every run and machine, and this one is also much
  faster for the thousands of small fits of a comparison.
* :class:`OneNearestNeighborRegressor` -- its counterpart for a continuous response: the
  response of the nearest training row (the first among equally near ones), which is
  ``KNeighborsRegressor(n_neighbors=1)`` except where distances tie.
* ML-kNN (Zhang & Zhou 2007) lives in :mod:`fstools.evaluation.mlknn`: scikit-multilearn's
  ``MLkNN`` no longer runs on current scikit-learn.
"""
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

__all__ = ["OneNearestNeighbor", "OneNearestNeighborRegressor"]


def _nearest_rows(X, X_train):
    """For every row of ``X``, the index of its nearest row of ``X_train`` (Euclidean; the first
    of equally near rows), from squared distances computed pair by pair."""
    from scipy.spatial.distance import cdist

    distances = cdist(np.ascontiguousarray(X, dtype=np.float64), X_train, "sqeuclidean")
    return np.argmin(distances, axis=1)


class OneNearestNeighbor(ClassifierMixin, BaseEstimator):
    """1-nearest-neighbour classifier with Euclidean distance (the papers' 1-NN).

    Squared distances are computed pair by pair (``scipy.spatial.distance.cdist``,
    'sqeuclidean': no expansion that could break exact ties); among equally near training
    rows the first (lowest row index) wins, so predictions are deterministic.  The same as
    ``KNeighborsClassifier(n_neighbors=1)`` except where distances tie (which scikit-learn
    leaves unspecified), and much faster for the thousands of small fits of a comparison.
    """

    def fit(self, X, y):
        self.X_ = np.ascontiguousarray(X, dtype=np.float64)
        self.classes_, self.y_ = np.unique(np.asarray(y), return_inverse=True)
        return self

    def predict(self, X):
        return self.classes_[self.y_[_nearest_rows(X, self.X_)]]


class OneNearestNeighborRegressor(RegressorMixin, BaseEstimator):
    """1-nearest-neighbour regression with Euclidean distance: the response of the nearest
    training row.

    The regression counterpart of :class:`OneNearestNeighbor` (the same distances and ties:
    among equally near training rows the first wins), and the default learner of
    ``fs.compare`` for a continuous response.  The same as
    ``KNeighborsRegressor(n_neighbors=1)`` except where distances tie (scikit-learn's choice is
    then unspecified).
    """

    def fit(self, X, y):
        self.X_ = np.ascontiguousarray(X, dtype=np.float64)
        self.y_ = np.asarray(y, dtype=np.float64)
        return self

    def predict(self, X):
        return self.y_[_nearest_rows(X, self.X_)]

"""ML-kNN, the multi-label k-nearest-neighbour classifier of Zhang & Zhou (2007).

Zhang, M.-L. and Zhou, Z.-H. (2007). ML-KNN: A lazy learning approach to
multi-label learning. *Pattern Recognition* 40(7), 2038-2048 -- the classifier
the ELC paper evaluates every selection with (section 5, Appendix B).

For each label j, ML-kNN counts how many of an instance's k nearest training
neighbours carry j and turns the count into a posterior by Bayes' rule, with
the prior and the count likelihoods estimated on the training set (each
training instance's neighbours among the *other* training instances), both
Laplace-smoothed with s (Fig. 1 of the paper, steps 1-8)::

    P(H_1^j)         = (s + sum_i y_ij) / (2 s + m)                        (step 1-2)
    P(E_c^j | H_1^j) = (s + kappa_j[c]) / (s (k + 1) + sum_p kappa_j[p])   (steps 3-8)
    P(E_c^j | H_0^j) = (s + kappa'_j[c]) / (s (k + 1) + sum_p kappa'_j[p])

``kappa_j[c]`` (``kappa'_j[c]``) is the number of training instances *with*
(without) label j of which exactly c neighbours have label j.  For a test
instance t with count ``C_t(j)`` (steps 9-13)::

    r_t(j) = P(H_1^j) P(E_C^j | H_1^j) / sum_b P(H_b^j) P(E_C^j | H_b^j)   (the ranking score)
    y_t(j) = 1  iff  r_t(j) >= 1/2

Choices the paper leaves open, made here: Euclidean distance on the features as
given (the ELC paper standardises them first, Appendix B); among training
instances at equal distance the lower index is nearer; a tie of the two
posteriors predicts the label (``>=``, as Zhang's MATLAB ``MLKNN_test``);
k = 10 and s = 1, the paper's settings (section 4).  The neighbour search is
the exact brute-force kernel :mod:`fstools._ext._neighbours` (no n x n matrix).

scikit-multilearn's ``MLkNN`` no longer runs on current scikit-learn
(keyword-only ``NearestNeighbors`` arguments); this implementation needs none of it.
"""
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from fstools.core.parallel import effective_n_threads
from fstools.methods.similarity import class_neighbours

__all__ = ["MLkNN"]


def _check_features(X, name="X"):
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: must be numeric") from None
    if X.ndim != 2:
        raise ValueError(f"{name}: must be 2-D (samples x features); got {X.ndim}-D")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name}: is empty (shape {X.shape})")
    if not np.isfinite(X).all():
        raise ValueError(f"{name}: non-finite values (NaN or inf); allowed: finite numbers")
    return X


def _check_labels(Y, n_samples):
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2 or Y.shape[0] != n_samples:
        raise ValueError(f"Y: must be a 0/1 label matrix with one row per sample ({n_samples}); got shape "
                         f"{Y.shape}")
    if Y.dtype == object or not (np.issubdtype(Y.dtype, np.number) or Y.dtype == bool):
        raise ValueError(f"Y: must hold 0/1 (or False/True); got dtype {Y.dtype}")
    values = Y.astype(np.float64)
    if not np.all((values == 0) | (values == 1)):
        raise ValueError("Y: must hold only 0 and 1 (or False/True)")
    return values.astype(np.int8)


class MLkNN(ClassifierMixin, BaseEstimator):
    """Multi-label k-nearest neighbours (Zhang & Zhou 2007).

    Parameters
    ----------
    n_neighbors : int >= 1, default 10
        k; the paper uses k = 10 (section 4).  Capped at the number of training
        instances minus 1.
    smoothing : float > 0, default 1.0
        s of the Laplace smoothing; s = 1 in the paper (section 4).
    n_jobs : int or None
        Threads of the neighbour search; results do not depend on it.

    Attributes
    ----------
    prior_ : ndarray, shape (n_labels,)
        ``P(H_1^j)``.
    cond_true_, cond_false_ : ndarray, shape (n_labels, k + 1)
        ``P(E_c^j | H_1^j)`` and ``P(E_c^j | H_0^j)`` for c = 0..k.
    n_features_in_, n_labels_ : int

    Examples
    --------
    >>> from sklearn.datasets import make_multilabel_classification
    >>> X, Y = make_multilabel_classification(n_samples=100, n_classes=4, random_state=0)
    >>> model = MLkNN(n_neighbors=5).fit(X[:80], Y[:80])
    >>> model.predict(X[80:]).shape
    (20, 4)
    """

    def __init__(self, n_neighbors=10, smoothing=1.0, n_jobs=None):
        self.n_neighbors = n_neighbors
        self.smoothing = smoothing
        self.n_jobs = n_jobs

    def _check_params(self):
        k = self.n_neighbors
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"n_neighbors: must be an integer >= 1; got {k!r}")
        s = self.smoothing
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or not np.isfinite(s) or s <= 0:
            raise ValueError(f"smoothing: must be a finite number > 0; got {s!r}")
        return int(k), float(s), effective_n_threads(self.n_jobs)

    def fit(self, X, Y):
        """Estimate the priors and the count likelihoods on the training set."""
        k, s, n_threads = self._check_params()
        X = _check_features(X)
        Y = _check_labels(Y, X.shape[0])
        m = X.shape[0]
        if m < 2:
            raise ValueError(f"X: ML-kNN needs at least 2 training instances; got {m}")
        k = min(k, m - 1)
        index, _, _ = class_neighbours(np.ascontiguousarray(X.T), np.zeros(m, dtype=np.int32), 1,
                                        np.arange(m, dtype=np.intp), k, "sqeuclidean", n_threads)
        counts = self._neighbour_counts(Y, index[:, 0, :])                  # (m, l), values 0..k
        n_labels = Y.shape[1]
        self.prior_ = (s + Y.sum(axis=0)) / (2.0 * s + m)
        kappa_true = np.zeros((n_labels, k + 1))
        kappa_false = np.zeros((n_labels, k + 1))
        for j in range(n_labels):
            has = Y[:, j] == 1
            kappa_true[j] = np.bincount(counts[has, j], minlength=k + 1)
            kappa_false[j] = np.bincount(counts[~has, j], minlength=k + 1)
        self.cond_true_ = (s + kappa_true) / (s * (k + 1) + kappa_true.sum(axis=1, keepdims=True))
        self.cond_false_ = (s + kappa_false) / (s * (k + 1) + kappa_false.sum(axis=1, keepdims=True))
        self._X = X
        self._Y = Y
        self.n_neighbors_ = k
        self.n_features_in_ = X.shape[1]
        self.n_labels_ = n_labels
        self.classes_ = [np.array([0, 1]) for _ in range(n_labels)]
        return self

    @staticmethod
    def _neighbour_counts(Y, neighbours):
        """C[i, j]: how many of row i's neighbours carry label j."""
        counts = np.zeros((neighbours.shape[0], Y.shape[1]), dtype=np.intp)
        for column in range(neighbours.shape[1]):
            counts += Y[neighbours[:, column]]
        return counts

    def kneighbors(self, X):
        """Indices (n, k) of the k nearest training instances of each row of X, nearest first."""
        check_is_fitted(self, "prior_")
        X = _check_features(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X: has {X.shape[1]} features but the model was fitted with {self.n_features_in_}")
        m, t = self._X.shape[0], X.shape[0]
        features = np.ascontiguousarray(np.vstack([self._X, X]).T)
        labels = np.concatenate([np.zeros(m, dtype=np.int32), np.ones(t, dtype=np.int32)])
        rows = np.arange(m, m + t, dtype=np.intp)
        index, _, _ = class_neighbours(features, labels, 2, rows, self.n_neighbors_, "sqeuclidean",
                                        effective_n_threads(self.n_jobs))
        return index[:, 0, :]

    def predict_proba(self, X):
        """The posteriors ``r_t(j) = P(H_1^j | E_C^j)``, shape (n, n_labels): the label ranking scores."""
        counts = self._neighbour_counts(self._Y, self.kneighbors(X))
        labels = np.arange(self.n_labels_)
        relevant = self.prior_[None, :] * self.cond_true_[labels[None, :], counts]
        irrelevant = (1.0 - self.prior_[None, :]) * self.cond_false_[labels[None, :], counts]
        return relevant / (relevant + irrelevant)

    def predict(self, X):
        """0/1 label matrix: label j predicted when ``P(H_1^j) P(E|H_1^j) >= P(H_0^j) P(E|H_0^j)``."""
        counts = self._neighbour_counts(self._Y, self.kneighbors(X))
        labels = np.arange(self.n_labels_)
        relevant = self.prior_[None, :] * self.cond_true_[labels[None, :], counts]
        irrelevant = (1.0 - self.prior_[None, :]) * self.cond_false_[labels[None, :], counts]
        return (relevant >= irrelevant).astype(np.int64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.classifier_tags.multi_label = True
        return tags

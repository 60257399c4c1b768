"""Streaming feature selection: :class:`OnlineSelector` (scikit-learn conventions).

An online learner of :mod:`fstools.methods.passive_aggressive` (PA, PA-I, PA-II, MBPA,
ONPA, CS, all with truncated gradient; Han et al. 2016) behind the
scikit-learn estimator interface: ``partial_fit`` any number of times (the
state carries over), ``predict`` / ``decision_function`` with the M-feature
classifier, ``get_support`` / ``transform`` for the selected features.
Dense arrays, DataFrames and scipy sparse matrices (used as CSR, never
densified) are accepted.

Labels
------
Any two labels: {+1, -1}, {0, 1}, strings, ...  The paper codes the majority
class +1 ("positive") and the minority -1 ("negative").  The mapping is fixed
at the first ``partial_fit``:

* ``positive=`` names the +1 class if given;
* otherwise the majority class of the first batch is +1 (a tie: the label
  that sorts last, so 1 in {0, 1} and +1 in {-1, +1});
* a first batch with only one class: that class is its majority, so it is
  +1 (unless ``positive=`` names another label, then it is -1); the other
  label becomes known from ``classes=`` (as in scikit-learn's
  ``partial_fit(X, y, classes)``) or when it first appears.  Until then
  ``predict`` cannot name the -1 class and raises;
* a third label is an error (binary only).

``class_mapping_`` reports the mapping; ``classes_`` is ``[label of -1,
label of +1]`` as scikit-learn orders a binary ``decision_function``.
"""
import numbers

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.feature_selection import SelectorMixin

from fstools.core.constraints import BOOLEAN
from fstools.methods.passive_aggressive import (ONLINE_METHODS, ONLINE_PARAMETERS, OnlineLearner, all_finite,
                                                as_stream_matrix, check_online_params, counts_metrics, seed_from)
from fstools.model.frames import as_data_frame, is_data_frame_like

__all__ = ["OnlineSelector"]


def _check_finite_columns(X, names=None):
    """ValueError naming the columns of ``X`` (dense or sparse) that hold NaN or inf.

    Columns are named by ``names`` (a DataFrame's column names) or by their index.
    Non-numeric or non-2-D input is left to the later checks.
    """
    if sparse.issparse(X):
        if X.format in ("csr", "csc", "coo") and np.issubdtype(X.dtype, np.number) and all_finite(X.data):
            return
        matrix = X.tocoo()
        if not np.issubdtype(matrix.dtype, np.number):
            return
        bad = np.unique(matrix.col[~np.isfinite(matrix.data)])
    else:
        array = np.asarray(X)
        if array.ndim != 2 or array.dtype == object or not np.issubdtype(array.dtype, np.number):
            return
        if all_finite(array):
            return
        bad = np.flatnonzero(~np.isfinite(array).all(axis=0))
    if bad.size == 0:
        return
    shown = [repr(str(names[j])) if names is not None else str(int(j)) for j in bad[:5]]
    listed = ", ".join(shown) + (f", ... ({bad.size} in all)" if bad.size > 5 else "")
    where = f"column(s) {listed}" if names is not None else f"the column(s) with index {listed}"
    raise ValueError(f"X: non-finite values (NaN or inf) in {where}; allowed: finite numbers "
                     f"(drop or impute them first)")


def _python_value(label):
    return label.item() if isinstance(label, np.generic) else label


def _labels_and_counts(y):
    """``np.unique(y, return_counts=True)`` of the 1-D labels ``y``; for one or two integer, boolean
    or string labels (a binary stream) by two comparisons with a label instead of a sort."""
    if y.dtype.kind in "biuUS" and y.size:
        is_first = y == y[0]
        n_first = int(np.count_nonzero(is_first))
        if n_first == y.shape[0]:
            return y[:1].copy(), np.array([n_first], dtype=np.intp)
        rest = y[~is_first]
        if np.count_nonzero(rest == rest[0]) == rest.shape[0]:
            pair = np.array([y[0], rest[0]], dtype=y.dtype)
            counts = np.array([n_first, rest.shape[0]], dtype=np.intp)
            order = np.argsort(pair)
            return pair[order], counts[order]
    return np.unique(y, return_counts=True)


class OnlineSelector(SelectorMixin, ClassifierMixin, BaseEstimator):
    """Online feature selection for imbalanced binary streams (Han et al. 2016).

    Parameters
    ----------
    method : {'mbpa', 'onpa', 'pa', 'pa1', 'pa2', 'cs'}, default 'mbpa'
        ``mbpa``: margin-based PA (Algorithm 1, Eq. 7-8); ``onpa``: PA with
        synthetic negatives (Algorithm 2); ``pa``/``pa1``/``pa2``: PA, PA-I,
        PA-II (Eq. 3, 6); ``cs``: cost-sensitive online gradient descent
        (Wang, Zhao & Hoi 2014).  All with truncated gradient.
    n_features : int
        M, the number of features to keep (the paper's M): the selected
        features, the classifier of :meth:`predict`, and the budget of
        ``truncate='topk'``.  Required.
    C : float, default 1.0
        PA-I: tau = min(C, l/||x||^2) (Eq. 6; MBPA's Eq. 8); PA-II: tau =
        l/(||x||^2 + 1/(2C)); cs: step C/sqrt(t).  1 as in LIBOL.
    eta : float, default 0.1
        Learning rate of the truncated gradient (Eq. 9): the shrink applied
        every K rounds is a = eta K g.  The paper gives no value.
    g : float, default 1e-6
        Gravity (section 3.3; g_t = K g when t % K == 0).  0 switches the
        shrinking off.  The paper gives no value; the default comes from a study on a
        w8a-like stream (``fstools.methods.passive_aggressive.DEFAULT_GRAVITY``):
        larger gravities erase the weights of features seen mostly in the rare class.
    theta : float, default inf
        Threshold of T (Eq. 10): weights with ``|w_j|`` <= theta shrink; inf
        shrinks every weight (Langford et al. 2009).
    K : int, default 10
        Truncate every K rounds (Algorithm 1 line 11; section 3.3 advises
        against K = 1).  The paper gives no value.
    truncate : {'gradient', 'topk', 'none'}, default 'gradient'
        'gradient': T(w, eta K g, theta) (Eq. 9-10); 'topk': keep the
        ``n_features`` largest ``|w_j|`` every K rounds (OFS of Wang et al. 2014
        with K = 1); 'none'.
    update : {None, 'pa', 'pa1', 'pa2'}, default None
        mbpa and onpa only: their step rule (None: mbpa 'pa1', Eq. 8; onpa
        'pa', Eq. 3 in Algorithm 2).
    beta : float, default 1.0
        onpa: floor(beta p / n) synthetic negatives per negative (section 3.2.2).
    synthesis : {'interpolate', 'extrapolate'}, default 'interpolate'
        onpa: x + alpha (x_p - x) (the paper's prose; the default, from the same
        study) or x + alpha (x - x_p) (Algorithm 2 line 15 as printed), alpha ~ U(0, 1).
    memory : int or None, default 1000
        onpa: earlier negatives remembered, a uniform reservoir sample of at
        most this many rows (memory ~ memory x the largest row's nonzeros x
        12 bytes); None keeps all (the paper's D).
    cost_ratio : float or None, default None
        cs: the minority margin rho of the type-I loss; None: p / n online.
    positive : label or None, default None
        The class coded +1; None: the majority class of the first batch.
    random_state : None, int, numpy Generator or RandomState, default None
        Seed of ONPA's draws (slot, alpha, reservoir).  The other methods use
        no randomness.
    prequential : bool, default True
        Record for :meth:`stream_metrics` the prediction of the M-feature
        classifier of each moment (w_t restricted to its M largest weights)
        before each row is learnt from, as well as the learner's (w_t . x_t,
        free).  Keeping the M largest weights up to date costs about half as
        much again as the learning on sparse data (a pass over a w8a-like
        stream takes about 1.5 times as long); False records the learner's
        only.

    Attributes
    ----------
    weights_ : ndarray of shape ``(n_features_in_,)``
        The learner's full w.
    coef_ : ndarray of shape ``(1, n_features_in_)``
        The M-feature classifier: w on the selected features, 0 elsewhere.
    selected_features_ : ndarray of int
        The M largest ``|w_j|``, largest first, ties to the lower index.
    classes_ : ndarray
        ``[label of -1, label of +1]`` (only the +1 label while the other is unknown).
    class_mapping_ : dict
        label -> +1 / -1.
    class_counts_ : dict
        label -> rows seen (the paper's counters are these + 1).
    n_seen_ : int
        Rows learnt from (the rounds t).
    memory_size_ : int
        onpa: negatives remembered.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np, fstools as fs
    >>> rng = np.random.default_rng(1)
    >>> X = rng.random((500, 20)); y = np.where(X[:, 0] + 0.1 * rng.normal(size=500) > 0.9, "rare", "common")
    >>> sel = fs.OnlineSelector(method="mbpa", n_features=3).partial_fit(X, y)
    >>> sel.class_mapping_
    {'common': 1, 'rare': -1}
    >>> int(sel.selected_features_[0])
    0

    Notes
    -----
    The classifier has no intercept (the paper's sign(w . x)).  It suits
    nonnegative features such as the paper's pixel intensities and binary
    word indicators; on centred features (mean 0) every hyperplane through the
    origin cuts the majority class in two.  A constant column gives an
    intercept, but it then competes for the budget like any feature.
    """

    def __init__(self, method="mbpa", *, n_features, C=1.0, eta=0.1, g=ONLINE_PARAMETERS["g"].default,
                 theta=float("inf"), K=10, truncate="gradient", update=None, beta=1.0,
                 synthesis=ONLINE_PARAMETERS["synthesis"].default,
                 memory=1000, cost_ratio=None, positive=None, random_state=None, prequential=True):
        self.method = method
        self.n_features = n_features
        self.C = C
        self.eta = eta
        self.g = g
        self.theta = theta
        self.K = K
        self.truncate = truncate
        self.update = update
        self.beta = beta
        self.synthesis = synthesis
        self.memory = memory
        self.cost_ratio = cost_ratio
        self.positive = positive
        self.random_state = random_state
        self.prequential = prequential

    # ------------------------------------------------------------------ input
    def _check_X(self, X, reset):
        names = None
        if is_data_frame_like(X) and not isinstance(X, pd.DataFrame):
            X = as_data_frame(X, "X")   # a polars or Arrow frame: its column names kept as pandas keeps them
        if isinstance(X, pd.DataFrame):
            non_numeric = [str(c) for c, dtype in X.dtypes.items()
                           if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))]
            if non_numeric:
                raise TypeError(f"X: must be numeric; column(s) {', '.join(non_numeric)} are not")
            if all(isinstance(c, str) for c in X.columns):
                names = np.asarray(X.columns, dtype=object)
            X = X.to_numpy()
        _check_finite_columns(X, names)  # names the columns; as_stream_matrix need not test again
        matrix, is_sparse = as_stream_matrix(X, check_finite=False)
        if matrix.shape[0] == 0 or matrix.shape[1] == 0:
            raise ValueError(f"X: is empty (shape {matrix.shape}); need at least one sample and one feature")
        if reset:
            self.n_features_in_ = matrix.shape[1]
            if names is not None:
                self.feature_names_in_ = names
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        elif matrix.shape[1] != self.n_features_in_:
            raise ValueError(f"X: has {matrix.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input")
        return matrix, is_sparse

    def _check_params(self):
        values = check_online_params(self.method, C=self.C, eta=self.eta, g=self.g, theta=self.theta, K=self.K,
                                     truncate=self.truncate, update=self.update, beta=self.beta,
                                     synthesis=self.synthesis, memory=self.memory, cost_ratio=self.cost_ratio)
        ONLINE_PARAMETERS["positive"].validate(self.positive)
        BOOLEAN.validate(self.prequential, "prequential")
        return values

    # ----------------------------------------------------------------- labels
    def _labels(self, y, n_rows):
        y = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        if y.ndim != 1 or y.shape[0] != n_rows:
            raise ValueError(f"y: must be 1-D with one label per row of X ({n_rows}); got shape {y.shape}")
        if y.dtype.kind in "fc" or y.dtype == object:
            if pd.isna(pd.Series(y)).any():
                raise ValueError("y: has missing values; remove them first")
        if y.dtype == object:
            kinds = {type(v) for v in y.tolist()}
            if len(kinds) > 1 and not all(issubclass(kind, numbers.Number) for kind in kinds):
                raise TypeError(f"y: labels of mixed types {sorted(k.__name__ for k in kinds)}; "
                                f"allowed: labels of one type")
        return y

    def _start_mapping(self, y, classes):
        labels, counts = _labels_and_counts(y)
        labels = [_python_value(v) for v in labels]
        known = list(labels)
        if classes is not None:
            classes = [_python_value(v) for v in np.unique(np.asarray(classes))]
            if len(classes) != 2:
                raise ValueError(f"classes: must hold the two class labels of the stream; got {classes!r}")
            unknown = [v for v in labels if v not in classes]
            if unknown:
                raise ValueError(f"y: label(s) {unknown!r} not in classes {classes!r}")
            known = classes
            counts = np.array([counts[labels.index(c)] if c in labels else 0 for c in classes])
            labels = classes
        if len(labels) > 2:
            raise ValueError(f"y: {len(labels)} classes ({', '.join(repr(v) for v in labels[:6])}); "
                             f"OnlineSelector is binary (majority +1 vs minority -1): make y binary first, "
                             f"e.g. one class against the rest")
        positive = self.positive
        if positive is not None:
            match = [v for v in known if v == positive or str(v) == str(positive)]
            if match:
                positive_label = match[0]
            elif len(known) == 2:
                raise ValueError(f"positive: must be one of the class labels {', '.join(repr(v) for v in known)};"
                                 f" got {positive!r}")
            else:
                positive_label = _python_value(positive)
                known = [positive_label] + known
        else:
            best = np.flatnonzero(counts == counts.max())
            positive_label = labels[int(best[-1])]
        others = [v for v in known if v != positive_label]
        self._positive_label = positive_label
        self._negative_label = others[0] if others else None

    def _encode(self, y):
        """+1 / -1 codes of y; learns the -1 label if it was still unknown."""
        positive = y == self._positive_label if y.dtype != object else \
            np.array([v == self._positive_label for v in y.tolist()], dtype=bool)
        if self._negative_label is None:
            rest = np.unique(y[~positive])
            if rest.shape[0] > 1:
                raise ValueError(f"y: labels {', '.join(repr(_python_value(v)) for v in rest)} besides "
                                 f"{self._positive_label!r}; OnlineSelector is binary")
            if rest.shape[0] == 1:
                self._negative_label = _python_value(rest[0])
        else:
            negative = y == self._negative_label if y.dtype != object else \
                np.array([v == self._negative_label for v in y.tolist()], dtype=bool)
            stray = ~(positive | negative)
            if stray.any():
                bad = np.unique(y[stray])
                raise ValueError(f"y: label(s) {', '.join(repr(_python_value(v)) for v in bad[:5])} are not "
                                 f"classes of this stream ({self._negative_label!r}, {self._positive_label!r});"
                                 f" OnlineSelector is binary")
        return np.where(positive, 1, -1).astype(np.int32)

    # ---------------------------------------------------------------- fitting
    def partial_fit(self, X, y, classes=None):
        """Learn from the rows of ``X`` in order (one round each); returns self.

        Parameters
        ----------
        X : array-like, DataFrame or scipy sparse matrix, shape (n_rows, n_features_in)
            Sparse input is used as CSR (not densified).
        y : array-like of shape (n_rows,)
            Two labels over the whole stream.
        classes : array-like of the two labels, optional
            Names the other class when the first batch has only one.
        """
        first = not hasattr(self, "_learner")
        values = self._check_params() if first else None
        matrix, is_sparse = self._check_X(X, reset=first)
        y = self._labels(y, matrix.shape[0])
        if first:
            n_selected = self.n_features
            if not (isinstance(n_selected, numbers.Integral) and not isinstance(n_selected, bool)
                    and 1 <= int(n_selected) <= matrix.shape[1]):
                raise ValueError(f"n_features: must be an integer in 1..{matrix.shape[1]} (the number of "
                                 f"features of X); got {n_selected!r}")
            self._start_mapping(y, classes)
            # Only ONPA draws random numbers (slots, alpha, the reservoir).
            seed = seed_from(self.random_state) if ONLINE_METHODS[self.method].synthesis else 0
            self._learner = OnlineLearner(self.method, matrix.shape[1], int(n_selected), seed=seed, **values)
            self._counts = {"learner": np.zeros(4, dtype=np.int64)}
            if self.prequential:
                self._counts["selected"] = np.zeros(4, dtype=np.int64)
            self._seen = {}
        elif classes is not None:
            known = {self._positive_label, self._negative_label} - {None}
            given = {_python_value(v) for v in np.asarray(classes)}
            if self._negative_label is not None and given != known:
                raise ValueError(f"classes: {sorted(map(repr, given))} differ from the classes of the first "
                                 f"call {sorted(map(repr, known))}")
        y_pm = self._encode(y)
        tracked = "selected" in self._counts
        counts = self._learner.learn(matrix, y_pm, budgets=(self._learner.n_selected,) if tracked else (),
                                     is_sparse=is_sparse, record="counts")["counts"]
        if tracked:
            self._counts["selected"] += counts[1]
        self._counts["learner"] += counts[0]
        # rows of each class: a + b are the +1 rows, c + d the -1 rows
        for seen, label in ((int(counts[0, 0] + counts[0, 1]), self._positive_label),
                            (int(counts[0, 2] + counts[0, 3]), self._negative_label)):
            if label is not None:
                self._seen[label] = self._seen.get(label, 0) + seen
        self._publish()
        return self

    def fit(self, X, y, classes=None):
        """Forget everything learnt and :meth:`partial_fit` the rows of ``X`` (one pass, in order)."""
        for name in ("_learner", "_counts", "_seen"):
            if hasattr(self, name):
                delattr(self, name)
        return self.partial_fit(X, y, classes=classes)

    def _publish(self):
        learner = self._learner
        self.weights_ = learner.weights.copy()
        self.selected_features_ = learner.selected()
        self.coef_ = learner.coefficients()[None, :]
        self.n_seen_ = learner.rounds
        self.memory_size_ = learner.memory_size
        self.class_mapping_ = {self._positive_label: 1}
        if self._negative_label is not None:
            self.class_mapping_[self._negative_label] = -1
            self.classes_ = np.array([self._negative_label, self._positive_label])
        else:
            self.classes_ = np.array([self._positive_label])
        self.class_counts_ = dict(self._seen)

    # ------------------------------------------------------------- prediction
    def _check_fitted(self):
        if not hasattr(self, "_learner"):
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet: call partial_fit or "
                                 f"fit first")

    def decision_function(self, X):
        """w . x of the M-feature classifier (``coef_``); >= 0 means the +1 class."""
        self._check_fitted()
        matrix, _ = self._check_X(X, reset=False)
        return np.asarray(matrix @ self.coef_[0]).ravel()

    def predict(self, X):
        """Labels: the +1 class where :meth:`decision_function` >= 0, else the -1 class."""
        scores = self.decision_function(X)
        if self._negative_label is None:
            raise ValueError(f"predict: only the class {self._positive_label!r} has been seen, so the label of "
                             f"the -1 class is unknown; pass classes=[...] to partial_fit or learn from both "
                             f"classes first")
        return np.where(scores >= 0.0, np.asarray([self._positive_label])[0],
                        np.asarray([self._negative_label])[0])

    def _get_support_mask(self):
        self._check_fitted()
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask

    # ---------------------------------------------------------------- reports
    def stream_metrics(self):
        """Prequential (predict, then learn) metrics over every row seen by :meth:`partial_fit`.

        Rows: ``selected`` (the M-feature classifier of each moment: w_t restricted
        to its M largest weights; with ``prequential=True``) and ``learner`` (the
        full w_t that the updates use: the prediction of Algorithms 1-2, line 4).
        Columns: n, mistakes, mistake_rate, sensitivity = a/(a+b) (accuracy on +1),
        specificity = d/(c+d) (accuracy on -1) and g_mean = sqrt(sensitivity x
        specificity) (paper section 4.1); NaN where a class has not been seen.
        """
        self._check_fitted()
        order = [name for name in ("selected", "learner") if name in self._counts]
        return pd.DataFrame({name: counts_metrics(self._counts[name]) for name in order}).T

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags


OnlineSelector.METHODS = tuple(ONLINE_METHODS)

"""scikit-learn transformer: :class:`FeatureSelector`, usable in a Pipeline."""
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from fstools.api.selection import run_method
from fstools.methods.multilabel import check_label_matrix
from fstools.methods.registry import get_method
from fstools.model.validation import (check_finite_matrix, check_integer_columns, check_k, check_method_params,
                                      check_sparse_input, encode_classes, label_matrix)

__all__ = ["FeatureSelector"]


class FeatureSelector(SelectorMixin, BaseEstimator):
    """Select the ``k`` best features with any registered method.

    Parameters
    ----------
    method : str, default 'cmqfs'
        A registered method (see :func:`fstools.list_methods`).  Methods with the
        ``sparse`` capability (``fs.list_methods()``) take a scipy sparse ``X``
        without densifying it (``transform`` then returns a sparse matrix); the
        others refuse it with a TypeError.
    k : int, default 5
        Number of features to keep (1..n_features).
    n_jobs : int or None
        Threads (None: the n_jobs of an enclosing ``joblib.parallel_config``, else all cores or
        ``OMP_NUM_THREADS``); results do not depend on it.
    params : dict or None, default None
        The method's parameters by name, e.g. ``{"beta": 0.3}`` (``fs.list_methods()`` lists
        each method's parameters and defaults); None or a missing name: the method's default.
        One constructor argument, so ``get_params``/``set_params``/``clone`` handle it like any
        other; a grid search over method parameters varies the whole dict, e.g.
        ``{"featureselector__params": [{"beta": 0.3}, {"beta": 0.5}]}``.  Unknown names and
        out-of-range values raise at :meth:`fit`, naming the parameter and its allowed values.

    Attributes
    ----------
    ranking_ : ndarray of int
        Column indices in selection order.
    scores_ : ndarray of float
        The method's per-feature score.
    classes_ : ndarray
        Class labels seen at fit; for a multi-label method (``elc``, ``llsf``, ...), whose ``y``
        is a 0/1 label matrix (n, l) or a DataFrame of 0/1 label columns, the label names
        (DataFrame columns) or 0..l-1.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` was a DataFrame with string column names.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> model = make_pipeline(FeatureSelector(method="cmqfs", k=5, params={"beta": 0.3}),
    ...                       KNeighborsClassifier(1))
    """

    def __init__(self, method="cmqfs", k=5, n_jobs=None, params=None):
        self.method = method
        self.k = k
        self.n_jobs = n_jobs
        self.params = params

    def fit(self, X, y):
        """Rank the columns of ``X`` with the method and keep the first ``k``."""
        spec = get_method(self.method)
        if self.params is None:
            given = {}
        elif isinstance(self.params, Mapping):
            given = dict(self.params)
        else:
            raise TypeError(f"params: must be a dict of the method's parameters (e.g. {{'beta': 0.3}}) "
                            f"or None; got {type(self.params).__name__}")
        values = check_method_params(spec, given)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        if isinstance(X, pd.DataFrame):
            non_numeric = [str(c) for c, dtype in X.dtypes.items()
                           if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))]
            if non_numeric:
                raise TypeError(f"X: must be numeric; column(s) {', '.join(non_numeric)} are not. Encode them "
                                f"first, or use fs.select with a formula (strings become categorical terms)")
        if sparse.issparse(X) and "sparse" not in spec.capabilities:
            check_sparse_input(spec, X)  # raises: the method does not take sparse input
        # scikit-learn's own checks: complex input refused, feature names recorded; sparse X
        # (for the methods with the 'sparse' capability) kept sparse as CSR or CSC, never densified.
        # Integers beyond 2^53 would not survive the conversion to float64 below.
        if isinstance(X, pd.DataFrame):
            check_integer_columns(X, name="X")
        elif isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "iu":
            check_integer_columns(X, [f"x{j}" for j in range(X.shape[1])], name="X")
        try:
            array = validate_data(self, X, dtype=np.float64, accept_sparse=["csr", "csc"],
                                  ensure_all_finite=False, reset=True)
        except ValueError as error:
            if "could not convert" not in str(error):
                raise
            raise ValueError(f"X: must be numeric ({error}); encode non-numeric columns first, or use "
                             f"fs.select with a formula (strings become categorical terms)") from None
        names = list(getattr(self, "feature_names_in_", [f"x{j}" for j in range(array.shape[1])]))
        check_finite_matrix(array, names, name="X")   # on the stored values of a sparse X
        if "multilabel" in spec.capabilities:
            return self._fit_multilabel(spec, values, array, y)
        y_array = np.asarray(y)
        if y_array.ndim != 1:
            if y_array.ndim == 2 and y_array.shape[1] == 1:
                y_array = y_array.ravel()
            else:
                raise ValueError(f"y should be a 1d array (one label per sample) for method {self.method!r}; "
                                 f"got shape {y_array.shape}")
        if y_array.shape[0] != array.shape[0]:
            raise ValueError(f"y: has {y_array.shape[0]} labels but X has {array.shape[0]} samples")
        codes, class_names, _ = encode_classes(y if isinstance(y, pd.Series) else y_array, name="y")
        k = check_k(self.k, array.shape[1])
        if k is None:
            raise ValueError(f"k: must be an integer in 1..{array.shape[1]} for the transformer; got None")
        output = run_method(spec, array, codes, k, values, self.n_jobs,
                            column_names=getattr(self, "feature_names_in_", None))
        self.ranking_ = np.asarray(output.ranking[:k], dtype=np.intp)
        self.scores_ = np.asarray(output.scores, dtype=np.float64)
        self.classes_ = np.unique(y_array)
        return self

    def _fit_multilabel(self, spec, values, array, Y):
        """fit for a multi-label method: ``Y`` is a 0/1 label matrix (n, l) or a DataFrame of labels."""
        if isinstance(Y, pd.DataFrame):
            if len(Y) != array.shape[0]:
                raise ValueError(f"Y: has {len(Y)} rows but X has {array.shape[0]} samples")
            labels = label_matrix(Y)
            names = [str(name) for name in Y.columns]
        else:
            labels = check_label_matrix(Y, array.shape[0])
            names = list(range(labels.shape[1]))
        k = check_k(self.k, array.shape[1])
        if k is None:
            raise ValueError(f"k: must be an integer in 1..{array.shape[1]} for the transformer; got None")
        output = run_method(spec, array, labels, k, values, self.n_jobs)
        self.ranking_ = np.asarray(output.ranking[:k], dtype=np.intp)
        self.scores_ = np.asarray(output.scores, dtype=np.float64)
        self.classes_ = np.asarray(names)
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "ranking_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.ranking_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        try:
            tags.input_tags.sparse = "sparse" in get_method(self.method).capabilities
        except ValueError:  # an unknown method is refused at fit
            tags.input_tags.sparse = False
        return tags

"""scikit-learn transformer: :class:`FeatureSelector`, usable in a Pipeline."""
import re
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.utils import ClassifierTags
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._set_output import _get_output_config
from sklearn.utils.validation import check_is_fitted, validate_data

from fstools.api.selection import format_call, result_of_run, run_frame, select, select_frame
from fstools.core.arrays import (default_column_names, is_integer_design, is_integer_design_of_columns,
                                 rows_with_nan)
from fstools.core.constraints import OPEN_UNIT_INTERVAL, validate
from fstools.methods.multilabel import check_label_matrix
from fstools.methods.permutation import check_permutation_arguments
from fstools.methods.registry import check_na_action, get_method
from fstools.methods.step_tests import check_step_method
from fstools.model.formula import matrix_model_frame, with_matrix_response
from fstools.model.response import prepare_response
from fstools.model.validation import (check_finite_matrix, check_integer_columns, check_k, check_method_params,
                                      check_sparse_input, label_matrix)

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
    k : int or 'auto', default 5
        Number of features to keep (1..n_features).  ``'auto'`` (the greedy methods mifs,
        mifs_u, mrmr, jmi, cmim, cmqfs): the greedy path cut by its step tests, as
        ``fs.select(..., k='auto')`` does (:meth:`fstools.SelectionResult.cut`): the features
        before the first step whose permutation p-value is not below ``step_alpha``.
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
    response_type : {None, 'class', 'continuous'}, default None
        What ``y`` is; None decides as :func:`fstools.select` does (strings, booleans,
        categoricals and integer-valued numbers with at most 10 distinct values are classes,
        other numbers continuous).  For a regression pipeline, a method that takes a continuous
        response (``fs.list_methods()``, column ``responses``).
    na_action : {'raise', 'drop', 'level', 'pass'}, default 'raise'
        Missing values (NaN in ``X``, missing labels in ``y``), as in :func:`fstools.select`:
        ``'raise'`` refuses them (scikit-learn's convention: impute first); ``'drop'`` fits on
        the complete rows (the count is in ``result_``; :meth:`transform` keeps every row);
        ``'level'`` (the information methods) makes a missing value a level of its own and
        ``'pass'`` (ReliefF) leaves it to the method; rows with a missing label are dropped.
    step_alpha : float in (0, 1), default 0.05
        Level of the step tests of ``k='auto'`` (unused otherwise).
    n_permutations : int, default 999
        Permutations of the step tests of ``k='auto'``.
    random_state : None or int, default None
        Seed of those permutations (an int makes the cut reproducible).

    Attributes
    ----------
    ranking_ : ndarray of int
        Column indices in selection order.
    scores_ : ndarray of float
        The method's per-feature score.
    classes_ : ndarray
        Class labels seen at fit (not set for a continuous response); for a multi-label method (``elc``, ``llsf``, ...), whose ``y``
        is a 0/1 label matrix (n, l) or a DataFrame of 0/1 label columns, the label names
        (DataFrame columns) or 0..l-1.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` was a DataFrame with string column names.
    result_ : SelectionResult or MultiLabelResult
        The fit as :func:`fstools.select` returns it, computed on the same path: ``summary()``,
        ``plot()``, ``scores``, ``selected``, ... .  Its features are named by the columns of a
        DataFrame ``X``, else ``x0``, ``x1``, ...; its response by the name of a Series ``y``,
        else ``y`` (multi-label: the label columns of a DataFrame ``Y``, else ``y0``, ``y1``, ...),
        with ``_`` appended where a feature has that name.  ``ranking_`` and ``scores_`` are its
        ``selected`` and ``scores['score']`` by column position.  Built when first read: a fit
        checks the data, runs the method and sets ``ranking_`` and ``scores_``; the tables of
        the result (a row per feature, costly for wide data in a pipeline that never reads
        them) wait until ``result_`` is read.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> model = make_pipeline(FeatureSelector(method="cmqfs", k=5, params={"beta": 0.3}),
    ...                       KNeighborsClassifier(1))
    >>> import fstools as fs
    >>> wine = fs.datasets.load("wine")
    >>> model = model.fit(wine.drop(columns="class"), wine["class"])
    >>> model.named_steps["featureselector"].result_.selected
    ['flavanoids', 'color_intensity', 'proline', 'proanthocyanins', 'hue']
    """

    def __init__(self, method="cmqfs", k=5, n_jobs=None, params=None, response_type=None, na_action="raise",
                 step_alpha=0.05, n_permutations=999, random_state=None):
        self.method = method
        self.k = k
        self.n_jobs = n_jobs
        self.params = params
        self.response_type = response_type
        self.na_action = na_action
        self.step_alpha = step_alpha
        self.n_permutations = n_permutations
        self.random_state = random_state

    def fit(self, X, y):
        """Rank the columns of ``X`` with the method and keep the first ``k``.

        The work is :func:`fstools.select`'s on a DataFrame of ``X`` and ``y``, after
        scikit-learn's checks of the input; its result is kept as ``result_``.
        """
        spec = get_method(self.method)
        if self.params is None:
            given = {}
        elif isinstance(self.params, Mapping):
            given = dict(self.params)
        else:
            raise TypeError(f"params: must be a dict of the method's parameters (e.g. {{'beta': 0.3}}) "
                            f"or None; got {type(self.params).__name__}")
        values = check_method_params(spec, given)  # a bad parameter is refused before the data are looked at
        check_na_action(spec, self.na_action, values)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        if isinstance(X, pd.DataFrame):
            if not X.columns.is_unique:
                repeated = sorted({str(c) for c in X.columns[X.columns.duplicated()]})
                raise ValueError(f"X: column names must be unique (each names a feature); repeated: "
                                 f"{', '.join(map(repr, repeated))}")
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
            check_integer_columns(X, list(default_column_names(X.shape[1])), name="X")
        # A bool or integer array goes as it is to a method that reads it so (MethodSpec.integer_designs:
        # a 0/1 matrix of bool or uint8 is then read as one byte per value, not copied into float64).
        # (a DataFrame: when every column has the same such dtype, e.g. the int64 of a CSV's 0/1 columns)
        if isinstance(X, pd.DataFrame):
            keep = spec.integer_designs and is_integer_design_of_columns(X.dtypes.tolist())
        else:
            keep = spec.integer_designs and is_integer_design(X)
        try:
            array = validate_data(self, X, dtype=None if keep else np.float64, accept_sparse=["csr", "csc"],
                                  ensure_all_finite=False, reset=True)
        except ValueError as error:
            if "could not convert" not in str(error):
                raise
            raise ValueError(f"X: must be numeric ({error}); encode non-numeric columns first, or use "
                             f"fs.select with a formula (strings become categorical terms)") from None
        if hasattr(self, "feature_names_in_"):
            names = [str(name) for name in self.feature_names_in_]
        else:
            names = list(default_column_names(array.shape[1]))
        if isinstance(self.k, str) and self.k == "auto":
            check_step_method(spec, "k")  # raises for a method without a greedy path
            k = "auto"
        else:
            k = check_k(self.k, array.shape[1])
            if k is None:
                raise ValueError(f"k: must be an integer in 1..{array.shape[1]} or 'auto' for the transformer; "
                                 f"got None")
        if "multilabel" in spec.capabilities:
            if self.na_action != "raise":
                raise ValueError(f"na_action: the transformer takes complete data for a multi-label method; "
                                 f"got {self.na_action!r} (allowed: 'raise'; impute first, or use fs.select)")
            check_finite_matrix(array, names, name="X")   # on the stored values of a sparse X
            result = self._select_multilabel(_design_frame(array, names), y, k, given)
        else:
            result = self._select(spec, array, names, y, k, given)
        self.__dict__.pop("_result", None)
        self.__dict__.pop("_pending_result", None)
        self.__dict__.pop("result_", None)  # (set by fits before result_ was built when read)
        if isinstance(result, _PendingResult):  # every feature one column: the ranking without the tables
            self.ranking_ = result.run.ranking_by_column()
            self._pending_result = result
            return self
        # Every feature is one term named by its column: the positions of the selected names, read
        # from the names x0, x1, ... given here to an array's columns, else found in one pass over
        # the names (a pandas reindex or a dictionary of 100,000 names costs more).
        if hasattr(self, "feature_names_in_"):
            wanted = set(result.selected)
            position = {name: j for j, name in enumerate(names) if name in wanted}
            self.ranking_ = np.array([position[name] for name in result.selected], dtype=np.intp)
        else:
            self.ranking_ = np.array([int(name[1:]) for name in result.selected], dtype=np.intp)
        self._result = result
        return self

    @property
    def result_(self):
        """The fit as :func:`fstools.select` returns it (see the class's Attributes); built when
        first read."""
        if "result_" in self.__dict__:  # a selector pickled before result_ was built when read
            return self.__dict__["result_"]
        if "_result" not in self.__dict__:
            if "_pending_result" not in self.__dict__:
                raise AttributeError(f"{type(self).__name__} has no result_ before fit")
            self._result = self._pending_result.build()
            del self._pending_result
        return self._result

    def _select(self, spec, X, names, y, k, given):
        """The result of :func:`fstools.select` on the validated ``X`` (columns ``names``) and ``y``;
        sets ``classes_``.

        The model frame of ``y ~ .`` over ``X`` is built from the arrays
        (:func:`fstools.model.formula.matrix_model_frame`: no DataFrame, no formula to read), and
        the rest is select's own path (:func:`fstools.api.selection.select_frame`): the same checks of
        the design (messages name ``X``), the method, the result."""
        y_array = np.asarray(y)
        if y_array.ndim != 1:
            if y_array.ndim == 2 and y_array.shape[1] == 1:
                y_array = y_array.ravel()
            else:
                raise ValueError(f"y should be a 1d array (one label per sample) for method {self.method!r}; "
                                 f"got shape {y_array.shape}")
        if y_array.shape[0] != X.shape[0]:
            raise ValueError(f"y: has {y_array.shape[0]} labels but X has {X.shape[0]} samples")
        series = y.reset_index(drop=True) if isinstance(y, pd.Series) else pd.Series(y_array)
        na_action, kept = self.na_action, None
        if na_action != "raise":  # else a missing value is refused by the checks below
            missing = np.array(series.isna(), dtype=bool)
            if na_action == "drop":
                missing |= rows_with_nan(X)
            if missing.any():
                kept = np.flatnonzero(~missing)
                if kept.size == 0:
                    raise ValueError(f"X, y: every row has a missing value (na_action={na_action!r}); nothing "
                                     f"to select on")
                X, y_array, series = X[kept], y_array[kept], series.iloc[kept].reset_index(drop=True)
        # Without response_type, a method that takes continuous responses only (pearson, rrelieff)
        # reads y as one; else the kind is decided from y as R decides it (and a class-only method
        # refuses a continuous y).
        response_type = self.response_type
        if response_type is None and spec.supervised and spec.responses == {"continuous"}:
            response_type = "continuous"
        target = prepare_response(series, response_type, name="y")
        spec.check_response(target.kind)
        preferred = y.name if isinstance(y, pd.Series) and isinstance(y.name, str) and y.name else "y"
        response = _free_name(preferred, names, None if hasattr(self, "feature_names_in_") else len(names))
        if target.kind == "class":
            # (NumPy integer labels: as prepare_response counted them, not hashed again)
            self.classes_ = np.unique(y_array) if target.class_values is None else target.class_values
            response_type = None
        else:
            response_type = "continuous"
            self.__dict__.pop("classes_", None)  # no classes for a continuous response (nor from an earlier fit)
        # The frame's response column is built with the result (_PendingResult): the method reads
        # the checked codes of ``target``.
        frame = matrix_model_frame(X, names, response, None, row_index=None if kept is None else pd.Index(kept),
                                   n_dropped=0 if kept is None else len(missing) - kept.size, na_action=na_action)
        values = check_method_params(spec, given)
        auto = k == "auto"
        step_alpha = validate(OPEN_UNIT_INTERVAL, self.step_alpha, "step_alpha") if auto else None
        _, n_permutations, seed = check_permutation_arguments(None, self.n_permutations, self.random_state)
        call = format_call(frame.formula, self.method, k, na_action, self.n_jobs, given, response_type=response_type,
                           n_permutations=n_permutations, permutation_seed=seed, step_alpha=step_alpha)
        if auto:
            return select_frame(_with_response(frame, target), spec, values, target, None, na_action=na_action,
                                n_jobs=self.n_jobs, call=call, n_permutations=n_permutations, permutation_seed=seed,
                                auto=auto, step_alpha=step_alpha, design_name="X", stacklevel=5)
        run = run_frame(frame, spec, values, target, k, na_action=na_action, n_jobs=self.n_jobs, design_name="X",
                        stacklevel=5)
        pending = _PendingResult(frame, spec, target, run, self.n_jobs, call)
        return pending if run.ranking_by_column() is not None else pending.build()

    def _select_multilabel(self, data, Y, k, given):
        """The result of :func:`fstools.select` with ``response=`` for a multi-label method: ``Y`` is a
        0/1 label matrix (n, l) or a DataFrame of labels; sets ``classes_`` to the label names."""
        n = data.shape[0]
        if isinstance(Y, pd.DataFrame):
            if len(Y) != n:
                raise ValueError(f"Y: has {len(Y)} rows but X has {n} samples")
            labels = label_matrix(Y)
            names = [str(name) for name in Y.columns]
            label_names = names
        else:
            labels = check_label_matrix(Y, n)
            names = list(range(labels.shape[1]))
            label_names = [f"y{j}" for j in names]
        columns = []
        for name in label_names:
            columns.append(_free_name(name, {*data.columns.tolist(), *columns}))
        response = pd.DataFrame(labels, columns=columns, index=data.index)
        result = select("~ .", data, method=self.method, k=k, n_jobs=self.n_jobs, response=response, **given)
        self.classes_ = np.asarray(names)
        return result

    @property
    def scores_(self):
        """The score of each feature (column order): the method's own when ``result_`` has not been
        built, else from ``result_`` (a wide fit does not pay for the lookup of every name unless
        the scores are read)."""
        check_is_fitted(self, "ranking_")
        if "_pending_result" in self.__dict__:
            return np.array(self._pending_result.run.output.scores, dtype=np.float64)
        if hasattr(self, "feature_names_in_"):
            names = [str(name) for name in self.feature_names_in_]
        else:
            names = list(default_column_names(self.n_features_in_))
        return self.result_.scores["score"].reindex(names).to_numpy(dtype=np.float64)

    def _get_support_mask(self):
        check_is_fitted(self, "ranking_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.ranking_] = True
        return mask

    def transform(self, X):
        """The selected columns of ``X``, in the kind of frame ``X`` is.

        A pandas DataFrame, a polars DataFrame or a pyarrow Table with the columns seen at fit
        comes back as the same kind of frame holding the selected columns (selected by name: polars
        and Arrow share the columns' memory); anything else as scikit-learn's ``SelectorMixin``
        returns it (an array, or a sparse matrix).  ``set_output(transform="pandas")`` /
        ``"polars"`` make every output that kind of frame, as in scikit-learn.
        """
        if _get_output_config("transform", self)["dense"] == "default":
            native = self._selected_frame(X)
            if native is not None:
                return native
        return super().transform(X)

    def _selected_frame(self, X):
        """The selected columns of a pandas, polars or Arrow frame with the fitted columns; else None."""
        check_is_fitted(self)
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return None
        names = [str(name) for name in names]
        package = type(X).__module__.partition(".")[0]
        if isinstance(X, pd.DataFrame):
            columns = [str(column) for column in X.columns]
        elif package == "polars" and type(X).__name__ == "DataFrame":
            columns = list(X.columns)
        elif package == "pyarrow" and type(X).__name__ == "Table":
            columns = list(X.column_names)
        else:
            return None
        if columns != names:
            return None   # SelectorMixin's own checks say what is wrong
        support = self.get_support()
        if isinstance(X, pd.DataFrame):
            return X.iloc[:, np.flatnonzero(support)]
        return X.select([name for name, keep in zip(names, support) if keep])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = self.na_action != "raise"  # transform then passes NaN through
        try:
            spec = get_method(self.method)
        except ValueError:  # an unknown method is refused at fit
            tags.input_tags.sparse = False
            return tags
        tags.input_tags.sparse = "sparse" in spec.capabilities
        if "multilabel" in spec.capabilities:
            # A label matrix (samples x labels) of two values per column: scikit-learn's checks then
            # give these methods a 2-D target of two values (the classifier tags binarise it).
            tags.target_tags.multi_output = True
            tags.target_tags.single_output = False
            tags.classifier_tags = ClassifierTags(multi_class=False)
        elif spec.supervised and "multiclass" not in spec.capabilities and spec.responses == {"class"}:
            # The online methods take two classes: scikit-learn's checks then give them binary targets
            # (they read the classifier tags for that; FeatureSelector stays a transformer).
            tags.classifier_tags = ClassifierTags(multi_class=False)
        # A method of counts (chi2) refuses negative values: scikit-learn's checks then give it X >= 0.
        tags.input_tags.positive_only = "non_negative" in spec.capabilities
        return tags


def _design_frame(X, names):
    """The validated ``X`` (float64, dense or scipy sparse) as a DataFrame with columns ``names``; a
    sparse ``X`` as pandas sparse columns, which :func:`fstools.select` keeps sparse."""
    if sparse.issparse(X):
        return pd.DataFrame.sparse.from_spmatrix(X, columns=names)
    return pd.DataFrame(X, columns=names, copy=False)


def _free_name(preferred, taken, default_width=None):
    """``preferred``, or with underscores appended until it is not among ``taken`` (column names).

    ``taken`` is searched as it is (a pandas Index by its hash table, a list by one C-level scan):
    a set of a wide frame's string columns would iterate them one by one, 70 ms for 100,000 names.
    With ``default_width``, ``taken`` are an array's default names x0 .. x{default_width - 1}
    (:func:`fstools.core.arrays.default_column_names`), recognised by their form without a scan
    (0.8 ms for 100,000 names).
    """
    name = preferred
    while (name in taken if default_width is None else _is_default_name(name, default_width)):
        name += "_"
    return name


def _is_default_name(name, width):
    """Whether ``name`` is one of x0 .. x{width - 1}."""
    match = re.fullmatch(r"x(0|[1-9][0-9]*)", name)
    return match is not None and int(match.group(1)) < width


class _PendingResult:
    """The pieces of a fit's :class:`~fstools.SelectionResult`, built by :meth:`build` when
    ``result_`` is first read (:func:`fstools.api.selection.result_of_run`)."""

    def __init__(self, frame, spec, target, run, n_jobs, call):
        self.frame, self.spec, self.target, self.run, self.n_jobs, self.call = frame, spec, target, run, n_jobs, call

    def build(self):
        return result_of_run(_with_response(self.frame, self.target), self.spec, self.target, self.run,
                             n_jobs=self.n_jobs, call=self.call)


def _with_response(frame, target):
    """The transformer's model frame with its response column: the classes as checked (messages
    name y), as a categorical, or the continuous values."""
    if target.kind == "class":
        values = pd.Categorical.from_codes(target.values, dtype=pd.CategoricalDtype(target.class_names),
                                           validate=False)  # (codes 0..C-1 from encode_classes)
    else:
        values = target.values
    return with_matrix_response(frame, values)

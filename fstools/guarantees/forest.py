"""A scikit-learn random forest grown tree by tree, without the ensemble's per-tree overhead.

Boruta fits a forest in every run, and its forests are many and small (hundreds of rows, depth a
few levels): there, scikit-learn's ``RandomForestClassifier.fit`` / ``RandomForestRegressor.fit``
spends a third of its time around the trees rather than in them (cloning each tree and reading
its parameters through ``inspect``, a joblib dispatch per tree, the importances gathered through
joblib again; measured by cProfile on 500 x 160 float32 columns, 100 trees of depth 7).
:func:`fit_forest` grows the same trees directly: each a scikit-learn ``DecisionTreeClassifier``
/ ``DecisionTreeRegressor`` with the forest's tree parameters, seeded as the forest seeds them
(one ``randint(2**31 - 1)`` per tree from ``RandomState(random_state)``), fitted on the
bootstrap counts that scikit-learn's forest draws for that seed (its own
``_generate_sample_indices``).  The trees, their in-bag rows and the impurity importances are
equal, bit for bit, to those of ``RandomForest*(random_state=random_state).fit(X, y)``
(tests/test_boruta_forest.py checks it for both kinds and several settings).

It is used only where it is that forest: one thread, bootstrap on, and none of the arguments
that change the ensemble's loop (``class_weight``, ``max_samples``, ``oob_score``,
``warm_start``); anything else is fitted by scikit-learn's own forest (:func:`can_fit`).
"""
import functools
import inspect

import numpy as np

__all__ = ["fit_forest", "can_fit", "FittedForest"]

#: The forest arguments that are passed on to every tree (scikit-learn's ``estimator_params``).
TREE_PARAMS = ("criterion", "max_depth", "min_samples_split", "min_samples_leaf", "min_weight_fraction_leaf",
               "max_features", "max_leaf_nodes", "min_impurity_decrease", "ccp_alpha", "monotonic_cst")
#: Forest arguments with the values under which the ensemble's loop is the one grown here.
LOOP_DEFAULTS = {"bootstrap": True, "oob_score": False, "warm_start": False, "class_weight": None,
                 "max_samples": None}
#: Arguments of the ensemble that change nothing in the trees.
IGNORED = ("n_estimators", "n_jobs", "random_state", "verbose")


class FittedForest:
    """What Boruta reads of a fitted forest: ``estimators_``, ``estimators_samples_`` (each tree's
    in-bag rows), ``classes_`` (classification) and ``feature_importances_``, named as
    scikit-learn's forest names them."""

    def __init__(self, estimators, samples, classes, n_features):
        self.estimators_ = estimators
        self.estimators_samples_ = samples
        self.classes_ = classes
        self.n_features_in_ = n_features

    @property
    def feature_importances_(self):
        """The impurity importances: each tree's (normalised), averaged over the trees that split
        at least once, normalised to sum 1, in the order of scikit-learn's forest."""
        per_tree = [tree.feature_importances_ for tree in self.estimators_ if tree.tree_.node_count > 1]
        if not per_tree:
            return np.zeros(self.n_features_in_, dtype=np.float64)
        mean = np.mean(per_tree, axis=0, dtype=np.float64)
        return mean / np.sum(mean)


@functools.lru_cache(maxsize=None)
def _sample_indices():
    """scikit-learn's own bootstrap draw, ``(seed, n) -> in-bag row indices``; None when its
    private helper is not the one this module knows."""
    try:
        from sklearn.ensemble._forest import _generate_sample_indices
    except ImportError:  # pragma: no cover - a scikit-learn without it
        return None
    names = list(inspect.signature(_generate_sample_indices).parameters)
    if names == ["random_state", "n_samples", "n_samples_bootstrap"]:  # scikit-learn < 1.7
        return lambda seed, n: _generate_sample_indices(seed, n, n)
    if names == ["random_state", "n_samples", "n_samples_bootstrap", "sample_weight"]:
        return lambda seed, n: _generate_sample_indices(seed, n, n, None)
    return None  # pragma: no cover - a signature this module does not know


def can_fit(params, n_threads):
    """True when :func:`fit_forest` grows the forest that scikit-learn's would with ``params``
    (a random forest's arguments, all of them) on ``n_threads`` threads."""
    if n_threads != 1 or _sample_indices() is None:
        return False
    for name, value in params.items():
        if name in LOOP_DEFAULTS:
            if value is not LOOP_DEFAULTS[name] and value != LOOP_DEFAULTS[name]:
                return False
        elif name not in TREE_PARAMS and name not in IGNORED:
            return False
    return True


def fit_forest(X, y, classification, params, random_state):
    """Grow scikit-learn's random forest ``RandomForest*(**params, random_state=random_state)``
    on ``X`` (float32, C order) and ``y`` tree by tree.

    Parameters
    ----------
    X : ndarray of float32, shape (n, d), C-contiguous
    y : ndarray, shape (n,)
        Class labels (classification) or numbers.
    classification : bool
    params : dict
        Every argument of the forest (its ``get_params()``); :func:`can_fit` must be true of them.
    random_state : int

    Returns
    -------
    FittedForest
    """
    from sklearn import config_context
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor  # (heavy: at first use)

    draw = _sample_indices()
    tree_kind = DecisionTreeClassifier if classification else DecisionTreeRegressor
    tree_params = {name: params[name] for name in TREE_PARAMS if name in params}
    n = X.shape[0]
    if classification:
        classes, codes = np.unique(y, return_inverse=True)
        target = np.ascontiguousarray(codes.reshape(-1, 1), dtype=np.float64)
    else:
        classes = None
        target = np.ascontiguousarray(np.asarray(y, dtype=np.float64).reshape(-1, 1))
    seeds = np.random.RandomState(random_state)
    estimators, samples = [], []
    # The trees' parameters are the forest's, checked when it was made: no check per tree.
    with config_context(skip_parameter_validation=True):
        for _ in range(params["n_estimators"]):
            seed = seeds.randint(np.iinfo(np.int32).max)
            tree = tree_kind(**tree_params, random_state=seed)
            in_bag = draw(seed, n)
            counts = np.bincount(in_bag, minlength=n).astype(np.float64)
            tree.fit(X, target, sample_weight=counts, check_input=False)
            estimators.append(tree)
            samples.append(in_bag)
    return FittedForest(estimators, samples, classes, X.shape[1])

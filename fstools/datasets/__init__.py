"""Bundled data sets as DataFrames, and generators of data with a known answer.

The bundled sets are read from the files scikit-learn ships (no download):
``iris``, ``wine``, ``breast_cancer`` and ``digits``.  Every frame has
snake_case predictor names and the response in a column named ``class``: a
pandas categorical whose categories are the class names.

Examples
--------
>>> import fstools as fs
>>> fs.datasets.list()
['breast_cancer', 'digits', 'iris', 'wine']
>>> df = fs.datasets.load("wine")
>>> list(df["class"].cat.categories)
['class_0', 'class_1', 'class_2']
"""
import builtins
import re

import numpy as np
import pandas as pd

__all__ = ["list", "load", "make_classification_frame", "snake_case"]

RESPONSE = "class"


def _loaders():
    # Imported lazily: scikit-learn's dataset module is slow to import.
    from sklearn import datasets as sk

    return {
        "breast_cancer": sk.load_breast_cancer,
        "digits": sk.load_digits,
        "iris": sk.load_iris,
        "wine": sk.load_wine,
    }


_NAMES = ("breast_cancer", "digits", "iris", "wine")


def list():  # noqa: A001 - the public name mirrors R's data() listing
    """Names of the bundled data sets, sorted."""
    return builtins.list(_NAMES)


def snake_case(name):
    """``'sepal length (cm)'`` -> ``'sepal_length_cm'``: lower case, runs of other characters -> ``_``."""
    text = re.sub(r"[^0-9a-zA-Z]+", "_", str(name).strip()).strip("_").lower()
    if not text:
        raise ValueError(f"name {name!r} has no letters or digits to build a column name from")
    return text


def load(name):
    """Load a bundled data set as a DataFrame.

    Parameters
    ----------
    name : {'iris', 'wine', 'breast_cancer', 'digits'}

    Returns
    -------
    pandas.DataFrame
        Predictors with snake_case names, then the response ``class`` (categorical,
        categories = the class names in the order scikit-learn gives them).
    """
    if not isinstance(name, str) or name not in _NAMES:
        raise ValueError(f"name: unknown data set {name!r}; allowed values: {', '.join(_NAMES)}")
    bunch = _loaders()[name]()
    columns = [snake_case(feature) for feature in bunch.feature_names]
    frame = pd.DataFrame(np.asarray(bunch.data, dtype=float), columns=columns)
    class_names = [str(label) for label in bunch.target_names]
    frame[RESPONSE] = pd.Categorical.from_codes(np.asarray(bunch.target), categories=class_names)
    return frame


def make_classification_frame(n_samples=2000, n_features=500, n_informative=20, n_redundant=0,
                              n_classes=2, random_state=None, **kwargs):
    """Madelon-style data with known informative features, as a DataFrame.

    A wrapper around :func:`sklearn.datasets.make_classification` with
    ``shuffle=False`` so that the informative features are ``x1 .. x{n_informative}``,
    then the redundant ones, then noise.  The response is ``class`` (categorical).

    Returns
    -------
    frame : pandas.DataFrame
    informative : list of str
        Names of the informative columns.
    """
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n_samples, n_features=n_features,
                               n_informative=n_informative, n_redundant=n_redundant,
                               n_classes=n_classes, shuffle=False,
                               random_state=random_state, **kwargs)
    columns = [f"x{j + 1}" for j in range(n_features)]
    frame = pd.DataFrame(X, columns=columns)
    frame[RESPONSE] = pd.Categorical.from_codes(y, categories=[f"c{c}" for c in range(n_classes)])
    return frame, columns[:n_informative]

"""Bundled data sets, the papers' data sets fetched from public repositories, and generators of
data with a known answer.

The bundled sets are read from the files scikit-learn ships (no download):
``iris``, ``wine``, ``breast_cancer`` and ``digits``.  Every frame has
snake_case predictor names and the response in a column named ``class``: a
pandas categorical whose categories are the class names.

The data sets of the papers that fstools implements are downloaded by :func:`fetch` from OpenML
(through scikit-learn's ``fetch_openml``) or from the LIBSVM, Mulan and scikit-feature
repositories, checked (SHA-256) and cached; ``list(kind="all", details=True)`` shows which are
bundled, which fetchable and from where, and which are already cached; :func:`available` shows,
for one paper, which of its sets can be used here without a download and how to get the others,
and :func:`load_available` reads those.

Examples
--------
>>> import fstools as fs
>>> fs.datasets.list()
['breast_cancer', 'digits', 'iris', 'wine']
>>> df = fs.datasets.load("wine")
>>> df["class"].cat.categories.tolist()
['class_0', 'class_1', 'class_2']
>>> table = fs.datasets.list(kind="all", details=True).set_index("name")
>>> table.loc["emotions", ["kind", "source", "papers"]].tolist()
['fetchable', 'Mulan repository', 'ELC']
"""
import builtins
import warnings

import numpy as np
import pandas as pd

from fstools.core.constraints import BOOLEAN, one_of, validate
from fstools.datasets.fetch import ChecksumError, FetchError, cached_path, cached_paths, fetch, get_data_home
from fstools.datasets.naming import RESPONSE, snake_case
from fstools.datasets.registry import REGISTRY, SOURCES

__all__ = ["ChecksumError", "FetchError", "available", "cached_path", "cached_paths", "fetch", "get_data_home",
           "list", "load", "load_available", "make_classification_frame", "snake_case"]


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


#: Shape and papers of the bundled sets (checked against the loaded frames by the tests).
_BUNDLED = {
    "breast_cancer": (569, 30, 2, ()),
    "digits": (1797, 64, 10, ()),
    "iris": (150, 4, 3, ("CMQFS",)),
    "wine": (178, 13, 3, ("CMQFS",)),
}

_KINDS = ("bundled", "fetchable", "all")
_COLUMNS = ["name", "kind", "source", "format", "n_rows", "n_features", "n_classes", "n_labels", "papers",
            "checksum", "cached", "url", "note"]


def list(kind="bundled", details=False, data_home=None):  # noqa: A001 - the public name mirrors R's data() listing
    """The data sets: names, or a table of where each comes from.

    Parameters
    ----------
    kind : {'bundled', 'fetchable', 'all'}, default 'bundled'
        ``'bundled'``: the sets :func:`load` reads from the files scikit-learn ships;
        ``'fetchable'``: the papers' sets that :func:`fetch` downloads (or, for the few without a
        public copy, reads from the cache where they were put by hand); ``'all'``: both.
    details : bool, default False
        Return a table instead of the names.
    data_home : str or path-like, optional
        The cache folder to look in for the ``cached`` column (default :func:`get_data_home`).

    Returns
    -------
    list of str or pandas.DataFrame
        The names, sorted; or one row per set with ``name``, ``kind`` (``'bundled'``,
        ``'fetchable'``, or ``'manual'`` for a set with no known public copy), ``source``,
        ``format``, ``n_rows``, ``n_features``, ``n_classes`` / ``n_labels`` (of the repository's
        file, where known), ``papers``, ``checksum`` (``'sha256 in registry'``, or ``'trust on
        first use'``: the first download's digest is recorded and later reads are checked
        against it), ``cached`` (the file is in the cache folder), ``url`` and ``note``.
    """
    kind = validate(one_of(_KINDS), kind, "kind")
    details = validate(BOOLEAN, details, "details")
    names = []
    if kind in ("bundled", "all"):
        names += builtins.list(_NAMES)
    if kind in ("fetchable", "all"):
        names += builtins.list(REGISTRY)
    names = sorted(names)
    if not details:
        return names
    return pd.DataFrame([_row(name, data_home) for name in names], columns=_COLUMNS).astype(
        {"n_rows": "Int64", "n_features": "Int64", "n_classes": "Int64", "n_labels": "Int64"})


def _row(name, data_home):
    if name in _BUNDLED:
        n_rows, n_features, n_classes, papers = _BUNDLED[name]
        return {"name": name, "kind": "bundled", "source": "scikit-learn (bundled)", "format": "bundled",
                "n_rows": n_rows, "n_features": n_features, "n_classes": n_classes, "n_labels": None,
                "papers": ", ".join(papers), "checksum": "", "cached": True, "url": None, "note": ""}
    entry = REGISTRY[name]
    return {"name": name, "kind": "fetchable" if entry.url is not None else "manual",
            "source": SOURCES[entry.source], "format": entry.format, "n_rows": entry.n_rows,
            "n_features": entry.n_features, "n_classes": entry.n_classes, "n_labels": entry.n_labels,
            "papers": ", ".join(entry.papers),
            "checksum": "sha256 in registry" if entry.checked else "trust on first use",
            "cached": _is_cached(entry, data_home), "url": entry.url, "note": entry.note}


def _is_cached(entry, data_home):
    """The file (every file, for a set read from several) is where :func:`fetch` reads it (put there
    by a download or by hand), or, for an OpenML set, scikit-learn's OpenML cache holds its listing
    (``fetch_openml`` then works offline)."""
    if all(path.exists() for path in cached_paths(entry.name, data_home)):
        return True
    if entry.format != "openml":
        return False
    name, version = entry.openml
    # fetch() gives fetch_openml <data_home>/openml, below which scikit-learn adds openml/openml.org
    # and mirrors the API address it asked (the listing of the name and version, gzip-compressed).
    listing = (get_data_home(data_home) / "openml" / "openml" / "openml.org" / "api" / "v1" / "json" / "data"
               / "list" / "data_name" / name / "limit" / "2" / "data_version" / f"{version}.gz")
    return listing.exists()


#: The papers whose data sets the registry lists (the values :func:`available` takes).
PAPERS = ("CMQFS", "online PA", "ELC", "DFS")


def _paper_names(paper):
    if paper is None:
        return sorted(builtins.list(_NAMES) + builtins.list(REGISTRY))
    paper = validate(one_of(PAPERS), paper, "paper")
    names = [name for name, (*_, papers) in _BUNDLED.items() if paper in papers]
    return sorted(names + [name for name, entry in REGISTRY.items() if paper in entry.papers])


def available(paper=None, *, data_home=None):
    """Which data sets of a paper can be used here without a download, and how to get the others.

    Nothing is downloaded and the network is not used: a set is present when it is bundled or
    when its file is in the cache folder (downloaded earlier, or put there by hand).

    Parameters
    ----------
    paper : {'CMQFS', 'online PA', 'ELC', 'DFS'} or None, default None
        The paper; None: every data set.
    data_home : str or path-like, optional
        The cache folder (default :func:`get_data_home`).

    Returns
    -------
    pandas.DataFrame
        One row per data set, sorted by name: ``name``; ``kind`` (``'bundled'``, ``'fetchable'``,
        or ``'manual'`` for a set with no known public copy); ``present`` (bool); ``path``
        (where :func:`fetch` reads the file, :func:`cached_path`; for a set read from several
        files, the first one's, the others next to it; empty for a bundled set); ``how`` (for a
        missing set, the call that downloads it or where to put each file by hand; empty when
        present).

    See Also
    --------
    load_available : read the present sets.
    list : every set, with its source, shape and licence.

    Notes
    -----
    An OpenML set counts as present when its ARFF file is at ``path`` or when scikit-learn's
    OpenML cache (``<data_home>/openml``) holds its listing from an earlier :func:`fetch`.

    Examples
    --------
    >>> import fstools as fs
    >>> table = fs.datasets.available("CMQFS", data_home="/nonexistent")
    >>> table.loc[table["present"], "name"].tolist()
    ['iris', 'wine']
    >>> print(table.set_index("name").loc["sonar", "how"])  # doctest: +ELLIPSIS
    fs.datasets.fetch('sonar') (downloads https://...sonar_scale), or put that file at .../sonar/sonar_scale
    """
    rows = []
    for name in _paper_names(paper):
        if name in _BUNDLED:
            rows.append({"name": name, "kind": "bundled", "present": True, "path": "", "how": ""})
            continue
        entry = REGISTRY[name]
        path = cached_path(name, data_home)
        present = _is_cached(entry, data_home)
        if present:
            how = ""
        elif entry.url is None:
            how = f"{entry.note}, at {path}"
        elif entry.format == "openml":
            how = f"fs.datasets.fetch({name!r}) (from OpenML, {entry.url}), or put its ARFF file at {path}"
        elif len(entry.files) > 1:
            paths = cached_paths(entry.name, data_home)
            how = (f"fs.datasets.fetch({name!r}) (downloads {' and '.join(part.url for part in entry.files)}), "
                   f"or put those files at {' and '.join(map(str, paths))}")
        else:
            how = f"fs.datasets.fetch({name!r}) (downloads {entry.url}), or put that file at {path}"
        rows.append({"name": name, "kind": "fetchable" if entry.url is not None else "manual",
                     "present": present, "path": str(path), "how": how})
    return pd.DataFrame(rows, columns=["name", "kind", "present", "path", "how"])


def load_available(paper, *, data_home=None, errors="raise"):
    """Read every data set of ``paper`` that is present (see :func:`available`), offline.

    Parameters
    ----------
    paper : {'CMQFS', 'online PA', 'ELC', 'DFS'}
    data_home : str or path-like, optional
        The cache folder (default :func:`get_data_home`).
    errors : {'raise', 'warn'}, default 'raise'
        What to do with a cached file that cannot be read or fails its checksum: raise
        :func:`fetch`'s error, or leave the set out with a warning that names the file and says
        why (a script that uses whatever is there goes on with the other sets).

    Returns
    -------
    dict of str to pandas.DataFrame
        Name -> frame, in name order: bundled sets as :func:`load` returns them, cached ones as
        :func:`fetch` does (its checks of the file included).  Sets that are not present are
        left out; nothing is downloaded.
    """
    paper = validate(one_of(PAPERS), paper, "paper")
    errors = validate(one_of(("raise", "warn")), errors, "errors")
    table = available(paper, data_home=data_home)
    frames = {}
    for row in table[table["present"]].itertuples():
        if row.kind == "bundled":
            frames[row.name] = load(row.name)
            continue
        try:
            frames[row.name] = fetch(row.name, data_home=data_home)
        except (ValueError, OSError) as error:   # ChecksumError, FetchError and unreadable files
            if errors == "raise":
                raise
            warnings.warn(f"{row.name!r} is left out: {error}", UserWarning, stacklevel=2)
    return frames


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

"""Download, verify, cache and read the papers' data sets.

:func:`fetch` looks the name up in :data:`fstools.datasets.registry.REGISTRY`, finds the file in
the cache folder (:func:`get_data_home`) or downloads it there, checks its SHA-256 digest and reads
it into a DataFrame.  Sets on OpenML go through :func:`sklearn.datasets.fetch_openml`, which keeps
its own cache under ``<data_home>/openml``.

Downloads use only the standard library (:mod:`urllib.request`).  A download goes to a temporary
file in the cache folder and is renamed into place only when it is complete (as many bytes as the
server announced) and its digest is right, so that an interrupted or corrupt download never
leaves a file that a later call would take for the data set.

A set read from several files (``DataSet.parts``, e.g. ``scene``) keeps them side by side in its
cache folder, each under its own name, each checked against its own digest; their rows are put
one after the other.

Without a network, or when the repository cannot be reached, :func:`fetch` fails at once with a
:class:`FetchError` that names the address and the exact path where the file can be put by hand;
the next :func:`fetch` finds it there.  This holds for the OpenML sets too: whatever
:func:`sklearn.datasets.fetch_openml` raises (a network error, an OpenML error, a cache it cannot
read) becomes a :class:`FetchError` that names the OpenML page and the path where the set's ARFF
file can be put instead.
"""
import hashlib
import os
import sys
import tempfile
import urllib.error
import urllib.request
import warnings
from http.client import HTTPException
from pathlib import Path

from fstools.core.constraints import BOOLEAN, POSITIVE_NUMBER, validate
from fstools.core.messages import did_you_mean
from fstools.datasets.naming import RESPONSE
from fstools.datasets.parsers import (join_rows, read_arff, read_csv, read_mat, read_svmlight, split_labels,
                                      unique_names, with_response)
from fstools.datasets.registry import REGISTRY, SOURCES

__all__ = ["ChecksumError", "FetchError", "cached_path", "cached_paths", "fetch", "get_data_home", "sha256_of"]

_CHUNK = 1 << 16


class FetchError(OSError):
    """The data set's file could not be downloaded (offline, refused, interrupted, HTTP error)."""


class ChecksumError(ValueError):
    """A file whose SHA-256 digest is not the one expected; it is not used (nor kept, if downloaded)."""


def get_data_home(data_home=None):
    """The cache folder of the fetched data sets.

    Parameters
    ----------
    data_home : str or path-like, optional
        Used as it is when given.

    Returns
    -------
    pathlib.Path
        ``data_home``; else the environment variable ``FSTOOLS_DATA``; else the platform's cache
        folder followed by ``fstools``: ``$XDG_CACHE_HOME`` (default ``~/.cache``) on Linux and
        other Unix systems, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows.  The
        folder is not created here.
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    if os.environ.get("FSTOOLS_DATA"):
        return Path(os.environ["FSTOOLS_DATA"]).expanduser()
    if sys.platform.startswith("win"):
        base = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "fstools"


def _entry(name):
    if not isinstance(name, str) or name not in REGISTRY:
        allowed = ", ".join(sorted(REGISTRY))
        raise ValueError(f"name: unknown data set {name!r}{did_you_mean(name, REGISTRY)}; "
                         f"allowed values: {allowed} (bundled sets: fstools.datasets.load)")
    return REGISTRY[name]


def cached_path(name, data_home=None):
    """Where :func:`fetch` keeps (and looks for) the file of data set ``name``: put it there by hand
    to use a copy obtained some other way.

    Parameters
    ----------
    name : str
        A name from ``fstools.datasets.list(kind="fetchable")``.
    data_home : str or path-like, optional
        The cache folder (default :func:`get_data_home`).

    Returns
    -------
    pathlib.Path
        ``<data_home>/<name>/<file name>``.  For a set read from several files (such as
        ``scene``), the first one's; the others go in the same folder under their own names
        (:func:`cached_paths` lists them all), as the :class:`FetchError` of an offline
        :func:`fetch` says.  For an OpenML set, ``<name>.arff``: an ARFF file put there is read
        instead of calling OpenML.
    """
    return cached_paths(name, data_home)[0]


def cached_paths(name, data_home=None):
    """Where :func:`fetch` keeps each file of data set ``name``, in reading order.

    Parameters
    ----------
    name : str
        A name from ``fstools.datasets.list(kind="fetchable")``.
    data_home : str or path-like, optional
        The cache folder (default :func:`get_data_home`).

    Returns
    -------
    list of pathlib.Path
        One path for a set read from one file (:func:`cached_path`'s); for a set read from several
        (``scene``), one per part, in the order their rows are joined.
    """
    entry = _entry(name)
    folder = get_data_home(data_home) / entry.name
    return [folder / part.filename for part in entry.files] or [folder / entry.filename]


def sha256_of(path):
    """The SHA-256 digest of a file, as lower-case hexadecimal."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _record_path(path):
    return path.with_name(path.name + ".sha256")


def _verify(path, expected):
    """The file's digest, checked against ``expected`` or, when that is None, against the digest
    recorded when the file was first seen (trust on first use; recorded now if there is none)."""
    digest = sha256_of(path)
    record = _record_path(path)
    trusted = expected
    if trusted is None and record.exists():
        trusted = record.read_text().strip()
    if trusted is not None and digest != trusted:
        origin = "the registry's" if expected is not None else f"the one recorded at first use ({record})"
        raise ChecksumError(f"{path}: SHA-256 {digest} does not match {origin}, {trusted}; the file is "
                            f"damaged or not the data set: delete it, or call fetch(..., refresh=True)")
    if not record.exists():
        record.write_text(digest + "\n")
    return digest


def _manual_hint(files):
    """What to do by hand, for ``files``: (address or None, path) pairs."""
    steps = [f"{'download ' + url if url else 'obtain the file'} by hand and put it at {path}" for url, path in files]
    return f"{'; '.join(steps)}; fetch() then reads {'it' if len(files) == 1 else 'them'} from there"


def _describe(error):
    """``HTTP 404 Not Found``, ``ConnectionRefusedError: ...``: what went wrong, in a few words."""
    if isinstance(error, urllib.error.HTTPError):
        return f"HTTP {error.code} {error.reason}"
    reason = error.reason if isinstance(error, urllib.error.URLError) else error
    return f"{type(reason).__name__}: {reason}" if isinstance(reason, BaseException) else str(reason)


def _download(url, path, expected, timeout, hint):
    """Download ``url`` to ``path`` atomically; return the digest.  Nothing is left behind on failure;
    a :class:`FetchError` ends with ``hint`` (what to do by hand)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name + ".", suffix=".part", delete=False)
    partial = Path(handle.name)
    try:
        digest = hashlib.sha256()
        received = 0
        try:
            with handle, urllib.request.urlopen(url, timeout=timeout) as response:
                announced = response.headers.get("Content-Length")
                for chunk in iter(lambda: response.read(_CHUNK), b""):
                    handle.write(chunk)
                    digest.update(chunk)
                    received += len(chunk)
        except (urllib.error.URLError, HTTPException, OSError) as error:
            raise FetchError(f"cannot download {url}: {_describe(error)} "
                             f"(after {received} bytes; nothing was kept); {hint}") from error
        if announced is not None and received != int(announced):
            raise FetchError(f"the download of {url} was interrupted: {received} of {announced} bytes; "
                             f"nothing was kept; try again, or {hint}")
        hexdigest = digest.hexdigest()
        if expected is not None and hexdigest != expected:
            raise ChecksumError(f"the file downloaded from {url} has SHA-256 {hexdigest}, not the expected "
                                f"{expected}; it was not kept")
        os.replace(partial, path)
        _record_path(path).write_text(hexdigest + "\n")
        return hexdigest
    finally:
        partial.unlink(missing_ok=True)


def _local_files(entry, home, timeout, refresh):
    """The path and digest of each file of ``entry``, in reading order: cached and checked, or
    downloaded now (``refresh``: downloaded again)."""
    paths = cached_paths(entry.name, home)
    if not entry.files:          # no address: a set without a public copy, or an OpenML set's ARFF file
        if not paths[0].exists():
            raise FetchError(f"{entry.name!r} has no public copy that fstools knows of; "
                             f"{_manual_hint([(None, paths[0])])} ({entry.note})")
        return paths, [_verify(paths[0], entry.sha256)]
    if refresh:
        for path in paths:
            path.unlink(missing_ok=True)
            _record_path(path).unlink(missing_ok=True)
    hint = _manual_hint([(part.url, path) for part, path in zip(entry.files, paths) if not path.exists()])
    digests = [_verify(path, part.sha256) if path.exists() else _download(part.url, path, part.sha256, timeout, hint)
               for part, path in zip(entry.files, paths)]
    return paths, digests


def _read(entry, paths):
    if entry.format == "arff" or entry.format == "openml":
        frame = join_rows([read_arff(path, sparse_output=entry.sparse) for path in paths], paths)
        missing = [name for name in entry.drop if name not in frame.columns]
        if missing:
            raise ValueError(f"no attribute {', '.join(map(repr, missing))} to leave out (the registry's drop); "
                             f"the file's first attributes: {', '.join(map(repr, frame.columns[:5]))}")
        frame = frame.drop(columns=list(entry.drop))
        if entry.multilabel:
            return split_labels(frame, entry.n_labels)
        target = frame.columns[-1]
        features = frame.iloc[:, :-1].copy()
        features.columns = unique_names(features.columns)
        return with_response(features, frame[target].to_numpy())
    path, = paths                # only ARFF sets have parts (DataSet checks it)
    if entry.format == "svmlight":
        return read_svmlight(path, n_features=entry.n_features, sparse_output=entry.sparse)
    if entry.format == "mat":
        return read_mat(path, sparse_output=entry.sparse)
    return read_csv(path, entry.target)


#: What :func:`_from_openml` asks of ``fetch_openml``: one retry, after half a second.  Both
#: parameters exist since scikit-learn 1.1 (the floor is 1.6); n_retries=0 is refused by 1.9.
_OPENML_RETRY = {"n_retries": 1, "delay": 0.5}


def _from_openml(entry, home):
    # Imported here: scikit-learn is slow to import and only the OpenML sets need it.
    from sklearn.datasets import fetch_openml

    name, version = entry.openml
    try:
        with warnings.catch_warnings():
            # "A network error occurred ... Retrying...": the FetchError below says what failed.
            warnings.filterwarnings("ignore", message="A network error occurred", category=UserWarning)
            bunch = fetch_openml(name=name, version=version, as_frame=True, data_home=str(home / "openml"),
                                 **_OPENML_RETRY)
    except (HTTPException, OSError, ValueError) as error:      # URLError, OpenMLError, a bad cache
        hint = _manual_hint([(f"{entry.url} (its ARFF file)", cached_path(entry.name, home))])
        raise FetchError(f"cannot fetch {name!r} (version {version}) from OpenML ({entry.url}): "
                         f"{_describe(error)}; {hint}") from error
    features = bunch.data.copy()
    features.columns = unique_names(features.columns)
    details = getattr(bunch, "details", None) or {}
    return with_response(features, bunch.target.to_numpy()), details


def fetch(name, *, data_home=None, timeout=30.0, refresh=False):
    """Download (once), verify and read one of the papers' data sets.

    Parameters
    ----------
    name : str
        A name from ``fstools.datasets.list(kind="fetchable")``.
    data_home : str or path-like, optional
        The cache folder; default :func:`get_data_home` (``FSTOOLS_DATA``, else the platform's cache
        folder).
    timeout : float, default 30
        Seconds to wait for the server, per connection and per read (OpenML sets: scikit-learn's
        ``fetch_openml`` uses its own, and is asked to retry once).
    refresh : bool, default False
        Download again even when the files are cached (OpenML sets: scikit-learn's cache, and an
        ARFF file put in the cache by hand, are used as they are).

    Returns
    -------
    pandas.DataFrame
        Predictors with snake_case names, then the response: a categorical column ``class``, or
        for a multi-label set one 0/1 column per label.  ``attrs`` holds ``name``, ``source``,
        ``url``, ``licence``, ``citation``, ``sha256`` (the file's digest; for a set read from
        several files, a tuple of their digests in reading order; None for OpenML sets fetched
        through scikit-learn, which verifies them against OpenML's own checksum), ``response``
        (``"class"`` or the list of label columns) and ``note``.

    Raises
    ------
    FetchError
        A file is not cached and cannot be downloaded (or, for an OpenML set, ``fetch_openml``
        fails): the message names the address and the path where to put the file by hand.
    ChecksumError
        A downloaded or cached file's SHA-256 digest differs from the registry's or, when the
        registry has none, from the one recorded at the first download (trust on first use).
    ValueError
        A cached file cannot be read as the set's format; the message names it.

    Notes
    -----
    The Mulan and scikit-feature files have their SHA-256 digest in the registry (see
    ``fstools.datasets.registry``), checked on every read: a file put in the cache by hand
    must be the repository's, byte for byte.  For the other sets, the first download's digest
    (or that of a file first found in the cache) is recorded next to the file
    (``<file>.sha256``) and later reads are checked against it.

    Examples
    --------
    >>> import fstools as fs
    >>> sonar = fs.datasets.fetch("sonar")                             # doctest: +SKIP
    >>> fs.select("class ~ .", sonar, method="cmqfs", k=10)            # doctest: +SKIP
    >>> emotions = fs.datasets.fetch("emotions")                       # doctest: +SKIP
    >>> labels = emotions.attrs["response"]                            # doctest: +SKIP
    >>> fs.select("~ .", emotions.drop(columns=labels), method="elc", k=10,
    ...           response=emotions[labels])                           # doctest: +SKIP
    """
    entry = _entry(name)
    timeout = validate(POSITIVE_NUMBER, timeout, "timeout")
    refresh = validate(BOOLEAN, refresh, "refresh")
    home = get_data_home(data_home)
    details = {}
    digest = None
    if entry.format == "openml" and not cached_path(entry.name, home).exists():
        frame, details = _from_openml(entry, home)
    else:
        paths, digests = _local_files(entry, home, timeout, refresh)
        try:
            frame = _read(entry, paths)
        except (ValueError, OSError, EOFError) as error:
            where, them = (paths[0], "it") if len(paths) == 1 else (" and ".join(map(str, paths)), "them")
            raise ValueError(f"{where}: cannot read {them} as the {entry.format} file{'s' * (them == 'them')} of "
                             f"{entry.name!r}: {error}; if it is not the data set (an error page, a different "
                             f"file), delete it or call fetch({entry.name!r}, refresh=True)") from error
        digest = digests[0] if len(digests) == 1 else tuple(digests)
    labels = list(frame.columns[-entry.n_labels:]) if entry.multilabel else RESPONSE
    frame.attrs.update({"name": entry.name, "source": SOURCES[entry.source], "url": entry.url,
                        "licence": details.get("licence", entry.licence), "citation": entry.citation,
                        "sha256": digest, "response": labels, "note": entry.note})
    return frame

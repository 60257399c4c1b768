"""Out-of-core scoring: a ``dask.array`` or ``dask.dataframe`` larger than memory.

The relevance-only methods score every feature on its own, so they need only statistics
that can be computed per partition (a block of rows) and combined:

* ``fisher``: per partition and class the count, mean, sum of squared deviations (M2),
  minimum and maximum of every column, combined with Chan, Golub and LeVeque's parallel
  update (no sums of squares of raw values, so no cancellation); one pass.
* ``mim`` (``discretization='mu_sigma'``): pass 1 collects per column the count, mean, M2
  (Chan), minimum, maximum, whether every value is an integer and its distinct values (up
  to :data:`fstools.core.discretize.MAX_LEVELS_AS_IS`); pass 2 counts, per partition, the rows
  of each (level, class) pair of every column, with the nine mu/sigma levels of
  :func:`fstools.core.discretize.mu_sigma_levels` (or the values as they are for integer
  columns with at most 32 distinct values, as :func:`fstools.core.discretize.information_codes`);
  the counts are summed and I(X;C) computed from them.
* ``cmqfs`` with ``beta=1.0``: the relevance Q (modularity of each feature's graph,
  Eq. 1-2) and, with beta = 1 in Eq. 13, the ranking by NQ alone.  The graph of a feature
  needs every row of that feature, so Q is computed per *column block*: one block of
  columns (all rows) is loaded at a time, about :data:`COLUMN_BLOCK_BYTES` bytes, and
  the data are read once per column block.  The class codes (4 bytes a row) are held in
  memory.  With CMQFS's default ``beta=0.3`` the redundancy term needs pairs of whole
  columns and is not available out of core.

Every pass runs on Dask's current scheduler: on a ``distributed`` cluster when a
``Client`` exists, else on local threads.  The statistics are combined in a tree, so no
more than a few partitions' statistics are in memory at once.  Results are those of the
in-memory methods on ``.compute()`` of the same data, up to rounding in the last bits
(sums combined in another order); for ``mim`` a value within rounding of a mu/sigma level
boundary could in principle fall in the neighbouring level.

Dask is imported only when these functions are called; fstools works without it.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd

from fstools.core.arrays import default_column_names
from fstools.core.discretize import MAX_LEVELS_AS_IS, MU_SIGMA_LEVELS, MU_SIGMA_EDGES
from fstools.model.exceptions import FormulaError
from fstools.methods.cmqfs import min_max_normalise, modularity_scores
from fstools.methods.information import discretisation_note
from fstools.model.terms import term_scores
from fstools.results.out_of_core_result import OutOfCoreResult
from fstools.core.ranking import TIE_TOLERANCE, rank_features
from fstools.methods.registry import MethodOutput, get_method
from fstools.model.validation import check_k, check_method_params, warn_constant_columns
from fstools.core.parallel import effective_n_threads
from fstools.core.messages import format_count
from fstools.model.formula import missing_predictor_notes, parse_formula

__all__ = ["SUPPORTED_METHODS", "COLUMN_BLOCK_BYTES", "select_dask", "select_dask_array", "is_dask_collection",
           "OutOfCoreResult"]

#: Methods that work on dask input (fisher, mim; cmqfs with beta=1.0: relevance only).
SUPPORTED_METHODS = ("fisher", "mim", "cmqfs")

#: Bytes of one column block (all rows, float64) loaded at a time for CMQFS's relevance.
COLUMN_BLOCK_BYTES = 1 << 27

#: Partition statistics combined per step of the tree reduction.
_SPLIT_EVERY = 8

_ALLOWED = "'fisher', 'mim' (discretization='mu_sigma') or 'cmqfs' with beta=1.0 (relevance only)"


def is_dask_collection(data):
    """True for a dask DataFrame, Series or array (checked without importing dask)."""
    return type(data).__module__.partition(".")[0] in ("dask", "dask_expr")


def _dask():
    try:
        import dask
        import dask.array as da
    except ImportError:  # pragma: no cover - only without dask
        raise ImportError("dask input needs dask: pip install 'fstools[dask]' (dask[array,dataframe], "
                          "distributed)") from None
    return dask, da


# --------------------------------------------------------------------------- per partition
def _labels_of(y):
    """The labels of one partition as a 1-D NumPy array; missing labels refused."""
    y = np.asarray(y).ravel()
    missing = pd.isna(y)
    if np.any(missing):
        raise ValueError(f"y: has {int(np.count_nonzero(missing))} missing value(s); remove them first")
    return y


class ColumnMoments(NamedTuple):
    """Per-column statistics of a set of rows (M2: the sum of squared deviations from the mean)."""

    count: int
    mean: np.ndarray
    m2: np.ndarray
    low: np.ndarray
    high: np.ndarray


def _moments(X):
    """The :class:`ColumnMoments` of the columns of a finite block."""
    n = X.shape[0]
    if n == 0:
        empty = np.zeros(X.shape[1])
        return ColumnMoments(0, empty, empty.copy(), np.full(X.shape[1], np.inf), np.full(X.shape[1], -np.inf))
    mean = X.mean(axis=0)
    deviation = X - mean
    return ColumnMoments(n, mean, np.einsum("ij,ij->j", deviation, deviation), X.min(axis=0), X.max(axis=0))


def _observed_moments(X):
    """The :class:`ColumnMoments` of the observed (not NaN) values of each column of a block:
    ``count`` is then an array, the observed values of each column (na_action='level')."""
    observed = ~np.isnan(X)
    count = observed.sum(axis=0)
    if X.shape[0] == 0:
        empty = np.zeros(X.shape[1])
        return ColumnMoments(count, empty, empty.copy(), np.full(X.shape[1], np.inf), np.full(X.shape[1], -np.inf))
    mean = np.where(observed, X, 0.0).sum(axis=0) / np.maximum(count, 1)
    deviation = np.where(observed, X - mean, 0.0)
    return ColumnMoments(count, mean, np.einsum("ij,ij->j", deviation, deviation),
                         np.where(observed, X, np.inf).min(axis=0), np.where(observed, X, -np.inf).max(axis=0))


def _merge_moments(a, b):
    """Chan, Golub & LeVeque (1979): the moments of the union of two disjoint sets of rows
    (column by column when the counts are arrays, see :func:`_observed_moments`)."""
    if np.ndim(a.count) or np.ndim(b.count):
        n = a.count + b.count
        delta = b.mean - a.mean
        share = np.where(n > 0, b.count / np.maximum(n, 1), 0.0)
        mean = np.where(a.count == 0, b.mean, a.mean + delta * share)
        m2 = a.m2 + b.m2 + np.where((a.count > 0) & (b.count > 0), delta * delta * (a.count * share), 0.0)
        return ColumnMoments(n, mean, m2, np.minimum(a.low, b.low), np.maximum(a.high, b.high))
    if a.count == 0:
        return b
    if b.count == 0:
        return a
    n = a.count + b.count
    delta = b.mean - a.mean
    mean = a.mean + delta * (b.count / n)
    m2 = a.m2 + b.m2 + delta * delta * (a.count * b.count / n)
    return ColumnMoments(n, mean, m2, np.minimum(a.low, b.low), np.maximum(a.high, b.high))


def _partition_statistics(X, y, by_class, value_sets, missing_level=False):
    """Pass 1 on one partition: finiteness, labels, column moments, per-class moments, value sets.

    ``missing_level`` (na_action='level'): NaN is a missing value, counted per column
    (``missing``); the moments and value sets are those of the observed values."""
    X = np.asarray(X, dtype=np.float64)
    y = _labels_of(y)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y: a partition has {y.shape[0]} labels for {X.shape[0]} rows; y must have one label "
                         f"per row of X, in the same partitions")
    missing = np.isnan(X) if missing_level else np.zeros(X.shape, dtype=bool)
    finite = np.isfinite(X) | missing
    bad = ~finite.all(axis=0)
    labels, counts = np.unique(y, return_counts=True)
    statistics = {"n": X.shape[0], "n_nonfinite": int(X.size - np.count_nonzero(finite)),
                  "nonfinite_columns": set(np.flatnonzero(bad).tolist()),
                  "labels": dict(zip(labels.tolist(), counts.tolist()))}
    if statistics["n_nonfinite"]:
        return statistics  # nothing else is meaningful; refused after the pass
    if missing_level:
        statistics["missing"] = missing.sum(axis=0)
    statistics["moments"] = _observed_moments(X) if missing_level else _moments(X)
    if by_class:
        statistics["classes"] = {label: _moments(X[y == label]) for label in labels.tolist()}
    if value_sets:
        integer = np.all((X == np.round(X)) | missing, axis=0)
        values = []
        for j in range(X.shape[1]):
            column_values = np.unique(X[~missing[:, j], j]) if integer[j] else None
            values.append(column_values if column_values is not None and column_values.size <= MAX_LEVELS_AS_IS
                          else None)
        statistics["values"] = values
    return statistics


def _merge_statistics(*parts):
    """Combine the pass-1 statistics of several partitions."""
    merged = parts[0]
    for part in parts[1:]:
        combined = {"n": merged["n"] + part["n"], "n_nonfinite": merged["n_nonfinite"] + part["n_nonfinite"],
                    "nonfinite_columns": merged["nonfinite_columns"] | part["nonfinite_columns"],
                    "labels": dict(merged["labels"])}
        for label, count in part["labels"].items():
            combined["labels"][label] = combined["labels"].get(label, 0) + count
        if combined["n_nonfinite"] == 0:
            combined["moments"] = _merge_moments(merged["moments"], part["moments"])
            if "classes" in merged:
                classes = dict(merged["classes"])
                for label, moments in part["classes"].items():
                    classes[label] = _merge_moments(classes[label], moments) if label in classes else moments
                combined["classes"] = classes
            if "values" in merged:
                combined["values"] = [None if a is None or b is None else _union_or_none(a, b)
                                      for a, b in zip(merged["values"], part["values"])]
            if "missing" in merged:
                combined["missing"] = merged["missing"] + part["missing"]
        merged = combined
    return merged


def _union_or_none(a, b):
    union = np.union1d(a, b)
    return union if union.size <= MAX_LEVELS_AS_IS else None


def _class_codes(y, classes):
    """Codes 0..K-1 of one partition's labels (``classes`` in code order)."""
    return pd.Index(classes).get_indexer(_labels_of(y)).astype(np.int32)


def _level_codes(X, mu, sigma, varying, as_is_values, missing_codes=None):
    """Codes (rows x columns) of one partition: mu/sigma levels 0..8, or the as-is value index.

    The same comparisons as :func:`fstools.core.discretize.mu_sigma_levels` (``mu + t * sigma``,
    values on a boundary in the interval nearer to mu) with the global mu and sigma.  With
    ``missing_codes`` (na_action='level'), a missing value (NaN) of column j gets the code
    ``missing_codes[j]``, one more than the column's levels.
    """
    codes = np.full(X.shape, MU_SIGMA_LEVELS // 2, dtype=np.int64)
    scaled = varying & (sigma > 0)
    if np.any(scaled):
        G = X[:, scaled]
        level = np.zeros(G.shape, dtype=np.int64)
        for t in MU_SIGMA_EDGES:
            level += G > mu[scaled] + t * sigma[scaled]
            level -= G < mu[scaled] - t * sigma[scaled]
        codes[:, scaled] = level + MU_SIGMA_LEVELS // 2
    for j, values in as_is_values.items():
        codes[:, j] = np.searchsorted(values, X[:, j])
    if missing_codes is not None:
        missing = np.isnan(X)
        codes[missing] = np.broadcast_to(missing_codes, X.shape)[missing]
    return codes


def _partition_level_counts(X, y, classes, mu, sigma, varying, as_is_values, n_levels, missing_codes=None):
    """Pass 2 of MIM on one partition: rows per (column, level, class), shape (d, n_levels, K)."""
    X = np.asarray(X, dtype=np.float64)
    y_codes = _class_codes(y, classes)
    codes = _level_codes(X, mu, sigma, varying, as_is_values, missing_codes)
    n_classes = len(classes)
    column = np.arange(X.shape[1], dtype=np.int64)
    cells = (column * n_levels + codes) * n_classes + y_codes[:, None]
    counts = np.bincount(cells.ravel(), minlength=X.shape[1] * n_levels * n_classes)
    return counts.reshape(X.shape[1], n_levels, n_classes)


def _sum_counts(*parts):
    return sum(parts[1:], parts[0])


def _modularity_block(X_block, y_codes, n_classes, n_threads):
    """Q of one column block (all rows)."""
    return modularity_scores(np.asarray(X_block, dtype=np.float64), y_codes, n_classes, n_threads)


# --------------------------------------------------------------------------- combining
def _tree(parts, combine):
    """A dask.delayed tree reduction of ``parts`` by ``combine`` (at most _SPLIT_EVERY at a step)."""
    dask, _ = _dask()
    while len(parts) > 1:
        parts = [dask.delayed(combine)(*parts[i:i + _SPLIT_EVERY]) for i in range(0, len(parts), _SPLIT_EVERY)]
    return parts[0]


def _entropy_from_counts(counts, total):
    """Plug-in entropy (nats) along the last axis from counts."""
    counts = np.asarray(counts, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counts > 0, counts * np.log(np.where(counts > 0, counts, 1.0)), 0.0)
    return np.log(total) - terms.sum(axis=-1) / total


def _fisher_output(statistics, classes, n):
    """The Fisher scores of :func:`fstools.methods.similarity.fisher_scores` from the combined moments."""
    moments = statistics["moments"]
    mean, low, high = moments.mean, moments.low, moments.high
    n_features = mean.shape[0]
    between_ss = np.zeros(n_features)
    within_ss = np.zeros(n_features)
    for label in classes:
        count, class_mean, class_m2, class_low, class_high = statistics["classes"][label]  # ColumnMoments
        class_ss = np.where(class_low == class_high, 0.0, class_m2)  # exactly constant within the class
        within_ss += class_ss
        between_ss += count * (class_mean - mean) ** 2
    constant = low == high
    between_ss[constant] = 0.0
    within_ss[constant] = 0.0
    scores = np.zeros(n_features)
    positive = within_ss > 0
    scores[positive] = between_ss[positive] / within_ss[positive]
    separating = ~positive & (between_ss > 0)
    scores[separating] = np.inf
    ranking = rank_features(scores, last=constant)
    notes = []
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: Fisher score 0/0 defined as 0, ranked last")
    if separating.any():
        notes.append(f"{format_count(int(separating.sum()), 'column')} with zero within-class variance, separating "
                     f"the classes perfectly: Fisher score inf")
    return MethodOutput(ranking=ranking, scores=scores,
                        columns={"fisher": scores, "between_variance": between_ss / n,
                                 "within_variance": within_ss / n}, notes=notes)


def _mim_output(X, y, statistics, classes, k, names):
    """MIM from two passes: global mu/sigma and value sets, then (level, class) counts.

    Under na_action='level' (``statistics['missing']``) the moments and value sets are those of
    the observed values and a missing value is one more level of its column, as
    :func:`fstools.model.terms.missing_level_codes` codes it in memory."""
    dask, da = _dask()
    n = statistics["n"]
    observed, mean, m2, low, high = statistics["moments"]  # ColumnMoments (counts per column under 'level')
    varying = low < high
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        sigma = np.where(observed > 1, np.sqrt(m2 / (np.maximum(observed, 2) - 1)), 0.0)
    if not (np.all(np.isfinite(mean[varying])) and np.all(np.isfinite(sigma[varying]))):
        raise ValueError("X: has values so large that a column's mean or standard deviation overflows; rescale X")
    as_is_values = {j: values for j, values in enumerate(statistics["values"]) if values is not None}
    column_levels = np.full(mean.shape[0], MU_SIGMA_LEVELS, dtype=np.int64)
    for j, values in as_is_values.items():
        column_levels[j] = values.size
    missing_codes, with_missing = None, np.zeros(mean.shape[0], dtype=bool)
    if "missing" in statistics:
        with_missing = statistics["missing"] > 0
        empty = np.flatnonzero(statistics["missing"] == n)
        if empty.size:
            raise ValueError(f"na_action='level': column {names[empty[0]]!r} has no observed value")
        too_many = np.flatnonzero(with_missing & (column_levels + 1 > MAX_LEVELS_AS_IS))
        if too_many.size:
            j = too_many[0]
            raise ValueError(f"na_action='level': column {names[j]!r} would have {int(column_levels[j]) + 1} levels "
                             f"with missing as one, more than the {MAX_LEVELS_AS_IS} the information methods read "
                             f"as levels; drop the rows (na_action='drop')")
        missing_codes = column_levels  # a missing value: the level after the column's own
    n_levels = int(column_levels.max()) + (1 if with_missing.any() else 0)
    parts = [dask.delayed(_partition_level_counts)(block, labels, classes, mean, sigma, varying, as_is_values,
                                                   n_levels, missing_codes)
             for block, labels in _row_blocks(X, y)]
    counts = np.asarray(dask.compute(_tree(parts, _sum_counts))[0], dtype=np.float64)   # (d, L, K)
    class_counts = counts.sum(axis=1)[0]
    level_counts = counts.sum(axis=2)
    joint = counts.reshape(counts.shape[0], -1)
    relevance = (_entropy_from_counts(level_counts, n) + _entropy_from_counts(class_counts, n)
                 - _entropy_from_counts(joint, n))
    ranking = rank_features(relevance, k=k, tolerance=TIE_TOLERANCE)
    n_features = relevance.shape[0]
    step = np.full(n_features, np.nan)
    step[ranking] = np.arange(1, ranking.shape[0] + 1)
    j_column = np.full(n_features, np.nan)
    j_column[ranking] = relevance[ranking]
    # the note of the in-memory path: a column with missing values is coded first (its observed values
    # discretised unless discrete), then read as it is
    discrete = np.zeros(n_features, dtype=bool)
    discrete[list(as_is_values)] = True
    notes = [discretisation_note("mu_sigma", None, discrete | with_missing, with_missing & ~discrete)]
    used_levels = (level_counts > 0).sum(axis=1)
    if np.any(used_levels <= 1):
        notes.append(f"{format_count(int(np.count_nonzero(used_levels <= 1)), 'column')} constant after discretisation: "
                     f"I(X;C) = 0, no special treatment")
    return MethodOutput(ranking=ranking, scores=relevance, columns={"MI": relevance, "step": step, "J": j_column},
                        notes=notes)


def _client_threads():
    """Worker threads of the current distributed Client, or None without one."""
    try:
        from distributed import get_client
        client = get_client()
    except (ImportError, ValueError):
        return None
    return max(1, sum(client.nthreads().values()))


def _cmqfs_relevance_output(X, y, classes, k, n_threads):
    """CMQFS with beta = 1: Q per column block, ranking by NQ (the greedy of Eq. 13 without NRI)."""
    dask, da = _dask()
    n = X.shape[0]
    y_codes = np.ascontiguousarray(
        da.map_blocks(_class_codes, y, classes, dtype=np.int32).compute(), dtype=np.int32)
    n_classes = len(classes)
    width = max(1, COLUMN_BLOCK_BYTES // (8 * max(n, 1)))
    starts = list(range(0, X.shape[1], width))
    cluster_threads = _client_threads()
    at_once = cluster_threads or 1
    block_threads = 1 if cluster_threads else n_threads
    labels = dask.delayed(y_codes)
    q_parts = []
    for group in range(0, len(starts), at_once):
        tasks = [dask.delayed(_modularity_block)(X[:, start:start + width].rechunk({0: -1}), labels, n_classes,
                                                 block_threads)
                 for start in starts[group:group + at_once]]
        q_parts.extend(dask.compute(*tasks))
    q = np.concatenate(q_parts)
    nq = min_max_normalise(q)
    constant = np.isnan(q)
    first = int(rank_features(nq, k=1, tolerance=TIE_TOLERANCE)[0])   # step 1: the largest NQ among every column
    rest_informative = np.flatnonzero(~constant)
    rest_informative = rest_informative[rest_informative != first]
    rest_constant = np.flatnonzero(constant)
    rest_constant = rest_constant[rest_constant != first]
    ranking = np.concatenate([[first], rest_informative[rank_features(nq[rest_informative], tolerance=TIE_TOLERANCE)],
                              rest_constant]).astype(np.intp)
    if k is not None:
        ranking = ranking[:k]
    n_features = q.shape[0]
    step = np.full(n_features, np.nan)
    step[ranking] = np.arange(1, len(ranking) + 1)
    w = np.full(n_features, np.nan)
    w[ranking[1:]] = nq[ranking[1:]]   # step 1 takes the largest NQ alone (w NaN, as in cmqfs)
    notes = [f"relevance only (beta = 1 in Eq. 13: w = NQ), computed out of core in {len(starts)} column "
             f"block(s) of at most {width} column(s)"]
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: no modularity (Q = NaN), NQ = 0")
    return MethodOutput(ranking=ranking, scores=q,
                        columns={"Q": q, "NQ": nq, "step": step, "w": w, "NRI": np.full(n_features, np.nan)},
                        notes=notes)


# --------------------------------------------------------------------------- inputs
def _row_blocks(X, y):
    """(X block, y block) delayed pairs, one per row partition."""
    x_blocks = X.to_delayed()
    y_blocks = y.to_delayed()
    return list(zip(x_blocks[:, 0].tolist(), y_blocks.tolist()))


def _as_dask_inputs(X, y):
    """X as a dask array (rows in partitions, all columns in each) and y as a dask array in the same partitions."""
    dask, da = _dask()
    if not isinstance(X, da.Array):
        raise TypeError(f"X: must be a dask.array.Array (n_samples, n_features); got {type(X).__name__} "
                        f"(use fs.select / fs.FeatureSelector for data in memory)")
    if X.ndim != 2:
        raise ValueError(f"X: must be 2-D (n_samples, n_features); got {X.ndim}-D")
    if any(np.isnan(size) for size in X.shape):
        raise ValueError("X: has unknown partition sizes; call X.compute_chunk_sizes() first")
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
        raise TypeError(f"X: must hold numbers; got dtype {X.dtype}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X: must have at least one row and one column; got shape {X.shape}")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    if isinstance(y, (pd.Series, pd.Index)):
        y = y.to_numpy()
    if not isinstance(y, da.Array):
        if is_dask_collection(y):
            y = y.to_dask_array(lengths=True)
        else:
            y = da.from_array(np.asarray(y), chunks=(X.chunks[0],))
    y = y.ravel() if y.ndim == 2 and 1 in y.shape else y
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y: must be 1-D with one label per row of X ({X.shape[0]}); got shape {y.shape}")
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk((X.chunks[0],))
    return X, y


def _check_method(method, params):
    """The registry spec, the full parameters, refusing methods and settings not available out of core."""
    if not isinstance(method, str):
        raise TypeError(f"method: must be a string; on dask input allowed: {_ALLOWED}")
    spec = get_method(method)
    if spec.name not in SUPPORTED_METHODS:
        raise ValueError(f"method: {method!r} is not available on dask input (it needs all the data in memory); "
                         f"allowed: {_ALLOWED}.  For other methods load the data with .compute() (a pandas "
                         f"DataFrame / NumPy array) and call fs.select")
    values = check_method_params(spec, params)
    if spec.name == "mim" and (values.get("discretization") != "mu_sigma" or values.get("n_bins") is not None):
        raise ValueError(f"discretization: on dask input mim uses 'mu_sigma' only (the other schemes need "
                         f"quantiles of all the data); got {values.get('discretization')!r}.  Use .compute() "
                         f"for the others")
    if spec.name == "cmqfs" and float(values["beta"]) != 1.0:
        raise ValueError(f"beta: on dask input cmqfs ranks by its relevance only, which is beta=1.0 in Eq. 13 "
                         f"(the redundancy term needs pairs of whole columns); got beta={values['beta']!r}.  "
                         f"Pass beta=1.0, or use .compute() for the full method")
    return spec, values


def _warn_constant_columns(statistics, names):
    """The warning of fs.select (api.check_design) for constant columns, from pass 1's minima and maxima."""
    moments = statistics["moments"]
    constant = moments.low == moments.high
    if "missing" in statistics:  # a column with a missing value is not constant (as in memory: NaN != NaN)
        constant &= statistics["missing"] == 0
    warn_constant_columns([names[j] for j in np.flatnonzero(constant)], stacklevel=4)


class _Scored(NamedTuple):
    """What :func:`_score` finds: the method's output and the facts of the data it saw."""

    output: MethodOutput
    k: int
    classes: list
    class_counts: dict
    n: int


def _score(X, y, spec, k, n_jobs, names, missing_level=False):
    """Validate (pass 1) and score; ``missing_level``: NaN is a missing value, a level of its own
    (na_action='level', mim only)."""

    dask, da = _dask()
    n_threads = effective_n_threads(n_jobs)
    k = check_k(k, X.shape[1])
    parts = [dask.delayed(_partition_statistics)(block, labels, spec.name == "fisher", spec.name == "mim",
                                                 missing_level)
             for block, labels in _row_blocks(X, y)]
    statistics = dask.compute(_tree(parts, _merge_statistics))[0]
    if statistics["n_nonfinite"]:
        columns = sorted(statistics["nonfinite_columns"])
        shown = ", ".join(map(str, columns[:10])) + (", ..." if len(columns) > 10 else "")
        if missing_level:
            raise ValueError(f"X: {statistics['n_nonfinite']} infinite value(s) in column(s) {shown}; allowed: "
                             f"finite numbers and missing values (NaN, a level of its own under na_action='level')")
        raise ValueError(f"X: {statistics['n_nonfinite']} non-finite value(s) (NaN or inf) in column(s) {shown}; "
                         f"allowed: finite numbers (drop or impute them first, e.g. with dask's dropna / fillna)")
    labels = statistics["labels"]
    try:
        classes = sorted(labels)
    except TypeError:
        raise TypeError(f"y: labels of mixed types {sorted({type(v).__name__ for v in labels})}; allowed: labels "
                        f"of one type") from None
    if len(classes) < 2:
        raise ValueError(f"y: needs at least two classes; got {len(classes)} ({classes!r})")
    _warn_constant_columns(statistics, names)
    if spec.name == "fisher":
        output = _fisher_output(statistics, classes, statistics["n"])
    elif spec.name == "mim":
        output = _mim_output(X, y, statistics, classes, k, names)
    else:
        output = _cmqfs_relevance_output(X, y, classes, k, n_threads)
    return _Scored(output, k, classes, labels, statistics["n"])


# --------------------------------------------------------------------------- entry points
def select_dask_array(X, y, method="fisher", k=None, *, feature_names=None, n_jobs=None, **params):
    """Score and rank the columns of a dask array out of core (relevance-only methods).

    Parameters
    ----------
    X : dask.array.Array, shape (n_samples, n_features)
        Numbers, partitioned along the rows (column chunks are merged: one partition holds
        whole rows).  Never loaded whole (see the module docstring for what each method
        holds in memory).
    y : dask.array.Array, NumPy array or pandas Series, shape (n_samples,)
        Class labels, one per row of ``X``.
    method : {'fisher', 'mim', 'cmqfs'}
        ``'mim'`` with ``discretization='mu_sigma'`` (the default); ``'cmqfs'`` only with
        ``beta=1.0`` (relevance Q alone; the redundancy term needs whole columns in pairs).
    k : int or None
        Number of features to select; None ranks every feature.
    feature_names : list of str, optional
        Names of the columns (default ``x0``, ``x1``, ...).
    n_jobs : int or None
        Threads of the CMQFS kernel when no ``distributed`` Client runs the work.
    **params
        The method's parameters.

    Returns
    -------
    OutOfCoreResult
        The scores table and the selection, as :func:`fstools.select` reports them; equal to
        the in-memory method on ``X.compute()`` (up to rounding in the last bits).
    """
    spec, values = _check_method(method, params)
    X, y = _as_dask_inputs(X, y)
    if feature_names is None:
        feature_names = list(default_column_names(X.shape[1]))
    feature_names = [str(name) for name in feature_names]
    if len(feature_names) != X.shape[1]:
        raise ValueError(f"feature_names: has {len(feature_names)} names for {X.shape[1]} columns")
    call_parts = ["X", "y", f"method={method!r}"] + ([f"k={k!r}"] if k is not None else [])
    call_parts += [f"{name}={value!r}" for name, value in params.items()]
    return _result(X, y, spec, values, k, n_jobs, feature_names, "y", 0,
                   f"select_dask_array({', '.join(call_parts)})")


def _plain_columns(formula, data):
    """(response, predictors) of a formula whose terms are plain numeric columns of ``data``."""

    # The formula's structure from a two-row stand-in with the columns' dtypes (dask never loads data here).
    stand_in = {}
    for name, dtype in data.dtypes.items():
        if pd.api.types.is_bool_dtype(dtype):
            stand_in[name] = [False, True]
        elif pd.api.types.is_numeric_dtype(dtype):
            stand_in[name] = np.array([1, 2]).astype(dtype)
        else:
            stand_in[name] = ["a", "b"]
    model = parse_formula(formula, pd.DataFrame(stand_in), na_action="raise")
    if len(model.response_names) != 1:
        raise FormulaError(f"formula {formula!r}: on dask input one response; the formula has "
                           f"{len(model.response_names)} ({', '.join(model.response_names)})")
    predictors = list(model.column_names)
    plain = [name for name in predictors if name in data.columns
             and (pd.api.types.is_numeric_dtype(data.dtypes[name]) or pd.api.types.is_bool_dtype(data.dtypes[name]))]
    if plain != predictors or list(model.column_terms) != predictors:
        other = [term for term in dict.fromkeys(model.column_terms) if term not in plain]
        raise FormulaError(f"formula {formula!r}: on dask input every term must be a numeric column of data "
                           f"(no transformations or categorical columns); not one: {', '.join(other)}.  "
                           f"Compute such terms as columns first (e.g. with assign / get_dummies)")
    if not predictors:
        raise FormulaError(f"formula {formula!r}: no predictor")
    return model.response_names[0], predictors


def select_dask(formula, data, method="cmqfs", k=None, *, na_action="drop", n_jobs=None, response=None,
                **params):
    """:func:`fstools.select` for a ``dask.dataframe.DataFrame`` (called by it).

    The formula's terms must be numeric columns (``"y ~ ."``, ``"y ~ a + b"``, ``"y ~ . - c"``);
    rows with missing values in the used columns are dropped (``na_action='drop'``, counted)
    or refused (``'raise'``); for ``mim``, ``'level'`` keeps a missing predictor value as a level
    of its own (only rows with a missing response are dropped), as in memory.  See
    :func:`select_dask_array` for the methods.
    """
    spec, values = _check_method(method, params)
    if response is not None:
        raise TypeError("response: multi-label methods are not available on dask input")
    if not isinstance(formula, str):
        raise TypeError(f"formula: must be a string such as 'class ~ .'; got {type(formula).__name__}")
    allowed = ("drop", "raise") + (("level",) if "level" in spec.missing else ())
    if na_action not in allowed:
        raise ValueError(f"na_action: on dask input method {spec.name!r} takes {', '.join(map(repr, allowed))}; "
                         f"got {na_action!r}")
    if not hasattr(data, "dtypes") or not hasattr(data, "to_dask_array"):
        raise TypeError(f"data: must be a pandas or dask DataFrame; got {type(data).__name__}")
    dask, _ = _dask()
    response_name, predictors = _plain_columns(formula, data)
    used = data[predictors + [response_name]]
    missing_by_column, rows_with_missing = dask.compute(used.isna().sum(), used.isna().any(axis=1).sum())
    n_dropped = int(rows_with_missing)
    if na_action == "level":  # only a missing response drops its row; a missing predictor is a level
        n_dropped = int(missing_by_column[response_name])
        if n_dropped:
            used = used.dropna(subset=[response_name])
    elif n_dropped:
        if na_action == "raise":
            counts = missing_by_column[missing_by_column > 0]
            shown = ", ".join(f"{name} ({int(count)})" for name, count in counts.items())
            raise ValueError(f"data: missing values in {shown}; na_action='raise' refuses them "
                             f"(na_action='drop' drops those rows)")
        used = used.dropna()
    X = used[predictors].astype(np.float64).to_dask_array(lengths=True)
    labels = used[response_name]
    if not (pd.api.types.is_numeric_dtype(labels.dtype) or pd.api.types.is_bool_dtype(labels.dtype)):
        labels = labels.astype(object)  # strings / categories as Python objects in the arrays
    y = labels.to_dask_array(lengths=True)
    parts = [repr(formula), "data", f"method={method!r}"] + ([f"k={k!r}"] if k is not None else [])
    if na_action != "drop":
        parts.append(f"na_action={na_action!r}")
    parts += [f"{name}={value!r}" for name, value in params.items()]
    notes = missing_predictor_notes({name: int(missing_by_column[name]) for name in predictors}) \
        if na_action == "level" else []
    return _result(X, y, spec, values, k, n_jobs, predictors, response_name, n_dropped,
                   f"select({', '.join(parts)})", missing_level=na_action == "level", notes=notes)


def _result(X, y, spec, values, k, n_jobs, names, response_name, n_dropped, call, missing_level=False, notes=()):
    X, y = _as_dask_inputs(X, y)
    scored = _score(X, y, spec, k, n_jobs, names, missing_level)
    scores, selected = term_scores(scored.output, spec, names, list(names), scored.k)
    used = dict(values)
    used["k"] = scored.k
    return OutOfCoreResult(call=call, spec=spec, params=used, scores=scores, selected=selected,
                           response=response_name, classes=[str(c) for c in scored.classes],
                           class_counts=[int(scored.class_counts[c]) for c in scored.classes], n=scored.n,
                           n_dropped=n_dropped, notes=[*notes, *scored.output.notes,
                                                      f"out of core: statistics of {X.numblocks[0]} partition(s) combined"])

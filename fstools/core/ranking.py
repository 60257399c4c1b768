"""The ranking rule of fstools, in one place.

Every method orders features the same way:

1. columns flagged ``last`` (constant columns, as a rule) come after all others;
2. then columns with a NaN score come after those with a number;
3. among numbers, the better score first (higher or lower, as the method says);
4. ties go to the lowest column index.

:func:`rank_features` applies the rule to a whole score vector.  With
``tolerance > 0`` two scores within ``tolerance`` (relative, see
:func:`first_maximum`) of the best remaining one count as tied, so that ties
do not depend on rounding: two criteria equal in exact arithmetic but computed
along different paths may differ in their last bits.  The greedy methods (CMQFS
and the information-theoretic filters) use :data:`TIE_TOLERANCE`; the filters
that compute each score once use exact ties.  :func:`first_maximum` is the same
rule for one greedy step, :func:`complete_ranking` puts the columns a method did
not rank after the ones it did.
"""
import heapq

import numpy as np

__all__ = ["TIE_TOLERANCE", "first_maximum", "rank_features", "complete_ranking", "top_mask"]

#: Values within this relative distance of the maximum count as tied (the
#: lowest column index then wins), so that ties do not depend on rounding.
TIE_TOLERANCE = 1e-12


def _window(best, tolerance):
    """The lowest value tied with ``best``: ``best - tolerance * max(1, |best|)``.

    An infinite ``best`` is tied only with itself (``inf - tolerance * inf`` would be NaN).
    """
    if np.isinf(best):
        return best
    return best - tolerance * max(1.0, abs(best))


def first_maximum(values, tolerance=TIE_TOLERANCE):
    """Index of the first value within ``tolerance`` (relative) of the maximum.

    "Relative" means ``tolerance * max(1, |max|)``, so near zero the tolerance is
    absolute.  With candidates listed in increasing column index, the lowest
    column index wins a tie.
    """
    values = np.asarray(values, dtype=np.float64)
    best = values.max()
    return int(np.flatnonzero(values >= _window(best, tolerance))[0])


def _rank_with_tolerance(values, k, tolerance):
    """The first ``k`` indices of finite ``values`` (larger first) by repeated :func:`first_maximum`.

    O(n log n) rather than O(k n): the values are scanned in decreasing order and
    every value that enters the tolerance window of the current maximum waits in a
    heap ordered by index.
    """
    n = values.shape[0]
    order = np.argsort(-values, kind="stable")  # decreasing; equal values by index
    ordered = values[order]
    if n > 1 and np.isfinite(ordered).all():
        # No value within the tolerance window of the next larger one: every pick is the largest
        # remaining value alone in its window, so the picks are the decreasing order itself.
        windows = ordered[:-1] - tolerance * np.maximum(1.0, np.abs(ordered[:-1]))
        if not (ordered[1:] >= windows).any():
            return order[:k].astype(np.intp)
    taken = np.zeros(n, dtype=bool)
    waiting = []       # heap of indices inside the tolerance window, not yet taken
    entered = 0        # order[:entered] have entered the window
    top = 0            # order[top] is the largest value not yet taken
    ranking = []
    while len(ranking) < k:
        while taken[order[top]]:
            top += 1
        threshold = _window(values[order[top]], tolerance)
        while entered < n and values[order[entered]] >= threshold:
            heapq.heappush(waiting, int(order[entered]))
            entered += 1
        chosen = heapq.heappop(waiting)
        taken[chosen] = True
        ranking.append(chosen)
    return np.asarray(ranking, dtype=np.intp)


def rank_features(scores, *, higher_is_better=True, last=None, k=None, tolerance=0.0, tiebreak=None):
    """Feature indices, best first, by the ranking rule of fstools.

    Parameters
    ----------
    scores : array_like of float, shape (n_features,)
        One score per feature; NaN allowed (ranked after every number).
    higher_is_better : bool, default True
        Whether a larger score is better.
    last : array_like of bool, shape (n_features,), optional
        Features ranked after all others (constant columns, as a rule), among
        themselves by the same rule.
    k : int or None, default None
        How many indices to return; None for all.
    tolerance : float, default 0.0
        Relative tie tolerance (see :func:`first_maximum`); 0 for exact ties.
    tiebreak : array_like of float, shape (n_features,), optional
        A second score (smaller first) that decides exact ties before the column
        index does; only with ``tolerance=0``.

    Returns
    -------
    ndarray of intp, shape (k,)
    """
    scores = np.asarray(scores, dtype=np.float64)
    n = scores.shape[0]
    key = scores if higher_is_better else -scores
    last = np.zeros(n, dtype=bool) if last is None else np.asarray(last, dtype=bool)
    nan = np.isnan(key)
    if tolerance == 0.0:
        keys = [np.arange(n)] + ([] if tiebreak is None else [np.asarray(tiebreak, dtype=np.float64)])
        order = np.lexsort(tuple(keys + [-key, nan, last])).astype(np.intp)
        return order if k is None else order[:k]
    if tiebreak is not None:
        raise ValueError("tiebreak: only with tolerance=0")
    parts = []
    for group_last in (False, True):
        group = np.flatnonzero((last == group_last) & ~nan)
        parts.append(group[_rank_with_tolerance(key[group], group.shape[0], tolerance)])
        parts.append(np.flatnonzero((last == group_last) & nan))
    order = np.concatenate(parts).astype(np.intp)
    return order if k is None else order[:k]


def complete_ranking(ranking, scores, higher_is_better=True):
    """``ranking`` followed by every other feature, ranked by ``scores`` under the same rule."""
    ranking = np.asarray(ranking, dtype=np.intp)
    scores = np.asarray(scores, dtype=np.float64)
    ranked = np.zeros(scores.shape[0], dtype=bool)
    ranked[ranking] = True
    rest = np.flatnonzero(~ranked)  # increasing, as np.setdiff1d (a mask: no sort of a wide ranking)
    return np.concatenate([ranking, rest[rank_features(scores[rest], higher_is_better=higher_is_better)]])


def top_mask(scores, k, *, higher_is_better=True, last=None):
    """Boolean mask of the ``k`` best features under :func:`rank_features`."""
    scores = np.asarray(scores, dtype=np.float64)
    mask = np.zeros(scores.shape[0], dtype=bool)
    mask[rank_features(scores, higher_is_better=higher_is_better, last=last, k=k)] = True
    return mask

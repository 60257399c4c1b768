"""The threshold of the knockoff filter, as R's ``knockoff::knockoff.threshold``.

The knockoff filter gives each feature j a statistic W_j, large and positive when the feature
beats its knockoff copy and symmetric about 0 for a null feature, and selects the features with
W_j >= T.  Barber & Candes (2015), "Controlling the false discovery rate via knockoffs",
The Annals of Statistics 43(5):2055-2085, take the smallest t whose estimated false discovery
proportion is at most the target q::

    knockoff  (Theorem 1, T):   #{j : W_j <= -t}       / max(1, #{j : W_j >= t})  <= q
    knockoff+ (Theorem 2, T+):  (1 + #{j : W_j <= -t}) / max(1, #{j : W_j >= t})  <= q

T controls a modified FDR, E[V / (R + 1/q)]; T+ controls the FDR itself.  ``offset`` is the
number added to the count of negatives: 1 for knockoff+ (the default, as in R), 0 for knockoff.

As R's ``knockoff.threshold`` (knockoff 0.3.6), the candidates t are 0 and the ``|W_j|`` (zeros
included), where the paper takes the nonzero ``|W_j|``; so the threshold can be 0 (then every
W_j >= 0 is selected, zeros included), and it is +inf when no candidate meets the target,
which selects nothing.
"""
import math
import numbers

import numpy as np

from fstools.core.constraints import OPEN_UNIT_INTERVAL, Constraint

__all__ = ["knockoff_threshold"]

_OFFSET = Constraint("0 (knockoff) or 1 (knockoff+)",
                     lambda value: (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
                                    and value in (0, 1)),
                     int)


def knockoff_threshold(W, fdr=0.1, offset=1):
    """The knockoff (offset 0) or knockoff+ (offset 1) threshold for statistics ``W``.

    Parameters
    ----------
    W : array_like of float, 1-D
        The knockoff statistics, one per feature (finite, at least one).
    fdr : float, default 0.1
        The target false discovery rate, in (0, 1).
    offset : {0, 1}, default 1
        1: knockoff+ (Barber & Candes 2015, Theorem 2, threshold T+), which controls the FDR;
        0: knockoff (Theorem 1, threshold T), which controls a modified FDR.

    Returns
    -------
    float
        The smallest t among 0 and the ``|W_j|`` with
        (offset + #{W_j <= -t}) / max(1, #{W_j >= t}) <= fdr, or ``inf`` when there is none
        (R's ``knockoff.threshold``).  The selected features are those with W_j >= threshold.

    Raises
    ------
    ValueError
        For W not a non-empty 1-D array of finite numbers, fdr outside (0, 1) or offset not 0 or 1.

    Examples
    --------
    >>> knockoff_threshold([5, 4, 3, 2, 1, -1], fdr=0.3, offset=1)
    2.0
    >>> knockoff_threshold([1, -1, 2, -2], fdr=0.1)
    inf
    """
    W = _statistics(W)
    fdr = OPEN_UNIT_INTERVAL.validate(fdr, "fdr")
    offset = _OFFSET.validate(offset, "offset")

    candidates = np.sort(np.concatenate(([0.0], np.abs(W))))
    sorted_W = np.sort(W)
    n = len(sorted_W)
    # #{W_j <= -t} and #{W_j >= t} for every candidate t
    negatives = np.searchsorted(sorted_W, -candidates, side="right")
    positives = n - np.searchsorted(sorted_W, candidates, side="left")
    ratios = (offset + negatives) / np.maximum(1, positives)
    reached = np.flatnonzero(ratios <= fdr)
    if len(reached) == 0:
        return math.inf
    return float(candidates[reached[0]])


def _statistics(W):
    """W as a 1-D float array, or a ValueError naming ``W``."""
    try:
        values = np.asarray(W)
    except (TypeError, ValueError) as error:
        raise ValueError(f"W: must be a 1-D array of finite numbers; got {type(W).__name__} ({error})") from None
    if values.dtype == bool or not (np.issubdtype(values.dtype, np.integer)
                                    or np.issubdtype(values.dtype, np.floating)):
        raise ValueError(f"W: must be a 1-D array of finite numbers; got an array of dtype {values.dtype}")
    if values.ndim != 1:
        raise ValueError(f"W: must be a 1-D array of finite numbers; got an array of shape {values.shape}")
    if len(values) == 0:
        raise ValueError("W: must hold at least one statistic; got an empty array")
    values = values.astype(float)
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad) > 0:
        raise ValueError(f"W: must be finite; position(s) {', '.join(map(str, bad[:5].tolist()))} "
                         f"hold {values[bad[0]]!r}{' ...' if len(bad) > 5 else ''}")
    return values

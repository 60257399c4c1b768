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

__all__ = ["knockoff_threshold", "pfer_knockoff_threshold", "pfer_frequency_ratio", "frequency_count", "PFER_ASSUMPTIONS"]

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


def pfer_knockoff_threshold(W, v):
    """The threshold of the knockoff filter that bounds the expected number of false selections.

    Janson & Su (2016), "Familywise error rate control via knockoffs", Electron. J. Stat.
    10:960-975: go down the features by decreasing ``|W_j|`` and stop at the ``v``-th negative
    ``W_j``; the positive ``W_j`` met before it are selected.  A null feature's sign is a fair coin
    independent of ``|W|`` (and of the other signs), so the number of nulls selected is at most a
    negative binomial count with mean ``v``: the per-family error rate (PFER) is at most ``v``.  It
    is the base procedure of the derandomised knockoffs of Ren, Wei & Candes (2023).

    Parameters
    ----------
    W : array_like of float, 1-D
        The knockoff statistics (finite, at least one).
    v : int
        The number of negatives to stop at, at least 1.

    Returns
    -------
    float
        ``T``, the ``|W|`` of the ``v``-th negative statistic, or 0 when fewer than ``v`` are
        negative (then every positive ``W_j`` is selected).  The selected features are those with
        ``W_j > T``; a positive ``W_j`` equal in size to that negative is not selected (a tie
        counts against the feature, where R's ``derandomKnock`` breaks it by column order).

    Raises
    ------
    ValueError
        For W not a non-empty 1-D array of finite numbers, or v not an integer >= 1.

    Examples
    --------
    >>> pfer_knockoff_threshold([5, 4, -3, 2, -1, 0.5], v=1)
    3.0
    >>> pfer_knockoff_threshold([5, 4, -3, 2, -1, 0.5], v=2)
    1.0
    >>> pfer_knockoff_threshold([5, 4, -3], v=2)
    0.0
    """
    W = _statistics(W)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral) or v < 1:
        raise ValueError(f"v: must be an integer >= 1 (the number of negative statistics to stop at); got {v!r}")
    negative_sizes = np.sort(-W[W < 0])[::-1]   # |W| of the negative statistics, largest first
    if len(negative_sizes) < v:
        return 0.0
    return float(negative_sizes[v - 1])


#: The assumptions under which derandomised knockoffs bound the PFER (:func:`pfer_frequency_ratio`).
PFER_ASSUMPTIONS = ("nonincreasing", "none")


def pfer_frequency_ratio(n_draws, eta, assumption="nonincreasing"):
    """The largest ``P(Pi >= eta) / E[Pi]`` of a null feature's selection frequency ``Pi``.

    Derandomised knockoffs (Ren, Wei & Candes 2023, "Derandomizing knockoffs", JASA
    118:948-958) run a base procedure with PFER at most ``v0`` on ``M = n_draws`` knockoff draws
    and select the features whose selection frequency ``Pi_j`` (a multiple of 1/M) is at least
    ``eta``.  Summed over the null features, ``E[Pi_j]`` is the base procedure's PFER, so the
    derandomised PFER is at most ``v0`` times this ratio; ``v0 = pfer / ratio`` gives a PFER of at
    most ``pfer``.

    ``"none"``: Markov's inequality on the grid, ``M / ceil(eta M)`` (at most ``1 / eta``).
    ``"nonincreasing"``: the assumption of Ren, Wei & Candes (the default of their R package
    ``derandomKnock``, its ``beta = 1``) that the distribution of a null ``Pi_j`` on
    ``0, 1/M, ..., 1`` is nonincreasing.  The ratio is then the maximum of a linear program over
    such distributions (their ``get_lp_bnd``); a nonincreasing distribution is a mixture of the
    uniform distributions on ``{0, ..., m} / M``, so the maximum is attained at one of them:
    ``max over m of (m - c + 1) / (m (m + 1) / (2 M))`` with ``c = ceil(eta M)``.

    Parameters
    ----------
    n_draws : int
        ``M``, at least 1.
    eta : float
        The selection frequency, in (0, 1].
    assumption : {'nonincreasing', 'none'}

    Returns
    -------
    float

    Examples
    --------
    >>> pfer_frequency_ratio(31, 0.5)  # derandomKnock's default M = 31, eta = 0.5: v0 = pfer
    1.0
    >>> pfer_frequency_ratio(31, 0.5, assumption="none")
    1.9375
    """
    if isinstance(n_draws, (bool, np.bool_)) or not isinstance(n_draws, numbers.Integral) or n_draws < 1:
        raise ValueError(f"n_draws: must be an integer >= 1; got {n_draws!r}")
    if (isinstance(eta, (bool, np.bool_)) or not isinstance(eta, numbers.Real) or not math.isfinite(eta)
            or not 0 < eta <= 1):
        raise ValueError(f"eta: must be a selection frequency in (0, 1]; got {eta!r}")
    if assumption not in PFER_ASSUMPTIONS:
        raise ValueError(f"assumption: must be one of {', '.join(map(repr, PFER_ASSUMPTIONS))}; got {assumption!r}")
    draws = int(n_draws)
    needed = frequency_count(draws, eta)
    if assumption == "none":
        return draws / needed
    best = 0.0
    for m in range(needed, draws + 1):
        ratio = 2.0 * draws * (m - needed + 1) / (m * (m + 1))
        best = max(best, ratio)
    return best


def frequency_count(n_draws, eta):
    """The number of draws out of ``n_draws`` that a selection frequency of at least ``eta`` needs:
    ``ceil(eta * n_draws)``, a product short of an integer by rounding (1e-9) counted as that integer."""
    return max(1, math.ceil(eta * n_draws - 1e-9))

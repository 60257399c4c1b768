"""The response of a supervised method as the methods take it: class codes or a continuous response.

A method that takes a continuous response (see :data:`fstools.methods.registry.RESPONSE_TYPES`)
is called with ``response_type="continuous"`` and ``y`` finite float64; the helpers here check
such a ``y`` and, for the methods defined on classes (the plug-in information methods), cut it
into levels by the same scheme as the predictors.
"""
import numpy as np

from fstools.core.discretize import information_codes

__all__ = ["check_response_type", "as_continuous_response", "discretised_response"]


def check_response_type(response_type, allowed=("class", "continuous")):
    """Refuse a ``response_type`` outside ``allowed`` with a ValueError naming the allowed values."""
    if not isinstance(response_type, str) or response_type not in allowed:
        raise ValueError(f"response_type: must be one of {', '.join(map(repr, allowed))}; got {response_type!r}")
    return response_type


def as_continuous_response(y, n_samples, name="y", min_samples=2):
    """``y`` as a 1-D float64 array of ``n_samples`` finite values that are not all equal.

    Raises
    ------
    ValueError
        Naming ``y``: wrong shape, non-finite values, fewer than ``min_samples`` samples,
        or a constant response (no feature can be associated with it).
    """
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"{name}: must be 1-D with one value per sample ({n_samples}); got shape {y.shape}")
    if n_samples < min_samples:
        raise ValueError(f"{name}: needs at least {min_samples} samples; got {n_samples}")
    if not np.isfinite(y).all():
        raise ValueError(f"{name}: a continuous response must have finite values (no NaN or inf)")
    if y.max() == y.min():
        raise ValueError(f"{name}: the continuous response is constant; no feature can be associated with it")
    return y


def discretised_response(y, discretization="mu_sigma", n_bins=None):
    """A continuous response cut into levels by the scheme of the predictors.

    :func:`fstools.core.discretize.information_codes` of ``y`` as a one-column matrix: a
    response with integer values and at most
    :data:`fstools.core.discretize.MAX_LEVELS_AS_IS` distinct ones is used as it is (its
    values are its levels), any other one is discretised by ``discretization`` (and
    ``n_bins``), exactly as a predictor column would be -- as praznik and FSelector do.

    Returns
    -------
    codes : ndarray of int32, shape (n_samples,)
        Level codes 0..n_levels-1.
    n_levels : int
        The number of levels used.
    as_is : bool
        Whether ``y`` was used as it is (discrete) rather than discretised.
    """
    codes, levels, as_is = information_codes(np.asarray(y, dtype=np.float64)[:, None],
                                             discretization=discretization, n_bins=n_bins)
    codes = np.ascontiguousarray(codes[0], dtype=np.int32)
    # Only the levels used are kept, renumbered in increasing order (the same partition of the samples).
    used, codes = np.unique(codes, return_inverse=True)
    return np.ascontiguousarray(codes, dtype=np.int32), int(used.shape[0]), bool(as_is[0])

"""Array helpers shared by the methods and the evaluation protocols (NumPy only).

* :func:`as_float_matrix` -- a finite 2-D float64 array, or a ValueError naming ``X``.
* :func:`as_class_codes` -- class codes 0..n_classes-1 with at least two classes.
* :func:`constant_columns` -- which columns hold a single value.
* :func:`standardize_columns` -- the one standardiser: columns centred and scaled to unit
  variance (population or sample sd) or unit length, constant columns set to 0.
"""
import numpy as np

__all__ = ["as_float_matrix", "as_class_codes", "constant_columns", "standardize_columns", "SCALINGS"]

#: What :func:`standardize_columns` scales each centred column to.
SCALINGS = ("variance", "length")


def as_float_matrix(X, name="X"):
    """``X`` as a 2-D float64 array of finite values; ValueError naming ``name`` otherwise."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"{name}: must be 2-D (samples x features); got {X.ndim}-D")
    if not np.isfinite(X).all():
        raise ValueError(f"{name}: non-finite values (NaN or inf); allowed: finite numbers")
    return X


def as_class_codes(y, n_samples, name="y"):
    """``(codes, n_classes, counts)`` of class codes 0..n_classes-1 with at least two classes present."""
    y = np.ascontiguousarray(y, dtype=np.int32)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"{name}: must be 1-D with one class code per sample ({n_samples}); got shape {y.shape}")
    if n_samples and y.min() < 0:
        raise ValueError(f"{name}: class codes must be integers 0..n_classes-1")
    n_classes = int(y.max()) + 1 if n_samples else 0
    counts = np.bincount(y, minlength=n_classes)
    if np.count_nonzero(counts) < 2:
        raise ValueError(f"{name}: needs at least two classes")
    return y, n_classes, counts


def constant_columns(X):
    """Boolean mask of the columns of a 2-D array with a single value (every column of an empty one)."""
    if X.shape[0] == 0:
        return np.ones(X.shape[1], dtype=bool)
    return X.max(axis=0) == X.min(axis=0)   # not np.ptp: max - min may overflow


def standardize_columns(X, *, ddof=0, scaling="variance", reference=None):
    """Columns of ``X`` centred and scaled; constant columns set to 0.

    Parameters
    ----------
    X : ndarray, shape (n, d)
    ddof : {0, 1}, default 0
        With ``scaling="variance"``: divide by the population sd (0, as
        scikit-learn's ``StandardScaler``) or the sample sd (1, as R's ``scale``
        and MATLAB's ``zscore``).
    scaling : {'variance', 'length'}, default 'variance'
        ``'variance'``: unit standard deviation; ``'length'``: unit Euclidean norm.
    reference : ndarray, shape (n_ref, d), optional
        Rows whose mean and scale are used (e.g. the training rows of a fold);
        default ``X`` itself.

    Returns
    -------
    ndarray of float64, shape (n, d), C-contiguous
        A column that is constant in ``reference`` (or whose scale is 0) is
        centred only, and set to exactly 0 when ``reference`` is ``X``.
    """
    if scaling not in SCALINGS:
        raise ValueError(f"scaling: must be one of {', '.join(map(repr, SCALINGS))}; got {scaling!r}")
    X = np.asarray(X, dtype=np.float64)
    own = reference is None
    reference = X if own else np.asarray(reference, dtype=np.float64)
    if reference.shape[0] == 0:
        return np.zeros(X.shape) if own else np.ascontiguousarray(X)
    mean = reference.mean(axis=0)
    centred = reference - mean
    if scaling == "variance":
        scale = np.sqrt(np.einsum("ij,ij->j", centred, centred) / max(reference.shape[0] - ddof, 1))
    else:
        scale = np.sqrt(np.einsum("ij,ij->j", centred, centred))
    constant = constant_columns(reference)
    scale[constant | (scale == 0)] = 1.0
    Z = (centred if own else X - mean) / scale
    if own:
        Z[:, constant] = 0.0
    return np.ascontiguousarray(Z)

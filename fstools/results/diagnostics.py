"""Diagnostics of a selected feature set: how redundant it is, how well it keeps label correlations.

These numbers describe a selection, so the result objects print them; :mod:`fstools.evaluation.metrics`
re-exports them with the evaluation metrics (``fs.metrics.redundancy_rate`` and friends).
"""
import numpy as np

from fstools.methods.multilabel import label_correlation, standardize_features

__all__ = []


# ---- redundancy of a selected feature subset: Tao et al. (2016), Eq. 34 ----
# RED(F) = 1 / (|F| (|F| - 1)) sum_{f_i, f_j in F, i > j} corr_{i,j}, with Pearson's correlation
# (Zhao et al. 2010, the ASU feature selection repository report the DFS paper cites for it).

__all__ += ["redundancy_rate"]

#: Cells of the correlation block computed at once (bounds the memory of redundancy_rate at ~32 MB).
_REDUNDANCY_BLOCK_CELLS = 1 << 22


def _selected_columns(X, selected):
    """The columns of ``X`` named by ``selected`` as a float64 array (n, m)."""
    import pandas as pd

    if isinstance(X, pd.DataFrame):
        if selected is None:
            frame = X
        elif len(selected) and all(isinstance(s, str) for s in selected):
            missing = [s for s in selected if s not in X.columns]
            if missing:
                raise ValueError(f"selected: column(s) {', '.join(map(repr, missing[:5]))} are not in X")
            frame = X.loc[:, list(selected)]
        else:
            frame = X.iloc[:, np.asarray(selected)]
        non_numeric = [str(c) for c, dtype in frame.dtypes.items()
                       if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))]
        if non_numeric:
            raise TypeError(f"X: column(s) {', '.join(non_numeric[:5])} are not numeric; correlations need "
                            f"numbers (use the design columns of categorical features)")
        return frame.to_numpy(dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X: must be 2-D (samples x features); got {X.ndim}-D")
    if selected is None:
        return X
    selected = np.asarray(selected)
    if selected.dtype == bool:
        if selected.shape != (X.shape[1],):
            raise ValueError(f"selected: a boolean mask needs one entry per column ({X.shape[1]}); "
                             f"got shape {selected.shape}")
        return X[:, selected]
    if selected.size and not np.issubdtype(selected.dtype, np.integer):
        raise TypeError(f"selected: must be column indices, a boolean mask or (for a DataFrame) column "
                        f"names; got dtype {selected.dtype}")
    if selected.size and (selected.min() < -X.shape[1] or selected.max() >= X.shape[1]):
        raise ValueError(f"selected: column indices must be in 0..{X.shape[1] - 1}")
    return X[:, selected.astype(np.intp)]


def redundancy_rate(X, selected=None, absolute=True):
    """Redundancy rate RED(F) of a feature subset (Tao et al. 2016, equation 34).

    ``RED(F) = 1 / (|F| (|F| - 1)) sum_{i > j in F} |corr(f_i, f_j)|``, with Pearson's
    correlation over the samples.  The sum runs over the ``|F| (|F| - 1) / 2`` unordered
    pairs but is divided by ``|F| (|F| - 1)``, exactly as printed in the paper (and in
    Zhao et al. 2010): RED is *half* the mean correlation over the pairs, and at most 1/2.
    Multiply by 2 for the mean over pairs.

    Parameters
    ----------
    X : array-like or DataFrame, shape (n_samples, n_features)
        Numeric, finite.
    selected : sequence of int, boolean mask, sequence of column names (DataFrame), or None
        The subset F; None: every column of ``X``.
    absolute : bool, default True
        Use ``|corr|`` (a strong negative correlation is as redundant as a positive one).
        False: the signed correlations, as the formula is printed (positive and negative
        ones then cancel).

    Returns
    -------
    float
        NaN when F has fewer than 2 columns (no pair), or when a column of F is constant
        (its correlation is undefined).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(10.0)
    >>> redundancy_rate(np.column_stack([x, 2 * x, -x]))   # |r| = 1 for all 3 pairs: 3 / (3 * 2)
    0.5
    """
    if not isinstance(absolute, (bool, np.bool_)):
        raise TypeError(f"absolute: must be True or False; got {absolute!r}")
    F = np.ascontiguousarray(_selected_columns(X, selected))  # one memory order: the same sums
    m = F.shape[1]
    if m < 2 or F.shape[0] < 2:
        return float("nan")
    if not np.isfinite(F).all():
        raise ValueError("X: non-finite values (NaN or inf) in the selected columns; allowed: finite numbers")
    if np.any(np.ptp(F, axis=0) == 0):
        return float("nan")
    Z = F - F.mean(axis=0)
    Z /= np.sqrt(np.einsum("ij,ij->j", Z, Z))
    total = 0.0
    step = max(1, _REDUNDANCY_BLOCK_CELLS // m)
    for start in range(0, m, step):
        stop = min(m, start + step)
        block = Z[:, start:stop].T @ Z[:, :stop]              # rows i in start..stop, columns j < stop
        block = np.clip(block, -1.0, 1.0)
        lower = np.arange(start, stop)[:, None] > np.arange(stop)[None, :]   # i > j
        values = block[lower]
        total += float(np.sum(np.abs(values) if absolute else values))
    return total / (m * (m - 1))


# ---- the ELC paper's diagnostics of a selected set F (Wang et al. 2020, section 5.2-5.3) ----

__all__ += ["residual_redundancy", "residual_label_correlation"]


def _feature_label_correlations(F, Y):
    """Pearson correlations (k', l) of the columns of F with the columns of Y; 0 for a constant column."""
    Fc = F - F.mean(axis=0)
    Yc = Y - Y.mean(axis=0)
    f_norm = np.sqrt(np.einsum("ij,ij->j", Fc, Fc))
    y_norm = np.sqrt(np.einsum("ij,ij->j", Yc, Yc))
    numerator = Fc.T @ Yc
    denominator = np.outer(f_norm, y_norm)
    return np.clip(np.divide(numerator, denominator, out=np.zeros_like(numerator), where=denominator > 0),
                   -1.0, 1.0)


def _multilabel_inputs(X, Y, selected):
    F = np.ascontiguousarray(_selected_columns(X, selected))  # one memory order: the same sums
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2 or Y.shape[0] != F.shape[0]:
        raise ValueError(f"Y: must be a label matrix with one row per sample ({F.shape[0]}); got shape {Y.shape}")
    if not (np.isfinite(F).all() and np.isfinite(Y).all()):
        raise ValueError("X, Y: non-finite values (NaN or inf); allowed: finite numbers")
    return F, Y


def residual_redundancy(X, Y, selected=None):
    """Residual feature redundancy R(F) of a selected set (ELC, Wang et al. 2020, equation 16).

    ``R(F) = 1 / (k' (k' - 1) l) sum_{f_i, f_j in F, i != j} sum_c rho(f_i, y_c)^2 rho(f_j, y_c)^2``
    with rho Pearson's correlation, ``k' = |F|`` and l labels.  The sum runs over the ordered pairs
    i != j (the k'(k' - 1) of the normalisation), so R(F) is the mean over pairs and labels of
    the product of the two squared correlations: the label-specific redundancy of Property 2.
    Lower is better (the paper's Fig. 1).

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, d)
    Y : array-like, shape (n, l)
        Label matrix (0/1; any numeric columns are accepted).
    selected : column indices, boolean mask, column names (DataFrame) or None (every column)

    Returns
    -------
    float
        NaN when F has fewer than 2 features.  A constant feature or label has correlation 0
        (0/0 := 0: no linear association).
    """
    F, Y = _multilabel_inputs(X, Y, selected)
    k = F.shape[1]
    if k < 2:
        return float("nan")
    Q = _feature_label_correlations(F, Y) ** 2                  # (k', l)
    total = float(np.sum(Q.sum(axis=0) ** 2 - np.sum(Q * Q, axis=0)))   # sum_c sum_{i != j} Q_ic Q_jc
    return total / (k * (k - 1) * Y.shape[1])


def residual_label_correlation(X, Y, selected=None, S=None, standardize="variance"):
    """Residual label correlation C(F) of a selected set (ELC, Wang et al. 2020, equation 17).

    ``C(F) = 1 / (k' (k' - 1)) || (1/n^2) Y^T X_F X_F^T Y - S ||_F`` (the norm not squared, as
    printed): how much of the label correlation S the selected features do not reproduce.
    Lower is better (the paper's Fig. 2).

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, d)
    Y : array-like, shape (n, l), 0/1
    selected : column indices, boolean mask, column names (DataFrame) or None (every column)
    S : array-like, shape (l, l), optional
        The label correlation of the original data; default the masked RBF of the paper's
        Appendix B (``fstools.methods.multilabel.label_correlation``).
    standardize : {'variance', 'length', 'none'}, default 'variance'
        Scaling of the centred features before the product: unit variance (the scale at which
        ELC compares ``Y^T X_F X_F^T Y / n^2`` with S; see :doc:`/methods/multilabel`),
        unit length (the paper's section 3.2), or the data as given.

    Returns
    -------
    float
        NaN when F has fewer than 2 features (k'(k' - 1) = 0).
    """
    if standardize not in ("variance", "length", "none"):
        raise ValueError(f"standardize: must be one of 'variance', 'length', 'none'; got {standardize!r}")
    F, Y = _multilabel_inputs(X, Y, selected)
    n, k = F.shape
    if S is None:
        S = label_correlation(Y, "rbf")
    S = np.asarray(S, dtype=np.float64)
    if S.shape != (Y.shape[1], Y.shape[1]):
        raise ValueError(f"S: must be {Y.shape[1]} x {Y.shape[1]} (labels x labels); got shape {S.shape}")
    if k < 2:
        return float("nan")
    if standardize != "none":
        F, _ = standardize_features(F, standardize)
    A = Y.T @ F                                                  # l x k'
    M = (A @ A.T) / float(n) ** 2 - S
    return float(np.sqrt(np.sum(M * M))) / (k * (k - 1))

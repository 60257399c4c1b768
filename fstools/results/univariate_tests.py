"""Univariate tests of class separation, one feature at a time.

Used by the summaries: Welch's t test for two classes, one-way ANOVA F for
more, and Pearson's chi-square test of independence for categorical terms;
p-values adjusted by Benjamini-Hochberg over all candidate features.

:func:`adjust_p_values` is fstools' one wrapper of statsmodels' ``multipletests`` (NaN
p-values stay NaN and are not counted), used here and by the paired tests of
:class:`fstools.evaluation.comparison_result.ComparisonResult`.
"""
import warnings

import numpy as np

from fstools.core.constraints import one_of
from fstools.core.lazy import LazyModule

stats = LazyModule("scipy.stats")  # imported at its first use: it takes longer to import than fstools

__all__ = ["class_separation_test", "association_test", "adjust_p_values", "benjamini_hochberg", "P_ADJUST_METHODS"]

#: Multiple-testing corrections accepted by ``p_adjust`` (statsmodels' ``multipletests`` names) and 'none'.
P_ADJUST_METHODS = ("holm", "bonferroni", "sidak", "holm-sidak", "simes-hochberg", "hommel", "fdr_bh", "fdr_by",
                    "fdr_tsbh", "fdr_tsbky", "none")


def _groups(x, y, n_classes):
    return [x[y == c] for c in range(n_classes) if np.any(y == c)]


def class_separation_test(columns, y, n_classes, categorical=False):
    """Test whether a feature separates the classes.

    Parameters
    ----------
    columns : ndarray, shape (n_samples,) or (n_samples, n_columns)
        The feature's design column(s); a term with several columns (a
        categorical predictor) is tested as categorical.
    y : ndarray of int, shape (n_samples,)
        Class codes.
    n_classes : int
    categorical : bool
        Force the chi-square test (e.g. a 0/1 dummy of a categorical predictor).

    Returns
    -------
    dict with ``test`` ('Welch t', 'ANOVA F' or 'chi-square'), ``statistic``,
    ``df`` (a number, or 'df1, df2' for F) and ``p_value``.  Statistic and p-value
    are NaN when the test is undefined (a constant feature, a class with fewer than
    two samples for the t test).
    """
    columns = np.asarray(columns, dtype=np.float64)
    if columns.ndim == 2 and columns.shape[1] == 1:
        columns = columns[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if columns.ndim == 2 or categorical:
            patterns = columns.reshape(len(y), -1)
            _, level = np.unique(patterns, axis=0, return_inverse=True)
            level = level.ravel()
            table = np.zeros((level.max() + 1, n_classes))
            np.add.at(table, (level, y), 1)
            table = table[:, table.sum(axis=0) > 0]
            if table.shape[0] < 2 or table.shape[1] < 2:
                return {"test": "chi-square", "statistic": np.nan, "df": np.nan, "p_value": np.nan}
            chi2, p_value, dof, _ = stats.chi2_contingency(table, correction=False)
            return {"test": "chi-square", "statistic": float(chi2), "df": float(dof), "p_value": float(p_value)}
        groups = _groups(columns, y, n_classes)
        if len(groups) == 2:
            result = stats.ttest_ind(groups[0], groups[1], equal_var=False)
            df = getattr(result, "df", np.nan)
            return {"test": "Welch t", "statistic": float(result.statistic), "df": float(df),
                    "p_value": float(result.pvalue)}
        result = stats.f_oneway(*groups)
        n = len(columns)
        return {"test": "ANOVA F", "statistic": float(result.statistic),
                "df": f"{len(groups) - 1}, {n - len(groups)}", "p_value": float(result.pvalue)}


def association_test(columns, y, categorical=False):
    """Test whether a feature is associated with a continuous response.

    Parameters
    ----------
    columns : ndarray, shape (n_samples,) or (n_samples, n_columns)
        The feature's design column(s); a term with several columns (a categorical
        predictor's dummies) is tested as categorical.
    y : ndarray of float, shape (n_samples,)
        The continuous response.
    categorical : bool
        Force the categorical test (e.g. a 0/1 dummy of a categorical predictor).

    Returns
    -------
    dict with ``test``, ``statistic``, ``df`` ('df1, df2') and ``p_value``:
    ``'regression F'`` for one numeric column, the F test of the slope of the least-squares
    line of ``y`` on the column (scikit-learn's ``f_regression``; F = t^2 of Pearson's
    correlation test), and ``'ANOVA F'`` for a categorical feature, the one-way analysis of
    variance of ``y`` across its levels (scipy's ``f_oneway``).  NaN where undefined (a
    constant feature, a single level).
    """
    columns = np.asarray(columns, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if columns.ndim == 2 and columns.shape[1] == 1:
        columns = columns[:, 0]
    n = len(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if columns.ndim == 2 or categorical:
            patterns = columns.reshape(n, -1)
            _, level = np.unique(patterns, axis=0, return_inverse=True)
            level = level.ravel()
            groups = [y[level == j] for j in range(level.max() + 1)]
            if len(groups) < 2 or n <= len(groups):
                return {"test": "ANOVA F", "statistic": np.nan, "df": np.nan, "p_value": np.nan}
            result = stats.f_oneway(*groups)
            return {"test": "ANOVA F", "statistic": float(result.statistic),
                    "df": f"{len(groups) - 1}, {n - len(groups)}", "p_value": float(result.pvalue)}
        if n < 3 or np.ptp(columns) == 0:
            return {"test": "regression F", "statistic": np.nan, "df": np.nan, "p_value": np.nan}
        r = stats.pearsonr(columns, y).statistic
        df2 = n - 2
        statistic = np.inf if abs(r) == 1 else r * r / (1 - r * r) * df2
        return {"test": "regression F", "statistic": float(statistic), "df": f"1, {df2}",
                "p_value": float(stats.f.sf(statistic, 1, df2))}


def adjust_p_values(p_values, method="holm"):
    """Adjusted p-values by statsmodels' ``multipletests``; NaN entries stay NaN and are not counted.

    Parameters
    ----------
    p_values : array-like of float
    method : str or None
        One of :data:`P_ADJUST_METHODS` (statsmodels' names); 'none' or None: unadjusted.

    Returns
    -------
    ndarray of float64, the shape of ``p_values``
    """
    from statsmodels.stats.multitest import multipletests

    method = one_of(P_ADJUST_METHODS).validate("none" if method is None else method, "p_adjust")
    p_values = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full(p_values.shape, np.nan)
    finite = np.isfinite(p_values)
    if method == "none":
        adjusted[finite] = p_values[finite]
    elif finite.any():
        adjusted[finite] = multipletests(p_values[finite], method=method)[1]
    return adjusted


def benjamini_hochberg(p_values):
    """Benjamini-Hochberg adjusted p-values: ``adjust_p_values(p_values, "fdr_bh")``."""
    return adjust_p_values(p_values, "fdr_bh")

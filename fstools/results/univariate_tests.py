"""Univariate tests of class separation, one feature at a time.

Used by the summaries: Welch's t test for two classes, one-way ANOVA F for
more, and Pearson's chi-square test of independence for categorical terms;
p-values adjusted by Benjamini-Hochberg over all candidate features.
"""
import warnings

import numpy as np
from scipy import stats

__all__ = ["class_separation_test", "benjamini_hochberg"]


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


def benjamini_hochberg(p_values):
    """Benjamini-Hochberg adjusted p-values (statsmodels' ``fdr_bh``); NaN stays NaN."""
    from statsmodels.stats.multitest import multipletests

    p_values = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full_like(p_values, np.nan)
    finite = np.isfinite(p_values)
    if finite.any():
        adjusted[finite] = multipletests(p_values[finite], method="fdr_bh")[1]
    return adjusted

"""Pearson's chi-square statistic of a feature against the class, by hand.

Per feature, the observed class totals O_k (the sum of the feature over class k), the expected
totals E_k = (n_k / n) * total and ``chi2 = sum_k (O_k - E_k)^2 / E_k`` (Pearson 1900, "On the
criterion that a given system of deviations from the probable in the case of a correlated system
of variables is such that it can be reasonably supposed to have arisen from random sampling",
Philosophical Magazine 50; used for feature selection with counts as frequencies by Yang &
Pedersen 1997, "A comparative study on feature selection in text categorization", ICML, section
2.4).  A column with total 0
contributes 0.  Nothing here imports fstools.
"""
import numpy as np


def chi2_ref(X, y):
    """By hand: per feature, observed class totals O_k, expected E_k = (n_k / n) * total, sum (O-E)^2/E."""
    n, p = X.shape
    classes = sorted(set(int(c) for c in y))
    scores = []
    for j in range(p):
        total = sum(float(X[i, j]) for i in range(n))
        statistic = 0.0
        for c in classes:
            rows = [i for i in range(n) if y[i] == c]
            observed = sum(float(X[i, j]) for i in rows)
            expected = len(rows) / n * total
            statistic += (observed - expected) ** 2 / expected if expected > 0 else 0.0
        scores.append(statistic)
    return np.array(scores)


def block_fisher_ref(levels, y):
    """The Fisher score of a factor's block of level indicators, by the scatter matrices.

    The one-hot block Z (n x L, every level a column), its between-class scatter
    ``S_b = sum_k n_k (m_k - m)(m_k - m)^T`` and within-class scatter
    ``S_w = sum_k sum_{i in k} (z_i - m_k)(z_i - m_k)^T``; the score is ``trace(S_b) / trace(S_w)``
    (the trace-ratio form of the Fisher criterion; Light and Margolin 1971 for categorical data).
    """
    values = sorted(set(levels))
    Z = np.array([[1.0 if v == value else 0.0 for value in values] for v in levels])
    y = np.asarray(y)
    mean = Z.mean(axis=0)
    between = np.zeros((len(values), len(values)))
    within = np.zeros_like(between)
    for c in sorted(set(y.tolist())):
        block = Z[y == c]
        centre = block.mean(axis=0)
        between += len(block) * np.outer(centre - mean, centre - mean)
        within += (block - centre).T @ (block - centre)
    return float(np.trace(between) / np.trace(within))

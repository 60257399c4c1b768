"""Information theory and the information-theoretic filters, brute force from the definitions.

* Plug-in entropies: tuples counted with :class:`collections.Counter`, probabilities
  p = n / m, ``H = -sum p log p`` in nats (Shannon 1948, "A Mathematical Theory of
  Communication", section 6; Cover & Thomas 2006, "Elements of Information Theory", 2nd ed.,
  section 2.1).  Mutual information ``I(X;Y) = H(X) + H(Y) - H(X,Y)`` and conditional mutual
  information ``I(X;Y|Z) = H(X,Z) + H(Y,Z) - H(X,Y,Z) - H(Z)`` as sums and differences of those
  entropies (Cover & Thomas, sections 2.4-2.5).
* Nine mean/sd levels of a continuous column: the interval assignment of Zhao, Wu, Chen,
  Zhang & Bai (2015), "Effective feature selection using feature vector graph for
  classification", Neurocomputing 151, section 5.2 (mu +- 0.5 sigma, 1.5 sigma, ...).
* Greedy forward selection by the criteria J(X_k) of MIM (Lewis 1992, "Feature selection
  and feature extraction for text categorization"), MIFS (Battiti 1994, "Using mutual
  information for selecting features in supervised neural net learning", IEEE TNN 5(4), Eq. 6),
  MIFS-U (Kwak & Choi 2002, "Input feature selection for classification problems", IEEE TNN
  13(1)), mRMR (Peng, Long & Ding 2005, "Feature selection based on mutual information:
  criteria of max-dependency, max-relevance, and min-redundancy", IEEE TPAMI 27(8), the MID
  criterion), JMI (Yang & Moody 1999, "Data visualization and feature selection: new
  algorithms for nongaussian data", NIPS 12) and CMIM (Fleuret 2004, "Fast binary feature
  selection with conditional mutual information", JMLR 5), in the common notation of Brown,
  Pocock, Zhao & Lujan (2012), "Conditional likelihood maximisation: a unifying framework for
  information theoretic feature selection", JMLR 13, Table 1.  At every step J is recomputed
  for every candidate over the whole selected set S (no running sums).  The first pick is
  argmax I(X;C); ties go to the lowest column index among the values within 1e-12 (relative,
  at least absolute 1e-12) of the maximum -- the documented rule of fstools.

Nothing here imports fstools.
"""

import math
from collections import Counter

import numpy as np


def entropy_ref(*variables):
    """Plug-in joint entropy (nats) of one or more equally long code sequences."""
    rows = list(zip(*variables))
    m = len(rows)
    return -sum((n / m) * math.log(n / m) for n in Counter(rows).values())


def mutual_information_ref(x, y):
    """I(X;Y) = H(X) + H(Y) - H(X,Y)."""
    return entropy_ref(x) + entropy_ref(y) - entropy_ref(x, y)


def conditional_mutual_information_ref(x, y, z):
    """I(X;Y|Z) = H(X,Z) + H(Y,Z) - H(X,Y,Z) - H(Z)."""
    return entropy_ref(x, z) + entropy_ref(y, z) - entropy_ref(x, y, z) - entropy_ref(z)


def mu_sigma_level_ref(value, mu, sigma):
    """Level -4..4 of one value, straight from the interval definition (CMQFS section 5.2)."""
    if sigma == 0:
        return 0
    if mu - 0.5 * sigma <= value <= mu + 0.5 * sigma:
        return 0
    elif mu + 0.5 * sigma < value <= mu + 1.5 * sigma:
        return 1
    elif mu + 1.5 * sigma < value <= mu + 2.5 * sigma:
        return 2
    elif mu + 2.5 * sigma < value <= mu + 3.5 * sigma:
        return 3
    elif value > mu + 3.5 * sigma:
        return 4
    elif mu - 1.5 * sigma <= value < mu - 0.5 * sigma:
        return -1
    elif mu - 2.5 * sigma <= value < mu - 1.5 * sigma:
        return -2
    elif mu - 3.5 * sigma <= value < mu - 2.5 * sigma:
        return -3
    elif value < mu - 3.5 * sigma:
        return -4
    raise AssertionError(f"value {value} fell through every interval (mu={mu}, sigma={sigma})")


def mu_sigma_levels_ref(X):
    """Nine-level codes (level + 4) of every column of X, shape (n_features, n_samples).

    mu and sigma are the column's sample mean and standard deviation with
    ddof=1, computed with numpy on the column (the estimators are part of the
    definition; what is brute-forced here is the interval assignment).  A
    column whose values are all equal is level 0.  The levels do not change
    when a column is multiplied by a positive number, so a varying column is
    first multiplied (exactly, value by value) by the power of two that brings
    its largest |value| into [0.5, 1), where mu and sigma neither overflow nor
    underflow (columns near 1e308 or of subnormal numbers).
    """
    X = np.asarray(X, dtype=float)
    codes = []
    for j in range(X.shape[1]):
        column = np.ascontiguousarray(X[:, j])
        if all(v == column[0] for v in column):
            mu, sigma = float(column[0]), 0.0
        else:
            exponent = math.frexp(max(abs(float(v)) for v in column))[1]
            column = np.array([math.ldexp(float(v), -exponent) for v in column])
            mu, sigma = float(column.mean()), float(column.std(ddof=1))
        codes.append([mu_sigma_level_ref(float(v), mu, sigma) + 4 for v in column])
    return np.array(codes, dtype=np.int32).reshape(X.shape[1], X.shape[0])


def information_codes_ref(X, max_levels=32):
    """Codes of every column (list of lists, feature-major) for the mu/sigma scheme.

    A column whose values are all integers, with at most ``max_levels``
    distinct values, keeps its values (the sorted distinct values become
    0..L-1); every other column gets its nine-level code (level + 4).
    """
    X = np.asarray(X, dtype=float)
    nine = mu_sigma_levels_ref(X)
    codes = []
    for j in range(X.shape[1]):
        column = [float(v) for v in X[:, j]]
        distinct = sorted(set(column))
        if all(v == math.floor(v) for v in column) and len(distinct) <= max_levels:
            position = {v: i for i, v in enumerate(distinct)}
            codes.append([position[v] for v in column])
        else:
            codes.append([int(v) for v in nine[j]])
    return codes


def information_criterion_ref(method, candidate, selected, y, beta=1.0):
    """J of one candidate code vector given the code vectors of the selected features.

    With S empty every criterion is I(X_k;C) (the first pick of FEAST; for JMI
    the value fstools reports at step 1).
    """
    relevance = mutual_information_ref(candidate, y)
    if not selected or method == "mim":
        return relevance
    if method == "mifs":
        return relevance - beta * sum(mutual_information_ref(candidate, s) for s in selected)
    if method == "mifs_u":
        total = 0.0
        for s in selected:
            h = entropy_ref(s)
            if h > 0:  # a constant selected feature has I(X_k;X_s) = 0: no term
                total += mutual_information_ref(s, y) / h * mutual_information_ref(candidate, s)
        return relevance - beta * total
    if method == "mrmr":
        return relevance - sum(mutual_information_ref(candidate, s) for s in selected) / len(selected)
    if method == "jmi":
        # the pair (X_k, X_s) as one variable whose values are tuples
        return sum(mutual_information_ref(list(zip(candidate, s)), y) for s in selected)
    if method == "cmim":
        return min([relevance] + [conditional_mutual_information_ref(candidate, y, s) for s in selected])
    raise ValueError(method)


def information_selection_ref(codes, y, k, method, beta=1.0):
    """(ranking, J of the chosen feature at each step) of greedy forward selection."""
    codes = [list(map(int, c)) for c in codes]
    y = [int(v) for v in y]
    n_features = len(codes)
    k = n_features if k is None else k
    selected, values = [], []
    while len(selected) < k:
        candidates = [j for j in range(n_features) if j not in selected]
        scores = [information_criterion_ref(method, codes[j], [codes[s] for s in selected], y, beta)
                  for j in candidates]
        best = max(scores)
        tolerance = 1e-12 * max(1.0, abs(best))
        position = min(i for i, v in enumerate(scores) if v >= best - tolerance)
        selected.append(candidates[position])
        values.append(scores[position])
    return selected, values


def codes_with_ties(rng, m, n, max_levels):
    """Random feature-major int8 codes (n features of m samples, 1..max_levels levels each) with the
    cases that break ties in a greedy selection: duplicated columns, relabelled copies (the same
    information under other codes) and constant columns.  Returns (codes, levels)."""
    levels = rng.integers(1, max_levels + 1, n).astype(np.int32)
    codes = (rng.random((n, m)) * levels[:, None]).astype(np.int8)
    for j in rng.choice(n, size=n // 3, replace=False):          # duplicated columns
        source = rng.integers(0, n)
        codes[j], levels[j] = codes[source], levels[source]
    for j in rng.choice(n, size=n // 5, replace=False):          # relabelled copies (same information)
        source = rng.integers(0, n)
        codes[j], levels[j] = levels[source] - 1 - codes[source], levels[source]
    codes[rng.choice(n, size=n // 6, replace=False)] = 0        # constant columns
    return np.ascontiguousarray(codes), levels

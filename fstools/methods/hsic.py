"""HSIC-based selection: BAHSIC, backward elimination by the Hilbert-Schmidt independence criterion.

Song, Smola, Gretton, Borgwardt and Bedo (2007), "Supervised feature selection via
dependence estimation", ICML, 823-830; Song, Smola, Gretton, Bedo and Borgwardt (2012),
"Feature selection via dependence maximization", JMLR 13, 1393-1434.  The DFS paper
(Tao et al. 2016, section VI-C) uses BAHSIC with linear kernels on the data and on the
labels; so does this module.

BAHSIC (Algorithm 1 of Song et al.) starts from all features and repeatedly removes
the features whose removal leaves the largest HSIC between the remaining features and
the labels (10% of them per step, then one at a time); the features removed last are
the best.  HSIC is estimated with the unbiased estimator of Song et al. (2007)
(``UnBiasedHSICFast`` in the authors' code)::

    HSIC_1(K, L) = [tr(K~ L~) + 1'K~1 1'L~1 / ((m-1)(m-2)) - 2/(m-2) 1'K~L~1] / (m(m-3))

with ``K~``, ``L~`` the kernel matrices with their diagonals set to 0 (or, with
``estimator='biased'``, ``tr(K H L H) / (m-1)^2``, Gretton et al. 2005).

With the linear kernel on the data, ``K = sum_j f_j f_j^T`` is a sum over the
features, and both estimators are linear in K: the HSIC of a feature set is the sum
of per-feature contributions ``h_j = HSIC(f_j f_j^T, L)``.  Removing feature j then
leaves ``HSIC(S) - h_j``, so every elimination step removes the remaining features
with the smallest ``h_j``, whatever the fraction removed per step: the BAHSIC ranking
is the order of decreasing ``h_j`` (ties to the lower column index).  It is computed
here in O(n d) from class sums, without the m x m kernel matrices (the tests check it
against the literal backward elimination).

Label kernel: linear, ``L = Y Y^T`` with ``Y_ic = 1 / n_c`` when sample i is in class c
(0 otherwise), the class-size-balanced indicator.  For two classes the authors' code
uses ``y_i = 1/m_+`` or ``-1/m_-`` and ``L = y y^T``; the two kernels differ by terms
of the form ``phi(y_i) + phi(y_j)`` and a positive factor, which neither estimator
sees, so they give the same ranking (tested).  Like the authors' demos and the DFS
paper (section VI-A), the data are standardised by default.

Continuous response (``response_type="continuous"``): the linear kernel on the response,
``L = y y^T`` (standardised with the data), again additive over the features, so the ranking
is by ``h_j = HSIC(f_j f_j^T, y y^T)``, computed in O(n d).

RBF kernels (``kernel="rbf"``): ``k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))`` on the data
and, for a continuous response, on the response, each ``sigma`` by the median heuristic
(``sigma^2`` = the median of the squared distances between distinct samples; Gretton et al.
2005, Song et al. 2012, section 7); classes keep the label kernel above.  HSIC is then no
longer additive and BAHSIC is run literally (Algorithm 1 of Song et al. 2012): while more than
one feature remains, the ``int(0.1 |S|) + 1`` features whose removal leaves the largest HSIC
are removed, the data kernel's ``sigma`` taken from the features remaining at the start of
each step.  That costs O(|S| m^2) per step with m x m kernel matrices: for a few thousand
samples at most.
"""
import numpy as np

from fstools.core.constraints import is_bool
from fstools.core.constraints import Constraint
from fstools.methods.registry import MethodOutput, MethodSpec, Parameter, register
from fstools.core.arrays import as_class_codes, as_float_matrix, constant_columns, scaled_to_unit
from fstools.core.messages import ColumnError, format_count
from fstools.core.ranking import rank_features
from fstools.methods.responses import as_continuous_response, check_response_type

__all__ = ["ESTIMATORS", "KERNELS", "hsic_contributions", "response_contributions", "median_heuristic",
           "rbf_elimination", "bahsic"]

ESTIMATORS = ("unbiased", "biased")

#: Kernels on the data (and on a continuous response).
KERNELS = ("linear", "rbf")


def hsic_contributions(X, y, estimator="unbiased"):
    """Per-feature HSIC ``h_j`` between ``f_j`` (linear kernel) and the labels (balanced linear kernel).

    Parameters
    ----------
    X : ndarray of float64, shape (m, n_features)
    y : ndarray of int, shape (m,)
        Class codes 0..n_classes-1, at least two classes present.
    estimator : {'unbiased', 'biased'}

    Returns
    -------
    ndarray of float64, shape (n_features,)
        ``HSIC(X_S, y) = sum_{j in S} h_j`` for every subset S.  The unbiased estimate can be
        negative.  0 for a constant column.

    Raises
    ------
    ValueError
        Naming the columns whose ``h_j`` is outside the float64 range (it grows with the
        square of the column's scale: beyond about 1e154 it overflows, below about 1e-162
        it underflows to 0).

    Notes
    -----
    ``h_j`` is quadratic in column j: it is computed on each column multiplied by the power
    of two that brings its largest absolute value into [0.5, 1)
    (:func:`fstools.core.arrays.scaled_to_unit`) and scaled back, which is exact (bitwise
    the unscaled arithmetic on ordinary data) and overflows only where ``h_j`` itself does.
    """
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator: must be one of {', '.join(map(repr, ESTIMATORS))}; got {estimator!r}")
    X = as_float_matrix(X)
    y, n_classes, counts = as_class_codes(y, X.shape[0])
    constant = constant_columns(X)
    X, exponent = scaled_to_unit(X)
    m = X.shape[0]
    present = np.flatnonzero(counts)
    weight = np.zeros(n_classes)
    weight[present] = 1.0 / counts[present]          # Y_ic = 1 / n_c
    if estimator == "biased":
        if m < 2:
            raise ValueError(f"X: the biased HSIC needs at least 2 samples; got {m}")
        centred = X - X.mean(axis=0)
        sums = np.zeros((n_classes, X.shape[1]))
        np.add.at(sums, y, centred)                  # (Y^T H f)_c / weight_c
        contributions = np.einsum("c,cj->j", weight ** 2, sums ** 2) / (m - 1) ** 2
    else:
        if m < 4:
            raise ValueError(f"X: the unbiased HSIC needs at least 4 samples (m(m-3) > 0); got {m}")
        sums = np.zeros((n_classes, X.shape[1]))
        squares = np.zeros((n_classes, X.shape[1]))
        np.add.at(sums, y, X)
        np.add.at(squares, y, X * X)
        l_diagonal = weight ** 2                     # L_ii = 1 / n_c^2 for i in class c
        # tr(K~ L~) = sum_{i != j} f_i f_j L_ij = sum_c [ (sum_c f)^2 - sum_c f^2 ] / n_c^2
        trace = np.einsum("c,cj->j", l_diagonal, sums ** 2 - squares)
        total = sums.sum(axis=0)
        total_squares = squares.sum(axis=0)
        k_sum = total ** 2 - total_squares           # 1' K~ 1
        l_sum = float(np.sum(counts[present] * (counts[present] - 1) * l_diagonal[present]))   # 1' L~ 1
        row = (counts - 1) * l_diagonal              # (L~ 1)_i = (n_c - 1) / n_c^2
        # 1' K~ L~ 1 = (sum f)(sum_i f_i r_i) - sum_i f_i^2 r_i, r_i = row[y_i]
        cross = total * np.einsum("c,cj->j", row, sums) - np.einsum("c,cj->j", row, squares)
        contributions = (trace + k_sum * l_sum / ((m - 1) * (m - 2)) - 2.0 * cross / (m - 2)) / (m * (m - 3))
    contributions[constant] = 0.0
    with np.errstate(over="ignore", under="ignore"):
        unscaled = np.ldexp(contributions, 2 * exponent)
    outside = np.flatnonzero(np.isinf(unscaled) | ((unscaled == 0) & (contributions != 0)))
    if outside.size:
        raise ColumnError(f"X: column(s) {{columns}}: the HSIC contribution, which grows with the square of the "
                          f"column's scale (here 2^{int(exponent[outside[0]])}), is outside the float64 range; "
                          "standardise the columns (bahsic's default, scale-invariant) or rescale them", outside)
    return unscaled


def response_contributions(X, g, estimator="unbiased"):
    """Per-feature HSIC ``h_j`` between ``f_j`` (linear kernel) and a continuous response ``g``
    (linear kernel ``L = g g^T``).

    Parameters
    ----------
    X : ndarray of float64, shape (m, n_features)
    g : ndarray of float64, shape (m,)
    estimator : {'unbiased', 'biased'}

    Returns
    -------
    ndarray of float64, shape (n_features,)
        ``HSIC(X_S, g) = sum_{j in S} h_j``; 0 for a constant column.  The biased one is
        ``(f~ . g~)^2 / (m - 1)^2`` (centred vectors); the unbiased one Song et al.'s
        ``HSIC_1`` with ``tr(K~ L~) = (f . g)^2 - sum_i f_i^2 g_i^2``,
        ``1'K~1 = (sum f)^2 - sum f^2`` and
        ``1'K~L~1 = sum_i (f_i sum f - f_i^2)(g_i sum g - g_i^2)``.
    """
    X = as_float_matrix(X)
    constant = constant_columns(X)
    X, exponent = scaled_to_unit(X)
    g, g_exponent = scaled_to_unit(np.asarray(g, dtype=np.float64)[:, None])
    g = g[:, 0]
    m = X.shape[0]
    if estimator == "biased":
        if m < 2:
            raise ValueError(f"X: the biased HSIC needs at least 2 samples; got {m}")
        contributions = ((X - X.mean(axis=0)).T @ (g - g.mean())) ** 2 / (m - 1) ** 2
    else:
        if m < 4:
            raise ValueError(f"X: the unbiased HSIC needs at least 4 samples (m(m-3) > 0); got {m}")
        g2 = g * g
        trace = (X.T @ g) ** 2 - (X * X).T @ g2
        total = X.sum(axis=0)
        k_sum = total ** 2 - (X * X).sum(axis=0)
        l_sum = g.sum() ** 2 - g2.sum()
        l_row = g * g.sum() - g2
        cross = total * (X.T @ l_row) - (X * X).T @ l_row
        contributions = (trace + k_sum * l_sum / ((m - 1) * (m - 2)) - 2.0 * cross / (m - 2)) / (m * (m - 3))
    contributions[constant] = 0.0
    with np.errstate(over="ignore", under="ignore"):
        unscaled = np.ldexp(contributions, 2 * exponent + 2 * int(g_exponent[0]))
    outside = np.flatnonzero(np.isinf(unscaled) | ((unscaled == 0) & (contributions != 0)))
    if outside.size:
        raise ColumnError("X: column(s) {columns}: the HSIC contribution, which grows with the square of the "
                          "column's scale, is outside the float64 range; standardise the columns (bahsic's "
                          "default) or rescale them", outside)
    return unscaled


def median_heuristic(squared_distances):
    """``2 sigma^2`` of the RBF kernel by the median heuristic: twice the median of the squared distances
    between distinct samples (the upper triangle); the mean of the positive ones when that median is 0,
    and 1 when every distance is 0."""
    upper = squared_distances[np.triu_indices(squared_distances.shape[0], 1)]
    middle = float(np.median(upper)) if upper.size else 0.0
    if middle <= 0.0:
        positive = upper[upper > 0]
        middle = float(positive.mean()) if positive.size else 0.5
    return 2.0 * middle


def _squared_distances(column):
    """``(f_i - f_l)^2`` of one column, an m x m matrix."""
    return (column[:, None] - column[None, :]) ** 2


class _HSIC:
    """HSIC of data kernels against one fixed label kernel ``L`` (full m x m matrices)."""

    def __init__(self, L, estimator):
        m = L.shape[0]
        self.m = m
        self.estimator = estimator
        if estimator == "biased":
            H = np.eye(m) - 1.0 / m
            self.centred = H @ L @ H
        else:
            self.L = L.copy()
            np.fill_diagonal(self.L, 0.0)
            self.row = self.L.sum(axis=1)
            self.total = float(self.row.sum())

    def __call__(self, K):
        m = self.m
        if self.estimator == "biased":
            return float(np.sum(K * self.centred)) / (m - 1) ** 2
        K = K.copy()
        np.fill_diagonal(K, 0.0)
        row = K.sum(axis=1)
        return (float(np.sum(K * self.L)) + float(row.sum()) * self.total / ((m - 1) * (m - 2))
                - 2.0 / (m - 2) * float(row @ self.row)) / (m * (m - 3))


def rbf_elimination(X, L, estimator="unbiased", fraction=0.1):
    """BAHSIC by literal backward elimination with an RBF kernel on the data (see the module docstring).

    Parameters
    ----------
    X : ndarray of float64, shape (m, n_features)
    L : ndarray of float64, shape (m, m)
        The response's kernel matrix.
    estimator : {'unbiased', 'biased'}
    fraction : float
        Share removed per step: ``int(fraction |S|) + 1`` features.

    Returns
    -------
    ranking : ndarray of intp
        The elimination order reversed (best first).
    loss : ndarray of float64, shape (n_features,)
        ``HSIC(S) - HSIC(S minus j)`` at the step where j was removed (for the last feature,
        the HSIC of that feature alone).
    step : ndarray of float64, shape (n_features,)
        The elimination step of each feature (1 = first removed).
    """
    hsic = _HSIC(L, estimator)
    m, n_features = X.shape
    total = np.zeros((m, m))
    for j in range(n_features):
        total += _squared_distances(X[:, j])
    remaining = list(range(n_features))
    eliminated = []
    loss = np.zeros(n_features)
    step = np.zeros(n_features)
    number = 0
    while remaining:
        number += 1
        if len(remaining) == 1:
            j = remaining.pop()
            loss[j] = hsic(np.exp(-total / median_heuristic(total))) if total.any() else 0.0
            step[j] = number
            eliminated.append(j)
            break
        width = median_heuristic(total)
        current = hsic(np.exp(-total / width))
        left = np.empty(len(remaining))
        for position, j in enumerate(remaining):
            left[position] = hsic(np.exp(-(total - _squared_distances(X[:, j])) / width))
        count = min(int(fraction * len(remaining)) + 1, len(remaining) - 1)
        # Largest remaining HSIC first; ties to the lower column index (removed first, so ranked lower).
        order = np.lexsort((np.asarray(remaining), -left))[:count]
        batch = [remaining[i] for i in order]
        for i in order:
            loss[remaining[i]] = current - left[i]
        for j in batch:
            step[j] = number
            total -= _squared_distances(X[:, j])
        eliminated.extend(batch)
        remaining = [j for j in remaining if j not in batch]
        np.maximum(total, 0.0, out=total)   # rounding of the subtractions
    return np.asarray(eliminated[::-1], dtype=np.intp), loss, step


def _label_kernel(y):
    """The balanced label kernel ``L = Y Y^T``, ``Y_ic = 1 / n_c`` (the linear kernel's, as a matrix)."""
    counts = np.bincount(y)
    weight = np.zeros(counts.shape[0])
    weight[counts > 0] = 1.0 / counts[counts > 0]
    return np.where(y[:, None] == y[None, :], weight[y][:, None] ** 2, 0.0)


def bahsic(X, y, k=None, n_threads=1, estimator="unbiased", standardize=True, kernel="linear",
           response_type="class"):
    """BAHSIC with linear kernels on the data and the labels (Song et al. 2007, 2012).

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
    y : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.
    k : int or None
        Unused: the elimination order ranks every column (see the module docstring).
    n_threads : int
        Unused (O(n d) NumPy).
    estimator : {'unbiased', 'biased'}, default 'unbiased'
        The unbiased HSIC estimator of Song et al. (2007), used by their BAHSIC code;
        'biased': ``tr(K H L H) / (m - 1)^2``.
    standardize : bool, default True
        Standardise every column first (the authors' demos and the DFS paper, section VI-A).
        The ranking is then invariant to the scale of each column (a column multiplied by
        any number from 1e-300 to 1e300 ranks the same, up to rounding); without it
        ``h_j`` grows with the square of the column's scale.  A continuous response is
        standardised too.
    kernel : {'linear', 'rbf'}, default 'linear'
        Kernel on the data and on a continuous response ('rbf': Gaussian, median heuristic,
        literal backward elimination; see the module docstring).  Classes always take the
        balanced label kernel.
    response_type : {'class', 'continuous'}, default 'class'
        ``y`` class codes (int32) or a continuous response (float64, finite, not constant).

    Returns
    -------
    MethodOutput
        ``scores`` = ``h_j``, the HSIC contribution of each feature (higher is better; the
        unbiased estimate can be negative); column ``hsic``; ``ranking`` = the reverse
        elimination order = decreasing ``h_j``, ties to the lower index, constant columns
        last.
    """
    if not isinstance(estimator, str) or estimator not in ESTIMATORS:
        raise ValueError(f"estimator: must be one of {', '.join(map(repr, ESTIMATORS))}; got {estimator!r}")
    if not isinstance(standardize, (bool, np.bool_)):
        raise ValueError(f"standardize: must be True or False; got {standardize!r}")
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValueError(f"kernel: must be one of {', '.join(map(repr, KERNELS))}; got {kernel!r}")
    check_response_type(response_type)
    X = as_float_matrix(X)
    constant = constant_columns(X)
    if response_type == "continuous":
        y = as_continuous_response(y, X.shape[0])
    if standardize and X.shape[0] > 1:
        # On the columns scaled by powers of two (exact): the same values, no overflow near 1e154.
        X, _ = scaled_to_unit(X)
        X = X - X.mean(axis=0)
        X[:, ~constant] /= X[:, ~constant].std(axis=0, ddof=1)
        if response_type == "continuous":
            y, _ = scaled_to_unit(y[:, None])
            y = y[:, 0] - y.mean()
            y = y / y.std(ddof=1)
    if kernel == "rbf":
        return _rbf_bahsic(X, y, estimator, standardize, response_type, constant)
    if response_type == "continuous":
        contributions = response_contributions(X, y, estimator)
        response_kernel = "on the response (L = y y^T)"
    else:
        contributions = hsic_contributions(X, y, estimator)
        response_kernel = "on the labels (Y_ic = 1/n_c)"
    notes = [f"HSIC ({estimator} estimator) with linear kernels on the data"
             f"{' (standardised, ddof = 1)' if standardize else ''} and {response_kernel}; "
             "HSIC is additive over features, so backward elimination removes the smallest contributions first"]
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'constant column')}: HSIC contribution 0, ranked last")
    return MethodOutput(
        ranking=rank_features(contributions, higher_is_better=True, last=constant),
        scores=contributions,
        columns={"hsic": contributions},
        notes=notes,
    )


def _is_estimator(value):
    return isinstance(value, str) and value in ESTIMATORS


register(MethodSpec(
    name="bahsic",
    description="BAHSIC: backward elimination by HSIC (linear or RBF kernels)",
    function=bahsic,
    parameters=(
        Parameter("estimator", "unbiased", "HSIC estimator: 'unbiased' (Song et al. 2007, as in the "
                  "authors' BAHSIC code) or 'biased' (tr(KHLH)/(m-1)^2)", Constraint("one of 'unbiased', 'biased'",
                  _is_estimator)),
        Parameter("standardize", True, "standardise the columns first (DFS paper, section VI-A)",
                  Constraint("True or False", is_bool, bool)),
        Parameter("kernel", "linear", "kernel on the data and on a continuous response: 'linear' (additive, "
                  "O(n d)) or 'rbf' (Gaussian, median-heuristic width, literal backward elimination; Song et al. "
                  "2012)", Constraint("one of 'linear', 'rbf'", lambda value: isinstance(value, str) and value in KERNELS)),
    ),
    capabilities=frozenset({"supervised", "multiclass"}),
    responses=frozenset({"class", "continuous"}),
    score_name="HSIC contribution",
    higher_is_better=True,
    reference="Song, Smola, Gretton, Borgwardt & Bedo (2007) ICML 823-830; Song et al. (2012) JMLR 13:1393-1434",
    criterion="eliminate argmax_j HSIC(X_{S minus j}, y), K = X_S X_S^T, L = Y Y^T (Y_ic = 1/n_c); "
              "linear kernels: rank by h_j = HSIC(f_j f_j^T, L)",
))


def _rbf_bahsic(X, y, estimator, standardize, response_type, constant):
    """BAHSIC with RBF kernels (see :func:`rbf_elimination`), packaged as a MethodOutput."""
    m = X.shape[0]
    if m < (4 if estimator == "unbiased" else 2):
        raise ValueError(f"X: the {estimator} HSIC needs at least {4 if estimator == 'unbiased' else 2} samples; "
                         f"got {m}")
    if response_type == "continuous":
        distances = _squared_distances(y)
        L = np.exp(-distances / median_heuristic(distances))
        response_kernel = "an RBF kernel on the response (median heuristic)"
    else:
        L = _label_kernel(as_class_codes(y, m)[0])
        response_kernel = "the label kernel (Y_ic = 1/n_c)"
    # Constant columns change no distance: eliminated first (ranked last), the others among themselves.
    varying = np.flatnonzero(~constant)
    order, loss, step = rbf_elimination(X[:, varying], L, estimator)
    n_features = X.shape[1]
    scores = np.zeros(n_features)
    scores[varying] = loss
    steps = np.zeros(n_features)
    n_constant = n_features - varying.size
    steps[varying] = step + (1 if n_constant else 0)
    steps[constant] = 1
    ranking = np.concatenate([varying[order], np.flatnonzero(constant)]).astype(np.intp)
    notes = [f"HSIC ({estimator} estimator) with an RBF kernel on the data"
             f"{' (standardised, ddof = 1)' if standardize else ''}, its width by the median heuristic on the "
             f"features remaining at each step, and {response_kernel}; literal backward elimination "
             "(int(0.1 |S|) + 1 features a step); score = the HSIC lost when the feature was removed"]
    if n_constant:
        notes.append(f"{format_count(n_constant, 'constant column')}: eliminated first, ranked last")
    return MethodOutput(ranking=ranking, scores=scores,
                        columns={"hsic_loss": scores, "eliminated_at": steps}, notes=notes)

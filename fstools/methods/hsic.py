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
"""
import numpy as np

from fstools.core.constraints import is_bool
from fstools.core.constraints import Constraint
from fstools.methods.registry import MethodOutput, MethodSpec, Parameter, register
from fstools.core.arrays import as_class_codes, as_float_matrix, constant_columns, scaled_to_unit
from fstools.core.messages import ColumnError
from fstools.core.ranking import rank_features

__all__ = ["ESTIMATORS", "hsic_contributions", "bahsic"]

ESTIMATORS = ("unbiased", "biased")


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


def bahsic(X, y, k=None, n_threads=1, estimator="unbiased", standardize=True):
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
        ``h_j`` grows with the square of the column's scale.

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
    X = as_float_matrix(X)
    constant = constant_columns(X)
    if standardize and X.shape[0] > 1:
        # On the columns scaled by powers of two (exact): the same values, no overflow near 1e154.
        X, _ = scaled_to_unit(X)
        X = X - X.mean(axis=0)
        X[:, ~constant] /= X[:, ~constant].std(axis=0, ddof=1)
    contributions = hsic_contributions(X, y, estimator)
    notes = [f"HSIC ({estimator} estimator) with linear kernels on the data"
             f"{' (standardised, ddof = 1)' if standardize else ''} and on the labels (Y_ic = 1/n_c); "
             "HSIC is additive over features, so backward elimination removes the smallest contributions first"]
    if constant.any():
        notes.append(f"{int(constant.sum())} constant column(s): HSIC contribution 0, ranked last")
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
    description="BAHSIC: backward elimination by HSIC, linear kernels on data and labels",
    function=bahsic,
    parameters=(
        Parameter("estimator", "unbiased", "HSIC estimator: 'unbiased' (Song et al. 2007, as in the "
                  "authors' BAHSIC code) or 'biased' (tr(KHLH)/(m-1)^2)", Constraint("one of 'unbiased', 'biased'",
                  _is_estimator)),
        Parameter("standardize", True, "standardise the columns first (DFS paper, section VI-A)",
                  Constraint("True or False", is_bool, bool)),
    ),
    capabilities=frozenset({"supervised", "multiclass"}),
    score_name="HSIC contribution",
    higher_is_better=True,
    reference="Song, Smola, Gretton, Borgwardt & Bedo (2007) ICML 823-830; Song et al. (2012) JMLR 13:1393-1434",
    criterion="eliminate argmax_j HSIC(X_{S minus j}, y), K = X_S X_S^T, L = Y Y^T (Y_ic = 1/n_c); "
              "linear kernels: rank by h_j = HSIC(f_j f_j^T, L)",
))

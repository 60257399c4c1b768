"""Greedy information-theoretic filters: MIM, MIFS, MIFS-U, mRMR, JMI, CMIM.

Each method ranks features by forward selection: with ``S`` the features
chosen so far and ``C`` the class, the next feature is the candidate ``X_k``
with the largest criterion ``J(X_k)``::

    method  J(X_k)                                                        reference
    mim     I(X_k;C)                                                      Lewis (1992)
    mifs    I(X_k;C) - beta sum_{j in S} I(X_k;X_j)                       Battiti (1994)
    mifs_u  I(X_k;C) - beta sum_{j in S} [I(X_j;C) / H(X_j)] I(X_k;X_j)   Kwak & Choi (2002)
    mrmr    I(X_k;C) - (1/|S|) sum_{j in S} I(X_k;X_j)                    Peng, Long & Ding (2005)
    jmi     sum_{j in S} I(X_k,X_j;C)                                     Yang & Moody (1999)
    cmim    min(I(X_k;C), min_{j in S} I(X_k;C|X_j))                      Fleuret (2004)

Brown, Pocock, Zhao and Lujan (JMLR 13, 2012) unify these criteria; their
FEAST/MIToolbox C library is the reference implementation the CMQFS paper
used (Zhao et al. 2015, section 5).

Shared rules (all methods)
--------------------------
* The first pick is ``argmax_k I(X_k;C)`` (as FEAST), so step 1 reports
  ``J = I(X_k;C)``; for JMI, whose sum is empty at step 1, J at step 1 is
  defined as I(X_k;C) too.
* Ties (values within the relative tolerance of
  :data:`fstools.core.ranking.TIE_TOLERANCE`) go to the lowest column
  index, as FEAST's strict ``>`` scan over the features in order.
* Exactly ``k`` features are selected (all when ``k`` is None), whatever the
  sign of J; there is no early stop.
* Plug-in (empirical-frequency) estimates on discrete codes, in nats.  FEAST
  uses log base 2; every criterion above is homogeneous of degree one in the
  information quantities (MIFS-U's weight I(X_j;C)/H(X_j) is base-free), so
  changing the base rescales all J by 1/log 2 and leaves the ranking
  unchanged (up to near-ties within the tie tolerance).
* A continuous response (``response_type="continuous"``) is cut into levels by
  the same scheme as the predictors (``discretization``, ``n_bins``): a
  response with integer values and at most
  :data:`fstools.core.discretize.MAX_LEVELS_AS_IS` distinct ones is used as it
  is, any other is discretised (:func:`fstools.methods.responses.discretised_response`),
  as praznik and FSelector do; ``C`` above is then the discretised response.
* MIM can instead estimate I(X_k;C) with k nearest neighbours
  (``estimator="knn"``): Kraskov, Stoegbauer and Grassberger (2004) for a
  continuous response, Ross (2014) for classes, on the undiscretised columns,
  equal to scikit-learn's ``mutual_info_regression`` / ``mutual_info_classif``
  (:mod:`fstools.methods.knn_information`).
* Continuous columns are discretised first: by default with the nine-level
  mean/standard-deviation scheme of the CMQFS paper (section 5.2,
  :func:`fstools.core.discretize.mu_sigma_levels`), or into ``n_bins``
  equal-width / equal-frequency bins.  Columns that are already discrete
  (integer values, at most :data:`fstools.core.discretize.MAX_LEVELS_AS_IS`
  distinct) are used as they are (:func:`fstools.core.discretize.information_codes`).
* A constant column has I(X;C) = 0 and I(X;X_j) = 0 with every feature; it is
  not treated specially, so under MIFS, MIFS-U and mRMR (where J of a
  redundant feature can be negative) it may be chosen before strongly
  redundant features, exactly as the criteria say.

Speed: the per-candidate terms are kept as running sums (running minimum for
CMIM) and updated after each choice by one parallel pass over the remaining
candidates against the feature just chosen
(:func:`fstools._ext._entropy.accumulate_pair_terms`: the terms of
:func:`fstools._ext._entropy.pair_information_terms` folded into the running
values in place), so each step costs O(candidates x samples), and ``k`` steps
O(k n m) for n features and m samples; the only serial work of a step is the
choice of the next feature.  Binary and few-level features are counted on
bit-planes, 64 samples per popcount of ANDed words
(:func:`fstools._ext._bitcount.counting_kernel`, the same results bitwise),
built once per selection (in parallel) for the relevance and every step.
CMIM is evaluated lazily (Fleuret 2004, as FEAST): candidates are taken in
decreasing order of their partial score and brought up to date only while
they can still win the step, usually a small fraction of the candidates.
The discrete columns are found and coded by one kernel pass
(:func:`fstools.core.discretize.information_codes`).

Deliberate differences from the public implementations
------------------------------------------------------
scikit-feature (``skfeature.function.information_theoretical_based``):

* its MIFS uses ``beta = 0.5`` by default; here ``beta = 1.0`` (the CMQFS
  paper's setting and FEAST's default);
* without ``n_selected_features`` its loops (LCSI, CMIM) stop when J < 0
  (CMIM: J <= 0) *after* appending the feature that failed the test; here
  ``k`` is always honoured and there is no stop rule;
* its CMIM score is ``min_j I(X_k;C|X_j)`` (the running maximum of
  ``I(X_j;X_k) - I(X_j;X_k|C)`` starts at -1e7), not capped at I(X_k;C); here
  the FEAST form ``min(I(X_k;C), min_j I(X_k;C|X_j))``;
* its JMI (LCSI with ``beta = gamma = 1/|S|``) scores
  ``(1/|S|) sum_j I(X_k;C|X_j)``, which differs from the plain sum of
  I(X_k,X_j;C) by terms shared by every candidate: same ranking, other J;
* it breaks ties by a strict ``>`` scan in column order (the lowest index,
  as here, but without a tolerance) and expects already discrete input;
  here continuous columns are discretised as above.

FEAST / MIToolbox:

* log base 2 (here nats; same rankings, J values differ by the factor log 2);
* its CMIM uses Fleuret's lazy evaluation of the running minimum, as here
  (:func:`fstools._ext._entropy.lazy_cmim`); the chosen features and their
  scores are those of the eager update (``lazy=False``, the tested reference);
* its JMI starts each step with best score 0.0 and feature 0, so when every
  remaining candidate scores 0 it outputs feature 0 again (even if already
  selected); here each step takes the best *remaining* candidate;
* MIFS-U exists in neither library; it is implemented from Kwak & Choi (2002).
"""

import functools

import numpy as np
from scipy import sparse

from fstools._ext import _bitcount, _class_tables, _common, _entropy, _sorting
from fstools.core.parallel import external_backend, score_features, threads_for_work
from fstools.core.discretize import (MAX_LEVELS_AS_IS, code_dtype, information_codes, information_codes_with_planes,
                                    scheme_levels)
from fstools.core.sparse import (as_canonical_csc, column_levels, discrete_column_mask,
                                 sparse_mutual_information_relevance)
from fstools.core.ranking import TIE_TOLERANCE, first_maximum, rank_features
from fstools.core.constraints import (is_integer_at_least, is_none_or, is_nonnegative_number, is_one_of, is_positive_integer,
                                      is_seed, none_or_int)
from fstools.core.constraints import Constraint
from fstools.core.messages import format_count
from fstools.methods.knn_information import knn_mutual_information
from fstools.methods.registry import MethodOutput, MethodSpec, Parameter, register
from fstools.methods.responses import as_continuous_response, check_response_type, discretised_response

__all__ = ["CRITERIA", "DISCRETIZATIONS", "ESTIMATORS", "greedy_information_selection",
           "mim", "mifs", "mifs_u", "mrmr", "jmi", "cmim"]

#: Discretisation schemes for continuous columns (see :func:`fstools.core.discretize.discretize`).
DISCRETIZATIONS = ("mu_sigma", "equal_width", "equal_frequency")

#: Estimators of I(X_k;C) for MIM: plug-in counts of the discretised columns, or k nearest neighbours.
ESTIMATORS = ("plugin", "knn")

#: The criterion of each method as text (shown in summaries).
CRITERIA = {
    "mim": "J(X_k) = I(X_k;C)",
    "mifs": "J(X_k) = I(X_k;C) - beta sum_{j in S} I(X_k;X_j)",
    "mifs_u": "J(X_k) = I(X_k;C) - beta sum_{j in S} [I(X_j;C) / H(X_j)] I(X_k;X_j)",
    "mrmr": "J(X_k) = I(X_k;C) - (1/|S|) sum_{j in S} I(X_k;X_j)",
    "jmi": "J(X_k) = sum_{j in S} I(X_k,X_j;C)  (step 1: I(X_k;C))",
    "cmim": "J(X_k) = min(I(X_k;C), min_{j in S} I(X_k;C|X_j))",
}

#: Methods whose J subtracts a redundancy term (reported per step).
_PENALISED = ("mifs", "mifs_u", "mrmr")

#: Criteria whose steps count I(X_k;X_j) alone (no class in the pair's table): their pairs are
#: counted on bit-planes for any number of classes (:func:`fstools._ext._bitcount.counting_kernel`).
_CLASS_FREE_PAIRS = ("mifs", "mifs_u", "mrmr")


# ---------------------------------------------------------------------------
# the engine (codes in, ranking out)
# ---------------------------------------------------------------------------

def _mifs_u_weight(relevance, entropy):
    """Kwak & Choi's weight I(X_j;C) / H(X_j) of a selected feature; 0 for a
    constant one (H = 0, and then I(X_k;X_j) = 0 for every X_k anyway)."""
    return relevance / entropy if entropy > 0.0 else 0.0


def _feature_class_information(codes, levels, y, n_classes, n_threads=1, kernel=None):
    """I(X_j;C) of every row of ``codes`` (all features, or one block of them: see score_features),
    on ``kernel`` (the counting kernel built for these codes) or on bit-planes built here where they pay."""
    relevance = np.empty(codes.shape[0], dtype=np.float64)
    if kernel is None:
        kernel = _bitcount.counting_kernel(codes, levels, y, n_classes, n_threads)
    kernel.feature_class_information(codes, levels, y, n_classes, relevance, n_threads)
    return relevance


#: The pair term (column of :func:`fstools._ext._entropy.pair_information_terms`) each greedy
#: criterion accumulates per candidate, and whether as a running minimum (else a sum).
_STEP_TERMS = {"mifs": (0, False), "mifs_u": (0, False), "mrmr": (0, False), "jmi": (1, False), "cmim": (2, True)}


def greedy_information_selection(codes, levels, y, criterion, k=None, n_threads=1, beta=1.0, lazy=True,
                                 binary_planes=None, prepared=None):
    """Greedy forward selection by an information-theoretic criterion, on discrete codes.

    Parameters
    ----------
    codes : ndarray of int8, int16 or int32, shape (n_features, m)
        Feature-major codes, row ``j`` in ``0 .. levels[j]-1`` (as returned by
        :func:`fstools.core.discretize.information_codes`, int8 or int16).  Used
        as they are (no copy when C-contiguous); codes of another integer
        type are converted to the smallest type that holds the levels.
    levels : ndarray of int32, shape (n_features,)
    y : ndarray of int32, shape (m,)
        Class codes 0..n_classes-1.
    criterion : {'mim', 'mifs', 'mifs_u', 'mrmr', 'jmi', 'cmim'}
        See :data:`CRITERIA`.
    k : int or None
        Number of features to select; None ranks all.
    n_threads : int
        Threads of the kernels; the result does not depend on it.
    beta : float >= 0
        Redundancy weight of 'mifs' and 'mifs_u' (ignored by the others).
    lazy : bool, default True
        CMIM only: Fleuret's lazy evaluation (:func:`fstools._ext._entropy.lazy_cmim`,
        ``n_threads`` threads) instead of updating every candidate at every step;
        the same picks and scores.
    binary_planes, prepared : ndarray, optional
        The bit-planes of the binary columns and which they are, from
        :func:`fstools.core.discretize.information_codes_with_planes` with the ``codes``:
        the rows of ``codes`` where ``prepared`` is True are not written yet (they are
        written from the planes, in place, only if something reads them).

    Returns
    -------
    ranking : ndarray of intp, shape (k,)
        Column indices in selection order.
    step_values : dict of str -> ndarray, shape (k,)
        ``J`` (criterion of the chosen feature at its step; step 1: I(X;C)),
        and for mifs, mifs_u and mrmr ``redundancy`` (the subtracted term).
    relevance : ndarray of float64, shape (n_features,)
        I(X_j;C) of every feature.
    """
    if criterion not in CRITERIA:
        raise ValueError(f"criterion: must be one of {', '.join(map(repr, CRITERIA))}; got {criterion!r}")
    levels = np.ascontiguousarray(levels, dtype=np.int32)
    if binary_planes is not None and not (isinstance(codes, np.ndarray) and codes.dtype == np.int8
                                          and codes.flags.c_contiguous and codes.flags.writeable):
        raise ValueError("codes: with binary_planes, must be the writeable C-contiguous int8 codes of "
                         "information_codes_with_planes")
    codes = np.ascontiguousarray(codes)
    if codes.dtype not in _entropy.CODE_DTYPES:
        codes = codes.astype(code_dtype(int(levels.max()) if levels.size else 1))
    y = np.ascontiguousarray(y, dtype=np.int32)
    n_features, m = codes.shape
    n_classes = int(y.max()) + 1
    requested_threads = int(n_threads)
    n_threads = threads_for_work(codes.size, requested_threads)
    k = n_features if k is None else min(int(k), n_features)

    # the bit-planes (where they pay), built once: the relevance and every step count on them
    kernel = _bitcount.counting_kernel(codes, levels, y, n_classes, n_threads, binary_planes, prepared,
                                       pairs_without_class=criterion in _CLASS_FREE_PAIRS)
    if binary_planes is not None and kernel is not _entropy and external_backend() is not None:
        kernel.write_codes()  # blocks of the codes go to joblib tasks
    relevance = score_features(_feature_class_information, codes, n_threads, y, n_classes,
                               feature_axis=0, per_feature=(levels,),  # per feature block under joblib
                               local_block=functools.partial(_feature_class_information, kernel=kernel))
    if criterion == "mim":
        ranking = _top_ranking(relevance, k)
        return ranking, {"J": relevance[ranking].copy()}, relevance
    if criterion == "cmim" and lazy and k > 0:
        ranking = np.empty(k, dtype=np.intp)
        scores = np.empty(k, dtype=np.float64)
        kernel.lazy_cmim(codes, levels, y, n_classes, relevance, k, ranking, scores, TIE_TOLERANCE, n_threads)
        return ranking, {"J": scores}, relevance
    entropies = None
    if criterion == "mifs_u":
        entropies = np.empty(n_features, dtype=np.float64)
        kernel.feature_entropies(codes, levels, entropies, n_threads)

    # running[j]: sum of I(X_j;X_s) (mifs, mrmr), of weighted I(X_j;X_s) (mifs_u),
    # of I(X_j,X_s;C) (jmi) over the selected s, or min of I(X_j;C|X_s) started
    # at I(X_j;C) (cmim).  A chosen feature's I(X;C) in ``gain`` (and, for jmi and
    # cmim, whose J is ``running``, its running value) is set to -inf: it cannot
    # win a later step, and the choice needs no list of the remaining candidates.
    running = relevance.copy() if criterion == "cmim" else np.zeros(n_features, dtype=np.float64)
    gain = relevance.copy()
    term, minimum = _STEP_TERMS[criterion]
    remaining = np.ones(n_features, dtype=bool)
    # J of every feature (mifs, mifs_u, mrmr), rewritten in place at each step
    penalised = np.empty(n_features)
    ranking, step_j, step_redundancy = [], [], []
    for step in range(k):
        # J of every candidate and the pick, the first within TIE_TOLERANCE of the largest (the
        # lowest column index wins ties), in one C pass (_sorting.greedy_first_maximum: the
        # IEEE operations of NumPy's gain - running / |S| and gain - beta * running)
        if step == 0:
            values, mode, factor = gain, _sorting.STEP_RUNNING, 1.0
            source = gain
        elif criterion in ("mifs", "mifs_u"):
            values, mode, factor, source = penalised, _sorting.STEP_SCALED, float(beta), running
        elif criterion == "mrmr":
            values, mode, factor, source = penalised, _sorting.STEP_DIVIDED, float(step), running  # step = |S|
        else:  # jmi, cmim
            values, mode, factor, source = running, _sorting.STEP_RUNNING, 1.0, running
        chosen = _sorting.greedy_first_maximum(gain, source, mode, factor, penalised, TIE_TOLERANCE)
        if chosen < 0:  # a NaN criterion: the NumPy rule, which has no answer for it (IndexError), as before
            chosen = first_maximum(values)
        ranking.append(chosen)
        step_j.append(float(values[chosen]))
        if criterion in _PENALISED:
            # the subtracted term of the chosen feature (step 1: none), as the pass computed it
            if step == 0:
                step_redundancy.append(0.0)
            elif criterion == "mrmr":
                step_redundancy.append(float(running[chosen] / factor))
            else:
                step_redundancy.append(float(factor * running[chosen]))
        remaining[chosen] = False
        gain[chosen] = -np.inf
        if criterion in ("jmi", "cmim"):
            running[chosen] = -np.inf
        if step + 1 == k:
            break
        weight = _mifs_u_weight(relevance[chosen], entropies[chosen]) if criterion == "mifs_u" else 1.0
        # one parallel pass: the pair term of every remaining candidate with the chosen feature,
        # added to (or, for cmim, taken into the minimum of) its running value
        kernel.accumulate_pair_terms(codes, levels, y, n_classes, chosen, remaining.view(np.uint8), running, term,
                                     weight, minimum, threads_for_work((n_features - step - 1) * m,
                                                                       requested_threads, greedy_step=True))

    step_values = {"J": np.asarray(step_j, dtype=np.float64)}
    if criterion in _PENALISED:
        step_values["redundancy"] = np.asarray(step_redundancy, dtype=np.float64)
    return np.asarray(ranking, dtype=np.intp), step_values, relevance


# ---------------------------------------------------------------------------
# the methods (X in, MethodOutput out)
# ---------------------------------------------------------------------------

def _check_discretization(discretization, n_bins):
    if not isinstance(discretization, str) or discretization not in DISCRETIZATIONS:
        raise ValueError(f"discretization: must be one of {', '.join(map(repr, DISCRETIZATIONS))}; "
                         f"got {discretization!r}")
    if discretization == "mu_sigma":
        if n_bins is not None:
            raise ValueError(f"n_bins: only used with discretization='equal_width' or 'equal_frequency'; "
                             f"got n_bins={n_bins!r} with discretization='mu_sigma'")
    elif n_bins is None:
        raise ValueError(f"n_bins: required by discretization={discretization!r} (an integer >= 2); "
                         "got None")
    elif not is_none_or(is_integer_at_least(2))(n_bins):
        raise ValueError(f"n_bins: must be None or an integer >= 2; got {n_bins!r}")


def discretisation_note(discretization, n_bins, as_is, na_level_discretised=None):
    """The note naming the discretisation: the scheme, and how many columns it cut (``~as_is``) and
    how many were used as they are (``as_is``).  The columns of ``na_level_discretised`` (see the
    methods' parameter) are counted as continuous: their codes, read as they are, are the scheme's
    bins of their observed values."""
    as_is = np.asarray(as_is, dtype=bool)
    coded = np.zeros(as_is.shape, dtype=bool)
    if na_level_discretised is not None:
        coded = np.asarray(na_level_discretised)
        if coded.dtype != np.bool_ or coded.shape != as_is.shape:
            raise ValueError(f"na_level_discretised: must be a boolean array with one entry per column of X "
                             f"({as_is.size}); got {coded.dtype} of shape {coded.shape}")
    n_coded = int(np.count_nonzero(coded & as_is))
    n_as_is = int(np.count_nonzero(as_is)) - n_coded
    n_continuous = as_is.size - n_as_is
    if discretization == "mu_sigma":
        scheme = ("'mu_sigma' (nine levels at mean +- 0.5, 1.5, 2.5, 3.5 sd; Zhao et al. 2015, "
                  "section 5.2)")
    else:
        scheme = f"{discretization!r} with n_bins = {n_bins}"
    missing = (f" ({n_coded} of them on their observed values, missing as one more level: na_action='level')"
               if n_coded else "")
    return (f"discretisation: {scheme} for {format_count(int(n_continuous), 'continuous column')}{missing}; "
            f"{format_count(int(n_as_is), 'discrete column')} (integer values, at most {MAX_LEVELS_AS_IS} distinct) "
            f"used as they are; information in nats")


def _check_has_samples(X, criterion):
    """Refuse an X without rows (dense or sparse) with a ValueError naming X."""
    shape = np.shape(X)
    if len(shape) != 2 or shape[0] == 0:
        raise ValueError(f"X: has no samples (shape {tuple(shape)}); {criterion} needs a 2-D array "
                         "with at least one sample (row)")


def _response_codes(y, n_samples, response_type, discretization, n_bins):
    """Class codes of the response (a continuous one discretised as the predictors), and the note
    saying how a continuous one was cut (None for classes)."""
    check_response_type(response_type)
    if response_type == "class":
        return np.ascontiguousarray(y, dtype=np.int32), None
    y = as_continuous_response(y, n_samples)
    codes, n_levels, as_is = discretised_response(y, discretization, n_bins)
    if as_is:
        how = f"used as it is ({n_levels} distinct integer values)"
    elif discretization == "mu_sigma":
        how = f"discretised by 'mu_sigma' as the predictors ({n_levels} of its nine levels used)"
    else:
        how = f"discretised by {discretization!r} with n_bins = {n_bins} as the predictors ({n_levels} levels used)"
    return codes, f"continuous response {how}: C in the criterion is the discretised response"


def _information_method(criterion, X, y, k, n_threads, discretization, n_bins, beta=1.0, response_type="class",
                        na_level_discretised=None):
    """Discretise, select, and package the result of one criterion."""
    _check_has_samples(X, criterion)
    _check_discretization(discretization, n_bins)
    if not is_nonnegative_number(beta):
        raise ValueError(f"beta: must be a number >= 0; got {beta!r}")
    y, response_note = _response_codes(y, np.shape(X)[0], response_type, discretization, n_bins)
    n_classes = int(y.max()) + 1
    if np.count_nonzero(np.bincount(y, minlength=n_classes)) < 2:
        raise ValueError(f"y: {criterion} needs at least two classes (with one class I(X;C) = 0 for "
                         "every feature and the ranking would be arbitrary)")
    if criterion == "mim":  # I(X_j;C) alone: counted from the values where they allow it (no codes)
        # per block of columns under a joblib backend (a Dask cluster), else one call
        relevance, levels, as_is, constant = score_features(_mim_relevance, np.asarray(X), int(n_threads), y,
                                                            n_classes, discretization, n_bins)
        ranking = _top_ranking(relevance, relevance.shape[0] if k is None else min(int(k), relevance.shape[0]))
        step_values = {"J": relevance[ranking].copy()}
    else:
        # the binary columns as bit-planes (their codes rows written only if something reads them), and
        # the discretised ones too where their pairs are counted on planes (jmi, cmim with three
        # classes or more: not; the counting kernel would write their codes back beside the planes)
        codes, levels, as_is, planes, prepared = information_codes_with_planes(
            X, discretization=discretization, n_bins=n_bins, n_threads=threads_for_work(np.size(X), int(n_threads)),
            discretised_planes=_bitcount.pairs_on_planes(scheme_levels(discretization, n_bins), n_classes,
                                                         criterion in _CLASS_FREE_PAIRS))
        ranking, step_values, relevance = greedy_information_selection(
            codes, levels, y, criterion, k=k, n_threads=n_threads, beta=float(beta), binary_planes=planes,
            prepared=prepared)
        constant = _constant_codes(codes, levels, as_is, planes, prepared)  # (reads the discretised ones only)

    output = information_output(ranking, step_values, relevance,
                                discretisation_note(discretization, n_bins, as_is, na_level_discretised), constant)
    output.constant_columns = _constant_columns(X, constant, as_is)
    if response_note:
        output.notes.insert(1, response_note)
    return output


def _mim_relevance(X, y, n_classes, discretization, n_bins, n_threads=1):
    """I(X_j;C) of every column for MIM, with (levels, as_is, constant) as the code path gives them.

    The columns of small non-negative integers (0..63, at most MAX_LEVELS_AS_IS values) are
    counted straight from X in one read
    (:func:`fstools._ext._class_tables.discrete_class_information`, bit for bit the information of
    their codes); the others, and the blocks of a row-major X whose columns all look binary (0/1
    columns are counted faster on bit-planes written straight from X), go through
    :func:`fstools.core.discretize.information_codes_with_planes` and the counting kernels, as for
    every other criterion.
    """
    array = np.asarray(X)
    n_threads = threads_for_work(array.size, int(n_threads))
    n_features = array.shape[1] if array.ndim == 2 else 0
    relevance = np.zeros(n_features, dtype=np.float64)
    levels = np.zeros(n_features, dtype=np.int32)
    status = np.zeros(n_features, dtype=np.int8)
    # Counting straight from X beats coding the columns and counting the codes in either layout
    # (one thread, CPU time): 10 levels, 2,000 x 500, 1.6 ms against 3.3 row-major and 1.6 ms
    # against 3.4 column-major (a DataFrame's layout); binary Dorothea-like 800 x 100,000
    # column-major, 150 ms against 171.  Row-major binary blocks are left by the kernel to the
    # bit-planes written straight from X (Dorothea-like: 107 ms against 180).
    if (array.ndim == 2 and array.shape[0] > 1 and array.dtype in _common.VALUE_DTYPES
            and array.shape[0] < 2 ** 31 - 1 and n_classes <= 1024 and n_features > 0):
        _class_tables.discrete_class_information(array, y, n_classes, MAX_LEVELS_AS_IS, relevance, levels, status,
                                                 n_threads)
    counted = status == _class_tables.COLUMN_COUNTED
    as_is, constant = counted.copy(), counted & (levels <= 1)
    left = np.flatnonzero(~counted)
    if left.size:
        try:
            # the binary columns as bit-planes (their codes rows written only if something reads them)
            codes, left_levels, left_as_is, planes, prepared = information_codes_with_planes(
                array if left.size == n_features else array[:, left], discretization=discretization, n_bins=n_bins,
                n_threads=n_threads, discretised_planes=False)
        except ValueError:
            if left.size == n_features:
                raise
            information_codes(array, discretization=discretization, n_bins=n_bins)  # the error of X itself
            raise
        # I(X_j;C) alone: the byte codes are counted in one read (1,000,000 x 50, 9 levels: 0.045 s),
        # where bit-planes would first be built from them (0.12-0.14 s, and 12.5 % of a float64 X
        # beside the codes); only planes written straight from X (binary columns) are counted as
        # they are.  The same values bitwise either way.
        kernel = (_entropy if planes is None
                  else _bitcount.counting_kernel(codes, left_levels, y, n_classes, n_threads, planes, prepared))
        relevance[left] = _feature_class_information(codes, left_levels, y, n_classes, n_threads, kernel=kernel)
        levels[left], as_is[left] = left_levels, left_as_is
        constant[left] = _constant_codes(codes, left_levels, left_as_is, planes, prepared)
    return relevance, levels, as_is, constant


#: Bytes of codes copied at a time by :func:`_constant_codes`.
CONSTANT_CHECK_BYTES = 1 << 22


def _constant_codes(codes, levels, as_is, planes=None, prepared=None):
    """Mask of the features with one code: a column used as it is has every level used
    (one level means constant); the discretised ones are looked at: their codes, or for those
    delivered as bit-planes (``prepared``, from
    :func:`fstools.core.discretize.information_codes_with_planes`) their planes."""
    constant = levels <= 1
    discretised = np.flatnonzero(~as_is)
    if prepared is not None and planes is not None:
        on_planes = discretised[prepared[discretised]]
        constant[on_planes] = _bitcount.single_level_features(planes, _bitcount.plane_rows(levels)[0], levels,
                                                              codes.shape[1], on_planes)
        discretised = discretised[~prepared[discretised]]
    # the discretised rows a few MB at a time: a copy of all of them was 12.5 % of a float64 X
    rows_per_block = max(1, CONSTANT_CHECK_BYTES // max(1, codes.shape[1] * codes.itemsize))
    for start in range(0, discretised.size, rows_per_block):
        rows = discretised[start:start + rows_per_block]
        block = codes[rows]
        constant[rows] = block.max(axis=1) == block.min(axis=1)
    return constant


def _constant_columns(X, constant_codes, as_is):
    """The columns of ``X`` with a single value, from the columns with a single code: a column used
    as it is has one code exactly when it has one value; a discretised one with one code (a
    constant column always has) is looked at, since a scheme may put different values in one bin."""
    constant = constant_codes.copy()
    suspects = np.flatnonzero(constant_codes & ~as_is)
    if suspects.size:
        constant[suspects] = np.ptp(np.asarray(X)[:, suspects], axis=0) == 0
    return constant


def _top_ranking(scores, k):
    """``rank_features(scores, k=k, tolerance=TIE_TOLERANCE)`` for finite ``scores``,
    looking only at the scores that can be among the first ``k``.

    Repeated :func:`first_maximum` picks, at each of the first ``k`` steps, a
    score within the tolerance window of the largest remaining one, which is
    at least the k-th largest score; so every pick is at least the window of
    the k-th largest, and ranking that subset (in column order) gives the same
    first ``k`` indices.
    """
    n = scores.shape[0]
    if k >= n or k < 1:
        return rank_features(scores, k=k, tolerance=TIE_TOLERANCE)
    kth = np.partition(scores, n - k)[n - k]
    window = kth - TIE_TOLERANCE * max(1.0, abs(kth))
    subset = np.flatnonzero(scores >= window)
    return subset[rank_features(scores[subset], k=k, tolerance=TIE_TOLERANCE)]


def information_output(ranking, step_values, relevance, discretisation_note, constant):
    """The :class:`MethodOutput` of an information-theoretic method (dense or sparse input).

    ``step_values`` holds ``J`` (and ``redundancy`` for the penalised criteria) per step,
    ``relevance`` I(X_j;C) of every feature, ``constant`` the columns with one code.
    """
    n_features = relevance.shape[0]
    step = np.full(n_features, np.nan)
    step[ranking] = np.arange(1, ranking.shape[0] + 1)
    j_column = np.full(n_features, np.nan)
    j_column[ranking] = step_values["J"]
    steps = {"feature": ranking, "J": step_values["J"], "MI": relevance[ranking]}
    if "redundancy" in step_values:
        steps["redundancy"] = step_values["redundancy"]
    notes = [discretisation_note]
    if constant.any():
        notes.append(f"{format_count(int(constant.sum()), 'column')} constant after discretisation: I(X;C) = 0, "
                     "no special treatment")
    return MethodOutput(
        ranking=ranking,
        scores=relevance,
        columns={"MI": relevance, "step": step, "J": j_column},
        steps=steps,
        notes=notes,
    )


def sparse_mim(X, y, k=None, n_threads=1, discretization="mu_sigma", n_bins=None):
    """The ``mim`` method on a scipy sparse matrix, never densified whole.

    Returns the :class:`~fstools.methods.registry.MethodOutput` that
    :func:`fstools.methods.information.mim` returns on ``X.toarray()``.  The discrete
    columns (integer values, at most :data:`~fstools.core.discretize.MAX_LEVELS_AS_IS`
    distinct, the zero included: binary and count features) are counted from their stored
    values, the zeros implied (:func:`fstools.core.sparse.sparse_mutual_information_relevance`);
    the other columns are made dense a block at a time (at most :data:`DENSE_BLOCK_VALUES`
    values) and discretised and counted by the dense path itself, so each column's I(X;C) is
    the dense one to the last bit.

    Parameters
    ----------
    X : scipy sparse matrix, shape (n_samples, n_features)
    y : ndarray of int32, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present.
    k : int or None
    n_threads : int
        Threads of the dense path's kernels (the blocks of continuous columns).
    discretization, n_bins
        As for :func:`fstools.methods.information.mim`: the scheme of the continuous columns.
    """
    _check_discretization(discretization, n_bins)
    X = as_canonical_csc(X)
    y = np.ascontiguousarray(y, dtype=np.int32)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y: must be 1-D with one class code per sample ({X.shape[0]}); got shape {y.shape}")
    n_classes = int(y.max()) + 1 if y.size else 0
    if y.size == 0 or np.count_nonzero(np.bincount(y, minlength=n_classes)) < 2:
        raise ValueError("y: mim needs at least two classes (with one class I(X;C) = 0 for "
                         "every feature and the ranking would be arbitrary)")
    n_samples, n_features = X.shape
    discrete = discrete_column_mask(X)
    relevance = np.zeros(n_features, dtype=np.float64)
    constant = np.zeros(n_features, dtype=bool)
    as_is = discrete.copy()
    if discrete.all():
        relevance = sparse_mutual_information_relevance(X, y, n_classes, method="mim")
        constant = column_levels(X).counts() <= 1
    elif discrete.any():
        counted = X[:, discrete]
        relevance[discrete] = sparse_mutual_information_relevance(counted, y, n_classes, method="mim")
        constant[discrete] = column_levels(counted).counts() <= 1
    continuous = np.flatnonzero(~discrete)
    width = max(1, DENSE_BLOCK_VALUES // max(n_samples, 1))
    for start in range(0, continuous.shape[0], width):
        columns = continuous[start:start + width]
        block = X[:, columns].toarray()
        block_relevance, _, block_as_is, block_constant = _mim_relevance(block, y, n_classes, discretization,
                                                                         n_bins, n_threads)
        relevance[columns] = block_relevance
        as_is[columns] = block_as_is
        constant[columns] = block_constant
    ranking = _top_ranking(relevance, relevance.shape[0] if k is None else min(int(k), relevance.shape[0]))
    note = discretisation_note(discretization, n_bins, as_is)
    return information_output(ranking, {"J": relevance[ranking].copy()}, relevance, note, constant)


#: The most values of the block of continuous columns that :func:`sparse_mim` makes dense at once
#: (64 MB of float64).
DENSE_BLOCK_VALUES = 1 << 23


_COMMON_PARAMETERS_DOC = """
    X : ndarray of float64, shape (n_samples, n_features)
        Finite values; discrete columns (integer values, at most 32 distinct)
        are used as they are, the others discretised.
    y : ndarray of int32 or float64, shape (n_samples,)
        Class codes 0..n_classes-1, at least two classes present; or, with
        ``response_type='continuous'``, a continuous response (finite, not
        constant), discretised by the same scheme as the columns (see
        ``discretization``).
    k : int or None
        Number of features to select; None ranks all.
    n_threads : int
        Threads of the kernels; the result does not depend on it.
    discretization : {'mu_sigma', 'equal_width', 'equal_frequency'}, default 'mu_sigma'
        Scheme for the continuous columns; the default is the nine-level
        scheme of the CMQFS paper (Zhao et al. 2015, section 5.2).
    n_bins : int or None
        Bins of 'equal_width' / 'equal_frequency' (required by them, >= 2);
        must be None with 'mu_sigma'.
    response_type : {'class', 'continuous'}, default 'class'
        A continuous response is cut into levels by ``discretization`` and
        ``n_bins`` as a predictor column is (a response with integer values and
        at most 32 distinct ones is used as it is), as praznik and FSelector
        do; the criterion's C is then the discretised response (named in the
        notes).
    na_level_discretised : ndarray of bool, shape (n_features,), optional
        The columns of ``X`` that hold the codes of a continuous column with
        missing values as a level of their own: its observed values cut by
        ``discretization`` and missing as one more level (what the model layer
        passes under ``na_action='level'``, as FSelectorRcpp and praznik treat
        ``NA`` as a level).  Read as they are, as any integer column; the
        discretisation note counts them as continuous columns."""

_RETURNS_DOC = """
    Returns
    -------
    MethodOutput
        ``scores`` = I(X_k;C) (nats) of every feature; columns ``MI``
        (= scores), ``step`` (1-based, NaN if not selected) and ``J`` (the
        criterion when chosen; step 1: I(X_k;C)); ``steps`` with ``feature``,
        ``J``, ``MI`` (and ``redundancy``, the subtracted term, for MIFS,
        MIFS-U and mRMR); ``notes`` naming the discretisation.

    See the module docstring for the shared rules (first pick, ties, no early
    stop, nats vs FEAST's bits) and the differences from scikit-feature and FEAST."""


def mim(X, y, k=None, n_threads=1, discretization="mu_sigma", n_bins=None, estimator="plugin", n_neighbors=3,
        random_state=0, response_type="class", na_level_discretised=None):
    _check_has_samples(X, "mim")
    if not isinstance(estimator, str) or estimator not in ESTIMATORS:
        raise ValueError(f"estimator: must be one of {', '.join(map(repr, ESTIMATORS))}; got {estimator!r}")
    if estimator == "knn":
        return _knn_mim(X, y, k, n_threads, n_neighbors, random_state, response_type)
    if sparse.issparse(X):
        # Binary/count columns counted as they are, zeros implied; the others dense a block at a time.
        _check_discretization(discretization, n_bins)
        codes, response_note = _response_codes(y, X.shape[0], response_type, discretization, n_bins)
        output = sparse_mim(X, codes, k, n_threads, discretization, n_bins)
        if response_note:
            output.notes.insert(1, response_note)
        return output
    return _information_method("mim", X, y, k, n_threads, discretization, n_bins, response_type=response_type,
                               na_level_discretised=na_level_discretised)


def _knn_mim(X, y, k, n_threads, n_neighbors, random_state, response_type):
    """MIM with the nearest-neighbour estimate of I(X_k;C) (:mod:`fstools.methods.knn_information`)."""
    check_response_type(response_type)
    if sparse.issparse(X):
        raise TypeError("X: estimator='knn' needs a dense X (every column is treated as continuous); "
                        "use estimator='plugin' for sparse count or binary columns")
    X = np.asarray(X, dtype=np.float64)
    if response_type == "continuous":
        y = as_continuous_response(y, X.shape[0])
        estimate = "Kraskov, Stoegbauer & Grassberger (2004)"
    else:
        y = np.ascontiguousarray(y, dtype=np.int32)
        if np.unique(y).size < 2:
            raise ValueError("y: mim needs at least two classes (with one class I(X;C) = 0 for every feature)")
        estimate = "Ross (2014)"
    if not is_positive_integer(n_neighbors) or n_neighbors >= X.shape[0]:
        raise ValueError(f"n_neighbors: must be an integer in 1..{X.shape[0] - 1} (n_samples - 1); "
                         f"got {n_neighbors!r}")
    relevance = knn_mutual_information(X, y, response_type, int(n_neighbors), random_state, n_threads)
    constant = X.max(axis=0) == X.min(axis=0)
    n_features = relevance.shape[0]
    ranking = rank_features(relevance, last=constant, k=n_features if k is None else min(int(k), n_features),
                            tolerance=TIE_TOLERANCE)
    note = (f"I(X;C) estimated with k = {int(n_neighbors)} nearest neighbours ({estimate}; as scikit-learn's "
            f"mutual_info_{'regression' if response_type == 'continuous' else 'classif'}, random_state = "
            f"{random_state!r}) on the columns scaled by their sd; information in nats")
    output = information_output(ranking, {"J": relevance[ranking].copy()}, relevance, note, constant)
    if constant.any():
        output.notes[-1] = (f"{format_count(int(constant.sum()), 'constant column')}: their estimate is of the tie-breaking "
                            "noise; ranked last")
    return output


def mifs(X, y, k=None, n_threads=1, discretization="mu_sigma", n_bins=None, beta=1.0, response_type="class",
         na_level_discretised=None):
    return _information_method("mifs", X, y, k, n_threads, discretization, n_bins, beta, response_type,
                               na_level_discretised)


def mifs_u(X, y, k=None, n_threads=1, discretization="mu_sigma", n_bins=None, beta=1.0, response_type="class",
           na_level_discretised=None):
    return _information_method("mifs_u", X, y, k, n_threads, discretization, n_bins, beta, response_type,
                               na_level_discretised)


def mrmr(X, y, k=None, n_threads=1, discretization="mu_sigma", n_bins=None, response_type="class",
         na_level_discretised=None):
    return _information_method("mrmr", X, y, k, n_threads, discretization, n_bins, response_type=response_type,
                               na_level_discretised=na_level_discretised)


def jmi(X, y, k=None, n_threads=1, discretization="mu_sigma", n_bins=None, response_type="class",
        na_level_discretised=None):
    return _information_method("jmi", X, y, k, n_threads, discretization, n_bins, response_type=response_type,
                               na_level_discretised=na_level_discretised)


def cmim(X, y, k=None, n_threads=1, discretization="mu_sigma", n_bins=None, response_type="class",
         na_level_discretised=None):
    return _information_method("cmim", X, y, k, n_threads, discretization, n_bins, response_type=response_type,
                               na_level_discretised=na_level_discretised)


mim.__doc__ = f"""Mutual information maximisation: rank by I(X_k;C).

    Not greedy in effect (J does not depend on S), so the whole ranking comes
    from one pass; ties go to the lowest column index (with the project's
    tolerance), as in the greedy methods.

    Parameters
    ----------{_COMMON_PARAMETERS_DOC}
    estimator : {{'plugin', 'knn'}}, default 'plugin'
        'plugin': the empirical frequencies of the discretised columns (and
        response), as every method here.  'knn': the k-nearest-neighbour
        estimate on the undiscretised columns, Kraskov, Stoegbauer and
        Grassberger (2004, "Estimating mutual information", Phys. Rev. E 69,
        Eq. 8) for a continuous response and Ross (2014, "Mutual information
        between discrete and continuous data sets", PLoS ONE 9, Eq. 2) for
        classes; the values of scikit-learn's ``mutual_info_regression`` /
        ``mutual_info_classif`` with the same ``n_neighbors`` and
        ``random_state`` (``discretization`` and ``n_bins`` are then unused;
        dense ``X`` only; constant columns ranked last).
    n_neighbors : int >= 1, default 3
        k of the 'knn' estimator (scikit-learn's default).
    random_state : int or None, default 0
        Seed of the tiny noise the 'knn' estimator adds to break ties (as
        scikit-learn's ``random_state``; default 0, so that the same data give
        the same scores).
{_RETURNS_DOC}
    """

_BETA_DOC = """
    beta : float >= 0, default 1.0
        Weight of the redundancy sum.  1.0 is the CMQFS paper's setting
        (Zhao et al. 2015, section 5: "MIFS (beta = 1.0), U_MIFS (beta = 1.0)")
        and FEAST's default; scikit-feature's MIFS default is 0.5.  beta = 0
        gives MIM."""

mifs.__doc__ = f"""MIFS, Battiti (1994), IEEE Trans. Neural Networks 5(4):537-550.

    J(X_k) = I(X_k;C) - beta sum_{{j in S}} I(X_k;X_j)  (the selection step
    of Battiti's MIFS algorithm).

    Parameters
    ----------{_COMMON_PARAMETERS_DOC}{_BETA_DOC}
{_RETURNS_DOC}
    """

mifs_u.__doc__ = f"""MIFS-U, Kwak and Choi (2002), IEEE Trans. Neural Networks 13(1):143-159.

    J(X_k) = I(X_k;C) - beta sum_{{j in S}} [I(X_j;C) / H(X_j)] I(X_k;X_j):
    MIFS with each redundancy term weighted by the share of the selected
    feature's entropy that is relevant to the class (derived under a uniform
    information distribution assumption).  A selected constant feature
    (H(X_j) = 0) contributes 0 (its I(X_k;X_j) is 0 for every X_k).  Neither
    FEAST nor scikit-feature has MIFS-U; this follows the paper.

    Parameters
    ----------{_COMMON_PARAMETERS_DOC}{_BETA_DOC}
{_RETURNS_DOC}
    """

mrmr.__doc__ = f"""mRMR, difference form MID: Peng, Long and Ding (2005), IEEE TPAMI 27(8):1226-1238.

    ``J(X_k) = I(X_k;C) - (1/|S|) sum_{{j in S}} I(X_k;X_j)`` (the incremental
    "mutual information difference" criterion; MIFS with ``beta = 1/|S|``).

    Parameters
    ----------{_COMMON_PARAMETERS_DOC}
{_RETURNS_DOC}
    """

jmi.__doc__ = f"""JMI, Yang and Moody (1999), NIPS 12: joint mutual information.

    J(X_k) = sum_{{j in S}} I(X_k,X_j;C), the plain sum as in FEAST (not
    divided by the size of S; the ranking is the same either way, since
    every candidate at a step shares the same S).  The sum is empty at step 1,
    where the first pick is argmax I(X_k;C) (FEAST) and J is reported as
    I(X_k;C).  JMI can find features that are informative only jointly
    (e.g. C = X_1 xor X_2), which MIM, MIFS and mRMR cannot.

    Parameters
    ----------{_COMMON_PARAMETERS_DOC}
{_RETURNS_DOC}
    """

cmim.__doc__ = f"""CMIM, Fleuret (2004), JMLR 5:1531-1555: conditional mutual information maximisation.

    J(X_k) = min(I(X_k;C), min_{{j in S}} I(X_k;C|X_j)), as FEAST (the
    running minimum starts at I(X_k;C), so a feature's score never exceeds
    its own relevance; in particular CMIM cannot pick up a pure xor pair).
    Computed lazily as FEAST does (Fleuret's fast implementation: a candidate's
    running minimum is brought up to date only while it can still win the
    step); the picks and scores are those of updating every candidate at
    every step.

    Parameters
    ----------{_COMMON_PARAMETERS_DOC}
{_RETURNS_DOC}
    """


# ---------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------

_DISCRETIZATION = Parameter(
    "discretization", "mu_sigma",
    "scheme for the continuous columns: the CMQFS paper's nine mean/sd levels (Zhao et al. 2015, "
    "section 5.2), or n_bins equal-width / equal-frequency bins; discrete columns are used as they are",
    Constraint("one of 'mu_sigma', 'equal_width', 'equal_frequency'", is_one_of(DISCRETIZATIONS)))
_N_BINS = Parameter(
    "n_bins", None, "number of bins of 'equal_width' / 'equal_frequency' (required by them)",
    Constraint("None or an integer >= 2", is_none_or(is_integer_at_least(2)), none_or_int))
_BETA = Parameter(
    "beta", 1.0, "redundancy weight (1.0 in the CMQFS paper, section 5, and FEAST; scikit-feature: 0.5)",
    Constraint("a number >= 0", is_nonnegative_number, float))

_DESCRIPTIONS = {
    "mim": ("Mutual information maximisation: rank by I(X;C)", "Lewis (1992); Brown et al. (2012) JMLR 13:27-66"),
    "mifs": ("Mutual information feature selection: relevance minus beta x redundancy",
             "Battiti (1994) IEEE Trans. Neural Networks 5(4):537-550"),
    "mifs_u": ("MIFS under uniform information distribution: redundancy weighted by I(X_j;C)/H(X_j)",
               "Kwak & Choi (2002) IEEE Trans. Neural Networks 13(1):143-159"),
    "mrmr": ("Minimum redundancy maximum relevance (difference form MID)",
             "Peng, Long & Ding (2005) IEEE TPAMI 27(8):1226-1238"),
    "jmi": ("Joint mutual information: sum over S of I(X_k,X_j;C)", "Yang & Moody (1999) NIPS 12"),
    "cmim": ("Conditional mutual information maximisation: min over S of I(X_k;C|X_j)",
             "Fleuret (2004) JMLR 5:1531-1555"),
}

_ESTIMATOR = Parameter(
    "estimator", "plugin", "estimate of I(X;C): 'plugin' (counts of the discretised columns) or 'knn' (k nearest "
    "neighbours: Kraskov et al. 2004, Ross 2014 for classes; as scikit-learn's mutual_info_regression / "
    "mutual_info_classif)", Constraint("one of 'plugin', 'knn'", is_one_of(ESTIMATORS)))
_N_NEIGHBORS = Parameter(
    "n_neighbors", 3, "k of the 'knn' estimator (Kraskov et al. 2004; scikit-learn's default 3)",
    Constraint("an integer >= 1", is_positive_integer, int))
_RANDOM_STATE = Parameter(
    "random_state", 0, "seed of the tie-breaking noise of the 'knn' estimator (scikit-learn's random_state)",
    Constraint("None or an integer >= 0", is_seed, none_or_int))

_FUNCTIONS = {"mim": mim, "mifs": mifs, "mifs_u": mifs_u, "mrmr": mrmr, "jmi": jmi, "cmim": cmim}

for _name, _function in _FUNCTIONS.items():
    _description, _reference = _DESCRIPTIONS[_name]
    register(MethodSpec(
        name=_name,
        description=_description,
        function=_function,
        parameters=(_DISCRETIZATION, _N_BINS) + ((_BETA,) if _name in ("mifs", "mifs_u") else ())
        + ((_ESTIMATOR, _N_NEIGHBORS, _RANDOM_STATE) if _name == "mim" else ()),
        capabilities=frozenset({"supervised", "multiclass"} | ({"sparse"} if _name == "mim" else {"greedy"})),
        responses=frozenset({"class", "continuous"}),
        score_name="I(X;C)",
        higher_is_better=True,
        reference=_reference,
        criterion=CRITERIA[_name],
        path_column="J",
        any_layout=True,
        factors="codes",
        missing=frozenset({"level"}),
        checks_design=True,
        integer_designs=True,
    ))
del _name, _function, _description, _reference

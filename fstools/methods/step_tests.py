"""Step tests of the greedy methods: a p-value for each step's gain, given the features chosen before.

A greedy method (``mifs``, ``mifs_u``, ``mrmr``, ``jmi``, ``cmim``, ``cmqfs``) adds at step ``s``
the candidate with the largest criterion J given the set S of the ``s - 1`` features chosen
before.  The step test asks whether that gain is more than chance given S:

    H0(s): the response C is independent of the remaining candidates given the selected
    features, C _||_ X_rest | X_S (with X_S the discretised codes the criterion uses).

It is a conditional permutation test (Berrett, Wang, Barber and Samworth 2020, "The conditional
permutation test for independence while controlling for confounders", JRSS B 82(1), section 2,
for a discrete confounder; the stratified permutation of Tsamardinos and Borboudakis 2010,
"Permutation testing improves Bayesian network learning", ECML PKDD, section 4):

* the strata are the joint codes of the selected features (one stratum at step 1);
* the response is permuted within the strata, ``B`` times.  Since the selected features are
  constant within a stratum, this is the same as permuting the rows of the remaining
  candidates jointly within the strata (the candidates keep their dependence on each other and
  on X_S; only their link to C given X_S is broken), and under H0(s) every such permutation is
  as likely as the data;
* the step's criterion J is recomputed for every remaining candidate on every permuted
  response, as the method computes it at that step (mRMR's redundancy, JMI's sum over S, CMIM's
  minimum; for CMQFS the modularity Q and the relevant independency, normalised with the min-max
  ranges of the data at that step held fixed: renormalising within each permutation would give
  its best candidate NRI = 1 whatever the data);
* ``p_step = (1 + #{b : max_k J_b(X_k) >= J(chosen)}) / (1 + B)``: the null of the *best*
  candidate's criterion, so that the p-value accounts for the step having picked the largest
  of the candidates' gains (the max-statistic of Westfall and Young 1993, "Resampling-Based
  Multiple Testing", section 2.6).  This is the p-value of the step, used by ``k='auto'`` and
  :meth:`fstools.SelectionResult.cut`;
* ``p_candidate = (1 + #{b : J_b(chosen) >= J(chosen)}) / (1 + B)``: the conditional
  permutation p-value of the chosen candidate alone (the test of X_chosen _||_ C | X_S),
  smaller than ``p_step``; it does not account for the choice among the candidates.

Ties within the ranking rule's relative tolerance count as extreme (as
:func:`fstools.methods.permutation.permutation_p_values`, which computes both).  At step 1 S is
empty, the test is the plain permutation test of the step-1 score (I(X;C), or the modularity
Q for ``cmqfs``) against the largest such score of all candidates under each permutation.

Assumptions
-----------
* The rows are independent and identically distributed (exchangeable).
* Conditioning is on the discretised codes of the selected features (those the criterion
  uses: :func:`fstools.core.discretize.information_codes` for the information methods, the
  nine-level codes of :func:`fstools.core.discretize.mu_sigma_levels` for CMQFS), so H0 is
  conditional independence given those codes; the test is exact for it.
* S is taken as fixed, although the same data chose it: the p-value of step ``s`` is not
  adjusted for the earlier steps.  On data where C is independent of every feature the
  earlier choices make the later observed gains smaller than the null ones (they lost the
  earlier steps), so the later p-values lean conservative; the test suite checks they are not
  anti-conservative.

When the strata are too fine a permutation within them moves almost nothing, and the p-value
would be near 1 whatever the data.  The rule: a step's p-values are NaN (NA), with a note --
never a meaningless 1 -- when fewer than :data:`MIN_SHARED_SHARE` of the rows share their stratum
with another row (most rows alone in their stratum), or when no stratum holds two different
response codes (the selected features determine the response in every stratum, so that no
permutation changes anything).  Strata holding one response code only are kept: no feature can
add information there, and the test rightly looks at the other strata.

How it is computed: the within-stratum permutations come from one ``argsort`` of random keys
per block of permutations; every information quantity under every permutation is counted by
the kernel :func:`fstools._ext._permutation.permuted_class_information` (threads over the
permutations, no Python per permutation): I(X_k;C) on the codes, I(X_k,X_j;C) on the pair codes
``x_k * L_j + x_j``.  The redundancy terms I(X_k;X_j) and H(X_j) do not depend on C and are
computed once (:func:`fstools._ext._entropy.pair_information_terms`).  CMQFS's Q of every feature
under a block of permutations is one call of :func:`fstools.methods.cmqfs.permuted_modularity_scores`
(the kernel :func:`fstools._ext._fvg.permuted_modularity`, as the CMQFS permutation test of
:mod:`fstools.methods.permutation`): each feature is sorted and its neighbour runs found once,
then each permutation costs a linear pass, with the same Q, bit for bit, as
:func:`~fstools.methods.cmqfs.modularity_scores` on the permuted classes (on wine, 178 rows and 13
features, ``B = 999``, one thread: the Q part 0.34 s -> 0.045 s of CPU time, the whole step test of
the 13-step path 1.7 s -> 0.34 s).  Each step costs about ``B``
counting passes over ``n_candidates x |S|`` pair columns (``n_candidates`` for mifs, mifs_u and
mrmr).  Step ``s`` draws its permutations from
``numpy.random.default_rng(numpy.random.SeedSequence(random_state).spawn(n_steps)[s - 1])``, so a
seed gives the same p-values whatever the number of threads, and a step's p-value does not depend
on which other steps are tested.  Ctrl-C is answered between blocks of permutations (and inside
the kernel).
"""
import numpy as np

from fstools._ext import _entropy, _permutation
from fstools.core.discretize import code_dtype, information_codes, mu_sigma_levels
from fstools.core.parallel import threads_for_work
from fstools.methods.cmqfs import finite_range, min_max_normalise, modularity_scores, permuted_modularity_scores
from fstools.methods.permutation import permutation_blocks, permutation_p_values
from fstools.methods.responses import as_continuous_response, discretised_response

__all__ = ["STEP_METHODS", "MIN_SHARED_SHARE", "AUTO_MAX_STEPS", "check_step_method", "stratum_codes",
           "stratum_occupancy", "stratified_permutations", "step_seeds", "StepTests", "step_tests"]

#: The greedy methods with step tests (and ``k='auto'``).
STEP_METHODS = ("cmim", "cmqfs", "jmi", "mifs", "mifs_u", "mrmr")

#: A step is tested only when at least this share of the rows shares its stratum with another row;
#: else its p-value is NA (most rows alone in their stratum: a permutation moves almost nothing).
MIN_SHARED_SHARE = 0.5

#: ``k='auto'`` runs the greedy path to at most this many steps (all candidates when fewer).
AUTO_MAX_STEPS = 50

def check_step_method(spec, argument="test"):
    """Refuse a method without a greedy path (``argument``: the argument named in the message)."""
    if spec.name in STEP_METHODS:
        return
    what = "test='step'" if argument == "test" else "k='auto'"
    raise ValueError(f"{argument}: {what} needs a greedy method (a path of steps, each with a gain to test); "
                     f"{spec.name!r} is not one. Available for: {', '.join(STEP_METHODS)}")


def stratum_codes(codes):
    """The stratum of every row: the joint value of the rows of ``codes``.

    Parameters
    ----------
    codes : ndarray of int, shape (n_selected, m)
        Feature-major codes of the selected features (``n_selected`` may be 0).

    Returns
    -------
    strata : ndarray of int64, shape (m,)
        Stratum codes 0..n_strata-1, in the order of ``numpy.unique`` of the joint values.
    n_strata : int
    """
    codes = np.asarray(codes)
    strata = np.zeros(codes.shape[1], dtype=np.int64)
    for row in codes:
        # Mixed radix, compressed after each feature so that the codes stay below m * levels.
        width = int(row.max()) + 1 if row.size else 1
        _, strata = np.unique(strata * width + row, return_inverse=True)
        strata = strata.reshape(-1).astype(np.int64)
    return strata, int(strata.max()) + 1 if strata.size else 0


def stratum_occupancy(strata, y):
    """How much a permutation of the response within the strata can move.

    Returns
    -------
    shared : float
        The share of the rows in strata of two or more rows.
    movable : int
        The number of rows in strata holding at least two different response codes (the rows
        whose response a permutation within the strata can change).
    """
    strata = np.asarray(strata, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    width = int(y.max()) + 1
    n_strata = int(strata.max()) + 1
    size = np.bincount(strata, minlength=n_strata)
    pairs = np.unique(strata * width + y)
    classes_per_stratum = np.bincount(pairs // width, minlength=n_strata)
    return float(np.mean(size[strata] >= 2)), int(np.count_nonzero(classes_per_stratum[strata] >= 2))


def stratified_permutations(strata, n_permutations, rng):
    """Random permutations of the rows within their strata.

    Row ``b`` is drawn as the ``argsort`` of ``stratum + u`` with ``u`` uniform on [0, 1) (one
    ``rng.random((n_permutations, m))`` call): uniform over the permutations that keep every
    row in its stratum.

    Parameters
    ----------
    strata : ndarray of int, shape (m,)
    n_permutations : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int32, shape (n_permutations, m)
        ``y[result[b]]`` is the response permuted within the strata.
    """
    strata = np.asarray(strata, dtype=np.int64)
    order = np.argsort(strata, kind="stable")      # the rows grouped by stratum
    keys = strata[order][None, :] + rng.random((int(n_permutations), strata.shape[0]))
    shuffled = np.argsort(keys, axis=1)             # within each stratum's slots, a random order
    permutations = np.empty((int(n_permutations), strata.shape[0]), dtype=np.int32)
    permutations[:, order] = order[shuffled]
    return permutations


def step_seeds(random_state, n_steps):
    """The seed of each step's permutations: ``SeedSequence(random_state).spawn(n_steps)``."""
    return np.random.SeedSequence(random_state).spawn(int(n_steps))


class StepTests:
    """The step tests of one greedy path.

    Attributes
    ----------
    ranking : ndarray of intp, shape (n_steps,)
        The column chosen at each step.
    observed : ndarray of float64, shape (n_steps,)
        The chosen candidate's criterion at each step, recomputed (equal to the method's J, or
        w for CMQFS, up to rounding; step 1 of CMQFS: Q).
    p_step, p_candidate : ndarray of float64, shape (n_steps,)
        See the module docstring; NaN where the step was not tested.
    n_strata : ndarray of int64, shape (n_steps,)
    shared_share : ndarray of float64, shape (n_steps,)
        Share of the rows in strata of two or more rows.
    movable : ndarray of int64, shape (n_steps,)
        Rows in strata holding two or more response codes (see :func:`stratum_occupancy`).
    tested : ndarray of bool, shape (n_steps,)
    null_best, null_candidate : ndarray of float64, shape (n_steps, n_permutations)
        The null values (NaN rows for untested steps).
    statistic : str
        What was recomputed, in words.
    notes : list of str
        One line per step left NA, and why.
    """

    def __init__(self, ranking, n_permutations, statistic):
        n_steps = ranking.shape[0]
        self.ranking = ranking
        self.observed = np.full(n_steps, np.nan)
        self.p_step = np.full(n_steps, np.nan)
        self.p_candidate = np.full(n_steps, np.nan)
        self.n_strata = np.zeros(n_steps, dtype=np.int64)
        self.shared_share = np.full(n_steps, np.nan)
        self.movable = np.zeros(n_steps, dtype=np.int64)
        self.tested = np.zeros(n_steps, dtype=bool)
        self.null_best = np.full((n_steps, n_permutations), np.nan)
        self.null_candidate = np.full((n_steps, n_permutations), np.nan)
        self.statistic = statistic
        self.notes = []


def step_tests(spec, X, y, params, n_steps, n_permutations=999, random_state=None, n_threads=1,
               response_type="class", stop_alpha=None):
    """Conditional permutation tests of the first ``n_steps`` steps of a greedy method's path.

    Parameters
    ----------
    spec : fstools.methods.registry.MethodSpec
        One of :data:`STEP_METHODS`.
    X : ndarray of float64, shape (n_samples, n_features)
        The design the method runs on (finite).
    y : ndarray, shape (n_samples,)
        Class codes (int), or a continuous response (float) for the information methods.
    params : dict
        The method's parameters, complete.
    n_steps : int
        Steps of the path to test (the path is run again to that length).
    n_permutations : int
    random_state : None or int
        Seed of the permutations (see :func:`step_seeds`).
    n_threads : int
        Threads of the kernels; the p-values do not depend on it.
    response_type : {'class', 'continuous'}
    stop_alpha : float in (0, 1) or None
        Test the steps in order and stop after the first whose ``p_step`` is NA or at least
        ``stop_alpha`` (the later steps are left untested, NaN).  None tests every step.

    Returns
    -------
    StepTests
    """
    check_step_method(spec)
    X = np.ascontiguousarray(X, dtype=np.float64)
    n_threads = int(n_threads)
    keywords = dict(params)
    if "continuous" in spec.responses:
        keywords["response_type"] = response_type
    ranking = np.asarray(spec.function(X, y, int(n_steps), n_threads, **keywords).ranking, dtype=np.intp)
    if spec.name == "cmqfs":
        engine = _ModularityEngine(X, np.ascontiguousarray(y, dtype=np.int32), params["beta"], n_threads)
    else:
        engine = _InformationEngine(spec.name, X, y, params, n_threads, response_type)
    tests = StepTests(ranking, int(n_permutations), engine.statistic)
    seeds = step_seeds(random_state, ranking.shape[0])
    for t, chosen in enumerate(ranking):
        selected, chosen = ranking[:t], int(chosen)
        strata, n_strata = stratum_codes(engine.stratum_codes[selected])
        shared, movable = stratum_occupancy(strata, engine.y)
        tests.n_strata[t], tests.shared_share[t], tests.movable[t] = n_strata, shared, movable
        why = None
        if shared < MIN_SHARED_SHARE:
            why = (f"the strata of the {t} selected feature(s) are too fine: {n_strata} strata, only "
                   f"{100 * shared:.0f}% of the rows share their stratum with another row (at least "
                   f"{100 * MIN_SHARED_SHARE:.0f}% needed; a permutation within them would move almost nothing)")
        elif movable == 0:
            why = (f"the {t} selected feature(s) determine {engine.response_name} in every one of their {n_strata} "
                   f"strata: no permutation within them changes anything")
        if why is not None:
            tests.notes.append(f"step {t + 1}: NA, {why}")
            tests.tested[t] = True
            if stop_alpha is not None:
                break
            continue
        candidates = engine.candidates(ranking[:t])
        position = int(np.flatnonzero(candidates == chosen)[0])
        identity = np.arange(X.shape[0], dtype=np.int32)[None, :]
        observed = float(engine.values(selected, candidates, identity)[0, position])
        rng = np.random.default_rng(seeds[t])
        start = 0
        for rows in permutation_blocks(int(n_permutations), X.shape[0] + candidates.shape[0] * max(1, t)):
            size = rows.stop - rows.start
            permutations = stratified_permutations(strata, size, rng)
            values = engine.values(selected, candidates, permutations)
            with np.errstate(invalid="ignore"):
                tests.null_best[t, start:start + size] = np.nanmax(np.where(np.isnan(values), -np.inf, values),
                                                                   axis=1)
            tests.null_candidate[t, start:start + size] = values[:, position]
            start += size
        tests.observed[t] = observed
        tests.p_step[t] = permutation_p_values([observed], tests.null_best[t][:, None])[0]
        tests.p_candidate[t] = permutation_p_values([observed], tests.null_candidate[t][:, None])[0]
        tests.tested[t] = True
        if stop_alpha is not None and not tests.p_step[t] < stop_alpha:
            break
    return tests


def _pair_codes(codes, levels, candidates, selected):
    """Codes of the pairs (X_k, X_j), ``x_k * L_j + x_j``, for k in ``candidates`` (outer) and j in
    ``selected`` (inner), with their numbers of levels."""
    pair_levels = (levels[candidates][:, None] * levels[selected][None, :]).ravel().astype(np.int32)
    dtype = code_dtype(int(pair_levels.max()) if pair_levels.size else 1)
    pairs = (codes[candidates][:, None, :].astype(np.int32) * levels[selected][None, :, None]
             + codes[selected][None, :, :])
    return np.ascontiguousarray(pairs.reshape(-1, codes.shape[1]), dtype=dtype), pair_levels


class _InformationEngine:
    """The criteria of mifs, mifs_u, mrmr, jmi and cmim at a step, under permutations of C."""

    def __init__(self, criterion, X, y, params, n_threads, response_type):
        discretization, n_bins = params.get("discretization", "mu_sigma"), params.get("n_bins")
        codes, levels, _ = information_codes(X, discretization=discretization, n_bins=n_bins,
                                             n_threads=threads_for_work(X.size, n_threads))
        if response_type == "continuous":
            y, n_classes, _ = discretised_response(as_continuous_response(y, X.shape[0]), discretization, n_bins)
        else:
            y = np.ascontiguousarray(y, dtype=np.int32)
            n_classes = int(y.max()) + 1
        self.criterion, self.beta, self.n_threads = criterion, float(params.get("beta", 1.0)), n_threads
        self.codes, self.levels = np.ascontiguousarray(codes), np.ascontiguousarray(levels, dtype=np.int32)
        self.stratum_codes = self.codes
        self.y, self.n_classes = np.ascontiguousarray(y, dtype=np.int32), n_classes
        self.response_name = "the discretised response" if response_type == "continuous" else "the class"
        self.statistic = {"mifs": "MIFS J", "mifs_u": "MIFS-U J", "mrmr": "mRMR J", "jmi": "JMI J",
                          "cmim": "CMIM J"}[criterion] + " (step 1: I(X;C)), plug-in, on the discretised columns"
        self._mutual = {}    # selected column -> I(X_k; X_j) of every column k

    def candidates(self, selected):
        remaining = np.ones(self.codes.shape[0], dtype=bool)
        remaining[selected] = False
        return np.flatnonzero(remaining).astype(np.intp)

    def _information(self, rows_codes, rows_levels, permutations):
        """I(X_row; C[perm]) of every row of codes, every permutation: shape (n_perm, n_rows)."""
        return _permutation.permuted_class_information(rows_codes, rows_levels, self.y, self.n_classes,
                                                       np.ascontiguousarray(permutations, dtype=np.int32),
                                                       self.n_threads)

    def _redundancy_sum(self, selected, candidates):
        """The engine's running sum over S (mifs, mrmr: I(X_k;X_j); mifs_u: weighted), in step order."""
        running = np.zeros(candidates.shape[0])
        for j in selected:
            j = int(j)
            if j not in self._mutual:
                others = np.flatnonzero(np.arange(self.codes.shape[0]) != j).astype(np.intp)
                terms = np.empty((others.shape[0], 4))
                _entropy.pair_information_terms(self.codes, self.levels, self.y, self.n_classes, j, others, terms,
                                                self.n_threads)
                mutual = np.zeros(self.codes.shape[0])
                mutual[others] = terms[:, 0]
                self._mutual[j] = mutual
            if self.criterion == "mifs_u":
                entropy = np.empty(1)
                _entropy.feature_entropies(self.codes[j:j + 1], self.levels[j:j + 1], entropy, 1)
                relevance = self._information(self.codes[j:j + 1], self.levels[j:j + 1],
                                              np.arange(self.codes.shape[1], dtype=np.int32)[None, :])[0, 0]
                weight = relevance / entropy[0] if entropy[0] > 0.0 else 0.0
                running += weight * self._mutual[j][candidates]
            else:
                running += self._mutual[j][candidates]
        return running

    def values(self, selected, candidates, permutations):
        """J of every candidate under every permutation: shape (n_perm, n_candidates)."""
        relevance = self._information(self.codes[candidates], self.levels[candidates], permutations)
        if selected.shape[0] == 0:
            return relevance
        if self.criterion in ("mifs", "mifs_u", "mrmr"):
            running = self._redundancy_sum(selected, candidates)
            redundancy = running / selected.shape[0] if self.criterion == "mrmr" else self.beta * running
            return relevance - redundancy[None, :]
        codes, levels = _pair_codes(self.codes, self.levels, candidates, selected)
        joint = self._information(codes, levels, permutations).reshape(permutations.shape[0], candidates.shape[0],
                                                                       selected.shape[0])
        if self.criterion == "jmi":
            total = np.zeros((permutations.shape[0], candidates.shape[0]))
            for i in range(selected.shape[0]):   # in step order, as the method's running sum
                total += joint[:, :, i]
            return total
        # cmim: min(I(X_k;C), min_j I(X_k;C|X_j)), I(X_k;C|X_j) = I(X_k,X_j;C) - I(X_j;C)
        selected_relevance = self._information(self.codes[selected], self.levels[selected], permutations)
        conditional = joint - selected_relevance[:, None, :]
        return np.minimum(relevance, conditional.min(axis=2))


class _ModularityEngine:
    """CMQFS's criterion at a step (step 1: Q; then w = beta NQ + (1 - beta) NRI) under permutations of C.

    The min-max normalisations of Q (Eq. 11, over all features) and of the relevant independency
    (Eq. 12, over the candidates) are those of the data at the step, held fixed under the
    permutations: renormalising within each permutation would give its best candidate NRI = 1
    whatever the data, and the best candidate's w would measure the normalisation only.
    """

    statistic = ("CMQFS w = beta NQ + (1 - beta) NRI, normalised as on the data at the step (step 1: the "
                 "modularity Q)")
    response_name = "the class"

    def __init__(self, X, y, beta, n_threads):
        self.X, self.y, self.beta, self.n_threads = X, y, float(beta), n_threads
        self.n_classes = int(y.max()) + 1
        codes, levels = mu_sigma_levels(X)
        self.codes, self.levels = np.ascontiguousarray(codes), np.ascontiguousarray(levels, dtype=np.int32)
        self.stratum_codes = self.codes
        entropy = np.empty(1)
        _entropy.feature_entropies(y[None, :].astype(np.int32), np.array([self.n_classes], dtype=np.int32),
                                   entropy, 1)
        self.class_entropy = float(entropy[0])
        self.constant = np.isnan(modularity_scores(X, y, self.n_classes, n_threads))
        self._scales = {}   # step (|S|) -> the (low, high) of Q and of the relevant independency on the data

    def candidates(self, selected):
        remaining = np.ones(self.X.shape[1], dtype=bool)
        remaining[selected] = False
        informative = remaining & ~self.constant
        return np.flatnonzero(informative if informative.any() else remaining).astype(np.intp)

    def _information(self, codes, levels, permutations):
        return _permutation.permuted_class_information(codes, levels, self.y, self.n_classes,
                                                       np.ascontiguousarray(permutations, dtype=np.int32),
                                                       self.n_threads)

    def _raw(self, selected, candidates, permutations):
        """Q of every feature and the relevant independency sum of every candidate (None at step 1)."""
        q = permuted_modularity_scores(self.X, self.y, self.n_classes, permutations, self.n_threads)
        if selected.shape[0] == 0:
            return q, None
        relevance = self._information(self.codes[candidates], self.levels[candidates], permutations)
        selected_relevance = self._information(self.codes[selected], self.levels[selected], permutations)
        codes, levels = _pair_codes(self.codes, self.levels, candidates, selected)
        joint = self._information(codes, levels, permutations).reshape(permutations.shape[0], candidates.shape[0],
                                                                       selected.shape[0])
        # RI(X_k, X_s) = [I(X_k;C|X_s) + I(X_s;C|X_k)] / 2H(C) = [2 I(X_k,X_s;C) - I(X_s;C) - I(X_k;C)] / 2H(C)
        relevant_independency = np.zeros((permutations.shape[0], candidates.shape[0]))
        for i in range(selected.shape[0]):
            relevant_independency += (2.0 * joint[:, :, i] - selected_relevance[:, i:i + 1] - relevance) \
                / (2.0 * self.class_entropy)
        return q, relevant_independency

    def values(self, selected, candidates, permutations):
        """Q (step 1) or w of every candidate under every permutation: shape (n_perm, n_candidates)."""
        q, relevant_independency = self._raw(selected, candidates, permutations)
        if relevant_independency is None:
            return q[:, candidates]
        step = selected.shape[0]
        if step not in self._scales:
            identity = np.arange(self.X.shape[0], dtype=np.int32)[None, :]
            q_data, ri_data = self._raw(selected, candidates, identity)
            self._scales[step] = (finite_range(q_data[0]), finite_range(ri_data[0]))
        q_range, ri_range = self._scales[step]
        return (self.beta * min_max_normalise(q[:, candidates], q_range)
                + (1.0 - self.beta) * min_max_normalise(relevant_independency, ri_range))

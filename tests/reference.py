"""Slow, obviously-correct reference implementations used by the tests."""


# ---- entropies (reference) ----
# Brute force from the definitions, sharing no code with fstools: counts of
# tuples with collections.Counter, probabilities p = n / m, H = -sum p log p
# (natural log), MI and CMI as sums and differences of those entropies.

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
    underflow (issue 9: columns near 1e308 or of subnormal numbers).
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


# ---- feature vector graph and CMQFS (reference) ----
# The FVG built edge by edge from its definition (Zhao et al. 2015, section 4):
# every sample i sorts all other samples by (|x_i - x_j|, j) and links to the
# first p_i - 1 of them; the arcs are symmetrised by union.  O(m^2 log m).


def fvg_adjacency_ref(x, y):
    """Boolean adjacency matrix of the feature vector graph of one feature."""
    x = [float(v) for v in x]
    y = list(y)
    m = len(x)
    class_size = Counter(y)
    adjacency = np.zeros((m, m), dtype=bool)
    for i in range(m):
        n_neighbours = class_size[y[i]] - 1
        others = sorted((abs(x[i] - x[j]), j) for j in range(m) if j != i)
        for _, j in others[:n_neighbours]:
            adjacency[i, j] = True
            adjacency[j, i] = True
    return adjacency


def modularity_parts_ref(adjacency, y):
    """(M, l_c, d_c) of an adjacency matrix for the partition given by class codes y (0..C-1)."""
    y = np.asarray(y)
    n_classes = int(y.max()) + 1
    n_edges = int(adjacency.sum()) // 2
    within = np.array([int(adjacency[np.ix_(y == c, y == c)].sum()) // 2 for c in range(n_classes)])
    degree = np.array([int(adjacency[y == c].sum()) for c in range(n_classes)])
    return n_edges, within, degree


def modularity_ref(x, y):
    """Q = sum_c [l_c / M - (d_c / 2M)^2] of the FVG; NaN without edges."""
    n_edges, within, degree = modularity_parts_ref(fvg_adjacency_ref(x, y), y)
    if n_edges == 0:
        return float("nan")
    return float(sum(within[c] / n_edges - (degree[c] / (2 * n_edges)) ** 2 for c in range(len(within))))


def cmqfs_ref(X, y, k, beta=0.3):
    """CMQFS (Table 2 of the paper) from the reference pieces; returns the ranking (column indices).

    Constant columns get NQ = 0 and are candidates only after every other column;
    min-max normalisation of all-equal values gives 0; ties go to the lowest column
    index (the documented rules of fstools).
    """
    X = np.asarray(X, dtype=float)
    y = [int(v) for v in y]
    n_features = X.shape[1]
    q = []
    for j in range(n_features):
        column = X[:, j]
        q.append(float("nan") if len(set(column.tolist())) == 1 else modularity_ref(column, y))

    def normalise(values):
        finite = [v for v in values if not math.isnan(v)]
        low, high = min(finite, default=0.0), max(finite, default=0.0)
        return [0.0 if math.isnan(v) or high == low else (v - low) / (high - low) for v in values]

    def first_of_the_best(values, indices):
        # Lowest index among the values equal to the maximum up to rounding.
        best = max(values)
        return min(i for v, i in zip(values, indices) if v >= best - 1e-12 * max(1.0, abs(best)))

    nq = normalise(q)
    codes = mu_sigma_levels_ref(X)
    class_entropy = entropy_ref(y)
    selected = [first_of_the_best(nq, range(n_features))]
    while len(selected) < k:
        candidates = [j for j in range(n_features) if j not in selected and not math.isnan(q[j])]
        if not candidates:
            candidates = [j for j in range(n_features) if j not in selected]
        ri = []
        for r in candidates:
            total = 0.0
            for s in selected:
                total += (conditional_mutual_information_ref(codes[r], y, codes[s])
                          + conditional_mutual_information_ref(codes[s], y, codes[r])) / (2 * class_entropy)
            ri.append(total)
        nri = normalise(ri)
        w = [beta * nq[r] + (1 - beta) * nri[i] for i, r in enumerate(candidates)]
        selected.append(first_of_the_best(w, candidates))
    return selected


# ---- information-theoretic selection (reference) ----
# Greedy forward selection written from the definitions of the criteria
# (MIM, MIFS, MIFS-U, mRMR, JMI, CMIM; see shared/methods/baselines.md) with
# the Counter-based entropies above: at every step J is recomputed for every
# candidate over the whole selected set S (no running sums).  The first pick
# is argmax I(X;C); ties go to the lowest column index among the values within
# 1e-12 (relative, at least absolute 1e-12) of the maximum -- the documented
# rule of fstools.


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


# ---- similarity filters (reference) ----
# Fisher score, Laplacian score and ReliefF written from their definitions with
# explicit loops over samples, classes and neighbours (dense matrices where the
# definition uses them), sharing no code with fstools.  Conventions of fstools
# that the definitions leave open: Fisher 0/0 = 0 and x/0 = inf; Laplacian
# 0/0 = NaN; neighbours at equal distance go to the lower sample index;
# ReliefF averages over the neighbours that exist when a class is small.


def _all_equal(values):
    return all(v == values[0] for v in values)


def fisher_score_ref(X, y):
    """F_r = sum_k n_k (mu_kr - mu_r)^2 / sum_k n_k sigma_kr^2 (population variances)."""
    X = np.asarray(X, dtype=float)
    y = [int(v) for v in y]
    n = len(y)
    classes = sorted(set(y))
    scores = []
    for r in range(X.shape[1]):
        column = [float(v) for v in X[:, r]]
        if _all_equal(column):
            scores.append(0.0)
            continue
        mu = sum(column) / n
        between = 0.0
        within = 0.0
        for c in classes:
            members = [column[i] for i in range(n) if y[i] == c]
            n_c = len(members)
            mu_c = sum(members) / n_c
            variance_c = 0.0 if _all_equal(members) else sum((v - mu_c) ** 2 for v in members) / n_c
            between += n_c * (mu_c - mu) ** 2
            within += n_c * variance_c
        scores.append(between / within if within > 0 else (math.inf if between > 0 else 0.0))
    return np.array(scores)


def squared_distance_ref(a, b):
    """||a - b||^2 summed feature by feature."""
    total = 0.0
    for u, v in zip(a, b):
        total += (float(u) - float(v)) ** 2
    return total


def heat_kernel_graph_ref(X, n_neighbors, t):
    """Dense S: i ~ j when i in kNN(j) or j in kNN(i) (ties to the lower index), S_ij = exp(-d^2 / t)."""
    X = np.asarray(X, dtype=float)
    m = X.shape[0]
    distance = [[squared_distance_ref(X[i], X[j]) for j in range(m)] for i in range(m)]
    S = np.zeros((m, m))
    for i in range(m):
        nearest = sorted((distance[i][j], j) for j in range(m) if j != i)[:n_neighbors]
        for d, j in nearest:
            S[i, j] = S[j, i] = math.exp(-d / t)
    return S


def laplacian_score_ref(X, n_neighbors=5, t=1.0):
    """L_r = f~^T L f~ / f~^T D f~, f~ = f - (f^T D 1 / 1^T D 1) 1 (He, Cai, Niyogi 2005); 0/0 = NaN."""
    X = np.asarray(X, dtype=float)
    S = heat_kernel_graph_ref(X, n_neighbors, t)
    ones = np.ones(X.shape[0])
    D = np.diag(S @ ones)
    L = D - S
    scores = []
    for r in range(X.shape[1]):
        f = X[:, r]
        if _all_equal(list(f)):
            scores.append(math.nan)
            continue
        f_tilde = f - (f @ D @ ones) / (ones @ D @ ones) * ones
        scores.append(float(f_tilde @ L @ f_tilde) / float(f_tilde @ D @ f_tilde))
    return np.array(scores)


def relieff_ref(X, y, n_neighbors=10, instances=None):
    """ReliefF weights (Robnik-Sikonja & Kononenko 2003, Fig. 3); returns (W, near_hit, near_miss).

    diff(A, I1, I2) = |I1[A] - I2[A]| / (max A - min A) (0 for a constant A), distance = sum of
    diffs; k nearest hits and k nearest misses per other class, ties to the lower index, averaged
    over the neighbours found; misses weighted by P(C) / (1 - P(class)).
    """
    X = np.asarray(X, dtype=float)
    y = [int(v) for v in y]
    m_all, n_features = X.shape
    span = [float(X[:, a].max() - X[:, a].min()) for a in range(n_features)]

    def diff(a, i, j):
        return 0.0 if span[a] == 0 else abs(float(X[i, a]) - float(X[j, a])) / span[a]

    def distance(i, j):
        return sum(diff(a, i, j) for a in range(n_features))

    prior = {c: y.count(c) / m_all for c in set(y)}
    instances = list(range(m_all)) if instances is None else [int(i) for i in instances]
    near_hit = [0.0] * n_features
    near_miss = [0.0] * n_features
    for i in instances:
        for c in sorted(prior):
            nearest = sorted((distance(i, j), j) for j in range(m_all) if j != i and y[j] == c)[:n_neighbors]
            if not nearest:
                continue
            for a in range(n_features):
                mean_diff = sum(diff(a, i, j) for _, j in nearest) / len(nearest)
                if c == y[i]:
                    near_hit[a] += mean_diff
                else:
                    near_miss[a] += prior[c] / (1 - prior[y[i]]) * mean_diff
    m = len(instances)
    near_hit = np.array(near_hit) / m
    near_miss = np.array(near_miss) / m
    return near_miss - near_hit, near_hit, near_miss


# ---- per-class column moments (reference) ----
# The statistics of fstools._ext._moments.class_moments from their definitions, one
# feature and one class at a time, in exact rational arithmetic (fractions.Fraction
# holds every float exactly), rounded to float64 once at the end: an exact result
# that overflows is inf and one that underflows is 0.  Conventions of fstools: an
# empty class has mean NaN, sum of squares 0 and counts as constant; without
# samples the column mean is NaN and the column constant.

from fractions import Fraction  # noqa: E402


def _rounded(value):
    """A Fraction rounded to float64; inf / -inf when beyond the largest double."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def class_moments_ref(X, y, n_classes):
    """(counts, mean, ss, constant, column_mean, column_constant) of ``X`` by class ``y``.

    ``mean[f, c]``: exact mean of class c in feature f; ``ss[f, c]``: exact sum of squared
    deviations about the exact mean; ``constant[f, c]``: min == max; ``column_mean[f]``:
    exact mean of the feature; ``column_constant[f]``: every value of the feature equal.
    """
    X = np.asarray(X, dtype=float)
    y = [int(v) for v in y]
    n, p = X.shape
    counts = np.array([sum(1 for v in y if v == c) for c in range(n_classes)], dtype=np.int64)
    mean = np.full((p, n_classes), np.nan)
    ss = np.zeros((p, n_classes))
    constant = np.ones((p, n_classes), dtype=np.uint8)
    column_mean = np.full(p, np.nan)
    column_constant = np.ones(p, dtype=np.uint8)
    for f in range(p):
        column = [float(X[i, f]) for i in range(n)]
        if n:
            column_mean[f] = _rounded(sum(Fraction(v) for v in column) / n)
            column_constant[f] = int(_all_equal(column))
        for c in range(n_classes):
            members = [column[i] for i in range(n) if y[i] == c]
            if not members:
                continue
            exact_mean = sum(Fraction(v) for v in members) / len(members)
            mean[f, c] = _rounded(exact_mean)
            ss[f, c] = _rounded(sum((Fraction(v) - exact_mean) ** 2 for v in members))
            constant[f, c] = int(_all_equal(members))
    return counts, mean, ss, constant, column_mean, column_constant


# ---- online passive-aggressive (reference) ----
# One example at a time with Python lists and floats, straight from the update
# rules: Han et al. (2016) Eq. 1-10 and Algorithms 1-2, PA/PA-I/PA-II of Crammer
# et al. (2006), the type-I cost-sensitive loss of Wang, Zhao & Hoi (2014) with
# the minority class -1, truncation T of Langford, Li & Zhang (2009) every K
# rounds.  Dense rows only (a CSR row is compared through its dense copy); every
# sum runs j = 0..d-1 in a plain loop.  The random draws follow the protocol the
# kernel documents (SplitMix64; slot then alpha per synthetic negative, then one
# reservoir draw when the memory is full), re-implemented here from its
# definition; the memory is a list of dense rows.

_MASK64 = (1 << 64) - 1


class SplitMix64Ref:
    """SplitMix64 (Steele, Lea & Flood 2014) on Python integers."""

    def __init__(self, state):
        self.state = int(state) & _MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, bound):
        """Uniform in 0..bound-1: reject z < 2^64 mod bound, then z mod bound."""
        threshold = ((1 << 64) - bound) % bound
        while True:
            z = self.next()
            if z >= threshold:
                return z % bound

    def unit(self):
        """Uniform in (0, 1): ((z >> 12) + 0.5) / 2^52."""
        return (float(self.next() >> 12) + 0.5) * 2.0 ** -52


def truncate_ref(v, a, theta):
    """T(v, a, theta): max(0, v - a) on (0, theta], min(0, v + a) on [-theta, 0), else v."""
    if 0.0 < v <= theta:
        return max(0.0, v - a)
    if -theta <= v < 0.0:
        return min(0.0, v + a)
    return v


def top_set_ref(w, M):
    """The M largest |w_j| (ties to the lower index), by sorting."""
    return set(sorted(range(len(w)), key=lambda j: (-abs(w[j]), j))[:M])


def new_online_state_ref(d, seed):
    return {"w": [0.0] * d, "t": 0, "p": 1, "n": 1, "offered": 0, "memory": [], "rng": SplitMix64Ref(seed)}


def online_pa_ref(X, y, *, loss, step, C=1.0, gravity=0.0, theta=float("inf"), K=1, truncate="gradient",
                  topk=None, synthesis=None, beta=1.0, capacity=None, cost_ratio=None, budgets=(),
                  seed=0, state=None):
    """Run the rows of X (dense, in order) with labels y in {+1, -1} through one learner.

    loss: 'hinge' | 'margin_based' | 'cost_sensitive'; step: 'pa' | 'pa1' | 'pa2' | 'ogd';
    truncate: 'gradient' | 'topk' | 'none'; synthesis: None | 'extrapolate' | 'interpolate'.
    Returns (state, trace): the state continues a later call; the trace holds, per row, the
    margins before the update (full and per budget), the loss, tau, the synthetic updates
    done and a copy of w after the row.
    """
    X = [[float(v) for v in row] for row in np.asarray(X, dtype=float)]
    d = len(X[0]) if X else (len(state["w"]) if state else 0)
    state = new_online_state_ref(d, seed) if state is None else state
    w = state["w"]
    rng = state["rng"]
    trace = {"margins": [], "budget_margins": [], "losses": [], "taus": [], "synthetic": [], "w": []}

    def dot(u, x):
        total = 0.0
        for j in range(d):
            total += u[j] * x[j]
        return total

    def squared_norm(x):
        total = 0.0
        for j in range(d):
            total += x[j] * x[j]
        return total

    def tau_of(l, sq, t):
        if step == "pa":
            return l / sq
        if step == "pa1":
            return min(C, l / sq)
        if step == "pa2":
            return l / (sq + 1.0 / (2.0 * C))
        return C / math.sqrt(t)

    for x, label in zip(X, y):
        label = int(label)
        f = dot(w, x)
        trace["margins"].append(f)
        row_budgets = []
        for M in budgets:
            if sum(1 for v in w if v != 0.0) <= M:
                row_budgets.append(f)
            else:
                kept = top_set_ref(w, M)
                total = 0.0
                for j in range(d):
                    if j in kept:
                        total += w[j] * x[j]
                row_budgets.append(total)
        trace["budget_margins"].append(row_budgets)
        state["t"] += 1
        t = state["t"]
        if label == 1:
            state["p"] += 1
        else:
            state["n"] += 1
        p, n = state["p"], state["n"]
        m = label * f
        if loss == "hinge":
            l = max(0.0, 1.0 - m)
        elif loss == "margin_based":
            rho = p / n
            if label == 1:
                l = -m if m <= 0 else 0.0
            else:
                l = max(0.0, rho - m) if m <= 1 else 0.0
        else:
            rho = cost_ratio if cost_ratio is not None else p / n
            l = max(0.0, (rho if label == -1 else 1.0) - m)
        tau = 0.0
        if l > 0:
            sq = squared_norm(x)
            if sq > 0:
                tau = tau_of(l, sq, t)
                for j in range(d):
                    w[j] = w[j] + (tau * label) * x[j]
        trace["losses"].append(l)
        trace["taus"].append(tau)
        done = 0
        if synthesis is not None and label == -1:
            for _ in range(int(math.floor(beta * p / n))):
                if not state["memory"]:
                    break
                x_p = state["memory"][rng.below(len(state["memory"]))]
                alpha = rng.unit()
                if synthesis == "extrapolate":
                    x_q = [x[j] + alpha * (x[j] - x_p[j]) for j in range(d)]
                else:
                    x_q = [x[j] + alpha * (x_p[j] - x[j]) for j in range(d)]
                l_q = max(0.0, 1.0 - (-1) * dot(w, x_q))
                if l_q > 0:
                    sq_q = squared_norm(x_q)
                    if sq_q > 0:
                        tau_q = tau_of(l_q, sq_q, t)
                        for j in range(d):
                            w[j] = w[j] + (tau_q * -1.0) * x_q[j]
                done += 1
            state["offered"] += 1
            if capacity is None or len(state["memory"]) < capacity:
                state["memory"].append(list(x))
            else:
                slot = rng.below(state["offered"])
                if slot < capacity:
                    state["memory"][slot] = list(x)
        trace["synthetic"].append(done)
        if t % K == 0:
            if truncate == "gradient":
                for j in range(d):
                    w[j] = truncate_ref(w[j], gravity, theta)
            elif truncate == "topk":
                kept = top_set_ref(w, topk)
                for j in range(d):
                    if j not in kept:
                        w[j] = 0.0
        trace["w"].append(list(w))
    return state, trace


# ---- discriminant methods (reference) ----
# DFS (Tao et al. 2016, Algorithm 1), trace ratio (Nie et al. 2008), BAHSIC (Song et al. 2007)
# and the redundancy rate RED (Eq. 34), written from their definitions with dense matrices and
# explicit loops, sharing no code with fstools.  DFS: the scatter matrices summed sample by
# sample (Eq. 6-7), the literal generalised eigenproblem (gamma D - S_b) a = lambda (S_t + alpha I) a
# solved in full by scipy.linalg.eigh, the l smallest kept.  Trace ratio: the Fisher-type graph
# Laplacians as n x n matrices and every k-subset tried.  BAHSIC: the authors' backward
# elimination (10% per step, then one at a time) with the unbiased HSIC of the full m x m kernel
# matrices.  Conventions of fstools that the papers leave open: standardisation with ddof = 1,
# constant columns left out of DFS (row norm 0).

import itertools  # noqa: E402

import scipy.linalg  # noqa: E402


def standardise_ref(X):
    """Columns minus their mean, divided by their sample sd (ddof = 1); constant columns left at 0."""
    X = np.asarray(X, dtype=float)
    Z = np.zeros_like(X)
    n = X.shape[0]
    for j in range(X.shape[1]):
        column = [float(v) for v in X[:, j]]
        mean = sum(column) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in column) / (n - 1))
        if not _all_equal(column):
            Z[:, j] = [(v - mean) / sd for v in column]
    return Z


def scatter_matrices_ref(Z, y):
    """S_t = sum_i (x_i - mu)(x_i - mu)^T and S_b = sum_k n_k (mu_k - mu)(mu_k - mu)^T (Eq. 6, S_t in III)."""
    Z = np.asarray(Z, dtype=float)
    n, d = Z.shape
    mu = Z.mean(axis=0)
    S_t = np.zeros((d, d))
    for i in range(n):
        S_t += np.outer(Z[i] - mu, Z[i] - mu)
    S_b = np.zeros((d, d))
    for c in sorted(set(int(v) for v in y)):
        members = Z[np.asarray(y) == c]
        S_b += members.shape[0] * np.outer(members.mean(axis=0) - mu, members.mean(axis=0) - mu)
    return S_t, S_b


def dfs_ref(X, y, gamma=1.0, p=1.0, n_components=None, alpha=1.0, zeta=1e-12, n_iterations=5,
            standardize=True):
    """Algorithm 1 with Remarks 1-2, ``n_iterations`` times; returns a dict of per-iteration lists.

    ``row_norms`` (full length, 0 for constant columns), ``objective``, ``divergence``
    (Eq. 33 between consecutive A; NaN first), ``eigenvalues`` (the l smallest), ``A``.
    """
    X = np.asarray(X, dtype=float)
    varying = [j for j in range(X.shape[1]) if not _all_equal(list(X[:, j]))]
    Z = standardise_ref(X)[:, varying] if standardize else (X - X.mean(axis=0))[:, varying]
    S_t, S_b = scatter_matrices_ref(Z, y)
    d = Z.shape[1]
    l = len(set(int(v) for v in y)) - 1 if n_components is None else n_components
    M = S_t + alpha * np.eye(d)
    D = np.eye(d)
    out = {"row_norms": [], "objective": [], "divergence": [], "eigenvalues": [], "A": []}
    previous = None
    for _ in range(n_iterations):
        values, vectors = scipy.linalg.eigh(gamma * D - S_b, M)        # ascending, V^T M V = I
        A = vectors[:, :l]
        norms = [math.sqrt(sum(A[i, j] ** 2 for j in range(l))) for i in range(d)]
        objective = -np.trace(A.T @ S_b @ A) + gamma * sum((r * r + zeta) ** (p / 2) for r in norms)
        full = np.zeros(X.shape[1])
        full[varying] = norms
        out["row_norms"].append(full)
        out["objective"].append(float(objective))
        out["divergence"].append(math.nan if previous is None else sum(abs(a - b) for a, b in zip(norms, previous)))
        out["eigenvalues"].append(values[:l])
        out["A"].append(A)
        D = np.diag([(p / 2) * (r * r + zeta) ** (p / 2 - 1) for r in norms])
        previous = norms
    return out


def trace_ratio_weights_ref(X, y):
    """diag(X^T L_b X), diag(X^T L_w X) with W_ij = 1/n_c (same class c), L_w = I - W, L_b = W - 11^T/n."""
    X = np.asarray(X, dtype=float)
    y = [int(v) for v in y]
    n = len(y)
    W = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if y[i] == y[j]:
                W[i, j] = 1.0 / y.count(y[i])
    L_w = np.eye(n) - W
    L_b = W - np.ones((n, n)) / n
    between = np.array([X[:, r] @ L_b @ X[:, r] for r in range(X.shape[1])])
    within = np.array([X[:, r] @ L_w @ X[:, r] for r in range(X.shape[1])])
    return between, within


def trace_ratio_ref(X, y, k):
    """The k-subset with the largest sum(between) / sum(within), by trying every subset.

    Returns (sorted subset, ratio).  Ties: the lexicographically first subset.
    """
    between, within = trace_ratio_weights_ref(X, y)
    best, best_ratio = None, -math.inf
    for subset in itertools.combinations(range(len(between)), k):
        w = sum(within[j] for j in subset)
        b = sum(between[j] for j in subset)
        ratio = math.inf if w == 0 and b > 0 else (b / w if w > 0 else 0.0)
        if ratio > best_ratio:
            best, best_ratio = subset, ratio
    return list(best), best_ratio


def unbiased_hsic_ref(K, L):
    """The unbiased HSIC_1 of Song et al. (2007) from full kernel matrices (diagonals set to 0 here)."""
    K = np.array(K, dtype=float)
    L = np.array(L, dtype=float)
    m = K.shape[0]
    np.fill_diagonal(K, 0.0)
    np.fill_diagonal(L, 0.0)
    one = np.ones(m)
    return (np.trace(K @ L) + (one @ K @ one) * (one @ L @ one) / ((m - 1) * (m - 2))
            - 2.0 / (m - 2) * (one @ K @ L @ one)) / (m * (m - 3))


def biased_hsic_ref(K, L):
    """tr(K H L H) / (m - 1)^2 (Gretton et al. 2005)."""
    m = K.shape[0]
    H = np.eye(m) - np.ones((m, m)) / m
    return float(np.trace(K @ H @ L @ H)) / (m - 1) ** 2


def label_kernel_ref(y):
    """Two classes: the authors' y_i = 1/m_+ or -1/m_- (class 1 positive), L = y y^T.
    More classes: L = Y Y^T with Y_ic = 1/n_c."""
    y = [int(v) for v in y]
    classes = sorted(set(y))
    if len(classes) == 2:
        positive = y.count(classes[1])
        negative = y.count(classes[0])
        v = np.array([1.0 / positive if c == classes[1] else -1.0 / negative for c in y])
        return np.outer(v, v)
    Y = np.array([[1.0 / y.count(c) if label == c else 0.0 for c in classes] for label in y])
    return Y @ Y.T


def bahsic_ref(X, y, n_keep=1, fraction=0.1, estimator="unbiased", L=None):
    """The authors' BAHSICRaw with linear kernels: returns the ranking (best first).

    While more than ``n_keep`` features remain, remove int(fraction m) + 1 of them (never going
    below n_keep), those whose removal leaves the largest HSIC; then one at a time.  The
    ranking is the elimination order reversed.
    """
    X = np.asarray(X, dtype=float)
    L = label_kernel_ref(y) if L is None else L
    hsic = unbiased_hsic_ref if estimator == "unbiased" else biased_hsic_ref
    remaining = list(range(X.shape[1]))
    eliminated = []
    while remaining:
        m = len(remaining)
        if m == 1:
            eliminated.append(remaining.pop())
            break
        left = []
        for j in remaining:
            rest = [i for i in remaining if i != j]
            left.append(hsic(X[:, rest] @ X[:, rest].T, L))
        order = sorted(range(m), key=lambda i: -left[i])      # largest remaining HSIC first
        if m > n_keep:
            count = int(fraction * m) + 1
            if m - count <= n_keep:
                count = m - n_keep
        else:
            count = 1
        batch = [remaining[i] for i in order[:count]]
        eliminated.extend(batch)
        remaining = [j for j in remaining if j not in batch]
    return eliminated[::-1]


def redundancy_rate_ref(X, columns, absolute=True):
    """Eq. 34: 1 / (|F| (|F| - 1)) sum_{i > j} corr(f_i, f_j), Pearson's r from sums."""
    X = np.asarray(X, dtype=float)
    m = len(columns)
    n = X.shape[0]
    total = 0.0
    for a in range(m):
        for b in range(a):
            u = [float(v) for v in X[:, columns[a]]]
            v = [float(w) for w in X[:, columns[b]]]
            mu_u, mu_v = sum(u) / n, sum(v) / n
            cov = sum((p - mu_u) * (q - mu_v) for p, q in zip(u, v))
            r = cov / math.sqrt(sum((p - mu_u) ** 2 for p in u) * sum((q - mu_v) ** 2 for q in v))
            total += abs(r) if absolute else r
    return total / (m * (m - 1))


# ---- multi-label (reference) ----
# Literal transcriptions of the ELC paper (Wang, Xu, Wei, Zhang & Ma 2020, Applied Sciences 10:8093),
# of the multi-label metrics' definitions (Zhang & Zhou 2014, IEEE TKDE 26(8), section 2.2) and of
# ML-kNN (Zhang & Zhou 2007, Fig. 1): loops and full matrices (diag(p) as a d x d matrix, one l x l
# matrix per feature in Eq. 14); nothing shared with fstools.


def pearson_ref(u, v):
    """Pearson's r from sums; 0 when either vector is constant."""
    u = [float(a) for a in u]
    v = [float(b) for b in v]
    n = len(u)
    mu_u, mu_v = sum(u) / n, sum(v) / n
    su = sum((a - mu_u) ** 2 for a in u)
    sv = sum((b - mu_v) ** 2 for b in v)
    if su == 0 or sv == 0:
        return 0.0
    return sum((a - mu_u) * (b - mu_v) for a, b in zip(u, v)) / math.sqrt(su * sv)


def label_rbf_ref(Y):
    """Appendix B: S_ij = exp(-||y_i - y_j||^2 / (2 delta'^2)) if <y_i, y_j> != 0 else 0, label columns y_i,
    delta'^2 = mean(||y_i - y_j||^2) over i, j = 1..l."""
    Y = np.asarray(Y, dtype=float)
    l = Y.shape[1]
    squared = [[float(np.sum((Y[:, i] - Y[:, j]) ** 2)) for j in range(l)] for i in range(l)]
    delta2 = sum(sum(row) for row in squared) / (l * l)
    S = np.zeros((l, l))
    for i in range(l):
        for j in range(l):
            if float(Y[:, i] @ Y[:, j]) != 0:
                S[i, j] = math.exp(-squared[i][j] / (2 * delta2))
    return S


def label_code_ref(Y):
    """The authors' code: exp(-D) / (2 dbar), D plain Euclidean distances of the label columns, no mask."""
    Y = np.asarray(Y, dtype=float)
    l = Y.shape[1]
    D = np.array([[math.sqrt(float(np.sum((Y[:, i] - Y[:, j]) ** 2))) for j in range(l)] for i in range(l)])
    return np.exp(-D) / (2 * D.mean())


def standardize_ref(X, ddof=0):
    """Each column minus its mean, divided by its standard deviation (ddof); constant columns 0."""
    X = np.asarray(X, dtype=float)
    Z = np.zeros_like(X)
    n = X.shape[0]
    for j in range(X.shape[1]):
        column = [float(v) for v in X[:, j]]
        mean = sum(column) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in column) / (n - ddof))
        if max(column) > min(column):
            Z[:, j] = [(v - mean) / sd for v in column]
    return Z


def gamma_star_ref(S, n):
    """Gamma* = n Phi Sigma^(1/2), eigenvalues decreasing, negative ones 0, each eigenvector signed so that
    its largest-|.| entry is positive."""
    values, vectors = np.linalg.eigh(S)
    order = sorted(range(len(values)), key=lambda i: -values[i])
    gamma = np.zeros_like(S)
    for column, i in enumerate(order):
        vector = vectors[:, i].copy()
        biggest = max(range(len(vector)), key=lambda r: (abs(vector[r]), -r))
        if vector[biggest] < 0:
            vector = -vector
        gamma[:, column] = n * vector * math.sqrt(max(values[i], 0.0))
    return gamma


def _k_smallest_ref(values, k):
    return sorted(sorted(range(len(values)), key=lambda i: (values[i], i))[:k])


def elc_ref(X, Y, k, lam=1e-3, beta=1e8, tau="paper", max_iter=1000, tol=1e-4, sign=-1.0):
    """Algorithm 1 of the ELC paper, literally (data without constant columns).

    sign = -1: u_i = shrink(w_i - v_i / beta) (from Eq. 5-6); +1: as Eq. 7-9 print it.
    tau: 'paper' (spectral radius of A^T A, then 1 / max_i ||psi_i||), 'lipschitz' (1 / rho) or a number.
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n, d = X.shape
    Z = standardize_ref(X)
    S = label_rbf_ref(Y)
    G = gamma_star_ref(S, n)
    A = Y.T @ Z
    alone = [float(np.sum((np.outer(A[:, i], A[:, i]) / n ** 2 - S) ** 2)) for i in range(d)]
    p = _k_smallest_ref(alone, k)
    W = np.zeros((d, Y.shape[1]))
    V = np.ones((d, Y.shape[1])) / d
    rho = max(np.linalg.eigvalsh(A.T @ A))
    t_value = rho if tau == "paper" else (1 / rho if tau == "lipschitz" else float(tau))
    records = {"objective": [], "relaxed_objective": [], "w_change": [], "tau": [], "p": [list(p)]}
    for _ in range(max_iter):
        U = np.zeros_like(W)
        for i in range(d):
            z = W[i] + sign * V[i] / beta
            norm = math.sqrt(float(z @ z))
            if norm > 0:
                U[i] = max(norm - lam / beta, 0.0) * z / norm
        P = np.diag([1.0 if i in p else 0.0 for i in range(d)])
        Omega = P @ A.T @ (A @ P @ W - G)
        W_new = t_value / (beta * t_value + 1) * (beta * U + V + (W - t_value * Omega) / t_value)
        residual = [float(np.sum((np.outer(Y.T @ Z[:, i], W_new[i]) - G) ** 2)) for i in range(d)]
        p = _k_smallest_ref(residual, k)
        V = V - beta * (W_new - U)
        change = math.sqrt(float(np.sum((W_new - W) ** 2)))
        Z_F = Z[:, p]
        records["objective"].append(0.5 * float(np.sum((Y.T @ Z_F @ Z_F.T @ Y / n ** 2 - S) ** 2)))
        P = np.diag([1.0 if i in p else 0.0 for i in range(d)])
        records["relaxed_objective"].append(0.5 * float(np.sum((A @ P @ W_new - G) ** 2))
                                            + lam * sum(math.sqrt(float(w @ w)) for w in W_new))
        records["w_change"].append(change)
        records["tau"].append(t_value)
        records["p"].append(list(p))
        W = W_new
        if tau == "paper":
            Psi = A.T @ A @ V
            t_value = 1.0 / max(math.sqrt(float(row @ row)) for row in Psi)
        if change <= tol:
            break
    return {"selected": p, "W": W, "residual": residual, "alone": alone, "S": S, "gamma": G, **records}


def hamming_loss_ref(Y, P):
    """1/n sum_i |h(x_i) symmetric-difference Y_i| / l."""
    n, l = len(Y), len(Y[0])
    return sum(sum(1 for j in range(l) if Y[i][j] != P[i][j]) / l for i in range(n)) / n


def _degenerate_ref(row):
    return sum(row) == 0 or sum(row) == len(row)


def one_error_ref(Y, F, skip_degenerate=True):
    """1/n sum_i [argmax_y f(x_i, y) not in Y_i]; the first maximum wins ties."""
    errors = []
    for row, scores in zip(Y, F):
        if skip_degenerate and _degenerate_ref(row):
            continue
        top = 0
        for j in range(len(scores)):
            if scores[j] > scores[top]:
                top = j
        errors.append(0.0 if row[top] == 1 else 1.0)
    return sum(errors) / len(errors) if errors else float("nan")


def ranking_loss_ref(Y, F, skip_degenerate=True):
    """1/n sum_i |{(y', y'') in Y_i x Ybar_i : f(y') <= f(y'')}| / (|Y_i| |Ybar_i|); degenerate rows 0 or skipped."""
    losses = []
    for row, scores in zip(Y, F):
        if _degenerate_ref(row):
            if not skip_degenerate:
                losses.append(0.0)
            continue
        relevant = [j for j in range(len(row)) if row[j] == 1]
        irrelevant = [j for j in range(len(row)) if row[j] == 0]
        wrong = sum(1 for a in relevant for b in irrelevant if scores[a] <= scores[b])
        losses.append(wrong / (len(relevant) * len(irrelevant)))
    return sum(losses) / len(losses) if losses else float("nan")


def average_precision_ref(Y, F, skip_degenerate=True):
    """1/n sum_i 1/|Y_i| sum_{y in Y_i} |{y' in Y_i: rank(y') <= rank(y)}| / rank(y),
    rank(y) = |{y'': f(y'') >= f(y)}|; degenerate rows 1 or skipped."""
    values = []
    for row, scores in zip(Y, F):
        if _degenerate_ref(row):
            if not skip_degenerate:
                values.append(1.0)
            continue
        l = len(row)
        rank = [sum(1 for m in range(l) if scores[m] >= scores[j]) for j in range(l)]
        relevant = [j for j in range(l) if row[j] == 1]
        values.append(sum(sum(1 for a in relevant if rank[a] <= rank[j]) / rank[j] for j in relevant)
                      / len(relevant))
    return sum(values) / len(values) if values else float("nan")


def macro_auc_ref(Y, F):
    """Mean over labels with both values of |{(x+, x-): f(x+) > f(x-)}| (+ 1/2 per tie) / (|P| |N|)."""
    n, l = len(Y), len(Y[0])
    aucs = []
    for j in range(l):
        positive = [F[i][j] for i in range(n) if Y[i][j] == 1]
        negative = [F[i][j] for i in range(n) if Y[i][j] == 0]
        if not positive or not negative:
            continue
        wins = sum(1.0 if a > b else (0.5 if a == b else 0.0) for a in positive for b in negative)
        aucs.append(wins / (len(positive) * len(negative)))
    return sum(aucs) / len(aucs) if aucs else float("nan")


def residual_redundancy_ref(X, Y, columns):
    """Eq. 16: 1 / (k'(k'-1) l) sum_{i != j in F} sum_c rho(f_i, y_c)^2 rho(f_j, y_c)^2."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    k, l = len(columns), Y.shape[1]
    total = 0.0
    for a in columns:
        for b in columns:
            if a == b:
                continue
            for c in range(l):
                total += pearson_ref(X[:, a], Y[:, c]) ** 2 * pearson_ref(X[:, b], Y[:, c]) ** 2
    return total / (k * (k - 1) * l)


def residual_label_correlation_ref(X, Y, columns, S=None):
    """Eq. 17: 1 / (k'(k'-1)) ||(1/n^2) Y^T X_F X_F^T Y - S||_F with unit-variance features."""
    Z = standardize_ref(np.asarray(X, dtype=float)[:, columns])
    Y = np.asarray(Y, dtype=float)
    n, k = Z.shape
    if S is None:
        S = label_rbf_ref(Y)
    M = Y.T @ Z @ Z.T @ Y / n ** 2 - S
    return math.sqrt(float(np.sum(M * M))) / (k * (k - 1))


def mlknn_ref(X_train, Y_train, X_test, k=10, s=1.0):
    """ML-kNN (Zhang & Zhou 2007, Fig. 1) with loops: (posteriors, predictions) for X_test.

    Neighbours by squared Euclidean distance, ties to the lower training index; a training instance
    is not its own neighbour; prediction 1 when P(H1) P(E|H1) >= P(H0) P(E|H0)."""
    X_train = np.asarray(X_train, dtype=float)
    Y_train = np.asarray(Y_train, dtype=int)
    m, q = Y_train.shape

    def neighbours(x, exclude=None):
        distances = [(float(np.sum((x - X_train[i]) ** 2)), i) for i in range(m) if i != exclude]
        return [i for _, i in sorted(distances)[:k]]

    prior = [(s + sum(Y_train[i][j] for i in range(m))) / (s * 2 + m) for j in range(q)]
    c_true = [[0] * (k + 1) for _ in range(q)]
    c_false = [[0] * (k + 1) for _ in range(q)]
    for i in range(m):
        near = neighbours(X_train[i], exclude=i)
        for j in range(q):
            delta = sum(Y_train[a][j] for a in near)
            if Y_train[i][j] == 1:
                c_true[j][delta] += 1
            else:
                c_false[j][delta] += 1
    like_true = [[(s + c_true[j][c]) / (s * (k + 1) + sum(c_true[j])) for c in range(k + 1)] for j in range(q)]
    like_false = [[(s + c_false[j][c]) / (s * (k + 1) + sum(c_false[j])) for c in range(k + 1)] for j in range(q)]
    posteriors, predictions = [], []
    for x in np.asarray(X_test, dtype=float):
        near = neighbours(x)
        row_p, row_y = [], []
        for j in range(q):
            c = sum(Y_train[a][j] for a in near)
            yes = prior[j] * like_true[j][c]
            no = (1 - prior[j]) * like_false[j][c]
            row_p.append(yes / (yes + no))
            row_y.append(1 if yes >= no else 0)
        posteriors.append(row_p)
        predictions.append(row_y)
    return np.array(posteriors), np.array(predictions)


def elc_code_ref(X, Y, k, lam=1e-3, beta=1e8, tmax=1000, ed=1e-4):
    """The authors' published ELC.m, statement by statement (0-based indices; Gamma*'s eigenvector
    signs by gamma_star_ref's rule).  Returns (selected indices ascending, loop count t, final W)."""
    Y = np.asarray(Y, dtype=float)
    data = standardize_ref(X, ddof=1)
    n, m = data.shape
    SC = label_code_ref(Y)
    T = gamma_star_ref(SC, n)
    r = []
    for i in range(m):
        CC = (data[:, i] @ Y / n)[None, :]
        D = CC.T @ CC - SC
        r.append(float(np.trace(D @ D.T)))
    INX = sorted(range(m), key=lambda i: (r[i], i))
    A = Y.T @ data
    Wt1 = np.zeros((m, Y.shape[1]))
    Wt = np.zeros((m, Y.shape[1]))
    Vt = np.ones((m, Y.shape[1])) / m
    pt = np.zeros(m)
    pt[INX[:k]] = 1
    tao = 1 / max(abs(np.linalg.eigvals(A.T @ A)))
    t = 0
    while t <= tmax:
        if np.linalg.norm(Wt1 - Wt, 2) <= ed and t > 1:
            break
        Wt = Wt1
        Zt = Wt + Vt / beta
        theta = np.linalg.norm(Zt, 2) - lam / beta
        Ut1 = max(theta, 0) * Zt / np.linalg.norm(Zt, 2)
        Omega = np.diag(pt) @ A.T @ (A @ np.diag(pt) @ Wt - T)
        Wt1 = (tao / (beta * tao + 1)) * (beta * Ut1 + Vt + (Wt - tao * Omega) / tao)
        rt = []
        for jj in range(m):
            x = np.outer(Y.T @ data[:, jj], Wt1[jj, :]) - T
            rt.append(float(np.trace(x @ x.T)))
        order = sorted(range(m), key=lambda i: (rt[i], i))
        pt = np.zeros(m)
        pt[order[:k]] = 1
        Vt = Vt - beta * (Wt1 - Ut1)
        t = t + 1
        tao = 1 / np.linalg.norm((A.T @ A @ Vt).max(axis=0), 2)
    return sorted(int(i) for i in np.flatnonzero(pt)), t, Wt1

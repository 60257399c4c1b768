"""The online passive-aggressive learners, one example at a time with Python lists and floats.

Straight from the update rules of:

* Crammer, Dekel, Keshet, Shalev-Shwartz & Singer (2006), "Online passive-aggressive
  algorithms", JMLR 7: the hinge loss and the PA, PA-I and PA-II steps (the tau of their
  Figure 1);
* Han, Tan, Zhu, Guo, Chen & Wu (2016), "Online feature selection of class imbalance via PA
  algorithm", J. Comput. Sci. Technol. 31(4): the margin-based loss of MBPA and the synthetic
  negatives of ONPA (Eq. 1-10, Algorithms 1-2);
* Wang, Zhao & Hoi (2014), "Cost-sensitive online classification", IEEE TKDE 26(10): the type-I
  cost-sensitive loss with the minority class -1 and the step C / sqrt(t);
* Langford, Li & Zhang (2009), "Sparse online learning via truncated gradient", JMLR 10: the
  truncation T(v, a, theta) every K rounds (Eq. 9-10 of Han et al.);
* Steele, Lea & Flood (2014), "Fast splittable pseudorandom number generators", OOPSLA:
  SplitMix64, on Python integers.

Dense rows only (a CSR row is compared through its dense copy); every sum runs j = 0..d-1 in a
plain loop.  The random draws follow the protocol the kernel documents (SplitMix64; slot then
alpha per synthetic negative, then one reservoir draw when the memory is full), re-implemented
here from its definition; the memory is a list of dense rows.  Nothing here imports fstools.
"""
import math

import numpy as np


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


#: fstools method -> (loss, step, synthesis) of :func:`online_pa_ref`.
ONLINE_VARIANTS = {
    "pa": ("hinge", "pa", None),
    "pa1": ("hinge", "pa1", None),
    "pa2": ("hinge", "pa2", None),
    "mbpa": ("margin_based", "pa1", None),
    "onpa": ("hinge", "pa", "extrapolate"),
    "cs": ("cost_sensitive", "ogd", None),
}

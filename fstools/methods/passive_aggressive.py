"""Online feature selection for imbalanced streams: PA, PA-I, PA-II, MBPA, ONPA and CS.

Han, Tan, Zhu, Guo, Chen and Wu (2016), "Online feature selection of class
imbalance via PA algorithm", J. Comput. Sci. Technol. 31(4):
a linear classifier ``sign(w . x)`` learnt one example at a time, with
truncated gradient (Langford, Li and Zhang 2009) shrinking small weights every
K rounds; at any time the selected features are the M largest ``|w_j|`` and
the classifier keeps only their weights.  Labels are +1 for the majority
("positive") class and -1 for the minority ("negative") class, as in the paper.

Methods (the per-example rules are in the kernel :mod:`fstools._ext._online`):

* ``pa``, ``pa1``, ``pa2`` -- passive-aggressive, PA-I, PA-II (Crammer et al.
  2006; paper Eq. 1-6) with truncated gradient: the paper's "PA" baseline;
* ``mbpa`` -- margin-based PA (Algorithm 1): the loss of Eq. 7 with margin
  rho = p / n for negatives, PA-I step (Eq. 8);
* ``onpa`` -- oversampling-negative PA (Algorithm 2): a PA update (Eq. 3) and,
  after each negative, floor(beta p / n) updates on synthetic negatives
  x + alpha (x - x_p) built with earlier negatives x_p;
* ``cs`` -- cost-sensitive online gradient descent (Wang, Zhao and Hoi 2014,
  type-I loss, step C / sqrt(t)) with truncated gradient: the paper's "CS"
  baseline.  Their rare class is +1; here it is -1, so the larger margin
  rho goes to y = -1: l = max(0, (rho if y = -1 else 1) - y w.x), with rho =
  p / n estimated online (their "sum" setting with equal weights on the two
  accuracies: rho = (eta_n / eta_p)(T_p / T_n)) unless ``cost_ratio`` fixes it.

Choices the paper leaves open, made here:

* Counters p and n start at 1 and are incremented before the loss
  (Algorithms 1-2, lines 1 and 5-9); they count real examples only.
* MBPA's negative loss is clamped at 0: ``max(0, rho - m)`` (the paper's
  rho - m would be negative for rho < m <= 1, a step away from the label).
* ONPA: N = floor(beta p / n) synthetic examples (rounded down; beta = 1 by
  default, section 3.2.2); none while no earlier negative is remembered; the
  synthetic update uses the same step rule as the real one and does not count
  as a round.  The earlier negatives are a bounded memory: a uniform
  reservoir sample (Vitter's algorithm R) of at most ``memory`` rows (the paper
  keeps all of them: ``memory=None``).  ``synthesis="interpolate"`` (the
  default) is the paper's prose, x + alpha (x_p - x); ``"extrapolate"`` its
  formula x + alpha (x - x_p) (Algorithm 2 line 15; ``preset="paper"``);
  alpha ~ U(0, 1) open.  The default follows a study (DEFAULT_SYNTHESIS).
  Note: after a PA step (Eq. 3) on a negative x, w . x = -1, so the
  extrapolated point has hinge loss alpha max(0, -1 - w . x_p): it updates w
  only when x_p is already beyond the margin; the interpolated point carries
  the loss of a misclassified x_p.  The vignette compares the two.
* Truncation T uses Langford et al.'s closed intervals 0 < |v| <= theta (the
  paper's Eq. 10 writes them open); it is applied to the PA-updated w when
  t % K == 0, with gravity a = eta K g (section 3.3).
* Prediction: +1 when the margin is >= 0 (as LIBOL does; sign(0) is not
  defined in the paper), so a fresh learner predicts the majority class.
* Selected features: the M largest |w_j|, ties to the lower column index;
  the M-feature classifier zeroes every other weight (Algorithms 1-2, line
  13).  Zero-weight features fill the budget when fewer than M weights are
  nonzero (a note says so).
* Stream (prequential) metrics: each example is predicted before it is
  learnt from (test-then-train), by the M-feature classifier of that moment
  (w_t restricted to its M largest weights) -- the classifier a user of the
  selector would deploy -- and also by the learner's full w_t (Algorithm
  lines 4).  With several passes, the metrics are those of the first pass
  (later passes predict rows already learnt from).
* Labels: the majority class of the (first) data is +1 unless ``positive``
  names it; on a tie the label that sorts last is +1.  Binary only: more than
  two classes is an error (make the response binary first, as the paper does
  with "0 vs rest").
* No intercept (the paper's w . x has none).
"""
import math
import numbers
from dataclasses import dataclass, field

from typing import NamedTuple

import numpy as np
from scipy import sparse

from fstools._ext import _online
from fstools.core.constraints import (is_bool, is_none_or, is_nonnegative_number, is_one_of, is_positive_integer,
                                    is_positive_number, is_seed, none_or_float, none_or_int)
from fstools.core.ranking import rank_features
from fstools.core.constraints import Constraint
from fstools.core.messages import format_count
from fstools.methods.registry import MethodOutput, MethodSpec, Parameter, Preset, register

__all__ = ["OnlineLearner", "OnlineOutput", "ONLINE_METHODS", "ONLINE_PARAMETERS", "check_online_params",
           "all_finite", "as_stream_matrix", "choose_positive", "confusion_counts", "counts_metrics", 
           "seed_from", "pa", "pa1", "pa2", "mbpa", "onpa", "cs", "DEFAULT_GRAVITY", "DEFAULT_SYNTHESIS"]


@dataclass(frozen=True)
class _Rule:
    loss: str
    update: str
    synthesis: bool
    description: str
    reference: str
    criterion: str


#: What each method is made of: its loss (kernel step 3), default step rule, synthetic negatives.
ONLINE_METHODS = {
    "pa": _Rule("hinge", "pa", False,
                "passive-aggressive (PA) with truncated gradient: online linear classifier on M features",
                "Crammer et al. (2006) JMLR 7:551-585; Langford, Li & Zhang (2009) JMLR 10:777-801",
                "l = max(0, 1 - y w.x),  w += tau y x,  tau = l / ||x||^2  (Eq. 1, 3); "
                "every K rounds w_j <- T(w_j, eta K g, theta) (Eq. 9-10); keep the M largest |w_j|"),
    "pa1": _Rule("hinge", "pa1", False,
                 "PA-I with truncated gradient: online linear classifier on M features",
                 "Crammer et al. (2006) JMLR 7:551-585; Langford, Li & Zhang (2009) JMLR 10:777-801",
                 "l = max(0, 1 - y w.x),  w += tau y x,  tau = min(C, l / ||x||^2)  (Eq. 1, 6); "
                 "every K rounds w_j <- T(w_j, eta K g, theta); keep the M largest |w_j|"),
    "pa2": _Rule("hinge", "pa2", False,
                 "PA-II with truncated gradient: online linear classifier on M features",
                 "Crammer et al. (2006) JMLR 7:551-585; Langford, Li & Zhang (2009) JMLR 10:777-801",
                 "l = max(0, 1 - y w.x),  w += tau y x,  tau = l / (||x||^2 + 1/(2C)); "
                 "every K rounds w_j <- T(w_j, eta K g, theta); keep the M largest |w_j|"),
    "mbpa": _Rule("margin_based", "pa1", False,
                  "margin-based PA (MBPA) for imbalanced streams, with truncated gradient",
                  "Han, Tan, Zhu, Guo, Chen & Wu (2016) J. Comput. Sci. Technol. 31(4), Algorithm 1",
                  "l = -y w.x if y = +1 and y w.x <= 0;  max(0, rho - y w.x) if y = -1 and y w.x <= 1;  "
                  "rho = p / n  (Eq. 7);  tau = min(C, l / ||x||^2)  (Eq. 8); TG every K rounds; "
                  "keep the M largest |w_j|"),
    "onpa": _Rule("hinge", "pa", True,
                  "oversampling-negative PA (ONPA) for imbalanced streams, with truncated gradient",
                  "Han, Tan, Zhu, Guo, Chen & Wu (2016) J. Comput. Sci. Technol. 31(4), Algorithm 2",
                  "PA update (Eq. 1, 3); after a negative, floor(beta p / n) PA updates on "
                  "x_q = x + alpha (x - x_p), x_p an earlier negative, alpha ~ U(0, 1); TG every K rounds; "
                  "keep the M largest |w_j|"),
    "cs": _Rule("cost_sensitive", "ogd", False,
                "cost-sensitive online gradient descent (CS) with truncated gradient",
                "Wang, Zhao & Hoi (2014) IEEE TKDE 26(10):2425-2438; Langford, Li & Zhang (2009)",
                "l = max(0, (rho if y = -1 else 1) - y w.x),  rho = p / n (or cost_ratio),  "
                "w += (C / sqrt(t)) y x when l > 0; TG every K rounds; keep the M largest |w_j|"),
}

_LOSS_CODES = {"hinge": "LOSS_HINGE", "margin_based": "LOSS_MARGIN_BASED", "cost_sensitive": "LOSS_COST_SENSITIVE"}
_UPDATES = ("pa", "pa1", "pa2")
_TRUNCATIONS = ("gradient", "topk", "none")
_SYNTHESES = ("extrapolate", "interpolate")


# --------------------------------------------------------------------------
# Parameters: one definition, used by the registry (fs.select) and OnlineSelector.
# --------------------------------------------------------------------------

def _is_threshold(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and not math.isnan(value) \
        and float(value) > 0.0


def _is_label(value):
    return value is None or isinstance(value, (str, numbers.Integral, np.integer, np.str_))


def _words(values):
    return "one of " + ", ".join(repr(v) for v in values)


#: Default gravity g (the paper gives no value).  A defaults study on a w8a-like stream (49,749 x
#: 300 binary features, 4 % non-zero, 3 % minority; the online vignette, part 6) found that the
#: truncation's shrink ``eta g`` per round must stay below the rarely updated minority weights: at
#: g = 0.01 (the earlier default) PA, ONPA and CS predict almost only the majority (specificity
#: 0.03, 0.03, 0.0), at g = 1e-4 CS still does, and at g <= 1e-5 every method keeps the minority
#: (g-mean at 1e-6, 3 orders: PA 0.62, CS 0.57, MBPA 0.70, ONPA 0.72 with the interpolated
#: synthetic point).
DEFAULT_GRAVITY = 1e-6

#: Default synthetic point of ONPA: the paper's prose ("on the connection line"), which the same
#: study found is what makes ONPA beat PA (g-mean 0.72 against 0.62); the printed formula of
#: Algorithm 2 line 15 (``'extrapolate'``) leaves ONPA level with PA (0.61) and is ``preset='paper'``.
DEFAULT_SYNTHESIS = "interpolate"

ONLINE_PARAMETERS = {
    "C": Parameter(
        "C", 1.0, "aggressiveness C: PA-I tau = min(C, l/||x||^2) (Eq. 4, 6; MBPA's Eq. 8), PA-II "
        "tau = l/(||x||^2 + 1/(2C)) (Eq. 5); for cs the step scale C/sqrt(t) (Wang, Zhao & Hoi 2014). "
        "C = 1 as in LIBOL (the paper gives no value)", Constraint("a finite number > 0", is_positive_number, float)),
    "eta": Parameter(
        "eta", 0.1, "learning rate eta of the truncated gradient (Eq. 9): the gravity applied every K rounds "
        "is a = eta K g (section 3.3); the paper gives no value", Constraint("a finite number > 0", is_positive_number,
        float)),
    "g": Parameter(
        "g", DEFAULT_GRAVITY, "gravity g >= 0 of the truncated gradient: g_t = K g when t % K == 0 (section "
        "3.3), shrink a = eta K g (Eq. 9-10); 0 switches the shrinking off; the paper gives no value",
        Constraint("a finite number >= 0", is_nonnegative_number, float)),
    "theta": Parameter(
        "theta", float("inf"), "threshold theta of T(v, a, theta) (Eq. 10): only weights with |w_j| <= theta "
        "shrink; inf shrinks every weight (Langford et al. 2009, the L1 case)", Constraint("a number > 0 (inf allowed)",
        _is_threshold, float)),
    "K": Parameter(
        "K", 10, "truncate every K rounds (t % K == 0; Algorithm 1 line 11, Algorithm 2 line 17; section 3.3: "
        "'we should not take K = 1'); the paper gives no value", Constraint("an integer >= 1", is_positive_integer, int)),
    "truncate": Parameter(
        "truncate", "gradient", "every K rounds: 'gradient' = T(w, eta K g, theta) (Eq. 9-10, the paper); "
        "'topk' = keep the k largest |w_j| (OFS, Wang et al. 2014, with K = 1); 'none'",
        Constraint(_words(_TRUNCATIONS), is_one_of(_TRUNCATIONS))),
    "update": Parameter(
        "update", None, "step rule: None = the method's own (mbpa: 'pa1', Eq. 8; onpa: 'pa', Eq. 3 in "
        "Algorithm 2 lines 10 and 16); 'pa', 'pa1' or 'pa2'", Constraint("None or " + _words(_UPDATES),
        lambda value: value is None or (isinstance(value, str) and value in _UPDATES))),
    "beta": Parameter(
        "beta", 1.0, "ONPA scale beta: N = floor(beta p / n) synthetic negatives per negative (section 3.2.2)",
        Constraint("a finite number > 0", is_positive_number, float)),
    "synthesis": Parameter(
        "synthesis", DEFAULT_SYNTHESIS, "ONPA synthetic negative: 'interpolate' = x + alpha (x_p - x) (the "
        "paper's prose; the default, see DEFAULT_SYNTHESIS); 'extrapolate' = x + alpha (x - x_p) (Algorithm 2 "
        "line 15 as printed; preset='paper')",
        Constraint(_words(_SYNTHESES), is_one_of(_SYNTHESES))),
    "memory": Parameter(
        "memory", 1000, "ONPA: earlier negatives remembered, a uniform reservoir sample of at most this many "
        "rows; None keeps all of them (the paper's D, unbounded)", Constraint("None or an integer >= 1",
        is_none_or(is_positive_integer), none_or_int)),
    "cost_ratio": Parameter(
        "cost_ratio", None, "cs: margin rho of the minority class in the type-I loss; None = p / n estimated "
        "online (Wang, Zhao & Hoi 2014, 'sum' with equal weights)", Constraint("None or a finite number > 0",
        is_none_or(is_positive_number), none_or_float)),
    "passes": Parameter(
        "passes", 1, "passes over the rows (the stream metrics are those of the first pass)",
        Constraint("an integer >= 1", is_positive_integer, int)),
    "shuffle": Parameter(
        "shuffle", False, "stream the rows in a random order (a new one each pass) drawn with random_state",
        Constraint("True or False", is_bool, bool)),
    "random_state": Parameter(
        "random_state", 0, "seed of the row order (shuffle) and of ONPA's draws (same inputs, same outputs)",
        Constraint("None or an integer >= 0", is_seed, none_or_int)),
    "positive": Parameter(
        "positive", None, "the class coded +1 (the paper's positive = majority class); None = the majority "
        "class (a tie: the label that sorts last)", Constraint("None or one of the response's class labels", _is_label)),
}

_COMMON = ("eta", "g", "theta", "K", "truncate", "passes", "shuffle", "random_state", "positive")
_METHOD_PARAMETERS = {
    "pa": _COMMON,
    "pa1": ("C",) + _COMMON,
    "pa2": ("C",) + _COMMON,
    "mbpa": ("C", "update") + _COMMON,
    "onpa": ("C", "update", "beta", "synthesis", "memory") + _COMMON,
    "cs": ("C", "cost_ratio") + _COMMON,
}


def check_online_params(method, **params):
    """Check learner parameters with the registry's wording; returns them converted.

    Raises ValueError ``"<name>: must be <allowed>; got <value>"``.
    """
    if not isinstance(method, str) or method not in ONLINE_METHODS:
        raise ValueError(f"method: must be {_words(tuple(ONLINE_METHODS))}; got {method!r}")
    values = {}
    for name, value in params.items():
        values[name] = ONLINE_PARAMETERS[name].validate(value, f" for method {method!r}")
    return values


def seed_from(random_state):
    """A 64-bit seed from None, an integer >= 0, a numpy Generator or RandomState."""
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2 ** 64, dtype=np.uint64))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2 ** 63, dtype=np.int64))
    if random_state is None or (isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
                                and int(random_state) >= 0):
        return int(np.random.SeedSequence(random_state).generate_state(1, dtype=np.uint64)[0])
    raise ValueError(f"random_state: must be None, an integer >= 0, a numpy Generator or RandomState; "
                     f"got {random_state!r}")


# --------------------------------------------------------------------------
# Data and labels
# --------------------------------------------------------------------------

def all_finite(values):
    """Whether every entry of the numeric array ``values`` is finite.

    The sum is finite only then (NaN and inf propagate), so the common case costs one
    reduction without a temporary; a non-finite sum (or an overflowing one) falls back to
    the exact test.
    """
    if values.dtype.kind in "biu":
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        if values.dtype.kind == "f" and np.isfinite(np.add.reduce(values, axis=None)):
            return True
        return bool(np.isfinite(values).all())


def as_stream_matrix(X, name="X", check_finite=True):
    """Dense float64 C-contiguous array, or CSR in canonical format (never densified); finite values.

    Returns ``(matrix, is_sparse)``.  Other scipy sparse formats become CSR.  ``check_finite=False``
    skips the test for NaN and inf (for a caller that has made it already).
    """
    if sparse.issparse(X):
        matrix = X.tocsr() if X.format != "csr" else X
        if matrix.dtype != np.float64:
            matrix = matrix.astype(np.float64)
        if not matrix.has_canonical_format:
            matrix = matrix.copy()
            matrix.sum_duplicates()  # also sorts the indices
        if matrix.ndim != 2:
            raise ValueError(f"{name}: must be 2-D (samples x features)")
        if check_finite and not all_finite(matrix.data):
            raise ValueError(f"{name}: non-finite values (NaN or inf); allowed: finite numbers")
        if matrix.nnz and (matrix.indices.min() < 0 or matrix.indices.max() >= matrix.shape[1]):
            raise ValueError(f"{name}: CSR column indices outside 0..{matrix.shape[1] - 1}")
        return matrix, True
    array = np.asarray(X)
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise TypeError(f"{name}: must be numeric; got dtype {array.dtype}")
    if array.ndim != 2:
        raise ValueError(f"{name}: must be 2-D (samples x features); got {array.ndim}-D")
    array = np.ascontiguousarray(array, dtype=np.float64)
    if check_finite and not all_finite(array):
        raise ValueError(f"{name}: non-finite values (NaN or inf); allowed: finite numbers")
    return array, False


def choose_positive(labels, counts, positive=None):
    """The label coded +1: ``positive`` if given, else the most frequent (a tie: the one sorting last).

    ``labels`` are distinct and sorted, ``counts`` their frequencies.  Raises
    ValueError naming the allowed values when ``positive`` is not among ``labels``.
    """
    labels = list(labels)
    if positive is not None:
        for label in labels:
            if label == positive or str(label) == str(positive):
                return label
        raise ValueError(f"positive: must be one of the class labels {', '.join(repr(v) for v in labels)}; "
                         f"got {positive!r}")
    counts = np.asarray(counts)
    best = np.flatnonzero(counts == counts.max())
    return labels[int(best[-1])]


def confusion_counts(y_pm, margins):
    """[a, b, c, d] of the paper's Table 2: true +1 predicted +1 / -1, true -1 predicted +1 / -1.

    The prediction is +1 when the margin is >= 0.
    """
    cell = 2 * (np.asarray(y_pm) != 1) + (np.asarray(margins) < 0.0)   # 0 = a, 1 = b, 2 = c, 3 = d
    return np.bincount(cell.astype(np.intp), minlength=4).astype(np.int64)


def counts_metrics(counts):
    """Stream metrics from [a, b, c, d]: n, mistakes, mistake rate, sensitivity a/(a+b),
    specificity d/(c+d) and g-mean sqrt(sensitivity x specificity) (paper section 4.1); NaN when undefined."""
    a, b, c, d = (int(v) for v in counts)
    n = a + b + c + d
    sensitivity = a / (a + b) if a + b else float("nan")
    specificity = d / (c + d) if c + d else float("nan")
    return {"n": n, "mistakes": b + c, "mistake_rate": (b + c) / n if n else float("nan"),
            "sensitivity": sensitivity, "specificity": specificity,
            "g_mean": float(np.sqrt(sensitivity * specificity))}


# --------------------------------------------------------------------------
# The learner: kernel state and passes
# --------------------------------------------------------------------------

_NO_ROWS = np.empty(0)
_NO_SYNTHETIC = np.empty(0, dtype=np.int32)
_ROWS = np.arange(0, dtype=np.intp)


def _all_rows(n_rows):
    """0..n_rows-1 as intp (a cached, read-only array reused, up to 2**20 rows)."""
    global _ROWS
    if n_rows > 2 ** 20:
        return np.arange(n_rows, dtype=np.intp)
    if _ROWS.shape[0] < n_rows:
        _ROWS = np.arange(min(max(n_rows, 2 * _ROWS.shape[0]), 2 ** 20), dtype=np.intp)
        _ROWS.flags.writeable = False
    return _ROWS[:n_rows]


class _LearnerState(NamedTuple):
    """What a pass changes, saved to restore the learner when a row is refused."""

    weights: np.ndarray
    counters: np.ndarray
    random_state: np.ndarray
    memory: tuple | None


#: Rows of a dense X read at a time by :func:`_negative_row_widths`.
WIDTH_BLOCK_ROWS = 1 << 16


def _negative_row_widths(X, y_pm, order):
    """The number of nonzero values of each negative row (``y_pm == -1``) among the rows of
    ``order`` of a dense ``X``, a block of rows at a time: no copy of the negative rows (a third of
    X for a typical stream) and no sort of their indices, whose largest is all that is needed (the
    width of the memory of negatives)."""
    streamed = np.zeros(X.shape[0], dtype=bool)
    streamed[order] = True
    negative = streamed & (y_pm == -1)
    widths = [np.zeros(1, dtype=np.intp)]
    for start in range(0, X.shape[0], WIDTH_BLOCK_ROWS):
        rows = negative[start:start + WIDTH_BLOCK_ROWS]
        if rows.any():
            widths.append(np.count_nonzero(X[start:start + WIDTH_BLOCK_ROWS], axis=1)[rows])
    return np.concatenate(widths)


class OnlineLearner:
    """State of one online learner over ``n_features_in`` features (NumPy/CSR in, weights out).

    Parameters
    ----------
    method : {'pa', 'pa1', 'pa2', 'mbpa', 'onpa', 'cs'}
    n_selected : int
        M, the feature budget (1..n_features_in): the selected features, the
        M-feature classifier and ``truncate='topk'``.
    seed : int
        64-bit seed of ONPA's draws (see :func:`seed_from`).
    **params
        C, eta, g, theta, K, truncate, update, beta, synthesis, memory, cost_ratio
        (see :data:`ONLINE_PARAMETERS`; parameters a method does not use are ignored).
    """

    def __init__(self, method, n_features_in, n_selected, seed=0, *, C=1.0, eta=0.1, g=DEFAULT_GRAVITY,
                 theta=float("inf"), K=10, truncate="gradient", update=None, beta=1.0,
                 synthesis=DEFAULT_SYNTHESIS, memory=1000, cost_ratio=None):
        values = check_online_params(method, C=C, eta=eta, g=g, theta=theta, K=K, truncate=truncate,
                                     update=update, beta=beta, synthesis=synthesis, memory=memory,
                                     cost_ratio=cost_ratio)
        if not is_positive_integer(n_features_in):
            raise ValueError(f"n_features_in: must be an integer >= 1; got {n_features_in!r}")
        if not is_positive_integer(n_selected) or int(n_selected) > int(n_features_in):
            raise ValueError(f"n_features: must be an integer in 1..{n_features_in} (the number of features); "
                             f"got {n_selected!r}")
        rule = ONLINE_METHODS[method]
        self.method = method
        self.n_features_in = int(n_features_in)
        self.n_selected = int(n_selected)
        self.params = values
        self.update = rule.update if values["update"] is None or method not in ("mbpa", "onpa") \
            else values["update"]
        self.synthesis = values["synthesis"] if rule.synthesis else "none"
        self._settings = dict(
            loss=getattr(_online, _LOSS_CODES[rule.loss]),
            step=_online.STEPS[self.update],
            truncate=_online.TRUNCATIONS[values["truncate"]],
            synthesis=_online.SYNTHESES[self.synthesis],
            C=values["C"],
            gravity=values["eta"] * values["K"] * values["g"],
            theta=values["theta"],
            period=values["K"],
            topk=self.n_selected,
            beta=values["beta"],
            cost_ratio=values["cost_ratio"] if values["cost_ratio"] is not None else 0.0,
        )
        self.weights = np.zeros(self.n_features_in, dtype=np.float64)
        self.counters = np.zeros(_online.N_COUNTERS, dtype=np.int64)
        self.counters[_online.COUNTER_POSITIVE] = 1
        self.counters[_online.COUNTER_NEGATIVE] = 1
        self.random_state = np.array([int(seed) % 2 ** 64], dtype=np.uint64)
        self.memory_capacity = values["memory"]  # None: unbounded
        self.memory_indices = np.zeros((0, 0), dtype=np.int32)
        self.memory_values = np.zeros((0, 0), dtype=np.float64)
        self.memory_nnz = np.zeros(0, dtype=np.int32)

    # ------------------------------------------------------------ state
    @property
    def gravity(self):
        """a = eta K g, the shrink applied every K rounds (Eq. 9-10)."""
        return self._settings["gravity"]

    @property
    def rounds(self):
        return int(self.counters[_online.COUNTER_ROUNDS])

    @property
    def class_counters(self):
        """(p, n) of the paper: 1 + the positives / negatives seen."""
        return (int(self.counters[_online.COUNTER_POSITIVE]),
                int(self.counters[_online.COUNTER_NEGATIVE]))

    @property
    def memory_size(self):
        """Negatives currently remembered (ONPA)."""
        return int(self.counters[_online.COUNTER_MEMORY_FILLED])

    def remembered(self):
        """The remembered negatives as a CSR matrix (one row per filled slot)."""
        filled = self.memory_size
        nnz = self.memory_nnz[:filled].astype(np.int64)
        indptr = np.concatenate([[0], np.cumsum(nnz)])
        mask = np.arange(self.memory_indices.shape[1])[None, :] < nnz[:, None]
        return sparse.csr_matrix((self.memory_values[:filled][mask], self.memory_indices[:filled][mask], indptr),
                                 shape=(filled, self.n_features_in))

    def selected(self):
        """The M selected features: the largest |w_j|, largest first, ties to the lower index."""
        return rank_features(np.abs(self.weights), k=self.n_selected)

    def coefficients(self):
        """w with every weight outside the selected features set to 0 (the M-feature classifier)."""
        coef = np.zeros_like(self.weights)
        chosen = self.selected()
        coef[chosen] = self.weights[chosen]
        return coef

    # ------------------------------------------------------------ memory
    def _ensure_memory(self, X, is_sparse, y_pm, order):
        if self.synthesis == "none":
            return
        negatives = order[y_pm[order] == -1]
        if negatives.shape[0] == 0:
            return
        if is_sparse:
            nonzero = np.concatenate([[0], np.cumsum(X.data != 0.0)])
            widths = nonzero[X.indptr[negatives + 1]] - nonzero[X.indptr[negatives]]
        else:
            widths = _negative_row_widths(X, y_pm, order)
        width = max(int(widths.max()), self.memory_indices.shape[1])
        filled = self.memory_size
        if self.memory_capacity is None:
            capacity = max(filled + negatives.shape[0], self.memory_indices.shape[0])
        else:
            capacity = self.memory_capacity
        if capacity == self.memory_indices.shape[0] and width == self.memory_indices.shape[1]:
            return
        indices = np.zeros((capacity, width), dtype=np.int32)
        values = np.zeros((capacity, width), dtype=np.float64)
        nnz = np.zeros(capacity, dtype=np.int32)
        old_width = self.memory_indices.shape[1]
        indices[:filled, :old_width] = self.memory_indices[:filled]
        values[:filled, :old_width] = self.memory_values[:filled]
        nnz[:filled] = self.memory_nnz[:filled]
        self.memory_indices, self.memory_values, self.memory_nnz = indices, values, nnz

    # ------------------------------------------------------------ learning
    def learn(self, X, y_pm, order=None, budgets=(), is_sparse=None, record="rows"):
        """One pass over the rows ``order`` (default: all, in order) of ``X``; state carries over.

        Parameters
        ----------
        X : ndarray of float64 (C-contiguous) or CSR in canonical format
            As returned by :func:`as_stream_matrix`.
        y_pm : ndarray of int32
            +1 / -1 per row of ``X``.
        order : ndarray of intp, optional
        budgets : sequence of int
            Feature budgets whose prequential margins are recorded (1..n_features_in).
        record : {'rows', 'counts'}
            What the pass records: per row, or only the confusion counts.

        Returns
        -------
        With ``record='rows'``: dict with ``margins`` (learner, before each
        update), ``budget_margins`` (len(order) x len(budgets)), ``losses``,
        ``taus`` and ``synthetic``.  With ``record='counts'``: dict with
        ``counts``, int64 of shape (1 + len(budgets), 4): the prequential
        confusion counts [a, b, c, d] (see :func:`confusion_counts`) of the
        learner (row 0) and of each budget's M-feature classifier, counted in
        the kernel (nothing per row is kept).
        """
        if is_sparse is None:
            is_sparse = sparse.issparse(X)
        n_rows = X.shape[0]
        if X.shape[1] != self.n_features_in:
            raise ValueError(f"X: has {X.shape[1]} features; this learner was started with "
                             f"{self.n_features_in}")
        y_pm = np.ascontiguousarray(y_pm, dtype=np.int32)
        if y_pm.shape != (n_rows,):
            raise ValueError(f"y: expected {n_rows} labels (one per row), got shape {y_pm.shape}")
        order = _all_rows(n_rows) if order is None else np.ascontiguousarray(order, dtype=np.intp)
        budgets = np.ascontiguousarray(np.asarray(budgets, dtype=np.intp).reshape(-1))
        if record == "rows":
            n = order.shape[0]
            trace = {"margins": np.empty(n), "budget_margins": np.empty((n, budgets.shape[0])),
                     "losses": np.empty(n), "taus": np.empty(n), "synthetic": np.empty(n, dtype=np.int32)}
            confusion = None
        elif record == "counts":
            trace = {"margins": _NO_ROWS, "budget_margins": np.empty((0, budgets.shape[0])),
                     "losses": _NO_ROWS, "taus": _NO_ROWS, "synthetic": _NO_SYNTHETIC}
            confusion = np.zeros((budgets.shape[0] + 1, 4), dtype=np.int64)
        else:
            raise ValueError(f"record: must be 'rows' or 'counts'; got {record!r}")
        self._ensure_memory(X, is_sparse, y_pm, order)
        arguments = (self.weights, self.counters, self.random_state, self.memory_indices, self.memory_values,
                     self.memory_nnz, budgets, trace["margins"], trace["budget_margins"], trace["losses"],
                     trace["taus"], trace["synthetic"])
        # The pass is all or nothing: a refused row (labels, overflow) or Ctrl-C during the pass
        # (the kernel stops between rows) leaves the learner as it was.
        saved = self._state()
        try:
            if is_sparse:
                indices, indptr = X.indices, X.indptr
                if indices.dtype != indptr.dtype:
                    indices, indptr = indices.astype(np.int64), indptr.astype(np.int64)
                _online.online_pass_csr(X.data, indices, indptr, self.n_features_in, y_pm, order,
                                        *arguments, confusion=confusion, **self._settings)
            else:
                _online.online_pass_dense(X, y_pm, order, *arguments, confusion=confusion, **self._settings)
        except (ValueError, KeyboardInterrupt):
            self._restore(saved)
            raise
        return trace if confusion is None else {"counts": confusion}

    def _state(self):
        """A copy of what a pass changes (the remembered rows only when ONPA remembers any)."""
        filled = self.memory_size
        memory = None if self.synthesis == "none" else (self.memory_indices[:filled].copy(),
                                                        self.memory_values[:filled].copy(),
                                                        self.memory_nnz[:filled].copy())
        return _LearnerState(self.weights.copy(), self.counters.copy(), self.random_state.copy(), memory)

    def _restore(self, saved):
        self.weights[:] = saved.weights
        self.counters[:] = saved.counters
        self.random_state[:] = saved.random_state
        memory = saved.memory
        if memory is not None:
            filled = memory[0].shape[0]
            self.memory_indices[:filled] = memory[0]
            self.memory_values[:filled] = memory[1]
            self.memory_nnz[:filled] = memory[2]


# --------------------------------------------------------------------------
# Batch entry for fs.select
# --------------------------------------------------------------------------

@dataclass
class OnlineOutput(MethodOutput):
    """:class:`MethodOutput` plus what a stream shows: the class mapping and the stream metrics."""

    class_mapping: dict = field(default_factory=dict)
    stream_metrics: dict = field(default_factory=dict)


def _format_metrics(metrics):
    return (f"mistake rate {metrics['mistake_rate']:.4g}, g-mean {metrics['g_mean']:.4g}, specificity "
            f"{metrics['specificity']:.4g}, sensitivity {metrics['sensitivity']:.4g}")


def _run_online(method, X, y, k, n_threads=1, *, class_names=None, passes=1, shuffle=False, random_state=0,
                positive=None, **params):
    """Stream the rows of ``X`` (in order, or shuffled) through an online learner."""
    X, is_sparse = as_stream_matrix(X)
    n_rows, n_features = X.shape
    if n_rows == 0 or n_features == 0:
        raise ValueError(f"X: is empty (shape {X.shape}); need at least one sample and one feature")
    y = np.asarray(y)
    if y.shape != (n_rows,):
        raise ValueError(f"y: must be 1-D with one class code per sample ({n_rows}); got shape {y.shape}")
    codes, counts = np.unique(y, return_counts=True)
    names = [str(c) for c in codes] if class_names is None else [str(class_names[int(c)]) for c in codes]
    if len(codes) != 2:
        raise ValueError(f"response: online methods are binary (majority +1 vs minority -1); it has "
                         f"{len(codes)} class(es) ({', '.join(names)}). Make it binary first, e.g. one class "
                         f"against the rest")
    positive_name = choose_positive(names, counts, positive)
    positive_code = codes[names.index(positive_name)]
    negative_name = names[1 - names.index(positive_name)]
    y_pm = np.where(y == positive_code, 1, -1).astype(np.int32)
    M = n_features if k is None else int(k)
    rng = np.random.default_rng(random_state)
    learner = OnlineLearner(method, n_features, M, seed=seed_from(rng), **params)
    first = None
    for pass_number in range(int(passes)):
        order = rng.permutation(n_rows).astype(np.intp) if shuffle else np.arange(n_rows, dtype=np.intp)
        trace = learner.learn(X, y_pm, order, budgets=[M] if pass_number == 0 else [], is_sparse=is_sparse)
        if pass_number == 0:
            first = (y_pm[order], trace)
    y_stream, trace = first
    metrics = {"selected": counts_metrics(confusion_counts(y_stream, trace["budget_margins"][:, 0])),
               "learner": counts_metrics(confusion_counts(y_stream, trace["margins"]))}
    weights = learner.weights.copy()
    ranking = rank_features(np.abs(weights), k=n_features)
    mapping = {positive_name: 1, negative_name: -1}
    n_negative = int(np.sum(y_pm == -1))
    notes = [f"class mapping: {positive_name!r} -> +1 (positive, {n_rows - n_negative} rows), "
             f"{negative_name!r} -> -1 (negative, {n_negative} rows)"
             + ("" if positive is not None else "; +1 is the majority class (positive= changes it)"),
             f"stream (prequential, first pass, {n_rows} rows, predict then learn), {M}-feature classifier: "
             f"{_format_metrics(metrics['selected'])}",
             f"stream, learner's full w: {_format_metrics(metrics['learner'])}",
             f"weight = final w_j; score = |w_j|; the {M}-feature classifier keeps the {M} largest |w_j| "
             f"(ties to the lower column index)"]
    if passes > 1 or shuffle:
        notes.append(f"{format_count(int(passes), 'pass')}, {'shuffled' if shuffle else 'in row order'} "
                     f"(random_state = {random_state!r})")
    zero_selected = int(np.sum(weights[ranking[:M]] == 0.0))
    if zero_selected:
        notes.append(f"{zero_selected} of the {M} selected features have weight 0 (fewer than {M} nonzero "
                     f"weights): they fill the budget by lowest column index")
    if learner.synthesis != "none":
        notes.append(f"ONPA memory: {learner.memory_size} earlier negatives remembered"
                     + (" (all)" if learner.memory_capacity is None else
                        f" (reservoir of at most {learner.memory_capacity})"))
    return OnlineOutput(ranking=ranking if k is None else ranking[:M], scores=np.abs(weights),
                        columns={"weight": weights}, notes=notes, class_mapping=mapping, stream_metrics=metrics)


def _method_function(name):
    def run(X, y, k=None, n_threads=1, **params):
        return _run_online(name, X, y, k, n_threads, **params)

    run.__name__ = name
    run.__qualname__ = name
    run.__doc__ = (f"{ONLINE_METHODS[name].description} (see :mod:`fstools.methods.passive_aggressive`).\n\n"
                   f"``X`` dense or CSR, ``y`` two class codes; ``k`` = the budget M (None: all features).\n"
                   f"Returns an :class:`OnlineOutput`: ranking by |w_j|, scores |w_j|, column ``weight``.")
    return run


pa = _method_function("pa")
pa1 = _method_function("pa1")
pa2 = _method_function("pa2")
mbpa = _method_function("mbpa")
onpa = _method_function("onpa")
cs = _method_function("cs")

#: The paper's literal settings where the defaults differ (ONPA: Algorithm 2's printed synthetic
#: point, every earlier negative remembered, N = floor(p / n)).
_PRESETS = {"onpa": (Preset("paper", "Algorithm 2 as printed: x_q = x + alpha (x - x_p) (line 15), every earlier "
                            "negative remembered (D unbounded), beta = 1 (section 3.2.2)",
                            (("synthesis", "extrapolate"), ("memory", None), ("beta", 1.0))),)}

for _name, _function in (("pa", pa), ("pa1", pa1), ("pa2", pa2), ("mbpa", mbpa), ("onpa", onpa), ("cs", cs)):
    _rule = ONLINE_METHODS[_name]
    register(MethodSpec(
        name=_name,
        description=_rule.description,
        function=_function,
        parameters=tuple(ONLINE_PARAMETERS[p] for p in _METHOD_PARAMETERS[_name]),
        capabilities=frozenset({"supervised", "streaming", "sparse"}),
        score_name="|w|",
        higher_is_better=True,
        reference=_rule.reference,
        criterion=_rule.criterion,
        presets=_PRESETS.get(_name, ()),
    ))

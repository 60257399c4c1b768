"""The error bound of stability selection: any two of q, cutoff and PFER give the third.

Stability selection runs a selection procedure on many half-samples of the rows and keeps the
features chosen in at least a share ``cutoff`` of the runs, each run choosing ``q`` of the ``p``
features.  The expected number of noise features kept (the per-family error rate, PFER) is
bounded by a function of (q, p, cutoff) and, for complementary pairs under a shape assumption,
of the number of pairs B:

* ``sampling="MB"`` -- independent half-samples, Meinshausen & Buhlmann (2010), "Stability
  selection", Journal of the Royal Statistical Society B 72(4):417-473, Theorem 1::

      PFER <= q^2 / ((2 cutoff - 1) p)

  This bound takes no assumption on the selection probabilities, so ``assumption`` is ignored
  and reported as ``"none"``.
* ``sampling="SS"`` -- B complementary pairs of half-samples, Shah & Samworth (2013), "Variable
  selection with error control: another look at stability selection", Journal of the Royal
  Statistical Society B 75(1):55-80:

  - ``assumption="none"``: their Theorem 1 gives the same bound q^2 / ((2 cutoff - 1) p);
  - ``assumption="unimodal"``: their Theorem 2 (Eq. 7), q^2 / p times C(cutoff, B) with::

        C = 1 / (2 (2 cutoff - 1 - 1/(2B)))            cutoff in (min(1/2 + t^2, 1/2 + 1/(2B) + 3 t^2 / 4), 3/4]
        C = 4 (1 - cutoff + 1/(2B)) / (1 + 1/B)         cutoff in (3/4, 1]

    where t = q / p;
  - ``assumption="r-concave"``: their Eq. (8), p times the smaller of the tail bounds of an
    r-concave distribution, D(t^2, 2 cutoff - 1, B, -1/2) and D(t, cutoff, 2B, -1/4), each
    found by a root search and a one-dimensional maximisation per support size.

:func:`stability_selection_parameters` computes what R's ``stabs::stabsel_parameters`` computes
(stabs 0.6-4, Hofner & Hothorn), detail for detail, so that the same arguments give the same
q, cutoff and bound:

* the cutoff computed under "unimodal" is the smallest of 1/2 + j/(2B), j = 2..B, in the
  range of the bound whose bound is below PFER (an error when there is none); under
  "r-concave" the smallest multiple of 1/(2B) in [1/2, 1] whose bound is at most PFER, 1 when
  none is, and 1/2 itself when all are (a cutoff that cannot be given as an argument); under
  "none" it is (q^2 / (PFER p) + 1) / 2, at most 1;
* the q computed under "unimodal" is the floor of the root that R's ``uniroot`` finds (Brent's
  method with its default tolerance 1.2e-4), so that when the exact root is an integer the
  answer can be one less, as in ``stabs``;  under "none" it is floor(sqrt(PFER (2 cutoff - 1)
  p)); under "r-concave" the largest q whose bound is at most PFER, and at least 1;
* the ``pfer`` returned is the bound rounded to 3 significant digits (R's ``signif``);
  ``pfer_exact`` holds the unrounded bound;
* the r-concave bound reproduces the numerics of ``stabs`` (the same root finder and the same
  golden-section/parabolic maximiser with the same tolerances, :func:`_brent_root` and
  :func:`_brent_minima`): it agrees to about 1e-14 relative, and to 1e-16 absolute on the tail
  probabilities where they are tiny (they are 1 minus a ratio near 1, in R as here).  Where
  ``stabs`` walks through the cutoffs (from 1 down) or the q (from 1 up) until the bound
  exceeds PFER, this module bisects: the bound is monotone in both, so the answer is the same
  with a handful of bounds instead of up to B + 1 or p / 2.

Where ``stabs`` errors, this module raises a ValueError that names the argument.  Where
``stabs`` returns parameters whose bound exceeds the PFER asked for (the cutoff 1 of "none" and
"r-concave", the q = 1 of "r-concave") the same parameters are returned, with a warning.  Three
departures, each refused with a ValueError rather than returned: a computed q of 0 or of p or
more (``stabs`` returns it under "none"), and a unimodal bound whose constant
2 cutoff - 1 - 1/(2B) is not positive (``stabs`` returns a negative or infinite PFER).  Input
is checked more strictly than ``stabs`` does: q < p, cutoff > 1/2, PFER > 0.
"""
import functools
import math
import warnings
from dataclasses import dataclass

import numpy as np

from fstools.core.constraints import Constraint, integer_at_least, is_integer, is_number, one_of

__all__ = ["StabilityParameters", "stability_selection_parameters", "SAMPLINGS", "ASSUMPTIONS"]

SAMPLINGS = ("SS", "MB")
ASSUMPTIONS = ("unimodal", "r-concave", "none")

_DOUBLE_EPSILON = np.finfo(float).eps
# Tolerances of R's uniroot and optimize: the defaults (eps^(1/4)) and the one stabs passes
# for the r-concave root search (eps^(3/4)).
_DEFAULT_TOLERANCE = _DOUBLE_EPSILON ** 0.25
_FINE_TOLERANCE = _DOUBLE_EPSILON ** 0.75
_MAX_ITERATIONS = 1000
# The search interval of the shape parameter a of the extremal r-concave distributions.
_SMALLEST_A = 0.00001
_LARGEST_A = 100000.0

_BOUND_NAMES = {
    ("MB", "none"): "Meinshausen & Buhlmann (2010), Theorem 1: q^2 / ((2 cutoff - 1) p)",
    ("SS", "none"): "Shah & Samworth (2013), Theorem 1, no further assumption: q^2 / ((2 cutoff - 1) p)",
    ("SS", "unimodal"): "Shah & Samworth (2013), Theorem 2 (Eq. 7), unimodal selection probabilities",
    ("SS", "r-concave"): "Shah & Samworth (2013), Eq. 8, r-concave selection probabilities",
}

_HEADINGS = {
    "none": "Stability selection without further assumptions",
    "unimodal": "Stability selection with unimodality assumption",
    "r-concave": "Stability selection with r-concavity assumption",
}


@dataclass(frozen=True, repr=False)
class StabilityParameters:
    """The parameters of stability selection and their error bound, as ``stabs`` returns them.

    Attributes
    ----------
    p : int
        The number of features.
    q : int
        The number of features each run selects.
    cutoff : float
        The share of the runs a feature needs to be selected.
    pfer : float
        The bound on the PFER for (p, q, cutoff), rounded to 3 significant digits
        (``stabs``' ``PFER``).
    specified_pfer : float
        The PFER asked for; when q and cutoff were given, the unrounded bound
        (``stabs``' ``specifiedPFER``).
    sampling : str
        ``"SS"`` (complementary pairs) or ``"MB"`` (independent half-samples).
    assumption : str
        The assumption behind the bound; always ``"none"`` for ``"MB"``.
    B : int
        The number of complementary pairs (``"SS"``) or half-samples (``"MB"``).
    bound : str
        Which bound was used, in words.
    pfer_exact : float
        The bound before rounding.
    """

    p: int
    q: int
    cutoff: float
    pfer: float
    specified_pfer: float
    sampling: str
    assumption: str
    B: int
    bound: str
    pfer_exact: float

    def __repr__(self):
        lines = [_HEADINGS[self.assumption]]
        values = f"Cutoff: {_r_number(self.cutoff)}; q: {self.q}; "
        if self.sampling == "MB":
            lines.append(values + f"PFER: {_r_number(self.pfer)}")
        else:
            lines.append(values + f"PFER (*): {_r_number(self.pfer)}")
            lines.append("   (*) or expected number of low selection probability variables")
        lines.append(f"PFER (specified upper bound): {_r_number(self.specified_pfer)}")
        level = _r_signif(self.pfer / self.p, 3)
        lines.append(f"PFER corresponds to signif. level {_r_number(level)} (without multiplicity adjustment)")
        if self.sampling == "SS":
            runs = f"{self.B} complementary pairs of half-samples"
        else:
            runs = f"{self.B} half-samples"
        lines.append(f"Bound: {self.bound}; {runs}, p = {self.p}")
        return "\n".join(lines)


def stability_selection_parameters(p, q=None, cutoff=None, pfer=None, B=50, sampling="SS",
                                   assumption="unimodal"):
    """The third of q, cutoff and PFER from the other two, as R's ``stabs::stabsel_parameters``.

    Parameters
    ----------
    p : int
        The number of features, at least 2.
    q : int, optional
        The number of features each run selects, 1..p-1.
    cutoff : float, optional
        The share of the runs a feature needs, in (0.5, 1].
    pfer : float, optional
        The bound to meet on the per-family error rate (the expected number of selected noise
        features), > 0.
    B : int, default 50
        The number of complementary pairs (``"SS"``: 2B runs) or half-samples (``"MB"``), at
        least 1.  The bound depends on it under "unimodal" and "r-concave" (which needs B >= 2);
        ``stabs``' default is 100 for "MB", where B does not enter the bound.
    sampling : {'SS', 'MB'}, default 'SS'
        Complementary pairs (Shah & Samworth 2013) or independent half-samples (Meinshausen &
        Buhlmann 2010).
    assumption : {'unimodal', 'r-concave', 'none'}, default 'unimodal'
        The shape assumed for the distribution of the selection probabilities of the noise
        features under ``"SS"``.  With ``"MB"`` it is checked but ignored: the bound of
        Meinshausen & Buhlmann takes no assumption, and the result says ``"none"``, as ``stabs``
        does.

    Exactly two of ``q``, ``cutoff`` and ``pfer`` must be given.

    Returns
    -------
    StabilityParameters
        With q, cutoff, the bound ``pfer`` (3 significant digits), ``pfer_exact`` and the PFER
        asked for.

    Raises
    ------
    ValueError
        For an argument out of range, not exactly two of q, cutoff and pfer, or parameters for
        which the bound cannot be computed or met (where ``stabs`` stops).

    Warns
    -----
    UserWarning
        When the computed cutoff or q does not meet the PFER asked for (``stabs`` returns them
        silently): the largest cutoff, 1, or the smallest q, 1, still gives a larger bound.

    Notes
    -----
    The bounds, with t = q / p:

    * Meinshausen & Buhlmann (2010), "Stability selection", JRSS-B 72:417-473, Theorem 1, and
      Shah & Samworth (2013), "Variable selection with error control: another look at stability
      selection", JRSS-B 75:55-80, Theorem 1 (``assumption="none"``): q^2 / ((2 cutoff - 1) p).
    * Shah & Samworth (2013), Theorem 2, Eq. (7) (unimodal): q^2 / p / c, with
      c = 2 (2 cutoff - 1 - 1/(2B)) for cutoff <= 3/4 (and cutoff at least
      1/2 + min(t^2, 1/(2B) + 3 t^2 / 4)), c = (1 + 1/B) / (4 (1 - cutoff + 1/(2B))) above.
    * Shah & Samworth (2013), Eq. (8) (r-concave): p min(1, D(t^2, 2 cutoff - 1, B, -1/2),
      D(t, cutoff, 2B, -1/4)), D the largest upper tail of an r-concave distribution on
      {0, 1/B', ..., 1} with mean theta (``_r_concave_tail``).  It needs q at most the
      largest q for which 2B cutoff - 1 > 4 B t (``_largest_q``).

    Examples
    --------
    >>> stability_selection_parameters(200, q=10, cutoff=0.75).pfer
    0.51
    >>> stability_selection_parameters(200, cutoff=0.75, pfer=1).q
    13
    """
    p = integer_at_least(2, "the number of features").validate(p, "p")
    sampling = one_of(SAMPLINGS).validate(sampling, "sampling")
    assumption = one_of(ASSUMPTIONS).validate(assumption, "assumption")
    B = integer_at_least(1).validate(B, "B")
    if q is not None:
        q = _q_constraint(p).validate(q, "q")
    if cutoff is not None:
        cutoff = _CUTOFF.validate(cutoff, "cutoff")
    if pfer is not None:
        pfer = _PFER.validate(pfer, "pfer")
    given = [name for name, value in (("q", q), ("cutoff", cutoff), ("pfer", pfer)) if value is not None]
    if len(given) != 2:
        shown = ", ".join(given) if given else "none"
        raise ValueError(f"q, cutoff, pfer: exactly two of them must be given; got {shown}")
    if sampling == "MB":
        assumption = "none"
    if assumption == "r-concave" and B < 2:
        raise ValueError(f"B: must be an integer >= 2 under the r-concave assumption (as stabs); got {B}")

    if cutoff is None:
        cutoff = _computed_cutoff(p, q, pfer, B, assumption)
        exact = _bound(p, q, cutoff, B, assumption)
        specified = pfer
        if exact > pfer:
            warnings.warn(f"pfer: no cutoff meets the bound {pfer!r} for q = {q} and p = {p} under the "
                          f"{assumption!r} assumption; cutoff {_r_number(cutoff)} gives PFER <= "
                          f"{_r_number(exact)}", UserWarning, stacklevel=2)
    elif q is None:
        q = _computed_q(p, cutoff, pfer, B, assumption)
        exact = _bound(p, q, cutoff, B, assumption)
        specified = pfer
        if exact > pfer:
            warnings.warn(f"pfer: no q meets the bound {pfer!r} for cutoff = {cutoff!r} and p = {p} under "
                          f"the {assumption!r} assumption; q = {q} gives PFER <= {_r_number(exact)}",
                          UserWarning, stacklevel=2)
    else:
        exact = _bound(p, q, cutoff, B, assumption)
        specified = exact
    return StabilityParameters(p=p, q=q, cutoff=cutoff, pfer=_r_signif(exact, 3), specified_pfer=specified,
                               sampling=sampling, assumption=assumption, B=B,
                               bound=_BOUND_NAMES[(sampling, assumption)], pfer_exact=exact)


# --------------------------------------------------------------------------------------------
# Argument constraints
# --------------------------------------------------------------------------------------------

def _is_cutoff(value):
    return is_number(value) and 0.5 < float(value) <= 1.0


_CUTOFF = Constraint("a number in (0.5, 1]", _is_cutoff, float)
_PFER = Constraint("a finite number > 0", lambda value: is_number(value) and float(value) > 0.0, float)


def _q_constraint(p):
    def check(value):
        return is_integer(value) and 1 <= int(value) <= p - 1
    return Constraint(f"an integer in 1..{p - 1} (fewer than the p = {p} features)", check, int)


# --------------------------------------------------------------------------------------------
# The bounds for given q and cutoff
# --------------------------------------------------------------------------------------------

def _bound(p, q, cutoff, B, assumption):
    """The unrounded PFER bound for (p, q, cutoff)."""
    if assumption == "none":
        return _no_assumption_bound(p, q, cutoff)
    if assumption == "unimodal":
        return _unimodal_bound(p, q, cutoff, B)
    return _r_concave_bound(p, q, cutoff, B)


def _no_assumption_bound(p, q, cutoff):
    """q^2 / ((2 cutoff - 1) p), in the order stabs evaluates it."""
    return q * q / p / (2 * cutoff - 1)


def _unimodal_constant(cutoff, B, theta):
    """The divisor c of q^2 / p in the unimodal bound (1 / C(cutoff, B) of Shah & Samworth, Eq. 7).

    Refuses, as ``stabs``, a cutoff <= 3/4 below 1/2 + min(theta^2, 1/(2B) + 3 theta^2 / 4), and
    (a departure) one whose constant 2 cutoff - 1 - 1/(2B) is not positive.
    """
    if cutoff <= 0.75:
        smallest = 0.5 + min(theta * theta, 1 / (2 * B) + 0.75 * theta * theta)
        if cutoff < smallest:
            raise ValueError(f"cutoff: must be at least 1/2 + min(t^2, 1/(2B) + 3 t^2 / 4) = {smallest:.6g} "
                             f"for t = q / p = {theta:.6g} and B = {B} under the unimodal assumption "
                             f"(Shah & Samworth 2013, Theorem 2); got {cutoff!r}")
        constant = 2 * (2 * cutoff - 1 - 1 / (2 * B))
        if constant <= 0:
            raise ValueError(f"cutoff: must exceed 1/2 + 1/(4B) = {0.5 + 1 / (4 * B):.6g} for B = {B} under "
                             f"the unimodal assumption (else the bound is not positive); got {cutoff!r}")
        return constant
    return (1 + 1 / B) / (4 * (1 - cutoff + 1 / (2 * B)))


def _unimodal_bound(p, q, cutoff, B):
    return q * q / p / _unimodal_constant(cutoff, B, q / p)


def _largest_q(p, B):
    """The largest q for which the r-concave bound is defined: the count of q in 1..p with
    ceil(4 B q / p) + 1 < 2B (stabs' ``maxQ``)."""
    factor = 4 * B / p
    count = 0
    for q in range(1, p + 1):
        if math.ceil(q * factor) + 1 - 2 * B < 0:
            count += 1
    return count


def _r_concave_bound(p, q, cutoff, B):
    """p min(1, D(t^2, 2 cutoff - 1, B, -1/2), D(t, cutoff, 2B, -1/4)), t = q / p (Eq. 8)."""
    # cutoff is a multiple W / (2B) of the frequencies the 2B runs can give; W rounded up.
    multiple = math.ceil(_r_signif(cutoff / (1 / (2 * B)), 10))
    largest = _largest_q(p, B)
    if q > largest:
        raise ValueError(f"q: must be <= {largest} for p = {p} and B = {B} under the r-concave assumption "
                         f"(as stabs); got {q}")
    pairs_tail = _r_concave_tail(q * q / (p * p), multiple - B, B, -0.5)
    runs_tail = _r_concave_tail(q / p, multiple, 2 * B, -0.25)
    return min(1.0, pairs_tail, runs_tail) * p


@functools.lru_cache(maxsize=4096)
def _r_concave_tail(theta, which, n_points, r):
    """The largest probability P(X >= which / n_points) over r-concave distributions of X on
    {0, 1/n_points, ..., 1} with mean ``theta`` (``D`` of Shah & Samworth 2013, Eq. 8).

    The extremal distributions put mass proportional to (a + j)^(1/r) on j = 0..k: for each
    support size k the shape a that gives the mean is found by a root search
    (:func:`_extremal_shapes`), and the tail bound is maximised over a between the shapes of
    supports k + 1 and k; the answer is the largest of these maxima (and 0).  Returns 1 when
    ``which`` is below ceil(2 n_points theta) + 1, where no bound below 1 holds.  Cached: the
    search for a cutoff or a q evaluates the same tails again.
    """
    power = 1 / r
    mean_count = theta * n_points
    first_support = math.ceil(2 * mean_count) + 1
    if which < first_support:
        return 1.0
    if first_support > n_points:
        raise ValueError(f"q: too large for the r-concave bound (mean {theta:.6g} on {n_points} points); "
                         f"choose a smaller q or another assumption")
    shapes = _extremal_shapes(theta, n_points, r)
    if first_support == n_points:
        # stabs then asks for the shape of a support of n_points + 1, which does not exist
        raise ValueError(f"q: too large for the r-concave bound at this cutoff (mean {theta:.6g} on "
                         f"{n_points} points leaves no support size to optimise over); choose a smaller q, "
                         f"a larger B or another assumption")
    # one maximisation per support size k = first_support..n_points - 1, run side by side
    supports = np.arange(first_support, n_points, dtype=float)
    counts = np.arange(max(which, n_points), dtype=float)
    in_support = counts[np.newaxis, :] <= supports[:, np.newaxis]
    # (k + 1 - j) for j in the support of k, 0 outside
    support_weights = np.where(in_support, supports[:, np.newaxis] + 1 - counts[np.newaxis, :], 0.0)

    def tail(a, lanes):
        masses = _power(a[:, np.newaxis] + counts[np.newaxis, :], power)
        numerator = (supports[lanes] + 1 - mean_count) * masses[:, :which].sum(axis=1)
        denominator = (support_weights[lanes] * masses).sum(axis=1)
        return 1 - numerator / denominator

    k_index = supports.astype(int)
    maxima = _optimize_maxima(tail, shapes[k_index + 1], shapes[k_index])
    return max(0.0, float(np.max(maxima)))


@functools.lru_cache(maxsize=1024)
def _extremal_shapes(theta, n_points, r):
    """shapes[k], k = ceil(2 n_points theta) + 1..n_points: the a for which the distribution
    proportional to (a + j)^(1/r) on j = 0..k has mean n_points theta, each found between 1e-5
    and the shape of the support k - 1 (1e5 for the first), as stabs finds them."""
    power = 1 / r
    mean_count = theta * n_points
    first_support = math.ceil(2 * mean_count) + 1
    shapes = np.full(n_points + 1, _LARGEST_A)
    for k in range(first_support, n_points + 1):
        counts = np.arange(k + 1, dtype=float)

        def mean_gap(a, counts=counts):
            masses = _power(a + counts, power)
            return float(counts @ masses / masses.sum()) - mean_count

        shapes[k] = _uniroot(mean_gap, _SMALLEST_A, float(shapes[k - 1]), _FINE_TOLERANCE)
    shapes.setflags(write=False)
    return shapes


def _power(x, power):
    """x ** power elementwise; by products for the exponents -2 and -4 of the r-concave bound."""
    if power == -2.0:
        inverse = 1.0 / x
        return inverse * inverse
    if power == -4.0:
        inverse = 1.0 / x
        square = inverse * inverse
        return square * square
    return np.power(x, power)


# --------------------------------------------------------------------------------------------
# The third parameter from the other two
# --------------------------------------------------------------------------------------------

def _computed_cutoff(p, q, pfer, B, assumption):
    if assumption == "none":
        return min(1.0, (q * q / (pfer * p) + 1) / 2)
    if assumption == "unimodal":
        return _unimodal_cutoff(p, q, pfer, B)
    return _r_concave_cutoff(p, q, pfer, B)


def _unimodal_cutoff(p, q, pfer, B):
    """The smallest cutoff 1/2 + j/(2B), j = 2..B, in the unimodal range whose bound is below pfer."""
    if B < 2:
        raise ValueError(f"B: must be an integer >= 2 to compute the cutoff under the unimodal assumption "
                         f"(the cutoffs are 1/2 + j/(2B), j = 2..B); got {B}")
    theta = q / p
    smallest = min(0.5 + theta * theta, 0.5 + 1 / (2 * B) + 0.75 * theta * theta)
    candidates = [0.5 + j / (2 * B) for j in range(2, B + 1)]
    candidates = [cutoff for cutoff in candidates if cutoff > smallest]
    if not candidates:
        largest = max(math.floor(p * math.sqrt(0.5)), math.floor(p * math.sqrt((0.5 - 1 / (2 * B)) * 4 / 3)))
        raise ValueError(f"q: must be <= {largest} for p = {p} and B = {B} to compute the cutoff under the "
                         f"unimodal assumption (as stabs); got {q}")
    for cutoff in candidates:
        if _unimodal_bound(p, q, cutoff, B) < pfer:
            return cutoff
    raise ValueError(f"pfer: no cutoff up to 1 gives a unimodal bound below {pfer!r} for q = {q}, p = {p} "
                     f"and B = {B} (at cutoff 1 the bound is {_unimodal_bound(p, q, 1.0, B):.6g}); "
                     f"choose a larger pfer or a smaller q")


def _r_concave_cutoff(p, q, pfer, B):
    """The smallest multiple of 1/(2B) in [1/2, 1] whose r-concave bound is at most pfer; 1 when
    even 1 does not meet it (stabs' rule).

    ``stabs`` walks down from 1 and stops at the first cutoff whose bound exceeds pfer, taking
    the one before; the bound decreases as the cutoff grows, so a bisection finds the same
    cutoff with a handful of bounds instead of up to B + 1.
    """
    candidates = [k / (2 * B) for k in range(2 * B, 0, -1)]
    candidates = [cutoff for cutoff in candidates if cutoff >= 0.5]

    def exceeds(i):
        return _r_concave_bound(p, q, candidates[i], B) > pfer

    if exceeds(0):
        return candidates[0]
    # candidates[meets] meets the bound; candidates[fails] fails it (len(candidates): past the end)
    meets = 0
    fails = len(candidates)
    while fails - meets > 1:
        middle = (meets + fails) // 2
        if exceeds(middle):
            fails = middle
        else:
            meets = middle
    return candidates[meets]


def _computed_q(p, cutoff, pfer, B, assumption):
    if assumption == "none":
        q = math.floor(math.sqrt(pfer * (2 * cutoff - 1) * p))
    elif assumption == "unimodal":
        q = _unimodal_q(p, cutoff, pfer, B)
    else:
        q = _r_concave_q(p, cutoff, pfer, B)
    if not 1 <= q <= p - 1:
        raise ValueError(f"pfer: the bound {pfer!r} with cutoff = {cutoff!r} and p = {p} gives q = {q}, outside "
                         f"1..{p - 1}; choose a {'larger' if q < 1 else 'smaller'} pfer")
    return q


def _unimodal_q(p, cutoff, pfer, B):
    """floor of the q solving q^2 / p / c(cutoff) = pfer, found as stabs finds it (R's uniroot
    between 1 and the largest q allowed by the cutoff)."""
    if cutoff <= 0.75:
        inner = 4 / 3 * (cutoff - 0.5 - 1 / (2 * B))
        if inner < 0:
            raise ValueError(f"cutoff: must be at least 1/2 + 1/(2B) = {0.5 + 1 / (2 * B):.6g} for B = {B} to "
                             f"compute q under the unimodal assumption (as stabs); got {cutoff!r}")
        upper = max(p * math.sqrt(cutoff - 0.5), p * math.sqrt(inner))
        upper = math.ceil(upper - 1)  # q must be an integer below the limit
    else:
        upper = p

    def gap(q):
        return _unimodal_bound(p, q, cutoff, B) - pfer

    root = _uniroot(gap, 1.0, float(upper), _DEFAULT_TOLERANCE, name="pfer",
                    what=f"no q in [1, {upper}] has a unimodal bound equal to {pfer!r} for cutoff = {cutoff!r}, "
                         f"p = {p} and B = {B}")
    return math.floor(root)


def _r_concave_q(p, cutoff, pfer, B):
    """The largest q whose r-concave bound is at most pfer, at least 1 (stabs' rule) and at most
    the largest q for which the bound is defined.

    ``stabs`` tries q = 1, 2, ... and stops at the first q whose bound exceeds pfer (or whose
    bound fails, an error); both happen from some q on, so a bisection for the first such q
    finds the same answer, and the same error, with a handful of bounds.
    """
    largest = _largest_q(p, B)
    if largest < 1:
        raise ValueError(f"p: too few features ({p}) for the r-concave bound with B = {B}; no q is allowed")

    def stops(q):
        try:
            return _r_concave_bound(p, q, cutoff, B) > pfer
        except ValueError:
            return True

    # q = passes meets the bound (0: none yet); q = stop is the first that stops the walk
    passes = 0
    stop = largest + 1
    while stop - passes > 1:
        middle = (passes + stop) // 2
        if stops(middle):
            stop = middle
        else:
            passes = middle
    if stop <= largest:
        _r_concave_bound(p, stop, cutoff, B)  # raises where stabs stops with an error
    return max(1, passes)


# --------------------------------------------------------------------------------------------
# Numerics as R's: signif, uniroot (Brent's zero finder), optimize (Brent's minimiser)
# --------------------------------------------------------------------------------------------

def _r_signif(x, digits):
    """x rounded to ``digits`` significant digits as R's ``signif`` rounds it: scaled by a power of
    ten to an integer part of ``digits`` digits, rounded half to even, scaled back."""
    if x == 0 or not math.isfinite(x):
        return x
    sign = -1.0 if x < 0 else 1.0
    x = abs(x)
    exponent = int(digits - 1 - math.floor(math.log10(x)))
    if exponent > 0:
        scale = 10.0 ** exponent
        return sign * (float(np.rint(x * scale)) / scale)
    scale = 10.0 ** (-exponent)
    return sign * (float(np.rint(x / scale)) * scale)


def _r_number(x):
    """A number as R's ``cat`` prints it (7 significant digits)."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.7g}"


def _uniroot(function, lower, upper, tolerance, name="q", what=None):
    """A root of ``function`` in [lower, upper] as R's ``uniroot`` finds it (no extension of the
    interval); ValueError naming ``name`` when the interval is empty or does not bracket a root."""
    if not lower < upper:
        raise ValueError(f"{name}: {what or 'the root search'} (the search interval [{lower:.6g}, "
                         f"{upper:.6g}] is empty)")
    f_lower = function(lower)
    f_upper = function(upper)
    if math.isnan(f_lower) or math.isnan(f_upper) or np.sign(f_lower) * np.sign(f_upper) > 0:
        raise ValueError(f"{name}: {what or 'the root search found no sign change'}")
    return _brent_root(function, lower, upper, f_lower, f_upper, tolerance)


def _brent_root(function, lower, upper, f_lower, f_upper, tolerance, max_iterations=_MAX_ITERATIONS):
    """Brent's zero finder (R. P. Brent 1973, "Algorithms for Minimization without Derivatives",
    ch. 4) with the stopping rule of R's ``uniroot``: |step| <= 2 eps |b| + tolerance / 2.

    ``b`` is the best estimate, ``a`` the previous one, ``c`` the point bracketing the root with
    ``b``; each step interpolates (secant or inverse quadratic) when that stays well inside the
    bracket, else bisects.
    """
    a, b = lower, upper
    fa, fb = f_lower, f_upper
    c, fc = a, fa
    if fa == 0.0:
        return a
    if fb == 0.0:
        return b
    for _ in range(max_iterations + 1):
        previous_step = b - a
        if abs(fc) < abs(fb):
            # keep b the point with the smaller function value
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        step_tolerance = 2 * _DOUBLE_EPSILON * abs(b) + tolerance / 2
        step = (c - b) / 2
        if abs(step) <= step_tolerance or fb == 0.0:
            return b
        if abs(previous_step) >= step_tolerance and abs(fa) > abs(fb):
            c_minus_b = c - b
            if a == c:
                # two distinct points: the secant
                ratio = fb / fa
                numerator = c_minus_b * ratio
                denominator = 1.0 - ratio
            else:
                # three points: inverse quadratic interpolation
                q_ac = fa / fc
                r_bc = fb / fc
                s_ba = fb / fa
                numerator = s_ba * (c_minus_b * q_ac * (q_ac - r_bc) - (b - a) * (r_bc - 1.0))
                denominator = (q_ac - 1.0) * (r_bc - 1.0) * (s_ba - 1.0)
            if numerator > 0:
                denominator = -denominator
            else:
                numerator = -numerator
            inside = numerator < 0.75 * c_minus_b * denominator - abs(step_tolerance * denominator) / 2
            small = numerator < abs(previous_step * denominator / 2)
            if inside and small:
                step = numerator / denominator
        if abs(step) < step_tolerance:
            step = step_tolerance if step > 0 else -step_tolerance
        a, fa = b, fb
        b = b + step
        fb = function(b)
        if (fb > 0 and fc > 0) or (fb < 0 and fc < 0):
            c, fc = a, fa
    return b


def _optimize_maxima(function, lower, upper, tolerance=_DEFAULT_TOLERANCE):
    """The maxima of ``function`` on the intervals [lower[i], upper[i]] as R's
    ``optimize(maximum=TRUE)`` reports each: the function at the point where Brent's minimiser
    of -function stops.  ``function(points, lanes)`` evaluates lane ``lanes[i]`` at
    ``points[i]``."""
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper)) and np.all(lower < upper)):
        raise ValueError("q: the r-concave bound cannot be computed (an empty interval for the shape of "
                         "the extremal distribution); choose a smaller q or another assumption")

    def negative(points, lanes):
        return -function(points, lanes)

    where = _brent_minima(negative, lower, upper, tolerance)
    return function(where, np.arange(len(where)))


def _brent_minima(function, lower, upper, tolerance):
    """Brent's minimiser (R. P. Brent 1973, "Algorithms for Minimization without Derivatives",
    ch. 5, ``localmin``) run side by side on independent intervals ("lanes"), with the tolerances
    of R's ``optimize``: points closer than sqrt(eps) |x| + tolerance / 3 are not evaluated.

    Each lane takes exactly the steps the one-interval algorithm takes (golden-section steps,
    parabolic interpolation when it stays inside and shrinks); a lane stops when its interval of
    uncertainty is small enough, and the others go on.  ``function(points, lanes)`` returns the
    values at ``points`` of the lanes ``lanes``.  Returns the final x of every lane.
    """
    golden = (3.0 - math.sqrt(5.0)) * 0.5
    root_epsilon = math.sqrt(_DOUBLE_EPSILON)
    third = tolerance / 3.0
    # the state of every lane, one row per quantity: the interval [a, b]; x the best point,
    # w the second best, v the previous w, and their values; the step just taken and the one
    # before it
    x = lower + golden * (upper - lower)
    fx = function(x, np.arange(len(x)))
    no_step = np.zeros_like(x)
    state = np.vstack([lower, upper, x, x, x, fx, fx, fx, no_step, no_step])
    running = np.ones(len(x), dtype=bool)
    while True:
        a, b, x = state[0], state[1], state[2]
        middle = (a + b) * 0.5
        close = root_epsilon * np.abs(x) + third
        running &= ~(np.abs(x - middle) <= close * 2.0 - (b - a) * 0.5)
        lanes = np.flatnonzero(running)
        if len(lanes) == 0:
            return state[2].copy()
        # from here on, the lanes still running only
        a, b, x, w, v, fx, fw, fv, step, last_step = state[:, lanes]
        middle = middle[lanes]
        close = close[lanes]
        close_twice = close * 2.0

        # the parabola through (v, fv), (w, fw), (x, fx), where the step before last was large
        fit = np.abs(last_step) > close
        r = (x - w) * (fx - fv)
        denominator = (x - v) * (fx - fw)
        numerator = (x - v) * denominator - (x - w) * r
        denominator = (denominator - r) * 2.0
        numerator = np.where(denominator > 0.0, -numerator, numerator)
        denominator = np.abs(denominator)
        numerator = np.where(fit, numerator, 0.0)
        denominator = np.where(fit, denominator, 0.0)
        earlier = np.where(fit, last_step, 0.0)
        last_step = np.where(fit, step, last_step)

        golden_step = ((np.abs(numerator) >= np.abs(denominator * 0.5 * earlier))
                       | (numerator <= denominator * (a - x)) | (numerator >= denominator * (b - x)))
        # golden section into the larger part
        golden_last = np.where(x < middle, b - x, a - x)
        # parabolic step (the denominator is not 0 where it is taken), kept away from the ends
        parabolic = numerator / np.where(golden_step, 1.0, denominator)
        near_end = ((x + parabolic) - a < close_twice) | (b - (x + parabolic) < close_twice)
        parabolic = np.where(near_end, np.where(x >= middle, -close, close), parabolic)
        last_step = np.where(golden_step, golden_last, last_step)
        step = np.where(golden_step, golden * golden_last, parabolic)

        # never closer than `close` to x
        u = np.where(np.abs(step) >= close, x + step, np.where(step > 0.0, x + close, x - close))
        fu = function(u, lanes)

        better = fu <= fx
        left = u < x
        # better: u becomes x and the interval shrinks to the side of u; else u becomes an end,
        # and w or v when it is better than they are
        second = ~better & ((fu <= fw) | (w == x))
        third_best = ~better & ~second & ((fu <= fv) | (v == x) | (v == w))
        state[:, lanes] = np.vstack([
            np.where(better, np.where(left, a, x), np.where(left, u, a)),
            np.where(better, np.where(left, x, b), np.where(left, b, u)),
            np.where(better, u, x),
            np.where(better, x, np.where(second, u, w)),
            np.where(better | second, w, np.where(third_best, u, v)),
            np.where(better, fu, fx),
            np.where(better, fx, np.where(second, fu, fw)),
            np.where(better | second, fw, np.where(third_best, fu, fv)),
            step,
            last_step,
        ])

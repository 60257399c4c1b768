"""Rules shared by the greedy selection methods (CMQFS, the information-theoretic filters).

Tie rule: among values within :data:`TIE_TOLERANCE` (relative) of the
maximum, the first one wins -- with candidates listed in increasing column
index, the lowest column index.  The tolerance makes ties independent of
rounding (two criteria equal in exact arithmetic but computed along
different paths may differ in the last bits).
"""
import numpy as np

__all__ = ["TIE_TOLERANCE", "first_maximum"]

#: Values within this relative distance of the maximum count as tied (the
#: lowest column index then wins), so that ties do not depend on rounding.
TIE_TOLERANCE = 1e-12


def first_maximum(values):
    """Index of the first value within :data:`TIE_TOLERANCE` (relative) of the maximum.

    "Relative" means ``TIE_TOLERANCE * max(1, |max|)``, so near zero the
    tolerance is absolute.
    """
    values = np.asarray(values, dtype=np.float64)
    best = values.max()
    return int(np.flatnonzero(values >= best - TIE_TOLERANCE * max(1.0, abs(best)))[0])

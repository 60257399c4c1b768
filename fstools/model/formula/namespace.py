"""The names formula code sees besides the data: R's functions, numpy, and the safe mode's namespace.

patsy evaluates each factor of a formula (``log(x)``, ``C(g)``) as Python code in an environment
that this module builds: :func:`eval_environment`.  The caller's variables are never visible, so a
formula means the same wherever it is read.
"""
from __future__ import annotations

import builtins

import numpy as np
import patsy
import patsy.builtins

from fstools.model.formula import rfunctions
from fstools.model.formula.safe_eval import NUMPY_FUNCTIONS, SAFE_FUNCTIONS

__all__ = ["QUOTED_KEY_PREFIX", "R_NAMESPACE", "EVAL_NAMESPACE", "KNOWN_NAMES", "PYTHON_BUILTINS", "eval_environment"]


#: The key under which a column whose code is ``Q("name")`` is handed to patsy: not an
#: identifier, so that a column can never shadow a function that formula code calls
#: (a column named ``Q``, ``C``, ``I``, ``np`` or ``log`` next to ``C(x)`` or ``log(x)``).
QUOTED_KEY_PREFIX = "`"


def _quote(name):
    """patsy's ``Q("name")``: the column ``name``, found under its key in the data given to patsy."""
    namespace = patsy.EvalEnvironment.capture(1).namespace
    for key in (QUOTED_KEY_PREFIX + name, name):
        try:
            return namespace[key]
        except KeyError:
            pass
    raise NameError(f"no data or variable named {name!r} found")


def _stateful(class_):
    """A class of :mod:`fstools.model.formula.rfunctions` as a patsy stateful transform."""
    return patsy.stateful_transform(class_)


#: R's functions, with R's semantics, in both formula modes: the elementwise ones (``log``,
#: ``exp``, ``sqrt``, ...), ``scale``/``center``/``standardize`` (sd with n - 1; they replace
#: patsy's, which divide by n), ``poly`` (R's orthogonal polynomials), ``factor`` (= ``C``) and R's
#: conversions ``as.factor`` (= ``factor``), ``as.numeric``, ``as.integer``, ``as.character``, which
#: the formula's code calls ``as_factor``, ``as_numeric``, ... (:data:`fstools.model.formula.names.R_DOTTED_FUNCTIONS`).
R_NAMESPACE = dict(rfunctions.ELEMENTWISE)
R_NAMESPACE.update({
    "scale": _stateful(rfunctions.RScale), "center": _stateful(rfunctions.RCenter),
    "standardize": _stateful(rfunctions.RStandardize), "poly": _stateful(rfunctions.RPoly),
    "factor": patsy.builtins.C, "as_factor": patsy.builtins.C, **rfunctions.CONVERSIONS,
    "TRUE": True, "FALSE": False, "pi": np.pi, "Q": _quote,
})


#: Names that formula code may use besides the data columns: numpy as ``np``, R's functions
#: and patsy's own builtins (``C``, ``I``, ``Q``, ``Treatment``, ...), which patsy adds to
#: every evaluation environment itself.
EVAL_NAMESPACE = {"np": np, **R_NAMESPACE}
KNOWN_NAMES = frozenset(EVAL_NAMESPACE) | frozenset(patsy.builtins.__all__)
PYTHON_BUILTINS = frozenset(dir(builtins))


class _SafeNumpy:
    """``np`` in the safe mode: only the allowed numeric functions, as attributes."""

    __slots__ = tuple(sorted(NUMPY_FUNCTIONS))

    def __init__(self):
        for name in NUMPY_FUNCTIONS:
            object.__setattr__(self, name, getattr(np, name))


class _Refused:
    """What a name that safe formulas may not use evaluates to (calling it raises)."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        raise NameError(f"{self._name!r} is not available in the safe formula mode")


def _safe_namespace() -> dict:
    """The evaluation namespace of the safe mode.

    Every Python builtin name and every patsy builtin that is not allowed is shadowed, and
    ``np`` holds only the allowed functions: a second line of defence behind the checks of
    :mod:`fstools.model.formula.safe_eval`, which refuse such code before anything is evaluated.
    """
    namespace = {name: _Refused(name) for name in PYTHON_BUILTINS}
    for name in patsy.builtins.__all__:
        if name not in SAFE_FUNCTIONS:
            namespace[name] = _Refused(name)
    namespace.update(R_NAMESPACE)
    namespace["np"] = _SafeNumpy()
    return namespace


def eval_environment(formula_mode: str = "safe") -> patsy.EvalEnvironment:
    """The names formula code can use besides the data.

    In the code mode: numpy as ``np`` and R's functions; patsy adds its builtins
    (``C``, ``I``, ``Q``, ...) and Python's itself.  In the safe mode: R's
    functions, ``np`` with the allowed functions only, every other builtin name
    shadowed (see :func:`_safe_namespace`).  The caller's variables are
    deliberately not visible, so a formula means the same wherever it is evaluated.
    """
    if formula_mode == "safe":
        return patsy.EvalEnvironment([_safe_namespace()])
    return patsy.EvalEnvironment([dict(EVAL_NAMESPACE)])

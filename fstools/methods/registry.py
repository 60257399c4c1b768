"""Registry of feature-selection methods: names, parameters, defaults, capabilities.

A method is a function ``function(X, y, k, n_threads, **params) -> MethodOutput``
taking NumPy arrays (``X`` float64 of shape (n_samples, n_features), ``y``
class codes 0..n_classes-1 as int32) and returning a ranking and scores.  The
registry knows each method's parameters with their defaults and allowed
values, so that the API layer can validate a call before running it, and
what the method can do (``capabilities``).

Capabilities: ``supervised`` (uses the class), ``multiclass`` (any number of
classes), ``multilabel`` (a 0/1 label matrix as ``y``), ``streaming`` (an
online learner over the rows, binary), ``greedy`` (forward selection with a
per-step path) and ``sparse``: the function also takes a scipy sparse matrix
``X`` (float64, canonical format: CSR for ``streaming`` methods, which read
rows, CSC for the others, which read columns; see :func:`sparse_format`) and
never densifies it.  The API layer refuses sparse input for the other methods
(:func:`sparse_methods` lists the ones that take it).

Responses: each method declares the response types it takes (``responses``, values of
:data:`RESPONSE_TYPES`): ``"class"`` (``y`` class codes, int32) and ``"continuous"`` (``y``
finite float64).  A function whose method takes a continuous response is called with the
keyword ``response_type`` (``"class"`` or ``"continuous"``); the functions of class-only
methods are called without it.  An unsupervised method (no ``supervised`` capability, e.g.
the Laplacian score) ignores ``y``, takes any response or none (``y=None``) and is called
without the keyword.
:func:`check_response` is the one check (and error message) every entry point uses.

Factors: ``factors`` says how a categorical term (a factor, patsy's 0/1 dummy columns) enters
the method: ``"dummies"`` (its design columns; the term takes the rank of its best column),
``"codes"`` (one column of level codes, the information methods) or ``"nominal"`` (one column
of level codes, and the function is called with the keyword ``nominal``, a boolean array
flagging those columns, so that it scores them as nominal variables: ReliefF's 0/1 diff, the
Laplacian score of the level indicators, the one-way ANOVA F of the F-test).

Missing values: ``missing`` lists the values of ``na_action`` (of :data:`NA_ACTIONS`) beyond
``"drop"`` and ``"raise"`` that the method supports, i.e. whether it can use incomplete rows:
``"level"``, a missing value is a level of its own (discrete methods); ``"pass"`` (R's
``na.pass``), the rows are kept with NaN and the method treats the missing values itself
(ReliefF's missing-value diff).  :func:`check_na_action` is the one check.
"""
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from fstools.core.constraints import Constraint
from fstools.core.messages import did_you_mean

__all__ = ["Parameter", "Preset", "MethodSpec", "MethodOutput", "register", "get_method", "method_names",
           "sparse_methods", "sparse_format", "CAPABILITIES", "RESPONSE_TYPES", "methods_for_response",
           "check_response", "FACTOR_MODES", "NA_ACTIONS", "NA_ACTION_MEANINGS", "methods_for_na_action",
           "check_na_action"]

#: Capability flags a method may declare ("non_negative": it takes counts and refuses negative values).
CAPABILITIES = ("supervised", "multiclass", "multilabel", "streaming", "sparse", "greedy", "non_negative")

#: Response types a method may take: class codes, or a continuous (real-valued) response.
RESPONSE_TYPES = ("class", "continuous")

#: How a categorical term enters a method (``MethodSpec.factors``).
FACTOR_MODES = ("dummies", "codes", "nominal")

#: Values of ``na_action``: "drop" (incomplete rows dropped, counted) and "raise" (refused) for
#: every method; "level" (a missing value is a level of its own) and "pass" (rows kept, the method
#: treats missing values itself) for the methods that list them in ``MethodSpec.missing``.
NA_ACTIONS = ("drop", "raise", "level", "pass")

#: What each ``na_action`` value beyond "drop" / "raise" does, in words (for messages and tables).
NA_ACTION_MEANINGS = {"level": "a missing value is a level of its own",
                      "pass": "the rows are kept and the method treats missing values itself"}


@dataclass(frozen=True)
class Parameter:
    """One tunable parameter of a method.

    Attributes
    ----------
    name : str
    default : object
    description : str
        One line, citing the paper's equation for the default.
    constraint : fstools.core.constraints.Constraint
        The allowed values: the check, the words of the error message, the conversion.
    """

    name: str
    default: Any
    description: str
    constraint: Constraint

    @property
    def allowed(self):
        """The allowed values in words."""
        return self.constraint.allowed

    def validate(self, value, context=""):
        """``value`` converted for the method, or a ValueError naming the parameter and the allowed values."""
        return self.constraint.validate(value, self.name, context)


@dataclass(frozen=True)
class Preset:
    """A named set of parameter values of a method, e.g. ``"paper"``: the paper's literal settings.

    ``fs.select(..., method=name, preset="paper")`` runs the method with these values
    (:func:`fstools.model.validation.check_method_params`); the library defaults may differ
    where a study found the literal settings fail (the method's docstring says why).

    Attributes
    ----------
    name : str
    description : str
        Where the values come from (the paper's equations / sections).
    values : tuple of (str, object)
        Parameter name -> value pairs.
    """

    name: str
    description: str
    values: tuple = ()


@dataclass(frozen=True)
class MethodSpec:
    """A registered method."""

    name: str
    description: str
    function: Callable[..., "MethodOutput"]
    parameters: tuple = ()
    capabilities: frozenset = frozenset()
    score_name: str = "score"
    higher_is_better: bool = True
    reference: str = ""
    #: The selection criterion as a formula, shown in summaries.
    criterion: str = ""
    #: For greedy methods: the column of ``MethodOutput.steps`` holding the criterion
    #: value of the feature chosen at each step (drawn by ``plot(kind="path")``).
    path_column: str | None = None
    #: True when the method's function reads ``X`` in any memory layout (its kernels take strided
    #: input): :func:`fstools.api.selection.run_method` then passes a Fortran-ordered design
    #: (a DataFrame's columns) on as it is instead of copying it into C order.
    any_layout: bool = False
    #: How a categorical term enters the method (:data:`FACTOR_MODES`): ``"dummies"``, its 0/1
    #: design columns (a term takes the rank of its best column); ``"codes"``, one column of its
    #: level codes (the information methods, which score a discrete variable by its levels);
    #: ``"nominal"``, one column of level codes and the keyword ``nominal=`` (a boolean array
    #: flagging those columns) passed to the function, which scores them as categorical
    #: variables (e.g. ReliefF's 0/1 diff; ``f_test``: the one-way ANOVA of the response on the
    #: levels).
    factors: str = "dummies"
    #: The ``na_action`` values beyond "drop" and "raise" (of :data:`NA_ACTIONS`) the method
    #: supports: empty, the method needs complete rows.
    missing: frozenset = frozenset()
    #: The response types the method takes (values of :data:`RESPONSE_TYPES`); an unsupervised
    #: method ignores the response and also runs without one.
    responses: frozenset = frozenset({"class"})
    #: Named parameter sets (:class:`Preset`), e.g. the paper's literal settings as ``"paper"``.
    presets: tuple = ()
    #: True when the method's function, on a dense ``X``, reads every value, refuses a non-finite
    #: one (ValueError) and returns :attr:`MethodOutput.constant_columns`: the model layer then
    #: leaves the design's checks to the method's own read of ``X`` (one read instead of two),
    #: and states a refusal in the design's words (:func:`fstools.api.selection.select_frame`).
    checks_design: bool = False
    #: True when the method's function reads a dense ``X`` of bool or of an integer type the
    #: kernels read (:func:`fstools.core.arrays.is_integer_design`) as it is: such a design then
    #: reaches it without a float64 copy (:func:`fstools.api.selection.run_method`; the
    #: estimator's ``fit``), e.g. a 0/1 matrix of bool or uint8 is read as one byte per value.
    integer_designs: bool = False

    @property
    def supervised(self):
        """Whether the method uses the response (False: it takes any response, or none)."""
        return "supervised" in self.capabilities

    def takes_response(self, kind):
        """Whether the method runs with a response of type ``kind`` (one of :data:`RESPONSE_TYPES`)."""
        return not self.supervised or kind in self.responses

    def check_response(self, kind):
        """:func:`check_response` of this method: refuse a response type it cannot take."""
        check_response(self, kind)

    def __reduce__(self):
        # A registered method pickles by name (its checks are closures): loading finds it in the registry.
        return (get_method, (self.name,))

    def defaults(self):
        """Parameter name -> default value."""
        return {parameter.name: parameter.default for parameter in self.parameters}

    def preset(self, name):
        """The parameter values of the preset called ``name``, or a ValueError naming the method's presets."""
        for preset in self.presets:
            if preset.name == name:
                return dict(preset.values)
        allowed = ", ".join(repr(preset.name) for preset in self.presets)
        raise ValueError(f"preset: method {self.name!r} " + (f"has the presets {allowed}; got {name!r}" if allowed
                                                              else f"has no presets; got {name!r}"))

    def parameter(self, name):
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        raise KeyError(name)


@dataclass
class MethodOutput:
    """What a method returns (NumPy only; the API layer attaches names).

    Attributes
    ----------
    ranking : ndarray of int
        Column indices in selection order (the first ``k``, or all when ``k`` is None).
    scores : ndarray of float, shape (n_features,)
        The method's per-feature score (NaN where undefined).
    columns : dict of str -> ndarray, shape (n_features,)
        Further per-feature columns for the scores table (e.g. CMQFS's Q, NQ, step, w, NRI).
    steps : dict of str -> ndarray or None
        For greedy methods, one entry per step (same length as ``ranking``).
    notes : list of str
        Facts the user should see in the summary (e.g. constant columns given the lowest score).
    iterations : dict of str -> ndarray or None
        For iterative methods, one entry per iteration (equal lengths; e.g. DFS's
        ``objective`` and ``divergence``): ``SelectionResult.iterations``, drawn by
        ``plot(kind="convergence")``.
    tables : dict of str -> dict of str -> ndarray
        Further small tables to show with the result (e.g. DFS's ``gamma_cv`` grid):
        ``SelectionResult.tables`` (DataFrames), printed under the summary.
    constant_columns : ndarray of bool, shape (n_features,), or None
        Set by a method that has read every value of a dense ``X`` and refused non-finite ones
        (see :attr:`MethodSpec.checks_design`): exactly the columns of ``X`` with a single value.
        The model layer then takes the design's checks from the method instead of reading
        ``X`` once more for them.
    """

    ranking: np.ndarray
    scores: np.ndarray
    columns: dict = field(default_factory=dict)
    steps: dict | None = None
    notes: list = field(default_factory=list)
    iterations: dict | None = None
    tables: dict = field(default_factory=dict)
    constant_columns: np.ndarray | None = None


_REGISTRY: dict[str, MethodSpec] = {}


def register(spec):
    """Add a :class:`MethodSpec` to the registry (names are unique)."""
    unknown = set(spec.capabilities) - set(CAPABILITIES)
    if unknown:
        raise ValueError(f"capabilities: unknown {sorted(unknown)}; allowed: {', '.join(CAPABILITIES)}")
    unknown = set(spec.responses) - set(RESPONSE_TYPES)
    if unknown or not spec.responses:
        raise ValueError(f"responses: must be a non-empty set of {', '.join(RESPONSE_TYPES)}; "
                         f"got {sorted(spec.responses)}")
    if spec.factors not in FACTOR_MODES:
        raise ValueError(f"factors: must be one of {', '.join(FACTOR_MODES)}; got {spec.factors!r}")
    unknown = set(spec.missing) - set(NA_ACTIONS[2:])
    if unknown:
        raise ValueError(f"missing: unknown na_action value(s) {sorted(unknown)}; allowed: "
                         f"{', '.join(NA_ACTIONS[2:])}")
    if spec.name in _REGISTRY:
        raise ValueError(f"method {spec.name!r} is registered already")
    _REGISTRY[spec.name] = spec
    return spec


def method_names():
    """Registered method names, sorted."""
    return sorted(_REGISTRY)


def _canonical(name):
    """A method name as registered: lower case, '-' as '_' ('mRMR' -> 'mrmr', 'MIFS-U' -> 'mifs_u')."""
    return name.strip().lower().replace("-", "_")


def get_method(name):
    """The :class:`MethodSpec` called ``name`` (any case; '-' for '_'), or a ValueError naming the
    allowed values and the nearest names."""
    if isinstance(name, str) and _canonical(name) in _REGISTRY:
        return _REGISTRY[_canonical(name)]
    message = f"method: unknown method {name!r}; allowed values: {', '.join(sorted(_REGISTRY))}"
    if isinstance(name, str):
        message += did_you_mean(_canonical(name), sorted(_REGISTRY))
    raise ValueError(message)


def sparse_methods():
    """Names of the methods that take sparse ``X``: the filters (sorted), then the streaming methods (sorted)."""
    capable = [spec for spec in _REGISTRY.values() if "sparse" in spec.capabilities]
    filters = sorted(spec.name for spec in capable if "streaming" not in spec.capabilities)
    streaming = sorted(spec.name for spec in capable if "streaming" in spec.capabilities)
    return filters + streaming


def sparse_format(spec):
    """The sparse format a sparse-capable method reads: 'csr' for streaming methods (rows), else 'csc'."""
    return "csr" if "streaming" in spec.capabilities else "csc"


def registered_methods():
    """Every registered :class:`MethodSpec`, sorted by name."""
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]


def methods_for_response(kind):
    """Names of the registered methods that take a response of type ``kind``, sorted.

    ``kind`` is one of :data:`RESPONSE_TYPES`, or None for no response (the unsupervised
    methods).  Multi-label methods (a 0/1 label matrix as ``y``) are not listed.
    """
    if kind is not None and kind not in RESPONSE_TYPES:
        raise ValueError(f"response_type: must be one of {', '.join(map(repr, RESPONSE_TYPES))}; got {kind!r}")
    return [spec.name for spec in registered_methods()
            if "multilabel" not in spec.capabilities
            and (not spec.supervised if kind is None else spec.takes_response(kind))]


def check_response(spec, kind):
    """Refuse a method that cannot take a response of type ``kind`` (None: no response).

    Raises
    ------
    ValueError
        Naming the method, the response types it takes, the methods that take ``kind`` and,
        for a continuous response to a class-only method, how to cut it into classes.
    """
    if kind is not None and kind not in RESPONSE_TYPES:
        raise ValueError(f"response_type: must be one of {', '.join(map(repr, RESPONSE_TYPES))}; got {kind!r}")
    if kind is None:
        if spec.supervised:
            raise ValueError(f"method {spec.name!r} needs a response (a left-hand side in the formula); "
                             f"methods that take none: {', '.join(methods_for_response(None))}")
        return
    if spec.takes_response(kind):
        return
    takes = " and ".join(sorted(spec.responses))
    message = (f"method {spec.name!r} takes {takes} responses only; methods that take a {kind} response: "
               f"{', '.join(methods_for_response(kind))}")
    if kind == "continuous":
        message += "; or cut the response into classes with pd.cut / pd.qcut"
    raise ValueError(message)


def methods_for_na_action(na_action):
    """Names of the registered methods that support ``na_action`` (one of :data:`NA_ACTIONS`), sorted."""
    if na_action not in NA_ACTIONS:
        raise ValueError(f"na_action: must be one of {', '.join(map(repr, NA_ACTIONS))}; got {na_action!r}")
    return [spec.name for spec in registered_methods()
            if na_action in ("drop", "raise") or na_action in spec.missing]


def check_na_action(spec, na_action, params=None):
    """Refuse an ``na_action`` that is unknown or that method ``spec`` does not support.

    Parameters
    ----------
    spec : MethodSpec
    na_action : str
        One of :data:`NA_ACTIONS`.
    params : dict, optional
        The method's validated parameters: ``'level'`` codes missing values as a level of the
        discretised columns, which the plug-in estimate of the information uses, so it needs
        ``params['estimator'] == 'plugin'`` where the method has an estimator.

    Raises
    ------
    ValueError
        Naming the allowed values; for a value the method does not support, the values it
        takes, what the value means and the methods that support it; for ``'level'`` with
        another estimator, the values that estimator takes.
    """
    if not isinstance(na_action, str) or na_action not in NA_ACTIONS:
        message = f"na_action: must be one of {', '.join(map(repr, NA_ACTIONS))}; got {na_action!r}"
        if isinstance(na_action, str):
            message += did_you_mean(na_action, NA_ACTIONS)
        raise ValueError(message)
    if na_action not in ("drop", "raise") and na_action not in spec.missing:
        takes = [value for value in NA_ACTIONS if value in ("drop", "raise") or value in spec.missing]
        supported = methods_for_na_action(na_action)
        raise ValueError(f"na_action: method {spec.name!r} takes {', '.join(map(repr, takes))}; "
                         f"na_action={na_action!r} is taken by {', '.join(supported) if supported else 'no method'} "
                         f"({NA_ACTION_MEANINGS[na_action]}); or use na_action='drop'")
    if na_action == "level" and (params or {}).get("estimator", "plugin") != "plugin":
        raise ValueError(f"na_action: 'level' codes missing values as a level of the discretised columns, which "
                         f"the plug-in estimate uses; method {spec.name!r} with estimator="
                         f"{params['estimator']!r} takes 'drop' or 'raise'")

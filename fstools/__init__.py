"""fstools: feature selection in the style of R's statistical packages.

>>> import fstools as fs
>>> df = fs.datasets.load("wine")
>>> res = fs.select("class ~ .", df, method="cmqfs", k=5)
>>> res.summary()          # doctest: +SKIP

Public names: :func:`select`, :func:`compare`, :func:`stability`, :class:`FeatureSelector`,
:func:`list_methods`, :mod:`datasets`, :class:`SelectionResult`, :class:`ComparisonResult`,
:class:`StabilityResult`, :class:`FormulaError`; streaming: :class:`OnlineSelector`,
:func:`evaluate_online`, :class:`OnlineEvaluation`; multi-label: :class:`MultiLabelResult`
(what ``select`` returns for ``elc``, ``llsf``, ``ml_fisher``, ``ml_mi``), :class:`MLkNN`;
out of core (dask input, larger than memory): ``select`` on a dask DataFrame, :func:`select_dask_array`,
:class:`OutOfCoreResult` (see :mod:`fstools.api.dask_input`); selection with a guarantee, for every
method: :func:`stability_selection` (PFER bound; :func:`stability_selection_parameters`),
:func:`knockoff_filter` (FDR control; :func:`knockoff_threshold`), :func:`boruta` (shadow features),
and their results :class:`StabilitySelectionResult`, :class:`KnockoffResult`, :class:`BorutaResult`;
:func:`list_procedures` lists the three.

``import fstools`` does not import scikit-learn, ``scipy.stats``, statsmodels, matplotlib or dask:
each is imported where it is first needed.  The three scikit-learn estimators
(:class:`FeatureSelector`, :class:`OnlineSelector`, :class:`MLkNN`) subclass scikit-learn's classes,
so their modules are imported at the first use of the name (``fs.FeatureSelector``).
"""
from fstools import datasets
from fstools._version import __version__
from fstools.api.selection import select
from fstools.evaluation.compare import compare
from fstools.evaluation.comparison_result import ComparisonResult
from fstools.evaluation.online_evaluation import OnlineEvaluation, evaluate_online
from fstools.model.exceptions import FormulaError
from fstools.api.catalogue import list_methods
from fstools.evaluation import metrics
from fstools.results.multilabel_result import MultiLabelResult
from fstools.api.dask_input import select_dask_array
from fstools.results.out_of_core_result import OutOfCoreResult
from fstools.results.selection_result import SelectionResult
from fstools.evaluation.stability import StabilityResult, stability
from fstools.guarantees import (BorutaResult, KnockoffResult, StabilitySelectionResult, boruta, knockoff_filter,
                                knockoff_threshold, list_procedures, stability_selection,
                                stability_selection_parameters)

__all__ = ["__version__", "datasets", "metrics", "select", "FeatureSelector", "FormulaError", "list_methods",
           "SelectionResult", "compare", "ComparisonResult", "stability", "StabilityResult",
           "OnlineSelector", "evaluate_online", "OnlineEvaluation", "MLkNN", "MultiLabelResult",
           "select_dask_array", "OutOfCoreResult", "stability_selection", "stability_selection_parameters",
           "StabilitySelectionResult", "knockoff_filter", "knockoff_threshold", "KnockoffResult", "boruta",
           "BorutaResult", "list_procedures"]


def __getattr__(name):
    """The scikit-learn estimators, imported at the first use of their name (PEP 562).

    Their modules subclass scikit-learn's ``BaseEstimator``, and scikit-learn takes longer to
    import than fstools itself; every other public name is a plain attribute.
    """
    if name == "FeatureSelector":
        from fstools.api.transformer import FeatureSelector as estimator  # imports scikit-learn
    elif name == "OnlineSelector":
        from fstools.api.streaming import OnlineSelector as estimator  # imports scikit-learn
    elif name == "MLkNN":
        from fstools.evaluation.mlknn import MLkNN as estimator  # imports scikit-learn
    else:
        raise AttributeError(f"module 'fstools' has no attribute {name!r}")
    globals()[name] = estimator
    return estimator


def __dir__():
    return sorted(set(globals()) | set(__all__))

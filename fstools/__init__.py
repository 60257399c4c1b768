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
:class:`OutOfCoreResult` (see :mod:`fstools.out_of_core`).
"""
from fstools import datasets, metrics
from fstools._version import __version__
from fstools.api import select
from fstools.compare import compare
from fstools.comparison import ComparisonResult
from fstools.evaluation import OnlineEvaluation, evaluate_online
from fstools.exceptions import FormulaError
from fstools.methods.registry import list_methods
from fstools.mlknn import MLkNN
from fstools.multilabel_results import MultiLabelResult
from fstools.online import OnlineSelector
from fstools.out_of_core import OutOfCoreResult, select_dask_array
from fstools.results import SelectionResult
from fstools.stability import StabilityResult, stability
from fstools.transformer import FeatureSelector

__all__ = ["__version__", "datasets", "metrics", "select", "FeatureSelector", "FormulaError", "list_methods",
           "SelectionResult", "compare", "ComparisonResult", "stability", "StabilityResult",
           "OnlineSelector", "evaluate_online", "OnlineEvaluation", "MLkNN", "MultiLabelResult",
           "select_dask_array", "OutOfCoreResult"]

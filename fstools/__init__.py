"""fstools: feature selection in the style of R's statistical packages.

>>> import fstools as fs
>>> df = fs.datasets.load("wine")
>>> res = fs.select("class ~ .", df, method="cmqfs", k=5)
>>> res.summary()          # doctest: +SKIP

Public names: :func:`select`, :class:`FeatureSelector`, :func:`list_methods`,
:mod:`datasets`, :class:`SelectionResult`, :class:`FormulaError`.
"""
from fstools import datasets, metrics
from fstools._version import __version__
from fstools.api import select
from fstools.exceptions import FormulaError
from fstools.methods.registry import list_methods
from fstools.results import SelectionResult
from fstools.transformer import FeatureSelector

__all__ = ["__version__", "datasets", "metrics", "select", "FeatureSelector", "FormulaError", "list_methods",
           "SelectionResult"]

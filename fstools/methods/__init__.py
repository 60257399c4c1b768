"""Feature-selection methods: NumPy in, ranking/scores/diagnostics out.

One module per family (``graph``: CMQFS); :mod:`fstools.methods.registry`
maps names to methods with their parameters, defaults and capabilities.
Nothing here knows about pandas or formulas.
"""
from fstools.methods.registry import MethodOutput, MethodSpec, Parameter, get_method, list_methods, method_names

__all__ = ["MethodOutput", "MethodSpec", "Parameter", "get_method", "list_methods", "method_names"]

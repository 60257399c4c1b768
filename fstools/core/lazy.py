"""Modules imported at their first use, so that ``import fstools`` stays quick.

``import fstools`` imports NumPy, pandas, patsy and ``scipy.sparse``, nothing heavier.  A module
that uses a heavy library imports it where it is needed:

* a library module (``stats``, ``special``, ``linalg`` of SciPy): a :class:`LazyModule` bound to
  the usual name at the top of the module, so that every function of the module, and any added
  later, uses ``stats.ttest_rel`` as if ``from scipy import stats`` stood there;
* a single name (``digamma``, scikit-learn's ``chi2``, a class): an import inside the function that
  uses it, with a comment saying why;
* a public class that subclasses scikit-learn (:class:`fstools.FeatureSelector` and the other
  estimators): a lazy attribute of the ``fstools`` package (PEP 562 ``__getattr__``).

``tests/test_import_time.py`` checks that scikit-learn, ``scipy.stats``, ``scipy.linalg``,
``scipy.special``, statsmodels, matplotlib and dask are not imported by ``import fstools``, and
``benchmarks/bench_import.py`` measures the time.
"""
import importlib

__all__ = ["LazyModule"]


class LazyModule:
    """Stand-in for a module that is imported at the first attribute access.

    Unlike :class:`importlib.util.LazyLoader`, nothing is put into ``sys.modules`` before the real
    import, so ``name in sys.modules`` keeps telling whether the module has been imported.

    Parameters
    ----------
    name : str
        The module's full name, e.g. ``"scipy.stats"``.

    Examples
    --------
    >>> stats = LazyModule("scipy.stats")
    >>> stats
    <module 'scipy.stats', imported at its first use>
    >>> float(stats.norm.cdf(0.0))
    0.5
    """

    def __init__(self, name):
        self._module_name = name

    def __getattr__(self, attribute):
        # only called for names not found on the stand-in itself: every name of the module
        return getattr(importlib.import_module(self._module_name), attribute)

    def __repr__(self):
        return f"<module {self._module_name!r}, imported at its first use>"

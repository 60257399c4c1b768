"""Compiled kernels of fstools (Cython).

Modules
-------
_fvg
    1-D k-nearest-neighbour feature vector graph and its Newman-Girvan modularity
    (CMQFS relevance), without materialising edges.
_entropy
    Plug-in entropy, mutual information and conditional mutual information of
    discrete codes; the pair-information engine shared by the greedy
    information-theoretic methods (MIFS, MIFS-U, mRMR, JMI, CMIM) and the
    relevant-independency terms of CMQFS.
_moments
    Per-class column moments (counts, two-pass means, sums of squared deviations,
    exact constant flags), parallel over features: the dense Fisher score.
_build_info
    Whether the kernels were compiled with bounds checking (FSTOOLS_BOUNDSCHECK=1).
_neighbours
    Nearest-neighbour kernels of the similarity filters (ReliefF, Laplacian score).
_online
    Passive-aggressive updates (PA, PA-I, PA-II, MBPA, ONPA, cost-sensitive) with
    truncated gradient, a whole pass over dense or CSR rows without the GIL.

The kernels know nothing about pandas or formulas: typed memoryviews in,
arrays out.  Use :func:`load_kernel` to import one with a helpful error when the
package was not built.
"""
import importlib

_BUILD_HINT = (
    "the compiled kernels of fstools are missing ({error}). Install the package with "
    "'pip install .' (needs a C compiler), or build in place with "
    "'python setup.py build_ext --inplace' from the source tree."
)


def load_kernel(name):
    """Import and return ``fstools._ext.<name>``, raising a clear ImportError if it was not built."""
    try:
        return importlib.import_module("fstools._ext." + name)
    except ImportError as error:
        raise ImportError(_BUILD_HINT.format(error=error)) from error

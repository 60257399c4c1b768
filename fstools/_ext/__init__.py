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
    The checks of a design in one read: the non-finite and constant float64 columns
    (``column_flags``) and the smallest and largest value of every integer column
    (``column_extremes``), parallel over blocks of columns.
_one_pass
    Per-column moments of a dense matrix in one read (class sums and extremes, the
    scaling exponent, sums of squares and co-moments with a response; row blocks
    merged by the Chan-Golub-LeVeque update in a fixed order): the dense Fisher
    score, the F-test, chi2 and Pearson's r, with their input checks.
_build_info
    Whether the kernels were compiled with bounds checking (FSTOOLS_BOUNDSCHECK=1).
_neighbours
    Nearest-neighbour kernels of the similarity filters (ReliefF, Laplacian score).
_permutation
    Permutation nulls of the plug-in I(X_j; C): every permutation of the class
    counted in one call (threads over the permutations), the codes read once.
_bitcount
    Bit-parallel counting of binary and few-level features: one bit-plane per level
    in 64-bit words, contingency tables as popcounts of ANDed words; the same
    results, bitwise, as _entropy, chosen by level count (``counting_kernel``).
_bench_counting
    Private: the plain C counting loops that ``benchmarks/bench_counting.py``
    compares the kernels with (same build); not used by fstools.
_discretize
    Continuous columns coded by the mu/sigma, equal-width and equal-frequency
    schemes of ``fstools.core.discretize`` in one pass per block of columns
    (threads over columns), bitwise the codes of the NumPy arithmetic they replace.
_class_tables
    MIM's I(X_j; C) counted straight from the values of columns of small non-negative
    integers (one read of X, no code matrix), bitwise the information of their codes.
_online
    Passive-aggressive updates (PA, PA-I, PA-II, MBPA, ONPA, cost-sensitive) with
    truncated gradient, a whole pass over dense or CSR rows without the GIL.

_cyutility
    Not a kernel: the utility code that Cython would otherwise repeat in every module above
    (typed memoryviews), generated once by the build (``setup.py``) and imported by each.

Shared declarations (``cimport`` only, used by the kernels above)
-----------------------------------------------------------------
_typedefs.pxd
    Fused types: ``code_t`` / ``third_code_t`` (int8, int16, int32 codes) and
    ``csr_index_t`` (int32, int64 CSR indices).
_common.pxd (+ _common.pyx)
    The status codes of the nogil cores (OK, NON_FINITE, OUT_OF_MEMORY, BAD_CODE,
    ...), inline nogil helpers (first code out of range, largest status of a
    parallel loop, block lengths), the argument checks every kernel shares
    (thread count, lengths, class codes, strides) and the Ctrl-C check of the
    long loops (``SignalCheck``: the master thread runs the Python signal
    handlers at most every 20 ms and a shared flag stops every thread; the
    ``def`` wrapper then frees its buffers and raises KeyboardInterrupt).
_sorting.pxd (+ _sorting.pyx)
    Stable argsort by value, heap sort, quickselect and an inline lower bound.
_random.pxd
    SplitMix64 on a caller-owned state (inline): raw words, unbiased integers
    below a bound, reals in (0, 1).

The long loops (FVG modularity, the neighbour searches, the information engine,
per-class moments, the online pass) answer Ctrl-C within a fraction of a second.

Each kernel validates its arguments once, in its ``def`` wrapper, before any
nogil loop: whatever a caller passes, a bad argument is a ValueError or
TypeError naming it, never a crash.

The kernels know nothing about pandas or formulas: typed memoryviews in,
arrays out.  Import them as modules (``from fstools._ext import _fvg``); when
the package was not built, that import raises an ImportError that says how to
build it.
"""
import importlib

#: The compiled modules (one per ``fstools/_ext/*.pyx``).
KERNELS = ("_bench_counting", "_bitcount", "_build_info", "_class_tables", "_common", "_discretize", "_entropy", "_fvg", "_moments",
           "_neighbours", "_one_pass", "_online", "_permutation", "_sorting")

_BUILD_HINT = (
    "the compiled kernels of fstools are missing ({error}). Install the package with "
    "'pip install .' (needs a C compiler), or build in place with "
    "'python setup.py build_ext --inplace' from the source tree."
)


def __getattr__(name):
    """Import the kernel ``name`` on first access (``from fstools._ext import _fvg``),
    raising an ImportError with the build hint when it was not built."""
    if name not in KERNELS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ImportError as error:
        raise ImportError(_BUILD_HINT.format(error=error)) from error

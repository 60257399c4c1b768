# cython: language_level=3
"""Plug-in entropies, mutual information and conditional mutual information.

All quantities are plug-in (empirical-frequency) estimates on discrete codes,
in nats (natural logarithm).  A variable with ``L`` levels is coded by the
integers ``0 .. L-1``; codes need not use every level.

One formula for the entropy is used everywhere: for a counting table with
cells ``n_k`` summing to ``m``,

    H = (m log m - sum_k n_k log n_k) / m,

the sum running over the nonzero cells in increasing cell index (so the
summation order, and hence the result, is deterministic).  This equals
``-sum_k (n_k/m) log(n_k/m)`` and gives exactly 0 for a single occupied cell.
The other quantities are combinations of entropies:

    I(X;Y)   = H(X) + H(Y) - H(X,Y)
    I(X;Y|Z) = H(X,Z) + H(Y,Z) - H(X,Y,Z) - H(Z)

Both are >= 0 in exact arithmetic; a negative result in (-1e-12, 0) is
rounding and is returned as 0.0 (anything more negative is returned as is).

Counting tables are dense, allocated with ``calloc`` (at most
``MAX_TABLE_CELLS`` cells for the joint table) and freed by the helper that
allocated them.  The ``cdef`` helpers work on raw pointers without the GIL;
the ``def`` wrappers validate their arguments (equal lengths, at least one
level, codes in range, table size) and raise errors only outside the loops.

Kernels over many features (OpenMP ``prange``, one table per iteration,
results independent of the number of threads; each loop answers Ctrl-C
between features, raising KeyboardInterrupt with every table freed):

* :func:`feature_entropies` -- H(X_j) for every feature;
* :func:`feature_class_information` -- I(X_j; C) for every feature;
* :func:`pair_information_terms` -- for one selected feature s and many
  candidates c, I(X_c;X_s), I(X_c,X_s;C), I(X_c;C|X_s) and I(X_s;C|X_c)
  from one joint table of (x_c, x_s, class): the engine of the greedy
  information-theoretic filters and of CMQFS's relevant independency
  (:func:`relevant_independency_terms`, a thin use of the same core);
* :func:`accumulate_pair_terms` -- one of those quantities for every remaining
  candidate, folded into its running sum or minimum in place (one step of the
  greedy filters).

Codes are int8, int16 or int32 arrays (the fused type ``code_t``):
:mod:`fstools.core.discretize` stores them in the smallest of int8 / int16 that
holds the levels, and int32 is accepted as well.  The dtype changes only how
the codes are read; the counting tables, the summation order and hence every
result are the same for all three.  Class codes ``y`` of the kernels over many
features are int32.

Bounds checking and wraparound are switched off by ``setup.py`` (and on again
with ``FSTOOLS_BOUNDSCHECK=1``).
"""
import numpy as np

cimport numpy as cnp
from cython.parallel import parallel, prange
from libc.math cimport fabs, fmax, log
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

from fstools._ext._common cimport (BAD_CODE, NON_FINITE, OK, OUT_OF_MEMORY, SignalCheck, block_length, check_threads,
                                   first_out_of_range, raise_if_stopped, signal_check_init, stop_requested,
                                   value_matrix)
# code_t: integer codes of a discrete variable; third_code_t: the same types as an
# independent fused type, for the third variable of a counting table (the int32
# class of the kernels over many features, or z of conditional_mutual_information).
from fstools._ext._typedefs cimport code_t, sorted_t, third_code_t
from fstools._ext._sorting cimport lower_bound
from fstools._ext._lazy cimport LAZY_SIGNAL_EVERY, lazy_cmim_loop

cnp.import_array()

from fstools._ext._counting cimport (accumulate_term, clip_rounding as _clip_rounding, count_t, entropy_of_counts,
                                     mutual_information_of_table)

#: dtypes accepted for codes (int8 and int16 from fstools.core.discretize, int32 too).
CODE_DTYPES = (np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32))

#: Largest joint counting table (number of cells) a kernel will allocate.
MAX_TABLE_CELLS = 2 ** 26

# ---------------------------------------------------------------------------
# nogil helpers
# ---------------------------------------------------------------------------

cdef void _count3(const code_t* a, const code_t* b, Py_ssize_t nb,
                  const third_code_t* c, Py_ssize_t nc, Py_ssize_t m,
                  count_t* table) noexcept nogil:
    """Add the joint counts of (a, b, c) to the zeroed table of shape (na, nb, nc).

    Cell ``(ia, ib, ic)`` is ``table[(ia * nb + ib) * nc + ic]``.  ``b`` or
    ``c`` may be NULL (cast to its pointer type, which fixes the
    specialisation), meaning a constant code 0 (then ``nb`` or ``nc`` is 1).
    ``a`` and ``b`` share one code type; ``c`` may have another.
    """
    cdef Py_ssize_t i, cell
    for i in range(m):
        cell = a[i]
        cell = cell * nb + (b[i] if b != NULL else 0)
        cell = cell * nc + (c[i] if c != NULL else 0)
        table[cell] += 1


# Tables of at most this many cells are counted in four interleaved copies (samples
# i mod 4), summed at the end: consecutive samples falling in the same cell (binary
# sparse data, a dominant class) then do not wait on each other's increment.  The
# counts, hence every result, are the same integers as with one table.
cdef enum:
    SPLIT_CELLS = 256


cdef void _count3_split(const code_t* a, const code_t* b, Py_ssize_t nb,
                        const third_code_t* c, Py_ssize_t nc, Py_ssize_t m,
                        Py_ssize_t n_cells, count_t* table) noexcept nogil:
    """:func:`_count3` for a table of ``n_cells`` cells (``a`` of na = n_cells / (nb nc) levels).

    ``b`` and ``c`` must not be NULL here; tables larger than SPLIT_CELLS cells
    and short vectors go to :func:`_count3`.
    """
    cdef count_t split[4 * SPLIT_CELLS]
    cdef Py_ssize_t i, cell
    cdef Py_ssize_t end = m - m % 4
    if n_cells > SPLIT_CELLS or m < 64:
        _count3(a, b, nb, c, nc, m, table)
        return
    for i in range(4 * n_cells):
        split[i] = 0
    for i in range(0, end, 4):
        split[(a[i] * nb + b[i]) * nc + c[i]] += 1
        split[n_cells + (a[i + 1] * nb + b[i + 1]) * nc + c[i + 1]] += 1
        split[2 * n_cells + (a[i + 2] * nb + b[i + 2]) * nc + c[i + 2]] += 1
        split[3 * n_cells + (a[i + 3] * nb + b[i + 3]) * nc + c[i + 3]] += 1
    for i in range(end, m):
        split[(a[i] * nb + b[i]) * nc + c[i]] += 1
    for cell in range(n_cells):
        table[cell] += split[cell] + split[n_cells + cell] + split[2 * n_cells + cell] + split[3 * n_cells + cell]


cdef void _count2_split(const code_t* a, const third_code_t* c, Py_ssize_t nc, Py_ssize_t m,
                        Py_ssize_t n_cells, count_t* table) noexcept nogil:
    """:func:`_count3` of (a, 0, c) (no ``b``) in four interleaved tables, as :func:`_count3_split`."""
    cdef count_t split[4 * SPLIT_CELLS]
    cdef Py_ssize_t i, cell
    cdef Py_ssize_t end = m - m % 4
    if n_cells > SPLIT_CELLS or m < 64:
        _count3(a, <const code_t*> NULL, 1, c, nc, m, table)
        return
    for i in range(4 * n_cells):
        split[i] = 0
    for i in range(0, end, 4):
        split[a[i] * nc + c[i]] += 1
        split[n_cells + a[i + 1] * nc + c[i + 1]] += 1
        split[2 * n_cells + a[i + 2] * nc + c[i + 2]] += 1
        split[3 * n_cells + a[i + 3] * nc + c[i + 3]] += 1
    for i in range(end, m):
        split[a[i] * nc + c[i]] += 1
    for cell in range(n_cells):
        table[cell] += split[cell] + split[n_cells + cell] + split[2 * n_cells + cell] + split[3 * n_cells + cell]


cdef void _marginals3(const count_t* table, Py_ssize_t na, Py_ssize_t nb,
                      Py_ssize_t nc, count_t* ab, count_t* ac, count_t* bc,
                      count_t* a, count_t* b, count_t* c) noexcept nogil:
    """Add the marginal tables of a (na, nb, nc) table to the zeroed outputs.

    ``ab`` has shape (na, nb), ``ac`` (na, nc), ``bc`` (nb, nc), ``a``, ``b``,
    ``c`` are 1-D.  Any output may be NULL (not computed).
    """
    cdef Py_ssize_t ia, ib, ic
    cdef count_t n
    for ia in range(na):
        for ib in range(nb):
            for ic in range(nc):
                n = table[(ia * nb + ib) * nc + ic]
                if n == 0:
                    continue
                if ab != NULL:
                    ab[ia * nb + ib] += n
                if ac != NULL:
                    ac[ia * nc + ic] += n
                if bc != NULL:
                    bc[ib * nc + ic] += n
                if a != NULL:
                    a[ia] += n
                if b != NULL:
                    b[ib] += n
                if c != NULL:
                    c[ic] += n


cdef int _entropy(const code_t* x, Py_ssize_t nx, Py_ssize_t m,
                  double* result) noexcept nogil:
    """H(X).  Returns OK, or OUT_OF_MEMORY when the table cannot be allocated."""
    cdef count_t* counts = <count_t*> calloc(nx, sizeof(count_t))
    if counts == NULL:
        return OUT_OF_MEMORY
    _count3(x, <const code_t*> NULL, 1, <const int32_t*> NULL, 1, m, counts)
    result[0] = entropy_of_counts(counts, nx, m)
    free(counts)
    return OK


cdef int _joint_entropy(const code_t* x, Py_ssize_t nx, const code_t* y,
                        Py_ssize_t ny, Py_ssize_t m, double* result) noexcept nogil:
    """H(X,Y).  Returns OK, or OUT_OF_MEMORY when the table cannot be allocated."""
    cdef count_t* counts = <count_t*> calloc(nx * ny, sizeof(count_t))
    if counts == NULL:
        return OUT_OF_MEMORY
    _count3(x, y, ny, <const int32_t*> NULL, 1, m, counts)
    result[0] = entropy_of_counts(counts, nx * ny, m)
    free(counts)
    return OK


cdef int _mutual_information(const code_t* x, Py_ssize_t nx, const third_code_t* y,
                             Py_ssize_t ny, Py_ssize_t m, double* result) noexcept nogil:
    """I(X;Y) = H(X) + H(Y) - H(X,Y).  Returns OK or OUT_OF_MEMORY.

    ``y`` may have another code type than ``x`` (the int32 class of
    :func:`feature_class_information`): it is counted as the third variable of
    a (nx, 1, ny) table, whose cell ``(ix, 0, iy)`` is ``ix * ny + iy``, the
    same cell as in a (nx, ny) table.
    """
    cdef Py_ssize_t n_xy = nx * ny
    cdef count_t* xy = <count_t*> calloc(n_xy + nx + ny, sizeof(count_t))
    if xy == NULL:
        return OUT_OF_MEMORY
    cdef count_t* px = xy + n_xy
    cdef count_t* py = px + nx
    _count2_split(x, y, ny, m, n_xy, xy)
    _marginals3(xy, nx, 1, ny, NULL, NULL, NULL, px, NULL, py)
    result[0] = mutual_information_of_table(xy, px, nx, py, ny, m)
    free(xy)
    return OK


cdef int _conditional_mutual_information(
        const code_t* x, Py_ssize_t nx, const code_t* y, Py_ssize_t ny,
        const third_code_t* z, Py_ssize_t nz, Py_ssize_t m, double* result) noexcept nogil:
    """I(X;Y|Z) = H(X,Z) + H(Y,Z) - H(X,Y,Z) - H(Z).  Returns OK or OUT_OF_MEMORY."""
    cdef Py_ssize_t n_xyz = nx * ny * nz
    cdef count_t* xyz = <count_t*> calloc(n_xyz + nx * nz + ny * nz + nz, sizeof(count_t))
    if xyz == NULL:
        return OUT_OF_MEMORY
    cdef count_t* xz = xyz + n_xyz
    cdef count_t* yz = xz + nx * nz
    cdef count_t* pz = yz + ny * nz
    _count3(x, y, ny, z, nz, m, xyz)
    _marginals3(xyz, nx, ny, nz, NULL, xz, yz, NULL, NULL, pz)
    result[0] = _clip_rounding(entropy_of_counts(xz, nx * nz, m)
                               + entropy_of_counts(yz, ny * nz, m)
                               - entropy_of_counts(xyz, n_xyz, m)
                               - entropy_of_counts(pz, nz, m))
    free(xyz)
    return OK


cdef int _pair_information(
        const code_t* xc, Py_ssize_t nc, const code_t* xs, Py_ssize_t ns,
        const int32_t* cls, Py_ssize_t k, Py_ssize_t m, double* result) noexcept nogil:
    """The four pair quantities of (Xc, Xs, C) from one joint table.

    One pass over the samples counts the table of (a, b, c) = (xc, xs, class);
    the entropies come from its marginals, and::

        result[0] = I(Xc; Xs)     = H(a) + H(b) - H(a,b)
        result[1] = I(Xc, Xs; C)  = H(a,b) + H(c) - H(a,b,c)
        result[2] = I(Xc; C | Xs) = H(a,b) + H(b,c) - H(a,b,c) - H(b)
        result[3] = I(Xs; C | Xc) = H(a,b) + H(a,c) - H(a,b,c) - H(a)

    each clipped for rounding (see :func:`_clip_rounding`).  ``result`` has
    room for four doubles.  Returns OK or OUT_OF_MEMORY.
    """
    cdef Py_ssize_t n_abc = nc * ns * k
    cdef count_t* abc = <count_t*> calloc(n_abc + nc * ns + nc * k + ns * k + nc + ns + k,
                                          sizeof(count_t))
    if abc == NULL:
        return OUT_OF_MEMORY
    cdef count_t* ab = abc + n_abc
    cdef count_t* ac = ab + nc * ns
    cdef count_t* bc = ac + nc * k
    cdef count_t* a = bc + ns * k
    cdef count_t* b = a + nc
    cdef count_t* c = b + ns
    _count3_split(xc, xs, ns, cls, k, m, n_abc, abc)
    _marginals3(abc, nc, ns, k, ab, ac, bc, a, b, c)
    cdef double h_abc = entropy_of_counts(abc, n_abc, m)
    cdef double h_ab = entropy_of_counts(ab, nc * ns, m)
    cdef double h_a = entropy_of_counts(a, nc, m)
    cdef double h_b = entropy_of_counts(b, ns, m)
    result[0] = _clip_rounding(h_a + h_b - h_ab)
    result[1] = _clip_rounding(h_ab + entropy_of_counts(c, k, m) - h_abc)
    result[2] = _clip_rounding(h_ab + entropy_of_counts(bc, ns * k, m) - h_abc - h_b)
    result[3] = _clip_rounding(h_ab + entropy_of_counts(ac, nc * k, m) - h_abc - h_a)
    free(abc)
    return OK


cdef int _pair_terms_into(
        const code_t* xc, Py_ssize_t nc, const code_t* xs, Py_ssize_t ns,
        const int32_t* cls, Py_ssize_t k, Py_ssize_t m, bint relevant_independency,
        double* dest) noexcept nogil:
    """Write the pair quantities of (Xc, Xs, C) to ``dest``.

    ``relevant_independency`` false: the four values of :func:`_pair_information`
    (``dest`` has room for four).  True: the one value
    ``I(Xc; C | Xs) + I(Xs; C | Xc)`` (the pair term of CMQFS's Eq. 9).
    Returns a status code.
    """
    cdef double terms[4]
    cdef int status = _pair_information(xc, nc, xs, ns, cls, k, m, terms)
    if status != OK:
        return status
    if relevant_independency:
        dest[0] = terms[2] + terms[3]
    else:
        dest[0] = terms[0]
        dest[1] = terms[1]
        dest[2] = terms[2]
        dest[3] = terms[3]
    return OK


# ---------------------------------------------------------------------------
# argument checks (outside the loops)
# ---------------------------------------------------------------------------

cdef Py_ssize_t _check_codes(const code_t[::1] codes, str name, Py_ssize_t n_levels,
                             str levels_name, Py_ssize_t m=-1, str m_name="x") except -1:
    """Check that ``codes`` is not empty, has length ``m`` (if m >= 0; ``m_name``
    is what has that length) and holds codes in 0..n_levels-1.

    Returns the length of ``codes``.
    """
    cdef Py_ssize_t length = codes.shape[0]
    cdef Py_ssize_t bad
    if n_levels < 1:
        raise ValueError(f"{levels_name}: must be an integer >= 1; got {n_levels}")
    if m >= 0 and length != m:
        raise ValueError(f"{name}: has length {length} but {m_name} has length {m}; "
                         "they must have the same length (one code per sample)")
    if length == 0:
        raise ValueError(f"{name}: is empty; at least one sample is needed")
    with nogil:
        bad = first_out_of_range(&codes[0], length, n_levels)
    if bad >= 0:
        raise ValueError(f"{name}: has code {codes[bad]} at index {bad}; allowed: integers "
                         f"in 0..{levels_name}-1 = 0..{n_levels - 1}")
    return length


cdef _check_table_size(object n_cells, str what):
    """Raise ValueError when a joint table would exceed MAX_TABLE_CELLS cells."""
    if n_cells > MAX_TABLE_CELLS:
        raise ValueError(f"the joint counting table of {what} would have {n_cells} cells, "
                         f"more than the limit of {MAX_TABLE_CELLS}; use fewer levels")


def _describe_dtype(value):
    """The dtype of an array, or the type of anything else, for error messages."""
    return str(value.dtype) if isinstance(value, np.ndarray) else type(value).__name__


def _common_code_vectors(**vectors):
    """Check code vectors (keyword name -> array) and return them with one dtype.

    Each must be a NumPy array of int8, int16 or int32 codes (TypeError
    otherwise, naming the argument).  Arrays of different code dtypes are
    converted to the widest of them (a copy of the narrower ones only).
    """
    for name, value in vectors.items():
        if not isinstance(value, np.ndarray) or value.dtype not in CODE_DTYPES:
            raise TypeError(f"{name}: must be a NumPy array of int8, int16 or int32 codes; "
                            f"got {_describe_dtype(value)}")
    common = np.result_type(*[value.dtype for value in vectors.values()])
    return [value if value.dtype == common else value.astype(common) for value in vectors.values()]


def _code_matrix(codes):
    """Check that ``codes`` is a NumPy array of int8, int16 or int32 codes (TypeError if not)."""
    if not isinstance(codes, np.ndarray) or codes.dtype not in CODE_DTYPES:
        raise TypeError("codes: must be a C-contiguous 2-D NumPy array of int8, int16 or int32 "
                        f"codes; got {_describe_dtype(codes)}")
    return codes


# ---------------------------------------------------------------------------
# Python-visible wrappers
# ---------------------------------------------------------------------------

def entropy(x, Py_ssize_t n_levels):
    """Plug-in entropy H(X) in nats.

    Parameters
    ----------
    x : ndarray of int8, int16 or int32, shape (m,)
        Codes in ``0 .. n_levels-1``.
    n_levels : int
        Number of levels of X (>= 1).

    Returns
    -------
    float
    """
    x, = _common_code_vectors(x=x)
    return _entropy_of_codes(x, n_levels)


def _entropy_of_codes(const code_t[::1] x, Py_ssize_t n_levels):
    """:func:`entropy` for a checked code dtype."""
    cdef Py_ssize_t m = _check_codes(x, "x", n_levels, "n_levels")
    _check_table_size(n_levels, "x")
    cdef double result
    cdef int status
    with nogil:
        status = _entropy(&x[0], n_levels, m, &result)
    if status != OK:
        raise MemoryError("cannot allocate the counting table of x")
    return result


def joint_entropy(x, Py_ssize_t nx, y, Py_ssize_t ny):
    """Plug-in joint entropy H(X,Y) in nats.

    Parameters
    ----------
    x, y : ndarray of int8, int16 or int32, shape (m,)
        Codes in ``0 .. nx-1`` and ``0 .. ny-1`` (of different dtypes, the
        narrower one is converted to the wider).
    nx, ny : int
        Numbers of levels (>= 1).

    Returns
    -------
    float
    """
    x, y = _common_code_vectors(x=x, y=y)
    return _two_variables_of_codes(x, nx, y, ny, False)


def _two_variables_of_codes(const code_t[::1] x, Py_ssize_t nx, const code_t[::1] y, Py_ssize_t ny,
                            bint mutual):
    """:func:`mutual_information` (``mutual``) or :func:`joint_entropy` for one checked code dtype."""
    cdef Py_ssize_t m = _check_codes(x, "x", nx, "nx")
    _check_codes(y, "y", ny, "ny", m)
    _check_table_size(<object> nx * <object> ny, "(x, y)")
    cdef double result
    cdef int status
    with nogil:
        if mutual:
            status = _mutual_information(&x[0], nx, &y[0], ny, m, &result)
        else:
            status = _joint_entropy(&x[0], nx, &y[0], ny, m, &result)
    if status != OK:
        raise MemoryError("cannot allocate the counting table of (x, y)")
    return result


def mutual_information(x, Py_ssize_t nx, y, Py_ssize_t ny):
    """Plug-in mutual information I(X;Y) = H(X) + H(Y) - H(X,Y) in nats.

    A result in (-1e-12, 0), which can only be rounding, is returned as 0.0.

    Parameters
    ----------
    x, y : ndarray of int8, int16 or int32, shape (m,)
        Codes in ``0 .. nx-1`` and ``0 .. ny-1`` (of different dtypes, the
        narrower one is converted to the wider).
    nx, ny : int
        Numbers of levels (>= 1).

    Returns
    -------
    float
    """
    x, y = _common_code_vectors(x=x, y=y)
    return _two_variables_of_codes(x, nx, y, ny, True)


def conditional_mutual_information(x, Py_ssize_t nx, y, Py_ssize_t ny, z, Py_ssize_t nz):
    """Plug-in conditional mutual information I(X;Y|Z) in nats.

    I(X;Y|Z) = H(X,Z) + H(Y,Z) - H(X,Y,Z) - H(Z).  A result in (-1e-12, 0),
    which can only be rounding, is returned as 0.0.

    Parameters
    ----------
    x, y, z : ndarray of int8, int16 or int32, shape (m,)
        Codes in ``0 .. nx-1``, ``0 .. ny-1`` and ``0 .. nz-1`` (of different
        dtypes, the narrower ones are converted to the widest).
    nx, ny, nz : int
        Numbers of levels (>= 1).

    Returns
    -------
    float
    """
    x, y, z = _common_code_vectors(x=x, y=y, z=z)
    return _conditional_mutual_information_of_codes(x, nx, y, ny, z, nz)


def _conditional_mutual_information_of_codes(const code_t[::1] x, Py_ssize_t nx,
                                             const code_t[::1] y, Py_ssize_t ny,
                                             const code_t[::1] z, Py_ssize_t nz):
    """:func:`conditional_mutual_information` for one checked code dtype."""
    cdef Py_ssize_t m = _check_codes(x, "x", nx, "nx")
    _check_codes(y, "y", ny, "ny", m)
    _check_codes(z, "z", nz, "nz", m)
    _check_table_size(<object> nx * <object> ny * <object> nz, "(x, y, z)")
    cdef double result
    cdef int status
    with nogil:
        status = _conditional_mutual_information(&x[0], nx, &y[0], ny, &z[0], nz, m, &result)
    if status != OK:
        raise MemoryError("cannot allocate the counting table of (x, y, z)")
    return result


cdef _check_feature_arguments(const code_t[:, ::1] codes, const int32_t[::1] levels,
                              int n_threads):
    """Checks shared by the kernels over the rows of ``codes``: thread count and levels."""
    cdef Py_ssize_t n_features = codes.shape[0]
    cdef Py_ssize_t j
    check_threads(n_threads)
    if levels.shape[0] != n_features:
        raise ValueError(f"levels: has length {levels.shape[0]} but codes has {n_features} rows "
                         "(one per feature); they must agree")
    for j in range(n_features):
        if levels[j] < 1:
            raise ValueError(f"levels: must be >= 1 for every feature; got {levels[j]} "
                             f"for feature {j}")


cdef _check_feature_out(const double[::1] out, Py_ssize_t n_features):
    """The output of the kernels with one value per feature."""
    if out.shape[0] != n_features:
        raise ValueError(f"out: has length {out.shape[0]} but codes has {n_features} rows "
                         "(one per feature); they must agree")


cdef _check_pair_arguments(const code_t[:, ::1] codes, const int32_t[::1] levels,
                           const int32_t[::1] y, Py_ssize_t n_classes, Py_ssize_t selected,
                           const cnp.intp_t[::1] candidates, int n_threads):
    """Checks of the pair kernels (all but ``out``); codes of the candidates are
    checked inside the parallel loop."""
    cdef Py_ssize_t n_features = codes.shape[0]
    cdef Py_ssize_t m = codes.shape[1]
    cdef Py_ssize_t i, c, max_levels
    _check_feature_arguments(codes, levels, n_threads)
    if not 0 <= selected < n_features:
        raise ValueError(f"selected: must be a feature index in 0..{n_features - 1}; got {selected}")
    _check_codes(y, "y", n_classes, "n_classes", m, "each row of codes")
    _check_codes(codes[selected], f"codes[{selected}] (the selected feature)",
                 levels[selected], f"levels[{selected}]")
    max_levels = 1
    for i in range(candidates.shape[0]):
        c = candidates[i]
        if not 0 <= c < n_features:
            raise ValueError(f"candidates: must hold feature indices in 0..{n_features - 1}; "
                             f"got {c} at position {i}")
        max_levels = max(max_levels, levels[c])
    _check_table_size(<object> max_levels * <object> levels[selected] * <object> n_classes,
                      f"(a candidate feature, codes[{selected}], y)")


cdef _raise_row_status(const int32_t[::1] status, const code_t[:, ::1] codes,
                       const int32_t[::1] levels, str what, const cnp.intp_t[::1] rows=None):
    """Raise the first error flagged by a parallel loop over feature rows.

    ``status[i]`` belongs to feature ``rows[i]`` (or to feature ``i`` when
    ``rows`` is None); ``what`` names the table in the MemoryError.
    """
    cdef Py_ssize_t i, j
    for i in range(status.shape[0]):
        if status[i] == OK:
            continue
        j = rows[i] if rows is not None else i
        if status[i] == OUT_OF_MEMORY:
            raise MemoryError(f"cannot allocate the counting table {what} for feature {j}")
        if status[i] == BAD_CODE:
            _check_codes(codes[j], f"codes[{j}]", levels[j], f"levels[{j}]")


cdef _pair_terms_loop(const code_t[:, ::1] codes, const int32_t[::1] levels,
                      const int32_t[::1] y, Py_ssize_t n_classes, Py_ssize_t selected,
                      const cnp.intp_t[::1] candidates, double* out, Py_ssize_t stride,
                      bint relevant_independency, int n_threads):
    """The one parallel loop of the pair kernels (arguments already checked).

    Candidate ``i`` writes ``out[i * stride ...]`` (see :func:`_pair_terms_into`);
    errors are flagged per candidate and raised after the loop.
    """
    cdef Py_ssize_t m = codes.shape[1]
    cdef Py_ssize_t n_candidates = candidates.shape[0]
    cdef Py_ssize_t ls = levels[selected]
    cdef Py_ssize_t i, c
    if n_candidates == 0:
        return
    cdef int32_t[::1] status = np.zeros(n_candidates, dtype=np.int32)
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for i in prange(n_candidates, nogil=True, num_threads=n_threads, schedule='dynamic'):
        c = candidates[i]
        if stop_requested(&check):
            pass  # Ctrl-C: the remaining candidates are skipped
        elif first_out_of_range(&codes[c, 0], m, levels[c]) >= 0:
            status[i] = BAD_CODE
        else:
            status[i] = _pair_terms_into(&codes[c, 0], levels[c], &codes[selected, 0], ls,
                                         &y[0], n_classes, m, relevant_independency,
                                         out + i * stride)
    raise_if_stopped(&check)
    _raise_row_status(status, codes, levels, f"of (candidate, codes[{selected}], y)", candidates)


def pair_information_terms(codes, levels, y, n_classes, selected, candidates, out, n_threads=1):
    """Information quantities of every (candidate, selected) pair with the class.

    For each ``i``, with ``c = candidates[i]`` and ``s = selected``::

        out[i, 0] = I(X_c; X_s)
        out[i, 1] = I(X_c, X_s; C)
        out[i, 2] = I(X_c; C | X_s)
        out[i, 3] = I(X_s; C | X_c)

    in nats, all four from one pass over the samples that builds the joint
    counting table of (x_c, x_s, class); the entropies come from its
    marginals.  This is the one engine of the greedy information-theoretic
    filters (MIFS, MIFS-U, mRMR, JMI, CMIM) and of CMQFS's relevant
    independency (:func:`relevant_independency_terms`).  Candidates are
    processed in parallel (OpenMP, ``n_threads`` threads, each iteration with
    its own table); every row of ``out`` is computed by one thread with a
    fixed summation order, so the result does not depend on ``n_threads``.

    Parameters
    ----------
    codes : ndarray of int8, int16 or int32, shape (n_features, m), C-contiguous
        Feature-major codes: row ``j`` holds the m codes of feature ``j``,
        in ``0 .. levels[j]-1``.
    levels : ndarray of int32, shape (n_features,)
        Number of levels of each feature (>= 1).
    y : ndarray of int32, shape (m,)
        Class codes in ``0 .. n_classes-1``.
    n_classes : int
        Number of classes (>= 1).
    selected : int
        Index of the selected feature (row of ``codes``).
    candidates : ndarray of intp, shape (n_candidates,)
        Indices of the candidate features (rows of ``codes``).
    out : ndarray of float64, shape (n_candidates, 4), C-contiguous
        Filled with the four quantities per candidate.
    n_threads : int, default 1
        Number of OpenMP threads (>= 1).
    """
    return _pair_information_terms(_code_matrix(codes), levels, y, n_classes, selected, candidates,
                                   out, n_threads)


def _pair_information_terms(const code_t[:, ::1] codes, const int32_t[::1] levels,
                            const int32_t[::1] y, Py_ssize_t n_classes,
                            Py_ssize_t selected, const cnp.intp_t[::1] candidates,
                            double[:, ::1] out, int n_threads=1):
    """:func:`pair_information_terms` for a checked code dtype."""
    _check_pair_arguments(codes, levels, y, n_classes, selected, candidates, n_threads)
    if out.shape[0] != candidates.shape[0] or out.shape[1] != 4:
        raise ValueError(f"out: has shape ({out.shape[0]}, {out.shape[1]}) but must be "
                         f"(n_candidates, 4) = ({candidates.shape[0]}, 4)")
    _pair_terms_loop(codes, levels, y, n_classes, selected, candidates,
                     &out[0, 0] if out.shape[0] > 0 else NULL, 4, False, n_threads)


def relevant_independency_terms(codes, levels, y, n_classes, selected, candidates, out, n_threads=1):
    """Pair terms of the relevant independency of CMQFS (Zhao et al. 2015, Eq. 9).

    For each ``i``, with ``c = candidates[i]`` and ``s = selected``::

        out[i] = I(X_c; C | X_s) + I(X_s; C | X_c)

    that is ``out[i, 2] + out[i, 3]`` of :func:`pair_information_terms`, from
    the same engine (one pass over the samples per pair building the joint
    counting table of (x_c, x_s, class)).  The candidates are processed in
    parallel (OpenMP, ``n_threads`` threads, each with its own table); every
    ``out[i]`` is computed by one thread with a fixed summation order, so the
    result does not depend on ``n_threads``.  Dividing by ``2 H(C)`` (Eq. 9)
    is left to the caller.

    The parameters are those of :func:`pair_information_terms`, except ``out``:
    an ndarray of float64 of shape (n_candidates,), filled with the pair terms
    in nats.
    """
    return _relevant_independency_terms(_code_matrix(codes), levels, y, n_classes, selected,
                                        candidates, out, n_threads)


def _relevant_independency_terms(const code_t[:, ::1] codes, const int32_t[::1] levels,
                                 const int32_t[::1] y, Py_ssize_t n_classes,
                                 Py_ssize_t selected, const cnp.intp_t[::1] candidates,
                                 double[::1] out, int n_threads=1):
    """:func:`relevant_independency_terms` for a checked code dtype."""
    _check_pair_arguments(codes, levels, y, n_classes, selected, candidates, n_threads)
    if out.shape[0] != candidates.shape[0]:
        raise ValueError(f"out: has length {out.shape[0]} but candidates has length "
                         f"{candidates.shape[0]}; they must agree")
    _pair_terms_loop(codes, levels, y, n_classes, selected, candidates,
                     &out[0] if out.shape[0] > 0 else NULL, 1, True, n_threads)


# Features per work item of accumulate_pair_terms (one look at Ctrl-C each).
cdef Py_ssize_t ACCUMULATE_BLOCK = 16


def accumulate_pair_terms(codes, levels, y, n_classes, selected, active, running, term, weight=1.0,
                          minimum=False, n_threads=1):
    """One step of the greedy filters: a pair term of every active feature with the selected one,
    folded into its running value in place.

    For every feature ``j`` with ``active[j]`` nonzero, with ``t`` the value
    ``out[term]`` of :func:`pair_information_terms` for the pair (candidate ``j``,
    ``selected``)::

        running[j] = min(running[j], t)          if minimum
        running[j] = running[j] + weight * t     otherwise (weight 1: running[j] + t)

    the product rounded on its own (no fused multiply-add), so that ``running``
    is bitwise that of ``running[c] += weight * terms[:, term]`` (or
    ``np.minimum``) in NumPy after :func:`pair_information_terms`.  This is
    that call and that update in one pass, without the candidate list and the
    table of terms.  The features are processed in parallel (OpenMP, blocks of
    16 features handed out as threads come free); each ``running[j]`` is
    computed by one thread with a fixed summation order, so the result does not
    depend on ``n_threads``.

    Parameters
    ----------
    codes, levels, y, n_classes, selected
        As for :func:`pair_information_terms`.
    active : ndarray of uint8, shape (n_features,)
        Nonzero for the features to update (the remaining candidates).
    running : ndarray of float64, shape (n_features,)
        The running values, updated in place where ``active``.
    term : {0, 1, 2, 3}
        Which quantity of :func:`pair_information_terms`: I(X_c;X_s), I(X_c,X_s;C),
        I(X_c;C|X_s) or I(X_s;C|X_c).
    weight : float, default 1.0
        Factor of the term in a sum (ignored with ``minimum``).
    minimum : bool, default False
        Keep the running minimum instead of the sum.
    n_threads : int, default 1
        Number of OpenMP threads (>= 1).
    """
    if isinstance(term, bool) or not isinstance(term, (int, np.integer)) or not 0 <= term <= 3:
        raise ValueError(f"term: must be 0, 1, 2 or 3 (a column of pair_information_terms); got {term!r}")
    return _accumulate_pair_terms(_code_matrix(codes), levels, y, n_classes, selected, active, running,
                                  term, weight, minimum, n_threads)


def _accumulate_pair_terms(const code_t[:, ::1] codes, const int32_t[::1] levels, const int32_t[::1] y,
                           Py_ssize_t n_classes, Py_ssize_t selected, const uint8_t[::1] active,
                           double[::1] running, int term, double weight, bint minimum, int n_threads):
    """:func:`accumulate_pair_terms` for a checked code dtype."""
    cdef Py_ssize_t n_features = codes.shape[0]
    cdef Py_ssize_t m = codes.shape[1]
    if active.shape[0] != n_features or running.shape[0] != n_features:
        raise ValueError(f"active, running: must have one entry per feature ({n_features}); "
                         f"got lengths {active.shape[0]} and {running.shape[0]}")
    cdef const cnp.intp_t[::1] candidates = np.flatnonzero(np.asarray(active)).astype(np.intp)
    _check_pair_arguments(codes, levels, y, n_classes, selected, candidates, n_threads)
    cdef Py_ssize_t ls = levels[selected]
    cdef Py_ssize_t n_blocks = (n_features + ACCUMULATE_BLOCK - 1) // ACCUMULATE_BLOCK
    cdef Py_ssize_t block, j, stop
    cdef int32_t[::1] status = np.zeros(n_features, dtype=np.int32)
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for block in prange(n_blocks, nogil=True, num_threads=n_threads, schedule='dynamic'):
        if stop_requested(&check):
            continue  # Ctrl-C: the remaining blocks are skipped
        stop = (block + 1) * ACCUMULATE_BLOCK
        if stop > n_features:
            stop = n_features
        for j in range(block * ACCUMULATE_BLOCK, stop):
            if active[j]:
                status[j] = _accumulate_one(&codes[j, 0], levels[j], &codes[selected, 0], ls, &y[0], n_classes,
                                            m, term, weight, minimum, &running[j])
    raise_if_stopped(&check)
    _raise_row_status(status, codes, levels, f"of (candidate, codes[{selected}], y)")


cdef int _accumulate_one(const code_t* xc, Py_ssize_t nc, const code_t* xs, Py_ssize_t ns, const int32_t* cls,
                         Py_ssize_t k, Py_ssize_t m, int term, double weight, bint minimum,
                         double* running) noexcept nogil:
    """The pair terms of (Xc, Xs, C) (:func:`_pair_information`) and the update of one running value."""
    cdef double terms[4]
    cdef int status
    if first_out_of_range(xc, m, nc) >= 0:
        return BAD_CODE
    status = _pair_information(xc, nc, xs, ns, cls, k, m, terms)
    if status == OK:
        accumulate_term(running, terms[term], weight, minimum)
    return status


def feature_class_information(codes, levels, y, n_classes, out, n_threads=1):
    """Mutual information I(X_j; C) of every feature with the class, in nats.

    ``out[j] = H(X_j) + H(C) - H(X_j, C)`` (see :func:`mutual_information`),
    the features processed in parallel (OpenMP, each with its own table); the
    result does not depend on ``n_threads``.

    Parameters
    ----------
    codes : ndarray of int8, int16 or int32, shape (n_features, m), C-contiguous
        Feature-major codes in ``0 .. levels[j]-1``.
    levels : ndarray of int32, shape (n_features,)
        Number of levels of each feature (>= 1).
    y : ndarray of int32, shape (m,)
        Class codes in ``0 .. n_classes-1``.
    n_classes : int
        Number of classes (>= 1).
    out : ndarray of float64, shape (n_features,)
        Filled with I(X_j; C).
    n_threads : int, default 1
        Number of OpenMP threads (>= 1).
    """
    return _feature_class_information(_code_matrix(codes), levels, y, n_classes, out, n_threads)


def _feature_class_information(const code_t[:, ::1] codes, const int32_t[::1] levels,
                               const int32_t[::1] y, Py_ssize_t n_classes,
                               double[::1] out, int n_threads=1):
    """:func:`feature_class_information` for a checked code dtype."""
    cdef Py_ssize_t n_features = codes.shape[0]
    cdef Py_ssize_t m = codes.shape[1]
    cdef Py_ssize_t j, max_levels = 1
    _check_feature_arguments(codes, levels, n_threads)
    _check_feature_out(out, n_features)
    _check_codes(y, "y", n_classes, "n_classes", m, "each row of codes")
    for j in range(n_features):
        max_levels = max(max_levels, levels[j])
    _check_table_size(<object> max_levels * <object> n_classes, "(a feature, y)")
    if n_features == 0:
        return
    cdef int32_t[::1] status = np.zeros(n_features, dtype=np.int32)
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for j in prange(n_features, nogil=True, num_threads=n_threads, schedule='dynamic'):
        if stop_requested(&check):
            pass  # Ctrl-C: the remaining features are skipped
        elif first_out_of_range(&codes[j, 0], m, levels[j]) >= 0:
            status[j] = BAD_CODE
        else:
            status[j] = _mutual_information(&codes[j, 0], levels[j], &y[0], n_classes, m, &out[j])
    raise_if_stopped(&check)
    _raise_row_status(status, codes, levels, "of (feature, y)")


def feature_entropies(codes, levels, out, n_threads=1):
    """Entropy H(X_j) of every feature, in nats.

    The features are processed in parallel (OpenMP, each with its own
    table); the result does not depend on ``n_threads``.

    Parameters
    ----------
    codes : ndarray of int8, int16 or int32, shape (n_features, m), C-contiguous
        Feature-major codes in ``0 .. levels[j]-1``; m >= 1.
    levels : ndarray of int32, shape (n_features,)
        Number of levels of each feature (>= 1).
    out : ndarray of float64, shape (n_features,)
        Filled with H(X_j).
    n_threads : int, default 1
        Number of OpenMP threads (>= 1).
    """
    return _feature_entropies(_code_matrix(codes), levels, out, n_threads)


def _feature_entropies(const code_t[:, ::1] codes, const int32_t[::1] levels,
                       double[::1] out, int n_threads=1):
    """:func:`feature_entropies` for a checked code dtype."""
    cdef Py_ssize_t n_features = codes.shape[0]
    cdef Py_ssize_t m = codes.shape[1]
    cdef Py_ssize_t j, max_levels = 1
    _check_feature_arguments(codes, levels, n_threads)
    _check_feature_out(out, n_features)
    if n_features == 0:
        return
    if m == 0:
        raise ValueError("codes: has no samples (0 columns); at least one sample is needed")
    for j in range(n_features):
        max_levels = max(max_levels, levels[j])
    _check_table_size(max_levels, "a feature")
    cdef int32_t[::1] status = np.zeros(n_features, dtype=np.int32)
    cdef SignalCheck check
    signal_check_init(&check, 1)
    for j in prange(n_features, nogil=True, num_threads=n_threads, schedule='dynamic'):
        if stop_requested(&check):
            pass  # Ctrl-C: the remaining features are skipped
        elif first_out_of_range(&codes[j, 0], m, levels[j]) >= 0:
            status[j] = BAD_CODE
        else:
            status[j] = _entropy(&codes[j, 0], levels[j], m, &out[j])
    raise_if_stopped(&check)
    _raise_row_status(status, codes, levels, "of (feature)")


# ---------------------------------------------------------------------------
# discrete columns used as they are (the data path of the information methods)
# ---------------------------------------------------------------------------

# value_t: the element types of X read by :func:`discrete_column_codes` (bool as uint8); the
# fused type lower_bound searches in.
ctypedef sorted_t value_t

#: Status of a column after :func:`discrete_column_codes`.
COLUMN_CONTINUOUS = 0
COLUMN_DISCRETE = 1
COLUMN_NON_FINITE = 2
COLUMN_UNDECIDED = 3

cdef enum:
    _CONTINUOUS = 0
    _DISCRETE = 1
    _NON_FINITE = 2
    _UNDECIDED = 3

cdef enum:
    # discrete_column_codes(whole_columns=False): a column (a row-major block of columns) whose
    # run of this many values (the row tile of the row-major path) holds a value that is not an
    # integer (in every column) is not read further.
    WHOLE_RUN = 64

# A column of integers whose range (max - min) is below this is coded through a
# table of TABLE_RANGE presence flags (O(1) per value); wider ones through a
# sorted array of at most max_levels distinct values (binary search).
cdef Py_ssize_t TABLE_RANGE = 256

# Integers beyond 2^53 are not all representable as float64: an int64 column
# holding one is left undecided (the caller codes it as before).  The test is on
# the integers (2^53 + 1 rounds to 2^53 as a double).
cdef int64_t EXACT_INTEGER_LIMIT_INT64 = 9007199254740992


# 2^52: every double of at least this magnitude is an integer, and below it
# (a + 2^52) - 2^52 rounds a >= 0 to an integer (no libm call, vectorisable).
cdef double TWO_TO_52 = 4503599627370496.0


cdef inline bint _value_is_integer(value_t v) noexcept nogil:
    cdef double a
    if value_t is double or value_t is float:
        a = fabs(<double> v)
        return (a >= TWO_TO_52) | (((a + TWO_TO_52) - TWO_TO_52) == a)
    return True


cdef inline bint _value_is_finite(value_t v) noexcept nogil:
    if value_t is double or value_t is float:
        return (<double> v) - (<double> v) == 0.0
    return True


cdef int _code_discrete_column(const value_t* x, Py_ssize_t m, Py_ssize_t max_levels,
                               int8_t* codes, int32_t* n_levels, value_t* distinct,
                               uint8_t* table, bint whole_column=True) noexcept nogil:
    """Code one contiguous column ``x[0:m]`` if it is discrete (see :func:`discrete_column_codes`).

    Writes ``codes[0:m]`` (the rank of each value among the sorted distinct
    values) and ``n_levels[0]`` for a discrete column; returns its status.
    ``distinct`` has room for ``max_levels`` values, ``table`` for TABLE_RANGE flags.
    Without ``whole_column``, a column is left at the end of the first run of
    WHOLE_RUN values that holds a value that is not an integer: continuous (or
    non-finite, if such a value was read).
    """
    cdef Py_ssize_t i, lo, mid, n_distinct, offset
    cdef value_t low = x[0]
    cdef value_t high = x[0]
    cdef value_t v
    cdef bint integer = True
    cdef bint finite = True
    cdef int8_t rank
    for i in range(m):
        v = x[i]
        if v < low:
            low = v
        if v > high:
            high = v
        integer = integer & _value_is_integer(v)
        finite = finite & _value_is_finite(v)
        if not whole_column and i % WHOLE_RUN == WHOLE_RUN - 1 and not integer:
            break
    if not finite:
        return _NON_FINITE
    if not integer:
        return _CONTINUOUS
    if value_t is int64_t:
        if low < -EXACT_INTEGER_LIMIT_INT64 or high > EXACT_INTEGER_LIMIT_INT64:
            return _UNDECIDED
    if <double> high - <double> low <= 1.0:  # one or two values (binary): both occur, code = x - low
        n_distinct = 1 if high == low else 2
        if n_distinct > max_levels:
            return _CONTINUOUS
        for i in range(m):
            codes[i] = <int8_t> (x[i] - low)
        n_levels[0] = <int32_t> n_distinct
        return _DISCRETE
    if <double> high - <double> low < TABLE_RANGE:
        offset = <Py_ssize_t> (<double> high - <double> low) + 1
        for i in range(offset):
            table[i] = 0
        for i in range(m):
            table[<Py_ssize_t> (x[i] - low)] = 1
        n_distinct = 0
        for i in range(offset):
            if table[i]:
                n_distinct += 1
        if n_distinct > max_levels:
            return _CONTINUOUS
        rank = 0
        for i in range(offset):  # presence flag -> rank of the value
            if table[i]:
                table[i] = rank
                rank += 1
        for i in range(m):
            codes[i] = <int8_t> table[<Py_ssize_t> (x[i] - low)]
        n_levels[0] = <int32_t> n_distinct
        return _DISCRETE
    n_distinct = 0
    for i in range(m):
        v = x[i]
        lo = lower_bound(distinct, n_distinct, v)
        if lo < n_distinct and distinct[lo] == v:
            continue
        if n_distinct == max_levels:
            return _CONTINUOUS
        for mid in range(n_distinct, lo, -1):
            distinct[mid] = distinct[mid - 1]
        distinct[lo] = v
        n_distinct += 1
    for i in range(m):
        codes[i] = <int8_t> lower_bound(distinct, n_distinct, x[i])
    n_levels[0] = <int32_t> n_distinct
    return _DISCRETE


cdef int _code_column_block(const value_t* X, Py_ssize_t row_stride, Py_ssize_t column_stride,
                            Py_ssize_t m, Py_ssize_t first, Py_ssize_t width, Py_ssize_t max_levels,
                            int8_t* codes, int32_t* levels, int8_t* status, uint64_t* planes,
                            value_t* scratch, bint whole_columns) noexcept nogil:
    """:func:`_code_discrete_column` for columns ``first .. first + width - 1`` of ``X``; with
    ``planes`` (not NULL), a binary column's codes are also packed into its bit-plane there.

    Strides are in elements.  A column that is not contiguous is first copied
    (the block transposed through ``scratch``, room for ``width * m + max_levels``
    values and TABLE_RANGE flags after them).  Returns OK or OUT_OF_MEMORY.
    """
    cdef Py_ssize_t i, jj, j
    cdef const value_t* column
    cdef value_t* distinct = scratch + width * m
    cdef uint8_t* table = <uint8_t*> (distinct + max_levels)
    cdef const value_t* row
    if row_stride != 1 and m > 1:  # rows are contiguous (C order): transpose the block
        for i in range(m):
            row = X + i * row_stride + first * column_stride
            for jj in range(width):
                scratch[jj * m + i] = row[jj * column_stride]
    for jj in range(width):
        j = first + jj
        if row_stride != 1 and m > 1:
            column = scratch + jj * m
        else:
            column = X + j * column_stride
        status[j] = <int8_t> _code_discrete_column(column, m, max_levels, codes + j * m, levels + j,
                                                   distinct, table, whole_columns)
        if planes != NULL and status[j] == _DISCRETE and levels[j] <= 2:
            _pack_binary_codes(codes + j * m, m, planes + j * ((m + 63) // 64))
    return OK


cdef extern from *:
    """
    /* The bit-plane words of a tile of at most 64 float64 rows of _code_row_block: bit i of
       words[j] is set when row i's value in column j differs from low[j] (for a column of two
       adjacent integers, when its code x - low is 1).  A row at a time, vectorised over the
       columns (a comparison and an OR per value) as fstools_float64_row_stats. */
    FSTOOLS_VECTOR_CLONES
    static void fstools_float64_binary_words(const double* restrict X, Py_ssize_t row_stride, Py_ssize_t rows,
                                             Py_ssize_t width, const double* restrict low,
                                             uint64_t* restrict words)
    {
        Py_ssize_t i, j;
        for (j = 0; j < width; ++j)
            words[j] = 0;
        for (i = 0; i < rows; ++i) {
            const double* restrict row = X + i * row_stride;
            const uint64_t bit = (uint64_t) 1 << i;
            for (j = 0; j < width; ++j)
                words[j] |= row[j] != low[j] ? bit : 0;
        }
    }
    """
    void fstools_float64_binary_words(const double* X, Py_ssize_t row_stride, Py_ssize_t rows, Py_ssize_t width,
                                      const double* low, uint64_t* words) noexcept nogil


cdef extern from *:
    """
    /* The range, finiteness and integrality pass of _code_row_block over float64 rows
       (fstools_float64_row_stats), and the same pass that also writes the bit-plane words of
       every column (fstools_float64_row_stats_words), in C for the restrict qualifiers and
       GCC's vector extensions.

       fraction_sum[j] sums |((a + 2^52) - 2^52) - a| over the values v of column j, a = |v|:
       0 when every value is an integer below 2^52 in magnitude, NaN when some value is NaN
       or infinite, > 0 otherwise (a sum of non-negative terms is 0 only if every term is).
       low[j] and high[j] are the column's least and largest values (NaN compares false and is
       never taken).  With words: bit i % 64 of planes[j * n_words + i / 64] is set when the
       value of row i in column j differs from ref[j] = the value of row 0 (for a column of
       two adjacent integers, the plane of code 1 when row 0 holds the smaller value, its
       complement otherwise: see _code_row_block); words has room for width words.

       Where the compiler has GCC's vector extensions (GCC, Clang), a tile of 64 rows is read
       in strips of 8 columns (two vectors of 4 doubles) whose statistics (and word) stay in
       registers down the 64 rows, while the same strip of the next tile is prefetched into
       the cache (the strips of a tile cover its whole rows: every line of the next tile is
       asked for, one per row read).  A loop of a row at a time over all the columns keeps
       the statistics in memory (a load and a store of each per value), and the strips read
       the tile down its rows from memory unless it is prefetched.  Measured on one thread:
       800 x 100,000 binary float64 with words, 40-43 ms against 59-72 ms for the row loop
       and 81-120 ms without the prefetch (a C benchmark of the three); the kernel's pass over
       10,000 x 2,000 continuous float64 (discrete_column_codes) 38 -> 7 ms.  Each
       column's values are taken in the same order (down the rows), so the sums, and so the
       results, are the same bits.  The columns of a block beyond a multiple of 8, and every
       column where there are no vector extensions, go by the row loop. */
    #define FSTOOLS_ROW_STATS_UPDATE(v, j)                                      \
        {                                                                       \
            double a_ = (v) < 0.0 ? -(v) : (v);                                 \
            double fraction_ = ((a_ + two_to_52) - two_to_52) - a_;             \
            low[j] = (v) < low[j] ? (v) : low[j];                               \
            high[j] = (v) > high[j] ? (v) : high[j];                            \
            fraction_sum[j] += fraction_ < 0.0 ? -fraction_ : fraction_;        \
        }
    #if defined(__GNUC__) || defined(__clang__)
    #include <string.h>
    #define FSTOOLS_STRIPS 1
    #define FSTOOLS_ALWAYS_INLINE static inline __attribute__((always_inline))
    typedef double fstools_v4d __attribute__((vector_size(32)));
    typedef long long fstools_v4i __attribute__((vector_size(32)));
    /* FSTOOLS_ROW_STATS_UPDATE of a vector v of 4 values of a strip's columns (vector k) */
    #define FSTOOLS_STRIP_UPDATE(v, k)                                                          \
        {                                                                                       \
            fstools_v4d a_ = (fstools_v4d) ((fstools_v4i) (v) & abs_mask);                      \
            fstools_v4d f_ = ((a_ + two_to_52_v) - two_to_52_v) - a_;                           \
            fstools_v4i below_ = (v) < low##k, above_ = (v) > high##k;                          \
            low##k = (fstools_v4d) ((below_ & (fstools_v4i) (v)) | (~below_ & (fstools_v4i) low##k));   \
            high##k = (fstools_v4d) ((above_ & (fstools_v4i) (v)) | (~above_ & (fstools_v4i) high##k)); \
            sum##k += (fstools_v4d) ((fstools_v4i) f_ & abs_mask);                              \
            if (with_words)                                                                     \
                word##k |= ((v) != ref##k) & bit;                                               \
        }
    #else
    #define FSTOOLS_STRIPS 0
    #define FSTOOLS_ALWAYS_INLINE static inline
    #endif
    /* The one body of the two passes (with_words a constant where it is inlined).  With
       stop_continuous, it returns after a tile of 64 rows at whose end every column of the
       block holds a value that is not an integer (its fraction sum is not 0): the number of
       rows read (m when all of them). */
    FSTOOLS_ALWAYS_INLINE Py_ssize_t fstools_row_stats_body(const double* restrict X, Py_ssize_t row_stride,
                                                      Py_ssize_t m, Py_ssize_t width, double* restrict low,
                                                      double* restrict high, double* restrict fraction_sum,
                                                      double* restrict ref, uint64_t* restrict words,
                                                      uint64_t* restrict planes, Py_ssize_t n_words,
                                                      const int with_words, const int stop_continuous)
    {
        const double two_to_52 = 4503599627370496.0;
        Py_ssize_t start, i, j, first_row_loop = 0;
        for (j = 0; j < width; ++j) {
            low[j] = X[j];
            high[j] = X[j];
            fraction_sum[j] = 0.0;
            if (with_words) {
                ref[j] = X[j];
                words[j] = 0;
            }
        }
    #if FSTOOLS_STRIPS
        first_row_loop = width - width % 8;
    #endif
        for (start = 0; start < m; start += 64) {
            const Py_ssize_t rows = m - start < 64 ? m - start : 64;
    #if FSTOOLS_STRIPS
            const fstools_v4i abs_mask = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL,
                                          0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
            const fstools_v4d two_to_52_v = {two_to_52, two_to_52, two_to_52, two_to_52};
            for (j = 0; j < first_row_loop; j += 8) {
                fstools_v4d low0, low1, high0, high1, sum0, sum1, v0, v1;
                fstools_v4d ref0 = {0.0, 0.0, 0.0, 0.0}, ref1 = {0.0, 0.0, 0.0, 0.0};
                fstools_v4i word0 = {0, 0, 0, 0}, word1 = {0, 0, 0, 0};
                memcpy(&low0, low + j, 32);
                memcpy(&low1, low + j + 4, 32);
                memcpy(&high0, high + j, 32);
                memcpy(&high1, high + j + 4, 32);
                memcpy(&sum0, fraction_sum + j, 32);
                memcpy(&sum1, fraction_sum + j + 4, 32);
                if (with_words) {
                    memcpy(&ref0, ref + j, 32);
                    memcpy(&ref1, ref + j + 4, 32);
                }
                for (i = 0; i < rows; ++i) {
                    const double* row = X + (start + i) * row_stride + j;
                    const long long one_bit = (long long) ((uint64_t) 1 << i);
                    const fstools_v4i bit = {one_bit, one_bit, one_bit, one_bit};
                    if (start + i + 64 < m) {
                        /* both ends of the strip: a strip of an X not aligned to 64 bytes
                           (NumPy's arrays are aligned to 16) spans two cache lines */
                        __builtin_prefetch(row + 64 * row_stride, 0, 1);
                        __builtin_prefetch(row + 64 * row_stride + 7, 0, 1);
                    }
                    memcpy(&v0, row, 32);
                    memcpy(&v1, row + 4, 32);
                    FSTOOLS_STRIP_UPDATE(v0, 0)
                    FSTOOLS_STRIP_UPDATE(v1, 1)
                }
                memcpy(low + j, &low0, 32);
                memcpy(low + j + 4, &low1, 32);
                memcpy(high + j, &high0, 32);
                memcpy(high + j + 4, &high1, 32);
                memcpy(fraction_sum + j, &sum0, 32);
                memcpy(fraction_sum + j + 4, &sum1, 32);
                if (with_words) {
                    memcpy(words + j, &word0, 32);
                    memcpy(words + j + 4, &word1, 32);
                }
            }
    #endif
            for (i = 0; i < rows; ++i) {
                const double* restrict row = X + (start + i) * row_stride;
                const uint64_t bit = (uint64_t) 1 << i;
                for (j = first_row_loop; j < width; ++j) {
                    double v = row[j];
                    FSTOOLS_ROW_STATS_UPDATE(v, j)
                    if (with_words)
                        words[j] |= v != ref[j] ? bit : 0;
                }
            }
            if (with_words) {
                for (j = 0; j < width; ++j) {
                    planes[j * n_words + start / 64] = words[j];
                    words[j] = 0;
                }
            }
            if (stop_continuous && start + rows < m) {
                /* every column holds a value that is not an integer, or one that is not finite
                   (the sum is NaN): none is discrete, and the rest of the block is not read.
                   A column that reached 2^52 in magnitude is not decided by its sum. */
                Py_ssize_t undecided = 0;
                for (j = 0; j < width; ++j) {
                    const double largest = fabs(low[j]) > fabs(high[j]) ? fabs(low[j]) : fabs(high[j]);
                    const int decided = fraction_sum[j] != fraction_sum[j]
                                        || (fraction_sum[j] != 0.0 && largest < two_to_52);
                    undecided += !decided;
                }
                if (undecided == 0)
                    return start + rows;
            }
        }
        return m;
    }
    FSTOOLS_VECTOR_CLONES
    static Py_ssize_t fstools_float64_row_stats(const double* restrict X, Py_ssize_t row_stride, Py_ssize_t m,
                                                Py_ssize_t width, double* restrict low, double* restrict high,
                                                double* restrict fraction_sum, int stop_continuous)
    {
        return fstools_row_stats_body(X, row_stride, m, width, low, high, fraction_sum, NULL, NULL, NULL, 0, 0,
                                      stop_continuous);
    }
    FSTOOLS_VECTOR_CLONES
    static Py_ssize_t fstools_float64_row_stats_words(const double* restrict X, Py_ssize_t row_stride,
                                                      Py_ssize_t m, Py_ssize_t width, double* restrict low,
                                                      double* restrict high, double* restrict fraction_sum,
                                                      double* restrict ref, uint64_t* restrict words,
                                                      uint64_t* restrict planes, Py_ssize_t n_words,
                                                      int stop_continuous)
    {
        return fstools_row_stats_body(X, row_stride, m, width, low, high, fraction_sum, ref, words, planes,
                                      n_words, 1, stop_continuous);
    }
    """
    Py_ssize_t fstools_float64_row_stats(const double* X, Py_ssize_t row_stride, Py_ssize_t m, Py_ssize_t width,
                                         double* low, double* high, double* fraction_sum,
                                         int stop_continuous) noexcept nogil
    Py_ssize_t fstools_float64_row_stats_words(const double* X, Py_ssize_t row_stride, Py_ssize_t m,
                                               Py_ssize_t width, double* low, double* high, double* fraction_sum,
                                               double* ref, uint64_t* words, uint64_t* planes, Py_ssize_t n_words,
                                               int stop_continuous) noexcept nogil


cdef extern from *:
    """
    /* The pass of _code_row_block over the rows of an integer X with planes (int64, int32,
       int16, int8, uint8 and bool as uint8): each column's least and largest values, and the
       bit-plane words of every column relative to its first value (bit i % 64 of
       planes[j * n_words + i / 64] set when row i's value differs from row 0's, which goes to
       ref[j] as a double), as fstools_float64_row_stats_words does for float64 (integers need no
       integrality or finiteness sums).

       With GCC's vector extensions, a tile of 64 rows is read in strips of 32 bytes (32 columns
       of one byte, ..., 4 of eight bytes) held in one vector each: the strip's least and
       largest values, and its word bits, stay in registers down the tile.  A lane of b bits
       collects the bits of b rows at a time (bit r of the lane: row r of the group), so the 64
       rows make 64 / b vectors of bits, which are put together into each column's 64-bit word
       at the end of the tile.  The same strip of the next tile is prefetched.  The columns of a
       block beyond a multiple of the strip (and every column with other compilers) go a row at
       a time.  The least and largest values are exact in any order and each bit is one
       comparison: the same values as the row loop. */
    #if defined(__GNUC__) || defined(__clang__)
    #define FSTOOLS_INTEGER_STRIPS 1
    #else
    #define FSTOOLS_INTEGER_STRIPS 0
    #endif
    #if FSTOOLS_INTEGER_STRIPS
    /* T the values' type, S the signed type of its width (comparison results and bits), U the
       unsigned one (the bits put together into words) */
    #define FSTOOLS_INTEGER_STRIP_LOOP(T, S, U)                                                   \
        {                                                                                       \
            typedef T value_v_ __attribute__((vector_size(32)));                                \
            typedef S mask_v_ __attribute__((vector_size(32)));                                 \
            enum { LANES_ = 32 / sizeof(T), LANE_BITS_ = 8 * sizeof(T), GROUPS_ = 64 / (8 * sizeof(T)) }; \
            S bits_[GROUPS_][LANES_];                                                           \
            for (j = 0; j + LANES_ <= width; j += LANES_) {                                     \
                value_v_ lo_, hi_, ref_;                                                        \
                Py_ssize_t g_, c_;                                                              \
                memcpy(&lo_, low + j, 32);                                                      \
                memcpy(&hi_, high + j, 32);                                                     \
                memcpy(&ref_, X + j, 32);                                                       \
                for (g_ = 0; g_ < GROUPS_; ++g_) {                                              \
                    mask_v_ group_ = (mask_v_) {0};                                             \
                    const Py_ssize_t first_ = g_ * LANE_BITS_;                                  \
                    const Py_ssize_t stop_ = first_ + LANE_BITS_ < rows ? first_ + LANE_BITS_ : rows; \
                    for (i = first_; i < stop_; ++i) {                                          \
                        const T* row_ = X + (start + i) * row_stride + j;                       \
                        const S bit_ = (S) ((U) 1 << (i - first_));                             \
                        value_v_ v_;                                                            \
                        mask_v_ below_, above_;                                                 \
                        if (start + i + 64 < m) {                                               \
                            /* both ends: a strip of an X not aligned to 32 bytes spans two lines */ \
                            __builtin_prefetch(row_ + 64 * row_stride, 0, 1);                   \
                            __builtin_prefetch(row_ + 64 * row_stride + LANES_ - 1, 0, 1);      \
                        }                                                                       \
                        memcpy(&v_, row_, 32);                                                  \
                        below_ = (mask_v_) (v_ < lo_);                                          \
                        above_ = (mask_v_) (v_ > hi_);                                          \
                        lo_ = (value_v_) ((below_ & (mask_v_) v_) | (~below_ & (mask_v_) lo_)); \
                        hi_ = (value_v_) ((above_ & (mask_v_) v_) | (~above_ & (mask_v_) hi_)); \
                        group_ |= (mask_v_) (v_ != ref_) & bit_;                                \
                    }                                                                           \
                    memcpy(bits_[g_], &group_, 32);                                             \
                }                                                                               \
                memcpy(low + j, &lo_, 32);                                                      \
                memcpy(high + j, &hi_, 32);                                                     \
                for (c_ = 0; c_ < LANES_; ++c_) {                                               \
                    uint64_t word_ = 0;                                                         \
                    for (g_ = 0; g_ < GROUPS_; ++g_)                                            \
                        word_ |= (uint64_t) (U) bits_[g_][c_] << (g_ * LANE_BITS_);             \
                    words[j + c_] = word_;                                                      \
                }                                                                               \
            }                                                                                   \
            first_row_loop = j;                                                                 \
        }
    #else
    #define FSTOOLS_INTEGER_STRIP_LOOP(T, S, U)
    #endif
    #define FSTOOLS_INTEGER_ROW_STATS_WORDS(T, S, U, NAME)                                        \
        FSTOOLS_VECTOR_CLONES                                                                   \
        static void fstools_##NAME##_row_stats_words(const T* restrict X, Py_ssize_t row_stride, \
                                                     Py_ssize_t m, Py_ssize_t width,             \
                                                     T* restrict low, T* restrict high,          \
                                                     double* restrict ref, uint64_t* restrict words, \
                                                     uint64_t* restrict planes, Py_ssize_t n_words) \
        {                                                                                       \
            Py_ssize_t start, i, j, first_row_loop = 0;                                         \
            for (j = 0; j < width; ++j) {                                                       \
                low[j] = X[j];                                                                  \
                high[j] = X[j];                                                                 \
                ref[j] = (double) X[j];                                                         \
                words[j] = 0;                                                                   \
            }                                                                                   \
            for (start = 0; start < m; start += 64) {                                           \
                const Py_ssize_t rows = m - start < 64 ? m - start : 64;                        \
                FSTOOLS_INTEGER_STRIP_LOOP(T, S, U)                                             \
                for (i = 0; i < rows; ++i) {                                                    \
                    const T* restrict row = X + (start + i) * row_stride;                       \
                    const uint64_t bit = (uint64_t) 1 << i;                                     \
                    for (j = first_row_loop; j < width; ++j) {                                  \
                        const T v = row[j];                                                     \
                        low[j] = v < low[j] ? v : low[j];                                       \
                        high[j] = v > high[j] ? v : high[j];                                    \
                        words[j] |= v != X[j] ? bit : 0;                                        \
                    }                                                                           \
                }                                                                               \
                for (j = 0; j < width; ++j) {                                                   \
                    planes[j * n_words + start / 64] = words[j];                                \
                    words[j] = 0;                                                               \
                }                                                                               \
            }                                                                                   \
        }
    FSTOOLS_INTEGER_ROW_STATS_WORDS(int64_t, int64_t, uint64_t, int64)
    FSTOOLS_INTEGER_ROW_STATS_WORDS(int32_t, int32_t, uint32_t, int32)
    FSTOOLS_INTEGER_ROW_STATS_WORDS(int16_t, int16_t, uint16_t, int16)
    FSTOOLS_INTEGER_ROW_STATS_WORDS(int8_t, int8_t, uint8_t, int8)
    FSTOOLS_INTEGER_ROW_STATS_WORDS(uint8_t, int8_t, uint8_t, uint8)
    /* The one entry of the five: the type by its size in bytes and whether it is unsigned (only
       uint8, the type of bool arrays, is). */
    static void fstools_integer_row_stats_words(const void* X, Py_ssize_t size, int is_unsigned,
                                                Py_ssize_t row_stride, Py_ssize_t m, Py_ssize_t width,
                                                void* low, void* high, double* ref, uint64_t* words,
                                                uint64_t* planes, Py_ssize_t n_words)
    {
        if (size == 8)
            fstools_int64_row_stats_words((const int64_t*) X, row_stride, m, width, (int64_t*) low,
                                          (int64_t*) high, ref, words, planes, n_words);
        else if (size == 4)
            fstools_int32_row_stats_words((const int32_t*) X, row_stride, m, width, (int32_t*) low,
                                          (int32_t*) high, ref, words, planes, n_words);
        else if (size == 2)
            fstools_int16_row_stats_words((const int16_t*) X, row_stride, m, width, (int16_t*) low,
                                          (int16_t*) high, ref, words, planes, n_words);
        else if (is_unsigned)
            fstools_uint8_row_stats_words((const uint8_t*) X, row_stride, m, width, (uint8_t*) low,
                                          (uint8_t*) high, ref, words, planes, n_words);
        else
            fstools_int8_row_stats_words((const int8_t*) X, row_stride, m, width, (int8_t*) low,
                                         (int8_t*) high, ref, words, planes, n_words);
    }
    """
    void fstools_integer_row_stats_words(const void* X, Py_ssize_t size, int is_unsigned, Py_ssize_t row_stride,
                                         Py_ssize_t m, Py_ssize_t width, void* low, void* high, double* ref,
                                         uint64_t* words, uint64_t* planes, Py_ssize_t n_words) noexcept nogil


# The row-major path of discrete_column_codes reads blocks of ROW_BLOCK_COLUMNS columns of
# whole rows (512 bytes of float64 per row), and writes their codes in tiles of CODE_TILE_ROWS
# rows: a tile (32 KiB of float64) stays in the L1 cache while each of its columns is read down
# the rows, and a block of 800 rows (400 KiB) in L2 between the pass of statistics and the
# writes.  Measured on 800 x 100,000 binary float64 (benchmarks/bench_information.py): 64 x 64
# codes it in 0.9 of the time of 256 x 16 and 0.6 of 1024 x 64 on one thread, and 1.75x faster
# on two threads than on one (256 x 16: 1.4x; the wider blocks are read from memory twice).
# CODE_TILE_ROWS is also the 64 bits of a bit-plane word (the binary columns' planes are written
# a word per tile: see _code_row_block).
cdef Py_ssize_t ROW_BLOCK_COLUMNS = 64
cdef Py_ssize_t CODE_TILE_ROWS = 64


cdef struct RowBlockScratch:
    # Work space of _code_row_block for a block of at most `width` columns of m rows.
    void* low              # width values: the minimum of each column
    void* high             # width values: the maximum
    double* fraction_sum   # width sums of each value's distance to an integer (see _code_row_block)
    Py_ssize_t* binary     # positions (in the block) of the columns coded x - min
    Py_ssize_t* tabled     # positions of the columns coded through a presence table
    uint8_t* tables        # width * TABLE_RANGE presence flags, then ranks
    void* column           # m + max_levels values and TABLE_RANGE flags: one column, for
                           # the columns of more than TABLE_RANGE integers (binary search)
    uint64_t* words        # width bit-plane words of a tile (the binary columns' planes)
    double* ref            # width values: the first value of each column (float64 with planes)


cdef void _free_row_block_scratch(RowBlockScratch* work) noexcept nogil:
    free(work.low)
    free(work.high)
    free(work.fraction_sum)
    free(work.binary)
    free(work.tabled)
    free(work.tables)
    free(work.column)
    free(work.words)
    free(work.ref)


cdef RowBlockScratch _row_block_scratch(Py_ssize_t width, Py_ssize_t m, Py_ssize_t max_levels,
                                        Py_ssize_t value_size) noexcept nogil:
    """Allocate the work space of :func:`_code_row_block`; every pointer NULL when out of memory.

    Returned by value: assigned in a parallel block, it is private to each thread."""
    cdef RowBlockScratch work
    work.low = malloc(width * value_size)
    work.high = malloc(width * value_size)
    work.fraction_sum = <double*> malloc(width * sizeof(double))
    work.binary = <Py_ssize_t*> malloc(width * sizeof(Py_ssize_t))
    work.tabled = <Py_ssize_t*> malloc(width * sizeof(Py_ssize_t))
    work.tables = <uint8_t*> malloc(width * TABLE_RANGE)
    work.column = malloc((m + max_levels) * value_size + TABLE_RANGE)
    work.words = <uint64_t*> malloc(width * sizeof(uint64_t))
    work.ref = <double*> malloc(width * sizeof(double))
    if (work.low == NULL or work.high == NULL or work.fraction_sum == NULL or work.binary == NULL
            or work.tabled == NULL or work.tables == NULL or work.column == NULL or work.words == NULL
            or work.ref == NULL):
        _free_row_block_scratch(&work)
        work.low = work.high = work.column = NULL
        work.words = NULL
        work.ref = NULL
        work.fraction_sum = NULL
        work.tables = NULL
        work.binary = work.tabled = NULL
    return work


cdef bint _block_decided(const float* low, const float* high, const double* fraction_sum,
                         Py_ssize_t width) noexcept nogil:
    """The float32 rows' test of fstools_row_stats_body's stop_continuous: every column's
    fraction sum is NaN, or not 0 with values below 2^52 in magnitude."""
    cdef Py_ssize_t jj
    for jj in range(width):
        if fraction_sum[jj] == fraction_sum[jj] and (
                fraction_sum[jj] == 0.0 or fmax(fabs(<double> low[jj]), fabs(<double> high[jj])) >= TWO_TO_52):
            return False
    return True


cdef void _code_row_block(const value_t* X, Py_ssize_t row_stride, Py_ssize_t m, Py_ssize_t first,
                          Py_ssize_t width, Py_ssize_t max_levels, int8_t* codes, int32_t* levels,
                          int8_t* status, uint64_t* planes, Py_ssize_t n_words,
                          RowBlockScratch* work, bint whole_columns) noexcept nogil:
    """:func:`_code_discrete_column` for columns ``first .. first + width - 1`` of a row-major ``X``.

    ``X`` has contiguous rows (column stride 1, row stride ``row_stride`` elements), so the
    block is read a row at a time: one pass for the range, integrality and finiteness of
    every column (vectorised over the columns), one more for the presence tables of the
    columns of at most TABLE_RANGE integers, and one writing the codes a tile of rows at a
    time, the binary columns as ``x - min`` and the others as the rank of the value in the
    table.  A column of wider integers is copied and coded by :func:`_code_discrete_column`.
    The codes, levels and status are those of :func:`_code_discrete_column` on each column.
    When ``planes`` is not NULL (``n_words`` words per column), a binary column gets its
    bit-plane of code 1 there instead of its codes: for float64, the words of every column
    of the block are written in the pass of statistics (relative to the column's first value;
    complemented for a binary column whose first value is its larger; the rows of the other
    columns are left with words of no meaning), for the other types a word per tile of 64 rows.

    Integrality and finiteness come from one sum per column of ``|((a + 2^52) - 2^52) - a|``
    over its values ``v`` (``a = |v|``): 0 when every value is an integer below 2^52 in
    magnitude, NaN when some value is NaN or infinite, > 0 otherwise (a sum of non-negative
    terms is 0 only if every term is).  Every double of magnitude 2^52 or more is an integer
    but its term need not be 0, so a column reaching 2^52 is decided by :func:`_all_integers`.
    """
    cdef value_t* low = <value_t*> work.low
    cdef value_t* high = <value_t*> work.high
    cdef double* fraction_sum = work.fraction_sum
    cdef Py_ssize_t* binary = work.binary
    cdef Py_ssize_t* tabled = work.tabled
    cdef uint8_t* tables = work.tables
    cdef value_t* column = <value_t*> work.column
    cdef const value_t* row
    cdef value_t v
    cdef double a, fraction
    cdef Py_ssize_t i, jj, t, n_binary = 0, n_tabled = 0, n_kept, offset, n_distinct, start, length
    cdef Py_ssize_t n_packed = 0
    cdef int8_t rank
    cdef uint8_t* table
    # float64 and the integer types with planes: every column's words in the pass of statistics
    # (relative to its first value)
    cdef bint words_written = value_t is not float and planes != NULL
    cdef uint64_t last_word_bits
    cdef Py_ssize_t rows_read = m
    if value_t is double:
        if planes != NULL:
            rows_read = fstools_float64_row_stats_words(X + first, row_stride, m, width, low, high, fraction_sum,
                                                        work.ref, work.words, planes + first * n_words, n_words,
                                                        not whole_columns)
        else:
            rows_read = fstools_float64_row_stats(X + first, row_stride, m, width, low, high, fraction_sum,
                                                  not whole_columns)
    elif words_written:  # an integer type (no integrality or finiteness to sum)
        for jj in range(width):
            fraction_sum[jj] = 0.0
        fstools_integer_row_stats_words(X + first, sizeof(value_t), value_t is uint8_t, row_stride, m, width, low,
                                        high, work.ref, work.words, planes + first * n_words, n_words)
    else:
        row = X + first
        for jj in range(width):
            low[jj] = row[jj]
            high[jj] = row[jj]
            fraction_sum[jj] = 0.0
        for i in range(m):
            row = X + i * row_stride + first
            for jj in range(width):
                v = row[jj]
                low[jj] = v if v < low[jj] else low[jj]
                high[jj] = v if v > high[jj] else high[jj]
                if value_t is float:  # as fstools_float64_row_stats (the other types are integers)
                    a = fabs(<double> v)
                    fraction = fabs(((a + TWO_TO_52) - TWO_TO_52) - a)
                    fraction_sum[jj] += fraction
            if value_t is float:
                if not whole_columns and i % WHOLE_RUN == WHOLE_RUN - 1 and i + 1 < m and _block_decided(
                        low, high, fraction_sum, width):
                    rows_read = i + 1
                    break
    if rows_read < m:  # (whole_columns False) every column holds a value that is not an integer
        for jj in range(width):
            status[first + jj] = _NON_FINITE if fraction_sum[jj] != fraction_sum[jj] else _CONTINUOUS
        return
    for jj in range(width):
        if fraction_sum[jj] != fraction_sum[jj]:  # NaN: some value is not finite
            status[first + jj] = _NON_FINITE
            continue
        if value_t is double or value_t is float:
            if fraction_sum[jj] != 0.0 and fmax(fabs(<double> low[jj]), fabs(<double> high[jj])) >= TWO_TO_52:
                fraction_sum[jj] = 0.0 if _all_integers(X + first + jj, row_stride, m) else 1.0
        if fraction_sum[jj] != 0.0:
            status[first + jj] = _CONTINUOUS
        elif value_t is int64_t and (low[jj] < -EXACT_INTEGER_LIMIT_INT64
                                     or high[jj] > EXACT_INTEGER_LIMIT_INT64):
            status[first + jj] = _UNDECIDED
        elif <double> high[jj] - <double> low[jj] <= 1.0:  # binary: both values occur, code = x - min
            n_distinct = 1 if high[jj] == low[jj] else 2
            if n_distinct > max_levels:
                status[first + jj] = _CONTINUOUS
            else:
                status[first + jj] = _DISCRETE
                levels[first + jj] = <int32_t> n_distinct
                if words_written:
                    if n_distinct == 2 and work.ref[jj] != <double> low[jj]:
                        # row 0 holds the larger value: the words flag the smaller one, code 0
                        last_word_bits = (~(<uint64_t> 0)) >> ((64 - m % 64) % 64)
                        for t in range(n_words):
                            planes[(first + jj) * n_words + t] = ~planes[(first + jj) * n_words + t]
                        planes[(first + jj) * n_words + n_words - 1] &= last_word_bits
                else:
                    binary[n_binary] = jj
                    n_binary += 1
        elif <double> high[jj] - <double> low[jj] < TABLE_RANGE:
            table = tables + jj * TABLE_RANGE
            offset = <Py_ssize_t> (<double> high[jj] - <double> low[jj]) + 1
            for t in range(offset):
                table[t] = 0
            tabled[n_tabled] = jj
            n_tabled += 1
        else:  # integers wider than a table: the column on its own
            for i in range(m):
                column[i] = X[i * row_stride + first + jj]
            status[first + jj] = <int8_t> _code_discrete_column(
                column, m, max_levels, codes + (first + jj) * m, levels + first + jj, column + m,
                <uint8_t*> (column + m + max_levels))
    if n_tabled:
        for i in range(m):
            row = X + i * row_stride + first
            for t in range(n_tabled):
                jj = tabled[t]
                tables[jj * TABLE_RANGE + <Py_ssize_t> (row[jj] - low[jj])] = 1
        n_kept = 0
        for t in range(n_tabled):  # presence flag -> rank of the value, as _code_discrete_column
            jj = tabled[t]
            table = tables + jj * TABLE_RANGE
            offset = <Py_ssize_t> (<double> high[jj] - <double> low[jj]) + 1
            n_distinct = 0
            for i in range(offset):
                if table[i]:
                    n_distinct += 1
            if n_distinct > max_levels:
                status[first + jj] = _CONTINUOUS
                continue
            rank = 0
            for i in range(offset):
                if table[i]:
                    table[i] = rank
                    rank += 1
            status[first + jj] = _DISCRETE
            levels[first + jj] = <int32_t> n_distinct
            tabled[n_kept] = jj
            n_kept += 1
        n_tabled = n_kept
    if planes != NULL:
        # the columns of two values further apart (coded through a table or on their own): their
        # codes were written above or are written below; packed after the tiles
        for jj in range(width):
            if (status[first + jj] == _DISCRETE and levels[first + jj] <= 2
                    and <double> high[jj] - <double> low[jj] > 1.0):
                n_packed += 1
    if n_binary == 0 and n_tabled == 0 and n_packed == 0:
        return
    # Tiles of CODE_TILE_ROWS rows (in cache while every column of the block is written), a
    # column at a time within the tile: each write is a contiguous run of codes.  With planes,
    # the binary columns' words of the tile are computed for the whole block a row at a time
    # (vectorised over the columns; the other columns' words are not used).
    start = 0
    while start < m:
        length = min(CODE_TILE_ROWS, m - start)
        row = X + start * row_stride + first
        if planes != NULL and n_binary:
            _binary_words(row, row_stride, length, width, low, work.words)
            for t in range(n_binary):
                jj = binary[t]
                planes[(first + jj) * n_words + start // CODE_TILE_ROWS] = work.words[jj]
        else:
            for t in range(n_binary):
                jj = binary[t]
                _write_binary_codes(row + jj, row_stride, length, low[jj], codes + (first + jj) * m + start)
        for t in range(n_tabled):
            jj = tabled[t]
            _write_table_codes(row + jj, row_stride, length, low[jj], tables + jj * TABLE_RANGE,
                               codes + (first + jj) * m + start)
        start += length
    if n_packed:
        for jj in range(width):
            if (status[first + jj] == _DISCRETE and levels[first + jj] <= 2
                    and <double> high[jj] - <double> low[jj] > 1.0):
                _pack_binary_codes(codes + (first + jj) * m, m, planes + (first + jj) * n_words)


cdef bint _all_integers(const value_t* x, Py_ssize_t stride, Py_ssize_t m) noexcept nogil:
    """Whether every ``x[i * stride]`` is an integer (:func:`_value_is_integer`)."""
    cdef Py_ssize_t i
    for i in range(m):
        if not _value_is_integer(x[i * stride]):
            return False
    return True


cdef void _binary_words(const value_t* X, Py_ssize_t row_stride, Py_ssize_t rows, Py_ssize_t width,
                        const value_t* low, uint64_t* words) noexcept nogil:
    """Bit ``i`` of ``words[jj]`` set when ``X[i * row_stride + jj] != low[jj]``, for ``rows``
    (at most 64) rows and ``width`` columns (:c:func:`fstools_float64_binary_words` for float64)."""
    cdef Py_ssize_t i, jj
    cdef const value_t* row
    cdef uint64_t bit
    if value_t is double:
        fstools_float64_binary_words(X, row_stride, rows, width, low, words)
    else:
        for jj in range(width):
            words[jj] = 0
        for i in range(rows):
            row = X + i * row_stride
            bit = (<uint64_t> 1) << i
            for jj in range(width):
                if row[jj] != low[jj]:
                    words[jj] |= bit


cdef void _pack_binary_codes(const int8_t* codes, Py_ssize_t m, uint64_t* plane) noexcept nogil:
    """The bit-plane of code 1 of ``codes[0:m]`` (codes 0 and 1): bit ``i % 64`` of word
    ``i // 64`` set when ``codes[i]`` is 1, the bits past ``m`` zero."""
    cdef Py_ssize_t i
    cdef Py_ssize_t n_words = (m + 63) // 64
    for i in range(n_words):
        plane[i] = 0
    for i in range(m):
        if codes[i]:
            plane[i // 64] |= (<uint64_t> 1) << (i % 64)


cdef void _write_binary_codes(const value_t* x, Py_ssize_t stride, Py_ssize_t m, value_t low,
                              int8_t* out) noexcept nogil:
    """``out[i] = x[i * stride] - low`` (a column of two adjacent integers)."""
    cdef Py_ssize_t i
    for i in range(m):
        out[i] = <int8_t> (x[i * stride] - low)


cdef void _write_table_codes(const value_t* x, Py_ssize_t stride, Py_ssize_t m, value_t low,
                             const uint8_t* rank, int8_t* out) noexcept nogil:
    """``out[i] = rank[x[i * stride] - low]`` (a column of at most TABLE_RANGE adjacent integers)."""
    cdef Py_ssize_t i
    for i in range(m):
        out[i] = <int8_t> rank[<Py_ssize_t> (x[i * stride] - low)]


#: Largest transposed block of a column-major X (bytes): it stays in the L2 cache through the
#: passes of _code_row_block.
cdef Py_ssize_t TRANSPOSED_BLOCK_BYTES = 1 << 20
#: Narrowest transposed block (columns); a longer column-major X is coded a column at a time.
cdef Py_ssize_t TRANSPOSED_MIN_COLUMNS = 16


cdef Py_ssize_t _transposed_width(Py_ssize_t m, Py_ssize_t value_size) noexcept nogil:
    """Columns per block of a column-major X of m rows coded by the row-major pass (through a
    transposed copy of at most TRANSPOSED_BLOCK_BYTES), or 0 when m is too long for one."""
    cdef Py_ssize_t width = ROW_BLOCK_COLUMNS
    while width > TRANSPOSED_MIN_COLUMNS and m * width * value_size > TRANSPOSED_BLOCK_BYTES:
        width //= 2
    return width if m * width * value_size <= TRANSPOSED_BLOCK_BYTES else 0


cdef bint _leaves_in_first_run(const value_t* x, Py_ssize_t m) noexcept nogil:
    """Whether :func:`_code_discrete_column` (``whole_column`` False) leaves the contiguous
    column ``x[0:m]`` at the end of its first run: a value of it that is not an integer."""
    cdef Py_ssize_t i
    cdef Py_ssize_t length = m if m < WHOLE_RUN else WHOLE_RUN
    if value_t is not double and value_t is not float:
        return False
    for i in range(length):
        if not _value_is_integer(x[i]):
            return True
    return False


cdef void _code_column_major_block(const value_t* X, Py_ssize_t column_stride, Py_ssize_t m, Py_ssize_t width,
                                   Py_ssize_t max_levels, int8_t* codes, int32_t* levels, int8_t* status,
                                   uint64_t* planes, Py_ssize_t n_words, RowBlockScratch* work, value_t* rows,
                                   bint whole_columns) noexcept nogil:
    """:func:`_code_discrete_column` for ``width`` contiguous columns ``X + j * column_stride``
    (a column-major block; the outputs are the block's own: ``codes`` row 0 is column 0's).

    The block is copied into ``rows`` as a row-major block (m rows of ``width`` values; eight
    columns at a time, so that each row receives a line of eight adjacent values while the
    eight columns are read in order) and coded by :func:`_code_row_block`, whose pass of
    statistics is vectorised over the columns (Dorothea-like 800 x 100,000 column-major float64:
    the codes and planes in 84 ms against 202 a column at a time).  Without ``whole_columns``,
    a block whose every column leaves at its first run (continuous columns) is coded a column
    at a time instead: each is read for its first run only.
    """
    cdef Py_ssize_t i, jj, k
    cdef const value_t* column
    cdef value_t* distinct = <value_t*> work.column
    cdef bint every_column_leaves = not whole_columns
    jj = 0
    while every_column_leaves and jj < width:
        every_column_leaves = _leaves_in_first_run(X + jj * column_stride, m)
        jj += 1
    if every_column_leaves:
        for jj in range(width):
            status[jj] = <int8_t> _code_discrete_column(X + jj * column_stride, m, max_levels, codes + jj * m,
                                                        levels + jj, distinct, <uint8_t*> (distinct + max_levels),
                                                        False)
        return
    jj = 0
    while jj + 8 <= width:  # eight columns at a time: each row gets eight adjacent values (a line)
        for i in range(m):
            for k in range(8):
                rows[i * width + jj + k] = X[(jj + k) * column_stride + i]
        jj += 8
    for jj in range(jj, width):
        column = X + jj * column_stride
        for i in range(m):
            rows[i * width + jj] = column[i]
    _code_row_block(rows, width, m, 0, width, max_levels, codes, levels, status, planes, n_words, work,
                    whole_columns)


def discrete_column_codes(X, Py_ssize_t max_levels, codes, levels, status, int n_threads=1, planes=None,
                          bint whole_columns=True):
    """Code the discrete columns of ``X`` as they are, in one pass per column.

    A column is discrete when every value is a (finite) integer and it has at
    most ``max_levels`` distinct values; its codes are the ranks of its values
    among its sorted distinct values (0 .. L-1, the smallest value coded 0), as
    ``numpy.unique(column, return_inverse=True)`` gives them.

    Parameters
    ----------
    X : ndarray, shape (m, n_features)
        float64, float32, int64, int32, int16, int8, uint8 or bool; any strides.
    max_levels : int
        1 .. 127.
    codes : ndarray of int8, shape (n_features, m), C-contiguous
        Row ``j`` receives the codes of a discrete column ``j`` (other rows untouched).
    levels : ndarray of int32, shape (n_features,)
        ``levels[j]`` receives the number of distinct values of a discrete column.
    status : ndarray of int8, shape (n_features,)
        Filled with :data:`COLUMN_CONTINUOUS` (some value not an integer, or more
        than ``max_levels`` distinct values), :data:`COLUMN_DISCRETE`,
        :data:`COLUMN_NON_FINITE` (NaN or infinity) or :data:`COLUMN_UNDECIDED`
        (int64 values beyond 2^53: left to the caller).
    n_threads : int
        OpenMP threads over blocks of columns; the result does not depend on it.
    planes : ndarray of uint64, shape (n_features, ceil(m / 64)), C-contiguous, optional
        When given, every discrete column with at most two levels (a binary or
        constant column) gets the bit-plane of its code 1 in row ``j``, in the
        layout of :mod:`fstools._ext._bitcount` (bit ``i % 64`` of word ``i // 64``
        set when sample ``i`` has code 1, the bits past ``m`` zero), and its row of
        ``codes`` is then unspecified (on a row-major ``X``, and a column-major one
        coded through a transposed copy, it is not written at all: the codes of those
        columns are never stored).  The other rows of
        ``planes`` are unspecified on return (float64 rows write every column's
        words in the pass that classifies them).
    whole_columns : bool, default True
        False: a column is not read on once a run of 64 of its values (from the first)
        holds a value that is not an integer (on a row-major ``X``: once every column of
        its block of 64 holds one in the same tile of 64 rows; on a column-major ``X``
        whose blocks of columns are coded through a transposed copy (at most 1 MiB: 64,
        32 or 16 columns a block, e.g. float64 columns of up to 2,048, 4,096 or 8,192
        rows), once every column of its block holds one in the same tile, unless every
        column of the block leaves at its first run: those are then read column by
        column); it is then
        :data:`COLUMN_CONTINUOUS`, or :data:`COLUMN_NON_FINITE` when a value read is NaN
        or infinite, and a NaN or infinity among the values not read is not reported.
        For a caller that discretises the continuous columns with a kernel that checks
        their values itself (:func:`fstools.core.discretize.information_codes`): the
        continuous columns are then read once, by the discretiser.
    """
    X = value_matrix(X)
    if not 1 <= max_levels <= 127:
        raise ValueError(f"max_levels: must be in 1..127; got {max_levels}")
    if X.shape[0] == 0:
        raise ValueError("X: has no rows")
    for name, value, dtype, ndim in (("codes", codes, np.int8, 2), ("levels", levels, np.int32, 1),
                                     ("status", status, np.int8, 1)):
        if (not isinstance(value, np.ndarray) or value.dtype != dtype or value.ndim != ndim
                or not value.flags.c_contiguous or not value.flags.writeable):
            raise TypeError(f"{name}: must be a writeable C-contiguous {ndim}-D NumPy array of "
                            f"{np.dtype(dtype).name}; got {_describe_dtype(value)}")
    if planes is not None:
        if (not isinstance(planes, np.ndarray) or planes.dtype != np.uint64 or planes.ndim != 2
                or not planes.flags.c_contiguous or not planes.flags.writeable):
            raise TypeError(f"planes: must be None or a writeable C-contiguous 2-D NumPy array of uint64; "
                            f"got {_describe_dtype(planes)}")
        if planes.shape != (X.shape[1], (X.shape[0] + 63) // 64):
            raise ValueError(f"planes: must have shape ({X.shape[1]}, {(X.shape[0] + 63) // 64}) (one row of "
                             f"ceil(m / 64) words per column); got {planes.shape}")
        if X.shape[1] == 0:
            planes = None
    return _discrete_column_codes(X, max_levels, codes, levels, status, n_threads, planes, whole_columns)


def _discrete_column_codes(const value_t[:, :] X, Py_ssize_t max_levels, int8_t[:, ::1] codes,
                           int32_t[::1] levels, int8_t[::1] status, int n_threads, planes_array=None,
                           bint whole_columns=True):
    """:func:`discrete_column_codes` for one element type."""
    cdef Py_ssize_t m = X.shape[0]
    cdef Py_ssize_t n = X.shape[1]
    cdef Py_ssize_t n_words = (m + 63) // 64
    cdef uint64_t[:, ::1] planes_view
    cdef uint64_t* planes = NULL
    if planes_array is not None:
        planes_view = planes_array
        planes = &planes_view[0, 0]
    cdef Py_ssize_t row_stride = X.strides[0] // sizeof(value_t)
    cdef Py_ssize_t column_stride = X.strides[1] // sizeof(value_t)
    cdef Py_ssize_t width, n_blocks, b, first, i
    cdef int32_t[::1] failed = np.zeros(1, dtype=np.int32)  # (a variable set in a parallel block is private)
    cdef value_t* scratch
    check_threads(n_threads)
    if codes.shape[0] != n or codes.shape[1] != m or levels.shape[0] != n or status.shape[0] != n:
        raise ValueError(f"codes, levels, status: must have shapes ({n}, {m}), ({n},), ({n},)")
    if n == 0:
        return
    if m == 1:
        row_stride = 1  # one row: every column is one value
    if X.strides[0] % sizeof(value_t) or X.strides[1] % sizeof(value_t):
        raise ValueError("X: strides must be multiples of the element size")
    cdef const value_t* base = &X[0, 0]
    cdef SignalCheck check
    cdef RowBlockScratch work
    signal_check_init(&check, 1)
    # Row-major X: blocks of ROW_BLOCK_COLUMNS columns, each read a row at a time without a copy.
    # Column-major X (a DataFrame's values) of columns short enough: the same pass on blocks of columns
    # copied into row-major blocks (:func:`_code_column_major_block`).
    cdef bint row_major = column_stride == 1 and m > 1
    cdef bint transposed = not row_major and row_stride == 1 and m > 1 and _transposed_width(m, sizeof(value_t)) > 0
    if row_major or transposed:
        width = min(n, ROW_BLOCK_COLUMNS if row_major else _transposed_width(m, sizeof(value_t)))
        n_blocks = (n + width - 1) // width
        with nogil, parallel(num_threads=n_threads):
            work = _row_block_scratch(width, m, max_levels, sizeof(value_t))
            scratch = <value_t*> malloc(width * m * sizeof(value_t)) if transposed else NULL
            if work.column == NULL or (transposed and scratch == NULL):
                failed[0] = OUT_OF_MEMORY
            else:
                for b in prange(n_blocks, schedule='dynamic'):
                    if stop_requested(&check):
                        continue
                    first = b * width
                    if row_major:
                        _code_row_block(base, row_stride, m, first, block_length(first, width, n), max_levels,
                                        &codes[0, 0], &levels[0], &status[0], planes, n_words, &work, whole_columns)
                    else:
                        _code_column_major_block(base + first * column_stride, column_stride, m,
                                                 block_length(first, width, n), max_levels, &codes[first, 0],
                                                 &levels[first], &status[first],
                                                 planes + first * n_words if planes != NULL else NULL, n_words,
                                                 &work, scratch, whole_columns)
            _free_row_block_scratch(&work)
            free(scratch)
        raise_if_stopped(&check)
        if failed[0] != OK:
            raise MemoryError("cannot allocate the scratch block of discrete_column_codes")
        return
    # about 256 KiB of values per block (the transposed block stays in cache)
    width = max(1, min(n, (1 << 18) // max(1, m * <Py_ssize_t> sizeof(value_t))))
    n_blocks = (n + width - 1) // width
    with nogil, parallel(num_threads=n_threads):
        scratch = <value_t*> malloc((width * m + max_levels) * sizeof(value_t) + TABLE_RANGE)
        if scratch == NULL:
            failed[0] = OUT_OF_MEMORY
        else:
            for b in prange(n_blocks, schedule='dynamic'):
                if stop_requested(&check):
                    continue
                first = b * width
                _code_column_block(base, row_stride, column_stride, m, first,
                                   block_length(first, width, n), max_levels,
                                   &codes[0, 0], &levels[0], &status[0], planes, scratch, whole_columns)
            free(scratch)
    raise_if_stopped(&check)
    if failed[0] != OK:
        raise MemoryError("cannot allocate the scratch block of discrete_column_codes")


# ---------------------------------------------------------------------------
# CMIM with Fleuret's lazy evaluation
# ---------------------------------------------------------------------------

cdef struct ByteCodes:
    # the byte codes of lazy_cmim's conditional information (codes of 1, 2 or 4 bytes, all in range)
    const void* codes
    int itemsize
    Py_ssize_t m
    const int32_t* levels
    const int32_t* cls
    Py_ssize_t n_classes


cdef int _byte_conditional_information(void* data, Py_ssize_t candidate, Py_ssize_t step,
                                       Py_ssize_t selected, double* value) noexcept nogil:
    """I(X_candidate;C|X_selected) from the byte codes (``_pair_information``'s third term).
    Reads the codes only (called from several threads at once)."""
    cdef const ByteCodes* B = <const ByteCodes*> data
    cdef Py_ssize_t m = B.m
    cdef double terms[4]
    cdef int status
    if B.itemsize == 1:
        status = _pair_information(<const int8_t*> B.codes + candidate * m, B.levels[candidate],
                                   <const int8_t*> B.codes + selected * m, B.levels[selected],
                                   B.cls, B.n_classes, m, terms)
    elif B.itemsize == 2:
        status = _pair_information(<const int16_t*> B.codes + candidate * m, B.levels[candidate],
                                   <const int16_t*> B.codes + selected * m, B.levels[selected],
                                   B.cls, B.n_classes, m, terms)
    else:
        status = _pair_information(<const int32_t*> B.codes + candidate * m, B.levels[candidate],
                                   <const int32_t*> B.codes + selected * m, B.levels[selected],
                                   B.cls, B.n_classes, m, terms)
    value[0] = terms[2]
    return status


def lazy_cmim(codes, levels, y, n_classes, relevance, k, ranking, scores, tolerance, n_threads=1):
    """CMIM by Fleuret's lazy evaluation: the picks and scores of the eager update.

    CMIM's score of a candidate ``X_j`` after the selections ``s_1 .. s_t`` is
    ``min(I(X_j;C), I(X_j;C|X_s1), ..., I(X_j;C|X_st))``.  Each candidate keeps
    its running minimum over a prefix of the selections (its *partial* score,
    an upper bound of its score) and the length of that prefix.  At each step
    the candidates are taken in decreasing order of partial score (a heap); a
    candidate is updated against the next selections only while its partial
    score is still within the tie window of the best score found so far, and
    the step ends at the first candidate whose partial score is below that
    window (no later one can reach it).  Every conditional term is
    ``I(X_j;C|X_s)`` of :func:`pair_information_terms` (``out[:, 2]``), and the
    minimum is taken over the selections in order, so the scores are bitwise those
    of the eager update; the pick is, as there, the lowest column index among the
    candidates within ``tolerance`` (relative, :data:`fstools.core.ranking.TIE_TOLERANCE`)
    of the best score -- every such candidate has been brought up to date.

    With several threads (``fstools._ext._lazy``) a step brings the candidates up
    to date in batches of (candidate, selected feature) items computed in
    parallel and merged in the order of the one-thread loop; the picks and
    scores are the same for any number of threads (a batch may compute a few
    terms the one-thread loop skips: they only tighten upper bounds).  Batches
    are used when an item's samples and table cells are many enough for it to
    be worth a thread (:data:`LAZY_PARALLEL_SAMPLES`); the passes over every candidate
    (the first pick, the cut of the heap) from :data:`LAZY_PARALLEL_CANDIDATES` features.  Every
    feature's codes are checked before the loop.

    Fleuret, "Fast binary feature selection with conditional mutual
    information", Journal of Machine Learning Research 5 (2004).

    Parameters
    ----------
    codes : ndarray of int8, int16 or int32, shape (n_features, m), C-contiguous
    levels : ndarray of int32, shape (n_features,)
    y : ndarray of int32, shape (m,)
    n_classes : int
    relevance : ndarray of float64, shape (n_features,)
        I(X_j;C) of every feature (:func:`feature_class_information`); finite.
    k : int
        Number of features to select, 1 .. n_features.
    ranking : ndarray of intp, shape (k,)
        Filled with the selected features in order.
    scores : ndarray of float64, shape (k,)
        Filled with the score of each pick (step 1: I(X;C)).
    tolerance : float
        Relative tie tolerance.
    n_threads : int, default 1
        Threads (OpenMP); the result does not depend on it.
    """
    for name, value, dtype in (("levels", levels, np.int32), ("y", y, np.int32),
                               ("relevance", relevance, np.float64), ("ranking", ranking, np.intp),
                               ("scores", scores, np.float64)):
        if not isinstance(value, np.ndarray) or value.dtype != dtype or value.ndim != 1:
            raise TypeError(f"{name}: must be a 1-D NumPy array of {np.dtype(dtype).name}; "
                            f"got {_describe_dtype(value)}")
    if not tolerance >= 0.0:
        raise ValueError(f"tolerance: must be a number >= 0; got {tolerance!r}")
    if isinstance(n_threads, bool) or not isinstance(n_threads, (int, np.integer)) or n_threads < 1:
        raise ValueError(f"n_threads: must be an integer >= 1; got {n_threads!r}")
    return _lazy_cmim_checked(_code_matrix(codes), levels, y, n_classes, relevance, k, ranking, scores,
                              tolerance, n_threads)


#: Samples plus table cells from which a work item of :func:`lazy_cmim` (a pair counted over
#: the samples into a table of (candidate, selected, class) cells) is worth a thread: with fewer,
#: a step's items run one at a time on one thread.  Read at each call (tests lower it to run
#: the threaded batches on small data).
LAZY_PARALLEL_SAMPLES = 256

#: Features from which the passes of :func:`lazy_cmim` over every candidate (the first pick,
#: the cut of the heap) are threaded.  Read at each call, also by the bit-plane kernel.
LAZY_PARALLEL_CANDIDATES = 20_000

#: Candidates the heap of :func:`lazy_cmim` starts with (the most relevant; the others join
#: when they could be picked).  Read at each call, also by the bit-plane kernel.
LAZY_HEAP_LEAST = 1024


def _lazy_cmim_checked(const code_t[:, ::1] codes, const int32_t[::1] levels, const int32_t[::1] y,
                       Py_ssize_t n_classes, const double[::1] relevance, Py_ssize_t k,
                       cnp.intp_t[::1] ranking, double[::1] scores, double tolerance, int n_threads):
    """:func:`lazy_cmim` for a checked code dtype."""
    cdef Py_ssize_t n = codes.shape[0]
    cdef Py_ssize_t m = codes.shape[1]
    cdef Py_ssize_t j, max_levels = 1
    cdef int status
    _check_feature_arguments(codes, levels, 1)
    if relevance.shape[0] != n:
        raise ValueError(f"relevance: has length {relevance.shape[0]} but codes has {n} rows "
                         "(one per feature); they must agree")
    if not 1 <= k <= n:
        raise ValueError(f"k: must be in 1..{n}; got {k}")
    if ranking.shape[0] != k or scores.shape[0] != k:
        raise ValueError(f"ranking, scores: must have length k = {k}")
    _check_codes(y, "y", n_classes, "n_classes", m, "each row of codes")
    for j in range(n):
        max_levels = max(max_levels, levels[j])
    _check_table_size(<object> max_levels * <object> max_levels * <object> n_classes,
                      "(a candidate feature, a selected feature, y)")
    # every feature's codes in range (threads over blocks of 256 features), the first bad one reported
    cdef uint8_t[::1] bad = np.zeros(n, dtype=np.uint8)
    cdef Py_ssize_t block, feature, n_blocks = (n + 255) // 256
    for block in prange(n_blocks, nogil=True, num_threads=n_threads if n_blocks > 1 else 1, schedule='dynamic'):
        for feature in range(block * 256, block * 256 + block_length(block * 256, 256, n)):
            if first_out_of_range(&codes[feature, 0], m, levels[feature]) >= 0:
                bad[feature] = 1
    for j in range(n):
        if bad[j]:
            _check_codes(codes[j], f"codes[{j}]", levels[j], f"levels[{j}]")
    cdef ByteCodes data
    data.codes, data.itemsize, data.m = <const void*> &codes[0, 0], sizeof(code_t), m
    data.levels, data.cls, data.n_classes = &levels[0], &y[0], n_classes
    cdef Py_ssize_t[::1] order = np.empty(k, dtype=np.intp)
    # an item counts m samples into a table of (candidate, selected, class) cells
    cdef bint parallel_items = m + max_levels * max_levels * n_classes >= LAZY_PARALLEL_SAMPLES
    cdef bint parallel_passes = n >= LAZY_PARALLEL_CANDIDATES
    cdef Py_ssize_t heap_least = LAZY_HEAP_LEAST
    cdef SignalCheck check
    signal_check_init(&check, LAZY_SIGNAL_EVERY)
    with nogil:
        status = lazy_cmim_loop(&data, _byte_conditional_information, NULL, n, &relevance[0], k, tolerance,
                                &order[0], &scores[0], n_threads, parallel_passes, parallel_items, heap_least,
                                &check)
    raise_if_stopped(&check)
    if status == NON_FINITE:
        j = int(np.flatnonzero(~np.isfinite(np.asarray(relevance)))[0])
        raise ValueError(f"relevance: must be finite (I(X_j;C) of every feature); got {relevance[j]} "
                         f"at index {j}")
    if status == OUT_OF_MEMORY:
        raise MemoryError("cannot allocate the counting table of (candidate, selected, y) or the lazy "
                          "loop's arrays")
    for j in range(k):
        ranking[j] = order[j]

# cython: language_level=3
"""Counting-table helpers shared by the information kernels (_entropy, _bitcount, _permutation).

``count_t`` is the type of a cell of a counting table; :func:`entropy_of_counts` the plug-in
entropy (nats) of the distribution a table of counts describes; :func:`accumulate_term` the
update of a candidate's running term in a step of the greedy filters.
"""
from libc.math cimport log
from libc.stdint cimport int64_t

ctypedef int64_t count_t


cdef inline double entropy_of_counts(const count_t* counts, Py_ssize_t n_cells, Py_ssize_t m) noexcept nogil:
    """H = (m log m - sum n log n) / m over the cells of ``counts`` (total m)."""
    cdef double sum_nlogn = 0.0
    cdef double n
    cdef Py_ssize_t k
    for k in range(n_cells):
        if counts[k] > 1:  # n log n is 0 for n = 0 (by convention) and n = 1
            n = <double> counts[k]
            sum_nlogn += n * log(n)
    return (<double> m * log(<double> m) - sum_nlogn) / m


cdef inline double clip_rounding(double value) noexcept nogil:
    """Return 0.0 for a tiny negative ``value`` (a difference of entropies below zero by less
    than 1e-12: rounding), else ``value``."""
    if value < 0.0 and value > -1e-12:
        return 0.0
    return value


cdef inline double mutual_information_of_table(const count_t* xy, const count_t* px, Py_ssize_t nx,
                                               const count_t* py, Py_ssize_t ny, Py_ssize_t m) noexcept nogil:
    """I(X;Y) = H(X) + H(Y) - H(X,Y) in nats from the (nx, ny) table ``xy`` of counts and its
    marginals ``px``, ``py`` (total m), a tiny negative result (rounding) clipped to 0."""
    return clip_rounding(entropy_of_counts(px, nx, m) + entropy_of_counts(py, ny, m)
                         - entropy_of_counts(xy, nx * ny, m))


cdef extern from *:
    """
    /* sum + weight * term with the product rounded on its own (as NumPy's ``running +
       weight * terms``): the volatile keeps the compiler from fusing it into a
       multiply-add, which rounds once and would change the last bit. */
    static inline double fstools_add_product(double sum, double weight, double term) {
        volatile double product = weight * term;
        return sum + product;
    }
    """
    double add_product "fstools_add_product"(double sum, double weight, double term) noexcept nogil


cdef inline void accumulate_term(double* target, double term, double weight, bint minimum) noexcept nogil:
    """One greedy-step update of a candidate's running term (the rule of
    ``accumulate_pair_terms`` in _entropy and _bitcount): ``min(target, term)`` when
    ``minimum``, else ``target + term`` (weight 1) or ``target + weight * term``."""
    if minimum:
        if term < target[0]:
            target[0] = term
    elif weight == 1.0:
        target[0] = target[0] + term
    else:
        target[0] = add_product(target[0], weight, term)

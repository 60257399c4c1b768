"""R's order of the terms and R's coding of their factors, on a design patsy described.

patsy and R read the same terms, but patsy reorders them (the terms of categorical factors alone
first, then by their numeric factors) and picks the coding of a categorical factor by looking
only at the earlier terms with the same numeric factors.  R (``terms()``, ``model.matrix()``;
Chambers & Hastie 1992) orders the terms by their number of variables, keeping the formula's
order otherwise, and codes a factor ``f`` of a term by contrasts when the term without ``f`` is
empty (the intercept, which fstools always builds) or lies inside an earlier term, by indicators
of all its levels otherwise.

:func:`r_design_info` gives patsy's :class:`patsy.DesignInfo` R's term order, and R's coding
where R's columns span another space than patsy's (``y ~ x1:x2 + f:x2``: R codes ``f`` by
contrasts, as ``x2`` lies inside ``x1:x2``; patsy by all levels).  Where both span the same
space patsy's columns are kept as they are (full rank where R's coding would be rank deficient,
as documented).
"""
from __future__ import annotations

from collections import OrderedDict
from itertools import product

import patsy
from patsy.contrasts import Treatment, code_contrast_matrix
from patsy.design_info import SubtermInfo

__all__ = ["r_term_order", "r_term_sequence", "r_design_info", "r_subterms", "patsy_subterms"]


def r_term_order(terms: list, tree=None) -> list:
    """The terms in R's order: by their number of factors, in the order R's formula algebra
    makes them otherwise.

    Parameters
    ----------
    terms : list of patsy.Term
        The terms (the intercept may be among them).
    tree : patsy ParseNode, optional
        The formula's parse tree: the order among terms with as many factors is the one R's
        ``terms()`` makes of it (:func:`r_term_sequence`), else the order of ``terms``.

    Returns
    -------
    list of patsy.Term
        ``terms`` sorted by their number of factors (the intercept has none), a stable sort.
    """
    if tree is not None and any(len(term.factors) > 1 for term in terms):
        # (main effects alone: R's order is the formula's, which patsy keeps)
        position = {factors: k for k, factors in enumerate(r_term_sequence(tree))}
        terms = sorted(terms, key=lambda term: position.get(frozenset(term.factors), len(position)))
    return sorted(terms, key=lambda term: len(term.factors))


def _unique(terms: list) -> list:
    """R's ``TrimRepeats``: the terms without repeats (the first kept) and without the empty one."""
    return list(dict.fromkeys(term for term in terms if term))


def r_term_sequence(node) -> list:
    """The terms of a patsy parse tree as R's ``terms()`` builds them, before it sorts them.

    R crosses term lists left by right (``(a + b):c`` is ``a:c, b:c``; ``(a + b + c)^3`` is
    ``a, a:b, a:c, a:b:c, b, b:c, c``), which orders the terms of one degree differently from
    patsy.

    Parameters
    ----------
    node : patsy ParseNode
        The formula's parse tree (or a part of it).

    Returns
    -------
    list of frozenset
        Each term as the frozenset of its factors (:class:`patsy.EvalFactor`), without repeats.
    """
    kind = node.type
    if kind == "PYTHON_EXPR":
        return [frozenset([patsy.EvalFactor(node.token.extra)])]
    if not node.args:  # 0, 1, a number: no term
        return []
    if kind == "~" or len(node.args) == 1:  # the right-hand side; unary + (unary - removes)
        return [] if kind == "-" else r_term_sequence(node.args[-1])
    left = r_term_sequence(node.args[0])
    if kind == "**":
        right = left
        for _ in range(1, int(node.args[1].token.extra) if node.args[1].type == "NUMBER" else 1):
            right = _unique([a | b for a in left for b in right])
        return right
    right = r_term_sequence(node.args[1])
    if kind == "+":
        return _unique(left + right)
    if kind == "-":
        removed = set(right)
        return [term for term in left if term not in removed]
    if kind == ":":
        return _unique([a | b for a in left for b in right])
    if kind == "*":
        return _unique(left + right + [a | b for a in left for b in right])
    if kind == "/":
        outer = frozenset().union(*left)
        return _unique(left + [outer | b for b in right])
    return _unique(left + right)


class _Margins:
    """The terms seen so far, to ask whether a margin lies inside one of them (R's rule)."""

    #: Terms with at most this many factors are kept as all their subsets (a set lookup).
    SUBSETS_UP_TO = 8

    def __init__(self):
        self._subsets = {frozenset()}
        self._large = []

    def add(self, term) -> None:
        factors = list(term.factors)
        if len(factors) > self.SUBSETS_UP_TO:
            self._large.append(frozenset(factors))
            return
        for chosen in product((False, True), repeat=len(factors)):
            self._subsets.add(frozenset(factor for factor, keep in zip(factors, chosen) if keep))

    def inside(self, margin: frozenset) -> bool:
        return margin in self._subsets or any(margin <= term for term in self._large)


def _contrast_factors(term, earlier: _Margins, categorical) -> frozenset:
    """The categorical factors of ``term`` R codes by contrasts (the others by all levels): those
    whose margin (the term without them) is empty or lies inside an ``earlier`` term."""
    factors = frozenset(term.factors)
    return frozenset(factor for factor in term.factors
                     if factor in categorical and earlier.inside(factors - {factor}))


def r_subterms(terms: list, categorical) -> set:
    """The column space of R's coding of ``terms`` (R's order) as its pieces.

    A piece is ``(A, N)``: the contrasts of the categorical factors ``A`` times the numeric
    factors ``N``.  A factor coded by all its levels spans its contrasts and a constant, so a term
    whose categorical factors ``C`` are coded by contrasts but for ``F`` gives the pieces
    ``(C - F + S, N)`` for every subset ``S`` of ``F``.  The intercept is the piece ``({}, {})``.

    Parameters
    ----------
    terms : list of patsy.Term
        The terms in R's order, intercept left out.
    categorical : collection of patsy.EvalFactor
        The factors patsy found categorical.

    Returns
    -------
    set of tuple
        The pieces ``(frozenset of categorical factors, frozenset of numeric factors)``.
    """
    pieces = {(frozenset(), frozenset())}
    earlier = _Margins()
    for term in terms:
        contrasts = _contrast_factors(term, earlier, categorical)
        earlier.add(term)
        numeric = frozenset(factor for factor in term.factors if factor not in categorical)
        full = [factor for factor in term.factors if factor in categorical and factor not in contrasts]
        for chosen in product((False, True), repeat=len(full)):
            extra = frozenset(factor for factor, keep in zip(full, chosen) if keep)
            pieces.add((contrasts | extra, numeric))
    return pieces


def patsy_subterms(terms: list, categorical) -> set:
    """The column space of patsy's coding of ``terms`` as pieces (see :func:`r_subterms`).

    patsy spans, for every term, every subset of its categorical factors times its numeric ones.

    Parameters
    ----------
    terms : list of patsy.Term
        The terms, intercept left out.
    categorical : collection of patsy.EvalFactor
        The factors patsy found categorical.

    Returns
    -------
    set of tuple
        The pieces, as :func:`r_subterms` gives them.
    """
    pieces = {(frozenset(), frozenset())}
    for term in terms:
        kinds = [factor for factor in term.factors if factor in categorical]
        numeric = frozenset(factor for factor in term.factors if factor not in categorical)
        for chosen in product((False, True), repeat=len(kinds)):
            pieces.add((frozenset(factor for factor, keep in zip(kinds, chosen) if keep), numeric))
    return pieces


def _column_names(factor_infos, subterm: SubtermInfo) -> list[str]:
    """patsy's names of the columns of one subterm (the leftmost factor varies fastest, as in R)."""
    pieces_per_factor = []
    for factor in subterm.factors:
        info = factor_infos[factor]
        if info.type == "categorical":
            suffixes = subterm.contrast_matrices[factor].column_suffixes
            pieces_per_factor.append([f"{factor.name()}{suffix}" for suffix in suffixes])
        elif info.num_columns > 1:
            pieces_per_factor.append([f"{factor.name()}[{k}]" for k in range(info.num_columns)])
        else:
            pieces_per_factor.append([factor.name()])
    names = []
    for combination in product(*reversed(pieces_per_factor)):
        names.append(":".join(reversed(combination)) or "Intercept")
    return names


def _factor_contrast(info, frame):
    """The contrast asked for a categorical factor (``C(x, Sum)``), or None (treatment)."""
    try:
        value = info.factor.eval(info.state, frame)
    except Exception:  # noqa: BLE001 - patsy evaluated it before: no contrast asked is the fallback
        return None
    return getattr(value, "contrast", None)


def _r_subterm(term, contrasts: frozenset, factor_infos, frame, contrast_of: dict) -> SubtermInfo:
    """R's coding of one term: one subterm, each categorical factor by contrasts or all levels."""
    matrices = {}
    columns = 1
    for factor in term.factors:
        info = factor_infos[factor]
        if info.type == "categorical":
            if factor not in contrast_of:
                contrast_of[factor] = _factor_contrast(info, frame)
            matrix = code_contrast_matrix(factor not in contrasts, info.categories, contrast_of[factor],
                                          default=Treatment)
            matrices[factor] = matrix
            columns *= matrix.matrix.shape[1]
        else:
            columns *= info.num_columns
    return SubtermInfo(list(term.factors), matrices, columns)


def r_design_info(design_info, terms: list, frame) -> patsy.DesignInfo:
    """patsy's description of a design with R's term order and, where it matters, R's coding.

    Parameters
    ----------
    design_info : patsy.DesignInfo
        What :func:`patsy.design_matrix_builders` made of the intercept and ``terms``.
    terms : list of patsy.Term
        The terms in R's order (:func:`r_term_order`), intercept left out.
    frame : pandas.DataFrame
        The data patsy read (to find the contrast asked for a factor, ``C(x, Sum)``, where R's
        coding is built).

    Returns
    -------
    patsy.DesignInfo
        The intercept, then the terms in R's order (:func:`r_term_order`).  Each term keeps
        patsy's columns when R's coding spans the same space as patsy's; otherwise every term is
        coded as R codes it (one factor by contrasts or by all its levels, see the module).
    """
    factor_infos = design_info.factor_infos
    categorical = {factor for factor, info in factor_infos.items() if info.type == "categorical"}
    order = list(terms)
    same_space = (not categorical or all(len(term.factors) <= 1 for term in order)
                  or r_subterms(order, categorical) == patsy_subterms(order, categorical))
    codings = OrderedDict()
    names = []
    patsy_names = design_info.column_names  # (a new list at each call)
    if patsy.INTERCEPT in design_info.term_codings:
        codings[patsy.INTERCEPT] = design_info.term_codings[patsy.INTERCEPT]
        names.extend(patsy_names[design_info.slice(patsy.INTERCEPT)])
    contrast_of = {}
    earlier = _Margins()
    for term in order:
        if same_space:
            codings[term] = design_info.term_codings[term]
            names.extend(patsy_names[design_info.slice(term)])
        else:
            contrasts = _contrast_factors(term, earlier, categorical)
            earlier.add(term)
            subterm = _r_subterm(term, contrasts, factor_infos, frame, contrast_of)
            codings[term] = [subterm]
            names.extend(_column_names(factor_infos, subterm))
    if same_space and list(codings) == list(design_info.term_codings):
        return design_info
    return patsy.DesignInfo(names, factor_infos=factor_infos, term_codings=codings)


"""Boruta: all-relevant feature selection by shadow features (Kursa & Rudnicki 2010), as R's ``Boruta``.

:func:`boruta` repeats a run of an importance source on the data extended with "shadows",
copies of the attributes (terms) whose rows are permuted, and so unrelated to the response.
In each run an attribute scores a *hit* when its importance exceeds ``shadowMax``, the largest
importance of any shadow.  After each run two one-sided binomial tests on each attribute's hits
in the runs so far (hits ~ Binomial(runs, 1/2) for an attribute no better than the best shadow)
decide it: *Confirmed* when P(X >= hits) is below ``p_value``, *Rejected* when P(X <= hits) is,
both Bonferroni-adjusted over all the attributes under ``mc_adjust``.  A rejected attribute
leaves the data (and gets no shadow) for the later runs; the loop stops when no attribute is
*Tentative* or after ``max_runs - 1`` runs.  This is R's ``Boruta.default`` (package Boruta
8.0.0, ``R/Boruta.R``) step by step:

* shadows: one per attribute not yet rejected; while there are fewer than 5, the list is doubled
  (R's ``while(ncol(xSha) < 5) xSha <- cbind(xSha, xSha)``: 1 -> 8, 2 -> 8, 3 -> 6, 4 -> 8),
  each copy with its own permutation.  A term is one attribute: a factor's code column, or a
  term's block of columns, moves as a whole (one permutation of the rows);
* hits: ``importance > max(shadow importances)`` (strictly), counted for confirmed attributes too;
* tests: from the first run on, on the hits of *every* attribute (rejected and confirmed ones
  included), so the Bonferroni adjustment is over all the attributes (R's ``p.adjust`` of the
  whole hit register); only a Tentative attribute changes its decision;
* runs: R's ``while(any(Tentative) && (runs <- runs + 1) < maxRuns)``: at most ``max_runs - 1``
  importance runs ("Boruta performed 99 iterations" for ``maxRuns = 100``), and ``max_runs``
  must be at least 11 (R: "maxRuns must be greater than 10").

The importance of a run:

* ``importance="random_forest"`` (the default, R's ``getImpRfZ``): a scikit-learn random forest
  (``RandomForestClassifier`` or ``RandomForestRegressor`` by the response's type, 500 trees,
  ``max_features="sqrt"`` as ranger's ``mtry``, the rest scikit-learn's defaults and ``**params``).
  500 trees is R's ``ntree``; scikit-learn grows them more slowly than ranger (about 1.5 s per run
  for 300 rows and 40 columns on one core), so ``n_estimators=100`` (about 5 times faster) is a
  reasonable choice for a first look.
  ``importance_type`` (a keyword in ``**params``):

  - ``"permutation"`` (default): out-of-bag permutation importance as a Z score, the
    construction of ranger's ``importance="permutation", scale.permutation.importance=TRUE``
    that R's Boruta uses: for each tree, the increase of its error on the rows it did not see
    (misclassification rate, or mean squared error) when one term's values are permuted among
    those rows; the mean over the trees divided by its standard error.  Computed here from the
    forest's public ``estimators_samples_``; a term's columns are permuted together.
  - ``"permutation_raw"``: the same mean without the division (R's ``getImpRfRaw``).
  - ``"impurity"``: the forest's impurity importance (mean decrease in Gini impurity or in
    variance; R's ``getImpRfGini``, and BorutaPy's source), summed over a term's columns.  Faster
    (no out-of-bag predictions), but measured on the rows the trees were grown on and biased
    towards attributes with many distinct values.

  A factor enters the forest as one column of level codes, split as an ordered variable (as
  ranger splits a factor by default; the codes number the levels in the order of
  :func:`fstools.model.terms.factor_code_design`).  ``na_action`` must be ``'drop'`` or ``'raise'``.
* ``importance=<a registered fstools method>`` (``"mim"``, ``"fisher"``, ``"relieff"``, ``"mrmr"``,
  ...): one run of the method on the attributes and shadows (its score, or for a greedy method
  its order of entry: :mod:`fstools.guarantees.importance`).

The result's ``importance_history`` is R's ``ImpHistory`` with NaN where R writes -Inf (an
attribute not scored because it was rejected before); an importance the method leaves undefined
is -inf there, and R's ``attStats`` and this one summarise the finite values.

``random_state`` seeds every permutation and forest from a ``numpy.random.SeedSequence`` keyed by
the run (and the tree), so the result is the same for any ``n_jobs``.
"""
import copy
import math
import textwrap
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from fstools.core.constraints import (BOOLEAN, OPEN_UNIT_INTERVAL, SEED, integer_at_least, is_integer, one_of,
                                      validate)
from fstools.core.lazy import LazyModule
from fstools.core.parallel import effective_n_threads
from fstools.guarantees.forest import can_fit, fit_forest
from fstools.guarantees.importance import importance_kind, prepare, score_terms
from fstools.model.validation import split_method
from fstools.methods.registry import get_method, method_names
from fstools.model.formula import format_formula
from fstools.results.labels import method_label
from fstools.results.tables import Summary, format_number, text_as_html

stats = LazyModule("scipy.stats")  # imported at its first use: it takes longer to import than fstools

__all__ = ["boruta", "BorutaResult", "boruta_decisions", "boruta_loop", "shadow_sources", "BorutaRun",
           "DECISIONS", "FOREST_IMPORTANCE_TYPES"]

#: R's decision levels, in R's order of the factor's levels.
DECISIONS = ("Tentative", "Confirmed", "Rejected")
#: ``importance_type`` of ``importance="random_forest"``.
FOREST_IMPORTANCE_TYPES = ("permutation", "permutation_raw", "impurity")
#: The shadow summary columns of the importance history (R's ImpHistory).
SHADOW_COLUMNS = ("shadowMax", "shadowMean", "shadowMin")
#: R's least number of shadows in a run.
MIN_SHADOWS = 5
#: R's smallest maxRuns ("maxRuns must be greater than 10").
MIN_MAX_RUNS = 11
#: Most float32 values of one block of permuted out-of-bag rows predicted at once by a tree.
_BLOCK_VALUES = 1 << 22
#: scikit-learn's forest arguments set by boruta itself.
_RESERVED_FOREST = ("random_state", "n_jobs", "warm_start", "oob_score")
_FOREST_DEFAULTS = {"n_estimators": 500, "max_features": "sqrt"}


# --------------------------------------------------------------------------- the algorithm (pure)

def shadow_sources(active):
    """The attribute of each shadow of a run, as R builds them: one per attribute in ``active``
    (the attributes not yet rejected, in order), the list doubled while shorter than 5."""
    sources = np.asarray(active, dtype=np.intp)
    if sources.size == 0:
        raise ValueError("active: at least one attribute is needed to make shadows")
    while sources.size < MIN_SHADOWS:
        sources = np.concatenate([sources, sources])
    return sources


def boruta_decisions(hits, runs, decision, p_value=0.01, mc_adjust=True):
    """The decisions after ``runs`` runs: R's ``doTests`` of ``Boruta.default``.

    Parameters
    ----------
    hits : array-like of int, shape (n_attributes,)
        Hits of every attribute so far (rejected and confirmed ones included: the Bonferroni
        adjustment is over all of them, as R's ``p.adjust`` of the whole hit register).
    runs : int
        Runs so far (>= 1).
    decision : array-like of str
        The decisions before this test (values of :data:`DECISIONS`); only a ``"Tentative"``
        one changes.
    p_value : float
    mc_adjust : bool
        Bonferroni adjustment: each p-value times the number of attributes (at most 1).

    Returns
    -------
    ndarray of str (object)
        ``"Confirmed"`` where P(X >= hits) < p_value, ``"Rejected"`` where P(X <= hits) < p_value
        (X ~ Binomial(runs, 1/2); adjusted p-values), the rest unchanged.
    """
    hits = np.asarray(hits, dtype=np.float64)
    decision = np.array(decision, dtype=object)
    if hits.shape != decision.shape or hits.ndim != 1:
        raise ValueError(f"hits, decision: must be 1-D of the same length; got {hits.shape} and {decision.shape}")
    p_accept = stats.binom.sf(hits - 1, runs, 0.5)   # P(X >= hits) = P(X > hits - 1)
    p_reject = stats.binom.cdf(hits, runs, 0.5)      # P(X <= hits)
    if mc_adjust:
        p_accept = np.minimum(1.0, p_accept * hits.size)
        p_reject = np.minimum(1.0, p_reject * hits.size)
    tentative = decision == "Tentative"
    # In R's order: confirmed first, then rejected (the two cannot both hold: their p-values add up to >= 1).
    decision[tentative & (p_accept < p_value)] = "Confirmed"
    decision[tentative & (p_reject < p_value)] = "Rejected"
    return decision


class BorutaRun(NamedTuple):
    """What :func:`boruta_loop` returns."""

    #: Final decision of each attribute (values of :data:`DECISIONS`).
    decision: np.ndarray
    #: Hits of each attribute.
    hits: np.ndarray
    #: Importance runs made.
    runs: int
    #: runs x (n_attributes + 3): the attributes' importances (NaN once rejected), then shadowMax,
    #: shadowMean, shadowMin; None without ``hold_history``.
    history: Any
    #: The run at which each attribute was decided (0: still Tentative).
    decided_at: np.ndarray
    #: shadowMax of each run (kept also without the history).
    shadow_max: np.ndarray


def boruta_loop(get_importance, n_attributes, *, max_runs=100, p_value=0.01, mc_adjust=True, hold_history=True,
                on_run=None):
    """R's Boruta loop over an importance source.

    Parameters
    ----------
    get_importance : callable
        ``get_importance(run, active, sources) -> (importance, shadow_importance)``: ``run`` counts
        from 1; ``active`` the indices of the attributes not yet rejected; ``sources`` the attribute
        of each shadow (:func:`shadow_sources` of ``active``).  Returns the importances of the
        ``active`` attributes (in that order) and of the shadows, higher meaning more important;
        NaN is taken as 0, with a warning (as R does).
    n_attributes : int
    max_runs, p_value, mc_adjust, hold_history
        As :func:`boruta`; at most ``max_runs - 1`` runs (R's counting).
    on_run : callable, optional
        Called as ``on_run(run, decision)`` after each run's tests.

    Returns
    -------
    BorutaRun
    """
    decision = np.full(n_attributes, "Tentative", dtype=object)
    hits = np.zeros(n_attributes, dtype=np.int64)
    decided_at = np.zeros(n_attributes, dtype=np.int64)
    history, shadow_max = [], []
    runs = 0
    while (decision == "Tentative").any():
        runs += 1
        if runs >= max_runs:
            runs -= 1
            break
        active = np.flatnonzero(decision != "Rejected")
        sources = shadow_sources(active)
        importance, shadows = get_importance(runs, active, sources)
        importance = np.array(importance, dtype=np.float64).ravel()
        shadows = np.array(shadows, dtype=np.float64).ravel()
        if importance.shape != active.shape or shadows.shape != sources.shape:
            raise ValueError(f"get_importance: returned {importance.size} attribute and {shadows.size} shadow "
                             f"importances; expected {active.size} and {sources.size}")
        if np.isnan(importance).any() or np.isnan(shadows).any():
            warnings.warn("boruta: the importance source returned NaN; taken as 0 (as R's Boruta does), yet this "
                          "is suspicious", RuntimeWarning, stacklevel=2)
            importance = np.nan_to_num(importance, nan=0.0, posinf=np.inf, neginf=-np.inf)
            shadows = np.nan_to_num(shadows, nan=0.0, posinf=np.inf, neginf=-np.inf)
        full = np.full(n_attributes, np.nan)
        full[active] = importance
        top = shadows.max()
        hits[active[importance > top]] += 1
        before = decision
        decision = boruta_decisions(hits, runs, decision, p_value, mc_adjust)
        decided_at[(before == "Tentative") & (decision != "Tentative")] = runs
        shadow_max.append(top)
        if hold_history:
            history.append(np.concatenate([full, [top, shadows.mean(), shadows.min()]]))
        if on_run is not None:
            on_run(runs, decision)
    table = (np.vstack(history) if history else np.empty((0, n_attributes + 3))) if hold_history else None
    return BorutaRun(decision, hits, runs, table, decided_at, np.asarray(shadow_max, dtype=np.float64))


# --------------------------------------------------------------------------- importance sources

def _run_seeds(entropy, run):
    """The seed sequences of run ``run``: (shadows, importance source)."""
    return np.random.SeedSequence(entropy, spawn_key=(run,)).spawn(2)


class _ShadowDesign:
    """A design's columns grouped by term, and the design extended by shadows."""

    def __init__(self, X, column_term_index, n_terms):
        self.X = X
        self.column_term_index = np.asarray(column_term_index, dtype=np.intp)
        self.n_terms = n_terms
        self.columns_of = [np.flatnonzero(self.column_term_index == t) for t in range(n_terms)]

    def extend(self, active, sources, rng):
        """(X, column term index, columns taken): the active terms' columns, then one shadow per
        source (term ``n_terms + s``: the rows of all the source's columns under one permutation).
        ``columns taken`` are the original columns in the order they appear (shadows included)."""
        n = self.X.shape[0]
        kept = np.concatenate([self.columns_of[t] for t in active])
        shadow_columns = [self.columns_of[t] for t in sources]
        taken = np.concatenate([kept] + shadow_columns)
        out = np.empty((n, taken.size), dtype=self.X.dtype)
        out[:, :kept.size] = self.X[:, kept]
        position = kept.size
        for columns in shadow_columns:
            permutation = rng.permutation(n)
            out[:, position:position + columns.size] = self.X[np.ix_(permutation, columns)]
            position += columns.size
        index = np.concatenate([self.column_term_index[kept]]
                               + [np.full(c.size, self.n_terms + s, dtype=np.intp)
                                  for s, c in enumerate(shadow_columns)])
        return out, index, taken


class _MethodImportance:
    """The importance of the attributes and shadows under a registered fstools method."""

    def __init__(self, prepared, entropy, n_jobs):
        self.prepared = prepared
        self.entropy = entropy
        self.n_jobs = n_jobs
        design = prepared.design
        self.design = _ShadowDesign(design.X, design.column_term_index, prepared.n_terms)
        n_columns = design.X.shape[1]
        # Per-column keywords (the nominal mask, ...): a shadow's entries are its source columns'.
        self.column_keywords = [key for key, value in prepared.keywords.items()
                                if isinstance(value, np.ndarray) and value.dtype == bool
                                and value.shape == (n_columns,)]

    def __call__(self, run, active, sources):
        shadow_seed, _ = _run_seeds(self.entropy, run)
        X, index, taken = self.design.extend(active, sources, np.random.default_rng(shadow_seed))
        keywords = dict(self.prepared.keywords)
        for key in self.column_keywords:
            keywords[key] = np.ascontiguousarray(keywords[key][taken])
        n_terms = self.prepared.n_terms
        importance = score_terms(self.prepared, X, self.prepared.y, index, n_terms + len(sources), keywords,
                                 n_threads=self.n_jobs)
        return importance[active], importance[n_terms:]


def _tree_permutation_importance(tree, X, y, in_bag, groups, seed, classification):
    """One tree's increase of out-of-bag error when each group of columns is permuted among the
    out-of-bag rows (NaN for all groups when the tree has no out-of-bag row)."""
    out_of_bag = np.ones(X.shape[0], dtype=bool)
    out_of_bag[in_bag] = False
    rows = np.flatnonzero(out_of_bag)
    importance = np.full(len(groups), np.nan)
    m = rows.size
    if m == 0:
        return importance
    X_oob = np.ascontiguousarray(X[rows])
    y_oob = y[rows]

    def error(predicted):
        if classification:
            return (predicted != y_oob).mean(axis=-1)
        return ((predicted - y_oob) ** 2).mean(axis=-1)

    base = error(tree.predict(X_oob, check_input=False))
    rng = np.random.default_rng(seed)
    d = X.shape[1]
    block = max(1, _BLOCK_VALUES // max(1, m * d))
    for start in range(0, len(groups), block):
        part = groups[start:start + block]
        stacked = np.repeat(X_oob[None], len(part), axis=0)
        if all(columns.size == 1 for columns in part):  # one column per group: all permuted in one go
            columns = np.array([c[0] for c in part])[:, None]
            permutations = rng.permuted(np.tile(np.arange(m), (len(part), 1)), axis=1)
            stacked[np.arange(len(part))[:, None], np.arange(m)[None, :], columns] = X_oob[permutations, columns]
        else:
            for i, columns in enumerate(part):
                stacked[i][:, columns] = X_oob[np.ix_(rng.permutation(m), columns)]
        predicted = tree.predict(stacked.reshape(len(part) * m, d), check_input=False).reshape(len(part), m)
        importance[start:start + len(part)] = error(predicted) - base
    return importance


class _ForestImportance:
    """The importance of the attributes and shadows under a scikit-learn random forest."""

    def __init__(self, X, y, classification, importance_type, forest_params, column_term_index, n_terms,
                 entropy, n_threads):
        self.design = _ShadowDesign(np.asarray(X, dtype=np.float32), column_term_index, n_terms)
        self.y = y
        self.classification = classification
        self.importance_type = importance_type
        self.forest_params = dict(forest_params)
        self.entropy = entropy
        self.n_threads = n_threads
        # One thread and the ensemble's usual loop: the same trees grown without its per-tree
        # overhead (fstools.guarantees.forest); else scikit-learn's forest itself.
        self.grow_trees = can_fit(self.forest(0).get_params(), n_threads)

    def forest(self, seed):
        from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor  # (heavy: at first use)

        kind = RandomForestClassifier if self.classification else RandomForestRegressor
        return kind(**self.forest_params, random_state=seed, n_jobs=self.n_threads)

    def fitted_forest(self, X, seed):
        """The forest of one run, fitted on ``X``: scikit-learn's, or the same trees grown one by one."""
        forest = self.forest(seed)
        if self.grow_trees:
            return fit_forest(X, self.y, self.classification, forest.get_params(), seed)
        return forest.fit(X, self.y)

    def __call__(self, run, active, sources):
        shadow_seed, forest_seed = _run_seeds(self.entropy, run)
        X, index, _ = self.design.extend(active, sources, np.random.default_rng(shadow_seed))
        forest_state, tree_seeds = forest_seed.spawn(2)
        forest = self.fitted_forest(X, int(forest_state.generate_state(1)[0] & 0x7FFFFFFF))
        # Groups: the columns of each attribute (active) and each shadow, in that order.
        members = [np.flatnonzero(index == t) for t in list(active) + [self.design.n_terms + s
                                                                        for s in range(len(sources))]]
        if self.importance_type == "impurity":
            column = forest.feature_importances_
            values = np.array([column[c].sum() for c in members])
        else:
            values = self._permutation(forest, X, members, tree_seeds)
        return values[:len(active)], values[len(active):]

    def _permutation(self, forest, X, members, tree_seeds):
        y = np.searchsorted(forest.classes_, self.y) if self.classification else np.asarray(self.y, np.float64)
        trees = forest.estimators_
        samples = forest.estimators_samples_
        seeds = tree_seeds.spawn(len(trees))
        tasks = [(tree, X, y, in_bag, members, seed, self.classification)
                 for tree, in_bag, seed in zip(trees, samples, seeds)]
        if self.n_threads > 1:
            pool = ThreadPoolExecutor(self.n_threads)
            try:
                per_tree = list(pool.map(lambda task: _tree_permutation_importance(*task), tasks))
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
        else:
            per_tree = [_tree_permutation_importance(*task) for task in tasks]
        per_tree = np.vstack(per_tree)
        per_tree = per_tree[~np.isnan(per_tree).any(axis=1)]
        if per_tree.shape[0] == 0:
            raise ValueError("importance: no tree of the forest has out-of-bag rows; use more rows or "
                             "importance_type='impurity'")
        mean = per_tree.mean(axis=0)
        if self.importance_type == "permutation_raw" or per_tree.shape[0] < 2:
            return mean
        error = per_tree.std(axis=0, ddof=1) / np.sqrt(per_tree.shape[0])
        return np.where(error > 0, mean / np.where(error > 0, error, 1.0), mean)


def _forest_description(importance_type, classification, params):
    trees = params.get("n_estimators")
    head = f"random forest (scikit-learn, {trees} trees, max_features={params.get('max_features')!r})"
    if importance_type == "impurity":
        what = "mean decrease in Gini impurity" if classification else "mean decrease in variance"
        return f"{head}: impurity importance ({what}; as R's getImpRfGini)"
    error = "misclassification rate" if classification else "mean squared error"
    if importance_type == "permutation_raw":
        return f"{head}: out-of-bag permutation importance (increase in {error}; as R's getImpRfRaw)"
    return (f"{head}: out-of-bag permutation importance as a Z score (increase in {error} / its standard error "
            f"over the trees; as R's default getImpRfZ)")


# --------------------------------------------------------------------------- the result

def _r_time(seconds):
    """A duration as R's format(difftime) shows it (units chosen as R's difftime does)."""
    for limit, divisor, unit in ((60, 1, "secs"), (3600, 60, "mins"), (86400, 3600, "hours")):
        if seconds < limit:
            return f"{seconds / divisor:.7g} {unit}"
    return f"{seconds / 86400:.7g} days"


def _name_list(names, limit=5):
    """R's .attListPrettyPrint: sorted, at most ``limit`` names then 'and N more'."""
    names = sorted(names)
    if len(names) <= limit:
        return ", ".join(names) + ";"
    return f"{', '.join(names[:limit])} and {len(names) - limit} more;"


def _wrapped(text, width=72):
    """R's strwrap(text, indent = 1) at its default width (0.9 * 80: lines shorter than 72)."""
    return textwrap.fill(text, width=width - 1, initial_indent=" ", subsequent_indent="", break_long_words=False)


class BorutaResult:
    """The outcome of :func:`fstools.boruta` (R's ``Boruta`` object).

    Attributes
    ----------
    decision, final_decision : pandas.Series (categorical)
        ``"Confirmed"``, ``"Tentative"`` or ``"Rejected"`` per term, in the formula's order (R's
        ``finalDecision``, a factor with levels Tentative, Confirmed, Rejected).
    selected : list of str
        The confirmed terms; ``tentative`` and ``rejected`` the others.
    formula : str
        The response and the confirmed terms (R's ``getConfirmedFormula``).
    hits : pandas.Series of int
        Per term, the runs in which its importance exceeded shadowMax.
    decided_at : pandas.Series of int
        The run at which the term was decided (0: still Tentative).
    runs : int
        Importance runs made (at most ``max_runs - 1``).
    importance_history : pandas.DataFrame or None
        Runs (1..runs) x (terms, shadowMax, shadowMean, shadowMin): R's ``ImpHistory``, with NaN
        (R: -Inf) where a term was not scored because it had been rejected before; None when the
        result was made with ``hold_history=False``.
    importance : str
        ``"random_forest"`` or the method's name; ``importance_source`` the source in words.
    params : dict
        The forest's or the method's parameters.
    max_runs, p_value, mc_adjust
        As given.
    time_taken : float
        Seconds.
    roughfixed : bool
        Made by :meth:`rough_fix`; then ``average_over`` and ``original_decision``.
    n : int
        Rows used.
    response_type, response_reason, classes, random_state, call
    """

    title = "Boruta feature selection"

    def __init__(self, *, call, importance, importance_source, params, terms, response_name, run, max_runs,
                 p_value, mc_adjust, time_taken, n, response_type, response_reason, classes, random_state,
                 notes=()):
        self.call = call
        self.importance = importance
        self.importance_source = importance_source
        self.params = dict(params)
        self.terms = list(terms)
        self.response_name = response_name
        index = pd.Index(self.terms, name="feature")
        self.decision = pd.Series(pd.Categorical(list(run.decision), categories=list(DECISIONS)), index=index,
                                  name="decision")
        self.hits = pd.Series(np.asarray(run.hits, dtype=np.int64), index=index, name="hits")
        self.decided_at = pd.Series(np.asarray(run.decided_at, dtype=np.int64), index=index, name="decided_at")
        self.runs = int(run.runs)
        self.shadow_max = pd.Series(np.asarray(run.shadow_max, dtype=np.float64),
                                    index=pd.RangeIndex(1, self.runs + 1, name="run"), name="shadowMax")
        if run.history is None:
            self.importance_history = None
        else:
            self.importance_history = pd.DataFrame(run.history, columns=self.terms + list(SHADOW_COLUMNS),
                                                   index=pd.RangeIndex(1, self.runs + 1, name="run"))
        self.max_runs = int(max_runs)
        self.p_value = float(p_value)
        self.mc_adjust = bool(mc_adjust)
        self.time_taken = float(time_taken)
        self.n = int(n)
        self.response_type = response_type
        self.response_reason = response_reason
        self.classes = None if classes is None else list(classes)
        self.random_state = random_state
        self.notes = list(notes)
        self.roughfixed = False
        self.average_over = None
        self.original_decision = None

    # ------------------------------------------------------------------ decisions
    @property
    def final_decision(self):
        """R's name of :attr:`decision`."""
        return self.decision

    def _with(self, decision):
        return [term for term, value in self.decision.items() if value == decision]

    @property
    def selected(self):
        """The confirmed terms, in the formula's order."""
        return self._with("Confirmed")

    @property
    def tentative(self):
        return self._with("Tentative")

    @property
    def rejected(self):
        return self._with("Rejected")

    def get_selected(self, with_tentative=False):
        """The confirmed terms, and the tentative ones too with ``with_tentative`` (R's getSelectedAttributes)."""
        keep = ("Confirmed", "Tentative") if with_tentative else ("Confirmed",)
        return [term for term, value in self.decision.items() if value in keep]

    @property
    def formula(self):
        """The response and the confirmed terms (R's getConfirmedFormula)."""
        return format_formula([self.response_name], self.selected)

    def get_formula(self, with_tentative=False):
        """The response and the confirmed terms, and the tentative ones with ``with_tentative``
        (R's getConfirmedFormula / getNonRejectedFormula)."""
        return format_formula([self.response_name], self.get_selected(with_tentative))

    def _history(self, what):
        if self.importance_history is None:
            raise ValueError(f"{what}: the importance history was not stored (boruta(..., hold_history=False))")
        return self.importance_history

    # ------------------------------------------------------------------ R's attStats and TentativeRoughFix
    def att_stats(self):
        """Per term: meanImp, medianImp, minImp, maxImp (over the runs in which it was scored, finite
        values only), normHits (hits / runs) and decision: R's ``attStats``."""
        history = self._history("att_stats")
        rows = []
        for term in self.terms:
            values = history[term].to_numpy()
            values = values[np.isfinite(values)]
            if values.size:
                rows.append((values.mean(), np.median(values), values.min(), values.max()))
            else:
                rows.append((np.nan,) * 4)
        frame = pd.DataFrame(rows, columns=["meanImp", "medianImp", "minImp", "maxImp"],
                             index=pd.Index(self.terms, name="feature"))
        frame["normHits"] = self.hits.to_numpy() / self.runs if self.runs else np.nan
        frame["decision"] = self.decision
        return frame

    def rough_fix(self, average_over=None):
        """R's ``TentativeRoughFix``: each Tentative term becomes Confirmed when its median importance
        over the last ``average_over`` runs (None: all) is above the median of shadowMax over those
        runs, else Rejected.  Returns a new result (this one unchanged); with no Tentative term, a
        copy, with a warning."""
        history = self._history("rough_fix")
        if average_over is None or (isinstance(average_over, float) and math.isinf(average_over)
                                    and average_over > 0):
            average_over = self.runs
        else:
            average_over = integer_at_least(1).validate(average_over, "average_over",
                                                        " (runs to average over; None: all of them)")
        tentative = self.tentative
        fixed = copy.copy(self)
        if not tentative:
            warnings.warn("rough_fix: there are no Tentative attributes; returning a copy of the result",
                          UserWarning, stacklevel=2)
            return fixed
        average_over = min(average_over, self.runs)
        window = history.iloc[self.runs - average_over:]
        shadow = float(np.median(window["shadowMax"].to_numpy()))
        decision = self.decision.copy()
        for term in tentative:
            decision[term] = "Confirmed" if np.median(window[term].to_numpy()) > shadow else "Rejected"
        fixed.decision = decision
        fixed.original_decision = self.decision.copy()
        fixed.roughfixed = True
        fixed.average_over = average_over
        return fixed

    # ------------------------------------------------------------------ presentation
    def _counts(self):
        return {d: int((self.decision == d).sum()) for d in DECISIONS}

    def __repr__(self):
        lines = [f"Boruta performed {self.runs} iterations in {_r_time(self.time_taken)}."]
        if self.roughfixed:
            lines.append(f"Tentatives roughfixed over the last {self.average_over} iterations.")
        for decision, words, none in (("Confirmed", "attributes confirmed important",
                                       "No attributes deemed important."),
                                      ("Rejected", "attributes confirmed unimportant",
                                       "No attributes deemed unimportant."),
                                      ("Tentative", "tentative attributes left", None)):
            names = self._with(decision)
            if names:
                lines.append(_wrapped(f"{len(names)} {words}: {_name_list(names)}"))
            elif none:
                lines.append(f" {none}")
        return "\n".join(lines)

    def _response_text(self):
        what = "a continuous response" if self.classes is None else f"{len(self.classes)} classes"
        return what + (f" ({self.response_reason})" if self.response_reason else "")

    def as_dict(self):
        """The result's numbers as plain Python (for JSON): the settings, the decisions and attStats."""
        frame = self.summary_frame()
        features = []
        for term, row in frame.iterrows():
            entry = {"feature": term}
            for column, value in row.items():
                entry[column] = str(value) if column == "decision" else float(value)
            features.append(entry)
        return {"call": self.call, "procedure": "boruta", "importance": self.importance,
                "importance_source": self.importance_source, "params": dict(self.params), "runs": self.runs,
                "max_runs": self.max_runs, "p_value": self.p_value, "mc_adjust": self.mc_adjust,
                "random_state": self.random_state, "n": self.n, "response_type": self.response_type,
                "classes": self.classes, "selected": list(self.selected), "tentative": list(self.tentative),
                "rejected": list(self.rejected), "roughfixed": self.roughfixed, "features": features}

    def summary_frame(self):
        """The numbers of the summary: :meth:`att_stats` (hits and decisions only without the history)."""
        if self.importance_history is None:
            return pd.DataFrame({"hits": self.hits, "normHits": self.hits / max(self.runs, 1),
                                 "decision": self.decision})
        return self.att_stats()

    def summary(self):
        """The run's settings, the decisions in words and R's attStats table, by median importance."""
        counts = self._counts()
        params = ", ".join(f"{name} = {value!r}" for name, value in self.params.items())
        adjustment = (f"Bonferroni-adjusted over the {len(self.terms)} attributes" if self.mc_adjust
                      else "not adjusted")
        decided = (f"{counts['Confirmed']} attribute(s) confirmed important, {counts['Rejected']} confirmed "
                   f"unimportant, {counts['Tentative']} tentative")
        if self.roughfixed:
            decided += f" (tentatives rough-fixed over the last {self.average_over} runs)"
        header = [("Call", self.call),
                  ("Importance", self.importance_source),
                  ("Parameters", params or "none"),
                  ("Data", f"{self.n} rows, {len(self.terms)} attributes, {self._response_text()}"),
                  ("Runs", f"{self.runs} importance runs (at most max_runs - 1 = {self.max_runs - 1}) in "
                           f"{_r_time(self.time_taken)}; random_state = {self.random_state!r}"),
                  ("Tests", f"binomial tests of the hits, p_value = {format_number(self.p_value)}, {adjustment}"),
                  ("Decision", decided)]
        frame = self.summary_frame()
        if self.importance_history is not None:
            order = frame["medianImp"].fillna(-np.inf).sort_values(ascending=False, kind="stable").index
            frame = frame.loc[order]
            table = pd.DataFrame({"feature": frame.index,
                                  **{column: [format_number(v) for v in frame[column]]
                                     for column in ("meanImp", "medianImp", "minImp", "maxImp")},
                                  "normHits": [f"{v:.3f}" for v in frame["normHits"]],
                                  "decision": [str(v) for v in frame["decision"]]})
        else:
            table = pd.DataFrame({"feature": frame.index, "hits": [str(v) for v in frame["hits"]],
                                  "normHits": [f"{v:.3f}" for v in frame["normHits"]],
                                  "decision": [str(v) for v in frame["decision"]]})
        notes = ["hit: a run in which the attribute's importance exceeded shadowMax, the largest importance of "
                 "its run's shadows (copies of the attributes with permuted rows); normHits = hits / runs. "
                 "Confirmed: P(Binom(runs, 1/2) >= hits) < p_value; Rejected: P(Binom(runs, 1/2) <= hits) < p_value "
                 "(Kursa & Rudnicki 2010, J. Stat. Softw. 36(11)).",
                 "meanImp ... maxImp: over the runs in which the attribute was scored (a rejected attribute leaves "
                 "the later runs); sorted by medianImp."]
        if counts["Tentative"] and not self.roughfixed:
            notes.append("Tentative attributes are left: increase max_runs, or use rough_fix() (a weaker test: "
                         "median importance against the median shadowMax).")
        notes += self.notes
        return Summary(self.title, header, table, notes, frame=frame.copy())

    def _repr_html_(self):
        """What a notebook shows: the short print of ``repr`` as HTML (the table is ``summary()``)."""
        return text_as_html(repr(self))

    def _colors(self):
        return {"Confirmed": "limegreen", "Tentative": "gold", "Rejected": "tomato", "shadow": "cornflowerblue"}

    def _title(self):
        counts = self._counts()
        source = method_label(self.importance) if self.importance != "random_forest" else "random forest"
        return (f"Boruta, importance: {source}; {self.runs} runs of n = {self.n} rows\n"
                f"{counts['Confirmed']} confirmed, {counts['Tentative']} tentative, {counts['Rejected']} rejected")

    def plot(self, kind="boxplot", ax=None, sort=True, shadows=("shadowMax", "shadowMean", "shadowMin"), **kwargs):
        """Plot the importance history (R's ``plot.Boruta`` and ``plotImpHistory``).

        Parameters
        ----------
        kind : {'boxplot', 'history'}
            ``'boxplot'``: one box per attribute (its importances over the runs in which it was scored)
            and per shadow statistic, sorted by median when ``sort``; ``'history'``: the importances
            by run, one line per attribute.  Green confirmed, yellow tentative, red rejected, blue
            shadows (R's colours).
        ax : matplotlib Axes, optional
        shadows : sequence of str
            The shadow statistics drawn (R's ``whichShadow``).

        Returns
        -------
        matplotlib Axes
        """
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        # Imported when first drawn: matplotlib costs start-up time.
        from fstools.results.plotting import axes_for, plain_numbers

        history = self._history("plot")
        unknown = [name for name in shadows if name not in SHADOW_COLUMNS]
        if unknown:
            raise ValueError(f"shadows: must be among {', '.join(SHADOW_COLUMNS)}; got {unknown!r}")
        colors = self._colors()
        color_of = {term: colors[str(value)] for term, value in self.decision.items()}
        color_of.update({name: colors["shadow"] for name in SHADOW_COLUMNS})
        handles = [Patch(facecolor=colors[d], edgecolor="black", label=d) for d in ("Confirmed", "Tentative",
                                                                                   "Rejected")]
        handles.append(Patch(facecolor=colors["shadow"], edgecolor="black", label="shadow"))
        ylabel = "Importance" + ("" if self.importance != "random_forest" else
                                 " (Z score)" if "Z score" in self.importance_source else "")
        if kind == "boxplot":
            columns = self.terms + list(shadows)
            data = [history[c].to_numpy()[np.isfinite(history[c].to_numpy())] for c in columns]
            if sort:
                medians = [np.median(v) if v.size else -np.inf for v in data]
                order = np.argsort(medians, kind="stable")
                columns = [columns[i] for i in order]
                data = [data[i] for i in order]
            ax = axes_for(ax, (max(6.0, 0.32 * len(columns) + 2.5), 4.8))
            boxes = ax.boxplot(data, patch_artist=True, widths=0.6, medianprops={"color": "black"},
                               flierprops={"markersize": 3}, **kwargs)
            for position, (patch, column, values) in enumerate(zip(boxes["boxes"], columns, data), start=1):
                patch.set_facecolor(color_of[column])
                patch.set_edgecolor("black")
                if values.size and np.ptp(values) == 0:
                    # The same importance in every run (a method's score of an unchanged column):
                    # the box is a line, so a marker in the decision's colour shows it.
                    ax.plot([position], [values[0]], marker="D", markersize=6, color=color_of[column],
                            markeredgecolor="black", linestyle="none")
            ax.set_xticks(np.arange(1, len(columns) + 1))
            ax.set_xticklabels(columns, rotation=90 if len(columns) > 8 else 45, ha="center" if len(columns) > 8
                               else "right", fontsize=8)
            ax.set_xlabel("Attributes" + (", by median importance" if sort else ""))
            ax.set_ylabel(ylabel)
            plain_numbers(ax)
            ax.legend(handles=handles, fontsize=8, loc="upper left", frameon=False)
            ax.set_title(self._title(), fontsize=9)
            ax.figure.tight_layout()
            return ax
        if kind == "history":
            ax = axes_for(ax, (8.0, 4.6))
            runs = history.index.to_numpy()
            styles = {"shadowMax": "-", "shadowMean": "--", "shadowMin": ":"}
            for column in self.terms + list(shadows):
                values = history[column].to_numpy(dtype=float)
                values = np.where(np.isfinite(values), values, np.nan)
                ax.plot(runs, values, color=color_of[column], linestyle=styles.get(column, "-"),
                        linewidth=1.6 if column in SHADOW_COLUMNS else 1.0, **kwargs)
            handles = [Line2D([], [], color=colors[d], label=d) for d in ("Confirmed", "Tentative", "Rejected")]
            handles += [Line2D([], [], color=colors["shadow"], linestyle=styles[name], linewidth=1.6, label=name)
                        for name in shadows]
            ax.set_xlabel("Importance run")
            ax.set_ylabel(ylabel)
            plain_numbers(ax)
            ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
            ax.set_title(self._title(), fontsize=9)
            ax.figure.tight_layout()
            return ax
        raise ValueError(f"kind: must be 'boxplot' or 'history'; got {kind!r}")


# --------------------------------------------------------------------------- the entry point

def _supervised_methods():
    return [name for name in method_names()
            if get_method(name).supervised and "multilabel" not in get_method(name).capabilities]


def boruta(formula, data, importance="random_forest", *, max_runs=100, p_value=0.01, mc_adjust=True,
           hold_history=True, random_state=None, n_jobs=None, na_action="drop", formula_mode="safe",
           response_type=None, progress=False, **params):
    """All-relevant feature selection by Boruta (Kursa & Rudnicki 2010), as R's ``Boruta``.

    Parameters
    ----------
    formula : str
        ``"y ~ ."`` and the like, as in :func:`fstools.select`; a factor is one attribute.
    data : pandas.DataFrame
        Not modified.
    importance : str or (str, dict), default 'random_forest'
        ``"random_forest"``: a scikit-learn random forest (out-of-bag permutation importance as a Z
        score by default, R's default source; ``importance_type`` in ``params``); or a registered
        supervised fstools method (``"mim"``, ``"fisher"``, ``"relieff"``, ``"mrmr"``, ...), perhaps
        as a ``(name, params)`` pair: its score, or for a greedy method its order of entry.
    max_runs : int, default 100
        At least 11; at most ``max_runs - 1`` importance runs (R's ``maxRuns``).
    p_value : float, default 0.01
        Level of the tests, in (0, 1) (R's ``pValue``).
    mc_adjust : bool, default True
        Bonferroni adjustment over the attributes (R's ``mcAdj``).
    hold_history : bool, default True
        Keep the importance of every run (R's ``holdHistory``): needed by ``att_stats``,
        ``rough_fix`` and ``plot``.
    random_state : int or None
        Seeds the shadows' permutations and the forests; the same value gives the same result
        for any ``n_jobs``.
    n_jobs : int or None
        Threads of the forest (fitting and out-of-bag permutations) or of the method's kernels.
    na_action, formula_mode, response_type
        As in :func:`fstools.select` (the forest takes ``na_action`` 'drop' or 'raise').
    progress : bool
        A tqdm progress bar over the runs.
    **params
        For the forest: ``importance_type`` ('permutation', 'permutation_raw', 'impurity') and the
        arguments of scikit-learn's ``RandomForestClassifier`` / ``RandomForestRegressor``
        (``n_estimators`` default 500, ``max_features`` default 'sqrt', ``max_depth``,
        ``min_samples_leaf``, ...); for a method: its parameters.

    Returns
    -------
    BorutaResult
    """
    from tqdm.auto import tqdm

    started = time.perf_counter()
    max_runs = validate(integer_at_least(MIN_MAX_RUNS, "R's Boruta needs maxRuns > 10"), max_runs, "max_runs",
                        right_type=is_integer)
    p_value = OPEN_UNIT_INTERVAL.validate(p_value, "p_value")
    mc_adjust = BOOLEAN.validate(mc_adjust, "mc_adjust")
    hold_history = BOOLEAN.validate(hold_history, "hold_history")
    progress = BOOLEAN.validate(progress, "progress")
    random_state = validate(SEED, random_state, "random_state",
                            right_type=lambda value: value is None or is_integer(value))
    threads = 1 if n_jobs is None else effective_n_threads(n_jobs)

    name, params = split_method(importance, params)
    forest = isinstance(name, str) and name == "random_forest"
    if forest:
        importance_type = one_of(FOREST_IMPORTANCE_TYPES).validate(params.pop("importance_type", "permutation"),
                                                                   "importance_type")
        if na_action not in ("drop", "raise"):
            raise ValueError(f"na_action: importance='random_forest' takes 'drop' or 'raise'; got {na_action!r}")
        _check_forest_names(params, importance_type)
        # The data as the information methods read them (factors as level codes): the forest's design.
        prepared = prepare("boruta", formula, data, "mim", {}, na_action=na_action, formula_mode=formula_mode,
                           response_type=response_type)
        forest_params = _forest_params(params, prepared.response_type == "class")
        name = "random_forest"
        shown = ({"importance_type": importance_type} if importance_type != "permutation" else {}) | params
    else:
        given = params
        allowed = _supervised_methods()
        valid = isinstance(name, str)
        if valid:
            try:
                spec = get_method(name)
            except ValueError:
                valid = False
            else:
                valid = spec.name in allowed
        if not valid:
            raise ValueError(f"importance: must be 'random_forest' or a registered supervised method "
                             f"({', '.join(allowed)}); got {importance!r}")
        prepared = prepare("boruta", formula, data, name, given, na_action=na_action, formula_mode=formula_mode,
                           response_type=response_type)
        name = prepared.name
    terms = prepared.terms
    clashes = [term for term in terms if term in SHADOW_COLUMNS]
    if clashes:
        raise ValueError(f"data: the term name(s) {', '.join(map(repr, clashes))} are the importance history's "
                         f"shadow columns; rename them")

    entropy = np.random.SeedSequence(random_state).entropy
    classification = prepared.response_type == "class"
    notes = []
    if forest:
        design = prepared.design
        source = _ForestImportance(design.X, prepared.y, classification, importance_type, forest_params,
                                   design.column_term_index, prepared.n_terms, entropy, threads)
        description = _forest_description(importance_type, classification, forest_params)
        if prepared.factor_terms:
            notes.append(f"factor(s) {', '.join(map(repr, prepared.factor_terms))} enter the forest as one "
                         f"column of level codes each (as ranger's default)")
        shown_params = {"importance_type": importance_type, **forest_params}
    else:
        source = _MethodImportance(prepared, entropy, n_jobs)
        how = ("its order of entry (the first chosen scores highest)" if importance_kind(prepared.spec) == "rank"
               else "its score" + ("" if prepared.spec.higher_is_better else ", negated (lower is better)"))
        description = f"{name}: {prepared.spec.description}; importance = {how}"
        shown_params = prepared.values
        shown = given

    bar = tqdm(total=max_runs - 1, desc="fs.boruta", unit="run", disable=not progress, leave=False)

    def on_run(run, decision):
        bar.update(1)
        bar.set_postfix(tentative=int((decision == "Tentative").sum()))

    try:
        run = boruta_loop(source, prepared.n_terms, max_runs=max_runs, p_value=p_value, mc_adjust=mc_adjust,
                          hold_history=hold_history, on_run=on_run)
    finally:
        bar.close()

    call_parts = [repr(formula), "data", f"importance={name!r}"]
    for key, value, default in (("max_runs", max_runs, 100), ("p_value", p_value, 0.01),
                                ("mc_adjust", mc_adjust, True), ("hold_history", hold_history, True)):
        if value != default:
            call_parts.append(f"{key}={value!r}")
    call_parts.append(f"random_state={random_state!r}")
    call_parts += [f"{key}={value!r}" for key, value in shown.items()]
    if response_type is not None:
        call_parts.append(f"response_type={response_type!r}")
    if na_action != "drop":
        call_parts.append(f"na_action={na_action!r}")
    return BorutaResult(call=f"boruta({', '.join(call_parts)})", importance=name, importance_source=description,
                        params=shown_params, terms=terms, response_name=prepared.frame.response_names[0], run=run,
                        max_runs=max_runs, p_value=p_value, mc_adjust=mc_adjust,
                        time_taken=time.perf_counter() - started, n=prepared.n,
                        response_type=prepared.response_type, response_reason=prepared.response_reason,
                        classes=prepared.class_names, random_state=random_state, notes=notes)


def _check_forest_names(params, importance_type):
    """Refuse the forest arguments boruta sets itself and names no random forest takes."""
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor  # (heavy: at first use)

    reserved = sorted(set(params) & set(_RESERVED_FOREST))
    if reserved:
        raise ValueError(f"params: {', '.join(reserved)}: set by boruta itself (boruta's random_state and n_jobs "
                         f"seed and thread the forests)")
    known = (set(RandomForestClassifier().get_params()) | set(RandomForestRegressor().get_params())) - set(
        _RESERVED_FOREST)
    unknown = sorted(set(params) - known)
    if unknown:
        raise TypeError(f"params: {', '.join(unknown)}: not argument(s) of the random forest; allowed: "
                        f"importance_type and scikit-learn's forest arguments ({', '.join(sorted(known))})")
    if importance_type != "impurity" and params.get("bootstrap", True) is False:
        raise ValueError("bootstrap: the permutation importance is measured on the out-of-bag rows, which needs "
                         "bootstrap=True; use importance_type='impurity' for bootstrap=False")


def _forest_params(params, classification):
    """The forest's arguments: R-like defaults, then ``params``; an argument the forest of the
    response's kind does not take is refused."""
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor  # (heavy: at first use)

    kind = RandomForestClassifier if classification else RandomForestRegressor
    unknown = sorted(set(params) - set(kind().get_params()))
    if unknown:
        raise TypeError(f"params: {', '.join(unknown)}: not argument(s) of {kind.__name__} (the response is "
                        f"{'classes' if classification else 'continuous'})")
    return {**_FOREST_DEFAULTS, **params}

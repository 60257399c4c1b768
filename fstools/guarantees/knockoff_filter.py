"""The knockoff filter for every method: a selection whose false discovery rate is controlled.

:func:`knockoff_filter` adds a knockoff copy of every feature (a synthetic feature with the same
correlations as the real one, built without looking at the response), scores the real features
and their copies together, and keeps the features whose statistic ``W_j`` exceeds the knockoff(+)
threshold.  With knockoff+ (``offset=1``) the expected share of false selections among the
selected is at most ``fdr`` in finite samples (Barber & Candes 2015, "Controlling the false
discovery rate via knockoffs", Ann. Stat. 43:2055-2085, Theorem 2, fixed-X; Candes, Fan, Janson &
Lv 2018, "Panning for gold: model-X knockoffs for high dimensional controlled variable
selection", JRSS-B 80:551-577, Theorem 3.4, model-X).

The statistic: ``W_j = Z_j - Z~_j`` (``statistic="difference"``) or ``max(Z_j, Z~_j) sign(Z_j - Z~_j)``
(``"signed_max"``), where ``Z`` is the importance of a column when the method ranks the features
and the knockoffs together (:func:`fstools.guarantees.importance.term_importance`: the method's
score, or a greedy method's order of entry), or ``|beta_j|`` of a cross-validated lasso (an
l1-penalised logistic regression for classes) fitted on both (``method="lasso"``: the "lasso
coefficient difference" of R's ``knockoff::stat.glmnet_coefdiff`` and ``knockpy``).  Before
scoring, each feature is swapped with its knockoff with probability 1/2 (and the swap undone
after), as ``knockoff::stat.glmnet_coefdiff`` does, so that a method's tie rule (the lower
column index first) cannot favour the real features.
"""
import warnings

import numpy as np
import pandas as pd

from fstools.core.constraints import OPEN_UNIT_INTERVAL, POSITIVE_NUMBER, SEED, integer_at_least, is_integer, one_of, \
    validate
from fstools.core.failures import reraise_with_context
from fstools.guarantees.importance import prepare, score_terms
from fstools.guarantees.knockoff_threshold import (frequency_count, knockoff_threshold,
                                                    pfer_frequency_ratio, pfer_knockoff_threshold)
from fstools.results.labels import method_label
from fstools.results.tables import Summary, format_count, format_number, text_as_html

__all__ = ["knockoff_filter", "KnockoffResult", "knockoff_statistics", "KNOCKOFF_TYPES", "S_METHODS",
           "STATISTICS", "DERANDOMIZATIONS"]

KNOCKOFF_TYPES = ("gaussian", "fixed")
S_METHODS = ("mvr", "sdp", "equicorrelated")
STATISTICS = ("difference", "signed_max")
#: How several draws are combined: e-values and e-BH (FDR; Ren & Barber 2024), or selection
#: frequencies of a PFER-controlling base procedure (Ren, Wei & Candes 2023).
DERANDOMIZATIONS = ("e-values", "frequency")
LASSO = "lasso"


def combine(Z, Z_knockoff, statistic):
    """``W`` from the importances of the features and of their knockoffs."""
    if statistic == "difference":
        return Z - Z_knockoff
    return np.maximum(Z, Z_knockoff) * np.sign(Z - Z_knockoff)


#: The lasso statistic's penalty grid: this many values, log-spaced over this many decades below the
#: smallest penalty that zeroes every coefficient (as glmnet's default path), and its solver's tolerance.
LASSO_PENALTIES = 20
LASSO_DECADES = 2.0
LASSO_TOLERANCE = 1e-3


def _lasso_importance(XX, y, response_type, random_state):
    """``|beta|`` of a cross-validated lasso (l1 logistic regression for classes) on the standardised
    columns of ``XX``; for several classes the sum over the classes.

    The penalties are a data-driven path of :data:`LASSO_PENALTIES` values over
    :data:`LASSO_DECADES` decades from the one that zeroes every coefficient (glmnet's default,
    which R's ``stat.glmnet_coefdiff`` uses); the logistic path is chosen by cross-validated log
    loss (glmnet's binomial deviance), finer than accuracy.
    """
    from sklearn.linear_model import LassoCV, LogisticRegressionCV
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import l1_min_c

    scaled = StandardScaler().fit_transform(XX)
    grid = np.logspace(0.0, -LASSO_DECADES, LASSO_PENALTIES)
    if response_type == "continuous":
        centred = y - y.mean()
        largest = np.max(np.abs(scaled.T @ centred)) / len(y)
        model = LassoCV(alphas=largest * grid, cv=5, random_state=random_state, max_iter=2000,
                        tol=LASSO_TOLERANCE).fit(scaled, y)
        return np.abs(model.coef_)
    binary = len(np.unique(y)) == 2
    smallest = l1_min_c(scaled, y, loss="log")
    model = LogisticRegressionCV(Cs=smallest / grid, cv=5, penalty="l1", solver="liblinear" if binary else "saga",
                                 scoring="neg_log_loss", max_iter=1000, tol=LASSO_TOLERANCE,
                                 random_state=random_state)
    with warnings.catch_warnings():
        # scikit-learn >= 1.8 announces new spellings of penalty= and of its attributes; the
        # floor (1.6) knows only these, and the l1 penalty and coef_ mean the same in both.
        warnings.simplefilter("ignore", FutureWarning)
        model.fit(scaled, y)
        coefficients = np.asarray(model.coef_)
    return np.abs(coefficients).sum(axis=0)


def knockoff_statistics(prepared, X, X_knockoff, statistic, swap, n_steps=None, n_threads=1):
    """``(W, Z, Z~)`` of the features of ``X`` against their knockoffs under a registered method
    (in the features' order).

    ``swap`` flags the features exchanged with their knockoff before the method sees them;
    ``n_steps`` truncates a greedy method's path (:func:`fstools.guarantees.importance.score_terms`).
    """
    p = X.shape[1]
    keywords = dict(prepared.keywords)
    if keywords.get("nominal") is not None:
        keywords["nominal"] = np.concatenate([keywords["nominal"], keywords["nominal"]])
    importance = score_terms(prepared, _swapped(X, X_knockoff, swap), prepared.y, np.arange(2 * p), 2 * p,
                             keywords, n_steps=n_steps, n_threads=n_threads)
    return _unswap(importance, swap, statistic)


def _swapped(X, X_knockoff, swap):
    """``[X, X_knockoff]`` (n x 2p) with the columns flagged by ``swap`` exchanged with their knockoffs."""
    first = np.where(swap[np.newaxis, :], X_knockoff, X)
    second = np.where(swap[np.newaxis, :], X, X_knockoff)
    return np.ascontiguousarray(np.hstack([first, second]))


def _unswap(importance, swap, statistic):
    p = len(swap)
    Z = np.where(swap, importance[p:], importance[:p])
    Z_knockoff = np.where(swap, importance[:p], importance[p:])
    return combine(Z, Z_knockoff, statistic), Z, Z_knockoff


class KnockoffResult:
    """The outcome of :func:`knockoff_filter`.

    Attributes
    ----------
    selected : list of str
        The features kept, largest ``W`` first (derandomised: largest mean e-value, or largest
        selection frequency, first).
    statistics : pandas.DataFrame
        Per feature (the formula's order): ``W``, ``Z`` (the feature's importance), ``Z_knockoff``
        (its knockoff's), ``selected``; with several draws, ``W`` etc. of the first draw and
        ``e_value`` (the mean e-value over the draws; ``derandomize='e-values'``) and
        ``frequency`` (the share of draws whose own selection holds it).
    W : pandas.Series
        The statistic of each feature (first draw).
    threshold : float
        The knockoff(+) threshold of the (first) draw; inf when none is reached.
    W_draws : pandas.DataFrame
        Draws x features: W of every draw.
    X_knockoff : ndarray, shape (n, p)
        The knockoffs of the first draw, in the units of the design (fixed-X: of its centred
        columns), columns in the features' order.
    thresholds : list of float
        The threshold of each draw (``derandomize='frequency'``: the ``|W|`` of its ``v``-th
        negative statistic, a feature selected in that draw when ``W > threshold``).
    derandomize : {'e-values', 'frequency'} or None
        None for one draw with the FDR rule.
    pfer, eta, pfer_assumption, base_pfer, draw_v
        ``derandomize='frequency'`` (else None): the PFER bound, the selection frequency, the
        assumption behind the bound, the base procedure's level ``v0`` and each draw's ``v``.
    fdr, offset, knockoffs, s_method, statistic, n_draws, method, call, n, random_state
    """

    def __init__(self, *, call, method, spec, params, fdr, offset, knockoffs, s_method, statistic, W_draws, Z, Z_knockoff,
                 X_knockoff, thresholds, selected, e_values, n, classes, random_state, draw_fdr, shrunk, n_dropped,
                 derandomize=None, frequency=None, pfer=None, eta=None, pfer_assumption=None, base_pfer=None,
                 draw_v=None):
        self.call = call
        self.method = method
        self._spec = spec
        self.params = dict(params)
        self.fdr = fdr
        self.offset = offset
        self.knockoffs = knockoffs
        self.s_method = s_method
        self.statistic = statistic
        self.W_draws = W_draws
        self.X_knockoff = X_knockoff
        self.thresholds = list(thresholds)
        self.threshold = self.thresholds[0]
        self.n_draws = len(W_draws)
        self.draw_fdr = draw_fdr
        self.e_values = e_values
        self.derandomize = derandomize
        self.pfer = pfer
        self.eta = eta
        self.pfer_assumption = pfer_assumption
        self.base_pfer = base_pfer
        self.draw_v = None if draw_v is None else list(draw_v)
        terms = list(W_draws.columns)
        self.W = pd.Series(W_draws.iloc[0].to_numpy(), index=pd.Index(terms, name="feature"), name="W")
        columns = {"W": self.W.to_numpy(), "Z": Z, "Z_knockoff": Z_knockoff}
        if e_values is not None:
            columns["e_value"] = e_values
            columns["frequency"] = [(W_draws[term].to_numpy() >= np.asarray(self.thresholds)).mean()
                                    for term in terms]
        if derandomize == "frequency":
            columns["frequency"] = frequency
        columns["selected"] = [term in set(selected) for term in terms]
        self.statistics = pd.DataFrame(columns, index=pd.Index(terms, name="feature"))
        key = self.statistics[self._order_key]
        position = {term: j for j, term in enumerate(terms)}
        self.selected = sorted(selected, key=lambda term: (-key[term], position[term]))
        self.n = n
        self.classes = None if classes is None else list(classes)
        self.random_state = random_state
        self.shrunk = shrunk
        self.n_dropped = n_dropped

    @property
    def _order_key(self):
        """The column that orders the features: the mean e-value, the frequency or W."""
        if self.derandomize == "frequency":
            return "frequency"
        return "e_value" if self.e_values is not None else "W"

    def _target_text(self):
        """'FDR 0.1' or 'PFER 1': the error rate the selection controls."""
        if self.derandomize == "frequency":
            return f"PFER {format_number(self.pfer)}"
        return f"FDR {format_number(self.fdr)}"

    def _construction_text(self):
        if self.knockoffs == "fixed":
            kind = "fixed-X (Barber & Candes 2015)"
        else:
            kind = ("model-X Gaussian (Candes et al. 2018), mean and covariance estimated"
                    + (", covariance shrunk (Ledoit-Wolf)" if self.shrunk else ", covariance not shrunk"))
        return f"{kind}; s by {self.s_method}"

    def _rule_text(self):
        plus = "knockoff+" if self.offset == 1 else "knockoff"
        if self.derandomize == "frequency":
            base = "the positive W met before the v-th negative W by decreasing |W| (Janson & Su 2016"
            if self.n_draws == 1:
                return f"{base}, v = {self.draw_v[0]})"
            return (f"derandomised over {self.n_draws} draws (Ren, Wei & Candes 2023): each draw selects {base}, "
                    f"v0 = {format_number(self.base_pfer)}); selected when chosen in at least "
                    f"{frequency_count(self.n_draws, self.eta)} of {self.n_draws} draws (eta = "
                    f"{format_number(self.eta)})")
        if self.n_draws == 1:
            return f"{plus} threshold at FDR {format_number(self.fdr)}: W >= {format_number(self.threshold)}"
        return (f"derandomised over {self.n_draws} draws (Ren & Barber 2024): {plus} threshold at "
                f"{format_number(self.draw_fdr)} per draw, e-values averaged, e-BH at FDR {format_number(self.fdr)}")

    def guarantee(self):
        """The guarantee in words."""
        model = ("for a Gaussian linear model (fixed-X)." if self.knockoffs == "fixed" else
                 "when the features are (close to) Gaussian with the estimated mean and covariance (model-X).")
        if self.derandomize == "frequency":
            assumed = ("" if self.pfer_assumption == "none" or self.n_draws == 1 else
                       " It assumes, as Ren, Wei & Candes (2023), that the distribution of a null feature's selection "
                       "frequency over the draws is nonincreasing (pfer_assumption='none' drops it, with Markov's "
                       "inequality).")
            return (f"The expected number of false selections (the per-family error rate, PFER) among the "
                    f"{format_count(len(self.selected), 'selected feature')} is at most {format_number(self.pfer)}: "
                    f"a false selection is a feature independent of the response given the other features. It holds "
                    f"in finite samples {model}{assumed}")
        if self.offset == 1:
            return (f"The expected share of false discoveries among the {len(self.selected)} selected feature(s) "
                    f"(the false discovery rate) is at most {format_number(self.fdr)}: a false discovery is a "
                    f"feature independent of the response given the other features. It holds in finite samples "
                    + model)
        return (f"offset = 0 (knockoff): a modified FDR, E[V / (R + 1/q)], is at most {format_number(self.fdr)}; "
                f"use offset = 1 (knockoff+) for the FDR itself.")

    def as_dict(self):
        """The result's numbers as plain Python (for JSON): the settings, the threshold(s), the
        selection and every feature's statistics."""
        features = []
        for term, row in self.statistics.iterrows():
            entry = {"feature": term}
            for column, value in row.items():
                entry[column] = bool(value) if column == "selected" else float(value)
            features.append(entry)
        return {"call": self.call, "procedure": "knockoff_filter", "method": self.method, "params": dict(self.params),
                "fdr": self.fdr, "offset": self.offset, "knockoffs": self.knockoffs, "s": self.s_method,
                "statistic": self.statistic, "n_draws": self.n_draws, "draw_fdr": self.draw_fdr,
                "derandomize": self.derandomize, "pfer": self.pfer, "eta": self.eta,
                "pfer_assumption": self.pfer_assumption, "base_pfer": self.base_pfer, "draw_v": self.draw_v,
                "thresholds": [float(value) for value in self.thresholds], "random_state": self.random_state,
                "n": self.n, "classes": self.classes, "selected": list(self.selected), "guarantee": self.guarantee(),
                "features": features}

    def summary_frame(self):
        """The statistics, selected features first, then by decreasing W."""
        order = np.lexsort((-self.statistics[self._order_key].to_numpy(), ~self.statistics["selected"].to_numpy()))
        return self.statistics.iloc[order]

    def summary(self, all_features=False):
        """The construction, the threshold, the guarantee in words and the features' statistics.

        Parameters
        ----------
        all_features : bool
            List every feature; default the ones whose W is not 0 (or that were selected).
        """
        full = self.summary_frame()
        frame = full if all_features else full[(full["W"] != 0) | full["selected"]]
        table = pd.DataFrame({"feature": frame.index,
                              "W": [format_number(value) for value in frame["W"]],
                              "Z": [format_number(value) for value in frame["Z"]],
                              "Z knockoff": [format_number(value) for value in frame["Z_knockoff"]]})
        if self.e_values is not None:
            table["e-value"] = [format_number(value) for value in frame["e_value"]]
            table["draws"] = [f"{100 * value:.0f}%" for value in frame["frequency"]]
        if self.derandomize == "frequency":
            table["draws"] = [f"{100 * value:.0f}%" for value in frame["frequency"]]
        table["selected"] = ["yes" if flag else "" for flag in frame["selected"]]
        params = ", ".join(f"{name} = {value!r}" for name, value in self.params.items())
        what = ("a continuous response" if self.classes is None else f"{len(self.classes)} classes")
        dropped = f"; {self.n_dropped} incomplete rows dropped" if self.n_dropped else ""
        score = ("|coefficient| of a cross-validated lasso" if self.method == LASSO else
                 "the method's order of entry" if "greedy" in self._spec.capabilities else "the method's score")
        combined = "Z - Z knockoff" if self.statistic == "difference" else "max(Z, Z knockoff) * sign(Z - Z knockoff)"
        header = [("Call", self.call),
                  ("Method", self.method if self._spec is None else f"{self.method}: {self._spec.description}"),
                  ("Parameters", params or "none"),
                  ("Data", f"{self.n} rows, {len(self.W)} features, {what}{dropped}"),
                  ("Knockoffs", self._construction_text()),
                  ("Statistic", f"W = {combined}, Z = {score}"),
                  ("Rule", self._rule_text()),
                  ("Selected", f"{len(self.selected)}: {', '.join(self.selected) if self.selected else 'none'}")]
        notes = [self.guarantee()]
        if self.derandomize == "frequency":
            notes.append("W > 0: the feature beat its knockoff; 'draws': the share of draws that selected it. Each "
                         "draw's v is v0 rounded at random (down or up, with the chance of v0's fraction), so that "
                         "its PFER is v0 on average.")
        else:
            notes.append("W > 0: the feature beat its knockoff; the threshold is the smallest t with "
                         "(offset + #{W <= -t}) / #{W >= t} <= fdr.")
        if self.n_draws == 1 and self.derandomize is None and not np.isfinite(self.threshold):
            needed = int(np.ceil(self.offset / self.fdr - 1e-12))
            positive = int((self.W > 0).sum())
            notes.append(f"No threshold reached: with offset = {self.offset}, a selection at FDR "
                         f"{format_number(self.fdr)} needs at least {needed} features whose W exceeds every |W| "
                         f"of a negative W ({positive} feature(s) have W > 0 here). With fewer relevant features, "
                         f"raise fdr or use offset=0 (knockoff: a modified FDR).")
        hidden = len(full) - len(frame)
        if hidden:
            notes.append(f"Not listed: {format_count(int(hidden), 'feature')} with W = 0 (summary(all_features=True)).")
        return Summary("Knockoff filter", header, table, notes, frame=frame.copy())

    def plot(self, ax=None, max_features=40):
        """W of each feature, largest first, the threshold marked (selected features in red).

        Returns
        -------
        matplotlib Axes
        """
        from fstools.results.plotting import axes_for, plain_numbers  # imports matplotlib: only when drawn

        order = np.argsort(-self.W.to_numpy(), kind="stable")[:max_features]
        shown = self.W.iloc[order]
        ax = axes_for(ax, (max(5.5, 0.26 * len(shown) + 2.5), 4.2))
        colors = ["tab:red" if term in self.selected else "0.65" for term in shown.index]
        positions = np.arange(len(shown))
        ax.bar(positions, shown.to_numpy(), color=colors)
        ax.axhline(0, color="k", linewidth=0.6)
        if np.isfinite(self.threshold):
            ax.axhline(self.threshold, color="k", linestyle="--", linewidth=1)
            ax.axhline(-self.threshold, color="k", linestyle=":", linewidth=1)
            ax.text(len(shown) - 0.5, self.threshold, f"threshold {format_number(self.threshold)}", fontsize=8,
                    ha="right", va="bottom")
        ax.set_xticks(positions)
        ax.set_xticklabels(shown.index, rotation=60, ha="right", fontsize=8)
        ax.set_ylabel("W (feature vs its knockoff)")
        plain_numbers(ax)
        label = "lasso" if self.method == LASSO else method_label(self.method)
        ax.set_title(f"Knockoff filter: {label}, {self.knockoffs} knockoffs, {self._target_text()}\n"
                     f"{len(self.selected)} selected (red)"
                     + ("" if np.isfinite(self.threshold) else "; no threshold reached")
                     + ("" if self.n_draws == 1 else
                                                               f"; W of draw 1 of {self.n_draws}"), fontsize=9)
        ax.figure.tight_layout()
        return ax

    def __repr__(self):
        selected = ", ".join(self.selected) if self.selected else "none"
        return (f"Knockoff filter: {self.method}, {self.knockoffs} knockoffs, {self._target_text()}\n"
                f"Call: {self.call}\n{self._rule_text()}\nSelected ({len(self.selected)}): {selected}")

    def _repr_html_(self):
        """What a notebook shows: the short print of ``repr`` as HTML (the table is ``summary()``)."""
        return text_as_html(repr(self))


def knockoff_filter(formula, data, method=LASSO, fdr=0.1, *, knockoffs="gaussian", s="mvr", statistic="difference",
                    offset=1, n_draws=1, draw_fdr=None, derandomize="e-values", pfer=None, eta=0.5,
                    pfer_assumption="nonincreasing", shrink=True, n_steps=None, random_state=None, n_jobs=None,
                    na_action="drop", formula_mode="safe", response_type=None, **params):
    """The knockoff filter with any method's score: selected features with the FDR at most ``fdr``
    (or, with ``derandomize='frequency'``, the expected number of false selections at most ``pfer``).

    Parameters
    ----------
    formula : str
    data : pandas.DataFrame
        Not modified.  Numeric features only (a factor is refused: its knockoff would have to be a
        whole knockoff factor).
    method : str or (str, dict), default 'lasso'
        ``'lasso'``: W from the coefficients of a cross-validated lasso (continuous response) or
        l1-penalised logistic regression (classes) fitted on the features and knockoffs together,
        the default of R's ``knockoff`` and of ``knockpy``; or any registered supervised method, whose
        score (or a greedy method's order of entry) is Z.
    fdr : float, default 0.1
        In (0, 1): the target false discovery rate.
    knockoffs : {'gaussian', 'fixed'}
        ``'gaussian'``: model-X second-order knockoffs (Candes et al. 2018, Sec. 3.1), the mean and
        covariance estimated (shrunk by Ledoit-Wolf, see ``shrink``); ``'fixed'``: fixed-X
        knockoffs (Barber & Candes 2015, Sec. 2.1), which need n >= 2p and hold for a linear model.
    s : {'mvr', 'sdp', 'equicorrelated'}, default 'mvr'
        How far each knockoff is from its feature: minimum variance-based reconstructability
        (Spector & Janson 2022, Ann. Stat. 50(1), knockpy's default), the SDP (Barber & Candes 2015,
        Eq. 2.4) or the equicorrelated construction (Eq. 2.3).
    statistic : {'difference', 'signed_max'}
    offset : {1, 0}
        1: knockoff+ (controls the FDR); 0: knockoff (a modified FDR), as R's ``knockoff.threshold``.
    n_draws : int, default 1
        More than 1: derandomised knockoffs (Ren & Barber 2024, "Derandomised knockoffs:
        leveraging e-values for false discovery rate control", JRSS-B 86(1):122-154): the e-values
        of ``n_draws`` knockoff draws averaged and selected by e-BH at ``fdr``.
    draw_fdr : float, optional
        The knockoff level of each draw when derandomising; default ``fdr / 2``, their
        recommendation.
    derandomize : {'e-values', 'frequency'}, default 'e-values'
        How draws are combined.  ``'e-values'``: as above (FDR at ``fdr``).  ``'frequency'``:
        derandomised knockoffs of Ren, Wei & Candes (2023, "Derandomizing knockoffs", JASA
        118:948-958), which bound the per-family error rate (PFER, the expected number of false
        selections) instead of the FDR: each draw selects by the procedure of Janson & Su (2016,
        "Familywise error rate control via knockoffs", Electron. J. Stat. 10:960-975; the positive
        ``W`` met before the ``v``-th negative one by decreasing ``|W|``,
        ``fstools.guarantees.knockoff_threshold.pfer_knockoff_threshold``), and a feature is
        selected when at least a share ``eta`` of the draws selected it.  ``fdr``, ``offset`` and
        ``draw_fdr`` are not used then.
    pfer : float, optional
        ``derandomize='frequency'`` only: the PFER bound, > 0 (default 1, as ``derandomKnock``).
        Each draw's ``v`` is ``v0 = pfer / ratio`` rounded down or up at random (up with the
        chance of ``v0``'s fraction, so its mean is ``v0``), where ``ratio`` is
        ``fstools.guarantees.knockoff_threshold.pfer_frequency_ratio`` of ``n_draws``,
        ``eta`` and ``pfer_assumption``.
    eta : float, default 0.5
        ``derandomize='frequency'`` only: the selection frequency, in (0, 1] (0.5, their default).
    pfer_assumption : {'nonincreasing', 'none'}, default 'nonincreasing'
        ``derandomize='frequency'`` only: what the bound assumes of a null feature's selection
        frequency (see ``fstools.guarantees.knockoff_threshold.pfer_frequency_ratio``).
    n_steps : int, optional
        A greedy method's path over the 2p features and knockoffs stops after ``n_steps`` steps: a
        column's Z is ``n_steps + 1 - step`` if it entered, else 0 (the analogue of the lasso's
        coefficients at a penalty where only some variables have entered; Barber & Candes 2015,
        Sec. 2.2).  Default ``max(10, ceil(p / 4))``: the full order (every column scored)
        would give noise features ``|W|`` as large as the signals'.
    shrink : {True, 'auto', False}, default True
        Shrink the estimated covariance (model-X) by Ledoit-Wolf, whose estimated intensity is
        near 0 when n is much larger than p (knockpy's default); ``'auto'`` only when n < 2p or the
        sample covariance is singular (see
        ``fstools.guarantees.knockoff_construction.estimate_covariance``).  On AR(1) 0.3
        designs with n = 500, p = 200, 12 signals, the unshrunk estimate's knockoffs found none
        of the signals in 3 data sets, the shrunk one 92-100 %.
    random_state : int or None
        Seeds the knockoffs, the swaps and the lasso's folds: the same value, the same result.
    n_jobs : int or None
        Threads of the method's kernels.
    na_action : {'drop', 'raise'}
    formula_mode, response_type
        As in :func:`fstools.select`.
    **params
        The method's parameters.

    Returns
    -------
    KnockoffResult
    """
    # scipy.linalg (the constructions) is imported at the first filter, not with fstools.
    from fstools.guarantees.knockoff_construction import (ebh, estimate_covariance, fixed_x_knockoffs,
                                                          gaussian_knockoffs, knockoff_evalues, s_matrix)

    fdr = validate(OPEN_UNIT_INTERVAL, fdr, "fdr")
    knockoffs = validate(one_of(KNOCKOFF_TYPES), knockoffs, "knockoffs")
    s = validate(one_of(S_METHODS), s, "s")
    statistic = validate(one_of(STATISTICS), statistic, "statistic")
    if offset not in (0, 1) or isinstance(offset, bool):
        raise ValueError(f"offset: must be 1 (knockoff+) or 0 (knockoff); got {offset!r}")
    n_draws = integer_at_least(1).validate(n_draws, "n_draws")
    draw_fdr = fdr / 2 if draw_fdr is None else validate(OPEN_UNIT_INTERVAL, draw_fdr, "draw_fdr")
    derandomize = validate(one_of(DERANDOMIZATIONS), derandomize, "derandomize")
    by_frequency = derandomize == "frequency"
    if by_frequency:
        pfer = 1.0 if pfer is None else validate(POSITIVE_NUMBER, pfer, "pfer")
        ratio = pfer_frequency_ratio(n_draws, eta, pfer_assumption)  # checks eta and the assumption
        base_pfer = pfer / ratio
    elif pfer is not None:
        raise ValueError(f"pfer: a PFER bound is the target of derandomize='frequency' only; got pfer={pfer!r} with "
                         f"derandomize={derandomize!r} (which controls the FDR at fdr)")
    random_state = validate(SEED, random_state, "random_state",
                            right_type=lambda value: value is None or is_integer(value))
    if na_action not in ("drop", "raise"):
        raise ValueError(f"na_action: the knockoff filter needs complete rows: 'drop' or 'raise'; got {na_action!r}")
    lasso = method == LASSO
    if lasso and params:
        raise TypeError(f"method: 'lasso' takes no parameters; got {', '.join(sorted(params))}")
    prepared = prepare("knockoff_filter", formula, data, None if lasso else method, params, na_action=na_action,
                       formula_mode=formula_mode, response_type=response_type)
    factors = prepared.factor_terms
    if factors:
        raise ValueError(f"data: the knockoff filter takes numeric features only; {', '.join(factors)} "
                         f"{'is a factor or a term' if len(factors) == 1 else 'are factors or terms'} of several "
                         f"columns (a knockoff factor is not supported): drop them from the formula or code them "
                         f"as numbers")
    X = np.asarray(prepared.frame.X, dtype=np.float64)
    n, p = X.shape
    if n_steps is None:
        n_steps = min(2 * p, max(10, -(-p // 4)))
    else:
        n_steps = integer_at_least(1).validate(n_steps, "n_steps")
    if knockoffs == "fixed" and n < 2 * p:
        raise ValueError(f"knockoffs: 'fixed' (fixed-X) needs n >= 2p rows; the data have n = {n}, p = {p}: use "
                         f"knockoffs='gaussian' (model-X)")
    # The covariance and s are computed once; each draw is a fresh knockoff matrix.
    try:
        if knockoffs == "fixed":
            X = X - X.mean(axis=0)  # a model with an intercept: the knockoffs of the centred columns
            Sigma, shrunk = X.T @ X, False
        else:
            Sigma, shrunk = estimate_covariance(X, shrink=shrink, return_shrunk=True)
            mean = X.mean(axis=0)
        s_vector = s_matrix(Sigma, s)
    except ValueError as error:
        reraise_with_context(error, "data")
    seeds = np.random.SeedSequence(random_state).spawn(n_draws)
    W_draws, thresholds, e_sum, draw_v, chosen = [], [], np.zeros(p), [], np.zeros(p, dtype=np.int64)
    first = None
    for seed in seeds:
        rng = np.random.default_rng(seed)
        construction_seed = int(rng.integers(2 ** 31 - 1))
        if knockoffs == "fixed":
            X_knockoff = fixed_x_knockoffs(X, s=s_vector, random_state=construction_seed)
        else:
            X_knockoff = gaussian_knockoffs(X, s=s_vector, mu=mean, Sigma=Sigma, random_state=construction_seed)
        swap = rng.random(p) < 0.5
        if lasso:
            importance = _lasso_importance(_swapped(X, X_knockoff, swap), prepared.y, prepared.response_type,
                                           construction_seed)
            W, Z, Z_knockoff = _unswap(importance, swap, statistic)
        else:
            W, Z, Z_knockoff = knockoff_statistics(prepared, X, X_knockoff, statistic, swap, n_steps=n_steps,
                                                   n_threads=n_jobs)
        if first is None:
            first = (Z, Z_knockoff, X_knockoff)
        if by_frequency:
            # v0 rounded at random, its mean v0 (Ren, Wei & Candes 2023; derandomKnock's rbinom)
            v = int(np.floor(base_pfer)) + int(rng.random() < base_pfer - np.floor(base_pfer))
            threshold = pfer_knockoff_threshold(W, v) if v >= 1 else np.inf
            chosen += W > threshold
            draw_v.append(v)
        else:
            threshold = knockoff_threshold(W, fdr if n_draws == 1 else draw_fdr, offset=offset)
        W_draws.append(W)
        thresholds.append(threshold)
        if n_draws > 1 and not by_frequency:
            e_sum += knockoff_evalues(W, threshold, offset=offset)
    terms = prepared.terms
    if by_frequency:
        e_values = None
        selected = [terms[j] for j in np.flatnonzero(chosen >= frequency_count(n_draws, eta))]
    elif n_draws == 1:
        e_values = None
        selected = [terms[j] for j in np.flatnonzero(W_draws[0] >= thresholds[0])]
    else:
        e_values = e_sum / n_draws
        selected = [terms[j] for j in ebh(e_values, fdr)]
    spec = None if lasso else prepared.spec
    return KnockoffResult(
        call=_format_call(formula, method, fdr, knockoffs, s, statistic, offset, n_draws, random_state, params,
                          derandomize=derandomize, pfer=pfer, eta=eta, pfer_assumption=pfer_assumption),
        method=LASSO if lasso else prepared.name, spec=spec, params={} if lasso else prepared.values, fdr=fdr,
        offset=offset, knockoffs=knockoffs, s_method=s, statistic=statistic,
        W_draws=pd.DataFrame(np.vstack(W_draws), columns=terms, index=pd.RangeIndex(1, n_draws + 1, name="draw")),
        Z=first[0], Z_knockoff=first[1], X_knockoff=first[2], thresholds=thresholds, selected=selected,
        e_values=e_values, n=n,
        classes=prepared.class_names, random_state=random_state,
        draw_fdr=draw_fdr if n_draws > 1 and not by_frequency else None,
        shrunk=shrunk, n_dropped=prepared.frame.n_dropped,
        derandomize=derandomize if by_frequency or n_draws > 1 else None,
        **({"frequency": chosen / n_draws, "pfer": pfer, "eta": eta, "pfer_assumption": pfer_assumption,
            "base_pfer": base_pfer, "draw_v": draw_v} if by_frequency else {}))


def _format_call(formula, method, fdr, knockoffs, s, statistic, offset, n_draws, random_state, params, *,
                 derandomize, pfer, eta, pfer_assumption):
    name = method if isinstance(method, str) else method[0]
    by_frequency = derandomize == "frequency"
    target = f"pfer={pfer!r}" if by_frequency else f"fdr={fdr!r}"
    parts = [repr(formula), "data", f"method={name!r}", target]
    if knockoffs != "gaussian":
        parts.append(f"knockoffs={knockoffs!r}")
    if s != "mvr":
        parts.append(f"s={s!r}")
    if statistic != "difference":
        parts.append(f"statistic={statistic!r}")
    if offset != 1:
        parts.append(f"offset={offset!r}")
    if n_draws != 1:
        parts.append(f"n_draws={n_draws!r}")
    if by_frequency:
        parts.append("derandomize='frequency'")
        if eta != 0.5:
            parts.append(f"eta={eta!r}")
        if pfer_assumption != "nonincreasing":
            parts.append(f"pfer_assumption={pfer_assumption!r}")
    parts.append(f"random_state={random_state!r}")
    parts += [f"{key}={value!r}" for key, value in params.items()]
    return f"knockoff_filter({', '.join(parts)})"

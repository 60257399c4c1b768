"""The procedures with a guarantee as a table for people: :func:`list_procedures`."""
import pandas as pd

from fstools.guarantees.importance import supervised_methods

__all__ = ["list_procedures"]

_PROCEDURES = (
    {"name": "stability_selection", "command": "fstools stabsel",
     "guarantee": "PFER: expected number of noise features selected <= the bound",
     "importance": "the method's first q features on each half-sample",
     "defaults": "B=50 complementary pairs, sampling='SS', assumption='unimodal'; two of q, cutoff, pfer",
     "reference": "Meinshausen & Buhlmann 2010, JRSS-B 72:417-473; Shah & Samworth 2013, JRSS-B 75:55-80"},
    {"name": "knockoff_filter", "command": "fstools knockoff",
     "guarantee": "FDR: expected share of false selections among the selected <= fdr",
     "importance": "lasso (default) or the method's score / order of entry, feature vs its knockoff",
     "defaults": "fdr=0.1, knockoffs='gaussian', s='mvr', offset=1 (knockoff+)",
     "reference": "Barber & Candes 2015, Ann. Stat. 43:2055-2085; Candes, Fan, Janson & Lv 2018, "
                  "JRSS-B 80:551-577"},
    {"name": "boruta", "command": "fstools boruta",
     "guarantee": "all-relevant: each feature tested against the best shadow (Bonferroni-adjusted binomial tests)",
     "importance": "random forest (default) or the method's score / order of entry",
     "defaults": "max_runs=100, p_value=0.01, mc_adjust=True",
     "reference": "Kursa & Rudnicki 2010, J. Stat. Softw. 36(11)"},
)


def list_procedures():
    """The selection procedures with a guarantee as a DataFrame: name, command, guarantee, the
    importance each reruns, defaults, the methods it takes and the reference.

    Every procedure takes any supervised single-response method registered in
    :func:`fstools.list_methods` (``methods``); the knockoff filter also its own lasso, Boruta its
    own random forest.
    """
    methods = ", ".join(supervised_methods())
    rows = [{**row, "methods": methods} for row in _PROCEDURES]
    return pd.DataFrame(rows, columns=["name", "command", "guarantee", "importance", "defaults", "methods",
                                       "reference"])

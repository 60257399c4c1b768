"""Selection with a guarantee, for every registered method (layer 7, beside ``evaluation/``).

* :func:`stability_selection` -- complementary-pairs stability selection with the PFER bound
  of Shah & Samworth (2013) / Meinshausen & Buhlmann (2010), as R's ``stabs``;
  :func:`stability_selection_parameters` the bound alone.
* :func:`knockoff_filter` -- fixed-X and model-X (Gaussian) knockoffs with the knockoff(+)
  threshold of Barber & Candes (2015), controlling the false discovery rate;
  :func:`knockoff_threshold` the threshold alone.
* :func:`boruta` -- all-relevant selection by shadow features (Kursa & Rudnicki 2010), as R's
  ``Boruta``.

Each procedure takes a formula and a data frame, scores the terms with any registered method
(its score, or its order of entry for a greedy method: :mod:`fstools.guarantees.importance`),
and returns a result that prints, summarises and plots.
"""
from fstools.guarantees.boruta import BorutaResult, boruta
from fstools.guarantees.catalogue import list_procedures
from fstools.guarantees.knockoff_filter import KnockoffResult, knockoff_filter
from fstools.guarantees.knockoff_threshold import knockoff_threshold
from fstools.guarantees.pfer_bound import StabilityParameters, stability_selection_parameters
from fstools.guarantees.stability_selection import StabilitySelectionResult, stability_selection

__all__ = ["stability_selection", "stability_selection_parameters", "StabilityParameters",
           "StabilitySelectionResult", "knockoff_filter", "knockoff_threshold", "KnockoffResult", "boruta",
           "BorutaResult", "list_procedures"]

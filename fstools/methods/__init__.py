"""Layer 3, feature-selection methods: NumPy arrays in, ranking / scores / diagnostics out.

One module per family: :mod:`~fstools.methods.cmqfs` (feature vector graph modularity and
relevant independency), :mod:`~fstools.methods.information` (MIM, MIFS, MIFS-U, mRMR, JMI, CMIM),
:mod:`~fstools.methods.similarity` (Fisher, Laplacian score, ReliefF, RReliefF),
:mod:`~fstools.methods.statistical` (chi2, F-test, Pearson), :mod:`~fstools.methods.discriminant`
(DFS, trace ratio), :mod:`~fstools.methods.hsic` (BAHSIC), :mod:`~fstools.methods.passive_aggressive`
(the online PA family), :mod:`~fstools.methods.multilabel` (ELC, LLSF and the per-label
baselines) and :mod:`~fstools.methods.multilabel_baselines` (ML-MIFS, CMFS).
:mod:`~fstools.methods.registry` maps names to methods with their parameters, defaults,
capabilities and the response types each takes (class, continuous), and imports no family:
importing this package imports every family, and each family registers its methods.
:mod:`~fstools.methods.responses` checks a continuous response and cuts it into levels as the
predictors are; :mod:`~fstools.methods.knn_information` estimates I(X_j; y) with nearest
neighbours (Kraskov et al. 2004, Ross 2014).  Nothing here knows about pandas or formulas.
"""
from fstools.methods import (  # noqa: F401  (imported for their registrations)
    cmqfs,
    discriminant,
    hsic,
    information,
    multilabel,
    multilabel_baselines,
    passive_aggressive,
    similarity,
    statistical,
)

"""scikit-learn's own estimator checks (``parametrize_with_checks``) on FeatureSelector, one
instance per kind of method: a filter, counts (chi2: positive_only), the information methods
(mim's sparse path, a greedy one), a continuous response (pearson), the paper's CMQFS and a
binary online method (mbpa: two-class targets through its classifier tags) and two multi-label
methods (ml_fisher, the paper's ELC: a 2-D target of two values through their target tags, each
column read as absent / present).  The other single-response methods pass them too, and so do
the other multi-label ones (checked by hand with ``check_estimator`` for every method).  RReliefF
is here for the blobs of the checks: no near instances differ in the response there (N_dC = 0),
and it gives the weights of R's CORElearn.  Skipped by scikit-learn itself:
check_array_api_input (SCIPY_ARRAY_API is not set)."""
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import fstools as fs

ESTIMATORS = [fs.FeatureSelector(method=method, k=1)
              for method in ("fisher", "chi2", "mim", "mrmr", "pearson", "cmqfs", "mbpa", "ml_fisher", "elc")]


@pytest.mark.filterwarnings("ignore::UserWarning")
@parametrize_with_checks(ESTIMATORS + [fs.FeatureSelector(method="rrelieff", k=1)])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)

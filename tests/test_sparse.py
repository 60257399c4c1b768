"""Sparse input: the sparse-capable methods take CSR/CSC without densifying,
the others refuse it by name; per-class sparse statistics against dense computations."""
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from references.information import mutual_information_ref
from references.similarity import fisher_score_ref
from references.statistical import chi2_ref
from scipy import sparse
from sklearn.feature_selection import chi2 as sklearn_chi2
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

import fstools as fs
from fstools.api.selection import run_method
from fstools.methods.information import mim
from fstools.methods.registry import get_method, method_names, sparse_format, sparse_methods
from fstools.methods.similarity import fisher
from fstools.core.sparse import (as_canonical_csc, centred_sums_of_squares, class_column_statistics,
                                               column_levels, column_ranges, column_value_counts,
                                               sparse_mutual_information_relevance)
from fstools.methods.information import sparse_mim
from fstools.methods.statistical import chi2

SPARSE_METHODS = sparse_methods()
DENSE_ONLY = [name for name in method_names() if name not in SPARSE_METHODS]
STREAMING = [name for name in SPARSE_METHODS if "streaming" in get_method(name).capabilities]
FILTERS = [name for name in SPARSE_METHODS if name not in STREAMING]


def count_data(n=240, p=30, n_classes=3, seed=0):
    """Non-negative integer (count/binary) data, class-dependent, with an all-zero, a constant and a
    binary column, and a column that separates the classes perfectly."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    rates = rng.uniform(0.05, 0.8, size=(n_classes, p))
    X = rng.poisson(rates[y]).astype(np.float64)
    X[:, 2] = 0.0                                   # all zero
    X[:, 3] = 4.0                                   # constant, nonzero
    X[:, 4] = (rng.random(n) < 0.1).astype(float)   # binary, rare
    X[:, 5] = np.where(y == 0, 0.0, 2.0 * y)        # separates the classes (zero within-class variance)
    return X, y.astype(np.int32)


def continuous_sparse_data(n=200, p=25, n_classes=3, seed=1):
    """Real values (some negative, offset so that within-class cancellation would show) at 15% density."""
    rng = np.random.default_rng(seed)
    y = (np.arange(n) % n_classes).astype(np.int32)
    values = rng.normal(size=(n, p)) + 0.8 * y[:, None] * (np.arange(p) % 3 == 0) + 50.0
    mask = rng.random((n, p)) < 0.15
    X = np.where(mask, values, 0.0)
    X[:, 1] = 0.0
    return X, y


def formats(X):
    return {"dense": X, "csr": sparse.csr_matrix(X), "csc": sparse.csc_matrix(X), "coo": sparse.coo_matrix(X),
            "csr_array": sparse.csr_array(X)}


def assert_same_output(sparse_output, dense_output, rtol=1e-12):
    np.testing.assert_array_equal(sparse_output.ranking, dense_output.ranking)
    np.testing.assert_allclose(sparse_output.scores, dense_output.scores, rtol=rtol, atol=1e-300)
    assert sparse_output.notes == dense_output.notes
    assert set(sparse_output.columns) == set(dense_output.columns)
    for name in dense_output.columns:
        np.testing.assert_allclose(sparse_output.columns[name], dense_output.columns[name], rtol=rtol,
                                   atol=1e-300, err_msg=name)


def _refuse_densifying(monkeypatch):
    """Make every way of densifying a scipy sparse matrix or array (``toarray``, ``todense`` of
    every format) and a pandas sparse column (``to_dense``, ``np.asarray``) raise.

    Let through: the small results that scikit-learn densifies inside the functions fstools
    calls -- ``min_max_axis`` the 1 x n_features minima and maxima, ``chi2`` the two-class
    label indicator (n x 1) and the n_classes x n_features class sums.  They are reductions,
    not the data: only arrays of one column or of fewer than 10 rows, and only from there."""
    import sys

    def refuse(*args, **kwargs):
        raise AssertionError("a sparse matrix was densified")

    def reduction_inside_scikit_learn(matrix):
        shape = matrix.shape
        if not (len(shape) == 1 or shape[0] < 10 or shape[1] == 1):
            return False
        frame = sys._getframe(2)
        while frame is not None:
            module = frame.f_globals.get("__name__", "")
            if (module == "sklearn.utils.fixes" and frame.f_code.co_name == "_sparse_min_max") or (
                    module == "sklearn.feature_selection._univariate_selection" and frame.f_code.co_name == "chi2"):
                return True
            frame = frame.f_back
        return False

    def guarded(original):
        def densify(self, *args, **kwargs):
            if reduction_inside_scikit_learn(self):
                return original(self, *args, **kwargs)
            refuse()
        return densify

    formats = [getattr(sparse, f"{name}_{kind}") for name in ("csr", "csc", "coo", "bsr", "dia", "dok", "lil")
               for kind in ("matrix", "array")]
    for cls in {klass for concrete in formats for klass in concrete.__mro__}:
        for name in ("toarray", "todense"):
            if name in vars(cls):
                monkeypatch.setattr(cls, name, guarded(vars(cls)[name]))
    monkeypatch.setattr(pd.arrays.SparseArray, "to_dense", refuse)
    monkeypatch.setattr(pd.arrays.SparseArray, "__array__", refuse)


@pytest.fixture
def no_densifying(monkeypatch):
    _refuse_densifying(monkeypatch)


def test_no_densifying_fixture_bites(no_densifying):
    with pytest.raises(AssertionError, match="densified"):
        sparse.csr_matrix(np.eye(3)).toarray()
    with pytest.raises(AssertionError, match="densified"):
        sparse.csc_array(np.eye(3)).todense()
    with pytest.raises(AssertionError, match="densified"):
        sparse.coo_matrix(np.eye(3)).toarray()
    with pytest.raises(AssertionError, match="densified"):
        np.asarray(pd.Series(pd.arrays.SparseArray([0.0, 1.0], fill_value=0.0)))


# ------------------------------------------------------------------ the registry
def test_registry_capability_and_listing():
    table = fs.list_methods().set_index("name")
    for name in ("chi2", "fisher", "mbpa", "onpa", "pa", "pa1", "pa2", "cs"):
        assert "sparse" in table.loc[name, "capabilities"], name
        assert name in SPARSE_METHODS
    for name in ("cmqfs", "relieff", "laplacian", "mrmr", "elc", "dfs"):
        assert "sparse" not in table.loc[name, "capabilities"], name
    assert table.loc["chi2", "description"] == ("Chi-square statistic of non-negative (count/binary) features "
                                                "against the class")
    assert SPARSE_METHODS[:5] == ["chi2", "f_test", "fisher", "mim", "pearson"]   # filters first, then streaming
    assert all(sparse_format(get_method(name)) == "csr" for name in STREAMING)
    assert all(sparse_format(get_method(name)) == "csc" for name in FILTERS)


def test_mim_is_sparse_capable_once_information_dispatches():
    assert "sparse" in get_method("mim").capabilities
    X, y = count_data()
    assert_same_output(run_method(get_method("mim"), sparse.csr_matrix(X), y, None, get_method("mim").defaults(),
                                  1),
                       run_method(get_method("mim"), X, y, None, get_method("mim").defaults(), 1), rtol=0)


# ------------------------------------------------------------------ every sparse method: dense == CSR == CSC
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("method", FILTERS)
def test_filters_same_on_every_format(method, n_classes):
    X, y = count_data(n_classes=n_classes)
    spec = get_method(method)
    kind = "class" if "class" in spec.responses else "continuous"   # pearson: the codes as numbers
    expected = run_method(spec, X, y, None, spec.defaults(), 1, response_type=kind)
    for name, matrix in formats(X).items():
        assert_same_output(run_method(spec, matrix, y, None, spec.defaults(), 1, response_type=kind), expected)


@pytest.mark.parametrize("method", STREAMING)
def test_streaming_methods_same_on_every_format(method):
    X, y = count_data(n_classes=2)
    spec = get_method(method)
    params = dict(spec.defaults(), class_names=["a", "b"])
    expected = run_method(spec, X, y, 5, params, 1)
    for name, matrix in formats(X).items():
        output = run_method(spec, matrix, y, 5, params, 1)
        np.testing.assert_array_equal(output.ranking, expected.ranking, err_msg=name)
        np.testing.assert_allclose(output.scores, expected.scores, rtol=1e-12, atol=1e-300, err_msg=name)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_sparse_mim_equals_dense_mim_exactly(n_classes):
    X, y = count_data(n_classes=n_classes)
    X[:, 7] = np.random.default_rng(3).integers(-3, 29, size=X.shape[0])   # 32 levels, negative values too
    dense = mim(X, y)
    for name, matrix in formats(X).items():
        if name == "dense":
            continue
        output = sparse_mim(matrix, y)
        np.testing.assert_array_equal(output.scores, dense.scores)     # to the last bit
        np.testing.assert_array_equal(output.ranking, dense.ranking)
        for key in dense.columns:
            np.testing.assert_array_equal(output.columns[key], dense.columns[key])
        for key in dense.steps:
            np.testing.assert_array_equal(output.steps[key], dense.steps[key])
        assert output.notes == dense.notes
    np.testing.assert_array_equal(sparse_mim(sparse.csc_matrix(X), y, k=4).ranking, mim(X, y, k=4).ranking)


def test_sparse_mutual_information_against_the_plug_in_reference():
    X, y = count_data(n=90, p=8)
    relevance = sparse_mutual_information_relevance(sparse.csc_matrix(X), y, 3)
    expected = [mutual_information_ref(X[:, j].tolist(), y.tolist()) for j in range(X.shape[1])]
    np.testing.assert_allclose(relevance, expected, rtol=1e-10, atol=1e-12)
    assert relevance[2] == 0.0 and relevance[3] == 0.0


@pytest.mark.parametrize("column", [
    np.linspace(0.0, 1.0, 240),                  # non-integer values
    np.arange(240) % 33,                         # more than 32 distinct values
    np.where(np.arange(240) % 3 == 0, 0.0, np.cos(np.arange(240.0))),   # mostly nonzero, signed
])
@pytest.mark.parametrize("discretization, n_bins", [("mu_sigma", None), ("equal_width", 4),
                                                    ("equal_frequency", 3)])
def test_sparse_mim_discretises_continuous_columns_as_the_dense_path(column, discretization, n_bins):
    """A column that is not binary/count is made dense (a block at a time) and discretised by
    the dense path: the scores, ranking and notes are those of mim on X.toarray(), bitwise,
    with the discrete columns still counted from their stored values."""
    X, y = count_data()
    X[:, 6] = column
    X[:, 1] = np.where(X[:, 1] > 0, X[:, 1] + 0.25, 0.0)   # a second continuous column, sparse
    ours = sparse_mim(sparse.csr_matrix(X), y, discretization=discretization, n_bins=n_bins)
    dense = mim(X, y, discretization=discretization, n_bins=n_bins)
    np.testing.assert_array_equal(ours.scores, dense.scores)
    np.testing.assert_array_equal(ours.ranking, dense.ranking)
    assert ours.notes == dense.notes
    selector = fs.FeatureSelector(method="mim", k=2).fit(sparse.csr_matrix(X), y)
    np.testing.assert_array_equal(selector.get_support(indices=True), np.sort(dense.ranking[:2]))


def test_sparse_mim_blocks_of_continuous_columns(monkeypatch):
    """Blocks of one column give the same scores as one block of all of them."""
    from fstools.methods import information

    X, y = count_data()
    X[:, [1, 4, 6]] = np.where(X[:, [1, 4, 6]] > 0, X[:, [1, 4, 6]] + 0.5, 0.0)
    whole = sparse_mim(sparse.csc_matrix(X), y)
    monkeypatch.setattr(information, "DENSE_BLOCK_VALUES", 1)
    one_by_one = sparse_mim(sparse.csc_matrix(X), y)
    np.testing.assert_array_equal(whole.scores, one_by_one.scores)
    np.testing.assert_array_equal(whole.scores, mim(X, y).scores)


def test_sparse_mim_validates_its_parameters_like_mim():
    X, y = count_data()
    with pytest.raises(ValueError, match="n_bins: only used with"):
        sparse_mim(sparse.csr_matrix(X), y, n_bins=4)
    with pytest.raises(ValueError, match="at least two classes"):
        sparse_mim(sparse.csr_matrix(X), np.zeros_like(y))


# ------------------------------------------------------------------ Fisher
@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_sparse_fisher_equals_dense_and_reference(n_classes):
    X, y = continuous_sparse_data(n_classes=n_classes)
    dense = fisher(X, y)
    for name, matrix in formats(X).items():
        assert_same_output(fisher(matrix, y), dense)
    np.testing.assert_allclose(fisher(sparse.csc_matrix(X), y).scores, fisher_score_ref(X, y), rtol=1e-10)


def test_sparse_fisher_edge_columns():
    X, y = count_data()
    output = fisher(sparse.csr_matrix(X), y)
    assert output.scores[2] == 0.0 and output.scores[3] == 0.0       # constant: 0, ranked last
    assert set(output.ranking[-2:]) == {2, 3}
    assert output.scores[5] == np.inf                                # perfect separation
    np.testing.assert_allclose(output.scores, fisher_score_ref(X, y), rtol=1e-10)


# ------------------------------------------------------------------ chi2
@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_chi2_matches_scikit_learn_and_the_contingency_computation(n_classes):
    X, y = count_data(n_classes=n_classes)
    X[:, 3] = np.arange(X.shape[0]) % 3     # no constant nonzero column: sklearn scores it ~1e-30, here 0
    nonzero = [j for j in range(X.shape[1]) if j != 2]   # sklearn gives NaN on the all-zero column 2 (below)
    expected, expected_p = sklearn_chi2(X[:, nonzero], y)
    constant = np.ptp(X, axis=0) == 0
    for name, matrix in formats(X).items():
        output = chi2(matrix, y)
        np.testing.assert_allclose(output.scores[nonzero], expected, rtol=1e-10, err_msg=name)
        np.testing.assert_allclose(output.columns["p_value"][nonzero], expected_p, rtol=1e-8, atol=1e-300)
        np.testing.assert_allclose(output.scores, chi2_ref(X, y), rtol=1e-10, atol=1e-12)
        order = np.lexsort((np.arange(X.shape[1]), -output.scores, constant))
        np.testing.assert_array_equal(output.ranking, order)


def test_chi2_binary_feature_is_pearson_on_the_present_row():
    # a 0/1 feature and two classes: (O - E)^2 / E over the "feature present" row of the 2 x 2 table
    y = np.array([0] * 6 + [1] * 4, dtype=np.int32)
    x = np.array([1, 1, 1, 0, 0, 0, 1, 0, 0, 0], dtype=float)
    # present: class 0 has 3, class 1 has 1; total 4; expected 4 * 6/10 = 2.4 and 4 * 4/10 = 1.6
    by_hand = (3 - 2.4) ** 2 / 2.4 + (1 - 1.6) ** 2 / 1.6
    assert chi2(x[:, None], y).scores[0] == pytest.approx(by_hand, rel=1e-14)
    assert chi2(sparse.csr_matrix(x[:, None]), y).scores[0] == pytest.approx(by_hand, rel=1e-14)


def test_chi2_all_zero_and_constant_columns_score_zero_and_rank_last():
    X, y = count_data()
    output = chi2(sparse.csc_matrix(X), y)
    assert output.scores[2] == 0.0 and output.scores[3] == 0.0
    assert output.columns["p_value"][2] == 1.0
    assert set(output.ranking[-2:]) == {2, 3}
    assert any("2 constant columns" in note for note in output.notes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(sklearn_chi2(X, y)[0][2])   # the documented difference


@pytest.mark.parametrize("kind", ["dense", "csr", "csc"])
def test_chi2_refuses_negative_values_naming_the_method(kind):
    X, y = count_data()
    X[5, 7] = -1.0
    with pytest.raises(ValueError, match=r"X: Negative values in data: method 'chi2' needs non-negative values.*column\(s\) 7 have "
                                         r"negative values"):
        chi2(formats(X)[kind], y)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(y=y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # the constant columns
        with pytest.raises(ValueError, match="method 'chi2' needs non-negative values"):
            fs.select("y ~ .", df, method="chi2", k=3)


# ------------------------------------------------------------------ the statistics themselves
def test_class_column_statistics_against_dense():
    X, y = continuous_sparse_data(n_classes=4)
    X[:, 2] = -np.abs(X[:, 2])
    statistics = class_column_statistics(sparse.csr_matrix(X), y, 5)     # class 4 has no rows
    for c in range(4):
        members = X[y == c]
        assert statistics.class_counts[c] == members.shape[0]
        np.testing.assert_array_equal(statistics.nonzero_counts[c], np.count_nonzero(members, axis=0))
        np.testing.assert_allclose(statistics.sums[c], members.sum(axis=0), rtol=1e-13)
        np.testing.assert_allclose(statistics.sums_of_squares[c], (members ** 2).sum(axis=0), rtol=1e-13)
        np.testing.assert_array_equal(statistics.minimum[c], members.min(axis=0))
        np.testing.assert_array_equal(statistics.maximum[c], members.max(axis=0))
    assert statistics.class_counts[4] == 0 and np.isnan(statistics.minimum[4]).all()
    means = statistics.means()
    centred = centred_sums_of_squares(sparse.csc_matrix(X), y, np.nan_to_num(means))
    for c in range(4):
        members = X[y == c]
        np.testing.assert_allclose(centred[c], ((members - members.mean(axis=0)) ** 2).sum(axis=0), rtol=1e-10)
    minimum, maximum = column_ranges(sparse.coo_matrix(X))
    np.testing.assert_array_equal(minimum, X.min(axis=0))
    np.testing.assert_array_equal(maximum, X.max(axis=0))


def test_value_counts_against_dense():
    X, y = count_data(n_classes=3)
    X[:, 8] = np.where(X[:, 8] > 0, -X[:, 8], 0.0)   # zero the largest value
    counts, levels = column_value_counts(sparse.csc_matrix(X), y, 3)
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        start, stop = levels.column_starts[j], levels.column_starts[j + 1]
        np.testing.assert_array_equal(levels.values[start:stop], values)
        for level, value in enumerate(values):
            expected = [np.sum((X[:, j] == value) & (y == c)) for c in range(3)]
            np.testing.assert_array_equal(counts[start + level], expected)
        zero_level = levels.zero_levels[j]
        assert (zero_level >= 0) == (0.0 in values)
        if zero_level >= 0:
            assert levels.values[zero_level] == 0.0
    X[:, 9] = np.arange(X.shape[0]) % 40
    with pytest.raises(ValueError, match=r"column\(s\) 9 have more than 32 distinct values"):
        column_value_counts(sparse.csc_matrix(X), y, 3)


def test_explicit_zeros_and_duplicates_and_the_input_is_not_modified():
    # column 0: rows 3, 0, 0 (unsorted, a duplicate, an explicit zero); column 1: an explicit zero too
    data = np.array([0.0, 1.0, 2.0, 5.0, 0.0, 1.0, 1.0])
    indices = np.array([3, 0, 0, 2, 1, 4, 3], dtype=np.int32)
    indptr = np.array([0, 3, 5, 7], dtype=np.int32)
    csc = sparse.csc_matrix((data, indices, indptr), shape=(6, 3))
    assert not csc.has_canonical_format
    before = (csc.data.copy(), csc.indices.copy(), csc.indptr.copy())
    matrix = csc
    X = matrix.toarray()
    y = np.array([0, 1, 0, 1, 0, 1], dtype=np.int32)
    canonical = as_canonical_csc(csc)
    np.testing.assert_array_equal(canonical.toarray(), X)
    np.testing.assert_array_equal(csc.data, before[0])
    np.testing.assert_array_equal(csc.indices, before[1])
    np.testing.assert_array_equal(csc.indptr, before[2])
    assert_same_output(fisher(csc, y), fisher(X, y))
    assert_same_output(chi2(csc, y), chi2(X, y))
    np.testing.assert_array_equal(sparse_mim(csc, y).scores, mim(X, y).scores)
    levels = column_levels(csc)
    np.testing.assert_array_equal(levels.counts(), [np.unique(X[:, j]).size for j in range(3)])


def test_empty_and_all_zero_matrices():
    y = np.array([0, 1] * 10, dtype=np.int32)
    zeros = sparse.csr_matrix((20, 4))                      # no stored value at all
    assert_same_output(fisher(zeros, y), fisher(np.zeros((20, 4)), y))
    assert_same_output(chi2(zeros, y), chi2(np.zeros((20, 4)), y))
    assert (fisher(zeros, y).scores == 0).all() and (chi2(zeros, y).scores == 0).all()
    np.testing.assert_array_equal(sparse_mim(zeros, y).scores, mim(np.zeros((20, 4)), y).scores)
    no_columns = sparse.csc_matrix((20, 0))
    assert fisher(no_columns, y).scores.shape == (0,)
    assert chi2(no_columns, y).scores.shape == (0,)
    with pytest.raises(ValueError, match="0 sample"):
        fs.FeatureSelector(method="fisher", k=1).fit(sparse.csr_matrix((0, 4)), np.zeros(0))
    with pytest.raises(ValueError, match="0 feature"):
        fs.FeatureSelector(method="chi2", k=1).fit(sparse.csr_matrix((20, 0)), y)


# ------------------------------------------------------------------ refusal by the other methods
@pytest.mark.parametrize("method", DENSE_ONLY)
def test_every_other_method_refuses_sparse_input(method):
    spec = get_method(method)
    X, y = count_data(n_classes=2)
    message = (rf"method '{method}' does not take sparse input \(allowed for: {', '.join(SPARSE_METHODS)}\); "
               rf"convert with X\.toarray\(\) if it fits in memory")
    with pytest.raises(TypeError, match=message):
        run_method(spec, sparse.csr_matrix(X), y, 3, spec.defaults(), 1)
    with pytest.raises(TypeError, match=message):
        fs.FeatureSelector(method=method, k=3).fit(sparse.csc_matrix(X), y)


# ------------------------------------------------------------------ the transformer
@pytest.mark.parametrize("method", ["chi2", "fisher", "pa1"])
def test_feature_selector_in_a_pipeline_on_sparse_input(method, no_densifying):
    X, y = count_data(n_classes=2 if method == "pa1" else 3)
    dense_ranking = fs.FeatureSelector(method=method, k=5).fit(X, y).ranking_
    S = sparse.csr_matrix(X)
    selector = fs.FeatureSelector(method=method, k=5).fit(S, y)
    np.testing.assert_array_equal(selector.ranking_, dense_ranking)
    reduced = selector.transform(S)
    assert sparse.issparse(reduced) and reduced.shape == (X.shape[0], 5)
    model = make_pipeline(fs.FeatureSelector(method=method, k=5), LogisticRegression(max_iter=500)).fit(S, y)
    assert model.predict(S).shape == y.shape
    assert fs.FeatureSelector(method=method).__sklearn_tags__().input_tags.sparse
    assert not fs.FeatureSelector(method="cmqfs").__sklearn_tags__().input_tags.sparse


def test_pipeline_predictions_equal_on_sparse_and_dense():
    X, y = count_data()
    dense = make_pipeline(fs.FeatureSelector(method="chi2", k=6), LogisticRegression(max_iter=1000)).fit(X, y)
    on_sparse = make_pipeline(fs.FeatureSelector(method="chi2", k=6),
                              LogisticRegression(max_iter=1000)).fit(sparse.csc_matrix(X), y)
    np.testing.assert_array_equal(on_sparse.predict(sparse.csr_matrix(X)), dense.predict(X))


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_non_finite_sparse_values_are_refused_naming_x(value):
    X, y = count_data()
    S = sparse.csr_matrix(X)
    S.data[S.indptr[10]] = value                     # row 10's first stored value
    column = S.indices[S.indptr[10]]
    with pytest.raises(ValueError, match=rf"X: non-finite values \(NaN or inf\) in column\(s\) 'x{column}'"):
        fs.FeatureSelector(method="fisher", k=3).fit(S, y)
    with pytest.raises(ValueError, match=r"X: non-finite values"):
        run_method(get_method("chi2"), S, y, 3, {}, 1)
    with pytest.raises(ValueError, match=r"X: non-finite values"):
        fisher(S, y)


# ------------------------------------------------------------------ fs.select on pandas sparse columns
def sparse_frame(X, y):
    frame = pd.DataFrame.sparse.from_spmatrix(sparse.csc_matrix(X), columns=[f"f{j}" for j in range(X.shape[1])])
    return frame.assign(y=pd.Categorical(np.array(["a", "b", "c"])[y]))


@pytest.mark.parametrize("method", ["chi2", "fisher"])
def test_select_on_a_sparse_dataframe_never_densifies(method, monkeypatch):
    X, y = count_data()
    data = sparse_frame(X, y)
    dense_data = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(y=data["y"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # the constant columns
        expected = fs.select("y ~ .", dense_data, method=method, k=4)
        _refuse_densifying(monkeypatch)
        result = fs.select("y ~ .", data, method=method, k=4)
    assert result.selected == expected.selected
    pd.testing.assert_frame_equal(result.scores, expected.scores, rtol=1e-12)


def test_select_on_a_sparse_dataframe_streaming_and_missing_values(monkeypatch):
    X, y = count_data(n_classes=2)
    data = sparse_frame(X, y)
    data["f1"] = pd.arrays.SparseArray(np.where(np.arange(len(X)) == 7, np.nan, X[:, 1]), fill_value=0.0)
    dense_data = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(y=data["y"])
    dense_data.loc[7, "f1"] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        expected = fs.select("y ~ .", dense_data, method="pa", k=4)
        _refuse_densifying(monkeypatch)
        result = fs.select("y ~ .", data, method="pa", k=4)
        assert result.n_dropped == 1
        assert result.selected == expected.selected
        with pytest.raises(ValueError, match=r"1 of 240 rows have missing values \(in column\(s\) 'f1'\)"):
            fs.select("y ~ .", data, method="pa", k=4, na_action="raise")


def test_select_on_a_sparse_dataframe_summary_and_dense_only_methods():
    X, y = count_data()
    data = sparse_frame(X[:, :8], y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = fs.select("y ~ .", data, method="chi2", k=3)
        assert "chi2" in str(result.summary())
        # a method without the 'sparse' capability still works on the (densified) frame
        assert len(fs.select("y ~ .", data, method="relieff", k=3).selected) == 3


def test_sparse_methods_never_densify(no_densifying):
    X, y = count_data(n_classes=2)
    for matrix in (sparse.csr_matrix(X), sparse.csc_array(X)):
        for method in SPARSE_METHODS:
            spec = get_method(method)
            params = dict(spec.defaults(), **({"class_names": ["a", "b"]} if method in STREAMING else {}))
            kind = "class" if "class" in spec.responses else "continuous"   # pearson: the codes as numbers
            run_method(spec, matrix, y, 3, params, 1, response_type=kind)
        sparse_mim(matrix, y)
    assert math.isfinite(fisher(sparse.csr_matrix(X), y).scores[0])


# ------------------------------------------------------------------ column_ranges (scikit-learn's min_max_axis)
def _column_ranges_former(X):
    """fstools' former column_ranges (ufunc.at over the stored entries), kept as the reference."""
    X = as_canonical_csc(X)
    n_samples, n_features = X.shape
    if n_samples == 0:
        return np.full(n_features, np.nan), np.full(n_features, np.nan)
    columns = np.repeat(np.arange(n_features, dtype=np.intp), np.diff(X.indptr))
    values = X.data
    keep = values != 0.0
    columns, values = columns[keep], values[keep]
    minimum = np.full(n_features, np.inf)
    maximum = np.full(n_features, -np.inf)
    np.minimum.at(minimum, columns, values)
    np.maximum.at(maximum, columns, values)
    has_zero = np.bincount(columns, minlength=n_features) < n_samples
    minimum[has_zero] = np.minimum(minimum[has_zero], 0.0)
    maximum[has_zero] = np.maximum(maximum[has_zero], 0.0)
    return minimum, maximum


def _with_explicit_zeros(X, rng):
    """CSC of ``X`` with some implied zeros stored explicitly."""
    coo = sparse.coo_matrix(X)
    zero_rows, zero_columns = np.nonzero(X == 0)
    pick = rng.random(zero_rows.shape[0]) < 0.3
    rows = np.concatenate([coo.row, zero_rows[pick]])
    columns = np.concatenate([coo.col, zero_columns[pick]])
    data = np.concatenate([coo.data, np.zeros(int(pick.sum()))])
    return sparse.csc_matrix((data, (rows, columns)), shape=X.shape)


@pytest.mark.parametrize("seed", range(6))
def test_column_ranges_equals_the_former_code_and_the_dense_extremes(seed):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(1, 30)), int(rng.integers(1, 12))
    X = np.where(rng.random((n, p)) < 0.3, rng.normal(size=(n, p)) * 5, 0.0)
    X[:, 0] = 0.0                                    # empty column
    if p > 1:
        X[:, 1] = -np.abs(X[:, 1]) - 1.0             # every row stored, all negative: no implied zero
    if p > 2:
        X[:, 2] = 3.0                                # constant nonzero
    matrices = {**formats(X), "explicit_zeros": _with_explicit_zeros(X, rng)}
    del matrices["dense"]
    for name, matrix in matrices.items():
        minimum, maximum = column_ranges(matrix)
        former = _column_ranges_former(matrix)
        np.testing.assert_array_equal(minimum, former[0], err_msg=name)
        np.testing.assert_array_equal(maximum, former[1], err_msg=name)
        np.testing.assert_array_equal(minimum, X.min(axis=0), err_msg=name)
        np.testing.assert_array_equal(maximum, X.max(axis=0), err_msg=name)
        assert minimum.dtype == maximum.dtype == np.float64


def test_column_ranges_edge_shapes():
    for shape in [(0, 3), (4, 0), (0, 0)]:
        for matrix in (sparse.csr_matrix(shape), sparse.csc_matrix(shape)):
            minimum, maximum = column_ranges(matrix)
            former = _column_ranges_former(matrix)
            np.testing.assert_array_equal(minimum, former[0])
            np.testing.assert_array_equal(maximum, former[1])
            assert minimum.shape == (shape[1],)
    assert np.isnan(column_ranges(sparse.csr_matrix((0, 3)))[0]).all()
    float32 = sparse.csr_matrix(np.array([[0, -2.5], [1.5, 0]], dtype=np.float32))
    np.testing.assert_array_equal(column_ranges(float32)[0], [0.0, -2.5])
    assert column_ranges(float32)[0].dtype == np.float64


# ------------------------------------------------------------------ chi2 against fstools' former computation
def _chi2_scores_former(X, y):
    """fstools' former chi2_scores (per-class sums by hand), kept as the reference of the switch to
    scikit-learn's chi2: statistic, p-value and constant mask."""
    from scipy import special
    from fstools.core.sparse import class_column_sums

    y = np.asarray(y, dtype=np.intp)
    n_samples = X.shape[0]
    n_classes = int(y.max()) + 1
    counts = np.bincount(y, minlength=n_classes)
    if sparse.issparse(X):
        X = as_canonical_csc(X)
        _, _, observed = class_column_sums(X, y, n_classes)
        minimum, maximum = column_ranges(X)
        constant = minimum == maximum
    else:
        X = np.asarray(X, dtype=np.float64)
        observed = np.zeros((n_classes, X.shape[1]))
        for c in range(n_classes):
            observed[c] = X[y == c].sum(axis=0)
        constant = np.ptp(X, axis=0) == 0
    present = counts > 0
    observed = observed[present]
    class_share = counts[present] / n_samples
    total = observed.sum(axis=0)
    expected = class_share[:, None] * total[None, :]
    scores = np.zeros(observed.shape[1])
    scored = (total > 0) & ~constant
    deviation = observed[:, scored] - expected[:, scored]
    scores[scored] = (deviation * deviation / expected[:, scored]).sum(axis=0)
    p_values = np.ones(observed.shape[1])
    p_values[scored] = special.chdtrc(int(present.sum()) - 1, scores[scored])
    return scores, p_values, constant


@pytest.mark.parametrize("seed", range(8))
def test_chi2_scores_equal_the_former_computation(seed):
    from fstools.methods.statistical import chi2_scores

    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 60))
    p = int(rng.integers(1, 15))
    n_classes = int(rng.integers(2, 5))
    y = rng.integers(0, n_classes, size=n).astype(np.int32)
    y[:2] = [0, n_classes - 1]                         # at least two classes
    if seed % 3 == 0 and n_classes > 2:
        y[y == 1] = 0                                  # a class code without rows
    X = np.where(rng.random((n, p)) < 0.4, rng.poisson(2.0, size=(n, p)), 0).astype(np.float64)
    X[:, 0] = 0.0                                      # all zero
    if p > 1:
        X[:, 1] = 2.5                                  # constant nonzero
    if p > 2:
        X[:, 2] = (rng.random(n) < 0.2)                # binary
    if p > 3:
        X[:, 3] = rng.random(n) * 1e-3                 # small frequencies
    for name, matrix in formats(X).items():
        new = chi2_scores(matrix, y)
        former = _chi2_scores_former(matrix, y)
        np.testing.assert_allclose(new[0], former[0], rtol=1e-10, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(new[1], former[1], rtol=1e-8, atol=1e-300, err_msg=name)
        np.testing.assert_array_equal(new[2], former[2], err_msg=name)
        assert (new[0][new[2]] == 0).all() and (new[1][new[2]] == 1).all()

"""The FVG modularity kernel against the brute-force graph, networkx and the paper."""
import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from networkx.algorithms.community import modularity as nx_modularity
from references.cmqfs import fvg_adjacency_ref, modularity_parts_ref, modularity_ref

from fstools._ext import _fvg
from fstools.core.arrays import standardize_columns
from fstools.methods.cmqfs import feature_vector_graph_edges, modularity_scores


def _codes(labels):
    _, codes = np.unique(labels, return_inverse=True)
    return codes.astype(np.int32).ravel()


@st.composite
def feature_and_classes(draw, max_size=28):
    """Small features with heavy ties (few distinct values) and classes of every size, including 1."""
    m = draw(st.integers(min_value=1, max_value=max_size))
    n_values = draw(st.integers(min_value=1, max_value=m))
    scale = draw(st.sampled_from([1.0, 0.5, 0.1, 1e-3, 1e6]))
    x = np.array(draw(st.lists(st.integers(0, n_values - 1), min_size=m, max_size=m)), dtype=float) * scale
    n_classes = draw(st.integers(min_value=1, max_value=min(m, 6)))
    y = _codes(draw(st.lists(st.integers(0, n_classes - 1), min_size=m, max_size=m)))
    return x, y


@settings(max_examples=400, deadline=None)
@given(feature_and_classes())
def test_parts_equal_brute_force_graph_with_ties(data):
    x, y = data
    expected = modularity_parts_ref(fvg_adjacency_ref(x, y), y)
    n_edges, within, degree = _fvg.modularity_parts(x, y, int(y.max()) + 1)
    assert n_edges == expected[0]
    np.testing.assert_array_equal(within, expected[1])
    np.testing.assert_array_equal(degree, expected[2])


@settings(max_examples=150, deadline=None)
@given(feature_and_classes())
def test_binary_search_path_equals_table_path(data):
    """Class counts by prefix table (default) and by binary search give the same graph."""
    x, y = data
    n_classes = int(y.max()) + 1
    with_table = _fvg.modularity_parts(x, y, n_classes)
    _fvg._set_class_table_cell_limit(0)
    try:
        without_table = _fvg.modularity_parts(x, y, n_classes)
    finally:
        _fvg._set_class_table_cell_limit(1 << 24)
    assert with_table[0] == without_table[0]
    np.testing.assert_array_equal(with_table[1], without_table[1])
    np.testing.assert_array_equal(with_table[2], without_table[2])


@settings(max_examples=60, deadline=None)
@given(feature_and_classes())
def test_a_table_of_few_cells_per_sample_is_built_whatever_the_limit(data):
    """With a cell limit below the table's size, a table of at most four cells per sample (four
    classes or fewer) is still built -- the rule that keeps two classes and 10^7 samples on the
    fast path -- and gives the graph of the binary search."""
    x, y = data
    n_classes = int(y.max()) + 1
    _fvg._set_class_table_cell_limit(1)
    try:
        small_limit = _fvg.modularity_parts(x, y, n_classes)
        _fvg._set_class_table_cell_limit(0)
        without_table = _fvg.modularity_parts(x, y, n_classes)
    finally:
        _fvg._set_class_table_cell_limit(1 << 24)
    assert small_limit[0] == without_table[0]
    np.testing.assert_array_equal(small_limit[1], without_table[1])
    np.testing.assert_array_equal(small_limit[2], without_table[2])


def test_continuous_random_data_many_sizes():
    rng = np.random.default_rng(7)
    for m in (2, 3, 5, 17, 60, 120):
        for n_classes in (2, 3, 5):
            y = rng.integers(0, n_classes, m).astype(np.int32)
            y = _codes(y)
            x = rng.normal(size=m)
            assert _fvg.feature_modularity(x, y, int(y.max()) + 1) == pytest.approx(modularity_ref(x, y),
                                                                                     abs=1e-12, nan_ok=True)


@settings(max_examples=100, deadline=None)
@given(feature_and_classes(max_size=20))
def test_neighbour_runs_are_the_brute_force_neighbour_sets(data):
    """Each sample's out-neighbours: the p_i - 1 nearest by (distance, index)."""
    x, y = data
    order, runs = _fvg.neighbour_runs(x, y, int(y.max()) + 1)
    sizes = np.bincount(y)
    for position in range(len(x)):
        i = order[position]
        found = sorted(int(j) for start, end in runs[position] for j in order[start:end])
        others = sorted((abs(x[i] - x[j]), j) for j in range(len(x)) if j != i)
        expected = sorted(j for _, j in others[: sizes[y[i]] - 1])
        assert found == expected


# Values whose differences round: 2**54 +- small integers (ulp 4 there), 2**53, 0..3, and the
# extremes (1e308 - (-1e308) overflows to inf; subnormals vanish next to 1).
ROUNDING_VALUES = [2.0 ** 54, 2.0 ** 54 + 4, 2.0 ** 54 - 2, 2.0 ** 53, 0.0, 1.0, 2.0, 3.0, -1.0,
                   1e308, -1e308, 5e-324, -5e-324, 1e-308]


@st.composite
def feature_with_rounded_ties(draw, max_size=20):
    """Features where distances to different values are equal only after rounding."""
    m = draw(st.integers(min_value=2, max_value=max_size))
    x = np.array(draw(st.lists(st.sampled_from(ROUNDING_VALUES), min_size=m, max_size=m)))
    n_classes = draw(st.integers(min_value=1, max_value=min(m, 4)))
    y = _codes(draw(st.lists(st.integers(0, n_classes - 1), min_size=m, max_size=m)))
    return x, y


@settings(max_examples=300, deadline=None)
@given(feature_with_rounded_ties(), st.booleans())
def test_distances_equal_after_rounding_equal_brute_force(data, use_table):
    """Equal computed distances |x_i - x_j| (even when the values differ) go to the lower index:
    parts and neighbour sets as in the brute-force graph, with and without the class table."""
    x, y = data
    n_classes = int(y.max()) + 1
    expected = modularity_parts_ref(fvg_adjacency_ref(x, y), y)
    if not use_table:
        _fvg._set_class_table_cell_limit(0)
    try:
        n_edges, within, degree = _fvg.modularity_parts(x, y, n_classes)
    finally:
        _fvg._set_class_table_cell_limit(1 << 24)
    assert n_edges == expected[0]
    np.testing.assert_array_equal(within, expected[1])
    np.testing.assert_array_equal(degree, expected[2])
    order, runs = _fvg.neighbour_runs(x, y, n_classes)
    sizes = np.bincount(y)
    for position in range(len(x)):
        i = order[position]
        found = sorted(int(j) for start, end in runs[position] for j in order[start:end])
        others = sorted((abs(float(x[i]) - float(x[j])), j) for j in range(len(x)) if j != i)
        assert found == sorted(j for _, j in others[: sizes[y[i]] - 1])


def test_rounded_tie_takes_the_lower_index():
    # |2**54 - 1| and |2**54 - 0| are both 2**54 in doubles: sample 0 (class of size 2) takes
    # the lower index, 1, although sample 2 comes first in sorted order.
    x = np.array([2.0 ** 54, 1.0, 0.0])
    y = np.array([0, 0, 1], dtype=np.int32)
    order, runs = _fvg.neighbour_runs(x, y, 2)
    position = int(np.flatnonzero(order == 0)[0])
    assert [int(j) for start, end in runs[position] for j in order[start:end]] == [1]


def test_class_count_above_sample_count_is_refused():
    with pytest.raises(ValueError, match="n_classes"):
        _fvg.modularity_parts(np.arange(4.0), np.array([0, 1, 0, 1], dtype=np.int32), 5)


def test_equals_networkx_modularity_on_explicit_graph():
    rng = np.random.default_rng(3)
    for trial in range(30):
        m = int(rng.integers(4, 40))
        y = _codes(rng.integers(0, 3, m))
        if len(np.unique(y)) < 2:
            continue
        x = np.round(rng.normal(size=m), 1)
        edges = feature_vector_graph_edges(x, y)
        graph = nx.Graph()
        graph.add_nodes_from(range(m))
        graph.add_edges_from(map(tuple, edges))
        communities = [set(np.flatnonzero(y == c).tolist()) for c in np.unique(y)]
        if graph.number_of_edges() == 0:
            continue
        expected = nx_modularity(graph, communities)
        assert _fvg.feature_modularity(x, y, int(y.max()) + 1) == pytest.approx(expected, abs=1e-12)


def test_drawn_edges_equal_brute_force_adjacency():
    rng = np.random.default_rng(11)
    x = np.round(rng.normal(size=25), 1)
    y = _codes(rng.integers(0, 2, 25))
    adjacency = fvg_adjacency_ref(x, y)
    expected = np.argwhere(np.triu(adjacency, 1))
    np.testing.assert_array_equal(feature_vector_graph_edges(x, y), expected)


def test_single_sample_classes_have_no_out_edges():
    x = np.array([0.0, 1.0, 2.0, 3.0, 10.0])
    y = np.array([0, 0, 0, 0, 1], dtype=np.int32)   # class 1 has one sample: k = 0
    n_edges, within, degree = _fvg.modularity_parts(x, y, 2)
    # Class 0: 4 samples, each links to its 3 nearest others, all in class 0 -> K4 = 6 edges.
    assert n_edges == 6
    np.testing.assert_array_equal(within, [6, 0])
    np.testing.assert_array_equal(degree, [12, 0])
    # Q = 6/6 - (12/12)^2 + 0 - 0 = 0
    assert _fvg.feature_modularity(x, y, 2) == pytest.approx(0.0)


def test_hand_computed_two_class_example():
    # x = 0, 1, 2 (class 0) and 2.5, 5, 6 (class 1); every sample links to 2 others.
    # 0: {1, 2}; 1: {0, 2}; 2: {1, 2.5}; 2.5: {2, 1}; 5: {6, 2.5}; 6: {5, 2.5}
    # Edges: 0-1, 0-2, 1-2, 2-2.5, 1-2.5, 5-6, 5-2.5, 6-2.5 -> M = 8
    # within class 0: 0-1, 0-2, 1-2 -> 3; class 1: 5-6, 5-2.5, 6-2.5 -> 3
    # degrees: class 0: 2 + 3 + 3 = 8; class 1: 4 + 2 + 2 = 8
    # Q = 2 * (3/8 - (8/16)^2) = 0.25
    x = np.array([0.0, 1.0, 2.0, 2.5, 5.0, 6.0])
    y = np.array([0, 0, 0, 1, 1, 1], dtype=np.int32)
    assert _fvg.modularity_parts(x, y, 2)[0] == 8
    assert _fvg.feature_modularity(x, y, 2) == pytest.approx(0.25)


def test_tie_rule_lower_index_first():
    # Sample 0 at 0.0 has two others at distance 1 (indices 1 and 2) and takes one
    # neighbour (class of size 2): the lower index, 1.
    x = np.array([0.0, 1.0, -1.0, 5.0])
    y = np.array([0, 1, 0, 1], dtype=np.int32)
    order, runs = _fvg.neighbour_runs(x, y, 2)
    position = int(np.flatnonzero(order == 0)[0])
    neighbours = [int(j) for start, end in runs[position] for j in order[start:end]]
    assert neighbours == [1]


def test_threads_do_not_change_scores(parallel_everywhere):
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(500, 16)), 1)
    y = _codes(rng.integers(0, 3, 500))
    one = modularity_scores(X, y, 3, n_threads=1)
    two = modularity_scores(X, y, 3, n_threads=2)
    np.testing.assert_array_equal(one, two)


@st.composite
def matrix_and_classes(draw):
    """A small (m, n_features) C-contiguous matrix with ties (and maybe constant columns), class codes."""
    m = draw(st.integers(min_value=1, max_value=24))
    n_features = draw(st.integers(min_value=1, max_value=5))
    n_values = draw(st.integers(min_value=1, max_value=m))
    cells = draw(st.lists(st.integers(0, n_values - 1), min_size=m * n_features, max_size=m * n_features))
    X = np.array(cells, dtype=float).reshape(m, n_features) * draw(st.sampled_from([1.0, 0.1, 1e6]))
    n_classes = draw(st.integers(min_value=1, max_value=min(m, 4)))
    y = _codes(draw(st.lists(st.integers(0, n_classes - 1), min_size=m, max_size=m)))
    return X, y


def _layouts(X):
    """The same logical matrix X in several memory layouts, none of them a C-contiguous copy."""
    m, n = X.shape
    wide = np.full((m, 2 * n + 1), -7.0)        # columns 1, 3, 5, ...: a column-strided view
    wide[:, 1::2] = X
    tall = np.full((2 * m, n), -7.0)            # rows 0, 2, 4, ... reversed in columns
    tall[::2] = X[:, ::-1]
    return {
        "C": X,
        "Fortran": np.asfortranarray(X),
        "column step view": wide[:, 1::2],
        "row step, reversed columns view": tall[::2, ::-1],
        "reversed rows and columns view": np.ascontiguousarray(X[::-1, ::-1])[::-1, ::-1],
        "transposed Fortran copy of X.T": np.ascontiguousarray(X.T).T,
    }


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(matrix_and_classes())
def test_scores_identical_for_every_layout_and_thread_count(parallel_everywhere, data):
    """C, Fortran and strided views, 1 and 2 threads: bitwise the same scores, equal to brute force."""
    X, y = data
    n_classes = int(y.max()) + 1
    expected = np.array([np.nan if np.ptp(X[:, j]) == 0 else modularity_ref(X[:, j], y)
                         for j in range(X.shape[1])])
    reference_bytes = None
    for name, view in _layouts(X).items():
        np.testing.assert_array_equal(view, X)
        before = view.copy()
        for threads in (1, 2):
            q = modularity_scores(view, y, n_classes, n_threads=threads)
            np.testing.assert_allclose(q, expected, rtol=0, atol=1e-12, err_msg=f"{name}, {threads} threads")
            if reference_bytes is None:
                reference_bytes = q.tobytes()
            assert q.tobytes() == reference_bytes, f"{name}, {threads} threads"
        np.testing.assert_array_equal(view, before)   # the user's data is not modified


def test_kernel_reads_every_layout_in_place():
    """The kernel entry point itself takes C, Fortran and strided (n_samples, n_features) arrays."""
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(300, 6)), 1)
    y = _codes(rng.integers(0, 3, 300))
    expected = np.array([_fvg.feature_modularity(np.ascontiguousarray(X[:, j]), y, 3) for j in range(6)])
    for name, view in _layouts(X).items():
        for threads in (1, 2):
            out = np.empty(6)
            _fvg.modularity_scores(view, y, 3, out, threads)
            assert out.tobytes() == expected.tobytes(), f"{name}, {threads} threads"


def test_no_copy_of_the_input_at_numpy_level():
    """modularity_scores makes no NumPy copy of X (the kernel's per-thread buffers are one column each)."""
    import tracemalloc

    rng = np.random.default_rng(6)
    X = rng.normal(size=(100_000, 4))
    y = _codes(rng.integers(0, 2, 100_000))
    for view in (X, np.asfortranarray(X), X[::2, ::-1]):
        tracemalloc.start()
        try:
            modularity_scores(view, y[: view.shape[0]], 2, n_threads=2)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 0.05 * view.nbytes


def test_misaligned_strides():
    """A field of a packed record array (stride 25 bytes): the wrapper copies, the kernel refuses."""
    rng = np.random.default_rng(8)
    records = np.zeros(40, dtype=[("flag", "i1"), ("values", "f8", (3,))])
    records["values"] = np.round(rng.normal(size=(40, 3)), 1)
    X = records["values"]
    y = _codes(rng.integers(0, 2, 40))
    assert X.strides[0] % 8 != 0
    np.testing.assert_array_equal(modularity_scores(X, y, 2), modularity_scores(np.ascontiguousarray(X), y, 2))
    with pytest.raises(ValueError, match="X: strides"):
        _fvg.modularity_scores(X, y, 2, np.empty(3))


def test_more_samples_than_32_bit_indices_refused():
    """m > 2**31 - 1 is refused up front with a ValueError (a zero-stride view: no memory used)."""
    X = np.lib.stride_tricks.as_strided(np.zeros(1), shape=(2 ** 31, 1), strides=(0, 8))
    y = np.zeros(4, dtype=np.int32)
    with pytest.raises(ValueError, match=r"X: 2147483648 samples.*at most 2147483647"):
        modularity_scores(X, y, 2)
    with pytest.raises(ValueError, match=r"X: 2147483648 samples"):
        _fvg.modularity_scores(X, y, 2, np.empty(1))


def test_runs_where_brute_force_cannot():
    # 20,000 samples, binary: ~10^8 edges would be needed explicitly.
    rng = np.random.default_rng(0)
    y = _codes(rng.integers(0, 2, 20000))
    informative = y + rng.normal(scale=0.5, size=20000)
    noise = rng.normal(size=20000)
    q = modularity_scores(np.column_stack([informative, noise]), y, 2)
    assert q[0] > 0.1
    assert abs(q[1]) < 0.01


def test_paper_table_1_iris():
    """Zhao et al. (2015) Table 1: Q of the four iris features on classes {1, 2}.

    The documented route reproduces all four published values to their four decimals: the 100
    rows of scikit-learn's iris as a C-ordered matrix, z-scored with the sample standard
    deviation (n - 1, MATLAB's ``zscore``, R's ``scale``) -- by NumPy over axis 0 or by
    fstools' ``standardize_columns(ddof=1)`` -- then the kernel.  Ties among distances are
    broken on the floating-point values, so the last bits of the standardisation matter (the
    raw values give another Q for feature 2, with the same ranking).
    """
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    keep = y < 2
    X = np.ascontiguousarray(X[keep])
    codes = y[keep].astype(np.int32)
    published = np.array([0.2142, 0.1824, 0.4883, 0.4828])
    numpy_route = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    for Z in (numpy_route, standardize_columns(X, ddof=1)):
        q = modularity_scores(Z, codes, 2)
        np.testing.assert_array_equal(np.round(q, 4), published)
        assert list(np.argsort(-q)) == [2, 3, 0, 1]
    assert list(np.argsort(-modularity_scores(X, codes, 2))) == [2, 3, 0, 1]  # raw values: the same ranking


def test_bad_inputs_raise_value_errors():
    x = np.array([0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="y"):
        _fvg.feature_modularity(x, np.array([0, 1], dtype=np.int32), 2)
    with pytest.raises(ValueError, match="class codes"):
        _fvg.feature_modularity(x, np.array([0, 1, 5], dtype=np.int32), 2)
    with pytest.raises(ValueError, match="n_classes"):
        _fvg.feature_modularity(x, np.array([0, 0, 0], dtype=np.int32), 0)


def test_adversarial_arrays_do_not_crash():
    assert np.isnan(_fvg.feature_modularity(np.array([]), np.array([], dtype=np.int32), 1))
    assert np.isnan(_fvg.feature_modularity(np.array([1.0]), np.array([0], dtype=np.int32), 1))
    huge = np.array([1e308, -1e308, 1e308, -1e308, 0.0, 5e307])
    y = np.array([0, 1, 0, 1, 0, 1], dtype=np.int32)
    assert np.isfinite(_fvg.feature_modularity(huge, y, 2))
    ties = np.zeros(1000)
    y = (np.arange(1000) % 2).astype(np.int32)
    assert np.isfinite(_fvg.feature_modularity(ties, y, 2))


def test_buffers_past_the_huge_page_size_give_the_same_graph_by_both_paths():
    """450,000 samples: the neighbour tables of the linear path (20 bytes a sample) and the
    runs of the sweeps (32) pass 8 MB, where the kernel asks for huge pages
    (fstools_large_malloc); both paths still count the same graph."""
    rng = np.random.default_rng(5)
    m = 450_000
    x = np.round(rng.normal(size=m), 4)   # some ties
    y = _codes(rng.integers(0, 2, m))
    linear = _fvg.modularity_parts(x, y, 2)
    _fvg._set_class_table_cell_limit(0)
    try:
        sweeps = _fvg.modularity_parts(x, y, 2)
    finally:
        _fvg._set_class_table_cell_limit(1 << 24)
    assert linear[0] == sweeps[0] > 0
    np.testing.assert_array_equal(linear[1], sweeps[1])
    np.testing.assert_array_equal(linear[2], sweeps[2])

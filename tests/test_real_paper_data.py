"""The registry, fetch() and the readers on the papers' real files (Mulan's ARFF, scikit-feature's MATLAB).

The files are byte-for-byte copies kept outside the package, in ``../shared/data/papers`` next to
the repository (or the folder ``FSTOOLS_PAPER_DATA_DIR`` names), with a ``README.md`` (where each
comes from, its shape) and ``SHA256SUMS``; a user of the package does not have them, and this
module is then skipped.  Each file is put in a temporary cache where ``fetch`` looks for it and
read offline.  The expected values come from that folder (``SHA256SUMS``, the README's shapes)
and from scipy (``scipy.io.arff.loadarff``, ``scipy.io.loadmat``), never from the registry.
"""
import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import fstools as fs
from fstools.datasets.registry import REGISTRY

PAPERS = Path(os.environ.get("FSTOOLS_PAPER_DATA_DIR")
              or Path(__file__).resolve().parents[1].parent / "shared" / "data" / "papers")
if not (PAPERS / "SHA256SUMS").is_file():
    pytest.skip(f"{PAPERS}/ is absent: the papers' real data files are not here (a checkout without "
                f"../shared/data/papers; set FSTOOLS_PAPER_DATA_DIR to a copy to run these tests)",
                allow_module_level=True)

from scipy.io import arff, loadmat  # noqa: E402 - only when the files are here

# name -> (files under PAPERS in reading order, the paths in the repository, from the README).
MULAN = "data/multi-label"
FILES = {
    "emotions": (["mulan/emotions.arff"], [f"{MULAN}/emotions/emotions.arff"]),
    "scene": (["mulan/scene-train.arff", "mulan/scene-test.arff"],
              [f"{MULAN}/scene/scene-train.arff", f"{MULAN}/scene/scene-test.arff"]),
    "yeast": (["mulan/yeast.arff"], [f"{MULAN}/yeast/yeast.arff"]),
    "genbase": (["mulan/genbase.arff"], [f"{MULAN}/genbase/genbase.arff"]),
    "coil20": (["scikit-feature/COIL20.mat"], ["files/datasets/COIL20.mat"]),
    "orl": (["scikit-feature/ORL.mat"], ["files/datasets/ORL.mat"]),
    "colon": (["scikit-feature/colon.mat"], ["files/datasets/colon.mat"]),
    "isolet": (["scikit-feature/Isolet.mat"], ["files/datasets/Isolet.mat"]),
}
# The README's tables: rows, features, labels (Mulan; genbase's 1186 features count the identifier
# `protein`, which fetch leaves out) or class sizes (scikit-feature).
ARFF_SHAPES = {"emotions": (593, 72, 6), "scene": (1211 + 1196, 294, 6), "yeast": (2417, 103, 14),
               "genbase": (662, 1186 - 1, 27)}
MAT_SHAPES = {"coil20": (1440, 1024, {c: 72 for c in range(1, 21)}),
              "orl": (400, 1024, {c: 10 for c in range(1, 41)}),
              "colon": (62, 2000, {-1: 40, 1: 22}),
              "isolet": (1560, 617, {c: 60 for c in range(1, 27)})}
COMMITS = {"mulan": "tsoumakas/mulan/43f6389", "scikit-feature": "jundongl/scikit-feature/a611fa2"}


def sums():
    table = {}
    for line in (PAPERS / "SHA256SUMS").read_text().splitlines():
        if line.strip():
            digest, relative = line.split(maxsplit=1)
            table[relative.lstrip("*")] = digest
    return table


SUMS = sums()


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A cache folder with every file copied where fetch() reads it (the first at cached_path, the
    others of a several-file set next to it)."""
    home = tmp_path_factory.mktemp("paper_cache")
    for name, (files, _) in FILES.items():
        folder = fs.datasets.cached_path(name, data_home=home).parent
        folder.mkdir(parents=True, exist_ok=True)
        for relative in files:
            shutil.copyfile(PAPERS / relative, folder / Path(relative).name)
    return home


@pytest.fixture(scope="module")
def fetched(cache):
    return {name: fs.datasets.fetch(name, data_home=cache) for name in FILES}


@pytest.fixture(scope="module")
def scipy_arff():
    """name -> (the data of each file, the meta of the first), as scipy reads them."""
    read = {}
    for name in ARFF_SHAPES:
        loaded = [arff.loadarff(str(PAPERS / relative)) for relative in FILES[name][0]]
        read[name] = ([data for data, _ in loaded], loaded[0][1])
    return read


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- the registry against the files

def test_the_copies_are_those_of_sha256sums():
    for relative, expected in SUMS.items():
        assert digest(PAPERS / relative) == expected, relative


@pytest.mark.parametrize("name", sorted(FILES))
def test_the_registry_names_the_repository_path_and_digest_of_each_file(name):
    files, repository_paths = FILES[name]
    entry = REGISTRY[name]
    assert [part.filename for part in entry.files] == [Path(f).name for f in files]
    assert [part.sha256 for part in entry.files] == [SUMS[f] for f in files]
    owner_repo, short = COMMITS[entry.source].rsplit("/", 1)
    for part, path in zip(entry.files, repository_paths):
        prefix = f"https://raw.githubusercontent.com/{owner_repo}/"
        assert part.url.startswith(prefix), part.url
        commit, _, rest = part.url[len(prefix):].partition("/")
        assert commit.startswith(short) and len(commit) == 40 and rest == path


def test_lung_and_usps_are_not_here_and_their_digest_is_unknown():
    present = {Path(relative).name.lower() for relative in SUMS}
    for name in ("lung", "usps"):
        entry = REGISTRY[name]
        assert entry.filename.lower() not in present
        assert entry.sha256 is None and not entry.checked and "digest unknown" in entry.note


@pytest.mark.parametrize("name", sorted(ARFF_SHAPES))
def test_the_registry_shape_of_each_multilabel_set_is_the_readme_s(name):
    rows, features, labels = ARFF_SHAPES[name]
    entry = REGISTRY[name]
    assert (entry.n_rows, entry.n_features, entry.n_labels, entry.n_classes) == (rows, features, labels, None)


@pytest.mark.parametrize("name", sorted(MAT_SHAPES))
def test_the_registry_shape_of_each_matlab_set_is_the_readme_s(name):
    rows, features, sizes = MAT_SHAPES[name]
    entry = REGISTRY[name]
    assert (entry.n_rows, entry.n_features, entry.n_classes) == (rows, features, len(sizes))


# ---------------------------------------------------------------- fetch() on the files, offline

@pytest.mark.parametrize("name", sorted(FILES))
def test_fetch_reads_each_set_offline_with_the_digest_of_sha256sums(fetched, name):
    files = FILES[name][0]
    expected = SUMS[files[0]] if len(files) == 1 else tuple(SUMS[f] for f in files)
    assert fetched[name].attrs["sha256"] == expected


@pytest.mark.parametrize("name", sorted(ARFF_SHAPES))
def test_a_mulan_set_agrees_with_scipy_value_for_value(fetched, scipy_arff, name):
    rows, n_features, n_labels = ARFF_SHAPES[name]
    frame = fetched[name]
    datas, meta = scipy_arff[name]
    reference = np.concatenate(datas)                      # the files' rows one after the other
    names = meta.names()
    features = [n for n in names[:-n_labels] if n != "protein"]
    labels = names[-n_labels:]
    assert frame.shape == (rows, n_features + n_labels) and len(reference) == rows
    assert frame.columns.tolist() == [fs.datasets.snake_case(n) for n in features + labels]
    assert frame.attrs["response"] == frame.columns[-n_labels:].tolist()
    for ours, theirs in zip(frame.columns, features):
        kind, values = meta[theirs]
        if kind == "numeric":
            np.testing.assert_array_equal(frame[ours].to_numpy(dtype=float), reference[theirs])
        else:                                              # nominal: scipy gives bytes
            assert frame[ours].cat.categories.tolist() == list(values)
            assert frame[ours].astype(str).tolist() == [v.decode() for v in reference[theirs]]
    Y = np.column_stack([reference[label].astype(str).astype(int) for label in labels])
    np.testing.assert_array_equal(frame.iloc[:, -n_labels:].to_numpy(), Y)
    assert (frame.iloc[:, -n_labels:].dtypes == np.int64).all()
    # the first row, spelled out: the reader starts at the first data line, not after it
    first = reference[0]
    for ours, theirs in zip(frame.columns, features + labels):
        value = first[theirs]
        expected = value.decode() if isinstance(value, bytes) else value
        got = frame[ours].iloc[0]
        assert (str(got) == expected) if isinstance(expected, str) else (got == expected), (ours, got, expected)


def test_scene_is_the_training_rows_then_the_test_rows(fetched, scipy_arff):
    train, test = scipy_arff["scene"][0]
    frame = fetched["scene"]
    column = scipy_arff["scene"][1].names()[0]
    np.testing.assert_array_equal(frame.iloc[:len(train), 0], train[column])
    np.testing.assert_array_equal(frame.iloc[len(train):, 0], test[column])
    assert frame.index.tolist() == list(range(len(train) + len(test)))


def test_genbase_leaves_out_the_protein_identifier(fetched, scipy_arff):
    (data,), meta = scipy_arff["genbase"]
    assert meta.names()[0] == "protein"
    assert len(set(data["protein"])) == len(data)          # one value per row: an identifier
    assert "protein" not in fetched["genbase"].columns
    assert "protein" in REGISTRY["genbase"].note and "dropped" in REGISTRY["genbase"].note


def label_counts(data, meta, n_labels):
    return {label: int(data[label].astype(str).astype(int).sum()) for label in meta.names()[-n_labels:]}


def test_the_notes_name_the_all_zero_and_single_row_labels(scipy_arff):
    # Every label that is all zero in a file, or positive on a single row of the whole set, is
    # named in the set's note; a set with none says so.
    for name, (_, _, n_labels) in ARFF_SHAPES.items():
        note = REGISTRY[name].note
        datas, meta = scipy_arff[name]
        whole = {}
        for relative, data in zip(FILES[name][0], datas):
            for label, count in label_counts(data, meta, n_labels).items():
                whole[label] = whole.get(label, 0) + count
                assert count > 0 or label in note, (name, relative, label)
        for label, count in whole.items():
            assert count > 1 or label in note, (name, label)
        assert min(whole.values()) > 0
        assert ("No label is all zero in the whole file" if name == "genbase" else "none all zero") in note, name
    # genbase: the labels that are all zero in a file of Mulan's train/test split
    note = REGISTRY["genbase"].note
    for relative in ("mulan/genbase-train.arff", "mulan/genbase-test.arff"):
        zero = [label for label, count in label_counts(*arff.loadarff(str(PAPERS / relative)), 27).items()
                if count == 0]
        assert zero and Path(relative).name in note
        assert all(label in note for label in zero), (relative, zero)


@pytest.mark.parametrize("name", sorted(MAT_SHAPES))
def test_a_scikit_feature_set_agrees_with_scipy(fetched, name):
    rows, n_features, sizes = MAT_SHAPES[name]
    frame = fetched[name]
    content = loadmat(str(PAPERS / FILES[name][0][0]))
    assert frame.shape == (rows, n_features + 1)
    np.testing.assert_array_equal(frame.drop(columns="class").to_numpy(), content["X"].astype(float))
    np.testing.assert_array_equal(frame["class"].to_numpy().astype(int), content["Y"].ravel().astype(int))
    assert frame["class"].value_counts().sort_index().to_dict() == sizes


def test_colon_is_discretised_and_its_note_says_so(fetched):
    values = np.unique(loadmat(str(PAPERS / "scikit-feature/colon.mat"))["X"])
    assert values.tolist() == [-2, 0, 2]
    assert np.unique(fetched["colon"].drop(columns="class").to_numpy()).tolist() == [-2.0, 0.0, 2.0]
    assert "discretised to -2, 0 and 2" in REGISTRY["colon"].note


def test_the_table_shows_the_sets_cached_with_their_digest(cache):
    table = fs.datasets.list(kind="fetchable", details=True, data_home=cache).set_index("name")
    assert table.loc[sorted(FILES), "cached"].all()
    assert (table.loc[sorted(FILES), "checksum"] == "sha256 in registry").all()
    assert fs.datasets.available("ELC", data_home=cache)["present"].all()


# ---------------------------------------------------------------- a damaged copy

@pytest.mark.parametrize("name, damaged", [("emotions", "emotions.arff"), ("scene", "scene-test.arff"),
                                           ("colon", "colon.mat")])
def test_a_tampered_copy_is_refused(tmp_path, name, damaged):
    folder = fs.datasets.cached_path(name, data_home=tmp_path).parent
    folder.mkdir(parents=True)
    for relative in FILES[name][0]:
        body = (PAPERS / relative).read_bytes()
        if Path(relative).name == damaged:
            body = body[:-2] + bytes([body[-2] ^ 1]) + body[-1:]
        (folder / Path(relative).name).write_bytes(body)
    with pytest.raises(fs.datasets.ChecksumError, match=f"{damaged}: SHA-256 .* does not match the registry's"):
        fs.datasets.fetch(name, data_home=tmp_path)

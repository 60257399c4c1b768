"""fs.datasets.fetch and list(): download, checksum, cache, offline message, and the file readers.

Nothing here touches the network: the downloads come from a local HTTP server started by the
tests (or from file: URLs), serving files the tests write.  The OpenML path runs through the real
``fetch_openml`` with name resolution or connections refused (as offline), and, for the errors a
network cannot be made to give, with ``fetch_openml`` replaced by a stand-in.  The readers are
checked against the arrays the files were written from, and the ARFF reader also against
``scipy.io.arff.loadarff``.  tests/test_real_paper_data.py checks them on the papers' real files.
"""
import hashlib
import http.server
import io
import json
import os
import pickle
import socket
import sys
import threading
import urllib.error
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import io as sio
from scipy import sparse
from sklearn.datasets import dump_svmlight_file
from sklearn.utils import Bunch

import fstools as fs
from fstools.datasets import registry
from fstools.datasets.parsers import ArffError, read_arff
from fstools.datasets.registry import DataSet, Part

# ---------------------------------------------------------------- files the tests serve

rng = np.random.default_rng(0)
X_SVM = np.round(rng.normal(size=(12, 5)), 3)
X_SVM[X_SVM < -0.5] = 0.0           # some zeros, which svmlight leaves out
Y_SVM = np.array([1, -1, 1, 1, -1, 1, 1, 1, -1, 1, 1, -1])


def svmlight_bytes():
    buffer = io.BytesIO()
    dump_svmlight_file(X_SVM, Y_SVM, buffer, zero_based=False)
    return buffer.getvalue()


# Labels are the last two attributes (Mulan's layout); rows 2 and 4 are sparse, the others dense.
MULAN_ARFF = b"""% a small multi-label file
@relation 'tiny: -C -2'
@attribute 'Mean Pitch' numeric
@attribute zcr real
@attribute colour {red,green}
@attribute happy {0,1}
@attribute 'sad' {0,1}
@data
0.5,1.25,green,1,0
{1 2.5, 3 1, 4 1}
-1.0,0,red,0,0
{0 3.0, 2 green}
2,?,red,1,1
"""
MULAN_FEATURES = np.array([[0.5, 1.25], [0.0, 2.5], [-1.0, 0.0], [3.0, 0.0], [2.0, np.nan]])
MULAN_COLOUR = ["green", "red", "red", "green", "red"]
MULAN_LABELS = np.array([[1, 0], [1, 1], [0, 0], [0, 0], [1, 1]])


class Server:
    """An HTTP server in a thread: ``routes[path] = (body, mode)``; counts the requests per path.

    mode: ``"ok"``; ``"short"`` announces more bytes than it sends; ``"drop"`` sends half the body
    and resets the connection; ``"missing"`` answers 404; ``"stall"`` sends the headers and then
    nothing until the test ends.
    """

    def __init__(self):
        self.routes, self.requests = {}, {}
        self.release = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                server.requests[self.path] = server.requests.get(self.path, 0) + 1
                if self.path not in server.routes:
                    self.send_error(404)
                    return
                body, mode = server.routes[self.path]
                if mode == "missing":
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body) + (100 if mode == "short" else 0)))
                self.end_headers()
                if mode == "stall":
                    server.release.wait(60)
                    return
                if mode == "drop":
                    self.wfile.write(body[:len(body) // 2])
                    self.wfile.flush()
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    self.connection.close()
                    return
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def serve(self, path, body, mode="ok"):
        self.routes[path] = (body, mode)
        return self.url(path)

    def close(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    running = Server()
    yield running
    running.close()


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A fresh cache folder, also set as FSTOOLS_DATA so that fetch() uses it by default."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("FSTOOLS_DATA", str(folder))
    return folder


def register(monkeypatch, name, url, fmt="svmlight", **kwargs):
    kwargs.setdefault("licence", "test licence")
    kwargs.setdefault("citation", "test citation")
    entry = DataSet(name, ("test",), kwargs.pop("source", "libsvm"), fmt, url, **kwargs)
    monkeypatch.setitem(registry.REGISTRY, name, entry)
    return entry


def closed_port_url(path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}{path}"


def leftovers(folder):
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


# ---------------------------------------------------------------- downloads

def test_a_good_download_is_read_cached_and_its_digest_recorded(server, home, monkeypatch):
    body = svmlight_bytes()
    url = server.serve("/tiny.svm", body)
    register(monkeypatch, "tiny", url)
    frame = fs.datasets.fetch("tiny")
    np.testing.assert_array_equal(frame.drop(columns="class").to_numpy(), X_SVM)
    assert frame.columns.tolist() == ["x1", "x2", "x3", "x4", "x5", "class"]
    assert isinstance(frame["class"].dtype, pd.CategoricalDtype)
    np.testing.assert_array_equal(frame["class"].to_numpy().astype(int), Y_SVM)
    digest = hashlib.sha256(body).hexdigest()
    assert frame.attrs == {"name": "tiny", "source": "LIBSVM data sets", "url": url, "licence": "test licence",
                           "citation": "test citation", "sha256": digest, "response": "class", "note": ""}
    path = fs.datasets.cached_path("tiny")
    assert path == home / "tiny" / "tiny.svm"
    assert path.read_bytes() == body
    assert (home / "tiny" / "tiny.svm.sha256").read_text().strip() == digest
    assert leftovers(home) == ["tiny.svm", "tiny.svm.sha256"]


def test_the_cache_hit_makes_no_second_request_and_refresh_downloads_again(server, home, monkeypatch):
    url = server.serve("/tiny.svm", svmlight_bytes())
    register(monkeypatch, "tiny", url)
    first = fs.datasets.fetch("tiny")
    second = fs.datasets.fetch("tiny")
    assert server.requests["/tiny.svm"] == 1
    pd.testing.assert_frame_equal(first, second)
    fs.datasets.fetch("tiny", refresh=True)
    assert server.requests["/tiny.svm"] == 2


def test_a_checksum_mismatch_is_refused_and_nothing_is_cached(server, home, monkeypatch):
    url = server.serve("/tiny.svm", svmlight_bytes())
    register(monkeypatch, "tiny", url, sha256=hashlib.sha256(b"another file").hexdigest())
    with pytest.raises(fs.datasets.ChecksumError, match="not the expected .*it was not kept"):
        fs.datasets.fetch("tiny")
    assert leftovers(home) == []


def test_a_known_checksum_is_accepted(server, home, monkeypatch):
    body = svmlight_bytes()
    register(monkeypatch, "tiny", server.serve("/tiny.svm", body), sha256=hashlib.sha256(body).hexdigest())
    assert fs.datasets.fetch("tiny").attrs["sha256"] == hashlib.sha256(body).hexdigest()


def test_a_corrupt_download_fails_the_checksum(server, home, monkeypatch):
    body = svmlight_bytes()
    corrupt = body[:10] + bytes([body[10] ^ 0xFF]) + body[11:]
    register(monkeypatch, "tiny", server.serve("/tiny.svm", corrupt), sha256=hashlib.sha256(body).hexdigest())
    with pytest.raises(fs.datasets.ChecksumError):
        fs.datasets.fetch("tiny")
    assert leftovers(home) == []


@pytest.mark.parametrize("mode", ["short", "drop"])
def test_an_interrupted_download_leaves_nothing_behind(server, home, monkeypatch, mode):
    # No checksum in the registry: only the byte count can tell that the file is incomplete.
    url = server.serve("/tiny.svm", svmlight_bytes(), mode=mode)
    register(monkeypatch, "tiny", url)
    with pytest.raises(fs.datasets.FetchError, match="nothing was kept") as caught:
        fs.datasets.fetch("tiny")
    assert url in str(caught.value)
    assert leftovers(home) == []
    server.serve("/tiny.svm", svmlight_bytes())            # the server recovers: the next call works
    assert fs.datasets.fetch("tiny").shape == (12, 6)


def test_a_server_that_stops_sending_times_out(server, home, monkeypatch):
    url = server.serve("/slow.svm", svmlight_bytes(), mode="stall")
    register(monkeypatch, "slow", url)
    with pytest.raises(fs.datasets.FetchError, match="timed out.*nothing was kept"):
        fs.datasets.fetch("slow", timeout=0.2)
    assert leftovers(home) == []


def test_an_http_error_names_the_url(server, home, monkeypatch):
    url = server.serve("/gone.svm", b"", mode="missing")
    register(monkeypatch, "gone", url)
    with pytest.raises(fs.datasets.FetchError, match="cannot download .*gone.svm.*404"):
        fs.datasets.fetch("gone")
    assert leftovers(home) == []


def test_offline_fails_with_the_manual_path_and_then_finds_the_file_there(home, monkeypatch):
    url = closed_port_url("/tiny.svm")
    register(monkeypatch, "tiny", url)
    path = fs.datasets.cached_path("tiny")
    with pytest.raises(fs.datasets.FetchError) as caught:
        fs.datasets.fetch("tiny")
    message = str(caught.value)
    assert url in message and str(path) in message and "by hand" in message
    assert leftovers(home) == []
    path.write_bytes(svmlight_bytes())                       # the user puts the file there
    frame = fs.datasets.fetch("tiny")
    np.testing.assert_array_equal(frame.drop(columns="class").to_numpy(), X_SVM)
    assert frame.attrs["sha256"] == hashlib.sha256(svmlight_bytes()).hexdigest()


def test_a_file_put_by_hand_is_checked_against_a_known_checksum(home, monkeypatch):
    register(monkeypatch, "tiny", closed_port_url("/tiny.svm"), sha256=hashlib.sha256(b"the real file").hexdigest())
    path = fs.datasets.cached_path("tiny")
    path.parent.mkdir(parents=True)
    path.write_bytes(svmlight_bytes())
    with pytest.raises(fs.datasets.ChecksumError, match="registry's"):
        fs.datasets.fetch("tiny")


def test_trust_on_first_use_detects_a_changed_cached_file(server, home, monkeypatch):
    register(monkeypatch, "tiny", server.serve("/tiny.svm", svmlight_bytes()))
    fs.datasets.fetch("tiny")
    path = fs.datasets.cached_path("tiny")
    path.write_bytes(path.read_bytes().replace(b"1:", b"2:", 1))
    with pytest.raises(fs.datasets.ChecksumError, match="recorded at first use"):
        fs.datasets.fetch("tiny")
    assert server.requests["/tiny.svm"] == 1


def test_a_set_without_public_copy_says_where_to_put_it(home, monkeypatch):
    register(monkeypatch, "micro", None, fmt="csv", source="none", target="diagnosis",
             note="no public copy known")
    path = fs.datasets.cached_path("micro")
    assert path == home / "micro" / "micro.csv"
    with pytest.raises(fs.datasets.FetchError, match="no public copy") as caught:
        fs.datasets.fetch("micro")
    assert str(path) in str(caught.value)
    path.parent.mkdir(parents=True)
    pd.DataFrame({"Gene A": [1.0, 2.0, 3.0], "diagnosis": ["x", "y", "x"], "gene-b": [0.5, 0.1, 0.2]}).to_csv(
        path, index=False)
    frame = fs.datasets.fetch("micro")
    assert frame.columns.tolist() == ["gene_a", "gene_b", "class"]
    assert frame["class"].tolist() == ["x", "y", "x"]
    np.testing.assert_array_equal(frame["gene_b"], [0.5, 0.1, 0.2])


def test_a_fetched_frame_pickles_with_its_attributes(server, home, monkeypatch):
    register(monkeypatch, "tiny", server.serve("/tiny.svm", svmlight_bytes()))
    frame = fs.datasets.fetch("tiny")
    restored = pickle.loads(pickle.dumps(frame))
    pd.testing.assert_frame_equal(restored, frame)
    assert restored.attrs == frame.attrs


# ---------------------------------------------------------------- formats

def test_a_mulan_arff_gives_predictors_and_a_label_matrix(server, home, monkeypatch):
    register(monkeypatch, "tiny_ml", server.serve("/tiny.arff", MULAN_ARFF), fmt="arff", source="mulan",
             n_labels=2)
    frame = fs.datasets.fetch("tiny_ml")
    assert frame.columns.tolist() == ["mean_pitch", "zcr", "colour", "happy", "sad"]
    np.testing.assert_array_equal(frame[["mean_pitch", "zcr"]].to_numpy(), MULAN_FEATURES)
    assert frame["colour"].astype(str).tolist() == MULAN_COLOUR
    np.testing.assert_array_equal(frame[["happy", "sad"]].to_numpy(), MULAN_LABELS)
    assert frame["happy"].dtype == np.int64
    assert frame.attrs["response"] == ["happy", "sad"]
    assert frame.attrs["source"] == "Mulan repository"


def test_sparse_arff_rows_read_as_the_same_rows_written_densely(tmp_path):
    dense = tmp_path / "dense.arff"
    dense.write_text("@relation d\n@attribute a numeric\n@attribute b numeric\n@attribute c {x,y}\n@data\n"
                     "0,2.5,x\n1.5,0,y\n0,0,x\n")
    sparse_rows = tmp_path / "sparse.arff"
    sparse_rows.write_text("@relation d\n@attribute a numeric\n@attribute b numeric\n@attribute c {x,y}\n"
                           "@data\n{1 2.5}\n{0 1.5, 2 y}\n{}\n")
    pd.testing.assert_frame_equal(read_arff(sparse_rows), read_arff(dense))
    as_sparse = read_arff(sparse_rows, sparse_output=True)
    assert isinstance(as_sparse["a"].dtype, pd.SparseDtype)
    np.testing.assert_array_equal(as_sparse[["a", "b"]].sparse.to_dense().to_numpy(), [[0, 2.5], [1.5, 0], [0, 0]])


def test_the_arff_reader_agrees_with_scipy_on_a_dense_file(tmp_path):
    path = tmp_path / "weather.arff"
    path.write_text("% comment\n@RELATION weather\n@ATTRIBUTE temperature REAL\n@ATTRIBUTE 'rel humidity' numeric\n"
                    "@ATTRIBUTE outlook {sunny, overcast, rainy}\n@DATA\n85,85,sunny\n80,?,overcast\n"
                    "72.5,95,rainy\n")
    ours = read_arff(path)
    reference, meta = sio.arff.loadarff(str(path))
    np.testing.assert_array_equal(ours["temperature"], reference["temperature"])
    np.testing.assert_array_equal(ours["rel humidity"], reference["rel humidity"])
    assert ours["outlook"].astype(str).tolist() == [v.decode() for v in reference["outlook"]]
    assert ours["outlook"].cat.categories.tolist() == list(meta["outlook"][1])


@pytest.mark.parametrize("body, message", [
    ("@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n1,2\n3\n", "line 6: 1 values for 2"),
    ("@relation r\n@attribute a {p,q}\n@data\nr\n", "line 4: attribute 'a' takes 'p', 'q'; got 'r'"),
    ("@relation r\n@attribute a numeric\n@data\n{5 1}\n", "line 4: '5 1' does not start with an attribute index"),
    ("@relation r\n@attribute a string\n@data\n", "attribute type 'string' is not supported"),
    ("@relation r\n@attribute a numeric\n", "no @data section"),
])
def test_a_malformed_arff_file_is_refused_naming_the_line(tmp_path, body, message):
    path = tmp_path / "bad.arff"
    path.write_text(body)
    with pytest.raises(ArffError, match=message):
        read_arff(path)


def test_a_scikit_feature_mat_file_through_a_file_url(tmp_path, home, monkeypatch):
    X = rng.normal(size=(6, 3))
    y = np.array([[1], [2], [2], [3], [1], [3]], dtype=np.uint8)
    source = tmp_path / "COIL.mat"
    sio.savemat(source, {"X": X, "Y": y})
    register(monkeypatch, "tiny_mat", source.as_uri(), fmt="mat", source="scikit-feature")
    frame = fs.datasets.fetch("tiny_mat")
    np.testing.assert_array_equal(frame[["x1", "x2", "x3"]].to_numpy(), X)
    assert frame["class"].tolist() == [1, 2, 2, 3, 1, 3]
    assert frame["class"].cat.categories.tolist() == [1, 2, 3]
    assert fs.datasets.cached_path("tiny_mat").name == "COIL.mat"


def test_a_mat_file_with_sparse_X_and_without_Y(tmp_path, home, monkeypatch):
    X = sparse.random(5, 4, density=0.4, random_state=1, format="csc")
    good, bad = tmp_path / "good.mat", tmp_path / "bad.mat"
    sio.savemat(good, {"X": X, "Y": np.arange(5).reshape(-1, 1)})
    sio.savemat(bad, {"X": X, "gnd": np.arange(5)})
    register(monkeypatch, "sparse_mat", good.as_uri(), fmt="mat", source="scikit-feature", sparse=True)
    frame = fs.datasets.fetch("sparse_mat")
    assert isinstance(frame["x1"].dtype, pd.SparseDtype)
    np.testing.assert_array_equal(frame.drop(columns="class").sparse.to_dense().to_numpy(), X.toarray())
    register(monkeypatch, "bad_mat", bad.as_uri(), fmt="mat", source="scikit-feature")
    with pytest.raises(ValueError, match="expected the variables X and Y; missing Y .found: X, gnd"):
        fs.datasets.fetch("bad_mat")


def test_a_bz2_svmlight_file_is_read_as_it_is_cached(tmp_path, home, monkeypatch):
    import bz2

    source = tmp_path / "tiny.bz2"
    source.write_bytes(bz2.compress(svmlight_bytes()))
    register(monkeypatch, "tiny_bz2", source.as_uri(), sparse=True)
    frame = fs.datasets.fetch("tiny_bz2")
    assert isinstance(frame["x1"].dtype, pd.SparseDtype)
    np.testing.assert_array_equal(frame.drop(columns="class").sparse.to_dense().to_numpy(), X_SVM)
    assert fs.datasets.cached_path("tiny_bz2").read_bytes() == source.read_bytes()


# ---------------------------------------------------------------- several files, dropped attributes

HEADER = (b"@relation part\n@attribute id {r1,r2,r3}\n@attribute x numeric\n@attribute a {0,1}\n"
          b"@attribute b {0,1}\n@data\n")
PART_1 = HEADER + b"r1,0.5,1,0\nr2,1.5,0,1\n"
PART_2 = HEADER + b"r3,-2,1,1\n"


def register_parts(monkeypatch, server, bodies, digests=True, drop=("id",)):
    parts = tuple(Part(server.serve(f"/set/part{i + 1}.arff", body),
                       hashlib.sha256(body).hexdigest() if digests else None) for i, body in enumerate(bodies))
    return register(monkeypatch, "two_part", server.url("/set/"), fmt="arff", source="mulan", n_labels=2,
                    parts=parts, drop=drop)


def test_a_set_of_several_files_is_their_rows_in_order_each_file_checked(server, home, monkeypatch):
    register_parts(monkeypatch, server, [PART_1, PART_2])
    frame = fs.datasets.fetch("two_part")
    assert frame.columns.tolist() == ["x", "a", "b"]           # the identifier is dropped
    np.testing.assert_array_equal(frame["x"], [0.5, 1.5, -2.0])
    np.testing.assert_array_equal(frame[["a", "b"]].to_numpy(), [[1, 0], [0, 1], [1, 1]])
    assert frame.index.tolist() == [0, 1, 2]
    assert frame.attrs["sha256"] == (hashlib.sha256(PART_1).hexdigest(), hashlib.sha256(PART_2).hexdigest())
    assert frame.attrs["response"] == ["a", "b"]
    folder = home / "two_part"
    assert fs.datasets.cached_path("two_part") == folder / "part1.arff"
    assert (folder / "part2.arff").read_bytes() == PART_2
    table = fs.datasets.list(kind="fetchable", details=True).set_index("name")
    assert table.loc["two_part", "cached"] and table.loc["two_part", "checksum"] == "sha256 in registry"
    (folder / "part2.arff").write_bytes(PART_2.replace(b"-2", b"-3"))       # a damaged part
    with pytest.raises(fs.datasets.ChecksumError, match="part2.arff.*registry's"):
        fs.datasets.fetch("two_part")


def test_a_set_of_several_files_offline_names_each_address_and_path(home, monkeypatch):
    parts = (Part(closed_port_url("/set/part1.arff"), hashlib.sha256(PART_1).hexdigest()),
             Part(closed_port_url("/set/part2.arff"), hashlib.sha256(PART_2).hexdigest()))
    register(monkeypatch, "two_part", "https://example.org/set/", fmt="arff", source="mulan", n_labels=2,
             parts=parts, drop=("id",))
    folder = home / "two_part"
    with pytest.raises(fs.datasets.FetchError) as caught:
        fs.datasets.fetch("two_part")
    message = str(caught.value)
    for part in parts:
        assert f"download {part.url} by hand and put it at {folder / part.filename}" in message
    assert "reads them from there" in message and leftovers(home) == []
    row = fs.datasets.available(None).set_index("name").loc["two_part"]
    assert not row["present"] and row["path"] == str(folder / "part1.arff")
    assert str(folder / "part1.arff") in row["how"] and str(folder / "part2.arff") in row["how"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "part1.arff").write_bytes(PART_1)        # one part by hand: the other is still missing
    assert not fs.datasets.available(None).set_index("name").loc["two_part", "present"]
    with pytest.raises(fs.datasets.FetchError) as caught:
        fs.datasets.fetch("two_part")
    assert str(folder / "part2.arff") in str(caught.value) and "part1.arff by hand" not in str(caught.value)
    (folder / "part2.arff").write_bytes(PART_2)
    assert fs.datasets.fetch("two_part").shape == (3, 3)


def test_parts_whose_attributes_differ_are_not_joined(server, home, monkeypatch):
    other = PART_2.replace(b"@attribute x numeric", b"@attribute y numeric")
    register_parts(monkeypatch, server, [PART_1, other])
    with pytest.raises(ValueError, match="part2.arff: its attributes .* are not those of .*part1.arff"):
        fs.datasets.fetch("two_part")
    nominal = PART_2.replace(b"{0,1}\n@attribute b", b"{0,1,2}\n@attribute b")
    register_parts(monkeypatch, server, [PART_1, nominal])
    with pytest.raises(ValueError, match=r"attribute 'a' is \{0, 1, 2\} there and \{0, 1\} in"):
        fs.datasets.fetch("two_part", refresh=True)


def test_an_attribute_to_drop_that_the_file_lacks_is_an_error(server, home, monkeypatch):
    register_parts(monkeypatch, server, [PART_1, PART_2], drop=("protein",))
    with pytest.raises(ValueError, match="no attribute 'protein' to leave out"):
        fs.datasets.fetch("two_part")


@pytest.mark.parametrize("kwargs, message", [
    ({"fmt": "svmlight", "parts": (Part("https://a.org/1.svm"), Part("https://a.org/2.svm"))},
     "parts: only ARFF files can be joined"),
    ({"parts": (Part("https://a.org/1.arff"),)}, "parts: must name two files or more"),
    ({"parts": (Part("https://a.org/1.arff"), Part("https://b.org/1.arff"))}, "each under its own file name"),
    ({"parts": ("https://a.org/1.arff", "https://a.org/2.arff")}, "parts: must be a tuple of Part"),
    ({"parts": (Part("https://a.org/1.arff"), Part("https://a.org/2.arff")), "sha256": "0" * 64},
     "sha256: a set read from several files has one digest per part"),
    ({"sha256": "ABC"}, "sha256: must be None or 64 lower-case hexadecimal digits"),
    ({"fmt": "mat", "drop": ("id",)}, "drop: only ARFF attributes can be dropped"),
    ({"drop": "id"}, "drop: must be a tuple of attribute names"),
])
def test_a_registry_entry_is_checked(kwargs, message):
    kwargs = {"fmt": "arff", **kwargs}
    with pytest.raises(ValueError, match=message):
        DataSet("bad", ("test",), "mulan", kwargs.pop("fmt"), "https://a.org/", "licence", "citation", **kwargs)
    with pytest.raises(ValueError, match="sha256: must be None or 64"):
        Part("https://a.org/1.arff", sha256="f" * 63)


# ---------------------------------------------------------------- OpenML

def test_an_openml_set_goes_through_fetch_openml(home, monkeypatch):
    calls = []

    def fake_fetch_openml(**kwargs):
        calls.append(kwargs)
        data = pd.DataFrame({"V 1": [1.0, 2.0, 3.0], "V2": [0.0, 1.0, 0.5]})
        return Bunch(data=data, target=pd.Series(["a", "b", "a"], name="Class"),
                     details={"licence": "Public", "id": "1"})

    monkeypatch.setattr("sklearn.datasets.fetch_openml", fake_fetch_openml)
    monkeypatch.setitem(registry.REGISTRY, "tiny_openml",
                        DataSet("tiny_openml", ("test",), "openml", "openml", "https://www.openml.org/d/1",
                                "licence", "citation", openml=("tiny", 2)))
    frame = fs.datasets.fetch("tiny_openml")
    assert [(c["name"], c["version"], c["data_home"]) for c in calls] == [("tiny", 2, str(home / "openml"))]
    assert calls[0]["n_retries"] >= 1           # 0 is refused by scikit-learn 1.9
    assert frame.columns.tolist() == ["v_1", "v2", "class"]
    assert frame["class"].tolist() == ["a", "b", "a"]
    assert frame.attrs["licence"] == "Public" and frame.attrs["source"] == "OpenML"


def _no_dns(*args, **kwargs):
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


def _refused(*args, **kwargs):
    raise ConnectionRefusedError(111, "Connection refused")


@pytest.mark.parametrize("cut, where, reason", [(_no_dns, "getaddrinfo", "gaierror"),
                                                (_refused, "create_connection", "ConnectionRefusedError")])
def test_the_real_fetch_openml_offline_names_the_page_and_the_path_then_reads_the_arff_there(
        home, monkeypatch, cut, where, reason):
    # The real sklearn.datasets.fetch_openml, with the network cut below it (no name resolution, or
    # every connection refused): whatever it raises on this scikit-learn must become a FetchError.
    import sklearn.datasets
    from sklearn.datasets import _openml

    assert sklearn.datasets.fetch_openml.__module__ == _openml.__name__
    attempts = []

    def counted(*args, **kwargs):
        attempts.append(args[0] if args else kwargs)
        return cut(*args, **kwargs)

    monkeypatch.setattr(socket, where, counted)
    path = fs.datasets.cached_path("madelon")
    with pytest.raises(fs.datasets.FetchError) as caught:
        fs.datasets.fetch("madelon")
    message = str(caught.value)
    assert attempts, "fetch_openml did not try the network"
    assert reason in message and "InvalidParameterError" not in message
    assert "https://www.openml.org/search?type=data&name=madelon" in message
    assert str(path) in message and "by hand" in message
    assert not path.exists()
    # The user puts an ARFF file at the path the message names: fetch reads it, offline.
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("@relation madelon\n@attribute V1 numeric\n@attribute V2 numeric\n@attribute Class {1,2}\n"
                    "@data\n485,477,1\n483,458,2\n487,542,1\n")
    calls = len(attempts)
    frame = fs.datasets.fetch("madelon")
    assert len(attempts) == calls
    assert frame.columns.tolist() == ["v1", "v2", "class"]
    np.testing.assert_array_equal(frame[["v1", "v2"]].to_numpy(), [[485, 477], [483, 458], [487, 542]])
    assert frame["class"].astype(str).tolist() == ["1", "2", "1"]
    assert frame.attrs["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_retry_settings_are_accepted_by_this_scikit_learn_and_no_retry_warning_escapes(home, monkeypatch):
    # scikit-learn 1.9 refuses n_retries=0 before any download: the arguments fetch() passes must
    # pass the real parameter validation (the network is cut, so the call fails after it).  The
    # "network error ... Retrying" warning of fetch_openml is left to the FetchError.
    monkeypatch.setattr(socket, "getaddrinfo", _no_dns)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(fs.datasets.FetchError, match="from OpenML.*gaierror"):
            fs.datasets.fetch("zoo")
    assert [str(w.message) for w in caught if issubclass(w.category, UserWarning)] == []


@pytest.mark.parametrize("error", [
    urllib.error.HTTPError("https://www.openml.org/api/v1/json/data/list", 412, "Precondition Failed", {}, None),
    TimeoutError("timed out"),
    json.JSONDecodeError("Expecting value", "<html>", 0),
    ValueError("md5 checksum of local file for madelon.arff does not match description"),
], ids=["http-412", "timeout", "not-json", "bad-cache"])
def test_every_error_of_fetch_openml_becomes_a_fetch_error(home, monkeypatch, error):
    from sklearn.datasets._openml import OpenMLError

    def failing(**kwargs):
        raise error

    monkeypatch.setattr("sklearn.datasets.fetch_openml", failing)
    with pytest.raises(fs.datasets.FetchError) as caught:
        fs.datasets.fetch("hill_valley")
    message = str(caught.value)
    assert "from OpenML (https://www.openml.org/search?type=data&name=hill-valley)" in message
    assert str(fs.datasets.cached_path("hill_valley")) in message
    assert caught.value.__cause__ is error

    def not_found(**kwargs):
        raise OpenMLError("No active dataset hill-valley found.")

    monkeypatch.setattr("sklearn.datasets.fetch_openml", not_found)
    with pytest.raises(fs.datasets.FetchError, match="OpenMLError: No active dataset"):
        fs.datasets.fetch("hill_valley")


def test_refresh_keeps_an_openml_arff_put_by_hand(home, monkeypatch):
    # refresh downloads again what fetch downloads; an OpenML set's ARFF file has no address to
    # download it from, so it stays, and is read.
    monkeypatch.setattr(socket, "getaddrinfo", _no_dns)
    path = fs.datasets.cached_path("zoo")
    path.parent.mkdir(parents=True)
    path.write_text("@relation zoo\n@attribute hair {false,true}\n@attribute type {mammal,bird}\n@data\n"
                    "true,mammal\nfalse,bird\n")
    frame = fs.datasets.fetch("zoo", refresh=True)
    assert frame["class"].astype(str).tolist() == ["mammal", "bird"] and path.exists()


# ---------------------------------------------------------------- list, names, cache folder

def test_list_keeps_the_bundled_names_and_adds_the_fetchable_ones():
    assert fs.datasets.list() == ["breast_cancer", "digits", "iris", "wine"]
    assert fs.datasets.list(kind="fetchable") == sorted(registry.REGISTRY)
    assert fs.datasets.list(kind="all") == sorted(fs.datasets.list() + fs.datasets.list(kind="fetchable"))
    assert {"emotions", "yeast", "coil20", "usps", "w8a", "madelon", "sonar"} <= set(fs.datasets.list("fetchable"))


def test_the_table_gives_each_bundled_shape_as_loaded():
    table = fs.datasets.list(kind="bundled", details=True).set_index("name")
    for name in table.index:
        frame = fs.datasets.load(name)
        assert (table.loc[name, "n_rows"], table.loc[name, "n_features"], table.loc[name, "n_classes"]) == (
            frame.shape[0], frame.shape[1] - 1, frame["class"].nunique())
    assert set(table["kind"]) == {"bundled"} and table["cached"].all()


def test_the_table_shows_source_checksum_and_cached(server, home, monkeypatch):
    register(monkeypatch, "tiny", server.serve("/tiny.svm", svmlight_bytes()))
    table = fs.datasets.list(kind="all", details=True).set_index("name")
    assert table.loc["emotions", "kind"] == "fetchable" and table.loc["emotions", "n_labels"] == 6
    assert table.loc["breast_a", "kind"] == "manual"
    assert table.loc["w8a", "source"] == "LIBSVM data sets" and table.loc["w8a", "papers"] == "online PA"
    # The Mulan and scikit-feature files of ../shared/data/papers have their digest in the registry
    # (tests/test_real_paper_data.py checks them); the others are trusted on first use.
    digested = {"emotions", "scene", "yeast", "genbase", "coil20", "orl", "colon", "isolet"}
    checksum = table.loc[list(registry.REGISTRY), "checksum"]
    assert set(checksum[checksum == "sha256 in registry"].index) == digested
    assert (checksum.drop(list(digested)) == "trust on first use").all()
    assert not table.loc["tiny", "cached"]
    fs.datasets.fetch("tiny")
    assert fs.datasets.list(kind="all", details=True).set_index("name").loc["tiny", "cached"]


def test_list_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="kind: must be one of 'bundled', 'fetchable', 'all'; got 'online'"):
        fs.datasets.list(kind="online")


def test_an_unknown_name_suggests_the_nearest():
    with pytest.raises(ValueError, match="name: unknown data set 'emotion'. Did you mean 'emotions'.*allowed"):
        fs.datasets.fetch("emotion")


def test_the_timeout_must_be_positive():
    with pytest.raises(ValueError, match="timeout: must be a finite number > 0; got 0"):
        fs.datasets.fetch("sonar", timeout=0)


def test_every_registry_entry_says_where_from_and_under_which_terms():
    for name, entry in registry.REGISTRY.items():
        assert name == entry.name == fs.datasets.snake_case(name)
        assert entry.licence and entry.citation and entry.papers
        assert entry.url is not None or entry.note, name
        for digest in [entry.sha256] + [part.sha256 for part in entry.parts]:
            assert digest is None or (len(digest) == 64 and int(digest, 16) >= 0), name
        assert not (entry.parts and entry.sha256), name
        if entry.multilabel:
            assert entry.n_classes is None and entry.format == "arff", name


def test_the_cache_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("FSTOOLS_DATA", str(tmp_path / "here"))
    assert fs.datasets.get_data_home() == tmp_path / "here"
    assert fs.datasets.get_data_home(tmp_path / "given") == tmp_path / "given"
    monkeypatch.delenv("FSTOOLS_DATA")
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        assert fs.datasets.get_data_home() == tmp_path / "xdg" / "fstools"
        monkeypatch.delenv("XDG_CACHE_HOME")
        assert str(fs.datasets.get_data_home()) == os.path.join(os.path.expanduser("~"), ".cache", "fstools")


def test_fetched_frames_go_straight_into_select(server, home, monkeypatch):
    register(monkeypatch, "tiny_ml", server.serve("/tiny.arff", MULAN_ARFF), fmt="arff", source="mulan",
             n_labels=2)
    labelled = fs.datasets.fetch("tiny_ml").drop(columns="colour").dropna()
    labels = labelled.attrs["response"]
    multi = fs.select("~ .", labelled.drop(columns=labels), method="ml_fisher", k=1, response=labelled[labels])
    assert multi.selected[0] in ("mean_pitch", "zcr")
    register(monkeypatch, "tiny", server.serve("/tiny.svm", svmlight_bytes()), sparse=True)
    frame = fs.datasets.fetch("tiny")
    assert isinstance(frame["x1"].dtype, pd.SparseDtype)
    result = fs.select("class ~ .", frame, method="fisher", k=2)
    dense = frame.astype({column: float for column in frame.columns[:-1]})
    assert result.selected == fs.select("class ~ .", dense, method="fisher", k=2).selected


def test_quoted_arff_names_and_values(tmp_path):
    path = tmp_path / "quoted.arff"
    path.write_text("@relation q\n@attribute \"weight (kg)\" numeric\n@attribute kind {'a b','c,d'}\n@data\n"
                    "1.5,'c,d'\n{1 'c,d'}\n2,'a b'\n")
    frame = read_arff(path)
    assert frame.columns.tolist() == ["weight (kg)", "kind"]
    assert frame["kind"].astype(str).tolist() == ["c,d", "c,d", "a b"]
    assert frame["weight (kg)"].tolist() == [1.5, 0.0, 2.0]


def test_a_downloaded_file_that_is_not_the_format_says_what_to_do(server, home, monkeypatch):
    register(monkeypatch, "page", server.serve("/page.arff", b"<html>moved</html>\n"), fmt="arff", source="mulan",
             n_labels=1)
    with pytest.raises(ValueError, match="cannot read it as the arff file of 'page'.*refresh=True"):
        fs.datasets.fetch("page")


def test_refresh_must_be_a_boolean():
    with pytest.raises(ValueError, match="refresh: must be True or False; got 'yes'"):
        fs.datasets.fetch("sonar", refresh="yes")

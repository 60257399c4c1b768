"""The data sets of the papers that fstools implements, and where each one can be fetched from.

Each :class:`DataSet` says where the public file is (an OpenML name and version for
:func:`sklearn.datasets.fetch_openml`, or the URL of a file in the LIBSVM, Mulan or
scikit-feature repository), how to read it, what the response is and under which terms the
repository distributes it.  :func:`fstools.datasets.fetch` downloads and reads an entry;
:func:`fstools.datasets.list` shows them all.

Addresses
---------
The Mulan and scikit-feature addresses name one commit of each repository (Mulan: GitHub
``tsoumakas/mulan``, branch master, commit 43f6389 of 2022-09-26; scikit-feature: GitHub
``jundongl/scikit-feature``, branch gh-pages, commit a611fa2 of 2022-04-18, folder
``files/datasets/``), so that an address always serves the bytes whose digest is recorded here;
every one of those paths is in the repository's tree at that commit.  The LIBSVM, UCI and OpenML
addresses follow each site's published layout; they were written down without a download (the
package is built and tested offline), so a moved file shows as a download error that names the
address.

Checksums
---------
``sha256`` (or, for a set read from several files, each part's ``sha256``) is the SHA-256
digest of the file as the repository serves it.  The Mulan and scikit-feature files that the
registry names have one: each was computed from a byte-for-byte copy of the file at the commit
above (the copy's git blob id is the repository's), and :func:`~fstools.datasets.fetch` checks
it on every read, of a download and of a cached file alike.  The other entries have none: the
LIBSVM, UCI and OpenML sets (``usps`` among them), and ``lung``, whose file (over 4 MiB) was not
among the copies the digests come from; a digest that has not been computed from the file must
not be written down.  For those, :func:`~fstools.datasets.fetch` works by trust on first use: the
first download's digest is recorded next to the file in the cache, and every later read of the
cached file is checked against it.

Several files
-------------
A set can be read from several files (``parts``): they are read in order and their rows put one
after the other, after a check that their headers declare the same attributes.  ``scene`` is
Mulan's ``scene-train.arff`` followed by ``scene-test.arff``: the 2407 rows of the whole set, as
the ELC paper's protocol (5-fold cross-validation on the whole set) needs, with both digests
known.  Mulan's one-file ``scene.arff`` is in the repository too, but it was not among the
copies the digests come from, and its rows may be in another order.

The papers
----------
* CMQFS: G. Zhao, Y. Wu, F. Chen, J. Zhang and J. Bai, "Effective feature selection using
  feature vector graph for classification", Neurocomputing 151, 2015 (Table 3).
* Online PA: C. Han, Y.-K. Tan, J.-H. Zhu, Y. Guo, J. Chen and Q.-Y. Wu, "Online feature
  selection of class imbalance via PA algorithm", Journal of Computer Science and Technology 31,
  2016 (Table 1).
* ELC: J. Wang, P. Xu, X. Wei, Y. Zhang and H. Ma, "Multi-label feature selection by embedding
  label correlations", Applied Sciences 10, 2020 (Table 1; Appendix B: 5-fold cross-validation
  on each whole set).
* DFS: H. Tao, C. Hou, F. Nie, Y. Jiao and D. Yi, "Effective discriminative feature selection
  with nontrivial solution", IEEE Transactions on Neural Networks and Learning Systems 27, 2016
  (Table II).

``n_rows``, ``n_features``, ``n_classes`` and ``n_labels`` are those of the repository's file
(as :func:`~fstools.datasets.fetch` returns it: ``drop`` removes identifiers) where they are
known; ``note`` says what the file contains beyond that (all-zero labels, discretised values,
an identifier) and where a paper used a subset or reports other numbers.
"""
import re
from dataclasses import dataclass

__all__ = ["DataSet", "FORMATS", "Part", "REGISTRY", "SOURCES"]

#: The file formats :func:`fstools.datasets.fetch` reads.
FORMATS = ("openml", "arff", "svmlight", "mat", "csv")

#: The commits the Mulan and scikit-feature addresses name (see the module docstring).
MULAN_COMMIT = "43f6389095ad71984264db4387a8074b22bc7d4a"
SCIKIT_FEATURE_COMMIT = "a611fa225bfd18428d3c72039ff0a464964598e2"

LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets"
MULAN = f"https://raw.githubusercontent.com/tsoumakas/mulan/{MULAN_COMMIT}"
MULAN_TREE = f"https://github.com/tsoumakas/mulan/tree/{MULAN_COMMIT}"
SCIKIT_FEATURE = f"https://raw.githubusercontent.com/jundongl/scikit-feature/{SCIKIT_FEATURE_COMMIT}/files/datasets"

LIBSVM_LICENCE = ("Not stated by the LIBSVM data page; it asks users to cite the original source of "
                  "each set and C.-C. Chang and C.-J. Lin, LIBSVM: a library for support vector "
                  "machines, ACM TIST 2, 2011.")
MULAN_LICENCE = ("Not stated by the Mulan repository; cite the original authors of the set and "
                 "G. Tsoumakas, E. Spyromitros-Xioufis, J. Vilcek and I. Vlahavas, Mulan: a Java "
                 "library for multi-label learning, JMLR 12, 2011.")
SCIKIT_FEATURE_LICENCE = ("Not stated by the scikit-feature repository; cite the original authors of "
                          "the set and J. Li, K. Cheng, S. Wang, F. Morstatter, R. P. Trevino, J. Tang "
                          "and H. Liu, Feature selection: a data perspective, ACM Computing Surveys 50, "
                          "2017.")
UCI_LICENCE = ("Creative Commons Attribution 4.0 (the licence the UCI Machine Learning Repository "
               "states for its data sets); OpenML serves the copy.")

SOURCES = {"openml": "OpenML", "libsvm": "LIBSVM data sets", "mulan": "Mulan repository",
           "scikit-feature": "scikit-feature repository", "uci": "UCI Machine Learning Repository",
           "none": "no public copy known"}

#: The note of an entry whose file was not among the copies the digests come from.
DIGEST_UNKNOWN = ("digest unknown: the file was not among the copies the registry's digests were "
                  "computed from, so fetch() trusts the first download (trust on first use)")

_SHA256 = re.compile(r"[0-9a-f]{64}")


def _check_sha256(value, name):
    if value is not None and not (isinstance(value, str) and _SHA256.fullmatch(value)):
        raise ValueError(f"{name}: must be None or 64 lower-case hexadecimal digits (a SHA-256 digest); "
                         f"got {value!r}")


@dataclass(frozen=True)
class Part:
    """One of the files a data set is read from (:attr:`DataSet.parts`).

    Attributes
    ----------
    url : str
        The file's public address; the last part of it is the file's name in the cache.
    sha256 : str or None
        The digest of the file as served; None: trust on first use.
    """

    url: str
    sha256: str | None = None

    def __post_init__(self):
        if not isinstance(self.url, str) or "/" not in self.url.rstrip("/"):
            raise ValueError(f"url: must be the address of a file; got {self.url!r}")
        _check_sha256(self.sha256, "sha256")

    @property
    def filename(self):
        """The file's name in the cache (the last part of the URL)."""
        return self.url.rstrip("/").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class DataSet:
    """One fetchable data set.

    Attributes
    ----------
    name : str
        The name :func:`~fstools.datasets.fetch` takes (snake_case).
    papers : tuple of str
        The papers that use it (``"CMQFS"``, ``"online PA"``, ``"ELC"``, ``"DFS"``).
    source : str
        A key of :data:`SOURCES`.
    format : str
        One of :data:`FORMATS`: ``"openml"`` (read by :func:`sklearn.datasets.fetch_openml`),
        ``"arff"`` (Mulan), ``"svmlight"`` (LIBSVM, optionally ``.bz2``), ``"mat"`` (a MATLAB
        file with ``X`` and ``Y``, scikit-feature) or ``"csv"``.
    url : str or None
        The file's public address (for OpenML, the data set's page; for a set read from several
        files, the repository's folder that holds them); None when no public copy is known and
        the file can only be put in the cache by hand.
    licence, citation : str
        The repository's terms for the file and the reference to cite for the data.
    openml : tuple (name, version) or None
        For ``format="openml"``: the arguments of ``fetch_openml``.
    target : str or None
        The response column of a CSV file; None for the files whose response is positional
        (svmlight, ``.mat``), OpenML's default target, the last attribute of an ARFF file, or a
        label set.
    n_labels : int or None
        Multi-label sets: the number of labels, which are the last ``n_labels`` attributes of
        the ARFF file (Mulan's convention).
    sparse : bool
        Return the numeric predictors as sparse columns (``pandas.SparseDtype``, fill value 0).
    sha256 : str or None
        The digest of the file as served; None: trust on first use (see the module docstring).
        None for a set read from several files, whose parts carry one each.
    n_rows, n_features, n_classes : int or None
        The shape of the data set as :func:`~fstools.datasets.fetch` returns it (the
        repository's file, less the ``drop`` attributes), where known (``n_classes`` None for
        multi-label).
    note : str
        What the file contains beyond its shape, how the paper's copy differs, or what to do by
        hand.
    parts : tuple of Part
        For a set read from several ARFF files: each file's address and digest, in the order
        their rows are put one after the other; empty for a set read from one file (``url``).
    drop : tuple of str
        ARFF attributes that are not predictors (identifiers), left out on read.
    """

    name: str
    papers: tuple
    source: str
    format: str
    url: str | None
    licence: str
    citation: str
    openml: tuple | None = None
    target: str | None = None
    n_labels: int | None = None
    sparse: bool = False
    sha256: str | None = None
    n_rows: int | None = None
    n_features: int | None = None
    n_classes: int | None = None
    note: str = ""
    parts: tuple = ()
    drop: tuple = ()

    def __post_init__(self):
        if self.format not in FORMATS:
            raise ValueError(f"format: must be one of {', '.join(map(repr, FORMATS))}; got {self.format!r}")
        if self.source not in SOURCES:
            raise ValueError(f"source: must be one of {', '.join(map(repr, SOURCES))}; got {self.source!r}")
        if self.format == "openml" and self.openml is None:
            raise ValueError("openml: an OpenML data set needs (name, version)")
        _check_sha256(self.sha256, "sha256")
        if not isinstance(self.parts, tuple) or not all(isinstance(part, Part) for part in self.parts):
            raise ValueError(f"parts: must be a tuple of Part; got {self.parts!r}")
        if self.parts:
            if self.format != "arff":
                raise ValueError(f"parts: only ARFF files can be joined (their headers declare every attribute); "
                                 f"got format {self.format!r}")
            if len(self.parts) < 2 or len({part.filename for part in self.parts}) != len(self.parts):
                raise ValueError("parts: must name two files or more, each under its own file name; got "
                                 + ", ".join(part.filename for part in self.parts))
            if self.url is None:
                raise ValueError("url: a set read from several files needs the address of their folder")
            if self.sha256 is not None:
                raise ValueError("sha256: a set read from several files has one digest per part (Part.sha256)")
        if not isinstance(self.drop, tuple) or not all(isinstance(name, str) for name in self.drop):
            raise ValueError(f"drop: must be a tuple of attribute names; got {self.drop!r}")
        if self.drop and self.format not in ("arff", "openml"):
            raise ValueError(f"drop: only ARFF attributes can be dropped; got format {self.format!r}")

    @property
    def files(self):
        """The files :func:`~fstools.datasets.fetch` downloads, in reading order, as :class:`Part`
        (address and digest): the ``parts``, or the one file at ``url``; empty for an OpenML set
        and for a set without a public copy (their file can only be put in the cache by hand)."""
        if self.parts:
            return self.parts
        if self.format == "openml" or self.url is None:
            return ()
        return (Part(self.url, self.sha256),)

    @property
    def filename(self):
        """The file's name in the cache (the last part of the URL; OpenML: ``<name>.arff``); for a
        set read from several files, the first one's."""
        if self.files:
            return self.files[0].filename
        return f"{self.name}.{'arff' if self.format == 'openml' else self.format}"

    @property
    def checked(self):
        """Every file :func:`~fstools.datasets.fetch` reads has a digest in the registry (else it
        trusts the first one it sees)."""
        if self.files:
            return all(part.sha256 is not None for part in self.files)
        return self.sha256 is not None

    @property
    def multilabel(self):
        return self.n_labels is not None


def _libsvm(name, path, papers, citation, **kwargs):
    return DataSet(name, papers, "libsvm", "svmlight", f"{LIBSVM}/{path}", LIBSVM_LICENCE, citation, **kwargs)


def _openml(name, openml_name, papers, citation, **kwargs):
    return DataSet(name, papers, "openml", "openml",
                   f"https://www.openml.org/search?type=data&name={openml_name}", UCI_LICENCE, citation,
                   openml=(openml_name, 1), **kwargs)


def _mulan(name, path, n_labels, citation, **kwargs):
    return DataSet(name, ("ELC",), "mulan", "arff", f"{MULAN}/{path}", MULAN_LICENCE, citation,
                   n_labels=n_labels, **kwargs)


def _scikit_feature(name, filename, citation, **kwargs):
    return DataSet(name, ("DFS",), "scikit-feature", "mat", f"{SCIKIT_FEATURE}/{filename}",
                   SCIKIT_FEATURE_LICENCE, citation, **kwargs)


_ENTRIES = [
    # CMQFS (Table 3).  Wine is the bundled ``wine``.
    _libsvm("sonar", "binary/sonar_scale", ("CMQFS",),
            "R. P. Gorman and T. J. Sejnowski, Analysis of hidden units in a layered network trained to "
            "classify sonar targets, Neural Networks 1, 1988.", n_rows=208, n_features=60, n_classes=2),
    _libsvm("svmguide2", "multiclass/svmguide2", ("CMQFS",),
            "C.-W. Hsu, C.-C. Chang and C.-J. Lin, A practical guide to support vector classification, "
            "2003.", n_rows=391, n_features=20, n_classes=3),
    _libsvm("glass", "multiclass/glass.scale", ("CMQFS",),
            "B. German, Glass identification database, UCI Machine Learning Repository, 1987.",
            n_rows=214, n_features=9, n_classes=6),
    _libsvm("vehicle", "multiclass/vehicle.scale", ("CMQFS",),
            "J. P. Siebert, Vehicle recognition using rule based methods, Turing Institute research "
            "memorandum TIRM-87-018, 1987.", n_rows=846, n_features=18, n_classes=4),
    _libsvm("letter", "multiclass/letter.scale", ("CMQFS",),
            "P. W. Frey and D. J. Slate, Letter recognition using Holland-style adaptive classifiers, "
            "Machine Learning 6, 1991.", n_rows=15000, n_features=16, n_classes=26,
            note="the paper uses 4500 rows of it"),
    _libsvm("segment", "multiclass/segment.scale", ("CMQFS",),
            "Image segmentation data, UCI Machine Learning Repository (Vision Group, University of "
            "Massachusetts), 1990.", n_rows=2310, n_features=19, n_classes=7),
    _openml("madelon", "madelon", ("CMQFS",),
            "I. Guyon, S. Gunn, A. Ben-Hur and G. Dror, Result analysis of the NIPS 2003 feature "
            "selection challenge, NIPS 17, 2005.", n_rows=2600, n_features=500,
            n_classes=2, note="OpenML's copy joins the challenge's training and validation rows; "
                              "the paper uses 2000 rows"),
    _openml("hill_valley", "hill-valley", ("CMQFS",),
            "L. Graham and F. Oppacher, Hill-Valley data set, UCI Machine Learning Repository, 2008.",
            n_rows=1212, n_features=100, n_classes=2,
            note="the paper uses 606 rows (one of the two UCI files)"),
    _openml("zoo", "zoo", ("CMQFS",),
            "R. S. Forsyth, Zoo data set, UCI Machine Learning Repository, 1990.", n_rows=101, n_classes=7),
    _openml("magic04", "MagicTelescope", ("CMQFS",),
            "R. K. Bock et al., Methods for multidimensional event classification: a case study using "
            "images from a Cherenkov gamma-ray telescope, Nuclear Instruments and Methods A 516, 2004.",
            n_rows=19020, n_features=10, n_classes=2),
    DataSet("dlbcl_c", ("CMQFS",), "none", "csv", None,
            "Not known: the CMQFS paper cites a collection of microarray sets without a public file.",
            "As cited by the CMQFS paper, its reference 39.", target="class", n_rows=58, n_features=3795,
            n_classes=4, note="no public copy known: put a CSV with a 'class' column in the cache by hand"),
    DataSet("breast_a", ("CMQFS",), "none", "csv", None,
            "Not known: the CMQFS paper cites a collection of microarray sets without a public file.",
            "As cited by the CMQFS paper, its reference 39.", target="class", n_rows=98, n_features=1213,
            n_classes=3, note="no public copy known: put a CSV with a 'class' column in the cache by hand"),
    # Online PA (Table 1): the majority class is the positive one; the paper subsamples.
    _libsvm("covtype", "binary/covtype.libsvm.binary.scale.bz2", ("online PA",),
            "J. A. Blackard and D. J. Dean, Comparative accuracies of artificial neural networks and "
            "discriminant analysis in predicting forest cover types from cartographic variables, "
            "Computers and Electronics in Agriculture 24, 1999.", n_rows=581012, n_features=54,
            n_classes=2, note="the paper samples 60 000 negative rows"),
    _libsvm("a9a", "binary/a9a", ("online PA",),
            "R. Kohavi, Scaling up the accuracy of naive-Bayes classifiers: a decision-tree hybrid, "
            "KDD, 1996.", n_rows=32561, n_features=123, n_classes=2, sparse=True,
            note="the paper's Table 1 calls it 'mnist', but its shape (24 720 + 7 841 rows, 123 features) "
                 "is LIBSVM's a9a"),
    _libsvm("usps", "multiclass/usps.bz2", ("online PA", "DFS"),
            "J. J. Hull, A database for handwritten text recognition research, IEEE TPAMI 16, 1994.",
            n_rows=7291, n_features=256, n_classes=10,
            note="online PA: digit 0 against the rest; DFS uses a balanced sample of 730 rows (scikit-feature "
                 "also has a USPS.mat, files/datasets/USPS.mat, with all 9298 rows); " + DIGEST_UNKNOWN),
    _libsvm("w7a", "binary/w7a", ("online PA",),
            "J. C. Platt, Fast training of support vector machines using sequential minimal "
            "optimization, in Advances in Kernel Methods, MIT Press, 1998.", n_rows=24692, n_features=300,
            n_classes=2, sparse=True),
    _libsvm("w8a", "binary/w8a", ("online PA",),
            "J. C. Platt, Fast training of support vector machines using sequential minimal "
            "optimization, in Advances in Kernel Methods, MIT Press, 1998.", n_rows=49749, n_features=300,
            n_classes=2, sparse=True),
    DataSet("farm_ads", ("online PA",), "uci", "svmlight",
            "https://archive.ics.uci.edu/ml/machine-learning-databases/00218/farm-ads-vect", UCI_LICENCE,
            "C. Mesterharm and M. J. Pazzani, Active learning using on-line algorithms, KDD, 2011.",
            sparse=True, n_rows=4143, n_features=54877, n_classes=2,
            note="the paper keeps 20 000 features and samples 100 negative rows"),
    # ELC (Table 1): Mulan's ARFF files, labels last; the whole sets (the paper cross-validates them).
    _mulan("emotions", "data/multi-label/emotions/emotions.arff", 6,
           "K. Trohidis, G. Tsoumakas, G. Kalliris and I. Vlahavas, Multi-label classification of music "
           "into emotions, ISMIR, 2008.", n_rows=593, n_features=72,
           sha256="6f2f790047073d1293ac0872c0d55f2dc98b6177802fc96c6b66b309dfee1e4b",
           note="72 numeric features, 6 labels, none all zero; the ELC paper's Table 1 says 539 rows, "
                "Mulan's file has 593"),
    DataSet("scene", ("ELC",), "mulan", "arff", f"{MULAN_TREE}/data/multi-label/scene", MULAN_LICENCE,
            "M. R. Boutell, J. Luo, X. Shen and C. M. Brown, Learning multi-label scene classification, "
            "Pattern Recognition 37, 2004.", n_labels=6, n_rows=2407, n_features=294,
            parts=(Part(f"{MULAN}/data/multi-label/scene/scene-train.arff",
                        "b53ba93bdf412de922e3960389bcee24744fa3e872ce610511fc1d750888b64d"),
                   Part(f"{MULAN}/data/multi-label/scene/scene-test.arff",
                        "ea38d20296b3ff7e220f477a3b802a9bcb2d768881fe6ee163efbc97ea527a42")),
            note="the whole set: the 1211 rows of Mulan's scene-train.arff, then the 1196 of scene-test.arff "
                 "(Mulan's one-file scene.arff may order them otherwise); 294 numeric features, 6 labels, none "
                 "all zero in either file; not in the ELC paper's Table 1"),
    _mulan("yeast", "data/multi-label/yeast/yeast.arff", 14,
           "A. Elisseeff and J. Weston, A kernel method for multi-labelled classification, NIPS 14, 2001.",
           n_rows=2417, n_features=103,
           sha256="55c07a3b6ff885ae338fb6987a1d57f55572b29809922c2822c4885c61230dd7",
           note="the whole set (Mulan's split is yeast-train.arff, 1500 rows, and yeast-test.arff, 917); "
                "103 numeric features, 14 labels, none all zero (the rarest, Class14, has 34 rows)"),
    _mulan("genbase", "data/multi-label/genbase/genbase.arff", 27,
           "S. Diplaris, G. Tsoumakas, P. A. Mitkas and I. Vlahavas, Protein classification with "
           "multiple algorithms, Panhellenic Conference on Informatics, 2005.", n_rows=662, n_features=1185,
           sha256="cb23052a49191e36e9a59cd661e97d79bed2e3f2583030a206692b57bf1e3671", drop=("protein",),
           note="the whole set (Mulan's split is genbase-train.arff, 463 rows, and genbase-test.arff, 199). "
                "The file's first attribute, protein, is an identifier (one value per row), not a feature: it "
                "is dropped on read, which leaves 1185 nominal predictors with the values YES and NO (declared "
                "in that order; 1073 are NO on every row); the ELC paper's Table 1 counts 1186, protein "
                "included. No label is all zero in the whole file, but PDOC50199, PDOC00660 and PDOC00653 have "
                "one positive row each (all zero in the folds without it) and PDOC00014 and PDOC50196 two; in "
                "Mulan's split, PDOC50199 and PDOC00660 are all zero in genbase-train.arff and PDOC00750, "
                "PDOC00653 and PDOC00030 in genbase-test.arff"),
    # DFS (Table II): scikit-feature's MATLAB files.
    _scikit_feature("coil20", "COIL20.mat",
                    "S. A. Nene, S. K. Nayar and H. Murase, Columbia object image library (COIL-20), "
                    "technical report CUCS-005-96, 1996.", n_rows=1440, n_features=1024, n_classes=20,
                    sha256="4595ebdda07f47b0eb014fcfaddc22b452f9aed9c1d9261a0d5bc336c1ee1344",
                    note="32 x 32 grey levels in [0, 1]; 72 rows per class"),
    _scikit_feature("orl", "ORL.mat",
                    "F. S. Samaria and A. C. Harter, Parameterisation of a stochastic model for human "
                    "face identification, IEEE Workshop on Applications of Computer Vision, 1994.",
                    n_rows=400, n_features=1024, n_classes=40,
                    sha256="e257ec36002e48688ed7f3b9fda13f479f2fd98864fa0672d1353eda1912b189",
                    note="32 x 32 grey levels stored as 8-bit integers (2 to 235 here); 10 rows per class"),
    _scikit_feature("colon", "colon.mat",
                    "U. Alon et al., Broad patterns of gene expression revealed by clustering analysis of "
                    "tumor and normal colon tissues probed by oligonucleotide arrays, PNAS 96, 1999.",
                    n_rows=62, n_features=2000, n_classes=2,
                    sha256="ffcdeba03eb67cec403fa1dc9f827c22a6e2c57786bf3e01dfe1b4b3e25e0a2f",
                    note="the values are already discretised to -2, 0 and 2 (scikit-feature's copy, not the "
                         "expression levels); classes -1 (40 rows) and 1 (22)"),
    _scikit_feature("lung", "lung.mat",
                    "A. Bhattacharjee et al., Classification of human lung carcinomas by mRNA expression "
                    "profiling reveals distinct adenocarcinoma subclasses, PNAS 98, 2001.",
                    n_rows=203, n_features=3312, n_classes=5, note=DIGEST_UNKNOWN),
    _scikit_feature("isolet", "Isolet.mat",
                    "R. Cole and M. Fanty, Spoken letter recognition, DARPA Speech and Natural Language "
                    "Workshop, 1990.", n_rows=1560, n_features=617, n_classes=26,
                    sha256="ea73c69b1342a7def8199458e53a70307a83d557eceb2579863dda57c3ccd2b1",
                    note="values in [-1, 1]; 60 rows per class; the DFS paper's ISOLET5 has 1559 rows"),
]

#: name -> :class:`DataSet`, for every fetchable set.
REGISTRY = {entry.name: entry for entry in _ENTRIES}

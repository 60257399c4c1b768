"""The data sets of the papers that fstools implements, and where each one can be fetched from.

Each :class:`DataSet` says where the public file is (an OpenML name and version for
:func:`sklearn.datasets.fetch_openml`, or the URL of a file in the LIBSVM, Mulan or
scikit-feature repository), how to read it, what the response is and under which terms the
repository distributes it.  :func:`fstools.datasets.fetch` downloads and reads an entry;
:func:`fstools.datasets.list` shows them all.

Checksums
---------
``sha256`` is the SHA-256 digest of the file as the repository serves it.  No entry has one
yet: the digests were not recorded from the real files, and a digest that has not been
computed from the file must not be written down.  Until one is, :func:`~fstools.datasets.fetch`
works by trust on first use: the first download's digest is recorded next to the file in the
cache, and every later read of the cached file is checked against it.

The papers
----------
* CMQFS: G. Zhao, Y. Wu, F. Chen, J. Zhang and J. Bai, "Effective feature selection using
  feature vector graph for classification", Neurocomputing 151, 2015 (Table 3).
* Online PA: C. Han, Y.-K. Tan, J.-H. Zhu, Y. Guo, J. Chen and Q.-Y. Wu, "Online feature
  selection of class imbalance via PA algorithm", Journal of Computer Science and Technology 31,
  2016 (Table 1).
* ELC: J. Wang, P. Xu, X. Wei, Y. Zhang and H. Ma, "Multi-label feature selection by embedding
  label correlations", Applied Sciences 10, 2020 (Table 1).
* DFS: H. Tao, C. Hou, F. Nie, Y. Jiao and D. Yi, "Effective discriminative feature selection
  with nontrivial solution", IEEE Transactions on Neural Networks and Learning Systems 27, 2016
  (Table II).

The row and column counts are those of the repository's file where they are known; where a
paper used a subset or reports other numbers, ``note`` says so.  The addresses follow each
repository's published layout; they were written down without a download (the package is built
and tested offline), so a moved file shows as a download error that names the address.
"""
from dataclasses import dataclass

__all__ = ["DataSet", "FORMATS", "REGISTRY", "SOURCES"]

#: The file formats :func:`fstools.datasets.fetch` reads.
FORMATS = ("openml", "arff", "svmlight", "mat", "csv")

LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets"
MULAN = "https://raw.githubusercontent.com/tsoumakas/mulan/master"
SCIKIT_FEATURE = "https://jundongl.github.io/scikit-feature/files/datasets"

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
        The file's public address (for OpenML, the data set's page); None when no public copy is
        known and the file can only be put in the cache by hand.
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
        Return the predictors as sparse columns (``pandas.SparseDtype``, fill value 0).
    sha256 : str or None
        The digest of the file as served; None: trust on first use (see the module docstring).
    n_rows, n_features, n_classes : int or None
        The shape of the repository's file, where known (``n_classes`` None for multi-label).
    note : str
        How the paper's copy differs, or what to do by hand.
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

    def __post_init__(self):
        if self.format not in FORMATS:
            raise ValueError(f"format: must be one of {', '.join(map(repr, FORMATS))}; got {self.format!r}")
        if self.source not in SOURCES:
            raise ValueError(f"source: must be one of {', '.join(map(repr, SOURCES))}; got {self.source!r}")
        if self.format == "openml" and self.openml is None:
            raise ValueError("openml: an OpenML data set needs (name, version)")

    @property
    def filename(self):
        """The file's name in the cache (the last part of the URL; OpenML: ``<name>.arff``)."""
        if self.format == "openml" or self.url is None:
            return f"{self.name}.{'arff' if self.format == 'openml' else self.format}"
        return self.url.rstrip("/").rsplit("/", 1)[-1]

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
            note="online PA: digit 0 against the rest; DFS uses a balanced sample of 730 rows"),
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
    # ELC (Table 1): Mulan's ARFF files, labels last.
    _mulan("emotions", "mulan/data/emotions.arff", 6,
           "K. Trohidis, G. Tsoumakas, G. Kalliris and I. Vlahavas, Multi-label classification of music "
           "into emotions, ISMIR, 2008.", n_rows=593, n_features=72,
           note="the ELC paper's Table 1 says 539 rows"),
    _mulan("scene", "data/multi-label/scene/scene-train.arff", 6,
           "M. R. Boutell, J. Luo, X. Shen and C. M. Brown, Learning multi-label scene classification, "
           "Pattern Recognition 37, 2004.", n_rows=1211, n_features=294,
           note="the training part of Mulan's split (the test part is scene-test.arff)"),
    _mulan("yeast", "data/multi-label/yeast/yeastTrain-1.arff", 14,
           "A. Elisseeff and J. Weston, A kernel method for multi-labelled classification, NIPS 14, 2001.",
           n_features=103, note="one fold of Mulan's split; the whole set (2417 rows) is in Mulan's "
                                "yeast archive: unpack it and put yeast.arff in the cache by hand"),
    _mulan("genbase", "data/multi-label/genbase/genbaseTrain-1.arff", 27,
           "S. Diplaris, G. Tsoumakas, P. A. Mitkas and I. Vlahavas, Protein classification with "
           "multiple algorithms, Panhellenic Conference on Informatics, 2005.", n_features=1186,
           sparse=True, note="one fold of Mulan's split; the whole set has 662 rows"),
    # DFS (Table II): scikit-feature's MATLAB files.
    _scikit_feature("coil20", "COIL20.mat",
                    "S. A. Nene, S. K. Nayar and H. Murase, Columbia object image library (COIL-20), "
                    "technical report CUCS-005-96, 1996.", n_rows=1440, n_features=1024, n_classes=20),
    _scikit_feature("orl", "ORL.mat",
                    "F. S. Samaria and A. C. Harter, Parameterisation of a stochastic model for human "
                    "face identification, IEEE Workshop on Applications of Computer Vision, 1994.",
                    n_rows=400, n_features=1024, n_classes=40),
    _scikit_feature("colon", "colon.mat",
                    "U. Alon et al., Broad patterns of gene expression revealed by clustering analysis of "
                    "tumor and normal colon tissues probed by oligonucleotide arrays, PNAS 96, 1999.",
                    n_rows=62, n_features=2000, n_classes=2),
    _scikit_feature("lung", "lung.mat",
                    "A. Bhattacharjee et al., Classification of human lung carcinomas by mRNA expression "
                    "profiling reveals distinct adenocarcinoma subclasses, PNAS 98, 2001.",
                    n_rows=203, n_features=3312, n_classes=5),
    _scikit_feature("isolet", "Isolet.mat",
                    "R. Cole and M. Fanty, Spoken letter recognition, DARPA Speech and Natural Language "
                    "Workshop, 1990.", n_rows=1560, n_features=617, n_classes=26,
                    note="the DFS paper's ISOLET5 has 1559 rows"),
]

#: name -> :class:`DataSet`, for every fetchable set.
REGISTRY = {entry.name: entry for entry in _ENTRIES}

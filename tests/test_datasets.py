"""Bundled data sets, the generator, and the user guide's page on the data sets."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn import datasets as sk

import fstools as fs
from fstools.datasets.registry import REGISTRY


def test_list_names_every_bundled_set():
    assert fs.datasets.list() == ["breast_cancer", "digits", "iris", "wine"]


@pytest.mark.parametrize("name, loader", [("iris", sk.load_iris), ("wine", sk.load_wine),
                                          ("breast_cancer", sk.load_breast_cancer),
                                          ("digits", sk.load_digits)])
def test_load_matches_scikit_learn_files(name, loader):
    frame = fs.datasets.load(name)
    bunch = loader()
    assert frame.shape == (bunch.data.shape[0], bunch.data.shape[1] + 1)
    assert frame.columns[-1] == "class"
    np.testing.assert_array_equal(frame.drop(columns="class").to_numpy(), bunch.data)
    assert isinstance(frame["class"].dtype, pd.CategoricalDtype)
    assert list(frame["class"].cat.categories) == [str(t) for t in bunch.target_names]
    np.testing.assert_array_equal(frame["class"].cat.codes.to_numpy(), bunch.target)
    for column in frame.columns[:-1]:
        assert column == column.lower() and column.replace("_", "").isalnum()


def test_snake_case_names():
    iris = fs.datasets.load("iris")
    assert list(iris.columns[:4]) == ["sepal_length_cm", "sepal_width_cm", "petal_length_cm", "petal_width_cm"]
    assert "od280_od315_of_diluted_wines" in fs.datasets.load("wine").columns
    assert fs.datasets.snake_case("Mean Radius (mm)") == "mean_radius_mm"


def test_unknown_name_lists_the_allowed_ones():
    with pytest.raises(ValueError, match="name: unknown data set 'sonar'.*iris.*wine"):
        fs.datasets.load("sonar")


def test_loaded_frames_are_independent():
    first = fs.datasets.load("iris")
    first.iloc[0, 0] = -1.0
    assert fs.datasets.load("iris").iloc[0, 0] == 5.1


def test_make_classification_frame_puts_informative_features_first():
    frame, informative = fs.datasets.make_classification_frame(n_samples=100, n_features=12, n_informative=3,
                                                                random_state=0)
    assert informative == ["x1", "x2", "x3"]
    X, y = sk.make_classification(n_samples=100, n_features=12, n_informative=3, n_redundant=0,
                                  shuffle=False, random_state=0)
    np.testing.assert_array_equal(frame[["x1", "x2", "x3"]].to_numpy(), X[:, :3])
    np.testing.assert_array_equal(frame["class"].cat.codes.to_numpy(), y)


DATASETS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "datasets.rst"


def test_the_user_guide_lists_every_fetchable_set_with_its_addresses():
    # The page is written by hand: every registry entry must be on it, with every address fetch()
    # downloads from (or, for an OpenML set, its page), so that the page follows the registry.
    if not DATASETS_PAGE.exists():
        pytest.skip(f"{DATASETS_PAGE} is absent (the documentation is not part of an installed package)")
    page = DATASETS_PAGE.read_text()
    for name, entry in REGISTRY.items():
        assert f"``{name}``" in page, name
        for address in [part.url for part in entry.files] or ([entry.url] if entry.url else []):
            assert address in page, (name, address)
    for name in fs.datasets.list():
        assert f"``{name}``" in page, name

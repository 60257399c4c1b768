"""``import fstools`` imports NumPy, pandas, patsy and scipy.sparse, and no heavier library.

scikit-learn, scipy.stats (with scipy.linalg and scipy.special), statsmodels, matplotlib and dask
each take longer to import than fstools itself; they are imported by the first call that needs
them.  The checks run in fresh interpreters (the test process has imported everything already)
and look at ``sys.modules``, never at the clock: ``benchmarks/bench_import.py`` measures the time.
"""
import json
import pickle
import subprocess
import sys

import pytest

import fstools as fs
from fstools.core.lazy import LazyModule
from isolated import subprocess_options

HEAVY = ["sklearn", "scipy.stats", "scipy.linalg", "scipy.special", "statsmodels", "matplotlib", "dask",
         "distributed"]

# Each step runs after the previous ones in one interpreter; the script prints, for each, the
# heavy modules that were first imported during it.
STEPS = """
import json, sys
import numpy as np, pandas as pd

HEAVY = {heavy!r}
seen = set()
new = {{}}

def step(name, code):
    exec(code, globals())
    now = {{module for module in HEAVY if module in sys.modules}}
    new[name] = sorted(now - seen)
    seen.update(now)

step("import", "import fstools as fs")
step("attributes", "public = {{name: name in vars(fs) for name in fs.__all__}}")
rng = np.random.default_rng(0)
df = pd.DataFrame(rng.normal(size=(60, 4)), columns=list("abcd"))
df["y"] = np.repeat(["p", "q", "r"], 20)
step("select", "res = fs.select('y ~ .', df, method='cmqfs', k=2); repr(res)")
step("summary", "str(res.summary())")
step("plot", "res.plot()")
step("FeatureSelector", "fs.FeatureSelector")
print(json.dumps({{"new": new, "public": public}}))
"""


@pytest.fixture(scope="module")
def steps():
    script = STEPS.format(heavy=HEAVY)
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                               **subprocess_options(MPLBACKEND="Agg"))
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.splitlines()[-1])


def test_import_fstools_imports_no_heavy_library(steps):
    assert steps["new"]["import"] == []


def test_the_public_names_are_plain_attributes_except_the_scikit_learn_estimators(steps):
    lazy = sorted(name for name, plain in steps["public"].items() if not plain)
    assert lazy == ["FeatureSelector", "MLkNN", "OnlineSelector"]


def test_select_and_its_print_import_no_heavy_library(steps):
    assert steps["new"]["select"] == []


def test_each_heavy_library_is_imported_by_the_first_call_that_needs_it(steps):
    assert {"scipy.stats", "statsmodels"} <= set(steps["new"]["summary"])  # the univariate tests, BH p
    assert "matplotlib" in steps["new"]["plot"]
    assert "sklearn" in steps["new"]["FeatureSelector"]                    # subclasses BaseEstimator


@pytest.mark.parametrize("name, module", [("FeatureSelector", "fstools.api.transformer"),
                                          ("OnlineSelector", "fstools.api.streaming"),
                                          ("MLkNN", "fstools.evaluation.mlknn")])
def test_a_lazy_estimator_is_the_class_of_its_module(name, module):
    __import__(module)
    assert getattr(fs, name) is getattr(sys.modules[module], name)
    assert name in dir(fs)


def test_every_public_name_resolves_and_an_unknown_one_is_an_attribute_error():
    namespace = {}
    exec("from fstools import *", namespace)
    assert set(fs.__all__) <= set(namespace)
    with pytest.raises(AttributeError, match="no attribute 'FeatureSelecter'"):
        fs.FeatureSelecter


def test_a_fitted_lazy_estimator_pickles():
    selector = fs.FeatureSelector(method="fisher", k=2).fit([[0.0, 1.0, 2.0], [1.0, 0.0, 2.5], [0.2, 1.1, 2.0],
                                                           [1.1, 0.1, 2.4]], [0, 1, 0, 1])
    restored = pickle.loads(pickle.dumps(selector))
    assert type(restored) is fs.FeatureSelector
    assert list(restored.get_support()) == list(selector.get_support())


def test_lazy_module_gives_the_module_attributes():
    import json as reference

    lazy = LazyModule("json")
    assert lazy.dumps is reference.dumps
    assert "imported at its first use" in repr(lazy)
    with pytest.raises(AttributeError):
        lazy.no_such_name
    with pytest.raises(ModuleNotFoundError):
        LazyModule("fstools_no_such_module").anything


def test_lazy_module_does_not_import_before_the_first_attribute():
    script = ("import sys\nfrom fstools.core.lazy import LazyModule\nstats = LazyModule('scipy.stats')\n"
              "before = 'scipy.stats' in sys.modules\nstats.norm\nprint(before, 'scipy.stats' in sys.modules)")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                               **subprocess_options())
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["False", "True"]

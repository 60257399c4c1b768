"""Importing the compiled kernels: ``from fstools._ext import _fvg``, with a build hint when one is missing."""
import importlib
import os
import pkgutil
import sys
import sysconfig
from pathlib import Path

import pytest

import fstools._ext


def test_kernels_lists_every_compiled_module():
    """KERNELS names one module per ``fstools/_ext/*.pyx`` (the .pyx files ship with the package)."""
    folder = os.path.dirname(fstools._ext.__file__)
    compiled = sorted(name[:-len(".pyx")] for name in os.listdir(folder) if name.endswith(".pyx"))
    assert sorted(fstools._ext.KERNELS) == compiled
    for name in fstools._ext.KERNELS:
        assert importlib.import_module(f"fstools._ext.{name}").__name__ == f"fstools._ext.{name}"


@pytest.mark.parametrize("name", ["_fvg", "_common"])
def test_missing_kernel_raises_import_error_with_build_hint(monkeypatch, name):
    """A kernel that cannot be imported (not built, or a shared module it cimports missing) is an
    ImportError that says how to build the package."""
    monkeypatch.delattr(fstools._ext, name, raising=False)
    monkeypatch.setitem(sys.modules, f"fstools._ext.{name}", None)  # import of a None entry fails
    with pytest.raises(ImportError, match=r"compiled kernels of fstools are missing.*build_ext --inplace"):
        exec(f"from fstools._ext import {name}", {})


def test_unknown_name_is_not_a_kernel():
    with pytest.raises(AttributeError):
        fstools._ext.not_a_kernel  # noqa: B018
    with pytest.raises(ImportError, match="cannot import name"):
        exec("from fstools._ext import not_a_kernel", {})


@pytest.mark.skipif(not os.environ.get("FSTOOLS_EXPECT_INSTALLED"),
                    reason="FSTOOLS_EXPECT_INSTALLED is not set (CI's stage 1 sets it)")
def test_the_package_under_test_is_the_installed_one():
    """CI's stage 1 runs the whole suite after ``pip install .``: the package the tests import, and
    every module of it, must come from the environment's site-packages, not from the source tree
    (stage 2 then checks that its wheel holds the same files: .ci/check_wheel.py)."""
    site = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
    package = Path(fstools.__file__).resolve().parent
    assert package.parent in site, f"fstools imported from {package}, not from {sorted(map(str, site))}"
    names = [info.name for info in pkgutil.walk_packages(fstools.__path__, prefix="fstools.")]
    assert len(names) > 50
    for name in names:
        module = importlib.import_module(name)
        assert package in Path(module.__file__).resolve().parents, (name, module.__file__)

"""Build the Cython kernels of fstools.

Every ``fstools/_ext/*.pyx`` becomes an extension module.  OpenMP is used when
the compiler accepts ``-fopenmp``; otherwise the kernels are built serial (the
``prange`` loops then run on one thread).  Set ``FSTOOLS_BOUNDSCHECK=1`` to
build with Cython bounds and wraparound checking turned on, for debugging.
"""
import os
import shutil
import sys
import tempfile
from glob import glob

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _compiler_has_openmp(compiler):
    """Return True when ``compiler`` compiles and links a program with -fopenmp."""
    if sys.platform == "win32":
        return False
    tmpdir = tempfile.mkdtemp()
    try:
        source = os.path.join(tmpdir, "omp_check.c")
        with open(source, "w") as handle:
            handle.write("#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
        objects = compiler.compile([source], output_dir=tmpdir, extra_postargs=["-fopenmp"])
        compiler.link_executable(objects, os.path.join(tmpdir, "omp_check"), extra_postargs=["-fopenmp"])
        return True
    except Exception:  # any compile or link failure means no OpenMP
        return False
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


class BuildExtWithOptionalOpenMP(build_ext):
    """``build_ext`` that adds OpenMP flags only when the compiler supports them."""

    def build_extensions(self):
        use_openmp = os.environ.get("FSTOOLS_NO_OPENMP") != "1" and _compiler_has_openmp(self.compiler)
        for extension in self.extensions:
            if use_openmp:
                extension.extra_compile_args.append("-fopenmp")
                extension.extra_link_args.append("-fopenmp")
        super().build_extensions()


BOUNDSCHECK = os.environ.get("FSTOOLS_BOUNDSCHECK") == "1"

extensions = [
    Extension(
        "fstools._ext." + os.path.splitext(os.path.basename(path))[0],
        [path],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    )
    for path in sorted(glob(os.path.join("fstools", "_ext", "*.pyx")))
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={
            "boundscheck": BOUNDSCHECK,
            "wraparound": BOUNDSCHECK,
            "cdivision": True,
            "initializedcheck": BOUNDSCHECK,
        },
    ),
    cmdclass={"build_ext": BuildExtWithOptionalOpenMP},
)

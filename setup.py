"""Build the Cython kernels of fstools.

Every ``fstools/_ext/*.pyx`` becomes an extension module; the kernels cimport the
shared declarations of ``fstools/_ext/*.pxd`` (found through ``include_path``).  OpenMP is used when
the compiler accepts ``-fopenmp``; otherwise the kernels are built serial (the
``prange`` loops then run on one thread).  Set ``FSTOOLS_BOUNDSCHECK=1`` to
build with Cython bounds and wraparound checking turned on, for debugging and CI
(``fstools._ext._build_info.bounds_checked()`` then returns True).

The two build modes never share generated files: the checked C sources go to
``build/cython-boundscheck`` (the release ones stay next to the .pyx), and a
change of mode since the last build (recorded in ``build/fstools-build-mode``)
forces every extension to be recompiled, so a stale module of the other mode is
never reused -- cythonize and build_ext only compare timestamps, not directives.
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


BOUNDSCHECK = os.environ.get("FSTOOLS_BOUNDSCHECK") == "1"
BUILD_MODE = "boundscheck" if BOUNDSCHECK else "release"
BUILD_MODE_STAMP = os.path.join("build", "fstools-build-mode")


def _last_build_mode():
    try:
        with open(BUILD_MODE_STAMP) as handle:
            return handle.read().strip()
    except OSError:
        return None


class BuildExtWithOptionalOpenMP(build_ext):
    """``build_ext`` that adds OpenMP flags only when the compiler supports them, and
    rebuilds everything when the build mode (release / boundscheck) has changed."""

    def run(self):
        if _last_build_mode() != BUILD_MODE:
            self.force = True
        super().run()
        os.makedirs(os.path.dirname(BUILD_MODE_STAMP), exist_ok=True)
        with open(BUILD_MODE_STAMP, "w") as handle:
            handle.write(BUILD_MODE + "\n")

    def build_extensions(self):
        use_openmp = os.environ.get("FSTOOLS_NO_OPENMP") != "1" and _compiler_has_openmp(self.compiler)
        for extension in self.extensions:
            if use_openmp:
                extension.extra_compile_args.append("-fopenmp")
                extension.extra_link_args.append("-fopenmp")
        super().build_extensions()


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
        # where ``cimport fstools._ext._common`` (and the other shared .pxd) is found,
        # whatever the working directory and wherever the C sources go
        include_path=[os.path.dirname(os.path.abspath(__file__))],
        # checked C sources apart from the release ones, regenerated on every checked build
        build_dir=os.path.join("build", "cython-boundscheck") if BOUNDSCHECK else None,
        force=BOUNDSCHECK or _last_build_mode() != BUILD_MODE,
        compiler_directives={
            "boundscheck": BOUNDSCHECK,
            "wraparound": BOUNDSCHECK,
            "cdivision": True,
            "initializedcheck": BOUNDSCHECK,
        },
    ),
    cmdclass={"build_ext": BuildExtWithOptionalOpenMP},
)

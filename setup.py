"""Build the Cython kernels of fstools.

Every ``fstools/_ext/*.pyx`` becomes an extension module; the kernels cimport the
shared declarations of ``fstools/_ext/*.pxd`` (found through ``include_path``).  OpenMP is used when
the compiler accepts ``-fopenmp``; otherwise the kernels are built serial (the
``prange`` loops then run on one thread).  Set ``FSTOOLS_BOUNDSCHECK=1`` to
build with Cython bounds and wraparound checking turned on, for debugging and CI
(``fstools._ext._build_info.bounds_checked()`` then returns True).

The build runs in parallel, one job per usable core (``-j N`` overrides it): Cython translates
the .pyx files to C in that many processes, then the compiler builds that many extensions at a
time.  Both steps run in ``build_ext``, so ``pip install .`` translates each kernel once (not
again for each of pip's metadata steps), and each prints a line per kernel (``pip install -v``
shows them).

A build reuses what an earlier build of the same tree left, so ``pip install ".[test]"`` after
``pip install .`` compiles nothing.  What is reused, and when:

* the C source of a kernel (next to its .pyx; the checked ones in ``build/cython-boundscheck``)
  when it is newer than the .pyx, every ``fstools/_ext/*.pxd`` and this file (its directives
  and flags).  Cython's own check cannot decide this under pip: it also compares with the .pxd
  files of Cython and NumPy, which every isolated build environment installs anew.
* the compiled module in ``build/lib.*`` when it is newer than its C source (setuptools' check).
* everything else a kernel depends on -- the mode (release or checked), the Cython and NumPy
  versions, ``FSTOOLS_NO_OPENMP`` -- is recorded in ``build/fstools-build-stamp``; a change
  translates and compiles every kernel again, so the two build modes never reuse each other's
  files.

Cython's utility code that every kernel would otherwise carry (typed memoryviews above all: about
1 MB of C per module) is generated once, into the module ``fstools._ext._cyutility``, which the
kernels import (Cython's shared utility module, Cython >= 3.1).  That C is a third of what the
compiler reads: compiling ``_build_info`` fell from 14.6 s to 1.7 s, ``_moments`` from 33.7 s to
20.8 s (-O3), plus 10.4 s once for the shared module.
"""
import os
import shutil
import sys
import tempfile
import threading
import time
from glob import glob

import Cython
import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

BOUNDSCHECK = os.environ.get("FSTOOLS_BOUNDSCHECK") == "1"
KERNEL_DIR = os.path.join("fstools", "_ext")
BUILD_STAMP = os.path.join("build", "fstools-build-stamp")
# the checked C sources apart from the release ones (which stay next to the .pyx)
C_SOURCE_DIR = os.path.join("build", "cython-boundscheck") if BOUNDSCHECK else None
# the module of the utility code the kernels share (Cython generates its C; it has no .pyx)
SHARED_UTILITY = "fstools._ext._cyutility"


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


def _build_stamp():
    """What the kernels depend on besides their own sources; a change rebuilds all of them."""
    return (f"mode={'boundscheck' if BOUNDSCHECK else 'release'} Cython={Cython.__version__} "
            f"NumPy={np.__version__} FSTOOLS_NO_OPENMP={os.environ.get('FSTOOLS_NO_OPENMP', '')}")


def _last_build_stamp():
    try:
        with open(BUILD_STAMP) as handle:
            return handle.read().strip()
    except OSError:
        return None


def _c_source(pyx):
    """Where Cython writes the C source of ``pyx`` in this build mode."""
    c_source = os.path.splitext(pyx)[0] + ".c"
    return os.path.join(C_SOURCE_DIR, c_source) if C_SOURCE_DIR else c_source


def _c_source_is_current(extension):
    """True when the C source of ``extension`` is newer than its .pyx, every shared .pxd and this
    file (the Cython directives and the compiler flags); the shared utility module's, newer than
    this file (what else it depends on, the Cython version, is in the build stamp)."""
    source = extension.sources[0]
    c_source = _c_source(source)
    if not os.path.exists(c_source):
        return False
    inputs = [os.path.abspath(__file__)]
    if extension.name != SHARED_UTILITY:
        inputs += [source] + glob(os.path.join(KERNEL_DIR, "*.pxd"))
    return os.path.getmtime(c_source) > max(os.path.getmtime(path) for path in inputs)


def _usable_cores():
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class BuildKernels(build_ext):
    """``build_ext`` that translates and compiles the kernels in parallel, reuses what is up to
    date (module docstring), and adds OpenMP flags only when the compiler supports them."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:  # no -j: one job per usable core
            self.parallel = _usable_cores()

    def run(self):
        start = time.perf_counter()
        if _last_build_stamp() != _build_stamp():
            self.force = True
        self._translate()
        super().run()
        os.makedirs(os.path.dirname(BUILD_STAMP), exist_ok=True)
        with open(BUILD_STAMP, "w") as handle:
            handle.write(_build_stamp() + "\n")
        reused = len(self.extensions) - self._compiled
        print(f"fstools: kernels built in {time.perf_counter() - start:.0f} s: {self._compiled} compiled, "
              f"{reused} reused from build/", flush=True)

    def _translate(self):
        """Each kernel's .pyx to C, the stale ones by Cython in ``self.parallel`` processes."""
        stale = [extension for extension in self.extensions
                 if self.force or not _c_source_is_current(extension)]
        print(f"fstools: Cython translates {len(stale)} of {len(self.extensions)} kernels to C, "
              f"{self.parallel} at a time", flush=True)
        translated = cythonize(
            stale,
            nthreads=self.parallel if self.parallel > 1 else 0,
            language_level=3,
            # where ``cimport fstools._ext._common`` (and the other shared .pxd) is found,
            # whatever the working directory and wherever the C sources go
            include_path=[os.path.dirname(os.path.abspath(__file__))],
            build_dir=C_SOURCE_DIR,
            force=True,  # the stale ones, as decided above
            shared_utility_qualified_name=SHARED_UTILITY,
            compiler_directives={
                "boundscheck": BOUNDSCHECK,
                "wraparound": BOUNDSCHECK,
                "cdivision": True,
                "initializedcheck": BOUNDSCHECK,
            },
        ) if stale else []
        c_sources = {extension.name: extension.sources for extension in translated}
        for extension in self.extensions:
            extension.sources = c_sources.get(extension.name, [_c_source(extension.sources[0])])

    def build_extensions(self):
        use_openmp = os.environ.get("FSTOOLS_NO_OPENMP") != "1" and _compiler_has_openmp(self.compiler)
        for extension in self.extensions:
            if use_openmp:
                extension.extra_compile_args.append("-fopenmp")
                extension.extra_link_args.append("-fopenmp")
        # the largest C first, so that the longest compilation does not start last
        self.extensions.sort(key=lambda extension: -os.path.getsize(extension.sources[0]))
        self._compiled = 0
        self._lock = threading.Lock()
        print(f"fstools: the C compiler builds the kernels whose C changed, {self.parallel} at a time "
              f"({'with' if use_openmp else 'without'} OpenMP)", flush=True)
        super().build_extensions()

    def build_extension(self, ext):
        """Build one kernel (in a thread of the parallel build); say so when it was compiled."""
        path = self.get_ext_fullpath(ext.name)
        before = os.path.getmtime(path) if os.path.exists(path) else None
        start = time.perf_counter()
        super().build_extension(ext)
        if os.path.exists(path) and os.path.getmtime(path) != before:
            with self._lock:
                self._compiled += 1
                print(f"fstools: compiled {ext.name} in {time.perf_counter() - start:.0f} s", flush=True)


# Flags of single kernels.  _discretize and _sorting reproduce NumPy's arithmetic bit for bit
# (mu + t * sigma, gain - beta * running: rounded twice, as two ufuncs do): the compiler must not
# contract a * b + c into a fused multiply-add, which it may do when the target has one (e.g.
# CFLAGS=-march=native, or aarch64).  _one_pass: the same sums whatever the target, so that its
# moments do not change with the compiler's choice of instructions.
KERNEL_FLAGS = {"_discretize": ["-ffp-contract=off"], "_sorting": ["-ffp-contract=off"],
                "_one_pass": ["-ffp-contract=off"]}


def _extension(name, source):
    """The extension module ``name`` compiled from ``source`` (a .pyx, or the shared module's C)."""
    return Extension(
        name,
        [source],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        # no debug information in a release build: it is a fifth of the compile time, and the
        # checked build (FSTOOLS_BOUNDSCHECK=1) is the one to debug; that build is optimised at
        # -O1 only (half the compile time of -O3, 17 s against 36 s for _bitcount.c): it is made
        # to find out-of-range indices, not for speed, and the checks are Cython's at any level
        extra_compile_args=(["-O1"] if BOUNDSCHECK else ["-O3", "-g0"])
        + KERNEL_FLAGS.get(name.rsplit(".", 1)[1], []),
    )


extensions = [_extension("fstools._ext." + os.path.splitext(os.path.basename(path))[0], path)
              for path in sorted(glob(os.path.join(KERNEL_DIR, "*.pyx")))]
extensions.append(_extension(SHARED_UTILITY, SHARED_UTILITY.replace(".", os.sep) + ".c"))

if __name__ == "__main__":  # not when Cython's worker processes import this file (spawn, forkserver)
    setup(ext_modules=extensions, cmdclass={"build_ext": BuildKernels})

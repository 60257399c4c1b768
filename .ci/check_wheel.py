"""Check that a wheel holds the whole package: every file git tracks under ``fstools/`` and one
compiled module for each kernel.

    python .ci/check_wheel.py ROOT WHEEL

ROOT: the git checkout; WHEEL: the ``fstools-*.whl`` built from it.  Stage 1 of CI runs the whole
test suite against the package that ``pip install .`` put into its environment (the tests import
it from site-packages, not from the tree: FSTOOLS_EXPECT_INSTALLED); stage 2 builds the wheel
that stages 4 and 5 install, and this check says that it is the same package: every tracked
``.py``, ``.pyx`` and ``.pxd`` file, and an extension module (``.so`` or ``.pyd``) for every
``fstools/_ext/*.pyx`` and for the utility code the kernels share (``fstools/_ext/_cyutility``,
which Cython generates: it has no .pyx).  Exits with status 1 and the list of what is missing
otherwise.
"""
import os
import subprocess
import sys
import zipfile

#: The module of Cython's utility code that every kernel imports (setup.py's SHARED_UTILITY).
SHARED_UTILITY = "fstools/_ext/_cyutility"


def main(root, wheel):
    tracked = subprocess.run(["git", "-C", root, "ls-files", "fstools"], check=True,
                             capture_output=True, text=True).stdout.split()
    with zipfile.ZipFile(wheel) as archive:
        members = set(archive.namelist())
    missing = sorted(set(tracked) - members)
    kernels = [path[:-len(".pyx")] for path in tracked if path.endswith(".pyx")]
    kernels.append(SHARED_UTILITY)
    for kernel in kernels:
        folder, name = os.path.split(kernel)
        compiled = [member for member in members
                    if os.path.dirname(member) == folder
                    and os.path.basename(member).split(".")[0] == name
                    and member.endswith((".so", ".pyd"))]
        if len(compiled) != 1:
            missing.append(f"{kernel}.*.so (the compiled {name}; found {len(compiled)})")
    if missing:
        print(f"{wheel} lacks {len(missing)} file(s):", *missing, sep="\n  ", file=sys.stderr)
        return 1
    print(f"{wheel}: all {len(tracked)} tracked files of fstools/ and {len(kernels) - 1} compiled "
          "kernels and their shared utility module are in it")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))

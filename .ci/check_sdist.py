"""Check that an sdist holds every file the wheel is built from.

    python .ci/check_sdist.py ROOT SDIST

ROOT: the git checkout; SDIST: the ``fstools-*.tar.gz`` that ``python -m build --sdist`` made
from it.  Every file that git tracks under ``fstools/``, and ``setup.py``, ``pyproject.toml`` and
``README.md``, must be in the archive (under its one top-level folder); CI's stage 2 then builds
the wheel from the tree itself, reusing the kernels that stage 1 compiled, instead of compiling
them again from the unpacked sdist.  Exits with status 1 and the list of missing files otherwise.
"""
import subprocess
import sys
import tarfile

REQUIRED = ("setup.py", "pyproject.toml", "README.md")


def main(root, sdist):
    tracked = subprocess.run(["git", "-C", root, "ls-files", "fstools", *REQUIRED], check=True,
                             capture_output=True, text=True).stdout.split()
    with tarfile.open(sdist) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    missing = sorted(set(tracked) - members)
    if missing:
        print(f"{sdist} lacks {len(missing)} tracked file(s):", *missing, sep="\n  ", file=sys.stderr)
        return 1
    print(f"{sdist}: all {len(tracked)} tracked files of fstools/, {', '.join(REQUIRED)} are in it")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))

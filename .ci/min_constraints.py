"""Write a pip constraints file pinning every runtime dependency of fstools to its floor.

Reads ``[project] dependencies`` from pyproject.toml and turns each ``name>=floor`` into
``name==floor``; a dependency without a floor is left out (pip takes the newest release,
which is all an unbounded requirement promises).  Used by ``.ci/min_versions.sh``::

    python .ci/min_constraints.py [pyproject.toml] > constraints.txt

With ``--test-requirements`` it prints the ``test`` extra instead, less the packages of the
``dask`` and ``frames`` extras (both bring the newest pyarrow, which needs NumPy 2 at run time:
see ``.ci/min_versions.sh``; no test of the floors' subset or of the kernels reads a polars or
Arrow frame).
"""
import re
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*?)\s*(;.*)?$")


def floors(pyproject):
    """Map each runtime dependency of ``pyproject`` to its ``>=`` floor (None when it has none)."""
    with open(pyproject, "rb") as handle:
        dependencies = tomllib.load(handle)["project"]["dependencies"]
    result = {}
    for requirement in dependencies:
        match = _REQUIREMENT.match(requirement)
        if match is None:
            raise ValueError(f"cannot parse requirement {requirement!r}")
        name, _, specifiers, _ = match.groups()
        floor = None
        for specifier in filter(None, (part.strip() for part in specifiers.split(","))):
            if specifier.startswith(">="):
                floor = specifier[2:].strip()
            elif not specifier.startswith(("<", "!=")):
                raise ValueError(f"{requirement!r}: only '>=' floors (and '<' / '!=' caps) are understood")
        result[name] = floor
    return result


def _name(requirement):
    return _REQUIREMENT.match(requirement).group(1).lower().replace("_", "-")


def test_requirements(pyproject):
    """The ``test`` extra of ``pyproject`` without the packages of its ``dask`` and ``frames`` extras."""
    with open(pyproject, "rb") as handle:
        extras = tomllib.load(handle)["project"]["optional-dependencies"]
    left_out = {_name(requirement) for extra in ("dask", "frames") for requirement in extras.get(extra, [])}
    return [requirement for requirement in extras["test"] if _name(requirement) not in left_out]


def main(argv):
    args = [arg for arg in argv[1:] if arg != "--test-requirements"]
    pyproject = Path(args[0]) if args else Path(__file__).resolve().parent.parent / "pyproject.toml"
    if "--test-requirements" in argv[1:]:
        lines = test_requirements(pyproject)
    else:
        lines = [f"{name}=={floor}" for name, floor in floors(pyproject).items() if floor is not None]
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv)

"""Download the intersphinx inventories of docs/conf.py from the projects' public sites.

    python docs/_intersphinx/refresh.py            # every inventory of intersphinx_mapping
    python docs/_intersphinx/refresh.py numpy ...  # only these

Run it from a machine that can reach the sites (the documentation build itself never goes
online: docs/conf.py reads the ``<name>-objects.inv`` files of this folder).  For each entry
``name: (URL, "_intersphinx/<name>-objects.inv")`` of ``intersphinx_mapping`` in
docs/conf.py it downloads ``URL + "objects.inv"``, checks that it is a Sphinx inventory of
version 2 whose zlib body decompresses, and replaces the file; a failed download leaves the
old file in place and makes the command exit with status 1.  Then rebuild the site with ``-W``
(a newer inventory can drop or rename a name the documentation refers to) and commit the
changed files.  Only the standard library is needed.
"""
import ast
import sys
import urllib.request
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONF = HERE.parent / "conf.py"
HEADER = b"# Sphinx inventory version 2"


def intersphinx_mapping(conf=CONF):
    """The literal ``intersphinx_mapping`` of docs/conf.py, read without running the file."""
    for node in ast.parse(conf.read_text(encoding="utf-8")).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == "intersphinx_mapping"):
            return ast.literal_eval(node.value)
    raise SystemExit(f"{conf} has no literal intersphinx_mapping")


def check_inventory(data):
    """Raise ``ValueError`` unless ``data`` is a version-2 Sphinx inventory."""
    if not data.startswith(HEADER):
        raise ValueError("not a Sphinx inventory of version 2")
    lines = data.split(b"\n", 4)
    if len(lines) < 5 or not lines[3].startswith(b"# The remainder of this file is compressed"):
        raise ValueError("no compressed body")
    zlib.decompress(lines[4])


def refresh(names=None, timeout=60):
    """Download the inventories of ``names`` (default: all); return the names that failed."""
    failed = []
    for name, (url, inventory) in intersphinx_mapping().items():
        if names and name not in names:
            continue
        source = url.rstrip("/") + "/objects.inv"
        target = HERE.parent / inventory
        try:
            request = urllib.request.Request(source, headers={"User-Agent": "fstools-docs"})
            with urllib.request.urlopen(request, timeout=timeout) as response:
                data = response.read()
            check_inventory(data)
        except (OSError, ValueError, zlib.error) as error:
            print(f"{name}: {source}: {error}", file=sys.stderr)
            failed.append(name)
            continue
        target.write_bytes(data)
        print(f"{name}: {source} -> {target.relative_to(HERE.parent.parent)} ({len(data)} bytes)")
    return failed


if __name__ == "__main__":
    sys.exit(1 if refresh(set(sys.argv[1:])) else 0)

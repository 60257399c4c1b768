"""Put the papers' real data files where ``fs.datasets.fetch`` reads them (offline).

    python benchmarks/seed_paper_cache.py [CACHE] [--source DIR] [--dry-run]

``DIR`` (default ``../shared/data/papers`` next to the repository) holds byte-for-byte copies of
public files the papers used (Mulan's ARFF files, scikit-feature's MATLAB files; see its
README.md).  Each file is matched to the registry entries by **file name**: an entry whose file
(``fs.datasets.cached_paths(name)``: one, or each of a several-file entry's) has the same name
as a file under ``DIR`` gets a copy there, under ``CACHE``.  The matching reads the
registry each time, so it follows the registry as it changes; files that no entry names are
listed and left alone.

``CACHE`` defaults to ``$FSTOOLS_DATA``, else ``fs.datasets.get_data_home()``.  A copy that is
already there with the same bytes is kept; one with other bytes is replaced (with its
trust-on-first-use digest record, ``<file>.sha256``, which ``fetch`` would otherwise hold
against the new file).  When ``DIR`` has a ``SHA256SUMS``, each source file is checked against it
before it is copied.

Then run a vignette on the real data with ``FSTOOLS_DATA=CACHE``, e.g.::

    python benchmarks/seed_paper_cache.py /tmp/paper_cache
    cd vignettes && FSTOOLS_DATA=/tmp/paper_cache python reproduce_dfs_paper.py
"""
import argparse
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # run from a source checkout: use it
    sys.path.insert(1, str(ROOT))

import fstools as fs  # noqa: E402
from fstools.datasets.fetch import sha256_of  # noqa: E402
from fstools.datasets.registry import REGISTRY  # noqa: E402

DEFAULT_SOURCE = ROOT.parent / "shared" / "data" / "papers"


def destinations(name, data_home):
    """name of file -> where ``fetch`` reads it, for registry entry ``name`` (each of its files)."""
    return {path.name: path for path in fs.datasets.cached_paths(name, data_home=data_home)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cache", nargs="?", default=None,
                        help="the cache folder (default: $FSTOOLS_DATA, else fs.datasets.get_data_home())")
    parser.add_argument("--source", default=str(DEFAULT_SOURCE), help=f"the papers' files (default {DEFAULT_SOURCE})")
    parser.add_argument("--dry-run", action="store_true", help="say what would be copied; copy nothing")
    args = parser.parse_args(argv)

    source = Path(args.source)
    if not source.is_dir():
        parser.error(f"--source: {source} is not a folder")
    home = fs.datasets.get_data_home(args.cache)
    files = {}
    for path in sorted(source.rglob("*")):
        if path.is_file() and path.name not in ("README.md", "SHA256SUMS"):
            if path.name in files:
                parser.error(f"two files named {path.name} under {source}: {files[path.name]} and {path}")
            files[path.name] = path
    sums = {}
    if (source / "SHA256SUMS").exists():
        for line in (source / "SHA256SUMS").read_text().splitlines():
            if line.strip():
                value, relative = line.split(maxsplit=1)
                sums[Path(relative.lstrip("*")).name] = value

    print(f"source: {source} ({len(files)} files); cache: {home}")
    used, copied, kept, incomplete = set(), 0, 0, []
    for name in sorted(REGISTRY):
        targets = destinations(name, home)
        found = {filename: files[filename] for filename in targets if filename in files}
        if not found:
            continue
        if len(found) < len(targets):
            incomplete.append(f"{name} (missing: {', '.join(sorted(set(targets) - set(found)))})")
        for filename, origin in found.items():
            used.add(filename)
            target = targets[filename]
            value = sha256_of(origin)
            if filename in sums and sums[filename] != value:
                raise SystemExit(f"{origin}: SHA-256 {value} is not the {sums[filename]} of SHA256SUMS; not copied")
            if target.exists() and sha256_of(target) == value:
                kept += 1
                print(f"  {name:10s} {filename:22s} already there: {target}")
                continue
            print(f"  {name:10s} {filename:22s} -> {target}")
            copied += 1
            if args.dry_run:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            record = target.with_name(target.name + ".sha256")
            record.unlink(missing_ok=True)       # a stale trust-on-first-use record would refuse the new file
            shutil.copyfile(origin, target)
            os.chmod(target, 0o644)
    unused = sorted(set(files) - used)
    print(f"{'would copy' if args.dry_run else 'copied'} {copied}, already there {kept}")
    if incomplete:
        print("entries with only some of their files here (fetch will download the rest, or fail offline): "
              + "; ".join(incomplete))
    if unused:
        print(f"files no registry entry names (left alone): {', '.join(unused)}")
    if not args.dry_run:
        print(f"use them with FSTOOLS_DATA={home}")


if __name__ == "__main__":
    main()

"""Write the partial inventories of docs/_intersphinx/ (projects with no Debian package of docs).

    pip install sphobjinv          # a tool for this script only, not a dependency of fstools
    python docs/_intersphinx/partial.py

NumPy, Matplotlib and Polars have no documentation package in Debian 12, so their inventories
cannot be copied from one (see README.md).  This script writes, for each, a Sphinx inventory
(version 2, zlib-compressed) that holds only the names listed below: the names this
documentation refers to, plus a few of the same pages for new references, each with the URI of
its page on the project's public site (relative to the URL of ``intersphinx_mapping`` in
docs/conf.py).  A reference to a name missing here fails the ``-W`` build: add the name with
its public URI and run the script again, or, online, replace the file by the project's full
inventory with ``python docs/_intersphinx/refresh.py numpy matplotlib polars``.
"""
from pathlib import Path

import sphobjinv as soi

HERE = Path(__file__).resolve().parent

# name -> (project, version, [(name, role, uri), ...]); "$" in a URI stands for the name.
PARTIAL = {
    "numpy": ("NumPy", "stable", [
        ("numpy.ndarray", "class", "reference/generated/numpy.ndarray.html#$"),
        ("numpy.random.Generator", "class", "reference/random/generator.html#$"),
        ("numpy.random.default_rng", "function", "reference/random/generator.html#$"),
    ]),
    "matplotlib": ("Matplotlib", "stable", [
        ("matplotlib.axes.Axes", "class", "api/_as_gen/matplotlib.axes.Axes.html#$"),
        ("matplotlib.figure.Figure", "class", "api/_as_gen/matplotlib.figure.Figure.html#$"),
        ("matplotlib.pyplot.subplots", "function", "api/_as_gen/matplotlib.pyplot.subplots.html#$"),
    ]),
    "polars": ("Polars", "stable", [
        ("polars.DataFrame", "class", "reference/dataframe/index.html#$"),
        ("polars.LazyFrame", "class", "reference/lazyframe/index.html#$"),
        ("polars.Series", "class", "reference/series/index.html#$"),
    ]),
}


def write(name, project, version, entries):
    inventory = soi.Inventory()
    inventory.project, inventory.version = project, version
    for obj_name, role, uri in entries:
        inventory.objects.append(soi.DataObjStr(name=obj_name, domain="py", role=role,
                                                priority="1", uri=uri, dispname="-"))
    path = HERE / f"{name}-objects.inv"
    soi.writebytes(path, soi.compress(inventory.data_file(contract=True)))
    print(f"{path.name}: {len(entries)} names")


if __name__ == "__main__":
    for name, (project, version, entries) in PARTIAL.items():
        write(name, project, version, entries)

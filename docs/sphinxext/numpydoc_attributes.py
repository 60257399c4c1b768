"""Links for ``:attr:`` references to the entries of a class's numpydoc "Attributes" section.

numpydoc renders the "Attributes" section of a class docstring as a list (its default
``numpydoc_attributes_as_param_list = True``), and that list gives an entry no target of its
own; the result classes set most of their attributes in ``__init__`` (``res.scores``,
``res.steps``, ``res.selected``, ``res.params``, ...), so there is no other object to link to
either.  With ``nitpicky`` a reference such as ``:attr:`steps``` in the docstring of
``SelectionResult.test`` would then fail the build.

This extension gives each entry of the "Attributes" list of a documented class an anchor
(``#fstools.SelectionResult.steps``, unless the page already has that id, e.g. for a property
that autodoc documents) and, on Sphinx's ``missing-reference`` event, resolves a ``py:attr``
reference to that entry of the class page whose "Attributes" section lists the name: the class
the reference is written in (``:attr:`steps``` in a method of ``fstools.SelectionResult``) or
the class it names (``:attr:`fstools.SelectionResult.steps```, ``:attr:`SelectionResult.steps```),
or a base class of it that has a page.  The name must be listed there: a reference to an
attribute that no "Attributes" section documents stays unresolved, and fails the ``-W`` build.
"""
import importlib
import inspect

from docutils import nodes
from numpydoc.docscrape import NumpyDocString
from sphinx import addnodes
from sphinx.util.nodes import make_refnode


def _import(fullname):
    """The object named ``fullname`` (``package.module.Name``), or None."""
    parts = fullname.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def _listed_attributes(cls):
    """The names of the "Attributes" section of ``cls``'s docstring."""
    doc = inspect.getdoc(cls)
    if not doc:
        return set()
    try:
        section = NumpyDocString(doc)["Attributes"]
    except Exception:  # noqa: BLE001 - a docstring numpydoc cannot parse lists nothing
        return set()
    names = set()
    for entry in section:
        names.update(name.strip() for name in entry.name.split(","))
    return names


def _candidates(target, module, klass):
    """(class name, attribute) pairs that ``target`` may mean, most specific first."""
    if "." in target:
        owner, attribute = target.rsplit(".", 1)
        owners = [owner, f"{module}.{owner}" if module else owner]
        if klass:
            owners.append(f"{module}.{klass}.{owner}" if module else f"{klass}.{owner}")
    else:
        attribute = target
        owners = [f"{module}.{klass}" if module else klass] if klass else []
    return [(owner, attribute) for owner in owners if owner]


def _anchors(env):
    """{docname: set of the anchors given to Attributes entries on that page}."""
    if not hasattr(env, "numpydoc_attribute_anchors"):
        env.numpydoc_attribute_anchors = {}
    return env.numpydoc_attribute_anchors


def add_attribute_anchors(app, doctree):
    """An id for each entry of the "Attributes" field of each Python class described."""
    anchors = _anchors(app.env).setdefault(app.env.docname, set())
    for desc in doctree.findall(addnodes.desc):
        if desc.get("domain") != "py" or desc.get("objtype") != "class":
            continue
        signature = next(iter(desc.findall(addnodes.desc_signature)), None)
        content = next(iter(desc.findall(addnodes.desc_content)), None)
        if signature is None or content is None or not signature["ids"]:
            continue
        for field in content.findall(nodes.field):
            if field.parent.parent is not content or field[0].astext().strip() != "Attributes":
                continue
            for term in field[1].findall(nodes.term):
                strong = next(iter(term.findall(nodes.strong)), None)
                if strong is None:
                    continue
                for name in strong.astext().split(","):
                    anchor = f"{signature['ids'][0]}.{name.strip()}"
                    if name.strip() and anchor not in doctree.ids:
                        term["ids"].append(anchor)
                        doctree.ids[anchor] = term
                        anchors.add(anchor)


def _purge(app, env, docname):
    _anchors(env).pop(docname, None)


def _merge(app, env, docnames, other):
    for docname in docnames:
        if docname in _anchors(other):
            _anchors(env)[docname] = _anchors(other)[docname]


def resolve_listed_attribute(app, env, node, contnode):
    if node.get("refdomain") != "py" or node.get("reftype") != "attr":
        return None
    objects = env.get_domain("py").objects
    target = node["reftarget"].lstrip("~.")
    for owner, attribute in _candidates(target, node.get("py:module"), node.get("py:class")):
        cls = _import(owner)
        if not inspect.isclass(cls):
            continue
        for base in inspect.getmro(cls):
            name = f"{base.__module__}.{base.__qualname__}"
            page = objects.get(owner if base is cls else name)
            if page is None and base is not cls:
                # A base documented under its public alias (fstools.X for fstools.results.x.X).
                page = next((entry for full, entry in objects.items()
                             if entry.objtype == "class" and full.rsplit(".", 1)[-1] == base.__name__
                             and _import(full) is base), None)
            if page is None or attribute not in _listed_attributes(base):
                continue
            anchor = f"{page.node_id}.{attribute}"
            if anchor not in _anchors(env).get(page.docname, ()):
                anchor = page.node_id
            return make_refnode(app.builder, node["refdoc"], page.docname, anchor, contnode,
                                f"{owner}.{attribute} (in the class's Attributes)")
    return None


def setup(app):
    app.setup_extension("sphinx.ext.autodoc")
    app.connect("doctree-read", add_attribute_anchors)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("missing-reference", resolve_listed_attribute)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The package's layers, read from its import graph (every import, function-level ones included).

The folders of ``fstools/`` are layers; a module imports only from layers below its own, or from
its own folder.  The test fails on

* an import that goes up a layer (or sideways into another folder of the same layer),
* any import cycle between modules of fstools,
* a private name (``_name``) imported from another module,
* an import of an fstools module inside a function without a comment saying why (a lazy import
  is kept only where it saves start-up time, e.g. matplotlib for plotting; the command line
  says so once, at the top of cli.py),
* a module of the model layer (``fstools/model/``, the formula package included) longer than
  :data:`MODEL_MODULE_LINES` lines: one concern per file,
* a formula package whose stages are not modules of their own, or are called from anywhere but
  ``parse_formula`` (the one place that calls them, in order).

ARCHITECTURE.md at the repository root draws the same layers.
"""
import ast
from pathlib import Path


import fstools

PACKAGE_DIR = Path(fstools.__file__).resolve().parent

# Lowest first.  A module belongs to the longest prefix that names it.
LAYERS = {
    "fstools._version": 0,
    "fstools._ext": 1,
    "fstools.core": 2,
    "fstools.methods": 3,
    "fstools.model": 4,
    "fstools.datasets": 4,
    "fstools.results": 5,
    "fstools.api": 6,
    "fstools.evaluation": 7,
    "fstools.guarantees": 7,
    "fstools.cli": 8,
    "fstools": 9,  # the package's face: fstools/__init__.py re-exports the public names
}


def _module_name(path):
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    found = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        found[_module_name(path)] = path
    for path in sorted(PACKAGE_DIR.rglob("*.pyx")):  # kernels are modules too (no Python imports)
        found.setdefault(_module_name(path), None)
    return found


MODULES = _modules()


def _group(module):
    """The layer folder (or top-level module) a module belongs to."""
    best = None
    for prefix in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > len(best):
                best = prefix
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best


def _resolve(module, node):
    """The absolute module an ImportFrom refers to."""
    if not node.level:
        return node.module
    base = module.split(".")
    is_package = MODULES.get(module) is not None and MODULES[module].name == "__init__.py"
    keep = len(base) - node.level + (1 if is_package else 0)
    return ".".join(base[:keep] + ([node.module] if node.module else []))


def _imports(module, path):
    """(imported module, name or None, line) for every import of an fstools module in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "fstools":
                    found.append((alias.name, None, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            if target and target.split(".")[0] == "fstools":
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    if submodule in MODULES:
                        found.append((submodule, None, node.lineno))
                    else:
                        found.append((target, alias.name, node.lineno))
    return found


GRAPH = {module: _imports(module, path) for module, path in MODULES.items() if path is not None}


def _edges():
    for module, imports in GRAPH.items():
        for target, name, line in imports:
            yield module, target, name, line


def test_every_module_has_a_layer():
    for module in MODULES:
        _group(module)


def test_no_import_goes_up_or_sideways():
    wrong = []
    for module, target, _, line in _edges():
        source_group, target_group = _group(module), _group(target)
        if source_group == target_group:
            continue
        if module == "fstools":
            continue  # the package's face may import from every layer
        if LAYERS[target_group] >= LAYERS[source_group]:
            wrong.append(f"{MODULES[module].relative_to(PACKAGE_DIR.parent)}:{line} imports {target} "
                         f"(layer {LAYERS[target_group]} {target_group}, from layer {LAYERS[source_group]})")
    assert not wrong, "imports that go up or sideways:\n" + "\n".join(wrong)


def test_no_private_name_crosses_a_module():
    wrong = [f"{MODULES[module].relative_to(PACKAGE_DIR.parent)}:{line} imports {name} from {target}"
             for module, target, name, line in _edges()
             if name is not None and name.startswith("_") and name != "__version__" and target != module]
    assert not wrong, "private names imported from another module:\n" + "\n".join(wrong)


def _module_graph():
    return {module: sorted({target for target, _, _ in imports
                            if target in MODULES and target != module and not _is_parent_package(target, module)})
            for module, imports in GRAPH.items()}


def _cycles(graph):
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for neighbour in graph.get(node, ()):
            if neighbour not in index:
                visit(neighbour)
                low[node] = min(low[node], low[neighbour])
            elif neighbour in on_stack:
                low[node] = min(low[node], index[neighbour])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def _is_parent_package(target, module):
    # "from fstools.methods import registry" inside fstools.methods.cmqfs names the sibling module, which
    # _imports already records; the package itself is not a dependency of its own members.
    return module.startswith(target + ".")


def test_no_import_cycle():
    cycles = _cycles(_module_graph())
    assert not cycles, "import cycles inside fstools:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_planted_cycles():
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"], "e": ["f"], "f": ["e"], "g": []}
    assert sorted(_cycles(graph)) == [["a", "b", "c"], ["e", "f"]]
    assert _cycles({"a": ["b"], "b": []}) == []


def _lazy_imports_without_reason(module, path):
    """Function-level imports of fstools modules in ``path`` with no comment on their line or the line above."""
    lines = path.read_text().splitlines()
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(module, node) or ""
            elif isinstance(node, ast.Import):
                target = node.names[0].name
            else:
                continue
            if target.split(".")[0] != "fstools":
                continue
            here, above = lines[node.lineno - 1], lines[node.lineno - 2].strip()
            if "#" not in here and not above.startswith("#"):
                found.append(f"{path.relative_to(PACKAGE_DIR.parent)}:{node.lineno}")
    return found


def test_every_lazy_import_says_why():
    wrong = []
    for module, path in MODULES.items():
        if path is None or module == "fstools.cli":  # cli.py gives its reason once, at the top
            continue
        wrong += _lazy_imports_without_reason(module, path)
    assert not wrong, "function-level imports of fstools modules without a comment saying why:\n" + "\n".join(wrong)


#: The most lines a module of the model layer may have (one concern per file).
MODEL_MODULE_LINES = 600


def test_no_model_module_is_longer_than_one_concern():
    long = [f"{path.relative_to(PACKAGE_DIR.parent)}: {len(path.read_text().splitlines())} lines"
            for module, path in MODULES.items()
            if path is not None and _group(module) == "fstools.model"
            and len(path.read_text().splitlines()) > MODEL_MODULE_LINES]
    assert not long, f"model modules over {MODEL_MODULE_LINES} lines:\n" + "\n".join(long)


#: The stages of the formula package, in the order parse_formula calls them: (module, function).
#: ``read_dot`` (R's ``y ~ .`` over numbers) stands for the next three when it applies.
FORMULA_STAGES = [("fstools.model.formula.syntax", "read_syntax"), ("fstools.model.formula.dot", "read_dot"),
                  ("fstools.model.formula.patsy_terms", "read_terms"), ("fstools.model.formula.rows", "read_rows"),
                  ("fstools.model.formula.design", "build_design"), ("fstools.model.formula.term_map", "map_terms")]


def _called_names(node):
    """The names called by bare name inside ``node``, in the order of the source."""
    calls = [call for call in ast.walk(node) if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)]
    return [call.func.id for call in sorted(calls, key=lambda call: (call.lineno, call.col_offset))]


def test_parse_formula_calls_each_stage_once_in_order():
    stages = [stage for _, stage in FORMULA_STAGES]
    for module, stage in FORMULA_STAGES:
        tree = ast.parse(MODULES[module].read_text())
        assert stage in {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}, (module, stage)
    elsewhere = []
    for module, path in MODULES.items():
        if path is None:
            continue
        for node in ast.parse(path.read_text()).body:
            names = _called_names(node)
            if module == "fstools.model.formula.parse" and getattr(node, "name", None) == "parse_formula":
                assert [name for name in names if name in stages] == stages
            else:
                elsewhere += [f"{path.relative_to(PACKAGE_DIR.parent)}: {name}" for name in names if name in stages]
    assert not elsewhere, "stages of parse_formula called elsewhere:\n" + "\n".join(elsewhere)

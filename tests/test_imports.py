"""tutorlib's import graph: no module imports, directly or through others, a module that imports it
back, counting imports inside functions (issue 35). A circle holds modules apart only by the order
they load in; a function-level import that closes one only hides it."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tutorlib"

# The circle issue 35 found in the translation stack (checkpoints <-> gpt, decoding ->
# checkpoints, model -> decoding, gpt -> training, modern_gpt), being taken apart by the same
# issue's reorganisation of tutorlib/translation/: a circle may shrink inside it, never reach
# another module. Empty this set when that work lands.
KNOWN = {
    "tutorlib.modern_gpt",
    "tutorlib.translation.checkpoints",
    "tutorlib.translation.decoding",
    "tutorlib.translation.gpt",
    "tutorlib.translation.model",
    "tutorlib.translation.training",
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(name: str, source: str, is_package: bool, modules) -> set[str]:
    """The tutorlib modules ``name`` imports anywhere in its file, functions included. Importing
    ``a.b.c`` runs ``a`` and ``a.b`` too; a module's own parent packages are not counted (they
    are already loading when it runs)."""
    here = name.split(".") if is_package else name.split(".")[:-1]
    targets = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            targets += [module] + [f"{module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            targets += [a.name for a in node.names]
    found = set()
    for target in targets:
        parts = target.split(".")
        for k in range(1, len(parts) + 1):
            module = ".".join(parts[:k])
            if module in modules and module != name and not name.startswith(module + "."):
                found.add(module)
    return found


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


def test_no_import_circle_among_tutorlibs_modules():
    modules = _modules()
    graph = {
        name: _imports(name, path.read_text(), path.name == "__init__.py", modules)
        for name, path in modules.items()
    }
    assert "tutorlib.checks" in graph["tutorlib.nn"] and "tutorlib.nn" in graph["tutorlib.modern"]
    for circle in _circles(graph):
        assert circle <= KNOWN, f"an import circle: {sorted(circle)}"


def test_the_graph_counts_imports_inside_functions():
    """A circle closed by a function-level import counts: nn's old lazy re-export of modern's
    names (``from . import modern`` inside ``__getattr__``) would fail the test above."""
    modules = {"tutorlib", "tutorlib.nn", "tutorlib.modern"}
    lazy = "def __getattr__(name):\n    from . import modern\n"
    assert _imports("tutorlib.nn", lazy, False, modules) == {"tutorlib.modern"}
    graph = {"tutorlib.nn": {"tutorlib.modern"}, "tutorlib.modern": {"tutorlib.nn"}}
    assert _circles(graph) == [{"tutorlib.nn", "tutorlib.modern"}]
    assert _circles({"tutorlib.nn": set(), "tutorlib.modern": {"tutorlib.nn"}}) == []

"""tutorlib's modules import one another one way: no import circle, counting imports inside
functions, and no module over 800 lines (issue 35).

Every ``tutorlib/**/*.py`` is parsed with ``ast``; every ``import`` and ``from ... import``
anywhere in it (the top, a function, a ``TYPE_CHECKING`` block) is an edge to the module it
names, relative imports resolved, and ``from . import x`` to the submodule ``x`` when ``x`` is
one. Importing ``a.b.c`` runs the packages ``a`` and ``a.b`` first, so it counts as importing
them too, except the importer's own packages (already loading when it runs): a package
``__init__`` that imports a layer above its own modules closes a circle, even lazily. No
torch, no import of tutorlib: fast.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tutorlib"
MAX_LINES = 800
# Word tables, long by nature: the lexicon of the phrasebook.
LONG_ALLOWED = {"tutorlib/translation/phrasebook/lexicon.py"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The tutorlib modules ``path`` (module ``name``) imports, anywhere in it."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.add(submodule if submodule in known else target)
    with_packages = set()
    for module in found:
        parts = module.split(".")
        with_packages.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
    own = {".".join(name.split(".")[:k]) for k in range(1, name.count(".") + 1)}
    return {m for m in with_packages if m in known and m != name and m not in own}


def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(name, path, known) for name, path in found.items()}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan), each
    written as a path that comes back to its start."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(set(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_a_cycle(graph, component) for component in components]


def _a_cycle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A path within ``component`` from its first module back to it (breadth first: shortest)."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & component):
            if w == start:
                return paths[v] + [start]
            if w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    return sorted(component)


def test_the_graph_sees_imports_inside_functions_and_relative_ones(tmp_path):
    known = {"tutorlib.a", "tutorlib.b", "tutorlib.c", "tutorlib.p", "tutorlib.p.q"}
    source = tmp_path / "a.py"
    source.write_text(
        "from .b import x\n"
        "def f():\n"
        "    from . import c\n"
        "    import tutorlib.p.q\n"
        "    from .p import q\n"
    )
    # tutorlib.p.q runs tutorlib.p first; tutorlib itself is a's own package, not counted
    assert imports_of("tutorlib.a", source, known) == {
        "tutorlib.b",
        "tutorlib.c",
        "tutorlib.p",
        "tutorlib.p.q",
    }
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle():
    cycles = find_cycles(import_graph())
    assert not cycles, "import circles among tutorlib's modules:\n" + "\n".join(
        " -> ".join(cycle) for cycle in cycles
    )


def test_no_module_over_800_lines():
    long = {
        str(path.relative_to(ROOT)): n
        for path in PACKAGE.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    long = {p: n for p, n in long.items() if p not in LONG_ALLOWED}
    assert not long, f"modules over {MAX_LINES} lines (split them where the ideas part): {long}"

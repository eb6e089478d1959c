"""Every name the benchmarks and tools import from tutorlib exists where they import it from.

Neither runs in ``make check`` (a benchmark takes minutes), so a module that moves a name would
otherwise break them silently: ``benchmarks/gpt_bench.py`` took ``KVCache`` from the GPT's
package after it had moved to ``tutorlib.translation.cache`` (issue 35).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "benchmarks").glob("*.py")) + sorted((ROOT / "tools").rglob("*.py"))


def tutorlib_imports(path: Path) -> list[tuple[str, str, int]]:
    """(module, name, line) for every ``from tutorlib... import name`` in ``path``, anywhere."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module == "tutorlib" or node.module.startswith("tutorlib."):
                found += [(node.module, a.name, node.lineno) for a in node.names]
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_tutorlib_name_a_benchmark_or_tool_imports_exists(path):
    missing = []
    for module, name, line in tutorlib_imports(path):
        imported = importlib.import_module(module)
        if not hasattr(imported, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ModuleNotFoundError:
                missing.append(f"line {line}: {name} from {module}")
    assert not missing, f"{path.relative_to(ROOT)} imports names that are not there: {missing}"


def test_the_check_finds_a_moved_name(tmp_path):
    moved = tmp_path / "bench.py"
    moved.write_text("def main():\n    from tutorlib.translation.gpt import KVCache\n")
    assert tutorlib_imports(moved) == [("tutorlib.translation.gpt", "KVCache", 2)]
    imported = importlib.import_module("tutorlib.translation.gpt")
    assert not hasattr(imported, "KVCache")

"""One way for tutorlib's docstrings to say where the course derives a name (issue 35).

A docstring that names its chapter says "Derived in chapter N (Title)." or, for several, "Derived
in chapters N (Title) and M (Title).", with each title as ``course.yml`` writes it: the reader
can search the book for it. "Used in" and "Introduced in" said the same thing three ways.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
TITLES = {
    chapter["number"]: chapter["title"]
    for part in yaml.safe_load((ROOT / "course.yml").read_text(encoding="utf-8"))["parts"]
    for chapter in part["chapters"]
}
# "Derived in chapter 9 (Training a translator)" and "... chapters 9 (...) and 13 (...)"
CLAIM = re.compile(r"Derived in chapters? (.*?)(?:\.(?:\s|$)|;|$)")
ONE = re.compile(r"(\d+)(?: \(((?:[^()]|\([^()]*\))*)\))?")
OTHER_WORDING = re.compile(r"\b(Used|Introduced|Taught|Built) in chapters? \d")


def docstrings(path: Path):
    """(where, text) for the module's docstring and every class's and function's."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node)
            if text:
                name = getattr(node, "name", "the module")
                yield f"{path.relative_to(ROOT)}: {name}", " ".join(text.split())


def problems_in(where: str, text: str) -> list[str]:
    found = [
        f"{where}: says {m.group(0)!r}, not 'Derived in'" for m in OTHER_WORDING.finditer(text)
    ]
    for claim in CLAIM.finditer(text):
        refs = list(ONE.finditer(claim.group(1)))
        if not refs:
            found.append(f"{where}: {claim.group(0)!r} names no chapter number")
        for ref in refs:
            number, title = int(ref.group(1)), ref.group(2)
            if number not in TITLES:
                found.append(f"{where}: chapter {number} is not in course.yml")
            elif title != TITLES[number]:
                found.append(
                    f"{where}: chapter {number} is {TITLES[number]!r} in course.yml, "
                    f"the docstring says {title!r}"
                )
    return found


def test_every_docstring_names_its_chapter_one_way():
    found = [
        problem
        for path in sorted((ROOT / "tutorlib").rglob("*.py"))
        for where, text in docstrings(path)
        for problem in problems_in(where, text)
    ]
    assert not found, "\n".join(found)


def test_the_check_catches_each_slip():
    assert problems_in("x", "Derived in chapter 9 (Training a translator).") == []
    assert (
        problems_in("x", "Derived in chapters 3 (Softmax) and 4 (Scaled dot-product attention).")
        == []
    )
    assert problems_in("x", "Derived in chapter 12 (Why doesn't my Transformer learn?).") == []
    assert problems_in("x", "Used in chapter 9 (Training a translator).")
    assert problems_in("x", "Derived in chapter 13 (the translator as a GPT).")  # lower case
    assert problems_in("x", "Derived in chapters 9 and 10.")  # no titles
    assert problems_in("x", "Derived in chapter 40 (Chapter forty).")
